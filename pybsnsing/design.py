"""Formula + data -> an R-compatible design matrix and a coded response.

This mirrors what R bsnsing 1.0.1 does through ``model.frame`` and
``model.matrix`` (spec §7):

* treatment contrasts with an intercept, then the intercept is dropped: a
  factor ``f`` with levels a, b, c becomes the 0/1 columns ``fb`` and ``fc``
  (unused levels included, as in R); an ordered factor gets R's polynomial
  contrasts (``contr.poly``: columns ``o.L``, ``o.Q``, ``o.C``, ``o^4``, ...);
  a logical ``g`` becomes ``gTRUE``;
  numeric columns keep their names; string columns act as factors whose
  levels are sorted as R's ``sort()`` sorts them (ICU collation, see
  :mod:`pybsnsing.rcollate`), as ``model.matrix`` makes them;
* missing predictor values: every design column becomes a double column (a
  missing factor value is missing in all of its dummies), and each column's
  missing values are replaced by the column's median over the training rows;
* design column names containing any of ``+ < = > : / * ^ -`` or white space
  are rejected, as in R ("invalid name");
* duplicate design column names (a 0/1 factor ``V1`` gives a dummy ``V11``
  that clashes with a numeric ``V11``) are made unique the way R's
  ``make.unique`` does (``V11``, ``V11.1``), with a warning. R itself breaks
  on such rules; pybsnsing keeps the columns distinct.

Formulas are parsed by formulaic (``y ~ .``, ``y ~ a + b``, ``y ~ . - c``);
terms that are not plain columns (``log(x)``) are materialised by formulaic.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .rcollate import r_sort
from .rcontrasts import contr_poly
from .rnames import make_unique

__all__ = [
    "Design",
    "Response",
    "build_design",
    "class_priors",
    "code_response",
    "design_for_newdata",
    "design_from_dict",
    "design_to_dict",
]

_INVALID_NAME = re.compile(r"[+<=>:/*^\-\s]")


class DesignWarning(UserWarning):
    """Something about the design matrix the user should know."""


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
        names: design column names (unique).
        medians: the training median of each column (NaN where nothing was missing).
        terms: how each design column is computed from the data: a tuple
            ``("numeric", var)``, ``("dummy", var, level)``, ``("poly", var, k)``
            (column k of ``contr.poly``), ``("logical", var)``
            or ``("formulaic", term_index, column)`` (a term such as ``log(x)``,
            evaluated by formulaic; it must be stateless to predict new data).
        variables: the data columns the predictors use.
        response_name: the response column.
    """

    X: np.ndarray
    names: list[str]
    medians: np.ndarray
    terms: list[tuple]
    variables: list[str]
    response_name: str
    factor_levels: dict[str, list] = field(default_factory=dict)
    formulaic_terms: list[str] = field(default_factory=list)
    imputed: np.ndarray | None = None


def _parse_formula(formula: str, data: pd.DataFrame) -> tuple[str, list[str]]:
    """Return the response name and the right-hand-side term strings."""
    from formulaic import Formula
    from formulaic.errors import FormulaicError

    if not isinstance(formula, str):
        formula = str(formula)
    if "~" not in formula:
        raise ValueError(f"formula must have the form 'response ~ predictors', got {formula!r}")
    lhs_text = formula.split("~", 1)[0].strip()
    lhs_name = lhs_text.strip("`")
    if not lhs_name:
        raise ValueError(f"formula {formula!r} has no response")
    if lhs_name not in data.columns:
        raise KeyError(f"response column {lhs_name!r} of formula {formula!r} is not in data")
    try:
        parsed = Formula(
            formula, _context={"__formulaic_variables_available__": list(data.columns)}
        )
    except FormulaicError as exc:
        raise ValueError(f"cannot parse formula {formula!r}: {exc}") from exc
    rhs_terms = [str(t) for t in parsed.rhs if str(t) != "1"]
    # formulaic's '.' also takes the response when the lhs is not a plain name
    rhs_terms = [t for t in rhs_terms if t != lhs_name]
    return lhs_name, rhs_terms


def _factor_levels(col: pd.Series, collation: str = "r") -> list | None:
    """Levels of a factor-like column (categorical or strings), else None."""
    if isinstance(col.dtype, pd.CategoricalDtype):
        return list(col.cat.categories)
    if col.dtype == object or pd.api.types.is_string_dtype(col.dtype):
        values = col.dropna().unique().tolist()
        if not all(isinstance(v, str) for v in values):
            raise TypeError(
                f"column {col.name!r} mixes strings and other values; "
                "convert it to a pandas Categorical or to numbers"
            )
        return r_sort(values, collation)
    return None


def _is_logical(col: pd.Series) -> bool:
    return pd.api.types.is_bool_dtype(col.dtype)


def _term_columns(
    var: str, col: pd.Series, levels: dict[str, list], collation: str = "r"
) -> tuple[list[str], list[np.ndarray], list[tuple]]:
    """Design columns of one plain variable, R-named, with NaN for missing."""
    lv = _factor_levels(col, collation)
    if lv is not None:
        if len(lv) < 2:
            raise ValueError(
                f"factor {var!r} has a single level ({lv!r}); "
                "a factor predictor needs at least two levels"
            )
        levels[var] = lv
        if isinstance(col.dtype, pd.CategoricalDtype) and not col.isna().any() and (
                col.nunique() == 1):
            warnings.warn(
                f"factor {var!r} takes a single value ({col.iloc[0]!r}) in the data: R "
                "bsnsing stops here ('has only one unique level'); pybsnsing keeps its "
                "constant dummy columns, which cannot split",
                DesignWarning,
                stacklevel=4,
            )
        if isinstance(col.dtype, pd.CategoricalDtype) and col.cat.ordered:
            # R's model.matrix: contr.poly columns var.L, var.Q, var.C, var^4, ...
            contrasts, suffixes = contr_poly(len(lv))
            codes = col.cat.codes.to_numpy()
            names, cols, terms = [], [], []
            for k, suffix in enumerate(suffixes):
                x = contrasts[np.maximum(codes, 0), k]
                x[codes < 0] = np.nan
                names.append(f"{var}{suffix}")
                cols.append(x)
                terms.append(("poly", var, k))
            return names, cols, terms
        values = col.astype(object).to_numpy()
        missing = pd.isna(col).to_numpy()
        names, cols, terms = [], [], []
        for level in lv[1:]:
            x = np.where(values == level, 1.0, 0.0)
            x[missing] = np.nan
            names.append(f"{var}{level}")
            cols.append(x)
            terms.append(("dummy", var, level))
        return names, cols, terms
    if _is_logical(col):
        missing = pd.isna(col).to_numpy()
        x = np.where(col.fillna(False).to_numpy(dtype=bool), 1.0, 0.0)
        x[missing] = np.nan
        return [f"{var}TRUE"], [x], [("logical", var)]
    if pd.api.types.is_numeric_dtype(col.dtype):
        x = pd.to_numeric(col, errors="raise").to_numpy(dtype=float, na_value=np.nan)
        return [var], [x], [("numeric", var)]
    raise TypeError(f"column {var!r} has an unsupported type {col.dtype}")


def build_design(formula: str, data: pd.DataFrame,
                 collation: str = "r") -> tuple[Design, pd.Series]:
    """Build the R-compatible design matrix of ``formula`` on ``data``.

    ``collation`` orders the levels of string columns: ``"r"`` (R's ``sort()``,
    ICU collation, the default) or ``"codepoint"`` (R in the C locale).

    Returns the :class:`Design` and the response column (rows with a missing
    response are dropped with a warning; ``Design.X`` has the remaining rows).

    Raises:
        TypeError: ``data`` is not a pandas DataFrame, or a column type is unsupported.
        KeyError: the formula names a column that is not in ``data``.
        ValueError: empty data, an invalid design column name, a single-level
            factor, infinite values, or an all-missing column.
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame, not {type(data).__name__}")
    if data.shape[0] == 0:
        raise ValueError("data has no rows")
    response_name, rhs_terms = _parse_formula(formula, data)
    y = data[response_name]
    keep = ~pd.isna(y).to_numpy()
    if not keep.all():
        warnings.warn(
            f"{int((~keep).sum())} rows with a missing response were dropped",
            DesignWarning,
            stacklevel=3,
        )
        data = data.loc[keep]
        y = y.loc[keep]
    if data.shape[0] == 0:
        raise ValueError("data has no rows with a non-missing response")
    if not rhs_terms:
        raise ValueError(f"formula {formula!r} has no predictors")

    names: list[str] = []
    cols: list[np.ndarray] = []
    terms: list[tuple] = []
    variables: list[str] = []
    levels: dict[str, list] = {}
    specs: list = []
    for term in rhs_terms:
        var = term.strip("`")
        if var in data.columns:
            n, c, t = _term_columns(var, data[var], levels, collation)
            variables.append(var)
        else:
            n, c, t = _formulaic_term(term, data, specs, variables)
        names.extend(n)
        cols.extend(c)
        terms.extend(t)

    bad = [n for n in names if _INVALID_NAME.search(n)]
    if bad:
        raise ValueError(
            "invalid name: design column names must not contain + < = > : / * ^ - "
            f"or white space (as in R bsnsing); offending: {bad}. Rename the columns "
            "(or factor levels) first."
        )
    unique = make_unique(names)
    renamed = [f"{old} -> {new}" for old, new in zip(names, unique, strict=True) if old != new]
    if renamed:
        warnings.warn(
            "duplicate design column names were made unique as R's make.unique does: "
            + ", ".join(renamed),
            DesignWarning,
            stacklevel=3,
        )
    X = np.column_stack(cols) if cols else np.empty((len(data), 0))
    X = np.ascontiguousarray(X, dtype=np.float64)
    if np.isinf(X).any():
        where = [unique[j] for j in np.nonzero(np.isinf(X).any(axis=0))[0]]
        raise ValueError(f"infinite values in predictor columns: {where}")
    missing = np.isnan(X)
    medians = np.full(X.shape[1], np.nan)
    if missing.any():
        all_missing = [unique[j] for j in np.nonzero(missing.all(axis=0))[0]]
        if all_missing:
            raise ValueError(f"predictor columns with only missing values: {all_missing}")
        for j in np.nonzero(missing.any(axis=0))[0]:
            medians[j] = float(np.median(X[~missing[:, j], j]))
            X[missing[:, j], j] = medians[j]
    design = Design(
        X=X,
        names=unique,
        medians=medians,
        terms=terms,
        variables=variables,
        response_name=response_name,
        factor_levels=levels,
        formulaic_terms=specs,
        imputed=missing if missing.any() else None,
    )
    return design, y


def _formulaic_term(
    term: str, data: pd.DataFrame, specs: list[str], variables: list[str]
) -> tuple[list[str], list[np.ndarray], list[tuple]]:
    from formulaic import model_matrix
    from formulaic.errors import FormulaicError

    try:
        mm = model_matrix(f"{term} - 1", data, na_action="ignore", ensure_full_rank=True)
    except (FormulaicError, NameError, KeyError) as exc:
        raise KeyError(f"cannot evaluate formula term {term!r} on data: {exc}") from exc
    idx = len(specs)
    specs.append(term)
    for v in sorted(mm.model_spec.variables_by_source.get("data", ())):
        if v not in variables:
            variables.append(v)
    names = [str(c) for c in mm.columns]
    cols = [mm[c].to_numpy(dtype=float, na_value=np.nan) for c in mm.columns]
    return names, cols, [("formulaic", idx, c) for c in mm.columns]


def design_for_newdata(design: Design, newdata: pd.DataFrame) -> np.ndarray:
    """The design matrix of new rows, WITHOUT imputation (R predicts that way).

    Missing values stay NaN (a question on NaN is FALSE). A factor value not
    among the training levels is 0 in all of that factor's dummies, as in R's
    ``model.matrix`` (a warning names it); a level that R would leave without
    a column (newdata whose levels lack a training level: R stops with "object
    not found") still gets its 0/1 indicator here.
    """
    if not isinstance(newdata, pd.DataFrame):
        raise TypeError(f"newdata must be a pandas DataFrame, not {type(newdata).__name__}")
    missing_vars = [v for v in design.variables if v not in newdata.columns]
    if missing_vars:
        raise KeyError(f"newdata lacks the predictor columns {missing_vars}")
    n = len(newdata)
    X = np.empty((n, len(design.names)), dtype=np.float64)
    unknown: dict[str, set] = {}
    spec_cache: dict[int, pd.DataFrame] = {}
    for j, term in enumerate(design.terms):
        kind = term[0]
        if kind == "numeric":
            col = newdata[term[1]]
            if isinstance(col.dtype, pd.CategoricalDtype) or col.dtype == object:
                col = col.astype(object)
            values = pd.to_numeric(col, errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            lost = np.isnan(values) & ~pd.isna(col).to_numpy()
            if lost.any():
                warnings.warn(
                    f"{int(lost.sum())} values of the numeric column {term[1]!r} are not "
                    f"numbers (e.g. {col[lost].iloc[0]!r}); they are treated as missing",
                    DesignWarning,
                    stacklevel=3,
                )
            X[:, j] = values
        elif kind == "dummy":
            var, level = term[1], term[2]
            col = newdata[var]
            values = col.astype(object).to_numpy()
            miss = pd.isna(col).to_numpy()
            known = set(design.factor_levels[var])
            bad = ~miss & ~np.isin(values, np.asarray(list(known), dtype=object))
            if bad.any():
                unknown.setdefault(var, set()).update(values[bad].tolist())
            x = np.where(values == level, 1.0, 0.0)
            x[miss] = np.nan  # an unseen value is 0 in every dummy, as in R
            X[:, j] = x
        elif kind == "poly":
            var = term[1]
            known = design.factor_levels[var]
            values = newdata[var].astype(object).to_numpy()
            miss = pd.isna(newdata[var]).to_numpy()
            index = {lv: i for i, lv in enumerate(known)}
            codes = np.array([index.get(v, -1) if not m else -1
                              for v, m in zip(values, miss, strict=True)], dtype=np.int64)
            bad = (codes < 0) & ~miss
            if bad.any():
                unknown.setdefault(var, set()).update(values[bad].tolist())
            contrasts, _ = contr_poly(len(known))
            x = contrasts[np.maximum(codes, 0), term[2]]
            x[codes < 0] = np.nan
            X[:, j] = x
        elif kind == "logical":
            col = newdata[term[1]]
            miss = pd.isna(col).to_numpy()
            x = np.where(col.fillna(False).to_numpy(dtype=bool), 1.0, 0.0)
            x[miss] = np.nan
            X[:, j] = x
        else:
            idx, colname = term[1], term[2]
            if idx not in spec_cache:
                from formulaic import model_matrix

                spec_cache[idx] = model_matrix(f"{design.formulaic_terms[idx]} - 1", newdata,
                                               na_action="ignore", ensure_full_rank=True)
            X[:, j] = spec_cache[idx][colname].to_numpy(dtype=float, na_value=np.nan)
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


def code_response(y: pd.Series, collation: str = "r") -> Response:
    """Classes of the response in R bsnsing's order (spec §7).

    For a factor the levels present, in level order (the last is coded 1 for
    two classes); for numbers the sorted distinct values (max coded 1); for
    logicals False then True. Strings act as a factor with sorted levels.
    """
    if isinstance(y.dtype, pd.CategoricalDtype):
        present = set(y.dropna().unique().tolist())
        levels = [lv for lv in y.cat.categories if lv in present]
        kind = "factor"
    elif pd.api.types.is_bool_dtype(y.dtype):
        levels = sorted(set(y.dropna().tolist()))
        kind = "logical"
    elif pd.api.types.is_numeric_dtype(y.dtype):
        vals = y.to_numpy(dtype=float, na_value=np.nan)
        if np.isinf(vals).any():
            raise ValueError("the response has infinite values")
        levels = sorted(set(y.dropna().tolist()))
        kind = "numeric"
    elif y.dtype == object or pd.api.types.is_string_dtype(y.dtype):
        values = set(y.dropna().tolist())
        if not all(isinstance(v, str) for v in values):
            raise TypeError(
                f"the response {y.name!r} mixes strings and other values; "
                "convert it to a pandas Categorical or to numbers"
            )
        levels = r_sort(values, collation)  # R: as.factor / sort() in R's collation
        kind = "factor"
    else:
        raise TypeError(f"unsupported response type {y.dtype}")
    if len(levels) < 2:
        raise ValueError(
            f"the response {y.name!r} has a single class ({levels!r}); "
            "a classification tree needs at least two"
        )
    if kind == "numeric" and len(levels) > 30:
        raise ValueError(
            f"the numeric response {y.name!r} has {len(levels)} distinct values; "
            "at most 30 classes are allowed for a numeric response (use a factor)"
        )
    index = {lv: i for i, lv in enumerate(levels)}
    labels = y.to_numpy()
    codes = np.array([index[v] for v in labels], dtype=np.int64)
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
        "medians": [None if np.isnan(v) else float(v) for v in design.medians],
        "terms": [list(t) for t in design.terms],
        "variables": list(design.variables),
        "response_name": design.response_name,
        "factor_levels": {k: list(v) for k, v in design.factor_levels.items()},
        "formulaic_terms": list(design.formulaic_terms),
    }
    if include_data:
        out["X"] = design.X.tolist()
    return out


def design_from_dict(d: dict) -> Design:
    """Inverse of :func:`design_to_dict`."""
    names = list(d["names"])
    X = np.asarray(d["X"], dtype=np.float64) if "X" in d else np.empty((0, len(names)))
    return Design(
        X=X.reshape(-1, len(names)),
        names=names,
        medians=np.array([np.nan if v is None else v for v in d["medians"]], dtype=float),
        terms=[tuple(t) for t in d["terms"]],
        variables=list(d["variables"]),
        response_name=d["response_name"],
        factor_levels={k: list(v) for k, v in d["factor_levels"].items()},
        formulaic_terms=list(d.get("formulaic_terms", [])),
    )
