"""Where the build reads its inputs, and the names of what it writes inside dist/."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
NODE_MODULES = ROOT / "node_modules"
PYODIDE_DIR = NODE_MODULES / "pyodide"
PYSCRIPT_DIST = NODE_MODULES / "@pyscript" / "core" / "dist"
VENDOR_WHEELS = ROOT / "vendor" / "pyodide"
SITE = ROOT / "site"
PARTIALS = "partials"  # under SITE: HTML pieces that index.html includes at build time
PYSIM = ROOT / "pysim"
# Run in Node: Pyodide itself compiles the bytecode the browser loads (bytecode/compile.py).
BYTECODE = Path(__file__).resolve().parent / "bytecode" / "compile.mjs"

# Inside dist/.
PYTHON_ARCHIVE = "tilelab.zip"
NUMPY_BYTECODE = "pyodide/numpy-bytecode.zip"
SERVICE_WORKER = "sw.js"  # also under SITE: the template the build fills in
# Inside Pyodide's file system: where PyScript unpacks NumPy's bytecode, beside NumPy's sources.
SITE_PACKAGES = "/lib/python3.12/site-packages"
