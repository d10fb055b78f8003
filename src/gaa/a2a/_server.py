"""What GAA's two A2A servers share: the agent card, the Starlette app and the uvicorn run."""

from __future__ import annotations

from a2a.server.agent_execution import AgentExecutor
from a2a.server.context import ServerCallContext
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill, Task
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.applications import Starlette
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PROTOCOL_VERSION = "1.0"
LEGACY_PROTOCOL_VERSION = "0.3.0"
"""The A2A version of a2a-sdk 0.3 clients (AgentBeats' agents and tutorials), which the
JSON-RPC endpoint also answers."""
LEGACY_CARD_PATH = "/.well-known/agent.json"
"""Where clients before A2A 0.3 look for the card; a2a-sdk 0.3's own servers serve it there
too."""
DEFAULT_MAX_REQUEST_BYTES = 4_000_000
"""A doctor request holds the whole dialogue: 20 rounds of 20,000-character turns fit."""
MAX_TASKS_KEPT = 1_000


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gaa")
    except PackageNotFoundError:
        return "0"


def agent_card(
    name: str, description: str, url: str, skill_id: str, skill_name: str, examples: list[str]
) -> AgentCard:
    """A card for one JSON-RPC agent at ``url`` with one skill, text in and out, streaming.

    The endpoint is declared twice, as A2A 1.0 and as 0.3: a2a-sdk 0.3 clients reject a card
    without the 0.3 fields (``url``, ``protocolVersion``, ``preferredTransport``), and the
    SDK's card route writes those from the first 0.3 interface next to the 1.0 fields. Either
    client ignores the other's fields; a 1.x client picks the 1.0 interface whatever the
    order."""
    return AgentCard(
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


class BoundedTaskStore(InMemoryTaskStore):
    """The in-memory task store, keeping the newest ``limit`` tasks: a server that runs for
    weeks must not keep every consultation it ever answered."""

    def __init__(self, limit: int = MAX_TASKS_KEPT) -> None:
        super().__init__()
        self.limit = limit

    async def save(self, task: Task, context: ServerCallContext) -> None:
        await super().save(task, context)
        store = self._impl
        with store.lock:
            for tasks in store.tasks.values():
                while len(tasks) > self.limit:
                    del tasks[next(iter(tasks))]


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
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                await self._refuse(send)
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send) -> None:
        text = f"request larger than {self.limit} bytes".encode()
        headers = [(b"content-type", b"text/plain"), (b"content-length", b"%d" % len(text))]
        await send({"type": "http.response.start", "status": 413, "headers": headers})
        await send({"type": "http.response.body", "body": text})


def a2a_app(
    executor: AgentExecutor, card: AgentCard, max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
) -> Starlette:
    """The agent card at ``/.well-known/agent-card.json`` (and the pre-0.3 ``agent.json``) and
    JSON-RPC at ``/`` (A2A 1.0, and 0.3 clients such as AgentBeats' on the same endpoint);
    request bodies are capped."""
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=BoundedTaskStore(), agent_card=card
    )
    routes = [
        *create_agent_card_routes(card, card_url=AGENT_CARD_WELL_KNOWN_PATH),
        *create_agent_card_routes(card, card_url=LEGACY_CARD_PATH),
        *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(RequestSizeLimit, limit=max_request_bytes)
    return app


def card_url(host: str, port: int, public_url: str | None) -> str:
    """The URL the card advertises: ``public_url`` if given (behind a proxy), else host:port."""
    if public_url:
        return public_url if public_url.endswith("/") else f"{public_url}/"
    shown = "127.0.0.1" if host in ("0.0.0.0", "") else host
    return f"http://{shown}:{port}/"


def run(app: Starlette, host: str, port: int) -> None:
    """Serve ``app`` until interrupted (Ctrl-C or SIGTERM)."""
    import uvicorn

    uvicorn.run(app, host=host, port=port, log_level="warning")
