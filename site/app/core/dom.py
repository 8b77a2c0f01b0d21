"""The one module that touches the browser DOM directly: small element helpers.

Text always goes in through textContent. The only markup strings are built
from numbers (see `cells_markup`), never from user or URL text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pyodide.ffi import create_proxy
from pyscript import document, window

SVG_NS = "http://www.w3.org/2000/svg"
_handlers: list = []  # proxies must outlive the call that created them


def by_id(element_id: str):
    return document.getElementById(element_id)


def h(tag: str, cls: str = "", text: str | None = None, children: Iterable = (), **attrs: str):
    """Create an HTML element; attribute names use _ for - (data_testid -> data-testid)."""
    element = document.createElement(tag)
    if cls:
        element.className = cls
    if text is not None:
        element.textContent = text
    for name, value in attrs.items():
        element.setAttribute(name.rstrip("_").replace("_", "-"), str(value))
    for child in children:
        element.appendChild(child)
    return element


def svg(tag: str, cls: str = "", text: str | None = None, **attrs) -> object:
    element = document.createElementNS(SVG_NS, tag)
    if cls:
        element.setAttribute("class", cls)
    if text is not None:
        element.textContent = text
    for name, value in attrs.items():
        element.setAttribute(name.rstrip("_").replace("_", "-"), str(value))
    return element


def clear(element) -> None:
    while element.firstChild:
        element.removeChild(element.firstChild)


def on(element, event: str, handler: Callable) -> None:
    proxy = create_proxy(handler)
    _handlers.append(proxy)
    element.addEventListener(event, proxy)


def every(ms: int, handler: Callable) -> int:
    proxy = create_proxy(handler)
    _handlers.append(proxy)
    return window.setInterval(proxy, ms)


def stop(timer: int | None) -> None:
    if timer is not None:
        window.clearInterval(timer)


def set_number_markup(element, markup: str) -> None:
    """Replace an element's content with markup built only from numbers by this app."""
    element.innerHTML = markup


def fmt(value: float) -> str:
    """A cell value: whole numbers without a decimal point, NaN (unwritten) as blank."""
    if value != value:
        return ""
    return f"{value:g}"


def thousands(value: int) -> str:
    return f"{value:,}"
