"""Benchmark of pybsnsing.dask (issue 20): a parquet folder of N rows x 10 columns (the
synthetic recipe) fitted on ``LocalCluster(n_workers=2, threads_per_worker=1,
memory_limit="2GiB")``, against the in-memory engine on the same rows.

    python bench/bench_dask.py --rows 1000000 10000000 [--rows 30000000 --no-inmemory]

For each size: the parquet data set is written once (``--dir``, in 1M-row files), the Dask
fit runs (seconds per level, MB gathered to / sent from the driver, the workers' peak
memory as the scheduler reports it every 0.5 s), then the in-memory fit of the same rows
(``pd.read_parquet`` + :func:`pybsnsing.bsnsing`), and the two trees are compared node
for node.  Results are appended to ``bench/results/dask.txt``.

The synthetic recipe is that of ``shared/data/tabular/synthetic*`` (10 standard normal
columns; ``y = x1 + x2 x3 - x4/2 + (x5 > 1)/2 + N(0, 1/2) > 0``; see
bench/bench_external.py), not the same random numbers.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

CHUNK = 1_000_000


def write_parquet(folder: Path, n: int, seed: int = 2024) -> Path:
    """The synthetic recipe as a parquet folder of ``n`` rows (files of 1M rows)."""
    out = folder / f"synthetic_{n}"
    done = out / "_done"
    if done.exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    for k, a in enumerate(range(0, n, CHUNK)):
        m = min(CHUNK, n - a)
        X = rng.normal(size=(m, 10))
        lin = X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * X[:, 3] + 0.5 * (X[:, 4] > 1)
        y = np.where(lin + rng.normal(0, 0.5, m) > 0, "pos", "neg")
        df = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 11)])
        df["y"] = y
        df.to_parquet(out / f"part-{k:05d}.parquet", index=False)
    done.write_text("ok\n")
    return out


class MemoryWatch:
    """The largest worker memory the scheduler reports while the fit runs."""

    def __init__(self, client, every: float = 0.5) -> None:
        self.client = client
        self.every = every
        self.peak = 0
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                info = self.client.scheduler_info()
                for w in info["workers"].values():
                    self.peak = max(self.peak, int(w["metrics"]["memory"]))
            except Exception:  # the cluster closing
                pass
            self._stop.wait(self.every)

    def __enter__(self) -> MemoryWatch:
        self._t.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._t.join()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--dir", type=Path, default=Path("/tmp/pybsnsing_bench_dask"))
    ap.add_argument("--max-rules", type=int, default=2)
    ap.add_argument("--local-rows", type=int, default=None)
    ap.add_argument("--no-inmemory", action="store_true", help="skip the in-memory fit")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "dask.txt")
    args = ap.parse_args()

    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import pybsnsing
    from pybsnsing.dask import bsnsing_dask
    from pybsnsing.dask._fit import DEFAULT_LOCAL_ROWS

    local_rows = DEFAULT_LOCAL_ROWS if args.local_rows is None else args.local_rows
    lines: list[str] = []

    def say(s: str = "") -> None:
        print(s, flush=True)
        lines.append(s)

    say(f"== bench_dask {time.strftime('%Y-%m-%d %H:%M')}  max_rules={args.max_rules} "
        f"local_rows={local_rows}  LocalCluster(n_workers=2, threads_per_worker=1, "
        "memory_limit='2GiB'); machine: 2 cores shared")
    for n in args.rows:
        t = time.perf_counter()
        folder = write_parquet(args.dir, n)
        say(f"\n-- {n} rows x 10 columns: parquet {folder} "
            f"({sum(f.stat().st_size for f in folder.glob('*.parquet')) / 1e6:.0f} MB, "
            f"ready in {time.perf_counter() - t:.1f}s)")
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                          memory_limit="2GiB", dashboard_address=None) as cluster, \
                Client(cluster) as client:
            ddf = dd.read_parquet(str(folder))
            with MemoryWatch(client) as mw:
                t = time.perf_counter()
                model = bsnsing_dask("y ~ .", ddf, client, max_rules=args.max_rules,
                                     local_rows=local_rows, keep_obs=n <= 2_000_000)
                t_dask = time.perf_counter() - t
            info = model.dask_info
            say(f"dask fit: {t_dask:.1f}s (setup {info.setup_seconds:.1f}s, "
                f"{info.n_partitions} partitions), {model.n_splits} splits, "
                f"{model.n_leaves} leaves; worker peak memory {mw.peak / 2**20:.0f} MiB "
                "(limit 2048 MiB)")
            say(info.table())
            gathered = sum(d["bytes_gathered"] for d in info.levels)
            say(f"bytes gathered to the driver: {gathered / 1e6:.0f} MB "
                f"({gathered / (n * 10 * 8):.2f} x the design matrix)")
        if args.no_inmemory:
            continue
        t = time.perf_counter()
        df = pd.read_parquet(folder)
        t_read = time.perf_counter() - t
        t = time.perf_counter()
        ref = pybsnsing.bsnsing("y ~ .", df, max_rules=args.max_rules)
        t_mem = time.perf_counter() - t
        same = ref.tree_signature() == model.tree_signature() and \
            str(ref.summary()) == str(model.summary())
        say(f"in-memory fit: {t_mem:.1f}s (+ read {t_read:.1f}s); dask / in-memory = "
            f"{t_dask / t_mem:.2f}; same tree node for node: {same}")
        del df, ref
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("a") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
