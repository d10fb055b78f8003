"""The GAA medical dialogue benchmark: a doctor agent talks a simulated patient through a
surgical decision; a teamwork panel judges empathy, persuasion, safety, accuracy and consent.

    inspect eval tasks/medical_dialogue.py --model <doctor model> \\
        --model-role patient=<model> --model-role judge=<model> \\
        [-T personas=all|INTJ_M_PNEUMO,...|INTJ_*]
        [-T doctor=model|reference/exemplary|a2a|<plugin>/<name>]
        [-T doctor_url=http://host:port] [-T doctor_connections=8] [-T doctor_timeout=300]
        [-T validator=rules|model]  (model: --model-role validator=<model>)
        [-T patient=model|scripted] [-T judge=panel|rules] [-T teamwork=all|base|C1..C8]
        [-T max_rounds=5] [-T reveal_persona=false] [-T safety_gate=true] [-T counterfactuals=false]
        [-T weights=20,25,30,15,10]  (empathy, persuasion, safety, accuracy, informed consent)
        [-T structured_output=auto|true|false] [-T compose_patient=true] [-T status_follow_up=true]

Offline, with no model at all:

    inspect eval tasks/medical_dialogue.py --model none \\
        -T doctor=reference/exemplary -T patient=scripted -T judge=rules
"""

from inspect_ai import Task, task

from gaa.dialogue.task import medical_dialogue as build_medical_dialogue


@task
def medical_dialogue(
    personas: str | list[str] = "all",
    cases: str | list[str] | None = None,
    doctor: str = "model",
    max_rounds: int = 5,
    reveal_persona: bool = False,
    patient: str = "model",
    judge: str = "panel",
    teamwork: str | list[str] = "all",
    safety_gate: bool = True,
    counterfactuals: bool = False,
    weights: str | list[str] = "20,25,30,15,10",
    doctor_retry_wait: float = 1.0,
    structured_output: bool | None = None,
    compose_patient: bool = True,
    status_follow_up: bool = True,
    doctor_url: str | None = None,
    doctor_connections: int = 8,
    doctor_timeout: float = 300.0,
    validator: str = "rules",
) -> Task:
    """The medical dialogue benchmark; see gaa.dialogue.task.medical_dialogue."""
    return build_medical_dialogue(
        personas,
        cases,
        doctor,
        max_rounds,
        reveal_persona,
        patient,
        judge,
        teamwork,
        safety_gate,
        counterfactuals,
        weights,
        doctor_retry_wait,
        structured_output,
        compose_patient,
        status_follow_up,
        doctor_url,
        doctor_connections,
        doctor_timeout,
        validator,
    )
