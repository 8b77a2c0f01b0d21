"""What #/wgmma says and draws, computed: the producer/consumer timeline (the shape of pysim.lessons.pipelined's,
so widgets/pipeline.py draws it), the 128-byte swizzle of one 1,024-byte atom with the bank of each chunk, who
owns which part of the block's C tile, and the tensor-core FLOPs. The kernel is pysim/kernels/k13_wgmma.py."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from ..core.counters import Counters
from ..core.swizzle import LINES, swizzle_words
from ..core.trace import Step
from ..core.words import count
from ..hardware.wgmma_params import SWIZZLE_ROW, WARPGROUP, WGMMA_M, WgmmaParams
from ..kernels import k13_wgmma as kernel
from ..kernels import wgmma_layout
from .pipelined import PROLOGUE, Column, Slot

CHUNK_WORDS = 4  # a 16-byte chunk: the swizzle's unit, four banks
CHUNKS = SWIZZLE_ROW // CHUNK_WORDS  # eight chunks in a 128-byte row
PRODUCING = (kernel.WAIT_EMPTY, kernel.EXPECT, kernel.TMA_A, kernel.TMA_B)
PIPE_KEY = (
    ("pipe-load", "the producer's TMA copies of a tile are issued (one thread, counted on full[stage])"),
    ("pipe-flight", "landed or landing: waiting in its stage for the consumers"),
    ("pipe-compute", "the tile the consumer warpgroups' wgmmas read this round"),
)


def timeline(p: Any) -> tuple[Column, ...]:
    """The producer's first fill of every stage, then one round per tile: the consumers compute tile r from
    stage r mod S; once they released tile r-1's stage, the producer refills it with tile r+S-1."""
    stages = p.stages
    first = [Slot() for _ in range(stages)]
    for tile in range(min(stages, p.tiles)):
        first[tile % stages] = Slot(tile, "load")
    columns = [Column(PROLOGUE, tuple(first))]
    for r in range(p.tiles):
        slots = [Slot() for _ in range(stages)]
        refill = r + stages - 1 if r else None
        for tile in range(r + 1, min(r + stages, p.tiles)):
            slots[tile % stages] = Slot(tile, "load" if tile == refill else "in flight")
        slots[r % stages] = Slot(r, "compute")
        columns.append(Column(f"round {r}", tuple(slots)))
    return tuple(columns)


def column_of(p: Any, step: Step, listing: ModuleType = kernel) -> int | None:
    """The timeline column of a step: the producer's steps by the tile they copy, the consumers' by the tile they
    compute (None for the setup and the store)."""
    if step.phase in ("setup", "store"):
        return None
    if step.tile is None:
        return 0
    if step.lines in PRODUCING:
        return 0 if step.tile < p.stages else step.tile - p.stages + 2
    return 1 + step.tile


def stage_now(p: Any, step: Step, listing: ModuleType = kernel) -> int | None:
    return None if step.tile is None else step.tile % p.stages


def now_text(p: Any, step: Step, listing: ModuleType = kernel) -> str:
    """The sentence under the timeline: who works on which stage, and who waits on which barrier."""
    column = column_of(p, step, listing)
    if column is None:
        return "Outside the pipeline: " + (
            "the setup, before any copy." if step.phase == "setup" else "the store of C."
        )
    if step.tile is None:
        return "The barriers are set up: full[s] and empty[s] for each stage; no copy yet."
    stage = step.tile % p.stages
    if step.lines == kernel.WAIT_EMPTY:
        return f"The producer waits on empty[{stage}] until every consumer warpgroup has released tile t{step.tile - p.stages}."
    if step.lines in PRODUCING:
        return f"The producer copies tile t{step.tile} into stage {stage} by TMA; full[{stage}] counts its bytes."
    if step.lines == kernel.WAIT_FULL:
        return f"The consumers wait on full[{stage}] until tile t{step.tile}'s {p.stage_bytes:,} bytes have landed."
    if step.lines == kernel.RELEASE:
        return f"The consumers arrive on empty[{stage}]: the producer may refill stage {stage}."
    return f"Round {step.tile}: the consumers' wgmmas read tile t{step.tile} from stage {stage} through descriptors."


def swizzle_atom() -> np.ndarray:
    """(8, 8): the logical 16-byte chunk that lands in physical chunk c of row r of a 1,024-byte atom."""
    rows, chunks = np.meshgrid(np.arange(LINES), np.arange(CHUNKS), indexing="ij")
    moved = swizzle_words(rows * SWIZZLE_ROW + chunks * CHUNK_WORDS) % SWIZZLE_ROW // CHUNK_WORDS
    placed = np.empty_like(moved)
    placed[rows, moved] = chunks
    return placed


def banks_of(chunk: int) -> str:
    """The four banks a physical chunk of a 128-byte row lies in."""
    return f"{chunk * CHUNK_WORDS}–{chunk * CHUNK_WORDS + CHUNK_WORDS - 1}"


def core_matrix_wavefronts(chunk: int, swizzled: bool) -> int:
    """Wavefronts of one core matrix (8 rows × logical chunk `chunk`): the most words any bank is asked for."""
    rows = np.arange(LINES)[:, None]
    words = rows * SWIZZLE_ROW + chunk * CHUNK_WORDS + np.arange(CHUNK_WORDS)[None, :]
    if swizzled:
        words = swizzle_words(words)
    return int(np.bincount((words % SWIZZLE_ROW).ravel(), minlength=SWIZZLE_ROW).max())


def owners(p: WgmmaParams) -> list[tuple[str, str]]:
    """(rows of the block's tile, who holds them) for each warp of each consumer warpgroup (wgmma's D map)."""
    found = []
    for group in range(p.consumers):
        for mi in range(p.MITER):
            top = group * p.rows_per_consumer + mi * WGMMA_M
            for warp in range(WARPGROUP // 32):
                first = (1 + group) * WARPGROUP + 32 * warp
                rows = f"{top + 16 * warp}–{top + 16 * warp + 15}"
                found.append(
                    (rows, f"warpgroup {1 + group}, warp {warp} (threads {first}–{first + 31}), m64 tile {mi}")
                )
    return found


def thread_cells_text(p: WgmmaParams, thread: int) -> str:
    """Where the followed thread's accumulators lie in its warpgroup's 64×BN tile."""
    tid, group = kernel.thread_xy(p, thread)
    if group == 0:
        return f"Thread {thread} is in the producer warpgroup: it holds no accumulator."
    where = wgmma_layout.d_map(p.BN)[tid]
    rows = sorted({int(r) for r in where[:, 0]})
    cols = sorted({int(c) for c in where[:, 1]})
    return (
        f"Thread {tid} of warpgroup {group} holds {count(p.accumulators, 'accumulator')}: rows "
        f"{', '.join(map(str, rows))} of each m64 tile, columns {', '.join(map(str, cols[:4]))}"
        f"{' …' if len(cols) > 4 else ''} (every 8th pair)."
    )


def tensor_flops(p: WgmmaParams, counters: Counters) -> int:
    return wgmma_layout.tensor_flops(p, counters)


def flops_text(p: WgmmaParams, counters: Counters) -> str:
    per = wgmma_layout.flops_per_wgmma(p)
    return (
        f"{counters.mma_instructions:,} wgmma.m64n{p.BN}k8 so far × {per:,} FLOPs = "
        f"{tensor_flops(p, counters):,} tensor-core FLOPs; {counters.tma_bytes:,} bytes by TMA, "
        f"{counters.mbarrier_waits:,} mbarrier waits."
    )


def captions(p: WgmmaParams) -> dict[str, str]:
    """The grids' captions: As and Bs with every stage stacked, each element where the 128-byte swizzle puts it."""
    gx, gy = kernel.grid(p)
    return {
        "A": f"Matrix A ({p.M} × {p.K})",
        "B": f"Matrix B ({p.K} × {p.N}); the TMA reads Bt, its transpose (wgmma takes TF32 K-major only)",
        "As": f"As [{p.stages}·{p.BM}][{p.BK}]: {p.stages} stages, rows of 128 bytes, 128-byte swizzle (TMA)",
        "Bs": f"Bs [{p.stages}·{p.BN}][{p.BK}]: Bt's rows, {p.stages} stages, 128-byte swizzle (TMA)",
        "C": f"Matrix C ({p.M} × {p.N}), {gx}×{gy} blocks; {count(p.consumers, 'consumer warpgroup')} of "
        f"{p.rows_per_consumer} rows, {p.MITER} m64 tile(s) each",
    }
