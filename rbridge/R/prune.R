#' Cost-complexity pruning of bsnsing trees: printcp() and prune()
#'
#' rpart's names for the cost-complexity pruning path of a tree, for bsnsing
#' trees (pybsnsing goes beyond R bsnsing here). \code{printcp(bs)} prints
#' the table of complexity parameters (CP), numbers of splits and relative
#' training errors, as rpart's \code{printcp} does; with \code{xval = k}
#' (k >= 2) it adds the cross-validated relative error (\code{xerror},
#' \code{xstd}) from k folds. \code{prune(bs, cp)} returns the smallest
#' subtree whose CP row is at most \code{cp} (rpart's rule; \code{cp = 0}
#' gives the full tree).
#'
#' \code{printcp} is generic here; for any other object (an \code{rpart}
#' tree) it calls \code{rpart::printcp}. rpart's \code{printcp} is not
#' generic: when rpart is attached after pybsnsing, call
#' \code{pybsnsing::printcp(bs)}. \code{prune} methods are registered for
#' rpart's generic too, so \code{prune(bs, cp)} works whichever of the two
#' packages was attached last.
#'
#' @param x,tree a fitted \code{bsnsing} or \code{mbsnsing} object (or, for
#'   the default methods, an \code{rpart} object).
#' @param digits significant digits of the printed table.
#' @param xval 0 (no cross-validation) or the number of folds (>= 2).
#' @param seed the seed of the fold assignment.
#' @param cp the complexity parameter to prune at (a number >= 0).
#' @param ... passed on to rpart's functions by the default methods.
#' @return \code{printcp}: invisibly, the CP table (a matrix; a list of
#'   matrices by class for \code{mbsnsing}). \code{prune}: the pruned
#'   \code{bsnsing} / \code{mbsnsing} object.
#' @examples
#' if (pybsnsing_available() && requireNamespace("rpart", quietly = TRUE)) {
#'   data(kyphosis, package = "rpart")
#'   bs <- bsnsing(Kyphosis ~ ., data = kyphosis, import.external = FALSE)
#'   printcp(bs)
#'   small <- prune(bs, cp = 0.1)
#'   small
#' }
#' @name printcp
#' @export
printcp <- function(x, digits = getOption("digits") - 2L, ...) UseMethod("printcp")

#' @rdname printcp
#' @export
printcp.default <- function(x, digits = getOption("digits") - 2L, ...) {
  if (!requireNamespace("rpart", quietly = TRUE)) {
    stop("printcp() of an object that is not a bsnsing tree needs the package 'rpart'",
         call. = FALSE)
  }
  rpart::printcp(x, digits = digits, ...)
}

.check_count <- function(value, name, call) {
  if (!is.numeric(value) || length(value) != 1L || is.na(value) || value != round(value)) {
    stop(simpleError(sprintf("'%s' must be a single whole number", name), call))
  }
  as.integer(value)
}

# The CP table of one Python tree as rpart's cptable matrix.
.cp_matrix <- function(model, xval, seed, call) {
  tab <- .pycall(model$cp_table, xval = xval, seed = seed, call = call)
  cols <- reticulate::py_to_r(tab$columns$tolist())
  # plain lists, never NumPy arrays (reticulate may not convert those)
  rows <- reticulate::py_to_r(tab$to_numpy(dtype = "float64")$tolist())
  vals <- as.numeric(unlist(rows))
  m <- matrix(vals, ncol = length(cols), byrow = TRUE,
              dimnames = list(as.character(seq_along(rows)), unlist(cols)))
  m[, "nsplit"] <- round(m[, "nsplit"])
  m
}

.print_cp <- function(x, m, digits, model) {
  n <- length(x$fitted.values)
  # Python's first line: the root's errors (the smaller class weight with case weights)
  head <- strsplit(reticulate::py_to_r(model$printcp()), "\n", fixed = TRUE)[[1L]][1L]
  cat("Classification tree (bsnsing):\n")
  if (!is.null(x$call)) cat(.deparse1(x$call), "\n", sep = "")
  used <- unique(unlist(lapply(x$tree.nodes, function(nd) {
    r <- nd$node.split.rule
    if (is.null(r) || !nzchar(r)) return(NULL)
    vapply(strsplit(r, " | ", fixed = TRUE)[[1L]], function(q) {
      sub("^`?([^`<>=! %]+)`?.*$", "\\1", trimws(q))
    }, character(1))
  })))
  cat("\nVariables actually used in tree construction:\n")
  print(sort(used), quote = FALSE)
  cat("\n", head, "\n\nn= ", n, " \n\n", sep = "")
  print(m, digits = digits)
}

#' @rdname printcp
#' @export
printcp.bsnsing <- function(x, digits = getOption("digits") - 2L, xval = 0L, seed = 0L,
                            ...) {
  here <- sys.call()
  xval <- .check_count(xval, "xval", here)
  if (xval == 1L || xval < 0L) {
    stop(simpleError("'xval' must be 0 or a whole number >= 2", here))
  }
  seed <- .check_count(seed, "seed", here)
  model <- .py_model(x)
  m <- .cp_matrix(model, xval, seed, here)
  .print_cp(x, m, digits, model)
  invisible(m)
}

#' @rdname printcp
#' @export
printcp.mbsnsing <- function(x, digits = getOption("digits") - 2L, xval = 0L, seed = 0L,
                             ...) {
  k <- as.integer(x$nclass)
  out <- vector("list", k)
  names(out) <- as.character(x$ylevels)
  for (i in seq_len(k)) {
    cat(sprintf("Tree %d: %s vs. all.other\n", i, as.character(x$ylevels[i])))
    out[[i]] <- printcp.bsnsing(x[[i]], digits = digits, xval = xval, seed = seed)
    if (i < k) cat("\n")
  }
  invisible(out)
}

#' @rdname printcp
#' @export
prune <- function(tree, ...) UseMethod("prune")

#' @rdname printcp
#' @export
prune.default <- function(tree, ...) {
  if (!requireNamespace("rpart", quietly = TRUE)) {
    stop("prune() of an object that is not a bsnsing tree needs the package 'rpart'",
         call. = FALSE)
  }
  rpart::prune(tree, ...)
}

.check_cp <- function(cp, call) {
  if (!is.numeric(cp) || length(cp) != 1L || is.na(cp) || cp < 0) {
    stop(simpleError("'cp' must be a single number >= 0", call))
  }
  as.numeric(cp)
}

#' @rdname printcp
#' @export
prune.bsnsing <- function(tree, cp, ...) {
  here <- sys.call()
  if (missing(cp)) stop(simpleError("argument \"cp\" is missing, with no default", here))
  cp <- .check_cp(cp, here)
  pruned <- .pycall(.py_model(tree)$prune, cp, call = here)
  res <- .as_r_model(pruned, tree$call, terms = tree$terms)
  if (!is.null(tree$contrasts)) res$contrasts <- tree$contrasts
  res
}

#' @rdname printcp
#' @export
prune.mbsnsing <- function(tree, cp, ...) {
  here <- sys.call()
  if (missing(cp)) stop(simpleError("argument \"cp\" is missing, with no default", here))
  cp <- .check_cp(cp, here)
  pruned <- .pycall(.py_model(tree)$prune, cp, call = here)
  .as_r_model(pruned, tree$call, y = tree$ylevels, terms = tree[[1L]]$terms)
}

# rpart's `variable.importance`: the normalised Gini importance of each variable the
# tree uses (sums to 1), largest first; NULL for a tree without splits.
.variable_importance <- function(model) {
  s <- model$variable_importance()
  vals <- as.numeric(unlist(reticulate::py_to_r(s$to_numpy(dtype = "float64")$tolist())))
  nms <- as.character(unlist(reticulate::py_to_r(s$index$tolist())))
  keep <- vals > 0
  if (!any(keep)) return(NULL)
  stats::setNames(vals[keep], nms[keep])
}
