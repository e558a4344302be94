"""ROC curve and AUC: the tie-correct AUC (:func:`roc_auc`) and R bsnsing's ``ROC_func``.

Two functions, one result type (:class:`RocResult`):

* :func:`roc_auc` -- the usual AUC: the probability that a random positive row scores
  above a random negative row, a TIE COUNTING ONE HALF (the Mann-Whitney statistic).
  It equals scikit-learn's ``roc_auc_score`` and does not depend on the row order; it
  is what the bsnsing paper's tables report (titanic: 0.724 for the bsnsing tree,
  where ``ROC_func`` gives 0.568 because a tree gives many rows the same score). The
  curve has one point per distinct score (ties are a diagonal segment).
* :func:`ROC_func` -- R bsnsing 1.0.1's ``ROC_func`` (its R name), bit for bit, for
  parity with R. Its AUC depends on the order of rows with equal scores (below).

R bsnsing 1.0.1 ships ``ROC_func(df, label_colnum, score_colnum, pos.label = "1",
plot.ROC = FALSE, ...)``, a general utility that returns the area under the ROC curve.
Its semantics, reproduced by :func:`ROC_func` exactly:

1. The rows are put in decreasing order of score with ``order(-score)``, a *stable*
   sort: rows with equal scores keep their input order, and missing (NaN) scores go
   last, again in input order.
2. ``P`` is the number of rows whose label equals ``pos.label`` and ``N`` the number of
   the other rows.
3. The curve starts at (0, 0) and takes one step per row, in that order: a positive row
   moves up by ``1/P``, a negative row moves right by ``1/N`` and adds the rectangle
   ``TPR * (1/N)`` under the curve (the new TPR, i.e. after all earlier rows). The sums
   are accumulated left to right in double precision, as R does, so the AUC is
   bit-identical to R's.

Ties are *not* averaged: within a group of equal scores the curve is a staircase in row
order, not a diagonal. Positives listed before negatives of the same score count as
ranked above them, so the AUC can differ from the Mann-Whitney statistic (which counts a
tie as one half) when a positive and a negative share a score. Without such ties the two
are equal.

When only one class is present, R's loop returns 0 (nothing is ever added); so does
:func:`ROC_func`, with a :class:`RuntimeWarning` (:func:`roc_auc` returns NaN).
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..errors import PybsnsingValueError
from ..rformat import as_character

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes

__all__ = ["ROC_func", "RocResult", "plot_roc", "roc_auc"]


@dataclass(frozen=True, eq=False)
class RocResult:
    """An ROC curve (from :func:`roc_auc` or :func:`ROC_func`).

    Attributes
    ----------
    auc
        Area under the curve (R's return value).
    fpr, tpr
        The points of the curve, from ``(0, 0)``. :func:`ROC_func`: ``n + 1`` points, one
        per row in ranked order (R's ``FPR`` and ``TPR`` vectors). :func:`roc_auc`: one
        point per distinct score (scikit-learn's ``roc_curve(drop_intermediate=False)``).
    thresholds
        ``inf``, then the score of each point: the curve after the rows scoring at
        least the threshold are called positive.
    n_pos, n_neg
        ``P`` and ``N``.
    order
        The 0-based row order used (the stable decreasing-score order).
    pos_label
        The positive label that was matched.
    """

    auc: float
    fpr: np.ndarray
    tpr: np.ndarray
    thresholds: np.ndarray
    n_pos: int
    n_neg: int
    order: np.ndarray = field(repr=False)
    pos_label: Any = None

    @property
    def n(self) -> int:
        """Number of rows."""
        return int(self.order.shape[0])


def _as_label_array(labels: Any) -> np.ndarray:
    """Labels as a 1-D numpy array (categoricals become their label values)."""
    import pandas as pd

    if isinstance(labels, pd.Categorical) or isinstance(
        getattr(labels, "dtype", None), pd.CategoricalDtype
    ):
        arr = np.asarray(pd.Series(labels).astype(object))
    elif isinstance(labels, (pd.Series, pd.Index)):
        arr = labels.to_numpy()
    else:
        arr = np.asarray(labels)
    if arr.ndim != 1:
        raise PybsnsingValueError("labels must be one-dimensional")
    if arr.dtype.kind in "fO" and bool(pd.isna(arr).any()):
        raise PybsnsingValueError("labels contain missing values")
    return arr


def _positive_mask(labels: np.ndarray, pos_label: Any) -> tuple[np.ndarray, Any]:
    """Which labels equal ``pos_label`` under R's ``==`` coercion rules."""
    if pos_label is None:
        pos_label = True if labels.dtype.kind == "b" else "1"
    numeric_labels = labels.dtype.kind in "biuf"
    numeric_pos = isinstance(pos_label, (bool, int, float, np.bool_, np.integer, np.floating))
    if numeric_labels and numeric_pos:
        return np.asarray(labels == pos_label, dtype=bool), pos_label
    target = as_character(pos_label)
    hits = (as_character(v) == target for v in labels)
    return np.fromiter(hits, dtype=bool, count=len(labels)), pos_label


class _Ranked(NamedTuple):
    """The checked inputs of :func:`ROC_func` / :func:`roc_auc` in decreasing-score
    order (stable: ties and NaN scores, which go last, keep the row order)."""

    scores: np.ndarray  # float64, in row order
    order: np.ndarray
    pos: np.ndarray  # bool, whether each ranked row is positive
    n_pos: int
    n_neg: int
    pos_label: Any

    def result(
        self, auc: float, fpr: np.ndarray, tpr: np.ndarray, thresholds: np.ndarray
    ) -> RocResult:
        return RocResult(
            auc, fpr, tpr, thresholds, self.n_pos, self.n_neg, self.order, self.pos_label
        )


def _ranked(labels: Any, scores: Any, pos_label: Any, one_class: str) -> _Ranked:
    """The rows ranked by score, after checking that labels and scores are 1-D, of one
    length and not empty; warns (``RuntimeWarning``, at the caller's caller) that the AUC
    is undefined, then ``one_class``, when only one class is present."""
    lab = _as_label_array(labels)
    sc = np.asarray(scores, dtype=np.float64)
    if sc.ndim != 1 or lab.shape[0] != sc.shape[0]:
        raise PybsnsingValueError("labels and scores must be 1-D and of the same length")
    if sc.shape[0] == 0:
        raise PybsnsingValueError("need at least one observation")
    is_pos, pos_label = _positive_mask(lab, pos_label)
    order = np.argsort(-sc, kind="stable")  # NaN last, ties in row order
    pos = is_pos[order]
    n_pos = int(pos.sum())
    n_neg = sc.shape[0] - n_pos
    if n_pos == 0 or n_neg == 0:
        warnings.warn(
            f"only one class present (P = {n_pos}, N = {n_neg}); the AUC is undefined" + one_class,
            RuntimeWarning,
            stacklevel=3,
        )
    return _Ranked(sc, order, pos, n_pos, n_neg, pos_label)


def ROC_func(labels: Any, scores: Any, pos_label: Any = None) -> RocResult:
    """ROC curve and AUC exactly as R bsnsing's ``ROC_func`` (order-dependent on ties).

    For the usual, tie-correct AUC use :func:`roc_auc`.

    Parameters
    ----------
    labels
        True class labels (array-like, pandas Series or Categorical).
    scores
        Prediction scores, any real numbers; larger means more positive. NaN scores rank
        last (R's ``order`` puts ``NA`` last).
    pos_label
        The positive class. ``None`` means R's default ``pos.label = "1"`` (matching the
        string ``"1"``, the number 1 or a factor level ``"1"``), except for boolean labels,
        where it means ``True``. A string is compared with each label's R character form
        (``as.character``), a number with numeric labels numerically.

    Returns
    -------
    RocResult
        ``auc`` equals R's return value bit for bit; ``fpr``/``tpr`` are R's ``FPR`` and
        ``TPR`` vectors.

    Notes
    -----
    Ties in score keep the input row order (no averaging); see the module docstring.
    """
    r = _ranked(labels, scores, pos_label, " and R's ROC_func returns 0")
    n, pos, n_pos, n_neg = r.order.shape[0], r.pos, r.n_pos, r.n_neg
    step_t = 1.0 / n_pos if n_pos else 0.0
    step_f = 1.0 / n_neg if n_neg else 0.0
    tpr = np.empty(n + 1, dtype=np.float64)
    fpr = np.empty(n + 1, dtype=np.float64)
    tpr[0] = fpr[0] = 0.0
    # np.add.accumulate is strictly sequential, like R's loop (adding 0.0 is exact)
    tpr[1:] = np.add.accumulate(np.where(pos, step_t, 0.0))
    fpr[1:] = np.add.accumulate(np.where(pos, 0.0, step_f))
    terms = tpr[1:][~pos] * step_f
    auc = float(np.add.accumulate(terms)[-1]) if terms.size else 0.0
    return r.result(auc, fpr, tpr, np.concatenate(([np.inf], r.scores[r.order])))


def roc_auc(labels: Any, scores: Any, pos_label: Any = None) -> RocResult:
    """The tie-correct ROC curve and AUC (scikit-learn's ``roc_auc_score``).

    The AUC is the share of (positive, negative) row pairs where the positive row
    scores higher, a tie counting one half (the Mann-Whitney statistic): the area
    under the curve with one point per distinct score. It does not depend on the row
    order. For R bsnsing's order-dependent value use :func:`ROC_func`.

    Parameters
    ----------
    labels, pos_label
        As in :func:`ROC_func` (``None``: R's default ``"1"``, or ``True`` for
        boolean labels).
    scores
        Prediction scores; larger means more positive. NaN scores rank below every
        number (tied with each other).

    Returns
    -------
    RocResult
        ``auc`` (NaN, with a :class:`RuntimeWarning`, when only one class is present);
        the curve at the distinct scores, highest first.
    """
    r = _ranked(labels, scores, pos_label, "")
    ranked = r.scores[r.order]
    pos = r.pos.astype(np.int64)
    n_pos, n_neg = r.n_pos, r.n_neg
    # the last row of each group of equal scores (NaNs form one group)
    nan = np.isnan(ranked)
    same = (ranked[1:] == ranked[:-1]) | (nan[1:] & nan[:-1])
    ends = np.flatnonzero(np.concatenate((~same, [True])))
    tp = np.concatenate(([0], np.cumsum(pos)[ends]))
    fp = np.concatenate(([0], (ends + 1) - tp[1:]))
    if n_pos == 0 or n_neg == 0:
        auc = float("nan")
    else:
        # trapezoids in half-units, summed exactly in integers, divided once
        twice_area = int(np.sum((fp[1:] - fp[:-1]) * (tp[1:] + tp[:-1])))
        auc = twice_area / (2 * n_pos * n_neg)
    tpr = tp / n_pos if n_pos else np.zeros(tp.shape)
    fpr = fp / n_neg if n_neg else np.zeros(fp.shape)
    thresholds = np.concatenate(([np.inf], ranked[ends]))
    return r.result(auc, fpr.astype(np.float64), tpr.astype(np.float64), thresholds)


def plot_roc(
    result: RocResult,
    file: str | os.PathLike[str] | IO[bytes] | None = None,
    ax: Axes | None = None,
    *,
    color: str = "black",
    linestyle: str = "-",
    label: str | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (6.0, 6.0),
    dpi: float = 100.0,
) -> Axes:
    """Plot an ROC curve with matplotlib (R's ``plot.ROC = TRUE``).

    Parameters
    ----------
    result
        From :func:`roc_auc` or :func:`ROC_func`.
    file
        If given, the figure is written there (format from the extension, PNG by
        default for file objects). Without ``ax`` the figure is drawn on a fresh
        :class:`~matplotlib.figure.Figure` with the Agg canvas, so no GUI backend or
        ``pyplot`` state is involved; a PNG is ``figsize * dpi`` pixels.
    ax
        Axes to draw on (R's ``add_on = TRUE``: the curve is added, axis labels and title
        are left alone unless ``title`` is given). Without ``ax`` and ``file`` a new
        ``pyplot`` figure is made (for interactive use).
    color, linestyle
        Line style (R's ``color`` and ``lty``).
    label
        Legend text; default ``"AUC = <auc, 4 decimals>"``.
    title
        Default ``"ROC curve (n = <n>)"`` as in R.
    figsize, dpi
        Size of a new figure.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.
    """
    from .._optional import require

    require("plot", "plot_roc (drawing an ROC curve)")
    new_figure = ax is None
    if ax is None:
        if file is not None:
            from matplotlib.backends.backend_agg import FigureCanvasAgg
            from matplotlib.figure import Figure

            fig = Figure(figsize=figsize, dpi=dpi)
            FigureCanvasAgg(fig)
            ax = fig.add_subplot(1, 1, 1)
        else:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(figsize=figsize, dpi=dpi)
    ax.plot(
        result.fpr,
        result.tpr,
        color=color,
        linestyle=linestyle,
        label=label if label is not None else f"AUC = {result.auc:.4f}",
    )
    if new_figure:
        ax.set_xlabel("FPR")
        ax.set_ylabel("TPR")
        ax.set_title(title if title is not None else f"ROC curve (n = {result.n})")
    elif title is not None:
        ax.set_title(title)
    ax.legend(loc="lower right")
    if file is not None:
        save_kw: dict[str, Any] = {}
        if new_figure:
            save_kw["dpi"] = dpi
        if not isinstance(file, (str, os.PathLike)):
            save_kw["format"] = "png"
        ax.figure.savefig(file, **save_kw)
    return ax
