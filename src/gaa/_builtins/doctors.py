"""The built-in doctor ``gaa/model``: the model under test."""

from __future__ import annotations

from collections.abc import Callable

from gaa.doctors.model_doctor import model_doctor
from gaa.hookspecs import hookimpl


@hookimpl
def register_doctors(register: Callable[..., None]) -> None:
    register("model", model_doctor, description="the model under test (--model), or model=<name>")
