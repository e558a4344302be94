"""Fuzz pybsnsing's Python entry points with N generated inputs; print counts per outcome.

    .venv/bin/python bench/fuzz.py 10000                 # seeds 0..9999, 2 workers
    .venv/bin/python bench/fuzz.py 500 --start 10000 --workers 4 --timeout 60
    .venv/bin/python bench/fuzz.py 200 --entry formula   # one entry point only
    .venv/bin/python bench/fuzz.py 10000 --cli 200 --r 150  # + the CLI and the R package

Each seed is one case of ``tests/fuzzgen.py`` (odd data of every pandas dtype,
odd names, formulas, controls, new data and corrupt model files through
``bsnsing``, ``predict``, ``save``/``load_model``, pickle, ``binarize``,
``bslearn``, ``murtree``/``murtree_fit``, ``BsnsingClassifier``,
``load_dataset`` and the exports). Outcomes: correct result / clean error /
unclean error / unclear error / silent wrong / hang (a case that does not
finish within ``--timeout`` seconds; its worker is killed and replaced).
``--cli N`` adds N cases of the ``cli`` entry (the command line in subprocesses:
``fit``/``predict`` on the case's data written as CSV, checked against the API on
the same file; directories, corrupt ``.gz``, missing files and folders, closed
pipes, truncated models, odd option values). ``--r N`` adds N cases through the
R package (``bench/fuzz_r.R``, needs R with the package in ``.rlib``).
Every case that is not a correct result or a clean error is listed with its
seed (``python -c "import fuzzgen; print(fuzzgen.run_case(fuzzgen.generate_case(SEED)))"``
from ``tests/`` reproduces it). Exit status 1 when any bad outcome occurred.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))


def _worker(tasks: mp.Queue, results: mp.Queue, entry: str | None) -> None:
    os.environ.setdefault("MPLBACKEND", "Agg")
    import fuzzgen

    while True:
        task = tasks.get()
        if task is None:
            return
        seed, task_entry = task
        t0 = time.perf_counter()
        try:
            case = fuzzgen.generate_case(seed, task_entry or entry)
            kind, detail = fuzzgen.run_case(case)
            desc = case.describe()
        except Exception as exc:  # noqa: BLE001 - a generator bug is reported, not fatal
            kind, detail, desc = "unclean error", f"generator: {exc!r}", f"seed {seed}"
        results.put((seed, kind, detail, desc, time.perf_counter() - t0))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int, help="number of generated inputs")
    ap.add_argument("--start", type=int, default=0, help="first seed (default 0)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--timeout", type=float, default=120.0,
                    help="seconds before a case counts as a hang (default 120)")
    ap.add_argument("--entry", default=None, help="only this entry point (fuzzgen.ENTRIES)")
    ap.add_argument("--cli", type=int, default=0, metavar="N",
                    help="also N cases through the command line (seeds after the others)")
    ap.add_argument("--r", type=int, default=0, metavar="N",
                    help="also N cases through the R package (Rscript bench/fuzz_r.R N)")
    ap.add_argument("--quiet", action="store_true", help="no progress line")
    args = ap.parse_args(argv)

    import fuzzgen

    ctx = mp.get_context("spawn")
    results: mp.Queue = ctx.Queue()
    workers: dict[int, tuple] = {}  # slot -> (process, task queue, seed, started)
    tasks = [(s, None) for s in range(args.start, args.start + args.n)]
    tasks += [(s, "cli") for s in range(args.start + args.n, args.start + args.n + args.cli)]
    seeds = iter(tasks)
    total = len(tasks)
    counts: Counter = Counter()
    bad: list[tuple] = []
    t_start = time.perf_counter()

    def start(slot: int) -> None:
        q: mp.Queue = ctx.Queue()
        p = ctx.Process(target=_worker, args=(q, results, args.entry), daemon=True)
        p.start()
        workers[slot] = (p, q, None, 0.0)

    def feed(slot: int) -> bool:
        p, q, _, _ = workers[slot]
        task = next(seeds, None)
        if task is None:
            q.put(None)
            workers[slot] = (p, q, None, 0.0)
            return False
        q.put(task)
        workers[slot] = (p, q, task[0], time.perf_counter())
        return True

    for slot in range(args.workers):
        start(slot)
        feed(slot)
    done = 0
    while any(w[2] is not None for w in workers.values()):
        try:
            seed, kind, detail, desc, secs = results.get(timeout=1.0)
        except Exception:  # noqa: BLE001 - queue.Empty: check for hangs
            seed = None
        if seed is not None:
            slot = next(s for s, w in workers.items() if w[2] == seed)
            counts[kind] += 1
            done += 1
            if kind not in fuzzgen.GOOD:
                bad.append((seed, kind, desc, detail))
            feed(slot)
        now = time.perf_counter()
        for slot, (p, _q, s, started) in list(workers.items()):
            if s is not None and now - started > args.timeout:
                p.kill()
                p.join()
                counts["hang"] += 1
                done += 1
                bad.append((s, "hang", f"seed {s}", f"no result within {args.timeout:g} s"))
                start(slot)
                feed(slot)
        if not args.quiet and done and done % 500 == 0 and seed is not None:
            print(f"  {done}/{total}: {fuzzgen.summarise(counts)}", file=sys.stderr)
    for p, q, _, _ in workers.values():
        q.put(None)
        p.join(timeout=5)
    elapsed = time.perf_counter() - t_start
    print(f"pybsnsing fuzz: {total} generated inputs ({args.n} Python API, {args.cli} CLI), "
          f"seeds {args.start}..{args.start + total - 1}, {args.workers} workers, "
          f"{elapsed:.0f} s")
    labels = {"correct": "correct result"}
    for k in fuzzgen.OUTCOMES:
        print(f"  {labels.get(k, k):15s} {counts.get(k, 0)}")
    for _seed, kind, desc, detail in sorted(bad)[:50]:
        print(f"\n[{kind}] {desc}\n  {detail[:1500]}")
    r_bad = _run_r(args.r, counts) if args.r else 0
    if args.r:
        print(f"\nall front ends: {sum(counts.values())} generated inputs")
        for k in fuzzgen.OUTCOMES:
            print(f"  {labels.get(k, k):15s} {counts.get(k, 0)}")
    return 1 if bad or r_bad else 0


def _run_r(n: int, counts: Counter) -> int:
    """Run ``bench/fuzz_r.R n``, print its report, add its counts; the number of bad cases."""
    import re
    import subprocess

    root = HERE.parent
    env = dict(os.environ)
    rlib = root / ".rlib"
    if rlib.is_dir():
        env["R_LIBS"] = os.pathsep.join(filter(None, [str(rlib), env.get("R_LIBS", "")]))
    env.setdefault("RETICULATE_PYTHON", sys.executable)
    proc = subprocess.run(["Rscript", str(HERE / "fuzz_r.R"), str(n)], capture_output=True,
                          text=True, env=env, cwd=root)
    print("\n" + proc.stdout.rstrip())
    if proc.returncode == 3:  # the package is not installed: nothing was fuzzed
        raise SystemExit(proc.stderr.strip())
    if proc.returncode not in (0, 1):
        print(proc.stderr[-2000:])
        counts["unclean error"] += n
        return n
    names = {"correct": "correct", "clean error": "clean error", "unclean error": "unclean error",
             "unclear error": "unclear error", "silent wrong": "silent wrong", "hang": "hang"}
    bad = 0
    for line in proc.stdout.splitlines():
        m = re.match(r"^\s+(correct|clean error|unclean error|unclear error|silent wrong|hang)"
                     r"\s+(\d+)\s*$", line)
        if m:
            counts[names[m.group(1)]] += int(m.group(2))
            if m.group(1) not in ("correct", "clean error"):
                bad += int(m.group(2))
    return bad


if __name__ == "__main__":
    sys.exit(main())
