from __future__ import annotations

from collections.abc import Iterator

import pytest

from gaa import plugins


@pytest.fixture(autouse=True)
def fresh_plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test sees plugins loaded from scratch, with no GAA_DISABLE_PLUGINS leaking in."""
    monkeypatch.delenv(plugins.DISABLE_ENV, raising=False)
    plugins.reset()
    yield
    plugins.reset()
