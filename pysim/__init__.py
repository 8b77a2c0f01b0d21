"""pysim: a thread-by-thread simulator of SGEMM kernels on a GPU's memory hierarchy.

Pure Python + NumPy, so it runs the same in CPython and in the browser (Pyodide).

The package imports nothing itself: every `import pysim.core.…` runs this file first, and
the page imports pysim a few modules per task, so that no task of start-up holds the
browser's main thread for long (site/main.py). Import names from their modules.
"""

__version__ = "0.1.0"
