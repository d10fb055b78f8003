"""What GAA's two A2A servers share: the agent card, the Starlette app and the uvicorn run,
and what keeps them safe to leave running (see docs/security.md).

* **Callers.** With bearer tokens set (``--token``, or ``GAA_A2A_TOKEN``) every request but the
  agent card needs ``Authorization: Bearer <token>`` (else 401), and the card declares the
  scheme (as A2A 1.0 and 0.3 fields). Each token is one caller: tasks are stored under the
  caller that made them, and ``GetTask``/``ListTasks``/``CancelTask`` see that caller's tasks
  only (the SDK's owner-scoped task store). Without a token the server listens on loopback
  only, and ``ListTasks`` is off: anonymous callers cannot be told apart, so no caller may list
  the others' tasks; a task is reached by its (unguessable) id only.
* **Memory.** A stored task keeps what a later call needs (its status, reply and artifacts):
  once it has ended, the request it was made from (its history) is dropped. The store keeps at
  most ``max_tasks`` tasks and ``max_task_bytes`` bytes of them, dropping the oldest ended
  tasks first.
* **Connections.** uvicorn closes idle keep-alive connections after ``keep_alive_timeout``;
  a connection must deliver a whole request (headers and body) within ``request_timeout`` of
  opening (or of its previous response), else it is closed; at most ``max_connections``
  connections and requests are served at once (more get 503).
* **Errors.** A client gets an error in its own terms: an error inside the server reaches it as
  "an error inside the server" (the server's log has the details), never a traceback or path.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import ipaddress
import logging
import os
import re
from collections import OrderedDict
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from a2a.auth.user import User
from a2a.server.agent_execution import AgentExecutor
from a2a.server.context import ServerCallContext
from a2a.server.owner_resolver import resolve_user_scope
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskStore
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    HTTPAuthSecurityScheme,
    ListTasksRequest,
    ListTasksResponse,
    SecurityRequirement,
    SecurityScheme,
    StringList,
    Task,
    TaskState,
)
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from a2a.utils.errors import A2AError as SDKError
from a2a.utils.errors import InternalError, UnsupportedOperationError
from starlette.applications import Starlette
from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    AuthenticationError,
    BaseUser,
    SimpleUser,
)
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection
from starlette.responses import PlainTextResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from gaa.a2a.limits import (
    DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_CONNECTIONS,
    DEFAULT_MAX_REQUEST_BYTES,
    DEFAULT_REQUEST_TIMEOUT,
    MAX_TASK_BYTES,
    MAX_TASKS_KEPT,
    TOKEN_ENV,
)
from gaa.errors import GAAError

PROTOCOL_VERSION = "1.0"
LEGACY_PROTOCOL_VERSION = "0.3.0"
"""The A2A version of a2a-sdk 0.3 clients (AgentBeats' agents and tutorials), which the
JSON-RPC endpoint also answers."""
LEGACY_CARD_PATH = "/.well-known/agent.json"
"""Where clients before A2A 0.3 look for the card; a2a-sdk 0.3's own servers serve it there
too."""

MIN_TOKEN_CHARS = 16
BEARER_SCHEME = "bearer"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "::1", "localhost"})
INTERNAL_ERROR = "an error inside the server stopped this request (the server's log has details)"
_PUBLIC_PATHS = frozenset({AGENT_CARD_WELL_KNOWN_PATH, LEGACY_CARD_PATH})
_ENDED = frozenset(
    {
        TaskState.TASK_STATE_COMPLETED,
        TaskState.TASK_STATE_FAILED,
        TaskState.TASK_STATE_CANCELED,
        TaskState.TASK_STATE_REJECTED,
    }
)

logger = logging.getLogger(__name__)
_T = TypeVar("_T")


class ExposureError(GAAError):
    """A server asked to listen beyond loopback without a token, or given a weak token."""


@dataclass(frozen=True)
class ServerLimits:
    """What one server holds at most; the defaults are documented in docs/security.md."""

    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    max_tasks: int = MAX_TASKS_KEPT
    max_task_bytes: int = MAX_TASK_BYTES
    keep_alive_timeout: int = DEFAULT_KEEP_ALIVE_TIMEOUT
    request_timeout: float = DEFAULT_REQUEST_TIMEOUT
    max_connections: int = DEFAULT_MAX_CONNECTIONS


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gaa")
    except PackageNotFoundError:
        return "0"


def server_tokens(given: Sequence[str] = (), environ: dict[str, str] | None = None) -> list[str]:
    """The bearer tokens a server accepts: ``--token`` values, else ``GAA_A2A_TOKEN`` (comma-
    separated for several callers). Each must have at least 16 characters."""
    env = os.environ if environ is None else environ
    raw = list(given) or [part for part in re.split(r"[,\s]+", env.get(TOKEN_ENV, "")) if part]
    tokens = [token.strip() for token in raw if token.strip()]
    for token in tokens:
        if len(token) < MIN_TOKEN_CHARS:
            raise ExposureError(
                f"a token must have at least {MIN_TOKEN_CHARS} characters (one of {len(tokens)} "
                "given is shorter); make one with: python -c 'import secrets; "
                "print(secrets.token_urlsafe(32))'"
            )
    return tokens


def is_loopback(host: str) -> bool:
    """Whether ``host`` (a bind address or URL host) is this machine's loopback only."""
    name = host.strip("[]").casefold()
    if name in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_exposure(host: str, tokens: Sequence[str], command: str) -> None:
    """Refuse to listen beyond loopback without a token (one line saying what to do)."""
    if not tokens and not is_loopback(host):
        raise ExposureError(
            f"{command} refuses to listen on {host or 'all addresses'} without a token: anyone "
            f"who reaches it could use it. Give --token (or set {TOKEN_ENV}), or listen on "
            "127.0.0.1 (see docs/security.md)"
        )


def caller_name(token: str) -> str:
    """The caller identity a token stands for (not the token: it is never stored or logged)."""
    return "caller-" + hashlib.sha256(token.encode()).hexdigest()[:12]


def agent_card(
    name: str,
    description: str,
    url: str,
    skill_id: str,
    skill_name: str,
    examples: list[str],
    bearer: bool = False,
) -> AgentCard:
    """A card for one JSON-RPC agent at ``url`` with one skill, text in and out, streaming;
    with ``bearer`` it declares the bearer-token scheme every call needs.

    The endpoint is declared twice, as A2A 1.0 and as 0.3: a2a-sdk 0.3 clients reject a card
    without the 0.3 fields (``url``, ``protocolVersion``, ``preferredTransport``), and the
    SDK's card route writes those from the first 0.3 interface next to the 1.0 fields (the
    security scheme likewise: ``securitySchemes`` and ``security``/``securityRequirements``).
    Either client ignores the other's fields; a 1.x client picks the 1.0 interface whatever the
    order."""
    card = AgentCard(
        name=name,
        description=description,
        version=_version(),
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version=version)
            for version in (PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION)
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text"],
        default_output_modes=["text"],
        skills=[
            AgentSkill(
                id=skill_id,
                name=skill_name,
                description=description,
                tags=["medical", "dialogue", "gaa"],
                examples=examples,
            )
        ],
    )
    if bearer:
        card.security_schemes[BEARER_SCHEME].CopyFrom(
            SecurityScheme(
                http_auth_security_scheme=HTTPAuthSecurityScheme(
                    scheme="bearer",
                    description="The operator's token: Authorization: Bearer <token>",
                )
            )
        )
        requirement = SecurityRequirement()
        requirement.schemes[BEARER_SCHEME].CopyFrom(StringList())
        card.security_requirements.append(requirement)
    return card


class _Owner(User):
    """The owner of stored tasks, to drop one of them from the SDK's owner-scoped store."""

    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def is_authenticated(self) -> bool:
        return bool(self._name)

    @property
    def user_name(self) -> str:
        return self._name


def _kept_part(task: Task) -> Task:
    """What is stored of ``task``: all of it while it runs; once it has ended, everything but
    its history (the request it was made from, which nothing later needs)."""
    if task.status.state in _ENDED and task.history:
        kept = Task()
        kept.CopyFrom(task)
        kept.ClearField("history")
        return kept
    return task


class BoundedTaskStore(TaskStore):
    """The SDK's in-memory, owner-scoped task store, holding at most ``max_tasks`` tasks and
    ``max_bytes`` bytes of them (the oldest ended tasks go first; a running task is never
    dropped), with ended tasks stored without their history.

    Tasks are owned by the caller's identity (``context.user.user_name``): a caller reads,
    lists and cancels its own tasks only."""

    def __init__(self, max_tasks: int = MAX_TASKS_KEPT, max_bytes: int = MAX_TASK_BYTES) -> None:
        self._inner = InMemoryTaskStore(owner_resolver=resolve_user_scope)
        self.max_tasks = max_tasks
        self.max_bytes = max_bytes
        self._kept: OrderedDict[tuple[str, str], tuple[int, bool]] = OrderedDict()
        self.stored_bytes = 0

    @property
    def limit(self) -> int:
        return self.max_tasks

    def __len__(self) -> int:
        return len(self._kept)

    async def save(self, task: Task, context: ServerCallContext) -> None:
        kept = _kept_part(task)
        await self._inner.save(kept, context)
        key = (resolve_user_scope(context), task.id)
        size, _ = self._kept.pop(key, (0, False))
        self.stored_bytes -= size
        size = kept.ByteSize()
        self._kept[key] = (size, kept.status.state in _ENDED)
        self.stored_bytes += size
        for owner, task_id in self._over_limits(key):
            await self._inner.delete(task_id, ServerCallContext(user=_Owner(owner)))

    def _over_limits(self, newest: tuple[str, str]) -> list[tuple[str, str]]:
        """Forget the oldest ended tasks (never ``newest``) until both limits hold."""
        dropped: list[tuple[str, str]] = []
        candidates = iter(list(self._kept.items()))
        while len(self._kept) > self.max_tasks or self.stored_bytes > self.max_bytes:
            for key, (size, ended) in candidates:
                if ended and key != newest:
                    del self._kept[key]
                    self.stored_bytes -= size
                    dropped.append(key)
                    break
            else:
                break  # only running tasks (and the newest) are left
        return dropped

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        return await self._inner.get(task_id, context)

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        return await self._inner.list(params, context)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        await self._inner.delete(task_id, context)
        size, _ = self._kept.pop((resolve_user_scope(context), task_id), (0, False))
        self.stored_bytes -= size


class GuardedRequestHandler(DefaultRequestHandler):
    """The SDK's request handler, with ``ListTasks`` only for identified callers and errors
    inside the server reaching the client without their internal text."""

    async def on_list_tasks(
        self, params: ListTasksRequest, context: ServerCallContext
    ) -> ListTasksResponse:
        if not context.user.is_authenticated:
            raise UnsupportedOperationError(
                message="listing tasks needs a caller identity: this server runs without a "
                "token, so callers cannot be told apart (its operator enables listing with "
                "--token); get a task by its id instead"
            )
        return await _guarded(super().on_list_tasks(params, context))

    async def on_get_task(self, params: Any, context: ServerCallContext) -> Task | None:
        return await _guarded(super().on_get_task(params, context))

    async def on_cancel_task(self, params: Any, context: ServerCallContext) -> Task | None:
        return await _guarded(super().on_cancel_task(params, context))

    async def on_message_send(self, params: Any, context: ServerCallContext) -> Any:
        return await _guarded(super().on_message_send(params, context))

    async def on_message_send_stream(
        self, params: Any, context: ServerCallContext
    ) -> AsyncGenerator[Any]:
        async for event in _guarded_stream(super().on_message_send_stream(params, context)):
            yield event

    async def on_subscribe_to_task(
        self, params: Any, context: ServerCallContext
    ) -> AsyncGenerator[Any]:
        async for event in _guarded_stream(super().on_subscribe_to_task(params, context)):
            yield event


async def _guarded(call: Awaitable[_T]) -> _T:
    try:
        return await call
    except (SDKError, asyncio.CancelledError):
        raise
    except Exception:
        logger.exception("a request failed inside the server")
        raise InternalError(message=INTERNAL_ERROR) from None


async def _guarded_stream(events: AsyncIterator[Any]) -> AsyncIterator[Any]:
    try:
        async for event in events:
            yield event
    except (SDKError, asyncio.CancelledError):
        raise
    except Exception:
        logger.exception("a streamed request failed inside the server")
        raise InternalError(message=INTERNAL_ERROR) from None


class BearerTokens(AuthenticationBackend):
    """Every request but the agent card needs one of ``tokens`` as a bearer token; the
    caller's identity is its token's :func:`caller_name`."""

    def __init__(self, tokens: Sequence[str]) -> None:
        self._tokens = [(token.encode(), caller_name(token)) for token in tokens]

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        if conn.scope.get("method") in ("GET", "HEAD") and conn.url.path in _PUBLIC_PATHS:
            return None
        scheme, _, credentials = conn.headers.get("authorization", "").partition(" ")
        if scheme.casefold() != "bearer" or not credentials.strip():
            raise AuthenticationError(
                "this agent needs a bearer token: send Authorization: Bearer <token> (the agent "
                "card's securitySchemes says so)"
            )
        given = credentials.strip().encode()
        found = None
        for token, name in self._tokens:  # compare with every token: no timing hint
            if hmac.compare_digest(given, token):
                found = name
        if found is None:
            raise AuthenticationError("the bearer token is not one this agent accepts")
        return AuthCredentials(["authenticated"]), SimpleUser(found)


def _unauthorized(conn: HTTPConnection, exc: AuthenticationError) -> Response:
    return PlainTextResponse(str(exc), status_code=401, headers={"WWW-Authenticate": "Bearer"})


class RequestSizeLimit:
    """Answers 413 to a request whose body is larger than ``limit`` bytes, before any of it is
    parsed (the JSON-RPC route would read it whole)."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers", [])).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await self._refuse(send)
            return
        chunks: list[bytes] = []
        seen, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            chunks.append(chunk)
            seen += len(chunk)
            more = message.get("more_body", False)
            if seen > self.limit:
                await self._refuse(send)
                return
        body = b"".join(chunks)
        del chunks
        replayed = False

        async def replay() -> Message:
            nonlocal replayed, body
            if replayed:
                return await receive()
            replayed = True
            message: Message = {"type": "http.request", "body": body, "more_body": False}
            body = b""  # the app holds it now; this frame must not keep a copy alive
            return message

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        text = f"request larger than {self.limit} bytes".encode()
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(text))]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": text})


def a2a_app(
    executor: AgentExecutor,
    card: AgentCard,
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES,
    tokens: Sequence[str] = (),
    limits: ServerLimits | None = None,
) -> Starlette:
    """The agent card at ``/.well-known/agent-card.json`` (and the pre-0.3 ``agent.json``) and
    JSON-RPC at ``/`` (A2A 1.0, and 0.3 clients such as AgentBeats' on the same endpoint);
    request bodies are capped; with ``tokens`` every call but the card needs one of them."""
    limits = limits or ServerLimits(max_request_bytes=max_request_bytes)
    if tokens and not card.security_schemes:
        raise ValueError("a card for a server with tokens must declare the bearer scheme")
    store = BoundedTaskStore(limits.max_tasks, limits.max_task_bytes)
    handler = GuardedRequestHandler(agent_executor=executor, task_store=store, agent_card=card)
    routes = [
        *create_agent_card_routes(card, card_url=AGENT_CARD_WELL_KNOWN_PATH),
        *create_agent_card_routes(card, card_url=LEGACY_CARD_PATH),
        *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True),
    ]
    app = Starlette(routes=routes)
    app.state.task_store = store
    app.add_middleware(RequestSizeLimit, limit=limits.max_request_bytes)
    if tokens:  # outermost: an unauthenticated body is not even read
        app.add_middleware(
            AuthenticationMiddleware, backend=BearerTokens(tokens), on_error=_unauthorized
        )
    return app


def card_url(host: str, port: int, public_url: str | None) -> str:
    """The URL the card advertises: ``public_url`` if given (behind a proxy), else host:port."""
    if public_url:
        return public_url if public_url.endswith("/") else f"{public_url}/"
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"
    return f"http://{shown}:{port}/"


def guarded_protocol(request_timeout: float) -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol, closing a connection that has not delivered a whole request
    (headers and body) ``request_timeout`` seconds after it opened or after its previous
    response (uvicorn alone waits forever on a silent or trickling connection)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _request_timer: asyncio.TimerHandle | None = None

        def _arm(self) -> None:
            self._disarm()
            self._request_timer = self.loop.call_later(request_timeout, self._request_too_slow)

        def _disarm(self) -> None:
            if self._request_timer is not None:
                self._request_timer.cancel()
                self._request_timer = None

        def _request_too_slow(self) -> None:
            self._request_timer = None
            if self.conn.their_state is not h11.DONE and not self.transport.is_closing():
                client = f"{self.client[0]}:{self.client[1]}" if self.client else "a client"
                logger.info("closed %s: no whole request within %g s", client, request_timeout)
                self.transport.close()

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._arm()

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self.conn.their_state is h11.DONE:
                self._disarm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()
                if self.conn.their_state is h11.DONE:  # a pipelined request already in
                    self._disarm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedH11Protocol


def server_config(app: ASGIApp, host: str, port: int, limits: ServerLimits | None = None) -> Any:
    """The uvicorn configuration: ``limits``' timeouts and connection cap, h11 with the request
    timeout, and no access log."""
    import uvicorn

    limits = limits or ServerLimits()
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=guarded_protocol(limits.request_timeout),
        timeout_keep_alive=limits.keep_alive_timeout,
        limit_concurrency=limits.max_connections,
    )


def run(app: ASGIApp, host: str, port: int, limits: ServerLimits | None = None) -> None:
    """Serve ``app`` until interrupted (Ctrl-C or SIGTERM)."""
    import uvicorn

    uvicorn.Server(server_config(app, host, port, limits)).run()
