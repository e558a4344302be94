"""``pybsnsing.read_csv``: R 4.2.2's ``read.csv`` value for value, bit for bit.

R's ``read.csv`` -> ``type.convert`` -> ``R_strtod5`` (``src/main/util.c``) reads a
decimal string in x87 80-bit long double (``ans = 10*ans + digit``, then ``ans /
fac`` or ``ans * fac`` with ``fac`` a power of ten built by repeated squaring in long
double), then rounds to double.  ``numerals = "allow.loss"``, type.convert's default,
passes ``exact = FALSE``, and no branch of R 4.2.2's code calls the C library's
``strtod``.  The result is not always Python's correctly rounded ``float()``.

* ``HAND_PICKED``: strings where R and ``float()`` differ, with R's bits stored as hex
  (produced by R 4.2.2 through rpy2; the live test re-derives them when R is here).
* ``SCREENING``: type.convert's column rules, with the R classes stored.
* The live tests (rpy2 + R, skipped with the reason otherwise) read seeded random
  CSV files with R's ``read.csv`` and with :func:`pybsnsing.read_csv` and require the
  same names, classes, factor levels (in order), NA positions and value bits.
"""

from __future__ import annotations

import csv
import io
import math
import random
import struct
import time
from fractions import Fraction
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pybsnsing
from pybsnsing.rformat import r_atof, r_strtoc, r_strtod


def _hex(v: float) -> str:
    return struct.pack(">d", v).hex()


# (string, R 4.2.2's type.convert value as big-endian IEEE bits)
HAND_PICKED = [
    ("2.83596401280207", "4006b00de67cf14a"),
    ("0.12345678901239205", "3fbf9add3747036c"),  # 17 significant digits
    ("0.12345678901232051", "3fbf9add3746ef4a"),
    ("1.0000000000001944", "3ff000000000036c"),
    ("0.0000000702057076360894", "3e72d87fdebfc9e2"),  # many leading zeros
    # 18 digits with the leading zeros, mantissa < 2**53: still long double division
    ("0.00005003286383151", "3f0a3b4c1c6def00"),
    ("2917301906148155e281", "7d7c8c74895f0ed6"),  # large exponents: fac inexact
    ("7341696495479345e281", "7d91f61faa7f200e"),
    ("8842411933412566e-321", "0098d660962a1b7e"),  # expn < -307: fac /= p10
    ("6164944772983222e-311", "02a428c64704ba84"),
    ("9967763906712945.0006149", "4341b4d0716eaab8"),  # beyond 2**53, with a point
    ("9007199254740993.0000001", "4340000000000000"),  # ties to even after long double
    ("-14.46014996751060", "c02ceb98c6cb6d4e"),
    ("-6.814710453576033", "c01b424375074608"),
    ("1544898097880638029811", "4454eff126b34c06"),  # > 2**64: rounding per digit
    ("-5775798440664911839298", "c47391b4e204b072"),
    ("1.7976931348623158e308", "7ff0000000000000"),  # long double > DBL_MAX -> Inf
]
# R's own forms that float() does not read the same way (or at all)
HAND_PICKED_R_SYNTAX = [
    ("0x1.8", "4038000000000000"),  # hex without 'p': digits after the point unscaled
    ("0x.8", "4020000000000000"),
    ("0x1p-1074", "0000000000000000"),  # double p2 squares overflow -> 0
    ("0x1.8.8p0", "4038800000000000"),  # a second point restarts the count
    ("1e", "3ff0000000000000"),  # exponent digits may be missing
    ("-1E+", "bff0000000000000"),
    (" 7.5 ", "401e000000000000"),
    ("1.5\u3000", "3ff8000000000000"),  # trailing iswspace() white space
]


@pytest.mark.parametrize(("text", "bits"), HAND_PICKED)
def test_hand_picked_values_are_rs_not_pythons(text: str, bits: str) -> None:
    assert _hex(r_strtod(text)) == bits
    assert _hex(float(text)) != bits  # the case is one where float() is wrong for R
    if "e" not in text and " " not in text:
        assert _hex(r_atof(text)) == bits  # R's parser: same routine, same value


@pytest.mark.parametrize(("text", "bits"), HAND_PICKED_R_SYNTAX)
def test_r_only_syntax(text: str, bits: str) -> None:
    assert _hex(r_strtod(text)) == bits


def test_hand_picked_through_the_reader() -> None:
    rows = HAND_PICKED + HAND_PICKED_R_SYNTAX
    text = "x\n" + "\n".join(f'"{s}"' for s, _ in rows) + "\n"
    df = pybsnsing.read_csv(io.StringIO(text))
    assert df["x"].dtype == np.float64
    assert [_hex(v) for v in df["x"].tolist()] == [b for _, b in rows]


def test_r_strtod_rejects_and_specials() -> None:
    for bad in ("", " ", "abc", "1d5", "1_0", "--1", "1.2.3", ".", "e5", "0x", "1ex", "NAN x",
                "\u30001", "1 2", "NA"):
        with pytest.raises(ValueError, match="not a number for R's type.convert"):
            r_strtod(bad)
    assert r_strtod("-Inf") == -math.inf and r_strtod("infinity") == math.inf
    assert math.isnan(r_strtod("NAN")) and math.isnan(r_strtod("-nan"))
    assert _hex(r_strtod("-NaN")) == "7ff8000000000000"  # R: sign * NaN keeps the sign
    assert _hex(r_strtod("-0.0")) == "8000000000000000"
    assert r_strtod("1e-99999") == 0.0 and r_strtod("1e99999") == math.inf
    assert r_strtod("0e99999") == 0.0
    # type.convert's screening pass (NA = TRUE): only "NA" itself starts with NA
    assert math.isnan(r_strtod("NA", na=True))
    with pytest.raises(ValueError, match="not a number for R's type.convert: 'NAN'"):
        r_strtod("NAN", na=True)
    assert r_strtoc("1+2i") == complex(1, 2) and r_strtoc("2.5i") == complex(0, 2.5)
    assert r_strtoc(" 1 -2e1i ") == complex(1, -20)
    assert r_strtoc("1e5i") == complex(0, 1e5) and r_strtoc("Infi") == complex(0, math.inf)
    for bad in ("i", "1+2", "1 2", "1+2j", "1i2", "NAi"):
        with pytest.raises(ValueError, match="not a complex number for R's type.convert"):
            r_strtoc(bad)


def test_numerals_exact_modes() -> None:
    """``exact``: False ("allow.loss", type.convert's default), None ("warn.loss"),
    True ("no.loss"): the digits may not exceed 2**53 - 1."""
    assert r_strtod("9007199254740993") == 9007199254740992.0
    with pytest.warns(UserWarning, match="accuracy loss"):
        r_strtod("9007199254740993", exact=None)
    for s in ("9007199254740993", "9007199254740991.5", "0x20000000000001"):
        with pytest.raises(ValueError, match="not a number for R's type.convert"):
            r_strtod(s, exact=True)
    assert r_strtod("9007199254740991", exact=True) == 9007199254740991.0


# (column values, R class from read.csv(stringsAsFactors = TRUE, na.strings = c("", "NA")))
SCREENING = [
    (["1.5", "NAN"], "numeric"),  # "NAN" is NaN when it is not screened ...
    (["NAN", "1.5"], "factor"),  # ... but Strtod(NA = TRUE) refuses it as first value
    (["1", "NAN"], "factor"),  # ... and as first non-integer
    (["1", "2.5", "NAN"], "numeric"),
    (["1+2i", "3"], "complex"),
    (["1", "2i"], "complex"),
    (["1 2", "3"], "factor"),
    (["1", "NAi"], "factor"),
    (["\u3000", "5"], "integer"),  # a blank field (iswspace) is NA
    (["5", "5\u3000"], "numeric"),  # strtol refuses trailing white space, Strtod not
    ([" 5", "6"], "integer"),
    (["0x10", "1"], "numeric"),
    (["TRUE", "1"], "factor"),
    (["T", "F", " "], "logical"),
    (["true", "F"], "factor"),
    (["-0", "1"], "integer"),
    (["2147483647", "-2147483647"], "integer"),
    (["1", "-2147483648"], "numeric"),
    (["Inf", "-infinity", "nan", "1e"], "numeric"),
    (["1", "1d5"], "factor"),
    (["NA", "NA"], "logical"),
    (["", " "], "logical"),
]


def _screening_csv(values: list[str]) -> str:
    # a second column: R skips a line holding only "" (see read_csv's docstring)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_ALL)
    w.writerow(["x", "row"])
    for i, v in enumerate(values):
        w.writerow([v, i])
    return buf.getvalue()


def _py_class(col: pd.Series) -> str:
    dt = col.dtype
    if isinstance(dt, pd.CategoricalDtype):
        return "factor"
    if pd.api.types.is_bool_dtype(dt):
        return "logical"
    if pd.api.types.is_integer_dtype(dt):
        return "integer"
    if pd.api.types.is_float_dtype(dt):
        return "numeric"
    if pd.api.types.is_complex_dtype(dt):
        return "complex"
    return "character"


@pytest.mark.parametrize(("values", "r_class"), SCREENING)
def test_type_convert_screening(values: list[str], r_class: str) -> None:
    df = pybsnsing.read_csv(io.StringIO(_screening_csv(values)))
    assert _py_class(df["x"]) == r_class


def test_strings_as_factors_false_and_na_strings() -> None:
    text = "a,b,c\nx,1,NA\n,2,-\ny,NA,3\n"
    df = pybsnsing.read_csv(io.StringIO(text), strings_as_factors=False, na_strings=["-", ""])
    assert df["a"].dtype == object and df["a"].tolist() == ["x", None, "y"]
    assert _py_class(df["b"]) == "character"  # "NA" is not missing here: text
    assert df["b"].tolist() == ["1", "2", "NA"]
    assert _py_class(df["c"]) == "character" and df["c"].tolist() == ["NA", None, "3"]
    df = pybsnsing.read_csv(io.StringIO(text))
    assert _py_class(df["a"]) == "factor" and list(df["a"].cat.categories) == ["x", "y"]
    assert _py_class(df["b"]) == "integer" and _py_class(df["c"]) == "factor"


def test_read_csv_r_is_read_csv() -> None:
    from pybsnsing.datasets import read_csv_r

    text = _screening_csv(["0.1", "2.83596401280207", ""])
    pd.testing.assert_frame_equal(read_csv_r(io.StringIO(text)),
                                  pybsnsing.read_csv(io.StringIO(text)))
    assert _hex(read_csv_r(io.StringIO(text))["x"][1]) == "4006b00de67cf14a"


# --------------------------------------------------------------------------- random data


def _decimal(rng: random.Random) -> str:
    """A random decimal string: 1-20 significant digits, point anywhere, leading and
    trailing zeros, exponents of every size R reads, signs."""
    nsig = rng.randint(1, 20)
    digs = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(nsig - 1))
    r = rng.random()
    if r < 0.15:
        mant = "0." + "0" * rng.randint(0, 25) + digs
    elif r < 0.85:
        k = rng.randint(0, nsig)
        mant = digs[:k] + "." + digs[k:]
    else:
        mant = digs
    if rng.random() < 0.1:
        mant += "0" * rng.randint(1, 8)
    if rng.random() < 0.45:
        e = rng.choice([rng.randint(-30, 30), rng.randint(-330, 330)])
        sign = "-" if e < 0 else rng.choice(["", "+"])
        mant += rng.choice("eE") + sign + str(abs(e)).zfill(rng.choice([1, 1, 2, 3]))
    if rng.random() < 0.3:
        mant = "-" + mant
    return mant


_TEXT_ALPHABET = "abcXYZ019 _-.,;:!?'\"()[]{}@#%&*/+<=>|~$"


def _word(rng: random.Random) -> str:
    w = "".join(rng.choice(_TEXT_ALPHABET) for _ in range(rng.randint(1, 6)))
    return "w" + w if w.strip() != w or w in ("NA", "T", "F") else w


def _near_tie(rng: random.Random) -> str:
    """17-26 significant digits within a few 2**-64 ulps of the midpoint of two doubles:
    where rounding to long double first and then to double goes the other way."""
    d = 10 ** rng.uniform(-20, 20)
    mid = Fraction(d) + Fraction(math.ulp(d)) / 2
    v = mid + Fraction(rng.randint(-1000, 1000)) * Fraction(math.ulp(d)) / 2 ** rng.randint(8, 20)
    k = rng.randint(17, 26)
    e = math.floor(math.log10(float(v))) - k + 1
    mant = round(v / Fraction(10) ** e) if e >= 0 else round(v * 10 ** -e)
    return f"{mant}e{e}"


#: the columns of random decimal strings in _random_frame
DEC_COLUMNS = [f"dec{j}" for j in range(6)] + ["dec17", "tie"]


def _random_frame(seed: int, n: int) -> dict[str, list[str]]:
    """CSV fields by column ('' = empty field)."""
    rng = random.Random(seed)

    def maybe_na(v: str) -> str:
        return rng.choice(["", "NA"]) if rng.random() < 0.04 else v

    cols: dict[str, list[str]] = {}
    for j in range(6):
        cols[f"dec{j}"] = [maybe_na(_decimal(rng)) for _ in range(n)]
    cols["dec17"] = [maybe_na(f"{rng.uniform(-1, 1) * 10 ** rng.uniform(-30, 30):.17g}")
                     for _ in range(n)]
    cols["tie"] = [maybe_na(_near_tie(rng)) for _ in range(n)]
    cols["int"] = [maybe_na(str(rng.randint(-2147483647, 2147483647))) for _ in range(n)]
    cols["int_small"] = [maybe_na(str(rng.randint(-50, 50))) for _ in range(n)]
    cols["int_big"] = [maybe_na(str(rng.randint(-(10**12), 10**12))) for _ in range(n)]
    cols["lgl"] = [maybe_na(rng.choice(["T", "F", "TRUE", "FALSE"])) for _ in range(n)]
    cols["text"] = [maybe_na(_word(rng)) for _ in range(n)]
    cols["levels"] = [maybe_na(rng.choice(["b", "B", "a", "A", "a b", "_x", "10", "9", "é"]))
                      for _ in range(n)]
    mixed = [maybe_na(_decimal(rng)) for _ in range(n)]
    mixed[rng.randrange(n)] = "x1"  # one text value: the column is a factor
    cols["mixed"] = mixed
    cols["special"] = [maybe_na(rng.choice([_decimal(rng), "Inf", "-inf", "NaN", "1e", " 2.5",
                                            "3 ", "0x1Fp-3", "+.5", "5."])) for _ in range(n)]
    return cols


def _write_csv(path: Path, cols: dict[str, list[str]]) -> None:
    names = list(cols)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(names)
        for row in zip(*(cols[c] for c in names), strict=True):
            w.writerow(row)


# --------------------------------------------------------------------------- live R


_R_DUMP = r"""
function(path, as_is, na) {
  d <- read.csv(path, stringsAsFactors = !as_is, na.strings = na)
  bits <- function(x) writeBin(as.double(x), raw(), size = 8, endian = "big")
  cols <- lapply(d, function(v) {
    if (is.factor(v)) list(levels = levels(v), codes = ifelse(is.na(v), 0L, as.integer(v)))
    else if (is.complex(v)) list(re = bits(Re(v)), im = bits(Im(v)), na = is.na(v))
    else if (is.double(v)) list(bits = bits(v), na = is.na(v) & !is.nan(v))
    else if (is.character(v)) list(values = ifelse(is.na(v), "", v), na = is.na(v))
    else list(values = as.integer(ifelse(is.na(v), 0L, v)), na = is.na(v))
  })
  list(names = names(d), classes = vapply(d, function(v) class(v)[1], ""), cols = cols,
       collate = Sys.getlocale("LC_COLLATE"), icu = unname(capabilities("ICU")))
}
"""


@pytest.fixture(scope="module")
def r_read_csv():
    """R's read.csv through rpy2 (skips, saying why, without rpy2 or R)."""
    try:
        import rpy2.robjects as ro
    except Exception as exc:  # ImportError, or rpy2 failing to find/start R
        pytest.skip(f"rpy2/R not available: {type(exc).__name__}: {exc}")
    try:
        fn = ro.r(_R_DUMP)
        version = str(ro.r("R.version.string")[0])
    except Exception as exc:
        pytest.skip(f"R not usable through rpy2: {exc}")

    def run(path: Path, *, as_is: bool = False, na: tuple[str, ...] = ("", "NA")) -> dict:
        res = fn(str(path), as_is, ro.StrVector(list(na)))
        out = {"version": version, "names": list(res.rx2("names")),
               "classes": list(res.rx2("classes")), "cols": {},
               "collate": str(res.rx2("collate")[0]), "icu": bool(res.rx2("icu")[0])}
        for name, col in zip(out["names"], res.rx2("cols"), strict=True):
            out["cols"][name] = {k: col.rx2(k) for k in col.names}
        return out

    return run


def _f64(raw) -> np.ndarray:
    return np.frombuffer(bytes(raw), dtype=">f8").astype(np.float64)


def _compare(df: pd.DataFrame, r: dict, collation: str | None) -> list[str]:
    """Every difference between pybsnsing's frame and R's read (empty = identical)."""
    diffs: list[str] = []
    if list(df.columns) != r["names"]:
        return [f"names {list(df.columns)} != {r['names']}"]
    for name, cls in zip(r["names"], r["classes"], strict=True):
        col, rc = df[name], r["cols"][name]
        if _py_class(col) != cls:
            diffs.append(f"{name}: class {_py_class(col)} != {cls}")
            continue
        if cls == "factor":
            lv = list(rc["levels"])
            got = list(col.cat.categories)
            if collation is not None and got != lv:
                diffs.append(f"{name}: levels {got[:8]} != {lv[:8]}")
            elif sorted(got) != sorted(lv):
                diffs.append(f"{name}: level sets differ")
            # compare the labels (level order may legitimately differ without ICU)
            codes = np.asarray(list(rc["codes"]))
            r_lab = [lv[c - 1] if c > 0 else None for c in codes]
            py_lab = [None if pd.isna(v) else v for v in col.tolist()]
            if py_lab != r_lab:
                diffs.append(f"{name}: factor values differ")
        elif cls == "numeric":
            rv = _f64(rc["bits"])
            r_na = np.asarray(list(rc["na"]), dtype=bool)
            pv = col.to_numpy(dtype=np.float64)
            if not np.array_equal(np.isnan(pv) & r_na, r_na):
                diffs.append(f"{name}: NA positions differ")
            ok = ~r_na
            bad = np.flatnonzero(pv[ok].view(np.int64) != rv[ok].view(np.int64))
            if bad.size:
                i = np.flatnonzero(ok)[bad[0]]
                diffs.append(f"{name}: {bad.size} values differ, row {i}: "
                             f"{pv[i].hex()} != {rv[i].hex()}")
        elif cls == "complex":
            r_na = np.asarray(list(rc["na"]), dtype=bool)
            pv = col.to_numpy(dtype=np.complex128)
            for part, key in ((pv.real, "re"), (pv.imag, "im")):
                rv = _f64(rc[key])
                ok = ~r_na
                if not np.array_equal(part[ok].view(np.int64), rv[ok].view(np.int64)):
                    diffs.append(f"{name}: complex {key} parts differ")
            if not np.isnan(pv[r_na].real).all():
                diffs.append(f"{name}: complex NA positions differ")
        else:  # logical, integer, character
            r_na = np.asarray(list(rc["na"]), dtype=bool)
            py_na = col.isna().to_numpy() if cls != "character" else np.array(
                [v is None for v in col.tolist()])
            if not np.array_equal(py_na, r_na):
                diffs.append(f"{name}: NA positions differ")
            rv = list(rc["values"])
            pv = [v for v, m in zip(col.tolist(), py_na, strict=True) if not m]
            rv = [v for v, m in zip(rv, r_na, strict=True) if not m]
            if cls == "logical":
                rv = [bool(v) for v in rv]
            if [type(v)(x) for v, x in zip(rv, pv, strict=True)] != rv:
                diffs.append(f"{name}: values differ")
    return diffs


def _collation(r: dict) -> str | None:
    """The level order pybsnsing should reproduce for this R session (None: unknown)."""
    if r["collate"] in ("C", "POSIX"):
        return "codepoint"
    if r["collate"] == "C.UTF-8" and r["icu"]:
        return "r"
    return None


def test_hand_picked_table_is_what_r_reads(r_read_csv, tmp_path: Path) -> None:
    rows = HAND_PICKED + HAND_PICKED_R_SYNTAX
    path = tmp_path / "hand.csv"
    path.write_text("x\n" + "\n".join(f'"{s}"' for s, _ in rows) + "\n", encoding="utf-8")
    r = r_read_csv(path)
    assert r["classes"] == ["numeric"]
    assert [_hex(v) for v in _f64(r["cols"]["x"]["bits"])] == [b for _, b in rows]


def test_screening_is_what_r_reads(r_read_csv, tmp_path: Path) -> None:
    for k, (values, r_class) in enumerate(SCREENING):
        path = tmp_path / f"s{k}.csv"
        path.write_text(_screening_csv(values), encoding="utf-8")
        r = r_read_csv(path)
        assert r["classes"] == [r_class, "integer"], values
        df = pybsnsing.read_csv(path)
        assert _compare(df, r, _collation(r)) == [], values


def test_options_are_what_r_reads(r_read_csv, tmp_path: Path) -> None:
    path = tmp_path / "o.csv"
    path.write_text("a,b,c,d\nx,1,NA,\n,2,-, \ny,NA,3,1+1i\n\u3000,4,5,-2i\nz,7\n",
                    encoding="utf-8")  # (the last line is short: blank fields)
    for as_is, na in ((False, ("", "NA")), (True, ("", "NA")), (True, ("-",)), (False, ())):
        r = r_read_csv(path, as_is=as_is, na=na)
        df = pybsnsing.read_csv(path, strings_as_factors=not as_is, na_strings=na)
        assert _compare(df, r, _collation(r)) == [], (as_is, na)


_R_ONE_BY_ONE = r"""
function(s) {
  cls <- character(length(s)); re <- numeric(length(s)); im <- numeric(length(s))
  for (i in seq_along(s)) {
    v <- type.convert(s[i], as.is = TRUE, na.strings = c("", "NA"))
    cls[i] <- class(v)[1]
    if (is.complex(v)) { re[i] <- Re(v); im[i] <- Im(v) }
    else if (is.numeric(v)) re[i] <- v
  }
  bits <- function(x) writeBin(x, raw(), size = 8, endian = "big")
  list(cls = cls, re = bits(re), im = bits(im))
}
"""


def test_fuzzed_fields_identical_to_r(r_read_csv) -> None:
    """Short random strings of number-like characters, one field at a time through R's
    type.convert and through the reader's column conversion: class and bits."""
    import rpy2.robjects as ro

    from pybsnsing.datasets._reader import _convert_column

    rng = random.Random(20221110)
    alpha = "0123456789" * 3 + ".eE+-xXpPaAfFiInNT \t\u3000"
    strs = sorted({"".join(rng.choice(alpha) for _ in range(rng.randint(1, 8)))
                   for _ in range(8000)})
    res = ro.r(_R_ONE_BY_ONE)(ro.StrVector(strs))
    cls = list(res.rx2("cls"))
    re_, im_ = _f64(res.rx2("re")), _f64(res.rx2("im"))
    diffs = []
    for k, s in enumerate(strs):
        col = pd.Series(_convert_column([s], as_is=True))
        got = _py_class(col)
        if got != cls[k]:
            diffs.append((s, got, cls[k]))
        elif got in ("numeric", "integer") and not col.isna().iloc[0]:
            if _hex(float(col.iloc[0])) != _hex(re_[k]) and not (got == "integer"
                                                                 and col.iloc[0] == 0):
                diffs.append((s, _hex(float(col.iloc[0])), _hex(re_[k])))
        elif got == "complex":
            z = complex(col.iloc[0])
            if (_hex(z.real), _hex(z.imag)) != (_hex(re_[k]), _hex(im_[k])) and not (
                    math.isnan(z.real) and math.isnan(re_[k])):
                diffs.append((s, z, complex(re_[k], im_[k])))
    assert diffs == [], diffs[:20]
    assert {"numeric", "integer", "complex", "logical", "character"} <= set(cls)


@pytest.mark.parametrize("seed", [20221110, 7])
def test_random_csv_identical_to_r(r_read_csv, tmp_path: Path, seed: int,
                                   record_property) -> None:
    cols = _random_frame(seed, 2500)
    path = tmp_path / "random.csv"
    _write_csv(path, cols)
    r = r_read_csv(path)
    assert [r["classes"][r["names"].index(c)] for c in DEC_COLUMNS] == ["numeric"] * 8
    assert r["classes"][-2:] == ["factor", "numeric"]
    df = pybsnsing.read_csv(path)
    assert _compare(df, r, _collation(r)) == []
    # how often Python's float() would have been wrong for R on these strings
    n_dec = float_diff = 0
    for name in DEC_COLUMNS:
        rv = _f64(r["cols"][name]["bits"])
        for s, v in zip(cols[name], rv.tolist(), strict=True):
            if s not in ("", "NA"):
                n_dec += 1
                float_diff += _hex(float(s)) != _hex(v)
    line = (f"{r['version']}: {n_dec} random decimal strings (and integer, logical, text, "
            f"NA cells), 0 differences; Python float() would differ on {float_diff}")
    print(line)
    record_property("read_csv_vs_r", line)
    assert float_diff > 0  # the data do exercise R's double rounding


# --------------------------------------------------------------------------- speed


def test_reads_20000_by_10_quickly(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    data = {f"x{j}": rng.standard_normal(20000) * 10.0 ** rng.integers(-5, 6, 20000)
            for j in range(10)}
    path = tmp_path / "big.csv"
    pd.DataFrame(data).to_csv(path, index=False, float_format="%.17g")
    t0 = time.perf_counter()
    df = pybsnsing.read_csv(path)
    elapsed = time.perf_counter() - t0
    assert df.shape == (20000, 10) and all(df[c].dtype == np.float64 for c in df.columns)
    assert elapsed < 6.0, f"{elapsed:.2f}s"  # about 0.7 s on the development machine
