"""What the two providers share: chat messages out, generation settings, a ModelOutput back."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
)

STOP_REASONS = {"stop": "stop", "length": "max_tokens", "content_filter": "content_filter"}


def message_dict(message: ChatMessage) -> dict[str, str]:
    """An OpenAI-style message; tool messages are passed as user text."""
    role = message.role if message.role in ("system", "user", "assistant") else "user"
    return {"role": role, "content": message.text}


def sampling_settings(config: GenerateConfig) -> dict[str, Any]:
    """The settings both runtimes understand, under their OpenAI-style names, when set."""
    settings = {
        "temperature": config.temperature,
        "top_p": config.top_p,
        "max_tokens": config.max_tokens,
        "stop": config.stop_seqs,
        "seed": config.seed,
    }
    return {name: value for name, value in settings.items() if value is not None}


def chat_output(
    model: str, content: str, finish_reason: str | None, usage: tuple[int, int, int] | None
) -> ModelOutput:
    """A ModelOutput from a chat completion; ``usage`` is (prompt, completion, total) tokens."""
    return ModelOutput(
        model=model,
        choices=[
            ChatCompletionChoice(
                message=ChatMessageAssistant(content=content, model=model, source="generate"),
                stop_reason=STOP_REASONS.get(finish_reason or "stop", "unknown"),  # type: ignore[arg-type]
            )
        ],
        usage=ModelUsage(input_tokens=usage[0], output_tokens=usage[1], total_tokens=usage[2])
        if usage
        else None,
    )
