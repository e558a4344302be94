#' pybsnsing: bsnsing classification trees through the Python engine
#'
#' An R interface to the Python package \code{pybsnsing}, a port of R
#' bsnsing 1.0.1 (Yanchao Liu, "bsnsing: A decision tree induction method
#' based on recursive optimal boolean rule composition", INFORMS Journal on
#' Computing, 2022). The functions and objects are those of R bsnsing:
#' \code{\link{bsnsing}}, \code{\link{bscontrol}},
#' \code{\link[=predict.bsnsing]{predict}},
#' \code{\link[=print.bsnsing]{print}},
#' \code{\link[=summary.bsnsing]{summary}},
#' \code{\link[=plot.bsnsing]{plot}}, \code{\link{ROC_func}},
#' \code{\link{binarize}} and \code{\link{bslearn}}.
#'
#' @section Python:
#' The package needs a Python (3.10 or newer) with the \code{pybsnsing}
#' module. Set \env{RETICULATE_PYTHON} to it (e.g. a project's
#' \file{.venv/bin/python}), call \code{\link{pybsnsing_use_python}()}, or
#' install it with \code{\link{install_pybsnsing}()}. Python starts on first
#' use.
#'
#' @section Errors and warnings:
#' Errors raised by pybsnsing become R errors with Python's message (no
#' traceback); Python warnings become R warnings.
#'
#' @keywords internal
"_PACKAGE"
