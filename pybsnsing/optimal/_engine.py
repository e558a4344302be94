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
        X, codes, np.int64(n_classes), np.int64(_SALT_SEED))
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
        errors = sum(
            int(c.sum() - c.max()) for f, c in zip(self.feature, self.counts, strict=True) if f < 0
        )
        return A * errors + B * sum(f >= 0 for f in self.feature)


def normalise(d: int, n: int) -> tuple[int, int]:
    """Budgets as the recurrence normalises them: n <= 2^d - 1, d <= n."""
    n = min(n, (1 << d) - 1)
    d = min(d, n)
    return d, n


def search(
    data: PackedData,
    max_depth: int,
    max_nodes: int,
    A: int,
    B: int,
    time_limit: float,
    cache_bits: int | None = None,
    counter_memory: int = 1 << 28,
) -> SearchResult:
    """Optimal tree search with an anytime fallback (see the kernel module).

    ``cache_bits``: log2 of the initial hash-table size (the cache grows as needed;
    None: 8 for depth <= 2, 12 for depth 3, 16 deeper);
    ``counter_memory``: bytes allowed for the counter matrices of the depth-two
    solver (below 5 matrices' worth, row-by-row counter updates are disabled).
    """
    t0 = time.perf_counter()
    deadline = t0 + float(time_limit)
    if cache_bits is None:
        cache_bits = 8 if max_depth <= 2 else (12 if max_depth == 3 else 16)
    st = _k.SearchState(data.Xb, data.cws, data.indptr, data.indices, data.salt,
                        data.cls_of_word, data.dens, max_depth, cache_bits,
                        counter_memory)
    st.set_root(data.root_mask)
    meta = st.meta
    d, n = normalise(max_depth, max_nodes)
    inf = int(_k.INF)

    def build_optimal(tree: _Tree, level: int, side: int, dd: int, nn: int,
                      dec: tuple[int, int, int] | None = None) -> int:
        """Rebuild the optimal subtree of (level, side) top-down from the cache."""
        if dec is None:
            _s, _c, f, nl, nr = st.solve(level, side, dd, nn, inf, A, B, np.inf)
            f, nl, nr = int(f), int(nl), int(nr)
        else:
            f, nl, nr = dec
        k = tree.add(f, st.counts(level, side))
        if f >= 0:
            st.prepare_children(level, side, f)
            tree.left[k] = build_optimal(tree, level + 1, 0, dd - 1, nl)
            tree.right[k] = build_optimal(tree, level + 1, 1, dd - 1, nr)
        return k

    def build_greedy(tree: _Tree, level: int, side: int, dd: int, nn: int) -> int:
        """A quick heuristic tree: the root of the optimal depth-two tree, recursively."""
        dd, nn = normalise(dd, nn)
        if dd <= 2:
            return build_optimal(tree, level, side, dd, nn)
        _s, _c, f, _nl, _nr = st.solve(level, side, 2, min(nn, 3), inf, A, B, np.inf)
        f = int(f)
        k = tree.add(f, st.counts(level, side))
        if f >= 0:
            half = (1 << (dd - 1)) - 1
            nl = min(half, nn // 2)
            nr = min(half, nn - 1 - nl)
            st.prepare_children(level, side, f)
            tree.left[k] = build_greedy(tree, level + 1, 0, dd - 1, nl)
            tree.right[k] = build_greedy(tree, level + 1, 1, dd - 1, nr)
        return k

    def kernel_tree(greedy: bool) -> _Tree | None:
        """The tree built in one kernel call (None when a cached decision is missing)."""
        out = st.build(d, n, A, B, greedy)
        return None if out is None else _Tree.from_arrays(*out)

    def optimal_tree() -> _Tree:
        tree = kernel_tree(False)
        if tree is None:  # a record was dropped (full cache): ask the search again
            tree = _Tree()
            build_optimal(tree, 0, 0, d, n)
        return tree

    optimal = True
    resizes = 0
    tree = _Tree()
    if d <= 2:
        tree = optimal_tree()
    else:
        # a heuristic tree first: the initial upper bound and the anytime fallback
        greedy = kernel_tree(True)
        if greedy is None:  # pragma: no cover - the greedy tree needs no cached record
            greedy = _Tree()
            build_greedy(greedy, 0, 0, d, n)
        ub = greedy.cost(A, B)
        root_lb = int(_k._cc_lb(st.counts(0, 0), np.int64(n), np.int64(A), np.int64(B)))
        while ub > root_lb:  # else the heuristic tree meets the class-count bound
            meta[_k.M_CHECK] = 1
            r = st.solve(0, 0, d, n, ub, A, B, deadline)
            meta[_k.M_CHECK] = 0
            if r[0] < 0 and meta[_k.M_TIMEOUT] == 2:
                st.grow()  # the cache filled up: grow it and resume (cached work is kept)
                resizes += 1
                continue
            break
        else:
            r = (2,)
        meta[_k.M_TIMEOUT] = 0
        if r[0] == 2:
            tree = greedy
        elif r[0] > 0:
            tree = optimal_tree()
        else:  # out of time: the best complete root decision so far, or the heuristic
            optimal = False
            if meta[_k.M_RB_COST] < ub:
                dec = (int(meta[_k.M_RB_F]), int(meta[_k.M_RB_NL]), int(meta[_k.M_RB_NR]))
                build_optimal(tree, 0, 0, d, n, dec)
            else:
                tree = greedy
    stats = {
        "general_nodes": int(meta[_k.M_NGEN]),
        "depth2_solves": int(meta[_k.M_NTERM]),
        "counter_recounts": int(meta[_k.M_NGRAM]),
        "counter_subtractions": int(meta[_k.M_NSUB]),
        "counter_row_updates": int(meta[_k.M_NINC]),
        "similarity_cuts": int(meta[_k.M_NSIM]),
        "cache_entries": int(meta[_k.M_TABN]),
        "cache_records": int(meta[_k.M_RECN]),
        "cache_resizes": resizes,
    }
    return SearchResult(
        feature=np.array(tree.feature, dtype=np.int64),
        left=np.array(tree.left, dtype=np.int64),
        right=np.array(tree.right, dtype=np.int64),
        counts=np.array(tree.counts, dtype=np.int64).reshape(len(tree.feature), -1),
        cost=tree.cost(A, B),
        optimal=optimal,
        stats=stats,
    )
