"""The A2A doctor: a remote doctor agent (an AgentBeats purple agent, or ``gaa serve doctor``)
talked to over A2A, used like any local doctor (``-T doctor=a2a -T doctor_url=...``).

Each sample keeps one A2A context id; each turn sends one text message in the layout of
:mod:`gaa.a2a.layout` (the full dialogue so far), so agents written for the predecessor work
unmodified. The reply is the agent's message text, or else the text of its artifacts; status
texts ("working...") are never taken for the reply. A failed, rejected or cancelled task is an
error. The dialogue solver owns the per-call timeout and the retries (3 attempts, exponential
backoff, each recorded); this module bounds the reply (its size on the wire and its text) and
the connections: at most ``connections`` requests are in flight to one URL at a time, however
many personas run at once.

With a bearer token (``GAA_A2A_DOCTOR_TOKEN``, else ``GAA_A2A_TOKEN``; inside ``gaa serve
green`` the operator's ``--doctor-token`` only) every call sends ``Authorization: Bearer``.
The client never follows an agent card to another host than the one it was given, and inside
an assessment every request is checked against the operator's outbound policy
(:mod:`gaa.a2a.outbound`).
"""

from __future__ import annotations

import os
import ssl
from collections.abc import AsyncIterator
from typing import Any, TypeVar
from uuid import uuid4

import anyio
import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_artifact_text, get_message_text, new_text_message
from a2a.types.a2a_pb2 import AgentCard, Role, SendMessageRequest, StreamResponse
from a2a.types.a2a_pb2 import TaskState as A2ATaskState
from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser, ModelOutput
from inspect_ai.util import concurrency, store

from gaa._text import MAX_REPLY_CHARS
from gaa.a2a.layout import render_request
from gaa.a2a.outbound import RefusedAddress, current_policy, participant_token, same_host
from gaa.dialogue.solver import REASK
from gaa.doctors.reference import CASE_STORE_KEY, PERSONA_STORE_KEY
from gaa.errors import A2AError, UnusableReply, describe
from gaa.models import PatientPersona
from gaa.plugins import catalogue

DEFAULT_CONNECTIONS = 8
"""Requests in flight to one doctor URL at a time (``-T doctor_connections``)."""
MAX_CONNECTIONS = 256
CONNECT_TIMEOUT = 10.0
DOCTOR_TOKEN_ENV = "GAA_A2A_DOCTOR_TOKEN"
SERVER_TOKEN_ENV = "GAA_A2A_TOKEN"
WIRE_ALLOWANCE = 1_000_000
"""Bytes a reply may take on the wire beyond twice the request (events repeat the request)."""
_ENDED = {
    A2ATaskState.TASK_STATE_FAILED: "failed",
    A2ATaskState.TASK_STATE_REJECTED: "was rejected",
    A2ATaskState.TASK_STATE_CANCELED: "was cancelled",
    A2ATaskState.TASK_STATE_AUTH_REQUIRED: "asks for authentication",
}


class CardElsewhere(A2AError):
    """An agent card whose endpoint is on another host than the card's."""


class ReplyTooLarge(A2AError):
    """The agent's HTTP response went past the size limit."""


class _BoundedStream(httpx.AsyncByteStream):
    def __init__(self, stream: httpx.AsyncByteStream, limit: int) -> None:
        self._stream = stream
        self._limit = limit

    async def __aiter__(self) -> AsyncIterator[bytes]:
        seen = 0
        async for chunk in self._stream:
            seen += len(chunk)
            if seen > self._limit:
                raise ReplyTooLarge(f"the reply is larger than {self._limit} bytes")
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()


_ssl_context: ssl.SSLContext | None = None


def _shared_ssl_context() -> ssl.SSLContext:
    """One TLS context for every call (building one takes milliseconds; it holds no state that
    belongs to a connection or an event loop)."""
    global _ssl_context
    if _ssl_context is None:
        _ssl_context = httpx.create_ssl_context()
    return _ssl_context


class _BoundedTransport(httpx.AsyncBaseTransport):
    """An HTTP transport whose responses stop being read past ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self._inner = httpx.AsyncHTTPTransport(verify=_shared_ssl_context())
        self.limit = limit

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        policy = current_policy()
        if policy is not None:  # inside an assessment: the operator's hosts only
            await policy.check_url(str(request.url))
        request.headers["Accept-Encoding"] = "identity"
        response = await self._inner.handle_async_request(request)
        encoding = response.headers.get("Content-Encoding", "identity").strip().lower()
        if encoding not in ("", "identity"):
            await response.aclose()
            # a compressed body would be unpacked after the size check: 1 MB of gzip can be 1 GB
            raise ReplyTooLarge(
                f"the reply is compressed ({encoding}) although an uncompressed one was asked for"
            )
        assert isinstance(response.stream, httpx.AsyncByteStream)
        response.stream = _BoundedStream(response.stream, self.limit)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


_E = TypeVar("_E", bound=BaseException)


def _cause(exc: BaseException, kind: type[_E]) -> _E | None:
    """The ``kind`` error ``exc`` was caused by (the SDK wraps transport errors), if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None


def _too_large(exc: BaseException) -> bool:
    return _cause(exc, ReplyTooLarge) is not None


def call_failed(who: str, url: str, exc: BaseException, token_hint: str) -> A2AError:
    """One line saying what went wrong calling ``who`` at ``url``; a 401/403 says which token
    to give (``token_hint``)."""
    status = _cause(exc, httpx.HTTPStatusError)
    code = status.response.status_code if status is not None else None
    if code in (401, 403):
        return A2AError(
            f"{who} at {url} refused the call (HTTP {code}): it needs a bearer token; "
            f"{token_hint}"
        )
    return A2AError(f"{who} at {url} failed: {describe(exc)}")


def doctor_token(explicit: str | None = None) -> str | None:
    """The bearer token for a doctor agent: ``explicit``, else the running assessment's (the
    green server's ``--doctor-token``, possibly none), else ``GAA_A2A_DOCTOR_TOKEN``, else
    ``GAA_A2A_TOKEN`` (one token for every agent of a local setup)."""
    if explicit:
        return explicit
    assessed, token = participant_token()
    if assessed:
        return token
    return os.environ.get(DOCTOR_TOKEN_ENV) or os.environ.get(SERVER_TOKEN_ENV) or None


def bearer_headers(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


async def resolve_card(http: httpx.AsyncClient, url: str) -> AgentCard:
    """The agent card served at ``url`` (``/.well-known/agent-card.json``), or an
    :class:`A2AError` saying why there is none. A card whose endpoint is on another host than
    ``url``'s is refused: a client must not be sent elsewhere by whoever answers at ``url``."""
    try:
        card = await A2ACardResolver(http, url).get_agent_card()
    except Exception as exc:
        if isinstance(exc, A2AError):
            raise
        raise A2AError(
            f"no A2A agent card at {url.rstrip('/')}/.well-known/agent-card.json "
            f"({describe(exc)}); is the agent running?"
        ) from exc
    for interface in card.supported_interfaces:
        if interface.url and not same_host(url, interface.url):
            raise CardElsewhere(
                f"the agent card at {url.rstrip('/')} sends calls to another host "
                f"({interface.url}); refused: the card's URL must be on the host it was fetched "
                "from (the agent's operator sets it with --card-url)"
            )
    return card


async def read_reply(events: AsyncIterator[StreamResponse]) -> str:
    """The reply text of one ``send_message`` call: the agent's message, else its artifacts."""
    message: str | None = None
    artifacts: dict[str, str] = {}
    async for event in events:
        kind = event.WhichOneof("payload")
        if kind == "message":
            message = get_message_text(event.message)
        elif kind == "task":
            for artifact in event.task.artifacts:
                artifacts[artifact.artifact_id] = get_artifact_text(artifact)
            _check_state(event.task.status.state, event.task.status.message)
        elif kind == "artifact_update":
            update = event.artifact_update
            text = get_artifact_text(update.artifact)
            key = update.artifact.artifact_id
            artifacts[key] = artifacts.get(key, "") + text if update.append else text
        elif kind == "status_update":
            _check_state(event.status_update.status.state, event.status_update.status.message)
    if message is not None and message.strip():
        return message
    return "\n".join(text for text in artifacts.values() if text.strip())


def _check_state(state: Any, message: Any) -> None:
    if state in _ENDED:
        said = get_message_text(message).strip() if message is not None else ""
        raise A2AError(f"the doctor's task {_ENDED[state]}" + (f": {said[:300]}" if said else ""))


def _history(state: AgentState) -> list[tuple[str, str]]:
    turns: list[tuple[str, str]] = []
    for message in state.messages:
        if isinstance(message, ChatMessageSystem):
            continue
        if isinstance(message, ChatMessageUser) and message.text == REASK:
            continue  # asking again sends the same dialogue; the note is not the patient's
        if isinstance(message, ChatMessageUser):
            turns.append(("patient", message.text))
        elif isinstance(message, ChatMessageAssistant):
            turns.append(("doctor", message.text))
    return turns


@agent(name="a2a_doctor")
def a2a_doctor(
    url: str,
    connections: int = DEFAULT_CONNECTIONS,
    timeout: float | None = None,
    max_reply_chars: int = MAX_REPLY_CHARS,
    token: str | None = None,
) -> Agent:
    """A remote A2A doctor agent at ``url`` (one context per sample: call once per sample).

    ``timeout`` bounds each exchange with the agent, not the wait for one of the
    ``connections`` (so many personas queued behind a slow agent do not time out waiting);
    ``token`` is its bearer token (default: :func:`doctor_token`)."""
    base_url = url.rstrip("/")
    exchange_timeout = timeout
    context_id = f"gaa-{uuid4().hex}"
    card: AgentCard | None = None

    async def execute(state: AgentState) -> AgentState:
        case_name = store().get(CASE_STORE_KEY)
        persona_data = store().get(PERSONA_STORE_KEY)
        if case_name is None or persona_data is None:
            raise A2AError("the A2A doctor runs inside the medical_dialogue solver only")
        case = catalogue().cases.get(case_name).item
        persona = PatientPersona.model_validate(persona_data)
        request_text = render_request(
            case, case_name, persona.age, persona.gender, _history(state)
        )
        limit = WIRE_ALLOWANCE + 2 * len(request_text.encode())
        http_timeout = httpx.Timeout(None, connect=CONNECT_TIMEOUT)
        headers = bearer_headers(doctor_token(token))
        async with (
            concurrency(f"a2a doctor {base_url}", connections, visible=False),
            httpx.AsyncClient(
                transport=_BoundedTransport(limit), timeout=http_timeout, headers=headers
            ) as http,
        ):
            with anyio.fail_after(exchange_timeout):
                reply = await exchange(http, request_text, limit)
        if len(reply) > max_reply_chars:
            raise UnusableReply(
                f"the A2A doctor's reply has {len(reply)} characters (limit {max_reply_chars})"
            )
        label = f"a2a:{base_url}"
        state.messages.append(ChatMessageAssistant(content=reply, model=label))
        state.output = ModelOutput.from_content(model=label, content=reply)
        return state

    async def exchange(http: httpx.AsyncClient, request_text: str, limit: int) -> str:
        nonlocal card
        if card is None:
            card = await resolve_card(http, base_url)
        config = ClientConfig(httpx_client=http, streaming=False)
        client = ClientFactory(config).create(card)
        message = new_text_message(request_text, context_id=context_id, role=Role.ROLE_USER)
        try:
            return await read_reply(client.send_message(SendMessageRequest(message=message)))
        except Exception as exc:
            if _too_large(exc):
                raise UnusableReply(f"the A2A doctor's reply was refused: {exc}") from exc
            refused = _cause(exc, RefusedAddress)
            if refused is not None:
                raise RefusedAddress(f"the A2A doctor at {base_url}: {refused}") from exc
            if isinstance(exc, A2AError):
                raise
            hint = f"give it with {DOCTOR_TOKEN_ENV} (gaa serve green: --doctor-token)"
            raise call_failed("the A2A doctor", base_url, exc, hint) from exc

    return execute
