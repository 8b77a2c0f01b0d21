"""The page and its window: the document, timers that never run, and the few browser objects the views read."""

from __future__ import annotations

import itertools

from .nodes import Element, EventTarget, Text
from .parts import Collection, _no_effect


class Document(Element):
    """The page: an <html> element with a factory for nodes."""

    def __init__(self) -> None:
        super().__init__("html")
        self.documentElement = self
        self.activeElement: Element | None = None

    def createElement(self, tag: str) -> Element:
        return Element(tag)

    def createElementNS(self, namespace: str, tag: str) -> Element:
        return Element(tag, namespace)

    def createTextNode(self, data: str) -> Text:
        return Text(data)

    def getElementById(self, element_id: str) -> Element | None:
        return self.querySelector(f'[id="{element_id}"]')

    @property
    def body(self) -> Element | None:
        return self.querySelector("body")


class ComputedStyle:
    """No style sheets at build time: every computed property reads empty."""

    def getPropertyValue(self, name: str) -> str:
        return ""

    def __getattr__(self, name: str) -> str:
        return ""


class Performance:
    def now(self) -> float:
        return 0.0


class JsObject:
    """`window.Object`: what `to_js(..., dict_converter=window.Object.fromEntries)` names."""

    @staticmethod
    def fromEntries(entries) -> dict:
        return dict(entries)


class Location:
    """The page's address as served: the pre-render draws the default state, for any host."""

    protocol = "https:"


class Worker:
    """A worker that is started and never answers (the playground's runner reads as "starting")."""

    @classmethod
    def new(cls, url: str, options: object = None) -> Worker:
        return cls()

    def __init__(self) -> None:
        self.addEventListener = self.removeEventListener = self.postMessage = self.terminate = _no_effect


class IntersectionObserver:
    """An observer that never reports: nothing is on screen at build time."""

    @classmethod
    def new(cls, callback: object, options: object = None) -> IntersectionObserver:
        return cls()

    def __init__(self) -> None:
        self.observe = self.disconnect = _no_effect


class Window(EventTarget):
    """The globals the views read. Timers get an id and never run."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.performance = Performance()
        self.Object = JsObject
        self.Worker = Worker
        self.IntersectionObserver = IntersectionObserver
        self.location = Location()
        self.devicePixelRatio = 1
        self._ids = itertools.count(1)
        for name in ("setTimeout", "setInterval", "requestAnimationFrame"):
            setattr(self, name, self._timer)
        for name in ("clearTimeout", "clearInterval", "tilelabGridPaint", "tilelabFly"):
            setattr(self, name, _no_effect)

    @staticmethod
    def tilelabUpdate(
        elements: Collection[Element] | list[Element], indices: list[int], texts: list, classes: list | None = None
    ) -> None:
        """site/gridpaint.js's `update`, which the element grids and the monitors call: the changed
        elements' texts and classes (None where that side is unchanged). `elements` is a grid's
        children or a list of monitor cells."""
        for i, index in enumerate(indices):
            element = elements.item(index) if isinstance(elements, Collection) else elements[index]
            if element is None:
                raise IndexError(f"an update names element {index}, beyond the {len(elements)} given")
            if texts[i] is not None:
                element.textContent = texts[i]
            if classes is not None and classes[i] is not None:
                element.className = classes[i]

    @staticmethod
    def tilelabWrite(elements: list[Element], names: list[str], values: list[str]) -> None:
        """site/gridpaint.js's `write`, which the warp pictures call: each element's attribute, or its
        text where the name is ""."""
        for element, name, value in zip(elements, names, values, strict=True):
            if name:
                element.setAttribute(name, value)
            else:
                element.textContent = value

    def _timer(self, callback: object, delay: float = 0) -> int:
        return next(self._ids)

    def getComputedStyle(self, element: Element) -> ComputedStyle:
        return ComputedStyle()
