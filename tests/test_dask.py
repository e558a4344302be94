"""pybsnsing.dask: the tree grown on a Dask cluster is the in-memory tree, node for node.

Runs on a LocalCluster of 2 worker processes (1 thread each), shared by the module.
Skipped, with the reason, where dask/distributed is not installed (``pip install
"pybsnsing[dask]"``).  ``local_rows`` is set low so that small data sets exercise the
distributed split (counters summed across partitions, rules routed per partition) as
well as the local subtrees.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed", reason='dask is not installed: pip install "pybsnsing[dask]"')
dd = pytest.importorskip("dask.dataframe", reason="dask.dataframe is not installed")

from distributed import Client, LocalCluster  # noqa: E402

from pybsnsing import bscontrol, bsnsing  # noqa: E402
from pybsnsing.dask import bsnsing_dask, predict_dask  # noqa: E402
from pybsnsing.dask._fit import _answers, _question_spec, _stitch  # noqa: E402
from pybsnsing.dask._questions import build_questions, local_round  # noqa: E402
from pybsnsing.datasets import dataset_formula, load_dataset  # noqa: E402
from pybsnsing.errors import (  # noqa: E402
    DataError,
    PybsnsingTypeError,
    PybsnsingValueError,
)
from pybsnsing.model import load_model  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit="2GiB") as cluster, \
            Client(cluster) as c:
        yield c


def node_table(model) -> list[dict]:
    return [nd.to_dict(include_obs=True) for nd in model.nodes]


def assert_same(ref, got) -> None:
    """Same tree node for node: the printed tree, the node table (with each node's rows),
    the fitted values."""
    trees_r = getattr(ref, "trees", [ref])
    trees_g = getattr(got, "trees", [got])
    assert len(trees_r) == len(trees_g)
    for r, g in zip(trees_r, trees_g, strict=True):
        assert str(g.summary()) == str(r.summary())
        assert node_table(g) == node_table(r)
        assert g.node_size == r.node_size
        np.testing.assert_array_equal(g.fitted_values, r.fitted_values)
    assert str(got) == str(ref)


def _synthetic(n: int, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 6)).round(3)
    df = pd.DataFrame(X, columns=[f"x{j}" for j in range(1, 7)])
    df["grp"] = rng.choice(["a", "b", "c", "dd"], n)
    df["cnt"] = rng.integers(0, 6, n)  # few values: factor-like (num2factor) questions
    lin = X[:, 0] + X[:, 1] * X[:, 2] - 0.5 * (df["grp"] == "b") + 0.3 * df["cnt"]
    df["y"] = np.where(lin + rng.normal(0, 0.5, n) > 0.6, "pos", "neg")
    return df


@pytest.mark.parametrize("max_rules", [1, 2, 3])
def test_same_tree_synthetic(client, max_rules):
    df = _synthetic(6000)
    ddf = dd.from_pandas(df, npartitions=3)
    ref = bsnsing("y ~ .", df, max_rules=max_rules)
    got = bsnsing_dask("y ~ .", ddf, client, max_rules=max_rules, local_rows=800)
    assert_same(ref, got)
    info = got.dask_info
    assert info.levels[0]["large"] == 1 and sum(d["local"] for d in info.levels) > 0


def test_same_tree_no_external_and_no_local(client):
    """Every node split distributedly (local_rows=0), internal questions only; 18
    partitions: a worker merges its partitions' results every 8 (_MERGE_EVERY)."""
    df = _synthetic(1200, seed=3)
    ddf = dd.from_pandas(df, npartitions=18)
    kw = {"import_external": False, "max_rules": 2}
    assert_same(bsnsing("y ~ .", df, **kw), bsnsing_dask("y ~ .", ddf, client, local_rows=0,
                                                          **kw))


def test_missing_values_imputed_as_in_memory(client, tmp_path: Path):
    """Also: the columns in spill_dir while the fit runs, removed at its end."""
    df = _synthetic(3000, seed=9)
    rng = np.random.default_rng(1)
    for col in ("x1", "x3", "cnt"):
        df.loc[rng.random(len(df)) < 0.05, col] = np.nan
    got = bsnsing_dask("y ~ .", dd.from_pandas(df, npartitions=3), client, local_rows=400,
                       spill_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []
    assert got.dask_info.disk_bytes == 8 * len(df) * len(got.design.names)
    ref = bsnsing("y ~ .", df)
    assert_same(ref, got)
    np.testing.assert_array_equal(got.design.medians, ref.design.medians)
    np.testing.assert_array_equal(got.predict(df, impute=True), ref.predict(df, impute=True))


def test_infinite_values_as_in_memory(client):
    """Inf and -Inf are values (their rows go down the distributed nodes by them) and
    count in the medians; rpart treats them as missing (surrogates): the same tree."""
    df = _synthetic(3000, seed=11)
    rng = np.random.default_rng(2)
    df.loc[rng.random(len(df)) < 0.03, "x1"] = np.inf
    df.loc[rng.random(len(df)) < 0.03, "x2"] = -np.inf
    df.loc[rng.random(len(df)) < 0.05, "x1"] = np.nan
    got = bsnsing_dask("y ~ .", dd.from_pandas(df, npartitions=3), client, local_rows=400)
    ref = bsnsing("y ~ .", df)
    assert_same(ref, got)
    np.testing.assert_array_equal(got.design.medians, ref.design.medians)


def test_whole_tree_local(client):
    df = _synthetic(2000, seed=5)
    got = bsnsing_dask("y ~ .", dd.from_pandas(df, npartitions=2), client)
    assert_same(bsnsing("y ~ .", df), got)
    assert got.dask_info.levels[0]["local"] == 1


@pytest.mark.parametrize("name", ["BreastCancer", "kyphosis", "iris", "pima", "titanic",
                                  "GlaucomaMVF"])
def test_same_tree_bundled(client, name):
    df = load_dataset(name)
    formula = dataset_formula(name)
    ddf = dd.from_pandas(df, npartitions=3)
    for kw in ({}, {"max_rules": 1}, {"max_rules": 3, "node_size": 5}):
        ref = bsnsing(formula, df, **kw)
        got = bsnsing_dask(formula, ddf, client, local_rows=max(40, len(df) // 6), **kw)
        assert_same(ref, got)


def test_bsnsing_dispatches_dask_frames(client):
    df = load_dataset("kyphosis")
    got = bsnsing("Kyphosis ~ .", dd.from_pandas(df, npartitions=2),
                  control=bscontrol(max_rules=3))
    assert_same(bsnsing("Kyphosis ~ .", df, control=bscontrol(max_rules=3)), got)


def test_predict_print_save(client, tmp_path: Path):
    df = _synthetic(4000, seed=11)
    ddf = dd.from_pandas(df, npartitions=3)
    ref = bsnsing("y ~ .", df)
    got = bsnsing_dask("y ~ .", ddf, client, local_rows=500)
    new = _synthetic(700, seed=12)
    for kind in ("prob", "class"):
        want = ref.predict(new, type=kind)
        np.testing.assert_array_equal(got.predict(new, type=kind), want)
        lazy = predict_dask(got, dd.from_pandas(new, npartitions=2), type=kind)
        np.testing.assert_array_equal(lazy.compute().to_numpy(), want)
    assert repr(got) == repr(ref)
    path = tmp_path / "m.json"
    got.save(path)
    back = load_model(path)
    assert str(back.summary()) == str(ref.summary())
    np.testing.assert_array_equal(back.predict(new, type="class"), ref.predict(new, type="class"))


def test_multiclass_predict_dask(client):
    df = load_dataset("iris")
    formula = dataset_formula("iris")
    got = bsnsing_dask(formula, dd.from_pandas(df, npartitions=2), client, local_rows=30)
    ref = bsnsing(formula, df)
    lazy = predict_dask(got, dd.from_pandas(df, npartitions=2), type="class")
    np.testing.assert_array_equal(lazy.compute().to_numpy(), ref.predict(df, type="class"))
    with pytest.raises(PybsnsingValueError,
                       match=r"predict_dask gives type='class' for a multi-class model"):
        predict_dask(got, dd.from_pandas(df, npartitions=2), type="prob")


@pytest.mark.skipif(os.environ.get("PYBSNSING_BIG") != "1",
                    reason="synthetic100k on a 2-worker cluster takes 1.5-5 min, beyond CI's "
                           "budget: set PYBSNSING_BIG=1 (the smaller equality tests run in CI)")
def test_synthetic100k(client, shared):
    """The reference set synthetic100k (every row), default control and max_rules 1 and 3
    on a 20 000-row prefix."""
    from pybsnsing.datasets import read_canonical

    tab = shared / "data" / "tabular"
    manifest = pd.read_csv(tab / "manifest.csv")
    file = manifest.loc[manifest["name"] == "synthetic100k", "file"].iloc[0]
    columns = pd.read_csv(tab / "columns.csv", keep_default_na=False)
    df = read_canonical(tab / file, columns, "synthetic100k")
    ddf = dd.from_pandas(df, npartitions=4)
    assert_same(bsnsing("y ~ .", df), bsnsing_dask("y ~ .", ddf, client, local_rows=40_000))
    head = df.iloc[:8_000].reset_index(drop=True)
    hdf = dd.from_pandas(head, npartitions=3)
    for mr in (1, 3):
        assert_same(bsnsing("y ~ .", head, max_rules=mr),
                    bsnsing_dask("y ~ .", hdf, client, max_rules=mr, local_rows=3000))


def test_errors(client, tmp_path: Path):
    df = _synthetic(500)
    with pytest.raises(PybsnsingTypeError,
                       match="data must be a dask.dataframe.DataFrame, not DataFrame"):
        bsnsing_dask("y ~ .", df, client)
    with pytest.raises(PybsnsingValueError, match="max_rules <= 2"):
        bsnsing_dask("y ~ .", dd.from_pandas(df, npartitions=2), client, max_rules=3,
                     local_rows=0, gather_limit=1000, spill_dir=tmp_path)
    assert list(tmp_path.iterdir()) == []  # the column files removed after an error too
    with pytest.raises(PybsnsingTypeError, match="spill_dir must be a path or None"):
        bsnsing_dask("y ~ .", dd.from_pandas(df, npartitions=2), client, spill_dir=1)
    with pytest.raises(PybsnsingValueError, match="local_rows must be an integer >= 0, got -1"):
        bsnsing_dask("y ~ .", dd.from_pandas(df, npartitions=2), client, local_rows=-1)


def test_stitch_matches_one_packing():
    from pybsnsing.kernels.enum import pack_by_class

    rng = np.random.default_rng(0)
    B = (rng.random((1000, 7)) < 0.4).astype(np.uint8)
    y = (rng.random(1000) < 0.3).astype(np.uint8)
    whole = pack_by_class(B, y)
    cuts = [0, 1, 63, 64, 200, 511, 512, 999, 1000]
    parts = [pack_by_class(B[a:b], y[a:b]) for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    ns = [(int(y[a:b].sum()), int((1 - y[a:b]).sum()))
          for a, b in zip(cuts[:-1], cuts[1:], strict=True)]
    Xp = _stitch([(p[0], n[0]) for p, n in zip(parts, ns, strict=True)], 7)
    Xn = _stitch([(p[1], n[1]) for p, n in zip(parts, ns, strict=True)], 7)
    np.testing.assert_array_equal(Xp, whole[0])
    np.testing.assert_array_equal(Xn, whole[1])


# ---------------------------------------------------------------------------------------
# the distributed question set == the engine's, node by node (no cluster: the partitions
# are in-memory parts; the cluster runs the same functions)


def _question_cases():
    rng = np.random.default_rng(20)
    n = 3000
    x = rng.normal(size=n)
    ties = np.where(rng.random(n) < 0.4, np.median(x), x.round(1))  # imputed-like ties
    eps = 1.0 + rng.integers(0, 30, n) * np.finfo(float).eps  # midpoints round onto values
    df = pd.DataFrame({"x": x, "ties": ties, "eps": eps, "few": rng.integers(0, 7, n),
                       "sorted": np.sort(rng.normal(size=n)),
                       "rare": rng.choice(["a", "b", "c", "zz"], n, p=[.6, .395, .004, .001]),
                       "const": 2.5})
    df["y"] = np.where(x + 0.3 * df["few"] + rng.normal(0, .7, n) > 0.4, "p", "n")
    miss = _synthetic(2500, seed=4)
    for col in ("x1", "x2", "cnt"):
        miss.loc[rng.random(len(miss)) < 0.1, col] = np.nan
    inf = df.copy()  # infinite values: buckets of their own, the finite range between
    inf.loc[rng.random(n) < 0.05, "x"] = np.inf
    inf.loc[rng.random(n) < 0.05, "x"] = -np.inf
    inf.loc[rng.random(n) < 0.5, "sorted"] = np.inf
    inf["huge"] = rng.choice([-1.7e308, 1.7e308, 0.0], n)
    yield "ties", "y ~ .", df
    yield "missing", "y ~ .", miss
    yield "infinite", "y ~ .", inf
    for name in ("pima", "GlaucomaMVF", "titanic", "BreastCancer"):
        yield name, dataset_formula(name), load_dataset(name)


@pytest.mark.parametrize("case", list(_question_cases()), ids=lambda c: c[0])
def test_questions_equal_in_memory(case):
    """Texts, kinds, exact values and answers of every internal question, at the root and
    at child nodes, for several partitionings and bucket sizes (small buckets force the
    fetches, the twins of rounded midpoints, the thinning walks)."""
    from pybsnsing.design import build_design
    from pybsnsing.questions import question_set_from_orders, r_segments

    _, formula, df = case
    design, yser = build_design(formula, df)
    X = np.asfortranarray(design.X)
    y = (yser.astype(str) == sorted(yser.astype(str).unique())[-1]).to_numpy(np.int64)
    rng = np.random.default_rng(len(df))
    nodes = [np.arange(X.shape[0])]
    with np.errstate(all="ignore"):  # (infinite values: a NaN spread)
        j = int(np.argmax(np.nan_to_num(X.std(axis=0), nan=-1.0)))
    nodes += [np.flatnonzero(X[:, j] > np.median(X[:, j])),
              np.flatnonzero(X[:, j] <= np.median(X[:, j]))]
    for rows in nodes:
        yn = y[rows]
        if yn.min() == yn.max():
            continue
        Xn = np.asfortranarray(X[rows])
        n = rows.shape[0]
        for target in (0, 1):
            for seg, nparts, cap in ((20, 3, 16), (3, 1, 5000), (6, 5, 64)):
                kw = dict(segments=seg, num2factor=10, nseg_factor=20, bin_size=5,
                          node_size=10)
                ordm = np.vstack([np.argsort(Xn[:, c], kind="stable")
                                  for c in range(Xn.shape[1])])
                ref = question_set_from_orders(Xn, yn.astype(np.uint8), ordm, design.names,
                                               target, **kw)
                cuts = np.sort(rng.choice(np.arange(1, n), nparts - 1, replace=False))
                b = [0, *cuts.tolist(), n]
                parts = [(Xn[a:c], yn[a:c], np.arange(a, c))
                         for a, c in zip(b[:-1], b[1:], strict=True)]
                got, sets = build_questions(local_round(parts), design.names, n,
                                            int(yn.sum()), target, cap=cap, **kw)
                assert got.texts == ref.texts
                np.testing.assert_array_equal(got.kinds, ref.kinds)
                np.testing.assert_array_equal(got.values, ref.values)
                np.testing.assert_array_equal(got.cols, ref.cols)
                spec = _question_spec([got], None, None, sets)
                np.testing.assert_array_equal(_answers(Xn, spec),
                                              ref.dense(np.arange(n), n))
    assert r_segments(20) == 20


def test_questions_large_node_few_rounds():
    """A 200 000-row node: a handful of rounds, a few buckets fetched."""
    rng = np.random.default_rng(3)
    n = 200_000
    X = np.asfortranarray(rng.normal(size=(n, 4)))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=n) > 0).astype(np.int64)
    parts = [(X[a:a + 50_000], y[a:a + 50_000], np.arange(a, a + 50_000))
             for a in range(0, n, 50_000)]
    moved = []

    def run(fn, req):
        out = local_round(parts)(fn, req)
        if fn.__name__ == "part_fetch":
            moved.append(sum(len(o[j][0][1]) for o in out for j in o))
        return out

    stats: dict = {}
    got, _ = build_questions(run, ["a", "b", "c", "d"], n, int(y.sum()), 1, segments=20,
                             num2factor=10, nseg_factor=20, bin_size=5, node_size=10,
                             stats=stats)
    assert got.m > 40
    assert stats["question_rounds"] <= 8
    assert sum(moved) < n * 4 / 4  # values fetched: a fraction of the node's n x 4


def test_cell_counters_match_packed_gram(tmp_path: Path):
    """The counters from cell tables (one task per worker) == popcounts and Gram matrices
    of the bit-packed answers, for cuts, value sets, ties and several partitions."""
    from pybsnsing.dask._fit import (
        _OP_GE,
        _OP_GT,
        _OP_IN,
        _OP_LE,
        _OP_LT,
        _cell_plan,
        _spec,
        _store_block,
        _w_counters,
    )

    rng = np.random.default_rng(5)
    n = 5000
    X = np.asfortranarray(np.column_stack([
        rng.normal(size=n).round(1), rng.integers(0, 5, n).astype(float),
        rng.normal(size=n), (rng.random(n) < 0.3).astype(float)]))
    codes = (rng.random(n) < 0.4).astype(np.int16)
    cols, ops, vals, sets = [], [], [], {}
    for j in (0, 2):
        for v in np.quantile(X[:, j], [0.1, 0.3, 0.5, 0.7]).round(1).tolist() + [0.0]:
            for op in (_OP_GT, _OP_LT, _OP_GE, _OP_LE):
                cols.append(j)
                ops.append(op)
                vals.append(v)
    for s in ([0.0], [1.0, 3.0], [4.0]):
        sets[len(cols)] = np.array(s)
        cols.append(1)
        ops.append(_OP_IN)
        vals.append(np.nan)
    sets[len(cols)] = np.array([1.0])
    cols.append(3)
    ops.append(_OP_IN)
    vals.append(np.nan)
    spec = _spec(cols, ops, vals, sets)
    plan = _cell_plan(spec)
    assert plan is not None
    blocks = [_store_block(X[a:a + 1700], codes[a:a + 1700], str(tmp_path), a)
              for a in range(0, n, 1700)]
    np.testing.assert_array_equal(blocks[1].matrix(), X[1700:3400])
    np.testing.assert_array_equal(blocks[2].column(3), X[3400:5100, 3])
    for target in (0, 1):
        got = _w_counters(blocks, None, None, [(0, spec, plan, target)], False)[0]
        want = _w_counters(blocks, None, None, [(0, spec, None, target)], False)[0]
        for k in ("n1", "n0"):
            assert got[k] == want[k]
        for k in ("cp", "cn", "Gp", "Gn"):
            np.testing.assert_array_equal(got[k], want[k])
    os.remove(blocks[0].path)
    with pytest.raises(DataError, match="design column file .* is missing"):
        blocks[0].column(0)


def test_questions_merged_per_worker():
    """Partition results merged on a worker (MERGE) give the same questions."""
    from pybsnsing.dask._questions import MERGE

    rng = np.random.default_rng(8)
    n = 20_000
    X = np.asfortranarray(np.column_stack([rng.normal(size=n).round(2),
                                           rng.integers(0, 4, n).astype(float),
                                           rng.normal(size=n)]))
    y = (X[:, 0] + 0.3 * X[:, 1] + rng.normal(size=n) > 0.5).astype(np.int64)
    parts = [(X[a:a + 2500], y[a:a + 2500], np.arange(a, a + 2500))
             for a in range(0, n, 2500)]

    def merged(fn, req):
        out = local_round(parts)(fn, req)
        return [MERGE[fn.__name__](out[0::2], req), MERGE[fn.__name__](out[1::2], req)]

    kw = dict(segments=20, num2factor=10, nseg_factor=20, bin_size=5, node_size=10, cap=64)
    ref, _ = build_questions(local_round(parts), ["a", "b", "c"], n, int(y.sum()), 1, **kw)
    got, _ = build_questions(merged, ["a", "b", "c"], n, int(y.sum()), 1, **kw)
    assert got.texts == ref.texts
    np.testing.assert_array_equal(got.values, ref.values)


def test_locate_is_searchsorted():
    from pybsnsing.dask._questions import _locate

    rng = np.random.default_rng(2)
    x = np.concatenate([rng.normal(size=3000).round(2), [-np.inf, np.inf, 0.0, -0.0]])
    for edges in (np.unique(rng.normal(size=50).round(2)),
                  np.r_[-np.inf, np.unique(rng.normal(size=7).round(1)), np.inf],
                  np.array([0.5]), np.array([-np.inf, np.inf]), np.empty(0),
                  np.unique(np.r_[np.linspace(-3, 3, 20), np.linspace(0.1, 0.11, 64)])):
        np.testing.assert_array_equal(_locate(x, edges), np.searchsorted(edges, x))
