"""YAML read with libyaml's C loader when PyYAML was built with it (about ten times faster on
the rubric, the cases and the rule files), else with the pure-Python safe loader. Both build
only plain data (no Python objects); on every YAML file of this repository they read the same
data, though libyaml accepts a few inputs the Python scanner rejects and words errors its own
way."""

from __future__ import annotations

from typing import Any

import yaml

_LOADER: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """The data of one YAML document (``None`` for an empty one)."""
    return yaml.load(text, Loader=_LOADER)
