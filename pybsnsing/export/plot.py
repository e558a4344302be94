"""Drawing a bsnsing tree with matplotlib.

:func:`plot_tree` draws a fitted tree as boxes joined by ``yes``/``no`` edges:

* a split node shows its number, ``n`` (the training rows that reach it) with
  the class mix (the rows of each class, ``ycode[0] / ycode[1]``, or one count
  per class for a MurTree tree of three or more classes; also drawn as
  a thin bar in the class colours along the bottom of the box) and its rule,
  one question per line with ``or`` between them. The left edge (``yes``)
  leads to the rows for which the rule holds, the right edge (``no``) to the
  others;
* a leaf, filled with the colour of its class, shows the class it predicts,
  ``p``, the share of its training rows in that class (the probability the
  tree gives that class there: ``predict(type="prob")`` is ``p`` on class-1
  leaves and ``1 - p`` on class-0 leaves), and ``n`` with the class mix;
* a legend says what the colours and numbers are.

Cut points are shown to ``digits`` significant digits (4 by default), so that
``x.1 < -0.314214229999504`` reads ``x.1 < -0.3142``; the model's rules, its
``print``/``summary`` text and the LaTeX drawing keep R's 15 digits.
``max_depth`` draws the top levels only: a split node at that depth is drawn
with a dashed box saying how many nodes lie below it.

Layout: a tidy tree. Each subtree is placed as close to its sibling as the
boxes at every depth allow (the contours of the two subtrees are a fixed gap
apart), a split node sits midway between its children, and each depth gets a
row as tall as its tallest box. Sizes come from the texts as matplotlib
measures them, so boxes never overlap. Unless ``figsize`` is given, the figure
is as large as the drawing at ``fontsize``; when that is wider than
``max_width`` inches (default 20: a wide screen at 100 dpi) the fonts shrink,
down to ``min_fontsize`` (7 points); a tree still too wide is turned, root on
the left and leaves one under the other (``orientation="horizontal"``), which
takes a long tree's leaves down the page instead of across it, and trees of 40
leaves or more get shorter leaf texts. ``max_depth`` draws the top of a large
tree.

Multi-class models (one tree per class against ``all.other``): by default one
figure with one panel per class tree, stacked top to bottom in ``ylevels``
order, each titled ``Tree k: <class> vs. all.other``. ``tree=k`` (0-based)
draws just that class tree; for one file per tree, call
``plot_tree(model, f"tree{k}.png", tree=k)`` for each ``k``.

With ``file`` the figure is drawn on a matplotlib ``Figure`` that is not
registered with pyplot (no GUI backend is touched) and saved in the format of
the file's extension (``.png``, ``.svg``, ``.pdf`` or any other format
matplotlib's ``savefig`` knows) at ``dpi`` dots per inch, without cropping, so
a PNG is ``figsize * dpi`` pixels. Without ``file`` and ``ax``, the figure is
made with pyplot (shown by ``plt.show()`` or in a notebook).

Needs matplotlib: ``pip install "pybsnsing[plot]"``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import PybsnsingTypeError, PybsnsingValueError
from .view import NodeView, label_text, node_number_text, preorder, prob1, select_trees

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_tree", "format_rule"]

#: line height, as a multiple of the font size
_LINE = 1.3
#: box padding, as a multiple of the font size
_PAD = 0.45
#: height of the class-mix bar at the bottom of a box, as a multiple of the font size
_BAR = 0.35
#: horizontal gap between neighbouring boxes, as a multiple of the font size
_HGAP = 1.2
#: vertical gap between two rows (room for the edges and their labels)
_VGAP = 2.6
#: the same two gaps when the root is on the left
_HGAP_H = 0.6
_VGAP_H = 3.2
#: margin around the drawing, as a multiple of the font size
_MARGIN = 1.0
#: leaves from which leaf texts get shorter
_COMPACT_LEAVES = 40
#: the colours of classes 0 and 1
_DEFAULT_COLORS = ("lightcoral", "palegreen")
#: the colours of classes 2, 3, ... (trees of three or more classes), repeated as needed
_MORE_COLORS = ("lightskyblue", "khaki", "plum", "sandybrown", "lightgray", "aquamarine",
                "pink", "tan")


# ---------------------------------------------------------------------------------------
# texts


def _escape(text: str) -> str:
    """Keep matplotlib from reading ``$...$`` in rules and labels as mathtext."""
    return text.replace("$", r"\$")


def _number(value: float, digits: int | None) -> str:
    if digits is None:
        return repr(value)
    if value == 0:
        return "0"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    text = f"{value:.{digits}g}"
    if "e" in text:  # 1e+05 -> 1e+05 as R prints it; drop a '+0' exponent padding
        mant, exp = text.split("e")
        text = f"{mant}e{int(exp):+d}" if abs(int(exp)) >= 10 else f"{mant}e{exp[0]}{exp[1:]}"
    return text


def format_rule(rule: str, digits: int | None = 4) -> list[str]:
    """A rule as the plot shows it: one question per line (``or`` before the 2nd and
    later ones), numbers to ``digits`` significant digits (None: as written, R's 15
    digits). Texts that do not parse as bsnsing questions are shown as written."""
    from ..rules import parse_question, split_rule

    try:
        parts = split_rule(rule)
    except Exception:  # noqa: BLE001 - a drawing must not fail on an odd rule
        parts = rule.split(" | ")
    lines = []
    for k, part in enumerate(parts):
        text = part.strip()
        if digits is not None:
            try:
                q = parse_question(text)
            except Exception:  # noqa: BLE001
                q = None
            if q is not None and isinstance(q.value, float) and q.op != "%in%":
                num = _number(q.value, digits)
                text = (f"{q.label} {q.op} {num}" if q.op != "==" else f"{q.label}=={num}")
        lines.append(text if k == 0 else f"or {text}")
    return lines


def _prob_text(p: float) -> str:
    return f"{p:.3f}"


# ---------------------------------------------------------------------------------------
# layout


@dataclass
class _Box:
    """One drawn node: its texts, its size and position in points.

    ``b`` is the centre along the breadth axis (x when the root is on top, y when it
    is on the left), ``d`` the start along the depth axis (y down, or x right).
    """

    node: NodeView
    lines: list[tuple[str, str]]  # (text, style): "head" "rule" "label" "plain"
    w: float = 0.0
    h: float = 0.0
    b: float = 0.0
    d: float = 0.0
    truncated: int = 0  # nodes hidden below (max_depth)
    children: list[_Box] = field(default_factory=list)

    def rect(self, horizontal: bool) -> tuple[float, float]:
        """Top-left corner (x, y) of the box, y pointing down."""
        if horizontal:
            return self.d, self.b - self.h / 2.0
        return self.b - self.w / 2.0, self.d


@dataclass
class _Layout:
    boxes: list[_Box]
    width: float  # points
    height: float  # points
    fontsize: float
    horizontal: bool
    n_leaves: int


class _Measure:
    """Text widths in points, as matplotlib's Agg renderer measures them."""

    def __init__(self, fontsize: float) -> None:
        from matplotlib.backends.backend_agg import RendererAgg
        from matplotlib.font_manager import FontProperties

        self.renderer = RendererAgg(10, 10, 72)
        self.plain = FontProperties(size=fontsize)
        self.bold = FontProperties(size=fontsize, weight="bold")
        self.cache: dict[tuple[str, str], float] = {}

    def width(self, text: str, style: str) -> float:
        key = (text, style)
        if key not in self.cache:
            w, _, _ = self.renderer.get_text_width_height_descent(
                _escape(text), self.bold if style == "label" else self.plain, ismath=False)
            self.cache[key] = float(w)
        return self.cache[key]


def _node_lines(nd: NodeView, labels: Sequence[str], digits: int | None, compact: bool,
                truncated: int) -> list[tuple[str, str]]:
    n = nd.nobs
    number = f"#{node_number_text(nd.number)}"
    head = f"{number}  n = {n} ({' / '.join(str(c) for c in nd.class_counts)})"
    if truncated:
        return ([(head, "head")] + [(t, "rule") for t in format_rule(nd.split_rule, digits)]
                + [(f"+ {truncated} nodes below", "plain")])
    if nd.is_leaf:
        k = nd.node_class
        if nd.counts:  # three or more classes: the share of the predicted class
            p = nd.counts[k] / n if n else 0.0
        else:
            p1 = prob1(nd.n1, nd.n0)
            p = p1 if k == 1 else 1.0 - p1
        if compact:
            return [(f"{labels[k]}  p = {_prob_text(p)}", "label"), (f"{number}  n = {n}", "head")]
        return [(labels[k], "label"), (f"p = {_prob_text(p)}", "plain"), (head, "head")]
    return [(head, "head")] + [(t, "rule") for t in format_rule(nd.split_rule, digits)]


def _box_tree(nodes: Sequence[NodeView], fs: float, digits: int | None,
              max_depth: int | None, compact: bool, labels: Sequence[str]) -> _Box:
    """The boxes of the drawn nodes (texts and sizes), linked parent to children."""
    by_number = {nd.number: nd for nd in nodes}
    measure = _Measure(fs)
    pad, bar = _PAD * fs, _BAR * fs

    def below(number: int) -> int:
        nd = by_number[number]
        return 0 if nd.is_leaf else 2 + below(nd.lchild) + below(nd.rchild)

    def build(number: int) -> _Box:
        nd = by_number[number]
        cut = max_depth is not None and nd.depth >= max_depth and not nd.is_leaf
        box = _Box(nd, _node_lines(nd, labels, digits, compact, below(number) if cut else 0))
        box.truncated = below(number) if cut else 0
        box.w = max(measure.width(t, st) for t, st in box.lines) + 2 * pad
        box.h = len(box.lines) * _LINE * fs + 2 * pad + bar
        if not nd.is_leaf and not cut:
            box.children = [build(nd.lchild), build(nd.rchild)]
        return box

    return build(0)


def _place(box: _Box, horizontal: bool, gap: float) -> list[tuple[float, float]]:
    """Tidy layout along the breadth: returns the contour, ``contour[k]`` = (first, last)
    edge at relative depth k; sets each child's ``b`` relative to its parent."""
    half = (box.h if horizontal else box.w) / 2.0
    own = (-half, half)
    if not box.children:
        return [own]
    left, right = (_place(c, horizontal, gap) for c in box.children)
    shift = 0.0
    for (_, a), (c, _) in zip(left, right, strict=False):
        shift = max(shift, a - c + gap)
    box.children[0].b = -shift / 2.0
    box.children[1].b = shift / 2.0
    merged = [own]
    for k in range(max(len(left), len(right))):
        parts = []
        if k < len(left):
            parts.append((left[k][0] - shift / 2.0, left[k][1] - shift / 2.0))
        if k < len(right):
            parts.append((right[k][0] + shift / 2.0, right[k][1] + shift / 2.0))
        merged.append((min(q[0] for q in parts), max(q[1] for q in parts)))
    return merged


def _layout(tree: Any, fontsize: float, digits: int | None, max_depth: int | None,
            compact: bool | None, horizontal: bool) -> _Layout:
    nodes = preorder(tree)
    n_leaves = sum(nd.is_leaf for nd in nodes)
    if compact is None:
        compact = n_leaves >= _COMPACT_LEAVES
    fs = fontsize
    gap = (_HGAP_H if horizontal else _HGAP) * fs  # between neighbours along the breadth
    dgap = (_VGAP_H if horizontal else _VGAP) * fs  # between depth levels
    labels = [label_text(v) for v in tree.ycode]
    root = _box_tree(nodes, fs, digits, max_depth, compact, labels)
    contour = _place(root, horizontal, gap)
    boxes: list[_Box] = []
    depth_size: dict[int, float] = {}

    def collect(box: _Box, b: float) -> None:  # absolute b, preorder, row depth sizes
        box.b = b
        boxes.append(box)
        d = box.node.depth
        depth_size[d] = max(depth_size.get(d, 0.0), box.w if horizontal else box.h)
        for c in box.children:
            collect(c, b + c.b)

    first = min(c[0] for c in contour)
    collect(root, -first)
    span_b = max(c[1] for c in contour) - first
    starts: dict[int, float] = {}
    pos = 0.0
    for d in sorted(depth_size):
        starts[d] = pos
        pos += depth_size[d] + dgap
    span_d = pos - dgap
    for box in boxes:
        box.d = starts[box.node.depth]
    width, height = (span_d, span_b) if horizontal else (span_b, span_d)
    return _Layout(boxes=boxes, width=width, height=height, fontsize=fs,
                   horizontal=horizontal, n_leaves=n_leaves)


# ---------------------------------------------------------------------------------------
# drawing


def _legend_lines(labels: Sequence[str], digits: int | None, horizontal: bool) -> list[str]:
    lines = [
        f"#node  n = training rows at the node ({' / '.join(labels)})",
        "p = share of a leaf's rows in its class (the predicted probability)",
        "yes (upper branch): the rule holds" if horizontal else
        "yes (left branch): the rule holds",
    ]
    if digits is not None:
        lines.append(f"cut points rounded to {digits} significant digits")
    return lines


def _legend_width(labels: Sequence[str], digits: int | None, fs: float) -> float:
    """Width in points of the legend's widest line."""
    small = _Measure(0.9 * fs)
    head = _Measure(fs)
    classes = sum(head.width(f"class {k}: {labels[k]}", "plain") + 2.8 * fs
                  for k in range(len(labels)))
    return max([classes] + [small.width(t, "plain")
                            for t in _legend_lines(labels, digits, False)])


def _top_points(title: str | None, legend: bool, digits: int | None, fs: float,
                explain: bool = True) -> float:
    """Room over the tree, in points: the title and the legend (its explanations only
    with ``explain``: the first panel of a multi-class figure)."""
    out = 0.6 * fs
    if title:
        out += 1.6 * fs * _LINE
    if legend:
        lines = len(_legend_lines(("", ""), digits, False)) if explain else 0
        out += (1.5 + lines) * fs * _LINE
    return out


def _draw_edges(ax: Axes, lay: _Layout, ox: float, oy: float) -> None:
    """The ``yes``/``no`` edges, under the boxes; ``(ox, oy)`` is the drawing's origin."""
    fs = lay.fontsize
    hz = lay.horizontal

    def anchor(box: _Box, out: bool) -> tuple[float, float]:
        x, y = box.rect(hz)
        if hz:
            return ox + x + (box.w if out else 0.0), oy + box.b
        return ox + box.b, oy + y + (box.h if out else 0.0)

    for box in lay.boxes:
        for child, word, side in zip(box.children, ("yes", "no"), (-1, 1), strict=False):
            x0, y0 = anchor(box, True)
            x1, y1 = anchor(child, False)
            ax.plot([x0, x1], [y0, y1], color="0.45", lw=0.9, zorder=1,
                    solid_capstyle="round")
            t = 0.35
            if hz:
                ax.text(x0 + t * (x1 - x0), y0 + t * (y1 - y0) + side * 0.3 * fs, word,
                        ha="center", va="bottom" if side < 0 else "top", fontsize=0.8 * fs,
                        color="0.35", zorder=2)
            else:
                ax.text(x0 + t * (x1 - x0) + side * 0.3 * fs, y0 + t * (y1 - y0), word,
                        ha="right" if side < 0 else "left", va="center", fontsize=0.8 * fs,
                        color="0.35", zorder=2)


def _draw_box(ax: Axes, box: _Box, x0: float, y0: float, fs: float,
              class_colors: Sequence[str], rule_color: str) -> None:
    """One node's box with top-left corner ``(x0, y0)``: frame, class-mix bar, texts."""
    from matplotlib.patches import FancyBboxPatch, Rectangle

    nd = box.node
    pad, bar = _PAD * fs, _BAR * fs
    leaf = nd.is_leaf
    colour = class_colors[nd.node_class]
    ax.add_patch(FancyBboxPatch(
        (x0, y0), box.w, box.h, boxstyle=f"round,pad=0,rounding_size={0.4 * fs}",
        fc=colour if leaf else "white", ec="0.3" if leaf else colour,
        lw=0.9 if leaf else 1.6, ls="--" if box.truncated else "-", zorder=3))
    # the class mix along the bottom (class 0 from the left), on a white strip
    n = max(nd.nobs, 1)
    inner = box.w - 2 * pad
    yb = y0 + box.h - pad * 0.6 - bar
    ax.add_patch(Rectangle((x0 + pad - 0.15 * fs, yb - 0.15 * fs), inner + 0.3 * fs,
                           bar + 0.3 * fs, fc="white", ec="none", zorder=4))
    counts = nd.class_counts
    xs = x0 + pad
    for k, c in enumerate(counts):
        wk = inner * c / n if k < len(counts) - 1 else x0 + pad + inner - xs
        ax.add_patch(Rectangle((xs, yb), wk, bar, fc=class_colors[k], ec="none", zorder=4))
        xs += wk
    ax.add_patch(Rectangle((x0 + pad, yb), inner, bar, fc="none", ec="0.2", lw=0.5,
                           zorder=4))
    y = y0 + pad * 0.8
    cx = x0 + box.w / 2.0
    for text, style in box.lines:
        kw: dict[str, Any] = {"color": "black"}
        if style == "rule":
            kw["color"] = rule_color
        elif style == "head":
            kw["color"] = "0.2"
        elif style == "label":
            kw["fontweight"] = "bold"
        ax.text(cx, y, _escape(text), ha="center", va="top", fontsize=fs, zorder=5, **kw)
        y += _LINE * fs


def _draw_heading(ax: Axes, tree: Any, fs: float, total_w: float, *, horizontal: bool,
                  class_colors: Sequence[str], title: str | None, legend: bool,
                  digits: int | None, explain: bool) -> None:
    """The title and the legend over the tree."""
    from matplotlib.patches import Rectangle

    margin = _MARGIN * fs
    yt = 0.4 * fs
    if title:
        ax.text(total_w / 2.0, yt, _escape(title), ha="center", va="top", fontsize=1.2 * fs,
                fontweight="bold", zorder=6)
        yt += 1.6 * fs * _LINE
    if not legend:
        return
    labels = [label_text(v) for v in tree.ycode]
    measure = _Measure(fs)
    xl = margin
    sq = 0.9 * fs
    for k in range(len(labels)):
        ax.add_patch(Rectangle((xl, yt + 0.1 * fs), sq, sq, fc=class_colors[k], ec="0.3",
                               lw=0.6, zorder=6))
        text = f"class {k}: {labels[k]}"
        ax.text(xl + sq + 0.4 * fs, yt, _escape(text), ha="left", va="top", fontsize=fs,
                zorder=6)
        xl += sq + 0.4 * fs + measure.width(text, "plain") + 1.5 * fs
    yt += _LINE * fs * 1.2
    for line in _legend_lines(labels, digits, horizontal) if explain else []:
        ax.text(margin, yt, _escape(line), ha="left", va="top", fontsize=0.9 * fs,
                color="0.2", zorder=6)
        yt += _LINE * fs


def _draw(ax: Axes, lay: _Layout, tree: Any, *, class_colors: Sequence[str], rule_color: str,
          title: str | None, legend: bool, digits: int | None, top: float,
          panel_width: float | None, explain: bool = True) -> None:
    """Draw one tree into ``ax``; data units are points (x right, y down from the top)."""
    fs = lay.fontsize
    hz = lay.horizontal
    margin = _MARGIN * fs
    ax.set_axis_off()
    total_w = max(lay.width + 2 * margin, panel_width or 0.0)
    total_h = top + lay.height + margin
    ax.set_xlim(0, total_w)
    ax.set_ylim(total_h, 0)
    ox = (total_w - lay.width) / 2.0 if not hz else margin
    oy = top
    _draw_edges(ax, lay, ox, oy)
    for box in lay.boxes:
        rx, ry = box.rect(hz)
        _draw_box(ax, box, ox + rx, oy + ry, fs, class_colors, rule_color)
    _draw_heading(ax, tree, fs, total_w, horizontal=hz, class_colors=class_colors,
                  title=title, legend=legend, digits=digits, explain=explain)


def _check_int(value: Any, name: str, lo: int) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise PybsnsingTypeError(f"{name} must be a whole number or None, got {value!r}")
    v = int(value.__index__())
    if v < lo:
        raise PybsnsingValueError(f"{name} must be at least {lo}, got {v}")
    return v


def _class_colors(class_colors: Sequence[str], k: int) -> Sequence[str]:
    """The colours of a tree of ``k`` classes: ``class_colors``, or for three or more
    classes and the default two colours, those and :data:`_MORE_COLORS`."""
    if len(class_colors) == k:
        return class_colors
    if k > 2 and tuple(class_colors) == _DEFAULT_COLORS:
        more = [_MORE_COLORS[i % len(_MORE_COLORS)] for i in range(k - 2)]
        return (*_DEFAULT_COLORS, *more)
    if k == 2:
        raise PybsnsingValueError(f"class_colors must have two colours, got {class_colors!r}")
    raise PybsnsingValueError(
        f"class_colors must have {k} colours (one per class), got {class_colors!r}")


def _check_plot_args(dpi: Any, fontsize: Any, orientation: str) -> None:
    if not isinstance(dpi, (int, float)) or not dpi > 0:
        raise PybsnsingValueError(f"dpi must be positive, got {dpi!r}")
    if not isinstance(fontsize, (int, float)) or not fontsize > 0:
        raise PybsnsingValueError(f"fontsize must be positive, got {fontsize!r}")
    if orientation not in ("auto", "vertical", "horizontal"):
        raise PybsnsingValueError(
            f"orientation must be 'auto', 'vertical' or 'horizontal', got {orientation!r}")


@dataclass
class _Panels:
    """The trees to draw (one panel each) with their titles and the drawing options that
    fix their layouts; sizes in points."""

    selected: list[tuple[Any, str | None]]
    titles: list[str | None]
    digits: int | None
    max_depth: int | None
    compact: bool | None
    legend: bool
    multi_title: bool

    def layouts(self, fs: float, hz: bool) -> list[_Layout]:
        return [_layout(one, fs, self.digits, self.max_depth, self.compact, hz)
                for one, _ in self.selected]

    def extent(self, lays: list[_Layout]) -> tuple[float, float, list[float]]:
        """Figure width and height in points, and each panel's height."""
        fs = lays[0].fontsize
        widths = [lay.width + 2 * _MARGIN * fs for lay in lays]
        if self.legend:
            widths += [_legend_width([label_text(v) for v in one.ycode], self.digits, fs)
                       + 2 * _MARGIN * fs for one, _ in self.selected]
        heights = [_top_points(t, self.legend, self.digits, fs, k == 0) + lay.height
                   + _MARGIN * fs
                   for k, (lay, t) in enumerate(zip(lays, self.titles, strict=True))]
        return max(widths), sum(heights) + (2.2 * fs if self.multi_title else 0.0), heights

    def fitted(self, hz: bool, box_w: float, box_h: float | None, fs: float,
               lo: float) -> list[_Layout]:
        """Layouts at the largest font <= fs (>= lo) whose drawing fits box_w x box_h."""
        lays = self.layouts(fs, hz)
        for _ in range(5):
            w, h, _ = self.extent(lays)
            scale = box_w / w if box_h is None else min(box_w / w, box_h / h)
            if scale >= 1.0 or fs <= lo:
                break
            fs = max(lo, fs * scale * 0.99)  # the drawing scales almost linearly
            lays = self.layouts(fs, hz)
        return lays

    def sized(self, figsize: tuple[float, float] | None, orientation: str, fs0: float,
              max_width: float, min_fontsize: float
              ) -> tuple[list[_Layout], tuple[float, float]]:
        """The layouts and the figure size (inches) of a new figure."""
        if figsize is not None:
            fw, fh = (float(v) for v in figsize)
            if not (fw > 0 and fh > 0):
                raise PybsnsingValueError(f"figsize must be positive, got {figsize!r}")
            hz = orientation == "horizontal"
            if orientation == "auto":  # the orientation that allows the larger font
                v = self.fitted(False, fw * 72.0, fh * 72.0, fs0, 1.0)
                h_ = self.fitted(True, fw * 72.0, fh * 72.0, fs0, 1.0)
                hz = h_[0].fontsize > v[0].fontsize * 1.05
            return self.fitted(hz, fw * 72.0, fh * 72.0, fs0, 1.0), (fw, fh)
        lays = None
        if orientation in ("auto", "vertical"):
            lays = self.fitted(False, max_width * 72.0, None, fs0, min(min_fontsize, fs0))
            if orientation == "auto" and self.extent(lays)[0] > max_width * 72.0 * 1.001:
                lays = None  # too wide even at the smallest font: turn the tree
        if lays is None:
            lays = self.fitted(True, max_width * 72.0, None, fs0, min(min_fontsize, fs0))
        w, h, _ = self.extent(lays)
        return lays, (w / 72.0, h / 72.0)


def _plot_into_axes(panels: _Panels, ax: Any, fs0: float, orientation: str,
                    title: str | None, draw: dict[str, Any]) -> Figure:
    """Draw each panel into its given Axes (the figure is not resized)."""
    if hasattr(ax, "plot") and hasattr(ax, "figure"):
        axes = [ax]
    else:  # a list or a numpy array of Axes (plt.subplots)
        import numpy as np

        axes = list(np.asarray(ax, dtype=object).ravel())
    if len(axes) != len(panels.selected):
        raise PybsnsingValueError(
            f"need {len(panels.selected)} axes for this model, got {len(axes)}")
    fig = axes[0].figure
    for a, (one, _), t in zip(axes, panels.selected, panels.titles, strict=True):
        bbox = a.get_position()
        fw, fh = fig.get_size_inches()
        aw, ah = bbox.width * fw * 72.0, bbox.height * fh * 72.0
        hz = orientation == "horizontal"
        lay = _fit_one(one, t, fs0, hz, aw, ah, panels.digits, panels.max_depth,
                       panels.compact, panels.legend)
        _draw(a, lay, one, title=t, legend=panels.legend, digits=panels.digits,
              top=_top_points(t, panels.legend, panels.digits, lay.fontsize),
              panel_width=aw * lay.width / max(lay.width, 1.0), **draw)
    if panels.multi_title:
        fig.suptitle(_escape(title))
    return fig


def _plot_new_figure(panels: _Panels, lays: list[_Layout], size: tuple[float, float],
                     title: str | None, to_file: bool, dpi: float,
                     draw: dict[str, Any]) -> Figure:
    """A new figure of ``size`` inches with the panels stacked, centred in it."""
    width, height, heights = panels.extent(lays)
    fs = lays[0].fontsize
    if to_file:
        from matplotlib.figure import Figure as _Figure

        fig = _Figure(figsize=size, dpi=dpi)
    else:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=size, dpi=dpi)
    # panels in points of the drawing; with a given figsize the drawing is centred in it
    fw_pt, fh_pt = size[0] * 72.0, size[1] * 72.0
    y_top = fh_pt - (fh_pt - height) / 2.0 - (2.2 * fs if panels.multi_title else 0.0)
    x_left = (fw_pt - width) / 2.0
    for k, (lay, (one, _), t, h) in enumerate(zip(lays, panels.selected, panels.titles,
                                                  heights, strict=True)):
        a = fig.add_axes((x_left / fw_pt, (y_top - h) / fh_pt, width / fw_pt, h / fh_pt))
        y_top -= h
        _draw(a, lay, one, title=t, legend=panels.legend, digits=panels.digits,
              top=_top_points(t, panels.legend, panels.digits, fs, k == 0),
              panel_width=width, explain=k == 0, **draw)
    if panels.multi_title:
        fig.text(0.5, 1.0 - (fh_pt - height) / 2.0 / fh_pt - 0.3 * fs / fh_pt, _escape(title),
                 ha="center", va="top", fontsize=1.4 * fs, fontweight="bold")
    return fig


def _make_panels(model: Any, tree: int | None, title: str | None, digits: int | None,
                 max_depth: int | None, compact: bool | None,
                 legend: bool) -> tuple[_Panels, str | None]:
    """The panels of :func:`plot_tree` (the selected trees and their titles) and the
    figure's title: a single tree's own title when none is given."""
    selected = select_trees(model, tree)
    titles = [t for _, t in selected]
    if len(selected) == 1 and titles[0] is not None and title is None:
        title = titles[0]
    if len(selected) == 1:
        titles = [title]
    panels = _Panels(selected, titles, digits, max_depth, compact, legend,
                     multi_title=len(selected) > 1 and bool(title))
    return panels, title


def plot_tree(model: Any, file: str | os.PathLike[str] | None = None,
              ax: Axes | Sequence[Axes] | None = None,
              figsize: tuple[float, float] | None = None, dpi: float = 100, *,
              tree: int | None = None,
              class_colors: Sequence[str] = _DEFAULT_COLORS,
              rule_color: str = "blue", fontsize: float = 9.0, title: str | None = None,
              legend: bool = True, digits: int | None = 4, max_depth: int | None = None,
              orientation: str = "auto", max_width: float = 20.0,
              min_fontsize: float = 7.0, compact: bool | None = None) -> Figure:
    """Draw a fitted bsnsing tree (see the module documentation for what is shown).

    Args:
        model: a fitted :class:`~pybsnsing.BsnsingModel` or
            :class:`~pybsnsing.MBsnsingModel`.
        file: save the figure there, in the format of the extension
            (``.png``, ``.svg``, ``.pdf``, ...), at ``dpi``.
        ax: draw into these axes instead of a new figure: one Axes for a
            two-class model or a single class tree (``tree=k``), one per
            class tree otherwise. The axes' figure is not resized; the fonts
            are scaled so that the tree fits the axes.
        figsize: figure size in inches; default: from the tree's size. The
            fonts are scaled so that the tree fits.
        dpi: resolution of the figure and of a saved raster file.
        tree: for a multi-class model, the 0-based index (``ylevels`` order)
            of the one class tree to draw; None draws every class tree.
        class_colors: colours of classes 0 and 1 (matplotlib colours); for a tree of
            three or more classes (a MurTree tree) one per class, by default
            ``("lightcoral", "palegreen")`` and then ``lightskyblue``, ``khaki``, ...
        rule_color: colour of the rules (R draws them blue).
        fontsize: font size in points of the node texts.
        title: a title over the drawing (multi-class panels always get
            ``Tree k: <class> vs. all.other``; ``title`` then goes on top).
        legend: show what the colours and numbers mean.
        digits: significant digits of the cut points in the rules (None: R's
            15-digit text, as ``summary()`` prints it).
        max_depth: draw the nodes down to this depth only (the root is depth
            0); a split node at ``max_depth`` is drawn dashed, with the number
            of nodes below it. None: the whole tree.
        orientation: ``"vertical"`` (root on top), ``"horizontal"`` (root on
            the left, for trees with many leaves) or ``"auto"``: vertical
            unless that is wider than ``max_width`` inches even at
            ``min_fontsize``.
        max_width: the widest automatic figure, in inches (a wide screen at
            100 dpi is about 19), before the fonts shrink or the tree turns.
        min_fontsize: the smallest font the automatic size shrinks to.
        compact: shorter leaf texts (class and ``p`` on one line, no class
            counts); default: for trees of 40 leaves or more.

    Returns:
        The matplotlib Figure.

    Raises:
        PybsnsingImportError: matplotlib is not installed
            (``pip install "pybsnsing[plot]"``).
    """
    from .._optional import require

    require("plot", "plot_tree (drawing a tree)")
    _check_plot_args(dpi, fontsize, orientation)
    digits = _check_int(digits, "digits", 1)
    max_depth = _check_int(max_depth, "max_depth", 0)
    panels, title = _make_panels(model, tree, title, digits, max_depth, compact, legend)
    k = max(len(one.ycode) for one, _ in panels.selected)
    draw = {"class_colors": _class_colors(class_colors, k), "rule_color": rule_color}
    fs0 = float(fontsize)
    if ax is not None:
        fig = _plot_into_axes(panels, ax, fs0, orientation, title, draw)
        if file is not None:
            fig.savefig(file, dpi=dpi)
        return fig
    lays, size = panels.sized(figsize, orientation, fs0, max_width, min_fontsize)
    fig = _plot_new_figure(panels, lays, size, title, file is not None, dpi, draw)
    if file is not None:
        fig.savefig(Path(file), dpi=dpi)
    return fig


def _fit_one(one: Any, title: str | None, fs: float, hz: bool, aw: float, ah: float,
             digits: int | None, max_depth: int | None, compact: bool | None,
             legend: bool) -> _Layout:
    """The layout of one tree at the font (at most ``fs``) that makes it fit ``aw`` x ``ah``
    points."""
    cap = fs
    lay = _layout(one, fs, digits, max_depth, compact, hz)
    for _ in range(5):
        w = lay.width + 2 * _MARGIN * fs
        h = _top_points(title, legend, digits, fs) + lay.height + _MARGIN * fs
        scale = min(aw / w, ah / h)
        if 0.98 <= scale <= 1.0 or fs <= 1.0 or (scale > 1.0 and fs >= cap):
            break
        fs = min(cap, max(1.0, fs * scale * 0.99))
        lay = _layout(one, fs, digits, max_depth, compact, hz)
    return lay
