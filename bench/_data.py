"""Data loading shared by the fit benchmarks (bundled sets and the big synthetic sets).

The synthetic sets of the reference material are read with the canonical reader
(:func:`pybsnsing.datasets.read_canonical`); the 1m set takes tens of seconds to parse, so
a parsed copy is cached as ``bench/results/<name>.npz`` (git-ignored) and reused.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
RESULTS = HERE / "results"
DEFAULT_SHARED = REPO.parent / "shared"
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def _to_npz(df: pd.DataFrame, path: Path) -> None:
    arrays: dict[str, np.ndarray] = {"__columns__": np.array(list(df.columns), dtype=str)}
    for k, c in enumerate(df.columns):
        s = df[c]
        if isinstance(s.dtype, pd.CategoricalDtype):
            arrays[f"c{k}_codes"] = s.cat.codes.to_numpy()
            arrays[f"c{k}_levels"] = np.array([str(v) for v in s.cat.categories], dtype=str)
        else:
            arrays[f"c{k}_values"] = s.to_numpy()
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)


def _from_npz(path: Path) -> pd.DataFrame:
    with np.load(path, allow_pickle=False) as z:
        cols = [str(c) for c in z["__columns__"]]
        data: dict[str, object] = {}
        for k, c in enumerate(cols):
            if f"c{k}_codes" in z:
                data[c] = pd.Categorical.from_codes(z[f"c{k}_codes"],
                                                    categories=list(z[f"c{k}_levels"]))
            else:
                data[c] = z[f"c{k}_values"]
    return pd.DataFrame(data, columns=cols)


#: rows per block of the synthetic recipe (the blocks are the random stream's unit)
SYNTHETIC_BLOCK = 1_000_000


def synthetic_blocks(n: int, seed: int = 2024) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """``n`` rows of the synthetic recipe of ``shared/data/tabular/synthetic*`` in blocks
    of :data:`SYNTHETIC_BLOCK` rows: ``(X, y)`` with X 10 standard normal columns and y
    (bool) ``x1 + x2 x3 - x4/2 + (x5 > 1)/2 + N(0, 1/2) > 0`` (not the same random
    numbers as the shared files)."""
    rng = np.random.default_rng(seed)
    for a in range(0, n, SYNTHETIC_BLOCK):
        m = min(SYNTHETIC_BLOCK, n - a)
        x = rng.normal(size=(m, 10))
        lin = x[:, 0] + x[:, 1] * x[:, 2] - 0.5 * x[:, 3] + 0.5 * (x[:, 4] > 1)
        yield x, lin + rng.normal(0, 0.5, m) > 0


def synthetic_frame(n: int, seed: int = 2024) -> pd.DataFrame:
    """:func:`synthetic_blocks` as one frame: columns x1..x10 and y, a factor neg/pos."""
    X = np.empty((n, 10))
    y = np.empty(n, dtype=np.int8)
    for k, (x, yb) in enumerate(synthetic_blocks(n, seed)):
        a = k * SYNTHETIC_BLOCK
        X[a:a + x.shape[0]] = x
        y[a:a + x.shape[0]] = yb
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 11)])
    df["y"] = pd.Categorical.from_codes(y, categories=["neg", "pos"])
    return df


def load_shared(name: str, shared: Path = DEFAULT_SHARED, cache: bool = True) -> pd.DataFrame:
    """A data set of ``shared/data/tabular`` read canonically (cached as .npz), or
    ``synthetic:<rows>``: :func:`synthetic_frame` of that many rows (generated)."""
    from pybsnsing.datasets import read_canonical

    if name.startswith("synthetic:"):
        return synthetic_frame(int(float(name.split(":", 1)[1])))

    tab = Path(shared) / "data" / "tabular"
    cached = RESULTS / f"{name}.npz"
    if cache and cached.exists():
        return _from_npz(cached)
    manifest = pd.read_csv(tab / "manifest.csv")
    file = manifest.loc[manifest["name"] == name, "file"].iloc[0]
    columns = pd.read_csv(tab / "columns.csv", keep_default_na=False)
    df = read_canonical(tab / file, columns, name)
    if cache:
        RESULTS.mkdir(parents=True, exist_ok=True)
        _to_npz(df, cached)
    return df


if __name__ == "__main__":  # pre-parse: python bench/_data.py synthetic1m ...
    import time

    for nm in sys.argv[1:] or ["synthetic100k", "synthetic1m"]:
        t = time.perf_counter()
        d = load_shared(nm)
        print(nm, d.shape, f"{time.perf_counter() - t:.1f}s")
