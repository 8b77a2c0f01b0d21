"""The boot guard as the page loads it: dist/boot.js, one classic script assembled from site/boot/'s parts
(tools/sitebuild/bootscript.py)."""

import shutil
import subprocess

import pytest

from tools.sitebuild import bootscript
from tools.sitebuild.errors import BuildError
from tools.sitebuild.paths import SITE

PARTS = SITE / bootscript.BOOT_PARTS_DIR


def test_the_page_loads_one_classic_script_made_of_every_part_in_order(dist):
    # Plain <script src>: run while the head is parsed, before PyScript (no module, no defer, no async).
    assert '<script src="boot.js"></script>' in (dist / "index.html").read_text(encoding="utf-8")
    script = (dist / bootscript.BOOT_SCRIPT).read_text(encoding="utf-8")
    starts = [script.index((PARTS / name).read_text(encoding="utf-8")) for name in bootscript.BOOT_PARTS]
    assert starts == sorted(starts)
    assert not (dist / bootscript.BOOT_PARTS_DIR).exists()
    checked = subprocess.run(["node", "--check", str(dist / bootscript.BOOT_SCRIPT)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def test_a_part_not_listed_or_missing_fails_the_build(tmp_path):
    parts = tmp_path / "boot"
    shutil.copytree(PARTS, parts)
    (parts / "extra.js").write_text("function extra() {}\n")
    with pytest.raises(BuildError, match=r"not in BOOT_PARTS \['extra.js'\]"):
        bootscript.assemble(parts)
    (parts / "extra.js").unlink()
    (parts / "routes.js").unlink()
    with pytest.raises(BuildError, match=r"missing \['routes.js'\]"):
        bootscript.assemble(parts)
