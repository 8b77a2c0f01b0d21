"""The real view before Python is ready: each route's first state, drawn at build time.

Every view of site/app/core/urlstate.py's VIEWS is mounted in CPython on the build's own DOM
(tools/sitebuild/fakedom.py), with pysim computing its default state, exactly as the browser will
mount it; what it drew is written into a file of its own, dist/prerender/NAME.js (NAME: the route,
`/tiling` -> tiling.js), with the address of the state drawn (what the view wrote into the address
bar), and the page's head names each route's file (`<meta name="tilelab-prerender">`). The first
paint is then the lesson itself (listing, grids with their values, counters at zero, the
walkthrough's pictures), made by the code that builds the live page: no second renderer.

A file of its own, not a template in dist/index.html: the page would carry every view's drawing
(127 KB gzip where one route needs 4-18 KB of it), parsed before anything shows. The boot guard
(site/boot/prerender.js) asks for the opened route's file alone, as soon as the address names it,
as a script that holds the first paint until it has come (so the first frame is the view drawn,
not its placeholder); the CSP refuses inline scripts, not the site's own files.

It moves the drawing into its container when the address asks for that state (a deep link with
other sizes keeps the page as written until Python draws its own sizes), and puts the container
back as written just before Python builds the view (site/main.py), in the same task, so no frame
shows the swap: a view that fills the markup it finds (the walkthrough) then builds on the page it
was written for, as it did here.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import re
import sys
import types
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from html import escape
from pathlib import Path
from urllib.parse import urlencode

from tools.sitebuild.errors import BuildError
from tools.sitebuild.fakedom import Document, Element, Window, parse_into
from tools.sitebuild.paths import SITE

MAIN = re.compile(r"<main\b[^>]*>.*</main>", re.S)
# What the views import from the browser; the stand-ins replace them while the views run.
BROWSER_MODULES = ("pyscript", "pyodide", "pyodide.ffi", "pyodide_js")


class Proxy:
    """`create_proxy(f)`: callable, and destroyed by its owner's Listeners."""

    def __init__(self, function: Callable) -> None:
        self.function = function

    def __call__(self, *args: object) -> object:
        return self.function(*args)

    def destroy(self) -> None:
        """Nothing to free in CPython."""


def to_js(value: object, **options: object) -> object:
    """Values stay Python objects: the build's DOM reads them as they are."""
    return value


async def js_import(*urls: str) -> list:
    raise BuildError(f"a view imports JavaScript ({', '.join(urls)}) while building its first state")


@contextmanager
def browser_stand_in(document: Document) -> Iterator[Window]:
    """Import site/app against `document`: fake `pyscript`/`pyodide` modules for the views, and
    every module imported meanwhile forgotten afterwards (the app's module state, e.g. its
    listener registry, belongs to one page)."""
    window = Window(document)
    pyscript = types.ModuleType("pyscript")
    pyscript.__dict__.update(document=document, window=window, js_import=js_import)
    ffi = types.ModuleType("pyodide.ffi")
    ffi.__dict__.update(create_proxy=Proxy, to_js=to_js)
    pyodide = types.ModuleType("pyodide")
    pyodide.__dict__.update(ffi=ffi)
    fakes = {"pyscript": pyscript, "pyodide": pyodide, "pyodide.ffi": ffi, "pyodide_js": types.ModuleType("pyodide_js")}
    importlib.import_module("numpy")  # before the views, as in the page; and kept (it cannot load twice)
    before = dict(sys.modules)
    sys.modules.update(fakes)
    sys.path.insert(0, str(SITE))
    try:
        yield window
    finally:
        sys.path.remove(str(SITE))
        for name in set(sys.modules) - set(before):
            forget(name)
        for name in BROWSER_MODULES:
            sys.modules.pop(name, None)
        sys.modules.update({name: module for name, module in before.items() if name in BROWSER_MODULES})


def forget(name: str) -> None:
    """Drop a module imported against one page, and its name on a package that stays: `from ..widgets
    import charts` reads that name before sys.modules, so a later page would get this page's module,
    still bound to this page's document."""
    module = sys.modules.pop(name)
    package, _, child = name.rpartition(".")
    if package in sys.modules and getattr(sys.modules[package], child, None) is module:
        delattr(sys.modules[package], child)


@dataclass(frozen=True)
class Drawn:
    """A view's first state as the build drew it."""

    route: str  # the view's route, `/tiling`
    markup: str  # the container's content
    address: str  # the state's address parameters, as the view wrote them
    mode: str = ""  # for a view with a guide, "guide=1" (guided, the default) or "guide=0" (free)


# A view that writes guide= itself (OWNED_KEYS) opens guided unless the address says guide=0 (SPEC §7): it is
# drawn in both modes, each a file of its own, so a free address (a shared link, every browser test) is drawn
# too and a first visit fetches only its own.
GUIDED, FREE = "guide=1", "guide=0"


def draw_views(main_markup: str, mode: str = GUIDED) -> dict[str, Drawn]:
    """{container id: what its view drew for its first state}: every view's (GUIDED), or the free view of each
    view with a guide (FREE)."""
    # A view may start a task (the editor loads CodeMirror in one): it gets a loop of its own, in a
    # thread of its own (the caller may be running a loop, as Playwright's tests do), and
    # `asyncio.run` cancels the task before it first runs, since nothing here awaits.
    with ThreadPoolExecutor(max_workers=1) as thread:
        return thread.submit(asyncio.run, draw_in_loop(main_markup, mode)).result()


async def draw_in_loop(main_markup: str, mode: str) -> dict[str, Drawn]:
    document = Document()
    body = document.createElement("body")
    document.appendChild(body)
    parse_into(body, main_markup)
    drawn: dict[str, Drawn] = {}
    with browser_stand_in(document):
        urlstate = importlib.import_module("app.core.urlstate")
        for spec in urlstate.VIEWS:
            container = document.getElementById(spec.container)
            if not isinstance(container, Element):
                raise BuildError(f"index.html has no container #{spec.container} for {spec.path}")
            written: dict[str, str] = {}
            view_class = getattr(importlib.import_module(spec.module), spec.name)
            guided = "guide" in getattr(view_class, "OWNED_KEYS", ())
            if mode == FREE and not guided:
                continue
            view = view_class(container, written.update)  # the view reports its state as it would to the address
            view.activate({"guide": "0"} if mode == FREE else {})
            address = urlencode(written, safe=",")
            drawn[spec.container] = Drawn(spec.path, container.innerHTML, address, mode if guided else "")
    return drawn


PRERENDER_DIR = "prerender"  # in dist/, beside the page
# Where site/index.html's head names each route's file, before the boot guard that reads the names.
PRERENDERS_MARK = "<!-- build: prerenders -->"
# A drawing's file: one call of the boot guard (site/boot/prerender.js) with the drawing as JSON.
CALL = "tilelabBoot.prerendered("
CALL_END = ");\n"


def file_name(view: Drawn) -> str:
    """`/tiling` -> `prerender/tiling.js`, its free view (guide=0) `prerender/tiling-free.js`."""
    return f"{PRERENDER_DIR}/{view.route.strip('/')}{'-free' if view.mode == FREE else ''}.js"


def drawing_file(container: str, view: Drawn) -> str:
    drawing = {"route": view.route, "container": container, "address": view.address, "markup": view.markup}
    drawing |= {"mode": view.mode} if view.mode else {}
    return CALL + json.dumps(drawing, ensure_ascii=False, separators=(",", ":")) + CALL_END


def read_drawing(text: str) -> tuple[str, Drawn]:
    """(container id, drawing) from a drawing's file: what the boot guard is handed."""
    if not (text.startswith(CALL) and text.endswith(CALL_END)):
        raise BuildError(f"not a drawing's file: {text[:80]!r}")
    drawing = json.loads(text[len(CALL) : -len(CALL_END)])
    return drawing["container"], Drawn(drawing["route"], drawing["markup"], drawing["address"], drawing.get("mode", ""))


def prerender(page: Path) -> None:
    """Write each view's first state into its own file beside `page` (dist/index.html), and name the
    files in the page's head."""
    html = page.read_text(encoding="utf-8")
    main = MAIN.search(html)
    if main is None:
        raise BuildError(f"{page} has no <main>")
    if PRERENDERS_MARK not in html:
        raise BuildError(f"{page} has no `{PRERENDERS_MARK}` in its <head>; no view would be drawn before Python")
    (page.parent / PRERENDER_DIR).mkdir(exist_ok=True)
    metas = []
    for mode in (GUIDED, FREE):
        for container_id, view in draw_views(main.group(0), mode).items():
            name = file_name(view)
            (page.parent / name).write_text(drawing_file(container_id, view), encoding="utf-8")
            metas.append(
                f'<meta name="tilelab-prerender" content="{escape(" ".join([view.route, name, view.mode]).strip())}">'
            )
    page.write_text(html.replace(PRERENDERS_MARK, "\n".join(metas)), encoding="utf-8")
