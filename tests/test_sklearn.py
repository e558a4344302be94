"""The scikit-learn estimator BsnsingClassifier.

scikit-learn's common estimator checks all apply and pass, with
``import_external=True`` (the default). The only one not run is
``check_array_api_input``, which scikit-learn itself skips unless the
environment sets ``SCIPY_ARRAY_API=1``; bsnsing works on NumPy/pandas data
only and converts other arrays with ``np.asarray``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import parametrize_with_checks

import pybsnsing
from pybsnsing.control import BsControl, ControlWarning
from pybsnsing.datasets import load_dataset
from pybsnsing.design import DesignWarning
from pybsnsing.model import BsnsingModel, MBsnsingModel
from pybsnsing.sklearn import BsnsingClassifier, MissingValuesWarning


@pytest.mark.filterwarnings("ignore::pybsnsing.sklearn.MissingValuesWarning")
@parametrize_with_checks([BsnsingClassifier()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


def test_dataframe_column_names_consistency():
    from sklearn.utils import estimator_checks

    check = getattr(estimator_checks, "check_dataframe_column_names_consistency", None)
    if check is None:
        pytest.skip("this scikit-learn has no check_dataframe_column_names_consistency")
    check("BsnsingClassifier", BsnsingClassifier(import_external=False))


def test_parameters_are_the_control_parameters():
    params = BsnsingClassifier().get_params()
    fields = {f.name: f.default for f in dataclasses.fields(BsControl)
              if not f.name.startswith("_")}
    # and the tree size (pybsnsing only): max_depth, ccp_alpha; and class_weight
    assert params == fields | {"max_depth": None, "ccp_alpha": 0.0, "class_weight": None}
    sig = inspect.signature(BsnsingClassifier.__init__)
    assert [p for p in sig.parameters if p != "self"] == [
        f.name for f in dataclasses.fields(BsControl) if not f.name.startswith("_")] + [
        "max_depth", "ccp_alpha", "class_weight"]
    clf = BsnsingClassifier(max_rules=3, import_external=False)
    assert clf.control() == BsControl(max_rules=3, import_external=False)


def test_bad_parameters_fail_at_fit_not_at_init():
    X, y = _blobs()
    clf = BsnsingClassifier(max_rules=0, opt_solver="nope")  # no error yet
    clf.set_params(opt_solver="enum_c")
    with pytest.raises(ValueError, match="max_rules"):
        clf.fit(X, y)
    with pytest.warns(ControlWarning):
        BsnsingClassifier(stop_prob=2.0, import_external=False).fit(X, y)


def _blobs(n=90, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "pos", "neg")
    return X, y


# ---------------------------------------------------------------------------
# equivalence with pybsnsing.bsnsing
# ---------------------------------------------------------------------------


def test_same_tree_as_bsnsing_on_a_dataframe():
    df = load_dataset("kyphosis")
    X, y = df.drop(columns="Kyphosis"), df["Kyphosis"]
    clf = BsnsingClassifier().fit(X, y)
    ref = pybsnsing.bsnsing("Kyphosis ~ .", df)
    assert isinstance(clf.model_, BsnsingModel)
    assert clf.model_.tree_signature() == ref.tree_signature()
    assert list(clf.classes_) == ["absent", "present"]
    np.testing.assert_array_equal(clf.predict_proba(X)[:, 1], ref.predict(df, type="prob"))
    np.testing.assert_array_equal(clf.predict(X), ref.predict(df, type="class"))


def test_same_trees_as_bsnsing_multiclass():
    df = load_dataset("iris")
    X, y = df.drop(columns="Species"), df["Species"]
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    ref = pybsnsing.bsnsing("Species ~ .", df, import_external=False)
    assert isinstance(clf.model_, MBsnsingModel)
    assert [t.tree_signature() for t in clf.model_.trees] == [
        t.tree_signature() for t in ref.trees]
    assert list(clf.classes_) == list(ref.ylevels)
    np.testing.assert_allclose(clf.predict_proba(X), ref.predict(df, type="prob"))
    np.testing.assert_array_equal(clf.predict(X), ref.predict(df, type="class"))


def test_array_columns_are_named_like_r():
    X, y = _blobs()
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    assert list(clf.model_feature_names_) == ["X1", "X2", "X3"]
    assert not hasattr(clf, "feature_names_in_")
    df = pd.DataFrame(X, columns=["X1", "X2", "X3"]).assign(y=y)
    ref = pybsnsing.bsnsing("y ~ .", df, import_external=False)
    assert clf.model_.tree_signature() == ref.tree_signature()
    assert "X1" in clf.model_.nodes[0].split_rule


def test_golden_record_reproduced_through_sklearn():
    from golden import split, tree_records

    recs = [r for r in tree_records() if r["dataset"] == "kyphosis" and r["config"] == "noext"]
    if not recs:
        pytest.skip("golden fixtures not available")
    rec = recs[0]
    train, test = split(rec)
    clf = BsnsingClassifier(import_external=False)
    clf.fit(train.drop(columns="Kyphosis"), train["Kyphosis"])
    md5 = hashlib.md5(clf.model_.tree_signature().encode()).hexdigest()
    assert md5 == rec["tree_signature_md5"]
    proba = clf.predict_proba(test.drop(columns="Kyphosis"))
    np.testing.assert_array_equal(proba[:, 1], rec["predictions"]["prob"])
    assert list(clf.predict(test.drop(columns="Kyphosis"))) == rec["predictions"]["class"]


# ---------------------------------------------------------------------------
# labels, probabilities
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("labels", [("neg", "pos"), (-1, 1), (False, True), (1.0, 3.0)])
def test_binary_labels_and_probability_columns(labels):
    X, y01 = _blobs()
    y = np.asarray(labels, dtype=object)[(y01 == "pos").astype(int)]
    if not isinstance(labels[0], str):
        y = y.astype(type(labels[0]))
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    assert list(clf.classes_) == sorted(labels)
    P = clf.predict_proba(X)
    assert P.shape == (len(X), 2)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    # column 1 is P(classes_[1]) = the share of classes_[1] in the leaf
    np.testing.assert_array_equal(P[:, 1], clf.model_.predict(
        pd.DataFrame(X, columns=["X1", "X2", "X3"]), type="prob"))
    assert clf.model_.ycode == list(clf.classes_)
    pred = clf.predict(X)
    assert pred.dtype == clf.classes_.dtype
    np.testing.assert_array_equal(pred, clf.classes_[(P[:, 1] >= 0.5).astype(int)])
    assert clf.score(X, y) > 0.85


def test_multiclass_probabilities():
    # (classes that one numeric column separates perfectly would be a bad
    # test: as R, bsnsing asks no question about such a column)
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 2))
    score = X[:, 0] + 0.2 * rng.normal(size=150)
    y = np.select([score < -0.4, score < 0.4], ["a", "b"], "c")
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    P = clf.predict_proba(X)
    assert P.shape == (150, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    assert (P >= 0).all()
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[P.argmax(axis=1)])
    assert clf.score(X, y) > 0.85


def test_tie_predicts_class_coded_one_as_r():
    X = np.zeros((8, 2))
    y = np.array([0, 1] * 4)
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    assert clf.model_.n_leaves == 1
    np.testing.assert_array_equal(clf.predict_proba(X[:2]), [[0.5, 0.5], [0.5, 0.5]])
    np.testing.assert_array_equal(clf.predict(X[:2]), [1, 1])  # n1 >= n0


def test_one_class_is_an_error():
    with pytest.raises(ValueError, match="one class"):
        BsnsingClassifier().fit(np.ones((5, 2)), ["a"] * 5)


# ---------------------------------------------------------------------------
# data frames, missing values, unknown levels
# ---------------------------------------------------------------------------


def _mixed_frame(n=200, seed=3):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "petal length (cm)": rng.normal(size=n),
        "colour": pd.Categorical(rng.choice(["red", "green", "blue"], size=n)),
        "flag": rng.random(n) < 0.5,
    })
    y = np.where((df["petal length (cm)"] > 0.2) | (df["colour"] == "red"), "yes", "no")
    return df, y


def test_dataframe_with_categoricals_and_odd_names():
    X, y = _mixed_frame()
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    assert list(clf.feature_names_in_) == list(X.columns)
    assert list(clf.model_feature_names_) == ["petal.length..cm.", "colour", "flag"]
    rules = " ".join(nd.split_rule for nd in clf.model_.nodes)
    assert "petal.length..cm." in rules and "colour" in rules
    assert clf.score(X, y) > 0.95
    # an array with the same columns predicts the same (sklearn warns about the names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        np.testing.assert_array_equal(clf.predict(X.to_numpy(dtype=object)), clf.predict(X))


def test_missing_values_and_unknown_levels_warn_never_crash():
    X, y = _mixed_frame()
    X = X.copy()
    X.loc[::9, "petal length (cm)"] = np.nan
    X["colour"] = X["colour"].cat.add_categories(["pink"])
    X.loc[::13, "colour"] = np.nan
    clf = BsnsingClassifier(import_external=False).fit(X, y)  # medians at fit time
    new = X.iloc[:6].copy()
    new.loc[new.index[0], "petal length (cm)"] = np.nan
    new.loc[new.index[1], "colour"] = "pink"  # a level with no training row
    new["colour"] = new["colour"].astype(object)
    new.loc[new.index[2], "colour"] = "purple"  # a level never seen
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        P = clf.predict_proba(new)
    assert {MissingValuesWarning, DesignWarning} <= {type(w.message) for w in caught}
    assert any("purple" in str(w.message) for w in caught)
    assert P.shape == (6, 2) and np.isfinite(P).all()
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    # an unseen level counts as missing: the same prediction as a missing value
    same = new.iloc[[2]].copy()
    same["colour"] = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert clf.predict_proba(same)[0, 1] == P[2, 1]
    # arrays too
    Xa, ya = _blobs()
    Xa[::5, 1] = np.nan
    clf = BsnsingClassifier(import_external=False).fit(Xa, ya)
    with pytest.warns(MissingValuesWarning):
        assert clf.predict(Xa).shape == (len(Xa),)
    # infinity is a value, not a missing one (as for R bsnsing): beyond every cut
    big = np.array([[np.inf, -np.inf, np.inf], [1e300, -1e300, 1e300]])
    p_big = clf.predict_proba(big)
    assert p_big[0].tolist() == p_big[1].tolist()
    Xi = Xa.copy()
    Xi[::7, 0] = np.inf
    fitted = BsnsingClassifier().fit(Xi, ya)
    assert fitted.predict(Xi).shape == (len(Xi),)


# ---------------------------------------------------------------------------
# pipelines and model selection
# ---------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::pybsnsing.sklearn.MissingValuesWarning")
def test_pipeline_and_grid_search_on_bundled_data():
    df = load_dataset("BreastCancer")
    X, y = df.drop(columns="Class"), df["Class"]
    pipe = Pipeline([("tree", BsnsingClassifier(import_external=False))])
    search = GridSearchCV(pipe, {"tree__max_rules": [1, 2], "tree__node_size": [0, 20]},
                          cv=3, error_score="raise")
    search.fit(X, y)
    assert set(search.best_params_) == {"tree__max_rules", "tree__node_size"}
    assert search.best_score_ > 0.9
    best = search.best_estimator_.named_steps["tree"]
    assert isinstance(best.model_, BsnsingModel)
    assert search.score(X, y) > 0.9
    P = search.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_pipeline_with_preprocessing_and_cross_validation():
    from sklearn.preprocessing import StandardScaler

    df = load_dataset("iris")
    X, y = df.drop(columns="Species").to_numpy(), df["Species"].to_numpy()
    pipe = Pipeline([("scale", StandardScaler()), ("tree", BsnsingClassifier())])
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.mean() > 0.85
    fitted = clone(pipe).fit(X, y)
    P = fitted.predict_proba(X)
    assert P.shape == (150, 3)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)


def test_pickle_roundtrip_and_plot(tmp_path):
    import pickle

    X, y = _mixed_frame()
    clf = BsnsingClassifier(import_external=False).fit(X, y)
    back = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(back.predict_proba(X), clf.predict_proba(X))
    back.model_.plot(tmp_path / "tree.png")
    assert (tmp_path / "tree.png").stat().st_size > 0
