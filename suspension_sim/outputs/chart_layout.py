"""Fixed chart margins measured once from the texts: what constrained layout gives, without
solving it at every draw.

Matplotlib's constrained layout measures every tick of every axes twice per saved figure
(about half of the 0.3 s of CPU a four-panel chart costs). `fit_margins` measures only
what takes room at the edges of a grid of panels, with the Agg renderer the figure is
drawn with: each panel's y tick labels (the strings its locator and formatter give, the
same the draw shows), axis labels and title, and the figure's suptitle; then sets the
margins and gaps with `Figure.subplots_adjust` (in inches, so every panel gets the room
its own column or row needs). Nothing is clipped however long the numbers: the margins
follow them. Drawing then lays nothing out again.

Matplotlib is not imported here: the functions take the figure they work on.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:  # pragma: no cover
    from matplotlib.axes import Axes
    from matplotlib.axis import Axis
    from matplotlib.backend_bases import RendererBase
    from matplotlib.figure import Figure
    from matplotlib.text import Text

PAD_PT = 4.0
"""Free space (points) round the figure's edge and between panels."""
PASSES = 3
"""Most measure-and-adjust passes: a panel's new size can change its ticks (the locator
picks their number from the axis length), so the margins are measured again until they
hold (one more pass is rare; the last pass keeps the larger margins)."""


def fit_margins(fig: Figure) -> None:
    """Set `fig`'s subplot margins and gaps (`Figure.subplots_adjust`) so that every
    visible panel's tick labels, axis labels and title, and the suptitle, lie inside the
    figure without overlapping the panels next to them. For a figure of a regular grid
    of subplots (`Figure.subplots`); the figure must have no layout engine."""
    axes = [ax for ax in fig.axes if ax.get_visible() and ax.get_subplotspec() is not None]
    if not axes:
        return
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    held: tuple[float, ...] | None = None
    for _ in range(PASSES):
        wanted: tuple[float, ...] = _margins(fig, axes, renderer)
        if held is not None:
            wanted = tuple(max(a, b) for a, b in zip(wanted, held, strict=True))
            if wanted == held:
                break
        _apply(fig, axes, wanted)
        held = wanted
    _fix_titles(axes)


def _fix_titles(axes: list[Axes]) -> None:
    """Titles stay where they are (on top of the panel, at the title pad) unless an
    offset text (``1e-5``) sits there: matplotlib would otherwise measure every y
    tick label again at each draw to find where the title goes (a sixth of a draw)."""
    for ax in axes:
        if ax.title.get_text() and not _offset_text(ax) and hasattr(ax, "_autotitlepos"):
            ax._autotitlepos = False  # what set_title(y=...) sets


def _margins(
    fig: Figure, axes: list[Axes], renderer: RendererBase
) -> tuple[float, float, float, float, float, float]:
    """(left, right, bottom, top, column gap, row gap) in inches for the panels' texts."""
    dpi = fig.dpi
    pad = PAD_PT / 72.0
    spec = axes[0].get_subplotspec()
    assert spec is not None
    rows, cols = spec.get_geometry()[:2]
    left = [0.0] * cols  # room each column needs left of its panels
    right = [0.0] * cols  # ... and right of them (the last x tick label's half)
    below = [0.0] * rows  # room each row needs under its panels
    above = [0.0] * rows  # ... and over them (the titles)
    for ax in axes:
        s = ax.get_subplotspec()
        assert s is not None
        r, c = s.rowspan.start, s.colspan.start
        if not ax.axison:
            above[r] = max(above[r], _title_room(ax, renderer, dpi))
            continue
        x_sizes = _tick_sizes(ax.xaxis, dpi)
        y_ticks = _ticks_room(_tick_sizes(ax.yaxis, dpi), ax.yaxis, dpi)
        x_ticks = _ticks_room(x_sizes, ax.xaxis, dpi)
        x_half = 0.5 * max((w for w, _ in x_sizes), default=0.0) / dpi
        left[c] = max(left[c], y_ticks + _label_room(ax.yaxis, renderer, dpi), x_half)
        right[c] = max(right[c], x_half)
        below[r] = max(below[r], x_ticks + _label_room(ax.xaxis, renderer, dpi))
        above[r] = max(above[r], _title_room(ax, renderer, dpi) + _offset_room(ax, dpi))
    top = above[0]
    suptitle = _suptitle(fig)
    if suptitle is not None:
        suptitle.set_y(1.0 - pad / fig.get_size_inches()[1])  # at the top, under the pad
        top += suptitle.get_window_extent(renderer).height / dpi + pad
    col_gap = max((right[c] + left[c + 1] for c in range(cols - 1)), default=0.0)
    row_gap = max((below[r] + above[r + 1] for r in range(rows - 1)), default=0.0)
    return (
        left[0] + pad,
        right[-1] + pad,
        below[-1] + pad,
        top + pad,
        col_gap + pad,
        row_gap + pad,
    )


def _apply(fig: Figure, axes: list[Axes], inches: tuple[float, ...]) -> None:
    """`Figure.subplots_adjust` from margins and gaps in inches."""
    left, right, bottom, top, col_gap, row_gap = inches
    spec = axes[0].get_subplotspec()
    assert spec is not None
    rows, cols = spec.get_geometry()[:2]
    width, height = fig.get_size_inches()
    panel_w = max((width - left - right - (cols - 1) * col_gap) / cols, 0.1 * width / cols)
    panel_h = max((height - bottom - top - (rows - 1) * row_gap) / rows, 0.1 * height / rows)
    fig.subplots_adjust(
        left=left / width,
        right=1.0 - right / width,
        bottom=bottom / height,
        top=1.0 - top / height,
        wspace=col_gap / panel_w,
        hspace=row_gap / panel_h,
    )


def _tick_strings(axis: Axis) -> list[str]:
    """The major tick labels the draw will show: every tick formatted, as the draw
    formats them (the formatter picks its precision and offset from all of them), those
    inside the view limits kept."""
    locs = [float(v) for v in axis.get_majorticklocs()]
    texts = axis.get_major_formatter().format_ticks(locs)
    lo, hi = sorted(axis.get_view_interval())
    eps = 1e-10 * max(abs(lo), abs(hi), 1.0)
    return [t for v, t in zip(locs, texts, strict=True) if t and lo - eps <= v <= hi + eps]


def _tick_sizes(axis: Axis, dpi: float) -> list[tuple[float, float]]:
    """(width, height) in pixels of each major tick label the draw will show."""
    size = _points(f"{_name(axis)}tick.labelsize")
    return [_string_size(s, size, dpi) for s in _tick_strings(axis)]


def _name(axis: Axis) -> str:
    """ "x" or "y" (matplotlib's stubs do not declare `Axis.axis_name`)."""
    return str(getattr(axis, "axis_name", "x"))


def _rc(key: str) -> Any:
    """A matplotlib setting by a key made at run time (the stubs take literals only)."""
    import matplotlib as mpl

    return cast("Mapping[str, Any]", mpl.rcParams)[key]


def _points(key: str) -> float:
    """A font size setting of matplotlib (``"ytick.labelsize"``: 10, or "medium") in points."""
    from matplotlib.font_manager import FontProperties

    return float(FontProperties(size=_rc(key)).get_size_in_points())


def _ticks_room(sizes: list[tuple[float, float]], axis: Axis, dpi: float) -> float:
    """Inches from a panel's edge to the far side of its tick labels (`sizes`, pixels):
    tick length, pad and the labels' width (y axis) or height (x axis)."""
    if not sizes:
        return 0.0
    which = f"{_name(axis)}tick"
    extent = max(w if _name(axis) == "y" else h for w, h in sizes)
    out = float(_rc(f"{which}.major.size")) if _rc(f"{which}.direction") != "in" else 0.0
    return (out + float(_rc(f"{which}.major.pad"))) / 72.0 + extent / dpi


@functools.lru_cache(maxsize=4096)
def _string_size(text: str, size: float, dpi: float) -> tuple[float, float]:
    """(width, height + descent) in pixels of one line of plain or math text in the
    default font at `size` points, as the Agg renderer at `dpi` draws it (tick labels
    repeat from chart to chart: measured once)."""
    from matplotlib.backends.backend_agg import RendererAgg
    from matplotlib.font_manager import FontProperties

    ismath = text.count("$") >= 2 and text != "$"
    renderer = RendererAgg(1, 1, dpi)
    w, h, _d = renderer.get_text_width_height_descent(text, FontProperties(size=size), ismath)
    return float(w), float(h)


def _label_room(axis: Axis, renderer: RendererBase, dpi: float) -> float:
    """Inches an axis label takes across its axis, with its pad (0 without a label)."""
    label = axis.label
    if not label.get_text():
        return 0.0
    box = label.get_window_extent(renderer)
    across = box.width if _name(axis) == "y" else box.height
    return (axis.labelpad + 1.0) / 72.0 + across / dpi


def _suptitle(fig: Figure) -> Text | None:
    """The figure's suptitle (a `Text`; None without one): matplotlib keeps no public
    handle of the object, only of its string."""
    text = getattr(fig, "_suptitle", None)
    return text if text is not None and text.get_text() else None


def _title_room(ax: Axes, renderer: RendererBase, dpi: float) -> float:
    """Inches a panel's title (`Axes.set_title`, centred) takes above it, with its pad."""
    import matplotlib as mpl

    if not ax.title.get_text():
        return 0.0
    height = ax.title.get_window_extent(renderer).height
    return (mpl.rcParams["axes.titlepad"] + 1.0) / 72.0 + height / dpi


def _offset_text(ax: Axes) -> str:
    """The y axis's offset or exponent text as last formatted ('' if none)."""
    get_offset = getattr(ax.yaxis.get_major_formatter(), "get_offset", None)
    return str(get_offset()) if get_offset is not None else ""


def _offset_room(ax: Axes, dpi: float) -> float:
    """Inches the y axis's offset or exponent text (``1e-5``) takes above the panel
    (its formatter sets the text while formatting the ticks: call after `_tick_sizes`)."""
    text = _offset_text(ax)
    if not text:
        return 0.0
    return _string_size(text, _points("ytick.labelsize"), dpi)[1] / dpi + 2.0 / 72.0


__all__ = ["PAD_PT", "fit_margins"]
