"""Binarisation of a design matrix for the optimal-tree solvers.

MurTree needs 0/1 features. :func:`pybsnsing.optimal.murtree` builds the design
matrix of a formula and then binarises every column that is not already 0/1
with a :class:`QuantileBinarizer` (the default) or with a user-supplied
binarizer.

A binarizer is either

* an object with ``fit_transform(df)`` and ``transform(df)`` (like
  :class:`QuantileBinarizer`): fitted on the training design, reapplied to the
  design of new data at prediction time; or
* a plain callable ``binarizer(df) -> DataFrame of 0/1 columns``: called on
  the training design and again on the design of new data (so it should be
  stateless, e.g. fixed cut points).

Either way the result must hold only 0/1 (or boolean) values and, at
prediction time, the same column names as in training.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..errors import PybsnsingKeyError, PybsnsingTypeError, PybsnsingValueError

__all__ = ["QuantileBinarizer", "apply_binarizer", "is_binary_column"]


def is_binary_column(values: np.ndarray) -> bool:
    """True when every (non-missing) value is 0 or 1."""
    v = np.asarray(values, dtype=float)
    v = v[~np.isnan(v)]
    return bool(np.all((v == 0.0) | (v == 1.0)))


def _fmt(q: float) -> str:
    return f"{q:.6g}"


class QuantileBinarizer:
    """Threshold features ``x <= q`` at up to ``n_thresholds`` quantiles per column.

    Columns that are already 0/1 (factor dummies, logicals, binary numbers) are
    kept as they are. For every other numeric column the candidate thresholds
    are the training quantiles at probabilities ``i / (n_thresholds + 1)``,
    ``i = 1 .. n_thresholds`` (taken as observed values, numpy's ``"lower"``
    method), without duplicates and without the column maximum (a threshold
    there would not split); a column with at most ``n_thresholds + 1`` distinct
    values gets every distinct value but the largest. Each threshold ``q``
    becomes a 0/1 column named ``"{column}<={q}"`` that is 1 where ``x <= q``
    (a missing value gives 0).

    Args:
        n_thresholds: the most thresholds per numeric column (>= 1).
    """

    def __init__(self, n_thresholds: int = 5) -> None:
        if isinstance(n_thresholds, bool) or not isinstance(n_thresholds, (int, np.integer)):
            raise PybsnsingTypeError("n_thresholds must be an integer")
        if n_thresholds < 1:
            raise PybsnsingValueError("n_thresholds must be at least 1")
        self.n_thresholds = int(n_thresholds)
        self.thresholds_: dict[str, list[float]] | None = None
        self.columns_: list[str] | None = None

    def __repr__(self) -> str:
        return f"QuantileBinarizer(n_thresholds={self.n_thresholds})"

    def fit(self, df: pd.DataFrame) -> QuantileBinarizer:
        """Learn the thresholds of each non-binary column of ``df``."""
        thresholds: dict[str, list[float]] = {}
        for col in df.columns:
            x = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            if is_binary_column(x):
                continue
            x = x[~np.isnan(x)]
            if x.size == 0:
                thresholds[str(col)] = []
                continue
            distinct = np.unique(x)
            if distinct.size <= self.n_thresholds + 1:
                qs = distinct[:-1]
            else:
                probs = np.arange(1, self.n_thresholds + 1) / (self.n_thresholds + 1)
                qs = np.unique(np.quantile(x, probs, method="lower"))
                qs = qs[qs < distinct[-1]]
            thresholds[str(col)] = [float(q) for q in qs]
        self.thresholds_ = thresholds
        self.columns_ = [str(c) for c in df.columns]
        return self

    def transform(self, df: pd.DataFrame) -> pd.DataFrame:
        """The 0/1 design of ``df`` with the learned thresholds."""
        if self.thresholds_ is None or self.columns_ is None:
            raise RuntimeError("QuantileBinarizer is not fitted")
        out: dict[str, np.ndarray] = {}
        for col in self.columns_:
            if col not in df.columns:
                raise PybsnsingKeyError(f"column {col!r} missing from the data to binarise")
            x = pd.to_numeric(df[col], errors="coerce").to_numpy(dtype=float, na_value=np.nan)
            if col in self.thresholds_:
                for q in self.thresholds_[col]:
                    with np.errstate(invalid="ignore"):
                        out[f"{col}<={_fmt(q)}"] = (x <= q).astype(np.uint8)
            else:
                out[col] = np.where(np.isnan(x), 0, x).astype(np.uint8)
        return pd.DataFrame(out, index=df.index)

    def fit_transform(self, df: pd.DataFrame) -> pd.DataFrame:
        return self.fit(df).transform(df)

    __call__ = fit_transform

    def to_dict(self) -> dict:
        return {
            "kind": "quantile",
            "n_thresholds": self.n_thresholds,
            "thresholds": self.thresholds_,
            "columns": self.columns_,
        }

    @classmethod
    def from_dict(cls, d: dict) -> QuantileBinarizer:
        b = cls(int(d["n_thresholds"]))
        b.thresholds_ = (
            None if d["thresholds"] is None
            else {k: [float(q) for q in v] for k, v in d["thresholds"].items()}
        )
        b.columns_ = None if d["columns"] is None else list(d["columns"])
        return b


def apply_binarizer(binarizer, df: pd.DataFrame, fit: bool) -> pd.DataFrame:
    """Run a binarizer (object or callable) on ``df`` and check its output."""
    if fit and hasattr(binarizer, "fit_transform"):
        out = binarizer.fit_transform(df)
    elif not fit and hasattr(binarizer, "transform"):
        out = binarizer.transform(df)
    elif callable(binarizer):
        out = binarizer(df)
    else:
        raise PybsnsingTypeError(
        "binarizer must be callable or have fit_transform/transform methods")
    if isinstance(out, np.ndarray):
        out = pd.DataFrame(out, index=df.index, columns=[f"b{j}" for j in range(out.shape[1])])
    if not isinstance(out, pd.DataFrame):
        raise PybsnsingTypeError(
            f"the binarizer must return a DataFrame of 0/1 columns, not {type(out).__name__}"
        )
    if len(out) != len(df):
        raise PybsnsingValueError(
            f"the binarizer returned {len(out)} rows for {len(df)} rows of input"
        )
    return out
