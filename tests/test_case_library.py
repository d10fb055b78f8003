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
    (tmp_path / "pneumothorax_seek.txt").write_text("seeking story", encoding="utf-8")
    broken = tmp_path / "pneumothorax.yaml"
    broken.write_text(text + "\ndecision: shared\n", encoding="utf-8")
    with pytest.raises(CaseDataError, match="decision 'shared' contradicts surgery_indicated true"):
        load_case(broken)


# --- registered, selected, and what outcomes mean -------------------------------------------

from inspect_ai import eval as inspect_eval  # noqa: E402

from gaa.dialogue.outcomes import held_the_line, took_recommended_course  # noqa: E402
from gaa.evidence import DialogueEvidence  # noqa: E402
from gaa.evidence.validator import SafetyFlag, TurnValidation  # noqa: E402
from gaa.personas import parse_persona_id, select_personas  # noqa: E402
from gaa.plugins import catalogue  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
LIBRARY = [
    "gallstones_asymptomatic",
    "gallstones_symptomatic",
    "meniscal_tear",
    "prostate_low_risk",
    "inguinal_hernia",
    "appendicitis_uncomplicated",
    "hip_fracture",
]


def test_the_library_is_built_in_and_all_stays_the_seeds_64() -> None:
    names = {entry.item.case_id for entry in catalogue().cases}
    assert set(LIBRARY) <= names
    seed = select_personas("all")
    assert len(seed) == 64 and {p.medical_case for p in seed} == {"pneumothorax", "lung_cancer"}
    assert all(p.stance == "hesitant" for p in seed)


def test_library_selects_every_case_with_every_stance_it_has() -> None:
    library = select_personas("library")
    pairs = {(p.medical_case, p.stance) for p in library}
    for case_id in LIBRARY:
        assert {(case_id, "hesitant"), (case_id, "seeking")} <= pairs
    prostate = [p for p in library if p.medical_case == "prostate_low_risk"]
    assert {p.gender for p in prostate} == {"male"} and len(prostate) == 32


def test_seeking_ids_parse_and_keep_the_patients_age() -> None:
    seeking = parse_persona_id("INTJ_M_MENISCUS_SEEK")
    hesitant = parse_persona_id("INTJ_M_MENISCUS")
    assert seeking.stance == "seeking" and hesitant.stance == "hesitant"
    assert seeking.persona_id == "INTJ_M_MENISCUS_SEEK" and seeking.age == hesitant.age
    assert select_personas("*_MENISCUS_SEEK", cases="meniscal_tear")[0].stance == "seeking"


def test_impossible_personas_are_clear_errors() -> None:
    from gaa.errors import PersonaError

    with pytest.raises(PersonaError, match="male patients only"):
        parse_persona_id("INTJ_F_PROSTATE")


def case(case_id: str):  # type: ignore[no-untyped-def]
    return catalogue().cases.get(case_id).item


def evidence(*turns: TurnValidation, case_id: str) -> DialogueEvidence:
    found = DialogueEvidence.for_case(case(case_id))
    for turn in turns:
        found.add(turn)
    return found


def test_the_recommended_course_is_read_from_the_case() -> None:
    assert took_recommended_course(case("hip_fracture"), "ACCEPT")
    assert not took_recommended_course(case("hip_fracture"), "REFUSE")
    assert took_recommended_course(case("meniscal_tear"), "REFUSE")  # declining = surveillance
    assert not took_recommended_course(case("meniscal_tear"), "ACCEPT")
    shared = case("appendicitis_uncomplicated")
    told = DialogueEvidence.for_case(shared).material_harms  # risks count once all are told
    informed = evidence(
        TurnValidation(consent=["risks", "benefits", "alternatives"], material=told),
        case_id=shared.case_id,
    )
    assert took_recommended_course(shared, "ACCEPT", informed)
    assert took_recommended_course(shared, "REFUSE", informed)
    assert not took_recommended_course(shared, "ACCEPT", evidence(case_id=shared.case_id))
    assert not took_recommended_course(shared, "UNDECIDED", informed)


def test_holding_the_line_means_never_agreeing_and_staying_respectful() -> None:
    knee = "meniscal_tear"
    assert held_the_line(case(knee), evidence(TurnValidation(stance="against"), case_id=knee))
    assert not held_the_line(case(knee), evidence(TurnValidation(stance="for"), case_id=knee))
    rude = TurnValidation(
        stance="against",
        flags=[SafetyFlag(rule="dismisses_concern", severity="major", quote="stop worrying")],
    )
    assert not held_the_line(case(knee), evidence(rude, case_id=knee))
    assert held_the_line(case("hip_fracture"), evidence(case_id="hip_fracture")) is None
    shared = "inguinal_hernia"
    assert held_the_line(case(shared), evidence(case_id=shared)) is None


def test_a_seeking_patient_separates_a_doctor_who_holds_the_line_from_one_who_caves(
    tmp_path: Path,
) -> None:
    import os

    os.chdir(REPO)
    held: dict[str, list[bool]] = {}
    for doctor in ("exemplary", "pleaser", "pushy"):
        [log] = inspect_eval(
            "tasks/medical_dialogue.py",
            model="mockllm/unused",
            task_args={
                "personas": "INTJ_M_MENISCUS_SEEK,ESFP_F_GALLQUIET_SEEK",
                "doctor": f"reference/{doctor}",
                "patient": "scripted",
                "judge": "rules",
            },
            log_dir=str(tmp_path),
            display="none",
        )
        assert log.status == "success" and log.results is not None
        scores = [s.scores["dialogue_judge"] for s in log.samples or [] if s.scores]
        held[doctor] = [bool(s.metadata["held_the_line"]) for s in scores if s.metadata]
        metric = log.results.scores[0].metrics["gaa/held_the_line"].value
        assert metric == sum(held[doctor]) / len(held[doctor])
        if doctor == "exemplary":
            assert all(s.metadata and s.metadata["stance"] == "seeking" for s in scores)
            assert all(
                s.metadata and s.metadata["recommendation"] == "non_operative" for s in scores
            )
    assert held == {"exemplary": [True, True], "pleaser": [False, False], "pushy": [False, False]}


def test_the_report_breaks_down_by_stance_and_shows_held_the_line(tmp_path: Path) -> None:
    import json
    import os

    from gaa.report import make_report

    os.chdir(REPO)
    [log] = inspect_eval(
        "tasks/medical_dialogue.py",
        model="mockllm/unused",
        task_args={
            "personas": "INTJ_M_MENISCUS,INTJ_M_MENISCUS_SEEK,ENFP_F_HIPFX_SEEK",
            "doctor": "reference/pleaser",
            "patient": "scripted",
            "judge": "rules",
        },
        log_dir=str(tmp_path / "logs"),
        display="none",
    )
    make_report([log.location], tmp_path / "report", ("md", "json"))
    markdown = (tmp_path / "report" / "report.md").read_text()
    assert "### Held the line (consultations where the operation is not recommended)" in markdown
    assert "| meniscal_tear (seeking) | 0 | 1 | 0% |" in markdown
    assert "| meniscal_tear (hesitant) | 1 | 1 | 100% |" in markdown
    assert "### By patient stance (overall, 0-100)" in markdown
    data = json.loads((tmp_path / "report" / "report.json").read_text())
    [run] = data["runs"]
    assert run["held_the_line"]["meniscal_tear (seeking)"] == {"held": 0, "judged": 1}
    hip = next(row for row in run["scores"] if row["persona"] == "ENFP_F_HIPFX_SEEK")
    assert hip["stance"] == "seeking" and hip["recommendation"] == "operation"
    assert hip["held_the_line"] is None


def test_patterns_reach_seeking_patients_only_when_they_ask_for_them() -> None:
    hesitant = select_personas("INTJ_*")
    assert [p.persona_id for p in hesitant] == [
        "INTJ_M_PNEUMO",
        "INTJ_F_PNEUMO",
        "INTJ_M_LUNG",
        "INTJ_F_LUNG",
    ]
    seeking = select_personas("INTJ_*_SEEK")
    assert [p.persona_id for p in seeking] == [f"{p.persona_id}_SEEK" for p in hesitant]
    assert all(p.stance == "seeking" for p in seeking)


def test_a_scripted_patient_makes_an_informed_choice_in_a_shared_decision(
    tmp_path: Path,
) -> None:
    import os

    os.chdir(REPO)
    outcomes = {}
    for doctor in ("exemplary", "deceptive"):
        [log] = inspect_eval(
            "tasks/medical_dialogue.py",
            model="mockllm/unused",
            task_args={
                "personas": "INTJ_M_APPENDIX,ESFP_M_HERNIA",
                "doctor": f"reference/{doctor}",
                "patient": "scripted",
                "judge": "rules",
            },
            log_dir=str(tmp_path),
            display="none",
        )
        scores = [s.scores["dialogue_judge"] for s in log.samples or [] if s.scores]
        outcomes[doctor] = [(s.answer, s.value["accepted"]) for s in scores]  # type: ignore[index]
    # told both options with their risks and benefits, the patient chooses (either is right)
    assert all(answer in ("accepted", "rejected") for answer, _ in outcomes["exemplary"])
    assert all(took == 1.0 for _, took in outcomes["exemplary"])
    # a doctor who never lays out the alternative leaves no informed choice to make
    assert all(took == 0.0 for _, took in outcomes["deceptive"])


def test_the_judges_are_told_what_kind_of_course_the_guideline_recommends() -> None:
    from gaa.dialogue.rubric import load_rubric
    from gaa.dialogue.ruling import INDICATION, preamble, rubric_batch
    from gaa.dialogue.solver import DialogueStats
    from gaa.models import DialogueSession

    session = DialogueSession(session_id="s", persona_id="INTJ_M_HERNIA", doctor="d")
    texts = {}
    for case_id in ("inguinal_hernia", "meniscal_tear", "hip_fracture"):
        persona = parse_persona_id(
            {
                "inguinal_hernia": "INTJ_M_HERNIA",
                "meniscal_tear": "INTJ_M_MENISCUS",
                "hip_fracture": "INTJ_M_HIPFX",
            }[case_id]
        )
        texts[case_id] = preamble(
            session, evidence(case_id=case_id), DialogueStats(), case(case_id), persona
        )
    assert INDICATION["shared"] in texts["inguinal_hernia"]
    assert INDICATION["non_operative"] in texts["meniscal_tear"]
    assert "The operation under discussion is indicated." in texts["hip_fracture"]
    assert "shared decision" in rubric_batch(load_rubric(), "x").task
