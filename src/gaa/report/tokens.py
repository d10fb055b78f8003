"""Tokens a run spent, as its log records them: in total, per model and per model role, and
the doctor's share where the log can tell it apart.

Inspect counts every generation of every model it calls (``EvalLog.stats.model_usage``, keyed
by model) and, for models bound to a role (``--model-role``), per role as well
(``stats.role_usage``). The doctor has no role of its own: ``gaa/model`` answers with the model
under test, so its share is that model's usage less the roles bound to the same model. Roles
left unbound fall back to the model under test too, and then their tokens cannot be told apart
from the doctor's (they are shown together, and said to be). A remote A2A doctor spends its
tokens outside Inspect, and a reference doctor calls no model: neither is in the log, and the
report says so rather than showing zero.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from inspect_ai.log import EvalLog
from inspect_ai.model import ModelUsage

DoctorKind = Literal["counted", "shared", "remote", "no_model", "unreported", "unknown"]
"""How much the log says about the doctor's tokens:

- ``counted``: the doctor's own tokens;
- ``shared``: the model under test's tokens, which unbound roles spent too;
- ``remote``: an A2A doctor, whose tokens are not Inspect's to count;
- ``no_model``: a scripted doctor that calls no model;
- ``unreported``: the model under test, with no usage in the log;
- ``unknown``: a plugin doctor whose calls the log does not tell apart.
"""


@dataclass(frozen=True)
class TokenCount:
    """Input (uncached, as Inspect counts it), output and total tokens; ``cache_read`` and
    ``cache_write`` are None where no provider reported them (not the same as zero)."""

    input: int = 0
    output: int = 0
    total: int = 0
    cache_read: int | None = None
    cache_write: int | None = None

    @classmethod
    def of(cls, usage: ModelUsage) -> TokenCount:
        return cls(
            input=usage.input_tokens,
            output=usage.output_tokens,
            total=usage.total_tokens,
            cache_read=usage.input_tokens_cache_read,
            cache_write=usage.input_tokens_cache_write,
        )

    def __add__(self, other: TokenCount) -> TokenCount:
        return TokenCount(
            self.input + other.input,
            self.output + other.output,
            self.total + other.total,
            _combine(self.cache_read, other.cache_read, 1),
            _combine(self.cache_write, other.cache_write, 1),
        )

    def __sub__(self, other: TokenCount) -> TokenCount:
        return TokenCount(
            max(self.input - other.input, 0),
            max(self.output - other.output, 0),
            max(self.total - other.total, 0),
            _combine(self.cache_read, other.cache_read, -1),
            _combine(self.cache_write, other.cache_write, -1),
        )

    def as_dict(self) -> dict[str, int | None]:
        """Inspect's names for the fields, so the JSON reads like the log."""
        return {
            "input_tokens": self.input,
            "output_tokens": self.output,
            "total_tokens": self.total,
            "input_tokens_cache_read": self.cache_read,
            "input_tokens_cache_write": self.cache_write,
        }


def _combine(a: int | None, b: int | None, sign: int) -> int | None:
    if a is None and b is None:
        return None
    return max((a or 0) + sign * (b or 0), 0)


def total(counts: Iterable[TokenCount]) -> TokenCount:
    result = TokenCount()
    for count in counts:
        result = result + count
    return result


def counts(usage: Mapping[str, ModelUsage]) -> dict[str, TokenCount]:
    return {name: TokenCount.of(item) for name, item in sorted(usage.items())}


@dataclass(frozen=True)
class DoctorTokens:
    kind: DoctorKind
    note: str
    """Why the tokens are (or are not) the doctor's, in a sentence."""
    tokens: TokenCount | None = None
    shared_with: list[str] = field(default_factory=list)
    """Unbound roles whose tokens are in ``tokens`` too (kind ``shared``)."""


@dataclass(frozen=True)
class RunTokens:
    """What a run's log says about tokens (``total`` is None when it records none)."""

    total: TokenCount | None
    by_model: dict[str, TokenCount]
    by_role: dict[str, TokenCount]
    role_models: dict[str, str]
    """Role -> the model(s) bound to it, as the log names them."""
    doctor: DoctorTokens
    source: str
    """Where the numbers come from: the eval's statistics, or the samples' usage summed."""

    @property
    def reports_cache(self) -> bool:
        """Whether any provider reported cache reads (else the column would be all blanks)."""
        every = [*self.by_model.values(), *self.by_role.values()]
        return any(count.cache_read is not None for count in every)


def bound_models(log: EvalLog) -> dict[str, list[str]]:
    """Role -> the names of the models bound to it (a role may be bound to a list)."""
    bound: dict[str, list[str]] = {}
    for role, config in (log.eval.model_roles or {}).items():
        configs = config if isinstance(config, list) else [config]
        bound[role] = [str(getattr(item, "model", item)) for item in configs]
    return bound


def unbound_roles(metadata: Mapping[str, object], bound: Mapping[str, list[str]]) -> list[str]:
    """Roles the run used that no model was bound to: they were played by the model under test
    (GAA's roles default to it), so their tokens are counted under its name with the doctor's."""
    used = []
    if metadata.get("patient") == "model":
        used.append("patient")
    if metadata.get("judge") == "panel":
        used.append("judge")
    return [role for role in used if role not in bound]


def _usage(log: EvalLog) -> tuple[dict[str, TokenCount], dict[str, TokenCount], str]:
    """Per model and per role from the eval's statistics; summed over the samples when the
    statistics are empty (a log written before the eval finished)."""
    if log.stats.model_usage:
        return counts(log.stats.model_usage), counts(log.stats.role_usage), "eval statistics"
    by_model: dict[str, TokenCount] = {}
    by_role: dict[str, TokenCount] = {}
    for sample in log.samples or []:
        for name, count in counts(sample.model_usage).items():
            by_model[name] = by_model.get(name, TokenCount()) + count
        for name, count in counts(sample.role_usage).items():
            by_role[name] = by_role.get(name, TokenCount()) + count
    return dict(sorted(by_model.items())), dict(sorted(by_role.items())), "samples (summed)"


def doctor_tokens(
    doctor: str,
    url: str,
    model: str,
    by_model: Mapping[str, TokenCount],
    by_role: Mapping[str, TokenCount],
    bound: Mapping[str, list[str]],
    unbound: list[str],
) -> DoctorTokens:
    """The doctor's tokens, or why the log cannot give them."""
    if url or doctor == "gaa/a2a":
        where = f" at {url}" if url else ""
        return DoctorTokens(
            "remote",
            f"remote A2A doctor{where}: its tokens are spent outside Inspect and are not in the "
            "log",
        )
    if doctor.startswith("reference/"):
        return DoctorTokens("no_model", f"{doctor} is scripted and calls no model")
    if doctor != "gaa/model":
        if not by_model:
            return DoctorTokens(
                "no_model", f"the log records no model call, so {doctor} made none through Inspect"
            )
        return DoctorTokens(
            "unknown",
            f"the log does not say which model calls were {doctor}'s: see the tokens per model",
        )
    own = by_model.get(model)
    if own is None:
        return DoctorTokens("unreported", f"the log records no tokens for {model}")
    same = [role for role, models in bound.items() if models and set(models) == {model}]
    mixed = [role for role, models in bound.items() if model in models and role not in same]
    tokens = own - total(by_role.get(role, TokenCount()) for role in same)
    shared = [*unbound, *mixed]
    if shared:
        return DoctorTokens(
            "shared",
            f"{model} also played the {', '.join(shared)} role"
            + ("s" if len(shared) > 1 else "")
            + ", so these tokens include theirs",
            tokens,
            shared,
        )
    note = f"{model}, the model under test"
    if same:
        note += f", less the {', '.join(same)} role{'s' if len(same) > 1 else ''} it also played"
    return DoctorTokens("counted", note, tokens)


def run_tokens(log: EvalLog) -> RunTokens:
    """The tokens of one log (see the module docstring)."""
    by_model, by_role, source = _usage(log)
    metadata = log.eval.metadata or {}
    bound = bound_models(log)
    doctor = doctor_tokens(
        str(metadata.get("doctor", "gaa/model")),
        str(metadata.get("doctor_url") or ""),
        log.eval.model,
        by_model,
        by_role,
        bound,
        unbound_roles(metadata, bound),
    )
    return RunTokens(
        total=total(by_model.values()) if by_model else None,
        by_model=by_model,
        by_role=by_role,
        role_models={role: ", ".join(models) for role, models in bound.items()},
        doctor=doctor,
        source=source if by_model else "",
    )


def sample_tokens(usage: Mapping[str, ModelUsage]) -> TokenCount | None:
    """One sample's tokens over every model (None when the sample records none)."""
    return total(counts(usage).values()) if usage else None
