"""docs/GLOSSARY.md names what the code names: every module, attribute, file, kernel key and counter it
cites in backticks exists (a rename that forgets the glossary fails here)."""

from __future__ import annotations

import importlib
import re
from dataclasses import fields
from pathlib import Path

import pytest

from pysim.core.counters import Counters
from pysim.kernels import KERNELS

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = (ROOT / "docs" / "GLOSSARY.md").read_text(encoding="utf-8")
CITED = set(re.findall(r"`([^`]+)`", GLOSSARY))
DOTTED = sorted(name for name in CITED if re.fullmatch(r"(pysim|app)(\.\w+)+", name))


def resolve(dotted: str) -> object:
    """The module or attribute a dotted name names: the longest importable prefix, then attributes."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize("dotted", DOTTED)
def test_every_dotted_name_resolves(dotted):
    resolve(dotted)


def test_the_files_and_kernel_modules_it_names_exist():
    paths = [name for name in CITED if re.fullmatch(r"(pysim|site|tools|tests)/[\w/.]+", name)]
    modules = [name for name in CITED if re.fullmatch(r"k\d\d_\w+", name)]
    assert paths and modules
    assert [path for path in paths if not (ROOT / path).exists()] == []
    assert [name for name in modules if not (ROOT / "pysim" / "kernels" / f"{name}.py").exists()] == []


def test_the_kernel_keys_and_counters_it_names_are_the_codes():
    keys = re.search(r"\*\*kernel key\*\* \(([^)]*)\)", GLOSSARY)
    assert keys is not None
    assert re.findall(r"`(\w+)`", keys.group(1)) == list(KERNELS)
    counters = {name for name in CITED if re.fullmatch(r"[a-z]+(_[a-z]+)+", name)}
    assert counters and counters <= {spec.name for spec in fields(Counters)}


def test_the_check_sees_a_stale_name():
    with pytest.raises((ModuleNotFoundError, AttributeError)):
        resolve("pysim.hardware.bounds.TimeBound")
