"""Numba kernels that replay rpart 4.1.19's anova splitting on continuous predictors.

These are line-by-line ports of the C routines of rpart 4.1.19 that matter when
every predictor is a finite double and every case weight is 1 (which is how R
bsnsing calls rpart for its external rules):

- ``mysort.c``   : the quicksort (median of three, insertion sort below 11
  elements) that orders each column once at the top node. It is NOT stable,
  and the order it leaves tied values in decides the order in which ``y`` is
  summed, i.e. the last bits of every improvement. We therefore replay it
  exactly instead of using ``np.argsort``.
- ``anova.c``    : ``anovass`` (node mean and sum of squares) and ``anova``
  (the best split of one continuous variable).
- ``bsplit.c`` + ``insert_split.c``: the loop over variables, the
  ``rp.iscale`` noise filter and the ranked list of primary/competitor splits.
- ``nodesplit.c``: sending the rows left/right and the stable re-partition of
  every variable's sort index.

The kernels work on plain arrays: ``xt`` is the (p, n) transposed design
matrix (C-contiguous), ``y`` the float64 response, ``sorts`` a (p, n) int64
array of row indices. The driver (tree recursion and complexity bookkeeping of
``partition.c``) lives in :mod:`pybsnsing.external`.

Floating point: every sum is accumulated in the same order and with the same
operations as the C code (no fused multiply-add, no fastmath), so the
improvements, split points and risks are bit-identical to R's.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: rpart's direction codes (``rpart.h``): LEFT means "x < split goes left".
LEFT = -1
RIGHT = 1


@njit(cache=True)
def mysort(x: np.ndarray, cvec: np.ndarray) -> None:
    """Sort ``x`` ascending in place, carrying ``cvec`` along (rpart ``mysort.c``).

    The recursion of the C code is replaced by an explicit stack; sub-ranges
    are disjoint, so the result is identical.
    """
    n = x.shape[0]
    if n < 2:
        return
    stack = np.empty(2 * 130, dtype=np.int64)
    stack[0] = 0
    stack[1] = n - 1
    sp = 1
    while sp > 0:
        sp -= 1
        start = stack[2 * sp]
        stop = stack[2 * sp + 1]
        while start < stop:
            if (stop - start) < 11:
                # ordinary insertion sort
                for i in range(start + 1, stop + 1):
                    temp = x[i]
                    tempd = cvec[i]
                    j = i - 1
                    while j >= start and x[j] > temp:
                        x[j + 1] = x[j]
                        cvec[j + 1] = cvec[j]
                        j -= 1
                    x[j + 1] = temp
                    cvec[j + 1] = tempd
                break
            i = start
            j = stop
            k = (start + stop) // 2
            median = x[k]
            if x[i] >= x[k]:
                if x[j] > x[k]:
                    if x[i] > x[j]:
                        median = x[j]
                    else:
                        median = x[i]
            else:
                if x[j] < x[k]:
                    if x[i] > x[j]:
                        median = x[i]
                    else:
                        median = x[j]
            while i < j:
                while x[i] < median:
                    i += 1
                while x[j] > median:
                    j -= 1
                if i < j:
                    if x[i] > x[j]:
                        temp = x[i]
                        x[i] = x[j]
                        x[j] = temp
                        tempd = cvec[i]
                        cvec[i] = cvec[j]
                        cvec[j] = tempd
                    i += 1
                    j -= 1
            while x[i] >= median and i > start:
                i -= 1
            while x[j] <= median and j < stop:
                j += 1
            # The C code recurs on the shorter part and loops on the longer one.
            # The parts are disjoint, so we may instead defer the longer part
            # (keeps the stack at most log2(n) deep) and go on with the shorter.
            if (i - start) < (stop - j):
                if stop > j:
                    stack[2 * sp] = j
                    stack[2 * sp + 1] = stop
                    sp += 1
                stop = i
            else:
                if i > start:
                    stack[2 * sp] = start
                    stack[2 * sp + 1] = i
                    sp += 1
                start = j


@njit(cache=True)
def sort_columns(xt: np.ndarray) -> np.ndarray:
    """Return the (p, n) int64 matrix of rpart's once-and-for-all sort indices."""
    p, n = xt.shape
    sorts = np.empty((p, n), dtype=np.int64)
    xtemp = np.empty(n, dtype=np.float64)
    tempvec = np.empty(n, dtype=np.int64)
    for i in range(p):
        for k in range(n):
            tempvec[k] = k
            xtemp[k] = xt[i, k]
        mysort(xtemp, tempvec)
        for k in range(n):
            sorts[i, k] = tempvec[k]
    return sorts


@njit(cache=True, error_model="numpy")
def anovass_range(y: np.ndarray, order: np.ndarray, n1: int, n2: int) -> float:
    """Sum of squares of ``y[order[n1:n2]]`` about its mean (rpart ``anovass``)."""
    temp = 0.0
    twt = 0.0
    for i in range(n1, n2):
        temp += y[order[i]] * 1.0
        twt += 1.0
    mean = temp / twt
    ss = 0.0
    for i in range(n1, n2):
        d = y[order[i]] - mean
        ss += d * d * 1.0
    return ss


@njit(cache=True, error_model="numpy")
def anova_continuous(
    xs: np.ndarray, ys: np.ndarray, k: int, edge: int, myrisk: float
) -> tuple[float, float, int]:
    """Best split of one sorted continuous variable (rpart ``anova``, nclass == 0).

    Returns ``(improve, split, direction)``; ``improve`` is the between-group
    sum of squares divided by the node's risk, ``split`` the midpoint of the
    two adjacent distinct values, and ``direction`` LEFT (-1) when the rows
    with ``x < split`` have the smaller mean (they go left), RIGHT otherwise.
    ``split`` is 0.0 when no admissible split exists (then ``improve`` is 0).
    """
    right_wt = 0.0
    right_n = k
    right_sum = 0.0
    for i in range(k):
        right_sum += ys[i] * 1.0
        right_wt += 1.0
    grandmean = right_sum / right_wt

    left_sum = 0.0
    left_wt = 0.0
    left_n = 0
    right_sum = 0.0
    best = 0.0
    where = 0
    direction = LEFT
    i = 0
    while right_n > edge:
        left_wt += 1.0
        right_wt -= 1.0
        left_n += 1
        right_n -= 1
        temp = (ys[i] - grandmean) * 1.0
        left_sum += temp
        right_sum -= temp
        if xs[i + 1] != xs[i] and left_n >= edge:
            temp = left_sum * left_sum / left_wt + right_sum * right_sum / right_wt
            if temp > best:
                best = temp
                where = i
                if left_sum < right_sum:
                    direction = LEFT
                else:
                    direction = RIGHT
        i += 1
    improve = best / myrisk
    split = 0.0
    if best > 0:
        split = (xs[where] + xs[where + 1]) / 2
    return improve, split, direction


@njit(cache=True)
def _copy_entry(
    var: np.ndarray,
    improve: np.ndarray,
    split: np.ndarray,
    dirn: np.ndarray,
    count: np.ndarray,
    t: int,
) -> None:
    """Move list entry ``t - 1`` to position ``t``."""
    var[t] = var[t - 1]
    improve[t] = improve[t - 1]
    split[t] = split[t - 1]
    dirn[t] = dirn[t - 1]
    count[t] = count[t - 1]


@njit(cache=True, error_model="numpy")
def bsplit(
    xt: np.ndarray,
    y: np.ndarray,
    sorts: np.ndarray,
    n1: int,
    n2: int,
    edge: int,
    myrisk: float,
    iscale: float,
    maxpri: int,
    out_var: np.ndarray,
    out_improve: np.ndarray,
    out_split: np.ndarray,
    out_dir: np.ndarray,
    out_count: np.ndarray,
) -> tuple[int, float]:
    """Primary and competitor splits of the node holding ``sorts[:, n1:n2]``.

    Port of rpart ``bsplit`` + ``insert_split``: variables are tried in column
    order; a split is kept when ``improve > iscale * 1e-10`` (``iscale`` is the
    largest improvement seen so far in the whole fit, updated here), and sorted
    into a list of at most ``maxpri`` entries by decreasing improvement, a new
    entry going AFTER existing entries with an equal improvement (so ties go to
    the earlier column). ``insert_split``'s pointer logic is replayed exactly,
    including its quirk for ``maxpri == 2`` (maxcompete = 1): when the list is
    full and a new best split arrives, the list shrinks to that split alone.
    The list is written to the ``out_*`` arrays (length >= maxpri). Returns
    ``(list length, updated iscale)``.
    """
    p = xt.shape[0]
    k = n2 - n1
    xs = np.empty(k, dtype=np.float64)
    ys = np.empty(k, dtype=np.float64)
    nlist = 0
    for i in range(p):
        for j in range(k):
            kk = sorts[i, n1 + j]
            xs[j] = xt[i, kk]
            ys[j] = y[kk]
        if k == 0 or xs[0] == xs[k - 1]:
            continue  # no place to split
        improve, split, direction = anova_continuous(xs, ys, k, edge, myrisk)
        if improve > iscale:
            iscale = improve
        if improve > iscale * 1e-10:
            improve = improve / 1.0  # rp.vcost[i] == 1
            if nlist == 0:
                pos = 0
                nlist = 1
            elif maxpri < 2:
                if improve <= out_improve[0]:
                    continue
                pos = 0
            else:
                pos = nlist
                for t in range(nlist):
                    if improve > out_improve[t]:
                        pos = t
                        break
                if nlist == maxpri:
                    if pos == nlist:
                        continue  # not good enough
                    if pos == nlist - 1 or (pos == 0 and nlist == 2):
                        # insert_split's "s1 == s3" branch: the new split becomes the
                        # last element. For a full list of 2 and a new best split this
                        # drops the old best as well (the list shrinks to 1).
                        nlist = pos + 1
                    else:
                        # drop the last element, shift the tail down by one
                        for t in range(nlist - 1, pos, -1):
                            _copy_entry(out_var, out_improve, out_split, out_dir, out_count, t)
                else:
                    for t in range(nlist, pos, -1):
                        _copy_entry(out_var, out_improve, out_split, out_dir, out_count, t)
                    nlist += 1
            out_var[pos] = i
            out_improve[pos] = improve
            out_split[pos] = split
            out_dir[pos] = direction
            out_count[pos] = k
    return nlist, iscale


@njit(cache=True)
def nodesplit(
    xt: np.ndarray,
    sorts: np.ndarray,
    n1: int,
    n2: int,
    var: int,
    spoint: float,
    direction: int,
    goes_left: np.ndarray,
    tempvec: np.ndarray,
) -> int:
    """Split the node ``sorts[:, n1:n2]`` by ``x[var] < spoint`` (rpart ``nodesplit``).

    A row goes left when ``(x < spoint ? direction : -direction) == LEFT``.
    Every variable's slice of ``sorts`` is re-ordered in place to
    ``{left rows, right rows}``, keeping the order within each group.
    ``goes_left`` (length n, uint8) and ``tempvec`` (length n, int64) are
    scratch arrays. Returns the number of rows sent left.
    """
    nleft = 0
    for i in range(n1, n2):
        j = sorts[var, i]
        if xt[var, j] < spoint:
            kdir = direction
        else:
            kdir = -direction
        if kdir == LEFT:
            goes_left[j] = 1
            nleft += 1
        else:
            goes_left[j] = 0
    p = sorts.shape[0]
    for v in range(p):
        i1 = n1
        i2 = n1 + nleft
        for i in range(n1, n2):
            j = sorts[v, i]
            if goes_left[j] == 1:
                sorts[v, i1] = j
                i1 += 1
            else:
                tempvec[i2] = j
                i2 += 1
        for i in range(n1 + nleft, n2):
            sorts[v, i] = tempvec[i]
    return nleft


@njit(cache=True)
def answer_matrix(
    xt: np.ndarray, cols: np.ndarray, ops: np.ndarray, cuts: np.ndarray
) -> np.ndarray:
    """Evaluate questions ``x[col] < cut`` (op 0) or ``x[col] >= cut`` (op 1).

    Returns the uint8 (n, m) answer matrix, one column per question.
    """
    n = xt.shape[1]
    m = cols.shape[0]
    out = np.empty((n, m), dtype=np.uint8)
    for q in range(m):
        c = cols[q]
        cut = cuts[q]
        if ops[q] == 0:
            for r in range(n):
                out[r, q] = 1 if xt[c, r] < cut else 0
        else:
            for r in range(n):
                out[r, q] = 1 if xt[c, r] >= cut else 0
    return out
