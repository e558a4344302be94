"""The first fit after an install: the tree's kernels compiled in two processes.

With an empty numba cache the first fit compiles the tree's kernels one after the other
in one thread (numba compiles serially). They fall in two independent halves of similar
size: the rpart replay of the external questions, and the rest (rpart's column sort,
question packing, the ENUM search, cut thinning). :func:`cold_start` (called by
:func:`pybsnsing.tree.grow_tree` before the first tree node) starts a child process
(:func:`pybsnsing._warmup.child_main`) that compiles the first half while this process
compiles the second, both on tiny problems through the grower's own code paths (so with a
real fit's argument types), and waits until the child reports its half done: the fit then
loads every kernel from the cache that the two processes wrote. The child goes on, at low
priority, with the kernels of the other settings (:data:`STAGES`: max_rules 3, then 4,
then the parallel kernels of large nodes); a search that needs one of those first waits
for the child's stage (:func:`wait_stage`) instead of compiling the same kernels a second
time.

With an idle second core this shortens the first fit's compile pause (to the larger half)
and hides the later ones. On a machine whose cores are all busy it does not help: the
scheduler gives the two processes together about the share one would get, and the child
adds an interpreter start-up (measured on the project's shared 2-core machine at load
6-8: the first fit took longer with the child than without). So the child is started only
when the load average leaves a core idle.

This module only manages the child (start, progress lines, waits) and imports nothing
of pybsnsing: the kernels (:mod:`pybsnsing.kernels.enum`) wait on it, and the code that
compiles (the tree grower, :mod:`pybsnsing._warmup`) sits above it.
"""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["STAGES", "cold_start", "wait_stage", "ready", "child_cpu", "mark_warm",
           "tiny_problem"]

#: set in the child process (it must not start another one)
_CHILD_ENV = "PYBSNSING_COLD_CHILD"
#: "0": never start the child (kernels compiled on demand, in-process); "1": start it
#: whatever the load; unset or "auto": start it when a core is idle (:func:`_spare_core`)
_PARALLEL_ENV = "PYBSNSING_PARALLEL_COMPILE"
#: the child's stages, in order: the fit's first half, the other settings' kernels, then
#: the one-call question builder, which fits do without until then (they take the
#: column-by-column code, same questions; see :func:`ready`)
STAGES = ("tree", "mr3", "mr4", "parallel", "questions")
#: what the child runs (the stages above, printing one progress line per stage)
_CHILD_CODE = "from pybsnsing._warmup import child_main; child_main()"
#: longest wait for one stage of the child (seconds) before giving up on it: a stage
#: compiles for seconds; past this the child is stopped and the fit compiles on demand
_STAGE_TIMEOUT = 600.0

_cold_checked = False
_child: subprocess.Popen | None = None
_done: dict[str, float] = {}  # stage -> the child's CPU seconds when it finished it
_lines: queue.Queue | None = None  # the child's progress lines, read by a daemon thread
_later: set[str] = set()  # in the child: the stages it has not reached yet


def tiny_problem(n: int, seed: int = 0) -> tuple[np.ndarray, list[str], np.ndarray]:
    """A small two-class problem: a continuous, a tied low-cardinality and a 0/1 column."""
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = rng.integers(0, 6, n).astype(np.float64)
    x3 = rng.integers(0, 2, n).astype(np.float64)
    y = ((x1 + 0.4 * x2 - 1.0 + rng.normal(0.0, 0.8, n)) > 0).astype(np.int64)
    y[:2] = (0, 1)
    return np.column_stack([x1, x2, x3]), ["x1", "x2", "x3"], y


def child_at(stage: str) -> None:
    """In the child: ``stage`` starts now; the stages after it are not ready yet."""
    _later.clear()
    _later.update(STAGES[STAGES.index(stage) + 1:])


def mark_warm() -> None:
    """Never start the child in this process (:func:`pybsnsing.warmup` compiles all)."""
    global _cold_checked
    _cold_checked = True


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


def _in_cache(disp: Any) -> bool:
    """True when numba's cache holds a fresh entry for the dispatcher ``disp`` (also when
    it cannot tell, or caching is off: then there is nothing to prepare)."""
    try:
        return bool(disp._cache._cache_file._load_index())
    except Exception:
        return True


def _reader(stream, lines: queue.Queue) -> None:
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    lines.put("")  # end of the child's output


def _advance(stage: str, wait: bool) -> bool:
    """Take the child's progress lines until ``stage`` is done or the child has ended
    (True), or, without ``wait``, until no line is queued yet (False). Waiting, a child
    silent for :data:`_STAGE_TIMEOUT` seconds is stopped. An ended child is reaped and
    forgotten: the kernels it did not reach are compiled on demand."""
    global _child
    child = _child
    while child is not None and _lines is not None and stage not in _done:
        try:
            line = _lines.get(timeout=_STAGE_TIMEOUT) if wait else _lines.get_nowait()
        except queue.Empty:
            if not wait:
                return False
            line = ""
            child.kill()
        if not line:  # the child ended (or failed)
            child.wait()
            _child = None
            return True
        name, _, cpu = line.strip().partition(" ")
        try:
            _done[name] = float(cpu)
        except ValueError:
            pass
    return True


def wait_stage(stage: str) -> None:
    """Wait until the background child has compiled the kernels of ``stage`` (one of
    :data:`STAGES`); returns at once when there is no child (the usual case)."""
    _advance(stage, wait=True)


def ready(stage: str) -> bool:
    """False while the background child is still compiling the kernels of ``stage`` (the
    caller then takes a path that does not need them), True otherwise (no child: the
    usual case; kernels are then compiled or loaded on demand). In the child itself, False
    for the stages it has not reached yet. Never waits."""
    if stage in _later:
        return False
    return _advance(stage, wait=False)


def child_cpu() -> float:
    """CPU seconds the child reported so far (0.0 without a child): for the benchmarks."""
    return max(_done.values(), default=0.0)


def _start_child() -> None:
    """Start the child process and the thread that reads its progress lines."""
    global _child, _lines
    env = dict(os.environ)
    env[_CHILD_ENV] = "1"
    env["PYBSNSING_QUIET_COMPILE"] = "1"
    # the child must import this very package (its kernels' cache entries are keyed by
    # the source files): add its folder to the path only when the interpreter would not
    # find it anyway (a checkout imported from the working directory), never an installed
    # package's site-packages (that would go before the standard library)
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    on_path = {os.path.abspath(p or os.getcwd()) for p in sys.path}
    if pkg_parent not in on_path:
        env["PYTHONPATH"] = pkg_parent + (os.pathsep + env["PYTHONPATH"]
                                          if env.get("PYTHONPATH") else "")
    _child = subprocess.Popen(
        [sys.executable, "-c", _CHILD_CODE], env=env, stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    _lines = queue.Queue()
    threading.Thread(target=_reader, args=(_child.stdout, _lines), daemon=True,
                     name="pybsnsing-compile-child").start()


def cold_start(probe: Callable[[], Any], parent_half: Callable[[], None]) -> None:
    """Compile the tree's kernels in two processes when the numba cache is empty.

    ``probe()`` returns the numba dispatcher whose cache entry tells whether the kernels
    are compiled already; ``parent_half()`` compiles this process's share (on tiny
    problems) while the child compiles the other.

    Runs once per process, before the first tree node; a no-op (a few file checks) when
    the kernels are cached already, in the child itself, after :func:`mark_warm`, when no
    core is idle (``PYBSNSING_PARALLEL_COMPILE=1`` starts the child anyway, ``=0``
    never), or when a child process cannot be started: the fit then compiles on demand,
    in this process.
    """
    global _cold_checked, _child
    if _cold_checked:
        return
    _cold_checked = True
    mode = os.environ.get(_PARALLEL_ENV, "auto")
    if os.environ.get(_CHILD_ENV) or mode == "0" or (mode != "1" and not _spare_core()):
        return
    if getattr(sys, "frozen", False) or not sys.executable:  # no interpreter to run -c
        return
    try:
        if _in_cache(probe()):
            return
        _start_child()
    except Exception:  # no interpreter to start, no numba cache: compile on demand
        _child = None
        return
    try:
        parent_half()
    finally:
        _advance("tree", wait=True)
