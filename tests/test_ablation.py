from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from inspect_ai.model import ChatMessage

from gaa._stats import mcnemar_exact
from gaa.ablation import format_table, run_ablation
from gaa.cli import main
from gaa.plugins import catalogue
from gaa.testing import ScriptedModel, TeamScript


def test_mcnemar_exact_against_hand_computed_values() -> None:
    assert mcnemar_exact(0, 0) == 1.0
    # b=0, c=5: 2 * (1/2)^5 = 0.0625
    assert mcnemar_exact(0, 5) == pytest.approx(0.0625)
    # b=1, c=6: 2 * (1 + 7) / 2^7 = 0.125
    assert mcnemar_exact(6, 1) == pytest.approx(0.125)
    assert mcnemar_exact(3, 3) == 1.0


def specialists_know_better() -> ScriptedModel:
    """Members with specialist roles (team orientation) answer right; generic experts say E."""
    answers = {s.input: str(s.target) for s in catalogue().question_sets.get("core").item()}
    team = TeamScript()

    def respond(messages: list[ChatMessage]) -> str:
        prompt = messages[-1].text
        right = next((a for q, a in answers.items() if q in prompt), "A")
        team.choose = lambda q, labels, role: right if role.startswith("Specialist") else "E"
        return team.respond(messages)

    return ScriptedModel(respond)


def test_ablation_compares_presets_with_base_on_the_same_questions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    rows = run_ablation(
        ["C3"],
        limit=6,
        log_dir=str(tmp_path / "logs"),
        model=specialists_know_better().model,
        n_agents=3,
        display="none",
    )
    assert [row.preset for row in rows] == ["base", "C3"]
    base, c3 = rows
    targets = [str(s.target) for s in catalogue().question_sets.get("core").item()[:6]]
    wrong_for_base = sum(t != "E" for t in targets)
    assert c3.accuracy == 1.0 and base.accuracy == pytest.approx(1 - wrong_for_base / 6)
    assert c3.vs_base == (0, wrong_for_base, pytest.approx(mcnemar_exact(0, wrong_for_base)))
    assert (base.calls, c3.calls) == (9.0, 13.0)
    table = format_table(rows)
    assert f"0/{wrong_for_base}, p=" in table and table.splitlines()[1].startswith("base")


def test_ablation_cli_rejects_bad_presets_before_running(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main, ["ablation", "--presets", "C2,mm", "--log-dir", str(tmp_path)]
    )
    assert result.exit_code == 1
    assert "requires leadership" in result.stderr
    assert not list(tmp_path.iterdir())
