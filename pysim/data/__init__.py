"""Data pysim ships to the browser, written by tools (each file names the tool that writes it)."""
