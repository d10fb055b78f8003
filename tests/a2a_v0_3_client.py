"""A client written against a2a-sdk 0.3, the way AgentBeats' agents and tutorial client are.

It runs in a venv of its own holding a2a-sdk 0.3 (GAA's venv has 1.x, whose API differs), made
and run by ``tests/test_a2a_v0_3_clients.py``: GAA's servers must be usable by such clients
as they are, card first. It reads a job as JSON on stdin::

    {"doctor": URL, "green": URL, "doctor_request": TEXT, "eval_request": {...}}

resolves both agent cards, sends the doctor request (without and with streaming) and the
EvalRequest (streaming, as AgentBeats' runner does), and writes what came back as JSON on
stdout; the test makes the assertions.
"""

from __future__ import annotations

import asyncio
import json
import sys
from importlib.metadata import version
from typing import Any
from uuid import uuid4

import httpx
from a2a.client import A2ACardResolver, ClientConfig, ClientFactory
from a2a.types import (
    AgentCard,
    DataPart,
    Message,
    Part,
    Role,
    TaskStatusUpdateEvent,
    TextPart,
)

TIMEOUT = 300.0


def _message(text: str) -> Message:
    return Message(
        kind="message",
        role=Role.user,
        parts=[Part(root=TextPart(kind="text", text=text))],
        message_id=uuid4().hex,
        context_id=uuid4().hex,
    )


def _text(parts: list[Part]) -> str:
    return "\n".join(part.root.text for part in parts if isinstance(part.root, TextPart))


def _data(parts: list[Part]) -> list[Any]:
    return [part.root.data for part in parts if isinstance(part.root, DataPart)]


async def _card(http: httpx.AsyncClient, url: str) -> AgentCard:
    """The card as 0.3's resolver reads it: this is where a 1.0-only card was refused."""
    return await A2ACardResolver(httpx_client=http, base_url=url).get_agent_card()


async def _send(
    http: httpx.AsyncClient, card: AgentCard, text: str, streaming: bool
) -> dict[str, Any]:
    """Send ``text`` to the agent of ``card``; the final task's state, its artifacts and every
    status text seen on the way."""
    client = ClientFactory(ClientConfig(httpx_client=http, streaming=streaming)).create(card)
    statuses: list[str] = []
    outcome: dict[str, Any] = {"kind": None}
    async for event in client.send_message(_message(text)):
        if isinstance(event, Message):
            outcome = {"kind": "message", "text": _text(event.parts)}
            continue
        task, update = event
        if isinstance(update, TaskStatusUpdateEvent) and update.status.message:
            statuses.append(_text(update.status.message.parts))
        outcome = {
            "kind": "task",
            "state": task.status.state.value,
            "status_text": _text(task.status.message.parts) if task.status.message else "",
            "artifacts": [
                {"name": a.name, "text": _text(a.parts), "data": _data(a.parts)}
                for a in task.artifacts or []
            ],
        }
    return {**outcome, "statuses": statuses}


async def main(job: dict[str, Any]) -> dict[str, Any]:
    async with httpx.AsyncClient(timeout=TIMEOUT) as http:
        doctor = await _card(http, job["doctor"])
        green = await _card(http, job["green"])
        request = job["doctor_request"]
        return {
            "sdk": version("a2a-sdk"),
            "cards": {
                name: card.model_dump(mode="json", exclude_none=True)
                for name, card in (("doctor", doctor), ("green", green))
            },
            "doctor": await _send(http, doctor, request, streaming=False),
            "doctor_streamed": await _send(http, doctor, request, streaming=True),
            "green": await _send(http, green, json.dumps(job["eval_request"]), streaming=True),
        }


if __name__ == "__main__":
    json.dump(asyncio.run(main(json.load(sys.stdin))), sys.stdout)
