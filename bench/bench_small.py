"""Small data: R bsnsing 1.0.1 vs warm pybsnsing, side by side, on generated cases.

The cases are those of the live differential test (``tests/rdiff.py``'s
generator, seeds from ``tests/test_r_live.py``'s first seed, the same
``max_rows``): each is written to one CSV, read by R (``read.csv``) and by
:func:`pybsnsing.read_csv`, fitted by both through :func:`rdiff.run_case`,
and timed only when the two outcomes are identical (:func:`rdiff.classify`:
every node, print and summary text, predictions).

Timing, per case, in one process (R is embedded through rpy2): the training
frame is built on each side once; then a warm-up fit on each side and
``--repeat`` interleaved rounds (R fit, pybsnsing fit; the order alternates).
R's fit is timed by R itself (``proc.time()`` around ``bsnsing()`` in the
embedded R: no data transfer, no rpy2 conversion); pybsnsing's by
``time.perf_counter`` / ``time.process_time`` around ``bsnsing()``. Both wall
and process CPU time are kept; the figure per case is median(R) /
median(pybsnsing) of the interleaved rounds (the machine is shared: ratios
of interleaved runs are the robust figure, absolute seconds are not).

Printed per band of n (training rows): count, median, 10th percentile and
minimum of the ratio, the number of cases where pybsnsing is slower; the
cases with the smallest ratios; and BreastCancer's warm default fit
(``Class ~ .``, median of ``--bc-repeat`` interleaved fits) in both, with the
printed trees compared. Cases whose R parity run is stopped by ``setTimeLimit(elapsed =
--r-max)`` are listed with one pybsnsing fit, not timed (R's search can run
for many minutes on a few thousand rows). ``--profile SEED ...`` runs cProfile over warm
pybsnsing fits of those cases instead (no R needed).

Usage::

    python bench/bench_small.py [--cases 300] [--seed 20261122] [--repeat 5]
        [--max-rows 400] [--r-max 60] [--out bench/results/small.txt]
    python bench/bench_small.py --profile 20261130 20261145 [--profile-fits 200]
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import os
import pstats
import shlex
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import rdiff  # noqa: E402

SEED0 = 20261122  # tests/test_r_live.py's PYBSNSING_RLIVE_SEED default
BANDS = ((0, 100, "n <= 100"), (101, 500, "101-500"), (501, 2000, "501-2000"),
         (2001, 10**12, "> 2000"))

# A closure that fits the case's training frame once per call and returns R's
# own timing of bsnsing() alone: c(elapsed, user + system CPU) in seconds.
_R_TIMER = r"""
function(csv, spec, formula, ctrl, train_rows) {
""" + rdiff.R_READ_CASE + r"""  train <- d[train_rows, , drop = FALSE]
  rownames(train) <- NULL
  cl <- as.call(c(list(as.name("bsnsing"), formula = stats::as.formula(formula),
                       data = as.name("train")), ctrl))
  env <- environment()
  function(k) {
    t0 <- proc.time()
    for (i in seq_len(k)) bs <- suppressMessages(suppressWarnings(eval(cl, env)))
    t <- proc.time() - t0
    c(t[["elapsed"]], t[["user.self"]] + t[["sys.self"]]) / k
  }
}
"""

# BreastCancer as R bsnsing ships it: a closure timing one default fit, and the printed tree.
_R_BC = r"""
function() {
  suppressPackageStartupMessages(library(bsnsing))
  bc <- bsnsing::BreastCancer
  list(fit = function(k) {
         t0 <- proc.time()
         for (i in seq_len(k)) bs <- suppressMessages(suppressWarnings(bsnsing(Class ~ .,
                                                                              data = bc)))
         t <- proc.time() - t0
         c(t[["elapsed"]], t[["user.self"]] + t[["sys.self"]]) / k
       },
       print = function() paste(utils::capture.output(print(bsnsing(Class ~ ., data = bc))),
                                collapse = "\n"))
}
"""


def _r_timer(case: rdiff.Case, csv: Path):
    import rpy2.robjects as ro

    from pybsnsing.r.bsnsing_r import _plain_to_r

    spec = ro.ListVector({k: ro.ListVector({kk: (ro.StrVector(vv) if isinstance(vv, list)
                                                 else vv) for kk, vv in v.items()})
                          for k, v in case.spec.items()})
    ctrl = _plain_to_r(case.control) if case.control else ro.r("list()")
    fn = ro.r(_R_TIMER)(str(csv), spec, case.formula, ctrl, ro.IntVector(case.train_rows))

    def run(k: int = 1) -> tuple[float, float]:
        t = fn(k)
        return float(t[0]), float(t[1])

    return run


def _py_timer(case: rdiff.Case, csv: Path):
    from pybsnsing import bsnsing

    data = rdiff.read_case_py(csv, case.spec)
    train = data.iloc[[r - 1 for r in case.train_rows]].reset_index(drop=True)
    formula, control = case.formula, dict(case.control)

    def run(k: int = 1) -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(k):
            bsnsing(formula, train, **control)
        return (time.perf_counter() - t0) / k, (time.process_time() - c0) / k

    return run


def _interleave(r_run, py_run, repeat: int, budget: float, block: float = 0.05
                ) -> dict[str, float]:
    """Warm-up on both sides, then interleaved rounds; medians of wall and CPU.

    A round times ``k`` back-to-back fits on each side (``k`` from the warm-up
    so that a round lasts about ``block`` seconds; R's ``proc.time()`` counts
    whole milliseconds) and keeps the mean per fit."""
    rw, pw = r_run(), py_run()  # warm-up (R's byte code, numba dispatch, caches)
    k_r = max(1, int(np.ceil(block / max(rw[0], 1e-6))))
    k_py = max(1, int(np.ceil(block / max(pw[0], 1e-6))))
    rounds = max(3, min(repeat, int(budget / max(k_r * rw[0] + k_py * pw[0], 1e-9))))
    r_t: list[tuple[float, float]] = []
    p_t: list[tuple[float, float]] = []
    for i in range(rounds):
        if i % 2 == 0:
            r_t.append(r_run(k_r))
            p_t.append(py_run(k_py))
        else:
            p_t.append(py_run(k_py))
            r_t.append(r_run(k_r))
    med = statistics.median
    return {"rounds": rounds, "k_r": k_r, "k_py": k_py,
            "r_wall": med(t[0] for t in r_t), "r_cpu": med(t[1] for t in r_t),
            "py_wall": med(t[0] for t in p_t), "py_cpu": med(t[1] for t in p_t)}


def _ratio(a: float, b: float) -> float:
    return a / b if b > 0 else float("inf")


def _band_table(rows: list[dict], key: str) -> list[str]:
    out = [f"{'band (train n)':<16} {'cases':>5} {'median':>8} {'p10':>8} {'min':>8} "
           f"{'py slower':>9} {'median R s':>10} {'median py s':>11}"]
    for lo, hi, label in BANDS:
        sel = [r for r in rows if lo <= r["n_train"] <= hi]
        if not sel:
            out.append(f"{label:<16} {0:5d}")
            continue
        ratios = np.array([r[f"ratio_{key}"] for r in sel])
        slower = int(np.sum(ratios < 1))
        out.append(f"{label:<16} {len(sel):5d} {np.median(ratios):7.2f}x "
                   f"{np.percentile(ratios, 10):7.2f}x {ratios.min():7.2f}x {slower:9d} "
                   f"{np.median([r[f'r_{key}'] for r in sel]):10.4f} "
                   f"{np.median([r[f'py_{key}'] for r in sel]):11.4f}")
    return out


def _bc_timer(bc):
    from pybsnsing import bsnsing

    def run(k: int = 1) -> tuple[float, float]:
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(k):
            bsnsing("Class ~ .", bc)
        return (time.perf_counter() - t0) / k, (time.process_time() - c0) / k

    return run


def _breast_cancer(repeat: int) -> list[str]:
    import rpy2.robjects as ro

    from pybsnsing import bsnsing
    from pybsnsing.datasets import load_dataset
    from pybsnsing.r.convert import strip_call

    bc = load_dataset("BreastCancer")
    r_bc = ro.r(_R_BC)()
    r_fit, r_print = r_bc.rx2("fit"), r_bc.rx2("print")
    same = strip_call(str(r_print()[0])) == strip_call(str(bsnsing("Class ~ .", bc)))

    def r_run(k: int = 1) -> tuple[float, float]:
        t = r_fit(k)
        return float(t[0]), float(t[1])

    t = _interleave(r_run, _bc_timer(bc), repeat, budget=1e9, block=0.0)
    lines = [f"BreastCancer (699 rows, Class ~ ., defaults), median of {t['rounds']} "
             f"interleaved warm fits; printed trees {'identical' if same else 'DIFFER'}:",
             f"  R bsnsing   wall {1000 * t['r_wall']:8.1f} ms   CPU {1000 * t['r_cpu']:8.1f} ms",
             f"  pybsnsing   wall {1000 * t['py_wall']:8.1f} ms   CPU {1000 * t['py_cpu']:8.1f} ms",
             f"  ratio R/py  wall {_ratio(t['r_wall'], t['py_wall']):7.1f}x    "
             f"CPU {_ratio(t['r_cpu'], t['py_cpu']):7.1f}x   (target: pybsnsing <= 5 ms)"]
    return lines


# (module, owner attribute or None, function): the stages of a fit, timed by wrapping
_STAGES = (
    ("pybsnsing.api", None, "resolve_control"), ("pybsnsing.api", None, "build_design"),
    ("pybsnsing.api", None, "code_response"), ("pybsnsing.api", None, "call_text"),
    ("pybsnsing.api", None, "grow_tree"), ("pybsnsing.api", None, "grow_any_tree"),
    ("pybsnsing.api", None, "BsnsingModel"),
    ("pybsnsing.api", None, "MBsnsingModel"),
    ("pybsnsing.tree", "Grower", "__init__"), ("pybsnsing.tree", "Grower", "root_orders"),
    ("pybsnsing.tree", "Grower", "find_rule"), ("pybsnsing.tree", "Grower", "question_sources"),
    ("pybsnsing.tree", "Grower", "_groups"), ("pybsnsing.tree", None, "enum_search_packed"),
    ("pybsnsing.tree", None, "enum_search"), ("pybsnsing.tree", None, "evaluate_rule"),
    ("pybsnsing.tree", "Grower", "make_node"), ("pybsnsing.tree", "Grower", "partition"),
)


@contextlib.contextmanager
def _stage_clock(acc: dict[str, float]):
    """Wrap the functions of :data:`_STAGES` that exist (in this process only) so that
    each call adds its main-thread CPU time to ``acc[name]`` (inclusive times)."""
    import importlib

    saved = []
    for mod_name, owner_name, name in _STAGES:
        mod = importlib.import_module(mod_name)
        owner = getattr(mod, owner_name) if owner_name else mod
        fn = owner.__dict__.get(name) if owner_name else getattr(mod, name, None)
        if fn is None:  # (a stage another version of the package does not have)
            continue
        label = f"{owner_name}.{name}" if owner_name else name

        def wrapped(*a, _fn=fn, _label=label, **kw):
            t0 = time.thread_time()
            try:
                return _fn(*a, **kw)
            finally:
                acc[_label] = acc.get(_label, 0.0) + time.thread_time() - t0

        saved.append((owner, name, fn))
        setattr(owner, name, wrapped)
    try:
        yield
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)


def _profile(seeds: list[str], max_rows: int, fits: int, top: int) -> int:
    """cProfile over ``fits`` warm pybsnsing fits of each case (no R).

    The profiler's clock is the main thread's CPU time: on a loaded machine a
    wall clock charges the waits for a CPU to whichever call (often a system
    call) was running when the process was descheduled."""
    warnings.simplefilter("ignore")
    prof = cProfile.Profile(time.thread_time)
    total: dict[str, float] = {}
    total_fit = 0.0
    for seed in seeds:
        if seed == "BreastCancer":
            from pybsnsing.datasets import load_dataset

            case = rdiff.Case(seed=0, columns={}, spec={}, formula="Class ~ .", control={},
                              train_rows=list(range(699)), test_rows=[])
            run = _bc_timer(load_dataset("BreastCancer"))
        else:
            case = rdiff.generate_case(int(seed), max_rows=max_rows)
            with rdiff.case_csv(case) as csv:
                run = _py_timer(case, csv)
        run()
        t = statistics.median(run()[0] for _ in range(5))
        acc: dict[str, float] = {}
        with _stage_clock(acc):
            c0 = time.thread_time()
            for _ in range(fits):
                run()
            fit = (time.thread_time() - c0) / fits
        total_fit += fit
        for k, v in acc.items():
            total[k] = total.get(k, 0.0) + v / fits
        stages = "  ".join(f"{k} {1000 * v / fits:.2f}" for k, v in acc.items()
                           if v / fits >= 0.05 * fit)
        print(f"seed {seed}: train n={len(case.train_rows)} {case.formula!r} "
              f"{case.control}\n  warm fit {1000 * t:.2f} ms wall; main-thread CPU "
              f"{1000 * fit:.2f} ms (stages >= 5%, ms: {stages})")
        prof.enable()
        for _ in range(fits):
            run()
        prof.disable()
    print(f"\nstages, inclusive main-thread CPU summed over the {len(seeds)} cases' mean "
          f"fits ({1000 * total_fit:.2f} ms in all; timed fits include the wrappers):")
    for k, v in sorted(total.items(), key=lambda kv: -kv[1]):
        print(f"  {k:<22} {1000 * v:8.2f} ms  {100 * v / total_fit:5.1f}%")
    print()
    for order in ("tottime", "cumulative"):
        s = io.StringIO()
        pstats.Stats(prof, stream=s).strip_dirs().sort_stats(order).print_stats(top)
        print(s.getvalue())
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=300)
    ap.add_argument("--seed", type=int, default=SEED0,
                    help="first seed (cases use seed, seed+1, ...; default: the live test's)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved rounds per case")
    ap.add_argument("--budget", type=float, default=8.0,
                    help="seconds per case: fewer rounds (at least 3) for slow R fits")
    ap.add_argument("--max-rows", type=int, default=400,
                    help="generator's max_rows (400: the live test's cases)")
    ap.add_argument("--r-max", type=float, default=60.0,
                    help="R's parity run is stopped after this many seconds (the case is listed, "
                         "not timed)")
    ap.add_argument("--bc-repeat", type=int, default=50)
    ap.add_argument("--worst", type=int, default=12, help="list this many smallest ratios")
    ap.add_argument("--out", type=Path, default=ROOT / "bench" / "results" / "small.txt")
    ap.add_argument("--profile", nargs="+", metavar="SEED",
                    help="cProfile warm pybsnsing fits of these cases (seeds, or "
                         "BreastCancer) instead")
    ap.add_argument("--profile-fits", type=int, default=100)
    args = ap.parse_args(argv)

    if args.profile:
        return _profile(args.profile, args.max_rows, args.profile_fits, top=35)
    if (code := rdiff.r_unavailable_exit()) is not None:
        return code
    warnings.simplefilter("ignore")
    import pybsnsing

    pybsnsing.warmup(optimal=False)
    command = ".venv/bin/python bench/bench_small.py " + " ".join(
        shlex.quote(a) for a in (argv if argv is not None else sys.argv[1:]))
    rows: list[dict] = []
    skipped: dict[str, int] = {}
    too_slow: list[tuple[int, int, float]] = []
    import rpy2.robjects as ro

    set_limit = ro.r["setTimeLimit"]
    t_start = time.perf_counter()
    for seed in range(args.seed, args.seed + args.cases):
        case = rdiff.generate_case(seed, max_rows=args.max_rows)
        with rdiff.case_csv(case) as csv:
            set_limit(elapsed=args.r_max)  # R's search can run for many minutes
            try:
                r = rdiff.run_r(case, csv)
            finally:
                set_limit()
            py = rdiff.run_py(case, csv)
            if r.error is not None and "time limit" in r.error:  # one py fit, no ratio
                py_run = _py_timer(case, csv)
                py_run()
                too_slow.append((seed, len(case.train_rows), py_run()[0]))
                print(f"seed {seed} n={len(case.train_rows):4d} R > {args.r_max:g} s "
                      f"(not timed)", flush=True)
                continue
            kind = rdiff.classify(r, py, case)
            if kind not in ("identical", "R predict error"):  # trees not compared/identical
                skipped[kind] = skipped.get(kind, 0) + 1
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = _interleave(_r_timer(case, csv), _py_timer(case, csv), args.repeat,
                                args.budget)
        row = {"seed": seed, "n_train": len(case.train_rows),
               "p": len(case.columns) - 1, "formula": case.formula, "control": case.control,
               **t, "ratio_wall": _ratio(t["r_wall"], t["py_wall"]),
               "ratio_cpu": _ratio(t["r_cpu"], t["py_cpu"])}
        rows.append(row)
        print(f"seed {seed} n={row['n_train']:4d} R {1000 * t['r_wall']:8.1f} ms  py "
              f"{1000 * t['py_wall']:7.2f} ms  wall {row['ratio_wall']:6.1f}x  cpu "
              f"{row['ratio_cpu']:6.1f}x", flush=True)
    elapsed = time.perf_counter() - t_start

    lines = [f"# {command}",
             f"# {time.strftime('%Y-%m-%d %H:%M')}, load average "
             f"{' '.join(f'{x:.1f}' for x in os.getloadavg())} at the end, "
             f"{elapsed:.0f} s",
             "",
             f"{len(rows)} timed cases with identical outcomes (trees, print, summary, "
             f"predictions) out of {args.cases} generated (seeds {args.seed}.."
             f"{args.seed + args.cases - 1}, max_rows {args.max_rows}); not timed: "
             + (", ".join(f"{k} {v}" for k, v in sorted(skipped.items())) or "none"),
             f"ratio = median R bsnsing time / median warm pybsnsing time over {args.repeat} "
             f"interleaved rounds (fewer, >= 3, where R is slow); n = training rows", ""]
    for key, label in (("wall", "wall clock"), ("cpu", "process CPU")):
        lines += [f"R / pybsnsing, {label}:", *_band_table(rows, key), ""]
    worst = sorted(rows, key=lambda r: r["ratio_cpu"])[:args.worst]
    lines.append(f"smallest ratios (process CPU), worst {len(worst)}:")
    for r in worst:
        lines.append(f"  seed {r['seed']} n={r['n_train']} p={r['p']} cpu {r['ratio_cpu']:.2f}x "
                     f"wall {r['ratio_wall']:.2f}x  R {1000 * r['r_cpu']:.1f} ms  py "
                     f"{1000 * r['py_cpu']:.2f} ms  {r['formula']} {r['control']}")
    lines.append("")
    if too_slow:
        lines.append(f"not timed: R's parity run (fit, print, summary, predict) stopped by "
                     f"setTimeLimit(elapsed = {args.r_max:g}) (--r-max); one warm pybsnsing "
                     "fit:")
        for seed, n, py_s in too_slow:
            lines.append(f"  seed {seed} n={n}: R > {args.r_max:g} s, pybsnsing "
                         f"{1000 * py_s:.1f} ms (> {args.r_max / py_s:.0f}x)")
        lines.append("")
    lines += _breast_cancer(args.bc_repeat)
    text = "\n".join(lines) + "\n"
    print("\n" + text)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
