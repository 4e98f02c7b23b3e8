# Set-up commands that work on a fresh machine: both create .venv and install
# the package with its pinned dependencies (requirements.lock) first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint bench clean

# Each step says what it does: the first install takes a minute or two and would otherwise look stuck.
$(STAMP): pyproject.toml requirements.lock
	@echo "==> Setting up reelforge in $(VENV) (first time only: about 1-2 minutes)"
	@test -x $(BIN)/python || { echo "==> Creating the virtual environment $(VENV)"; $(PYTHON) -m venv $(VENV); }
	@echo "==> Updating pip"
	@$(BIN)/python -m pip install -q --upgrade pip
	@echo "==> Installing reelforge and its pinned dependencies (requirements.lock)"
	@$(BIN)/python -m pip install -q -c requirements.lock -e ".[dev]"
	@touch $(STAMP)
	@echo "==> Installed"

run: $(STAMP)
	@echo "==> Starting the demo game server (Ctrl-C stops it)"
	@$(BIN)/reelforge serve --demo

lint: $(STAMP)
	$(BIN)/ruff check src tests

# The kernels are compiled once, two games at a time, before pytest starts: otherwise each worker compiles
# every kernel it reaches on a fresh checkout (tests/warm_kernels.py; on a warm cache it takes seconds).
test: $(STAMP) lint
	$(BIN)/python -m tests.warm_kernels
	$(BIN)/python -m pytest -n 3 --dist loadfile --no-loadscope-reorder

bench: $(STAMP)
	$(BIN)/reelforge bench

clean:
	rm -rf $(VENV) .pytest_cache build *.egg-info
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
