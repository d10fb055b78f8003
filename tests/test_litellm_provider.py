"""The LiteLLM provider against a fake OpenAI-compatible server on 127.0.0.1 (no real API)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
    get_model,
)
from inspect_ai.util import JSONSchema

from gaa.providers.litellm_api import ProviderTimeout


class FakeOpenAI:
    """Answers POST /v1/chat/completions with scripted statuses; records every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.statuses: list[int] = []
        self.delay = 0.0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                time.sleep(fake.delay)
                status = fake.statuses.pop(0) if fake.statuses else 200
                if status == 200:
                    text = "Echo: " + body["messages"][-1]["content"]
                    payload: dict[str, Any] = {
                        "id": "x",
                        "object": "chat.completion",
                        "created": 0,
                        "model": body["model"],
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15},
                    }
                else:
                    payload = {
                        "error": {"message": f"status {status}", "type": "test", "code": status}
                    }
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    fake = FakeOpenAI()
    thread = threading.Thread(target=fake.server.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.server.shutdown()


def model(server: FakeOpenAI) -> Any:
    return get_model(
        "litellm/openai/test-model",
        base_url=server.url,
        api_key="sk-test",
        retry_wait=0.01,
        memoize=False,
        config=GenerateConfig(max_retries=3),
    )


async def test_messages_settings_and_usage(server: FakeOpenAI) -> None:
    output = await model(server).generate(
        [ChatMessageSystem(content="Be brief."), ChatMessageUser(content="Hello")],
        config=GenerateConfig(temperature=0.3, max_tokens=20, seed=4, stop_seqs=["END"]),
    )
    assert output.completion == "Echo: Hello"
    assert output.usage is not None and (output.usage.input_tokens, output.usage.output_tokens) == (
        12,
        3,
    )
    [request] = server.requests
    assert request["model"] == "test-model"
    assert request["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hello"},
    ]
    assert (request["temperature"], request["max_tokens"], request["seed"], request["stop"]) == (
        0.3,
        20,
        4,
        ["END"],
    )


@pytest.mark.parametrize("status", [429, 500, 503])
async def test_rate_limits_and_server_errors_are_retried(server: FakeOpenAI, status: int) -> None:
    server.statuses = [status]
    output = await model(server).generate("again")
    assert output.completion == "Echo: again"
    assert len(server.requests) == 2


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_client_errors_are_not_retried(server: FakeOpenAI, status: int) -> None:
    server.statuses = [status]
    with pytest.raises(Exception, match=f"status {status}|{status}"):
        await model(server).generate("bad")
    assert len(server.requests) == 1


async def test_a_response_schema_is_sent_as_openai_json_schema(server: FakeOpenAI) -> None:
    schema = JSONSchema.model_validate(
        {"type": "object", "properties": {"answer": {"enum": ["A", "B"]}}, "required": ["answer"]}
    )
    await model(server).generate(
        "choose", config=GenerateConfig(response_schema=ResponseSchema(name="pick", json_schema=schema))
    )
    [request] = server.requests
    assert request["response_format"]["type"] == "json_schema"
    sent = request["response_format"]["json_schema"]
    assert sent["name"] == "pick"
    assert sent["schema"]["properties"]["answer"] == {"enum": ["A", "B"]}


async def test_a_call_cut_by_its_timeout_fails_once_naming_the_limit(server: FakeOpenAI) -> None:
    server.delay = 3.0
    with pytest.raises(ProviderTimeout, match=r"cut after 1 s .*--timeout"):
        slow = get_model(
            "litellm/openai/test-model",
            base_url=server.url,
            api_key="sk-test",
            retry_wait=0.01,
            timeout=1,
            memoize=False,
            config=GenerateConfig(max_retries=3),
        )
        await slow.generate("slow")
    assert len(server.requests) == 1  # not retried: the same call would be cut again
