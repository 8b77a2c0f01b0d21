"""Hashing and copying files."""

from __future__ import annotations

import base64
import hashlib
import shutil
from pathlib import Path


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def sri(hex_digest: str) -> str:
    """A Subresource Integrity value from a hex sha256 (the lock file's form)."""
    return "sha256-" + base64.b64encode(bytes.fromhex(hex_digest)).decode()


def copy_tree(
    source: Path, target: Path, pattern: str = "*", skip_suffixes: tuple[str, ...] = (), skip_dirs: tuple[str, ...] = ()
) -> None:
    """Copy the files under `source` that match `pattern` into `target`, leaving out `__pycache__`, the
    `skip_suffixes` and every folder of `skip_dirs` (paths relative to `source`, e.g. "play/solutions")."""
    skipped = [source / folder for folder in skip_dirs]
    for path in sorted(source.rglob(pattern)):
        if path.is_dir() or "__pycache__" in path.parts or path.suffix in skip_suffixes:
            continue
        if any(path.is_relative_to(folder) for folder in skipped):
            continue
        destination = target / path.relative_to(source)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
