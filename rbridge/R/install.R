# Installing the Python engine into a virtual environment (or conda
# environment) that the package then finds by itself.
#
# The R package carries the Python package it needs: `R CMD build` of a
# checkout whose rbridge/inst/python/ holds a pybsnsing wheel (.ci/test-r puts
# one there) installs it as system.file("python", package = "pybsnsing").
#
# An environment is only used once it is complete: install_pybsnsing() writes
# the file `pybsnsing-r-installing` into a new environment before installing
# and replaces it by `pybsnsing-r-ready` when pybsnsing imports; on failure it
# deletes the environment it created. .configure_python() uses r-pybsnsing
# only when it is ready.

.marker_ready <- "pybsnsing-r-ready"
.marker_installing <- "pybsnsing-r-installing"

#' Install the Python engine
#'
#' Creates a Python virtual environment (or conda environment) and installs
#' the Python package \code{pybsnsing} with its dependencies (numpy, pandas,
#' numba, formulaic) into it; then compiles pybsnsing's kernels once, so
#' that the first fit is fast. Afterwards the package uses that environment
#' by itself (for the default \code{envname}, in every new R session, unless
#' \env{RETICULATE_PYTHON} or \code{\link{pybsnsing_use_python}()} says
#' otherwise).
#'
#' By default the \code{pybsnsing} installed is the one this R package
#' carries (a wheel built with the package, matching it), so nothing but
#' pybsnsing's dependencies is downloaded, from PyPI or the index pip is set
#' up to use (\env{PIP_INDEX_URL}, a pip configuration file).
#'
#' If anything fails (no suitable Python, no network, a dependency that does
#' not install), the function stops with a message saying what went wrong and
#' what to do, and removes the environment it was creating: nothing
#' half-made is left for the package to pick up. An existing environment is
#' reused (and pybsnsing upgraded in it) unless \code{force = TRUE}.
#'
#' @param package what to install: \code{NULL} (the default) for the
#'   pybsnsing this package carries; a path to a pybsnsing wheel or to a
#'   source checkout of pybsnsing (the folder holding its
#'   \file{pyproject.toml}); or a pip requirement such as \code{"pybsnsing"}.
#' @param envname the name of the environment (made in 'reticulate''s folder
#'   of virtual environments, see \code{\link[reticulate]{virtualenv_root}})
#'   or a path to it.
#' @param method \code{"virtualenv"} or \code{"conda"}.
#' @param python_version the Python version for a new conda environment
#'   (default \code{"3.11"}); for a virtual environment, a Python of this
#'   version is looked for on the \env{PATH}.
#' @param python for \code{method = "virtualenv"}: the Python (3.10 or newer)
#'   to make the environment from. By default the first suitable one of
#'   \command{python3.13}, ..., \command{python3.10}, \command{python3} and
#'   \command{python} on the \env{PATH}.
#' @param force remove an existing environment of that name first.
#' @param warmup compile pybsnsing's kernels after installing (about half a
#'   minute once; otherwise the first fits pay it).
#' @param pip_options further options for \command{pip install}, e.g.
#'   \code{c("--index-url", "https://mirror.example/simple")}.
#' @param quiet do not print progress messages.
#' @return The path of the environment's Python, invisibly.
#' @examples
#' \dontrun{
#' install_pybsnsing()                       # the pybsnsing this package carries
#' install_pybsnsing("~/src/pybsnsing")      # a source checkout
#' install_pybsnsing(envname = "~/venvs/pyb", python = "/usr/bin/python3.11")
#' }
#' @export
install_pybsnsing <- function(package = NULL, envname = "r-pybsnsing",
                              method = c("virtualenv", "conda"), python_version = NULL,
                              python = NULL, force = FALSE, warmup = TRUE,
                              pip_options = character(), quiet = FALSE) {
  method <- match.arg(method)
  say <- function(...) if (!quiet) message(...)
  fail <- function(...) stop(simpleError(paste0(...), call = NULL))
  package <- .resolve_package(package, fail)
  # the environment: where, and in which state
  if (method == "virtualenv") {
    prefix <- .venv_path(envname)
  } else {
    prefix <- .conda_prefix(envname)
  }
  exists <- !is.null(prefix) && dir.exists(prefix)
  if (exists && (isTRUE(force) || file.exists(file.path(prefix, .marker_installing)))) {
    say("Removing the environment ", prefix,
        if (!isTRUE(force)) " (an earlier installation into it did not finish)")
    .remove_env(prefix, method, envname)
    exists <- FALSE
  }
  created <- FALSE
  ok <- FALSE
  on.exit(if (created && !ok) .remove_env(prefix, method, envname), add = TRUE)
  if (!exists) {
    if (method == "virtualenv") {
      starter <- .find_python(python, python_version, fail)
      say("Creating the virtual environment ", prefix, " from ", starter$python,
          " (Python ", starter$version, ")")
      res <- tryCatch(utils::capture.output(
        reticulate::virtualenv_create(prefix, python = starter$python, packages = FALSE)),
        error = function(e) e)
      created <- dir.exists(prefix)
      if (inherits(res, "error") || !created) {
        fail("could not create a virtual environment at ", prefix, " with ", starter$python,
             ": ", if (inherits(res, "error")) conditionMessage(res) else "no folder made",
             "\nOn Debian/Ubuntu the venv module is in the package python3-venv ",
             "(apt install python3-venv); or give python = a Python 3.10+ that has it.")
      }
    } else {
      version <- if (is.null(python_version)) "3.11" else python_version
      say("Creating the conda environment ", envname, " (Python ", version, ")")
      res <- tryCatch(reticulate::conda_create(envname, packages = c(paste0("python=", version),
                                                                     "pip")),
                      error = function(e) e)
      prefix <- .conda_prefix(envname)
      created <- !is.null(prefix) && dir.exists(prefix)
      if (inherits(res, "error") || !created) {
        fail("could not create the conda environment '", envname, "': ",
             if (inherits(res, "error")) conditionMessage(res) else "no environment made",
             "\nCheck that conda works (reticulate::conda_binary()) and can reach its ",
             "channels, or use method = \"virtualenv\".")
      }
    }
    writeLines(format(Sys.time()), file.path(prefix, .marker_installing))
  }
  env_python <- .env_python(prefix, method, envname)
  if (is.null(env_python)) fail("no Python found in the environment ", prefix)
  # pip: pybsnsing and its dependencies, failing fast
  say("Installing ", basename(package), " and its dependencies (numpy, pandas, numba, ",
      "formulaic) into ", prefix, " ...")
  log <- tempfile("pip-", fileext = ".log")
  args <- c("-m", "pip", "install", "--disable-pip-version-check", "--no-input",
            "--retries", "1", "--timeout", "30", pip_options, shQuote(package))
  status <- system2(env_python, args, stdout = log, stderr = log)
  if (!identical(as.integer(status), 0L)) {
    out <- if (file.exists(log)) readLines(log, warn = FALSE) else character(0)
    errors <- grep("^ERROR|error:|Could not|No matching distribution|Failed to",
                   out, value = TRUE)
    detail <- utils::tail(if (length(errors)) errors else out, 6L)
    fail("pip could not install ", basename(package), " and its Python dependencies into ",
         prefix, " (exit status ", status, "):\n  ", paste(detail, collapse = "\n  "),
         "\nWhat to do: check that this computer can reach PyPI (or set PIP_INDEX_URL ",
         "to a package index it can reach, or pass pip_options), then run ",
         "install_pybsnsing() again; or install pybsnsing yourself and point R at that ",
         "Python with RETICULATE_PYTHON or pybsnsing_use_python().",
         if (created) "\nThe unfinished environment has been removed." else "",
         "\nThe full pip log: ", log)
  }
  check <- suppressWarnings(system2(env_python, c("-c", shQuote(
    "import pybsnsing, pybsnsing.r.messages; print(pybsnsing.__version__)")),
    stdout = TRUE, stderr = TRUE))
  if (!is.null(attr(check, "status"))) {
    fail("pybsnsing was installed into ", prefix, " but does not import:\n  ",
         paste(utils::tail(check, 6L), collapse = "\n  "))
  }
  version <- utils::tail(check, 1L)
  if (isTRUE(warmup)) {
    say("Compiling pybsnsing's kernels (once per installation; about half a minute) ...")
    w <- .warmup_python(env_python)
    if (!isTRUE(w)) {
      warning("pybsnsing's kernels could not be compiled ahead (the first fit will do it): ",
              w, call. = FALSE)
    }
  }
  writeLines(c(paste("pybsnsing", version), format(Sys.time())),
             file.path(prefix, .marker_ready))
  unlink(file.path(prefix, .marker_installing))
  ok <- TRUE
  say("pybsnsing ", version, " is installed in ", prefix, ".")
  .use_installed(env_python, say)
  invisible(env_python)
}

# Compile (or load) pybsnsing's kernels in `python` (pybsnsing.warmup(),
# without the MurTree kernels, which R does not use): TRUE, or the error text.
.warmup_python <- function(python) {
  code <- paste("import pybsnsing",
                "w = getattr(pybsnsing, 'warmup', None)",
                "w and w(optimal=False)", sep = "; ")
  out <- suppressWarnings(system2(python, c("-c", shQuote(code)), stdout = TRUE,
                                  stderr = TRUE))
  if (is.null(attr(out, "status"))) TRUE else paste(utils::tail(out, 3L), collapse = " ")
}

# The package to pip-install: the bundled wheel by default.
.resolve_package <- function(package, fail) {
  if (is.null(package)) {
    wheels <- .bundled_wheels()
    if (length(wheels) == 0L) {
      fail("this build of the R package pybsnsing carries no pybsnsing wheel ",
           "(it was built from a checkout without rbridge/inst/python/*.whl).\n",
           "Give the Python package yourself: install_pybsnsing(\"path/to/pybsnsing\") ",
           "for a source checkout or a .whl file; or rebuild the R package after ",
           "`python -m pip wheel --no-deps . -w rbridge/inst/python` in the checkout.")
    }
    return(normalizePath(wheels[length(wheels)]))
  }
  if (!is.character(package) || length(package) != 1L || is.na(package) || !nzchar(package)) {
    fail("'package' must be NULL, a path or a pip requirement, not ", .show_value(package))
  }
  path <- path.expand(package)
  if (dir.exists(path)) {
    if (!file.exists(file.path(path, "pyproject.toml"))) {
      fail("the folder ", path, " has no pyproject.toml: give the folder of a pybsnsing ",
           "checkout (or a .whl file)")
    }
    return(normalizePath(path))
  }
  if (grepl("\\.whl$", path)) {
    if (!file.exists(path)) fail("the wheel ", path, " does not exist")
    return(normalizePath(path))
  }
  package
}

# The pybsnsing wheels this installation of the R package carries.
.bundled_wheels <- function() {
  dir <- system.file("python", package = "pybsnsing")
  if (!nzchar(dir)) return(character(0))
  sort(list.files(dir, pattern = "^pybsnsing-.*\\.whl$", full.names = TRUE))
}

# A Python (3.10 or newer, with venv) to make a virtual environment from.
.find_python <- function(python, python_version, fail) {
  probe <- function(exe) {
    exe <- unname(Sys.which(path.expand(exe)))
    if (!nzchar(exe)) return(NULL)
    out <- suppressWarnings(tryCatch(system2(exe, c("-c", shQuote(paste(
      "import sys, venv, ensurepip",
      "print('%d.%d' % sys.version_info[:2])", sep = "; "))), stdout = TRUE, stderr = TRUE),
      error = function(e) structure("", status = 1L)))
    if (!is.null(attr(out, "status")) || length(out) == 0L) {
      return(list(python = exe, version = NA, ok = FALSE, why = utils::tail(out, 1L)))
    }
    v <- utils::tail(out, 1L)
    ok <- package_version(v) >= "3.10" &&
      (is.null(python_version) || startsWith(v, as.character(python_version)))
    list(python = exe, version = v, ok = ok, why = if (!ok) paste("it is Python", v))
  }
  if (!is.null(python)) {
    p <- probe(python)
    if (is.null(p)) fail("the Python '", python, "' does not exist")
    if (!isTRUE(p$ok)) {
      fail("cannot make a virtual environment with ", p$python, ": ",
           if (is.na(p$version)) paste("it lacks the venv module (", p$why, ")") else p$why,
           "; pybsnsing needs Python 3.10 or newer with the venv module ",
           "(Debian/Ubuntu: apt install python3 python3-venv)")
    }
    return(p)
  }
  candidates <- c(if (!is.null(python_version)) paste0("python", python_version),
                  paste0("python3.", 13:10), "python3", "python")
  seen <- list()
  for (exe in candidates) {
    p <- probe(exe)
    if (is.null(p)) next
    if (isTRUE(p$ok)) return(p)
    seen[[length(seen) + 1L]] <- sprintf("%s (%s)", p$python,
                                         if (is.na(p$version)) "no venv module" else p$why)
  }
  fail("no Python 3.10 or newer with the venv module was found on the PATH",
       if (length(seen)) paste0(" (found: ", paste(unlist(seen), collapse = ", "), ")"),
       ". Install one (Debian/Ubuntu: apt install python3 python3-venv; or ",
       "https://www.python.org/downloads/) or give python = its path.")
}

.conda_prefix <- function(envname) {
  envs <- tryCatch(reticulate::conda_list(), error = function(e) NULL)
  if (grepl("/", envname, fixed = TRUE)) return(path.expand(envname))
  if (is.null(envs) || !envname %in% envs$name) return(NULL)
  py <- envs$python[envs$name == envname][1]
  if (.Platform$OS.type == "windows") dirname(py) else dirname(dirname(py))
}

.env_python <- function(prefix, method = NULL, envname = NULL) {
  candidates <- file.path(prefix, c("bin/python", "bin/python3", "Scripts/python.exe",
                                    "python.exe"))
  hit <- candidates[file.exists(candidates)]
  if (length(hit)) hit[1] else NULL
}

.remove_env <- function(prefix, method, envname) {
  if (method == "conda" && !grepl("/", envname, fixed = TRUE)) {
    try(reticulate::conda_remove(envname), silent = TRUE)
  }
  if (dir.exists(prefix)) unlink(prefix, recursive = TRUE, force = TRUE)
  invisible(!dir.exists(prefix))
}

# After an installation: use the new Python in this session if possible.
.use_installed <- function(env_python, say) {
  if (reticulate::py_available(initialize = FALSE)) {
    current <- reticulate::py_config()$python
    if (normalizePath(current, mustWork = FALSE) != normalizePath(env_python, mustWork = FALSE)) {
      say("This R session already runs another Python (", current, "): restart R to use ",
          "the new environment.")
    }
    return(invisible(FALSE))
  }
  if (nzchar(Sys.getenv("RETICULATE_PYTHON"))) {
    say("Note: RETICULATE_PYTHON (", Sys.getenv("RETICULATE_PYTHON"), ") takes precedence; ",
        "unset it to use the new environment.")
    return(invisible(FALSE))
  }
  reticulate::use_python(env_python, required = FALSE)
  .pyb$core_ok <- NULL
  invisible(TRUE)
}

# Is `prefix` a finished installation (made by install_pybsnsing())?
.env_ready <- function(prefix) {
  !is.null(prefix) && file.exists(file.path(prefix, .marker_ready)) &&
    !file.exists(file.path(prefix, .marker_installing))
}

# Where reticulate keeps the virtual environment `envname` (a name, or a path
# when it contains a slash).
.venv_path <- function(envname) {
  if (grepl("[/\\\\]", envname) || startsWith(envname, "~") || startsWith(envname, ".")) {
    return(normalizePath(path.expand(envname), mustWork = FALSE))
  }
  file.path(path.expand(reticulate::virtualenv_root()), envname)
}
