"""GAA's A2A servers (``gaa serve doctor`` and ``gaa serve green``) and clients of both A2A
versions: the card carries the 1.0 fields and the 0.3 ones, a real a2a-sdk 0.3 client (in a
venv of its own) resolves both cards, gets a doctor's reply and runs an assessment, and the
installed 1.x client still reads both cards and talks 1.0."""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.compat.v0_3.types import AgentCard as AgentCardV03
from a2a.helpers.proto_helpers import new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest

from gaa.a2a.client import read_reply
from gaa.a2a.doctor_server import doctor_app
from gaa.a2a.green_server import green_app
from gaa.a2a.layout import render_request
from gaa.personas import parse_persona_id
from gaa.plugins import catalogue
from gaa.testing import free_port, serving

LEGACY_SDK = "0.3.26"
"""The newest a2a-sdk 0.3 on PyPI when this was written: what AgentBeats' clients run."""
LEGACY_REQUIREMENTS = (f"a2a-sdk[http-server]=={LEGACY_SDK}", "httpx==0.28.1")
CLIENT_SCRIPT = Path(__file__).with_name("a2a_v0_3_client.py")
CARD_PATHS = ("/.well-known/agent-card.json", "/.well-known/agent.json")
PERSONAS = ["INTJ_M_PNEUMO", "ESFP_F_LUNG"]


def recording(app: Any, methods: list[tuple[str, str | None]]) -> Any:
    """``app``, noting each JSON-RPC call's method and A2A-Version header in ``methods``: which
    protocol a client spoke is seen on the wire, not taken on trust."""

    async def recorded(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await app(scope, receive, send)
            return
        body, more, chunks = b"", True, []
        while more:
            message = await receive()
            chunks.append(message)
            body += message.get("body", b"")
            more = message.get("more_body", False)
        headers = dict(scope["headers"])
        version = headers.get(b"a2a-version")
        methods.append((json.loads(body)["method"], version.decode() if version else None))

        async def replay() -> Any:
            return chunks.pop(0) if chunks else await receive()

        await app(scope, replay, send)

    return recorded


@contextmanager
def agents(
    tmp_path: Path, methods: list[tuple[str, str | None]] | None = None
) -> Iterator[tuple[str, str]]:
    """A served reference doctor and an assessor on loopback; ``methods`` records the calls
    each receives (doctor and assessor alike)."""
    doctor_port, green_port = free_port(), free_port()
    doctor = doctor_app("reference/exemplary", f"http://127.0.0.1:{doctor_port}/")
    green = green_app(f"http://127.0.0.1:{green_port}/", str(tmp_path / "logs"))
    if methods is not None:
        doctor, green = recording(doctor, methods), recording(green, methods)
    with serving(doctor, doctor_port) as doctor_url, serving(green, green_port) as green_url:
        yield doctor_url, green_url


def doctor_request() -> str:
    """A first doctor turn in GAA's own layout, as the assessor sends it."""
    persona = parse_persona_id(PERSONAS[0])
    case = catalogue().cases.get("pneumothorax").item
    opening = "My lung collapsed again last month and I am scared of another operation."
    return render_request(case, "gaa/pneumothorax", persona.age, "male", [("patient", opening)])


def eval_request(doctor_url: str) -> dict[str, Any]:
    """An offline assessment: scripted patient, rules judge, two personas, two rounds."""
    return {
        "participants": {"doctor": doctor_url},
        "config": {
            "persona_ids": PERSONAS,
            "max_rounds": 2,
            "patient": "scripted",
            "judge": "rules",
        },
    }


def test_the_card_carries_the_a2a_1_0_and_0_3_fields_at_both_paths(tmp_path: Path) -> None:
    with agents(tmp_path) as urls:
        cards = [httpx.get(url + path).json() for url in urls for path in CARD_PATHS]
    for url, card in zip([u for u in urls for _ in CARD_PATHS], cards, strict=True):
        base = url + "/"
        assert card["supportedInterfaces"] == [
            {"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": base, "protocolBinding": "JSONRPC", "protocolVersion": "0.3.0"},
        ]
        assert card["url"] == base
        assert card["protocolVersion"] == "0.3.0"
        assert card["preferredTransport"] == "JSONRPC"
        assert "additionalInterfaces" not in card  # the one 0.3 interface is the main one
        # the 0.3 model as a2a-sdk 1.x bundles it; the real 0.3 SDK reads it in the slow test
        legacy = AgentCardV03.model_validate(card)
        assert legacy.capabilities.streaming is True
        assert [skill.id for skill in legacy.skills] == [card["skills"][0]["id"]]
    assert cards[0] == cards[1] and cards[2] == cards[3]  # the pre-0.3 path serves the same


async def _ask_with_1_x(url: str, text: str) -> tuple[list[str], str]:
    """The protocol versions of the card's interfaces as a 1.x client reads them, and the
    doctor's reply through the client it makes of the card."""
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
        versions = [i.protocol_version for i in card.supported_interfaces]
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        message = new_text_message(text, role=Role.ROLE_USER)
        reply = await read_reply(client.send_message(SendMessageRequest(message=message)))
        return versions, reply


async def _interfaces_with_1_x(url: str) -> list[tuple[str, str]]:
    async with httpx.AsyncClient(timeout=30) as http:
        card = await A2ACardResolver(http, url).get_agent_card()
    return [(i.url, i.protocol_version) for i in card.supported_interfaces]


def test_a_1_x_client_reads_both_cards_and_still_speaks_1_0(tmp_path: Path) -> None:
    methods: list[tuple[str, str | None]] = []
    with agents(tmp_path, methods) as (doctor_url, green_url):
        versions, reply = asyncio.run(_ask_with_1_x(doctor_url, doctor_request()))
        green_interfaces = asyncio.run(_interfaces_with_1_x(green_url))
    assert versions == ["1.0", "0.3.0"]
    assert green_interfaces == [(green_url + "/", "1.0"), (green_url + "/", "0.3.0")]
    assert reply.startswith("Thank you for coming in")
    assert methods == [("SendMessage", "1.0")]  # the 1.0 interface was chosen, not the 0.3 one


def legacy_python() -> Path:
    """The python of a venv holding a2a-sdk 0.3 from PyPI, made once and kept under
    ``$GAA_CACHE_DIR/test-envs`` (default ``~/.cache/gaa``): the install takes a minute and
    the network, a rerun neither. The name hashes what is installed and by which interpreter;
    a lock keeps two test runs from building it at once."""
    key = "\n".join([*LEGACY_REQUIREMENTS, sys.version, sys.base_prefix])
    digest = hashlib.sha256(key.encode()).hexdigest()[:12]
    root = Path(os.environ.get("GAA_CACHE_DIR") or "~/.cache/gaa").expanduser() / "test-envs"
    env = root / f"a2a-sdk-0.3-{digest}"
    python, ready = env / "bin" / "python", env / ".gaa-ready"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / f"{env.name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (ready.exists() and python.exists()):
            shutil.rmtree(env, ignore_errors=True)  # a half-built env from an interrupted run
            subprocess.run([sys.executable, "-m", "venv", str(env)], check=True)
            pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
            subprocess.run([*pip, *LEGACY_REQUIREMENTS], check=True)
            ready.write_text("\n".join(LEGACY_REQUIREMENTS) + "\n")
    return python


def run_legacy_client(job: dict[str, Any]) -> dict[str, Any]:
    """Run the 0.3 client script on ``job``; ``-I`` keeps GAA's own path (and its a2a-sdk 1.x)
    out of it."""
    done = subprocess.run(
        [str(legacy_python()), "-I", str(CLIENT_SCRIPT)],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


@pytest.mark.slow
def test_an_a2a_sdk_0_3_client_reads_the_cards_asks_the_doctor_and_runs_an_assessment(
    tmp_path: Path,
) -> None:
    methods: list[tuple[str, str | None]] = []
    with agents(tmp_path, methods) as (doctor_url, green_url):
        job = {
            "doctor": doctor_url,
            "green": green_url,
            "doctor_request": doctor_request(),
            "eval_request": eval_request(doctor_url),
        }
        seen = run_legacy_client(job)
    assert seen["sdk"] == LEGACY_SDK
    for name, url in (("doctor", doctor_url), ("green", green_url)):
        card = seen["cards"][name]
        assert (card["url"], card["protocolVersion"]) == (url + "/", "0.3.0"), name
        assert card["preferredTransport"] == "JSONRPC"
    assert seen["cards"]["doctor"]["name"] == "GAA doctor reference/exemplary"

    for key in ("doctor", "doctor_streamed"):
        answer = seen[key]
        assert (answer["kind"], answer["state"]) == ("task", "completed"), answer
        [artifact] = answer["artifacts"]
        assert artifact["name"] == "doctor_reply"
        reply = artifact["text"]
        assert reply.startswith("Thank you for coming in"), reply
        assert "lung" in reply.lower()  # the case's diagnosis, told to the patient
    assert seen["doctor"]["artifacts"] == seen["doctor_streamed"]["artifacts"]

    green = seen["green"]
    assert green["state"] == "completed", green
    assert green["status_text"].startswith("Assessment complete: mean overall")
    assert [s for s in green["statuses"] if s.startswith("Completed")] == [
        "Completed 1/2 personas",
        "Completed 2/2 personas",
    ]
    [artifact] = green["artifacts"]
    assert artifact["name"] == "EvalResult"
    [result] = artifact["data"]
    assert artifact["text"] == result["overall_summary"]
    assert sorted(result["personas"]) == sorted(PERSONAS)
    assert result["status"] == "success" and result["failed_personas"] == {}
    assert result["doctor_agent_url"] == doctor_url
    scores = result["scores"]
    assert len(scores) == len(PERSONAS)
    assert all(0 < score["overall_score"] <= 100 for score in scores)
    by_session = {session["session_id"]: session["persona_id"] for session in result["sessions"]}
    assert sorted(by_session[score["session_id"]] for score in scores) == sorted(PERSONAS)

    # on the wire: the 0.3 client spoke 0.3 (no A2A-Version header); the assessor's own calls
    # to the doctor are 1.0
    legacy_calls = [method for method, version in methods if version is None]
    assert legacy_calls == ["message/send", "message/stream", "message/stream"]
    assert {m for m in methods if m[1] is not None} <= {
        ("SendMessage", "1.0"),
        ("SendStreamingMessage", "1.0"),
    }


def test_a_security_declaration_reaches_clients_of_both_versions() -> None:
    from a2a.client.card_resolver import parse_agent_card
    from a2a.types.a2a_pb2 import HTTPAuthSecurityScheme, SecurityScheme
    from starlette.testclient import TestClient

    from gaa.a2a._server import a2a_app
    from gaa.a2a.doctor_server import DoctorExecutor, doctor_card

    card = doctor_card("reference/exemplary", "http://127.0.0.1:9/")
    bearer = SecurityScheme(http_auth_security_scheme=HTTPAuthSecurityScheme(scheme="bearer"))
    card.security_schemes["bearer"].CopyFrom(bearer)
    card.security_requirements.add().schemes["bearer"].list.extend([])
    app = a2a_app(DoctorExecutor("reference/exemplary"), card)
    served = TestClient(app).get(CARD_PATHS[0]).json()
    legacy = AgentCardV03.model_validate(served)
    assert legacy.security == [{"bearer": []}]
    assert legacy.security_schemes is not None
    assert legacy.security_schemes["bearer"].root.scheme == "bearer"
    current = parse_agent_card(served)
    assert current.security_schemes["bearer"].http_auth_security_scheme.scheme == "bearer"
    assert list(current.security_requirements[0].schemes) == ["bearer"]
