"""Nodes split concurrently (pybsnsing.tree: one large node per numba thread) give the
same trees as one node at a time.

The concurrency threshold (``tree.CONCURRENT_MIN_ROWS``) is lowered so that the small
bundled data sets go through the worker threads; the trees are compared field by field
with the serial ones (one numba thread), with and without external rules, case weights,
a depth limit, several classes and the verbose log.
"""

from __future__ import annotations

import threading

import numba
import numpy as np
import pytest
from conftest import tree_nodes

import pybsnsing.tree as T
from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset

pytestmark = pytest.mark.skipif(
    numba.config.NUMBA_NUM_THREADS < 2,
    reason="one numba thread (NUMBA_NUM_THREADS=1 or a 1-core machine): nothing concurrent",
)


def _fit(threads: int, formula: str, data, **kw):
    old = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return bsnsing(formula, data, **kw)
    finally:
        numba.set_num_threads(old)


CASES = [
    ("BreastCancer", "Class ~ .", {}),
    ("BreastCancer", "Class ~ .", {"import.external": False, "max.rules": 3}),
    ("pima", "Class ~ .", {"node.size": 5}),
    ("carEval", "value ~ .", {}),  # several classes: one tree per class
    ("Glass", "Type ~ .", {"import.external": False}),
    ("haberman", "survival ~ age + year + axillary.nodes", {"max_depth": 2}),
]


@pytest.mark.parametrize(("name", "formula", "kw"), CASES, ids=lambda c: str(c)[:40])
def test_concurrent_nodes_give_the_serial_tree(monkeypatch, name, formula, kw):
    data = load_dataset(name)
    serial = _fit(1, formula, data, **kw)
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    calls = []
    split = T.split_node
    monkeypatch.setattr(T, "split_node",
                        lambda *a: calls.append(threading.current_thread().name) or split(*a))
    concurrent = _fit(2, formula, data, **kw)
    assert tree_nodes(concurrent) == tree_nodes(serial)
    assert str(concurrent) == str(serial)
    assert any(c.startswith("pybsnsing-node") for c in calls)  # the worker threads ran


@pytest.mark.parametrize(("name", "formula", "kw"),
                         [*CASES, ("pima", "Class ~ .", {"sample_weight": "w"})],
                         ids=lambda c: str(c)[:40])
def test_a_helper_thread_making_external_questions_gives_the_serial_tree(
        monkeypatch, name, formula, kw):
    # HELPER_MIN_ROWS lowered: every node split while no other node waits or is being
    # split (the root at least) has its external questions made and packed in the helper
    # thread
    data = load_dataset(name)
    if kw.get("sample_weight") == "w":
        kw = {"sample_weight": np.random.default_rng(5).integers(1, 4, len(data)) * 1.0}
    serial = _fit(1, formula, data, **kw)
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    monkeypatch.setattr(T, "HELPER_MIN_ROWS", 1)
    threads = []
    grower = T.Grower
    if "sample_weight" in kw:
        from pybsnsing.weighted import _WeightedGrower as grower
    external = grower.external_source
    monkeypatch.setattr(grower, "external_source", lambda self, *a: threads.append(
        threading.current_thread().name) or external(self, *a))
    alone = []
    split = T._NodePool._split

    def record(self, g, task, lone):
        if T._within_depth(task.node.depth, self.max_depth):
            alone.append(lone)
        return split(self, g, task, lone)

    monkeypatch.setattr(T._NodePool, "_split", record)
    early = []  # the internal questions packed while the helper made the external ones
    finish = T._EarlyPack.finish
    monkeypatch.setattr(T._EarlyPack, "finish", lambda self, *a: early.append(
        finish(self, *a)) or early[-1])
    concurrent = _fit(2, formula, data, **kw)
    assert tree_nodes(concurrent) == tree_nodes(serial)
    assert str(concurrent) == str(serial)
    assert alone[0]  # the root
    if kw.get("import.external", True) and "sample_weight" not in kw:
        assert early and early[0] is not None
    if kw.get("import.external", True):
        assert threads and all(t.startswith("pybsnsing-node") for t in threads)
        # a node alone had the helper thread, the others made their own
        assert sum(t.startswith("pybsnsing-node-helper") for t in threads) == sum(alone)
        assert len(threads) == len(alone)


def test_concurrent_nodes_with_weights_and_verbose_log(monkeypatch, capsys):
    data = load_dataset("pima")
    w = np.random.default_rng(3).integers(1, 4, len(data)).astype(float)
    serial = _fit(1, "Class ~ .", data, sample_weight=w, verbose=True)
    log1 = capsys.readouterr().out
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    concurrent = _fit(2, "Class ~ .", data, sample_weight=w, verbose=True)
    log2 = capsys.readouterr().out
    assert tree_nodes(concurrent) == tree_nodes(serial)
    # the log lists the nodes in the same order (times differ)
    strip = [line.rsplit(" [", 1)[0] for line in log1.splitlines() if line.startswith("node")]
    assert strip and strip == [line.rsplit(" [", 1)[0] for line in log2.splitlines()
                               if line.startswith("node")]


def test_an_error_in_a_worker_thread_reaches_the_caller(monkeypatch):
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    calls = []

    def fail_on_third(grower, node, *args):
        calls.append(node.number)
        if len(calls) == 3:
            raise T.PybsnsingValueError("a node failed")
        return split(grower, node, *args)

    split = T.split_node
    monkeypatch.setattr(T, "split_node", fail_on_third)
    with pytest.raises(T.PybsnsingValueError, match="a node failed"):
        _fit(2, "Class ~ .", load_dataset("BreastCancer"))
