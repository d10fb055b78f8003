"""The A2A servers' defaults (docs/security.md), apart from the SDK so the CLI can show them
without importing it."""

DEFAULT_MAX_REQUEST_BYTES = 4_000_000
"""A doctor request holds the whole dialogue: 20 rounds of 20,000-character turns fit."""
MAX_TASKS_KEPT = 1_000
MAX_TASK_BYTES = 64_000_000
"""Bytes of stored tasks (their serialized size) kept at most, across all callers."""
DEFAULT_KEEP_ALIVE_TIMEOUT = 5
"""Seconds an idle keep-alive connection stays open (uvicorn's default)."""
DEFAULT_REQUEST_TIMEOUT = 30.0
"""Seconds a connection has to deliver a whole request (headers and body)."""
DEFAULT_MAX_CONNECTIONS = 128
"""Connections and requests served at once (uvicorn's ``limit_concurrency``); more get 503."""
TOKEN_ENV = "GAA_A2A_TOKEN"
"""The server's bearer token(s), when ``--token`` is not given (several: comma-separated)."""
