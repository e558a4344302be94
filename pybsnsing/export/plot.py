"""Drawing a bsnsing tree with matplotlib.

:func:`plot_tree` draws what R bsnsing's LaTeX drawing (``plot.bsnsing``)
shows, as a matplotlib figure:

* every node is a numbered circle. Leaves are filled with the colour of their
  class (``node_class``: 0 or 1, i.e. ``ycode[0]`` or ``ycode[1]``); split
  nodes are white with a rim of their majority class's colour and a number in
  ``rule_color``;
* under a split node, its rule, one question per line, ``or`` between them;
  the left edge (``yes``) leads to the rows answering yes, the right edge
  (``no``) to the others;
* under a leaf, its class label, its counts ``n1``/``n0`` and the probability
  of the class coded 1 (``ycode[1]``, what ``predict(type="prob")`` returns).

Layout: leaves are placed left to right in their depth-first order, one
column each; a split node sits midway between its two children; rows are
depths. Unless ``figsize`` is given, the figure grows with the number of
leaves and depth, a column being as wide as the widest text needs, so wide
trees stay readable; past ``max_width`` inches the columns and the fonts
shrink together.

Multi-class models (one tree per class against ``all.other``): by default one
figure with one panel per class tree, stacked top to bottom in ``ylevels``
order, each titled ``Tree k: <class> vs. all.other``. ``tree=k`` (0-based)
draws just that class tree; for one file per tree, call
``plot_tree(model, f"tree{k}.png", tree=k)`` for each ``k``.

With ``file`` the figure is drawn on a matplotlib ``Figure`` that is not
registered with pyplot (no GUI backend is touched: effectively Agg) and saved
in the format of the file's extension (``.png``, ``.svg``, ``.pdf`` or any
other format matplotlib's ``savefig`` knows) at ``dpi`` dots per inch, without
cropping, so a PNG is ``figsize * dpi`` pixels. Without ``file`` and ``ax``, the
figure is made with pyplot (shown by ``plt.show()`` or in a notebook).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .latex import NodeView, label_text, preorder, prob1, select_trees

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_tree"]

#: Width of an average character, as a share of the font size (DejaVu Sans).
_CHAR_WIDTH = 0.6
#: Line height, as a share of the font size.
_LINE_HEIGHT = 1.3


@dataclass
class _Layout:
    """Positions and texts of one tree, in column (x) and depth (y) units."""

    nodes: list[NodeView]
    x: dict[int, float]
    texts: dict[int, list[str]]
    n_leaves: int
    max_depth: int
    leaf_chars: int
    rule_chars: int
    max_lines: int


def _escape(text: str) -> str:
    """Keep matplotlib from reading ``$...$`` in rules and labels as mathtext."""
    return text.replace("$", r"\$")


def _rule_lines(rule: str) -> list[str]:
    parts = [p.strip() for p in rule.split(" | ")]
    return [parts[0]] + [f"or {p}" for p in parts[1:]]


def _layout(tree: Any) -> _Layout:
    nodes = preorder(tree)
    labels = [label_text(v) for v in tree.ycode]
    x: dict[int, float] = {}
    leaf_index = 0
    for nd in nodes:  # preorder: leaves come left to right
        if nd.is_leaf:
            x[nd.number] = float(leaf_index)
            leaf_index += 1
    for nd in reversed(nodes):  # children before parents
        if not nd.is_leaf:
            x[nd.number] = 0.5 * (x[nd.lchild] + x[nd.rchild])
    texts: dict[int, list[str]] = {}
    leaf_chars = rule_chars = 1
    max_lines = 3
    for nd in nodes:
        if nd.is_leaf:
            lines = [labels[nd.node_class], f"n1 = {nd.n1}, n0 = {nd.n0}",
                     f"p = {prob1(nd.n1, nd.n0):.3f}"]
            leaf_chars = max(leaf_chars, *(len(t) for t in lines))
        else:
            lines = _rule_lines(nd.split_rule)
            rule_chars = max(rule_chars, *(len(t) for t in lines))
        max_lines = max(max_lines, len(lines))
        texts[nd.number] = lines
    return _Layout(nodes=nodes, x=x, texts=texts, n_leaves=leaf_index,
                   max_depth=max(nd.depth for nd in nodes), leaf_chars=leaf_chars,
                   rule_chars=rule_chars, max_lines=max_lines)


def _column_inches(lay: _Layout, fontsize: float) -> float:
    """Width of one leaf column so that neighbouring texts do not overlap.

    Neighbouring leaves are one column apart; a split node is at least 1.5
    columns from a leaf at its depth and 2 from another split node.
    """
    char = _CHAR_WIDTH * fontsize / 72.0
    leaf_w, rule_w = char * lay.leaf_chars, char * lay.rule_chars
    return 1.1 * max(0.8, leaf_w, rule_w / 2.0, (leaf_w + rule_w) / 3.0)


def _level_inches(lay: _Layout, fontsize: float) -> float:
    """Height of one depth level: the circle, the texts under it and a gap."""
    return 0.45 + lay.max_lines * _LINE_HEIGHT * fontsize / 72.0 + 0.3


def _bottom_inches(lay: _Layout, fontsize: float) -> float:
    """Room under the deepest level: its circles and texts."""
    return 0.35 + lay.max_lines * _LINE_HEIGHT * fontsize / 72.0


def _top_inches(title: str | None, legend: bool, fontsize: float) -> float:
    """Room over the root: the title, the legend and half a circle."""
    line = _LINE_HEIGHT * fontsize / 72.0
    return 0.3 + (2 * line + 0.05 if legend else 0.0) + (0.06 + 1.6 * 1.2 * line if title else 0.0)


def _draw(ax: Axes, lay: _Layout, tree: Any, *, fontsize: float, class_colors: Sequence[str],
          rule_color: str, title: str | None, legend: bool, column_in: float | None,
          level_in: float | None, top_in: float | None) -> None:
    """Draw one tree into ``ax`` (the axes' limits are set here)."""
    from matplotlib.patches import Patch

    ax.set_axis_off()
    fs = fontsize
    circle_r_pt = 1.3 * fs  # the circle around a number: half its text plus the pad
    for nd in lay.nodes:  # edges first, under everything
        if nd.is_leaf:
            continue
        x0, y0 = lay.x[nd.number], -nd.depth
        for child, word, side in ((nd.lchild, "yes", -1), (nd.rchild, "no", 1)):
            x1, y1 = lay.x[child], -(nd.depth + 1)
            ax.plot([x0, x1], [y0, y1], color="0.45", lw=1.0, zorder=1,
                    solid_capstyle="round")
            ax.annotate(word, xy=(x0 + 0.8 * (x1 - x0), y0 + 0.8 * (y1 - y0)),
                        xytext=(side * 3, 0), textcoords="offset points",
                        ha="right" if side < 0 else "left", va="center",
                        fontsize=0.8 * fs, color="0.4", zorder=2)
    for nd in lay.nodes:
        x, y = lay.x[nd.number], -nd.depth
        colour = class_colors[nd.node_class]
        if nd.is_leaf:
            bbox = dict(boxstyle="circle,pad=0.45", fc=colour, ec="0.25", lw=1.0)
            number_colour = "black"
            text_colour = "black"
        else:
            bbox = dict(boxstyle="circle,pad=0.45", fc="white", ec=colour, lw=2.0)
            number_colour = rule_color
            text_colour = rule_color
        ax.text(x, y, str(nd.number), ha="center", va="center", fontsize=fs,
                color=number_colour, bbox=bbox, zorder=4)
        ax.annotate(_escape("\n".join(lay.texts[nd.number])), xy=(x, y),
                    xytext=(0, -(circle_r_pt + 2)), textcoords="offset points",
                    ha="center", va="top", fontsize=fs, color=text_colour,
                    linespacing=1.15, zorder=3,
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85))
    # limits: one unit = one leaf column across, one depth level down
    bbox = ax.get_position()
    fig_w, fig_h = ax.figure.get_size_inches()
    width_in, height_in = bbox.width * fig_w, bbox.height * fig_h
    if column_in is None or level_in is None or top_in is None:
        # a figure size or axes given by the user: share out what is there
        top_in = _top_inches(title, legend, fs)
        column_in = width_in / (lay.n_leaves + 0.3)
        spare = height_in - top_in - _bottom_inches(lay, fs)
        level_in = max(0.2, spare / lay.max_depth) if lay.max_depth else 1.0
    centre = 0.5 * (lay.n_leaves - 1)
    half = 0.5 * width_in / column_in
    ax.set_xlim(centre - half, centre + half)
    top = top_in / level_in
    ax.set_ylim(top - height_in / level_in, top)
    from matplotlib.transforms import ScaledTranslation

    if title:
        down = ax.transAxes + ScaledTranslation(0, -0.06, ax.figure.dpi_scale_trans)
        ax.text(0.5, 1.0, _escape(title), transform=down, ha="center", va="top",
                fontsize=1.2 * fs, fontweight="bold", zorder=5)
    if legend:
        labels = [label_text(v) for v in tree.ycode]
        handles = [Patch(fc=class_colors[k], ec="0.25", label=_escape(f"class {k}: {labels[k]}"))
                   for k in (1, 0)]
        below_title = 0.06 + 1.6 * _LINE_HEIGHT * 1.2 * fs / 72.0 if title else 0.0
        anchor = ax.transAxes + ScaledTranslation(0, -below_title, ax.figure.dpi_scale_trans)
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, 1.0),
                  bbox_transform=anchor, fontsize=fs, frameon=False, borderaxespad=0.3,
                  handlelength=1.2)


def plot_tree(model: Any, file: str | os.PathLike[str] | None = None,
              ax: Axes | Sequence[Axes] | None = None,
              figsize: tuple[float, float] | None = None, dpi: float = 100, *,
              tree: int | None = None,
              class_colors: Sequence[str] = ("lightcoral", "palegreen"),
              rule_color: str = "blue", fontsize: float = 8.0, title: str | None = None,
              legend: bool = True, max_width: float = 80.0) -> Figure:
    """Draw a fitted bsnsing tree (see the module documentation for the layout).

    Args:
        model: a fitted :class:`~pybsnsing.BsnsingModel` or
            :class:`~pybsnsing.MBsnsingModel`.
        file: save the figure there, in the format of the extension
            (``.png``, ``.svg``, ``.pdf``, ...), at ``dpi``.
        ax: draw into these axes instead of a new figure: one Axes for a
            two-class model or a single class tree (``tree=k``), one per
            class tree otherwise. The axes' figure is not resized.
        figsize: figure size in inches; default: from the tree's size.
        dpi: resolution of the figure and of a saved raster file.
        tree: for a multi-class model, the 0-based index (``ylevels`` order)
            of the one class tree to draw; None draws every class tree.
        class_colors: colours of classes 0 and 1 (matplotlib colours).
        rule_color: colour of split-node numbers and rules (R draws them blue).
        fontsize: font size in points of the node texts (shrunk with the
            columns when the automatic width would pass ``max_width``).
        title: a title over the drawing (multi-class panels always get
            ``Tree k: <class> vs. all.other``; ``title`` then goes on top).
        legend: show which colour is which class.
        max_width: the widest automatic figure, in inches.

    Returns:
        The matplotlib Figure.
    """
    if len(class_colors) != 2:
        raise ValueError(f"class_colors must have two colours, got {class_colors!r}")
    if dpi <= 0:
        raise ValueError(f"dpi must be positive, got {dpi!r}")
    selected = select_trees(model, tree)
    layouts = [_layout(one) for one, _ in selected]
    titles = [t for _, t in selected]
    if len(selected) == 1 and titles[0] is not None and title is None:
        title = titles[0]
    if len(selected) == 1:
        titles = [title]

    if ax is not None:
        if hasattr(ax, "plot") and hasattr(ax, "figure"):
            axes = [ax]
        else:  # a list or a numpy array of Axes (plt.subplots)
            import numpy as np

            axes = list(np.asarray(ax, dtype=object).ravel())
        if len(axes) != len(selected):
            raise ValueError(f"need {len(selected)} axes for this model, got {len(axes)}")
        for a, lay, (one, _), t in zip(axes, layouts, selected, titles, strict=True):
            _draw(a, lay, one, fontsize=fontsize, class_colors=class_colors,
                  rule_color=rule_color, title=t, legend=legend, column_in=None,
                  level_in=None, top_in=None)
        fig = axes[0].figure
        if len(selected) > 1 and title:
            fig.suptitle(_escape(title))
        if file is not None:
            fig.savefig(file, dpi=dpi)
        return fig

    # automatic sizes: columns wide enough for the texts, one row per depth
    fs = float(fontsize)
    columns = [_column_inches(lay, fs) for lay in layouts]
    need_w = max((lay.n_leaves + 0.3) * c for lay, c in zip(layouts, columns, strict=True))
    if need_w > max_width:
        scale = max_width / need_w
        fs = max(3.0, fs * scale)
        columns = [c * scale for c in columns]
    suptitle_in = 0.45 if (len(selected) > 1 and title) else 0.0
    levels = [_level_inches(lay, fs) for lay in layouts]
    tops = [_top_inches(t, legend, fs) for t in titles]
    heights = [top + lay.max_depth * lev + _bottom_inches(lay, fs)
               for lay, lev, top in zip(layouts, levels, tops, strict=True)]
    auto_w = max(4.5, max((lay.n_leaves + 0.3) * c
                          for lay, c in zip(layouts, columns, strict=True)))
    auto_h = sum(heights) + suptitle_in
    fixed = figsize is not None
    size = (float(figsize[0]), float(figsize[1])) if fixed else (auto_w, auto_h)

    if file is not None:
        from matplotlib.figure import Figure as _Figure

        fig = _Figure(figsize=size, dpi=dpi)
    else:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=size, dpi=dpi)
    top_share = (0.06 if suptitle_in else 0.0) if fixed else suptitle_in / auto_h
    avail = 1.0 - top_share  # the panels share the rest in proportion to their heights
    y_top = avail
    total = sum(heights)
    for lay, (one, _), t, lev, top, h, col in zip(layouts, selected, titles, levels, tops,
                                                 heights, columns, strict=True):
        share = h / total * avail
        a = fig.add_axes((0.0, y_top - share, 1.0, share))
        y_top -= share
        _draw(a, lay, one, fontsize=fs, class_colors=class_colors, rule_color=rule_color,
              title=t, legend=legend, column_in=None if fixed else col,
              level_in=None if fixed else lev, top_in=None if fixed else top)
    if len(selected) > 1 and title:
        fig.suptitle(_escape(title), fontsize=1.4 * fs, fontweight="bold")
    if file is not None:
        fig.savefig(Path(file), dpi=dpi)
    return fig
