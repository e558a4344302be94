"""One benchmark, two versions of the package, interleaved in one run: timing ratios.

Issue 14 (the refactor) asks that the timings stay the same. On a shared machine two
benchmark runs made at different times are not comparable, so this script exports the
package of a git revision (``--before``) and of the working tree (or ``--after REV``) to
temporary folders and runs the *same* benchmark script (this checkout's) against each,
alternately, ``--rounds`` times. Each version gets its own numba cache, compiled by an
untimed first round. It prints, per row of the benchmark's CSV, the median seconds of
each version and their ratio (after / before; < 1: faster), and the geometric mean.

Run from the repository root::

    python bench/bench_before_after.py search            # bench_search.py
    python bench/bench_before_after.py fit               # bench_fit.py --quick
    python bench/bench_before_after.py fit-large         # bench_fit.py, synthetic20k/100k
    python bench/bench_before_after.py murtree           # bench_murtree.py (depth 3-4)
    python bench/bench_before_after.py search --before 3798f30 --rounds 5
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: the last commit before issue 14's refactor (6d56772 already moved external.py onto the
#: packing module that a017076 added: 44429bc between them does not run)
DEFAULT_BEFORE = "3798f30"

#: benchmark -> (script arguments, key columns of a row, the timed column)
BENCHES: dict[str, tuple[list[str], tuple[str, ...], str]] = {
    "search": (["bench/bench_search.py", "--repeat", "3"], ("dataset", "max_rules"), "seconds"),
    "fit": (["bench/bench_fit.py", "--quick", "--methods", "pyb-noext", "pyb-default",
             "--repeat", "5"], ("dataset", "method"), "seconds"),
    # the data sets whose trees reach the large-node paths (sorts of 4096+ rows, slabs)
    "fit-large": (["bench/bench_fit.py", "--sizes", "20k", "100k", "--methods", "pyb-noext",
                   "pyb-default"], ("dataset", "method"), "seconds"),
    "murtree": (["bench/bench_murtree.py", "--depths", "3", "4", "--repeat", "3",
                 "--lex-limit", "0"], ("dataset", "depth"), "ours_s"),
}


def export(rev: str | None, dest: Path) -> Path:
    """The package of ``rev`` (None: the working tree) under ``dest``, with this checkout's
    benchmark scripts beside it (the scripts put their own checkout first on the path) and
    ``../shared`` linked; returns ``dest``."""
    dest.mkdir(parents=True)
    subprocess.run(["cp", "-r", str(ROOT / "bench"), str(dest)], check=True)
    shared = dest.parent / "shared"
    if not shared.exists():
        shared.symlink_to(ROOT.parent / "shared")
    if rev is None:
        subprocess.run(["cp", "-r", str(ROOT / "pybsnsing"), str(dest)], check=True)
        return dest
    data = subprocess.run(["git", "archive", rev, "pybsnsing"], cwd=ROOT, check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(dest, filter="data")
    return dest


def run_once(tree: Path, cache: Path, args: list[str], out: Path) -> Path:
    env = {**os.environ, "PYTHONPATH": str(tree), "NUMBA_CACHE_DIR": str(cache),
           "PYBSNSING_QUIET_COMPILE": "1", "PYBSNSING_PARALLEL_COMPILE": "0"}
    subprocess.run([sys.executable, *args, "--out", str(out)], cwd=tree, env=env,
                   check=True, stdout=subprocess.DEVNULL)
    return out


def read(out: Path, keys: tuple[str, ...], col: str) -> dict[tuple, float]:
    rows = {}
    with open(out, newline="") as fh:
        for r in csv.DictReader(fh):
            try:
                rows[tuple(r[k] for k in keys)] = float(r[col])
            except (TypeError, ValueError):
                continue
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bench", choices=sorted(BENCHES))
    ap.add_argument("--before", default=DEFAULT_BEFORE)
    ap.add_argument("--after", default=None, help="a revision (default: the working tree)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", type=Path, default=None, help="also write the table here")
    a = ap.parse_args()
    args, keys, col = BENCHES[a.bench]
    tmp = Path(tempfile.mkdtemp(prefix="pyb_ba_"))
    trees = {"before": export(a.before, tmp / "before"), "after": export(a.after, tmp / "after")}
    times: dict[str, dict[tuple, list[float]]] = {"before": {}, "after": {}}
    for rnd in range(a.rounds + 1):  # round 0 compiles the kernels into each cache
        for name, tree in (trees.items() if rnd % 2 else reversed(trees.items())):
            out = tmp / f"{name}_{rnd}.csv"
            run_once(tree, tmp / f"cache_{name}", args, out)
            if rnd == 0:
                continue
            for k, v in read(out, keys, col).items():
                times[name].setdefault(k, []).append(v)
        print(f"round {rnd} done", file=sys.stderr, flush=True)
    lines = [f"# python bench/bench_before_after.py {a.bench} --before {a.before} "
             f"--after {a.after or 'working tree'} --rounds {a.rounds}",
             f"# benchmark: {' '.join(args)}; median of {a.rounds} interleaved rounds; "
             f"load average at the end {os.getloadavg()[0]:.1f}",
             f"{'row':40s} {'before s':>10s} {'after s':>10s} {'after/before':>13s}"]
    logs = []
    for k in sorted(set(times["before"]) & set(times["after"])):
        b = statistics.median(times["before"][k])
        f = statistics.median(times["after"][k])
        if b > 0 and f > 0:
            logs.append(math.log(f / b))
        lines.append(f"{' '.join(k):40s} {b:10.5f} {f:10.5f} "
                     f"{(f / b if b > 0 else float('nan')):13.3f}")
    tb = sum(statistics.median(v) for k, v in times["before"].items() if k in times["after"])
    ta = sum(statistics.median(v) for k, v in times["after"].items() if k in times["before"])
    lines.append(f"{'total':40s} {tb:10.5f} {ta:10.5f} {ta / tb:13.3f}")
    if logs:
        lines.append(f"geometric mean of the row ratios (after/before): "
                     f"{math.exp(sum(logs) / len(logs)):.3f} over {len(logs)} rows")
    text = "\n".join(lines)
    print(text)
    if a.out:
        a.out.parent.mkdir(parents=True, exist_ok=True)
        a.out.write_text(text + "\n")


if __name__ == "__main__":
    main()
