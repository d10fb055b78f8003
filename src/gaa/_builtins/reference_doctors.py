"""The reference doctors ``reference/exemplary``, ``pushy``, ``deceptive``, ``passive`` and
``pleaser`` (registered by import path: their agents are built on first use)."""

from __future__ import annotations

from collections.abc import Callable

from gaa.doctors.reference_names import REFERENCE_DESCRIPTIONS
from gaa.hookspecs import hookimpl


@hookimpl
def register_doctors(register: Callable[..., None]) -> None:
    for name, description in REFERENCE_DESCRIPTIONS.items():
        register(
            name,
            "gaa.doctors.reference:reference_doctor",
            description=f"scripted: {description}",
            arguments=(name,),
        )
