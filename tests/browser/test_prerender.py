"""The real view before Python is ready (tools/sitebuild/prerender.py), in Chromium: each route drawn
with the runtime's downloads blocked, Python's build of it replacing it in one task, deep links with other sizes,
and a progress line that names its stage and is never full while work remains."""

from __future__ import annotations

import re
import time

import pytest

from app.core.urlstate import VIEWS
from browser.conftest import READY_TIMEOUT_MS, Visit

pytestmark = pytest.mark.browser

# What each route's first state shows, read from the page: (selector, what must be there).
PICTURE = {"/hierarchy": "svg.picture", "/playground": "textarea, .editor"}


# (number of columns the cells say they are in, distinct left edges they are drawn at)
COLUMNS = """cells => [Math.max(...cells.map(c => +c.dataset.c)) + 1,
  new Set(cells.map(c => Math.round(c.getBoundingClientRect().left))).size]"""


def blocked(visit: Visit) -> None:
    """No Python: every runtime file is refused, so only the page as built can show anything."""
    visit.page.route("**/pyodide/**", lambda route: route.abort())


# One route of each kind: a stepping view's grids, the walkthrough's pictures, the playground's editor. What every
# route's pre-render holds is read in CPython (tests/views/test_prerender.py); here, that the page shows it.
DRAWN = [spec for spec in VIEWS if spec.path in ("/tiling", "/hierarchy", "/playground")]


@pytest.mark.parametrize("spec", DRAWN, ids=lambda spec: spec.path)
def test_each_route_is_drawn_before_python(visit, spec):
    blocked(visit)
    visit.open(f"#{spec.path}", wait="error")
    section = visit.page.locator(f"#{spec.container}")
    assert section.locator(".skeleton, .placeholder").count() == 0
    if spec.kernel:
        listing = section.locator("pre.code")
        assert "__global__" in listing.inner_text()
        counters = section.locator("[data-testid=counters] dd").all_inner_texts()
        assert counters and {text.strip() for text in counters} == {"0"}
        values = section.locator("[data-testid=grid-A] .cell[data-r]").all_inner_texts()
        canvas = section.locator("[data-testid=canvas-A]")
        assert (values and all(text.strip().isdigit() for text in values)) or canvas.is_visible()
        if values:  # laid out in its columns: the grid's --cols style arrived (through the CSSOM)
            cols, lefts = section.locator("[data-testid=grid-A] .cell[data-r]").evaluate_all(COLUMNS)
            assert lefts == cols > 1
    else:
        assert section.locator(PICTURE[spec.path]).first.is_visible()


def held(visit: Visit) -> list:
    """The runtime's downloads wait (the requests are kept) until `release`."""
    waiting: list = []
    visit.page.route("**/pyodide/**", lambda route: waiting.append(route))
    return waiting


def release(visit: Visit, waiting: list) -> None:
    for route in waiting:
        route.continue_()
    visit.page.unroute("**/pyodide/**")
    visit.page.wait_for_function("document.documentElement.dataset.state !== 'loading'", timeout=READY_TIMEOUT_MS)
    assert visit.page.evaluate("document.documentElement.dataset.state") == "ready"


# A container's markup and its controls' values. The build's DOM writes a control's value as its markup
# (the value attribute, an option's selected) where the browser's build sets the value itself: both
# show the same, so the markup is compared without them and the values beside it, its attributes in
# alphabetical order. An id made from a
# Python object's id (the player's speed slider) differs between any two page loads.
SHOWN = """id => { const copy = document.getElementById(id).cloneNode(true);
  const values = [...document.getElementById(id).querySelectorAll('input, select, textarea')].map(control => control.value);
  copy.querySelectorAll('input').forEach(input => input.removeAttribute('value'));
  copy.querySelectorAll('option').forEach(option => option.removeAttribute('selected'));
  for (const element of copy.querySelectorAll('*')) {  // attributes in one order (theirs is not the page's meaning)
    const attributes = [...element.attributes].map(a => [a.name, a.value]).sort();
    attributes.forEach(([name]) => element.removeAttribute(name));
    attributes.forEach(([name, value]) => element.setAttribute(name, value));
  }
  return [copy.innerHTML.replace(/(speed)-[0-9]+/g, '$1-N'), values]; }"""
# The container as shown when the page turns ready: the end of the task that built the view (a mutation
# observer's callback runs before any later task, such as the editor's loading CodeMirror).
AT_READY = f"""id => {{ const shown = {SHOWN};
  new MutationObserver((records, observer) => {{
    if (document.documentElement.dataset.state !== 'ready') return;
    observer.disconnect();
    window.__atReady = shown(id);
  }}).observe(document.documentElement, {{ attributes: true, attributeFilter: ['data-state'] }}); }}"""


@pytest.mark.parametrize("spec", VIEWS, ids=lambda spec: spec.path)
def test_python_builds_each_view_as_drawn_before_it(visit, spec):
    # The pre-render stands in until Python's build of the view replaces it, in one task (site/boot/prerender.js
    # takeOver): what the build drew at build time is what the browser's build shows.
    waiting = held(visit)
    visit.page.goto(visit.server.url + f"#{spec.path}")
    visit.page.wait_for_function("id => !document.querySelector('#' + id + ' .placeholder')", arg=spec.container)
    drawn = visit.page.evaluate(SHOWN, spec.container)
    visit.page.evaluate(AT_READY, spec.container)
    release(visit, waiting)
    assert visit.page.evaluate("window.__atReady") == drawn


def tampered(route) -> None:
    """#/tiling's drawing (prerender/tiling.js) unlike what Python builds: a text changed, an element moved."""
    script = route.fetch().text()
    drawn = script.replace("Current focus: Block (0, 0)", "A stale focus")
    focus = re.search(r'<p class=\\"focus\\".*?</p>', drawn).group(0)
    drawn = drawn.replace(focus, "").replace("</form>", "</form>" + focus, 1)
    assert "A stale focus" in drawn and drawn != script
    route.fulfill(body=drawn, content_type="text/javascript")


def test_a_pre_render_unlike_the_view_still_ends_as_the_view_built_afresh(browser, server):
    markups = []
    for tamper in (True, False):
        visit = Visit(browser, server)
        if tamper:
            visit.page.route("**/prerender/tiling.js", tampered)
        visit.open("#/tiling")
        markups.append(visit.page.evaluate(SHOWN, "app-tiling"))
        visit.close()
    assert "A stale focus" not in markups[0][0]
    assert markups[0] == markups[1]


def test_a_deep_link_with_other_sizes_waits_for_python_and_shows_its_own(visit):
    link = "#/tiling?M=6&N=6&K=9&T=3"
    blocked(visit)
    visit.open(link, wait="error")
    assert visit.page.locator("#app-tiling .cell").count() == 0, "no default sizes under another address"
    visit.page.unroute("**/pyodide/**")
    visit.page.reload()
    visit.page.wait_for_function("document.documentElement.dataset.state === 'ready'", timeout=READY_TIMEOUT_MS)
    caption = visit.page.locator("#app-tiling .grid-A figcaption").inner_text()
    assert caption.startswith("Matrix A (6 × 9)")
    assert visit.page.locator("#app-tiling [data-testid=grid-A] .cell[data-r]").count() == 6 * 9


# From the first frame after the page is parsed until ready: each frame's grid cells and shifts, each
# change of the progress line (the stage shown, the bar's byte count, whether it reads full, and the kinds
# of change), and every read of the layout (which would force one) from the page's scripts.
WATCH = """
window.__frames = []; window.__boot = []; window.__shifts = []; window.__reads = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shifts.push(entry.value);
}).observe({ type: 'layout-shift', buffered: true });
const loading = () => document.documentElement.dataset.state === 'loading';
for (const [proto, names] of [[HTMLElement.prototype, ['offsetTop', 'offsetLeft', 'offsetWidth', 'offsetHeight']],
    [Element.prototype, ['clientTop', 'clientLeft', 'clientWidth', 'clientHeight', 'scrollTop', 'scrollLeft', 'scrollWidth', 'scrollHeight']]]) {
  for (const name of names) {
    const own = Object.getOwnPropertyDescriptor(proto, name);
    Object.defineProperty(proto, name, {...own, get() { if (loading()) window.__reads.push(name); return own.get.call(this); }});
  }
}
for (const name of ['getBoundingClientRect', 'getClientRects', 'scrollIntoView']) {
  const own = Element.prototype[name];
  Element.prototype[name] = function (...args) { if (loading()) window.__reads.push(name); return own.apply(this, args); };
}
document.addEventListener('DOMContentLoaded', () => {
  const bar = document.getElementById('boot-progress');
  const note = records => window.__boot.push({
    state: document.documentElement.dataset.state,
    stage: [...document.querySelectorAll('#boot-stage > :not([aria-hidden=true])')].map(label => label.textContent).join('|'),
    bytes: bar.getAttribute('aria-valuetext') || '',
    full: bar.hasAttribute('aria-valuenow') && +bar.getAttribute('aria-valuenow') >= +bar.getAttribute('aria-valuemax'),
    kinds: [...new Set((records || []).map(record => record.type))],
  });
  new MutationObserver(note).observe(document.getElementById('boot'), { subtree: true, childList: true, characterData: true, attributes: true });
  note();
  const frame = () => {
    window.__frames.push(document.querySelectorAll('#app-tiling .cell[data-r]').length);
    if (loading()) requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
});
"""
STAGES = ("Downloading the Python runtime…", "Starting Python…", "Loading NumPy…", "Building the view…")


@pytest.fixture
def watched(visit):
    visit.page.add_init_script(WATCH)
    visit.open("#/tiling")
    return visit


def test_python_takes_the_view_over_in_place(watched):
    frames = watched.page.evaluate("window.__frames")
    assert frames and min(frames) > 0, f"a frame without the grids: {frames}"
    shifts = watched.page.evaluate("window.__shifts")
    assert sum(shifts) <= 0.02, f"cumulative layout shift {sum(shifts):.3f}"
    assert watched.page.locator("#app-tiling .cell[data-r]").count() == frames[-1]


def test_the_progress_line_names_each_stage_and_is_never_full_while_working(watched):
    notes = watched.page.evaluate("window.__boot")
    working = [note for note in notes if note["state"] == "loading"]
    stages = [note["stage"] for note in working]
    assert [stage for stage in STAGES if stage in stages] == list(STAGES)
    firsts = [stages.index(stage) for stage in STAGES]
    assert firsts == sorted(firsts), f"stages out of order: {stages}"
    assert [note for note in working if note["full"]] == []
    amounts = [note["bytes"].split(" of ") for note in working if note["bytes"]]
    assert amounts and all(done != total for done, total in amounts)


def test_the_page_is_not_laid_out_again_until_python_has_built_the_view(watched):
    # While the pre-rendered view is on screen, the progress line changes only attributes (a text or node
    # change would lay the page out), and no script reads the layout (the view's build would force one
    # inside its long task): Lighthouse's Speed Index weighs every late task that lays out.
    working = [note for note in watched.page.evaluate("window.__boot") if note["state"] == "loading"]
    assert {kind for note in working for kind in note["kinds"]} == {"attributes"}
    assert watched.page.evaluate("window.__reads") == []


def late(route) -> None:
    """A drawing's file that takes half a second to come."""
    time.sleep(0.5)
    route.continue_()


DRAWINGS_FETCHED = "performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/prerender/'))"


def test_the_routes_drawing_alone_is_fetched_and_the_first_frame_waits_for_it(visit):
    # The address as the build drew it (no guide=0): the drawing stands only for the state it shows.
    visit.page.route("**/prerender/*.js", late)
    visit.page.add_init_script(WATCH)
    held(visit)
    visit.page.goto(visit.server.url + "#/tiling")
    visit.page.wait_for_function("window.__frames && window.__frames.length > 2")
    frames = visit.page.evaluate("window.__frames")
    assert min(frames) > 0, f"a frame before the drawing came: {frames}"
    assert [name.split("/")[-1] for name in visit.page.evaluate(DRAWINGS_FETCHED)] == ["tiling.js"]
    # A route named before Python is up: its drawing is fetched then, and shown when it comes.
    assert visit.page.locator("#app-naive .placeholder").count() > 0
    visit.page.evaluate("location.hash = '#/naive'")
    visit.page.wait_for_function("!document.querySelector('#app-naive .placeholder')", timeout=5000)
    assert [name.split("/")[-1] for name in visit.page.evaluate(DRAWINGS_FETCHED)] == ["tiling.js", "naive.js"]
