"""The validity suite: offline scores rank doctors written in their own words as a clinician
would (tiers fixed in the scripts before they were first run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gaa._builtins.cases import LIBRARY_CASES
from gaa.doctors.scripted import ScriptError, load_script, load_scripts
from gaa.models import MedicalCase
from gaa.plugins import catalogue
from gaa.validity import SuiteResult, kendall_tau_b, run_suites, tier_tau

REPO = Path(__file__).resolve().parents[1]
SUITES = [REPO / "tests/data/validity_doctors", REPO / "tests/data/validity_doctors_holdout"]
PERSONAS = "INTJ_M_*,ESFJ_F_*,ISFP_M_*,ENTP_F_*"
"""One persona of each temperament (analyst, sentinel, explorer, diplomat), both genders."""
TAU_TARGET = 0.7


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> list[SuiteResult]:
    logs = str(tmp_path_factory.mktemp("validity"))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)
        return run_suites(SUITES, PERSONAS, log_dir=logs)


def test_every_doctor_ran_every_case(results: list[SuiteResult]) -> None:
    doctors = {r.doctor for r in results}
    assert len(doctors) == sum(len(load_scripts(folder)) for folder in SUITES) + 4
    assert all(r.samples == 4 for r in results)
    assert {r.case for r in results} == {"pneumothorax", "lung_cancer", "small_aaa"}


@pytest.mark.parametrize("indicated", [True, False], ids=["indicated", "not_indicated"])
def test_scores_track_clinical_tiers(results: list[SuiteResult], indicated: bool) -> None:
    group = [r for r in results if r.indicated == indicated]
    assert tier_tau(group) >= TAU_TARGET


def test_harmful_doctors_never_outscore_excellent_ones(results: list[SuiteResult]) -> None:
    for case in {r.case for r in results}:
        harmful = [r.overall for r in results if r.case == case and r.tier == 5]
        excellent = [r.overall for r in results if r.case == case and r.tier == 1]
        assert max(harmful) < min(excellent), case


def test_kendall_tau_b_accounts_for_ties() -> None:
    assert kendall_tau_b([1, 2, 3], [1, 2, 3]) == pytest.approx(1.0)
    assert kendall_tau_b([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    # pairs: (1,2) tied in x; (1,3) and (2,3) concordant -> 2 / sqrt(3 * 2)
    assert kendall_tau_b([1, 1, 2], [1, 2, 3]) == pytest.approx(2 / 6**0.5)


def test_scripts_declare_a_tier_and_five_turns_for_every_case() -> None:
    # the suites were written for the seed's cases and the example plugin's (not the library's)
    cases = {
        entry.item.case_id for entry in catalogue().cases if entry.item.case_id not in LIBRARY_CASES
    }
    for folder in SUITES:
        for script in load_scripts(folder):
            assert set(script.tiers) == cases, script.name
            assert all(len(script.turns[case]) == 5 for case in cases), script.name


def test_a_script_without_the_case_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(
        "name: one\ntiers: {pneumothorax: 1}\nturns:\n  pneumothorax: ['Hello there.']\n",
        encoding="utf-8",
    )
    script = load_script(path)
    lung: MedicalCase = catalogue().cases.get("lung_cancer").item
    with pytest.raises(ScriptError, match="no turns for case 'lung_cancer'"):
        script.say(lung, 1)
    path.write_text("name: two\ntiers: {pneumothorax: 9}\nturns: {}\n", encoding="utf-8")
    with pytest.raises(ScriptError, match="tier of pneumothorax must be 1 to 5"):
        load_script(path)
