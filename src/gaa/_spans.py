"""Transcript spans that do not copy the sample's store.

Inspect's ``span()`` copies the whole store when a span begins and again when it ends, to log
what changed inside it. The dialogue's store holds the consultation so far, so
:func:`phase_span` opens the dialogue's, the patient constructor's and the teamwork phases'
spans with that tracking suspended: each costs two events and no copies. What the dialogue
writes to the store is logged once, by the enclosing span (the solver's), when it ends; spans
opened inside a phase record no store changes of their own.
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
    """A span named ``name`` that copies no store (its changes are the enclosing span's)."""
    with _suspended():
        async with span(name):
            yield
