"""synthetic1m before/after: whole fits of two commits, interleaved, each in a fresh process.

Each fit: the data loaded and the kernels warmed on 300k rows outside the timing, then one
timed fit (as ``bench_1m.py``); wall, user and system seconds and minor page faults of the
fit and the process's peak resident memory (``getrusage``). The commit ``--before`` is
checked out in a temporary git worktree and imported through ``PYTHONPATH``; the after
side is this checkout. With threads 1 and 2, each side's speed-up from 1 to 2 threads
(the median of the rounds' ratios) is printed too.

    python bench/bench_1m_ab.py --before 16ae2ca [--rounds 3] [--threads 1 2]
        [--out bench/results/session9/ab_1m.txt]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

WORKER = r"""
import json, os, resource, sys, time
sys.path.insert(0, {bench!r})
import pybsnsing
assert pybsnsing.__file__.startswith(os.getcwd()), (pybsnsing.__file__, os.getcwd())
from _data import load_shared
from pybsnsing import bsnsing
df = load_shared("synthetic1m")
ext = sys.argv[1] == "default"
bsnsing("y ~ .", df.iloc[:300000], import_external=ext, verbose=False)
r0 = resource.getrusage(resource.RUSAGE_SELF)
t = time.perf_counter()
bsnsing("y ~ .", df, import_external=ext, verbose=False)
wall = time.perf_counter() - t
r1 = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({{"wall": wall, "user": r1.ru_utime - r0.ru_utime,
                  "sys": r1.ru_stime - r0.ru_stime, "faults": r1.ru_minflt - r0.ru_minflt,
                  "peak": r1.ru_maxrss / 1024}}))
"""


def run(tree: Path, method: str, threads: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), NUMBA_NUM_THREADS=str(threads))
    # (run in ``tree``: ``python -c`` puts the working directory before PYTHONPATH)
    out = subprocess.run([sys.executable, "-c", WORKER.format(bench=str(HERE)), method],
                         env=env, cwd=tree, capture_output=True, text=True,
                         check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, help="a commit")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--methods", nargs="+", default=["noext", "default"])
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    lines = [f"# bench_1m_ab.py {' '.join(argv if argv is not None else sys.argv[1:])}; "
             f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start"]
    res: dict[tuple[str, int, str], list[dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "before"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(old),
                        args.before], check=True, capture_output=True)
        try:
            for r in range(args.rounds):
                for th in args.threads:
                    for m in args.methods:
                        for side, tree in (("before", old), ("after", ROOT)):
                            x = run(tree, m, th)
                            res.setdefault((m, th, side), []).append(x)
                            line = (f"round {r + 1} {side:6s} {m:8s} {th} thr: wall "
                                    f"{x['wall']:.2f} user {x['user']:.2f} sys {x['sys']:.2f} "
                                    f"faults {x['faults']} peak {x['peak']:.0f} MiB")
                            print(line, flush=True)
                            lines.append(line)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(old)],
                           capture_output=True)
    lines.append("# medians")
    for th in args.threads:
        for m in args.methods:
            b, a = res[(m, th, "before")], res[(m, th, "after")]
            med = {k: (statistics.median(x[k] for x in b), statistics.median(x[k] for x in a))
                   for k in ("wall", "sys", "faults", "peak")}
            lines.append(f"{m:8s} {th} thr: wall {med['wall'][0]:.2f} -> {med['wall'][1]:.2f} s "
                         f"(after/before {med['wall'][1] / med['wall'][0]:.2f}); system "
                         f"{med['sys'][0]:.2f} -> {med['sys'][1]:.2f} s; page faults "
                         f"{med['faults'][0]:.0f} -> {med['faults'][1]:.0f}; peak "
                         f"{med['peak'][0]:.0f} -> {med['peak'][1]:.0f} MiB")
    if 1 in args.threads and 2 in args.threads:
        for m in args.methods:
            ups = {side: [one["wall"] / two["wall"] for one, two in
                          zip(res[(m, 1, side)], res[(m, 2, side)], strict=True)]
                   for side in ("before", "after")}
            lines.append(f"{m:8s} speed-up 1 -> 2 threads (median of the rounds' ratios): "
                         + "; ".join(f"{side} {statistics.median(u):.2f}x ("
                                     + ", ".join(f"{x:.2f}" for x in u) + ")"
                                     for side, u in ups.items()))
    text = "\n".join(lines) + "\n"
    print(text.split("# medians")[1])
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
