from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from gaa._resources import prompts_dir
from gaa.cases import load_case
from gaa.errors import CaseDataError

CASES = prompts_dir() / "cases"


@pytest.mark.parametrize("case_id", ["pneumothorax", "lung_cancer"])
def test_builtin_case_is_complete(case_id: str) -> None:
    case = load_case(CASES / f"{case_id}.yaml")
    assert case.case_id == case_id
    assert case.surgery_indicated is True
    assert len(case.facts) >= 12
    kinds = {fact.kind for fact in case.facts}
    assert {"risk", "benefit", "alternative", "prognosis_with", "prognosis_without"} <= kinds
    assert all(fact.source.strip() for fact in case.facts)
    assert any(fact.bounds is not None for fact in case.facts)
    assert "Sources of the figures" in case.case_prompt
    brief = case.brief_for(61, "female")
    assert brief.startswith("Patient: 61-year-old female.")
    assert "{" not in brief
    assert case.brief_for(40, None).startswith("Patient: 40-year-old patient.")


def _write_case(tmp_path: Path, **changes: object) -> Path:
    data = yaml.safe_load((CASES / "pneumothorax.yaml").read_text())
    data.update(changes)
    data = {k: v for k, v in data.items() if v is not None}
    (tmp_path / "pneumothorax.txt").write_text("You have a collapsed lung.")
    (tmp_path / "pneumothorax_seek.txt").write_text("You want the operation now.")
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def test_valid_copy_loads(tmp_path: Path) -> None:
    assert load_case(_write_case(tmp_path)).case_prompt == "You have a collapsed lung."


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"code": "pneumo"}, "code: Value error, 'pneumo' is not a valid persona code"),
        ({"surgery_indicated": "maybe"}, "surgery_indicated"),
        ({"age_range": [60, 20]}, "age_range"),
        ({"clinical_brief": "Patient: {age} {name}"}, "unknown slots ['name']"),
        ({"colour": "blue"}, "colour: Extra inputs are not permitted"),
        ({"title": None}, "title: Field required"),
        ({"patient_prompt": "missing.txt"}, "field patient_prompt names"),
        ({"id": "Bad Id"}, "id: Value error"),
    ],
)
def test_malformed_case_names_file_and_field(
    tmp_path: Path, changes: dict[str, object], expected: str
) -> None:
    path = _write_case(tmp_path, **changes)
    with pytest.raises(CaseDataError) as error:
        load_case(path)
    assert str(path) in str(error.value)
    assert expected in str(error.value)


def test_malformed_fact_names_its_index_and_id(tmp_path: Path) -> None:
    data = yaml.safe_load((CASES / "pneumothorax.yaml").read_text())
    data["facts"][2]["range"] = [9, 1]
    (tmp_path / "pneumothorax.txt").write_text("x")
    (tmp_path / "pneumothorax_seek.txt").write_text("x")
    path = tmp_path / "case.yaml"
    path.write_text(yaml.safe_dump(data))
    with pytest.raises(CaseDataError) as error:
        load_case(path)
    assert f"facts[2] (fact {data['facts'][2]['id']!r})" in str(error.value)
    assert "low end above its high end" in str(error.value)


def test_not_yaml_or_not_a_mapping(tmp_path: Path) -> None:
    (tmp_path / "a.yaml").write_text("id: [unclosed")
    with pytest.raises(CaseDataError, match="not valid YAML"):
        load_case(tmp_path / "a.yaml")
    (tmp_path / "b.yaml").write_text("- just\n- a list\n")
    with pytest.raises(CaseDataError, match="expected a mapping"):
        load_case(tmp_path / "b.yaml")
    with pytest.raises(CaseDataError, match="does not exist"):
        load_case(tmp_path / "nope.yaml")


def test_a_binary_case_file_is_named(tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe\x00\x80")
    with pytest.raises(CaseDataError, match=r"binary\.yaml cannot be read as UTF-8"):
        load_case(path)


@pytest.mark.parametrize("brief", ["Patient: {gender:d}.", "Age {age!x}.", "{age:%Y}"])
def test_a_brief_that_cannot_be_filled_in_fails_at_load(tmp_path: Path, brief: str) -> None:
    path = _write_case(tmp_path, clinical_brief=brief)
    with pytest.raises(CaseDataError, match=r"case\.yaml: clinical_brief"):
        load_case(path)
