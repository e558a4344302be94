"""Benchmark of the external rules (rpart split points) at one node.

Times :func:`pybsnsing.external.external_questions` (native numba replay of
rpart 4.1.19) on data shaped like the ``synthetic*`` sets (p = 10 standard
normal columns, ``y = 1[x1 + x2*x3 - 0.5*x4 + 0.5*(x5 > 1) + N(0, 0.5^2) > 0]``)
for n = 1000 .. 100000, and compares with R:

- ``R (rpy2)``: :func:`pybsnsing.r.rpart.r_rpart_questions`, i.e. bsnsing's
  ``import_external_rules`` rpart call end to end, data transfer included;
- ``R (in R)``: the same R code timed inside R (``proc.time``), no transfer.

``native`` includes the sorts, ``native+orders`` gets per-column stable
orders precomputed (as a tree that presorts at the root would pass them).
Times are the minimum over ``--repeat`` runs (``time.perf_counter``) after a
warm-up call (JIT compiled or loaded from cache). ``same`` says whether the
native question texts equal R's.

Usage::

    python bench/bench_external.py [--sizes 1000 10000 100000] [--repeat 5] [--no-r]

Needs R + rpart + rpy2 for the R columns (they show ``-`` otherwise).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from pybsnsing.external import external_questions


def synthetic(n: int, seed: int = 2024) -> tuple[np.ndarray, list[str], np.ndarray]:
    """Data like ``shared/data/tabular/synthetic*.csv`` (not the same random numbers):
    :func:`_data.synthetic_blocks` as arrays."""
    from _data import synthetic_blocks

    blocks = list(synthetic_blocks(n, seed))
    X = np.concatenate([x for x, _ in blocks])
    y = np.concatenate([yb for _, yb in blocks]).astype(np.int64)
    return X, [f"x{j}" for j in range(1, 11)], y


def best_of(fn, repeat: int) -> float:
    """Minimum wall time of ``repeat`` calls, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


_R_TIMER = r"""
function(xm, nms, y, reps) {
  x <- as.data.frame(xm); names(x) <- nms
  external_df <- cbind(y, x)
  colnames(external_df)[1] <- '._.external_y_._'
  best <- Inf
  for (r in seq_len(reps)) {
    set.seed(1)
    t0 <- proc.time()[["elapsed"]]
    rp <- rpart::rpart(._.external_y_._ ~ ., data = external_df,
                       control = rpart::rpart.control(maxdepth = 2))
    s <- rp$splits
    s <- s[which(s[, 1] > 0), , drop = FALSE]
    q <- c(paste(rownames(s), '<', s[, 4]), paste(rownames(s), '>=', s[, 4]))
    best <- min(best, proc.time()[["elapsed"]] - t0)
  }
  best * 1000
}
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 3000, 10000, 30000, 100000])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--no-r", action="store_true", help="skip the R columns")
    args = ap.parse_args()

    rr = None
    if not args.no_r:
        try:
            from pybsnsing.r import rpart as rr

            if not rr.r_available():
                rr = None
        except Exception:
            rr = None
    r_timer = None
    if rr is not None:
        import rpy2.robjects as ro

        r_timer = ro.r(_R_TIMER)

    X0, n0, y0 = synthetic(200)
    external_questions(X0, n0, y0)  # warm-up: JIT compile / cache load

    header = (
        f"{'n':>7} {'native ms':>10} {'native+orders ms':>17} {'R (rpy2) ms':>12} "
        f"{'R (in R) ms':>12} {'speed-up':>9} {'#q':>4} {'same':>5}"
    )
    print(header)
    print("-" * len(header))
    for n in args.sizes:
        X, names, y = synthetic(n)
        texts, _ = external_questions(X, names, y)
        t_nat = best_of(lambda X=X, names=names, y=y: external_questions(X, names, y), args.repeat)
        orders = [np.argsort(X[:, j], kind="stable") for j in range(X.shape[1])]
        t_ord = best_of(
            lambda X=X, names=names, y=y, o=orders: external_questions(X, names, y, orders=o),
            args.repeat,
        )
        t_r = t_rin = float("nan")
        same = "-"
        if rr is not None:
            r_texts = rr.r_rpart_questions(X, names, y)
            same = "yes" if r_texts == texts else "NO"
            t_r = best_of(
                lambda X=X, names=names, y=y: rr.r_rpart_questions(X, names, y),
                max(1, min(args.repeat, 3)),
            )
            import rpy2.robjects as ro
            from rpy2.robjects import numpy2ri
            from rpy2.robjects.conversion import localconverter

            with localconverter(ro.default_converter + numpy2ri.converter) as cv:
                xm = cv.py2rpy(np.asfortranarray(X))
            t_rin = float(
                r_timer(
                    xm,
                    ro.StrVector(names),
                    ro.IntVector(y.tolist()),
                    ro.IntVector([max(1, min(args.repeat, 3))]),
                )[0]
            )
        speed = t_rin / t_nat if t_rin == t_rin else float("nan")

        def fmt(v: float) -> str:
            return "-" if v != v else f"{v:.2f}"

        print(
            f"{n:>7} {t_nat:>10.2f} {t_ord:>17.2f} {fmt(t_r):>12} {fmt(t_rin):>12} "
            f"{fmt(speed):>9} {len(texts):>4} {same:>5}"
        )


if __name__ == "__main__":
    main()
