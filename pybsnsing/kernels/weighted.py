"""Numba kernels of the WEIGHTED ENUM split search and weighted binarization.

The unweighted search (:mod:`pybsnsing.kernels.enum`) counts rows with popcounts on
bit-packed columns; here every row carries a non-negative weight, and every count of the
search (TP, FP, FN, the class totals ``n1``/``n0``, the node-size test) is a sum of
weights.  The kernels are separate so that the unweighted kernels and their compile time
are untouched; the driver is :mod:`pybsnsing.weighted`.

Counters
--------
* levels 1 and 2 come from per-class weighted counts ``cp``/``cn`` and weighted Gram
  matrices ``Gp``/``Gn`` (``G[i, j]`` = weight of the rows answering both ``i`` and ``j``),
  which the driver builds from small weighted contingency tables of the columns'
  partitions (:func:`contingency`);
* deeper levels (and level 2 when there is no Gram matrix) read the bit-packed answers
  (the layout of :mod:`pybsnsing.kernels.packing`) through per-byte weight tables
  (:func:`byte_tables`: ``lut[8*w + b, v]`` = weight of the rows whose bits are set in
  byte value ``v`` at byte ``b`` of word ``w``): 8 table reads per 64-bit word.

Objective values are plain float64 ``v = n1*FP + n0*FN - 2*FP*FN`` (not doubled: halving
is exact in floating point).  With whole-number weights (and more generally weights whose
partial sums are exact in float64, e.g. multiples of 1/8) every comparison is exact and the
search is the unweighted search of the data with each row repeated ``w`` times.

Sequential semantics are those of the unweighted kernels: parents in list order, a parent
skipped when ``tau >= vbest``, children of larger index outside the parent's groups, every
child of a visited parent counted in ``neval``, strict improvement.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "contingency",
    "byte_tables",
    "wlevel_one",
    "wextend",
    "node_intervals",
    "gram_from_intervals",
]


# ---------------------------------------------------------------------------------------
# counters


@njit(cache=True, nogil=True)
def contingency(bins, wt, cls, sizes, offs, T1, T0):
    """Weighted two-way tables of every pair of partitions, per class.

    ``bins`` (P x n int64): the bin of each node row in each partition; ``wt`` (n): row
    weights; ``cls`` (n uint8): 1 for the target class; ``offs[a, b]`` (a <= b): where
    the ``sizes[a] x sizes[b]`` table of the pair starts in the flat ``T1``/``T0``
    (zeroed), which receive the weights of the target / other class.  For ``a == b`` only
    the diagonal is filled.
    """
    P, n = bins.shape
    for i in range(n):
        w = wt[i]
        T = T1 if cls[i] == 1 else T0
        for a in range(P):
            ba = bins[a, i]
            base = ba * sizes[a]
            T[offs[a, a] + base + ba] += w
            for b in range(a + 1, P):
                T[offs[a, b] + ba * sizes[b] + bins[b, i]] += w


@njit(cache=True, nogil=True)
def byte_tables(wslot, words):
    """Per-byte weight tables of one class: ``lut[8*w + b, v]`` is the weight of the rows
    (bit slots ``64*w + 8*b + t``) whose bits are set in byte value ``v``; ``wslot``: the
    weights by bit slot (slots past its end weigh 0)."""
    lut = np.zeros((8 * words, 256), np.float64)
    ns = wslot.shape[0]
    for w in range(words):
        for b in range(8):
            r = 8 * w + b
            for v in range(1, 256):
                low = v & (-v)
                t = 0
                while (low >> t) != 1:
                    t += 1
                s = 64 * w + 8 * b + t
                lut[r, v] = lut[r, v & (v - 1)] + (wslot[s] if s < ns else 0.0)
    return lut


@njit(cache=True, inline="always")
def _wpop_and(X, j, free, lut):
    """Weight of the rows set in both ``X[j]`` and ``free``."""
    s = 0.0
    for w in range(X.shape[1]):
        x = X[j, w] & free[w]
        if x != 0:
            r = 8 * w
            for b in range(8):
                byte = (x >> np.uint64(8 * b)) & np.uint64(255)
                if byte != 0:
                    s += lut[r + b, byte]
    return s


# ---------------------------------------------------------------------------------------
# objective


@njit(cache=True, inline="always")
def _v(fp, fn, n1, n0):
    return n1 * fp + n0 * fn - 2.0 * fp * fn


@njit(cache=True, inline="always")
def _tau(fp, fn, n1, n0, v):
    """R's bound ``tau`` on every superset of a rule with (weighted) counts FP, FN."""
    if 2.0 * fp >= n0:
        if 2.0 * fn <= n1:
            return v
        return n0 * (n1 - fn)
    if 2.0 * fn <= n1:
        return n1 * fp
    return 0.0


@njit(cache=True, inline="always")
def _improves(v, vb, tp, fp, n1, n0, nsgc):
    if v >= vb:
        return False
    if not nsgc:
        return True
    fn = n1 - tp
    tn = n0 - fp
    if tp + fp == 0.0 or fn + tn == 0.0:
        return False
    return (tp > fp and fn < tn) or (tp < fp and fn > tn)


# ---------------------------------------------------------------------------------------
# levels


@njit(cache=True, nogil=True)
def wlevel_one(cp, cn, n1, n0, node_size, nsgc, vb):
    """Level 1 on weighted counts: ``(keep, fp, fn, tau, vb, best_j)`` as
    :func:`pybsnsing.kernels.enum.level_one` (values not doubled)."""
    m = cp.shape[0]
    keep = np.empty(m, np.int64)
    kfp = np.empty(m, np.float64)
    kfn = np.empty(m, np.float64)
    ktau = np.empty(m, np.float64)
    nk = 0
    best_j = -1
    tot = n1 + n0
    for j in range(m):
        tp = cp[j]
        fp = cn[j]
        fn = n1 - tp
        npos = tp + fp
        if npos < node_size or tot - npos < node_size:
            continue
        v = _v(fp, fn, n1, n0)
        if _improves(v, vb, tp, fp, n1, n0, nsgc):
            vb = v
            best_j = j
        t = _tau(fp, fn, n1, n0, v)
        if t < vb:
            keep[nk] = j
            kfp[nk] = fp
            kfn[nk] = fn
            ktau[nk] = t
            nk += 1
    return keep[:nk], kfp[:nk], kfn[:nk], ktau[:nk], vb, best_j


@njit(cache=True, nogil=True)
def wextend(Xp, Xn, lp, ln, cp, cn, Gp, Gn, use_gram, grp, n1, n0, pcols, pfp, pfn, ptau,
            vb, node_size, nsgc, store):
    """One level of extensions (rules of ``k + 1`` questions from the ``k``-question list
    ``pcols``), sequential.

    With ``use_gram`` and ``k == 1`` the counts are exact from the Gram matrices; otherwise
    from the packed answers and byte tables, after a bound from the Gram matrices (when
    there) settles the children that can be neither accepted nor kept.

    Returns ``(ccols, cfp, cfn, ctau, vb, best_p, best_j, neval)``.
    """
    m = cp.shape[0]
    P = pfp.shape[0]
    k = pcols.shape[1]
    cap = 1024 if store else 1
    ccols = np.empty((cap, k + 1), np.int64)
    cfp = np.empty(cap, np.float64)
    cfn = np.empty(cap, np.float64)
    ctau = np.empty(cap, np.float64)
    nc = 0
    neval = 0
    best_p = -1
    best_j = -1
    tot = n1 + n0
    W1 = Xp.shape[1]
    W0 = Xn.shape[1]
    freep = np.empty(W1, np.uint64)
    freen = np.empty(W0, np.uint64)
    pair = use_gram and k == 1
    for p in range(P):
        if ptau[p] >= vb:
            continue
        last = pcols[p, k - 1]
        ptp = n1 - pfn[p]
        pf = pfp[p]
        pn = pfn[p]
        if not pair:
            for w in range(W1):
                acc = np.uint64(0)
                for s in range(k):
                    acc |= Xp[pcols[p, s], w]
                freep[w] = ~acc
            for w in range(W0):
                acc = np.uint64(0)
                for s in range(k):
                    acc |= Xn[pcols[p, s], w]
                freen[w] = ~acc
        for j in range(last + 1, m):
            gj = grp[j]
            clash = False
            for s in range(k):
                if grp[pcols[p, s]] == gj:
                    clash = True
                    break
            if clash:
                continue
            neval += 1
            if pair:
                a = pcols[p, 0]
                tp = cp[a] + cp[j] - Gp[a, j]
                fp = cn[a] + cn[j] - Gn[a, j]
            else:
                if use_gram:
                    # box bounds on (TP, FP) from the pair counts; v is bilinear in (FP, FN)
                    tlo = ptp
                    flo = pf
                    thi = ptp + cp[j]
                    fhi = pf + cn[j]
                    for s in range(k):
                        c = pcols[p, s]
                        t2 = cp[c] + cp[j] - Gp[c, j]
                        f2 = cn[c] + cn[j] - Gn[c, j]
                        if t2 > tlo:
                            tlo = t2
                        if f2 > flo:
                            flo = f2
                        t3 = ptp + cp[j] - Gp[c, j]
                        f3 = pf + cn[j] - Gn[c, j]
                        if t3 < thi:
                            thi = t3
                        if f3 < fhi:
                            fhi = f3
                    # slack against rounding: only settle clear cases
                    eps = 1e-9 * (1.0 + tot * tot)
                    nlo = n1 - thi
                    nhi = n1 - tlo
                    lb = min(min(_v(flo, nlo, n1, n0), _v(flo, nhi, n1, n0)),
                             min(_v(fhi, nlo, n1, n0), _v(fhi, nhi, n1, n0)))
                    if lb >= vb + eps:
                        settled = True
                        if store:
                            # tau >= min of v over [flo, n0] x [0, nhi] outside the 0 case
                            if 2.0 * flo < n0 and 2.0 * nhi > n1:
                                settled = False
                            else:
                                lt = min(min(_v(flo, 0.0, n1, n0), _v(flo, nhi, n1, n0)),
                                         min(_v(n0, 0.0, n1, n0), _v(n0, nhi, n1, n0)))
                                if lt < vb + eps:
                                    settled = False
                        if settled:
                            continue
                tp = ptp + _wpop_and(Xp, j, freep, lp)
                fp = pf + _wpop_and(Xn, j, freen, ln)
            fn = n1 - tp
            npos = tp + fp
            if npos < node_size or tot - npos < node_size:
                continue
            if fp == pf and fn == pn:
                continue
            v = _v(fp, fn, n1, n0)
            if _improves(v, vb, tp, fp, n1, n0, nsgc):
                vb = v
                best_p = p
                best_j = j
            if store:
                t = _tau(fp, fn, n1, n0, v)
                if t < vb:
                    if nc >= ccols.shape[0]:
                        nn = 2 * ccols.shape[0]
                        c2 = np.empty((nn, k + 1), np.int64)
                        f2a = np.empty(nn, np.float64)
                        n2a = np.empty(nn, np.float64)
                        t2a = np.empty(nn, np.float64)
                        for i in range(nc):
                            for s in range(k + 1):
                                c2[i, s] = ccols[i, s]
                            f2a[i] = cfp[i]
                            n2a[i] = cfn[i]
                            t2a[i] = ctau[i]
                        ccols, cfp, cfn, ctau = c2, f2a, n2a, t2a
                    for s in range(k):
                        ccols[nc, s] = pcols[p, s]
                    ccols[nc, k] = j
                    cfp[nc] = fp
                    cfn[nc] = fn
                    ctau[nc] = t
                    nc += 1
    return ccols[:nc], cfp[:nc], cfn[:nc], ctau[:nc], vb, best_p, best_j, neval


# ---------------------------------------------------------------------------------------
# a tree node's counts from the questions' range structure


@njit(cache=True, nogil=True)
def node_intervals(ordm, local, pcol, qpart, qbase, proc, rptr, rlo, rhi, n, bins):
    """Bins of the node's column partitions and each question's bins as intervals.

    Partition ``a`` is design column ``pcol[a]``: the ends of every range of its questions
    (positions ``rlo[r]:rhi[r]`` of the column's sorted node order ``ordm[pcol[a]]``) cut
    the positions into bins.  Writes ``bins[a, local[row]]`` (the bin of each node row) and
    returns ``(sizes, iv_ptr, iv_lo, iv_hi)``: the number of bins of each partition and, per
    question, its YES bins (its own ranges and its base chain's, ``proc`` listing bases
    first) as merged half-open intervals of bin indices.
    """
    P = pcol.shape[0]
    m = qpart.shape[0]
    mark = np.zeros((P, n + 1), np.bool_)
    for a in range(P):
        mark[a, 0] = True
        mark[a, n] = True
    for q in range(m):
        a = qpart[q]
        for r in range(rptr[q], rptr[q + 1]):
            mark[a, rlo[r]] = True
            mark[a, rhi[r]] = True
    binpos = np.empty((P, n + 1), np.int64)
    sizes = np.zeros(P, np.int64)
    for a in range(P):
        b = -1
        for t in range(n):
            if mark[a, t]:
                b += 1
            binpos[a, t] = b
        binpos[a, n] = b + 1
        sizes[a] = b + 1
        c = pcol[a]
        for t in range(n):
            bins[a, local[ordm[c, t]]] = binpos[a, t]
    maxb = 1
    for a in range(P):
        if sizes[a] > maxb:
            maxb = sizes[a]
    member = np.zeros((m, maxb), np.bool_)
    for t in range(proc.shape[0]):
        q = proc[t]
        a = qpart[q]
        bq = qbase[q]
        if bq >= 0:
            for k in range(sizes[a]):
                member[q, k] = member[bq, k]
        for r in range(rptr[q], rptr[q + 1]):
            if rhi[r] > rlo[r]:
                for k in range(binpos[a, rlo[r]], binpos[a, rhi[r]]):
                    member[q, k] = True
    iv_ptr = np.zeros(m + 1, np.int64)
    cap = m + 16
    iv_lo = np.empty(cap, np.int64)
    iv_hi = np.empty(cap, np.int64)
    k = 0
    for q in range(m):
        a = qpart[q]
        inside = False
        for b in range(sizes[a] + 1):
            on = b < sizes[a] and member[q, b]
            if on and not inside:
                if k >= iv_lo.shape[0]:
                    nl = np.empty(2 * iv_lo.shape[0], np.int64)
                    nh = np.empty(2 * iv_lo.shape[0], np.int64)
                    for i in range(k):
                        nl[i] = iv_lo[i]
                        nh[i] = iv_hi[i]
                    iv_lo, iv_hi = nl, nh
                iv_lo[k] = b
                inside = True
            elif not on and inside:
                iv_hi[k] = b
                k += 1
                inside = False
        iv_ptr[q + 1] = k
    return sizes, iv_ptr, iv_lo[:k], iv_hi[:k]


@njit(cache=True, nogil=True)
def _prefix_tables(T, offs, sizes, want_gram):
    """2-D prefix sums of the pair tables (``(Ba+1) x (Bb+1)``, a < b) and 1-D prefix
    sums of the diagonal tables' diagonals (``Ba + 1``), with their offsets."""
    P = sizes.shape[0]
    poff = np.zeros((P, P), np.int64)
    tot = 0
    for a in range(P):
        poff[a, a] = tot
        tot += sizes[a] + 1
        if want_gram:
            for b in range(a + 1, P):
                poff[a, b] = tot
                tot += (sizes[a] + 1) * (sizes[b] + 1)
    S = np.zeros(max(tot, 1), np.float64)
    for a in range(P):
        Ba = sizes[a]
        o = poff[a, a]
        for i in range(Ba):
            S[o + i + 1] = S[o + i] + T[offs[a, a] + i * Ba + i]
        if want_gram:
            for b in range(a + 1, P):
                Bb = sizes[b]
                o = poff[a, b]
                W = Bb + 1
                for i in range(Ba):
                    for j in range(Bb):
                        S[o + (i + 1) * W + j + 1] = (T[offs[a, b] + i * Bb + j]
                                                      + S[o + i * W + j + 1]
                                                      + S[o + (i + 1) * W + j]
                                                      - S[o + i * W + j])
    return S, poff


@njit(cache=True, nogil=True)
def gram_from_intervals(T, offs, sizes, qpart, iv_ptr, iv_lo, iv_hi, want_gram, rows, c,
                        G):
    """Weighted counts ``c[q]`` and Gram matrix ``G`` (when ``want_gram``) of one class from
    its pair tables ``T`` (:func:`contingency`) and the questions' bin intervals
    (:func:`node_intervals`).  Only the entries ``G[i, j]`` with ``rows[i]`` or ``rows[j]``
    are filled (the others stay 0)."""
    m = qpart.shape[0]
    S, poff = _prefix_tables(T, offs, sizes, want_gram)
    for q in range(m):
        a = qpart[q]
        o = poff[a, a]
        s = 0.0
        for r in range(iv_ptr[q], iv_ptr[q + 1]):
            s += S[o + iv_hi[r]] - S[o + iv_lo[r]]
        c[q] = s
    if not want_gram:
        return
    for i in range(m):
        pa = qpart[i]
        for j in range(i + 1, m):
            if not (rows[i] or rows[j]):
                continue
            pb = qpart[j]
            s = 0.0
            if pa == pb:
                o = poff[pa, pa]
                for r in range(iv_ptr[i], iv_ptr[i + 1]):
                    for u in range(iv_ptr[j], iv_ptr[j + 1]):
                        lo = max(iv_lo[r], iv_lo[u])
                        hi = min(iv_hi[r], iv_hi[u])
                        if hi > lo:
                            s += S[o + hi] - S[o + lo]
            else:
                if pa < pb:
                    x, y, ra, rb = i, j, pa, pb
                else:
                    x, y, ra, rb = j, i, pb, pa
                o = poff[ra, rb]
                W = sizes[rb] + 1
                for r in range(iv_ptr[x], iv_ptr[x + 1]):
                    r0 = iv_lo[r] * W
                    r1 = iv_hi[r] * W
                    for u in range(iv_ptr[y], iv_ptr[y + 1]):
                        c0 = iv_lo[u]
                        c1 = iv_hi[u]
                        s += S[o + r1 + c1] - S[o + r0 + c1] - S[o + r1 + c0] + S[o + r0 + c0]
            G[i, j] = s
            G[j, i] = s
