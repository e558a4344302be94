# Conversions between R and Python (pandas / pybsnsing models).
#
# Data frames travel column by column as plain lists with an explicit NA
# mask, decoded by pybsnsing.r.convert.frame_from_r_columns():
#   factor / ordered -> pandas Categorical with the same levels, in order
#   integer          -> int64 (nullable Int64 when it has NA)
#   double           -> float64 (NA and NaN -> NaN)
#   logical          -> bool (nullable boolean when it has NA)
#   character        -> strings (missing -> NA)
#   any other class of these storage types (Date, POSIXct, difftime, ts, ...)
#                    -> its stored values, as R's model.matrix reads them
#   a numeric matrix column -> one column per matrix column, named as R's
#                    model.matrix names them (m with columns a, b: ma, mb; m1, m2)
# List, other matrix, complex and raw columns are an error. Row names are not carried.

# One column as the dict pybsnsing.r.convert.column_from_parts() decodes.
.column_parts <- function(x, name) {
  na <- unname(is.na(x))
  if (is.factor(x)) {
    codes <- as.integer(x)
    codes[na] <- 0L
    return(list(kind = "factor", values = codes, na = na, levels = as.list(levels(x)),
                ordered = is.ordered(x), levels_type = "str"))
  }
  if (is.list(x)) {
    stop(sprintf(paste("column '%s' is a list column; only numeric, integer, logical,",
                       "character and factor columns can be used"), name), call. = FALSE)
  }
  if (is.matrix(x)) {
    stop(sprintf(paste("column '%s' is a matrix column; only numeric, integer, logical,",
                       "character and factor columns can be used"), name), call. = FALSE)
  }
  if (!is.atomic(x) || is.complex(x) || is.raw(x)) {
    stop(sprintf(paste("column '%s' has class %s; only numeric, integer, logical,",
                       "character and factor columns can be used"),
                 name, paste(class(x), collapse = "/")), call. = FALSE)
  }
  # Any other class (Date, POSIXct, difftime, ts, hexmode, AsIs, a user's own, ...)
  # goes as its stored numbers, logicals or strings: what R's model.matrix, and so
  # R bsnsing, reads from such a column (a Date as days, a POSIXct as seconds)
  x <- unname(as.vector(unclass(x)))
  na <- is.na(x)  # (of the stored values, as the design matrix has them; no dim)
  if (is.integer(x)) {
    x[na] <- 0L
    return(list(kind = "integer", values = x, na = na))
  }
  if (is.double(x)) {
    return(list(kind = "double", values = x, na = na))
  }
  if (is.logical(x)) {
    x[na] <- FALSE
    return(list(kind = "logical", values = x, na = na))
  }
  if (is.character(x)) {
    x[na] <- ""
    return(list(kind = "character", values = enc2utf8(x), na = na))
  }
  stop(sprintf("column '%s' has type %s, which cannot be sent to Python", name, typeof(x)),
       call. = FALSE)
}

# An R data frame as a pandas DataFrame (a Python object). With `matrices`, a
# numeric matrix column becomes one column per matrix column, named as R's
# model.matrix names them (.expand_matrix_columns); else it is an error.
.df_to_py <- function(df, matrices = TRUE) {
  if (!is.data.frame(df)) stop("expected a data frame", call. = FALSE)
  if (matrices) df <- .expand_matrix_columns(df)
  nms <- names(df)
  cols <- lapply(seq_along(df), function(j) .column_parts(df[[j]], nms[j]))
  .pycall(.py_convert()$frame_from_r_columns, as.list(nms), cols, nrow(df),
          call = sys.call(-1L))
}

# One column from pybsnsing.r.convert.column_to_parts() as an R vector.
.column_from_parts <- function(p) {
  v <- unlist(p$values)
  na <- as.logical(unlist(p$na))
  if (is.null(na)) na <- logical(length(v))
  switch(p$kind,
    double = {
      v <- as.numeric(v)
      v[na] <- NA_real_
      v
    },
    integer = {
      v <- as.integer(v)
      v[na] <- NA_integer_
      v
    },
    logical = {
      v <- as.logical(v)
      v[na] <- NA
      v
    },
    character = {
      v <- as.character(v)
      v[na] <- NA_character_
      v
    },
    factor = {
      v <- as.integer(v)
      v[na] <- NA_integer_
      structure(v, levels = as.character(unlist(p$levels)),
                class = if (isTRUE(p$ordered)) c("ordered", "factor") else "factor")
    },
    stop(sprintf("unknown column kind '%s'", p$kind), call. = FALSE))
}

# A pandas DataFrame (Python object) as an R data frame.
.py_to_df <- function(pdf) {
  enc <- reticulate::py_to_r(.pycall(.py_convert()$frame_to_r_columns, pdf,
                                     call = sys.call(-1L)))
  cols <- lapply(enc$columns, .column_from_parts)
  n <- as.integer(enc$nrow)
  structure(cols, names = as.character(unlist(enc$names)),
            row.names = .set_row_names(n), class = "data.frame")
}

# Values tagged with their R type by pybsnsing.r.convert (ycode, ylevels).
.typed <- function(tv) {
  v <- unlist(tv$values)
  switch(tv$kind, logical = as.logical(v), integer = as.integer(v),
         double = as.numeric(v), as.character(v))
}

.untyped <- function(v) {
  kind <- if (is.logical(v)) "logical" else if (is.integer(v)) "integer" else
    if (is.numeric(v)) "double" else "character"
  list(kind = kind, values = as.list(if (kind == "character") as.character(v) else v))
}

# ---------------------------------------------------------------------------
# Python model -> R bsnsing / mbsnsing object

# One two-class tree from its parts (pybsnsing.r.convert.model_to_r_parts()).
# A tree grown with case weights has two more node fields after R bsnsing's 13,
# node.w1 and node.w0 (the weights of the node's rows of code 1 and 0); an
# unweighted tree has exactly R bsnsing's fields.
.tree_from_parts <- function(t, call, model, terms = NULL, contrasts = NULL) {
  nodes <- lapply(t[["tree.nodes"]], function(nd) c(list(
    node.number = as.numeric(nd[["node.number"]]),
    node.parent = as.numeric(nd[["node.parent"]]),
    node.lchild = as.numeric(nd[["node.lchild"]]),
    node.rchild = as.numeric(nd[["node.rchild"]]),
    node.class = as.integer(nd[["node.class"]]),
    node.prop = as.numeric(nd[["node.prop"]]),
    node.nobs = as.integer(nd[["node.nobs"]]),
    node.n1 = as.integer(nd[["node.n1"]]),
    node.n0 = as.integer(nd[["node.n0"]]),
    node.prob = as.numeric(nd[["node.prob"]]),
    node.obs = as.integer(unlist(nd[["node.obs"]])),
    node.split.rule = as.character(nd[["node.split.rule"]]),
    node.split.target = as.integer(nd[["node.split.target"]])),
    if (!is.null(nd[["node.w1"]]))
      list(node.w1 = as.numeric(nd[["node.w1"]]), node.w0 = as.numeric(nd[["node.w0"]]))))
  class(nodes) <- "treelist"
  fv <- as.integer(unlist(t[["fitted.values"]]))
  n <- length(fv)
  cm <- t[["confusion.matrix"]]
  tab <- as.table(matrix(as.integer(unlist(cm$counts)), nrow = length(unlist(cm$fitted)),
                         dimnames = list(fitted = as.character(unlist(cm$fitted)),
                                         actual = as.character(unlist(cm$actual)))))
  obj <- list(tree.nodes = nodes,
              fitted.values = stats::setNames(fv, seq_len(n)),
              fitted.prob = stats::setNames(as.numeric(unlist(t[["fitted.prob"]])),
                                            seq_len(n)),
              confusion.matrix = tab,
              n.frac.splits = 0,
              y.coding.scheme = as.character(t[["y.coding.scheme"]]),
              ycode = .typed(t[["ycode"]]),
              call = call)
  if (!is.null(terms)) obj$terms <- terms
  if (!is.null(contrasts)) obj$contrasts <- contrasts
  extras <- t[c("print.text", "summary.text", "accuracy", "nleaves", "nsplits", "node.size",
                "control", "design.json", "formula")]
  attr(obj, "pybsnsing") <- extras[!vapply(extras, is.null, logical(1))]
  attr(obj, "py_model") <- model
  class(obj) <- "bsnsing"
  obj
}

# An R object from a fitted Python model. `y` is the R response (to type
# `ylevels` like R bsnsing does).
# Each tree gets rpart's `variable.importance` (see .variable_importance in prune.R).
.as_r_model <- function(model, call, y = NULL, terms = NULL) {
  parts <- reticulate::py_to_r(.pycall(.py_convert()$model_to_r_parts, model,
                                       call = sys.call(-1L)))
  res <- .model_from_parts(parts, call, model = model, y = y, terms = terms)
  if (inherits(res, "mbsnsing")) {
    for (k in seq_len(res$nclass)) {
      tk <- reticulate::py_get_item(reticulate::py_get_attr(model, "trees"), k - 1L)
      res[[k]]$variable.importance <- .variable_importance(tk)
    }
  } else {
    res$variable.importance <- .variable_importance(model)
  }
  res
}

# The R bsnsing / mbsnsing object of the parts of pybsnsing.r.convert.model_to_r_parts().
# `model` (the Python model, attached as attribute "py_model"), `y` and `terms` are
# NULL when pybsnsing builds the object through rpy2 (pybsnsing.r.bsnsing_r reads this
# file): character ylevels then become a factor in their own order.
.model_from_parts <- function(parts, call, model = NULL, y = NULL, terms = NULL) {
  if (!identical(parts[["class"]], "mbsnsing")) {
    contrasts <- if (is.null(y)) NULL else .safe_contrasts(y)
    return(.tree_from_parts(parts, call, model, terms, contrasts))
  }
  ylevels <- .typed(parts$ylevels)
  if (is.factor(y)) {
    ylevels <- factor(as.character(ylevels), levels = levels(y), ordered = is.ordered(y))
  } else if (is.null(y) && is.character(ylevels)) {
    ylevels <- factor(ylevels, levels = ylevels)
  }
  trees <- if (is.null(model)) NULL else reticulate::py_get_attr(model, "trees")
  res <- lapply(seq_along(parts$trees), function(k) {
    yk <- if (is.null(y)) NULL else
      as.factor(ifelse(y == ylevels[k], as.character(ylevels[k]), "all.other"))
    .tree_from_parts(parts$trees[[k]], call,
                     if (is.null(trees)) NULL else reticulate::py_get_item(trees, k - 1L),
                     terms, if (is.null(yk)) NULL else .safe_contrasts(yk))
  })
  res$call <- call
  res$nclass <- as.integer(parts$nclass)
  res$ylevels <- ylevels
  res$yprior <- structure(array(as.numeric(unlist(parts$yprior)), dim = length(ylevels),
                                dimnames = list(y = as.character(ylevels))),
                          class = "table")
  attr(res, "pybsnsing") <- list(formula = parts$formula)
  attr(res, "py_model") <- model
  class(res) <- "mbsnsing"
  res
}

.safe_contrasts <- function(y) {
  tryCatch(stats::contrasts(as.factor(y)), error = function(e) NULL)
}

# ---------------------------------------------------------------------------
# R bsnsing / mbsnsing object -> parts for pybsnsing.r.convert.model_from_r_parts()

.deparse1 <- function(e) paste(deparse(e, width.cutoff = 500L), collapse = " ")

# The formula of an object: pybsnsing's attribute, else (with `fallback`) its terms or
# the formula of its call (an object made by R bsnsing carries no attribute).
.formula_text <- function(x, fallback) {
  extra <- attr(x, "pybsnsing")
  if (!is.null(extra$formula)) return(as.character(extra$formula))
  if (!fallback) return(NULL)
  if (!is.null(x$terms)) return(.deparse1(stats::formula(x$terms)))
  if (is.call(x$call) && !is.null(x$call$formula)) return(.deparse1(x$call$formula))
  NULL
}

.r_tree_parts <- function(t, formula_fallback = FALSE) {
  extra <- attr(t, "pybsnsing")
  nodes <- lapply(unclass(t$tree.nodes), function(nd) {
    nd <- unclass(nd)
    nd$node.obs <- as.list(as.integer(nd$node.obs))
    nd
  })
  out <- list(class = "bsnsing", tree.nodes = nodes, ycode = .untyped(t$ycode),
              call = if (is.null(t$call)) NULL else .deparse1(t$call))
  for (k in c("node.size", "control", "design.json")) {
    if (!is.null(extra[[k]])) out[[k]] <- extra[[k]]
  }
  out$formula <- .formula_text(t, formula_fallback)
  out
}

# The parts of an R bsnsing / mbsnsing object (made by pybsnsing or by R bsnsing) as
# plain lists: pybsnsing.r.convert.model_from_r_parts() reads them (through reticulate
# here, through rpy2 in pybsnsing.r.bsnsing_r, which asks for `formula_fallback`).
.r_parts <- function(object, formula_fallback = FALSE) {
  if (inherits(object, "mbsnsing")) {
    k <- as.integer(object$nclass)
    ylevels <- object$ylevels
    if (is.factor(ylevels)) ylevels <- as.character(ylevels)
    prior <- as.numeric(object$yprior)
    prior[is.na(prior)] <- 0
    return(list(class = "mbsnsing",
                trees = lapply(seq_len(k), function(i) .r_tree_parts(object[[i]],
                                                                     formula_fallback)),
                nclass = k, ylevels = .untyped(ylevels), yprior = as.list(prior),
                call = if (is.null(object$call)) NULL else .deparse1(object$call),
                formula = .formula_text(object, formula_fallback)))
  }
  if (!inherits(object, "bsnsing")) stop("not a bsnsing or mbsnsing object", call. = FALSE)
  .r_tree_parts(object, formula_fallback)
}

# The numeric matrix columns of a data frame: name -> model.matrix's names of its
# columns (the name and the matrix's column names, or 1, 2, ...).
.matrix_columns <- function(df) {
  is_mat <- vapply(df, function(v) is.matrix(v) && (is.double(v) || is.integer(v)), NA)
  out <- lapply(which(is_mat), function(j) {
    v <- df[[j]]
    paste0(names(df)[j], if (is.null(colnames(v))) seq_len(ncol(v)) else colnames(v))
  })
  stats::setNames(out, names(df)[is_mat])
}

# Each numeric matrix column of `df` as one column per matrix column, in place.
.expand_matrix_columns <- function(df) {
  mats <- .matrix_columns(df)
  if (!length(mats)) return(df)
  cols <- list()
  nms <- character(0)
  for (j in seq_along(df)) {
    name <- names(df)[j]
    if (name %in% names(mats) && is.matrix(df[[j]])) {
      v <- unclass(df[[j]])
      for (i in seq_len(ncol(v))) cols[[length(cols) + 1L]] <- unname(v[, i])
      nms <- c(nms, mats[[name]])
    } else {
      cols[[length(cols) + 1L]] <- df[[j]]
      nms <- c(nms, name)
    }
  }
  # (positions, not names: a name may repeat, as in R's model.matrix)
  structure(stats::setNames(cols, nms), class = "data.frame",
            row.names = .set_row_names(nrow(df)))
}
