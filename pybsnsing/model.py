"""Fitted models: :class:`BsnsingModel` (two classes) and :class:`MBsnsingModel`.

``str(model)`` is R's ``print`` text and ``str(model.summary())`` R's
``summary`` text (docs/r-quirks.md, *Outputs*), apart from the ``Call:`` line.

Saving and loading: ``model.save(path)`` writes JSON and :func:`load_model`
reads it back. JSON is data: loading a model file never executes anything
(formula terms are re-read by :mod:`pybsnsing.formula`'s fixed grammar, rule
texts by :mod:`pybsnsing.rules`), and a file that is not a valid model gives a
:class:`~pybsnsing.errors.ModelFileError` ("not a valid pybsnsing model file:
<reason>"). JSON is the format the command line and the R package use.

Models can also be pickled (``pickle.dumps(model)``), but unpickling runs code
by design: ``pickle.loads`` of a file from someone else can do anything that
person wants. Only load pickles you made yourself; exchange models as JSON.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .control import BsControl, control_from_dict
from .design import Design, check_frame, design_for_newdata, design_from_dict, design_to_dict
from .errors import ModelFileError, PybsnsingError, PybsnsingTypeError, PybsnsingValueError
from .inspection import BinaryTreeAccessors, MultiTreeAccessors
from .prune import MultiPruningMixin, PruningMixin
from .rformat import as_character
from .rules import evaluate_rule
from .tree import Node

__all__ = [
    "BsnsingModel",
    "BsnsingSummary",
    "MBsnsingModel",
    "MBsnsingSummary",
    "format_confusion_matrix",
]


def _crosstab(fitted: np.ndarray, actual: np.ndarray) -> pd.DataFrame:
    """``pd.crosstab(fitted, actual)`` (names "fitted" / "actual") without its groupby."""
    if fitted.dtype.kind not in "biu" or actual.dtype.kind not in "biu" or len(fitted) == 0:
        return pd.crosstab(pd.Series(fitted, name="fitted"), pd.Series(actual, name="actual"))
    fu, fi = np.unique(fitted, return_inverse=True)
    au, ai = np.unique(actual, return_inverse=True)
    cm = np.bincount(fi.ravel() * len(au) + ai.ravel(), minlength=len(fu) * len(au))
    return pd.DataFrame(cm.reshape(len(fu), len(au)).astype(np.int64),
                        index=pd.Index(fu, name="fitted"), columns=pd.Index(au, name="actual"))


def format_confusion_matrix(cm: pd.DataFrame) -> list[str]:
    """Lines of R's ``print(table(fitted, actual))`` for a 2-D count table."""
    row_labels = [str(r) for r in cm.index]
    col_labels = [str(c) for c in cm.columns]
    values = cm.to_numpy()
    width = max([len(str(v)) for v in values.ravel()] + [len(c) for c in col_labels])
    row_width = max([len("fitted")] + [len(r) for r in row_labels])
    lines = [" " * row_width + "actual",
             "fitted".ljust(row_width) + "".join(" " + c.rjust(width) for c in col_labels)]
    for label, row in zip(row_labels, values, strict=True):
        lines.append(label.rjust(row_width) + "".join(" " + str(v).rjust(width) for v in row))
    return lines


class _ModelOutputs:
    """Saving and drawing, shared by both model classes (they provide ``to_dict``)."""

    def save(self, path: str | Path) -> None:
        """Write the model to a JSON file (see :func:`pybsnsing.load_model`)."""
        if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
            raise PybsnsingTypeError(f"path must be a file path, not {type(path).__name__}")
        try:
            text = json.dumps(self.to_dict(), allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise PybsnsingValueError(f"the model cannot be written as JSON: {exc}") from None
        try:
            Path(path).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise PybsnsingValueError(
                f"cannot write the model to {str(path)!r}: {exc.strerror or exc}") from None

    # ---------------------------------------------------------------- drawing
    def plot(self, file: str | Path | None = None, **kwargs: Any):
        """Draw the tree with matplotlib (see :func:`pybsnsing.export.plot_tree`)."""
        from .export import plot_tree

        return plot_tree(self, file, **kwargs)

    def to_latex(self, **kwargs: Any) -> str:
        """R bsnsing's LaTeX (pstricks) drawing of the tree."""
        from .export import to_latex

        return to_latex(self, **kwargs)

    def to_dot(self, **kwargs: Any) -> str:
        """A Graphviz (dot) description of the tree."""
        from .export import to_dot

        return to_dot(self, **kwargs)


@dataclass
class BsnsingSummary:
    """What R's ``summary.bsnsing`` returns; ``str()`` gives its printed text."""

    model: BsnsingModel
    n_splits: int
    n_leaves: int
    confusion_matrix: pd.DataFrame
    accuracy: float
    print_call: bool = True

    def __str__(self) -> str:
        m = self.model
        lines = []
        if self.print_call:
            lines.append("Call: summary.bsnsing(object = model)")
        lines.append(m.coding_scheme)
        lines.append("Decision Tree:")
        lines.append("-------------")
        by_number = {nd.number: nd for nd in m.nodes}

        def visit(nd: Node, depth: int) -> None:
            indent = " " * (6 * depth)
            share = max(nd.n1, nd.n0) / nd.nobs
            star = "*" if nd.is_leaf else ""
            weighted = ""
            if nd.w1 is not None and nd.w0 is not None:  # case weights: weighted share
                wn = nd.w1 + nd.w0
                share = max(nd.w1, nd.w0) / wn if wn > 0 else 0.0
                weighted = f", w1 {nd.w1:.6g}, w0 {nd.w0:.6g}"
            lines.append(
                f"{indent}{star}Node {nd.number}: class = {nd.node_class} w/ prob "
                f"{share:.4f}, prop {nd.prop:.4f}, n1 {nd.n1}, n0 {nd.n0}{weighted}"
            )
            if not nd.is_leaf:
                lines.append(f"{indent}Split by ({nd.split_rule})")
                visit(by_number[nd.lchild], depth + 1)
                visit(by_number[nd.rchild], depth + 1)

        visit(by_number[0], 0)
        lines.append("-------------")
        lines.append(
            f"The tree has {self.n_splits} splits (0 fractional), {self.n_leaves} leaf nodes. "
        )
        lines.append("Confusion matrix:")
        lines.extend(format_confusion_matrix(self.confusion_matrix))
        lines.append(f"Accuracy: {self.accuracy:.4f}")
        return "\n".join(lines)

    __repr__ = __str__


def _file_header(kind: str, model: Any) -> dict:
    """The first fields of a saved model (:meth:`BsnsingModel.to_dict`)."""
    return {"type": kind, "format_version": 1, "call": model.call, "formula": model.formula}


@dataclass
class BsnsingModel(BinaryTreeAccessors, PruningMixin, _ModelOutputs):
    """A fitted two-class bsnsing tree.

    Attributes:
        nodes: the nodes in creation (number) order.
        ycode: the labels of codes 0 and 1.
        coding_scheme: e.g. ``"Response coding: malignant ==> 1   benign ==> 0"``.
        fitted_values: fitted class codes (0/1) of the training rows.
        fitted_prob: fitted probability of code 1 of the training rows.
        confusion_matrix: counts, fitted codes (rows) by actual codes (columns).
        control: the control used (``node_size`` as given; see ``node_size``).
        node_size: the node size actually used.
    """

    nodes: list[Node]
    ycode: list
    y: np.ndarray
    control: BsControl
    node_size: int
    design: Design | None = None
    call: str = "bsnsing()"
    formula: str | None = None
    fitted_values: np.ndarray = field(init=False, repr=False)
    fitted_prob: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = len(self.y)
        fval = np.zeros(n, dtype=np.int64)
        fprob = np.zeros(n, dtype=np.float64)
        for nd in self.nodes:
            if nd.is_leaf:
                fval[nd.obs] = nd.node_class
                fprob[nd.obs] = nd.prob
        self.fitted_values = fval
        self.fitted_prob = fprob

    @functools.cached_property
    def confusion_matrix(self) -> pd.DataFrame:
        """Counts, fitted codes (rows) by actual codes (columns); made at the first read
        (a pandas table costs a tenth of a millisecond, a small fit a few)."""
        return _crosstab(self.fitted_values, np.asarray(self.y))

    # ----------------------------------------------------------------- basics
    @property
    def coding_scheme(self) -> str:
        if all(isinstance(v, (bool, np.bool_)) for v in self.ycode):
            # R's binarize.y writes this one as a fixed text
            return "Response coding: True ==> 1   False ==> 0"
        return (f"Response coding: {as_character(self.ycode[1])} ==> 1   "
                f"{as_character(self.ycode[0])} ==> 0")

    @property
    def n_train(self) -> int:
        return len(self.y)

    @property
    def leaves(self) -> list[Node]:
        return [nd for nd in self.nodes if nd.is_leaf]

    @property
    def n_leaves(self) -> int:
        return sum(nd.is_leaf for nd in self.nodes)

    @property
    def n_splits(self) -> int:
        return len(self.nodes) - self.n_leaves

    @property
    def accuracy(self) -> float:
        """Training accuracy (correct also when every fitted value is one class,
        unlike R 1.0.1's summary)."""
        return float(np.mean(self.fitted_values == np.asarray(self.y)))

    def summary(self) -> BsnsingSummary:
        """R's ``summary(model)``: the tree, confusion matrix and accuracy."""
        return BsnsingSummary(self, self.n_splits, self.n_leaves, self.confusion_matrix,
                              self.accuracy)

    def __str__(self) -> str:
        lines = [f"Call: {self.call}", self.coding_scheme, "Confusion matrix:"]
        lines.extend(format_confusion_matrix(self.confusion_matrix))
        lines.append("Use the summary() function to access details of the tree.")
        return "\n".join(lines)

    def __repr__(self) -> str:
        return (f"<BsnsingModel: {self.n_splits} splits, {self.n_leaves} leaves, "
                f"n={self.n_train}, {self.coding_scheme}>")

    # ---------------------------------------------------------------- predict
    def _design_matrix(self, newdata: pd.DataFrame, impute: bool) -> np.ndarray:
        if self.design is None:
            raise PybsnsingValueError(
                "this model has no design information; cannot predict new data")
        X = design_for_newdata(self.design, newdata)
        if impute:
            med = self.design.medians
            for j in range(X.shape[1]):
                miss = np.isnan(X[:, j])
                if miss.any():
                    fill = med[j]
                    if np.isnan(fill):
                        fill = self._training_median(j)
                    X[miss, j] = fill
        return X

    def _training_median(self, j: int) -> float:
        """The median of design column ``j`` over the training rows (a column that had
        no missing value at fit); weighted when the model has its case weights."""
        w = getattr(self, "sample_weight", None)
        col = self.design.X[:, j]
        if w is not None and len(w) == len(col):
            from .weighted import weighted_median

            seen = ~np.isnan(col)
            return weighted_median(col[seen], np.asarray(w, dtype=np.float64)[seen])
        return float(np.nanmedian(col))

    def leaf_of(self, X: pd.DataFrame | np.ndarray, names: Sequence[str] | None = None,
                impute: bool = False) -> np.ndarray:
        """The leaf number reached by each row of ``X``: a DataFrame of the predictors
        (as ``predict`` takes it) or a design matrix (columns ``names``, by default
        ``design.names``). ``predict``, ``apply`` and ``decision_path`` route rows here.

        A rule TRUE goes left; a missing value makes a question FALSE (``impute=True``
        fills a DataFrame's missing values with the training medians first).
        """
        if isinstance(X, pd.DataFrame):
            X = self._design_matrix(X, impute)
        if names is None and self.design is None:
            raise PybsnsingValueError(
                "this model has no design information; pass the design column names")
        names = list(names if names is not None else self.design.names)
        X = np.asarray(X, dtype=np.float64) if not isinstance(X, np.ndarray) else X
        if X.ndim != 2 or X.shape[1] != len(names):
            raise PybsnsingValueError(
                f"X must be a design matrix with {len(names)} columns, got shape {X.shape}")
        n = X.shape[0]
        at = np.zeros(n, dtype=np.int64)
        columns = {nm: X[:, j] for j, nm in enumerate(names)}
        for nd in self.nodes:
            if nd.is_leaf:
                continue
            here = np.nonzero(at == nd.number)[0]
            if here.size == 0:
                continue
            sub = {k: v[here] for k, v in columns.items()}
            go_left = evaluate_rule(nd.split_rule, sub)
            at[here[go_left]] = nd.lchild
            at[here[~go_left]] = nd.rchild
        return at

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "prob",
                impute: bool = False) -> np.ndarray:
        """Predict new rows.

        Args:
            newdata: a DataFrame with the predictor columns; None gives the
                fitted values of the training rows.
            type: ``"prob"`` (probability of the class coded 1, ``ycode[1]``)
                or ``"class"`` (the original labels).
            impute: R does not impute at predict time: a question on a
                missing value is FALSE, so the row goes right unless another
                OR-ed question is TRUE. ``impute=True`` replaces missing
                values by the training medians first. Unseen factor levels
                count as missing (with a warning).
        """
        if not isinstance(type, str) or type not in ("prob", "class"):
            raise PybsnsingValueError(f"type must be 'prob' or 'class', got {type!r}")
        if newdata is None:
            prob = self.fitted_prob.copy()
            codes = self.fitted_values.copy()
        else:
            check_frame(newdata, "newdata")  # leaf_of also takes design matrices; predict not
            leaf = self.leaf_of(newdata, impute=impute)
            by_number = {nd.number: nd for nd in self.nodes}
            prob = np.array([by_number[k].prob for k in leaf], dtype=np.float64)
            codes = np.array([by_number[k].node_class for k in leaf], dtype=np.int64)
        if type == "prob":
            return prob
        return np.asarray(self.ycode, dtype=object)[codes]

    # ------------------------------------------------------------ persistence
    def tree_signature(self) -> str:
        """Lines ``number|split_rule|n1|n0`` (the fixtures' tree signature text)."""
        return "\n".join(f"{nd.number}|{nd.split_rule}|{nd.n1}|{nd.n0}" for nd in self.nodes)

    def to_dict(self, include_data: bool = True) -> dict:
        """Everything needed to rebuild the model, as JSON-ready values.

        ``include_data=False`` leaves out the training design matrix (the
        model still predicts; only ``impute=True`` for an all-present training
        column then has no median to fall back on).
        """
        return {
            **_file_header("bsnsing", self),
            "ycode": [_jsonable(v) for v in self.ycode],
            "y": np.asarray(self.y).astype(int).tolist(),
            "control": self.control.to_r_dict()
            | {"keep.perfect.separation": self.control.keep_perfect_separation,
               "import.external": self.control.import_external},
            "node_size": self.node_size,
            "nodes": [nd.to_dict() for nd in self.nodes],
            "design": None if self.design is None else design_to_dict(self.design, include_data),
        }

    @classmethod
    def from_dict(cls, d: dict) -> BsnsingModel:
        """Inverse of :meth:`to_dict`."""
        if d.get("type") != "bsnsing":
            raise ModelFileError(f"not a bsnsing model dictionary (type {d.get('type')!r})")
        return cls(
            nodes=[Node.from_dict(nd) for nd in d["nodes"]],
            ycode=list(d["ycode"]),
            y=np.asarray(d["y"], dtype=np.int64),
            control=control_from_dict(d["control"]),
            node_size=int(d["node_size"]),
            design=None if d.get("design") is None else design_from_dict(d["design"]),
            call=d.get("call", "bsnsing()"),
            formula=d.get("formula"),
        )



@dataclass
class MBsnsingModel(MultiTreeAccessors, MultiPruningMixin, _ModelOutputs):
    """A multi-class bsnsing model: one tree per class against ``all.other``.

    Attributes:
        trees: one :class:`BsnsingModel` per class, in ``ylevels`` order.
        ylevels: the classes.
        yprior: the class shares in the training rows.
    """

    trees: list[BsnsingModel]
    ylevels: list
    yprior: np.ndarray
    call: str = "bsnsing()"
    formula: str | None = None

    @property
    def nclass(self) -> int:
        return len(self.ylevels)

    def predict(self, newdata: pd.DataFrame | None = None, type: str = "prob",
                impute: bool = False) -> np.ndarray:
        """Predict new rows: each class's tree gives its probability, times
        the class prior, normalised by the row sum; the class is the first
        maximum. ``type="prob"`` gives an n x K array in ``ylevels`` order.
        A row that every tree gives probability 0 gets all-zero probabilities
        and the first class (as R does).
        """
        if not isinstance(type, str) or type not in ("prob", "class"):
            raise PybsnsingValueError(f"type must be 'prob' or 'class', got {type!r}")
        P = np.column_stack([t.predict(newdata, type="prob", impute=impute)
                             for t in self.trees]) * self.yprior[None, :]
        s = P.sum(axis=1, keepdims=True)
        # A row that every class tree gives probability 0 keeps all-zero
        # probabilities and gets the first class, as in R bsnsing.
        P = np.divide(P, s, out=np.zeros_like(P), where=s > 0)
        if type == "prob":
            return P
        return np.asarray(self.ylevels, dtype=object)[np.argmax(P, axis=1)]

    def __str__(self) -> str:
        lines = [f"Call: {self.call}", f"{self.nclass} trees, one for each class."]
        for k, t in enumerate(self.trees, start=1):
            lines.append(f"Tree {k}:")
            lines.extend(str(t).split("\n")[1:])
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<MBsnsingModel: {self.nclass} classes {self.ylevels!r}>"

    def to_dict(self, include_data: bool = True) -> dict:
        """Everything needed to rebuild the model, as JSON-ready values."""
        return {
            **_file_header("mbsnsing", self),
            "ylevels": [_jsonable(v) for v in self.ylevels],
            "yprior": self.yprior.tolist(),
            "trees": [t.to_dict(include_data=include_data and k == 0)
                      for k, t in enumerate(self.trees)],
        }

    @classmethod
    def from_dict(cls, d: dict) -> MBsnsingModel:
        """Inverse of :meth:`to_dict`."""
        if d.get("type") != "mbsnsing":
            raise ModelFileError(f"not an mbsnsing model dictionary (type {d.get('type')!r})")
        trees = [BsnsingModel.from_dict(t) for t in d["trees"]]
        for t in trees[1:]:  # the trees share one design
            t.design = trees[0].design
        return cls(trees=trees, ylevels=list(d["ylevels"]),
                   yprior=np.asarray(d["yprior"], dtype=float), call=d.get("call", ""),
                   formula=d.get("formula"))


    def summary(self) -> MBsnsingSummary:
        """R's ``summary(mbsnsing)``; ``.classes`` holds one tree summary per class."""
        return MBsnsingSummary(self)


@dataclass
class MBsnsingSummary:
    """Summary of a multi-class model: ``str()`` is R's text, ``classes`` the
    per-class tree summaries (printed without a Call line, as R's
    ``summary(bs[[k]], print.call = FALSE)``)."""

    model: MBsnsingModel

    @property
    def classes(self) -> list[BsnsingSummary]:
        out = []
        for t in self.model.trees:
            s = t.summary()
            s.print_call = False
            out.append(s)
        return out

    def __str__(self) -> str:
        m = self.model
        levels = ", ".join(as_character(v) for v in m.ylevels)
        return (f"There are {m.nclass} trees in bs, one for each class in [{levels}].\n"
                "Use the command summary(bs[[1]]) to access details of the 1st tree, "
                "for instance.")

    __repr__ = __str__


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    return v


def model_from_dict(d: Any) -> BsnsingModel | MBsnsingModel:
    """Rebuild a model saved with ``to_dict`` (either kind), checking it first.

    Raises:
        ModelFileError: ``d`` is not a valid model ("not a valid pybsnsing model
            file: <reason>").
    """
    from ._modelfile import check_model_dict

    check_model_dict(d)
    try:
        if d["type"] == "bsnsing":
            model: BsnsingModel | MBsnsingModel = BsnsingModel.from_dict(d)
        else:
            model = MBsnsingModel.from_dict(d)
    except ModelFileError:
        raise
    except PybsnsingError as exc:
        raise ModelFileError(str(exc)) from None
    except (KeyError, TypeError, ValueError, IndexError, AttributeError,
            OverflowError) as exc:  # pragma: no cover - check_model_dict should catch these
        raise ModelFileError(f"{type(exc).__name__}: {exc}") from None
    return model


def load_model(path: str | Path) -> BsnsingModel | MBsnsingModel:
    """Read a model written by ``model.save(path)`` (JSON; nothing in it is executed).

    Raises:
        ModelFileError: the file is missing, unreadable, not JSON, truncated, or
            not a pybsnsing model; the message says "not a valid pybsnsing model
            file: <reason>".
    """
    if not isinstance(path, (str, Path)) and not hasattr(path, "__fspath__"):
        raise PybsnsingTypeError(f"path must be a file path, not {type(path).__name__}")
    p = Path(path)
    try:
        raw = p.read_bytes()
    except FileNotFoundError:
        raise ModelFileError(f"no such file: {str(p)!r}") from None
    except IsADirectoryError:
        raise ModelFileError(f"{str(p)!r} is a directory") from None
    except OSError as exc:
        raise ModelFileError(f"cannot read {str(p)!r}: {exc.strerror or exc}") from None
    if p.is_dir():  # pragma: no cover - some systems read directories
        raise ModelFileError(f"{str(p)!r} is a directory")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ModelFileError(f"{str(p)!r} is not a text (UTF-8 JSON) file") from None
    if not text.strip():
        raise ModelFileError(f"{str(p)!r} is empty")
    try:
        d = json.loads(text)
    except RecursionError:
        raise ModelFileError(f"{str(p)!r} nests JSON too deeply") from None
    except ValueError as exc:
        raise ModelFileError(f"{str(p)!r} is not JSON ({exc}); truncated or corrupt?") from None
    return model_from_dict(d)
