# ModelBoards: the two commands of the README are `make site` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
NPM    ?= npm

.PHONY: site real-site test lint collect install install-test browser java golden snapshots bench clean wheel lock

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Stamp files in the venv: an install runs again only when what it installs from changed (or
# the other install ran since: site.txt and ci.txt pin some packages differently), and the
# warm step only when the package's sources did. Removing .venv removes them too.
INSTALL_INPUTS := pyproject.toml setup.py package-lock.json
SITE_STAMP := $(VENV)/.modelboards-site-installed
TEST_STAMP := $(VENV)/.modelboards-test-installed
WARM_STAMP := $(VENV)/.modelboards-warm
WARM_INPUTS := $(shell find builder templates -name '*.py' -o -name '*.html' -o -name '*.xml' 2>/dev/null)

## install: the package and the site's front-end libraries (D3), no test tools; dependencies from the hash-pinned
## requirements/site.txt; then the numba kernels and templates compiled ahead (`modelboards warm`). Skipped when done.
install: $(SITE_STAMP)
	@$(MAKE) -s --no-print-directory $(WARM_STAMP)

$(SITE_STAMP): requirements/site.txt $(INSTALL_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install -q --require-hashes --no-deps -r requirements/site.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	$(NPM) ci --no-audit --no-fund
	rm -f $(TEST_STAMP) $(WARM_STAMP)
	touch $@

# warm: the package's bytecode, numba's machine code for every kernel and the compiled templates, each into
# its cache (the checkout's __pycache__ folders, gitignored; jinja2's), so the first build runs like the second
$(WARM_STAMP): $(WARM_INPUTS)
	$(BIN)/python -m compileall -q -j 0 builder
	$(BIN)/modelboards warm
	touch $@

## site: install, then build the site from the bundled data (offline) into site/
site: install
	$(BIN)/modelboards build --timings

## real-site: the live path offline: serve the real upstream files (REAL_DATA, default ../shared/data,
## else the pinned copies tests/realdata.py downloads) from 127.0.0.1 and `build --live` them into site-real/
REAL_DATA ?= $(wildcard ../shared/data)
real-site: install
	$(BIN)/python tests/realsite.py $(if $(REAL_DATA),$(REAL_DATA),-) site-real

## install-test: the package with its test extras (the hash-pinned requirements/ci.txt), npm dev tools, Chromium and Java
install-test: $(TEST_STAMP)
	@$(MAKE) -s --no-print-directory $(WARM_STAMP)
	@$(MAKE) --no-print-directory browser
	@$(MAKE) --no-print-directory java

$(TEST_STAMP): requirements/ci.txt $(INSTALL_INPUTS) | $(BIN)/python
	$(BIN)/python -m pip install -q --require-hashes --no-deps -r requirements/ci.txt
	$(BIN)/python -m pip install -q --no-deps -e .
	$(NPM) ci --no-audit --no-fund
	rm -f $(SITE_STAMP) $(WARM_STAMP)
	touch $@

## java: Java 17 for PySpark's local mode (the spark engine's tests): Debian's openjdk-17-jre-headless where we are root on Debian
java:
	@if command -v java >/dev/null 2>&1; then echo "java: $$(command -v java)"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless; \
	else echo "java: not found; install Java 17 for the spark engine's tests (they are skipped without it)"; fi

## browser: Debian's Chromium where we are root on Debian, else Playwright's own build
browser:
	@if [ -x /usr/bin/chromium ]; then echo "browser: /usr/bin/chromium"; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	else $(BIN)/python -m playwright install chromium; fi

## wheel: a self-contained wheel in dist/ (D3 from node_modules goes inside it: see setup.py)
wheel: $(BIN)/python
	$(NPM) ci --no-audit --no-fund
	$(BIN)/python -m pip wheel --no-deps -q -w dist .

## test: install what the tests need, run the checks (lint), then the whole suite
test: install-test
	@$(MAKE) --no-print-directory -j 2 --output-sync=target lint collect
	$(BIN)/python -m pytest -n 2 --dist worksteal -q

# collect: on the core lint leaves free, the tests collected once with bytecode writing on (even
# where PYTHONDONTWRITEBYTECODE is set), so the test modules as pytest rewrites their asserts are
# cached in tests/__pycache__ and each xdist worker reads them (collecting takes 7.6 s instead of
# 13.9 s a worker). A collection error is left for the run itself to report.
collect: $(BIN)/python
	-@PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider > /dev/null 2>&1

## lock: pin every dependency with its hashes (requirements/site.txt, requirements/ci.txt) after pyproject.toml changes
lock: $(BIN)/python
	$(BIN)/python -m pip install -q pip-tools
	$(BIN)/pip-compile -q --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links -o requirements/site.txt pyproject.toml
	$(BIN)/pip-compile -q --generate-hashes --strip-extras --allow-unsafe --no-emit-index-url --no-emit-find-links --extra test -o requirements/ci.txt pyproject.toml

## lint: the layer contracts (lint-imports), ruff and mypy, all configured in pyproject.toml
lint: $(BIN)/python
	$(BIN)/lint-imports
	$(BIN)/ruff check builder tests
	$(BIN)/mypy

## golden: regenerate the golden files (review the diff before committing)
golden: $(BIN)/python
	MODELBOARDS_REGEN_GOLDEN=1 $(BIN)/python -m pytest -q tests/test_render_golden.py

## snapshots: regenerate the demo history in snapshots/ (after a snapshot schema change)
snapshots: $(BIN)/python
	$(BIN)/modelboards backfill --demo --start 2026-09-20 --end 2026-11-29 --every 7 --force

## bench: the benchmarks (ratios against the reference methods, printed; not tests)
bench: $(BIN)/python
	for b in tests/bench/bench_*.py; do $(BIN)/python $$b || exit 1; done

clean:
	rm -rf site site-real site-real.work .modelboards .pytest_cache .mypy_cache .ruff_cache .import_linter_cache build dist
