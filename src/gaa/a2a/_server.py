"""What GAA's two A2A servers share: the agent card, the Starlette app and the uvicorn run."""

from __future__ import annotations

from a2a.server.agent_execution import AgentExecutor
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore
from a2a.types.a2a_pb2 import AgentCapabilities, AgentCard, AgentInterface, AgentSkill
from starlette.applications import Starlette

PROTOCOL_VERSION = "1.0"


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("gaa")
    except PackageNotFoundError:
        return "0"


def agent_card(
    name: str, description: str, url: str, skill_id: str, skill_name: str, examples: list[str]
) -> AgentCard:
    """A card for one JSON-RPC agent at ``url`` with one skill, text in and out, streaming."""
    return AgentCard(
        name=name,
        description=description,
        version=_version(),
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version=PROTOCOL_VERSION)
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


def a2a_app(executor: AgentExecutor, card: AgentCard) -> Starlette:
    """The agent card at ``/.well-known/agent-card.json`` and JSON-RPC at ``/`` (A2A 1.0, and
    0.3 clients such as AgentBeats' on the same endpoint)."""
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = [
        *create_agent_card_routes(card),
        *create_jsonrpc_routes(handler, "/", enable_v0_3_compat=True),
    ]
    return Starlette(routes=routes)


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
