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
  part of the address a multiple of it for every thread (shared arrays are placed 16-byte aligned).
- `kept-loop`: ptxas (not NVVM: the PTX of kernels 4 and 5 still reads scalar ld.shared.f32; ptxas merges) unrolls
  the dotIdx loop, and so merges reads across its rounds, only while one round is short; a round of more
  than KEPT_LOOP_BODY instructions (its FFMA and scalar shared reads) stays a loop in the SASS, and `merge`
  sees one round at a time. Found on nvcc 13 for every architecture: rounds of 44 (register, TM=4, TN=8:
  As merged across rounds into LDS.128) are unrolled; rounds of 65 (blocktile1d, TM=32: 32 FFMA, 33 LDS)
  and 80 (register at siboehm's runner shape, TM=TN=8) are kept, their As reads scalar. The bound is
  somewhere in 45-64; 48 is fitted, not read from ptxas, and tests/unit/test_sass_model.py holds it.
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
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import gcd
from typing import Any

import numpy as np

from .matrices import operands
from .trace import Access, Step
from .warps import INACTIVE

WIDTH_SUFFIX = {1: "", 2: ".64", 4: ".128"}
SHARED = {"load": "LDS", "store": "STS"}
GLOBAL = {"load": "LDG.E", "store": "STG.E"}
ASYNC_COPY = "LDGSTS.E"
KEPT_LOOP_BODY = 48  # the `kept-loop` rule's bound, instructions in one round of the dotIdx loop
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
    present = sorted(set(offsets))
    taken: set[int] = set()
    runs: list[tuple[int, int]] = []
    for offset in present:
        if offset in taken:
            continue
        for width in (4, 2, 1):
            run = range(offset, offset + width)
            if width == 1 or (alignment % width == 0 and offset % width == 0 and all(o in present for o in run)):
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
    """The `kept-loop` rule: whether ptxas keeps the dotIdx loop whose one round has `ffma` FFMA and
    `reads` scalar shared reads per thread, so that no read is merged with one of another round."""
    return ffma + reads > KEPT_LOOP_BODY


def shared_mix(accesses: Sequence[Access], rounds: Sequence[int | None]) -> Counter[str]:
    """The `reuse`, `merge` and `vector-type` rules over one iteration's shared accesses of a block;
    `rounds` gives each access's round of a kept loop (`kept-loop`; None: merged with any round).

    Each access's first instruction row is read per thread; thread 0 (all of whose thread-dependent
    terms are 0) gives each access's constant offset, the others its thread-dependent part."""
    groups: dict[tuple[str, str, bytes, int | None], list[int]] = {}
    found: Counter[str] = Counter()
    for access, round_ in zip(accesses, rounds, strict=True):
        for words in access.words:
            live = words != INACTIVE
            if not live[0]:
                continue
            if access.asynchronous:  # async-copy: one LDGSTS per row, at its width
                found[instruction_class(ASYNC_COPY, access.width)] += 1
                continue
            if access.width > 1:  # vector-type: written as float4, issued as one 128-bit access
                found[instruction_class(SHARED[access.op], access.width)] += _select_stores(access)
                continue
            offset = int(words[0])
            part = np.where(live, words - offset, 0).astype(np.int64)
            groups.setdefault((access.array, access.op, part.tobytes(), round_), []).append(offset)
    for (_, op, raw, _), offsets in groups.items():
        alignment = alignment_of(np.frombuffer(raw, dtype=np.int64).tolist())
        for _, width in merged_runs(offsets, alignment):
            found[instruction_class(SHARED[op], width)] += 1
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


def model_mix(kernel: Any, params: Any) -> Mix:
    """The instruction mix pysim predicts for one main-loop iteration, per thread, and the stores after it."""
    lines = kernel.source(params)
    skipped = set(runtime_loop_lines(lines))
    first, after = iteration_steps(kernel, params)
    kept = [step for step in first if not skipped.intersection(step.lines)]
    threads = kernel.threads(params)
    shared = [(access, step.k) for step in kept for access in step.accesses if access.space == "shared"]
    first_round = [step for step in kept if step.k == 0]
    reads = sum(a.rows.shape[0] for s in first_round for a in s.accesses if a.space == "shared" and a.op == "load")
    kept_loop = keeps_loop(_fma_per_thread(first_round, threads), reads)
    mix = Counter({"FFMA": _fma_per_thread(kept, threads), TENSOR_CORE: _mma_per_thread(kept, threads)})
    mix += shared_mix([a for a, _ in shared], [k if kept_loop else None for _, k in shared])
    if getattr(params, "split", 1) == 3:
        mix["FADD"] += sum(len(a.words) for a, _ in shared if a.op == "load")
    mix += global_mix([a for step in kept if not _copies(step) for a in step.accesses if a.space == "global"])
    stores = global_mix([a for step in after for a in step.accesses if a.space == "global"])
    return Mix(_plain(mix), _plain(stores), tuple(sorted(skipped)))


def _copies(step: Step) -> bool:
    """A step of cp.async copies: its global loads are the LDGSTS's (`async-copy`), no LDG of their own."""
    return any(access.asynchronous for access in step.accesses)


def _plain(counts: Counter[str]) -> dict[str, int]:
    return {name: int(count) for name, count in sorted(counts.items()) if count}
