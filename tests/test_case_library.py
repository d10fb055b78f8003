"""The case library's data: every case file loads, and says what kind of course it recommends."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaa.cases import load_case
from gaa.errors import CaseDataError

CASES = Path(__file__).resolve().parents[1] / "prompts" / "cases"
FILES = sorted(CASES.glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_every_case_file_loads_with_its_facts_sourced(path: Path) -> None:
    case = load_case(path)
    assert case.case_id == path.stem
    assert case.facts and all(fact.source for fact in case.facts)
    assert case.decision == ("operation" if case.surgery_indicated else case.decision)
    assert case.decision in ("operation", "non_operative", "shared")


def test_the_library_mixes_recommendations() -> None:
    decisions = [load_case(path).decision for path in FILES]
    assert decisions.count("operation") >= 2
    assert decisions.count("non_operative") >= 3
    assert decisions.count("shared") >= 1


def test_seed_cases_keep_their_meaning() -> None:
    assert load_case(CASES / "pneumothorax.yaml").decision == "operation"
    assert load_case(CASES / "lung_cancer.yaml").decision == "operation"


def test_a_decision_that_contradicts_the_indication_is_an_error(tmp_path: Path) -> None:
    text = (CASES / "pneumothorax.yaml").read_text(encoding="utf-8")
    (tmp_path / "pneumothorax.txt").write_text("story", encoding="utf-8")
    broken = tmp_path / "pneumothorax.yaml"
    broken.write_text(text + "\ndecision: shared\n", encoding="utf-8")
    with pytest.raises(CaseDataError, match="decision 'shared' contradicts surgery_indicated true"):
        load_case(broken)
