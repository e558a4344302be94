"""MurTree (pybsnsing.optimal) against pystreed, side by side in one run.

For each data set of ``../shared/data/binary`` (its manifest) and depth
(2-5 by default): fit time of ``pystreed.STreeDClassifier.fit`` (accuracy,
``max_depth``, no node limit, ``time_limit`` 60 s) and of
``pybsnsing.optimal.murtree_fit`` (bit-packing included) with the same
objective, fewest misclassifications (``fewest_nodes=False``), their ratio and
whether the misclassification counts agree. Rows where pystreed does not
prove optimality within its time limit are listed as skipped (and the deeper
depths of that data set are not run). The default objective of
``murtree_fit`` (fewest misclassifications, then fewest nodes: a stronger
guarantee that pystreed does not give) is timed too, as ``lex s``, with its
own ratio; it is reported, not the target.

The JIT is warmed before any timing. With ``--repeat k`` each fit is timed k
times (interleaved; only rows where pystreed takes < ``--repeat-below`` s) and
the minimum kept. Prints the worst ratio; writes
``bench/results/murtree.csv`` and ``murtree.txt`` (or ``--out``).

    python bench/bench_murtree.py [--depths 3 4] [--datasets anneal vehicle] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from pybsnsing.optimal import murtree_fit  # noqa: E402

TARGET_RATIO = 1.0


def shared_dir() -> Path:
    return Path(os.environ.get("PYBSNSING_SHARED", REPO.parent / "shared"))


def manifest() -> pd.DataFrame:
    return pd.read_csv(shared_dir() / "data" / "binary" / "manifest.csv").set_index("name")


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    binary = shared_dir() / "data" / "binary"
    a = pd.read_csv(binary / manifest().loc[name, "file"], sep=" ", header=None).to_numpy()
    return np.ascontiguousarray(a[:, 1:], dtype=np.uint8), a[:, 0].astype(np.int64)


def time_ours(X, y, depth: int, time_limit: float, fewest_nodes: bool):
    t0 = time.perf_counter()
    model = murtree_fit(X, y, max_depth=depth, time_limit=time_limit, fewest_nodes=fewest_nodes)
    return time.perf_counter() - t0, model.objective, model.optimal, model.num_nodes


def time_streed(X, y, depth: int, time_limit: float):
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
            for fewest in (True, False):
                murtree_fit(X, labels, max_depth=depth, fewest_nodes=fewest)
        murtree_fit(X, labels, max_depth=3, max_num_nodes=5, sparse_coefficient=0.01)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--datasets", nargs="+", default=None, help="default: the whole manifest")
    ap.add_argument("--depths", nargs="+", type=int, default=[2, 3, 4, 5])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--streed-limit", type=float, default=60.0,
                    help="pystreed's time limit: rows it does not finish are skipped")
    ap.add_argument("--repeat-below", type=float, default=2.0,
                    help="repeat only rows where pystreed took less than this (seconds)")
    ap.add_argument("--time-limit", type=float, default=600.0, help="ours (same objective)")
    ap.add_argument("--lex-limit", type=float, default=30.0,
                    help="ours, default objective (fewest nodes too); 0 = not run")
    ap.add_argument("--out", type=Path, default=REPO / "bench" / "results" / "murtree.csv")
    args = ap.parse_args(argv)
    names = args.datasets or sorted(manifest().index, key=str.lower)

    lines: list[str] = []

    def say(text: str = "") -> None:
        print(text, flush=True)
        lines.append(text)

    t0 = time.perf_counter()
    warm_up()
    say(f"# bench_murtree.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    say(f"# {platform.platform()}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
        f"JIT warm-up {time.perf_counter() - t0:.1f} s; repeat {args.repeat}")
    say("# ratio = ours / pystreed, same objective (fewest misclassifications); "
        "lex = ours with the default objective (then fewest nodes)")
    rows = []
    header = (
        f"{'dataset':<34}{'d':>2}{'ours s':>9}{'pystreed s':>11}{'ratio':>7}"
        f"{'errors':>8}{'=':>3}{'lex s':>9}{'lex ratio':>10}{'nodes':>6}{'lex':>4}"
    )
    say(header)
    say("-" * len(header))
    for name in names:
        X, y = load(name)
        for depth in args.depths:
            ours_t, streed_t, lex_t = [], [], []
            skip = False
            for rep in range(max(1, args.repeat)):
                if rep > 0 and min(streed_t) > args.repeat_below:
                    break  # long rows: one timing (noise matters on the short ones)
                t, ref_obj, ref_opt = time_streed(X, y, depth, args.streed_limit)
                if not ref_opt:
                    skip = True
                    break
                streed_t.append(t)
                t, ours_obj, ours_opt, ours_nodes = time_ours(X, y, depth, args.time_limit, False)
                ours_t.append(t)
                if args.lex_limit > 0:
                    t, lex_obj, lex_opt, lex_nodes = time_ours(X, y, depth, args.lex_limit, True)
                    lex_t.append(t)
            if skip:
                say(f"{name:<34}{depth:>2}  skipped: pystreed not optimal within "
                    f"{args.streed_limit:g} s")
                rows.append({"dataset": name, "depth": depth, "n": X.shape[0],
                             "features": X.shape[1], "skipped": True})
                break
            a, b = min(ours_t), min(streed_t)
            row = {
                "dataset": name, "depth": depth, "n": X.shape[0], "features": X.shape[1],
                "skipped": False,
                "ours_s": round(a, 4), "pystreed_s": round(b, 4),
                "ratio": round(a / b, 3) if b > 0 else float("nan"),
                "ours_objective": ours_obj, "pystreed_objective": ref_obj,
                "objective_equal": ours_obj == ref_obj,
                "ours_optimal": ours_opt, "ours_nodes": ours_nodes,
            }
            lex = ""
            if lex_t:
                c = min(lex_t)
                row.update({"lex_s": round(c, 4), "lex_ratio": round(c / b, 3),
                            "lex_objective": lex_obj, "lex_optimal": lex_opt,
                            "lex_nodes": lex_nodes})
                ok = "yes" if lex_opt and lex_obj == ref_obj else (
                    "t/o" if not lex_opt else "NO")
                lex = f"{c:>9.3f}{c / b:>10.2f}{lex_nodes:>6}{ok:>4}"
            rows.append(row)
            say(f"{name:<34}{depth:>2}{a:>9.3f}{b:>11.3f}{row['ratio']:>7.2f}"
                f"{ours_obj:>8}{'y' if row['objective_equal'] else 'N':>3}{lex}")
    df = pd.DataFrame(rows)
    done = df[~df.skipped]
    say("-" * len(header))
    ours_total, streed_total = done.ours_s.sum(), done.pystreed_s.sum()
    worst = done.loc[done.ratio.idxmax()]
    say(f"rows {len(done)} (skipped {int(df.skipped.sum())}); total ours {ours_total:.2f} s, "
        f"pystreed {streed_total:.2f} s (ratio {ours_total / streed_total:.3f})")
    say(f"worst ratio {worst.ratio:.3f} ({worst.dataset}, depth {worst.depth}); "
        f"median {done.ratio.median():.3f}; rows with ratio > {TARGET_RATIO:g}: "
        f"{int((done.ratio > TARGET_RATIO).sum())}; target (every row <= {TARGET_RATIO:g}): "
        f"{'met' if (done.ratio <= TARGET_RATIO).all() else 'NOT met'}")
    say(f"objectives equal: {int(done.objective_equal.sum())}/{len(done)}")
    if "lex_s" in done:
        lw = done.loc[done.lex_ratio.idxmax()]
        say(f"default objective (fewest nodes): worst ratio {lw.lex_ratio:.3f} ({lw.dataset}, "
            f"depth {lw.depth}); median {done.lex_ratio.median():.3f}; rows > 1: "
            f"{int((done.lex_ratio > 1).sum())}; not proven within {args.lex_limit:g} s: "
            f"{int((~done.lex_optimal.astype(bool)).sum())}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.to_csv(args.out, index=False)
    args.out.with_suffix(".txt").write_text("\n".join(lines) + "\n")
    print(f"written {args.out} and {args.out.with_suffix('.txt')}")
    return 0 if bool(done.objective_equal.all()) else 1


if __name__ == "__main__":
    raise SystemExit(main())
