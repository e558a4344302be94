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
Every helper is compiled once: int64 arguments throughout (a literal int argument
would compile a helper once per literal value) and element loops instead of slice
copies (``a[:] = b`` pulls numba's shape-error message formatting, seconds of
string code, into the first compile).

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


@njit(cache=True)
def _now() -> float:
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True)
def _mix1(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _mix2(z):
    z = (z ^ (z >> np.uint64(33))) * np.uint64(0xFF51AFD7ED558CCD)
    z = (z ^ (z >> np.uint64(33))) * np.uint64(0xC4CEB9FE1A85EC53)
    return z ^ (z >> np.uint64(33))


@njit(cache=True)
def _norm(d, n):
    """Normalised budgets: n <= 2^d - 1 and d <= n."""
    cap = (np.int64(1) << d) - 1
    if n > cap:
        n = cap
    if d > n:
        d = n
    return d, n


@njit(cache=True)
def pack_data(X, codes, C, seed):
    """Rows sorted by class (stably) and bit-packed per feature; see the module notes.

    Returns ``(Xb, cws, indptr, indices, salt, cls_of_word, ones, root_mask)``:
    ``ones`` is the number of ones in X, ``salt`` two rows of odd 64-bit hash salts
    (splitmix64 from ``seed``).
    """
    n, m = X.shape
    counts = np.zeros(C, dtype=np.int64)
    for i in range(n):
        counts[codes[i]] += 1
    cws = np.zeros(C + 1, dtype=np.int64)
    for c in range(C):
        cws[c + 1] = cws[c] + (counts[c] + 63) // 64
    W = max(cws[C], np.int64(1))
    nxt = np.zeros(C, dtype=np.int64)
    for c in range(C):
        nxt[c] = cws[c] * 64
    XbT = np.zeros((W, m), dtype=np.uint64)  # transposed while filling (rows are contiguous)
    P = W * 64
    indptr = np.zeros(P + 1, dtype=np.int64)
    root = np.zeros(W, dtype=np.uint64)
    pos = np.empty(n, dtype=np.int64)
    ones = np.int64(0)
    for i in range(n):
        p = nxt[codes[i]]
        nxt[codes[i]] = p + 1
        pos[i] = p
        w = p >> 6
        sh = np.uint64(p & 63)
        root[w] |= np.uint64(1) << sh
        xw = XbT[w]
        xi = X[i]
        k = np.int64(0)
        for j in range(m):
            v = np.uint64(xi[j] != 0)
            xw[j] |= v << sh
            k += np.int64(v)
        indptr[p + 1] = k
        ones += k
    Xb = np.empty((m, W), dtype=np.uint64)
    for j in range(m):
        for w in range(W):
            Xb[j, w] = XbT[w, j]
    for p in range(P):
        indptr[p + 1] += indptr[p]
    # every column is written, only the ones kept: rows in position order (a row's slack
    # writes land on later rows' entries, written afterwards) and m entries of slack
    inv = np.full(P, -1, dtype=np.int64)
    for i in range(n):
        inv[pos[i]] = i
    indices = np.empty(ones + m, dtype=np.int32)
    for p in range(P):
        i = inv[p]
        if i < 0:
            continue
        t = indptr[p]
        xi = X[i]
        for j in range(m):
            indices[t] = j
            t += np.int64(xi[j] != 0)
    indices = indices[:ones]
    cls_of_word = np.zeros(W, dtype=np.int64)
    for c in range(C):
        for w in range(cws[c], cws[c + 1]):
            cls_of_word[w] = c
    salt = np.empty((2, W), dtype=np.uint64)
    z = np.uint64(seed)
    for r in range(2):
        for w in range(W):
            z += np.uint64(0x9E3779B97F4A7C15)
            salt[r, w] = _mix1(z) | np.uint64(1)
    return Xb, cws, indptr, indices, salt, cls_of_word, ones, root


# ---------------------------------------------------------------------------
# dataset cache: open-addressing hash table of row sets -> linked records
# ---------------------------------------------------------------------------


@njit(cache=True)
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


@njit(cache=True)
def _cache_query(store, h1, h2, d, n):
    """Lower bound and (if known) optimal root decision of a subproblem.

    Returns (lb, cost, feature, nl, nr); cost is -1 when the optimum for
    budgets (d, n) is not known. Records with budgets >= (d, n) give lower
    bounds; an optimum for budgets <= (d, n) that meets the lower bound is
    optimal for (d, n) as well.
    """
    tab = store[0]
    i = _tab_find(tab, h1, h2)
    if i < 0:
        return np.int64(0), np.int64(-1), np.int64(-1), np.int64(0), np.int64(0)
    recs = store[1]
    r = tab[i, 2]
    lb = np.int64(0)
    sm_cost = INF
    sm_r = np.int64(-1)
    while r != -1:
        rd = recs[r, R_D]
        rn = recs[r, R_N]
        rc = recs[r, R_COST]
        if rd == d and rn == n and rc >= 0:
            return rc, rc, recs[r, R_F], recs[r, R_NL], recs[r, R_NR]
        if rd >= d and rn >= n and recs[r, R_LB] > lb:
            lb = recs[r, R_LB]
        if rd <= d and rn <= n and rc >= 0 and rc < sm_cost:
            sm_cost = rc
            sm_r = r
        r = recs[r, R_NEXT]
    if sm_r >= 0 and sm_cost <= lb:
        return sm_cost, sm_cost, recs[sm_r, R_F], recs[sm_r, R_NL], recs[sm_r, R_NR]
    return lb, np.int64(-1), np.int64(-1), np.int64(0), np.int64(0)


@njit(cache=True)
def _cache_lb(store, h1, h2, d, n):
    """Best known lower bound (or optimum) of a subproblem for budgets (d, n)."""
    tab = store[0]
    i = _tab_find(tab, h1, h2)
    if i < 0:
        return np.int64(0)
    recs = store[1]
    r = tab[i, 2]
    lb = np.int64(0)
    while r != -1:
        if recs[r, R_D] >= d and recs[r, R_N] >= n and recs[r, R_LB] > lb:
            lb = recs[r, R_LB]
        r = recs[r, R_NEXT]
    return lb


@njit(cache=True)
def _cache_put(store, meta, h1, h2, d, n, lb, cost, f, nl, nr):
    """Record a lower bound (cost = -1) or an optimal root decision."""
    tab = store[0]
    recs = store[1]
    i = _tab_find(tab, h1, h2)
    if i >= 0:
        r = tab[i, 2]
        while r != -1:
            if recs[r, R_D] == d and recs[r, R_N] == n:
                if recs[r, R_COST] >= 0:
                    return
                if cost >= 0:
                    recs[r, R_COST] = cost
                    recs[r, R_LB] = cost
                    recs[r, R_F] = f
                    recs[r, R_NL] = nl
                    recs[r, R_NR] = nr
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
    recs[k, R_D] = d
    recs[k, R_N] = n
    recs[k, R_LB] = cost if cost >= 0 else lb
    recs[k, R_COST] = cost
    recs[k, R_F] = f
    recs[k, R_NL] = nl
    recs[k, R_NR] = nr
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


@njit(cache=True)
def _rehash(tab, cap):
    """The hash table re-inserted into ``cap`` slots (a power of two)."""
    nt = np.empty((cap, 3), dtype=np.int64)
    nt[:, 2] = -1
    msk = cap - 1
    for s in range(tab.shape[0]):
        if tab[s, 2] != -1:
            j = tab[s, 0] & msk
            while nt[j, 2] != -1:
                j = (j + 1) & msk
            nt[j, 0] = tab[s, 0]
            nt[j, 1] = tab[s, 1]
            nt[j, 2] = tab[s, 2]
    return nt


# ---------------------------------------------------------------------------
# bitset helpers
# ---------------------------------------------------------------------------


@njit(cache=True)
def _split_children(mask, col, m0, m1, cws, salt, cnt0, cnt1):
    """m1 = mask & col, m0 = mask & ~col; class counts and hashes of both."""
    C = cws.shape[0] - 1
    a1 = np.uint64(0)
    a2 = np.uint64(0)
    b1 = np.uint64(0)
    b2 = np.uint64(0)
    for c in range(C):
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
        cnt0[c] = np.int64(s0)
        cnt1[c] = np.int64(s1)
    return np.int64(a1), np.int64(a2), np.int64(b1), np.int64(b2)


@njit(cache=True)
def _hash_mask(mask, salt):
    a1 = np.uint64(0)
    a2 = np.uint64(0)
    for w in range(mask.shape[0]):
        x = mask[w]
        a1 += _mix1(x ^ salt[0, w])
        a2 += _mix2(x + salt[1, w])
    return np.int64(a1), np.int64(a2)


@njit(cache=True)
def _leaf_mis(cnt):
    tot = np.int64(0)
    mx = np.int64(0)
    for c in range(cnt.shape[0]):
        tot += cnt[c]
        if cnt[c] > mx:
            mx = cnt[c]
    return tot - mx


@njit(cache=True)
def class_count_lb(cnt, n, A, B):
    """Class-count lower bound of a subproblem with at most ``n`` feature nodes.

    A tree with j feature nodes has j + 1 leaves, so the rows of all but j + 1
    of the k classes present are misclassified: the bound is the minimum over
    j <= n of ``A * (sum of the k - j - 1 smallest class counts) + B * j``.
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
    srt = np.empty(C, dtype=np.int64)
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


@njit(cache=True)
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


@njit(cache=True)
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


@njit(cache=True)
def _d2_solve(P, M, has_m, N, mF, l2g, A, B, out, rowbuf, diag):
    """Optimal trees of depth <= 2 with 1, 2 and 3 feature nodes from counters.

    The counters are ``P`` (or ``P - M`` when ``has_m``: parent minus sibling,
    formed row by row in ``rowbuf`` without writing the difference matrix).
    ``out[b] = (cost, feature, nl, nr, nodes)`` for the budgets
    b = 0: (depth 1, 1 node), 1: (depth 2, 2 nodes), 2: (depth 2, 3 nodes);
    feature -1 is a leaf. nl/nr are the node counts (0 or 1) of the children.
    Ties go to fewer nodes.
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
    Lc = np.empty(C, dtype=np.int64)
    Rc = np.empty(C, dtype=np.int64)
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
        nLn = 0
        if bestL < leafL and A * bestL + B < cL:
            cL = A * bestL + B
            nLn = 1
        cR = A * leafR
        nRn = 0
        if bestR < leafR and A * bestR + B < cR:
            cR = A * bestR + B
            nRn = 1
        # budget (1, 1)
        t = A * (leafL + leafR) + B
        if t < out[0, 0] or (t == out[0, 0] and 1 < out[0, 4]):
            out[0, 0] = t
            out[0, 1] = f
            out[0, 2] = 0
            out[0, 3] = 0
            out[0, 4] = 1
        # budget (2, 2)
        if t < out[1, 0] or (t == out[1, 0] and 1 < out[1, 4]):
            out[1, 0] = t
            out[1, 1] = f
            out[1, 2] = 0
            out[1, 3] = 0
            out[1, 4] = 1
        if nLn == 1:
            t2 = cL + A * leafR + B
            if t2 < out[1, 0] or (t2 == out[1, 0] and 2 < out[1, 4]):
                out[1, 0] = t2
                out[1, 1] = f
                out[1, 2] = 1
                out[1, 3] = 0
                out[1, 4] = 2
        if nRn == 1:
            t2 = A * leafL + cR + B
            if t2 < out[1, 0] or (t2 == out[1, 0] and 2 < out[1, 4]):
                out[1, 0] = t2
                out[1, 1] = f
                out[1, 2] = 0
                out[1, 3] = 1
                out[1, 4] = 2
        # budget (2, 3)
        t3 = cL + cR + B
        k3 = 1 + nLn + nRn
        if t3 < out[2, 0] or (t3 == out[2, 0] and k3 < out[2, 4]):
            out[2, 0] = t3
            out[2, 1] = f
            out[2, 2] = nLn
            out[2, 3] = nRn
            out[2, 4] = k3


# ---------------------------------------------------------------------------
# the search
# ---------------------------------------------------------------------------


@njit(cache=True)
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


@njit(cache=True)
def _sim_lb(simm, simh, simv, store, level, mask, d, n, A, lb):
    """Similarity lower bound: T(D_new) >= T(D_old) - A * |D_old minus D_new|."""
    for s in range(2):
        if simv[level, s] == 0:
            continue
        old = _cache_lb(store, simh[level, s, 0], simh[level, s, 1], d, n)
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


@njit(cache=True)
def _sim_push(simm, simh, simv, simnext, level, mask, h1, h2):
    for s in range(2):
        if simv[level, s] != 0 and simh[level, s, 0] == h1 and simh[level, s, 1] == h2:
            return
    s = simnext[level]
    for w in range(mask.shape[0]):  # a loop, not a slice copy (see the module notes)
        simm[level, s, w] = mask[w]
    simh[level, s, 0] = h1
    simh[level, s, 1] = h2
    simv[level, s] = 1
    simnext[level] = 1 - s


@njit(cache=True)
def _counters(dat, buf, ctx, meta, level, side):
    """Frequency counters of subproblem (level, side).

    Returns ``(P, M, has_m, mF, l2g)``: the counters are ``P`` (or ``P - M``
    when ``has_m``) over ``mF`` local features with global ids ``l2g``.
    Under a depth-three node (context at level - 1) the counters live in the
    node's local feature space and are obtained, cheapest first, as the
    parent's counters minus the sibling's (when the sibling's are known or the
    sibling is the smaller side), from the previous feature's counters of the
    same side by row updates, or by a recount.
    """
    Xb, cws, indptr, indices, salt, cls_of_word, dens = dat
    masks, cnts, hs, simm, simh, simv, simnext, feats = buf
    (ctx_on, ctx_side, ctx_mF, loc2glob, glob2loc, pg_valid, cg_valid, Gbuf, colsT, Gtmp,
     l2g_tmp, g2l_tmp, lws, cur, prev_mask, lst, inc_ok, rowbuf, diag) = ctx
    mask = masks[level, side]
    p = level - 1
    if p >= 0 and ctx_on[p] != 0:
        mF = ctx_mF[p]
        g2l = glob2loc[p]
        Gp = Gbuf  # one buffer: a single depth-three node is open at a time
        if cg_valid[p, side] != 0:
            return Gp[cur[p, side]], Gp[0], False, mF, loc2glob[p]
        o = 1 - side
        if cg_valid[p, o] != 0 and pg_valid[p] != 0:
            meta[M_NSUB] += 1
            return Gp[0], Gp[cur[p, o]], True, mF, loc2glob[p]
        mine = np.int64(0)
        other = np.int64(0)
        for c in range(cnts.shape[2]):
            mine += cnts[level, side, c]
            other += cnts[level, o, c]
        if mine <= other or cg_valid[p, o] != 0:
            _child_gram(dat, ctx, meta, p, side, mask, mF, g2l, mine)
            cg_valid[p, side] = 1
            return Gp[cur[p, side]], Gp[0], False, mF, loc2glob[p]
        if pg_valid[p] == 0:
            _gram(masks[p, ctx_side[p]], cws, indptr, indices, g2l, mF, colsT, Gp[0], lws)
            pg_valid[p] = 1
            meta[M_NGRAM] += 1
        _child_gram(dat, ctx, meta, p, o, masks[level, o], mF, g2l, other)
        cg_valid[p, o] = 1
        meta[M_NSUB] += 1
        return Gp[0], Gp[cur[p, o]], True, mF, loc2glob[p]
    # no parent context: count over the features that split this subproblem
    m = Xb.shape[0]
    tot = np.int64(0)
    for c in range(cnts.shape[2]):
        tot += cnts[level, side, c]
    mF = np.int64(0)
    for f in range(m):
        col = Xb[f]
        s = np.int64(0)
        for w in range(mask.shape[0]):
            s += np.int64(popcnt(mask[w] & col[w]))
        if s > 0 and s < tot:
            g2l_tmp[f] = mF
            l2g_tmp[mF] = f
            mF += 1
        else:
            g2l_tmp[f] = -1
    _gram(mask, cws, indptr, indices, g2l_tmp, mF, colsT, Gtmp, lws)
    meta[M_NGRAM] += 1
    return Gtmp, Gtmp, False, mF, l2g_tmp


@njit(cache=True)
def _fresh_slot(ctx, p, side, mask):
    """Pick the counter buffer for a new matrix of ``side``; keep the last one intact."""
    (ctx_on, ctx_side, ctx_mF, loc2glob, glob2loc, pg_valid, cg_valid, Gbuf, colsT, Gtmp,
     l2g_tmp, g2l_tmp, lws, cur, prev_mask, lst, inc_ok, rowbuf, diag) = ctx
    if Gbuf.shape[0] == 3:
        k = 1 + side
    else:
        base = 1 + 2 * side
        k = base if cur[p, side] != base else base + 1
    cur[p, side] = k
    for w in range(mask.shape[0]):
        prev_mask[p, side, w] = mask[w]
    inc_ok[p, side] = 1
    return k


@njit(cache=True)
def _child_gram(dat, ctx, meta, p, side, mask, mF, g2l, size):
    """Counters of one child of the depth-three node at level p (into a fresh buffer).

    Either recounted from scratch or updated row by row from the last counters
    computed for the same side (the previous feature), whichever the cost
    model finds cheaper. Updating costs a copy of the C matrices plus ~2 k^2
    scattered additions per differing row (k = features present in a row,
    estimated from the data density); a recount costs the compaction (k per
    row), zeroing the C matrices and ~mF^2 / 4 vectorised popcount steps per
    64-row word.
    """
    Xb, cws, indptr, indices, salt, cls_of_word, dens = dat
    (ctx_on, ctx_side, ctx_mF, loc2glob, glob2loc, pg_valid, cg_valid, Gbuf, colsT, Gtmp,
     l2g_tmp, g2l_tmp, lws, cur, prev_mask, lst, inc_ok, rowbuf, diag) = ctx
    Gp = Gbuf
    if inc_ok[p, side] != 0 and dens[1] != 0.0:
        pm = prev_mask[p, side]
        nd = np.int64(0)
        for w in range(mask.shape[0]):
            nd += np.int64(popcnt(mask[w] ^ pm[w]))
        kf = dens[0] * mF
        C = cws.shape[0] - 1
        words = (size + 63) // 64 + C
        inc_cost = C * mF * mF + 2.0 * nd * kf * kf
        rec_cost = mF * mF * (C + 0.25 * words) + size * kf
        if inc_cost < rec_cost:
            src = cur[p, side]
            base = 1 + 2 * side
            k = base if src != base else base + 1
            Gs = Gp[src]
            Go = Gp[k]
            for c in range(Go.shape[0]):
                for i in range(mF):
                    gi = Go[c, i]
                    hi = Gs[c, i]
                    for j in range(mF):
                        gi[j] = hi[j]
            _gram_update(Go, mF, mask, pm, cws, indptr, indices, g2l, cls_of_word, lst)
            _fresh_slot(ctx, p, side, mask)  # now marks slot k current, remembers mask
            meta[M_NINC] += 1
            return
    k = _fresh_slot(ctx, p, side, mask)
    _gram(mask, cws, indptr, indices, g2l, mF, colsT, Gp[k], lws)
    meta[M_NGRAM] += 1


@njit(cache=True)
def _child_lb(store, cnts, hs, level, side, d, n, A, B):
    d, n = _norm(d, n)
    cnt = cnts[level, side]
    lm = _leaf_mis(cnt)
    if d == 0 or lm == 0:
        return A * lm
    lb = _cache_lb(store, hs[level, side, 0], hs[level, side, 1], d, n)
    cc = class_count_lb(cnt, n, A, B)
    return cc if cc > lb else lb


@njit(cache=True)
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


@njit(cache=True)
def _solve_d2(dat, buf, ctx, store, meta, A, B, level, side, d, n, ub):
    """The depth-two solver on subproblem (level, side): budgets d <= 2 (normalised)."""
    _1 = np.int64(1)
    _2 = np.int64(2)
    _3 = np.int64(3)
    masks, cnts, hs, simm, simh, simv, simnext, feats = buf
    cnt = cnts[level, side]
    h1 = hs[level, side, 0]
    h2 = hs[level, side, 1]
    P, M, has_m, mF, l2g = _counters(dat, buf, ctx, meta, level, side)
    rowbuf = ctx[17]
    diag = ctx[18]
    out = np.empty((3, 5), dtype=np.int64)
    _d2_solve(P, M, has_m, cnt, mF, l2g, A, B, out, rowbuf, diag)
    meta[M_NTERM] += 1
    _cache_put(store, meta, h1, h2, _1, _1, out[0, 0], out[0, 0], out[0, 1], out[0, 2],
               out[0, 3])
    _cache_put(store, meta, h1, h2, _2, _2, out[1, 0], out[1, 0], out[1, 1], out[1, 2],
               out[1, 3])
    _cache_put(store, meta, h1, h2, _2, _3, out[2, 0], out[2, 0], out[2, 1], out[2, 2],
               out[2, 3])
    _sim_push(simm, simh, simv, simnext, level, masks[level, side], h1, h2)
    b = 0 if d == 1 else (1 if n == 2 else 2)
    if out[b, 0] <= ub:
        return 1, out[b, 0], out[b, 1], out[b, 2], out[b, 3]
    return 0, out[b, 0], out[b, 1], out[b, 2], out[b, 3]


@njit(cache=True)
def _solve(dat, buf, ctx, store, meta, A, B, deadline, level, side, d, n, ub):
    """Optimal tree of subproblem (level, side) with budgets (d, n) and cost <= ub.

    Returns (status, cost, feature, nl, nr): status 1 = found (cost is the
    optimum, feature -1 = leaf), 0 = no tree with cost <= ub (cost is a lower
    bound > ub), -1 = out of time.

    Node cap: a tree of cost <= ub has at most ``_node_cap`` feature nodes (for
    example, once a zero-error tree with k nodes is known only trees with fewer
    than k nodes are sought), so the search runs on the budgets (d', n') =
    normalised (d, cap) and tightens the cap as better trees are found; the
    answer is the answer for (d, n) as well.
    """
    # int64 constants for the helpers' arguments: literal ints would compile every helper
    # once per distinct literal (numba types a literal argument as its own type)
    _M1 = np.int64(-1)
    _Z = np.int64(0)
    _1 = np.int64(1)
    Xb, cws, indptr, indices, salt, cls_of_word, dens = dat
    masks, cnts, hs, simm, simh, simv, simnext, feats = buf
    d, n = _norm(d, n)
    cnt = cnts[level, side]
    lm = _leaf_mis(cnt)
    leaf = A * lm
    if d == 0 or lm == 0:
        if leaf <= ub:
            return 1, leaf, -1, 0, 0
        return 0, leaf, -1, 0, 0
    h1 = hs[level, side, 0]
    h2 = hs[level, side, 1]
    lb, cost, f, nl, nr = _cache_query(store, h1, h2, d, n)
    if cost >= 0:
        if cost <= ub:
            return 1, cost, f, nl, nr
        return 0, cost, f, nl, nr
    if _tick(meta, deadline):
        return -1, 0, -1, 0, 0
    mask = masks[level, side]
    cc = class_count_lb(cnt, n, A, B)
    if cc > lb:
        lb = cc
    lb0 = lb
    lb = _sim_lb(simm, simh, simv, store, level, mask, d, n, A, lb)
    if lb >= leaf:
        _cache_put(store, meta, h1, h2, d, n, leaf, leaf, _M1, _Z, _Z)
        if leaf <= ub:
            return 1, leaf, -1, 0, 0
        return 0, leaf, -1, 0, 0
    if lb > ub:
        if lb > lb0:
            meta[M_NSIM] += 1
        _cache_put(store, meta, h1, h2, d, n, lb, _M1, _M1, _Z, _Z)
        return 0, lb, -1, 0, 0

    if d <= 2:
        return _solve_d2(dat, buf, ctx, store, meta, A, B, level, side, d, n, ub)

    # node cap from the upper bound
    d0 = d
    n0 = n
    ub0 = ub
    cap = _node_cap(lb, ub, A, B, n)
    if cap < n:
        if cap < 1:  # a split costs more than ub: the leaf or nothing
            if leaf <= ub:
                _cache_put(store, meta, h1, h2, d0, n0, leaf, leaf, _M1, _Z, _Z)
                return 1, leaf, -1, 0, 0
            nlb = max(lb, ub0 + 1)
            _cache_put(store, meta, h1, h2, d0, n0, nlb, _M1, _M1, _Z, _Z)
            return 0, nlb, -1, 0, 0
        d, n = _norm(d, cap)
        if d <= 2:
            st, v, f, nl, nr = _solve_d2(dat, buf, ctx, store, meta, A, B, level, side, d, n,
                                         ub)
            if st == 1:
                _cache_put(store, meta, h1, h2, d0, n0, v, v, f, nl, nr)
                return st, v, f, nl, nr
            nlb = max(lb, ub0 + 1)
            _cache_put(store, meta, h1, h2, d0, n0, nlb, _M1, _M1, _Z, _Z)
            return 0, nlb, -1, 0, 0

    # ---- general case ----
    (ctx_on, ctx_side, ctx_mF, loc2glob, glob2loc, pg_valid, cg_valid, Gbuf, colsT, Gtmp,
     l2g_tmp, g2l_tmp, lws, cur, prev_mask, lst, inc_ok, rowbuf, diag) = ctx
    meta[M_NGEN] += 1
    m = Xb.shape[0]
    tot = np.int64(0)
    for c in range(cnt.shape[0]):
        tot += cnt[c]
    fl = feats[level]
    nF = 0
    for ff in range(m):
        col = Xb[ff]
        s = np.int64(0)
        for w in range(mask.shape[0]):
            s += np.int64(popcnt(mask[w] & col[w]))
        if s > 0 and s < tot:
            fl[nF] = ff
            nF += 1
    use_ctx = d == 3
    if use_ctx:
        # counters context for the depth-two children
        g2l = glob2loc[level]
        for k in range(ctx_mF[level]):
            g2l[loc2glob[level, k]] = -1
        for k in range(nF):
            loc2glob[level, k] = fl[k]
            g2l[fl[k]] = k
        ctx_mF[level] = nF
        ctx_on[level] = 1
        ctx_side[level] = side
        pg_valid[level] = 0
        inc_ok[level, 0] = 0
        inc_ok[level, 1] = 0

    best = INF
    bf = np.int64(-1)
    bnl = np.int64(0)
    bnr = np.int64(0)
    if leaf <= ub:
        best = leaf
        ub = leaf - 1
        cap = _node_cap(lb, ub, A, B, n)
        if cap < n:
            n = cap
    refined = INF
    half = (np.int64(1) << (d - 1)) - 1
    c0 = cnts[level + 1, 0]
    c1 = cnts[level + 1, 1]
    timed_out = False
    for k in range(nF):
        if best <= lb or n < 1:
            break
        lo = max(np.int64(0), n - 1 - half)
        hi = min(half, n - 1)
        ff = fl[k]
        a1, a2, b1, b2 = _split_children(mask, Xb[ff], masks[level + 1, 0], masks[level + 1, 1],
                                         cws, salt, c0, c1)
        hs[level + 1, 0, 0] = a1
        hs[level + 1, 0, 1] = a2
        hs[level + 1, 1, 0] = b1
        hs[level + 1, 1, 1] = b2
        if use_ctx:
            cg_valid[level, 0] = 0
            cg_valid[level, 1] = 0
        lmL = _leaf_mis(c0)
        lmR = _leaf_mis(c1)
        first = 0 if lmL >= lmR else 1
        nn = n
        for nL in range(lo, hi + 1):
            nR = nn - 1 - nL
            lbL = _child_lb(store, cnts, hs, level + 1, _Z, d - 1, nL, A, B)
            lbR = _child_lb(store, cnts, hs, level + 1, _1, d - 1, nR, A, B)
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
            st1, v1, _f1, _l1, _r1 = _solve(dat, buf, ctx, store, meta, A, B, deadline,
                                             level + 1, first, d - 1, n1, ub - lb2 - B)
            if st1 < 0:
                timed_out = True
                break
            if st1 == 0:
                if v1 + lb2 + B < refined:
                    refined = v1 + lb2 + B
                continue
            st2, v2, _f2, _l2, _r2 = _solve(dat, buf, ctx, store, meta, A, B, deadline,
                                             level + 1, 1 - first, d - 1, n2, ub - v1 - B)
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
            cap = _node_cap(lb, ub, A, B, n)
            if cap < n:
                n = cap  # the next features search smaller budgets
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
        ctx_on[level] = 0
    if timed_out:
        return -1, best, bf, bnl, bnr
    if best < INF:
        _cache_put(store, meta, h1, h2, d0, n0, best, best, bf, bnl, bnr)
        _sim_push(simm, simh, simv, simnext, level, mask, h1, h2)
        return 1, best, bf, bnl, bnr
    newlb = min(refined, leaf)
    if lb > newlb:
        newlb = lb
    if n0 != n or d0 != d:
        # refined bounds hold for the capped budgets; (d0, n0) only gets ub0 + 1
        _cache_put(store, meta, h1, h2, d, n, newlb, _M1, _M1, _Z, _Z)
        newlb = max(lb, ub0 + 1)
    _cache_put(store, meta, h1, h2, d0, n0, newlb, _M1, _M1, _Z, _Z)
    _sim_push(simm, simh, simv, simnext, level, mask, h1, h2)
    return 0, newlb, -1, 0, 0


@njit(cache=True)
def _prepare_children(dat, buf, level, side, f):
    """Write the two children of (level, side) on feature f into level + 1."""
    Xb, cws, indptr, indices, salt, cls_of_word, dens = dat
    masks, cnts, hs, simm, simh, simv, simnext, feats = buf
    a1, a2, b1, b2 = _split_children(masks[level, side], Xb[f], masks[level + 1, 0],
                                     masks[level + 1, 1], cws, salt, cnts[level + 1, 0],
                                     cnts[level + 1, 1])
    hs[level + 1, 0, 0] = a1
    hs[level + 1, 0, 1] = a2
    hs[level + 1, 1, 0] = b1
    hs[level + 1, 1, 1] = b2


@njit(cache=True)
def _decision(dat, buf, ctx, store, meta, A, B, level, side, d, n):
    """Optimal root decision (feature, nl, nr) of a subproblem from the cache, or from
    the depth-two solver for d <= 2; feature -2 when a d >= 3 record is missing."""
    masks, cnts, hs, simm, simh, simv, simnext, feats = buf
    d, n = _norm(d, n)
    if d == 0 or _leaf_mis(cnts[level, side]) == 0:
        return np.int64(-1), np.int64(0), np.int64(0)
    lb, cost, f, nl, nr = _cache_query(store, hs[level, side, 0], hs[level, side, 1], d, n)
    if cost >= 0:
        return f, nl, nr
    if d > 2:
        return np.int64(-2), np.int64(0), np.int64(0)
    st, v, f, nl, nr = _solve_d2(dat, buf, ctx, store, meta, A, B, level, side, d, n, INF)
    return f, nl, nr


@njit(cache=True)
def _build(dat, buf, ctx, store, meta, A, B, d, n, greedy, feature, left, right, counts):
    """The tree of the root subproblem (level 0), pre-order, into the node arrays.

    ``greedy = 0``: the optimal tree, rebuilt top-down from the cache (depth <= 2
    subtrees recomputed by the depth-two solver). ``greedy = 1``: a quick
    heuristic tree, the root of the optimal depth-two tree, recursively, and the
    optimal tree once two levels are left. Returns the number of nodes, or -1
    when a cached decision is missing (the caller then asks ``_solve``).
    """
    Xb, cws, indptr, indices, salt, cls_of_word, dens = dat
    masks, cnts, hs, simm, simh, simv, simnext, feats = buf
    C = cnts.shape[2]
    L = masks.shape[0]
    # stack of (level, side, d, n, parent, is_right)
    stk = np.empty((2 * L + 2, 6), dtype=np.int64)
    top = 0
    stk[0, 0] = 0
    stk[0, 1] = 0
    stk[0, 2] = d
    stk[0, 3] = n
    stk[0, 4] = -1
    stk[0, 5] = 0
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
                left[parent] = k
            else:
                right[parent] = k
        if greedy != 0 and dd > 2:
            f, _a, _b = _decision(dat, buf, ctx, store, meta, A, B, level, side, np.int64(2),
                                  min(nn, np.int64(3)))
            half = (np.int64(1) << (dd - 1)) - 1
            nl = min(half, nn // 2)
            nr = min(half, nn - 1 - nl)
        else:
            f, nl, nr = _decision(dat, buf, ctx, store, meta, A, B, level, side, dd, nn)
            if f == -2:
                return np.int64(-1)
        feature[k] = f
        left[k] = -1
        right[k] = -1
        for c in range(C):
            counts[k, c] = cnts[level, side, c]
        if f >= 0:
            _prepare_children(dat, buf, level, side, f)
            # right first on the stack: the left subtree is built first (pre-order); it
            # writes only deeper levels, so the right child's mask survives
            stk[top, 0] = level + 1
            stk[top, 1] = 1
            stk[top, 2] = dd - 1
            stk[top, 3] = nr
            stk[top, 4] = k
            stk[top, 5] = 1
            top += 1
            stk[top, 0] = level + 1
            stk[top, 1] = 0
            stk[top, 2] = dd - 1
            stk[top, 3] = nl
            stk[top, 4] = k
            stk[top, 5] = 0
            top += 1
        k += 1
    return np.int64(k)


@njit(cache=True)
def _set_root(dat, buf, root_mask):
    """Write the full data set as the root subproblem (level 0, side 0)."""
    Xb, cws, indptr, indices, salt, cls_of_word, dens = dat
    masks, cnts, hs, simm, simh, simv, simnext, feats = buf
    for w in range(root_mask.shape[0]):
        masks[0, 0, w] = root_mask[w]
    for c in range(cws.shape[0] - 1):
        s = np.int64(0)
        for w in range(cws[c], cws[c + 1]):
            s += np.int64(popcnt(root_mask[w]))
        cnts[0, 0, c] = s
    hs[0, 0, 0], hs[0, 0, 1] = _hash_mask(root_mask, salt)


class SearchState:
    """All buffers of one search (numba-friendly tuples of arrays).

    Note: the recursive ``_solve`` is only ever called from Python (numba's
    on-disk cache cannot reload a jitted caller of a recursive function).
    """

    def __init__(self, Xb, cws, indptr, indices, salt, cls_of_word, dens, max_depth,
                 cache_bits=16, counter_memory=1 << 28):
        m, W = Xb.shape
        C = cws.shape[0] - 1
        L = max_depth + 2
        self.buf = (
            np.zeros((L, 2, W), dtype=np.uint64),  # masks
            np.zeros((L, 2, C), dtype=np.int64),  # class counts
            np.zeros((L, 2, 2), dtype=np.int64),  # hashes
            np.zeros((L, 2, W), dtype=np.uint64),  # similarity: masks
            np.zeros((L, 2, 2), dtype=np.int64),  # similarity: hashes
            np.zeros((L, 2), dtype=np.int64),  # similarity: valid
            np.zeros(L, dtype=np.int64),  # similarity: next slot
            np.zeros((L, max(m, 1)), dtype=np.int64),  # feature lists
        )
        # counter matrices of the open depth-three node (only one is open at a time):
        # parent, and two per side (current and previous, for row updates); three
        # when five would take too much memory (row updates are then disabled)
        slots = 5 if 5 * C * m * m * 4 <= counter_memory else 3
        dens = np.array([dens[0], 1.0 if slots == 5 else 0.0], dtype=np.float64)
        self.dat = (Xb, cws, indptr, indices, salt, cls_of_word, dens)
        counters = np.zeros((slots, C, m, m), dtype=np.int32)
        self.ctx = (
            np.zeros(L, dtype=np.int64),  # ctx_on
            np.zeros(L, dtype=np.int64),  # ctx_side
            np.zeros(L, dtype=np.int64),  # ctx_mF
            np.zeros((L, m), dtype=np.int64),  # loc2glob
            -np.ones((L, m), dtype=np.int64),  # glob2loc
            np.zeros(L, dtype=np.int64),  # pg_valid
            np.zeros((L, 2), dtype=np.int64),  # cg_valid
            counters,  # counter matrices
            np.zeros((W + C, m), dtype=np.uint64),  # compacted columns
            counters[0],  # counters without an open depth-three node (slot 0 is free then)
            np.zeros(m, dtype=np.int64),  # l2g_tmp
            -np.ones(m, dtype=np.int64),  # g2l_tmp
            np.zeros(C + 1, dtype=np.int64),  # local class word starts
            np.zeros((L, 2), dtype=np.int64),  # current counter slot per side
            np.zeros((L, 2, W), dtype=np.uint64),  # mask of the last counters per side
            np.zeros(max(m, 1), dtype=np.int64),  # row feature list
            np.zeros((L, 2), dtype=np.int64),  # incremental update allowed
            np.zeros((C, max(m, 1)), dtype=np.int32),  # depth-two solver: counter rows
            np.zeros((C, max(m, 1)), dtype=np.int32),  # depth-two solver: diagonals
        )
        tab = np.empty((1 << cache_bits, 3), dtype=np.int64)
        tab[:, 2] = -1
        self.store = (tab, np.empty((1 << (cache_bits - 1), R_WIDTH), dtype=np.int64))
        self.meta = np.zeros(M_SIZE, dtype=np.int64)
        self.meta[M_RB_COST] = INF

    def grow(self):
        """Four times the cache capacity (after a search stopped on a full cache)."""
        tab, recs = self.store
        if 8 * (self.meta[M_TABN] + 1) > 3 * tab.shape[0]:
            tab = _rehash(tab, 4 * tab.shape[0])
        if 4 * self.meta[M_RECN] >= 3 * recs.shape[0]:
            bigger = np.empty((4 * recs.shape[0], R_WIDTH), dtype=np.int64)
            bigger[: recs.shape[0]] = recs
            recs = bigger
        self.store = (tab, recs)
        self.meta[M_TIMEOUT] = 0

    def set_root(self, root_mask):
        _set_root(self.dat, self.buf, root_mask)

    def solve(self, level, side, d, n, ub, A, B, deadline):
        """Run the search on subproblem (level, side); see ``_solve``."""
        return _solve(self.dat, self.buf, self.ctx, self.store, self.meta, np.int64(A),
                      np.int64(B), float(deadline), np.int64(level), np.int64(side),
                      np.int64(d), np.int64(n), np.int64(ub))

    def build(self, d, n, A, B, greedy):
        """(feature, left, right, counts) of the optimal (or greedy) tree, or None when a
        cached decision is missing; see ``_build``."""
        K = (1 << (d + 1)) - 1
        C = self.buf[1].shape[2]
        feature = np.empty(K, dtype=np.int64)
        left = np.empty(K, dtype=np.int64)
        right = np.empty(K, dtype=np.int64)
        counts = np.empty((K, C), dtype=np.int64)
        k = _build(self.dat, self.buf, self.ctx, self.store, self.meta, np.int64(A),
                   np.int64(B), np.int64(d), np.int64(n), np.int64(1 if greedy else 0),
                   feature, left, right, counts)
        if k < 0:
            return None
        return feature[:k], left[:k], right[:k], counts[:k]

    def prepare_children(self, level, side, f):
        _prepare_children(self.dat, self.buf, np.int64(level), np.int64(side), np.int64(f))

    def counts(self, level, side):
        return self.buf[1][level, side].copy()
