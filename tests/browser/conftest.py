"""End-to-end fixtures: build dist/ once, serve it on 127.0.0.1, drive Chromium.

The server (tools/harness.py) can be told to break things (a missing file, a
wrong MIME type) so the boot guard's error paths are tested in a real browser.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import sync_playwright

from app.core.urlstate import GUIDED_VIEWS
from tools.harness import Server, chromium_executable, launch

READY_TIMEOUT_MS = 60_000
ADDRESS_SETTLE_MS = 200  # the app writes the address at most every 100 ms (site/app/core/shell.py)
# Resolves once the address has held still for `ms` of the page's own time: a view writes its state in a task
# after the one that built it, which on a busy machine can come well after a fixed wait (a guide test read a
# bare "#/warptile?guide=1" and computed the kernel's defaults, not the sizes the view shows).
SETTLED = """ms => new Promise(done => {
  let last = location.hash, since = performance.now();
  const look = () => {
    if (location.hash !== last) { last = location.hash; since = performance.now(); }
    if (performance.now() - since >= ms) done(); else setTimeout(look, 20);
  };
  look();
})"""


def settle(page) -> None:
    """Return once the page's address has settled (SETTLED)."""
    page.evaluate(SETTLED, ADDRESS_SETTLE_MS)


@pytest.fixture(scope="session")
def server(dist):
    serving = Server(dist)
    yield serving
    serving.close()


BROWSERS_USED: list[str] = []  # named in the summary, so a CI log says which Chromium ran the tests


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as playwright:
        launched = launch(playwright)
        BROWSERS_USED.append(f"Chromium {launched.version} at {chromium_executable(playwright.chromium)}")
        yield launched
        launched.close()


def pytest_terminal_summary(terminalreporter) -> None:
    for used in BROWSERS_USED:
        terminalreporter.write_line(f"end-to-end tests ran in {used}")


class Visit:
    """A page plus everything it requested and every error it logged."""

    def __init__(self, browser, server: Server, **options) -> None:
        """`options`: the context's own (a colour scheme, reduced motion), over a 1280×900 viewport."""
        self.server = server
        self.context = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **options})
        self.page = self.context.new_page()
        self.requests: list[str] = []
        self.other_origins: list[str] = []  # our own second test server, when a test embeds across origins
        self.errors: list[str] = []
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))

    def open(self, hash_: str = "#/", wait: str = "ready") -> None:
        self.page.goto(self.server.url + unguided(hash_))
        self.page.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_TIMEOUT_MS)
        state = self.page.evaluate("document.documentElement.dataset.state")
        settle(self.page)
        if wait == "ready":
            message = self.page.evaluate("document.getElementById('boot-error-text').textContent")
            assert state == "ready", f"start failed: {message}"

    def foreign_requests(self) -> list[str]:
        allowed = (self.server.url, *self.other_origins, "blob:", "data:")
        return [url for url in self.requests if not url.startswith(allowed)]

    def close(self) -> None:
        self.context.close()


@pytest.fixture
def visit(browser, server):
    opened = Visit(browser, server)
    yield opened
    assert opened.foreign_requests() == []
    opened.close()
    server.faults.clear()


@pytest.fixture(scope="module")
def app(browser, server):
    """One loaded app per test module; tests move around it by changing the hash."""
    opened = Visit(browser, server)
    opened.open("#/")
    yield opened
    assert opened.foreign_requests() == []
    assert opened.page.locator(".py-error").count() == 0
    opened.close()


GUIDED = tuple(f"#{view.path}" for view in GUIDED_VIEWS)  # the routes that open guided (SPEC §7)


def unguided(hash_: str) -> str:
    """The address with guide=0 when it opens a guided view without saying guide=: the tests that are not
    about the guide see the full view, as before it (a test of the guide writes guide=1 or guide=0 itself)."""
    path, _, query = hash_.partition("?")
    if path not in GUIDED or "guide=" in query:
        return hash_
    return f"{path}?{query}&guide=0" if query else f"{path}?guide=0"


def go(app: Visit, hash_: str) -> None:
    """Navigate within the loaded app (no reload); return once the app has handled the change, and its address
    has settled. The app's hashchange listener (added at start) runs before the one added here, so the view
    holds the new state when this one fires. (Waiting for the address to start with the route, as this did
    before, proved nothing when the route stays the same: it held before the change was handled.)"""
    hash_ = unguided(hash_)
    app.page.evaluate(
        """hash => new Promise(handled => {
            const before = location.hash;
            addEventListener("hashchange", () => handled(), {once: true});
            location.hash = hash;
            if (location.hash === before) handled();  // the same address: no event comes
        })""",
        hash_,
    )
    settle(app.page)


def url_has(page, *fragments: str) -> bool:
    """Wait (briefly) until the address holds every `key=value` fragment exactly; works on frames too."""
    page.wait_for_function(
        "fs => fs.every(f => ('&' + location.hash.split('?')[1] + '&').includes('&' + f + '&'))",
        arg=list(fragments),
        timeout=5000,
    )
    return True


def view(app: Visit, name: str):
    """Locator scoped to one view's section, for testids that every view has."""
    return app.page.locator(f"#view-{name}")


def value(app: Visit, name: str, testid: str) -> int:
    return int(view(app, name).locator(f"[data-testid={testid}]").get_attribute("data-value"))
