"""The A2A servers against the reported attacks: a caller cannot list or read another caller's
tasks, calls without the token get 401, neither server listens beyond loopback without a token,
stored tasks stay bounded in count and bytes whatever the requests weigh, silent connections
are closed, and errors reach a client without tracebacks or server paths."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx
import pytest
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import new_text_message
from a2a.types.a2a_pb2 import GetTaskRequest, ListTasksRequest, Role, SendMessageRequest
from click.testing import CliRunner

from gaa.a2a._server import (
    ExposureError,
    ServerLimits,
    check_exposure,
    server_config,
    server_tokens,
)
from gaa.a2a.client import resolve_card
from gaa.a2a.doctor_server import doctor_app
from gaa.a2a.green_server import green_app
from gaa.a2a.layout import render_request
from gaa.cli import main
from gaa.plugins import catalogue
from gaa.testing import free_port

TOKEN_A = "token-for-caller-a-0123456789"
TOKEN_B = "token-for-caller-b-9876543210"


@contextmanager
def running(app: Any, port: int, limits: ServerLimits | None = None) -> Iterator[str]:
    """``app`` served on ``port`` as ``gaa serve`` serves it (its uvicorn settings, limits)."""
    import uvicorn

    server = uvicorn.Server(server_config(app, "127.0.0.1", port, limits))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(20)


def doctor_request(patient_turn: str = "Hello doctor.") -> str:
    entry = next(iter(catalogue().cases))
    return render_request(entry.item, entry.full_name, 60, "male", [("patient", patient_turn)])


async def _send(url: str, token: str | None, text: str) -> str:
    """Send one message; the task id of the answer."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(timeout=60, headers=headers) as http:
        card = await resolve_card(http, url)
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)
        message = new_text_message(text, role=Role.ROLE_USER)
        async for event in client.send_message(SendMessageRequest(message=message)):
            if event.WhichOneof("payload") == "task":
                return str(event.task.id)
    raise AssertionError("no task in the answer")


async def _list(url: str, token: str | None) -> list[str]:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(timeout=60, headers=headers) as http:
        card = await resolve_card(http, url)
        client = ClientFactory(ClientConfig(httpx_client=http)).create(card)
        response = await client.list_tasks(ListTasksRequest())
        return [task.id for task in response.tasks]


async def _get(url: str, token: str | None, task_id: str) -> str:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(timeout=60, headers=headers) as http:
        card = await resolve_card(http, url)
        client = ClientFactory(ClientConfig(httpx_client=http)).create(card)
        return str((await client.get_task(GetTaskRequest(id=task_id))).id)


def test_a_caller_cannot_list_or_read_another_callers_task() -> None:
    port = free_port()
    app = doctor_app("reference/exemplary", f"http://127.0.0.1:{port}/", tokens=[TOKEN_A, TOKEN_B])
    with running(app, port) as url:
        mine = asyncio.run(_send(url, TOKEN_A, doctor_request("A's private consultation")))
        assert asyncio.run(_list(url, TOKEN_A)) == [mine]
        assert asyncio.run(_get(url, TOKEN_A, mine)) == mine
        assert asyncio.run(_list(url, TOKEN_B)) == []
        with pytest.raises(Exception, match=r"(?i)task not found"):
            asyncio.run(_get(url, TOKEN_B, mine))


def test_without_a_token_listing_is_off_for_everyone() -> None:
    port = free_port()
    app = doctor_app("reference/exemplary", f"http://127.0.0.1:{port}/")
    with running(app, port) as url:
        asyncio.run(_send(url, None, doctor_request()))
        with pytest.raises(Exception, match="listing tasks needs a caller identity"):
            asyncio.run(_list(url, None))


def test_the_green_server_does_not_list_other_callers_either() -> None:
    port = free_port()
    app = green_app(f"http://127.0.0.1:{port}/", tokens=[TOKEN_A, TOKEN_B])
    with running(app, port) as url:
        asyncio.run(_send(url, TOKEN_A, "not json: http://127.0.0.1:9/ secret"))
        assert len(asyncio.run(_list(url, TOKEN_A))) == 1
        assert asyncio.run(_list(url, TOKEN_B)) == []


@pytest.mark.parametrize("make", ["doctor", "green"])
def test_calls_without_the_right_token_get_401_and_the_card_says_why(make: str) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    app = (
        doctor_app("reference/exemplary", base, tokens=[TOKEN_A])
        if make == "doctor"
        else green_app(base, tokens=[TOKEN_A])
    )
    body = {"jsonrpc": "2.0", "id": 1, "method": "ListTasks", "params": {}}
    with running(app, port) as url:
        card = httpx.get(url + "/.well-known/agent-card.json").json()
        legacy = httpx.get(url + "/.well-known/agent.json").json()
        none = httpx.post(url + "/", json=body)
        wrong = httpx.post(url + "/", json=body, headers={"Authorization": "Bearer " + TOKEN_B})
        right = httpx.post(url + "/", json=body, headers={"Authorization": "Bearer " + TOKEN_A})
    assert none.status_code == wrong.status_code == 401
    assert none.headers["www-authenticate"] == "Bearer"
    assert "bearer token" in none.text and "bearer token" in wrong.text
    assert right.status_code == 200
    for served in (card, legacy):  # A2A 1.0 and 0.3 fields both declare the scheme
        assert served["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "bearer"
        assert served["securitySchemes"]["bearer"]["type"] == "http"
        assert served["security"] == [{"bearer": []}]
        assert served["securityRequirements"] == [{"schemes": {"bearer": {}}}]
        assert served["url"] == base and served["protocolVersion"] == "0.3.0"


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.org"])
def test_listening_beyond_loopback_needs_a_token(host: str) -> None:
    with pytest.raises(ExposureError, match=f"refuses to listen on {host} without a token"):
        check_exposure(host, [], "gaa serve doctor")
    check_exposure(host, [TOKEN_A], "gaa serve doctor")
    for loopback in ("127.0.0.1", "::1", "localhost"):
        check_exposure(loopback, [], "gaa serve doctor")


@pytest.mark.parametrize("command", ["doctor", "green"])
def test_the_cli_refuses_0_0_0_0_without_a_token_in_one_line(
    command: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GAA_A2A_TOKEN", raising=False)
    args = ["serve", command, "--host", "0.0.0.0", "--port", str(free_port())]
    if command == "doctor":
        args += ["--doctor", "reference/exemplary"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "refuses to listen on 0.0.0.0 without a token" in lines[0]


def test_tokens_come_from_the_flag_or_the_environment_and_must_be_long() -> None:
    assert server_tokens([TOKEN_A], {"GAA_A2A_TOKEN": TOKEN_B}) == [TOKEN_A]
    assert server_tokens([], {"GAA_A2A_TOKEN": f"{TOKEN_A},{TOKEN_B}"}) == [TOKEN_A, TOKEN_B]
    assert server_tokens([], {}) == []
    with pytest.raises(ExposureError, match="at least 16 characters"):
        server_tokens(["short"], {})


def test_stored_tasks_stay_bounded_in_bytes_and_drop_the_request() -> None:
    limits = ServerLimits(max_tasks=1_000, max_task_bytes=2_000_000)
    port = free_port()
    app = doctor_app("reference/exemplary", f"http://127.0.0.1:{port}/", limits=limits)
    store = app.state.task_store
    big = doctor_request("x" * 400_000)
    with running(app, port, limits) as url:
        for _ in range(12):  # 12 requests of 400 kB: 4.8 MB if they were kept
            asyncio.run(_send(url, None, big))
    assert 0 < len(store) <= 12
    assert store.stored_bytes <= limits.max_task_bytes
    assert store.stored_bytes < 100_000  # answered tasks keep their reply, not the request


def test_a_silent_connection_is_closed_after_the_request_timeout() -> None:
    port = free_port()
    app = doctor_app("reference/exemplary", f"http://127.0.0.1:{port}/")
    limits = ServerLimits(request_timeout=0.5, keep_alive_timeout=1)
    with running(app, port, limits) as url:
        silent = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        trickling = socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])))
        trickling.sendall(b"POST / HTTP/1.1\r\nHost: x\r\n")  # never finishes its headers
        for sock in (silent, trickling):
            sock.settimeout(15)  # generous: closing takes ~0.5 s
            assert sock.recv(1024) == b""  # the server closed it
            sock.close()
        assert httpx.get(url + "/.well-known/agent-card.json").status_code == 200


def test_an_idle_keep_alive_connection_is_closed() -> None:
    port = free_port()
    app = doctor_app("reference/exemplary", f"http://127.0.0.1:{port}/")
    limits = ServerLimits(request_timeout=30, keep_alive_timeout=1)
    with running(app, port, limits) as url:
        sock = socket.create_connection(("127.0.0.1", port))
        sock.sendall(b"GET /.well-known/agent-card.json HTTP/1.1\r\nHost: x\r\n\r\n")
        sock.settimeout(15)
        received = b""
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            received += chunk
        assert received.startswith(b"HTTP/1.1 200")  # answered, then closed when idle
        sock.close()
        assert url


def test_an_error_inside_the_server_reaches_the_client_without_internals() -> None:
    from a2a.server.agent_execution import AgentExecutor

    from gaa.a2a._server import a2a_app
    from gaa.a2a.doctor_server import doctor_card

    class Broken(AgentExecutor):
        async def execute(self, context: Any, event_queue: Any) -> None:
            raise FileNotFoundError("/srv/secret/path/config.yaml")

        async def cancel(self, context: Any, event_queue: Any) -> None:
            return None

    port = free_port()
    app = a2a_app(Broken(), doctor_card("broken", f"http://127.0.0.1:{port}/"))
    with running(app, port) as url, pytest.raises(Exception) as error:
        asyncio.run(_send(url, None, "hello"))
    said = str(error.value)
    assert "/srv/secret" not in said and "Traceback" not in said


def test_a_malformed_request_gets_a_plain_error() -> None:
    port = free_port()
    app = doctor_app("reference/exemplary", f"http://127.0.0.1:{port}/")
    with running(app, port) as url:
        response = httpx.post(url + "/", content=b"{not json", timeout=30)
    assert "Traceback" not in response.text and "/site-packages/" not in response.text
