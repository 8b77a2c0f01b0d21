"""The order site/main.py imports our modules in, a few to each task of the browser's main thread.

Imported in one go, a view's modules hold Pyodide's thread for 0.2 s (a long task: the page answers no
input meanwhile, and Lighthouse counts it as blocking time). Imported one by one in the order the import
system finishes them, each import runs one module's own body, its dependencies having come before it,
and site/main.py yields to the browser between them whenever a slice of time has passed.

The order is recorded at build time, in a CPython of its own (`python -m tools.sitebuild.import_plan`) with
NumPy loaded and the browser's modules stood in for (tools/sitebuild/prerender.py), as the page has them:
for the shell, then for each view's module after the shell. A package whose `__init__` imports its
modules (pysim.play, pysim.kernels) still comes in one piece, with the subpackages those import: its
modules cannot run before it.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from collections.abc import Iterable, Sequence
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec, PathFinder
from types import ModuleType

from tools.sitebuild.errors import BuildError
from tools.sitebuild.fakedom import Document
from tools.sitebuild.paths import ROOT
from tools.sitebuild.prerender import browser_stand_in

PACKAGES = ("app", "pysim")  # ours: the page's other modules come in with the first of ours that imports them
PLAN_FILE = "import_plan.json"  # in the Python archive, beside the packages: site/main.py reads it
SHELL = "app.core.shell"


class FinishOrder(MetaPathFinder):
    """Finds our modules as the path finder does, and notes each one once its body has run: all but
    those a package's `__init__` imports of its own, which cannot be imported before it, so come with it."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.running: set[str] = set()

    def find_spec(
        self, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if name.partition(".")[0] not in PACKAGES:
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is not None and spec.loader is not None:
            spec.loader = Noting(spec.loader, self)
        return spec


class Noting(Loader):
    """A module's own loader, which also tells the finder when the module runs."""

    def __init__(self, loader: Loader, finder: FinishOrder) -> None:
        self.loader = loader
        self.finder = finder

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        name = module.__name__
        # Imported while a package above it runs its `__init__` (its parent's, or a grandparent's such as
        # pysim.play for pysim.play.policy.kernel): it cannot be imported before that package.
        parts = name.split(".")
        within_its_package = any(".".join(parts[:end]) in self.finder.running for end in range(1, len(parts)))
        self.finder.running.add(name)
        try:
            self.loader.exec_module(module)
        finally:
            self.finder.running.discard(name)
        if not within_its_package:
            self.finder.order.append(name)

    def __getattr__(self, name: str) -> object:  # the rest (resource readers, source) as the loader has it
        return getattr(self.loader, name)


def finish_order(first: Iterable[str], modules: Iterable[str]) -> list[str]:
    """Our modules that importing `modules` runs, in the order they finish, once `first` are imported."""
    finder = FinishOrder()
    with browser_stand_in(Document()):
        for module in first:
            importlib.import_module(module)
        sys.meta_path.insert(0, finder)
        try:
            for module in modules:
                importlib.import_module(module)
        finally:
            sys.meta_path.remove(finder)
    return finder.order


def record() -> dict[str, list[str]]:
    """{module main.py imports: the modules to import before it, and it, in order}."""
    views = importlib.import_module("app.core.urlstate").VIEWS  # standard library only: nothing to forget
    plan = {SHELL: finish_order((), (SHELL,))}
    for module in dict.fromkeys(view.module for view in views):
        plan[module] = finish_order((SHELL,), (module,))
    return plan


def import_plan() -> str:
    """The plan as JSON, recorded in a fresh interpreter (this one may have imported our modules already)."""
    done = subprocess.run(
        [sys.executable, "-m", "tools.sitebuild.import_plan"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise BuildError(f"recording the import plan failed:\n{done.stderr}")
    return done.stdout


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "site"))
    print(json.dumps(record(), indent=0))
