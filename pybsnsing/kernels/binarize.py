"""Numba kernels for binarizing a numeric column (R's ``binarize.numeric``).

The kernels work on plain arrays only.  The counting arrays are prepared by the
caller with :func:`numpy.searchsorted` on the node's sorted x values:

* ``cnt_lt[i]`` = #(x < cut[i]),
* ``cnt_le[i]`` = #(x <= cut[i]).
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, error_model="numpy", inline="always")
def _thin(cnt_lt, cnt_le, m, n, bsize, up, keep):
    """R's thinning walk over the ``m`` ascending cuts: sets ``keep[i]`` (False on entry)
    for the cuts it keeps.

    ``up``: from the smallest cut up to the second largest, counting the x values strictly
    between the previously kept (smaller) cut, or -inf, and this cut; else from the largest
    down to the second smallest, counting those strictly between this cut and the
    previously kept (larger) cut, or +inf (``n`` values in all).  A cut is kept when the
    count is at least ``bsize``; the cut the walk does not reach is always kept.
    """
    prev = -1
    for t in range(m - 1):
        i = t if up else m - 1 - t
        if prev < 0:
            cnt = cnt_lt[i] if up else n - cnt_le[i]
        else:
            cnt = cnt_lt[i] - cnt_le[prev] if up else cnt_lt[prev] - cnt_le[i]
            if cnt < 0:
                cnt = 0
        if cnt >= bsize:
            keep[i] = True
            prev = i
    keep[m - 1 if up else 0] = True


@njit(cache=True, nogil=True, error_model="numpy")
def thin_gt_kernel(cnt_lt: np.ndarray, cnt_le: np.ndarray, bsize: int) -> np.ndarray:
    """Which ``>`` cuts (ascending) R's thinning keeps, as a boolean mask.

    Walks the cuts in ascending order except the last; a cut is kept when the
    number of x values strictly between the previously kept cut (or -inf) and
    this cut is at least ``bsize``.  The last cut is always kept.  (Development versions
    of bsnsing stopped the walk once ``segments - 1`` cuts were kept; 1.0.1 has that line
    commented out, "Let the subsampling continue", so more cuts than segments may stay.)
    """
    m = cnt_lt.shape[0]
    keep = np.zeros(m, dtype=np.bool_)
    _thin(cnt_lt, cnt_le, m, 0, bsize, True, keep)
    return keep


@njit(cache=True, nogil=True, error_model="numpy")
def thin_lt_kernel(cnt_lt: np.ndarray, cnt_le: np.ndarray, n: int, bsize: int) -> np.ndarray:
    """Which ``<`` cuts (ascending) R's thinning keeps, as a boolean mask.

    The mirror image of :func:`thin_gt_kernel`: walks down from the largest cut
    to the second smallest, counting x values strictly between this cut and the
    previously kept (larger) cut (or +inf); the smallest cut is always kept.
    """
    m = cnt_lt.shape[0]
    keep = np.zeros(m, dtype=np.bool_)
    _thin(cnt_lt, cnt_le, m, n, bsize, False, keep)
    return keep


@njit(cache=True, error_model="numpy", inline="always")
def _column_values(X, ordv, oj, j, given, oxs):
    """Column ``j``'s values in the node's sorted order ``oj``: row ``j`` of the carried
    ``ordv`` when ``given``, else read by row id from ``X`` into the scratch ``oxs``."""
    if given:
        return ordv[j]
    xj = X[:, j]
    for i in range(oj.shape[0]):
        oxs[i] = xj[oj[i]]
    return oxs


@njit(cache=True, error_model="numpy", inline="always")
def _walk_position(gpos, lpos, mc, t, upw):
    """The position of the thinning walk's ``t``-th cut (of ``mc``): the ``>`` cuts
    ``gpos`` walked up, the ``<`` cuts ``lpos`` walked down."""
    return gpos[t] if upw else lpos[mc - 1 - t]


# ---------------------------------------------------------------------------------------
# all questions of a node in one call (the unweighted numeric columns of the tree)
#
# Written for a short compile (numba compiles it at the first fit; about 2 s of CPU):
# no helper functions besides the inlined _thin, _column_values and _walk_position and
# no numpy functions besides np.empty (searchsorted as short scans of the sorted column,
# R's round() of the thinning's bin size in integers), 1-d int64 and float64 arrays (and
# the node's 2-d values), one return type. The rare cases go back to the column-by-column Python
# code (NQ_FALLBACK).

#: ``node_questions_kernel`` status codes (``status[0]``); ``status[1]`` is the column
NQ_OK, NQ_TRIMMED, NQ_NSEG_FACTOR, NQ_FALLBACK = 0, 1, 2, 3


@njit(cache=True, nogil=True, error_model="numpy")
def node_questions_kernel(
    X: np.ndarray,
    ordv: np.ndarray,
    y: np.ndarray,
    ordm: np.ndarray,
    target: int,
    segs: int,
    node_size: float,
    num2factor: float,
    nf: int,
    bin_size: float,
    nseg_factor: float,
    keep_perfect: bool,
):
    """Every question of a node whose columns are all numeric, unweighted, in R's order
    (the inequality questions of every column, then the factor-like ones, then the binary
    ones): what :func:`pybsnsing.questions.question_set_from_orders` builds column by
    column, as flat arrays.

    ``X``: values by row id (Fortran order); ``ordv``: (p, n) the node's values of each
    column in sorted order (``ordv[j, i] = X[ordm[j, i], j]``: read in order, where a
    gather by row id reads at random), or any other shape, e.g. (0, 0): gathered from
    ``X`` column by column into one scratch array; ``y``: 0/1 by row id; ``ordm``: (p, n)
    the node's row ids sorted stably by each column; ``nf``: ``min(n, num2factor)`` (a
    bound of the factor-like questions of a column).

    Returns ``(cols, kinds, base, proc, rptr, vals, rlo, rhi, status)``: ``status[3]``
    questions and ``status[4]`` answer ranges were written (the arrays are longer; kinds
    are the codes of :data:`pybsnsing.questions.KINDS`). ``status[0]`` is ``NQ_OK``, or
    for column ``status[1]``: ``NQ_TRIMMED`` (R's "This should not happen"),
    ``NQ_NSEG_FACTOR`` (``status[2]`` distinct values), or ``NQ_FALLBACK``: a
    factor-like column has two values that may print alike (R then shares one question
    between them), a class is missing, or ``keep_perfect`` and a column separates the
    classes (the perfect rule); the caller then builds the node column by column.
    """
    p = ordm.shape[0]
    n = ordm.shape[1]
    mq = p * (n + 2 * nf + 6) + 1
    cols = np.empty(mq, np.int64)
    kinds = np.empty(mq, np.int64)
    base = np.empty(mq, np.int64)
    proc = np.empty(mq, np.int64)
    rptr = np.empty(mq + 1, np.int64)
    vals = np.empty(mq, np.float64)
    rlo = np.empty(mq, np.int64)
    rhi = np.empty(mq, np.int64)
    status = np.empty(5, np.int64)
    for k in range(5):
        status[k] = 0
    oy = np.empty(n, np.uint8)  # the labels in the column's order (one gather)
    given = ordv.shape[0] == p and ordv.shape[1] == n
    oxs = np.empty(0 if given else n, np.float64)  # the gathered values of a column
    # the kept cuts: value and #(x <= c) of the > cuts, value and #(x < c) of the < cuts
    gcut = np.empty(n, np.float64)
    lcut = np.empty(n, np.float64)
    gle = np.empty(n + 1, np.int64)
    llt = np.empty(n + 1, np.int64)
    gpos = np.empty(n, np.int64)  # positions of the > and < cuts
    lpos = np.empty(n, np.int64)
    cls = np.empty(p, np.int64)  # 0: inequalities only, 1: also factor-like, 2: binary
    k0s = np.empty(p, np.int64)
    m = 0  # questions written
    r = 0  # ranges written
    rptr[0] = 0
    for j in range(p):
        oj = ordm[j]
        ox = _column_values(X, ordv, oj, j, given, oxs)
        n1 = 0
        k0 = 0  # #(x <= 0)
        k1 = 0  # #(x < 1)
        nuniq = 0
        prev = 0.0
        for i in range(n):  # (without branches: the labels are unpredictable)
            rid = oj[i]
            v = ox[i]
            yi = y[rid]
            oy[i] = yi
            nuniq += (i == 0) | (v != prev)
            prev = v
            n1 += yi == 1
            k0 += v <= 0.0
            k1 += v < 1.0
        # class extremes (R compares y == 1): the first and last value of each class
        min1 = max1 = min0 = max0 = 0.0
        if 0 < n1 < n:
            a = 0
            while oy[a] != 1:
                a += 1
            min1 = ox[a]
            a = n - 1
            while oy[a] != 1:
                a -= 1
            max1 = ox[a]
            a = 0
            while oy[a] == 1:
                a += 1
            min0 = ox[a]
            a = n - 1
            while oy[a] == 1:
                a -= 1
            max0 = ox[a]
        cls[j] = 0
        lo_v = ox[0]
        hi_v = ox[n - 1]
        if (lo_v == 0.0 or lo_v == 1.0) and (hi_v == 0.0 or hi_v == 1.0) and k0 == k1:
            cls[j] = 2
            k0s[j] = k0
            continue
        if n1 == 0 or n1 == n:
            status[0] = NQ_FALLBACK
            status[1] = j
            return cols, kinds, base, proc, rptr, vals, rlo, rhi, status
        if (min0 < min1 and max0 < min1) or (min1 < min0 and max1 < min0):
            if keep_perfect:  # (the perfect rule of quirk Q5: built column by column)
                status[0] = NQ_FALLBACK
                status[1] = j
                return cols, kinds, base, proc, rptr, vals, rlo, rhi, status
        else:
            # trim the useless ends: R keeps lo <= x <= up
            maxmin = min1 if min1 >= min0 else min0
            minmax = max1 if max1 <= max0 else max0
            a = 0
            while a < n and ox[a] < maxmin:
                a += 1
            lo = ox[a - 1] if a > 0 else maxmin
            a = n
            while a > 0 and ox[a - 1] > minmax:
                a -= 1
            up = ox[a] if a < n else minmax
            start = 0
            while start < n and ox[start] < lo:
                start += 1
            stop = n
            while stop > 0 and ox[stop - 1] > up:
                stop -= 1
            if stop - start < 2:
                status[0] = NQ_TRIMMED
                status[1] = j
                return cols, kinds, base, proc, rptr, vals, rlo, rhi, status
            # A cut c = (x[i] + x[i+1]) / 2 between two distinct values whose labels
            # differ: a > cut where the upper row is the target, else a < cut. Their
            # positions i, ascending (written without branches: most positions are cuts
            # in noisy data).
            g = 0
            el = 0
            t1 = oy[start] == target
            for i in range(start, stop - 1):
                t0 = t1
                t1 = oy[i + 1] == target
                cut = (t0 != t1) & (ox[i] != ox[i + 1])
                gpos[g] = i
                lpos[el] = i
                g += cut & t1
                el += cut & (not t1)
            for d in range(2):  # R's thinning: the > cuts (walking up), the < cuts (down)
                upw = d == 0
                mc = g if upw else el
                if mc == 0:
                    continue
                bsize = -1  # (mc <= segs: every cut kept)
                if mc > segs:  # the bin size: R's round() (half to even) of count / segs
                    i = _walk_position(gpos, lpos, mc, mc - 1, upw)
                    c = (ox[i] + ox[i + 1]) / 2
                    a = i + 1
                    while a > 0 and ox[a - 1] >= c:
                        a -= 1
                    b = i + 1
                    while b < n and ox[b] <= c:
                        b += 1
                    num = a if upw else n - b
                    bsize = num // segs
                    rem = 2 * (num - bsize * segs)
                    if rem > segs or (rem == segs and bsize % 2 == 1):
                        bsize += 1
                # R keeps a cut when at least bsize values lie strictly between it and
                # the previously kept one (or the end the walk starts from); the last cut
                # of the walk is always kept; then cuts %in% kept cuts: every cut equal to
                # a kept one is written (a run of equal cuts, adjacent in the walk: the
                # cuts never decrease along it). Only kept cuts change the walk's state,
                # and a cut at position i has #(x < c) <= i + 1 <= #(x <= c): while that
                # bound leaves fewer than bsize values (bsize > 0), the cut is not kept
                # and is passed over unread (most cuts, when many are thinned to few).
                pa = -1  # counts of the previously kept cut (pa < 0: none yet)
                pb = 0
                out = 0
                done = 0  # the cuts before this one are decided and written
                t = 0
                while t < mc:
                    if bsize > 0:
                        while t < mc - 1:
                            i = _walk_position(gpos, lpos, mc, t, upw)
                            if upw:
                                most = i + 1 if pa < 0 else i + 1 - pb
                            else:
                                most = n - i - 1 if pa < 0 else pa - i - 1
                            if most >= bsize:
                                break
                            t += 1
                    i = _walk_position(gpos, lpos, mc, t, upw)
                    c = (ox[i] + ox[i + 1]) / 2
                    a = i + 1  # #(x < c), #(x <= c): i + 1 unless c rounds onto a value
                    while a > 0 and ox[a - 1] >= c:
                        a -= 1
                    b = i + 1
                    while b < n and ox[b] <= c:
                        b += 1
                    if t == mc - 1 or bsize < 0:
                        kept = True
                    else:
                        if pa < 0:
                            cnt = a if upw else n - b
                        else:
                            cnt = a - pb if upw else pa - b
                            if cnt < 0:
                                cnt = 0
                        kept = cnt >= bsize
                    if not kept:
                        t += 1
                        continue
                    pa = a
                    pb = b
                    # the run of cuts equal to this one (their counts are this one's; the
                    # later ones count no value since this cut, so none changes the state)
                    first = c  # (the value written: the run's first cut, e.g. -0.0)
                    run_lo = t
                    while run_lo > done:
                        i = _walk_position(gpos, lpos, mc, run_lo - 1, upw)
                        cv = (ox[i] + ox[i + 1]) / 2
                        if cv != c:
                            break
                        first = cv
                        run_lo -= 1
                    run_hi = t + 1
                    while run_hi < mc:
                        i = _walk_position(gpos, lpos, mc, run_hi, upw)
                        if (ox[i] + ox[i + 1]) / 2 != c:
                            break
                        run_hi += 1
                    for _ in range(run_hi - run_lo):  # the > cuts from the front, the < cuts
                        if upw:  # (walked down) from the back: both ascending
                            gcut[out] = first
                            gle[out] = b
                        else:
                            lcut[n - 1 - out] = first
                            llt[n - 1 - out] = a
                        out += 1
                    done = run_hi
                    t = run_hi
                if upw:
                    g = out
                else:
                    el = out
            # x > c: positions #(x <= c)..n-1, nested suffixes (base: the next larger cut)
            for k in range(g):
                q = m + k
                cols[q] = j
                kinds[q] = 0  # GT
                vals[q] = gcut[k]
                rlo[r + k] = gle[k]
                rhi[r + k] = gle[k + 1] if k < g - 1 else n
                base[q] = q + 1 if k < g - 1 else -1
                proc[m + g - 1 - k] = q
                rptr[q + 1] = r + k + 1
            m += g
            r += g
            # x < c: positions 0..#(x < c)-1, nested prefixes (base: the next smaller cut)
            lo0 = n - el  # (the < cuts were written at the back)
            for k in range(el):
                q = m + k
                cols[q] = j
                kinds[q] = 1  # LT
                vals[q] = lcut[lo0 + k]
                rlo[r + k] = llt[lo0 + k - 1] if k > 0 else 0
                rhi[r + k] = llt[lo0 + k]
                base[q] = q - 1 if k > 0 else -1
                proc[q] = q
                rptr[q + 1] = r + k + 1
            m += el
            r += el
        if nuniq <= num2factor:
            if nuniq > nseg_factor:
                status[0] = NQ_NSEG_FACTOR
                status[1] = j
                status[2] = nuniq
                return cols, kinds, base, proc, rptr, vals, rlo, rhi, status
            cls[j] = 1
    # factor-like columns: x=='v' for every value in order of first appearance, then one
    # x%in%c(...) of the values with fewer than bin_size rows (ascending)
    starts = gle  # scratch: run starts, first rows, runs by first appearance
    firsts = llt
    appear = gpos
    for j in range(p):
        if cls[j] != 1:
            continue
        u = 0
        oj = ordm[j]
        ox = _column_values(X, ordv, oj, j, given, oxs)
        for i in range(n):
            if i == 0 or ox[i] != ox[i - 1]:
                starts[u] = i
                firsts[u] = oj[i]  # (the stable order: the first appearance)
                u += 1
        starts[u] = n
        for a in range(u - 1):  # two values that may print alike (15 digits)
            lo = ox[starts[a]]
            hi = ox[starts[a + 1]]
            mag = hi if hi > -lo else -lo
            if hi - lo <= 2e-14 * mag:
                status[0] = NQ_FALLBACK
                status[1] = j
                return cols, kinds, base, proc, rptr, vals, rlo, rhi, status
        for a in range(u):  # insertion sort of the runs by first row (distinct row ids)
            b = a
            while b > 0 and firsts[appear[b - 1]] > firsts[a]:
                appear[b] = appear[b - 1]
                b -= 1
            appear[b] = a
        r0 = -1
        for a in range(u + 1):
            if a < u:
                v = appear[a]
                kinds[m] = 4  # EQ
                vals[m] = ox[starts[v]]
                rlo[r] = starts[v]
                rhi[r] = starts[v + 1]
                r += 1
            else:  # the %in% question, if some values are small
                r0 = r
                for w in range(u):
                    if starts[w + 1] - starts[w] < bin_size:
                        rlo[r] = starts[w]
                        rhi[r] = starts[w + 1]
                        r += 1
                if r == r0:
                    break
                kinds[m] = 5  # IN
                vals[m] = np.nan
            cols[m] = j
            base[m] = -1
            proc[m] = m
            rptr[m + 1] = r
            m += 1
    # binary columns: x==0 (the first k0 positions), x==1 (the rest)
    for j in range(p):
        if cls[j] != 2:
            continue
        for b in range(2):
            cols[m] = j
            kinds[m] = 6 + b  # BIN0, BIN1
            base[m] = -1
            proc[m] = m
            vals[m] = float(b)
            rlo[r] = 0 if b == 0 else k0s[j]
            rhi[r] = k0s[j] if b == 0 else n
            r += 1
            rptr[m + 1] = r
            m += 1
    status[3] = m
    status[4] = r
    return cols, kinds, base, proc, rptr, vals, rlo, rhi, status
