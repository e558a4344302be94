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
  args <- mget(names(formals(bscontrol)), envir = environment())
  control <- .check_control(args, call = sys.call())
  fix <- function(msg) warning(msg, call. = FALSE)
  if (control$bin.size < 1) {
    fix("The value of 'bin.size' supplied is < 1; the value 1 was used instead")
    control$bin.size <- 1
  }
  if (control$nseg.numeric < 3) {
    fix("The value of 'nseg.numeric' supplied is < 3; the value 3 was used instead")
    control$nseg.numeric <- 3
  }
  if (control$nseg.factor < 3) {
    fix("The value of 'nseg.factor' supplied is < 3; the value 3 was used instead")
    control$nseg.factor <- 3
  }
  if (control$num2factor > 2 * control$nseg.numeric) {
    fix("The value of 'num2factor' is too big; it is set to 2*nseg.numeric")
    control$num2factor <- 2 * control$nseg.numeric
  }
  if (control$stop.prob < 0 || control$stop.prob > 1) {
    fix("The value of 'stop.prob' supplied is not in [0, 1]; the value 0.9 was used instead")
    control$stop.prob <- 0.9
  }
  if (control$node.size < 0) {
    fix("The value of 'node.size' supplied is < 0; the value 0 was used instead")
    control$node.size <- 0
  }
  if (control$greedy.level < 0 || control$greedy.level > 1) {
    fix("The value of 'greedy.level' supplied is not in [0, 1]; the value 0.9 was used instead")
    control$greedy.level <- 0.9
  }
  if (control$n0n1.cap < 1) {
    # bsnsing 1.0.1 warns ("set to 1") and keeps the value; so does pybsnsing's BsControl
    fix(sprintf(paste("The value of 'n0n1.cap' must be a positive integer; the value %s",
                      "was kept, as in bsnsing 1.0.1 (the tree does not use it)"),
                format(control$n0n1.cap, digits = 15L)))
  }
  class(control) <- "bscontrol"
  control
}

# The kinds of the control parameters (for the checks below).
.control_whole <- c("bin.size", "nseg.numeric", "nseg.factor", "num2factor", "node.size",
                    "max.rules", "n0n1.cap")
.control_number <- c("stop.prob", "greedy.level", "solver.timelimit")
.control_flag <- c("suppress.internal", "no.same.gender.children", "verbose")
.control_choices <- list(opt.solver = c("enum_c", "enum", "enum_py"),
                         opt.model = c("gini", "error"))

# Check the type of every control value and put it in its canonical form;
# a wrong value is an R error (raised from `call`) that names the parameter
# and the value. Range corrections (with warnings) are bscontrol()'s job.
.check_control <- function(control, call = sys.call(-1L)) {
  bad <- function(name, what, value) {
    stop(simpleError(sprintf("'%s' must be %s, not %s", name, what, .show_value(value)),
                     call))
  }
  number <- function(name, value, what) {
    if (!is.numeric(value) || is.object(value) || length(value) != 1L || is.na(value)) {
      bad(name, what, value)
    }
    as.vector(value)
  }
  for (name in names(control)) {
    value <- control[[name]]
    if (name %in% .control_whole) {
      what <- if (name == "max.rules") "a whole number from 1 to 10" else "a whole number"
      v <- number(name, value, what)
      if (is.finite(v) && abs(v) > .Machine$integer.max) {
        what <- paste(what, "(at most 2147483647 in absolute value)")
      }
      if (!is.finite(v) || v != round(v) || abs(v) > .Machine$integer.max) bad(name, what, value)
      if (name == "max.rules" && (v < 1 || v > 10)) bad(name, what, value)
      control[name] <- list(v)
    } else if (name %in% .control_number) {
      what <- switch(name, solver.timelimit = "a positive number of seconds",
                     "a number in [0, 1]")
      v <- number(name, value, what)
      if (name == "solver.timelimit" && !(v > 0)) bad(name, what, value)
      control[name] <- list(v)
    } else if (name %in% .control_flag || name == "import.external") {
      what <- if (name == "import.external") 'TRUE, FALSE, "rpart" or "r"' else "TRUE or FALSE"
      if (name == "import.external" && is.character(value) && length(value) == 1L &&
          !is.na(value) && tolower(value) %in% c("rpart", "r")) {
        control[name] <- list(tolower(value))
        next
      }
      if (length(value) != 1L || is.object(value) || is.na(value) ||
          !(is.logical(value) || (is.numeric(value) && value %in% c(0, 1)))) {
        bad(name, what, value)
      }
      control[name] <- list(as.logical(value))
    } else if (name %in% names(.control_choices)) {
      choices <- .control_choices[[name]]
      what <- paste0("one of ", paste0('"', choices, '"', collapse = ", "))
      if (identical(value, choices)) value <- choices[1L]
      if (!is.character(value) || length(value) != 1L || is.na(value)) bad(name, what, value)
      hit <- pmatch(value, choices)
      if (is.na(hit)) bad(name, what, value)
      control[name] <- list(choices[hit])
    }
  }
  control
}

# A value as an R user would write it, for messages: NA, Inf, 2.5, "a",
# c(1, 2), NULL, or its class for anything bigger.
.show_value <- function(value) {
  if (is.null(value)) return("NULL")
  if (is.atomic(value) && !is.object(value) && length(value) >= 1L && length(value) <= 5L) {
    text <- if (is.character(value)) {
      ifelse(is.na(value), "NA", encodeString(value, quote = "\""))
    } else {
      format(value, digits = 15L, trim = TRUE)
    }
    if (length(value) == 1L) return(text)
    return(paste0("c(", paste(text, collapse = ", "), ")"))
  }
  if (is.atomic(value) && !is.object(value)) {
    return(sprintf("a %s vector of length %d", typeof(value), length(value)))
  }
  sprintf("an object of class %s", paste0('"', class(value), '"', collapse = "/"))
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
    if (nm %in% names(dots) && is.null(dots[[nm]])) dots[[nm]] <- NULL
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
    stop(simpleError(paste0(sprintf("Argument '%s' not matched", paste(bad, collapse = "', '")),
                            .did_you_mean(bad)), call))
  }
  if (anyDuplicated(nms)) {
    stop(simpleError(sprintf("control argument '%s' given more than once",
                             nms[anyDuplicated(nms)]), call))
  }
  control <- unclass(bscontrol())
  control[nms] <- dots
  control <- do.call(bscontrol, .check_control(control, call = call))
  if (!is.null(given)) {
    given <- unclass(given)
    if (is.null(names(given)) || any(!nzchar(names(given)))) {
      stop(simpleError("the control list must have names, e.g. list(max.rules = 3)", call))
    }
    bad <- setdiff(names(given), names(control))
    if (length(bad)) {
      stop(simpleError(sprintf("unknown control parameter(s): %s",
                               paste(bad, collapse = ", ")), call))
    }
    control[names(given)] <- given
    control <- .check_control(control, call = call)
  }
  control
}

# The control as a plain named list for Python (R names; pybsnsing accepts
# them and checks the values, e.g. that max.rules is a whole number).
.control_for_py <- function(control) {
  control <- unclass(control)
  for (name in intersect(names(control), .control_whole)) {
    control[[name]] <- as.integer(control[[name]])
  }
  control
}

# A control object given to binarize() or bslearn(): a list with bscontrol()
# names, completed with the defaults and checked.
.control_arg <- function(control, call = sys.call(-1L)) {
  if (!is.list(control) || (length(control) && is.null(names(control)))) {
    stop(simpleError(sprintf("'control' must be a bscontrol() object, not %s",
                             .show_value(control)), call))
  }
  control <- unclass(control)
  bad <- setdiff(names(control), names(formals(bscontrol)))
  if (length(bad)) {
    stop(simpleError(sprintf("unknown control parameter(s): %s",
                             paste(bad, collapse = ", ")), call))
  }
  full <- unclass(bscontrol())
  full[names(control)] <- control
  .check_control(full, call = call)
}

# "; did you mean 'max.rules'?" for a control name written another way
# (max_rules, maxrules, Max.Rules), or "".
.did_you_mean <- function(bad) {
  known <- names(formals(bscontrol))
  key <- function(x) gsub("[^a-z0-9]", "", tolower(x))
  hits <- known[match(key(bad), key(known))]
  hits <- hits[!is.na(hits)]
  if (length(hits)) sprintf("; did you mean %s?", paste0("'", hits, "'", collapse = ", ")) else ""
}
