"""#/blocktile1d, #/vectorized, #/warptile in CPython: 128-bit loads as four-cell groups, the warp tile and
the followed patch, the explanation's numbers. (Was tests/browser/test_blocktiled.py; the shared stepping
checks are in test_stepping.py; the browser keeps a counter check per view, where the warp tile's box
lies, the off-screen monitor, embed and lock, and axe-core.)"""

import re

import pytest

from pysim.core.trace import Trace
from pysim.kernels import KERNELS
from pysim.lessons import blocktiled
from views.test_stepping import RUNS, link

SMALL = {name: RUNS[name][0] for name in ("blocktile1d", "vectorized", "warptile")}
TEACHING = {name: next(iter(KERNELS[name].PARAMS.PRESETS.values())) for name in SMALL}


def params(name: str, sizes: dict):
    return KERNELS[name].PARAMS(**sizes)


def first_step(name: str, sizes: dict, test) -> int:
    return next(step.index for step in Trace(KERNELS[name], params(name, sizes)) if test(step))


def cells(page, testid: str, selector: str) -> list:
    return page.all(selector, page.testid(testid))


@pytest.mark.parametrize("name", ("vectorized", "warptile"))
def test_float4_loads_are_drawn_as_groups_of_four(page, name):
    """At the load of B every lane moves one float4 (or more): each group of four cells has one outline."""
    kernel = KERNELS[name]
    index = first_step(name, TEACHING[name], lambda s: s.lines == kernel.module.LOAD_B)
    page.go(link(name, TEACHING[name], step=index))
    step = Trace(kernel, params(name, TEACHING[name]))[index]
    load = next(a for a in step.accesses if a.space == "global")
    assert load.width == 4
    lanes = int(load.active.sum())  # one float4 per lane and instruction, every lane inside B here
    assert len(cells(page, "grid-B", ".cell.vec4")) == 4 * lanes
    assert len(cells(page, "grid-B", ".cell.vec-l")) == lanes == len(cells(page, "grid-B", ".cell.vec-r"))
    # A 32-bit access has no groups: the transposed stores into As are four scalar stores.
    index = first_step(name, TEACHING[name], lambda s: s.lines == kernel.module.LOAD_A)
    page.go(link(name, TEACHING[name], step=index))
    assert cells(page, "grid-As", ".cell.vec4") == []
    assert cells(page, "grid-A", ".cell.vec4") != []


def test_blocktile1d_has_no_vector_groups(page):
    page.go(link("blocktile1d", TEACHING["blocktile1d"], step=2))
    assert page.all(".cell.vec4") == []


def test_warp_tile_subtiles_and_the_followed_patch(page):
    """(Where the striped box of the subtile lies is the browser's test_the_subtile_box_covers_its_cells.)"""
    sizes = TEACHING["warptile"]
    p = params("warptile", sizes)
    index = first_step("warptile", sizes, lambda s: s.inner == (1, 1))
    page.go(link("warptile", sizes, thread="5,0", step=index))
    # The warp tile is one dashed box, not a flag in every cell (issue 39); a block tile that is the whole of C
    # marks no cell of it, while A's bkIdx slice (BK of K columns) is still marked.
    assert cells(page, "grid-C", ".cell.warp-tile") == []
    assert (p.BM, p.BN, p.M, p.N) == (16, 64, 16, 64) and cells(page, "grid-C", ".cell.in-tile") == []
    assert len(cells(page, "grid-A", ".cell.in-tile")) == p.BM * p.BK < p.M * p.K
    box = page.testid("region-warp-tile", page.testid("grid-C"))
    assert page.visible(box)
    assert [box.style.getPropertyValue(n) for n in ("--nr", "--nc")] == [str(min(p.WM, p.M)), str(min(p.WN, p.N))]
    assert page.visible(page.testid("region-sub-now", page.testid("grid-C")))
    now = cells(page, "grid-C", ".cell.followed")
    assert len(now) == p.TM * p.TN, "the followed thread's patch in the subtile computed now"
    # Lane 5 of one warp: patch column 5·TN of every subtile, here subtile (1, 1).
    assert {int(str(cell.getAttribute("data-c"))) for cell in now} == set(range(p.WSUBN + 5 * p.TN, p.WSUBN + 6 * p.TN))
    assert len(cells(page, "grid-C", ".cell.sub-l")) == p.WMITER * p.WNITER * p.WSUBM


@pytest.mark.parametrize("name", SMALL)
def test_explanation_numbers_follow_the_sizes_on_screen(page, name):
    page.go(link(name, SMALL[name]))
    expected = blocktiled.slot_values(name, params(name, SMALL[name]))
    for slot in ("this_load_instructions", "prev_load_instructions", "this_run_load_instructions", "M", "N", "K"):
        assert page.find(f'[data-slot="{slot}"]').getAttribute("data-value") == str(expected[slot]), slot
    for slot in ("this_wavefronts_per_fma", "this_warp_reuse", "waves_change", "compare_note"):
        if slot in expected:
            assert page.inner_text(page.find(f'[data-slot="{slot}"]')) == expected[slot], slot


SIBOEHM_1D = list(KERNELS["blocktile1d"].PARAMS.PRESETS.values())[1]
DIRECTION = re.compile(r"(\d+\.\d\d× (?:fewer|more)|the same)")


def direction(before, after) -> str:
    return "the same" if after == before else "fewer" if after < before else "more"


@pytest.mark.parametrize(
    "sizes",
    [
        TEACHING["blocktile1d"],
        {**TEACHING["blocktile1d"], "M": 64, "N": 64, "K": 64},
        {**TEACHING["blocktile1d"], "M": 13, "N": 21, "K": 7},
        SIBOEHM_1D,
        {**SIBOEHM_1D, "M": 100, "N": 37, "K": 19},
    ],
    ids=["teaching", "teaching-tile-64", "teaching-tile-odd", "siboehm-64", "siboehm-tile-odd"],
)
def test_blocktile1d_claims_follow_the_computed_direction(page, sizes):
    """The explanation claims the rung removes shared-memory traffic only where wavefronts per FMA fall, and each
    "fewer"/"more" agrees with the counts of both rungs at these sizes (issue 42, item 2)."""
    page.go(link("blocktile1d", sizes))
    text = page.inner_text(page.testid("rung-removes"))
    r = blocktiled.rung("blocktile1d", params("blocktile1d", sizes))
    waves = direction(r.previous.wavefronts_per_fma, r.this.wavefronts_per_fma)
    loads = direction(r.previous.run_load_instructions, r.this.run_load_instructions)
    said = text.split("Shared wavefronts per FMA are ", 1)[1]
    assert DIRECTION.match(said).group(1).endswith(waves), text
    said = text.split("Global load instructions over the whole run are ", 1)[1]
    assert DIRECTION.match(said).group(1).endswith(loads), text
    assert ("The cost it removes" in text) == (waves == "fewer"), text
    assert "fewer trips" not in text or loads == "fewer", text
    if waves != "fewer":
        assert "does not remove" in text and "because" in text, "say that it does not, and why"
