"""Warm-up: compile (first run) or load (later runs) every numba kernel up front.

pybsnsing's kernels are numba functions compiled with ``cache=True``: the first
process that runs one compiles it (seconds) and writes the machine code next to
the package (``__pycache__``); every later process only loads it (tens of ms).
Either way that cost is paid on first use, i.e. inside the first fit. Call
:func:`warmup` once, e.g. at service start-up or before timing, to pay it then:

>>> import pybsnsing
>>> pybsnsing.warmup()          # doctest: +SKIP
{'binarize': 0.01, 'tree': 0.05, 'enum': 0.01, 'parallel': 0.05, 'external': 0.06, 'optimal': 0.3}

The kernels get the same argument types on every call (int64 indices and
counts, float64 data, uint8 answers, uint64 bit-packed columns), so one
compilation serves all later calls; nothing recompiles for another data set.
``import pybsnsing`` itself does not import numba: the kernels are loaded on
first use.
"""

from __future__ import annotations

import functools
import time

import numpy as np

__all__ = ["warmup"]


def _tiny(n: int, seed: int = 0) -> tuple[np.ndarray, list[str], np.ndarray]:
    """A small two-class problem: a continuous, a tied low-cardinality and a 0/1 column."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = rng.integers(0, 6, n).astype(np.float64)
    x3 = rng.integers(0, 2, n).astype(np.float64)
    y = ((x1 + 0.4 * x2 - 1.0 + rng.normal(0.0, 0.8, n)) > 0).astype(np.int64)
    y[:2] = (0, 1)
    return np.column_stack([x1, x2, x3]), ["x1", "x2", "x3"], y


def warmup(optimal: bool = True, verbose: bool = False) -> dict[str, float]:
    """Compile or load all numba kernels on tiny problems.

    Covers binarization (cut thinning, the answer-range packing and the dense
    answer matrix), the tree grower's node kernels, the ENUM search (levels 1 to 4,
    dense and bit-packed inputs), its parallel kernels (used on large nodes), the
    native rpart replay of the external rules and, with ``optimal``, the MurTree
    solver. Takes seconds when the kernels are compiled for the first time (about
    30 s of CPU for all of them on the project's 2-core machine; the cache then
    lives next to the package or in numba's cache folder), well under a second when
    they are only loaded from the cache. ``pybsnsing warmup`` on the command line
    runs this.

    Args:
        optimal: also warm the MurTree kernels (:mod:`pybsnsing.optimal`).
        verbose: print the seconds spent per part.

    Returns:
        seconds spent per part (``binarize``, ``tree``, ``enum``, ``parallel``,
        ``external``, ``optimal``).
    """
    from . import search
    from .control import bscontrol
    from .questions import node_questions
    from .search import enum_search
    from .tree import grow_tree

    times: dict[str, float] = {}

    t = time.perf_counter()
    X, names, y = _tiny(200)
    # few segments: the thinning kernels run; with_matrix: the dense answers
    node_questions(X, names, y, 1, nseg_numeric=3, node_size=1)
    times["binarize"] = time.perf_counter() - t

    t = time.perf_counter()
    # internal + external questions, two- and three-question rules: node slots, range
    # and dense packing, ENUM on packed columns, the rpart replay given sorted orders
    grow_tree(X, names, y, bscontrol(node_size=5))
    grow_tree(X, names, y, bscontrol(max_rules=3, node_size=5))
    times["tree"] = time.perf_counter() - t

    t = time.perf_counter()
    B = node_questions(X, names, y, 1, nseg_numeric=3, node_size=1).B
    for max_rules in (1, 2, 3, 4):  # level one, two, the last level, a stored level
        enum_search(B, y, max_rules=max_rules, node_size=1)
    times["enum"] = time.perf_counter() - t

    t = time.perf_counter()
    # the parallel kernels (Gram matrices, stored and last levels) that large nodes use
    driver = search._enum_packed
    search._enum_packed = functools.partial(
        driver, tuning=search._EnumTuning(par_min_slots=1, gram_par_work=0))
    try:
        for max_rules in (3, 4):
            enum_search(B, y, max_rules=max_rules, node_size=1)
    finally:
        search._enum_packed = driver
    times["parallel"] = time.perf_counter() - t

    t = time.perf_counter()
    from .external import external_questions

    # without orders: the radix argsort from about a thousand rows on
    X2, names2, y2 = _tiny(1100, seed=1)
    external_questions(X2, names2, y2)
    external_questions(X[:50], names, y[:50])
    times["external"] = time.perf_counter() - t

    if optimal:
        t = time.perf_counter()
        from .optimal import murtree_fit

        murtree_fit(B[:60], y[:60], max_depth=3)
        times["optimal"] = time.perf_counter() - t

    if verbose:
        print("pybsnsing.warmup: " + ", ".join(f"{k} {v:.2f}s" for k, v in times.items()))
    return times
