"""Where the prompt library lives: in the installed package, or atop a source checkout."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from gaa.errors import PromptLibraryError

_PACKAGED = Path(__file__).resolve().parent / "prompts"
_SOURCE_CHECKOUT = Path(__file__).resolve().parents[2] / "prompts"


@cache
def prompts_dir() -> Path:
    """``prompts/``: a wheel ships it as ``gaa/prompts``; a checkout has it at the top level."""
    for candidate in (_PACKAGED, _SOURCE_CHECKOUT):
        if (candidate / "mbti").is_dir():
            return candidate
    raise PromptLibraryError(
        f"GAA's prompt library was not found (looked in {_PACKAGED} and {_SOURCE_CHECKOUT}); "
        "reinstall the package"
    )


def read_prompt(*parts: str) -> str:
    """Read a prompt file below ``prompts/``, with an error naming the missing file."""
    path = prompts_dir().joinpath(*parts)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PromptLibraryError(f"Prompt file {path} is missing") from None
