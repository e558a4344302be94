"""Preparation of the bit-packed data for the MurTree kernels and the call into them."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pybsnsing.kernels import murtree as _k

_SALT_SEED = 0x5EED_B5A5


@dataclass
class PackedData:
    """Rows sorted by class and bit-packed per feature (see pybsnsing.kernels.murtree)."""

    Xb: np.ndarray  # uint64 (m, W)
    cws: np.ndarray  # int64 (C + 1,) class word starts
    indptr: np.ndarray  # int64 CSR over padded row positions
    indices: np.ndarray  # int32 present features per row
    salt: np.ndarray  # uint64 (2, W) hash salts
    cls_of_word: np.ndarray  # int64 (W,)
    dens: np.ndarray  # float64 (1,) fraction of ones
    root_mask: np.ndarray  # uint64 (W,)


def pack(X: np.ndarray, codes: np.ndarray, n_classes: int) -> PackedData:
    """Bit-pack a 0/1 matrix (n x m, uint8) with integer class codes 0..C-1."""
    X = np.ascontiguousarray(X, dtype=np.uint8)
    codes = np.ascontiguousarray(codes, dtype=np.int64)
    Xb, cws, indptr, indices, salt, cls_of_word, ones, root_mask = _k.pack_data(
        X, codes, int(n_classes), _SALT_SEED
    )
    dens = np.array([ones / X.size if X.size else 0.0], dtype=np.float64)
    return PackedData(Xb, cws, indptr, indices, salt, cls_of_word, dens, root_mask)


@dataclass
class SearchResult:
    """The rebuilt tree (flat node arrays) and search statistics."""

    feature: np.ndarray  # int64, -1 = leaf
    left: np.ndarray
    right: np.ndarray
    counts: np.ndarray  # (nodes, C) class counts
    cost: int  # combined cost A * misclassifications + B * nodes of the root
    optimal: bool
    stats: dict


class _Tree:
    """Flat node lists of a tree under construction (pre-order)."""

    def __init__(self) -> None:
        self.feature: list[int] = []
        self.left: list[int] = []
        self.right: list[int] = []
        self.counts: list[np.ndarray] = []

    @classmethod
    def from_arrays(cls, feature, left, right, counts) -> _Tree:
        tree = cls()
        tree.feature = feature.tolist()
        tree.left = left.tolist()
        tree.right = right.tolist()
        tree.counts = list(counts)
        return tree

    def add(self, feature: int, counts: np.ndarray) -> int:
        self.feature.append(feature)
        self.left.append(-1)
        self.right.append(-1)
        self.counts.append(counts)
        return len(self.feature) - 1

    def cost(self, A: int, B: int) -> int:
        """``A * misclassifications + B * feature nodes``."""
        leaves = np.array([c for f, c in zip(self.feature, self.counts, strict=True) if f < 0])
        errors = int((leaves.sum(axis=1) - leaves.max(axis=1)).sum())
        return A * errors + B * (len(self.feature) - leaves.shape[0])


def normalise(d: int, n: int) -> tuple[int, int]:
    """Budgets as the recurrence normalises them: n <= 2^d - 1, d <= n."""
    n = min(n, (1 << d) - 1)
    d = min(d, n)
    return d, n


def class_count_bound(counts: np.ndarray, max_nodes: int, A: int, B: int) -> int:
    """Lower bound on the cost of any tree with at most ``max_nodes`` feature nodes
    from the class counts alone (a tree with j nodes has j + 1 leaves)."""
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    return int(
        _k.class_count_lb(
            counts, np.int64(max_nodes), np.int64(A), np.int64(B), np.empty_like(counts)
        )
    )


class Engine:
    """One search state (cache included) over packed data, reusable across budgets.

    Every :meth:`search` on the same engine reuses the cached subproblems of the
    previous ones (MurTree's incremental solving): lower bounds and optimal root
    decisions are true for their budgets whatever the root asked.

    ``cache_bits``: log2 of the initial hash-table size (the cache grows as needed;
    None: 8 for depth <= 2, 12 for depth 3, 16 deeper);
    ``counter_memory``: bytes allowed for the counter matrices of the depth-two
    solver (below 5 matrices' worth, row-by-row counter updates are disabled).
    """

    def __init__(self, data: PackedData, max_depth: int, A: int, B: int,
                 cache_bits: int | None = None, counter_memory: int = 1 << 28) -> None:
        if cache_bits is None:
            cache_bits = 8 if max_depth <= 2 else (12 if max_depth == 3 else 16)
        self.st = _k.SearchState(
            data.Xb,
            data.cws,
            data.indptr,
            data.indices,
            data.salt,
            data.cls_of_word,
            data.dens,
            max_depth,
            cache_bits,
            counter_memory,
        )
        self.st.set_root(data.root_mask)
        self.max_depth = max_depth
        self.A = A
        self.B = B
        self.resizes = 0

    def stats(self) -> dict:
        meta = self.st.meta
        return {
            "general_nodes": int(meta[_k.M_NGEN]),
            "depth2_solves": int(meta[_k.M_NTERM]),
            "counter_recounts": int(meta[_k.M_NGRAM]),
            "counter_subtractions": int(meta[_k.M_NSUB]),
            "counter_row_updates": int(meta[_k.M_NINC]),
            "similarity_cuts": int(meta[_k.M_NSIM]),
            "cache_entries": int(meta[_k.M_TABN]),
            "cache_records": int(meta[_k.M_RECN]),
            "cache_resizes": self.resizes,
        }

    def _build_optimal(
        self,
        tree: _Tree,
        level: int,
        side: int,
        dd: int,
        nn: int,
        dec: tuple[int, int, int] | None = None,
    ) -> int:
        """Rebuild the optimal subtree of (level, side) top-down, asking the search."""
        st = self.st
        if dec is None:
            _s, _c, f, nl, nr = st.solve(level, side, dd, nn, int(_k.INF), self.A, self.B, np.inf)
            f, nl, nr = int(f), int(nl), int(nr)
        else:
            f, nl, nr = dec
        k = tree.add(f, st.counts(level, side))
        if f >= 0:
            st.prepare_children(level, side, f)
            tree.left[k] = self._build_optimal(tree, level + 1, 0, dd - 1, nl)
            tree.right[k] = self._build_optimal(tree, level + 1, 1, dd - 1, nr)
        return k

    def _optimal_tree(self, d: int, n: int) -> _Tree:
        out = self.st.build(d, n, self.A, self.B, False)  # one kernel call
        if out is not None:
            return _Tree.from_arrays(*out)
        tree = _Tree()  # a record was dropped (full cache): ask the search again
        self._build_optimal(tree, 0, 0, d, n)
        return tree

    def _bounded_solve(self, d: int, n: int, ub: int, root_lb: int, deadline: float) -> int:
        """The search's status below the upper bound ``ub``: 2 = nothing better than ``ub``
        exists (or ``ub`` meets the root's bound), > 0 = solved, < 0 = out of time; a
        full cache is grown and the search resumed."""
        meta = self.st.meta
        status = 2  # the fallback meets the class-count bound: optimal
        while ub > root_lb:
            meta[_k.M_CHECK] = 1
            status = int(self.st.solve(0, 0, d, n, ub, self.A, self.B, deadline)[0])
            meta[_k.M_CHECK] = 0
            if status < 0 and meta[_k.M_TIMEOUT] == 2:
                self.st.grow()  # the cache filled up: grow it and resume (cached work is kept)
                self.resizes += 1
                continue
            break
        meta[_k.M_TIMEOUT] = 0
        return status

    def search(self, max_depth: int, max_nodes: int, deadline: float,
               incumbent: SearchResult | None = None) -> SearchResult:
        """Optimal tree for budgets (max_depth <= the engine's, max_nodes), anytime.

        ``incumbent``: a known tree within these budgets (for example the optimum of
        a smaller node budget): its cost bounds the search and it is the fallback.
        """
        st = self.st
        A, B = self.A, self.B
        meta = st.meta
        meta[_k.M_RB_COST] = _k.INF
        d, n = normalise(max_depth, max_nodes)
        optimal = True
        if d <= 2:
            tree = self._optimal_tree(d, n)
        else:
            # a heuristic tree first: the initial upper bound and the anytime fallback
            fallback = _Tree.from_arrays(*st.build(d, n, A, B, True))
            ub = fallback.cost(A, B)
            if incumbent is not None and incumbent.cost < ub:
                fallback = _Tree.from_arrays(
                    incumbent.feature, incumbent.left, incumbent.right, incumbent.counts
                )
                ub = incumbent.cost
            status = self._bounded_solve(
                d, n, ub, class_count_bound(st.counts(0, 0), n, A, B), deadline
            )
            if status == 2:
                tree = fallback
            elif status > 0:
                tree = self._optimal_tree(d, n)
            else:  # out of time: the best complete root decision so far, or the fallback
                optimal = False
                if meta[_k.M_RB_COST] < ub:
                    tree = _Tree()
                    dec = (int(meta[_k.M_RB_F]), int(meta[_k.M_RB_NL]), int(meta[_k.M_RB_NR]))
                    self._build_optimal(tree, 0, 0, d, n, dec)
                else:
                    tree = fallback
        return SearchResult(
            feature=np.array(tree.feature, dtype=np.int64),
            left=np.array(tree.left, dtype=np.int64),
            right=np.array(tree.right, dtype=np.int64),
            counts=np.array(tree.counts, dtype=np.int64).reshape(len(tree.feature), -1),
            cost=tree.cost(A, B),
            optimal=optimal,
            stats=self.stats(),
        )


def search(data: PackedData, max_depth: int, max_nodes: int, A: int, B: int,
           time_limit: float, cache_bits: int | None = None,
           counter_memory: int = 1 << 28) -> SearchResult:
    """Optimal tree search with an anytime fallback (one :class:`Engine`, one search)."""
    deadline = time.perf_counter() + float(time_limit)
    d, n = normalise(max_depth, max_nodes)
    engine = Engine(data, max_depth, A, B, cache_bits, counter_memory)
    return engine.search(d, n, deadline)
