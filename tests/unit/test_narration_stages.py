"""Where a multi-stage kernel's step is (#/mma and #/wgmma's focus line): the tile counted from 1 out of
ceil(K / BK), the stage it lands in (tiles go round the stages in order), and the k inside the tile, named as
each listing names it."""

from __future__ import annotations

import math

import pytest

from pysim.core.matrices import operands
from pysim.kernels import KERNELS
from pysim.lessons.narration import mma, wgmma

CASES = (
    (mma, "mma", {"M": "16", "N": "16", "K": "40", "BM": "16", "BN": "16", "BK": "8", "WM": "16", "WN": "16"}, "kk"),
    (wgmma, "wgmma", {"M": "64", "N": "32", "K": "96", "BM": "64", "BN": "32", "BK": "32", "stages": "2"}, "k"),
)


@pytest.mark.parametrize(("narration", "name", "raw", "k_name"), CASES, ids=lambda v: v if isinstance(v, str) else "")
def test_position_names_tile_stage_and_k(narration, name, raw, k_name):
    kernel = KERNELS[name]
    p = kernel.PARAMS.parse({**{k: str(v) for k, v in next(iter(kernel.PARAMS.PRESETS.values())).items()}, **raw})
    tiles = math.ceil(int(raw["K"]) / int(raw["BK"]))
    A, B = operands(p.M, p.N, p.K, 0)
    seen = set()
    for step in kernel.block_steps(p, A, B, 0, 0):
        text = narration.position(step, p)
        assert text.startswith("Block (0,0)"), text
        if step.tile is not None:
            assert f"tile {step.tile + 1} of {tiles} (stage {step.tile % p.stages})" in text, text
            seen.add(step.tile)
        if step.k is not None:
            assert text.endswith(f"{k_name}={step.k % int(raw['BK'])}"), text
    assert seen == set(range(tiles))


def test_the_producer_has_finished_only_after_its_last_copy():
    """At a consumer step of tile t the copying thread still has a refill ahead while t + stages < ceil(K/BK)
    (it waits on that stage's empty barrier); only after that has it finished."""
    kernel = KERNELS["wgmma"]
    raw = {"M": "130", "N": "66", "K": "100", "BM": "128", "BN": "64", "stages": "3", "consumers": "2"}
    p = kernel.PARAMS.parse(raw)
    tiles = math.ceil(100 / 32)
    A, B = operands(p.M, p.N, p.K, 0)
    consumer_steps = [step for step in kernel.block_steps(p, A, B, 0, 0) if step.phase in ("compute", "wait")]
    for step in consumer_steps:
        said = wgmma.narrate(step, p, 0)
        if step.tile is not None and step.tile + 3 < tiles and "waits until the consumers" not in said:
            assert f"then copies tile {step.tile + 4} of {tiles}" in said, said
            assert "finished" not in said, said
    last = [s for s in consumer_steps if s.tile == tiles - 1]
    assert last and all("has finished" in wgmma.narrate(s, p, 0) for s in last if s.lines != kernel.module.WAIT_EMPTY)


def test_the_block_sentence_fits_each_statement():
    """The block's sentence at a step names what that statement does: the store is the consumers' (no copying),
    the release arrives on the step's own stage's empty barrier."""
    kernel = KERNELS["wgmma"]
    p = kernel.PARAMS.parse({"M": "64", "N": "32", "K": "96", "BM": "64", "BN": "32", "stages": "2"})
    A, B = operands(p.M, p.N, p.K, 0)
    for step in kernel.block_steps(p, A, B, 0, 0):
        text = wgmma.phase_detail(step, p)
        if step.phase == "store":
            assert text.startswith("Store") and "copies" not in text, text
        if step.lines == kernel.module.RELEASE:
            assert f"empty[{step.tile % 2}]" in text, text
        if step.phase == "setup":
            assert "consumers compute" not in text, text
