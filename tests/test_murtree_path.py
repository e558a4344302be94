"""murtree_path (every node budget in one search) and murtree_cv (the budget by CV)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from test_murtree import check_tree, load

from pybsnsing.optimal import MurTreeCV, MurTreePath, murtree_cv, murtree_fit, murtree_path


def assert_path_equals_fits(X, y, depth, fewest_nodes=True, max_num_nodes=None):
    path = murtree_path(X, y, max_depth=depth, max_num_nodes=max_num_nodes,
                        fewest_nodes=fewest_nodes)
    assert isinstance(path, MurTreePath)
    top = 2**depth - 1 if max_num_nodes is None else min(max_num_nodes, 2**depth - 1)
    assert path.budgets.tolist() == list(range(top + 1))
    assert path.optimal.all()
    assert (np.diff(path.errors) <= 0).all()
    for b in path.budgets:
        fresh = murtree_fit(X, y, max_depth=depth, max_num_nodes=int(b),
                            fewest_nodes=fewest_nodes)
        model = path.model(int(b))
        check_tree(model, X, y, depth, int(b))
        assert model.objective == fresh.objective == path.errors[b]
        if fewest_nodes:
            assert model.num_nodes == fresh.num_nodes == path.num_nodes[b]
    return path


@pytest.mark.parametrize("name, depth", [("anneal", 3), ("iris_categorical_bin", 3),
                                         ("car_evaluation_categorical_bin", 4),
                                         ("wine_categorical_bin", 3), ("vote", 3)])
def test_path_points_equal_fresh_fits(name, depth):
    X, y = load(name)
    assert_path_equals_fits(X, y, depth)


def test_path_errors_only_and_node_cap():
    X, y = load("anneal")
    path = assert_path_equals_fits(X, y, 3, fewest_nodes=False, max_num_nodes=5)
    assert len(path.models) == 6
    df = path.to_frame()
    assert list(df.columns) == ["budget", "errors", "num_nodes", "optimal"]


def test_path_zero_error_tail_is_flat():
    X, y = load("segment")  # zero errors at depth 3 (5 nodes)
    path = murtree_path(X, y, max_depth=3)
    k = int(np.argmax(path.errors == 0))
    assert path.errors[k] == 0
    assert (path.errors[k:] == 0).all() and (path.num_nodes[k:] == path.num_nodes[k]).all()


@st.composite
def small_problems(draw):
    n = draw(st.integers(1, 24))
    m = draw(st.integers(1, 5))
    X = draw(arrays(np.uint8, (n, m), elements=st.integers(0, 1)))
    y = draw(arrays(np.int64, (n,), elements=st.integers(0, draw(st.integers(1, 3)))))
    depth = draw(st.integers(0, 3))
    return X, y, depth, draw(st.booleans())


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_problems())
def test_path_brute(problem):
    X, y, depth, fewest = problem
    assert_path_equals_fits(X, y, depth, fewest_nodes=fewest)


def test_cv_picks_a_budget():
    X, y = load("anneal")
    res = murtree_cv(X, y, max_depth=3, cv=4, random_state=1)
    assert isinstance(res, MurTreeCV)
    assert res.fold_errors.shape == (4, 8)
    assert res.cv_errors.tolist() == res.fold_errors.sum(axis=0).tolist()
    assert res.cv_errors[res.best_budget] == res.cv_errors.min()
    assert (res.cv_errors[: res.best_budget] > res.cv_errors.min()).all()  # ties: smallest
    assert res.model.num_nodes <= res.best_budget
    assert res.model.objective == murtree_fit(X, y, max_depth=3,
                                              max_num_nodes=res.best_budget).objective
    assert len(res.to_frame()) == 8
    again = murtree_cv(X, y, max_depth=3, cv=4, random_state=1)
    assert again.cv_errors.tolist() == res.cv_errors.tolist()


def test_cv_labels_and_errors():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 2, (60, 4))
    y = np.where(X[:, 0] == 1, "yes", "no")
    res = murtree_cv(X, y, max_depth=2, cv=3)
    assert res.cv_errors[res.best_budget] == 0 and res.best_budget == 1
    assert set(res.model.predict(X)) <= {"yes", "no"}
    with pytest.raises(ValueError, match="cv"):
        murtree_cv(X, y, cv=1)
    with pytest.raises(ValueError, match="budget"):
        murtree_path(X, y, max_depth=2).model(4)
