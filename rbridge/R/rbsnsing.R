# The rest of R bsnsing 1.0.1's exports: its building blocks binarize.numeric(),
# binarize.factor() and rcpp_bslearn(), the S4 class mbsnsing, and the S3
# methods under their own names (R bsnsing exports every function it has).

#' Binary questions for one numeric column
#'
#' R bsnsing's \code{binarize.numeric}: the cut points of \code{x} at which
#' the 0/1 response \code{y} changes to (\code{x > c}) or from (\code{x < c})
#' the \code{target} class, thinned to about \code{segments} per direction,
#' as 0/1 columns; computed by pybsnsing. \code{\link{binarize}()} calls it
#' for every numeric column.
#'
#' @param x a numeric vector without missing values.
#' @param name the name of \code{x}, used in the column names.
#' @param y the 0/1 response, as long as \code{x}, with both classes.
#' @param target 0 or 1: the class the questions should capture.
#' @param segments the most cut points kept per direction (values below 3
#'   become 3, as in R bsnsing).
#' @param bin.size unused (as in R bsnsing).
#' @param node.size when \code{x} separates the classes perfectly and the
#'   smaller class has fewer than \code{node.size} rows, no question is made.
#' @return A data frame of 0/1 (integer) columns named like
#'   \code{"x > 2.5"} and \code{"x < 7.25"}, or, when \code{x} separates the
#'   two classes perfectly, the rule as a string (\code{"x >= 3.5"} or
#'   \code{"x <= 3.5"}); a data frame without columns when there is nothing
#'   to ask.
#' @examples
#' if (pybsnsing_available()) {
#'   y <- as.integer(auto$origin == "USA")
#'   head(binarize.numeric(auto$mpg, "mpg", y, target = 1))
#' }
#' @export
binarize.numeric <- function(x, name, y, target = stop("Must provide a target, 0 or 1"),
                             segments = 10, bin.size = 5, node.size = 10) {
  here <- sys.call()
  if (length(x) != length(y)) {
    stop(simpleError("length(x) and length(y) do not match", here))
  }
  if (!is.numeric(x) || is.object(x)) {
    stop(simpleError(sprintf("'x' must be a numeric vector, not %s", .describe(x)), here))
  }
  if (!is.character(name) || length(name) != 1L || is.na(name)) {
    stop(simpleError("'name' must be a character string", here))
  }
  force(target)
  for (arg in c("segments", "node.size")) {
    v <- get(arg)
    if (!is.numeric(v) || length(v) != 1L || is.na(v)) {
      stop(simpleError(sprintf("'%s' must be a number, not %s", arg, .show_value(v)), here))
    }
  }
  if (!is.numeric(target) || length(target) != 1L || is.na(target) || !target %in% c(0, 1)) {
    stop(simpleError("Invalid 'target' argument. Must be 0 or 1", here))
  }
  if (segments < 3) {
    print("The parameter segments is coerced to 3.")
    segments <- 3
  }
  yv <- if (is.logical(y)) as.integer(y) else y
  res <- reticulate::py_to_r(.pycall(.py_convert()$numeric_cuts_for_r,
                                     as.list(as.numeric(x)), name, as.list(yv),
                                     as.integer(target), as.numeric(min(segments, 1e9)),
                                     as.numeric(node.size), call = here))
  texts <- as.character(unlist(res$texts))
  n <- length(x)
  if (identical(res$kind, "perfect")) return(texts)
  cuts <- c(as.numeric(unlist(res$gt)), as.numeric(unlist(res$lt)))
  ngt <- length(unlist(res$gt))
  cols <- lapply(seq_along(cuts), function(j) {
    as.integer(if (j <= ngt) x > cuts[j] else x < cuts[j])
  })
  structure(stats::setNames(cols, texts), row.names = .set_row_names(n),
            class = "data.frame")
}

#' Binary questions for one factor column
#'
#' R bsnsing's \code{binarize.factor}: one 0/1 column \code{x=='v'} for
#' every distinct value \code{v} of \code{x} (in order of first appearance)
#' and, when some levels have fewer than \code{bin.size} rows, one more column
#' \code{x\%in\%c('a','b')} for those levels together. \code{\link{binarize}()}
#' calls it for every factor column (and every numeric column with few
#' distinct values).
#'
#' @inheritParams binarize.numeric
#' @param x a factor (or a vector whose values are treated as levels).
#' @param y the response (only rows with a response count towards the level
#'   sizes, as in R bsnsing).
#' @param segments the most distinct values allowed; more is an error.
#' @param bin.size levels with fewer rows are also asked about together.
#' @return A data frame of 0/1 (double) columns named by the questions.
#' @examples
#' y <- as.integer(auto$origin == "USA")
#' head(binarize.factor(factor(auto$cylinders), "cylinders", y))
#' @export
binarize.factor <- function(x, name, y, segments = 10, bin.size = 5) {
  here <- sys.call()
  if (length(x) != length(y)) {
    stop(simpleError("length(x) and length(y) do not match", here))
  }
  if (!is.character(name) || length(name) != 1L || is.na(name)) {
    stop(simpleError("'name' must be a character string", here))
  }
  if (!(is.factor(x) || is.character(x) || is.numeric(x) || is.logical(x)) ||
      (is.object(x) && !is.factor(x)) || !is.null(dim(x))) {
    stop(simpleError(sprintf(paste("'x' must be a factor, character, numeric or logical vector,",
                                   "not %s"), .describe(x)), here))
  }
  if (anyNA(x)) {
    stop(simpleError(sprintf("'x' ('%s') has missing values; impute them first", name), here))
  }
  values <- unique(x)
  if (length(values) > segments) {
    stop(simpleError(sprintf(paste("Factor '%s' has more levels (%d) than allowed segments",
                                   "(%s). Level collapsing is yet to be implemented."),
                             name, length(values), format(segments)), here))
  }
  sizes <- rowSums(table(x, y))
  small <- names(sizes)[sizes < bin.size]
  out <- list()
  for (v in as.list(values)) {
    label <- as.character(v)
    out[[paste0(name, "=='", label, "'")]] <- ifelse(x == v, 1, 0)
  }
  if (length(small)) {
    key <- paste0(name, "%in%c(", paste0("'", small, "'", collapse = ","), ")")
    out[[key]] <- ifelse(x %in% small, 1, 0)
  }
  structure(unname(out), names = names(out), row.names = .set_row_names(length(x)),
            class = "data.frame")
}

#' The ENUM search of R bsnsing's C code
#'
#' R bsnsing's \code{rcpp_bslearn}, the implicit enumeration behind
#' \code{\link{bslearn}()}, run by pybsnsing's compiled search (the same
#' results and evaluation counts). The arguments are those of R bsnsing.
#'
#' @param nrows,ncols the dimensions of the question matrix.
#' @param input_y the 0/1 (integer) response of length \code{nrows}.
#' @param input_x the 0/1 question matrix as an integer vector, column after
#'   column (\code{as.integer(unlist(bx))}).
#' @param grp the group of each column (questions of one group never appear
#'   in one rule).
#' @param max_rules the most questions in a rule (1 to 10).
#' @param max_time the time limit in CPU seconds.
#' @param node_size both sides of a rule need at least this many rows.
#' @param no_same_gender_children 1 to accept only rules whose two sides
#'   have different majority classes.
#' @param verbose unused.
#' @return A list with \code{sol_cols} (the 0-based columns of the best
#'   rule), \code{sol_n_cols} (their number), \code{sol_vbest} (its objective
#'   value, \code{n0*n1/2} when no rule improves on it) and \code{neval} (the
#'   rules evaluated).
#' @examples
#' if (pybsnsing_available()) {
#'   y <- as.integer(auto$origin == "USA")
#'   bx <- binarize(auto[, c("mpg", "weight")], y, target = 1)
#'   rcpp_bslearn(nrow(bx), ncol(bx), y, as.integer(unlist(bx)), seq_len(ncol(bx)),
#'                max_rules = 2L, max_time = 10L, node_size = 10L,
#'                no_same_gender_children = 0L, verbose = 0L)
#' }
#' @export
rcpp_bslearn <- function(nrows, ncols, input_y, input_x, grp, max_rules, max_time, node_size,
                         no_same_gender_children, verbose) {
  here <- sys.call()
  one <- function(v, arg) {
    if (!is.numeric(v) && !is.logical(v) || length(v) != 1L || is.na(v)) {
      stop(simpleError(sprintf("'%s' must be a single number, not %s", arg, .show_value(v)),
                       here))
    }
    v
  }
  nrows <- one(nrows, "nrows")
  ncols <- one(ncols, "ncols")
  if (length(input_y) != nrows) {
    stop(simpleError(sprintf("'input_y' has %d values, not nrows = %s", length(input_y),
                             format(nrows)), here))
  }
  if (length(grp) != ncols) {
    stop(simpleError(sprintf("'grp' has %d values, not ncols = %s", length(grp),
                             format(ncols)), here))
  }
  res <- reticulate::py_to_r(.pycall(
    .py_convert()$enum_search_for_r, as.integer(nrows), as.integer(ncols),
    as.list(as.integer(input_y)), as.list(as.integer(input_x)), as.list(as.integer(grp)),
    as.integer(one(max_rules, "max_rules")), as.numeric(one(max_time, "max_time")),
    as.integer(one(node_size, "node_size")),
    as.logical(one(no_same_gender_children, "no_same_gender_children")), call = here))
  list(sol_cols = as.integer(unlist(res$sol_cols)), sol_n_cols = as.integer(res$sol_n_cols),
       sol_vbest = as.numeric(res$sol_vbest), neval = as.integer(res$neval))
}

#' The multi-class bsnsing class
#'
#' As in R bsnsing, \code{mbsnsing} is also registered as a (virtual) S4
#' class, so that \code{methods::is(x, "mbsnsing")} and code that refers to
#' the class generator work. The objects themselves are S3 objects: see
#' \code{\link{bsnsing}}.
#'
#' @name mbsnsing-class
#' @aliases mbsnsing
#' @exportClass mbsnsing
#' @export mbsnsing
#' @importFrom methods setClass
mbsnsing <- setClass("mbsnsing")

# R bsnsing 1.0.1 exports every function by name (exportPattern), methods too:
#' @rawNamespace export(bsnsing.default, bsnsing.formula, plot.bsnsing, plot.mbsnsing,
#'   predict.bsnsing, predict.mbsnsing, print.bscontrol, print.bsnsing, print.mbsnsing,
#'   print.summary.bsnsing, print.summary.mbsnsing, summary.bsnsing, summary.mbsnsing)
NULL
