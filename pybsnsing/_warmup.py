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
import os
import queue
import subprocess
import sys
import threading
import time

import numpy as np

__all__ = ["warmup", "cold_start"]


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
    global _cold_checked
    _cold_checked = True  # everything is compiled here: no child process (cold_start)
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


# ---------------------------------------------------------------------------------------
# the first fit after an install: the tree's kernels compiled in two processes
#
# With an empty numba cache the first fit compiles the tree's kernels one after the other
# in one thread (numba compiles serially). They fall in two independent halves of similar
# size: the rpart replay of the external questions, and the rest (rpart's column sort,
# question packing, the ENUM search, cut thinning). :func:`cold_start` (run by the first
# import of :mod:`pybsnsing.kernels.packing`, i.e. the first tree node) starts a child
# process that compiles the first half while this process compiles the second, both on
# tiny problems through the grower's own code paths (so with a real fit's argument types),
# and waits until the child reports its half done: the fit then loads every kernel from
# the cache that the two processes wrote. The child goes on, at low priority, with the
# kernels of the other settings (max_rules 3, then 4, then the parallel kernels of large
# nodes); a search that needs one of those first waits for the child's stage
# (:func:`wait_stage`) instead of compiling the same kernels a second time.
#
# With an idle second core this shortens the first fit's compile pause (to the larger half)
# and hides the later ones. On a machine whose cores are all busy it does not help: the
# scheduler gives the two processes together about the share one would get, and the child
# adds an interpreter start-up (measured on the project's shared 2-core machine at load
# 6-8: the first fit took longer with the child than without). So the child is started only
# when the load average leaves a core idle.

#: set in the child process (it must not start another one)
_CHILD_ENV = "PYBSNSING_COLD_CHILD"
#: "0": never start the child (kernels compiled on demand, in-process); "1": start it
#: whatever the load; unset or "auto": start it when a core is idle (:func:`_spare_core`)
_PARALLEL_ENV = "PYBSNSING_PARALLEL_COMPILE"
#: the child's stages, in order: the fit's first half, then the other settings' kernels
STAGES = ("tree", "mr3", "mr4", "parallel")
_cold_checked = False
_child: subprocess.Popen | None = None
_done: dict[str, float] = {}  # stage -> the child's CPU seconds when it finished it


def _spare_core() -> bool:
    """True when this machine has at least two cores and a load average that leaves one
    of them idle (True where there is no load average to read)."""
    try:
        ncpu = len(os.sched_getaffinity(0))
    except AttributeError:
        ncpu = os.cpu_count() or 1
    if ncpu < 2:
        return False
    try:
        return os.getloadavg()[0] <= ncpu - 1
    except (AttributeError, OSError):
        return True


def _in_cache(disp) -> bool:
    """True when numba's cache holds a fresh entry for the dispatcher ``disp`` (also when
    it cannot tell, or caching is off: then there is nothing to prepare)."""
    try:
        return bool(disp._cache._cache_file._load_index())
    except Exception:
        return True


def _first_half() -> None:
    """The child's share of a first default fit: the rpart replay of a node's external
    questions (:func:`pybsnsing.external.node_external`) and their packing, with the
    grower's own arrays. ``_partition_tree`` goes first, so that the parent process has
    compiled rpart's column sort (:func:`_second_half`) by the time the child needs it."""
    from .control import bscontrol
    from .kernels import rpart as R
    from .questions import NodeRows
    from .tree import Grower

    X, names, y = _tiny(200)
    g = Grower(X, names, y, bscontrol(), 1)
    ordm = g.root_orders()
    n, p = X.shape
    xt = np.ascontiguousarray(g.X.T)
    yf = g.y.astype(np.float64)
    # an empty partition (no rows: returns at once), argument types as rpart_anova_rows's
    i64 = np.zeros(5, dtype=np.int64)
    R._partition_tree(xt, yf, np.zeros((p, n), dtype=np.int64), i64, np.zeros(2),
                      np.full((3, 5), -1, dtype=np.int64), np.zeros((3, 2)), i64.copy(),
                      np.zeros(5), np.zeros(5), i64.copy(), i64.copy(),
                      np.zeros(n, dtype=np.uint8), np.zeros(n + 1, dtype=np.int64),
                      np.array([1, 0], dtype=np.int64), np.zeros(n + 1))
    rows = np.arange(n, dtype=np.int64)
    ext = g._external(rows, ordm, True)
    if ext.m > 0:
        Xp = np.zeros((ext.m, 1), dtype=np.uint64)
        Xn = np.zeros((ext.m, 1), dtype=np.uint64)
        ext.pack_node(NodeRows(ordm, rows, g.slot, g.pos), Xp, Xn, 0)


def _second_half() -> None:
    """This process's share: rpart's column sort, then a tiny fit without external
    questions (question packing, the ENUM search of max_rules 2, cut thinning)."""
    from .control import bscontrol
    from .kernels import rpart as R
    from .tree import Grower, grow_tree

    X, names, y = _tiny(200)
    g = Grower(X, names, y, bscontrol(), 1)
    xt = np.ascontiguousarray(g.X.T)
    R.sort_columns_from_rows(xt, g.root_orders(), np.arange(X.shape[0], dtype=np.int64))
    grow_tree(X, names, y, bscontrol(import_external=False))


def _later_stage(stage: str) -> None:
    """The child's background stages: the kernels of max_rules 3, of max_rules 4 (stored
    levels, general last level), and the parallel kernels of large nodes."""
    from .control import bscontrol
    from .tree import grow_tree

    X, names, y = _tiny(200)
    if stage in ("mr3", "mr4"):
        grow_tree(X, names, y, bscontrol(max_rules=3 if stage == "mr3" else 4))
        return
    from . import search

    # every chunk and Gram matrix counted in parallel, however small (as on large nodes)
    driver = search._enum_packed
    search._enum_packed = functools.partial(
        driver, tuning=search._EnumTuning(par_min_slots=1, gram_par_work=0))
    try:
        grow_tree(X, names, y, bscontrol(max_rules=4))
    finally:
        search._enum_packed = driver


def _child_main() -> None:  # pragma: no cover - runs in the child process
    _first_half()
    print("tree", time.process_time(), flush=True)
    try:
        os.nice(10)  # the rest runs in the background: leave the CPU to the fit
    except (AttributeError, OSError):
        pass
    for stage in STAGES[1:]:
        _later_stage(stage)
        print(stage, time.process_time(), flush=True)


#: longest wait for one stage of the child (seconds) before giving up on it: a stage
#: compiles for seconds; past this the child is stopped and the fit compiles on demand
_STAGE_TIMEOUT = 600.0
_lines: queue.Queue | None = None  # the child's progress lines, read by a daemon thread


def _reader(stream, lines: queue.Queue) -> None:
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put("")  # end of the child's output


def _read_until(stage: str) -> None:
    """Take the child's progress lines until ``stage`` is done or the child has ended (or
    has been silent for :data:`_STAGE_TIMEOUT` seconds: it is then stopped)."""
    global _child
    child = _child
    while child is not None and _lines is not None and stage not in _done:
        try:
            line = _lines.get(timeout=_STAGE_TIMEOUT)
        except queue.Empty:
            line = ""
            child.kill()
        if not line:  # the child ended (or failed): compile whatever is left on demand
            child.wait()
            _child = None
            return
        name, _, cpu = line.strip().partition(" ")
        try:
            _done[name] = float(cpu)
        except ValueError:
            pass


def wait_stage(stage: str) -> None:
    """Wait until the background child has compiled the kernels of ``stage`` (one of
    :data:`STAGES`); returns at once when there is no child (the usual case)."""
    if _child is not None:
        _read_until(stage)


def child_cpu() -> float:
    """CPU seconds the child reported so far (0.0 without a child): for the benchmarks."""
    return max(_done.values(), default=0.0)


def cold_start() -> None:
    """Compile the tree's kernels in two processes when the numba cache is empty.

    Run once per process, before the first tree node; a no-op (a few file checks) when
    the kernels are cached already, in the child itself, under :func:`warmup`, when no
    core is idle (``PYBSNSING_PARALLEL_COMPILE=1`` starts the child anyway, ``=0``
    never), or when a child process cannot be started: the fit then compiles on demand,
    in this process.
    """
    global _cold_checked, _child, _lines
    if _cold_checked:
        return
    _cold_checked = True
    mode = os.environ.get(_PARALLEL_ENV, "auto")
    if os.environ.get(_CHILD_ENV) or mode == "0" or (mode != "1" and not _spare_core()):
        return
    if getattr(sys, "frozen", False) or not sys.executable:  # no interpreter to run -c
        return
    try:
        from .kernels import rpart

        if _in_cache(rpart.rpart_anova_rows):
            return
        env = dict(os.environ)
        env[_CHILD_ENV] = "1"
        env["PYBSNSING_QUIET_COMPILE"] = "1"
        # the child must import this very package (its kernels' cache entries are keyed
        # by the source files): add its folder to the path only when the interpreter
        # would not find it anyway (a checkout imported from the working directory), never
        # an installed package's site-packages (that would go before the standard library)
        pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        on_path = {os.path.abspath(p or os.getcwd()) for p in sys.path}
        if pkg_parent not in on_path:
            env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"]
                                              if env.get("PYTHONPATH") else "")
        _child = subprocess.Popen(
            [sys.executable, "-c", "from pybsnsing._warmup import _child_main; _child_main()"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL, text=True)
        _lines = queue.Queue()
        threading.Thread(target=_reader, args=(_child.stdout, _lines), daemon=True,
                         name="pybsnsing-compile-child").start()
    except Exception:  # no interpreter to start, no numba cache: compile on demand
        _child = None
        return
    try:
        _second_half()
    finally:
        _read_until("tree")
