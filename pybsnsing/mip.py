"""The bsnsing split as a mixed-integer program (paper §3.3-3.5), solved with HiGHS, and R's
greedy split solver.

``opt_solver = "highs"`` finds the same split as the ENUM search (:mod:`pybsnsing.search`)
by solving a MIP with the open solver HiGHS (``pip install "pybsnsing[mip]"``); it is an
independent check of ENUM, and the way to make ``opt_model = "error"`` meaningful:

* ``model = "gini"`` (OPT-G, paper (8)): minimise ``v = n1*FP + n0*FN - 2*FP*FN``, the
  objective ENUM minimises (the largest Gini reduction);
* ``model = "error"`` (OPT-E, paper (12)): minimise ``n1*FP + n0*FN``, the errors summed
  over all (target, other) pairs of rows, i.e. ``n0*n1*(FP/n0 + FN/n1)``: the balanced
  error count, as R's MIP code defines it (not the plain ``FP + FN``).

The ENUM search ignores ``opt_model``, as R bsnsing 1.0.1 does.

Formulations (``formulation=``):

* ``"compact"`` (default): the product ``FP*FN`` through the binary expansion of the
  smaller of ``FP`` and ``FN`` (``T = bit_length`` bits ``b_t``) and one ``u_t <= FN``,
  ``u_t <= n1*b_t`` per bit (negative cost, so the upper McCormick side suffices): ``O(log
  n)`` extra columns;
* ``"theta"``: R's model, one ``theta_ij`` per (target row, other row) pair (paper (6),
  (7)); for reference only, refused when ``n0*n1 > n0n1_cap`` (R's cap, 40000).

Both carry every constraint ENUM applies, so that the optimum equals ENUM's:

* at most ``max_rules`` questions (14) and at most one question of each group;
* ``node_size`` rows on both sides.  ENUM (R's C code as well as R's interpreted one) drops
  a candidate whose TRUE side has fewer than ``node_size`` rows *without extending it*,
  and builds rules by increasing column index, so a rule is found only when its
  lowest-index question alone covers ``node_size`` rows.  ``node_size_mode = "enum"``
  (default) models exactly that (``w_k <= sum(w_j, j < k)`` for every question ``k`` that
  covers fewer rows); ``"paper"`` is the paper's (15)-(16) on the whole rule only, which
  can find better rules than ENUM when ``node_size > 1``;
* ``no_same_gender_children``: one binary ``delta`` with big-M rows, exactly ENUM's strict
  test ``TP > FP and TN > FN, or TP < FP and TN < FN`` (0/0 rejects);
* only rules with ``v < n0*n1/2`` (ENUM's start value) are returned (HiGHS
  ``objective_bound`` and a check afterwards); otherwise ``cols = ()`` and ``objval =
  n0*n1/2``, as ENUM reports.

Rows with the same answers to the (non-empty) questions are aggregated into one ``z`` with
the counts of each class as weights; all-zero questions are dropped.  The objective value
reported is recomputed exactly from the counts of the chosen rule; questions that add no row
are removed from it.  ``neval`` is 0 (not counted for the MIP).  On time-out the incumbent is
returned with a :class:`~pybsnsing.control.ControlWarning`, as R does with Gurobi's status.

``opt_solver = "greedy"`` (:func:`greedy_search`) is the greedy solver of R bsnsing's GitHub
version: starting from no question (objective ``n0*n1``), add the question that gives the
smallest objective while that is below ``greedy_level`` times the current value.  Its
``objval`` is the objective of the rule it returns (``n0*n1`` when none).

Public functions: :func:`mip_search`, :func:`greedy_search`, :func:`build_model`,
:func:`split_search` (the dispatch used by ``enum_search`` and the tree grower).
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .control import ControlWarning
from .validation import (
    MAX_RULES_CAP,
    SearchResult,
    as_binary_matrix,
    as_binary_vector,
    as_groups,
    as_int,
    search_args,
    search_limits,
)

__all__ = [
    "MIP_SOLVERS",
    "R_MIP_SOLVERS",
    "FORMULATIONS",
    "MODELS",
    "MipModel",
    "build_model",
    "mip_search",
    "greedy_search",
    "split_search",
    "rule_objective",
    "highs_available",
]

#: solvers of this module (``opt_solver``)
MIP_SOLVERS = ("highs", "greedy")
#: R's MIP solver names, accepted with a warning that HiGHS is used
R_MIP_SOLVERS = ("gurobi", "cplex", "lpSolve")
FORMULATIONS = ("compact", "theta")
MODELS = ("gini", "error")
NODE_SIZE_MODES = ("enum", "paper")

_INSTALL_HINT = 'opt_solver="highs" needs highspy: pip install "pybsnsing[mip]"'


def highs_available() -> bool:
    """True when ``highspy`` can be imported."""
    try:
        import highspy  # noqa: F401
    except ImportError:
        return False
    return True


def _import_highspy():
    from ._optional import require

    # PybsnsingImportError (an ImportError) naming pip install "pybsnsing[mip]"
    return require("mip", 'opt_solver="highs" (the MIP split solver)')


# ---------------------------------------------------------------------------------------
# objectives


def rule_objective(fp: int, fn: int, n1: int, n0: int, model: str = "gini") -> int:
    """The objective of a rule from its counts: ``n1*FP + n0*FN - 2*FP*FN`` (``"gini"``)
    or ``n1*FP + n0*FN`` (``"error"``), as an exact integer."""
    v = n1 * fp + n0 * fn
    if model == "gini":
        v -= 2 * fp * fn
    return int(v)


def _counts(B: np.ndarray, pos: np.ndarray, cols: tuple[int, ...]) -> tuple[int, int, int]:
    """(TP, FP, rows covered) of the OR of ``cols``."""
    if not cols:
        return 0, 0, 0
    cov = B[:, list(cols)].any(axis=1)
    tp = int(np.count_nonzero(cov & pos))
    covered = int(np.count_nonzero(cov))
    return tp, covered - tp, covered


def _nsgc_ok(tp: int, fp: int, fn: int, tn: int) -> bool:
    """ENUM's no.same.gender.children test on counts (0/0 rejects)."""
    return (tp > fp and tn > fn) or (tp < fp and tn < fn)


# ---------------------------------------------------------------------------------------
# the model


@dataclass
class MipModel:
    """A solver-independent MIP: ``min offset + cost @ x`` subject to
    ``row_lower <= A x <= row_upper`` and ``col_lower <= x <= col_upper``, ``x[j]``
    integer where ``integer[j]``.  ``A`` is in compressed-row form (``starts``, ``index``,
    ``value``).

    Attributes besides the arrays:
        w: column index of each question variable (the kept questions, ``keep``).
        keep: the question columns of ``B`` the model kept (all-zero ones are dropped).
        cutoff: the largest objective value accepted (``ceil(n0*n1/2) - 1``).
        kind: ``(formulation, model)``.
    """

    cost: np.ndarray
    col_lower: np.ndarray
    col_upper: np.ndarray
    integer: np.ndarray
    offset: float
    row_lower: np.ndarray
    row_upper: np.ndarray
    starts: np.ndarray
    index: np.ndarray
    value: np.ndarray
    w: np.ndarray
    keep: np.ndarray
    cutoff: int
    n1: int
    n0: int
    kind: tuple[str, str]
    names: list[str] = field(default_factory=list)

    @property
    def num_col(self) -> int:
        return int(self.cost.shape[0])

    @property
    def num_row(self) -> int:
        return int(self.row_lower.shape[0])

    @property
    def num_nz(self) -> int:
        return int(self.index.shape[0])


class _Rows:
    """Accumulates sparse rows ``lo <= sum(val * x[idx]) <= hi``."""

    def __init__(self) -> None:
        self.idx: list[np.ndarray] = []
        self.val: list[np.ndarray] = []
        self.lo: list[float] = []
        self.hi: list[float] = []

    def add(self, idx: Any, val: Any, lo: float, hi: float) -> None:
        self.idx.append(np.asarray(idx, dtype=np.int64).ravel())
        self.val.append(np.asarray(val, dtype=np.float64).ravel())
        self.lo.append(float(lo))
        self.hi.append(float(hi))

    def add_block(self, starts: np.ndarray, idx: np.ndarray, val: np.ndarray,
                  lo: np.ndarray, hi: np.ndarray) -> None:
        """Many rows at once, in CSR form (``starts`` of length rows + 1)."""
        for r in range(lo.shape[0]):
            a, b = int(starts[r]), int(starts[r + 1])
            self.idx.append(idx[a:b])
            self.val.append(val[a:b])
        self.lo.extend(lo.tolist())
        self.hi.extend(hi.tolist())

    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        lens = np.array([a.shape[0] for a in self.idx], dtype=np.int64)
        starts = np.zeros(lens.shape[0] + 1, dtype=np.int64)
        np.cumsum(lens, out=starts[1:])
        idx = np.concatenate(self.idx) if self.idx else np.empty(0, dtype=np.int64)
        val = np.concatenate(self.val) if self.val else np.empty(0, dtype=np.float64)
        return (starts, idx.astype(np.int64), val.astype(np.float64),
                np.asarray(self.lo, dtype=np.float64), np.asarray(self.hi, dtype=np.float64))


def _aggregate(B: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct non-zero row patterns of ``B`` with their target / other counts."""
    nz = B.any(axis=1)
    if not nz.any():
        return (np.zeros((0, B.shape[1]), dtype=np.uint8), np.zeros(0, dtype=np.int64),
                np.zeros(0, dtype=np.int64))
    Bz = np.ascontiguousarray(B[nz])
    pz = pos[nz]
    packed = np.packbits(Bz, axis=1)
    _, first, inv = np.unique(packed, axis=0, return_index=True, return_inverse=True)
    inv = inv.ravel()
    order = np.argsort(first, kind="stable")  # patterns in order of first appearance
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0])
    r = rank[inv]
    u = order.shape[0]
    p = np.bincount(r, weights=pz.astype(np.float64), minlength=u).astype(np.int64)
    q = np.bincount(r, minlength=u).astype(np.int64) - p
    return Bz[first[order]], p, q


def build_model(B: Any, y: Any, groups: Any = None, *, max_rules: int = 2,
                node_size: int = 1, no_same_gender_children: bool = False,
                model: str = "gini", formulation: str = "compact",
                node_size_mode: str = "enum", n0n1_cap: int | None = 40000) -> MipModel:
    """The MIP of the split search on ``B`` (n x m, 0/1) and ``y`` (target coded 1).

    Arguments as :func:`mip_search`.  Variables, in order: ``w`` (kept questions, binary),
    ``z`` (distinct row patterns, continuous in [0, 1]), then for ``"compact"``/``"gini"``
    the bits ``b`` (binary) and ``u`` (continuous), for ``"theta"``/``"gini"`` one
    ``theta`` per (target pattern, other pattern) pair, and a binary ``delta`` when
    ``no_same_gender_children``.

    Raises:
        ValueError: ``formulation="theta"`` with ``n0*n1 > n0n1_cap``.
    """
    Bm, yv, grp, max_rules, node_size = search_args(B, y, groups, max_rules, node_size,
                                                    MAX_RULES_CAP)
    n, m = Bm.shape
    _check_choice(model, MODELS, "model")
    _check_choice(formulation, FORMULATIONS, "formulation")
    _check_choice(node_size_mode, NODE_SIZE_MODES, "node_size_mode")
    pos = yv == 1
    n1 = int(pos.sum())
    n0 = n - n1
    if formulation == "theta" and n0n1_cap is not None and n0 * n1 > n0n1_cap:
        raise ValueError(
            f'formulation="theta" (R\'s model) has n0*n1 = {n0 * n1} pair variables, more than '
            f'n0n1_cap = {n0n1_cap}; use formulation="compact" (or raise n0n1_cap)')
    return _build(Bm, pos, grp, n1, n0, max_rules, node_size, bool(no_same_gender_children),
                  model, formulation, node_size_mode)


def _check_choice(value: Any, choices: tuple[str, ...], name: str) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")


class _Cols:
    """Accumulates blocks of columns (cost, bounds, integrality, names) in order."""

    def __init__(self) -> None:
        self.cost: list[np.ndarray] = []
        self.lower: list[np.ndarray] = []
        self.upper: list[np.ndarray] = []
        self.integer: list[np.ndarray] = []
        self.names: list[str] = []
        self.count = 0

    def add(self, c: Any, lo: Any, hi: Any, is_int: bool, names: list[str]) -> np.ndarray:
        """Append ``len(c)`` columns; returns their indices."""
        start = self.count
        self.cost.append(np.asarray(c, dtype=np.float64))
        self.lower.append(np.asarray(lo, dtype=np.float64))
        self.upper.append(np.asarray(hi, dtype=np.float64))
        self.integer.append(np.full(len(c), is_int, dtype=bool))
        self.names += names
        self.count += len(c)
        return np.arange(start, self.count, dtype=np.int64)


def _link_rows(rows: _Rows, P: np.ndarray, w: np.ndarray, z: np.ndarray) -> None:
    """(4) z_r >= w_k where pattern r answers yes to question k; (5) z_r <= sum_k B_rk w_k."""
    u = P.shape[0]
    rr, kk = np.nonzero(P)
    nnz = rr.shape[0]
    st = np.arange(0, 2 * nnz + 1, 2, dtype=np.int64)
    idx = np.empty(2 * nnz, dtype=np.int64)
    val = np.empty(2 * nnz, dtype=np.float64)
    idx[0::2] = w[kk]
    idx[1::2] = z[rr]
    val[0::2] = 1.0
    val[1::2] = -1.0
    rows.add_block(st, idx, val, np.full(nnz, -np.inf), np.zeros(nnz))
    rptr = np.zeros(u + 1, dtype=np.int64)
    np.cumsum(np.bincount(rr, minlength=u), out=rptr[1:])
    for r in range(u):
        ks = kk[rptr[r]:rptr[r + 1]]
        rows.add(np.concatenate(([z[r]], w[ks])), np.concatenate(([1.0], -np.ones(len(ks)))),
                 -np.inf, 0.0)


def _size_rows(rows: _Rows, cols: _Cols, w: np.ndarray, z: np.ndarray, kgrp: np.ndarray,
               kcount: np.ndarray, size: np.ndarray, n: int, max_rules: int,
               node_size: int, node_size_mode: str) -> None:
    """Rule-size, group and node-size rows (``kgrp``/``kcount``: group and row count of each
    kept question; ``size``: rows of each pattern)."""
    pk, u = w.shape[0], z.shape[0]
    # (14) at most max_rules questions
    if pk:
        rows.add(w, np.ones(pk), -np.inf, float(max_rules))
    # groups: at most one question per group
    for g in np.unique(kgrp):
        members = np.flatnonzero(kgrp == g)
        if members.shape[0] > 1:
            rows.add(w[members], np.ones(members.shape[0]), -np.inf, 1.0)
    # (15), (16) node_size rows on both sides
    if node_size > 0 and u:
        rows.add(z, size.astype(np.float64), float(node_size), float(n - node_size))
    if node_size_mode == "enum" and node_size > 0:
        # ENUM extends only rules whose TRUE side holds node_size rows, adding questions
        # of larger index: the lowest-index question of a rule must cover node_size rows
        small = kcount < node_size
        for j in np.flatnonzero(small):
            if j == 0:
                cols.upper[0][0] = 0.0
                continue
            rows.add(np.concatenate(([w[j]], w[:j])),
                     np.concatenate(([1.0], -np.ones(j))), -np.inf, 0.0)


def _gini_compact(rows: _Rows, cols: _Cols, z: np.ndarray, p: np.ndarray, q: np.ndarray,
                  n1: int, n0: int) -> None:
    """The product FP * FN of the Gini objective through the binary expansion of one
    count (FP or FN, whichever takes fewer bits) and McCormick bounds."""
    fp_max = int(q.sum())
    # expand the count with fewer bits: FP (0..fp_max) or FN (0..n1)
    if fp_max.bit_length() <= n1.bit_length():
        T, cap = fp_max.bit_length(), n1
    else:
        T, cap = n1.bit_length(), n0
    if not T:
        return
    pw = 2.0 ** np.arange(T)
    b = cols.add(np.zeros(T), np.zeros(T), np.ones(T), True, [])
    uu = cols.add(-2.0 * pw, np.zeros(T), np.full(T, float(cap)), False,
                  [f"b{t}" for t in range(T)] + [f"u{t}" for t in range(T)])
    if fp_max.bit_length() <= n1.bit_length():
        # FP = sum 2^t b_t; u_t <= FN = n1 - sum p z; u_t <= n1 b_t
        rows.add(np.concatenate((z, b)), np.concatenate((q, -pw)), 0.0, 0.0)
        for t in range(T):
            rows.add(np.concatenate(([uu[t]], z)), np.concatenate(([1.0], p)),
                     -np.inf, float(n1))
    else:
        # FN = n1 - sum p z = sum 2^t b_t; u_t <= FP = sum q z; u_t <= n0 b_t
        rows.add(np.concatenate((z, b)), np.concatenate((p, pw)), float(n1), float(n1))
        for t in range(T):
            rows.add(np.concatenate(([uu[t]], z)), np.concatenate(([1.0], -q)),
                     -np.inf, 0.0)
    for t in range(T):
        rows.add([uu[t], b[t]], [1.0, -float(cap)], -np.inf, 0.0)


def _gini_theta(rows: _Rows, cols: _Cols, z: np.ndarray, p: np.ndarray, q: np.ndarray,
                n1: int) -> None:
    """R's model: theta_ab <= 1 - z_a (a holds target rows), theta_ab <= z_b (b others)."""
    ia = np.flatnonzero(p > 0)
    ib = np.flatnonzero(q > 0)
    A, Bb = np.meshgrid(ia, ib, indexing="ij")
    A, Bb = A.ravel(), Bb.ravel()
    npair = A.shape[0]
    th = cols.add(-2.0 * (p[A] * q[Bb]), np.zeros(npair), np.ones(npair), False,
                  [f"t{a}_{bb}" for a, bb in zip(A.tolist(), Bb.tolist(), strict=True)])
    st = np.arange(0, 2 * npair + 1, 2, dtype=np.int64)
    idx = np.empty(2 * npair, dtype=np.int64)
    val = np.ones(2 * npair, dtype=np.float64)
    idx[0::2] = th
    idx[1::2] = z[A]
    rows.add_block(st, idx.copy(), val.copy(), np.full(npair, -np.inf), np.ones(npair))
    idx[1::2] = z[Bb]
    val[1::2] = -1.0
    rows.add_block(st, idx.copy(), val, np.full(npair, -np.inf), np.zeros(npair))
    # target rows that answer no to every question are always false negatives: their
    # theta with an other-class pattern b equals z_b, folded into z_b's cost
    p_zero = n1 - int(p.sum())
    cols.cost[1][:] -= 2.0 * p_zero * q


def _no_same_gender_rows(rows: _Rows, cols: _Cols, z: np.ndarray, p: np.ndarray,
                         q: np.ndarray, n1: int, n0: int) -> None:
    """delta = 1: TP - FP >= 1 and TN - FN >= 1; delta = 0: FP - TP >= 1 and FN - TN >= 1."""
    d = cols.add(np.zeros(1), np.zeros(1), np.ones(1), True, ["delta"])[0]
    M = float(n1 + n0 + 2)
    diff = (p - q).astype(np.float64)  # TP - FP = sum (p - q) z; TN - FN = n0 - n1 + it
    zi = np.concatenate((z, [d]))
    rows.add(zi, np.concatenate((diff, [-M])), 1.0 - M, np.inf)
    rows.add(zi, np.concatenate((-diff, [M])), 1.0, np.inf)
    rows.add(zi, np.concatenate((diff, [-M])), 1.0 - M - (n0 - n1), np.inf)
    rows.add(zi, np.concatenate((-diff, [M])), 1.0 - (n1 - n0), np.inf)


def _build(B: np.ndarray, pos: np.ndarray, grp: np.ndarray, n1: int, n0: int, max_rules: int,
           node_size: int, nsgc: bool, model: str, formulation: str,
           node_size_mode: str) -> MipModel:
    n = n1 + n0
    colcount = B.sum(axis=0, dtype=np.int64)
    keep = np.flatnonzero(colcount > 0)
    Bk = np.ascontiguousarray(B[:, keep])
    pk = len(keep)
    P, p, q = _aggregate(Bk, pos)
    u = P.shape[0]
    cols = _Cols()
    # w: question chosen; a question covering more than n - node_size rows never fits
    w_ub = np.where(colcount[keep] > n - node_size, 0.0, 1.0)
    w = cols.add(np.zeros(pk), np.zeros(pk), w_ub, True, [f"w{k}" for k in keep])
    # z: pattern on the TRUE side; cost of the linear part n1*FP + n0*FN - n0*n1
    z = cols.add(n1 * q - n0 * p, np.zeros(u), np.ones(u), False, [f"z{r}" for r in range(u)])
    rows = _Rows()
    _link_rows(rows, P, w, z)
    _size_rows(rows, cols, w, z, grp[keep], colcount[keep], p + q, n, max_rules, node_size,
               node_size_mode)
    if model == "gini" and formulation == "compact" and u:
        _gini_compact(rows, cols, z, p, q, n1, n0)
    elif model == "gini" and formulation == "theta" and u:
        _gini_theta(rows, cols, z, p, q, n1)
    if nsgc:
        _no_same_gender_rows(rows, cols, z, p, q, n1, n0)
    starts, idx, val, rlo, rhi = rows.csr()
    return MipModel(
        cost=np.concatenate(cols.cost), col_lower=np.concatenate(cols.lower),
        col_upper=np.concatenate(cols.upper), integer=np.concatenate(cols.integer),
        offset=float(n0 * n1), row_lower=rlo, row_upper=rhi, starts=starts, index=idx,
        value=val, w=w, keep=keep.astype(np.int64), cutoff=int(math.ceil(n0 * n1 / 2)) - 1,
        n1=n1, n0=n0, kind=(formulation, model), names=cols.names)


# ---------------------------------------------------------------------------------------
# HiGHS


@dataclass
class _Solution:
    x: np.ndarray | None
    status: str  # the name of HiGHS's model status, e.g. "kOptimal", "kTimeLimit"
    text: str  # HiGHS's wording of it
    objective: float
    bound: float
    seconds: float


def _solve_highs(mm: MipModel, time_limit: float, threads: int | None,
                 verbose: bool = False) -> _Solution:
    highspy = _import_highspy()
    h = highspy.Highs()
    h.setOptionValue("output_flag", bool(verbose))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    h.setOptionValue("mip_rel_gap", 0.0)
    # v is an integer at every integer point: an incumbent within < 1 of the bound is optimal
    h.setOptionValue("mip_abs_gap", 0.999)
    h.setOptionValue("time_limit", float(time_limit))
    # only rules with v < n0*n1/2 are of use (ENUM's start value)
    h.setOptionValue("objective_bound", float(mm.cutoff) + 0.5)
    lp = highspy.HighsLp()
    lp.num_col_ = mm.num_col
    lp.num_row_ = mm.num_row
    lp.col_cost_ = mm.cost
    lp.col_lower_ = mm.col_lower
    lp.col_upper_ = mm.col_upper
    lp.row_lower_ = np.where(np.isinf(mm.row_lower), -highspy.kHighsInf, mm.row_lower)
    lp.row_upper_ = np.where(np.isinf(mm.row_upper), highspy.kHighsInf, mm.row_upper)
    lp.offset_ = mm.offset
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = mm.starts
    lp.a_matrix_.index_ = mm.index
    lp.a_matrix_.value_ = mm.value
    lp.a_matrix_.num_col_ = mm.num_col
    lp.a_matrix_.num_row_ = mm.num_row
    lp.integrality_ = [highspy.HighsVarType.kInteger if f else highspy.HighsVarType.kContinuous
                       for f in mm.integer]
    t0 = time.perf_counter()
    h.passModel(lp)
    h.run()
    secs = time.perf_counter() - t0
    ms = h.getModelStatus()
    status = ms.name
    text = h.modelStatusToString(ms)
    info = h.getInfo()
    x = None
    if int(info.primal_solution_status) == 2:  # kSolutionStatusFeasible
        x = np.asarray(h.getSolution().col_value, dtype=np.float64)
    bound = float(getattr(info, "mip_dual_bound", math.nan))
    return _Solution(x=x, status=status, text=text,
                     objective=float(info.objective_function_value),
                     bound=bound, seconds=secs)


# ---------------------------------------------------------------------------------------
# search functions


def _prune_redundant(B: np.ndarray, cols: list[int], node_size: int, mode: str) -> list[int]:
    """Drop questions that add no row to the rule (their removal keeps its counts)."""
    cols = sorted(cols)
    i = 0
    while i < len(cols) and len(cols) > 1:
        rest = cols[:i] + cols[i + 1:]
        same = np.array_equal(B[:, rest].any(axis=1), B[:, cols].any(axis=1))
        first_ok = mode != "enum" or node_size == 0 or int(B[:, rest[0]].sum()) >= node_size
        if same and first_ok:
            cols = rest
        else:
            i += 1
    return cols


def _feasible(B: np.ndarray, pos: np.ndarray, grp: np.ndarray, cols: list[int],
              max_rules: int, node_size: int, nsgc: bool, mode: str) -> bool:
    if not cols or len(cols) > max_rules:
        return False
    if len(set(grp[cols].tolist())) < len(cols):
        return False
    n1 = int(pos.sum())
    n0 = pos.shape[0] - n1
    tp, fp, covered = _counts(B, pos, tuple(cols))
    n = n1 + n0
    if covered < node_size or n - covered < node_size:
        return False
    if mode == "enum" and int(B[:, min(cols)].sum()) < node_size:
        return False
    return not nsgc or _nsgc_ok(tp, fp, n1 - tp, n0 - fp)


def mip_search(B: Any, y: Any, groups: Any = None, *, max_rules: int = 2,
               node_size: int = 1, no_same_gender_children: bool = False,
               time_limit: float = 180.0, model: str = "gini", formulation: str = "compact",
               threads: int | None = 1, node_size_mode: str = "enum",
               n0n1_cap: int | None = 40000, verbose: bool = False) -> SearchResult:
    """The best OR-rule of at most ``max_rules`` questions, by MIP with HiGHS.

    Args:
        B, y, groups, max_rules, node_size, no_same_gender_children: as
            :func:`pybsnsing.search.enum_search`.
        time_limit: HiGHS ``time_limit`` in (wall-clock) seconds; on time-out the
            incumbent is returned with a :class:`~pybsnsing.control.ControlWarning`.
        model: ``"gini"`` (OPT-G) or ``"error"`` (OPT-E, ``n1*FP + n0*FN``).
        formulation: ``"compact"`` or ``"theta"`` (R's model; refused past ``n0n1_cap``).
        threads: HiGHS ``threads`` (``None``: HiGHS's default).
        node_size_mode: ``"enum"`` (ENUM's reading of ``node_size``, the default, so that
            the optimum equals ENUM's) or ``"paper"`` (constraints (15)-(16) only).
        n0n1_cap: the cap of ``"theta"`` (``None``: no cap).
        verbose: HiGHS's log on standard output.

    Returns:
        :class:`~pybsnsing.search.SearchResult` with ``neval = 0``; ``objval`` recomputed
        from the rule's counts (``n0*n1/2`` and ``cols = ()`` when no rule has
        ``objval < n0*n1/2``).

    Raises:
        ImportError: highspy is not installed (``pip install "pybsnsing[mip]"``).
        ValueError, TypeError: malformed inputs.
    """
    _import_highspy()
    Bm = as_binary_matrix(B)
    n, m = Bm.shape
    yv = as_binary_vector(y, n)
    grp = as_groups(groups, m)
    nsgc, time_limit = search_limits(no_same_gender_children, time_limit, zero_time_ok=False)
    mm = build_model(Bm, yv, grp, max_rules=max_rules, node_size=node_size,
                     no_same_gender_children=nsgc, model=model, formulation=formulation,
                     node_size_mode=node_size_mode, n0n1_cap=n0n1_cap)
    max_rules = as_int(max_rules, "max_rules", 1, MAX_RULES_CAP)
    node_size = as_int(node_size, "node_size", 0)
    pos = yv == 1
    n1, n0 = mm.n1, mm.n0
    none = SearchResult(cols=(), objval=n0 * n1 / 2, neval=0, n1=n1, n0=n0)
    if mm.keep.shape[0] == 0 or n1 == 0 or n0 == 0:
        return none
    sol = _solve_highs(mm, time_limit, threads, verbose)
    if sol.status == "kTimeLimit":
        warnings.warn(
            f"HiGHS reached the time limit ({time_limit:g} s) before proving optimality; "
            f"the best rule found is used (objective {sol.objective:g}, bound {sol.bound:g})",
            ControlWarning, stacklevel=2)
    elif sol.status not in ("kOptimal", "kInfeasible", "kObjectiveBound",
                            "kUnboundedOrInfeasible"):
        warnings.warn(f"HiGHS stopped with status {sol.text!r}", ControlWarning,
                      stacklevel=2)
    if sol.x is None:
        return none
    cols = [int(mm.keep[j]) for j, c in enumerate(mm.w) if sol.x[c] > 0.5]
    cols = _prune_redundant(Bm, cols, node_size, node_size_mode)
    if not _feasible(Bm, pos, grp, cols, max_rules, node_size, nsgc, node_size_mode):
        return none
    tp, fp, _ = _counts(Bm, pos, tuple(cols))
    v = rule_objective(fp, n1 - tp, n1, n0, model)
    if v > mm.cutoff:
        return none
    return SearchResult(cols=tuple(cols), objval=float(v), neval=0, n1=n1, n0=n0)


def greedy_search(
    B: Any,
    y: Any,
    groups: Any = None,
    *,
    max_rules: int = 2,
    node_size: int = 1,
    model: str = "gini",
    greedy_level: float = 0.9,
) -> SearchResult:
    """R's greedy split solver (R bsnsing's GitHub version, ``opt.solver = "greedy"``).

    Start with no question and the objective ``n0*n1`` (no split).  Each round evaluates
    every question not yet used (and, unlike R, outside the groups already used), takes
    the one with the smallest objective (the first on ties) and stops when none improves,
    when its objective is not below ``greedy_level`` times the current one, when the rule
    with it leaves fewer than ``node_size`` rows on either side, or (unlike R, which has
    no cap) when the rule holds ``max_rules`` questions.  ``no_same_gender_children`` is
    not applied, as in R.

    ``model = "gini"`` is R's criterion; for ``"error"`` R maximised the plain accuracy
    ``TP + TN``, here the OPT-E objective ``n1*FP + n0*FN`` is minimised in the same way.

    Returns:
        :class:`~pybsnsing.search.SearchResult`: ``objval`` the objective of the rule
        (``n0*n1`` when no question was added), ``neval`` the rules evaluated.
    """
    Bm, yv, grp, max_rules, node_size = search_args(B, y, groups, max_rules, node_size,
                                                    MAX_RULES_CAP)
    n, m = Bm.shape
    _check_choice(model, MODELS, "model")
    level = float(greedy_level)
    pos = yv == 1
    n1 = int(pos.sum())
    n0 = n - n1
    Bp = Bm[pos].astype(np.int64)
    Bn = Bm[~pos].astype(np.int64)
    cov_p = np.zeros(n1, dtype=bool)
    cov_n = np.zeros(n0, dtype=bool)
    tp = fp = 0
    chosen: list[int] = []
    used = np.zeros(m, dtype=bool)
    best = n0 * n1
    neval = 0
    while len(chosen) < max_rules:
        cand = np.flatnonzero(~used)
        if cand.shape[0] == 0:
            break
        ctp = tp + (Bp[~cov_p][:, cand]).sum(axis=0)
        cfp = fp + (Bn[~cov_n][:, cand]).sum(axis=0)
        neval += cand.shape[0]
        cfn = n1 - ctp
        v = n1 * cfp + n0 * cfn
        if model == "gini":
            v = v - 2 * cfp * cfn
        k = int(np.argmin(v))
        if not v[k] < best:
            break
        if v[k] >= level * best:
            break
        covered = int(ctp[k] + cfp[k])
        if min(covered, n - covered) < node_size:
            break
        j = int(cand[k])
        chosen.append(j)
        used |= grp == grp[j]
        cov_p |= Bm[pos, j].astype(bool)
        cov_n |= Bm[~pos, j].astype(bool)
        tp, fp = int(ctp[k]), int(cfp[k])
        best = int(v[k])
    return SearchResult(cols=tuple(sorted(chosen)), objval=float(best), neval=int(neval),
                        n1=n1, n0=n0)


def split_search(B: Any, y: Any, groups: Any = None, *, solver: str, max_rules: int = 2,
                 node_size: int = 1, no_same_gender_children: bool = False,
                 time_limit: float = 180.0, model: str = "gini", greedy_level: float = 0.9,
                 formulation: str = "compact", n0n1_cap: int | None = 40000) -> SearchResult:
    """The split search of ``opt_solver = solver`` for ``"highs"`` (and R's MIP names)
    and ``"greedy"``; what :func:`pybsnsing.search.enum_search` and the tree grower call."""
    if solver == "greedy":
        return greedy_search(B, y, groups, max_rules=max_rules, node_size=node_size,
                             model=model, greedy_level=greedy_level)
    if solver == "highs" or solver in R_MIP_SOLVERS:
        return mip_search(B, y, groups, max_rules=max_rules, node_size=node_size,
                          no_same_gender_children=no_same_gender_children,
                          time_limit=time_limit, model=model, formulation=formulation,
                          n0n1_cap=n0n1_cap)
    raise ValueError(f"solver must be one of {MIP_SOLVERS + R_MIP_SOLVERS}, got {solver!r}")
