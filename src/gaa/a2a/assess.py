"""Send an EvalRequest to an A2A assessor (``gaa serve green``) and collect its EvalResult."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import httpx
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import get_data_parts, get_message_text, new_text_message
from a2a.types.a2a_pb2 import Artifact, Role, SendMessageRequest
from a2a.types.a2a_pb2 import TaskState as A2ATaskState

from gaa.a2a.client import bearer_headers, call_failed, resolve_card
from gaa.errors import A2AError
from gaa.models import EvalRequest, EvalResult

_FAILED = {
    A2ATaskState.TASK_STATE_FAILED: "failed",
    A2ATaskState.TASK_STATE_REJECTED: "was rejected",
    A2ATaskState.TASK_STATE_CANCELED: "was cancelled",
}


def _result_of(artifact: Artifact) -> EvalResult | None:
    for data in get_data_parts(artifact.parts):
        if isinstance(data, dict) and "assessment_id" in data:
            return EvalResult.model_validate(data)
    for part in artifact.parts:
        if part.text.lstrip().startswith("{"):
            try:
                return EvalResult.model_validate(json.loads(part.text))
            except ValueError:
                continue
    return None


async def send_assessment(
    green_url: str,
    request: EvalRequest,
    on_status: Callable[[str], None] = lambda text: None,
    timeout: float | None = None,
    token: str | None = None,
) -> EvalResult:
    """Send ``request`` to the assessor at ``green_url`` (with the bearer ``token``, if any);
    ``on_status`` gets each status text.

    Raises :class:`A2AError` if the assessment fails (with the assessor's reason)."""
    try:
        return await _send(green_url, request, on_status, timeout, token)
    except A2AError:
        raise
    except Exception as exc:
        hint = "give it with the scenario's token_env (or GAA_A2A_TOKEN)"
        raise call_failed("the assessor", green_url, exc, hint) from exc


async def _send(
    green_url: str,
    request: EvalRequest,
    on_status: Callable[[str], None],
    timeout: float | None,
    token: str | None,
) -> EvalResult:
    payload: dict[str, Any] = request.model_dump(mode="json")
    http_timeout = httpx.Timeout(timeout, connect=10.0)
    async with httpx.AsyncClient(timeout=http_timeout, headers=bearer_headers(token)) as http:
        card = await resolve_card(http, green_url)
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=True)).create(card)
        message = new_text_message(json.dumps(payload), role=Role.ROLE_USER)
        result: EvalResult | None = None
        async for event in client.send_message(SendMessageRequest(message=message)):
            kind = event.WhichOneof("payload")
            status = None
            if kind == "status_update":
                status = event.status_update.status
            elif kind == "task":
                status = event.task.status
                for artifact in event.task.artifacts:
                    result = _result_of(artifact) or result
            elif kind == "artifact_update":
                result = _result_of(event.artifact_update.artifact) or result
            if status is None:
                continue
            text = get_message_text(status.message).strip() if status.HasField("message") else ""
            if text:
                on_status(text)
            if status.state in _FAILED:
                raise A2AError(f"the assessment {_FAILED[status.state]}: {text or 'no reason'}")
    if result is None:
        raise A2AError(f"the assessor at {green_url} finished without an EvalResult")
    return result
