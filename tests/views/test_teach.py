"""#/teach, the teachers' page (issue 38 item 4, SPEC §7), and Share's guided/free and embed height, in CPython.

The answers on the page are the guide's for the link's sizes, read as the view itself reads that link: each
case mounts the view at the same address and takes its sizes from what the view wrote to the address.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from app.core.urlstate import EMBED_HEIGHT, GUIDED, iframe_snippet, parse_hash, shared_hash, teach_hash
from pysim.hardware.params import HierarchyParams, SmemParams
from pysim.kernels import KERNELS
from pysim.lessons.guides import ROUTES, WALKTHROUGH, Moment, Skipped, guide_for
from pysim.lessons.guides.teaching import ACTIVITY_MINUTES, LESSONS, ORDER, activity, response
from views.page import Event

ROOT = Path(__file__).resolve().parents[2]
# Two parameter sets per guided view: the sizes it opens at, and a link's (non-multiples; for the views that
# open at a preset, only some sizes, the rest from that preset).
LINKS = {
    "hierarchy": ["", "N=1000&T=16"],
    "tiling": ["", "M=7&N=5&K=9&T=3"],
    "register": ["", "M=9&N=7&K=5&BM=4&BN=4&BK=3&TM=2&TN=1"],
    "naive": ["", "M=7&N=5&K=3&T=3&map=row"],
    "transpose": ["", "n=10&T=4&pad=1"],
    "blocktile1d": ["", "M=9&N=11&K=5"],
    "vectorized": ["", "M=13&N=12&K=12"],
    "warptile": ["", "M=13&N=60&K=12"],
}
CASES = [(view, link) for view, links in LINKS.items() for link in links]
VIEW_ONLY = ("thread", "step", "guide", "mode")  # what a view writes beside its sizes
WALKTHROUGH_ONLY = ("pad", "access")  # the walkthrough's bank picture, not its sizes


def answers(page) -> list[tuple[str, str, str]]:
    """(key, data-value, text) of every teach-answer, in page order."""
    return [
        (e.getAttribute("data-key"), e.getAttribute("data-value"), page.text(e))
        for e in page.all('[data-testid="teach-answer"]')
    ]


def expected(guide) -> list[tuple[str, str, str]]:
    asked = [*guide.moments, *([] if isinstance(guide.task, Skipped) else [guide.task.moment])]
    return [(m.key, response(m), m.answer_text) for m in asked]


def view_params(page, view: str, link: str):
    """The sizes the view itself shows for `link` (guide=0: the view as it is, whatever the guide adds)."""
    page.go(f"#/{view}?{link}&guide=0" if link else f"#/{view}?guide=0")
    shown = {k: v for k, v in page.params().items() if k not in VIEW_ONLY}
    if view == WALKTHROUGH:
        return HierarchyParams.parse({k: v for k, v in shown.items() if k not in WALKTHROUGH_ONLY})
    return KERNELS[ROUTES[view]].PARAMS.parse(shown)


def test_the_issues_link_shows_its_guides_answers(page):
    page.go("#/teach?view=tiling&M=6&N=6&K=9&T=3")
    guide = guide_for("tiling", SmemParams(M=6, N=6, K=9, T=3))
    assert answers(page) == expected(guide) and len(guide.moments) >= 6
    assert [page.text(e) for e in page.all('[data-testid="teach-skipped"]')] == [
        f"Skipped at these sizes: {s.reason}." for s in guide.skipped
    ]
    assert f"Ask students to {guide.task.instruction}." in page.text("teach-task")
    links = page.find('[data-testid="teach-open-guided"]')
    assert parse_hash(links.getAttribute("href")).params == {
        **parse_hash("#/t?M=6&N=6&K=9&T=3").params,
        "device": "a100",
    }


@pytest.mark.parametrize(("view", "link"), CASES)
def test_every_guided_view_answers_as_its_link_opens(page, view, link):
    params = view_params(page, view, link)
    page.go(f"#/teach?view={view}&{link}")
    assert not page.visible("teach-error")
    assert answers(page) == expected(guide_for(view, params))
    assert [page.text(li) for li in page.all('[data-testid="teach-goals"] li')] == list(LESSONS[view].goals)
    steps = activity(view, guide_for(view, params))
    assert sum(minutes for minutes, _ in steps) == ACTIVITY_MINUTES
    assert [page.text(li) for li in page.all('[data-testid="teach-activity"] li')] == [
        f"{m} min: {t}" for m, t in steps
    ]


@pytest.mark.parametrize(
    ("link", "param", "words"),
    [
        ("view=tiling&M=x", "M", "whole number"),
        ("view=tiling&M=5000", "M", "too large"),
        ("view=hierarchy&T=0", "T", "at least"),
        ("view=naive&map=diagonal", "map", "map"),
    ],
)
def test_a_bad_parameter_is_named_and_the_page_still_shows(page, link, param, words):
    page.go(f"#/teach?{link}")
    error = page.testid("teach-error")
    assert page.visible(error) and error.getAttribute("data-param") == param
    assert param in page.text(error) and words in page.text(error)
    view = parse_hash("#/t?" + link).params["view"]
    assert answers(page) == expected(guide_for(view, view_params(page, view, "")))  # the opening sizes
    page.go(f"#/teach?{link}")
    assert page.params()["view"] == view  # the address now holds the state shown


def test_an_unknown_view_is_named_and_the_index_shows(page):
    page.go("#/teach?view=<b>x</b>")
    assert page.visible("teach-error") and "view must be one of" in page.text("teach-error")
    assert page.visible("teach-index") and not page.all("b", page.testid("teach-error"))  # text, never markup


def test_the_index_links_every_guided_view(page):
    page.go("#/teach")
    hrefs = [a.getAttribute("href") for a in page.all('[data-testid="teach-index"] a')]
    assert hrefs == [f"#/teach?view={v}" for v in ORDER]
    assert set(ORDER) == {*ROUTES, WALKTHROUGH} == {path.strip("/") for path in GUIDED} == set(LESSONS)
    assert not page.visible("teach-error") and page.address == "#/teach"
    page.click(page.find('[data-testid="teach-index"] a[href="#/teach?view=transpose"]'))
    assert page.params()["view"] == "transpose" and answers(page)


@pytest.mark.parametrize("view", ["tiling", "transpose", "hierarchy", "warptile"])
def test_the_worksheet_asks_every_question_and_answers_none(page, view):
    page.go(f"#/teach?view={view}")
    sheet = page.testid("teach-worksheet")
    guide = guide_for(view, view_params(page, view, ""))
    page.go(f"#/teach?view={view}")
    items = page.all("li", sheet)
    asked = [*guide.moments, *([] if isinstance(guide.task, Skipped) else [guide.task.moment])]
    assert len(items) == len(asked)
    for item, moment in zip(items, asked, strict=True):
        assert moment.question in page.text(item)
        assert len(page.all(".answer-line", item)) >= 2
        if moment.kind != "choice":  # a choice lists every option, the right one among them
            assert "Answer" not in page.text(item) and moment.why not in page.text(item)
    assert not page.all('[data-testid="teach-answer"]', sheet) and "Why:" not in page.text(sheet)
    assert page.testid("teach-print").localName == "button"


def test_print_shows_the_worksheet_alone():
    css = (ROOT / "site" / "css" / "picture.css").read_text(encoding="utf-8")
    printed = re.search(r"@media print \{(.*?)\n\}", css, re.S)
    assert printed and ".teach-key" in printed.group(1) and ".site-header" in printed.group(1)
    assert "teach-worksheet" not in printed.group(1).split("{")[0]  # the worksheet is not among those hidden


def share_state(page, address: str) -> None:
    """The Share dialog filled for the state at `address`, as its button does (the build's DOM has no modal)."""
    page.go(address)
    page.shell.share.route = parse_hash(page.address)
    page.shell.share.fill()


def test_home_and_share_link_to_the_teachers_page(page):
    page.go("#/")
    assert page.find('[data-testid="home-teach"]').getAttribute("href") == "#/teach"
    share_state(page, "#/tiling?M=6&N=6&K=9&T=3&thread=1,2&step=14&guide=0")
    teach = page.document.querySelector('[data-testid="share-teach"]')
    assert teach.getAttribute("href") == "#/teach?view=tiling&M=6&N=6&K=9&T=3&device=a100"
    page.go(teach.getAttribute("href"))  # followed (clicking it also closes the dialog, which needs a browser)
    assert page.params()["view"] == "tiling" and answers(page)


def test_share_offers_guided_by_default_and_free_adds_guide_0(page):
    share_state(page, "#/tiling?M=6&N=6&K=9&T=3&step=2&guide=0")
    address = page.document.querySelector('[data-testid="share-address"]')
    snippet = page.document.querySelector('[data-testid="share-snippet"]')
    assert "guide" not in parse_hash(str(address.value).partition("#")[2]).params  # guided: nothing added
    free = page.document.querySelector('[data-testid="share-free"]')
    free.checked = True
    free.dispatchEvent(Event("change"))  # a radio's click, as the browser dispatches it
    page.settle()
    assert parse_hash(str(address.value).partition("#")[2]).params["guide"] == "0"
    assert "guide=0&amp;embed=1" in str(snippet.value) and f'height="{EMBED_HEIGHT}"' in str(snippet.value)


def test_shared_addresses_teach_links_and_the_embed_height():
    route = parse_hash("#/tiling?M=6&guide=0&step=3&embed=1")
    assert shared_hash(route) == "#/tiling?M=6&step=3"
    assert shared_hash(route, ("embed",), free=True) == "#/tiling?M=6&step=3&guide=0&embed=1"
    assert teach_hash(route) == "#/teach?view=tiling&M=6"
    assert teach_hash(parse_hash("#/ladder?N=64")) is None
    assert f'height="{EMBED_HEIGHT}"' in iframe_snippet("https://x/#/tiling", "t") and EMBED_HEIGHT <= 600 - 40
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f'height="{EMBED_HEIGHT}"' in readme and 'height="800"' not in readme


def test_every_moment_has_a_response_a_student_can_give():
    for view in ORDER:
        for moment in guide_for(view).moments:
            assert isinstance(moment, Moment) and response(moment)
            if moment.kind == "cells":
                assert re.fullmatch(r"(\w+:\d+,\d+)( \w+:\d+,\d+)*", response(moment))
