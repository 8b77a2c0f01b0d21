"""The step controls' icons as SVG paths, never font glyphs: Debian's Chromium drew "⏸" as an empty box
(issue 39), and a glyph's width changes with the font, so Play→Pause moved the buttons after it."""

from __future__ import annotations

from ..core.dom import h, svg

# 16×16 paths, filled with the text's colour (currentColor).
PATHS = {
    "play": "M4 2.5v11l9-5.5z",
    "pause": "M3.5 2.5h3v11h-3zM9.5 2.5h3v11h-3z",
    "prev": "M12 2.5v11l-8-5.5z",
    "next": "M4 2.5v11l8-5.5z",
    "block": "M2 2.5v11l6-5.5zM8 2.5v11l6-5.5z",
    "end": "M2 2.5v11l7-5.5zM11 2.5h3v11h-3z",
    "reset": "M8 2a6 6 0 1 1-5.7 4.1l1.9.6A4 4 0 1 0 8 4v2.5L4 3l4-3.5z",
    "stop": "M3 3h10v10H3z",
}


def icon(name: str):
    """An icon as an <svg> the screen reader skips (the button's text names the action)."""
    picture = svg("svg", "icon", viewBox="0 0 16 16", width="16", height="16", aria_hidden="true", focusable="false")
    picture.appendChild(svg("path", "", d=PATHS[name], fill="currentColor"))
    return picture


def labelled(name: str, text: str, after: bool = False):
    """An icon and its words, as a button's children (the icon after the words when `after`)."""
    words = h("span", "", text)
    return [words, icon(name)] if after else [icon(name), words]
