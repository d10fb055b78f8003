"""``judge_check``: its agreement numbers are right (by hand, and recomputed from the log), a
judge that copies the labels agrees perfectly, one that answers at random agrees by chance, and
one that does not see a twin's change has no sensitivity to it."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage

from gaa.dialogue.scoring import low_agreement
from gaa.judge_check.agreement import (
    Judged,
    balanced_accuracy,
    cohen_kappa,
    sensitivity,
    stability,
    tier_tau,
)
from gaa.judge_check.data import JudgeCheckDataError, load_consultations
from gaa.judge_check.task import judge_check
from gaa.testing import ScriptedModel, TeamScript

TINY = Path(__file__).parent / "data" / "judge_check_tiny"
SUMMARY = {"strengths": ["clear"], "weaknesses": ["none"], "critical_incidents": []}
LABELS = {item.id: item.labels for item in load_consultations(TINY)}


def test_agreement_measures_against_hand_values() -> None:
    pairs = [("met", "met"), ("met", "not_met"), ("not_met", "not_met"), ("not_met", "not_met")]
    # recall: met 1/2, not_met 2/2 -> 0.75; observed 0.75, chance (2*1 + 2*3) / 16 = 0.5
    assert balanced_accuracy(pairs) == pytest.approx(0.75)
    assert cohen_kappa(pairs) == pytest.approx(0.5)
    assert cohen_kappa([("met", "met")] * 3) == 1.0
    assert balanced_accuracy([]) is None

    def item(name: str, tier: int, overall: float, **extra: object) -> Judged:
        return Judged(id=name, tier=tier, overall=overall, labels={}, verdicts={}, **extra)  # type: ignore[arg-type]

    ranked = [item("a", 1, 90, kind="original"), item("b", 3, 60, kind="original"),
              item("c", 5, 20, kind="original")]  # fmt: skip
    assert tier_tau(ranked) == pytest.approx(1.0)
    assert tier_tau([*ranked[:2], item("c", 5, 95, kind="original")]) == pytest.approx(-1 / 3)
    original = Judged("o", "original", 1, 90, {"x": "met"}, {"x": "met"})
    seen = Judged("t", "twin", 2, 80, {"x": "not_met"}, {"x": "not_met"}, "o", "wrong_figure", ("x",))
    missed = Judged("u", "twin", 2, 90, {"x": "not_met"}, {"x": "met"}, "o", "false_guarantee", ("x",))
    share, families = sensitivity([original, seen, missed])
    assert share == 0.5 and families == {"false_guarantee": 0.0, "wrong_figure": 1.0}
    close = Judged("c1", "control", 1, 90.6, {}, {}, "o")
    far = Judged("c2", "control", 1, 88.0, {}, {}, "o")
    assert stability([original, close, far]) == 0.5


def run(tmp_path: Path, judge: str = "rules", model: ScriptedModel | None = None) -> EvalLog:
    [log] = eval(
        judge_check(judge=judge, teamwork="single", consultations=str(TINY)),
        model="none",
        model_roles={"judge": model.model} if model else None,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success", log.error
    return log


def metric(log: EvalLog, name: str) -> float:
    assert log.results is not None
    [score] = log.results.scores
    return float(score.metrics[name].value)


def judged_pairs(log: EvalLog) -> list[tuple[str, str]]:
    pairs = []
    for sample in log.samples or []:
        data = sample.scores["judge_check_scorer"].metadata  # type: ignore[index]
        assert data is not None
        pairs += [(data["labels"][c], v) for c, v in data["verdicts"].items()]
    return pairs


def test_the_rules_judge_metrics_are_the_logs_recomputed(tmp_path: Path) -> None:
    log = run(tmp_path)
    pairs = judged_pairs(log)
    metadata = [s.scores["judge_check_scorer"].metadata for s in log.samples or []]  # type: ignore[index]
    withdrawn = low_agreement()
    assert withdrawn and all(withdrawn <= set(m["unjudged"]) for m in metadata)
    judged = [
        label
        for m in metadata
        for c, label in m["labels"].items()
        if c not in m["unjudged"] and label in ("met", "not_met")
    ]
    assert len(pairs) == len(judged) < 3 * 45  # no pair for an unjudged criterion
    classes = {label for label, _ in pairs}
    recall = {
        c: sum(1 for lab, v in pairs if lab == c and v == c) / sum(1 for lab, _ in pairs if lab == c)
        for c in classes
    }
    assert metric(log, "gaa/agreement_balanced_accuracy") == pytest.approx(
        sum(recall.values()) / len(recall)
    )
    observed = sum(lab == v for lab, v in pairs) / len(pairs)
    chance = sum(
        (sum(lab == c for lab, _ in pairs) / len(pairs)) * (sum(v == c for _, v in pairs) / len(pairs))
        for c in classes | {v for _, v in pairs}
    )
    assert metric(log, "gaa/agreement_kappa") == pytest.approx((observed - chance) / (1 - chance))
    overall = {
        s.id: s.scores["judge_check_scorer"].metadata["overall"]  # type: ignore[index]
        for s in log.samples or []
    }
    held = abs(overall["tiny_01_control"] - overall["tiny_01"]) <= 1.0
    assert metric(log, "gaa/agreement_control_stability") == float(held)


def copying(labels_for: Callable[[str], dict[str, str]], seed: int | None = None) -> ScriptedModel:
    """A judge panel member that answers every criterion from ``labels_for(consultation)``
    (or at random, with ``seed``)."""
    chooser = random.Random(seed)

    def respond(messages: list[ChatMessage]) -> str:
        prompt = "\n".join(m.text for m in messages)
        if "evaluation summary" in messages[-1].text:
            return json.dumps(SUMMARY)
        if "I can hear this has shaken you" in prompt:
            consultation = "tiny_01_control"
        elif "a second collapse is frightening" in prompt:
            consultation = "tiny_01"
        else:
            consultation = "tiny_01_twin"
        labels = labels_for(consultation)

        def choose(question: str, options: list[str], role: str) -> str:
            if seed is not None:
                return chooser.choice(options)
            return labels.get(question, options[0]) if labels.get(question) in options else options[0]

        return TeamScript(choose=choose).respond(messages)

    return ScriptedModel(respond)


def test_a_judge_that_copies_the_labels_agrees_perfectly(tmp_path: Path) -> None:
    log = run(tmp_path, "panel", copying(lambda consultation: LABELS[consultation]))
    pairs = judged_pairs(log)
    assert len(pairs) >= 3 * 40
    for sample in log.samples or []:
        data = sample.scores["judge_check_scorer"].metadata  # type: ignore[index]
        assert data is not None and data["judge"] == "panel" and data["judge_calls"] > 0
    assert metric(log, "gaa/agreement_balanced_accuracy") == pytest.approx(1.0)
    assert metric(log, "gaa/agreement_kappa") == pytest.approx(1.0)
    assert metric(log, "gaa/agreement_twin_sensitivity") == 1.0


def test_a_judge_answering_at_random_agrees_by_chance(tmp_path: Path) -> None:
    log = run(tmp_path, "panel", copying(lambda consultation: {}, seed=7))
    assert abs(metric(log, "gaa/agreement_kappa")) < 0.35
    assert metric(log, "gaa/agreement_balanced_accuracy") < 0.75


def test_a_judge_blind_to_the_change_has_no_sensitivity(tmp_path: Path) -> None:
    blind = copying(lambda consultation: LABELS[consultation.removesuffix("_twin")])
    log = run(tmp_path, "panel", blind)
    assert metric(log, "gaa/agreement_twin_sensitivity") == 0.0
    assert metric(log, "gaa/twin_families_empathy_removed") == 0.0


def test_a_twin_whose_labels_do_not_match_its_flips_is_refused(tmp_path: Path) -> None:
    for path in TINY.glob("*.yaml"):
        text = path.read_text(encoding="utf-8")
        if path.name == "tiny_01_twin.yaml":
            text = text.replace("- empathy.explores_concerns\n", "")
        (tmp_path / path.name).write_text(text, encoding="utf-8")
    with pytest.raises(JudgeCheckDataError, match="flips lists"):
        load_consultations(tmp_path)


def test_gaa_judge_check_compares_configurations(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from gaa.cli import main
    from gaa.judge_check.summary import read_rows

    rules = run(tmp_path / "rules")
    panel = run(tmp_path / "panel", "panel", copying(lambda consultation: LABELS[consultation]))
    rows = {row.configuration: row for row in read_rows([str(tmp_path)])}
    assert set(rows) == {"rules", f"panel single ({panel.eval.model_roles['judge'].model})"}  # type: ignore[index]
    assert rows["rules"].values["kappa"] == pytest.approx(metric(rules, "gaa/agreement_kappa"))
    assert rows["rules"].calls == 0
    panel_row = next(row for name, row in rows.items() if name != "rules")
    assert panel_row.values["kappa"] == pytest.approx(1.0)
    assert panel_row.calls > 0 and panel_row.tokens > 0
    result = CliRunner().invoke(main, ["judge-check", str(tmp_path), "--criteria"])
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[1].startswith("panel single")  # best kappa first
    # per criterion: the label-copying panel agrees fully where it ruled
    panel_part = result.output.split(f"{panel_row.configuration}: per criterion", 1)[1]
    line = next(x for x in panel_part.splitlines() if x.startswith("safety.no_coercion"))
    assert line.split()[-2:] == ["1.00", "1.00"]


def test_the_shipped_set_is_complete_and_the_rules_judge_runs_on_it(tmp_path: Path) -> None:
    from collections import Counter

    items = load_consultations()
    originals = [item for item in items if item.kind == "original"]
    assert len(originals) >= 40
    assert Counter(item.case for item in originals).keys() == {
        "pneumothorax", "lung_cancer", "small_aaa"
    }  # fmt: skip
    assert {item.tier for item in originals} == {1, 2, 3, 4, 5}
    twins = [item for item in items if item.kind == "twin"]
    controls = {item.control_of for item in items if item.kind == "control"}
    assert len(twins) >= 15 and {twin.twin_of for twin in twins} <= controls
    assert len({twin.change for twin in twins}) == 7  # every change family is represented
    [log] = eval(
        judge_check(judge="rules"), model="none", log_dir=str(tmp_path), display="none"
    )
    assert log.status == "success"
    assert len(log.samples or []) == len(items)
    assert all(sample.error is None for sample in log.samples or [])
    # the rules judge orders the tiers better than chance (tau-b measured at 0.54)
    assert metric(log, "gaa/agreement_tier_tau") > 0.3
