"""Memory levels in Chromium (issue 39): each level has one computed colour across the views, in both
colour schemes; a load's values travel (a token's transform changes between frames) and, with reduced
motion, do not (each is shown where it arrives). Markup and style-sheet checks: tests/views/test_levels.py."""

from __future__ import annotations

import pytest

from browser.conftest import Visit

LEVELS = ("global", "shared", "register", "output")
# Each view at a load step (where every level's marks are on screen), and the walkthrough's distance ladder.
ROUTES = (
    "#/naive?M=4&N=4&K=8&T=2&guide=0&step=1",
    "#/tiling?M=4&N=4&K=8&T=2&guide=0&step=1",
    "#/register?M=8&N=8&K=8&BM=4&BN=4&BK=4&TM=2&TN=2&guide=0&step=1",
    "#/vectorized?guide=0&step=2",
    "#/warptile?guide=0&step=2",
    "#/transpose?n=8&T=4&pad=0&guide=0&step=1",
    "#/hierarchy?guide=0",
)
# Per level: the colour its panels, counters, arrows and ladder bars are drawn in (ink), and the fill of a cell
# something happens to (tint; zero-filled cells are hatched instead).
COLOURS = """() => {
  const view = document.getElementById('view-' + location.hash.split('?')[0].slice(2));
  const found = [];
  const ink = (el, property) => found.push([el.dataset.level, 'ink', getComputedStyle(el)[property]]);
  view.querySelectorAll('.space[data-level], .counter[data-level]').forEach(el => ink(el, 'borderTopColor'));
  view.querySelectorAll('.load-arrow[data-level], .shelf[data-level]').forEach(el => ink(el, 'stroke'));
  view.querySelectorAll('.cell[data-level]:is(.g-load, .s-store, .c-store):not(.zero-fill)').forEach(
    el => found.push([el.dataset.level, 'tint', getComputedStyle(el).backgroundColor]));
  return found;
}"""


def open_app(browser, server, address: str, **options) -> Visit:
    opened = Visit(browser, server, **options)
    opened.open(address)
    return opened


def colours_of(visit: Visit) -> set[tuple[str, str, str]]:
    found = set()
    for address in ROUTES:
        visit.page.evaluate("hash => { location.hash = hash; }", address)
        visit.page.wait_for_timeout(400)
        found |= {tuple(entry) for entry in visit.page.evaluate(COLOURS)}
    return found


def test_each_level_has_one_colour_across_the_views_in_both_schemes(browser, server):
    schemes = {}
    for scheme in ("light", "dark"):
        visit = open_app(browser, server, "#/", color_scheme=scheme)
        try:
            found = colours_of(visit)
        finally:
            visit.close()
        # Every level's ink is on screen; at load steps the tinted cells are global's and shared's.
        for kind, present in (("ink", LEVELS), ("tint", ("global", "shared"))):
            per_level = {level: {c for lv, k, c in found if (lv, k) == (level, kind)} for level in present}
            assert all(len(colours) == 1 for colours in per_level.values()), (scheme, kind, per_level)
            assert len(set().union(*per_level.values())) == len(present), (scheme, kind, "one colour per level")
        schemes[scheme] = found
    assert schemes["light"] != schemes["dark"]


TILING_LOAD = "#/tiling?M=4&N=4&K=8&T=2&guide=0&step=0"
TRANSFORMS = """async () => {
  document.querySelector('#view-tiling [data-testid=step]').click();
  const frame = () => new Promise(done => requestAnimationFrame(() => done()));
  await frame(); await frame();
  const flights = [...document.querySelectorAll('#view-tiling .flight')];
  const first = flights.map(f => getComputedStyle(f).transform);
  await new Promise(done => setTimeout(done, 200)); await frame();
  return {count: flights.length, first, later: flights.map(f => getComputedStyle(f).transform),
          outline: flights.length ? getComputedStyle(flights[0]).outlineStyle : ''};
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_a_loads_values_travel_unless_motion_is_reduced(browser, server, motion):
    visit = open_app(browser, server, TILING_LOAD, reduced_motion=motion)
    try:
        seen = visit.page.evaluate(TRANSFORMS)
    finally:
        visit.close()
    assert seen["count"] == 4, "one value per thread of the 2×2 block, not only the followed one's"
    moved = [a != b for a, b in zip(seen["first"], seen["later"])]
    if motion == "reduce":
        assert not any(moved) and seen["outline"] == "solid", "shown where it arrives, outlined"
    else:
        assert all(moved), seen


# The home page's picture (issue 39 item 7): pysim's first tile load, drawn by the build; its tokens move by a
# transform through one 3 s loop, sampled here across a whole loop.
HOME_TOKENS = """async () => {
  const frame = () => new Promise(done => requestAnimationFrame(() => done()));
  const tokens = [...document.querySelectorAll('#view-landing [data-testid=home-picture] .home-fly')];
  const seen = tokens.map(() => new Set());
  for (let i = 0; i < 17; i++) {
    await frame();
    tokens.forEach((t, k) => seen[k].add(getComputedStyle(t).transform));
    await new Promise(done => setTimeout(done, 200));
  }
  return {count: tokens.length, seen: seen.map(s => [...s]),
          link: document.querySelector('[data-testid=home-picture-link]').getAttribute('href')};
}"""


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_home_pictures_values_travel_unless_motion_is_reduced(browser, server, motion):
    visit = open_app(browser, server, "#/", reduced_motion=motion)
    try:
        found = visit.page.evaluate(HOME_TOKENS)
        assert visit.foreign_requests() == []
    finally:
        visit.close()
    assert found["count"] == 4 and found["link"] == "#/hierarchy"
    if motion == "reduce":
        assert all(seen == ["matrix(1, 0, 0, 1, 260, 0)"] for seen in found["seen"]), "resting where it arrives"
    else:
        assert all(len(seen) > 3 for seen in found["seen"]), found["seen"]
