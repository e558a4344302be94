"""The control object: R defaults, R names, value checks."""

from __future__ import annotations

import pytest

from pybsnsing import BsControl, bscontrol
from pybsnsing.control import ControlWarning

R_DEFAULTS = {
    "bin.size": 5, "nseg.numeric": 20, "nseg.factor": 20, "num2factor": 10, "node.size": 0,
    "stop.prob": 0.9999, "opt.solver": "enum_c", "solver.timelimit": 180, "max.rules": 2,
    "opt.model": "gini", "greedy.level": 0.9, "import.external": True,
    "suppress.internal": False, "no.same.gender.children": False, "n0n1.cap": 40000,
    "verbose": False,
}


def test_defaults_equal_r_bscontrol():
    assert bscontrol().to_r_dict() == R_DEFAULTS


def test_golden_control_lists_round_trip():
    from golden import tree_records

    for rec in tree_records():
        assert bscontrol(**rec["control"]).to_r_dict() == {**R_DEFAULTS, **rec["control"]}


def test_r_and_python_names_are_the_same_parameter():
    assert bscontrol(**{"max.rules": 3}) == bscontrol(max_rules=3)
    assert bscontrol(**{"no.same.gender.children": True}).no_same_gender_children


def test_unknown_name_is_an_error():
    with pytest.raises(TypeError, match="unknown control parameter 'max_rule'"):
        bscontrol(max_rule=3)


def test_same_parameter_twice_is_an_error():
    with pytest.raises(TypeError, match="given twice"):
        bscontrol(**{"max.rules": 3, "max_rules": 2})


@pytest.mark.parametrize(
    "kwargs, attr, used",
    [
        ({"bin_size": 0}, "bin_size", 1),
        ({"nseg_numeric": 2}, "nseg_numeric", 3),
        ({"nseg_factor": 1}, "nseg_factor", 3),
        ({"num2factor": 50}, "num2factor", 40),
        ({"stop_prob": 1.5}, "stop_prob", 0.9),
        ({"node_size": -2}, "node_size", 0),
    ],
)
def test_out_of_range_values_warn_and_are_replaced(kwargs, attr, used):
    with pytest.warns(ControlWarning, match=str(used)):
        ctrl = bscontrol(**kwargs)
    assert getattr(ctrl, attr) == used


@pytest.mark.parametrize(
    "kwargs",
    [{"max_rules": 0}, {"max_rules": 11}, {"opt_solver": "nope"}, {"import_external": "party"},
     {"opt_model": "entropy"}, {"solver_timelimit": 0}],
)
def test_invalid_values_raise(kwargs):
    with pytest.raises(ValueError,
                       match=r"must be (one of|an integer from|positive|'gini' or|True, False)"):
        bscontrol(**kwargs)


@pytest.mark.parametrize("kwargs", [{"max_rules": 2.5}, {"node_size": "3"}, {"verbose": "yes"}])
def test_wrong_types_raise(kwargs):
    with pytest.raises(TypeError, match=r"must be (a whole number|True or False)"):
        bscontrol(**kwargs)


def test_import_external_choices():
    assert BsControl(import_external=True).external_method == "rpart"
    assert BsControl(import_external="RPART").external_method == "rpart"
    assert BsControl(import_external="r").external_method == "r"
    assert BsControl(import_external=False).external_method is None
