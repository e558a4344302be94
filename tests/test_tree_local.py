"""Subtrees grown on compact copies of their rows (pybsnsing.tree: ``Grower.localize``,
used on large data) give the same trees as growth on the whole data.

The size thresholds (``tree.LOCAL_MIN_ROWS``, ``tree.LOCAL_SHRINK``) are lowered so that
on the small bundled data sets every child to be split gets a grower of its own (nested:
local growers of local growers), and the trees are compared field by field, training row
ids of every node included, with growth without local copies: external rules (ties: the
rpart replay's re-sort), several rules, case weights, several classes, a depth limit,
the dense search path, and nodes split concurrently in worker threads.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from conftest import tree_nodes

import pybsnsing.tree as T
from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset


def _count_localize(monkeypatch) -> list[int]:
    calls: list[int] = []
    localize = T.Grower.localize

    def counted(self, rows, ordm):
        calls.append(rows.shape[0])
        return localize(self, rows, ordm)

    monkeypatch.setattr(T.Grower, "localize", counted)
    return calls


def _count_values(monkeypatch) -> list[bool]:
    """Records, for every split of a node's sorted lists, whether values went along."""
    seen: list[bool] = []
    partition = T.Grower.partition

    def counted(self, ordm, ordv, *a):
        seen.append(ordv is not None)
        return partition(self, ordm, ordv, *a)

    monkeypatch.setattr(T.Grower, "partition", counted)
    return seen


CASES = [
    ("BreastCancer", "Class ~ .", {}),
    ("BreastCancer", "Class ~ .", {"max.rules": 3, "node.size": 5}),
    ("pima", "Class ~ .", {"node.size": 5}),
    ("pima", "Class ~ .", {"opt.solver": "enum_py"}),  # dense answers (the NumPy oracle)
    ("carEval", "value ~ .", {}),  # several classes: one tree per class
    ("Glass", "Type ~ .", {"import.external": False}),
    ("haberman", "survival ~ age + year + axillary.nodes", {"max_depth": 2}),
]


@pytest.mark.parametrize(("name", "formula", "kw"), CASES, ids=lambda c: str(c)[:40])
def test_local_growers_give_the_same_tree(monkeypatch, name, formula, kw):
    data = load_dataset(name)
    monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 1 << 62)
    whole = bsnsing(formula, data, **kw)
    monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 1)
    monkeypatch.setattr(T, "LOCAL_SHRINK", 1)  # every child: a grower of its own
    calls = _count_localize(monkeypatch)
    local = bsnsing(formula, data, **kw)
    assert len(calls) >= 2
    assert tree_nodes(local) == tree_nodes(whole)
    assert str(local) == str(whole)
    assert np.array_equal(local.predict(data, type="prob"), whole.predict(data, type="prob"))


def test_local_growers_with_weights(monkeypatch):
    data = load_dataset("pima")
    w = np.random.default_rng(5).integers(0, 4, len(data)).astype(float)  # zeros too
    monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 1 << 62)
    whole = bsnsing("Class ~ .", data, sample_weight=w)
    monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 1)
    monkeypatch.setattr(T, "LOCAL_SHRINK", 1)
    calls = _count_localize(monkeypatch)
    local = bsnsing("Class ~ .", data, sample_weight=w)
    assert calls
    assert tree_nodes(local) == tree_nodes(whole)


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2,
                    reason="one numba thread (NUMBA_NUM_THREADS=1 or a 1-core machine)")
def test_local_growers_shared_by_worker_threads(monkeypatch):
    """Sibling nodes of one local grower split at the same time in two threads."""
    data = load_dataset("BreastCancer")
    old = numba.get_num_threads()
    monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 1 << 62)
    numba.set_num_threads(1)
    try:
        whole = bsnsing("Class ~ .", data, node_size=3)
        monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 300)  # the root's children only
        monkeypatch.setattr(T, "LOCAL_SHRINK", 1)
        monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
        calls = _count_localize(monkeypatch)
        numba.set_num_threads(2)
        local = bsnsing("Class ~ .", data, node_size=3)
    finally:
        numba.set_num_threads(old)
    assert calls
    assert tree_nodes(local) == tree_nodes(whole)


@pytest.mark.parametrize(("name", "formula", "kw"), CASES, ids=lambda c: str(c)[:40])
@pytest.mark.parametrize("local", [False, True], ids=["whole", "local"])
def test_carried_sorted_values_give_the_same_tree(monkeypatch, name, formula, kw, local):
    """Nodes that carry their sorted values from node to node (``Grower.keeps_values``,
    on large data: split with the sorted lists, read by the question builder and the
    rpart replay instead of gathered by row id) give the tree of nodes that gather them;
    also with local growers and with the one-pass split of large nodes."""
    data = load_dataset(name)
    w = None
    if name == "pima" and not kw.get("opt.solver"):  # case weights: the column-by-column
        # question builder
        w = np.random.default_rng(3).integers(1, 4, len(data)).astype(float)
    monkeypatch.setattr(T, "VALUES_MIN_ROWS", 1 << 62)
    if local:
        monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 1)
        monkeypatch.setattr(T, "LOCAL_SHRINK", 1)
    ref = bsnsing(formula, data, sample_weight=w, **kw)
    monkeypatch.setattr(T, "VALUES_MIN_ROWS", 1)
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    monkeypatch.setattr(T, "PARTITION_KERNEL_MIN_ROWS", 1)
    seen = _count_values(monkeypatch)
    got = bsnsing(formula, data, sample_weight=w, **kw)
    assert seen and all(seen)  # not vacuous: every split carried values
    assert tree_nodes(got) == tree_nodes(ref)
    assert str(got) == str(ref)


def test_no_sorted_values_beyond_the_memory_cap(monkeypatch):
    """A tree of more training values than ``VALUES_MAX_ENTRIES`` carries none (they would
    cost one more copy of the data per level): every split gathers."""
    data = load_dataset("BreastCancer")
    monkeypatch.setattr(T, "VALUES_MIN_ROWS", 1)
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    monkeypatch.setattr(T, "PARTITION_KERNEL_MIN_ROWS", 1)
    seen = _count_values(monkeypatch)
    monkeypatch.setattr(T, "VALUES_MAX_ENTRIES", 10)
    capped = bsnsing("Class ~ .", data)
    assert seen and not any(seen)
    seen.clear()
    monkeypatch.setattr(T, "VALUES_MAX_ENTRIES", 1 << 62)
    carried = bsnsing("Class ~ .", data)
    assert seen and all(seen)
    assert tree_nodes(capped) == tree_nodes(carried)


@pytest.mark.parametrize(("name", "formula", "kw"), CASES, ids=lambda c: str(c)[:40])
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mapped", [False, True], ids=["numpy", "mapped"])
def test_lists_in_reused_buffers_give_the_same_tree(monkeypatch, name, formula, kw, threads,
                                                    mapped):
    """Large nodes write their children's sorted lists (and values) within their own
    block of the tree's buffers (``tree.ListSlabs``, the smaller child stashed meanwhile;
    local growers relabel theirs in place): the same
    trees as with fresh arrays for every split, also with nodes split concurrently, and
    with every streamed array (buffers, fresh lists, packed answers) in its own mapping
    (``tree.streamed_array``, ``mapped``) or numpy's memory."""
    data = load_dataset(name)
    if mapped:
        monkeypatch.setattr(T, "STREAMED_MIN_BYTES", 1)
        made = []
        streamed = T.streamed_array

        def counted_array(count, dtype, zeroed=False):
            out = streamed(count, dtype, zeroed)
            made.append(count == 0 or isinstance(out.base, memoryview))
            return out

        monkeypatch.setattr(T, "streamed_array", counted_array)
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS_BIG_TREE", 1)
    monkeypatch.setattr(T, "PARTITION_KERNEL_MIN_ROWS", 1)
    monkeypatch.setattr(T, "VALUES_MIN_ROWS", 1)
    monkeypatch.setattr(T, "LOCAL_MIN_ROWS", 64)
    monkeypatch.setattr(T, "LOCAL_SHRINK", 2)
    stashes = T.ListSlabs.stashes
    used: list[bool] = []

    def counted(self, lists, values, count):
        out = stashes(self, lists, values, count)
        used.append(values is None or out[1].base is self.stash_values)
        return out

    old = numba.get_num_threads()
    try:
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        with monkeypatch.context() as m:  # fresh arrays for every split
            m.setattr(T.ListSlabs, "holds", lambda self, lists: False)
            ref = bsnsing(formula, data, **kw)
        monkeypatch.setattr(T.ListSlabs, "stashes", counted)
        got = bsnsing(formula, data, **kw)
    finally:
        numba.set_num_threads(old)
    assert used and any(used)  # not vacuous: nodes were split within the buffers
    if mapped:
        assert made and all(made)
    assert tree_nodes(got) == tree_nodes(ref)
    assert str(got) == str(ref)
