"""Start the app: mount the views, route the hash to them, and report ready."""

from __future__ import annotations

import importlib
from functools import partial

import pyodide_js
from pyodide.ffi import create_proxy
from pyscript import document, window

from ..widgets.share import ShareDialog
from .dom import AFTER_FRAME_MS, by_id, h, on
from .urlstate import VIEWS, Route, format_hash, open_in_full_hash, page_title, parse_hash

TYPING = ("INPUT", "SELECT", "TEXTAREA")
# The player's keys that also scroll a focused box (a listing, a wide table), by the axis they scroll it along.
# While such a box has focus and overflows along that axis, the key scrolls it and does not step.
SCROLL_AXIS = {"ArrowLeft": "x", "ArrowRight": "x", " ": "y", "Home": "y", "End": "y"}
# Chromium ignores history updates beyond about 200 per 10 s (and then hash
# navigation too), so the address is written at most this often; the last
# state always lands. Nor in the task that changed the state (dom.AFTER_FRAME_MS): history.replaceState
# took 1-14 ms in Chromium on this page, and the title and Share follow it.
ADDRESS_INTERVAL_MS = 100


class Shell:
    """One Python runtime for every view: routes are switched, never reloaded.

    A view is built the first time its route is visited, so start-up pays only
    for the view on screen.
    """

    def __init__(self) -> None:
        self.specs = {spec.path: spec for spec in VIEWS}
        self.views: dict = {}
        self.pending_address: str | None = None
        self.address_written_at = -ADDRESS_INTERVAL_MS
        self.address_timer = None
        self.flush_proxy = create_proxy(self.write_address)
        self.share = ShareDialog(self.view_name)
        self.add_share_buttons()
        # Inside a course's frame (embed=1, CSS shows it only there): the same state in a full page, new tab.
        self.open_full = h(
            "a", "open-full", "Open in TileLab ↗", href="#/", target="_blank", rel="noopener", data_testid="open-full"
        )
        by_id("main").appendChild(self.open_full)
        on(window, "hashchange", lambda event: self.route_changed())
        on(document, "keydown", self.key)
        on(document, "click", self.link_clicked)

    def view_name(self, path: str) -> str:
        """A route's short name, as the navigation names it (the page title, the embed snippet's title)."""
        link = document.querySelector(f'.site-header a[data-nav="{path}"]')
        return str(link.textContent).strip() if link is not None else "TileLab"

    def add_share_buttons(self) -> None:
        """A Share button under each view's heading; it opens the one dialog for the state on screen."""
        headings = document.querySelectorAll("main > section[data-route] > h1")
        for i in range(headings.length):
            button = h("button", "share-button", "Share", type="button", data_testid="share", aria_haspopup="dialog")
            on(button, "click", partial(self.open_share, button))
            headings.item(i).insertAdjacentElement("afterend", button)

    def open_share(self, button, event) -> None:
        self.share.open(parse_hash(self.pending_address or str(window.location.hash)), button)

    def state_shown(self, route: Route) -> None:
        """The address changed (a link, or a view writing its state): title, embed link and Share follow."""
        document.title = page_title(self.view_name(route.path), route)
        self.open_full.href = str(window.location.href).partition("#")[0] + open_in_full_hash(route)
        self.share.update(route)

    def build(self, route: Route) -> None:
        """Build a view and show its first state, in one task: the first view built replaces its
        pre-render (site/boot/prerender.js takeOver) with no frame between."""
        spec = self.specs[route.path]
        view_class = getattr(importlib.import_module(spec.module), spec.name)  # imported on first visit
        view = self.views[route.path] = view_class(by_id(spec.container), partial(self.navigate, route.path))
        view.activate(route.params)

    def navigate(self, path: str, params: dict[str, str]) -> None:
        """Make the address describe the current state, without a new history entry."""
        route = parse_hash(str(window.location.hash))
        if route.path != path:
            return  # the reader has already moved to another view
        # The shell's keys stay, but those the view writes itself (the guide's guide=0, OWNED_KEYS), which it
        # may also drop: "Back to the guide" removes guide=0.
        owned = getattr(self.views.get(path), "OWNED_KEYS", ())
        kept = {key: value for key, value in route.shell.items() if key not in owned}
        self.pending_address = format_hash(path, {**params, **kept})
        if self.address_timer is not None:
            return
        wait = self.address_written_at + ADDRESS_INTERVAL_MS - window.performance.now()
        self.address_timer = window.setTimeout(self.flush_proxy, max(wait, AFTER_FRAME_MS))

    def write_address(self) -> None:
        self.address_timer = None
        target, self.pending_address = self.pending_address, None
        current = str(window.location.hash)
        if target and parse_hash(target).path == parse_hash(current).path:
            if target != current:
                window.history.replaceState(None, "", target)
                self.address_written_at = window.performance.now()
            self.state_shown(parse_hash(target))  # the state as the view wrote it, even when the address held it

    def route_changed(self) -> None:
        route = parse_hash(str(window.location.hash))
        document.documentElement.classList.toggle("lock", route.params.get("lock") == "1")
        # The address is anyone's text (a link): until the view has read it, the title names the view
        # alone; then the state the view made of it (building #/ladder takes seconds).
        document.title = page_title(self.view_name(route.path), Route(route.path))
        self.pending_address = None
        if route.path in self.views:
            self.views[route.path].activate(route.params)
        elif route.path in self.specs:
            self.build(route)
        self.state_shown(parse_hash(self.pending_address) if self.pending_address else Route(route.path, route.shell))

    def link_clicked(self, event) -> None:
        """An in-page link (`#/...`) keeps the shell's keys (embed, lock, quiz, relay): a course's frame
        stays compact, locked, quizzing and reporting wherever its links lead (external links open a new
        tab instead)."""
        if event.defaultPrevented or event.button != 0 or event.ctrlKey or event.metaKey or event.shiftKey:
            return
        closest = getattr(event.target, "closest", None)
        link = closest('a[href^="#"]') if closest is not None else None
        shell = parse_hash(str(window.location.hash)).shell
        if link is None or not shell:
            return
        target = parse_hash(str(link.getAttribute("href")))
        event.preventDefault()
        window.location.hash = format_hash(target.path, {**target.params, **shell})

    def key(self, event) -> None:
        target = event.target
        if (
            event.defaultPrevented
            or self.share.element.open
            or event.ctrlKey
            or event.metaKey
            or event.altKey
            or target.tagName in TYPING
            or scrolls(target, event.key)
        ):
            return
        if target.tagName == "BUTTON" and event.key in (" ", "Enter"):
            return  # the browser clicks the focused button
        view = self.views.get(parse_hash(str(window.location.hash)).path)
        if view is not None and view.key(event):
            event.preventDefault()


def scrolls(element, key: str) -> bool:
    """Would `key` scroll the focused `element` itself? Only a box that scrolls on its own (not the page, which has
    no focus ring to say where the key goes) and overflows along the key's axis."""
    axis = SCROLL_AXIS.get(key)
    if axis is None or element in (document.body, document.documentElement):
        return False
    style = window.getComputedStyle(element)
    if axis == "x":
        return style.overflowX in ("auto", "scroll") and element.scrollWidth > element.clientWidth
    return style.overflowY in ("auto", "scroll") and element.scrollHeight > element.clientHeight


def wasm_bytes() -> int:
    """Size of Python's WebAssembly memory, where every Python object lives."""
    return pyodide_js._module.HEAP8.length


def start() -> None:
    shell = Shell()
    shell.route_changed()
    window.tilelabPython = window.Date.now()  # lets tests see the runtime was never reloaded
    window.tilelabWasmBytes = create_proxy(wasm_bytes)  # for the long-run memory test and benchmark
    window.tilelabStackSwitching = bool(pyodide_js._module.jspiSupported)  # Pyodide's choice (site/boot/)
    window.tilelabBoot.ready()
