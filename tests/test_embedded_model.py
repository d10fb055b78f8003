"""The real embedded model, end to end. Runs only with ``make test-embedded`` (``-m embedded``)
once ``gaa[local]`` is installed; skipped otherwise, so ``make test`` stays fast without it."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval

from gaa.providers.local_models import LocalModelError, resolve_gguf

REPO = Path(__file__).resolve().parents[1]
MODEL = "gaa-local/qwen2.5-0.5b"

pytestmark = pytest.mark.embedded


@pytest.fixture(scope="module")
def embedded_model() -> str:
    pytest.importorskip("llama_cpp", reason='needs pip install "gaa[local]"')
    try:
        resolve_gguf(MODEL.split("/", 1)[1])
    except LocalModelError as exc:
        pytest.skip(str(exc))
    return MODEL


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
