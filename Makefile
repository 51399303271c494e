# genesis: the two set-up commands are `make demo` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: browser test test-fast demo lint typecheck docs site bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The tour needs the runtime alone: its own small venv with genesis and its five
# dependencies, without the dev tools, the extras or a PostgreSQL server.
DEMO_VENV  ?= .venv-demo
DEMO_STAMP := $(DEMO_VENV)/.installed

$(DEMO_STAMP): pyproject.toml
	$(PYTHON) -m venv $(DEMO_VENV)
	$(DEMO_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -e .
	touch $(DEMO_STAMP)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,postgres,mcp,web]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check genesis_git tests bench

typecheck: $(STAMP)
	$(BIN)/mypy genesis_git

# The gate CI runs: lint, types, the docs site and the whole suite (slow tests included),
# coverage >= 90 %.
# The browser tests of `genesis web` use Debian's Chromium (no browser is downloaded at test
# time): installed here when it is missing and apt-get can; otherwise those tests are skipped
# and say why.
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  sudo=""; if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo="sudo -n"; fi; \
	  if command -v apt-get >/dev/null 2>&1; then \
	    { $$sudo apt-get update -qq && $$sudo apt-get install -y -qq chromium; } >/dev/null \
	      || echo "make: could not install chromium; the browser tests will be skipped" >&2; \
	  else echo "make: no apt-get to install chromium; the browser tests will be skipped" >&2; fi; }

test: browser lint typecheck site
	$(BIN)/python -m pytest --cov=genesis_git --cov-report=term --cov-fail-under=90

# While developing: the suite without the tests marked slow, and no coverage.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -m "not slow"

demo: $(DEMO_STAMP)
	$(DEMO_VENV)/bin/python examples/demo.py

docs: $(STAMP)
	$(BIN)/python -m genesis_git.cli.docs > docs/reference/cli.md
	$(BIN)/python -m genesis_git.cli.docs --man > docs/genesis.1
	$(BIN)/python -m genesis_git.config.reference configuration > docs/reference/configuration.md
	$(BIN)/python -m genesis_git.config.reference environment > docs/reference/environment.md

# The documentation as a static site, built with --strict into a temporary folder, so that a
# broken link or anchor between pages, or a page missing from mkdocs.yml, fails the build.
site: $(STAMP)
	@tmp=$$(mktemp -d) && $(BIN)/mkdocs build --strict --quiet --site-dir "$$tmp"; \
	status=$$?; rm -rf "$$tmp"; exit $$status

bench: $(STAMP)
	$(BIN)/python bench/index_bench.py

clean:
	rm -rf $(VENV) $(DEMO_VENV) build dist site .pytest_cache .mypy_cache .ruff_cache .coverage .coverage.*
