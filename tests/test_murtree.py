"""Tests of the MurTree optimal tree solver (pybsnsing.optimal).

The misclassification counts are checked against pystreed's STreeDClassifier
(an independent implementation of the same problem) on the binary reference
data sets, against the published depth-4 numbers of the MurTree paper, and
against brute force on small random data (hypothesis).

The depth-4 comparisons with pystreed on every DL data set take minutes; they
run only with ``PYBSNSING_SLOW=1``.
"""

from __future__ import annotations

import functools
import json
import os
import time

import numpy as np
import pandas as pd
import pytest
from conftest import BINARY
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from pybsnsing.optimal import OptimalTreeModel, QuantileBinarizer, murtree, murtree_fit

SLOW = os.environ.get("PYBSNSING_SLOW", "") not in ("", "0")
slow = pytest.mark.skipif(
    not SLOW,
    reason="slow comparisons with pystreed (depth 4 and 5, big multi-class): PYBSNSING_SLOW=1",
)

# tests/data/binary: copies of the DL and multi-class files of ../shared/data/binary
# (with their manifest rows), so that these tests run without the reference material
MANIFEST = pd.read_csv(BINARY / "manifest.csv")
DL = sorted(MANIFEST.loc[MANIFEST.collection == "DL", "name"])
MULTICLASS = sorted(MANIFEST.loc[MANIFEST.n_classes > 2, "name"])
MULTICLASS_FAST = [n for n in MULTICLASS if not n.startswith("Statlog")]


@functools.cache
def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """(X 0/1 uint8, y int labels) of a binary data set of tests/data/binary."""
    row = MANIFEST.loc[MANIFEST.name == name]
    if row.empty:
        raise LookupError(f"{name} is not in {BINARY / 'manifest.csv'}")
    a = pd.read_csv(BINARY / row.file.iloc[0], sep=" ", header=None).to_numpy(dtype=np.int64)
    return np.ascontiguousarray(a[:, 1:], dtype=np.uint8), a[:, 0]


def streed(X, y, depth, max_nodes=None, time_limit=60):
    """(misclassifications, proven optimal) of pystreed's optimal tree."""
    pystreed = pytest.importorskip("pystreed")
    m = pystreed.STreeDClassifier(
        optimization_task="accuracy",
        max_depth=depth,
        max_num_nodes=max_nodes,
        time_limit=time_limit,
    )
    m.fit(X, y)
    return int((m.predict(X) != y).sum()), bool(m.fit_result.is_optimal())


def training_errors(model: OptimalTreeModel, X, y) -> int:
    return int((model.predict(X) != np.asarray(y)).sum())


def check_tree(model: OptimalTreeModel, X, y, depth, max_nodes=None) -> None:
    """Structure within limits, leaves consistent, predictions reproduce the objective."""
    assert model.depth <= depth
    if max_nodes is not None:
        assert model.num_nodes <= max_nodes
    assert model.num_nodes <= 2**depth - 1
    assert training_errors(model, X, y) == model.objective
    assert sum(nd.n for nd in model.leaves) == len(y)
    for nd in model.nodes:
        if not nd.is_leaf:
            left, right = model.nodes[nd.left], model.nodes[nd.right]
            assert left.n > 0 and right.n > 0  # every split splits
            assert np.array_equal(left.counts + right.counts, nd.counts)


# --------------------------------------------------------------------------
# against pystreed and the published numbers
# --------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", DL)
def test_dl_matches_pystreed(name, depth):
    X, y = load(name)
    model = murtree_fit(X, y, max_depth=depth)
    ref, ref_optimal = streed(X, y, depth)
    assert ref_optimal
    assert model.optimal
    assert model.objective == ref
    check_tree(model, X, y, depth)


@pytest.mark.parametrize("depth", [2, 3])
@pytest.mark.parametrize("name", MULTICLASS_FAST)
def test_multiclass_matches_pystreed(name, depth):
    X, y = load(name)
    model = murtree_fit(X, y, max_depth=depth)
    ref, ref_optimal = streed(X, y, depth)
    assert ref_optimal
    assert model.objective == ref
    assert len(model.classes_) == len(np.unique(y))
    check_tree(model, X, y, depth)


@pytest.mark.parametrize(
    "name, depth, max_nodes",
    [
        ("tic-tac-toe", 3, 2),
        ("tic-tac-toe", 3, 4),
        ("hepatitis", 3, 5),
        ("soybean", 4, 3),
        ("vote", 4, 6),
        ("primary-tumor", 4, 9),
        ("iris_categorical_bin", 3, 2),
        ("car_evaluation_categorical_bin", 4, 5),
    ],
)
def test_node_limit_matches_pystreed(name, depth, max_nodes):
    X, y = load(name)
    model = murtree_fit(X, y, max_depth=depth, max_num_nodes=max_nodes)
    ref, ref_optimal = streed(X, y, depth, max_nodes)
    assert ref_optimal
    assert model.objective == ref
    check_tree(model, X, y, depth, max_nodes)


@pytest.mark.parametrize(
    "name, expected",
    [("anneal", 91), ("australian-credit", 56), ("german-credit", 204), ("vehicle", 12)],
)
def test_published_depth4(name, expected):
    """MurTree paper: depth 4, at most 15 nodes, misclassifications on the full data."""
    X, y = load(name)
    model = murtree_fit(X, y, max_depth=4, max_num_nodes=15)
    assert model.optimal
    assert model.objective == expected
    check_tree(model, X, y, 4, 15)


@slow
@pytest.mark.parametrize("name", DL)
def test_dl_depth4_matches_pystreed(name):
    X, y = load(name)
    ref, ref_optimal = streed(X, y, 4, time_limit=60)
    model = murtree_fit(X, y, max_depth=4, time_limit=600)
    assert model.optimal
    check_tree(model, X, y, 4)
    if ref_optimal:
        assert model.objective == ref
    else:  # pystreed ran out of time: its tree is only an upper bound
        assert model.objective <= ref


@slow
@pytest.mark.parametrize("name", [n for n in MULTICLASS if n not in MULTICLASS_FAST])
def test_multiclass_slow_matches_pystreed(name):
    X, y = load(name)
    model = murtree_fit(X, y, max_depth=3)
    ref, ref_optimal = streed(X, y, 3, time_limit=60)
    assert ref_optimal
    assert model.objective == ref
    check_tree(model, X, y, 3)


@slow
@pytest.mark.parametrize("name", ["anneal", "tic-tac-toe", "vote", "iris_categorical_bin"])
def test_depth5_matches_pystreed(name):
    X, y = load(name)
    ref, ref_optimal = streed(X, y, 5, time_limit=60)
    if not ref_optimal:
        pytest.skip(f"pystreed does not finish {name} at depth 5 within 60 s")
    model = murtree_fit(X, y, max_depth=5)
    assert model.objective == ref
    check_tree(model, X, y, 5)


# --------------------------------------------------------------------------
# brute force
# --------------------------------------------------------------------------


def brute_force(X: np.ndarray, codes: np.ndarray, depth: int, max_nodes: int):
    """best[k] = fewest misclassifications of a tree with depth <= depth and <= k nodes."""
    C = int(codes.max()) + 1

    @functools.cache
    def T(rows: tuple, d: int, n: int) -> tuple[int, int]:
        cnt = np.bincount(codes[list(rows)], minlength=C)
        best = (len(rows) - int(cnt.max()), 0)  # lexicographic (errors, nodes)
        if d == 0 or n == 0 or best[0] == 0:
            return best
        for f in range(X.shape[1]):
            left = tuple(r for r in rows if X[r, f] == 0)
            right = tuple(r for r in rows if X[r, f] == 1)
            if not left or not right:
                continue
            for nl in range(n):
                a = T(left, d - 1, nl)
                b = T(right, d - 1, n - 1 - nl)
                cand = (a[0] + b[0], a[1] + b[1] + 1)
                if cand < best:
                    best = cand
        return best

    rows = tuple(range(len(codes)))
    return [T(rows, depth, k) for k in range(max_nodes + 1)]


@st.composite
def small_problems(draw):
    n = draw(st.integers(1, 28))
    m = draw(st.integers(1, 5))
    X = draw(arrays(np.uint8, (n, m), elements=st.integers(0, 1)))
    k = draw(st.integers(1, 3))
    y = draw(arrays(np.int64, (n,), elements=st.integers(0, k)))
    depth = draw(st.integers(0, 3))
    max_nodes = draw(st.one_of(st.none(), st.integers(0, 7)))
    sparse = draw(st.sampled_from([0.0, 0.0, 0.01, 0.04, 0.1, 0.3]))
    return X, y, depth, max_nodes, sparse


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems())
def test_brute_force(problem):
    X, y, depth, max_nodes, sparse = problem
    limit = 2**depth - 1 if max_nodes is None else min(max_nodes, 2**depth - 1)
    _, codes = np.unique(y, return_inverse=True)
    best = brute_force(X, codes.ravel(), depth, limit)
    model = murtree_fit(X, y, max_depth=depth, max_num_nodes=max_nodes,
                        sparse_coefficient=sparse)
    check_tree(model, X, y, depth, limit)
    assert model.optimal
    if sparse == 0:
        # fewest misclassifications, then fewest nodes
        assert (model.objective, model.num_nodes) == best[limit]
    else:
        n = len(y)
        target = min(e + sparse * n * k for k, (e, _) in enumerate(best))
        assert model.sparse_objective == pytest.approx(target, rel=1e-9, abs=1e-9)
    # without the node tie-break: the same objective, never more nodes than the budget
    loose = murtree_fit(X, y, max_depth=depth, max_num_nodes=max_nodes,
                        sparse_coefficient=sparse, fewest_nodes=False)
    check_tree(loose, X, y, depth, limit)
    assert loose.optimal
    if sparse == 0:
        assert loose.objective == best[limit][0]
    else:
        assert loose.sparse_objective == pytest.approx(model.sparse_objective, rel=1e-6,
                                                       abs=1e-6)


@pytest.mark.parametrize("name, depth", [("mushroom", 4), ("segment", 5), ("anneal", 3)])
def test_fewest_nodes_false_same_errors(name, depth):
    """Errors only (pystreed's objective) gives the same misclassifications, fast on
    zero-error data (the heuristic tree meets the bound at once)."""
    X, y = load(name)
    loose = murtree_fit(X, y, max_depth=depth, fewest_nodes=False)
    check_tree(loose, X, y, depth)
    assert loose.optimal
    if depth <= 4:
        assert loose.objective == murtree_fit(X, y, max_depth=depth).objective
    else:
        assert loose.objective == 0


def test_sparse_objective_trades_nodes():
    X, y = load("anneal")
    plain = murtree_fit(X, y, max_depth=3)
    sparse = murtree_fit(X, y, max_depth=3, sparse_coefficient=0.01)
    assert sparse.num_nodes < plain.num_nodes
    assert sparse.objective >= plain.objective
    assert sparse.sparse_objective <= plain.objective + 0.01 * len(y) * plain.num_nodes
    huge = murtree_fit(X, y, max_depth=3, sparse_coefficient=2.0)
    assert huge.num_nodes == 0


# --------------------------------------------------------------------------
# time limit, API, errors
# --------------------------------------------------------------------------


def test_time_limit_returns_valid_tree():
    X, y = load("vehicle")
    t0 = time.perf_counter()
    model = murtree_fit(X, y, max_depth=5, time_limit=0.5)
    elapsed = time.perf_counter() - t0
    assert not model.optimal
    assert elapsed < 5.0
    check_tree(model, X, y, 5)
    # at least as good as the best depth-2 tree (the fallback)
    assert model.objective <= murtree_fit(X, y, max_depth=2).objective
    assert "time limit" in str(model) and "no (time limit" in model.summary()


def test_predict_prob_and_classes():
    X, y = load("iris_categorical_bin")
    labels = np.array(["setosa", "versicolor", "virginica"])[y]
    model = murtree_fit(X, labels, max_depth=2)
    assert list(model.classes_) == ["setosa", "versicolor", "virginica"]
    pred = model.predict(X)
    assert pred.dtype.kind == "U"
    prob = model.predict(X, type="prob")
    assert prob.shape == (len(y), 3)
    np.testing.assert_allclose(prob.sum(axis=1), 1.0)
    assert np.array_equal(model.classes_[prob.argmax(axis=1)], pred)
    with pytest.raises(ValueError, match="type"):
        model.predict(X, type="response")
    with pytest.raises(ValueError, match="columns"):
        model.predict(X[:, :3])


def test_dataframe_input_names_and_print():
    X, y = load("hepatitis")
    df = pd.DataFrame(X, columns=[f"feat_{j}" for j in range(X.shape[1])])
    model = murtree_fit(df, pd.Series(np.where(y == 1, "live", "die")), max_depth=3)
    assert model.feature_names == list(df.columns)
    names = {nd.feature_name for nd in model.nodes if not nd.is_leaf}
    assert names and all(n.startswith("feat_") for n in names)
    text = str(model)
    assert "root" in text and "feat_" in text and "*" in text
    summary = model.summary()
    assert "Misclassifications" in summary and "Confusion matrix" in summary
    # predictions from a frame with the columns in another order
    shuffled = df[df.columns[::-1]]
    assert np.array_equal(model.predict(shuffled), model.predict(X))
    assert model.depth <= 3 and model.runtime > 0


def test_to_dict_roundtrip(tmp_path):
    X, y = load("lymph")
    model = murtree_fit(X, y, max_depth=3, max_num_nodes=5)
    d = model.to_dict()
    again = OptimalTreeModel.from_dict(json.loads(json.dumps(d)))
    assert np.array_equal(again.predict(X), model.predict(X))
    np.testing.assert_allclose(again.predict(X, type="prob"), model.predict(X, type="prob"))
    for attr in ("objective", "optimal", "depth", "num_nodes", "max_num_nodes", "n_samples"):
        assert getattr(again, attr) == getattr(model, attr)
    assert list(again.classes_) == list(model.classes_)
    assert str(again) == str(model)
    model.save(tmp_path / "tree.json")
    loaded = OptimalTreeModel.load(tmp_path / "tree.json")
    assert np.array_equal(loaded.predict(X), model.predict(X))
    with pytest.raises(ValueError, match="OptimalTreeModel"):
        OptimalTreeModel.from_dict({"format": "something else"})


def test_degenerate_problems():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, (40, 4))
    y = rng.integers(0, 3, 40)
    leaf = murtree_fit(X, y, max_depth=0)
    assert leaf.num_nodes == 0 and leaf.objective == 40 - np.bincount(y).max()
    assert murtree_fit(X, y, max_depth=3, max_num_nodes=0).num_nodes == 0
    one = murtree_fit(X, np.zeros(40), max_depth=3)
    assert one.objective == 0 and one.num_nodes == 0
    none = murtree_fit(np.zeros((40, 0)), y, max_depth=3)
    assert none.num_nodes == 0
    const = murtree_fit(np.ones((40, 3)), y, max_depth=3)
    assert const.num_nodes == 0
    boolean = murtree_fit(X.astype(bool), y, max_depth=2)
    assert boolean.objective == murtree_fit(X, y, max_depth=2).objective


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"max_depth": -1}, "max_depth"),
        ({"max_depth": 2.5}, "max_depth"),
        ({"max_depth": "3"}, "max_depth"),
        ({"max_depth": 13}, "max_depth"),
        ({"max_depth": True}, "max_depth"),
        ({"max_num_nodes": -1}, "max_num_nodes"),
        ({"max_num_nodes": 1.5}, "max_num_nodes"),
        ({"sparse_coefficient": -0.1}, "sparse_coefficient"),
        ({"sparse_coefficient": float("nan")}, "sparse_coefficient"),
        ({"time_limit": 0}, "time_limit"),
        ({"time_limit": -5}, "time_limit"),
        ({"fewest_nodes": "yes"}, "fewest_nodes"),
    ],
)
def test_bad_settings(kwargs, match):
    X = np.array([[0, 1], [1, 0], [1, 1]])
    with pytest.raises(ValueError, match=match):
        murtree_fit(X, [0, 1, 1], **kwargs)


def test_bad_data():
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]])
    y = np.array([0, 1, 1, 0])
    with pytest.raises(ValueError, match="binary"):
        murtree_fit(X * 2, y)
    with pytest.raises(ValueError, match="binary"):
        murtree_fit(X + 0.5, y)
    with pytest.raises(ValueError, match="binary"):
        murtree_fit(pd.DataFrame({"a": [0.0, 1.0, 3.0, 1.0], "b": [1, 0, 1, 0]}), y)
    Xn = X.astype(float)
    Xn[1, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        murtree_fit(Xn, y)
    with pytest.raises(ValueError, match="NaN"):
        murtree_fit(pd.DataFrame(Xn), y)
    with pytest.raises(ValueError, match="missing"):
        murtree_fit(X, np.array([0.0, np.nan, 1.0, 1.0]))
    with pytest.raises(ValueError, match="rows"):
        murtree_fit(X, y[:3])
    with pytest.raises(ValueError, match="2-dimensional"):
        murtree_fit(np.array([0, 1, 1, 0]), y)
    with pytest.raises(ValueError, match="no rows"):
        murtree_fit(np.zeros((0, 2)), np.zeros(0))
    with pytest.raises(ValueError, match="binary|numeric"):
        murtree_fit(np.array([["a", "b"], ["b", "a"], ["a", "a"], ["b", "b"]]), y)


# --------------------------------------------------------------------------
# formula interface
# --------------------------------------------------------------------------


def _frame(n: int = 300, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    x1 = rng.normal(size=n)
    x2 = rng.uniform(0, 10, size=n).round(1)
    colour = rng.choice(["red", "green", "blue"], size=n)
    flag = rng.integers(0, 2, size=n)
    score = x1 + (x2 > 6) + (colour == "red") * 1.5 + rng.normal(scale=0.3, size=n)
    label = np.where(score > 1.2, "high", np.where(score > 0.2, "mid", "low"))
    return pd.DataFrame({"x1": x1, "x2": x2, "colour": colour, "flag": flag, "label": label})


def test_formula_default_binarizer():
    df = _frame()
    model = murtree("label ~ .", df, max_depth=3)
    assert model.formula == "label ~ ."
    assert set(model.classes_) == {"high", "mid", "low"}
    # the binarised design: thresholds for numeric columns, dummies kept
    names = model.feature_names
    assert any(n.startswith("x1<=") for n in names)
    assert any(n.startswith("x2<=") for n in names)
    assert "colourred" in names and "flag" in names
    assert sum(n.startswith("x1<=") for n in names) <= 5
    pred = model.predict(df)
    assert int((pred != df.label.to_numpy()).sum()) == model.objective
    text = str(model)  # threshold features print as comparisons
    assert " <= " in text or " > " in text or " = 1" in text
    # new data with a missing number (imputed with the training median)
    new = df.head(5).copy()
    new.loc[new.index[0], "x1"] = np.nan
    assert len(model.predict(new)) == 5
    again = OptimalTreeModel.from_dict(json.loads(json.dumps(model.to_dict())))
    assert np.array_equal(again.predict(df), pred)


def test_formula_matches_murtree_fit_on_binarised_design():
    df = _frame(seed=5)
    binarizer = QuantileBinarizer(n_thresholds=3)
    model = murtree("label ~ x1 + x2 + colour", df, max_depth=2, binarizer=binarizer)
    Xb = binarizer.transform(pd.DataFrame(model.design.X, columns=model.design.names))
    direct = murtree_fit(Xb, df.label, max_depth=2)
    assert direct.objective == model.objective
    assert all(n.count("<=") <= 1 for n in model.feature_names)
    assert sum(n.startswith("x1<=") for n in model.feature_names) == 3


def test_formula_custom_binarizer():
    df = _frame(seed=7)

    def cuts(design: pd.DataFrame) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "x1_pos": (design["x1"] > 0).astype(int),
                "x2_big": (design["x2"] > 6).astype(int),
                "red": design["colourred"].astype(int),
            },
            index=design.index,
        )

    model = murtree("label ~ .", df, max_depth=2, binarizer=cuts)
    assert set(model.feature_names) == {"x1_pos", "x2_big", "red"}
    assert int((model.predict(df) != df.label.to_numpy()).sum()) == model.objective

    def bad(design: pd.DataFrame) -> pd.DataFrame:
        return design[["x1"]]

    with pytest.raises(ValueError, match="binary"):
        murtree("label ~ .", df, max_depth=2, binarizer=bad)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    X=arrays(np.uint8, st.tuples(st.integers(1, 150), st.integers(1, 9)),
             elements=st.integers(0, 1)),
    C=st.integers(1, 4),
    data=st.data(),
)
def test_packing_puts_every_row_at_its_class_position(X, C, data):
    """The bit-packing (numpy plus the ``_pack_rows`` loop) against a plain-Python
    oracle: rows sorted stably by class, each class starting on a new 64-bit word;
    feature bits, CSR of present features, the root bitset and the word classes."""
    from pybsnsing.kernels.murtree import pack_data

    n, m = X.shape
    codes = np.array(data.draw(st.lists(st.integers(0, C - 1), min_size=n, max_size=n)),
                     dtype=np.int64)
    Xb, cws, indptr, indices, salt, cls_of_word, ones, root = pack_data(X, codes, C, 3)
    assert ones == int(X.sum())
    pos, nxt = {}, [int(cws[c]) * 64 for c in range(C)]
    for i in range(n):  # stable within a class
        pos[i] = nxt[codes[i]]
        nxt[codes[i]] += 1
    assert cws[-1] == sum((int((codes == c).sum()) + 63) // 64 for c in range(C))
    bit = lambda words, p: (int(words[p >> 6]) >> (p & 63)) & 1  # noqa: E731
    W = max(int(cws[-1]), 1)
    assert Xb.shape == (m, W) and salt.shape == (2, W) and np.all(salt & np.uint64(1))
    rows_at = {p: i for i, p in pos.items()}
    for p in range(64 * W):
        i = rows_at.get(p)
        assert bit(root, p) == (i is not None)
        present = [] if i is None else [j for j in range(m) if X[i, j]]
        assert [bit(Xb[j], p) for j in range(m)] == [int(j in present) for j in range(m)]
        assert indices[indptr[p]:indptr[p + 1]].tolist() == present
    for c in range(C):
        assert np.all(cls_of_word[cws[c]:cws[c + 1]] == c)


def test_murtree_kernels_compile_once():
    """Every MurTree kernel has one signature (module notes): fits on 0/1 data of several
    dtypes, class counts and depths, with and without fewest nodes, add none."""
    import numba

    from pybsnsing.kernels import murtree as K

    rng = np.random.default_rng(4)
    X = rng.integers(0, 2, (90, 7))
    for Xv, yv in [(X, rng.integers(0, 2, 90)), (X.astype(bool), rng.integers(0, 3, 90)),
                   (pd.DataFrame(X.astype(np.float64)), pd.Series(rng.integers(0, 2, 90)))]:
        for depth in (1, 2, 3):
            murtree_fit(Xv, yv, max_depth=depth)
            murtree_fit(Xv, yv, max_depth=depth, fewest_nodes=False)
    kernels = [v for v in vars(K).values() if isinstance(v, numba.core.registry.CPUDispatcher)]
    assert any(k.signatures for k in kernels)
    assert all(len(k.signatures) <= 1 for k in kernels), [
        (k.__name__, len(k.signatures)) for k in kernels if len(k.signatures) > 1]
