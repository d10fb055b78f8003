"""``litellm/<model string>``: LiteLLM in-process, for any provider it supports.

``--model litellm/openai/gpt-4o-mini``,
``--model-role judge=litellm/anthropic/claude-3-5-haiku-latest`` or ``litellm/ollama/llama3``
with ``-M api_base=...``. Messages, temperature, top_p, max_tokens, stop, seed and a
response schema (as OpenAI's ``json_schema`` response format) are passed through; usage is read
from the response. LiteLLM's own retries are off: Inspect retries, and only on rate limits (429),
server errors (5xx) and dropped connections. A call cut by its timeout (600 s unless
``--timeout`` says otherwise) fails at once with a message naming the limit: retried, the same
call would be cut again. LiteLLM's model-price map is read from the installed package, never
downloaded.
"""

from __future__ import annotations

import os
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, ResponseSchema
from inspect_ai.model._model_call import ModelCall
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity.wait import WaitBaseT, wait_exponential_jitter

from gaa.errors import GAAError
from gaa.providers._chat import chat_output, message_dict, sampling_settings

RETRY_STATUSES = frozenset({408, 409, 429})
DEFAULT_RETRY_WAIT = 3.0
CHARS_PER_TOKEN = 4
DEFAULT_TIMEOUT = 600.0
"""Seconds a call may take unless ``--timeout`` or ``-M timeout=`` says otherwise (the OpenAI
client's own default, made explicit so a cut call can name it)."""


class ProviderTimeout(GAAError):
    """A call cut by its timeout. Not retried: the same call would most likely be cut again."""

    def __init__(self, model: str, seconds: float) -> None:
        super().__init__(
            f"litellm/{model}: the call was cut after {seconds:g} s (its timeout) and is not "
            "retried, since the same call would most likely be cut again; allow longer calls "
            "with --timeout SECONDS (or -M timeout=SECONDS), or make the reply shorter "
            "(--max-tokens)"
        )
        self.seconds = seconds


def _import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    return litellm


SCHEMA_STYLES = ("json_schema", "json_object")


def response_format(schema: ResponseSchema, style: str = "json_schema") -> dict[str, Any]:
    """The ``response_format`` that asks for replies matching ``schema``.

    ``json_schema`` is OpenAI's form: LiteLLM translates it for providers that name it
    otherwise, and servers such as vLLM and llama.cpp's ``llama-server`` enforce it.
    ``json_object`` is llama-cpp-python's server form (``{"type": "json_object", "schema":
    ...}``), which refuses the OpenAI one: choose it with ``-M schema_style=json_object``.
    """
    body = schema.json_schema.model_dump(exclude_none=True)
    if style == "json_object":
        return {"type": "json_object", "schema": body}
    spec: dict[str, Any] = {"name": schema.name, "schema": body}
    if schema.strict is not None:
        spec["strict"] = schema.strict
    return {"type": "json_schema", "json_schema": spec}


def status_of(ex: BaseException) -> int | None:
    status = getattr(ex, "status_code", None)
    return status if isinstance(status, int) else None


class LiteLLMAPI(ModelAPI):
    """An Inspect model backed by ``litellm.acompletion``."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (Inspect's ModelAPI signature)
        retry_wait: float = DEFAULT_RETRY_WAIT,
        schema_style: str = "json_schema",
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if schema_style not in SCHEMA_STYLES:
            raise GAAError(
                f"litellm/{model_name}: schema_style must be one of {', '.join(SCHEMA_STYLES)}, "
                f"not {schema_style!r}"
            )
        self.schema_style = schema_style
        self.model_args = model_args
        self._retry_wait = float(retry_wait)
        self._litellm = _import_litellm()

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput, ModelCall]:
        request: dict[str, Any] = {
            "model": self.model_name,
            "messages": [message_dict(m) for m in input],
            "num_retries": 0,
            "max_retries": 0,
            **self.model_args,
        }
        if self.base_url:
            request["api_base"] = self.base_url
        if self.api_key:
            request["api_key"] = self.api_key
        request.update(sampling_settings(config))
        request["timeout"] = float(
            config.attempt_timeout or config.timeout or request.get("timeout") or DEFAULT_TIMEOUT
        )
        if config.response_schema is not None:
            request["response_format"] = response_format(config.response_schema, self.schema_style)
        try:
            response = await self._litellm.acompletion(**request)
        except self._litellm.Timeout as exc:
            raise ProviderTimeout(self.model_name, request["timeout"]) from exc
        choice = response.choices[0]
        content = choice.message.content or ""
        usage = getattr(response, "usage", None)
        model = getattr(response, "model", None) or self.model_name
        counts = (
            (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) if usage else None
        )
        output = chat_output(model, content, choice.finish_reason, counts)
        logged = {k: v for k, v in request.items() if k != "api_key"}
        return output, ModelCall.create(logged, {"content": content, "model": model})

    def should_retry(self, ex: Exception) -> bool:
        status = status_of(ex)
        if status is not None:
            return status in RETRY_STATUSES or status >= 500
        litellm = self._litellm
        transient = (litellm.APIConnectionError, litellm.RateLimitError)
        return isinstance(ex, transient)

    def retry_wait(self) -> WaitBaseT:
        return wait_exponential_jitter(
            initial=self._retry_wait, max=60, jitter=self._retry_wait / 3
        )

    async def count_text_tokens(self, text: str) -> int:
        return max(1, len(text) // CHARS_PER_TOKEN)
