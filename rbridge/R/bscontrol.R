#' Control parameters of a bsnsing fit
#'
#' The same parameters, defaults and value checks as \code{bscontrol()} of R
#' bsnsing 1.0.1. An out-of-range value is replaced with a warning that
#' names the value actually used (R bsnsing's warning for \code{stop.prob}
#' says 0.97 but uses 0.9; here it says 0.9).
#'
#' @param bin.size the minimum number of observations of a factor level; the
#'   rarer levels also form one combined question.
#' @param nseg.numeric the maximum number of cut points kept per direction
#'   for a numeric variable.
#' @param nseg.factor the maximum number of distinct values allowed for a
#'   factor at a node.
#' @param num2factor a numeric variable with at most this many distinct
#'   values at a node also gets equality questions.
#' @param node.size the minimum number of rows on each side of a split, and
#'   a node with at most this many rows is not split. 0 (the default) means
#'   \code{floor(sqrt(number of training rows))}.
#' @param stop.prob a node whose majority class share reaches this value is
#'   not split further.
#' @param opt.solver \code{"enum_c"} (default; pybsnsing's compiled ENUM
#'   search), \code{"enum"} (the same search) or \code{"enum_py"} (the NumPy
#'   reference implementation). All give the same trees.
#' @param solver.timelimit CPU seconds allowed for one split search.
#' @param max.rules the maximum number of questions OR-ed in one split rule
#'   (1 to 10).
#' @param opt.model \code{"gini"} or \code{"error"} (accepted and ignored, as
#'   in bsnsing 1.0.1).
#' @param greedy.level,n0n1.cap kept for compatibility; unused, as in
#'   bsnsing 1.0.1.
#' @param import.external logical: add the split points that rpart proposes
#'   at each node as questions (pybsnsing computes them natively, like
#'   \code{rpart(maxdepth = 2)}).
#' @param suppress.internal logical: use only the external questions.
#' @param no.same.gender.children logical: accept only splits whose two
#'   children have different majority classes.
#' @param verbose logical: print a trace while growing the tree.
#' @return A list of class \code{bscontrol}.
#' @examples
#' bscontrol()
#' bscontrol(max.rules = 3, import.external = FALSE)
#' @export
bscontrol <- function(bin.size = 5, nseg.numeric = 20, nseg.factor = 20, num2factor = 10,
                      node.size = 0, stop.prob = 0.9999,
                      opt.solver = c("enum_c", "enum", "enum_py"),
                      solver.timelimit = 180, max.rules = 2,
                      opt.model = c("gini", "error"), greedy.level = 0.9,
                      import.external = TRUE, suppress.internal = FALSE,
                      no.same.gender.children = FALSE, n0n1.cap = 40000, verbose = FALSE) {
  fix <- function(msg) warning(msg, call. = FALSE)
  if (bin.size < 1) {
    fix("The value of 'bin.size' supplied is < 1; the value 1 was used instead")
    bin.size <- 1
  }
  if (nseg.numeric < 3) {
    fix("The value of 'nseg.numeric' supplied is < 3; the value 3 was used instead")
    nseg.numeric <- 3
  }
  if (nseg.factor < 3) {
    fix("The value of 'nseg.factor' supplied is < 3; the value 3 was used instead")
    nseg.factor <- 3
  }
  if (num2factor > 2 * nseg.numeric) {
    fix("The value of 'num2factor' is too big; it is set to 2*nseg.numeric")
    num2factor <- 2 * nseg.numeric
  }
  if (stop.prob < 0 || stop.prob > 1) {
    fix("The value of 'stop.prob' supplied is not in [0, 1]; the value 0.9 was used instead")
    stop.prob <- 0.9
  }
  if (node.size < 0) {
    fix("The value of 'node.size' supplied is < 0; the value 0 was used instead")
    node.size <- 0
  }
  if (greedy.level < 0 || greedy.level > 1) {
    fix("The value of 'greedy.level' supplied is not in [0, 1]; the value 0.9 was used instead")
    greedy.level <- 0.9
  }
  if (n0n1.cap < 1) {
    fix("The value of 'n0n1.cap' must be a positive integer; the value 1 was used instead")
    n0n1.cap <- 1
  }
  control <- list(bin.size = bin.size, nseg.numeric = nseg.numeric, nseg.factor = nseg.factor,
                  num2factor = num2factor, node.size = node.size, stop.prob = stop.prob,
                  opt.solver = match.arg(opt.solver), solver.timelimit = solver.timelimit,
                  max.rules = max.rules, opt.model = match.arg(opt.model),
                  greedy.level = greedy.level, import.external = import.external,
                  suppress.internal = suppress.internal,
                  no.same.gender.children = no.same.gender.children, n0n1.cap = n0n1.cap,
                  verbose = verbose)
  class(control) <- "bscontrol"
  control
}

#' @rdname bscontrol
#' @param x a \code{bscontrol} object.
#' @param ... ignored.
#' @export
print.bscontrol <- function(x, ...) {
  defaults <- bscontrol()
  cat("--------------------------------\n")
  cat("Control Parameters: [name = value (default)] \n")
  for (arg in names(formals(bscontrol))) {
    cat(paste("\t", arg, "=", x[[arg]], "(", defaults[[arg]], ")\n"))
  }
  cat("--------------------------------\n")
  invisible(x)
}

# The control list from bsnsing(...)'s `...`: bscontrol() arguments by name,
# and optionally a `controls` (R bsnsing's name) or `control` object, whose
# values win, as in R bsnsing.
.control_from_dots <- function(dots, call = sys.call(-1L)) {
  given <- NULL
  for (nm in c("controls", "control")) {
    if (!is.null(dots[[nm]])) {
      given <- dots[[nm]]
      if (!is.list(given)) {
        stop(simpleError(sprintf("'%s' must be a bscontrol() object or a list", nm), call))
      }
      dots[[nm]] <- NULL
    }
  }
  nms <- names(dots)
  if (length(dots) && (is.null(nms) || any(!nzchar(nms)))) {
    stop(simpleError("control arguments must be named, e.g. max.rules = 3", call))
  }
  bad <- setdiff(nms, names(formals(bscontrol)))
  if (length(bad)) {
    stop(simpleError(sprintf("Argument '%s' not matched", paste(bad, collapse = "', '")), call))
  }
  control <- do.call(bscontrol, dots)
  if (!is.null(given)) {
    bad <- setdiff(names(given), names(control))
    if (length(bad)) {
      stop(simpleError(sprintf("unknown control parameter(s): %s",
                               paste(bad, collapse = ", ")), call))
    }
    control[names(given)] <- given
  }
  control
}

# The control as a plain named list for Python (R names; pybsnsing accepts
# them and checks the values, e.g. that max.rules is a whole number).
.control_for_py <- function(control) {
  unclass(control)
}
