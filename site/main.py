"""PyScript entry point: load NumPy, then hand the page to the app.

NumPy's wheel is already downloading (the boot guard preloads it while the interpreter
boots), so `loadPackage` mostly unpacks and links it. The imports run as separate tasks
(an `await` between them lets the browser paint and answer input), so no single task of
ours holds the main thread for all of them.
"""

import asyncio
import importlib

import pyodide_js
from pyscript import window

window.tilelabBoot.stage("Loading NumPy…")
await pyodide_js.loadPackage("numpy")  # noqa: F704 - PyScript runs this module with top-level await
window.tilelabBoot.stage("Building the view…")
# pysim.play (the playground's simulator) comes in with every view's score book, and was 40 % of a view's
# import: a task of its own, and the view on screen's own import another, so `start` only builds.
for module in ("numpy", "pysim.core.trace", "pysim.play", "app.core.shell"):
    importlib.import_module(module)
    await asyncio.sleep(0)  # noqa: F704 - yield to the browser between imports

from app.core import shell  # noqa: E402 - needs NumPy loaded first

if view_module := shell.view_module(str(window.location.hash)):
    importlib.import_module(view_module)
    await asyncio.sleep(0)  # noqa: F704

window.tilelabBoot.takeOver()  # the other routes as written again; the view on screen is built on its pre-render
shell.start()
