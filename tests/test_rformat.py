"""R 4.2.2 number formatting (``as.character`` of a double) and number parsing."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from conftest import GOLDEN
from hypothesis import given, settings
from hypothesis import strategies as st

from pybsnsing.rformat import _scientific, _scientific_exact, format_r, format_r_array, r_atof
from pybsnsing.rules import parse_rule

# values whose as.character() in R 4.2.2 is known
R_EXAMPLES = [
    (1e5, "1e+05"),
    (100000.0, "1e+05"),
    (123456.0, "123456"),
    (1e-4, "1e-04"),
    (0.0001234, "0.0001234"),
    (0.00012, "0.00012"),
    (1e-5, "1e-05"),
    (0.001, "0.001"),
    (0.1, "0.1"),
    (0.5, "0.5"),
    (13.0, "13"),
    (-1.815, "-1.815"),
    (1e15, "1e+15"),
    (1e15 + 2, "1e+15"),  # 15 significant digits, then sci is shorter (R < 4.3)
    (1e16, "1e+16"),
    (123456789012.0, "123456789012"),
    (2.0**62, "4611686018427387904"),  # fixed is not wider than sci: all digits
    (49.892535, "49.892535"),
    (-0.0614164953585714, "-0.0614164953585714"),
    (1 / 3, "0.333333333333333"),
    (2 / 3, "0.666666666666667"),
    (0.1 + 0.2, "0.3"),
    (1e-300, "1e-300"),
    (1.5e300, "1.5e+300"),
    (-2.5e-10, "-2.5e-10"),
    (99999.99999999999, "1e+05"),
    (0.0, "0"),
    (-0.0, "0"),
    (float("nan"), "NaN"),
    (float("inf"), "Inf"),
    (float("-inf"), "-Inf"),
]


@pytest.mark.parametrize(("x", "expected"), R_EXAMPLES)
def test_known_r_outputs(x: float, expected: str) -> None:
    assert format_r(x) == expected


def test_format_r_array_matches_scalar() -> None:
    vals = [v for v, _ in R_EXAMPLES] + [1.5, 1.5, 2.25]
    assert format_r_array(vals) == [format_r(v) for v in vals]
    assert format_r_array(np.array([], dtype=float)) == []
    assert format_r_array(np.array([[1.0, 2.5]])) == ["1", "2.5"]


def test_every_fixture_number_round_trips() -> None:
    """Every number in every golden split rule: format_r(parse(text)) == text."""
    checked = 0
    for path in sorted((GOLDEN / "trees").glob("*.json")):
        for rec in json.loads(path.read_text()):
            nodes = rec.get("nodes") or [nd for c in rec["classes"] for nd in c["nodes"]]
            for nd in nodes:
                if not nd["split_rule"]:
                    continue
                for q in parse_rule(nd["split_rule"]):
                    if isinstance(q.value, float):
                        assert format_r(q.value) == q.literal
                        checked += 1
    print(f"checked {checked} numbers from golden split rules")
    assert checked > 1000


def test_every_binarize_fixture_number_is_15_digit_text() -> None:
    """The cut texts of golden/binarize_random parse to numbers that print back the same."""
    text = (GOLDEN / "binarize_random" / "solutions.csv").read_text()
    nums = re.findall(r"x [<>]=? (\S+?)(?=;|\")", text)
    assert len(nums) > 500
    for lit in nums:
        assert format_r(r_atof(lit)) == lit


# ---------------------------------------------------------------------------
# properties
# ---------------------------------------------------------------------------

finite = st.floats(allow_nan=False, allow_infinity=False)


@settings(max_examples=3000, deadline=None)
@given(st.floats(min_value=1e-8, max_value=1e15, exclude_max=True), st.booleans())
def test_value_equals_15_significant_digits(x: float, neg: bool) -> None:
    """Where R's scaling is exact, the text is the value rounded to 15 digits."""
    if neg:
        x = -x
    s = format_r(x)
    assert float(s) == float(f"{x:.15g}")
    mant = s.split("e")[0].lstrip("-").replace(".", "").lstrip("0")
    assert len(mant) <= 15


@settings(max_examples=3000, deadline=None)
@given(finite.filter(lambda v: abs(v) < 1.797e308))
def test_idempotent_and_close(x: float) -> None:
    """Formatting the parsed text gives the text again (near DBL_MAX it parses to Inf)."""
    s = format_r(x)
    y = float(s)
    assert format_r(y) == s
    assert y == x or abs(y - x) <= 1e-14 * abs(x)
    assert " " not in s


@settings(max_examples=1000, deadline=None)
@given(finite.filter(lambda v: v != 0))
def test_sign_symmetry(x: float) -> None:
    assert format_r(-abs(x)) == "-" + format_r(abs(x))


@settings(max_examples=1000, deadline=None)
@given(st.integers(min_value=-(10**15) + 1, max_value=10**15 - 1))
def test_integers(k: int) -> None:
    s = format_r(float(k))
    if s.lstrip("-").count("e"):
        # sci only when shorter: k has trailing zeros
        assert float(s) == k and str(k).rstrip("0") != str(k)
    else:
        assert s == str(k)


@settings(max_examples=3000, deadline=None)
@given(st.floats(min_value=1e-320, max_value=1e300))
def test_fast_path_equals_rs_arithmetic(r: float) -> None:
    """The fast digit count equals the exact emulation of R's long-double code."""
    assert _scientific(r) == _scientific_exact(r)


x87 = pytest.mark.skipif(
    np.finfo(np.longdouble).nmant != 63, reason="needs x87 80-bit long double as an oracle"
)


def _scientific_ld(r: float) -> tuple[int, int]:
    """R's scientific() written with numpy's long double (the oracle)."""
    ld = np.longdouble
    tbl = [ld(float(f"1e{k}")) for k in range(28)]
    kp = math.floor(math.log10(r)) - 14
    rp = ld(r)
    if abs(kp) <= 27:
        if kp > 0:
            rp = rp / tbl[kp]
        elif kp < 0:
            rp = rp * tbl[-kp]
    else:
        rp = rp / np.power(ld(10), ld(kp))
    if rp < tbl[14]:
        rp = rp * ld(10)
        kp -= 1
    alpha = float(np.rint(rp))
    nsig = 15
    for _ in range(15):
        alpha /= 10.0
        if alpha == math.floor(alpha):
            nsig -= 1
        else:
            break
    if nsig == 0:
        nsig = 1
        kp += 1
    return kp + 14, nsig


@x87
def test_digit_count_against_long_double_oracle() -> None:
    rng = np.random.default_rng(20221110)
    vals = np.concatenate(
        [
            rng.uniform(-10, 10, 4000),
            10 ** rng.uniform(-30, 40, 4000),
            (rng.integers(0, 10**6, 2000) / 1000.0 + rng.integers(0, 10**6, 2000) / 1000.0) / 2,
        ]
    )
    for v in vals.tolist():
        r = abs(v)
        if r == 0:
            continue
        assert _scientific_exact(r)[:2] == _scientific_ld(r), v


# ---------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------


def _atof_ld(s: str) -> float:
    """R_strtod with numpy's long double (the oracle), plain decimal forms only."""
    ld = np.longdouble
    neg = s.startswith("-")
    s = s.lstrip("+-")
    mant, _, e = s.partition("e")
    i, _, f = mant.partition(".")
    ans = ld(0)
    for ch in i + f:
        ans = ld(10) * ans + ld(int(ch))
    expn = -len(f) + (int(e) if e else 0)
    p10, fac, n = ld(10), ld(1), abs(expn)
    while n:
        if n & 1:
            fac *= p10
        n >>= 1
        p10 *= p10
    ans = ans / fac if expn < 0 else ans * fac
    return -float(ans) if neg else float(ans)


def test_r_atof_simple() -> None:
    assert format_r(1.7976931348623157e308) == "1.79769313486232e+308"
    assert r_atof("1.79769313486232e+308") == math.inf  # as in R
    assert r_atof("1e+05") == 1e5
    assert r_atof("-0.0614164953585714") == -0.0614164953585714
    assert r_atof("0.5") == 0.5
    assert r_atof("13") == 13.0
    assert r_atof("1.5E-3") == 0.0015
    assert r_atof("Inf") == math.inf
    assert r_atof("-Inf") == -math.inf
    assert math.isnan(r_atof("NaN"))
    for bad in ("", "abc", "1e", "--1", "1.2.3", "0x1p3"):
        with pytest.raises(ValueError, match="not a numeric literal"):
            r_atof(bad)


def test_r_atof_is_not_correctly_rounded() -> None:
    """R's parser rounds twice (long double, then double): one ulp off sometimes."""
    assert float("2.83596401280207") == 2.83596401280207
    assert r_atof("2.83596401280207") == 2.8359640128020702
    assert format_r(r_atof("2.83596401280207")) == "2.83596401280207"


@x87
def test_r_atof_against_long_double_oracle() -> None:
    rng = np.random.default_rng(7)
    vals = np.concatenate([rng.uniform(-10, 10, 5000), 10 ** rng.uniform(-20, 20, 5000)])
    for v in vals.tolist():
        s = format_r(v)
        assert r_atof(s) == _atof_ld(s), s


@settings(max_examples=2000, deadline=None)
@given(finite.filter(lambda v: abs(v) < 1.797e308))
def test_r_atof_close_to_float(x: float) -> None:
    s = format_r(x)
    a, b = r_atof(s), float(s)
    assert a == b or abs(a - b) <= 2 * math.ulp(b)


# ---------------------------------------------------------------------------------------
# as.character of complex numbers (R 4.2.2's formatComplex + EncodeComplex, 15 digits):
# read.csv reads fields such as "3i" as complex, and as.character turns them back into
# text ("0+3i"), which is how they reach a fit as a character column or factor levels.

# (value, R 4.2.2's as.character); from Rscript on the project's R
R_COMPLEX_EXAMPLES = [
    (complex(70, 0), "70+0i"),
    (complex(0, 3), "0+3i"),
    (complex(1, 1e-10), "1e+00+1e-10i"),  # fixed would be wider: both parts scientific
    (complex(1e-10, 1), "1e-10+1e+00i"),
    (complex(1.5, -2.25), "1.5-2.25i"),
    (complex(math.nan, 1), "NaN+1i"),
    (complex(math.inf, -math.inf), "Inf-Infi"),
    (complex(1e5, 0), "1e+05+0i"),  # all imaginary parts zero: each part on its own
    (complex(123456789012345678, 1), "123456789012345680+0i"),  # Im rounds to 0 jointly
    (complex(0.1, 0.2), "0.1+0.2i"),
    (complex(-0.0, -0.0), "0+0i"),
    (complex(1 / 3, -2 / 3), "0.333333333333333-0.666666666666667i"),
    (complex(1e-300, 1e300), "0e+00+1e+300i"),
    (complex(100000, 1e-5), "1e+05+1e-05i"),
    (complex(1e15, 1), "1e+15+0e+00i"),
    (complex(123456.7, 0.001), "123456.7+0.001i"),
    (complex(1 / 3, 1e-20), "0.333333333333333+0i"),
]


@pytest.mark.parametrize(("z", "expected"), R_COMPLEX_EXAMPLES)
def test_complex_as_character_known_r_outputs(z: complex, expected: str) -> None:
    from pybsnsing.rformat import as_character

    assert as_character(z) == expected
    assert as_character(np.complex128(z)) == expected


def test_complex_column_as_character_keeps_na() -> None:
    """A complex column: ``read_csv``'s NA (NaN in both parts) stays NA; a NaN part is
    written (R's NaN+1i)."""
    import pandas as pd

    from pybsnsing.rformat import as_character_column

    col = pd.Series([complex(70, 0), complex(math.nan, math.nan), complex(math.nan, 1), 3j])
    assert as_character_column(col).tolist() == ["70+0i", None, "NaN+1i", "0+3i"]


def _random_complex(rng: np.random.Generator, k: int) -> list[complex]:
    """Parts of every kind: zeros, integers, short decimals, any magnitude, near-ties at 15
    digits, non-finite ones."""
    def part() -> float:
        u = rng.integers(0, 9)
        if u == 0:
            return 0.0
        if u == 1:
            return float(rng.integers(-10**6, 10**6))
        if u == 2:
            scale = 10.0 ** int(rng.integers(-3, 4))
            return round(float(rng.normal()) * scale, int(rng.integers(0, 6)))
        if u == 3:
            return float(rng.choice([math.inf, -math.inf, math.nan]))
        if u == 4:  # 15 digits then a 5: R's rounding decides
            return float(f"{rng.integers(10**14, 10**15)}5e{rng.integers(-30, 10)}")
        if u == 5:
            return float(rng.choice([1e15, 1e-15, 99999.99999999999, 0.1 + 0.2, 5e-324]))
        sign = -1.0 if rng.random() < 0.5 else 1.0
        return sign * 10.0 ** float(rng.uniform(-320, 308))
    return [complex(part(), part()) for _ in range(k)]


def test_complex_as_character_equals_live_r() -> None:
    """4000 random complex values: ``as_character`` against R's ``as.character`` (rpy2)."""
    try:
        import rpy2.robjects as ro
    except Exception as exc:  # ImportError, or rpy2 failing to find/start R
        pytest.skip(f"rpy2/R not available: {type(exc).__name__}: {exc}")
    from pybsnsing.rformat import as_character

    rng = np.random.default_rng(20261124)
    zs = _random_complex(rng, 4000)
    re_ = ro.FloatVector([z.real for z in zs])
    im_ = ro.FloatVector([z.imag for z in zs])
    r_text = list(ro.r("function(a, b) as.character(complex(real = a, imaginary = b))")(re_, im_))
    bad = [(z, r, as_character(z)) for z, r in zip(zs, r_text, strict=True)
           if as_character(z) != r]
    assert not bad, bad[:10]
