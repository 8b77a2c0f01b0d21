"""Bundling TileLab into dist/ and into SCORM packages; `python build.py` runs tools/sitebuild/cli.py.

Imports go one way: cli -> scorm -> site -> manifest, icons, runtime -> files -> paths, errors
(and cli -> serve, which imports nothing of ours).
"""
