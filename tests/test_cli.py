"""The command line: fit -> save -> predict reproduces the Python API."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from pybsnsing import bsnsing
from pybsnsing.cli import main, read_table
from pybsnsing.datasets import load_dataset


@pytest.fixture()
def csv(tmp_path):
    df = load_dataset("kyphosis")
    path = tmp_path / "kyphosis.csv"
    df.to_csv(path, index=False)
    return path


def test_fit_save_predict_round_trip(csv, tmp_path, capsys):
    model_path, pred_path = tmp_path / "m.json", tmp_path / "p.csv"
    rc = main(["fit", str(csv), "--formula", "Kyphosis ~ .", "--max-rules", "3",
               "--external", "none", "--save", str(model_path), "--quiet"])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Decision Tree:" in out and "Accuracy:" in out
    rc = main(["predict", str(model_path), str(csv), "--output", str(pred_path)])
    assert rc == 0
    got = pd.read_csv(pred_path)["prob"].to_numpy()
    want = bsnsing("Kyphosis ~ .", read_table(str(csv)), max_rules=3,
                   import_external=False).predict(read_table(str(csv)))
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-15)


def test_fit_writes_a_plot(csv, tmp_path):
    png = tmp_path / "t.png"
    assert main(["fit", str(csv), "--formula", "Kyphosis ~ .", "--plot", str(png),
                 "--quiet"]) == 0
    assert png.stat().st_size > 0


def test_predict_class_to_stdout(csv, tmp_path, capsys):
    model_path = tmp_path / "m.json"
    main(["fit", str(csv), "--formula", "Kyphosis ~ .", "--save", str(model_path), "--quiet"])
    capsys.readouterr()
    assert main(["predict", str(model_path), str(csv), "--type", "class"]) == 0
    lines = capsys.readouterr().out.split()
    assert lines[0] == "class" and set(lines[1:]) <= {"absent", "present"}


def test_demo(tmp_path, capsys):
    png = tmp_path / "demo.png"
    assert main(["demo", "--dataset", "kyphosis", "--plot", str(png)]) == 0
    assert "Decision Tree:" in capsys.readouterr().out
    assert png.stat().st_size > 0


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--formula", "Nope ~ ."], "Nope"),
        (["--formula", "Kyphosis ~ .", "--max-rules", "11"], "max_rules"),
    ],
)
def test_clear_errors(csv, capsys, argv, message):
    assert main(["fit", str(csv), *argv, "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "error" in err and message in err and "Traceback" not in err
