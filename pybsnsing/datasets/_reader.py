"""The canonical CSV reader: R's ``read.csv`` plus factor restoration.

Every golden fixture of the R cross-check was fitted on data read by

1. ``read.csv(file, stringsAsFactors = TRUE, na.strings = c("", "NA"))``, then
2. turning each column that ``columns.csv`` lists with ``r_class == "factor"`` into a
   factor with exactly the listed levels, in that order.

:func:`read_canonical` reproduces both steps in pandas; step 1 is :func:`read_csv`
(public as :func:`pybsnsing.read_csv`), which follows the rules of R 4.2's
``read.table`` / ``type.convert`` (``src/library/utils/src/io.c``, ``R_strtod5``,
``Strtoi``):

* The header goes through ``make.names(unique = TRUE)`` (``check.names = TRUE``).
* Empty fields, ``NA`` and missing trailing fields are missing values (``NA``)
  (``na_strings`` of :func:`read_csv`).
* Each column gets the first type of *logical*, *integer*, *double*, *complex*, *factor*
  that all its non-missing values parse as; blank (``iswspace`` white space only) values
  count as missing for the first four.

  - logical: only ``T``, ``F``, ``TRUE`` and ``FALSE`` (R 4.2's ``type.convert`` reads
    ``true``/``True`` as text) -> ``bool`` (``"boolean"`` when NA occurs). A column with
    no value at all is logical.
  - integer: optional leading white space, optional sign, decimal digits, within
    ``[-2147483647, 2147483647]`` (R's 32-bit integer; ``-2^31`` is ``NA_integer_``)
    -> ``int64`` (nullable ``"Int64"`` when NA occurs). Quoted numbers are numbers too,
    as in R: ``"1"`` reads as the integer 1.
  - double: R's decimal syntax (at least one mantissa digit, optional exponent, whose
    digits may be absent as in ``1e``), ``NaN``, ``Inf``, ``infinity`` (any case) or R's
    reading of ``0x`` hexadecimal numbers, with optional white space on both sides (C
    white space before, ``iswspace`` white space after) -> ``float64``. The values are
    R's bit for bit: :func:`pybsnsing.rformat.r_strtod` redoes ``R_strtod``'s x87
    long double arithmetic, which is not always the correctly rounded value of
    Python's :class:`float` (e.g. ``"2.83596401280207"``).
  - complex (``1+2i``, ``3i``) -> ``complex128``.
  - The first non-missing value, and the first value that fails the integer and the
    double pass, are screened with ``Strtod(NA = TRUE)``, where only ``NA`` itself may
    start with ``NA``: ``NAN`` reads as ``NaN`` except in those places, where it makes
    the column text, as in R.
  - otherwise a factor -> pandas ``Categorical`` whose categories are the distinct
    values in R's ``sort()`` order. That is *not* code point order: the fixtures' R
    (4.2.2, ``C.UTF-8`` locale, built with ICU) collates with ICU's root collator
    (``_x < a < A < B``; see :mod:`pybsnsing.rcollate`). Pass
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
column as row names), comment characters, a byte-order mark in the header, the
distinction between ``NA`` and ``NaN`` in double columns (both are ``NaN`` in pandas),
and two quirks of R's ``scan`` on lines without a separator: R skips a line holding only
``""`` and keeps a line holding only white space as a row.

All of this was checked against R 4.2.2 itself (the fixtures' build): every bundled data
set, a table of edge cases (``tests/test_datasets.py``), 100,000 random doubles through
``as.character``, and seeded random CSV files of some 20,000 decimal strings each plus
integer, logical, text and missing cells, read by R's ``read.csv`` through rpy2
(``tests/test_read_csv.py``: identical classes, levels, NA positions and bits).
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import IO, Any

import numpy as np
import pandas as pd
from pandas.api.extensions import ExtensionArray

from ..errors import PybsnsingKeyError, PybsnsingValueError
from ..rcollate import r_sort
from ..rformat import R_BLANK, as_character_column, r_strtoc, r_strtod
from ..rnames import make_names, make_unique

__all__ = [
    "make_names",
    "make_unique",
    "r_as_character",
    "read_canonical",
    "read_csv",
    "read_csv_r",
    "restore_factors",
]

NA_STRINGS: frozenset[str] = frozenset({"", "NA"})
_TRUE = frozenset({"T", "TRUE"})
_FALSE = frozenset({"F", "FALSE"})
_INT_MAX = 2**31 - 1

# C isspace(): space, \t, \n, \v, \f, \r (what strtol skips before a number).
_WS = " \t\n\v\f\r"
_INT_CHARS = frozenset("0123456789+-" + _WS)

# ---------------------------------------------------------------- value conversion


def _strtoi(v: str) -> int | None:
    """R's ``Strtoi(v, 10)``: ``strtol`` over the whole string, within int32 (no -2^31)."""
    if not v or v[-1] in _WS or not _INT_CHARS.issuperset(v):
        return None  # strtol stops at trailing white space; Python's int() is laxer
    try:
        i = int(v)
    except ValueError:
        return None
    return i if -_INT_MAX <= i <= _INT_MAX else None


def _parse_ints(cand: list[str]) -> tuple[list[int], int]:
    """Integers of ``cand`` up to the first value that is not one: (ints, index)."""
    out: list[int] = []
    for i, v in enumerate(cand):
        k = _strtoi(v)
        if k is None:
            return out, i
        out.append(k)
    return out, len(cand)


def _parse_doubles(cand: list[str]) -> tuple[list[float], int]:
    """R doubles of ``cand`` up to the first value that is not one: (values, index)."""
    cache: dict[str, float] = {}
    out: list[float] = []
    for i, v in enumerate(cand):
        d = cache.get(v)
        if d is None:
            try:
                d = r_strtod(v)
            except ValueError:
                return out, i
            cache[v] = d
        out.append(d)
    return out, len(cand)


def _parse_complex(cand: list[str]) -> list[complex] | None:
    """R complex values of all of ``cand`` (``strtoc``), else None."""
    out: list[complex] = []
    for v in cand:
        try:
            out.append(r_strtoc(v))
        except ValueError:
            return None
    return out


def _reads_all(parse: Callable[..., Any], v: str) -> bool:
    """``parse(v, na=True)`` reads all of ``v`` (raises no ValueError)."""
    try:
        parse(v, na=True)
    except ValueError:
        return False
    return True


def _is_real_na(v: str) -> bool:
    """``Strtod(v, NA = TRUE)`` reads all of ``v`` (R's type screening)."""
    return _reads_all(r_strtod, v)


def _is_complex_na(v: str) -> bool:
    """``strtoc(v, NA = TRUE)`` reads all of ``v`` (R's type screening)."""
    return _reads_all(r_strtoc, v)


def _convert_column(
    values: Sequence[Any],
    collation: str = "r",
    na_strings: frozenset[str] = NA_STRINGS,
    as_is: bool = False,
) -> np.ndarray | ExtensionArray:
    """R's ``type.convert`` of one column of raw fields (``None`` = missing field).

    A line-by-line reading of ``typeconvert()`` in ``src/library/utils/src/io.c``:
    ``ruleout_types()`` screens the first non-missing value, and the first value that
    fails the integer and the double pass, with ``Strtod(NA = TRUE)`` (where only
    ``"NA"`` itself starts with ``NA``); each pass then converts every value with
    ``NA = FALSE``.
    """
    n = len(values)
    # scan(fill = TRUE) pads short rows with blank fields; na.strings -> NA
    fields = ["" if v is None else v for v in values]
    na = np.fromiter((f in na_strings for f in fields), dtype=bool, count=n)
    # empty and blank (iswspace only) fields are missing for logical/integer/double
    na_num = na | np.fromiter((not f.strip(R_BLANK) for f in fields), dtype=bool, count=n)
    idx = np.flatnonzero(~na_num)
    cand: list[str] = [fields[i] for i in idx]

    def _with_na(arr: np.ndarray, nullable: str) -> np.ndarray | ExtensionArray:
        if not na_num.any():
            return arr
        ext = pd.array(arr, dtype=nullable, copy=True)
        ext[na_num] = pd.NA
        return ext

    if not cand:
        return pd.array([pd.NA] * n, dtype="boolean")

    first = cand[0]
    screened = [first]  # the values ruleout_types() looks at
    if first in _TRUE or first in _FALSE:
        if all(v in _TRUE or v in _FALSE for v in cand):
            out = np.zeros(n, dtype=bool)
            out[idx] = [v in _TRUE for v in cand]
            return _with_na(out, "boolean")
        return _text_column(fields, na, collation, as_is)  # ruled out everything else

    if _strtoi(first) is not None:
        ints, bad = _parse_ints(cand)
        if bad == len(cand):
            out = np.zeros(n, dtype=np.int64)
            out[idx] = ints
            return _with_na(out, "Int64")
        screened.append(cand[bad])

    if all(_is_real_na(v) for v in screened):
        doubles, bad = _parse_doubles(cand)
        if bad == len(cand):
            out = np.full(n, np.nan, dtype=np.float64)
            out[idx] = doubles
            return out
        screened.append(cand[bad])

    if all(_is_complex_na(v) for v in screened):
        cplx = _parse_complex(cand)
        if cplx is not None:
            out = np.full(n, complex(math.nan, math.nan), dtype=np.complex128)
            out[idx] = cplx
            return out

    return _text_column(fields, na, collation, as_is)


def _text_column(
    fields: list[str], na: np.ndarray, collation: str, as_is: bool
) -> np.ndarray | ExtensionArray:
    """A character column (``as.is``) or a factor with R-sorted levels; blank strings
    are genuine values here (``strip.white = FALSE``)."""
    labels = np.empty(len(fields), dtype=object)
    labels[:] = [None if m else f for f, m in zip(fields, na.tolist(), strict=True)]
    if as_is:
        return labels
    levels = r_sort({f for f, m in zip(fields, na.tolist(), strict=True) if not m}, collation)
    return pd.Categorical(labels, categories=levels)


# ---------------------------------------------------------------- as.character


_LONG_DOUBLE = np.finfo(np.longdouble).nmant > np.finfo(np.float64).nmant


def r_as_character(values: Any) -> np.ndarray:
    """Mirror R's ``as.character`` on a column; returns an object array (None = NA).

    The same as :func:`pybsnsing.rformat.as_character_column`."""
    return as_character_column(values)


# ---------------------------------------------------------------- readers


def read_csv(
    path_or_buffer: str | os.PathLike[str] | IO[Any],
    *,
    collation: str = "r",
    na_strings: Iterable[str] = ("", "NA"),
    strings_as_factors: bool = True,
) -> pd.DataFrame:
    """Read a CSV file exactly as R 4.2.2's ``read.csv`` does.

    The default mirrors ``read.csv(file, stringsAsFactors = TRUE,
    na.strings = c("", "NA"))``: same column names (``make.names``), same column
    classes, same values bit for bit and same factor levels in the same order.
    Each column gets R's ``type.convert`` class (the rules are listed in the
    docstring of :mod:`pybsnsing.datasets._reader`): logical -> ``bool``
    (``"boolean"`` with NA), integer -> ``int64`` (``"Int64"`` with NA), double ->
    ``float64``, complex -> ``complex128``, otherwise factor -> ``Categorical``.

    Doubles are converted as R converts them, not with Python's :func:`float`:
    R's ``R_strtod`` accumulates the digits in x87 80-bit long double
    (``ans = 10*ans + digit``), divides or multiplies by a power of ten built by
    repeated squaring in long double and rounds the result to double; it never
    calls C's ``strtod``. :func:`pybsnsing.rformat.r_strtod` redoes that arithmetic
    exactly in integers, so the result does not depend on the platform's long
    double. For a small share of strings, e.g. ``"2.83596401280207"`` or
    ``"1.7976931348623158e308"`` (``Inf`` in R), R's value differs from the
    correctly rounded one. Missing values (``NA``) of double columns are ``NaN``,
    as is R's ``NaN``.

    Parameters
    ----------
    path_or_buffer
        A path (``.gz`` and other compressions are inferred from the name) or a
        text or binary file object; UTF-8.
    collation
        Order of factor levels: ``"r"`` (default) is R's ``sort()`` in the
        fixtures' session, R 4.2.2 in ``C.UTF-8`` built with ICU (ICU's root
        collation: ``_x < a < A < B``); ``"codepoint"`` is R in the ``C`` locale.
    na_strings
        R's ``na.strings``: fields equal to one of these (quoted or not) are
        missing. Missing trailing fields of a short line are blank fields.
    strings_as_factors
        R's ``stringsAsFactors``; ``False`` gives text columns as object arrays of
        ``str`` (``None`` = NA), like R's character vectors.

    Returns
    -------
    pandas.DataFrame
        With a default ``RangeIndex`` (R's automatic row names).

    Not supported (R's defaults that the reference data never needed): a header
    with one field fewer than the data lines (R then makes the first column the
    row names), a byte-order mark, R's distinction between ``NA`` and ``NaN``
    in double columns, and two quirks of R's ``scan`` with lines that hold no
    separator: R skips a line holding only ``""`` and keeps a line holding only
    white space as a row (pandas, underneath, does the opposite).
    """
    nas = frozenset(na_strings)
    raw = _read_fields(path_or_buffer)
    if raw.shape[0] == 0:
        raise PybsnsingValueError("the CSV has no header line")
    header = [
        "" if (v is None or (isinstance(v, float) and math.isnan(v))) else v
        for v in raw.iloc[0].tolist()
    ]
    names = make_names(header)
    body = raw.iloc[1:]
    index = pd.RangeIndex(len(body))
    columns: dict[str, Any] = {}
    for j, name in enumerate(names):
        col = [
            None if (v is None or (isinstance(v, float) and math.isnan(v))) else v
            for v in body.iloc[:, j].tolist()
        ]
        conv = _convert_column(col, collation, nas, not strings_as_factors)
        # character columns stay object arrays (pandas would infer its str dtype)
        columns[name] = pd.Series(conv, index=index, dtype=object if
                                  isinstance(conv, np.ndarray) and conv.dtype == object else None)
    return pd.DataFrame(columns, index=index)


def _read_fields(path_or_buffer: Any) -> pd.DataFrame:
    """Every field as a string (pandas' reader); file problems as pybsnsing errors."""
    import gzip
    import zlib

    from ..errors import PybsnsingTypeError

    if not (isinstance(path_or_buffer, (str, os.PathLike)) or hasattr(path_or_buffer, "read")):
        raise PybsnsingTypeError(
            f"read_csv needs a file path or an open file, not {type(path_or_buffer).__name__}")
    where = repr(str(path_or_buffer)) if isinstance(path_or_buffer, (str, os.PathLike)) \
        else "the file"
    try:
        return pd.read_csv(
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
    except FileNotFoundError:
        raise PybsnsingValueError(f"no such file: {where}") from None
    except IsADirectoryError:
        raise PybsnsingValueError(f"{where} is a directory, not a CSV file") from None
    except pd.errors.EmptyDataError:
        raise PybsnsingValueError(f"{where} is empty: the CSV has no header line") from None
    except UnicodeDecodeError:
        raise PybsnsingValueError(f"{where} is not UTF-8 text") from None
    except (gzip.BadGzipFile, zlib.error, EOFError, OSError) as exc:
        text = getattr(exc, "strerror", None) or str(exc)
        raise PybsnsingValueError(f"cannot read {where}: {text} (corrupt or truncated "
                                  "compressed file?)") from None
    except pd.errors.ParserError as exc:
        raise PybsnsingValueError(f"{where} is not a valid CSV file: {exc}") from None


def read_csv_r(
    path_or_buffer: str | os.PathLike[str] | IO[Any], *, collation: str = "r"
) -> pd.DataFrame:
    """``read.csv(file, stringsAsFactors = TRUE, na.strings = c("", "NA"))``: the
    golden fixtures' read, i.e. :func:`read_csv` with its defaults."""
    return read_csv(path_or_buffer, collation=collation)


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
            raise PybsnsingKeyError(f"column {col!r} listed as a factor is not in the data")
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
