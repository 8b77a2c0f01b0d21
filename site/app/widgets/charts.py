"""Small SVG charts built from numbers only (no user text reaches the markup).

Every label is placed from an estimate of its width (chartmath.text_width) so it
stays inside its picture; the SVG scales with its viewBox, so this holds at any width.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core.dom import svg
from .chartmath import fit_x, nice_ceiling, nice_ticks, text_width, tick_label

FONT = 12  # px, as .picture text in tilelab.css
ROW = 16  # px between stacked label rows


def picture(width: int, height: int, label: str):
    """An empty, accessible SVG drawing: role img, labelled, with a <title>."""
    # width: the natural size a phone draws it at (phone.css), so its 12 px labels stay 12 px; wider screens
    # size it by CSS.
    drawing = svg("svg", "picture", viewBox=f"0 0 {width} {height}", width=str(width), role="img", aria_label=label)
    drawing.appendChild(svg("title", text=label))
    return drawing


def label(text: str, x: float, y: float, low: float, high: float, anchor: str = "start", cls: str = ""):
    """A <text> moved sideways as needed to stay within [low, high]."""
    x = fit_x(x, text, low, high, FONT, anchor)
    return svg("text", cls, text=text, x=f"{x:.1f}", y=f"{y:.1f}", text_anchor=anchor)


def line_chart(
    points: Sequence[tuple[float, float]],
    title: str,
    x_label: str,
    y_label: str,
    highlight: float | None = None,
    walls: Sequence[tuple[float, float, str]] = (),
    width: int = 520,
    height: int = 260,
    highlight_label: str | None = None,
):
    """An x/y line chart from y = 0, round ticks, optional shaded 'wall' x-ranges (start, end, label)."""
    xs = [x for x, _ in points]
    x_min, x_max = min(xs), max(xs)
    y_max = nice_ceiling(max(y for _, y in points))
    y_ticks = nice_ticks(0, y_max)
    left = 10 + max(text_width(tick_label(y), FONT) for y in y_ticks)
    right, top, bottom = 12, 24, 40
    plot_right = width - right
    sx = lambda x: left + (x - x_min) / ((x_max - x_min) or 1) * (plot_right - left)  # noqa: E731
    sy = lambda y: height - bottom - y / y_max * (height - top - bottom)  # noqa: E731
    chart = picture(width, height, title)
    for i, (start, end, text) in enumerate(walls):
        x0, x1 = sx(max(start, x_min)), sx(min(end, x_max))
        chart.appendChild(
            svg(
                "rect",
                "wall",
                x=f"{x0:.1f}",
                y=str(top),
                width=f"{max(x1 - x0, 2):.1f}",
                height=str(height - top - bottom),
            )
        )
        chart.appendChild(label(text, x0 + 4, top + 14 + i * ROW, left + 4, plot_right - 4, cls="wall-label"))
    for y in y_ticks:
        chart.appendChild(
            svg("line", "grid", x1=f"{left:.1f}", y1=f"{sy(y):.1f}", x2=str(plot_right), y2=f"{sy(y):.1f}")
        )
        chart.appendChild(svg("text", text=tick_label(y), x=f"{left - 6:.1f}", y=f"{sy(y) + 4:.1f}", text_anchor="end"))
    base = height - bottom
    chart.appendChild(svg("line", "axis", x1=f"{left:.1f}", y1=str(base), x2=str(plot_right), y2=str(base)))
    chart.appendChild(svg("line", "axis", x1=f"{left:.1f}", y1=str(top), x2=f"{left:.1f}", y2=str(base)))
    for x in nice_ticks(x_min, x_max):
        chart.appendChild(svg("line", "axis", x1=f"{sx(x):.1f}", y1=str(base), x2=f"{sx(x):.1f}", y2=str(base + 4)))
        chart.appendChild(label(tick_label(x), sx(x), base + 17, 0, width, anchor="middle"))
    path = " ".join(f"{'M' if i == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for i, (x, y) in enumerate(points))
    chart.appendChild(svg("path", "curve", d=path))
    for x, y in points:
        if highlight is not None and x == highlight:
            text = highlight_label or f"{x_label} = {x:g}: {y_label} = {y:.3g}"
            chart.appendChild(svg("circle", "point", cx=f"{sx(x):.1f}", cy=f"{sy(y):.1f}", r="6"))
            ty = min(max(sy(y) - 10, top + 14 + len(walls) * ROW), base - 8)
            chart.appendChild(label(text, sx(x) + 10, ty, left + 4, plot_right - 4, cls="point-label"))
    chart.appendChild(label(x_label, (left + plot_right) / 2, height - 6, 0, width, anchor="middle"))
    chart.appendChild(label(y_label, left, 14, 0, width))
    return chart


def bar_chart(
    bars: Sequence[tuple[str, float, str]],
    title: str,
    width: int = 520,
    height: int | None = None,
    factor: str = "",
    value_labels: Sequence[str] = (),
):
    """Horizontal bars (label, value, css class), each labelled with its value (or `value_labels`).

    `factor` labels the gap between the first two bars (e.g. "16× fewer").
    """
    texts = list(value_labels) or [f"{value:,.0f}" for _, value, _ in bars]
    bar_h, gap = 26, 14
    top = 8
    height = height or top + len(bars) * (bar_h + gap) + (ROW + 8 if factor else 0) + 4
    chart = picture(width, height, title)
    name_w = 8 + max(text_width(name, FONT) for name, _, _ in bars)
    room = width - name_w - 8 - max(text_width(t, FONT) for t in texts) - 8  # longest bar + its value fit
    largest = max(value for _, value, _ in bars) or 1
    ends = []
    for i, ((name, value, cls), text) in enumerate(zip(bars, texts)):
        y = top + i * (bar_h + gap)
        length = max(value / largest * room, 2)
        ends.append(name_w + length)
        chart.appendChild(svg("text", text=name, x="4", y=f"{y + bar_h / 2 + 4:.1f}"))
        chart.appendChild(svg("rect", cls, x=f"{name_w:.1f}", y=f"{y:.1f}", width=f"{length:.1f}", height=str(bar_h)))
        chart.appendChild(label(text, name_w + length + 6, y + bar_h / 2 + 4, 0, width - 4))
    if factor and len(ends) >= 2:
        y = top + len(bars) * (bar_h + gap) + 4
        chart.appendChild(
            svg("line", "factor-span", x1=f"{ends[1]:.1f}", y1=f"{y:.1f}", x2=f"{ends[0]:.1f}", y2=f"{y:.1f}")
        )
        chart.appendChild(label(factor, (ends[0] + ends[1]) / 2, y + ROW, 4, width - 4, anchor="middle", cls="factor"))
    return chart
