"""Reading ``medical_dialogue`` logs into rows: one per persona, everything a report shows.

Logs are read with Inspect's own log API, so a report reads whatever Inspect reads: a log
directory, single ``.eval``/``.json`` files, or a remote location (``s3://...``) through
Inspect's file system layer. Persona ids and their metadata come from the log, never from the
prompt files.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log

from gaa.errors import GAAError
from gaa.summary import doctor_label

TASK_NAMES = frozenset({"gaa/medical_dialogue", "medical_dialogue"})
METRICS = ("overall", "empathy", "persuasion", "safety", "accuracy", "informed_consent")
GROUPS = METRICS[1:]


class ReportError(GAAError, ValueError):
    """Logs a report cannot be made from (the message names the file)."""


@dataclass
class PersonaRow:
    """One persona of one run."""

    persona: str
    mbti: str
    gender: str
    case: str
    scored: bool
    error: str = ""
    scores: dict[str, float] = field(default_factory=dict)
    outcome: str = ""
    rounds: int = 0
    willingness_start: int | None = None
    willingness_end: int | None = None
    willingness_by_round: list[int | None] = field(default_factory=list)
    """The patient's willingness after its opening (index 0) and after each round."""
    flags: list[str] = field(default_factory=list)
    """Safety findings as ``rule: quote``."""
    fallbacks: list[str] = field(default_factory=list)
    judge: str = ""
    doctor_retries: int = 0
    doctor_reasks: int = 0
    status_follow_ups: int = 0
    parse_misses: int = 0
    judge_failures: int = 0
    excluded_judges: int = 0
    criteria: dict[str, str] = field(default_factory=dict)
    """Criterion id -> met, not_met or not_relevant."""


@dataclass
class Run:
    """One log: who was evaluated, how it was judged, and its persona rows."""

    location: str
    doctor: str
    model: str
    patient: str
    judge: str
    judge_models: str
    patient_models: str
    teamwork: str
    status: str
    validator: str
    rows: list[PersonaRow]
    missing: list[str] = field(default_factory=list)
    """Personas in the dataset with no sample in the log (an interrupted or partial run)."""
    eval_id: str = ""

    @property
    def judged_by(self) -> str:
        """How this run was judged and with which patient: rows differing here are not
        comparable."""
        judge = self.judge if self.judge == "rules" else f"{self.judge} ({self.judge_models})"
        if self.judge == "panel" and self.teamwork:
            judge += f" teamwork={self.teamwork}"
        patient = self.patient
        if patient != "scripted":
            patient = f"{patient} ({self.patient_models})"
        validator = "" if self.validator in ("", "rules") else f"; validator {self.validator}"
        return f"judge {judge}; patient {patient}{validator}"

    @property
    def scored(self) -> list[PersonaRow]:
        return [row for row in self.rows if row.scored]


def _role(log: EvalLog, role: str) -> str:
    roles = log.eval.model_roles or {}
    config = roles.get(role)
    if config is None:
        return log.eval.model
    return str(getattr(config, "model", config))


def _willingness_by_round(session: dict[str, Any]) -> list[int | None]:
    values: list[int | None] = []
    for turn in session.get("turns", []):
        if turn.get("speaker") == "patient":
            values.append(turn.get("willingness"))
    return values


def persona_row(sample: EvalSample) -> PersonaRow:
    """The row of one sample (scored or not)."""
    metadata = sample.metadata or {}
    score = next(iter((sample.scores or {}).values()), None)
    score_metadata: dict[str, Any] = (score.metadata or {}) if score is not None else {}
    performance = score_metadata.get("performance") or {}
    stats = score_metadata.get("dialogue") or (sample.store or {}).get("gaa:dialogue") or {}
    session = (sample.store or {}).get("gaa:session") or {}
    value = score.value if score is not None else None
    scored = sample.error is None and isinstance(value, dict) and "overall" in value
    error = ""
    if sample.error is not None:
        lines = sample.error.message.strip().splitlines()
        error = lines[-1][:300] if lines else "error"
    elif not scored:
        error = "not scored"
    return PersonaRow(
        persona=str(sample.id),
        mbti=str(metadata.get("mbti", "")),
        gender=str(metadata.get("gender", "")),
        case=str(metadata.get("case", "")),
        scored=scored,
        error=error,
        scores=(
            {name: float(value[name]) for name in METRICS if name in value}
            if scored and isinstance(value, dict)
            else {}
        ),
        outcome=str(performance.get("outcome") or (score.answer if score is not None else "")),
        rounds=int(stats.get("rounds") or 0),
        willingness_start=stats.get("initial_willingness"),
        willingness_end=stats.get("final_willingness"),
        willingness_by_round=_willingness_by_round(session),
        flags=[str(flag) for flag in performance.get("flags", [])],
        fallbacks=[str(name) for name in score_metadata.get("fallbacks", [])],
        judge=str(score_metadata.get("judge", "")),
        doctor_retries=int(stats.get("doctor_retries") or 0),
        doctor_reasks=int(stats.get("doctor_reasks") or 0),
        status_follow_ups=int(stats.get("status_follow_ups") or 0),
        parse_misses=int(stats.get("parse_misses") or 0),
        judge_failures=int(score_metadata.get("judge_failures") or 0),
        excluded_judges=int(score_metadata.get("excluded_judges") or 0),
        criteria={
            str(item["criterion"]): str(item["verdict"])
            for item in performance.get("criteria", [])
            if isinstance(item, dict) and "criterion" in item
        },
    )


def read_run(location: str) -> Run:
    """One ``medical_dialogue`` log as a :class:`Run` (a log of another task is an error)."""
    try:
        log = read_eval_log(location)
    except FileNotFoundError:
        raise ReportError(f"no log at {location}") from None
    except Exception as exc:
        raise ReportError(f"{location} is not an Inspect log Inspect can read ({exc})") from None
    if log.eval.task not in TASK_NAMES:
        raise ReportError(
            f"{location} is a log of the task {log.eval.task!r}, not medical_dialogue; "
            "gaa report reads medical_dialogue logs only"
        )
    metadata = log.eval.metadata or {}
    rows = [persona_row(sample) for sample in log.samples or []]
    present = {row.persona for row in rows}
    expected = [str(i) for i in (log.eval.dataset.sample_ids or [])]
    return Run(
        location=log.location or location,
        doctor=doctor_label(log),
        model=log.eval.model,
        patient=str(metadata.get("patient", "")),
        judge=str(metadata.get("judge", "")),
        judge_models=_role(log, "judge"),
        patient_models=_role(log, "patient"),
        teamwork=str(metadata.get("teamwork") or ""),
        status=log.status,
        validator=(
            f"model ({_role(log, 'validator')})" if metadata.get("validator") == "model" else ""
        ),
        rows=rows,
        missing=[persona for persona in expected if persona not in present],
        eval_id=log.eval.eval_id,
    )


def log_locations(paths: Iterable[str]) -> list[str]:
    """Every log a list of files and directories names (directories are listed by Inspect)."""
    locations: list[str] = []
    for path in paths:
        if path.endswith((".eval", ".json")):
            locations.append(path)
            continue
        try:
            found = list_eval_logs(path, recursive=True)
        except FileNotFoundError:
            raise ReportError(f"no log file or directory at {path}") from None
        if not found:
            raise ReportError(f"{path} holds no Inspect logs (.eval or .json)")
        locations += [info.name for info in found]
    return locations


def read_runs(paths: Iterable[str], progress: Callable[[str], None] | None = None) -> list[Run]:
    """Every ``medical_dialogue`` run the paths name, oldest first (``progress`` is told
    about each log as it is read)."""
    locations = log_locations(paths)
    runs = []
    for number, location in enumerate(locations, start=1):
        if progress is not None:
            progress(f"reading log {number}/{len(locations)}: {location}")
        runs.append(read_run(location))
    return runs
