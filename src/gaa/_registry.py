"""The ``inspect_ai`` entry point: importing this module registers GAA's tasks and model
providers with Inspect (``inspect eval gaa/medical_qa``, ``--model litellm/...``,
``--model gaa-local/...``)."""

from gaa.benchmark import medical_dialogue
from gaa.providers._registration import gaa_local, litellm
from gaa.qa.task import medical_qa

__all__ = ["gaa_local", "litellm", "medical_dialogue", "medical_qa"]
