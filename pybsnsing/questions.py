"""Binarization: turning a node's columns into yes/no questions (R's ``binarize``).

This mirrors ``binarize``, ``binarize.numeric`` and ``binarize.factor`` of R
bsnsing 1.0.1 (spec §3, golden README Q5, Q10, Q12):

* a *binary* column (every value 0 or 1 at the node) gives ``name==0`` and
  ``name==1`` (no quotes);
* a *numeric* column gives inequality questions ``name > c`` / ``name < c``
  from :func:`numeric_cuts`, ``c`` printed by :func:`~pybsnsing.rformat.format_r`;
  a perfectly separating column gives none (Q5) unless ``keep_perfect``;
* a *factor-like* column (a factor, or a non-binary numeric with at most
  ``num2factor`` distinct values at the node) gives ``name=='v'`` for EVERY value
  in order of first appearance (small ones included, as 1.0.1 does), plus one
  ``name%in%c('a','b')`` listing the values with fewer than ``bin_size`` rows
  (sorted ``table`` order); a numeric factor-like column gets both kinds.

Two details differ from bsnsing's development versions on GitHub and follow the
CRAN 1.0.1 source: a perfect separation with ``min(n1, n0) < node_size`` gives
no rule (``"empty"``), and the thinning of cuts never stops early, so more than
``segments`` cuts can remain.

Question order: all numeric columns' inequality questions (column by column,
``>`` cuts ascending then ``<`` cuts ascending), then all factor-like columns'
equality questions, then the binary columns' questions.

The answers in :class:`QuestionSet.B` use the EXACT cut doubles, as R's
question matrix does; re-evaluating the TEXT (see :mod:`pybsnsing.rules`) uses
the printed 15-digit value instead (Q6).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .kernels.binarize import thin_gt_kernel, thin_lt_kernel
from .rformat import format_r

__all__ = [
    "NumericCuts",
    "QuestionSet",
    "binarize",
    "binarize_numeric",
    "node_questions",
    "numeric_cuts",
]

_EMPTY = np.empty(0, dtype=np.float64)


class NumericCuts(NamedTuple):
    """Result of :func:`numeric_cuts` for one numeric column.

    ``kind`` is ``"cuts"``, ``"perfect"`` or ``"empty"``.  ``gt``/``lt`` hold the
    exact ``>`` and ``<`` cut doubles, ascending (empty unless ``kind == "cuts"``).
    For ``"perfect"``, ``perfect_op`` is ``">="`` or ``"<="`` and ``perfect_cut``
    the exact cut: R's rule string is ``f"{name} {perfect_op} {format_r(cut)}"``.
    """

    kind: str
    gt: np.ndarray
    lt: np.ndarray
    perfect_op: str = ""
    perfect_cut: float = float("nan")

    def texts(self, name: str) -> list[str]:
        """The question texts R writes for this result (column names or the rule)."""
        if self.kind == "perfect":
            return [f"{name} {self.perfect_op} {format_r(self.perfect_cut)}"]
        return [f"{name} > {format_r(c)}" for c in self.gt.tolist()] + [
            f"{name} < {format_r(c)}" for c in self.lt.tolist()
        ]


@dataclass
class QuestionSet:
    """The candidate questions of one node.

    Attributes:
        B: ``uint8`` matrix (n rows x m questions, Fortran order) of answers,
            computed with the exact cut doubles.
        texts: the m question texts, exactly as R writes them.
        cols: for each question, the index of the input column it comes from.
    """

    B: np.ndarray
    texts: list[str]
    cols: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))

    @property
    def m(self) -> int:
        """Number of questions."""
        return len(self.texts)


# ---------------------------------------------------------------------------
# validation helpers
# ---------------------------------------------------------------------------


def _as_y(y: Any, n: int) -> np.ndarray:
    """Validate a 0/1 response of length ``n``; return it as int8."""
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"y must be one-dimensional, got shape {arr.shape}")
    if arr.shape[0] != n:
        raise ValueError(f"length(x) and length(y) do not match: {n} != {arr.shape[0]}")
    if arr.dtype == bool:
        return arr.astype(np.int8)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"y must be numeric 0/1, got dtype {arr.dtype}")
    if arr.dtype.kind == "f" and np.isnan(arr).any():
        raise ValueError("y contains missing values")
    if not np.isin(arr, (0, 1)).all():
        raise ValueError("y must contain only the values 0 and 1")
    return arr.astype(np.int8)


def _check_target(target: Any) -> int:
    if target not in (0, 1):
        raise ValueError(f"Invalid 'target' argument {target!r}. Must be 0 or 1")
    return int(target)


def _check_two_classes(y: np.ndarray) -> None:
    n1 = int(y.sum())
    if n1 == 0 or n1 == y.shape[0]:
        raise ValueError("There is only one unique value in y")


def _r_segments(segments: float) -> int:
    """``binarize.numeric``: segments below 3 become 3, then ``round()``."""
    s = max(float(segments), 3.0)
    return int(np.rint(s))


# ---------------------------------------------------------------------------
# numeric columns
# ---------------------------------------------------------------------------


def numeric_cuts(
    x: np.ndarray,
    y: np.ndarray,
    target: int,
    segments: float = 20,
    node_size: int = 10,
    *,
    order: np.ndarray | None = None,
) -> NumericCuts:
    """The core of R's ``binarize.numeric`` (spec §3.1).

    Args:
        x: the node's values of one numeric column (no NaN).
        y: the node's 0/1 response, same length, both classes present.
        target: the class the cuts are built for (0 or 1).
        segments: ``nseg.numeric``: values below 3 become 3, then rounded half
            to even; the most cuts kept per direction (thinning).
        node_size: a perfect separation with fewer than ``node_size`` rows in
            the smaller class gives ``"empty"`` instead of ``"perfect"``.
        order: optionally, a precomputed STABLE ascending order of ``x``
            (``np.argsort(x, kind="stable")``), to save a sort.

    Returns:
        a :class:`NumericCuts`.
    """
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 1:
        raise ValueError(f"x must be one-dimensional, got shape {x.shape}")
    n = x.shape[0]
    yv = _as_y(y, n)
    target = _check_target(target)
    if np.isnan(x).any():
        raise ValueError("x contains missing values (NaN); impute them first")
    _check_two_classes(yv)
    if order is None:
        order = np.argsort(x, kind="stable")
    elif np.shape(order) != (n,):
        raise ValueError(f"order has shape {np.shape(order)}, expected ({n},)")
    return _cuts_sorted(x[order], yv[order], target, _r_segments(segments), node_size)


def _cuts_sorted(
    ox: np.ndarray, oy: np.ndarray, target: int, segs: int, node_size: float
) -> NumericCuts:
    """:func:`numeric_cuts` on validated, stably sorted data (``ox`` ascending)."""
    n = ox.shape[0]
    is1 = oy == 1
    i1 = int(np.argmax(is1))
    j1 = n - 1 - int(np.argmax(is1[::-1]))
    i0 = int(np.argmin(is1))
    j0 = n - 1 - int(np.argmin(is1[::-1]))
    min1, max1 = float(ox[i1]), float(ox[j1])
    min0, max0 = float(ox[i0]), float(ox[j0])
    if (min0 < min1 and max0 < min1) or (min1 < min0 and max1 < min0):
        n1 = int(np.count_nonzero(is1))
        if min(n1, n - n1) < node_size:
            return NumericCuts("empty", _EMPTY, _EMPTY)
        if min0 < min1 and max0 < min1:
            return NumericCuts("perfect", _EMPTY, _EMPTY, ">=", (max0 + min1) / 2)
        return NumericCuts("perfect", _EMPTY, _EMPTY, "<=", (max1 + min0) / 2)

    # trim the useless ends: keep lo <= x <= up
    maxmin = max(min1, min0)
    minmax = min(max1, max0)
    i = int(np.searchsorted(ox, maxmin, side="left"))
    lo = ox[i - 1] if i > 0 else maxmin
    i = int(np.searchsorted(ox, minmax, side="right"))
    up = ox[i] if i < n else minmax
    start = int(np.searchsorted(ox, lo, side="left"))
    stop = int(np.searchsorted(ox, up, side="right"))
    xx = ox[start:stop]
    ty = is1[start:stop] if target == 1 else ~is1[start:stop]
    if xx.shape[0] < 2:  # R: stop("This should not happen.")
        raise RuntimeError("binarize.numeric: fewer than 2 points in the trimmed range")

    differ = xx[:-1] != xx[1:]
    gt_idx = np.flatnonzero(~ty[:-1] & ty[1:] & differ)
    lt_idx = np.flatnonzero(ty[:-1] & ~ty[1:] & differ)
    gt = (xx[gt_idx] + xx[gt_idx + 1]) / 2
    lt = (xx[lt_idx + 1] + xx[lt_idx]) / 2

    if gt.shape[0] > segs:
        gt = _thin(ox, gt, gt_idx + start, segs, greater=True)
    if lt.shape[0] > segs:
        lt = _thin(ox, lt, lt_idx + start, segs, greater=False)
    if gt.shape[0] + lt.shape[0] == 0:
        return NumericCuts("empty", _EMPTY, _EMPTY)
    return NumericCuts("cuts", gt, lt)


#: Development versions of bsnsing stopped the thinning walk once
#: ``segments - 1`` cuts were kept; 1.0.1 has that line commented out
#: ("Let the subsampling continue"), so the result can exceed ``segments``.
_THIN_CAP = False


def _counts(ox: np.ndarray, cuts: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """#(ox < cut) and #(ox <= cut) for cuts that are midpoints of ox[pos], ox[pos + 1].

    Normally both counts are ``pos + 1``; when the two values are adjacent
    doubles the midpoint rounds onto one of them, and those few cuts are
    counted by binary search.
    """
    base = (pos + 1).astype(np.int64)
    cnt_lt = base.copy()
    cnt_le = base.copy()
    on_lo = cuts <= ox[pos]
    if on_lo.any():
        cnt_lt[on_lo] = np.searchsorted(ox, cuts[on_lo], side="left")
    on_hi = cuts >= ox[pos + 1]
    if on_hi.any():
        cnt_le[on_hi] = np.searchsorted(ox, cuts[on_hi], side="right")
    return cnt_lt, cnt_le


def _thin(
    ox: np.ndarray, cuts: np.ndarray, pos: np.ndarray, segs: int, *, greater: bool
) -> np.ndarray:
    """R's thinning of an ascending cut list (spec §3.1 step 4).

    ``pos[i]`` is the index in ``ox`` of the lower of the two values whose
    midpoint is ``cuts[i]``.
    """
    n = ox.shape[0]
    cnt_lt, cnt_le = _counts(ox, cuts, pos)
    if greater:
        bsize = int(np.rint(cnt_lt[-1] / segs))  # R's round(): half to even
        keep = thin_gt_kernel(cnt_lt, cnt_le, bsize, segs, _THIN_CAP)
    else:
        bsize = int(np.rint((n - cnt_le[0]) / segs))
        keep = thin_lt_kernel(cnt_lt, cnt_le, n, bsize, segs, _THIN_CAP)
    # R: cutpoints[cutpoints %in% keep.cp]
    return cuts[np.isin(cuts, cuts[keep])]


def binarize_numeric(
    x: Any,
    name: str,
    y: Any,
    target: int,
    segments: float = 20,
    node_size: int = 10,
) -> tuple[str, list[str]]:
    """R's ``binarize.numeric`` as texts.

    Returns ``(kind, texts)``: ``("cuts", ["name > c", ..., "name < c", ...])``
    (``>`` cuts ascending, then ``<`` cuts ascending), ``("perfect", [rule])``
    with R's single rule string ``name >= c`` or ``name <= c``, or
    ``("empty", [])``.
    """
    res = numeric_cuts(np.asarray(x, dtype=np.float64), y, target, segments, node_size)
    return res.kind, res.texts(name)


# ---------------------------------------------------------------------------
# a whole node
# ---------------------------------------------------------------------------


def _labels_of(values: np.ndarray) -> list[str]:
    return [format_r(v) for v in values.tolist()]


#: One question's recipe: (column index, op, operand).  ``op`` is one of
#: ``">" "<" ">=" "<="`` (operand: the exact cut), ``"=="`` (operand: the exact
#: value/code) or ``"in"`` (operand: array of exact values/codes).
_Recipe = tuple[int, str, Any]


def node_questions(
    X: np.ndarray,
    names: Sequence[str],
    y: Any,
    target: int,
    *,
    num2factor: int = 10,
    nseg_numeric: float = 20,
    nseg_factor: int = 20,
    bin_size: int = 5,
    node_size: int = 1,
    factor_cols: Sequence[int] | None = None,
    factor_levels: Sequence[Sequence[str]] | None = None,
    keep_perfect: bool = False,
    orders: Sequence[np.ndarray | None] | None = None,
    with_matrix: bool = True,
) -> QuestionSet:
    """All candidate questions of one node, like R's ``binarize`` (spec §3).

    Args:
        X: the node's rows of the design matrix, float64 (n x p), no NaN.
        names: the p column names.
        y: the node's 0/1 response (original coding); both classes present.
        target: the node's majority class (the split target), 0 or 1.
        num2factor: a non-binary numeric column with at most this many distinct
            values at the node also gets equality questions.
        nseg_numeric: ``segments`` for the inequality cuts.
        nseg_factor: a factor(-like) column with more distinct values at the node
            is an error (as in R).
        bin_size: values/levels with fewer rows are pooled into one extra
            ``%in%`` question.
        node_size: see :func:`numeric_cuts` (matters only for the perfect rule).
        factor_cols: indices of columns that are true factors; their X values
            are 0-based level codes into ``factor_levels``.
        factor_levels: for each entry of ``factor_cols``, the level labels in
            level order (all levels, used or not, as R's ``table`` lists them).
        keep_perfect: the fix of quirk Q5: a perfectly separating numeric column
            contributes its perfect rule (``x >= c`` / ``x <= c``) as a question
            instead of nothing.  Default False mirrors R.
        orders: optionally, per column, a precomputed STABLE ascending order of
            that column's node values (``np.argsort(X[:, j], kind="stable")``),
            e.g. maintained from a presort at the root; None entries are sorted
            here.  Saves the O(n log n) sorts.
        with_matrix: False skips building ``B`` (it is then n x 0).

    Returns:
        a :class:`QuestionSet`.
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be two-dimensional, got shape {X.shape}")
    X = np.asfortranarray(X)  # contiguous columns: every pass below is per column
    n, p = X.shape
    names = list(names)
    if len(names) != p:
        raise ValueError(f"{len(names)} names given for {p} columns")
    if orders is not None and len(orders) != p:
        raise ValueError(f"{len(orders)} orders given for {p} columns")
    yv = _as_y(y, n)
    target = _check_target(target)
    if np.isnan(X).any():
        bad = [names[j] for j in range(p) if np.isnan(X[:, j]).any()]
        raise ValueError(f"missing values (NaN) in column(s) {bad}; impute them first")
    _check_two_classes(yv)
    segs = _r_segments(nseg_numeric)
    fcols: dict[int, list[str]] = {}
    if factor_cols is not None:
        if factor_levels is None or len(factor_levels) != len(factor_cols):
            raise ValueError("factor_levels must give the levels of every factor column")
        for j, levs in zip(factor_cols, factor_levels, strict=True):
            fcols[int(j)] = [str(v) for v in levs]

    # the three sections of R's question matrix, each a list of (text, recipe)
    sec_numeric: list[tuple[str, _Recipe]] = []
    sec_factor: list[tuple[str, _Recipe]] = []
    sec_binary: list[tuple[str, _Recipe]] = []

    for j in range(p):
        col = X[:, j]
        order = orders[j] if orders is not None else None
        if order is None:
            order = np.argsort(col, kind="stable")
        ox = col[order]
        starts = np.flatnonzero(np.r_[True, ox[1:] != ox[:-1]]) if n else np.empty(0, np.int64)
        nuniq = starts.shape[0]
        name = names[j]
        if j in fcols:
            levels = fcols[j]
            codes = ox[starts]
            if (codes < 0).any() or (codes >= len(levels)).any() or (codes % 1 != 0).any():
                raise ValueError(f"factor column {name!r} holds invalid level codes")
            if all(levels[int(c)] in ("0", "1") for c in codes):
                # R's binary test sees the labels: a factor with labels 0/1 is binary
                lab = np.array(levels, dtype=object)
                for v in ("0", "1"):
                    sec_binary.append(
                        (f"{name}=={v}", (j, "in", np.flatnonzero(lab == v).astype(np.float64)))
                    )
                continue
            _check_nseg_factor(name, nuniq, nseg_factor)
            sec_factor.extend(_factor_questions(j, name, order, ox, starts, bin_size, levels))
            continue
        if nuniq <= 2 and ox[0] in (0.0, 1.0) and ox[-1] in (0.0, 1.0):
            sec_binary.append((f"{name}==0", (j, "==", 0.0)))
            sec_binary.append((f"{name}==1", (j, "==", 1.0)))
            continue
        res = _cuts_sorted(ox, yv[order], target, segs, node_size)
        if res.kind == "cuts":
            texts = res.texts(name)
            ops = [(j, ">", c) for c in res.gt.tolist()] + [(j, "<", c) for c in res.lt.tolist()]
            sec_numeric.extend(zip(texts, ops, strict=True))
        elif res.kind == "perfect" and keep_perfect:
            sec_numeric.append((res.texts(name)[0], (j, res.perfect_op, res.perfect_cut)))
        if nuniq <= num2factor:
            _check_nseg_factor(name, nuniq, nseg_factor)
            sec_factor.extend(_factor_questions(j, name, order, ox, starts, bin_size, None))

    allq = sec_numeric + sec_factor + sec_binary
    texts = [t for t, _ in allq]
    cols = np.fromiter((r[0] for _, r in allq), dtype=np.int64, count=len(allq))
    if not with_matrix:
        return QuestionSet(B=np.empty((n, 0), dtype=np.uint8), texts=texts, cols=cols)
    B = np.empty((n, len(allq)), dtype=np.uint8, order="F")
    for k, (_, (j, op, operand)) in enumerate(allq):
        out = B[:, k].view(np.bool_)
        col = X[:, j]
        if op == ">":
            np.greater(col, operand, out=out)
        elif op == "<":
            np.less(col, operand, out=out)
        elif op == ">=":
            np.greater_equal(col, operand, out=out)
        elif op == "<=":
            np.less_equal(col, operand, out=out)
        elif op == "==":
            np.equal(col, operand, out=out)
        else:
            out[:] = np.isin(col, operand)
    return QuestionSet(B=B, texts=texts, cols=cols)


def _check_nseg_factor(name: str, nuniq: int, nseg_factor: int) -> None:
    if nuniq > nseg_factor:
        raise ValueError(
            f"Factor {name} has more levels than allowed segments "
            f"({nuniq} distinct values at the node > nseg_factor = {nseg_factor})."
        )


def _factor_questions(
    j: int,
    name: str,
    order: np.ndarray,
    ox: np.ndarray,
    starts: np.ndarray,
    bin_size: int,
    levels: list[str] | None,
) -> list[tuple[str, _Recipe]]:
    """R 1.0.1's ``binarize.factor`` for one factor-like numeric or true factor column.

    ``levels`` is None for a numeric column (labels are ``format_r`` of the
    values; ``table`` sorts the values numerically) and the level labels for a
    true factor (``table`` lists every level, used or not, in level order, so an
    unused level counts as a small one).
    """
    n = ox.shape[0]
    values = ox[starts]  # sorted distinct values (or codes)
    counts = np.diff(np.r_[starts, n])
    first_row = order[starts]  # stable sort: first row of each run = first appearance
    appear = np.argsort(first_row, kind="stable")

    if levels is None:
        labels = _labels_of(values)
        # table(x, y): levels are unique(as.character(sort(unique(x))))
        tab: dict[str, int] = {}
        for lab, c in zip(labels, counts.tolist(), strict=True):
            tab[lab] = tab.get(lab, 0) + c
        small = [lab for lab, c in tab.items() if c < bin_size]
    else:
        labels = [levels[int(v)] for v in values]
        cnt_by_code = dict(zip(values.astype(np.int64).tolist(), counts.tolist(), strict=True))
        small = [lab for c, lab in enumerate(levels) if cnt_by_code.get(c, 0) < bin_size]

    # 1.0.1 keeps an equality question for EVERY value, small ones included,
    # and adds the small-value bucket on top ("Keep the small level bucket anyway").
    out: list[tuple[str, _Recipe]] = [
        (f"{name}=='{labels[u]}'", (j, "==", float(values[u]))) for u in appear.tolist()
    ]
    if small:
        small_set = set(small)
        small_vals = np.array(
            [values[u] for u in range(len(values)) if labels[u] in small_set], dtype=np.float64
        )
        text = f"{name}%in%c(" + ",".join(f"'{lab}'" for lab in small) + ")"
        out.append((text, (j, "in", small_vals)))
    return out


# ---------------------------------------------------------------------------
# the public data-frame front end
# ---------------------------------------------------------------------------


def _control_value(control: Any, name: str, default: Any) -> Any:
    if control is None:
        return default
    if isinstance(control, dict):
        return control.get(name, control.get(name.replace("_", "."), default))
    return getattr(control, name, default)


def binarize(
    x: pd.DataFrame,
    y: Any,
    target: int,
    control: Any = None,
    *,
    keep_perfect: bool = False,
) -> pd.DataFrame:
    """R's ``binarize(x, y, target, control)``: a DataFrame of 0/1 question columns.

    Args:
        x: the data.  Numeric and bool columns are numeric data (bool is 0/1, so
            binary); pandas categorical columns are factors with their
            categories as levels; object/string columns are factors with their
            sorted distinct values as levels (what R's ``read.csv(...,
            stringsAsFactors = TRUE)`` gives).  A column named ``(Intercept)`` is
            dropped, as in R.  Missing values are an error.
        y: the 0/1 response.
        target: 0 or 1.
        control: an object (e.g. ``BsControl``) or dict with ``bin_size``,
            ``nseg_numeric``, ``nseg_factor``, ``num2factor``, ``node_size``;
            None means R's defaults (5, 20, 20, 10, and node size 1).
        keep_perfect: see :func:`node_questions`.

    Returns:
        a DataFrame of ``uint8`` columns named by the question texts, in R's order.
    """
    if not isinstance(x, pd.DataFrame):
        x = pd.DataFrame(x)
    x = x.drop(columns=["(Intercept)"], errors="ignore")
    n = x.shape[0]
    names = [str(c) for c in x.columns]
    mat = np.empty((n, len(names)), dtype=np.float64)
    fcols: list[int] = []
    flevels: list[list[str]] = []
    for j, c in enumerate(x.columns):
        s = x[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            codes = s.cat.codes.to_numpy()
            if (codes < 0).any():
                raise ValueError(f"missing values in factor column {names[j]!r}")
            mat[:, j] = codes
            fcols.append(j)
            flevels.append([str(v) for v in s.cat.categories])
        elif pd.api.types.is_bool_dtype(s.dtype):
            if s.isna().any():
                raise ValueError(f"missing values in column {names[j]!r}")
            mat[:, j] = s.to_numpy(dtype=np.float64)
        elif pd.api.types.is_numeric_dtype(s.dtype):
            mat[:, j] = s.to_numpy(dtype=np.float64, na_value=np.nan)
        else:
            if s.isna().any():
                raise ValueError(f"missing values in factor column {names[j]!r}")
            strs = s.astype(str).to_numpy()
            levels, codes = np.unique(strs, return_inverse=True)
            mat[:, j] = codes
            fcols.append(j)
            flevels.append(levels.tolist())
    qs = node_questions(
        mat,
        names,
        y,
        target,
        num2factor=_control_value(control, "num2factor", 10),
        nseg_numeric=_control_value(control, "nseg_numeric", 20),
        nseg_factor=_control_value(control, "nseg_factor", 20),
        bin_size=_control_value(control, "bin_size", 5),
        node_size=_control_value(control, "node_size", 1),
        factor_cols=fcols,
        factor_levels=flevels,
        keep_perfect=keep_perfect,
    )
    out = pd.DataFrame(qs.B, index=x.index, copy=False)
    out.columns = qs.texts
    return out
