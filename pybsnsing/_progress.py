"""Progress bars of a fit (tqdm), shown only where tqdm is importable.

``bsnsing(..., progress=...)``:

* ``False`` (default): nothing;
* ``True``: a bar on standard error, per node grown (two classes) or per class
  tree (three or more, with the nodes of the tree being grown); needs tqdm and
  raises :class:`~pybsnsing.errors.PybsnsingImportError` naming
  ``pip install "pybsnsing[progress]"`` when it is missing;
* ``"auto"`` (the command line's default): a bar when tqdm is importable and
  standard error is a terminal, shown only once the fit has taken a second
  (short fits print nothing); otherwise nothing, never an error.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["check_progress", "fit_progress"]


def check_progress(progress: Any) -> Any:
    """Validate the ``progress`` argument (``False``, ``True`` or ``"auto"``)."""
    if isinstance(progress, str):
        if progress != "auto":
            from .errors import PybsnsingValueError

            raise PybsnsingValueError(
                f"progress must be True, False or 'auto', got {progress!r}")
        return progress
    if progress is None:
        return False
    try:
        return bool(progress)
    except Exception as exc:  # e.g. pandas.NA
        from .errors import PybsnsingTypeError

        raise PybsnsingTypeError(
            f"progress must be True, False or 'auto', got {progress!r}") from exc


def _tqdm(progress: Any) -> Any:
    """The tqdm class to use, or None for no bar."""
    if progress is False:
        return None
    if progress == "auto":
        try:
            from tqdm.auto import tqdm
        except Exception:
            return None
        return tqdm
    from ._optional import require

    return require("progress", "a progress bar (progress=True)", module="tqdm.auto").tqdm


class _Bar:
    """Callbacks for the tree grower: ``node(n_nodes)`` and ``tree_done()``."""

    def __init__(self, bar: Any, n_trees: int) -> None:
        self.bar = bar
        self.n_trees = n_trees
        self.tree = 0
        self.nodes = 1

    def node(self, n_nodes: int) -> None:
        if self.n_trees == 1:
            self.bar.update(n_nodes - self.nodes)
        else:
            self.bar.set_postfix_str(f"tree {self.tree + 1}: {n_nodes} nodes", refresh=False)
            self.bar.refresh()
        self.nodes = n_nodes

    def tree_done(self) -> None:
        self.tree += 1
        self.nodes = 1
        if self.n_trees > 1:
            self.bar.update(1)


@contextmanager
def fit_progress(progress: Any, n_trees: int) -> Iterator[Callable[..., Any] | None]:
    """A context giving the per-node callback for :func:`pybsnsing.tree.grow_tree`
    (``callback(n_nodes)``; ``callback.tree_done()`` after each class tree), or
    None when no bar is shown."""
    tqdm = _tqdm(check_progress(progress))
    if tqdm is None:
        yield None
        return
    kw: dict[str, Any] = {"leave": False, "dynamic_ncols": True}
    if progress == "auto":
        kw.update(delay=1.0, disable=None)  # long fits, on a terminal only
    if n_trees > 1:
        bar = tqdm(total=n_trees, desc="class trees", unit="tree", **kw)
    else:
        bar = tqdm(total=None, initial=1, desc="growing the tree", unit=" nodes", **kw)
    state = _Bar(bar, n_trees)

    def callback(n_nodes: int) -> None:
        state.node(n_nodes)

    callback.tree_done = state.tree_done  # type: ignore[attr-defined]
    try:
        yield callback
    finally:
        bar.refresh()  # the final count, however short the fit (then cleared: leave=False)
        bar.close()
