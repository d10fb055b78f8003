from __future__ import annotations

import pytest

from gaa.teamwork import TeamworkConfig, TeamworkConfigError

ALL = (
    "gaa/shared_mental_model",
    "gaa/leadership",
    "gaa/team_orientation",
    "gaa/trust_network",
    "gaa/mutual_monitoring",
)


@pytest.mark.parametrize(
    ("preset", "expected"),
    [
        ("base", ()),
        ("C1", ("gaa/shared_mental_model",)),
        ("C2", ("gaa/leadership",)),
        ("C3", ("gaa/leadership", "gaa/team_orientation")),
        ("C4", ("gaa/trust_network",)),
        ("C5", ("gaa/leadership", "gaa/trust_network", "gaa/mutual_monitoring")),
        ("C6", ("gaa/shared_mental_model", "gaa/leadership", "gaa/team_orientation")),
        ("C7", ("gaa/leadership", "gaa/trust_network", "gaa/mutual_monitoring")),
        ("C8", ALL),
        ("all", ALL),
        ("c3", ("gaa/leadership", "gaa/team_orientation")),
    ],
)
def test_presets_follow_the_spec(preset: str, expected: tuple[str, ...]) -> None:
    config = TeamworkConfig.parse(preset)
    assert config.components == expected
    assert config.n_agents is None and config.n_turns == 2 and not config.single


def test_free_combinations_aliases_and_plugin_components() -> None:
    assert TeamworkConfig.parse("trust,smm").components == (
        "gaa/shared_mental_model",
        "gaa/trust_network",
    )
    assert TeamworkConfig.parse(["mm", "l"]).short_names == ["leadership", "mutual_monitoring"]
    combined = TeamworkConfig.parse("C2,devils_advocate")
    assert combined.components == ("gaa/leadership", "example/devils_advocate")
    assert combined.label == "C2,devils_advocate"


def test_single_baseline() -> None:
    config = TeamworkConfig.parse("single")
    assert config.single and config.n_agents == 1 and config.components == ()
    with pytest.raises(TeamworkConfigError, match="combines with nothing"):
        TeamworkConfig.parse("single,smm")


def test_mutual_monitoring_without_leadership_is_an_error() -> None:
    with pytest.raises(TeamworkConfigError) as error:
        TeamworkConfig.parse("mm,trust")
    assert "'mutual_monitoring' requires leadership" in str(error.value)


def test_unknown_preset_or_component_lists_the_valid_ones() -> None:
    with pytest.raises(TeamworkConfigError) as error:
        TeamworkConfig.parse("C9")
    message = str(error.value)
    assert "Unknown teamwork preset or component 'C9'" in message
    assert "base, C1, C2" in message and "single" in message
    assert "gaa/trust_network" in message
    with pytest.raises(TeamworkConfigError, match="Did you mean 'leadership'"):
        TeamworkConfig.parse("leadershp")


@pytest.mark.parametrize(
    ("n_agents", "n_turns", "expected"),
    [
        (1, 2, "n_agents must be 'auto' or 2-4"),
        ("five", 2, "not 'five'"),
        (3, 0, "n_turns must be 1-5"),
    ],
)
def test_team_size_and_turns_are_checked(n_agents: object, n_turns: int, expected: str) -> None:
    with pytest.raises(TeamworkConfigError, match=expected):
        TeamworkConfig.parse("base", n_agents, n_turns)  # type: ignore[arg-type]


def test_fixed_size_and_turns() -> None:
    config = TeamworkConfig.parse("all", "4", 3)
    assert (config.n_agents, config.n_turns) == (4, 3)
