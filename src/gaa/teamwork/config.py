"""Which teamwork components a deliberation uses: presets, free combinations and their checks.

Presets follow the ablation of ``spec/teamwork-components.md`` section 6:

=======  ======================================================
base     no component (standard Borda over the members' answers)
C1       shared mental model
C2       leadership
C3       team orientation + leadership
C4       trust network
C5       mutual monitoring + leadership + trust network
C6       shared mental model + leadership + team orientation
C7       leadership + trust network + mutual monitoring (the same set as C5, as the spec lists it)
C8, all  every built-in component
single   one agent answering alone (a baseline, not a team)
=======  ======================================================

Free combinations name components (full ``plugin/name``, short name, or an alias such as
``smm``, ``mm``, ``trust``) and may include presets: ``C2,devils_advocate``.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gaa._args import split_list
from gaa.errors import GAAError, RegistryError
from gaa.plugins import Catalogue, catalogue

SMM = "shared_mental_model"
LEADERSHIP = "leadership"
TEAM_ORIENTATION = "team_orientation"
TRUST = "trust_network"
MUTUAL_MONITORING = "mutual_monitoring"
BUILTIN_ORDER: tuple[str, ...] = (SMM, LEADERSHIP, TEAM_ORIENTATION, TRUST, MUTUAL_MONITORING)

SYMBOLS: dict[str, str] = {
    SMM: "SMM",
    LEADERSHIP: "L",
    TEAM_ORIENTATION: "TO",
    TRUST: "T",
    MUTUAL_MONITORING: "MM",
}
"""The spec's symbols for the built-in components."""

ALIASES: dict[str, str] = {
    "smm": SMM,
    "l": LEADERSHIP,
    "leader": LEADERSHIP,
    "to": TEAM_ORIENTATION,
    "t": TRUST,
    "trust": TRUST,
    "mm": MUTUAL_MONITORING,
}

PRESETS: dict[str, tuple[str, ...]] = {
    "base": (),
    "C1": (SMM,),
    "C2": (LEADERSHIP,),
    "C3": (TEAM_ORIENTATION, LEADERSHIP),
    "C4": (TRUST,),
    "C5": (MUTUAL_MONITORING, LEADERSHIP, TRUST),
    "C6": (SMM, LEADERSHIP, TEAM_ORIENTATION),
    "C7": (LEADERSHIP, TRUST, MUTUAL_MONITORING),
    "C8": BUILTIN_ORDER,
    "all": BUILTIN_ORDER,
}
SINGLE = "single"
ABLATION_PRESETS: tuple[str, ...] = ("base", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "all")

MIN_AGENTS, MAX_AGENTS, DEFAULT_AGENTS = 2, 4, 3
MAX_TURNS = 5


class TeamworkConfigError(GAAError, ValueError):
    """An unknown preset or component, a missing dependency, or an invalid team size."""


@dataclass(frozen=True)
class TeamworkConfig:
    """A resolved configuration: components (full registry names), team size and turns.

    ``n_agents`` is ``None`` when the recruiter decides (2-4).
    """

    components: tuple[str, ...] = ()
    n_agents: int | None = None
    n_turns: int = 2
    single: bool = False
    label: str = "base"
    structured: bool = False
    """Ask members for schema-constrained JSON (``response_schema``), for runtimes that can."""

    @classmethod
    def parse(
        cls,
        spec: str | Iterable[str] = "all",
        n_agents: int | str | None = "auto",
        n_turns: int = 2,
        registry: Catalogue | None = None,
        structured: bool = False,
    ) -> TeamworkConfig:
        registry = registry or catalogue()
        items = split_list(spec) or ["base"]
        label = ",".join(items)
        turns = _turns(n_turns)
        if [item.lower() for item in items] == [SINGLE]:
            return cls((), 1, turns, True, SINGLE, structured)
        if any(item.lower() == SINGLE for item in items):
            raise TeamworkConfigError(
                "'single' is a baseline of one agent and combines with nothing"
            )
        names: list[str] = []
        for item in items:
            preset = _preset(item)
            for name in PRESETS[preset] if preset else (item,):
                full = _resolve(name, registry)
                if full not in names:
                    names.append(full)
        config = cls(tuple(_ordered(names)), _agents(n_agents), turns, False, label, structured)
        config.check(registry)
        return config

    def classes(self, registry: Catalogue | None = None) -> list[type[Any]]:
        """The registered component classes, as the catalogue holds them (a plugin registers
        a class; the engine makes :class:`~gaa.teamwork.component.TeamworkComponent` of it)."""
        registry = registry or catalogue()
        return [registry.teamwork_components.get(name).item for name in self.components]

    @property
    def short_names(self) -> list[str]:
        return [name.split("/", 1)[-1] for name in self.components]

    def check(self, registry: Catalogue | None = None) -> None:
        present = set(self.short_names)
        for name, component in zip(self.short_names, self.classes(registry), strict=True):
            missing = [need for need in component.requires if need not in present]
            if missing:
                raise TeamworkConfigError(
                    f"The teamwork component '{name}' requires {', '.join(missing)}: add it "
                    f"(for example teamwork=C5, or {','.join([name, *missing])})"
                )


def _preset(item: str) -> str | None:
    for preset in PRESETS:
        if item.lower() == preset.lower():
            return preset
    return None


def _resolve(name: str, registry: Catalogue) -> str:
    canonical = ALIASES.get(name.lower(), name)
    try:
        return registry.teamwork_components.get(canonical).full_name
    except RegistryError as exc:
        if "registered by plugins" in str(exc):  # a short name two plugins share
            raise TeamworkConfigError(str(exc)) from None
        components = [entry.name for entry in registry.teamwork_components]
        close = difflib.get_close_matches(name, [*PRESETS, SINGLE, *components, *ALIASES], n=1)
        hint = f" Did you mean '{close[0]}'?" if close else ""
        raise TeamworkConfigError(
            f"Unknown teamwork preset or component '{name}'.{hint} "
            f"Presets: {', '.join([*PRESETS, SINGLE])}. "
            f"Components: {', '.join(registry.teamwork_components.names())} "
            f"(aliases: {', '.join(f'{a}={c}' for a, c in ALIASES.items())})."
        ) from None


def _ordered(names: list[str]) -> list[str]:
    def key(name: str) -> tuple[int, int]:
        short = name.split("/", 1)[-1]
        if name.startswith("gaa/") and short in BUILTIN_ORDER:
            return (0, BUILTIN_ORDER.index(short))
        return (1, names.index(name))

    return sorted(names, key=key)


def _agents(value: int | str | None) -> int | None:
    if value is None or (isinstance(value, str) and value.lower() == "auto"):
        return None
    try:
        count = int(value)
    except (TypeError, ValueError, OverflowError):
        raise TeamworkConfigError(
            f"n_agents must be 'auto' or {MIN_AGENTS}-{MAX_AGENTS}, not {value!r}"
        ) from None
    if not MIN_AGENTS <= count <= MAX_AGENTS:
        raise TeamworkConfigError(
            f"n_agents must be 'auto' or {MIN_AGENTS}-{MAX_AGENTS}, not {count}"
        )
    return count


def _turns(value: int | str) -> int:
    try:
        turns = int(value)
    except (TypeError, ValueError, OverflowError):
        raise TeamworkConfigError(
            f"n_turns must be a whole number 1-{MAX_TURNS}, not {value!r}"
        ) from None
    if not 1 <= turns <= MAX_TURNS:
        raise TeamworkConfigError(
            f"n_turns must be 1-{MAX_TURNS} (the spec uses 2 or 3), not {turns}"
        )
    return turns
