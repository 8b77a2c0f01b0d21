"""What #/pipelined says and draws, computed: the pipeline's timeline (which tile each stage holds in each
round, loading or computed), where a step sits in it, and the explanation's numbers. The timeline is #/mma's
too (k12 runs k11's pipeline, k11.rounds): it reads only `stages` and `tiles` of the parameters."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ..core.trace import Step
from ..core.words import count
from ..hardware.pipelined_params import PipelinedParams
from ..kernels import KERNELS
from ..kernels import k11_pipelined as kernel

PROLOGUE = "prologue"


@dataclass(frozen=True)
class Slot:
    """What one stage's buffer holds in one round: `tile` and its `state` ("load": its copy is issued this
    round, "in flight": issued earlier and not waited for, "compute": landed and being computed), or empty."""

    tile: int | None = None
    state: str = ""

    @property
    def text(self) -> str:
        return "" if self.tile is None else f"{self.state} t{self.tile}"


@dataclass(frozen=True)
class Column:
    """One round of the pipeline (or the prologue), one Slot per stage."""

    label: str
    slots: tuple[Slot, ...]


def timeline(p: Any) -> tuple[Column, ...]:
    """The prologue, then every round of the main loop, as the listing orders them."""
    stages, ahead = p.stages, p.stages - 1
    first = [Slot() for _ in range(stages)]
    for s in range(min(ahead, p.tiles)):
        first[kernel.stage_of(p, s)] = Slot(s, "load")
    columns = [Column(PROLOGUE, tuple(first))]
    for r in range(p.tiles):
        slots = [Slot() for _ in range(stages)]
        for tile in range(r + 1, min(r + ahead, p.tiles - 1) + 1):
            slots[kernel.stage_of(p, tile)] = Slot(tile, "in flight")
        if r + ahead < p.tiles:
            slots[kernel.stage_of(p, r + ahead)] = Slot(r + ahead, "load")
        slots[kernel.stage_of(p, r)] = Slot(r, "compute")
        columns.append(Column(f"round {r}", tuple(slots)))
    return tuple(columns)


def column_of(p: Any, step: Step, listing: ModuleType = kernel) -> int | None:
    """The timeline column a step runs in (None for the setup and the store, outside the pipeline). `listing`:
    the kernel module whose statements the step names (k11's, or k12's: the same pipeline, k11.rounds)."""
    if step.phase in ("setup", "store"):
        return None
    if step.lines == listing.COMMIT_FIRST:
        return 0
    if step.tile is None:  # the prologue's empty groups
        return 0
    if step.phase == "load":
        round_ = step.tile - (p.stages - 1)
        return 0 if round_ < 0 else 1 + round_
    return 1 + step.tile


def stage_now(p: Any, step: Step, listing: ModuleType = kernel) -> int | None:
    """The stage this step copies into or computes from (None when it touches no stage's buffer)."""
    if step.phase in ("load", "compute") or step.lines == listing.SYNC_LOADED:
        return kernel.step_stage(p, step)
    return None


def exposed_waits(p: Any) -> tuple[int, int]:
    """(warptiling, pipelined): tiles whose copy the FMAs wait for from its start. Warptiling waits for every
    tile; the pipeline only for the first, the others set off S-1 rounds before they are computed."""
    return p.tiles, min(1, p.tiles)


def slot_values(p: PipelinedParams) -> dict[str, object]:
    """Every slot of site/partials/pipelined-explain.html, for these sizes."""
    counters = KERNELS["pipelined"].counters(p)
    block = KERNELS["pipelined"].block_counters(p, 0, 0)
    before, after = exposed_waits(p)
    return {
        "stages": p.stages,
        "ahead": p.stages - 1,
        "tiles": p.tiles,
        "shared_bytes": p.shared_bytes,
        "tile_bytes": p.BK * (p.BM + p.BN) * 4,
        "block_async_bytes": block.async_copy_bytes,
        "async_copy_bytes": counters.async_copy_bytes,
        "shared_stores": counters.shared_stores,
        "waits_before": before,
        "waits_after": after,
        "ahead_text": ahead_text(p),
    }


def ahead_text(p: PipelinedParams) -> str:
    """How many tiles the prologue sets off beyond the one computed: S - 1, fewer where the run has fewer tiles."""
    ahead = min(p.stages - 1, p.tiles - 1)
    if ahead == 0:
        return "with one tile at these sizes (K ≤ BK) the block has nothing to set off ahead of the one it computes"
    return f"the block sets off {count(ahead, 'tile')} ahead of the one it computes"


def shown(p: PipelinedParams) -> dict[str, bool]:
    """Which alternative sentences (`data-show`) are visible: the removal is claimed only where there are two
    tiles or more, so that one can travel while another is computed."""
    return {"pipelined-removes": p.tiles > 1, "pipelined-one-tile": p.tiles == 1}


def now_text(p: Any, step: Step, listing: ModuleType = kernel) -> str:
    """The sentence under the timeline: what the current round overlaps."""
    column = column_of(p, step, listing)
    if column is None:
        return "Outside the pipeline: " + (
            "the setup, before any copy." if step.phase == "setup" else "the store of C."
        )
    if column == 0:
        first = min(p.stages - 1, p.tiles)
        went = "the first tile sets off" if first == 1 else f"the first {first} tiles set off"
        return f"Prologue: {went}; nothing is computed yet."
    r = column - 1
    travelling = [s.tile for s in timeline(p)[column].slots if s.state in ("load", "in flight")]
    moving = ", ".join(f"t{t}" for t in travelling) or "none (the last tiles)"
    return f"Round {r}: tile t{r} is computed from stage {kernel.stage_of(p, r)} while copies travel: {moving}."
