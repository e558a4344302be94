"""Numba kernels that pack a node's question answers into the ENUM search's bit layout.

The search (:mod:`pybsnsing.kernels.enum`) reads each question as two bit rows: ``Xp[q]``
over the node's target-class rows and ``Xn[q]`` over its other rows, bit ``s`` of word
``s >> 6`` standing for the class's ``s``-th row (:func:`node_slots` numbers them).  The
question sources of the tree write into that layout without an n x m matrix:

* internal questions (:class:`pybsnsing.questions.QuestionSet`) as unions of position
  ranges of the columns' sorted orders (:func:`pack_questions`; :func:`fill_dense` is
  the dense form for the NumPy oracle and the MIP solvers);
* native rpart questions (:class:`pybsnsing.external.NodeExternal`) as a prefix or a
  suffix of a sorted order (:func:`cut_positions` finds where a cut falls,
  :func:`pack_cuts` packs);
* questions given as a dense 0/1 matrix (R's rpart through rpy2; :func:`pack_dense_into`).

:func:`split_orders` splits a large node's sorted orders into its children's
(:func:`split_orders_in_place` within the node's own block; :func:`column_sides` and
:func:`split_by_sides` the same in two threads);
:func:`rule_sides` splits a node's rows by the numeric comparisons of its rule.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import packed_bit, set_row_bits

# Answers from sorted orders
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


@njit(cache=True, nogil=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy", inline="always")
def _slot_bit(s):
    """Where the node row with slot ``s`` (:func:`node_slots`) sits in the packed rows:
    ``(target, word, bit)``, ``target`` True for ``Xp`` (slot ``s``), False for ``Xn``
    (slot ``-1 - s``).  Scalars only: an array argument of an inlined helper costs
    reference counting in the innermost loop."""
    if s < 0:
        s = -1 - s
        return False, s >> 6, np.uint64(1) << np.uint64(s & 63)
    return True, s >> 6, np.uint64(1) << np.uint64(s & 63)


@njit(cache=True, error_model="numpy", inline="always")
def _copy_row(X, q, b):
    """Row ``b`` of ``X`` into row ``q`` (a question starts from its base's answers)."""
    for w in range(X.shape[1]):
        X[q, w] = X[b, w]


@njit(cache=True, nogil=True, error_model="numpy")
def pack_questions(ordm, slot, qcol, qbase, rptr, rlo, rhi, proc, Xp, Xn):
    """Bit-pack the answers of range-described questions into rows of ``Xp``/``Xn``.

    ``Xp``/``Xn`` (uint64, zeroed, at least ``len(qcol)`` rows) receive question ``q`` in
    row ``q``: bit ``s`` of the target-class part is set when the row with ``slot == s``
    answers YES, likewise the other class with ``slot == -1 - s`` (see
    :func:`node_slots`).  Row ids in ``ordm`` index ``slot``.
    """
    # the slots of a column's rows in its sorted order, gathered once per column (the
    # questions of a column come together in ``proc``): a random read per position and
    # direction was most of the packing's time on large nodes
    osl = np.empty(ordm.shape[1], np.int64)
    cur = -1
    for t in range(proc.shape[0]):
        q = proc[t]
        b = qbase[q]
        if b >= 0:
            _copy_row(Xp, q, b)
            _copy_row(Xn, q, b)
        j = qcol[q]
        if j != cur:
            cur = j
            for pos in range(ordm.shape[1]):
                osl[pos] = slot[ordm[j, pos]]
        for r in range(rptr[q], rptr[q + 1]):
            for pos in range(rlo[r], rhi[r]):
                target, w, bit = _slot_bit(osl[pos])
                if target:
                    Xp[q, w] |= bit
                else:
                    Xn[q, w] |= bit


@njit(cache=True, nogil=True, error_model="numpy")
def pack_dense_into(B, rows, slot, Xp, Xn, offset):
    """Bit-pack a dense 0/1 answer matrix ``B`` (n x k uint8, the node's rows in node
    order ``rows``) into rows ``offset .. offset + k - 1`` of ``Xp``/``Xn`` (zeroed), with
    the bit slots of :func:`node_slots`."""
    for t in range(B.shape[0]):
        s = slot[rows[t]]
        if s >= 0:
            set_row_bits(B, t, Xp, offset, s)
        else:
            set_row_bits(B, t, Xn, offset, -1 - s)


@njit(cache=True, nogil=True, error_model="numpy")
def fill_dense(ordm, local, qcol, qbase, rptr, rlo, rhi, proc, BT):
    """The dense form of :func:`pack_questions`: ``BT[q, local[i]] = 1`` for every row id
    ``i`` answering question ``q`` YES (``BT``: m x n uint8, zeroed, i.e. the transposed
    answer matrix; ``local`` maps the row ids of ``ordm`` to answer positions)."""
    for t in range(proc.shape[0]):
        q = proc[t]
        b = qbase[q]
        if b >= 0:
            _copy_row(BT, q, b)
        j = qcol[q]
        for r in range(rptr[q], rptr[q + 1]):
            for pos in range(rlo[r], rhi[r]):
                BT[q, local[ordm[j, pos]]] = 1


@njit(cache=True, nogil=True, error_model="numpy")
def cut_positions(
    X: np.ndarray, ordm: np.ndarray, cols: np.ndarray, cuts: np.ndarray, tol: float
) -> tuple[np.ndarray, np.ndarray]:
    """Where each cut falls in the node's sorted column: ``pos[q]`` = number of node
    values of column ``cols[q]`` that are ``< cuts[q]``.

    ``X`` is the (N, p) matrix of all rows, ``ordm`` the node's (p, n) per-column
    ascending orders (row ids of ``X``). With ``tol > 0``, ``amb[q]`` is True when
    some node value of the column lies within ``|cut| * tol + 1e-300`` of the cut
    (an answer could then differ for a cut that close to it).
    """
    m = cols.shape[0]
    n = ordm.shape[1]
    pos = np.empty(m, dtype=np.int64)
    amb = np.empty(m, dtype=np.bool_)
    for q in range(m):
        amb[q] = False
        j = cols[q]
        c = cuts[q]
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) >> 1
            if X[ordm[j, mid], j] < c:
                lo = mid + 1
            else:
                hi = mid
        pos[q] = lo
        if tol > 0:
            d = abs(c) * tol + 1e-300
            if lo < n and X[ordm[j, lo], j] <= c + d:
                amb[q] = True
            if lo > 0 and X[ordm[j, lo - 1], j] >= c - d:
                amb[q] = True
    return pos, amb


@njit(cache=True, nogil=True, error_model="numpy")
def pack_cuts(
    X: np.ndarray,
    ordm: np.ndarray,
    rows: np.ndarray,
    slot: np.ndarray,
    cols: np.ndarray,
    pos: np.ndarray,
    ge: np.ndarray,
    Xp: np.ndarray,
    Xn: np.ndarray,
    offset: int,
) -> None:
    """Bit-pack questions ``x[col] < cut`` (``ge`` False: the first ``pos`` rows of the
    column's sorted order ``ordm`` answer YES) and ``x[col] >= cut`` (``ge`` True: the rows
    from ``pos`` on) into rows ``offset + q`` of ``Xp``/``Xn`` (zeroed), with the bit slots
    of :func:`node_slots` of the node's rows ``rows`` (row ids of ``X``, finite).

    The rows are read class by class in slot order, each answered against the first value
    past the prefix, ``t = x[ordm[col, pos]]`` (``x < t`` holds exactly for the prefix's
    rows; every row when ``pos`` is the node's size): sequential reads and whole words
    written, instead of a random read and a random bit per position of the sorted order.
    A question asking the opposite of an earlier one (same column and position) is its
    complement."""
    n = rows.shape[0]
    n1 = 0
    for k in range(n):
        n1 += slot[rows[k]] >= 0
    if n1 > 64 * Xp.shape[1] or n - n1 > 64 * Xn.shape[1]:
        raise ValueError("pack_cuts: fewer packed words than the node's rows need")
    byslot = np.empty(n, np.int64)  # the target rows in slot order, then the others
    for k in range(n):
        byslot[k] = -1
    for k in range(n):
        r = rows[k]
        sl = slot[r]
        at = sl if sl >= 0 else n1 - 1 - sl
        if sl >= n1 or at >= n or byslot[at] >= 0:
            raise ValueError("pack_cuts: the rows' slots are not node_slots' numbering")
        byslot[at] = r
    for q in range(cols.shape[0]):
        j = cols[q]
        row = offset + q
        twin = -1
        for q2 in range(q):
            if cols[q2] == j and pos[q2] == pos[q] and ge[q2] != ge[q]:
                twin = offset + q2
                break
        if twin >= 0:
            _complement_row(Xp, twin, row, n1)
            _complement_row(Xn, twin, row, n - n1)
            continue
        t = np.inf if pos[q] >= n else X[ordm[j, pos[q]], j]
        g = ge[q]
        _pack_class(X, byslot, 0, n1, j, t, g, Xp, row)
        _pack_class(X, byslot, n1, n, j, t, g, Xn, row)


@njit(cache=True, error_model="numpy", inline="always")
def _pack_class(X, byslot, a, b, j, t, g, B, row):
    """Bits ``0 .. b - a - 1`` of ``B[row]``: whether ``(x[j] < t) != g`` for the rows
    ``byslot[a:b]``."""
    word = np.uint64(0)
    for s in range(b - a):
        yes = (X[byslot[a + s], j] < t) != g
        word |= np.uint64(yes) << np.uint64(s & 63)
        if s & 63 == 63:
            B[row, s >> 6] = word
            word = np.uint64(0)
    if (b - a) & 63:
        B[row, (b - a) >> 6] = word


@njit(cache=True, error_model="numpy", inline="always")
def _complement_row(B, src, dst, nbits):
    """``B[dst]`` = the first ``nbits`` bits of ``B[src]`` inverted (the rest 0)."""
    full = nbits >> 6
    for w in range(full):
        B[dst, w] = ~B[src, w]
    rest = nbits & 63
    if rest:
        B[dst, full] = ~B[src, full] & ((np.uint64(1) << np.uint64(rest)) - np.uint64(1))


@njit(cache=True, nogil=True, error_model="numpy")
def split_orders(ordm, ordv, left_bits, left, right, left_v, right_v):
    """A node's sorted orders split into its children's, order kept (stable): row ``j`` of
    ``ordm`` (p, n) goes to row ``j`` of the (p, nl) matrix in ``left`` (the ids whose bit
    is set in ``left_bits``, uint8, ``np.packbits(mask, bitorder="little")``: an eighth
    of a boolean mask's cache footprint for the random reads) and of the (p, n - nl) one
    in ``right`` (the others), both given flat (``p * nl`` and ``p * (n - nl)`` long; they
    may be adjacent blocks of one array). With ``left_v`` not empty, the sorted values
    ``ordv`` (p, n) go along into ``left_v`` and ``right_v`` (same shapes as ``left`` and
    ``right``); else ``ordv`` is not read. One pass for large nodes, without branches:
    each id is written to both sides and the pointer of its side moves on, so a write past
    a row lands on the next row's first element before that row is written; past the last
    row, on the side's last element, which is written again at the end. Returns False
    when a row of ``ordm`` does not hold ``nl`` masked ids (nothing is written out of
    bounds)."""
    p, n = ordm.shape
    nl = left.shape[0] // p
    nr = n - nl
    if right.shape[0] != p * nr or left.shape[0] != p * nl:
        return False
    valued = left_v.shape[0] > 0
    if nl == 0 or nr == 0:  # one side takes every row
        return _split_one_side(ordm, ordv, left_bits, left if nr == 0 else right,
                               left_v if nr == 0 else right_v, nr == 0, valued)
    last_l = left.shape[0] - 1
    last_r = right.shape[0] - 1
    ok = True
    for j in range(p):
        a = j * nl
        b = j * nr
        if valued:
            for i in range(n):
                r = ordm[j, i]
                v = ordv[j, i]
                m = packed_bit(left_bits, r)
                at_l = a if a < last_l else last_l
                at_r = b if b < last_r else last_r
                left[at_l] = r
                right[at_r] = r
                left_v[at_l] = v
                right_v[at_r] = v
                a += m
                b += 1 - m
        else:
            for i in range(n):
                r = ordm[j, i]
                m = packed_bit(left_bits, r)
                left[a if a < last_l else last_l] = r
                right[b if b < last_r else last_r] = r
                a += m
                b += 1 - m
        ok = ok and a == (j + 1) * nl
    if ok:  # the last elements: the last row's last id of each side
        for side in range(2):  # (side 0: left, whose bits are 1)
            i = n - 1
            while packed_bit(left_bits, ordm[p - 1, i]) == side:
                i -= 1
            if side == 0:
                left[last_l] = ordm[p - 1, i]
            else:
                right[last_r] = ordm[p - 1, i]
            if valued:
                if side == 0:
                    left_v[last_l] = ordv[p - 1, i]
                else:
                    right_v[last_r] = ordv[p - 1, i]
    return ok


@njit(cache=True, nogil=True, error_model="numpy")
def _split_one_side(ordm, ordv, left_bits, out, out_v, to_left, valued):
    """:func:`split_orders` when one side takes every row: the lists copied into ``out``
    (and ``out_v``) when every id's bit says ``to_left``; else False, nothing written."""
    p, n = ordm.shape
    want = 1 if to_left else 0
    for j in range(p):
        for i in range(n):
            if packed_bit(left_bits, ordm[j, i]) != want:
                return False
    for j in range(p):
        for i in range(n):
            out[j * n + i] = ordm[j, i]
            if valued:
                out_v[j * n + i] = ordv[j, i]
    return True


@njit(cache=True, error_model="numpy", inline="always")
def _move_part(arr, stash, src, lo, hi, a, b, last, sides, s0, forward):
    """Elements ``lo <= i < hi`` of the column ``arr[src:]`` of a block split in place
    (:func:`split_orders_in_place`; backward: from ``hi - 1`` down), ``sides[s0 + i - lo]``
    the side of element ``i`` (1: left). Forward: left elements written from ``arr[a]``
    on, right ones stashed from ``stash[b]`` on; backward: right elements written from
    ``arr[b]`` down, left ones stashed from ``stash[a]`` down. Each element goes to both
    places without a branch, the stash slot clamped to ``last`` (forward) or 0.
    Returns the moved ``(a, b)``."""
    if forward:
        for i in range(lo, hi):
            x = arr[src + i]
            bit = sides[s0 + i - lo]
            arr[a] = x
            stash[b if b < last else last] = x
            a += bit
            b += 1 - bit
    else:
        for i in range(hi - 1, lo - 1, -1):
            x = arr[src + i]
            bit = sides[s0 + i - lo]
            arr[b] = x
            stash[a if a > 0 else 0] = x
            a -= bit
            b -= 1 - bit
    return a, b


@njit(cache=True, error_model="numpy", inline="always")
def _column_start(j, p, nl, nr, forward):
    """Where column ``j`` of a block split in place (:func:`_move_part`) starts writing:
    ``(a, b)``; forward, its left elements' first slot in the block and its right
    elements' first stash slot; backward, its left elements' last stash slot and its
    right elements' last slot in the block."""
    if forward:
        return j * nl, j * nr
    return (j + 1) * nl - 1, p * nl + (j + 1) * nr - 1


#: elements of a column whose sides :func:`split_orders_in_place` looks up at a time
#: (then moves them while they are in the cache)
IN_PLACE_CHUNK = 4096


@njit(cache=True, error_model="numpy", inline="always")
def _block_plan(size, p, nl, stash):
    """``(m, nr, k, ok)`` of a block of ``size`` elements split in place into ``nl`` and
    ``m - nl`` per column with a stash of ``stash`` (``ok``: the sizes fit, the stash
    holds ``p * k`` elements, ``k = min(nl, nr)``)."""
    m = size // p if p > 0 else 0
    nr = m - nl
    k = nl if nl < nr else nr
    ok = nl >= 0 and nr >= 0 and m * p == size and stash.shape[0] >= p * k
    return m, nr, k, ok


@njit(cache=True, error_model="numpy", inline="always")
def _finish_block(arr, stash, p, nl, nr, keep):
    """The end of a block split in place: the stashed side (its clamped slot restored to
    ``keep``) copied to its place: after the left block (forward, the right side
    stashed) or before the right one."""
    k = nl if nl < nr else nr
    if nr <= nl:
        stash[p * k - 1] = keep
        arr[p * nl:] = stash[:p * nr]
    else:
        stash[0] = keep
        arr[:p * nl] = stash[:p * nl]


@njit(cache=True, nogil=True, error_model="numpy")
def split_orders_in_place(lists, vals, p, left_bits, nl, stash, stash_v):
    """:func:`split_orders` within the node's own block: ``lists``, its (p, m) sorted
    orders given flat (C order), becomes the (p, nl) block of its left child followed by
    the (p, m - nl) block of its right child; ``vals`` (same length, or empty: none)
    likewise. The smaller side is kept in ``stash`` (and ``stash_v``) meanwhile, of at
    least ``p * min(nl, m - nl)`` elements; nothing past that is written. One pass per
    column, the sides of its ids looked up a chunk at a time (:data:`IN_PLACE_CHUNK`)
    before the chunk is moved: with the right side the smaller, forward (each left id
    written at or before the position just read), else backward (each right id written
    at or after it). Returns False when a column does not hold
    ``nl`` ids whose bit is set (the block is then garbage)."""
    size = lists.shape[0]
    valued = vals.shape[0] > 0
    m, nr, k, ok = _block_plan(size, p, nl, stash)
    if not ok or (valued and (vals.shape[0] != size or stash_v.shape[0] < p * k)):
        return False
    forward = nr <= nl
    last = p * k - 1
    keep = lists[0] if size > 0 else 0
    keep_v = 0.0
    if k > 0:  # the element whose stash slot gets clamped over, in its intact column
        j = p - 1 if forward else 0
        i = m - 1 if forward else 0
        while packed_bit(left_bits, lists[j * m + i]) != (0 if forward else 1):
            i += -1 if forward else 1
            if not 0 <= i < m:
                return False
        keep = lists[j * m + i]
        keep_v = vals[j * m + i] if valued else 0.0
    sides = np.empty(min(m, IN_PLACE_CHUNK), np.uint8)
    for step in range(p):
        j = step if forward else p - 1 - step
        src = j * m
        a, b = _column_start(j, p, nl, nr, forward)
        count = 0
        for c in range(0, m, IN_PLACE_CHUNK):
            lo = c if forward else max(m - c - IN_PLACE_CHUNK, 0)
            hi = min(c + IN_PLACE_CHUNK, m) if forward else m - c
            for i in range(lo, hi):
                bit = packed_bit(left_bits, lists[src + i])
                sides[i - lo] = bit
                count += bit
            if k > 0:
                a2, b2 = _move_part(lists, stash, src, lo, hi, a, b, last, sides, 0, forward)
                if valued:
                    _move_part(vals, stash_v, src, lo, hi, a, b, last, sides, 0, forward)
                a, b = a2, b2
        if count != nl:
            return False
    if k > 0:
        _finish_block(lists, stash, p, nl, nr, keep)
        if valued:
            _finish_block(vals, stash_v, p, nl, nr, keep_v)
    return True


@njit(cache=True, nogil=True, error_model="numpy")
def column_sides(lists, p, left_bits, sides, j0, j1):
    """The side of every id in columns ``j0 <= j < j1`` of a node's (p, m) sorted orders
    ``lists`` (flat, C order): ``sides[k]`` is the bit of ``lists[k]`` in ``left_bits``
    (1: left). Calls on disjoint column ranges may run concurrently."""
    m = lists.shape[0] // p
    for k in range(j0 * m, j1 * m):
        sides[k] = packed_bit(left_bits, lists[k])


@njit(cache=True, nogil=True, error_model="numpy")
def split_by_sides(arr, p, sides, nl, stash):
    """:func:`split_orders_in_place` of one array, the sides of its elements given
    (:func:`column_sides` of the node's sorted orders): the node's sorted orders and its
    sorted values may then be split at the same time, in two threads. Returns False when
    a column does not hold ``nl`` left elements."""
    size = arr.shape[0]
    m, nr, k, ok = _block_plan(size, p, nl, stash)
    if not ok or sides.shape[0] != size:
        return False
    for j in range(p):
        count = 0
        for i in range(j * m, (j + 1) * m):
            count += sides[i]
        if count != nl:
            return False
    if k == 0:
        return True
    forward = nr <= nl
    i = size - 1 if forward else 0  # the element whose stash slot gets clamped over
    while sides[i] != (0 if forward else 1):
        i += -1 if forward else 1
    keep = arr[i]
    last = p * k - 1
    for step in range(p):
        j = step if forward else p - 1 - step
        a, b = _column_start(j, p, nl, nr, forward)
        _move_part(arr, stash, j * m, 0, m, a, b, last, sides, j * m, forward)
    _finish_block(arr, stash, p, nl, nr, keep)
    return True


#: comparison codes of :func:`rule_sides` (:data:`pybsnsing.rules.NUMERIC_OPS` order)
OP_GT, OP_LT, OP_GE, OP_LE, OP_EQ = 0, 1, 2, 3, 4


@njit(cache=True, nogil=True, error_model="numpy")
def rule_sides(X, rows, y, qcol, qop, qval, pre):
    """A node's rows split by a rule: row ``r`` of ``rows`` goes left when ``pre[i]``
    (its answer to the rule's other questions; ``pre`` empty: none) or when
    ``X[r, qcol[k]] <op> qval[k]`` for some ``k`` (``qop[k]``: ``OP_GT`` ... ``OP_EQ``;
    IEEE comparisons: NaN answers FALSE).

    Returns ``(rows left, rows right, class-1 rows left, class-1 rows right)``, the rows
    in their order in ``rows``; the counts of the 0/1 labels ``y`` by row id (0 when
    ``y`` is empty); class-1 count -1 and no rows when a row id is outside ``X``."""
    n = rows.shape[0]
    for i in range(n):
        if rows[i] < 0 or rows[i] >= X.shape[0]:
            return np.empty(0, np.int64), np.empty(0, np.int64), -1, 0
    left = np.zeros(n, np.bool_)
    if pre.shape[0] == n:
        left[:] = pre
    for k in range(qcol.shape[0]):  # a question at a time: a branch-free loop each
        x = X[:, qcol[k]]
        v = qval[k]
        op = qop[k]
        if op == OP_GT:
            for i in range(n):
                left[i] |= x[rows[i]] > v
        elif op == OP_LT:
            for i in range(n):
                left[i] |= x[rows[i]] < v
        elif op == OP_GE:
            for i in range(n):
                left[i] |= x[rows[i]] >= v
        elif op == OP_LE:
            for i in range(n):
                left[i] |= x[rows[i]] <= v
        else:
            for i in range(n):
                left[i] |= x[rows[i]] == v
    nl = 0
    for i in range(n):
        nl += left[i]
    rows_left = np.empty(nl, np.int64)
    rows_right = np.empty(n - nl, np.int64)
    counted = y.shape[0] > 0
    a = 0
    b = 0
    n1 = 0
    n1l = 0
    for i in range(n):
        r = rows[i]
        if left[i]:
            rows_left[a] = r
            a += 1
        else:
            rows_right[b] = r
            b += 1
        if counted:
            c = np.int64(y[r])
            n1 += c
            n1l += c * left[i]
    return rows_left, rows_right, n1l, n1 - n1l


@njit(cache=True, nogil=True, error_model="numpy")
def relabel(ordm, pos):
    """``ordm[j, i] = pos[ordm[j, i]]`` in place: a node's sorted lists in its own row
    ids (``pos``: row id -> position in the node)."""
    p, n = ordm.shape
    for j in range(p):
        for i in range(n):
            ordm[j, i] = pos[ordm[j, i]]
