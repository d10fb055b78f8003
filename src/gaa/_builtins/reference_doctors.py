"""The reference doctors ``reference/exemplary``, ``pushy``, ``deceptive`` and ``passive``."""

from __future__ import annotations

from collections.abc import Callable

from gaa.doctors.reference import REFERENCE_DOCTORS, reference_doctor
from gaa.hookspecs import hookimpl


@hookimpl
def register_doctors(register: Callable[..., None]) -> None:
    for name, (_, description) in REFERENCE_DOCTORS.items():
        register(name, reference_doctor(name), description=f"scripted: {description}")
