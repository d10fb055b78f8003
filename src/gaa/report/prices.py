"""What tokens cost: an estimate from LiteLLM's maintained price table, read offline.

LiteLLM (a GAA dependency) ships its table of model prices as a JSON file inside the package;
GAA reads that file directly, so pricing neither imports LiteLLM nor fetches the online copy.
``GAA_PRICE_TABLE`` names another file of the same format (your negotiated prices, say).

Inspect reports input tokens without the cached ones (``input_tokens``), and cache reads and
writes apart, so a run's cost is each count times its own price; a model whose price has no
cache rates pays the plain input rate for them. Models that run on this machine (the embedded
model, a local server, scripted models) cost nothing; a model the table does not know is
reported as unpriced, never as free.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import Any

from gaa.report.tokens import TokenCount

PRICE_TABLE_ENV = "GAA_PRICE_TABLE"
TABLE_FILE = "model_prices_and_context_window_backup.json"
LOCAL_PROVIDERS = frozenset({"gaa-local", "mockllm", "llama-cpp-python", "ollama", "none"})
"""Inspect providers whose models run on this machine: no charge."""


@dataclass(frozen=True)
class Price:
    """US dollars per token."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    def cost(self, tokens: TokenCount) -> float:
        read = tokens.cache_read or 0
        write = tokens.cache_write or 0
        return (
            tokens.input * self.input
            + tokens.output * self.output
            + read * (self.input if self.cache_read is None else self.cache_read)
            + write * (self.input if self.cache_write is None else self.cache_write)
        )


FREE = Price(0.0, 0.0, 0.0, 0.0)


@cache
def price_table(path: str | None = None) -> dict[str, Any]:
    """The price table: ``path``, else ``$GAA_PRICE_TABLE``, else LiteLLM's bundled copy
    (empty when LiteLLM is not installed: then every remote model is unpriced)."""
    chosen = path or os.environ.get(PRICE_TABLE_ENV)
    try:
        text = (
            Path(chosen).read_text(encoding="utf-8")
            if chosen
            else files("litellm").joinpath(TABLE_FILE).read_text(encoding="utf-8")
        )
    except (ModuleNotFoundError, FileNotFoundError):
        return {}
    data = json.loads(text)
    return data if isinstance(data, dict) else {}


def _candidates(model: str) -> list[str]:
    """``litellm/openai/gpt-4o`` -> itself, ``openai/gpt-4o``, ``gpt-4o``."""
    parts = model.split("/")
    return ["/".join(parts[i:]) for i in range(len(parts))]


def price_of(model: str, table: Mapping[str, Any] | None = None) -> Price | None:
    """The price of an Inspect model name, or None when the table does not know it."""
    if model.split("/", 1)[0] in LOCAL_PROVIDERS:
        return FREE
    table = price_table() if table is None else table
    for name in _candidates(model):
        entry = table.get(name)
        if isinstance(entry, dict) and "input_cost_per_token" in entry:
            return Price(
                input=float(entry["input_cost_per_token"]),
                output=float(entry.get("output_cost_per_token", 0.0)),
                cache_read=_rate(entry.get("cache_read_input_token_cost")),
                cache_write=_rate(entry.get("cache_creation_input_token_cost")),
            )
    return None


def _rate(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) else None


@dataclass(frozen=True)
class Cost:
    """The estimated cost of some tokens, and the models it leaves out."""

    dollars: float
    unpriced: list[str] = field(default_factory=list)
    """Models with tokens the price table does not know (their cost is not in ``dollars``)."""

    @property
    def complete(self) -> bool:
        return not self.unpriced


def estimate(by_model: Mapping[str, TokenCount], table: Mapping[str, Any] | None = None) -> Cost:
    """The cost of every model's tokens that the table prices, naming those it cannot."""
    dollars, unpriced = 0.0, []
    for model, tokens in by_model.items():
        price = price_of(model, table)
        if price is None:
            unpriced.append(model)
        else:
            dollars += price.cost(tokens)
    return Cost(dollars, sorted(unpriced))


def cache_read_share(tokens: TokenCount) -> float | None:
    """The share of all input tokens served from a provider's cache (None if unreported)."""
    if tokens.cache_read is None:
        return None
    sent = tokens.input + tokens.cache_read + (tokens.cache_write or 0)
    return tokens.cache_read / sent if sent else None
