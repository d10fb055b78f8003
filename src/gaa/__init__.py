"""GAA: Generative Adversarial Agents for safe medical dialogue.

A plugin-based Inspect AI benchmark of doctor agents talking patients through a surgical
decision, judged by a modular teamwork panel. This module is the public API.
"""

from gaa.cases import load_case
from gaa.doctors.scripted import DoctorScript, load_scripts, scripted_doctors_plugin
from gaa.errors import (
    CaseDataError,
    GAAError,
    PersonaError,
    PluginError,
    PromptLibraryError,
    RegistryError,
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
    PerformanceScore,
)
from gaa.personas import parse_persona_id, select_personas
from gaa.plugins import Catalogue, PluginInfo, catalogue
from gaa.registry import Registered, Registry

__all__ = [
    "MBTI_TYPES",
    "CaseDataError",
    "Catalogue",
    "CriterionVerdict",
    "DialogueSession",
    "DialogueTurn",
    "DoctorScript",
    "EvalRequest",
    "EvalResult",
    "GAAError",
    "KnowledgeFact",
    "MedicalCase",
    "PatientPersona",
    "PerformanceScore",
    "PersonaError",
    "PluginError",
    "PluginInfo",
    "PromptLibraryError",
    "Registered",
    "Registry",
    "RegistryError",
    "catalogue",
    "hookimpl",
    "hookspec",
    "load_case",
    "load_scripts",
    "parse_persona_id",
    "scripted_doctors_plugin",
    "select_personas",
]
