"""Numba kernels that replay rpart 4.1.19's anova splitting on continuous predictors.

These are line-by-line ports of the C routines of rpart 4.1.19 that matter when
every predictor is a finite double and every case weight is 1 (which is how R
bsnsing calls rpart for its external rules):

- ``mysort.c``   : the quicksort (median of three, insertion sort below 11
  elements) that orders each column once at the top node. It is NOT stable,
  and the order it leaves tied values in decides the order in which ``y`` is
  summed, i.e. the last bits of every improvement. It is replayed exactly on
  columns with ties; for tie-free columns any sort gives the same permutation
  (a radix argsort or the caller's presorted orders are used).
- ``anova.c``    : ``anovass`` (node mean and sum of squares) and ``anova``
  (the best split of one continuous variable).
- ``bsplit.c`` + ``insert_split.c``: the loop over variables, the
  ``rp.iscale`` noise filter and the ranked list of primary/competitor splits.
- ``nodesplit.c``: sending the rows left/right and the stable re-partition of
  every variable's sort index. Only what is read again is re-ordered: the root reads
  its columns in place (the caller's sorted orders and values) and writes its children's
  order out of place; the deepest level that splits has its variables' best splits
  found by its parent, from one stable copy of each column into a scratch array
  (:func:`children_splits`), so that below the root only column 0 (whose labels give
  the risks) is re-ordered when ``maxdepth <= 2``, as R bsnsing calls rpart. Same
  sums in the same order as the C code, hence the same bits.
- ``partition.c`` (tree recursion and cost-complexity bookkeeping, unrolled
  with an explicit stack) and ``rpmatrix.c`` (table order): :func:`rpart_anova`,
  the entry point used by :mod:`pybsnsing.external`.

The kernels work on plain arrays: ``xt`` is the (p, n) transposed design
matrix (C-contiguous), ``y`` the float64 response, ``sorts`` a (p, n) int64
array of row indices.

Floating point: every sum is accumulated in the same order and with the same
operations as the C code (no fused multiply-add, no fastmath), so the
improvements, split points and risks are bit-identical to R's (R's own build
on x86-64 uses SSE2 doubles without FMA). 0/0 gives NaN as in C
(``error_model="numpy"``): a child can be empty when the midpoint of two
adjacent doubles rounds onto the lower one, so that ``x < split`` is false for
every row.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import packed_bit

#: rpart's direction codes (``rpart.h``): LEFT means "x < split goes left".
LEFT = -1
RIGHT = 1

# Named columns of the partition's arrays (module constants: numba compiles them in).
#: ``ip`` (int64 parameters of :func:`_partition_tree`)
IP_MIN_SPLIT, IP_MIN_NODE, IP_MAXNODE, IP_MAXPRI, IP_N = range(5)
#: ``fp`` (float64 parameters; ``FP_ISCALE`` is updated by every ``bsplit``)
FP_ALPHA, FP_ISCALE = range(2)
#: ``node_i[slot]``: rpart node number, left and right child slots (-1: none), first entry
#: and number of entries in the split lists
NI_NUM, NI_LEFT, NI_RIGHT, NI_SPLIT0, NI_NSPLIT = range(5)
#: ``node_f[slot]``: complexity, risk
NF_CP, NF_RISK = range(2)
#: the int64 fields of a frame of :func:`_partition_tree`'s explicit stack: rpart node
#: number, slot, row range ``[n1, n2)`` in the sort index, rows sent left, stage (0: split
#: and descend left, 1: descend right, 2: combine), the left subtree's number of splits
FR_NODENUM, FR_SLOT, FR_N1, FR_N2, FR_NLEFT, FR_STAGE, FR_LSPLIT, FR_NCOL = range(8)
#: rows of the split table (:func:`rpart_anova_rows`): int64 node, variable, count, ncat;
#: float64 split point (``index``), improvement
TI_NODE, TI_VAR, TI_COUNT, TI_NCAT = range(4)
TF_INDEX, TF_IMPROVE = range(2)
#: the split table as returned: node, var, index, count, ncat, improve, primary
SplitTable = tuple[
    np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray
]


@njit(cache=True, nogil=True, error_model="numpy")
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


@njit(cache=True, nogil=True, error_model="numpy")
def sort_columns(xt: np.ndarray) -> np.ndarray:
    """Return the (p, n) int64 matrix of rpart's once-and-for-all sort indices
    (``rpart.c``). A non-finite ``xt[i, k]`` is missing for rpart: it is entered as
    ``-(k + 1)`` with the value 0 into :func:`mysort`, so the missing rows sit among the
    zeros (the unstable sort's tie order of the zeros depends on them)."""
    p, n = xt.shape
    sorts = np.empty((p, n), dtype=np.int64)
    xtemp = np.empty(n, dtype=np.float64)
    tempvec = np.empty(n, dtype=np.int64)
    for i in range(p):
        for k in range(n):
            x = xt[i, k]
            if np.isfinite(x):
                tempvec[k] = k
                xtemp[k] = x
            else:
                tempvec[k] = -(k + 1)  # this variable is missing
                xtemp[k] = 0.0
        mysort(xtemp, tempvec)
        for k in range(n):
            sorts[i, k] = tempvec[k]
    return sorts


@njit(cache=True, nogil=True, error_model="numpy")
def sort_columns_from(xt: np.ndarray, order: np.ndarray) -> np.ndarray:
    """See :func:`sort_columns_from_rows` (all columns of ``xt`` are the rows)."""
    return sort_columns_from_rows(xt, order, np.arange(xt.shape[1]))


@njit(cache=True, nogil=True, error_model="numpy")
def sort_columns_from_rows(xt: np.ndarray, order: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """rpart's sort indices, reusing ``order``, any ascending argsort of each row of ``xt``
    (the first array of :func:`sorted_columns`, which see)."""
    return sorted_columns(xt, np.zeros(xt.shape[1]), order, rows)[0]


@njit(cache=True, nogil=True, error_model="numpy")
def sorted_columns(
    xt: np.ndarray, y: np.ndarray, order: np.ndarray, rows: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """rpart's sort indices of the rows ``rows`` of every column, with the values of the
    column and of ``y`` in that order: new ``(sorts, vals, ys)``, each (p, len(rows)).

    ``order`` holds any ascending argsort (row ids) of each column over ``rows``; the
    columns are those of :func:`root_sources` (tie-free ones in that order, ones with
    ties re-sorted with :func:`mysort`), copied. Same indices as :func:`sort_columns`,
    much faster on tie-free columns."""
    p = xt.shape[0]
    n = rows.shape[0]
    srcv, tie_idx, tie_s, tie_v = root_sources(xt, order, rows,
                                               np.empty((0, 0), dtype=np.float64))
    sorts = np.empty((p, n), dtype=np.int64)
    vals = np.empty((p, n), dtype=np.float64)
    ys = np.empty((p, n), dtype=np.float64)
    for i in range(p):
        ids, xs = _source(order, srcv, tie_idx, tie_s, tie_v, i)
        for k in range(n):
            sorts[i, k] = ids[k]
            vals[i, k] = xs[k]
            ys[i, k] = y[ids[k]]
    return sorts, vals, ys


def work_arrays(p: int, n: int, maxdepth: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(sorts, vals, ys)``: new (k, n) int64, float64, float64 work arrays for
    :func:`rpart_anova_rows` of depth ``maxdepth`` (k = :func:`work_columns`), from
    numpy's allocator (large ones get transparent huge pages: a tenth of the page faults
    of numba's)."""
    k = work_columns(p, maxdepth)
    return (np.empty((k, n), dtype=np.int64), np.empty((k, n), dtype=np.float64),
            np.empty((k, n), dtype=np.float64))


@njit(cache=True, nogil=True, error_model="numpy")
def work_columns(p: int, maxdepth: int) -> int:
    """The columns of the work arrays :func:`rpart_anova_rows` re-orders: all ``p`` when
    the root's grandchildren may split (``maxdepth >= 3``), else column 0 only (its
    labels give the children's risks; see :func:`_partition_tree`)."""
    return p if maxdepth >= 3 else min(p, 1)


@njit(cache=True, nogil=True, error_model="numpy")
def orders_valid(xt: np.ndarray, order: np.ndarray) -> bool:
    """True when every row of ``order`` is a permutation sorting that row of ``xt``."""
    p, n = xt.shape
    seen = np.zeros(n, dtype=np.uint8)
    for i in range(p):
        seen[:] = 0
        for k in range(n):
            o = order[i, k]
            if o < 0 or o >= n or seen[o]:
                return False
            seen[o] = 1
            if k > 0 and xt[i, order[i, k - 1]] > xt[i, o]:
                return False
    return True


@njit(cache=True, error_model="numpy", inline="always")
def anovass_range(ys: np.ndarray, n1: int, n2: int) -> float:
    """Sum of squares of ``ys[n1:n2]`` about its mean (rpart ``anovass``)."""
    temp = 0.0
    twt = 0.0
    for i in range(n1, n2):
        temp += ys[i] * 1.0
        twt += 1.0
    mean = temp / twt
    ss = 0.0
    for i in range(n1, n2):
        d = ys[i] - mean
        ss += d * d * 1.0
    return ss


@njit(cache=True, error_model="numpy", inline="always")
def anova_continuous(
    xs: np.ndarray, ys: np.ndarray, k: int, edge: int, myrisk: float, inv: np.ndarray
) -> tuple[float, float, int]:
    """Best split of one sorted continuous variable (rpart ``anova``, nclass == 0).

    Returns ``(improve, split, direction)``; ``improve`` is the between-group
    sum of squares divided by the node's risk, ``split`` the midpoint of the
    two adjacent distinct values, and ``direction`` LEFT (-1) when the rows
    with ``x < split`` have the smaller mean (they go left), RIGHT otherwise.
    ``split`` is 0.0 when no admissible split exists (then ``improve`` is 0).

    ``inv[m]`` must be ``1.0 / m`` (m = 1..k). It serves a cheap screen: rpart's
    ``temp = a / left_wt + b / right_wt`` (with ``a = left_sum**2``, ``b =
    right_sum**2``, weights = counts) is only computed with its two divisions
    when ``a * inv[left_n] + b * inv[right_n]`` reaches ``best * (1 - 1e-13)``.
    Both sums of two non-negative terms are within ``(1 + u)**2`` and ``(1 -
    u)**3`` of the exact value (u = 2**-53), so ``temp <= screen * (1 + 6u)``;
    a screened-out position can never satisfy ``temp > best``. Results are
    bit-identical to the plain loop.
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
    guard = 0.0
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
            a = left_sum * left_sum
            b = right_sum * right_sum
            if a * inv[left_n] + b * inv[right_n] >= guard:
                temp = a / left_wt + b / right_wt
                if temp > best:
                    best = temp
                    guard = best * (1.0 - 1e-13)
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


@njit(cache=True, error_model="numpy", inline="always")
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


@njit(cache=True, error_model="numpy", inline="always")
def _list_slot(
    improve: float,
    nlist: int,
    maxn: int,
    out_var: np.ndarray,
    out_improve: np.ndarray,
    out_split: np.ndarray,
    out_dir: np.ndarray,
    out_count: np.ndarray,
) -> tuple[int, int]:
    """rpart ``insert_split``: where a new entry of ``improve`` goes in a list of ``nlist``
    entries sorted by decreasing improvement, of at most ``maxn`` entries (the ``out_*``
    arrays). Moves the entries after it down and returns ``(position, new length)``;
    position -1: not good enough, the list is unchanged. A new entry goes AFTER existing
    entries with an equal improvement. The pointer logic of the C code is replayed
    exactly, including its quirk for ``maxn == 2``: when the list is full and a new best
    entry arrives, the list shrinks to that entry alone."""
    if nlist == 0:
        return 0, 1
    if maxn < 2:
        if improve <= out_improve[0]:
            return -1, nlist
        return 0, nlist
    pos = nlist
    for t in range(nlist):
        if improve > out_improve[t]:
            pos = t
            break
    if nlist == maxn:
        if pos == nlist:
            return -1, nlist  # not good enough
        if pos == nlist - 1 or (pos == 0 and nlist == 2):
            # insert_split's "s1 == s3" branch: the new entry becomes the last element.
            # For a full list of 2 and a new best entry this drops the old best as
            # well (the list shrinks to 1).
            nlist = pos + 1
        else:
            # drop the last element, shift the tail down by one
            for t in range(nlist - 1, pos, -1):
                _copy_entry(out_var, out_improve, out_split, out_dir, out_count, t)
    else:
        for t in range(nlist, pos, -1):
            _copy_entry(out_var, out_improve, out_split, out_dir, out_count, t)
        nlist += 1
    return pos, nlist


@njit(cache=True, error_model="numpy", inline="always")
def _insert_split(
    i: int,
    k: int,
    improve: float,
    split: float,
    direction: int,
    nlist: int,
    iscale: float,
    maxpri: int,
    out_var: np.ndarray,
    out_improve: np.ndarray,
    out_split: np.ndarray,
    out_dir: np.ndarray,
    out_count: np.ndarray,
) -> tuple[int, float]:
    """Variable ``i``'s best split (``improve``, ``split``, ``direction``; ``k`` rows)
    into the list of :func:`bsplit`: rpart's ``rp.iscale`` filter and ``insert_split``
    (:func:`_list_slot`). Returns the new ``(list length, iscale)``."""
    if improve > iscale:
        iscale = improve
    if not improve > iscale * 1e-10:
        return nlist, iscale
    improve = improve / 1.0  # rp.vcost[i] == 1
    pos, nlist = _list_slot(improve, nlist, maxpri, out_var, out_improve, out_split, out_dir,
                            out_count)
    if pos < 0:
        return nlist, iscale
    out_var[pos] = i
    out_improve[pos] = improve
    out_split[pos] = split
    out_dir[pos] = direction
    out_count[pos] = k
    return nlist, iscale


@njit(cache=True, nogil=True, error_model="numpy")
def bsplit(
    vals: np.ndarray,
    ys: np.ndarray,
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
    inv: np.ndarray,
) -> tuple[int, float]:
    """Primary and competitor splits of the node holding positions ``n1:n2`` of the
    columns in sorted order (``vals``, ``ys``: see :func:`sorted_columns`).

    Port of rpart ``bsplit`` + ``insert_split``: variables are tried in column
    order; a split is kept when ``improve > iscale * 1e-10`` (``iscale`` is the
    largest improvement seen so far in the whole fit, updated here), and sorted
    into a list of at most ``maxpri`` entries by decreasing improvement, a new
    entry going AFTER existing entries with an equal improvement (so ties go to
    the earlier column). ``insert_split``'s pointer logic is replayed exactly,
    including its quirk for ``maxpri == 2`` (maxcompete = 1): when the list is
    full and a new best split arrives, the list shrinks to that split alone.
    The list is written to the ``out_*`` arrays (length >= maxpri). ``inv[m]``
    = ``1.0 / m`` (see :func:`anova_continuous`). Returns ``(list length,
    updated iscale)``.
    """
    p = vals.shape[0]
    k = n2 - n1
    nlist = 0
    for i in range(p):
        xs = vals[i, n1:n2]
        if k == 0 or xs[0] == xs[k - 1]:
            continue  # no place to split
        improve, split, direction = anova_continuous(xs, ys[i, n1:n2], k, edge, myrisk, inv)
        nlist, iscale = _insert_split(i, k, improve, split, direction, nlist, iscale, maxpri,
                                      out_var, out_improve, out_split, out_dir, out_count)
    return nlist, iscale


@njit(cache=True, nogil=True, error_model="numpy")
def bsplit_given(
    pre_f: np.ndarray,
    pre_d: np.ndarray,
    k: int,
    myrisk: float,
    iscale: float,
    maxpri: int,
    out_var: np.ndarray,
    out_improve: np.ndarray,
    out_split: np.ndarray,
    out_dir: np.ndarray,
    out_count: np.ndarray,
) -> tuple[int, float]:
    """:func:`bsplit` of a node whose variables' best splits were found ahead by
    :func:`children_splits`: ``pre_f[0, i]`` the improvement times the node's risk
    (``myrisk`` here), ``pre_f[1, i]`` the split point, ``pre_d[i]`` the direction, 0
    where :func:`bsplit` skips the variable (all its values equal). Same list, same
    ``iscale``."""
    nlist = 0
    for i in range(pre_d.shape[0]):
        if pre_d[i] == 0:
            continue
        nlist, iscale = _insert_split(i, k, pre_f[0, i] / myrisk, pre_f[1, i], pre_d[i], nlist,
                                      iscale, maxpri, out_var, out_improve, out_split, out_dir,
                                      out_count)
    return nlist, iscale


@njit(cache=True, error_model="numpy", inline="always")
def _send(goes_left: np.ndarray, j: int, g: int) -> None:
    """Set row ``j``'s bit of the packed ``goes_left`` to ``g`` (0 or 1)."""
    b = j >> 3
    s = j & 7
    goes_left[b] = np.uint8((np.int64(goes_left[b]) & ~(np.int64(1) << s)) | (g << s))


@njit(cache=True, error_model="numpy", inline="always")
def _children_of_column(
    i: int,
    ids: np.ndarray,
    xs: np.ndarray,
    yv: np.ndarray,
    by_id: bool,
    n1: int,
    n2: int,
    nleft: int,
    goes_left: np.ndarray,
    edge: int,
    min_split: int,
    inv: np.ndarray,
    tempf: np.ndarray,
    pre_f: np.ndarray,
    pre_d: np.ndarray,
) -> None:
    """:func:`children_splits` of column ``i``: its row ids ``ids``, values ``xs`` and
    labels (``yv[t]``, or ``yv[ids[t]]`` with ``by_id``) at positions ``n1:n2``;
    ``tempf``: (2, >= n2 - n1 + 2) scratch."""
    k = n2 - n1
    tv = tempf[0]
    ty = tempf[1]
    i1 = 0
    i2 = nleft + 1  # the left rows at 0..nleft - 1, the right ones from nleft + 1 on
    for t in range(n1, n2):  # branch-free, as nodesplit: written to both sides, the
        j = ids[t]  # pointer of its side moves on (a write past a side's last row lands
        g = packed_bit(goes_left, j)  # on its spare element)
        x = xs[t]
        w = yv[j] if by_id else yv[t]
        tv[i1] = x
        ty[i1] = w
        tv[i2] = x
        ty[i2] = w
        i1 += g
        i2 += 1 - g
    for c in range(2):
        lo = 0 if c == 0 else nleft + 1
        hi = nleft if c == 0 else k + 1
        kc = hi - lo
        pre_d[c, i] = 0
        if kc < min_split or kc == 0 or tv[lo] == tv[hi - 1]:
            continue
        best, split, direction = anova_continuous(tv[lo:hi], ty[lo:hi], kc, edge, 1.0, inv)
        pre_f[c, 0, i] = best
        pre_f[c, 1, i] = split
        pre_d[c, i] = direction


@njit(cache=True, nogil=True, error_model="numpy")
def children_splits(
    vals: np.ndarray,
    ys: np.ndarray,
    sorts: np.ndarray,
    n1: int,
    n2: int,
    nleft: int,
    goes_left: np.ndarray,
    edge: int,
    min_split: int,
    inv: np.ndarray,
    tempf: np.ndarray,
    pre_f: np.ndarray,
    pre_d: np.ndarray,
) -> None:
    """The best split of every variable in both children of the node at positions
    ``n1:n2``, which sends its rows left by ``goes_left`` (``nleft`` of them), without
    re-ordering the node's columns: each variable's values and labels are copied into
    ``tempf`` in the children's order ({left rows, right rows}, each in the node's
    sorted order, as :func:`nodesplit` would leave them) and scanned there with
    :func:`anova_continuous`. Into ``pre_f[c, 0, i]`` (the improvement times the
    child's risk), ``pre_f[c, 1, i]`` (split point) and ``pre_d[c, i]`` (direction; 0:
    no split, as :func:`bsplit` skips the variable), child ``c`` 0 (left) or 1; for
    :func:`bsplit_given`. A child of fewer than ``min_split`` rows is never split: left
    out.

    Used where the children are the deepest nodes that split (their own children only
    need ``ys[0]`` re-ordered): the other columns are then never re-ordered, which
    saves most of the re-partition's memory traffic."""
    for i in range(vals.shape[0]):
        _children_of_column(i, sorts[i], vals[i], ys[i], False, n1, n2, nleft, goes_left, edge,
                            min_split, inv, tempf, pre_f, pre_d)


@njit(cache=True, error_model="numpy", inline="always")
def _source(order: np.ndarray, srcv: np.ndarray, tie_idx: np.ndarray, tie_s: np.ndarray,
            tie_v: np.ndarray, i: int) -> tuple[np.ndarray, np.ndarray]:
    """Column ``i`` of the root in rpart's sort order: its row ids and values (the given
    order, or :func:`mysort`'s where the column has ties: :func:`root_sources`)."""
    t = tie_idx[i]
    if t < 0:
        return order[i], srcv[i]
    return tie_s[t], tie_v[t]


@njit(cache=True, nogil=True, error_model="numpy")
def root_sources(
    xt: np.ndarray, order: np.ndarray, rows: np.ndarray, ordv: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The root's columns in rpart's sort order, read in place: ``(srcv, tie_idx, tie_s,
    tie_v)`` for :func:`_source`. ``srcv`` is ``ordv`` (the values in the order of
    ``order``) when given as (p, n), else gathered from ``xt``. A column with ties is
    re-sorted with :func:`mysort` from the rows in their given order (whose unstable
    order of tied rows is what rpart sums in): row ``tie_idx[i]`` of ``tie_s``
    (row ids) and ``tie_v`` (values); -1 for a tie-free column, whose order is the
    given one (every correct sort gives the same permutation): the tie-free columns are
    not copied."""
    p = xt.shape[0]
    n = rows.shape[0]
    if order.shape[0] != p or order.shape[1] != n:
        raise ValueError("root_sources: order is not (p, len(rows))")
    if ordv.shape[0] == p and ordv.shape[1] == n:
        srcv = ordv
    else:
        srcv = np.empty((p, n), dtype=np.float64)
        for i in range(p):
            for k in range(n):
                srcv[i, k] = xt[i, order[i, k]]
    tie_idx = np.empty(p, dtype=np.int64)
    nt = 0
    for i in range(p):
        tie_idx[i] = -1
        for k in range(1, n):
            if srcv[i, k] == srcv[i, k - 1]:
                tie_idx[i] = nt
                nt += 1
                break
    tie_s = np.empty((nt, n), dtype=np.int64)
    tie_v = np.empty((nt, n), dtype=np.float64)
    for i in range(p):
        t = tie_idx[i]
        if t < 0:
            continue
        for k in range(n):
            tie_s[t, k] = rows[k]
            tie_v[t, k] = xt[i, rows[k]]
        mysort(tie_v[t], tie_s[t])
    return srcv, tie_idx, tie_s, tie_v


@njit(cache=True, nogil=True, error_model="numpy")
def _root_bsplit(
    order: np.ndarray,
    srcv: np.ndarray,
    tie_idx: np.ndarray,
    tie_s: np.ndarray,
    tie_v: np.ndarray,
    y: np.ndarray,
    edge: int,
    myrisk: float,
    maxpri: int,
    out_var: np.ndarray,
    out_improve: np.ndarray,
    out_split: np.ndarray,
    out_dir: np.ndarray,
    out_count: np.ndarray,
    inv: np.ndarray,
    ty: np.ndarray,
) -> tuple[int, float]:
    """:func:`bsplit` of the root (iscale 0) from its columns read in place
    (:func:`_source`), each column's labels gathered into ``ty``."""
    p = order.shape[0]
    n = order.shape[1]
    nlist = 0
    iscale = 0.0
    for i in range(p):
        ids, xs = _source(order, srcv, tie_idx, tie_s, tie_v, i)
        if n == 0 or xs[0] == xs[n - 1]:
            continue  # no place to split
        for k in range(n):
            ty[k] = y[ids[k]]
        improve, split, direction = anova_continuous(xs, ty, n, edge, myrisk, inv)
        nlist, iscale = _insert_split(i, n, improve, split, direction, nlist, iscale, maxpri,
                                      out_var, out_improve, out_split, out_dir, out_count)
    return nlist, iscale


@njit(cache=True, nogil=True, error_model="numpy")
def _root_partition(
    order: np.ndarray,
    srcv: np.ndarray,
    tie_idx: np.ndarray,
    tie_s: np.ndarray,
    tie_v: np.ndarray,
    y: np.ndarray,
    nleft: int,
    goes_left: np.ndarray,
    sorts: np.ndarray,
    vals: np.ndarray,
    ys: np.ndarray,
    children: bool,
    edge: int,
    min_split: int,
    inv: np.ndarray,
    tempf: np.ndarray,
    pre_f: np.ndarray,
    pre_d: np.ndarray,
) -> None:
    """The root's :func:`nodesplit` from its columns read in place (:func:`_source`):
    the first ``sorts.shape[0]`` columns written out of place to the work arrays
    ``sorts``, ``vals``, ``ys`` in the children's order ({left rows, right rows}); with
    ``children``, first :func:`children_splits` of every column."""
    p = order.shape[0]
    n = order.shape[1]
    if children:
        for i in range(p):
            ids, xs = _source(order, srcv, tie_idx, tie_s, tie_v, i)
            _children_of_column(i, ids, xs, y, True, 0, n, nleft, goes_left, edge, min_split,
                                inv, tempf, pre_f, pre_d)
    for v in range(sorts.shape[0]):
        ids, xs = _source(order, srcv, tie_idx, tie_s, tie_v, v)
        i1 = 0
        i2 = nleft
        for t in range(n):
            j = ids[t]
            g = packed_bit(goes_left, j)
            at = i2 + (i1 - i2) * g
            sorts[v, at] = j
            vals[v, at] = xs[t]
            ys[v, at] = y[j]
            i1 += g
            i2 += 1 - g


@njit(cache=True, error_model="numpy", inline="always")
def send_left(
    vals: np.ndarray,
    sorts: np.ndarray,
    xt: np.ndarray,
    n1: int,
    n2: int,
    var: int,
    spoint: float,
    direction: int,
    goes_left: np.ndarray,
    by_rows: bool,
) -> int:
    """The first half of rpart ``nodesplit``: which rows of the node at positions ``n1:n2``
    go left by ``x[var] < spoint`` (``(x < spoint ? direction : -direction) == LEFT``),
    into ``goes_left`` (one bit per row id, packed: :func:`_send`). Returns the number
    sent left.

    The rows are read in ``var``'s sorted order, or with ``by_rows`` (a node whose column
    ``var`` was not re-ordered: :func:`children_splits`) by row id from column 0's order,
    their values from ``xt``: the same set. Branch-free: the left/right pattern is data
    dependent and would defeat prediction."""
    nleft = 0
    left_is_below = 1 if direction == LEFT else 0
    if by_rows:
        for i in range(n1, n2):
            j = sorts[0, i]
            below = 1 if xt[var, j] < spoint else 0
            g = 1 if below == left_is_below else 0
            _send(goes_left, j, g)
            nleft += g
    else:
        for i in range(n1, n2):
            below = 1 if vals[var, i] < spoint else 0
            g = 1 if below == left_is_below else 0
            _send(goes_left, sorts[var, i], g)
            nleft += g
    return nleft


@njit(cache=True, error_model="numpy", inline="always")
def nodesplit(
    vals: np.ndarray,
    ys: np.ndarray,
    sorts: np.ndarray,
    n1: int,
    n2: int,
    nleft: int,
    goes_left: np.ndarray,
    tempvec: np.ndarray,
    tempf: np.ndarray,
    nvars: int,
) -> None:
    """The second half of rpart ``nodesplit``, after :func:`send_left`: the first
    ``nvars`` variables' slices ``n1:n2`` of ``sorts``, ``vals`` and ``ys`` (see
    :func:`sorted_columns`) re-ordered in place to ``{left rows, right rows}`` (``nleft``
    of them left), keeping the order within each group. rpart re-orders all of them;
    only ``ys[0]`` (and ``sorts[0]``) is read again below a node whose children do not
    split, and only column 0 below one whose children are split from
    :func:`children_splits`, so the caller passes ``nvars = 1`` there. ``tempvec``
    (length n + 1, int64) and ``tempf`` ((2, >= n + 1) float64) are scratch arrays.
    Branch-free."""
    for v in range(nvars):
        i1 = n1
        i2 = n1 + nleft
        for i in range(n1, n2):
            j = sorts[v, i]
            x = vals[v, i]
            w = ys[v, i]
            g = packed_bit(goes_left, j)
            # i1 <= i: the slot was read already; a right row written there is
            # overwritten by a later left row or by the copy below
            sorts[v, i1] = j
            vals[v, i1] = x
            ys[v, i1] = w
            tempvec[i2] = j
            tempf[0, i2] = x
            tempf[1, i2] = w
            i1 += g
            i2 += 1 - g
        for i in range(n1 + nleft, n2):
            sorts[v, i] = tempvec[i]
            vals[v, i] = tempf[0, i]
            ys[v, i] = tempf[1, i]


@njit(cache=True, nogil=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", inline="always")
def _right_son_cp(node_i: np.ndarray, node_f: np.ndarray, me: int, left_split: int,
                  left_risk: float, alpha: float) -> None:
    """rpart ``partition``, after the left son of slot ``me`` came back with ``left_split``
    splits and risk ``left_risk``: update my estimate of cp and set the right son's."""
    my_risk = node_f[me, NF_RISK]
    lslot = node_i[me, NI_LEFT]
    rslot = node_i[me, NI_RIGHT]
    tempcp = (my_risk - left_risk) / (left_split + 1)
    tempcp2 = my_risk - node_f[lslot, NF_RISK]
    if tempcp < tempcp2:
        tempcp = tempcp2
    if tempcp > node_f[me, NF_CP]:
        tempcp = node_f[me, NF_CP]
    node_f[rslot, NF_CP] = tempcp - alpha


@njit(cache=True, error_model="numpy", inline="always")
def _combine_sons(node_i: np.ndarray, node_f: np.ndarray, me: int, left_split: int,
                  left_risk: float, right_split: int, right_risk: float,
                  alpha: float) -> tuple[int, float]:
    """rpart ``partition``, after both sons of slot ``me`` came back: my actual C.P., which
    depends on the children and on grandchildren who do not collapse before the
    children; a node whose C.P. is <= ``alpha`` does not split after all (``free_tree``).
    Returns the node's ``(number of splits, risk)`` for its parent."""
    my_risk = node_f[me, NF_RISK]
    lslot = node_i[me, NI_LEFT]
    rslot = node_i[me, NI_RIGHT]
    lcp = node_f[lslot, NF_CP]
    rcp = node_f[rslot, NF_CP]
    tempcp = (my_risk - (left_risk + right_risk)) / (left_split + right_split + 1)
    if rcp > lcp:
        if tempcp > lcp:
            # left son collapses first
            left_risk = node_f[lslot, NF_RISK]
            left_split = 0
            tempcp = (my_risk - (left_risk + right_risk)) / (left_split + right_split + 1)
            if tempcp > rcp:
                right_risk = node_f[rslot, NF_RISK]
                right_split = 0
    elif tempcp > rcp:
        # right son goes first
        right_split = 0
        right_risk = node_f[rslot, NF_RISK]
        tempcp = (my_risk - (left_risk + right_risk)) / (left_split + right_split + 1)
        if tempcp > lcp:
            left_risk = node_f[lslot, NF_RISK]
            left_split = 0
    node_f[me, NF_CP] = ((my_risk - (left_risk + right_risk))
                         / (left_split + right_split + 1))
    if node_f[me, NF_CP] <= alpha:
        # all was in vain: this node does not split after all (free_tree)
        node_i[me, NI_LEFT] = -1
        node_i[me, NI_RIGHT] = -1
        node_i[me, NI_NSPLIT] = 0
        return 0, my_risk
    return left_split + right_split + 1, left_risk + right_risk


@njit(cache=True, error_model="numpy", inline="always")
def _push(fr: np.ndarray, sp: int, nodenum: int, slot: int, n1: int, n2: int) -> None:
    """Write frame ``sp`` of :func:`_partition_tree`'s stack: a node to split, stage 0."""
    fr[sp, FR_NODENUM] = nodenum
    fr[sp, FR_SLOT] = slot
    fr[sp, FR_N1] = n1
    fr[sp, FR_N2] = n2
    fr[sp, FR_STAGE] = 0


@njit(cache=True, nogil=True, error_model="numpy")
def _partition_tree(
    vals: np.ndarray,
    ys: np.ndarray,
    sorts: np.ndarray,
    xt: np.ndarray,
    ip: np.ndarray,
    fp: np.ndarray,
    node_i: np.ndarray,
    node_f: np.ndarray,
    sv: np.ndarray,
    si: np.ndarray,
    ss: np.ndarray,
    sd: np.ndarray,
    sc: np.ndarray,
    goes_left: np.ndarray,
    tempvec: np.ndarray,
    tempf: np.ndarray,
    cnt: np.ndarray,
    inv: np.ndarray,
    pre_f: np.ndarray,
    pre_d: np.ndarray,
    order: np.ndarray,
    srcv: np.ndarray,
    tie_idx: np.ndarray,
    tie_s: np.ndarray,
    tie_v: np.ndarray,
    y: np.ndarray,
    rows: np.ndarray,
) -> None:
    """rpart ``partition.c`` from the root (slot 0), recursion unrolled.

    ``ip``, ``fp``, ``node_i[slot]``, ``node_f[slot]``: columns named by the ``IP_``,
    ``FP_``, ``NI_`` and ``NF_`` constants above (``node_f`` slot 0 preset with the
    root's risk as both); ``s*`` hold the split lists; ``cnt`` = [slots used,
    split entries used]; ``vals``, ``ys``, ``sorts``: the columns in sorted order
    (:func:`sorted_columns`), partitioned in place; ``xt``: the (p, N) data the row ids of
    ``sorts`` index. The recursion of the C code is replayed with an explicit stack of
    frames (numba cannot cache recursive functions); each frame goes through the C
    function's three stages: split the node and descend left, descend right, combine the
    children's complexities.

    The nodes of the last level that splits (``node <= maxnode < 2 * node``) have their
    variables' best splits found by their parent (:func:`children_splits` into ``pre_f``
    ((2, 2, p) float64) and ``pre_d`` ((2, p) int64), read by :func:`bsplit_given`), so
    that only column 0 is re-ordered for them: same splits, improvements and risks as
    rpart's re-partition of every column.

    The root reads its columns in place (``order``, ``srcv``, ``tie_*``: the sources of
    :func:`root_sources`; ``y`` by row id, ``rows`` its row ids): its split list by
    :func:`_root_bsplit`, its children's order written to the work arrays by
    :func:`_root_partition`; so these hold only the columns the rest of the fit
    re-orders: all of them when the root's grandchildren may split (``maxnode >= 4``),
    else column 0 (``sorts.shape[0]``).
    """
    min_split, min_node = ip[IP_MIN_SPLIT], ip[IP_MIN_NODE]
    maxnode, maxpri, alpha = ip[IP_MAXNODE], ip[IP_MAXPRI], fp[FP_ALPHA]
    depth_cap = 64
    # the stack of frames: int64 fields (FR_ columns) and the left child's risk; every
    # field is written when the frame is pushed or before it is read
    fr = np.empty((depth_cap, FR_NCOL), dtype=np.int64)
    f_lrisk = np.empty(depth_cap, dtype=np.float64)
    ret_split = 0
    ret_risk = 0.0
    _push(fr, 0, 1, 0, 0, ip[IP_N])
    sp = 1
    while sp > 0:
        f = sp - 1
        nodenum = fr[f, FR_NODENUM]
        me = fr[f, FR_SLOT]
        n1 = fr[f, FR_N1]
        n2 = fr[f, FR_N2]
        if fr[f, FR_STAGE] == 0:
            if nodenum > 1:
                node_f[me, NF_RISK] = anovass_range(ys[0], n1, n2)
                tempcp = node_f[me, NF_RISK]
                if tempcp > node_f[me, NF_CP]:
                    tempcp = node_f[me, NF_CP]
            else:
                tempcp = node_f[me, NF_RISK]
            my_risk = node_f[me, NF_RISK]
            # Can I quit now?
            if (n2 - n1) < min_split or tempcp <= alpha or nodenum > maxnode:
                node_f[me, NF_CP] = alpha
                ret_split = 0
                ret_risk = my_risk
                sp -= 1
                continue
            start = cnt[1]
            # the last level that splits: found by the parent (children_splits)
            given = nodenum > 1 and 2 * nodenum > maxnode
            if nodenum == 1:
                nl, iscale = _root_bsplit(order, srcv, tie_idx, tie_s, tie_v, y, min_node,
                                          my_risk, maxpri, sv[start:], si[start:], ss[start:],
                                          sd[start:], sc[start:], inv, tempf[1])
            elif given:
                c = nodenum & 1  # the left child's number is even
                nl, iscale = bsplit_given(pre_f[c], pre_d[c], n2 - n1, my_risk, fp[FP_ISCALE],
                                          maxpri, sv[start:], si[start:], ss[start:],
                                          sd[start:], sc[start:])
            else:
                nl, iscale = bsplit(vals, ys, n1, n2, min_node, my_risk, fp[FP_ISCALE], maxpri,
                                    sv[start:], si[start:], ss[start:], sd[start:], sc[start:],
                                    inv)
            fp[FP_ISCALE] = iscale
            if nl == 0:
                # rather rare: no split worth doing
                node_f[me, NF_CP] = alpha
                ret_split = 0
                ret_risk = my_risk
                sp -= 1
                continue
            cnt[1] = start + nl
            node_i[me, NI_SPLIT0] = start
            node_i[me, NI_NSPLIT] = nl
            if nodenum == 1:
                nleft = send_left(vals, rows.reshape((np.int64(1), rows.shape[0])), xt, n1, n2,
                                  sv[start], ss[start], sd[start], goes_left, True)
                _root_partition(order, srcv, tie_idx, tie_s, tie_v, y, nleft, goes_left, sorts,
                                vals, ys, 2 <= maxnode < 4, min_node, min_split, inv, tempf,
                                pre_f, pre_d)
            else:
                nleft = send_left(vals, sorts, xt, n1, n2, sv[start], ss[start], sd[start],
                                  goes_left, given)
                if 2 * nodenum > maxnode:
                    # children beyond maxnode only compute their risk (from ys[0])
                    nvars = 1
                elif 4 * nodenum > maxnode:
                    # the children are the last level that splits
                    children_splits(vals, ys, sorts, n1, n2, nleft, goes_left, min_node,
                                    min_split, inv, tempf, pre_f, pre_d)
                    nvars = 1
                else:
                    nvars = sorts.shape[0]
                nodesplit(vals, ys, sorts, n1, n2, nleft, goes_left, tempvec, tempf, nvars)
            fr[f, FR_NLEFT] = nleft
            lslot = cnt[0]
            rslot = lslot + 1
            cnt[0] += 2
            node_i[lslot, NI_NUM] = 2 * nodenum
            node_i[rslot, NI_NUM] = 2 * nodenum + 1
            node_i[me, NI_LEFT] = lslot
            node_i[me, NI_RIGHT] = rslot
            # split the left son
            node_f[lslot, NF_CP] = tempcp - alpha
            fr[f, FR_STAGE] = 1
            _push(fr, sp, 2 * nodenum, lslot, n1, n1 + nleft)
            sp += 1
        elif fr[f, FR_STAGE] == 1:
            left_split = ret_split
            left_risk = ret_risk
            fr[f, FR_LSPLIT] = left_split
            f_lrisk[f] = left_risk
            _right_son_cp(node_i, node_f, me, left_split, left_risk, alpha)
            fr[f, FR_STAGE] = 2
            _push(fr, sp, 2 * nodenum + 1, node_i[me, NI_RIGHT], n1 + fr[f, FR_NLEFT], n2)
            sp += 1
        else:
            left_split = fr[f, FR_LSPLIT]
            left_risk = f_lrisk[f]
            ret_split, ret_risk = _combine_sons(node_i, node_f, me, left_split, left_risk,
                                                ret_split, ret_risk, alpha)
            sp -= 1


@njit(cache=True, error_model="numpy", inline="always")
def _split_nodes_preorder(node_i: np.ndarray, cap: int) -> tuple[np.ndarray, int]:
    """rpmatrix's walk: the slots of the nodes that split, in pre-order (left subtree
    before right subtree), in the first ``nout`` entries of the array returned."""
    stack = np.empty(cap + 2, dtype=np.int64)
    order_out = np.empty(cap, dtype=np.int64)
    nout = 0
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        s = stack[top]
        if node_i[s, NI_LEFT] < 0:
            continue
        order_out[nout] = s
        nout += 1
        stack[top] = node_i[s, NI_RIGHT]
        stack[top + 1] = node_i[s, NI_LEFT]
        top += 2
    return order_out, nout


@njit(cache=True, error_model="numpy", inline="always")
def _split_table(m: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The split table's columns for ``m`` entries: int64 rows ``TI_*``, float64 rows
    ``TF_*``, and the primary flags."""
    return (np.empty((np.int64(4), m), dtype=np.int64),
            np.empty((np.int64(2), m), dtype=np.float64), np.empty(m, dtype=np.bool_))


@njit(cache=True, nogil=True, error_model="numpy")
def rpart_anova(xt: np.ndarray, y: np.ndarray, order: np.ndarray, maxdepth: int,
                min_split: int, min_node: int, cp: float,
                maxcompete: int) -> SplitTable:
    """Fit rpart's anova tree and return its split table (rows with count > 0).

    ``xt`` is the (p, n) predictor matrix, ``y`` the response, ``order`` a
    (p, n) matrix of ascending orders of the rows of ``xt`` (any tie order).
    Returns ``(node, var, index, count, ncat, improve, primary)`` arrays, one
    entry per primary/competitor split, in rpart's table order (``rpmatrix``:
    nodes in pre-order, each node's list by decreasing improvement).
    """
    p, n = xt.shape
    k = work_columns(p, maxdepth)
    return rpart_anova_rows(
        xt, y, order, np.arange(n), np.empty((k, n), dtype=np.int64),
        np.empty((k, n), dtype=np.float64), np.empty((k, n), dtype=np.float64), maxdepth,
        min_split, min_node, cp, maxcompete, np.empty((0, 0), dtype=np.float64)
    )


@njit(cache=True, nogil=True, error_model="numpy")
def rpart_anova_rows(xt: np.ndarray, y: np.ndarray, order: np.ndarray, rows: np.ndarray,
                     sorts: np.ndarray, vals: np.ndarray, ys: np.ndarray,
                     maxdepth: int, min_split: int, min_node: int, cp: float,
                     maxcompete: int, ordv: np.ndarray) -> SplitTable:
    """:func:`rpart_anova` on a subset of the columns of ``xt`` (and entries of ``y``):
    the fit's rows are the row ids ``rows`` (in the fit's row order), ``order`` holds
    (p, len(rows)) ascending orders of them as row ids. Avoids gathering the rows.
    ``sorts``, ``vals``, ``ys``: the (k, len(rows)) work arrays, given by the caller
    (:func:`work_arrays`; k >= :func:`work_columns`); ``ordv``: the values in the order of
    ``order``, or (0, 0) (then read by row id)."""
    p = xt.shape[0]
    n = rows.shape[0]
    if (sorts.shape[0] < work_columns(p, maxdepth) or sorts.shape[1] != n
            or vals.shape != sorts.shape or ys.shape != sorts.shape):
        raise ValueError("rpart_anova_rows: work arrays too small (see work_columns)")
    maxpri = maxcompete + 1
    if maxpri < 1:
        maxpri = 1
    yr = np.empty(n, dtype=np.float64)  # y in row order: rpart sums the root's risk so
    for k in range(n):
        yr[k] = y[rows[k]]
    root_risk = anovass_range(yr, np.int64(0), n) if n > 0 else 0.0
    alpha = cp * root_risk
    zero = np.int64(0)
    if n == 0 or p == 0 or n < min_split or root_risk <= alpha:
        # partition() stops at the root: no split table (spare the sorting)
        ti, tf, tp = _split_table(zero)
        return ti[TI_NODE], ti[TI_VAR], tf[TF_INDEX], ti[TI_COUNT], ti[TI_NCAT], \
            tf[TF_IMPROVE], tp
    maxnode = (1 << maxdepth) - 1
    cap = 2 * n + 3
    if 2 * maxnode + 3 < cap:
        cap = 2 * maxnode + 3
    srcv, tie_idx, tie_s, tie_v = root_sources(xt, order, rows, ordv)
    # np.empty and loops rather than np.array / np.full / np.zeros / np.arange /
    # np.concatenate: each of those is one or more extra compiles at the first fit
    ip = np.empty(np.int64(5), dtype=np.int64)
    ip[IP_MIN_SPLIT] = min_split
    ip[IP_MIN_NODE] = min_node
    ip[IP_MAXNODE] = maxnode
    ip[IP_MAXPRI] = maxpri
    ip[IP_N] = n
    fp = np.empty(np.int64(2), dtype=np.float64)
    fp[FP_ALPHA] = alpha
    fp[FP_ISCALE] = 0.0
    node_i = np.empty((cap, np.int64(5)), dtype=np.int64)
    node_f = np.empty((cap, np.int64(2)), dtype=np.float64)
    for s in range(cap):
        for c in range(5):
            node_i[s, c] = -1
        node_f[s, 0] = 0.0
        node_f[s, 1] = 0.0
    nsp = cap * maxpri
    sv = np.empty(nsp, dtype=np.int64)
    si = np.empty(nsp, dtype=np.float64)
    ss = np.empty(nsp, dtype=np.float64)
    sd = np.empty(nsp, dtype=np.int64)
    sc = np.empty(nsp, dtype=np.int64)
    for s in range(nsp):
        sv[s] = 0
        si[s] = 0.0
        ss[s] = 0.0
        sd[s] = 0
        sc[s] = 0
    goes_left = np.empty((xt.shape[1] + 7) >> 3, dtype=np.uint8)  # one bit per row id
    for s in range(goes_left.shape[0]):
        goes_left[s] = 0
    tempvec = np.empty(n + 1, dtype=np.int64)
    tempf = np.empty((np.int64(2), n + 2), dtype=np.float64)
    for s in range(n + 1):
        tempvec[s] = 0
    cnt = np.empty(np.int64(2), dtype=np.int64)
    cnt[0] = 1
    cnt[1] = 0
    node_i[0, NI_NUM] = 1
    node_i[0, NI_NSPLIT] = 0
    node_f[0, NF_CP] = root_risk
    node_f[0, NF_RISK] = root_risk
    # inv[m] = 1.0 / m (one correctly rounded division, as 1.0 / np.arange(...) gives)
    inv = np.empty(n + 1, dtype=np.float64)
    inv[0] = 0.0
    for s in range(1, n + 1):
        inv[s] = 1.0 / s
    _partition_tree(
        vals, ys, sorts, xt, ip, fp, node_i, node_f, sv, si, ss, sd, sc, goes_left, tempvec,
        tempf, cnt, inv, np.empty((np.int64(2), np.int64(2), p), dtype=np.float64),
        np.empty((np.int64(2), p), dtype=np.int64), order, srcv, tie_idx, tie_s, tie_v, y, rows
    )

    # rpmatrix: pre-order walk, left subtree before right subtree
    order_out, nout = _split_nodes_preorder(node_i, cap)
    m = 0
    for t in range(nout):
        m += node_i[order_out[t], NI_NSPLIT]
    ti, tf, tp = _split_table(m)
    r = 0
    for t in range(nout):
        s = order_out[t]
        st = node_i[s, NI_SPLIT0]
        for u in range(node_i[s, NI_NSPLIT]):
            ti[TI_NODE, r] = node_i[s, NI_NUM]
            ti[TI_VAR, r] = sv[st + u]
            tf[TF_INDEX, r] = ss[st + u]
            ti[TI_COUNT, r] = sc[st + u]
            ti[TI_NCAT, r] = sd[st + u]
            tf[TF_IMPROVE, r] = si[st + u]
            tp[r] = u == 0
            r += 1
    return ti[TI_NODE], ti[TI_VAR], tf[TF_INDEX], ti[TI_COUNT], ti[TI_NCAT], tf[TF_IMPROVE], tp


# ---------------------------------------------------------------------------------------
# predictors with missing values: rpart's own code path, surrogate splits included
#
# rpart treats every non-finite x (NaN, Inf, -Inf: ``!R_FINITE``) as missing. R bsnsing
# imputes NA before it calls rpart, but an infinite value reaches rpart and is missing
# there: its row is left out of that variable's splits, and it goes down the tree by a
# surrogate split (or the majority direction). The surrogate rows that sent rows
# (``count > 0``) are in ``$splits``, so R bsnsing makes questions of them. The kernels
# below port the C routines as they are (every variable re-partitioned at every node);
# they serve the nodes whose rows hold a non-finite value, and on finite data they give
# the table of :func:`rpart_anova` with its surrogate rows added (a test checks this).

#: the kinds of the rows of :func:`rpart_anova_missing`'s table
KIND_PRIMARY, KIND_COMPETITOR, KIND_SURROGATE = range(3)
#: ``node_s[slot]`` of :func:`rpart_anova_missing`: first entry and number of entries in
#: the surrogate lists, the default direction (``lastsurrogate``: LEFT, RIGHT or 0)
NS_SUR0, NS_NSUR, NS_LAST = range(3)


@njit(cache=True, error_model="numpy", inline="always")
def _choose_surg(n1: int, n2: int, tempy: np.ndarray, x: np.ndarray, order: np.ndarray,
                 tleft: float, tright: float, sur_agree: int) -> tuple[float, float, int, float]:
    """rpart ``choose_surg`` for a continuous variable (unit weights): the split of ``x``
    (rows ``order[n1:n2]``, negative = missing) that best agrees with the primary split's
    directions ``tempy`` (by row id: LEFT, RIGHT, 0 = primary missing), at least 2 rows
    each way. Returns ``(agreement, split, direction, adjusted agreement)``; agreement
    and adj are 0 when no split beats the majority."""
    lastx = 0.0
    ll = 0
    rl = 0
    llwt = 0.0
    rlwt = 0.0
    for i in range(n2 - 1, n1 - 1, -1):  # start with me sending all to the left
        j = order[i]
        if j >= 0:
            lastx = x[j]
            if tempy[j] == LEFT:
                ll += 1
                llwt += 1.0
            elif tempy[j] == RIGHT:
                rl += 1
                rlwt += 1.0
    agree = llwt if llwt > rlwt else rlwt
    majority = agree  # worst possible agreement
    total_wt = llwt + rlwt
    lr = 0
    rr = 0
    lrwt = 0.0
    rrwt = 0.0
    direction = LEFT
    split = lastx
    success = False
    i = n1
    while ll + rl >= 2:  # march across, moving rows from the right to the left
        j = order[i]
        if j >= 0:
            if lr + rr >= 2 and x[j] != lastx:
                if llwt + rrwt > agree:
                    success = True
                    agree = llwt + rrwt
                    direction = RIGHT  # < goes to the right
                    split = (x[j] + lastx) / 2
                elif lrwt + rlwt > agree:
                    success = True
                    agree = lrwt + rlwt
                    direction = LEFT
                    split = (x[j] + lastx) / 2
            if tempy[j] == LEFT:
                ll -= 1
                lr += 1
                llwt -= 1.0
                lrwt += 1.0
            elif tempy[j] == RIGHT:
                rl -= 1
                rr += 1
                rlwt -= 1.0
                rrwt += 1.0
            lastx = x[j]
        i += 1
    if not success:
        return 0.0, split, direction, 0.0
    if sur_agree == 0:  # the total table is the denominator
        total_wt = tleft + tright
        majority = tleft if tleft > tright else tright
    agreement = agree / total_wt
    majority /= total_wt
    return agreement, split, direction, (agreement - majority) / (1.0 - majority)


@njit(cache=True, error_model="numpy", inline="always")
def _surrogates(xt: np.ndarray, sorts: np.ndarray, n1: int, n2: int, var: int,
                spoint: float, extra: int, maxsur: int, sur_agree: int, tempy: np.ndarray,
                uv: np.ndarray, ui: np.ndarray, us: np.ndarray, ud: np.ndarray,
                uc: np.ndarray) -> tuple[int, int]:
    """rpart ``surrogate``: the surrogate list of the node at positions ``n1:n2`` whose
    primary split is ``x[var] < spoint`` (direction ``extra``), into the ``u*`` arrays
    (variable, agreement, split point, direction, count 0). Returns ``(list length,
    lastsurrogate)``."""
    lcount = 0.0
    rcount = 0.0
    for i in range(n1, n2):
        j = sorts[var, i]
        if j < 0:
            tempy[-(j + 1)] = 0
        else:
            tempy[j] = extra if xt[var, j] < spoint else -extra
            if tempy[j] == LEFT:
                lcount += 1.0
            else:
                rcount += 1.0
    last = RIGHT if lcount < rcount else (LEFT if lcount > rcount else 0)
    ns = 0
    for i in range(xt.shape[0]):
        if i == var:
            continue
        agree, split, direction, adj = _choose_surg(n1, n2, tempy, xt[i], sorts[i], lcount,
                                                    rcount, sur_agree)
        if adj <= 1e-10:
            continue  # no better than the default
        pos, ns = _list_slot(agree, ns, maxsur, uv, ui, us, ud, uc)
        if pos >= 0:
            uv[pos] = i
            ui[pos] = agree
            us[pos] = split
            ud[pos] = direction
            uc[pos] = 0  # counted by nodesplit
    return ns, last


@njit(cache=True, error_model="numpy", inline="always")
def _nodesplit_missing(xt: np.ndarray, sorts: np.ndarray, which: np.ndarray,
                       tempvec: np.ndarray, nodenum: int, n1: int, n2: int, var: int,
                       spoint: float, extra: int, usesurrogate: int, ns: int, last: int,
                       uv: np.ndarray, us: np.ndarray, ud: np.ndarray,
                       uc: np.ndarray) -> tuple[int, int]:
    """rpart ``nodesplit`` with missing values: rows go left/right by the primary split,
    a row missing it by the first surrogate it is not missing (whose count goes up), else
    (``usesurrogate == 2``) by the majority direction ``last``; the others stay home.
    Every variable's slice ``n1:n2`` of ``sorts`` is re-ordered to {left, right, stay}
    (stable in the first two). Returns ``(nleft, nright)``."""
    leftson = 2 * nodenum
    rightson = leftson + 1
    someleft = 0
    nleft = 0
    nright = 0
    for i in range(n1, n2):
        j = sorts[var, i]
        if j < 0:
            someleft += 1
        else:
            k = extra if xt[var, j] < spoint else -extra
            if k == LEFT:
                which[j] = leftson
                nleft += 1
            else:
                which[j] = rightson
                nright += 1
    if someleft > 0 and usesurrogate > 0:
        for i in range(n1, n2):
            j = sorts[var, i]
            if j >= 0:
                continue  # already split
            j = -(j + 1)
            for s in range(ns):
                v = uv[s]
                if not np.isfinite(xt[v, j]):
                    continue
                uc[s] += 1
                k = ud[s] if xt[v, j] < us[s] else -ud[s]
                if k == LEFT:
                    which[j] = leftson
                    nleft += 1
                else:
                    which[j] = rightson
                    nright += 1
                someleft -= 1
                break
    if someleft > 0 and usesurrogate == 2 and last != 0:
        # all surrogates missing: the default direction (no default on a 50-50 split)
        if last < 0:
            dest = leftson
            nleft += someleft
        else:
            dest = rightson
            nright += someleft
        for i in range(n1, n2):
            j = sorts[var, i]
            if j < 0:
                j = -(j + 1)
                if which[j] == nodenum:
                    which[j] = dest
    for v in range(sorts.shape[0]):
        i1 = n1
        i2 = i1 + nleft
        i3 = i2 + nright
        for i in range(n1, n2):
            j = sorts[v, i]
            jj = -(j + 1) if j < 0 else j
            if which[jj] == leftson:
                sorts[v, i1] = j
                i1 += 1
            elif which[jj] == rightson:
                tempvec[i2] = j
                i2 += 1
            else:
                tempvec[i3] = j  # went nowhere
                i3 += 1
        for i in range(n1 + nleft, n2):
            sorts[v, i] = tempvec[i]
    return nleft, nright


@njit(cache=True, nogil=True, error_model="numpy")
def rpart_anova_missing(xt: np.ndarray, y: np.ndarray, maxdepth: int, min_split: int,
                        min_node: int, cp: float, maxcompete: int, maxsurrogate: int,
                        usesurrogate: int, surrogatestyle: int) -> SplitTable:
    """rpart's anova tree on predictors that may hold non-finite (missing) values, unit
    weights: the whole split table, in rpart's order (nodes in pre-order; each node's
    primary split, its competitors by decreasing improvement, then its surrogates by
    decreasing agreement).

    Returns ``(node, var, index, count, ncat, improve, kind)``: ``count`` is the rows
    that were not missing the variable (a surrogate's: the rows it sent, possibly 0),
    ``ncat`` the direction, ``improve`` the improvement (a surrogate's: its agreement),
    ``kind`` :data:`KIND_PRIMARY`, :data:`KIND_COMPETITOR` or :data:`KIND_SURROGATE`.
    The control arguments are those of ``rpart.control``."""
    p, n = xt.shape
    maxpri = maxcompete + 1
    if maxpri < 1:
        maxpri = 1
    maxsur = maxsurrogate if maxsurrogate > 0 else 0
    root_risk = anovass_range(y, np.int64(0), n) if n > 0 else 0.0
    alpha = cp * root_risk
    maxnode = (1 << maxdepth) - 1
    cap = 2 * n + 3
    if 2 * maxnode + 3 < cap:
        cap = 2 * maxnode + 3
    node_i = np.full((cap, 5), -1, dtype=np.int64)
    node_f = np.zeros((cap, 2), dtype=np.float64)
    node_s = np.zeros((cap, 3), dtype=np.int64)
    nsp = cap * maxpri
    sv = np.zeros(nsp, dtype=np.int64)
    si = np.zeros(nsp, dtype=np.float64)
    ss = np.zeros(nsp, dtype=np.float64)
    sd = np.zeros(nsp, dtype=np.int64)
    sc = np.zeros(nsp, dtype=np.int64)
    nsu = cap * max(maxsur, 1)
    uv = np.zeros(nsu, dtype=np.int64)
    ui = np.zeros(nsu, dtype=np.float64)
    us = np.zeros(nsu, dtype=np.float64)
    ud = np.zeros(nsu, dtype=np.int64)
    uc = np.zeros(nsu, dtype=np.int64)
    node_i[0, NI_NUM] = 1
    node_i[0, NI_NSPLIT] = 0
    node_f[0, NF_CP] = root_risk
    node_f[0, NF_RISK] = root_risk
    if n > 0 and p > 0 and n >= min_split and root_risk > alpha:
        sorts = sort_columns(xt)  # (missing rows as -(k + 1))
        which = np.ones(n, dtype=np.int64)
        tempvec = np.zeros(n, dtype=np.int64)
        tempy = np.zeros(n, dtype=np.int64)
        xs = np.empty(n + 1, dtype=np.float64)
        ty = np.empty(n + 1, dtype=np.float64)
        inv = np.empty(n + 1, dtype=np.float64)
        inv[0] = 0.0
        for s in range(1, n + 1):
            inv[s] = 1.0 / s
        cnt = np.zeros(3, dtype=np.int64)  # slots, primary entries, surrogate entries used
        cnt[0] = 1
        fr = np.zeros((64, FR_NCOL + 1), dtype=np.int64)  # + the right son's row count
        f_lrisk = np.zeros(64, dtype=np.float64)
        iscale = 0.0
        ret_split = 0
        ret_risk = 0.0
        _push(fr, 0, 1, 0, 0, n)
        sp = 1
        while sp > 0:
            f = sp - 1
            nodenum = fr[f, FR_NODENUM]
            me = fr[f, FR_SLOT]
            n1 = fr[f, FR_N1]
            n2 = fr[f, FR_N2]
            if fr[f, FR_STAGE] == 0:
                if nodenum > 1:
                    for i in range(n1, n2):
                        j = sorts[0, i]  # any variable would do, use the first
                        ty[i - n1] = y[-(j + 1) if j < 0 else j]
                    node_f[me, NF_RISK] = anovass_range(ty, np.int64(0), n2 - n1)
                    tempcp = min(node_f[me, NF_RISK], node_f[me, NF_CP])
                else:
                    tempcp = node_f[me, NF_RISK]
                my_risk = node_f[me, NF_RISK]
                if (n2 - n1) < min_split or tempcp <= alpha or nodenum > maxnode:
                    node_f[me, NF_CP] = alpha
                    ret_split = 0
                    ret_risk = my_risk
                    sp -= 1
                    continue
                # bsplit: each variable on its rows that are not missing it
                start = cnt[1]
                nl = 0
                for i in range(p):
                    k = 0
                    for t in range(n1, n2):
                        j = sorts[i, t]
                        if j >= 0:
                            xs[k] = xt[i, j]
                            ty[k] = y[j]
                            k += 1
                    if k == 0 or xs[0] == xs[k - 1]:
                        continue  # no place to split
                    improve, split, direction = anova_continuous(xs, ty, k, min_node, my_risk,
                                                                 inv)
                    nl, iscale = _insert_split(i, k, improve, split, direction, nl, iscale,
                                               maxpri, sv[start:], si[start:], ss[start:],
                                               sd[start:], sc[start:])
                if nl == 0:
                    # rather rare: no split worth doing
                    node_f[me, NF_CP] = alpha
                    ret_split = 0
                    ret_risk = my_risk
                    sp -= 1
                    continue
                cnt[1] = start + nl
                node_i[me, NI_SPLIT0] = start
                node_i[me, NI_NSPLIT] = nl
                var = sv[start]
                spoint = ss[start]
                extra = sd[start]
                u0 = cnt[2]
                ns = 0
                last = 0
                if maxsur > 0:
                    ns, last = _surrogates(xt, sorts, n1, n2, var, spoint, extra, maxsur,
                                           surrogatestyle, tempy, uv[u0:], ui[u0:], us[u0:],
                                           ud[u0:], uc[u0:])
                cnt[2] = u0 + ns
                node_s[me, NS_SUR0] = u0
                node_s[me, NS_NSUR] = ns
                node_s[me, NS_LAST] = last
                nleft, nright = _nodesplit_missing(xt, sorts, which, tempvec, nodenum, n1, n2,
                                                   var, spoint, extra, usesurrogate, ns, last,
                                                   uv[u0:], us[u0:], ud[u0:], uc[u0:])
                fr[f, FR_NLEFT] = nleft
                fr[f, FR_NCOL] = nright
                lslot = cnt[0]
                cnt[0] += 2
                node_i[lslot, NI_NUM] = 2 * nodenum
                node_i[lslot + 1, NI_NUM] = 2 * nodenum + 1
                node_i[me, NI_LEFT] = lslot
                node_i[me, NI_RIGHT] = lslot + 1
                node_f[lslot, NF_CP] = tempcp - alpha
                fr[f, FR_STAGE] = 1
                _push(fr, sp, 2 * nodenum, lslot, n1, n1 + nleft)
                sp += 1
            elif fr[f, FR_STAGE] == 1:
                fr[f, FR_LSPLIT] = ret_split
                f_lrisk[f] = ret_risk
                _right_son_cp(node_i, node_f, me, ret_split, ret_risk, alpha)
                fr[f, FR_STAGE] = 2
                r1 = n1 + fr[f, FR_NLEFT]
                _push(fr, sp, 2 * nodenum + 1, node_i[me, NI_RIGHT], r1, r1 + fr[f, FR_NCOL])
                sp += 1
            else:
                ret_split, ret_risk = _combine_sons(node_i, node_f, me, fr[f, FR_LSPLIT],
                                                    f_lrisk[f], ret_split, ret_risk, alpha)
                sp -= 1
    # rpmatrix: pre-order walk, each split node's primaries then its surrogates
    order_out, nout = _split_nodes_preorder(node_i, cap)
    m = 0
    for t in range(nout):
        m += node_i[order_out[t], NI_NSPLIT] + node_s[order_out[t], NS_NSUR]
    out_node = np.empty(m, dtype=np.int64)
    out_var = np.empty(m, dtype=np.int64)
    out_index = np.empty(m, dtype=np.float64)
    out_count = np.empty(m, dtype=np.int64)
    out_ncat = np.empty(m, dtype=np.int64)
    out_improve = np.empty(m, dtype=np.float64)
    out_kind = np.empty(m, dtype=np.int64)
    r = 0
    for t in range(nout):
        s = order_out[t]
        st = node_i[s, NI_SPLIT0]
        for u in range(node_i[s, NI_NSPLIT]):
            out_node[r] = node_i[s, NI_NUM]
            out_var[r] = sv[st + u]
            out_index[r] = ss[st + u]
            out_count[r] = sc[st + u]
            out_ncat[r] = sd[st + u]
            out_improve[r] = si[st + u]
            out_kind[r] = KIND_PRIMARY if u == 0 else KIND_COMPETITOR
            r += 1
        st = node_s[s, NS_SUR0]
        for u in range(node_s[s, NS_NSUR]):
            out_node[r] = node_i[s, NI_NUM]
            out_var[r] = uv[st + u]
            out_index[r] = us[st + u]
            out_count[r] = uc[st + u]
            out_ncat[r] = ud[st + u]
            out_improve[r] = ui[st + u]
            out_kind[r] = KIND_SURROGATE
            r += 1
    return out_node, out_var, out_index, out_count, out_ncat, out_improve, out_kind
