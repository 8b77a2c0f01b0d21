"""Pure chart geometry (no browser imports, unit-tested in CPython): round ticks and text widths."""

from __future__ import annotations

from math import ceil, floor, log10

NICE_STEPS = (1, 2, 5, 10)
# Average glyph widths in em for a sans-serif face, rounded up so estimates err wide.
NARROW, WIDE, DIGIT, UPPER, OTHER = 0.34, 0.95, 0.64, 0.74, 0.6


def nice_step(span: float, count: int = 5) -> float:
    """The smallest 1, 2 or 5 × 10ⁿ at least span / count."""
    raw = span / count if span > 0 else 1.0
    power = 10 ** floor(log10(raw))
    return next(step * power for step in NICE_STEPS if step * power >= raw * (1 - 1e-9))


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values (multiples of 1, 2 or 5 × 10ⁿ) inside [low, high], about `count` intervals."""
    if high < low:
        low, high = high, low
    step = nice_step(high - low, count)
    first = ceil(low / step - 1e-9)  # tolerant of float noise
    last = floor(high / step + 1e-9)
    return [_clean(i * step) for i in range(first, last + 1)]


def nice_ceiling(value: float, count: int = 5) -> float:
    """The first round tick at or above `value` on an axis from 0 (so the top tick closes the axis)."""
    if value <= 0:
        return 1.0
    step = nice_step(value, count)
    return _clean(ceil(value / step - 1e-9) * step)


def _clean(value: float) -> float:
    """Drop float noise (0.30000000000000004 → 0.3) and negative zero."""
    return float(f"{value:.12g}") + 0.0


def tick_label(value: float) -> str:
    """1,000 / 2.5 / 0.02: thousands separators, no trailing zeros."""
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,.6f}".rstrip("0").rstrip(".")


def text_width(text: str, size: float = 12) -> float:
    """An estimate (wider than most fonts draw) of the width of `text` at font size `size`."""
    total = 0.0
    for char in text:
        if char in " .,:;'|!ilI1()[]-":
            total += NARROW
        elif char in "mwMW—×→≈":
            total += WIDE
        elif char.isdigit():
            total += DIGIT
        elif char.isupper():
            total += UPPER
        else:
            total += OTHER
    return total * size


def fit_x(x: float, text: str, low: float, high: float, size: float = 12, anchor: str = "start") -> float:
    """Shift a label's anchor x so the label lies within [low, high] (as far as it fits)."""
    width = text_width(text, size)
    left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
    shift = min(0.0, high - (left + width)) or max(0.0, low - left)
    return x + shift
