# Set-up commands that work on a fresh machine: both create .venv and install
# the package with its pinned dependencies (requirements.lock) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c requirements.lock -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/reelforge serve --demo

lint: $(STAMP)
	$(BIN)/ruff check src tests

test: $(STAMP) lint
	$(BIN)/python -m pytest -n 2 --dist loadfile

bench: $(STAMP)
	$(BIN)/reelforge bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
