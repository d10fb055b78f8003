"""Inspect model providers GAA adds; they know nothing of the benchmark.

- ``litellm/<model>``: any provider LiteLLM supports, in-process (``litellm.acompletion``).
- ``gaa-local/<model>``: the embedded local model (a GGUF file run by llama-cpp-python).

They are registered lazily through the ``inspect_ai`` entry point (``gaa._registry``), so heavy
imports happen only when a provider is used.
"""
