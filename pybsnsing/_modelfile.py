"""Checking a model dictionary (a parsed JSON model file) before it is used.

:func:`check_model_dict` walks the structure :meth:`BsnsingModel.to_dict` and
:meth:`MBsnsingModel.to_dict` write and raises
:class:`~pybsnsing.errors.ModelFileError` ("not a valid pybsnsing model file:
<reason>") at the first thing that is missing, of the wrong type, out of range
or inconsistent (a child that does not exist, a rule naming no design column,
a formula term outside the fixed grammar). Nothing in the file is executed.
"""

from __future__ import annotations

import math
from typing import Any

from .errors import ModelFileError, PybsnsingError

__all__ = ["check_model_dict"]

_BIG = 2**53
_LABEL = (str, bool, int, float)


def _fail(where: str, why: str) -> ModelFileError:
    return ModelFileError(f"{where}: {why}" if where else why)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and -_BIG <= v <= _BIG


def _is_num(v: Any) -> bool:
    return (isinstance(v, (int, float)) and not isinstance(v, bool)
            and (not isinstance(v, int) or -_BIG <= v <= _BIG))


def _is_value(v: Any) -> bool:
    """A number of the design matrix: a JSON number, or ``"Inf"``/``"-Inf"``."""
    return _is_num(v) or v in ("Inf", "-Inf")


def _need(d: dict, key: str, where: str) -> Any:
    if key not in d:
        raise _fail(where, f"the field {key!r} is missing")
    return d[key]


def _int(d: dict, key: str, where: str, lo: int | None = None) -> int:
    v = _need(d, key, where)
    if not _is_int(v):
        raise _fail(where, f"{key!r} must be a whole number, got {_short(v)}")
    if lo is not None and v < lo:
        raise _fail(where, f"{key!r} must be at least {lo}, got {v}")
    return v


def _short(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _list(d: dict, key: str, where: str) -> list:
    v = _need(d, key, where)
    if not isinstance(v, list):
        raise _fail(where, f"{key!r} must be a list, got {type(v).__name__}")
    return v


def _labels(values: list, where: str, key: str) -> None:
    for v in values:
        if not isinstance(v, _LABEL) or isinstance(v, float) and not math.isfinite(v):
            raise _fail(where, f"{key!r} holds {_short(v)}, not a class label")
    if len(set(values)) != len(values):
        raise _fail(where, f"{key!r} has repeated classes {_short(values)}")


def check_model_dict(d: Any) -> None:
    """Raise :class:`ModelFileError` unless ``d`` is a valid model dictionary."""
    if not isinstance(d, dict):
        raise ModelFileError(
            f"the file must hold a JSON object (a saved model), not a JSON {_json_type(d)}")
    kind = d.get("type")
    if kind == "bsnsing":
        _check_binary(d, "")
    elif kind == "mbsnsing":
        _check_multi(d)
    else:
        raise ModelFileError(f"unknown model type {_short(kind)}: the 'type' must be "
                             "'bsnsing' or 'mbsnsing' (is this a pybsnsing model file?)")


def _json_type(v: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(v), type(v).__name__)


def _check_multi(d: dict) -> None:
    ylevels = _list(d, "ylevels", "")
    if len(ylevels) < 3:
        raise _fail("", f"'ylevels' must list at least 3 classes, got {_short(ylevels)}")
    _labels(ylevels, "", "ylevels")
    yprior = _list(d, "yprior", "")
    if len(yprior) != len(ylevels) or not all(
            _is_num(v) and math.isfinite(v) and v >= 0 for v in yprior):
        raise _fail("", "'yprior' must hold one non-negative number per class")
    trees = _list(d, "trees", "")
    if len(trees) != len(ylevels):
        raise _fail("", f"{len(trees)} trees for {len(ylevels)} classes")
    for k, t in enumerate(trees):
        where = f"tree {k + 1}"
        if not isinstance(t, dict) or t.get("type") != "bsnsing":
            raise _fail(where, "not a bsnsing tree")
        _check_binary(t, where)
    for key in ("call", "formula"):
        if d.get(key) is not None and not isinstance(d.get(key), str):
            raise _fail("", f"{key!r} must be a string")


def _check_binary(d: dict, where: str) -> None:
    from .design import design_from_dict

    ycode = _list(d, "ycode", where)
    if len(ycode) != 2:
        raise _fail(where, f"'ycode' must hold the 2 class labels, got {_short(ycode)}")
    _labels(ycode, where, "ycode")
    y = _list(d, "y", where)
    if not all(v in (0, 1) and not isinstance(v, float) for v in y):
        raise _fail(where, "'y' must hold the 0/1 codes of the training rows")
    for key in ("call", "formula"):
        if d.get(key) is not None and not isinstance(d.get(key), str):
            raise _fail(where, f"{key!r} must be a string")
    control = _need(d, "control", where)
    if not isinstance(control, dict):
        raise _fail(where, "'control' must be a JSON object")
    try:
        from .control import control_from_dict

        control_from_dict(control)
    except PybsnsingError as exc:
        raise _fail(where, f"control: {exc}") from None
    _int(d, "node_size", where, lo=0)
    design = d.get("design")
    names: set[str] | None = None
    if design is not None:
        _check_design(design, where, len(y))
        try:
            names = set(design_from_dict(design).names)
        except PybsnsingError as exc:
            raise _fail(where, f"design: {exc}") from None
    _check_nodes(_list(d, "nodes", where), where, len(y), names)


def _check_nodes(nodes: list, where: str, n_train: int, names: set[str] | None) -> None:
    from .rules import parse_rule

    if not nodes:
        raise _fail(where, "'nodes' is empty: a tree has at least its root node")
    parent_of: dict[int, int] = {}
    for k, nd in enumerate(nodes):
        at = f"{where + ', ' if where else ''}node {k}"
        if not isinstance(nd, dict):
            raise _fail(at, "not a JSON object")
        if _int(nd, "number", at) != k:
            raise _fail(at, f"nodes must be numbered 0, 1, 2, ... in order (got {nd['number']})")
        left, right = _int(nd, "lchild", at), _int(nd, "rchild", at)
        _int(nd, "parent", at, lo=-1)
        for key in ("nobs", "n1", "n0"):
            _int(nd, key, at, lo=0)
        if _int(nd, "node_class", at) not in (0, 1):
            raise _fail(at, "'node_class' must be 0 or 1")
        _int(nd, "split_target", at)
        if "depth" in nd:
            _int(nd, "depth", at)
        for key in ("prob", "prop"):
            v = _need(nd, key, at)
            if not _is_num(v) or not 0.0 <= v <= 1.0:
                raise _fail(at, f"{key!r} must be a number from 0 to 1, got {_short(v)}")
        rule = _need(nd, "split_rule", at)
        if not isinstance(rule, str):
            raise _fail(at, "'split_rule' must be a string")
        obs = nd.get("obs", [])
        if not isinstance(obs, list) or not all(_is_int(i) and 0 <= i < n_train for i in obs):
            raise _fail(at, "'obs' must list training row numbers")
        if left == -1 and right == -1:
            continue
        if not (k < left < len(nodes) and k < right < len(nodes) and left != right):
            raise _fail(at, f"a child ({left}, {right}) that is not a later node")
        for child in (left, right):
            if child in parent_of:
                raise _fail(at, f"node {child} is the child of two nodes")
            parent_of[child] = k
        if not rule.strip():
            raise _fail(at, "a node with children has no split rule")
        try:
            questions = parse_rule(rule)
        except PybsnsingError as exc:
            raise _fail(at, f"split rule: {exc}") from None
        if names is not None:
            for q in questions:
                if q.label not in names and q.name not in names:
                    raise _fail(at, f"the split rule {rule!r} uses {q.label!r}, which is not "
                                    "a column of the model's design")
    for child, parent in parent_of.items():
        if nodes[child]["parent"] != parent:
            raise _fail(f"{where + ', ' if where else ''}node {child}",
                        f"its parent is {parent}, not {nodes[child]['parent']}")


_TERM_ARITY = {"numeric": 2, "dummy": 3, "poly": 3, "logical": 2, "transform": 2, "formulaic": 3}


def _check_design(design: Any, where: str, n_train: int) -> None:
    from .formula import parse_expr

    at = f"{where + ', ' if where else ''}design"
    if not isinstance(design, dict):
        raise _fail(at, "must be a JSON object")
    names = _list(design, "names", at)
    if not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
        raise _fail(at, "'names' must be distinct strings")
    medians = _list(design, "medians", at)
    if len(medians) != len(names) or not all(m is None or _is_value(m) for m in medians):
        raise _fail(at, "'medians' must hold one number (or null) per column")
    terms = _list(design, "terms", at)
    if len(terms) != len(names):
        raise _fail(at, f"{len(terms)} terms for {len(names)} columns")
    variables = _list(design, "variables", at)
    if not all(isinstance(v, str) for v in variables):
        raise _fail(at, "'variables' must be strings")
    if not isinstance(_need(design, "response_name", at), str):
        raise _fail(at, "'response_name' must be a string")
    levels = _need(design, "factor_levels", at)
    if not isinstance(levels, dict) or not all(
            isinstance(v, list) and all(isinstance(s, str) for s in v) for v in levels.values()):
        raise _fail(at, "'factor_levels' must map factors to lists of strings")
    transforms = design.get("transforms", [])
    if not isinstance(transforms, list) or not all(
            isinstance(t, list) and t and all(isinstance(s, str) for s in t) for t in transforms):
        raise _fail(at, "'transforms' must be lists of expression texts")
    old = design.get("formulaic_terms", [])
    if not isinstance(old, list) or not all(isinstance(s, str) for s in old):
        raise _fail(at, "'formulaic_terms' must be expression texts")
    for text in [s for t in transforms for s in t] + old:
        try:
            expr = parse_expr(text)
        except PybsnsingError as exc:
            raise _fail(at, f"transform {text!r}: {exc}") from None
        for v in expr.variables():
            if v not in variables:
                raise _fail(at, f"transform {text!r} uses {v!r}, which is not a variable")
    for term in terms:
        if not isinstance(term, list) or not term or term[0] not in _TERM_ARITY:
            raise _fail(at, f"unknown term {_short(term)}")
        kind = term[0]
        if kind == "logical":
            ok = len(term) in (2, 3) and (len(term) == 2 or term[2] in (0, 1))
        else:
            ok = len(term) == _TERM_ARITY[kind]
        if not ok:
            raise _fail(at, f"malformed term {_short(term)}")
        if kind in ("transform", "formulaic"):
            pool = transforms if kind == "transform" else old
            if not _is_int(term[1]) or not 0 <= term[1] < len(pool):
                raise _fail(at, f"term {_short(term)} refers to no transform")
            continue
        var = term[1]
        if not isinstance(var, str) or var not in variables:
            raise _fail(at, f"term {_short(term)} uses a column that is not a variable")
        if kind in ("dummy", "poly"):
            if var not in levels:
                raise _fail(at, f"term {_short(term)}: no levels for the factor {var!r}")
            if kind == "dummy" and term[2] not in levels[var]:
                raise _fail(at, f"term {_short(term)}: {term[2]!r} is not a level of {var!r}")
            if kind == "poly" and not (_is_int(term[2]) and 0 <= term[2] < len(levels[var]) - 1):
                raise _fail(at, f"term {_short(term)}: no such polynomial column")
    X = design.get("X")
    if X is not None:
        if not isinstance(X, list) or not all(
                isinstance(row, list) and len(row) == len(names)
                and all(_is_value(v) for v in row) for row in X):
            raise _fail(at, f"'X' must be a matrix of numbers with {len(names)} columns")
        if len(X) not in (0, n_train) and names:
            raise _fail(at, f"'X' has {len(X)} rows for {n_train} training rows")
