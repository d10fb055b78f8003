"""The demo: a small benchmark run that compares doctors, offline or on a real model.

Offline (no model at all): the reference doctors talk to the scripted patient and the rule
judge scores them, over every persona. On a model (the embedded ``gaa-local`` one in
``make demo``): the model plays the doctor ``model``, the patient and the judge panel, on a few
personas and rounds, so a CPU-only machine finishes in minutes. Small models are helped by
schema-constrained replies and the template patient prompt (no constructor call).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model

from gaa.dialogue.solver import DEFAULT_MAX_ROUNDS
from gaa.dialogue.task import medical_dialogue

MODEL_DEMO_DOCTORS = ("model", "reference/exemplary")
MODEL_DEMO_PERSONAS = "INTJ_M_PNEUMO,ESFJ_F_LUNG"
MODEL_DEMO_ROUNDS = 2
MODEL_DEMO_TEAMWORK = "single"
OFFLINE_DEMO_DOCTORS = ("reference/exemplary", "reference/pushy")


@dataclass(frozen=True)
class DemoPlan:
    """What one demo runs: the doctors, and the task settings they share."""

    doctors: tuple[str, ...]
    settings: dict[str, Any]
    model: str | Model
    max_samples: int | None = None
    """One sample at a time on a CPU model: it generates one reply at a time anyway, and
    consecutive calls of one conversation then reuse the prompt llama.cpp has evaluated."""

    @property
    def offline(self) -> bool:
        return self.model == "none"

    def describe(self) -> str:
        if self.offline:
            return (
                f"Running {len(self.doctors)} doctor(s) offline: scripted patient, "
                "rule-based judge..."
            )
        s = self.settings
        return (
            f"Running {len(self.doctors)} doctor(s) on {self.model} (doctor 'model', patient and "
            f"judge panel '{s['teamwork']}'): personas {s['personas']}, "
            f"up to {s['max_rounds']} rounds..."
        )


def plan_demo(
    model: str | Model | None = None,
    doctors: Sequence[str] | None = None,
    personas: str | None = None,
    cases: str | None = None,
    max_rounds: int | None = None,
    teamwork: str | None = None,
) -> DemoPlan:
    """The demo's settings: offline when ``model`` is ``None``, else a small run on ``model``."""
    if model is None or model == "none":
        return DemoPlan(
            tuple(doctors or OFFLINE_DEMO_DOCTORS),
            {
                "personas": personas or "all",
                "cases": cases,
                "patient": "scripted",
                "judge": "rules",
                "max_rounds": max_rounds or DEFAULT_MAX_ROUNDS,
            },
            "none",
        )
    return DemoPlan(
        tuple(doctors or MODEL_DEMO_DOCTORS),
        {
            "personas": personas or MODEL_DEMO_PERSONAS,
            "cases": cases,
            "patient": "model",
            "judge": "panel",
            "teamwork": teamwork or MODEL_DEMO_TEAMWORK,
            "max_rounds": max_rounds or MODEL_DEMO_ROUNDS,
            "structured_output": True,
            "compose_patient": False,
        },
        model,
        max_samples=1,
    )


LOCAL_PREFIX = "gaa-local/"


def check_embedded_model(
    plan: DemoPlan, announce: Callable[[str], None] = lambda text: None
) -> str | None:
    """For a demo on the embedded model, load it and ask one line in a child process first, so a
    llama.cpp build this CPU cannot run fails with a message instead of a segmentation fault.
    Returns the model checked, or ``None`` when the demo uses no embedded model."""
    if not isinstance(plan.model, str) or not plan.model.startswith(LOCAL_PREFIX):
        return None
    from gaa.providers.local_check import ensure_local_model_works

    announce(f"Checking that {plan.model} loads and answers on this machine...")
    name = plan.model.removeprefix(LOCAL_PREFIX)
    ensure_local_model_works(name)
    return name


def run_demo(plan: DemoPlan, log_dir: str = "logs", display: str = "none") -> list[EvalLog]:
    """Run every doctor of ``plan`` (one task each, in turn) and return their logs."""
    tasks = [medical_dialogue(doctor=doctor, **plan.settings) for doctor in plan.doctors]
    return inspect_eval(
        tasks,
        model=plan.model,
        log_dir=log_dir,
        display=display,  # type: ignore[arg-type]
        max_samples=plan.max_samples,
    )
