"""Case weights for bsnsing trees: ``sample_weight`` and ``class_weight``.

R bsnsing has no weights; pybsnsing goes beyond it here.  With weights, every count of the
tree is a sum of weights:

* the ENUM objective ``v = n1*FP + n0*FN - 2*FP*FN`` (the Gini impurity of the split times
  the node weight) with TP, FP, FN, ``n1``, ``n0`` weighted, minimised exactly by the same
  breadth-first implicit enumeration as the unweighted search (first minimiser in
  breadth-first, then column order);
* binarization: the perfect-separation test against ``node_size``, the thinning of
  numeric cuts and the small factor values against ``bin_size`` count weights;
* the stopping rules: the automatic ``node_size = floor(sqrt(total weight))``, a side of a
  split must weigh at least ``node_size``, a child is split further only when it weighs
  more than ``node_size`` and its weighted majority share is below ``stop_prob``;
* the imputation of missing predictor values: each column's weighted median over its
  observed rows (:func:`weighted_median`, the median of the repeated values for
  whole-number weights), also for ``predict(impute=True)`` while the model has its weights;
* the node statistics: ``node_class`` (weighted majority), ``prob`` (weighted share of
  code 1) and ``prop`` (share of the total weight).  ``nobs``, ``n1`` and ``n0`` stay ROW
  counts (what ``predict`` routes and the confusion matrix counts); the weighted counts are
  the nodes' ``w1`` and ``w0`` and the printed tree shows them (``w1``, ``w0``).

With whole-number weights the tree is exactly the tree of the data with each row repeated
``w`` times (same rules, and ``w1``/``w0`` equal to that tree's ``n1``/``n0``); with unit
weights it is the unweighted tree.  Rows of weight 0 take no part in the growth (as rows
repeated 0 times) and are routed to their leaves afterwards.

Limits (documented restrictions):

* the candidate questions of rpart (``import_external``) are computed on the node's rows
  repeated by their weights when every weight is a whole number (so the equivalence
  above holds), and on the node's rows counted once otherwise (rpart's case weights are
  not replayed); the split is chosen among them by the weighted search either way;
* only the ENUM solver (``opt_solver = "enum_c"``/``"enum"``) takes weights;
* exactness: floating-point sums of weights are exact for whole numbers and for
  multiples of a power of two (e.g. 0.125); other weights can make two rules whose
  objectives are equal in exact arithmetic compare unequal by a rounding error.

The counters: levels 1 and 2 of the search read weighted Gram matrices built from weighted
two-way tables of each pair of columns' partitions (the questions of a column are unions of
ranges of its sorted order, so a node needs one pass over its rows per pair of COLUMNS,
not per pair of questions); deeper levels read the bit-packed answers through per-byte
weight tables (:mod:`pybsnsing.kernels.weighted`).
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import Executor
from typing import Any

import numpy as np

from .control import BsControl
from .errors import InvalidParameterError
from .questions import NodeRows, QuestionSet, stable_argsort
from .rformat import r_mean2, r_median
from .search import GRAM_MAX_COLS, enum_levels
from .tree import Grower, Node, grow_nodes, grow_tree, prepare_kernels, rule_sides
from .validation import MAX_RULES_CAP, SearchResult, search_args

__all__ = [
    "check_sample_weight",
    "impute_weighted_medians",
    "resolve_weights",
    "weighted_median",
    "weighted_enum_search",
    "grow_weighted_tree",
]

#: solvers that take weights
_WEIGHTED_SOLVERS = ("enum_c", "enum")


# ---------------------------------------------------------------------------------------
# the weights


def check_sample_weight(sample_weight: Any, n: int) -> np.ndarray | None:
    """``sample_weight`` as a float64 array of ``n`` finite non-negative numbers (None
    stays None).

    Raises:
        InvalidParameterError: wrong length, non-numeric, negative, NaN or infinite
            values, or all weights 0.
    """
    if sample_weight is None:
        return None
    try:
        w = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"sample_weight must be numbers, got {type(sample_weight).__name__}") from exc
    if w.ndim != 1 or w.shape[0] != n:
        raise InvalidParameterError(
            f"sample_weight must have one weight per row: {n} rows, got shape {w.shape}")
    if not np.isfinite(w).all():
        raise InvalidParameterError("sample_weight holds NaN or infinite values")
    if (w < 0).any():
        raise InvalidParameterError("sample_weight must be non-negative")
    if not (w > 0).any():
        raise InvalidParameterError(
            "sample_weight is zero for every row (at least one weight must be positive)")
    return w


def resolve_weights(labels: Sequence[Any], classes: Sequence[Any], codes: np.ndarray,
                    sample_weight: Any = None, class_weight: Any = None) -> np.ndarray | None:
    """Row weights from ``sample_weight`` and ``class_weight`` (None when both are None).

    Args:
        labels: unused placeholder kept for symmetry with scikit-learn (the classes'
            labels are ``classes``).
        classes: the class labels, in code order.
        codes: each row's class code (index into ``classes``).
        sample_weight: per-row non-negative weights, or None.
        class_weight: None, ``"balanced"`` (scikit-learn's ``n / (K * count)`` from the
            row counts) or a dict ``{class label: weight}`` (missing classes weigh 1).

    Returns:
        ``sample_weight * class weight of the row's class``, float64.
    """
    codes = np.asarray(codes, dtype=np.int64)
    n = codes.shape[0]
    w = check_sample_weight(sample_weight, n)
    if class_weight is None:
        return w
    k = len(classes)
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise InvalidParameterError(
                f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
        counts = np.bincount(codes, minlength=k).astype(np.float64)
        per = np.where(counts > 0, n / (k * np.maximum(counts, 1)), 0.0)
    elif isinstance(class_weight, Mapping):
        known = {str(c): i for i, c in enumerate(classes)}
        per = np.ones(k, dtype=np.float64)
        for key, val in class_weight.items():
            i = next((j for j, c in enumerate(classes) if c == key), known.get(str(key)))
            if i is None:
                raise InvalidParameterError(
                    f"class_weight names the class {key!r}, which is not one of "
                    f"{list(classes)}")
            try:
                f = float(val)
            except (TypeError, ValueError) as exc:
                raise InvalidParameterError(
                    f"class_weight[{key!r}] must be a number, got {val!r}") from exc
            if not math.isfinite(f) or f < 0:
                raise InvalidParameterError(
                    f"class_weight[{key!r}] must be finite and >= 0, got {val!r}")
            per[i] = f
    else:
        raise InvalidParameterError(
            f"class_weight must be None, 'balanced' or a dict, got {class_weight!r}")
    cw = per[codes]
    out = cw if w is None else w * cw
    if not (out > 0).any():
        raise InvalidParameterError("the weights are zero for every row")
    return out


def weighted_median(x: np.ndarray, w: np.ndarray) -> float:
    """The weighted median of ``x`` (no NaN) with non-negative weights ``w``.

    With ``W`` the total weight and ``c`` the cumulative weight over the sorted values, the
    lower median is the smallest value with ``c >= W/2``, the upper median the smallest
    with ``c > W/2``, and the result their mean (R's, :func:`~pybsnsing.rformat.r_mean2`):
    for whole-number weights exactly R's ``median`` of the values repeated by their
    weights (rows of weight 0 count as absent). When every weight is 0, the unweighted
    median.
    """

    x = np.asarray(x, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    pos = w > 0
    if not pos.any():
        return r_median(x)
    order = np.argsort(x[pos], kind="stable")
    xs = x[pos][order]
    c = np.cumsum(w[pos][order])
    half = c[-1] / 2.0
    lo = int(np.searchsorted(c, half, side="left"))  # first c >= W/2
    hi = int(np.searchsorted(c, half, side="right"))  # first c > W/2
    lo, hi = min(lo, len(xs) - 1), min(hi, len(xs) - 1)
    return r_mean2(float(xs[lo]), float(xs[hi]))


def impute_weighted_medians(design: Any, w: np.ndarray) -> None:
    """Re-impute ``design.X`` (in place): the missing values of a column become its
    weighted median over the rows where it is not missing (:func:`weighted_median`),
    and ``design.medians`` those medians. With whole-number weights this is the
    imputation of the data with each row repeated by its weight."""
    mask = getattr(design, "imputed", None)
    if mask is None:
        return
    for j in np.nonzero(mask.any(axis=0))[0]:
        seen = ~mask[:, j]
        med = weighted_median(design.X[seen, j], w[seen])
        design.medians[j] = med
        design.X[mask[:, j], j] = med


# ---------------------------------------------------------------------------------------
# the search on weighted counts


def _search_counts(cp: np.ndarray, cn: np.ndarray, Gp: np.ndarray, Gn: np.ndarray,
                   use_gram: bool, packed: Any, grp: np.ndarray, n1: float, n0: float,
                   max_rules: int, node_size: float, nsgc: bool, time_limit: float,
                   t0: float) -> tuple[tuple[int, ...], float, int]:
    """The weighted ENUM from the level-1 counts, the Gram matrices (when ``use_gram``)
    and, for the deeper levels, ``packed()`` -> ``(Xp, Xn, lut_p, lut_n)`` (called once,
    when first needed)."""
    from .kernels import weighted as K

    m = cp.shape[0]
    n1f, n0f, nsf = float(n1), float(n0), float(node_size)
    vb = n0f * n1f / 2.0
    keep, pfp, pfn, ptau, vb, best_j = K.wlevel_one(cp, cn, n1f, n0f, nsf, nsgc, vb)
    neval = m
    best: tuple[int, ...] = (int(best_j),) if best_j >= 0 else ()
    pcols = keep.reshape(-1, 1)
    bits = None
    dummy = np.zeros((1, 1), np.uint64)
    dlut = np.zeros((1, 256), np.float64)

    def step(k: int, store: bool, pcols: np.ndarray, pfp: np.ndarray, pfn: np.ndarray,
             ptau: np.ndarray, vb: float) -> tuple:
        nonlocal bits
        if k == 1 and use_gram:
            Xp = Xn = dummy
            lp = ln = dlut
        else:
            if bits is None:
                bits = packed()
            Xp, Xn, lp, ln = bits
        return K.wextend(Xp, Xn, lp, ln, cp, cn, Gp, Gn, use_gram, grp, n1f, n0f, pcols,
                         pfp, pfn, ptau, vb, nsf, nsgc, store)

    best, vb, neval = enum_levels(step, pcols, pfp, pfn, ptau, vb, best, neval, max_rules,
                                  time_limit, t0)
    return best, float(vb), neval


def _slot_tables(Xp: np.ndarray, Xn: np.ndarray, wp: np.ndarray,
                 wn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    from .kernels.weighted import byte_tables

    return Xp, Xn, byte_tables(wp, np.int64(Xp.shape[1])), byte_tables(wn, np.int64(Xn.shape[1]))


def weighted_enum_search(B: Any, y: Any, sample_weight: Any, groups: Any = None, *,
                         max_rules: int = 2, node_size: float = 1,
                         no_same_gender_children: bool = False,
                         time_limit: float = 180.0) -> SearchResult:
    """The ENUM search (:func:`pybsnsing.search.enum_search`) with row weights.

    Minimises ``v = n1*FP + n0*FN - 2*FP*FN`` with every count a sum of weights; the
    result is the first minimiser in breadth-first, then column order, as the unweighted
    search (rules whose sides weigh less than ``node_size`` are no candidates).

    Args:
        B: n x m 0/1 question matrix.
        y: n labels 0/1, target class coded 1.
        sample_weight: n non-negative weights.
        groups, max_rules, no_same_gender_children, time_limit: as
            :func:`pybsnsing.search.enum_search`.
        node_size: least weight of each side of the rule (a real number >= 0).

    Returns:
        :class:`~pybsnsing.validation.SearchResult` (``n1``/``n0`` the class weights,
        ``objval`` the weighted objective).
    """
    t0 = time.thread_time()
    Bm, yv, grp, max_rules, _ = search_args(B, y, groups, max_rules, 0, MAX_RULES_CAP)
    n, m = Bm.shape
    w = check_sample_weight(sample_weight, n)
    if w is None:
        raise InvalidParameterError("weighted_enum_search needs sample_weight, got None")
    try:
        ns = float(node_size)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"node_size must be a number, got {node_size!r}") from exc
    if not ns >= 0:
        raise InvalidParameterError(f"node_size must be >= 0, got {node_size!r}")
    pos = yv == 1
    A = Bm.astype(np.float64)
    wp = np.where(pos, w, 0.0)
    wn = np.where(pos, 0.0, w)
    cp = wp @ A
    cn = wn @ A
    use_gram = m <= GRAM_MAX_COLS
    if use_gram:
        Gp = A.T @ (A * wp[:, None])
        Gn = A.T @ (A * wn[:, None])
    else:
        Gp = Gn = np.zeros((1, 1))

    def packed() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        from .kernels.enum import pack_by_class

        Xp, Xn = pack_by_class(np.ascontiguousarray(Bm, dtype=np.uint8),
                               yv.astype(np.uint8))
        return _slot_tables(Xp, Xn, w[pos], w[~pos])

    n1, n0 = float(wp.sum()), float(wn.sum())
    cols, objval, neval = _search_counts(cp, cn, Gp, Gn, use_gram, packed, grp, n1, n0,
                                         max_rules, ns, bool(no_same_gender_children),
                                         float(time_limit), t0)
    return SearchResult(cols=tuple(cols), objval=objval, neval=neval, n1=n1, n0=n0)


# ---------------------------------------------------------------------------------------
# counts of a tree node from the questions' structure


def _node_counts(sources: list[Any], offsets: list[int], node: NodeRows, wt: np.ndarray,
                 cls: np.ndarray, m: int, want_gram: bool, rows_needed: Any = None
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Weighted counts (``cp``, ``cn``) and Gram matrices of a node's m questions.

    Questions on one design column (internal ones and native rpart ones) are unions of
    ranges of the column's sorted node order: the column's range ends cut it into bins,
    each question is a set of bins (merged into intervals), and for two questions of
    columns ``a`` and ``b`` the Gram entry is a sum of rectangles of the weighted two-way
    table of the rows' bins (2-D prefix sums): one pass over the node's rows per pair of
    COLUMNS, not per pair of questions (:mod:`pybsnsing.kernels.weighted`).  Sources of
    dense answers (R's rpart) are counted from the dense matrix instead.

    ``rows_needed(cp, cn)``: optionally, a boolean mask of the questions whose Gram rows
    the search reads (the others' entries among themselves stay 0).
    """
    from .kernels.weighted import contingency, gram_from_intervals, node_intervals

    n = node.rows.shape[0]
    ranges = _question_ranges(sources, offsets, n)
    if ranges is None:
        return _dense_counts(sources, node, wt, cls, want_gram)
    qcol, qbase, qproc, rcnt, rlo, rhi = ranges
    cols = np.concatenate(qcol).astype(np.int64)
    pcol, qpart = np.unique(cols, return_inverse=True)
    qpart = qpart.ravel().astype(np.int64)
    rptr = np.zeros(m + 1, np.int64)
    np.cumsum(np.concatenate(rcnt), out=rptr[1:])
    bins = np.empty((pcol.shape[0], n), np.int64)
    sizes, iv_ptr, iv_lo, iv_hi = node_intervals(
        node.ordm, node.local, pcol.astype(np.int64), qpart,
        np.concatenate(qbase).astype(np.int64), np.concatenate(qproc).astype(np.int64),
        rptr, np.concatenate(rlo).astype(np.int64), np.concatenate(rhi).astype(np.int64),
        np.int64(n), bins)
    offs, tot = _table_offsets(sizes, want_gram)
    T1 = np.zeros(max(tot, 1), dtype=np.float64)
    T0 = np.zeros(max(tot, 1), dtype=np.float64)
    contingency(bins, wt, cls, sizes, offs, T1, T0)
    cp = np.zeros(m, dtype=np.float64)
    cn = np.zeros(m, dtype=np.float64)
    shape = (m, m) if want_gram else (1, 1)
    Gp = np.zeros(shape, dtype=np.float64)
    Gn = np.zeros(shape, dtype=np.float64)
    none = np.zeros(m, dtype=np.bool_)
    gram_from_intervals(T1, offs, sizes, qpart, iv_ptr, iv_lo, iv_hi, False, none, cp, Gp)
    gram_from_intervals(T0, offs, sizes, qpart, iv_ptr, iv_lo, iv_hi, False, none, cn, Gn)
    if want_gram:
        rows = np.ones(m, dtype=np.bool_) if rows_needed is None else rows_needed(cp, cn)
        gram_from_intervals(T1, offs, sizes, qpart, iv_ptr, iv_lo, iv_hi, True, rows, cp, Gp)
        gram_from_intervals(T0, offs, sizes, qpart, iv_ptr, iv_lo, iv_hi, True, rows, cn, Gn)
    return cp, cn, Gp, Gn


def _question_ranges(sources: list[Any], offsets: list[int], n: int
                     ) -> tuple[list[np.ndarray], ...] | None:
    """Per source: (design column, base question, processed question, range count, range
    starts, range ends) of its questions, the inputs of ``node_intervals``; None when a
    source has dense answers only (R's rpart)."""
    from .external import NodeExternal

    qcol: list[np.ndarray] = []
    qbase: list[np.ndarray] = []
    qproc: list[np.ndarray] = []
    rcnt: list[np.ndarray] = []
    rlo: list[np.ndarray] = []
    rhi: list[np.ndarray] = []
    for s, off in zip(sources, offsets, strict=False):
        rng = s.ranges if isinstance(s, QuestionSet) else None
        if rng is not None:
            qcol.append(s.cols)
            qbase.append(np.where(rng.base >= 0, rng.base + off, -1))
            qproc.append(rng.proc + off)
            rcnt.append(np.diff(rng.rptr))
            rlo.append(rng.rlo)
            rhi.append(rng.rhi)
        elif isinstance(s, NodeExternal):
            k = s.m
            qcol.append(s.cols)
            qbase.append(np.full(k, -1, np.int64))
            qproc.append(np.arange(off, off + k, dtype=np.int64))
            rcnt.append(np.ones(k, np.int64))
            rlo.append(np.where(s.ge, s.pos, 0))
            rhi.append(np.where(s.ge, n, s.pos))
        else:
            return None
    return qcol, qbase, qproc, rcnt, rlo, rhi


def _table_offsets(sizes: np.ndarray, want_gram: bool) -> tuple[np.ndarray, int]:
    """Offsets of the two-way tables of the column pairs (i <= j) in one flat array, and
    its length; without ``want_gram`` only the diagonal tables (pairs point at a scratch
    block)."""
    P = sizes.shape[0]
    offs = np.zeros((P, P), dtype=np.int64)
    tot = 0
    for i in range(P):
        for j in range(i, P if want_gram else i + 1):
            offs[i, j] = tot
            tot += int(sizes[i] * sizes[j])
    if not want_gram:
        for i in range(P):
            offs[i, i + 1:] = tot
        tot += int(sizes.max()) ** 2
    return offs, tot


def _dense_counts(sources: list[Any], node: NodeRows, wt: np.ndarray, cls: np.ndarray,
                  want_gram: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`_node_counts` from the dense answers (BLAS)."""
    blocks = [np.asarray(s.dense_node(node), dtype=np.float64) for s in sources]
    A = blocks[0] if len(blocks) == 1 else np.hstack(blocks)
    wp = np.where(cls == 1, wt, 0.0)
    wn = np.where(cls == 1, 0.0, wt)
    cp, cn = wp @ A, wn @ A
    if not want_gram:
        return cp, cn, np.zeros((1, 1)), np.zeros((1, 1))
    return cp, cn, A.T @ (A * wp[:, None]), A.T @ (A * wn[:, None])


# ---------------------------------------------------------------------------------------
# the tree


def _whole(w: np.ndarray) -> bool:
    return bool(np.all(w == np.floor(w)) and w.max() < 2**31)


class _WeightedGrower(Grower):
    """:class:`pybsnsing.tree.Grower` with row weights (see the module docstring)."""

    def __init__(self, X: np.ndarray, names: list[str], y: np.ndarray, control: BsControl,
                 node_size: int, w: np.ndarray) -> None:
        super().__init__(X, names, y, control, node_size)
        self.w = np.ascontiguousarray(w, dtype=np.float64)
        self.wtotal = float(self.w.sum())
        self.whole = _whole(self.w)
        if control.opt_solver not in _WEIGHTED_SOLVERS:
            raise InvalidParameterError(
                f"weights need opt_solver 'enum_c' (or 'enum'); got {control.opt_solver!r}")

    def make_node(self, number: int, parent: int, depth: int, rows: np.ndarray,
                  n1: int | None = None) -> Node:
        """A leaf node of ``rows`` with its weights (``n1``: not used; counted with
        them)."""
        return _wnode(number, parent, depth, rows, self.y, self.w, self.wtotal)

    def can_split(self, node: Node) -> bool:
        return weighted_splittable(node, self.node_size, self.control.stop_prob)

    def describe(self, node: Node, rule: str, seconds: float) -> str:
        return (f"node {node.number}: nobs {node.nobs}, w1 {node.w1}, w0 {node.w0}, "
                f"rule: {rule or '(leaf)'}")

    def find_rule(self, rows: np.ndarray, ordm: np.ndarray, target: int,
                  helper: Executor | None = None, ordv: np.ndarray | None = None,
                  n1: int | None = None) -> str:
        """The node's split rule by the weighted ENUM (``""`` when there is none;
        ``helper``, ``ordv``, ``n1``: as :meth:`pybsnsing.tree.Grower.find_rule`)."""
        t0 = time.thread_time()
        control = self.control
        found = self._node_questions(rows, ordm, target, True, helper, ordv, n1)
        if found is None:
            return ""
        sources, offsets, text, grp = found
        m = offsets[-1]
        nobs = rows.shape[0]
        self.pos[rows] = np.arange(nobs, dtype=np.int64)
        node = NodeRows(ordm, rows, self.slot, self.pos)
        wt = self.w.take(rows)
        is_t = self.y.take(rows) == target
        cls = is_t.astype(np.uint8)
        use_gram = m <= GRAM_MAX_COLS
        w1 = float(wt[is_t].sum())
        w0 = float(wt.sum()) - w1
        nsgc = bool(control.no_same_gender_children)

        def rows_needed(cp: np.ndarray, cn: np.ndarray) -> np.ndarray:
            """With rules of at most 2 questions the search reads the Gram rows of the
            questions kept at level 1 only; deeper levels read every row (bounds)."""
            need = np.ones(m, dtype=np.bool_)
            if control.max_rules == 2:
                from .kernels.weighted import wlevel_one

                keep = wlevel_one(cp, cn, w1, w0, float(self.node_size), nsgc,
                                  w0 * w1 / 2.0)[0]
                need[:] = False
                need[keep] = True
            return need

        cp, cn, Gp, Gn = _node_counts(sources, offsets, node, wt, cls, m, use_gram,
                                      rows_needed)

        def packed() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
            _, Xp, Xn = self._pack(sources, offsets, node, target)
            # slots number each class's rows in node order
            return _slot_tables(Xp, Xn, wt[is_t], wt[~is_t])

        cols, _, _ = _search_counts(cp, cn, Gp, Gn, use_gram, packed, grp, w1, w0,
                                    control.max_rules, self.node_size,
                                    bool(control.no_same_gender_children),
                                    float(control.solver_timelimit), t0)
        return " | ".join(text(j) for j in cols)

    def external_source(self, rows: np.ndarray, ordm: np.ndarray, packed: bool,
                        ordv: np.ndarray | None = None) -> Any:
        """rpart's questions of the node: of its rows repeated by their weights when these
        are whole numbers (not all 1), else of its rows once (the packed path)."""
        if self.whole and not bool(np.all(self.w.take(rows) == 1.0)):
            return self._external_repeated(rows, ordm)
        return super().external_source(rows, ordm, True, ordv)

    def _external_repeated(self, rows: np.ndarray, ordm: np.ndarray) -> Any:
        """rpart's questions of the node's rows repeated by their (whole) weights, as
        positions of the node's sorted orders (answered on the node's rows once)."""
        from .external import NodeExternal, external_specs

        local = self.positions(rows, ordm)
        reps = self.w.take(rows).astype(np.int64)
        ends = np.cumsum(reps)
        first = ends - reps  # first repeated index of each node row
        Xr = self.rows_matrix(rows)
        orders = []
        for loc in local:  # the stable order of the repeated rows
            r = reps.take(loc)
            base = np.repeat(first.take(loc) - (np.cumsum(r) - r), r)
            orders.append(base + np.arange(base.shape[0], dtype=np.int64))
        specs = external_specs(np.repeat(Xr, reps, axis=0), self.names,
                               np.repeat(self.y.take(rows), reps), method=self.external,
                               orders=orders)
        k = len(specs)
        cols = np.array([q.col for q in specs], dtype=np.int64)
        ge = np.array([q.op == ">=" for q in specs], dtype=bool)
        pos = np.zeros(k, dtype=np.int64)
        for i, q in enumerate(specs):  # x < cut: the first pos rows of the sorted order
            ox = self.X[:, q.col].take(ordm[q.col])
            pos[i] = int(np.searchsorted(ox, q.cut, side="left"))
        splits = np.array([q.split for q in specs], dtype=np.float64)
        return NodeExternal(self.names, cols, ge, splits, pos, self.X)


def _wnode(number: int, parent: int, depth: int, rows: np.ndarray, y: np.ndarray,
           w: np.ndarray, wtotal: float) -> Node:
    nobs = int(rows.size)
    yr = y.take(rows)
    wr = w.take(rows)
    n1 = int(yr.sum())
    w1 = float(wr[yr == 1].sum())
    w0 = float(wr[yr != 1].sum())
    wn = w1 + w0
    cls = 1 if w1 >= w0 else 0
    return Node(number=number, parent=parent, lchild=-1, rchild=-1, node_class=cls,
                prop=wn / wtotal, nobs=nobs, n1=n1, n0=nobs - n1,
                prob=w1 / wn if wn > 0 else 0.0, obs=rows, split_rule="", split_target=cls,
                depth=depth, w1=w1, w0=w0)


def weighted_splittable(node: Node, node_size: float, stop_prob: float) -> bool:
    """:func:`pybsnsing.tree.splittable` on the node's weights."""
    w1, w0 = float(node.w1 or 0.0), float(node.w0 or 0.0)
    wn = w1 + w0
    if wn <= node_size or w1 == 0 or w0 == 0:
        return False
    return max(w1, w0) / wn < stop_prob


def grow_any_tree(X: np.ndarray, names: list[str], y: np.ndarray, control: BsControl,
                  progress: Any = None, max_depth: int | None = None,
                  sample_weight: np.ndarray | None = None) -> tuple[list[Node], int]:
    """Grow a two-class tree: R bsnsing's unweighted growth
    (:func:`pybsnsing.tree.grow_tree`) or, with ``sample_weight`` (non-negative row
    weights), :func:`grow_weighted_tree`. Returns the nodes in number order and the node
    size used."""
    if sample_weight is None:
        return grow_tree(X, names, y, control, progress=progress, max_depth=max_depth)
    prepare_kernels()
    return grow_weighted_tree(X, names, y, control, sample_weight, progress=progress,
                              max_depth=max_depth)


def grow_weighted_tree(X: np.ndarray, names: list[str], y: np.ndarray, control: BsControl,
                       sample_weight: Any, progress: Any = None,
                       max_depth: int | None = None) -> tuple[list[Node], int]:
    """:func:`pybsnsing.tree.grow_tree` with row weights (see the module docstring).

    Returns the nodes in number order and the node size used.
    """
    n_train = X.shape[0]
    y = np.asarray(y, dtype=np.int64)
    w = check_sample_weight(sample_weight, n_train)
    if w is None:
        raise InvalidParameterError("grow_weighted_tree needs sample_weight, got None")
    wtotal = float(w.sum())
    node_size = (int(math.floor(math.sqrt(wtotal))) if control.node_size == 0
                 else int(control.node_size))
    grower = _WeightedGrower(X, names, y, control, node_size, w)
    Xf = grower.X
    live = np.flatnonzero(w > 0)
    zero = np.flatnonzero(w == 0)
    ordm0 = np.empty((Xf.shape[1], live.shape[0]), dtype=np.int64)
    for j in range(Xf.shape[1]):
        ordm0[j] = live[stable_argsort(Xf[live, j])]
    root = grower.make_node(0, -1, 0, live)
    if root.n1 == 0 or root.n0 == 0:  # a pure root is a leaf (children are never pure)
        nodes = [root]
    else:
        nodes = grow_nodes(grower, root, ordm0, max_depth, progress)
    if zero.shape[0]:
        _route_zero_weight(nodes, zero, Xf, grower.col_of, y)
    return nodes, node_size


def _route_zero_weight(nodes: list[Node], zero: np.ndarray, X: np.ndarray,
                       col_of: dict[str, int], y: np.ndarray) -> None:
    """Send the rows of weight 0 down the grown tree (they join ``obs`` and the row
    counts; the weights are unchanged)."""
    at: dict[int, np.ndarray] = {0: zero}
    for nd in nodes:  # numbered in creation order: parents first
        z = at.pop(nd.number, None)
        if z is None or z.shape[0] == 0:
            continue
        nd.obs = np.sort(np.concatenate((nd.obs, z)))
        nd.nobs = int(nd.obs.shape[0])
        nd.n1 = int(y.take(nd.obs).sum())
        nd.n0 = nd.nobs - nd.n1
        if nd.lchild >= 0:
            at[nd.lchild], at[nd.rchild], _, _ = rule_sides(nd.split_rule, X, z, col_of)
