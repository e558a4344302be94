"""Bit-level intrinsics shared by the numba kernels (bit-packed uint64 columns)."""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["cttz", "packed_bit", "popcnt", "set_row_bits"]


def _llvm_bit_count(name: str, llvm_name: str, doc: str, *flags: int):
    """An intrinsic ``f(x: uint64) -> uint64`` that calls the LLVM bit-counting intrinsic
    ``llvm_name`` on ``x`` (followed by the constant i1 arguments ``flags``)."""

    def f(typingctx, x):  # pragma: no cover - compiled
        if x != types.uint64:
            return None
        sig = types.uint64(types.uint64)

        def codegen(context, builder, signature, args):
            i64 = ir.IntType(64)
            fnty = ir.FunctionType(i64, [i64] + [ir.IntType(1)] * len(flags))
            fn = cgutils.get_or_insert_function(builder.module, fnty, llvm_name)
            return builder.call(fn, [args[0]] + [ir.Constant(ir.IntType(1), v) for v in flags])

        return sig, codegen

    f.__name__ = f.__qualname__ = name
    f.__doc__ = doc
    return intrinsic(f)


popcnt = _llvm_bit_count(
    "popcnt",
    "llvm.ctpop.i64",
    "Population count of a uint64 (LLVM ``ctpop``, one ``popcnt`` instruction).",
)
cttz = _llvm_bit_count(
    "cttz", "llvm.cttz.i64", "Count of trailing zero bits of a non-zero uint64 (LLVM ``cttz``).", 0
)


# not inline="always": numba's reference counting of an inlined helper's array arguments
# cost pack_dense_into (one use a row) 14 %, the plain call 2 %
@njit(cache=True, error_model="numpy")
def set_row_bits(B, i, X, offset, s):
    """Bit-pack row ``i`` of a dense 0/1 matrix ``B`` into bit slot ``s``: set that slot of
    row ``offset + c`` of ``X`` for every column ``c`` with ``B[i, c] != 0``."""
    w = s >> 6
    bit = np.uint64(1) << np.uint64(s & 63)
    for c in range(B.shape[1]):
        if B[i, c] != 0:
            X[offset + c, w] |= bit


@njit(cache=True, error_model="numpy", inline="always")
def packed_bit(bits: np.ndarray, j: int) -> int:
    """Bit ``j`` (0 or 1, as int64) of ``bits``, uint8 in little bit order
    (``np.packbits(mask, bitorder="little")``): a row mask at an eighth of a boolean
    array's cache footprint."""
    return (np.int64(bits[j >> 3]) >> (j & 7)) & 1
