"""The QA scorer: accuracy plus the teamwork metrics of the spec, all in ``Score.value``.

Per question: ``accuracy`` (1 or 0); ``convergence`` (share of voting members whose final first
choice is the team's answer); ``brier`` (mean over voting members of (confidence - correct)^2,
where correct is whether the member's own first choice is right; a missing confidence counts as
0.5); ``smm_facts``; ``trust_divergence`` (population std of final trust scores, 0 without the
trust network); ``mm_challenges``, ``mm_changes`` (first choices changed after a challenge) and
``mm_corrections`` (changes from a wrong to the right answer); ``leadership_interventions``
(tie-breaks and overrides); ``excluded`` (agent replies left out); ``calls``, ``tokens`` and
``latency`` (seconds).
"""

from __future__ import annotations

from statistics import pstdev

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from gaa.qa.solver import QUESTION_ID, STORE_KEY
from gaa.teamwork import DeliberationResult


def qa_metrics(result: DeliberationResult, target: str) -> dict[str, float]:
    outcome = result.outcomes[QUESTION_ID]
    brier = [
        ((confidence if confidence is not None else 0.5) - (choice == target)) ** 2
        for member, choice in outcome.first_choices.items()
        for confidence in [outcome.confidences.get(member)]
    ]
    challenges = [e for e in result.events if e.kind == "challenge"]
    changes = [pair for e in challenges for pair in e.detail.get("changed", {}).values()]
    trust = list((result.trust or {}).values())
    return {
        "accuracy": float(outcome.answer == target),
        "convergence": outcome.convergence,
        "brier": sum(brier) / len(brier) if brier else 0.0,
        "smm_facts": float(len(result.smm.verified_facts)) if result.smm else 0.0,
        "trust_divergence": pstdev(trust) if len(trust) > 1 else 0.0,
        "mm_challenges": float(len(challenges)),
        "mm_changes": float(len(changes)),
        "mm_corrections": float(
            sum(before != target and after == target for before, after in changes)
        ),
        "leadership_interventions": float(
            result.count("leader_tiebreak") + result.count("leader_override")
        ),
        "excluded": float(result.count("excluded") + result.count("call_error")),
        "calls": float(result.ledger.calls),
        "tokens": float(result.ledger.tokens),
    }


@scorer(metrics={"*": [mean(), stderr()]})
def teamwork_qa_scorer() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        data = state.store.get(STORE_KEY)
        if data is None:
            raise RuntimeError("no teamwork deliberation in the sample store: use teamwork_solver")
        result = DeliberationResult.model_validate(data)
        outcome = result.outcomes[QUESTION_ID]
        value = qa_metrics(result, target.text)
        value["latency"] = float(state.store.get("teamwork_seconds", 0.0))
        tie = f", tie broken by {outcome.tie_rule}" if outcome.tie_rule != "none" else ""
        return Score(
            value=value,
            answer=outcome.answer,
            explanation=(
                f"Team answer {outcome.answer} by {outcome.method}{tie}; target {target.text}; "
                f"first choices {outcome.first_choices}"
            ),
            metadata={"events": [e.kind for e in result.events], "calls": result.ledger.by_phase()},
        )

    return score
