"""PyScript entry point: load NumPy, then hand the page to the app.

NumPy's wheel is already downloading (the boot guard preloads it while the interpreter
boots), so `loadPackage` mostly unpacks and links it.
"""

import pyodide_js
from pyscript import window

window.tilelabBoot.stage("Loading NumPy…")
await pyodide_js.loadPackage("numpy")  # noqa: F704 - PyScript runs this module with top-level await
window.tilelabBoot.stage("Starting TileLab…")

from app import shell  # noqa: E402 - needs NumPy loaded first

shell.start()
