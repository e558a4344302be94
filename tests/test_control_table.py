"""The control table (pybsnsing.control.CONTROL_PARAMS) is the one list of control names,
R aliases, defaults, constraints and help: everything else that names a control agrees
with it.  (rbridge's bscontrol() is compared with it by
rbridge/tests/testthat/test-control-table.R, through reticulate.)"""

from __future__ import annotations

import dataclasses
import inspect
import warnings

import pytest

from pybsnsing.control import CONTROL_PARAMS, R_NAMES, BsControl, ControlWarning, bscontrol


def test_bscontrol_fields_are_the_table() -> None:
    fields = dataclasses.fields(BsControl)
    assert [f.name for f in fields] == [p.name for p in CONTROL_PARAMS]
    assert {f.name: f.default for f in fields} == {p.name: p.default for p in CONTROL_PARAMS}
    assert all(p.help and p.constraint for p in CONTROL_PARAMS)
    assert BsControl().to_r_dict() == {p.r_name: p.default for p in CONTROL_PARAMS if p.in_r}
    for p in CONTROL_PARAMS:  # every part of the help is in the docstring
        assert f"        {p.name}: " + p.help.splitlines()[0] in (BsControl.__doc__ or "")


def test_r_names_are_aliases() -> None:
    for p in CONTROL_PARAMS:
        if p.in_r:
            whole = isinstance(p.default, int) and not isinstance(p.default, bool)
            value = p.default + 1 if whole else p.default
            assert getattr(bscontrol(**{p.r_name: value}), p.name) == value
        else:
            with pytest.raises(ValueError, match="unknown control parameter"):
                bscontrol(**{p.r_name: p.default})


def test_estimator_defaults_are_the_table() -> None:
    from pybsnsing.sklearn import BsnsingClassifier

    sig = inspect.signature(BsnsingClassifier.__init__)
    got = {k: v.default for k, v in sig.parameters.items() if k != "self"}
    table = {p.name: p.default for p in CONTROL_PARAMS}
    assert {k: got[k] for k in table if k in got} == table
    # beyond R's bscontrol(): the size, pruning and class-weight options of issue 15
    assert {k: v for k, v in got.items() if k not in table} == {
        "max_depth": None, "ccp_alpha": 0.0, "class_weight": None}


def test_bslearn_and_binarize_defaults_are_the_table() -> None:
    from pybsnsing import questions, search

    for name, value in search._CONTROL_DEFAULTS.items():
        assert value == BsControl().__getattribute__(name)
    for name in ("num2factor", "nseg_numeric", "nseg_factor", "bin_size"):
        assert questions._control_value(None, name) == getattr(BsControl(), name)
    # binarize's one deliberate difference (see questions._BINARIZE_NODE_SIZE)
    assert questions._control_value(None, "node_size") == 1
    assert questions._control_value({"node.size": 4}, "node_size") == 4


def test_cli_options_are_the_table() -> None:
    from pybsnsing.cli import _BOOL_FIELDS, _control_docs, build_parser

    parser = build_parser()
    fit = next(a for a in parser._subparsers._group_actions[0].choices.values()  # noqa: SLF001
               if any(o.dest == "max_rules" for o in a._actions))  # noqa: SLF001
    dests = {o.dest for o in fit._actions}  # noqa: SLF001
    assert {p.name for p in CONTROL_PARAMS} <= dests
    helps = {o.dest: o.help or "" for o in fit._actions}  # noqa: SLF001
    for p in CONTROL_PARAMS:
        assert f"[{R_NAMES[p.name]}" in helps[p.name]
        if p.name not in _BOOL_FIELDS and p.name != "import_external":
            assert f"default {p.default!r}" in helps[p.name]
    assert set(_control_docs()) == {p.name for p in CONTROL_PARAMS}


def test_r_messages_use_the_table_names() -> None:
    from pybsnsing.r.messages import R_CONTROL_NAMES

    assert R_CONTROL_NAMES == {p.name: p.r_name for p in CONTROL_PARAMS if p.name != p.r_name}


def test_n0n1_cap_below_one_warns_and_is_kept_as_in_r() -> None:
    with pytest.warns(ControlWarning, match="n0n1_cap must be >= 1; 0 was kept"):
        assert bscontrol(n0n1_cap=0).n0n1_cap == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert bscontrol(n0n1_cap=1).n0n1_cap == 1
