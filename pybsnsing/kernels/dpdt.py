"""Numba kernels of DPDT (Kohler, Akrour, Preux: "Interpretable Decision Tree Search as
a Markov Decision Process"): the greedy CART test generator, state children, and the
lower convex hulls of (tests, errors) that the dynamic programme backs up.

Plain arrays in and out (the driver is :mod:`pybsnsing.optimal.dpdt`):

* ``xt`` (p, N) float64: the transposed feature matrix; ``codes`` (N,) int64 class
  codes 0..C-1; ``xlx`` (N + 1,) float64 with ``xlx[k] = k * log(k)`` (0 for k = 0).
* A state in the continuous layout is ``ordm`` (p, n) int32: the state's rows sorted
  by each feature (ties in row order). A split partitions those lists stably, so a
  child's lists need no sorting.
* A state's row-set hash is the wrapping sum of two independent random 64-bit words
  per row (``rnd``, (2, N) uint64): 128 bits in all, additive, so a right child's
  hash is the parent's minus the left child's.
* A hull is a chain of vertices ``(T, E)`` with ``T`` (float64) strictly increasing
  and ``E`` (int64) strictly decreasing and strictly convex: ``E`` training errors,
  ``T`` the sum over split nodes of cost x rows (the expected number of tests times
  N). Every vertex keeps its provenance: the action (-1 = leaf, else the index of a
  test of the state) and the vertex indices in the two children's hulls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# criteria
ENTROPY = 0
GINI = 1


@njit(cache=True)
def xlogx_table(n):
    out = np.zeros(n + 1, dtype=np.float64)
    for k in range(2, n + 1):
        out[k] = k * np.log(k)
    return out


@njit(cache=True, inline="always")
def _node_score(ct, n, n_classes, ent, xlx):
    """n * impurity of a node of ``n`` rows from its class counts ``ct`` (exact, fixed
    class order): entropy (``ent``, from the table ``xlx``) or Gini."""
    if ent:
        s = xlx[n]
        for c in range(n_classes):
            s -= xlx[ct[c]]
        return s
    sq = 0.0
    for c in range(n_classes):
        sq += float(ct[c]) * float(ct[c])
    return n - sq / n


@njit(cache=True, inline="always")
def _midpoint(v0, v1):
    """The threshold between two sorted values: their midpoint, or the lower value when
    the midpoint rounds onto the upper one (as scikit-learn's CART)."""
    t = v0 / 2.0 + v1 / 2.0
    if t == v1 or not np.isfinite(t):
        t = v0
    return t


@njit(cache=True)
def best_split(xt, codes, ordm, a, b, n_classes, min_leaf, crit, xlx, cl, ct):
    """Best threshold split of the segment ``[a, b)`` of every row of ``ordm``.

    Returns ``(feature, k, threshold, improvement)``: the left part (``x <= threshold``)
    is the first ``k`` rows of the feature's segment. ``feature = -1`` when no split
    leaves ``min_leaf`` rows on each side. The first best split in (feature, position)
    order wins (scores are computed from the counts, so equal counts give equal
    scores); the threshold is the midpoint of the two values (the lower value when the
    midpoint rounds onto the upper one), as scikit-learn's CART.
    """
    p = ordm.shape[0]
    n = b - a
    ct[:] = 0
    for i in range(a, b):
        ct[codes[ordm[0, i]]] += 1
    ent = crit == ENTROPY
    parent = _node_score(ct, n, n_classes, ent, xlx)
    best = np.inf
    bj = -1
    bk = 0
    bthr = 0.0
    for j in range(p):
        xj = xt[j]
        row = ordm[j]
        if not xj[row[b - 1]] > xj[row[a]]:
            continue
        for c in range(n_classes):
            cl[c] = 0
        lo = a + min_leaf - 1
        hi = b - min_leaf - 1
        for i in range(a, lo):
            cl[codes[row[i]]] += 1
        v1 = xj[row[lo]]
        for i in range(lo, hi + 1):
            cl[codes[row[i]]] += 1
            v0 = v1
            v1 = xj[row[i + 1]]
            if v1 > v0:
                nl = i + 1 - a
                nr = n - nl
                if ent:
                    s = xlx[nl] + xlx[nr]
                    for c in range(n_classes):
                        s -= xlx[cl[c]] + xlx[ct[c] - cl[c]]
                else:
                    sl = 0.0
                    sr = 0.0
                    for c in range(n_classes):
                        sl += float(cl[c]) * float(cl[c])
                        r = float(ct[c] - cl[c])
                        sr += r * r
                    s = n - sl / nl - sr / nr
                if s < best:
                    best = s
                    bj = j
                    bk = nl
                    bthr = _midpoint(v0, v1)
    return bj, bk, bthr, parent - best


@njit(cache=True)
def _best_split_v(vals, cls, a, b, n_classes, min_leaf, ent, xlx, cl, ct):
    """:func:`best_split` on a segment of gathered sorted values ``vals`` (p, n) and
    their classes ``cls`` (p, n)."""
    p = vals.shape[0]
    n = b - a
    for c in range(n_classes):
        ct[c] = 0
    for i in range(a, b):
        ct[cls[0, i]] += 1
    parent = _node_score(ct, n, n_classes, ent, xlx)
    best = np.inf
    bj = -1
    bk = 0
    bthr = 0.0
    lo = a + min_leaf - 1
    hi = b - min_leaf - 1
    for j in range(p):
        vj = vals[j]
        cj = cls[j]
        if not vj[b - 1] > vj[a]:
            continue
        # A cut between two groups of equal values that are pure and of the same
        # class is never better than the cuts around them (impurity is strictly
        # concave: Fayyad & Irani's boundary points), so it is not scored (with
        # min_leaf = 1, where the cuts around it are admissible).
        for c in range(n_classes):
            cl[c] = 0
        g = -1  # class of the current group of equal values, -1 if mixed
        for i in range(a, hi + 1):
            ci = cj[i]
            cl[ci] += 1
            if i == a or vj[i] != vj[i - 1]:
                g = ci
            elif ci != g:
                g = -1
            if i < lo:
                continue
            v0 = vj[i]
            v1 = vj[i + 1]
            if not v1 > v0:
                continue
            if g >= 0 and min_leaf == 1:
                gn = cj[i + 1]
                k = i + 2
                while k < b and vj[k] == v1:
                    if cj[k] != gn:
                        gn = -1
                        break
                    k += 1
                if gn == g:
                    continue
            nl = i + 1 - a
            nr = n - nl
            if ent:
                sc = xlx[nl] + xlx[nr]
                for c in range(n_classes):
                    sc -= xlx[cl[c]] + xlx[ct[c] - cl[c]]
            else:
                sl = 0.0
                sr = 0.0
                for c in range(n_classes):
                    sl += float(cl[c]) * float(cl[c])
                    r = float(ct[c] - cl[c])
                    sr += r * r
                sc = n - sl / nl - sr / nr
            if sc < best:
                best = sc
                bj = j
                bk = nl
                bthr = _midpoint(v0, v1)
    return bj, bk, bthr, parent - best


@njit(cache=True)
def _pure_v(cls, a, b):
    c0 = cls[0, a]
    for i in range(a + 1, b):
        if cls[0, i] != c0:
            return False
    return True


@njit(cache=True)
def _partition_v(rows, vals, cls, a, b, j, k, mark, tr, tv, tc):
    """Stable in-place partition of ``[a, b)`` of every feature (rows, values and classes
    together): the first ``k`` rows of feature ``j``'s segment first."""
    p = rows.shape[0]
    for i in range(a, a + k):
        mark[rows[j, i]] = 1
    for f in range(p):
        if f == j:
            continue
        rf = rows[f]
        vf = vals[f]
        cf = cls[f]
        lo = a
        hi = 0
        for i in range(a, b):
            r = rf[i]
            if mark[r]:
                rf[lo] = r
                vf[lo] = vf[i]
                cf[lo] = cf[i]
                lo += 1
            else:
                tr[hi] = r
                tv[hi] = vf[i]
                tc[hi] = cf[i]
                hi += 1
        for i in range(hi):
            rf[lo + i] = tr[i]
            vf[lo + i] = tv[i]
            cf[lo + i] = tc[i]
    for i in range(a, a + k):
        mark[rows[j, i]] = 0


@njit(cache=True)
def cart_tests(xt, codes, n_classes, ordm_in, max_depth, max_leaves, min_leaf, crit, xlx,
               mark):
    """The split nodes of a greedy CART tree grown on a state's rows.

    ``max_leaves = 0``: depth-first to ``max_depth`` (the paper's DPDT-K), tests in
    pre-order (scikit-learn's node order). ``max_leaves >= 2``: best-first growth to
    that many leaves (scikit-learn's ``max_leaf_nodes``; the node with the largest
    weighted impurity decrease is split next), depth at most ``max_depth``, tests in
    the order they were made. A node is split when it is impure and some threshold
    leaves ``min_leaf`` rows on each side (even with zero gain, as scikit-learn).
    Returns ``(feature, threshold)`` arrays; a test is ``x[feature] <= threshold``.
    ``mark`` is a zeroed uint8 scratch array of length N (left zeroed).
    """
    p, n = ordm_in.shape
    work = ordm_in.copy()
    vals = np.empty((p, n), dtype=np.float64)
    cls = np.empty((p, n), dtype=np.int32)
    for f in range(p):
        xf = xt[f]
        for i in range(n):
            r = work[f, i]
            vals[f, i] = xf[r]
            cls[f, i] = codes[r]
    V = (work, vals, cls, mark, np.empty(n, dtype=np.int32), np.empty(n, dtype=np.float64),
         np.empty(n, dtype=np.int32))
    return _cart_grow(V, None, n, max_depth, max_leaves, min_leaf, n_classes,
                      crit == ENTROPY, xlx)


# The layout helpers of _cart_grow: numba prunes a branch on ``x is not None`` only when
# ``x`` is None, so each layout's code sits under its own test and the other layout's
# code is not compiled.


@njit(cache=True)
def _pure(V, B, a, b):
    """True when the rows ``[a, b)`` of the layout (see :func:`_cart_grow`) are of one
    class."""
    pure = False
    if V is not None:
        pure = _pure_v(V[2], a, b)
    if B is not None:
        pure = _pure_b(B[1], B[2], a, b)
    return pure


@njit(cache=True)
def _split(V, B, a, b, n_classes, min_leaf, ent, xlx, cl, ct):
    """The best split ``(feature, k, threshold, improvement)`` of the rows ``[a, b)`` of
    the layout (see :func:`_cart_grow`)."""
    best = (-1, 0, 0.0, 0.0)
    if V is not None:
        best = _best_split_v(V[1], V[2], a, b, n_classes, min_leaf, ent, xlx, cl, ct)
    if B is not None:
        best = _best_split_b(B[0], B[1], B[2], a, b, n_classes, min_leaf, ent, xlx, cl, ct,
                             B[4])
    return best


@njit(cache=True)
def _partition(V, B, a, b, j, k):
    """Partition the rows ``[a, b)`` of the layout (see :func:`_cart_grow`): the ``k``
    rows of the left side of the split on feature ``j`` first."""
    if V is not None:
        _partition_v(V[0], V[1], V[2], a, b, j, k, V[3], V[4], V[5], V[6])
    if B is not None:
        _partition_b(B[0], B[2], a, b, j, B[3])


@njit(cache=True, inline="always")
def _add_test(feats, thrs, nt, j, thr):
    """Append the test ``x[j] <= thr`` as test ``nt`` (the arrays doubled when full)."""
    if nt == feats.shape[0]:
        f2 = np.empty(2 * nt, dtype=np.int64)
        t2 = np.empty(2 * nt, dtype=np.float64)
        f2[:nt] = feats[:nt]
        t2[:nt] = thrs[:nt]
        feats = f2
        thrs = t2
    feats[nt] = j
    thrs[nt] = thr
    return feats, thrs


@njit(cache=True)
def _cart_grow(V, B, n, max_depth, max_leaves, min_leaf, n_classes, ent, xlx):
    """The greedy CART growth of :func:`cart_tests` on the ``n`` rows of a layout: ``V``
    the gathered sorted lists of :func:`cart_tests` (``(rows, values, classes, mark,
    tmp rows, tmp values, tmp classes)``) and ``B`` None, or ``V`` None and ``B`` the row
    indices of :func:`cart_tests_bin` (``(Xb, codes, rows, tmp, c1)``), read through
    :func:`_pure`, :func:`_split` and :func:`_partition`."""
    cl = np.zeros(n_classes, dtype=np.int64)
    ct = np.zeros(n_classes, dtype=np.int64)
    feats = np.empty(64, dtype=np.int64)
    thrs = np.empty(64, dtype=np.float64)
    nt = 0
    if max_leaves <= 0:
        sa = np.empty(2 * max_depth + 4, dtype=np.int64)
        sb = np.empty(2 * max_depth + 4, dtype=np.int64)
        sd = np.empty(2 * max_depth + 4, dtype=np.int64)
        sa[0] = 0
        sb[0] = n
        sd[0] = 0
        sp = 1
        while sp > 0:
            sp -= 1
            a = sa[sp]
            b = sb[sp]
            d = sd[sp]
            if d >= max_depth or b - a < 2 * min_leaf or _pure(V, B, a, b):
                continue
            j, k, thr, _imp = _split(V, B, a, b, n_classes, min_leaf, ent, xlx, cl, ct)
            if j < 0:
                continue
            feats, thrs = _add_test(feats, thrs, nt, j, thr)
            nt += 1
            if d + 1 < max_depth:
                _partition(V, B, a, b, j, k)
                sa[sp] = a + k
                sb[sp] = b
                sd[sp] = d + 1
                sp += 1
                sa[sp] = a
                sb[sp] = a + k
                sd[sp] = d + 1
                sp += 1
        return feats[:nt].copy(), thrs[:nt].copy()
    # best-first
    L = max_leaves
    fa = np.empty(L + 1, dtype=np.int64)
    fb = np.empty(L + 1, dtype=np.int64)
    fd = np.empty(L + 1, dtype=np.int64)
    fj = np.empty(L + 1, dtype=np.int64)
    fk = np.empty(L + 1, dtype=np.int64)
    ft = np.empty(L + 1, dtype=np.float64)
    fi = np.empty(L + 1, dtype=np.float64)
    nf = 0
    # frontier node: a splittable leaf with its best split
    j, k, thr, imp = (-1, 0, 0.0, 0.0)
    if max_depth > 0 and n >= 2 * min_leaf and not _pure(V, B, 0, n):
        j, k, thr, imp = _split(V, B, 0, n, n_classes, min_leaf, ent, xlx, cl, ct)
    if j >= 0:
        fa[0] = 0
        fb[0] = n
        fd[0] = 0
        fj[0] = j
        fk[0] = k
        ft[0] = thr
        fi[0] = imp
        nf = 1
    leaves = 1
    while leaves < L and nf > 0:
        q = 0
        for i in range(1, nf):
            if fi[i] > fi[q]:
                q = i
        a = fa[q]
        b = fb[q]
        d = fd[q]
        j = fj[q]
        k = fk[q]
        feats, thrs = _add_test(feats, thrs, nt, j, ft[q])
        nt += 1
        leaves += 1
        # remove q (keep creation order)
        for i in range(q, nf - 1):
            fa[i] = fa[i + 1]
            fb[i] = fb[i + 1]
            fd[i] = fd[i + 1]
            fj[i] = fj[i + 1]
            fk[i] = fk[i + 1]
            ft[i] = ft[i + 1]
            fi[i] = fi[i + 1]
        nf -= 1
        if leaves >= L or d + 1 >= max_depth:
            continue
        _partition(V, B, a, b, j, k)
        for side in range(2):
            ca = a if side == 0 else a + k
            cb = a + k if side == 0 else b
            if cb - ca < 2 * min_leaf or _pure(V, B, ca, cb):
                continue
            j2, k2, t2, i2 = _split(V, B, ca, cb, n_classes, min_leaf, ent, xlx, cl, ct)
            if j2 < 0:
                continue
            fa[nf] = ca
            fb[nf] = cb
            fd[nf] = d + 1
            fj[nf] = j2
            fk[nf] = k2
            ft[nf] = t2
            fi[nf] = i2
            nf += 1
    return feats[:nt].copy(), thrs[:nt].copy()


@njit(cache=True)
def best_cuts(xt, codes, n_classes, ordm, min_leaf):
    """Every feature's fewest-errors threshold split of a state (left + right majority
    errors over every cut between two distinct values leaving ``min_leaf`` rows or more
    on each side; the first, lowest, cut of a tie; the threshold as CART's):
    ``(errors, thresholds)``, each (p,); errors -1 for a feature without such a cut."""
    p, n = ordm.shape
    ct = np.zeros(n_classes, dtype=np.int64)
    for i in range(n):
        ct[codes[ordm[0, i]]] += 1
    cl = np.zeros(n_classes, dtype=np.int64)
    errs = np.full(p, -1, dtype=np.int64)
    thrs = np.zeros(p, dtype=np.float64)
    for j in range(p):
        xj = xt[j]
        row = ordm[j]
        cl[:] = 0
        for i in range(n - 1):
            cl[codes[row[i]]] += 1
            if xj[row[i + 1]] > xj[row[i]] and i + 1 >= min_leaf and n - i - 1 >= min_leaf:
                ml = 0
                mr = 0
                for c in range(n_classes):
                    if cl[c] > ml:
                        ml = cl[c]
                    r = ct[c] - cl[c]
                    if r > mr:
                        mr = r
                e = n - ml - mr
                if errs[j] < 0 or e < errs[j]:
                    errs[j] = e
                    thrs[j] = _midpoint(xj[row[i]], xj[row[i + 1]])
    return errs, thrs


@njit(cache=True)
def _fewest(errs):
    best = -1
    for e in errs:
        if e >= 0 and (best < 0 or e < best):
            best = e
    return best


@njit(cache=True)
def min_error_split(xt, codes, n_classes, ordm):
    """The fewest training errors (left + right majority errors) of any threshold split
    of a state (every cut between two distinct values of every feature); -1 if none."""
    return _fewest(best_cuts(xt, codes, n_classes, ordm, 1)[0])


@njit(cache=True)
def threshold_children(xt, codes, n_classes, ordm, feats, thrs, rnd):
    """Left children (``x[feature] <= threshold``) of every test of a state.

    Returns ``(k, counts, h)``: left sizes (B,), left class counts (B, C) and left
    row-set hashes (B, 2) as int64 (wrapping sums of ``rnd``).
    """
    B = feats.shape[0]
    n = ordm.shape[1]
    kk = np.zeros(B, dtype=np.int64)
    cnt = np.zeros((B, n_classes), dtype=np.int64)
    h = np.zeros((B, 2), dtype=np.uint64)
    for t in range(B):
        j = feats[t]
        thr = thrs[t]
        row = ordm[j]
        xj = xt[j]
        h0 = np.uint64(0)
        h1 = np.uint64(0)
        i = 0
        while i < n and xj[row[i]] <= thr:
            r = row[i]
            cnt[t, codes[r]] += 1
            h0 += rnd[0, r]
            h1 += rnd[1, r]
            i += 1
        kk[t] = i
        h[t, 0] = h0
        h[t, 1] = h1
    return kk, cnt, h.view(np.int64)


@njit(cache=True)
def threshold_child_orders(ordm, j, k, mark):
    """The sorted lists of the two children of the split "first ``k`` rows of feature
    ``j``'s list go left" (stable partitions of every row)."""
    p, n = ordm.shape
    left = np.empty((p, k), dtype=np.int32)
    right = np.empty((p, n - k), dtype=np.int32)
    for i in range(k):
        mark[ordm[j, i]] = 1
    for f in range(p):
        row = ordm[f]
        lo = 0
        hi = 0
        for i in range(n):
            r = row[i]
            if mark[r]:
                left[f, lo] = r
                lo += 1
            else:
                right[f, hi] = r
                hi += 1
    for i in range(k):
        mark[ordm[j, i]] = 0
    return left, right


@njit(cache=True)
def row_stats(rows, codes, n_classes, rnd):
    """Class counts and the two hash words of a row set."""
    cnt = np.zeros(n_classes, dtype=np.int64)
    h0 = np.uint64(0)
    h1 = np.uint64(0)
    for i in range(rows.shape[0]):
        r = rows[i]
        cnt[codes[r]] += 1
        h0 += rnd[0, r]
        h1 += rnd[1, r]
    h = np.empty(2, dtype=np.uint64)
    h[0] = h0
    h[1] = h1
    return cnt, h.view(np.int64)


@njit(cache=True)
def binary_children(Xb, rows, codes, n_classes, rnd):
    """For every 0/1 feature: class counts and row-set hash of the rows with x = 1.

    ``Xb`` (N, m) uint8. Returns ``(counts (m, C), h (m, 2) int64)``.
    """
    _kk, cnt, h = _column_sides(Xb, codes, n_classes, rows, None, rnd, None)
    return cnt, h


@njit(cache=True)
def _column_sides(Xb, codes, n_classes, rows, feats, rnd, zero):
    """Per test ``t`` on the 0/1 column ``feats[t]`` (column ``t`` when ``feats`` is None):
    the number, class counts and row-set hash of the rows ``rows`` on one side, ``x = 0``
    when ``zero`` is True, ``x = 1`` when it is None.  Returns ``(k, counts, h)`` as
    :func:`threshold_children`.  numba prunes the branches on ``feats`` and ``zero``."""
    B = Xb.shape[1] if feats is None else feats.shape[0]
    kk = np.zeros(B, dtype=np.int64)
    cnt = np.zeros((B, n_classes), dtype=np.int64)
    h = np.zeros((B, 2), dtype=np.uint64)
    for i in range(rows.shape[0]):
        r = rows[i]
        c = codes[r]
        r0 = rnd[0, r]
        r1 = rnd[1, r]
        xr = Xb[r]
        for t in range(B):
            x = xr[t] if feats is None else xr[feats[t]]
            if (x != 0) if zero is None else (x == 0):
                kk[t] += 1
                cnt[t, c] += 1
                h[t, 0] += r0
                h[t, 1] += r1
    return kk, cnt, h.view(np.int64)


@njit(cache=True)
def mask_stats(mask, rows, codes, n_classes, rnd):
    """Class counts and hash of ``rows[mask]`` (one test given as a boolean mask)."""
    cnt = np.zeros(n_classes, dtype=np.int64)
    h = np.zeros(2, dtype=np.uint64)
    for i in range(rows.shape[0]):
        if mask[i]:
            r = rows[i]
            cnt[codes[r]] += 1
            h[0] += rnd[0, r]
            h[1] += rnd[1, r]
    return cnt, h.view(np.int64)


# ---------------------------------------------------------------------------
# hulls
# ---------------------------------------------------------------------------


@njit(cache=True)
def combine_hull(n_cost, leaf_err, lid, rid, h_off, h_len, HT, HE, out_T, out_E, out_A,
                 out_L, out_R):
    """The lower convex hull of a state's (T, E) points.

    Candidates: the leaf ``(0, leaf_err)`` and, for every test ``a``, the Minkowski sum
    of the children's hulls (states ``lid[a]``, ``rid[a]``, stored at ``h_off``/``h_len``
    in ``HT``/``HE``) shifted by ``n_cost[a]`` (the test's cost times the state's rows).
    Writes the hull into ``out_*`` and returns its length. Ties: fewer tests first,
    then the leaf, then test order.
    """
    B = lid.shape[0]
    tot = 1
    for a in range(B):
        tot += h_len[lid[a]] + h_len[rid[a]] - 1
    cT = np.empty(tot, dtype=np.float64)
    cE = np.empty(tot, dtype=np.int64)
    cA = np.empty(tot, dtype=np.int64)
    cL = np.empty(tot, dtype=np.int64)
    cR = np.empty(tot, dtype=np.int64)
    cT[0] = 0.0
    cE[0] = leaf_err
    cA[0] = -1
    cL[0] = 0
    cR[0] = 0
    m = 1
    emax = leaf_err
    for a in range(B):
        lo = h_off[lid[a]]
        ln = h_len[lid[a]]
        ro = h_off[rid[a]]
        rn = h_len[rid[a]]
        i = 0
        j = 0
        while True:
            cT[m] = HT[lo + i] + HT[ro + j] + n_cost[a]
            cE[m] = HE[lo + i] + HE[ro + j]
            cA[m] = a
            cL[m] = i
            cR[m] = j
            if cE[m] > emax:
                emax = cE[m]
            m += 1
            if i == ln - 1 and j == rn - 1:
                break
            if i == ln - 1:
                j += 1
            elif j == rn - 1:
                i += 1
            else:
                dEL = float(HE[lo + i + 1] - HE[lo + i])
                dTL = HT[lo + i + 1] - HT[lo + i]
                dER = float(HE[ro + j + 1] - HE[ro + j])
                dTR = HT[ro + j + 1] - HT[ro + j]
                x = dEL * dTR
                y = dER * dTL
                if x < y:
                    i += 1
                elif y < x:
                    j += 1
                else:
                    i += 1
                    j += 1
    return _lower_hull(cT[:m], cE[:m], cA[:m], cL[:m], cR[:m], out_T, out_E, out_A, out_L,
                       out_R)


@njit(cache=True)
def _lower_hull(cT, cE, cA, cL, cR, out_T, out_E, out_A, out_L, out_R):
    m = cT.shape[0]
    # stable sort by (T, E): candidates are in (leaf, test order) order already
    order = np.argsort(cE, kind="mergesort")
    order = order[np.argsort(cT[order], kind="mergesort")]
    h = 0
    for q in range(m):
        k = order[q]
        T2 = cT[k]
        E2 = cE[k]
        if h > 0 and E2 >= out_E[h - 1]:
            continue
        while h >= 2:
            T0 = out_T[h - 2]
            E0 = out_E[h - 2]
            T1 = out_T[h - 1]
            E1 = out_E[h - 1]
            if float(E1 - E0) * (T2 - T0) >= float(E2 - E0) * (T1 - T0):
                h -= 1
            else:
                break
        out_T[h] = T2
        out_E[h] = E2
        out_A[h] = cA[k]
        out_L[h] = cL[k]
        out_R[h] = cR[k]
        h += 1
    return h


@njit(cache=True)
def points_hull(cT, cE, cA, out_T, out_E, out_A):
    """The lower convex hull of single points (a state whose children are leaves)."""
    z = np.zeros(cT.shape[0], dtype=np.int64)
    zo = np.zeros(out_T.shape[0], dtype=np.int64)
    return _lower_hull(cT, cE, cA, z, z, out_T, out_E, out_A, zo, zo)


# ---------------------------------------------------------------------------
# the CART generator on 0/1 features: a state is its row indices (no sorted lists);
# the same tests, thresholds (0.5), scores and ties as the threshold kernels above
# ---------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _ones_counts(Xb, codes, rows, a, b, ct, c1):
    """Class counts of ``rows[a:b]`` into ``ct`` and, per 0/1 column ``j``, of its rows with
    ``x_j = 1`` into ``c1[j]`` (both zeroed first)."""
    for c in range(ct.shape[0]):
        ct[c] = 0
    for j in range(c1.shape[0]):
        for c in range(c1.shape[1]):
            c1[j, c] = 0
    for i in range(a, b):
        r = rows[i]
        c = codes[r]
        ct[c] += 1
        xr = Xb[r]
        for j in range(c1.shape[0]):
            if xr[j]:
                c1[j, c] += 1


@njit(cache=True)
def _best_split_b(Xb, codes, rows, a, b, n_classes, min_leaf, ent, xlx, cl, ct, c1):
    """:func:`_best_split_v` for 0/1 columns on ``rows[a:b]``: the only cut of a column
    is ``x <= 0.5`` (left = x == 0); same score arithmetic and first-feature ties."""
    m = Xb.shape[1]
    n = b - a
    _ones_counts(Xb, codes, rows, a, b, ct, c1)
    parent = _node_score(ct, n, n_classes, ent, xlx)
    best = np.inf
    bj = -1
    bk = 0
    for j in range(m):
        nr = 0
        for c in range(n_classes):
            nr += c1[j, c]
        nl = n - nr
        if nr == 0 or nl == 0 or nl < min_leaf or nr < min_leaf:
            continue
        for c in range(n_classes):
            cl[c] = ct[c] - c1[j, c]
        if ent:
            sc = xlx[nl] + xlx[nr]
            for c in range(n_classes):
                sc -= xlx[cl[c]] + xlx[ct[c] - cl[c]]
        else:
            sl = 0.0
            sr = 0.0
            for c in range(n_classes):
                sl += float(cl[c]) * float(cl[c])
                rr = float(ct[c] - cl[c])
                sr += rr * rr
            sc = n - sl / nl - sr / nr
        if sc < best:
            best = sc
            bj = j
            bk = nl
    return bj, bk, 0.5, parent - best


@njit(cache=True)
def _pure_b(codes, rows, a, b):
    c0 = codes[rows[a]]
    for i in range(a + 1, b):
        if codes[rows[i]] != c0:
            return False
    return True


@njit(cache=True)
def _partition_b(Xb, rows, a, b, j, tmp):
    """Stable partition of ``rows[a:b]``: x_j == 0 first."""
    lo = a
    hi = 0
    for i in range(a, b):
        r = rows[i]
        if Xb[r, j] == 0:
            rows[lo] = r
            lo += 1
        else:
            tmp[hi] = r
            hi += 1
    for i in range(hi):
        rows[lo + i] = tmp[i]


@njit(cache=True)
def cart_tests_bin(Xb, codes, n_classes, rows_in, max_depth, max_leaves, min_leaf, crit,
                   xlx):
    """:func:`cart_tests` on 0/1 features ``Xb`` (N, m) uint8 for the rows ``rows_in``:
    the same tests in the same order (thresholds 0.5)."""
    n = rows_in.shape[0]
    B = (Xb, codes, rows_in.copy(), np.empty(n, dtype=rows_in.dtype),
         np.zeros((Xb.shape[1], n_classes), dtype=np.int64))
    return _cart_grow(None, B, n, max_depth, max_leaves, min_leaf, n_classes,
                      crit == ENTROPY, xlx)


@njit(cache=True)
def best_cuts_bin(Xb, codes, n_classes, rows, min_leaf):
    """:func:`best_cuts` on 0/1 features for the rows ``rows``: the errors of every
    feature's split (-1 where a side would hold fewer than ``min_leaf`` rows); the
    thresholds are all 0.5."""
    m = Xb.shape[1]
    n = rows.shape[0]
    ct = np.zeros(n_classes, dtype=np.int64)
    c1 = np.zeros((m, n_classes), dtype=np.int64)
    _ones_counts(Xb, codes, rows, 0, n, ct, c1)
    errs = np.full(m, -1, dtype=np.int64)
    for j in range(m):
        n1 = 0
        ml = 0
        mr = 0
        for c in range(n_classes):
            n1 += c1[j, c]
            if ct[c] - c1[j, c] > ml:
                ml = ct[c] - c1[j, c]
            if c1[j, c] > mr:
                mr = c1[j, c]
        if n1 < min_leaf or n - n1 < min_leaf:
            continue
        errs[j] = n - ml - mr
    return errs


@njit(cache=True)
def min_error_split_bin(Xb, codes, n_classes, rows):
    """:func:`min_error_split` on 0/1 features for the rows ``rows``."""
    return _fewest(best_cuts_bin(Xb, codes, n_classes, rows, 1))


@njit(cache=True)
def zero_children(Xb, codes, n_classes, rows, feats, rnd):
    """:func:`threshold_children` for the tests ``x[feature] <= 0.5`` on 0/1 features:
    left sizes, left class counts and left row-set hashes."""
    return _column_sides(Xb, codes, n_classes, rows, feats, rnd, True)
