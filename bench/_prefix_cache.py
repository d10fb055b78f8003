"""Token counting and a simulated provider prefix cache for the cost bench.

A judge call is tokenized with a real tokenizer (the embedded Qwen2.5 model's vocabulary when
``gaa[local]`` is installed, else four characters a token, labelled as an estimate). The cache
works as providers' automatic prompt caches do: a prompt's prefix is served from cache in
whole blocks of :data:`BLOCK` tokens, from :data:`MIN_CACHED` tokens up, when an earlier call
sent the same prefix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ChatMessage

BLOCK = 128
MIN_CACHED = 1024


def tokenizer() -> tuple[str, Callable[[str], list[int]]]:
    """(name, text -> token ids): Qwen2.5's BPE vocabulary if available, else an estimate."""
    try:
        import llama_cpp

        from gaa.providers.local_models import resolve_gguf

        path, _ = resolve_gguf("qwen2.5-0.5b")
        vocab: Any = llama_cpp.Llama(str(path), vocab_only=True, verbose=False)
    except Exception:  # not installed: estimate
        return "estimate (4 characters a token)", _estimate
    return "Qwen2.5 BPE", lambda text: list(vocab.tokenize(text.encode(), False, True))


def _estimate(text: str) -> list[int]:
    return [hash(text[i : i + 4]) for i in range(0, len(text), 4)]


def rendered(messages: Sequence[ChatMessage]) -> str:
    """The prompt as a chat template lays it out (role, content, in order)."""
    return "".join(f"<|{m.role}|>\n{m.text}\n" for m in messages)


def block_chain(tokens: list[int]) -> list[int]:
    """Hash of every whole-block prefix: ``chain[k]`` stands for ``tokens[: (k + 1) * BLOCK]``."""
    chain, previous = [], 0
    for start in range(0, len(tokens) - BLOCK + 1, BLOCK):
        previous = hash((previous, tuple(tokens[start : start + BLOCK])))
        chain.append(previous)
    return chain


@dataclass
class PrefixCache:
    """Prefixes seen so far, as a provider's cache would hold them."""

    seen: set[int] = field(default_factory=set)

    def read(self, tokens: list[int]) -> int:
        """Tokens of ``tokens`` served from cache; the prompt's prefixes are cached after."""
        chain = block_chain(tokens)
        cached = 0
        for k, key in enumerate(chain):
            if key not in self.seen:
                break
            cached = (k + 1) * BLOCK
        self.seen.update(chain)
        return cached if cached >= MIN_CACHED else 0


@dataclass
class CallTokens:
    group: str
    """The persona (sample) the call belongs to."""
    chain: list[int]
    tokens: int


def shared_prefix_tokens(calls: Sequence[CallTokens], *, across_groups: bool) -> int:
    """Tokens of all calls lying in a whole-block prefix that another call also sends
    (``across_groups``: a call of another persona), whatever the order of the calls."""
    owners: dict[int, set[str]] = {}
    counts: dict[int, int] = {}
    for call in calls:
        for key in call.chain:
            groups = owners.setdefault(key, set())
            if len(groups) < 2:
                groups.add(call.group)
            counts[key] = counts.get(key, 0) + 1
    shared = 0
    for call in calls:
        length = 0
        for k, key in enumerate(call.chain):
            ok = len(owners[key] - {call.group}) > 0 if across_groups else counts[key] > 1
            if not ok:
                break
            length = (k + 1) * BLOCK
        shared += length
    return shared
