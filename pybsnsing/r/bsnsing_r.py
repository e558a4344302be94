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

_CACHE: dict[str, Any] = {}

#: The R code that builds R bsnsing objects from pybsnsing's parts and flattens them
#: back is the R package's (rbridge/R/convert.R); the wheel carries it as
#: pybsnsing/r/convert.R.  These two functions adapt it to rpy2: the call arrives as
#: text, and an object made by R bsnsing gives its formula through terms or call.
_RPY2_GLUE = r"""
.rpy2_build <- function(p) {
  text <- p[["call"]]
  call <- if (is.null(text) || !nzchar(text)) NULL else
    tryCatch(str2lang(text), error = function(e) text)
  .model_from_parts(p, call)
}
.rpy2_flatten <- function(x) .r_parts(x, formula_fallback = TRUE)
"""


def convert_r_source() -> str:
    """The text of the R package's ``R/convert.R`` (R bsnsing objects <-> parts).

    Read from the installed package (``pybsnsing/r/convert.R``, put in the wheel from
    ``rbridge/R/convert.R``) or, in a source checkout, from ``rbridge/R/convert.R``.
    """
    from importlib import resources
    from pathlib import Path

    packaged = resources.files("pybsnsing.r").joinpath("convert.R")
    if packaged.is_file():
        return packaged.read_text(encoding="utf-8")
    checkout = Path(__file__).resolve().parents[2] / "rbridge" / "R" / "convert.R"
    if checkout.is_file():
        return checkout.read_text(encoding="utf-8")
    raise RuntimeError("pybsnsing/r/convert.R is missing from the installed package "
                       "(reinstall pybsnsing)")


def _convert_env() -> Any:
    """An R environment with rbridge/R/convert.R and the rpy2 glue evaluated in it."""
    if "convert_env" not in _CACHE:
        require("r", "R through rpy2", module="rpy2.robjects")
        import rpy2.rinterface as ri
        import rpy2.robjects  # noqa: F401  (starts the embedded R)

        env = ri.baseenv["new.env"]()
        load = ri.evalr("function(code, env) { eval(parse(text = code, keep.source = FALSE), "
                        "envir = env); invisible(NULL) }")
        load(ri.StrSexpVector([convert_r_source()]), env)
        load(ri.StrSexpVector([_RPY2_GLUE]), env)
        _CACHE["convert_env"] = env
    return _CACHE["convert_env"]


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
    return _convert_env()[".rpy2_build"](_plain_to_r(parts))


def r_object_to_parts(robj: Any) -> dict[str, Any]:
    """The fields of an R bsnsing / mbsnsing object as plain Python objects."""
    flat = _convert_env()[".rpy2_flatten"](robj)
    parts = _r_to_plain(flat)
    return _unwrap(parts)


def _unwrap(value: Any) -> Any:
    """Length-1 lists of scalars (R's scalars) as scalars, recursively; node.obs, values
    and yprior stay lists (of scalars: R's ``as.list`` of a vector is flattened)."""
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in ("node.obs", "values", "yprior"):
                items = v if isinstance(v, list) else [v]
                out[k] = [x[0] if isinstance(x, list) and len(x) == 1 else x for x in items]
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
