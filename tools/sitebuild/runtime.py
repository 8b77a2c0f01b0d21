"""The runtime dist/ ships: npm's packages (Pyodide, PyScript, KaTeX), the verified NumPy wheel,
and the bytecode Pyodide compiles for them."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path

from tools.sitebuild.errors import BuildError
from tools.sitebuild.files import copy_tree, sha256
from tools.sitebuild.paths import (
    BYTECODE,
    NODE_MODULES,
    NUMPY_BYTECODE,
    PYODIDE_DIR,
    PYSCRIPT_DIST,
    PYTHON_ARCHIVE,
    ROOT,
)

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
)
LOCK_FILE = "pyodide-lock.json"  # written trimmed (trimmed_lock)


def ensure_node_modules() -> None:
    """Run `npm ci` when node_modules is missing or older than the lock file."""
    marker = NODE_MODULES / ".package-lock.json"
    lock = ROOT / "package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    print("build: node_modules missing or stale, running npm ci")
    try:
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=ROOT, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        raise BuildError(f"npm ci failed ({error}); install Node.js and npm, then retry") from error


def lock_hashes(lock_file: Path) -> dict[str, str]:
    """Each package file Pyodide's lock file names, with its sha256 (hex)."""
    packages = json.loads(lock_file.read_text())["packages"]
    return {entry["file_name"]: entry["sha256"] for entry in packages.values()}


def verify_wheels(wheel_dir: Path, lock_file: Path) -> list[Path]:
    """Return the wheels in wheel_dir, refusing any whose sha256 differs from the lock file."""
    expected = lock_hashes(lock_file)
    wheels = sorted(wheel_dir.glob("*.whl"))
    if not wheels:
        raise BuildError(f"no wheels in {wheel_dir}; NumPy for the browser is missing")
    for wheel in wheels:
        if wheel.name not in expected:
            raise BuildError(f"{wheel.name} is not listed in {lock_file}; refusing an unknown wheel")
        actual = sha256(wheel)
        if actual != expected[wheel.name]:
            raise BuildError(
                f"{wheel.name} has sha256 {actual}, but {lock_file.name} expects "
                f"{expected[wheel.name]}; restore the official wheel"
            )
    return wheels


def trimmed_lock(lock_file: Path, wheels: list[Path]) -> dict:
    """Pyodide's lock file with only the packages dist/ ships (our wheels): Pyodide downloads and parses
    the whole file at every start, 112 KB of 351 packages for the one the site loads. A shipped
    package's dependency must be shipped too, or the build fails (loadPackage would fetch a missing file)."""
    lock = json.loads(lock_file.read_text())
    names = {entry["file_name"]: name for name, entry in lock["packages"].items()}
    shipped = {names[wheel.name] for wheel in wheels}
    for name in sorted(shipped):
        missing = set(lock["packages"][name]["depends"]) - shipped
        if missing:
            raise BuildError(f"{name} depends on {', '.join(sorted(missing))}, whose wheels are not in vendor/pyodide")
    return {**lock, "packages": {name: lock["packages"][name] for name in sorted(shipped)}}


def copy_runtime(out: Path, wheels: list[Path]) -> None:
    """Pyodide (with our wheels beside its lock file, trimmed to them) and PyScript."""
    (out / "pyodide").mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(PYODIDE_DIR / name, out / "pyodide" / name)
    lock = trimmed_lock(PYODIDE_DIR / LOCK_FILE, wheels)
    (out / "pyodide" / LOCK_FILE).write_text(json.dumps(lock, separators=(",", ":")) + "\n")
    for wheel in wheels:
        shutil.copy2(wheel, out / "pyodide" / wheel.name)
    copy_tree(PYSCRIPT_DIST, out / "pyscript", skip_suffixes=(".map",))


def compile_bytecode(out: Path, numpy_wheel: Path) -> None:
    """Replace out's python_stdlib.zip by one with bytecode and add NumPy's bytecode, both
    compiled by Pyodide itself in Node (bytecode/compile.mjs). It reads our archive
    (out's tilelab.zip) to see what a session imports."""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        shutil.copy2(out / "pyodide" / "python_stdlib.zip", work)
        shutil.copy2(out / PYTHON_ARCHIVE, work)
        try:
            subprocess.run(
                ["node", str(BYTECODE), str(work), str(numpy_wheel)], check=True, capture_output=True, text=True
            )
        except FileNotFoundError as error:
            raise BuildError("node is missing: install Node.js (it compiles the Python bytecode)") from error
        except subprocess.CalledProcessError as error:
            raise BuildError(f"compiling the Python bytecode failed:\n{error.stderr[-2000:]}") from error
        shutil.copyfile(work / "out" / "python_stdlib.zip", out / "pyodide" / "python_stdlib.zip")
        shutil.copyfile(work / "out" / "numpy-bytecode.zip", out / NUMPY_BYTECODE)
