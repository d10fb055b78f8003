"""Reading ``medical_dialogue`` logs into rows: one per persona, everything a report shows.

Logs are read with Inspect's own log API, so a report reads whatever Inspect reads: a log
directory, single ``.eval``/``.json`` files, or a remote location (``s3://...``) through
Inspect's file system layer. Persona ids and their metadata come from the log, never from the
prompt files.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from inspect_ai.log import EvalLog, EvalSample, list_eval_logs, read_eval_log

from gaa.errors import GAAError, describe
from gaa.models import MBTI_TYPES, SCORE_KEYS
from gaa.report.tokens import RunTokens, TokenCount, bound_models, run_tokens, sample_tokens
from gaa.summary import doctor_label

TASK_NAMES = frozenset({"gaa/medical_dialogue", "medical_dialogue"})
METRICS = tuple(key for key in SCORE_KEYS if key != "accepted")
"""The scores on a scale: overall (0-100) and the five dimensions (0-10)."""
GROUPS = METRICS[1:]
PANEL_FAILED = "judge_panel_failed"
"""The fallback the scorer records when the whole panel failed and the rules judge scored."""
ERROR_CHARS = 300


class ReportError(GAAError, ValueError):
    """Logs a report cannot be made from (the message names the file)."""


class MalformedSample(ValueError):
    """A sample whose metadata, scores or dialogue statistics are not what the task writes:
    skipped, and listed in the report with this message."""


GENDERS = ("male", "female")


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
    tokens: TokenCount | None = None
    """Every model's tokens in this sample (None when the sample records none)."""
    stance: str = "hesitant"
    """How the patient arrived: hesitant, or seeking the operation."""
    recommendation: str = ""
    """What the case's guideline recommends: operation, non_operative or shared."""
    held_the_line: bool | None = None
    """Where the operation is not recommended: the doctor never agreed to it, respectfully."""
    epoch: int = 1
    """Which repeat of the persona this sample is (a run with ``--epochs 3`` has three)."""
    took_recommended: bool | None = None
    """Whether the patient ended on the course the case's guideline recommends."""

    @property
    def panel_failed(self) -> bool:
        """Whether the rules judge scored this persona because the panel failed: the scorer
        says so in the judge it names and in the fallbacks it records."""
        return self.judge.startswith("rules (") or any(
            name.startswith(PANEL_FAILED) for name in self.fallbacks
        )


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
    tokens: RunTokens
    missing: list[str] = field(default_factory=list)
    """Personas in the dataset with no sample in the log (an interrupted or partial run)."""
    skipped: list[tuple[str, str]] = field(default_factory=list)
    """(sample id, why) for samples in the log too malformed to report (odd metadata, scores
    of the wrong type, no score and no error): left out of every number, listed."""
    eval_id: str = ""
    error: str = ""
    """Why the eval ended in error, if the log says (its last line)."""
    epochs: int = 1
    """How many times each persona was run (Inspect's ``--epochs``)."""
    started: str = ""
    """When the eval started and completed (ISO 8601, as the log has them)."""
    completed: str = ""
    header: RunHeader | None = None
    """What the log says about how the run was made (for the evaluation report)."""

    @property
    def personas(self) -> list[str]:
        """The personas of the run, once each however many epochs ran."""
        return sorted({row.persona for row in self.rows})

    @property
    def seconds(self) -> float | None:
        """The run's wall time, from the log's start and completion."""
        return _seconds(self.started, self.completed)

    @property
    def scored(self) -> list[PersonaRow]:
        return [row for row in self.rows if row.scored]

    @property
    def fallbacks(self) -> int:
        """Scored personas the rules judge scored because the configured panel failed."""
        if self.judge != "panel":
            return 0
        return sum(row.panel_failed for row in self.scored)

    @property
    def scored_by(self) -> dict[str, int]:
        """Scored personas per judge that actually scored them."""
        n, fell = len(self.scored), self.fallbacks
        if self.judge != "panel":
            return {self.judge or "unknown": n} if n else {}
        counts = {"panel": n - fell, "rules (fallback: panel failed)": fell}
        return {judge: count for judge, count in counts.items() if count}

    @property
    def _panel(self) -> str:
        panel = f"panel ({self.judge_models})"
        return panel + (f" teamwork={self.teamwork}" if self.teamwork else "")

    @property
    def judge_text(self) -> str:
        """The judge that actually scored: a panel that failed is never named as the judge,
        and a run scored partly by each says how many each scored."""
        if self.judge != "panel":
            return self.judge or "unknown"
        n, fell = len(self.scored), self.fallbacks
        if n == 0:
            return f"{self._panel} configured, nothing scored"
        if fell == 0:
            return self._panel
        if fell == n:
            return f"rules (fallback: panel of {self.judge_models} failed on {fell} of {n})"
        return (
            f"{self._panel} on {n - fell} of {n}, rules (fallback: panel failed) on {fell} of {n}"
        )

    @property
    def _setting(self) -> str:
        patient = self.patient
        if patient != "scripted":
            patient = f"{patient} ({self.patient_models})"
        validator = "" if self.validator in ("", "rules") else f"; validator {self.validator}"
        return f"patient {patient}{validator}"

    @property
    def judged_by(self) -> str:
        """How this run was actually judged and with which patient, for people to read."""
        return f"judge {self.judge_text}; {self._setting}"

    @property
    def comparable_as(self) -> str:
        """What must match for two runs' scores to be comparable: the judge that scored (a
        panel run that fell back entirely was scored by the rules, like a rules run; one that
        fell back in part was scored by both, like neither) and the patient."""
        fell, n = self.fallbacks, len(self.scored)
        if self.judge != "panel":
            judge = self.judge or "unknown"
        elif n and fell == n:
            judge = "rules"
        elif fell:
            judge = f"{self._panel} with rules fallback"
        else:
            judge = self._panel
        return f"judge {judge}; {self._setting}"

    @property
    def failure(self) -> str:
        """Why nothing (or not everything) was scored: the eval's error, else the samples'."""
        if self.error:
            return self.error
        if not self.rows and self.skipped:
            return (
                f"all {len(self.skipped)} samples skipped as malformed "
                f"(first: {self.skipped[0][1]})"
            )
        if not self.rows:
            return "no samples in the log"
        errors = Counter(row.error for row in self.rows if not row.scored)
        if not errors:
            return ""
        error, _ = errors.most_common(1)[0]
        return f"{sum(errors.values())} of {len(self.rows)} samples failed: {error}"


@dataclass(frozen=True)
class RunHeader:
    """How a run was made, read from its log: enough to write the command that repeats it."""

    task: str
    task_file: str
    task_version: str
    task_args: dict[str, Any]
    """The arguments the run was given (the task version fixes every other one's default)."""
    model: str
    model_roles: dict[str, str]
    packages: dict[str, str]
    revision: str
    generate_config: dict[str, Any]


def _seconds(started: str, completed: str) -> float | None:
    try:
        return (datetime.fromisoformat(completed) - datetime.fromisoformat(started)).total_seconds()
    except (TypeError, ValueError):
        return None


def _header(log: EvalLog) -> RunHeader:
    spec = log.eval
    revision = spec.revision
    roles = {
        role: ",".join(c.model for c in config) if isinstance(config, list) else config.model
        for role, config in (spec.model_roles or {}).items()
    }
    return RunHeader(
        task=spec.task,
        task_file=spec.task_file or "",
        task_version=str(spec.task_version),
        task_args=dict(spec.task_args_passed or spec.task_args or {}),
        model=spec.model,
        model_roles=roles,
        packages=dict(spec.packages or {}),
        revision=(
            f"{revision.commit}{' (dirty)' if getattr(revision, 'dirty', False) else ''}"
            if revision is not None and revision.commit
            else ""
        ),
        generate_config=spec.config.model_dump(exclude_none=True) if spec.config else {},
    )


def _epochs(log: EvalLog) -> int:
    epochs = log.eval.config.epochs if log.eval.config is not None else None
    return epochs if isinstance(epochs, int) and epochs > 0 else 1


def _role(log: EvalLog, role: str) -> str:
    """The model(s) playing ``role``: the bound ones, else the model under test."""
    return ", ".join(bound_models(log).get(role, [log.eval.model]))


def last_line(message: str) -> str:
    """The line of an error message that says what went wrong (Inspect puts the exception
    last), cut to a length a table can hold."""
    lines = message.strip().splitlines()
    return lines[-1][:ERROR_CHARS] if lines else "error"


def _count(value: Any, what: str) -> int:
    """A whole number the task writes (absent is 0)."""
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise MalformedSample(f"{what} is {value!r}, not a number")
    if not math.isfinite(value) or value != int(value) or value < 0:
        raise MalformedSample(f"{what} is {value!r}, not a whole number")
    return int(value)


def _level(value: Any, what: str) -> int | None:
    """A willingness level (absent stays None)."""
    return None if value is None else _count(value, what)


def _mapping(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise MalformedSample(f"{what} is a {type(value).__name__}, not a mapping")
    return value


def _texts(value: Any, what: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise MalformedSample(f"{what} is {value!r:.60}, not a list of texts")
    return list(value)


def _choice(metadata: dict[str, Any], key: str, choices: Iterable[str] | None = None) -> str:
    value = metadata.get(key)
    if not isinstance(value, str) or not value.strip():
        raise MalformedSample(f"metadata {key} is {value!r:.60}, not a name")
    if choices is not None and value not in choices:
        raise MalformedSample(f"metadata {key} is {value!r:.60}, not one of the task's")
    return value


def _willingness_by_round(session: dict[str, Any]) -> list[int | None]:
    values: list[int | None] = []
    turns = session.get("turns", [])
    if not isinstance(turns, list):
        raise MalformedSample("the session's turns are not a list")
    for turn in turns:
        turn = _mapping(turn, "a session turn")
        if turn.get("speaker") == "patient":
            values.append(_level(turn.get("willingness"), "a turn's willingness"))
    return values


def _scores(value: dict[str, Any]) -> dict[str, float]:
    scores = {}
    for name in METRICS:
        score = value.get(name)
        if isinstance(score, bool) or not isinstance(score, int | float):
            raise MalformedSample(f"score {name} is {score!r:.60}, not a number")
        if not math.isfinite(score):
            raise MalformedSample(f"score {name} is {score!r}")
        scores[name] = float(score)
    return scores


def persona_row(sample: EvalSample) -> PersonaRow:
    """The row of one sample (scored or not); :class:`MalformedSample` when the sample is not
    what the task writes."""
    metadata = _mapping(sample.metadata, "the metadata")
    score = next(iter((sample.scores or {}).values()), None)
    score_metadata = _mapping(score.metadata if score is not None else None, "the score metadata")
    performance = _mapping(score_metadata.get("performance"), "the performance")
    store = _mapping(sample.store, "the store")
    stats = _mapping(
        score_metadata.get("dialogue") or store.get("gaa:dialogue"), "the dialogue statistics"
    )
    session = _mapping(store.get("gaa:session"), "the session")
    value = score.value if score is not None else None
    scored = sample.error is None and isinstance(value, dict) and "overall" in value
    error = ""
    if sample.error is not None:
        error = last_line(sample.error.message)
    elif not scored:
        raise MalformedSample("no score (overall) and no error")
    criteria = performance.get("criteria") or []
    if not isinstance(criteria, list):
        raise MalformedSample("the criteria are not a list")
    answer = score.answer if score is not None else ""
    return PersonaRow(
        persona=str(sample.id),
        mbti=_choice(metadata, "mbti", MBTI_TYPES),
        gender=_choice(metadata, "gender", GENDERS),
        case=_choice(metadata, "case"),
        scored=scored,
        error=error,
        scores=_scores(value) if scored and isinstance(value, dict) else {},
        outcome=str(performance.get("outcome") or answer or ""),
        rounds=_count(stats.get("rounds"), "rounds"),
        willingness_start=_level(stats.get("initial_willingness"), "initial willingness"),
        willingness_end=_level(stats.get("final_willingness"), "final willingness"),
        willingness_by_round=_willingness_by_round(session),
        flags=_texts(performance.get("flags"), "the flags"),
        fallbacks=_texts(score_metadata.get("fallbacks"), "the fallbacks"),
        judge=str(score_metadata.get("judge") or ""),
        doctor_retries=_count(stats.get("doctor_retries"), "doctor retries"),
        doctor_reasks=_count(stats.get("doctor_reasks"), "doctor re-asks"),
        status_follow_ups=_count(stats.get("status_follow_ups"), "status follow-ups"),
        parse_misses=_count(stats.get("parse_misses"), "parse misses"),
        judge_failures=_count(score_metadata.get("judge_failures"), "judge failures"),
        excluded_judges=_count(score_metadata.get("excluded_judges"), "excluded judges"),
        criteria={
            str(item["criterion"]): str(item.get("verdict"))
            for item in criteria
            if isinstance(item, dict) and "criterion" in item
        },
        tokens=sample_tokens(sample.model_usage),
        stance=str(metadata.get("stance") or "hesitant"),
        recommendation=str(metadata.get("recommendation") or ""),
        held_the_line=_held(score_metadata.get("held_the_line")),
        epoch=sample.epoch if isinstance(sample.epoch, int) else 1,
        took_recommended=(
            bool(value["accepted"])
            if scored and isinstance(value, dict) and isinstance(value.get("accepted"), int | float)
            else None
        ),
    )


def _held(value: object) -> bool | None:
    return value if isinstance(value, bool) else None


def _rows(samples: Iterable[EvalSample]) -> tuple[list[PersonaRow], list[tuple[str, str]]]:
    """The rows of the samples a report can read, and (id, why) for those it cannot."""
    rows: list[PersonaRow] = []
    skipped: list[tuple[str, str]] = []
    for sample in samples:
        try:
            rows.append(persona_row(sample))
        except MalformedSample as exc:
            skipped.append((str(sample.id), str(exc)))
        except (ValueError, TypeError, KeyError, AttributeError, IndexError) as exc:
            skipped.append((str(sample.id), describe(exc)))
    return rows, skipped


def read_run(location: str) -> Run:
    """One ``medical_dialogue`` log as a :class:`Run` (a log of another task is an error)."""
    try:
        log = read_eval_log(location)
    except FileNotFoundError:
        raise ReportError(f"no log at {location}") from None
    except Exception as exc:
        raise ReportError(
            f"{location} is not an Inspect log Inspect can read ({describe(exc)})"
        ) from None
    try:
        return _run(log, location)
    except ReportError:
        raise
    except Exception as exc:  # a log Inspect reads but whose header is not the task's
        raise ReportError(f"{location} cannot be reported: {describe(exc)}") from None


def _run(log: EvalLog, location: str) -> Run:
    if log.eval.task not in TASK_NAMES:
        raise ReportError(
            f"{location} is a log of the task {log.eval.task!r}, not medical_dialogue; "
            "gaa report reads medical_dialogue logs only"
        )
    metadata = log.eval.metadata or {}
    rows, skipped = _rows(log.samples or [])
    present = {row.persona for row in rows} | {persona for persona, _ in skipped}
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
        tokens=run_tokens(log),
        missing=[persona for persona in expected if persona not in present],
        skipped=skipped,
        eval_id=log.eval.eval_id,
        error=last_line(log.error.message) if log.error is not None else "",
        epochs=_epochs(log),
        started=log.stats.started_at if log.stats is not None else "",
        completed=log.stats.completed_at if log.stats is not None else "",
        header=_header(log),
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
        except Exception as exc:
            raise ReportError(f"cannot list the logs in {path}: {describe(exc)}") from None
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
