"""DT-SLIM: make a perfect tree shallower with SAT, locally (Schidler & Szeider, AAAI 2021).

* :func:`min_depth_tree` — an exact minimum-depth perfect tree for small data
  (SAT encodings of :mod:`pybsnsing.optimal.sat_encodings`; ``encoding="auto"``
  uses DT_depth below depth 10 and DT_pb from 10 on, as the paper's hybrid).
* :func:`slim_improve` — DT-SLIM as the code of the paper's experiments runs it
  (ASchidler/decision_tree, ``improve/improve_depth_first.py`` and
  ``improve/improver.py`` at e96d13a, 2020-09-05): take the deepest node v not
  yet done; on its path (leaf first) try, in this order, ls: the highest node
  whose whole subtree has at most c(depth) raw rows, unreduced (r = 0); la / lr:
  the highest node whose whole subtree reduced to its own features (r = 1) / to
  a support set (r = 2, the smallest of three heuristics) fits c(depth); then, from
  the ROOT down to just above that node (skipping nodes done), ma: the top k
  levels of T_u (r = 1) and mr: T' grown greedily by maximal subtree depth
  (safe, r = 2). Cut-off parts become "special classes"; the SAT solver is asked
  for depth d(T') - 1, then lower until UNSAT, within ``sat_timeout`` seconds
  in all; the cut-off subtrees are pasted back (the subtree itself under the
  first special leaf, a copy under any other). On a replacement the path's
  nodes are no longer done; on none, they all are. The per-depth sample limits
  are the authors' tables (:data:`SAMPLE_LIMITS`). After every replacement the
  training error is 0 and the depth has not grown (Theorem 2 / Corollary 1):
  both asserted. Kept from the earlier reading of the paper: a local instance
  already refuted (UNSAT at a target) or timed out is not solved again
  (``stats["known"]``), and a tree found before a timeout is used (the
  authors' runner drops it). ``stats["calls"]`` logs every SAT call (step
  ls/la/lr/ma/mr, root depth, rows, samples, features, depths, encoding,
  size, seconds, status; ``verbose=2`` prints them).
  Added (not in the paper, ``murtree_seconds=0`` turns it off): each depth
  question of a local instance (a perfect tree of depth <= d?) goes first, for a
  few seconds, to pybsnsing's MurTree engine (:func:`murtree_depth`: zero training
  errors at depth <= d is the same question). It is exact, so a question it
  answers gets the SAT solver's answer; only the time differs. It settles small
  instances SAT proofs are slow on: weka australian's 30 samples x 18 features
  at depth 9 took Glucose 228 s and MurTree 0.23 s.
* :func:`greedy_fit` — a perfect-fit greedy tree (Gini or entropy, no depth
  limit, no pruning), standing in for C4.5 / ITI as a starting tree.
* Budgets of the paper (§6): :data:`PRESETS` ``60``, ``300``, ``800`` seconds.

Requires python-sat (the ``sat`` extra: ``pip install "pybsnsing[sat]"``).
Written from the paper and the project's specification; the authors' code
(unlicensed) was read for its behaviour only, none of it is copied.
"""

from __future__ import annotations

import functools
import hashlib
import numbers
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from ..errors import PybsnsingValueError
from ..validation import check_binary
from .model import OptimalTreeModel, OptimalTreeNode
from .sat_encodings import SatNode, encoding_size, pysat, solve_depth
from .solver import encode_y as _encode_y

__all__ = ["PRESETS", "SlimResult", "greedy_fit", "min_depth_tree", "murtree_depth",
           "sample_limit", "slim_improve"]


# --------------------------------------------------------------------------- limits
#: local instances whose encoding would exceed this many clauses are skipped (memory). The
#: authors have no such cap (their runs had 8 GB); the clauses go to the solver block by
#: block (no Python copy): 27.8M clauses took 1.76 GB peak and 38 s to encode here. Memory
#: is not proportional to clauses: DT_depth with ~700 features (weka australian's ls, 45-48M
#: clauses at depth 8) peaked at 18.5 GB and took 150-214 s to encode
#: (bench/results/slim_d300_session6.txt). (It was 4M: that skipped the ROOT instances of
#: hungarian -- e.g. 174 samples x 41 features, 15M clauses at depth 12 -- which take the
#: tree from 13 to 9.)
MAX_CLAUSES = 50_000_000
#: peak bytes per clause to budget for (DT_depth at ~700 features: 18.5 GB at 47M clauses)
BYTES_PER_CLAUSE = 400


def clause_cap() -> int:
    """The clause cap of a run: :data:`MAX_CLAUSES`, lowered so that an encoding's peak
    (:data:`BYTES_PER_CLAUSE` per clause) stays within 60 % of the memory available now
    (Linux; elsewhere :data:`MAX_CLAUSES`) -- a larger local instance is skipped rather
    than the process killed for want of memory."""
    free = _available_memory()
    if free is None:
        return MAX_CLAUSES
    return max(1_000_000, min(MAX_CLAUSES, int(0.6 * free / BYTES_PER_CLAUSE)))


def _available_memory() -> int | None:
    """Bytes of memory available to a new allocation (Linux's ``MemAvailable``), or None."""
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None

#: the sample limits c_t(d) of the authors' experiments (index = depth of the local
#: subtree; ASchidler/decision_tree, improve/improve_depth_first.py at e96d13a,
#: 2020-09-05, the last change before the AAAI'21 runs): 60 s, 300 s and 800 s
SAMPLE_LIMITS: dict[int, tuple[int, ...]] = {
    60: (175, 175, 175, 175, 175, 175, 175, 175, 175, 150, 120, 70, 70, 70, 70, 70, 0),
    300: (300, 300, 300, 300, 270, 270, 270, 270, 270, 270, 250, 200, 200, 175, 90, 90, 0),
    800: (500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 500, 400, 340, 250, 250, 215)
    + (105,) * 25,
}
#: the depth limits d_t of the same code (the paper's text: 12, 15, 39)
DEPTH_LIMITS = {60: 12, 300: 15, 800: 38}


def sample_limit(budget: int) -> Callable[[int], int]:
    """The per-depth sample limit c_t(d) for budget t in {60, 300, 800} s.

    The table of the authors' experiment code (:data:`SAMPLE_LIMITS`): for 300 s,
    300 samples up to depth 3, 270 at depths 4-9, 250 at 10, 200 at 11-12, 175 at
    13, 90 at 14-15 (the paper: "from 300 to 90", d_300 = 15); for 800 s 500 -> 105
    (d_800 = 38); for 60 s 175 -> 70 (d_60 = 12; the paper's text says 70 -> 15).
    0 beyond the depth limit. The limit applies to the rows of the local instance
    as the authors count them: raw rows for the unreduced instance, distinct rows
    after the feature reduction otherwise.
    """
    table, d_max = SAMPLE_LIMITS[int(budget)], DEPTH_LIMITS[int(budget)]

    def c(d: int) -> int:
        if d > d_max or d >= len(table):
            return 0
        return table[max(d, 0)]

    c.depth_limit = d_max  # type: ignore[attr-defined]
    return c


#: ``murtree_seconds=None``: this share of ``sat_timeout`` goes to MurTree first
MURTREE_SHARE = 0.05
#: the deepest question given to MurTree (its arrays grow as 2^depth; ``murtree_fit``'s
#: own limit, 12, bounds a user's search, not this zero-error one)
MURTREE_MAX_DEPTH = 16

#: budget -> (sample_limit, depth_limit, sat_timeout), the paper's d_t / c_t / t.
PRESETS: dict[int, tuple[Callable[[int], int], int, float]] = {
    t: (sample_limit(t), sample_limit(t).depth_limit, float(t)) for t in (60, 300, 800)
}


# --------------------------------------------------------------------------- trees
def _rows_pure(y: np.ndarray) -> bool:
    return len(y) == 0 or bool((y == y[0]).all())


def _from_model(model: OptimalTreeModel, classes: np.ndarray) -> SatNode:
    index = {c: i for i, c in enumerate(classes.tolist())}
    nodes = model.nodes

    def rec(k: int) -> SatNode:
        nd = nodes[k]
        if nd.is_leaf:
            lab = model.classes_[nd.prediction]
            return SatNode(label=index.get(lab.item() if hasattr(lab, "item") else lab, 0))
        return SatNode(nd.feature, rec(nd.left), rec(nd.right))

    return rec(0)


def _relabel(root: SatNode, X: np.ndarray, y: np.ndarray, what: str = "tree") -> None:
    """Leaf labels from the training rows; raise when a leaf is impure."""

    def rec(nd: SatNode, S: np.ndarray, parent_major: int) -> None:
        major = int(np.bincount(y[S]).argmax()) if len(S) else parent_major
        if nd.is_leaf:
            if not _rows_pure(y[S]):
                raise PybsnsingValueError(
                    f"the {what} is not perfect on the training data: a leaf holds "
                    f"{len(S)} rows of {len(np.unique(y[S]))} classes (DT-SLIM needs a tree "
                    "with 0 training errors; grow it to purity, e.g. greedy_fit)")
            nd.label = major
            return
        side = X[S, nd.feature] == 1
        rec(nd.lo, S[~side], major)
        rec(nd.hi, S[side], major)

    rec(root, np.arange(len(y)), int(np.bincount(y).argmax()) if len(y) else 0)


def _to_model(root: SatNode, X: np.ndarray, y: np.ndarray, classes: np.ndarray,
              names: list[str], runtime: float, optimal: bool, stats: dict) -> OptimalTreeModel:
    K = len(classes)
    nodes: list[OptimalTreeNode] = []

    def rec(nd: SatNode, S: np.ndarray, depth: int) -> int:
        k = len(nodes)
        counts = np.bincount(y[S], minlength=K).astype(np.int64)
        pred = int(np.argmax(counts)) if counts.sum() else max(nd.label, 0)
        node = OptimalTreeNode(k, depth, nd.feature, names[nd.feature] if nd.feature >= 0 else None,
                               -1, -1, counts, pred)
        nodes.append(node)
        if not nd.is_leaf:
            side = X[S, nd.feature] == 1
            node.left = rec(nd.lo, S[~side], depth + 1)
            node.right = rec(nd.hi, S[side], depth + 1)
        return k

    rec(root, np.arange(len(y)), 0)
    errors = sum(nd.errors for nd in nodes if nd.is_leaf)
    return OptimalTreeModel(nodes=nodes, classes_=classes, feature_names=names,
                            objective=int(errors),
                            optimal=optimal, runtime=runtime, max_depth=root.depth(),
                            max_num_nodes=None, time_limit=float("inf"), n_samples=len(y),
                            stats=stats)


def _prepare(X_bin: Any, y: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    names = [str(c) for c in X_bin.columns] if isinstance(X_bin, pd.DataFrame) else None
    X = check_binary(X_bin, "X_bin")
    n, m = X.shape
    if n == 0:
        raise PybsnsingValueError("X_bin has no rows")
    classes, codes = _encode_y(y, n)
    return X, codes, classes, names or [f"x{j}" for j in range(m)]


def _distinct(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct rows and their class; raise if identical rows disagree."""
    U, inv = np.unique(X, axis=0, return_inverse=True)
    inv = inv.ravel()
    lab = np.full(len(U), -1, dtype=np.int64)
    lab[inv] = y
    if (lab[inv] != y).any():
        bad = int(np.flatnonzero(lab[inv] != y)[0])
        raise PybsnsingValueError(
            f"no perfect tree exists: row {bad} has a twin row (same features) of another class")
    return U, lab


def greedy_fit(X_bin: Any, y: Any, *, criterion: str = "gini") -> OptimalTreeModel:
    """A perfect-fit greedy tree: best Gini (or entropy) split until every leaf is pure.

    No depth limit, no pruning; only splits with both sides non-empty; ties to the
    first feature. Stands in for Weka's C4.5 / ITI as DT-SLIM's starting tree.
    Raises when identical rows have different classes (no perfect tree exists).
    """
    if criterion not in ("gini", "entropy"):
        raise PybsnsingValueError(f"criterion must be 'gini' or 'entropy', not {criterion!r}")
    t0 = time.perf_counter()
    X, y, classes, names = _prepare(X_bin, y)
    _distinct(X, y)
    K = len(classes)
    Xf = X.astype(np.float64)

    def imp(c: np.ndarray) -> np.ndarray:  # c: (..., K) counts -> weighted impurity
        n = c.sum(-1, keepdims=True)
        p = np.divide(c, n, out=np.zeros_like(c, dtype=float), where=n > 0)
        if criterion == "gini":
            return n[..., 0] * (1.0 - (p * p).sum(-1))
        with np.errstate(divide="ignore", invalid="ignore"):
            lg = np.where(p > 0, np.log2(np.where(p > 0, p, 1.0)), 0.0)
        return -n[..., 0] * (p * lg).sum(-1)

    def rec(S: np.ndarray) -> SatNode:
        ys = y[S]
        if _rows_pure(ys):
            return SatNode(label=int(ys[0]))
        Y = np.zeros((len(S), K))
        Y[np.arange(len(S)), ys] = 1.0
        c1 = Xf[S].T @ Y                       # (m, K) counts with feature = 1
        tot = Y.sum(0)
        c0 = tot[None, :] - c1
        n1 = c1.sum(1)
        score = imp(c0) + imp(c1)
        score[(n1 == 0) | (n1 == len(S))] = np.inf
        f = int(np.argmin(score))
        side = X[S, f] == 1
        return SatNode(f, rec(S[~side]), rec(S[side]))

    root = rec(np.arange(len(y)))
    return _to_model(root, X, y, classes, names, time.perf_counter() - t0, False,
                     {"method": f"greedy ({criterion})"})


# --------------------------------------------------------------------------- min depth
def min_depth_tree(X_bin: Any, y: Any, *, encoding: str = "auto", solver: str = "g4",
                   time_limit: float | None = None) -> OptimalTreeModel:
    """An exact minimum-depth tree with 0 training errors (small data).

    Asks the SAT solver for depth 1, 2, ... (the first satisfiable depth is the
    minimum). ``encoding``: "depth" (Avellaneda's DT_depth), "partition" (DT_pb)
    or "auto" (DT_depth below depth 10, DT_pb from 10 on). ``solver``: a
    python-sat name, "g4" (Glucose 4.1) or "cd19" (CaDiCaL 1.9.5). When
    ``time_limit`` seconds run out, the greedy perfect tree is returned with
    ``optimal=False`` (``stats["lower_bound"]`` the depth proved necessary).
    Raises PybsnsingValueError when identical rows have different classes.
    """
    if encoding not in ("auto", "depth", "partition"):
        raise PybsnsingValueError(
            f"encoding must be 'auto', 'depth' or 'partition', not {encoding!r}")
    pysat("min_depth_tree")
    t0 = time.perf_counter()
    X, y, classes, names = _prepare(X_bin, y)
    U, lab = _distinct(X, y)
    keep = np.flatnonzero(U.min(0) != U.max(0))
    stats: dict[str, Any] = {"encoding": encoding, "solver": solver, "calls": []}
    if _rows_pure(lab):
        return _to_model(SatNode(label=int(lab[0])), X, y, classes, names,
                         time.perf_counter() - t0, True, stats)
    Uk = U[:, keep]
    d = 1
    while True:
        left = None if time_limit is None else time_limit - (time.perf_counter() - t0)
        if left is not None and left <= 0:
            status, tree = "timeout", None
        else:
            status, tree, info = solve_depth(Uk, lab, d, encoding=encoding, solver=solver,
                                             time_limit=left)
            stats["calls"].append((d, status, info.get("encoding"), info.get("clauses")))
        if status == "sat":
            break
        if status == "timeout":
            g = greedy_fit(X, y)
            stats.update(lower_bound=d, timed_out=True)
            g.stats = stats
            g.optimal = False
            g.runtime = time.perf_counter() - t0
            return g
        d += 1
    _map_features(tree, keep)
    stats["lower_bound"] = d
    return _to_model(tree, X, y, classes, names, time.perf_counter() - t0, True, stats)


def murtree_depth(X: np.ndarray, y: np.ndarray, d: int, time_limit: float,
                  ) -> tuple[str, SatNode | None, dict]:
    """Is there a perfect tree of depth <= ``d`` (at most :data:`MURTREE_MAX_DEPTH`) for
    0/1 rows ``X`` with class codes ``y`` (0..K-1)? :func:`solve_depth`'s question,
    answered by the MurTree engine (fewest training errors at depth <= d; errors-only
    objective, so it stops at the first perfect tree): ``("sat", tree, info)``,
    ``("unsat", None, info)``, or ``("timeout", None, info)`` when ``time_limit`` seconds
    ran out first."""
    from . import _engine

    if not 1 <= d <= MURTREE_MAX_DEPTH:
        raise PybsnsingValueError(
            f"murtree_depth: depth must be 1..{MURTREE_MAX_DEPTH}, not {d}")
    t0 = time.perf_counter()
    y = np.ascontiguousarray(y, dtype=np.int64)
    info: dict[str, Any] = {"encoding": "murtree", "clauses": 0, "vars": None,
                            "encode_seconds": 0.0}
    if _rows_pure(y):
        return "sat", SatNode(label=int(y[0]) if len(y) else 0), info
    packed = _engine.pack(X, y, int(y.max()) + 1)
    dd, nn = _engine.normalise(d, 2 ** d - 1)
    res = _engine.search(packed, dd, nn, 1, 0, max(float(time_limit), 0.0))
    info["seconds"] = time.perf_counter() - t0
    if res.cost == 0:
        def rec(k: int) -> SatNode:
            f = int(res.feature[k])
            if f < 0:
                return SatNode(label=int(res.counts[k].argmax()))
            lo, hi = int(res.left[k]), int(res.right[k])
            if not res.counts[lo].any():
                return rec(hi)
            if not res.counts[hi].any():
                return rec(lo)
            return SatNode(f, rec(lo), rec(hi))

        return "sat", rec(0), info
    return ("unsat" if res.optimal else "timeout"), None, info


def _map_features(nd: SatNode, cols: np.ndarray) -> None:
    if nd.is_leaf:
        return
    nd.feature = int(cols[nd.feature])
    _map_features(nd.lo, cols)
    _map_features(nd.hi, cols)


# --------------------------------------------------------------------------- DT-SLIM
@dataclass
class SlimResult:
    """What :func:`slim_improve` returns.

    Attributes:
        tree: the improved tree (an :class:`OptimalTreeModel`, 0 training errors).
        trace: one dict per replacement: ``time`` (s since the start), ``depth``,
            ``nodes`` (branching nodes), ``train_acc``, ``method`` (r, l, root depth,
            local depth before -> after, encoding), as the authors' ``process_change`` prints.
        initial_depth, final_depth: depth before and after.
        runtime: seconds; ``stats``: SAT calls, timeouts, completed (bool: every
            node done, i.e. not stopped by ``total_time_limit``).
    """

    tree: OptimalTreeModel
    trace: list[dict] = field(default_factory=list)
    initial_depth: int = 0
    final_depth: int = 0
    runtime: float = 0.0
    stats: dict = field(default_factory=dict)


#: greedy_cover is skipped when (pairs of rows of different classes) x (features) exceeds this
GREEDY_CELLS = 40_000_000


def greedy_cover(Xs: np.ndarray, lab: np.ndarray, cand: np.ndarray) -> np.ndarray | None:
    """A support set by greedy maximum cover (the authors' third heuristic, ``min_key2``
    in ``bdd_instance.py``): every pair of rows of different classes must differ on a
    chosen feature; repeatedly take the feature of ``cand`` on which the most pairs not
    yet separated differ (ties: the first), until all are. Pairs are counted over the
    rows as given (a row twice counts twice, as the authors' count over the local
    instance's samples). Sorted feature numbers; None when the pair-by-feature table
    would exceed :data:`GREEDY_CELLS` cells."""
    Xc = np.ascontiguousarray(Xs[:, cand], dtype=np.uint8)
    rows, mult = np.unique(np.column_stack([Xc, lab]), axis=0, return_counts=True)
    Xu, lu = rows[:, :-1], rows[:, -1]
    I, J = np.triu_indices(len(lu), 1)
    apart = lu[I] != lu[J]
    I, J = I[apart], J[apart]
    if len(I) * max(len(cand), 1) > GREEDY_CELLS:
        return None
    D = Xu[I] != Xu[J]                       # (pairs, features): the pair differs on f
    w = mult[I] * mult[J]                    # pairs of rows behind each distinct pair
    cnt = _weighted_sum(D, w)
    alive = np.ones(len(I), dtype=bool)
    chosen: list[int] = []
    while alive.any():
        f = int(np.argmax(cnt))
        if cnt[f] == 0:  # pragma: no cover - identical rows of different classes
            raise PybsnsingValueError("no support set: identical rows of different classes")
        chosen.append(f)
        hit = alive & D[:, f]
        cnt -= _weighted_sum(D[hit], w[hit])
        alive &= ~hit
    return np.array(sorted(int(cand[f]) for f in chosen), dtype=np.int64)


def _weighted_sum(D: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``w @ D`` for a boolean ``D``, a block of rows at a time (bounded temporaries)."""
    out = np.zeros(D.shape[1], dtype=np.int64)
    block = max(1, 1_000_000 // max(1, D.shape[1]))
    for a in range(0, len(D), block):
        out += w[a:a + block] @ D[a:a + block].astype(np.int64)
    return out


class _Slim:
    def __init__(self, root: SatNode, X: np.ndarray, y: np.ndarray, K: int,
                 climit: Callable[[int], int], dlimit: int, sat_timeout: float,
                 solver: str, encoding: str, support: str, murtree_seconds: float = 0.0):
        self.root, self.X, self.y, self.K = root, X, y, K
        self.murtree_seconds = murtree_seconds
        self.climit, self.dlimit, self.sat_timeout = climit, dlimit, sat_timeout
        self.solver, self.encoding, self.support = solver, encoding, support
        rng = np.random.default_rng(12345)
        self.w = rng.integers(1, 2 ** 63 - 1, size=X.shape[1], dtype=np.uint64)
        self.stats = {"sat_calls": 0, "sat_timeouts": 0, "replacements": 0, "too_big": 0,
                      "known": 0, "murtree_calls": 0, "murtree_answers": 0}
        #: local instance (hash of its distinct rows and classes) -> the deepest target
        #: proved UNSAT, and the targets that timed out (with the seconds they were given)
        self.known: dict[bytes, dict] = {}
        self.last_status = ""
        self.min_target = 2
        self.max_clauses = clause_cap()
        self.log: Callable[[dict], None] | None = None
        self.annotate()

    # ----- bookkeeping
    def annotate(self) -> None:
        self.rows: dict[int, np.ndarray] = {}
        self.height: dict[int, int] = {}
        self.parent: dict[int, SatNode | None] = {}
        self.depth_of: dict[int, int] = {}
        self.nodes: list[SatNode] = []

        def rec(nd: SatNode, S: np.ndarray, dep: int, par: SatNode | None) -> int:
            i = id(nd)
            self.rows[i], self.parent[i], self.depth_of[i] = S, par, dep
            self.nodes.append(nd)
            if nd.is_leaf:
                h = 0
            else:
                side = self.X[S, nd.feature] == 1
                h = 1 + max(rec(nd.lo, S[~side], dep + 1, nd), rec(nd.hi, S[side], dep + 1, nd))
            self.height[i] = h
            return h

        rec(self.root, np.arange(len(self.y)), 0, None)

    def path(self, v: SatNode) -> list[SatNode]:
        p = [v]
        while self.parent[id(p[-1])] is not None:
            p.append(self.parent[id(p[-1])])
        return p[::-1]

    # ----- local instance
    def local(self, u: SatNode, inner: set[int]):
        """Rows of u, their new classes (special ones >= K) and the cut leaves."""
        S = self.rows[id(u)]
        lab = np.empty(len(S), dtype=np.int64)
        cuts: list[SatNode] = []

        def rec(nd: SatNode, idx: np.ndarray) -> None:
            if id(nd) in inner:
                side = self.X[S[idx], nd.feature] == 1
                rec(nd.lo, idx[~side])
                rec(nd.hi, idx[side])
            elif nd.is_leaf:
                lab[idx] = nd.label if not len(idx) else self.y[S[idx]]
            else:
                lab[idx] = self.K + len(cuts)
                cuts.append(nd)

        rec(u, np.arange(len(S)))
        return S, lab, cuts

    def _hash(self, Xs: np.ndarray, cols: np.ndarray) -> np.ndarray:
        return (Xs[:, cols].astype(np.uint64) * self.w[cols]).sum(1, dtype=np.uint64) \
            if len(cols) else np.zeros(len(Xs), dtype=np.uint64)

    @staticmethod
    def _conflict_free(h: np.ndarray, lab: np.ndarray) -> bool:
        o = np.lexsort((lab, h))
        hs, ls = h[o], lab[o]
        same = hs[1:] == hs[:-1]
        return not (same & (ls[1:] != ls[:-1])).any()

    def support_set(self, Xs: np.ndarray, lab: np.ndarray, cand: np.ndarray) -> np.ndarray:
        """The smallest of heuristics (i) (drop greedily from all), (ii) (Boros et al.)
        and the authors' third, :func:`greedy_cover` (ties to the earlier one)."""
        # (i)
        h = self._hash(Xs, cand)
        keep = np.ones(len(cand), dtype=bool)
        for t, f in enumerate(cand):
            h2 = h - Xs[:, f].astype(np.uint64) * self.w[f]
            if self._conflict_free(h2, lab):
                h, keep[t] = h2, False
        F1 = cand[keep]
        # (ii)
        F2: list[int] = []
        h = np.zeros(len(Xs), dtype=np.uint64)
        while True:
            o = np.lexsort((lab, h))
            hs, ls = h[o], lab[o]
            bad = np.flatnonzero((hs[1:] == hs[:-1]) & (ls[1:] != ls[:-1]))
            if not len(bad):
                break
            a, b = o[bad[0]], o[bad[0] + 1]
            diff = cand[Xs[a, cand] != Xs[b, cand]]
            grp = o[hs == hs[bad[0]]]
            # the differing feature that leaves the conflicting group purest (Gini)
            best, bs = int(diff[0]), np.inf
            Yg = lab[grp]
            for f in diff[:64]:
                side = Xs[grp, f] == 1
                s = 0.0
                for part in (Yg[side], Yg[~side]):
                    if len(part):
                        _, cnt = np.unique(part, return_counts=True)
                        s += len(part) - (cnt * cnt).sum() / len(part)
                if s < bs:
                    best, bs = int(f), s
            F2.append(best)
            h = h + Xs[:, best].astype(np.uint64) * self.w[best]
        F2a = np.array(sorted(F2), dtype=np.int64)
        best = F1 if len(F1) <= len(F2a) else F2a
        F3 = greedy_cover(Xs, lab, cand)
        return best if F3 is None or len(best) <= len(F3) else F3

    def reduce(self, S: np.ndarray, lab: np.ndarray, inner: set[int], r: int):
        Xs = self.X[S]
        cand = np.flatnonzero(Xs.min(0) != Xs.max(0)) if len(S) else np.zeros(0, np.int64)
        if r == 0:
            cols = cand
        elif r == 1:
            cols = np.array(sorted({n.feature for n in self.nodes if id(n) in inner}),
                            dtype=np.int64)
        else:
            cols = self.support_set(Xs, lab, cand)
        packed = np.packbits(Xs[:, cols], axis=1) if len(cols) else np.zeros((len(S), 1), np.uint8)
        _, first, inv = np.unique(packed, axis=0, return_index=True, return_inverse=True)
        return cols, first, inv.ravel()

    # ----- subtree selection
    def subtree(self, u: SatNode, r: int, full: bool, mid: bool = False):
        """T' rooted at u: the whole subtree (``full``), or grown greedily by maximal
        subtree depth (safe), keeping the last growth step whose reduced instance fits
        c(depth). ``mid`` (the authors' ``build_reduced_set``): after each step also the
        frontier nodes with two leaf children are taken in, and a step counts only from
        three inner nodes on and with at least one cut (without a cut it is the whole
        subtree, which the leaf phase tries)."""
        if u.is_leaf or (full and self.height[id(u)] > self.dlimit):
            return None
        inner = {id(u)}
        frontier = [u.lo, u.hi]
        best = None
        tdepth = 1
        dep = {id(u): 0, id(u.lo): 1, id(u.hi): 1}

        def take(n: SatNode) -> None:
            nonlocal tdepth
            inner.add(id(n))
            frontier.remove(n)
            frontier.extend((n.lo, n.hi))
            dep[id(n.lo)] = dep[id(n.hi)] = dep[id(n)] + 1
            tdepth = max(tdepth, dep[id(n)] + 1)

        while True:
            grown = [n for n in frontier if not n.is_leaf]
            if not full or not grown:
                if tdepth > self.dlimit:
                    return best
                if not mid or (len(inner) >= 3 and grown):
                    S, lab, cuts = self.local(u, inner)
                    cols, first, inv = self.reduce(S, lab, inner, r)
                    if len(first) > self.climit(tdepth):
                        return best
                    best = (set(inner), tdepth, S, lab, cuts, cols, first, inv)
                if not grown:
                    return best
            hmax = max(self.height[id(n)] for n in grown)
            for n in grown:
                if self.height[id(n)] == hmax:
                    take(n)
            if mid:
                for n in [n for n in frontier if not n.is_leaf and n.lo.is_leaf
                          and n.hi.is_leaf]:
                    take(n)

    def truncated(self, u: SatNode):
        """The authors' ``mid_rearrange``: T' = the top k levels of T_u (every node at
        depth >= k below u a cut), k = 1, 2, ... while the instance reduced to feat(T')
        fits c(depth of T'); the last that fits (None below depth 2)."""
        if u.is_leaf:
            return None
        best = None
        hu = self.height[id(u)]
        for k in range(1, min(self.dlimit, hu) + 1):
            inner: set[int] = set()
            stack = [(u, 0)]
            while stack:
                n, d = stack.pop()
                if not n.is_leaf and d < k:
                    inner.add(id(n))
                    stack.extend(((n.lo, d + 1), (n.hi, d + 1)))
            S, lab, cuts = self.local(u, inner)
            cols, first, inv = self.reduce(S, lab, inner, 1)
            if len(first) > self.climit(k):
                break
            best = (inner, k, S, lab, cuts, cols, first, inv)
        return best if best is not None and best[1] > 1 else None

    # ----- SAT and replacement
    def compute(self, u: SatNode, sel, deadline: float | None, r: int, full: bool,
                how: str = "") -> bool:
        """Ask for a tree of depth d(T') - 1 for the local instance ``sel``, then lower
        until UNSAT (within ``sat_timeout`` seconds in all); on success replace T'.
        As the authors' runner, nothing is tried when the first target is below
        ``min_target`` (2: a local subtree of depth 2 is never flattened)."""
        inner, tdepth, S, lab, cuts, cols, first, inv = sel
        hu = self.height[id(u)]
        cut_h = max((self.height[id(c)] for c in cuts), default=0)
        target = min(tdepth - 1, hu - cut_h)  # Theorem 2: weighted depth cannot grow
        self.last_status = "unsat"  # nothing shallower is allowed
        if target < max(self.min_target, 1):
            return False
        Xr = np.ascontiguousarray(self.X[S[first]][:, cols])
        ylab = lab[first]
        codes, yc = np.unique(ylab, return_inverse=True)
        yc = np.ascontiguousarray(yc.ravel(), dtype=np.int64)
        # the same local instance (same distinct rows and classes) comes back whenever
        # the loop revisits an unchanged subtree: answer it from what is known
        key = hashlib.blake2b(np.array(Xr.shape, dtype=np.int64).tobytes() + Xr.tobytes()
                              + yc.tobytes(), digest_size=16).digest()
        known = self.known.setdefault(key, {"unsat": 0, "timeout": {}})
        t0 = time.perf_counter()
        found = None
        while target >= 1:
            if encoding_size(len(first), len(cols), target, self.encoding) > self.max_clauses:
                self.stats["too_big"] += 1
                self.last_status = "too_big"
                if self.log is not None:
                    print(f"  {how or '-'} root depth {self.depth_of[id(u)]}: {len(first)} "
                          f"samples x {len(cols)} features, depth {tdepth} -> {target}: "
                          f"over {self.max_clauses} clauses, skipped", flush=True)
                break
            left = self.sat_timeout - (time.perf_counter() - t0)
            if deadline is not None:
                left = min(left, deadline - time.perf_counter())
            if left <= 0:
                self.last_status = "timeout"
                break
            # a timeout with (about) as many seconds as are left now: it would time out again
            if target <= known["unsat"] or known["timeout"].get(target, -1.0) >= 0.98 * left:
                self.stats["known"] += 1
                self.last_status = "unsat" if target <= known["unsat"] else "timeout"
                break
            status, tree, info = self.ask(
                Xr, yc, target, left,
                functools.partial(self.log_call, u, r, full, len(S), len(first), len(cols),
                                  tdepth, target, how=how))
            self.last_status = status
            if status == "unsat":
                known["unsat"] = max(known["unsat"], target)
            if status == "timeout":
                known["timeout"][target] = max(known["timeout"].get(target, 0.0), left)
            if status != "sat":
                self.stats["sat_timeouts"] += status == "timeout"
                break
            found, enc = tree, info["encoding"]
            target = tree.depth() - 1
        if found is None:
            return False
        old_depth = self.root.depth()
        saved = (u.feature, u.lo, u.hi, u.label)
        new = self.rebuild(found, cols, codes, cuts)
        u.feature, u.lo, u.hi, u.label = new.feature, new.lo, new.hi, new.label
        self.prune(u, self.rows[id(u)])
        self.annotate()
        self.check(old_depth, saved, u)
        self.method = (f"{how + ' ' if how else ''}r={r} l={int(full)} "
                       f"root depth {self.depth_of[id(u)]}: "
                       f"{tdepth} -> {found.depth()} ({len(first)} samples, {len(cols)} features, "
                       f"{enc})")
        return True

    def ask(self, Xr: np.ndarray, yc: np.ndarray, target: int, left: float,
            log: Callable[..., None]) -> tuple[str, SatNode | None, dict]:
        """A perfect tree of depth <= ``target`` within ``left`` seconds? MurTree first
        for :attr:`murtree_seconds` (target <= :data:`MURTREE_MAX_DEPTH`), then SAT with
        the rest; each call is logged by ``log(status, info, seconds)``."""
        tc = time.perf_counter()
        status, tree, info = "timeout", None, {}
        if self.murtree_seconds > 0 and target <= MURTREE_MAX_DEPTH:
            self.stats["murtree_calls"] += 1
            status, tree, info = murtree_depth(Xr, yc, target, min(left, self.murtree_seconds))
            self.stats["murtree_answers"] += status != "timeout"
            log(status, info, time.perf_counter() - tc)
        if status == "timeout":
            self.stats["sat_calls"] += 1
            ts = time.perf_counter()
            status, tree, info = solve_depth(Xr, yc, target, encoding=self.encoding,
                                             solver=self.solver, time_limit=left - (ts - tc))
            log(status, info, time.perf_counter() - ts)
        return status, tree, info

    def log_call(self, u: SatNode, r: int, full: bool, rows: int, samples: int, feats: int,
                 tdepth: int, target: int, status: str, info: dict, secs: float,
                 how: str = "") -> None:
        """One SAT call in ``stats["calls"]`` (and printed when ``self.log`` is set)."""
        rec = {"root_depth": self.depth_of[id(u)], "how": how, "r": r, "l": int(full),
               "rows": rows,
               "samples": samples, "features": feats, "subtree_depth": tdepth,
               "target": target, "encoding": info.get("encoding"), "vars": info.get("vars"),
               "clauses": info.get("clauses"), "encode_s": info.get("encode_seconds"),
               "seconds": secs, "status": status}
        self.stats.setdefault("calls", []).append(rec)
        if self.log is not None:
            self.log(rec)

    def rebuild(self, nd: SatNode, cols: np.ndarray, codes: np.ndarray, cuts: list,
                used: set[int] | None = None) -> SatNode:
        """T'' with every special leaf s+i replaced by T_{l_i}: the cut-off subtree itself
        at its first special leaf (so it keeps its nodes, and their done marks, as the
        authors' ``stitch``), a fresh copy at any further one."""
        used = set() if used is None else used
        if nd.is_leaf:
            c = int(codes[nd.label])
            if c < self.K:
                return SatNode(label=c)
            if c in used:
                return cuts[c - self.K].copy()
            used.add(c)
            return cuts[c - self.K]
        return SatNode(int(cols[nd.feature]), self.rebuild(nd.lo, cols, codes, cuts, used),
                       self.rebuild(nd.hi, cols, codes, cuts, used))

    def prune(self, nd: SatNode, S: np.ndarray) -> None:
        """Remove splits with an empty side (in the training rows)."""
        while not nd.is_leaf:
            side = self.X[S, nd.feature] == 1
            if side.all() or not side.any():
                keep = nd.hi if side.all() else nd.lo
                nd.feature, nd.lo, nd.hi, nd.label = keep.feature, keep.lo, keep.hi, keep.label
                continue
            self.prune(nd.lo, S[~side])
            self.prune(nd.hi, S[side])
            return

    def check(self, old_depth: int, saved, u: SatNode) -> None:
        for nd in self.nodes:
            if nd.is_leaf and not _rows_pure(self.y[self.rows[id(nd)]]):
                raise AssertionError("DT-SLIM internal error: a replacement left training errors")
        if self.root.depth() > old_depth:
            raise AssertionError("DT-SLIM internal error: a replacement made the tree deeper")

    # ----- the main loop (the authors' improve_depth_first.py)
    def improve_path(self, Q: list[SatNode], done: dict[int, SatNode],
                     deadline: float | None) -> bool:
        """One round for the node ``Q[0]`` (``Q``: its path, leaf first, root last), in
        the order of the authors' code (``improve/improve_depth_first.py``):

        * ls: from Q[0] up while the subtree is at most ``dlimit`` deep and has at most
          c(its depth) rows (raw rows): the highest such node, its whole subtree,
          all features (r = 0);
        * la, lr: from there up while the whole subtree reduced to feat(T_u) (r = 1),
          resp. to a support set (r = 2), fits c(depth): the highest such node, once
          each;
        * then from the ROOT down to just above the highest node of la/lr, skipping
          nodes marked done: ma (the top k levels of T_u, r = 1, k as large as fits)
          and mr (T' grown by maximal subtree depth, r = 2).

        The first replacement ends the round (True)."""
        def stop() -> bool:
            return deadline is not None and time.perf_counter() >= deadline

        last = 0
        for k, u in enumerate(Q):
            h = self.height[id(u)]
            if h > self.dlimit or len(self.rows[id(u)]) > self.climit(h):
                break
            last = k
        u = Q[last]
        h = self.height[id(u)]
        if 2 < h <= self.dlimit and len(self.rows[id(u)]) <= self.climit(h):
            sel = self.subtree(u, 0, True)
            if sel is not None and self.compute(u, sel, deadline, 0, True, "ls"):
                return True
        top = last
        for r, how in ((1, "la"), (2, "lr")):
            if stop():
                return False
            best, at = None, last
            for k in range(last, len(Q)):
                u = Q[k]
                if self.height[id(u)] > self.dlimit:
                    break
                if u.is_leaf:
                    at = k
                    continue
                sel = self.subtree(u, r, True)
                if sel is None:
                    break
                best, at = sel, k
            top = max(top, at)
            if best is not None and self.compute(Q[at], best, deadline, r, True, how):
                return True
        for k in range(len(Q) - 1, top, -1):
            u = Q[k]
            if id(u) in done or u.is_leaf:
                continue
            if stop():
                return False
            sel = self.truncated(u)
            if sel is not None and self.compute(u, sel, deadline, 1, False, "ma"):
                return True
            if stop():
                return False
            sel = self.subtree(u, 2, False, mid=True)
            if sel is not None and self.compute(u, sel, deadline, 2, False, "mr"):
                return True
        return False

    def run(self, deadline: float | None, t0: float, trace: list, verbose: bool | int) -> bool:
        """Until every node is done: take the deepest node v not done and run
        :meth:`improve_path` on its path; on a replacement the path's nodes are no
        longer done (and v is chosen anew), otherwise they all are."""
        done: dict[int, SatNode] = {}
        while self.stats["replacements"] < 100_000:
            if deadline is not None and time.perf_counter() >= deadline:
                return False
            cand = [n for n in self.nodes if id(n) not in done]
            if not cand:
                return True
            v = max(cand, key=lambda n: self.depth_of[id(n)])
            Q = self.path(v)[::-1]
            if self.improve_path(Q, done, deadline):
                for n in Q:
                    done.pop(id(n), None)
                self.stats["replacements"] += 1
                X, y = self.X, self.y
                nn = sum(not n.is_leaf for n in self.nodes)
                acc = float(np.mean(_predict(self.root, X) == y))
                rec = {"time": time.perf_counter() - t0, "depth": self.root.depth(), "nodes": nn,
                       "train_acc": acc, "method": self.method}
                trace.append(rec)
                if verbose:
                    print(f"{rec['time']:8.2f}s depth {rec['depth']:3d} nodes {nn:5d} "
                          f"acc {acc:.3f}  {self.method}")
            else:
                if deadline is not None and time.perf_counter() >= deadline:
                    return False
                for n in Q:
                    done[id(n)] = n
                if self.log is not None:
                    print(f"{time.perf_counter() - t0:8.2f}s   no improvement for the node at "
                          f"depth {len(Q) - 1}: its path marked done", flush=True)
        return False


def _predict(root: SatNode, X: np.ndarray) -> np.ndarray:
    out = np.empty(len(X), dtype=np.int64)

    def rec(nd: SatNode, S: np.ndarray) -> None:
        if nd.is_leaf:
            out[S] = nd.label
            return
        side = X[S, nd.feature] == 1
        rec(nd.lo, S[~side])
        rec(nd.hi, S[side])

    rec(root, np.arange(len(X)))
    return out


def slim_improve(tree: Any, X_bin: Any = None, y: Any = None, *, budget: int | None = 300,
                 sample_limit: Callable[[int], int] | int | None = None,
                 depth_limit: int | None = None, sat_timeout: float | None = None,
                 total_time_limit: float | None = None, solver: str = "g4",
                 encoding: str = "auto", verbose: bool | int = False,
                 features: str = "both", murtree_seconds: float | None = None) -> SlimResult:
    """DT-SLIM (Alg. 1): make a training-perfect tree shallower, keeping it perfect.

    Args:
        tree: an :class:`OptimalTreeModel` (e.g. from :func:`greedy_fit`,
            :func:`min_depth_tree` or ``murtree_fit``) or a :class:`SatNode` tree
            (features are column indices of ``X_bin``), with 0 training errors; or a
            bsnsing model (:class:`~pybsnsing.model.BsnsingModel`, or an
            :class:`~pybsnsing.model.MBsnsingModel`: each class's tree in turn), whose
            own training rows are used (``y`` must be None). See below.
        X_bin, y: the training data (0/1 features) the tree is perfect on. For a
            bsnsing model: None, or its training data frame when the model does not
            carry its design matrix (a model read back without its data).
        budget: the paper's preset (60, 300 or 800): its sample limit c_t,
            depth limit d_t and SAT timeout t; the next three override it.
        sample_limit: c(d), the most (reduced) samples of a local instance of
            depth d — a callable, or one number for every depth.
        depth_limit: the deepest local subtree d̂.
        sat_timeout: seconds per local instance (encoding + SAT calls).
        total_time_limit: stop after this many seconds (the tree so far is returned).
        solver: python-sat solver name ("g4" Glucose 4.1, "cd19" CaDiCaL).
        encoding: "auto" (hybrid), "depth" or "partition".
        verbose: True (or 1) prints a line per replacement, 2 also one per SAT call.
        features: bsnsing models only: which binary features DT-SLIM works with.
        murtree_seconds: each depth question of a local instance (target depth <= 16)
            first goes to pybsnsing's MurTree engine for at most this many seconds
            (:func:`murtree_depth`, exact: the same answer as SAT, often far sooner);
            the SAT solver gets what is left of ``sat_timeout``. None: 5 % of
            ``sat_timeout``; 0: SAT only, as the paper.

    Returns:
        :class:`SlimResult` (the tree and a trace of every replacement); for a bsnsing
        model its ``tree`` is a bsnsing model of the same class.

    **bsnsing models.** DT-SLIM needs a tree with 0 training errors. A bsnsing tree
    usually stops before that (node size, ``stop.prob``, no rule found): first every
    impure leaf is grown to purity with single questions ``x <= c`` (the best Gini
    cut, c a midpoint of the leaf's distinct values of one design column;
    ``stats["purity_splits"]`` counts them). Rows with identical predictors and both
    classes make this impossible: an error. The binary features are the split texts,
    evaluated on the training design matrix as the model routes rows (a TRUE rule goes
    left):

    * ``"both"`` (default): every OR-rule of the tree as one feature, plus each of its
      questions; the initial tree is the bsnsing tree itself (so its depth,
      ``stats["bsnsing_depth"]`` plus the purity splits), and SAT may replace an
      OR-rule by a single question or another rule of the tree;
    * ``"rules"``: the OR-rules only (SAT only rearranges the tree's own rules);
    * ``"questions"``: OR-rules expanded: ``q1 | ... | qk`` becomes a chain of k
      single-question splits (a copy of the TRUE subtree under each question), so
      the initial tree is deeper than bsnsing's and every split is one question.

    Kept: the training rows, response coding, control, design (so ``predict`` on a
    data frame works) and formula; every split of the result is a valid bsnsing
    rule text. Not kept: bsnsing's split search (the result is a perfect tree, not a
    bsnsing fit; its leaves are pure, so ``prob`` is 0 or 1) and the fitted tree's
    impure leaves. No new questions are searched: SAT only recombines the tree's.
    """
    from ..model import BsnsingModel, MBsnsingModel

    limits = dict(budget=budget, sample_limit=sample_limit, depth_limit=depth_limit,
                  sat_timeout=sat_timeout, total_time_limit=total_time_limit)
    if isinstance(tree, (BsnsingModel, MBsnsingModel)):
        if y is not None or (X_bin is not None and not isinstance(X_bin, pd.DataFrame)):
            raise PybsnsingValueError("a bsnsing model brings its own training rows: leave "
                                      "y out (X_bin: None, or the training data frame)")
        return _slim_bsnsing(tree, features, X_bin, solver=solver, encoding=encoding,
                             verbose=verbose, murtree_seconds=murtree_seconds, **limits)
    if X_bin is None or y is None:
        raise PybsnsingValueError("X_bin and y (the training data) are needed")
    return _slim_data(tree, X_bin, y, limits, solver, encoding, verbose, murtree_seconds)


def _slim_data(tree: Any, X_bin: Any, y: Any, limits: dict, solver: str, encoding: str,
               verbose: bool | int, murtree_seconds: float | None) -> SlimResult:
    """:func:`slim_improve` of a tree given with its training data."""
    pysat("slim_improve")
    t0 = time.perf_counter()
    X, yc, classes, names = _prepare(X_bin, y)
    root, names = _initial_tree(tree, X, yc, classes, names)
    climit, dlimit, t_sat = _limits(limits["budget"], limits["sample_limit"],
                                    limits["depth_limit"], limits["sat_timeout"])
    total = limits["total_time_limit"]
    deadline = None if total is None else t0 + float(total)
    s = _Slim(root, X, yc, len(classes), climit, dlimit, t_sat, solver, encoding, "auto",
              _murtree_seconds(murtree_seconds, t_sat))
    if int(verbose) >= 2:
        s.log = functools.partial(_print_call, t0)
    return _run_slim(s, classes, names, deadline, t0, verbose)


def _print_call(t0: float, c: dict) -> None:
    """The verbose=2 line of one SAT call (``stats['calls']`` entry ``c``)."""
    print(f"{time.perf_counter() - t0:8.2f}s   sat {c['how']} root depth {c['root_depth']:3d} "
          f"r={c['r']} l={c['l']} rows {c['rows']:5d} samples {c['samples']:5d} features "
          f"{c['features']:4d} depth {c['subtree_depth']:2d} -> {c['target']:2d} "
          f"{c['encoding']} vars {c['vars']} clauses {c['clauses']} encode "
          f"{c['encode_s'] or 0:.2f}s total {c['seconds']:.2f}s {c['status']}", flush=True)


def _initial_tree(tree: Any, X: np.ndarray, yc: np.ndarray, classes: np.ndarray,
                  names: list[str]) -> tuple[SatNode, list[str]]:
    """:func:`slim_improve`'s starting tree as a fresh :class:`SatNode` tree labelled by
    the training rows, and the feature names (an :class:`OptimalTreeModel`'s own)."""
    if isinstance(tree, OptimalTreeModel):
        if tree.n_features != X.shape[1]:
            raise PybsnsingValueError(
                f"the tree uses {tree.n_features} features; X_bin has {X.shape[1]} columns")
        names = list(tree.feature_names)
        root = _from_model(tree, classes)
    elif isinstance(tree, SatNode):
        root = tree.copy()
    else:
        raise PybsnsingValueError(
            f"tree must be an OptimalTreeModel or a SatNode, not {type(tree).__name__}")
    _relabel(root, X, yc)
    return root, names


def _murtree_seconds(value: Any, t_sat: float) -> float:
    """``slim_improve``'s ``murtree_seconds`` checked (None: :data:`MURTREE_SHARE` of
    the SAT timeout)."""
    if value is None:
        return MURTREE_SHARE * t_sat
    if (isinstance(value, bool) or not isinstance(value, numbers.Real)
            or not np.isfinite(value) or value < 0):
        raise PybsnsingValueError(f"murtree_seconds must be a number >= 0 or None, not {value!r}")
    return float(value)


def _limits(budget: int | None, sample_limit: Callable[[int], int] | int | None,
            depth_limit: int | None,
            sat_timeout: float | None) -> tuple[Callable[[int], int], int, float]:
    """(sample limit c(d), depth limit, SAT timeout): the preset ``budget`` (None: c = 100,
    depth 12, 60 s) with the given overrides."""
    if budget is not None:
        c0, d0, t_sat = PRESETS[int(budget)]
    else:
        c0, d0, t_sat = (lambda d: 100), 12, 60.0
    climit = sample_limit if sample_limit is not None else c0
    if isinstance(climit, (int, np.integer)):
        cval = int(climit)
        climit = (lambda d: cval)  # noqa: E731
    dlimit = int(depth_limit) if depth_limit is not None else d0
    t_sat = float(sat_timeout) if sat_timeout is not None else t_sat
    return climit, dlimit, t_sat


def _run_slim(s: _Slim, classes: np.ndarray, names: list[str], deadline: float | None,
              t0: float, verbose: bool | int) -> SlimResult:
    """Run Algorithm 1 on ``s`` until done or ``deadline``; the result as a
    :class:`SlimResult` (its tree asserted training-perfect)."""
    initial = s.root.depth()
    trace: list[dict] = []
    completed = s.run(deadline, t0, trace, verbose)
    st = dict(s.stats, completed=completed, method="DT-SLIM")
    model = _to_model(s.root, s.X, s.y, classes, names, time.perf_counter() - t0, False, st)
    if model.objective != 0:  # pragma: no cover - asserted after every replacement
        raise AssertionError("DT-SLIM internal error: training errors")
    return SlimResult(model, trace, initial, model.depth, time.perf_counter() - t0, st)


# --------------------------------------------------------------------------- bsnsing models
#: how the splits of a bsnsing tree become DT-SLIM's binary features
BSNSING_FEATURES = ("both", "rules", "questions")


def _purity_split(Xd: np.ndarray, y: np.ndarray) -> tuple[int, float] | None:
    """The best Gini split ``x_j <= c`` (c a midpoint of distinct values) of rows
    ``Xd`` (design columns) with 0/1 labels ``y``; None when no column separates."""
    n = len(y)
    best: tuple[float, int, float] | None = None
    tot1 = int(y.sum())
    for j in range(Xd.shape[1]):
        o = np.argsort(Xd[:, j], kind="stable")
        v = Xd[o, j]
        cut = np.flatnonzero(v[1:] > v[:-1])  # split after position cut[i]
        if cut.size == 0:
            continue
        c1 = np.cumsum(y[o])[cut]
        nl = cut + 1.0
        nr = n - nl
        c1r = tot1 - c1
        gini = (nl - (c1 ** 2 + (nl - c1) ** 2) / nl) + (nr - (c1r ** 2 + (nr - c1r) ** 2) / nr)
        i = int(np.argmin(gini))
        if best is None or gini[i] < best[0] - 1e-12:
            best = (float(gini[i]), j, float((v[cut[i]] + v[cut[i] + 1]) / 2.0))
    return None if best is None else (best[1], best[2])


def _bsnsing_tree(model: Any, features: str, data: Any = None):
    """DT-SLIM's view of a two-class :class:`~pybsnsing.model.BsnsingModel`: (root
    SatNode, 0/1 feature matrix, feature texts, labels, number of splits added to
    reach purity). Features are split-rule texts evaluated on the training design
    matrix exactly as the model routes rows (a TRUE rule goes left = the ``hi`` side)."""
    Xd, y = _training_rows(model, data)
    view = _SatView(model, features, Xd, y)
    root = view.node(view.by_number[0], np.arange(len(y)))
    return root, view.matrix(), view.texts, y, view.added


def _training_rows(model: Any, data: Any) -> tuple[np.ndarray, np.ndarray]:
    """A two-class bsnsing model's training design matrix and 0/1 labels: its own, or
    (for a model that does not carry them) computed from its training data frame
    ``data``, checked against the model's root counts."""
    design = model.design
    if design is None:
        raise PybsnsingValueError("the bsnsing model has no design information (training "
                                  "data); DT-SLIM needs its training rows")
    y = np.asarray(model.y, dtype=np.int64)
    if data is not None:
        # a model read back from R parts knows its fitted values, not its labels: both
        # the design matrix and the 0/1 response come from the data
        from ..rformat import as_character

        resp = design.response_name
        if not isinstance(data, pd.DataFrame) or resp not in data.columns:
            raise PybsnsingValueError(
                f"data must be the model's training data frame (with column {resp!r})")
        data = data[data[resp].notna()]
        one = as_character(model.ycode[1])
        y = np.array([as_character(v) == one for v in data[resp]], dtype=np.int64)
        root = next(nd for nd in model.nodes if nd.number == 0)
        if len(y) != len(model.y) or int(y.sum()) != root.n1:
            raise PybsnsingValueError(
                f"data is not the model's training data: {len(y)} rows of which "
                f"{int(y.sum())} of class {one!r}; the model was fitted on {len(model.y)} "
                f"rows of which {root.n1}")
        Xd = model._design_matrix(data, impute=True)
    else:
        Xd = np.asarray(design.X, dtype=np.float64)
        if Xd.shape[0] != len(y):
            raise PybsnsingValueError(
                "the bsnsing model does not carry its training data (e.g. it was read "
                "back from a file): pass the training data frame as X_bin")
    return Xd, y


class _SatView:
    """Builds :func:`_bsnsing_tree`'s SatNode tree from a bsnsing model's nodes, with its
    binary features (split texts, each evaluated once on the design matrix ``Xd``)."""

    def __init__(self, model: Any, features: str, Xd: np.ndarray, y: np.ndarray) -> None:
        self.features, self.Xd, self.y = features, Xd, y
        self.names = list(model.design.names)
        self.cols = {nm: Xd[:, j] for j, nm in enumerate(self.names)}
        self.texts: list[str] = []
        self.index: dict[str, int] = {}
        self.columns: list[np.ndarray] = []
        self.by_number = {nd.number: nd for nd in model.nodes}
        self.added = 0  # splits added to reach purity

    def feature(self, text: str) -> int:
        """The feature number of a rule text (a new feature the first time)."""
        from ..rules import evaluate_rule

        if text not in self.index:
            self.index[text] = len(self.texts)
            self.texts.append(text)
            self.columns.append(evaluate_rule(text, self.cols).astype(np.uint8))
        return self.index[text]

    def matrix(self) -> np.ndarray:
        """The 0/1 feature matrix (rows x features), C-contiguous uint8."""
        n = len(self.y)
        X = np.column_stack(self.columns) if self.columns else np.zeros((n, 0), dtype=np.uint8)
        return np.ascontiguousarray(X, dtype=np.uint8)

    def grow(self, S: np.ndarray) -> SatNode:
        """Grow a leaf's rows to purity with single questions ``x <= c``."""
        from ..rformat import format_r

        y = self.y
        if _rows_pure(y[S]):
            return SatNode(label=int(y[S[0]]) if len(S) else 0)
        sp = _purity_split(self.Xd[S], y[S])
        if sp is None:
            raise PybsnsingValueError(
                f"no perfect tree exists: {len(S)} training rows with identical predictors "
                "have both classes (DT-SLIM needs a tree with 0 training errors)")
        j, c = sp
        f = self.feature(f"{self.names[j]} <= {format_r(c)}")
        side = self.columns[f][S] == 1
        if side.all() or not side.any():  # pragma: no cover - printed cut rounds badly
            raise PybsnsingValueError(f"the cut {self.texts[f]!r} does not separate the rows")
        self.added += 1
        return SatNode(f, self.grow(S[~side]), self.grow(S[side]))

    def node(self, nd: Any, S: np.ndarray) -> SatNode:
        """The bsnsing node ``nd`` (training rows ``S``) and its subtree as SatNodes."""
        from ..rules import evaluate_rule, split_rule

        if nd.is_leaf:
            return self.grow(S)
        rule = nd.split_rule
        qs = split_rule(rule)
        true = evaluate_rule(rule, {k: v[S] for k, v in self.cols.items()})
        hi = self.node(self.by_number[nd.lchild], S[true])
        lo = self.node(self.by_number[nd.rchild], S[~true])
        if self.features == "questions" and len(qs) > 1:
            # q1 | q2 | ... | qk as a chain: TRUE side of every q_i = (a copy of) the
            # rule's TRUE subtree, FALSE side of q_k = the rule's FALSE subtree
            node = lo
            for i in range(len(qs) - 1, -1, -1):
                node = SatNode(self.feature(qs[i]), node, hi if i == len(qs) - 1 else hi.copy())
            return node
        node = SatNode(self.feature(rule), lo, hi)
        if self.features == "both" and len(qs) > 1:
            for q in qs:
                self.feature(q)
        return node


def _drop_empty(nd: SatNode, X: np.ndarray, S: np.ndarray) -> SatNode:
    """``nd`` without splits that send none of the rows ``S`` to one side."""
    while not nd.is_leaf:
        side = X[S, nd.feature] == 1
        if side.all():
            nd = nd.hi
        elif not side.any():
            nd = nd.lo
        else:
            return SatNode(nd.feature, _drop_empty(nd.lo, X, S[~side]),
                           _drop_empty(nd.hi, X, S[side]))
    return nd


def _bsnsing_from_sat(model: Any, root: SatNode, X: np.ndarray, texts: list[str],
                      y: np.ndarray) -> Any:
    """A :class:`~pybsnsing.model.BsnsingModel` with ``model``'s response coding, control
    and design, the training labels ``y`` (0/1) and the tree ``root`` (split rules =
    feature texts)."""
    from ..model import BsnsingModel
    from ..tree import Node

    n = len(y)
    nodes: list[Node] = []

    def rec(nd: SatNode, S: np.ndarray, parent: int, depth: int) -> int:
        k = len(nodes)
        n1 = int(y[S].sum())
        n0 = len(S) - n1
        cls = 1 if n1 >= n0 else 0
        node = Node(number=k, parent=parent, lchild=-1, rchild=-1, node_class=cls,
                    prop=len(S) / n, nobs=len(S), n1=n1, n0=n0,
                    prob=n1 / len(S) if len(S) else 0.0, obs=S.astype(np.int64),
                    split_rule="", split_target=cls, depth=depth)
        nodes.append(node)
        if not nd.is_leaf:
            side = X[S, nd.feature] == 1
            node.split_rule = texts[nd.feature]
            node.lchild = rec(nd.hi, S[side], k, depth + 1)
            node.rchild = rec(nd.lo, S[~side], k, depth + 1)
        return k

    rec(_drop_empty(root, X, np.arange(n)), np.arange(n), -1, 0)
    return BsnsingModel(nodes=nodes, ycode=list(model.ycode), y=y.copy(), control=model.control,
                        node_size=model.node_size, design=model.design,
                        call=f"slim_improve({model.call})", formula=model.formula)


def _sat_root(tree: OptimalTreeModel) -> SatNode:
    """An OptimalTreeModel of DT-SLIM (left = feature 0) as a SatNode tree."""
    def rec(k: int) -> SatNode:
        nd = tree.nodes[k]
        if nd.is_leaf:
            return SatNode(label=int(nd.prediction))
        return SatNode(nd.feature, rec(nd.left), rec(nd.right))

    return rec(0)


def _slim_bsnsing(model: Any, features: str, data: Any = None, **kw: Any) -> SlimResult:
    from ..model import BsnsingModel, MBsnsingModel

    if features not in BSNSING_FEATURES:
        raise PybsnsingValueError(f"features must be one of {BSNSING_FEATURES}, not "
                                  f"{features!r}")
    if isinstance(model, MBsnsingModel):
        results = [_slim_bsnsing(t, features, data, **kw) for t in model.trees]
        trees = [r.tree for r in results]
        for t in trees:
            t.design = model.trees[0].design
        out = MBsnsingModel(trees=trees, ylevels=list(model.ylevels), yprior=model.yprior.copy(),
                            call=f"slim_improve({model.call})", formula=model.formula)
        trace = [dict(tr, tree=k) for k, r in enumerate(results) for tr in r.trace]
        return SlimResult(out, trace, max(r.initial_depth for r in results),
                          max(r.final_depth for r in results), sum(r.runtime for r in results),
                          {"trees": [r.stats for r in results],
                           "completed": all(r.stats.get("completed") for r in results),
                           "bsnsing_depth": max(r.stats["bsnsing_depth"] for r in results)})
    if not isinstance(model, BsnsingModel):
        raise PybsnsingValueError(f"not a bsnsing model: {type(model).__name__}")
    t0 = time.perf_counter()
    bs_depth = max(nd.depth for nd in model.nodes)
    root, X, texts, y, added = _bsnsing_tree(model, features, data)
    res = slim_improve(_drop_empty(root, X, np.arange(len(y))), X, y, **kw)
    tree = _bsnsing_from_sat(model, _sat_root(res.tree), X, texts, y)
    if (tree.fitted_values != y).any():  # pragma: no cover - slim_improve asserts it
        raise AssertionError("DT-SLIM internal error: training errors in the bsnsing tree")
    stats = dict(res.stats, bsnsing_depth=bs_depth, purity_splits=added, features=features,
                 n_features=len(texts))
    return SlimResult(tree, res.trace, res.initial_depth, res.final_depth,
                      time.perf_counter() - t0, stats)
