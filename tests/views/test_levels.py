"""One colour per memory level (issue 39, SPEC §7): every cell, panel, counter and arrow of a level carries
data-level in every stepping view; the style sheet maps each level to one pair of variables, meets WCAG AA in
both schemes, and tells what happens to a cell by a shape, never by colour alone. The drawn register tile.
(The computed colours across views, and values in flight, are tests/browser/test_levels.py's.)"""

from __future__ import annotations

import re

import pytest

from app.core.urlstate import STEPPING_VIEWS
from views.levelcss import contrast, root_variables, rules
from views.page import Page
from views.test_stepping import SMALL, link, params

LEVELS = ("global", "shared", "register", "output")
GRID_LEVELS = {"A": "global", "B": "global", "tileA": "shared", "tileB": "shared", "As": "shared", "Bs": "shared"}
GRID_LEVELS |= {"tile": "shared", "C": "output", "regM": "register", "regN": "register", "threadResults": "register"}
# What happens to a cell, each told by a shape: written to shared memory and stored to C are one action.
ACTIONS = {"loaded": ("g-load",), "written": ("s-store", "c-store"), "read": ("s-read",), "zero-filled": ("zero-fill",)}
COLOUR = re.compile(r"var\(--[\w-]+\)|#[0-9a-fA-F]{3,8}|color-mix\([^)]*\)|transparent")
SHAPE_PROPERTIES = ("border", "border-style", "background-image", "background", "outline", "box-shadow", "content")


@pytest.mark.parametrize("kernel", [view.kernel for view in STEPPING_VIEWS])
def test_every_cell_panel_and_counter_of_a_level_carries_it(page: Page, kernel: str):
    page.go(link(kernel, SMALL[kernel], guide=0, step=1))
    from app.widgets.components import COUNTER_LEVELS  # the app's modules import once the page is open

    view = page.view
    grids = page.all("figure.grid", view)
    assert grids
    for grid in grids:
        name = str(grid.className).split("grid-")[-1]
        level = GRID_LEVELS[name]
        assert grid.getAttribute("data-level") == level, name
        cells = page.all(".cell", grid)
        assert all(cell.getAttribute("data-level") == level for cell in cells), name
    assert {str(space.getAttribute("data-level")) for space in page.all(".space", view)} <= set(LEVELS)
    for counter in page.all(".counter", view):
        name = str(page.find(".counter-value", counter).getAttribute("data-testid")).removeprefix("counter-")
        assert counter.getAttribute("data-level") == COUNTER_LEVELS.get(name), name


def test_a_loads_arrows_leave_global_memory(page: Page):
    page.go(link("smem", SMALL["smem"], guide=0, step=1))
    arrows = page.all(".load-arrow", page.view)
    assert arrows and all(arrow.getAttribute("data-level") == "global" for arrow in arrows)


def test_each_level_is_one_pair_of_variables_defined_in_both_schemes():
    for level in LEVELS:
        mapped = [d for s, d in rules() if s == f'[data-level="{level}"]']
        assert mapped == [{"--lv": f"var(--level-{level})", "--lv-tint": f"var(--level-{level}-tint)"}], level
    for dark in (False, True):
        colours = root_variables(dark)
        assert len({colours[f"--level-{level}"] for level in LEVELS}) == len(LEVELS), "one colour per level"
    light, dark = root_variables(False), root_variables(True)
    assert all(light[f"--level-{level}"] != dark[f"--level-{level}"] for level in LEVELS), "dark has its own"


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_every_level_colour_meets_wcag_aa_in_its_scheme(dark: bool):
    colours = root_variables(dark)
    for level in LEVELS:
        colour, tint = colours[f"--level-{level}"], colours[f"--level-{level}-tint"]
        for ground in ("--bg", "--panel"):
            assert contrast(colour, colours[ground]) >= 4.5, (level, ground)  # headings, labels in the level's colour
        assert contrast(colours["--fg"], tint) >= 4.5, level  # a cell's value on its level's tint
        assert contrast(colour, tint) >= 3, level  # a marked cell's border on its tint (WCAG 1.4.11)


def shapes(cls: str) -> set[str]:
    """The non-colour declarations of the cell rules that name `cls`, colours blanked out."""
    found = set()
    for selector, declarations in rules():
        if re.search(rf"\.{cls}\b", selector) and "cell" in selector:
            for name, value in declarations.items():
                if name in SHAPE_PROPERTIES:
                    shape = COLOUR.sub("C", value)
                    if shape.strip("C ") and shape not in ("C", "none"):
                        found.add(f"{name}: {shape}")
    return found


def test_no_action_is_told_by_colour_alone():
    """Each action has a shape, and no two actions have the same shapes (a reader without colour tells them apart)."""
    drawn = {action: frozenset().union(*(shapes(cls) for cls in classes)) for action, classes in ACTIONS.items()}
    for action, found in drawn.items():
        assert found, f"{action} has no shape, only a colour"
    assert len(set(drawn.values())) == len(drawn), drawn
    conflict = [d for s, d in rules() if s == ".picture .bank-word.bank-conflict"]
    assert any("stroke-dasharray" in d for d in conflict)  # a conflicting bank word is dashed, besides red


@pytest.mark.parametrize("kernel", ["register", "vectorized", "warptile"])
def test_the_register_tile_is_drawn_beside_c(page: Page, kernel: str):
    p = params(kernel, SMALL[kernel])
    rows, cols = {"register": (p.TM, p.TN), "vectorized": (p.TM, p.TN)}.get(kernel, (0, 0))
    if kernel == "warptile":
        rows, cols = p.WMITER * p.TM, p.WNITER * p.TN
    page.go(link(kernel, SMALL[kernel], guide=0, step=6))
    tile = page.testid("register-tile")
    assert page.visible(tile) and tile.getAttribute("data-level") == "register"
    shape = {name: len(page.all(".cell", page.testid(f"grid-{name}", tile))) for name in ("regM", "regN")}
    assert shape == {"regM": rows, "regN": cols}
    results = page.all(".cell", page.testid("grid-threadResults", tile))
    assert len(results) == rows * cols
    assert page.all(".cell.followed", page.testid("grid-threadResults", tile)), "the FMA's results of this step"
    space = tile.parentElement
    assert space.getAttribute("data-level") == "register"
    panels = [str(panel.getAttribute("data-level")) for panel in page.all(".space", page.view)]
    assert panels[panels.index("register") + 1] == "output", "beside C"


def test_a_kernel_without_regm_and_regn_hides_the_register_panel(page: Page):
    page.go(link("blocktile1d", SMALL["blocktile1d"], guide=0))
    assert not page.visible(page.testid("register-tile"))
