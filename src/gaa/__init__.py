"""GAA: Generative Adversarial Agents for safe medical dialogue.

A plugin-based Inspect AI benchmark of doctor agents talking patients through a surgical
decision, judged by a modular teamwork panel. This module is the public API.
"""

from gaa.a2a.layout import DoctorRequest, LayoutError, parse_request, render_request
from gaa.cases import load_case
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
    PerformanceScore,
)
from gaa.personas import parse_persona_id, select_personas
from gaa.plugins import Catalogue, PluginInfo, catalogue
from gaa.registry import Registered, Registry

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
    "PerformanceScore",
    "PersonaError",
    "PluginError",
    "PluginInfo",
    "PromptLibraryError",
    "Registered",
    "Registry",
    "RegistryError",
    "UnusableReply",
    "catalogue",
    "hookimpl",
    "hookspec",
    "load_case",
    "load_scripts",
    "parse_persona_id",
    "parse_request",
    "render_request",
    "scripted_doctors_plugin",
    "select_personas",
]
