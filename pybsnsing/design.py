"""Formula + data -> an R-compatible design matrix and a coded response.

This mirrors what R bsnsing 1.0.1 does through ``model.frame`` and
``model.matrix`` (docs/r-quirks.md, *The formula interface*):

* treatment contrasts with an intercept, then the intercept is dropped: a
  factor ``f`` with levels a, b, c becomes the 0/1 columns ``fb`` and ``fc``
  (unused levels included, as in R); an ordered factor gets R's polynomial
  contrasts (``contr.poly``: columns ``o.L``, ``o.Q``, ``o.C``, ``o^4``, ...);
  a logical ``g`` becomes ``gTRUE``;
  numeric columns keep their names; string columns act as factors whose
  levels are sorted as R's ``sort()`` sorts them (ICU collation, see
  :mod:`pybsnsing.rcollate`), as ``model.matrix`` makes them; a formula
  without intercept (``y ~ f + x - 1``) codes its first factor by indicators
  of all its levels (``fa``, ``fb``, ``fc``), as ``model.matrix`` does;
* factor levels are R's ``as.character`` of the categories, and new data are
  matched to them the same way (``1`` matches the level ``"1"``);
* missing predictor values: every design column becomes a double column (a
  missing factor value is missing in all of its dummies), and each column's
  missing values are replaced by the column's median over the training rows;
  pandas' nullable types (``string``, ``Int64``, ``boolean``, ``Float64``) and
  their ``<NA>`` work as any other missing value;
* design column names are written as the rules write them: a name that is
  not a syntactic R name (``petal length``, ``cityNew York``, ``o^4``) in
  backticks, as R deparses it (R bsnsing stops on such names with "invalid
  name"; pybsnsing goes beyond it). Every other name is exactly R's;
* duplicate design column names (a 0/1 factor ``V1`` gives a dummy ``V11``
  that clashes with a numeric ``V11``) are made unique the way R's
  ``make.unique`` does (``V11``, ``V11.1``), with a warning. R itself breaks
  on such rules; pybsnsing keeps the columns distinct.

Formulas are parsed by :mod:`pybsnsing.formula` (structurally, never
evaluated); transform terms (``log(x)``, ``I(a + b)``, ``x:z``) are computed
from its fixed list of functions and operators, at fit and at predict time.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .errors import (
    DataError,
    DesignWarning,
    FormulaError,
    ModelFileError,
    PybsnsingKeyError,
    PybsnsingTypeError,
    PybsnsingValueError,
)
from .formula import (
    ParsedFormula,
    Term,
    evaluate_expr,
    parse_expr,
    parse_formula,
    term_label_is_plain,
)
from .rcollate import r_sort
from .rcontrasts import contr_poly
from .rnames import quote_name

__all__ = [
    "Design",
    "Response",
    "as_character",
    "build_design",
    "check_frame",
    "class_priors",
    "code_response",
    "design_for_newdata",
    "design_from_dict",
    "design_to_dict",
]



@dataclass
class Response:
    """The response, coded as R bsnsing codes it.

    Attributes:
        labels: original labels of the rows (as given).
        levels: the distinct classes, in R's order (factor level order of the
            levels present; sorted values for numbers; False, True for logicals).
        codes: integer class index of each row into ``levels``.
        kind: ``"factor"``, ``"numeric"`` or ``"logical"``.
    """

    labels: np.ndarray
    levels: list
    codes: np.ndarray
    kind: str

    @property
    def n_classes(self) -> int:
        return len(self.levels)


@dataclass
class Design:
    """A design matrix and everything needed to rebuild it for new data.

    Attributes:
        X: float64 array (n x p), missing values already replaced by medians.
        names: design column names (unique), as the rules write them: R's
            ``model.matrix`` names, in backticks where not syntactic.
        medians: the training median of each column (NaN where nothing was missing).
        terms: how each design column is computed from the data: a tuple
            ``("numeric", var)``, ``("dummy", var, level)``, ``("poly", var, k)``
            (column k of ``contr.poly``), ``("logical", var)`` (``varTRUE``),
            ``("logical", var, 0)`` (``varFALSE``, a formula without intercept)
            or ``("transform", index)`` (the product of the expressions
            ``transforms[index]``, e.g. ``["log(x)"]`` or ``["x", "z"]``).
        variables: the data columns the predictors use.
        response_name: the response column.
        factor_levels: the levels (R's ``as.character``) of each factor.
        transforms: the expression texts of each transform term.
        raw_names: R's ``model.matrix`` names of the design columns before they were
            made unique (None: not known, e.g. a model read from a file).
    """

    X: np.ndarray
    names: list[str]
    medians: np.ndarray
    terms: list[tuple]
    variables: list[str]
    response_name: str
    factor_levels: dict[str, list] = field(default_factory=dict)
    transforms: list[list[str]] = field(default_factory=list)
    imputed: np.ndarray | None = None
    raw_names: list[str] | None = None


# ---------------------------------------------------------------------------
# column names and column classes
# ---------------------------------------------------------------------------


def check_frame(data: Any, what: str = "data") -> None:
    """``data`` must be a DataFrame with flat column names."""
    if not isinstance(data, pd.DataFrame):
        raise PybsnsingTypeError(f"{what} must be a pandas DataFrame, not {type(data).__name__}")
    if isinstance(data.columns, pd.MultiIndex):
        raise DataError(
            f"{what} has MultiIndex (hierarchical) column names, e.g. {data.columns[0]!r}; "
            "flatten them to strings first, e.g. "
            "df.columns = ['_'.join(map(str, c)) for c in df.columns]")


def plain_frame(data: pd.DataFrame) -> pd.DataFrame:
    """``data`` with its Arrow-backed columns of an R class made plain pandas ones: a
    dictionary column (what Parquet and Arrow readers give a factor) as a Categorical
    with the dictionary's values as its levels, in order (R's arrow package reads it as
    that factor), and a date column as days since 1970-01-01 (R's ``Date``, which R's
    ``model.matrix`` reads as those numbers). Other columns are kept as they are; the
    same object when there is nothing to convert."""
    arrow_dtype = getattr(pd, "ArrowDtype", None)
    if arrow_dtype is None or not any(isinstance(t, arrow_dtype) for t in data.dtypes):
        return data
    import pyarrow as pa

    out = None
    for j, dtype in enumerate(data.dtypes):
        if not isinstance(dtype, arrow_dtype):
            continue
        t = dtype.pyarrow_dtype
        if pa.types.is_dictionary(t):
            col = _categorical_of_dictionary(data.iloc[:, j])
        elif pa.types.is_date(t):
            col = _days_of_dates(data.iloc[:, j])
        else:
            continue
        if out is None:
            out = data.copy(deep=False)
        out.isetitem(j, col)
    return data if out is None else out


def _categorical_of_dictionary(col: pd.Series) -> pd.Series:
    """An Arrow dictionary column as a Categorical: the chunks' dictionaries unified, their
    values (distinct) the categories in order, ``ordered`` kept."""
    import pyarrow as pa

    chunked = pa.chunked_array(col.array.__arrow_array__()).unify_dictionaries()
    arr = chunked.combine_chunks() if chunked.num_chunks else pa.array([], chunked.type)
    if isinstance(arr, pa.ChunkedArray):  # (pyarrow < 13: combine_chunks of one chunk)
        arr = arr.chunk(0)
    cats = arr.dictionary.to_pylist()
    codes = arr.indices.fill_null(-1).to_numpy(zero_copy_only=False).astype(np.int64)
    if len(set(map(repr, cats))) < len(cats):  # (a dictionary may repeat a value)
        values = [None if c < 0 else cats[c] for c in codes.tolist()]
        return pd.Series(pd.Categorical(values, ordered=bool(arr.type.ordered)),
                         index=col.index, name=col.name)
    return pd.Series(pd.Categorical.from_codes(codes, categories=pd.Index(cats, dtype=object),
                                               ordered=bool(arr.type.ordered)),
                     index=col.index, name=col.name)


def _days_of_dates(col: pd.Series) -> pd.Series:
    """An Arrow date32/date64 column as float64 days since 1970-01-01 (NaN missing)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    chunked = pa.chunked_array(col.array.__arrow_array__())
    if pa.types.is_date64(chunked.type):  # milliseconds, whole days
        days = pc.divide(pc.cast(chunked, pa.int64()), 86_400_000)
    else:
        days = pc.cast(chunked, pa.int32())
    values = days.to_numpy().astype(np.float64) if days.null_count == 0 else np.asarray(
        pc.cast(days, pa.float64()).fill_null(float("nan")).to_numpy(), dtype=np.float64)
    return pd.Series(values, index=col.index, name=col.name)


def _check_used_columns(data: pd.DataFrame, used: list, what: str = "data") -> None:
    """The columns ``used`` must be strings and unique in ``data``."""
    non_str = [c for c in used if not isinstance(c, str)]
    if non_str:
        raise DataError(
            f"{what} has column names that are not strings: {non_str[:5]!r}; pybsnsing "
            "needs string names (e.g. df.columns = df.columns.astype(str))")
    if data.columns.is_unique:  # (cached by pandas; value_counts costs ~1 ms)
        return
    counts = data.columns.value_counts()
    dup = [c for c in used if counts.get(c, 0) > 1]
    if dup:
        raise DataError(
            f"{what} has duplicate column names: {sorted(set(dup))!r}; make them unique first")


def as_character(v: Any) -> str:
    """R's ``as.character`` of one (non-missing) value: the text of a factor level."""
    if isinstance(v, str):
        return v
    if isinstance(v, (bool, np.bool_)):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float, np.integer, np.floating)):
        from .rformat import format_r

        return format_r(float(v))
    return str(v)


def _missing_mask(col: pd.Series) -> np.ndarray:
    """``pd.isna(col)`` as a bool array (without its ~20 us of Series overhead)."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype):
        if dtype.kind in "iub":
            return np.zeros(len(col), dtype=bool)
        if dtype.kind == "f":
            return np.isnan(col.to_numpy())
    return np.asarray(col.array.isna(), dtype=bool)


def _float_values(col: pd.Series) -> np.ndarray:
    """``col.to_numpy(dtype=float, na_value=np.nan)`` of a numeric or bool column (a
    column of numpy integers, bools or floats has no missing value to fill: the faster
    plain conversion)."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iufb":
        return np.asarray(col.to_numpy(), dtype=np.float64)
    return col.to_numpy(dtype=float, na_value=np.nan)


_NUMBER_TYPES = (int, float, np.integer, np.floating)


def _is_object(dtype: Any) -> bool:
    return isinstance(dtype, np.dtype) and dtype.kind == "O"


def _object_class(col: pd.Series, var: str) -> str:
    """``factor``, ``logical`` or ``numeric`` for an object column, from its values."""
    inferred = pd.api.types.infer_dtype(col, skipna=True)
    if inferred == "string":
        return "factor"
    if inferred == "boolean":
        return "logical"
    if inferred in ("integer", "floating", "mixed-integer-float", "decimal"):
        values = col[~_missing_mask(col)].tolist()
        if all(isinstance(v, _NUMBER_TYPES) and not isinstance(v, (bool, np.bool_))
               for v in values):
            return "numeric"
    values = col[~_missing_mask(col)].tolist()
    if all(isinstance(v, str) for v in values):
        return "factor" if values else "numeric"
    if all(isinstance(v, (bool, np.bool_)) for v in values):
        return "logical"
    if any(isinstance(v, (complex, np.complexfloating)) for v in values):
        raise DataError(f"column {var!r} holds complex numbers; pybsnsing takes real "
                        "numbers only (use the real part, the modulus or both as columns)")
    if all(isinstance(v, _NUMBER_TYPES) and not isinstance(v, (bool, np.bool_))
           for v in values):
        return "numeric"
    kinds = sorted({type(v).__name__ for v in values})
    what = (f"holds values of the type {kinds[0]}" if len(kinds) == 1
            else f"mixes values of the types {kinds}")
    raise DataError(
        f"column {var!r} {what}; convert it to a pandas Categorical (or strings) or to "
        "numbers")


def column_class(col: pd.Series, var: str) -> str:
    """The R class a predictor column acts as: ``factor``, ``ordered``, ``logical``
    or ``numeric``. Raises :class:`DataError` for a column pybsnsing cannot use."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iufb":  # (the common case, first)
        return "logical" if dtype.kind == "b" else "numeric"
    if isinstance(dtype, pd.CategoricalDtype):
        return "ordered" if dtype.ordered else "factor"
    if pd.api.types.is_bool_dtype(dtype) and not _is_object(dtype):
        return "logical"
    if pd.api.types.is_complex_dtype(dtype):
        raise DataError(f"column {var!r} holds complex numbers ({dtype}); pybsnsing takes "
                        "real numbers only (use the real part, the modulus or both as columns)")
    if dtype.kind in "mM" or isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype)) or (
            isinstance(dtype, pd.DatetimeTZDtype)):
        raise DataError(f"column {var!r} has the type {dtype}, which pybsnsing cannot use; "
                        "convert it to numbers (e.g. days since a date) or to a Categorical")
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    if _is_object(dtype):
        return _object_class(col, var)
    if pd.api.types.is_string_dtype(dtype):
        return "factor"
    raise DataError(f"column {var!r} has an unsupported type {dtype}")


def _levels_of(col: pd.Series, var: str, cls: str, collation: str) -> list[str]:
    """Levels (as R's ``as.character``) of a factor-like column."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        lv = [as_character(c) for c in col.cat.categories]
        if len(set(lv)) < len(lv):
            raise DataError(f"factor {var!r} has categories that print alike ({lv!r}); "
                            "R's factor levels are strings and must be distinct")
        return lv
    values = pd.unique(col.to_numpy(dtype=object)[~_missing_mask(col)]).tolist()
    return r_sort([str(v) for v in values], collation)


def _level_codes(col: pd.Series, levels: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Codes of each row into ``levels`` (-1 for missing or unseen) and the missing mask,
    matching values as R's ``factor(x, levels)`` does (by ``as.character``)."""
    miss = _missing_mask(col)
    if isinstance(col.dtype, pd.CategoricalDtype):
        cats = [as_character(c) for c in col.cat.categories]
        index = {lv: i for i, lv in enumerate(levels)}
        remap = np.array([index.get(c, -1) for c in cats] + [-1], dtype=np.int64)
        codes = np.asarray(col.array.codes, dtype=np.int64)
        return remap[codes], miss
    if pd.api.types.is_bool_dtype(col.dtype) and not _is_object(col.dtype):
        keys = np.where(_float_values(col) == 1.0, "TRUE", "FALSE")
    elif pd.api.types.is_numeric_dtype(col.dtype):
        from .rformat import format_r_array

        vals = _float_values(col)
        keys = np.empty(len(vals), dtype=object)
        ok = ~np.isnan(vals)
        keys[ok] = format_r_array(vals[ok])
    else:
        raw = col.to_numpy(dtype=object)
        if pd.api.types.infer_dtype(raw, skipna=True) in ("string", "empty"):
            keys = raw.copy()
            keys[miss] = None
        else:
            keys = np.array([None if m else as_character(v)
                             for v, m in zip(raw, miss, strict=True)], dtype=object)
    # pd.Categorical(keys, categories=levels).codes, ~10x faster: the distinct keys (missing:
    # -1) looked up among the levels
    codes, uniq = pd.factorize(np.where(miss, None, keys))
    index = {lv: i for i, lv in enumerate(levels)}
    remap = np.array([index.get(u, -1) for u in uniq.tolist()] + [-1], dtype=np.int64)
    return remap[codes], miss


_R_LOGICAL = {"TRUE": 1.0, "true": 1.0, "True": 1.0, "T": 1.0,
              "FALSE": 0.0, "false": 0.0, "False": 0.0, "F": 0.0}


def _as_logical(col: pd.Series, var: str) -> np.ndarray:
    """R's ``as.logical`` of a column as 1.0/0.0/NaN (strings ``"TRUE"``, ``"False"``,
    ``"T"``... as R reads them; other strings are missing, with a warning)."""
    dtype = col.dtype
    if pd.api.types.is_bool_dtype(dtype) and not _is_object(dtype):
        return _float_values(col)
    if pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype):
        x = _float_values(col)
        with np.errstate(invalid="ignore"):
            return np.where(np.isnan(x), np.nan, (x != 0).astype(float))
    if pd.api.types.is_complex_dtype(dtype):
        raise DataError(f"column {var!r} holds complex numbers; it was logical in training")
    miss = _missing_mask(col)
    raw = col.astype(object).to_numpy()
    out = np.full(len(raw), np.nan)
    bad: list = []
    for i, (v, m) in enumerate(zip(raw, miss, strict=True)):
        if m:
            continue
        if isinstance(v, (bool, np.bool_)):
            out[i] = float(v)
        elif isinstance(v, _NUMBER_TYPES):
            out[i] = float(v != 0) if v == v else np.nan
        else:
            got = _R_LOGICAL.get(as_character(v))
            if got is None:
                bad.append(v)
            else:
                out[i] = got
    if bad:
        warnings.warn(
            f"{len(bad)} values of the logical column {var!r} are not TRUE/FALSE (e.g. "
            f"{bad[0]!r}); they are treated as missing, as R's as.logical does",
            DesignWarning,
            stacklevel=4,
        )
    return out


def _as_numeric(col: pd.Series, var: str, where: str = "") -> np.ndarray:
    """A numeric column as float64 (NaN missing); at predict time other types are
    coerced as R's ``as.numeric`` would (non-numbers become missing, with a warning)."""
    dtype = col.dtype
    if isinstance(dtype, np.dtype) and dtype.kind in "iufb":  # (the common case, first)
        return np.asarray(col.to_numpy(), dtype=np.float64)
    if pd.api.types.is_complex_dtype(dtype):
        raise DataError(f"column {var!r} holds complex numbers{where}; pybsnsing takes real "
                        "numbers only")
    if dtype.kind in "mM" or isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype,
                                                pd.DatetimeTZDtype)):
        raise DataError(f"column {var!r} has the type {dtype}{where}; it must be numeric")
    if pd.api.types.is_numeric_dtype(dtype) or (pd.api.types.is_bool_dtype(dtype)
                                                and not _is_object(dtype)):
        return col.to_numpy(dtype=float, na_value=np.nan)
    raw = col.astype(object)
    if any(isinstance(v, (complex, np.complexfloating)) for v in raw.tolist()):
        raise DataError(f"column {var!r} holds complex numbers{where}; pybsnsing takes real "
                        "numbers only")
    raw = raw.map(lambda v: float(v) if isinstance(v, (bool, np.bool_)) else v)
    values = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
    lost = np.isnan(values) & ~_missing_mask(col)
    if lost.any():
        warnings.warn(
            f"{int(lost.sum())} values of the numeric column {var!r} are not numbers "
            f"(e.g. {col[lost].iloc[0]!r}); they are treated as missing",
            DesignWarning,
            stacklevel=4,
        )
    return values


# ---------------------------------------------------------------------------
# the design matrix
# ---------------------------------------------------------------------------


def _variable_columns(var: str, col: pd.Series, levels: dict[str, list], collation: str,
                      full: bool) -> tuple[list[str], list[np.ndarray], list[tuple]]:
    """Design columns of one plain variable (raw R names), with NaN for missing.

    ``full``: code a factor by indicators of all its levels (the first factor of a
    formula without intercept)."""
    cls = column_class(col, var)
    if cls in ("factor", "ordered"):
        lv = _levels_of(col, var, cls, collation)
        if len(lv) < 2:
            raise PybsnsingValueError(
                f"factor {var!r} has a single level ({lv!r}); "
                "a factor predictor needs at least two levels"
            )
        levels[var] = lv
        codes, miss = _level_codes(col, lv)
        if isinstance(col.dtype, pd.CategoricalDtype) and not miss.any() and (
                len(np.unique(codes)) == 1):
            warnings.warn(
                f"factor {var!r} takes a single value ({lv[int(codes[0])]!r}) in the data: R "
                "bsnsing stops here ('has only one unique level'); pybsnsing keeps its "
                "constant dummy columns, which cannot split",
                DesignWarning,
                stacklevel=4,
            )
        if cls == "ordered" and not full:
            # R's model.matrix: contr.poly columns var.L, var.Q, var.C, var^4, ...
            contrasts, suffixes = contr_poly(len(lv))
            names, cols, terms = [], [], []
            for k, suffix in enumerate(suffixes):
                x = contrasts[np.maximum(codes, 0), k]
                x[codes < 0] = np.nan
                names.append(f"{var}{suffix}")
                cols.append(x)
                terms.append(("poly", var, k))
            return names, cols, terms
        names, cols, terms = [], [], []
        for k, level in enumerate(lv):
            if k == 0 and not full:
                continue
            x = (codes == k).astype(np.float64)
            x[miss] = np.nan
            names.append(f"{var}{level}")
            cols.append(x)
            terms.append(("dummy", var, level))
        return names, cols, terms
    if cls == "logical":
        x = _as_logical(col, var)
        if full:
            return ([f"{var}FALSE", f"{var}TRUE"],
                    [np.where(np.isnan(x), np.nan, 1.0 - x), x],
                    [("logical", var, 0), ("logical", var)])
        return [f"{var}TRUE"], [x], [("logical", var)]
    return [var], [_as_numeric(col, var)], [("numeric", var)]


def _expr_column(data: pd.DataFrame, term_label: str, fit: bool):
    """The column accessor of transform expressions: numeric (or logical) columns."""

    def column(var: str) -> np.ndarray:
        if var not in data.columns:
            raise PybsnsingKeyError(
                f"the column {var!r} of the term {term_label!r} is not in the data")
        col = data[var]
        cls = column_class(col, var) if fit else "numeric"
        if cls not in ("numeric", "logical"):
            raise FormulaError(
                f"the term {term_label!r} uses the column {var!r}, which is a {cls}; "
                "transforms and interactions (log(), I(), a:b) take numeric columns only")
        if cls == "logical":
            return _as_logical(col, var)
        return _as_numeric(col, var, "" if fit else " in the new data")

    return column


def _transform_column(exprs: list[str], data: pd.DataFrame, label: str,
                      fit: bool) -> np.ndarray:
    column = _expr_column(data, label, fit)
    out = np.ones(len(data), dtype=np.float64)
    with np.errstate(all="ignore"):
        for text in exprs:
            value = evaluate_expr(parse_expr(text), column)
            out = out * np.broadcast_to(np.asarray(value, dtype=np.float64), out.shape)
    return np.asarray(out, dtype=np.float64)


def _rule_labels(raw: list[str], calls: list[bool]) -> tuple[list[str], list[str]]:
    """Rule-text names of the design columns, unique as R's ``make.unique`` makes them.

    A raw name is written as it is when it is a syntactic R name (or a transform call
    R bsnsing can use, ``log(x)``), else in backticks; names that clash get ``.1``,
    ``.2``, ... (on the raw name). Returns the names before and after that."""

    def label(name: str, call: bool) -> str:
        return name if call and term_label_is_plain(name) else quote_name(name)

    labels = [label(r, c) for r, c in zip(raw, calls, strict=True)]
    if len(set(labels)) == len(labels):
        return labels, labels
    taken = set(labels)
    seen: set[str] = set()
    counters: dict[str, int] = {}
    out: list[str] = []
    for r, lab in zip(raw, labels, strict=True):
        if lab not in seen:
            seen.add(lab)
            out.append(lab)
            continue
        k = counters.get(lab, 1)
        while label(f"{r}.{k}", False) in taken:
            k += 1
        new = label(f"{r}.{k}", False)
        counters[lab] = k + 1
        taken.add(new)
        seen.add(new)
        out.append(new)
    return labels, out


def _parsed_formula(formula: str, data: pd.DataFrame, collation: str) -> ParsedFormula:
    """The parsed formula, after checking ``data``, ``collation`` and the columns the
    formula uses."""
    check_frame(data)
    if collation not in ("r", "codepoint"):
        raise PybsnsingValueError(f"collation must be 'r' or 'codepoint', got {collation!r}")
    str_columns = [c for c in data.columns if isinstance(c, str)]
    parsed = parse_formula(formula, str_columns)
    response_name = parsed.response
    if response_name not in data.columns:
        raise PybsnsingKeyError(
            f"response column {response_name!r} of formula {formula!r} is not in data")
    if parsed.dot and len(str_columns) < data.shape[1]:
        _check_used_columns(data, list(data.columns))
    missing = [v for v in parsed.variables if v not in data.columns]
    if missing:
        raise PybsnsingKeyError(
            f"the columns {missing!r} of formula {formula!r} are not in data "
            f"(its columns: {list(map(str, data.columns[:20]))})")
    _check_used_columns(data, [response_name, *parsed.variables])
    if data.shape[0] == 0:
        raise PybsnsingValueError("data has no rows")
    return parsed


def _with_response(data: pd.DataFrame, response_name: str
                   ) -> tuple[pd.DataFrame, pd.Series]:
    """``data`` and its response column without the rows whose response is missing
    (dropped with a warning, attributed to the caller of :func:`build_design`)."""
    y = data[response_name]
    keep = ~_missing_mask(y)
    if not keep.all():
        warnings.warn(
            f"{int((~keep).sum())} rows with a missing response were dropped",
            DesignWarning,
            stacklevel=4,
        )
        data = data.loc[keep]
        y = y.loc[keep]
    if data.shape[0] == 0:
        raise PybsnsingValueError("data has no rows with a non-missing response")
    return data, y


@dataclass
class _TermColumns:
    """The design columns of the formula's terms, before naming and imputation."""

    raw: list[str] = field(default_factory=list)  # R's column names, before make.unique
    calls: list[bool] = field(default_factory=list)  # column of a transformed term
    cols: list[np.ndarray] = field(default_factory=list)
    terms: list[tuple] = field(default_factory=list)
    variables: list[str] = field(default_factory=list)
    levels: dict[str, list] = field(default_factory=dict)
    transforms: list[list[str]] = field(default_factory=list)


def _term_columns(parsed: ParsedFormula, data: pd.DataFrame, collation: str) -> _TermColumns:
    out = _TermColumns()
    full_done = parsed.intercept
    for term in parsed.terms:
        if term.is_variable:
            var = term.variable
            full = False
            if not full_done and column_class(data[var], var) != "numeric":
                full = full_done = True
            n, c, t = _variable_columns(var, data[var], out.levels, collation, full)
            out.calls.extend([False] * len(n))
        else:
            n, c, t = _transform_term(term, data, out.transforms)
            out.calls.append(True)
        for v in term.variables():
            if v not in out.variables:
                out.variables.append(v)
        out.raw.extend(n)
        out.cols.extend(c)
        out.terms.extend(t)
    return out


def _unique_names(raw: list[str], calls: list[bool]) -> list[str]:
    """The rule labels of the design columns; a warning names the renamed duplicates."""
    before, names = _rule_labels(raw, calls)
    renamed = [f"{old} -> {new}" for old, new in zip(before, names, strict=True) if old != new]
    if renamed:
        warnings.warn(
            "duplicate design column names were made unique as R's make.unique does: "
            + ", ".join(renamed),
            DesignWarning,
            stacklevel=4,
        )
    return names


def column_median(values: np.ndarray, name: str) -> float:
    """The value that imputes the missing values of the design column ``name`` from its
    present ``values`` (infinite ones included): R's ``median(x, na.rm = TRUE)``
    (:func:`~pybsnsing.rformat.r_median`).

    Raises:
        PybsnsingValueError: no values, or an undefined median (``-Inf`` and ``Inf`` in
            the middle: R would impute NaN).
    """
    from .rformat import r_median

    if values.shape[0] == 0:
        raise PybsnsingValueError(f"predictor columns with only missing values: {[name]}")
    med = r_median(values)
    if np.isnan(med):
        raise PybsnsingValueError(
            f"cannot impute the missing values of {[name]}: the median of the other "
            "values is undefined (-Inf and Inf in the middle)")
    return med


def _impute_medians(X: np.ndarray, names: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """Replace the missing values (NaN) of ``X`` (in place) by their column's median, as
    R bsnsing does (``median(x, na.rm = TRUE)``, infinite values included: see
    :func:`~pybsnsing.rformat.r_median`); returns the medians (NaN where nothing was
    missing) and the mask of the missing values. ``Inf`` and ``-Inf`` stay: they are
    values for R bsnsing (its rules compare them; its rpart calls treat them as
    missing, which :mod:`pybsnsing.external` replays)."""
    missing_x = np.isnan(X)
    medians = np.full(X.shape[1], np.nan)
    bad = np.flatnonzero(missing_x.any(axis=0)).tolist()
    if not bad:  # (the common case: one pass)
        return medians, missing_x
    all_missing = [names[j] for j in bad if missing_x[:, j].all()]
    if all_missing:
        raise PybsnsingValueError(f"predictor columns with only missing values: {all_missing}")
    for j in bad:
        medians[j] = column_median(X[~missing_x[:, j], j], names[j])
        X[missing_x[:, j], j] = medians[j]
    return medians, missing_x


def build_design(formula: str, data: pd.DataFrame,
                 collation: str = "r") -> tuple[Design, pd.Series]:
    """Build the R-compatible design matrix of ``formula`` on ``data``.

    ``collation`` orders the levels of string columns: ``"r"`` (R's ``sort()``,
    ICU collation, the default) or ``"codepoint"`` (R in the C locale).

    Returns the :class:`Design` and the response column (rows with a missing
    response are dropped with a warning; ``Design.X`` has the remaining rows).

    Raises (all :class:`~pybsnsing.errors.PybsnsingError`):
        PybsnsingTypeError: ``data`` is not a pandas DataFrame.
        DataError: column names that are not strings, duplicated or MultiIndex; a
            column type pybsnsing cannot use (complex, dates, mixed objects).
        FormulaError: a formula that cannot be parsed or uses an unsupported term.
        PybsnsingKeyError: the formula names a column that is not in ``data``.
        PybsnsingValueError: empty data, a single-level factor or an all-missing
            column.
    """
    check_frame(data)
    data = plain_frame(data)
    parsed = _parsed_formula(formula, data, collation)
    data, y = _with_response(data, parsed.response)
    if not parsed.terms:
        raise FormulaError(f"formula {formula!r} has no predictors")
    tc = _term_columns(parsed, data, collation)
    names = _unique_names(tc.raw, tc.calls)
    # column-major: the tree grower works on columns and uses this array as is (a
    # C-ordered design would be copied there: 80 MB at a million rows of 10 columns)
    X = np.empty((len(data), len(tc.cols)), dtype=np.float64, order="F")
    for j, col in enumerate(tc.cols):
        X[:, j] = col
    medians, missing_x = _impute_medians(X, names)
    design = Design(
        X=X,
        names=names,
        medians=medians,
        terms=tc.terms,
        variables=tc.variables,
        response_name=parsed.response,
        factor_levels=tc.levels,
        transforms=tc.transforms,
        imputed=missing_x if missing_x.any() else None,
        raw_names=list(tc.raw),
    )
    return design, y


def _transform_term(term: Term, data: pd.DataFrame,
                    transforms: list[list[str]]) -> tuple[list[str], list[np.ndarray],
                                                          list[tuple]]:
    exprs = [f.label() for f in term.factors]
    x = _transform_column(exprs, data, term.label, fit=True)
    idx = len(transforms)
    transforms.append(exprs)
    return [term.label], [x], [("transform", idx)]


def design_for_newdata(design: Design, newdata: pd.DataFrame) -> np.ndarray:
    """The design matrix of new rows, WITHOUT imputation (R predicts that way).

    Missing values stay NaN (a question on NaN is FALSE). A factor value not
    among the training levels is 0 in all of that factor's dummies, as in R's
    ``model.matrix`` (a warning names it); a level that R would leave without
    a column (newdata whose levels lack a training level: R stops with "object
    not found") still gets its 0/1 indicator here. Values are matched to the
    levels by R's ``as.character`` (the number ``1`` is the level ``"1"``); a
    logical column given as strings is read as R's ``as.logical`` reads it.
    """
    check_frame(newdata, "newdata")
    newdata = plain_frame(newdata)
    missing_vars = [v for v in design.variables if v not in newdata.columns]
    if missing_vars:
        named = ", ".join(f"'{v}'" for v in missing_vars)  # as typed, invisible ones too
        escaped = "" if all(v.isprintable() for v in missing_vars) else f" {missing_vars}"
        raise PybsnsingKeyError(f"newdata lacks the predictor columns {named}{escaped}")
    _check_used_columns(newdata, list(design.variables), "newdata")
    n = len(newdata)
    X = np.empty((n, len(design.names)), dtype=np.float64)
    unknown: dict[str, set] = {}
    codes_cache: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    numeric_cache: dict[str, np.ndarray] = {}

    def codes_of(var: str) -> tuple[np.ndarray, np.ndarray]:
        if var not in codes_cache:
            col = newdata[var]
            if pd.api.types.is_complex_dtype(col.dtype):
                raise DataError(f"column {var!r} of newdata holds complex numbers; it was "
                                "a factor in training")
            codes, miss = _level_codes(col, design.factor_levels[var])
            bad = (codes < 0) & ~miss
            if bad.any():
                vals = col[bad].astype(object).tolist()
                unknown.setdefault(var, set()).update(as_character(v) for v in vals)
            codes_cache[var] = (codes, miss)
        return codes_cache[var]

    for j, term in enumerate(design.terms):
        kind = term[0]
        if kind == "numeric":
            var = term[1]
            if var not in numeric_cache:
                numeric_cache[var] = _as_numeric(newdata[var], var, " in the new data")
            X[:, j] = numeric_cache[var]
        elif kind == "dummy":
            var, level = term[1], term[2]
            codes, miss = codes_of(var)
            k = design.factor_levels[var].index(level)
            x = (codes == k).astype(np.float64)
            x[miss] = np.nan  # an unseen value is 0 in every dummy, as in R
            X[:, j] = x
        elif kind == "poly":
            var = term[1]
            codes, _ = codes_of(var)
            contrasts, _ = contr_poly(len(design.factor_levels[var]))
            x = contrasts[np.maximum(codes, 0), term[2]]
            x[codes < 0] = np.nan
            X[:, j] = x
        elif kind == "logical":
            x = _as_logical(newdata[term[1]], term[1])
            if len(term) > 2 and term[2] == 0:
                x = np.where(np.isnan(x), np.nan, 1.0 - x)
            X[:, j] = x
        elif kind == "transform":
            X[:, j] = _transform_column(design.transforms[term[1]], newdata,
                                        design.names[j], fit=False)
        else:
            raise ModelFileError(f"unknown design term {term!r}")
    if unknown:
        listing = "; ".join(f"{k}: {sorted(map(str, v))}" for k, v in unknown.items())
        warnings.warn(
            "factor levels not seen in training: " + listing + ". As in R bsnsing, such a "
            "value is 0 in every dummy column of its factor (so a question 'fb==0' is TRUE "
            "for it); in an ordered factor's polynomial columns it counts as missing",
            DesignWarning,
            stacklevel=3,
        )
    return X


_LABEL_TYPES = (str, bool, int, float)


def _plain_label(v: Any, name: Any) -> Any:
    """A class label as a plain Python value (numpy scalars unwrapped); labels of
    other types (dates, tuples) are refused: they cannot be saved or compared."""
    if isinstance(v, np.generic):
        v = v.item()
    if not isinstance(v, _LABEL_TYPES):
        raise DataError(
            f"the response {name!r} has class labels of the type {type(v).__name__} "
            f"(e.g. {v!r}); use strings, numbers or True/False as classes")
    return v


def _response_kind(labels: np.ndarray, dtype: Any, name: Any) -> str:
    """"numeric", "logical" or "string": how R bsnsing reads a response that is not a
    factor (plain Python values in ``labels``); a DataError for other types."""
    if pd.api.types.is_bool_dtype(dtype) and not _is_object(dtype):
        return "logical"
    if dtype.kind in "mM" or isinstance(dtype, (pd.PeriodDtype, pd.IntervalDtype,
                                                pd.DatetimeTZDtype)):
        raise DataError(f"the response {name!r} has the type {dtype}; use class labels "
                        "(strings, numbers or True/False)")
    if pd.api.types.is_numeric_dtype(dtype):
        return "numeric"
    if not (_is_object(dtype) or pd.api.types.is_string_dtype(dtype)):
        raise DataError(f"unsupported response type {dtype}")
    vals = labels.tolist()
    if all(isinstance(v, str) for v in vals):
        return "string"
    if all(isinstance(v, bool) for v in vals):
        return "logical"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return "numeric"
    kinds = sorted({type(v).__name__ for v in vals})
    raise DataError(f"the response {name!r} mixes values of the types {kinds}; "
                    "convert it to a pandas Categorical or to numbers")


def _plain_response(y: pd.Series, name: Any, collation: str
                    ) -> tuple[np.ndarray, list, str, np.ndarray | None]:
    """``(labels, levels, kind, numbers)`` of a response that is not a categorical:
    ``numbers`` are the numpy values when they are numbers or bools (else None)."""
    dtype = y.dtype
    num_values = None
    if isinstance(dtype, np.dtype) and dtype.kind in "iufb":  # plain Python values
        labels = np.empty(len(y), dtype=object)
        labels[:] = y.tolist()
        num_values = y.to_numpy()
    else:
        labels = np.asarray([_plain_label(v, name) for v in y.tolist()], dtype=object)
    kind = _response_kind(labels, dtype, name)
    distinct = set(labels.tolist())
    if kind == "numeric":
        if np.isinf(np.asarray(list(distinct), dtype=float)).any():
            raise PybsnsingValueError(f"the response {name!r} has infinite values")
        levels = sorted(distinct)
    elif kind == "logical":
        levels = sorted(distinct)
    else:
        levels = r_sort(distinct, collation)  # R: as.factor / sort() in R's collation
        kind = "factor"
    return labels, levels, kind, num_values


def code_response(y: pd.Series, collation: str = "r") -> Response:
    """Classes of the response in R bsnsing's order (docs/r-quirks.md, *The formula
    interface*).

    For a factor the levels present, in level order (the last is coded 1 for
    two classes); for numbers the sorted distinct values (max coded 1); for
    logicals False then True. Strings act as a factor with sorted levels.
    Nullable pandas types work as their plain counterparts.
    """
    if not isinstance(y, pd.Series):
        raise PybsnsingTypeError(f"the response must be a pandas Series, not {type(y).__name__}")
    name = y.name
    miss = _missing_mask(y)
    if miss.any():
        y = y[~miss]
    dtype = y.dtype
    cat_codes = num_values = None
    if isinstance(dtype, pd.CategoricalDtype):
        cat_codes = np.asarray(y.array.codes, dtype=np.intp)
        present = np.bincount(cat_codes, minlength=len(dtype.categories)) > 0
        cats = [_plain_label(lv, name) for lv in dtype.categories]
        levels = [lv for lv, used in zip(cats, present.tolist(), strict=True) if used]
        kind = "factor"
        cat_arr = np.empty(len(cats), dtype=object)
        cat_arr[:] = cats
        labels = cat_arr[cat_codes]
    elif pd.api.types.is_complex_dtype(dtype):
        raise DataError(f"the response {name!r} holds complex numbers; use class labels")
    else:
        labels, levels, kind, num_values = _plain_response(y, name, collation)
    if len(levels) < 2:
        raise PybsnsingValueError(
            f"the response {name!r} has a single class ({levels!r}); "
            "a classification tree needs at least two"
        )
    if kind == "numeric" and len(levels) > 30:
        raise PybsnsingValueError(
            f"the numeric response {name!r} has {len(levels)} distinct values; "
            "at most 30 classes are allowed for a numeric response (use a factor)"
        )
    if cat_codes is not None:  # (categories are distinct: a level's code is its rank)
        codes = (np.cumsum(present) - 1).astype(np.int64)[cat_codes]
    elif num_values is not None:  # numpy numbers or bools: look up the distinct values
        index = {lv: i for i, lv in enumerate(levels)}
        uniq, inv = np.unique(num_values, return_inverse=True)
        codes = np.array([index[v] for v in uniq.tolist()], dtype=np.int64)[inv.ravel()]
    else:
        index = {lv: i for i, lv in enumerate(levels)}
        codes = np.array([index[v] for v in labels.tolist()], dtype=np.int64)
    return Response(labels=labels, levels=levels, codes=codes, kind=kind)


def class_priors(response: Response) -> tuple[np.ndarray, list]:
    """The class priors of a multi-class fit as R bsnsing 1.0.1 computes them.

    R takes ``yprior <- prop.table(table(y))[ylevels]`` and predict looks each
    class up by name (``yprior[as.character(level)]``, NA counting as 0). For
    a factor or character response that is each class's share of the rows.
    For a numeric response ``ylevels`` are numbers, so R indexes the table by
    POSITION (quirk Q11; ``docs/r-quirks.md``): a class whose position is not
    among the class values gets prior 0 (classes 1, 2, 3, 5 -> the class 5,
    fourth in the table, is never selected). pybsnsing mirrors this, so it
    predicts as R does, and returns the classes whose prior differs from
    their share (warn about them). Where R's subscript fails (class values
    of both signs) the shares are used.

    Returns:
        The priors in ``response.levels`` order, and the labels whose prior
        is not their share of the rows.
    """
    share = np.bincount(response.codes, minlength=response.n_classes) / len(response.codes)
    if response.kind != "numeric":
        return share, []
    from .rformat import format_r

    # R's numeric subscript: truncated toward zero; zeros dropped; positive
    # indices past the end give NA (named NA); all-negative ones exclude.
    idx = [int(np.trunc(float(v))) for v in response.levels]
    if any(i < 0 for i in idx) and any(i > 0 for i in idx):
        return share, []  # R stops: "can't mix positive and negative subscripts"
    n = len(share)
    if any(i < 0 for i in idx):
        excluded = {-i - 1 for i in idx}
        picked = [k for k in range(n) if k not in excluded]
    else:
        picked = [i - 1 for i in idx if i != 0]
    names = [format_r(float(v)) for v in response.levels]
    by_name: dict[str, float] = {}
    for k in picked:
        if 0 <= k < n and names[k] not in by_name:
            by_name[names[k]] = float(share[k])
    prior = np.array([by_name.get(names[k], 0.0) for k in range(n)])
    changed = [response.levels[k] for k in range(n) if prior[k] != share[k]]
    return prior, changed


def design_to_dict(design: Design, include_data: bool = True) -> dict:
    """A JSON-ready description of the design (training matrix optional)."""
    out = {
        "names": list(design.names),
        "medians": [None if np.isnan(v) else _json_number(float(v)) for v in design.medians],
        "terms": [list(t) for t in design.terms],
        "variables": list(design.variables),
        "response_name": design.response_name,
        "factor_levels": {k: list(v) for k, v in design.factor_levels.items()},
        "transforms": [list(t) for t in design.transforms],
    }
    if include_data:
        X = design.X
        if np.isinf(X).any():  # JSON has no infinity: written as R prints it
            out["X"] = [[_json_number(v) for v in row] for row in X.tolist()]
        else:
            out["X"] = X.tolist()
    return out


#: how an infinite number is written in a model file (JSON has no infinity)
_JSON_INF = {"Inf": math.inf, "-Inf": -math.inf}


def _json_number(v: float) -> float | str:
    """``v`` for a JSON model file: an infinite value as the string ``"Inf"``/``"-Inf"``."""
    return v if math.isfinite(v) else ("Inf" if v > 0 else "-Inf")


def json_number_value(v: object) -> object:
    """Inverse of :func:`_json_number` (other values unchanged)."""
    return _JSON_INF.get(v, v) if isinstance(v, str) else v


def design_from_dict(d: dict) -> Design:
    """Inverse of :func:`design_to_dict` (the caller checks the structure; see
    :func:`pybsnsing.model.load_model`)."""
    names = list(d["names"])
    X = np.asarray([[json_number_value(v) for v in row] for row in d["X"]]
                   if any(isinstance(v, str) for row in d["X"] for v in row) else d["X"],
                   dtype=np.float64) if d.get("X") is not None else np.empty((0, len(names)))
    transforms = [list(t) for t in d.get("transforms", [])]
    terms = [tuple(t) for t in d["terms"]]
    if d.get("formulaic_terms"):  # files of pybsnsing <= 0.1.0: one expression per term
        old = list(d["formulaic_terms"])
        base = len(transforms)
        transforms.extend([t] for t in old)
        terms = [("transform", base + int(t[1])) if t[0] == "formulaic" else t for t in terms]
    for exprs in transforms:
        for text in exprs:
            parse_expr(text)
    return Design(
        X=X.reshape(-1, len(names)),
        names=names,
        medians=np.array([np.nan if v is None else json_number_value(v) for v in d["medians"]],
                         dtype=float),
        terms=terms,
        variables=list(d["variables"]),
        response_name=d["response_name"],
        factor_levels={k: list(v) for k, v in d["factor_levels"].items()},
        transforms=transforms,
    )
