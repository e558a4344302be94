# Finding and calling the Python engine.
#
# The Python modules are imported lazily (see .onLoad in zzz.R) with
# `convert = FALSE`: results stay Python objects until they are converted
# explicitly. Everything that crosses back to R is made of plain Python lists,
# dicts, strings and numbers (pybsnsing.r.convert builds them), never NumPy
# arrays, so the bridge works with any reticulate >= 1.26 and NumPy 1 or 2.

.pyb <- new.env(parent = emptyenv())

#' Point the package at a Python installation
#'
#' The Python engine is found the usual 'reticulate' way. In order of
#' precedence:
#' \enumerate{
#'   \item the environment variable \env{RETICULATE_PYTHON} (for example the
#'     project's virtual environment, \file{.venv/bin/python});
#'   \item \code{pybsnsing_use_python(path)} called before the first model is
#'     fitted, or the option \code{pybsnsing.python} / the environment
#'     variable \env{PYBSNSING_PYTHON} set before the package is loaded;
#'   \item a virtual environment named \code{"r-pybsnsing"}, as made by
#'     \code{\link{install_pybsnsing}()} (only once that has finished);
#'   \item whatever Python 'reticulate' finds by itself.
#' }
#' Python is started on first use, and once started it cannot be changed in
#' the same R session.
#'
#' @param python path to a Python executable that has the \code{pybsnsing}
#'   module installed.
#' @param required if \code{TRUE}, fail when this Python cannot be used.
#' @return \code{pybsnsing_use_python()} returns the path, invisibly.
#'   \code{pybsnsing_available()} returns \code{TRUE} when the Python module
#'   \code{pybsnsing} can be imported (this starts Python).
#'   \code{pybsnsing_config()} returns a list with the Python executable, its
#'   version, the \code{pybsnsing} version and the pybsnsing wheel this R
#'   package carries for \code{\link{install_pybsnsing}()}.
#' @seealso \code{\link{install_pybsnsing}}
#' @examples
#' \dontrun{
#' pybsnsing_use_python("~/pybsnsing/.venv/bin/python")
#' }
#' if (pybsnsing_available()) pybsnsing_config()
#' @export
pybsnsing_use_python <- function(python, required = TRUE) {
  python <- path.expand(python)
  if (!file.exists(python)) {
    stop(sprintf("Python executable '%s' does not exist", python), call. = FALSE)
  }
  if (reticulate::py_available(initialize = FALSE)) {
    current <- reticulate::py_config()$python
    if (normalizePath(current, mustWork = FALSE) != normalizePath(python, mustWork = FALSE)) {
      msg <- sprintf(paste("Python is already running in this session (%s);",
                           "restart R to use %s"), current, python)
      if (required) stop(msg, call. = FALSE) else warning(msg, call. = FALSE)
    }
    return(invisible(python))
  }
  reticulate::use_python(python, required = required)
  invisible(python)
}

#' @rdname pybsnsing_use_python
#' @export
pybsnsing_available <- function() {
  # import it and look for bsnsing(): a folder named "pybsnsing" in the
  # working directory (such as an installed R package) would otherwise pass
  # for the module as a namespace package
  isTRUE(tryCatch({
    module <- reticulate::import("pybsnsing", convert = FALSE)
    reticulate::py_has_attr(module, "bsnsing")
  }, error = function(e) FALSE))
}

#' @rdname pybsnsing_use_python
#' @export
pybsnsing_config <- function() {
  core <- .py_core()
  cfg <- reticulate::py_config()
  list(python = cfg$python, python_version = as.character(cfg$version),
       pybsnsing_version = reticulate::py_to_r(reticulate::py_get_attr(core, "__version__")),
       bundled_wheel = basename(.bundled_wheels()))
}

# Choose a Python before reticulate starts one (called from .onLoad; it never
# starts Python itself). The virtual environment r-pybsnsing is used only
# when install_pybsnsing() finished it.
.configure_python <- function() {
  .pyb$incomplete_env <- NULL
  if (nzchar(Sys.getenv("RETICULATE_PYTHON"))) return(invisible(NULL))
  python <- getOption("pybsnsing.python", Sys.getenv("PYBSNSING_PYTHON"))
  if (nzchar(python)) {
    try(reticulate::use_python(python, required = FALSE), silent = TRUE)
    return(invisible(NULL))
  }
  prefix <- tryCatch(.venv_path("r-pybsnsing"), error = function(e) NULL)
  if (!is.null(prefix) && dir.exists(prefix)) {
    env_python <- .env_python(prefix)
    if (.env_ready(prefix) && !is.null(env_python)) {
      try(reticulate::use_python(env_python, required = FALSE), silent = TRUE)
    } else {
      .pyb$incomplete_env <- prefix
    }
  }
  invisible(NULL)
}

.py_unavailable <- function(e) {
  incomplete <- if (!is.null(.pyb$incomplete_env)) {
    paste0("\nThe virtual environment ", .pyb$incomplete_env, " was not finished by ",
           "install_pybsnsing() and is not used: run install_pybsnsing() again.")
  }
  stop(paste0(
    "the Python module 'pybsnsing' cannot be imported: ", .clean_message(e),
    "\nPoint R at a Python that has it: set RETICULATE_PYTHON, call ",
    "pybsnsing_use_python(), or run install_pybsnsing().", incomplete), call. = FALSE)
}

# The Python modules (imported on first use).
.py_core <- function() {
  if (is.null(.pyb$core_ok)) {
    tryCatch(reticulate::py_get_attr(.pyb$core, "bsnsing"), error = .py_unavailable)
    tryCatch(reticulate::py_get_attr(.pyb$messages, "call_for_r"), error = function(e) {
      version <- tryCatch(reticulate::py_to_r(reticulate::py_get_attr(.pyb$core, "__version__")),
                          error = function(e2) "unknown")
      stop(sprintf(paste("the Python module pybsnsing (version %s, in %s) is older than",
                         "this R package needs; run install_pybsnsing() to install the",
                         "version it carries"),
                   version, reticulate::py_config()$python), call. = FALSE)
    })
    .pyb$core_ok <- TRUE
  }
  .pyb$core
}

.py_convert <- function() {
  .py_core()
  .pyb$convert
}

.py_messages <- function() {
  .py_core()
  .pyb$messages
}

# Python's exception text, without the traceback reticulate adds.
.clean_message <- function(e) {
  msg <- conditionMessage(e)
  err <- tryCatch(reticulate::py_last_error(), error = function(e2) NULL)
  value <- if (is.null(err)) NULL else err$value
  type <- if (is.null(err)) NULL else err$type
  if (length(value) == 1L && length(type) == 1L && nzchar(value) &&
      grepl(value, msg, fixed = TRUE)) {
    if (type == "KeyError") value <- sub("^'(.*)'$", "\\1", sub('^"(.*)"$', "\\1", value))
    if (type %in% c("ValueError", "KeyError", "TypeError")) return(value)
    return(paste0(type, ": ", value))
  }
  msg <- sub("\\s*Detailed traceback:.*$", "", msg)
  msg <- sub("\\s*Detected Python configuration:.*$", "", msg)
  msg <- sub("\\s*Run `reticulate::py_last_error\\(\\)` for details\\..*$", "", msg)
  msg <- sub("^Error in py_call_impl\\(callable, .*\\) :\\s*", "", msg)
  trimws(msg)
}

.r_stdout <- function(text) {
  if (inherits(text, "python.builtin.object")) text <- reticulate::py_to_r(text)
  cat(text)
  invisible(NULL)
}

.r_stderr <- function(text) {
  if (inherits(text, "python.builtin.object")) text <- reticulate::py_to_r(text)
  message(sub("\n$", "", text))
  invisible(NULL)
}

# Call a Python function: what it prints goes to R's console (stdout with
# cat(), stderr with message()), Python warnings become R warnings and Python
# exceptions become R errors (class "pybsnsing_error") with Python's message
# in R's words (pybsnsing.r.messages: max.rules, c("a", "b"), TRUE), raised
# from `call` (by default the exported function that called .pycall()).
.pycall <- function(fn, ..., call = sys.call(-1L)) {
  force(call)
  messages <- .py_messages()
  fail <- function(msg, type = NULL) {
    stop(structure(class = c("pybsnsing_error", "error", "condition"),
                   list(message = msg, call = call, python_type = type)))
  }
  # what Python prints reaches R line by line, as it is printed
  res <- tryCatch(messages$call_for_r(fn, ..., `_r_stdout` = .r_stdout,
                                      `_r_stderr` = .r_stderr),
                  error = function(e) fail(.clean_message(e)))
  out <- reticulate::py_to_r(reticulate::py_get_item(res, "stdout"))
  if (length(out) && nzchar(out)) cat(out)
  err_text <- reticulate::py_to_r(reticulate::py_get_item(res, "stderr"))
  if (length(err_text) && nzchar(err_text)) message(sub("\n$", "", err_text))
  for (w in reticulate::py_to_r(reticulate::py_get_item(res, "warnings"))) {
    warning(simpleWarning(w, call = call))
  }
  err <- reticulate::py_to_r(reticulate::py_get_item(res, "error"))
  if (!is.null(err)) {
    fail(err, reticulate::py_to_r(reticulate::py_get_item(res, "error_type")))
  }
  reticulate::py_get_item(res, "value")
}

# The Python object behind an R bsnsing / mbsnsing object. After saveRDS() /
# readRDS() the reference is gone; the model is then rebuilt from the R
# structure (tree, control and design information travel with the object).
.py_model <- function(object) {
  m <- attr(object, "py_model", exact = TRUE)
  if (!is.null(m) && inherits(m, "python.builtin.object") &&
      !reticulate::py_is_null_xptr(m)) {
    return(m)
  }
  .pycall(.py_convert()$model_from_r_parts, .r_parts(object), call = sys.call(-1L))
}
