"""The ``gaa`` command line. Thin: every command calls the library and prints.

Errors GAA raises on purpose (:class:`gaa.errors.GAAError`) become one line on stderr and a
non-zero exit status, never a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from functools import wraps
from typing import Any, ParamSpec, TypeVar

import click

from gaa import plugins
from gaa._args import MAX_ROUNDS_LIMIT
from gaa.errors import GAAError
from gaa.personas import select_personas
from gaa.registry import Registered, Registry

P = ParamSpec("P")
R = TypeVar("R")


def _clear_errors(command: Callable[P, R]) -> Callable[P, R]:
    @wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except GAAError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(1)

    return wrapper


@click.group()
@click.version_option(package_name="gaa")
def main() -> None:
    """GAA: a benchmark of doctor agents in surgical-decision dialogues."""


def _source(entry: Registered[Any], sources: dict[str, str]) -> str:
    return sources.get(entry.plugin, entry.distribution or "")


def _print_registry(
    title: str,
    registry: Registry[Any],
    sources: dict[str, str],
    detail: Callable[[Registered[Any]], str] = lambda entry: entry.description,
) -> None:
    click.echo(f"\n{title}")
    entries = list(registry)
    if not entries:
        click.echo("  (none registered)")
        return
    width = max(len(entry.full_name) for entry in entries)
    for entry in entries:
        line = f"  {entry.full_name:<{width}}  {detail(entry)}".rstrip()
        click.echo(f"{line}  [plugin {entry.plugin}: {_source(entry, sources)}]")


def _case_detail(entry: Registered[Any]) -> str:
    case = entry.item
    indicated = "surgery indicated" if case.surgery_indicated else "surgery NOT indicated"
    return f"{case.code:<7} {indicated:<21} {case.title}"


@main.command(name="plugins")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
@_clear_errors
def plugins_command(as_json: bool) -> None:
    """List loaded plugins and every doctor, case, teamwork component and question set."""
    catalogue = plugins.catalogue()
    sources: dict[str, str] = {}
    for info in catalogue.plugins:
        sources.setdefault(info.name, info.source)
    kinds: dict[str, Registry[Any]] = {
        "doctors": catalogue.doctors,
        "cases": catalogue.cases,
        "teamwork_components": catalogue.teamwork_components,
        "question_sets": catalogue.question_sets,
    }
    if as_json:
        data: dict[str, Any] = {
            "plugins": [
                {
                    "name": i.name,
                    "module": i.module,
                    "distribution": i.distribution,
                    "version": i.version,
                    "builtin": i.builtin,
                }
                for i in catalogue.plugins
            ],
        }
        for kind, registry in kinds.items():
            data[kind] = [
                {
                    "name": e.full_name,
                    "plugin": e.plugin,
                    "distribution": e.distribution,
                    "description": e.description,
                }
                for e in registry
            ]
        click.echo(json.dumps(data, indent=2))
        return

    click.echo("Plugins")
    width = max((len(info.name) for info in catalogue.plugins), default=0)
    for info in catalogue.plugins:
        click.echo(f"  {info.name:<{width}}  {info.source:<28} {info.module}")
    _print_registry("Doctors", catalogue.doctors, sources)
    _print_registry("Cases", catalogue.cases, sources, _case_detail)
    _print_registry("Teamwork components", catalogue.teamwork_components, sources)
    _print_registry("Question sets", catalogue.question_sets, sources)


@main.command(name="personas")
@click.argument("patterns", nargs=-1)
@click.option(
    "--cases",
    default=None,
    help="Cases to range over (comma-separated names, or 'all'); default: the built-in two.",
)
@_clear_errors
def personas_command(patterns: Sequence[str], cases: str | None) -> None:
    """Print the persona ids PATTERNS select (default: all), one a line.

    PATTERNS are ids (INTJ_M_PNEUMO, INTJ_PNEUMO), 'all', or globs (INTJ_*, *_F_LUNG).
    """
    for persona in select_personas(list(patterns) or "all", cases=cases):
        click.echo(persona.persona_id)


@main.group(name="teamwork")
def teamwork_group() -> None:
    """The teamwork engine: presets and their cost."""


@teamwork_group.command(name="calls")
@click.option(
    "--agents",
    "n_agents",
    type=click.IntRange(2, 4),
    default=3,
    show_default=True,
    help="Team size N.",
)
@click.option(
    "--turns",
    "n_turns",
    type=click.IntRange(1, 5),
    default=2,
    show_default=True,
    help="Discussion turns T.",
)
@click.option(
    "--fixed",
    is_flag=True,
    help="N is fixed (n_agents=N) instead of chosen by the recruiter (n_agents=auto).",
)
@_clear_errors
def teamwork_calls_command(n_agents: int, n_turns: int, fixed: bool) -> None:
    """Model calls per phase for every preset, derived from the components' phase methods.

    Counts assume every reply is readable; each repair request adds one call.
    """
    from gaa.teamwork import call_table

    rows = call_table(n_agents, n_turns, recruit=not fixed)
    size = f"N={n_agents} {'fixed' if fixed else 'chosen by the recruiter'}"
    click.echo(f"Model calls per question ({size}, T={n_turns} discussion turns)")
    width = max(len(components) for _, components, _ in rows)
    click.echo(f"{'preset':<7} {'components':<{width}}  {'R1':>3} {'R2':>3} {'R3':>3} {'total':>5}")
    for preset, components, calls in rows:
        click.echo(
            f"{preset:<7} {components:<{width}}  {calls['R1']:>3} {calls['R2']:>3} "
            f"{calls['R3']:>3} {calls['total']:>5}"
        )


def _model_roles(values: Sequence[str]) -> dict[str, Any]:
    roles: dict[str, Any] = {}
    for value in values:
        role, _, models = value.partition("=")
        names = [name.strip() for name in models.split(",") if name.strip()]
        if not role or not names:
            raise GAAError(f"--model-role takes ROLE=MODEL[,MODEL...], not {value!r}")
        roles[role.strip()] = names if len(names) > 1 else names[0]
    return roles


@main.command(name="ablation")
@click.option(
    "--presets",
    default=",".join(["single", "C1", "C2", "C3", "C4", "C5", "C6", "C7", "all"]),
    show_default=True,
    help="Comma-separated presets; base is always run for the comparison.",
)
@click.option("--limit", type=int, default=None, help="Questions per preset (default: all).")
@click.option("--model", default=None, help="Model for every agent (default: $INSPECT_EVAL_MODEL).")
@click.option(
    "--model-role",
    "model_roles",
    multiple=True,
    help="ROLE=MODEL[,MODEL...], e.g. teamwork=openai/gpt-4o,anthropic/claude-3-5-haiku.",
)
@click.option("--question-set", default="core", show_default=True)
@click.option(
    "--dataset", default=None, help="A MedQA-format JSONL file instead of a question set."
)
@click.option("--agents", "n_agents", default="auto", show_default=True, help="auto or 2-4.")
@click.option("--turns", "n_turns", type=int, default=2, show_default=True)
@click.option("--log-dir", default="logs/ablation", show_default=True)
@_clear_errors
def ablation_command(
    presets: str,
    limit: int | None,
    model: str | None,
    model_roles: Sequence[str],
    question_set: str,
    dataset: str | None,
    n_agents: str,
    n_turns: int,
    log_dir: str,
) -> None:
    """Run medical_qa for each teamwork preset as one eval set and print the comparison."""
    from gaa.ablation import format_table, run_ablation

    rows = run_ablation(
        [p.strip() for p in presets.split(",") if p.strip()],
        limit=limit,
        log_dir=log_dir,
        model=model,
        model_roles=_model_roles(model_roles),
        question_set=question_set,
        dataset=dataset,
        n_agents=n_agents,
        n_turns=n_turns,
    )
    click.echo(format_table(rows))
    click.echo(f"\nLogs: {log_dir} (browse with: inspect view --log-dir {log_dir})")


@main.command(name="demo")
@click.option(
    "--model",
    default=None,
    help="Run on this model (it plays the doctor 'model', the patient and the judge panel), "
    "e.g. gaa-local/qwen2.5-0.5b. Default: offline, with no model.",
)
@click.option(
    "--doctors",
    default=None,
    help="Comma-separated doctors to compare [offline: reference/exemplary,reference/pushy; "
    "with --model: model,reference/exemplary].",
)
@click.option(
    "--personas", default=None, help="[offline: all; with --model: INTJ_M_PNEUMO,ESFJ_F_LUNG]"
)
@click.option("--cases", default=None, help="Cases to range over (default: the built-in two).")
@click.option(
    "--max-rounds",
    type=click.IntRange(1, MAX_ROUNDS_LIMIT),
    default=None,
    help="[offline: 5; with --model: 2]",
)
@click.option("--teamwork", default=None, help="Judge panel preset with --model [single].")
@click.option("--log-dir", default="logs", show_default=True)
@click.option(
    "--report",
    "report_dir",
    default="report",
    show_default=True,
    help="Write the report of the runs here (gaa report); empty for none.",
)
@click.option(
    "--display",
    default=None,
    help="Inspect's progress display [offline: none; with --model: plain].",
)
@_clear_errors
def demo_command(
    model: str | None,
    doctors: str | None,
    personas: str | None,
    cases: str | None,
    max_rounds: int | None,
    teamwork: str | None,
    log_dir: str,
    report_dir: str,
    display: str | None,
) -> None:
    """Compare doctors on a small benchmark run: offline, or on a real model with --model."""
    from time import perf_counter

    from gaa.demo import check_embedded_model, plan_demo, run_demo
    from gaa.runs import check_completed
    from gaa.summary import format_summaries, format_usage, summarise

    names = [name.strip() for name in doctors.split(",") if name.strip()] if doctors else None
    plan = plan_demo(model, names, personas, cases, max_rounds, teamwork)
    check_embedded_model(plan, announce=click.echo)
    click.echo(plan.describe())
    started = perf_counter()
    logs = run_demo(plan, log_dir, display or ("none" if plan.offline else "plain"))
    seconds = perf_counter() - started
    summaries = [summarise(log) for log in logs]
    click.echo("\n" + format_summaries(summaries))
    if not plan.offline:
        click.echo("\n" + format_usage(logs))
    click.echo(f"\nWall time: {seconds:.0f} s")
    click.echo("\nLogs:")
    for log in logs:
        click.echo(f"  {log.location}")
    click.echo(f"\nBrowse them with: {_inspect_command()} view --log-dir {log_dir}")
    finished = [log for log in logs if log.status == "success"]
    if report_dir and finished:
        from gaa.report import make_report

        make_report([log.location for log in finished], report_dir)
        click.echo(f"Report: {report_dir}/index.html (also report.md and report.json there)")
    check_completed(logs)


@main.group(name="serve")
def serve_group() -> None:
    """Serve GAA over A2A: a doctor (purple agent) or the benchmark itself (green agent)."""


_HOST = click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to bind; beyond loopback only with --token (docs/security.md).",
)
_CARD_URL = click.option(
    "--card-url",
    default=None,
    help="The URL the agent card advertises (default: http://HOST:PORT/), e.g. behind a proxy.",
)


def _server_options(command: Callable[P, R]) -> Callable[P, R]:
    """The options both servers share: tokens and limits (defaults in docs/security.md)."""
    from gaa.a2a import limits as s

    options = [
        click.option(
            "--token",
            "tokens",
            multiple=True,
            help=f"Bearer token callers must send (repeat: one per caller; each sees only its "
            f"own tasks). Default: ${s.TOKEN_ENV} (comma-separated). Required beyond loopback.",
        ),
        click.option(
            "--max-tasks",
            type=click.IntRange(1, 1_000_000),
            default=s.MAX_TASKS_KEPT,
            show_default=True,
            help="Finished tasks kept for GetTask; the oldest go first.",
        ),
        click.option(
            "--max-task-bytes",
            type=click.IntRange(1_000, 10**12),
            default=s.MAX_TASK_BYTES,
            show_default=True,
            help="Bytes of stored tasks kept at most.",
        ),
        click.option(
            "--keep-alive-timeout",
            type=click.IntRange(1, 3600),
            default=s.DEFAULT_KEEP_ALIVE_TIMEOUT,
            show_default=True,
            help="Seconds an idle keep-alive connection stays open.",
        ),
        click.option(
            "--request-timeout",
            type=click.FloatRange(0.1, 3600),
            default=s.DEFAULT_REQUEST_TIMEOUT,
            show_default=True,
            help="Seconds a connection has to send a whole request; then it is closed.",
        ),
        click.option(
            "--max-connections",
            type=click.IntRange(1, 100_000),
            default=s.DEFAULT_MAX_CONNECTIONS,
            show_default=True,
            help="Connections and requests served at once; more get 503.",
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _limits(options: dict[str, Any], max_request_bytes: int | None = None) -> Any:
    from gaa.a2a._server import ServerLimits
    from gaa.a2a.limits import DEFAULT_MAX_REQUEST_BYTES

    return ServerLimits(
        max_request_bytes=max_request_bytes or DEFAULT_MAX_REQUEST_BYTES,
        max_tasks=options["max_tasks"],
        max_task_bytes=options["max_task_bytes"],
        keep_alive_timeout=options["keep_alive_timeout"],
        request_timeout=options["request_timeout"],
        max_connections=options["max_connections"],
    )


def _exposure(host: str, tokens: Sequence[str], command: str) -> list[str]:
    """The server's tokens (flags, else the environment), refusing to go beyond loopback
    without one."""
    from gaa.a2a._server import check_exposure, server_tokens

    found = server_tokens(tokens)
    check_exposure(host, found, command)
    return found


@serve_group.command(name="doctor")
@click.option("--doctor", required=True, help="A registered doctor (see gaa plugins).")
@click.option(
    "--model",
    default=None,
    help="Model for doctors that take one (model, litellm), e.g. --doctor litellm "
    "--model openai/gpt-4o-mini.",
)
@_HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True)
@_CARD_URL
@click.option(
    "--max-concurrent",
    type=click.IntRange(1, 1024),
    default=16,
    show_default=True,
    help="Doctor turns computed at once; more requests wait.",
)
@_server_options
@_clear_errors
def serve_doctor_command(
    doctor: str,
    model: str | None,
    host: str,
    port: int,
    card_url: str | None,
    max_concurrent: int,
    tokens: Sequence[str],
    **limit_options: Any,
) -> None:
    """Serve the doctor DOCTOR as an A2A agent until interrupted."""
    from gaa.a2a._server import card_url as advertised
    from gaa.a2a._server import run
    from gaa.a2a.doctor_server import doctor_app

    found = _exposure(host, tokens, "gaa serve doctor")
    limits = _limits(limit_options)
    url = advertised(host, port, card_url)
    app = doctor_app(doctor, url, model, max_concurrent, tokens=found, limits=limits)
    callers = f"{len(found)} token(s)" if found else "no token, loopback only"
    click.echo(f"Serving doctor {doctor} over A2A at {url} ({callers})")
    click.echo(f"Agent card: {url}.well-known/agent-card.json  (Ctrl-C stops)")
    run(app, host, port, limits)


@serve_group.command(name="green")
@_HOST
@click.option("--port", type=click.IntRange(1, 65535), required=True)
@_CARD_URL
@click.option("--log-dir", default="logs/green", show_default=True, help="Where eval logs go.")
@click.option(
    "--model-role",
    "model_roles",
    multiple=True,
    help="ROLE=MODEL the assessor uses unless a request names an allowed one, e.g. "
    "patient=openai/gpt-4o-mini (roles: patient, judge, constructor, teamwork).",
)
@click.option(
    "--allow-model",
    "allowed_models",
    multiple=True,
    help="Glob of models a request may name in config.model_roles, e.g. 'openai/*' "
    "(default: none; requests then use the assessor's own models or run offline).",
)
@click.option(
    "--allow-host",
    "allowed_hosts",
    multiple=True,
    help="Participant host a request may name, beyond loopback: a host name, an address or a "
    "CIDR network (repeatable). Link-local and cloud metadata addresses need their own entry.",
)
@click.option(
    "--doctor-token",
    default=None,
    help="Bearer token sent to participant doctors (default: $GAA_A2A_DOCTOR_TOKEN; none).",
)
@_server_options
@_clear_errors
def serve_green_command(
    host: str,
    port: int,
    card_url: str | None,
    log_dir: str,
    model_roles: Sequence[str],
    allowed_models: Sequence[str],
    allowed_hosts: Sequence[str],
    doctor_token: str | None,
    tokens: Sequence[str],
    **limit_options: Any,
) -> None:
    """Serve the benchmark as an A2A assessor (green agent) until interrupted."""
    import os

    from gaa.a2a._server import card_url as advertised
    from gaa.a2a._server import run
    from gaa.a2a.client import DOCTOR_TOKEN_ENV
    from gaa.a2a.green_server import MAX_REQUEST_BYTES, MODEL_ROLES, green_app
    from gaa.a2a.outbound import policy_from

    found = _exposure(host, tokens, "gaa serve green")
    try:
        policy = policy_from(allowed_hosts)
    except ValueError as exc:
        raise GAAError(str(exc)) from None
    limits = _limits(limit_options, MAX_REQUEST_BYTES)
    sent = doctor_token or os.environ.get(DOCTOR_TOKEN_ENV) or None

    roles: dict[str, str] = {}
    for role, model in _model_roles(model_roles).items():
        if role not in MODEL_ROLES or not isinstance(model, str):
            raise GAAError(f"--model-role takes one of {', '.join(sorted(MODEL_ROLES))}=MODEL")
        roles[role] = model
    url = advertised(host, port, card_url)
    click.echo(f"Serving the GAA assessor over A2A at {url} (logs in {log_dir}; Ctrl-C stops)")
    hosts = ", ".join(["loopback", *allowed_hosts])
    callers = f"{len(found)} token(s)" if found else "no token, loopback only"
    click.echo(f"Callers: {callers}. Participant hosts: {hosts}.")
    app = green_app(
        url,
        log_dir,
        roles,
        allowed_models,
        tokens=found,
        policy=policy,
        doctor_token=sent,
        limits=limits,
    )
    run(app, host, port, limits)


def _inspect_command() -> str:
    """How to call Inspect from this shell: ``inspect`` when it is on PATH, else its path."""
    import shutil
    from pathlib import Path

    here = Path(sys.executable).parent / "inspect"
    found = shutil.which("inspect")
    if found and Path(found).resolve() == here.resolve():
        return "inspect"
    try:
        return str(here.relative_to(Path.cwd()))
    except ValueError:
        return str(here)


def _print_result(result: Any) -> None:
    scores = {score.session_id: score for score in result.scores}
    sessions = {session.session_id: session for session in result.sessions}
    click.echo(f"\n{'persona':<16} {'overall':>7} {'outcome':<9} {'rounds':>6}  flags")
    for session_id, score in sorted(scores.items()):
        session = sessions.get(session_id)
        persona = session.persona_id if session else session_id
        rounds = sum(turn.speaker == "doctor" for turn in session.turns) if session else 0
        flags = ", ".join(sorted({flag.split(":", 1)[0] for flag in score.flags})) or "-"
        click.echo(
            f"{persona:<16} {score.overall_score:>7.1f} {score.outcome:<9} {rounds:>6}  {flags}"
        )
    for persona, why in sorted(result.failed_personas.items()):
        click.echo(f"{persona:<16} {'failed':>7}  {why}")
    if result.mean_overall_score is not None:
        click.echo(f"\nMean overall: {result.mean_overall_score:.2f}/100")
    click.echo(f"\n{result.overall_summary}")
    if result.log_location:
        click.echo(f"\nLog: {result.log_location}")


@main.command(name="run")
@click.argument("scenario", type=click.Path(dir_okay=False))
@click.option("--serve-only", is_flag=True, help="Start the agents and wait; no assessment.")
@click.option("--show-logs", is_flag=True, help="Show the agents' own output here.")
@click.option(
    "--agent-logs",
    default="logs/scenario",
    show_default=True,
    help="Where the agents' output goes without --show-logs (one file per agent).",
)
@click.option(
    "--timeout",
    type=click.FloatRange(1, 3600),
    default=60,
    show_default=True,
    help="Seconds to wait for the agents' cards.",
)
@click.option(
    "--output",
    type=click.Path(dir_okay=False),
    default=None,
    help="Write the EvalResult JSON here.",
)
@_clear_errors
def run_command(
    scenario: str,
    serve_only: bool,
    show_logs: bool,
    agent_logs: str,
    timeout: float,
    output: str | None,
) -> None:
    """Run an AgentBeats-style SCENARIO file: start its agents, assess, print the result."""
    import asyncio
    import time

    from gaa.a2a.assess import send_assessment
    from gaa.a2a.scenario import load_scenario, started, wait_ready
    from gaa.models import EvalRequest

    plan = load_scenario(scenario)
    request = EvalRequest(
        participants={role: agent.endpoint for role, agent in plan.participants.items()},
        config=plan.config,
    )
    from pathlib import Path

    with started(plan.agents, show_logs, Path(agent_logs)) as processes:
        if processes:
            click.echo(f"Started {', '.join(processes)}; waiting for their agent cards...")
        wait_ready(plan.agents, processes, timeout, say=lambda text: click.echo(f"  {text}"))
        if serve_only:
            click.echo("Agents are up (--serve-only). Ctrl-C stops them.")
            try:
                while all(p.poll() is None for p in processes.values()):
                    time.sleep(1)
            except KeyboardInterrupt:
                click.echo("Stopping.")
            return
        click.echo(f"Assessing {request.participants} with {plan.green.endpoint}...")
        try:
            result = asyncio.run(
                send_assessment(
                    plan.green.endpoint,
                    request,
                    on_status=lambda text: click.echo(f"  {text}"),
                    token=plan.green.token,
                )
            )
        except GAAError as exc:
            raise GAAError(f"green_agent ({plan.green.endpoint}): {exc}") from None
    _print_result(result)
    if output:
        Path(output).write_text(result.model_dump_json(indent=2), encoding="utf-8")
        click.echo(f"EvalResult written to {output}")
    if not result.scores:
        why = result.error or "; ".join(sorted(set(result.failed_personas.values())))
        raise GAAError(f"no persona was scored: {why or 'the assessor gave no reason'}")


@main.command(name="report")
@click.argument("logs", nargs=-1, required=True)
@click.option("--out", default="report", show_default=True, help="Directory to write into.")
@click.option(
    "--format",
    "formats",
    default="html,md,json",
    show_default=True,
    help="Comma-separated: html (one self-contained page), md, json; eval-report (the "
    "evaluation report of an eval card: scores with stderr, tokens, cost, commands, versions).",
)
@_clear_errors
def report_command(logs: Sequence[str], out: str, formats: str) -> None:
    """Tables, pictures, an HTML page and a leaderboard from medical_dialogue LOGS.

    LOGS are log files (.eval, .json) or directories (also remote ones Inspect reads, such as
    s3://bucket/logs); several runs become a leaderboard. The report owns what it lists in
    OUT/.gaa-report.json: pictures and pages an earlier report wrote there and this one does
    not are removed, and nothing else in OUT is touched.
    """
    from gaa.report import ReportError, make_report
    from gaa.report.markdown import one_line

    wanted = [name.strip() for name in formats.split(",") if name.strip()]
    try:
        report, written = make_report(
            list(logs), out, wanted, progress=lambda text: click.echo(one_line(text), err=True)
        )
    except ReportError as exc:  # one line: a log's text may hold line breaks
        raise ReportError(one_line(exc)) from None
    for warning in report.warnings:
        click.echo(f"Warning: {one_line(warning)}", err=True)
    for run in report.runs:
        click.echo(one_line(run.summary))
    for path in written:
        if path.suffix != ".png":
            click.echo(f"Wrote {one_line(path)}")
    pictures = sum(p.suffix == ".png" for p in written)
    click.echo(f"Pictures: {pictures} PNG files in {one_line(out)}")


@main.command(name="judge-check")
@click.argument("logs", nargs=-1, required=True)
@click.option("--criteria", is_flag=True, help="Also print agreement per rubric criterion.")
@_clear_errors
def judge_check_command(logs: Sequence[str], criteria: bool) -> None:
    """Compare judge configurations from judge_check LOGS (files or folders): agreement with
    the labels, tier tau, twin sensitivity, control stability, calls and tokens each."""
    from inspect_ai.log import read_eval_log

    from gaa.judge_check.summary import criteria_table, format_rows, read_rows

    rows = read_rows(list(logs))
    click.echo(format_rows(rows))
    if criteria:
        for row in rows:
            click.echo("\n" + criteria_table(read_eval_log(row.location)))
