"""Transcript spans that do not copy the sample's store.

Inspect's ``span()`` copies the whole store when a span begins and again when it ends, to log
what changed inside it. The dialogue's store holds the consultation so far, and the teamwork
phases and the patient constructor never write to it: :func:`phase_span` opens their spans
with store tracking suspended, so each costs two events and no copies. An enclosing span
(the solver's, the scorer's) still records the net change of the store once.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from inspect_ai.util import span


def _suspended() -> contextlib.AbstractContextManager[None]:
    try:  # not public API in Inspect (inspect_swarm uses it too); without it, spans copy
        from inspect_ai.util._store import suspend_store_events
    except ImportError:  # pragma: no cover - depends on the installed Inspect
        return contextlib.nullcontext()
    suspend: contextlib.AbstractContextManager[None] = suspend_store_events()
    return suspend


@contextlib.asynccontextmanager
async def phase_span(name: str) -> AsyncIterator[None]:
    """A span named ``name`` for a phase that writes nothing to the store."""
    with _suspended():
        async with span(name):
            yield
