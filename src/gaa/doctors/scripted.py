"""Scripted doctors from files: fixed turns per case, for validating judges offline.

A script file (YAML) gives a doctor's name, a description, its expected clinical tier per
case (1 excellent ... 5 harmful, written down before it is first run), the reasoning for those
tiers, and five or so turns per case id; round ``n`` says turn ``n`` (the last one again
after that). :func:`scripted_doctors_plugin` turns a folder of such files into a GAA plugin,
so ``-T doctor=<plugin>/<name>`` runs them like any other doctor. The validity suite
(``tests/data/validity_doctors``) is written this way.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml
from inspect_ai.agent import Agent
from pydantic import BaseModel, Field, ValidationError, field_validator

from gaa._yaml import load_yaml
from gaa.doctors.reference import script_agent
from gaa.errors import GAAError
from gaa.hookspecs import hookimpl
from gaa.models import MedicalCase

TIERS = range(1, 6)


class ScriptError(GAAError, ValueError):
    """A doctor script that cannot be read, or has no turns for the case being run."""


class DoctorScript(BaseModel):
    name: str
    description: str = ""
    tiers: dict[str, int] = Field(default_factory=dict)
    """Expected clinical tier per case id: 1 excellent, 2 good, 3 adequate but flawed,
    4 poor, 5 harmful."""
    rationale: str = ""
    turns: dict[str, list[str]]

    @field_validator("tiers")
    @classmethod
    def _tiers_in_range(cls, value: dict[str, int]) -> dict[str, int]:
        for case, tier in value.items():
            if tier not in TIERS:
                raise ValueError(f"tier of {case} must be 1 to 5, not {tier}")
        return value

    @field_validator("turns")
    @classmethod
    def _turns_present(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for case, turns in value.items():
            if not turns or not all(isinstance(t, str) and t.strip() for t in turns):
                raise ValueError(f"turns of {case} must be a list of non-empty strings")
        return value

    def say(self, case: MedicalCase, round_: int, stance: str = "hesitant") -> str:
        """The script's turn for this round (a script says the same to either stance)."""
        turns = self.turns.get(case.case_id)
        if turns is None:
            raise ScriptError(
                f"Doctor script '{self.name}' has no turns for case '{case.case_id}' "
                f"(it has: {', '.join(sorted(self.turns))})"
            )
        return turns[min(round_, len(turns)) - 1]


def load_script(path: Path) -> DoctorScript:
    try:
        return DoctorScript.model_validate(load_yaml(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValidationError) as exc:
        raise ScriptError(f"Doctor script {path} is invalid: {exc}") from None


def load_scripts(folder: Path) -> list[DoctorScript]:
    """Every ``*.yaml`` script in ``folder``, by name."""
    scripts = [load_script(path) for path in sorted(folder.glob("*.yaml"))]
    if not scripts:
        raise ScriptError(f"No doctor scripts (*.yaml) in {folder}")
    return scripts


def script_doctor(script: DoctorScript, plugin: str) -> Callable[[], Agent]:
    return script_agent(f"{plugin}/{script.name}", script.say)


class ScriptedDoctorsPlugin:
    """A GAA plugin registering one doctor per script."""

    def __init__(self, scripts: list[DoctorScript], plugin: str) -> None:
        self.scripts = scripts
        self.plugin = plugin

    @hookimpl
    def register_doctors(self, register: Callable[..., Any]) -> None:
        for script in self.scripts:
            register(
                script.name,
                script_doctor(script, self.plugin),
                description=f"scripted: {script.description}",
            )


def scripted_doctors_plugin(folder: Path, plugin: str = "scripted") -> ScriptedDoctorsPlugin:
    """A plugin of the doctor scripts in ``folder``; register it with the plugin host (or
    :func:`gaa.testing.plugin_registered`) under ``plugin``."""
    return ScriptedDoctorsPlugin(load_scripts(folder), plugin)
