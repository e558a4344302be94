#' Print a bsnsing model
#'
#' Prints the call, the response coding and the confusion matrix of the
#' training fit, as R bsnsing does. An \code{mbsnsing} object prints this
#' for each class tree.
#'
#' @param x a \code{bsnsing} or \code{mbsnsing} object.
#' @param print.call print the call (default \code{TRUE}).
#' @param ... ignored.
#' @return \code{x}, invisibly.
#' @export
print.bsnsing <- function(x, print.call = TRUE, ...) {
  if (print.call) {
    cat("Call: ")
    print(x$call)
  }
  text <- .extra_text(x, "print.text")
  if (!is.null(text)) {
    cat(text, "\n", sep = "")
  } else {
    cat(x$y.coding.scheme)
    cat("\nConfusion matrix:\n")
    print(x$confusion.matrix)
    cat("Use the summary() function to access details of the tree.\n")
  }
  invisible(x)
}

#' @rdname print.bsnsing
#' @export
print.mbsnsing <- function(x, ...) {
  cat("Call: ")
  print(x$call)
  cat(paste0(x$nclass, " trees, one for each class.", "\n"))
  for (i in seq_len(x$nclass)) {
    cat(paste0("Tree ", i, ":", "\n"))
    print(x[[i]], print.call = FALSE)
  }
  invisible(x)
}

# pybsnsing's printed text (without its Call line), or NULL when the object
# does not carry it or native printing is requested.
.extra_text <- function(x, what) {
  if (isTRUE(getOption("pybsnsing.native_print", FALSE))) return(NULL)
  text <- attr(x, "pybsnsing")[[what]]
  if (is.character(text) && length(text) == 1L) text else NULL
}

#' Summarise a bsnsing model
#'
#' \code{summary()} of a \code{bsnsing} object gives the tree (depth first,
#' left child before right child), the numbers of splits and leaves, the
#' confusion matrix and the training accuracy. Unlike R bsnsing 1.0.1, the
#' accuracy is also right when every fitted value is one class.
#'
#' @param object a \code{bsnsing} or \code{mbsnsing} object.
#' @param x a \code{summary.bsnsing} or \code{summary.mbsnsing} object.
#' @param print.call print the call (default \code{TRUE}).
#' @param ... ignored.
#' @return \code{summary.bsnsing}: a list of class \code{summary.bsnsing} with
#'   \code{nleaves}, \code{nsplits}, \code{n.frac.splits},
#'   \code{confusion.matrix}, \code{accuracy}, \code{y.coding.scheme},
#'   \code{ycode}, \code{nodes} (a data frame: \code{node.number},
#'   \code{depth}, \code{predicted.class}, \code{prob.1}, \code{proportion},
#'   \code{n1}, \code{n0}, \code{parent.node}, \code{rule},
#'   \code{if.rule.then}, \code{is.leaf}) and \code{call}.
#'   \code{summary.mbsnsing}: a list of class \code{summary.mbsnsing} with
#'   \code{nclass}, \code{ylevels}, \code{yprior}, \code{call} and
#'   \code{argname}; use \code{summary(object[[k]])} for the k-th tree.
#' @export
summary.bsnsing <- function(object, ...) {
  nodes <- .summary_nodes(object)
  extra <- attr(object, "pybsnsing")
  cm <- object$confusion.matrix
  accuracy <- extra$accuracy
  if (is.null(accuracy)) {
    fitted <- as.integer(rownames(cm))
    actual <- as.integer(colnames(cm))
    accuracy <- sum(cm[outer(fitted, actual, "==")]) / sum(cm)
  }
  res <- list(nleaves = sum(nodes$is.leaf), nsplits = sum(!nodes$is.leaf),
              n.frac.splits = if (is.null(object$n.frac.splits)) 0 else object$n.frac.splits,
              confusion.matrix = cm, accuracy = accuracy,
              y.coding.scheme = object$y.coding.scheme, ycode = object$ycode,
              nodes = nodes, call = match.call())
  attr(res, "pybsnsing") <- list(summary.text = extra$summary.text)
  class(res) <- "summary.bsnsing"
  res
}

# The nodes in depth-first order (left before right) with their depth.
.summary_nodes <- function(object) {
  tn <- unclass(object$tree.nodes)
  numbers <- vapply(tn, function(nd) as.numeric(nd$node.number), numeric(1))
  tn <- tn[order(numbers)]
  by <- stats::setNames(tn, as.character(sort(numbers)))
  rows <- list()
  visit <- function(k, depth) {
    nd <- by[[as.character(k)]]
    leaf <- nd$node.lchild == -1 && nd$node.rchild == -1
    prob1 <- if (nd$node.n1 == 0) 0 else if (nd$node.n0 == 0) 1 else
      nd$node.n1 / (nd$node.n1 + nd$node.n0)
    rows[[length(rows) + 1L]] <<- data.frame(
      node.number = nd$node.number, depth = depth, predicted.class = nd$node.class,
      prob.1 = prob1, proportion = nd$node.prop, n1 = nd$node.n1, n0 = nd$node.n0,
      parent.node = nd$node.parent, rule = nd$node.split.rule,
      if.rule.then = nd$node.split.target, is.leaf = leaf, stringsAsFactors = FALSE)
    if (!leaf) {
      visit(nd$node.lchild, depth + 1L)
      visit(nd$node.rchild, depth + 1L)
    }
  }
  visit(0, 0L)
  do.call(rbind, rows)
}

#' @rdname summary.bsnsing
#' @export
print.summary.bsnsing <- function(x, print.call = TRUE, ...) {
  if (print.call) {
    cat("Call: ")
    print(x$call)
  }
  text <- .extra_text(x, "summary.text")
  if (!is.null(text)) {
    cat(text, "\n", sep = "")
    return(invisible(x))
  }
  nodes <- x$nodes
  cat(x$y.coding.scheme)
  cat("\nDecision Tree:\n")
  cat("-------------\n")
  for (i in seq_len(nrow(nodes))) {
    indent <- strrep(" ", 6L * nodes$depth[i])
    share <- if (nodes$predicted.class[i] == 1) nodes$prob.1[i] else 1 - nodes$prob.1[i]
    cat(paste0(indent, if (nodes$is.leaf[i]) "*" else "", "Node ", nodes$node.number[i],
               ": class = ", nodes$predicted.class[i], " w/ prob ", sprintf("%1.4f", share),
               ", prop ", sprintf("%1.4f", nodes$proportion[i]), ", n1 ", nodes$n1[i],
               ", n0 ", nodes$n0[i], "\n"))
    if (nodes$rule[i] != "") cat(paste0(indent, "Split by (", nodes$rule[i], ")\n"))
  }
  cat("-------------\n")
  cat(paste0("The tree has ", x$nsplits, " splits (", x$n.frac.splits, " fractional), ",
             x$nleaves, " leaf nodes. \n"))
  cat("Confusion matrix:\n")
  print(x$confusion.matrix)
  cat(paste0("Accuracy: ", sprintf("%1.4f", x$accuracy), "\n"))
  invisible(x)
}

#' @rdname summary.bsnsing
#' @export
summary.mbsnsing <- function(object, ...) {
  res <- list(nclass = object$nclass, ylevels = object$ylevels, yprior = object$yprior,
              call = match.call(), argname = deparse(substitute(object)))
  class(res) <- "summary.mbsnsing"
  res
}

#' @rdname summary.bsnsing
#' @export
print.summary.mbsnsing <- function(x, ...) {
  cat(paste0("There are ", x$nclass, " trees in ", x$argname, ", one for each class in [",
             paste(as.character(x$ylevels), collapse = ", "), "].", "\n"))
  cat(paste0("Use the command summary(", x$argname,
             "[[1]]) to access details of the 1st tree, for instance.", "\n"))
  invisible(x)
}

#' Predict with a bsnsing model
#'
#' Sends each row down the tree: a row answering "yes" to the split rule goes
#' left. As in R bsnsing, missing values are not imputed at prediction time:
#' a question on a missing value counts as "no" (the row goes right unless
#' another OR-ed question is "yes"); \code{impute = TRUE} replaces them by
#' the training medians first. A factor level not seen in training counts as
#' missing, with a warning.
#'
#' @param object a \code{bsnsing} or \code{mbsnsing} object.
#' @param newdata a data frame with the predictor columns. If omitted, the
#'   fitted values of the training rows are returned.
#' @param type \code{"prob"}: the probability of the class coded 1
#'   (\code{ycode[2]}) for \code{bsnsing}, or a matrix of class
#'   probabilities (one column per class) for \code{mbsnsing};
#'   \code{"class"}: the predicted class labels.
#' @param impute logical; see Details.
#' @param ... ignored.
#' @return A named vector (\code{bsnsing}, and \code{mbsnsing} classes) or a
#'   matrix (\code{mbsnsing} probabilities).
#' @export
predict.bsnsing <- function(object, newdata = NULL, type = c("prob", "class"),
                            impute = FALSE, ...) {
  type <- match.arg(type)
  ycode <- object$ycode
  if (is.null(newdata)) {
    if (type == "prob") return(object$fitted.prob)
    return(ifelse(object$fitted.values == 0, ycode[1], ycode[2]))
  }
  here <- sys.call()
  newdata <- .check_data(newdata, here, what = "newdata")
  rownames(newdata) <- NULL
  model <- .py_model(object)
  out <- reticulate::py_to_r(.pycall(.py_convert()$predict_to_r, model, .df_to_py(newdata),
                                     type, impute = isTRUE(impute), call = here))
  values <- unlist(out$values)
  if (is.null(values)) values <- if (type == "prob") numeric(0) else ycode[0]
  if (type == "class") values <- ycode[match(as.character(values), as.character(ycode))]
  stats::setNames(values, seq_len(nrow(newdata)))
}

#' @rdname predict.bsnsing
#' @export
predict.mbsnsing <- function(object, newdata = NULL, type = c("prob", "class"),
                             impute = FALSE, ...) {
  type <- match.arg(type)
  levels <- as.character(object$ylevels)
  prior <- as.numeric(object$yprior)
  prior[is.na(prior)] <- 0
  if (is.null(newdata)) {
    probs <- sapply(seq_len(object$nclass), function(i) object[[i]]$fitted.prob)
    probs <- matrix(probs, ncol = object$nclass)
    rn <- names(object[[1]]$fitted.values)
    probs <- sweep(probs, 2L, prior, "*")
    rs <- rowSums(probs, na.rm = TRUE)
    probs <- probs / rs
    probs[rs == 0, ] <- 0
  } else {
    here <- sys.call()
    newdata <- .check_data(newdata, here, what = "newdata")
    rn <- rownames(newdata)
    rownames(newdata) <- NULL
    model <- .py_model(object)
    out <- reticulate::py_to_r(.pycall(.py_convert()$predict_to_r, model,
                                       .df_to_py(newdata), "prob",
                                       impute = isTRUE(impute), call = here))
    probs <- matrix(as.numeric(unlist(out$columns)), nrow = nrow(newdata))
  }
  probs <- matrix(probs, ncol = length(levels), dimnames = list(rn, levels))
  if (type == "prob") return(probs)
  cls <- levels[apply(probs, 1L, which.max)]
  stats::setNames(cls, rn)
}
