"""The app in CPython: site/index.html's <body> on the build's DOM (tools/sitebuild/fakedom.py), the
shell of site/app/core/shell.py routing an address to its view, and the reader's actions as events.

`Page` is what tests/browser/ does with Chromium, minus layout, pixels and real time: `go(address)`
changes the hash as a link does (site/boot.js's part, showing the route's section, is done here),
`click`, `fill`, `select` and `press` dispatch the events a browser would (a link's click follows
it, a submit button's submits its form, Enter in a field submits it), and after each action the
page settles as the browser tests wait for it: every timeout and animation frame the app asked
for runs (the address write, the background C check, a grid's queued paint), and its asyncio tasks,
but no interval, so the player plays only when a test calls `tick`. Visibility is the `hidden`
attribute on the element or an ancestor; style sheets are not applied here (a check that needs
them is a browser test). The app's modules are imported against one page's document, so one page
is open at a time: a test that wants a fresh page closes the first.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import re
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from types import SimpleNamespace

from app.core.urlstate import GUIDED_VIEWS, parse_hash
from tools.sitebuild.fakedom import Document, Element, parse_into
from tools.sitebuild.paths import PARTIALS, SITE
from tools.sitebuild.prerender import browser_stand_in
from tools.sitebuild.site import include_partials

ORIGIN = "https://tilelab.test/"
GUIDED = frozenset(view.path for view in GUIDED_VIEWS)  # the routes that open guided (SPEC §7)
BODY = re.compile(r"<body\b[^>]*>(.*)</body>", re.S)
SCRIPT = re.compile(r"<script\b.*?</script>", re.S)
# Elements innerText puts on lines of their own.
BLOCKS = frozenset(
    "address article aside blockquote br dd details dialog div dl dt fieldset figcaption figure footer form h1 h2 h3"
    " h4 h5 h6 header hr legend li main nav ol p pre section summary table tbody td th thead tr ul".split()
)
TIMERS_PER_SETTLE = 100_000  # a view that keeps asking for timeouts would loop forever: fail instead
TASK_SLICE_S = 0.05  # how long the app's tasks run (they await frames, as asyncio.sleep) before timeouts run again


def body_markup(scratch: Path) -> str:
    """site/index.html's <body> with its partials (as the build has them when it pre-renders), less its scripts."""
    page = scratch / "index.html"
    page.write_text((SITE / "index.html").read_text(encoding="utf-8"), encoding="utf-8")
    include_partials(page, SITE / PARTIALS)
    found = BODY.search(page.read_text(encoding="utf-8"))
    assert found is not None
    return SCRIPT.sub("", found.group(1))


class Event:
    """What the app's listeners read of a DOM event; `dispatchEvent` sets target and currentTarget."""

    def __init__(self, kind: str, bubbles: bool = True, key: str = "", **modifiers: object) -> None:
        self.type = kind
        self.bubbles = bubbles
        self.key = key
        self.button = 0
        self.ctrlKey = self.metaKey = self.altKey = self.shiftKey = False
        self.offsetX = self.offsetY = 0
        self.__dict__.update(modifiers)
        self.defaultPrevented = False
        self.propagation_stopped = False

    def preventDefault(self) -> None:
        self.defaultPrevented = True

    def stopPropagation(self) -> None:
        self.propagation_stopped = True


class Clock:
    """The page's timers: recorded, and run only when the page settles (timeouts, frames) or ticks (intervals)."""

    def __init__(self) -> None:
        self.next_id = 1
        self.timeouts: dict[int, Callable] = {}
        self.intervals: dict[int, tuple[Callable, float]] = {}  # callback, delay in ms

    def timeout(self, callback: Callable, delay: float = 0) -> int:
        self.next_id += 1
        self.timeouts[self.next_id] = callback
        return self.next_id

    def frame(self, callback: Callable) -> int:
        """An animation frame: a timeout called with the frame's time (there is none here)."""
        return self.timeout(lambda: callback(0.0))

    def interval(self, callback: Callable, delay: float = 0) -> int:
        self.next_id += 1
        self.intervals[self.next_id] = (callback, delay)
        return self.next_id

    def clear(self, timer: int | None) -> None:
        if timer is not None:
            self.timeouts.pop(timer, None)
            self.intervals.pop(timer, None)

    def run_timeouts(self) -> None:
        for _ in range(TIMERS_PER_SETTLE):
            if not self.timeouts:
                return
            timer = min(self.timeouts)
            self.timeouts.pop(timer)()
        raise AssertionError(f"the page asked for over {TIMERS_PER_SETTLE} timeouts without settling")


class Location:
    """The address bar: setting the hash (a link, the shell) fires hashchange as the browser does, in a later task."""

    protocol = "https:"

    def __init__(self, page: Page) -> None:
        self._page = page
        self._hash = ""

    @property
    def hash(self) -> str:
        return self._hash

    @hash.setter
    def hash(self, value: str) -> None:
        value = value if value.startswith("#") or not value else "#" + value
        if value != self._hash:
            self._hash = value
            self._page.clock.timeout(lambda: self._page.window.dispatchEvent(Event("hashchange", bubbles=False)))

    @property
    def href(self) -> str:
        return ORIGIN + self._hash


class Performance:
    """The page's clock (time stands still) and its user-timing measures (the playground's spans)."""

    timeOrigin = 0.0  # noqa: N815 - the DOM's own name, which the app reads

    def __init__(self) -> None:
        self.measures: list[SimpleNamespace] = []

    def now(self) -> float:
        return 0.0

    def measure(self, name: str, options: object = None) -> None:
        self.measures.append(SimpleNamespace(name=name, entryType="measure"))

    def getEntriesByType(self, kind: str) -> list[SimpleNamespace]:
        return [entry for entry in self.measures if entry.entryType == kind]

    def clearMeasures(self, name: str) -> None:
        self.measures = [entry for entry in self.measures if entry.name != name]


class History:
    def __init__(self, location: Location) -> None:
        self._location = location

    def replaceState(self, state: object, title: str, url: str) -> None:
        self._location._hash = url  # no hashchange, as in the browser


class Boot:
    """site/boot.js's hooks around a view's build: adoption of the pre-rendered elements is the browser's."""

    def adopt(self, container: str) -> None:
        """Nothing pre-rendered is on this page: the view builds its own elements."""

    def adopted(self) -> None:
        """As adopt."""


OPEN: list[Page] = []  # the page whose document the app's modules are bound to: one at a time


class Page:
    """One fresh page: the shell started on `markup` (the page's <body>), no route shown yet. The app's
    modules are imported against its document and forgotten on `close`, so one page is open at a time."""

    def __init__(self, markup: str, guided: bool = False) -> None:
        self.guided = guided
        assert not OPEN, "close the open page first: the app's modules are bound to its document"
        OPEN.append(self)
        self.document = Document()
        body = self.document.createElement("body")
        self.document.appendChild(body)
        parse_into(body, markup)
        self.clock = Clock()
        self.loop = asyncio.new_event_loop()  # the app's tasks (the playground draws a run in parts)
        asyncio.set_event_loop(self.loop)
        self._closing = ExitStack()
        self.window = self._closing.enter_context(browser_stand_in(self.document))
        self.location = Location(self)
        self.window.__dict__.update(
            location=self.location,
            history=History(self.location),
            tilelabBoot=Boot(),
            performance=Performance(),
            setTimeout=self.clock.timeout,
            requestAnimationFrame=self.clock.frame,
            setInterval=self.clock.interval,
            clearTimeout=self.clock.clear,
            clearInterval=self.clock.clear,
            cancelAnimationFrame=self.clock.clear,
            innerWidth=1280,  # the browser tests' viewport
            scrollY=0,
            scrollTo=lambda *args: None,
        )
        self.window.addEventListener("hashchange", lambda event: self.show_route())  # before the shell's, as boot.js
        shell = importlib.import_module("app.core.shell")
        self.shell = shell.Shell()

    def show_route(self) -> None:
        """site/boot.js's showRoute: the route's section shown, the others hidden (an unknown route shows home)."""
        path = self.address.partition("?")[0].removeprefix("#") or "/"
        sections = list(self.document.querySelectorAll("[data-route]"))
        shown = path if any(section.getAttribute("data-route") == path for section in sections) else "/"
        for section in sections:
            section.hidden = section.getAttribute("data-route") != shown
        for flag in ("embed", "lock"):
            self.document.classList.toggle(flag, f"{flag}=1" in self.address.partition("?")[2].split("&"))

    def close(self) -> None:
        """Forget the app's modules and tasks (a page closed already stays closed)."""
        if self not in OPEN:
            return
        OPEN.remove(self)
        self._closing.close()
        for task in asyncio.all_tasks(self.loop):
            task.cancel()
        self.loop.run_until_complete(asyncio.sleep(0))
        self.loop.close()
        asyncio.set_event_loop(None)
        # Its elements hold cycles (parent and child): collected now, they leave fakedom's index of elements by
        # attribute (HAVING), which every attribute selector of the next page would otherwise walk.
        gc.collect()

    # --- where the page is ---------------------------------------------------------------------------
    def go(self, address: str, settle: bool = True) -> Page:
        """Follow a link to `address` in the loaded app (no reload), and let it settle; with `settle=False`,
        only the hash changes and the app handles it: what the view drew in that task, before any timer.

        Unless the page is `guided`, an address of a guided view without `guide=` gets `guide=0` (the
        full view, as before the guide): the tests of the guide open guided pages (`guided_page`)."""
        address = self.unguided(address)
        if settle:
            self.location.hash = address
            return self.settle()
        self.location._hash = address
        self.window.dispatchEvent(Event("hashchange", bubbles=False))
        return self

    def settle(self) -> Page:
        """Run what the app scheduled (its address write, the C check, queued paints, its tasks, which may
        wait on timeouts and timeouts on them) until nothing is left: the browser tests' wait."""
        for _ in range(TIMERS_PER_SETTLE):
            self.clock.run_timeouts()
            working = [task for task in asyncio.all_tasks(self.loop) if not task.done()]
            if not working:
                return self
            self.loop.run_until_complete(asyncio.wait(working, timeout=TASK_SLICE_S))
        raise AssertionError(f"the page's tasks never settled: {working}")

    def tick(self, times: int = 1) -> None:
        """`times` beats of every running interval (the player's Play)."""
        for _ in range(times):
            for callback, _ in list(self.clock.intervals.values()):
                callback()
        self.settle()

    def unguided(self, address: str) -> str:
        route = parse_hash(address)
        if self.guided or "guide" in route.params or route.path not in GUIDED:
            return address
        return address + ("&" if "?" in address else "?") + "guide=0"

    @property
    def address(self) -> str:
        return self.location.hash

    def params(self) -> dict[str, str]:
        """The address's parameters, decoded (the route table's parse_hash); the `guide=0` that `go` adds
        to an unguided page's addresses is left out."""
        params = parse_hash(self.address).params
        if not self.guided and params.get("guide") == "0":
            params.pop("guide")
        return params

    # --- finding -------------------------------------------------------------------------------------
    @property
    def view(self) -> Element:
        """The section of the route on screen."""
        shown = [
            s for s in self.document.querySelectorAll("main > section[data-route]") if not s.hasAttribute("hidden")
        ]
        assert len(shown) == 1, f"{len(shown)} sections shown at {self.address}"
        return shown[0]

    def find(self, selector: str, within: Element | None = None) -> Element:
        found = (within or self.view).querySelector(selector)
        assert isinstance(found, Element), f"nothing matches {selector!r} in {self.address}"
        return found

    def testid(self, name: str, within: Element | None = None) -> Element:
        return self.find(f'[data-testid="{name}"]', within)

    def all(self, selector: str, within: Element | None = None) -> list[Element]:
        return list((within or self.view).querySelectorAll(selector))

    def text(self, element: Element | str | None = None) -> str:
        """textContent with whitespace collapsed (of the view on screen by default)."""
        return " ".join(self._element(element or self.view).textContent.split())

    def inner_text(self, element: Element | str | None = None) -> str:
        """As the browser's innerText, roughly: the shown text only, a line per block, spaces collapsed."""
        chunks: list[str] = []

        def walk(node: Element) -> None:
            for child in node.childNodes:
                if not isinstance(child, Element):
                    chunks.append(" ".join(f"_{child.textContent}_".split())[1:-1])  # runs of space as one
                elif not child.hasAttribute("hidden") and child.localName not in ("script", "style", "template"):
                    block = child.localName in BLOCKS
                    chunks.append("\n" if block else "")
                    walk(child)
                    chunks.append("\n" if block else "")

        walk(self._element(element or self.view))
        lines = (" ".join(line.split()) for line in "".join(chunks).split("\n"))
        return "\n".join(line for line in lines if line)

    def value(self, testid: str) -> int:
        """A number slot's data-value."""
        return int(self.attribute(testid, "data-value"))

    def attribute(self, element: Element | str, name: str) -> str | None:
        return self._element(element).getAttribute(name)

    def visible(self, element: Element | str) -> bool:
        """Neither it nor an ancestor is hidden (style sheets are not applied here)."""
        node: Element | None = self._element(element)
        while node is not None:
            if node.hasAttribute("hidden"):
                return False
            node = node.parentNode
        return True

    def shown(self, element: Element | str) -> str:
        """The element's markup less every hidden subtree: what is on screen (a hidden part may keep stale styles)."""
        root = self._element(element)
        parts = []
        for child in root.childNodes:
            if not isinstance(child, Element):
                parts.append(child.html())
            elif not child.hasAttribute("hidden"):
                start = child.html().partition(">")[0]  # its start tag, as written
                parts.append(f"{start}>{self.shown(child)}</{child.localName}>")
        return "".join(parts)

    def _element(self, element: Element | str) -> Element:
        return self.testid(element) if isinstance(element, str) else element

    # --- acting --------------------------------------------------------------------------------------
    def click(self, element: Element | str) -> Page:
        """A click; unless a listener prevents it, an in-page link is followed, a form's submit button submits
        the form, a checkbox toggles."""
        target = self._element(element)
        assert not target.hasAttribute("disabled"), f"{target.outerHTML[:80]} is disabled"
        event = Event("click")
        target.dispatchEvent(event)
        link = target.closest("a[href]")
        if not event.defaultPrevented:
            if link is not None and str(link.getAttribute("href")).startswith("#"):
                self.location.hash = str(link.getAttribute("href"))  # an in-page link: the browser follows it
            elif target.localName == "button" and target.getAttribute("type") in (None, "submit"):
                self._submit(target)
            elif target.localName == "input" and target.getAttribute("type") == "checkbox":
                target.checked = not target.checked
                target.dispatchEvent(Event("input"))
                target.dispatchEvent(Event("change"))
        return self.settle()

    def fill(self, element: Element | str, text: str) -> Page:
        """Type into a field: its value, then input (as Playwright's fill; change comes on commit)."""
        target = self._element(element)
        target.value = text
        target.dispatchEvent(Event("input"))
        return self.settle()

    def select(self, element: Element | str, value: str) -> Page:
        """Choose an option (or set a range): input, then change."""
        target = self._element(element)
        target.value = value
        assert str(target.value) == value, f"{value!r} is not an option of {target.outerHTML[:80]}"
        target.dispatchEvent(Event("input"))
        target.dispatchEvent(Event("change"))
        return self.settle()

    def press(self, key: str, element: Element | str | None = None) -> Page:
        """A key pressed with focus on `element` (the page's body by default); Enter in a field submits its form."""
        target = self.document.body if element is None else self._element(element)
        assert target is not None
        event = Event("keydown", key=key)
        target.dispatchEvent(event)
        if not event.defaultPrevented and key == "Enter" and target.localName == "input":
            self._submit(target)
        return self.settle()

    def _submit(self, control: Element) -> None:
        owner = control.getAttribute("form")  # a control outside its form names it
        form = self.document.getElementById(owner) if owner else control.closest("form")
        if form is not None:
            form.dispatchEvent(Event("submit"))
