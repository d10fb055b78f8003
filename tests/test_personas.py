from __future__ import annotations

import pytest

from gaa.errors import PersonaError
from gaa.models import MBTI_TYPES
from gaa.personas import (
    gender_prompt,
    mbti_prompt,
    parse_persona_id,
    persona_age,
    select_personas,
    split_selection,
)
from gaa.plugins import catalogue


def test_all_is_exactly_the_64_personas() -> None:
    ids = [p.persona_id for p in select_personas("all")]
    assert len(ids) == len(set(ids)) == 64
    expected = {f"{m}_{g}_{c}" for m in MBTI_TYPES for g in "MF" for c in ("PNEUMO", "LUNG")}
    assert set(ids) == expected
    assert ids[:3] == ["INTJ_M_PNEUMO", "INTJ_F_PNEUMO", "INTP_M_PNEUMO"]


def test_default_selection_is_all() -> None:
    assert len(select_personas()) == 64
    assert len(select_personas(None)) == 64
    assert len(select_personas([])) == 64


def test_explicit_ids_keep_order_and_drop_duplicates() -> None:
    chosen = select_personas("ESFP_F_LUNG,INTJ_M_PNEUMO,esfp_f_lung")
    assert [p.persona_id for p in chosen] == ["ESFP_F_LUNG", "INTJ_M_PNEUMO"]
    persona = chosen[0]
    assert (persona.mbti_type, persona.gender, persona.medical_case) == (
        "ESFP",
        "female",
        "lung_cancer",
    )


def test_gender_free_id() -> None:
    persona = parse_persona_id("INTJ_PNEUMO")
    assert persona.persona_id == "INTJ_PNEUMO"
    assert persona.gender is None
    assert persona.medical_case == "pneumothorax"


@pytest.mark.parametrize(
    ("pattern", "count", "check"),
    [
        ("INTJ_*", 4, lambda i: i.startswith("INTJ_")),
        ("*_F_LUNG", 16, lambda i: i.endswith("_F_LUNG")),
        ("*_LUNG", 32, lambda i: i.endswith("_LUNG")),
        ("E???_M_*", 16, lambda i: i.startswith("E") and "_M_" in i),
        ("[IE]NTJ_F_PNEUMO", 2, lambda i: i in {"INTJ_F_PNEUMO", "ENTJ_F_PNEUMO"}),
    ],
)
def test_patterns(pattern: str, count: int, check: object) -> None:
    ids = [p.persona_id for p in select_personas(pattern)]
    assert len(ids) == count
    assert all(check(i) for i in ids)  # type: ignore[operator]


def test_list_selection_as_inspect_passes_it() -> None:
    ids = [p.persona_id for p in select_personas(["INTJ_*", "ESFP_F_LUNG"])]
    assert len(ids) == 5 and ids[-1] == "ESFP_F_LUNG"
    assert split_selection(["a,b", " c "]) == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        ("INTJ_X_PNEUMO", "valid genders: M (male), F (female)"),
        ("ABCD_M_PNEUMO", "not an MBTI type; valid types: INTJ, INTP"),
        ("INTJ_M_HEART", "valid case codes: PNEUMO (gaa/pneumothorax), LUNG (gaa/lung_cancer)"),
        ("INTJ", "expected MBTI_G_CASE (e.g. INTJ_M_PNEUMO)"),
        ("INTJ_M_PNEUMO_EXTRA", "expected MBTI_G_CASE"),
        ("INTJ__PNEUMO", "expected MBTI_G_CASE"),
        ("ZZZZ_*", "matches no persona of the selected cases (pneumothorax, lung_cancer)"),
        ("*_AAA", "Select other cases by name"),
    ],
)
def test_invalid_ids_are_errors_listing_valid_forms(bad: str, expected: str) -> None:
    with pytest.raises(PersonaError) as error:
        select_personas(bad)
    assert expected in str(error.value)


def test_an_invalid_id_among_valid_ones_is_not_dropped() -> None:
    with pytest.raises(PersonaError, match="INTJ_X_PNEUMO"):
        select_personas("INTJ_M_PNEUMO,INTJ_X_PNEUMO")


def test_unknown_case_name_suggests() -> None:
    with pytest.raises(PersonaError, match="Did you mean 'lung_cancer'"):
        select_personas("all", cases="lung_canser")


def test_cases_selection_changes_the_universe() -> None:
    lung_only = select_personas("all", cases="lung_cancer")
    assert len(lung_only) == 32
    assert {p.medical_case for p in lung_only} == {"lung_cancer"}


def test_age_is_stable_and_inside_the_case_range() -> None:
    case = catalogue().cases.get("lung_cancer").item
    ages = {p.age for p in select_personas("*_LUNG")}
    assert all(case.age_range[0] <= age <= case.age_range[1] for age in ages)
    assert len(ages) > 5  # spread over the range, not one default age
    assert persona_age("INTJ_M_LUNG", case) == parse_persona_id("INTJ_M_LUNG").age


def test_prompt_files_for_every_persona_part() -> None:
    for mbti in MBTI_TYPES:
        text = mbti_prompt(mbti)
        assert text.startswith(mbti), f"{mbti}.txt should open with its type"
        assert 150 <= len(text.split()) <= 300
    for gender in ("male", "female"):
        assert 100 <= len(gender_prompt(gender).split()) <= 350
    with pytest.raises(PersonaError, match="valid types"):
        mbti_prompt("ABCD")
