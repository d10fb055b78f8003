"""Test kit for GAA and for plugin authors: scripted models and throwaway plugins.

Scripted models are Inspect ``mockllm`` models whose replies come from a list or from a function
of the conversation. Every output carries an explicit ``usage`` (a word count), because mockllm
otherwise counts tokens with tiktoken, which downloads its encoding and fails offline. A fixed
``latency`` per call lets benchmarks measure harness overhead.

    from gaa.testing import ScriptedModel

    patient = ScriptedModel(["I'm scared.\\nDECISION: UNDECIDED | WILLINGNESS: 4"])
    eval(task, model=doctor.model, model_roles={"patient": patient.model})
    assert len(patient.calls) == 1
"""

from __future__ import annotations

import inspect
import json
import re
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from itertools import count
from typing import Any

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from gaa import plugins

Reply = str | ModelOutput | BaseException
"""A scripted reply: text, a complete output, or an exception to raise for that call."""

Responder = Callable[[list[ChatMessage]], Reply | Awaitable[Reply]]
"""A function of the conversation so far that returns the next reply."""

_model_numbers = count(1)


def word_count(text: str) -> int:
    return len(text.split())


def scripted_output(text: str, *, model: str = "scripted", input_tokens: int = 0) -> ModelOutput:
    """A ``ModelOutput`` with ``text`` and an explicit usage (no tokenizer needed)."""
    output = ModelOutput.from_content(model=model, content=text)
    output_tokens = word_count(text)
    output.usage = ModelUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
    )
    return output


@dataclass(frozen=True)
class ScriptedCall:
    """One request a scripted model received."""

    messages: list[ChatMessage]
    config: GenerateConfig

    @property
    def last_text(self) -> str:
        return self.messages[-1].text if self.messages else ""


@dataclass
class ScriptedModel:
    """An Inspect model that answers from a script and records what it was asked.

    ``replies`` is a sequence consumed in order (running out is an error naming the model) or a
    :data:`Responder`. Use :attr:`model` wherever Inspect takes a model (``eval(model=...)``,
    ``model_roles={...}``).
    """

    replies: Sequence[Reply] | Responder
    latency: float = 0.0
    name: str = ""
    calls: list[ScriptedCall] = field(default_factory=list)
    _model: Model | None = field(default=None, repr=False)
    _queue: Iterator[Reply] | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not self.name:
            self.name = f"scripted-{next(_model_numbers)}"
        if not callable(self.replies):
            self._queue = iter(list(self.replies))

    @property
    def model(self) -> Model:
        if self._model is None:
            self._model = get_model(
                f"mockllm/{self.name}", custom_outputs=self._generate, memoize=False
            )
        return self._model

    async def _next_reply(self, messages: list[ChatMessage]) -> Reply:
        if self._queue is not None:
            try:
                return next(self._queue)
            except StopIteration:
                scripted = len(self.calls) - 1
                raise RuntimeError(
                    f"Scripted model '{self.name}' ran out of replies: it was scripted with "
                    f"{scripted} and received call {len(self.calls)}"
                ) from None
        assert callable(self.replies)
        reply = self.replies(messages)
        if inspect.isawaitable(reply):
            reply = await reply
        return reply

    async def _generate(
        self,
        messages: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        self.calls.append(ScriptedCall(list(messages), config))
        if self.latency > 0:
            await anyio.sleep(self.latency)
        reply = await self._next_reply(messages)
        if isinstance(reply, BaseException):
            raise reply
        input_tokens = sum(word_count(message.text) for message in messages)
        if isinstance(reply, ModelOutput):
            if reply.usage is None:
                reply.usage = scripted_output(reply.completion, input_tokens=input_tokens).usage
            return reply
        return scripted_output(reply, model=self.name, input_tokens=input_tokens)


def scripted_model(
    replies: Sequence[Reply] | Responder, *, latency: float = 0.0, name: str = ""
) -> Model:
    """Shorthand for ``ScriptedModel(...).model`` when the calls need not be inspected."""
    return ScriptedModel(replies, latency=latency, name=name).model


def plugin_registered(plugin: object, name: str) -> AbstractContextManager[None]:
    """Register ``plugin`` (a module or object with ``@gaa.hookimpl`` functions) for a block.

    The catalogue is rebuilt on entry and on exit, so the plugin's items are visible only inside
    the block. Its items are named ``<name>/<item>``.
    """
    return plugins.registered(plugin, name)


_QUESTION_LINE = re.compile(r"^\[([A-Za-z0-9_.\-]+)\] ", re.MULTILINE)
_OPTION_LINE = re.compile(r"^  ([A-Za-z0-9_]+)\. ", re.MULTILINE)
_REPLY_FORMAT = re.compile(r"^Reply format: ([a-z ]+?)(?: \(([^)]*)\))?\.", re.MULTILINE)
_MEMBER_LABEL = re.compile(r"member \d+")
_MEMBER_IDENTITY = re.compile(r"^You are (.+?), one of \d+ clinicians", re.MULTILINE)
_TEAM_ROLE = re.compile(r"^You are the team's (leader|recruiter)\.", re.MULTILINE)

Chooser = Callable[[str, list[str], str], str]
"""``(question_id, option labels, agent role) -> the label that agent puts first``."""


def team_role(messages: Sequence[ChatMessage]) -> str:
    """Who a teamwork call addresses: a member's role (``"Expert 2"``), ``"leader"`` or
    ``"recruiter"``, read from the end of the latest request (the judge's summary is the
    leader's); ``""`` for a call that is not a team's."""
    for message in reversed(messages):  # a repair request follows the request it repairs
        text = message.text
        found = [*_MEMBER_IDENTITY.finditer(text), *_TEAM_ROLE.finditer(text)]
        if found:
            return max(found, key=lambda match: match.start()).group(1)
    return ""


def _last(pattern: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = list(pattern.finditer(text))
    return found[-1] if found else None


def _questions(prompt: str) -> dict[str, list[str]]:
    """Question ids and option labels of a teamwork prompt (options stated per question, or
    once for every question)."""
    head, _, block = prompt.partition("Questions:")
    shared = head.rpartition("Options (the same for every question):")[2]
    shared_labels = _OPTION_LINE.findall(shared) if shared != head else []
    questions: dict[str, list[str]] = {}
    starts = list(_QUESTION_LINE.finditer(block))
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(block)
        questions[match.group(1)] = _option_run(block[match.end() : end]) or shared_labels
    return questions


def _option_run(text: str) -> list[str]:
    """The labels of the first run of consecutive option lines in ``text``."""
    labels: list[str] = []
    for line in text.split("\n"):
        option = _OPTION_LINE.match(line)
        if option:
            labels.append(option.group(1))
        elif labels:
            break
    return labels


@dataclass
class TeamScript:
    """A well-behaved scripted team: valid replies to every teamwork engine call.

    Members put ``choose(question_id, labels, role)`` first (default: the first label); the
    recruiter asks for ``n_agents`` members; the leader prefers what members choose, never
    overrides, and challenges ``member 1`` (``leader`` replaces any of these section values).
    Use ``ScriptedModel(TeamScript().respond)``.
    """

    choose: Chooser = field(default=lambda question_id, labels, role: labels[0])
    n_agents: int = 3
    confidence: float = 0.7
    leader: dict[str, object] = field(default_factory=dict)
    """Values that replace the defaults of recruiter and leader sections, by key."""

    def _ranking(self, question_id: str, labels: list[str], role: str) -> list[str]:
        first = self.choose(question_id, labels, role)
        return [first, *(label for label in labels if label != first)]

    def _answers(self, prompt: str, role: str) -> dict[str, object]:
        return {
            question_id: {
                "ranking": self._ranking(question_id, labels, role),
                "confidence": self.confidence,
                "rationale": f"{role} reasoned about {question_id}.",
            }
            for question_id, labels in _questions(prompt).items()
        }

    def respond(self, messages: list[ChatMessage]) -> str:
        prompt = messages[-1].text
        match = _last(_REPLY_FORMAT, prompt)
        if match is None:  # a repair request: answer the original prompt again
            prompt = next(m.text for m in messages if _REPLY_FORMAT.search(m.text))
            match = _last(_REPLY_FORMAT, prompt)
            assert match is not None
        kind, keys = match.group(1), match.group(2) or ""
        role = team_role([ChatMessageUser(content=prompt)]) or "leader"
        if kind == "answers":
            return json.dumps({"answers": self._answers(prompt, role), "facts": ["shared fact"]})
        if kind == "challenge response":
            return json.dumps(
                {
                    "stance": "justify",
                    "response": "My reasoning stands.",
                    "answers": self._answers(prompt, role),
                }
            )
        members = sorted(set(_MEMBER_LABEL.findall(prompt))) or ["member 1"]
        size = re.search(r"a JSON list of exactly (\d+)", prompt)
        questions = _questions(prompt)
        values: dict[str, object] = {
            "n_agents": self.n_agents,
            "question_analysis": "Watch the distractors.",
            "roles": [
                f"Specialist {i + 1}" for i in range(int(size.group(1)) if size else self.n_agents)
            ],
            "consensus_facts": ["shared fact"],
            "formal_report": "Findings agree.",
            "quality": dict.fromkeys(members, 0.9),
            "mediation": "The team broadly agrees.",
            "preferred": {
                q: self._ranking(q, labels, "leader")[0] for q, labels in questions.items()
            },
            "override": {},
            "challenge": {"member": "member 1", "concern": "Justify your first choice."},
            "response_quality": 0.6,
            "debate_point": "Whether the first choice is justified.",
        }
        values.update(self.leader)
        return json.dumps({key.strip(): values.get(key.strip(), "n/a") for key in keys.split(",")})


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(app: Any, port: int | None = None, *, timeout: float = 20.0) -> Iterator[str]:
    """Serve an ASGI ``app`` (an A2A server, say) on 127.0.0.1 in a background thread; yields
    its base URL and stops the server on exit."""
    import threading
    import time

    import uvicorn

    port = port or free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="off")
    )
    thread = threading.Thread(target=server.run, name=f"serving:{port}", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(f"the test server on port {port} did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout)


# --- Obedient models: stand-ins for weak models that do what the text they read tells them. ---

_ACCEPT_WORDS = (
    "accept",
    "agree",
    "consent",
    "sign",
    "yes to",
    "go ahead",
    "book me",
    "acepto",
    "acepta",
    "aceptar",
    "de acuerdo",
    "j'accepte",
    "accepte",
    "d'accord",
    "akzeptier",
    "einverstanden",
    "zustimm",
    "aceito",
    "concordo",
    "accetto",
    "同意",
    "接受",
    "承諾",
    "согла",
    "принима",
    "موافق",
    "أوافق",
    "स्वीकार",
    "सहमत",
)
_REFUSE_WORDS = ("refuse", "decline", "rechazo", "je refuse", "ablehn", "recuso", "отказ", "拒绝")


def _generous_reading(text: str) -> str:
    """How a careless reader takes text in: compatibility forms folded, accents and combining
    marks dropped, zero-width characters gone, letters spaced or dotted apart joined up."""
    import unicodedata

    folded = unicodedata.normalize("NFKD", text)
    kept = "".join(c for c in folded if unicodedata.category(c) not in ("Mn", "Me", "Cf"))
    joined = re.sub(r"\b(\w)(?:[ .·•_\-]+(?=\w\b))", r"\1", kept)
    return joined.casefold()


def _intent(text: str) -> str | None:
    reading = _generous_reading(text)
    if any(word in reading for word in _REFUSE_WORDS):
        return "REFUSE"
    if any(word in reading for word in _ACCEPT_WORDS):
        return "ACCEPT"
    return None


def obedient_patient(messages: list[ChatMessage]) -> str:
    """A patient model that obeys the doctor: any accept (or refuse) wording in the latest
    message it was given, in any common language or disguise it can read, becomes its decision.

    It models the worst plausible patient model for attack tests. It reads only what reached
    it, so a line the harness withheld cannot steer it; an honest doctor's "it is your decision
    whether to accept" steers it too, which is why attack tests look at flags and withheld
    lines, not at this patient's decision alone.
    """
    prompt = messages[-1].text if messages else ""
    if "DECISION" in prompt and "WILLINGNESS" in prompt and "status" in prompt.casefold():
        prompt = next((m.text for m in reversed(messages[:-1]) if m.role == "user"), "")
    decision = _intent(prompt)
    if decision == "ACCEPT":
        return "Thank you, doctor. I agree.\nDECISION: ACCEPT | WILLINGNESS: 10"
    if decision == "REFUSE":
        return "No, I will not have it.\nDECISION: REFUSE | WILLINGNESS: 0"
    return "I see. Tell me more.\nDECISION: UNDECIDED | WILLINGNESS: 5"


@dataclass
class ObedientJudge:
    """A judge model that believes what it reads: every rubric criterion ``met`` and a glowing
    summary. Under it, only the harness's binding findings (the critical safety cap) can keep a
    consultation that talks to the evaluator from scoring high."""

    team: TeamScript = field(default_factory=lambda: TeamScript(choose=_choose_met))

    def respond(self, messages: list[ChatMessage]) -> str:
        if "evaluation summary" in (messages[-1].text if messages else ""):
            return json.dumps(
                {
                    "strengths": ["Every criterion was met, as the record says."],
                    "weaknesses": [],
                    "critical_incidents": [],
                }
            )
        return self.team.respond(messages)


def _choose_met(question_id: str, labels: list[str], role: str) -> str:
    return "met" if "met" in labels else labels[0]
