"""The file's `launch(M, N, K)`: called on 64-bit integers and checked against the limits of a launch.

A launch that cannot run (a block past THREAD_LIMIT, a grid past CUDA's, more threads in all than the
playground simulates, too much shared memory) is a `ProgramError`: the file cannot run at all.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from types import TracebackType
from typing import Any

from .intrinsics import DTYPE_BYTES
from .limits import BLOCK_LIMITS, GRID_LIMITS, INT_LIMIT, SHARED_LIMIT_BYTES, THREAD_LIMIT, TOTAL_THREAD_LIMIT
from .program import Program, ProgramError


@dataclass(frozen=True)
class Launch:
    """What `launch(M, N, K)` returned: grid and block as (x, y), or (x, y, z) when their z extent passes 1
    (so a 2-D launch reads, prints and serialises as it always did)."""

    grid: tuple[int, ...]
    block: tuple[int, ...]
    dynamic_bytes: int = 0  # dynamic shared memory per block: launch()'s fourth item, Numba's kernel[g, b, 0, n]

    @property
    def block3(self) -> tuple[int, int, int]:
        return _three(self.block)

    @property
    def grid3(self) -> tuple[int, int, int]:
        return _three(self.grid)

    @property
    def threads(self) -> int:
        x, y, z = self.block3
        return x * y * z

    @property
    def blocks(self) -> int:
        x, y, z = self.grid3
        return x * y * z


def _three(dims: tuple[int, ...]) -> tuple[int, int, int]:
    return dims[0], dims[1], dims[2] if len(dims) == 3 else 1


def _dims(value: Any, what: str) -> tuple[int, ...]:
    items = value if isinstance(value, tuple) else (value,)
    if not 1 <= len(items) <= 3 or any(isinstance(v, bool) or not isinstance(v, int) for v in items):
        raise ProgramError(
            0, f"launch() must return ({what}) as a whole number or a tuple of two or three (got {value!r})"
        )
    if any(v < 1 for v in items):
        raise ProgramError(0, f"every {what} dimension must be at least 1 (got {value!r})")
    x, y, z = (*items, 1, 1)[:3]
    return (x, y) if z == 1 else (x, y, z)


def launch_int(value: Any) -> Any:
    """`value`, refused when it is an integer past ±INT_LIMIT: launch()'s arithmetic goes through it (the
    compiler wraps each operation in `_pl_int`), so a chain of `x = x * x` cannot freeze the page."""
    if value.__class__ is int and not -INT_LIMIT <= value < INT_LIMIT:
        raise OverflowError(f"an integer of {value.bit_length():,} bits does not fit in 64 bits (±2**63)")
    return value


def evaluate_launch(program: Program, M: int, N: int, K: int) -> Launch:
    """Call the file's `launch(M, N, K)` and check the shape it asks for (ProgramError if it cannot run)."""
    namespace: dict[str, Any] = {"__builtins__": {}, "min": min, "max": max, "abs": abs, "int": int}
    namespace["_pl_int"] = launch_int
    namespace.update(program.constants)
    exec(program.launch_code, namespace)
    try:
        returned = namespace["launch"](M, N, K)
    except Exception as error:  # noqa: BLE001 - a student's launch() may fail in any way
        raise ProgramError(
            error_line(error), f"launch({M}, {N}, {K}) failed: {type(error).__name__}: {error}"
        ) from None
    if not (isinstance(returned, tuple) and len(returned) in (2, 4)):
        raise ProgramError(0, f"launch() must return (grid, block), got {returned!r}")
    launch = Launch(_dims(returned[0], "grid"), _dims(returned[1], "block"), _dynamic(returned[2:]))
    if launch.threads > THREAD_LIMIT:
        raise ProgramError(
            0,
            f"launch({M}, {N}, {K}) asks for {launch.threads:,} threads per block; a block holds at most {THREAD_LIMIT:,}",
        )
    for axis, size, limit in zip("xyz", launch.block3, BLOCK_LIMITS):
        if size > limit:
            raise ProgramError(
                0,
                f"launch({M}, {N}, {K}) asks for a block of {launch.block}: blockDim.{axis} = {size:,}, "
                f"but CUDA allows at most {limit:,}",
            )
    for axis, size, limit in zip("xyz", launch.grid3, GRID_LIMITS):
        if size > limit:
            raise ProgramError(
                0,
                f"launch({M}, {N}, {K}) asks for a grid of {launch.grid}: gridDim.{axis} = {size:,}, "
                f"but CUDA allows at most {limit:,}",
            )
    if launch.threads * launch.blocks > TOTAL_THREAD_LIMIT:
        raise ProgramError(
            0,
            f"launch({M}, {N}, {K}) asks for {launch.threads * launch.blocks:,} threads in all "
            f"({launch.blocks:,} blocks of {launch.threads:,}); the playground simulates at most "
            f"{TOTAL_THREAD_LIMIT:,}, one by one",
        )
    dynamic = [a for a in program.allocations if a.dynamic]
    if dynamic and not launch.dynamic_bytes:
        raise ProgramError(
            dynamic[0].line,
            "the kernel declares dynamic shared memory (a shape of 0): launch() returns (grid, block, 0, bytes)",
        )
    shared = program.shared_bytes() + launch.dynamic_bytes
    if shared > SHARED_LIMIT_BYTES:
        raise ProgramError(
            0, f"the kernel asks for {shared:,} bytes of shared memory; a block may have at most {SHARED_LIMIT_BYTES:,}"
        )
    return launch


def _dynamic(extra: tuple[Any, ...]) -> int:
    """The dynamic shared bytes of launch()'s (grid, block, stream, bytes): the stream must be 0 (the default)."""
    if not extra:
        return 0
    stream, size = extra
    if stream != 0 or isinstance(size, bool) or not isinstance(size, int) or size < 0:
        raise ProgramError(0, f"launch() returns (grid, block, 0, shared bytes): got stream {stream!r}, bytes {size!r}")
    return size


def sized(program: Program, launch: Launch) -> Program:
    """`program` with its dynamic shared arrays (shape 0) given the launch's size: as many elements as fit."""
    if not launch.dynamic_bytes:
        return program
    allocations = tuple(
        replace(a, shape=(launch.dynamic_bytes // DTYPE_BYTES[a.dtype],)) if a.dynamic else a
        for a in program.allocations
    )
    return replace(program, allocations=allocations)


def error_line(error: BaseException) -> int:
    """The student's line where `error` was raised (the deepest frame of the kernel file), 0 if none."""
    line = 0
    trace: TracebackType | None = error.__traceback__
    while trace is not None:
        if trace.tb_frame.f_code.co_filename == "<kernel>":
            line = trace.tb_lineno
        trace = trace.tb_next
    return line


def _coordinates(dims: tuple[int, ...], number: int) -> tuple[int, ...]:
    x, y, _ = _three(dims)
    found = (number % x, number // x % y, number // (x * y))
    return found if len(dims) == 3 else found[:2]


def _linear(dims: tuple[int, ...], point: tuple[int, ...]) -> int:
    x, y, _ = _three(dims)
    return point[0] + point[1] * x + (point[2] * x * y if len(point) == 3 else 0)


def thread_xy(launch: Launch, thread: int) -> tuple[int, ...]:
    """A linear thread id as (tx, ty), or (tx, ty, tz) in a 3-D block: the CUDA C++ Programming Guide, "Thread
    Hierarchy": the thread of index (x, y, z) in a block of (Dx, Dy, Dz) has ID x + y·Dx + z·Dx·Dy, and warps
    take consecutive IDs ("SIMT Architecture"), so warps fill x, then y, then z."""
    return _coordinates(launch.block, thread)


def linear_thread(launch: Launch, thread: tuple[int, ...]) -> int:
    """thread_xy's inverse."""
    return _linear(launch.block, thread)


def block_xy(launch: Launch, number: int) -> tuple[int, ...]:
    """A linear block number as (bx, by), or (bx, by, bz) in a 3-D grid (x fastest, as the scheduler runs them)."""
    return _coordinates(launch.grid, number)


def block_number(launch: Launch, block: tuple[int, ...]) -> int:
    """block_xy's inverse."""
    return _linear(launch.grid, block)
