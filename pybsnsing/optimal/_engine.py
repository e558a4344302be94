"""Preparation of the bit-packed data for the MurTree kernels and the call into them."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from pybsnsing.kernels import murtree as _k

_SALT_SEED = 0x5EED_B5A5


@dataclass
class PackedData:
    """Rows sorted by class and bit-packed per feature (see pybsnsing.kernels.murtree)."""

    Xb: np.ndarray  # uint64 (m, W)
    cws: np.ndarray  # int64 (C + 1,) class word starts
    indptr: np.ndarray  # int64 CSR over padded row positions
    indices: np.ndarray  # int32 present features per row
    salt: np.ndarray  # uint64 (2, W) hash salts
    cls_of_word: np.ndarray  # int64 (W,)
    dens: np.ndarray  # float64 (1,) fraction of ones
    root_mask: np.ndarray  # uint64 (W,)


def pack(X: np.ndarray, codes: np.ndarray, n_classes: int) -> PackedData:
    """Bit-pack a 0/1 matrix (n x m, uint8) with integer class codes 0..C-1."""
    n, m = X.shape
    counts = np.bincount(codes, minlength=n_classes)
    words = (counts + 63) // 64
    cws = np.zeros(n_classes + 1, dtype=np.int64)
    np.cumsum(words, out=cws[1:])
    W = max(int(cws[-1]), 1)
    order = np.argsort(codes, kind="stable")
    pos = np.empty(n, dtype=np.int64)  # padded position of each row of `order`
    start = 0
    for c in range(n_classes):
        k = int(counts[c])
        pos[start : start + k] = cws[c] * 64 + np.arange(k)
        start += k
    Xs = np.zeros((W * 64, m), dtype=np.uint8)
    Xs[pos] = X[order]
    Xb = np.ascontiguousarray(np.packbits(Xs.T, axis=1, bitorder="little")).view("<u8")
    Xb = np.ascontiguousarray(Xb, dtype=np.uint64)
    rows, cols = np.nonzero(Xs)
    indptr = np.zeros(W * 64 + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=W * 64), out=indptr[1:])
    indices = cols.astype(np.int32)
    root = np.zeros(W * 64, dtype=np.uint8)
    root[pos] = 1
    root_mask = np.packbits(root, bitorder="little").view("<u8").astype(np.uint64)
    rng = np.random.default_rng(_SALT_SEED)
    salt = rng.integers(0, 2**63, size=(2, W), dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    cls_of_word = np.zeros(W, dtype=np.int64)
    for c in range(n_classes):
        cls_of_word[cws[c] : cws[c + 1]] = c
    dens = np.array([X.mean() if X.size else 0.0], dtype=np.float64)
    return PackedData(Xb, cws, indptr, indices, salt, cls_of_word, dens, root_mask)


def run(data: PackedData, max_depth: int, max_nodes: int, A: int, B: int, time_limit: float):
    """Call the kernel; returns its raw tuple."""
    return _k.murtree_search(
        data.Xb, data.cws, data.indptr, data.indices, data.salt, data.cls_of_word, data.dens,
        data.root_mask, np.int64(max_depth), np.int64(max_nodes), np.int64(A), np.int64(B),
        float(time_limit),
    )
