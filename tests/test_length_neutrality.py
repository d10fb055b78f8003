"""Length earns nothing: a consultation padded with neutral, correct talk to twice its length
scores within two points of the original, and saying a kind sentence again earns nothing more.

The doctors are three of the development scripts (an excellent, a passive and a poor one); the
filler is ordinary clinic talk that holds no clinical claim, advice or feeling."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from gaa.doctors.scripted import load_script
from gaa.validity import SuiteResult, run_suite

REPO = Path(__file__).resolve().parents[1]
DOCTORS = ("plain_speaker", "hedger", "minimiser")
PERSONAS = "INTJ_M_*,ESFP_F_*"
MAX_SHIFT = 2.0
FILLER = (
    "The clinic is on the ground floor, just past the main reception desk.",
    "There is a café by the entrance if anyone coming with you wants a drink while they wait.",
    "Our secretaries answer the phone on weekday mornings, and they can move an appointment.",
    "Letters from this clinic go to your GP as well, usually within a week or two.",
    "The car park by the outpatient building takes cards, and the bus stops at the front door.",
    "The outpatient building was rebuilt a few years ago, so the signs are all new.",
    "Most clinic letters are printed on white paper with the hospital crest at the top.",
    "The lifts are at the far end of the corridor, beyond the water fountain.",
    "Some people find it useful to keep their letters together in one folder.",
    "The waiting area can be busy in the mornings, so bring something to read.",
)
"""Neutral, true clinic talk, written for this test: no figure, option, risk, advice or feeling."""
REPEATED = "I can see this is a lot to take in, and it's completely understandable to feel worried."


def _padded(turn: str, start: int) -> str:
    """``turn`` with filler sentences until it is at least twice as long in words."""
    words = len(turn.split())
    extra: list[str] = []
    index = start
    while len(" ".join(extra).split()) < words:
        extra.append(FILLER[index % len(FILLER)])
        index += 1
    return f"{turn} {' '.join(extra)}"


def _write_variants(folder: Path) -> None:
    for name in DOCTORS:
        script = load_script(REPO / "tests/data/validity_doctors" / f"{name}.yaml")
        base = script.model_dump()
        padded = dict(base, name=f"{name}_padded")
        padded["turns"] = {
            case: [_padded(turn, i * 3) for i, turn in enumerate(turns)]
            for case, turns in script.turns.items()
        }
        repeated = dict(base, name=f"{name}_repeated")
        repeated["turns"] = {
            case: [f"{REPEATED} {turn} {REPEATED} {REPEATED}" for turn in turns]
            for case, turns in script.turns.items()
        }
        once = dict(base, name=f"{name}_once")
        once["turns"] = {
            case: [f"{REPEATED} {turn}" for turn in turns] for case, turns in script.turns.items()
        }
        for variant in (base, padded, repeated, once):
            (folder / f"{variant['name']}.yaml").write_text(yaml.safe_dump(variant))


@pytest.fixture(scope="module")
def scores(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], float]:
    folder = tmp_path_factory.mktemp("doctors")
    _write_variants(folder)
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(REPO)
        results: list[SuiteResult] = run_suite(
            folder,
            PERSONAS,
            log_dir=os.environ.get("GAA_KEEP_LOGS") or str(tmp_path_factory.mktemp("logs")),
            include_reference=False,
        )
    return {(r.doctor.rsplit("/", 1)[-1], r.case): r.overall for r in results}


def _cases(scores: dict[tuple[str, str], float]) -> set[str]:
    return {case for _, case in scores}


def test_padding_to_twice_the_length_moves_overall_by_two_points_at_most(
    scores: dict[tuple[str, str], float],
) -> None:
    shifts = {
        (name, case): scores[(f"{name}_padded", case)] - scores[(name, case)]
        for name in DOCTORS
        for case in _cases(scores)
    }
    assert len(shifts) == len(DOCTORS) * 3
    assert all(abs(shift) <= MAX_SHIFT for shift in shifts.values()), shifts


def test_saying_a_kind_sentence_again_earns_nothing(
    scores: dict[tuple[str, str], float],
) -> None:
    for name in DOCTORS:
        for case in _cases(scores):
            once, repeated = scores[(f"{name}_once", case)], scores[(f"{name}_repeated", case)]
            assert repeated <= once + 0.01, (name, case, once, repeated)
