"""``murtree(formula, data)``: MurTree on a data frame through a formula."""

from __future__ import annotations

from typing import Any

import pandas as pd

from ..errors import PybsnsingValueError
from ..validation import check_binary
from .binarize import QuantileBinarizer, apply_binarizer
from .model import OptimalTreeModel
from .solver import murtree_fit

__all__ = ["murtree"]


def murtree(
    formula: str,
    data: pd.DataFrame,
    max_depth: int = 3,
    max_num_nodes: int | None = None,
    sparse_coefficient: float = 0.0,
    time_limit: float | None = 600,
    binarizer: Any = None,
) -> OptimalTreeModel:
    """Fit an optimal classification tree from ``formula`` and ``data``.

    The design matrix is built as bsnsing builds it
    (:func:`pybsnsing.design.build_design`: R's ``model.matrix`` with
    treatment contrasts and the intercept dropped, formulas read by
    :mod:`pybsnsing.formula`; missing
    numbers imputed with column medians; rows with a missing response
    dropped). Columns that are not 0/1 are then binarised: by default with
    :class:`~pybsnsing.optimal.binarize.QuantileBinarizer` (``x <= q`` at up
    to 5 quantiles per numeric column; factor dummies and other 0/1 columns
    stay as they are). Pass ``binarizer`` to replace it: an object with
    ``fit_transform``/``transform`` or a callable ``binarizer(df) -> DataFrame``
    of 0/1 columns, applied to the design matrix as a data frame (named
    columns). The tree is then fitted by :func:`murtree_fit` (see there for
    the other arguments).

    The returned model predicts data frames of the original predictors:
    ``model.predict(newdata)``.
    """
    from ..design import build_design

    design, y = build_design(formula, data)
    df = pd.DataFrame(design.X, columns=design.names, index=y.index)
    if binarizer is None:
        binarizer = QuantileBinarizer()
    Xb = apply_binarizer(binarizer, df, fit=True)
    if Xb.shape[1] == 0:
        raise PybsnsingValueError("the binarised design has no columns")
    check_binary(Xb, "the binarised design")
    model = murtree_fit(
        Xb,
        y,
        max_depth=max_depth,
        max_num_nodes=max_num_nodes,
        sparse_coefficient=sparse_coefficient,
        time_limit=time_limit,
    )
    model.formula = formula if isinstance(formula, str) else str(formula)
    model.design = design
    model.binarizer = binarizer
    return model
