"""Models survive to_dict -> JSON -> from_dict and pickle, predicting identically."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest
from golden import record_id, split, tree_records

from pybsnsing import bscontrol, bsnsing
from pybsnsing.model import load_model, model_from_dict

# one record per golden data set (the noext config: fast, and every data set has it)
RECORDS = {r["dataset"]: r for r in tree_records() if r["config"] == "noext"}


@pytest.mark.parametrize("rec", list(RECORDS.values()), ids=record_id)
def test_json_round_trip_predicts_identically(rec, tmp_path):
    train, test = split(rec)
    model = bsnsing(rec["formula"], train, control=bscontrol(**rec["control"]))
    text = json.dumps(model.to_dict())
    back = model_from_dict(json.loads(text))
    for kind in ("prob", "class"):
        np.testing.assert_array_equal(back.predict(test, type=kind),
                                      model.predict(test, type=kind))
    assert str(back) == str(model)
    path = tmp_path / "m.json"
    model.save(path)
    again = load_model(path)
    np.testing.assert_array_equal(again.predict(test), model.predict(test))
    pickled = pickle.loads(pickle.dumps(model))
    np.testing.assert_array_equal(pickled.predict(test), model.predict(test))


def test_round_trip_keeps_nodes_and_fitted_values():
    rec = RECORDS["kyphosis"]
    train, _ = split(rec)
    model = bsnsing(rec["formula"], train, import_external=False)
    back = model_from_dict(model.to_dict())
    assert [n.to_dict() for n in back.nodes] == [n.to_dict() for n in model.nodes]
    np.testing.assert_array_equal(back.fitted_prob, model.fitted_prob)
    assert str(back.summary()) == str(model.summary())


def test_from_dict_rejects_other_objects():
    with pytest.raises(ValueError, match="unknown model type"):
        model_from_dict({"type": "rpart"})


def test_json_round_trip_with_infinite_values(tmp_path):
    """Infinite predictor values (kept, as R bsnsing keeps them) and an infinite median
    are written as "Inf"/"-Inf" (JSON has no infinity) and read back as numbers."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 80
    x = rng.normal(size=n)
    x[:5], x[5:8], x[8] = np.inf, -np.inf, np.nan
    w = np.r_[np.nan, np.full(50, np.inf), rng.normal(size=n - 51)]  # its median is Inf
    df = pd.DataFrame({"y": np.where(x > 0, "a", "b"), "x": x, "w": w,
                       "z": rng.normal(size=n)})
    m = bsnsing("y ~ .", df)
    assert m.design.medians[1] == np.inf
    path = tmp_path / "inf.json"
    m.save(path)
    text = path.read_text()
    assert '"Inf"' in text and '"-Inf"' in text
    back = load_model(path)
    assert np.array_equal(back.design.X, m.design.X)
    assert np.array_equal(back.design.medians, m.design.medians, equal_nan=True)
    assert (back.predict(df) == m.predict(df)).all()
    assert str(back) == str(m)
