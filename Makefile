# GAA developer commands. Each target installs what it needs into .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.gaa-installed

.PHONY: install test lint typecheck unit demo clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml plugins/gaa-example-plugin/pyproject.toml
	$(BIN)/python -m pip install -q -e ".[dev]" -e plugins/gaa-example-plugin
	touch $(STAMP)

install: $(STAMP)

lint: install
	$(BIN)/ruff check src tests tasks plugins bench

typecheck: install
	$(BIN)/mypy src

unit: install
	$(BIN)/pytest -q

test: lint typecheck unit

demo: install
	$(BIN)/gaa demo --doctors reference/exemplary,reference/pushy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
