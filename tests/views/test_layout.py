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


def test_point_numbers_close_together_do_not_print_over_each_other(page):  # page: the browser modules stand in
    """The roofline's points 5-7 on the default A100 sit a few pixels apart; their numbers take other sides."""
    from app.views.ladder import number_place

    placed: list = []
    spots = [number_place(str(n), 300 + n, 200 + n, placed) for n in (5, 6, 7)]
    assert len(set(spots)) == 3
    for i, a in enumerate(placed):
        for b in placed[i + 1 :]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)


def test_the_walkthroughs_bank_charts_say_what_they_show(page):
    """Step 6: the small before/after chart names its conflicting bank in words; the large one has a title."""
    page.go("#/hierarchy?N=1024&T=16&step=6&guide=0")
    small = page.find('[data-picture="banks-before-after"]')
    texts = [page.text(t) for t in small.querySelectorAll("text")]
    assert "bank 0: 32 words, one per clock" in texts
    assert "every bank: one word, all in one clock" in texts
    large = page.find('[data-picture="banks"]')
    assert page.text(large.querySelector("text")).startswith("Your tile and access: the different words each bank")
