"""The blocktiled views' explanations: fill site/partials/<kernel>-explain.html from
pysim.lessons.blocktiled (what changed from the rung below, which cost it removes), for the
sizes on screen. Imports in CPython too (the DOM is only touched by `show`)."""

from __future__ import annotations

from pysim.lessons import blocktiled

from ..core import slots

NOT_COUNTED = "—"  # no number (the rung below cannot run here): an empty data-value says so


def show(root, kernel: str, params) -> None:
    """Fill the explanation under `root` (the view's <section>) for `params`."""
    values = blocktiled.slot_values(kernel, params)
    slots.fill(root, values)
    for name, value in values.items():
        if value == NOT_COUNTED:
            nodes = root.querySelectorAll(f'[data-slot="{name}"]')
            for i in range(nodes.length):
                nodes.item(i).setAttribute("data-value", "")
    for name, visible in blocktiled.shown(kernel, params).items():
        slots.show(root, f'[data-show="{name}"]', visible)
