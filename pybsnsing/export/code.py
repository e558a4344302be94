"""Rules out: the tree as text (scikit-learn's ``export_text`` shape), as the source of a
Python function and as an SQL ``CASE`` expression.

:func:`to_python` and :func:`to_sql` give exactly what ``model.predict(newdata)``
gives (``impute=False``, the default): they work on the ORIGINAL predictor columns
(not the design matrix) and rebuild each design column the tree uses as
:func:`pybsnsing.design.design_for_newdata` does:

* a numeric column as it is;
* a factor dummy (``Cell.shape2``): missing -> missing; otherwise 1 when the value,
  as R's ``as.character`` writes it, is the level, else 0 -- so an UNSEEN level is 0
  in every dummy of its factor, as in R (and ``predict``);
* a logical column (``gTRUE``): R's ``as.logical`` (``"T"``, ``"true"``, ... read as
  R reads them; other strings missing);
* an ordered factor's polynomial column (``o.L``): the ``contr.poly`` value of the
  level; missing or unseen -> missing.

Then every question is asked as ``predict`` asks it: a question on a missing value is
FALSE (so the row goes right unless another question of the OR-rule is TRUE).
Transform terms (``log(Age)``, ``a:b``) are not exported (an error says so).

* Python: ``to_python(model)`` returns the source of a module defining
  ``predict_row(row)`` (``row`` any mapping from column name to value: a ``dict``, a
  pandas row, ``df.to_dict("records")[i]``; missing values ``None``, ``NaN`` or
  ``pd.NA``). It uses the standard library only; where pybsnsing is importable it
  formats numbers with R's ``as.character`` from :mod:`pybsnsing.rformat`, elsewhere
  with an equivalent 15-significant-digit rule (which can differ from R's only for a
  number that is a rounding tie at the 15th digit, matched against a factor level).
* SQL: ``to_sql(model)`` returns a ``CASE`` expression over the columns (identifiers
  double-quoted, standard SQL; ``NULL`` is the missing value and behaves as ``NA``:
  ``NULL > 1`` is not TRUE, ``NULL OR TRUE`` is TRUE). A factor column is compared
  with its levels as text (``"f" = 'b'``). A question ``x=='3'`` that bsnsing asks of
  a numeric column with few values (R compares ``as.character(x)``) becomes
  ``x IN (3)``: the same unless a value differs from 3 only beyond the 15th digit.
  For three or more classes the expression gives the class (``type="class"``): the
  class trees' probabilities times the class priors, the first largest. An optimal
  (MurTree) tree of three or more classes gives with ``type="prob"`` a select list, one
  ``CASE`` per class named by it.

:func:`export_text` is for reading, not for evaluation: ``digits`` rounds the cut
points it shows (the rule texts otherwise, exactly as the model stores them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from ..errors import PybsnsingTypeError, PybsnsingValueError

__all__ = ["compile_python", "export_text", "to_python", "to_sql"]


def _kind(model: Any) -> str:
    from ..model import BsnsingModel, MBsnsingModel
    from ..optimal.model import OptimalTreeModel

    if isinstance(model, BsnsingModel):
        return "binary"
    if isinstance(model, MBsnsingModel):
        return "multi"
    if isinstance(model, OptimalTreeModel):
        return "optimal"
    inner = getattr(model, "model_", None)
    if inner is not None:
        return _kind(inner)
    raise PybsnsingTypeError(
        f"expected a fitted pybsnsing tree model, got {type(model).__name__}")


def _unwrap(model: Any) -> Any:
    """The pybsnsing model (``model_`` of a fitted BsnsingClassifier)."""
    from ..model import BsnsingModel, MBsnsingModel
    from ..optimal.model import OptimalTreeModel

    if isinstance(model, (BsnsingModel, MBsnsingModel, OptimalTreeModel)):
        return model
    inner = getattr(model, "model_", None)
    if inner is None:
        raise PybsnsingTypeError(
            f"expected a fitted pybsnsing tree model, got {type(model).__name__}")
    return inner


def _check_type(type: str) -> None:
    if type not in ("class", "prob"):
        raise PybsnsingValueError(f"type must be 'class' or 'prob', got {type!r}")


# ---------------------------------------------------------------------------
# text
# ---------------------------------------------------------------------------



def _round_rule(rule: str, digits: int | None) -> str:
    if digits is None:
        return rule
    from ..rules import parse_rule

    parts = []
    for q in parse_rule(rule):
        if q.op in (">", "<", ">=", "<="):
            parts.append(f"{q.label} {q.op} {float(q.value):.{digits}g}")
        elif q.op == "==" and not isinstance(q.value, str):
            parts.append(f"{q.label}=={q.literal}")
        elif q.op == "==":
            parts.append(f"{q.label}=='{q.value}'")
        else:
            parts.append(f"{q.label}%in%c(" + ",".join(f"'{v}'" for v in q.values) + ")")
    return " | ".join(parts)


def _bsnsing_text(tree: Any, digits: int | None, spacing: int, show_proportion: bool,
                  label: Any = None) -> list[str]:
    from ..rformat import as_character

    by = {nd.number: nd for nd in tree.nodes}
    lines: list[str] = []
    bar = "|" + " " * spacing

    def leaf_text(nd: Any) -> str:
        cls = as_character(tree.ycode[nd.node_class])
        extra = f" (prob {nd.prob:.4f}, n {nd.nobs})" if show_proportion else ""
        return f"class: {cls}{extra}"

    def visit(nd: Any, depth: int) -> None:
        indent = bar * depth + "|" + "-" * spacing + " "
        if nd.is_leaf:
            lines.append(indent + leaf_text(nd))
            return
        rule = _round_rule(nd.split_rule, digits)
        lines.append(indent + rule)
        visit(by[nd.lchild], depth + 1)
        lines.append(indent + f"not ({rule})")
        visit(by[nd.rchild], depth + 1)

    root = by[0]
    if root.is_leaf:
        lines.append("|" + "-" * spacing + " " + leaf_text(root))
    else:
        visit(root, 0)
    return lines


def _optimal_text(model: Any, spacing: int, show_proportion: bool) -> list[str]:
    lines: list[str] = []
    bar = "|" + " " * spacing

    def visit(nd: Any, depth: int) -> None:
        indent = bar * depth + "|" + "-" * spacing + " "
        if nd.is_leaf:
            extra = ""
            if show_proportion:
                props = ", ".join(f"{p:.4f}" for p in nd.counts / max(nd.n, 1))
                extra = f" ({props}; n {nd.n})"
            lines.append(indent + f"class: {model.classes_[nd.prediction]}{extra}")
            return
        lines.append(indent + model._condition(nd, False))
        visit(model.nodes[nd.left], depth + 1)
        lines.append(indent + model._condition(nd, True))
        visit(model.nodes[nd.right], depth + 1)

    visit(model.nodes[0], 0)
    return lines


def export_text(model: Any, *, digits: int | None = None, spacing: int = 3,
                show_proportion: bool = False) -> str:
    """The tree as text, in scikit-learn's ``export_text`` shape::

        |--- Cell.size > 2.5 | Bare.nuclei > 5.5
        |   |--- class: malignant
        |--- not (Cell.size > 2.5 | Bare.nuclei > 5.5)
        |   |--- class: benign

    A rule TRUE goes to the first branch; the second is ``not (rule)``.

    Args:
        model: a BsnsingModel, MBsnsingModel (one block per class tree),
            OptimalTreeModel, or a fitted BsnsingClassifier.
        digits: significant digits of the cut points shown (None: the rule texts as
            stored, which are what the model evaluates).
        spacing: width of the indentation (scikit-learn's ``spacing``).
        show_proportion: add each leaf's share of the class coded 1 (bsnsing) or
            class shares (optimal trees) and its training rows.
    """
    if digits is not None and (isinstance(digits, bool) or not isinstance(digits, int)
                               or digits < 1):
        raise PybsnsingValueError(f"digits must be a positive integer or None, got {digits!r}")
    if isinstance(spacing, bool) or not isinstance(spacing, int) or spacing < 1:
        raise PybsnsingValueError(f"spacing must be a positive integer, got {spacing!r}")
    m = _unwrap(model)
    kind = _kind(m)
    if kind == "binary":
        lines = _bsnsing_text(m, digits, spacing, show_proportion)
    elif kind == "multi":
        from ..rformat import as_character

        lines = []
        for k, (t, lv) in enumerate(zip(m.trees, m.ylevels, strict=True), start=1):
            lines.append(f"Tree {k}: {as_character(lv)} vs all.other")
            lines.extend(_bsnsing_text(t, digits, spacing, show_proportion))
    else:
        lines = _optimal_text(m, spacing, show_proportion)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# design columns, shared by the Python and SQL writers
# ---------------------------------------------------------------------------


def _design_column(design: Any, label: str, name: str) -> tuple[int, tuple]:
    if design is None:
        raise PybsnsingValueError("this model has no design information; cannot export it")
    for key in (label, name):
        if key in design.names:
            j = design.names.index(key)
            term = design.terms[j]
            if term[0] == "transform":
                raise PybsnsingValueError(
                    f"the tree uses the transform term {design.names[j]!r}; to_python and "
                    "to_sql export numeric, factor, ordered-factor and logical columns only "
                    "(add the transformed column to the data and refit)")
            return j, term
    raise PybsnsingValueError(f"the rule's column {label!r} is not in the model's design")


def _poly_table(design: Any, var: str, k: int) -> dict[str, float]:
    from ..rcontrasts import contr_poly

    levels = design.factor_levels[var]
    contrasts, _ = contr_poly(len(levels))
    return {lv: float(contrasts[i, k]) for i, lv in enumerate(levels)}


# ---------------------------------------------------------------------------
# Python
# ---------------------------------------------------------------------------

_PY_HELPERS = '''\
import math

try:  # R's as.character of a number, when pybsnsing is installed
    from pybsnsing.rformat import format_r as _format_r
except ImportError:  # an equivalent 15-significant-digit rule
    def _format_r(x):
        x = float(x)
        if x != x:
            return "NaN"
        if math.isinf(x):
            return "Inf" if x > 0 else "-Inf"
        if x == 0.0:
            return "0"
        mant, _, expo = ("%.14e" % abs(x)).partition("e")
        digits = mant.replace(".", "").rstrip("0") or "0"
        nsig, kpower, neg = len(digits), int(expo), int(x < 0)
        left = kpower + 1
        rgt = max(nsig - left, 0)
        wf = (1 + neg if left < 0 else neg + (1 if left <= 0 else left)) + rgt + (rgt != 0)
        d = nsig - 1
        we = neg + (d > 0) + d + 4 + (2 if (left > 100 or left <= -99) else 1)
        if wf <= we:
            return "%.*f" % (rgt, x)
        m, _, e = ("%.*e" % (d, x)).partition("e")
        return m + "e" + e[0] + e[1:].rjust(2, "0")


def _scalar(v):
    item = getattr(v, "item", None)
    if item is not None and type(v).__module__ == "numpy":
        return item()
    return v


def _na(v):
    if v is None:
        return True
    try:
        return bool(v != v)
    except TypeError:  # pandas' NA
        return True


def _chr(v):
    """R's as.character of a (non-missing) value."""
    v = _scalar(v)
    if isinstance(v, str):
        return v
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float)):
        return _format_r(float(v))
    return str(v)


def _num(v):
    v = _scalar(v)
    if _na(v):
        return math.nan
    if isinstance(v, bool):
        return float(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return math.nan


def _dummy(v, level):
    if _na(v):
        return math.nan
    return 1.0 if _chr(v) == level else 0.0


_LOGICAL = {"TRUE": 1.0, "true": 1.0, "True": 1.0, "T": 1.0,
            "FALSE": 0.0, "false": 0.0, "False": 0.0, "F": 0.0}


def _lgl(v):
    v = _scalar(v)
    if _na(v):
        return math.nan
    if isinstance(v, (bool, int, float)):
        return float(v != 0)
    return _LOGICAL.get(_chr(v), math.nan)


def _level(v, table):
    if _na(v):
        return math.nan
    return table.get(_chr(v), math.nan)


def _is(x, texts):
    return x == x and _format_r(x) in texts
'''


def _py_column(design: Any, term: tuple, j: int) -> str:
    kind = term[0]
    var = repr(term[1])
    if kind == "numeric":
        return f"_num(row[{var}])"
    if kind == "dummy":
        return f"_dummy(row[{var}], {term[2]!r})"
    if kind == "logical":
        if len(term) > 2 and term[2] == 0:
            return f"(lambda x: x if x != x else 1.0 - x)(_lgl(row[{var}]))"
        return f"_lgl(row[{var}])"
    if kind == "poly":
        return f"_level(row[{var}], {_poly_table(design, term[1], term[2])!r})"
    raise PybsnsingValueError(f"cannot export the design term {term!r}")  # pragma: no cover


def _numeric_test(q: Any, x: str, num: Any, eq: str) -> tuple[str | None, list | None]:
    """(the code of a numeric comparison, None), or (None, the texts of a text test):
    ``num`` writes a number, ``eq`` is the language's equality operator."""
    if q.op in (">", "<", ">=", "<="):
        return f"{x} {q.op} {num(q.value)}", None
    if q.op == "==" and not isinstance(q.value, str):
        return f"{x} {eq} {num(q.value)}", None
    return None, [q.value] if q.op == "==" else list(q.values)


def _py_question(q: Any, x: str) -> str:
    code, texts = _numeric_test(q, x, lambda v: repr(float(v)), "==")
    return code if texts is None else f"_is({x}, {frozenset(texts)!r})"


class _PyWriter:
    def __init__(self, design: Any) -> None:
        self.design = design
        self.columns: dict[int, str] = {}  # design column -> local name
        self.column_code: list[str] = []

    def local(self, q: Any) -> str:
        j, term = _design_column(self.design, q.label, q.name)
        if j not in self.columns:
            name = f"x{j}"
            self.columns[j] = name
            self.column_code.append(f"    {name} = {_py_column(self.design, term, j)}"
                                    f"  # {self.design.names[j]}")
        return self.columns[j]

    def tree(self, tree: Any, leaf: Any, indent: int) -> list[str]:
        from ..rules import parse_rule

        by = {nd.number: nd for nd in tree.nodes}
        out: list[str] = []

        def visit(nd: Any, depth: int) -> None:
            pad = "    " * depth
            if nd.is_leaf:
                out.append(f"{pad}{leaf(nd)}")
                return
            cond = " or ".join(_py_question(q, self.local(q)) for q in parse_rule(nd.split_rule))
            out.append(f"{pad}if {cond}:  # {nd.split_rule}")
            visit(by[nd.lchild], depth + 1)
            out.append(f"{pad}else:")
            visit(by[nd.rchild], depth + 1)

        visit(by[0], indent)
        return out


def to_python(model: Any, *, type: str = "class", name: str = "predict_row") -> str:
    """The tree as the source of a Python module defining ``name(row)``.

    Args:
        model: a BsnsingModel, MBsnsingModel, OptimalTreeModel or fitted BsnsingClassifier
            (for the classifier, rows are keyed by ``model_feature_names_``).
        type: ``"class"`` (the label) or ``"prob"`` (the probability of the class
            coded 1 for two classes; a tuple in class order for more classes or an
            optimal tree), as ``predict(type=...)``.
        name: the function's name.

    Returns:
        Python source; ``compile_python(model)`` runs it and returns the function.
        ``row`` is a mapping of the original predictor columns (an optimal tree: of
        its binary feature columns).
    """
    _check_type(type)
    if not isinstance(name, str) or not name.isidentifier():
        raise PybsnsingValueError(f"name must be a Python identifier, got {name!r}")
    m = _unwrap(model)
    kind = _kind(m)
    body: list[str] = []
    if kind == "optimal":
        return _optimal_python(m, type, name)
    if kind == "binary":
        w = _PyWriter(m.design)
        if type == "class":
            def leaf(nd: Any) -> str:
                return f"return {_py_value(m.ycode[nd.node_class])}"
        else:
            def leaf(nd: Any) -> str:
                return f"return {float(nd.prob)!r}"
        lines = w.tree(m, leaf, 1)
        body = w.column_code + lines
    else:
        w = _PyWriter(m.trees[0].design)
        K = m.nclass
        for k, t in enumerate(m.trees):
            body.append(f"    def _p{k}():")
            sub = w.tree(t, lambda nd: f"return {float(nd.prob)!r}", 2)
            body.extend(sub)
        body = w.column_code + body
        prods = [f"_p{k}() * {float(m.yprior[k])!r}" for k in range(K)]
        body.append(f"    P = [{', '.join(prods)}]")
        body.append("    s = 0.0")
        body.append("    for v in P:")
        body.append("        s += v")
        body.append("    P = [v / s for v in P] if s > 0 else [0.0] * len(P)")
        if type == "prob":
            body.append("    return tuple(P)")
        else:
            labels = "[" + ", ".join(_py_value(v) for v in m.ylevels) + "]"
            body.append(f"    return {labels}[max(range(len(P)), key=P.__getitem__)]")
    head = [f"# {_kind_title(kind)} exported by pybsnsing (type={type!r})", _PY_HELPERS, "",
            f"def {name}(row):",
            f'    """{"Class" if type == "class" else "Probability"} of one row '
            '(a mapping from column name to value)."""']
    return "\n".join(head + body) + "\n"


def _kind_title(kind: str) -> str:
    return {"binary": "a bsnsing tree", "multi": "bsnsing trees (one per class)",
            "optimal": "an optimal tree"}[kind]


def _py_value(v: Any) -> str:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return f"float({str(v)!r})"
    return repr(v)


def _optimal_python(m: Any, type: str, name: str) -> str:
    out = [f"# {_kind_title('optimal')} exported by pybsnsing (type={type!r})", "",
           f"def {name}(row):",
           '    """Prediction of one row (a mapping from binary feature name to 0/1)."""']

    def visit(nd: Any, depth: int) -> None:
        pad = "    " * depth
        if nd.is_leaf:
            if type == "class":
                out.append(f"{pad}return {_py_value(m.classes_[nd.prediction])}")
            else:
                probs = tuple(float(p) for p in nd.counts / max(nd.n, 1))
                out.append(f"{pad}return {probs!r}")
            return
        out.append(f"{pad}if row[{str(nd.feature_name)!r}] == 1:")
        visit(m.nodes[nd.right], depth + 1)
        out.append(f"{pad}else:")
        visit(m.nodes[nd.left], depth + 1)

    visit(m.nodes[0], 1)
    return "\n".join(out) + "\n"


def compile_python(model: Any, *, type: str = "class", name: str = "predict_row") -> Any:
    """Run :func:`to_python`'s source and return the function it defines."""
    src = to_python(model, type=type, name=name)
    namespace: dict[str, Any] = {"__name__": "pybsnsing_exported_tree"}
    exec(compile(src, f"<pybsnsing tree {name}>", "exec"), namespace)  # noqa: S102
    return namespace[name]


# ---------------------------------------------------------------------------
# SQL
# ---------------------------------------------------------------------------


def _sql_ident(name: str) -> str:
    return '"' + str(name).replace('"', '""') + '"'


def _sql_str(s: str) -> str:
    return "'" + str(s).replace("'", "''") + "'"


def _sql_num(v: float) -> str:
    v = float(v)
    if not math.isfinite(v):
        raise PybsnsingValueError(f"cannot write the number {v!r} in SQL")
    return repr(v)


def _sql_value(v: Any) -> str:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return "1" if v else "0"
    if isinstance(v, (int, float)):
        return _sql_num(v) if isinstance(v, float) else str(v)
    return _sql_str(str(v))


def _sql_column(design: Any, term: tuple, names: Mapping[str, str]) -> str:
    kind = term[0]
    col = _sql_ident(names.get(term[1], term[1]))
    if kind == "numeric":
        return col
    if kind == "dummy":
        return f"(CASE WHEN {col} IS NULL THEN NULL WHEN {col} = {_sql_str(term[2])} " \
               "THEN 1.0 ELSE 0.0 END)"
    if kind == "logical":
        one, zero = ("0.0", "1.0") if len(term) > 2 and term[2] == 0 else ("1.0", "0.0")
        return f"(CASE WHEN {col} IS NULL THEN NULL WHEN {col} THEN {one} ELSE {zero} END)"
    if kind == "poly":
        table = _poly_table(design, term[1], term[2])
        whens = " ".join(f"WHEN {_sql_str(lv)} THEN {_sql_num(v)}" for lv, v in table.items())
        return f"(CASE {col} {whens} ELSE NULL END)"
    raise PybsnsingValueError(f"cannot export the design term {term!r}")  # pragma: no cover


def _ordered(v: float) -> int:
    """Doubles as integers in the same order (for stepping between neighbours)."""
    b = int(np.float64(v).view(np.int64))
    return b if b >= 0 else -(b & 0x7FFFFFFFFFFFFFFF)


def _unordered(k: int) -> float:
    b = k if k >= 0 else (-k) | -0x8000000000000000
    return float(np.int64(b).view(np.float64))


def _preimage(text: str) -> tuple[float, float] | None:
    """The doubles R's ``as.character`` writes as ``text``: an interval ``[lo, hi]``
    (rounding to 15 significant digits is monotone), or None when no double is."""
    from ..rformat import format_r

    try:
        v = float(text)
    except ValueError:
        return None
    if not math.isfinite(v) or format_r(v) != text:
        return None
    k = _ordered(v)

    def edge(direction: int) -> int:
        good, step = k, 1
        while format_r(_unordered(good + direction * step)) == text:
            good += direction * step
            step *= 2
        bad = good + direction * step  # format_r differs here; the edge lies between
        while abs(bad - good) > 1:
            mid = (good + bad) // 2
            if format_r(_unordered(mid)) == text:
                good = mid
            else:
                bad = mid
        return good

    return _unordered(edge(-1)), _unordered(edge(1))


def _sql_question(q: Any, x: str) -> str:
    code, texts = _numeric_test(q, x, _sql_num, "=")
    if texts is None:
        return code
    # R compares as.character(x) with the texts: x within the numbers written so
    parts = []
    for t in texts:
        span = _preimage(t)
        if span is None:
            continue  # a text no number prints as: never TRUE on a numeric column
        lo, hi = span
        parts.append(f"{x} = {_sql_num(lo)}" if lo == hi
                     else f"{x} BETWEEN {_sql_num(lo)} AND {_sql_num(hi)}")
    if not parts:
        return "1 = 0"
    return "(" + " OR ".join(parts) + ")"


def _sql_tree(tree: Any, design: Any, leaf: Any, indent: int,
              names: Mapping[str, str]) -> str:
    from ..rules import parse_rule

    by = {nd.number: nd for nd in tree.nodes}

    def visit(nd: Any, depth: int) -> str:
        if nd.is_leaf:
            return leaf(nd)
        pad = "  " * (depth + 1)
        conds = []
        for q in parse_rule(nd.split_rule):
            _, term = _design_column(design, q.label, q.name)
            conds.append(_sql_question(q, _sql_column(design, term, names)))
        cond = " OR ".join(conds)
        return (f"CASE WHEN ({cond})\n{pad}THEN {visit(by[nd.lchild], depth + 1)}\n"
                f"{pad}ELSE {visit(by[nd.rchild], depth + 1)} END")

    return visit(by[0], indent)


def to_sql(model: Any, *, type: str = "class",
           column_names: Mapping[str, str] | None = None) -> str:
    """The tree as an SQL ``CASE`` expression over the original predictor columns.

    Use it in a query: ``SELECT <expression> AS prediction FROM my_table``.

    Args:
        model: a BsnsingModel, MBsnsingModel (``type="class"`` only),
            OptimalTreeModel (over its binary feature columns) or fitted
            BsnsingClassifier.
        type: ``"class"`` (the label) or ``"prob"`` (two classes: the probability of
            the class coded 1; an optimal tree with two classes: of ``classes_[1]``;
            an optimal tree with three or more classes: one ``CASE`` per class, in
            ``classes_`` order, each named by its class, ``CASE ... END AS "a",
            CASE ... END AS "b", ...``, a select list equal to ``predict``'s columns).
        column_names: the SQL column of a data column where the names differ
            (e.g. ``{"petal length": "petal_length"}``); others keep their names.
    """
    _check_type(type)
    names = dict(column_names or {})
    m = _unwrap(model)
    kind = _kind(m)
    if kind == "binary":
        if type == "class":
            def leaf(nd: Any) -> str:
                return _sql_value(m.ycode[nd.node_class])
        else:
            def leaf(nd: Any) -> str:
                return _sql_num(nd.prob)
        return _sql_tree(m, m.design, leaf, 0, names)
    if kind == "multi":
        if type != "class":
            raise PybsnsingValueError(
                "to_sql of a multi-class model gives the class only (type='class'); "
                "export each class tree (model.trees[k]) for its probability")
        design = m.trees[0].design
        scores = [f"(({_sql_tree(t, design, lambda nd: _sql_num(nd.prob), 1, names)}) * "
                  f"{_sql_num(m.yprior[k])})" for k, t in enumerate(m.trees)]
        K = len(scores)
        whens = []
        for k in range(K - 1):
            cond = " AND ".join(f"{scores[k]} >= {scores[j]}" for j in range(k + 1, K))
            whens.append(f"WHEN {cond} THEN {_sql_value(m.ylevels[k])}")
        return "CASE " + "\n".join(whens) + f"\nELSE {_sql_value(m.ylevels[-1])} END"
    # optimal
    def visit(nd: Any, depth: int, leaf: Any) -> str:
        if nd.is_leaf:
            return leaf(nd)
        pad = "  " * (depth + 1)
        feature = str(nd.feature_name)
        return (f"CASE WHEN {_sql_ident(names.get(feature, feature))} = 1\n"
                f"{pad}THEN {visit(m.nodes[nd.right], depth + 1, leaf)}\n"
                f"{pad}ELSE {visit(m.nodes[nd.left], depth + 1, leaf)} END")

    def share(k: int) -> Any:  # a leaf's share of class k: predict's probability
        return lambda nd: _sql_num(nd.counts[k] / max(nd.n, 1))

    if type == "class":
        return visit(m.nodes[0], 0, lambda nd: _sql_value(m.classes_[nd.prediction]))
    if len(m.classes_) == 2:
        return visit(m.nodes[0], 0, share(1))
    return ",\n".join(f"{visit(m.nodes[0], 0, share(k))} AS {_sql_ident(c)}"
                       for k, c in enumerate(m.classes_))
