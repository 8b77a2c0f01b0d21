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

from app.core.urlstate import modules_shown  # the route table: the standard library only

window.tilelabBoot.stage("Loading NumPy…")
await pyodide_js.loadPackage("numpy")  # noqa: F704 - PyScript runs this module with top-level await
window.tilelabBoot.stage("Building the view…")
# pysim.play (the playground's simulator) comes in with every view's score book, and was 40 % of a view's
# import: a task of its own, and the view on screen's own import another, so `start` only builds.
for module in ("numpy", "pysim.core.trace", "pysim.play", "app.core.shell", *modules_shown(str(window.location.hash))):
    importlib.import_module(module)
    await asyncio.sleep(0)  # noqa: F704 - yield to the browser between imports

from app.core import shell  # noqa: E402 - needs NumPy loaded first

window.tilelabBoot.takeOver()  # the other routes as written again; the view on screen is built on its pre-render
shell.start()
