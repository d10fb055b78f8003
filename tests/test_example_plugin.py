"""The example plugin is installed by `make test` like any third-party package would be."""

from __future__ import annotations

from gaa import plugins
from gaa.personas import parse_persona_id, select_personas
from gaa.plugins import catalogue


def test_example_plugin_is_loaded_from_its_entry_point() -> None:
    catalogue = plugins.catalogue()
    info = next(info for info in catalogue.plugins if info.name == "example")
    assert info.distribution == "gaa-example-plugin"
    assert info.module == "gaa_example_plugin.plugin"
    assert not info.builtin


def test_example_case_is_one_where_surgery_is_not_indicated() -> None:
    entry = plugins.catalogue().cases.get("small_aaa")
    assert entry.full_name == "example/small_aaa"
    assert entry.distribution == "gaa-example-plugin"
    case = entry.item
    assert case.code == "AAA"
    assert case.surgery_indicated is False
    assert "surveillance" in case.recommendation.lower()
    assert len(case.facts) >= 12
    assert "Sources of the figures" in case.case_prompt


def test_example_case_personas_parse() -> None:
    persona = parse_persona_id("ESFP_F_AAA")
    assert (persona.mbti_type, persona.gender, persona.medical_case) == (
        "ESFP",
        "female",
        "small_aaa",
    )
    low, high = plugins.catalogue().cases.get("small_aaa").item.age_range
    assert low <= persona.age <= high
    selected = select_personas("*_M_AAA", cases="small_aaa")
    assert len(selected) == 16
    assert all(p.persona_id.endswith("_M_AAA") for p in selected)


def test_plugin_cases_do_not_change_the_default_64() -> None:
    ids = [p.persona_id for p in select_personas("all")]
    assert len(ids) == 64
    assert not any(i.endswith("_AAA") for i in ids)
    everything = select_personas("all", cases="all")
    cases = [entry.item for entry in catalogue().cases]
    assert len(everything) == sum(16 * len(case.genders) for case in cases)
    assert sum(p.persona_id.endswith("_AAA") for p in everything) == 32
