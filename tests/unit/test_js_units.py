"""The JavaScript unit tests (tests/js/, Node's own runner, `node --test`), run as part of pytest's
run, which is what `make test` and CI read: route matching and template choice, the in-memory
IndexedDB and the boot guard's parts (site/boot/)."""

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 120


def test_node_unit_tests_pass():
    run = subprocess.run(
        ["node", "--test", "tests/js/"], cwd=ROOT, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
    )
    report = run.stdout + run.stderr
    assert run.returncode == 0, report[-4000:]
    passed = re.search(r"^# pass (\d+)$", report, re.M)
    assert passed and int(passed.group(1)) > 0, report[-4000:]  # a run that found no test passes too
