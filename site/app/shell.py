"""Start the app: mount the views, route the hash to them, and report ready."""

from __future__ import annotations

from pyscript import document, window

from .dom import by_id, on
from .urlstate import format_hash, parse_hash

TYPING = ("INPUT", "SELECT", "TEXTAREA")


class Shell:
    """One Python runtime for every view: routes are switched, never reloaded."""

    def __init__(self, views: dict) -> None:
        self.views = views
        on(window, "hashchange", lambda event: self.route_changed())
        on(document, "keydown", self.key)

    def navigate(self, path: str, params: dict[str, str]) -> None:
        """Make the address describe the current state, without a new history entry."""
        route = parse_hash(str(window.location.hash))
        if route.path != path:
            return  # the reader has already moved to another view
        target = format_hash(path, {**params, **route.shell})
        if target != str(window.location.hash):
            window.history.replaceState(None, "", target)

    def route_changed(self) -> None:
        route = parse_hash(str(window.location.hash))
        view = self.views.get(route.path)
        if view is not None:
            view.activate(route.params)

    def key(self, event) -> None:
        target = event.target
        if event.ctrlKey or event.metaKey or event.altKey or target.tagName in TYPING:
            return
        if target.tagName == "BUTTON" and event.key in (" ", "Enter"):
            return  # the browser clicks the focused button
        view = self.views.get(parse_hash(str(window.location.hash)).path)
        if view is not None and view.key(event):
            event.preventDefault()


def start() -> None:
    from .hierarchy import HierarchyView
    from .register import RegisterView
    from .tiling import TilingView

    views: dict = {}
    shell = Shell(views)
    views["/tiling"] = TilingView(by_id("app-tiling"), shell.navigate)
    views["/register"] = RegisterView(by_id("app-register"), shell.navigate)
    views["/hierarchy"] = HierarchyView(by_id("app-hierarchy"), shell.navigate)
    shell.route_changed()
    window.tilelabPython = window.Date.now()  # lets tests see the runtime was never reloaded
    window.tilelabBoot.ready()
