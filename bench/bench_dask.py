"""Benchmark of pybsnsing.dask (issue 20): a parquet folder of N rows x 10 columns (the
synthetic recipe) fitted on ``LocalCluster(n_workers=2, threads_per_worker=1,
memory_limit="2GiB")``, against the in-memory engine on the same rows.

    python bench/bench_dask.py --rows 1000000 10000000 [--no-external]
    python bench/bench_dask.py --rows 30000000 --no-inmemory --no-external
    python bench/bench_dask.py --rows 1000000 --sweep 50000 100000 200000 400000 --no-inmemory
    python bench/bench_dask.py --synthetic1m        # equality on the reference set (slow)
    python bench/bench_dask.py --plot               # bench/results/dask_scaling.png from dask.csv

For each size: the parquet data set is written once (``--dir``, in files of ``--file-rows``
rows, 250 000 by default: one Dask partition per file), the Dask fit runs (seconds per
level, MB gathered to / sent from the driver, the workers' peak memory (process RSS, what
the 2 GiB limit measures) as the scheduler reports it every 0.5 s, overall and per worker,
and the workers seen: a nanny restart brings a new one), then the in-memory fit of the
same rows (``pd.read_parquet`` + :func:`pybsnsing.bsnsing`), and the two trees are
compared node for node.  Results are appended to ``bench/results/dask.txt`` and one
line per fit to ``bench/results/dask.csv``.
``--no-external`` fits with ``import_external=False``: then no rows of a large node move
(with the default, rpart's questions gather each large node's columns to the driver).

The synthetic recipe is that of ``shared/data/tabular/synthetic*`` (10 standard normal
columns; ``y = x1 + x2 x3 - x4/2 + (x5 > 1)/2 + N(0, 1/2) > 0``; ``bench/_data.py``
``synthetic_blocks``), not the same random numbers.
"""

from __future__ import annotations

import argparse
import os
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

FILE_ROWS = 250_000


def write_parquet(folder: Path, n: int, seed: int = 2024, file_rows: int = FILE_ROWS) -> Path:
    """The synthetic recipe as a parquet folder of ``n`` rows (files of ``file_rows``)."""
    out = folder / f"synthetic_{n}_f{file_rows}"
    done = out / "_done"
    if done.exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    from _data import synthetic_blocks

    for k, (X, yb) in enumerate(synthetic_blocks(n, seed)):
        df = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 11)])
        df["y"] = np.where(yb, "pos", "neg")
        for q, b in enumerate(range(0, X.shape[0], file_rows)):
            df.iloc[b:b + file_rows].to_parquet(out / f"part-{k:05d}-{q:03d}.parquet",
                                                index=False)
    done.write_text("ok\n")
    return out


class MemoryWatch:
    """The worker memory (process RSS) the scheduler reports every ``every`` seconds
    while the fit runs: the largest overall, the peak of each worker, and the workers
    seen (a nanny restart brings a worker with a new address)."""

    def __init__(self, client, every: float = 0.5) -> None:
        self.client = client
        self.every = every
        self.peak = 0
        self.per_worker: dict[str, int] = {}  # address -> peak memory
        self.samples: list[tuple[float, int]] = []  # (time, largest worker memory)
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                info = self.client.scheduler_info()
                mems = {a: int(w["metrics"]["memory"]) for a, w in info["workers"].items()}
                for a, m in mems.items():
                    self.per_worker[a] = max(self.per_worker.get(a, 0), m)
                mem = max(mems.values())
                self.peak = max(self.peak, mem)
                self.samples.append((time.time(), mem))
            except Exception:  # the cluster closing
                pass
            self._stop.wait(self.every)

    def summary(self, n_workers: int) -> str:
        peaks = ", ".join(f"{a.rsplit(':', 1)[-1]}: {m / 2**20:.0f}"
                          for a, m in sorted(self.per_worker.items()))
        return (f"peak per worker (port: MiB) {peaks}; workers seen {len(self.per_worker)} "
                f"for {n_workers} (restarts: {len(self.per_worker) - n_workers})")

    def __enter__(self) -> MemoryWatch:
        self._t.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._t.join()


def level_table(info, samples: list[tuple[float, int]]) -> str:
    """``info.table()`` with the largest worker memory seen during each level."""
    lines = info.table().splitlines()
    out = [lines[0] + "  peak_MiB"]
    for line, d in zip(lines[1:], info.levels, strict=True):
        t0 = d.get("wall_start")
        mem = [m for t, m in samples if t0 is not None and t0 <= t <= t0 + d["seconds"]]
        out.append(line + (f"  {max(mem) / 2**20:8.0f}" if mem else "         -"))
    return "\n".join(out)


def write_frame(df: pd.DataFrame, out: Path, file_rows: int = FILE_ROWS) -> Path:
    """A pandas frame as a parquet folder (files of ``file_rows`` rows)."""
    if (out / "_done").exists():
        return out
    out.mkdir(parents=True, exist_ok=True)
    for q, b in enumerate(range(0, len(df), file_rows)):
        df.iloc[b:b + file_rows].to_parquet(out / f"part-{q:05d}.parquet", index=False)
    (out / "_done").write_text("ok\n")
    return out


CSV_FIELDS = ["date", "data", "rows", "partitions", "external", "max_rules", "local_rows",
              "dask_s", "setup_s", "inmemory_s", "same", "peak_mib", "gathered_mb",
              "sent_mb", "levels", "question_rounds", "rpart_rows", "restarts"]


def record(path: Path, row: dict) -> None:
    """Append a row to the csv (an older header without the newer fields: rewritten)."""
    import csv

    new = not path.exists()
    if not new:
        with path.open(newline="") as fh:
            old = list(csv.DictReader(fh))
        if old and list(old[0]) != CSV_FIELDS:
            with path.open("w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
                w.writeheader()
                w.writerows({k: r.get(k, "") for k in CSV_FIELDS} for r in old)
    with path.open("a", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_FIELDS)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in CSV_FIELDS})


def plot(csv_path: Path, out: Path) -> None:
    """Scaling plot: seconds against rows, Dask and in-memory, log-log."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    df = pd.read_csv(csv_path)
    df = df[df["data"] == "synthetic"]
    fig, ax = plt.subplots(1, 2, figsize=(10, 4))
    for ext, g in df.groupby("external"):
        g = g[g["local_rows"] == g["local_rows"].mode().iloc[0]]
        g = g.groupby("rows").last().reset_index()
        lab = "rpart questions" if ext else "import_external=False"
        ax[0].plot(g["rows"], g["dask_s"], "o-", label=f"Dask, {lab}")
        m = g.dropna(subset=["inmemory_s"])
        if len(m):
            ax[0].plot(m["rows"], m["inmemory_s"], "s--", label=f"in-memory, {lab}")
        ax[1].plot(g["rows"], g["peak_mib"], "o-", label=f"worker peak, {lab}")
    ax[1].axhline(2048, color="grey", lw=0.8, ls=":", label="worker limit 2 GiB")
    for a, t in ((ax[0], "fit seconds"), (ax[1], "MiB")):
        a.set_xscale("log")
        a.set_xlabel("rows (x 10 columns)")
        a.set_ylabel(t)
        a.legend(fontsize=7)
    ax[0].set_yscale("log")
    fig.suptitle("pybsnsing.dask on LocalCluster(2 workers x 1 thread, 2 GiB), 2 shared cores")
    fig.tight_layout()
    fig.savefig(out, dpi=110)


def load() -> str:
    la = os.getloadavg()
    return f"load average {la[0]:.1f} {la[1]:.1f} {la[2]:.1f}"


def fit_one(args, folder: Path, n: int, data: str, lr: int, inmemory: bool, say) -> None:
    """One Dask fit (and the in-memory fit of the same rows when ``inmemory``)."""
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    from pybsnsing.dask import bsnsing_dask

    ext = not args.no_external
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      memory_limit="2GiB", dashboard_address=None) as cluster, \
            Client(cluster) as client:
        ddf = dd.read_parquet(str(folder))
        say(f"# start {time.strftime('%H:%M')}, {load()}")
        with MemoryWatch(client) as mw:
            t = time.perf_counter()
            model = bsnsing_dask("y ~ .", ddf, client, max_rules=args.max_rules,
                                 local_rows=lr, keep_obs=n <= 2_000_000,
                                 import_external=ext, verbose=args.verbose,
                                 spill_dir=args.spill_dir)
            t_dask = time.perf_counter() - t
        info = model.dask_info
        say(f"dask fit (local_rows={lr}, import_external={ext}): {t_dask:.1f}s (setup "
            f"{info.setup_seconds:.1f}s, {info.n_partitions} partitions), "
            f"{model.n_splits} splits, {model.n_leaves} leaves; worker peak memory "
            f"{mw.peak / 2**20:.0f} MiB (limit 2048 MiB); {mw.summary(2)}; end {load()}")
        say(level_table(info, mw.samples))
        gathered = sum(d["bytes_gathered"] for d in info.levels)
        sent = sum(d["bytes_sent"] for d in info.levels)
        rounds = sum(d.get("question_rounds", 0) for d in info.levels)
        rp = sum(d.get("rpart_rows", 0) for d in info.levels)
        say(f"bytes moved: {gathered / 1e6:.0f} MB to the driver "
            f"({gathered / (n * 10 * 8):.3f} x the design matrix), {sent / 1e6:.1f} MB "
            f"from it; {rounds} question rounds; rows gathered for rpart: {rp}; design "
            f"columns on the workers' disks: {info.disk_bytes / 1e6:.0f} MB")
    row = dict(date=time.strftime("%Y-%m-%d %H:%M"), data=data, rows=n,
               partitions=info.n_partitions, external=int(ext),
               max_rules=args.max_rules, local_rows=lr, dask_s=round(t_dask, 1),
               setup_s=round(info.setup_seconds, 1), peak_mib=round(mw.peak / 2**20),
               gathered_mb=round(gathered / 1e6, 1), sent_mb=round(sent / 1e6, 1),
               levels=len(info.levels), question_rounds=rounds, rpart_rows=rp,
               restarts=len(mw.per_worker) - 2)
    if inmemory:
        row.update(inmemory_fit(args, folder, n, model, t_dask, say))
    record(args.out.with_suffix(".csv"), row)


def inmemory_fit(args, folder: Path, n: int, model, t_dask: float, say) -> dict:
    """The in-memory fit of the same rows, compared with the Dask tree node for node."""
    import pybsnsing

    ext = not args.no_external
    t = time.perf_counter()
    df = pd.read_parquet(folder)
    t_read = time.perf_counter() - t
    t = time.perf_counter()
    ref = pybsnsing.bsnsing("y ~ .", df, max_rules=args.max_rules, import_external=ext)
    t_mem = time.perf_counter() - t
    same = ref.tree_signature() == model.tree_signature() and \
        str(ref.summary()) == str(model.summary())
    if n <= 2_000_000:
        same = same and all(a.to_dict(include_obs=True) == b.to_dict(include_obs=True)
                            for a, b in zip(ref.nodes, model.nodes, strict=True))
    say(f"in-memory fit: {t_mem:.1f}s (+ read {t_read:.1f}s); dask / in-memory = "
        f"{t_dask / t_mem:.2f}; same tree node for node: {same}; {load()}")
    return dict(inmemory_s=round(t_mem, 1), same=same)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000])
    ap.add_argument("--dir", type=Path, default=Path("/tmp/pybsnsing_bench_dask"))
    ap.add_argument("--file-rows", type=int, default=FILE_ROWS)
    ap.add_argument("--max-rules", type=int, default=2)
    ap.add_argument("--local-rows", type=int, default=None)
    ap.add_argument("--sweep", type=int, nargs="*", default=None,
                    help="local_rows values to time (Dask fits only)")
    ap.add_argument("--no-external", action="store_true", help="import_external=False")
    ap.add_argument("--no-inmemory", action="store_true", help="skip the in-memory fit")
    ap.add_argument("--synthetic1m", action="store_true",
                    help="shared/data/tabular/synthetic1m: Dask tree == in-memory tree")
    ap.add_argument("--plot", action="store_true", help="only draw the scaling plot")
    ap.add_argument("--verbose", action="store_true", help="one line per level (stderr)")
    ap.add_argument("--spill-dir", default=None,
                    help="bsnsing_dask(spill_dir=...): the workers' folder of the design "
                         "columns (default: each worker's local directory)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "dask.txt")
    args = ap.parse_args()
    csv_path = args.out.with_suffix(".csv")
    if args.plot:
        plot(csv_path, args.out.with_name(args.out.stem + "_scaling.png"))
        return

    from pybsnsing.dask._fit import DEFAULT_LOCAL_ROWS

    local_rows = DEFAULT_LOCAL_ROWS if args.local_rows is None else args.local_rows
    ext = not args.no_external
    lines: list[str] = []

    def say(s: str = "") -> None:
        print(s, flush=True)
        lines.append(s)
        args.out.parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a") as fh:
            fh.write(s + "\n")

    def fit(folder: Path, n: int, data: str, lr: int, inmemory: bool) -> None:
        fit_one(args, folder, n, data, lr, inmemory, say)

    say(f"\n== bench_dask {time.strftime('%Y-%m-%d %H:%M')}  max_rules={args.max_rules} "
        f"import_external={ext}  LocalCluster(n_workers=2, threads_per_worker=1, "
        "memory_limit='2GiB'); machine: 2 cores shared with other jobs")
    if args.synthetic1m:
        from _data import load_shared

        df = load_shared("synthetic1m")
        folder = write_frame(df, args.dir / "shared_synthetic1m", args.file_rows)
        say(f"\n-- shared synthetic1m ({len(df)} rows x {df.shape[1]} columns), parquet "
            f"{folder}")
        del df
        fit(folder, 1_000_000, "synthetic1m", local_rows, True)
        return
    for n in args.rows:
        t = time.perf_counter()
        folder = write_parquet(args.dir, n, file_rows=args.file_rows)
        say(f"\n-- {n} rows x 10 columns: parquet {folder} "
            f"({sum(f.stat().st_size for f in folder.glob('*.parquet')) / 1e6:.0f} MB, "
            f"ready in {time.perf_counter() - t:.1f}s)")
        for lr in (args.sweep or [local_rows]):
            fit(folder, n, "synthetic", lr, not args.no_inmemory)


if __name__ == "__main__":
    main()
