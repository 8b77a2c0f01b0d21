"""Find nvcc and nvdisasm, compile a .cu source to a cubin for one architecture, disassemble it, with a cache.

NVIDIA publishes the compiler on PyPI (`nvidia-cuda-nvcc`: nvcc, ptxas; `nvidia-cuda-nvdisasm`), installable
on a machine with no GPU; the wheels put the binaries in site-packages/nvidia/cu13/bin. `cuobjdump -sass` is a
wrapper that runs nvdisasm on each cubin, so we compile straight to a cubin and run `nvdisasm -g` ourselves:
the same SASS, plus the listing line of each instruction from `-lineinfo`.

The cache holds the disassembly keyed by a hash of (source, architecture, compiler version, flags), in the
user's cache folder (~/.cache/tilelab-sass, or $XDG_CACHE_HOME/tilelab-sass; TILELAB_SASS_CACHE overrides),
so a second test run compiles nothing. It is never committed.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable
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
    text = "\0".join((job.source, job.arch, compiler_version(), *FLAGS))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _nvcc_errors(stderr: str) -> str:
    """nvcc's error lines (ptxas says `ptxas error`, the front end `error:`), else its whole message."""
    lines = [line.strip() for line in stderr.splitlines() if "error" in line.lower()]
    return "\n".join(lines) if lines else stderr.strip()


def _compile(job: Job) -> str:
    """nvdisasm -g's text of the job's cubin (compiled in a temporary folder; the file is kernel.cu)."""
    with tempfile.TemporaryDirectory(prefix="tilelab-sass-") as folder:
        cu, cubin = Path(folder) / "kernel.cu", Path(folder) / "kernel.cubin"
        cu.write_text(job.source)
        done = subprocess.run(
            [tool("nvcc"), *FLAGS, f"-arch={job.arch}", "-o", str(cubin), str(cu)], capture_output=True, text=True
        )
        if done.returncode:
            raise CompileError(f"nvcc -arch={job.arch}: {_nvcc_errors(done.stderr)}")
        shown = subprocess.run([tool("nvdisasm"), "-g", "-c", str(cubin)], capture_output=True, text=True, check=True)
        return shown.stdout


def disassemble(job: Job) -> str:
    """The job's disassembly, from the cache when it holds it (a refusal is cached too, as nvcc's lines)."""
    path = cache_dir() / f"{cache_key(job)}.sass"
    failed = path.with_suffix(".error")
    if path.is_file():
        return path.read_text()
    if failed.is_file():
        raise CompileError(failed.read_text())
    try:
        text = _compile(job)
    except CompileError as error:
        _write(failed, str(error))
        raise
    _write(path, text)
    return text


def _write(path: Path, text: str) -> None:
    """Write through a temporary name, so a parallel run never reads half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    partial.write_text(text)
    partial.replace(path)


def disassemble_all(jobs: Iterable[Job]) -> list[str | CompileError]:
    """Each job's disassembly or its CompileError, in order, compiling JOBS at a time."""

    def one(job: Job) -> str | CompileError:
        try:
            return disassemble(job)
        except CompileError as error:
            return error

    with ThreadPoolExecutor(max_workers=JOBS) as pool:
        return list(pool.map(one, jobs))
