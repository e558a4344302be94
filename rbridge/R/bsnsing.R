#' Learn a classification tree by boolean sensing
#'
#' Fits a bsnsing tree with the Python engine \code{pybsnsing}, which
#' reproduces R bsnsing 1.0.1. The arguments, and the returned objects, are
#' those of R bsnsing, so existing code runs unchanged:
#' \code{bsnsing(Class ~ ., data = train, max.rules = 3)}.
#'
#' For two classes the result is a \code{bsnsing} object; for three or more,
#' an \code{mbsnsing} object holding one tree per class (that class against
#' \code{"all.other"}).
#'
#' The formula interface works like R bsnsing's: R's \code{model.matrix}
#' coding with treatment contrasts (a factor \code{f} with levels a, b, c
#' gives the 0/1 columns \code{fb}, \code{fc}; a logical \code{g} gives
#' \code{gTRUE}); missing predictor values are replaced by the column median
#' over the training rows (a missing factor value by the medians of its dummy
#' columns); rows with a missing response are dropped. For a factor response
#' the last level present is coded 1; for numbers the largest value.
#'
#' \code{bsnsing.default(x, y)} fits \code{y ~ .} on the data frame \code{x};
#' unlike R bsnsing's default method it uses the same model-matrix coding as
#' the formula interface.
#'
#' @param x a formula (dispatches to \code{bsnsing.formula}) or a data frame
#'   of predictors (\code{bsnsing.default}).
#' @param formula a formula such as \code{Class ~ .} or \code{y ~ a + b}.
#' @param data a data frame. If missing, the variables are taken from the
#'   formula's environment.
#' @param subset an optional vector selecting rows of \code{data}.
#' @param na.action applied to the model variables before fitting; the
#'   default \code{na.pass} keeps rows with missing predictors (they are
#'   imputed as described above).
#' @param weights optional case weights (non-negative numbers, one per row of
#'   \code{data}; evaluated in \code{data} like \code{subset}, as rpart's
#'   \code{weights}). pybsnsing goes beyond R bsnsing here: the split search,
#'   the binarization counts, the stopping rules and the nodes' class,
#'   probability and share use weighted counts, missing predictor values are
#'   imputed with weighted medians, and whole-number weights give
#'   the tree of the data with each row repeated that many times. The node
#'   counts \code{node.n1}, \code{node.n0}, \code{node.nobs} stay row counts;
#'   each node of a weighted tree has two more fields, \code{node.w1} and
#'   \code{node.w0} (the weights of its rows of code 1 and 0), so that
#'   \code{saveRDS()}/\code{readRDS()} keep them (unweighted trees have
#'   exactly R bsnsing's node fields).
#' @param class.weight optional class weights multiplying \code{weights}:
#'   \code{"balanced"} (each class weighs n / (number of classes x its row
#'   count)) or a named numeric vector such as \code{c(present = 3)} (classes
#'   not named weigh 1).
#' @param y the response for \code{bsnsing.default}.
#' @param controls a \code{\link{bscontrol}()} object; its values take
#'   precedence over control arguments given in \code{...}.
#' @param ... \code{\link{bscontrol}()} arguments by name (for example
#'   \code{max.rules = 3}, \code{import.external = FALSE}), or
#'   \code{controls = bscontrol(...)}. An unknown name is an error.
#' @return An object of class \code{bsnsing}: a list with \code{tree.nodes}
#'   (the nodes, each a list with \code{node.number}, \code{node.parent},
#'   \code{node.lchild}, \code{node.rchild}, \code{node.class},
#'   \code{node.prop}, \code{node.nobs}, \code{node.n1}, \code{node.n0},
#'   \code{node.prob}, \code{node.obs} (1-based training rows),
#'   \code{node.split.rule} and \code{node.split.target}),
#'   \code{fitted.values}, \code{fitted.prob}, \code{confusion.matrix},
#'   \code{n.frac.splits}, \code{y.coding.scheme}, \code{ycode}, \code{call},
#'   \code{terms} and \code{contrasts}; or an object of class
#'   \code{mbsnsing}: a list of \code{bsnsing} trees plus \code{call},
#'   \code{nclass}, \code{ylevels} and \code{yprior}. The attribute
#'   \code{"py_model"} refers to the Python model (used by
#'   \code{\link[=predict.bsnsing]{predict}}); the attribute
#'   \code{"pybsnsing"} keeps what is needed to rebuild it after
#'   \code{saveRDS()}/\code{readRDS()}.
#' @seealso \code{\link{bscontrol}}, \code{\link{predict.bsnsing}},
#'   \code{\link{summary.bsnsing}}, \code{\link{plot.bsnsing}}
#' @examples
#' if (pybsnsing_available() && requireNamespace("rpart", quietly = TRUE)) {
#'   data(kyphosis, package = "rpart")
#'   bs <- bsnsing(Kyphosis ~ ., data = kyphosis, max.rules = 1)
#'   bs
#'   summary(bs)
#'   head(predict(bs, kyphosis, type = "class"))
#' }
#' if (pybsnsing_available()) {
#'   bs3 <- bsnsing(Species ~ ., data = iris, import.external = FALSE)
#'   summary(bs3[[1]])
#'   head(predict(bs3, iris, type = "prob"))
#' }
#' @export
bsnsing <- function(x, ...) UseMethod("bsnsing")

#' @rdname bsnsing
#' @export
bsnsing.formula <- function(formula, data, subset, na.action = stats::na.pass, weights,
                            class.weight = NULL, ...) {
  Call <- match.call()
  here <- sys.call()
  env <- parent.frame()
  control <- .control_from_dots(list(...), call = here)
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    stop(simpleError("'formula' must be a two-sided formula such as Class ~ .", here))
  }
  vars <- all.vars(formula)
  if (missing(data)) {
    if ("." %in% vars) {
      stop(simpleError("'data' is needed when the formula uses '.'", here))
    }
    data <- tryCatch(as.data.frame(mget(vars, envir = environment(formula), inherits = TRUE),
                                   stringsAsFactors = FALSE),
                     error = function(e) stop(simpleError(conditionMessage(e), here)))
  }
  data <- .check_data(data, here)
  formula0 <- formula  # (the terms are the formula's as written, on the data as given)
  data0 <- data
  if (!is.name(formula[[2L]])) {  # factor(am) ~ .: the response computed as R's model.frame does
    resp <- .response_column(formula, data, here)
    formula <- resp$formula
    data <- resp$data
    vars <- all.vars(formula)
  }
  response <- as.character(formula[[2L]])
  w <- if (missing(weights)) NULL else
    .check_weights(eval(substitute(weights), data, env), nrow(data), here)
  if (!missing(subset)) {
    rows <- eval(substitute(subset), data, env)
    if (is.logical(rows)) rows <- rows & !is.na(rows)
    data <- data[rows, , drop = FALSE]
    if (!is.null(w)) w <- w[rows]
  }
  used <- if ("." %in% vars) names(data) else vars
  absent <- setdiff(setdiff(vars, "."), names(data))
  if (length(absent)) {
    stop(simpleError(sprintf("variable%s %s of the formula %s not in 'data'",
                             if (length(absent) > 1L) "s" else "",
                             paste0("'", absent, "'", collapse = ", "),
                             if (length(absent) > 1L) "are" else "is"), here))
  }
  data <- data[, names(data) %in% c(response, used), drop = FALSE]
  .check_response_type(data[[response]], here)
  if (!identical(na.action, stats::na.pass)) {
    data <- match.fun(na.action)(data)
    omit <- attr(data, "na.action")
    if (!is.null(w) && !is.null(omit)) w <- w[-as.integer(omit)]
  }
  rownames(data) <- NULL
  mats <- .matrix_columns(data)
  if (length(mats)) formula[[3L]] <- .expand_matrix_terms(formula[[3L]], mats, here)
  fml <- .deparse1(formula)
  pdf <- .df_to_py(data)
  cw <- .check_class_weight(class.weight, data[[response]], here)
  model <- .pycall(.py_core()$bsnsing, fml, pdf, control = .control_for_py(control),
                   sample_weight = if (is.null(w)) NULL else as.list(w),
                   class_weight = cw, call = here)
  reticulate::py_set_attr(model, "call", .deparse1(Call))
  .replay_rpart_rng(model)
  y <- data[[response]]
  y <- y[!is.na(y)]
  terms <- tryCatch(stats::terms(formula0, data = data0), error = function(e) NULL)
  .as_r_model(model, Call, y = y, terms = terms)
}

#' @rdname bsnsing
#' @export
bsnsing.default <- function(x, y, controls = bscontrol(), weights = NULL,
                            class.weight = NULL, ...) {
  Call <- match.call()
  here <- sys.call()
  x <- .check_data(x, here, what = "x")
  if (length(y) != nrow(x)) {
    stop(simpleError(sprintf("'y' has %d values but 'x' has %d rows", length(y), nrow(x)), here))
  }
  .check_response_type(y, here)
  dots <- list(...)
  if (!missing(controls)) dots$controls <- controls
  control <- .control_from_dots(dots, call = here)
  yname <- "y"
  while (yname %in% names(x)) yname <- paste0(yname, "_")
  data <- x
  data[[yname]] <- y
  rownames(data) <- NULL
  pdf <- .df_to_py(data)
  w <- if (is.null(weights)) NULL else .check_weights(weights, nrow(x), here)
  cw <- .check_class_weight(class.weight, y, here)
  model <- .pycall(.py_core()$bsnsing, paste(yname, "~ ."), pdf,
                   control = .control_for_py(control),
                   sample_weight = if (is.null(w)) NULL else as.list(w),
                   class_weight = cw, call = here)
  reticulate::py_set_attr(model, "call", .deparse1(Call))
  .replay_rpart_rng(model)
  .as_r_model(model, Call, y = y[!is.na(y)])
}

# A response that is an expression (factor(am), as.factor(Class), I(y == 1)):
# evaluated on the data as R's model.frame evaluates it, put in a column of its
# own (named by the expression; '.' then leaves out the variables it uses, as
# in R), and the formula's left side made that column's name. Returns the new
# formula and data.
.response_column <- function(formula, data, call) {
  lhs <- formula[[2L]]
  y <- tryCatch(eval(lhs, data, environment(formula)),
                error = function(e) stop(simpleError(conditionMessage(e), call)))
  if (is.null(y) || NROW(y) != nrow(data) || !is.null(dim(y))) {
    stop(simpleError(sprintf("the response '%s' must give one value per row of 'data' (%d)",
                             .deparse1(lhs), nrow(data)), call))
  }
  rhs_vars <- all.vars(formula[[3L]])
  if ("." %in% rhs_vars) {
    drop <- setdiff(all.vars(lhs), rhs_vars)
    data <- data[, !names(data) %in% drop, drop = FALSE]
  }
  name <- .deparse1(lhs)
  while (name %in% names(data)) name <- paste0(name, "_")
  data[[name]] <- y
  formula[[2L]] <- as.name(name)
  list(formula = formula, data = data)
}

# A formula's right side with each term that is a numeric matrix column `m` made the
# sum of its columns' names ((ma + mb)), as model.matrix expands it; `m` inside a
# function or an interaction is an error.
.expand_matrix_terms <- function(rhs, mats, call) {
  walk <- function(e) {
    if (is.name(e)) {
      nm <- as.character(e)
      if (!nm %in% names(mats)) return(e)
      sum <- Reduce(function(a, b) call("+", a, b), lapply(mats[[nm]], as.name))
      return(call("(", sum))
    }
    if (is.call(e) && as.character(e[[1L]])[1L] %in% c("+", "-", "(")) {
      for (i in seq_along(e)[-1L]) e[[i]] <- walk(e[[i]])
      return(e)
    }
    inside <- intersect(all.vars(e), names(mats))
    if (length(inside)) {
      stop(simpleError(sprintf(paste("column '%s' is a matrix column; it can be a term of",
                                     "its own or part of '.', not inside %s"),
                               inside[1L], .deparse1(e)), call))
    }
    e
  }
  walk(rhs)
}

# R's random numbers as R bsnsing leaves them: its rpart calls (import.external)
# draw cross-validation groups at every node it splits or tries to; the same
# sample() calls here, so that a script sampling after a fit gets R bsnsing's rows.
# Nothing is drawn when R's random number generator was never used in the session
# (no seed to keep in step with).
.replay_rpart_rng <- function(model) {
  .rpart_draws(function() {
    as.integer(unlist(reticulate::py_to_r(.py_convert()$rpart_draws(model))))
  })
}

# rpart()'s own draw of its 10 cross-validation groups (rpart's default xval, which
# R bsnsing keeps) for n rows, for each n that `sizes()` gives; nothing when R's
# random number generator was never used in the session
.rpart_draws <- function(sizes) {
  if (!exists(".Random.seed", envir = globalenv(), inherits = FALSE)) return(invisible())
  for (k in sizes()) sample(rep(1L:10L, length.out = k), k, replace = FALSE)
  invisible()
}

# R bsnsing's test of the response (in its binarize.y), with its words: a Date,
# POSIXct or difftime response is refused (is.numeric() is FALSE for them), where
# their columns as predictors are numbers (.column_parts).
.check_response_type <- function(y, call) {
  if (!is.numeric(y) && !is.factor(y) && !is.logical(y) && !is.character(y)) {
    stop(simpleError(paste("Response variable y must be a numeric, integer, logical,",
                           "factor or character typed."), call))
  }
}

.check_data <- function(data, call, what = "data") {
  if (is.data.frame(data)) {
    n <- .row_count(data)
    lens <- vapply(data, NROW, integer(1))
    bad <- which(lens != n)
    if (length(bad)) {
      stop(simpleError(sprintf("'%s' is not a proper data frame: column '%s' has %d values for %d rows",
                               what, names(data)[bad[1]], lens[bad[1]], n), call))
    }
    return(data)
  }
  if (is.list(data) && !is.object(data)) {
    lens <- lengths(data)
    if (length(lens) && length(unique(lens)) == 1L && !is.null(names(data))) {
      return(as.data.frame(data, stringsAsFactors = FALSE, optional = TRUE))
    }
  }
  # a matrix as R bsnsing.default's as.data.frame(x) takes it (columns V1, V2, ...
  # without column names; the formula interface needs the names to find the columns)
  if (is.matrix(data) && (!is.null(colnames(data)) || what == "x")) {
    return(as.data.frame(data, stringsAsFactors = FALSE))
  }
  stop(simpleError(sprintf("'%s' must be a data frame, not %s", what,
                           .describe(data)), call))
}

.row_count <- function(df) .row_names_info(df, type = 2L)

.describe <- function(x) {
  if (is.null(x)) return("NULL")
  cls <- class(x)[1L]
  if (is.atomic(x) && length(x) == 1L) sprintf("a %s value", cls) else sprintf("a %s", cls)
}

# Case weights as R's model functions check them (lm, rpart).
.check_weights <- function(w, n, call) {
  if (!is.numeric(w) || length(w) != n) {
    stop(simpleError(sprintf(
      "'weights' must be a numeric vector with one value per row of 'data' (%d)", n), call))
  }
  if (anyNA(w) || any(w < 0)) stop(simpleError("missing or negative weights not allowed", call))
  if (any(!is.finite(w))) stop(simpleError("infinite weights not allowed", call))
  if (!any(w > 0)) stop(simpleError("all weights are zero", call))
  as.numeric(w)
}

# class.weight: NULL, "balanced" or a named numeric vector of the response's classes;
# returned as what Python's class_weight takes (None, "balanced" or a dict).
.check_class_weight <- function(cw, y, call) {
  if (is.null(cw)) return(NULL)
  if (is.character(cw) && length(cw) == 1L && identical(cw, "balanced")) return("balanced")
  if (!is.numeric(cw) || is.null(names(cw)) || any(!nzchar(names(cw))) || anyNA(cw) ||
      any(cw < 0)) {
    stop(simpleError(paste("'class.weight' must be \"balanced\" or a named vector of",
                           "non-negative class weights, e.g. c(present = 3)"), call))
  }
  classes <- if (is.factor(y)) levels(y) else unique(as.character(y[!is.na(y)]))
  bad <- setdiff(names(cw), classes)
  if (length(bad)) {
    stop(simpleError(sprintf("'class.weight' names %s not in the response's classes (%s)",
                             paste0("'", bad, "'", collapse = ", "),
                             paste(classes, collapse = ", ")), call))
  }
  reticulate::dict(as.list(cw), convert = FALSE)
}
