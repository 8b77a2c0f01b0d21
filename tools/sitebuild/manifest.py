"""manifest.json (every file's size and hash, and the build id) and the service worker that
precaches exactly that build."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tools.sitebuild.errors import BuildError
from tools.sitebuild.files import sha256, sri
from tools.sitebuild.paths import SERVICE_WORKER

SW_FILES_MARK = "const FILES = {};"
SW_BUILD_MARK = 'const BUILD = "dev";'
# Never precached: the worker itself (the browser manages it) and files only hosts read.
NOT_PRECACHED = {SERVICE_WORKER, ".nojekyll", "manifest.json"}


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
        raise BuildError(f"site/{SERVICE_WORKER} lost its `{SW_BUILD_MARK}` or `{SW_FILES_MARK}` line")
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
