"""Prompt templates from ``prompts/``: ``$name`` placeholders, so JSON braces need no escaping."""

from __future__ import annotations

from functools import cache
from string import Template

from gaa._resources import read_prompt


@cache
def template(*parts: str) -> Template:
    return Template(read_prompt(*parts))


def render(*parts: str, **values: object) -> str:
    """Fill a template; a missing value is an error naming the placeholder."""
    try:
        return template(*parts).substitute(**{k: str(v) for k, v in values.items()})
    except KeyError as exc:
        raise KeyError(f"prompt {'/'.join(parts)} needs a value for ${exc.args[0]}") from None
