"""Find nvcc and nvdisasm, compile a .cu source to a cubin for one architecture, disassemble it, with a cache.

NVIDIA publishes the compiler on PyPI (`nvidia-cuda-nvcc`: nvcc, ptxas; `nvidia-cuda-nvdisasm`), installable
on a machine with no GPU; the wheels put the binaries in site-packages/nvidia/cu13/bin. `cuobjdump -sass` is a
wrapper that runs nvdisasm on each cubin, so we compile straight to a cubin and run `nvdisasm -g` ourselves:
the same SASS, plus the listing line of each instruction from `-lineinfo`.

The cache holds the disassembly keyed by a hash of (source, architecture, compiler version, flags), in the
user's cache folder (~/.cache/tilelab-sass, or $XDG_CACHE_HOME/tilelab-sass; TILELAB_SASS_CACHE overrides),
so a second test run compiles nothing. It is never committed.

A sweep compiles many listings for one architecture in one nvcc run (`BATCH` at a time): nvcc's start-up is
most of a compile (1.9 s for one listing, 2.9 s for twenty on the test machine), so one file holds them all,
each in its own namespace (`namespace tl7 {`) after `#line 1`, so that its line numbers stay the listing's;
the disassembly is cut back into one text per listing (its `.text._ZN3tl7...` section). Branch labels are
numbered per file by nvdisasm, so every text's labels are renumbered in order of first mention
(`canonical_labels`): a listing's text is the same whether it was compiled alone or in a batch.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ARCHS = ("sm_75", "sm_80", "sm_86", "sm_89", "sm_90")
"""The device presets' architectures (Turing T4, A100, RTX A6000 / 3090, L4 / RTX 4090, H100)."""

PACKAGES = ("nvidia-cuda-nvcc", "nvidia-cuda-nvdisasm")
INSTALL = f"{Path(sys.executable).name} -m pip install {' '.join(PACKAGES)}"
FLAGS = ("-cubin", "-lineinfo", "-O3")
JOBS = 2  # the test machines have two cores; nvcc is single-threaded
BATCH = 32  # listings per nvcc run: start-up amortised, and a refused batch (compiled one by one) stays cheap
FORMAT = "2"  # the cached text's shape (2: labels renumbered); a new shape must not read old entries
SECTION = re.compile(r"^//-+ \.text\._ZN(\d+)(tl\w+)")  # _ZN4tl1215sgemm...: "tl12" is the first 4
LABEL = re.compile(r"\.L_x_\d+")


class MissingToolchainError(RuntimeError):
    """nvcc or nvdisasm is not installed; the message is the command that installs them."""


class CompileError(RuntimeError):
    """nvcc refused the source; the message is nvcc's own error line(s)."""


@dataclass(frozen=True)
class Job:
    source: str  # the whole .cu file
    arch: str  # "sm_80"


def _wheel_bins() -> list[Path]:
    """site-packages/nvidia/cu*/bin of every import path (where PyPI's NVIDIA wheels install)."""
    found = []
    for entry in sys.path:
        base = Path(entry or ".") / "nvidia"
        if base.is_dir():
            found += sorted(base.glob("cu*/bin"))
    return found


@cache
def tool(name: str) -> str:
    """The path of nvcc or nvdisasm; MissingToolchainError says how to install it."""
    for folder in _wheel_bins():
        if (folder / name).is_file():
            return str(folder / name)
    on_path = shutil.which(name)
    if on_path:
        return on_path
    raise MissingToolchainError(f"{name} not found; the SASS checks need NVIDIA's compiler, installed by: {INSTALL}")


@cache
def compiler_version() -> str:
    done = subprocess.run([tool("nvcc"), "--version"], capture_output=True, text=True, check=True)
    return done.stdout.strip().splitlines()[-1]


def cache_dir() -> Path:
    override = os.environ.get("TILELAB_SASS_CACHE")
    if override:
        return Path(override)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tilelab-sass"


def cache_key(job: Job) -> str:
    text = "\0".join((job.source, job.arch, compiler_version(), FORMAT, *FLAGS))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _nvcc_errors(stderr: str) -> str:
    """nvcc's error lines (ptxas says `ptxas error` or `ptxas fatal`, the front end `error:`), else its whole
    message. A fatal line is kept whole: "(C7602) Insufficient registers (128) ... register target of 146"."""
    lines = [line.strip() for line in stderr.splitlines() if "error" in line.lower() or "fatal" in line.lower()]
    return "\n".join(lines) if lines else stderr.strip()


def _nvcc(source: str, arch: str) -> str:
    """nvdisasm -g's text of the source's cubin (compiled in a temporary folder; the file is kernel.cu)."""
    with tempfile.TemporaryDirectory(prefix="tilelab-sass-") as folder:
        cu, cubin = Path(folder) / "kernel.cu", Path(folder) / "kernel.cubin"
        cu.write_text(source)
        done = subprocess.run(
            [tool("nvcc"), *FLAGS, f"-arch={arch}", "-o", str(cubin), str(cu)], capture_output=True, text=True
        )
        if done.returncode:
            raise CompileError(f"nvcc -arch={arch}: {_nvcc_errors(done.stderr)}")
        shown = subprocess.run([tool("nvdisasm"), "-g", "-c", str(cubin)], capture_output=True, text=True, check=True)
        return shown.stdout


def canonical_labels(text: str) -> str:
    """The text with its branch labels renumbered .L_x_0, .L_x_1, ... in order of first mention."""
    names: dict[str, str] = {}
    return LABEL.sub(lambda match: names.setdefault(match.group(0), f".L_x_{len(names)}"), text)


def _compile(job: Job) -> str:
    return canonical_labels(_nvcc(job.source, job.arch))


def batch_source(jobs: Sequence[Job]) -> str:
    """One file holding every job's listing, each in namespace tl<i>, its lines numbered from 1."""
    return "".join(f'namespace tl{i} {{\n#line 1 "kernel.cu"\n{job.source}}}\n' for i, job in enumerate(jobs))


def split(text: str, count: int) -> list[str]:
    """The batch's disassembly cut into each job's text: the file's header, then the job's sections."""
    header: list[str] = []
    sections: list[list[str]] = [[] for _ in range(count)]
    current: list[str] | None = header
    for row in text.splitlines(keepends=True):
        if row.startswith("//--"):
            match = SECTION.match(row)
            current = sections[int(match.group(2)[2 : int(match.group(1))])] if match else None
        if current is not None:
            current.append(row)
    return [canonical_labels("".join(header + rows)) for rows in sections]


def _compile_batch(jobs: Sequence[Job]) -> list[str | CompileError]:
    """Every job's text from one nvcc run; if nvcc refuses the batch, each job alone (so a refusal is
    reported for the listing it belongs to, with nvcc's line)."""
    try:
        return list(split(_nvcc(batch_source(jobs), jobs[0].arch), len(jobs)))
    except CompileError:
        return [_attempt(_compile, job) for job in jobs]


def _attempt(compile_one: Callable[[Job], str], job: Job) -> str | CompileError:
    try:
        return compile_one(job)
    except CompileError as error:
        return error


def disassemble(job: Job) -> str:
    """The job's disassembly, from the cache when it holds it (a refusal is cached too, as nvcc's lines)."""
    found = _cached(job)
    if found is None:
        found = _attempt(_compile, job)
        _store(job, found)
    if isinstance(found, CompileError):
        raise found
    return found


def _cached(job: Job) -> str | CompileError | None:
    path = cache_dir() / f"{cache_key(job)}.sass"
    if path.is_file():
        return path.read_text()
    failed = path.with_suffix(".error")
    return CompileError(failed.read_text()) if failed.is_file() else None


def _store(job: Job, found: str | CompileError) -> None:
    path = cache_dir() / f"{cache_key(job)}.sass"
    if isinstance(found, CompileError):
        _write(path.with_suffix(".error"), str(found))
    else:
        _write(path, found)


def _write(path: Path, text: str) -> None:
    """Write through a temporary name, so a parallel run never reads half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial.write_text(text)
    partial.replace(path)


def batches(jobs: Sequence[Job]) -> list[list[Job]]:
    """The jobs not in the cache, grouped by architecture, BATCH at a time (a listing compiled once)."""
    by_arch: dict[str, list[Job]] = {}
    for job in dict.fromkeys(jobs):
        if _cached(job) is None:
            by_arch.setdefault(job.arch, []).append(job)
    return [group[i : i + BATCH] for group in by_arch.values() for i in range(0, len(group), BATCH)]


def _fill(group: Sequence[Job]) -> None:
    """Compile the group into the cache, unless another process holds its lock (then wait for it, and
    compile only what it left out): two pytest-xdist workers sweeping the same cases share the work."""
    lock = cache_dir() / f"{hashlib.sha256(repr(group).encode()).hexdigest()[:32]}.lock"
    lock.parent.mkdir(parents=True, exist_ok=True)
    with lock.open("w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        missing = [job for job in group if _cached(job) is None]
        if missing:
            for job, found in zip(missing, _compile_batch(missing), strict=True):
                _store(job, found)


def disassemble_all(jobs: Iterable[Job], reverse: bool = False, parallel: int = JOBS) -> list[str | CompileError]:
    """Each job's disassembly or its CompileError, in order: the uncached ones compiled in batches,
    `parallel` batches at a time (`reverse` takes them last first: a second process sweeping the same jobs meets the
    first in the middle instead of waiting on it)."""
    wanted = list(jobs)
    groups = batches(wanted)
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        list(pool.map(_fill, groups[::-1] if reverse else groups))
    return [_attempt(disassemble, job) for job in wanted]
