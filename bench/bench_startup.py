"""Start-up costs: import time, first fit in a fresh process, warm fit.

Each figure comes from fresh Python processes (``sys.executable``), so nothing is
shared between runs but the numba cache on disk:

* ``import``: wall time of ``python -c "import pybsnsing"`` minus that of
  ``python -c "pass"`` (interpreter start-up), and the ``-X importtime`` total of the
  ``pybsnsing`` import;
* ``first fit``: in a fresh process, ``bsnsing("Class ~ .", BreastCancer)`` with
  defaults right after the import and the data load (kernels loaded from the numba
  cache, plus the lazy import of numba by the first fit);
* ``--cold``: a first use of every setting in ONE fresh process whose
  ``NUMBA_CACHE_DIR`` is an empty temporary folder, i.e. with every kernel compiled
  as it is first needed: the first default fit on BreastCancer, then fits with
  ``max_rules`` 1, 3 and 4, ``node_size``, ``import_external=False``,
  ``no_same_gender_children``, ``suppress_internal``, a multi-class response (iris), a
  fit forced onto the parallel code paths (taken on large data), the first ``murtree_fit`` and the
  first ``murtree`` (formula). Per step: wall time, the compile pause (numba's
  ``numba:compile`` events, CPU seconds) split by kernel family (the module of
  :mod:`pybsnsing.kernels`: ``binarize``, ``packing``, ``enum``, ``rpart``, ``murtree``;
  numba's own helpers are counted in the family of the kernel that pulled them in) and
  the slowest kernels (``--top``);
* ``warmup()``: :func:`pybsnsing.warmup` in a fresh process (cache populated);
* ``warm fit``: the median of ``--repeat`` further fits in that process.

Usage::

    python bench/bench_startup.py [--runs 5] [--repeat 20] [--dataset BreastCancer] [--cold]
    python bench/bench_startup.py --cold-only [--top 5]      # just the empty-cache profile
    python bench/bench_startup.py --cold-only --child 0      # ... never a compile child

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

_COLD = r"""
import collections, json, sys, time
T0 = time.perf_counter()
import numba.core.event as ev

FAMILIES = ("binarize", "enum", "rpart", "murtree")
stack = []                                  # [family or None, start, children's time]
fam_time = collections.defaultdict(float)   # exclusive compile time per family
kern_time = collections.defaultdict(float)  # exclusive time per pybsnsing kernel (+ helpers)
nsig = collections.Counter()


def _family(disp):
    mod = getattr(disp.py_func, "__module__", "") or ""
    if mod.startswith("pybsnsing.kernels."):
        return mod.rsplit(".", 1)[1], disp.py_func.__name__
    return None, None


class _Listener(ev.Listener):
    def on_start(self, event):
        fam, name = _family(event.data["dispatcher"])
        if fam is None and stack:  # numba's own helper: charged to the enclosing kernel
            fam, name = stack[-1][3], stack[-1][4]
        stack.append([fam, time.process_time(), 0.0, fam or "other", name or "other"])
        own = _family(event.data["dispatcher"])
        if own[0] is not None:
            nsig[f"{own[0]}.{own[1]}"] += 1

    def on_end(self, event):
        fam, t, child, famname, name = stack.pop()
        dur = time.process_time() - t
        fam_time[famname] += dur - child
        kern_time[f"{famname}.{name}"] += dur - child
        if stack:
            stack[-1][2] += dur


ev.register("numba:compile", _Listener())
t, c = time.perf_counter(), time.process_time()
import numpy as np
import pybsnsing
from pybsnsing.datasets import dataset_formula, load_dataset
bc = load_dataset("BreastCancer")
ir = load_dataset("iris")
steps = [("import pybsnsing + load data", time.perf_counter() - t, time.process_time() - c,
          {}, {}, {})]


def _child_cpu():
    try:  # CPU seconds reported by the first fit's compile child (pybsnsing._warmup)
        from pybsnsing._warmup import child_cpu
        return child_cpu()
    except ImportError:
        return 0.0


def step(label, fn):
    fam_time.clear(); kern_time.clear(); nsig.clear()
    t, c, ch = time.perf_counter(), time.process_time(), _child_cpu()
    fn()
    fam = dict(fam_time)
    fam["child"] = _child_cpu() - ch
    steps.append((label, time.perf_counter() - t, time.process_time() - c, fam,
                  dict(kern_time), dict(nsig)))


def big():
    import functools

    import pybsnsing.search as S
    # every chunk and Gram matrix counted in parallel, however small
    if hasattr(S, "_EnumTuning"):
        driver = S._enum_packed
        S._enum_packed = functools.partial(driver, tuning=S._EnumTuning(par_min_slots=1,
                                                                       gram_par_work=0))
        try:
            pybsnsing.bsnsing(f, bc, max_rules=4)
        finally:
            S._enum_packed = driver
    else:  # pybsnsing before the tuning argument (module globals)
        S._PAR_MIN_SLOTS, S._GRAM_PAR_WORK = 1, 0
        try:
            pybsnsing.bsnsing(f, bc, max_rules=4)
        finally:
            S._PAR_MIN_SLOTS, S._GRAM_PAR_WORK = None, 1 << 27


def mt_fit():
    from pybsnsing.optimal import murtree_fit
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (300, 20))
    murtree_fit(X, X[:, 0] ^ X[:, 3], max_depth=3)


def mt_formula():
    from pybsnsing.optimal import murtree
    murtree(dataset_formula("BreastCancer"), bc, max_depth=3)


f = dataset_formula("BreastCancer")
step("first fit: BreastCancer, defaults", lambda: pybsnsing.bsnsing(f, bc))
step("max_rules=1", lambda: pybsnsing.bsnsing(f, bc, max_rules=1))
step("max_rules=3", lambda: pybsnsing.bsnsing(f, bc, max_rules=3))
step("max_rules=4", lambda: pybsnsing.bsnsing(f, bc, max_rules=4))
step("node_size=10", lambda: pybsnsing.bsnsing(f, bc, node_size=10))
step("import_external=False", lambda: pybsnsing.bsnsing(f, bc, import_external=False))
step("no_same_gender_children", lambda: pybsnsing.bsnsing(f, bc, no_same_gender_children=True))
step("suppress_internal", lambda: pybsnsing.bsnsing(f, bc, suppress_internal=True))
step("multi-class (iris)", lambda: pybsnsing.bsnsing("Species ~ .", ir))
step("parallel code paths (max_rules=4)", big)
step("first murtree_fit (depth 3)", mt_fit)
step("first murtree (formula, BreastCancer)", mt_formula)
try:  # the compile child's stages not waited for yet (none when the steps used them all)
    from pybsnsing._warmup import STAGES, wait_stage
    step("(rest of the compile child)", lambda: wait_stage(STAGES[-1]))
except ImportError:
    pass
print(json.dumps(steps))
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


def _run(code: str, *args: str, env: dict | None = None) -> tuple[float, str, str]:
    """Run ``code`` in a fresh interpreter: (wall seconds, stdout, stderr)."""
    env = {**(env if env is not None else os.environ), "PYBSNSING_QUIET_COMPILE": "1"}
    t = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                         cwd=REPO, env=env, check=True)
    return time.perf_counter() - t, out.stdout, out.stderr


def _stats(xs: list[float]) -> str:
    return (f"median {statistics.median(xs):.3f} s  (min {min(xs):.3f}, max {max(xs):.3f}, "
            f"{len(xs)} runs)")


def cold_profile(top: int = 4, child: str = "auto") -> str:
    """The ``--cold`` table: one fresh process, empty numba cache, every setting in turn
    (``child``: ``PYBSNSING_PARALLEL_COMPILE``, i.e. whether the first fit compiles half of
    its kernels in a child process: "auto" when a core is idle, "1" always, "0" never)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": tmp, "PYBSNSING_QUIET_COMPILE": "1",
               "PYBSNSING_PARALLEL_COMPILE": child}
        t = time.perf_counter()
        out = _run(_COLD, env=env)[1]
        total = time.perf_counter() - t
    steps = json.loads(out.strip().splitlines()[-1])
    seen = {f for step in steps for f in step[3]} - {"child"}
    order = ("binarize", "packing", "enum", "rpart", "murtree", "dpdt")
    fams = tuple(f for f in order if f in seen or f in ("binarize", "enum", "rpart",
                                                        "murtree"))
    fams += tuple(sorted(seen - set(order) - {"other"})) + ("other",)
    lines = ["one fresh process, EMPTY numba cache (NUMBA_CACHE_DIR=<tmp>); seconds: wall and "
             "CPU of the step, its numba compile time (CPU) in all and by kernel family;",
             "child: CPU of the compile child process (pybsnsing._warmup.cold_start) for the "
             "stages it finished during the step",
             f"{'step':42s} {'wall':>6s} {'cpu':>6s} {'compile':>7s} "
             + " ".join(f"{f:>8s}" for f in fams) + f" {'child':>6s}"]
    child_total = 0.0
    for label, wall, cpu, fam, kern, nsig in steps:
        child = fam.pop("child", 0.0)
        child_total += child
        comp = sum(fam.values())
        lines.append(f"{label:42s} {wall:6.2f} {cpu:6.2f} {comp:7.2f} "
                     + " ".join(f"{fam.get(f, 0.0):8.2f}" for f in fams) + f" {child:6.2f}")
        slow = sorted(kern.items(), key=lambda kv: -kv[1])[:top]
        if slow and comp > 0.05:
            lines.append(" " * 6 + "slowest: " + ", ".join(
                f"{k} {v:.2f}" + (f" ({nsig[k]} sigs)" if nsig.get(k, 1) > 1 else "")
                for k, v in slow))
    lines.append(f"whole process (python start-up included): {total:.2f} s wall; load average "
                 f"before: {load:.2f} (a loaded machine stretches wall times, not CPU times); "
                 f"compile child: {child_total:.2f} s CPU")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="fresh processes per figure")
    ap.add_argument("--repeat", type=int, default=20, help="warm fits per process")
    ap.add_argument("--dataset", default="BreastCancer")
    ap.add_argument("--cold", action="store_true",
                    help="also profile first uses with an empty numba cache (compiles)")
    ap.add_argument("--cold-only", action="store_true",
                    help="only the empty-cache profile")
    ap.add_argument("--top", type=int, default=4, help="slowest kernels listed per step")
    ap.add_argument("--child", choices=("auto", "0", "1"), default="auto",
                    help="PYBSNSING_PARALLEL_COMPILE of the cold profile: compile half of the "
                         "first fit's kernels in a child process when a core is idle (auto), "
                         "always (1) or never (0)")
    args = ap.parse_args(argv)
    if args.cold_only:
        print(cold_profile(args.top, args.child))
        return 0

    bare = [_run("pass")[0] for _ in range(args.runs)]
    imp = [_run("import pybsnsing")[0] for _ in range(args.runs)]
    net = [max(0.0, a - statistics.median(bare)) for a in imp]
    _, _, trace = _run("import pybsnsing", env={**os.environ, "PYTHONPROFILEIMPORTTIME": "1"})
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
                env = {**os.environ, "NUMBA_CACHE_DIR": tmp, "PYBSNSING_QUIET_COMPILE": "1"}
                out = _run(_FIT, args.dataset, "0", env=env)[1].strip().splitlines()[-1]
                cold.append(json.loads(out)["first_fit"])
        print(f"  first fit, EMPTY numba cache (compile): {_stats(cold)}")
        print()
        print(cold_profile(args.top, args.child))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
