"""The built-in doctors ``gaa/model`` (the model under test), ``gaa/litellm`` (a LiteLLM model,
for serving as an A2A purple agent) and ``gaa/a2a`` (a remote A2A doctor agent).

They are registered by import path, so listing them imports nothing of Inspect."""

from __future__ import annotations

from collections.abc import Callable

from gaa.hookspecs import hookimpl


@hookimpl
def register_doctors(register: Callable[..., None]) -> None:
    register(
        "model",
        "gaa.doctors.model_doctor:model_doctor",
        description="the model under test (--model), or model=<name>",
    )
    register(
        "a2a",
        "gaa.doctors.remote:a2a_doctor",
        description="a remote A2A doctor agent (-T doctor_url=http://host:port)",
    )
    register(
        "litellm",
        "gaa.doctors.remote:litellm_doctor",
        description="a LiteLLM model as the doctor (gaa serve doctor --doctor litellm --model M)",
    )
