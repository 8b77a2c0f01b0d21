"""The app's stylesheets (site/css/tilelab.css, views.css, picture.css, in page order) read as rules, for the
memory-level tests: the colour variables of each scheme,
and the declarations of every rule outside a media query. A small reader (comments dropped, one level of
@media), enough for this app's own sheet; WCAG 2 contrast from sRGB hex colours."""

from __future__ import annotations

import re

from tools.sitebuild.paths import SITE

SHEETS = tuple(SITE / "css" / name for name in ("tilelab.css", "views.css", "picture.css"))  # as index.html links them
DARK = "@media (prefers-color-scheme: dark)"
Rule = tuple[str, dict[str, str]]


def _blocks(text: str) -> list[tuple[str, str]]:
    """(prelude, body) of each top-level block, bodies with their nested braces."""
    found, depth, start, prelude_start = [], 0, 0, 0
    for i, char in enumerate(text):
        if char == "{":
            if depth == 0:
                start = i
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                found.append((text[prelude_start:start].strip(), text[start + 1 : i]))
                prelude_start = i + 1
    return found


def _declarations(body: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in body.split(";") if ":" in part)
    return {name.strip(): value.strip() for name, value in pairs}


def rules(media: str = "") -> list[Rule]:
    """(selector, declarations) of every rule at the top level (media "") or inside that @media block."""
    text = re.sub(r"/\*.*?\*/", "", "\n".join(sheet.read_text(encoding="utf-8") for sheet in SHEETS), flags=re.S)
    found = []
    for prelude, body in _blocks(text):
        if prelude.startswith("@media") or prelude.startswith("@keyframes"):
            if prelude == media:
                found += [(selector, _declarations(inner)) for selector, inner in _blocks(body)]
        elif not media:
            found.append((prelude, _declarations(body)))
    return found


def root_variables(dark: bool) -> dict[str, str]:
    """The custom properties :root sets in the light scheme, or in the dark one (light, then dark's)."""
    variables: dict[str, str] = {}
    for media in ("", DARK) if dark else ("",):
        for selector, declarations in rules(media):
            if selector == ":root":
                variables |= {name: value for name, value in declarations.items() if name.startswith("--")}
    return variables


def luminance(colour: str) -> float:
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(first: str, second: str) -> float:
    high, low = sorted((luminance(first), luminance(second)), reverse=True)
    return (high + 0.05) / (low + 0.05)
