"""ROC curve / AUC: R bsnsing's ``ROC_func`` semantics (stable order, staircase ties),
and the tie-correct ``roc_auc`` (scikit-learn's ``roc_auc_score``)."""

from __future__ import annotations

import io
import struct
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pybsnsing.export.roc import ROC_func, RocResult, plot_roc, roc_auc


def mann_whitney_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """P(score_pos > score_neg) + 0.5 P(equal), by brute force."""
    pos = scores[labels == 1]
    neg = scores[labels == 0]
    gt = (pos[:, None] > neg[None, :]).sum()
    eq = (pos[:, None] == neg[None, :]).sum()
    return (gt + 0.5 * eq) / (len(pos) * len(neg))


def r_roc_loop(labels: list, scores: list, pos_label) -> tuple[float, list, list]:
    """A literal transcription of R's loop (the oracle for bit-exactness)."""
    n = len(scores)
    key = [(-s if s == s else np.inf, i) for i, s in enumerate(scores)]  # NaN last
    order = [i for _, i in sorted(key)]
    lab = [labels[i] for i in order]
    P = sum(1 for v in lab if v == pos_label)
    N = n - P
    tpr, fpr, auc = [0.0] * (n + 1), [0.0] * (n + 1), 0.0
    for k in range(n):
        if lab[k] == pos_label:
            tpr[k + 1] = tpr[k] + 1 / P
            fpr[k + 1] = fpr[k]
        else:
            tpr[k + 1] = tpr[k]
            fpr[k + 1] = fpr[k] + 1 / N
            auc = auc + tpr[k + 1] * (1 / N)
    return auc, tpr, fpr


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.floats(-1e6, 1e6, allow_nan=False), st.booleans()),
        min_size=2,
        max_size=60,
        unique_by=lambda t: t[0],
    ).filter(lambda xs: 0 < sum(b for _, b in xs) < len(xs))
)
def test_auc_is_mann_whitney_without_ties(rows: list[tuple[float, bool]]) -> None:
    scores = np.array([s for s, _ in rows])
    labels = np.array([int(b) for _, b in rows])
    res = ROC_func(labels, scores)
    assert res.auc == pytest.approx(mann_whitney_auc(labels, scores), abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.one_of(st.sampled_from([0.0, 0.25, 0.5, 1.0]), st.just(float("nan"))),
            st.sampled_from(["a", "b"]),
        ),
        min_size=1,
        max_size=40,
    )
)
def test_bit_identical_to_r_loop(rows: list[tuple[float, str]]) -> None:
    scores = [s for s, _ in rows]
    labels = [b for _, b in rows]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = ROC_func(labels, scores, pos_label="b")
    auc, tpr, fpr = r_roc_loop(labels, scores, "b")
    assert struct.pack("d", res.auc) == struct.pack("d", auc)
    assert res.tpr.tolist() == tpr
    assert res.fpr.tolist() == fpr


def test_ties_keep_row_order() -> None:
    """R does not average ties: equal scores are stepped through in row order.

    One positive and one negative with the same score: AUC 1 if the positive row comes
    first, 0 if the negative does. Mann-Whitney would say 0.5 for both.
    """
    assert ROC_func([1, 0], [0.5, 0.5]).auc == 1.0
    assert ROC_func([0, 1], [0.5, 0.5]).auc == 0.0
    res = ROC_func([0, 1], [0.5, 0.5])
    assert res.tpr.tolist() == [0.0, 0.0, 1.0]
    assert res.fpr.tolist() == [0.0, 1.0, 1.0]  # a staircase, not the diagonal
    # A tied block (rows 1-3, score 0.5) holding one positive and two negatives: the
    # positive counts as ranked above the negatives listed after it and below those
    # listed before it. Mann-Whitney gives 6/9 in all three cases.
    scores = np.array([0.9, 0.5, 0.5, 0.5, 0.1, 0.0])
    for labels, r_auc in [
        ([1, 1, 0, 0, 1, 0], 7 / 9),  # positive first inside the block
        ([1, 0, 1, 0, 1, 0], 6 / 9),  # positive in the middle
        ([1, 0, 0, 1, 1, 0], 5 / 9),  # positive last
    ]:
        assert ROC_func(labels, scores).auc == pytest.approx(r_auc)
        assert mann_whitney_auc(np.array(labels), scores) == pytest.approx(6 / 9)


def test_perfect_and_inverse_scores() -> None:
    labels = np.array([0, 0, 1, 1, 0, 1])
    scores = np.array([0.1, 0.2, 0.8, 0.9, 0.3, 0.7])
    assert ROC_func(labels, scores).auc == 1.0
    assert ROC_func(labels, -scores).auc == 0.0
    res = ROC_func(labels, scores)
    assert res.n_pos == 3 and res.n_neg == 3 and res.n == 6
    assert res.tpr[0] == res.fpr[0] == 0.0 and res.tpr[-1] == res.fpr[-1] == 1.0
    assert res.thresholds[0] == np.inf
    assert res.thresholds[1:].tolist() == sorted(scores.tolist(), reverse=True)


def test_nan_scores_rank_last() -> None:
    res = ROC_func([1, 0, 1], [np.nan, 0.2, 0.1])
    assert res.order.tolist() == [1, 2, 0]
    assert res.auc == 0.0  # the negative is ranked first


def test_pos_label_matching() -> None:
    # R's default pos.label = "1" matches numbers, strings and factor levels "1"
    assert ROC_func([0, 1], [0.1, 0.9]).auc == 1.0
    assert ROC_func([0.0, 1.0], [0.1, 0.9]).auc == 1.0
    assert ROC_func(["0", "1"], [0.1, 0.9]).auc == 1.0
    assert ROC_func(pd.Categorical(["2", "1"]), [0.1, 0.9]).auc == 1.0
    assert ROC_func([False, True], [0.1, 0.9]).auc == 1.0  # booleans: True
    labels = pd.Series(["benign", "malignant", "benign"], dtype="category")
    res = ROC_func(labels, [0.2, 0.8, 0.3], pos_label="malignant")
    assert res.auc == 1.0 and res.pos_label == "malignant"
    assert ROC_func(["a", "b"], [0.1, 0.9], pos_label="a").auc == 0.0
    assert ROC_func(["1", "2"], [0.1, 0.9], pos_label=2).auc == 1.0  # compared as text


def test_one_class_returns_zero_like_r() -> None:
    with pytest.warns(RuntimeWarning, match="one class"):
        assert ROC_func([1, 1], [0.1, 0.2]).auc == 0.0
    with pytest.warns(RuntimeWarning, match="one class"):
        assert ROC_func(["x", "y"], [0.1, 0.2]).auc == 0.0  # no label "1"


def test_input_validation() -> None:
    with pytest.raises(ValueError, match="labels and scores must be 1-D and of the same length"):
        ROC_func([0, 1], [0.1])
    with pytest.raises(ValueError, match="need at least one observation"):
        ROC_func([], [])
    with pytest.raises(ValueError, match="missing"):
        ROC_func([0.0, np.nan], [0.1, 0.2])
    with pytest.raises(ValueError, match="missing"):
        ROC_func(pd.Series(["a", None]), [0.1, 0.2])


def test_result_is_dataclass() -> None:
    res = ROC_func([0, 1, 1], [0.3, 0.2, 0.9])
    assert isinstance(res, RocResult)
    assert res.auc == 0.5
    assert len(res.fpr) == len(res.tpr) == len(res.thresholds) == 4


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_plot_writes_png(tmp_path: Path) -> None:
    res = ROC_func([0, 1, 0, 1, 1], [0.1, 0.8, 0.4, 0.35, 0.9])
    out = tmp_path / "roc.png"
    ax = plot_roc(res, file=out, figsize=(4, 3), dpi=50)
    data = out.read_bytes()
    assert len(data) > 1000
    assert _png_size(data) == (200, 150)
    assert ax.get_title() == "ROC curve (n = 5)"
    line = ax.get_lines()[0]
    assert line.get_xdata().tolist() == res.fpr.tolist()
    assert line.get_ydata().tolist() == res.tpr.tolist()
    buf = io.BytesIO()
    plot_roc(res, file=buf)
    assert _png_size(buf.getvalue()) == (600, 600)


def test_plot_adds_to_existing_axes(tmp_path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(3, 3), dpi=40)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    a = ROC_func([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8])
    b = ROC_func([0, 1, 0, 1], [0.9, 0.1, 0.2, 0.8])
    plot_roc(a, ax=ax)
    plot_roc(b, ax=ax, color="red", linestyle="--", file=tmp_path / "both.png")
    assert len(ax.get_lines()) == 2
    assert _png_size((tmp_path / "both.png").read_bytes()) == (120, 120)


# ---------------------------------------------------------------------------
# roc_auc: the tie-correct AUC (scikit-learn's roc_auc_score)
# ---------------------------------------------------------------------------


def test_roc_auc_counts_ties_as_half():
    assert roc_auc([1, 0], [0.5, 0.5]).auc == 0.5
    assert roc_auc([0, 1], [0.5, 0.5]).auc == 0.5
    assert roc_auc([0, 1, 0, 1], [0.1, 0.9, 0.2, 0.8]).auc == 1.0
    assert roc_auc([1, 0, 1], [0.2, 0.2, 0.1]).auc == 0.25  # (0.5 + 0) / 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(0, 6)), min_size=2, max_size=60))
def test_roc_auc_equals_sklearn_and_mann_whitney(pairs):
    from sklearn.metrics import roc_auc_score

    labels = np.array([p[0] for p in pairs], dtype=int)
    scores = np.array([p[1] / 6 for p in pairs])
    if labels.min() == labels.max():
        with pytest.warns(RuntimeWarning):
            assert np.isnan(roc_auc(labels, scores).auc)
        return
    res = roc_auc(labels, scores)
    assert res.auc == pytest.approx(roc_auc_score(labels, scores), rel=1e-12, abs=1e-15)
    assert res.auc == pytest.approx(mann_whitney_auc(labels, scores), rel=1e-12, abs=1e-15)
    perm = np.random.default_rng(len(pairs)).permutation(len(pairs))
    assert roc_auc(labels[perm], scores[perm]).auc == res.auc  # order-free
    # the curve: one point per distinct score, from (0, 0) to (1, 1)
    assert res.fpr.size == np.unique(scores).size + 1
    assert res.fpr[0] == res.tpr[0] == 0.0 and res.fpr[-1] == res.tpr[-1] == 1.0
    assert (np.diff(res.fpr) >= 0).all() and (np.diff(res.tpr) >= 0).all()
    assert np.trapezoid(res.tpr, res.fpr) == pytest.approx(res.auc)


def test_roc_auc_nan_scores_rank_last_and_tie():
    res = roc_auc([1, 0, 1, 0], [np.nan, 0.2, 0.9, np.nan])
    # pairs: (0.9 vs 0.2) win, (0.9 vs nan) win, (nan vs 0.2) loss, (nan vs nan) half
    assert res.auc == pytest.approx(2.5 / 4)


def test_titanic_tree_auc_tie_correct_vs_r():
    """A tree gives many rows one score: R's ROC_func depends on their order, roc_auc not."""
    from sklearn.metrics import roc_auc_score

    import pybsnsing as pb
    from pybsnsing.datasets import load_dataset

    df = load_dataset("titanic")
    p = pb.bsnsing("Survived ~ .", df).predict(df)
    y = df["Survived"]
    auc = roc_auc(y, p, pos_label="Yes").auc
    assert auc == pytest.approx(roc_auc_score(y == "Yes", p), rel=1e-12)
    assert auc == pytest.approx(0.7287, abs=1e-4)
    r = ROC_func(y, p, pos_label="Yes").auc
    assert r == pytest.approx(0.5816, abs=1e-4)  # rows of equal score in data order
    back = np.arange(len(df))[::-1]
    assert roc_auc(y.iloc[back], p[back], pos_label="Yes").auc == auc
    assert ROC_func(y.iloc[back], p[back], pos_label="Yes").auc != r


def test_public_names():
    import pybsnsing

    assert pybsnsing.roc_auc is roc_auc and pybsnsing.ROC_func is ROC_func
