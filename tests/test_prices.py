"""Cost estimates from the price table: names resolved, cache rates used, unknowns named."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gaa.report.prices import FREE, Price, cache_read_share, estimate, price_of, price_table
from gaa.report.tokens import TokenCount

TABLE = {
    "gpt-x": {
        "input_cost_per_token": 2e-6,
        "output_cost_per_token": 8e-6,
        "cache_read_input_token_cost": 5e-7,
    },
    "vendor/model-y": {"input_cost_per_token": 1e-6, "output_cost_per_token": 1e-6},
    "sample_spec": {"max_tokens": "not a model"},
}


def test_inspect_names_resolve_to_table_names() -> None:
    assert price_of("openai/gpt-x", TABLE) == Price(2e-6, 8e-6, 5e-7, None)
    assert price_of("litellm/openai/gpt-x", TABLE) == price_of("gpt-x", TABLE)
    assert price_of("litellm/vendor/model-y", TABLE) == Price(1e-6, 1e-6)
    assert price_of("openai/sample_spec", TABLE) is None  # an entry without prices
    assert price_of("openai/gpt-unknown", TABLE) is None


def test_models_on_this_machine_are_free() -> None:
    assert price_of("gaa-local/qwen2.5-0.5b", {}) == FREE
    assert price_of("mockllm/model", {}) == FREE


def test_cost_uses_each_rate_and_the_input_rate_where_a_cache_rate_is_missing() -> None:
    tokens = TokenCount(input=1000, output=100, total=0, cache_read=4000, cache_write=10)
    with_cache = Price(input=2.0, output=8.0, cache_read=0.5)
    assert with_cache.cost(tokens) == 1000 * 2 + 100 * 8 + 4000 * 0.5 + 10 * 2.0
    assert Price(input=1.0, output=1.0).cost(tokens) == 1000 + 100 + 4000 + 10


def test_estimate_sums_priced_models_and_names_the_rest() -> None:
    cost = estimate(
        {
            "openai/gpt-x": TokenCount(input=1_000_000, output=0),
            "mockllm/judge": TokenCount(input=50_000, output=50_000),
            "acme/secret": TokenCount(input=1, output=1),
        },
        TABLE,
    )
    assert cost.dollars == pytest.approx(2.0)
    assert cost.unpriced == ["acme/secret"] and not cost.complete


def test_cache_read_share_counts_every_input_token() -> None:
    assert cache_read_share(TokenCount(input=250, cache_read=750)) == 0.75
    assert cache_read_share(TokenCount(input=250)) is None  # not reported is not zero


def test_the_bundled_table_is_read_offline_and_a_file_can_replace_it(tmp_path: Path) -> None:
    bundled = price_table()
    assert "gpt-4o" in bundled  # LiteLLM's maintained table, from the installed package
    own = tmp_path / "prices.json"
    own.write_text(json.dumps({"house-model": {"input_cost_per_token": 1.0}}))
    assert list(price_table(str(own))) == ["house-model"]
