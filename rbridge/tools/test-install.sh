#!/usr/bin/env bash
# install_pybsnsing() from a fresh R library, without pybsnsing on PyPI:
#   1. the built R package (which carries the pybsnsing wheel) is installed
#      into an empty R library;
#   2. with an unreachable package index, install_pybsnsing() fails fast with a
#      message saying what to do and leaves no environment behind;
#   3. an environment left half-made (an interrupted installation) is not used
#      by library(pybsnsing), and install_pybsnsing() replaces it;
#   4. install_pybsnsing() installs the carried wheel with its dependencies
#      (from the package index pip is set up with) into the virtual
#      environment r-pybsnsing, and a new R session uses it by itself: the
#      README example, predictions and plots (device, png, pdf) work.
# Everything happens under a temporary folder (RETICULATE_VIRTUALENV_ROOT).
#
# Usage: bash rbridge/tools/test-install.sh path/to/pybsnsing_<version>.tar.gz
set -euo pipefail
tarball=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")/.." && pwd)     # rbridge/
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
lib="$tmp/lib"
mkdir -p "$lib" "$tmp/venvs" "$tmp/work"
unset RETICULATE_PYTHON PYBSNSING_PYTHON RETICULATE_PYTHON_ENV || true
export R_LIBS="$lib" R_LIBS_USER="$tmp/no-user-library"
export RETICULATE_VIRTUALENV_ROOT="$tmp/venvs" WORKON_HOME="$tmp/venvs"
export PYBSNSING_REQUIRE_PYTHON=
cd "$tmp/work"
env_dir="$tmp/venvs/r-pybsnsing"
step() { echo "== install test: $*"; }
elapsed() { echo "   ($(( $(date +%s) - $1 )) s)"; }

step "R package into an empty library"
t=$(date +%s)
R CMD INSTALL --no-multiarch -l "$lib" "$tarball" >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log"; exit 1; }
elapsed "$t"

step "no reachable package index: a fast, clear failure, nothing left behind"
t=$(date +%s)
PIP_CONFIG_FILE=/dev/null PIP_INDEX_URL=http://127.0.0.1:9/simple PIP_EXTRA_INDEX_URL= \
PIP_FIND_LINKS= PIP_NO_CACHE_DIR=1 Rscript -e '
  library(pybsnsing)
  stopifnot(identical(find.package("pybsnsing"), file.path(Sys.getenv("R_LIBS"), "pybsnsing")))
  w <- list.files(system.file("python", package = "pybsnsing"), pattern = "[.]whl$")
  if (length(w) != 1L) stop("the R package carries no pybsnsing wheel")
  cat("   carries", w, "\n")
  t0 <- Sys.time()
  e <- tryCatch(install_pybsnsing(warmup = FALSE), error = function(e) e)
  took <- as.numeric(Sys.time() - t0, units = "secs")
  stopifnot(inherits(e, "error"))
  msg <- conditionMessage(e)
  cat("   message:", gsub("\n", "\n   ", msg), "\n")
  stopifnot(grepl("pip could not install", msg), grepl("What to do", msg),
            grepl("has been removed", msg), !grepl("Traceback", msg))
  stopifnot(!dir.exists(file.path(Sys.getenv("RETICULATE_VIRTUALENV_ROOT"), "r-pybsnsing")))
  cat(sprintf("   failed after %.1f s\n", took))
  stopifnot(took < 90)'
[ ! -e "$env_dir" ] || { echo "a half-made environment was left behind" >&2; exit 1; }
elapsed "$t"

step "an interrupted installation is not used, and is replaced"
t=$(date +%s)
python3 -m venv "$env_dir"
date >"$env_dir/pybsnsing-r-installing"
Rscript -e '
  library(pybsnsing)
  stopifnot(!is.null(pybsnsing:::.pyb$incomplete_env))
  e <- tryCatch(bsnsing(Species ~ ., data = iris), error = function(e) e)
  stopifnot(inherits(e, "error"))
  cat("   message:", gsub("\n", "\n   ", conditionMessage(e)), "\n")
  stopifnot(grepl("was not finished by install_pybsnsing", conditionMessage(e)))'
elapsed "$t"

step "install_pybsnsing(): the carried wheel and its dependencies"
t=$(date +%s)
# warmup = FALSE to save time here (the first fit below compiles what it
# needs); the warm-up itself is tested in test-api.R
Rscript -e '
  library(pybsnsing)
  py <- install_pybsnsing(warmup = FALSE)
  env <- file.path(Sys.getenv("RETICULATE_VIRTUALENV_ROOT"), "r-pybsnsing")
  stopifnot(identical(normalizePath(dirname(py)), normalizePath(file.path(env, "bin"))),
            file.exists(file.path(env, "pybsnsing-r-ready")),
            !file.exists(file.path(env, "pybsnsing-r-installing")))
  # usable at once in this session
  bs <- bsnsing(Species ~ ., data = iris)
  stopifnot(inherits(bs, "mbsnsing"))'
elapsed "$t"

step "a new R session finds the environment by itself; README example, plots"
t=$(date +%s)
Rscript -e '
  library(pybsnsing)
  cfg <- pybsnsing_config()
  cat("   python:", cfg$python, " pybsnsing", cfg$pybsnsing_version, "\n")
  env <- file.path(Sys.getenv("RETICULATE_VIRTUALENV_ROOT"), "r-pybsnsing")
  stopifnot(identical(normalizePath(dirname(cfg$python)), normalizePath(file.path(env, "bin"))))
  t0 <- Sys.time()
  bs <- bsnsing(Class ~ ., data = BreastCancer)
  cat(sprintf("   first fit: %.1f s\n", as.numeric(Sys.time() - t0, units = "secs")))
  print(bs)
  p <- predict(bs, BreastCancer, type = "prob")
  stopifnot(length(p) == nrow(BreastCancer), all(p >= 0 & p <= 1))
  grDevices::png("device.png", width = 900, height = 600)
  plot(bs)
  grDevices::dev.off()
  plot(bs, file = "tree.png")
  plot(bs, file = "tree.pdf")
  stopifnot(file.size("device.png") > 5000, file.size("tree.png") > 5000,
            file.size("tree.pdf") > 1000)'
# the first R example of rbridge/README.md, verbatim, as a new user pastes it
Rscript -e '
  lines <- readLines(file.path(commandArgs(TRUE)[1], "README.md"))
  start <- grep("^```r", lines)[1]
  end <- start + grep("^```$", lines[-seq_len(start)])[1]
  code <- lines[(start + 1):(end - 1)]
  cat("   README example:", length(code), "lines\n")
  source(exprs = parse(text = code), echo = TRUE, max.deparse.length = Inf)
  stopifnot(file.size("tree.pdf") > 1000)' "$here"
elapsed "$t"
echo "== install test: passed"
