"""An element's property objects (classList, style, dataset, a box, a canvas context) and live node lists."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar


class Attributed(Protocol):
    """What an element's property objects read and write of it (nodes.Element, which holds them)."""

    className: str  # noqa: N815 - the DOM's own name

    def getAttribute(self, name: str) -> str | None: ...

    def setAttribute(self, name: str, value: object) -> None: ...


Item = TypeVar("Item")


def kebab(name: str) -> str:
    """A camelCase DOM property's CSS or attribute spelling (borderTop -> border-top)."""
    return re.sub(r"[A-Z]", lambda m: "-" + m.group(0).lower(), name)


def _no_effect(*args: object, **kwargs: object) -> None:
    """Accepted and ignored (a listener, a focus change, a scroll)."""


class Collection(Generic[Item]):
    """A live list of nodes (`children`) or a static one (`querySelectorAll`): `length`, `item(i)`."""

    def __init__(self, nodes: Callable[[], list[Item]]) -> None:
        self._nodes = nodes

    @property
    def length(self) -> int:
        return len(self._nodes())

    def item(self, index: int) -> Item | None:
        nodes = self._nodes()
        return nodes[index] if 0 <= index < len(nodes) else None

    def __iter__(self) -> Iterator[Item]:
        return iter(self._nodes())

    def __len__(self) -> int:
        return self.length


class ClassList:
    def __init__(self, element: Attributed) -> None:
        self._element = element

    def _names(self) -> list[str]:
        return self._element.className.split()

    def contains(self, name: str) -> bool:
        return name in self._names()

    def add(self, *names: str) -> None:
        self._element.className = " ".join([*self._names(), *(n for n in names if n not in self._names())])

    def remove(self, *names: str) -> None:
        self._element.className = " ".join(n for n in self._names() if n not in names)

    def toggle(self, name: str, force: bool | None = None) -> bool:
        wanted = not self.contains(name) if force is None else bool(force)
        if wanted:
            self.add(name)
        else:
            self.remove(name)
        return wanted


class Style:
    """Inline style as the CSSOM sets it. CSP (style-src 'self') refuses a `style` attribute in
    markup, so this is written as `data-prerender-style`, which site/boot.js applies through the
    CSSOM."""

    properties: dict[str, str]

    def __init__(self) -> None:
        object.__setattr__(self, "properties", {})

    def setProperty(self, name: str, value: object) -> None:
        self.properties[name] = str(value)

    def getPropertyValue(self, name: str) -> str:
        return self.properties.get(name, "")

    def removeProperty(self, name: str) -> None:
        self.properties.pop(name, None)

    def __setattr__(self, name: str, value: object) -> None:
        self.setProperty(kebab(name), value)

    def text(self) -> str:
        return ";".join(f"{name}:{value}" for name, value in self.properties.items())


class Dataset:
    """`element.dataset`: data-* attributes by their camelCase names."""

    _element: Attributed

    def __init__(self, element: Attributed) -> None:
        object.__setattr__(self, "_element", element)

    def __getattr__(self, name: str) -> str | None:
        return self._element.getAttribute("data-" + kebab(name))

    def __setattr__(self, name: str, value: object) -> None:
        self._element.setAttribute("data-" + kebab(name), value)


class Rect:
    """A box before layout: everything measures zero."""

    left = top = right = bottom = width = height = x = y = 0.0


class Canvas2D:
    """A canvas context that paints nothing: pixels are Python's to paint once it runs."""

    def setTransform(self, *args: float) -> None:
        """No pixels at build time."""
