"""Python bytecode for the browser, compiled by the browser's own interpreter (Pyodide,
run in Node by compile.mjs beside this file at build time).

Without it, every page load compiles each imported module of Pyodide's standard library
and of NumPy from source: about 1.4 s of the main thread at start. The bytecode is written as
unchecked hash-based .pyc files (PEP 552): the interpreter loads them without looking at
the source or its timestamp, which the browser's in-memory file system would not keep.
They are built from the very files shipped beside them, in the same build, so they cannot
go stale. Column positions are left out (PYTHONNODEBUGRANGES, set by compile.mjs): smaller
files, tracebacks without ^^^ markers.

In WORK (a host folder, mounted by compile.mjs) it reads python_stdlib.zip (Pyodide's) and
tilelab.zip (our sources, to see what a session imports) and writes, under WORK/out/:
- python_stdlib.zip: the same archive, with the modules a TileLab session imports as
  bytecode in place of their source (the others stay source: smaller to download);
- numpy-bytecode.zip: numpy/**/__pycache__/*.pyc for the NumPy modules a session imports,
  to unpack into site-packages beside NumPy's sources.
Our own modules stay source: their bytecode would nearly triple tilelab.zip (173 to 478 kB)
to save about 0.1 s.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import marshal
import sys
import zipfile
from pathlib import Path

# The same bytes for the same inputs: no build time in the archives.
EPOCH = (1980, 1, 1, 0, 0, 0)
STDLIB = "/lib/python312.zip"


# PEP 552's flags word: hash-based (bit 0), not checked against the source (bit 1 clear).
UNCHECKED_HASH = (0b01).to_bytes(4, "little")


def pyc(source: bytes, filename: str) -> bytes:
    """Unchecked hash-based bytecode of one module, laid out as the import system writes it."""
    code = compile(source, filename, "exec", dont_inherit=True)
    return importlib.util.MAGIC_NUMBER + UNCHECKED_HASH + importlib.util.source_hash(source) + marshal.dumps(code)


def write(archive: zipfile.ZipFile, name: str, data: bytes) -> None:
    archive.writestr(zipfile.ZipInfo(name, EPOCH), data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)


def imported_names(sources: zipfile.ZipFile) -> set[str]:
    """Every module named by an import statement in our sources."""
    names: set[str] = set()
    for name in sources.namelist():
        if name.endswith(".py"):
            for node in ast.walk(ast.parse(sources.read(name))):
                if isinstance(node, ast.Import):
                    names.update(alias.name for alias in node.names)
                elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                    names.add(node.module)
    return names


def import_session(work: Path, sources: zipfile.ZipFile) -> None:
    """Import what a TileLab session imports, as far as Node can: NumPy, pysim and every module
    our sources name (those needing the browser, like `pyscript`, are skipped)."""
    unpacked = work / "unpacked"
    sources.extractall(unpacked)
    sys.path.insert(0, str(unpacked))
    for name in sorted(imported_names(sources) | {"numpy"}):
        try:
            importlib.import_module(name)
        except ImportError:
            pass  # the browser's modules (pyscript, js) and app/, which needs them


def imported_files(prefix: str) -> set[str]:
    """The source files of the imported modules under `prefix` (not extension modules)."""
    origins = (getattr(getattr(module, "__spec__", None), "origin", None) for module in list(sys.modules.values()))
    return {origin for origin in origins if origin and origin.startswith(prefix) and origin.endswith(".py")}


def stdlib(target: Path, imported: set[str]) -> None:
    with zipfile.ZipFile(STDLIB) as source, zipfile.ZipFile(target, "w") as archive:
        for info in source.infolist():
            data = source.read(info)
            if f"{STDLIB}/{info.filename}" in imported:
                write(archive, info.filename + "c", pyc(data, f"{STDLIB}/{info.filename}"))
            else:
                write(archive, info.filename, data)


def numpy_bytecode(target: Path, numpy_dir: Path) -> None:
    imported, site_packages = imported_files(f"{numpy_dir}/"), numpy_dir.parent
    with zipfile.ZipFile(target, "w") as archive:
        for origin in sorted(imported):
            cached = Path(importlib.util.cache_from_source(origin)).relative_to(site_packages)
            write(archive, cached.as_posix(), pyc(Path(origin).read_bytes(), origin))


def main(work: str) -> None:
    folder = Path(work)
    out = folder / "out"
    out.mkdir(exist_ok=True)
    with zipfile.ZipFile(folder / "tilelab.zip") as sources:
        import_session(folder, sources)
        stdlib(out / "python_stdlib.zip", imported_files(STDLIB + "/"))
        numpy = importlib.import_module("numpy")
        numpy_bytecode(out / "numpy-bytecode.zip", Path(str(numpy.__file__)).parent)
