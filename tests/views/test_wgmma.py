"""#/wgmma in CPython: the swizzle atom against the rule written out here (chunk c of row r lands in chunk
c XOR r), a core matrix's wavefronts against tests/bruteforce.py's bank count, the warpgroup table against
the PTX ISA's D layout written out (warp w holds rows 16w..16w+15 of each m64 tile), the followed thread's
accumulators, the tensor FLOPs against tests/bruteforce_wgmma.py, the narration of a wgmma step, the timeline
and a refusal on a pre-sm_90 preset. (Counters against the brute force, keys, deep links and the other
refusals: test_stepping.py.)"""

import bruteforce_wgmma

from bruteforce import vector_banks
from pysim.core.trace import Trace
from pysim.kernels import KERNELS, k13_wgmma
from views.test_stepping import link

KERNEL = KERNELS["wgmma"]
TEACHING = next(iter(KERNEL.PARAMS.PRESETS.values()))
TWO = dict(M=60, N=16, K=64, BM=128, BN=16, BK=32, stages=1, consumers=2)


def first(sizes, lines) -> int:
    return next(step.index for step in Trace(KERNEL, KERNEL.PARAMS(**sizes)) if step.lines == lines)


def test_the_swizzle_atom_puts_chunk_c_of_row_r_at_c_xor_r(page):
    page.go(link("wgmma", TEACHING, step=0, guide=0))
    rows = page.all("tbody tr", page.testid("swizzle-atom"))
    assert len(rows) == 8
    for r, row in enumerate(rows):
        shown = [int(str(cell.getAttribute("data-value"))) for cell in page.all("td", row)]
        # physical chunk p holds the logical chunk c with c ^ r == p, that is c = p ^ r
        assert shown == [p ^ r for p in range(8)], r
    heads = [page.text(th) for th in page.all("thead th", page.testid("swizzle-atom"))][1:]
    assert heads == [f"banks {4 * p}–{4 * p + 3}" for p in range(8)]


def test_a_core_matrix_takes_eight_wavefronts_plain_and_one_swizzled(page):
    """The 8 rows of one 16-byte chunk, as 8 lanes' 128-bit reads: the brute force's bank count of the words."""
    page.go(link("wgmma", TEACHING, step=0, guide=0))
    plain = vector_banks([row * 32 for row in range(8)], 4)[0]
    swizzled = vector_banks([row * 32 + 4 * (0 ^ row) for row in range(8)], 4)[0]
    assert (plain, swizzled) == (8, 1)
    assert f"({plain} wavefronts); swizzled they meet all 32 banks ({swizzled} wavefront)" in page.text(
        "swizzle-wavefronts"
    )


def test_the_warpgroup_table_gives_each_warp_sixteen_rows(page):
    page.go(link("wgmma", TWO, step=0, guide=0))
    rows = page.all("tbody tr", page.testid("warpgroup-tile"))
    expected = [
        (f"{64 * g + 16 * w}–{64 * g + 16 * w + 15}", f"warpgroup {1 + g}, warp {w} (threads {128 * (1 + g) + 32 * w}")
        for g in range(2)
        for w in range(4)
    ]
    for row, (span, who) in zip(rows, expected, strict=True):
        assert page.text(page.find("th", row)) == span and page.text(page.find("td", row)).startswith(who)


def test_the_followed_threads_accumulators(page):
    """Thread 5 of warpgroup 1 (PTX ISA, wgmma D, .f32: lane 5 of warp 0 holds rows 5/4 = 1 and 9, columns
    2·(5 mod 4) = 2, 3, then every 8)."""
    page.go(link("wgmma", TEACHING, step=0, guide=0, thread="5,1"))
    text = page.text("thread-accumulators")
    assert text.startswith(
        "Thread 5 of warpgroup 1 holds 16 accumulators: rows 1, 9 of each m64 tile, columns 2, 3, 10, 11 …"
    )
    page.go(link("wgmma", TEACHING, step=0, guide=0, thread="5,0"))
    assert "producer warpgroup: it holds no accumulator" in page.text("thread-accumulators")


def test_tensor_flops_at_the_end_are_the_brute_forces_wgmmas(page):
    trace = Trace(KERNEL, KERNEL.PARAMS(**TWO))
    page.go(link("wgmma", TWO, step=len(trace) - 1, guide=0))
    wgmmas = bruteforce_wgmma.wgmma(*TWO.values())["mma_instructions"]
    assert page.attribute("tensor-flops", "data-value") == str(wgmmas * 2 * 64 * TWO["BN"] * 8)
    assert f"{wgmmas:,} wgmma.m64n16k8 so far" in page.text("tensor-flops")


def test_a_wgmma_step_is_narrated_and_marked_on_the_timeline(page):
    index = first(TEACHING, k13_wgmma.WGMMA)
    page.go(link("wgmma", TEACHING, step=index, guide=0, thread="0,1"))
    assert "takes part in its warpgroup's 1 wgmma m64n32k8" in page.text("narration")
    marked = page.all("td.pipe-now", page.testid("pipeline-timeline"))
    assert len(marked) == TEACHING["stages"]
    touched = page.all("td.pipe-touched", page.testid("pipeline-timeline"))
    assert [page.text(cell) for cell in touched] == ["compute t0"]
    assert "consumers' wgmmas read tile t0 from stage 0" in page.text("pipeline-now")


def test_the_producer_fills_every_stage_before_the_first_round(page):
    index = first(TEACHING, k13_wgmma.TMA_A)
    page.go(link("wgmma", TEACHING, step=index, guide=0))
    first_column = [page.text(page.all("td", row)[0]) for row in page.all("tbody tr", page.testid("pipeline-timeline"))]
    assert first_column == ["load t0", "load t1"]
    assert "The producer copies tile t0 into stage 0 by TMA" in page.text("pipeline-now")


def test_wgmma_on_an_ampere_preset_is_refused_naming_the_device(page):
    page.go(link("wgmma", TEACHING, step=4, guide=0))
    kept = page.address
    page.go(link("wgmma", {**TEACHING, "device": "a100"}, step=4, guide=0))
    error = page.text("input-error")
    assert error.startswith("device: the NVIDIA A100") and "wgmma.mma_async needs 9.0" in error
    assert page.params()["device"] == "h100" and page.address == kept
