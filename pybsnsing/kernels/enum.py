"""Numba kernels of the ENUM split search (bsnsing's ``rcpp_bslearn``).

Plain arrays in, plain arrays out; the Python driver lives in :mod:`pybsnsing.search`.

Data layout
-----------
The 0/1 question matrix is bit-packed per class: ``Xp[j, w]`` holds, for question ``j``,
64 of the rows with label 1 (bit ``t`` of word ``w`` is row ``64*w + t`` of the class-1 rows)
and ``Xn`` does the same for the class-0 rows.  Padding bits are 0.  A rule (an OR of
questions) covers the rows where any of its questions is 1, so with ``cov`` the OR of its
packed columns, ``TP = popcount(cov_p)`` and ``FP = popcount(cov_n)``.

``cp[j]``/``cn[j]`` are the column popcounts and ``Gp``/``Gn`` the per-class Gram matrices
``G[i, j] = |col i AND col j|`` (the depth-two counters).  Level 2 is read from them
exactly: ``TP(a|b) = cp[a] + cp[b] - Gp[a, b]``, likewise FP.

All objective values are handled *doubled* as exact 64-bit integers:
``v2 = 2*v = 2*(n1*FP + n0*FN - 2*FP*FN)``, ``tau2 = 2*tau`` and the incumbent
``vb2 = 2*vbest`` (so that the start value ``n0*n1/2`` is an integer).

Sequential semantics
--------------------
The search is the breadth-first implicit enumeration of R's C code: parents are visited in
list order, a parent is skipped when ``tau >= vbest`` at the moment it is reached, its
children are the questions of larger index outside the parent's groups, every child of a
visited parent counts in ``neval``, and ``vbest`` improves strictly.

From level 3 on, a chunk of parents is processed in two phases: (1) the children's counts
are computed (in parallel when the work is large), (2) the accept / keep / prune logic runs
over the chunk sequentially, in order.  Results and ``neval`` therefore do not depend on
the number of threads.  Phase 1 uses ``vb2`` as it is when the chunk starts (the
*snapshot*); since ``vbest`` only decreases,

* a parent with ``tau >= snapshot`` is certainly skipped, so it is left out of phase 1;
* a child whose counts provably give ``v >= snapshot`` (and, if the level is stored,
  ``tau >= snapshot``) can be neither accepted nor kept, so it is only counted, without a
  popcount.  The proof uses interval bounds on its TP and FP from the pair counts:
  ``max(TP(S), TP(s|j)) <= TP(S+j) <= TP(S) + cp[j] - max_s Gp[s, j]`` (s in S), likewise
  FP; ``v`` is bilinear in (FP, FN), so its minimum over the box is at a corner, and
  ``tau`` (outside R's "0" case) is the minimum of ``v`` over ``[FP, n0] x [0, FN]``.
  On the DL8.5 data these bounds settle over 99.9 % of the level-3 children.

The last level (rules of ``max_rules`` questions) stores nothing: phase 1 only keeps, per
parent, its number of children and its first best valid child (pruning against the
parent's running best), which is all phase 2 needs to replay the sequential scan.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from .._coldstart import wait_stage
from .bits import popcnt, set_row_bits

__all__ = [
    "pack_by_class",
    "popcount_rows",
    "gram_counts",
    "level_one",
    "level_two",
    "last_level_two",
    "extend_level",
    "last_level",
]

#: default child slots (parents x columns) per chunk: bounds the stored level's buffers
#: (9 bytes a slot) and sets how much work one parallel region gets
CHUNK_SLOTS = 1 << 22
#: default least child slots of a chunk counted in parallel (tens of ms of work), so that
#: thread start-up and the stalls of a loaded machine (a parallel region waits for its
#: slowest thread) stay small next to the work
PAR_MIN_SLOTS = 1 << 21


# ---------------------------------------------------------------------------------------
# scalar helpers


@njit(cache=True, error_model="numpy", inline="always")
def _v2(fp, fn, n1, n0):
    """Twice the objective ``n1*FP + n0*FN - 2*FP*FN``."""
    return 2 * (n1 * fp + n0 * fn - 2 * fp * fn)


@njit(cache=True, error_model="numpy", inline="always")
def _tau2(fp, fn, n1, n0, v2):
    """Twice R's bound ``tau`` on every superset of a rule with counts FP, FN."""
    if 2 * fp >= n0:
        if 2 * fn <= n1:
            return v2
        return 2 * n0 * (n1 - fn)
    if 2 * fn <= n1:
        return 2 * n1 * fp
    return np.int64(0)


@njit(cache=True, error_model="numpy", inline="always")
def _nsgc_ok(tp, fp, fn, tn):
    """R's no.same.gender.children test: TP/(TP+FP) and FN/(FN+TN) strictly on opposite
    sides of 0.5.  A 0/0 share is NaN in R, fails both comparisons and rejects the rule."""
    if tp + fp == 0 or fn + tn == 0:
        return False
    return (tp > fp and fn < tn) or (tp < fp and fn > tn)


@njit(cache=True, error_model="numpy", inline="always")
def _child_v2(tp, fp, n1, n0, node_size, pf, pn):
    """``v2`` of a rule with counts TP, FP, or -1 (``v2`` is never negative) when it is no
    candidate: a side with fewer than ``node_size`` rows, or the counts ``pf``/``pn`` of
    its parent (the added question adds no row; level 1 passes -1)."""
    fn = n1 - tp
    npos = tp + fp
    if npos < node_size or n1 + n0 - npos < node_size:
        return np.int64(-1)
    if fp == pf and fn == pn:
        return np.int64(-1)
    return _v2(fp, fn, n1, n0)


@njit(cache=True, error_model="numpy", inline="always")
def _improves(v2, vb2, tp, fp, n1, n0, nsgc):
    """R's acceptance of a candidate rule: ``v2`` below the incumbent ``vb2`` and, with
    ``nsgc``, the no.same.gender.children test."""
    if v2 >= vb2:
        return False
    return (not nsgc) or _nsgc_ok(tp, fp, n1 - tp, n0 - fp)


# not inline="always": compiled once for all five scans rather than copied, with the
# helpers it inlines, into each (about 0.1 s of compile per scan); warm times are the same
@njit(cache=True, nogil=True, error_model="numpy")
def _judge(tp, fp, n1, n0, node_size, pf, pn, nsgc, vb2):
    """R's accept / keep / prune step on one child with counts TP, FP (``pf``, ``pn``:
    its parent's FP, FN; level 1 passes -1).

    Returns ``(vb2, better, t2)``: the incumbent after the child (``better``: the child
    replaced it) and the child's doubled bound when it is kept for extension (``tau <
    vbest``), else -1 (``tau2`` is never negative).  A child that is no candidate (see
    :func:`_child_v2`) changes nothing and is not kept.
    """
    v2 = _child_v2(tp, fp, n1, n0, node_size, pf, pn)
    if v2 < 0:
        return vb2, False, np.int64(-1)
    better = _improves(v2, vb2, tp, fp, n1, n0, nsgc)
    if better:
        vb2 = v2
    t2 = _tau2(fp, n1 - tp, n1, n0, v2)
    if t2 >= vb2:
        t2 = np.int64(-1)
    return vb2, better, t2


@njit(cache=True, error_model="numpy", inline="always")
def _lb_v2(flo, fhi, nlo, nhi, n1, n0):
    """Lower bound of ``v2`` over FP in [flo, fhi], FN in [nlo, nhi] (bilinear: corners)."""
    a = _v2(flo, nlo, n1, n0)
    b = _v2(flo, nhi, n1, n0)
    c = _v2(fhi, nlo, n1, n0)
    d = _v2(fhi, nhi, n1, n0)
    return min(min(a, b), min(c, d))


@njit(cache=True, error_model="numpy", inline="always")
def _lb_tau2(flo, nhi, n1, n0):
    """Lower bound of ``tau2`` over FP >= flo, FN <= nhi.

    Outside R's "otherwise 0" case, tau is the minimum of v over [FP, n0] x [0, FN], which
    contains no less than the minimum over the larger box [flo, n0] x [0, nhi].
    """
    if 2 * flo < n0 and 2 * nhi > n1:
        return np.int64(0)
    return _lb_v2(flo, n0, 0, nhi, n1, n0)


# ---------------------------------------------------------------------------------------
# question groups


#: :func:`group_ids` statuses: the ids are made; a direction outside -1..1; the variable
#: ids span too wide a range for a table (the caller numbers them with dicts)
GROUPS_OK, GROUPS_BAD_DIRECTION, GROUPS_WIDE = 0, 1, 2


@njit(cache=True, nogil=True, error_model="numpy")
def group_ids(var, direction):
    """ENUM group ids of questions from their keys (:func:`pybsnsing.search.structural_groups`):
    ``(ids, status)``. Question ``i`` with ``direction[i]`` 0 or 1 is in the group of key
    ``(var[i], direction[i])``, one with -1 in a group of its own; the 0 keys are numbered
    from 1 by first appearance, then the 1 keys, then the lone questions in order. The
    first appearances go in a table indexed by ``var``: ``status`` is
    :data:`GROUPS_WIDE` (ids not made) when the variables span more than ``4 m + 64``
    values, :data:`GROUPS_BAD_DIRECTION` for a direction outside -1..1."""
    m = var.shape[0]
    ids = np.empty(m, np.int64)
    lo = np.int64(0)
    hi = np.int64(-1)
    for i in range(m):
        d = direction[i]
        if d < -1 or d > 1:
            return ids, GROUPS_BAD_DIRECTION
        if d >= 0:
            if hi < lo:
                lo = var[i]
                hi = var[i]
            elif var[i] < lo:
                lo = var[i]
            elif var[i] > hi:
                hi = var[i]
    span = np.int64(0)
    if hi >= lo:  # (the difference in uint64: it may exceed int64's range)
        if np.uint64(hi) - np.uint64(lo) >= np.uint64(4 * m + 64):
            return ids, GROUPS_WIDE
        span = hi - lo + 1
    first = np.empty((np.int64(2), span), np.int64)
    for d in range(2):
        for v in range(span):
            first[d, v] = -1
    count = np.zeros(2, np.int64)
    for i in range(m):
        d = direction[i]
        if d >= 0 and first[d, var[i] - lo] < 0:
            first[d, var[i] - lo] = count[d]
            count[d] += 1
    rest = 1 + count[0] + count[1]
    for i in range(m):
        d = direction[i]
        if d < 0:
            ids[i] = rest
            rest += 1
        else:
            ids[i] = 1 + d * count[0] + first[d, var[i] - lo]
    return ids, GROUPS_OK


# ---------------------------------------------------------------------------------------
# counters


@njit(cache=True, nogil=True, error_model="numpy")
def pack_by_class(B, y):
    """Bit-pack the columns of a 0/1 matrix ``B`` (n x m, uint8) separately for the rows
    with ``y == 1`` and ``y == 0``: returns ``(Xp, Xn)``, uint64 of shape (m, words), bit
    ``t`` of word ``w`` being the class's row ``64*w + t`` in row order (padding bits 0)."""
    n, m = B.shape
    n1 = 0
    for i in range(n):
        if y[i] == 1:
            n1 += 1
    n0 = n - n1
    Xp = np.zeros((m, max(1, (n1 + 63) // 64)), np.uint64)
    Xn = np.zeros((m, max(1, (n0 + 63) // 64)), np.uint64)
    t1 = 0
    t0 = 0
    for i in range(n):
        if y[i] == 1:
            set_row_bits(B, i, Xp, 0, t1)
            t1 += 1
        else:
            set_row_bits(B, i, Xn, 0, t0)
            t0 += 1
    return Xp, Xn


@njit(cache=True, nogil=True, error_model="numpy")
def popcount_rows(X):
    """Popcount of every row of a packed matrix ``X`` (m x W) -> int64[m]."""
    m, W = X.shape
    out = np.empty(m, np.int64)  # every entry written: no np.zeros (one compile less)
    for j in range(m):
        s = np.uint64(0)
        for w in range(W):
            s += popcnt(X[j, w])
        out[j] = np.int64(s)
    return out


@njit(cache=True, error_model="numpy", inline="always")
def _gram_put(G, m, ok, i, j, s):
    if ok and i < j and j < m:
        G[i, j] = np.int32(s)
        G[j, i] = np.int32(s)


@njit(cache=True, error_model="numpy", inline="always")
def _gram_put4(G, m, ok, i, j0, s0, s1, s2, s3):
    """Row ``i``'s sums with rows ``j0 .. j0 + 3`` (:func:`_gram_put`)."""
    _gram_put(G, m, ok, i, j0, s0)
    _gram_put(G, m, ok, i, j0 + 1, s1)
    _gram_put(G, m, ok, i, j0 + 2, s2)
    _gram_put(G, m, ok, i, j0 + 3, s3)


@njit(cache=True, error_model="numpy", inline="always")
def _gram_block(X, G, rows, r0, j0):
    """``G`` over the rows ``rows[r0 .. r0 + 3]`` x rows ``j0 .. j0 + 3`` (pairs ``i < j``
    only): sixteen popcount sums in one pass over the words, so that each word loaded
    serves four pairs (the pair-by-pair loop was bound by the cache's bandwidth, one word
    per pair; this is 2.5-4x faster on a large node). Entries past the end of ``rows``
    or ``X`` repeat the last one (their sums are not written)."""
    m, W = X.shape
    P = rows.shape[0]
    i0 = rows[r0]
    i1 = rows[r0 + 1] if r0 + 1 < P else i0
    i2 = rows[r0 + 2] if r0 + 2 < P else i0
    i3 = rows[r0 + 3] if r0 + 3 < P else i0
    j1 = j0 + 1 if j0 + 1 < m else m - 1
    j2 = j0 + 2 if j0 + 2 < m else m - 1
    j3 = j0 + 3 if j0 + 3 < m else m - 1
    s00 = s01 = s02 = s03 = s10 = s11 = s12 = s13 = np.uint64(0)
    s20 = s21 = s22 = s23 = s30 = s31 = s32 = s33 = np.uint64(0)
    for w in range(W):
        a0 = X[i0, w]
        a1 = X[i1, w]
        a2 = X[i2, w]
        a3 = X[i3, w]
        b0 = X[j0, w]
        b1 = X[j1, w]
        b2 = X[j2, w]
        b3 = X[j3, w]
        s00 += popcnt(a0 & b0)
        s01 += popcnt(a0 & b1)
        s02 += popcnt(a0 & b2)
        s03 += popcnt(a0 & b3)
        s10 += popcnt(a1 & b0)
        s11 += popcnt(a1 & b1)
        s12 += popcnt(a1 & b2)
        s13 += popcnt(a1 & b3)
        s20 += popcnt(a2 & b0)
        s21 += popcnt(a2 & b1)
        s22 += popcnt(a2 & b2)
        s23 += popcnt(a2 & b3)
        s30 += popcnt(a3 & b0)
        s31 += popcnt(a3 & b1)
        s32 += popcnt(a3 & b2)
        s33 += popcnt(a3 & b3)
    _gram_put4(G, m, True, i0, j0, s00, s01, s02, s03)
    _gram_put4(G, m, r0 + 1 < P, i1, j0, s10, s11, s12, s13)
    _gram_put4(G, m, r0 + 2 < P, i2, j0, s20, s21, s22, s23)
    _gram_put4(G, m, r0 + 3 < P, i3, j0, s30, s31, s32, s33)


# compiled once, called by both drivers (inlined, the parallel driver took 8 s to compile)
@njit(cache=True, nogil=True, error_model="numpy", no_cpython_wrapper=True)
def _gram_strip(X, G, rows, b):
    """The pairs of the rows ``rows[4 b .. 4 b + 3]`` (increasing) with every later row."""
    for j0 in range(rows[4 * b] + 1, X.shape[0], 4):
        _gram_block(X, G, rows, 4 * b, j0)


@njit(cache=True, error_model="numpy", inline="always")
def _gram_row(X, G, i):
    m, W = X.shape
    for j in range(i + 1, m):
        s = np.uint64(0)
        for w in range(W):
            s += popcnt(X[i, w] & X[j, w])
        G[i, j] = np.int32(s)
        G[j, i] = np.int32(s)


@njit(cache=True, nogil=True, error_model="numpy")
def _gram_serial(X, G, rows):
    """Pair by pair, the rows ``rows`` with every later row: small nodes (a short
    compile, on the first fit's path)."""
    for r in range(rows.shape[0]):
        _gram_row(X, G, rows[r])


@njit(cache=True, nogil=True, error_model="numpy")
def _gram_blocked(X, G, rows):
    """In blocks of 4 x 4 rows: large nodes (compiled at the first large node)."""
    for b in range((rows.shape[0] + 3) // 4):
        _gram_strip(X, G, rows, b)


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _gram_parallel(X, G, rows):
    """Pair by pair, rows in parallel (a short compile: the first fit's background
    compile makes it)."""
    m = rows.shape[0]
    # pair rows from both ends so the threads get equal work
    half = (m + 1) // 2
    for r in prange(half):
        _gram_row(X, G, rows[r])
        if m - 1 - r != r:
            _gram_row(X, G, rows[m - 1 - r])


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _gram_blocked_parallel(X, G, rows):
    """In blocks of 4 x 4 rows, strips in parallel: large nodes (compiled at the first
    one)."""
    nb = (rows.shape[0] + 3) // 4
    # pair strips from both ends so the threads get equal work
    half = (nb + 1) // 2
    for r in prange(half):
        b = np.int64(r)  # (prange's index may be unsigned: one signature of the strip)
        _gram_strip(X, G, rows, b)
        if nb - 1 - b != b:
            _gram_strip(X, G, rows, nb - 1 - b)


#: word pairs (twice) from which the serial Gram matrix is computed in blocks
GRAM_BLOCK_WORK = 1 << 22


def gram_counts(X, parallel, rows=None):
    """Symmetric Gram matrix of a packed matrix: ``G[i, j] = |col i AND col j|`` (int32).

    The diagonal is left 0 (it is ``popcount_rows``). ``rows`` (increasing int64; None:
    all): only the pairs of these rows with every later row are counted (and mirrored),
    the other entries are left 0 -- what level two needs of the rows kept by level one.
    Chosen here, in Python, so that the parallel kernel is compiled only by the first
    search that uses it.
    """
    m, W = X.shape
    # the search needs the Gram matrices only from max_rules 3 on (max_rules 2:
    # last_level_two): a first fit's background compile makes them with that stage
    wait_stage("mr3")
    G = np.zeros((m, m), np.int32)
    if rows is None:
        rows = np.arange(m, dtype=np.int64)
    if rows.shape[0] == 0:
        return G
    work = (2 * m - rows[0] - rows[-1]) * rows.shape[0] * W  # about twice the word pairs
    if work >= GRAM_BLOCK_WORK:  # large nodes
        if parallel:
            _gram_blocked_parallel(X, G, rows)
        else:
            _gram_blocked(X, G, rows)
    elif parallel:
        wait_stage("parallel")  # a first fit's background compile (pybsnsing._coldstart)
        _gram_parallel(X, G, rows)
    else:
        _gram_serial(X, G, rows)
    return G


# ---------------------------------------------------------------------------------------
# levels 1 and 2


@njit(cache=True, nogil=True, error_model="numpy")
def level_one(cp, cn, n1, n0, node_size, nsgc, vb2):
    """Level 1: every single question in index order (``neval`` of this level is ``m``).

    Returns ``(keep, fp, fn, tau2, vb2, best_j)``: the questions kept for extension (in
    order) with their FP, FN and doubled bound, the new doubled incumbent and the best
    question (-1 if none improved).
    """
    m = cp.shape[0]
    keep = np.empty(m, np.int64)
    kfp = np.empty(m, np.int64)
    kfn = np.empty(m, np.int64)
    ktau = np.empty(m, np.int64)
    nk = 0
    best_j = -1
    for j in range(m):
        tp = cp[j]
        fp = cn[j]
        vb2, better, t2 = _judge(tp, fp, n1, n0, node_size, np.int64(-1), np.int64(-1),
                                 nsgc, vb2)
        if better:
            best_j = j
        if t2 >= 0:
            keep[nk] = j
            kfp[nk] = fp
            kfn[nk] = n1 - tp
            ktau[nk] = t2
            nk += 1
    return keep[:nk], kfp[:nk], kfn[:nk], ktau[:nk], vb2, best_j


@njit(cache=True, nogil=True, error_model="numpy")
def _grow(ccols, cfp, cfn, ctau):
    """The kept-children buffers of a level (columns, FP, FN, doubled bound) with twice
    the room, the stored rows copied."""
    rows, width = ccols.shape
    # int64 (the only use) rather than the buffers' dtype: an extra compile of np.empty
    c2 = np.empty((2 * rows, width), np.int64)
    f2 = np.empty(2 * rows, np.int64)
    n2 = np.empty(2 * rows, np.int64)
    t2 = np.empty(2 * rows, np.int64)
    for i in range(rows):  # loops, not b[:k] = a: no shape-error machinery to compile
        for r in range(width):
            c2[i, r] = ccols[i, r]
        f2[i] = cfp[i]
        n2[i] = cfn[i]
        t2[i] = ctau[i]
    return c2, f2, n2, t2


def level_two(cp, cn, Gp, Gn, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2, node_size, nsgc,
              store):
    """Level 2 (rules of two questions), exact from the Gram matrices, sequential.

    ``pcols`` (P x 1), ``pfp``, ``pfn``, ``ptau2``: the level-1 list.  With ``store``
    false (the last level) the kept children are not collected.

    Returns ``(ccols, cfp, cfn, ctau2, vb2, best_p, best_j, neval)``.

    The kernel gets ``store`` as ``True`` or ``None``: with ``None`` (max_rules 2, the
    default) numba prunes the storing code before compiling it.
    """
    if store:
        wait_stage("mr3")  # a first fit's background compile (pybsnsing._coldstart)
    return _level_two(cp, cn, Gp, Gn, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2, node_size,
                      nsgc, True if store else None)


@njit(cache=True, nogil=True, error_model="numpy")
def _level_two(cp, cn, Gp, Gn, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2, node_size, nsgc,
               store):
    """:func:`level_two` (``store``: ``True`` or ``None``)."""
    m = cp.shape[0]
    P = pfp.shape[0]
    cap = 1
    if store is not None:
        cap = 1024
    ccols = np.empty((cap, 2), np.int64)
    cfp = np.empty(cap, np.int64)
    cfn = np.empty(cap, np.int64)
    ctau = np.empty(cap, np.int64)
    nc = 0
    neval = np.int64(0)
    best_p = -1
    best_j = -1
    for p in range(P):
        if ptau2[p] >= vb2:
            continue
        a = pcols[p, 0]
        ga = grp[a]
        pf = pfp[p]
        pn = pfn[p]
        for j in range(a + 1, m):
            if grp[j] == ga:
                continue
            neval += 1
            tp = cp[a] + cp[j] - np.int64(Gp[a, j])
            fp = cn[a] + cn[j] - np.int64(Gn[a, j])
            vb2, better, t2 = _judge(tp, fp, n1, n0, node_size, pf, pn, nsgc, vb2)
            if better:
                best_p = p
                best_j = j
            if store is not None:  # pruned when store is None
                if t2 >= 0:
                    if nc >= ccols.shape[0]:
                        ccols, cfp, cfn, ctau = _grow(ccols, cfp, cfn, ctau)
                    ccols[nc, 0] = a
                    ccols[nc, 1] = j
                    cfp[nc] = fp
                    cfn[nc] = n1 - tp
                    ctau[nc] = t2
                    nc += 1
    return ccols[:nc], cfp[:nc], cfn[:nc], ctau[:nc], vb2, best_p, best_j, neval


@njit(cache=True, error_model="numpy", inline="always")
def _and_count(X, a, j):
    """``|row a AND row j|`` of a packed matrix."""
    s = np.uint64(0)
    for w in range(X.shape[1]):
        s += popcnt(X[a, w] & X[j, w])
    return np.int64(s)


@njit(cache=True, nogil=True, error_model="numpy")
def last_level_two(Xp, Xn, cp, cn, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2, node_size,
                   nsgc):
    """Level 2 as the last level (``max_rules`` 2, nothing stored): the scan of
    :func:`level_two` with each pair's counts taken when they are needed, instead of a Gram
    matrix ahead. A pair whose counts provably give ``v >= vbest`` is only counted
    (``neval``): its TP lies in ``[max(cp[a], cp[j]), min(n1, cp[a] + cp[j])]``, likewise
    FP, and ``v`` is bilinear in (FP, FN), so its minimum over that box is at a corner
    (on synthetic1m's large nodes 4-28 % of the pairs pass this bound at the level-one
    incumbent); the target-class intersection is counted first and the bound taken
    again with TP exact. Skipped pairs change nothing in R's sequential scan (``vbest``
    only decreases, and a pair that is no candidate changes nothing either), so the
    result and ``neval`` are :func:`level_two`'s.

    Returns ``(vb2, best_p, best_j, neval)``.
    """
    m = cp.shape[0]
    P = pfp.shape[0]
    neval = np.int64(0)
    best_p = -1
    best_j = -1
    for p in range(P):
        if ptau2[p] >= vb2:
            continue
        a = pcols[p, 0]
        ga = grp[a]
        pf = pfp[p]
        pn = pfn[p]
        cpa = cp[a]
        cna = cn[a]
        for j in range(a + 1, m):
            if grp[j] == ga:
                continue
            neval += 1
            cpj = cp[j]
            cnj = cn[j]
            tlo = max(cpa, cpj)
            thi = min(n1, cpa + cpj)
            flo = max(cna, cnj)
            fhi = min(n0, cna + cnj)
            if _lb_v2(flo, fhi, n1 - thi, n1 - tlo, n1, n0) >= vb2:
                continue
            tp = cpa + cpj - _and_count(Xp, a, j)
            fn = n1 - tp
            if min(_v2(flo, fn, n1, n0), _v2(fhi, fn, n1, n0)) >= vb2:
                continue
            fp = cna + cnj - _and_count(Xn, a, j)
            vb2, better, t2 = _judge(tp, fp, n1, n0, node_size, pf, pn, nsgc, vb2)
            if better:
                best_p = p
                best_j = j
    return vb2, best_p, best_j, neval


@njit(cache=True, nogil=True, error_model="numpy")
def enum_upto_two(Xp, Xn, grp, n1, n0, node_size, nsgc, two):
    """The whole search for ``max_rules`` 1 (``two`` False) or 2 in one call: the column
    popcounts, :func:`level_one`, then (``two``) :func:`last_level_two` on the kept
    questions. What the level driver does with these kernels one by one, without a
    return to Python between them (a small node's search is mostly that overhead).

    Returns ``(vb2, j1, j2, neval)``: the doubled objective of the best rule, its
    questions (``j1`` -1: none improved on the empty rule; ``j2`` -1: one question) and
    the rules evaluated.
    """
    cp = popcount_rows(Xp)
    cn = popcount_rows(Xn)
    keep, pfp, pfn, ptau, vb2, best_j = level_one(cp, cn, n1, n0, node_size, nsgc, n0 * n1)
    neval = np.int64(cp.shape[0])
    j1 = best_j
    j2 = -1
    if two and keep.shape[0] > 0:
        pcols = keep.reshape((keep.shape[0], 1))
        vb2, bp, bj, ne = last_level_two(Xp, Xn, cp, cn, grp, n1, n0, pcols, pfp, pfn,
                                         ptau, vb2, node_size, nsgc)
        neval += ne
        if bp >= 0:
            j1 = keep[bp]
            j2 = bj
    return vb2, j1, j2, neval


# ---------------------------------------------------------------------------------------
# levels 3 and up: per-child helpers


@njit(cache=True, error_model="numpy", inline="always")
def _group_clash(grp, pcols, p, k, j):
    """True when question ``j`` shares a group with a question of parent ``p``."""
    g = grp[j]
    for r in range(k):
        if grp[pcols[p, r]] == g:
            return True
    return False


@njit(cache=True, error_model="numpy", inline="always")
def _maybe_useful(cp, cn, Gp, Gn, pcols, p, k, j, tp_s, fp_s, n1, n0, vb2, need_tau):
    """False when child ``S+{j}`` provably has ``v >= vbest`` (and, with ``need_tau``,
    ``tau >= vbest``) for every ``vbest <= vb2/2``: pair-count interval bounds on its TP
    and FP, and the corners of the bilinear objective."""
    cpj = cp[j]
    cnj = cn[j]
    tlo = tp_s
    flo = fp_s
    gpm = np.int64(0)
    gnm = np.int64(0)
    for r in range(k):
        s = pcols[p, r]
        gp = np.int64(Gp[s, j])
        gn = np.int64(Gn[s, j])
        tlo = max(tlo, cp[s] + cpj - gp)
        flo = max(flo, cn[s] + cnj - gn)
        gpm = max(gpm, gp)
        gnm = max(gnm, gn)
    thi = min(n1, tp_s + cpj - gpm)
    fhi = min(n0, fp_s + cnj - gnm)
    nhi = n1 - tlo
    if _lb_v2(flo, fhi, n1 - thi, nhi, n1, n0) < vb2:
        return True
    if need_tau:
        return _lb_tau2(flo, nhi, n1, n0) < vb2
    return False


@njit(cache=True, error_model="numpy", inline="always")
def _parent_cover(Xp, Xn, pcols, p, k, covp, covn, row):
    """OR of the parent's packed columns into ``covp[row]``, ``covn[row]``."""
    Wp = Xp.shape[1]
    Wn = Xn.shape[1]
    c0 = pcols[p, 0]
    for w in range(Wp):
        covp[row, w] = Xp[c0, w]
    for w in range(Wn):
        covn[row, w] = Xn[c0, w]
    for r in range(1, k):
        col = pcols[p, r]
        for w in range(Wp):
            covp[row, w] |= Xp[col, w]
        for w in range(Wn):
            covn[row, w] |= Xn[col, w]


@njit(cache=True, error_model="numpy", inline="always")
def _child_counts(Xp, Xn, covp, covn, row, j):
    """Exact (TP, FP) of the parent's cover OR question ``j``."""
    s1 = np.uint64(0)
    for w in range(Xp.shape[1]):
        s1 += popcnt(covp[row, w] | Xp[j, w])
    s0 = np.uint64(0)
    for w in range(Xn.shape[1]):
        s0 += popcnt(covn[row, w] | Xn[j, w])
    return np.int64(s1), np.int64(s0)


# ---------------------------------------------------------------------------------------
# levels 3 and up: stored level


@njit(cache=True, nogil=True, error_model="numpy")
def _stored_phase1(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, idx, t,
                   vb2, covp, covn, status, work):
    """Phase 1 of a stored level for the parent ``idx[t]``, into row ``t`` of the buffers.

    ``status[t, j]``: -1 no child (group clash), 0 child provably neither accepted nor
    kept (only counted), 1 exact counts in ``work[t, 0, j]`` (TP) and ``work[t, 1, j]``
    (FP).
    """
    m = Xp.shape[0]
    k = pcols.shape[1]
    p = idx[t]
    tp_s = n1 - pfn[p]
    fp_s = pfp[p]
    have_cov = False
    for j in range(pcols[p, k - 1] + 1, m):
        if _group_clash(grp, pcols, p, k, j):
            status[t, j] = -1
            continue
        if use_gram and not _maybe_useful(cp, cn, Gp, Gn, pcols, p, k, j, tp_s, fp_s, n1,
                                          n0, vb2, True):
            status[t, j] = 0
            continue
        if not have_cov:
            _parent_cover(Xp, Xn, pcols, p, k, covp, covn, t)
            have_cov = True
        tp, fp = _child_counts(Xp, Xn, covp, covn, t, j)
        work[t, 0, j] = np.int32(tp)
        work[t, 1, j] = np.int32(fp)
        status[t, j] = 1


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _stored_phase1_parallel(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn,
                            idx, c, vb2, covp, covn, status, work):
    for t in prange(c):
        # int64 as in the serial loop: one compiled _stored_phase1 serves both
        _stored_phase1(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, idx,
                       np.int64(t), vb2, covp, covn, status, work)


@njit(cache=True, nogil=True, error_model="numpy")
def _fill_chunk(ptau2, vb2, p0, P, idx, cap):
    """Next parents from ``p0`` whose bound is below the incumbent, at most ``cap``."""
    c = 0
    while p0 < P and c < cap:
        if ptau2[p0] < vb2:
            idx[c] = p0
            c += 1
        p0 += 1
    return c, p0


def _may_run_parallel(m, P, chunk_slots, par_min_slots):
    """False when no chunk of a level can reach ``par_min_slots`` child slots: a chunk
    holds at most ``min(P, cap)`` parents of ``m`` slots each."""
    cap = max(16, int(chunk_slots) // max(int(m), 1))
    return min(int(P), cap) * int(m) >= int(par_min_slots)


def extend_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, ptau2,
                 vb2, node_size, nsgc, parallel, chunk_slots, par_min_slots):
    """One stored level (see :func:`_extend_level`).

    The parallel code is compiled only by the first level that can use it: unless some
    chunk may be counted in parallel, the kernel is called with ``par=None`` and numba
    prunes the parallel branch before compiling.
    """
    par = True if parallel and _may_run_parallel(Xp.shape[0], pfp.shape[0], chunk_slots,
                                                 par_min_slots) else None
    wait_stage("mr4" if par is None else "parallel")  # a first fit's background compile
    return _extend_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn,
                         ptau2, vb2, node_size, nsgc, par, chunk_slots, par_min_slots)


@njit(cache=True, nogil=True, error_model="numpy")
def _extend_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, ptau2,
                  vb2, node_size, nsgc, par, chunk_slots, par_min_slots):
    """One stored level (its kept children are extended later) from parents ``pcols``.

    ``use_gram``: prune by pair-count bounds (``Gp``/``Gn`` valid); ``par`` (``True`` or
    ``None``): count chunks of at least ``par_min_slots`` child slots in parallel; a chunk
    holds at most ``chunk_slots`` slots (at least 16 parents).

    Returns ``(ccols, cfp, cfn, ctau2, vb2, best_p, best_j, neval)``: the kept children
    (P' x (k+1)) with their FP, FN and doubled bounds, the new doubled incumbent, the parent
    index and added column of the incumbent (-1 if none improved), and the evaluations.
    """
    m = Xp.shape[0]
    P = pfp.shape[0]
    k = pcols.shape[1]
    ccols = np.empty((1024, k + 1), np.int64)
    cfp = np.empty(1024, np.int64)
    cfn = np.empty(1024, np.int64)
    ctau = np.empty(1024, np.int64)
    nc = 0
    neval = np.int64(0)
    best_p = -1
    best_j = -1
    cap = max(16, chunk_slots // max(m, 1))
    idx = np.empty(cap, np.int64)
    status = np.empty((cap, m), np.int8)
    work = np.empty((cap, 2, m), np.int32)
    covp = np.empty((cap, Xp.shape[1]), np.uint64)
    covn = np.empty((cap, Xn.shape[1]), np.uint64)
    p0 = np.int64(0)
    while p0 < P:
        c, p0 = _fill_chunk(ptau2, vb2, p0, P, idx, cap)
        if c == 0:
            break
        done = False
        if par is not None:  # pruned when par is None: the parallel kernel is not compiled
            if c * m >= par_min_slots:
                _stored_phase1_parallel(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols,
                                        pfp, pfn, idx, c, vb2, covp, covn, status, work)
                done = True
        if not done:
            for t in range(c):
                _stored_phase1(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp,
                               pfn, idx, t, vb2, covp, covn, status, work)
        for t in range(c):
            p = idx[t]
            if ptau2[p] >= vb2:
                continue
            pf = pfp[p]
            pn = pfn[p]
            for j in range(pcols[p, k - 1] + 1, m):
                st = status[t, j]
                if st < 0:
                    continue
                neval += 1
                if st == 0:
                    continue
                tp = np.int64(work[t, 0, j])
                fp = np.int64(work[t, 1, j])
                vb2, better, t2 = _judge(tp, fp, n1, n0, node_size, pf, pn, nsgc, vb2)
                if better:
                    best_p = p
                    best_j = j
                if t2 >= 0:
                    if nc >= ccols.shape[0]:
                        ccols, cfp, cfn, ctau = _grow(ccols, cfp, cfn, ctau)
                    for r in range(k):
                        ccols[nc, r] = pcols[p, r]
                    ccols[nc, k] = j
                    cfp[nc] = fp
                    cfn[nc] = n1 - tp
                    ctau[nc] = t2
                    nc += 1
    return ccols[:nc], cfp[:nc], cfn[:nc], ctau[:nc], vb2, best_p, best_j, neval


# ---------------------------------------------------------------------------------------
# levels 3 and up: the last level (children are never extended: only the best matters)


@njit(cache=True, nogil=True, error_model="numpy")
def _last_phase1(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, idx, t,
                 vb2, node_size, nsgc, covp, covn, row, elig, bestv, bestj):
    """Phase 1 of the last level for the parent ``idx[t]``: its number of children
    ``elig[t]`` and its first child with the smallest valid ``v2`` below ``vb2``
    (``bestv[t]``, ``bestj[t]``; ``bestj[t] = -1`` if none); scratch row ``row``."""
    m = Xp.shape[0]
    k = pcols.shape[1]
    p = idx[t]
    pf = pfp[p]
    pn = pfn[p]
    tp_s = n1 - pn
    e = 0
    bv = vb2
    bj = -1
    have_cov = False
    for j in range(pcols[p, k - 1] + 1, m):
        if _group_clash(grp, pcols, p, k, j):
            continue
        e += 1
        if use_gram and not _maybe_useful(cp, cn, Gp, Gn, pcols, p, k, j, tp_s, pf, n1, n0,
                                          bv, False):
            continue
        if not have_cov:
            _parent_cover(Xp, Xn, pcols, p, k, covp, covn, row)
            have_cov = True
        tp, fp = _child_counts(Xp, Xn, covp, covn, row, j)
        bv, better, _t2 = _judge(tp, fp, n1, n0, node_size, pf, pn, nsgc, bv)
        if better:
            bj = j
    elig[t] = e
    bestv[t] = bv
    bestj[t] = bj


@njit(cache=True, nogil=True, error_model="numpy")
def _last_phase1_k2(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, idx, t,
                    vb2, node_size, nsgc, covp, covn, row, elig, bestv, bestj):
    """:func:`_last_phase1` for parents of two questions (level 3), with the parent's
    columns, groups and Gram rows hoisted out of the loop over children."""
    m = Xp.shape[0]
    p = idx[t]
    a = pcols[p, 0]
    b = pcols[p, 1]
    ga = grp[a]
    gb = grp[b]
    pf = pfp[p]
    pn = pfn[p]
    tp_s = n1 - pn
    cpa = cp[a]
    cpb = cp[b]
    cna = cn[a]
    cnb = cn[b]
    Gpa = Gp[a]
    Gpb = Gp[b]
    Gna = Gn[a]
    Gnb = Gn[b]
    e = 0
    bv = vb2
    bj = -1
    have_cov = False
    for j in range(b + 1, m):
        g = grp[j]
        if g == ga or g == gb:
            continue
        e += 1
        if use_gram:
            gpa = np.int64(Gpa[j])
            gpb = np.int64(Gpb[j])
            gna = np.int64(Gna[j])
            gnb = np.int64(Gnb[j])
            cpj = cp[j]
            cnj = cn[j]
            tlo = max(tp_s, max(cpa - gpa, cpb - gpb) + cpj)
            flo = max(pf, max(cna - gna, cnb - gnb) + cnj)
            thi = min(n1, tp_s + cpj - max(gpa, gpb))
            fhi = min(n0, pf + cnj - max(gna, gnb))
            if _lb_v2(flo, fhi, n1 - thi, n1 - tlo, n1, n0) >= bv:
                continue
        if not have_cov:
            _parent_cover(Xp, Xn, pcols, p, 2, covp, covn, row)
            have_cov = True
        tp, fp = _child_counts(Xp, Xn, covp, covn, row, j)
        bv, better, _t2 = _judge(tp, fp, n1, n0, node_size, pf, pn, nsgc, bv)
        if better:
            bj = j
    elig[t] = e
    bestv[t] = bv
    bestj[t] = bj


@njit(cache=True, nogil=True, error_model="numpy", parallel=True)
def _last_phase1_parallel(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn,
                          idx, c, vb2, node_size, nsgc, covp, covn, elig, bestv, bestj, k2,
                          kg):
    nb = covp.shape[0]
    # block b owns scratch row b and the parents b, b + nb, b + 2*nb, ...
    for b in prange(nb):
        row = np.int64(b)  # int64 as in the serial loop: one compiled kernel serves both
        for t in range(row, c, nb):
            if k2 is not None:  # k2, kg: see _last_level
                _last_phase1_k2(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp,
                                pfn, idx, t, vb2, node_size, nsgc, covp, covn, row, elig,
                                bestv, bestj)
            if kg is not None:
                _last_phase1(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp,
                             pfn, idx, t, vb2, node_size, nsgc, covp, covn, row, elig, bestv,
                             bestj)


def last_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2,
               node_size, nsgc, nblocks, chunk_slots, par_min_slots):
    """The last level (see :func:`_last_level`); like :func:`extend_level`, the parallel
    code is compiled only by the first level that can use it."""
    par = True if nblocks > 1 and _may_run_parallel(Xp.shape[0], pfp.shape[0], chunk_slots,
                                                    par_min_slots) else None
    k2 = True if pcols.shape[1] == 2 else None
    kg = None if k2 else True
    # a first fit's background compile (pybsnsing._coldstart): wait for the stage that
    # compiles this level's kernels rather than compile them a second time
    wait_stage("parallel" if par is not None else "mr3" if k2 else "mr4")
    return _last_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, ptau2,
                       vb2, node_size, nsgc, nblocks, par, chunk_slots, par_min_slots, k2,
                       kg)


@njit(cache=True, nogil=True, error_model="numpy")
def _last_level(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2,
                node_size, nsgc, nblocks, par, chunk_slots, par_min_slots, k2, kg):
    """The last level (rules of ``max_rules`` questions): nothing is stored.

    Phase 1 summarises each parent of a chunk (its number of children and its first best
    valid child); phase 2 walks the chunk in order: a parent with ``tau >= vbest`` is
    skipped, otherwise it adds its children to ``neval`` and its best child replaces the
    incumbent when strictly better -- exactly what the child-by-child scan does, since the
    improvements within one parent are strictly decreasing.  ``nblocks`` > 1 runs phase 1
    in parallel over that many scratch rows for chunks of at least ``par_min_slots`` child
    slots (``par`` not None); a chunk holds at most ``chunk_slots`` slots (at least 16
    parents). ``k2``: ``True`` when the parents hold two questions (``pcols.shape[1] ==
    2``), else ``None``; ``kg`` the other way round. numba prunes a branch on ``x is not
    None`` only when ``x`` is ``None``, so each phase-1 kernel sits under its own flag and
    the other case's kernel is not compiled (max_rules 3 compiles only
    :func:`_last_phase1_k2`, deeper searches only :func:`_last_phase1`).

    Returns ``(vb2, best_p, best_j, neval)``.
    """
    m = Xp.shape[0]
    P = pfp.shape[0]
    neval = np.int64(0)
    best_p = -1
    best_j = -1
    nb = max(1, nblocks)
    cap = max(16, chunk_slots // max(m, 1))
    idx = np.empty(cap, np.int64)
    elig = np.empty(cap, np.int64)
    bestv = np.empty(cap, np.int64)
    bestj = np.empty(cap, np.int64)
    covp = np.empty((nb, Xp.shape[1]), np.uint64)
    covn = np.empty((nb, Xn.shape[1]), np.uint64)
    row0 = np.int64(0)
    p0 = np.int64(0)
    while p0 < P:
        c, p0 = _fill_chunk(ptau2, vb2, p0, P, idx, cap)
        if c == 0:
            break
        done = False
        if par is not None:  # pruned when par is None: the parallel kernel is not compiled
            if nb > 1 and c * m >= par_min_slots:
                _last_phase1_parallel(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols,
                                      pfp, pfn, idx, c, vb2, node_size, nsgc, covp, covn, elig,
                                      bestv, bestj, k2, kg)
                done = True
        if not done:
            for t in range(c):
                if k2 is not None:
                    _last_phase1_k2(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols,
                                    pfp, pfn, idx, t, vb2, node_size, nsgc, covp, covn, row0,
                                    elig, bestv, bestj)
                if kg is not None:
                    _last_phase1(Xp, Xn, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp,
                                 pfn, idx, t, vb2, node_size, nsgc, covp, covn, row0, elig,
                                 bestv, bestj)
        for t in range(c):
            p = idx[t]
            if ptau2[p] >= vb2:
                continue
            neval += elig[t]
            if bestj[t] >= 0 and bestv[t] < vb2:
                vb2 = bestv[t]
                best_p = p
                best_j = bestj[t]
    return vb2, best_p, best_j, neval
