"""Hardening in the browser: CSP, storage, broken deployments, embedding, long runs. That the same address
gives the same state: tests/views/test_shell.py."""

import pytest

from app.core.urlstate import VIEWS
from browser.conftest import go, url_has, view
from browser.test_playworker import wait_for_worker
from tools.harness import Server


def test_csp_blocks_inline_handlers_and_foreign_origins(app):
    go(app, "#/")
    app.page.evaluate(
        """() => {
        window.__violations = [];
        document.addEventListener('securitypolicyviolation', e => window.__violations.push(e.violatedDirective));
        const img = document.createElement('img');
        img.setAttribute('onerror', 'window.__pwned = 1');
        img.src = 'data:,not-an-image';
        document.body.appendChild(img);
        fetch('https://example.invalid/x').catch(() => {});
    }"""
    )
    app.page.wait_for_timeout(300)
    assert app.page.evaluate("window.__pwned") is None
    violations = app.page.evaluate("window.__violations")
    assert any(v.startswith("script-src") for v in violations)
    assert any(v.startswith("connect-src") for v in violations)


def test_a_python_script_added_after_start_never_runs(app):
    """PyScript's core would run a <script type="py"> added at any time, and handlers in py-* attributes; once
    Python has the page (site/boot/pyscript-fixes.js: endDocumentWatch) nothing added can start Python code."""
    go(app, "#/")
    app.page.evaluate(
        """() => {
        const script = document.createElement('script');
        script.type = 'py';
        script.textContent = 'from pyscript import window\\nwindow.__ranPython = 1';
        document.body.appendChild(script);
        const button = document.createElement('button');
        button.setAttribute('py-click', 'print');
        document.body.appendChild(button);
    }"""
    )
    app.page.wait_for_timeout(3000)  # a script PyScript takes runs well within this on the same interpreter
    assert app.page.evaluate("window.__ranPython") is None


def test_no_cookies_and_no_storage(app):
    for route in ("#/tiling?step=5", "#/register?step=5", "#/hierarchy?step=3"):
        go(app, route)
    assert app.page.evaluate("document.cookie") == ""
    assert app.page.evaluate("localStorage.length + sessionStorage.length") == 0
    # PyScript's file-system and package stores are kept in memory (site/boot/storage.js), so a browser that
    # refuses storage still starts: nothing reaches IndexedDB (README, "Privacy and storage").
    assert app.page.evaluate("indexedDB.databases().then(list => list.map(db => db.name))") == []
    assert app.page.context.cookies() == []


def test_pyodide_runs_without_stack_switching(app):
    """With WebAssembly JSPI, Pyodide 0.27 can crash the tab (site/boot/pyscript-fixes.js): this Chromium offers JSPI, and
    neither the page's Pyodide nor the playground worker's uses it."""
    blank = app.page.context.new_page()
    blank.goto("about:blank")
    assert blank.evaluate("'Suspending' in WebAssembly")  # offered where nothing hides it
    blank.close()
    assert app.page.evaluate("window.tilelabStackSwitching") is False
    go(app, "#/playground")
    wait_for_worker(app.page)
    assert app.page.evaluate("window.tilelabPlayworker.stackSwitching") is False


@pytest.mark.parametrize(
    "path",
    [
        "pyodide/pyodide-lock.json",
        "pyodide/numpy-2.0.2-cp312-cp312-pyodide_2024_0_wasm32.whl",
        "pyscript.json",
        "tilelab.zip",
    ],
)
def test_each_missing_file_is_named_within_two_seconds(visit, path):
    visit.server.faults[path] = "missing"
    visit.open("#/tiling", wait="error")
    message = visit.page.locator("[data-testid=boot-error]").inner_text()
    assert f"{path} is missing (HTTP 404)" in message
    assert visit.page.locator("#view-tiling h1").is_visible()
    delay = visit.page.evaluate(
        """path => {
        const failed = performance.getEntriesByType('resource').find(e => e.name.endsWith(path));
        const error = performance.getEntriesByName('tilelab:error')[0];
        return error.startTime - failed.responseEnd;
    }""",
        path,
    )
    assert delay < 2000


def test_a_missing_pyscript_chunk_is_named(visit, dist):
    chunk = next(p.relative_to(dist).as_posix() for p in (dist / "pyscript").glob("core-*.js"))
    visit.server.faults[chunk] = "missing"
    visit.open("#/tiling", wait="error")
    assert f"{chunk} is missing" in visit.page.locator("[data-testid=boot-error]").inner_text()


EMBED_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>course page</title></head>
<body style="margin:0"><h1>Course page</h1><iframe id="frame" title="TileLab" width="800" height="600" {sandbox}
src="{src}"></iframe><p style="height:2000px">more course text</p></body></html>"""


def embed(server: Server, host: Server, name: str, sandbox: str, route: str) -> str:
    src = f"{server.url}{route}"
    page = EMBED_PAGE.format(sandbox=f'sandbox="{sandbox}"' if sandbox else "", src=src)
    host.extra[name] = ("text/html; charset=utf-8", page.encode())
    return host.url + name


@pytest.fixture(scope="module")
def other_origin(dist):
    host = Server(dist)  # a second port is a second origin
    yield host
    host.close()


def frame_state(page):
    frame = page.frame_locator("#frame")
    page.wait_for_timeout(200)
    handle = page.query_selector("#frame").content_frame()
    handle.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=60_000)
    return frame, handle


@pytest.mark.parametrize("origin", ["same", "cross"])
@pytest.mark.parametrize("sandbox", ["", "allow-scripts allow-same-origin"])
def test_embedded_view_works_and_fits(visit, server, other_origin, origin, sandbox):
    host = server if origin == "same" else other_origin
    visit.other_origins.append(host.url)
    url = embed(
        server, host, f"embed-{origin}-{len(sandbox)}.html", sandbox, "#/tiling?M=4&N=4&K=8&T=2&embed=1&guide=0"
    )
    visit.page.set_viewport_size({"width": 1024, "height": 768})
    visit.page.goto(url)
    frame, handle = frame_state(visit.page)
    assert handle.evaluate("document.documentElement.dataset.state") == "ready"
    assert not frame.locator(".site-header").is_visible()
    frame.locator("#view-tiling [data-testid=step]").click()
    assert url_has(handle, "step=1")
    assert handle.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
    parent_scroll = visit.page.evaluate("window.scrollY")
    frame.locator("#view-tiling h1").click()
    visit.page.keyboard.press("ArrowRight")
    visit.page.keyboard.press(" ")
    visit.page.keyboard.press(" ")
    assert url_has(handle, "step=2")
    assert visit.page.evaluate("document.activeElement.id") == "frame"
    assert visit.page.evaluate("window.scrollY") == parent_scroll


def test_sandbox_without_same_origin_fails_visibly(visit, server):
    url = embed(server, server, "embed-scripts-only.html", "allow-scripts", "#/tiling?embed=1")
    visit.page.goto(url)
    _, handle = frame_state(visit.page)
    assert handle.evaluate("document.documentElement.dataset.state") == "error"


def test_long_run_keeps_memory_bounded(visit):
    """Step through 400 steps of the largest animatable tiling; memory stays within 1.5× of after step 1."""
    visit.open("#/tiling?M=64&N=64&K=64&T=8&step=0")
    cdp = visit.context.new_cdp_session(visit.page)
    section = view(visit, "tiling")
    section.locator("[data-testid=step]").click()

    def heap() -> float:
        cdp.send("HeapProfiler.collectGarbage")
        js = cdp.send("Runtime.getHeapUsage")["usedSize"]
        return js + visit.page.evaluate("window.tilelabWasmBytes()")

    first = heap()
    visit.page.evaluate(
        """() => { const b = document.querySelector('#view-tiling [data-testid=step]');
                   for (let i = 0; i < 400; i++) b.click(); }"""
    )
    assert url_has(visit.page, "step=401")
    assert heap() <= 1.5 * first
    assert visit.page.locator(".py-error").count() == 0


# Every value document.title takes, recorded as it is set (a title shown for a moment counts too).
RECORD_TITLES = """() => {
    window.__titles = [];
    const title = document.querySelector('title');
    new MutationObserver(() => window.__titles.push(document.title))
        .observe(title, {childList: true, characterData: true, subtree: true});
}"""


def test_the_title_comes_from_the_normalised_state_only(app):
    """A link's keys are anyone's text: the title never shows one the view did not write (issue 45, item 6).
    #/ladder takes seconds to build; its title named the raw address all that time."""
    go(app, "#/")
    app.page.evaluate(RECORD_TITLES)
    hostile = "%E2%80%AEowned"  # U+202E, then text a view never writes
    for spec in VIEWS:
        go(app, f"#{spec.path}?x={hostile}&{hostile}=1")
        app.page.wait_for_function("() => !location.hash.includes('owned')", timeout=30_000)
    titles = app.page.evaluate("window.__titles")
    assert len(titles) >= len(VIEWS)
    assert [title for title in titles if "owned" in title or "\u202e" in title] == []
