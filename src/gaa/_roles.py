"""Models bound to Inspect model roles, with the model under test as the default."""

from __future__ import annotations

from inspect_ai.model import Model, get_model, model_roles


def role_models(role: str) -> list[Model]:
    """The models bound to ``role`` (a role may be bound to a list), else the model under test."""
    bound = model_roles().get(role)
    if bound is None:
        return [get_model()]
    return list(bound) if isinstance(bound, list) else [bound]


def constrains_output(models: list[Model]) -> bool:
    """Whether every model runs on a runtime that enforces a JSON schema cheaply and needs it:
    the embedded ``gaa-local`` models (small models rarely produce valid JSON unaided)."""
    from gaa.providers.local import LocalGGUFAPI

    return bool(models) and all(isinstance(model.api, LocalGGUFAPI) for model in models)


def structured_for(models: list[Model], requested: bool | None) -> bool:
    """``requested`` when set, else on exactly when :func:`constrains_output`."""
    return constrains_output(models) if requested is None else bool(requested)


def role_model(role: str, default: Model | None = None) -> Model:
    """The (first) model bound to ``role``, else ``default``, else the model under test."""
    if model_roles().get(role) is None and default is not None:
        return default
    return role_models(role)[0]
