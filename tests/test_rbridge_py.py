"""The Python side of the R bridge: pybsnsing.r.convert and pybsnsing.r.bsnsing_r.

* the column codec used by the R package (reticulate) round-trips every
  bundled data set without R;
* pandas -> R -> pandas through rpy2 keeps values, dtypes, categorical levels
  and missing values, and the R data frame equals R's own canonical read;
* a model exported to an R ``bsnsing`` object has R's structure and, read
  back, predicts identically;
* R bsnsing itself (when installed) gives the same trees as pybsnsing.

Tests that need R are skipped when rpy2 or R is missing.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from conftest import GOLDEN
from golden import tabular_source
from pandas.testing import assert_frame_equal

from pybsnsing import bscontrol, bsnsing
from pybsnsing.datasets import list_datasets, load_dataset
from pybsnsing.r import convert

TREES = GOLDEN / "trees"


def _dataset_names() -> list[str]:
    names = list_datasets()
    if isinstance(names, pd.DataFrame):
        names = names["name"].tolist()
    return [str(n) for n in names]


DATASETS = _dataset_names()


@pytest.fixture(scope="module")
def r():
    """rpy2's R (the tests using it are skipped when rpy2 or R is missing)."""
    try:
        import rpy2.robjects as ro
    except Exception as exc:  # ImportError, or R failing to start
        pytest.skip(f"rpy2/R not usable: {type(exc).__name__}: {exc}")
    return ro


def _r_eval(ro, code: str, **objects):
    """Evaluate R ``code`` with ``objects`` bound (the code is passed as text: a
    language object given to an R function through rpy2 would be evaluated
    before the call)."""
    env = ro.r["new.env"]()
    for k, v in objects.items():
        env[k] = v
    return ro.r("function(code, env) eval(str2lang(code), env)")(code, env)


def _record(dataset: str, config: str) -> dict:
    path = TREES / f"{dataset}.json"
    if not path.exists():
        pytest.skip(f"golden fixture {path} not found")
    for rec in json.loads(path.read_text()):
        if rec["config"] == config:
            return rec
    pytest.skip(f"no {dataset}/{config} record")


def _split(rec: dict) -> tuple[pd.DataFrame, pd.DataFrame]:
    data = load_dataset(rec["dataset"])
    train = data.iloc[[i - 1 for i in rec["train_rows"]]].reset_index(drop=True)
    test = data.iloc[[i - 1 for i in rec["test_rows"]]].reset_index(drop=True)
    return train, test


def _odd_frame() -> pd.DataFrame:
    return pd.DataFrame({
        "b": [True, False, True],
        "bn": pd.array([True, None, False], dtype="boolean"),
        "s": pd.Series(["a", None, "\u00e9t\u00e9"]),
        "o": pd.Categorical(["lo", "hi", None], categories=["lo", "hi"], ordered=True),
        "ic": pd.Categorical([1, 2, None]),
        "fc": pd.Categorical([1.5, 2.0, 1.5]),
        "i32": np.array([1, 2, 3], dtype=np.int32),
        "big": np.array([1, 2**40, 3]),
        "f": [np.nan, 1.0, np.inf],
        "I": pd.array([1, None, -3], dtype="Int64"),
    })


def _expected_back(df: pd.DataFrame) -> pd.DataFrame:
    """What a round trip through R gives for :func:`_odd_frame` (R has no int32 / int64)."""
    out = df.copy()
    out["i32"] = out["i32"].astype(np.int64)
    out["big"] = out["big"].astype(np.float64)
    return out


# ------------------------------------------------------------------ reticulate codec
@pytest.mark.parametrize("name", DATASETS)
def test_column_codec_roundtrip(name):
    df = load_dataset(name)
    enc = convert.frame_to_r_columns(df)
    back = convert.frame_from_r_columns(enc["names"], enc["columns"], enc["nrow"])
    assert_frame_equal(back, df)


def test_column_codec_types_and_scalars():
    df = _odd_frame()
    enc = convert.frame_to_r_columns(df)
    assert [c["kind"] for c in enc["columns"]] == [
        "logical", "logical", "character", "factor", "factor", "factor", "integer", "double",
        "double", "integer"]
    back = convert.frame_from_r_columns(enc["names"], enc["columns"], enc["nrow"])
    assert_frame_equal(back, _expected_back(df))
    # reticulate sends length-1 R vectors as scalars
    one = convert.frame_from_r_columns(
        "x", {"kind": "factor", "values": 1, "na": False, "levels": "b", "ordered": False}, 1)
    assert one["x"].tolist() == ["b"] and list(one["x"].cat.categories) == ["b"]
    with pytest.raises(ValueError, match="codes exceed"):
        convert.frame_from_r_columns(
            ["x"], [{"kind": "factor", "values": [3], "na": [False], "levels": ["a"]}], 1)


def test_unsupported_columns_are_type_errors():
    with pytest.raises(TypeError, match="no R counterpart"):
        convert.frame_to_r_columns(pd.DataFrame({"d": pd.to_datetime(["2020-01-01"])}))
    with pytest.raises(TypeError, match="only strings"):
        convert.frame_to_r_columns(pd.DataFrame({"o": pd.Series([1, "a"], dtype=object)}))


# ---------------------------------------------------------------------- rpy2 transport
@pytest.mark.parametrize("name", DATASETS)
def test_pandas_r_roundtrip(r, name):
    df = load_dataset(name)
    rdf = convert.pandas_to_r(df)
    assert list(rdf.rclass) == ["data.frame"]
    back = convert.r_to_pandas(rdf)
    assert_frame_equal(back, df)
    # R sees the same missing values and factor levels
    na = _r_eval(r, "vapply(d, function(x) sum(is.na(x)), 1L)", d=rdf)
    assert list(na) == [int(v) for v in df.isna().sum()]
    for col in df.columns:
        if isinstance(df[col].dtype, pd.CategoricalDtype):
            levels = _r_eval(r, f"levels(d[[{json.dumps(col)}]])", d=rdf)
            assert list(levels) == [str(v) for v in df[col].cat.categories]


@pytest.mark.parametrize("name", ["BreastCancer", "votes", "kyphosis", "titanic", "GlaucomaMVF"])
def test_pandas_to_r_equals_r_canonical_read(r, name):
    """The converted frame is identical() to R's own canonical read of the CSV."""
    # the package's bundled copies of the CSV (gzip; R's read.csv reads it as is) and of
    # columns.csv, byte-identical to the reference files
    src = tabular_source(name)
    code = f"""
    local({{
      cols <- read.csv({json.dumps(str(src.columns))}, stringsAsFactors = FALSE,
                       na.strings = character(0))
      d <- read.csv({json.dumps(str(src.csv))}, stringsAsFactors = TRUE,
                    na.strings = c("", "NA"))
      fc <- cols[cols$dataset == {json.dumps(name)} & cols$r_class == "factor", ]
      for (i in seq_len(nrow(fc)))
        d[[fc$column[i]]] <- factor(as.character(d[[fc$column[i]]]),
                                    levels = strsplit(fc$levels[i], ";", fixed = TRUE)[[1]])
      isTRUE(identical(d, x)) || stop(paste(capture.output(all.equal(d, x)), collapse = "; "))
    }})
    """
    assert _r_eval(r, code, x=convert.pandas_to_r(load_dataset(name)))[0]


def test_pandas_r_roundtrip_types(r):
    df = _odd_frame()
    rdf = convert.pandas_to_r(df)
    classes = _r_eval(r, "vapply(d, function(x) class(x)[1], '')", d=rdf)
    assert list(classes) == ["logical", "logical", "character", "ordered", "factor", "factor",
                             "integer", "numeric", "numeric", "integer"]
    assert list(_r_eval(r, "levels(d$fc)", d=rdf)) == ["1.5", "2"]
    assert_frame_equal(convert.r_to_pandas(rdf), _expected_back(df))


def test_r_to_pandas_reads_classed_columns_as_model_matrix_does(r):
    """Date, POSIXct, difftime, ts and a class of one's own arrive as their stored
    values: the numbers R's model.matrix (and so R bsnsing) uses."""
    rdf = r.r("""local({
      d <- data.frame(d = as.Date('2020-01-01') + c(0:1, NA), x = 1:3,
                      t = as.POSIXct('2020-01-01', tz = 'UTC') + c(0.5, 60, 3600),
                      dt = as.difftime(c(1.5, 2, NA), units = 'mins'))
      d$s <- ts(c(3, 1, 2)); d$own <- structure(c(2L, NA, 5L), class = 'mine')
      d$tag <- structure(c('a', NA, 'b'), class = 'tag')
      d})""")
    got = convert.r_to_pandas(rdf)
    mm = np.asarray(r.r("function(d) model.matrix(~ d + t + dt + s + own, model.frame("
                        "~ d + t + dt + s + own, d, na.action = na.pass))")(rdf))
    for j, name in enumerate(["d", "t", "dt", "s", "own"], start=1):
        assert np.array_equal(got[name].to_numpy(dtype=float, na_value=np.nan), mm[:, j],
                              equal_nan=True), name
    assert got["d"].tolist()[:2] == [18262.0, 18263.0]
    assert got["tag"].tolist()[0] == "a" and pd.isna(got["tag"].tolist()[1])


def test_r_to_pandas_expands_numeric_matrix_columns_as_model_matrix(r):
    rdf = r.r("local({d <- data.frame(x = 1:2); d$m <- cbind(a = c(1.5, 2), b = 3:4)\n"
              "d$u <- matrix(c(5L, 6L, 7L, 8L), 2); d})")
    got = convert.r_to_pandas(rdf)
    want = list(r.r("function(d) colnames(model.matrix(~ ., d))")(rdf))[1:]
    assert list(got.columns) == want == ["x", "ma", "mb", "u1", "u2"]
    assert got["ma"].tolist() == [1.5, 2.0] and got["u2"].tolist() == [7, 8]


def test_r_to_pandas_rejects_unsupported_columns(r):
    rdf = r.r("local({d <- data.frame(x = 1:2); d$m <- matrix(c('a', 'b', 'c', 'd'), 2); d})")
    with pytest.raises(TypeError, match="matrix column"):
        convert.r_to_pandas(rdf)
    rdf = r.r("data.frame(z = complex(real = 1:2, imaginary = 1))")
    with pytest.raises(TypeError, match="cannot be converted"):
        convert.r_to_pandas(rdf)
    with pytest.raises(TypeError, match="data.frame"):
        convert.r_to_pandas(r.r("1:3"))


# ------------------------------------------------------------------------ model codec
MODEL_CASES = [("kyphosis", "default"), ("kyphosis", "mr1"), ("BreastCancer", "noext"),
               ("votes", "default"), ("iris", "default"), ("smiley", "noext")]


def _fit(rec: dict):
    train, test = _split(rec)
    model = bsnsing(rec["formula"], train, control=rec["control"])
    return model, train, test


def _assert_same_predictions(a, b, test):
    np.testing.assert_array_equal(a.predict(test, type="prob"), b.predict(test, type="prob"))
    np.testing.assert_array_equal(a.predict(test, type="class"), b.predict(test, type="class"))


def _trees(model):
    return getattr(model, "trees", [model])


@pytest.mark.parametrize(("dataset", "config"), MODEL_CASES)
def test_model_parts_roundtrip(dataset, config):
    model, _, test = _fit(_record(dataset, config))
    parts = convert.model_to_r_parts(model)
    json.dumps(parts)  # plain Python objects only (what reticulate can carry)
    back = convert.model_from_r_parts(parts)
    _assert_same_predictions(model, back, test)
    for t, u in zip(_trees(model), _trees(back), strict=True):
        assert t.tree_signature() == u.tree_signature()
        assert str(t.summary()) == str(u.summary())
        np.testing.assert_array_equal(t.fitted_values, u.fitted_values)


@pytest.mark.parametrize(("dataset", "config"), MODEL_CASES)
def test_model_to_r_structure_and_back(r, dataset, config):
    from pybsnsing.r.bsnsing_r import model_from_r, model_to_r

    model, _, test = _fit(_record(dataset, config))
    robj = model_to_r(model)
    multi = hasattr(model, "trees")
    assert list(robj.rclass) == ["mbsnsing" if multi else "bsnsing"]
    tree = _r_eval(r, "x[[1]]", x=robj) if multi else robj
    names = list(_r_eval(r, "names(x)", x=tree))
    assert names == ["tree.nodes", "fitted.values", "fitted.prob", "confusion.matrix",
                     "n.frac.splits", "y.coding.scheme", "ycode", "call"]
    fields = list(_r_eval(r, "names(x$tree.nodes[[1]])", x=tree))
    assert fields == list(convert.R_NODE_FIELDS)
    first = _trees(model)[0]
    root_obs = list(_r_eval(r, "x$tree.nodes[[1]]$node.obs", x=tree))
    assert root_obs == (np.asarray(first.nodes[0].obs) + 1).tolist()  # 1-based in R
    assert _r_eval(r, "sum(x$confusion.matrix)", x=tree)[0] == len(first.fitted_values)
    assert list(_r_eval(r, "names(dimnames(x$confusion.matrix))", x=tree)) == [
        "fitted", "actual"]
    if multi:
        assert list(_r_eval(r, "names(x)[-seq_len(x$nclass)]", x=robj)) == [
            "call", "nclass", "ylevels", "yprior"]
    back = model_from_r(robj)
    _assert_same_predictions(model, back, test)
    for t, u in zip(_trees(model), _trees(back), strict=True):
        assert t.tree_signature() == u.tree_signature()
        assert str(t.summary()) == str(u.summary())


def test_model_from_plain_r_object_needs_training_data(r):
    """An object without pybsnsing's attribute (as R bsnsing makes them)."""
    from pybsnsing.r.bsnsing_r import model_from_r, model_to_r

    rec = _record("BreastCancer", "default")
    model, train, test = _fit(rec)
    robj = _r_eval(r, "{attr(x, 'pybsnsing') <- NULL; x}", x=model_to_r(model))
    bare = model_from_r(robj)
    with pytest.raises(ValueError, match="design"):
        bare.predict(test)
    rebuilt = model_from_r(robj, data=train, formula=rec["formula"])
    _assert_same_predictions(model, rebuilt, test)


def test_weighted_model_to_r_carries_node_weights(r):
    """A weighted tree's R nodes have node.w1/node.w0 after R's 13 fields; read back
    through rpy2 the tree has the same weighted nodes (summary, cp table)."""
    from pybsnsing.r.bsnsing_r import model_from_r, model_to_r

    df = load_dataset("kyphosis")
    w = np.tile([1.0, 2.5, 0.0, 3.0], df.shape[0] // 4 + 1)[: df.shape[0]]
    model = bsnsing("Kyphosis ~ .", df, sample_weight=w)
    robj = model_to_r(model)
    fields = list(_r_eval(r, "unique(lapply(x$tree.nodes, names))[[1]]", x=robj))
    assert fields == [*convert.R_NODE_FIELDS, "node.w1", "node.w0"]
    root_w = list(_r_eval(r, "c(x$tree.nodes[[1]]$node.w1, x$tree.nodes[[1]]$node.w0)",
                          x=robj))
    assert root_w == [model.nodes[0].w1, model.nodes[0].w0]
    back = model_from_r(robj)
    assert [(n.w1, n.w0) for n in back.nodes] == [(n.w1, n.w0) for n in model.nodes]
    assert str(back.summary()) == str(model.summary())
    assert back.printcp() == model.printcp()
    _assert_same_predictions(model, back, df)


def test_r_node_order_matches_r():
    """R appends a node when it leaves the FIFO queue and an unqueued child
    right after its parent (kyphosis/mr1: node.size 7)."""
    model, _, _ = _fit(_record("kyphosis", "mr1"))
    order = convert.r_node_order(model.nodes, model.node_size, model.control.stop_prob)
    assert order == [0, 1, 2, 3, 4, 5, 7, 6, 9, 8, 10]


def test_strip_call():
    text = "Call: bsnsing(a = 1, \n    b = 2)\nResponse coding: x\nConfusion matrix:"
    assert convert.strip_call(text) == "Response coding: x\nConfusion matrix:"


def test_call_capturing_warnings():
    import warnings

    def noisy(x):
        warnings.warn("careful", UserWarning, stacklevel=1)
        warnings.warn("careful", UserWarning, stacklevel=1)
        return x + 1

    assert convert.call_capturing_warnings(noisy, 1) == {"value": 2, "warnings": ["careful"]}


# -------------------------------------------------------------------- R bsnsing itself
COMPARE = [("kyphosis", "default"), ("BreastCancer", "mr3"), ("votes", "noext"),
           ("iris", "default")]


@pytest.mark.parametrize(("dataset", "config"), COMPARE)
def test_against_r_bsnsing(dataset, config):
    from pybsnsing.r.bsnsing_r import r_bsnsing_unavailable_reason, r_predict, run_r_bsnsing

    reason = r_bsnsing_unavailable_reason()
    if reason is not None:
        pytest.skip(reason)
    rec = _record(dataset, config)
    model, train, test = _fit(rec)
    # the fixture's call: changed values in bscontrol() order, import.external last
    defaults = bscontrol().to_r_dict()
    args = {k: v for k, v in rec["control"].items()
            if k != "import.external" and v != defaults[k]}
    if rec["control"]["import.external"] is False:
        args["import.external"] = False
    fit = run_r_bsnsing(rec["formula"], train, **args)
    assert fit.print_text == rec["print_text"]
    for t, u in zip(_trees(model), _trees(fit.model), strict=True):
        assert t.tree_signature() == u.tree_signature()
    np.testing.assert_allclose(r_predict(fit.robject, test, "prob"),
                               model.predict(test, type="prob"), rtol=0, atol=1e-12)
    assert list(r_predict(fit.robject, test, "class")) == [
        str(v) for v in model.predict(test, type="class")]


def test_rpart_draws_are_r_bsnsings_rpart_calls():
    """The rows of each rpart() call R bsnsing makes (one per node it splits or tries,
    in queue order, tree after tree), which the R package replays with sample(); none
    without external rules, with case weights, or where R's rpart stops on the names."""
    data = load_dataset("kyphosis")
    model = bsnsing("Kyphosis ~ .", data, node_size=5)
    sizes = convert.rpart_draws(model)
    tried = [nd for nd in model.nodes if nd.number == 0 or nd.lchild >= 0
             or (nd.n1 and nd.n0 and nd.nobs > model.node_size
                 and max(nd.n1, nd.n0) / nd.nobs < model.control.stop_prob)]
    assert sizes == [nd.nobs for nd in sorted(tried, key=lambda nd: nd.number)]
    assert sizes[0] == len(data) and len(sizes) > 3
    assert convert.rpart_draws(bsnsing("Kyphosis ~ .", data, import_external=False)) == []
    w = np.ones(len(data))
    assert convert.rpart_draws(bsnsing("Kyphosis ~ .", data, sample_weight=w)) == []
    iris = load_dataset("iris")
    multi = bsnsing("Species ~ .", iris)
    assert convert.rpart_draws(multi) == [
        s for t in multi.trees for s in convert.rpart_draws(t)]
    clash = pd.DataFrame({"y": ["a", "b"] * 30, "V1": pd.Categorical([0, 1, 1] * 20),
                          "V11": np.arange(60.0)})
    with pytest.warns(Warning):
        assert convert.rpart_draws(bsnsing("y ~ .", clash)) == []
