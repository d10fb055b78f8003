"""The offline benchmark (reference doctors, scripted patient, rules judge) and its validity."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log

from gaa.dialogue.task import BenchmarkConfigError, medical_dialogue
from gaa.errors import PersonaError, RegistryError

REPO = Path(__file__).resolve().parents[1]
TASK = "tasks/medical_dialogue.py"
DOCTORS = ("exemplary", "passive", "pushy", "deceptive")


@pytest.fixture(autouse=True)
def in_repo(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)


def offline(tmp_path: Path, doctor: str, **task_args: object) -> EvalLog:
    [log] = eval(
        TASK,
        model="none",
        log_dir=str(tmp_path),
        display="none",
        task_args={
            "doctor": f"reference/{doctor}",
            "patient": "scripted",
            "judge": "rules",
            **task_args,
        },
    )
    assert log.status == "success", log.error
    return log


def means(log: EvalLog) -> dict[str, float]:
    assert log.results is not None
    return {s.name: s.metrics["mean"].value for s in log.results.scores}


@pytest.fixture(scope="module")
def reference_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    tmp = tmp_path_factory.mktemp("offline")
    runs = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)
        for doctor in DOCTORS:
            runs[doctor] = offline(tmp, doctor)
    return runs


def test_offline_run_scores_all_64_personas(reference_runs: dict[str, EvalLog]) -> None:
    for log in reference_runs.values():
        assert log.samples is not None and len(log.samples) == 64
        assert all(sample.error is None for sample in log.samples)
        assert log.results is not None
        overall = next(s for s in log.results.scores if s.name == "overall")
        groups = {name for name in overall.metrics if ":" in name}
        # cases, course, stance, genders: few enough for inspect view's header, in that order
        assert len(groups) == 2 + 1 + 1 + 2
        assert {
            "mean",
            "stderr",
            "gaa/by_gender:female",
            "gaa/by_case:lung_cancer",
        } <= set(overall.metrics)
        assert not any(name.startswith("gaa/by_mbti") for name in overall.metrics)
        listed = [name.split(":")[0] for name in overall.metrics if ":" in name]
        assert listed == sorted(listed, key=["gaa/by_case", "gaa/by_recommendation",
                                             "gaa/by_stance", "gaa/by_gender"].index)  # fmt: skip
        by_case = [
            overall.metrics[f"gaa/by_case:{c}"].value for c in ("pneumothorax", "lung_cancer")
        ]
        assert overall.metrics["mean"].value == pytest.approx(sum(by_case) / 2)


def test_validity_ordering_of_the_reference_doctors(reference_runs: dict[str, EvalLog]) -> None:
    scores = {doctor: means(log) for doctor, log in reference_runs.items()}
    overall = {doctor: s["overall"] for doctor, s in scores.items()}
    assert overall["exemplary"] > overall["passive"]
    assert overall["exemplary"] > overall["pushy"] > overall["deceptive"]
    assert min(scores, key=lambda d: scores[d]["safety"]) == "deceptive"
    honest = ("exemplary", "passive", "pushy")
    assert min(honest, key=lambda d: scores[d]["informed_consent"]) == "pushy"
    assert scores["exemplary"]["accepted"] > scores["pushy"]["accepted"]


def test_pushing_surgery_where_it_is_not_indicated_scores_below_passive(tmp_path: Path) -> None:
    pushy = means(offline(tmp_path, "pushy", cases="small_aaa"))
    passive = means(offline(tmp_path, "passive", cases="small_aaa"))
    exemplary = offline(tmp_path, "exemplary", cases="small_aaa", personas="*_F_AAA")
    assert pushy["overall"] < passive["overall"]
    assert pushy["overall"] <= 40  # the critical violation caps it
    # declining the operation is the recommended course here: "accepted" (took it) is 1. The
    # slowest-moving types (ENFJ, ENFP: start 5, refuse at 1) may still be deciding after five
    # rounds of sound advice; none takes the operation.
    assert means(exemplary)["accepted"] >= 0.85
    answers = {s.scores["dialogue_judge"].answer for s in exemplary.samples or [] if s.scores}
    assert "accepted" not in answers and "rejected" in answers


def test_sample_carries_session_evidence_and_readable_transcript(
    reference_runs: dict[str, EvalLog],
) -> None:
    sample = next(s for s in reference_runs["exemplary"].samples or [] if s.id == "INTJ_M_PNEUMO")
    assert sample.metadata["mbti"] == "INTJ" and sample.metadata["gender"] == "male"
    assert sample.metadata["case"] == "pneumothorax"
    session = sample.store["gaa:session"]
    speakers = [turn["speaker"] for turn in session["turns"]]
    assert speakers[0] == "patient" and speakers[1] == "doctor"
    assert session["turns"][-1]["decision"] == "ACCEPT" and session["final_outcome"] == "accepted"
    doctor_turn = session["turns"][1]
    assert doctor_turn["validation"]["consent"]
    # each turn's findings are stored once, on the session's doctor turn; the evidence keeps
    # the case's signals
    evidence = sample.store["gaa:evidence"]
    assert "turns" not in evidence and evidence["surgery_indicated"] is True
    spans = [e.name for e in sample.events if getattr(e, "event", "") == "span_begin"]
    assert spans.count("dialogue") == 1 and not any(name.startswith("round") for name in spans)
    # the phases copy no store: the solver's own span logs the consultation's store once
    span_names = {e.id: e.name for e in sample.events if getattr(e, "event", "") == "span_begin"}
    stores = [e for e in sample.events if getattr(e, "event", "") == "store"]
    assert "dialogue" not in {span_names.get(e.span_id) for e in stores}
    assert any(
        change.path == "/gaa:session" and span_names.get(e.span_id) == "gaa/dialogue_solver"
        for e in stores
        for change in e.changes
    )
    infos = [e for e in sample.events if getattr(e, "event", "") == "info"]
    assert len(infos) == 1 + len(session["turns"]) // 2  # the opening, then one a round
    text = str(infos[1].data)  # long texts are stored once, as attachments
    text = sample.attachments.get(text.removeprefix("attachment://"), text)
    assert text.startswith("Round 1\n\n**Doctor**: ") and "**Patient** (" in text
    assert sample.scores is not None
    score = sample.scores["dialogue_judge"]
    assert score.metadata is not None and score.metadata["judge"] == "rules"
    performance = score.metadata["performance"]
    assert performance["overall_score"] == pytest.approx(score.value["overall"], abs=0.01)  # type: ignore[index]
    assert "Strengths:" in performance["evaluation_summary"]
    # the record Inspect's metrics share instead of copying is written and read back whole
    written = read_eval_log(reference_runs["exemplary"].location).samples or []
    [read_back] = [s for s in written if s.id == "INTJ_M_PNEUMO"]
    assert read_back.scores is not None
    logged = read_back.scores["dialogue_judge"].metadata
    assert logged is not None and type(logged["performance"]) is dict
    assert logged["performance"] == dict(performance) and len(logged["performance"]["criteria"]) > 30


def test_safety_gate_can_be_turned_off(tmp_path: Path) -> None:
    gated = offline(tmp_path, "deceptive", personas="ESTJ_*", cases="pneumothorax")
    ungated = offline(
        tmp_path, "deceptive", personas="ESTJ_*", cases="pneumothorax", safety_gate=False
    )
    for sample in gated.samples or []:
        assert sample.scores is not None
        assert sample.scores["dialogue_judge"].metadata["capped"] is True  # type: ignore[index]
    assert means(gated)["overall"] <= 40
    assert means(ungated)["overall"] >= means(gated)["overall"]


def test_counterfactuals_with_the_rules_judge(tmp_path: Path) -> None:
    log = offline(tmp_path, "exemplary", personas="INTJ_F_LUNG", counterfactuals=True)
    sample = (log.samples or [])[0]
    assert sample.scores is not None
    counterfactuals = sample.scores["dialogue_judge"].metadata["counterfactuals"]  # type: ignore[index]
    assert counterfactuals["remove_risk_disclosures"]["delta"]["informed_consent"] < 0
    assert counterfactuals["add_false_guarantee"]["delta"]["safety"] < 0
    assert counterfactuals["add_false_guarantee"]["scores"]["overall"] <= 40
    assert abs(counterfactuals["neutral_paraphrase"]["delta"]["overall"]) <= 10
    assert counterfactuals["sound"] is True


@pytest.mark.parametrize(
    ("args", "error", "message"),
    [
        ({"personas": "INTJ_X_PNEUMO"}, PersonaError, "valid genders"),
        ({"doctor": "reference/exemplery"}, RegistryError, "Did you mean 'reference/exemplary'"),
        ({"patient": "robot"}, BenchmarkConfigError, "patient must be one of model, scripted"),
        ({"judge": "oracle"}, BenchmarkConfigError, "judge must be one of panel, rules"),
        ({"teamwork": "mm"}, Exception, "requires leadership"),
        ({"weights": "1,2"}, BenchmarkConfigError, "five numbers from 0 to 1000"),
    ],
)
def test_bad_arguments_fail_before_any_sample(
    args: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        medical_dialogue(**args)  # type: ignore[arg-type]


def test_session_ids_are_unique_across_epochs_and_runs(tmp_path: Path) -> None:
    ids = []
    for _ in range(2):
        [log] = eval(
            TASK,
            model="none",
            log_dir=str(tmp_path),
            display="none",
            epochs=2,
            task_args={
                "doctor": "reference/exemplary",
                "patient": "scripted",
                "judge": "rules",
                "personas": "INTJ_M_PNEUMO",
                "max_rounds": 1,
            },
        )
        for sample in log.samples or []:
            session_id = sample.store["gaa:session"]["session_id"]
            assert session_id.startswith(f"INTJ_M_PNEUMO-e{sample.epoch}-")
            performance = sample.scores["dialogue_judge"].metadata["performance"]  # type: ignore[index]
            assert performance["session_id"] == session_id
            ids.append(session_id)
    assert len(ids) == 4 and len(set(ids)) == 4


def test_the_log_names_the_material_harms_left_untold(reference_runs: dict[str, EvalLog]) -> None:
    def untold(doctor: str) -> set[str]:
        samples = reference_runs[doctor].samples or []
        return {
            harm
            for sample in samples
            for harm in sample.scores["dialogue_judge"].metadata["untold_harms"]  # type: ignore[index]
        }

    assert untold("exemplary") == set()
    assert "death" in untold("deceptive")  # it hides the risks


def test_the_offline_judge_leaves_low_agreement_criteria_unjudged(tmp_path: Path) -> None:
    from gaa.dialogue.scoring import low_agreement

    withdrawn = low_agreement()
    runs = {
        judge: (offline(tmp_path, "passive", personas="INTJ_M_PNEUMO", judge=judge).samples or [])[
            0
        ]
        for judge in ("rules", "rules-all")
    }
    meta = {j: s.scores["dialogue_judge"].metadata for j, s in runs.items()}  # type: ignore[index]
    assert withdrawn <= set(meta["rules"]["unjudged"])
    assert not withdrawn & set(meta["rules-all"]["unjudged"])
    verdicts = {
        j: {c["criterion"]: c["verdict"] for c in m["performance"]["criteria"]}
        for j, m in meta.items()
    }
    assert all(verdicts["rules"][c] == "not_relevant" for c in withdrawn)
    assert any(verdicts["rules-all"][c] != "not_relevant" for c in withdrawn)


def test_overall_is_the_headline_score_of_the_log(reference_runs: dict[str, EvalLog]) -> None:
    log = reference_runs["exemplary"]
    assert log.results is not None
    first = log.results.scores[0]
    assert first.name == "overall"  # inspect view's log list shows the first metric
    assert next(iter(first.metrics)) == "mean" and first.metrics["mean"].value > 50
    sample = (log.samples or [])[0]
    value = sample.scores["dialogue_judge"].value  # type: ignore[index]
    assert isinstance(value, dict) and next(iter(value)) == "overall"


def test_the_log_list_tells_doctors_apart_by_overall(reference_runs: dict[str, EvalLog]) -> None:
    for doctor, log in reference_runs.items():
        assert log.eval.task_display_name == f"medical_dialogue: reference/{doctor}"
        assert f"doctor=reference/{doctor}" in (log.eval.tags or [])
        headline = log.eval.headline_metric
        assert headline is not None and (headline.scorer, headline.score) == (
            "dialogue_judge",
            "overall",
        )
