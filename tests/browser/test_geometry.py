"""What the reader sees, measured in Chromium: nothing clipped, nothing wrapped, nothing shifting.

Every route at a projector (1280×720), a desktop (1440×900) and a phone (360×800), light and
dark, and inside the Share snippet's frame on an 800×600 course page (embed=1, 800×EMBED_HEIGHT).
"""

import pytest

from app.core.urlstate import EMBED_HEIGHT
from browser.conftest import READY_TIMEOUT_MS, Visit, unguided

ROUTES = (
    "#/",
    "#/tiling?M=6&N=6&K=9&T=3&step=14",
    "#/tiling?M=32&N=32&K=32&T=8&step=1",
    "#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&step=40",
    "#/register?M=32&N=32&K=32&BM=16&BN=16&BK=4&TM=4&TN=4&step=100",
    "#/hierarchy?N=1024&T=16&step=0",
    "#/hierarchy?N=1000&T=40&step=7",
    "#/blocktile1d?M=8&N=8&K=8&BM=8&BN=8&BK=2&TM=4&step=12",
    "#/vectorized?M=16&N=16&K=8&BM=16&BN=16&BK=4&TM=4&TN=4&step=2",
    "#/warptile?M=16&N=64&K=16&BM=16&BN=64&BK=8&WM=16&WN=64&WNITER=2&TM=1&TN=4&threads=32&step=30",
    "#/mma?M=16&N=16&K=32&BM=16&BN=16&BK=8&WM=16&WN=16&stages=2&swizzle=0&split=1&step=9",
    "#/wgmma?M=64&N=32&K=64&BM=64&BN=32&BK=32&stages=2&consumers=1&step=10",
)
BLOCKTILED = ROUTES[7:]  # the blocktiled views (#/blocktile1d, #/vectorized, #/warptile), #/mma and #/wgmma
SIZES = (
    ("projector", 1280, 720, "light"),
    ("desktop", 1440, 900, "dark"),
    ("phone", 360, 800, "light"),
    ("phone-dark", 360, 800, "dark"),
)

# Each check returns a list of human-readable problems; [] means the page passes.
SVG_TEXT_OUTSIDE = """() => {
  const problems = [];
  for (const svg of document.querySelectorAll('main svg')) {
    if (!svg.checkVisibility()) continue;
    const box = svg.getBoundingClientRect();
    for (const text of svg.querySelectorAll('text')) {
      const t = text.getBoundingClientRect();
      if (!t.width) continue;
      if (t.left < box.left - 1 || t.right > box.right + 1 || t.top < box.top - 1 || t.bottom > box.bottom + 1)
        problems.push(`"${text.textContent}" leaves its picture (${svg.getAttribute('aria-label')})`);
    }
  }
  return problems;
}"""

# Text that does not fit: the page scrolls sideways, a clipped box hides text, or a text box sticks out of
# the viewport without an ancestor that scrolls (a scroll container must be reachable by keyboard).
TEXT_OVERFLOW = """() => {
  const problems = [];
  const root = document.documentElement;
  if (root.scrollWidth > root.clientWidth + 1) problems.push(`the page scrolls sideways: ${root.scrollWidth} > ${root.clientWidth}`);
  const scrolls = el => { const s = getComputedStyle(el).overflowX; return s === 'auto' || s === 'scroll'; };
  const reachable = el => el.tabIndex >= 0 || el.querySelector('a, button, input, select, textarea, summary, [tabindex]');
  for (const el of document.querySelectorAll('main *, header *')) {
    if (!el.checkVisibility() || el.closest('.sr-only, svg')) continue;
    const style = getComputedStyle(el);
    if ((style.overflowX === 'hidden' || style.overflowX === 'clip') && el.scrollWidth > el.clientWidth + 1 && el.textContent.trim())
      problems.push(`text clipped in <${el.tagName.toLowerCase()} class="${el.className}">`);
    if (scrolls(el) && el.scrollWidth > el.clientWidth + 1 && !reachable(el))
      problems.push(`<${el.tagName.toLowerCase()} class="${el.className}"> scrolls but cannot be reached by keyboard`);
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    const box = el.getBoundingClientRect();
    if (box.right <= root.clientWidth + 1 && box.left >= -1) continue;
    let parent = el.parentElement, inScroller = false;
    while (parent) { if (scrolls(parent)) { inScroller = true; break; } parent = parent.parentElement; }
    if (!inScroller) problems.push(`"${el.textContent.trim().slice(0, 40)}" runs out of the page`);
  }
  return problems;
}"""

NUMBER_WRAPS = """() => {
  const problems = [];
  for (const cell of document.querySelectorAll('main td, main .counter dd')) {
    if (!cell.checkVisibility()) continue;
    const text = cell.textContent.trim();
    if (!/^[-+]?[0-9][0-9,.\\s×%]*$/.test(text)) continue;
    const range = document.createRange();
    range.selectNodeContents(cell);
    const lines = new Set([...range.getClientRects()].map(r => Math.round(r.top)));
    if (lines.size > 1) problems.push(`the number ${text} wraps`);
  }
  return problems;
}"""

# A value wider than its grid cell (4-digit sums at 32×32), or a listing that scrolls on a wide screen.
CELL_OVERFLOW = """() => {
  const problems = [];
  for (const cell of document.querySelectorAll('main .cell')) {
    if (!cell.checkVisibility() || !cell.textContent) continue;
    const range = document.createRange();
    range.selectNodeContents(cell);
    if (range.getBoundingClientRect().width > cell.clientWidth + 0.5) problems.push(`the value ${cell.textContent} overflows its cell`);
  }
  if (window.innerWidth >= 1280)
    for (const code of document.querySelectorAll('main pre.code'))
      if (code.checkVisibility() && code.scrollWidth > code.clientWidth + 1) problems.push('the kernel listing scrolls on a wide screen');
  return problems;
}"""

CONTROLS_REACHABLE = """() => {
  const problems = [];
  const width = document.documentElement.scrollWidth;
  // A control inside a box that scrolls sideways (a wide table) is reached by scrolling that box:
  // the box must be on the page, the control need not be.
  const scroller = (el) => {
    for (let box = el.parentElement; box; box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowX;
      if ((overflow === 'auto' || overflow === 'scroll') && box.scrollWidth > box.clientWidth) return box;
    }
    return null;
  };
  for (const el of document.querySelectorAll('main button, main input, main select, main a[href]')) {
    if (!el.checkVisibility()) continue;
    const box = el.getBoundingClientRect();
    if (!box.width || !box.height) problems.push(`a ${el.tagName.toLowerCase()} has no size`);
    const place = (scroller(el) || el).getBoundingClientRect();
    if (place.left < -1 || place.left + window.scrollX > width) problems.push(`${el.textContent || el.dataset.testid} is off the page`);
  }
  return problems;
}"""

LAYOUT_SHIFT_OBSERVER = """
window.__shifts = [];
new PerformanceObserver(list => {
  for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.__shifts.push(entry.value);
}).observe({ type: 'layout-shift', buffered: true });
"""


def open_page(browser, server, route: str, width: int, height: int, scheme: str) -> Visit:
    visit = Visit(browser, server)
    visit.context.close()
    visit.context = browser.new_context(viewport={"width": width, "height": height}, color_scheme=scheme)
    visit.page = visit.context.new_page()
    visit.page.add_init_script(LAYOUT_SHIFT_OBSERVER)
    visit.open(route)
    visit.page.wait_for_timeout(300)
    return visit


def problems_on(page) -> list[str]:
    return [
        p for check in (SVG_TEXT_OUTSIDE, TEXT_OVERFLOW, NUMBER_WRAPS, CONTROLS_REACHABLE) for p in page.evaluate(check)
    ]


@pytest.mark.parametrize("size", SIZES, ids=[s[0] for s in SIZES])
def test_nothing_clipped_or_wrapped(browser, server, size):
    _, width, height, scheme = size
    visit = open_page(browser, server, ROUTES[0], width, height, scheme)
    try:
        found = {}
        for route in ROUTES:
            visit.page.evaluate("hash => { location.hash = hash; }", unguided(route))
            visit.page.wait_for_timeout(400)
            problems = problems_on(visit.page)
            if problems:
                found[route] = problems[:8]
        assert found == {}
    finally:
        visit.close()


@pytest.mark.parametrize("route", ROUTES[1:4] + ROUTES[5:6] + BLOCKTILED)
def test_embed_shows_grids_and_counters_on_the_first_screen(browser, server, route):
    """In the Share snippet's frame (800 wide, EMBED_HEIGHT high: what fits an 800×600 course page)."""
    visit = open_page(browser, server, route + "&embed=1", 800, EMBED_HEIGHT, "light")
    try:
        assert problems_on(visit.page) == []
        view = route.split("?")[0][2:]
        first = visit.page.locator(f"#view-{view} [data-testid=counters], #view-{view} .picture, #view-{view} .grid")
        tops = visit.page.evaluate("els => els.map(e => e.getBoundingClientRect().top)", first.element_handles())
        assert tops and min(tops) < EMBED_HEIGHT, "something to look at on the first screen"
        # The grid a step reads first: the global A in #/tiling; in the register family the shared As (issue 39
        # item 4: As/Bs, the register tile and C), which #/vectorized's and #/warptile's strip puts above A.
        first_grid = {"tiling": ".grid"}.get(view, "[data-testid=grid-As]")
        if view in ("tiling", "register", "blocktile1d", "vectorized", "warptile"):
            grid = visit.page.locator(f"#view-{view} {first_grid}").first.bounding_box()
            assert grid["y"] < EMBED_HEIGHT, f"the first grid ({first_grid}) starts at y={grid['y']:.0f}"
    finally:
        visit.close()


@pytest.mark.parametrize("route", ROUTES[1:2] + ROUTES[3:4])
def test_dashboard_stays_in_view_while_the_grids_scroll(browser, server, route):
    visit = open_page(browser, server, route, 1280, 720, "light")
    try:
        view = route.split("?")[0][2:]
        visit.page.mouse.wheel(0, 900)
        visit.page.wait_for_timeout(200)
        box = visit.page.locator(f"#view-{view} [data-testid=dashboard]").bounding_box()
        assert -1 <= box["y"] <= 1, "counters and step controls stick to the top"
    finally:
        visit.close()


@pytest.mark.parametrize("size", [(1280, 720), (1366, 768)], ids=["1280x720", "1366x768"])
def test_play_and_pause_move_no_control(browser, server, size):
    """Issue 39 item 8: Play turning into Pause reflowed the toolbar, so "Next block" jumped under the cursor."""
    visit = open_page(browser, server, ROUTES[1], *size, "light")
    try:
        boxes = "() => [...document.querySelectorAll('#view-tiling .player > *')].map(e => { const b = e.getBoundingClientRect(); return [e.dataset.testid || e.className, Math.round(b.x), Math.round(b.y), Math.round(b.width)]; })"
        paused = visit.page.evaluate(boxes)
        visit.page.locator("#view-tiling [data-testid=play]").click()
        visit.page.wait_for_timeout(150)
        assert visit.page.locator("#view-tiling [data-testid=play]").get_attribute("aria-pressed") == "true"
        playing = visit.page.evaluate(boxes)
        visit.page.locator("#view-tiling [data-testid=play]").click()
        assert playing == paused
    finally:
        visit.close()


def test_arrows_follow_their_cells_when_a_grid_scrolls(browser, server):
    visit = open_page(browser, server, "#/tiling?M=24&N=24&K=24&T=4&step=1&thread=1,0", 360, 800, "light")
    try:
        figure = visit.page.locator("#view-tiling .grid-A")
        figure.evaluate("el => { el.scrollLeft = 80; el.dispatchEvent(new Event('scroll')); }")
        visit.page.wait_for_timeout(100)
        arrow = visit.page.locator("#view-tiling .load-arrow.followed").first
        x1 = float(arrow.get_attribute("x1"))
        memory = visit.page.locator("#view-tiling .memory").bounding_box()
        cell = visit.page.locator("#view-tiling [data-testid=grid-A] .cell.followed").bounding_box()
        assert abs(memory["x"] + x1 - (cell["x"] + cell["width"] / 2)) <= 2
    finally:
        visit.close()


@pytest.mark.parametrize("route", ("#/", *ROUTES[1:2], *ROUTES[3:4], *ROUTES[5:6], *BLOCKTILED))
def test_no_layout_shift_while_starting(browser, server, route):
    visit = open_page(browser, server, route, 1280, 720, "light")
    try:
        visit.page.wait_for_timeout(2000)
        shifts = visit.page.evaluate("window.__shifts")
        assert sum(shifts) <= 0.02, f"cumulative layout shift {sum(shifts):.3f} ({len(shifts)} shifts)"
    finally:
        visit.close()


def test_the_geometry_check_sees_a_label_outside_its_picture(app):
    app.page.evaluate("hash => { location.hash = hash; }", "#/hierarchy?N=1024&T=16&step=5")
    app.page.wait_for_function("document.querySelector('#view-hierarchy svg text')", timeout=READY_TIMEOUT_MS)
    assert app.page.evaluate(SVG_TEXT_OUTSIDE) == []
    app.page.evaluate(
        "() => { const t = document.querySelector('#view-hierarchy svg.picture text'); t.setAttribute('x', '-400'); }"
    )
    assert app.page.evaluate(SVG_TEXT_OUTSIDE) != []
