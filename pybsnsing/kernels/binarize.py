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


@njit(cache=True, error_model="numpy")
def thin_gt_kernel(
    cnt_lt: np.ndarray, cnt_le: np.ndarray, bsize: int
) -> np.ndarray:
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


@njit(cache=True, error_model="numpy")
def thin_lt_kernel(
    cnt_lt: np.ndarray, cnt_le: np.ndarray, n: int, bsize: int
) -> np.ndarray:
    """Which ``<`` cuts (ascending) R's thinning keeps, as a boolean mask.

    The mirror image of :func:`thin_gt_kernel`: walks down from the largest cut
    to the second smallest, counting x values strictly between this cut and the
    previously kept (larger) cut (or +inf); the smallest cut is always kept.
    """
    m = cnt_lt.shape[0]
    keep = np.zeros(m, dtype=np.bool_)
    _thin(cnt_lt, cnt_le, m, n, bsize, False, keep)
    return keep


# ---------------------------------------------------------------------------------------
# all questions of a node in one call (the unweighted numeric columns of the tree)

#: ``node_questions_kernel`` status codes (``status[0]``); ``status[1]`` is the column
NQ_OK, NQ_TRIMMED, NQ_NSEG_FACTOR, NQ_FALLBACK = 0, 1, 2, 3
#: kind codes, as :data:`pybsnsing.questions.KINDS` numbers them
_GT, _LT, _GE, _LE, _EQ, _IN, _BIN0, _BIN1 = 0, 1, 2, 3, 4, 5, 6, 7


@njit(cache=True, error_model="numpy")
def _bisect(a: np.ndarray, v: float, right: bool) -> int:
    """``np.searchsorted(a, v, side)`` for an ascending ``a`` without NaN."""
    lo = 0
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] < v or (right and a[mid] == v):
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True, error_model="numpy")
def _thin_keep(ox: np.ndarray, cut: np.ndarray, pos: np.ndarray, m: int, segs: int,
               greater: bool, cnt_lt: np.ndarray, cnt_le: np.ndarray,
               keep: np.ndarray) -> int:
    """R's thinning of the ``m`` ascending cuts ``cut[:m]`` (midpoints of ``ox[pos]`` and
    ``ox[pos + 1]``), compacted in place (``cut`` and ``pos``); returns how many remain.

    The walk of :func:`thin_gt_kernel` / :func:`thin_lt_kernel`, then R's
    ``cutpoints[cutpoints %in% keep.cp]``: a cut stays when its value equals a kept one."""
    n = ox.shape[0]
    for i in range(m):
        c = cut[i]
        k = pos[i]
        cnt_lt[i] = _bisect(ox, c, False) if c <= ox[k] else k + 1
        cnt_le[i] = _bisect(ox, c, True) if c >= ox[k + 1] else k + 1
        keep[i] = False
    if greater:
        bsize = np.rint(cnt_lt[m - 1] / segs)
        last = -1
        for i in range(m - 1):
            cnt = cnt_lt[i] if last < 0 else max(cnt_lt[i] - cnt_le[last], 0)
            if cnt >= bsize:
                keep[i] = True
                last = i
        keep[m - 1] = True
    else:
        bsize = np.rint((n - cnt_le[0]) / segs)
        first = -1
        for i in range(m - 1, 0, -1):
            cnt = n - cnt_le[i] if first < 0 else max(cnt_lt[first] - cnt_le[i], 0)
            if cnt >= bsize:
                keep[i] = True
                first = i
        keep[0] = True
    out = 0
    i = 0
    while i < m:  # runs of equal cut values: all stay when one of them is kept
        e = i + 1
        any_kept = keep[i]
        while e < m and cut[e] == cut[i]:
            any_kept = any_kept or keep[e]
            e += 1
        if any_kept:
            for t in range(i, e):
                cut[out] = cut[t]
                pos[out] = pos[t]
                out += 1
        i = e
    return out


@njit(cache=True, error_model="numpy")
def node_questions_kernel(X: np.ndarray, y: np.ndarray, ordm: np.ndarray, target: int,
                          segs: int, node_size: float, num2factor: float, nf: int,
                          bin_size: float, nseg_factor: float, keep_perfect: bool):
    """Every question of a node whose columns are all numeric, unweighted, in R's order
    (the inequality questions of every column, then the factor-like ones, then the binary
    ones): what :func:`pybsnsing.questions.question_set_from_orders` builds column by
    column, as flat arrays.

    ``X``: values by row id (Fortran order); ``y``: 0/1 by row id; ``ordm``: (p, n) the
    node's row ids sorted stably by each column; ``nf``: ``min(n, num2factor)`` (a bound
    of the factor-like questions of a column). Returns ``(cols, kinds, values, base, rptr,
    rlo, rhi, proc, status)``; ``status[0]`` is ``NQ_OK``, or ``NQ_TRIMMED`` (R's "This
    should not happen") or ``NQ_NSEG_FACTOR`` (``status[2]`` distinct values) for column
    ``status[1]``, or ``NQ_FALLBACK``: a factor-like column has two values that may print
    alike (R then shares one question between them; the caller builds the node in Python).
    """
    p = ordm.shape[0]
    n = ordm.shape[1]
    mq = p * (n + 2 * nf + 6) + 1
    cols = np.empty(mq, np.int64)
    kinds = np.empty(mq, np.int8)
    vals = np.empty(mq, np.float64)
    base = np.empty(mq, np.int64)
    proc = np.empty(mq, np.int64)
    rptr = np.empty(mq + 1, np.int64)
    rlo = np.empty(mq, np.int64)
    rhi = np.empty(mq, np.int64)
    status = np.empty(3, np.int64)
    status[0] = NQ_OK
    status[1] = -1
    status[2] = 0
    ox = np.empty(n, np.float64)
    ty = np.empty(n, np.bool_)
    gcut = np.empty(n, np.float64)
    lcut = np.empty(n, np.float64)
    gpos = np.empty(n + 1, np.int64)  # (+1: the run starts of the factor-like pass)
    lpos = np.empty(n, np.int64)
    cnt_lt = np.empty(n, np.int64)
    cnt_le = np.empty(n, np.int64)
    keep = np.empty(n, np.bool_)
    cls = np.empty(p, np.int64)  # 0: inequalities only, 1: also factor-like, 2: binary
    k0s = np.empty(p, np.int64)
    m = 0  # questions written
    r = 0  # ranges written
    rptr[0] = 0
    for j in range(p):
        n1 = 0
        for i in range(n):
            rid = ordm[j, i]
            ox[i] = X[rid, j]
            t = y[rid] == 1
            n1 += t
            ty[i] = t if target == 1 else not t
        cls[j] = 0
        lo_v = ox[0]
        hi_v = ox[n - 1]
        if (lo_v == 0.0 or lo_v == 1.0) and (hi_v == 0.0 or hi_v == 1.0):
            k0 = _bisect(ox, 0.0, True)
            if k0 == _bisect(ox, 1.0, False):
                cls[j] = 2
                k0s[j] = k0
                continue
        # class extremes (ty marks the target class; y == 1 is what R compares)
        min1 = max1 = min0 = max0 = 0.0
        i1 = -1
        i0 = -1
        for i in range(n):
            if (y[ordm[j, i]] == 1):
                if i1 < 0:
                    min1 = ox[i]
                    i1 = i
                max1 = ox[i]
            else:
                if i0 < 0:
                    min0 = ox[i]
                    i0 = i
                max0 = ox[i]
        if i1 < 0 or i0 < 0:
            status[0] = NQ_FALLBACK
            status[1] = j
            return cols, kinds, vals, base, rptr, rlo, rhi, proc, status
        if (min0 < min1 and max0 < min1) or (min1 < min0 and max1 < min0):
            small = min(n1, n - n1)
            if small >= node_size and keep_perfect:
                if min0 < min1 and max0 < min1:
                    c = (max0 + min1) / 2
                    kinds[m] = _GE
                    rlo[r] = _bisect(ox, c, False)
                    rhi[r] = n
                else:
                    c = (max1 + min0) / 2
                    kinds[m] = _LE
                    rlo[r] = 0
                    rhi[r] = _bisect(ox, c, True)
                cols[m] = j
                vals[m] = c
                base[m] = -1
                proc[m] = m
                r += 1
                rptr[m + 1] = r
                m += 1
        else:
            maxmin = min1 if min1 >= min0 else min0
            minmax = max1 if max1 <= max0 else max0
            i = _bisect(ox, maxmin, False)
            lo = ox[i - 1] if i > 0 else maxmin
            i = _bisect(ox, minmax, True)
            up = ox[i] if i < n else minmax
            start = _bisect(ox, lo, False)
            stop = _bisect(ox, up, True)
            if stop - start < 2:
                status[0] = NQ_TRIMMED
                status[1] = j
                return cols, kinds, vals, base, rptr, rlo, rhi, proc, status
            g = 0
            el = 0
            for i in range(start, stop - 1):
                if ox[i] != ox[i + 1]:
                    if ty[i + 1] and not ty[i]:
                        gcut[g] = (ox[i] + ox[i + 1]) / 2
                        gpos[g] = i
                        g += 1
                    elif ty[i] and not ty[i + 1]:
                        lcut[el] = (ox[i + 1] + ox[i]) / 2
                        lpos[el] = i
                        el += 1
            if g > segs:
                g = _thin_keep(ox, gcut, gpos, g, segs, True, cnt_lt, cnt_le, keep)
            if el > segs:
                el = _thin_keep(ox, lcut, lpos, el, segs, False, cnt_lt, cnt_le, keep)
            # x > c: positions lo..n-1, nested suffixes (base: the next larger cut)
            for k in range(g):
                q = m + k
                cols[q] = j
                kinds[q] = _GT
                vals[q] = gcut[k]
                rlo[r + k] = _bisect(ox, gcut[k], True)
                base[q] = q + 1 if k < g - 1 else -1
                proc[m + g - 1 - k] = q
                rptr[q + 1] = r + k + 1
            for k in range(g - 1):
                rhi[r + k] = rlo[r + k + 1]
            if g:
                rhi[r + g - 1] = n
            m += g
            r += g
            # x < c: positions 0..hi-1, nested prefixes (base: the next smaller cut)
            for k in range(el):
                q = m + k
                cols[q] = j
                kinds[q] = _LT
                vals[q] = lcut[k]
                rhi[r + k] = _bisect(ox, lcut[k], False)
                rlo[r + k] = 0 if k == 0 else rhi[r + k - 1]
                base[q] = -1 if k == 0 else q - 1
                proc[q] = q
                rptr[q + 1] = r + k + 1
            m += el
            r += el
        nuniq = 1
        for i in range(n - 1):
            if ox[i + 1] != ox[i]:
                nuniq += 1
        if nuniq <= num2factor:
            if nuniq > nseg_factor:
                status[0] = NQ_NSEG_FACTOR
                status[1] = j
                status[2] = nuniq
                return cols, kinds, vals, base, rptr, rlo, rhi, proc, status
            cls[j] = 1
    # factor-like columns: x=='v' for every value in order of first appearance, then one
    # x%in%c(...) of the values with fewer than bin_size rows (ascending)
    starts = gpos  # scratch: run starts, first rows, order of first appearance
    firsts = lpos
    appear = cnt_lt
    for j in range(p):
        if cls[j] != 1:
            continue
        u = 0
        for i in range(n):
            ox[i] = X[ordm[j, i], j]
            if i == 0 or ox[i] != ox[i - 1]:
                starts[u] = i
                firsts[u] = ordm[j, i]
                u += 1
        starts[u] = n
        for a in range(u - 1):  # two values that may print alike (15 digits)
            lo = ox[starts[a]]
            hi = ox[starts[a + 1]]
            if hi - lo <= 2e-14 * max(abs(lo), abs(hi)):
                status[0] = NQ_FALLBACK
                status[1] = j
                return cols, kinds, vals, base, rptr, rlo, rhi, proc, status
        for a in range(u):  # insertion sort of the runs by first row (distinct row ids)
            b = a
            while b > 0 and firsts[appear[b - 1]] > firsts[a]:
                appear[b] = appear[b - 1]
                b -= 1
            appear[b] = a
        for a in range(u):
            v = appear[a]
            cols[m] = j
            kinds[m] = _EQ
            vals[m] = ox[starts[v]]
            base[m] = -1
            proc[m] = m
            rlo[r] = starts[v]
            rhi[r] = starts[v + 1]
            r += 1
            rptr[m + 1] = r
            m += 1
        r0 = r
        for v in range(u):
            if starts[v + 1] - starts[v] < bin_size:
                rlo[r] = starts[v]
                rhi[r] = starts[v + 1]
                r += 1
        if r > r0:
            cols[m] = j
            kinds[m] = _IN
            vals[m] = np.nan
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
            kinds[m] = _BIN0 + b
            vals[m] = float(b)
            base[m] = -1
            proc[m] = m
            rlo[r] = 0 if b == 0 else k0s[j]
            rhi[r] = k0s[j] if b == 0 else n
            r += 1
            rptr[m + 1] = r
            m += 1
    return (cols[:m], kinds[:m], vals[:m], base[:m], rptr[:m + 1], rlo[:r], rhi[:r],
            proc[:m], status)
