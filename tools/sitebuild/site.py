"""The site in dist/: the page with its partials and preloads, our Python as one archive, the
PyScript config, the icons and the manifest; `build()` runs every step in order.

The output works offline and from any sub-path (GitHub Pages serves it from /<repo>/), so
every URL in it is relative, and no file of ours may fetch from another origin.
"""

from __future__ import annotations

import json
import re
import shutil
import zipfile
from collections.abc import Sequence
from pathlib import Path

from tools.sitebuild.bootscript import BOOT_PARTS_DIR, write_boot_script
from tools.sitebuild.errors import BuildError
from tools.sitebuild.files import copy_tree, sri
from tools.sitebuild.homenext import write_home_next
from tools.sitebuild.homepicture import draw_home_picture
from tools.sitebuild.icons import write_icons
from tools.sitebuild.import_plan import PLAN_FILE, import_plan
from tools.sitebuild.manifest import disable_service_worker, write_manifest
from tools.sitebuild.paths import (
    DIST,
    NUMPY_BYTECODE,
    PARTIALS,
    PYODIDE_DIR,
    PYSIM,
    PYTHON_ARCHIVE,
    SITE,
    SITE_PACKAGES,
    VENDOR_WHEELS,
)
from tools.sitebuild.prerender import prerender
from tools.sitebuild.runtime import compile_bytecode, copy_runtime, ensure_node_modules, lock_hashes, verify_wheels

# Our Python packages travel as one zip archive, which PyScript unpacks into Python's working
# directory: one request instead of one per module (some 80), which would hold the browser's
# six connections per host while the runtime's large files wait for one.
PYTHON_PACKAGES = ("pysim", "app")

# The head of site/index.html holds this comment; the build replaces it with <meta> elements
# naming what the boot guard (site/boot/runtime.js) preloads: the runtime's large files side by side
# (instead of one after another as PyScript and Pyodide discover them), then PyScript.
PRELOADS_MARK = "<!-- build: preloads -->"
# Fetched by Pyodide or PyScript with fetch(), so preloaded as such. Not the WebAssembly
# (docs/perf/second-visit.md): Pyodide's fetch() of it then takes the preload's response, which
# Chromium loads without the compiled code kept beside the service worker's copy, so every visit
# compiled it afresh (no v8.wasm.moduleCacheHit in any trace); fetched by Pyodide itself, visits
# served from that copy reuse the code V8 compiled the visit before.
WEBASSEMBLY = "pyodide/pyodide.asm.wasm"
PRELOAD_FETCHED = ("pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json", PYTHON_ARCHIVE)
# Imported as ES modules by PyScript and Pyodide.
PRELOAD_MODULES = ("pyodide/pyodide.mjs", "pyodide/pyodide.asm.js")

# A reference that a browser would fetch: an element's src, a stylesheet or
# script href, a CSS url(), an ES import, or a fetch() call. Plain <a href>
# links and URLs quoted as data (device sources) are not fetched.
FETCHED_URL = re.compile(
    r"""(?:\bsrc\s*=\s*|<link\b[^>]*\bhref\s*=\s*|url\(\s*|\bimport\s*\(?\s*|\bfrom\s+|fetch\(\s*|pyfetch\(\s*)["']?(https?://[^"')\s]+)""",
    re.IGNORECASE,
)
# The runtime's folders hold vendors' files as released: the origin check covers only ours.
RUNTIME_FOLDERS = {"pyodide", "pyscript"}

# `<!-- include: NAME.html -->` in index.html is replaced by site/partials/NAME.html, so each
# view's static text (prose with number slots, skeletons) lives in a file of its own.
INCLUDE = re.compile(r"<!--\s*include:\s*([a-z0-9_-]+\.html)\s*-->")


def include_partials(page: Path, partials: Path) -> None:
    """Expand the include comments of `page` in place, and those of the partials it includes;
    a missing partial fails the build."""

    def partial(match: re.Match[str]) -> str:
        path = partials / match.group(1)
        if not path.is_file():
            raise BuildError(f"{page.name} includes {match.group(1)}, but {path} does not exist")
        return expand(path.read_text(encoding="utf-8").rstrip("\n"))

    def expand(text: str) -> str:
        return INCLUDE.sub(partial, text)

    page.write_text(expand(page.read_text(encoding="utf-8")), encoding="utf-8")


# `<!-- package: NAME.zip -->...<!-- /package -->` in the page: a course package's download link,
# kept only when this build offers that package, so no build links to a zip it does not have.
PACKAGE_LINK = re.compile(r"<!--\s*package:\s*([a-z0-9_.-]+\.zip)\s*-->(.*?)<!--\s*/package\s*-->", re.S)


def offer_packages(page: Path, offered: set[str]) -> None:
    """Keep the download links of the `offered` package names and drop the others, markers included."""
    html = page.read_text(encoding="utf-8")
    page.write_text(
        PACKAGE_LINK.sub(lambda match: match.group(2) if match.group(1) in offered else "", html), encoding="utf-8"
    )


def copy_site(out: Path, packages: Sequence[Path] = ()) -> None:
    """The page (with its partials included and links to the `packages` it offers), its assets (the boot
    guard assembled from its parts), and the simulator."""
    copy_tree(SITE, out, skip_dirs=(BOOT_PARTS_DIR,))
    write_boot_script(SITE, out)
    include_partials(out / "index.html", out / PARTIALS)
    offer_packages(out / "index.html", {package.name for package in packages})
    shutil.rmtree(out / PARTIALS, ignore_errors=True)
    # The puzzles' reference solutions are test data: shipped, they would hand every student the answers.
    copy_tree(PYSIM, out / "pysim", pattern="*.py", skip_dirs=("play/solutions",))


def pack_python(out: Path) -> None:
    """Move our Python packages under `out` into one zip archive, with the order site/main.py imports
    them in (tools/sitebuild/import_plan.py). Fixed timestamps and order: the same sources give the same
    bytes, so an unchanged build keeps its id."""

    def entry(name: str) -> zipfile.ZipInfo:
        return zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))

    with zipfile.ZipFile(out / PYTHON_ARCHIVE, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for package in PYTHON_PACKAGES:
            for path in sorted((out / package).rglob("*.py")):
                archive.writestr(entry(path.relative_to(out).as_posix()), path.read_bytes(), zipfile.ZIP_DEFLATED)
            shutil.rmtree(out / package)
        archive.writestr(entry(PLAN_FILE), import_plan(), zipfile.ZIP_DEFLATED)


def write_pyscript_config(out: Path) -> None:
    """PyScript config: the interpreter, our packages' archive, unpacked ("./*") into Python's
    working directory, and NumPy's bytecode, unpacked into site-packages. NumPy is not in
    `packages` (that would need micropip, which dist/ does not ship); site/main.py loads it."""
    files = {f"./{PYTHON_ARCHIVE}": "./*", f"./{NUMPY_BYTECODE}": f"{SITE_PACKAGES}/*"}
    config = {"interpreter": "./pyodide/pyodide.mjs", "files": files}
    (out / "pyscript.json").write_text(json.dumps(config, indent=1) + "\n")


def preload_links(out: Path, wheels: list[Path], lock_file: Path) -> str:
    """<meta name="tilelab-preload" content="KIND PATH [INTEGRITY]"> elements for the files
    the boot guard (site/boot/runtime.js) preloads when it starts the runtime, and
    "tilelab-preload-later" ones for the files it preloads once the WebAssembly or the
    standard library has arrived: downloaded together from the start, NumPy would split the
    bandwidth with the files the interpreter needs to boot and delay it.

    The wheels carry the lock file's hash: Pyodide fetches them with that integrity. PyScript
    fetches NumPy's bytecode without one, so it is preloaded without one."""
    expected = lock_hashes(lock_file)
    now = [f"fetch {path}" for path in PRELOAD_FETCHED] + [f"module {path}" for path in PRELOAD_MODULES]
    later = [f"fetch pyodide/{wheel.name} {sri(expected[wheel.name])}" for wheel in wheels] + [
        f"fetch {NUMPY_BYTECODE}"
    ]
    for content in now + later:
        path = content.split(" ")[1]
        if not (out / path).is_file():
            raise BuildError(f"a preload names {path}, which is not in {out}")
    metas = [f'<meta name="tilelab-preload" content="{content}">' for content in now]
    metas += [f'<meta name="tilelab-preload-later" content="{content}">' for content in later]
    return "\n".join(metas)


def add_preloads(page: Path, links: str) -> None:
    html = page.read_text(encoding="utf-8")
    if PRELOADS_MARK not in html:
        raise BuildError(f"{page} has no `{PRELOADS_MARK}` in its <head>; the runtime would download serially")
    page.write_text(html.replace(PRELOADS_MARK, links), encoding="utf-8")


def find_fetched_urls(out: Path, ours: list[Path]) -> list[str]:
    problems = []
    for path in ours:
        if path.suffix not in {".html", ".css", ".js", ".mjs", ".py", ".json"}:
            continue
        for match in FETCHED_URL.finditer(path.read_text(encoding="utf-8")):
            problems.append(f"{path.relative_to(out)}: {match.group(1)}")
    return problems


def check_origins(out: Path) -> None:
    ours = [path for path in out.rglob("*") if path.is_file() and path.parts[len(out.parts)] not in RUNTIME_FOLDERS]
    problems = find_fetched_urls(out, ours)
    if problems:
        raise BuildError("files would fetch from another origin at run time:\n  " + "\n  ".join(problems))


def build(
    out: Path = DIST,
    wheel_dir: Path = VENDOR_WHEELS,
    npm: bool = True,
    service_worker: bool = True,
    packages: Sequence[Path] = (),
) -> Path:
    """Build the site into `out` and return it.

    service_worker=False builds a copy that registers no service worker (for packages
    played inside an LMS). `packages` (course zips) are copied beside the page, which links
    to them; the service worker does not precache them (a download, not part of the app)."""
    if npm:
        ensure_node_modules()
    lock_file = PYODIDE_DIR / "pyodide-lock.json"
    if not lock_file.exists():
        raise BuildError(f"{lock_file} is missing; run `npm ci`")
    wheels = verify_wheels(wheel_dir, lock_file)

    if out.exists():
        shutil.rmtree(out)
    copy_runtime(out, wheels)
    copy_site(out, packages)
    draw_home_picture(out / "index.html")
    write_home_next(out / "index.html")
    prerender(out / "index.html")
    check_origins(out)
    pack_python(out)
    compile_bytecode(out, next(wheel for wheel in wheels if wheel.name.startswith("numpy-")))
    write_icons(out)
    add_preloads(out / "index.html", preload_links(out, wheels, lock_file))
    write_pyscript_config(out)
    (out / ".nojekyll").write_text("")
    if not service_worker:
        disable_service_worker(out)
    entries = write_manifest(out, service_worker)
    for package in packages:
        shutil.copy2(package, out / package.name)
    total = sum(entry["bytes"] for entry in entries)
    print(f"build: {out} ({len(entries)} files, {total / 1e6:.1f} MB)")
    return out
