"""Numba kernels that sort columns of doubles: a stable LSD radix argsort.

The keys are the IEEE bit patterns made order-preserving (negative values inverted,
the sign bit set on the others), with ``-0.0`` read as ``0.0`` and every NaN as one
positive quiet NaN, so that the order is numpy's ``np.argsort(x, kind="stable")``
exactly: equal values (the two zeros included) and the NaNs, which sort last, keep
their index order. Sorted by 8-bit digits, least significant first; the digit counts
of all passes come from one read of the keys, and a pass where every key has the same
digit (integer-valued doubles: the low mantissa bits) is skipped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["argsort_rows", "radix_argsort"]

#: bits per digit and the digits of a 64-bit key: 8 passes of 256 buckets (1M doubles,
#: 2-core VM: 43 ms, against 54 ms with 6 passes of 11 bits, 69 ms with 4 of 16 bits)
_DIGIT_BITS = 8
_PASSES = 8
#: ``radix_argsort`` keeps row ids as int32: columns of fewer rows than this
RADIX_MAX_ROWS = (1 << 31) - 1
#: the sign bit; the key of both zeros (``0.0``'s bits with it set); the key of every NaN
_SIGN = np.uint64(1 << 63)
_ZERO_KEY = _SIGN
_NAN_KEY = np.uint64(0x7FF8000000000000) | _SIGN


@njit(cache=True, nogil=True, error_model="numpy")
def _keys(x: np.ndarray, keys: np.ndarray, cnt: np.ndarray) -> None:
    """The order-preserving keys of ``x`` (-0.0 as 0.0, every NaN as one NaN after
    +inf) into ``keys``, and each pass's digit counts into ``cnt`` (passes x 256)."""
    mask = np.uint64((1 << _DIGIT_BITS) - 1)
    bits = x.view(np.uint64)
    for i in range(x.shape[0]):
        v = x[i]
        if v == 0.0:
            u = _ZERO_KEY
        elif v != v:
            u = _NAN_KEY
        else:
            u = bits[i]
            u = ~u if u & _SIGN else u | _SIGN
        keys[i] = u
        for d in range(_PASSES):
            cnt[d, (u >> np.uint64(_DIGIT_BITS * d)) & mask] += 1


@njit(cache=True, nogil=True, error_model="numpy")
def _starts(cnt: np.ndarray) -> None:
    """Each digit's counts made into its first write slot (exclusive prefix sums)."""
    tot = 0
    for b in range(cnt.shape[0]):
        c = cnt[b]
        cnt[b] = tot
        tot += c


@njit(cache=True, nogil=True, error_model="numpy")
def radix_argsort(x: np.ndarray, order: np.ndarray, values: np.ndarray) -> None:
    """``order[:] = np.argsort(x, kind="stable")`` for a contiguous 1-d float64 ``x`` of
    fewer than :data:`RADIX_MAX_ROWS` values, and, when ``values`` has ``x``'s length,
    ``values[:] = x[order]`` bit for bit (an empty ``values``: not written).

    Scratch: two key arrays (uint64) and two id arrays (int32) of ``x``'s length. The
    last pass writes ``order`` and ``values`` (the values from the keys, or from ``x``
    for zeros and NaNs, whose keys do not keep the sign or the payload)."""
    n = x.shape[0]
    if n >= RADIX_MAX_ROWS:  # (the ids between passes are int32)
        raise ValueError("radix_argsort: too many values for int32 row ids")
    want = values.shape[0] == n
    mask = np.uint64((1 << _DIGIT_BITS) - 1)
    cnt = np.zeros((_PASSES, 1 << _DIGIT_BITS), np.int64)
    keys = np.empty(n, np.uint64)
    _keys(x, keys, cnt)
    passes = np.empty(_PASSES, np.int64)
    npass = 0
    for d in range(_PASSES):
        if n > 0 and cnt[d, (keys[0] >> np.uint64(_DIGIT_BITS * d)) & mask] != n:
            passes[npass] = d
            npass += 1
    if npass == 0:  # every key equal (or no rows): the order is the index order
        for i in range(n):
            order[i] = i
            if want:
                values[i] = x[i]
        return
    k2 = np.empty(n, np.uint64) if npass > 1 else keys
    ids = np.empty(n, np.int32) if npass > 1 else np.empty(0, np.int32)
    ids2 = np.empty(n, np.int32) if npass > 2 else ids
    vbits = values.view(np.uint64)
    for a in range(npass):
        d = passes[a]
        sh = np.uint64(_DIGIT_BITS * d)
        slot = cnt[d]
        _starts(slot)
        if a == npass - 1:  # the last pass: the order (and the values) out
            for i in range(n):
                u = keys[i]
                pos = slot[(u >> sh) & mask]
                slot[(u >> sh) & mask] = pos + 1
                r = i if a == 0 else ids[i]
                order[pos] = r
                if want:
                    if u == _ZERO_KEY or u == _NAN_KEY:
                        values[pos] = x[r]
                    else:
                        vbits[pos] = u & ~_SIGN if u & _SIGN else ~u
        else:  # the keys and ids to the other buffers (the first pass: ids are the index)
            for i in range(n):
                u = keys[i]
                pos = slot[(u >> sh) & mask]
                slot[(u >> sh) & mask] = pos + 1
                k2[pos] = u
                ids2[pos] = i if a == 0 else ids[i]
            keys, k2 = k2, keys
            ids, ids2 = ids2, ids


@njit(cache=True, nogil=True, error_model="numpy")
def argsort_rows(xt: np.ndarray) -> np.ndarray:
    """The stable ascending argsort of every row of ``xt`` (doubles, fewer than
    :data:`RADIX_MAX_ROWS` columns): ``(p, n)`` int64, row ``r`` being
    ``np.argsort(xt[r], kind="stable")`` (:func:`radix_argsort`; about 3x faster than
    ``np.argsort`` from a few thousand values on)."""
    p, n = xt.shape
    out = np.empty((p, n), dtype=np.int64)
    none = np.empty(0, np.float64)
    for r in range(p):
        radix_argsort(np.ascontiguousarray(xt[r]), out[r], none)
    return out
