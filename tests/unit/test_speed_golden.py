"""The speed model's numbers, held still: `python -m pysim speed --json` for every kernel it profiles on
every device preset at a few sizes (odd ones included), and what the ladder's page computes from it
(the roofline, the why-faster sentences and the speed-of-light bars) in its default state on every
device, against tests/unit/data/speed_golden.jsonl, exactly (floats as JSON writes them: repr). The file has
one line per case, [section, case, what it gave], so a change shows as the lines of the cases it moves.

The data was recorded from the model as it stood before its tallies were vectorised (issue 44), so a
faster model must give the same numbers. Record again only when a change to the model's numbers is
meant, and say why in the commit:

    PYTHONPATH=. python tests/unit/test_speed_golden.py
"""

from __future__ import annotations

import contextlib
import io
import json
from dataclasses import asdict
from pathlib import Path

import pytest

from pysim import cli
from pysim.hardware.devices import DEVICES
from pysim.lessons import ladder
from pysim.lessons.ladder import LadderParams, siboehm_ladder
from pysim.lessons.roofline import roofline
from pysim.lessons.speed_of_light import speed_of_light, why_faster
from pysim.speed.profiles import BUILDERS

DATA = Path(__file__).parent / "data" / "speed_golden.jsonl"
SIZES = (1000, 1025, 4096, 4097)  # 4096: the ladder's default; 1025 and 4097 leave part-filled tiles
# The kernels' own defaults for every other parameter; naive also with threadIdx.x walking C's rows,
# and the ladder's tiles (whole warps, many of them: where the model's tallies cost the most).
VARIANTS = tuple((kernel,) for kernel in BUILDERS) + (
    ("pipelined",),
    ("mma",),  # the tensor pipe (issue 41 item 5); refused on the T4 and the RTX A6000, and at K = 1025, 4097
    ("naive", "--map", "row"),
    ("naive", "--tile", "32"),
    ("naive", "--tile", "32", "--map", "row"),
    ("smem", "--tile", "32"),
    ("register", "--BM", "128", "--BN", "128", "--BK", "8", "--TM", "8", "--TN", "8"),
)


def cli_cases() -> list[tuple[str, ...]]:
    return [
        ("speed", "--kernel", *variant, "--M", str(n), "--N", str(n), "--K", str(n), "--device", d)
        for variant in VARIANTS
        for d in DEVICES
        for n in SIZES
    ]


def run_cli(argv: tuple[str, ...]) -> dict:
    """What the command prints, in process: its JSON object, or its exit status and error line."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli.main([*argv, "--json"])
    return json.loads(out.getvalue()) if status == 0 else {"status": status, "error": err.getvalue()}


def ladder_page(device: str) -> dict:
    """What the ladder's page shows from the speed model, in its default state on `device`."""
    ladder.report_for.cache_clear()  # recompute: the page's caches would hide a change within one process
    ladder.profile_for.cache_clear()
    params = LadderParams(device=device)
    rungs = siboehm_ladder(params)
    chart = roofline(params, rungs)
    found = {
        "roofline": {"describe": chart.describe(), "points": [asdict(point) for point in chart.points]},
        "why_faster": [asdict(step) for step in why_faster(rungs)],
        "speed_of_light": [asdict(s) for rung in rungs if (s := speed_of_light(rung)) is not None],
    }
    return json.loads(json.dumps(found))  # tuples as lists, as the file holds them


def record() -> str:
    lines = [["cli", " ".join(argv), run_cli(argv)] for argv in cli_cases()]
    lines += [["ladder", device, ladder_page(device)] for device in DEVICES]
    return "".join(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n" for line in lines)


@pytest.fixture(scope="module")
def golden() -> dict[str, dict]:
    found: dict[str, dict] = {"cli": {}, "ladder": {}}
    for line in DATA.read_text().splitlines():
        section, case, value = json.loads(line)
        found[section][case] = value
    return found


def test_golden_covers_every_kernel_and_device(golden):
    assert set(golden["cli"]) == {" ".join(argv) for argv in cli_cases()}
    assert set(golden["ladder"]) == set(DEVICES)


@pytest.mark.parametrize("argv", cli_cases(), ids=" ".join)
def test_speed_json_is_unchanged(golden, argv):
    assert run_cli(argv) == golden["cli"][" ".join(argv)]


@pytest.mark.parametrize("device", sorted(DEVICES))
def test_ladder_page_is_unchanged(golden, device):
    assert ladder_page(device) == golden["ladder"][device]


if __name__ == "__main__":
    DATA.parent.mkdir(exist_ok=True)
    DATA.write_text(record())
    print(f"wrote {DATA}")
