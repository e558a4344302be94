"""Weighted against unweighted bsnsing fits on synthetic100k, side by side (issue 15).

One process: the kernels are warmed up (an untimed unweighted and weighted fit on a
5000-row sample), then each configuration is fitted ``--repeat`` times, alternating, and
the median wall time reported with its ratio to the unweighted fit:

* ``unweighted``: ``bsnsing("y ~ .", data)`` (R bsnsing's tree);
* ``unit``: ``sample_weight = 1`` (the weighted code path, same tree);
* ``integer``: whole-number weights 1..3 (rpart's questions from repeated rows);
* ``real``: weights uniform on [0.5, 2) (fractional);
* ``balanced``: ``class_weight = "balanced"``;
* ``noext`` / ``integer-noext``: unweighted and whole-number weights without rpart's
  questions (``import_external = False``): whole-number weights make the rpart questions
  be computed on the repeated rows, which costs what rpart costs on those rows.

Usage::

    python bench/bench_weights.py [--shared PATH] [--repeat 3] [--rows N]

Writes ``bench/results/weights.txt``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _data import DEFAULT_SHARED, RESULTS, load_shared  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=DEFAULT_SHARED)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--rows", type=int, default=0, help="use the first N rows (0: all)")
    ap.add_argument("--out", type=Path, default=RESULTS / "weights.txt")
    args = ap.parse_args()

    import pybsnsing as pb

    df = load_shared("synthetic100k", args.shared)
    if args.rows:
        df = df.iloc[: args.rows].reset_index(drop=True)
    n = df.shape[0]
    rng = np.random.default_rng(0)
    configs: dict[str, dict] = {
        "unweighted": {},
        "unit": {"sample_weight": np.ones(n)},
        "integer": {"sample_weight": rng.integers(1, 4, n)},
        "real": {"sample_weight": rng.uniform(0.5, 2.0, n)},
        "balanced": {"class_weight": "balanced"},
        "noext": {"import_external": False},
        "integer-noext": {"sample_weight": rng.integers(1, 4, n), "import_external": False},
    }
    small = df.iloc[:5000].reset_index(drop=True)
    for kw in configs.values():  # warm-up: compile / load every kernel once
        kw_small = {k: (v[:5000] if isinstance(v, np.ndarray) else v) for k, v in kw.items()}
        pb.bsnsing("y ~ .", small, **kw_small)
    times: dict[str, list[float]] = {k: [] for k in configs}
    leaves: dict[str, int] = {}
    base_sig, same = "", True
    for _ in range(args.repeat):
        for name, kw in configs.items():
            t = time.perf_counter()
            m = pb.bsnsing("y ~ .", df, **kw)
            times[name].append(time.perf_counter() - t)
            leaves[name] = m.n_leaves
            if name == "unweighted":
                base_sig = m.tree_signature()
            elif name == "unit":
                same = same and m.tree_signature() == base_sig
    base = statistics.median(times["unweighted"])
    lines = [f"synthetic100k: {n} rows, median of {args.repeat} fits (seconds), one process,"
             " 2 cores shared with other work",
             f"{'config':<14}{'seconds':>10}{'x unweighted':>14}{'leaves':>8}",
             "(x unweighted: against 'unweighted', or 'noext' for the -noext rows)"]
    for name in configs:
        med = statistics.median(times[name])
        ref = statistics.median(times["noext"]) if "noext" in name else base
        lines.append(f"{name:<14}{med:>10.2f}{med / ref:>14.2f}{leaves[name]:>8}")
    lines.append(f"unit weights give the unweighted tree: {same}")
    text = "\n".join(lines)
    print(text)
    args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
