"""Numba kernels of the ENUM split search (bsnsing's ``rcpp_bslearn``).

Plain arrays in, plain arrays out; the Python driver lives in :mod:`pybsnsing.search`.

Data layout
-----------
The 0/1 question matrix is bit-packed per class: ``Xp[j, w]`` holds, for question ``j``,
64 of the rows with label 1 (bit ``t`` of word ``w`` is row ``64*w + t`` of the class-1 rows)
and ``Xn`` does the same for the class-0 rows.  The padding bits are 0.  A rule (an OR of
questions) covers the rows where any of its questions is 1, so with ``cov`` the OR of its
packed columns, ``TP = popcount(cov_p)`` and ``FP = popcount(cov_n)``.

All objective values are handled *doubled* as exact 64-bit integers:
``v2 = 2*v = 2*(n1*FP + n0*FN - 2*FP*FN)``, ``tau2 = 2*tau`` and the incumbent
``vb2 = 2*vbest`` (so that the start value ``n0*n1/2`` is an integer too).

Sequential semantics
--------------------
The search is the breadth-first implicit enumeration of R's C code: parents are visited in
list order, a parent is skipped when ``tau >= vbest`` at the moment it is reached, its
children are the questions of larger index outside the parent's groups, every child
evaluated counts in ``neval``, and ``vbest`` improves strictly.  The kernels compute the
children's counts in parallel for a chunk of parents, then run the accept/prune logic over
that chunk sequentially, so results and ``neval`` do not depend on the thread count.

Because ``vbest`` only decreases, a parent whose ``tau >= vbest`` *now* is certainly skipped
later, so it is left out of the parallel work; and a child whose lower bound is
``>= vbest`` now can never be accepted later.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = [
    "popcount_rows",
    "gram_counts",
    "level_one",
    "level_two",
    "extend_level",
]

#: number of parents whose children are counted in one parallel batch
CHUNK = 256


@intrinsic
def _ctpop(typingctx, x):  # pragma: no cover - compiled
    """LLVM ``ctpop`` on a uint64 (a single ``popcnt`` instruction)."""
    if x != types.uint64:
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
        return builder.call(fn, [args[0]])

    return sig, codegen


@njit(cache=True, inline="always")
def _tau2(fp, fn, n1, n0, v2):
    """Twice the lower bound ``tau`` of every superset of a rule with counts FP, FN."""
    if 2 * fp >= n0:
        if 2 * fn <= n1:
            return v2
        return 2 * n0 * (n1 - fn)
    if 2 * fn <= n1:
        return 2 * n1 * fp
    return np.int64(0)


@njit(cache=True, inline="always")
def _nsgc_ok(tp, fp, fn, tn):
    """R's no.same.gender.children test: TP/(TP+FP) and FN/(FN+TN) on opposite sides of 0.5.

    A 0/0 share is NaN in R and fails both comparisons, i.e. the rule is rejected.
    """
    if tp + fp == 0 or fn + tn == 0:
        return False
    return (tp > fp and fn < tn) or (tp < fp and fn > tn)


@njit(cache=True, inline="always")
def _v2(fp, fn, n1, n0):
    return 2 * (n1 * fp + n0 * fn - 2 * fp * fn)


@njit(cache=True)
def popcount_rows(X):
    """Popcount of every row of a packed matrix ``X`` (m x W) -> int64[m]."""
    m, W = X.shape
    out = np.zeros(m, np.int64)
    for j in range(m):
        s = np.uint64(0)
        for w in range(W):
            s += _ctpop(X[j, w])
        out[j] = np.int64(s)
    return out


@njit(cache=True, parallel=True)
def gram_counts(X):
    """Upper-triangle Gram matrix of a packed matrix: ``G[i, j] = |col i AND col j|``, i < j.

    Entries on and below the diagonal are left 0 (the diagonal is ``popcount_rows``).
    """
    m, W = X.shape
    G = np.zeros((m, m), np.int64)
    for i in prange(m):
        for j in range(i + 1, m):
            s = np.uint64(0)
            for w in range(W):
                s += _ctpop(X[i, w] & X[j, w])
            G[i, j] = np.int64(s)
    return G


@njit(cache=True)
def level_one(cp, cn, n1, n0, node_size, nsgc, vb2):
    """Level 1: every single question in index order.

    Parameters: ``cp[j]``/``cn[j]`` = class-1/class-0 rows where question j is 1.
    Returns ``(keep, fp, fn, tau2, vb2, best_j)``: the indices of the questions kept for
    extension (in order) with their FP, FN and doubled bound, the new doubled incumbent and
    the best question (-1 if none improved).  ``neval`` of this level is ``m``.
    """
    m = cp.shape[0]
    n = n1 + n0
    keep = np.empty(m, np.int64)
    kfp = np.empty(m, np.int64)
    kfn = np.empty(m, np.int64)
    ktau = np.empty(m, np.int64)
    nk = 0
    best_j = -1
    for j in range(m):
        tp = cp[j]
        fp = cn[j]
        fn = n1 - tp
        npos = tp + fp
        if npos < node_size or n - npos < node_size:
            continue
        v2 = _v2(fp, fn, n1, n0)
        if v2 < vb2:
            if (not nsgc) or _nsgc_ok(tp, fp, fn, n0 - fp):
                vb2 = v2
                best_j = j
        t2 = _tau2(fp, fn, n1, n0, v2)
        if t2 < vb2:
            keep[nk] = j
            kfp[nk] = fp
            kfn[nk] = fn
            ktau[nk] = t2
            nk += 1
    return keep[:nk], kfp[:nk], kfn[:nk], ktau[:nk], vb2, best_j


@njit(cache=True)
def _grow(a, n):
    """Return ``a`` with at least ``n`` rows (doubling)."""
    if a.shape[0] >= n:
        return a
    new = max(n, 2 * a.shape[0])
    if a.ndim == 1:
        b = np.empty(new, a.dtype)
        b[: a.shape[0]] = a
        return b
    b2 = np.empty((new,) + a.shape[1:], a.dtype)
    b2[: a.shape[0]] = a
    return b2


@njit(cache=True)
def _grow2(a, n):
    if a.shape[0] >= n:
        return a
    new = max(n, 2 * a.shape[0])
    b = np.empty((new, a.shape[1]), a.dtype)
    b[: a.shape[0], :] = a
    return b


@njit(cache=True)
def _eligible(grp, pcols, p, k, m):
    """Number of children of parent ``p``: columns after its last one, outside its groups."""
    last = pcols[p, k - 1]
    e = 0
    for j in range(last + 1, m):
        g = grp[j]
        ok = True
        for r in range(k):
            if grp[pcols[p, r]] == g:
                ok = False
                break
        if ok:
            e += 1
    return e


@njit(cache=True)
def level_two(cp, cn, Gp, Gn, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2, node_size, nsgc,
              store):
    """Level 2 (rules of two questions) read from the per-class Gram matrices.

    ``TP(a|b) = cp[a] + cp[b] - Gp[a, b]``, ``FP(a|b) = cn[a] + cn[b] - Gn[a, b]``.
    ``pcols`` (P x 1), ``pfp``, ``pfn``, ``ptau2``: the level-1 list.  When ``store`` is
    false the kept children are not returned (this is the last level).

    Returns ``(ccols, cfp, cfn, ctau2, vb2, best_p, best_j, neval)``.
    """
    m = cp.shape[0]
    n = n1 + n0
    P = pfp.shape[0]
    cap = 1024 if store else 1
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
            tp = cp[a] + cp[j] - Gp[a, j]
            fp = cn[a] + cn[j] - Gn[a, j]
            fn = n1 - tp
            npos = tp + fp
            if npos < node_size or n - npos < node_size:
                continue
            if fp == pf and fn == pn:
                continue
            v2 = _v2(fp, fn, n1, n0)
            if v2 < vb2:
                if (not nsgc) or _nsgc_ok(tp, fp, fn, n0 - fp):
                    vb2 = v2
                    best_p = p
                    best_j = j
            if store:
                t2 = _tau2(fp, fn, n1, n0, v2)
                if t2 < vb2:
                    if nc >= ccols.shape[0]:
                        ccols = _grow2(ccols, nc + 1)
                        cfp = _grow(cfp, nc + 1)
                        cfn = _grow(cfn, nc + 1)
                        ctau = _grow(ctau, nc + 1)
                    ccols[nc, 0] = a
                    ccols[nc, 1] = j
                    cfp[nc] = fp
                    cfn[nc] = fn
                    ctau[nc] = t2
                    nc += 1
    return ccols[:nc], cfp[:nc], cfn[:nc], ctau[:nc], vb2, best_p, best_j, neval


@njit(cache=True, parallel=True)
def _count_chunk(Xp, Xn, grp, pcols, idx, c, TPb, FPb):
    """Children counts of the parents ``idx[:c]``: ``TPb[t, j]``, ``FPb[t, j]`` (-1: no child)."""
    m = Xp.shape[0]
    Wp = Xp.shape[1]
    Wn = Xn.shape[1]
    k = pcols.shape[1]
    for t in prange(c):
        p = idx[t]
        covp = np.zeros(Wp, np.uint64)
        covn = np.zeros(Wn, np.uint64)
        for r in range(k):
            col = pcols[p, r]
            for w in range(Wp):
                covp[w] |= Xp[col, w]
            for w in range(Wn):
                covn[w] |= Xn[col, w]
        last = pcols[p, k - 1]
        for j in range(last + 1, m):
            g = grp[j]
            ok = True
            for r in range(k):
                if grp[pcols[p, r]] == g:
                    ok = False
                    break
            if not ok:
                TPb[t, j] = -1
                continue
            s = np.uint64(0)
            for w in range(Wp):
                s += _ctpop(covp[w] | Xp[j, w])
            TPb[t, j] = np.int64(s)
            s = np.uint64(0)
            for w in range(Wn):
                s += _ctpop(covn[w] | Xn[j, w])
            FPb[t, j] = np.int64(s)


@njit(cache=True)
def extend_level(Xp, Xn, grp, n1, n0, pcols, pfp, pfn, ptau2, vb2, node_size, nsgc, store):
    """One level of the search from the parents ``pcols`` (P x k) on bit-packed columns.

    Returns ``(ccols, cfp, cfn, ctau2, vb2, best_p, best_j, neval)`` where ``ccols`` are the
    kept children (P' x (k+1)) when ``store`` is true (empty otherwise), ``best_p``/``best_j``
    the parent index and added column of the new incumbent (-1 if none).
    """
    m = Xp.shape[0]
    n = n1 + n0
    P = pfp.shape[0]
    k = pcols.shape[1]
    cap = 1024 if store else 1
    ccols = np.empty((cap, k + 1), np.int64)
    cfp = np.empty(cap, np.int64)
    cfn = np.empty(cap, np.int64)
    ctau = np.empty(cap, np.int64)
    nc = 0
    neval = np.int64(0)
    best_p = -1
    best_j = -1
    TPb = np.empty((CHUNK, m), np.int64)
    FPb = np.empty((CHUNK, m), np.int64)
    idx = np.empty(CHUNK, np.int64)
    p0 = 0
    while p0 < P:
        c = 0
        while p0 < P and c < CHUNK:
            if ptau2[p0] < vb2:
                idx[c] = p0
                c += 1
            p0 += 1
        if c == 0:
            break
        _count_chunk(Xp, Xn, grp, pcols, idx, c, TPb, FPb)
        for t in range(c):
            p = idx[t]
            if ptau2[p] >= vb2:
                continue
            pf = pfp[p]
            pn = pfn[p]
            last = pcols[p, k - 1]
            for j in range(last + 1, m):
                tp = TPb[t, j]
                if tp < 0:
                    continue
                neval += 1
                fp = FPb[t, j]
                fn = n1 - tp
                npos = tp + fp
                if npos < node_size or n - npos < node_size:
                    continue
                if fp == pf and fn == pn:
                    continue
                v2 = _v2(fp, fn, n1, n0)
                if v2 < vb2:
                    if (not nsgc) or _nsgc_ok(tp, fp, fn, n0 - fp):
                        vb2 = v2
                        best_p = p
                        best_j = j
                if store:
                    t2 = _tau2(fp, fn, n1, n0, v2)
                    if t2 < vb2:
                        if nc >= ccols.shape[0]:
                            ccols = _grow2(ccols, nc + 1)
                            cfp = _grow(cfp, nc + 1)
                            cfn = _grow(cfn, nc + 1)
                            ctau = _grow(ctau, nc + 1)
                        for r in range(k):
                            ccols[nc, r] = pcols[p, r]
                        ccols[nc, k] = j
                        cfp[nc] = fp
                        cfn[nc] = fn
                        ctau[nc] = t2
                        nc += 1
    return ccols[:nc], cfp[:nc], cfn[:nc], ctau[:nc], vb2, best_p, best_j, neval
