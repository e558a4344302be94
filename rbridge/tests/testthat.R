# The test suite needs a Python with pybsnsing (RETICULATE_PYTHON) and, for
# the golden-fixture tests, the fixtures (PYBSNSING_GOLDEN: the repository's
# tests/golden; or PYBSNSING_SHARED/golden); the tests that need them are
# skipped, with a message, when they are missing. The data sets come from the
# Python module's bundled copies.
library(testthat)
library(pybsnsing)

test_check("pybsnsing")
