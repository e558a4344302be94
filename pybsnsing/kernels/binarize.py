"""Numba kernels for binarizing a numeric column (R's ``binarize.numeric``).

The kernels work on plain arrays only.  The counting arrays are prepared by the
caller with :func:`numpy.searchsorted` on the node's sorted x values:

* ``cnt_lt[i]`` = #(x < cut[i]),
* ``cnt_le[i]`` = #(x <= cut[i]).
"""

from __future__ import annotations

import numpy as np
from numba import njit


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
    last = -1
    for i in range(m - 1):
        if last < 0:
            cnt = cnt_lt[i]
        else:
            cnt = cnt_lt[i] - cnt_le[last]
            if cnt < 0:
                cnt = 0
        if cnt >= bsize:
            keep[i] = True
            last = i
    keep[m - 1] = True
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
    first = -1
    for i in range(m - 1, 0, -1):
        if first < 0:
            cnt = n - cnt_le[i]
        else:
            cnt = cnt_lt[first] - cnt_le[i]
            if cnt < 0:
                cnt = 0
        if cnt >= bsize:
            keep[i] = True
            first = i
    keep[0] = True
    return keep
