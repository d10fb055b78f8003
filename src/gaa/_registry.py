"""The ``inspect_ai`` entry point: importing this module registers GAA's tasks, solvers, scorers
and model providers with Inspect (``inspect eval gaa/medical_qa`` works from anywhere)."""

from gaa.benchmark import medical_dialogue
from gaa.qa.task import medical_qa

__all__ = ["medical_dialogue", "medical_qa"]
