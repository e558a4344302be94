#' Draw a bsnsing tree into a file
#'
#' R bsnsing writes the tree as LaTeX (pstricks) code and runs LaTeX on it.
#' Here the drawing comes from pybsnsing:
#' \itemize{
#'   \item \code{file = ""}: the LaTeX code is printed on the console, as in
#'     R bsnsing;
#'   \item a \file{.tex} file: the LaTeX code is written to
#'     \code{<file stem>.tex} next to \code{file} (LaTeX is not run);
#'   \item any other file (\file{tree.pdf}, \file{tree.png},
#'     \file{tree.svg}, ...): a picture drawn by
#'     \code{pybsnsing.export.plot_tree} (matplotlib), in the format of the
#'     extension. Without matplotlib the LaTeX code is written instead.
#' }
#'
#' @param x a \code{bsnsing} object.
#' @param file the output file, or \code{""} for the console.
#' @param ... further arguments for the Python drawing function, e.g. R
#'   bsnsing's \code{class_labels}, \code{class_colors}, \code{rule_font},
#'   \code{rule_color}, \code{footnote}, \code{landscape}, \code{papersize}
#'   for LaTeX output, or \code{class_colors}, \code{fontsize},
#'   \code{title}, \code{dpi} for pictures.
#' @return The path of the file written (or the LaTeX code when
#'   \code{file = ""}), invisibly.
#' @examples
#' if (pybsnsing_available()) {
#'   bs <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
#'   plot(bs[[2]], file = tempfile(fileext = ".tex"))
#' }
#' @export
plot.bsnsing <- function(x, file = "", ...) {
  here <- sys.call()
  model <- .py_model(x)
  export <- tryCatch(reticulate::import("pybsnsing.export", convert = FALSE),
                     error = function(e) NULL)
  has <- function(name) !is.null(export) && reticulate::py_has_attr(export, name)
  file <- if (nzchar(file)) path.expand(file) else file
  latex <- !nzchar(file) || grepl("\\.tex$", file, ignore.case = TRUE)
  if (!latex && has("plot_tree")) {
    fig <- tryCatch(.pycall(export$plot_tree, model, file, ..., call = here),
                    error = function(e) e)
    if (!inherits(fig, "error")) {
      plt <- tryCatch(reticulate::import("matplotlib.pyplot", convert = FALSE),
                      error = function(e) NULL)
      if (!is.null(plt)) plt$close(fig)
      message("Tree drawn to ", file)
      return(invisible(file))
    }
    if (!grepl("matplotlib", conditionMessage(fig))) stop(fig)
    message("matplotlib is not available; writing LaTeX code instead")
  }
  if (!has("to_latex")) {
    stop(simpleError(paste("this pybsnsing cannot draw trees (no",
                           "pybsnsing.export.to_latex / plot_tree); update it"), here))
  }
  if (!nzchar(file)) {
    tex <- reticulate::py_to_r(.pycall(export$to_latex, model, ..., call = here))
    cat(tex)
    return(invisible(tex))
  }
  .pycall(export$to_latex, model, file, ..., call = here)
  stem <- strsplit(basename(file), ".", fixed = TRUE)[[1]][1]
  out <- file.path(dirname(file), paste0(stem, ".tex"))
  message("LaTeX code written to ", out)
  invisible(out)
}

#' @rdname plot.bsnsing
#' @export
plot.mbsnsing <- function(x, ...) {
  cat(paste("Input is a multi-class bsnsing object that contains multiple trees.",
            "Try plotting each tree separately. E.g., plot(bs[[1]]) to plot the first tree.\n"))
  invisible(NULL)
}
