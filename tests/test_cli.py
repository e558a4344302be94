"""The command line: fit -> save -> predict reproduces the Python API; every failure is a
one-line error with exit status 2; --version, --help, --id, closed pipes, warmup.

Most checks run ``python -m pybsnsing`` in a subprocess, as a user would.
"""

from __future__ import annotations

import dataclasses
import gzip
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import pybsnsing
from pybsnsing import bsnsing
from pybsnsing.cli import build_parser, main, read_table
from pybsnsing.control import BsControl
from pybsnsing.datasets import load_dataset

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYBSNSING_QUIET_COMPILE": "1", "PYTHONPATH": str(REPO)}


def run(*args: str, cwd: Path, hide: tuple[str, ...] = (), stdin: str | None = None,
        timeout: float = 600) -> subprocess.CompletedProcess:
    """``python -m pybsnsing args`` (``hide``: modules made unimportable first)."""
    code = ("import sys\n"
            + "".join(f"sys.modules[{m!r}] = None\n" for m in hide)
            + "from pybsnsing.cli import main\nraise SystemExit(main(sys.argv[1:]))\n")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, capture_output=True,
                          text=True, env=ENV, timeout=timeout, input=stdin)


def one_line_error(out: subprocess.CompletedProcess, command: str, *words: str) -> str:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(f"pybsnsing {command}: error: "), lines[0]
    assert "Traceback" not in out.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


@pytest.fixture()
def csv(tmp_path):
    df = load_dataset("kyphosis")
    path = tmp_path / "kyphosis.csv"
    df.to_csv(path, index=False)
    return path


@pytest.fixture()
def iris_csv(tmp_path):
    df = load_dataset("iris")
    df.insert(0, "flower", [f"f{i:03d}" for i in range(len(df))])
    path = tmp_path / "iris.csv"
    df.to_csv(path, index=False)
    return path


# ---------------------------------------------------------------------------------------
# in-process: the results are the API's


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
    assert main(["demo", "--dataset", "kyphosis", "--plot", str(png), "--quiet"]) == 0
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


def test_warmup_command(capsys):
    assert main(["warmup", "--no-optimal"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("pybsnsing warmup: binarize")
    assert "optimal" not in out and "total" in out


# ---------------------------------------------------------------------------------------
# help and version


def test_version():
    out = run("--version", cwd=REPO)
    assert out.returncode == 0 and out.stdout.strip() == f"pybsnsing {pybsnsing.__version__}"


def test_fit_help_explains_every_control():
    fit = build_parser()._subparsers._group_actions[0].choices["fit"]
    helps = {opt: a.help or "" for a in fit._actions for opt in a.option_strings}
    for f in dataclasses.fields(BsControl):
        if f.name == "import_external":
            assert "rpart" in helps["--external"] and "import.external" in helps["--external"]
            continue
        flag = "--" + f.name.replace("_", "-")
        text = helps[flag]
        r_name = {"n0n1_cap": "n0n1.cap"}.get(f.name, f.name.replace("_", "."))
        assert f"[{r_name}" in text, (flag, text)
        explanation = text.rsplit(f"[{r_name}", 1)[0].split()
        assert len(explanation) >= 4, (flag, text)  # an explanation, not just the default
        assert "``" not in text and ":mod:" not in text  # plain text, not reST
    assert helps["--max-rules"].startswith("most questions OR-ed in one split rule")
    assert "default 2" in helps["--max-rules"]
    formatted = " ".join(fit.format_help().split())
    assert "most questions OR-ed in one split rule (1 to 10) [max.rules; default 2]" in formatted


def test_top_level_help_lists_the_commands():
    out = run("--help", cwd=REPO)
    assert out.returncode == 0
    for cmd in ("fit", "predict", "demo", "warmup"):
        assert cmd in out.stdout


# ---------------------------------------------------------------------------------------
# predictions carry an id column; a closed pipe ends quietly


def test_predict_id_column_multiclass(iris_csv, tmp_path):
    m = tmp_path / "iris.json"
    out = run("fit", str(iris_csv), "--formula", "Species ~ . - flower", "--save", str(m),
              "--quiet", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    out = run("predict", str(m), str(iris_csv), "--id", "flower", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    from io import StringIO

    pred = pd.read_csv(StringIO(out.stdout))
    assert list(pred.columns) == ["flower", "setosa", "versicolor", "virginica"]
    assert pred["flower"].tolist() == [f"f{i:03d}" for i in range(150)]
    np.testing.assert_allclose(pred[["setosa", "versicolor", "virginica"]].sum(axis=1), 1.0)
    out = run("predict", str(m), str(iris_csv), "--type", "class", "--id", "flower", "--id",
              "Sepal.Length", "--output", str(tmp_path / "p.csv"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    pred = pd.read_csv(tmp_path / "p.csv")
    assert list(pred.columns) == ["flower", "Sepal.Length", "class"]
    assert (pred["class"] == load_dataset("iris")["Species"].astype(str)).mean() > 0.9
    one_line_error(run("predict", str(m), str(iris_csv), "--id", "nope", cwd=tmp_path),
                   "predict", "--id", "nope")


def test_predict_into_a_closed_pipe_is_quiet(csv, tmp_path):
    m = tmp_path / "m.json"
    assert main(["fit", str(csv), "--formula", "Kyphosis ~ .", "--save", str(m),
                 "--quiet"]) == 0
    big = pd.concat([read_table(str(csv))] * 400, ignore_index=True)  # 32,400 rows
    big.to_csv(tmp_path / "big.csv", index=False)
    code = (f"set -o pipefail; {sys.executable} -m pybsnsing predict {m} "
            f"{tmp_path / 'big.csv'} | head -n 3")
    out = subprocess.run(["bash", "-c", code], cwd=tmp_path, capture_output=True, text=True,
                         env=ENV, timeout=600)
    assert out.returncode == 0, (out.returncode, out.stderr)
    assert out.stdout.splitlines()[0] == "prob" and len(out.stdout.splitlines()) == 3
    assert out.stderr == "", out.stderr


# ---------------------------------------------------------------------------------------
# bad input: one line on stderr, exit status 2, never a traceback


def test_directory_as_input(tmp_path):
    one_line_error(run("fit", str(tmp_path), "--formula", "y ~ .", cwd=tmp_path), "fit",
                   "is a directory")
    one_line_error(run("predict", str(tmp_path), str(tmp_path), cwd=tmp_path), "predict",
                   "directory")


def test_missing_and_corrupt_inputs(csv, tmp_path):
    one_line_error(run("fit", "nope.csv", "--formula", "y ~ .", cwd=tmp_path), "fit",
                   "no such file", "nope.csv")
    bad = tmp_path / "bad.csv.gz"
    bad.write_bytes(b"this is not gzip at all\n" * 10)
    one_line_error(run("fit", str(bad), "--formula", "y ~ .", cwd=tmp_path), "fit",
                   "cannot read", "bad.csv.gz")
    whole = gzip.compress(csv.read_bytes())
    cut = tmp_path / "cut.csv.gz"
    cut.write_bytes(whole[: len(whole) // 2])
    one_line_error(run("fit", str(cut), "--formula", "Kyphosis ~ .", cwd=tmp_path), "fit",
                   "cannot read", "cut.csv.gz")
    binary = tmp_path / "bin.csv"
    binary.write_bytes(bytes(range(256)) * 20)
    one_line_error(run("fit", str(binary), "--formula", "y ~ .", cwd=tmp_path), "fit",
                   "cannot read")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    one_line_error(run("fit", str(empty), "--formula", "y ~ .", cwd=tmp_path), "fit",
                   "cannot read")


def test_output_into_a_missing_folder(csv, tmp_path):
    m = tmp_path / "m.json"
    assert main(["fit", str(csv), "--formula", "Kyphosis ~ .", "--save", str(m),
                 "--quiet"]) == 0
    one_line_error(run("predict", str(m), str(csv), "--output", "no/such/dir/p.csv",
                       cwd=tmp_path), "predict", "--output", "does not exist")
    one_line_error(run("fit", str(csv), "--formula", "Kyphosis ~ .", "--save",
                       "missing/m.json", cwd=tmp_path), "fit", "--save", "does not exist")
    one_line_error(run("fit", str(csv), "--formula", "Kyphosis ~ .", "--plot",
                       "missing/t.png", cwd=tmp_path), "fit", "--plot", "does not exist")
    one_line_error(run("fit", str(csv), "--formula", "Kyphosis ~ .", "--plot", "t.xyz",
                       cwd=tmp_path), "fit", "unknown picture format")
    one_line_error(run("predict", str(m), str(csv), "--output", str(tmp_path), cwd=tmp_path),
                   "predict", "is a directory")


@pytest.mark.parametrize("formula, word", [
    ("Kyphosis ~ nope", "nope"),
    ("Kyphosis ~ ", "formula"),
    ("~~", "formula"),
    ("Kyphosis ~ I(__import__('os').system('touch hacked'))", "__import__"),
    ("Nope ~ .", "Nope"),
])
def test_bad_formula(csv, tmp_path, formula, word):
    line = one_line_error(run("fit", str(csv), "--formula", formula, "--quiet", cwd=tmp_path),
                          "fit")
    assert word.lower() in line.lower(), line
    assert not (tmp_path / "hacked").exists()


def test_bad_model_files(csv, tmp_path):
    cases = {
        "garbage.json": "{not json",
        "list.json": "[1, 2, 3]",
        "empty.json": "",
        "other.json": '{"hello": "world"}',
    }
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
        one_line_error(run("predict", name, str(csv), cwd=tmp_path), "predict",
                       "not a valid pybsnsing model file")
    one_line_error(run("predict", "missing.json", str(csv), cwd=tmp_path), "predict",
                   "missing.json")
    (tmp_path / "bin.json").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(200))
    one_line_error(run("predict", "bin.json", str(csv), cwd=tmp_path), "predict",
                   "not a valid pybsnsing model file")


def test_bad_control_value_is_an_argparse_error(csv, tmp_path):
    out = run("fit", str(csv), "--formula", "Kyphosis ~ .", "--max-rules", "two",
              cwd=tmp_path)
    assert out.returncode == 2 and "invalid int value" in out.stderr
    assert "Traceback" not in out.stderr


def test_warnings_are_one_line(tmp_path):
    train = pd.DataFrame({"x": np.r_[np.arange(30.0), np.arange(30.0)],
                          "f": ["a", "b", "c"] * 20,
                          "y": ["p"] * 25 + ["n"] * 35})
    train.to_csv(tmp_path / "train.csv", index=False)
    new = pd.DataFrame({"x": [1.0, 2.0], "f": ["zzz", "a"]})
    new.to_csv(tmp_path / "new.csv", index=False)
    out = run("fit", "train.csv", "--formula", "y ~ .", "--save", "m.json", "--quiet",
              cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    out = run("predict", "m.json", "new.csv", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    for line in out.stderr.strip().splitlines():
        assert line.startswith("pybsnsing predict: warning: "), out.stderr


# ---------------------------------------------------------------------------------------
# without tqdm and matplotlib (the core install)


def test_multiclass_fit_without_tqdm_or_matplotlib(iris_csv, tmp_path):
    hide = ("tqdm", "matplotlib")
    out = run("fit", str(iris_csv), "--formula", "Species ~ . - flower", "--save", "m.json",
              cwd=tmp_path, hide=hide)
    assert out.returncode == 0, out.stderr
    assert "Tree 3:" in out.stdout and "Traceback" not in out.stderr
    out = run("predict", "m.json", str(iris_csv), "--type", "class", cwd=tmp_path, hide=hide)
    assert out.returncode == 0 and out.stdout.startswith("class\n")
    line = one_line_error(run("fit", str(iris_csv), "--formula", "Species ~ .", "--plot",
                              "t.png", cwd=tmp_path, hide=hide), "fit")
    assert 'pip install "pybsnsing[plot]"' in line
    out = run("demo", "--dataset", "iris", "--plot", "d.png", cwd=tmp_path, hide=hide)
    assert out.returncode == 0, out.stderr
    assert 'pip install "pybsnsing[plot]"' in out.stderr and not (tmp_path / "d.png").exists()
    assert "Traceback" not in out.stderr


def test_progress_auto_with_and_without_tqdm(iris_csv, tmp_path):
    # not a terminal: no bar either way, and no error without tqdm
    for hide in ((), ("tqdm",)):
        out = run("fit", str(iris_csv), "--formula", "Species ~ .", cwd=tmp_path, hide=hide)
        assert out.returncode == 0, out.stderr
        assert "class trees" not in out.stderr


def _run_on_a_terminal(argv: list[str], cwd: Path) -> tuple[int, str]:
    """Run with standard error on a pseudo-terminal (100 columns); stdout discarded."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave, stdin=slave,
                            cwd=cwd, env=ENV)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 4096)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=600)
    os.close(master)
    return proc.returncode, b"".join(chunks).decode(errors="replace")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pseudo-terminal test")
def test_progress_bar_on_a_terminal_for_long_fits(tmp_path):
    pytest.importorskip("tqdm")
    load_dataset("synthetic20k").iloc[:10000].to_csv(tmp_path / "s.csv", index=False)
    argv = [sys.executable, "-m", "pybsnsing", "fit", "s.csv", "--formula", "y ~ .",
            "--max-rules", "3"]
    rc, err = _run_on_a_terminal(argv, tmp_path)  # a fit of several seconds
    assert rc == 0, err
    assert "growing the tree:" in err and " nodes" in err
    rc, err = _run_on_a_terminal(argv + ["--quiet"], tmp_path)
    assert rc == 0 and "growing the tree" not in err
