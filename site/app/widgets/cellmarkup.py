"""Markup of a whole element grid, or of a long list of options, in one string (pure: no browser imports,
tested in CPython).

Writing a thousand cells one by one costs a thousand calls into the page; one string costs one.
Everything is escaped, although classes, labels and texts come from this app's own constants and numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape


def cells_markup(
    cols: int,
    texts: Sequence[str],
    classes: Mapping[int, str],
    labels: Mapping[int, str],
    level: str = "",
    array: str = "",
) -> str:
    """One span per cell. `level` (global, shared, register, output: SPEC §7) is written on every cell; each
    cell names its grid and place (`data-array`, `data-index="row,col"`, SPEC §7: a guided question's answer
    is given by clicking cells) besides the `data-r`/`data-c` its own click reads."""
    parts = []
    level_attribute = f' data-level="{escape(level)}"' if level else ""
    name = escape(array)
    for index, text in enumerate(texts):
        row, col = divmod(index, cols)
        cls = escape(f"cell {classes.get(index, '')}".strip())
        label = f' data-label="{escape(labels[index])}"' if index in labels else ""
        parts.append(
            f'<span class="{cls}" data-r="{row}" data-c="{col}" data-array="{name}" data-index="{row},{col}"'
            f"{level_attribute}{label}>{escape(text)}</span>"
        )
    return "".join(parts)


def options_markup(options: Sequence[tuple[int, str]]) -> str:
    """`<option>`s of a picker: (value, text) each."""
    return "".join(f'<option value="{int(value)}">{escape(text)}</option>' for value, text in options)
