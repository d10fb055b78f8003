"""GAA: Generative Adversarial Agents for safe medical dialogue.

A plugin-based Inspect AI benchmark of doctor agents talking patients through a surgical
decision, judged by a modular teamwork panel. This module is the public API.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gaa.a2a.layout import DoctorRequest, LayoutError, parse_request, render_request
    from gaa.cases import load_case
    from gaa.dialogue.outcomes import held_the_line, took_recommended_course
    from gaa.dialogue.task import medical_dialogue
    from gaa.doctors.scripted import DoctorScript, load_scripts, scripted_doctors_plugin
    from gaa.errors import (
        A2AError,
        CaseDataError,
        GAAError,
        PersonaError,
        PluginError,
        PromptLibraryError,
        RegistryError,
        UnusableReply,
    )
    from gaa.hookspecs import hookimpl, hookspec
    from gaa.models import (
        MBTI_TYPES,
        CriterionVerdict,
        DialogueSession,
        DialogueTurn,
        EvalRequest,
        EvalResult,
        KnowledgeFact,
        MedicalCase,
        PatientPersona,
        PatientStance,
        PerformanceScore,
        Recommendation,
    )
    from gaa.personas import parse_persona_id, select_personas
    from gaa.plugins import Catalogue, PluginInfo, catalogue
    from gaa.qa import medical_qa
    from gaa.registry import Registered, Registry

_EXPORTS = {
    "DoctorRequest": "gaa.a2a.layout",
    "LayoutError": "gaa.a2a.layout",
    "parse_request": "gaa.a2a.layout",
    "render_request": "gaa.a2a.layout",
    "load_case": "gaa.cases",
    "DoctorScript": "gaa.doctors.scripted",
    "load_scripts": "gaa.doctors.scripted",
    "scripted_doctors_plugin": "gaa.doctors.scripted",
    "A2AError": "gaa.errors",
    "CaseDataError": "gaa.errors",
    "GAAError": "gaa.errors",
    "PersonaError": "gaa.errors",
    "PluginError": "gaa.errors",
    "PromptLibraryError": "gaa.errors",
    "RegistryError": "gaa.errors",
    "UnusableReply": "gaa.errors",
    "hookimpl": "gaa.hookspecs",
    "hookspec": "gaa.hookspecs",
    "MBTI_TYPES": "gaa.models",
    "CriterionVerdict": "gaa.models",
    "DialogueSession": "gaa.models",
    "DialogueTurn": "gaa.models",
    "EvalRequest": "gaa.models",
    "EvalResult": "gaa.models",
    "KnowledgeFact": "gaa.models",
    "MedicalCase": "gaa.models",
    "PatientPersona": "gaa.models",
    "PatientStance": "gaa.models",
    "Recommendation": "gaa.models",
    "held_the_line": "gaa.dialogue.outcomes",
    "took_recommended_course": "gaa.dialogue.outcomes",
    "medical_dialogue": "gaa.dialogue.task",
    "medical_qa": "gaa.qa",
    "PerformanceScore": "gaa.models",
    "parse_persona_id": "gaa.personas",
    "select_personas": "gaa.personas",
    "Catalogue": "gaa.plugins",
    "PluginInfo": "gaa.plugins",
    "catalogue": "gaa.plugins",
    "Registered": "gaa.registry",
    "Registry": "gaa.registry",
}
"""Where each public name lives: imported on first use, so ``import gaa`` (and ``gaa --help``)
stays light and Inspect is loaded only when something needs it."""


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'gaa' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


__all__ = [
    "MBTI_TYPES",
    "A2AError",
    "CaseDataError",
    "Catalogue",
    "CriterionVerdict",
    "DialogueSession",
    "DialogueTurn",
    "DoctorRequest",
    "DoctorScript",
    "EvalRequest",
    "EvalResult",
    "GAAError",
    "KnowledgeFact",
    "LayoutError",
    "MedicalCase",
    "PatientPersona",
    "PatientStance",
    "PerformanceScore",
    "PersonaError",
    "PluginError",
    "PluginInfo",
    "PromptLibraryError",
    "Recommendation",
    "Registered",
    "Registry",
    "RegistryError",
    "UnusableReply",
    "catalogue",
    "held_the_line",
    "hookimpl",
    "hookspec",
    "load_case",
    "load_scripts",
    "medical_dialogue",
    "medical_qa",
    "parse_persona_id",
    "parse_request",
    "render_request",
    "scripted_doctors_plugin",
    "select_personas",
    "took_recommended_course",
]
