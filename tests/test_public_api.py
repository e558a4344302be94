"""The package's public names exist and load."""

from __future__ import annotations

import subprocess
import sys

import pybsnsing


def test_every_public_name_resolves():
    for name in pybsnsing.__all__:
        assert getattr(pybsnsing, name) is not None, name


def test_import_does_not_load_optional_parts():
    code = ("import sys, pybsnsing; "
            "print(any(m.startswith(('sklearn', 'matplotlib', 'rpy2', 'pybsnsing.optimal')) "
            "for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"
