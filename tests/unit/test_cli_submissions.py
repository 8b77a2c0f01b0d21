"""`python -m pysim run` on hostile submissions (issue 45, item 4), as a teacher's grading loop meets them: each is
refused within seconds with exit 2 and one line naming the file, and a file name never reaches the terminal raw."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pysim.play.limits import MAX_SOURCE_BYTES

ROOT = Path(__file__).resolve().parents[2]
TILED = ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py"
SECONDS = 30  # generous for a loaded two-core machine; a FIFO read without the fix never returns


def run(path: Path, *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pysim", "run", str(path), "--M", "8", "--N", "8", "--K", "8", *options]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=SECONDS)


def refused(done: subprocess.CompletedProcess, reason: str) -> bool:
    lines = done.stderr.splitlines()
    return done.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: ") and reason in lines[0]


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    fifo = tmp_path / "kernel.py"
    os.mkfifo(fifo)
    assert refused(run(fifo), "is not a regular file")


def test_a_symbolic_link_is_refused_by_name(tmp_path):
    for target in (Path("/dev/zero"), TILED):  # a device read without end, another student's file
        link = tmp_path / f"link-to-{target.name}.py"
        link.symlink_to(target)
        done = run(link)
        assert refused(done, "is a symbolic link"), done.stderr
        assert link.name in done.stderr


def test_a_huge_file_is_refused_without_reading_it(tmp_path):
    huge = tmp_path / "huge.py"
    with huge.open("wb") as handle:
        handle.truncate(200 * 1024 * 1024)  # sparse: 200 MB to read, none on disk
    assert refused(run(huge), f"over {MAX_SOURCE_BYTES:,} bytes")


def test_a_folder_and_a_missing_file_are_named(tmp_path):
    assert refused(run(tmp_path), "not a regular file")
    assert refused(run(tmp_path / "absent.py"), "cannot open the file")


@pytest.mark.parametrize("json_output", [False, True])
def test_the_file_name_is_escaped_on_every_line(tmp_path, json_output):
    hostile = tmp_path / "x\x1b[2J\x1b]0;owned\x07.py"
    hostile.write_text(TILED.read_text())
    done = run(hostile, *(["--json"] if json_output else []))
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "owned" in done.stdout  # the name is there, escaped


def test_a_file_at_the_limit_still_runs(tmp_path):
    source = TILED.read_text()
    padded = tmp_path / "padded.py"
    padded.write_text(source + "#" * (MAX_SOURCE_BYTES - len(source.encode()) - 1) + "\n")
    assert padded.stat().st_size == MAX_SOURCE_BYTES
    assert run(padded).returncode == 0
