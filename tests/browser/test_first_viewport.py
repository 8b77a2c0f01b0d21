"""Cause and effect on one screen (issue 39, items 4 and 6), measured in Chromium: for every route at a
projector, two laptops, a phone and an 800×600 course frame, the source of this step's values, their
destination and the step control start inside the first viewport, and nothing is clipped (the listing
included). On the phone every control is at least 44 × 44 px and no text is under 12 px.

One page per size; the routes are visited by changing the hash (each a fresh view at the top of the page).
"""

from __future__ import annotations

import pytest

from app.core.urlstate import ROUTES as APP_ROUTES
from browser.test_geometry import CELL_OVERFLOW, SVG_TEXT_OUTSIDE, TEXT_OVERFLOW, open_page
from pysim.hardware.mma_params import MmaParams

TILE = "[data-testid=register-tile]"  # the register family's outer product (issue 39 item 3), between As/Bs and C
# route -> (address, the parts that must start on the first screen: source, destination, step control)
ROUTES = {
    "tiling": ("#/tiling?M=6&N=6&K=9&T=3&step=14", ("[data-testid=grid-tileA]", "[data-testid=grid-C]")),
    "register": (
        "#/register?step=40",
        ("[data-testid=grid-As]", "[data-testid=grid-Bs]", TILE, "[data-testid=grid-C]"),
    ),
    "blocktile1d": ("#/blocktile1d?step=12", ("[data-testid=grid-As]", "[data-testid=grid-C]")),
    "vectorized": ("#/vectorized?step=2", ("[data-testid=grid-As]", TILE, "[data-testid=grid-C]")),
    "warptile": ("#/warptile?step=30", ("[data-testid=grid-As]", TILE, "[data-testid=grid-C]")),
    "mma": ("#/mma?step=9", ("[data-testid=grid-As]", "[data-testid=grid-C]")),  # a fragment load of As
    # the first wgmma: the pipeline and the swizzle, drawn above the grids (As alone is 2 stages × 64 rows)
    "wgmma": ("#/wgmma?step=10", ("[data-testid=pipeline-timeline]", "[data-testid=swizzle-atom]")),
    "naive": ("#/naive?step=3", (".warp-picture:not([hidden])",)),  # lanes (destination) under their sectors
    "transpose": ("#/transpose?step=15", (".warp-picture:not([hidden])",)),
    "hierarchy": ("#/hierarchy?N=1024&T=16&step=0", (".walk-step[aria-current=step] .picture",)),
    "ladder": ("#/ladder?device=a100", ("[data-testid=roofline] svg",)),  # no steps: the chart is the picture
    # Further down a page: only its pictures' labels and clipping are checked.
    "walk-banks": ("#/hierarchy?N=1024&T=16&step=6", ()),
}
NO_STEP_CONTROL = ("ladder", "walk-banks")
STEP = "[data-testid=step]"
SIZES = {
    "1280x720": (1280, 720, ""),
    "1366x768": (1366, 768, ""),
    "1440x900": (1440, 900, ""),
    "390x844": (390, 844, ""),
    "embed-800x600": (800, 600, "&embed=1"),
}

# Each part must start on the screen (a tall grid may run on below it), and the cells the step marks in it
# (the followed thread's) must be on the screen whole.
ON_FIRST_SCREEN = """([parts]) => {
  const view = document.querySelector('main section[data-route]:not([hidden])');
  const problems = [], W = innerWidth, H = innerHeight;
  for (const selector of parts) {
    const part = [...view.querySelectorAll(selector)].find(e => e.checkVisibility());
    if (!part) { problems.push(`no ${selector}`); continue; }
    const b = part.getBoundingClientRect();
    if (b.top < -1 || b.top > H - 24 || b.left < -1 || b.left > W - 24)
      problems.push(`${selector} starts at ${Math.round(b.left)},${Math.round(b.top)}`);
    const marked = [...part.querySelectorAll('.cell.followed, .cell.followed-line')];
    // Seen: on the screen and inside its figure's box (a wide matrix scrolls sideways in its figure).
    const seen = marked.filter(c => {
      const r = c.getBoundingClientRect(), f = c.closest('.grid').getBoundingClientRect();
      return r.top >= Math.max(-1, f.top - 1) && r.bottom <= Math.min(H, f.bottom) + 1 && r.left >= Math.max(-1, f.left - 1) && r.right <= Math.min(W, f.right) + 1;
    });
    if (marked.length && !seen.length) problems.push(`${selector}: the step's cells are off the screen or scrolled out of their figure`);
  }
  return problems;
}"""

# A part inside a box that scrolls on its own starts within the box's visible part (the box on the first screen).
IN_ITS_BOX = """selector => {
  const part = document.querySelector(`main section[data-route]:not([hidden]) ${selector}`);
  const b = part.getBoundingClientRect(), box = part.closest('.mma-side').getBoundingClientRect();
  return b.top >= box.top - 1 && b.top < Math.min(box.bottom, innerHeight) - 24 ? "" : `${selector} at y=${Math.round(b.top)}, its box's visible part ${Math.round(box.top)}-${Math.round(Math.min(box.bottom, innerHeight))}`;
}"""

# Labels of a picture printed over each other (the transpose's sector labels, the roofline's "ridge" and
# "FP32 roof", its points' names).
LABELS_OVERLAP = """() => {
  const problems = [];
  for (const svg of document.querySelectorAll('main svg')) {
    if (!svg.checkVisibility()) continue;
    const boxes = [...svg.querySelectorAll('text')].filter(t => t.checkVisibility() && t.textContent.trim())
      .map(t => [t.textContent.trim(), t.getBoundingClientRect()]).filter(([, b]) => b.width > 0).slice(0, 400);
    for (let i = 0; i < boxes.length; i++)
      for (let j = i + 1; j < boxes.length; j++) {
        const [p, a] = boxes[i], [q, b] = boxes[j];
        const x = Math.min(a.right, b.right) - Math.max(a.left, b.left), y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
        if (x > 1 && y > 2) problems.push(`"${p}" and "${q}" overlap`);
      }
  }
  return problems.slice(0, 8);
}"""

# A phone's hand: every control 44 × 44 px or more, every text 12 px or more (SVG labels at their drawn size).
PHONE_SIZES = """() => {
  const problems = [];
  const controls = 'main button, main select, main input, main summary, main a[href], header a[href]';
  for (const el of document.querySelectorAll(controls)) {
    if (!el.checkVisibility() || el.closest('.sr-only, .open-full, .cm-editor')) continue;
    // A link inside a sentence is exempt (WCAG 2.5.8's inline exception): the line's height sizes it.
    if (el.tagName === 'A' && getComputedStyle(el).display === 'inline' && el.parentElement.textContent.trim() !== el.textContent.trim()) continue;
    const b = el.getBoundingClientRect();
    if (b.width < 44 - 0.5 || b.height < 44 - 0.5)
      problems.push(`${el.tagName.toLowerCase()} "${(el.textContent || el.dataset.testid || '').trim().slice(0, 24)}" is ${Math.round(b.width)}×${Math.round(b.height)}`);
  }
  const walker = document.createTreeWalker(document.querySelector('main'), NodeFilter.SHOW_TEXT);
  const small = new Set();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.textContent.trim() || !el.checkVisibility() || el.closest('.sr-only')) continue;
    let size = parseFloat(getComputedStyle(el).fontSize);
    if (el instanceof SVGElement) { const m = el.getScreenCTM(); size *= m ? Math.hypot(m.a, m.b) : 1; }
    if (size < 12 - 0.05) small.add(`"${node.textContent.trim().slice(0, 24)}" at ${size.toFixed(1)} px`);
  }
  return [...problems, ...[...small].slice(0, 12)];
}"""


@pytest.fixture(scope="module")
def pages(browser, server):
    """One page per size, opened once; the tests move it from route to route."""
    opened: dict = {}
    yield (
        lambda size: (
            opened.get(size)
            or opened.setdefault(size, open_page(browser, server, "#/?guide=0", *SIZES[size][:2], "light"))
        )
    )
    for visit in opened.values():
        visit.close()


@pytest.mark.parametrize("size, route", [pytest.param(s, r, id=f"{s}-{r}") for s in SIZES for r in ROUTES])
def test_source_destination_and_step_control_on_the_first_screen(pages, size, route):
    visit = pages(size)
    address, parts = ROUTES[route]
    visit.page.evaluate("hash => { location.hash = hash; scrollTo(0, 0); }", f"{address}&guide=0{SIZES[size][2]}")
    visit.page.wait_for_timeout(500)
    visit.page.evaluate("scrollTo(0, 0)")
    problems = visit.page.evaluate(ON_FIRST_SCREEN, [[*parts, *([] if route in NO_STEP_CONTROL else [STEP])]])
    checks = (SVG_TEXT_OUTSIDE, LABELS_OVERLAP, TEXT_OVERFLOW, CELL_OVERFLOW)
    problems += [p for check in checks for p in visit.page.evaluate(check)]
    if size == "390x844":
        problems += visit.page.evaluate(PHONE_SIZES)
    assert not problems, "\n".join(problems)


# A guided register-family view as a link opens it (guide on, step 0): the guide's question, the register tile,
# C and the step control whole on a laptop's first screen (the guide panel stands above the counters and Step).
WHOLE = """([parts]) => parts.flatMap(selector => {
  const part = [...document.querySelectorAll(`main section[data-route]:not([hidden]) ${selector}`)].find(e => e.checkVisibility());
  if (!part) return [`no ${selector}`];
  const b = part.getBoundingClientRect();
  return b.top < -1 || b.bottom > innerHeight + 1 || b.left < -1 || b.right > innerWidth + 1
    ? [`${selector} at ${Math.round(b.left)},${Math.round(b.top)}..${Math.round(b.right)},${Math.round(b.bottom)}`] : [];
})"""


@pytest.mark.parametrize("size", ("1280x720", "1366x768"))
@pytest.mark.parametrize("route", ("register", "vectorized", "warptile"))
def test_a_guided_register_view_keeps_question_tile_and_step_on_the_first_screen(browser, server, size, route):
    visit = open_page(browser, server, f"#/{route}?guide=1", *SIZES[size][:2], "light")
    try:
        visit.page.wait_for_selector(f"#view-{route} [data-testid=guide-question]:visible")
        problems = visit.page.evaluate(WHOLE, [["[data-testid=guide-question]", TILE, STEP]])
        problems += visit.page.evaluate(ON_FIRST_SCREEN, [["[data-testid=grid-C]"]])
        assert not problems, "\n".join(problems)
    finally:
        visit.close()


# Every route's whole page on a phone (issue 39 item 6), not only the pictures above: each link and button a 44 px
# target, each text and every picture's label (the walkthrough's, the ladder's bars) printed at 12 px or more.
@pytest.mark.parametrize("route", APP_ROUTES)
def test_every_control_and_label_on_a_phone(pages, route):
    visit = pages("390x844")
    visit.page.evaluate("hash => { location.hash = hash; scrollTo(0, 0); }", f"#{route}?guide=0")
    visit.page.wait_for_timeout(800)
    problems = visit.page.evaluate(PHONE_SIZES)
    assert not problems, "\n".join(problems)


# #/mma's key panel (issue 41): the fragment tiles over the warp's 32 lanes start on the first screen beside the
# grids (a side column at a laptop and in the embed, a 12rem box above them on a phone); stacked under the grids
# they started near y=2,500 (y≈1,460 on a phone).
@pytest.mark.parametrize("size", SIZES)
def test_the_mma_fragments_start_on_the_first_screen(pages, size):
    visit = pages(size)
    address, parts = ROUTES["mma"]
    visit.page.evaluate("hash => { location.hash = hash; scrollTo(0, 0); }", f"{address}&guide=0{SIZES[size][2]}")
    visit.page.wait_for_timeout(500)
    visit.page.evaluate("scrollTo(0, 0)")
    problems = visit.page.evaluate(ON_FIRST_SCREEN, [["[data-testid=fragments]", "[data-testid=fragment-A]"]])
    assert not problems, "\n".join(problems)
    if size == "390x844":  # in the phone's box, the tile the step uses comes first: C at the teaching preset's mma step
        teaching = "&".join(f"{k}={v}" for k, v in next(iter(MmaParams.PRESETS.values())).items())
        visit.page.evaluate("hash => { location.hash = hash; scrollTo(0, 0); }", f"#/mma?{teaching}&step=11&guide=0")
        visit.page.wait_for_timeout(500)
        visit.page.wait_for_function("() => document.querySelector('[data-testid=fragment-C].frag-now')")
        problem = visit.page.evaluate(IN_ITS_BOX, "[data-testid=fragment-C]")
        assert not problem, problem
