"""The project's own tooling: the build (tools/build/) and the browser harness (tools/harness.py)."""
