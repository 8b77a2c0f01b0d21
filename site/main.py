"""PyScript entry point: load NumPy, then hand the page to the app."""

import pyodide_js
from pyscript import window

window.tilelabBoot.stage("Loading NumPy…")
await pyodide_js.loadPackage("numpy")  # noqa: F704 - PyScript runs this module with top-level await
window.tilelabBoot.stage("Starting TileLab…")

from app import shell  # noqa: E402 - needs NumPy loaded first

shell.start()
