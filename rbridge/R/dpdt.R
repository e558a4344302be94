# DPDT (pybsnsing.optimal.dpdt) from R: the whole accuracy / complexity front of
# depth-limited trees in one solve.

# The Python module pybsnsing.optimal.dpdt (imported on first use).
.py_dpdt <- function() {
  .py_core()
  if (is.null(.pyb$dpdt)) {
    .pyb$dpdt <- reticulate::import("pybsnsing.optimal.dpdt", convert = FALSE)
  }
  .pyb$dpdt
}

# A numpy array (or any Python sequence) as an R vector / list, through tolist().
.py_list <- function(x) reticulate::py_to_r(reticulate::py_call(x$tolist))

#' Decision trees of every accuracy / complexity trade-off (DPDT)
#'
#' DPDT (Kohler, Akrour and Preux, "Interpretable Decision Tree Search as a
#' Markov Decision Process") builds the trees of depth at most
#' \code{max.depth} whose tests come from a generator (by default the split
#' nodes of a small greedy CART tree fitted at every node), and solves one
#' dynamic programme for every complexity penalty \eqn{\alpha} at once: the
#' tree minimising \eqn{errors/N + \alpha \times}{errors/N + alpha *} (expected
#' number of tests on the training rows). The result is the convex hull of the
#' Pareto front of training accuracy against the average number of tests.
#'
#' The Python engine \code{pybsnsing.optimal.dpdt} does the work; the design
#' matrix is built as \code{\link{bsnsing}} builds it (R's \code{model.matrix}
#' coding, missing numbers replaced by training medians).
#'
#' @param formula a two-sided formula such as \code{Class ~ .}.
#' @param data a data frame.
#' @param max.depth the depth limit D.
#' @param tests the test generator: \code{"cart"} (the paper's), \code{"binary"}
#'   (top features by information gain, after quantile binarisation),
#'   \code{"all"} (every binarised feature: exact) or \code{"bsnsing"}
#'   (bsnsing's OR-rules found at each node).
#' @param cart.depth for \code{"cart"}: the depth K of the greedy tree at each
#'   node (DPDT-K); \code{NULL} uses \code{cart.leaves}.
#' @param cart.leaves for \code{"cart"} without \code{cart.depth}: the number of
#'   leaves of the best-first greedy tree at each depth (the last value repeats),
#'   as the authors' code does.
#' @param alphas the \eqn{\alpha} grid: a number of points in [0, 1] or the
#'   values.
#' @param criterion \code{"entropy"} (the paper's) or \code{"gini"} (the
#'   dpdt-py package's) for the greedy trees.
#' @param ... further arguments of the Python \code{dpdt_fit} by their Python
#'   names (for example \code{max_states}, \code{time_limit},
#'   \code{exact_hull = TRUE}, \code{top_b}, \code{last_split = "generator"}:
#'   the generator's tests also at the last split level, instead of the
#'   default \code{"best"}, the fewest-errors split there as in the code of the
#'   paper's experiments).
#' @return An object of class \code{dpdt}: a list with \code{front} (a data
#'   frame, one row per distinct tree, fewest tests first: \code{alpha_min},
#'   \code{alpha_max}, \code{errors}, \code{accuracy}, \code{avg_tests},
#'   \code{avg_cost}, \code{n_nodes}, \code{n_leaves}, \code{depth},
#'   \code{objective}), \code{trees} (the trees of the front's rows, objects of
#'   class \code{dpdt_tree}: \code{print} and \code{predict} work on them),
#'   \code{classes}, \code{n}, \code{max.depth}, \code{tests}, \code{runtime},
#'   \code{complete} (\code{FALSE} when a state or time limit was reached) and
#'   \code{call}.
#' @seealso \code{\link{predict.dpdt}}, \code{\link{predict.dpdt_tree}}
#' @examples
#' if (pybsnsing_available()) {
#'   fit <- dpdt(Species ~ ., data = iris, max.depth = 3)
#'   fit$front
#'   fit$trees[[nrow(fit$front)]]
#'   head(predict(fit, iris))
#' }
#' @export
dpdt <- function(formula, data, max.depth = 3,
                 tests = c("cart", "binary", "all", "bsnsing"), cart.depth = NULL,
                 cart.leaves = 3, alphas = 1000, criterion = c("entropy", "gini"), ...) {
  Call <- match.call()
  here <- sys.call()
  tests <- match.arg(tests)
  criterion <- match.arg(criterion)
  if (!inherits(formula, "formula") || length(formula) != 3L) {
    stop(simpleError("'formula' must be a two-sided formula such as Class ~ .", here))
  }
  data <- .check_data(data, here)
  response <- all.vars(formula[[2L]])
  if (length(response) != 1L || !(response %in% names(data))) {
    stop(simpleError("the response must be a column of 'data'", here))
  }
  rownames(data) <- NULL
  y <- data[[response]]
  extra <- list(...)
  if (length(extra) && (is.null(names(extra)) || any(!nzchar(names(extra))))) {
    stop(simpleError("arguments in '...' must be named (Python names of dpdt_fit)", here))
  }
  args <- c(list(.py_dpdt()$dpdt, .deparse1(formula), .df_to_py(data),
                 max_depth = as.integer(max.depth), tests = tests, criterion = criterion,
                 cart_leaves = as.list(as.integer(cart.leaves)),
                 alphas = if (length(alphas) == 1L && alphas == round(alphas) && alphas >= 2)
                   as.integer(alphas) else as.list(as.numeric(alphas))),
            if (!is.null(cart.depth)) list(cart_depth = as.integer(cart.depth)),
            extra, list(call = here))
  res <- do.call(.pycall, args, quote = TRUE)
  .dpdt_from_py(res, Call, y)
}

# The R object of a Python DPDTResult.
.dpdt_from_py <- function(res, call, y) {
  front <- .py_to_df(reticulate::py_get_attr(res, "front"))
  n <- nrow(front)
  trees <- lapply(seq_len(n), function(i) {
    .dpdt_tree_from_py(reticulate::py_call(res$tree, as.integer(i - 1L)), i, call, y)
  })
  structure(list(front = front, trees = trees,
                 classes = .dpdt_labels(.py_list(reticulate::py_get_attr(res, "classes_")), y),
                 n = reticulate::py_to_r(reticulate::py_get_attr(res, "n_samples")),
                 max.depth = reticulate::py_to_r(reticulate::py_get_attr(res, "max_depth")),
                 tests = reticulate::py_to_r(reticulate::py_get_attr(res, "tests")),
                 runtime = reticulate::py_to_r(reticulate::py_get_attr(res, "runtime")),
                 complete = reticulate::py_to_r(reticulate::py_get_attr(res, "complete")),
                 text = reticulate::py_str(res),
                 call = call),
            class = "dpdt", py_result = res, y = y[0])
}

# Class labels from Python in the type of the R response `y` (a factor keeps its
# levels, logicals and numbers their type).
.dpdt_labels <- function(values, y) {
  v <- unlist(values)
  if (is.factor(y)) return(factor(as.character(v), levels = levels(y)))
  if (is.logical(y)) return(as.logical(v))
  if (is.integer(y)) return(as.integer(v))
  if (is.numeric(y)) return(as.numeric(v))
  as.character(v)
}

.dpdt_tree_from_py <- function(tree, index, call, y) {
  get <- function(name) reticulate::py_to_r(reticulate::py_get_attr(tree, name))
  json <- reticulate::import("json", convert = FALSE)
  structure(list(index = index, depth = get("depth"), n.nodes = get("num_nodes"),
                 n.leaves = get("n_leaves"), errors = get("objective"),
                 accuracy = get("accuracy"), avg.tests = get("avg_tests"),
                 alpha.range = unlist(get("alpha_range")),
                 classes = .dpdt_labels(.py_list(reticulate::py_get_attr(tree, "classes_")), y),
                 text = reticulate::py_str(tree),
                 summary.text = reticulate::py_to_r(reticulate::py_call(tree$summary)),
                 json = reticulate::py_to_r(json$dumps(reticulate::py_call(tree$to_dict))),
                 call = call),
            class = "dpdt_tree", py_model = tree, y = y[0])
}

# The Python tree behind a dpdt_tree (rebuilt from its JSON after saveRDS/readRDS).
.dpdt_py_tree <- function(object) {
  m <- attr(object, "py_model", exact = TRUE)
  if (!is.null(m) && inherits(m, "python.builtin.object") && !reticulate::py_is_null_xptr(m)) {
    return(m)
  }
  json <- reticulate::import("json", convert = FALSE)
  .pycall(.py_dpdt()$DPDTTreeModel$from_dict, json$loads(object$json), call = sys.call(-1L))
}

#' @export
print.dpdt <- function(x, ...) {
  cat(strsplit(x$text, "\n", fixed = TRUE)[[1]][1], "\n", sep = "")
  print(x$front[, c("alpha_min", "alpha_max", "errors", "accuracy", "avg_tests", "n_nodes",
                    "depth")], digits = 4)
  invisible(x)
}

#' @export
print.dpdt_tree <- function(x, ...) {
  cat(x$text, "\n", sep = "")
  invisible(x)
}

#' @export
summary.dpdt_tree <- function(object, ...) {
  cat(object$summary.text, "\n", sep = "")
  invisible(object)
}

#' Predict with a DPDT tree
#'
#' @param object a \code{dpdt} result or one of its trees (\code{fit$trees[[i]]}).
#' @param newdata a data frame with the predictors (default: none, an error).
#' @param type \code{"class"} (labels, in the type of the training response) or
#'   \code{"prob"} (a matrix of the training class proportions of each row's
#'   leaf, one column per class).
#' @param tree for a \code{dpdt} result: the front row of the tree to use
#'   (default: the last, most accurate); \code{alpha} chooses by penalty instead.
#' @param alpha for a \code{dpdt} result: use the tree DPDT selects for this
#'   \eqn{\alpha}.
#' @param ... ignored.
#' @return A vector of classes or a probability matrix.
#' @export
predict.dpdt_tree <- function(object, newdata, type = c("class", "prob"), ...) {
  type <- match.arg(type)
  here <- sys.call()
  if (missing(newdata) || is.null(newdata)) {
    stop(simpleError("'newdata' (a data frame of the predictors) is needed", here))
  }
  newdata <- .check_data(newdata, here, what = "newdata")
  rownames(newdata) <- NULL
  tree <- .dpdt_py_tree(object)
  out <- .pycall(tree$predict, .df_to_py(newdata), type = type, call = here)
  values <- .py_list(out)
  if (type == "class") {
    return(.dpdt_labels(values, attr(object, "y", exact = TRUE)))
  }
  m <- matrix(as.numeric(unlist(values)), nrow = nrow(newdata), byrow = TRUE)
  colnames(m) <- as.character(object$classes)
  m
}

#' @rdname predict.dpdt_tree
#' @export
predict.dpdt <- function(object, newdata, type = c("class", "prob"), tree = NULL,
                         alpha = NULL, ...) {
  type <- match.arg(type)
  if (!is.null(alpha)) {
    a <- as.numeric(alpha)
    tree <- which(object$front$alpha_min <= a & a <= object$front$alpha_max)
    tree <- if (length(tree)) tree[length(tree)] else NULL
    if (is.null(tree)) {
      # outside the grid: the exact choice of the Python result
      res <- attr(object, "py_result", exact = TRUE)
      t <- .dpdt_tree_from_py(reticulate::py_call(res$tree_at, a), NA_integer_, object$call,
                              attr(object, "y", exact = TRUE))
      return(predict.dpdt_tree(t, newdata, type = type))
    }
  }
  if (is.null(tree)) tree <- length(object$trees)
  predict.dpdt_tree(object$trees[[tree]], newdata, type = type)
}
