"""The ``inspect_ai`` entry point: importing this module registers GAA's tasks and model
providers with Inspect (``inspect eval gaa/medical_qa``, ``gaa/judge_check``,
``--model litellm/...``, ``--model gaa-local/...``)."""

from gaa.dialogue.task import medical_dialogue
from gaa.judge_check.task import judge_check
from gaa.providers._registration import gaa_local, litellm
from gaa.qa.task import medical_qa

__all__ = ["gaa_local", "judge_check", "litellm", "medical_dialogue", "medical_qa"]
