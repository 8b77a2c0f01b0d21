"""The one module that touches the browser DOM directly: small element helpers.

Text always goes in through textContent. The only markup strings are built
from numbers (see `cells_markup`), never from user or URL text.

Every Python callable JavaScript may call is a pyodide proxy, and a proxy lives
until it is destroyed. `Listeners` gives them a lifetime: a widget that is
replaced closes its Listeners, which removes its DOM listeners and destroys
their proxies. `LIVE_PROXIES` counts the proxies made here that are still alive
(mirrored to `window.tilelabLiveProxies` for bench/long_run.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from pyodide.ffi import create_proxy
from pyscript import document, window

SVG_NS = "http://www.w3.org/2000/svg"
LIVE_PROXIES = [0]  # one cell, so the count is shared without a global statement


def _count(change: int) -> None:
    LIVE_PROXIES[0] += change
    window.tilelabLiveProxies = LIVE_PROXIES[0]


class Listeners:
    """The DOM listeners and callback proxies of one owner (a widget, a view); `close` undoes them all."""

    def __init__(self) -> None:
        self._held: list[tuple[object | None, str, object]] = []

    def proxy(self, handler: Callable) -> object:
        """A proxy for a timer or a JavaScript callback, destroyed with the others on `close`."""
        made = create_proxy(handler)
        self._held.append((None, "", made))
        _count(1)
        return made

    def on(self, target, event: str, handler: Callable) -> object:
        made = self.proxy(handler)
        self._held[-1] = (target, event, made)
        target.addEventListener(event, made)
        return made

    def close(self) -> None:
        for target, event, made in self._held:
            if target is not None:
                target.removeEventListener(event, made)
            made.destroy()
        _count(-len(self._held))
        self._held = []


# Work the reader does not see at once (the address, an off-screen table) waits this long after the
# task that changed the step: a frame comes within 16.7 ms at 60 Hz, so it follows the frame that
# shows the step instead of delaying it.
AFTER_FRAME_MS = 20

# Listeners of parts built once per page (a view's form, the shell): never closed.
PAGE = Listeners()


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
    """A listener for the page's lifetime (for parts that are never replaced)."""
    PAGE.on(element, event, handler)


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
