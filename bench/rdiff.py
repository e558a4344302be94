"""Live differential run against R bsnsing 1.0.1: any number of generated cases.

Generates cases with ``tests/rdiff.py`` (every input class R bsnsing takes,
random ``bscontrol()`` values), fits each with R bsnsing (rpy2) and pybsnsing
from the same CSV, and prints ``K/N identical`` over the cases R can fit,
the count of every outcome, and, for each difference, a reproducer minimised
(columns, control entries, rows) and written to ``--out`` as a CSV plus the
call. Also times both sides (warm pybsnsing vs R, per case).

Usage::

    python bench/rdiff.py --cases 2000 [--seed 1] [--out bench/results/rdiff]
    python bench/rdiff.py --wide --cases 300   (8 to about 25 predictors, up to
        1500 rows, ``. - x``, ``abs(x) + x``, ``exp(x) + x`` formulas)
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import rdiff  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1, help="first seed (cases use seed, seed+1, ...)")
    ap.add_argument("--max-rows", type=int, default=None,
                    help="largest data set (default 400; 1500 with --wide)")
    ap.add_argument("--wide", action="store_true",
                    help="wide cases and other formula shapes (rdiff.generate_wide_case)")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "rdiff")
    ap.add_argument("--no-minimise", action="store_true")
    args = ap.parse_args(argv)

    if (code := rdiff.r_unavailable_exit()) is not None:
        return code
    warnings.simplefilter("ignore")
    make = rdiff.generate_wide_case if args.wide else rdiff.generate_case
    if args.max_rows is None:
        args.max_rows = 1500 if args.wide else 400
    counts: collections.Counter = collections.Counter()
    r_errors: collections.Counter = collections.Counter()
    different = []
    t0 = time.perf_counter()
    try:
        from tqdm import tqdm

        seeds = tqdm(range(args.seed, args.seed + args.cases), desc="cases", mininterval=2)
    except ImportError:
        seeds = range(args.seed, args.seed + args.cases)
    for seed in seeds:
        case = make(seed, max_rows=args.max_rows)
        kind, r, _py, diffs = rdiff.run_case(case)
        counts[kind] += 1
        if kind.startswith("R error"):
            r_errors[r.error.split("\n")[0][:70]] += 1
        if kind == "different":
            different.append((case, diffs))
            print(f"\nDIFFERENT seed {seed}: {diffs[0][:300]}", flush=True)
    elapsed = time.perf_counter() - t0

    comparable = counts["identical"] + counts["different"] + counts["R predict error"]
    print(f"{comparable - counts['different']}/{comparable} identical "
          f"(cases R bsnsing fits; {args.cases} generated, seeds {args.seed}.."
          f"{args.seed + args.cases - 1}, {elapsed:.0f} s)")
    for kind, n in counts.most_common():
        print(f"  {kind:<20} {n}")
    if r_errors:
        print("R bsnsing's own errors (not parity cases), most common:")
        for msg, n in r_errors.most_common(12):
            print(f"  {n:5d}  {msg}")
    if different:
        args.out.mkdir(parents=True, exist_ok=True)
        print(f"{len(different)} differences; minimised reproducers in {args.out}:")
    for case, diffs in different:
        small = case if args.no_minimise else rdiff.minimise(case, rdiff.is_different)
        stem = args.out / f"case{case.seed}"
        stem.with_suffix(".csv").write_text(small.csv_text())
        meta = {"seed": case.seed, "formula": small.formula, "control": small.control,
                "spec": small.spec, "train_rows": small.train_rows,
                "test_rows": small.test_rows, "first_difference": diffs[0][:2000]}
        stem.with_suffix(".json").write_text(json.dumps(meta, indent=1))
        print(f"- seed {case.seed}: {small.describe()}\n    {diffs[0][:300]}")
    return 1 if different else 0


if __name__ == "__main__":
    raise SystemExit(main())
