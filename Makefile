# Two commands do all the set-up on a fresh machine:
#   make serve   installs what is needed, builds dist/ (with the course package) and serves it on http://127.0.0.1:8000/
#   make test    installs what is needed and runs the whole test suite
PYTHON ?= python3
PORT ?= 8000

.PHONY: serve test test-fast deps chromium lint bench

deps:
	$(PYTHON) -m pip install --quiet --disable-pip-version-check -e ".[test]"
	npm ci --no-audit --no-fund --loglevel=error

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

test: deps chromium lint
	$(PYTHON) -m pytest -q

# Every layer but the browser's (tests/unit, tests/views, tests/build): a few minutes, no Chromium.
test-fast: deps lint
	$(PYTHON) -m pytest -q -m "not browser"

bench: deps chromium
	$(PYTHON) bench/pysim_bench.py
	$(PYTHON) bench/tti.py
	$(PYTHON) bench/lighthouse.py
	$(PYTHON) bench/step_latency.py
	$(PYTHON) bench/long_run.py
