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

import contextlib
import functools
import os
import time
from collections.abc import Callable, Iterator

import numpy as np

from ._coldstart import STAGES, child_at, child_cpu, mark_warm, tiny_problem, wait_stage

__all__ = ["warmup", "child_main", "child_cpu", "wait_stage", "STAGES"]


@contextlib.contextmanager
def _parallel_everywhere() -> Iterator[None]:
    """Within the block, ENUM counts every chunk and Gram matrix in parallel however
    small the node (as it does on large nodes): the parallel kernels get compiled."""
    from . import search

    driver = search._enum_packed
    search._enum_packed = functools.partial(
        driver, tuning=search._EnumTuning(par_min_slots=1, gram_par_work=0))
    try:
        yield
    finally:
        search._enum_packed = driver


def _warm_tree() -> None:
    from .control import bscontrol
    from .tree import grow_tree

    X, names, y = tiny_problem(200)
    # internal + external questions, two- and three-question rules: node slots, range
    # and dense packing, ENUM on packed columns, the rpart replay given sorted orders
    grow_tree(X, names, y, bscontrol(node_size=5))
    grow_tree(X, names, y, bscontrol(max_rules=3, node_size=5))


def _tiny_answers() -> tuple[np.ndarray, np.ndarray]:
    """The dense answers of a tiny node and its labels (few segments: the thinning kernels
    run; with the answer matrix: the dense packing)."""
    from .questions import node_questions

    X, names, y = tiny_problem(200)
    return node_questions(X, names, y, 1, nseg_numeric=3, node_size=1).B, y


def _warm_binarize() -> None:
    _tiny_answers()


def _warm_enum() -> None:
    from .search import enum_search

    B, y = _tiny_answers()
    for max_rules in (1, 2, 3, 4):  # level one, two, the last level, a stored level
        enum_search(B, y, max_rules=max_rules, node_size=1)


def _warm_large_nodes() -> None:
    """The kernels of large nodes only: the splits of the sorted orders
    (tree.Grower.partition, nodes of ``tree.PARTITION_KERNEL_MIN_ROWS`` rows or more) and
    the blocked Gram matrices (kernels.enum.gram_counts), the root's sort of columns of
    ``questions.FAST_SORT_MIN`` values or more (kernels.sort.radix_argsort).
    :func:`warmup` compiles them; a first fit's compile child does not (about 2.5 s
    that a fit on small data would wait for): the first large node does."""
    from .kernels.enum import GRAM_BLOCK_WORK, gram_counts
    from .kernels.packing import column_sides, split_by_sides, split_orders, split_orders_in_place
    from .kernels.sort import radix_argsort

    X = np.zeros((64, -(-GRAM_BLOCK_WORK // 64**2)), np.uint64)
    gram_counts(X, False)
    gram_counts(X, True)

    ordm = np.array([[0, 1, 2], [2, 1, 0]], dtype=np.int64)
    bits = np.packbits([True, False, True], bitorder="little")
    split_orders(ordm, ordm.astype(np.float64), bits,
                 np.empty(4, np.int64), np.empty(2, np.int64), np.empty(4), np.empty(2))
    split_orders_in_place(ordm.ravel(), ordm.ravel().astype(np.float64), 2, bits, 2,
                          np.empty(2, np.int64), np.empty(2))
    sides = np.empty(6, np.uint8)
    column_sides(ordm.ravel(), 2, bits, sides, 0, 2)
    split_by_sides(ordm.ravel(), 2, sides, 2, np.empty(2, np.int64))
    split_by_sides(ordm.ravel().astype(np.float64), 2, sides, 2, np.empty(2))
    radix_argsort(np.array([1.0, 0.0]), np.empty(2, np.int64), np.empty(2))  # the root's sort


def _warm_parallel() -> None:
    from .search import enum_search

    _warm_large_nodes()
    B, y = _tiny_answers()
    # the parallel kernels (Gram matrices, stored and last levels) that large nodes use
    with _parallel_everywhere():
        for max_rules in (3, 4):
            enum_search(B, y, max_rules=max_rules, node_size=1)


def _warm_external() -> None:
    from .external import external_questions

    X, names, y = tiny_problem(200)
    # without orders: the radix argsort from about a thousand rows on
    X2, names2, y2 = tiny_problem(1100, seed=1)
    external_questions(X2, names2, y2)
    external_questions(X[:50], names, y[:50])
    X[::7, 0] = np.inf  # infinite values: rpart's code path with missing values
    external_questions(X, names, y)


def _warm_optimal() -> None:
    from .optimal import murtree_fit

    B, y = _tiny_answers()
    murtree_fit(B[:60], y[:60], max_depth=3)


#: the parts of :func:`warmup`, in order
_PARTS: dict[str, Callable[[], None]] = {
    "binarize": _warm_binarize, "tree": _warm_tree, "enum": _warm_enum,
    "parallel": _warm_parallel, "external": _warm_external, "optimal": _warm_optimal}


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
    mark_warm()  # everything is compiled here: no compile child (pybsnsing._coldstart)
    times: dict[str, float] = {}
    for name, part in _PARTS.items():
        if name == "optimal" and not optimal:
            continue
        t = time.perf_counter()
        part()
        times[name] = time.perf_counter() - t
    if verbose:
        print("pybsnsing.warmup: " + ", ".join(f"{k} {v:.2f}s" for k, v in times.items()))
    return times


# ---------------------------------------------------------------------------------------
# the compile child of a first fit (pybsnsing._coldstart starts it)


def _first_half() -> None:
    """The child's share of a first default fit: the rpart replay of a node's external
    questions (:func:`pybsnsing.external.node_external`) with the grower's own arrays
    (their packing, compiled by the parent, loads from the cache). ``_partition_tree``
    goes first, so that the parent process has compiled rpart's column sort
    (:func:`pybsnsing.tree._compile_parent_half`) by the time the child needs it."""
    from .control import bscontrol
    from .kernels import rpart as R
    from .questions import NodeRows
    from .tree import Grower

    X, names, y = tiny_problem(200)
    g = Grower(X, names, y, bscontrol(), 1)
    ordm = g.root_orders()
    n, p = X.shape
    # an empty partition (no rows: returns at once), argument types as rpart_anova_rows's
    i64 = np.zeros(5, dtype=np.int64)
    R._partition_tree(np.zeros((p, n)), np.zeros((p, n)), np.zeros((p, n), dtype=np.int64),
                      np.zeros((p, n)), i64, np.zeros(2), np.full((3, 5), -1, dtype=np.int64),
                      np.zeros((3, 2)), i64.copy(), np.zeros(5), np.zeros(5), i64.copy(),
                      i64.copy(), np.zeros(n, dtype=np.uint8), np.zeros(n + 1, dtype=np.int64),
                      np.zeros((2, n + 1)), np.array([1, 0], dtype=np.int64), np.zeros(n + 1),
                      np.zeros((2, 2, p)), np.zeros((2, p), dtype=np.int64),
                      np.zeros((p, n), dtype=np.int64), np.zeros((p, n)),
                      np.zeros(p, dtype=np.int64), np.zeros((0, n), dtype=np.int64),
                      np.zeros((0, n)), np.zeros(n, dtype=np.uint8),
                      np.zeros(n, dtype=np.int64))
    rows = np.arange(n, dtype=np.int64)
    ext = g.external_source(rows, ordm, True)
    if ext.m > 0:
        g._pack([ext], [0, ext.m], NodeRows(ordm, rows, g.slot, g.pos), 1)


def _later_stage(stage: str) -> None:
    """The child's background stages: the one-call question builder, the kernels of
    max_rules 3, of max_rules 4 (stored levels, general last level), and the parallel
    kernels of large nodes."""
    if stage == "questions":
        _warm_binarize()
        return
    from .control import bscontrol
    from .tree import grow_tree

    X, names, y = tiny_problem(200)
    if stage in ("mr3", "mr4"):
        grow_tree(X, names, y, bscontrol(max_rules=3 if stage == "mr3" else 4))
        return
    with _parallel_everywhere():
        grow_tree(X, names, y, bscontrol(max_rules=4))


def child_main() -> None:  # pragma: no cover - runs in the child process
    """The compile child's program: the first half of a first fit's kernels, then (at low
    priority) the kernels of the later stages, one progress line per stage."""
    child_at("tree")
    _first_half()
    print("tree", time.process_time(), flush=True)
    try:
        os.nice(10)  # the rest runs in the background: leave the CPU to the fit
    except (AttributeError, OSError):
        pass
    for stage in STAGES[1:]:
        child_at(stage)
        _later_stage(stage)
        print(stage, time.process_time(), flush=True)
