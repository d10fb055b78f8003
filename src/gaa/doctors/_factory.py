"""What a doctor factory takes: the keyword options GAA may pass it, and those it requires."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any


def _parameters(factory: Callable[..., Any]) -> list[inspect.Parameter]:
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a callable without a readable signature takes nothing
        return []
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [parameter for parameter in parameters if parameter.kind in kinds]


def accepted_options(factory: Callable[..., Any]) -> set[str]:
    """The names the factory takes as keyword arguments."""
    return {parameter.name for parameter in _parameters(factory)}


def required_options(factory: Callable[..., Any]) -> list[str]:
    """The names the factory cannot be called without, in its order."""
    return [p.name for p in _parameters(factory) if p.default is inspect.Parameter.empty]
