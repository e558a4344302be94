"""pybsnsing models as R ``bsnsing`` objects and back, and R bsnsing itself, through rpy2.

* :func:`model_to_r` turns a :class:`~pybsnsing.BsnsingModel` /
  :class:`~pybsnsing.MBsnsingModel` into an R object with R bsnsing 1.0.1's
  class and structure (``tree.nodes`` with the 13 ``node.*`` fields and
  1-based ``node.obs``, ``fitted.values``, ``fitted.prob``,
  ``confusion.matrix``, ``n.frac.splits``, ``y.coding.scheme``, ``ycode``,
  ``call``; ``mbsnsing``: the class trees plus ``call``, ``nclass``,
  ``ylevels``, ``yprior``). pybsnsing's own state rides along in the
  attribute ``"pybsnsing"`` (control, node size, design, printed text).
* :func:`model_from_r` reads such an object, or one made by R bsnsing, back
  into a pybsnsing model that predicts identically. R bsnsing objects carry
  no design information: pass the training ``data`` to predict new rows.
* :func:`run_r_bsnsing` fits R bsnsing (the CRAN package, when it is
  installed in the R that rpy2 uses) on a pandas frame and returns the R
  object with its pybsnsing reading, so the two implementations can be
  compared. :func:`r_bsnsing_unavailable_reason` says why it cannot run.

All of this needs rpy2 (``pip install "pybsnsing[r]"``) and R; the imports
happen on first use.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._optional import require
from ..rformat import r_literal
from .convert import model_from_r_parts, model_to_r_parts, pandas_to_r

__all__ = [
    "RBsnsingFit",
    "model_from_r",
    "model_to_r",
    "r_bsnsing_available",
    "r_bsnsing_unavailable_reason",
    "r_object_to_parts",
    "r_predict",
    "run_r_bsnsing",
]

#: R code that builds an R bsnsing object from the parts of
#: :func:`pybsnsing.r.convert.model_to_r_parts` (the R package in rbridge/
#: builds the same structure in R/model.R).
_BUILD_R = r"""
function(p) {
  typed <- function(tv) {
    v <- unlist(tv$values)
    switch(tv$kind, logical = as.logical(v), integer = as.integer(v),
           double = as.numeric(v), as.character(v))
  }
  the_call <- function(text) {
    if (is.null(text) || !nzchar(text)) return(NULL)
    tryCatch(str2lang(text), error = function(e) text)
  }
  one_tree <- function(t, call) {
    nodes <- lapply(t[["tree.nodes"]], function(nd) list(
      node.number = as.numeric(nd[["node.number"]]),
      node.parent = as.numeric(nd[["node.parent"]]),
      node.lchild = as.numeric(nd[["node.lchild"]]),
      node.rchild = as.numeric(nd[["node.rchild"]]),
      node.class = as.integer(nd[["node.class"]]),
      node.prop = as.numeric(nd[["node.prop"]]),
      node.nobs = as.integer(nd[["node.nobs"]]),
      node.n1 = as.integer(nd[["node.n1"]]),
      node.n0 = as.integer(nd[["node.n0"]]),
      node.prob = as.numeric(nd[["node.prob"]]),
      node.obs = as.integer(unlist(nd[["node.obs"]])),
      node.split.rule = as.character(nd[["node.split.rule"]]),
      node.split.target = as.integer(nd[["node.split.target"]])))
    class(nodes) <- "treelist"
    n <- length(unlist(t[["fitted.values"]]))
    cm <- t[["confusion.matrix"]]
    tab <- as.table(matrix(as.integer(unlist(cm$counts)), nrow = length(unlist(cm$fitted)),
                           dimnames = list(fitted = as.character(unlist(cm$fitted)),
                                           actual = as.character(unlist(cm$actual)))))
    obj <- list(tree.nodes = nodes,
                fitted.values = stats::setNames(as.integer(unlist(t[["fitted.values"]])),
                                                seq_len(n)),
                fitted.prob = stats::setNames(as.numeric(unlist(t[["fitted.prob"]])),
                                              seq_len(n)),
                confusion.matrix = tab,
                n.frac.splits = 0,
                y.coding.scheme = as.character(t[["y.coding.scheme"]]),
                ycode = typed(t[["ycode"]]),
                call = call)
    extras <- t[c("print.text", "summary.text", "accuracy", "nleaves", "nsplits",
                  "node.size", "control", "design.json", "formula")]
    attr(obj, "pybsnsing") <- extras[!vapply(extras, is.null, logical(1))]
    class(obj) <- "bsnsing"
    obj
  }
  call <- the_call(p[["call"]])
  if (identical(p[["class"]], "mbsnsing")) {
    res <- lapply(p[["trees"]], one_tree, call = call)
    ylevels <- typed(p[["ylevels"]])
    if (is.character(ylevels)) ylevels <- factor(ylevels, levels = ylevels)
    res$call <- call
    res$nclass <- as.integer(p[["nclass"]])
    res$ylevels <- ylevels
    res$yprior <- structure(array(as.numeric(unlist(p[["yprior"]])), dim = length(ylevels),
                                  dimnames = list(y = as.character(ylevels))),
                            class = "table")
    attr(res, "pybsnsing") <- list(formula = p[["formula"]])
    class(res) <- "mbsnsing"
    return(res)
  }
  one_tree(p, call)
}
"""

#: R code that flattens an R bsnsing / mbsnsing object into plain lists
#: (the language object ``call`` and the ``terms`` become text).
_FLATTEN_R = r"""
function(x) {
  deparse1 <- function(e) paste(deparse(e, width.cutoff = 500L), collapse = " ")
  formula_text <- function(t) {
    extra <- attr(t, "pybsnsing")
    if (!is.null(extra$formula)) return(as.character(extra$formula))
    if (!is.null(t$terms)) return(deparse1(stats::formula(t$terms)))
    if (is.call(t$call) && !is.null(t$call$formula)) return(deparse1(t$call$formula))
    NULL
  }
  typed <- function(v) {
    kind <- if (is.logical(v)) "logical" else if (is.integer(v)) "integer" else
      if (is.numeric(v)) "double" else "character"
    list(kind = kind, values = if (kind == "character") as.character(v) else v)
  }
  one_tree <- function(t) {
    nodes <- lapply(t$tree.nodes, function(nd) {
      nd <- unclass(nd)
      nd$node.obs <- as.integer(nd$node.obs)
      nd
    })
    extra <- attr(t, "pybsnsing")
    out <- list(class = "bsnsing", tree.nodes = nodes, ycode = typed(t$ycode),
                call = if (is.null(t$call)) NULL else deparse1(t$call),
                formula = formula_text(t))
    for (k in c("node.size", "design.json")) if (!is.null(extra[[k]])) out[[k]] <- extra[[k]]
    if (!is.null(extra$control)) out$control <- lapply(extra$control, function(v) v)
    out
  }
  if (inherits(x, "mbsnsing")) {
    k <- as.integer(x$nclass)
    ylevels <- x$ylevels
    return(list(class = "mbsnsing", trees = lapply(seq_len(k), function(i) one_tree(x[[i]])),
                nclass = k,
                ylevels = typed(if (is.factor(ylevels)) as.character(ylevels) else ylevels),
                yprior = ifelse(is.na(as.numeric(x$yprior)), 0, as.numeric(x$yprior)),
                call = if (is.null(x$call)) NULL else deparse1(x$call),
                formula = formula_text(x)))
  }
  if (!inherits(x, "bsnsing")) stop("not a bsnsing or mbsnsing object")
  one_tree(x)
}
"""

_CACHE: dict[str, Any] = {}


def _r_function(key: str, source: str) -> Any:
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri
    import rpy2.robjects  # noqa: F401  (starts the embedded R)

    if key not in _CACHE:
        _CACHE[key] = ri.evalr(source)
    return _CACHE[key]


def _plain_to_r(value: Any) -> Any:
    """Plain Python (dict, list, str, numbers, bool, None) as rpy2 rinterface objects."""
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri

    if value is None:
        return ri.NULL
    if isinstance(value, Mapping):
        out = ri.ListSexpVector([_plain_to_r(v) for v in value.values()])
        out.do_slot_assign("names", ri.StrSexpVector([str(k) for k in value]))
        return out
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return ri.BoolSexpVector([value])
    if isinstance(value, int):
        return ri.IntSexpVector([value]) if abs(value) < 2**31 - 1 else ri.FloatSexpVector(
            [float(value)])
    if isinstance(value, float):
        return ri.FloatSexpVector([value])
    if isinstance(value, str):
        return ri.StrSexpVector([value])
    if isinstance(value, (list, tuple, np.ndarray)):
        items = list(value.tolist() if isinstance(value, np.ndarray) else value)
        if items and all(isinstance(v, bool) for v in items):
            return ri.BoolSexpVector(items)
        if items and all(isinstance(v, int) and not isinstance(v, bool) and abs(v) < 2**31 - 1
                         for v in items):
            return ri.IntSexpVector(items)
        if items and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in items):
            return ri.FloatSexpVector([float(v) for v in items])
        if items and all(isinstance(v, str) for v in items):
            return ri.StrSexpVector(items)
        return ri.ListSexpVector([_plain_to_r(v) for v in items])
    raise TypeError(f"cannot convert {type(value).__name__} to R")


def _r_to_plain(x: Any) -> Any:
    """rpy2 objects of plain R types (lists, atomic vectors, NULL) as Python objects.

    Named lists become dicts, unnamed lists become lists and atomic vectors
    become lists of Python scalars (NA becomes None).
    """
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri

    if x is ri.NULL or getattr(x, "typeof", None) == ri.RTYPES.NILSXP:
        return None
    t = x.typeof
    if t == ri.RTYPES.VECSXP:
        items = [_r_to_plain(v) for v in x]
        names_attr = x.do_slot("names") if "names" in list(x.list_attrs()) else None
        if names_attr is not None:
            names = [str(v) for v in names_attr]
            if all(names) and len(set(names)) == len(names):
                return dict(zip(names, items, strict=True))
        return items
    na = [bool(v) for v in ri.baseenv["is.na"](x)]
    if t == ri.RTYPES.REALSXP:
        return [None if m else float(v) for v, m in zip(x, na, strict=True)]
    if t == ri.RTYPES.INTSXP:
        return [None if m else int(v) for v, m in zip(x, na, strict=True)]
    if t == ri.RTYPES.LGLSXP:
        return [None if m else bool(v) for v, m in zip(x, na, strict=True)]
    if t == ri.RTYPES.STRSXP:
        return [None if m else str(v) for v, m in zip(x, na, strict=True)]
    raise TypeError(f"cannot read an R object of type {t}")


def model_to_r(model: Any) -> Any:
    """A pybsnsing model as an R ``bsnsing`` / ``mbsnsing`` object (an rpy2 object).

    The object has R bsnsing 1.0.1's structure (see the module docstring), so
    R code that reads ``bs$tree.nodes`` or ``bs$fitted.values`` works on it.
    Printing, summary and predict in R need the R package of rbridge/
    (``library(pybsnsing)``) or R bsnsing; :func:`model_from_r` reads it back.
    """
    parts = model_to_r_parts(model)
    return _r_function("build", _BUILD_R)(_plain_to_r(parts))


def r_object_to_parts(robj: Any) -> dict[str, Any]:
    """The fields of an R bsnsing / mbsnsing object as plain Python objects."""
    flat = _r_function("flatten", _FLATTEN_R)(robj)
    parts = _r_to_plain(flat)
    return _unwrap(parts)


def _unwrap(value: Any) -> Any:
    """Length-1 lists of scalars (R's scalars) as scalars, recursively (not node.obs)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("node.obs", "values", "yprior"):
                out[k] = v if isinstance(v, list) else [v]
            else:
                out[k] = _unwrap(v)
        return out
    if isinstance(value, list):
        if len(value) == 1 and not isinstance(value[0], (dict, list)):
            return value[0]
        return [_unwrap(v) for v in value]
    return value


def model_from_r(robj: Any, data: pd.DataFrame | None = None,
                 formula: str | None = None) -> Any:
    """Read an R bsnsing / mbsnsing object into a pybsnsing model.

    Args:
        robj: the R object (rpy2), from :func:`model_to_r` or from R bsnsing.
        data: the training data. Needed to predict new rows with an object
            made by R bsnsing (it stores no design information); the design
            matrix is rebuilt from ``formula`` and ``data`` as pybsnsing would.
        formula: the model formula; by default read from the object
            (pybsnsing's attribute, ``terms`` or ``call``).
    """
    parts = r_object_to_parts(robj)
    design = None
    if data is not None:
        from ..design import build_design

        formula = formula or parts.get("formula")
        if not formula:
            raise ValueError("the R object has no formula; pass formula=")
        design, _ = build_design(str(formula), data)
    if formula and not parts.get("formula"):
        parts["formula"] = formula
    return model_from_r_parts(parts, design=design)


# ---------------------------------------------------------------- running R bsnsing
def r_bsnsing_unavailable_reason() -> str | None:
    """Why R bsnsing cannot run here (None when it can)."""
    try:
        import rpy2.robjects as ro  # noqa: F401
        from rpy2.robjects.packages import isinstalled
    except Exception as exc:  # rpy2 missing, or R failed to start
        return f"rpy2/R not usable: {type(exc).__name__}: {exc}"
    try:
        if not isinstalled("bsnsing"):
            return ("the R package bsnsing is not installed in the R that rpy2 uses "
                    "(install bsnsing 1.0.1 from CRAN to compare against it)")
    except Exception as exc:
        return f"cannot query R's installed packages: {exc}"
    return None


def r_bsnsing_available() -> bool:
    """True when R bsnsing can be run through rpy2."""
    return r_bsnsing_unavailable_reason() is None


def _r_literal(value: Any) -> str:
    """A control value as R code (:func:`pybsnsing.rformat.r_literal` of a scalar)."""
    if not isinstance(value, (bool, int, float, str, np.bool_, np.integer, np.floating)):
        raise TypeError(f"cannot write {value!r} as an R literal")
    return r_literal(value)


@dataclass
class RBsnsingFit:
    """A fit of R bsnsing: the R object, its pybsnsing reading and R's printed text."""

    robject: Any
    model: Any
    print_text: str
    summary_text: str


def run_r_bsnsing(formula: str, data: pd.DataFrame, **control: Any) -> RBsnsingFit:
    """Fit R bsnsing 1.0.1 on ``data`` (through rpy2) as ``bsnsing(formula, data = train, ...)``.

    Control arguments use R's dotted names or Python's snake_case names and
    are passed in the given order, so the printed Call line matches R's.

    Raises:
        RuntimeError: R bsnsing is not available (the message says why).
    """
    require("r", "R bsnsing through rpy2", module="rpy2.robjects")
    # a formula and control names are data: checked by pybsnsing's structural parser
    # (names, operators and a fixed list of functions only) before R parses the code
    from ..errors import InvalidParameterError
    from ..formula import parse_formula

    parse_formula(formula, [str(c) for c in data.columns])
    bad = [k for k in control if not re.fullmatch(r"[A-Za-z][A-Za-z0-9._]*", str(k))]
    if bad:
        raise InvalidParameterError(f"invalid control parameter names {bad!r}")
    reason = r_bsnsing_unavailable_reason()
    if reason is not None:
        raise RuntimeError(reason)
    import rpy2.rinterface as ri
    import rpy2.robjects as ro

    ro.r("suppressPackageStartupMessages(library(bsnsing))")
    env = ri.baseenv["new.env"]()
    env["train"] = pandas_to_r(data)
    # every R control name is the snake_case name with "." for "_"
    args = "".join(f", {k.replace('_', '.')} = {_r_literal(v)}" for k, v in control.items())
    expr = f"bs <- bsnsing({formula}, data = train{args})"
    # the code goes in as text: a language object passed to an R function
    # through rpy2 would be evaluated (in the global environment) first
    _r_function("eval_in", "function(code, env) eval(str2lang(code), env)")(expr, env)
    robj = env["bs"]
    capture = ri.evalr("function(x, s) paste(capture.output(if (s) print(summary(x)) "
                       "else print(x)), collapse = '\\n')")
    print_text = str(capture(robj, False)[0])
    summary_text = str(capture(robj, True)[0])
    model = model_from_r(robj, data=data, formula=formula)
    return RBsnsingFit(robject=robj, model=model, print_text=print_text,
                       summary_text=summary_text)


def r_predict(robj: Any, newdata: pd.DataFrame, type: str = "prob") -> np.ndarray:
    """R's ``predict(robj, newdata, type = type)`` as a NumPy array.

    R bsnsing's (or rbridge's) predict methods must be loaded in R. A
    multi-class ``"prob"`` prediction is an n x K array.
    """
    pred = _r_function("predict", r"""
function(object, newdata, type) {
  p <- predict(object, newdata, type = type)
  list(values = if (is.numeric(p)) as.numeric(p) else as.character(p),
       dim = if (is.null(dim(p))) integer(0) else dim(p))
}
""")
    out = _r_to_plain(pred(robj, pandas_to_r(newdata), type))
    values = out["values"] or []
    dims = out["dim"] or []
    if type == "prob":
        arr = np.asarray(values, dtype=np.float64)
        return arr.reshape(dims[1], dims[0]).T if len(dims) == 2 else arr
    return np.asarray(values, dtype=object)
