"""Tests of pybsnsing.external: rpart's split points as external questions (spec §4).

Two groups:

* native tests that need no R: regression examples whose expected output was
  produced once by R (rpart 4.1.19 on R 4.2.2) and is hard-coded here as data,
  edge cases (minsplit, minbucket, constant columns, pure nodes), kernel
  invariants against a brute-force oracle, and R's number parser;
* cross-language tests against R's rpart through rpy2 (skipped with a reason
  when R, the rpart package or rpy2 is missing). They need R (Debian:
  ``r-base-core r-cran-rpart``) and ``pip install "rpy2==3.5.17"``; set
  ``R_HOME`` (e.g. ``/usr/lib/R``) if R is not on PATH.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from conftest import GOLDEN
from golden import tabular_source
from hypothesis import given, settings
from hypothesis import strategies as st

from pybsnsing.external import (
    ExternalQuestion,
    RpartSplit,
    external_questions,
    external_specs,
    rpart_split_table,
    rpart_splits,
)
from pybsnsing.kernels import rpart as K
from pybsnsing.rformat import format_r

# ---------------------------------------------------------------------------
# data
# ---------------------------------------------------------------------------

_KINDS = (
    "normal",
    "rounded",
    "int",
    "binary",
    "few",
    "const",
    "dup",
    "affine",
    "ulp",
    "digits",
    "wide",
)


def node_like(rng: np.random.Generator) -> tuple[np.ndarray, list[str], np.ndarray]:
    """A random node-like data set: mixed column kinds, ties, 0/1 response.

    Column kinds: continuous at scales 1e-6..1e5, rounded (ties), integers,
    0/1, a few distinct values, constant, exact duplicates and affine images of
    an earlier column (equal partitions: tie-breaking between variables),
    adjacent doubles (cuts whose 15-digit text differs from the exact value)
    and values differing in the 15th-16th digit. n is 5..2000 (some below
    minsplit = 20); y is sometimes pure, sometimes noise, mostly driven by a
    column.
    """
    u = rng.random()
    if u < 0.1:
        n = int(rng.integers(5, 26))
    elif u < 0.7:
        n = int(rng.integers(20, 300))
    else:
        n = int(rng.integers(300, 2001))
    p = int(rng.integers(1, 9))
    cols: list[np.ndarray] = []
    for _ in range(p):
        kind = _KINDS[int(rng.integers(len(_KINDS)))]
        if kind in ("dup", "affine") and not cols:
            kind = "normal"
        if kind == "normal":
            c = rng.normal(size=n) * 10.0 ** int(rng.integers(-6, 6))
        elif kind == "rounded":
            c = np.round(rng.normal(size=n) * 10, int(rng.integers(0, 3)))
        elif kind == "int":
            c = rng.integers(0, int(rng.integers(2, 30)), n).astype(float)
        elif kind == "binary":
            c = rng.integers(0, 2, n).astype(float)
        elif kind == "few":
            c = rng.choice(np.round(rng.normal(size=int(rng.integers(2, 6))), 3), n)
        elif kind == "const":
            c = np.full(n, float(np.round(rng.normal(), 2)))
        elif kind == "dup":
            c = cols[int(rng.integers(len(cols)))].copy()
        elif kind == "affine":
            a = float(rng.choice([-3.0, -1.0, 0.5, 2.0, 7.0]))
            c = a * cols[int(rng.integers(len(cols)))] + float(rng.normal())
        elif kind == "ulp":
            steps = [float(rng.choice([0.1, 1 / 3, 2.675, 100000.1, -0.7]))]
            for _ in range(4):
                steps.append(float(np.nextafter(steps[-1], np.inf)))
            c = rng.choice(np.array(steps), n)
        elif kind == "digits":
            c = 1.0 + rng.integers(0, 6, n) * 1e-15 + rng.integers(0, 3, n)
        else:  # wide
            c = np.round(rng.normal(size=n) * 1e5) * 10.0 ** int(rng.integers(-3, 3))
        cols.append(np.asarray(c, dtype=float))
    X = np.column_stack(cols)
    names = [f"x{j + 1}" for j in range(p)]
    u = rng.random()
    if u < 0.05:
        y = np.full(n, int(rng.integers(0, 2)))
    elif u < 0.35:
        y = (rng.random(n) < rng.uniform(0.02, 0.98)).astype(int)
    else:
        j = int(rng.integers(p))
        s = X[:, j] - X[:, j].mean()
        sd = s.std()
        s = s / sd if sd > 0 else s
        y = (rng.logistic(size=n) < float(rng.normal(0, 3)) * s + rng.normal()).astype(int)
    return X, names, y


# Example A (came from R rpart 4.1.19 via bsnsing's import_external_rules):
# deterministic data; note the duplicated question "b < 3.5" (two nodes).
_I = np.arange(1, 31, dtype=float)
XA = np.column_stack([_I, (_I * 7) % 11, np.full(30, 5.0), np.round(np.sin(_I), 2)])
YA = (((_I * 3) % 7 < 3) | (_I > 22)).astype(int)
QA = [
    "a < 22.5", "d < 0.34", "b < 3.5", "b < 3.5", "d < -0.415", "a < 9.5",
    "a >= 22.5", "d >= 0.34", "b >= 3.5", "b >= 3.5", "d >= -0.415", "a >= 9.5",
]  # fmt: skip

# Example B (came from R rpart 4.1.19, rpart.control(maxcompete = 1)): node 2
# keeps only its primary split, although u and v split it too. rpart's
# insert_split drops the old best split when a better one arrives while the
# list (of 2) is full. With maxcompete = 4 the node lists w, v and u.
XB = np.array(
    [[2.0, 1.0, 0.5], [0.5, 1.8, 0.5], [0.1, -1.2, -0.1], [-0.7, -0.7, -0.7], [-0.0, -0.3, 0.9],
     [-1.3, -0.2, 1.9], [0.0, 1.2, 1.1], [1.3, 0.7, -1.4], [-0.3, -0.4, -1.5], [-0.5, -1.3, -1.7],
     [0.2, -0.0, -0.7], [-1.0, -0.5, -0.4], [-0.4, -0.1, -0.4], [0.4, 0.5, 0.4], [-0.7, -0.6, 0.4],
     [-0.2, -0.0, -2.5], [-2.7, 0.3, 0.3], [1.4, 0.7, 0.2], [0.0, -1.4, 0.9], [-0.6, 0.5, 0.2],
     [0.3, 0.9, -0.5], [-0.4, -0.9, -0.4], [1.7, -0.4, 1.2], [0.8, 0.7, 0.8], [-1.0, 0.4, 1.6],
     [-0.7, -0.0, -0.7], [0.3, -1.1, 1.6], [-0.4, -1.5, 1.8], [1.0, 0.5, 0.5], [-0.4, -0.2, 0.7],
     [0.9, 0.9, 0.2], [-0.5, -0.2, 1.1], [1.4, -0.3, -0.5], [1.2, 0.7, 0.7], [-1.3, -0.4, -0.5],
     [0.2, -1.7, 1.3], [0.3, 0.4, -1.2], [-0.0, 1.3, -1.6], [0.3, 0.7, -0.7], [0.8, -0.3, 1.2]]
)  # fmt: skip
YB = np.array(
    [1, 1, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 0, 0, 1, 1, 0,
     1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1, 0]
)  # fmt: skip
# (node, variable index, split point, ncat) of R's table, count > 0 rows
TB_MC1 = [(1, 1, 0.6, -1), (1, 2, 1.15, 1), (2, 2, 1.0, 1)]
TB_MC4 = [
    (1, 1, 0.6, -1), (1, 2, 1.15, 1), (1, 0, -0.1, -1),
    (2, 2, 1.0, 1), (2, 1, -0.45, -1), (2, 0, -0.45, -1),
]  # fmt: skip

# Example C (came from R rpart 4.1.19 + bsnsing's eval(parse(text = rule))):
# x takes two adjacent doubles a < b; rpart's cut is (a + b) / 2 == b exactly,
# printed "0.1". R's answer column for "x < 0.1" is all 0 (the printed cut is
# below a), the exact cut would answer 1 for the 12 rows holding a.
_A = float(np.nextafter(0.1, 1.0))
_B = float(np.nextafter(_A, 1.0))
XC = np.column_stack(
    [
        np.r_[np.arange(11.0), 30.0, np.arange(11.0, 29.0)],
        np.array([_A] * 12 + [_B] * 12 + [0.3] * 6),
    ]
)
YC = np.array([0] * 12 + [1] * 12 + [0] * 6)
QC = ["x < 0.1", "z < 10.5", "x >= 0.1", "z >= 10.5"]
QC_COLSUMS = [0, 11, 30, 19]


# ---------------------------------------------------------------------------
# native, regression data from R
# ---------------------------------------------------------------------------


def test_example_a_matches_r() -> None:
    texts, B = external_questions(XA, ["a", "b", "c", "d"], YA)
    assert texts == QA
    assert B.dtype == np.uint8 and B.shape == (30, len(QA))
    # each pair (v < c, v >= c) is complementary
    m = len(QA) // 2
    assert np.array_equal(B[:, :m] + B[:, m:], np.ones((30, m), dtype=np.uint8))


def test_example_b_maxcompete_quirk() -> None:
    t1 = [(s.node, s.var, s.index, s.ncat) for s in rpart_split_table(XB, YB, maxcompete=1)]
    t4 = [(s.node, s.var, s.index, s.ncat) for s in rpart_split_table(XB, YB, maxcompete=4)]
    assert t1 == TB_MC1
    assert t4 == TB_MC4


def test_example_c_printed_cut() -> None:
    texts, B = external_questions(XC, ["z", "x"], YC)
    assert texts == QC
    assert B.sum(axis=0).tolist() == QC_COLSUMS
    _, E = external_questions(XC, ["z", "x"], YC, cut="exact")
    assert E.sum(axis=0).tolist() == [12, 11, 18, 19]
    specs = external_specs(XC, ["z", "x"], YC)
    assert specs[0] == ExternalQuestion(1, "<", _B, 0.1, "x < 0.1")
    assert specs[2].op == ">=" and specs[2].cut == 0.1


# ---------------------------------------------------------------------------
# native, edge cases
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n, expected", [(19, []), (20, ["x < 10.5", "x >= 10.5"])])
def test_minsplit_edge(n: int, expected: list[str]) -> None:
    # from R rpart 4.1.19: 19 rows are not split (minsplit = 20), 20 are
    x = np.arange(1.0, n + 1)
    texts, B = external_questions(x[:, None], ["x"], (x > n / 2).astype(int))
    assert texts == expected
    assert B.shape == (n, len(expected))


def test_minbucket_edge() -> None:
    # from R rpart 4.1.19: the perfect split 6 | 34 is not allowed (minbucket
    # = 7), so x is cut at 7.5; with 7 ones the split is perfect and z is a
    # competitor
    x = np.arange(1.0, 41.0)
    z = np.array([0.0, 1.0] * 20)
    X = np.column_stack([x, z])
    texts, _ = external_questions(X, ["x", "z"], np.array([1] * 6 + [0] * 34))
    assert texts == ["x < 7.5", "x >= 7.5"]
    texts, _ = external_questions(X, ["x", "z"], np.array([1] * 7 + [0] * 33))
    assert texts == ["x < 7.5", "z < 0.5", "x >= 7.5", "z >= 0.5"]
    # every rpart split leaves at least minbucket rows on each side
    rng = np.random.default_rng(3)
    for _ in range(30):
        X, _, y = node_like(rng)
        for mb in (1, 7, 15):
            for s in rpart_split_table(X, y, minbucket=mb, minsplit=2 * mb):
                if s.node == 1:
                    left = int((X[:, s.var] < s.index).sum())
                    assert min(left, X.shape[0] - left) >= mb


def test_no_questions_cases() -> None:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 3))
    names = ["a", "b", "c"]
    # all one class
    for cls in (0, 1):
        texts, B = external_questions(X, names, np.full(50, cls))
        assert texts == [] and B.shape == (50, 0) and B.dtype == np.uint8
    # fewer rows than minsplit
    texts, B = external_questions(X[:19], names, np.r_[np.zeros(10), np.ones(9)].astype(int))
    assert texts == [] and B.shape == (19, 0)
    # all columns constant
    texts, _ = external_questions(np.ones((50, 3)), names, (X[:, 0] > 0).astype(int))
    assert texts == []
    # no rows / no columns
    assert external_questions(np.zeros((0, 2)), ["a", "b"], np.zeros(0, dtype=int))[0] == []
    assert external_questions(np.zeros((30, 0)), [], np.r_[np.zeros(15), np.ones(15)])[0] == []


def test_constant_column_never_used() -> None:
    rng = np.random.default_rng(1)
    X = np.column_stack([np.full(200, 3.0), rng.normal(size=200), np.full(200, -1.0)])
    y = (X[:, 1] + rng.normal(size=200) > 0).astype(int)
    splits = rpart_splits(X, y)
    assert splits and all(col == 1 for col, _ in splits)


def test_rpart_splits_shape_and_table_order() -> None:
    splits = rpart_splits(XA, YA)
    assert all(isinstance(c, int) and isinstance(v, float) for c, v in splits)
    table = rpart_split_table(XA, YA)
    assert [(s.var, s.index) for s in table] == splits
    assert all(isinstance(s, RpartSplit) for s in table)
    # nodes in pre-order, primary first in each node, improvements decreasing
    assert [s.node for s in table] == sorted((s.node for s in table), key=_preorder_key)
    for node in {s.node for s in table}:
        rows = [s for s in table if s.node == node]
        assert rows[0].primary and not any(s.primary for s in rows[1:])
        assert all(a.improve >= b.improve for a, b in zip(rows, rows[1:], strict=False))


def _preorder_key(node: int) -> tuple[int, ...]:
    path = []
    while node > 1:
        path.append(node % 2)
        node //= 2
    return tuple(reversed(path))


def test_orders_argument() -> None:
    rng = np.random.default_rng(7)
    for _ in range(40):
        X, names, y = node_like(rng)
        ref = external_questions(X, names, y)
        orders = [np.argsort(X[:, j], kind="stable") for j in range(X.shape[1])]
        got = external_questions(X, names, y, orders=orders)
        assert got[0] == ref[0] and np.array_equal(got[1], ref[1])
        mixed = [o if j % 2 else None for j, o in enumerate(orders)]
        assert external_questions(X, names, y, orders=mixed)[0] == ref[0]
    X = rng.normal(size=(30, 2))
    bad = [np.arange(30), np.argsort(X[:, 1])]
    with pytest.raises(ValueError, match="orders"):
        external_questions(X, ["a", "b"], (X[:, 0] > 0).astype(int), orders=bad)
    with pytest.raises(ValueError, match="orders"):
        external_questions(X, ["a", "b"], (X[:, 0] > 0).astype(int), orders=[None])


def test_input_validation() -> None:
    X = np.zeros((25, 2))
    y = np.r_[np.zeros(12), np.ones(13)]
    with pytest.raises(ValueError, match="NaN"):
        external_questions(np.full((25, 2), np.nan), ["a", "b"], y)
    with pytest.raises(ValueError, match="names"):
        external_questions(X, ["a"], y)
    with pytest.raises(ValueError, match="y must be"):
        external_questions(X, ["a", "b"], y[:-1])
    with pytest.raises(ValueError, match="method"):
        external_questions(X, ["a", "b"], y, method="party")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="cut"):
        external_questions(X, ["a", "b"], y, cut="rounded")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="maxdepth"):
        rpart_splits(X, y, maxdepth=31)


# ---------------------------------------------------------------------------
# native, kernel invariants
# ---------------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 1)), min_size=1, max_size=400)
)
def test_mysort_sorts_and_carries(values: list[float]) -> None:
    x = np.array(values)
    xs = x.copy()
    idx = np.arange(len(x))
    K.mysort(xs, idx)
    assert np.array_equal(xs, np.sort(x))
    assert np.array_equal(x[idx], xs)
    assert np.array_equal(np.sort(idx), np.arange(len(x)))


def test_sort_columns_from_equals_mysort() -> None:
    rng = np.random.default_rng(11)
    for _ in range(40):
        X, _, _ = node_like(rng)
        xt = np.ascontiguousarray(X.T)
        ref = K.sort_columns(xt)
        y = rng.integers(0, 2, xt.shape[1]).astype(np.float64)
        rows = np.arange(xt.shape[1])
        for order in (np.argsort(xt, axis=1), np.argsort(xt, axis=1, kind="stable")):
            assert np.array_equal(K.sort_columns_from(xt, order), ref)
            sorts, vals, ys = K.sorted_columns(xt, y, order, rows)
            assert np.array_equal(sorts, ref)  # the values and labels in that order
            assert np.array_equal(vals, np.take_along_axis(xt, ref, axis=1))
            assert np.array_equal(ys, y[ref])


def test_argsort_rows() -> None:
    from pybsnsing.kernels.sort import argsort_rows

    rng = np.random.default_rng(4)
    for _ in range(30):
        X, _, _ = node_like(rng)
        X[rng.random(X.shape) < 0.05] = -0.0
        xt = np.ascontiguousarray(X.T)
        o = argsort_rows(xt)
        for r in range(xt.shape[0]):
            assert np.array_equal(np.sort(o[r]), np.arange(xt.shape[1]))
            assert np.all(np.diff(xt[r, o[r]]) >= 0)
        assert np.array_equal(K.sort_columns_from(xt, o), K.sort_columns(xt))


def _brute_root(X: np.ndarray, y: np.ndarray, minbucket: int) -> tuple[float, set[tuple]]:
    """Best between-group SS at the root over all admissible cuts (numpy oracle)."""
    n = len(y)
    best = 0.0
    arg: set[tuple] = set()
    for j in range(X.shape[1]):
        xs = np.unique(X[:, j])
        for lo, hi in zip(xs[:-1], xs[1:], strict=True):
            left = X[:, j] <= lo
            nl = int(left.sum())
            if nl < minbucket or n - nl < minbucket:
                continue
            m, ml, mr = y.mean(), y[left].mean(), y[~left].mean()
            ss = nl * (ml - m) ** 2 + (n - nl) * (mr - m) ** 2
            if ss > best * (1 + 1e-9):
                best, arg = ss, {(j, (lo + hi) / 2)}
            elif ss >= best * (1 - 1e-9):
                arg.add((j, (lo + hi) / 2))
    return best, arg


def test_root_primary_is_the_best_split() -> None:
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(80):
        X, _, y = node_like(rng)
        n = len(y)
        if n < 20 or y.min() == y.max():
            continue
        table = rpart_split_table(X, y, maxdepth=1)
        best, arg = _brute_root(X, y.astype(float), 7)
        risk = float(((y - y.mean()) ** 2).sum())
        if not table:
            assert best <= 0.01 * risk * (1 + 1e-9)
            continue
        prim = table[0]
        assert math.isclose(prim.improve * risk, best, rel_tol=1e-9)
        assert (prim.var, prim.index) in arg or any(
            j == prim.var and math.isclose(c, prim.index) for j, c in arg
        )
        checked += 1
    assert checked > 30


# ---------------------------------------------------------------------------
# R's number parser (the printed cut)
# ---------------------------------------------------------------------------


# ---------------------------------------------------------------------------
# cross-language: R's rpart through rpy2
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rr():
    """The pybsnsing.r.rpart module, when R + rpart + rpy2 work (else skip)."""
    pytest.importorskip(
        "rpy2", reason="rpy2 not installed (pip install 'rpy2==3.5.17'; needs R >= 4.2)"
    )
    from pybsnsing.r import rpart as rr

    if not rr.r_available():  # catches rpy2 failing to find or start R
        pytest.skip(
            "rpy2 cannot start R or the R package rpart is missing (Debian: r-base-core "
            "r-cran-rpart; set R_HOME, e.g. /usr/lib/R, if R is not on PATH)"
        )
    return rr


def test_r_questions_random_node_sets(rr) -> None:
    """>= 240 node-like data sets: same question texts and answers as R bsnsing."""
    rng = np.random.default_rng(20240501)
    n_sets = 240
    n_questions = 0
    n_printed_differs = 0
    for k in range(n_sets):
        X, names, y = node_like(rng)
        texts, B = external_questions(X, names, y)
        r_texts = rr.r_rpart_questions(X, names, y)
        assert texts == r_texts, f"set {k}: {X.shape}"
        assert np.array_equal(B, rr.r_eval_questions(X, names, r_texts)), f"set {k}"
        n_questions += len(texts)
        _, E = external_questions(X, names, y, cut="exact")
        n_printed_differs += int(not np.array_equal(B, E))
    assert n_questions > 1500
    assert n_printed_differs > 10  # the printed-cut semantics was exercised


def test_r_split_table_random_controls(rr) -> None:
    """Full split tables (improve and index bit for bit) under varied rpart.control."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(77)
    for k in range(150):
        X, names, y = node_like(rng)
        if rng.random() < 0.3:
            y = y + rng.integers(0, 3, len(y))  # a non-binary numeric response
        ctl = {
            "maxdepth": int(rng.integers(1, 5)),
            "minsplit": int(rng.integers(2, 60)),
            "minbucket": int(rng.integers(1, 25)),
            "cp": float(rng.choice([0.0, 0.001, 0.01, 0.05, 0.2])),
            "maxcompete": int(rng.integers(0, 7)),
        }
        df = pd.DataFrame(X, columns=names)
        df.insert(0, "yy", y.astype(np.int32))
        rt = rr.rpart_split_table(df, "yy", xval=0, **ctl)
        assert (rt.loc[rt["kind"] == "surrogate", "count"] == 0).all()
        rt = rt[rt["count"] > 0]
        got = [
            (s.node, names[s.var], s.count, s.ncat, s.improve, s.index, s.primary)
            for s in rpart_split_table(X, y, **ctl)
        ]
        want = [
            (r.node, r.variable, r.count, r.ncat, r.improve, r.index, r.kind == "primary")
            for r in rt.itertuples()
        ]
        assert got == want, f"set {k}: {X.shape} {ctl}"


def test_r_regression_examples(rr) -> None:
    """The hard-coded examples above still agree with R."""
    assert rr.r_rpart_questions(XA, ["a", "b", "c", "d"], YA) == QA
    q = rr.r_rpart_questions(XC, ["z", "x"], YC)
    assert q == QC
    assert rr.r_eval_questions(XC, ["z", "x"], q).sum(axis=0).tolist() == QC_COLSUMS
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(XB, columns=["u", "v", "w"])
    df.insert(0, "yy", YB)
    for mc, want in ((1, TB_MC1), (4, TB_MC4)):
        rt = rr.rpart_split_table(df, "yy", maxcompete=mc)
        rt = rt[rt["count"] > 0]
        got = [(r.node, "uvw".index(r.variable), r.index, r.ncat) for r in rt.itertuples()]
        assert got == want


def test_method_r(rr) -> None:
    rng = np.random.default_rng(9)
    for _ in range(10):
        X, names, y = node_like(rng)
        native = external_questions(X, names, y)
        viar = external_questions(X, names, y, method="r")
        assert native[0] == viar[0] and np.array_equal(native[1], viar[1])
        specs = external_specs(X, names, y, method="r")
        assert [s.text for s in specs] == native[0]


_GOLDEN_R = r"""
function(path, formula, train_rows, fcols, flevels, trees) {
  d <- read.csv(path, stringsAsFactors = TRUE, na.strings = c("", "NA"))
  for (i in seq_along(fcols))
    d[[fcols[i]]] <- factor(as.character(d[[fcols[i]]]), levels = flevels[[i]])
  train <- d[train_rows, ]
  mf <- model.frame(as.formula(formula), data = train, na.action = na.pass)
  x <- as.data.frame(model.matrix(attr(mf, "terms"), data = mf))
  x[, "(Intercept)"] <- NULL
  for (j in seq_along(x)) if (anyNA(x[[j]])) x[is.na(x[[j]]), j] <- median(x[[j]], na.rm = TRUE)
  yraw <- as.character(model.response(mf))
  rp_questions <- function(x, y) {
    external_df <- cbind(y, x)
    colnames(external_df)[1] <- '._.external_y_._'
    rp <- tryCatch(error = function(cnd) NA, rpart::rpart(._.external_y_._ ~ .,
      data = external_df, control = rpart::rpart.control(maxdepth = 2)))
    out <- character(0)
    if (methods::is(rp, "rpart") && !is.null(rp$splits)) {
      s <- rp$splits[which(rp$splits[, 1] > 0), , drop = FALSE]
      if (nrow(s) > 0) out <- c(paste(rownames(s), rep('<', nrow(s)), s[, 4]),
                                paste(rownames(s), rep('>=', nrow(s)), s[, 4]))
    }
    out
  }
  res <- list()
  for (tr in trees) {
    y <- as.integer(yraw == tr$label)
    rows <- list(); rows[["0"]] <- seq_len(nrow(x))
    for (k in seq_along(tr$number)) {
      obs <- rows[[as.character(tr$number[k])]]
      res[[length(res) + 1]] <- list(label = tr$label, rows = obs,
                                     questions = rp_questions(x[obs, , drop = FALSE], y[obs]))
      if (tr$rule[k] != "") {
        this.x <- x[obs, , drop = FALSE]
        left <- obs[which(with(this.x, eval(parse(text = tr$rule[k]))))]
        rows[[as.character(tr$lchild[k])]] <- left
        rows[[as.character(tr$rchild[k])]] <- setdiff(obs, left)
      }
    }
  }
  list(x = as.matrix(x), names = colnames(x), y = yraw, nodes = res)
}
"""

_GOLDEN_SETS = ["kyphosis", "auto", "birthwt", "BreastCancer", "carEval", "Glass", "circ", "pima"]


@pytest.mark.parametrize("dataset", _GOLDEN_SETS)
def test_golden_default_trees(rr, dataset: str) -> None:
    """At every node of the golden default tree, native questions == R's rpart questions.

    R rebuilds the design matrix (canonical reader, model.matrix, median
    imputation) and the node rows by evaluating the golden split rules as
    bsnsing does; the native code then sees the same rows.
    """
    import csv

    import rpy2.robjects as ro
    from rpy2.robjects import numpy2ri
    from rpy2.robjects.conversion import localconverter

    path = GOLDEN / "trees" / f"{dataset}.json"
    if not path.exists():
        pytest.skip(f"no golden fixture {path}")
    rec = next(r for r in json.loads(path.read_text()) if r["config"] == "default")
    # the package's bundled copy of the CSV (gzip; R's read.csv reads it as is)
    src = tabular_source(dataset)
    with open(src.columns, newline="") as fh:
        fac = [
            r for r in csv.DictReader(fh) if r["dataset"] == dataset and r["r_class"] == "factor"
        ]
    trees = [rec] if rec["model_type"] == "binary" else rec["classes"]
    r_trees = ro.r("list")(
        *[
            ro.r("list")(
                label=ro.StrVector([str(t["ycode"][1])]),
                number=ro.IntVector([nd["number"] for nd in t["nodes"]]),
                lchild=ro.IntVector([nd["lchild"] for nd in t["nodes"]]),
                rchild=ro.IntVector([nd["rchild"] for nd in t["nodes"]]),
                rule=ro.StrVector([nd["split_rule"] for nd in t["nodes"]]),
            )
            for t in trees
        ]
    )
    out = ro.r(_GOLDEN_R)(
        str(src.csv),
        rec["formula"],
        ro.IntVector(rec["train_rows"]),
        ro.StrVector([r["column"] for r in fac]),
        ro.r("list")(*[ro.StrVector(r["levels"].split(";")) for r in fac]),
        r_trees,
    )
    with localconverter(ro.default_converter + numpy2ri.converter) as cv:
        X = np.asarray(cv.rpy2py(out.rx2("x")), dtype=np.float64)
    names = list(out.rx2("names"))
    labels = np.array(list(out.rx2("y")))
    n_nodes = 0
    for nd in out.rx2("nodes"):
        rows = np.asarray(nd.rx2("rows"), dtype=np.int64) - 1
        y = (labels[rows] == nd.rx2("label")[0]).astype(int)
        texts, _ = external_questions(X[rows], names, y)
        assert texts == list(nd.rx2("questions"))
        n_nodes += 1
    assert n_nodes == sum(len(t["nodes"]) for t in trees)


def test_packed_cut_questions_equal_their_dense_answers() -> None:
    """pack_cuts (the tree's packing of rpart questions: rows read in slot order, a
    question asking the opposite of an earlier one packed as its complement) gives the
    bits of the dense answers ``x < cut`` / ``x >= cut`` at a node's rows."""
    from pybsnsing.kernels.packing import node_slots, pack_cuts, pack_dense_into

    rng = np.random.default_rng(23)
    for _ in range(60):
        X, _, y = node_like(rng)
        X[rng.random(X.shape) < 0.03] = -0.0
        N, p = X.shape
        rows = np.flatnonzero(rng.random(N) < rng.uniform(0.3, 1.0))
        if rows.size == 0:
            continue
        ordm = np.argsort(X[rows], axis=0, kind="stable").T
        ordm = np.ascontiguousarray(rows[ordm])
        k = int(rng.integers(1, 12))
        cols = rng.integers(0, p, k)
        pos = rng.integers(0, rows.size + 1, k)
        pos[rng.random(k) < 0.2] = 0
        pos[rng.random(k) < 0.2] = rows.size
        # cut positions where the values allow them: pos = #(x < c) for a cut c
        for q in range(k):
            ox = X[ordm[cols[q]], cols[q]]
            while 0 < pos[q] < rows.size and ox[pos[q] - 1] == ox[pos[q]]:
                pos[q] -= 1
        ge = rng.random(k) < 0.5
        cols, pos, ge = (np.concatenate((a, a[: k // 2])) for a in (cols, pos, ge))
        ge[k:] = ~ge[k:]  # opposite twins of the first questions
        yb = (y > 0).astype(np.uint8)
        slot = np.zeros(N, np.int64)
        n1 = int(node_slots(rows, yb, np.int64(1), slot))
        shape = (cols.size, max(1, (n1 + 63) // 64)), (cols.size,
                                                       max(1, (rows.size - n1 + 63) // 64))
        got = [np.zeros(s, np.uint64) for s in shape]
        pack_cuts(X, ordm, rows, slot, cols, pos, ge, *got, np.int64(0))
        B = np.zeros((rows.size, cols.size), np.uint8)
        rank = np.empty(N, np.int64)
        for q in range(cols.size):
            rank[ordm[cols[q]]] = np.arange(rows.size)
            B[:, q] = (rank[rows] < pos[q]) != ge[q]
        want = [np.zeros(s, np.uint64) for s in shape]
        pack_dense_into(B, rows, slot, *want, np.int64(0))
        assert np.array_equal(got[0], want[0]) and np.array_equal(got[1], want[1])


def test_pack_cuts_refuses_slots_that_are_not_the_nodes() -> None:
    # slots left from another node (here all 0) would write past the packed rows
    from pybsnsing.kernels.packing import pack_cuts

    X = np.arange(200, dtype=np.float64).reshape(200, 1)
    rows = np.arange(200)
    ordm = rows.reshape(1, 200).copy()
    one = np.zeros(1, np.int64)
    with pytest.raises(ValueError, match="packed words|node_slots"):
        pack_cuts(X, ordm, rows, np.zeros(200, np.int64), one, one + 100, np.zeros(1, bool),
                  np.zeros((1, 1), np.uint64), np.zeros((1, 1), np.uint64), np.int64(0))
    with pytest.raises(ValueError, match="node_slots"):
        pack_cuts(X, ordm, rows, np.zeros(200, np.int64), one, one + 100, np.zeros(1, bool),
                  np.zeros((1, 4), np.uint64), np.zeros((1, 4), np.uint64), np.int64(0))


def test_rows_replay_equals_the_fit_of_the_gathered_rows() -> None:
    """rpart_anova_rows on a subset of rows (row ids into the whole data: the root read in
    place, only the columns deeper levels re-order copied) gives the split table of
    rpart_anova on those rows gathered, bit for bit: with and without the sorted values,
    with uint8 labels (the tree's) and float64, every maxdepth 1-5 (the children found
    by their parent, maxdepth >= 3's full re-partition), ties and constant columns."""
    rng = np.random.default_rng(31)
    for k in range(120):
        X, _, y = node_like(rng)
        if k % 4 == 0:
            X[:, 0] = 1.5  # a constant column
        N, p = X.shape
        xt = np.ascontiguousarray(X.T)
        rows = np.flatnonzero(rng.random(N) < rng.uniform(0.2, 1.0))
        if rows.size == 0:
            continue
        n = rows.size
        md = int(rng.integers(1, 6))
        ctl = (int(rng.integers(2, 40)), int(rng.integers(1, 15)),
               float(rng.choice([0.0, 0.001, 0.01])), int(rng.integers(0, 6)))
        want = K.rpart_anova(np.ascontiguousarray(xt[:, rows]), y[rows].astype(np.float64),
                             np.stack([np.argsort(xt[j, rows], kind="stable")
                                       for j in range(p)]), md, *ctl)
        order = np.stack([rows[np.argsort(xt[j, rows], kind="stable")] for j in range(p)])
        ordv = np.ascontiguousarray(np.stack([xt[j, order[j]] for j in range(p)]))
        for labels in (y.astype(np.uint8), y.astype(np.float64)):
            for values in (ordv, np.empty((0, 0))):
                got = K.rpart_anova_rows(xt, labels, order, rows, *K.work_arrays(p, n, md), md,
                                         *ctl, values)
                assert len(got) == len(want) == 7
                assert all(np.array_equal(a, b) for a, b in zip(got, want, strict=True)), \
                    (k, md, ctl)
        if K.work_columns(p, md) > 0:
            small = tuple(a[:, : n - 1] for a in K.work_arrays(p, n, md))
            with pytest.raises(ValueError, match="work arrays"):
                K.rpart_anova_rows(xt, y.astype(np.uint8), order, rows, *small, md, *ctl,
                                   ordv)


# ---------------------------------------------------------------------------
# infinite values: rpart's code path with missing values and surrogate splits
# ---------------------------------------------------------------------------


def _with_infinities(rng: np.random.Generator, X: np.ndarray) -> np.ndarray:
    """``X`` with a random share (up to 60%) of some columns' values set to +-Inf."""
    X = X.copy()
    for j in range(X.shape[1]):
        if rng.random() < 0.6:
            m = rng.random(X.shape[0]) < rng.choice([0.02, 0.1, 0.3, 0.6])
            X[m, j] = rng.choice([np.inf, -np.inf], size=int(m.sum()))
    return X


def test_missing_value_replay_equals_the_fast_replay_on_finite_data() -> None:
    """On finite data, rpart's code path with missing values (every variable re-partitioned,
    surrogates computed) gives the fast replay's table bit for bit, plus surrogate rows
    that send no row (count 0) -- so the two replays check each other."""
    rng = np.random.default_rng(41)
    n_sur = 0
    for k in range(150):
        X, _, y = node_like(rng)
        p = X.shape[1]
        xt = np.ascontiguousarray(X.T)
        md = int(rng.integers(1, 5))
        ctl = (int(rng.integers(2, 40)), int(rng.integers(1, 15)),
               float(rng.choice([0.0, 0.001, 0.01])), int(rng.integers(0, 6)))
        want = K.rpart_anova(xt, y.astype(np.float64), K.sort_columns(xt), md, *ctl)
        node, var, index, count, ncat, improve, kind = K.rpart_anova_missing(
            xt, y.astype(np.float64), md, *ctl, 5, 2, 0)
        sur = kind == K.KIND_SURROGATE
        assert (count[sur] == 0).all(), f"set {k}"
        assert (var[sur] < p).all()
        n_sur += int(sur.sum())
        got = (node[~sur], var[~sur], index[~sur], count[~sur], ncat[~sur], improve[~sur],
               kind[~sur] == K.KIND_PRIMARY)
        for a, b in zip(got, want, strict=True):
            assert np.array_equal(a, b), f"set {k}: {X.shape} md={md} {ctl}"
    assert n_sur > 100  # surrogates were computed


def test_infinite_values_are_missing_for_rpart() -> None:
    """A row whose value is infinite is left out of that variable's split (its count), and
    the surrogate rows that sent rows are in the table (hand-checked example, R's
    rpart: primary x < 10.5 on 20 of 23 rows, surrogate z sends the 3 others)."""
    rng = np.random.default_rng(1)
    x = np.r_[np.arange(1.0, 21.0), np.inf, -np.inf, np.inf]
    z = rng.normal(size=23)
    y = np.r_[np.zeros(10), np.ones(10), 1.0, 0.0, 1.0]
    X = np.c_[x, z]
    table = rpart_split_table(X, y, minsplit=2, minbucket=1, cp=0.0, maxdepth=2)
    root = [s for s in table if s.node == 1]
    assert (root[0].var, root[0].index, root[0].count, root[0].primary) == (0, 10.5, 20, True)
    sur = [s for s in root if s.surrogate]
    assert [(s.var, s.count) for s in sur] == [(1, 3)]
    assert all(s.count > 0 for s in table)
    # bsnsing's questions include the surrogate's split point, both ways
    texts, B = external_questions(X, ["x", "z"], y)
    assert f"z < {format_r(sur[0].index)}" in texts and "x >= 10.5" in texts
    assert B.shape == (23, len(texts))
    assert B[20, texts.index("x >= 10.5")] == 1 and B[21, texts.index("x >= 10.5")] == 0


def test_r_split_table_with_infinite_values(rr) -> None:
    """Split tables of data with +-Inf (missing for rpart): primaries, competitors and
    surrogates (agreement, split point, direction, the rows each surrogate sent) bit for
    bit as R's rpart, under varied rpart.control."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(78)
    n_sent = 0
    for k in range(120):
        X, names, y = node_like(rng)
        X = _with_infinities(rng, X)
        ctl = {
            "maxdepth": int(rng.integers(1, 5)),
            "minsplit": int(rng.integers(2, 60)),
            "minbucket": int(rng.integers(1, 25)),
            "cp": float(rng.choice([0.0, 0.001, 0.01, 0.05])),
            "maxcompete": int(rng.integers(0, 7)),
            "maxsurrogate": int(rng.integers(0, 7)),
        }
        df = pd.DataFrame(X, columns=names)
        df.insert(0, "yy", y.astype(np.int32))
        rt = rr.rpart_split_table(df, "yy", xval=0, **ctl)
        rt = rt[rt["count"] > 0]
        got = [(s.node, names[s.var], s.count, s.ncat, s.improve, s.index, s.primary,
                s.surrogate) for s in rpart_split_table(X, y, **ctl)]
        want = [(r.node, r.variable, r.count, r.ncat, r.improve, r.index, r.kind == "primary",
                 r.kind == "surrogate") for r in rt.itertuples()]
        assert got == want, f"set {k}: {X.shape} {ctl}"
        n_sent += sum(w[-1] for w in want)
    assert n_sent > 20  # surrogate rows were compared (36 at this seed)


def test_r_questions_with_infinite_values(rr) -> None:
    """bsnsing's rpart questions and their answers on nodes with +-Inf, as R bsnsing."""
    rng = np.random.default_rng(79)
    for k in range(80):
        X, names, y = node_like(rng)
        X = _with_infinities(rng, X)
        texts, B = external_questions(X, names, y)
        r_texts = rr.r_rpart_questions(X, names, y)
        assert texts == r_texts, f"set {k}: {X.shape}"
        assert np.array_equal(B, rr.r_eval_questions(X, names, r_texts)), f"set {k}"
