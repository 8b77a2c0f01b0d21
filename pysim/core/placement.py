"""The `placement` rule: where nvcc's shared-read widths are not the `merge` rule's (pysim.core.instructions),
whatever the loop's length, because the compiler knows less about an address than the launch does.

`merge` takes every shared array as 16-byte aligned and a thread's part of an address as the launched threads
give it. nvcc places a block's static shared arrays one after another in declaration order (#/register at BM=3,
BK=1 reads Bs 12 bytes in, right after a 12-byte As), so an array after one whose size is not a multiple of 16
bytes starts off a 16-byte boundary; and it compiles for any block size, so a thread term that is 0 in every
launched thread (ty = threadIdx.x / (BN/TN) with one row of threads) still has its coefficient's alignment for
it. Measured with nvcc 13.5 for sm_80 on 240 random register-tiled parameter sets whose dotIdx loop is short (BM, BN
1-16, BK 1-8, any TM and TN dividing them): the model's widths differed at 46; this rule names 44 of them (and 43
of the 194 where they agreed: it says "may"). The other two are other rules' misses, seen and not modelled: a round
of 63 FFMA and reads that nvcc unrolled (`kept-loop` keeps rounds over 48), and three consecutive words read as one
LDS.128, a word past the array. tests/unit/test_placement.py holds the rule to nvcc at sets of both kinds. Not
modelled: `unsure` says where it applies, and the pages then say the widths are the model's.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from .constants import WORD_BYTES
from .instructions import RUNTIME, first_tile_steps, merged_reads, widths_unsure

# Why a question about a shared read's width, or what depends on it, is not asked (`kept-loop-base`).
LONG_LOOP = (
    "at these sizes the dotIdx loop is long, nvcc may keep it as a loop, and then the widths it gives the shared "
    "reads (and so their conflict degree) are not known in advance"
)


def widths_reason(kernel: Any, params: Any) -> str:
    """Why nvcc's shared-read widths may not be the model's here (`kept-loop-base`, then `placement`), or ""."""
    return LONG_LOOP if widths_unsure(kernel, params) else unsure(kernel, params)


@lru_cache(maxsize=256)
def unsure(kernel: Any, params: Any) -> str:
    """Why nvcc's widths may not be the model's at these parameters (`placement`), or "" (they are, as far as
    this rule knows). The presets' tiles are exempt: tests/unit/test_sass_model.py holds them to nvcc's."""
    values = {name: value for name, value in params.as_strings().items() if name not in RUNTIME}
    presets = kernel.PARAMS.PRESETS.values()
    if any(values == {k: str(v) for k, v in preset.items() if k not in RUNTIME} for preset in presets):
        return ""
    merged = merged_reads(kernel, params)
    offset, before = 0, ""
    for name, array in first_tile_steps(kernel, params)[0].shared.items():  # declaration order (tile-sized)
        # Off a boundary of the widest access the model gives the array's reads (an LDS.64 needs 8 bytes only).
        widths = [width for read, width, _ in merged if read == name and offset % width]
        if widths:
            return (
                f"{before} takes {offset * WORD_BYTES} bytes, so nvcc places {name} right after it, off "
                f"{'an' if max(widths) == 2 else 'a'} {max(widths) * WORD_BYTES}-byte boundary, and may give its "
                "reads other widths than pysim's model (and so other conflict degrees)"
            )
        offset, before = offset + array.size, name
    # A row index ty = threadIdx.x / (threads per row) is 0 in every thread of a one-row block, which nvcc cannot
    # know; a column index threadIdx.x % 1 it knows is 0, so a one-column block reads alike as the model says.
    threads = kernel.threads(params)
    one_row = len({kernel.thread_xy(params, thread)[1] for thread in range(threads)}) == 1
    uniform = " and ".join(sorted({name for name, _, same in merged if same}))
    if not (uniform and one_row):
        return ""
    who = "the block's one thread reads" if threads == 1 else "the block's threads, all in one row (ty = 0), read"
    return (
        f"{who} the same words of {uniform}, which nvcc cannot know (it compiles for any block size), so the widths "
        "it gives those reads (and so their conflict degree) may not be pysim's model's"
    )
