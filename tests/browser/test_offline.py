"""Boot downloads and the service worker: each file fetched once, repeat visits from the
cache, offline reloads, and a new build replacing the old cache without mixing the two."""

from __future__ import annotations

import collections
import json
import shutil

import pytest

from tools.harness import SW_ACTIVE, Server, launch_persistent
from tools.sitebuild import paths, site

from .conftest import READY_TIMEOUT_MS

ROUTES = ("#/", "#/tiling", "#/register", "#/hierarchy")
SW_TIMEOUT_MS = 60_000
# What the page fetched ("other": the browser's own fetches, such as the tab's favicon).
RESOURCE_NAMES = "performance.getEntriesByType('resource').filter(e => e.initiatorType !== 'other').map(e => e.name)"
CACHE_NAMES = "caches.keys()"
# How the route's drawing (prerender/NAME.js, tools/sitebuild/prerender.py) was answered.
DRAWING_STATUS = (
    "name => performance.getEntriesByType('resource').filter(e => e.name.endsWith(name)).map(e => e.responseStatus)"
)
# Resolves once a new worker has installed and waits (rejects after `ms`).
WAITING_WORKER = """ms => navigator.serviceWorker.getRegistration().then(registration => new Promise((resolve, reject) => {
    const deadline = Date.now() + ms;
    (function poll() {
        if (registration.waiting) resolve(true);
        else if (Date.now() > deadline) reject(new Error('no new worker after ' + ms + ' ms'));
        else setTimeout(poll, 100);
    })();
}))"""


def open_ready(context, url: str):
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_TIMEOUT_MS)
    message = page.evaluate("document.getElementById('boot-error-text').textContent")
    assert page.evaluate("document.documentElement.dataset.state") == "ready", f"start failed: {message}"
    assert errors == []
    return page


@pytest.fixture
def own_server(dist):
    serving = Server(dist)
    yield serving
    serving.close()


def test_one_download_per_file_then_none_then_offline_on_every_route(browser, own_server, tmp_path):
    # A profile on disk, as a student's browser has: an incognito context's HTTP cache lives
    # in memory and is too small to keep the 10 MB WebAssembly for the worker to reuse
    # (there the worker downloads it a second time, after the app is ready).
    context = launch_persistent(browser.browser_type, tmp_path / "profile")
    try:
        first = open_ready(context, own_server.url + "#/tiling")
        # In the page: nothing fetched twice (the preloads were the runtime's own requests).
        names = collections.Counter(first.evaluate(RESOURCE_NAMES))
        assert [name for name, count in names.items() if count > 1] == []
        assert any(name.endswith("/pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl") for name in names)
        # The worker precaches from what the page fetched: the server sees each file once.
        first.evaluate(SW_ACTIVE, SW_TIMEOUT_MS)
        asked = collections.Counter(path for path in own_server.log if path != "favicon.svg")
        assert [path for path, count in asked.items() if count > 1] == []
        assert asked["pyodide/pyodide.asm.wasm"] == 1 and asked["pyodide/python_stdlib.zip"] == 1
        assert len(first.evaluate(CACHE_NAMES)) == 1
        first.close()

        # Second visit: nothing from the network but the browser's update check of sw.js.
        before = len(own_server.log)
        second = open_ready(context, own_server.url + "#/tiling")
        assert second.evaluate("navigator.serviceWorker.controller !== null")
        assert set(own_server.log[before:]) <= {paths.SERVICE_WORKER}
        second.close()

        context.set_offline(True)
        for route in ROUTES:
            page = open_ready(context, own_server.url + route)
            if route != "#/":  # the landing page has no drawing: its text is the page's own
                assert page.evaluate(DRAWING_STATUS, f"/prerender/{route[2:]}.js") == [200], route
            page.close()
    finally:
        context.close()


BUILD_MARK = "document.querySelector('meta[name=tilelab-test-build]')?.content ?? ''"


def test_a_new_build_replaces_the_cache_on_the_next_visit(browser, tmp_path, monkeypatch):
    copied = tmp_path / "site"
    shutil.copytree(paths.SITE, copied)
    monkeypatch.setattr(site, "SITE", copied)
    out = site.build(tmp_path / "dist", npm=False)
    server = Server(out)
    context = browser.new_context()
    try:
        first = open_ready(context, server.url + "#/")
        first.evaluate(SW_ACTIVE, SW_TIMEOUT_MS)
        assert first.evaluate(BUILD_MARK) == ""
        first.close()

        # The shell writes each route's own <title>, so the new build is marked in the page's head instead.
        page = copied / "index.html"
        page.write_text(page.read_text().replace("<head>", '<head>\n<meta name="tilelab-test-build" content="2">', 1))
        site.build(out, npm=False)

        # The next visit is still the old build, whole (its worker answers from its cache),
        # while the new worker installs beside it.
        second = open_ready(context, server.url + "#/")
        assert second.evaluate(BUILD_MARK) == ""
        second.evaluate(WAITING_WORKER, SW_TIMEOUT_MS)
        watcher = WorkerWatcher(context)
        second.close()  # the last page of the old build: the new worker takes over
        watcher.wait_until_all_activated()

        # The visit after: the new build, and only its cache is left.
        third = open_ready(context, server.url + "#/")
        assert third.evaluate(BUILD_MARK) == "2"
        keys = third.evaluate(CACHE_NAMES)
        assert len(keys) == 1 and keys[0].endswith(build_id(out))
        third.close()
    finally:
        context.close()
        server.close()


class WorkerWatcher:
    """Service worker versions as DevTools sees them, from a blank page outside the site."""

    def __init__(self, context) -> None:
        self.page = context.new_page()
        self.status: dict[str, str] = {}
        session = context.new_cdp_session(self.page)
        session.on("ServiceWorker.workerVersionUpdated", self.updated)
        session.send("ServiceWorker.enable")

    def updated(self, event: dict) -> None:
        for version in event["versions"]:
            self.status[version["versionId"]] = version["status"]

    def wait_until_all_activated(self) -> None:
        """Until the waiting worker is the active one (the old one is then redundant)."""
        for _ in range(SW_TIMEOUT_MS // 100):
            if "installed" not in self.status.values() and "activating" not in self.status.values():
                if "activated" in self.status.values():
                    break
            self.page.wait_for_timeout(100)
        self.page.close()


def build_id(out) -> str:
    return json.loads((out / "manifest.json").read_text())["build"]


def test_no_service_worker_where_the_page_says_so(browser, tmp_path):
    out = site.build(tmp_path / "dist", npm=False, service_worker=False)
    server = Server(out)
    context = browser.new_context()
    try:
        page = open_ready(context, server.url + "#/")
        page.wait_for_timeout(1500)  # the boot guard registers a worker 1 s after ready
        assert page.evaluate("navigator.serviceWorker.getRegistrations().then(r => r.length)") == 0
    finally:
        context.close()
        server.close()


# A page of another project on the same origin (on GitHub Pages, every project of an account shares one):
# Cache Storage is per origin, so it can open this build's cache by name and put its own bytes under our page.
POISON = """async () => {
    const name = (await caches.keys()).find(key => key.startsWith('tilelab '));
    const cache = await caches.open(name);
    const forged = '<!doctype html><title>forged</title><p id=forged>served from a poisoned cache</p>';
    await cache.put(new URL('/index.html', location.href).href,
                    new Response(forged, {headers: {'content-type': 'text/html'}}));
    return name;
}"""
CACHED_PAGE = """async name => {
    const hit = await (await caches.open(name)).match(new URL('/index.html', location.href).href);
    return hit ? await hit.text() : '';
}"""


def test_a_poisoned_cache_is_never_served(browser, own_server, tmp_path):
    own_server.extra["classmate/index.html"] = ("text/html", b"<!doctype html><title>classmate</title>")
    context = browser.new_context()
    try:
        first = open_ready(context, own_server.url + "#/")
        first.evaluate(SW_ACTIVE, SW_TIMEOUT_MS)
        first.close()
        classmate = context.new_page()
        classmate.goto(own_server.url + "classmate/index.html")
        name = classmate.evaluate(POISON)
        assert "served from a poisoned cache" in classmate.evaluate(CACHED_PAGE, name)

        again = open_ready(context, own_server.url + "#/")  # ready: this build's page, not the forged one
        assert again.evaluate("document.getElementById('forged')") is None
        assert again.evaluate("navigator.serviceWorker.controller !== null")
        # The forged entry is replaced by this build's page, so the next visit offline is this build too.
        assert "served from a poisoned cache" not in classmate.evaluate(CACHED_PAGE, name)
        again.close()
        context.set_offline(True)
        open_ready(context, own_server.url + "#/").close()
    finally:
        context.close()
