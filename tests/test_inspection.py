"""Accessors of every tree model: depth, leaves, apply, decision_path, leaf_of, importances."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import pybsnsing as pb
from pybsnsing.control import BsControl
from pybsnsing.datasets import load_dataset
from pybsnsing.inspection import gini_mass, input_variables, split_decrease
from pybsnsing.model import BsnsingModel
from pybsnsing.optimal import OptimalTreeModel, OptimalTreeNode
from pybsnsing.tree import Node


@pytest.fixture(scope="module")
def bc():
    df = load_dataset("BreastCancer")
    return df, pb.bsnsing("Class ~ .", df)


@pytest.fixture(scope="module")
def iris():
    df = load_dataset("iris")
    return df, pb.bsnsing("Species ~ .", df)


def _node(number, parent, lchild, rchild, n1, n0, rule, depth, n_train):
    nobs = n1 + n0
    return Node(number=number, parent=parent, lchild=lchild, rchild=rchild,
                node_class=int(n1 >= n0), prop=nobs / n_train, nobs=nobs, n1=n1, n0=n0,
                prob=n1 / nobs, obs=np.zeros(0, dtype=np.int64), split_rule=rule,
                split_target=int(n1 >= n0), depth=depth)


def _hand_model(rule0: str) -> BsnsingModel:
    """Root split by an OR-rule of a and b, its right child by c."""
    y = np.array([1] * 10 + [0] * 10)
    nodes = [
        _node(0, -1, 1, 2, 10, 10, rule0, 0, 20),
        _node(1, 0, -1, -1, 8, 1, "", 1, 20),
        _node(2, 0, 3, 4, 2, 9, "c > 0.5", 1, 20),
        _node(3, 2, -1, -1, 2, 1, "", 2, 20),
        _node(4, 2, -1, -1, 0, 8, "", 2, 20),
    ]
    return BsnsingModel(nodes=nodes, ycode=["n", "p"], y=y, control=BsControl(),
                        node_size=1)


def test_gini_mass_and_decrease_by_hand():
    assert gini_mass([10, 10]) == pytest.approx(10.0)  # 20 * (1 - 0.25 - 0.25)
    assert gini_mass([8, 1]) == pytest.approx(9 - 65 / 9)
    assert gini_mass([0, 5]) == 0.0
    assert split_decrease([10, 10], [10, 0], [0, 10]) == pytest.approx(10.0)


def test_or_rule_decrease_is_shared_equally_and_order_free():
    m = _hand_model("a > 1 | b > 2 | a < 0")
    root = gini_mass([10, 10]) - gini_mass([8, 1]) - gini_mass([2, 9])
    second = gini_mass([2, 9]) - gini_mass([2, 1]) - gini_mass([0, 8])
    total = root + second
    imp = m.variable_importance(sort=False)
    assert imp["a"] == pytest.approx(root / 2 / total)  # a asked twice: one share
    assert imp["b"] == pytest.approx(root / 2 / total)
    assert imp["c"] == pytest.approx(second / total)
    assert imp.sum() == pytest.approx(1.0)
    swapped = _hand_model("b > 2 | a < 0 | a > 1").variable_importance(sort=False)
    assert swapped.sort_index().to_numpy() == pytest.approx(imp.sort_index().to_numpy())
    assert m.get_depth() == 2 and m.get_n_leaves() == 3


def test_importances_sum_to_one_and_zero_for_unused(bc):
    df, m = bc
    imp = m.variable_importance()
    assert imp.sum() == pytest.approx(1.0)
    assert set(imp.index) == set(m.design.variables)
    used = set()
    for nd in m.nodes:
        if not nd.is_leaf:
            used.update(input_variables(nd.split_rule, m.design))
    assert used and used < set(imp.index)
    for v in imp.index:
        assert (imp[v] > 0) == (v in used), v
    assert list(imp.to_numpy()) == sorted(imp.to_numpy(), reverse=True)
    fi = m.feature_importances_
    assert fi == pytest.approx(m.variable_importance(sort=False).to_numpy())
    assert list(m.variable_importance(sort=False).index) == list(m.design.variables)


def test_dummy_and_transform_columns_credit_their_variable():
    df = load_dataset("kyphosis")
    df["grp"] = pd.Categorical(np.where(df["Start"] > 12, "hi", "lo"))
    m = pb.bsnsing("Kyphosis ~ grp + log(Age) + Number", df)
    assert "grplo" in m.design.names
    assert input_variables("grplo==1 | log(Age) > 3", m.design) == ["grp", "Age"]
    assert set(m.variable_importance().index) == {"grp", "Age", "Number"}


def test_no_split_gives_zero_importances():
    y = np.array([1, 1, 0])
    m = BsnsingModel(nodes=[_node(0, -1, -1, -1, 2, 1, "", 0, 3)], ycode=["n", "p"], y=y,
                     control=BsControl(), node_size=1)
    imp = m.variable_importance()
    assert imp.empty or (imp == 0).all()
    assert m.get_depth() == 0 and m.get_n_leaves() == 1


def test_apply_matches_predict_and_leaf_of(bc):
    df, m = bc
    new = df.copy()
    new.loc[::7, "Bare.nuclei"] = np.nan  # missing values route as predict routes them
    leaf = m.apply(new)
    by = {nd.number: nd for nd in m.nodes}
    assert all(by[k].is_leaf for k in leaf)
    np.testing.assert_array_equal(np.array([by[k].prob for k in leaf]), m.predict(new))
    np.testing.assert_array_equal(leaf, m.leaf_of(new))
    np.testing.assert_array_equal(m.apply(df), m.leaf_of(m.design.X))
    # on the training rows, the leaf is the node whose obs hold the row
    train_leaf = np.empty(len(df), dtype=np.int64)
    for nd in m.leaves:
        train_leaf[nd.obs] = nd.number
    np.testing.assert_array_equal(m.apply(df), train_leaf)
    imputed = m.apply(new, impute=True)
    np.testing.assert_array_equal(m.predict(new, impute=True),
                                  np.array([by[k].prob for k in imputed]))


def test_decision_path_ends_in_the_leaf(bc):
    df, m = bc
    P = m.decision_path(df)
    assert P.shape == (len(df), len(m.nodes))
    dense = m.decision_path(df, dense=True)
    np.testing.assert_array_equal(P.toarray().astype(bool), dense)
    leaf = m.apply(df)
    by = {nd.number: nd for nd in m.nodes}
    for i in range(0, len(df), 37):
        on = np.flatnonzero(dense[i])
        assert on[0] == 0 and on[-1] == leaf[i] or leaf[i] in on
        assert len(on) == by[leaf[i]].depth + 1
        # every node on the path but the root has its parent on the path
        assert all(by[k].parent in on for k in on if k != 0)
    assert (dense[np.arange(len(df)), leaf]).all()


def test_multiclass_accessors(iris):
    df, m = iris
    A = m.apply(df)
    assert A.shape == (len(df), m.nclass)
    for k, t in enumerate(m.trees):
        by = {nd.number: nd for nd in t.nodes}
        np.testing.assert_array_equal([by[j].prob for j in A[:, k]], t.predict(df))
    P, ptr = m.decision_path(df)
    assert P.shape == (len(df), ptr[-1]) and ptr[-1] == sum(len(t.nodes) for t in m.trees)
    for k in range(m.nclass):
        block = P[:, ptr[k]:ptr[k + 1]].toarray()
        assert (block[np.arange(len(df)), A[:, k]] == 1).all()
    imp = m.variable_importance()
    assert imp.sum() == pytest.approx(1.0)
    assert m.get_depth() == max(t.get_depth() for t in m.trees)
    assert m.get_n_leaves() == sum(t.n_leaves for t in m.trees)
    raw = {}
    for t in m.trees:
        for v, d in t._split_decreases().items():
            raw[v] = raw.get(v, 0.0) + d
    assert imp["Petal.Length"] == pytest.approx(raw["Petal.Length"] / sum(raw.values()))


def _optimal() -> OptimalTreeModel:
    mk = OptimalTreeNode
    nodes = [
        mk(0, 0, 1, "f1", 1, 4, np.array([6, 6]), 0),
        mk(1, 1, 0, "f0", 2, 3, np.array([5, 1]), 0),
        mk(2, 2, -1, None, -1, -1, np.array([4, 0]), 0),
        mk(3, 2, -1, None, -1, -1, np.array([1, 1]), 0),
        mk(4, 1, -1, None, -1, -1, np.array([1, 5]), 1),
    ]
    return OptimalTreeModel(nodes=nodes, classes_=np.array(["a", "b"]),
                            feature_names=["f0", "f1", "f2"], objective=2, optimal=True,
                            runtime=0.0, max_depth=2, max_num_nodes=None, n_samples=12)


def test_optimal_tree_accessors():
    m = _optimal()
    X = np.array([[0, 0, 1], [1, 0, 0], [0, 1, 0], [1, 1, 1]])
    np.testing.assert_array_equal(m.apply(X), [2, 3, 4, 4])
    np.testing.assert_array_equal(m.leaf_of(X), m.apply(X))
    P = m.decision_path(X).toarray()
    np.testing.assert_array_equal(P, [[1, 1, 1, 0, 0], [1, 1, 0, 1, 0], [1, 0, 0, 0, 1],
                                      [1, 0, 0, 0, 1]])
    assert m.get_depth() == 2 and m.get_n_leaves() == 3
    d_root = split_decrease([6, 6], [5, 1], [1, 5])
    d_1 = split_decrease([5, 1], [4, 0], [1, 1])
    fi = m.feature_importances_
    assert fi == pytest.approx([d_1 / (d_root + d_1), d_root / (d_root + d_1), 0.0])
    imp = m.variable_importance(sort=False)
    assert list(imp.index) == ["f0", "f1", "f2"] and imp.sum() == pytest.approx(1.0)


def test_classifier_accessors(bc):
    from pybsnsing.sklearn import BsnsingClassifier

    df, m = bc
    X = df.drop(columns="Class")
    clf = BsnsingClassifier().fit(X, df["Class"])
    fi = clf.feature_importances_
    assert fi.shape == (clf.n_features_in_,) and fi.sum() == pytest.approx(1.0)
    np.testing.assert_allclose(fi, m.feature_importances_)
    np.testing.assert_array_equal(clf.apply(X), m.apply(df))
    assert clf.get_depth() == m.get_depth() and clf.get_n_leaves() == m.get_n_leaves()
    assert (clf.decision_path(X) != m.decision_path(df)).nnz == 0
    unfitted = BsnsingClassifier()
    assert not hasattr(unfitted, "feature_importances_")
