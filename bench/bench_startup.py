"""Start-up costs: import time, first fit in a fresh process, warm fit.

Each figure comes from fresh Python processes (``sys.executable``), so nothing is
shared between runs but the numba cache on disk:

* ``import``: wall time of ``python -c "import pybsnsing"`` minus that of
  ``python -c "pass"`` (interpreter start-up), and the ``-X importtime`` total of the
  ``pybsnsing`` import;
* ``first fit``: in a fresh process, ``bsnsing("Class ~ .", BreastCancer)`` with
  defaults right after the import and the data load (kernels loaded from the numba
  cache, plus the lazy imports of the first fit: formulaic, numba);
* ``first fit, cold cache``: the same with ``NUMBA_CACHE_DIR`` pointing to an empty
  folder, i.e. with every kernel the fit uses compiled (``--cold``);
* ``warmup()``: :func:`pybsnsing.warmup` in a fresh process (cache populated);
* ``warm fit``: the median of ``--repeat`` further fits in that process.

Usage::

    python bench/bench_startup.py [--runs 5] [--repeat 20] [--dataset BreastCancer] [--cold]

Prints the medians (and min/max) over ``--runs`` processes.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_FIT = r"""
import json, sys, time
t0 = time.perf_counter()
import pybsnsing
from pybsnsing.datasets import dataset_formula, load_dataset
t1 = time.perf_counter()
name = sys.argv[1]
df = load_dataset(name)
f = dataset_formula(name)
t2 = time.perf_counter()
pybsnsing.bsnsing(f, df)
t3 = time.perf_counter()
warm = []
for _ in range(int(sys.argv[2])):
    t = time.perf_counter()
    pybsnsing.bsnsing(f, df)
    warm.append(time.perf_counter() - t)
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "first_fit": t3 - t2,
                  "warm": sorted(warm)[len(warm) // 2] if warm else None}))
"""

_WARMUP = r"""
import json, time
t0 = time.perf_counter()
import pybsnsing
from pybsnsing._warmup import warmup
t1 = time.perf_counter()
parts = warmup()
print(json.dumps({"warmup": time.perf_counter() - t1, "parts": parts}))
"""


def _run(code: str, *args: str, env: dict | None = None) -> tuple[float, str]:
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         cwd=REPO, env=env, check=True)
    return time.perf_counter() - t, out.stdout + out.stderr


def _stats(xs: list[float]) -> str:
    return (f"median {statistics.median(xs):.3f} s  (min {min(xs):.3f}, max {max(xs):.3f}, "
            f"{len(xs)} runs)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per figure")
    ap.add_argument("--repeat", type=int, default=20, help="warm fits per process")
    ap.add_argument("--dataset", default="BreastCancer")
    ap.add_argument("--cold", action="store_true",
                    help="also time a first fit with an empty numba cache (compiles)")
    args = ap.parse_args(argv)

    bare = [_run("pass")[0] for _ in range(args.runs)]
    imp = [_run("import pybsnsing")[0] for _ in range(args.runs)]
    net = [max(0.0, a - statistics.median(bare)) for a in imp]
    _, trace = _run("import pybsnsing", env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
    line = [ln for ln in trace.splitlines() if ln.rstrip().endswith("| pybsnsing")]
    cum_us = int(line[-1].split("|")[1]) if line else 0
    numba_in = any(ln.split("|")[-1].strip() == "numba" for ln in trace.splitlines())

    fits = [json.loads(_run(_FIT, args.dataset, str(args.repeat))[1].strip().splitlines()[-1])
            for _ in range(args.runs)]
    warmups = [json.loads(_run(_WARMUP)[1].strip().splitlines()[-1]) for _ in range(args.runs)]

    print(f"python start-up (python -c pass):         {_stats(bare)}")
    print(f"python -c 'import pybsnsing' (wall):      {_stats(imp)}")
    print(f"  minus interpreter start-up:             {_stats(net)}")
    print(f"  -X importtime, pybsnsing cumulative:    {cum_us / 1e6:.3f} s "
          f"(numba imported: {'yes' if numba_in else 'no'})")
    print(f"in a fresh process, {args.dataset}, defaults:")
    print(f"  import pybsnsing + datasets:            {_stats([f['import'] for f in fits])}")
    print(f"  first fit (numba cache populated):      {_stats([f['first_fit'] for f in fits])}")
    print(f"  import + load + first fit:              "
          f"{_stats([f['import'] + f['load'] + f['first_fit'] for f in fits])}")
    print(f"  warm fit (median of {args.repeat}):               "
          f"{_stats([f['warm'] for f in fits])}")
    print(f"pybsnsing.warmup() in a fresh process:    {_stats([w['warmup'] for w in warmups])}")
    if args.cold:
        cold = []
        for _ in range(max(1, min(args.runs, 2))):
            with tempfile.TemporaryDirectory() as tmp:
                env = {**os.environ, "NUMBA_CACHE_DIR": tmp}
                out = _run(_FIT, args.dataset, "0", env=env)[1].strip().splitlines()[-1]
                cold.append(json.loads(out)["first_fit"])
        print(f"  first fit, EMPTY numba cache (compile): {_stats(cold)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
