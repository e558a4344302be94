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
  dup <- unique(names(x)[duplicated(names(x))])
  if (length(dup)) {
    stop(simpleError(sprintf(paste("'x' has more than one column named %s; the question",
                                   "names would be ambiguous: rename them (e.g. make.unique())"),
                             paste0("'", dup, "'", collapse = ", ")), here))
  }
  if (length(y) != nrow(x)) {
    stop(simpleError(sprintf("'y' has %d values but 'x' has %d rows", length(y), nrow(x)), here))
  }
  rownames(x) <- NULL
  x <- x[, .binarize_columns(x), drop = FALSE]
  bx <- .pycall(.py_core()$binarize, .df_to_py(x, matrices = FALSE), as.list(unname(y)),
                as.integer(target),
                control = .control_for_py(control), call = here)
  bx <- .py_to_df(bx)
  # R writes the inequality questions as integers, the others (factor levels, 0/1
  # columns: ifelse(x == level, 1, 0)) as doubles
  ineq <- grepl(" (>|<|>=|<=) -?([0-9.]+(e[-+]?[0-9]+)?|Inf)$", names(bx))
  bx[!ineq] <- lapply(bx[!ineq], as.double)
  bx
}

# The columns R bsnsing's binarize() turns into questions, by its own tests: numeric
# and integer columns (class() exactly that), factors, and the columns whose values
# are all 0 or 1 as apply(x, 2, ...) sees them (the frame made a matrix: a logical
# column counts beside numbers, not beside strings). It leaves out the others
# (character, Date, ... columns). (R's test of factors fails on ordered factors,
# "undefined columns selected"; they are factors here.)
.binarize_columns <- function(x) {
  if (ncol(x) == 0L) return(integer(0))
  if (any(vapply(x, is.matrix, NA))) return(seq_along(x))  # (a matrix column: an error)
  plain <- vapply(x, function(v) identical(class(v), "numeric") ||
                    identical(class(v), "integer") || is.factor(v), NA)
  binary <- apply(x, 2, function(v) all(v %in% 0:1))
  which(plain | binary)
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
  res <- .pycall(.py_core()$bslearn, .df_to_py(bx, matrices = FALSE), as.list(unname(y)),
                 control = .control_for_py(control), call = here)
  get <- function(name) reticulate::py_to_r(reticulate::py_get_attr(res, name))
  cols <- as.integer(unlist(reticulate::py_to_r(
    .py_convert()$plain(reticulate::py_get_attr(res, "cols")))))
  list(n.rules = as.integer(get("n_rules")), rules = as.character(get("rules")),
       objval = as.numeric(reticulate::py_to_r(.py_convert()$plain(
         reticulate::py_get_attr(res, "objval")))),
       neval = .r_count(reticulate::py_to_r(.py_convert()$plain(
         reticulate::py_get_attr(res, "neval")))),
       cols = cols + 1L)
}

#' Code a two-valued response as 0/1
#'
#' R bsnsing's \code{binarize.y}: codes a response with two distinct values
#' as 0/1 the way \code{\link{bsnsing}()} does. For a factor (or a character
#' vector, turned into a factor) the last level present is coded 1; a level
#' named \code{"all.other"} is always coded 0. For numbers the larger value is
#' coded 1; for logicals \code{TRUE}. Missing values stay missing (and count
#' as one of the values, as in R bsnsing).
#'
#' Unlike R bsnsing 1.0.1, a numeric response whose smaller value is 1 (such
#' as 1/2) is coded correctly (R bsnsing codes every value 0 then; pybsnsing
#' fixes this, see its README, Q2).
#'
#' @param y the response: a factor, character, numeric, integer or logical
#'   vector with exactly two distinct values.
#' @param verbose print the coding.
#' @return A list with \code{y} (the 0/1 codes: integer for a factor,
#'   character or logical response, otherwise of the type of \code{y}),
#'   \code{coding.scheme} (the text \code{bsnsing()} prints) and
#'   \code{ycode} (the values coded 0 and 1, in that order).
#' @examples
#' binarize.y(factor(c("good", "bad", "good", "good", "bad")))
#' binarize.y(c(TRUE, FALSE, FALSE, FALSE, TRUE))$y
#' binarize.y(c(1, 2, 2, 1, 2))$ycode
#' @export
binarize.y <- function(y, verbose = FALSE) {
  here <- sys.call()
  if (is.character(y)) y <- as.factor(y)
  ok <- (is.numeric(y) || is.logical(y) || is.factor(y)) && is.null(dim(y)) &&
    (!is.object(y) || is.factor(y))
  if (!ok) {
    stop(simpleError(sprintf(paste("the response must be a factor, character, numeric,",
                                   "integer or logical vector, not %s"), .describe(y)), here))
  }
  if (is.factor(y)) {
    present <- levels(y)[sort(unique(as.integer(y[!is.na(y)])), decreasing = TRUE)]
    if (length(present) != 2L) {
      stop(simpleError(sprintf("the response must have two distinct levels, not %d",
                               length(present)), here))
    }
    one <- if ("all.other" %in% present) setdiff(present, "all.other") else present[1L]
    zero <- setdiff(present, one)
    coded <- ifelse(y == one, 1L, 0L)
    scheme <- if (zero == "all.other") {
      paste("Response coding:", one, "==> 1  ", "all.other ==> 0")
    } else {
      paste("Response coding:", one, "==> 1  ", zero, "==> 0")
    }
    ycode <- c(zero, one)
  } else {
    values <- unique(y)
    if (length(values) != 2L) {
      stop(simpleError(sprintf("the response must have two distinct values, not %d",
                               length(values)), here))
    }
    if (is.logical(y)) {
      coded <- as.integer(y)
      scheme <- "Response coding: True ==> 1   False ==> 0"
      ycode <- c(FALSE, TRUE)
    } else {
      hi <- max(y)
      lo <- min(y)
      coded <- y
      coded[] <- ifelse(y == hi, 1L, 0L)
      scheme <- paste("Response coding:", hi, "==> 1  ", lo, "==> 0")
      ycode <- c(lo, hi)
    }
  }
  if (verbose) cat(paste(scheme, "\n"))
  list(y = coded, coding.scheme = scheme, ycode = ycode)
}

#' Split rules proposed by other tree packages
#'
#' R bsnsing's \code{import_external_rules}: the questions that rpart
#' (\code{maxdepth = 2}, a regression tree on the 0/1 response) proposes for
#' the data, \code{"v < c"} for every split and competitor split of its table
#' with a positive count, then \code{"v >= c"} for the same rows. These are
#' the questions \code{bsnsing()} adds at each node when
#' \code{import.external = TRUE}. pybsnsing computes them natively (its replay
#' of rpart 4.1.19, identical to R's rpart; no R package is needed). R
#' bsnsing also asks 'party', 'C50' and 'tree' when they are installed; R
#' bsnsing 1.0.1 as used for pybsnsing's reference results had none of them,
#' and pybsnsing does not either.
#'
#' @param x a data frame (or matrix) of numeric or logical columns without
#'   missing values, such as the design matrix of a node.
#' @param y the 0/1 response (or logical).
#' @param verbose print the rules found.
#' @return A character vector of rules, or \code{NULL} when rpart proposes
#'   none (as R bsnsing returns).
#' @examples
#' if (pybsnsing_available()) {
#'   y <- as.integer(auto$origin == "USA")
#'   import_external_rules(auto[, c("mpg", "displacement", "weight")], y)
#' }
#' @export
import_external_rules <- function(x, y, verbose = FALSE) {
  here <- sys.call()
  x <- .check_data(x, here, what = "x")
  if (length(y) != nrow(x)) {
    stop(simpleError(sprintf("'y' has %d values but 'x' has %d rows", length(y), nrow(x)), here))
  }
  if (is.factor(y) || is.character(y)) {
    stop(simpleError(paste("'y' must be the 0/1 response (numeric or logical); code a",
                           "factor first, e.g. binarize.y(y)$y"), here))
  }
  y <- if (is.logical(y)) as.integer(y) else y
  if (!is.numeric(y) || anyNA(y) || !all(y %in% c(0, 1))) {
    stop(simpleError("'y' must hold only the values 0 and 1 (no missing values)", here))
  }
  for (j in seq_along(x)) {
    v <- x[[j]]
    if (!(is.numeric(v) || is.logical(v)) || is.object(v)) {
      stop(simpleError(sprintf(paste("column '%s' is %s; the rules are asked of numeric",
                                     "columns (code factors first, e.g. with model.matrix())"),
                               names(x)[j], .describe(v)), here))
    }
    if (anyNA(v)) {  # Inf and -Inf are allowed: rpart treats them as missing
      stop(simpleError(sprintf(paste("column '%s' has missing values; impute",
                                     "them first (bsnsing() uses the column medians)"),
                               names(x)[j]), here))
    }
  }
  cols <- lapply(unname(as.list(x)), function(v) as.list(as.numeric(v)))
  rules <- reticulate::py_to_r(.pycall(.py_convert()$external_rules_for_r, cols,
                                       as.list(names(x)), as.list(as.numeric(y)), call = here))
  rules <- as.character(unlist(rules))
  # R bsnsing's rpart() call takes random numbers (where its model.frame works)
  .rpart_draws(function() {
    if (isTRUE(reticulate::py_to_r(.py_convert()$rpart_stops(as.list(names(x)))))) {
      integer(0)
    } else {
      nrow(x)
    }
  })
  if (verbose && length(rules)) {
    print(paste0("Candidate rules from rpart::rpart: ", paste(rules, collapse = ",")))
  }
  if (length(rules)) rules else NULL
}

# A count as R bsnsing returns it: an integer (a double past R's integers, where R's
# own count would overflow)
.r_count <- function(v) {
  v <- as.numeric(v)
  if (length(v) == 1L && !is.na(v) && abs(v) <= .Machine$integer.max) as.integer(v) else v
}
