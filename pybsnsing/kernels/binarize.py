"""Numba kernels for binarizing a numeric column (R's ``binarize.numeric``).

The kernels work on plain arrays only.  The counting arrays are prepared by the
caller with :func:`numpy.searchsorted` on the node's sorted x values:

* ``cnt_lt[i]`` = #(x < cut[i]),
* ``cnt_le[i]`` = #(x <= cut[i]).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def thin_gt_kernel(
    cnt_lt: np.ndarray, cnt_le: np.ndarray, bsize: int, segments: int, cap: bool
) -> np.ndarray:
    """Which ``>`` cuts (ascending) R's thinning keeps, as a boolean mask.

    Walks the cuts in ascending order except the last; a cut is kept when the
    number of x values strictly between the previously kept cut (or -inf) and
    this cut is at least ``bsize``.  With ``cap`` the walk stops once
    ``segments - 1`` cuts are kept.  The last cut is always kept.
    """
    m = cnt_lt.shape[0]
    keep = np.zeros(m, dtype=np.bool_)
    last = -1
    nkept = 0
    for i in range(m - 1):
        if last < 0:
            cnt = cnt_lt[i]
        else:
            cnt = cnt_lt[i] - cnt_le[last]
            if cnt < 0:
                cnt = 0
        if cnt >= bsize:
            keep[i] = True
            last = i
            nkept += 1
        if cap and nkept >= segments - 1:
            break
    keep[m - 1] = True
    return keep


@njit(cache=True)
def thin_lt_kernel(
    cnt_lt: np.ndarray, cnt_le: np.ndarray, n: int, bsize: int, segments: int, cap: bool
) -> np.ndarray:
    """Which ``<`` cuts (ascending) R's thinning keeps, as a boolean mask.

    The mirror image of :func:`thin_gt_kernel`: walks down from the largest cut
    to the second smallest, counting x values strictly between this cut and the
    previously kept (larger) cut (or +inf); the smallest cut is always kept.
    """
    m = cnt_lt.shape[0]
    keep = np.zeros(m, dtype=np.bool_)
    first = -1
    nkept = 0
    for i in range(m - 1, 0, -1):
        if first < 0:
            cnt = n - cnt_le[i]
        else:
            cnt = cnt_lt[first] - cnt_le[i]
            if cnt < 0:
                cnt = 0
        if cnt >= bsize:
            keep[i] = True
            first = i
            nkept += 1
        if cap and nkept >= segments - 1:
            break
    keep[0] = True
    return keep


# ---------------------------------------------------------------------------------------
# answers from sorted orders
#
# A node's question on column ``j`` is answered YES by a union of contiguous ranges of
# positions in the column's stable ascending order ``ordm[j]`` (``x > c``: a suffix,
# ``x < c``: a prefix, ``x == v``: the run of v, ``x %in% S``: the runs of S).  A question
# may name a *base* question of the same column whose YES rows are a subset of its own;
# it then only adds its extra ranges to a copy of the base's answers.  The ``>`` cuts of a
# column (suffixes) are processed from the largest cut down, the ``<`` cuts (prefixes)
# from the smallest up, so each position of a column direction is set once.
#
# ``qcol[q]``: the column (row of ``ordm``); ``qbase[q]``: base question or -1;
# ``rptr[q]:rptr[q + 1]`` index ``rlo``/``rhi``, the half-open position ranges; ``proc``:
# an order in which every base comes before the questions built on it.


@njit(cache=True)
def node_slots(rows, y, target, slot):
    """Class-wise bit slots of a node's rows, for :func:`pack_questions`.

    ``rows``: the node's (global) row ids in node order; ``y``: 0/1 labels (uint8, by
    global row id); ``target``: the class coded 1 in the search.  Writes, for each row
    ``i = rows[t]``, ``slot[i] = k`` when it is the k-th target-class row of the node and
    ``slot[i] = -1 - k`` when it is the k-th other-class row.  Returns the number of
    target-class rows.
    """
    k1 = 0
    k0 = 0
    for t in range(rows.shape[0]):
        i = rows[t]
        if y[i] == target:
            slot[i] = k1
            k1 += 1
        else:
            slot[i] = -1 - k0
            k0 += 1
    return k1


@njit(cache=True)
def pack_questions(ordm, slot, qcol, qbase, rptr, rlo, rhi, proc, Xp, Xn):
    """Bit-pack the answers of range-described questions into rows of ``Xp``/``Xn``.

    ``Xp``/``Xn`` (uint64, zeroed, at least ``len(qcol)`` rows) receive question ``q`` in
    row ``q``: bit ``s`` of the target-class part is set when the row with ``slot == s``
    answers YES, likewise the other class with ``slot == -1 - s`` (see
    :func:`node_slots`).  Row ids in ``ordm`` index ``slot``.
    """
    W1 = Xp.shape[1]
    W0 = Xn.shape[1]
    for t in range(proc.shape[0]):
        q = proc[t]
        b = qbase[q]
        if b >= 0:
            for w in range(W1):
                Xp[q, w] = Xp[b, w]
            for w in range(W0):
                Xn[q, w] = Xn[b, w]
        j = qcol[q]
        for r in range(rptr[q], rptr[q + 1]):
            for pos in range(rlo[r], rhi[r]):
                s = slot[ordm[j, pos]]
                if s >= 0:
                    Xp[q, s >> 6] |= np.uint64(1) << np.uint64(s & 63)
                else:
                    s = -1 - s
                    Xn[q, s >> 6] |= np.uint64(1) << np.uint64(s & 63)


@njit(cache=True)
def pack_dense_into(B, rows, slot, Xp, Xn, offset):
    """Bit-pack a dense 0/1 answer matrix ``B`` (n x k uint8, the node's rows in node
    order ``rows``) into rows ``offset .. offset + k - 1`` of ``Xp``/``Xn`` (zeroed), with
    the bit slots of :func:`node_slots`."""
    n, k = B.shape
    for t in range(n):
        s = slot[rows[t]]
        if s >= 0:
            w = s >> 6
            bit = np.uint64(1) << np.uint64(s & 63)
            for c in range(k):
                if B[t, c] != 0:
                    Xp[offset + c, w] |= bit
        else:
            s = -1 - s
            w = s >> 6
            bit = np.uint64(1) << np.uint64(s & 63)
            for c in range(k):
                if B[t, c] != 0:
                    Xn[offset + c, w] |= bit


@njit(cache=True)
def fill_dense(ordm, local, qcol, qbase, rptr, rlo, rhi, proc, BT):
    """The dense form of :func:`pack_questions`: ``BT[q, local[i]] = 1`` for every row id
    ``i`` answering question ``q`` YES (``BT``: m x n uint8, zeroed, i.e. the transposed
    answer matrix; ``local`` maps the row ids of ``ordm`` to answer positions)."""
    n = BT.shape[1]
    for t in range(proc.shape[0]):
        q = proc[t]
        b = qbase[q]
        if b >= 0:
            for i in range(n):
                BT[q, i] = BT[b, i]
        j = qcol[q]
        for r in range(rptr[q], rptr[q + 1]):
            for pos in range(rlo[r], rhi[r]):
                BT[q, local[ordm[j, pos]]] = 1
