"""A scikit-learn estimator: :class:`BsnsingClassifier`.

``BsnsingClassifier`` wraps :func:`pybsnsing.bsnsing` so that a bsnsing tree
can be used wherever scikit-learn expects a classifier (``Pipeline``,
``GridSearchCV``, ``cross_val_score``, ...)::

    from pybsnsing.sklearn import BsnsingClassifier
    clf = BsnsingClassifier(max_rules=3).fit(X, y)
    clf.predict_proba(X_new)
    print(clf.model_.summary())      # the fitted R-style model

How the data reach bsnsing:

* ``X`` a pandas DataFrame: fitted as ``bsnsing("y ~ .", frame)`` on its
  columns, so categorical and string columns become R-style dummy columns and
  boolean columns ``<name>TRUE`` (see :mod:`pybsnsing.design`). Column names
  that R could not use (``"petal length (cm)"``) are passed through R's
  ``make.names`` (``"petal.length..cm."``); ``model_feature_names_`` holds
  the names the tree's rules use. Non-string column names count as absent.
* ``X`` anything else (ndarray, list): converted to a float array; its
  columns are named ``X1 .. Xp``, as R's ``data.frame`` of a matrix names
  them.
* ``y``: any class labels. ``classes_`` is ``np.unique(y)``; the labels are
  given to bsnsing as a factor with those levels, so for two classes
  ``classes_[1]`` is the class coded 1 and ``model_`` is a
  :class:`~pybsnsing.BsnsingModel`; three or more classes give an
  :class:`~pybsnsing.MBsnsingModel` (one tree per class).

Predictions follow R bsnsing: ``predict_proba`` gives, for two classes, the
leaf's share of ``classes_[1]`` in column 1; ``predict`` gives the leaf's
majority class, ``classes_[1]`` on a tie (R's ``n1 >= n0``), so on an exact
0.5 tie ``predict`` and ``argmax(predict_proba)`` differ. For three or more
classes, the class trees' probabilities times the class priors, normalised
(R's ``predict.mbsnsing``); ``predict`` is the first maximum.

Missing values: allowed. At fit time a missing value is replaced by its
column's training median (as R bsnsing does). At predict time, as in R, a
question on a missing value is FALSE (the row goes right unless another
question of the OR-rule is TRUE), and an unseen factor level counts as
missing; both are reported with a warning, never an error.

bsnsing is deterministic: there is no ``random_state``.
"""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import numpy as np
import pandas as pd

from ._optional import require

require("sklearn", "pybsnsing.sklearn (the scikit-learn estimator BsnsingClassifier)")

from sklearn.base import BaseEstimator, ClassifierMixin  # noqa: E402
from sklearn.utils.multiclass import check_classification_targets  # noqa: E402
from sklearn.utils.validation import (  # noqa: E402
    check_array,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
)

from .errors import MissingValuesWarning, PybsnsingValueError, input_errors  # noqa: E402
from .inspection import EstimatorAccessors  # noqa: E402

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _sk_validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    _sk_validate_data = None

from .control import BsControl  # noqa: E402

__all__ = ["BsnsingClassifier", "MissingValuesWarning"]

#: parameters that are not R's control parameters: the size of the tree (pybsnsing only)
_TREE_SIZE_PARAMS = ("max_depth", "ccp_alpha", "class_weight")

#: check_array's keyword for finiteness: renamed in scikit-learn 1.6, the old name removed in 1.8.
_FINITE_KW = ("ensure_all_finite"
              if "ensure_all_finite" in inspect.signature(check_array).parameters
              else "force_all_finite")



def _validate(est: BaseEstimator, X: Any, y: Any = "no_validation", **kwargs: Any) -> Any:
    """scikit-learn's ``validate_data`` (>= 1.6) or ``BaseEstimator._validate_data``."""
    if not kwargs.get("skip_check_array"):  # NaN is missing, +-Inf a value (as in R)
        kwargs[_FINITE_KW] = False
    if _sk_validate_data is not None:
        return _sk_validate_data(est, X, y, **kwargs)
    # pragma: no cover - scikit-learn < 1.6, where the flag is named cast_to_ndarray
    if kwargs.pop("skip_check_array", False):
        kwargs["cast_to_ndarray"] = False
    return est._validate_data(X, y, **kwargs)


def _response_name(columns: list[str]) -> str:
    name = "y"
    taken = set(columns)
    while name in taken:
        name += "_"
    return name


class BsnsingClassifier(EstimatorAccessors, ClassifierMixin, BaseEstimator):
    """bsnsing classification tree (R bsnsing 1.0.1) as a scikit-learn classifier.

    The parameters are those of :class:`pybsnsing.control.BsControl` (R's
    ``bscontrol``), with the same names and defaults; they are checked (and
    out-of-range values corrected with a warning, as R does) at ``fit``.

    (The mixin comes before ``BaseEstimator``, as scikit-learn requires.)

    Parameters:
        bin_size: a factor level with fewer rows at a node joins the "small
            levels" question.
        nseg_numeric: most inequality cuts kept per direction per numeric variable.
        nseg_factor: a factor with more distinct values at a node is an error.
        num2factor: a numeric column with at most this many distinct values at
            a node also gets equality questions.
        node_size: minimum rows on each side of a split; 0 means
            ``floor(sqrt(n_train))``.
        stop_prob: a child whose majority share is at least this is a leaf.
        opt_model: ``"gini"`` (``"error"`` is accepted and ignored, as in R).
        opt_solver: ``"enum_c"``, ``"enum"`` or ``"enum_py"``.
        solver_timelimit: CPU seconds for one split search.
        max_rules: most questions OR-ed in one split rule (1 to 10).
        import_external: add rpart's split points as questions (``True``,
            ``"rpart"``, ``"r"`` or ``False``).
        suppress_internal: use only the external questions.
        no_same_gender_children: only accept splits whose children have
            different majority classes.
        greedy_level, n0n1_cap: unused, kept for R compatibility.
        verbose: print a trace while growing.
        keep_perfect_separation: keep the rule of a numeric variable that
            separates the classes perfectly at a node (R drops it).
        max_depth: the deepest a leaf may be (root = 0); None: no limit (R bsnsing).
        ccp_alpha: cost-complexity pruning, scikit-learn's scale: the cost of a leaf
            in training misclassification rate; the tree is pruned to the subtree
            minimising ``errors / n + ccp_alpha * leaves`` (:mod:`pybsnsing.prune`;
            ``model_.prune(cp)`` with ``cp = ccp_alpha * n / root errors``). 0: no
            pruning. GridSearchCV can select it.
        class_weight: None, ``"balanced"`` (``n / (n_classes * count)``) or a dict
            ``{class label: weight}``; multiplies ``fit``'s ``sample_weight`` (see
            :mod:`pybsnsing.weighted`).

    Attributes:
        model_: the fitted :class:`~pybsnsing.BsnsingModel` (two classes) or
            :class:`~pybsnsing.MBsnsingModel`.
        classes_: the class labels (sorted).
        n_features_in_: number of columns of ``X``.
        feature_names_in_: the column names of a DataFrame ``X`` (when all are strings).
        model_feature_names_: the names of the data columns as the model's
            rules use them (``X1 .. Xp`` for an array).
    """

    def __init__(
        self,
        *,
        bin_size: int = 5,
        nseg_numeric: int = 20,
        nseg_factor: int = 20,
        num2factor: int = 10,
        node_size: int = 0,
        stop_prob: float = 0.9999,
        opt_model: str = "gini",
        opt_solver: str = "enum_c",
        solver_timelimit: float = 180.0,
        max_rules: int = 2,
        import_external: bool | str = True,
        suppress_internal: bool = False,
        no_same_gender_children: bool = False,
        greedy_level: float = 0.9,
        n0n1_cap: int = 40000,
        verbose: bool = False,
        keep_perfect_separation: bool = False,
        max_depth: int | None = None,
        ccp_alpha: float = 0.0,
        class_weight: dict | str | None = None,
    ) -> None:
        self.bin_size = bin_size
        self.nseg_numeric = nseg_numeric
        self.nseg_factor = nseg_factor
        self.num2factor = num2factor
        self.node_size = node_size
        self.stop_prob = stop_prob
        self.opt_model = opt_model
        self.opt_solver = opt_solver
        self.solver_timelimit = solver_timelimit
        self.max_rules = max_rules
        self.import_external = import_external
        self.suppress_internal = suppress_internal
        self.no_same_gender_children = no_same_gender_children
        self.greedy_level = greedy_level
        self.n0n1_cap = n0n1_cap
        self.verbose = verbose
        self.keep_perfect_separation = keep_perfect_separation
        self.max_depth = max_depth
        self.ccp_alpha = ccp_alpha
        self.class_weight = class_weight

    # ------------------------------------------------------------------ tags
    def __sklearn_tags__(self):  # scikit-learn >= 1.6
        tags = super().__sklearn_tags__()
        # Missing values are handled as R bsnsing does (medians at fit,
        # FALSE questions at predict). The `categorical` tag stays False:
        # categorical input is supported through pandas DataFrames only, and
        # the tag would make the common checks round X to integers.
        tags.input_tags.allow_nan = True
        return tags

    def _more_tags(self) -> dict[str, Any]:  # scikit-learn < 1.6
        return {"allow_nan": True}

    # --------------------------------------------------------------- helpers
    def control(self) -> BsControl:
        """The :class:`BsControl` of the current parameters (validated)."""
        return BsControl(**{name: getattr(self, name) for name in self._get_param_names()
                            if name not in _TREE_SIZE_PARAMS})

    def _frame(self, X: Any, *, fit: bool, y: Any = None) -> tuple[pd.DataFrame, Any]:
        """Validate ``X`` (and ``y`` when fitting); return the data frame bsnsing sees."""
        is_frame = isinstance(X, pd.DataFrame)
        yv = None
        if is_frame:
            # scikit-learn checks the names and the number of columns only:
            # converting a frame with categorical (or mixed) columns to one
            # array would fail or lose the column types bsnsing needs.
            if fit:
                _validate(self, X, y, reset=True, skip_check_array=True)
                yv = column_or_1d(y, warn=True)
                check_consistent_length(X, yv)
                if yv.dtype.kind in "fc" and not np.isfinite(yv).all():
                    raise PybsnsingValueError("Input y contains NaN or infinity.")
            else:
                _validate(self, X, reset=False, skip_check_array=True)
            if X.shape[0] < 1:
                raise PybsnsingValueError(f"Found array with 0 sample(s) (shape={X.shape}) while a "
                                 "minimum of 1 is required.")
            if X.shape[1] < 1:
                raise PybsnsingValueError(
                    f"Found array with 0 feature(s) (shape={X.shape}) while a "
                    "minimum of 1 is required.")
            frame = X.reset_index(drop=True).copy()
        else:
            # an array: numbers, unless the model was fitted on a frame (whose
            # factor columns may come back as an object array)
            keep_types = not fit and getattr(self, "_fitted_on_frame", False)
            dtype = None if keep_types else np.float64
            if fit:
                Xv, yv = _validate(self, X, y, reset=True, dtype=dtype)
            else:
                Xv = _validate(self, X, reset=False, dtype=dtype)
            frame = pd.DataFrame(np.asarray(Xv))
        if fit:
            from .rnames import make_names

            if hasattr(self, "feature_names_in_"):
                names = make_names([str(c) for c in self.feature_names_in_])
            else:
                names = [f"X{j + 1}" for j in range(frame.shape[1])]
            self.model_feature_names_ = np.asarray(names, dtype=object)
            self._fitted_on_frame = is_frame
        frame.columns = list(self.model_feature_names_)
        return frame, yv

    # ------------------------------------------------------------------- API
    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> BsnsingClassifier:
        """Fit a bsnsing tree (one per class for three or more classes).

        Args:
            X: array-like or DataFrame, n_samples x n_features; missing values allowed.
            y: class labels, n_samples.
            sample_weight: non-negative weight of each sample (None: unweighted, R
                bsnsing's tree); see :mod:`pybsnsing.weighted`.

        Returns:
            self.
        """
        from .api import bsnsing

        control = self.control()
        with input_errors():
            frame, yv = self._frame(X, fit=True, y=y)
            check_classification_targets(yv)
            classes, codes = np.unique(yv, return_inverse=True)
        if classes.size < 2:
            raise PybsnsingValueError(
                "Classifier can't train when only one class is present "
                f"(got the single class {classes[0]!r}); bsnsing needs at least two classes."
            )
        self.classes_ = classes
        response = _response_name(list(frame.columns))
        frame[response] = pd.Categorical.from_codes(np.asarray(codes).ravel(),
                                                    categories=pd.Index(classes, dtype=object))
        self.model_ = bsnsing(f"{response} ~ .", frame, control=control,
                              max_depth=self.max_depth, sample_weight=sample_weight,
                              class_weight=self.class_weight)
        if self.ccp_alpha != 0:
            from .prune import prune_alpha

            self.model_ = prune_alpha(self.model_, self.ccp_alpha)
        return self

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, n_samples x n_classes, columns in ``classes_`` order."""
        check_is_fitted(self)
        with input_errors():
            frame, _ = self._frame(X, fit=False)
        if frame.isna().to_numpy().any():
            warnings.warn(
                "X has missing values; as in R bsnsing, a question on a missing value is "
                "FALSE, so such rows go to the right child unless another question of the "
                "split rule is TRUE",
                MissingValuesWarning,
                stacklevel=2,
            )
        if self.classes_.size == 2:
            p1 = np.asarray(self.model_.predict(frame, type="prob"), dtype=np.float64)
            return np.column_stack([1.0 - p1, p1])
        return np.asarray(self.model_.predict(frame, type="prob"), dtype=np.float64)

    def predict(self, X: Any) -> np.ndarray:
        """Predicted classes (labels from ``classes_``)."""
        proba = self.predict_proba(X)
        if self.classes_.size == 2:
            # the leaf's class is 1 iff n1 >= n0, i.e. iff n1 / nobs >= 0.5 (exactly)
            return self.classes_[(proba[:, 1] >= 0.5).astype(np.intp)]
        return self.classes_[np.argmax(proba, axis=1)]
