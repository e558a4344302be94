"""Cost of the external (rpart) questions: default fit vs ``import_external=False``.

Both fits run interleaved in ONE process on the same data (synthetic20k's golden
training rows by default), after a warm-up, so that machine noise hits both
alike. Prints min and median wall and CPU seconds of each and their ratios.

Usage::

    python bench/bench_overhead.py [--shared PATH] [--dataset synthetic20k] [--runs 15]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--dataset", default="synthetic20k")
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)

    import pybsnsing
    from pybsnsing.datasets import dataset_formula, load_dataset

    data = load_dataset(args.dataset)
    golden = args.shared / "golden" / "trees" / f"{args.dataset}.json"
    if golden.is_file():  # the fixture's training rows, as R was timed on
        rec = json.loads(golden.read_text())[0]
        data = data.iloc[[r - 1 for r in rec["train_rows"]]].reset_index(drop=True)
    formula = dataset_formula(args.dataset)
    pybsnsing.warmup(optimal=False)
    for ext in (False, True):
        pybsnsing.bsnsing(formula, data, import_external=ext)
    wall: dict[bool, list[float]] = {False: [], True: []}
    cpu: dict[bool, list[float]] = {False: [], True: []}
    for _ in range(args.runs):
        for ext in (False, True):
            t0, c0 = time.perf_counter(), time.process_time()
            pybsnsing.bsnsing(formula, data, import_external=ext)
            wall[ext].append(time.perf_counter() - t0)
            cpu[ext].append(time.process_time() - c0)
    print(f"{args.dataset}: {len(data)} rows, {args.runs} interleaved runs of each")
    print(f"{'':24} {'min s':>8} {'median s':>9}")
    for label, ext in (("import_external=False", False), ("default (rpart rules)", True)):
        for kind, d in (("wall", wall), ("cpu", cpu)):
            print(f"{label + ' ' + kind:32} {min(d[ext]):8.4f} {statistics.median(d[ext]):9.4f}")
    for kind, d in (("wall", wall), ("cpu", cpu)):
        r_min = min(d[True]) / min(d[False])
        r_med = statistics.median(d[True]) / statistics.median(d[False])
        print(f"ratio default / no external ({kind}): min {r_min:.3f}, median {r_med:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
