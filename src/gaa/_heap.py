"""Keep the garbage collector off the objects that live for the whole run.

A full collection walks every tracked object in the process, and after start-up most of them
are Inspect's and GAA's modules, schemas, compiled rules and case files: they never become
garbage, yet each full collection of a long run walks them again. :func:`settle_heap`, called
once a task is built, collects what start-up left behind and moves the survivors to the
collector's permanent generation (:func:`gc.freeze`). Objects made afterwards are collected as
usual. It runs once per process, so a process that builds many tasks does not freeze each
task's leftovers; ``GAA_GC_FREEZE=0`` turns it off.
"""

from __future__ import annotations

import gc
import os

_settled = False


def settle_heap() -> None:
    """Collect, then freeze the survivors (once per process; see the module docstring)."""
    global _settled
    if _settled or os.environ.get("GAA_GC_FREEZE", "1") == "0":
        return
    _settled = True
    gc.collect()
    gc.freeze()
