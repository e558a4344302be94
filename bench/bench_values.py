"""Carried sorted values against values gathered by row id, by column length.

A tree node's question builder and rpart replay read each column's values in the node's
sorted order. Either the node carries them (``ordv``, split from its parent's with the
sorted lists: :func:`pybsnsing.kernels.packing.split_orders` with values) or it gathers
them by row id from the grower's columns (inside the kernel).
This prints, for growers of n rows x 10 columns (uniform random values, a node of all n
rows split in halves at random), the node's question building both ways and the split
without and with values, per value (ns): what ``tree.VALUES_MIN_ROWS`` is set from.

    python bench/bench_values.py [--rows 1000000 500000 ...] [--out bench/results/values.txt]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _best(f, repeat: int) -> float:
    f()  # (compiled, pages touched)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def measure(n: int, p: int = 10, repeat: int = 5, seed: int = 1) -> dict:
    """Seconds (best of ``repeat``) of the four operations at ``n`` rows."""
    from pybsnsing.kernels.binarize import node_questions_kernel
    from pybsnsing.kernels.packing import split_orders
    from pybsnsing.questions import sorted_values, stable_argsort

    rng = np.random.default_rng(seed)
    X = np.asfortranarray(rng.random((n, p)))
    y = (rng.random(n) < 0.5).astype(np.uint8)
    ordm = np.stack([stable_argsort(X[:, j]) for j in range(p)])
    ordv = sorted_values(X, ordm)
    none = np.empty((0, 0))  # no values: the kernel reads them by row id
    mask = rng.random(n) < 0.5
    bits = np.packbits(mask, bitorder="little")
    nl = int(mask.sum())
    # the tree's defaults: 20 segments, node size sqrt(n), num2factor 10, bin size 3
    args = (1, 20, float(int(np.sqrt(n))), 10.0, 10, 3.0, 20.0, False)

    def split(values: bool):
        lv = np.empty(p * nl if values else 0)
        rv = np.empty(p * (n - nl) if values else 0)
        split_orders(ordm, ordv if values else np.empty((0, 0)), bits,
                     np.empty(p * nl, np.int64), np.empty(p * (n - nl), np.int64), lv, rv)

    return {
        "questions_carried": _best(lambda: node_questions_kernel(X, ordv, y, ordm, *args),
                                   repeat),
        "questions_gathered": _best(lambda: node_questions_kernel(X, none, y, ordm, *args),
                                    repeat),
        "split_bare": _best(lambda: split(False), repeat),
        "split_values": _best(lambda: split(True), repeat),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", nargs="+", type=int,
                    default=[1_000_000, 500_000, 250_000, 125_000, 65_536, 16_384])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "values.txt")
    args = ap.parse_args(argv)
    from pybsnsing import tree

    p = 10
    lines = [f"# bench_values.py {' '.join(argv if argv is not None else sys.argv[1:])}; "
             f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.1f} at start; "
             f"NUMBA_NUM_THREADS={os.environ.get('NUMBA_NUM_THREADS', '(default)')}",
             f"# per value (n x {p}): gather = questions gathered - carried; "
             f"split cost = split with values - without; tree.VALUES_MIN_ROWS = "
             f"{tree.VALUES_MIN_ROWS}",
             f"{'rows':>9} {'q carried ms':>13} {'q gathered ms':>14} {'split ms':>9} "
             f"{'+values ms':>11} {'gather ns':>10} {'split ns':>9} {'carry?':>7}"]
    print(lines[-1], flush=True)
    for n in args.rows:
        r = measure(n, p, args.repeat)
        per = 1e9 / (n * p)
        gather = (r["questions_gathered"] - r["questions_carried"]) * per
        extra = (r["split_values"] - r["split_bare"]) * per
        lines.append(f"{n:>9} {1e3 * r['questions_carried']:>13.1f} "
                     f"{1e3 * r['questions_gathered']:>14.1f} {1e3 * r['split_bare']:>9.1f} "
                     f"{1e3 * r['split_values']:>11.1f} {gather:>10.1f} {extra:>9.1f} "
                     f"{'yes' if n >= tree.VALUES_MIN_ROWS else 'no':>7}")
        print(lines[-1], flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
