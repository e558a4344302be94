"""Numba kernels of the MurTree optimal classification tree solver.

Reference: Demirović, Lukina, Hebrard, Chan, Bailey, Leckie, Ramamohanarao,
Stuckey, "MurTree: Optimal Decision Trees via Dynamic Programming and
Search", JMLR 23 (2022). The algorithm is described in the project notes
(``shared/spec/murtree.md``); this module is the engine, the user-facing
API lives in :mod:`pybsnsing.optimal`.

Data layout
-----------
Rows are sorted by class and bit-packed per feature: ``Xb[f, w]`` holds 64
rows per word, class ``c`` owns the words ``cws[c] .. cws[c+1]-1`` (each class
starts on a fresh word), so a subproblem (a set of rows) is a bitset
``mask[W]`` and its class counts are popcounts over the class word ranges.
``indptr``/``indices`` give, in CSR form over the padded row positions, the
features present (= 1) in each row; they serve the compaction of a
subproblem before its frequency counters are computed.

Costs
-----
Everything is an integer cost ``A * misclassifications + B * nodes`` with
``A, B`` chosen by the caller: ``A = 2**s, B = 1`` (``s`` large enough that
``nodes < 2**s``) gives the lexicographic objective "fewest misclassifications,
then fewest nodes" exactly, and the sparse objective adds a per-node penalty
(see :func:`pybsnsing.optimal.murtree_fit`).

Search
------
``_solve`` is the recursion of the spec: normalise the budgets, look the
subproblem up in the dataset cache (key = two independent 64-bit hashes of the
row bitset, 128 bits in all; an open-addressing table of linked records, one
per (depth, nodes) budget, holding a lower bound and, once known, the optimal
root decision), take the similarity lower bound of the two most recent
subproblems of the same level, return a leaf when the lower bound reaches the
leaf cost, call the specialised depth-two solver for depth <= 2, and
otherwise loop over features and node-budget splits with upper and lower
bounds (only strictly better trees are sought), dynamic child order (the
child with the larger leaf cost first) and refined lower bounds for failed
searches. The tree is rebuilt top-down at the end by asking the cache again.

Compile time
------------
A first fit with an empty numba cache compiles every kernel, so the module is laid
out for a short compile:

* the search state is a few :class:`typing.NamedTuple` records of arrays
  (:class:`State`: :class:`Data`, :class:`Frames`, :class:`Counters`,
  :class:`Cache`, :class:`Scratch`, ``meta``), read field by field where used;
* numba links every callee's machine code into each caller and optimises it
  again, so the call graph is shallow: one entry point, ``_solve`` (the search
  and, by ``op``, the tree rebuild), calls leaf kernels that take plain arrays;
  the glue that has a single caller is inlined (``inline="always"``) rather
  than compiled on its own;
* nothing is allocated inside the kernels (each numpy constructor is a compiled
  overload of its own): the driver allocates every buffer; the bit-packing is
  numpy code around one small row loop (:func:`pack_data`, :func:`_pack_rows`);
* int64 arguments throughout (a literal int argument would compile a helper once
  per literal value) and element loops instead of slice copies (``a[:] = b``
  pulls numba's shape-error message formatting, seconds of string code, into
  the first compile).

``_solve`` is recursive and is only ever called from Python
(:class:`SearchState`): numba's on-disk cache cannot reload a jitted caller of
a recursive jitted function. A search stops early (status -1) when the time
limit passes or when the cache is full; in the latter case the driver grows
the cache and resumes (all cached work is kept).

Depth-two solver
----------------
For a subproblem ``D`` it takes, per class ``c``, the Gram matrix
``FQ_c(i, j)`` (``FQ_c(i, i) = FQ_c(i)``) of the compacted bit-packed columns
(AND + popcount, the full square so that the inner loop vectorises), and
reads the optimal 1-, 2- and 3-node trees of depth <= 2 off the counters in
one ``O(m^2 C)`` pass. Counters are updated incrementally under a
depth-three node (only one is open at a time, so one set of buffers serves):
the counters of the larger child of a split are the node's counters minus
those of the smaller child (the solver subtracts row by row on the fly), and
the counters of a child are updated row by row (rows that entered and left)
from those of the same side of the previous feature when a cost model finds
that cheaper than a recount.
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numpy as np
from numba import njit, objmode

from .bits import cttz, popcnt

INF = np.int64(1) << np.int64(61)

# meta[] slots
M_TABN = 0  # used hash-table slots
M_RECN = 1  # used cache records
M_TIMEOUT = 2  # stop the search: 1 = time limit passed, 2 = cache full (grow, resume)
M_TICK = 3  # calls since the last clock read
M_NTERM = 4  # depth-two solver runs
M_NGEN = 5  # general-case nodes searched
M_NGRAM = 6  # counter matrices computed from scratch
M_NSUB = 7  # counter matrices obtained by subtraction
M_NINC = 8  # counter matrices obtained by incremental row updates
M_RB_COST = 9  # best root solution so far (anytime answer)
M_RB_F = 10
M_RB_NL = 11
M_RB_NR = 12
M_CHECK = 13  # clock reads enabled
M_NSIM = 14  # subproblems cut by the similarity bound
M_SIZE = 16

# cache record columns
R_D = 0
R_N = 1
R_LB = 2
R_COST = 3
R_F = 4
R_NL = 5
R_NR = 6
R_NEXT = 7
R_WIDTH = 8

# _solve operations
OP_SEARCH = 0  # the search on a subproblem
OP_BUILD = 1  # rebuild the optimal tree of the root from the cache
OP_GREEDY = 2  # a quick heuristic tree of the root

# options of every kernel (those of the other tree kernels, pybsnsing.kernels.enum)
_JIT = {"cache": True, "error_model": "numpy", "_nrt": False, "no_cfunc_wrapper": True}
# glue with a single caller (or a few lines): typed and compiled inside its caller
_INLINE = {**_JIT, "inline": "always"}
# kernels only other kernels call: no Python wrapper
_INNER = {**_JIT, "no_cpython_wrapper": True}

_M1 = np.int64(-1)
_Z = np.int64(0)
_1 = np.int64(1)
_2 = np.int64(2)
_OPS = np.int64(OP_SEARCH)  # (a global int would be typed as a literal: a second compile)


class Data(NamedTuple):
    """Rows sorted by class and bit-packed per feature (see the module notes)."""

    Xb: np.ndarray  # uint64 (m, W): feature f's rows, 64 per word
    cws: np.ndarray  # int64 (C + 1,): class c owns the words cws[c] .. cws[c+1]-1
    indptr: np.ndarray  # int64 (64 W + 1,): CSR over the padded row positions ...
    indices: np.ndarray  # int32: ... of the features present (= 1) in each row
    salt: np.ndarray  # uint64 (2, W): odd hash salts
    cls_of_word: np.ndarray  # int64 (W,): class of each word
    dens: np.ndarray  # float64 (2,): fraction of ones; 1.0 when row updates are enabled


class Frames(NamedTuple):
    """The open subproblems, two per level (the children of the node above)."""

    masks: np.ndarray  # uint64 (L, 2, W): row bitsets
    cnts: np.ndarray  # int64 (L, 2, C): class counts
    hs: np.ndarray  # int64 (L, 2, 2): the two hashes of each row set
    simm: np.ndarray  # uint64 (L, 2, W): similarity bound: the last two row sets ...
    simh: np.ndarray  # int64 (L, 2, 2): ... their hashes ...
    simv: np.ndarray  # int64 (L, 2): ... whether set ...
    simnext: np.ndarray  # int64 (L,): ... and the slot written next
    feats: np.ndarray  # int64 (L, m): the features that split the subproblem


class Counters(NamedTuple):
    """Frequency counters of the depth-two solver, with the context of the open
    depth-three node (at most one is open at a time: one set of buffers serves)."""

    on: np.ndarray  # int64 (L,): a depth-three node is open at this level ...
    side: np.ndarray  # int64 (L,): ... on this side, ...
    nfeat: np.ndarray  # int64 (L,): ... with this many local features ...
    loc2glob: np.ndarray  # int64 (L, m): ... their global ids ...
    glob2loc: np.ndarray  # int64 (L, m): ... and local ids (-1: none)
    pg_valid: np.ndarray  # int64 (L,): the node's counters are in G[0]
    cg_valid: np.ndarray  # int64 (L, 2): a child's counters are in G[cur]
    G: np.ndarray  # int32 (slots, C, m, m): parent and two per side (or one)
    colsT: np.ndarray  # uint64 (W + C, m): compacted columns
    l2g_tmp: np.ndarray  # int64 (m,): features of a subproblem without context
    g2l_tmp: np.ndarray  # int64 (m,)
    lws: np.ndarray  # int64 (C + 1,): local class word starts
    cur: np.ndarray  # int64 (L, 2): current counter slot per side
    prev_mask: np.ndarray  # uint64 (L, 2, W): row set of the last counters per side
    lst: np.ndarray  # int64 (m,): a row's local features
    inc_ok: np.ndarray  # int64 (L, 2): row updates allowed
    rowbuf: np.ndarray  # int32 (C, m): depth-two solver: counter rows ...
    diag: np.ndarray  # int32 (C, m): ... and diagonals


class Cache(NamedTuple):
    """The dataset cache: open-addressing hash table of row sets -> linked records."""

    tab: np.ndarray  # int64 (2^k, 3): hash 1, hash 2, first record (-1: free slot)
    recs: np.ndarray  # int64 (records, R_WIDTH)


class Scratch(NamedTuple):
    """Work arrays of the depth-two solver and of the tree rebuild."""

    out: np.ndarray  # int64 (3, 5): depth-two trees (cost, feature, nl, nr, nodes)
    lr: np.ndarray  # int64 (2, C): class counts of the two sides of a split
    srt: np.ndarray  # int64 (C,): sorted class counts
    stk: np.ndarray  # int64 (2 L + 2, 6): rebuild stack
    feature: np.ndarray  # int64 (K,): the rebuilt tree, pre-order ...
    left: np.ndarray  # int64 (K,)
    right: np.ndarray  # int64 (K,)
    counts: np.ndarray  # int64 (K, C)


class State(NamedTuple):
    """Everything one search works on (see :class:`SearchState`)."""

    dat: Data
    fr: Frames
    ctx: Counters
    cache: Cache
    tmp: Scratch
    meta: np.ndarray  # int64 (M_SIZE,)


# ---------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------


@njit(**_INNER)
def _now() -> float:
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(**_INNER)
def _mix1(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(**_INNER)
def _mix2(z):
    z = (z ^ (z >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
    z = (z ^ (z >> np.uint64(33))) * np.uint64(0xC4CEB9FE1A85EC53)
    return z ^ (z >> np.uint64(33))


@njit(**_INNER)
def _norm(d, n):
    """Normalised budgets: n <= 2^d - 1 and d <= n."""
    cap = (np.int64(1) << d) - 1
    if n > cap:
        n = cap
    if d > n:
        d = n
    return d, n


@njit(**_INNER)
def _leaf_mis(cnt):
    tot = np.int64(0)
    mx = np.int64(0)
    for c in range(cnt.shape[0]):
        tot += cnt[c]
        if cnt[c] > mx:
            mx = cnt[c]
    return tot - mx


@njit(**_INNER)
def _node_cap(lb, ub, A, B, n):
    """Most feature nodes a tree of cost <= ub can have (n when no tighter).

    A tree of cost ``A * e + B * j <= ub`` with ``e >= e_lb`` errors has
    ``j <= (ub - A * e_lb) / B``; ``e_lb = lb // A`` holds when ``B * n < A``
    (then the node term never reaches a unit of A), else ``e_lb = 0``.
    """
    if B <= 0:
        return n
    elb = lb // A if B * n < A else np.int64(0)
    cap = (ub - A * elb) // B
    return cap if cap < n else n


@njit(**_INNER)
def _tick(meta, deadline):
    """Count a unit of work; read the clock now and then. True when the search must stop.

    Stops (only while ``meta[M_CHECK]`` is set) when out of time or when the
    cache is full (the driver then grows it and resumes).
    """
    if meta[M_CHECK] == 0:
        return False
    if meta[M_TIMEOUT] != 0:
        return True
    meta[M_TICK] += 1
    if meta[M_TICK] >= 16:
        meta[M_TICK] = 0
        if _now() > deadline:
            meta[M_TIMEOUT] = 1
            return True
    return False


# ---------------------------------------------------------------------------
# data preparation (numpy around one small row loop)
# ---------------------------------------------------------------------------


def _words(bits: np.ndarray) -> np.ndarray:
    """uint64 words of a bool array whose last axis is a multiple of 64 long (bit b of
    word w = element 64 w + b)."""
    packed = np.packbits(bits, axis=-1, bitorder="little")
    return np.ascontiguousarray(packed).view("<u8").astype(np.uint64)


@njit(**_JIT)
def _pack_rows(X, order, pos, XbT, indptr, indices):
    """The bit-packing loop of :func:`pack_data` (outputs zeroed by the caller).

    Row ``order[k]`` of ``X`` goes to padded position ``pos[k]`` (increasing in k):
    its bits into ``XbT[pos >> 6]``, its count of ones into ``indptr`` (then summed into
    the CSR offsets), its present features into ``indices`` (``m`` entries of slack:
    every column is written, only the ones advance).
    """
    n, m = X.shape
    for k in range(n):
        i = order[k]
        p = pos[k]
        sh = np.uint64(p & 63)
        xw = XbT[p >> 6]
        c = _Z
        for j in range(m):
            v = np.uint64(X[i, j] != 0)
            xw[j] |= v << sh
            c += np.int64(v)
        indptr[p + 1] = c
    for p in range(indptr.shape[0] - 1):
        indptr[p + 1] += indptr[p]
    for k in range(n):
        i = order[k]
        t = indptr[pos[k]]
        for j in range(m):
            indices[t] = j
            t += np.int64(X[i, j] != 0)


def pack_data(X: np.ndarray, codes: np.ndarray, C: int, seed: int):
    """Rows sorted by class (stably) and bit-packed per feature; see the module notes.

    ``X``: 0/1 matrix (n x m, uint8, C-contiguous), ``codes``: class codes 0..C-1
    (int64). Returns ``(Xb, cws, indptr, indices, salt, cls_of_word, ones, root_mask)``:
    ``ones`` is the number of ones in X, ``salt`` two rows of odd 64-bit hash salts
    (splitmix64 from ``seed``), ``root_mask`` the bitset of all rows.
    """
    n, m = X.shape
    counts = np.bincount(codes, minlength=C).astype(np.int64)
    cws = np.zeros(C + 1, dtype=np.int64)
    np.cumsum((counts + 63) // 64, out=cws[1:])
    W = max(int(cws[C]), 1)
    P = W * 64
    order = np.argsort(codes, kind="stable")
    first = np.zeros(C + 1, dtype=np.int64)  # first sorted row of each class
    np.cumsum(counts, out=first[1:])
    cls = codes[order]
    pos = cws[cls] * 64 + (np.arange(n, dtype=np.int64) - first[cls])  # padded positions
    XbT = np.zeros((W, m), dtype=np.uint64)  # transposed while filling (rows contiguous)
    indptr = np.zeros(P + 1, dtype=np.int64)
    indices = np.empty(int(np.count_nonzero(X)) + m, dtype=np.int32)
    _pack_rows(X, order, pos, XbT, indptr, indices)
    ones = int(indptr[P])
    root = np.zeros(P, dtype=bool)
    root[pos] = True
    cls_of_word = np.zeros(W, dtype=np.int64)
    cls_of_word[: cws[C]] = np.repeat(np.arange(C, dtype=np.int64), np.diff(cws))
    z = np.uint64(seed) + np.arange(1, 2 * W + 1, dtype=np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    salt = (_mix1.py_func(z) | np.uint64(1)).reshape(2, W)
    return (np.ascontiguousarray(XbT.T), cws, indptr, indices[:ones], salt, cls_of_word,
            ones, _words(root))


def _hash_mask(mask: np.ndarray, salt: np.ndarray) -> tuple[int, int]:
    """The two hashes of a row set (wrapping uint64 sums, as the kernels form them)."""
    a1 = np.sum(_mix1.py_func(mask ^ salt[0]), dtype=np.uint64)
    a2 = np.sum(_mix2.py_func(mask + salt[1]), dtype=np.uint64)
    return tuple(int(v) for v in np.array([a1, a2], dtype=np.uint64).view(np.int64))


# ---------------------------------------------------------------------------
# dataset cache: open-addressing hash table of row sets -> linked records
# ---------------------------------------------------------------------------


@njit(**_INNER)
def _tab_find(tab, h1, h2):
    """Slot of (h1, h2) in the table, or -1 - (free slot) when absent."""
    msk = tab.shape[0] - 1
    i = h1 & msk
    while True:
        if tab[i, 2] == -1:
            return -1 - i
        if tab[i, 0] == h1 and tab[i, 1] == h2:
            return i
        i = (i + 1) & msk


@njit(**_INNER)
def _cache_query(tab, recs, h1, h2, d, n):
    """Lower bound and (if known) optimal root decision of a subproblem.

    Returns (lb, cost, feature, nl, nr); cost is -1 when the optimum for
    budgets (d, n) is not known. Records with budgets >= (d, n) give lower
    bounds; an optimum for budgets <= (d, n) that meets the lower bound is
    optimal for (d, n) as well.
    """
    i = _tab_find(tab, h1, h2)
    r = tab[i, 2] if i >= 0 else _M1
    lb = np.int64(0)
    sm_cost = INF
    sm_r = np.int64(-1)
    while r != -1:
        rd = recs[r, R_D]
        rn = recs[r, R_N]
        rc = recs[r, R_COST]
        if rd == d and rn == n and rc >= 0:
            sm_r = r
            lb = rc
            break
        if rd >= d and rn >= n and recs[r, R_LB] > lb:
            lb = recs[r, R_LB]
        if rd <= d and rn <= n and rc >= 0 and rc < sm_cost:
            sm_cost = rc
            sm_r = r
        r = recs[r, R_NEXT]
    if sm_r >= 0 and recs[sm_r, R_COST] <= lb:
        c = recs[sm_r, R_COST]
        return c, c, recs[sm_r, R_F], recs[sm_r, R_NL], recs[sm_r, R_NR]
    return lb, _M1, _M1, _Z, _Z


@njit(**_INNER)
def _cache_lb(tab, recs, h1, h2, d, n):
    """Best known lower bound (or optimum) of a subproblem for budgets (d, n)."""
    i = _tab_find(tab, h1, h2)
    r = tab[i, 2] if i >= 0 else _M1
    lb = np.int64(0)
    while r != -1:
        if recs[r, R_D] >= d and recs[r, R_N] >= n and recs[r, R_LB] > lb:
            lb = recs[r, R_LB]
        r = recs[r, R_NEXT]
    return lb


@njit(**_INNER)
def _cache_put(tab, recs, meta, h1, h2, d, n, lb, cost, f, nl, nr):
    """Record a lower bound (cost = -1) or an optimal root decision."""
    i = _tab_find(tab, h1, h2)
    if i >= 0:
        r = tab[i, 2]
        while r != -1:
            if recs[r, R_D] == d and recs[r, R_N] == n:
                if recs[r, R_COST] >= 0:
                    return
                if cost >= 0:
                    _set_record(recs, r, d, n, cost, cost, f, nl, nr)
                elif lb > recs[r, R_LB]:
                    recs[r, R_LB] = lb
                return
            r = recs[r, R_NEXT]
    k = meta[M_RECN]
    if k >= recs.shape[0] or (i < 0 and 2 * (meta[M_TABN] + 1) > tab.shape[0]):
        # full: drop the record; during a search ask the driver to grow and resume
        if meta[M_CHECK] != 0:
            meta[M_TIMEOUT] = 2
        return
    _set_record(recs, k, d, n, cost if cost >= 0 else lb, cost, f, nl, nr)
    meta[M_RECN] = k + 1
    if i >= 0:
        recs[k, R_NEXT] = tab[i, 2]
        tab[i, 2] = k
        return
    recs[k, R_NEXT] = -1
    pos = -1 - i
    tab[pos, 0] = h1
    tab[pos, 1] = h2
    tab[pos, 2] = k
    meta[M_TABN] += 1


@njit(**_INNER)
def _set_record(recs, r, d, n, lb, cost, f, nl, nr):
    recs[r, R_D] = d
    recs[r, R_N] = n
    recs[r, R_LB] = lb
    recs[r, R_COST] = cost
    recs[r, R_F] = f
    recs[r, R_NL] = nl
    recs[r, R_NR] = nr


@njit(**_JIT)
def _rehash(tab, nt):
    """The hash table ``tab`` re-inserted into ``nt`` (a power of two of slots, all
    free: column 2 = -1)."""
    msk = nt.shape[0] - 1
    for s in range(tab.shape[0]):
        if tab[s, 2] != -1:
            j = tab[s, 0] & msk
            while nt[j, 2] != -1:
                j = (j + 1) & msk
            nt[j, 0] = tab[s, 0]
            nt[j, 1] = tab[s, 1]
            nt[j, 2] = tab[s, 2]


# ---------------------------------------------------------------------------
# bitset helpers
# ---------------------------------------------------------------------------


@njit(**_JIT)
def _split(dat, fr, level, side, f):
    """The two children of subproblem (level, side) on feature f into level + 1:
    rows with f = 0 on side 0, f = 1 on side 1; their class counts and hashes."""
    cws = dat.cws
    salt = dat.salt
    mask = fr.masks[level, side]
    col = dat.Xb[f]
    m0 = fr.masks[level + 1, 0]
    m1 = fr.masks[level + 1, 1]
    a1 = np.uint64(0)
    a2 = np.uint64(0)
    b1 = np.uint64(0)
    b2 = np.uint64(0)
    for c in range(cws.shape[0] - 1):
        s0 = np.uint64(0)
        s1 = np.uint64(0)
        for w in range(cws[c], cws[c + 1]):
            x = mask[w]
            y = x & col[w]
            z = x & ~y
            m1[w] = y
            m0[w] = z
            s1 += popcnt(y)
            s0 += popcnt(z)
            a1 += _mix1(z ^ salt[0, w])
            a2 += _mix2(z + salt[1, w])
            b1 += _mix1(y ^ salt[0, w])
            b2 += _mix2(y + salt[1, w])
        fr.cnts[level + 1, 0, c] = np.int64(s0)
        fr.cnts[level + 1, 1, c] = np.int64(s1)
    hs = fr.hs
    hs[level + 1, 0, 0] = np.int64(a1)
    hs[level + 1, 0, 1] = np.int64(a2)
    hs[level + 1, 1, 0] = np.int64(b1)
    hs[level + 1, 1, 1] = np.int64(b2)


@njit(**_INNER)
def _split_features(Xb, mask, tot, fl):
    """The features that split the ``tot`` rows of ``mask`` (some, not all, rows have
    them) into ``fl``; returns their number."""
    nF = 0
    for f in range(Xb.shape[0]):
        col = Xb[f]
        s = np.int64(0)
        for w in range(mask.shape[0]):
            s += np.int64(popcnt(mask[w] & col[w]))
        if s > 0 and s < tot:
            fl[nF] = f
            nF += 1
    return np.int64(nF)


@njit(**_JIT)
def class_count_lb(cnt, n, A, B, srt):
    """Class-count lower bound of a subproblem with at most ``n`` feature nodes.

    A tree with j feature nodes has j + 1 leaves, so the rows of all but j + 1
    of the k classes present are misclassified: the bound is the minimum over
    j <= n of ``A * (sum of the k - j - 1 smallest class counts) + B * j``.
    ``srt``: a work array of ``len(cnt)`` int64.
    """
    C = cnt.shape[0]
    if C == 2:
        a = cnt[0]
        b = cnt[1]
        if a == 0 or b == 0:
            return np.int64(0)
        lo = a if a < b else b
        v = A * lo
        if n >= 1 and B < v:
            v = B
        return v
    k = 0
    for c in range(C):
        x = cnt[c]
        if x > 0:
            i = k
            while i > 0 and srt[i - 1] > x:
                srt[i] = srt[i - 1]
                i -= 1
            srt[i] = x
            k += 1
    if k <= 1:
        return np.int64(0)
    err = np.int64(0)
    for i in range(k - 1):
        err += srt[i]
    best = A * err  # j = 0: a leaf
    j = np.int64(1)
    while j <= n and j <= k - 1:
        err -= srt[k - 1 - j]
        v = A * err + B * j
        if v < best:
            best = v
        j += 1
    return best


# ---------------------------------------------------------------------------
# frequency counters (per-class Gram matrices) and the depth-two solver
# ---------------------------------------------------------------------------
@njit(**_INNER)
def _gram(mask, cws, indptr, indices, g2l, mF, colsT, G, lws):
    """Per-class Gram matrices G[c, :mF, :mF] of the rows in ``mask``.

    The rows are first compacted into local bit-packed columns ``colsT[w, i]``
    (local feature i = ``g2l`` of the global one; each class starts on a new
    word), then ``G[c, i, j] = sum_w popcount(col_i & col_j)`` over the words
    of class c. ``lws`` receives the local word offsets of the classes.
    """
    C = cws.shape[0] - 1
    lws[0] = 0
    for c in range(C):
        cnt = np.int64(0)
        for w in range(cws[c], cws[c + 1]):
            cnt += np.int64(popcnt(mask[w]))
        lws[c + 1] = lws[c] + (cnt + 63) // 64
    Wl = lws[C]
    for w in range(Wl):
        for i in range(mF):
            colsT[w, i] = 0
    for c in range(C):
        p = lws[c] * 64
        for w in range(cws[c], cws[c + 1]):
            x = mask[w]
            while x != 0:
                b = np.int64(cttz(x))
                x &= x - np.uint64(1)
                r = w * 64 + b
                pw = p >> 6
                bit = np.uint64(1) << np.uint64(p & 63)
                for t in range(indptr[r], indptr[r + 1]):
                    lf = g2l[indices[t]]
                    if lf >= 0:
                        colsT[pw, lf] |= bit
                p += 1
    # the full square (not a triangle plus a transpose): the j loop vectorises
    for c in range(C):
        Gc = G[c]
        for i in range(mF):
            gi = Gc[i]
            for j in range(mF):
                gi[j] = 0
        for w in range(lws[c], lws[c + 1]):
            row = colsT[w]
            for i in range(mF):
                a = row[i]
                if a == 0:
                    continue
                gi = Gc[i]
                for j in range(mF):
                    gi[j] += np.int32(popcnt(a & row[j]))


@njit(**_INNER)
def _gram_update(G, mF, new_mask, old_mask, cws, indptr, indices, g2l, cls_of_word, lst):
    """Turn the counters of ``old_mask`` into those of ``new_mask``, row by row."""
    for w in range(new_mask.shape[0]):
        xa = new_mask[w] & ~old_mask[w]
        xs = old_mask[w] & ~new_mask[w]
        if xa == 0 and xs == 0:
            continue
        Gc = G[cls_of_word[w]]
        for sign in range(2):
            x = xa if sign == 0 else xs
            delta = np.int32(1) if sign == 0 else np.int32(-1)
            while x != 0:
                b = np.int64(cttz(x))
                x &= x - np.uint64(1)
                r = w * 64 + b
                k = 0
                for t in range(indptr[r], indptr[r + 1]):
                    lf = g2l[indices[t]]
                    if lf >= 0:
                        lst[k] = lf
                        k += 1
                for u in range(k):
                    gu = Gc[lst[u]]
                    for v in range(k):
                        gu[lst[v]] += delta


@njit(**_INNER)
def _offer(out, b, t, f, nl, nr, k):
    """Keep the tree (cost t, feature f, child node budgets nl/nr, k nodes) as
    ``out[b]`` when it is cheaper (ties: fewer nodes)."""
    if t < out[b, 0] or (t == out[b, 0] and k < out[b, 4]):
        out[b, 0] = t
        out[b, 1] = f
        out[b, 2] = nl
        out[b, 3] = nr
        out[b, 4] = k


@njit(**_INNER)
def _d2_solve(P, M, has_m, N, mF, l2g, A, B, out, rowbuf, diag, lr):
    """Optimal trees of depth <= 2 with 1, 2 and 3 feature nodes from counters.

    The counters are ``P`` (or ``P - M`` when ``has_m``: parent minus sibling,
    formed row by row in ``rowbuf`` without writing the difference matrix).
    ``out[b] = (cost, feature, nl, nr, nodes)`` for the budgets
    b = 0: (depth 1, 1 node), 1: (depth 2, 2 nodes), 2: (depth 2, 3 nodes);
    feature -1 is a leaf. nl/nr are the node counts (0 or 1) of the children.
    Ties go to fewer nodes. ``lr``: work array (2, C).
    """
    C = N.shape[0]
    ntot = np.int64(0)
    nmax = np.int64(0)
    for c in range(C):
        ntot += N[c]
        if N[c] > nmax:
            nmax = N[c]
    leaf0 = A * (ntot - nmax)
    for b in range(3):
        out[b, 0] = leaf0
        out[b, 1] = -1
        out[b, 2] = 0
        out[b, 3] = 0
        out[b, 4] = 0
    Lc = lr[0]
    Rc = lr[1]
    for c in range(C):
        dc = diag[c]
        for j in range(mF):
            dc[j] = P[c, j, j] - M[c, j, j] if has_m else P[c, j, j]
    d0 = diag[0]
    d1 = diag[min(1, C - 1)]
    for i in range(mF):
        rt = np.int64(0)
        for c in range(C):
            Rc[c] = diag[c, i]
            Lc[c] = N[c] - Rc[c]
            rt += Rc[c]
        if rt == 0 or rt == ntot:
            continue
        lt = ntot - rt
        mxl = np.int64(0)
        mxr = np.int64(0)
        for c in range(C):
            if Lc[c] > mxl:
                mxl = Lc[c]
            if Rc[c] > mxr:
                mxr = Rc[c]
        leafL = lt - mxl
        leafR = rt - mxr
        bestL = leafL
        bestR = leafR
        if has_m or C != 2:
            for c in range(C):
                pc = P[c, i]
                rb = rowbuf[c]
                if has_m:
                    mc = M[c, i]
                    for j in range(mF):
                        rb[j] = pc[j] - mc[j]
                else:
                    for j in range(mF):
                        rb[j] = pc[j]
        if C == 2:
            g0 = rowbuf[0] if has_m else P[0, i]
            g1 = rowbuf[1] if has_m else P[1, i]
            L0 = Lc[0]
            L1 = Lc[1]
            R0 = Rc[0]
            R1 = Rc[1]
            for j in range(mF):
                a0 = np.int64(g0[j])
                a1 = np.int64(g1[j])
                cr = min(a0, a1) + min(R0 - a0, R1 - a1)
                e0 = np.int64(d0[j]) - a0
                e1 = np.int64(d1[j]) - a1
                cl = min(e0, e1) + min(L0 - e0, L1 - e1)
                bestR = min(bestR, cr)
                bestL = min(bestL, cl)
        else:
            for j in range(mF):
                mxa = np.int64(0)
                mxb = np.int64(0)
                mxe = np.int64(0)
                mxf = np.int64(0)
                for c in range(C):
                    a = np.int64(rowbuf[c, j])
                    if a > mxa:
                        mxa = a
                    if Rc[c] - a > mxb:
                        mxb = Rc[c] - a
                    e = np.int64(diag[c, j]) - a
                    if e > mxe:
                        mxe = e
                    if Lc[c] - e > mxf:
                        mxf = Lc[c] - e
                cr = rt - mxa - mxb
                cl = lt - mxe - mxf
                if cr < bestR:
                    bestR = cr
                if cl < bestL:
                    bestL = cl
        f = l2g[i]
        # children with a one-node budget: a split only when strictly better
        cL = A * leafL
        nLn = _Z
        if bestL < leafL and A * bestL + B < cL:
            cL = A * bestL + B
            nLn = _1
        cR = A * leafR
        nRn = _Z
        if bestR < leafR and A * bestR + B < cR:
            cR = A * bestR + B
            nRn = _1
        t = A * (leafL + leafR) + B
        # (int64 constants: a literal int argument would compile _offer once per value)
        _offer(out, _Z, t, f, _Z, _Z, _1)  # budget (1, 1)
        _offer(out, _1, t, f, _Z, _Z, _1)  # budget (2, 2)
        if nLn == 1:
            _offer(out, _1, cL + A * leafR + B, f, _1, _Z, _2)
        if nRn == 1:
            _offer(out, _1, A * leafL + cR + B, f, _Z, _1, _2)
        _offer(out, _2, cL + cR + B, f, nLn, nRn, 1 + nLn + nRn)  # budget (2, 3)


# ---------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------


@njit(**_INNER)
def _sim_lb(simm, simh, simv, tab, recs, level, mask, d, n, A, lb):
    """Similarity lower bound: T(D_new) >= T(D_old) - A * |D_old minus D_new|."""
    for s in range(2):
        if simv[level, s] == 0:
            continue
        old = _cache_lb(tab, recs, simh[level, s, 0], simh[level, s, 1], d, n)
        if old <= lb:
            continue
        om = simm[level, s]
        diff = np.int64(0)
        for w in range(mask.shape[0]):
            diff += np.int64(popcnt(om[w] & ~mask[w]))
        v = old - A * diff
        if v > lb:
            lb = v
    return lb


@njit(**_INNER)
def _sim_push(fr, level, side):
    """Remember subproblem (level, side) for the similarity bound of its level."""
    h1 = fr.hs[level, side, 0]
    h2 = fr.hs[level, side, 1]
    simh = fr.simh
    for s in range(2):
        if fr.simv[level, s] != 0 and simh[level, s, 0] == h1 and simh[level, s, 1] == h2:
            return
    s = fr.simnext[level]
    mask = fr.masks[level, side]
    for w in range(mask.shape[0]):  # a loop, not a slice copy (see the module notes)
        fr.simm[level, s, w] = mask[w]
    simh[level, s, 0] = h1
    simh[level, s, 1] = h2
    fr.simv[level, s] = 1
    fr.simnext[level] = 1 - s


@njit(**_INNER)
def _next_slot(cx, p, side):
    """The counter buffer for a new matrix of ``side`` (the last one is kept intact)."""
    if cx.G.shape[0] == 3:
        return 1 + side
    base = 1 + 2 * side
    return base if cx.cur[p, side] != base else base + 1


@njit(**_INNER)
def _use_slot(cx, p, side, k, mask):
    """Make buffer k the current counters of ``side``, computed for the rows ``mask``."""
    cx.cur[p, side] = k
    for w in range(mask.shape[0]):
        cx.prev_mask[p, side, w] = mask[w]
    cx.inc_ok[p, side] = 1


@njit(**_INLINE)
def _child_gram(dat, cx, meta, p, side, mask, mF, size):
    """Counters of one child of the depth-three node at level p (into a fresh buffer).

    Either recounted from scratch or updated row by row from the last counters
    computed for the same side (the previous feature), whichever the cost
    model finds cheaper. Updating costs a copy of the C matrices plus ~2 k^2
    scattered additions per differing row (k = features present in a row,
    estimated from the data density); a recount costs the compaction (k per
    row), zeroing the C matrices and ~mF^2 / 4 vectorised popcount steps per
    64-row word.
    """
    G = cx.G
    g2l = cx.glob2loc[p]
    k = _next_slot(cx, p, side)
    if cx.inc_ok[p, side] != 0 and dat.dens[1] != 0.0:
        pm = cx.prev_mask[p, side]
        nd = np.int64(0)
        for w in range(mask.shape[0]):
            nd += np.int64(popcnt(mask[w] ^ pm[w]))
        kf = dat.dens[0] * mF
        C = dat.cws.shape[0] - 1
        words = (size + 63) // 64 + C
        inc_cost = C * mF * mF + 2.0 * nd * kf * kf
        rec_cost = mF * mF * (C + 0.25 * words) + size * kf
        if inc_cost < rec_cost:
            Gs = G[cx.cur[p, side]]
            Go = G[k]
            for c in range(Go.shape[0]):
                for i in range(mF):
                    gi = Go[c, i]
                    hi = Gs[c, i]
                    for j in range(mF):
                        gi[j] = hi[j]
            _gram_update(
                Go, mF, mask, pm, dat.cws, dat.indptr, dat.indices, g2l, dat.cls_of_word, cx.lst
            )
            _use_slot(cx, p, side, k, mask)  # after the update: it overwrites pm
            meta[M_NINC] += 1
            return
    _use_slot(cx, p, side, k, mask)
    _gram(mask, dat.cws, dat.indptr, dat.indices, g2l, mF, cx.colsT, G[k], cx.lws)
    meta[M_NGRAM] += 1


@njit(**_INNER)
def _counters(dat, fr, cx, meta, level, side):
    """Frequency counters of subproblem (level, side).

    Returns ``(P, M, has_m, mF, l2g)``: the counters are ``P`` (or ``P - M``
    when ``has_m``) over ``mF`` local features with global ids ``l2g``.
    Under a depth-three node (context at level - 1) the counters live in the
    node's local feature space and are obtained, cheapest first, as the
    parent's counters minus the sibling's (when the sibling's are known or the
    sibling is the smaller side), from the previous feature's counters of the
    same side by row updates, or by a recount.
    """
    G = cx.G  # one buffer: a single depth-three node is open at a time
    mask = fr.masks[level, side]
    p = level - 1
    if p >= 0 and cx.on[p] != 0:
        mF = cx.nfeat[p]
        l2g = cx.loc2glob[p]
        if cx.cg_valid[p, side] != 0:
            return G[cx.cur[p, side]], G[0], False, mF, l2g
        o = 1 - side
        if cx.cg_valid[p, o] != 0 and cx.pg_valid[p] != 0:
            meta[M_NSUB] += 1
            return G[0], G[cx.cur[p, o]], True, mF, l2g
        mine = np.int64(0)
        other = np.int64(0)
        for c in range(fr.cnts.shape[2]):
            mine += fr.cnts[level, side, c]
            other += fr.cnts[level, o, c]
        # count this side when it is the smaller one (or the other side's counters are
        # known), else the other side: this side's are then the parent's minus those
        own = mine <= other or cx.cg_valid[p, o] != 0
        if not own and cx.pg_valid[p] == 0:
            _gram(
                fr.masks[p, cx.side[p]],
                dat.cws,
                dat.indptr,
                dat.indices,
                cx.glob2loc[p],
                mF,
                cx.colsT,
                G[0],
                cx.lws,
            )
            cx.pg_valid[p] = 1
            meta[M_NGRAM] += 1
        c = side if own else o
        _child_gram(dat, cx, meta, p, c, fr.masks[level, c], mF, mine if own else other)
        cx.cg_valid[p, c] = 1
        if own:
            return G[cx.cur[p, side]], G[0], False, mF, l2g
        meta[M_NSUB] += 1
        return G[0], G[cx.cur[p, o]], True, mF, l2g
    # no parent context: count over the features that split this subproblem
    tot = np.int64(0)
    for c in range(fr.cnts.shape[2]):
        tot += fr.cnts[level, side, c]
    l2g = cx.l2g_tmp
    g2l = cx.g2l_tmp
    mF = _split_features(dat.Xb, mask, tot, l2g)
    for f in range(g2l.shape[0]):
        g2l[f] = -1
    for k in range(mF):
        g2l[l2g[k]] = k
    _gram(mask, dat.cws, dat.indptr, dat.indices, g2l, mF, cx.colsT, G[0], cx.lws)
    meta[M_NGRAM] += 1
    return G[0], G[0], False, mF, l2g


@njit(**_INNER)
def _child_lb(tab, recs, fr, srt, level, side, d, n, A, B):
    """Lower bound of child (level, side) for budgets (d, n): leaf, cache, class counts."""
    d, n = _norm(d, n)
    cnt = fr.cnts[level, side]
    lm = _leaf_mis(cnt)
    if d == 0 or lm == 0:
        return A * lm
    lb = _cache_lb(tab, recs, fr.hs[level, side, 0], fr.hs[level, side, 1], d, n)
    cc = class_count_lb(cnt, n, A, B, srt)
    return cc if cc > lb else lb


@njit(**_INLINE)
def _solve_d2(st, A, B, level, side, d, n, ub):
    """The depth-two solver on subproblem (level, side): budgets d <= 2 (normalised).
    Records the optima of the budgets (1, 1), (2, 2) and (2, 3) in the cache."""
    fr = st.fr
    tab = st.cache.tab
    recs = st.cache.recs
    meta = st.meta
    out = st.tmp.out
    h1 = fr.hs[level, side, 0]
    h2 = fr.hs[level, side, 1]
    P, M, has_m, mF, l2g = _counters(st.dat, fr, st.ctx, meta, level, side)
    _d2_solve(
        P, M, has_m, fr.cnts[level, side], mF, l2g, A, B, out, st.ctx.rowbuf, st.ctx.diag, st.tmp.lr
    )
    meta[M_NTERM] += 1
    for b in range(3):
        _cache_put(
            tab,
            recs,
            meta,
            h1,
            h2,
            min(b + 1, 2),
            np.int64(b + 1),
            out[b, 0],
            out[b, 0],
            out[b, 1],
            out[b, 2],
            out[b, 3],
        )
    _sim_push(fr, level, side)
    b = 0 if d == 1 else (1 if n == 2 else 2)
    return (1 if out[b, 0] <= ub else 0), out[b, 0], out[b, 1], out[b, 2], out[b, 3]


@njit(**_INNER)
def _no_tree(tab, recs, meta, h1, h2, d, n, lb, ub):
    """No tree of (d, n) costs <= ub: record (and return) the bound max(lb, ub + 1)."""
    nlb = max(lb, ub + 1)
    _cache_put(tab, recs, meta, h1, h2, d, n, nlb, _M1, _M1, _Z, _Z)
    return nlb


@njit(**_JIT)
def _solve(st, op, A, B, deadline, level, side, d, n, ub):
    """Optimal tree of subproblem (level, side) with budgets (d, n) and cost <= ub.

    Returns (status, cost, feature, nl, nr): status 1 = found (cost is the
    optimum, feature -1 = leaf), 0 = no tree with cost <= ub (cost is a lower
    bound > ub), -1 = out of time.

    Node cap: a tree of cost <= ub has at most ``_node_cap`` feature nodes (for
    example, once a zero-error tree with k nodes is known only trees with fewer
    than k nodes are sought), so the search runs on the budgets (d', n') =
    normalised (d, cap) and tightens the cap as better trees are found; the
    answer is the answer for (d, n) as well.

    ``op`` OP_BUILD / OP_GREEDY: the tree of the root instead (see ``_build``);
    returns (nodes, 0, -1, 0, 0). One entry point, so that the depth-two solver
    is compiled into one caller only.
    """
    if op != OP_SEARCH:
        k = _build(st, A, B, d, n, _1 if op == OP_GREEDY else _Z)
        return k, _Z, _M1, _Z, _Z
    fr = st.fr
    tab = st.cache.tab
    recs = st.cache.recs
    meta = st.meta
    d, n = _norm(d, n)
    cnt = fr.cnts[level, side]
    lm = _leaf_mis(cnt)
    leaf = A * lm
    if d == 0 or lm == 0:
        return (1 if leaf <= ub else 0), leaf, _M1, _Z, _Z
    h1 = fr.hs[level, side, 0]
    h2 = fr.hs[level, side, 1]
    lb, cost, f, nl, nr = _cache_query(tab, recs, h1, h2, d, n)
    if cost >= 0:
        return (1 if cost <= ub else 0), cost, f, nl, nr
    if _tick(meta, deadline):
        return -1, _Z, _M1, _Z, _Z
    mask = fr.masks[level, side]
    cc = class_count_lb(cnt, n, A, B, st.tmp.srt)
    if cc > lb:
        lb = cc
    lb0 = lb
    lb = _sim_lb(fr.simm, fr.simh, fr.simv, tab, recs, level, mask, d, n, A, lb)
    if lb >= leaf:
        _cache_put(tab, recs, meta, h1, h2, d, n, leaf, leaf, _M1, _Z, _Z)
        return (1 if leaf <= ub else 0), leaf, _M1, _Z, _Z
    if lb > ub:
        if lb > lb0:
            meta[M_NSIM] += 1
        _cache_put(tab, recs, meta, h1, h2, d, n, lb, _M1, _M1, _Z, _Z)
        return 0, lb, _M1, _Z, _Z

    # node cap from the upper bound (the depth-two solver takes the budgets as they are)
    d0 = d
    n0 = n
    ub0 = ub
    capped = False
    if d > 2:
        cap = _node_cap(lb, ub, A, B, n)
        if cap < n:
            if cap < 1:  # a split costs more than ub: the leaf or nothing
                if leaf <= ub:
                    _cache_put(tab, recs, meta, h1, h2, d0, n0, leaf, leaf, _M1, _Z, _Z)
                    return 1, leaf, _M1, _Z, _Z
                return 0, _no_tree(tab, recs, meta, h1, h2, d0, n0, lb, ub0), _M1, _Z, _Z
            d, n = _norm(d, cap)
            capped = True
    if d <= 2:
        s2, v, f, nl, nr = _solve_d2(st, A, B, level, side, d, n, ub)
        if not capped:
            return s2, v, f, nl, nr
        if s2 == 1:
            _cache_put(tab, recs, meta, h1, h2, d0, n0, v, v, f, nl, nr)
            return s2, v, f, nl, nr
        return 0, _no_tree(tab, recs, meta, h1, h2, d0, n0, lb, ub0), _M1, _Z, _Z

    # ---- general case ----
    cx = st.ctx
    meta[M_NGEN] += 1
    tot = np.int64(0)
    for c in range(cnt.shape[0]):
        tot += cnt[c]
    fl = fr.feats[level]
    nF = _split_features(st.dat.Xb, mask, tot, fl)
    use_ctx = d == 3
    if use_ctx:
        # counters context for the depth-two children
        g2l = cx.glob2loc[level]
        for k in range(cx.nfeat[level]):
            g2l[cx.loc2glob[level, k]] = -1
        for k in range(nF):
            cx.loc2glob[level, k] = fl[k]
            g2l[fl[k]] = k
        cx.nfeat[level] = nF
        cx.on[level] = 1
        cx.side[level] = side
        cx.pg_valid[level] = 0
        cx.inc_ok[level, 0] = 0
        cx.inc_ok[level, 1] = 0

    best = INF
    bf = np.int64(-1)
    bnl = np.int64(0)
    bnr = np.int64(0)
    if leaf <= ub:
        best = leaf
        ub = leaf - 1
        n = _node_cap(lb, ub, A, B, n)
    refined = INF
    half = (np.int64(1) << (d - 1)) - 1
    timed_out = False
    for k in range(nF):
        if best <= lb or n < 1:
            break
        lo = max(np.int64(0), n - 1 - half)
        hi = min(half, n - 1)
        ff = fl[k]
        _split(st.dat, fr, level, side, ff)
        if use_ctx:
            cx.cg_valid[level, 0] = 0
            cx.cg_valid[level, 1] = 0
        first = 0 if _leaf_mis(fr.cnts[level + 1, 0]) >= _leaf_mis(fr.cnts[level + 1, 1]) else 1
        nn = n  # the node budget of this feature (n shrinks as better trees are found)
        for nL in range(lo, hi + 1):
            nR = nn - 1 - nL
            lbL = _child_lb(tab, recs, fr, st.tmp.srt, level + 1, _Z, d - 1, nL, A, B)
            lbR = _child_lb(tab, recs, fr, st.tmp.srt, level + 1, _1, d - 1, nR, A, B)
            if lbL + lbR + B > ub:
                if lbL + lbR + B < refined:
                    refined = lbL + lbR + B
                continue
            if first == 0:
                n1 = nL
                n2 = nR
                lb2 = lbR
            else:
                n1 = nR
                n2 = nL
                lb2 = lbL
            st1, v1, _f1, _l1, _r1 = _solve(
                st, _OPS, A, B, deadline, level + 1, np.int64(first), d - 1, n1, ub - lb2 - B
            )
            if st1 < 0:
                timed_out = True
                break
            if st1 == 0:
                if v1 + lb2 + B < refined:
                    refined = v1 + lb2 + B
                continue
            st2, v2, _f2, _l2, _r2 = _solve(
                st, _OPS, A, B, deadline, level + 1, np.int64(1 - first), d - 1, n2, ub - v1 - B
            )
            if st2 < 0:
                timed_out = True
                break
            if st2 == 0:
                if v1 + v2 + B < refined:
                    refined = v1 + v2 + B
                continue
            total = v1 + v2 + B
            best = total
            bf = ff
            bnl = nL
            bnr = nR
            ub = total - 1
            n = _node_cap(lb, ub, A, B, n)  # the next features search smaller budgets
            if level == 0:
                meta[M_RB_COST] = best
                meta[M_RB_F] = bf
                meta[M_RB_NL] = bnl
                meta[M_RB_NR] = bnr
            if best <= lb:
                break
        if timed_out:
            break
        if _tick(meta, deadline):
            timed_out = True
            break
    if use_ctx:
        cx.on[level] = 0
    if timed_out:
        return -1, best, bf, bnl, bnr
    if best < INF:
        _cache_put(tab, recs, meta, h1, h2, d0, n0, best, best, bf, bnl, bnr)
        _sim_push(fr, level, side)
        return 1, best, bf, bnl, bnr
    newlb = min(refined, leaf)
    if lb > newlb:
        newlb = lb
    if n0 != n or d0 != d:
        # refined bounds hold for the capped budgets; (d0, n0) only gets ub0 + 1
        _cache_put(tab, recs, meta, h1, h2, d, n, newlb, _M1, _M1, _Z, _Z)
        newlb = max(lb, ub0 + 1)
    _cache_put(tab, recs, meta, h1, h2, d0, n0, newlb, _M1, _M1, _Z, _Z)
    _sim_push(fr, level, side)
    return 0, newlb, _M1, _Z, _Z


@njit(**_INLINE)
def _decision(st, A, B, level, side, d, n):
    """Optimal root decision (feature, nl, nr) of a subproblem from the cache, or from
    the depth-two solver for d <= 2; feature -2 when a d >= 3 record is missing."""
    fr = st.fr
    d, n = _norm(d, n)
    f = _M1
    nl = _Z
    nr = _Z
    if d > 0 and _leaf_mis(fr.cnts[level, side]) != 0:
        _lb, cost, f, nl, nr = _cache_query(
            st.cache.tab, st.cache.recs, fr.hs[level, side, 0], fr.hs[level, side, 1], d, n
        )
        if cost < 0:
            if d > 2:
                f = np.int64(-2)
                nl = _Z
                nr = _Z
            else:
                _s, _v, f, nl, nr = _solve_d2(st, A, B, level, side, d, n, INF)
    return f, nl, nr


@njit(**_INNER)
def _push(stk, top, level, side, d, n, parent, is_right):
    stk[top, 0] = level
    stk[top, 1] = side
    stk[top, 2] = d
    stk[top, 3] = n
    stk[top, 4] = parent
    stk[top, 5] = is_right


@njit(**_INLINE)
def _build(st, A, B, d, n, greedy):
    """The tree of the root subproblem (level 0), pre-order, into ``st.tmp``'s
    feature, left, right and counts arrays.

    ``greedy = 0``: the optimal tree, rebuilt top-down from the cache (depth <= 2
    subtrees recomputed by the depth-two solver). ``greedy = 1``: a quick
    heuristic tree, the root of the optimal depth-two tree, recursively, and the
    optimal tree once two levels are left. Returns the number of nodes, or -1
    when a cached decision is missing (the caller then asks ``_solve``).
    """
    fr = st.fr
    tmp = st.tmp
    stk = tmp.stk
    C = fr.cnts.shape[2]
    # stack of (level, side, d, n, parent, is_right)
    _push(stk, _Z, _Z, _Z, d, n, _M1, _Z)
    top = 1
    k = 0
    while top > 0:
        top -= 1
        level = stk[top, 0]
        side = stk[top, 1]
        dd, nn = _norm(stk[top, 2], stk[top, 3])
        parent = stk[top, 4]
        if parent >= 0:
            if stk[top, 5] == 0:
                tmp.left[parent] = k
            else:
                tmp.right[parent] = k
        g = greedy != 0 and dd > 2
        f, nl, nr = _decision(
            st, A, B, level, side, np.int64(2) if g else dd, min(nn, np.int64(3)) if g else nn
        )
        if g:
            half = (np.int64(1) << (dd - 1)) - 1
            nl = min(half, nn // 2)
            nr = min(half, nn - 1 - nl)
        elif f == -2:
            return np.int64(-1)
        tmp.feature[k] = f
        tmp.left[k] = -1
        tmp.right[k] = -1
        for c in range(C):
            tmp.counts[k, c] = fr.cnts[level, side, c]
        if f >= 0:
            _split(st.dat, fr, level, side, f)
            # right first on the stack: the left subtree is built first (pre-order); it
            # writes only deeper levels, so the right child's mask survives
            _push(stk, top, level + 1, _1, dd - 1, nr, np.int64(k), _1)
            _push(stk, top + 1, level + 1, _Z, dd - 1, nl, np.int64(k), _Z)
            top += 2
        k += 1
    return np.int64(k)


class SearchState:
    """All buffers of one search (:class:`State`, a record of numba-friendly records
    of arrays).

    Note: the recursive ``_solve`` is only ever called from Python (numba's
    on-disk cache cannot reload a jitted caller of a recursive function).
    """

    def __init__(
        self,
        Xb,
        cws,
        indptr,
        indices,
        salt,
        cls_of_word,
        dens,
        max_depth,
        cache_bits=16,
        counter_memory=1 << 28,
    ):
        m, W = Xb.shape
        C = cws.shape[0] - 1
        L = max_depth + 2
        mm = max(m, 1)
        fr = Frames(
            masks=np.zeros((L, 2, W), dtype=np.uint64),
            cnts=np.zeros((L, 2, C), dtype=np.int64),
            hs=np.zeros((L, 2, 2), dtype=np.int64),
            simm=np.zeros((L, 2, W), dtype=np.uint64),
            simh=np.zeros((L, 2, 2), dtype=np.int64),
            simv=np.zeros((L, 2), dtype=np.int64),
            simnext=np.zeros(L, dtype=np.int64),
            feats=np.zeros((L, mm), dtype=np.int64),
        )
        # counter matrices of the open depth-three node (only one is open at a time):
        # parent, and two per side (current and previous, for row updates); three
        # when five would take too much memory (row updates are then disabled)
        slots = 5 if 5 * C * m * m * 4 <= counter_memory else 3
        dens = np.array([dens[0], 1.0 if slots == 5 else 0.0], dtype=np.float64)
        dat = Data(Xb, cws, indptr, indices, salt, cls_of_word, dens)
        ctx = Counters(
            on=np.zeros(L, dtype=np.int64),
            side=np.zeros(L, dtype=np.int64),
            nfeat=np.zeros(L, dtype=np.int64),
            loc2glob=np.zeros((L, m), dtype=np.int64),
            glob2loc=-np.ones((L, m), dtype=np.int64),
            pg_valid=np.zeros(L, dtype=np.int64),
            cg_valid=np.zeros((L, 2), dtype=np.int64),
            G=np.zeros((slots, C, m, m), dtype=np.int32),
            colsT=np.zeros((W + C, m), dtype=np.uint64),
            l2g_tmp=np.zeros(m, dtype=np.int64),
            g2l_tmp=-np.ones(m, dtype=np.int64),
            lws=np.zeros(C + 1, dtype=np.int64),
            cur=np.zeros((L, 2), dtype=np.int64),
            prev_mask=np.zeros((L, 2, W), dtype=np.uint64),
            lst=np.zeros(mm, dtype=np.int64),
            inc_ok=np.zeros((L, 2), dtype=np.int64),
            rowbuf=np.zeros((C, mm), dtype=np.int32),
            diag=np.zeros((C, mm), dtype=np.int32),
        )
        K = (1 << (max_depth + 1)) - 1
        tmp = Scratch(
            out=np.zeros((3, 5), dtype=np.int64),
            lr=np.zeros((2, C), dtype=np.int64),
            srt=np.zeros(C, dtype=np.int64),
            stk=np.zeros((2 * L + 2, 6), dtype=np.int64),
            feature=np.zeros(K, dtype=np.int64),
            left=np.zeros(K, dtype=np.int64),
            right=np.zeros(K, dtype=np.int64),
            counts=np.zeros((K, C), dtype=np.int64),
        )
        tab = np.empty((1 << cache_bits, 3), dtype=np.int64)
        tab[:, 2] = -1
        cache = Cache(tab, np.empty((1 << (cache_bits - 1), R_WIDTH), dtype=np.int64))
        meta = np.zeros(M_SIZE, dtype=np.int64)
        meta[M_RB_COST] = INF
        self.state = State(dat, fr, ctx, cache, tmp, meta)

    @property
    def meta(self) -> np.ndarray:
        return self.state.meta

    def grow(self):
        """Four times the cache capacity (after a search stopped on a full cache)."""
        tab, recs = self.state.cache
        if 8 * (self.meta[M_TABN] + 1) > 3 * tab.shape[0]:
            nt = np.empty((4 * tab.shape[0], 3), dtype=np.int64)
            nt[:, 2] = -1
            _rehash(tab, nt)
            tab = nt
        if 4 * self.meta[M_RECN] >= 3 * recs.shape[0]:
            bigger = np.empty((4 * recs.shape[0], R_WIDTH), dtype=np.int64)
            bigger[: recs.shape[0]] = recs
            recs = bigger
        self.state = self.state._replace(cache=Cache(tab, recs))
        self.meta[M_TIMEOUT] = 0

    def set_root(self, root_mask):
        """The full data set as the root subproblem (level 0, side 0)."""
        fr = self.state.fr
        cws = self.state.dat.cws
        fr.masks[0, 0] = root_mask
        for c in range(cws.shape[0] - 1):
            fr.cnts[0, 0, c] = int(
                np.unpackbits(root_mask[cws[c] : cws[c + 1]].view(np.uint8)).sum()
            )
        fr.hs[0, 0] = _hash_mask(root_mask, self.state.dat.salt)

    def solve(self, level, side, d, n, ub, A, B, deadline):
        """Run the search on subproblem (level, side); see ``_solve``."""
        return _solve(
            self.state,
            np.int64(OP_SEARCH),
            np.int64(A),
            np.int64(B),
            float(deadline),
            np.int64(level),
            np.int64(side),
            np.int64(d),
            np.int64(n),
            np.int64(ub),
        )

    def build(self, d, n, A, B, greedy):
        """(feature, left, right, counts) of the optimal (or greedy) tree, or None when a
        cached decision is missing; see ``_build``."""
        op = OP_GREEDY if greedy else OP_BUILD
        k = int(
            _solve(
                self.state,
                np.int64(op),
                np.int64(A),
                np.int64(B),
                0.0,
                _Z,
                _Z,
                np.int64(d),
                np.int64(n),
                _Z,
            )[0]
        )
        if k < 0:
            return None
        tmp = self.state.tmp
        return (
            tmp.feature[:k].copy(),
            tmp.left[:k].copy(),
            tmp.right[:k].copy(),
            tmp.counts[:k].copy(),
        )

    def prepare_children(self, level, side, f):
        _split(self.state.dat, self.state.fr, np.int64(level), np.int64(side), np.int64(f))

    def counts(self, level, side):
        return self.state.fr.cnts[level, side].copy()
