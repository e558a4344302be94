"""External rules: the split points R's rpart proposes at a node (bsnsing §4).

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

- :func:`rpart_splits` replays rpart 4.1.19's C code for continuous
  predictors (see :mod:`pybsnsing.kernels.rpart` for the split search and
  the port notes); the tree recursion and complexity (cp) bookkeeping of
  ``partition.c`` is :func:`_partition` below. Cross-validation is not run:
  it consumes R's random numbers but never changes the split table.
- :func:`external_questions` turns the split table into bsnsing's question
  texts (``c`` written by :func:`pybsnsing.rformat.format_r`, i.e. R's
  ``as.character``) and the 0/1 answer matrix.

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
every improvement). Every value must be finite (bsnsing imputes missing
values before growing); rpart would treat non-finite values as missing, which
is not replicated.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from .kernels import rpart as _k

__all__ = [
    "RpartSplit",
    "rpart_split_table",
    "rpart_splits",
    "external_specs",
    "external_questions",
]

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
        primary: True for the node's primary split, False for a competitor.
    """

    node: int
    var: int
    index: float
    count: int
    ncat: int
    improve: float
    primary: bool


@dataclass
class _Node:
    """Minimal mirror of rpart's ``struct node`` (what partition.c uses)."""

    complexity: float
    risk: float = 0.0
    num_obs: int = 0
    splits: list[RpartSplit] | None = None
    left: _Node | None = None
    right: _Node | None = None


class _Fit:
    """State of one rpart fit (the fields of rpart's global ``rp`` we need)."""

    def __init__(
        self,
        xt: np.ndarray,
        y: np.ndarray,
        *,
        maxdepth: int,
        minsplit: int,
        minbucket: int,
        cp: float,
        maxcompete: int,
    ) -> None:
        p, n = xt.shape
        self.xt = xt
        self.y = y
        self.min_split = int(minsplit)
        self.min_node = int(minbucket)
        self.complexity = float(cp)
        self.maxpri = max(int(maxcompete) + 1, 1)
        self.maxnode = int(2.0 ** float(maxdepth)) - 1
        self.iscale = 0.0
        self.alpha = 0.0
        self.sorts = _k.sort_columns(xt)
        self.goes_left = np.zeros(n, dtype=np.uint8)
        self.tempvec = np.zeros(n, dtype=np.int64)
        self.o_var = np.zeros(self.maxpri, dtype=np.int64)
        self.o_imp = np.zeros(self.maxpri, dtype=np.float64)
        self.o_split = np.zeros(self.maxpri, dtype=np.float64)
        self.o_dir = np.zeros(self.maxpri, dtype=np.int64)
        self.o_count = np.zeros(self.maxpri, dtype=np.int64)

    def bsplit(self, nodenum: int, me: _Node, n1: int, n2: int) -> list[RpartSplit]:
        """Ranked primary + competitor splits of the node (rpart ``bsplit``)."""
        nlist, self.iscale = _k.bsplit(
            self.xt,
            self.y,
            self.sorts,
            n1,
            n2,
            self.min_node,
            me.risk,
            self.iscale,
            self.maxpri,
            self.o_var,
            self.o_imp,
            self.o_split,
            self.o_dir,
            self.o_count,
        )
        return [
            RpartSplit(
                node=nodenum,
                var=int(self.o_var[t]),
                index=float(self.o_split[t]),
                count=int(self.o_count[t]),
                ncat=int(self.o_dir[t]),
                improve=float(self.o_imp[t]),
                primary=t == 0,
            )
            for t in range(nlist)
        ]

    def partition(self, nodenum: int, me: _Node, n1: int, n2: int) -> tuple[int, float]:
        """Port of rpart's ``partition.c``; returns (number of splits, subtree risk)."""
        alpha = self.alpha
        if nodenum > 1:
            me.risk = _k.anovass_range(self.y, self.sorts[0], n1, n2)
            me.num_obs = n2 - n1
            tempcp = me.risk
            if tempcp > me.complexity:
                tempcp = me.complexity
        else:
            tempcp = me.risk

        # Can I quit now?
        if me.num_obs < self.min_split or tempcp <= alpha or nodenum > self.maxnode:
            me.complexity = alpha
            return 0, me.risk

        splits = self.bsplit(nodenum, me, n1, n2)
        if not splits:
            me.complexity = alpha
            return 0, me.risk
        me.splits = splits
        prim = splits[0]
        nleft = _k.nodesplit(
            self.xt,
            self.sorts,
            n1,
            n2,
            prim.var,
            prim.index,
            prim.ncat,
            self.goes_left,
            self.tempvec,
        )
        nright = (n2 - n1) - nleft

        me.left = _Node(complexity=tempcp - alpha)
        left_split, left_risk = self.partition(2 * nodenum, me.left, n1, n1 + nleft)

        # update my estimate of cp, and split the right son
        tempcp = (me.risk - left_risk) / (left_split + 1)
        tempcp2 = me.risk - me.left.risk
        if tempcp < tempcp2:
            tempcp = tempcp2
        if tempcp > me.complexity:
            tempcp = me.complexity
        me.right = _Node(complexity=tempcp - alpha)
        right_split, right_risk = self.partition(
            1 + 2 * nodenum, me.right, n1 + nleft, n1 + nleft + nright
        )

        # my actual C.P., which depends on the children and on grandchildren
        # who do not collapse before the children
        tempcp = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)
        if me.right.complexity > me.left.complexity:
            if tempcp > me.left.complexity:
                # left son collapses first
                left_risk = me.left.risk
                left_split = 0
                tempcp = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)
                if tempcp > me.right.complexity:
                    right_risk = me.right.risk
                    right_split = 0
        elif tempcp > me.right.complexity:
            # right son goes first
            right_split = 0
            right_risk = me.right.risk
            tempcp = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)
            if tempcp > me.left.complexity:
                left_risk = me.left.risk
                left_split = 0
        me.complexity = (me.risk - (left_risk + right_risk)) / (left_split + right_split + 1)

        if me.complexity <= alpha:
            # all was in vain: this node does not split after all
            me.left = None
            me.right = None
            me.splits = None
            return 0, me.risk
        return left_split + right_split + 1, left_risk + right_risk


def _collect(me: _Node, out: list[RpartSplit]) -> None:
    """Split rows in rpart's table order (``rpmatrix``: pre-order, left first)."""
    if me.left is None or me.right is None or me.splits is None:
        return
    out.extend(me.splits)
    _collect(me.left, out)
    _collect(me.right, out)


def _check_xy(X: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Validate and convert inputs; returns (xt (p, n) C-contiguous, y float64)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-dimensional, got shape {X.shape}")
    yv = np.asarray(y)
    if yv.ndim != 1 or yv.shape[0] != X.shape[0]:
        raise ValueError(f"y must be 1-dimensional of length {X.shape[0]}, got shape {yv.shape}")
    yf = np.ascontiguousarray(yv, dtype=np.float64)
    if X.size and not np.isfinite(X).all():
        raise ValueError("X holds non-finite values (rpart would treat them as missing)")
    if yf.size and not np.isfinite(yf).all():
        raise ValueError("y holds non-finite values")
    return np.ascontiguousarray(X.T), yf


def rpart_split_table(
    X: np.ndarray,
    y: np.ndarray,
    *,
    maxdepth: int = 2,
    minsplit: int = 20,
    minbucket: int = 7,
    cp: float = 0.01,
    maxcompete: int = 4,
) -> list[RpartSplit]:
    """Primary and competitor rows of ``rpart(y ~ ., method = "anova")$splits``.

    Native replay of rpart 4.1.19 for all-continuous, finite predictors with
    unit weights (the rows of the table with ``count > 0`` when nothing is
    missing). Rows come in rpart's order: nodes in pre-order (root, left
    subtree, right subtree), each node's primary split first, then its
    competitors by decreasing improvement (ties: the earlier column first).

    Args:
        X: (n, p) predictors, the node's rows in their original order.
        y: length-n numeric response (bsnsing passes 0/1).
        maxdepth, minsplit, minbucket, cp, maxcompete: as ``rpart.control``.

    Returns:
        The split rows; empty when rpart does not split the root.
    """
    if maxdepth < 1 or maxdepth > 30:
        raise ValueError("maxdepth must be in 1..30 (as rpart.control)")
    if maxcompete < 0:
        raise ValueError("maxcompete must be >= 0")
    xt, yf = _check_xy(X, y)
    p, n = xt.shape
    if n == 0 or p == 0:
        return []
    fit = _Fit(
        xt,
        yf,
        maxdepth=maxdepth,
        minsplit=max(int(minsplit), 1),
        minbucket=max(int(minbucket), 1),
        cp=cp,
        maxcompete=maxcompete,
    )
    root = _Node(complexity=0.0)
    root.num_obs = n
    root.risk = _k.anovass_range(yf, np.arange(n, dtype=np.int64), 0, n)
    root.complexity = root.risk
    fit.alpha = fit.complexity * root.risk
    fit.partition(1, root, 0, n)
    out: list[RpartSplit] = []
    _collect(root, out)
    return out


def rpart_splits(
    X: np.ndarray,
    y: np.ndarray,
    *,
    maxdepth: int = 2,
    minsplit: int = 20,
    minbucket: int = 7,
    cp: float = 0.01,
    maxcompete: int = 4,
) -> list[tuple[int, float]]:
    """(column index, split point) of every count > 0 row of rpart's split table.

    The order is rpart's table order (see :func:`rpart_split_table`); split
    points are the exact doubles rpart holds (midpoints of adjacent distinct
    values).
    """
    return [
        (s.var, s.index)
        for s in rpart_split_table(
            X,
            y,
            maxdepth=maxdepth,
            minsplit=minsplit,
            minbucket=minbucket,
            cp=cp,
            maxcompete=maxcompete,
        )
    ]


# ---------------------------------------------------------------------------
# R's parser for the printed cut: R_strtod (x87 long double), integer version
# ---------------------------------------------------------------------------

_NUM = re.compile(r"([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?")


def _round_bits(num: int, den: int, bits: int) -> tuple[int, int]:
    """``(q, s)`` with ``q * 2**-s`` = ``num / den`` rounded half-even to ``bits`` bits."""
    s = bits - 1 - (num.bit_length() - den.bit_length())
    while True:
        if s >= 0:
            d = den
            q, r = divmod(num << s, den)
        else:
            d = den << -s
            q, r = divmod(num, d)
        if q >= (1 << bits):
            s -= 1
        elif q < (1 << (bits - 1)):
            s += 1
        else:
            break
    if 2 * r > d or (2 * r == d and q & 1):
        q += 1
        if q == (1 << bits):
            q >>= 1
            s -= 1
    return q, s


def _r_atof_fast(text: str) -> float:
    """R's parse of a literal written by ``as.character`` (see :func:`pybsnsing.rformat.r_atof`).

    Same computation as ``r_atof`` (digits scaled by 10**k built by repeated
    squaring, each step rounded to a 64-bit significand, then rounded to
    double), done on (integer significand, binary exponent) pairs: about 15x
    faster, which matters because it runs for every external cut of every node.
    Exponents beyond +-300 are delegated to ``r_atof``.
    """
    m = _NUM.fullmatch(text)
    if m is None or not ((m.group(2) or "") + (m.group(3) or "")):
        from .rformat import r_atof

        return r_atof(text)
    sign, ip, fp, ex = m.groups()
    fp = fp or ""
    mant = int((ip or "") + fp)
    expn = (int(ex) if ex else 0) - len(fp)
    if mant == 0:
        return -0.0 if sign == "-" else 0.0
    if abs(expn) > 300 or mant >= (1 << 64):
        from .rformat import r_atof

        return r_atof(text)

    def ld(mm: int, ee: int) -> tuple[int, int]:
        q, s = _round_bits(mm, 1, 64)
        return q, ee - s

    am, ae = mant, 0
    pm, pe = 10, 0
    fm, fe = 1, 0
    n = abs(expn)
    while n:
        if n & 1:
            fm, fe = ld(fm * pm, fe + pe)
        n >>= 1
        if n:
            pm, pe = ld(pm * pm, pe + pe)
    if expn < 0:
        q, s = _round_bits(am, fm, 64)
        am, ae = q, ae - fe - s
    elif expn > 0:
        am, ae = ld(am * fm, ae + fe)
    q, s = _round_bits(am, 1, 53)
    v = math.ldexp(q, ae - s)
    return -v if sign == "-" else v


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


def _specs_from_splits(
    splits: Sequence[tuple[int, float]],
    names: Sequence[str],
    cut: Literal["printed", "exact"],
) -> list[ExternalQuestion]:
    from .rformat import format_r

    if cut not in ("printed", "exact"):
        raise ValueError(f"cut must be 'printed' or 'exact', got {cut!r}")
    printed = []
    for col, c in splits:
        s = format_r(c)
        printed.append((col, c, s, _r_atof_fast(s) if cut == "printed" else c))
    out = [ExternalQuestion(col, "<", c, v, f"{names[col]} < {s}") for col, c, s, v in printed]
    out += [ExternalQuestion(col, ">=", c, v, f"{names[col]} >= {s}") for col, c, s, v in printed]
    return out


def external_specs(
    X: np.ndarray,
    names: Sequence[str],
    y: np.ndarray,
    method: ExternalMethod = "rpart",
    *,
    cut: Literal["printed", "exact"] = "printed",
) -> list[ExternalQuestion]:
    """The external questions of a node, in bsnsing's order, with their metadata.

    ``method="rpart"`` is the native replay; ``method="r"`` asks R's rpart
    (through rpy2) and reads the variable and the printed cut back from R's
    question texts, so ``split`` is then the printed cut as R parses it.
    """
    names = list(names)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != len(names):
        raise ValueError("names must have one entry per column of X")
    if method == "rpart":
        return _specs_from_splits(rpart_splits(X, y), names, cut)
    if method == "r":
        from .r.rpart import r_rpart_questions

        texts = r_rpart_questions(X, names, y)
        col_of = {nm: j for j, nm in reversed(list(enumerate(names)))}
        out = []
        for t in texts:
            nm, op, num = t.rsplit(" ", 2)
            v = _r_atof_fast(num)
            out.append(ExternalQuestion(col_of[nm], op, v, v, t))
        return out
    raise ValueError(f"unknown method {method!r}; use 'rpart' or 'r'")


def external_questions(
    X: np.ndarray,
    names: Sequence[str],
    y: np.ndarray,
    method: ExternalMethod = "rpart",
    *,
    cut: Literal["printed", "exact"] = "printed",
) -> tuple[list[str], np.ndarray]:
    """bsnsing's external questions at a node and their answers.

    Args:
        X: (n, p) design matrix rows of the node, in their original order.
        names: the p column names, used verbatim in the texts.
        y: the node's 0/1 response.
        method: ``"rpart"`` (native, default) or ``"r"`` (R's rpart via rpy2).
        cut: ``"printed"`` (default, as R bsnsing: the answer of ``v < c`` is
            computed with the 15-digit printed ``c`` as R's parser reads it)
            or ``"exact"`` (rpart's exact double).

    Returns:
        ``(texts, answers)``: the texts ``"v < c"`` for every split row in
        rpart's table order, then ``"v >= c"`` for every row; ``answers`` is
        the (n, m) uint8 matrix with 1 where a row answers yes. ``m`` is 0
        when rpart proposes nothing (fewer than ``minsplit`` rows, a pure
        node, constant columns, ...).
    """
    specs = external_specs(X, names, y, method, cut=cut)
    xt = np.ascontiguousarray(np.asarray(X, dtype=np.float64).T)
    cols = np.array([q.col for q in specs], dtype=np.int64)
    ops = np.array([0 if q.op == "<" else 1 for q in specs], dtype=np.int64)
    cuts = np.array([q.cut for q in specs], dtype=np.float64)
    answers = _k.answer_matrix(xt, cols, ops, cuts)
    return [q.text for q in specs], answers
