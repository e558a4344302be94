"""max_depth and cost-complexity pruning of bsnsing trees (cp_table, prune, ccp_alpha)."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

import pybsnsing as pb
from pybsnsing.datasets import load_dataset
from pybsnsing.errors import InvalidParameterError
from pybsnsing.prune import truncate

SETS = [("BreastCancer", "Class ~ ."), ("pima", "Class ~ ."), ("haberman", "survival ~ .")]


@pytest.fixture(scope="module", params=SETS, ids=[s[0] for s in SETS])
def fitted(request):
    name, formula = request.param
    df = load_dataset(name)
    return df, formula, pb.bsnsing(formula, df)


def _training_errors(model) -> int:
    """Misclassified training rows, routing the training design matrix directly."""
    leaf = model.leaf_of(model.design.X)
    cls = np.array([nd.node_class for nd in model.nodes])[leaf]
    return int(np.sum(cls != np.asarray(model.y)))


def test_max_depth_none_is_r_and_depth_d_is_the_truncated_tree(fitted):
    df, formula, full = fitted
    assert pb.bsnsing(formula, df, max_depth=None).tree_signature() == full.tree_signature()
    for d in range(0, full.get_depth() + 1):
        m = pb.bsnsing(formula, df, max_depth=d)
        assert m.get_depth() <= d
        assert m.tree_signature() == truncate(full, d).tree_signature()
        assert [nd.number for nd in m.nodes] == list(range(len(m.nodes)))
    deep = pb.bsnsing(formula, df, max_depth=full.get_depth() + 3)
    assert deep.tree_signature() == full.tree_signature()


def test_max_depth_is_checked():
    df = load_dataset("kyphosis")
    for bad in (-1, 1.5, True, "2"):
        with pytest.raises(InvalidParameterError,
                           match="max_depth must be (None or a whole number )?>= 0"):
            pb.bsnsing("Kyphosis ~ .", df, max_depth=bad)


def test_cp_table_path_is_monotone_and_risks_are_direct(fitted):
    _, _, m = fitted
    table = m.cp_table()
    assert list(table.columns) == ["CP", "nsplit", "rel error"]
    assert table["nsplit"].iloc[0] == 0 and table["rel error"].iloc[0] == 1.0
    assert table["nsplit"].iloc[-1] == m.n_splits and table["CP"].iloc[-1] == 0.0
    assert (np.diff(table["nsplit"]) > 0).all()
    assert (np.diff(table["CP"]) <= 0).all()
    assert (np.diff(table["rel error"]) <= 1e-15).all()
    root = min(m.nodes[0].n1, m.nodes[0].n0)
    for cp, nsplit, rel in table[["CP", "nsplit", "rel error"]].itertuples(index=False):
        pruned = m.prune(cp) if cp > 0 else m
        if cp > 0:
            assert pruned.n_splits == nsplit
        assert _training_errors(pruned) == round(rel * root)
        # the pruned tree's risk is what its leaves hold, and what predict gets wrong
        assert sum(min(nd.n1, nd.n0) for nd in pruned.leaves) == _training_errors(pruned)
        assert pruned.accuracy == pytest.approx(1 - _training_errors(pruned) / len(m.y))
    assert _training_errors(m) == round(table["rel error"].iloc[-1] * root)


def test_prune_zero_is_the_full_tree_and_a_large_cp_the_root(fitted):
    _, _, m = fitted
    assert m.prune(0).tree_signature() == m.tree_signature()
    assert m.prune(0) is not m
    root = m.prune(1.0e9)
    assert root.n_splits == 0 and root.n_leaves == 1
    with pytest.raises(InvalidParameterError, match="cp must be a number >= 0, got -0.1"):
        m.prune(-0.1)


def test_pruned_tree_is_optimal_for_its_cp(fitted):
    """Brute force over every pruned subtree: the chosen one minimises risk + alpha * leaves."""
    _, _, m = fitted
    by = {nd.number: nd for nd in m.nodes}
    root = max(min(m.nodes[0].n1, m.nodes[0].n0), 1)

    def best(t: int, alpha: Fraction) -> Fraction:
        nd = by[t]
        as_leaf = min(nd.n1, nd.n0) + alpha
        if nd.is_leaf:
            return as_leaf
        return min(as_leaf, best(nd.lchild, alpha) + best(nd.rchild, alpha))

    for cp in m.cp_table()["CP"]:
        if cp == 0:
            continue
        alpha = Fraction(cp) * root
        pruned = m.prune(cp)
        cost = sum(min(nd.n1, nd.n0) for nd in pruned.leaves) + alpha * pruned.n_leaves
        assert cost <= best(0, alpha) * (1 + Fraction(1, 10**9))


def test_cross_validated_columns():
    df = load_dataset("pima")
    m = pb.bsnsing("Class ~ .", df)
    t1 = m.cp_table(xval=5, seed=1)
    t2 = m.cp_table(xval=5, seed=1)
    assert list(t1.columns) == ["CP", "nsplit", "rel error", "xerror", "xstd"]
    assert t1.equals(t2)  # deterministic for a seed
    assert t1["xerror"].iloc[0] == pytest.approx(1.0, abs=0.2)
    assert ((t1["xerror"] > 0) & (t1["xstd"] > 0)).all()
    text = m.printcp(xval=5, seed=1)
    assert text.startswith("Root node error: ") and "xerror" in text
    with pytest.raises(InvalidParameterError, match="xval must be 0 or a whole number >= 2, got 1"):
        m.cp_table(xval=1)


def test_pruned_model_saves_and_predicts(tmp_path):
    df = load_dataset("BreastCancer")
    m = pb.bsnsing("Class ~ .", df)
    cp = m.cp_table()["CP"].iloc[1]
    p = m.prune(max(cp, 1e-9))
    path = tmp_path / "m.json"
    p.save(path)
    back = pb.load_model(path)
    assert back.tree_signature() == p.tree_signature()
    np.testing.assert_array_equal(back.predict(df), p.predict(df))
    assert json.loads(path.read_text())["nodes"][0]["number"] == 0


def test_multiclass_prune_and_classifier_ccp_alpha():
    from sklearn.model_selection import GridSearchCV

    from pybsnsing.sklearn import BsnsingClassifier

    df = load_dataset("iris")
    m = pb.bsnsing("Species ~ .", df)
    assert [t.tree_signature() for t in m.prune(0).trees] == [
        t.tree_signature() for t in m.trees]
    assert all(t.n_splits == 0 for t in m.prune(1e9).trees)
    assert set(m.cp_table()) == set(m.ylevels)

    bc = load_dataset("BreastCancer")
    X, y = bc.drop(columns="Class"), bc["Class"]
    full = BsnsingClassifier().fit(X, y)
    assert full.model_.tree_signature() == BsnsingClassifier(ccp_alpha=0.0).fit(
        X, y).model_.tree_signature()
    small = BsnsingClassifier(ccp_alpha=0.05).fit(X, y)
    assert small.get_n_leaves() < full.get_n_leaves()
    root = min(full.model_.nodes[0].n1, full.model_.nodes[0].n0)
    same = full.model_.prune(0.05 * len(y) / root)
    assert small.model_.tree_signature() == same.tree_signature()
    assert BsnsingClassifier(max_depth=1).fit(X, y).get_depth() == 1
    with pytest.raises(InvalidParameterError, match="cp must be a number >= 0, got -1.0"):
        BsnsingClassifier(ccp_alpha=-1.0).fit(X, y)
    grid = GridSearchCV(BsnsingClassifier(import_external=False),
                        {"ccp_alpha": [0.0, 0.01, 0.5]}, cv=3).fit(X, y)
    assert grid.best_params_["ccp_alpha"] in (0.0, 0.01, 0.5)
    assert len(grid.cv_results_["mean_test_score"]) == 3
    # a huge alpha is a single leaf: the majority class, the worst score of the three
    assert grid.cv_results_["mean_test_score"][2] == min(grid.cv_results_["mean_test_score"])
