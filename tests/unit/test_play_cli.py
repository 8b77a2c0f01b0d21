"""`python -m pysim run FILE` (SPEC §5), as a real subprocess."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from stepsums import as_written

from pysim.core.trace import Trace
from pysim.hardware.params import SmemParams
from pysim.kernels import KERNELS

ROOT = Path(__file__).resolve().parents[2]
TILED = ROOT / "pysim" / "play" / "solutions" / "smem_tiled.py"
FIXTURES = Path(__file__).parent / "play"


def run(*args, cwd=ROOT):
    return subprocess.run(
        [sys.executable, "-m", "pysim", "run", *map(str, args)], capture_output=True, text=True, timeout=120, cwd=cwd
    )


def test_run_json_prints_the_counters_c_check_and_diagnostics():
    out = run(TILED, "--M", 6, "--N", 6, "--K", 9, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    expected = as_written(Trace(KERNELS["smem"], SmemParams(M=6, N=6, K=9, T=8))).as_dict()
    assert {name: data[name] for name in expected} == expected
    assert data["c_matches"] is True and data["diagnostics"] == []


def test_a_wrong_kernel_still_exits_0_with_its_diagnostics():
    out = run(FIXTURES / "missing_second_barrier.py", "--M", 8, "--N", 8, "--K", 8, "--json")
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert data["c_matches"] is False
    kinds = {d["kind"] for d in data["diagnostics"]}
    assert kinds == {"race"}
    for diagnostic in data["diagnostics"]:
        assert set(diagnostic) >= {"kind", "line", "thread", "block", "message"}


def test_text_output_lists_counters_and_diagnostics():
    out = run(FIXTURES / "off_by_one.py", "--M", 6, "--N", 6, "--K", 6)
    assert out.returncode == 0
    assert "global loads" in out.stdout and "out_of_bounds" in out.stdout


def test_puzzle_grading(tmp_path):
    out = run(TILED, "--puzzle", "tiled", "--json")
    data = json.loads(out.stdout)
    assert data["puzzle"]["passed"] is True


@pytest.mark.parametrize(
    "content,args,fragment",
    [
        ("import os\n", [], "line 1"),
        ("def (:\n", [], "syntax"),
        (None, [], "cannot open the file"),
        (TILED.read_text(), ["--M", "0"], "M must be at least 1"),
        (TILED.read_text(), ["--K", "x"], "K must be a whole number"),
        (TILED.read_text(), ["--puzzle", "nope"], "--puzzle"),
        (TILED.read_text().replace("(T, T)\n", "(T, 4 * T * T)\n"), [], "threads per block"),
    ],
)
def test_a_file_that_cannot_run_exits_2_with_one_line(tmp_path, content, args, fragment):
    path = tmp_path / "submission.py"
    if content is not None:
        path.write_text(content)
    out = run(path, *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0]
    if content is not None and not args:
        assert "submission.py" in lines[0]


def test_existing_commands_still_work():
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pysim",
            "count",
            "--kernel",
            "smem",
            "--M",
            "6",
            "--N",
            "6",
            "--K",
            "9",
            "--tile",
            "3",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert out.returncode == 0 and json.loads(out.stdout)["c_matches"] is True
