"""Building a task freezes the objects start-up made, once per process, and spaces the
collector's runs out, unless turned off."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from gaa import _heap

REPO = Path(__file__).resolve().parents[1]


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


RUN_AFTER_BUILD = """
import json
import sys
from inspect_ai import eval
import gaa.dialogue.task as task_module

built = {}
settle = task_module.settle_heap

def settle_and_note() -> None:
    settle()
    built.setdefault("modules", set(sys.modules))

task_module.settle_heap = settle_and_note
[log] = eval(
    task_module.medical_dialogue(
        personas="INTJ_M_PNEUMO", doctor="reference/exemplary", patient="scripted",
        judge="rules",
    ),
    model="none", log_dir=sys.argv[1], display="none",
)
assert log.status == "success", log.error
print(json.dumps({"at_build": sorted(built["modules"]), "at_end": sorted(sys.modules)}))
"""


def modules_of_a_run(log_dir: Path, tune: bool) -> tuple[set[str], set[str]]:
    """The modules a fresh process held when its task was built and when its run ended."""
    environment = {key: value for key, value in os.environ.items() if key != "GAA_GC_TUNE"}
    if not tune:
        environment["GAA_GC_TUNE"] = "0"
    done = subprocess.run(
        [sys.executable, "-c", RUN_AFTER_BUILD, str(log_dir)],
        capture_output=True, text=True, timeout=300, check=False, cwd=REPO, env=environment,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    return set(found["at_build"]), set(found["at_end"])


def test_a_task_imports_what_its_run_would_import_before_it_freezes(tmp_path: Path) -> None:
    untuned_build, untuned_end = modules_of_a_run(tmp_path / "untuned", tune=False)
    tuned_build, tuned_end = modules_of_a_run(tmp_path / "tuned", tune=True)
    # a run left alone imports each of them anyway: importing them earlier costs it nothing
    assert [name for name in _heap.RUN_IMPORTS if name not in untuned_end] == []
    # imported before the freeze, they and what they pull in are not walked by the run's full
    # collections. OpenAI's types are left out on purpose (about 530 modules); of the others,
    # about 500 arrive after the build without them, about 230 with them (OpenAI's HTTP
    # clients, Markdown rendering, GAA's reference doctors)
    assert [name for name in _heap.RUN_IMPORTS if name not in tuned_build] == []
    tuned_later = {name for name in tuned_end - tuned_build if not name.startswith("openai")}
    untuned_later = {name for name in untuned_end - untuned_build if not name.startswith("openai")}
    assert len(tuned_later) < len(untuned_later) - 200
    assert [name for name in tuned_later if name.startswith(("numpy.", "pydantic.v1."))] == []


@pytest.mark.usefixtures("stock_collector")
def test_a_run_module_that_cannot_be_imported_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_heap, "RUN_IMPORTS", ("gaa_no_such_module", "json"))
    _heap.settle_heap()
    assert gc.get_freeze_count() > 0
