"""R's rpart through rpy2: the reference for :mod:`pybsnsing.external`.

Everything here runs R code; rpy2 is imported on first use. Requirements: R
(Debian: ``r-base-core``, ``r-cran-rpart``) and ``rpy2>=3.5,<3.6`` from PyPI
(``pip install "rpy2==3.5.17"``; 3.6 fails with Debian's R 4.2.2). rpy2 finds
R with ``R RHOME``; set ``R_HOME`` (e.g. ``/usr/lib/R``) when R is not on
``PATH``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from .._optional import require

__all__ = ["r_available", "rpart_split_table", "r_rpart_questions", "r_eval_questions"]

#: R helpers, defined once per session.
_R_CODE = r"""
local({
  .pyb_fit <- function(df, response, maxdepth, minsplit, minbucket, cp,
                       maxcompete, maxsurrogate, xval, seed) {
    if (!is.null(seed)) set.seed(seed)
    fml <- stats::as.formula(paste0("`", response, "` ~ ."))
    ctl <- rpart::rpart.control(maxdepth = maxdepth, minsplit = minsplit,
                                minbucket = minbucket, cp = cp,
                                maxcompete = maxcompete,
                                maxsurrogate = maxsurrogate, xval = xval)
    rpart::rpart(fml, data = df, control = ctl)
  }
  .pyb_split_table <- function(df, response, maxdepth, minsplit, minbucket, cp,
                               maxcompete, maxsurrogate, xval, seed) {
    rp <- .pyb_fit(df, response, maxdepth, minsplit, minbucket, cp,
                   maxcompete, maxsurrogate, xval, seed)
    s <- rp$splits
    if (is.null(s)) {
      return(list(variable = character(0), node = integer(0), kind = character(0),
                  count = numeric(0), ncat = numeric(0), improve = numeric(0),
                  index = numeric(0), adj = numeric(0)))
    }
    fr <- rp$frame[rp$frame$var != "<leaf>", , drop = FALSE]
    node <- integer(0); kind <- character(0)
    for (i in seq_len(nrow(fr))) {
      nc <- fr$ncompete[i]; ns <- fr$nsurrogate[i]
      node <- c(node, rep(as.integer(rownames(fr)[i]), 1 + nc + ns))
      kind <- c(kind, "primary", rep("competitor", nc), rep("surrogate", ns))
    }
    list(variable = rownames(s), node = node, kind = kind,
         count = unname(s[, "count"]), ncat = unname(s[, "ncat"]),
         improve = unname(s[, "improve"]), index = unname(s[, "index"]),
         adj = unname(s[, "adj"]))
  }
  # import_external_rules() of bsnsing 1.0.1, rpart part, verbatim logic
  .pyb_questions <- function(xm, nms, y, seed) {
    x <- as.data.frame(xm)
    names(x) <- nms
    external_df <- cbind(y, x)
    colnames(external_df)[1] <- '._.external_y_._'
    if (!is.null(seed)) set.seed(seed)
    external_rules <- c()
    rp <- tryCatch(
      error = function(cnd) NA,
      rpart::rpart(._.external_y_._ ~ ., data = external_df,
                   control = rpart::rpart.control(maxdepth = 2))
    )
    if (methods::is(rp, "rpart")) {
      rpsplits <- rp$splits
      if (!is.null(rpsplits)) {
        rpsplits <- rpsplits[which(rpsplits[, 1] > 0), , drop = FALSE]
        if (nrow(rpsplits) > 0) {
          rp_rules <- paste(rownames(rpsplits), rep('<', nrow(rpsplits)), rpsplits[, 4])
          rp_rules_reverse <- paste(rownames(rpsplits), rep('>=', nrow(rpsplits)),
                                    rpsplits[, 4])
          external_rules <- c(external_rules, rp_rules, rp_rules_reverse)
        }
      }
    }
    as.character(external_rules)
  }
  # bsnsing's evaluation of rule texts on the node's rows
  .pyb_answers <- function(xm, nms, rules) {
    x <- as.data.frame(xm)
    names(x) <- nms
    out <- matrix(0L, nrow(x), length(rules))
    for (j in seq_along(rules)) {
      out[, j] <- as.integer(ifelse(with(x, eval(parse(text = rules[j]))), 1, 0))
    }
    out
  }
  list(split_table = .pyb_split_table, questions = .pyb_questions,
       answers = .pyb_answers)
})
"""


@functools.lru_cache(maxsize=1)
def r_available() -> bool:
    """True when rpy2 imports, R starts and the rpart package is installed."""
    try:
        import rpy2.robjects as ro
    except Exception:  # ImportError, or rpy2 failing to find/load R
        return False
    try:
        return bool(ro.r('nzchar(system.file(package = "rpart"))')[0])
    except Exception:
        return False


@functools.lru_cache(maxsize=1)
def _helpers() -> Any:
    """The R helper closures (defined on first use)."""
    require("r", "R's own rpart (import_external='r')", module="rpy2.robjects")
    if not r_available():
        from ..errors import PybsnsingImportError

        raise PybsnsingImportError(
            "R with the rpart package is not available through rpy2 "
            "(pip install 'rpy2==3.5.17'; set R_HOME if R is not on PATH)"
        )
    import rpy2.robjects as ro

    return ro.r(_R_CODE)


def _to_r(obj: Any) -> Any:
    """numpy array / pandas frame -> R object (numpy2ri + pandas2ri)."""
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.robjects as ro
    from rpy2.robjects import numpy2ri, pandas2ri
    from rpy2.robjects.conversion import localconverter

    with localconverter(ro.default_converter + numpy2ri.converter + pandas2ri.converter) as cv:
        return cv.py2rpy(obj)


def _null_or(v: int | None) -> Any:
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.robjects as ro

    return ro.NULL if v is None else ro.IntVector([int(v)])


def rpart_split_table(
    df: pd.DataFrame,
    response: str,
    maxdepth: int = 2,
    minsplit: int = 20,
    minbucket: int | None = None,
    cp: float = 0.01,
    maxcompete: int = 4,
    maxsurrogate: int = 5,
    xval: int = 10,
    seed: int | None = 1,
) -> pd.DataFrame:
    """R's ``rpart(response ~ ., data = df)$splits`` as a data frame.

    Args:
        df: the data; numeric response -> anova tree (as bsnsing's integer 0/1).
        response: name of the response column.
        maxdepth, minsplit, cp, maxcompete, maxsurrogate, xval: ``rpart.control``.
        minbucket: ``rpart.control`` minbucket; None means rpart's default
            ``round(minsplit / 3)``.
        seed: ``set.seed(seed)`` before the fit (cross-validation draws random
            numbers); None leaves R's generator alone.

    Returns:
        One row per split-table row, in R's order, with columns ``node``
        (rpart node number), ``variable``, ``kind`` (``primary``,
        ``competitor`` or ``surrogate``), ``count``, ``ncat`` (direction for
        continuous splits), ``improve``, ``index`` (the split point) and ``adj``.
    """
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.robjects as ro

    if minbucket is None:
        minbucket = int(round(minsplit / 3))  # R's round: half to even, as Python's
    h = _helpers()
    res = h.rx2("split_table")(
        _to_r(df),
        ro.StrVector([response]),
        ro.IntVector([maxdepth]),
        ro.IntVector([minsplit]),
        ro.IntVector([minbucket]),
        ro.FloatVector([cp]),
        ro.IntVector([maxcompete]),
        ro.IntVector([maxsurrogate]),
        ro.IntVector([xval]),
        _null_or(seed),
    )
    cols = ["node", "variable", "kind", "count", "ncat", "improve", "index", "adj"]
    data = {c: list(res.rx2(c)) for c in cols}
    out = pd.DataFrame(data, columns=cols)
    return out.astype(
        {
            "node": "int64",
            "variable": "object",
            "kind": "object",
            "count": "int64",
            "ncat": "int64",
            "improve": "float64",
            "index": "float64",
            "adj": "float64",
        }
    )


def r_rpart_questions(
    X: np.ndarray, names: Sequence[str], y: np.ndarray, seed: int | None = 1
) -> list[str]:
    """The external questions R bsnsing 1.0.1 derives from R's rpart at a node.

    Runs the rpart part of bsnsing's ``import_external_rules`` verbatim:
    ``rpart(y ~ ., cbind(y, x), control = rpart.control(maxdepth = 2))`` with
    ``y`` an integer vector, keeps split rows with ``count > 0`` and pastes
    ``v < c`` for all of them, then ``v >= c`` for all. An R error gives no
    questions, as in bsnsing.

    Args:
        X: (n, p) design matrix rows of the node (doubles).
        names: column names, used verbatim.
        y: 0/1 response of the node.
        seed: ``set.seed(seed)`` before the fit (None: leave R's RNG alone).
    """
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.robjects as ro

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != len(names):
        raise ValueError("names must have one entry per column of X")
    h = _helpers()
    yv = np.asarray(y)
    if not np.all(yv == np.round(yv)):
        raise ValueError("y must hold integers (bsnsing passes 0/1)")
    res = h.rx2("questions")(
        _to_r(np.asfortranarray(X)),
        ro.StrVector(list(names)),
        ro.IntVector(yv.astype(np.int64).tolist()),
        _null_or(seed),
    )
    return [str(s) for s in res]


def r_eval_questions(X: np.ndarray, names: Sequence[str], texts: Sequence[str]) -> np.ndarray:
    """Evaluate question texts in R as bsnsing does (``with(x, eval(parse(text = q)))``).

    Returns the (n, len(texts)) uint8 answer matrix.
    """
    require("r", "R through rpy2", module="rpy2.robjects")
    import rpy2.robjects as ro

    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != len(names):
        raise ValueError("names must have one entry per column of X")
    if not texts:
        return np.zeros((X.shape[0], 0), dtype=np.uint8)
    from ..rules import parse_rule

    for t in texts:  # question texts are data: only bsnsing's forms reach R's parser
        parse_rule(t)
    h = _helpers()
    res = h.rx2("answers")(
        _to_r(np.asfortranarray(X)), ro.StrVector(list(names)), ro.StrVector(list(texts))
    )
    return np.asarray(res, dtype=np.uint8).reshape((X.shape[0], len(texts)), order="F")
