"""The structural tree grower against the text-based algorithm it replaces.

:func:`pybsnsing.tree.grow_tree` sorts every column once, keeps per-node sorted row
lists, describes questions by structure (column, kind, exact cut), packs their answers
straight into the ENUM's bit layout and writes texts only for the chosen questions.  These
tests check it node for node against a plain reference grower that does what R does at
every node: binarize the node's rows from scratch (fresh stable sorts), write every
question text, derive the ENUM groups from the texts (:func:`question_groups`), search
the dense 0/1 matrix (:func:`enum_search`) and evaluate the rule text.  Data sets are
random with many ties, binary and low-cardinality columns.  Also: structural groups ==
text groups, packed answers == dense answers, lazy texts, the warm-up, and that
``import pybsnsing`` does not import numba.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from pybsnsing.control import bscontrol
from pybsnsing.external import external_questions
from pybsnsing.kernels import enum as K
from pybsnsing.questions import KINDS, NodeRows, node_questions
from pybsnsing.rules import evaluate_rule
from pybsnsing.search import (
    enum_search,
    enum_search_packed,
    question_groups,
    structural_groups,
)
from pybsnsing.tree import effective_node_size, grow_tree


class _CountingPool(ThreadPoolExecutor):
    """A one-thread pool that counts the work submitted to it."""

    def __init__(self) -> None:
        super().__init__(1)
        self.submitted = 0

    def submit(self, *args, **kwargs):
        self.submitted += 1
        return super().submit(*args, **kwargs)


def _data(seed: int, n: int | None = None) -> tuple[np.ndarray, list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(40, 1500)) if n is None else n
    cols = []
    for _ in range(int(rng.integers(1, 6))):
        kind = rng.integers(0, 5)
        if kind == 0:
            c = rng.normal(size=n)
        elif kind == 1:
            c = rng.integers(0, 2, n).astype(float)
        elif kind == 2:
            c = rng.integers(0, 7, n) * 0.1
        elif kind == 3:
            c = np.round(rng.normal(size=n), 1)
        else:
            c = np.round(rng.normal(size=n) * 3)
        cols.append(c)
    X = np.column_stack(cols)
    y = ((X[:, 0] + (X[:, -1] > 0.3) - 0.5 + rng.normal(0, 0.7, n)) > 0).astype(np.int64)
    y[:2] = (0, 1)
    return X, [f"x{j}" for j in range(X.shape[1])], y


def _reference_tree(X, names, y, control):
    """The text-based grower (the algorithm before the structural one), FIFO like R."""
    n = X.shape[0]
    node_size = effective_node_size(control, n)
    nodes = []  # (rows, rule, children)
    queue = [np.arange(n)]
    out = {0: (np.arange(n), "")}
    order = [0]
    head = 0
    while head < len(queue):
        rows = queue[head]
        num = order[head]
        head += 1
        Xn, yn = X[rows], y[rows]
        n1 = int(yn.sum())
        target = 1 if n1 >= rows.size - n1 else 0
        texts: list[str] = []
        blocks = []
        if not control.suppress_internal:
            qs = node_questions(Xn, names, yn, target, num2factor=control.num2factor,
                                nseg_numeric=control.nseg_numeric,
                                nseg_factor=control.nseg_factor, bin_size=control.bin_size,
                                node_size=node_size,
                                keep_perfect=control.keep_perfect_separation)
            texts += qs.texts
            blocks.append(qs.B)
        if control.external_method is not None:
            et, eb = external_questions(Xn, names, yn, method=control.external_method)
            texts += et
            blocks.append(eb)
        rule = ""
        if texts:
            B = np.hstack(blocks)
            res = enum_search(B, yn if target == 1 else 1 - yn, question_groups(texts),
                              max_rules=control.max_rules, node_size=node_size,
                              no_same_gender_children=control.no_same_gender_children)
            rule = " | ".join(texts[j] for j in res.cols)
        if not rule:
            continue
        left = evaluate_rule(rule, {nm: Xn[:, j] for j, nm in enumerate(names)})
        if left.sum() in (0, rows.size):
            continue
        out[num] = (rows, rule)
        for child_rows in (rows[left], rows[~left]):
            c = len(out)
            out[c] = (child_rows, "")
            c1 = int(y[child_rows].sum())
            ok = (child_rows.size > node_size and 0 < c1 < child_rows.size
                  and max(c1, child_rows.size - c1) / child_rows.size < control.stop_prob)
            if ok:
                queue.append(child_rows)
                order.append(c)
    nodes = [out[k] for k in range(len(out))]
    return nodes, node_size


@pytest.mark.parametrize("seed", range(24))
def test_tree_equals_text_based_reference(seed):
    X, names, y = _data(seed)
    rng = np.random.default_rng(1000 + seed)
    control = bscontrol(**{
        "import.external": bool(seed % 2),
        "max.rules": int(rng.integers(1, 4)),
        "node.size": int(rng.choice([0, 0, 5, 20])),
        "nseg.numeric": int(rng.integers(3, 25)),
        "bin.size": int(rng.integers(1, 8)),
        "num2factor": 3,
        "nseg.factor": 100,
        "no.same.gender.children": bool(rng.random() < 0.2),
        "keep_perfect_separation": bool(rng.random() < 0.3),
    })
    got, ns = grow_tree(X, names, y, control)
    want, ns_ref = _reference_tree(X, names, y, control)
    assert ns == ns_ref
    assert len(got) == len(want)
    for nd, (rows, rule) in zip(got, want, strict=True):
        assert np.array_equal(nd.obs, rows), nd.number
        assert nd.split_rule == rule, nd.number


def test_oracle_solver_and_suppress_internal_paths():
    X, names, y = _data(5, n=600)
    for kw in ({"opt.solver": "enum_py"}, {"suppress.internal": True},
               {"opt.solver": "enum_py", "import.external": False}):
        control = bscontrol(**kw)
        got, _ = grow_tree(X, names, y, control)
        want, _ = _reference_tree(X, names, y, control)
        assert [(nd.obs.tolist(), nd.split_rule) for nd in got] == \
            [(r.tolist(), t) for r, t in want], kw


def test_structure_groups_and_packing_match_texts_and_dense():
    for seed in range(40):
        X, names, y = _data(seed, n=300)
        qs = node_questions(X, names, y, 1, nseg_numeric=5, num2factor=8,
                            keep_perfect=bool(seed % 2))
        # lazy texts: one by one == all at once; kinds are the documented ones
        assert [qs.text(k) for k in range(qs.m)] == qs.texts
        assert set(np.unique(qs.kinds).tolist()) <= set(range(len(KINDS)))
        ext_texts, _ = external_questions(X, names, y)
        keys = qs.group_keys()
        assert keys is not None
        ev = [int(t.split(" ")[0][1:]) for t in ext_texts]
        ed = [1 if " < " in t else 0 for t in ext_texts]
        grp = structural_groups(np.r_[keys[0], ev], np.r_[keys[1], ed])
        assert np.array_equal(grp, question_groups(qs.texts + list(ext_texts)))
        # packed straight from the sorted orders == packing the dense matrix
        slot = np.zeros(y.size, np.int64)
        from pybsnsing.kernels.packing import node_slots

        n1 = int(node_slots(np.arange(y.size, dtype=np.int64), y.astype(np.uint8),
                            np.int64(1), slot))
        Xp = np.zeros((qs.m, max(1, (n1 + 63) // 64)), np.uint64)
        Xn = np.zeros((qs.m, max(1, (y.size - n1 + 63) // 64)), np.uint64)
        qs.pack(slot, Xp, Xn)
        Dp, Dn = K.pack_by_class(np.ascontiguousarray(qs.B), y.astype(np.uint8))
        assert np.array_equal(Xp, Dp) and np.array_equal(Xn, Dn)
        # the columns' halves packed in two threads (the root's helper): the same rows
        node = NodeRows(qs.ranges.ordm, np.arange(y.size), slot, np.arange(y.size))
        Hp, Hn = np.zeros_like(Xp), np.zeros_like(Xn)
        with _CountingPool() as pool:
            qs.pack_node(node, Hp, Hn, 0, pool)
        assert np.array_equal(Hp, Xp) and np.array_equal(Hn, Xn)
        assert pool.submitted == (len(set(qs.cols.tolist())) > 1)
        for mr in (1, 2, 3):
            a = enum_search_packed(Xp, Xn, n1, y.size - n1, grp[: qs.m], max_rules=mr)
            b = enum_search(qs.B, y, grp[: qs.m], max_rules=mr)
            assert a == b


def test_structural_groups_numbering():
    # R's numbering: '>' keys by first appearance, then '<' keys, then the rest
    var = [3, 1, 3, -1, 1, 2, -1]
    dire = [0, 1, 1, -1, 0, 0, -1]
    texts = ["c > 1", "a < 2", "c < 0", "b==1", "a > 5", "d >= 1", "f=='x'"]
    assert structural_groups(var, dire).tolist() == question_groups(texts).tolist()
    assert structural_groups([], []).tolist() == []
    with pytest.raises(ValueError, match="direction must hold only -1, 0 and 1"):
        structural_groups([1, 2], [0, 2])


def test_structural_groups_match_the_texts():
    rng = np.random.default_rng(7)
    for m in (0, 1, 5, 40, 300):
        var = rng.integers(0, 9, m)
        dire = rng.integers(-1, 2, m)
        ops = {0: ">", 1: "<"}
        texts = [f"v{a} {ops[b]} {k}" if b >= 0 else f"v{a}=={k}"
                 for k, (a, b) in enumerate(zip(var, dire, strict=True))]
        assert structural_groups(var, dire).tolist() == question_groups(texts).tolist()


def test_group_keys_fall_back_on_unusual_names():
    X, _, y = _data(3, n=200)
    names = [f"a>{j}" for j in range(X.shape[1])]
    assert node_questions(X, names, y, 1).group_keys() is None


def test_warmup_and_lazy_numba_import():
    from pybsnsing._warmup import warmup

    times = warmup(optimal=False)
    assert {"binarize", "tree", "enum", "external"} <= set(times)
    code = "import sys, pybsnsing; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


@pytest.mark.parametrize("seed", range(3))
def test_large_node_partition_equals_the_numpy_split(seed, monkeypatch):
    """Grower.partition's one-pass numba split of large nodes (kernels.packing.
    split_orders) gives the children's sorted lists and values of the boolean-mask path,
    and each child's values are its sorted lists' values (sorted_values)."""
    import pybsnsing.tree as T
    from pybsnsing.questions import sorted_values

    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(50, 3000)), int(rng.integers(1, 6))
    X = np.round(rng.normal(size=(n, p)), 1)
    y = rng.integers(0, 2, n)
    g = T.Grower(X, [f"x{j}" for j in range(p)], y, bscontrol(), 1)
    ordm = g.root_orders()
    ordv = sorted_values(g.X, ordm)
    for want in ((True, True), (True, False), (False, True)):
        rows_left = np.flatnonzero(rng.random(n) < rng.uniform(0, 1))
        monkeypatch.setattr(T, "PARTITION_KERNEL_MIN_ROWS", 10**9)
        ref = g.partition(ordm, ordv, rows_left, *want)
        monkeypatch.setattr(T, "PARTITION_KERNEL_MIN_ROWS", 1)
        got = g.partition(ordm, ordv, rows_left, *want)
        for side, (a, b), w in zip(("left", "right"), zip(got, ref, strict=True), want,
                                   strict=True):
            for u, v in zip(a, b, strict=True):
                assert (u is None) == (v is None) == (not w), side
                if u is not None:
                    assert u.dtype == v.dtype and np.array_equal(u, v), side
            if w:
                assert np.array_equal(a[1], sorted_values(g.X, a[0])), side
                expect = np.isin(ordm[0], rows_left) == (side == "left")
                assert np.array_equal(a[0][0], ordm[0][expect]), side
        assert not g.gmask.any()
        # the columns' halves split in two threads (the root's helper): the same lists
        with _CountingPool() as pool:
            for values in (ordv, None):
                pool.submitted = 0
                halves = g.partition(ordm, values, rows_left, *want, helper=pool)
                assert pool.submitted == (p > 1)
                for a, b in zip(halves, ref, strict=True):
                    assert (a[0] is None) == (b[0] is None)
                    assert a[0] is None or np.array_equal(a[0], b[0])
                    assert (a[1] is None) == (values is None or b[1] is None)
                    assert a[1] is None or np.array_equal(a[1], b[1])
        # without values: the same sorted lists, no values
        for large in (False, True):
            monkeypatch.setattr(T, "PARTITION_KERNEL_MIN_ROWS", 1 if large else 10**9)
            bare = g.partition(ordm, None, rows_left, *want)
            for (o, v), (o2, _) in zip(bare, ref, strict=True):
                assert v is None and (o is None) == (o2 is None)
                assert o is None or np.array_equal(o, o2)


def test_split_orders_reports_a_mask_that_does_not_match():
    """A mask with more (or fewer) ids than the left child's room is reported, and
    nothing is written out of bounds (the arrays' guard elements stay)."""
    from pybsnsing.kernels.packing import split_orders

    ordm = np.array([[3, 1, 0, 2], [0, 1, 2, 3]], dtype=np.int64)
    for mask, nl in (([True] * 4, 1), ([False] * 4, 3), ([True, False, True, False], 2)):
        left = np.full(2 * nl + 3, -7, np.int64)
        right = np.full(2 * (4 - nl) + 3, -7, np.int64)
        left_v = np.full(2 * nl + 3, -7.0)
        right_v = np.full(2 * (4 - nl) + 3, -7.0)
        bits = np.packbits(mask, bitorder="little")
        ok = split_orders(ordm, ordm * 10.0, bits, left[:2 * nl], right[:2 * (4 - nl)],
                          left_v[:2 * nl], right_v[:2 * (4 - nl)])
        assert ok == (sum(mask) == nl)
        bare_l, bare_r = left.copy(), right.copy()
        assert split_orders(ordm, np.empty((0, 0)), bits, bare_l[:2 * nl],
                            bare_r[:2 * (4 - nl)], np.empty(0), np.empty(0)) == ok
        assert np.array_equal(bare_l, left) and np.array_equal(bare_r, right)
        assert (left[2 * nl:] == -7).all() and (right[2 * (4 - nl):] == -7).all()
        assert (left_v[2 * nl:] == -7).all() and (right_v[2 * (4 - nl):] == -7).all()
        if ok:
            m = np.array(mask)
            assert np.array_equal(left[:2 * nl].reshape(2, nl), [r[m[r]] for r in ordm])
            assert np.array_equal(left_v[:2 * nl], left[:2 * nl] * 10.0)


def test_freed_memory_is_released_only_near_the_peak(monkeypatch) -> None:
    """release_freed_memory trims the C heap only when the resident memory plus the
    margin reaches the process's high-water mark (trimming always made every reused page
    a page fault)."""
    import pybsnsing.tree as T

    calls: list[int] = []
    margins: list[int] = []
    monkeypatch.setattr(T, "_malloc_trim", lambda: calls.append)
    for near, want in ((True, [0]), (False, [])):
        calls.clear()
        monkeypatch.setattr(T, "_near_peak", lambda m, near=near: margins.append(m) or near)
        T.release_freed_memory(123)
        assert calls == want and margins[-1] == 123
    monkeypatch.undo()
    # the real resident memory and peak: never above the peak, reached with a margin
    a = np.ones(1 << 23)
    assert T._near_peak(1 << 50)
    assert not T._near_peak(-(1 << 50)) or not sys.platform.startswith("linux")
    del a


@pytest.mark.parametrize("threads", [1, 2])
def test_root_lists_are_the_stable_orders_and_their_values(threads, monkeypatch):
    """Grower.root_lists (the sort's own gather of the values, one column per thread on
    large data) = the stable argsort of every column and sorted_values of it, ties
    (-0.0 == 0.0 included) in row order."""
    import numba

    import pybsnsing.tree as T
    from pybsnsing.questions import sorted_values

    monkeypatch.setattr(T, "CONCURRENT_MIN_ROWS", 1)
    rng = np.random.default_rng(threads)
    X = np.round(rng.normal(size=(5000, 4)), 1)
    X[rng.random(X.shape) < 0.1] = -0.0
    X[:, 3] = rng.normal(size=5000)
    g = T.Grower(X, [f"x{j}" for j in range(4)], rng.integers(0, 2, 5000), bscontrol(), 1)
    old = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        ordm, ordv = g.root_lists(True)
        bare, none = g.root_lists(False)
    finally:
        numba.set_num_threads(old)
    want = np.stack([np.argsort(X[:, j], kind="stable") for j in range(4)])
    assert np.array_equal(ordm, want) and np.array_equal(bare, want) and none is None
    assert ordv.tobytes() == sorted_values(g.X, want).tobytes()


def test_pack_scratch_gives_zeroed_arrays_per_thread(monkeypatch):
    """PackScratch.zeros: zeroed C-ordered arrays of the asked shapes, also after the
    buffer was written (reused), a buffer per thread, fresh arrays above the cap."""
    import threading

    import pybsnsing.tree as T

    sc = T.PackScratch()
    a, b = sc.zeros((3, 5), (3, 2))
    assert a.shape == (3, 5) and b.shape == (3, 2) and a.flags.c_contiguous
    a[:] = 7
    b[:] = 9
    c, d = sc.zeros((2, 4), (2, 4))
    assert not c.any() and not d.any() and np.shares_memory(c, sc.buf)
    c[:] = 1  # disjoint views
    assert not d.any()
    other = []
    t = threading.Thread(target=lambda: other.append(sc.zeros((2, 4), (2, 4))[0]))
    t.start()
    t.join()
    assert not np.shares_memory(other[0], c)
    monkeypatch.setattr(T, "SCRATCH_MAX_BYTES", 8)
    e, f = sc.zeros((2, 4), (2, 4))
    assert not e.any() and not np.shares_memory(e, sc.buf)


def test_streamed_arrays_are_zeroed_writable_mappings(monkeypatch):
    """tree.streamed_array: from STREAMED_MIN_BYTES on, a writable C-contiguous array
    of its own anonymous mapping that reads as zeros (also when not asked for zeros);
    below, numpy's memory (zeros when asked); empty arrays need no mapping."""
    import mmap

    import pybsnsing.tree as T

    big = T.streamed_array(T.STREAMED_MIN_BYTES // 8, np.int64)
    assert isinstance(big.base, memoryview) and isinstance(big.base.obj, mmap.mmap)
    assert big.dtype == np.int64 and big.flags.writeable and big.flags.c_contiguous
    assert big.shape == (T.STREAMED_MIN_BYTES // 8,) and not big.any()
    big[::4096] = 5
    assert int(big.sum()) == 5 * len(range(0, big.shape[0], 4096))
    small = T.streamed_array(10, np.float64, zeroed=True)
    assert not isinstance(small.base, memoryview) and not small.any()
    monkeypatch.setattr(T, "STREAMED_MIN_BYTES", 0)
    assert T.streamed_array(0, np.uint64).shape == (0,)
    one = T.streamed_array(3, np.uint64, zeroed=True)
    assert isinstance(one.base, memoryview) and not one.any()
    a, b = T.PackScratch.fresh((2, 3), (1, 4))
    assert a.shape == (2, 3) and b.shape == (1, 4) and not a.any() and not b.any()
    assert not np.shares_memory(a, b)


@pytest.mark.parametrize("name", ["BreastCancer", "pima"])
def test_reused_pack_buffers_give_the_same_tree(monkeypatch, name):
    """Nodes packed into the thread's reused buffer (PackScratch) give the tree of
    nodes packed into fresh zeroed arrays."""
    import pybsnsing.tree as T
    from pybsnsing import bsnsing
    from pybsnsing.datasets import load_dataset

    data = load_dataset(name)
    reused = bsnsing("Class ~ .", data, max_rules=3)
    monkeypatch.setattr(T, "SCRATCH_MAX_BYTES", 0)
    fresh = bsnsing("Class ~ .", data, max_rules=3)
    assert str(reused) == str(fresh)


def test_value_buffers_go_once_no_queued_node_carries_values():
    """ListSlabs.drop_unused_values: the value buffers stay while a queued node carries
    values and go (None) once none does; the order buffers stay."""
    import pybsnsing.tree as T

    slabs = T.ListSlabs(2, 10, True)
    ordm, ordv = slabs.root()
    with_values = T._Task(None, ordm, None, np.arange(10), ordv)
    without = T._Task(None, ordm, None, np.arange(10), None)
    slabs.drop_unused_values([without, with_values])
    assert slabs.values is not None
    slabs.drop_unused_values([without])
    assert slabs.values is None and slabs.stash_values is None
    assert slabs.orders is not None and slabs.stash is not None
    # a node still holding values of the dropped buffer gets a stash of its own
    stash, stash_v = slabs.stashes(ordm[:, :4], ordv[:, :4], 3)
    assert stash.base is slabs.stash and stash_v.shape == (3,)
    assert not np.shares_memory(stash_v, ordv)


def test_structural_groups_wide_and_extreme_ids():
    """Variable ids too far apart for the kernel's table (or whose difference overflows
    int64) are numbered by the dict fallback: the same ids as for compact ids of the same
    pattern."""
    from pybsnsing.kernels.enum import GROUPS_OK, GROUPS_WIDE, group_ids

    dire = [0, 1, 0, -1, 1, 0]
    compact = structural_groups([1, 0, 1, 5, 0, 2], dire).tolist()
    big = np.iinfo(np.int64).max
    for far in ([10**12, -7, 10**12, 3, -7, 5], [big, -big - 1, big, 0, -big - 1, 4]):
        assert group_ids(np.array(far, np.int64), np.array(dire, np.int64))[1] == GROUPS_WIDE
        assert structural_groups(far, dire).tolist() == compact
    ids, status = group_ids(np.array([4, 9], np.int64), np.array([-1, -1], np.int64))
    assert status == GROUPS_OK and ids.tolist() == [1, 2]


@pytest.mark.parametrize("seed", range(40))
def test_split_orders_in_place_equals_the_numpy_split(seed):
    """kernels.packing.split_orders_in_place: the node's block becomes its children's
    sorted lists (and values), left block first, as the boolean-mask split gives them,
    in both directions (the smaller side stashed: forward when the right side is the
    smaller, backward when the left is); the stash is written only within
    ``p * min(nl, m - nl)`` elements and a column with another count of left ids is
    reported."""
    from pybsnsing.kernels.packing import (
        IN_PLACE_CHUNK,
        column_sides,
        split_by_sides,
        split_orders_in_place,
    )

    rng = np.random.default_rng(seed)
    # (every fourth: columns of several chunks of looked-up sides)
    top = 3 * IN_PLACE_CHUNK if seed % 4 == 3 else 400
    p, m = int(rng.integers(1, 6)), int(rng.integers(1, top))
    n = m + int(rng.integers(0, 50))  # row ids of the grower: the node holds m of them
    ids = rng.choice(n, m, replace=False)
    ordm = np.stack([ids[rng.permutation(m)] for _ in range(p)]).astype(np.int64)
    ordv = ordm * 0.5 - 3.0
    frac = [0.0, 1.0, rng.uniform()][seed % 3]
    mask = np.zeros(n, bool)
    mask[ids[rng.random(m) < frac]] = True
    bits = np.packbits(mask, bitorder="little")
    nl = int(mask[ids].sum())
    k = p * min(nl, m - nl)
    sel = mask[ordm]
    want = np.concatenate([ordm[sel], ordm[~sel]])
    for valued in (True, False):
        lists, vals = ordm.ravel().copy(), ordv.ravel().copy() if valued else np.empty(0)
        stash = np.full(k + 5, -7, np.int64)
        stash_v = np.full(k + 5, -7.0)
        assert split_orders_in_place(lists, vals, p, bits, nl, stash[:k],
                                     stash_v[:k] if valued else np.empty(0))
        assert np.array_equal(lists, want)
        assert np.array_equal(lists[: p * nl].reshape(p, nl), ordm[sel].reshape(p, nl))
        assert (stash[k:] == -7).all() and (stash_v[k:] == -7.0).all()
        if valued:
            assert np.array_equal(vals, want * 0.5 - 3.0)
        # the same in two steps (kernels.packing.column_sides, split_by_sides)
        sides = np.zeros(p * m, np.uint8)
        column_sides(ordm.ravel(), p, bits, sides, 0, p // 2)
        column_sides(ordm.ravel(), p, bits, sides, p // 2, p)
        assert np.array_equal(sides, mask[ordm.ravel()])
        for arr, expect in ((ordm.ravel().copy(), want), (ordv.ravel().copy(), want * 0.5 - 3.0)):
            stash = np.full(k + 5, -7, arr.dtype)
            assert split_by_sides(arr, p, sides, nl, stash[:k])
            assert np.array_equal(arr, expect) and (stash[k:] == -7).all()
        # a wrong count of left ids, or a stash too short: reported
        if 0 < nl:
            assert not split_orders_in_place(ordm.ravel().copy(), np.empty(0), p, bits,
                                             nl - 1, np.empty(p * m, np.int64), np.empty(0))
        if k:
            assert not split_orders_in_place(ordm.ravel().copy(), np.empty(0), p, bits, nl,
                                             stash[: k - 1], np.empty(0))
            assert not split_by_sides(ordm.ravel().copy(), p, sides, nl - 1, stash)
            assert not split_by_sides(ordm.ravel().copy(), p, sides, nl, stash[: k - 1])


@pytest.mark.parametrize("seed", range(4))
def test_nodes_split_within_the_buffer_block(seed, monkeypatch):
    """Grower.partition of nodes whose lists are blocks of the tree's buffer
    (tree.ListSlabs): each child's lists and values are the boolean-mask split's, written
    within the node's block (left part first); adjacent nodes' stashes do not overlap, so
    the two nodes of a level split in turn from the same buffer give the same children
    as each split alone."""
    import pybsnsing.tree as T
    from pybsnsing.questions import sorted_values

    rng = np.random.default_rng(seed)
    n, p = int(rng.integers(60, 2000)), int(rng.integers(1, 6))
    X = np.round(rng.normal(size=(n, p)), 1)
    g = T.Grower(X, [f"x{j}" for j in range(p)], rng.integers(0, 2, n), bscontrol(), 1)
    g.slabs = T.ListSlabs(p, n, True)
    monkeypatch.setattr(T, "PARTITION_KERNEL_MIN_ROWS", 1)
    ordm, ordv = g.root_lists(True)
    assert g.slabs.holds(ordm)
    rows_left = np.flatnonzero(rng.random(n) < rng.uniform(0.05, 0.95))
    ref = [(o.copy(), v.copy()) for o, v in g.partition(ordm.copy(), ordv.copy(),
                                                        rows_left, True, True)]
    if seed % 2:  # the root's way: the sides and the values in a helper thread
        with _CountingPool() as pool:
            got = g.partition(ordm, ordv, rows_left, True, True, helper=pool)
            assert pool.submitted == 2
    else:
        got = g.partition(ordm, ordv, rows_left, True, True)
    for (o, v), (ro, rv) in zip(got, ref, strict=True):
        assert g.slabs.holds(o) and v.base is g.slabs.values
        assert np.array_equal(o, ro) and np.array_equal(v, rv)
        assert np.array_equal(v, sorted_values(g.X, o))
    assert got[0][0].ctypes.data == g.slabs.orders.ctypes.data  # the block's left part
    # the next level: both children split, each within its own part of the buffer
    children = [(o, v, np.sort(o[0])) for o, v in got]
    expect, cuts = [], []
    for o, v, rows in children:
        cut = rows[rng.random(rows.shape[0]) < 0.5]
        cuts.append(cut)
        expect.append(g.partition(o.copy(), v.copy(), cut, True, True))
    for (o, v, _), cut, want in zip(children, cuts, expect, strict=True):
        for (a, b), (c, d) in zip(g.partition(o, v, cut, True, True), want, strict=True):
            assert g.slabs.holds(a) and np.array_equal(a, c) and np.array_equal(b, d)
