# Fuzz the R package pybsnsing with N generated odd/hostile inputs; print
# counts per outcome (issue 12).
#
#   Rscript bench/fuzz_r.R 300                  # seeds 0..299
#   Rscript bench/fuzz_r.R 100 --start 1000 --batch 25 --timeout 300
#   Rscript bench/fuzz_r.R 50 --entry formula   # one entry point only
#
# The cases come from rbridge/tests/testthat/helper-fuzz.R (bad data frames,
# odd names and levels, hostile formulas, wrong-type and out-of-range
# controls, odd newdata, plot files, saveRDS round trips, ... through
# bsnsing(), predict(), binarize(), bslearn(), binarize.y(), plot(),
# ROC_func(), import_external_rules(), binarize.numeric/factor()). Outcomes:
# correct / clean error / unclean error / unclear error / silent wrong /
# hang. Batches of cases run in worker Rscript processes (the installed
# package, the Python of RETICULATE_PYTHON); a batch that does not finish
# within --timeout seconds is re-run one case at a time, and the case that
# does not finish counts as a hang. Every case that is not "correct" or
# "clean error" is listed with its seed; exit status 1 if there was one.
#
# Needs the package installed (bash .ci/test-r puts it in .rlib:
# R_LIBS=.rlib) and RETICULATE_PYTHON set (default: .venv/bin/python).

args <- commandArgs(trailingOnly = TRUE)
script <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])
root <- normalizePath(file.path(dirname(script), ".."))
helper <- file.path(root, "rbridge", "tests", "testthat", "helper-fuzz.R")

opt <- function(name, default) {
  i <- match(paste0("--", name), args)
  if (is.na(i)) default else args[i + 1L]
}

if (identical(args[1], "--worker")) {
  # worker: run the seeds given, one result line per case, written at once
  out <- args[2]
  entry <- if (args[3] == "-") NULL else args[3]
  seeds <- as.integer(args[-(1:3)])
  suppressPackageStartupMessages(library(pybsnsing))
  source(helper, local = TRUE)
  grDevices::pdf(NULL)
  for (seed in seeds) {
    case <- fuzz_case(seed, entry)
    t0 <- Sys.time()
    res <- fuzz_run(case)
    clean <- function(s) gsub("[\t\n\r]+", " ", s)
    cat(seed, res$kind, clean(case$describe), clean(substr(res$detail, 1, 400)),
        format(as.numeric(Sys.time() - t0, units = "secs"), digits = 3),
        sep = "\t", file = out, append = TRUE)
    cat("\n", file = out, append = TRUE)
  }
  quit(status = 0)
}

if (!requireNamespace("pybsnsing", quietly = TRUE)) {
  # not a finding of the fuzzer: say so instead of failing every case
  cat("The R package pybsnsing is not installed (bash .ci/test-r installs it into .rlib;",
      "run with R_LIBS=.rlib)\n", file = stderr())
  quit(status = 3)
}
if (!nzchar(Sys.getenv("RETICULATE_PYTHON"))) {
  Sys.setenv(RETICULATE_PYTHON = file.path(root, ".venv", "bin", "python"))
}
n <- if (length(args) && !startsWith(args[1], "--")) as.integer(args[1]) else 200L
start <- as.integer(opt("start", 0))
batch <- as.integer(opt("batch", 40))
timeout <- as.numeric(opt("timeout", 600))
entry <- opt("entry", "-")
seeds <- seq.int(start, length.out = n)
rscript <- file.path(R.home("bin"), "Rscript")
has_timeout <- nzchar(Sys.which("timeout"))

run_batch <- function(seeds, limit) {
  out <- tempfile(fileext = ".tsv")
  file.create(out)
  cmd <- if (has_timeout) "timeout" else rscript
  cargs <- c(if (has_timeout) c("-k", "10", as.character(limit), rscript),
             shQuote(script), "--worker", out, entry, seeds)
  status <- system2(cmd, cargs, stdout = FALSE, stderr = FALSE)
  lines <- readLines(out, warn = FALSE)
  lines <- lines[nzchar(lines)]
  rows <- strsplit(lines, "\t", fixed = TRUE)
  done <- data.frame(seed = as.integer(vapply(rows, `[`, "", 1)),
                     kind = vapply(rows, `[`, "", 2), describe = vapply(rows, `[`, "", 3),
                     detail = vapply(rows, function(r) if (length(r) >= 4) r[4] else "", ""),
                     stringsAsFactors = FALSE)
  list(done = done, status = status)
}

results <- list()
t0 <- Sys.time()
for (chunk in split(seeds, ceiling(seq_along(seeds) / batch))) {
  r <- run_batch(chunk, timeout)
  results[[length(results) + 1L]] <- r$done
  left <- setdiff(chunk, r$done$seed)
  if (length(left)) {
    # the worker hung or died: the first unfinished case is the culprit; run
    # the rest again, each alone
    for (s in left) {
      r1 <- run_batch(s, min(timeout, 300))
      if (nrow(r1$done)) {
        results[[length(results) + 1L]] <- r1$done
      } else {
        kind <- if (r1$status %in% c(124L, 137L)) "hang" else "unclean error"
        results[[length(results) + 1L]] <- data.frame(
          seed = s, kind = kind, describe = paste("seed", s),
          detail = sprintf("worker exit status %d", r1$status), stringsAsFactors = FALSE)
      }
    }
  }
  done <- sum(vapply(results, nrow, 0L))
  cat(sprintf("\r%d/%d cases (%.0f s)", done, n, as.numeric(Sys.time() - t0, units = "secs")),
      file = stderr())
}
cat("\n", file = stderr())
res <- do.call(rbind, results)
res <- res[order(res$seed), ]
source(helper, local = TRUE)
counts <- table(factor(res$kind, levels = fuzz_outcomes))
cat(sprintf("R package fuzz: %d cases (seeds %d..%d)%s\n", nrow(res), start, start + n - 1L,
            if (entry != "-") paste(", entry", entry) else ""))
for (k in names(counts)) cat(sprintf("  %-14s %5d\n", k, counts[[k]]))
by_entry <- table(sub("^seed [0-9]+: ([^,]+),.*$", "\\1", res$describe),
                  factor(res$kind, levels = fuzz_outcomes))
print(by_entry[, colSums(by_entry) > 0, drop = FALSE])
bad <- res[!res$kind %in% c("correct", "clean error"), ]
if (nrow(bad)) {
  cat("\nCases that are not a correct result or a clean error:\n")
  for (i in seq_len(nrow(bad))) {
    cat(sprintf("- [%s] %s\n    %s\n", bad$kind[i], bad$describe[i], bad$detail[i]))
  }
}
cat(sprintf("(%.0f s)\n", as.numeric(Sys.time() - t0, units = "secs")))
quit(status = if (nrow(bad)) 1L else 0L)
