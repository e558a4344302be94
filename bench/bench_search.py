"""Benchmark of the ENUM root split search on the DL8.5 binary data sets.

For every data set of ``shared/data/binary/manifest.csv`` with ``collection == DL`` and
``max_rules`` 1, 2, 3 (``node_size`` 1, every column its own group, the label as given),
time :func:`pybsnsing.search.enum_search` (numba solver) and compare with R's
``enum_dl/results.csv`` where a row exists (the holdout data sets have none).

Usage::

    python bench/bench_search.py [--shared PATH] [--repeat 3] [--max-rules 1 2 3]
                                 [--threads N] [--oracle] [DATASET ...]

Prints a table and writes ``bench/results/search.csv``.  Times are the median of
``--repeat`` runs with ``time.perf_counter`` after the JIT was warmed (and its cache loaded)
on a small problem.  ``identical`` compares (cols, objval, neval) with R's row; with
``--oracle`` the rows without an R result (the holdout data sets) are compared with the
NumPy oracle (``solver="enum_py"``, slow) instead.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))

from pybsnsing.search import enum_search  # noqa: E402


def load_binary(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Read a DL8.5 file: each line ``label f1 f2 ...`` -> (X uint8 n x m, y int64)."""
    with gzip.open(path, "rt") as fh:
        a = np.loadtxt(fh, dtype=np.int64, ndmin=2)
    return np.ascontiguousarray(a[:, 1:], dtype=np.uint8), a[:, 0].astype(np.int64)


def dl_datasets(shared: Path) -> list[dict[str, str]]:
    with open(shared / "data" / "binary" / "manifest.csv", newline="") as fh:
        return [r for r in csv.DictReader(fh) if r["collection"] == "DL"]


def r_results(shared: Path) -> dict[tuple[str, int], dict[str, str]]:
    path = shared / "golden" / "enum_dl" / "results.csv"
    if not path.exists():
        return {}
    with open(path, newline="") as fh:
        return {(r["dataset"], int(r["max_rules"])): r for r in csv.DictReader(fh)}


def warm_up() -> None:
    rng = np.random.default_rng(0)
    X = rng.integers(0, 2, (200, 40))
    y = rng.integers(0, 2, 200)
    for mr in (1, 2, 3, 4):
        enum_search(X, y, max_rules=mr, node_size=1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default_shared = os.environ.get("PYBSNSING_SHARED", str(REPO.parent / "shared"))
    ap.add_argument("--shared", default=default_shared)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-rules", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--out", default=str(HERE / "results" / "search.csv"))
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default: all)")
    ap.add_argument("--oracle", action="store_true",
                    help="check rows without an R result against the NumPy oracle")
    ap.add_argument("datasets", nargs="*")
    args = ap.parse_args(argv)
    shared = Path(args.shared)
    if args.threads:
        import numba

        numba.set_num_threads(args.threads)

    rres = r_results(shared)
    warm_up()
    rows = []
    header = (
        f"{'dataset':<20} {'n':>6} {'m':>4} {'R':>2} {'seconds':>9} {'neval':>10} "
        f"{'R_seconds':>9} {'speedup':>8}  identical"
    )
    print(header)
    print("-" * len(header))
    for info in dl_datasets(shared):
        name = info["name"]
        if args.datasets and name not in args.datasets:
            continue
        X, y = load_binary(shared / "data" / "binary" / info["file"])
        n, m = X.shape
        for mr in args.max_rules:
            times = []
            res = None
            for _ in range(max(1, args.repeat)):
                t0 = time.perf_counter()
                res = enum_search(X, y, None, max_rules=mr, node_size=1)
                times.append(time.perf_counter() - t0)
            assert res is not None
            sec = statistics.median(times)
            ref = rres.get((name, mr))
            if ref is not None:
                exp = (
                    tuple(int(c) - 1 for c in ref["cols_1based"].split()),
                    float(ref["objval"]),
                    int(ref["neval"]),
                )
                same = "yes" if (res.cols, res.objval, res.neval) == exp else "NO"
                r_sec = float(ref["elapsed_seconds"])
                ratio = r_sec / sec if sec > 0 else float("inf")
                r_txt, ratio_txt = f"{r_sec:9.3f}", f"{ratio:8.1f}"
            else:
                same, r_sec, ratio = "n/a", float("nan"), float("nan")
                r_txt, ratio_txt = f"{'-':>9}", f"{'-':>8}"
                if args.oracle:
                    ref_py = enum_search(X, y, None, max_rules=mr, node_size=1,
                                         solver="enum_py")
                    got = (res.cols, res.objval, res.neval)
                    same = "oracle" if got == (ref_py.cols, ref_py.objval, ref_py.neval) \
                        else "NO(oracle)"
            print(
                f"{name:<20} {n:>6} {m:>4} {mr:>2} {sec:9.4f} {res.neval:>10} "
                f"{r_txt} {ratio_txt}  {same}",
                flush=True,
            )
            rows.append(
                {
                    "dataset": name,
                    "n": n,
                    "m": m,
                    "max_rules": mr,
                    "seconds": f"{sec:.6f}",
                    "neval": res.neval,
                    "cols": " ".join(str(c) for c in res.cols),
                    "objval": repr(res.objval),
                    "r_seconds": "" if np.isnan(r_sec) else f"{r_sec:.3f}",
                    "speedup": "" if np.isnan(ratio) else f"{ratio:.2f}",
                    "identical": same,
                }
            )
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=list(rows[0]) if rows else ["dataset"])
        w.writeheader()
        w.writerows(rows)
    print(f"\nwrote {out}")
    bad = [r for r in rows if r["identical"].startswith("NO")]
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
