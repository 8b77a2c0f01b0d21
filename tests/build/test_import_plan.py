"""The order site/main.py imports our modules in (tools/sitebuild/import_plan.py), checked against the
import system itself in a fresh interpreter: the plan loads exactly what importing the view loads,
and each of its imports runs one module, or one package whose `__init__` imports its own modules."""

import json
import subprocess
import sys

import pytest

from tools.sitebuild.import_plan import SHELL, import_plan
from tools.sitebuild.paths import ROOT

# Imports the plan's modules one by one, as site/main.py does, and the view's module directly, each
# against a fresh stand-in page; prints what each import newly loaded.
STEPS = """
import importlib, json, sys
sys.path.insert(0, "site")
from tools.sitebuild.fakedom import Document
from tools.sitebuild.prerender import browser_stand_in
import app.core.urlstate  # site/main.py imports it before the plan
plan = json.loads(sys.stdin.read())
ours = lambda: {m for m in sys.modules if m.partition(".")[0] in ("app", "pysim")}
found = {}
for module in plan:
    with browser_stand_in(Document()):
        shell = [] if module == "app.core.shell" else plan["app.core.shell"]
        for name in shell:
            importlib.import_module(name)
        steps = []
        for name in plan[module]:
            before = ours()
            importlib.import_module(name)
            steps.append(sorted(ours() - before))
    with browser_stand_in(Document()):
        for name in shell:
            importlib.import_module(name)
        before = ours()
        importlib.import_module(module)
        direct = sorted(ours() - before)
    found[module] = {"steps": steps, "direct": direct}
print(json.dumps(found))
"""


@pytest.fixture(scope="module")
def plan() -> dict[str, list[str]]:
    return json.loads(import_plan())


@pytest.fixture(scope="module")
def imported(plan) -> dict[str, dict]:
    done = subprocess.run(
        [sys.executable, "-c", STEPS], input=json.dumps(plan), cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout)


def test_every_view_has_a_plan_that_ends_with_its_module(plan):
    views = {"app.views.tiling", "app.views.blocktiled", "app.views.playground.page", "app.views.ladder"}
    assert views <= set(plan) and SHELL in plan
    assert all(modules[-1] == module for module, modules in plan.items())


def test_the_plan_loads_what_importing_the_view_loads(imported):
    for module, found in imported.items():
        loaded = [name for step in found["steps"] for name in step]
        assert sorted(loaded) == found["direct"], module
        assert len(loaded) == len(set(loaded))


def test_each_import_of_the_plan_runs_one_module_or_one_package(imported):
    """A module imported before the ones it needs would bring them in with it: one long task again."""
    for module, found in imported.items():
        for step in found["steps"]:
            package = min(step, key=len) if step else ""
            assert all(name == package or name.startswith(package + ".") for name in step), (module, step)


def test_the_shell_and_the_views_come_in_small_pieces(imported):
    """Only the packages that import their own modules come in more than one at a time: the
    playground's simulator (pysim.play) is the largest piece, and no other view has it."""
    for module, found in imported.items():
        largest = max(found["steps"], key=len)
        # pysim.lessons.guides imports its module of each guided view (eight, and common, model, marking) at once;
        # pysim.kernels its kernel modules (k01 .. k13, and the mma and wgmma kernels' layouts) and contract.py in
        # one piece (15: the registry imports every kernel; a lazy one would keep #/tiling from importing k12, k13).
        guides = 12 if min(largest, key=len) == "pysim.lessons.guides" else 15
        assert len(largest) <= (20 if module == "app.views.playground.page" else guides), (module, largest)
        assert ("pysim.play" in found["direct"]) == (module == "app.views.playground.page"), module
