"""The bytecode dist/ ships (tools/sitebuild/bytecode/compile.py) is what the browser's interpreter runs.

Checked in Pyodide itself, run in Node on dist/'s own runtime files, set up as PyScript and
site/main.py set it up in the page: NumPy's bytecode unpacked into site-packages, NumPy
loaded, our archive unpacked. A spy on the source compiler then sees which modules are
still compiled from source while NumPy and pysim are imported."""

import json
import subprocess
import zipfile

import pytest

from tools.sitebuild import paths

# argv: dist/pyodide/, the numpy bytecode archive, our archive. Prints the report.
SESSION = """
import { loadPyodide } from "PYODIDE_MJS";
import { readFileSync } from "node:fs";
const [indexURL, numpyBytecode, ours] = process.argv.slice(2);
const pyodide = await loadPyodide({ indexURL, stdout: () => {} });
pyodide.FS.writeFile("/tmp/numpy-bytecode.zip", readFileSync(numpyBytecode));
pyodide.FS.writeFile("/tmp/ours.zip", readFileSync(ours));
pyodide.runPython("import zipfile; zipfile.ZipFile('/tmp/numpy-bytecode.zip').extractall('SITE_PACKAGES')");
await pyodide.loadPackage("numpy", { messageCallback: () => {} });
console.log(pyodide.runPython(`
import importlib.machinery, json, sys, zipfile
zipfile.ZipFile('/tmp/ours.zip').extractall('.')
compiled = []  # what the source compiler sees from now on
def spy(self, data, path, *, _optimize=-1, _original=importlib.machinery.SourceFileLoader.source_to_code):
    compiled.append(path)
    return _original(self, data, path, _optimize=_optimize)
importlib.machinery.SourceFileLoader.source_to_code = spy
import numpy
numpy_from_source = [p for p in compiled if "/numpy/" in p]
from pysim.kernels import KERNELS
from pysim.hardware.params import SmemParams
from pysim.core.trace import Trace
trace = Trace(KERNELS["smem"], SmemParams(M=5, N=3, K=7, T=2))
stdlib = sorted({m.__spec__.origin for m in list(sys.modules.values())
                 if getattr(m, "__spec__", None) and "python312.zip/" in (m.__spec__.origin or "")})
json.dumps({"numpy_from_source": numpy_from_source,
            "ours_from_source": [p for p in compiled if "/pysim/" in p],
            "stdlib": stdlib, "verified": bool(trace.c_matches())})
`));
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, dist):
    script = tmp_path_factory.mktemp("node") / "session.mjs"
    script.write_text(
        SESSION.replace("PYODIDE_MJS", (paths.PYODIDE_DIR / "pyodide.mjs").as_uri()).replace(
            "SITE_PACKAGES", paths.SITE_PACKAGES
        )
    )
    arguments = [f"{dist / 'pyodide'}/", str(dist / paths.NUMPY_BYTECODE), str(dist / paths.PYTHON_ARCHIVE)]
    done = subprocess.run(["node", str(script), *arguments], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_numpy_imports_from_bytecode(session):
    assert session["numpy_from_source"] == []


def test_the_spy_sees_modules_compiled_from_source(session):
    # Our own modules ship as source: the same spy sees them compiled, so it can fail.
    assert any(path.endswith("/pysim/core/trace.py") for path in session["ours_from_source"])


def test_the_standard_library_imports_from_bytecode(session):
    assert session["stdlib"], "no module came from python_stdlib.zip"
    assert [origin for origin in session["stdlib"] if not origin.endswith(".pyc")] == []


def test_the_simulator_runs_on_it(session):
    assert session["verified"]


def test_bytecode_replaces_only_sources_and_keeps_everything_else(dist):
    shipped = zipfile.ZipFile(dist / "pyodide" / "python_stdlib.zip")
    released = zipfile.ZipFile(paths.PYODIDE_DIR / "python_stdlib.zip")
    names = {name[:-1] if name.endswith(".pyc") else name for name in shipped.namelist()}
    assert names == set(released.namelist())
    for name in shipped.namelist():
        if not name.endswith(".pyc"):
            assert shipped.read(name) == released.read(name), name
        else:  # unchecked hash-based (PEP 552 flags 0b01): loaded without the source
            assert int.from_bytes(shipped.read(name)[4:8], "little") == 0b01, name
