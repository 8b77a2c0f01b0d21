"""Bundle TileLab into dist/: runtime, PyScript, wheels, site and pysim.

    python build.py                 # build dist/
    python build.py --serve         # build, then serve dist/ on 127.0.0.1:8000
    python build.py --serve --port 9000
    python build.py --no-service-worker   # a copy that registers no service worker (LMS packages)
    python build.py --scorm [--scorm-url URL] [--scorm-route ROUTE]   # SCORM 1.2 packages (scorm/)

Standard library only. The output works offline and from any sub-path
(GitHub Pages serves it from /<repo>/), so every URL in it is relative.
"""

from __future__ import annotations

import argparse
import base64
import functools
import hashlib
import http.server
import json
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent
NODE_MODULES = ROOT / "node_modules"
PYODIDE_DIR = NODE_MODULES / "pyodide"
PYSCRIPT_DIST = NODE_MODULES / "@pyscript" / "core" / "dist"
KATEX_DIST = NODE_MODULES / "katex" / "dist"
VENDOR_WHEELS = ROOT / "vendor" / "pyodide"
SITE = ROOT / "site"
PARTIALS = "partials"  # under SITE: HTML pieces that index.html includes at build time
PYSIM = ROOT / "pysim"
# Our Python packages travel as one zip archive, which PyScript unpacks into Python's working
# directory: one request instead of one per module (some 80), which would hold the browser's
# six connections per host while the runtime's large files wait for one.
PYTHON_PACKAGES = ("pysim", "app")
PYTHON_ARCHIVE = "tilelab.zip"
# Bytecode for the browser (bytecode/compile.py): the standard library's imported modules
# precompiled inside python_stdlib.zip, and NumPy's in an archive PyScript unpacks beside
# NumPy's sources (Pyodide 0.27's site-packages) before site/main.py loads NumPy.
BYTECODE = ROOT / "bytecode" / "compile.mjs"
NUMPY_BYTECODE = "pyodide/numpy-bytecode.zip"
SITE_PACKAGES = "/lib/python3.12/site-packages"

PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.js",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
KATEX_FILES = ("katex.min.js", "katex.min.css")

MIME_TYPES = {
    ".wasm": "application/wasm",
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".json": "application/json",
    ".py": "text/plain; charset=utf-8",
    ".whl": "application/zip",
    ".zip": "application/zip",
    ".woff2": "font/woff2",
    ".css": "text/css",
    ".html": "text/html; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".webmanifest": "application/manifest+json",
}

# The head of site/index.html holds this comment; the build replaces it with <meta> elements
# naming what the boot guard (site/boot.js) preloads: the runtime's large files side by side
# (instead of one after another as PyScript and Pyodide discover them), then PyScript.
PRELOADS_MARK = "<!-- build: preloads -->"
# Fetched by Pyodide or PyScript with fetch(), so preloaded as such.
PRELOAD_FETCHED = ("pyodide/pyodide.asm.wasm", "pyodide/python_stdlib.zip", "pyodide/pyodide-lock.json", PYTHON_ARCHIVE)
# Imported as ES modules by PyScript and Pyodide.
PRELOAD_MODULES = ("pyodide/pyodide.mjs", "pyodide/pyodide.asm.js")

SERVICE_WORKER = "sw.js"  # under SITE: the template; build.py fills in the build id and file hashes
SW_FILES_MARK = "const FILES = {};"
SW_BUILD_MARK = 'const BUILD = "dev";'
# Never precached: the worker itself (the browser manages it) and files only hosts read.
NOT_PRECACHED = {SERVICE_WORKER, ".nojekyll", "manifest.json"}

# A reference that a browser would fetch: an element's src, a stylesheet or
# script href, a CSS url(), an ES import, or a fetch() call. Plain <a href>
# links and URLs quoted as data (device sources) are not fetched.
FETCHED_URL = re.compile(
    r"""(?:\bsrc\s*=\s*|<link\b[^>]*\bhref\s*=\s*|url\(\s*|\bimport\s*\(?\s*|\bfrom\s+|fetch\(\s*|pyfetch\(\s*)["']?(https?://[^"')\s]+)""",
    re.IGNORECASE,
)


class BuildError(Exception):
    """A build step failed; the message says what and how to fix it."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


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


def verify_wheels(wheel_dir: Path, lock_file: Path) -> list[Path]:
    """Return the wheels in wheel_dir, refusing any whose sha256 differs from the lock file."""
    packages = json.loads(lock_file.read_text())["packages"]
    expected = {entry["file_name"]: entry["sha256"] for entry in packages.values()}
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


def copy_tree(source: Path, target: Path, pattern: str = "*", skip_suffixes: tuple[str, ...] = ()) -> None:
    for path in sorted(source.rglob(pattern)):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in skip_suffixes:
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)


# `<!-- include: NAME.html -->` in index.html is replaced by site/partials/NAME.html, so each
# view's static text (prose with number slots, skeletons) lives in a file of its own.
INCLUDE = re.compile(r"<!--\s*include:\s*([a-z0-9_-]+\.html)\s*-->")


def include_partials(page: Path, partials: Path) -> None:
    """Expand the include comments of `page` in place, and those of the partials it includes;
    a missing partial fails the build."""

    def partial(match: re.Match) -> str:
        path = partials / match.group(1)
        if not path.is_file():
            raise BuildError(f"{page.name} includes {match.group(1)}, but {path} does not exist")
        return expand(path.read_text(encoding="utf-8").rstrip("\n"))

    def expand(text: str) -> str:
        return INCLUDE.sub(partial, text)

    page.write_text(expand(page.read_text(encoding="utf-8")), encoding="utf-8")


def pack_python(out: Path) -> None:
    """Move our Python packages under `out` into one zip archive. Fixed timestamps and order:
    the same sources give the same bytes, so an unchanged build keeps its id."""
    with zipfile.ZipFile(out / PYTHON_ARCHIVE, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
        for package in PYTHON_PACKAGES:
            for path in sorted((out / package).rglob("*.py")):
                entry = zipfile.ZipInfo(path.relative_to(out).as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
                archive.writestr(entry, path.read_bytes(), compress_type=zipfile.ZIP_DEFLATED)
            shutil.rmtree(out / package)


def compile_bytecode(out: Path, numpy_wheel: Path) -> None:
    """Replace out's python_stdlib.zip by one with bytecode and add NumPy's bytecode, both
    compiled by Pyodide itself in Node (bytecode/compile.mjs)."""
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


def write_pyscript_config(out: Path) -> None:
    """PyScript config: the interpreter, our packages' archive, unpacked ("./*") into Python's
    working directory, and NumPy's bytecode, unpacked into site-packages. NumPy is not in
    `packages` (that would need micropip, which dist/ does not ship); site/main.py loads it."""
    files = {f"./{PYTHON_ARCHIVE}": "./*", f"./{NUMPY_BYTECODE}": f"{SITE_PACKAGES}/*"}
    config = {"interpreter": "./pyodide/pyodide.mjs", "files": files}
    (out / "pyscript.json").write_text(json.dumps(config, indent=1) + "\n")


def sri(hex_digest: str) -> str:
    """A Subresource Integrity value from a hex sha256 (the lock file's form)."""
    return "sha256-" + base64.b64encode(bytes.fromhex(hex_digest)).decode()


def preload_links(out: Path, wheels: list[Path], lock_file: Path) -> str:
    """<meta name="tilelab-preload" content="KIND PATH [INTEGRITY]"> elements for the files
    the boot guard (site/boot.js) preloads when it starts the runtime, and
    "tilelab-preload-later" ones for the files it preloads once the WebAssembly or the
    standard library has arrived: downloaded together from the start, NumPy would split the
    bandwidth with the files the interpreter needs to boot and delay it.

    The wheels carry the lock file's hash: Pyodide fetches them with that integrity. PyScript
    fetches NumPy's bytecode without one, so it is preloaded without one."""
    expected = {entry["file_name"]: entry["sha256"] for entry in json.loads(lock_file.read_text())["packages"].values()}
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


def file_entries(out: Path, skip: set[str]) -> list[dict]:
    return [
        {"path": path.relative_to(out).as_posix(), "bytes": path.stat().st_size, "sha256": sha256(path)}
        for path in sorted(out.rglob("*"))
        if path.is_file() and path.relative_to(out).as_posix() not in skip
    ]


def build_id(entries: list[dict]) -> str:
    """The build's identity: a hash over every file's path and content hash."""
    listing = json.dumps([[entry["path"], entry["sha256"]] for entry in entries], separators=(",", ":"))
    return hashlib.sha256(listing.encode()).hexdigest()[:16]


def write_service_worker(out: Path, build: str, entries: list[dict]) -> None:
    """Fill the service worker template with this build's id and every file's hash, so one
    build's worker precaches exactly that build, checked byte for byte (SRI)."""
    worker = out / SERVICE_WORKER
    source = worker.read_text(encoding="utf-8")
    if SW_FILES_MARK not in source or SW_BUILD_MARK not in source:
        raise BuildError(f"{SITE / SERVICE_WORKER} lost its `{SW_BUILD_MARK}` or `{SW_FILES_MARK}` line")
    files = {entry["path"]: sri(entry["sha256"]) for entry in entries if entry["path"] not in NOT_PRECACHED}
    source = source.replace(SW_BUILD_MARK, f"const BUILD = {json.dumps(build)};")
    source = source.replace(SW_FILES_MARK, f"const FILES = {json.dumps(files, indent=1)};")
    worker.write_text(source, encoding="utf-8")


def disable_service_worker(out: Path) -> None:
    """No worker in this build: remove it and tell the boot guard not to register one."""
    (out / SERVICE_WORKER).unlink(missing_ok=True)
    page = out / "index.html"
    html = page.read_text(encoding="utf-8")
    page.write_text(html.replace("<html ", '<html data-sw="off" ', 1), encoding="utf-8")


def write_manifest(out: Path, service_worker: bool = True) -> list[dict]:
    """manifest.json: every file's size and hash, and the build id the service worker caches under.

    The id covers every file but the worker (which embeds the id) and this manifest."""
    entries = file_entries(out, {"manifest.json", SERVICE_WORKER})
    build = build_id(entries)
    if service_worker:
        write_service_worker(out, build, entries)
        entries = file_entries(out, {"manifest.json"})
    (out / "manifest.json").write_text(json.dumps({"build": build, "files": entries}, indent=1) + "\n")
    return entries


def copy_runtime(out: Path, wheels: list[Path]) -> None:
    """Pyodide (with our wheels beside its lock file), PyScript and KaTeX."""
    (out / "pyodide").mkdir(parents=True)
    for name in PYODIDE_FILES:
        shutil.copy2(PYODIDE_DIR / name, out / "pyodide" / name)
    for wheel in wheels:
        shutil.copy2(wheel, out / "pyodide" / wheel.name)
    copy_tree(PYSCRIPT_DIST, out / "pyscript", skip_suffixes=(".map",))
    (out / "katex" / "fonts").mkdir(parents=True)
    for name in KATEX_FILES:
        shutil.copy2(KATEX_DIST / name, out / "katex" / name)
    copy_tree(KATEX_DIST / "fonts", out / "katex" / "fonts", pattern="*.woff2")


def copy_site(out: Path) -> None:
    """The page (with its partials included), its assets, and the simulator."""
    copy_tree(SITE, out)
    include_partials(out / "index.html", out / PARTIALS)
    shutil.rmtree(out / PARTIALS, ignore_errors=True)
    copy_tree(PYSIM, out / "pysim", pattern="*.py")


ICON_SIZES = (192, 512)  # what browsers ask of an installable web app
ICON_INK, ICON_PAPER = (0x43, 0x38, 0xCA), (0xFF, 0xFF, 0xFF)


def icon_png(size: int) -> bytes:
    """favicon.svg's picture (four tiles on indigo) as a PNG, full-bleed so it also works as a
    maskable icon: the tiles stay inside the central safe zone."""
    cell = size // 8  # tiles of 2 cells with 1-cell gaps, inside a 2-cell margin

    def paper(x: int, y: int) -> bool:
        return all(2 * cell <= v < 6 * cell and not (3.8 * cell <= v < 4.2 * cell) for v in (x, y))

    rows = b"".join(
        b"\x00" + b"".join(bytes(ICON_PAPER if paper(x, y) else ICON_INK) for x in range(size)) for y in range(size)
    )

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)  # 8-bit RGB
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def write_icons(out: Path) -> None:
    """The PNG icons the web app manifest (site/manifest.webmanifest) names."""
    (out / "icons").mkdir(exist_ok=True)
    for size in ICON_SIZES:
        (out / "icons" / f"icon-{size}.png").write_bytes(icon_png(size))


def check_origins(out: Path) -> None:
    ours = [
        path
        for path in out.rglob("*")
        if path.is_file() and path.parts[len(out.parts)] not in {"pyodide", "pyscript", "katex"}
    ]
    problems = find_fetched_urls(out, ours)
    if problems:
        raise BuildError("files would fetch from another origin at run time:\n  " + "\n  ".join(problems))


def build(
    out: Path = ROOT / "dist",
    wheel_dir: Path = VENDOR_WHEELS,
    npm: bool = True,
    service_worker: bool = True,
) -> Path:
    """Build the site into `out` and return it.

    service_worker=False builds a copy that registers no service worker (for packages
    played inside an LMS)."""
    if npm:
        ensure_node_modules()
    lock_file = PYODIDE_DIR / "pyodide-lock.json"
    if not lock_file.exists():
        raise BuildError(f"{lock_file} is missing; run `npm ci`")
    wheels = verify_wheels(wheel_dir, lock_file)

    if out.exists():
        shutil.rmtree(out)
    copy_runtime(out, wheels)
    copy_site(out)
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
    total = sum(entry["bytes"] for entry in entries)
    print(f"build: {out} ({len(entries)} files, {total / 1e6:.1f} MB)")
    return out


class Handler(http.server.SimpleHTTPRequestHandler):
    """Static files with the MIME types Pyodide needs; quiet logs."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, **MIME_TYPES}

    def log_message(self, format: str, *args: object) -> None:
        pass


def serve(directory: Path, port: int) -> None:
    handler = functools.partial(Handler, directory=str(directory))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"TileLab: serving {directory} at http://127.0.0.1:{server.server_address[1]}/ (Ctrl+C stops)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            print("stopped")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=ROOT / "dist", help="output folder (default: dist/)")
    parser.add_argument("--serve", action="store_true", help="serve the output on 127.0.0.1 after building")
    parser.add_argument("--port", type=int, default=8000, help="port for --serve (default 8000)")
    parser.add_argument(
        "--no-service-worker", action="store_true", help="register no service worker (e.g. for LMS packages)"
    )
    parser.add_argument("--scorm", action="store_true", help="write SCORM 1.2 course packages into dist-scorm/")
    parser.add_argument("--scorm-url", help="with --scorm: the hosted copy the link package frames")
    parser.add_argument("--scorm-route", default="/hierarchy", help="with --scorm: the route a package opens")
    args = parser.parse_args(argv)
    try:
        if args.scorm:
            import scorm  # here, not at the top: scorm imports this module

            return scorm.run(args.scorm_url, args.scorm_route)
        out = build(args.out, service_worker=not args.no_service_worker)
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        return 1
    if args.serve:
        serve(out, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
