"""Building a task freezes the objects start-up made, once per process, and spaces the
collector's runs out, unless turned off."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from gaa import _heap


@pytest.fixture
def stock_collector(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    threshold = gc.get_threshold()
    gc.unfreeze()
    gc.set_threshold(700, 10, 10)
    monkeypatch.setattr(_heap, "_frozen", False)
    monkeypatch.delenv("GAA_GC_TUNE", raising=False)
    yield
    gc.set_threshold(*threshold)


@pytest.mark.usefixtures("stock_collector")
def test_settle_heap_freezes_once_and_spaces_collections() -> None:
    _heap.settle_heap()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    assert gc.get_threshold() == (3_000, 10, 10)
    made_later = [[i] for i in range(1000)]  # noqa: F841 - objects made after set-up
    _heap.settle_heap()  # a second task in the same process freezes nothing more
    assert gc.get_freeze_count() == frozen


@pytest.mark.usefixtures("stock_collector")
def test_settle_heap_never_changes_a_threshold_set_higher() -> None:
    gc.set_threshold(50_000, 5, 100)
    _heap.settle_heap()
    assert gc.get_threshold() == (50_000, 5, 100)


@pytest.mark.usefixtures("stock_collector")
def test_settle_heap_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GAA_GC_TUNE", "0")
    _heap.settle_heap()
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == (700, 10, 10)
