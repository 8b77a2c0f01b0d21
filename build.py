"""Bundle TileLab into dist/: runtime, PyScript, wheels, site and pysim.

    python build.py                 # build dist/
    python build.py --serve         # build, then serve dist/ on 127.0.0.1:8000
    python build.py --serve --port 9000

Standard library only. The output works offline and from any sub-path
(GitHub Pages serves it from /<repo>/), so every URL in it is relative.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import http.server
import json
import re
import shutil
import subprocess
import sys
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
}

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
    """Expand the include comments of `page` in place; a missing partial fails the build."""

    def partial(match: re.Match) -> str:
        path = partials / match.group(1)
        if not path.is_file():
            raise BuildError(f"{page.name} includes {match.group(1)}, but {path} does not exist")
        return path.read_text(encoding="utf-8").rstrip("\n")

    page.write_text(INCLUDE.sub(partial, page.read_text(encoding="utf-8")), encoding="utf-8")


def python_files(out: Path) -> dict[str, str]:
    """PyScript `files`: every module of ours, fetched into Python's working directory."""
    files = {}
    for package in ("pysim", "app"):
        for path in sorted((out / package).rglob("*.py")):
            relative = path.relative_to(out).as_posix()
            files[f"./{relative}"] = f"./{relative}"
    return files


def write_pyscript_config(out: Path) -> None:
    config = {"interpreter": "./pyodide/pyodide.mjs", "files": python_files(out)}
    (out / "pyscript.json").write_text(json.dumps(config, indent=1) + "\n")


def find_fetched_urls(out: Path, ours: list[Path]) -> list[str]:
    problems = []
    for path in ours:
        if path.suffix not in {".html", ".css", ".js", ".mjs", ".py", ".json"}:
            continue
        for match in FETCHED_URL.finditer(path.read_text(encoding="utf-8")):
            problems.append(f"{path.relative_to(out)}: {match.group(1)}")
    return problems


def write_manifest(out: Path) -> list[dict]:
    entries = [
        {"path": path.relative_to(out).as_posix(), "bytes": path.stat().st_size, "sha256": sha256(path)}
        for path in sorted(out.rglob("*"))
        if path.is_file() and path.name != "manifest.json"
    ]
    (out / "manifest.json").write_text(json.dumps({"files": entries}, indent=1) + "\n")
    return entries


def build(out: Path = ROOT / "dist", wheel_dir: Path = VENDOR_WHEELS, npm: bool = True) -> Path:
    """Build the site into `out` and return it."""
    if npm:
        ensure_node_modules()
    lock_file = PYODIDE_DIR / "pyodide-lock.json"
    if not lock_file.exists():
        raise BuildError(f"{lock_file} is missing; run `npm ci`")
    wheels = verify_wheels(wheel_dir, lock_file)

    if out.exists():
        shutil.rmtree(out)
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

    copy_tree(SITE, out)
    include_partials(out / "index.html", out / PARTIALS)
    shutil.rmtree(out / PARTIALS, ignore_errors=True)
    copy_tree(PYSIM, out / "pysim", pattern="*.py")
    write_pyscript_config(out)
    (out / ".nojekyll").write_text("")

    ours = [
        path
        for path in out.rglob("*")
        if path.is_file() and path.parts[len(out.parts)] not in {"pyodide", "pyscript", "katex"}
    ]
    problems = find_fetched_urls(out, ours)
    if problems:
        raise BuildError("files would fetch from another origin at run time:\n  " + "\n  ".join(problems))
    entries = write_manifest(out)
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
    args = parser.parse_args(argv)
    try:
        out = build(args.out)
    except BuildError as error:
        print(f"build failed: {error}", file=sys.stderr)
        return 1
    if args.serve:
        serve(out, args.port)
    return 0


if __name__ == "__main__":
    sys.exit(main())
