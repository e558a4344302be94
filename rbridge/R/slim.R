# DT-SLIM (pybsnsing.optimal.slim) on R bsnsing objects: a shallower tree with
# 0 training errors, found by SAT locally.

.py_slim <- function() {
  .py_core()
  if (is.null(.pyb$slim)) {
    .pyb$slim <- reticulate::import("pybsnsing.optimal.slim", convert = FALSE)
  }
  .pyb$slim
}

#' Make a bsnsing tree shallower with SAT (DT-SLIM)
#'
#' DT-SLIM (Schidler and Szeider, "SAT-based Decision Tree Learning for Large
#' Data Sets", AAAI 2021) takes a tree with no training errors and repeatedly
#' replaces a deep subtree by a shallower one that a SAT solver finds, pasting
#' the cut-off parts back, so that the tree's depth goes down while it stays
#' perfect on the training data.
#'
#' A bsnsing tree usually stops before purity: its impure leaves are first
#' grown with single questions \code{x <= c} (the best Gini cut) until every
#' leaf is pure. Rows with identical predictors and different classes make
#' that impossible (an error). The binary features are the tree's split
#' texts: with \code{features = "both"} every OR-rule as one feature plus each
#' of its questions (the initial tree is the bsnsing tree itself), with
#' \code{"rules"} the OR-rules only, with \code{"questions"} the OR-rules
#' expanded into chains of single questions. For an \code{mbsnsing} object
#' each class's tree is improved in turn.
#'
#' The result keeps the training rows, response coding, control, design and
#' formula of \code{object}; its splits are valid bsnsing rules, its leaves
#' are pure (probabilities 0 or 1), so it predicts like any bsnsing object.
#' Needs the Python package python-sat (\code{pip install "pybsnsing[sat]"}).
#'
#' @param object a \code{bsnsing} or \code{mbsnsing} object (made by this
#'   package or read back with \code{readRDS}).
#' @param data the training data frame: needed only when \code{object} does not
#'   carry its training rows (read back with \code{readRDS} in a new session, or
#'   made by R bsnsing).
#' @param budget the paper's preset (60, 300 or 800 seconds): its per-depth
#'   sample limit, depth limit and SAT time-out; the next three override it.
#' @param sample.limit the most samples of a local SAT instance (one number).
#' @param depth.limit the deepest local subtree.
#' @param sat.timeout seconds per local SAT instance.
#' @param total.time.limit stop after this many seconds (per tree); the tree so
#'   far is returned.
#' @param solver the SAT solver: \code{"g4"} (Glucose 4.1) or \code{"cd19"}
#'   (CaDiCaL).
#' @param features \code{"both"}, \code{"rules"} or \code{"questions"} (see
#'   Details).
#' @param murtree.seconds seconds each depth question of a local instance goes
#'   first to pybsnsing's MurTree engine (exact: the same answer as SAT, often
#'   far sooner) before the SAT solver gets the rest of \code{sat.timeout};
#'   \code{NULL}: 5\% of \code{sat.timeout}; \code{0}: SAT only, as the paper.
#' @return An object of the class of \code{object}, with the attribute
#'   \code{"slim"}: a list with \code{trace} (a data frame, one row per
#'   replacement: \code{time}, \code{depth}, \code{nodes}, \code{train_acc},
#'   \code{method}), \code{initial.depth} (after growing to purity),
#'   \code{final.depth}, \code{bsnsing.depth} (the input tree's depth),
#'   \code{runtime} and \code{completed}.
#' @examples
#' if (pybsnsing_available() && requireNamespace("rpart", quietly = TRUE) &&
#'     reticulate::py_module_available("pysat")) {
#'   data(kyphosis, package = "rpart")
#'   bs <- bsnsing(Kyphosis ~ ., data = kyphosis)
#'   slim <- slim_improve(bs, budget = 60, total.time.limit = 10)
#'   attr(slim, "slim")$final.depth
#'   summary(slim)
#' }
#' @export
slim_improve <- function(object, data = NULL, budget = 300, sample.limit = NULL,
                         depth.limit = NULL,
                         sat.timeout = NULL, total.time.limit = NULL,
                         solver = c("g4", "cd19"), features = c("both", "rules", "questions"),
                         murtree.seconds = NULL) {
  here <- sys.call()
  Call <- match.call()
  solver <- match.arg(solver)
  features <- match.arg(features)
  if (!inherits(object, c("bsnsing", "mbsnsing"))) {
    stop(simpleError("'object' must be a bsnsing or mbsnsing object", here))
  }
  if (!is.null(murtree.seconds) && (!is.numeric(murtree.seconds) || length(murtree.seconds) != 1L ||
                                    is.na(murtree.seconds) || !is.finite(murtree.seconds) ||
                                    murtree.seconds < 0)) {
    stop(simpleError("'murtree.seconds' must be NULL or one number >= 0", here))
  }
  model <- .py_model(object)
  pdata <- NULL
  if (!is.null(data)) {
    data <- .check_data(data, here)
    rownames(data) <- NULL
    pdata <- .df_to_py(data)
  }
  num <- function(v, int = FALSE) {
    if (is.null(v)) return(NULL)
    if (int) as.integer(v) else as.numeric(v)
  }
  res <- .pycall(.py_slim()$slim_improve, model, pdata, budget = num(budget, TRUE),
                 sample_limit = num(sample.limit, TRUE), depth_limit = num(depth.limit, TRUE),
                 sat_timeout = num(sat.timeout), total_time_limit = num(total.time.limit),
                 solver = solver, features = features,
                 murtree_seconds = num(murtree.seconds), call = here)
  tree <- reticulate::py_get_attr(res, "tree")
  reticulate::py_set_attr(tree, "call", .deparse1(Call))
  out <- .as_r_model(tree, Call, terms = object$terms)
  # the response typing and contrasts of the input object
  if (inherits(object, "mbsnsing")) {
    out$ylevels <- object$ylevels
    for (k in seq_len(object$nclass)) {
      out[[k]]$contrasts <- object[[k]]$contrasts
      out[[k]]$ycode <- object[[k]]$ycode
    }
  } else {
    out$contrasts <- object$contrasts
    out$ycode <- object$ycode
  }
  get <- function(name) reticulate::py_to_r(reticulate::py_get_attr(res, name))
  pd <- reticulate::import("pandas", convert = FALSE)
  tr <- reticulate::py_get_attr(res, "trace")  # mbsnsing: with a column "tree" (0-based)
  trace <- if (reticulate::py_len(tr) > 0L) .py_to_df(pd$DataFrame(tr)) else
    data.frame(time = numeric(0), depth = integer(0), nodes = integer(0),
               train_acc = numeric(0), method = character(0))
  stats <- get("stats")
  attr(out, "slim") <- list(trace = trace, initial.depth = get("initial_depth"),
                            final.depth = get("final_depth"),
                            bsnsing.depth = stats[["bsnsing_depth"]],
                            runtime = get("runtime"), completed = isTRUE(stats[["completed"]]))
  out
}
