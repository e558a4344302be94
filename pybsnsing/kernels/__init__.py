"""pybsnsing's numba kernels (compiled on first use, cached on disk with ``cache=True``).

The first process that needs a kernel compiles it for this machine and writes the
machine code to numba's cache (next to the package, or numba's user-wide cache
directory when the package folder is read-only, or ``NUMBA_CACHE_DIR``); later
processes load it in milliseconds. Importing this package registers a listener on
numba's compile events that announces, once per process and on standard error, that
pybsnsing's kernels are being compiled (set ``PYBSNSING_QUIET_COMPILE=1`` to
silence it). ``pybsnsing warmup`` (or :func:`pybsnsing.warmup`) compiles them all
ahead of use.
"""

from __future__ import annotations

import os
import sys

__all__ = ["COMPILE_SECONDS", "compile_message"]

#: measured compile time (CPU seconds on the project's 2-core machine, empty cache) of
#: the kernels a first use needs: a default two-class fit, and the MurTree solver
COMPILE_SECONDS = {"tree": 7, "optimal": 10}

_GROUPS = {"binarize": "tree", "enum": "tree", "packing": "tree", "rpart": "tree", "sort": "tree",
           "murtree": "optimal",
           "dpdt": "optimal"}
_announced: set[str] = set()


def compile_message(group: str) -> str:
    """The line printed before the first compile of a kernel group in a process."""
    what = "MurTree kernels" if group == "optimal" else "kernels"
    return (f"pybsnsing: compiling pybsnsing's {what} for this machine (once per install, "
            f"about {COMPILE_SECONDS.get(group, 10)} s; `pybsnsing warmup` compiles them "
            "all ahead)...")


def _install_listener() -> None:
    from numba.core import event
    from numba.core.dispatcher import LiftedCode

    class _Announce(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            disp = (ev.data or {}).get("dispatcher")
            mod = getattr(getattr(disp, "py_func", None), "__module__", None) or ""
            # an object-mode block (the MurTree clock) cannot be cached: numba rebuilds it
            # in every process, in milliseconds; it is not the compile the notice is about
            if not mod.startswith(__name__ + ".") or isinstance(disp, LiftedCode):
                return
            group = _GROUPS.get(mod.rsplit(".", 1)[1], "tree")
            if group in _announced or os.environ.get("PYBSNSING_QUIET_COMPILE"):
                return
            _announced.add(group)
            try:
                print(compile_message(group), file=sys.stderr, flush=True)
            except Exception:  # a closed or missing stderr must not break a fit
                pass

        def on_end(self, ev: event.Event) -> None:
            pass

    event.register("numba:compile", _Announce())


_install_listener()
