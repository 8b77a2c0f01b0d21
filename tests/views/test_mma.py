"""#/mma in CPython: the fragment tiles against the PTX ISA's formulas written out here, the followed lane's
cells, the bank wavefronts of a step and of a tile in both layouts against tests/bruteforce.py's bank count,
the tensor FLOPs, C's error table, the swizzle switch and its refusal, the timeline and the explanation's
numbers. (The shared stepping checks, counters against tests/bruteforce_mma.py included, are in
test_stepping.py.)"""

import re
from math import ceil
from pathlib import Path

import bruteforce_mma
import pytest

from bruteforce import vector_banks
from pysim.core.trace import Trace
from pysim.hardware.params import ParamError
from pysim.kernels import KERNELS, k12_mma
from pysim.lessons import mma, pipelined
from views.test_stepping import link

KERNEL = KERNELS["mma"]
TEACHING = next(iter(KERNEL.PARAMS.PRESETS.values()))
SWIZZLED = dict(M=32, N=32, K=64, BM=32, BN=32, BK=32, WM=16, WN=16, stages=2, swizzle=1, split=1)
PADDED = {**SWIZZLED, "swizzle": 0}
PARTIAL = Path(__file__).parents[2] / "site" / "partials" / "mma-explain.html"


def first(sizes, test) -> int:
    return next(step.index for step in Trace(KERNEL, KERNEL.PARAMS(**sizes)) if test(step))


def ptx_isa(name: str, lane: int) -> list[tuple[int, int]]:
    """(row, col) of each register of `lane`, as PTX ISA 9.7.14.5.7 words it for .tf32 m16n8k8."""
    group, within = lane // 4, lane % 4
    if name == "A":
        return [(group, within), (group + 8, within), (group, within + 4), (group + 8, within + 4)]
    if name == "B":
        return [(within, group), (within + 4, group)]
    return [(group, within * 2), (group, within * 2 + 1), (group + 8, within * 2), (group + 8, within * 2 + 1)]


def test_every_fragment_cell_names_the_lane_and_register_of_the_isa(page):
    page.go(link("mma", TEACHING, step=0, guide=0))
    for name, shape in (("A", (16, 8)), ("B", (8, 8)), ("C", (16, 8))):
        rows = page.all("tbody tr", page.testid(f"fragment-{name}"))
        assert len(rows) == shape[0]
        shown = {}
        for r, row in enumerate(rows):
            cells = page.all("td", row)
            assert len(cells) == shape[1]
            for c, cell in enumerate(cells):
                shown[(r, c)] = (page.text(page.find(".lane", cell)), page.text(page.find(".reg", cell)))
        expected = {
            place: (str(lane), f"{name.lower()}{i}")
            for lane in range(32)
            for i, place in enumerate(ptx_isa(name, lane))
        }
        assert shown == expected, name
    assert "PTX ISA §9.7.14.5.7" in page.text("fragments")


def test_the_followed_lanes_cells_are_marked(page):
    page.go(link("mma", TEACHING, step=0, guide=0, thread="5,0"))
    for name in "ABC":
        rows = page.all("tbody tr", page.testid(f"fragment-{name}"))
        marked = {
            (r, c)
            for r, row in enumerate(rows)
            for c, cell in enumerate(page.all("td", row))
            if "frag-lane" in (cell.getAttribute("class") or "")
        }
        assert marked == set(ptx_isa(name, 5)), name


def fragment_b_wavefronts(sizes: dict, kk: int) -> int:
    """Warp 0's B fragment loads of tile 0 at k-step kk, counted from the listing with tests/bruteforce.py."""
    s = sizes
    stride = s["BN"] if s["swizzle"] else s["BN"] + 8
    total = 0
    for ni in range(s["WN"] // 8):
        for i in range(2):
            words = [(kk + lane % 4 + i * 4) * stride + ni * 8 + lane // 4 for lane in range(32)]
            editor = [s.get(name, default) for name, default in (("swz_bits", 3), ("swz_base", 2), ("swz_shift", 3))]
            words = [bruteforce_mma.swizzled(w, *editor) if s["swizzle"] else w for w in words]
            total += vector_banks(words, 1)[0]
    return total


@pytest.mark.parametrize("sizes", [SWIZZLED, PADDED], ids=["swizzle", "padded"])
def test_a_fragment_steps_wavefronts_in_both_layouts_equal_a_brute_force(page, sizes):
    index = first(sizes, lambda s: s.lines == k12_mma.FRAG_B and s.tile == 0 and s.k == 8)
    page.go(link("mma", sizes, step=index, guide=0))
    text = page.text("bank-text")
    flipped = {**sizes, "swizzle": 1 - sizes["swizzle"]}
    now, then = fragment_b_wavefronts(sizes, 8), fragment_b_wavefronts(flipped, 8)
    named = {0: "padded rows", 1: "XOR swizzle Swizzle<3, 2, 3>"}  # the editor's defaults
    assert f"{now} wavefronts with {named[sizes['swizzle']]}" in text
    assert f"with {named[flipped['swizzle']]}: {then}" in text
    assert (fragment_b_wavefronts(SWIZZLED, 8), fragment_b_wavefronts(PADDED, 8)) == (8, 4)  # the swizzle conflicts
    strip = [page.text(cell) for cell in page.all("td", page.testid("bank-strip"))]
    assert len(strip) == 32 and any(strip)


def test_the_tile_table_adds_up_to_the_brute_forces_wavefronts(page):
    """Both columns: a tile's wavefronts by kind × tiles × blocks are the whole run's, in each layout."""
    page.go(link("mma", SWIZZLED, step=0, guide=0))
    table = page.testid("tile-wavefronts")
    for sizes in (SWIZZLED, PADDED):
        layout = mma.LAYOUTS[sizes["swizzle"]]
        cells = [cell for cell in page.all("td", table) if cell.getAttribute("data-layout") == layout]
        per_tile = sum(int(cell.getAttribute("data-value")) for cell in cells)
        runs = ceil(sizes["K"] / sizes["BK"]) * ceil(sizes["M"] / sizes["BM"]) * ceil(sizes["N"] / sizes["BN"])
        assert per_tile * runs == bruteforce_mma.mma(**sizes)["shared_wavefronts"]


def test_at_the_teaching_preset_the_swizzle_is_refused_with_params_message(page):
    """The swizzle switch: refused at BK=8 with Params.check's own message, the state kept."""
    page.go(link("mma", TEACHING, step=9, guide=0))
    before = page.address
    try:
        KERNEL.PARAMS(**{**TEACHING, "swizzle": 1})
    except ParamError as error:
        message = error.message
    page.select("input-swizzle", "1")
    assert page.visible("input-error") and message in page.text("input-error")
    assert page.address == before
    assert "XOR swizzle is refused here" in page.text("bank-text") or page.text("bank-text").startswith("This step")
    assert "refused" in page.text("tile-wavefronts")


def test_the_swizzle_switch_redraws_the_banks(page):
    page.go(link("mma", PADDED, step=0, guide=0))
    page.select("input-swizzle", "1")
    assert page.params()["swizzle"] == "1" and page.text("input-error") == ""
    assert "16-byte chunks XOR-swizzled" in page.text(page.find("figure.grid-As figcaption"))


def test_the_swizzle_editor_stands_beside_the_switch_and_prices_what_it_says(page):
    """The editor (Swizzle<B, M, S>) is shown while the switch says 1, even when the sizes refuse it; each
    value it takes redraws the caption and the banks, B's fragment wavefronts equal the brute force's count of
    the listing's addresses under that swizzle, and a base below 16-byte chunks is refused by name."""
    editor = ("input-swz_bits", "input-swz_base", "input-swz_shift")
    page.go(link("mma", PADDED, step=0, guide=0))
    assert not any(page.visible(page.testid(name)) for name in editor)
    page.select("input-swizzle", "1")
    assert all(page.visible(page.testid(name)) for name in editor)
    assert "(Swizzle<3, 2, 3>)" in page.text(page.find("figure.grid-As figcaption"))
    for bits, shift in ((2, 3), (1, 1), (2, 5)):
        sizes = {**SWIZZLED, "swz_bits": bits, "swz_shift": shift}
        index = first(sizes, lambda s: s.lines == k12_mma.FRAG_B and s.tile == 0 and s.k == 8)
        page.go(link("mma", sizes, step=index, guide=0))
        assert page.text("input-error") == "" and page.params()["swz_bits"] == str(bits)
        assert f"(Swizzle<{bits}, 2, {shift}>)" in page.text(page.find("figure.grid-As figcaption"))
        assert (
            f"{fragment_b_wavefronts(sizes, 8)} wavefronts with XOR swizzle Swizzle<{bits}, 2, {shift}>"
            in page.text("bank-text")
        )
    before = page.address
    page.select("input-swz_base", "1")
    assert page.visible("input-error") and page.text("input-error").startswith("swz_base=1: a cp.async lands 16 bytes")
    assert page.address == before
    page.go(link("mma", TEACHING, step=0, guide=0))
    page.select("input-swizzle", "1")  # refused at BK=8 with three bits: the editor is there to lower them
    assert page.text("input-error").startswith("BK=8") and page.visible(page.testid("input-swz_bits"))
    page.select("input-swz_bits", "1")
    assert page.text("input-error") == "" and page.params()["swizzle"] == "1"


def test_tensor_flops_and_the_error_table(page):
    sizes = {**TEACHING, "split": 3}
    trace = Trace(KERNEL, KERNEL.PARAMS(**sizes))
    page.go(link("mma", sizes, step=len(trace) - 1, guide=0))
    p = sizes
    assert page.value("counter-mma_instructions") == 3 * (p["K"] // 8) * 2  # 2 mma tiles, 3 mmas each
    flops = int(page.attribute("tensor-flops", "data-value"))
    assert flops == 3 * 2 * p["M"] * p["N"] * p["K"]  # 3xTF32 executes three per useful FLOP
    rows = page.all("tbody tr", page.testid("c-error"))
    values = {
        row.getAttribute("data-split"): [float(td.getAttribute("data-value")) for td in page.all("td", row)]
        for row in rows
    }
    assert values["1"][0] == values["3"][0] == 0  # the page's digits: every sum is exact
    assert 1e-5 < values["1"][1] < 1e-3 and values["3"][1] < 1e-6 and values["float32"][1] < 1e-5
    marked = [row.getAttribute("data-split") for row in rows if "split-now" in (row.getAttribute("class") or "")]
    assert marked == ["3"]


def test_the_timeline_marks_the_round_of_an_mma(page):
    p = KERNEL.PARAMS(**TEACHING)
    index = first(TEACHING, lambda s: s.lines == k12_mma.MMA and s.tile == 1)
    page.go(link("mma", TEACHING, step=index, guide=0))
    rows = [page.all("td", row) for row in page.all("tbody tr", page.testid("pipeline-timeline"))]
    columns = pipelined.timeline(p)
    assert [[page.text(cell) for cell in row] for row in rows] == [
        [column.slots[stage].text for column in columns] for stage in range(p.stages)
    ]
    touched = [(s, c) for s, row in enumerate(rows) for c, cell in enumerate(row) if "pipe-touched" in cell.className]
    assert touched == [(1, 2)]  # tile 1, stage 1, the column after the prologue and round 0
    assert page.find(".frag-now", page.testid("fragments")) is page.testid("fragment-C")


def test_the_partials_defaults_are_the_teaching_presets():
    values = mma.slot_values(KERNEL.PARAMS(**TEACHING))
    found = re.findall(r'data-slot="(\w+)" data-value="([^"]*)"', PARTIAL.read_text())
    assert found and {name: str(values[name]) for name, _ in found} == dict(found)
