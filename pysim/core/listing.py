"""Kernel listings whose statements are found by marker, never by a hand-counted line number.

A kernel's CUDA source is a `str.format` template in which each simulated
statement ends with a marker such as `@@load_a`. The markers are stripped
before the listing is shown; the line a step highlights is looked up from
them, so adding or removing a line cannot move a highlight onto the wrong
statement. A marker may sit on several lines (a setup of several statements).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

MARKER = re.compile(r"\s*@@([a-z_]+)\s*$")


@dataclass(frozen=True)
class Listing:
    template: str
    markers: dict[str, tuple[int, ...]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        found: dict[str, list[int]] = {}
        for number, text in enumerate(self.template.splitlines(), start=1):
            match = MARKER.search(text)
            if match:
                found.setdefault(match.group(1), []).append(number)
        object.__setattr__(self, "markers", {name: tuple(lines) for name, lines in found.items()})

    def at(self, marker: str) -> tuple[int, ...]:
        """The 1-based lines carrying `marker` (KeyError names a marker the listing lacks)."""
        return self.markers[marker]

    def render(self, **values: object) -> list[str]:
        """The listing with its constants filled in and the markers removed, one string per line."""
        text = self.template.format(**values)
        lines = [MARKER.sub("", line) for line in text.splitlines()]
        if len(lines) != len(self.template.splitlines()):
            raise ValueError("a listing value must not contain a line break")
        return lines
