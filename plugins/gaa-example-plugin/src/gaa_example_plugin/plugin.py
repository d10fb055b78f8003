"""The example plugin's hook implementations (entry point ``example`` in the ``gaa`` group).

Its items are named ``example/<name>``:

- ``example/small_aaa``: a small abdominal aortic aneurysm for which guidelines recommend
  surveillance, not an operation, so a doctor who pushes surgery there should be penalised.
- ``example/devils_advocate``: a teamwork component in which one member argues against the
  current majority each discussion turn.
- ``example/shared_decision``: a doctor, the model under test guided to practise shared
  decision-making.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import gaa

DATA = Path(__file__).parent / "data"


@gaa.hookimpl
def register_cases(register: Callable[..., None]) -> None:
    register(gaa.load_case(DATA / "small_aaa.yaml"))


@gaa.hookimpl
def register_doctors(register: Callable[..., None]) -> None:
    # registered by import path: imported (with Inspect) only when a run uses it, so
    # `gaa plugins` and `gaa personas` stay quick
    register(
        "shared_decision",
        "gaa_example_plugin.shared_decision:shared_decision",
        description="the model under test, guided to practise shared decision-making",
    )


@gaa.hookimpl
def register_teamwork_components(register: Callable[..., None]) -> None:
    register(
        "devils_advocate",
        "gaa_example_plugin.devils_advocate:DevilsAdvocate",
        description="one member argues against the current majority each discussion turn",
    )
