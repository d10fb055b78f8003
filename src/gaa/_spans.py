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
import logging
from collections.abc import AsyncIterator, Callable
from functools import cache

from inspect_ai.util import span

logger = logging.getLogger(__name__)


@cache
def _suspend_store_events() -> Callable[[], contextlib.AbstractContextManager[None]] | None:
    try:  # not public API in Inspect (inspect_swarm uses it too)
        from inspect_ai.util._store import suspend_store_events
    except ImportError:
        logger.info(
            "This Inspect has no suspend_store_events: GAA's phase spans copy the sample store "
            "(slower; the log holds the same consultation)"
        )
        return None
    found: Callable[[], contextlib.AbstractContextManager[None]] = suspend_store_events
    return found


def _suspended() -> contextlib.AbstractContextManager[None]:
    suspend = _suspend_store_events()
    return contextlib.nullcontext() if suspend is None else suspend()


@contextlib.asynccontextmanager
async def phase_span(name: str) -> AsyncIterator[None]:
    """A span named ``name`` that copies no store (its changes are the enclosing span's)."""
    with _suspended():
        async with span(name):
            yield
