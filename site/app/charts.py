"""Small SVG charts built from numbers only (no user text reaches the markup)."""

from __future__ import annotations

from collections.abc import Sequence

from .dom import svg


def picture(width: int, height: int, label: str):
    """An empty, accessible SVG drawing: role img, labelled, with a <title>."""
    drawing = svg("svg", "picture", viewBox=f"0 0 {width} {height}", role="img", aria_label=label)
    drawing.appendChild(svg("title", text=label))
    return drawing


def line_chart(
    points: Sequence[tuple[float, float]],
    title: str,
    x_label: str,
    y_label: str,
    highlight: float | None = None,
    walls: Sequence[tuple[float, float, str]] = (),
    width: int = 520,
    height: int = 260,
):
    """An x/y line chart with optional shaded 'wall' x-ranges (start, end, label)."""
    left, right, top, bottom = 56, 16, 24, 40
    xs = [x for x, _ in points]
    ys = [y for _, y in points]
    x_min, x_max = min(xs), max(xs)
    y_max = max(ys) * 1.1 or 1
    sx = lambda x: left + (x - x_min) / ((x_max - x_min) or 1) * (width - left - right)  # noqa: E731
    sy = lambda y: height - bottom - y / y_max * (height - top - bottom)  # noqa: E731
    chart = picture(width, height, title)
    for start, end, label in walls:
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
        chart.appendChild(svg("text", text=label, x=f"{x0 + 4:.1f}", y=str(top + 14)))
    chart.appendChild(
        svg("line", "axis", x1=str(left), y1=str(height - bottom), x2=str(width - right), y2=str(height - bottom))
    )
    chart.appendChild(svg("line", "axis", x1=str(left), y1=str(top), x2=str(left), y2=str(height - bottom)))
    path = " ".join(f"{'M' if i == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for i, (x, y) in enumerate(points))
    chart.appendChild(svg("path", "curve", d=path))
    for x, y in points:
        if highlight is not None and x == highlight:
            chart.appendChild(svg("circle", "point", cx=f"{sx(x):.1f}", cy=f"{sy(y):.1f}", r="6"))
            chart.appendChild(svg("text", text=f"{x:g}: {y:.3g}", x=f"{sx(x) + 8:.1f}", y=f"{sy(y) - 8:.1f}"))
    for x in _ticks(x_min, x_max):
        chart.appendChild(svg("text", text=f"{x:.3g}", x=f"{sx(x) - 4:.1f}", y=str(height - bottom + 16)))
    for y in _ticks(0, y_max):
        chart.appendChild(svg("text", text=f"{y:.3g}", x="4", y=f"{sy(y) + 4:.1f}"))
    chart.appendChild(svg("text", text=x_label, x=str(width // 2 - 40), y=str(height - 6)))
    chart.appendChild(svg("text", text=y_label, x=str(left), y="14"))
    return chart


def _ticks(low: float, high: float, count: int = 5) -> list[float]:
    step = (high - low) / count or 1
    return [low + i * step for i in range(count + 1)]


def bar_chart(bars: Sequence[tuple[str, float, str]], title: str, width: int = 520, height: int = 220):
    """Horizontal bars (label, value, css class), each labelled with its value."""
    chart = picture(width, height, title)
    largest = max(value for _, value, _ in bars) or 1
    row = (height - 20) / len(bars)
    for i, (label, value, cls) in enumerate(bars):
        y = 10 + i * row
        length = max(value / largest * (width - 200), 2)
        chart.appendChild(svg("text", text=label, x="4", y=f"{y + row / 2:.1f}"))
        chart.appendChild(svg("rect", cls, x="110", y=f"{y + 4:.1f}", width=f"{length:.1f}", height=f"{row - 12:.1f}"))
        chart.appendChild(svg("text", text=f"{value:,.0f}", x=f"{114 + length:.1f}", y=f"{y + row / 2 + 4:.1f}"))
    return chart
