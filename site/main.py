"""PyScript entry point: load NumPy, then hand the page to the app.

NumPy's wheel is already downloading (the boot guard preloads it while the interpreter
boots), so `loadPackage` mostly unpacks and links it. Our modules are imported one by one in
the order the build recorded (tools/sitebuild/import_plan.py), and the browser gets the thread
back whenever a slice of time has passed (an `await`), so no task of ours holds the main
thread for long: the page paints and answers input while Python starts.
"""

import asyncio
import importlib
import json
import time
from pathlib import Path

import pyodide_js
from pyscript import window

from app.core.urlstate import modules_shown  # the route table: the standard library only

SLICE_S = 0.03  # a task's imports stop after this (the browser's long tasks start at 50 ms)

window.tilelabBoot.stage("Loading NumPy…")
await pyodide_js.loadPackage("numpy")  # noqa: F704 - PyScript runs this module with top-level await
window.tilelabBoot.stage("Building the view…")
importlib.import_module("numpy")
await asyncio.sleep(0)  # noqa: F704 - NumPy's import is a task of its own
plan = json.loads(Path("import_plan.json").read_text(encoding="utf-8"))  # PLAN_FILE, in the Python archive
sliced = time.perf_counter()
for shown in ("app.core.shell", *modules_shown(str(window.location.hash))):
    for module in plan[shown]:
        importlib.import_module(module)
        if time.perf_counter() - sliced > SLICE_S:
            await asyncio.sleep(0)  # noqa: F704 - yield to the browser
            sliced = time.perf_counter()
await asyncio.sleep(0)  # noqa: F704 - building the view is a task of its own

from app.core import shell  # noqa: E402 - needs NumPy loaded first

window.tilelabBoot.takeOver()  # every container as written again; the view is built on it in this same task
shell.start()
