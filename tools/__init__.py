"""The project's own tooling: the build (tools/sitebuild/) and the browser harness (tools/harness.py)."""
