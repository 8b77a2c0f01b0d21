"""Bundle TileLab into dist/ (`python build.py --help` lists the options); the build itself is tools/sitebuild/."""

import sys

from tools.sitebuild.cli import main

if __name__ == "__main__":
    sys.exit(main())
