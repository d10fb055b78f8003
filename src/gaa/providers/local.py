"""``gaa-local/<model>``: the embedded model, run in-process by llama-cpp-python.

No key and no network are needed.

``<model>`` is a name from :data:`~gaa.providers.local_models.LOCAL_MODELS` (default
``qwen2.5-0.5b``) or the path of a ``.gguf`` file. The GGUF's own chat template is applied (a
named format for models without one). Temperature, top_p, max_tokens, seed and stop are
honoured; ``response_schema`` becomes a JSON-schema grammar, so structured replies parse.
Generation is CPU-bound, so each loaded model generates one reply at a time (in a worker
thread, leaving the event loop free) and ``max_connections`` defaults to 1.
"""

from __future__ import annotations

import atexit
import contextlib
import threading
from pathlib import Path
from typing import Any

import anyio
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput
from inspect_ai.model._model_call import ModelCall
from inspect_ai.tool import ToolChoice, ToolInfo

from gaa.providers._chat import chat_output, message_dict, sampling_settings
from gaa.providers.local_models import INSTALL_HINT, LocalModelError, resolve_gguf

DEFAULT_MAX_TOKENS = 512
"""Small models may never emit end-of-turn: a reply is always bounded."""
DEFAULT_CONTEXT = 16384
"""Room for a teamwork discussion of the 39-criterion rubric (8k overflowed in R3)."""
DEFAULT_THREADS = 2

_loaded: dict[tuple[str, int, str | None], Any] = {}
_load_lock = threading.Lock()


def load_llama(path: Path, n_ctx: int, chat_format: str | None, n_threads: int) -> Any:
    """Load (once per process) a GGUF with llama-cpp-python.

    No prompt-state cache (``LlamaRAMCache``): each saved state also copies the logits buffer
    (batch x vocabulary floats, 300-500 MB for these models) uncounted by its capacity, which
    exhausted 24 GB in a benchmark. llama.cpp still reuses the prefix of the previous call.
    """
    key = (str(path), n_ctx, chat_format)
    with _load_lock:
        if key not in _loaded:
            try:
                from llama_cpp import Llama  # type: ignore[import-not-found,unused-ignore]
            except ImportError:
                raise LocalModelError(
                    f"The embedded model needs llama-cpp-python: {INSTALL_HINT}"
                ) from None
            _loaded[key] = Llama(
                model_path=str(path),
                n_ctx=n_ctx,
                n_threads=n_threads,
                chat_format=chat_format,
                verbose=False,
            )
        return _loaded[key]


@atexit.register
def close_models() -> None:
    """Free loaded models before interpreter shutdown (llama-cpp-python's own finaliser fails
    noisily once the modules it needs are gone)."""
    with _load_lock:
        for llama in _loaded.values():
            with contextlib.suppress(Exception):
                llama.close()
        _loaded.clear()


class LocalGGUFAPI(ModelAPI):
    """An Inspect model API for a local GGUF file."""

    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (Inspect's ModelAPI signature)
        n_ctx: int = DEFAULT_CONTEXT,
        n_threads: int = DEFAULT_THREADS,
        chat_format: str | None = None,
        **model_args: Any,
    ) -> None:
        if config.max_connections is None:
            # Inspect's adaptive concurrency (its default) ignores max_connections() below; a
            # limit in the model's own config (the object Inspect's Model keeps) is honoured.
            config.max_connections = 1
        super().__init__(model_name, base_url, api_key, [], config)
        self.path, spec = resolve_gguf(model_name)
        self.chat_format = chat_format or (spec.chat_format if spec else None)
        self.n_ctx, self.n_threads = int(n_ctx), int(n_threads)
        self.model_args = model_args
        self._lock = anyio.Lock()

    @property
    def llama(self) -> Any:
        return load_llama(self.path, self.n_ctx, self.chat_format, self.n_threads)

    def request(self, input: list[ChatMessage], config: GenerateConfig) -> dict[str, Any]:
        request: dict[str, Any] = {
            "messages": [message_dict(m) for m in input],
            **sampling_settings(config),
            **self.model_args,
        }
        request.setdefault("max_tokens", DEFAULT_MAX_TOKENS)
        if config.response_schema is not None:
            request["response_format"] = {
                "type": "json_object",
                "schema": config.response_schema.json_schema.model_dump(exclude_none=True),
            }
        return request

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> tuple[ModelOutput, ModelCall]:
        request = self.request(input, config)
        llama = self.llama
        async with self._lock:
            response = await anyio.to_thread.run_sync(
                lambda: llama.create_chat_completion(**request)
            )
        choice = response["choices"][0]
        content = choice["message"].get("content") or ""
        usage = response.get("usage") or {}
        counts = (
            usage.get("prompt_tokens", 0),
            usage.get("completion_tokens", 0),
            usage.get("total_tokens", 0),
        )
        output = chat_output(self.model_name, content, choice.get("finish_reason"), counts)
        return output, ModelCall.create(request, {"content": content})

    def max_connections(self) -> int:
        return 1

    def connection_key(self) -> str:
        return str(self.path)

    async def count_text_tokens(self, text: str) -> int:
        return len(self.llama.tokenize(text.encode("utf-8"), add_bos=False))
