"""The boot guard, dist/boot.js: site/boot/'s parts, one job each, as one classic script.

The page loads it with a plain `<script src="boot.js">` in its head: it must run before PyScript and
before the body is parsed, the CSP refuses inline scripts, and a course package may not ship ES modules
(LMSs serve `.mjs` with the wrong MIME type). So the parts are not modules: each declares functions and
variables in one scope, the function the build wraps them in, and start.js, last, calls them in order.
Each part stays loadable alone, as tests/js/ loads it in Node.
"""

from __future__ import annotations

from pathlib import Path

from tools.sitebuild.errors import BuildError

BOOT_PARTS_DIR = "boot"  # under SITE; not copied into dist/ as such
BOOT_SCRIPT = "boot.js"  # in dist/, what index.html loads
# In the order the script runs them: what a part's code uses at its own top level comes before it
# (only page.js's `root` so far), and start.js, which does everything else, comes last.
BOOT_PARTS = (
    "page.js",
    "pyscript-fixes.js",
    "storage.js",
    "progress.js",
    "failure.js",
    "checks.js",
    "routes.js",
    "prerender.js",
    "runtime.js",
    "ready.js",
    "start.js",
)
HEADER = (
    "// TileLab's boot guard, assembled by the build (tools/sitebuild/bootscript.py) from site/boot/: edit those.\n"
)


def assemble(parts_dir: Path) -> str:
    """The parts of `parts_dir`, in BOOT_PARTS order, in one strict-mode function run at once."""
    present = {path.name for path in parts_dir.glob("*.js")}
    if present != set(BOOT_PARTS):
        missing, unlisted = sorted(set(BOOT_PARTS) - present), sorted(present - set(BOOT_PARTS))
        raise BuildError(f"{parts_dir}: parts missing {missing}, parts not in BOOT_PARTS {unlisted}")
    body = "\n".join(f"// --- {name}\n" + (parts_dir / name).read_text(encoding="utf-8") for name in BOOT_PARTS)
    return HEADER + '(function () {\n"use strict";\n\n' + body + "})();\n"


def write_boot_script(site: Path, out: Path) -> None:
    (out / BOOT_SCRIPT).write_text(assemble(site / BOOT_PARTS_DIR), encoding="utf-8")
