"""The built-in doctors ``gaa/model`` (the model under test), ``gaa/litellm`` (a LiteLLM model,
for serving as an A2A purple agent) and ``gaa/a2a`` (a remote A2A doctor agent)."""

from __future__ import annotations

from collections.abc import Callable

from inspect_ai.agent import Agent

from gaa.doctors.model_doctor import model_doctor
from gaa.hookspecs import hookimpl

DEFAULT_CONNECTIONS = 8


def a2a_doctor(
    url: str, connections: int = DEFAULT_CONNECTIONS, timeout: float | None = None
) -> Agent:
    """The remote A2A doctor agent at ``url`` (a2a-sdk is imported only when it is used);
    ``timeout`` bounds each exchange, not the wait for a free connection."""
    from gaa.a2a.client import a2a_doctor as remote_doctor

    return remote_doctor(url=url, connections=connections, timeout=timeout)


def litellm_doctor(model: str) -> Agent:
    """The model doctor answering with the LiteLLM model ``model`` (e.g. ``openai/gpt-4o``)."""
    name = model if model.startswith("litellm/") else f"litellm/{model}"
    return model_doctor(model=name)


@hookimpl
def register_doctors(register: Callable[..., None]) -> None:
    register("model", model_doctor, description="the model under test (--model), or model=<name>")
    register(
        "a2a",
        a2a_doctor,
        description="a remote A2A doctor agent (-T doctor_url=http://host:port)",
    )
    register(
        "litellm",
        litellm_doctor,
        description="a LiteLLM model as the doctor (gaa serve doctor --doctor litellm --model M)",
    )
