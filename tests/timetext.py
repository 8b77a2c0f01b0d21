"""Times printed in page or CLI text, read back in seconds (for the bound and estimate checks)."""

from __future__ import annotations

import re

DURATION = re.compile(r"(\d[\d,]*(?:\.\d+)?) (ns|µs|ms|s)\b")
SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}


def durations(text: str) -> list[float]:
    """Every time printed in `text` ('3.55 ms', '206 ns'), in seconds."""
    return [float(number.replace(",", "")) * SCALE[unit] for number, unit in DURATION.findall(text)]


def bound_times(text: str) -> list[float]:
    """The times printed in every sentence of `text` that calls something a bound."""
    sentences = re.split(r"(?<=\.)\s+|\n+", text)
    return [t for sentence in sentences if re.search(r"\bbounds?\b", sentence, re.I) for t in durations(sentence)]
