#' Binary questions for a node
#'
#' R bsnsing's \code{binarize}: turns each column of \code{x} into 0/1
#' question columns that separate the classes of the 0/1 response \code{y}
#' (inequality questions \code{x > c} / \code{x < c} for numeric columns,
#' equality questions \code{x=='v'} for factor-like columns, \code{x==0} /
#' \code{x==1} for 0/1 columns), computed by pybsnsing.
#'
#' @param x a data frame of predictors.
#' @param y the 0/1 response (two distinct values).
#' @param target the class (0 or 1) the questions should capture.
#' @param control a \code{\link{bscontrol}()} object.
#' @return A data frame of 0/1 columns named by the question texts.
#' @examples
#' if (pybsnsing_available()) {
#'   y <- as.integer(iris$Species == "setosa")
#'   bx <- binarize(iris[, 1:2], y, target = 1)
#'   names(bx)
#' }
#' @export
binarize <- function(x, y, target = stop("'target' (0 or 1) must be provided"),
                     control = bscontrol()) {
  here <- sys.call()
  x <- .check_data(x, here, what = "x")
  force(target)
  control <- .control_arg(control, here)
  if (length(y) != nrow(x)) {
    stop(simpleError(sprintf("'y' has %d values but 'x' has %d rows", length(y), nrow(x)), here))
  }
  rownames(x) <- NULL
  bx <- .pycall(.py_core()$binarize, .df_to_py(x), as.list(unname(y)), as.integer(target),
                control = .control_for_py(control), call = here)
  .py_to_df(bx)
}

#' The optimal boolean rule for a node
#'
#' R bsnsing's \code{bslearn}: the ENUM search for the OR-rule of at most
#' \code{control$max.rules} questions (columns of \code{bx}) that maximises
#' the Gini reduction for the 0/1 response \code{y}, run by pybsnsing.
#'
#' @param bx a data frame of 0/1 question columns, e.g. from
#'   \code{\link{binarize}()}.
#' @param y the 0/1 response.
#' @param control a \code{\link{bscontrol}()} object.
#' @return A list with \code{n.rules} (the number of questions in the rule),
#'   \code{rules} (the rule text), \code{objval} (the objective value),
#'   \code{neval} (rules evaluated) and \code{cols} (the 1-based columns of
#'   \code{bx} in the rule).
#' @examples
#' if (pybsnsing_available()) {
#'   y <- as.integer(iris$Species == "setosa")
#'   bx <- binarize(iris[, 1:2], y, target = 1)
#'   bslearn(bx, y, bscontrol(max.rules = 2))$rules
#' }
#' @export
bslearn <- function(bx, y, control = bscontrol()) {
  here <- sys.call()
  bx <- .check_data(bx, here, what = "bx")
  control <- .control_arg(control, here)
  if (length(y) != nrow(bx)) {
    stop(simpleError("Dimensions of bx and y do not match.", here))
  }
  rownames(bx) <- NULL
  res <- .pycall(.py_core()$bslearn, .df_to_py(bx), as.list(unname(y)),
                 control = .control_for_py(control), call = here)
  get <- function(name) reticulate::py_to_r(reticulate::py_get_attr(res, name))
  cols <- as.integer(unlist(reticulate::py_to_r(
    .py_convert()$plain(reticulate::py_get_attr(res, "cols")))))
  list(n.rules = as.integer(get("n_rules")), rules = as.character(get("rules")),
       objval = as.numeric(reticulate::py_to_r(.py_convert()$plain(
         reticulate::py_get_attr(res, "objval")))),
       neval = as.numeric(reticulate::py_to_r(.py_convert()$plain(
         reticulate::py_get_attr(res, "neval")))),
       cols = cols + 1L)
}
