"""External rules: the split points R's rpart proposes at a node.

(What R does: docs/r-quirks.md, *External rules* and Q16.)

With ``import.external = TRUE`` (the default), R bsnsing 1.0.1 calls, at every
node, ``import_external_rules(this.x, this.y)``, which fits::

    rpart(._.external_y_._ ~ ., data = cbind(y, x),
          control = rpart.control(maxdepth = 2))

The response is the node's 0/1 INTEGER vector, so rpart grows a regression
("anova") tree with its defaults: minsplit 20, minbucket round(20/3) = 7,
cp 0.01, maxcompete 4, maxsurrogate 5, xval 10. Every row of ``rp$splits``
whose ``count`` is > 0 -- the primary and competitor splits of every node that
was split; surrogate rows have count 0 when nothing is missing -- gives a
variable ``v`` and split point ``c``. bsnsing appends the questions
``paste(v, "<", c)`` for all rows (table order), then ``paste(v, ">=", c)``
for all rows (table order), and evaluates each one on the node's rows with
``eval(parse(text = rule))``.

This module reproduces that natively and bit for bit:

- :func:`rpart_splits` / :func:`rpart_split_table` replay rpart 4.1.19's C
  code for continuous predictors in one numba call
  (:func:`pybsnsing.kernels.rpart.rpart_anova`: ``mysort``, ``anova``,
  ``bsplit``, ``insert_split``, ``nodesplit``, ``partition``, ``rpmatrix``).
  Cross-validation is not run: it consumes R's random numbers but never
  changes the split table.
- :func:`external_questions` turns the split table into bsnsing's question
  texts (``c`` written by :func:`pybsnsing.rformat.format_r`, i.e. R's
  ``as.character``) and the 0/1 answer matrix.

What rpart does that matters here (all checked against R):

- Only nodes that END UP split contribute rows. A node is split when it has
  >= minsplit rows, a risk (sum of squares) above ``alpha = cp * root risk``
  and a split whose improvement exceeds ``1e-10`` times the largest seen so far
  in the fit; after its children are grown, the node is discarded again
  ("all was in vain") when its cost-complexity, computed from the children's
  and grandchildren's risks, is ``<= alpha``. With maxdepth 2 the table thus
  holds the root's list and those of its children, each primary split
  followed by up to 4 competitors by decreasing improvement.
- Ties between variables go to the earlier column, ties between cut points of
  one variable to the lowest cut (strict ``>`` comparisons, no tolerance). The
  improvements are compared bit for bit, and they depend on the order in which
  rpart's UNSTABLE quicksort leaves tied values, so that quicksort is replayed.
- A cut is the midpoint ``(a + b) / 2`` of adjacent distinct values; for two
  adjacent doubles it rounds onto ``a`` or ``b``. When it lands on ``a`` the
  primary split sends every row to one side, the empty child has risk 0, and
  the node is then discarded as "in vain" (no rows at all from that node).
- With maxcompete = 1, ``insert_split`` drops BOTH earlier entries when a new
  best split arrives while its list of 2 is full (the node then lists its
  primary only). The default maxcompete = 4 is not affected.

Which cut the answer columns use: bsnsing evaluates the question TEXT, so the
cut is the 15-significant-digit printed value as R's parser reads it back
(``R_strtod``, which rounds through 80-bit long double and differs from
Python's correctly rounded :func:`float` by one ulp for roughly 1 string in
4000). That is the default here (``cut="printed"``); ``cut="exact"`` uses the
exact double midpoint instead. The two differ only for rows whose value lies
between the exact and the printed cut.

``method="r"`` runs R's own rpart through rpy2 instead
(:func:`pybsnsing.r.rpart.r_rpart_questions`).

Inputs are the node's rows in their original order (bsnsing keeps rows in
increasing row order at every node; the order matters because rpart's
quicksort is not stable and the summation order decides the last bits of
every improvement).

Infinite values: bsnsing imputes NA (and NaN) before it grows, but ``Inf`` and
``-Inf`` reach rpart, whose C code treats every non-finite value as missing
(``!R_FINITE``). Such a row is left out of that variable's splits (the
improvement is still relative to the whole node's risk), it goes down the tree
by the first surrogate split it is not missing (else the majority direction),
and the surrogate rows that sent rows have ``count > 0``, so bsnsing makes
questions of them too. A node whose rows hold a non-finite value is replayed by
:func:`pybsnsing.kernels.rpart.rpart_anova_missing` (rpart's code path with
missing values and surrogates; maxsurrogate 5, usesurrogate 2, surrogatestyle 0
as bsnsing calls it); other nodes by the fast :func:`~pybsnsing.kernels.rpart.rpart_anova`.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

import numpy as np

from ._lazy import LazyKernels
from .errors import ExternalWarning, PybsnsingValueError
from .questions import kernel_values
from .rformat import format_r, r_atof

if TYPE_CHECKING:
    from concurrent.futures import Executor

    from .questions import NodeRows


_k = LazyKernels("rpart")
_packing = LazyKernels("packing")
_sort = LazyKernels("sort")

__all__ = [
    "ExternalQuestion",
    "ExternalWarning",
    "r_rpart_fails",
    "RpartSplit",
    "rpart_split_table",
    "rpart_splits",
    "external_specs",
    "external_questions",
]


def r_rpart_fails(names: Sequence[str]) -> bool:
    """Whether R bsnsing's rpart call fails on these design column names.

    ``import_external_rules`` fits ``rpart(._.external_y_._ ~ ., data = ...)``
    inside ``tryCatch(error = function(cnd) NA)``. When a column name holds a
    backtick or a backslash, the names of the ``.`` expansion do not survive
    R's deparse and parse, ``model.frame`` stops with "undefined columns
    selected", and bsnsing silently uses no external questions at that node
    (every node, since the columns are the same). Checked against R 4.2.2 and
    rpart 4.1.19 for every printable ASCII character.
    """
    return any("`" in nm or "\\" in nm for nm in names)


#: Rows from which the radix argsort is used to order the columns.
_RADIX_MIN_N = 1024

#: R bsnsing 1.0.1 only uses rpart (party, C50 and tree not installed).
ExternalMethod = Literal["rpart", "r"]


@dataclass(frozen=True)
class RpartSplit:
    """One primary or competitor row of rpart's ``$splits`` table.

    Attributes:
        node: rpart node number (1 = root, 2 and 3 its children, ...).
        var: column index of the variable.
        index: the split point (exact double, ``splits[, "index"]``).
        count: number of rows the split was evaluated on (``count``).
        ncat: direction (``ncat``): -1 when ``x < index`` goes left, +1 otherwise.
        improve: ``improve`` column: between-group SS / node SS.
        primary: True for the node's primary split, False for a competitor or a
            surrogate.
        surrogate: True for a surrogate split (then ``improve`` is its agreement and
            ``count`` the rows it sent, those missing the primary variable).
    """

    node: int
    var: int
    index: float
    count: int
    ncat: int
    improve: float
    primary: bool
    surrogate: bool = False


def _check_xy(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate and convert inputs; returns (xt (p, n) C-contiguous, y float64)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise PybsnsingValueError(f"X must be 2-dimensional, got shape {X.shape}")
    yv = np.asarray(y)
    if yv.ndim != 1 or yv.shape[0] != X.shape[0]:
        raise PybsnsingValueError(
            f"y must be 1-dimensional of length {X.shape[0]}, got shape {yv.shape}")
    yf = np.ascontiguousarray(yv, dtype=np.float64)
    if X.size and np.isnan(X).any():
        raise PybsnsingValueError(
            "X holds NaN: impute missing values first (R bsnsing does before it calls "
            "rpart); Inf and -Inf are allowed (rpart treats them as missing)")
    if yf.size and not np.isfinite(yf).all():
        raise PybsnsingValueError("y holds non-finite values")
    return np.ascontiguousarray(X.T), yf


def _order_matrix(xt: np.ndarray, orders: Sequence[np.ndarray | None] | None) -> np.ndarray:
    """(p, n) int64 matrix of ascending orders per column (given ones or NumPy's argsort)."""
    p, n = xt.shape
    if orders is None:
        # any ascending order will do: tied columns are re-sorted by rpart's
        # own quicksort. A radix sort beats NumPy's argsort from ~1000 rows on.
        return _sort.argsort_rows(xt) if n >= _RADIX_MIN_N else np.argsort(xt, axis=1)
    if len(orders) != p:
        raise PybsnsingValueError(f"{len(orders)} orders given for {p} columns")
    out = np.empty((p, n), dtype=np.int64)
    for j, o in enumerate(orders):
        if o is None:
            out[j] = np.argsort(xt[j])
        else:
            o = np.asarray(o)
            if o.shape != (n,):
                raise PybsnsingValueError(f"orders[{j}] has shape {o.shape}, expected ({n},)")
            out[j] = o
    if not _k.orders_valid(xt, out):
        raise PybsnsingValueError("orders must be permutations sorting each column ascending")
    return out


def _split_rows(xt: np.ndarray, yf: np.ndarray,
                orders: Sequence[np.ndarray | None] | None, maxdepth: int = 2,
                minsplit: int = 20, minbucket: int = 7, cp: float = 0.01, maxcompete: int = 4,
                maxsurrogate: int = 5) -> tuple[np.ndarray, ...]:
    """The rows with ``count > 0`` of rpart's split table of ``xt`` ((p, n)) and ``yf``:
    ``(node, var, index, count, ncat, improve, primary, surrogate)`` arrays. Finite data
    goes to the fast replay (no surrogate row sends a row there); data with a non-finite
    value to rpart's code path with missing values (:mod:`pybsnsing.kernels.rpart`)."""
    if np.isfinite(xt).all():
        node, var, index, count, ncat, improve, primary = _k.rpart_anova(
            xt, yf, _order_matrix(xt, orders), maxdepth, minsplit, minbucket, cp, maxcompete)
        return (node, var, index, count, ncat, improve, primary,
                np.zeros(node.shape[0], dtype=bool))
    node, var, index, count, ncat, improve, kind = _k.rpart_anova_missing(
        xt, yf, maxdepth, minsplit, minbucket, cp, maxcompete, maxsurrogate, 2, 0)
    keep = count > 0
    return (node[keep], var[keep], index[keep], count[keep], ncat[keep], improve[keep],
            (kind == _k.KIND_PRIMARY)[keep], (kind == _k.KIND_SURROGATE)[keep])


def rpart_split_table(X: np.ndarray, y: np.ndarray, *, maxdepth: int = 2,
                      minsplit: int = 20, minbucket: int = 7, cp: float = 0.01,
                      maxcompete: int = 4, maxsurrogate: int = 5,
                      orders: Sequence[np.ndarray | None] | None = None) -> list[RpartSplit]:
    """The rows with ``count > 0`` of ``rpart(y ~ ., method = "anova")$splits``.

    Native replay of rpart 4.1.19 for all-continuous predictors with unit weights
    (``usesurrogate = 2``, ``surrogatestyle = 0``). On finite data these are the
    primary and competitor rows. A non-finite value is missing for rpart: then the
    surrogate rows that sent rows are included too. Rows come in rpart's order:
    nodes in pre-order (root, left subtree, right subtree), each node's primary
    split first, then its competitors by decreasing improvement (ties: the earlier
    column first), then its surrogates by decreasing agreement.

    Args:
        X: (n, p) predictors, the node's rows in their original order.
        y: length-n numeric response (bsnsing passes 0/1).
        maxdepth, minsplit, minbucket, cp, maxcompete, maxsurrogate: as
            ``rpart.control``.
        orders: optionally, per column, any ascending order of that column's
            node values (e.g. the stable ``np.argsort(X[:, j], kind="stable")``
            that binarization uses); None entries are sorted here. Saves the
            sorts of finite data; the result does not depend on it.

    Returns:
        The split rows; empty when rpart does not split the root.
    """
    if not 1 <= maxdepth <= 30:
        raise PybsnsingValueError("maxdepth must be in 1..30 (as rpart.control)")
    if maxcompete < 0:
        raise PybsnsingValueError("maxcompete must be >= 0")
    if maxsurrogate < 0:
        raise PybsnsingValueError("maxsurrogate must be >= 0")
    xt, yf = _check_xy(X, y)
    cols = _split_rows(xt, yf, orders, int(maxdepth), max(int(minsplit), 1),
                       max(int(minbucket), 1), float(cp), int(maxcompete), int(maxsurrogate))
    return [
        RpartSplit(int(a), int(b), float(c), int(d), int(e), float(f), bool(g), bool(h))
        for a, b, c, d, e, f, g, h in zip(*(col.tolist() for col in cols), strict=True)
    ]


def rpart_splits(X: np.ndarray, y: np.ndarray, *, maxdepth: int = 2, minsplit: int = 20,
                 minbucket: int = 7, cp: float = 0.01, maxcompete: int = 4,
                 orders: Sequence[np.ndarray | None] | None = None) -> list[tuple[int, float]]:
    """(column index, split point) of every count > 0 row of rpart's split table.

    The order is rpart's table order (see :func:`rpart_split_table`); split
    points are the exact doubles rpart holds (midpoints of adjacent distinct
    values).
    """
    table = rpart_split_table(X, y, maxdepth=maxdepth, minsplit=minsplit, minbucket=minbucket,
                              cp=cp, maxcompete=maxcompete, orders=orders)
    return [(s.var, s.index) for s in table]


# ---------------------------------------------------------------------------
# questions
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ExternalQuestion:
    """One external question ``name op cut``.

    Attributes:
        col: column index of the variable.
        op: ``"<"`` or ``">="``.
        split: rpart's exact split point.
        cut: the value the answer column is computed with (the printed cut as
            R parses it, or ``split`` itself with ``cut="exact"``).
        text: the question text, e.g. ``"x1 >= 0.5"``.
    """

    col: int
    op: str
    split: float
    cut: float
    text: str


@functools.lru_cache(maxsize=65536)
def _printed_cut(split: float) -> tuple[str, float]:
    """A split point as R prints it (``as.character``) and as R's parser reads that
    text back. Cached: sibling and child nodes often propose the same split points."""
    text = format_r(split)
    return text, r_atof(text)


def _native_questions(
    X: np.ndarray,
    names: Sequence[str],
    y: np.ndarray,
    cut: Literal["printed", "exact"],
    orders: Sequence[np.ndarray | None] | None,
) -> tuple[np.ndarray, list[str], list[int], list[float], list[float]]:
    """Hot path: (xt, texts, cols, splits, cuts) with texts in bsnsing's order."""
    if cut not in ("printed", "exact"):
        raise PybsnsingValueError(f"cut must be 'printed' or 'exact', got {cut!r}")
    xt, yf = _check_xy(X, y)
    if xt.shape[0] != len(names):
        raise PybsnsingValueError("names must have one entry per column of X")
    _, var, index, *_ = _split_rows(xt, yf, orders)
    cols = var.tolist()
    splits = index.tolist()
    pairs = [_printed_cut(c) for c in splits]
    printed = [t for t, _ in pairs]
    cuts = [v for _, v in pairs] if cut == "printed" else splits
    lt = [f"{names[j]} < {t}" for j, t in zip(cols, printed, strict=True)]
    ge = [f"{names[j]} >= {t}" for j, t in zip(cols, printed, strict=True)]
    return xt, lt + ge, cols + cols, splits + splits, cuts + cuts


def _r_questions(
    X: np.ndarray, names: Sequence[str], y: np.ndarray
) -> tuple[np.ndarray, list[str], list[int], list[float]]:
    """Questions from R's rpart: (xt, texts, cols, cuts as R parses them)."""
    from .r.rpart import r_rpart_questions

    xt, _ = _check_xy(X, y)
    if xt.shape[0] != len(names):
        raise PybsnsingValueError("names must have one entry per column of X")
    texts = r_rpart_questions(X, names, y)
    col_of = {nm: j for j, nm in reversed(list(enumerate(names)))}
    cols: list[int] = []
    cuts: list[float] = []
    for t in texts:
        nm, _, num = t.rsplit(" ", 2)
        cols.append(col_of[nm])
        cuts.append(r_atof(num))
    return xt, texts, cols, cuts


def _questions(
    X: np.ndarray,
    names: Sequence[str],
    y: np.ndarray,
    method: ExternalMethod,
    cut: Literal["printed", "exact"],
    orders: Sequence[np.ndarray | None] | None,
) -> tuple[np.ndarray, list[str], list[int], list[float], list[float]]:
    """(xt, texts, cols, splits, cuts) of ``method`` (R's rpart: its printed cut as R
    parses it is both the split and the cut)."""
    names = list(names)
    if method == "rpart":
        return _native_questions(X, names, y, cut, orders)
    if method == "r":
        xt, texts, cols, cuts = _r_questions(X, names, y)
        return xt, texts, cols, cuts, cuts
    raise PybsnsingValueError(f"unknown method {method!r}; use 'rpart' or 'r'")


def external_specs(X: np.ndarray, names: Sequence[str], y: np.ndarray,
                   method: ExternalMethod = "rpart", *, cut: Literal["printed",
                   "exact"] = "printed",
                   orders: Sequence[np.ndarray | None] | None = None) -> list[ExternalQuestion]:
    """The external questions of a node, in bsnsing's order, with their metadata.

    ``method="rpart"`` is the native replay; ``method="r"`` asks R's rpart
    (through rpy2) and reads the variable and the printed cut back from R's
    question texts, so ``split`` is then the printed cut as R parses it.
    """
    _, texts, cols, splits, cuts = _questions(X, names, y, method, cut, orders)
    half = len(texts) // 2
    return [
        ExternalQuestion(j, "<" if q < half else ">=", sp, cu, t)
        for q, (j, sp, cu, t) in enumerate(zip(cols, splits, cuts, texts, strict=True))
    ]


@dataclass(frozen=True)
class ExternalQuestionSet:
    """A node's external questions: texts, their source columns, their direction
    (``ge`` True for ``v >= c``, False for ``v < c``) and the (n, m) uint8 answers."""

    texts: list[str]
    cols: np.ndarray
    ge: np.ndarray
    answers: np.ndarray

    # the tree's question-source interface (pybsnsing.questions.QuestionSource)
    @property
    def m(self) -> int:
        return len(self.texts)

    def text(self, k: int) -> str:
        return self.texts[k]

    def group_keys(self) -> tuple[np.ndarray, np.ndarray]:
        return _external_group_keys(self.cols, self.ge)

    def pack_node(self, node: NodeRows, Xp: np.ndarray, Xn: np.ndarray, offset: int,
                  share: Executor | None = None) -> None:
        _packing.pack_dense_into(np.ascontiguousarray(self.answers, dtype=np.uint8),
                                 node.rows, node.slot, Xp, Xn, np.int64(offset))

    def dense_node(self, node: NodeRows) -> np.ndarray:
        return np.asarray(self.answers, dtype=np.uint8)


def _external_group_keys(cols: np.ndarray, ge: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """ENUM group keys of external questions: the column, direction 0 for ``>=`` and 1
    for ``<`` (as :meth:`pybsnsing.questions.QuestionSet.group_keys`)."""
    return cols, (~ge).astype(np.int64)


def external_question_set(X: np.ndarray, names: Sequence[str], y: np.ndarray,
                          method: ExternalMethod = "rpart", *, cut: Literal["printed",
                          "exact"] = "printed",
                          orders: Sequence[np.ndarray | None] | None = None,
                          answer_X: np.ndarray | None = None,
                          nan_answer: int = 0) -> ExternalQuestionSet:
    """Like :func:`external_questions`, keeping each question's column and direction
    (what the tree needs to group questions without reading texts). ``answer_X``: the
    values the questions are answered on, when they are not ``X``'s (R evaluates the
    text: :func:`pybsnsing.rules.evaluated_columns`). A NaN value answers NA in R
    (``ifelse(NA, 1, 0)``), which R bsnsing's C search reads as 0 and its R search
    (``opt.solver = "enum"``: ``rowSums(...) == 0`` is NA, not a "no") as 1:
    ``nan_answer``."""
    xt, texts, cols, _, cuts = _questions(X, names, y, method, cut, orders)
    half = len(texts) // 2
    ge = np.arange(len(texts)) >= half
    if answer_X is not None:
        xt = np.ascontiguousarray(np.asarray(answer_X, dtype=np.float64).T)
    answers = _k.answer_matrix(
        xt,
        np.array(cols, dtype=np.int64),
        ge.astype(np.int64),
        np.array(cuts, dtype=np.float64),
    )
    if nan_answer and answer_X is not None:
        for q, c in enumerate(cols):
            missing = np.isnan(xt[c])
            if missing.any():
                answers[missing, q] = 1
    return ExternalQuestionSet(texts, np.array(cols, dtype=np.int64), ge, answers)


@dataclass(frozen=True)
class NodeExternal:
    """A tree node's external questions in the packed form the tree's ENUM search uses
    (internal; see :func:`node_external`).

    Question ``k`` is ``names[cols[k]] < split`` (``ge[k]`` False) or ``>=`` (True);
    its YES rows at the node are the first ``pos[k]`` rows of the column's sorted node
    order (``<``) or the others (``>=``). ``X``: the matrix whose row ids the node's rows
    and orders hold (finite values). Texts are written only on demand.
    """

    names: list[str]
    cols: np.ndarray
    ge: np.ndarray
    splits: np.ndarray
    pos: np.ndarray
    X: np.ndarray

    @property
    def m(self) -> int:
        return int(self.cols.shape[0])

    def text(self, k: int) -> str:
        op = ">=" if self.ge[k] else "<"
        return f"{self.names[int(self.cols[k])]} {op} {_printed_cut(float(self.splits[k]))[0]}"

    def group_keys(self) -> tuple[np.ndarray, np.ndarray]:
        return _external_group_keys(self.cols, self.ge)

    def pack_node(self, node: NodeRows, Xp: np.ndarray, Xn: np.ndarray, offset: int,
                  share: Executor | None = None) -> None:
        """Bit-pack the answers into rows ``offset ..`` of ``Xp``/``Xn`` (zeroed; in this
        thread: ``share`` is not used)."""
        _packing.pack_cuts(self.X, node.ordm, node.rows, node.slot, self.cols, self.pos,
                           self.ge, Xp, Xn, np.int64(offset))

    def dense_node(self, node: NodeRows) -> np.ndarray:
        """The (n, m) uint8 answers in ``node.rows`` order (``node.local`` set)."""
        n = node.ordm.shape[1]
        B = np.zeros((n, self.m), dtype=np.uint8)
        for q in range(self.m):
            j, c = int(self.cols[q]), int(self.pos[q])
            yes = node.ordm[j, c:] if self.ge[q] else node.ordm[j, :c]
            B[node.local.take(yes), q] = 1
        return B


#: Relative distance within which a node value makes the printed cut worth computing
#: (the printed-and-reparsed cut is within ~5e-15 relative of the exact split).
_PRINTED_TOL = 1e-13


def node_external(
    X: np.ndarray,
    xt: np.ndarray,
    yf: np.ndarray,
    ordm: np.ndarray,
    rows: np.ndarray,
    names: list[str],
    ordv: np.ndarray | None = None,
) -> NodeExternal:
    """The external questions of a tree node (native rpart, printed cuts), packed.

    ``X``: (N, p) float64 matrix of all rows, finite; ``xt``: ``X.T`` C-contiguous;
    ``yf``: the 0/1 labels of all rows (uint8, or float64); ``ordm``: the node's (p, n) stable
    per-column ascending orders (row ids); ``rows``: the node's row ids in
    increasing order; ``ordv``: the values in the order of ``ordm``, read instead of
    gathered (None: gathered).

    Same questions, order and answers as :func:`external_question_set` (``cut=
    "printed"``). The printed cut is only computed where a node value lies so close
    to the exact split that the two could answer differently (dropping questions
    that duplicate an earlier one of the same ENUM group changed golden trees).
    """
    _, var, index, _, _, _, _ = _k.rpart_anova_rows(
        xt, yf, ordm, rows, *_k.work_arrays(xt.shape[0], rows.shape[0], 2), 2, 20, 7, 0.01, 4,
        kernel_values(ordv))
    return external_from_splits(X, ordm, names, var, index)


def external_from_splits(X: np.ndarray, ordm: np.ndarray, names: list[str], var: np.ndarray,
                         index: np.ndarray) -> NodeExternal:
    """:func:`node_external` from rpart's split table (columns ``var``, split points
    ``index``, int64 and float64): each split asked both ways, cut positions in the
    node's orders."""
    if var.shape[0] == 0:
        e = np.zeros(0, dtype=np.int64)
        return NodeExternal(names, e, np.zeros(0, dtype=np.bool_), np.zeros(0), e, X)
    cpos, amb = _packing.cut_positions(X, ordm, var, index, _PRINTED_TOL)
    if amb.any():
        for q in np.flatnonzero(amb).tolist():
            pc = np.array([_printed_cut(float(index[q]))[1]])
            cpos[q] = _packing.cut_positions(X, ordm, var[q : q + 1], pc, 0.0)[0][0]
    h = var.shape[0]
    ge = np.zeros(2 * h, dtype=np.bool_)
    ge[h:] = True
    return NodeExternal(
        names,
        np.concatenate((var, var)),
        ge,
        np.concatenate((index, index)),
        np.concatenate((cpos, cpos)),
        X,
    )


def external_questions(
    X: np.ndarray,
    names: Sequence[str],
    y: np.ndarray,
    method: ExternalMethod = "rpart",
    *,
    cut: Literal["printed", "exact"] = "printed",
    orders: Sequence[np.ndarray | None] | None = None,
) -> tuple[list[str], np.ndarray]:
    """bsnsing's external questions at a node and their answers.

    Args:
        X: (n, p) design matrix rows of the node, in their original order.
        names: the p column names, used verbatim in the texts.
        y: the node's 0/1 response.
        method: ``"rpart"`` (native, default) or ``"r"`` (R's rpart via rpy2).
        cut: ``"printed"`` (default, as R bsnsing: the answer of ``v < c`` is
            computed with the 15-digit printed ``c`` as R's parser reads it)
            or ``"exact"`` (rpart's exact double). Ignored by ``method="r"``
            (always the printed cut).
        orders: optionally, per column, an ascending order of the node's
            values, e.g. the stable orders binarization computes
            (``np.argsort(X[:, j], kind="stable")``); saves the sorting, which
            is most of the cost. Ignored by ``method="r"``.

    Returns:
        ``(texts, answers)``: the texts ``"v < c"`` for every split row in
        rpart's table order, then ``"v >= c"`` for every row; ``answers`` is
        the (n, m) uint8 matrix with 1 where a row answers yes. ``m`` is 0
        when rpart proposes nothing (fewer than ``minsplit`` rows, a pure
        node, constant columns, ...).
    """
    s = external_question_set(X, names, y, method, cut=cut, orders=orders)
    return s.texts, s.answers
