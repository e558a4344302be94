"""The contract of a split search (ENUM in :mod:`pybsnsing.search`, MIP and greedy in
:mod:`pybsnsing.mip`): its input checks, one home for each, and its result.

Every function returns the checked value in the form the kernels want, or raises a
:class:`~pybsnsing.errors.PybsnsingTypeError` / :class:`~pybsnsing.errors.PybsnsingValueError`
(both ``TypeError``/``ValueError`` too) naming the argument.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from .errors import PybsnsingTypeError, PybsnsingValueError

__all__ = ["MAX_RULES_CAP", "SearchArgs", "SearchResult", "as_binary_matrix",
           "as_binary_vector", "as_groups", "as_int", "as_whole", "check_binary", "float_values",
           "search_args"]

#: R's C code keeps rules in fixed arrays of 10 columns
MAX_RULES_CAP = 10


@dataclass(frozen=True)
class SearchResult:
    """Outcome of one ENUM search.

    Attributes:
        cols: chosen question columns, 0-based and increasing; ``()`` when no rule beats the
            start value ``n0*n1/2``.
        objval: the best objective ``v`` found (``n0*n1/2`` when no rule was found).
        neval: candidate rules evaluated, counted as R's C code counts them.
        n1: rows with ``y == 1`` (the target class).
        n0: rows with ``y == 0``.
    """

    cols: tuple[int, ...]
    objval: float
    neval: int
    n1: int
    n0: int


def _numeric_array(value: Any, name: str) -> np.ndarray:
    """``value`` as an array; an object array is converted to float64 (or refused)."""
    arr = np.asarray(value)
    if arr.dtype == object:
        try:
            arr = arr.astype(np.float64)
        except (TypeError, ValueError) as exc:
            raise PybsnsingTypeError(
                f"{name} must hold numbers 0/1, got non-numeric entries") from exc
    return arr


def as_binary_matrix(B: Any) -> np.ndarray:
    """Validate a 0/1 matrix and return it as C-contiguous uint8."""
    arr = _numeric_array(B, "B")
    if arr.ndim != 2:
        raise PybsnsingValueError(f"B must be a 2-D 0/1 matrix, got {arr.ndim} dimension(s)")
    n, m = arr.shape
    if n == 0:
        raise PybsnsingValueError("B has no rows")
    if m == 0:
        raise PybsnsingValueError("B has no columns (no questions to search)")
    if arr.dtype == np.bool_:
        return np.ascontiguousarray(arr, dtype=np.uint8)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise PybsnsingTypeError(
            f"B must be an integer, boolean or 0/1 float matrix, got {arr.dtype}")
    is_float = np.issubdtype(arr.dtype, np.floating)
    if is_float and np.isnan(arr).any():
        raise PybsnsingValueError("B contains NaN")
    # cheap reductions first; the element-wise test only for floats or to name a bad entry
    if arr.min() < 0 or arr.max() > 1 or (is_float and np.any((arr != 0) & (arr != 1))):
        i, j = np.argwhere((arr != 0) & (arr != 1))[0]
        raise PybsnsingValueError(f"B must contain only 0 and 1; B[{i}, {j}] = {arr[i, j]!r}")
    return np.ascontiguousarray(arr, dtype=np.uint8)


def as_binary_vector(y: Any, n: int) -> np.ndarray:
    """Validate the 0/1 response and return it as uint8."""
    arr = _numeric_array(y, "y")
    if arr.ndim != 1:
        raise PybsnsingValueError(f"y must be 1-D, got {arr.ndim} dimension(s)")
    if arr.shape[0] != n:
        raise PybsnsingValueError(
            f"length of y ({arr.shape[0]}) does not match the rows of B ({n})")
    if arr.dtype == np.bool_:
        return arr.astype(np.uint8)
    if not (np.issubdtype(arr.dtype, np.integer) or np.issubdtype(arr.dtype, np.floating)):
        raise PybsnsingTypeError(f"y must be integer, boolean or 0/1 float, got {arr.dtype}")
    if np.issubdtype(arr.dtype, np.floating) and np.isnan(arr).any():
        raise PybsnsingValueError("y contains NaN")
    bad = (arr != 0) & (arr != 1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise PybsnsingValueError(f"y must contain only 0 and 1; y[{i}] = {arr[i]!r}")
    return arr.astype(np.uint8)


def as_groups(groups: Any, m: int) -> np.ndarray:
    """Validate the group ids (one integer per column) and return them as int64."""
    if groups is None:
        return np.arange(m, dtype=np.int64)
    arr = np.asarray(groups)
    if arr.ndim != 1:
        raise PybsnsingValueError(f"groups must be 1-D, got {arr.ndim} dimension(s)")
    if arr.shape[0] != m:
        raise PybsnsingValueError(f"groups has length {arr.shape[0]} but B has {m} columns")
    kind = arr.dtype.kind  # (not np.issubdtype: this runs at every tree node)
    if kind not in "iuf":
        raise PybsnsingTypeError(f"groups must be integers, got dtype {arr.dtype}")
    if kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise PybsnsingValueError("groups must be whole numbers")
    return np.ascontiguousarray(arr, dtype=np.int64)


def as_int(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    """``value`` as an int in ``lo..hi`` (a whole float is accepted; bool is not)."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        if isinstance(value, float | np.floating) and float(value).is_integer():
            value = int(value)
        else:
            raise PybsnsingTypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        rng = f"{lo}..{hi}" if hi is not None else f">= {lo}"
        raise PybsnsingValueError(f"{name} must be in {rng}, got {value}")
    return value


def as_flag(value: Any, name: str) -> bool:
    """``value`` as a bool: a bool or an integer (R's TRUE/FALSE arrive either way)."""
    if not isinstance(value, bool | np.bool_ | int | np.integer):
        raise PybsnsingTypeError(f"{name} must be a bool, got {value!r}")
    return bool(value)


def as_seconds(value: Any, name: str = "time_limit", zero_ok: bool = True) -> float:
    """``value`` as a number of seconds, ``>= 0`` (``> 0`` when not ``zero_ok``)."""
    try:
        t = float(value)
    except (TypeError, ValueError) as exc:
        raise PybsnsingTypeError(f"{name} must be a number, got {value!r}") from exc
    if math.isnan(t) or t < 0 or (t == 0 and not zero_ok):
        raise PybsnsingValueError(f"{name} must be {'>=' if zero_ok else '>'} 0, got {t}")
    return t


def search_limits(no_same_gender_children: Any, time_limit: Any,
                  zero_time_ok: bool = True) -> tuple[bool, float]:
    """A rule search's ``no_same_gender_children`` flag and ``time_limit`` seconds,
    checked (:func:`as_flag`, :func:`as_seconds`)."""
    return (as_flag(no_same_gender_children, "no_same_gender_children"),
            as_seconds(time_limit, zero_ok=zero_time_ok))


def as_whole(value: Any, name: str, lo: int, hi: int | None = None) -> int:
    """``value`` as an int in ``lo..hi``: strictly an integer (no float, no bool), else a
    :class:`~pybsnsing.errors.PybsnsingValueError` (the optimal-tree fitters' settings)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise PybsnsingValueError(f"{name} must be an integer, not {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        rng = f">= {lo}" if hi is None else f"in [{lo}, {hi}]"
        raise PybsnsingValueError(f"{name} must be {rng}, got {value}")
    return value


def float_values(X: Any, prefix: str, convert: str = "O") -> np.ndarray:
    """``X`` as an array: a data frame as float (missing values NaN), an array whose dtype
    kind is in ``convert`` cast to float, any other array as it is. A failed conversion
    raises :class:`~pybsnsing.errors.PybsnsingValueError` ``"<prefix>: <reason>"``."""
    if isinstance(X, pd.DataFrame):
        try:
            return X.to_numpy(dtype=float, na_value=np.nan)
        except (TypeError, ValueError) as exc:
            raise PybsnsingValueError(f"{prefix}: {exc}") from exc
    A = np.asarray(X)
    if A.dtype.kind in convert:
        try:
            A = A.astype(float)
        except (TypeError, ValueError) as exc:
            raise PybsnsingValueError(f"{prefix}: {exc}") from exc
    return A


def check_binary(X: Any, name: str = "X_binary") -> np.ndarray:
    """``X`` (array or data frame of 0/1 features) as a C-contiguous uint8 0/1 matrix;
    :class:`~pybsnsing.errors.PybsnsingValueError` naming the first bad entry otherwise."""
    A = float_values(X, f"{name} must hold only 0/1 values")
    if A.dtype.kind not in "biuf":
        raise PybsnsingValueError(
            f"{name} must be a numeric or boolean 0/1 matrix, not {A.dtype}")
    if A.ndim != 2:
        raise PybsnsingValueError(f"{name} must be 2-dimensional, got {A.ndim} dimension(s)")
    if A.dtype.kind == "f":
        if np.isnan(A).any():
            rows, cols = np.nonzero(np.isnan(A))
            raise PybsnsingValueError(
                f"{name} contains NaN (first at row {rows[0]}, column {cols[0]}); "
                "binary features must not be missing"
            )
    if A.dtype.kind != "b":
        bad = (A != 0) & (A != 1)
        if bad.any():
            rows, cols = np.nonzero(bad)
            value = A[rows[0], cols[0]].item()
            raise PybsnsingValueError(
                f"{name} must be binary (0/1): found {value!r} at row {rows[0]}, "
                f"column {cols[0]}; binarise the features first (see pybsnsing.optimal.murtree "
                "for formula data)"
            )
    return np.ascontiguousarray(A, dtype=np.uint8)


class SearchArgs(NamedTuple):
    """The checked common arguments of a split search."""

    B: np.ndarray  #: n x m uint8, C-contiguous
    y: np.ndarray  #: n uint8
    groups: np.ndarray  #: m int64
    max_rules: int
    node_size: int


def search_args(B: Any, y: Any, groups: Any, max_rules: Any, node_size: Any,
                max_rules_cap: int) -> SearchArgs:
    """Check the question matrix, response, groups, ``max_rules`` (1 to
    ``max_rules_cap``) and ``node_size`` (>= 0) of a split search, in that order."""
    Bm = as_binary_matrix(B)
    n, m = Bm.shape
    yv = as_binary_vector(y, n)
    grp = as_groups(groups, m)
    return SearchArgs(Bm, yv, grp, as_int(max_rules, "max_rules", 1, max_rules_cap),
                      as_int(node_size, "node_size", 0))
