"""Picture first (issue 23), measured in Chromium: on every route, at three laptop sizes, a phone and an
800×600 course-page frame (embed=1&lock=1, as the README's embed examples), the first screen holds what the
student watches (the grids, the walkthrough step's picture, the sector or bank picture, the roofline, the
playground's editor) and the control that moves it (Step, Apply, Run); on a phone the step bar stays in view while the grids scroll; nothing is clipped.
"""

from __future__ import annotations

import pytest

from browser.conftest import READY_TIMEOUT_MS, unguided
from browser.test_geometry import open_page, problems_on
from browser.test_ladder import AXE

# route name -> (address, the picture, the control that moves it). The addresses are the README's deep links
# and the blocktiled views' examples from test_geometry. A picture a phone draws wider than its screen (the
# walkthrough's, the roofline: 12 px labels) is measured by the box it scrolls sideways in.
ROUTES = {
    "home": (  # the picture of a tile load (issue 39 item 7), the start-here list's links beside it
        "#/",
        "#view-landing [data-testid=home-picture]",
        "#view-landing :is([data-testid=start-here], .cards) a",
    ),
    "tiling": ("#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14", ".memory", "[data-testid=step]"),
    "register": ("#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&step=40", ".memory", "[data-testid=step]"),
    "blocktile1d": ("#/blocktile1d?M=8&N=8&K=8&BM=8&BN=8&BK=2&TM=4&step=12", ".memory", "[data-testid=step]"),
    "vectorized": (
        "#/vectorized?M=16&N=16&K=8&BM=16&BN=16&BK=4&TM=4&TN=4&step=2",
        ".memory",
        "[data-testid=step]",
    ),
    "warptile": (
        "#/warptile?M=16&N=64&K=16&BM=16&BN=64&BK=8&WM=16&WN=64&WNITER=2&TM=1&TN=4&threads=32&step=30",
        ".memory",
        "[data-testid=step]",
    ),
    "hierarchy": (
        "#/hierarchy?N=1000&T=16&step=4",
        ".walk-step[aria-current=step] .walk-picture",
        "[data-testid=step]",
    ),
    "naive": (
        "#/naive?M=32&N=32&K=8&T=32&map=row&thread=0,0&step=3",
        ".warp-picture:not([hidden])",
        "[data-testid=step]",
    ),
    "transpose": ("#/transpose?n=64&T=32&pad=1&step=3", ".warp-picture:not([hidden])", "[data-testid=step]"),
    "ladder": (
        "#/ladder?N=4096&T=32&BM=64&BN=64&BK=8&TM=4&TN=4&device=t4",
        "[data-testid=roofline]",
        "[data-testid=apply]",
    ),
    # The playground's picture is the kernel being written; Run, which makes its results, stays with it
    # (a locked exercise keeps Run too).
    "playground": ("#/playground?puzzle=tiled&M=32&N=32&K=32", "[data-editor]", "[data-testid=run]"),
}
SIZES = {
    "1280x720": (1280, 720, ""),
    "1366x768": (1366, 768, ""),
    "1440x900": (1440, 900, ""),
    "phone": (360, 800, ""),
    "embed-locked": (800, 600, "embed=1&lock=1"),
}
# A picture taller than what is left of the screen passes when it starts in the top two thirds (it then fills
# the rest); a smaller one must fit whole.
FIRST_SCREEN = """([picture, control, locked]) => {
  const view = document.querySelector('main section[data-route]:not([hidden])');
  const shown = s => [...view.querySelectorAll(s)].find(e => e.checkVisibility());
  const problems = [], W = innerWidth, H = innerHeight;
  const p = shown(picture);
  if (!p) return [`no picture ${picture}`];
  const b = p.getBoundingClientRect();
  if (b.top < -1 || b.top >= H) problems.push(`the picture starts at y=${Math.round(b.top)}`);
  else if (b.bottom > H + 1 && b.top > (2 / 3) * H) problems.push(`the picture starts at y=${Math.round(b.top)} and ends below the screen`);
  if (b.left < -1 || b.right > W + 1) problems.push(`the picture spans x=${Math.round(b.left)}..${Math.round(b.right)}`);
  if (locked && control === '[data-testid=apply]') return problems;  // a locked ladder has no form: nothing to press
  const c = shown(control);
  if (!c) return [...problems, `no control ${control}`];
  const k = c.getBoundingClientRect();
  if (k.top < -1 || k.bottom > H + 1 || k.left < -1 || k.right > W + 1)
    problems.push(`the control is at ${Math.round(k.left)},${Math.round(k.top)}..${Math.round(k.right)},${Math.round(k.bottom)}`);
  return problems;
}"""
IN_VIEW = (
    "el => { const b = el.getBoundingClientRect(); return b.top >= -1 && b.bottom <= innerHeight + 1 && b.height > 0; }"
)


def address(route: str, extra: str) -> str:
    return route + ("&" if "?" in route else "?") + extra if extra else route


def visit_route(page, route: str) -> None:
    """Enter a route from the top of the page, as a fresh link would open it."""
    page.evaluate("() => window.scrollTo(0, 0)")
    page.evaluate("hash => { location.hash = hash; }", unguided(route))
    page.wait_for_function("h => location.hash.startsWith(h.split('?')[0])", arg=route)
    page.wait_for_timeout(500)


@pytest.mark.parametrize("size", SIZES)
def test_picture_and_control_on_the_first_screen(browser, server, size):
    width, height, extra = SIZES[size]
    visit = open_page(browser, server, address("#/", extra), width, height, "light")
    try:
        found = {}
        for name, (route, picture, control) in ROUTES.items():
            visit_route(visit.page, address(route, extra))
            problems = visit.page.evaluate(FIRST_SCREEN, [picture, control, "lock=1" in extra])
            problems += problems_on(visit.page)
            if problems:
                found[name] = problems[:6]
        assert found == {}
    finally:
        visit.close()


# The step bar stays reachable while the student looks at any part of the picture: each grid scrolled to the
# screen's foot (a grid taller than the screen, #/naive's 850 px C, shows its foot) is seen below the bar, the
# bar keeps Prev, Play, Step and the position in view and is at most 180 px tall, and stepping keeps it there.
# (This asked C to sit more than 400 px down the page: a compact A | tile | C strip puts C on the first screen.)
SEEN_BELOW_THE_BAR = """([part, bar]) => { const p = part.getBoundingClientRect(), b = bar.getBoundingClientRect();
  return p.bottom > b.bottom + 8 && p.top < innerHeight - 8; }"""


@pytest.mark.parametrize("name", ("tiling", "register", "naive", "warptile"))
def test_the_phone_step_bar_stays_in_view_while_any_part_of_the_picture_is_looked_at(browser, server, name):
    visit = open_page(browser, server, ROUTES[name][0], 360, 800, "light")
    try:
        view = visit.page.locator(f"#view-{name}")
        bar = view.locator("[data-testid=dashboard]")
        grids = view.locator(".memory [data-testid^=grid-]")
        names = [g.get_attribute("data-testid") for g in grids.all() if g.is_visible()]
        assert "grid-C" in names, names
        for testid in names:
            part = view.locator(f"[data-testid={testid}]")
            part.evaluate("el => el.scrollIntoView({block: 'end'})")
            visit.page.wait_for_timeout(100)
            assert visit.page.evaluate(SEEN_BELOW_THE_BAR, [part.element_handle(), bar.element_handle()]), testid
            for control in ("prev", "play", "step"):
                assert view.locator(f"[data-testid={control}]").evaluate(IN_VIEW), f"{control} with {testid}"
            assert view.locator(".player .position").evaluate(IN_VIEW), testid
            height = bar.bounding_box()["height"]
            assert height <= 180, f"the sticky bar is {height:.0f} px tall with {testid} in view"
        view.locator("[data-testid=step]").click()
        assert view.locator("[data-testid=step]").evaluate(IN_VIEW), "stepping keeps the bar in view"
    finally:
        visit.close()


def test_a_counter_definition_opens_on_tap(browser, server):
    visit = open_page(browser, server, ROUTES["tiling"][0], 360, 800, "light")
    try:
        counter = visit.page.locator("#view-tiling .counter").first
        definition = counter.locator(".definition")
        assert not definition.is_visible()
        counter.locator("summary").click()
        assert definition.is_visible()
        assert "global memory" in definition.inner_text()
    finally:
        visit.close()


def test_the_listing_follows_the_executing_line(browser, server):
    visit = open_page(browser, server, ROUTES["warptile"][0], 1280, 720, "light")
    try:
        listing = visit.page.locator("#view-warptile pre.code")
        assert listing.evaluate("el => el.scrollHeight > el.clientHeight"), "the listing scrolls in its box"
        for press in range(6):
            inside = listing.evaluate(
                """el => { const l = el.querySelector('.line.executing').getBoundingClientRect(), b = el.getBoundingClientRect();
                           return l.top >= b.top - 1 && l.bottom <= b.bottom + 1; }"""
            )
            assert inside, f"the executing line is out of the listing's box after {press} steps"
            assert visit.page.evaluate("() => window.scrollY") == 0, "following the line never scrolls the page"
            visit.page.locator("#view-warptile [data-testid=step]").click()
            visit.page.wait_for_timeout(150)
    finally:
        visit.close()


@pytest.mark.parametrize("size", ((1280, 720), (360, 800)), ids=("1280x720", "phone"))
def test_walkthrough_back_next_stay_in_view_and_a_new_N_keeps_the_step(browser, server, size):
    visit = open_page(browser, server, "#/hierarchy?N=1024&T=16", *size, "light")
    try:
        page, view = visit.page, visit.page.locator("#view-hierarchy")
        for step in (1, 2, 3):
            view.locator("[data-testid=step]").click()
            page.wait_for_timeout(200)
            assert view.locator("[data-testid=step]").evaluate(IN_VIEW), f"Next is out of view at step {step}"
            assert view.locator("[data-testid=prev]").evaluate(IN_VIEW), f"Back is out of view at step {step}"
            title = view.locator(f"[data-testid=walk-step-{step}] h2")
            assert title.evaluate(IN_VIEW), f"step {step}'s heading is hidden"
        view.locator("[data-testid=input-N]").fill("2000")
        view.locator("[data-testid=apply]").click()
        page.wait_for_function("() => location.hash.includes('N=2000')", timeout=READY_TIMEOUT_MS)
        assert view.locator("[data-part=position]").inner_text() == "step 3 of 7"
        assert "step=3" in page.evaluate("() => location.hash")
        if size[0] >= 700:  # the form sticks with Back/Next: the step being read is still on screen
            assert view.locator("[data-testid=walk-step-3] h2").evaluate(IN_VIEW)
    finally:
        visit.close()


SERIOUS = """() => axe.run(document, {resultTypes: ['violations']}).then(result => result.violations
  .filter(v => v.impact === 'serious' || v.impact === 'critical').map(v => `${v.id}: ${v.nodes[0].target}`))"""


# Dark mode too: the pipeline timelines' light backgrounds under dark mode's light text were 1.02:1 (#/pipelined,
# #/mma, #/wgmma), and only the light scheme was checked.
@pytest.mark.parametrize(
    "size",
    ((360, 800, "", "light"), (360, 800, "", "dark"), (800, 600, "embed=1&lock=1", "light")),
    ids=("phone", "phone-dark", "embed-locked"),
)
def test_axe_finds_no_serious_violations_in_the_compact_layouts(browser, server, size):
    width, height, extra, scheme = size
    visit = open_page(browser, server, address("#/", extra), width, height, scheme)
    try:
        visit.page.evaluate(AXE.read_text())
        found = {}
        for name, (route, _, _) in ROUTES.items():
            visit_route(visit.page, address(route, extra))
            violations = visit.page.evaluate(SERIOUS)
            if violations:
                found[name] = violations
        assert found == {}
    finally:
        visit.close()
