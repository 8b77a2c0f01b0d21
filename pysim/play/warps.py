"""The warp primitives' results: the lanes of a warp that reach one call together, their masks checked.

A thread reaching `cuda.shfl_down_sync(...)` (and the other primitives, `pysim.play.calls`) parks with its
request `(line, call, vector, kind, mask, value, argument)`. When every thread of the block has run until it
parked, waits at a barrier or ended, each warp's earliest parked call instance (same call, same iteration of
the loops around it: the converged schedule of `pysim.play.counting`) is resolved: its lanes are the ones
that execute it together, and each gets its result as the PTX ISA defines it (`shfl.sync`, `vote.sync`,
`bar.warp.sync`):

- `shfl_sync(mask, v, src)` reads lane `src` (`src mod 32` when outside 0..31, as `shfl.sync.idx` with
  c = 0x1f does, and a diagnostic); `shfl_up_sync`/`shfl_down_sync` read lane ∓ delta and
  `shfl_xor_sync` lane ^ m, and a lane whose source lies outside the warp keeps its own value;
- `ballot_sync` sets bit i for every lane i of the mask that takes part with a true predicate;
  `all_sync`/`any_sync` combine the same predicates.

A lane that executes a primitive with its own bit missing from the mask, a mask naming a lane that does not
execute the call with it, or a shuffle reading a lane that takes no part is undefined behaviour on a GPU
(PTX ISA: "the behavior is undefined if the executing thread is not in the membermask"; compute-sanitizer's
synccheck reports it): each is a diagnostic with the line, and the run goes on (such a read gives the
reader's own value).
"""

from __future__ import annotations

from typing import Any

from .intrinsics import COLLECTIVES, FULL_MASK, SHUFFLES, WARP_SIZE
from .runtime import KernelError, Vectors

Request = tuple[int, int, int, int, Any, Any, Any]  # line, call, vector, kind, mask, value, argument
Problem = tuple[int, int, str]  # line, thread (linear in the block), message


class WarpError(KernelError):
    """A warp primitive's argument no GPU could take (a mask or lane that is not a whole number)."""

    def __init__(self, line: int, thread: int, message: str) -> None:
        super().__init__(message)
        self.line, self.thread = line, thread


def resolve(
    parked: dict[int, Request], vectors: Vectors, problems: list[Problem], synced: dict[int, int]
) -> dict[int, Any]:
    """For each warp with parked lanes, the earliest call instance's lanes and what each receives; the
    resolved lanes leave `parked`. A lane resolved at a `syncwarp` goes into `synced` with the lanes (a
    bitmask) it is ordered with there (`pysim.play.warp_order`)."""
    warps: dict[int, dict[tuple[int, int], list[int]]] = {}
    for thread, request in parked.items():
        warps.setdefault(thread // WARP_SIZE, {}).setdefault((request[1], request[2]), []).append(thread)
    numbered = vectors.by_number()
    sends: dict[int, Any] = {}
    for instances in warps.values():
        # The earliest: fewest loop iterations done, then the call first in the source.
        call, vector = min(instances, key=lambda key: (numbered[key[1]], key[0]))
        threads = instances[(call, vector)]
        sends.update(_results({t % WARP_SIZE: parked.pop(t) for t in threads}, threads[0], problems, synced))
    return sends


def tally(waiting: dict[int, int], instances: dict[int, int], votes: dict[int, tuple]) -> dict[int, int]:
    """What `cuda.syncthreads_count(p)` (how 0), `_and` (1) and `_or` (2) return to each thread waiting at
    one: over the threads that wait at the same barrier instance (those that ended take no part, as a
    barrier waits only for threads that have not exited)."""
    groups: dict[tuple[int, int], list[int]] = {}
    for thread, vote in votes.items():
        if vote:
            groups.setdefault((waiting[thread], instances[thread]), []).append(thread)
    found: dict[int, int] = {}
    for threads in groups.values():
        true = sum(bool(votes[t][1]) for t in threads)
        how = votes[threads[0]][0]
        result = true if how == 0 else int(true == len(threads)) if how == 1 else int(true > 0)
        found.update(dict.fromkeys(threads, result))
    return found


def _mask(value: Any, line: int, thread: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise WarpError(line, thread, f"the mask of {name} at line {line} must be a whole number (got {value!r})")
    return value & FULL_MASK  # Numba passes it as a uint32


def _results(
    requests: dict[int, Request], first: int, problems: list[Problem], synced: dict[int, int]
) -> dict[int, Any]:
    """Each lane's result of one call instance (lanes -> requests), as linear thread ids -> results."""
    base = first - first % WARP_SIZE
    line, kind = next(iter(requests.values()))[0], next(iter(requests.values()))[3]
    name = f"cuda.{COLLECTIVES[kind]}"
    active = set(requests)
    masks = {lane: _mask(request[4], line, base + lane, name) for lane, request in requests.items()}
    for lane, mask in masks.items():
        if not mask >> lane & 1:
            problems.append(
                (line, base + lane, f"lane {lane} runs {name} at line {line} with mask {mask:#x}, which leaves it out")
            )
        absent = [other for other in range(WARP_SIZE) if mask >> other & 1 and other not in active]
        if absent:
            shown = ", ".join(map(str, absent[:4])) + (f" and {len(absent) - 4} more" if len(absent) > 4 else "")
            problems.append(
                (
                    line,
                    base + lane,
                    f"the mask {mask:#x} of {name} at line {line} names lane(s) {shown}, which do not run it with "
                    f"lane {lane} (they ended, wait elsewhere, or the block has no such thread): undefined on a GPU",
                )
            )
    found: dict[int, Any] = {}
    for lane, request in requests.items():
        mine = {other for other in active if masks[lane] >> other & 1}
        if COLLECTIVES[kind] in SHUFFLES:
            found[base + lane] = _shuffle(COLLECTIVES[kind], lane, request, requests, mine, problems, base, name)
        elif COLLECTIVES[kind] == "ballot_sync":
            found[base + lane] = sum(1 << other for other in mine if requests[other][5])
        elif COLLECTIVES[kind] == "all_sync":
            found[base + lane] = all(requests[other][5] for other in mine)
        elif COLLECTIVES[kind] == "any_sync":
            found[base + lane] = any(requests[other][5] for other in mine)
        else:  # syncwarp: ordered with the lanes that name it in their masks and that it names in its own
            found[base + lane] = None
            synced[base + lane] = sum(1 << other for other in mine if masks[other] >> lane & 1)
    return found


def _shuffle(
    kind: str,
    lane: int,
    request: Request,
    requests: dict[int, Request],
    mine: set[int],
    problems: list[Problem],
    base: int,
    name: str,
) -> Any:
    line, value, argument = request[0], request[5], request[6]
    if isinstance(argument, bool) or not isinstance(argument, int):
        raise WarpError(
            line, base + lane, f"the lane argument of {name} at line {line} must be a whole number (got {argument!r})"
        )
    if not 0 <= argument < WARP_SIZE:
        what = "source lane" if kind == "shfl_sync" else "lane offset"
        problems.append((line, base + lane, f"{name} at line {line}: {what} {argument} is outside 0..31"))
    if kind == "shfl_sync":
        source = argument & (WARP_SIZE - 1)  # shfl.sync.idx with c = 0x1f: the lane's low five bits
    elif kind == "shfl_up_sync":
        source = lane - argument if 0 <= argument else WARP_SIZE
    elif kind == "shfl_down_sync":
        source = lane + argument if 0 <= argument else WARP_SIZE
    else:
        source = lane ^ argument if 0 <= argument else WARP_SIZE
    if not 0 <= source < WARP_SIZE:
        return value  # outside the warp: the lane keeps its own value (PTX: the predicate is false)
    if source not in mine:
        problems.append(
            (
                line,
                base + lane,
                f"lane {lane} reads lane {source} in {name} at line {line}, but lane {source} takes "
                "no part in it (not in the mask, or not running it): undefined on a GPU, here the lane's own value",
            )
        )
        return value
    return requests[source][5]
