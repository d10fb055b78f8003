"""Keep the garbage collector off the objects that live for the whole run.

A full collection walks every tracked object in the process, and after start-up most of them
are Inspect's and GAA's modules, schemas, compiled rules and case files: they never become
garbage, yet each full collection walks them again, and a run's samples, events and model
replies only add to the walk. :func:`settle_heap`, called when a task is built:

- collects what start-up left behind and moves the survivors to the collector's permanent
  generation (:func:`gc.freeze`), once per process: thawing and collecting again for every
  task built later cost a full collection each and saved no memory in the bench;
- collects the youngest generation every 3,000 allocations instead of 700 (never lowering a
  threshold already set higher), so collections run about a quarter as often. The older
  generations keep their thresholds: spacing them out too held cyclic garbage long enough to
  raise the peak memory of 640 offline consultations from 523 to 652 MB.

A run imports more once it starts: Inspect's control server and agent protocol (with numpy,
uvicorn and pydantic's v1 layer) load at the first sample, after the task is built, and every
full collection of the run would walk them. So before it freezes, :func:`settle_heap` imports
:data:`RUN_IMPORTS`, which the run would import anyway, and they are frozen with the rest.
Freezing later, when the first sample starts, would also freeze the samples already set up,
and their cycles would never be collected (it raised the peak memory of 640 offline
consultations from 461 to 554 MB).

Objects made afterwards are collected as usual: frozen objects are still freed when their last
reference goes, only the collector no longer walks them. ``GAA_GC_TUNE=0`` leaves the collector
as it is.
"""

from __future__ import annotations

import gc
import importlib
import os

YOUNG_THRESHOLD = 3_000
RUN_IMPORTS = (
    "inspect_ai._control.current_server",
    "inspect_ai.agent._acp.server",
    "numpy",
    "pydantic.v1",
    "uvicorn",
)
"""Modules an Inspect run imports after the task is built, with most of the objects (measured
with inspect-ai 0.3.285; ``tests/test_heap.py`` checks a run imports each of them, and little
else but OpenAI's types). A module that is missing or fails is skipped: a later Inspect that
moved it costs only the walks this saves. OpenAI's types (about 58,000 objects, imported for
Inspect's model events) are left out on purpose: frozen, they raised the peak memory of 640
offline consultations by about 11 MB."""
_frozen = False


def _import_run_modules() -> None:
    """Import :data:`RUN_IMPORTS`, skipping any that cannot be imported."""
    for name in RUN_IMPORTS:
        try:
            importlib.import_module(name)
        except Exception:  # a saving only: it never fails a task's build
            continue


def settle_heap() -> None:
    """Freeze start-up's survivors (once) and space collections out (see the module)."""
    global _frozen
    if os.environ.get("GAA_GC_TUNE", "1") == "0":
        return
    young, middle, old = gc.get_threshold()
    if young:  # 0: the collector is off, and stays off
        gc.set_threshold(max(young, YOUNG_THRESHOLD), middle, old)
    if not _frozen:
        _frozen = True
        _import_run_modules()
        gc.collect()
        gc.freeze()
