"""Building a task freezes the objects start-up made, once per process, unless turned off."""

from __future__ import annotations

import gc

import pytest

from gaa import _heap


def test_settle_heap_freezes_once(monkeypatch: pytest.MonkeyPatch) -> None:
    gc.unfreeze()
    monkeypatch.setattr(_heap, "_settled", False)
    monkeypatch.delenv("GAA_GC_FREEZE", raising=False)
    _heap.settle_heap()
    frozen = gc.get_freeze_count()
    assert frozen > 0
    made_later = [[i] for i in range(1000)]  # noqa: F841 - objects made after set-up
    _heap.settle_heap()  # a second task in the same process freezes nothing more
    assert gc.get_freeze_count() == frozen


def test_settle_heap_can_be_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    gc.unfreeze()
    monkeypatch.setattr(_heap, "_settled", False)
    monkeypatch.setenv("GAA_GC_FREEZE", "0")
    _heap.settle_heap()
    assert gc.get_freeze_count() == 0
