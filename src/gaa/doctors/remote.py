"""Doctors that answer from elsewhere: a remote A2A agent, or a LiteLLM model."""

from __future__ import annotations

from inspect_ai.agent import Agent

from gaa.doctors.model_doctor import model_doctor

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
