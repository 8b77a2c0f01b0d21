"""C is what the simulated threads stored: a broken store must fail every check that shows C.

These tests break the simulation on purpose (a wrong value, a missing store) and
expect the trace's check, the CLI's c_matches and the assembled C to say so.
The trace JSON's stores, assembled here without pysim, must equal NumPy's A @ B.
"""

import json
import subprocess
import sys
from dataclasses import replace

import numpy as np
import pytest

from pysim.cli import main
from pysim.core.trace import Trace
from pysim.hardware.params import NaiveParams, RegisterParams, SmemParams, TransposeParams
from pysim.kernels import KERNELS

CASES = {
    "naive": NaiveParams(M=5, N=3, K=4, T=2),
    "smem": SmemParams(M=7, N=5, K=11, T=4),
    "register": RegisterParams(M=7, N=5, K=11, BM=4, BN=4, BK=4, TM=2, TN=2),
    "transpose": TransposeParams(n=5, TILE=4, pad=1),
}
CLI_ARGS = {
    "naive": ["--M", "5", "--N", "3", "--K", "4", "--tile", "2"],
    "smem": ["--M", "7", "--N", "5", "--K", "11", "--tile", "4"],
    "register": ["--M", "7", "--N", "5", "--K", "11", "--BM", "4", "--BN", "4", "--BK", "4", "--TM", "2", "--TN", "2"],
    "transpose": ["--n", "5", "--tile", "4", "--pad", "1"],
}


def break_stores(monkeypatch, kernel, fault):
    """Make every C store of the kernel go through `fault(access) -> access`."""
    original = kernel.module.block_steps

    def broken(*args):
        for step in original(*args):
            accesses = tuple(fault(a) if a.array == "C" and a.op == "store" else a for a in step.accesses)
            yield replace(step, accesses=accesses)

    monkeypatch.setattr(kernel.module, "block_steps", broken)


def minus_one(access):
    return replace(access, values=np.full(access.values.shape, -1, dtype=np.float32))


def first_thread_skips(access):
    rows = access.rows.copy()
    rows[0, 0] = -1
    return replace(access, rows=rows)


@pytest.mark.parametrize("name", CASES)
def test_unbroken_runs_verify(name):
    trace = Trace(KERNELS[name], CASES[name])
    assert trace.c_matches()
    np.testing.assert_array_equal(trace.final_c(), trace.expected)


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("fault", [minus_one, first_thread_skips])
def test_a_broken_store_fails_the_check_the_cli_and_c(monkeypatch, capsys, name, fault):
    kernel = KERNELS[name]
    break_stores(monkeypatch, kernel, fault)
    trace = Trace(kernel, CASES[name])
    assert not trace.c_matches()
    assert not np.array_equal(trace.c_after(len(trace) - 1), trace.expected)
    assert main(["count", "--kernel", name, *CLI_ARGS[name], "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["c_matches"] is False


def test_c_grows_block_by_block_from_the_stores():
    trace = Trace(KERNELS["smem"], SmemParams(M=4, N=4, K=2, T=2))
    first_store = next(s.index for s in trace if s.phase == "store")
    assert np.isnan(trace.c_after(first_store - 1)).all()
    after = trace.c_after(first_store)
    assert np.count_nonzero(~np.isnan(after)) == 4
    np.testing.assert_array_equal(after[:2, :2], (trace.A @ trace.B)[:2, :2])
    assert np.isnan(trace.c_after(0)).all(), "going back forgets later stores"


@pytest.mark.parametrize("name", CASES)
def test_trace_json_stores_assemble_to_numpy(name):
    done = subprocess.run(
        [sys.executable, "-m", "pysim", "trace", "--kernel", name, *CLI_ARGS[name], "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    header, steps, last = lines[0], lines[1:-1], lines[-1]
    A, B = np.array(header["A"], dtype=np.float32), np.array(header["B"], dtype=np.float32)
    expected = A.T if name == "transpose" else A @ B
    c = np.full(expected.shape, np.nan, dtype=np.float32)
    for step in steps:
        assert set(step) == {"index", "block", "phase", "line", "accesses"}
        for access in step["accesses"]:
            assert access["space"] in ("global", "shared", "register") and access["op"] in ("load", "store")
            if access["array"] == "C" and access["op"] == "store":
                c[tuple(access["index"])] = access["value"]
    np.testing.assert_array_equal(c, expected)
    np.testing.assert_array_equal(np.array(last["C"], dtype=np.float32), expected)
    assert last["c_matches"] is True
    assert [s["index"] for s in steps] == list(range(len(steps)))


def test_trace_json_loads_carry_the_values_read():
    done = subprocess.run(
        [sys.executable, "-m", "pysim", "trace", "--kernel", "smem", *CLI_ARGS["smem"], "--json", "--limit", "3"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    A = np.array(lines[0]["A"])
    assert len(lines) == 1 + 3 + 1
    for access in lines[2]["accesses"]:
        if access["array"] == "A":
            assert access["value"] == A[tuple(access["index"])]
