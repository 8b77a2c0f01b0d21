"""`python -m pysim run FILE --sass` (issue 40 item 6): the playground file compiled through Numba-CUDA's PTX
and ptxas, no GPU. A sum started at 0.0 is float64 in Numba, and the compiler says so (DADD, with its line);
started at float32(0.0) it is FFMA. A missing toolchain is one line with the install command, never a crash."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tools.sass import playground, toolchain

SOLUTION = Path(__file__).resolve().parents[2] / "pysim" / "play" / "solutions" / "naive.py"


def test_a_float32_sum_compiles_to_ffma() -> None:
    found = playground.report(SOLUTION.read_text(), str(SOLUTION))
    assert found["classes"]["FFMA"] > 0 and found["float64"] == [], found
    assert found["registers"] > 0 and found["local_memory"] == {"LDL": 0, "STL": 0}


def test_a_sum_started_at_0_0_is_float64_and_the_cli_names_its_line(tmp_path: Path) -> None:
    text = SOLUTION.read_text()
    assert "total = float32(0.0)" in text
    file = tmp_path / "naive64.py"
    file.write_text(text.replace("total = float32(0.0)", "total = 0.0"))
    line = 1 + text.splitlines().index(next(row for row in text.splitlines() if "total +=" in row))
    done = subprocess.run(
        [sys.executable, "-m", "pysim", "run", str(file), "--M", "8", "--N", "8", "--K", "8", "--sass", "--json"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)["sass"]
    assert {"line": line, "instruction": "DADD"} in found["float64"] and "FFMA" not in found["classes"]


def test_no_numba_is_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(playground, "CHILD", "raise ModuleNotFoundError(\"No module named 'numba'\")")
    with pytest.raises(toolchain.MissingToolchainError, match="pip install numba nvidia-cuda-nvcc"):
        playground.ptx("", "x.py", "sm_80")


def test_a_file_numba_refuses_is_its_error_line() -> None:
    with pytest.raises(toolchain.CompileError, match="Numba could not compile x.py: KeyError: 'kernel'"):
        playground.ptx("from numba import cuda\n", "x.py", "sm_80")
