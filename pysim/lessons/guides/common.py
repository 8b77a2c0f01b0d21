"""Moments every stepping kernel has, computed from its trace and closed-form counters.

Each builder returns a Moment, or a Skipped saying why the question has no answer at these
sizes. Block totals come from the kernel's closed forms (pysim.kernels, checkpoints.block_loads),
a warp's sectors and banks from pysim.core.lanes on the step's recorded access, a thread's cells
from that access: the guide restates no formula.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from typing import Any

from ...core import lanes
from ...core.constants import WARP_SIZE
from ...core.counters import Counters
from ...core.placement import LONG_LOOP, widths_reason
from ...core.trace import Access, Step, Trace
from ...hardware.params import ParamError
from .. import checkpoints
from .model import Choice, Moment, Skipped, Task

Entry = Moment | Skipped


@dataclass(frozen=True)
class Run:
    """A kernel's trace at the sizes on screen, and how the page names its threads and blocks."""

    kernel: Any
    params: Any
    trace: Trace

    @classmethod
    def of(cls, kernel: Any, params: Any) -> Run:
        return cls(kernel, params, Trace(kernel, params))

    def thread_name(self, thread: int) -> str:
        """As the view's thread menu writes it: "thread (1,2)", or "lane 3 of warp 0" for warptiling."""
        x, y = self.kernel.thread_xy(self.params, thread)
        return f"lane {x} of warp {y}" if self.kernel.NAME in ("warptile", "pipelined", "mma") else f"thread ({x},{y})"

    def block_steps(self, number: int) -> range:
        first = self.trace.first_step(number)
        return range(first, first + self.trace.steps_per_block)

    def find(self, test: Callable[[Step], bool], number: int = 0, start: int = 0) -> int | None:
        """The first step of block `number`, from local step `start` on, that passes `test`."""
        steps = self.block_steps(number)
        return next((i for i in steps[start:] if test(self.trace[i])), None)

    @property
    def rounds(self) -> int:
        """dotIdx rounds per tile step (T for the smem kernel, BK for the blocktiled ones)."""
        return getattr(self.params, "BK", getattr(self.params, "T", 1))


def accessing(array: str, space: str, op: str) -> Callable[[Step], bool]:
    return lambda step: any((a.array, a.space, a.op) == (array, space, op) for a in step.accesses)


def access_of(step: Step, array: str, space: str, op: str) -> Access:
    return next(a for a in step.accesses if (a.array, a.space, a.op) == (array, space, op))


def moment(run: Run, key: str, step: int, reveal: int, kind: str, question: str, answer, why: str, **more) -> Moment:
    """A Moment whose hidden counters also include any whose value on screen at `step` equals a number
    answer (a coincidence the student could read off), so the answer is never shown before it is given."""
    hidden = list(more.pop("hidden", ()))
    if kind == "number":
        shown: Counters = run.trace[step].counters
        hidden += [f.name for f in fields(shown) if getattr(shown, f.name) == answer and f.name not in hidden]
    return Moment(key, step, reveal, kind, question, answer, why, tuple(f"counter-{h}" for h in hidden), **more)


def block_loads(run: Run, key: str, why: str) -> Entry:
    """Global loads of the second block (the first when only one launches), asked at its first step."""
    asked = checkpoints.block_loads(run.kernel, run.params, run.trace)
    number = run.trace[asked.step].block_number
    bx, by = run.trace.blocks[number]
    question = f"How many global loads will block ({bx},{by}) make from its first step to its last?"
    last = run.block_steps(number)[-1]
    return moment(run, key, asked.step, last, "number", question, int(asked.answer), why, hidden=("global_loads",))


def edge_block_loads(run: Run, key: str, why: str) -> Entry:
    """Global loads of the last block, when it is cut by the matrix edge and is not the block asked before."""
    number = len(run.trace.blocks) - 1
    bx, by = run.trace.blocks[number]
    if number < 2:
        found = "only block (0,0) launches" if number == 0 else f"block ({bx},{by}) is the one asked about already"
        return Skipped(key, f"no other edge block to ask about: {found}")
    counters = run.kernel.block_counters(run.params, bx, by)
    full = run.kernel.block_counters(run.params, *run.trace.blocks[0])
    if counters.global_loads == full.global_loads:
        edge = "the matrix edge cuts it no more than block (0,0)"
        return Skipped(key, f"block ({bx},{by}) makes as many global loads as block (0,0): {edge}")
    question = (
        f"Block ({bx},{by}) lies at the edge of C. How many global loads will it make from its first step to its last?"
    )
    steps = run.block_steps(number)
    return moment(
        run, key, steps[0], steps[-1], "number", question, counters.global_loads, why, hidden=("global_loads",)
    )


def zero_fills(run: Run, key: str, why: str) -> Entry:
    """Zeros the last block writes into shared memory: every shared store that no global load fed."""
    number = len(run.trace.blocks) - 1
    bx, by = run.trace.blocks[number]
    counters = run.kernel.block_counters(run.params, bx, by)
    zeros = counters.shared_stores - counters.global_loads
    if zeros <= 0:
        return Skipped(key, f"block ({bx},{by}) writes no zeros: every tile it copies lies inside A and B")
    question = (
        f"How many zeros will block ({bx},{by}) write into shared memory in all (tile elements that lie "
        "outside A or B)?"
    )
    steps = run.block_steps(number)
    hidden = ("shared_stores", "global_loads")
    return moment(run, key, steps[0], steps[-1], "number", question, zeros, why, hidden=hidden)


def loader(access: Access) -> int | None:
    """The thread the guide follows in `access`: the last active lane of warp 0 (the view follows it
    for the question), else None."""
    active = [t for t in range(min(WARP_SIZE, access.rows.shape[1])) if access.active[:, t].any()]
    return active[-1] if active else None


def cells_of(
    run: Run, key: str, array: str, space: str, why: str, tile: int | None = None, start: int = 1, **more: str
) -> Entry:
    """The cells of `array` the followed thread touches at the first step of block 0 from local step `start`
    on (in tile step `tile` if given) that accesses it: a global load of A, a shared read into regM, a
    store of C. `more` may give `op` ("load" or "store") and `into` (the register the values enter)."""
    op, into = more.get("op", "load"), more.get("into", "")
    wanted = accessing(array, space, op)
    index = run.find(lambda step: wanted(step) and (tile is None or step.tile == tile), start=start)
    if index is None:
        return Skipped(key, f"no step of block (0,0) touches {array} here")
    access = access_of(run.trace[index], array, space, op)
    thread = loader(access)
    if thread is None:
        return Skipped(key, f"no thread of warp 0 touches {array} at that step: its cells lie outside the matrices")
    answer = frozenset((array, r, c) for r, c in access.cells(thread))
    verb = {("global", "load"): "load", ("shared", "load"): "read"}.get((space, op), "write")
    target = f" into {into}" if into else ""
    asked = before_round(run, index)
    when = {1: "at the next step", 2: "at the step after next"}.get(index - asked, f"{index - asked} steps from now")
    question = f"Click the cells of {array} that {run.thread_name(thread)} will {verb}{target} {when}."
    return moment(run, key, asked, index, "cells", question, answer, why, thread=thread)


def before_round(run: Run, index: int) -> int:
    """The step to ask at about step `index`: the one before it, or before its whole dotIdx round, since
    the view marks the followed thread's operands of the round on screen (kernel.focus) from its first step."""
    now, stop = run.trace[index], index - 1
    while stop > 0 and now.k is not None and (run.trace[stop].k, run.trace[stop].tile) == (now.k, now.tile):
        stop -= 1
    return stop


def warp_sectors(run: Run, key: str, array: str, why: str | Callable[[lanes.WarpSectors], str]) -> Entry:
    """Sectors warp 0's first load instruction of `array` touches, asked one step before it; `why` may be made
    from those sectors, where the reason depends on how the lanes fall into them."""
    index = run.find(accessing(array, "global", "load"))
    if index is None:
        return Skipped(key, f"block (0,0) never loads {array}")
    found = lanes.warp_sectors(access_of(run.trace[index], array, "global", "load"), 0)
    if not found.active:
        return Skipped(key, f"no lane of warp 0 loads {array}: its threads lie outside the matrices")
    question = (
        f"At the next step, warp 0 loads {array} from global memory ({found.active} lanes). How many 32-byte "
        "sectors will its first load instruction touch?"
    )
    hidden = ("global_sectors",)
    said = why if isinstance(why, str) else why(found)
    return moment(run, key, index - 1, index, "number", question, len(found.sectors), said, hidden=hidden)


WIDTHS_UNKNOWN = LONG_LOOP  # why a width question is not asked where the loop is long (`kept-loop-base`)


def bank_degree(run: Run, key: str, why: str) -> Entry:
    """Warp 0's conflict degree at block 0's first shared read (checkpoints.bank_degree), asked one step before."""
    asked = checkpoints.bank_degree(run.kernel, run.params, run.trace)
    if asked is None:  # withheld where the widths are unsure, else there is no shared read
        reason = widths_reason(run.kernel, run.params)
        return Skipped(key, reason or "this kernel reads nothing from shared memory")
    names = " and ".join(a.array for a in run.trace[asked.step].accesses if (a.space, a.op) == ("shared", "load"))
    question = (
        f"At the next step warp 0 reads {names} from shared memory. What conflict degree will it see: the most "
        "different words any one of the 32 banks must serve?"
    )
    hidden = ("bank_extra_cycles", "shared_wavefronts")
    return moment(run, key, asked.step - 1, asked.step, "number", question, int(asked.answer), why, hidden=hidden)


ROUND_QUESTIONS = {
    "shared_loads": "how many values will each thread read from shared memory",
    "fma": "how many multiply-adds will each thread do",
}


def per_round(run: Run, key: str, counter: str, why: str) -> Entry:
    """A thread's share of one dotIdx round (`counter` is a key of ROUND_QUESTIONS): block 0's
    closed-form count over its threads and rounds, asked at its first barrier."""
    counters = run.kernel.block_counters(run.params, *run.trace.blocks[0])
    rounds = run.params.tiles * run.rounds
    share, rest = divmod(getattr(counters, counter), run.kernel.threads(run.params) * rounds)
    assert not rest, f"{counter} is not shared evenly by the threads and rounds"
    barrier = run.find(lambda step: step.barrier)
    assert barrier is not None
    end = max(i for i in run.block_steps(0) if run.trace[i].k == 0 and run.trace[i].tile == 0)
    question = f"In the first round of the k loop (k = 0), {ROUND_QUESTIONS[counter]}?"
    return moment(run, key, barrier, end, "number", question, share, why, hidden=(counter,))


def barrier_wait(run: Run, key: str, tile: str, why: str) -> Entry:
    """When a thread that has written its element of a tile may read the tile: after the whole block wrote."""
    barrier = run.find(lambda step: step.barrier)
    if barrier is None:
        return Skipped(key, "this kernel has no barrier")
    now = Choice("now", f"at once: its own element of {tile} is written")
    warp = Choice("warp", "when the other threads of its own warp have written theirs")
    block = Choice("block", "when every thread of the block has written its element")
    # A block of one warp makes the warp's moment the block's: the warp choice would be right as well.
    choices = (now, block) if run.kernel.threads(run.params) <= WARP_SIZE else (now, warp, block)
    question = f"Every thread has issued its copy into {tile}. When may a thread start reading {tile}?"
    return moment(run, key, barrier - 1, barrier, "choice", question, "block", why, choices=choices)


def whole_run(counter: str, what: str, why: str) -> Callable[[Run, str, str], Entry]:
    """A task's question: the whole run's `counter` at the changed sizes (the kernel's closed form)."""

    def ask(run: Run, key: str, change: str) -> Entry:
        total = getattr(run.kernel.counters(run.params), counter)
        question = f"After you {change}, how many {what} will the whole run make?"
        return moment(run, key, 0, len(run.trace) - 1, "number", question, total, why, hidden=(counter,))

    return ask


def change_task(
    run: Run, key: str, candidates: list[dict[str, Any]], ask: Callable[[Run, str, str], Entry]
) -> Task | Skipped:
    """The first candidate change that is valid and changes something, and `ask`'s moment at those sizes."""
    for change in candidates:
        try:
            changed = replace(run.params, **change)
        except ParamError:
            continue
        if changed == run.params:
            continue
        instruction = "set " + ", ".join(f"{name}={value}" for name, value in change.items())
        asked = ask(Run.of(run.kernel, changed), key, instruction)
        if isinstance(asked, Moment):
            return Task(instruction, dict(change), asked)
    return Skipped(key, "no change the task suggests is valid at these sizes")
