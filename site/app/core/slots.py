"""Fill the number slots of static prose (site/partials/*.html) with values from pysim.

A slot is an element with `data-slot="name"`; the page ships it holding the
default sizes' value and `data-default`, so the text reads correctly before
Python starts. Filling writes text only (never markup) and drops `data-default`.

A noun beside a number slot agrees with it: `<span data-noun="name" data-one="bank"
data-many="banks">` reads "bank" when the slot `name` holds 1 (pysim.core.words.plural).
"""

from __future__ import annotations

from collections.abc import Mapping

from pysim.core.words import plural


def fill(root, values: Mapping[str, object]) -> None:
    """Write each value into every slot of that name under `root`; ints get thousands separators
    and keep their exact value in `data-value`."""
    for name, value in values.items():
        nodes = root.querySelectorAll(f'[data-slot="{name}"]')
        text = f"{value:,}" if isinstance(value, int) and not isinstance(value, bool) else str(value)
        for i in range(nodes.length):
            node = nodes.item(i)
            if node.textContent != text:
                node.textContent = text
            node.removeAttribute("data-default")
            if isinstance(value, int) and not isinstance(value, bool):
                node.setAttribute("data-value", str(value))
        if isinstance(value, int) and not isinstance(value, bool):
            nouns = root.querySelectorAll(f'[data-noun="{name}"]')
            for i in range(nouns.length):
                node = nouns.item(i)
                word = plural(value, str(node.getAttribute("data-one")), str(node.getAttribute("data-many")))
                if node.textContent != word:
                    node.textContent = word


def show(root, selector: str, visible: bool) -> None:
    """Show or hide the elements under `root` that match `selector` (alternative sentences)."""
    nodes = root.querySelectorAll(selector)
    for i in range(nodes.length):
        if visible:
            nodes.item(i).removeAttribute("hidden")
        else:
            nodes.item(i).setAttribute("hidden", "")
