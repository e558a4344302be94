# bscontrol()'s arguments, defaults and range corrections are those of the one control
# table of the Python package (pybsnsing.control.CONTROL_PARAMS and BsControl).

py_control_table <- function() {
  reticulate::py_run_string(paste(
    "from pybsnsing.control import CONTROL_PARAMS",
    "rows = [{'name': p.name, 'r_name': p.r_name, 'default': p.default}",
    "        for p in CONTROL_PARAMS if p.in_r]",
    sep = "\n"), local = TRUE, convert = TRUE)$rows
}

test_that("formals(bscontrol) are the Python control table's names and defaults", {
  skip_if_no_pybsnsing()
  rows <- py_control_table()
  r_names <- vapply(rows, function(p) p$r_name, "")
  expect_setequal(names(formals(bscontrol)), r_names)
  defaults <- bscontrol()
  for (p in rows) {
    want <- p$default
    got <- defaults[[p$r_name]]
    if (is.numeric(want)) want <- as.numeric(want)
    if (is.numeric(got)) got <- as.numeric(got)
    expect_identical(got, want, label = p$r_name)
  }
})

test_that("bscontrol() corrects out-of-range values as pybsnsing's BsControl does", {
  skip_if_no_pybsnsing()
  ctl <- reticulate::import("pybsnsing.control", convert = TRUE)
  warnings_mod <- reticulate::import("warnings")
  rows <- py_control_table()
  py_name <- stats::setNames(vapply(rows, function(p) p$name, ""),
                             vapply(rows, function(p) p$r_name, ""))
  cases <- list(list(bin.size = 0), list(nseg.numeric = 1, num2factor = 7),
                list(nseg.factor = 2), list(num2factor = 100), list(stop.prob = 2),
                list(node.size = -1), list(greedy.level = -0.5), list(greedy.level = 1.5),
                list(n0n1.cap = 0), list(n0n1.cap = -7))
  for (arg in cases) {
    seen <- character(0)
    r_ctl <- withCallingHandlers(do.call(bscontrol, arg), warning = function(w) {
      seen <<- c(seen, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    py_obj <- local({
      ctx <- warnings_mod$catch_warnings()
      ctx$`__enter__`()
      on.exit(ctx$`__exit__`(NULL, NULL, NULL))
      warnings_mod$simplefilter("ignore")
      do.call(ctl$bscontrol, arg)
    })
    for (nm in names(arg)) {
      expect_true(any(grepl(nm, seen, fixed = TRUE)), label = paste("a warning names", nm))
      py_value <- reticulate::py_get_attr(py_obj, py_name[[nm]])
      expect_identical(as.numeric(r_ctl[[nm]]), as.numeric(reticulate::py_to_r(py_value)),
                       label = sprintf("%s = %s", nm, format(arg[[nm]])))
    }
  }
})
