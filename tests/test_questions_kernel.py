"""The one-call question builder (kernels.binarize.node_questions_kernel) against the
column-by-column code it replaces on numeric unweighted columns.

``question_set_from_orders`` takes the kernel path where it can; with
``questions._numeric_question_set`` switched off it takes the column-by-column path (the
one that R's ``binarize.numeric`` was ported to, checked against R elsewhere). On random
nodes (ties, adjacent doubles, labels that print alike at 15 digits, infinities, -0.0,
constant and separating columns, every control that matters) both give the same question
set field by field, or the same error.
"""

from __future__ import annotations

import numpy as np
import pytest

import pybsnsing._coldstart as C
import pybsnsing.questions as Q


def _column_path(monkeypatch, *a, **k):
    with monkeypatch.context() as m:
        m.setattr(Q, "_numeric_question_set", lambda *a, **k: None)
        return Q.question_set_from_orders(*a, **k)


def _outcome(fn, *a, **k):
    try:
        return fn(*a, **k), None
    except Exception as exc:  # the same error on both paths is the expected outcome
        return None, (type(exc).__name__, str(exc))


def _assert_same(a, b) -> None:
    assert a.m == b.m
    assert np.array_equal(a.cols, b.cols)
    assert a.kinds.dtype == b.kinds.dtype and np.array_equal(a.kinds, b.kinds)
    assert a.values.dtype == b.values.dtype
    assert np.array_equal(a.values, b.values, equal_nan=True)
    assert np.array_equal(np.signbit(a.values), np.signbit(b.values))
    for f in ("base", "rptr", "rlo", "rhi", "proc"):
        x, y = getattr(a.ranges, f), getattr(b.ranges, f)
        assert x.dtype == y.dtype and np.array_equal(x, y), f
    assert a.texts == b.texts
    ga, gb = a.group_keys(), b.group_keys()
    assert (ga is None) == (gb is None)
    if ga is not None:
        assert np.array_equal(ga[0], gb[0]) and np.array_equal(ga[1], gb[1])


def _column(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = int(rng.integers(12))
    if kind == 0:
        return rng.integers(0, 2, n).astype(float)
    if kind == 1:
        return rng.integers(1, 11, n).astype(float)
    if kind == 2:
        return rng.normal(size=n)
    if kind == 3:
        return np.round(rng.normal(size=n), 1)
    if kind == 4:
        return np.full(n, rng.choice([0.0, 1.0, 3.5]))
    if kind == 5:  # adjacent doubles
        b = float(rng.choice([1.0, 1e10, 3.0, -2.0]))
        return b + rng.integers(0, 4, n) * np.spacing(b)
    if kind == 6:  # values whose 15-digit labels collide
        return 0.1 * (1 + rng.integers(0, 3, n) * 1e-15) + rng.integers(0, 2, n)
    if kind == 7:
        return rng.integers(0, 3, n).astype(float) - 1.0
    if kind == 8:
        return rng.choice([0.0, -0.0, 1.0], n)
    if kind == 9:
        return rng.integers(-3, 300, n) / 7.0
    if kind == 10:
        return np.where(rng.random(n) < 0.1, np.inf, rng.normal(size=n))
    return rng.exponential(size=n) * 1e5


@pytest.mark.parametrize("seed,nodes,max_rows", [(s, 100, 400) for s in range(4)]
                         + [(s, 12, 6000) for s in range(4, 6)])
def test_kernel_equals_the_column_by_column_path(seed, nodes, max_rows, monkeypatch):
    """Small nodes in number; a few large ones, where thinning keeps few of many cuts."""
    rng = np.random.default_rng(20261123 + seed)
    kernel_used = 0
    for _ in range(nodes):
        N = int(rng.integers(2, max_rows))
        p = int(rng.integers(1, 8))
        X = np.asfortranarray(np.column_stack([_column(rng, N) for _ in range(p)]))
        y = (rng.random(N) < rng.uniform(0.05, 0.95)).astype(np.uint8)
        if rng.random() < 0.3:  # a (nearly) separating column
            X[:, 0] = y * 2.0 + rng.normal(size=N) * 0.1
        rows = np.sort(rng.choice(N, size=int(rng.integers(2, N + 1)), replace=False))
        if y[rows].min() == y[rows].max():
            y[rows[0]] = 1 - y[rows[0]]
        ordm = np.empty((p, rows.shape[0]), np.int64)
        for j in range(p):
            ordm[j] = rows[np.argsort(X[rows, j], kind="stable")]
        names = [f"x{j}" for j in range(p)]
        kw = dict(segments=int(rng.choice([3, 4, 6, 20, 50])),
                  num2factor=int(rng.choice([0, 2, 5, 10, 40])),
                  nseg_factor=int(rng.choice([3, 8, 20, 100])),
                  bin_size=int(rng.choice([1, 3, 5, 20])),
                  node_size=float(rng.choice([0, 1, 5, 30])),
                  keep_perfect=bool(rng.random() < 0.5))
        target = int(rng.integers(2))
        args = (X, y, ordm, names, target)
        a, ea = _outcome(Q.question_set_from_orders, *args, **kw)
        b, eb = _outcome(_column_path, monkeypatch, *args, **kw)
        v = Q.sorted_values(X, ordm)  # the values carried instead of read by row id
        c, ec = _outcome(Q.question_set_from_orders, *args, ordv=v, **kw)
        d, ed = _outcome(_column_path, monkeypatch, *args, ordv=v, **kw)
        assert ea == eb == ec == ed
        if ea is None:
            _assert_same(a, b)
            _assert_same(c, a)
            _assert_same(d, a)
        kernel_used += Q._numeric_question_set(X, y, ordm, Q.sorted_values(X, ordm), names,
                                               target, **kw) is not None \
            if ea is None else 0
    assert kernel_used > nodes // 3  # not vacuous: the kernel served most nodes


def test_the_first_fit_uses_the_column_path_while_the_child_compiles(monkeypatch):
    """With a compile child that has not finished the ``questions`` stage, the question
    builder does not compile its kernel in the fitting process (it takes the other path);
    once the child reports the stage, the kernel serves again."""
    import queue

    lines: queue.Queue = queue.Queue()
    monkeypatch.setattr(C, "_child", object())
    monkeypatch.setattr(C, "_lines", lines)
    monkeypatch.setattr(C, "_done", {"tree": 1.0})
    assert not C.ready("questions")
    X = np.asfortranarray(np.arange(40, dtype=float).reshape(20, 2))
    y = (np.arange(20) % 3 == 0).astype(np.uint8)
    ordm = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
    assert Q._numeric_question_set(X, y, ordm, Q.sorted_values(X, ordm), ["a", "b"], 1,
                                   segments=20, num2factor=10, nseg_factor=20, bin_size=5,
                                   node_size=1,
                                   keep_perfect=False) is None
    lines.put("questions 2.5\n")
    assert C.ready("questions")
    assert C._done["questions"] == 2.5
    assert Q._numeric_question_set(X, y, ordm, Q.sorted_values(X, ordm), ["a", "b"], 1,
                                   segments=20, num2factor=10, nseg_factor=20, bin_size=5,
                                   node_size=1,
                                   keep_perfect=False) is not None


def _sortable(rng: np.random.Generator, n: int) -> np.ndarray:
    kind = int(rng.integers(6))
    if kind == 0:
        return rng.normal(size=n)
    if kind == 1:
        return rng.integers(-3, 4, n).astype(float)
    if kind == 2:
        return rng.choice([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0], n)
    if kind == 3:
        return rng.integers(0, 5, n)
    if kind == 4:
        x = rng.normal(size=n)
        x[rng.random(n) < 0.3] = np.nan
        return x
    return np.round(rng.exponential(size=n), 2).astype(np.float32)


@pytest.mark.parametrize("seed", range(3))
def test_stable_argsort_is_numpys_stable_argsort(seed, monkeypatch):
    """The fast root sort gives numpy's stable permutation exactly: ties (-0.0 == 0.0
    included) and NaNs in index order (the fast path on every size here)."""
    monkeypatch.setattr(Q, "FAST_SORT_MIN", 2)
    rng = np.random.default_rng(seed)
    for _ in range(300):
        x = _sortable(rng, int(rng.integers(0, 3000)))
        want = np.argsort(x, kind="stable")
        assert np.array_equal(Q.stable_argsort(x), want)
        values = np.full_like(x, 7.0)
        assert np.array_equal(Q.stable_argsort(x, values), want)
        # the sorted values bit for bit (the sign of a zero, NaNs in place)
        assert values.tobytes() == x[want].tobytes()
        # strided outputs (columns of row-major buffers) are written too
        vbuf = np.zeros((x.shape[0], 2), x.dtype)
        obuf = np.zeros((x.shape[0], 2), np.int64)
        got = Q.stable_argsort(x, vbuf[:, 1], out=obuf[:, 0])
        assert np.array_equal(got, want) and np.array_equal(obuf[:, 0], want)
        assert vbuf[:, 1].tobytes() == x[want].tobytes()
    with pytest.raises(ValueError, match="values has shape"):
        Q.stable_argsort(np.zeros(5000), np.zeros(4999))


def _bits(u: int) -> float:
    """The double with IEEE bit pattern ``u``."""
    return float(np.array([u], np.uint64).view(np.float64)[0])


@pytest.mark.parametrize("seed", range(3))
def test_radix_argsort_kernel(seed):
    """The root's radix sort on doubles that stress its keys: both zeros, NaNs with a
    sign and payloads, infinities, subnormals, constant columns (every pass skipped),
    integer-valued columns (low digits skipped), one pass only; the order is numpy's
    stable one and the sorted values are ``x``'s bits, NaN payloads and zero signs
    kept; an empty ``values`` is not written."""
    from pybsnsing.kernels.sort import radix_argsort

    rng = np.random.default_rng(900 + seed)
    odd = np.array([0.0, -0.0, np.nan, _bits(0xFFF8000000000123), _bits(0x7FF0000000000001),
                    np.inf, -np.inf, 5e-324, -5e-324, 1.0, -1.0, 2.0**-1074 * 3])
    for _ in range(200):
        n = int(rng.choice([0, 1, 2, 3, 17, 256, 257, 3000]))
        kind = int(rng.integers(0, 5))
        if kind == 0:
            x = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300)
        elif kind == 1:
            x = rng.choice(odd, n)
        elif kind == 2:
            x = np.full(n, float(rng.choice(odd)))
        elif kind == 3:
            x = rng.integers(-2000, 2000, n).astype(float)
        else:  # keys differing in the lowest digit only
            x = 1.0 + rng.integers(0, 200, n) * np.spacing(1.0)
        want = np.argsort(x, kind="stable")
        order = np.full(n, -1, np.int64)
        values = np.full(n, 7.0)
        radix_argsort(x, order, values)
        assert np.array_equal(order, want)
        assert values.tobytes() == x[want].tobytes()
        order[:] = -1
        radix_argsort(x, order, np.empty(0))
        assert np.array_equal(order, want)


def _equal_cut_node(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    """A column of consecutive doubles where neighbouring midpoints round to the same
    double (runs of equal cuts) and labels that change often (many cuts to thin)."""
    b = float(rng.choice([2.0**53 + 1, 3.0 * 2.0**52 + 1, 1e16 + 2, -(2.0**53) - 2]))
    k = rng.integers(0, int(rng.choice([40, 400, 4000])), n)
    x = b + k * np.spacing(b)
    y = (rng.random(n) < 0.5).astype(np.uint8)
    return x, y


@pytest.mark.parametrize("seed", range(3))
def test_thinning_keeps_runs_of_equal_cuts(seed, monkeypatch):
    """The kernel's thinning passes over cuts that cannot be kept; a kept cut still takes
    every cut equal to it (before and after it in the walk), as R's ``cuts %in% kept``:
    large nodes of consecutive doubles, few segments, against the column path."""
    rng = np.random.default_rng(7000 + seed)
    runs_seen = 0
    for _ in range(8):
        n = int(rng.integers(500, 5000))
        x, y = _equal_cut_node(rng, n)
        X = np.asfortranarray(np.column_stack([x, rng.normal(size=n)]))
        ordm = np.ascontiguousarray(np.argsort(X, axis=0, kind="stable").T)
        kw = dict(segments=int(rng.choice([2, 3, 5])), num2factor=0, nseg_factor=100,
                  bin_size=1, node_size=0.0, keep_perfect=False)
        args = (X, y, ordm, ["a", "b"], int(rng.integers(2)))
        a, ea = _outcome(Q.question_set_from_orders, *args, **kw)
        b, eb = _outcome(_column_path, monkeypatch, *args, **kw)
        assert ea == eb
        assert Q._numeric_question_set(X, y, ordm, Q.sorted_values(X, ordm), ["a", "b"],
                                       args[-1], **kw) is not None
        _assert_same(a, b)
        v = a.values[a.cols == 0]
        runs_seen += int(np.count_nonzero(v[1:] == v[:-1]))
    assert runs_seen > 0  # not vacuous: equal cuts were written together
