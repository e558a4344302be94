"""MurTree (pybsnsing.optimal) against pystreed, side by side in one run.

For each data set and depth: fit time of ``pybsnsing.optimal.murtree_fit``
(bit-packing included) and of ``pystreed.STreeDClassifier.fit`` (same limits:
``max_depth``, no node limit, ``time_limit``), their ratio and whether the
misclassification counts agree. The JIT is warmed before any timing. With
``--repeat k`` each fit is timed k times (interleaved) and the minimum kept.

Writes the table to ``bench/results/murtree.csv`` (or ``--out``).

    python bench/bench_murtree.py [--depths 3 4] [--datasets anneal vehicle] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pybsnsing.optimal import murtree_fit  # noqa: E402

DATASETS = [
    "anneal",
    "australian-credit",
    "german-credit",
    "vehicle",
    "yeast",
    "kr-vs-kp",
    "mushroom",
    "hypothyroid",
]
TARGET_RATIO = 3.0


def shared_dir() -> Path:
    return Path(os.environ.get("PYBSNSING_SHARED", REPO.parent / "shared"))


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    binary = shared_dir() / "data" / "binary"
    manifest = pd.read_csv(binary / "manifest.csv").set_index("name")
    a = pd.read_csv(binary / manifest.loc[name, "file"], sep=" ", header=None).to_numpy()
    return np.ascontiguousarray(a[:, 1:], dtype=np.uint8), a[:, 0].astype(np.int64)


def time_ours(X, y, depth: int, time_limit: float) -> tuple[float, int, bool]:
    t0 = time.perf_counter()
    model = murtree_fit(X, y, max_depth=depth, time_limit=time_limit)
    return time.perf_counter() - t0, model.objective, model.optimal


def time_streed(X, y, depth: int, time_limit: float) -> tuple[float, int, bool]:
    from pystreed import STreeDClassifier

    clf = STreeDClassifier(
        optimization_task="accuracy", max_depth=depth, max_num_nodes=None, time_limit=time_limit
    )
    t0 = time.perf_counter()
    clf.fit(X, y)
    elapsed = time.perf_counter() - t0
    return elapsed, int((clf.predict(X) != y).sum()), bool(clf.fit_result.is_optimal())


def warm_up() -> None:
    """Load (or compile) every numba kernel before timing."""
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (200, 12))
    for labels in (rng.integers(0, 2, 200), rng.integers(0, 3, 200)):
        for depth in (2, 3, 4):
            murtree_fit(X, labels, max_depth=depth)
        murtree_fit(X, labels, max_depth=3, max_num_nodes=5, sparse_coefficient=0.01)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=DATASETS)
    ap.add_argument("--depths", nargs="+", type=int, default=[3, 4])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--time-limit", type=float, default=600.0)
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "murtree.csv")
    args = ap.parse_args(argv)

    t0 = time.perf_counter()
    warm_up()
    print(f"JIT warm-up: {time.perf_counter() - t0:.1f} s", flush=True)
    rows = []
    header = (
        f"{'dataset':<20}{'depth':>6}{'ours s':>10}{'pystreed s':>12}{'ratio':>8}"
        f"{'ours obj':>10}{'pystreed obj':>14}{'equal':>7}"
    )
    print(header)
    print("-" * len(header))
    for name in args.datasets:
        X, y = load(name)
        for depth in args.depths:
            ours_t, streed_t = [], []
            for _ in range(max(1, args.repeat)):
                t, ours_obj, ours_opt = time_ours(X, y, depth, args.time_limit)
                ours_t.append(t)
                t, ref_obj, ref_opt = time_streed(X, y, depth, args.time_limit)
                streed_t.append(t)
            a, b = min(ours_t), min(streed_t)
            row = {
                "dataset": name,
                "depth": depth,
                "n": X.shape[0],
                "features": X.shape[1],
                "ours_s": round(a, 4),
                "pystreed_s": round(b, 4),
                "ratio": round(a / b, 3) if b > 0 else float("nan"),
                "ours_objective": ours_obj,
                "pystreed_objective": ref_obj,
                "objective_equal": ours_obj == ref_obj,
                "ours_optimal": ours_opt,
                "pystreed_optimal": ref_opt,
            }
            rows.append(row)
            print(
                f"{name:<20}{depth:>6}{a:>10.3f}{b:>12.3f}{row['ratio']:>8.2f}"
                f"{ours_obj:>10}{ref_obj:>14}{'yes' if row['objective_equal'] else 'NO':>7}",
                flush=True,
            )
    df = pd.DataFrame(rows)
    ours_total, streed_total = df.ours_s.sum(), df.pystreed_s.sum()
    ratio = ours_total / streed_total if streed_total > 0 else float("nan")
    print("-" * len(header))
    print(f"{'total':<26}{ours_total:>10.3f}{streed_total:>12.3f}{ratio:>8.2f}")
    print(
        f"objectives equal: {int(df.objective_equal.sum())}/{len(df)}; "
        f"target total ratio <= {TARGET_RATIO:g}: {'met' if ratio <= TARGET_RATIO else 'NOT met'}"
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    print(f"written {args.out}")
    return 0 if bool(df.objective_equal.all()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
