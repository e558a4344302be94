"""The first fit with an empty numba cache (pybsnsing._coldstart.cold_start).

A fresh process with an empty ``NUMBA_CACHE_DIR`` and ``PYBSNSING_PARALLEL_COMPILE=1``
fits BreastCancer: a child process compiles the rpart replay while the parent compiles
the rest, the fit then loads everything from the cache. The tree equals the one fitted
here, the parent compiles no rpart kernel, and the later settings (max_rules 3 and 4)
wait for the child's stages instead of compiling. Compiles everything from scratch
(tens of seconds on a loaded machine): runs with ``PYBSNSING_SLOW=1``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SLOW = os.environ.get("PYBSNSING_SLOW", "") not in ("", "0")
REPO = Path(__file__).resolve().parent.parent

_SCRIPT = r"""
import collections, json
import numba.core.event as ev

compiled = collections.Counter()


class L(ev.Listener):
    def on_start(self, e):
        f = e.data["dispatcher"].py_func
        compiled[f.__module__] += 1

    def on_end(self, e):
        pass


ev.register("numba:compile", L())
import pybsnsing
import pybsnsing._coldstart as W
from pybsnsing.datasets import dataset_formula, load_dataset

bc = load_dataset("BreastCancer")
f = dataset_formula("BreastCancer")
out = {"trees": []}
out["trees"].append(pybsnsing.bsnsing(f, bc).tree_signature())
out["first"] = dict(compiled)
out["stages_after_first"] = sorted(W._done)
compiled.clear()
for mr in (3, 4):
    out["trees"].append(pybsnsing.bsnsing(f, bc, max_rules=mr).tree_signature())
out["later"] = dict(compiled)
print(json.dumps(out))
"""


@pytest.mark.skipif(not SLOW, reason="compiles every tree kernel: PYBSNSING_SLOW=1")
def test_first_fit_with_compile_child(tmp_path):
    import pybsnsing
    from pybsnsing.datasets import dataset_formula, load_dataset

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "PYBSNSING_PARALLEL_COMPILE": "1",
           "PYBSNSING_QUIET_COMPILE": "1", "PYTHONPATH": str(REPO)}
    env.pop("PYBSNSING_COLD_CHILD", None)
    res = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                         text=True, timeout=900, check=True)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    bc = load_dataset("BreastCancer")
    f = dataset_formula("BreastCancer")
    expected = [pybsnsing.bsnsing(f, bc, max_rules=mr).tree_signature() for mr in (2, 3, 4)]
    assert out["trees"] == expected
    assert "tree" in out["stages_after_first"]
    # the child compiled the rpart replay; the parent its own half only (the ENUM search,
    # and of rpart only the column sort: sort_columns_from_rows and mysort)
    first = out["first"]
    assert first.get("pybsnsing.kernels.enum", 0) > 0
    assert first.get("pybsnsing.kernels.rpart", 0) <= 2
    # max_rules 3 and 4 loaded the child's kernels instead of compiling them
    assert out["later"].get("pybsnsing.kernels.enum", 0) == 0


def test_cold_start_is_a_no_op_when_cached(monkeypatch):
    import pybsnsing._coldstart as W

    started = []
    monkeypatch.setattr(W, "_cold_checked", False)
    monkeypatch.setattr(W.subprocess, "Popen", lambda *a, **k: started.append(a))
    monkeypatch.setattr(W, "_in_cache", lambda disp: True)
    monkeypatch.setenv("PYBSNSING_PARALLEL_COMPILE", "1")
    W.cold_start(lambda: None, lambda: None)
    assert started == []
    assert W._child is None
    W.wait_stage("parallel")  # no child: returns at once


def test_cold_start_respects_the_switch(monkeypatch):
    import pybsnsing._coldstart as W

    started = []
    monkeypatch.setattr(W, "_cold_checked", False)
    monkeypatch.setattr(W.subprocess, "Popen", lambda *a, **k: started.append(a))
    monkeypatch.setattr(W, "_in_cache", lambda disp: False)
    monkeypatch.setenv("PYBSNSING_PARALLEL_COMPILE", "0")
    W.cold_start(lambda: None, lambda: None)
    assert started == []
    monkeypatch.setattr(W, "_cold_checked", False)
    monkeypatch.setenv("PYBSNSING_PARALLEL_COMPILE", "auto")
    monkeypatch.setattr(W, "_spare_core", lambda: False)
    W.cold_start(lambda: None, lambda: None)
    assert started == []


def _attach_child(monkeypatch, code: str):
    """A child process running ``code`` as the compile child of ``pybsnsing._coldstart``
    (its reader thread started, no stage done yet); returns the module and the child."""
    import queue
    import threading

    import pybsnsing._coldstart as W

    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=W._reader, args=(child.stdout, lines), daemon=True).start()
    monkeypatch.setattr(W, "_child", child)
    monkeypatch.setattr(W, "_lines", lines)
    monkeypatch.setattr(W, "_done", {})
    return W, child


def test_a_silent_child_is_stopped(monkeypatch):
    W, child = _attach_child(monkeypatch, "import time; time.sleep(60)")
    monkeypatch.setattr(W, "_STAGE_TIMEOUT", 0.5)
    W.wait_stage("mr3")  # nothing reported within the timeout: the child is stopped
    assert W._child is None
    assert child.poll() is not None


def test_stages_are_read_in_order(monkeypatch):
    W, _ = _attach_child(monkeypatch,
                         "print('tree 1.5', flush=True); print('mr3 2.5', flush=True)")
    W.wait_stage("tree")
    assert "tree" in W._done
    W.wait_stage("parallel")  # the child ends before that stage: no more waiting
    assert W._done == {"tree": 1.5, "mr3": 2.5}
    assert W.child_cpu() == 2.5
    assert W._child is None


def test_a_child_that_ends_early_is_forgotten_by_ready(monkeypatch):
    """A child that exits before a stage: ``ready`` reaps it, so that a later
    ``wait_stage`` returns at once instead of waiting for lines that never come."""
    import threading

    W, child = _attach_child(monkeypatch, "print('tree 1.0', flush=True)")
    monkeypatch.setattr(W, "_later", set())
    monkeypatch.setattr(W, "_STAGE_TIMEOUT", 30.0)
    child.wait()
    while W._lines.qsize() < 2:  # the stage line and the end of output
        threading.Event().wait(0.01)
    assert W.ready("questions")  # the child ended without it: compile on demand
    assert W._child is None
    assert W._done == {"tree": 1.0}
    W.wait_stage("mr3")  # returns at once (no 30 s wait)
