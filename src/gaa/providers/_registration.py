"""``@modelapi`` registrations: each returns its class, importing it only when used."""

from __future__ import annotations

from inspect_ai.model import ModelAPI, modelapi


@modelapi(name="litellm")
def litellm() -> type[ModelAPI]:
    from gaa.providers.litellm_api import LiteLLMAPI

    return LiteLLMAPI


@modelapi(name="gaa-local")
def gaa_local() -> type[ModelAPI]:
    from gaa.providers.local import LocalGGUFAPI

    return LocalGGUFAPI
