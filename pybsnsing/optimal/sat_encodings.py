"""SAT encodings of "a perfect decision tree of depth <= d exists" (DT-SLIM, §4).

Written from Schidler & Szeider, "SAT-based Decision Tree Learning for Large
Data Sets" (AAAI 2021) and Avellaneda (AAAI 2020), as summarised in the
project's specification (extensions.md §2.2); no code of the authors is used.

* :func:`encode_depth` — Avellaneda's DT_depth: a *complete* tree of depth d,
  variables f(q, j) (node q tests feature j), x(e, l) (example e goes to the
  "feature = 1" side at level l) and ceil(log2 K) class bits per leaf.
  Size n * 2^d * k: exponential in the depth.
* :func:`encode_partition` — DT_pb: a DT-sequence of partitions S_0..S_d,
  variables g(i, j, l) (samples i < j share a group at level l) and
  s(i, l, f) (the group of i splits on f at level l), with an at-most-one on
  every s(i, l, .). Size n^2 * k * d: polynomial in the depth.

Both take *distinct* 0/1 rows ``X`` (n x k, uint8) and class codes ``y``
(0..K-1) and return ``(clauses, decode)``; ``decode(model)`` gives the tree as
nested :class:`SatNode` objects (features are column indices of ``X``), trivial
splits (one side empty) removed; :func:`depth_blocks` / :func:`partition_blocks`
give the same clauses as a stream of bounded blocks. :func:`solve_depth` runs one
SAT call with a time limit (python-sat, ``Solver.solve_limited`` + a
``threading.Timer`` interrupt), handing the solver the blocks as they are built.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._optional import require

__all__ = ["SatNode", "encode_depth", "encode_partition", "depth_blocks", "partition_blocks",
           "pysat", "solve_depth", "AUTO_SWITCH_DEPTH", "SOLVERS"]

#: the paper's hybrid: DT_depth below this depth, DT_pb from it on (paper §6).
AUTO_SWITCH_DEPTH = 10
#: the depth encoding builds its clauses in blocks of about this many array cells (bounded
#: temporaries; a block holds at least one training row)
CHUNK_CELLS = 400_000
#: solver names accepted (python-sat names): Glucose 4.1 (the paper's) and CaDiCaL 1.9.5.
SOLVERS = ("g4", "glucose4", "g41", "cd19", "cadical195", "cd195", "g3", "m22")


def pysat(feature: str = "the SAT tree solvers (min_depth_tree, slim_improve)") -> Any:
    """Import python-sat's ``pysat.solvers``; PybsnsingImportError naming the ``sat`` extra."""
    require("sat", feature)
    return require("sat", feature, "pysat.solvers")


@dataclass
class SatNode:
    """A tree node: ``feature`` < 0 for a leaf of class ``label``; ``lo``/``hi`` the
    children for feature = 0 / 1."""

    feature: int = -1
    lo: SatNode | None = None
    hi: SatNode | None = None
    label: int = -1

    @property
    def is_leaf(self) -> bool:
        return self.feature < 0

    def depth(self) -> int:
        if self.is_leaf:
            return 0
        return 1 + max(self.lo.depth(), self.hi.depth())

    def copy(self) -> SatNode:
        if self.is_leaf:
            return SatNode(label=self.label)
        return SatNode(self.feature, self.lo.copy(), self.hi.copy())


def _pure(y: np.ndarray) -> bool:
    return len(y) == 0 or bool((y == y[0]).all())


def _amo(lits: np.ndarray, top: int) -> tuple[list[list[int]], int]:
    """At-most-one over ``lits``: pairwise for <= 12 literals, a sequential counter above."""
    m = len(lits)
    if m <= 1:
        return [], top
    if m <= 12:
        a, b = np.triu_indices(m, 1)
        return np.stack([-lits[a], -lits[b]], axis=1).tolist(), top
    # sequential counter (Sinz): aux r_1..r_{m-1}
    r = np.arange(top + 1, top + m, dtype=np.int64)
    x = lits.astype(np.int64)
    cl = [[-int(x[0]), int(r[0])]]
    for t in range(1, m - 1):
        cl += [[-int(x[t]), int(r[t])], [-int(r[t - 1]), int(r[t])], [-int(x[t]), -int(r[t - 1])]]
    cl.append([-int(x[m - 1]), -int(r[m - 2])])
    return cl, top + m - 1


# --------------------------------------------------------------------------- DT_depth
Blocks = Iterator[list[list[int]]]


def encode_depth(X: np.ndarray, y: np.ndarray, d: int) -> tuple[list[list[int]], Callable]:
    """Avellaneda's DT_depth for depth ``d`` >= 1 (see the module docstring)."""
    blocks, decode = depth_blocks(X, y, d)
    return [c for b in blocks for c in b], decode


def depth_blocks(X: np.ndarray, y: np.ndarray, d: int) -> tuple[Blocks, Callable]:
    """:func:`encode_depth`'s clauses as a stream of blocks (lists of clauses, each
    block of bounded size: :func:`solve_depth` hands them to the solver one by one, so
    the whole formula never sits in Python lists), and the decoder."""
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.int64)
    n, k = X.shape
    K = int(y.max()) + 1 if n else 1
    nb = max(1, int(np.ceil(np.log2(max(K, 2)))))
    n_int = 2 ** d - 1
    F = np.arange(1, 1 + n_int * k, dtype=np.int64).reshape(n_int, k)
    XV = np.arange(F.size + 1, F.size + 1 + n * d, dtype=np.int64).reshape(n, d)
    base = F.size + XV.size
    CB = np.arange(base + 1, base + 1 + 2 ** d * nb, dtype=np.int64).reshape(2 ** d, nb)
    base += CB.size
    width = 2 ** d

    def blocks() -> Blocks:
        top = base
        # exactly one feature per internal node
        for q in range(n_int):
            cl, top = _amo(F[q], top)
            yield [F[q].tolist()] + cl
        yield from _depth_paths(X, F, XV, d)
        # full paths -> class bits
        bits = ((np.arange(width)[:, None] >> np.arange(d - 1, -1, -1)[None, :]) & 1)
        code_bits = (y[:, None] >> np.arange(nb)[None, :]) & 1  # (n, nb)
        chunk = max(1, CHUNK_CELLS // (width * nb))
        for e0 in range(0, n, chunk):
            e1 = min(n, e0 + chunk)
            pi = np.where(bits[None, :, :] == 1, -XV[e0:e1, None, :], XV[e0:e1, None, :])
            arr = np.empty((e1 - e0, width, nb, d + 1), dtype=np.int64)
            arr[..., :d] = pi[:, :, None, :]
            arr[..., d] = np.where(code_bits[e0:e1, None, :] == 1, CB[None, :, :], -CB[None, :, :])
            yield arr.reshape(-1, d + 1).tolist()
        # unused class codes forbidden
        for v in range(K, 2 ** nb):
            vb = (v >> np.arange(nb)) & 1
            yield [np.where(vb == 1, -CB[t], CB[t]).tolist() for t in range(width)]

    def decode(model: list[int]) -> SatNode:
        val = _values(model, base)

        def rec(S: np.ndarray, q: int, lev: int) -> SatNode:
            if _pure(y[S]):
                return SatNode(label=int(y[S[0]]))
            if lev == d:
                raise RuntimeError("DT_depth decoding: an impure leaf (internal error)")
            f = int(np.flatnonzero(val[F[q]])[0])
            side = X[S, f] == 1
            if side.all():
                return rec(S, 2 * q + 2, lev + 1)
            if not side.any():
                return rec(S, 2 * q + 1, lev + 1)
            return SatNode(f, rec(S[~side], 2 * q + 1, lev + 1), rec(S[side], 2 * q + 2, lev + 1))

        return rec(np.arange(n), 0, 0)

    return blocks(), decode


def _depth_paths(X: np.ndarray, F: np.ndarray, XV: np.ndarray, d: int) -> Blocks:
    """DT_depth's routing clauses: a row on the path to node q of level l goes to the
    side of its value of q's feature (blocks of about CHUNK_CELLS cells)."""
    n, k = X.shape
    sgn_x = np.where(X == 0, -1, 1)  # e(j) = 0: not x(e,l); e(j) = 1: x(e,l)
    chunk = max(1, CHUNK_CELLS // max(1, k))
    for lev in range(d):
        width = 2 ** lev
        bits = ((np.arange(width)[:, None] >> np.arange(lev - 1, -1, -1)[None, :]) & 1)
        Fq = F[width - 1: 2 * width - 1]  # (width, k)
        for e0 in range(0, n, chunk):
            e1 = min(n, e0 + chunk)
            # not-path literals: bit 1 -> -x, bit 0 -> +x
            pi = np.where(bits[None, :, :] == 1, -XV[e0:e1, None, :lev], XV[e0:e1, None, :lev])
            xl = sgn_x[e0:e1] * XV[e0:e1, lev][:, None]  # (ne, k)
            arr = np.empty((e1 - e0, width, k, lev + 2), dtype=np.int64)
            arr[..., :lev] = pi[:, :, None, :]
            arr[..., lev] = xl[:, None, :]
            arr[..., lev + 1] = -Fq[None, :, :]
            yield arr.reshape(-1, lev + 2).tolist()


def _values(model: list[int], top: int) -> np.ndarray:
    """Truth values of variables 1..top from a solver model (index = variable)."""
    val = np.zeros(top + 2, dtype=bool)
    m = np.asarray(model, dtype=np.int64)
    m = m[np.abs(m) <= top]
    val[np.abs(m)] = m > 0
    return val


# --------------------------------------------------------------------------- DT_pb
def encode_partition(X: np.ndarray, y: np.ndarray, d: int) -> tuple[list[list[int]], Callable]:
    """The partition encoding DT_pb for length ``d`` >= 1 (see the module docstring)."""
    blocks, decode = partition_blocks(X, y, d)
    return [c for b in blocks for c in b], decode


def partition_blocks(X: np.ndarray, y: np.ndarray, d: int) -> tuple[Blocks, Callable]:
    """:func:`encode_partition`'s clauses as a stream of bounded blocks (see
    :func:`depth_blocks`), and the decoder."""
    X = np.asarray(X, dtype=np.uint8)
    y = np.asarray(y, dtype=np.int64)
    n, k = X.shape
    I, J = np.triu_indices(n, 1)
    P = len(I)
    G = np.arange(1, 1 + P * (d + 1), dtype=np.int64).reshape(P, d + 1)
    S = np.arange(G.size + 1, G.size + 1 + n * d * k, dtype=np.int64).reshape(n, d, k)
    base = G.size + S.size

    def blocks() -> Blocks:
        top = base
        yield G[:, 0:1].tolist()                                     # together at level 0
        yield (-G[y[I] != y[J], d:d + 1]).tolist()                   # classes apart at the end
        yield np.stack([G[:, :d], -G[:, 1:]], axis=-1).reshape(-1, 2).tolist()  # no merging
        for i in range(n):
            out: list[list[int]] = []
            for lev in range(d):
                out.append(S[i, lev].tolist())                       # some feature
                cl, top = _amo(S[i, lev], top)                       # at most one
                out += cl
            yield out
        yield from _partition_pairs(X, I, J, G, S, d)

    def decode(model: list[int]) -> SatNode:
        val = _values(model, base)

        def rec(Sx: np.ndarray, lev: int) -> SatNode:
            if _pure(y[Sx]):
                return SatNode(label=int(y[Sx[0]]))
            if lev == d:
                raise RuntimeError("DT_pb decoding: an impure group (internal error)")
            f = int(np.flatnonzero(val[S[Sx[0], lev]])[0])
            side = X[Sx, f] == 1
            if side.all() or not side.any():
                return rec(Sx, lev + 1)
            return SatNode(f, rec(Sx[~side], lev + 1), rec(Sx[side], lev + 1))

        return rec(np.arange(n), 0)

    return blocks(), decode


def _partition_pairs(X: np.ndarray, I: np.ndarray, J: np.ndarray, G: np.ndarray,
                     S: np.ndarray, d: int) -> Blocks:
    """DT_pb's pair clauses: a group takes one feature, and a pair stays together at
    the next level iff it agrees on it (blocks of about 300,000 pair-features)."""
    agree = X[I] == X[J]  # (P, k)
    P, k = agree.shape
    chunk = max(1, 300_000 // max(1, k))
    for lev in range(d):
        for p0 in range(0, P, chunk):
            p1 = min(P, p0 + chunk)
            Ii, Jj = I[p0:p1], J[p0:p1]
            g0 = G[p0:p1, lev][:, None]
            g1 = G[p0:p1, lev + 1][:, None]
            si = S[Ii, lev, :]
            sj = S[Jj, lev, :]
            # same group -> same feature
            a = np.stack([np.broadcast_to(-g0, si.shape), -si, sj], axis=-1)
            ag = agree[p0:p1]
            b = np.stack([np.broadcast_to(-g0, si.shape)[ag], -si[ag],
                          np.broadcast_to(g1, si.shape)[ag]], axis=-1)
            c = np.stack([-si[~ag], -np.broadcast_to(g1, si.shape)[~ag]], axis=-1)
            yield a.reshape(-1, 3).tolist() + b.tolist() + c.tolist()


# --------------------------------------------------------------------------- solving
def encoding_size(n: int, k: int, d: int, encoding: str = "auto") -> int:
    """Roughly the clauses of an encoding (to skip instances too big to build)."""
    if encoding == "auto":
        encoding = "depth" if d < AUTO_SWITCH_DEPTH else "partition"
    if encoding == "depth":
        return n * (2 ** d) * (k + 1)
    return n * (n - 1) * k * d + n * d * 3 * k


#: python-sat solvers whose ``interrupt`` is not implemented (every CaDiCaL, all of
#: python-sat's names for it; without this the timer thread raises and the time limit is
#: ignored): a time limit is kept by solving in slices of :data:`CONFLICT_SLICE`
#: conflicts instead
_NO_INTERRUPT = tuple(f"{p}{v}" for p in ("cd", "cdl") for v in ("", "103", "15", "153", "19",
                                                                    "195", "30", "300")
                      ) + ("cadical103", "cadical153", "cadical195", "cadical300")
CONFLICT_SLICE = 20_000


def _solve_in_slices(s: Any, until: float) -> bool | None:
    """``s.solve_limited`` in conflict-budget slices until an answer or ``until``
    (perf_counter seconds); None when the time ran out."""
    while True:
        s.conf_budget(CONFLICT_SLICE)
        res = s.solve_limited()
        if res is not None or time.perf_counter() >= until:
            return res


def solve_depth(X: np.ndarray, y: np.ndarray, d: int, *, encoding: str = "auto",
                solver: str = "g4", time_limit: float | None = None,
                ) -> tuple[str, SatNode | None, dict]:
    """Is there a perfect tree of depth <= ``d`` for distinct rows ``X``, classes ``y``?

    Returns ``(status, tree, info)``: status "sat" (tree decoded), "unsat" or
    "timeout" (``time_limit`` seconds, counting the encoding, ran out). The clauses go
    to the solver block by block as they are built (:func:`depth_blocks`,
    :func:`partition_blocks`): memory is the solver's own, not a Python copy.
    """
    solvers = pysat()
    t0 = time.perf_counter()
    y = np.asarray(y, dtype=np.int64)
    if _pure(y):
        return "sat", SatNode(label=int(y[0]) if len(y) else 0), {"clauses": 0, "encoding": "-"}
    if d <= 0:
        return "unsat", None, {"clauses": 0, "encoding": "-"}
    enc = encoding
    if enc == "auto":
        enc = "depth" if d < AUTO_SWITCH_DEPTH else "partition"
    if enc == "depth":
        blocks, decode = depth_blocks(X, y, d)
    elif enc == "partition":
        blocks, decode = partition_blocks(X, y, d)
    else:
        raise ValueError(f"encoding must be 'auto', 'depth' or 'partition', not {encoding!r}")
    until = None if time_limit is None else t0 + time_limit
    info: dict[str, Any] = {"clauses": 0, "encoding": enc}
    with solvers.Solver(name=solver) as s:
        for b in blocks:
            s.append_formula(b)
            info["clauses"] += len(b)
            if until is not None and time.perf_counter() >= until:
                info["encode_seconds"] = time.perf_counter() - t0
                return "timeout", None, info
        info["encode_seconds"] = time.perf_counter() - t0
        info["vars"] = s.nof_vars()
        res = _solve_until(s, solver, until)
        info["seconds"] = time.perf_counter() - t0
        if res is None:
            return "timeout", None, info
        if not res:
            return "unsat", None, info
        tree = decode(s.get_model())
    return "sat", tree, info


def _solve_until(s: Any, solver: str, until: float | None) -> bool | None:
    """``s.solve_limited`` stopped at ``until`` (perf_counter seconds; None: no limit) by
    a ``threading.Timer`` interrupt, or in conflict slices for solvers without one."""
    if until is None:
        return s.solve()
    if until - time.perf_counter() <= 0:
        return None
    if solver in _NO_INTERRUPT:
        return _solve_in_slices(s, until)
    timer = threading.Timer(until - time.perf_counter(), s.interrupt)
    timer.start()
    try:
        return s.solve_limited(expect_interrupt=True)
    finally:
        timer.cancel()
