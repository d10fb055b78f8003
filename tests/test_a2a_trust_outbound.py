"""``gaa serve green`` contacts only the participant hosts its operator allows: link-local and
metadata addresses, private addresses not allowed, names that do not resolve and agent cards
that send calls to another host are each refused with a one-line reason naming the
participant, and nothing is contacted (nor any eval run)."""

from __future__ import annotations

import asyncio
import ipaddress
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from gaa.a2a.assess import send_assessment
from gaa.a2a.doctor_server import doctor_app, doctor_card
from gaa.a2a.green_server import green_app
from gaa.a2a.outbound import OutboundPolicy, RefusedAddress
from gaa.errors import A2AError
from gaa.models import EvalRequest
from gaa.testing import free_port, serving

GREEN_TOKEN = "green-caller-token-0123456789"
DOCTOR_TOKEN = "doctor-caller-token-0123456789"


@contextmanager
def listener(host: str) -> Iterator[tuple[int, list[Any]]]:
    """A TCP listener on ``host`` recording every connection it accepts."""
    sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
    sock.bind((host, 0))
    sock.listen(16)
    sock.settimeout(0.2)
    seen: list[Any] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, peer = sock.accept()
            except OSError:
                continue
            seen.append(peer)
            conn.close()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield int(sock.getsockname()[1]), seen
    finally:
        stop.set()
        thread.join(5)
        sock.close()


def assess(green_url: str, doctor_url: str, token: str | None = None) -> Any:
    request = EvalRequest(
        participants={"doctor": doctor_url},
        config={"persona_ids": ["INTJ_M_PNEUMO"], "max_rounds": 1},
    )
    return asyncio.run(send_assessment(green_url, request, token=token, timeout=120))


@pytest.mark.parametrize(
    ("doctor_url", "why"),
    [
        ("http://169.254.169.254/latest/meta-data", "is a cloud metadata address"),
        ("http://169.254.10.10:9/", "is a link-local address"),
        ("http://[fe80::1]:9/", "is a link-local address"),
        ("http://10.255.255.1:9/", "is not an allowed participant host"),
        ("http://192.168.0.7:9019/", "is not an allowed participant host"),
        ("http://invalid.test:9/", "does not resolve"),
    ],
)
def test_each_bad_participant_address_is_refused_with_its_reason(
    doctor_url: str, why: str, tmp_path: Path
) -> None:
    port = free_port()
    green = green_app(f"http://127.0.0.1:{port}/", str(tmp_path / "logs"))
    with serving(green, port) as green_url, pytest.raises(A2AError) as error:
        assess(green_url, doctor_url)
    said = str(error.value)
    assert f"participants.doctor ({doctor_url}) is refused" in said
    assert why in said and "\n" not in said
    assert not (tmp_path / "logs").exists()  # nothing ran


def test_a_private_address_outside_the_allow_list_is_never_contacted(tmp_path: Path) -> None:
    policy = OutboundPolicy(allowed=("127.0.0.1",), loopback=False)
    port = free_port()
    green = green_app(f"http://127.0.0.1:{port}/", str(tmp_path / "logs"), policy=policy)
    with (
        listener("127.0.0.3") as (doctor_port, seen),
        serving(green, port) as green_url,
        pytest.raises(A2AError, match="is not an allowed participant host"),
    ):
        assess(green_url, f"http://127.0.0.3:{doctor_port}/")
    assert seen == []


def test_a_card_sending_calls_to_another_host_is_refused_and_not_followed(
    tmp_path: Path,
) -> None:
    with listener("127.0.0.2") as (elsewhere_port, seen):
        card_port = free_port()
        card = doctor_card("decoy", f"http://127.0.0.2:{elsewhere_port}/")
        from a2a.server.request_handlers.response_helpers import agent_card_to_dict

        async def serve_card(request: Request) -> JSONResponse:
            return JSONResponse(agent_card_to_dict(card))

        decoy = Starlette(routes=[Route("/.well-known/agent-card.json", serve_card)])
        port = free_port()
        green = green_app(f"http://127.0.0.1:{port}/", str(tmp_path / "logs"))
        with (
            serving(decoy, card_port) as decoy_url,
            serving(green, port) as green_url,
            pytest.raises(A2AError) as error,
        ):
            assess(green_url, decoy_url)
    said = str(error.value)
    assert f"participants.doctor ({decoy_url}) is refused" in said
    assert "sends calls to another host" in said and "\n" not in said
    assert seen == []  # the host the card names was never contacted
    assert not (tmp_path / "logs").exists()


def test_allowed_hosts_and_explicit_link_local_entries() -> None:
    policy = OutboundPolicy(allowed=("10.0.0.0/8", "doctor.internal", "169.254.169.254"))
    check = policy.why_refused
    assert check("10.1.2.3", ipaddress.ip_address("10.1.2.3")) is None
    assert check("127.0.0.1", ipaddress.ip_address("127.0.0.1")) is None
    assert check("doctor.internal", ipaddress.ip_address("192.168.1.1")) is None
    assert check("169.254.169.254", ipaddress.ip_address("169.254.169.254")) is None
    assert "link-local" in (check("doctor.internal", ipaddress.ip_address("169.254.1.1")) or "")
    wide = OutboundPolicy(allowed=("0.0.0.0/0",))  # "everything" still excludes metadata
    assert "metadata" in (wide.why_refused("x", ipaddress.ip_address("169.254.169.254")) or "")
    mapped = ipaddress.ip_address("::ffff:169.254.169.254")
    with pytest.raises(RefusedAddress, match="metadata"):
        asyncio.run(OutboundPolicy().check_url(f"http://[{mapped}]/"))
    with pytest.raises(ValueError, match="neither a host name"):
        OutboundPolicy(allowed=("not a host/x",))


def test_tokens_reach_the_assessor_and_the_doctor(tmp_path: Path) -> None:
    doctor_port, green_port = free_port(), free_port()
    doctor = doctor_app(
        "reference/exemplary", f"http://127.0.0.1:{doctor_port}/", tokens=[DOCTOR_TOKEN]
    )
    green = green_app(
        f"http://127.0.0.1:{green_port}/",
        str(tmp_path / "logs"),
        tokens=[GREEN_TOKEN],
        doctor_token=DOCTOR_TOKEN,
    )
    with serving(doctor, doctor_port) as doctor_url, serving(green, green_port) as green_url:
        with pytest.raises(A2AError, match="401"):
            assess(green_url, doctor_url)  # no token for the assessor
        result = assess(green_url, doctor_url, token=GREEN_TOKEN)
    assert result.failed_personas == {}
    assert len(result.scores) == 1
