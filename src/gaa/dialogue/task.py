"""``medical_dialogue``: the benchmark task. One sample per persona; the dialogue is the solver,
the teamwork judge the scorer. Every argument is checked before any sample runs."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from gaa._args import (
    HTTP_URL,
    MAX_ROUNDS_LIMIT,
    ArgumentError,
    parse_bool,
    parse_float,
    parse_int,
    parse_optional_bool,
    split_list,
)
from gaa._heap import settle_heap
from gaa._versions import TASK_VERSIONS, package_version
from gaa.dialogue.judge import dialogue_judge
from gaa.dialogue.ruling import JUDGE_SETTINGS, JUDGES
from gaa.dialogue.scoring import DEFAULT_WEIGHTS, Weights, full_weights
from gaa.dialogue.solver import (
    DEFAULT_DOCTOR_TIMEOUT,
    DEFAULT_MAX_ROUNDS,
    DEFAULT_RETRY_WAIT,
    PATIENTS,
    dialogue_solver,
)
from gaa.doctors._factory import accepted_options, required_options
from gaa.errors import GAAError
from gaa.evidence.model_validator import require_validator_model
from gaa.models import PatientPersona
from gaa.personas import select_personas
from gaa.plugins import catalogue
from gaa.teamwork import TeamworkConfig

MAX_WEIGHT = 1_000.0
FAIL_ON_ERROR = 0.2
TASK_NAME = "medical_dialogue"
"""The task's name however it is run (by file, by its registered name, by ``gaa demo``)."""
TASK_VERSION = TASK_VERSIONS[TASK_NAME]
"""The run fails when 20% or more of its samples fail (Inspect's comparison is inclusive)."""
MAX_RETRY_WAIT = 60.0
MAX_DOCTOR_TIMEOUT = 3_600.0
DEFAULT_DOCTOR_CONNECTIONS = 8
MAX_DOCTOR_CONNECTIONS = 256
"""A failing persona does not stop the run; more than 20% failing (a systematic fault) does."""


class BenchmarkConfigError(GAAError, ValueError):
    """An invalid argument of the medical_dialogue task."""


def persona_sample(persona: PatientPersona) -> Sample:
    case = catalogue().cases.get(persona.medical_case)
    return Sample(
        id=persona.persona_id,
        input=f"Consultation with patient {persona.persona_id} about {case.item.operation}.",
        metadata={
            "mbti": persona.mbti_type,
            "gender": persona.gender or "unspecified",
            "case": persona.medical_case,
            "case_name": case.full_name,
            "stance": persona.stance,
            "recommendation": case.item.decision,
            "persona": persona.model_dump(mode="json"),
        },
    )


def doctor_options(
    doctor: str,
    factory: Callable[..., Any],
    url: str | None,
    connections: object,
    timeout: float = DEFAULT_DOCTOR_TIMEOUT,
) -> dict[str, Any]:
    """The keyword arguments for the doctor's factory: ``url``, ``connections`` and ``timeout``
    for a remote doctor (a doctor that takes ``timeout`` applies it itself, to its exchanges and
    not to its queueing); every parameter the factory requires must be given, and no other."""
    options: dict[str, Any] = {}
    if url is not None and str(url).strip():
        url = str(url).strip()
        if not HTTP_URL.match(url):
            raise BenchmarkConfigError(f"doctor_url must be an http(s) URL, not {url!r}")
        options["url"] = url
    parameters = accepted_options(factory)
    if "connections" in parameters:
        try:
            options["connections"] = parse_int(
                "doctor_connections", connections, 1, MAX_DOCTOR_CONNECTIONS
            )
        except ArgumentError as exc:
            raise BenchmarkConfigError(str(exc)) from None
    if "timeout" in parameters:
        options["timeout"] = timeout
    if "url" in options and "url" not in parameters:
        raise BenchmarkConfigError(
            f"doctor {doctor} does not take doctor_url (it is for remote doctors: -T doctor=a2a)"
        )
    required = [name for name in required_options(factory) if name not in options]
    if required == ["url"]:
        raise BenchmarkConfigError(
            f"doctor {doctor} needs the agent's address: -T doctor_url=http://host:port"
        )
    if required:
        raise BenchmarkConfigError(
            f"doctor {doctor} needs {', '.join(required)}, which medical_dialogue cannot give it"
        )
    return options


def parse_weights(weights: str | list[str] | tuple[float, ...]) -> Weights:
    """Five weights (empathy, persuasion, safety, accuracy, informed consent), or three for
    the predecessor's formula over empathy, persuasion and safety."""
    values = split_list(weights) if isinstance(weights, str | list) else list(weights)
    try:
        numbers = tuple(float(value) for value in values)
    except ValueError:
        numbers = ()
    if (
        len(numbers) not in (3, 5)
        or any(not math.isfinite(n) or not 0 <= n <= MAX_WEIGHT for n in numbers)
        or sum(numbers) == 0
    ):
        raise BenchmarkConfigError(
            "weights must be five numbers from 0 to 1000 for empathy, persuasion, safety, "
            "accuracy and informed consent (e.g. 20,25,30,15,10), or three for empathy, "
            f"persuasion and safety (e.g. 30,40,30); got {weights!r}"
        )
    return full_weights(numbers)


HEADLINE = "dialogue_judge.overall"
"""What ``inspect view`` lists as a run's score: overall, 0-100 (not the first group score)."""


@dataclass(frozen=True)
class CheckedArguments:
    """The task's numeric and true/false arguments, parsed and in range."""

    rounds: int
    retry_wait: float
    timeout: float
    flags: dict[str, bool]
    """``reveal_persona``, ``safety_gate``, ``counterfactuals``, ``compose_patient`` and
    ``status_follow_up``."""
    structured: bool | None


def check_roles(patient: str, judge: str) -> None:
    """The patient and the judge are ones the benchmark has."""
    if patient not in PATIENTS:
        raise BenchmarkConfigError(f"patient must be one of {', '.join(PATIENTS)}, not {patient!r}")
    if judge not in JUDGES:
        raise BenchmarkConfigError(f"judge must be one of {', '.join(JUDGES)}, not {judge!r}")


def checked_arguments(
    max_rounds: object,
    doctor_retry_wait: object,
    doctor_timeout: object,
    structured_output: object,
    **flags: object,
) -> CheckedArguments:
    """Numbers within their limits and true/false flags (``flags`` in the order given), or a
    :class:`BenchmarkConfigError` naming the first argument that is not."""
    try:
        return CheckedArguments(
            rounds=parse_int("max_rounds", max_rounds, 1, MAX_ROUNDS_LIMIT),
            retry_wait=parse_float("doctor_retry_wait", doctor_retry_wait, 0.0, MAX_RETRY_WAIT),
            timeout=parse_float("doctor_timeout", doctor_timeout, 0.1, MAX_DOCTOR_TIMEOUT),
            flags={name: parse_bool(name, value) for name, value in flags.items()},
            structured=parse_optional_bool("structured_output", structured_output),
        )
    except ArgumentError as exc:
        raise BenchmarkConfigError(str(exc)) from None


def check_remote_doctor(options: dict[str, Any], reveal_persona: bool) -> None:
    """A remote doctor (``doctor_url``) cannot be told the persona."""
    if "url" in options and reveal_persona:
        raise BenchmarkConfigError(
            "reveal_persona does not reach a remote doctor (the A2A request has no personality "
            "field); leave it false with doctor_url"
        )


def check_judging(judge: str, teamwork: str | list[str], validator: str) -> None:
    """The panel's teamwork configuration and the validator are usable."""
    if judge == "panel":
        TeamworkConfig.parse(teamwork)
    try:
        require_validator_model(validator)
    except ValueError as exc:
        raise BenchmarkConfigError(str(exc)) from None


def run_metadata(
    doctor: str,
    options: dict[str, Any],
    validator: str,
    patient: str,
    judge: str,
    teamwork: str | list[str],
    rounds: int,
) -> dict[str, Any]:
    """What the log records of the run's set-up (the teamwork only for the panel)."""
    return {
        "doctor": doctor,
        "doctor_url": options.get("url"),
        "validator": validator,
        "patient": patient,
        "judge": judge,
        "teamwork": teamwork if judge == "panel" else None,
        "max_rounds": rounds,
        "judge_settings": (
            JUDGE_SETTINGS.model_dump(exclude_none=True) if judge == "panel" else None
        ),
        "gaa_version": package_version(),
    }


@task
def medical_dialogue(
    personas: str | list[str] = "all",
    cases: str | list[str] | None = None,
    doctor: str = "model",
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    reveal_persona: bool = False,
    patient: str = "model",
    judge: str = "panel",
    teamwork: str | list[str] = "all",
    safety_gate: bool = True,
    counterfactuals: bool = False,
    weights: str | list[str] = "20,25,30,15,10",
    doctor_retry_wait: float = DEFAULT_RETRY_WAIT,
    structured_output: bool | None = None,
    compose_patient: bool = True,
    status_follow_up: bool = True,
    doctor_url: str | None = None,
    doctor_connections: int = DEFAULT_DOCTOR_CONNECTIONS,
    doctor_timeout: float = DEFAULT_DOCTOR_TIMEOUT,
    validator: str = "rules",
) -> Task:
    """The medical dialogue benchmark (parameters: see the README)."""
    selected = select_personas(personas, cases)
    entry = catalogue().doctors.get(doctor)  # an unknown doctor fails here, with did-you-mean
    check_roles(patient, judge)
    args = checked_arguments(
        max_rounds,
        doctor_retry_wait,
        doctor_timeout,
        structured_output,
        reveal_persona=reveal_persona,
        safety_gate=safety_gate,
        counterfactuals=counterfactuals,
        compose_patient=compose_patient,
        status_follow_up=status_follow_up,
    )
    options = doctor_options(
        entry.full_name, entry.item, doctor_url, doctor_connections, args.timeout
    )
    check_remote_doctor(options, args.flags["reveal_persona"])
    check_judging(judge, teamwork, validator)
    weight_values = parse_weights(weights) if weights else DEFAULT_WEIGHTS
    settle_heap()
    return Task(
        dataset=MemoryDataset([persona_sample(p) for p in selected], name="gaa-personas"),
        solver=dialogue_solver(
            doctor=entry.full_name,
            patient=patient,
            max_rounds=args.rounds,
            reveal_persona=args.flags["reveal_persona"],
            doctor_retry_wait=args.retry_wait,
            doctor_timeout=args.timeout,
            doctor_options=options,
            validator=validator,
            compose_patient=args.flags["compose_patient"],
            status_follow_up=args.flags["status_follow_up"],
            structured_output=args.structured,
        ),
        scorer=dialogue_judge(
            judge=judge,
            teamwork=teamwork,
            safety_gate=args.flags["safety_gate"],
            weights=weight_values,
            counterfactuals=args.flags["counterfactuals"],
            structured_output=args.structured,
        ),
        fail_on_error=FAIL_ON_ERROR,
        name=TASK_NAME,
        version=TASK_VERSION,
        display_name=f"medical_dialogue: {entry.full_name}",
        tags=[f"doctor={entry.full_name}", f"patient={patient}", f"judge={judge}"],
        headline_metric=HEADLINE,
        metadata=run_metadata(
            entry.full_name, options, validator, patient, judge, teamwork, args.rounds
        ),
    )
