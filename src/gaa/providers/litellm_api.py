"""``litellm/<model string>``: LiteLLM in-process, for any provider it supports.

``--model litellm/openai/gpt-4o-mini``,
``--model-role judge=litellm/anthropic/claude-3-5-haiku-latest`` or ``litellm/ollama/llama3``
with ``-M api_base=...``. Messages, temperature, top_p, max_tokens,
stop and seed are passed through; usage is read from the response. LiteLLM's own retries are
off: Inspect retries, and only on rate limits (429), server errors (5xx), timeouts and dropped
connections. LiteLLM's model-price map is read from the installed package, never downloaded.
"""

from __future__ import annotations

import os
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput
from inspect_ai.model._model_call import ModelCall
from inspect_ai.tool import ToolChoice, ToolInfo
from tenacity.wait import WaitBaseT, wait_exponential_jitter

from gaa.providers._chat import chat_output, message_dict, sampling_settings

RETRY_STATUSES = frozenset({408, 409, 429})
DEFAULT_RETRY_WAIT = 3.0
CHARS_PER_TOKEN = 4


def _import_litellm() -> Any:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    litellm.telemetry = False
    return litellm


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
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
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
        if config.timeout is not None:
            request["timeout"] = config.timeout
        response = await self._litellm.acompletion(**request)
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
        transient = (litellm.Timeout, litellm.APIConnectionError, litellm.RateLimitError)
        return isinstance(ex, transient)

    def retry_wait(self) -> WaitBaseT:
        return wait_exponential_jitter(
            initial=self._retry_wait, max=60, jitter=self._retry_wait / 3
        )

    async def count_text_tokens(self, text: str) -> int:
        return max(1, len(text) // CHARS_PER_TOKEN)
