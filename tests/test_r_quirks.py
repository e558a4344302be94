"""R bsnsing 1.0.1 quirks: the ones that change trees are mirrored, the bugs are fixed.

(See ../shared/spec/bsnsing.md §9 and golden/README.md Q1-Q17.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from pybsnsing import bsnsing
from pybsnsing.datasets import load_dataset


def _circ():
    return load_dataset("circ")


def test_q1_double_01_response_is_accepted_and_equals_the_integer_fit():
    df = _circ()
    as_int = bsnsing("y ~ x1 + x2", df, import_external=False)
    as_double = bsnsing("y ~ x1 + x2", df.assign(y=df["y"].astype(float)),
                        import_external=False)
    assert as_int.tree_signature() == as_double.tree_signature()


def test_q2_response_coded_1_2_is_not_corrupted():
    df = _circ()
    coded = df.assign(y=df["y"] + 1)  # {1, 2}: R recodes everything to 0 and stops
    m01 = bsnsing("y ~ x1 + x2", df, import_external=False)
    m12 = bsnsing("y ~ x1 + x2", coded, import_external=False)
    assert m01.tree_signature() == m12.tree_signature()
    assert list(m12.ycode) == [1, 2]
    assert set(m12.predict(coded, type="class")) <= {1, 2}


def test_q5_perfect_separation_mirrored_by_default_and_fixable():
    x = np.arange(40, dtype=float)
    df = pd.DataFrame({"y": (x >= 20).astype(int), "x": x})
    mirrored = bsnsing("y ~ x", df, import_external=False, node_size=1)
    assert mirrored.n_splits == 0  # R drops a perfectly separating variable
    fixed = bsnsing("y ~ x", df, import_external=False, node_size=1,
                    keep_perfect_separation=True)
    assert fixed.n_splits == 1 and fixed.nodes[0].split_rule == "x >= 19.5"
    assert fixed.accuracy == 1.0


def test_q7_summary_accuracy_is_right_for_one_class_fits():
    df = load_dataset("SPECT")
    m = bsnsing("V1 ~ .", df, max_rules=1, import_external=False)
    assert (m.fitted_values == m.fitted_values[0]).all()  # every fitted value one class
    true_acc = float(np.mean(m.fitted_values == m.y))
    assert m.summary().accuracy == true_acc
    assert f"Accuracy: {true_acc:.4f}" in str(m.summary())


def test_q8_fitted_probabilities_have_one_value_per_row():
    df = load_dataset("spirals")
    m = bsnsing("class ~ x1 + x2", df, import_external=False)
    assert m.fitted_prob.shape == (len(df),)
    leaf_prob = {nd.number: nd.prob for nd in m.nodes}
    np.testing.assert_array_equal(m.fitted_prob, [leaf_prob[k] for k in m.leaf_of(
        m.design.X)])


def test_q14_counts_do_not_overflow_on_large_balanced_nodes():
    # 200,000 rows of each class: n0*n1 = 4e10 overflows R's 32-bit ints
    rng = np.random.default_rng(0)
    n = 400_000
    x = rng.normal(size=n)
    y = (x + rng.normal(scale=0.5, size=n) > 0).astype(int)
    m = bsnsing("y ~ x", pd.DataFrame({"y": y, "x": x}), import_external=False,
                max_rules=1, node_size=n // 4, stop_prob=0.5)
    root = m.nodes[0]
    assert root.n1 + root.n0 == n and m.n_splits >= 1
    assert root.split_rule.startswith(("x > ", "x < "))
