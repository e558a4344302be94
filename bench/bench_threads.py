"""Where synthetic1m's 1 -> 2 thread speed-up goes: a diagnosis, not a target bench.

For each thread count (a fresh process each, ``NUMBA_NUM_THREADS`` set; the data
loaded and one 300k-row fit to warm up, outside the measurement), one timed fit
of ``y ~ .`` (``--method noext``: ``import.external = FALSE``) with:

* per node size class (the root; 100k+, 20k+, 5k+ and fewer rows), the summed wall
  time of the tree's phases (:func:`pybsnsing.tree.split_node` and the ones inside it);
  at 2 threads the phases of two nodes run at once, so a class whose sum grows from 1 to
  2 threads lost that time to what the threads share (the GIL, the heap);
* the thread CPU time inside :func:`~pybsnsing.tree.split_node` against its wall time
  (the difference is time spent waiting: for the GIL after a kernel returns, for a
  helper thread, on page faults);
* the process's voluntary context switches (``/proc/self/status``) during the fit:
  a thread that sleeps waiting for the GIL or a lock switches once;
* then, apart from the tree, two kernels on their own, called from two threads at once
  on private data: their scaling from 1 to 2 threads (:func:`split_orders_in_place`,
  the sorted lists of a 1M-row node split; :func:`node_questions_kernel`, the questions
  of a 200k-row node).

    python bench/bench_threads.py [--method noext|default] [--out FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

WORKER = r"""
import collections, functools, json, sys, threading, time
sys.path.insert(0, {bench!r})
from _data import load_shared
from pybsnsing import bsnsing, questions, search, tree

ext = sys.argv[1] == "default"
cur = threading.local()
wall = collections.defaultdict(float)
cpu = [0.0, 0.0]  # split_node: thread CPU, wall


def size_class(n):
    return ("root" if n >= 900_000 else "100k+" if n >= 100_000 else "20k+" if n >= 20_000
            else "5k+" if n >= 5_000 else "<5k")


def timed(owner, name, label):
    f = getattr(owner, name)

    @functools.wraps(f)
    def g(*a, **k):
        t = time.perf_counter()
        try:
            return f(*a, **k)
        finally:
            wall[(getattr(cur, "c", "?"), label)] += time.perf_counter() - t
    setattr(owner, name, g)


split = tree.split_node


def split_node(grower, node, *a, **k):
    cur.c = size_class(node.nobs)
    t, c = time.perf_counter(), time.thread_time()
    try:
        return split(grower, node, *a, **k)
    finally:
        dw, dc = time.perf_counter() - t, time.thread_time() - c
        wall[(cur.c, "node")] += dw
        cpu[0] += dc
        cpu[1] += dw


tree.split_node = split_node
for owner, name, label in ((questions, "_numeric_question_set", "questions"),
                           (tree.Grower, "_pack", "pack"),
                           (search, "_enum_packed", "search"),
                           (tree.Grower, "rule_sides", "rule sides"),
                           (tree.Grower, "partition", "partition"),
                           (tree.Grower, "localize", "localize")):
    timed(owner, name, label)


def switches():
    with open("/proc/self/status") as fh:
        return next(int(ln.split()[1]) for ln in fh if ln.startswith("voluntary_ctxt"))


df = load_shared("synthetic1m")
bsnsing("y ~ .", df.iloc[:300000], import_external=ext, verbose=False)
wall.clear()
cpu[:] = [0.0, 0.0]
s0 = switches()
t = time.perf_counter()
bsnsing("y ~ .", df, import_external=ext, verbose=False)
fit = time.perf_counter() - t
print(json.dumps({{"fit": fit, "switches": switches() - s0, "cpu": cpu,
                  "wall": [[c, lab, v] for (c, lab), v in wall.items()]}}))
"""

KERNELS = r"""
import json, sys, threading, time
import numpy as np
sys.path.insert(0, {bench!r})
from pybsnsing.kernels import binarize, packing
from pybsnsing.questions import stable_argsort

rng = np.random.default_rng(0)


def scaling(call, make):
    # the best of 5 calls alone, and the slower thread's best of 5 with two at once
    mine = [make(), make()]
    call(mine[0])
    alone = min(call(mine[0]) for _ in range(5))
    best = [0.0, 0.0]

    def run(i):
        best[i] = min(call(mine[i]) for _ in range(5))
    ts = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return alone, max(best)


p, n = 10, 1_000_000
left = np.sort(rng.choice(n, n // 2, replace=False))
mask = np.zeros(n, bool)
mask[left] = True
bits = np.packbits(mask, bitorder="little")
lists0 = np.stack([rng.permutation(n) for _ in range(p)]).reshape(-1)
vals0 = rng.random(p * n)


def make_split():
    return (lists0.copy(), vals0.copy(), np.empty(p * n // 2, np.int64),
            np.empty(p * n // 2))


def split(b):
    lists, vals, stash, stash_v = b
    lists[:] = lists0
    vals[:] = vals0
    t = time.perf_counter()
    assert packing.split_orders_in_place(lists, vals, p, bits, n // 2, stash, stash_v)
    return time.perf_counter() - t


m = 200_000
X = np.asfortranarray(rng.normal(size=(m, p)))
y = (X[:, 0] + rng.normal(size=m) > 0).astype(np.uint8)
ordm = np.empty((p, m), np.int64)
ordv = np.empty((p, m))
for j in range(p):
    stable_argsort(X[:, j], ordv[j], out=ordm[j])


def questions(_):
    t = time.perf_counter()
    binarize.node_questions_kernel(X, ordv, y, ordm, 1, 20, 447.0, 10.0, 10, 5.0, 20.0,
                                   False)
    return time.perf_counter() - t


out = {{}}
for name, call, make in (("split_orders_in_place 1M x 10", split, make_split),
                         ("node_questions_kernel 200k x 10", questions, lambda: None)):
    out[name] = scaling(call, make)
print(json.dumps(out))
"""


def run(code: str, threads: int, *args: str) -> dict:
    env = dict(os.environ, NUMBA_NUM_THREADS=str(threads), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code.format(bench=str(HERE)), *args],
                         env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--method", choices=("noext", "default"), default="noext")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    res = {th: run(WORKER, th, args.method) for th in (1, 2)}
    lines = [f"# bench_threads.py --method {args.method}; {os.cpu_count()} cores, load "
             f"{os.getloadavg()[0]:.1f} at start",
             f"fit: 1 thread {res[1]['fit']:.2f} s, 2 threads {res[2]['fit']:.2f} s "
             f"({res[1]['fit'] / res[2]['fit']:.2f}x)"]
    for th in (1, 2):
        c, w = res[th]["cpu"]
        lines.append(f"{th} thread(s): split_node wall {w:.2f} s, thread CPU {c:.2f} s "
                     f"(waiting {w - c:.2f} s); voluntary context switches "
                     f"{res[th]['switches']}")
    classes = ["root", "100k+", "20k+", "5k+", "<5k"]
    labels = ["node", "questions", "pack", "search", "rule sides", "partition", "localize"]
    lines.append("summed wall seconds by node size, 1 thread -> 2 threads:")
    lines.append(f"{'':12s}" + "".join(f"{c:>15s}" for c in classes))
    tables = {th: {(c, lab): v for c, lab, v in res[th]["wall"]} for th in (1, 2)}
    for lab in labels:
        cells = "".join(f"{tables[1].get((c, lab), 0):7.3f}>{tables[2].get((c, lab), 0):<7.3f}"
                        for c in classes)
        lines.append(f"{lab:12s}{cells}")
    kern = run(KERNELS, 1)
    for name, (alone, two) in kern.items():
        lines.append(f"kernel {name}: {alone * 1e3:.1f} ms alone, {two * 1e3:.1f} ms with two "
                     f"threads at once: {2 * alone / two:.2f}x the throughput")
    text = "\n".join(lines)
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
