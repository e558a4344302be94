"""Kernel modules imported at their first use, without numba at ``import pybsnsing``."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

__all__ = ["LazyKernels"]


class LazyKernels:
    """One module of :mod:`pybsnsing.kernels` (``LazyKernels("packing")``), imported at
    the first attribute read: ``import pybsnsing`` does not import numba (about a
    second; :mod:`pybsnsing.kernels` itself installs numba's compile listener), and the
    tree's per-node code reads its kernels through a module-level instance instead of a
    function-level import at every node (2 us each)."""

    __slots__ = ("_name", "_module")

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: ModuleType | None = None

    def __getattr__(self, attr: str) -> Any:
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(f"pybsnsing.kernels.{self._name}")
        return getattr(module, attr)
