"""The fitted optimal classification tree: :class:`OptimalTreeModel`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..errors import PybsnsingKeyError, PybsnsingValueError
from ..inspection import OptimalTreeAccessors
from ..validation import check_binary

__all__ = ["OptimalTreeModel", "OptimalTreeNode"]

_FORMAT = "pybsnsing.OptimalTreeModel"


@dataclass
class OptimalTreeNode:
    """One node of an optimal tree.

    Attributes:
        id: position in ``OptimalTreeModel.nodes`` (the root is 0; pre-order).
        depth: 0 for the root.
        feature: index of the binary feature tested (-1 for a leaf). Rows with
            the feature = 0 go to ``left``, rows with the feature = 1 to ``right``.
        feature_name: the name of that feature (None for a leaf).
        left, right: ids of the children (-1 for a leaf).
        counts: training rows of each class (in ``classes_`` order) in the node.
        prediction: index into ``classes_`` of the majority class (ties to the
            first class).
    """

    id: int
    depth: int
    feature: int
    feature_name: str | None
    left: int
    right: int
    counts: np.ndarray
    prediction: int

    @property
    def is_leaf(self) -> bool:
        return self.feature < 0

    @property
    def n(self) -> int:
        return int(self.counts.sum())

    @property
    def errors(self) -> int:
        """Training rows of the node that are not of its predicted class."""
        return int(self.counts.sum() - self.counts[self.prediction])


@dataclass(frozen=True)
class _ViewNode:
    """A node of :meth:`OptimalTreeModel.tree_view` (the exporters' record shape)."""

    number: int
    lchild: int
    rchild: int
    node_class: int
    n1: int
    n0: int
    split_rule: str
    counts: tuple[int, ...] = ()


@dataclass(frozen=True)
class _TreeView:
    """:meth:`OptimalTreeModel.tree_view`: ``nodes`` and the class labels ``ycode``."""

    nodes: list[_ViewNode]
    ycode: list[Any]


def _py(v: Any) -> Any:
    """A JSON-ready Python scalar."""
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclass
class OptimalTreeModel(OptimalTreeAccessors):
    """A classification tree found by the MurTree solver.

    Attributes:
        nodes: the nodes in pre-order (root first, then the left subtree).
        classes_: the class labels; counts and probabilities use this order.
        feature_names: names of the binary features the tree was fitted on.
        objective: training misclassifications of the tree.
        optimal: True when the search proved the tree optimal, False when the
            time limit stopped it (the tree is then the best one found).
        runtime: seconds spent in the fit.
        max_depth, max_num_nodes, sparse_coefficient, time_limit: the settings.
        n_samples: training rows.
        stats: search statistics (cache entries, depth-two solver runs, ...).
        formula, design, binarizer: set by :func:`pybsnsing.optimal.murtree`
            to turn new data frames into the binary features.
    """

    nodes: list[OptimalTreeNode]
    classes_: np.ndarray
    feature_names: list[str]
    objective: int
    optimal: bool
    runtime: float
    max_depth: int
    max_num_nodes: int | None
    sparse_coefficient: float = 0.0
    time_limit: float = 600.0
    n_samples: int = 0
    stats: dict = field(default_factory=dict)
    formula: str | None = None
    design: Any = None
    binarizer: Any = None

    # ------------------------------------------------------------ properties
    @property
    def depth(self) -> int:
        """Depth of the tree (0 for a single leaf)."""
        return max((nd.depth for nd in self.nodes), default=0)

    @property
    def num_nodes(self) -> int:
        """Feature (branching) nodes."""
        return sum(not nd.is_leaf for nd in self.nodes)

    @property
    def n_leaves(self) -> int:
        return sum(nd.is_leaf for nd in self.nodes)

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def accuracy(self) -> float:
        """Training accuracy."""
        return 1.0 - self.objective / self.n_samples if self.n_samples else float("nan")

    @property
    def sparse_objective(self) -> float:
        """``objective + sparse_coefficient * n_samples * num_nodes`` (what was minimised)."""
        return self.objective + self.sparse_coefficient * self.n_samples * self.num_nodes

    @property
    def leaves(self) -> list[OptimalTreeNode]:
        return [nd for nd in self.nodes if nd.is_leaf]

    def confusion_matrix(self) -> pd.DataFrame:
        """Training counts: fitted class (rows) by actual class (columns)."""
        k = len(self.classes_)
        cm = np.zeros((k, k), dtype=np.int64)
        for nd in self.leaves:
            cm[nd.prediction] += nd.counts
        labels = [str(c) for c in self.classes_]
        return pd.DataFrame(
            cm,
            index=pd.Index(labels, name="fitted"),
            columns=pd.Index(labels, name="actual"),
        )

    # --------------------------------------------------------------- predict
    def _design_frame(self, X: pd.DataFrame) -> pd.DataFrame:
        """The design columns of new data (before binarising), a missing number
        imputed with its training median."""
        from ..design import design_for_newdata

        D = design_for_newdata(self.design, X)
        med = np.asarray(self.design.medians, dtype=float)
        for j in range(D.shape[1]):
            miss = np.isnan(D[:, j])
            if miss.any() and not np.isnan(med[j]):
                D[miss, j] = med[j]
        return pd.DataFrame(D, columns=self.design.names, index=X.index)

    def _feature_frame(self, X: pd.DataFrame, need_binarizer: bool) -> pd.DataFrame:
        """The feature columns of a data frame of new data.  A frame of the original
        predictors instead is turned into the design matrix (:meth:`_design_frame`) and
        binarised as in training when the model has a binarizer; without one, it is an
        error when the features come from a binarizer (``need_binarizer``)."""
        if self.design is not None and not set(self.feature_names) <= set(X.columns):
            from .binarize import apply_binarizer

            X = self._design_frame(X)
            if self.binarizer is not None:
                X = apply_binarizer(self.binarizer, X, fit=False)
            elif need_binarizer:
                raise PybsnsingValueError(
                    "this model has no binarizer (a custom binarizer is not saved by "
                    "to_dict); pass the binary feature columns instead"
                )
        missing = [c for c in self.feature_names if c not in X.columns]
        if missing:
            raise PybsnsingKeyError(f"the data lack the feature columns {missing[:10]}")
        return X[self.feature_names]

    def _input_matrix(self, X: Any) -> np.ndarray:
        """The 0/1 feature matrix of new data (array or data frame)."""
        if isinstance(X, pd.DataFrame):
            X = self._feature_frame(X, need_binarizer=True)
        Xb = check_binary(X, "X")
        if Xb.shape[1] != self.n_features:
            raise PybsnsingValueError(
                f"X has {Xb.shape[1]} columns; the tree was fitted on {self.n_features}"
            )
        return Xb

    def _goes_left(self, nd: OptimalTreeNode, A: np.ndarray, here: np.ndarray) -> np.ndarray:
        """Which of the rows ``here`` of the input matrix ``A`` (:meth:`_input_matrix`)
        the split node ``nd`` sends to its left child: feature 0."""
        return A[here, nd.feature] != 1

    def apply(self, X: Any) -> np.ndarray:
        """Id of the leaf each row of ``X`` falls into."""
        A = self._input_matrix(X)
        at = np.zeros(A.shape[0], dtype=np.int64)
        for nd in self.nodes:  # pre-order: a parent comes before its children
            if nd.is_leaf:
                continue
            here = at == nd.id
            if not here.any():
                continue
            at[here] = np.where(self._goes_left(nd, A, here), nd.left, nd.right)
        return at

    def predict(self, X: Any, type: str = "class") -> np.ndarray:
        """Predict new data.

        Args:
            X: a 0/1 array (n x n_features) or a data frame holding the feature
                columns; for a model from :func:`pybsnsing.optimal.murtree`
                also a data frame of the original predictors (the design matrix
                is built and binarised as in training, missing numbers imputed
                with the training medians).
            type: ``"class"`` for the predicted labels, ``"prob"`` for a
                (n x n_classes) array of the training class proportions of the
                leaf of each row (columns in ``classes_`` order).
        """
        if type not in ("class", "prob"):
            raise PybsnsingValueError(f"type must be 'class' or 'prob', not {type!r}")
        leaf = self.apply(X)
        if type == "class":
            pred = np.array([nd.prediction for nd in self.nodes], dtype=np.int64)
            return np.asarray(self.classes_)[pred[leaf]]
        probs = np.array([nd.counts / max(nd.n, 1) for nd in self.nodes], dtype=float)
        return probs[leaf]

    # ------------------------------------------------------------------ text
    @staticmethod
    def _condition(parent: OptimalTreeNode, right: bool) -> str:
        """Text of a branch: ``x <= q`` / ``x > q`` for threshold features, else ``f = 1/0``."""
        name = str(parent.feature_name)
        var, sep, q = name.rpartition("<=")
        if sep and var and q:
            return f"{var} <= {q}" if right else f"{var} > {q}"
        return f"{name} = {1 if right else 0}"

    def tree_lines(self) -> list[str]:
        """The tree as rpart prints it: ``node), condition, n, errors, class (proportions)``."""
        if not self.nodes:
            return []
        lines: list[str] = []

        def fmt(nd: OptimalTreeNode, number: int, cond: str) -> None:
            probs = " ".join(f"{p:.3f}" for p in nd.counts / max(nd.n, 1))
            star = " *" if nd.is_leaf else ""
            lines.append(
                f"{'  ' * nd.depth}{number}) {cond} {nd.n} {nd.errors} "
                f"{self.classes_[nd.prediction]} ({probs}){star}"
            )
            if not nd.is_leaf:
                fmt(self.nodes[nd.left], 2 * number, self._condition(nd, False))
                fmt(self.nodes[nd.right], 2 * number + 1, self._condition(nd, True))

        fmt(self.nodes[0], 1, "root")
        return lines

    # ------------------------------------------------------------------ drawing
    def tree_view(self) -> _TreeView:
        """The tree in the shape the exporters draw (:mod:`pybsnsing.export.view`): node
        records with ``number`` (the node id), ``lchild``/``rchild``, ``node_class`` (the
        prediction), ``n1``/``n0`` (rows of ``classes_[1]`` / ``classes_[0]``) and
        ``split_rule``, the condition of the LEFT branch (the drawing's left child holds
        the rows where the rule is true: feature = 0, i.e. ``x > q`` for a threshold
        feature ``x<=q``), and ``ycode`` = the class labels. With three or more classes
        each record also has ``counts``, the rows of every class in ``classes_`` order
        (``n0`` is then the rows of ``classes_[0]`` and ``n1`` the others).
        """
        multi = len(self.classes_) > 2
        nodes = []
        for nd in self.nodes:
            counts = tuple(int(c) for c in nd.counts)
            nodes.append(_ViewNode(
                number=nd.id, lchild=nd.left, rchild=nd.right, node_class=int(nd.prediction),
                n1=sum(counts[1:]), n0=counts[0],
                split_rule="" if nd.is_leaf else self._condition(nd, False),
                counts=counts if multi else ()))
        return _TreeView(nodes=nodes, ycode=list(self.classes_))

    def plot(self, file: str | Path | None = None, **kwargs: Any) -> Any:
        """Draw the tree with pybsnsing's tree drawing
        (:func:`pybsnsing.export.plot.plot_tree`, same options: ``ax``, ``figsize``,
        ``class_colors``, ``max_depth``, ...); needs matplotlib. Each box shows the node's
        rows ``n = N (n0 / n1 / ...)`` by class (in ``classes_`` order; also as a bar in
        the class colours), the branch condition of its left child, and for a leaf the
        predicted class and its share. Any number of classes (from three on, the default
        colours go on past ``class_colors``' two; give one colour per class otherwise).

        Returns:
            the matplotlib Figure.
        """
        from ..export.plot import plot_tree

        return plot_tree(self.tree_view(), file, **kwargs)

    def _headline(self) -> str:
        status = "optimal" if self.optimal else "not proven optimal (time limit)"
        return (
            f"Optimal classification tree (MurTree): depth {self.depth}, "
            f"{self.num_nodes} feature nodes, {self.n_leaves} leaves; "
            f"{self.objective} of {self.n_samples} training rows misclassified ({status})"
        )

    def __str__(self) -> str:
        lines = [
            self._headline(),
            "node), condition, n, errors, class (class proportions); * a leaf",
            "",
        ]
        lines.extend(self.tree_lines())
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (
            f"<OptimalTreeModel: depth {self.depth}, {self.num_nodes} nodes, "
            f"objective {self.objective}, optimal={self.optimal}>"
        )

    def summary(self) -> str:
        """A text report: settings, objective, accuracy, search statistics, tree."""
        limit = "none" if self.max_num_nodes is None else str(self.max_num_nodes)
        lines = [self._headline(), ""]
        if self.formula is not None:
            lines.append(f"Formula: {self.formula}")
        lines += [
            f"Settings: max_depth = {self.max_depth}, max_num_nodes = {limit}, "
            f"sparse_coefficient = {self.sparse_coefficient:g}, "
            f"time_limit = {self.time_limit:g} s",
            f"Data: {self.n_samples} rows, {self.n_features} binary features, "
            f"{len(self.classes_)} classes",
            f"Misclassifications: {self.objective} (training accuracy {self.accuracy:.4f})",
        ]
        if self.sparse_coefficient > 0:
            lines.append(
                f"Sparse objective: {self.sparse_objective:.6g} = misclassifications + "
                f"{self.sparse_coefficient:g} * {self.n_samples} * nodes"
            )
        lines.append(
            f"Optimal: {'yes' if self.optimal else 'no (time limit reached; best tree found)'}"
            f"; runtime {self.runtime:.3f} s"
        )
        if self.stats:
            lines.append(
                "Search: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in self.stats.items())
            )
        return "\n".join(lines + self._summary_tail())

    def _summary_tail(self) -> list[str]:
        """The end of :meth:`summary`: the training confusion matrix and the tree."""
        lines = ["", "Confusion matrix (training):"]
        lines += self.confusion_matrix().to_string().splitlines()
        lines += ["", "Tree:", "node), condition, n, errors, class (class proportions); * a leaf"]
        return lines + self.tree_lines()

    # ----------------------------------------------------------- persistence
    def to_dict(self) -> dict:
        """A JSON-ready description of the model (see :meth:`from_dict`).

        A formula model keeps its design; its binarizer is kept when it is the
        default :class:`~pybsnsing.optimal.binarize.QuantileBinarizer` (a custom
        one is not serialisable and is stored as None).
        """
        from .binarize import QuantileBinarizer

        out: dict[str, Any] = {
            "format": _FORMAT,
            "version": 1,
            "classes": [_py(c) for c in self.classes_],
            "feature_names": list(self.feature_names),
            "nodes": [
                {
                    "id": nd.id,
                    "depth": nd.depth,
                    "feature": nd.feature,
                    "feature_name": nd.feature_name,
                    "left": nd.left,
                    "right": nd.right,
                    "counts": [int(c) for c in nd.counts],
                    "prediction": nd.prediction,
                }
                for nd in self.nodes
            ],
            "objective": int(self.objective),
            "optimal": bool(self.optimal),
            "runtime": float(self.runtime),
            "max_depth": int(self.max_depth),
            "max_num_nodes": None if self.max_num_nodes is None else int(self.max_num_nodes),
            "sparse_coefficient": float(self.sparse_coefficient),
            "time_limit": float(self.time_limit),
            "n_samples": int(self.n_samples),
            "stats": {k: _py(v) for k, v in self.stats.items()},
            "formula": self.formula,
            "design": None,
            "binarizer": None,
        }
        if self.design is not None:
            from ..design import design_to_dict

            out["design"] = design_to_dict(self.design, include_data=False)
        if isinstance(self.binarizer, QuantileBinarizer):
            out["binarizer"] = self.binarizer.to_dict()
        return out

    @classmethod
    def from_dict(cls, d: dict) -> OptimalTreeModel:
        """Inverse of :meth:`to_dict`."""
        from .binarize import QuantileBinarizer

        if d.get("format") != _FORMAT:
            raise PybsnsingValueError(
                f"not a serialised OptimalTreeModel (format {d.get('format')!r})")
        nodes = [
            OptimalTreeNode(
                id=int(n["id"]),
                depth=int(n["depth"]),
                feature=int(n["feature"]),
                feature_name=n["feature_name"],
                left=int(n["left"]),
                right=int(n["right"]),
                counts=np.asarray(n["counts"], dtype=np.int64),
                prediction=int(n["prediction"]),
            )
            for n in d["nodes"]
        ]
        design = None
        if d.get("design") is not None:
            from ..design import design_from_dict

            design = design_from_dict(d["design"])
        binarizer = None
        if d.get("binarizer") is not None:
            binarizer = QuantileBinarizer.from_dict(d["binarizer"])
        return cls(
            nodes=nodes,
            classes_=np.asarray(d["classes"]),
            feature_names=list(d["feature_names"]),
            objective=int(d["objective"]),
            optimal=bool(d["optimal"]),
            runtime=float(d["runtime"]),
            max_depth=int(d["max_depth"]),
            max_num_nodes=None if d["max_num_nodes"] is None else int(d["max_num_nodes"]),
            sparse_coefficient=float(d["sparse_coefficient"]),
            time_limit=float(d["time_limit"]),
            n_samples=int(d["n_samples"]),
            stats=dict(d.get("stats", {})),
            formula=d.get("formula"),
            design=design,
            binarizer=binarizer,
        )

    def save(self, path: str | Path) -> None:
        """Write :meth:`to_dict` as JSON."""
        Path(path).write_text(json.dumps(self.to_dict(), indent=1))

    @classmethod
    def load(cls, path: str | Path) -> OptimalTreeModel:
        """Read a model written by :meth:`save`."""
        return cls.from_dict(json.loads(Path(path).read_text()))
