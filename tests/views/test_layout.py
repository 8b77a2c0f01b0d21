"""The first screen's parts as markup (issue 39, items 4 and 8): the form collapsed to one line that opens, step
controls drawn with SVG icons, Play as wide as Pause. Where they land on screen is tests/browser/test_geometry.py's."""

from __future__ import annotations

import pytest

from app.core.urlstate import STEPPING_VIEWS

ROUTES = [spec.path for spec in STEPPING_VIEWS]


def test_the_form_collapses_to_one_line_naming_the_sizes(page):
    page.go("#/tiling?M=6&N=6&K=9&T=3&guide=0")
    summary = page.find("#view-tiling [data-testid=form-summary]")
    assert page.text(summary).startswith("M=N=6, K=9, T=3 · ")
    assert page.text(summary).endswith(" · change")
    details = summary.parentElement
    assert details.localName == "details" and not details.hasAttribute("open")
    assert details.querySelector("[data-testid=input-M]") is not None  # the form is inside, one click away


def test_a_bad_size_opens_the_form_at_its_error(page):
    page.go("#/tiling?M=6&N=6&K=9&T=3&guide=0")
    page.fill(page.find("#view-tiling [data-testid=input-T]"), "0").click(page.find("#view-tiling [data-testid=apply]"))
    assert page.visible(page.find("#view-tiling [data-testid=input-error]"))
    assert page.find("#view-tiling details.param-details").hasAttribute("open")


def test_a_lesson_switch_stays_beside_the_collapsed_form(page):
    page.go("#/naive?guide=0")
    select = page.find("#view-naive [data-testid=input-map]")
    assert select.closest("details") is None, "the map is the lesson: never folded away"


@pytest.mark.parametrize("route", ROUTES)
def test_step_controls_are_svg_icons_and_play_holds_both_faces(page, route):
    page.go(f"#{route}?guide=0")
    player = page.find(".player")
    for button in player.querySelectorAll("button"):
        assert button.querySelector("svg.icon") is not None, page.text(button)
        assert not set(page.text(button)) & set("▶◀⏸⟲⇥»■"), page.text(button)
    play = player.querySelector("[data-testid=play]")
    assert [page.text(face) for face in play.querySelectorAll(".faces > span")] == ["Play", "Pause"]
