"""The real embedded model, end to end: in-process, in a child process (the crash check
``gaa demo`` runs first) and behind a real OpenAI-compatible server (``llama_cpp.server``)
reached through Inspect's ``openai-api`` provider and GAA's ``litellm`` one.

Marked ``embedded``: ``make test`` runs them through ``make test-embedded`` after installing
``gaa[local]``, with ``GAA_REQUIRE_EMBEDDED=1`` so a missing runtime fails instead of skipping.
A plain ``pytest`` run leaves them out.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from gaa.providers.local_check import run_check
from gaa.providers.local_models import LocalModelError, resolve_gguf
from gaa.testing import free_port

REPO = Path(__file__).resolve().parents[1]
MODEL = "gaa-local/qwen2.5-0.5b"

pytestmark = pytest.mark.embedded


SERVER_START_SECONDS = 180.0


def _unavailable(reason: str) -> None:
    if os.environ.get("GAA_REQUIRE_EMBEDDED"):
        pytest.fail(f"the embedded model is required here (GAA_REQUIRE_EMBEDDED): {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="module")
def embedded_model() -> str:
    try:
        import llama_cpp  # noqa: F401
    except ImportError:
        _unavailable('needs pip install "gaa[local]"')
    try:
        resolve_gguf(MODEL.split("/", 1)[1])
    except LocalModelError as exc:
        _unavailable(str(exc))
    return MODEL


@pytest.fixture(scope="module")
def openai_server(embedded_model: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``llama_cpp.server`` on the embedded weights, on loopback: a real OpenAI-compatible server
    like the ones people host themselves. Yields its ``/v1`` base URL."""
    gguf, _ = resolve_gguf(embedded_model.split("/", 1)[1])
    port = free_port()
    output = tmp_path_factory.mktemp("server") / "server.log"
    with output.open("w") as log:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "llama_cpp.server",
                "--model",
                str(gguf),
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--n_ctx",
                "8192",
                "--model_alias",
                "qwen",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while True:
            if server.poll() is not None:
                pytest.fail(f"llama_cpp.server exited: {output.read_text()[-2000:]}")
            try:
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"llama_cpp.server did not start: {output.read_text()[-2000:]}")
            time.sleep(0.5)
        yield base_url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_the_embedded_model_answers_in_a_child_process(embedded_model: str) -> None:
    result = run_check(embedded_model.split("/", 1)[1])
    assert result.returncode == 0, result.stderr
    assert result.reply.strip()


def _one_consultation(model: str, tmp_path: Path, **model_args: str) -> EvalLog:
    """The model plays the doctor for one round against the scripted patient, rules judge."""
    [log] = eval(
        "tasks/medical_dialogue.py",  # Inspect takes a task file relative to the working folder
        model=model,
        model_args=model_args,
        task_args={
            "personas": "INTJ_M_PNEUMO",
            "patient": "scripted",
            "judge": "rules",
            "max_rounds": 1,
        },
        max_tokens=96,
        log_dir=str(tmp_path),
        display="none",
    )
    return log


def _assert_provider_counted_tokens(log: EvalLog, model: str) -> None:
    assert log.status == "success", log.error
    sample = (log.samples or [])[0]
    assert sample.error is None
    doctor_calls = [e for e in sample.events if e.event == "model"]
    assert doctor_calls and all(e.model == model for e in doctor_calls)
    for call in doctor_calls:
        assert call.output.usage is not None
        assert call.output.usage.input_tokens > 100  # the clinical brief alone is longer
        assert 0 < call.output.usage.output_tokens <= 96
    usage = log.stats.model_usage[model]
    assert usage.input_tokens == sum(c.output.usage.input_tokens for c in doctor_calls)  # type: ignore[union-attr]
    assert next(m for m in sample.messages if m.role == "assistant").text.strip()


def test_a_self_hosted_server_through_inspects_openai_api_provider(
    openai_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    monkeypatch.setenv("SELFHOSTED_BASE_URL", openai_server)
    monkeypatch.setenv("SELFHOSTED_API_KEY", "none")
    log = _one_consultation("openai-api/selfhosted/qwen", tmp_path)
    _assert_provider_counted_tokens(log, "openai-api/selfhosted/qwen")


def test_a_self_hosted_server_through_gaas_litellm_provider(
    openai_server: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    log = _one_consultation("litellm/openai/qwen", tmp_path, api_base=openai_server, api_key="none")
    _assert_provider_counted_tokens(log, "litellm/openai/qwen")


def test_one_persona_runs_on_the_embedded_model(
    embedded_model: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    [log] = eval(
        "tasks/medical_dialogue.py",
        model=embedded_model,
        limit=1,
        task_args={
            "max_rounds": 1,
            "judge": "rules",
            "compose_patient": False,
            "structured_output": True,
        },
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    sample = (log.samples or [])[0]
    model_events = [e for e in sample.events if e.event == "model"]
    assert len(model_events) >= 3  # patient opening, doctor, patient (and any status follow-ups)
    assert all(e.model == embedded_model for e in model_events)
    assert all(e.output.usage and e.output.usage.output_tokens > 0 for e in model_events)
    doctor_turns = [m for m in sample.messages if m.role == "assistant"]
    assert doctor_turns and doctor_turns[0].text.strip()
    stats = next(iter((sample.scores or {}).values())).metadata["dialogue"]  # type: ignore[index]
    assert stats["parse_misses"] == 0  # the constrained status follow-up always yields a status
