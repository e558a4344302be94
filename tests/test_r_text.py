"""R text rendering in one place (pybsnsing.rformat): a table of value -> R string.

Every row is checked against pybsnsing, and against R itself (``as.character`` of the
same value sent through rpy2) when rpy2 and R are available; the R half is skipped,
saying why, otherwise.  The exporters, the ROC labels, the R converters, the rules and
the CSV reader all write values through :func:`pybsnsing.rformat.as_character`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from pybsnsing.export.view import label_text
from pybsnsing.r.messages import r_literal as messages_r_literal
from pybsnsing.rformat import as_character, as_character_column, r_atof, r_literal

#: value, as.character in R 4.2.2 (integers are R integers, floats R doubles)
AS_CHARACTER: list[tuple[Any, str]] = [
    ("a", "a"),
    ("", ""),
    (True, "TRUE"),
    (np.bool_(False), "FALSE"),
    (100000, "100000"),
    (np.int64(7), "7"),
    (-3, "-3"),
    (1e5, "1e+05"),
    (100000.0, "1e+05"),
    (np.float64(2.5), "2.5"),
    (123456.0, "123456"),
    (1e-4, "1e-04"),
    (0.001, "0.001"),
    (0.1 + 0.2, "0.3"),
    (1 / 3, "0.333333333333333"),
    (-1.815, "-1.815"),
    (13.0, "13"),
    (1e15, "1e+15"),
    (123456789012345.0, "123456789012345"),
    (2.0**53, "9007199254740992"),
    (5e-324, "4.94065645841247e-324"),
    (-0.0, "0"),
    (math.nan, "NaN"),
    (math.inf, "Inf"),
    (-math.inf, "-Inf"),
]


def _ids(rows: list[tuple[Any, str]]) -> list[str]:
    return [f"{type(v).__name__}:{v!r}" for v, _ in rows]


@pytest.mark.parametrize(("value", "text"), AS_CHARACTER, ids=_ids(AS_CHARACTER))
def test_as_character_table(value: Any, text: str) -> None:
    assert as_character(value) == text
    assert label_text(value) == text  # the exporters' labels are the same function


def test_integers_as_doubles() -> None:
    # numbers of an object column are doubles to R (rules compare them as such)
    assert as_character(100000, numbers_as_double=True) == "1e+05"
    assert as_character(np.int32(12), numbers_as_double=True) == "12"
    assert as_character("100000", numbers_as_double=True) == "100000"


def test_roc_labels_compare_as_r_writes_them() -> None:
    # R's `labels == "1e+05"` is TRUE for the double 1e5 (roc once wrote "100000")
    from pybsnsing.export.roc import _positive_mask

    mask, _ = _positive_mask(np.array([1e5, 2.0, 100000.0], dtype=object), "1e+05")
    assert mask.tolist() == [True, False, True]


def test_as_character_column() -> None:
    got = as_character_column(pd.Series([1.0, math.nan, 1e5, 0.1]))
    assert got.tolist() == ["1", None, "1e+05", "0.1"]
    assert as_character_column(pd.Series([1, None], dtype="Int64")).tolist() == ["1", None]
    assert as_character_column(pd.Series([True, None], dtype="boolean")).tolist() == ["TRUE", None]
    assert as_character_column(pd.Categorical(["b", None, "a"])).tolist() == ["b", None, "a"]
    mixed = np.array(["x", 1e5, True, None], dtype=object)
    assert as_character_column(mixed).tolist() == ["x", "1e+05", "TRUE", None]


#: value, R code for it
R_LITERALS: list[tuple[Any, str]] = [
    (None, "NULL"),
    (True, "TRUE"),
    (np.bool_(True), "TRUE"),
    (3, "3"),
    (np.int64(3), "3"),
    (0.5, "0.5"),
    (100000.0, "100000"),
    (1 / 3, "0.3333333333333333"),
    (1e300, "1e+300"),
    (math.nan, "NA"),
    (-math.inf, "-Inf"),
    ("a", '"a"'),
    ('say "hi"\\', '"say \\"hi\\"\\\\"'),
    ("two\nlines", '"two\\nlines"'),
    ([], "c()"),
    (["a", "b"], 'c("a", "b")'),
    (("x", 1), 'c("x", 1)'),
    ([1, [2]], "list(1, c(2))"),
]


@pytest.mark.parametrize(("value", "code"), R_LITERALS, ids=_ids(R_LITERALS))
def test_r_literal_table(value: Any, code: str) -> None:
    assert r_literal(value) == code
    assert messages_r_literal is r_literal  # the messages use the same function


def test_r_literal_numbers_read_back() -> None:
    for v in (0.1, 1 / 3, 2.0**-1074, 1.7976931348623157e308, 123456.789, -2.5e-7):
        assert r_atof(r_literal(v)) == v


# ------------------------------------------------------------------ against R (rpy2)


@pytest.fixture(scope="module")
def r_base() -> Any:
    try:
        import rpy2.rinterface as ri
        import rpy2.robjects  # noqa: F401  (starts R)
    except Exception as exc:  # rpy2 missing or R does not start
        pytest.skip(f"checks the table against R through rpy2, not usable here: "
                    f"{type(exc).__name__}: {exc}")
    return ri


def _to_r(ri: Any, value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return ri.BoolSexpVector([value])
    if isinstance(value, int):
        return ri.IntSexpVector([value])
    if isinstance(value, float):
        return ri.FloatSexpVector([value])
    return ri.StrSexpVector([value])


def test_as_character_table_matches_r(r_base: Any) -> None:
    as_char = r_base.baseenv["as.character"]
    got = {repr(v): str(as_char(_to_r(r_base, v))[0]) for v, _ in AS_CHARACTER}
    want = {repr(v): text for v, text in AS_CHARACTER}
    assert got == want


def test_r_literal_table_parses_in_r(r_base: Any) -> None:
    same = r_base.evalr("function(code, value) isTRUE(eval(str2lang(code)) == value)")
    for value, code in R_LITERALS:
        if value is None or isinstance(value, (list, tuple)) or (
                isinstance(value, float) and math.isnan(value)):
            continue
        assert bool(same(code, _to_r(r_base, value))[0]), (value, code)
    for v in (0.1, 1 / 3, 2.0**-1074, 1.7976931348623157e308, 123456.789, -2.5e-7):
        assert bool(same(r_literal(v), r_base.FloatSexpVector([v]))[0]), v
