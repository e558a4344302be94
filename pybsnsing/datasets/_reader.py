"""The canonical CSV reader: R's ``read.csv`` plus factor restoration.

Every golden fixture of the R cross-check was fitted on data read by

1. ``read.csv(file, stringsAsFactors = TRUE, na.strings = c("", "NA"))``, then
2. turning each column that ``columns.csv`` lists with ``r_class == "factor"`` into a
   factor with exactly the listed levels, in that order.

:func:`read_canonical` reproduces both steps in pandas, following the rules of R 4.2's
``read.table`` / ``type.convert`` (``src/main/scan.c``, ``R_strtod``, ``Strtoi``):

* The header goes through ``make.names(unique = TRUE)`` (``check.names = TRUE``).
* Empty fields, ``NA`` and missing trailing fields are missing values (``NA``).
* Each column gets the first type of *logical*, *integer*, *double*, *factor* that all
  its non-missing values parse as; blank (white-space only) values count as missing for
  the first three.

  - logical: only ``T``, ``F``, ``TRUE`` and ``FALSE`` (R 4.2's ``type.convert`` reads
    ``true``/``True`` as text) -> ``bool`` (``"boolean"`` when NA occurs). A column with
    no value at all is logical.
  - integer: optional leading white space, optional sign, decimal digits, within
    ``[-2147483647, 2147483647]`` (R's 32-bit integer; ``-2^31`` is ``NA_integer_``)
    -> ``int64`` (nullable ``"Int64"`` when NA occurs). Quoted numbers are numbers too,
    as in R: ``"1"`` reads as the integer 1.
  - double: R's decimal syntax (at least one mantissa digit, optional exponent, whose
    digits may be absent as in ``1e``), ``NaN``, ``Inf``, ``infinity`` (any case) or a
    C99 hexadecimal literal, with optional white space on both sides -> ``float64``.
    Decimal strings are converted with Python's correctly rounded :class:`float`, not
    with pandas' fast (not always correctly rounded) parser. The reference CSVs were
    written so that R's parser and a correctly rounded one agree on every cell.
  - otherwise a factor -> pandas ``Categorical`` whose categories are the distinct
    values in R's ``sort()`` order. That is *not* code point order: the fixtures' R
    (4.2.2, ``C.UTF-8`` locale, built with ICU) collates with ICU's root collator
    (``_x < a < A < B``; see :mod:`pybsnsing.datasets._collate`). Pass
    ``collation="codepoint"`` for R in the ``C`` locale. Unquoted character fields keep
    their white space (``strip.white = FALSE``).

* Step 2 converts the column to character exactly as R 4.2's ``as.character`` does
  (integers as digits; doubles with at most 15 significant digits, scaled in long double
  as R's ``formatReal`` does, trailing zeros dropped, fixed or scientific notation,
  whichever is narrower; logicals as ``TRUE``/``FALSE``) and matches it against the
  listed levels; values not among them become missing, as in R's
  ``factor(x, levels = ...)``.

A quoted ``"NA"`` is missing too, as in R. Not supported (never used by the reference
data): a header line with one field fewer than the data lines (R then takes the first
column as row names), comment characters, a byte-order mark in the header, and the
distinction between ``NA`` and ``NaN`` in double columns (both are ``NaN`` in pandas).

All of this was checked against R 4.2.2 itself (the fixtures' build): every bundled data
set, a table of edge cases (``tests/test_datasets.py``) and 100,000 random doubles
through ``as.character``.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from typing import IO, Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from ..rformat import format_r
from ..rnames import make_names, make_unique
from ._collate import r_sort

__all__ = [
    "make_names",
    "make_unique",
    "r_as_character",
    "read_canonical",
    "read_csv_r",
    "restore_factors",
]

NA_STRINGS: frozenset[str] = frozenset({"", "NA"})
_TRUE = frozenset({"T", "TRUE"})
_FALSE = frozenset({"F", "FALSE"})
_INT_MAX = 2**31 - 1

# C isspace(): space, \t, \n, \v, \f, \r.
_WS = " \t\n\v\f\r"
_WS_CLASS = r"[ \t\n\v\f\r]"
_NOT_INT_CHARS = re.compile(r"[^0-9+\-\x00 \t\n\v\f\r]")
_NOT_DEC_CHARS = re.compile(r"[^0-9+\-.eE\x00 \t\n\v\f\r]")
# R_strtod's decimal form: the exponent's digits may be missing ("1e", "1e+").
_DEC_R_RE = re.compile(
    rf"{_WS_CLASS}*([+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+))(?:[eE]([+-]?)([0-9]*))?{_WS_CLASS}*"
)
_SPECIAL_RE = re.compile(rf"{_WS_CLASS}*([+-]?)(nan|infinity|inf){_WS_CLASS}*", re.IGNORECASE)
_HEX_RE = re.compile(
    rf"{_WS_CLASS}*([+-]?0[xX][0-9a-fA-F]+(?:\.[0-9a-fA-F]*)?(?:[pP][+-]?[0-9]+)?){_WS_CLASS}*"
)

# ---------------------------------------------------------------- value conversion


def _parse_double_r(s: str) -> float | None:
    """Parse one string the way ``R_strtod`` + ``type.convert`` accept it, else None."""
    m = _DEC_R_RE.fullmatch(s)
    if m is not None:
        mant, sign, digits = m.group(1), m.group(2), m.group(3)
        return float(f"{mant}e{sign}{digits}" if digits else mant)
    m = _SPECIAL_RE.fullmatch(s)
    if m is not None:
        word = m.group(2).lower()
        if word == "nan":
            return math.nan
        return -math.inf if m.group(1) == "-" else math.inf
    m = _HEX_RE.fullmatch(s)
    if m is not None:
        try:
            return float.fromhex(m.group(1))
        except ValueError:
            return None
    return None


def _parse_ints(cand: list[str], joined: str) -> list[int] | None:
    """All values as R integers (``Strtoi``: ``strtol`` base 10, whole string, int32)."""
    if _NOT_INT_CHARS.search(joined):
        return None
    if any(v[-1] in _WS for v in cand):  # strtol stops at trailing white space
        return None
    try:
        ints = [int(v) for v in cand]
    except ValueError:
        return None
    if min(ints) < -_INT_MAX or max(ints) > _INT_MAX:
        return None
    return ints


def _parse_doubles(cand: list[str], joined: str) -> list[float] | None:
    """All values as R doubles (``R_strtod`` syntax), correctly rounded; else None."""
    if not _NOT_DEC_CHARS.search(joined):
        # Within these characters Python's float() accepts exactly R's decimal syntax,
        # except forms like "1e" that R reads and float() rejects: those go the slow way.
        try:
            return [float(v) for v in cand]
        except ValueError:
            pass
    doubles: list[float] = []
    for v in cand:
        d = _parse_double_r(v)
        if d is None:
            return None
        doubles.append(d)
    return doubles


def _convert_column(values: Sequence[Any], collation: str = "r") -> np.ndarray | ExtensionArray:
    """R's ``type.convert`` of one column of raw fields (``None`` = missing field)."""
    n = len(values)
    na = np.fromiter((v is None or v in NA_STRINGS for v in values), dtype=bool, count=n)
    # blank (white space only) fields are missing for logical / integer / double
    na_num = na | np.fromiter(
        (not na[i] and not values[i].strip(_WS) for i in range(n)), dtype=bool, count=n
    )
    cand: list[str] = [values[i] for i in np.flatnonzero(~na_num)]

    def _with_na(arr: np.ndarray, nullable: str) -> np.ndarray | ExtensionArray:
        if not na_num.any():
            return arr
        ext = pd.array(arr, dtype=nullable, copy=True)
        ext[na_num] = pd.NA
        return ext

    if not cand:
        return pd.array([pd.NA] * n, dtype="boolean")

    if all(v in _TRUE or v in _FALSE for v in cand):
        out = np.zeros(n, dtype=bool)
        out[~na_num] = [v in _TRUE for v in cand]
        return _with_na(out, "boolean")

    joined = "\x00".join(cand)  # one C-speed character scan for the fast paths
    ints = _parse_ints(cand, joined)
    if ints is not None:
        out = np.zeros(n, dtype=np.int64)
        out[~na_num] = ints
        return _with_na(out, "Int64")

    doubles = _parse_doubles(cand, joined)
    if doubles is not None:
        out = np.full(n, np.nan, dtype=np.float64)
        out[~na_num] = doubles
        return out

    # factor: blank strings are genuine levels here (strip.white = FALSE)
    labels = np.empty(n, dtype=object)
    labels[:] = [None if na[i] else values[i] for i in range(n)]
    levels = r_sort({values[i] for i in np.flatnonzero(~na)}, collation)
    return pd.Categorical(labels, categories=levels)


# ---------------------------------------------------------------- as.character


_LONG_DOUBLE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


def r_as_character(values: Any) -> np.ndarray:
    """Mirror R's ``as.character`` on a column; returns an object array (None = NA)."""
    ser = values if isinstance(values, pd.Series) else pd.Series(values)
    out = np.empty(len(ser), dtype=object)
    out[:] = None
    mask = ser.isna().to_numpy()
    if isinstance(ser.dtype, pd.CategoricalDtype):
        conv = [str(v) for v in ser[~mask]]
    elif pd.api.types.is_bool_dtype(ser.dtype):
        conv = ["TRUE" if bool(v) else "FALSE" for v in ser[~mask]]
    elif pd.api.types.is_integer_dtype(ser.dtype):
        conv = [str(int(v)) for v in ser[~mask]]
    elif pd.api.types.is_float_dtype(ser.dtype):
        # pandas cannot tell NA_real_ from NaN; both count as missing here.
        conv = [format_r(float(v)) for v in ser[~mask]]
    else:
        conv = [str(v) for v in ser[~mask]]
    out[~mask] = conv
    return out


# ---------------------------------------------------------------- readers


def read_csv_r(
    path_or_buffer: str | os.PathLike[str] | IO[Any], *, collation: str = "r"
) -> pd.DataFrame:
    """Mirror ``read.csv(file, stringsAsFactors = TRUE, na.strings = c("", "NA"))``.

    ``path_or_buffer`` may be a path (``.gz`` and other compressions are inferred from
    the name), a text or binary file object. ``collation`` orders the levels of text
    columns: ``"r"`` (R's ICU root order, as in the fixtures) or ``"codepoint"``.
    Returns a DataFrame with R's column types (see the module docstring) and a default
    ``RangeIndex``.
    """
    raw = pd.read_csv(
        path_or_buffer,
        header=None,
        dtype=str,
        keep_default_na=False,
        na_filter=False,
        quotechar='"',
        doublequote=True,
        skip_blank_lines=True,
        encoding="utf-8",
        compression="infer",
    )
    if raw.shape[0] == 0:
        raise ValueError("the CSV has no header line")
    header = [
        "" if (v is None or (isinstance(v, float) and math.isnan(v))) else v
        for v in raw.iloc[0].tolist()
    ]
    names = make_names(header)
    body = raw.iloc[1:]
    columns: dict[str, Any] = {}
    for j, name in enumerate(names):
        col = [
            None if (v is None or (isinstance(v, float) and math.isnan(v))) else v
            for v in body.iloc[:, j].tolist()
        ]
        columns[name] = _convert_column(col, collation)
    return pd.DataFrame(columns, index=pd.RangeIndex(len(body)))


def _factor_levels(columns: pd.DataFrame, dataset: str) -> dict[str, list[str]]:
    """Factor columns and their levels for ``dataset`` from a ``columns.csv`` table."""
    rows = columns[columns["dataset"].astype(str) == dataset]
    out: dict[str, list[str]] = {}
    for _, row in rows.iterrows():
        if str(row["r_class"]) != "factor":
            continue
        lv = row["levels"]
        lv = "" if lv is None or (isinstance(lv, float) and math.isnan(lv)) else str(lv)
        out[str(row["column"])] = lv.split(";") if lv != "" else []
    return out


def restore_factors(df: pd.DataFrame, levels: dict[str, list[str]]) -> pd.DataFrame:
    """Step 2 of the canonical read: ``df[[col]] <- factor(df[[col]], levels = lv)``.

    Returns a new DataFrame; a value whose ``as.character`` form is not a listed level
    becomes missing, exactly as in R.
    """
    out = df.copy()
    for col, lv in levels.items():
        if col not in out.columns:
            raise KeyError(f"column {col!r} listed as a factor is not in the data")
        chars = r_as_character(out[col])
        allowed = set(lv)
        chars[[c is not None and c not in allowed for c in chars]] = None
        out[col] = pd.Categorical(chars, categories=list(lv))
    return out


def read_canonical(
    path_or_buffer: str | os.PathLike[str] | IO[Any],
    columns: pd.DataFrame,
    dataset: str,
    *,
    collation: str = "r",
) -> pd.DataFrame:
    """Read a data set exactly as the golden fixtures did.

    Parameters
    ----------
    path_or_buffer
        CSV file (path, possibly ``.gz``, or file object).
    columns
        A ``columns.csv`` table (columns ``dataset``, ``column``, ``r_class``,
        ``levels``, ...); only the rows of ``dataset`` are used.
    dataset
        The data set name in ``columns``.
    collation
        Level order of text columns *not* listed as factors: ``"r"`` (R's ``sort()`` in
        the fixtures' session) or ``"codepoint"``.

    Returns
    -------
    pandas.DataFrame
        ``read.csv(stringsAsFactors = TRUE, na.strings = c("", "NA"))`` types, with every
        ``r_class == "factor"`` column a ``Categorical`` with exactly the listed levels in
        that order.
    """
    df = read_csv_r(path_or_buffer, collation=collation)
    return restore_factors(df, _factor_levels(columns, dataset))
