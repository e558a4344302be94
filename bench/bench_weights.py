"""Weighted against unweighted bsnsing fits on synthetic100k, side by side (issue 15).

One process: the kernels are warmed up (an untimed unweighted and weighted fit on a
5000-row sample), then each configuration is fitted ``--repeat`` times, alternating, and
the median CPU time of the process (all threads; ``time.process_time``, which the other
work on a shared machine disturbs far less than the wall time) and the median wall time
reported, with the CPU ratio to the unweighted fit:

* ``unweighted``: ``bsnsing("y ~ .", data)`` (R bsnsing's tree);
* ``unit``: ``sample_weight = 1`` (the weighted code path, same tree);
* ``integer``: whole-number weights 1..3 (rpart's questions from repeated rows);
* ``repeated``: the unweighted fit of the data with each row repeated by those weights
  (about 200,000 rows; the same tree as ``integer``);
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
    wint = rng.integers(1, 4, n)
    configs: dict[str, dict] = {
        "unweighted": {},
        "unit": {"sample_weight": np.ones(n)},
        "integer": {"sample_weight": wint},
        "repeated": {"data": df.loc[df.index.repeat(wint)].reset_index(drop=True)},
        "real": {"sample_weight": rng.uniform(0.5, 2.0, n)},
        "balanced": {"class_weight": "balanced"},
        "noext": {"import_external": False},
        "integer-noext": {"sample_weight": rng.integers(1, 4, n), "import_external": False},
    }
    small = df.iloc[:5000].reset_index(drop=True)
    for kw in configs.values():  # warm-up: compile / load every kernel once
        kw_small = {k: (v[:5000] if isinstance(v, np.ndarray) else v) for k, v in kw.items()
                    if k != "data"}
        pb.bsnsing("y ~ .", small, **kw_small)
    times: dict[str, list[float]] = {k: [] for k in configs}
    walls: dict[str, list[float]] = {k: [] for k in configs}
    leaves: dict[str, int] = {}
    base_sig, same, int_rules, same_rep = "", True, [], False
    for _ in range(args.repeat):
        for name, kw in configs.items():
            t = time.perf_counter()
            c = time.process_time()
            data = kw.get("data", df)
            m = pb.bsnsing("y ~ .", data, **{k: v for k, v in kw.items() if k != "data"})
            times[name].append(time.process_time() - c)
            walls[name].append(time.perf_counter() - t)
            leaves[name] = m.n_leaves
            if name == "unweighted":
                base_sig = m.tree_signature()
            elif name == "unit":
                same = same and m.tree_signature() == base_sig
            elif name == "integer":
                int_rules = [nd.split_rule for nd in m.nodes]
            elif name == "repeated":
                same_rep = [nd.split_rule for nd in m.nodes] == int_rules
    base = statistics.median(times["unweighted"])
    lines = [f"synthetic100k: {n} rows, median of {args.repeat} fits, one process,"
             " 2 cores shared with other work",
             f"{'config':<14}{'cpu s':>10}{'wall s':>10}{'x unweighted':>14}{'leaves':>8}",
             "(x unweighted: CPU time against 'unweighted', or 'noext' for the -noext rows)"]
    for name in configs:
        med = statistics.median(times[name])
        ref = statistics.median(times["noext"]) if "noext" in name else base
        wall = statistics.median(walls[name])
        lines.append(f"{name:<14}{med:>10.2f}{wall:>10.2f}{med / ref:>14.2f}"
                     f"{leaves[name]:>8}")
    lines.append(f"unit weights give the unweighted tree: {same}")
    lines.append(f"integer weights give the tree of the repeated rows: {same_rep}")
    text = "\n".join(lines)
    print(text)
    args.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
