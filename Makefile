# Two commands do all the set-up on a fresh machine:
#   make serve   installs what is needed, builds dist/ (with the course package) and serves it on http://127.0.0.1:8000/
#   make test    installs what is needed and runs the whole test suite
PYTHON ?= python3
PORT ?= 8000

.PHONY: serve test test-fast deps chromium lint bench

# Each install runs again only when its list changed (a stamp beside what it installed), so a second
# `make test-fast` starts testing at once; a fresh clone has no stamps and installs everything.
deps: .make/pip node_modules/.make-stamp

.make/pip: pyproject.toml
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -e ".[test]"
	@mkdir -p .make && touch $@

node_modules/.make-stamp: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

chromium:
	@if [ -z "$$TILELAB_CHROMIUM" ] && ! command -v chromium >/dev/null 2>&1; then \
		echo "installing Debian's chromium for the browser tests"; \
		apt-get update -qq && apt-get install -y -qq chromium >/dev/null; \
	fi

# --scorm: the full course package too, beside the site and linked from its home page
# (the link package needs the hosted copy's address: add SCORM_URL=https://.../).
SCORM_URL ?=
serve: deps
	$(PYTHON) build.py --scorm $(if $(SCORM_URL),--scorm-url $(SCORM_URL)) --serve --port $(PORT)

# ESLint (eslint.config.js) over our JavaScript: site/ and tests/js/.
lint:
	$(PYTHON) -m ruff check .
	$(PYTHON) -m ruff format --check .
	$(PYTHON) -m mypy
	npx --no-install eslint site tests/js eslint.config.js

# The layers without a browser on both cores (pytest-xdist), then the browser's one test at a time: two
# Chromiums each starting Pyodide on a two-core machine would only slow each other (and time out).
test: test-fast chromium
	$(PYTHON) -m pytest -q tests/browser

# Every layer but the browser's (tests/unit, tests/views, tests/build): a few minutes, no Chromium.
test-fast: deps lint
	$(PYTHON) -m pytest -q -n 2 -m "not browser"

bench: deps chromium
	$(PYTHON) bench/pysim_bench.py
	$(PYTHON) bench/tti.py
	$(PYTHON) bench/lighthouse.py
	$(PYTHON) bench/step_latency.py
	$(PYTHON) bench/long_run.py
