"""judge_check's consultation files: bad files are one line naming the file; .yml is read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from gaa.judge_check.data import JudgeCheckDataError, default_folder, load_consultations

ORIGINAL = default_folder() / "pneumo_01.yaml"


def _folder_with(tmp_path: Path, name: str, content: bytes | None = None) -> Path:
    folder = tmp_path / "consultations"
    folder.mkdir()
    if content is None:
        shutil.copy(ORIGINAL, folder / name)
    else:
        (folder / name).write_bytes(content)
    return folder


def _one_line_error(folder: Path) -> str:
    with pytest.raises(JudgeCheckDataError) as caught:
        load_consultations(folder)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 600
    return message


def test_a_yml_file_is_read_like_a_yaml_one(tmp_path: Path) -> None:
    [item] = load_consultations(_folder_with(tmp_path, "mine.yml"))
    assert item.id == yaml.safe_load(ORIGINAL.read_text())["id"]


def test_a_latin_1_file_is_one_line_naming_the_file_and_the_byte(tmp_path: Path) -> None:
    text = ORIGINAL.read_text().replace("doctor", "médecin", 1)
    folder = _folder_with(tmp_path, "latin.yaml", text.encode("latin-1", errors="replace"))
    message = _one_line_error(folder)
    assert "latin.yaml" in message and "not UTF-8" in message and "0xe9" in message


def test_deep_nesting_is_one_line(tmp_path: Path) -> None:
    folder = _folder_with(tmp_path, "deep.yaml", b"[" * 100_000 + b"]" * 100_000)
    message = _one_line_error(folder)
    assert "deep.yaml" in message and "nested too deeply" in message


def test_a_malformed_consultation_is_one_line_per_file(tmp_path: Path) -> None:
    data = yaml.safe_load(ORIGINAL.read_text())
    data["labels"] = {"nonsense": "met"}
    folder = _folder_with(tmp_path, "bad.yaml", yaml.safe_dump(data).encode())
    message = _one_line_error(folder)
    assert "bad.yaml" in message and "missing" in message


def test_a_persona_of_another_case_is_an_error(tmp_path: Path) -> None:
    data = yaml.safe_load(ORIGINAL.read_text())
    assert data["persona"].endswith("_PNEUMO")
    data["case"] = "lung_cancer"
    folder = _folder_with(tmp_path, "mixed.yaml", yaml.safe_dump(data, allow_unicode=True).encode())
    message = _one_line_error(folder)
    assert "mixed.yaml" in message and "PNEUMO" in message and "lung_cancer" in message
