"""Conversions between pandas / pybsnsing models and R, for both bridge directions.

Two transports share one *column codec* and one *model codec*:

* **rpy2** (Python drives an embedded R): :func:`pandas_to_r` and
  :func:`r_to_pandas` build and read R vectors explicitly (no ``pandas2ri``).
* **reticulate** (R drives Python: the R package in ``rbridge/``): columns
  travel as plain Python lists plus NA masks (:func:`frame_from_r_columns`,
  :func:`frame_to_r_columns`) and models as plain dicts
  (:func:`model_to_r_parts`, :func:`model_from_r_parts`). Plain lists, not
  NumPy arrays, because reticulate releases before 1.36 cannot convert NumPy 2
  arrays, and lists are exact for every reticulate version.

This module imports neither rpy2 nor R at import time: rpy2 is imported inside
the rpy2 functions only. That matters because the reticulate side runs inside
an R process, where starting rpy2's embedded R must never happen.

Column codec: a column is a dict ``{"kind", "values", "na", "levels",
"ordered", "levels_type"}`` where ``kind`` is one of ``double``, ``integer``,
``logical``, ``character``, ``factor``; ``values`` holds a placeholder where
``na`` is true; factor ``values`` are R's 1-based codes.

=====================  =========================  ==============================
pandas dtype           R type                     back to pandas
=====================  =========================  ==============================
float64 / float32      double (NaN -> NA)         float64
int8..int64, uint*     integer (double if a       int64, or ``Int64`` with NA
                       value is outside int32)
Int8..Int64 (NA)       integer with NA            ``Int64``
bool / boolean (NA)    logical                    bool, or ``boolean`` with NA
str / object strings   character                  pandas' default string dtype
category               factor (ordered kept),     category with the same
                       levels as strings          categories (and their type)
=====================  =========================  ==============================

R's distinction between ``NA`` and ``NaN`` in doubles is lost (both are
missing in pandas). From R, a column of any other class stored as double, integer,
logical or character (``Date``, ``POSIXct``, ``difftime``, ``ts``, ``AsIs``, a class of
one's own) arrives as its stored values, as R's ``model.matrix`` (and so R bsnsing) reads
it: a ``Date`` as days and a ``POSIXct`` as seconds since 1970-01-01; a numeric matrix
column ``m`` as one column per matrix column, named as ``model.matrix`` names them
(``ma``, ``mb``; ``m1``, ``m2``). List, other matrix, complex and raw columns are an
error. Row names / the index are not carried: R gets ``1..n`` row names and pandas a
``RangeIndex``.

Model codec: :func:`model_to_r_parts` gives the fields of an R bsnsing object
(``tree.nodes`` with R's 13 node fields ``node.number, node.parent,
node.lchild, node.rchild, node.class, node.prop, node.nobs, node.n1,
node.n0, node.prob, node.obs, node.split.rule, node.split.target`` in R's
list order, ``node.obs`` 1-based, and for a tree grown with case weights two
more, ``node.w1`` and ``node.w0``, after them; ``fitted.values``, ``fitted.prob``, the
confusion matrix, ``y.coding.scheme``, ``ycode``) plus pybsnsing's own
state (control, node size, design) so that :func:`model_from_r_parts`
rebuilds a model that predicts identically.
"""

from __future__ import annotations

import json
import math
import warnings
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._optional import require
from ..rformat import as_character
from ..tree import splittable

__all__ = [
    "CALL_PREFIX",
    "call_capturing_warnings",
    "column_from_parts",
    "column_to_parts",
    "frame_from_r_columns",
    "frame_to_r_columns",
    "model_from_r_parts",
    "model_to_r_parts",
    "pandas_to_r",
    "predict_to_r",
    "r_node_order",
    "r_to_pandas",
    "strip_call",
]

#: First characters of the call line in printed model text.
CALL_PREFIX = "Call:"

_INT32_MIN = -(2**31)  # R's NA_integer_
_INT32_MAX = 2**31 - 1
_KINDS = ("double", "integer", "logical", "character", "factor")
#: R node field names of ``tree.nodes`` (bsnsing 1.0.1), in R's order.
R_NODE_FIELDS = (
    "node.number", "node.parent", "node.lchild", "node.rchild", "node.class",
    "node.prop", "node.nobs", "node.n1", "node.n0", "node.prob", "node.obs",
    "node.split.rule", "node.split.target",
)


# ----------------------------------------------------------------------------- helpers
def _as_list(value: Any) -> list:
    """A value that came through reticulate as a list (length-1 vectors arrive as scalars)."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    return [value]


def plain(value: Any) -> Any:
    """``value`` with NumPy scalars/arrays turned into plain Python objects (recursively)."""
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def _levels_type(categories: pd.Index) -> str:
    """How to restore a category's type from R's character levels."""
    if len(categories) == 0 or pd.api.types.is_string_dtype(categories.dtype):
        return "str"
    if pd.api.types.is_bool_dtype(categories.dtype):
        return "bool"
    if pd.api.types.is_integer_dtype(categories.dtype):
        return "int"
    if pd.api.types.is_float_dtype(categories.dtype):
        return "float"
    if all(isinstance(v, str) for v in categories):
        return "str"
    raise TypeError(
        f"categories of type {categories.dtype} cannot be represented as R factor levels"
    )


def _restore_levels(levels: list[str], levels_type: str) -> list:
    if levels_type == "int":
        return [int(v) for v in levels]
    if levels_type == "float":
        return [float(v) for v in levels]
    if levels_type == "bool":
        return [v == "TRUE" for v in levels]
    return [str(v) for v in levels]


# ----------------------------------------------------------------------- column codec
def column_to_parts(col: pd.Series) -> dict[str, Any]:
    """Encode one pandas column for R (see the module docstring for the mapping).

    Raises:
        TypeError: a column type R cannot hold (datetimes, mixed objects, ...).
    """
    name = col.name
    dtype = col.dtype
    na = pd.isna(col).to_numpy(dtype=bool)
    parts: dict[str, Any] = {"na": na.tolist(), "levels": None, "ordered": False,
                             "levels_type": None}
    if isinstance(dtype, pd.CategoricalDtype):
        cats = dtype.categories
        parts["levels_type"] = _levels_type(cats)
        parts["levels"] = [as_character(plain(v)) for v in cats]
        if len(set(parts["levels"])) != len(parts["levels"]):
            raise TypeError(f"column {name!r}: categories are not distinct as R levels")
        codes = col.cat.codes.to_numpy(dtype=np.int64) + 1  # 0 where missing
        parts.update(kind="factor", values=codes.tolist(), ordered=bool(dtype.ordered))
        return parts
    if pd.api.types.is_bool_dtype(dtype):
        values = col.to_numpy(dtype=bool, na_value=False)
        parts.update(kind="logical", values=values.tolist())
        return parts
    if pd.api.types.is_integer_dtype(dtype):
        values = col.to_numpy(dtype=np.int64, na_value=0)
        ok = values[~na]
        if ok.size and (ok.min() <= _INT32_MIN or ok.max() > _INT32_MAX):
            parts.update(kind="double", values=values.astype(np.float64).tolist())
        else:
            parts.update(kind="integer", values=values.tolist())
        return parts
    if pd.api.types.is_float_dtype(dtype):
        values = col.to_numpy(dtype=np.float64, na_value=np.nan)
        parts.update(kind="double", values=values.tolist())
        return parts
    if pd.api.types.is_string_dtype(dtype) or pd.api.types.is_object_dtype(dtype):
        values = col.to_numpy(dtype=object)
        out = []
        for v, missing in zip(values, na, strict=True):
            if missing:
                out.append("")
            elif isinstance(v, str):
                out.append(v)
            else:
                raise TypeError(
                    f"column {name!r} holds a {type(v).__name__} value; only strings, "
                    "numbers, booleans and categoricals can be sent to R"
                )
        parts.update(kind="character", values=out)
        return parts
    raise TypeError(f"column {name!r} has dtype {dtype}, which has no R counterpart")


def column_from_parts(parts: Mapping[str, Any], nrow: int | None = None) -> Any:
    """Decode one column (a dict from :func:`column_to_parts` or from R) to a pandas array."""
    kind = parts["kind"]
    if kind not in _KINDS:
        raise ValueError(f"unknown column kind {kind!r}")
    values = _as_list(parts.get("values"))
    n = len(values) if nrow is None else int(nrow)
    if len(values) != n:
        raise ValueError(f"column has {len(values)} values, expected {n}")
    na_list = _as_list(parts.get("na"))
    na = np.asarray(na_list, dtype=bool) if na_list else np.zeros(n, dtype=bool)
    if na.size != n:
        raise ValueError(f"NA mask has {na.size} entries, expected {n}")
    if kind == "double":
        arr = np.asarray(values, dtype=np.float64).reshape(n)
        arr[na] = np.nan
        return arr
    if kind == "integer":
        arr = np.asarray(values, dtype=np.int64).reshape(n)
        if na.any():
            arr[na] = 0
            return pd.arrays.IntegerArray(arr, na.copy())
        return arr
    if kind == "logical":
        arr = np.asarray(values, dtype=bool).reshape(n)
        if na.any():
            return pd.arrays.BooleanArray(arr, na.copy())
        return arr
    if kind == "character":
        # pandas' default string inference ("str" in pandas 3, object before)
        return pd.Series(_with_na(values, na.tolist(), str, None), dtype=None,
                         index=pd.RangeIndex(n)).array
    levels = [str(v) for v in _as_list(parts.get("levels"))]
    levels = _restore_levels(levels, parts.get("levels_type") or "str")
    codes = np.asarray(values, dtype=np.int64).reshape(n) - 1
    codes[na] = -1
    if codes.size and codes.max() >= len(levels):
        raise ValueError("factor codes exceed the number of levels")
    return pd.Categorical.from_codes(codes, categories=pd.Index(levels),
                                     ordered=bool(parts.get("ordered", False)))


def frame_to_r_columns(df: pd.DataFrame) -> dict[str, Any]:
    """Encode a DataFrame as ``{"names", "columns", "nrow"}`` of plain Python objects."""
    if not isinstance(df, pd.DataFrame):
        raise TypeError(f"expected a pandas DataFrame, not {type(df).__name__}")
    columns = [column_to_parts(df.iloc[:, j].rename(df.columns[j]))
               for j in range(df.shape[1])]
    return {"names": [str(c) for c in df.columns], "columns": columns, "nrow": int(len(df))}


def frame_from_r_columns(names: Sequence[str] | str, columns: Sequence[Mapping] | Mapping,
                         nrow: int) -> pd.DataFrame:
    """Build a DataFrame from encoded columns (what the R package sends through reticulate)."""
    names = [str(v) for v in _as_list(names)]
    if isinstance(columns, Mapping):
        columns = [columns]
    columns = list(columns)
    if len(names) != len(columns):
        raise ValueError(f"{len(names)} names for {len(columns)} columns")
    nrow = int(nrow)
    data = {j: column_from_parts(c, nrow) for j, c in enumerate(columns)}
    df = pd.DataFrame(data, index=pd.RangeIndex(nrow))
    df.columns = pd.Index(names, dtype=object) if len(set(names)) != len(names) else names
    return df


# ---------------------------------------------------------------------- rpy2 transport
_R_HELPERS: dict[str, Any] = {}


def _r_helper(name: str) -> Any:
    """Small R closures (attribute setting must go through R to set the OBJECT bit)."""
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri
    import rpy2.robjects  # noqa: F401  (starts the embedded R)

    if not _R_HELPERS:
        _R_HELPERS["factor"] = ri.evalr(
            "function(codes, levels, ordered) structure(codes, levels = levels, "
            "class = if (ordered) c('ordered', 'factor') else 'factor')"
        )
        _R_HELPERS["frame"] = ri.evalr(
            "function(x, nms, n) { names(x) <- nms; attr(x, 'row.names') <- "
            ".set_row_names(as.integer(n)); class(x) <- 'data.frame'; x }"
        )
        _R_HELPERS["is.na"] = ri.baseenv["is.na"]
        _R_HELPERS["levels_type"] = ri.evalr(
            "function(x, t) { attr(x, 'pybsnsing.levels_type') <- t; x }"
        )
    return _R_HELPERS[name]


def _with_na(values: Sequence[Any], na: Sequence[bool], conv: Callable[[Any], Any],
             na_value: Any) -> list:
    return [na_value if m else conv(v) for v, m in zip(values, na, strict=True)]


def _parts_to_rvector(parts: Mapping[str, Any]) -> Any:
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri

    kind = parts["kind"]
    values = parts["values"]
    na = parts["na"]
    if kind == "double":
        return ri.FloatSexpVector(_with_na(values, na, float, ri.NA_Real))
    if kind == "integer":
        return ri.IntSexpVector(_with_na(values, na, int, ri.NA_Integer))
    if kind == "logical":
        return ri.BoolSexpVector(_with_na(values, na, bool, ri.NA_Logical))
    if kind == "character":
        return ri.StrSexpVector(_with_na(values, na, str, ri.NA_Character))
    codes = ri.IntSexpVector(_with_na(values, na, int, ri.NA_Integer))
    vec = _r_helper("factor")(codes, ri.StrSexpVector(parts["levels"]),
                              ri.BoolSexpVector([bool(parts["ordered"])]))
    if parts.get("levels_type") not in (None, "str"):
        vec = _r_helper("levels_type")(vec, ri.StrSexpVector([parts["levels_type"]]))
    return vec


def pandas_to_r(df: pd.DataFrame) -> Any:
    """A pandas DataFrame as an R ``data.frame`` (an rpy2 object); see the module docstring."""
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri
    import rpy2.robjects as ro

    enc = frame_to_r_columns(df)
    cols = [_parts_to_rvector(p) for p in enc["columns"]]
    frame = _r_helper("frame")(ri.ListSexpVector(cols), ri.StrSexpVector(enc["names"]),
                               enc["nrow"])
    return ro.DataFrame(frame)


def _rvector_to_parts(vec: Any, name: str) -> dict[str, Any]:
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri

    rclass = list(vec.rclass) if vec.rclass is not ri.NULL else []
    na = np.asarray(_r_helper("is.na")(vec).memoryview(), dtype=np.int32).astype(bool)
    typeof = vec.typeof
    parts: dict[str, Any] = {"na": na.tolist(), "levels": None, "ordered": False,
                             "levels_type": None}
    if "factor" in rclass:
        codes = np.asarray(vec.memoryview(), dtype=np.int64)
        codes[na] = 0
        levels = [str(v) for v in vec.do_slot("levels")]
        lt = None
        if "pybsnsing.levels_type" in list(vec.list_attrs()):
            lt = str(vec.do_slot("pybsnsing.levels_type")[0])
        parts.update(kind="factor", values=codes.tolist(), levels=levels,
                     ordered="ordered" in rclass, levels_type=lt)
        return parts
    if "dim" in list(vec.list_attrs()):
        raise TypeError(f"R column {name!r} is a matrix column, which has no pandas "
                        "counterpart here (give each of its columns a column of its own)")
    # any other class (Date, POSIXct, difftime, ts, ...): its stored values, which is
    # what R's model.matrix, and so R bsnsing, reads from such a column
    if typeof == ri.RTYPES.REALSXP:
        values = np.asarray(vec.memoryview(), dtype=np.float64).copy()
        values[na] = np.nan
        parts.update(kind="double", values=values.tolist())
    elif typeof == ri.RTYPES.INTSXP:
        values = np.asarray(vec.memoryview(), dtype=np.int64).copy()
        values[na] = 0
        parts.update(kind="integer", values=values.tolist())
    elif typeof == ri.RTYPES.LGLSXP:
        values = np.asarray(vec.memoryview(), dtype=np.int32) != 0
        values[na] = False
        parts.update(kind="logical", values=values.tolist())
    elif typeof == ri.RTYPES.STRSXP:
        parts.update(kind="character",
                     values=_with_na(list(vec), na.tolist(), str, ""))
    else:
        raise TypeError(f"R column {name!r} has R type {typeof}, which cannot be converted")
    return parts


def r_to_pandas(rdf: Any) -> pd.DataFrame:
    """An R ``data.frame`` (rpy2 object) as a pandas DataFrame; see the module docstring."""
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.rinterface as ri

    if "data.frame" not in list(getattr(rdf, "rclass", [])):
        raise TypeError("expected an R data.frame")
    names_attr = rdf.do_slot("names")
    nrow = int(ri.baseenv["nrow"](rdf)[0])
    names: list[str] = []
    columns: list[dict[str, Any]] = []
    for j, name in enumerate(str(v) for v in names_attr):
        vec = rdf[j]
        if "dim" in list(vec.list_attrs()) and vec.typeof in (ri.RTYPES.REALSXP,
                                                                ri.RTYPES.INTSXP):
            # a numeric matrix column: one column per matrix column, named as R's
            # model.matrix names them (the name and the column names, or 1, 2, ...)
            k = int(vec.do_slot("dim")[1])
            dimnames = (vec.do_slot("dimnames") if "dimnames" in list(vec.list_attrs())
                        else ri.NULL)
            cn = dimnames[1] if dimnames is not ri.NULL else ri.NULL
            labels = ([str(c) for c in cn] if cn is not ri.NULL
                      else [str(i + 1) for i in range(k)])
            sub = ri.baseenv["["]
            for i in range(k):
                names.append(name + labels[i])
                columns.append(_rvector_to_parts(
                    sub(vec, ri.MissingArg, ri.IntSexpVector([i + 1])), names[-1]))
            continue
        names.append(name)
        columns.append(_rvector_to_parts(vec, name))
    return frame_from_r_columns(names, columns, nrow)


# ------------------------------------------------------------------------ model codec
def strip_call(text: str) -> str:
    """Drop the ``Call:`` line and its 4-space continuation lines from printed text."""
    out: list[str] = []
    skipping = False
    for line in text.split("\n"):
        if line.startswith(CALL_PREFIX) and not out:
            skipping = True
            continue
        if skipping and line.startswith("    "):
            continue
        skipping = False
        out.append(line)
    return "\n".join(out)


def rpart_stops(names: Sequence[str]) -> bool:
    """Whether R bsnsing's ``rpart()`` call stops in ``model.frame`` (before it draws
    random numbers) on data with these column names: names that repeat, or that hold a
    backtick or a backslash (:func:`pybsnsing.external.r_rpart_fails`)."""
    from ..external import r_rpart_fails

    names = [str(v) for v in names]
    return len(set(names)) < len(names) or r_rpart_fails(names)


def rpart_draws(model: Any) -> list[int]:
    """The sizes ``n`` of the ``sample(rep(1:10, length.out = n), n)`` calls that R bsnsing
    1.0.1 makes through ``rpart()`` while it fits the tree(s) of ``model``, in order. The
    R package (``rbridge/``) replays them, so that R's random numbers after a fit are R
    bsnsing's (a script that samples after fitting gets the same rows).

    With ``import.external`` R calls rpart, whose cross-validation groups take random
    numbers, at every node it splits or tries to (the root and every child it queues,
    in queue order: increasing node numbers), one tree per class after the other. None
    when rpart stops before drawing (:func:`rpart_stops` on R's design column names),
    without external rules, or for a fit R cannot make (case weights)."""
    trees = list(getattr(model, "trees", [model]))
    if not trees or not bool(trees[0].control.import_external):
        return []
    if any(getattr(t, "sample_weight", None) is not None for t in trees):
        return []
    design = trees[0].design
    raw = getattr(design, "raw_names", None) if design is not None else None
    names = list(raw) if raw is not None else list(getattr(design, "names", []))
    if rpart_stops(names):
        return []
    sizes: list[int] = []
    for t in trees:
        depth_limit = getattr(t, "max_depth", None)
        for nd in sorted(t.nodes, key=lambda nd: int(nd.number)):
            if depth_limit is not None and nd.depth >= depth_limit:
                continue
            if nd.number == 0 or splittable(nd, t.node_size, t.control.stop_prob):
                sizes.append(int(nd.nobs))
    return sizes


def r_node_order(nodes: Sequence[Any], node_size: int, stop_prob: float) -> list[int]:
    """Node numbers in the order R bsnsing 1.0.1 appends them to ``tree.nodes``.

    R appends a node when it leaves the FIFO queue, and a child that is not
    queued (too small, pure, or at ``stop.prob``) right after its parent. Nodes of a
    tree grown with case weights (``w1`` set) are queued by the weighted rule
    (:func:`pybsnsing.weighted.weighted_splittable`).
    """
    by = {int(nd.number): nd for nd in nodes}
    if 0 not in by:
        return sorted(by)
    order: list[int] = []
    queue: deque[int] = deque([0])
    while queue:
        k = queue.popleft()
        order.append(k)
        nd = by[k]
        if nd.lchild < 0:
            continue
        for c in (int(nd.lchild), int(nd.rchild)):
            ch = by[c]
            if getattr(ch, "w1", None) is not None:  # a weighted tree: weighted stopping
                from ..weighted import weighted_splittable

                more = weighted_splittable(ch, node_size, stop_prob)
            else:
                more = splittable(ch, node_size, stop_prob)
            if ch.lchild >= 0 or more:
                queue.append(c)
            else:
                order.append(c)
    if sorted(order) != sorted(by):  # inconsistent input: fall back to number order
        return sorted(by)
    return order


def _vector_kind(values: Sequence[Any]) -> str:
    vals = [plain(v) for v in values]
    if all(isinstance(v, bool) for v in vals):
        return "logical"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
        return "integer"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in vals):
        return "double"
    return "character"


def _typed_values(values: Sequence[Any]) -> dict[str, Any]:
    """Values with an R type tag: ``{"kind", "values"}`` (strings for other types)."""
    kind = _vector_kind(values)
    vals = [plain(v) for v in values]
    if kind == "double":
        vals = [float(v) for v in vals]
    elif kind == "character":
        vals = [as_character(plain(v)) for v in vals]
    return {"kind": kind, "values": vals}


def _untyped(tv: Mapping[str, Any]) -> list:
    kind = tv.get("kind", "character")
    vals = _as_list(tv.get("values"))
    if kind == "logical":
        return [bool(v) for v in vals]
    if kind == "integer":
        return [int(v) for v in vals]
    if kind == "double":
        return [float(v) for v in vals]
    return [str(v) for v in vals]


def _json_default(o: Any) -> Any:
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, tuple):
        return list(o)
    raise TypeError(f"cannot serialise {type(o).__name__}")


def _binary_parts(model: Any) -> dict[str, Any]:
    control = model.control
    node_size = int(getattr(model, "node_size", control.node_size))
    order = r_node_order(model.nodes, node_size, float(control.stop_prob))
    by = {int(nd.number): nd for nd in model.nodes}
    nodes = []
    for k in order:
        nd = by[k]
        nodes.append({
            "node.number": float(nd.number),
            "node.parent": float(nd.parent),
            "node.lchild": float(nd.lchild),
            "node.rchild": float(nd.rchild),
            "node.class": int(nd.node_class),
            "node.prop": float(nd.prop),
            "node.nobs": int(nd.nobs),
            "node.n1": int(nd.n1),
            "node.n0": int(nd.n0),
            "node.prob": float(nd.prob),
            "node.obs": (np.asarray(nd.obs, dtype=np.int64) + 1).tolist(),
            "node.split.rule": str(nd.split_rule),
            "node.split.target": int(nd.split_target),
        })
        if nd.w1 is not None:  # case weights: two more fields, after R's 13
            nodes[-1]["node.w1"] = float(nd.w1)
            nodes[-1]["node.w0"] = float(nd.w0)
    cm = model.confusion_matrix
    summary = model.summary()
    design = getattr(model, "design", None)
    design_json = None
    if design is not None:
        from ..design import design_to_dict

        design_json = json.dumps(design_to_dict(design, include_data=False),
                                 default=_json_default)
    return {
        "class": "bsnsing",
        "tree.nodes": nodes,
        "fitted.values": np.asarray(model.fitted_values, dtype=np.int64).tolist(),
        "fitted.prob": np.asarray(model.fitted_prob, dtype=np.float64).tolist(),
        "confusion.matrix": {
            "counts": cm.to_numpy(dtype=np.int64).T.ravel().tolist(),  # column-major
            "fitted": [as_character(plain(v)) for v in cm.index],
            "actual": [as_character(plain(v)) for v in cm.columns],
        },
        "n.frac.splits": 0,
        "y.coding.scheme": str(model.coding_scheme),
        "ycode": _typed_values(list(model.ycode)),
        "call": str(getattr(model, "call", "")),
        "formula": getattr(model, "formula", None),
        "print.text": strip_call(str(model)),
        "summary.text": strip_call(str(summary)),
        "accuracy": float(summary.accuracy),
        "nleaves": int(model.n_leaves),
        "nsplits": int(model.n_splits),
        "node.size": node_size,
        "control": plain(control.to_r_dict()),
        "design.json": design_json,
    }


def model_to_r_parts(model: Any) -> dict[str, Any]:
    """The fields of an R ``bsnsing`` / ``mbsnsing`` object, as plain Python objects.

    For a two-class model: ``tree.nodes`` (list of node dicts with R's 13
    field names, in R's list order, ``node.obs`` 1-based; with case weights also
    ``node.w1`` and ``node.w0``), ``fitted.values``,
    ``fitted.prob``, ``confusion.matrix`` (``counts`` column-major with its
    ``fitted`` and ``actual`` labels), ``n.frac.splits``, ``y.coding.scheme``,
    ``ycode`` (``{"kind", "values"}``), and pybsnsing extras: ``print.text``
    and ``summary.text`` (printed text without the Call line), ``accuracy``,
    ``nleaves``, ``nsplits``, ``node.size``, ``control`` (R names),
    ``design.json``, ``call``, ``formula``. For a multi-class model:
    ``{"class": "mbsnsing", "trees": [...], "nclass", "ylevels", "yprior", ...}``.
    """
    from ..model import BsnsingModel, MBsnsingModel

    if isinstance(model, MBsnsingModel):
        return {
            "class": "mbsnsing",
            "trees": [_binary_parts(t) for t in model.trees],
            "nclass": int(model.nclass),
            "ylevels": _typed_values(list(model.ylevels)),
            "yprior": [float(v) for v in np.asarray(model.yprior, dtype=np.float64)],
            "call": str(getattr(model, "call", "")),
            "formula": getattr(model, "formula", None),
        }
    if isinstance(model, BsnsingModel):
        return _binary_parts(model)
    raise TypeError(f"expected a BsnsingModel or MBsnsingModel, not {type(model).__name__}")


def _num(value: Any) -> Any:
    vals = _as_list(value)
    if len(vals) != 1:
        raise ValueError(f"expected one value, got {len(vals)}")
    return vals[0]


def _reconstruct_y(nodes: list[Any], n: int) -> np.ndarray:
    """Training codes with the right count of 1s in every leaf (R does not store y).

    Fitted values, the confusion matrix and the tree are exact; which rows of a
    leaf were class 1 is not recorded by R and is not needed for prediction.
    """
    y = np.zeros(n, dtype=np.int64)
    for nd in nodes:
        if nd.lchild < 0:
            rows = np.sort(np.asarray(nd.obs, dtype=np.int64))
            y[rows[: nd.n1]] = 1
    return y


def _binary_from_parts(parts: Mapping[str, Any], design: Any = None) -> Any:
    from ..control import BsControl, bscontrol
    from ..design import design_from_dict
    from ..model import BsnsingModel
    from ..tree import Node

    raw_nodes = parts["tree.nodes"]
    if isinstance(raw_nodes, Mapping):
        raw_nodes = [raw_nodes]
    nodes = []
    for d in raw_nodes:
        nodes.append(Node(
            number=int(_num(d["node.number"])),
            parent=int(_num(d["node.parent"])),
            lchild=int(_num(d["node.lchild"])),
            rchild=int(_num(d["node.rchild"])),
            node_class=int(_num(d["node.class"])),
            prop=float(_num(d["node.prop"])),
            nobs=int(_num(d["node.nobs"])),
            n1=int(_num(d["node.n1"])),
            n0=int(_num(d["node.n0"])),
            prob=float(_num(d["node.prob"])),
            obs=np.asarray(_as_list(d["node.obs"]), dtype=np.int64) - 1,
            split_rule=str(_num(d["node.split.rule"])),
            split_target=int(_num(d["node.split.target"])),
            w1=float(_num(d["node.w1"])) if d.get("node.w1") is not None else None,
            w0=float(_num(d["node.w0"])) if d.get("node.w0") is not None else None,
        ))
    nodes.sort(key=lambda nd: nd.number)
    by = {nd.number: nd for nd in nodes}
    for nd in nodes:  # depth from the parent chain (nodes are numbered parent-first)
        nd.depth = 0 if nd.parent < 0 else by[nd.parent].depth + 1
    root = by[0]
    n = int(root.nobs)
    ctrl_dict = parts.get("control")
    control = bscontrol(**dict(ctrl_dict)) if ctrl_dict else BsControl()
    node_size = parts.get("node.size")
    if node_size is None:
        node_size = control.node_size or int(math.floor(math.sqrt(n)))
    if design is None and parts.get("design.json"):
        design = design_from_dict(json.loads(str(_num(parts["design.json"]))))
    ycode_raw = parts["ycode"]
    if isinstance(ycode_raw, Mapping) and "kind" in ycode_raw:
        ycode = _untyped(ycode_raw)
    else:
        ycode = [plain(v) for v in _as_list(ycode_raw)]
    call = parts.get("call")
    formula = parts.get("formula")
    return BsnsingModel(nodes=nodes, ycode=ycode, y=_reconstruct_y(nodes, n), control=control,
                        node_size=int(_num(node_size)), design=design,
                        call=str(_num(call)) if call else "bsnsing()",
                        formula=str(_num(formula)) if formula else None)


def model_from_r_parts(parts: Mapping[str, Any], design: Any = None) -> Any:
    """Rebuild a pybsnsing model from :func:`model_to_r_parts` output (or R's fields).

    ``parts`` may also be an R bsnsing object's fields as they arrive from R
    (``tree.nodes``, ``ycode``, ...) without pybsnsing's extras; then the
    control is the default, and prediction needs ``design`` (e.g. from
    :func:`pybsnsing.design.build_design` on the training data).
    """
    from ..model import MBsnsingModel

    cls = parts.get("class")
    if isinstance(cls, (list, tuple)):
        cls = "mbsnsing" if "mbsnsing" in cls else (cls[0] if cls else None)
    if cls == "mbsnsing" or "trees" in parts:
        trees_raw = parts["trees"]
        if isinstance(trees_raw, Mapping):
            trees_raw = [trees_raw]
        trees = [_binary_from_parts(t, design) for t in trees_raw]
        yl = parts["ylevels"]
        ylevels = _untyped(yl) if isinstance(yl, Mapping) and "kind" in yl else [
            plain(v) for v in _as_list(yl)]
        yprior = np.asarray(_as_list(parts["yprior"]), dtype=np.float64)
        call = parts.get("call")
        formula = parts.get("formula")
        return MBsnsingModel(trees=trees, ylevels=ylevels, yprior=yprior,
                             call=str(_num(call)) if call else "bsnsing()",
                             formula=str(_num(formula)) if formula else None)
    return _binary_from_parts(parts, design)


def predict_to_r(model: Any, newdata: pd.DataFrame, type: str = "prob",
                 impute: bool = False) -> dict[str, Any]:
    """Predictions as plain lists for R.

    Returns ``{"values": [...]}`` for a two-class model (probabilities, or
    labels typed like ``ycode``) and, for a multi-class model with
    ``type="prob"``, ``{"columns": [[...], ...]}`` (one list per class in
    ``ylevels`` order) instead.
    """
    out = model.predict(newdata, type=type, impute=impute)
    arr = np.asarray(out)
    if type == "prob":
        arr = arr.astype(np.float64)
        if arr.ndim == 2:
            return {"columns": [arr[:, k].tolist() for k in range(arr.shape[1])]}
        return {"values": arr.tolist()}
    return {"values": _typed_values(arr.tolist())["values"] if arr.size else []}


def call_capturing_warnings(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> dict:
    """Call ``fn`` and return ``{"value": result, "warnings": [messages]}``.

    The R package re-raises the messages as R warnings (Python warnings would
    otherwise go to stderr, or nowhere, inside R).
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        value = fn(*args, **kwargs)
    messages = []
    for w in caught:
        text = str(w.message)
        if text not in messages:
            messages.append(text)
    return {"value": value, "warnings": messages}


def external_rules_for_r(columns: Sequence[Sequence[float] | float], names: Sequence[str] | str,
                         y: Sequence[float] | float) -> list[str]:
    """R bsnsing's ``import_external_rules(x, y)`` for the R package.

    ``columns`` are the numeric columns of ``x`` (a list of plain lists, as
    reticulate passes an R list of vectors), ``names`` their names and ``y``
    the 0/1 response. Returns the question texts rpart (``maxdepth = 2``)
    proposes, computed natively by
    :func:`pybsnsing.external.external_questions`: every ``"v < c"``, then
    every ``"v >= c"``, in rpart's split-table order.
    """
    from ..external import external_questions

    names = [str(n) for n in _as_list(names)]
    cols = [_as_list(c) for c in _as_list(columns)]
    yv = np.asarray(_as_list(y), dtype=np.float64)
    X = (np.column_stack([np.asarray(c, dtype=np.float64) for c in cols]) if cols
         else np.empty((yv.shape[0], 0)))
    texts, _ = external_questions(X, names, yv)
    return list(texts)


def numeric_cuts_for_r(x: Sequence[float] | float, name: str, y: Sequence[float] | float,
                       target: int, segments: float, node_size: float) -> dict[str, Any]:
    """R bsnsing's ``binarize.numeric`` for the R package: the cuts of one column.

    Returns ``{"kind", "texts", "gt", "lt"}``: ``kind`` is ``"cuts"``,
    ``"perfect"`` or ``"empty"`` (:func:`pybsnsing.questions.numeric_cuts`),
    ``texts`` the column names (or the perfect rule) R writes, ``gt``/``lt``
    the exact ``>`` and ``<`` cuts (ascending) whose 0/1 columns R builds.
    """
    from ..questions import numeric_cuts

    res = numeric_cuts(np.asarray(_as_list(x), dtype=np.float64),
                       np.asarray(_as_list(y), dtype=np.float64), target, segments,
                       node_size)
    return {"kind": res.kind, "texts": res.texts(str(name)),
            "gt": res.gt.tolist(), "lt": res.lt.tolist()}


def enum_search_for_r(nrows: int, ncols: int, y: Sequence[int] | int, x: Sequence[int] | int,
                      grp: Sequence[int] | int, max_rules: int, max_time: float,
                      node_size: int, no_same_gender_children: bool) -> dict[str, Any]:
    """R bsnsing's ``rcpp_bslearn`` for the R package, by :func:`pybsnsing.search.enum_search`.

    ``x`` is the 0/1 question matrix as R stores it (column after column),
    ``grp`` the group of each column. Returns R's list: ``sol_cols`` (0-based
    columns of the best rule), ``sol_n_cols``, ``sol_vbest`` (its objective
    value; ``n0*n1/2`` when no rule was found) and ``neval``.
    """
    from ..search import enum_search

    nrows, ncols = int(nrows), int(ncols)
    xv = np.asarray(_as_list(x), dtype=np.int64)
    if xv.shape[0] != nrows * ncols:
        raise ValueError(f"input_x has {xv.shape[0]} values, but nrows * ncols is "
                         f"{nrows * ncols}")
    B = xv.reshape((ncols, nrows)).T if nrows * ncols else np.zeros((nrows, ncols), np.int64)
    res = enum_search(B, np.asarray(_as_list(y), dtype=np.int64),
                      np.asarray(_as_list(grp), dtype=np.int64), max_rules=int(max_rules),
                      node_size=int(node_size),
                      no_same_gender_children=bool(no_same_gender_children),
                      time_limit=float(max_time), solver="enum_c")
    return {"sol_cols": [int(c) for c in res.cols], "sol_n_cols": len(res.cols),
            "sol_vbest": float(res.objval), "neval": int(res.neval)}
