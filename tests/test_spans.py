"""Phase spans copy no store; an Inspect without the means to say so falls back, and says so."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator

import inspect_ai.util._store as inspect_store
import pytest

from gaa import _spans


@pytest.fixture
def fresh_lookup() -> Iterator[None]:
    _spans._suspend_store_events.cache_clear()
    yield
    _spans._suspend_store_events.cache_clear()


@pytest.mark.usefixtures("fresh_lookup")
def test_phase_spans_suspend_store_tracking() -> None:
    with _spans._suspended():
        assert inspect_store.store_events_suspended()
    assert not inspect_store.store_events_suspended()


@pytest.mark.usefixtures("fresh_lookup")
def test_without_the_inspect_function_spans_copy_and_the_log_says_so(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delattr(inspect_store, "suspend_store_events")
    with caplog.at_level(logging.INFO, logger="gaa._spans"):
        suspended = _spans._suspended()
    assert isinstance(suspended, contextlib.nullcontext)
    assert "no suspend_store_events" in caplog.text
