"""pysim's instruction model: what nvcc emits for one iteration of a kernel's main loop, counted per thread.

The counters count elements (a value of As read is one shared load); a GPU issues instructions, and nvcc
decides how many. This model derives the instruction mix from the kernel's own trace (the shared, global
and FMA work of one thread in the first iteration of the main loop of block (0, 0)) with the rules below,
each named, so that tests/unit/test_sass_model.py can hold it equal to what nvcc emits (tools/sass).

RULES, in the order they apply:
- `contract`: `sum += a * b` in float32 becomes one FFMA (nvcc contracts a*b+c by default).
- `tensor-core`: each warp's `mma.sync.m16n8k8` TF32 is one HMMA.1688.F32.TF32 that every thread issues; its
  operands' `cvt.rna.tf32.f32` is plain integer and compare code (FSETP, IADD), no class counted here.
- `split-operands`: 3xTF32 (split=3) splits each fragment register x read from shared memory into
  big = tf32(x) and small = tf32(x - big): one FADD per word a thread's fragment reads bring in.
- `unroll`: loops with constant bounds inside the main loop are unrolled completely, so one iteration's
  reads are all in one straight stretch of code and the rules below see them all at once.
- `runtime-loop`: a loop whose start is threadIdx.x (a cooperative copy) has a trip count nvcc cannot know;
  it stays a loop and its instructions are left out of the iteration's mix (`runtime_loop_lines`), with
  those of a `__device__` function called only inside such loops (inlined, they carry the function's lines).
- `reuse`: a thread reading one shared word twice between barriers issues one load (no store between).
- `merge`: a thread's shared reads (and writes) of one array whose addresses differ only by constants are
  merged, lowest offset first, into 128-bit (LDS.128) then 64-bit (LDS.64) accesses where the words are
  consecutive and the address is provably aligned: the offset a multiple of the width and the thread's
  part of the address a multiple of it for every thread (shared arrays taken as 16-byte aligned: `placement`,
  pysim.core.placement, says where nvcc's are not).
  A merged access is issued where the first of its words is needed (`issued`), and the trace's per-warp
  counters (wavefronts, bank-conflict cycles) count it there, once, at its width (`issued_costs`).
- `kept-loop`: the compiler unrolls the dotIdx loop, and ptxas can then merge reads across its rounds, only
  while one round is short; a round of more than KEPT_LOOP_BODY instructions (its FFMA and scalar shared
  reads) stays a loop, and `merge` sees one round at a time. Keeping the loop is NVVM's choice (the PTX keeps
  it at register 128/128/8/8/8 and blocktile1d TM=32, and unrolls it at register TM=4, TN=8, BK=2); the
  merging is ptxas's (the PTX still reads scalar ld.shared.f32). Found on nvcc 13 for every architecture:
  rounds of 44 (register, TM=4, TN=8: As merged across rounds into LDS.128) are unrolled; rounds of 65
  (blocktile1d, TM=32: 32 FFMA, 33 LDS) and 80 (register at siboehm's runner shape, TM=TN=8) are kept, their
  As reads scalar. The bound is somewhere in 45-64; 48 is fitted, not read from the compiler, and
  tests/unit/test_sass_model.py holds it.
- `kept-loop-base`: where a tile's dotIdx loop is long — its rounds × (FFMA + shared reads of one round
  as written, per thread: `loop_length`) above KEPT_LOOP_TOTAL — nvcc's shared-load widths can differ from
  `merge`'s, narrower or wider, while the words read, the FFMA and every other class stay as counted. The best
  explanation found, not measured: NVVM may keep the loop (partly unrolled), and LLVM's loop strength reduction
  then picks each array's base register at an offset often not aligned to the reads' width, and ptxas merges
  only reads aligned to it (a model of that choice made the misses worse). What is measured, with nvcc 13.5 on
  610 parameter sets (the presets and 120 samples of kernels 4-6, 10 and the pipelined kernel) on each of the
  five architectures: at or below 130 nvcc's widths equal `merge`'s every time (224 sets per architecture);
  above it they differ at 77-93 of 386 (72 of 264 on sm_75, without the pipelined kernel), in the widths alone
  (the shortest loop that differed: 140; `python -m tools.sass.widths` repeats it). Not modelled:
  `widths_unsure` says where it applies, and the pages say so there. tests/unit/test_sass_model.py pins both
  sides.
- `vector-type`: an access through float4 (a `reinterpret_cast`) is one 128-bit instruction, as written.
- `select-store`: a float4 stored from `cond ? load : zero4` is two predicated STS.128 (see _select_stores).
- `global-scalar`: global loads and stores are never merged: nothing proves their alignment at compile time.
- `async-copy`: a cp.async (a shared store marked `asynchronous`, and the global load it copies from) is one
  LDGSTS at the copy's width (4 bytes: LDGSTS.E; 16 bytes: LDGSTS.E.128, nvcc's LDGSTS.E.BYPASS.128), no LDG
  or STS: the copy goes from global to shared memory without a register in between.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import chain
from math import gcd
from typing import TYPE_CHECKING, Any

import numpy as np

from . import banks
from .constants import WARP_SIZE
from .matrices import operands
from .warps import INACTIVE

if TYPE_CHECKING:  # the trace counts with `issue_plan`, so this module may not import it at run time
    from .trace import Access, Step

WIDTH_SUFFIX = {1: "", 2: ".64", 4: ".128"}
SHARED = {"load": "LDS", "store": "STS"}
GLOBAL = {"load": "LDG.E", "store": "STG.E"}
ASYNC_COPY = "LDGSTS.E"
KEPT_LOOP_BODY = 48  # the `kept-loop` rule's bound, instructions in one round of the dotIdx loop
# What the pages add to a width they name where `widths_unsure` (the listing's comments, the step narrations).
WIDTHS_CAVEAT = " in pysim's model (nvcc may keep this loop here, and then its widths may differ)"
# A listing's runtime arguments and pysim's device preset: nvcc compiles the same code whatever their values.
RUNTIME = ("M", "N", "K", "device")
KEPT_LOOP_TOTAL = 130  # the `kept-loop-base` rule's bound: rounds × instructions of a round, the whole dotIdx loop
TENSOR_CORE = "HMMA.1688.F32.TF32"


def instruction_class(op: str, width: int) -> str:
    """SASS's name for one access of `width` words: LDS, LDS.64, LDS.128, STS…, LDG.E, LDG.E.128, STG.E…."""
    return op + WIDTH_SUFFIX[width]


@dataclass(frozen=True)
class Mix:
    """One iteration's instructions per thread, the epilogue's stores, and the lines left out."""

    per_iteration: dict[str, int]
    after_loop: dict[str, int]
    runtime_loop_lines: tuple[int, ...]


def main_loop_span(lines: Sequence[str], inner_line: int) -> tuple[int, int]:
    """(first, last) listing lines of the outermost `for` around `inner_line` (1-based), by its braces."""
    for start in range(1, inner_line + 1):
        if not lines[start - 1].lstrip().startswith("for ("):
            continue
        end = _closing_line(lines, start)
        if end >= inner_line:
            return start, end
    return inner_line, inner_line


def _closing_line(lines: Sequence[str], start: int) -> int:
    """The line holding the brace that closes the block opened on `start` (a braceless loop ends at once)."""
    depth, opened = 0, False
    for number in range(start, len(lines) + 1):
        text = lines[number - 1].split("//")[0]
        for char in text:
            if char == "{":
                depth, opened = depth + 1, True
            elif char == "}":
                depth -= 1
        if opened and depth == 0:
            return number
        if not opened and text.rstrip().endswith(";"):
            return number
    return len(lines)


def runtime_loop_lines(lines: Sequence[str]) -> tuple[int, ...]:
    """The `runtime-loop` rule: the lines of every loop that starts at threadIdx.x."""
    found: list[int] = []
    for number, text in enumerate(lines, start=1):
        if text.lstrip().startswith("for (") and "= threadIdx.x;" in text:
            found += range(number, _closing_line(lines, number) + 1)
    for number, text in enumerate(lines, start=1):
        name = re.match(r"__device__ .*?(\w+)\(", text)
        if not name or not found:
            continue
        body = range(number, _closing_line(lines, number) + 1)
        calls = [n for n, t in enumerate(lines, start=1) if n not in body and f"{name.group(1)}(" in t]
        if calls and set(calls) <= set(found):
            found += body
    return tuple(sorted(found))


def merged_runs(offsets: Iterable[int], alignment: int) -> list[tuple[int, int]]:
    """The `merge` rule on one thread's word offsets from one base whose known alignment is `alignment`
    words: (offset, width) of each access, lowest offset first (the speed model prices these)."""
    present = set(offsets)
    taken: set[int] = set()
    runs: list[tuple[int, int]] = []
    for offset in sorted(present):
        if offset in taken:
            continue
        for width in (4, 2, 1):
            run = range(offset, offset + width)
            if width == 1 or (alignment % width == 0 and offset % width == 0 and present.issuperset(run)):
                taken.update(run)
                runs.append((offset, width))
                break
    return runs


def alignment_of(bases: Iterable[int]) -> int:
    """The largest of 4, 2, 1 words that divides every thread's part of the address."""
    common = 0
    for value in bases:
        common = gcd(common, abs(int(value)))
    return next(width for width in (4, 2, 1) if common % width == 0)


def keeps_loop(ffma: int, reads: int) -> bool:
    """The `kept-loop` rule: whether the compiler keeps the dotIdx loop whose one round has `ffma` FFMA and
    `reads` scalar shared reads per thread, so that no read is merged with one of another round."""
    return ffma + reads > KEPT_LOOP_BODY


def round_of(dotIdx: int, ffma: int, reads: int) -> int | None:
    """A read's round for `issued`: its dotIdx where the loop is kept (`keeps_loop`), else None."""
    return dotIdx if keeps_loop(ffma, reads) else None


Issue = tuple[int, int]
"""The instruction issued at one row of a scalar shared access: (width, shift), `width` words from each lane's
word + shift; width 0 where the row's words come with an instruction issued at another row."""
Scalar = tuple[str, np.ndarray, int | None]
"""A scalar shared access of one iteration: its array and op, its word rows (instructions, threads;
INACTIVE where idle) and its round of a kept loop (`kept-loop`; None: merged with any round)."""


def issued(accesses: Sequence[Scalar]) -> list[list[Issue]]:
    """The `reuse` and `merge` rules over one iteration's scalar shared accesses, per access and row.

    Each row's thread 0 (all of whose thread-dependent terms are 0) gives the row's constant offset, the
    other threads its thread-dependent part; rows of one array, op, part and round are merged. A merged
    access is issued at the first row, in program order, that needs one of its words (nvcc must load a
    value before its first use); a row whose thread 0 is idle stays as written (its offset unknown)."""
    found = [[(1, 0)] * len(words) for _, words, _ in accesses]
    groups: dict[tuple[str, bytes, int | None], list[tuple[int, int, int]]] = {}
    for number, (name, words, round_) in enumerate(accesses):
        rows = np.asarray(words, dtype=np.int64)
        parts = np.where(rows != INACTIVE, rows - rows[:, :1], 0)  # all rows at once: a tile has thousands
        for row in np.flatnonzero(rows[:, 0] != INACTIVE).tolist():
            groups.setdefault((name, parts[row].tobytes(), round_), []).append((int(rows[row, 0]), number, row))
    for (_, raw, _), entries in groups.items():
        alignment = alignment_of(np.frombuffer(raw, dtype=np.int64).tolist())
        at: dict[int, list[tuple[int, int, int]]] = {}  # offset -> its entries (a run looks up each word's)
        for entry in entries:
            at.setdefault(entry[0], []).append(entry)
        for start, width in merged_runs(at, alignment):
            # The run's entries in program order (entries were gathered in it: by access, then row).
            served = sorted((e for o in range(start, start + width) for e in at.get(o, ())), key=lambda e: e[1:])
            (offset, number, row), *rest = served
            found[number][row] = (width, start - offset)
            for _, other, other_row in rest:
                found[other][other_row] = (0, 0)
    return found


def issued_costs(words: np.ndarray, rows: Sequence[Issue], element_words: int = 1) -> tuple[int, int]:
    """(bank-conflict cycles, wavefronts) of one scalar access's rows (instructions, threads; element indices
    of `element_words` 32-bit words each) as `issued`: priced on the words `banks.bank_words` gives, as the
    trace prices an access as written."""
    extra = waves = 0
    for width in (1, 2, 4):
        picked = [number for number, (w, _) in enumerate(rows) if w == width]
        if picked:
            shifts = np.array([rows[number][1] for number in picked])[:, None]
            moved = np.where(words[picked] != INACTIVE, words[picked] + shifts, INACTIVE)
            more_extra, more_waves = banks.costs(*banks.bank_words(moved, width, element_words))
            extra, waves = extra + more_extra, waves + more_waves
    return extra, waves


def first_issued_reports(reads: Sequence[Scalar], count: int) -> list[tuple[banks.BankReport, int]]:
    """(bank analysis, width) of warp 0's first instruction for each of the first `count` scalar reads, as
    `issued` issues them: what the views' bank sentences describe."""
    found = []
    for (_, words, _), rows in zip(reads[:count], issued(reads)[:count], strict=True):
        width, shift = rows[0]
        found.append((banks.analyse(words[0, :WARP_SIZE] + shift, width), width))
    return found


def scalar_costs(accesses: Sequence[Scalar]) -> list[tuple[int, int]]:
    """(bank-conflict cycles, wavefronts) of each of one iteration's scalar shared accesses, as issued:
    the closed forms' count of what the trace counts step by step."""
    return [issued_costs(words, rows) for (_, words, _), rows in zip(accesses, issued(accesses), strict=True)]


def shared_mix(accesses: Sequence[Access], rounds: Sequence[int | None]) -> Counter[str]:
    """The `reuse`, `merge`, `vector-type` and `async-copy` rules over one iteration's shared accesses of a
    block; `rounds` gives each access's round of a kept loop (`kept-loop`; None: merged with any round).
    A row whose thread 0 is idle is not counted (no thread of block (0, 0)'s warp 0 issues it)."""
    found: Counter[str] = Counter()
    scalar = [(a, r) for a, r in zip(accesses, rounds, strict=True) if a.width == 1 and not a.asynchronous]
    for access in accesses:
        live = access.words[:, 0] != INACTIVE
        if access.asynchronous:  # async-copy: one LDGSTS per row, at its width
            found[instruction_class(ASYNC_COPY, access.width)] += int(live.sum())
        elif access.width > 1:  # vector-type: written as float4, issued as one 128-bit access
            found[instruction_class(SHARED[access.op], access.width)] += _select_stores(access) * int(live.sum())
    plan = issued([(f"{a.array} {a.op}", a.words, r) for a, r in scalar])
    for (access, _), rows in zip(scalar, plan, strict=True):
        for (width, _), lanes in zip(rows, access.words, strict=True):
            if width and lanes[0] != INACTIVE:
                found[instruction_class(SHARED[access.op], width)] += 1
    return found


def _select_stores(access: Access) -> int:
    """The `select-store` rule: a float4 stored from `cond ? load : zero4` is two predicated stores, one
    of the loaded value and one of zeros (each thread runs one, both are issued); a scalar select is one
    store of a register preset to 0."""
    return 2 if access.op == "store" and access.zero_fill is not None else 1


def global_mix(accesses: Sequence[Access]) -> Counter[str]:
    """The `global-scalar` rule: one instruction per row of each access, at its own width."""
    found: Counter[str] = Counter()
    for access in accesses:
        found[instruction_class(GLOBAL[access.op], access.width)] += access.rows.shape[0]
    return found


def _fma_per_thread(steps: Sequence[Step], threads: int) -> int:
    """The `contract` rule: FFMA per thread, from the steps' FMA counts (the naive kernel counts only the
    threads inside C, the lanes of its loads; a tiled kernel counts every thread)."""
    total = 0.0
    for step in steps:
        if step.fma:
            lanes = max((int(np.count_nonzero(a.active[0])) for a in step.accesses), default=0)
            total += step.fma / (lanes or threads)
    return round(total)


def _mma_per_thread(steps: Sequence[Step], threads: int) -> int:
    """The `tensor-core` rule: a step's `mma` counts warp-wide instructions; each of a warp's 32 threads issues it."""
    return sum(step.mma for step in steps) * 32 // threads


def iteration_steps(kernel: Any, params: Any) -> tuple[list[Step], list[Step]]:
    """Block (0, 0)'s steps of its first main-loop iteration (tile 0; k 0 for a kernel without tiles),
    and its steps after the loop (the stores); a kernel without a loop is one iteration."""
    A, B = operands(params.M, params.N, params.K)
    steps = list(kernel.block_steps(params, A, B, 0, 0))
    if any(step.tile is not None for step in steps):
        first = [step for step in steps if step.tile == 0]
    elif any(step.k is not None for step in steps):
        first = [step for step in steps if step.k == 0]
    else:  # no loop (the transpose): the whole kernel is its one iteration
        return steps, []
    return first, [step for step in steps if step.phase == "store"]


def first_tile_steps(kernel: Any, params: Any) -> list[Step]:
    """Block (0, 0)'s first main-loop iteration at sizes of one tile (`_one_tile`): milliseconds at any size."""
    return iteration_steps(kernel, _one_tile(params))[0]


def merged_reads(kernel: Any, params: Any) -> list[tuple[str, int, bool]]:
    """Each scalar shared read of one main-loop iteration (at one tile's sizes) that `merge` issues wider: its array,
    its widest instruction in words, and whether every thread of the block reads the same words (no thread term is
    left in the launch)."""
    first = first_tile_steps(kernel, params)
    reads = [(a, r) for a, r in _rounds(_kept(kernel, params, first), kernel.threads(params)) if a.op == "load"]
    scalar = [(a, r) for a, r in reads if a.width == 1 and not a.asynchronous]
    plan = issued([(f"{a.array} {a.op}", a.words, r) for a, r in scalar])
    return [
        (a.array, max(width for width, _ in rows), bool(np.all((a.words == a.words[:, :1]) | (a.words == INACTIVE))))
        for (a, _), rows in zip(scalar, plan, strict=True)
        if any(width > 1 for width, _ in rows)
    ]


def _rounds(kept: Sequence[Step], threads: int) -> list[tuple[Access, int | None]]:
    """The iteration's shared accesses, each with its round of the dotIdx loop where ptxas keeps that loop
    (`kept-loop`, judged on round 0), else None."""
    shared = [(access, step.k) for step in kept for access in step.accesses if access.space == "shared"]
    kept_loop = keeps_loop(*_round_work([step for step in kept if step.k == 0], threads))
    return [(access, k if kept_loop else None) for access, k in shared]


def loop_length(kernel: Any, params: Any) -> int:
    """The `kept-loop-base` rule's measure of the main loop's dotIdx loop, per thread: its rounds × (FFMA +
    shared reads of its first round, as the trace writes them); a kernel without one, its iteration's. From the
    trace, not the listing (a listing's comments may depend on it), at sizes of one tile (`_one_tile`)."""
    first, _ = iteration_steps(kernel, _one_tile(params))
    rounds: list[int | None] = [*sorted({step.k for step in first if step.k is not None})] or [None]
    return len(rounds) * sum(_round_work([step for step in first if step.k == rounds[0]], kernel.threads(params)))


def _round_work(steps: Sequence[Step], threads: int) -> tuple[int, int]:
    """One round's FFMA per thread and its shared reads as the trace writes them (rows of its load accesses)."""
    reads = sum(a.rows.shape[0] for s in steps for a in s.accesses if a.space == "shared" and a.op == "load")
    return _fma_per_thread(steps, threads), reads


def _one_tile(params: Any) -> Any:
    """`params` with M, N and K cut to one block tile (BM, BN, BK, or T where a kernel has one edge): block
    (0, 0)'s first tile is the same, and its steps take milliseconds where 4096³ would take seconds."""
    edge = getattr(params, "T", None)
    cut = {
        size: min(getattr(params, size), tile)
        for size, tile in (
            ("M", getattr(params, "BM", edge)),
            ("N", getattr(params, "BN", edge)),
            ("K", getattr(params, "BK", edge)),
        )
        if tile is not None and hasattr(params, size)
    }
    try:
        return replace(params, **cut)
    except ValueError:  # a form that refuses the cut sizes (a ParamError): the first tile at full size
        return params


@lru_cache(maxsize=256)
def widths_unsure(kernel: Any, params: Any) -> bool:
    """`kept-loop-base`: whether nvcc's shared-read widths may differ from the model's at these parameters: the
    dotIdx loop is long (`loop_length` above KEPT_LOOP_TOTAL), and its tiles are not one of the kernel's
    presets' (whose code tests/unit/test_sass_model.py holds equal to nvcc's on every architecture; M, N and K are
    the listing's runtime arguments, so the code is the same at any of them)."""
    if loop_length(kernel, params) <= KEPT_LOOP_TOTAL:
        return False
    values = {name: value for name, value in params.as_strings().items() if name not in RUNTIME}
    presets = kernel.PARAMS.PRESETS.values()
    return all(values != {k: str(v) for k, v in preset.items() if k not in RUNTIME} for preset in presets)


def _kept(kernel: Any, params: Any, steps: Sequence[Step]) -> list[Step]:
    """The steps outside runtime loops (`runtime-loop`)."""
    skipped = set(runtime_loop_lines(kernel.source(params)))
    return [step for step in steps if not skipped.intersection(step.lines)]


def model_mix(kernel: Any, params: Any) -> Mix:
    """The instruction mix pysim predicts for one main-loop iteration, per thread, and the stores after it."""
    first, after = iteration_steps(kernel, params)
    kept = _kept(kernel, params, first)
    threads = kernel.threads(params)
    shared = _rounds(kept, threads)
    mix = Counter({"FFMA": _fma_per_thread(kept, threads), TENSOR_CORE: _mma_per_thread(kept, threads)})
    mix += shared_mix([a for a, _ in shared], [k for _, k in shared])
    if getattr(params, "split", 1) == 3:
        mix["FADD"] += sum(len(a.words) for a, _ in shared if a.op == "load")
    mix += global_mix([a for step in kept if not _copies(step) for a in step.accesses if a.space == "global"])
    stores = global_mix([a for step in after for a in step.accesses if a.space == "global"])
    skipped = runtime_loop_lines(kernel.source(params))
    return Mix(_plain(mix), _plain(stores), skipped)


Place = tuple[tuple[int, ...], int | None, tuple[int, ...], tuple[int, int] | None, int]
"""A step's place in its tile: its lines, k, inner and pair, and how many steps of its tile had those before."""
Plan = dict[Place, dict[int, list[Issue]]]
"""Where nvcc's shared instructions differ from the listing's rows: a step's place in its tile -> the access's
index in the step -> each row's Issue (only steps and accesses that hold a merged row)."""


class Places:
    """Counts a block's steps to give each its `Place` (a pipelined tile's steps come interleaved with others)."""

    def __init__(self) -> None:
        self.seen: Counter[tuple[object, ...]] = Counter()

    def of(self, step: Step) -> Place:
        key = (step.lines, step.k, step.inner, step.pair)
        self.seen[(step.tile, *key)] += 1
        return (*key, self.seen[(step.tile, *key)] - 1)


def tile_zero(steps: Iterator[Step]) -> tuple[list[Step], Iterator[Step]]:
    """A block's steps split before tile 1's first compute step: (the steps before it, in order, holding all
    of tile 0's; a pipelined kernel copies later tiles before tile 0 computes), the rest, unread)."""
    before: list[Step] = []
    for step in steps:
        if step.tile and step.phase == "compute":
            return before, chain([step], steps)
        before.append(step)
    return before, iter(())


def plan_of(kernel: Any, params: Any, before: Sequence[Step]) -> Plan:
    """The `issued` rows of tile 0 of block (0, 0), by a step's place in its tile, from `tile_zero`'s first
    part: every tile of every block issues the same (a tile's shared addresses are the block's own, the same
    in each tile up to a pipelined stage's offset, and an `Issue` keeps only each row's shift)."""
    tile = [step for step in before if step.tile == 0]
    counter = Places()
    places = [counter.of(step) for step in tile]
    kept = set(map(id, _kept(kernel, params, tile)))
    found = [
        (place, number, access)
        for place, step in zip(places, tile, strict=True)
        if id(step) in kept
        for number, access in enumerate(step.accesses)
        if access.space == "shared" and access.width == 1 and not access.asynchronous
    ]
    rounds = dict(_rounds([step for step in tile if id(step) in kept], kernel.threads(params)))
    rows = issued([(f"{a.array} {a.op}", a.words, rounds[a]) for _, _, a in found])
    plan: Plan = {}
    for (place, number, _), issues in zip(found, rows, strict=True):
        if any(issue != (1, 0) for issue in issues):
            plan.setdefault(place, {})[number] = issues
    return plan


@lru_cache(maxsize=16)
def issue_plan(kernel: Any, params: Any) -> Plan:
    """`plan_of` block (0, 0), generated for it (a trace that builds block (0, 0) first reads its own steps)."""
    A, B = operands(params.M, params.N, params.K)
    return plan_of(kernel, params, tile_zero(kernel.block_steps(params, A, B, 0, 0))[0])


def _copies(step: Step) -> bool:
    """A step of cp.async copies: its global loads are the LDGSTS's (`async-copy`), no LDG of their own."""
    return any(access.asynchronous for access in step.accesses)


def _plain(counts: Counter[str]) -> dict[str, int]:
    return {name: int(count) for name, count in sorted(counts.items()) if count}
