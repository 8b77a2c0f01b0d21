"""The CLI of SPEC §3, run as a real subprocess."""

import json
import subprocess
import sys

import pytest

from bruteforce import register, smem


def run(*args):
    return subprocess.run([sys.executable, "-m", "pysim", *args], capture_output=True, text=True, timeout=120)


def test_count_json_matches_brute_force():
    out = run("count", "--kernel", "smem", "--M", "6", "--N", "6", "--K", "9", "--tile", "3", "--json")
    assert out.returncode == 0
    data = json.loads(out.stdout)
    assert data["c_matches"] is True
    for name, value in smem(6, 6, 9, 3).items():
        assert data[name] == value


def test_count_register_json():
    out = run(
        "count",
        "--kernel",
        "register",
        "--M",
        "9",
        "--N",
        "7",
        "--K",
        "5",
        "--BM",
        "4",
        "--BN",
        "4",
        "--BK",
        "3",
        "--TM",
        "2",
        "--TN",
        "1",
        "--json",
    )
    data = json.loads(out.stdout)
    for name, value in register(9, 7, 5, 4, 4, 3, 2, 1).items():
        assert data[name] == value


def test_count_table_is_readable():
    out = run("count", "--kernel", "naive", "--M", "4", "--N", "4", "--K", "8", "--tile", "2")
    assert out.returncode == 0
    assert "global loads" in out.stdout and "256" in out.stdout


@pytest.mark.parametrize(
    "args,param",
    [
        (["count", "--M", "abc"], "M"),
        (["count", "--tile", "64"], "T"),
        (["count", "--kernel", "register", "--BM", "8", "--TM", "3"], "TM"),
        (["count", "--kernel", "smem", "--BM", "4"], "--BM"),
        (["count", "--bogus", "1"], "--bogus"),
        (["count", "--kernel", "nope"], "--kernel"),
        (["trace", "--M", "100"], "M"),
        (["trace", "--thread", "99"], "thread"),
    ],
)
def test_bad_arguments_exit_2_with_one_line(args, param):
    out = run(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and param in lines[0]


def test_trace_prints_steps_and_check():
    out = run("trace", "--kernel", "smem", "--M", "4", "--N", "4", "--K", "8", "--tile", "2", "--thread", "3")
    assert out.returncode == 0
    assert "thread (1,1) loads A[1][1] into tileA[1][1]" in out.stdout
    assert out.stdout.strip().endswith("C matches NumPy: yes")
