"""Question files in the MedQA JSONL format, read into Inspect samples.

Each line is an object with ``question``, ``options`` (label -> text, e.g. A-E) and
``answer_idx`` (the correct label); ``id``, ``specialty``, ``explanation`` and other fields are
kept as metadata. Errors name the file, the line and the field.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from inspect_ai.dataset import Sample

from gaa._resources import prompts_dir
from gaa.errors import GAAError

REQUIRED_FIELDS = ("question", "options", "answer_idx")


class QuestionFileError(GAAError, ValueError):
    """A question file that is missing or malformed."""


def _sample(row: Any, where: str, line: int) -> Sample:
    if not isinstance(row, dict):
        raise QuestionFileError(f"{where}: expected a JSON object")
    for name in REQUIRED_FIELDS:
        if name not in row:
            raise QuestionFileError(f"{where}: missing field '{name}'")
    question, options, answer = row["question"], row["options"], row["answer_idx"]
    if not isinstance(question, str) or not question.strip():
        raise QuestionFileError(f"{where}: field 'question' must be non-empty text")
    if (
        not isinstance(options, dict)
        or len(options) < 2
        or not all(isinstance(k, str) and isinstance(v, str) for k, v in options.items())
    ):
        raise QuestionFileError(
            f"{where}: field 'options' must map at least two labels to text, e.g. "
            '{"A": "...", "B": "..."}'
        )
    if not isinstance(answer, str) or answer not in options:
        raise QuestionFileError(
            f"{where}: field 'answer_idx' is {str(answer)[:40]!r}, not one of the options "
            f"{', '.join(options)}"
        )
    extra = {k: v for k, v in row.items() if k not in (*REQUIRED_FIELDS, "id")}
    return Sample(
        id=str(row.get("id") or f"line-{line}"),
        input=question.strip(),
        choices=list(options.values()),
        target=answer,
        metadata={"options": options, **extra},
    )


def load_medqa_jsonl(path: str | Path) -> list[Sample]:
    """Read a MedQA-format JSONL file; blank lines are skipped, ids must be unique."""
    path = Path(path)
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise QuestionFileError(f"Question file {path} does not exist") from None
    except (UnicodeDecodeError, IsADirectoryError, PermissionError, OSError) as exc:
        raise QuestionFileError(
            f"Question file {path} cannot be read as UTF-8 text: {type(exc).__name__}"
        ) from None
    samples: list[Sample] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        where = f"{path} line {number}"
        try:
            row = json.loads(text)
        except json.JSONDecodeError as exc:
            raise QuestionFileError(f"{where}: not valid JSON ({exc.msg})") from None
        except (ValueError, RecursionError) as exc:  # nested too deep, numbers too long
            reason = "nested too deep" if isinstance(exc, RecursionError) else str(exc)[:80]
            raise QuestionFileError(f"{where}: not readable JSON ({reason})") from None
        sample = _sample(row, where, number)
        sample_id = str(sample.id)
        if sample_id in seen:
            raise QuestionFileError(
                f"{where}: id {sample_id!r} already used on line {seen[sample_id]}"
            )
        seen[sample_id] = number
        samples.append(sample)
    if not samples:
        raise QuestionFileError(f"Question file {path} has no questions")
    return samples


def load_core() -> list[Sample]:
    """The built-in ``core`` set: 72 original USMLE-style questions across 12 specialties."""
    return load_medqa_jsonl(prompts_dir() / "questions" / "core.jsonl")
