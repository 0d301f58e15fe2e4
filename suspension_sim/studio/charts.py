"""The current motion's charts as small SVG pictures (no plotting library: fast to redo
on every slider move). Each `session.Chart` becomes one ``<svg>``: a line per wheel
(car B dashed), a dot on each line at the current pose with its values in ``data-x``
and ``data-y`` (full precision, for tests), axes with round ticks.
"""

from __future__ import annotations

import math
from html import escape

from suspension_sim.studio.session import Chart

WIDTH, HEIGHT = 330, 210
LEFT, RIGHT, TOP, BOTTOM = 52, 10, 22, 34
COLOURS: tuple[str, ...] = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b")
"""Line colour per wheel (or axle), in the order the car lists them."""


def nice_ticks(low: float, high: float, n: int = 5) -> list[float]:
    """Round tick values inside [low, high]: a step of 1, 2, 2.5 or 5 x 10^k giving 3 to
    8 ticks, the count nearest `n`."""
    if not (math.isfinite(low) and math.isfinite(high)):
        return []
    if high - low < 1e-12:
        low, high = low - 0.5, high + 0.5
    e = math.floor(math.log10((high - low) / max(n - 1, 1)))
    best: list[float] = []
    for k in (e - 1, e, e + 1):
        for m in (1.0, 2.0, 2.5, 5.0):
            step = m * 10.0**k
            first = math.ceil(low / step - 1e-9)
            last = math.floor(high / step + 1e-9)
            ticks = [0.0 if i == 0 else i * step for i in range(first, last + 1)]
            if 3 <= len(ticks) <= 8 and (not best or abs(len(ticks) - n) < abs(len(best) - n)):
                best = ticks
    return best


def chart_svg(chart: Chart, index: int) -> str:
    """One chart as an SVG element (id ``chart-<index>``)."""
    xs = [x for s in chart.series for x in s.x if math.isfinite(x)]
    ys = [y for s in chart.series for y in s.y if math.isfinite(y)]
    ys += [m[2] for m in chart.marker if math.isfinite(m[2])]
    if not xs or not ys:
        return ""
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(ys), max(ys)
    if x1 - x0 < 1e-12:
        x0, x1 = x0 - 1.0, x1 + 1.0
    pad = max((y1 - y0) * 0.08, 1e-3 * max(1.0, abs(y0), abs(y1)))
    y0, y1 = y0 - pad, y1 + pad
    pw, ph = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(x: float) -> float:
        return LEFT + (x - x0) / (x1 - x0) * pw

    def py(y: float) -> float:
        return TOP + (y1 - y) / (y1 - y0) * ph

    parts = [
        f'<svg id="chart-{index}" class="chart" xmlns="http://www.w3.org/2000/svg" '
        f'width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'data-title="{escape(chart.title)}">',
        f'<text x="{LEFT}" y="14" font-size="12" font-weight="bold">{escape(chart.title)}</text>',
        f'<rect x="{LEFT}" y="{TOP}" width="{pw}" height="{ph}" fill="none" stroke="#999"/>',
    ]
    for t in nice_ticks(y0, y1):
        y = py(t)
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#eee"/>'
            f'<text x="{LEFT - 4}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{t:g}</text>'
        )
    for t in nice_ticks(x0, x1):
        x = px(t)
        parts.append(
            f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{TOP}" y2="{TOP + ph}" stroke="#eee"/>'
            f'<text x="{x:.1f}" y="{TOP + ph + 13}" font-size="10" '
            f'text-anchor="middle">{t:g}</text>'
        )
    parts.append(
        f'<text x="{LEFT + pw / 2:.1f}" y="{HEIGHT - 4}" font-size="11" text-anchor="middle">'
        f"{escape(chart.x_label)}</text>"
    )
    colour: dict[str, str] = {}
    for s in chart.series:
        colour.setdefault(s.label, COLOURS[len(colour) % len(COLOURS)])
    for s in chart.series:
        pts = " ".join(
            f"{px(x):.1f},{py(y):.1f}"
            for x, y in zip(s.x, s.y, strict=True)
            if math.isfinite(x) and math.isfinite(y)
        )
        dash = ' stroke-dasharray="5,3" opacity="0.8"' if s.car == "B" else ""
        parts.append(
            f'<polyline points="{pts}" fill="none" stroke="{colour[s.label]}" '
            f'stroke-width="1.6"{dash} data-car="{s.car}" data-label="{escape(s.label)}" '
            f'data-group="{escape(s.group)}"><title>{escape(s.label)} {escape(s.group)}</title>'
            "</polyline>"
        )
    for label, x, y in chart.marker:
        if math.isfinite(x) and math.isfinite(y):
            parts.append(
                f'<circle class="marker" cx="{px(min(max(x, x0), x1)):.1f}" cy="{py(y):.1f}" '
                f'r="4" fill="{colour.get(label, "#000")}" stroke="#000" '
                f'data-label="{escape(label)}" data-x="{x!r}" data-y="{y!r}"/>'
            )
    lx = LEFT + 6
    for i, (label, c) in enumerate(colour.items()):
        parts.append(
            f'<text x="{lx + 44 * i}" y="{TOP + 12}" font-size="10" fill="{c}">'
            f"{escape(label)}</text>"
        )
    parts.append("</svg>")
    return "".join(parts)


def charts_html(charts: list[Chart], note: str = "") -> str:
    """Every chart side by side; `note` (why there is none) when the list is empty."""
    if not charts:
        return f'<p class="chart-note">{escape(note or "no charts for this motion")}</p>'
    return "".join(chart_svg(c, i) for i, c in enumerate(charts))
