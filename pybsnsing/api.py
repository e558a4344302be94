"""The front door: ``bsnsing(formula, data, **control)``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ._progress import check_progress, fit_progress
from .control import BsControl, resolve_control
from .design import Design, DesignWarning, build_design, class_priors, code_response
from .model import BsnsingModel, MBsnsingModel
from .weighted import grow_any_tree

__all__ = ["bsnsing"]


def call_text(formula: str, control: BsControl, given: dict[str, Any]) -> str:
    """The model's ``call`` as R writes it: ``bsnsing(formula = ..., data = data, ...)``
    with the control parameters the caller gave (their checked values)."""
    parts = [f"formula = {formula}", "data = data"]
    for key in given:
        value = getattr(control, key.replace(".", "_")) if hasattr(
            control, key.replace(".", "_")) else given[key]
        if isinstance(value, bool):
            text = "TRUE" if value else "FALSE"
        elif isinstance(value, str):
            text = f'"{value}"'
        else:
            text = str(value)
        parts.append(f"{key.replace('_', '.')} = {text}")
    return "bsnsing(" + ", ".join(parts) + ")"


def fit_binary(design: Design, y01: np.ndarray, ycode: list, control: BsControl,
               call: str, formula: str | None, progress=None,
               max_depth: int | None = None,
               sample_weight: np.ndarray | None = None) -> BsnsingModel:
    """Grow one two-class tree on a prepared design matrix (y coded 0/1; optional row
    weights, :mod:`pybsnsing.weighted`)."""
    nodes, node_size = grow_any_tree(design.X, design.names, y01, control, progress=progress,
                                 max_depth=max_depth, sample_weight=sample_weight)
    model = BsnsingModel(nodes=nodes, ycode=ycode, y=y01, control=control,
                         node_size=node_size, design=design, call=call, formula=formula)
    model.max_depth = max_depth
    #: the case weights (not saved with the model; cross-validated pruning reads them)
    model.sample_weight = sample_weight
    return model


def check_max_depth(max_depth: Any) -> int | None:
    """``max_depth`` must be None or a whole number >= 0."""
    from .errors import InvalidParameterError

    if max_depth is None:
        return None
    if isinstance(max_depth, (bool, np.bool_)) or not isinstance(max_depth, (int, np.integer)):
        raise InvalidParameterError(
            f"max_depth must be None or a whole number >= 0, got {max_depth!r}")
    if max_depth < 0:
        raise InvalidParameterError(f"max_depth must be >= 0, got {max_depth}")
    return int(max_depth)


def bsnsing(formula: str, data: pd.DataFrame, control: BsControl | dict | None = None,
            progress: bool = False, collation: str = "r", max_depth: int | None = None,
            sample_weight: Any = None, class_weight: Any = None,
            **control_kwargs: Any) -> BsnsingModel | MBsnsingModel:
    """Fit a bsnsing tree (R bsnsing 1.0.1's ``bsnsing(formula, data, ...)``).

    Args:
        formula: e.g. ``"Class ~ ."`` or ``"y ~ x1 + x2"`` (R's notation, read
            as data by :mod:`pybsnsing.formula`, never evaluated: ``.`` means
            every other column; any column name in backticks, ```petal length```;
            ``-`` removes a term; ``- 1`` drops the intercept; the transforms
            ``log()``, ``sqrt()``, ``exp()``, ``abs()``, ``round()``, ``sin()``, ...
            (:data:`pybsnsing.formula.FUNCTIONS`), ``I(a + b)``, ``a:b``, ``a*b`` of
            numeric columns).
        data: a pandas DataFrame (a Dask DataFrame is fitted on the current Dask client
            by :func:`pybsnsing.dask.bsnsing_dask`). Factors should be pandas Categoricals (their
            level order decides the dummy columns and the response coding, as
            in R); string columns act as factors with levels sorted as R
            sorts them (see ``collation``); ordered Categoricals get R's
            polynomial contrasts (``contr.poly``).
        control: a :class:`~pybsnsing.control.BsControl` (``bscontrol()``) or a dict.
        progress: ``True`` shows a progress bar (tqdm) on standard error: the
            nodes grown (two classes) or the class trees (three or more); it
            needs ``pip install "pybsnsing[progress]"``. ``"auto"``: a bar only
            where tqdm is importable, on a terminal, for fits longer than a
            second (the command line's default). ``False`` (default): none.
        collation: how the levels of string (object) columns, predictors and
            response, are sorted: ``"r"`` (default) as R's ``sort()`` in R's
            default UTF-8 locales (ICU collation: ``a < ab < Ab < B``), which
            decides the dummy columns and the class order as in R bsnsing;
            ``"codepoint"`` as R in the C locale (``B < a``).
            Categorical columns keep their own level order either way.
        max_depth: the deepest a leaf may be (root = 0); None (default): no limit,
            R bsnsing's growth. pybsnsing goes beyond R bsnsing here; see also
            ``model.prune(cp)`` (cost-complexity pruning).
        sample_weight: non-negative weight of each row of ``data`` (None: R bsnsing's
            unweighted tree). The search objective, binarization counts, stopping rules
            and the nodes' class, probability and share use weighted counts, and missing
            values are imputed with weighted medians; whole-number weights give the tree
            of the data with rows repeated (also with missing values). See
            :mod:`pybsnsing.weighted` (limits: ENUM solver only; rpart's questions with
            fractional weights).
        class_weight: ``"balanced"`` (scikit-learn's ``n / (K * count)``) or a dict
            ``{class label: weight}`` multiplying ``sample_weight``; None: 1.
        **control_kwargs: control parameters by Python or R name, e.g.
            ``max_rules=3`` or ``**{"import.external": False}``.

    Returns:
        A :class:`BsnsingModel` for two classes, an :class:`MBsnsingModel`
        (one tree per class against ``all.other``) for three or more.

    Raises:
        PybsnsingError: for bad input, with a message naming the problem (see
            :mod:`pybsnsing.errors`: ``FormulaError``, ``DataError``,
            ``InvalidParameterError``, ...; each is also the ``ValueError``,
            ``TypeError`` or ``KeyError`` callers expect).
    """
    if type(data).__module__.startswith("dask"):  # a Dask DataFrame: pybsnsing.dask
        return _fit_dask(formula, data, control, progress, collation, sample_weight,
                         class_weight, control_kwargs)
    progress = check_progress(progress)
    max_depth = check_max_depth(max_depth)
    ctrl = resolve_control(control, **control_kwargs)
    design, y = build_design(formula, data, collation=collation)
    response = code_response(y, collation=collation)
    call = call_text(formula, ctrl, control_kwargs)
    weights = _case_weights(data, design, y, response, sample_weight, class_weight)
    if response.n_classes == 2:
        with fit_progress(progress, 1) as bar:
            return fit_binary(design, response.codes, list(response.levels), ctrl, call,
                              formula, progress=bar, max_depth=max_depth,
                              sample_weight=weights)
    trees = _fit_class_trees(design, response, ctrl, call, formula, progress, max_depth,
                             weights)
    prior = _multiclass_prior(response, weights)
    return MBsnsingModel(trees=trees, ylevels=list(response.levels), yprior=prior, call=call,
                         formula=formula)


def _fit_dask(formula: str, data: Any, control: BsControl | dict | None, progress: Any,
              collation: str, sample_weight: Any, class_weight: Any,
              control_kwargs: dict[str, Any]) -> BsnsingModel | MBsnsingModel:
    """A Dask DataFrame: fitted by :func:`pybsnsing.dask.bsnsing_dask` (no case weights)."""
    if sample_weight is not None or class_weight is not None:
        from .errors import InvalidParameterError

        raise InvalidParameterError(
            "sample_weight and class_weight are not supported for Dask data frames")
    from .dask import bsnsing_dask

    return bsnsing_dask(formula, data, None, control, collation=collation,
                        verbose=progress is True, **control_kwargs)


def _case_weights(data: pd.DataFrame, design: Design, y: Any, response: Any,
                  sample_weight: Any, class_weight: Any) -> np.ndarray | None:
    """The rows' weights (``sample_weight`` times ``class_weight``) for the rows kept in
    ``design``, or None for R bsnsing's unweighted fit; with weights, the design's missing
    values are imputed with weighted medians (in place)."""
    if sample_weight is None and class_weight is None:
        return None
    from .weighted import check_sample_weight, impute_weighted_medians, resolve_weights

    sw = check_sample_weight(sample_weight, data.shape[0])
    if sw is not None and sw.shape[0] != y.shape[0]:  # rows with a missing response
        sw = sw[~np.asarray(pd.isna(data[design.response_name]), dtype=bool)]
    weights = resolve_weights(response.labels, response.levels, response.codes, sw,
                              class_weight)
    if weights is not None:  # missing values: the weighted medians
        impute_weighted_medians(design, weights)
    return weights


def _fit_class_trees(design: Design, response: Any, ctrl: BsControl, call: str,
                     formula: str, progress: Any, max_depth: int | None,
                     weights: np.ndarray | None) -> list[BsnsingModel]:
    """Three or more classes: one two-class tree per class against ``all.other``."""
    trees = []
    levels = response.levels
    with fit_progress(progress, len(levels)) as bar:
        for k in range(len(levels)):
            y01 = (response.codes == k).astype(np.int64)
            trees.append(fit_binary(design, y01, ["all.other", levels[k]], ctrl, call,
                                    formula, progress=bar, max_depth=max_depth,
                                    sample_weight=weights))
            if bar is not None:
                bar.tree_done()
    return trees


def _multiclass_prior(response: Any, weights: np.ndarray | None) -> np.ndarray:
    """The classes' priors as R bsnsing computes them (a warning where R's numeric-response
    quirk Q11 changes them), or with weights each class's share of the total weight.

    Called from :func:`bsnsing` only: the warning names the caller of :func:`bsnsing`."""
    levels = response.levels
    prior, changed = class_priors(response)
    if weights is not None:  # with weights: each class's share of the total weight
        prior = np.bincount(response.codes, weights=weights,
                            minlength=len(levels)) / float(weights.sum())
        changed = []
    if changed:
        warnings.warn(
            "class priors computed as R bsnsing 1.0.1 computes them for a numeric response "
            f"(by position, quirk Q11): the classes {changed} get the prior "
            f"{[float(prior[levels.index(c)]) for c in changed]} instead of their share of "
            "the rows. Make the response a factor (pandas Categorical) for priors by class.",
            DesignWarning,
            stacklevel=3,
        )
    return prior
