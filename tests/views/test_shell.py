"""The shell (site/app/core/shell.py) and what every route shows, in CPython: step numbering, the verify
badge, the legend, the home page's path, share buttons and titles, the same address giving the same state,
external links. (Was part of tests/browser/test_shell.py, test_hardening.py and test_links.py; the browser
keeps start-up, the runtime, boot errors, embeds, the Share dialog, axe-core and layout.)"""

import pytest

from app.core.urlstate import ROUTES
from pysim.core.trace import Trace
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS
from views.page import Page


def test_steps_count_from_zero_in_the_address_and_on_the_page(page):
    last = len(Trace(KERNELS["smem"], SmemParams(M=4, N=4, K=8, T=2))) - 1
    for step in (0, 3, last):
        page.go(f"#/tiling?M=4&N=4&K=8&T=2&step={step}")
        assert page.text(page.find(".position")) == f"step {step} of {last}"
        assert page.visible("step-prompt") == (step == 0)  # the first-step prompt, gone once stepped
    page.go("#/tiling?M=4&N=4&K=8&T=2&step=0").press("ArrowRight")
    assert page.params()["step"] == "1"
    assert page.text(page.find(".position")) == f"step 1 of {last}" and not page.visible("step-prompt")
    for step in (0, 4, 7):
        page.go(f"#/hierarchy?step={step}")
        assert page.text(page.find(".position")) == f"step {step} of 7"
        assert page.attribute(f"walk-step-{step}", "aria-current") == "step"


def test_the_verify_badge_says_what_it_checks_and_how_far_c_has_filled(page):
    trace = Trace(KERNELS["smem"], SmemParams(M=4, N=4, K=8, T=2))
    page.go("#/tiling?M=4&N=4&K=8&T=2&step=0")
    assert page.attribute("verify", "data-value") == "ok"
    text = page.inner_text("verify")
    assert "Final C, checked ahead: all 16 values the threads will store equal NumPy's A @ B" in text
    assert "So far 0 of 16 values are stored" in text
    middle = next(s.index for s in trace if s.phase == "store" and s.block_number == 1)
    page.go(f"#/tiling?M=4&N=4&K=8&T=2&step={middle}")
    assert page.attribute("verify", "data-stored") == str(trace.filling(middle).stored) == "8"
    assert "So far 8 of 16 values are stored, all equal to NumPy's" in page.inner_text("verify")
    page.go(f"#/tiling?M=4&N=4&K=8&T=2&step={len(trace) - 1}")
    assert page.inner_text("verify") == "✓ C verified: the 16 values the threads stored equal NumPy's A @ B."


def test_every_mark_of_the_tiling_view_has_a_legend_entry(page):
    page.go("#/tiling?M=4&N=4&K=8&T=2&step=2")
    marks = {name for cell in page.all(".cell") for name in cell.className.split() if name != "cell"}
    keyed = {name for swatch in page.all(".legend .swatch") for name in swatch.className.split() if name != "swatch"}
    assert "followed-line" in marks and marks <= keyed, marks - keyed
    assert len(page.all(".legend .swatch.followed-line")) == 1  # the followed thread's tile row, column and C cell
    # Colour is the level's: the key's coloured swatches are the four levels, its shapes carry no level.
    assert [s.getAttribute("data-level") for s in page.all(".legend.levels .swatch")] == [
        "global",
        "shared",
        "register",
        "output",
    ]
    assert all(s.getAttribute("data-level") is None for s in page.all(".legend.actions .swatch"))


def test_home_has_a_start_here_path_the_navigation_follows(page):
    page.go("#/")
    path = [link.getAttribute("href") for link in page.all('[data-testid="start-here"] a')]
    assert path[:3] == ["#/hierarchy", "#/tiling", "#/register"]
    nav = [link.getAttribute("href") for link in page.document.querySelectorAll(".site-header nav a")]
    assert nav[1:] == list(dict.fromkeys(path))  # Home, then the path's order
    assert len(page.all('[data-testid="course"] details')) == 1  # the course instructions, on the site


def test_every_route_has_a_share_button_and_a_title_of_its_own(page):
    titles = set()
    for route in ROUTES:
        page.go("#" + route)
        assert len(page.all('[data-testid="share"]', page.view)) == 1, route  # page.view: the one section shown
        titles.add(page.document.title)
    assert len(titles) == len(ROUTES)


def test_each_route_and_state_has_its_own_title(page):
    page.go("#/tiling?M=6&N=6&K=9&T=3&step=2")
    assert page.document.title == "Shared-memory tiling · M=N=6, K=9, T=3, device=a100 · TileLab"
    page.go("#/hierarchy?N=1000&T=16&step=4")
    assert page.document.title.startswith("Memory hierarchy · N=1000, T=16")
    page.go("#/")
    assert page.document.title == "TileLab — SGEMM, one thread at a time"


def shown_state(page) -> str:
    """Every testid of the section on screen with its value and text (test_hardening's digest, unhashed)."""
    return "\n".join(
        f"{e.getAttribute('data-testid')}={e.getAttribute('data-value') or ''}:{e.textContent}"
        for e in page.view.querySelectorAll("[data-testid]")
    )


@pytest.mark.parametrize(
    "route",
    [
        "#/tiling?M=7&N=5&K=9&T=3&thread=2,1&step=40",
        "#/register?M=9&N=7&K=5&BM=4&BN=4&BK=3&TM=2&TN=1&step=77",
        "#/hierarchy?N=1000&T=16&step=6",
    ],
)
def test_same_address_same_state(page, markup, route):
    page.go(route)
    first = shown_state(page)
    page.close()
    again = Page(markup)
    try:
        assert shown_state(again.go(route)) == first
    finally:
        again.close()


def test_every_external_link_on_every_route_opens_a_new_tab(page):
    """Nothing navigates a course's frame away."""
    seen = {}
    for route in ROUTES:
        page.go("#" + route)  # a view builds its links when first shown
        for link in page.document.querySelectorAll("a[href]"):
            if not str(link.getAttribute("href")).startswith("#") and not link.hasAttribute("download"):
                seen[link.getAttribute("href")] = link
    assert len(seen) >= 5  # the sources cited across the views
    wrong = [
        href
        for href, link in seen.items()
        if link.getAttribute("target") != "_blank" or "noopener" not in str(link.getAttribute("rel") or "").split()
    ]
    assert wrong == []
