"""Bit-level intrinsics shared by the numba kernels (bit-packed uint64 columns)."""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["cttz", "popcnt"]


@intrinsic
def popcnt(typingctx, x):  # pragma: no cover - compiled
    """Population count of a uint64 (LLVM ``ctpop``, one ``popcnt`` instruction)."""
    if x != types.uint64:
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.ctpop.i64")
        return builder.call(fn, [args[0]])

    return sig, codegen


@intrinsic
def cttz(typingctx, x):  # pragma: no cover - compiled
    """Count of trailing zero bits of a non-zero uint64 (LLVM ``cttz``)."""
    if x != types.uint64:
        return None
    sig = types.uint64(types.uint64)

    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.IntType(64), [ir.IntType(64), ir.IntType(1)])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.cttz.i64")
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 0)])

    return sig, codegen
