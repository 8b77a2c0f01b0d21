"""pysim.lessons.blocktiled (the blocktiled views' numbers and drawing aids) against counts by hand,
and the three explanation templates' shipped defaults against what the views fill in."""

from __future__ import annotations

from math import ceil

import pytest

from pysim.core.trace import Trace
from pysim.hardware.blocktile_params import VectorizedParams, WarptileParams
from pysim.hardware.params import RegisterParams
from pysim.kernels import KERNELS, k10_warptile
from pysim.lessons import blocktiled
from views.test_explain import parse, shown_text

NAMES = ("blocktile1d", "vectorized", "warptile")


def teaching(name: str):
    params = KERNELS[name].PARAMS
    return params(**next(iter(params.PRESETS.values())))


@pytest.mark.parametrize("name", NAMES)
def test_template_defaults_are_what_python_fills_in(name):
    template = parse(f"{name}-explain.html")
    values = blocktiled.slot_values(name, teaching(name))
    assert {slot for slot, _, _ in template.slots} == set(values), "every slot filled, every value used"
    for slot, attributes, text in template.slots:
        assert "data-default" in attributes, slot
        assert " ".join("".join(text).split()) == shown_text(values[slot]), slot
        if "data-value" in attributes:
            assert attributes["data-value"] == str(values[slot]), slot
    visible = blocktiled.shown(name, teaching(name))
    assert {show for show, _ in template.shows} == set(visible)
    for show, hidden in template.shows:
        assert hidden == (not visible[show]), show


def test_float4_groups_of_the_b_load_are_each_lanes_four_cells():
    p = teaching("vectorized")
    step = next(s for s in Trace(KERNELS["vectorized"], p) if s.lines == KERNELS["vectorized"].module.LOAD_B)
    per_row = p.BN // 4  # the listing: innerRowB = threadIdx.x / (BN/4), innerColB = threadIdx.x % (BN/4)
    by_hand = sorted(tuple((t // per_row, t % per_row * 4 + i) for i in range(4)) for t in range(p.threads))
    assert blocktiled.vector_groups(step)["Bs"] == by_hand
    assert "As" not in blocktiled.vector_groups(step)


def test_edges_outline_each_group_alone():
    found = blocktiled.edges([((0, 0), (0, 1), (0, 2), (0, 3)), ((0, 4), (0, 5), (0, 6), (0, 7))])
    assert found[(0, 0)] == "b l t" and found[(0, 1)] == "b t" and found[(0, 3)] == "b r t"
    assert found[(0, 4)] == "b l t", "two neighbouring float4s keep a border between them"
    square = blocktiled.edges([tuple((r, c) for r in range(3) for c in range(3))])
    assert (1, 1) not in square and square[(0, 0)] == "l t"


def warps(threads: int) -> int:
    return ceil(threads / 32)


@pytest.mark.parametrize(
    "p",
    [VectorizedParams(**next(iter(VectorizedParams.PRESETS.values()))), VectorizedParams(M=64, N=64, K=64)],
)
def test_load_instructions_per_block_step(p):
    this = blocktiled.costs("vectorized", p, "")
    assert this.load_instructions == 2 * warps(p.threads)  # one float4 of A and one of B per thread
    before = blocktiled.costs(
        "register", RegisterParams(**{k: getattr(p, k) for k in ("BM", "BN", "BK", "TM", "TN")}), ""
    )
    rounds = ceil(p.BM * p.BK / p.threads) + ceil(p.BK * p.BN / p.threads)
    assert before.load_instructions == rounds * warps(p.threads)
    assert before.floats_per_load * 4 == this.floats_per_load == 4 * min(32, p.threads)
    gx, gy = ceil(p.N / p.BN), ceil(p.M / p.BM)
    assert this.run_load_instructions == this.load_instructions * gx * gy * ceil(p.K / p.BK)


@pytest.mark.parametrize("raw", list(WarptileParams.PRESETS.values()))
def test_warp_reuse_is_the_warp_tile_over_its_sides(raw):
    p = WarptileParams(**raw)
    this = blocktiled.costs("warptile", p, "")
    assert this.warp_values == p.WM + p.WN
    assert this.warp_fmas == 32 * p.WMITER * p.TM * p.WNITER * p.TN == p.WM * p.WN
    counters = KERNELS["warptile"].counters(p)
    assert this.wavefronts_per_fma == counters.shared_wavefronts / counters.fma


def test_vectorized_warp_reuse_by_hand():
    """Siboehm's sizes: 16 threads per row of the block, so warp 0 is 2 rows × 16 columns of 8×8 patches."""
    p = VectorizedParams(M=128, N=128, K=128)
    this = blocktiled.costs("vectorized", p, "")
    assert (this.warp_values, this.warp_fmas) == (2 * 8 + 16 * 8, 32 * 64)


def test_previous_rungs():
    assert blocktiled.rung("blocktile1d", teaching("blocktile1d")).previous.kernel == "smem"
    r = blocktiled.rung("warptile", WarptileParams(M=128, N=128, K=128))
    assert r.previous.kernel == "vectorized" and r.previous.threads == r.this.threads == 128
    assert r.previous.warp_reuse < r.this.warp_reuse


def test_warp_regions_split_the_warp_tile():
    p = WarptileParams(M=128, N=128, K=128)
    trace = Trace(KERNELS["warptile"], p)
    step = next(s for s in trace if s.inner == (0, 3))
    found = k10_warptile.warp_regions(p, step, 32 + 5)  # lane 5 of warp 1: warp tile (0, 1)
    c = found["C"]
    assert len(c["warp"]) == p.WM * p.WN and {col for _, col in c["warp"]} == set(range(p.WN, 2 * p.WN))
    assert len(c["subtiles"]) == p.WMITER * p.WNITER
    assert set(c["now"]) == {(r, p.WN + 3 * p.WSUBN + j) for r in range(p.WSUBM) for j in range(p.WSUBN)}
    owned = set(KERNELS["warptile"].owned_cells(p, step.block, 32 + 5))
    assert owned <= set(c["warp"])
    assert {col for _, col in found["Bs"]["now"]} == set(range(p.WN + 3 * p.WSUBN, p.WN + 4 * p.WSUBN))
