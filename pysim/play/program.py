"""A checked, compiled playground file: its sites, statements and allocations, and ProgramError.

The file is checked against the SPEC §5 subset by `subset`, its kernel rewritten
into a per-thread generator by `rewrite`, and both are put together by
`compiler.compile_program`; these are the records they produce, which the
runtime and the analysis read.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from .intrinsics import DTYPE_BYTES


class ProgramError(Exception):
    """The file cannot run: `line` (1-based, 0 when unknown) and a message saying why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message


def fail(node: ast.AST | None, message: str) -> ProgramError:
    """The error refusing `node`, naming its line."""
    return ProgramError(getattr(node, "lineno", 0), message)


@dataclass(frozen=True)
class Site:
    """One array subscript in the kernel, as a load or as a store."""

    number: int
    line: int
    col: int
    op: str  # load | store
    array: str  # the name the kernel uses
    fma_operand: bool = False  # a factor of a multiply-add (a register read when x is a local array)
    atomic: bool = False  # part of a cuda.atomic.* read-modify-write (no race: the hardware serialises it)


@dataclass(frozen=True)
class Statement:
    """One statement of the kernel: its line, what it is, and how many multiply-adds it holds."""

    number: int
    line: int
    end_line: int
    kind: str  # assign | augassign | atomic | if | for | next | while | barrier | return | ...
    fma: int = 0  # float products added in it (SPEC §2 `fma`): `acc += a*b + c*d` holds 2
    # The loops it is inside, outermost first, each named by its iteration statement: a `for`'s "next"
    # (recorded at the top of every iteration) or the `while` itself (whose test is evaluated every
    # iteration, so a `while` and a "next" list themselves). The analysis groups lanes by iteration.
    loops: tuple[int, ...] = ()


@dataclass(frozen=True)
class Allocation:
    """A `cuda.shared.array` or `cuda.local.array` in the kernel, with its constant shape."""

    number: int
    line: int
    name: str
    space: str  # shared | register
    shape: tuple[int, ...]
    dtype: str = "float32"  # float32 | float64 | int32 | int64 (pysim.play.intrinsics.DTYPES)
    dynamic: bool = False  # `cuda.shared.array(0, dtype)`: sized by the launch, every such array the same bytes

    @property
    def grid_shape(self) -> tuple[int, int]:
        """(rows, cols) to draw it as a matrix: a 1-D array is one row, a 3-D (a, b, c) one a·b rows of c."""
        return (self.words // self.shape[-1], self.shape[-1]) if len(self.shape) > 1 else (1, self.shape[0])

    @property
    def words(self) -> int:
        total = 1
        for extent in self.shape:
            total *= extent
        return total


@dataclass(frozen=True)
class Program:
    """A checked, compiled playground file."""

    source: str
    constants: dict[str, int | float]
    params: tuple[str, str, str]  # the kernel's names for A, B and C
    sites: tuple[Site, ...]
    statements: tuple[Statement, ...]
    allocations: tuple[Allocation, ...]
    barriers: frozenset[int]  # statement numbers of cuda.syncthreads()
    kernel_code: Any  # code object of the module that defines the generator `kernel`
    launch_code: Any  # code object of the module that defines `launch`
    # Module-level NumPy arrays the kernel reads from constant memory (pysim.play.constants.ConstantArray),
    # numbered after the allocations.
    constant_arrays: tuple[Any, ...] = ()

    @property
    def lines(self) -> list[str]:
        return self.source.splitlines()

    def shared_bytes(self) -> int:
        return sum(DTYPE_BYTES[a.dtype] * a.words for a in self.allocations if a.space == "shared")


@contextmanager
def beyond_python_is_a_refusal() -> Iterator[None]:
    """Python's own limits met while parsing, checking or compiling a file, refused as the file's fault. The
    token limits (pysim.play.tokens) keep parsing shallow; a form they do not foresee that still nests past
    the stack (or fills the memory) of Python's parser, checker or compiler gets a line, never a traceback."""
    try:
        yield
    except (RecursionError, MemoryError) as error:
        what = "nested too deeply" if isinstance(error, RecursionError) else "too large"
        raise ProgramError(0, f"the file is {what} for Python's parser and compiler; simplify it") from None
