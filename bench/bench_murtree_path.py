"""murtree_path against separate murtree_fit calls and pystreed budget by budget.

For each data set and depth: the time of one ``murtree_path`` (every node
budget 0..2^depth-1 on one cache) against the sum of ``murtree_fit`` calls with
``max_num_nodes`` = each budget (the same objective: fewest errors, then fewest
nodes), and the time of ``murtree_path(fewest_nodes=False)`` against pystreed's
``STreeDClassifier`` run budget by budget (``max_num_nodes``; the same
objective: fewest errors). Every point of the path is checked against the
separate fit (errors and nodes) and pystreed (errors). The JIT is warmed first.
Writes ``bench/results/murtree_path.csv`` and ``.txt``.

    python bench/bench_murtree_path.py [--depths 3 4] [--datasets anneal yeast]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "bench"))

from bench_murtree import load, warm_up  # noqa: E402

from pybsnsing.optimal import murtree_fit, murtree_path  # noqa: E402

DATASETS = ["anneal", "australian-credit", "german-credit", "yeast", "kr-vs-kp",
            "hypothyroid", "segment", "car_evaluation_categorical_bin", "iris_categorical_bin",
            "compas-binary", "vote"]


def streed(X, y, depth, budget, time_limit):
    from pystreed import STreeDClassifier

    clf = STreeDClassifier(optimization_task="accuracy", max_depth=depth,
                           max_num_nodes=budget, time_limit=time_limit)
    t0 = time.perf_counter()
    clf.fit(X, y)
    t = time.perf_counter() - t0
    return t, int((clf.predict(X) != y).sum()), bool(clf.fit_result.is_optimal())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--depths", nargs="+", type=int, default=[3, 4])
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "murtree_path.csv")
    args = ap.parse_args(argv)
    warm_up()
    lines: list[str] = []

    def say(text: str) -> None:
        print(text, flush=True)
        lines.append(text)

    say(f"# bench_murtree_path.py {' '.join(argv if argv is not None else sys.argv[1:])}; "
        f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    say("# path: murtree_path; fits: sum of murtree_fit per budget (same objective); "
        "path0: murtree_path(fewest_nodes=False); streed: sum of pystreed per budget")
    head = (f"{'dataset':<32}{'d':>2}{'budgets':>8}{'path s':>9}{'fits s':>9}{'fits/path':>10}"
            f"{'path0 s':>9}{'streed s':>10}{'streed/path0':>13}{'equal':>6}")
    say(head)
    say("-" * len(head))
    rows = []
    for name in args.datasets:
        X, y = load(name)
        for depth in args.depths:
            t0 = time.perf_counter()
            path = murtree_path(X, y, max_depth=depth, time_limit=args.time_limit)
            tp = time.perf_counter() - t0
            t0 = time.perf_counter()
            path0 = murtree_path(X, y, max_depth=depth, time_limit=args.time_limit,
                                 fewest_nodes=False)
            tp0 = time.perf_counter() - t0
            tf = ts = 0.0
            equal = bool(path.optimal.all() and path0.optimal.all())
            for b in path.budgets:
                t0 = time.perf_counter()
                fit = murtree_fit(X, y, max_depth=depth, max_num_nodes=int(b),
                                  time_limit=args.time_limit)
                tf += time.perf_counter() - t0
                t, err, opt = streed(X, y, depth, int(b), args.time_limit)
                ts += t
                equal &= (fit.objective, fit.num_nodes) == (path.errors[b], path.num_nodes[b])
                equal &= err == path0.errors[b] == path.errors[b] and opt
            row = {"dataset": name, "depth": depth, "budgets": len(path.budgets),
                   "path_s": round(tp, 4), "fits_s": round(tf, 4),
                   "fits_over_path": round(tf / tp, 2), "path0_s": round(tp0, 4),
                   "pystreed_s": round(ts, 4), "pystreed_over_path0": round(ts / tp0, 2),
                   "equal": equal}
            rows.append(row)
            say(f"{name:<32}{depth:>2}{len(path.budgets):>8}{tp:>9.3f}{tf:>9.3f}"
                f"{tf / tp:>10.1f}{tp0:>9.3f}{ts:>10.3f}{ts / tp0:>13.1f}"
                f"{'yes' if equal else 'NO':>6}")
    df = pd.DataFrame(rows)
    say("-" * len(head))
    say(f"total: path {df.path_s.sum():.2f} s vs fits {df.fits_s.sum():.2f} s "
        f"({df.fits_s.sum() / df.path_s.sum():.1f}x); path0 {df.path0_s.sum():.2f} s vs "
        f"pystreed {df.pystreed_s.sum():.2f} s ({df.pystreed_s.sum() / df.path0_s.sum():.1f}x); "
        f"smallest speed-ups {df.fits_over_path.min():.1f}x / {df.pystreed_over_path0.min():.1f}x;"
        f" all points equal: {bool(df.equal.all())}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    args.out.with_suffix(".txt").write_text("\n".join(lines) + "\n")
    return 0 if bool(df.equal.all()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
