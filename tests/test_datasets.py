"""Bundled data sets and the canonical (R ``read.csv``) reader.

Reference: ``shared/data/tabular`` (manifest.csv, columns.csv and the CSV files) and the
"Reading the data exactly as the fixtures did" section of ``shared/golden/README.md``.
The tests that compare the bundle with the reference files themselves need ``../shared``
(fixture ``shared``, skipped without it); the others read ``../shared/data/tabular`` when
present and otherwise the bundle's own byte-identical copies (fixture ``tabular``).
The expected values of the reader edge cases below were produced by R 4.2.2 in the
C.UTF-8 locale (the fixtures' R); ``test_reader_matches_r`` re-checks them against a
local ``Rscript`` when one is installed.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import math
import re
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from conftest import SHARED

from pybsnsing.datasets import (
    NOT_BUNDLED,
    dataset_columns,
    dataset_formula,
    dataset_info,
    list_datasets,
    load_dataset,
    make_names,
    r_as_character,
    read_canonical,
    read_csv_r,
    restore_factors,
)
from pybsnsing.rcollate import r_collate_key, r_sort

DATA = resources.files("pybsnsing.datasets").joinpath("data")


def _bundled_names() -> list[str]:
    text = DATA.joinpath("manifest.csv").read_text(encoding="utf-8")
    return [row["name"] for row in csv.DictReader(io.StringIO(text))]


NAMES = _bundled_names()


def _read_manifest(tab: Path) -> list[dict[str, str]]:
    with open(tab / "manifest.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _read_columns(tab: Path) -> list[dict[str, str]]:
    with open(tab / "columns.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def _read_columns_df(tab: Path) -> pd.DataFrame:
    return pd.DataFrame(_read_columns(tab))


@pytest.fixture(scope="module")
def tabular(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tabular data folder: ``../shared/data/tabular`` when present, else the bundle's
    copies (manifest.csv, columns.csv and the decompressed CSVs) in a temporary folder.

    For the tests whose check does not depend on where the files come from; the tests
    that compare the bundle with the reference use ``shared`` (skipped without it).
    """
    ref = SHARED / "data" / "tabular"
    if (ref / "manifest.csv").is_file():
        return ref
    out = tmp_path_factory.mktemp("tabular")
    for table in ("manifest.csv", "columns.csv"):
        (out / table).write_bytes(DATA.joinpath(table).read_bytes())
    for name in NAMES:
        file = dataset_info(name)["file"]
        (out / file).write_bytes(gzip.decompress(DATA.joinpath(file + ".gz").read_bytes()))
    return out


# --------------------------------------------------------------------------- bundle


def test_bundle_has_every_small_data_set(shared: Path) -> None:
    manifest = _read_manifest(shared / "data/tabular")
    expected = [r["name"] for r in manifest if r["name"] not in NOT_BUNDLED]
    assert NAMES == expected
    assert len(NAMES) == 33
    assert set(NOT_BUNDLED) == {"synthetic100k", "synthetic1m"}
    assert list(list_datasets()["name"]) == expected


@pytest.mark.parametrize("name", NAMES)
def test_bundled_csv_is_byte_identical(shared: Path, name: str) -> None:
    info = dataset_info(name)
    bundled = gzip.decompress(DATA.joinpath(info["file"] + ".gz").read_bytes())
    assert bundled == (shared / "data/tabular" / info["file"]).read_bytes()


@pytest.mark.parametrize("table", ["manifest.csv", "columns.csv"])
def test_bundled_tables_are_shared_rows(shared: Path, table: str) -> None:
    src = (shared / "data/tabular" / table).read_bytes().splitlines(keepends=True)
    keep = [src[0]] + [
        line for line in src[1:] if line.split(b",")[0].strip(b'"').decode() not in NOT_BUNDLED
    ]
    assert DATA.joinpath(table).read_bytes() == b"".join(keep)


def test_package_data_is_small() -> None:
    total = sum(p.stat().st_size for p in Path(str(DATA)).iterdir())
    assert total < 4_000_000


# --------------------------------------------------------------------------- loading


def _independent_read(path: Path) -> tuple[list[str], list[list[str]]]:
    """The CSV fields with the csv module (header, rows); no type conversion."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


@pytest.mark.parametrize("name", NAMES)
def test_load_matches_shared_csv(tabular: Path, name: str) -> None:
    """Every cell, NA position, dtype and level equals an independent parse of the CSV."""
    info = dataset_info(name)
    path = tabular / info["file"]
    df = load_dataset(name)
    header, rows = _independent_read(path)
    assert list(df.columns) == header
    assert df.shape == (len(rows), len(header)) == (info["n"], len(header))
    assert isinstance(df.index, pd.RangeIndex)
    cols = {r["column"]: r for r in _read_columns(tabular) if r["dataset"] == name}
    assert set(cols) == set(header)
    for j, col in enumerate(header):
        meta = cols[col]
        fields = [row[j].strip() for row in rows]
        missing = np.array([f in ("", "NA") for f in fields])
        s = df[col]
        assert np.array_equal(s.isna().to_numpy(), missing), col
        assert int(missing.sum()) == int(meta["n_missing"]), col
        present = [f for f, m in zip(fields, missing, strict=True) if not m]
        if meta["r_class"] == "factor":
            levels = meta["levels"].split(";")
            assert isinstance(s.dtype, pd.CategoricalDtype), col
            assert list(s.cat.categories) == levels, col
            assert list(s[~missing].astype(str)) == present, col
        elif meta["plain_read_csv_class"] == "integer":
            assert pd.api.types.is_integer_dtype(s.dtype), col
            assert str(s.dtype) == ("Int64" if missing.any() else "int64"), col
            assert [int(v) for v in s[~missing]] == [int(f) for f in present], col
        else:
            assert meta["plain_read_csv_class"] == "numeric"
            assert s.dtype == np.float64, col
            got = s.to_numpy()[~missing]
            want = np.array([float(f) for f in present], dtype=np.float64)
            # exact doubles: compare the bit patterns
            assert np.array_equal(got.view(np.int64), want.view(np.int64)), col


@pytest.mark.parametrize("name", NAMES)
def test_load_equals_canonical_read_of_shared_file(shared: Path, name: str) -> None:
    info = dataset_info(name)
    tab = shared / "data/tabular"
    ref = read_canonical(tab / info["file"], _read_columns_df(tab), name)
    pd.testing.assert_frame_equal(load_dataset(name), ref, check_exact=True)


def test_column_classes_follow_columns_csv(tabular: Path) -> None:
    for meta in _read_columns(tabular):
        name = meta["dataset"]
        if name in NOT_BUNDLED:
            continue
        s = load_dataset(name)[meta["column"]]
        s_r = load_dataset(name, r_classes=True)[meta["column"]]
        if meta["r_class"] == "factor":
            assert isinstance(s.dtype, pd.CategoricalDtype)
            assert list(s.cat.categories) == meta["levels"].split(";")
            assert isinstance(s_r.dtype, pd.CategoricalDtype)
        elif meta["r_class"] == "integer":
            assert pd.api.types.is_integer_dtype(s.dtype)
            assert pd.api.types.is_integer_dtype(s_r.dtype)
        else:
            assert meta["r_class"] == "numeric"
            # read.csv gives integers for integral columns; the R object held doubles
            if meta["plain_read_csv_class"] == "integer":
                assert pd.api.types.is_integer_dtype(s.dtype)
            else:
                assert s.dtype == np.float64
            assert s_r.dtype == np.float64
            assert s_r.equals(s.astype("float64"))


def test_restored_factors_differ_from_plain_read(tabular: Path) -> None:
    """``must_restore_factor`` columns: a plain read gives integers or other levels."""
    restored = [m for m in _read_columns(tabular) if m["must_restore_factor"] == "TRUE"]
    assert {(m["dataset"], m["column"]) for m in restored} >= {
        ("titanic", "Sex"),
        ("titanic", "Age"),
        ("Ionosphere", "V1"),
        ("Satellite", "classes"),
        ("Glass", "Type"),
    }
    for m in restored:
        if m["dataset"] in NOT_BUNDLED:
            continue
        plain = read_csv_r(tabular / dataset_info(m["dataset"])["file"])
        s = plain[m["column"]]
        if m["plain_read_csv_class"] == "integer":
            assert pd.api.types.is_integer_dtype(s.dtype)
        else:
            assert isinstance(s.dtype, pd.CategoricalDtype)
            assert list(s.cat.categories) != m["levels"].split(";")
            assert sorted(s.cat.categories) == sorted(m["levels"].split(";"))
    titanic = load_dataset("titanic")
    assert list(titanic["Sex"].cat.categories) == ["Male", "Female"]
    assert list(titanic["Age"].cat.categories) == ["Child", "Adult"]


def test_manifest_n_p_and_formula(tabular: Path) -> None:
    for row in _read_manifest(tabular):
        name = row["name"]
        if name in NOT_BUNDLED:
            continue
        df = load_dataset(name)
        cols = dataset_columns(name)
        assert len(df) == int(row["n"])
        assert list(cols["column"]) == list(df.columns)
        formula = dataset_formula(name)
        assert formula == row["formula"]
        lhs, rhs = (t.strip() for t in formula.split("~"))
        assert lhs == row["response"]
        roles = dict(zip(cols["column"], cols["role"], strict=True))
        assert roles[lhs] == "response"
        predictors = [c for c, r in roles.items() if r == "predictor"]
        assert len(predictors) == int(row["p"])
        if rhs == ".":
            assert all(r != "unused" for r in roles.values())
            assert len(predictors) == df.shape[1] - 1
        else:
            assert [t.strip() for t in rhs.split("+")] == predictors


def test_list_datasets_content(tabular: Path) -> None:
    table = list_datasets()
    assert list(table.columns) == [
        "name",
        "n",
        "p",
        "n_classes",
        "class_labels",
        "response",
        "formula",
    ]
    manifest = {r["name"]: r for r in _read_manifest(tabular)}
    for rec in table.to_dict("records"):
        m = manifest[rec["name"]]
        assert rec["n"] == int(m["n"]) and rec["p"] == int(m["p"])
        assert rec["n_classes"] == int(m["n_classes"]) == len(rec["class_labels"])
        assert rec["class_labels"] == tuple(m["class_labels"].split(";"))
        assert rec["response"] == m["response"]
        assert rec["formula"] == m["formula"]
        y = load_dataset(rec["name"])[rec["response"]]
        if isinstance(y.dtype, pd.CategoricalDtype):
            assert tuple(y.cat.categories) == rec["class_labels"]
        else:  # the shape sets: a 0/1 integer response
            assert pd.api.types.is_integer_dtype(y.dtype)
            assert tuple(str(v) for v in sorted(y.unique())) == rec["class_labels"]


def test_dataset_info_and_columns() -> None:
    info = dataset_info("votes")
    assert info["file"] == "votes.csv" and info["n"] == 435 and info["p"] == 16
    assert info["class_labels"] == ("democrat", "republican")
    assert "missing values" in info["notes"]
    cols = dataset_columns("votes")
    assert cols["n_missing"].sum() == load_dataset("votes").isna().sum().sum()
    assert len(dataset_columns()) == sum(len(dataset_columns(n)) for n in NAMES)


def test_known_values() -> None:
    bc = load_dataset("BreastCancer")
    assert bc.shape == (699, 10)
    assert str(bc["Bare.nuclei"].dtype) == "Int64" and bc["Bare.nuclei"].isna().sum() == 16
    assert bc["Class"].iloc[0] == "benign"
    circ = load_dataset("circ")
    assert circ["y"].dtype == np.int64
    assert load_dataset("circ", r_classes=True)["y"].dtype == np.float64
    assert circ["x1"].iloc[0] == 8.4848521836102
    syn = load_dataset("synthetic20k")  # leading spaces, format(digits = 17)
    assert syn.shape == (20000, 11)
    assert syn["x1"].iloc[0] == 0.98196941135044102
    assert syn["x7"].iloc[0] == -0.14181134762709607378
    assert list(syn["y"].cat.categories) == ["neg", "pos"]
    ion = load_dataset("Ionosphere")
    assert list(ion["V1"].cat.categories) == ["0", "1"]
    sat = load_dataset("Satellite")
    assert sat["classes"].cat.categories[0] == "red soil"


def test_load_returns_independent_copies() -> None:
    a = load_dataset("iris")
    a.loc[0, "Sepal.Length"] = -1.0
    assert load_dataset("iris").loc[0, "Sepal.Length"] == 5.1


def test_unknown_names() -> None:
    with pytest.raises(ValueError, match=r"did you mean 'iris'"):
        load_dataset("Iris")
    with pytest.raises(ValueError, match=r"did you mean .*'BreastCancer'"):
        load_dataset("BreastCancr")
    with pytest.raises(ValueError, match="not bundled"):
        load_dataset("synthetic1m")
    with pytest.raises(ValueError, match="unknown data set"):
        dataset_formula("nope")
    with pytest.raises(ValueError, match="unknown data set"):
        dataset_columns("nope")


def test_no_reads_outside_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    """Loading never touches the reference material (/work/shared or elsewhere)."""
    import builtins

    from pybsnsing import datasets

    datasets._load_cached.cache_clear()
    real_open = io.open
    opened: list[str] = []

    def guarded(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(str(file))
        assert "shared" not in str(file), file
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded)
    monkeypatch.setattr(io, "open", guarded)
    assert load_dataset("kyphosis").shape == (81, 4)
    assert any(p.endswith("kyphosis.csv.gz") for p in opened)


# --------------------------------------------------------------------------- reader rules

# R 4.2.2, C.UTF-8: names(read.csv(...)) for this header
EDGE_HEADER = (
    '"a b",a,a,,if,1x,.5,a.1,lg,lg2,int1,int2,int3,int4,dbl1,dbl2,dbl3,fac1,fac2,allna,qnum,qna'
)
EDGE_CSV = "\n".join(
    [
        EDGE_HEADER,
        '1,2,3,4,5,6,7,8,T,TRUE, 5,7 ,2147483647,-2147483648,1e,Inf,0x1A,B," x","","1","NA"',
        '1,2,3,4,5,6,7,8,F,false,+6,8,-2147483647,1,1e+,-inf,1.5E3,a,x,NA,"2",b',
        '1,2,3,4,5,6,7,8,NA,,-7,9,0,2,.5,NaN,5.,_x,  ,,"03",',
        '1,2,3,4,5,6,7,8,,True,  8,10,1,3,5.,infinity,-0.0,é, ,,4,"c"',
    ]
)
EDGE_NAMES = [
    "a.b", "a", "a.2", "X", "if.", "X1x", "X.5", "a.1", "lg", "lg2", "int1", "int2",
    "int3", "int4", "dbl1", "dbl2", "dbl3", "fac1", "fac2", "allna", "qnum", "qna",
]  # fmt: skip


def test_reader_type_rules() -> None:
    df = read_csv_r(io.StringIO(EDGE_CSV))
    assert list(df.columns) == EDGE_NAMES
    assert df["a.b"].dtype == np.int64
    # logical: only T/F/TRUE/FALSE; "true"/"True" make a factor
    assert str(df["lg"].dtype) == "boolean"
    assert df["lg"].tolist()[:2] == [True, False] and df["lg"].isna().tolist()[2:] == [True] * 2
    assert isinstance(df["lg2"].dtype, pd.CategoricalDtype)
    assert list(df["lg2"].cat.categories) == ["false", "True", "TRUE"]
    # integers: leading white space allowed, trailing not; int32 range without -2^31
    assert df["int1"].tolist() == [5, 6, -7, 8] and df["int1"].dtype == np.int64
    assert df["int2"].dtype == np.float64
    assert df["int3"].dtype == np.int64
    assert df["int4"].dtype == np.float64 and df["int4"].iloc[0] == -2147483648.0
    # doubles: R_strtod syntax
    assert df["dbl1"].tolist() == [1.0, 1.0, 0.5, 5.0]
    d2 = df["dbl2"].to_numpy()
    assert d2[0] == math.inf and d2[1] == -math.inf and math.isnan(d2[2]) and d2[3] == math.inf
    d3 = df["dbl3"].to_numpy()
    assert d3[:3].tolist() == [26.0, 1500.0, 5.0] and math.copysign(1.0, d3[3]) == -1.0
    # factors: ICU root collation as in the fixtures' R; white space kept
    assert list(df["fac1"].cat.categories) == ["_x", "a", "B", "é"]
    assert list(df["fac2"].cat.categories) == [" ", "  ", " x", "x"]
    assert df["fac2"].tolist() == [" x", "x", "  ", " "]
    assert str(df["allna"].dtype) == "boolean" and df["allna"].isna().all()
    assert df["qnum"].tolist() == [1, 2, 3, 4] and df["qnum"].dtype == np.int64
    assert df["qna"].isna().tolist() == [True, False, True, False]
    cp = read_csv_r(io.StringIO(EDGE_CSV), collation="codepoint")
    assert list(cp["fac1"].cat.categories) == ["B", "_x", "a", "é"]


def test_reader_short_rows_and_blank_lines() -> None:
    df = read_csv_r(io.StringIO("x,y,z\n1,a\n2,b,0.1\n\n3,c,1e5\n"))
    assert df.shape == (3, 3)
    assert df["z"].isna().tolist() == [True, False, False]
    assert df["z"].iloc[2] == 100000.0


def test_make_names() -> None:
    assert make_names(["a b", "a", "a", "", "if", "1x", ".5", "a.1"]) == [
        "a.b", "a", "a.2", "X", "if.", "X1x", "X.5", "a.1",
    ]  # fmt: skip
    assert make_names(["x", "x", "x"]) == ["x", "x.1", "x.2"]
    assert make_names(["TRUE", "...", "_a", ".a"], unique=False) == ["TRUE.", "...", "X_a", ".a"]


# R 4.2.2: as.character(x)
AS_CHARACTER = [
    (1234567890123456.0, "1234567890123456"),
    (123456789012345678.0, "123456789012345680"),
    (100000.0, "1e+05"),
    (123456.0, "123456"),
    (0.0001, "1e-04"),
    (-0.0, "0"),
    (99999.99999999999, "1e+05"),
    (0.1 + 0.2, "0.3"),
    (1 / 3, "0.333333333333333"),
    (1e-20, "1e-20"),
    (9.134056775065095e-13, "9.1340567750651e-13"),  # long double scaling in R
    (-6.506558120732395e-09, "-6.5065581207324e-09"),  # trailing zero dropped
    (9.987027239456405e-09, "9.9870272394564e-09"),
    (math.inf, "Inf"),
]


def test_r_as_character_doubles() -> None:
    got = r_as_character(pd.Series([x for x, _ in AS_CHARACTER], dtype="float64"))
    assert got.tolist() == [s for _, s in AS_CHARACTER]
    assert r_as_character(pd.Series([1, 2], dtype="Int64")).tolist() == ["1", "2"]
    assert r_as_character(pd.Series([True, None], dtype="boolean")).tolist() == ["TRUE", None]


def test_restore_factors() -> None:
    df = pd.DataFrame({"v": [0.1, 100000.0, 0.30000000000000004, np.nan], "w": [1, 2, 3, 9]})
    out = restore_factors(df, {"v": ["0.1", "1e+05", "0.3"], "w": ["3", "1", "2"]})
    assert out["v"].tolist()[:3] == ["0.1", "1e+05", "0.3"] and pd.isna(out["v"].iloc[3])
    assert list(out["w"].cat.categories) == ["3", "1", "2"]
    assert out["w"].isna().tolist() == [False, False, False, True]  # 9 is not a level
    assert df["w"].dtype == np.int64  # input untouched
    with pytest.raises(KeyError, match="column 'nope' listed as a factor is not in the data"):
        restore_factors(df, {"nope": ["a"]})


def test_read_canonical_with_columns_table() -> None:
    columns = pd.DataFrame(
        {
            "dataset": ["d", "d", "other"],
            "column": ["y", "g", "y"],
            "r_class": ["factor", "factor", "factor"],
            "levels": ["2;1", "b;a", "x"],
        }
    )
    df = read_canonical(io.StringIO("y,g,x\n1,a,0.5\n2,b,\n"), columns, "d")
    assert list(df["y"].cat.categories) == ["2", "1"] and df["y"].tolist() == ["1", "2"]
    assert list(df["g"].cat.categories) == ["b", "a"]
    assert df["x"].dtype == np.float64 and df["x"].isna().tolist() == [False, True]


R_ORDER_SAMPLE = [
    "10",
    "9",
    "a",
    "A",
    "ä",
    "a b",
    "a_b",
    "a-b",
    "A1",
    "a2",
    "Aa",
    "ab",
    "aB",
    "AB",
    "b",
    "e",
    "E",
    "é",
    "f",
]  # fmt: skip  (R 4.2.2 sort() in C.UTF-8 with ICU)


def test_collation_matches_r_sample() -> None:
    rev = list(reversed(R_ORDER_SAMPLE))
    assert r_sort(rev) == R_ORDER_SAMPLE
    assert r_sort(["b", "B", "a"], "codepoint") == ["B", "a", "b"]
    punct = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$0123456789aAbBzZ"
    assert "".join(sorted(punct, key=r_collate_key)) == punct
    with pytest.raises(ValueError, match="collation must be 'r' or 'codepoint', not 'C'"):
        r_sort(["a"], "C")


def _rscript() -> str | None:
    exe = shutil.which("Rscript")
    if exe is None:
        return None
    try:
        ok = subprocess.run(
            [exe, "-e", "cat(capabilities('ICU'))"], capture_output=True, text=True, timeout=60
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return exe if ok.returncode == 0 else None


R_DUMP = r"""
d <- read.csv(commandArgs(TRUE)[1], stringsAsFactors = TRUE, na.strings = c("", "NA"))
x <- as.numeric(readLines(commandArgs(TRUE)[2]))
s <- readLines(commandArgs(TRUE)[3], encoding = "UTF-8")
out <- list(
  names = names(d),
  classes = unname(sapply(d, function(v) class(v)[1])),
  levels = lapply(d, function(v) if (is.factor(v)) levels(v) else NULL),
  ascii_sort = sort(s),
  as_char = as.character(x),
  icu = unname(capabilities("ICU"))
)
writeLines(jsonlite::toJSON(out, auto_unbox = TRUE, null = "null"), commandArgs(TRUE)[4])
"""


def test_reader_matches_r(tmp_path: Path) -> None:
    """Cross-check the reader rules with a local R (skipped without Rscript/jsonlite)."""
    exe = _rscript()
    if exe is None:
        pytest.skip("Rscript not available")
    rng = np.random.default_rng(2024)
    doubles = np.concatenate(
        [
            rng.standard_normal(300) * 10.0 ** rng.integers(-30, 30, 300),
            np.round(rng.uniform(-1e6, 1e6, 200), 3),
            rng.integers(1, 99999, 200) * 10.0 ** rng.integers(-40, 40, 200),
        ]
    )
    alphabet = list(" _-,;:!?.'\"()[]{}@*/&#%`^+<=>|~$0123456789abAB")
    words = sorted({"".join(rng.choice(alphabet, size=rng.integers(1, 5))) for _ in range(400)})
    words = [w for w in words if w.strip() == w and w != "NA"]
    (tmp_path / "e.csv").write_text(EDGE_CSV + "\n", encoding="utf-8")
    (tmp_path / "x.txt").write_text("\n".join(float(v).hex() for v in doubles) + "\n")
    (tmp_path / "s.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    (tmp_path / "dump.R").write_text(R_DUMP)
    env = {"LC_ALL": "C.UTF-8", "PATH": str(Path(exe).parent)}
    run = subprocess.run(
        [exe, str(tmp_path / "dump.R"), *(str(tmp_path / f) for f in ("e.csv", "x.txt", "s.txt"))]
        + [str(tmp_path / "out.json")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    if run.returncode != 0:
        if re.search(r"jsonlite", run.stderr):
            pytest.skip("R package jsonlite not installed")
        raise AssertionError(run.stderr)
    r = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    df = read_csv_r(tmp_path / "e.csv")
    assert list(df.columns) == r["names"]
    kinds = {"factor": "category", "integer": "int", "numeric": "float", "logical": "bool"}
    for col, cls in zip(df.columns, r["classes"], strict=True):
        dtype = str(df[col].dtype).lower()
        assert kinds[cls] in dtype, (col, cls, dtype)
        if cls == "factor" and r["icu"]:
            assert list(df[col].cat.categories) == r["levels"][col], col
    assert r_as_character(pd.Series(doubles)).tolist() == r["as_char"]
    if r["icu"]:
        assert r_sort(words) == r["ascii_sort"]
