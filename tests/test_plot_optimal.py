"""OptimalTreeModel.plot() (issue 15): MurTree trees drawn by pybsnsing's tree drawing
through the exporters' view model."""

from __future__ import annotations

import numpy as np
import pytest

from pybsnsing.errors import PybsnsingValueError
from pybsnsing.export.view import preorder
from pybsnsing.optimal import murtree_fit

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")


def _model(k: int = 2):
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (200, 6))
    lab = (X[:, 0] & X[:, 1]) | X[:, 2]
    if k == 3:
        lab = lab + X[:, 3]
    y = np.array(["neg", "pos", "mid"])[lab]
    return murtree_fit(X, y, max_depth=3)


def test_tree_view_matches_the_model():
    m = _model()
    view = m.tree_view()
    assert [str(c) for c in view.ycode] == [str(c) for c in m.classes_]
    for v, nd in zip(view.nodes, m.nodes, strict=True):
        assert (v.n0, v.n1) == (int(nd.counts[0]), int(nd.counts[1]))
        assert v.node_class == nd.prediction
        assert (v.lchild, v.rchild) == (nd.left, nd.right)
        # the drawing's left child holds the rows where the rule is true: feature = 0
        assert v.split_rule == ("" if nd.is_leaf else f"{nd.feature_name} = 0")
    # the shared traversal walks it like a bsnsing tree
    assert len(preorder(view)) == len(m.nodes)


def test_plot_draws_every_node(tmp_path):
    m = _model()
    fig = m.plot(tmp_path / "tree.png")
    assert (tmp_path / "tree.png").stat().st_size > 0
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    for nd in m.nodes:
        assert any(t.startswith(f"#{nd.id}  n = {nd.n} ") for t in texts), nd.id
        if not nd.is_leaf:
            assert f"{nd.feature_name} = 0" in texts
    leaves = [str(m.classes_[nd.prediction]) for nd in m.nodes if nd.is_leaf]
    assert sorted(t for t in texts if t in ("neg", "pos")) == sorted(leaves)
    # the drawing options pass through (a tree cut at depth 1)
    fig2 = m.plot(max_depth=1)
    assert any("nodes below" in t.get_text() for ax in fig2.axes for t in ax.texts)


def test_plot_three_classes(tmp_path):
    m = _model(3)
    assert len(m.classes_) == 3
    view = m.tree_view()
    for v, nd in zip(view.nodes, m.nodes, strict=True):
        assert v.counts == tuple(int(c) for c in nd.counts)
        assert (v.n0, v.n0 + v.n1) == (int(nd.counts[0]), nd.n)
    fig = m.plot(tmp_path / "tree3.png")
    assert (tmp_path / "tree3.png").stat().st_size > 0
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    for nd in m.nodes:
        mix = " / ".join(str(int(c)) for c in nd.counts)
        assert any(t == f"#{nd.id}  n = {nd.n} ({mix})" for t in texts), nd.id
    # each leaf: its class and the share that predict(type="prob") gives it
    proba = {round(float(nd.counts[nd.prediction]) / nd.n, 3) for nd in m.nodes if nd.is_leaf}
    shares = {float(t[4:]) for t in texts if t.startswith("p = 0") or t == "p = 1.000"}
    assert shares == proba
    leaves = [str(m.classes_[nd.prediction]) for nd in m.nodes if nd.is_leaf]
    assert sorted(t for t in texts if t in map(str, m.classes_)) == sorted(leaves)
    # the legend names the three classes, and the class-mix bars use three colours
    for k, c in enumerate(m.classes_):
        assert f"class {k}: {c}" in texts
    from matplotlib.colors import to_rgba
    colours = {p.get_facecolor() for ax in fig.axes for p in ax.patches}
    assert to_rgba("lightskyblue") in colours
    # colours: one per class, or the default two (extended)
    m.plot(class_colors=("red", "green", "blue"))
    with pytest.raises(PybsnsingValueError, match="3 colours"):
        m.plot(class_colors=("red", "green"))
    # two-class trees keep the two-colour rule
    with pytest.raises(PybsnsingValueError, match="two colours"):
        _model().plot(class_colors=("red", "green", "blue"))
