"""The versions of GAA's tasks and of the package, in one place.

A task's version follows the Inspect Evals scheme ``N-X``: the number goes up when scores stop
being comparable with the previous version, the letter when the task's interface breaks. Both
only go up; ``CHANGELOG.md`` says what each version changed and ``eval.yaml`` names them (a test
keeps the three in step)."""

from __future__ import annotations

from importlib import metadata

TASK_VERSIONS = {"medical_dialogue": "3-A", "medical_qa": "1-A", "judge_check": "3-A"}


def package_version(package: str = "gaa") -> str:
    """The installed version of ``package`` (``unknown`` when it is not installed)."""
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "unknown"
