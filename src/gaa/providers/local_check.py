"""Does the embedded model load and answer on this machine? Asked in a child process.

llama.cpp is compiled when ``gaa[local]`` is installed. A build tuned for one CPU
(``-march=native``) can die with SIGILL or SIGSEGV on another, or under a hypervisor that hides
an instruction set it advertises; in-process that kills the whole run with a bare "Segmentation
fault". Asking a child process first turns the crash into a message that says what happened and
how to rebuild.

``python -m gaa.providers.local_check [model]`` runs the same check from a shell.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from dataclasses import dataclass

from gaa.errors import GAAError

CHECK_PROMPT = "Reply with one word: hello."
CHECK_TIMEOUT = 600.0
"""Loading assembles the weights once (about 500 MB) before the first answer."""
REBUILD_HINT = (
    "rebuild llama.cpp for any CPU of this kind with `make clean-local install-local` "
    "(LLAMA_BUILD=portable, the default), or by hand: "
    'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install --no-cache-dir --force-reinstall '
    "--no-deps llama-cpp-python"
)


class LocalModelCrash(GAAError):
    """The embedded model could not load or answer a one-line prompt on this machine."""


@dataclass(frozen=True)
class CheckResult:
    """What the child process reported: its reply, or how it ended."""

    reply: str
    returncode: int
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and bool(self.reply.strip())


def run_check(model: str, timeout: float = CHECK_TIMEOUT) -> CheckResult:
    """Load ``model`` (a ``gaa-local`` model name or a ``.gguf`` path) in a child process and
    ask it :data:`CHECK_PROMPT`."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "gaa.providers.local_check", model],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return CheckResult("", -1, f"no answer within {timeout:.0f} s")
    return CheckResult(done.stdout.strip(), done.returncode, done.stderr.strip())


def explain(model: str, result: CheckResult) -> str:
    """One message: what went wrong with ``model`` and what to do about it."""
    if result.returncode < 0:
        try:
            name = signal.Signals(-result.returncode).name
        except ValueError:
            name = f"signal {-result.returncode}"
        return (
            f"The embedded model gaa-local/{model} crashed ({name}) while answering a one-line "
            "test prompt. llama.cpp was most likely compiled with instructions this CPU cannot "
            f"run (a native build made on, or for, another machine): {REBUILD_HINT}."
        )
    last = result.stderr.splitlines()[-1] if result.stderr else "no reply and no error"
    return f"The embedded model gaa-local/{model} did not answer a one-line test prompt: {last}"


def ensure_local_model_works(model: str, timeout: float = CHECK_TIMEOUT) -> None:
    """Raise :class:`LocalModelCrash` with a useful message unless ``model`` answers."""
    result = run_check(model, timeout)
    if not result.ok:
        raise LocalModelCrash(explain(model, result))


def _answer(model: str) -> str:
    from gaa.providers.local import DEFAULT_CONTEXT, DEFAULT_THREADS, load_llama
    from gaa.providers.local_models import resolve_gguf

    path, spec = resolve_gguf(model)
    chat_format = spec.chat_format if spec else None
    llama = load_llama(path, min(DEFAULT_CONTEXT, 2048), chat_format, DEFAULT_THREADS)
    response = llama.create_chat_completion(
        messages=[{"role": "user", "content": CHECK_PROMPT}], max_tokens=8, temperature=0.0
    )
    return str(response["choices"][0]["message"].get("content") or "")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    from gaa.providers.local_models import DEFAULT_LOCAL_MODEL

    model = args[0] if args else DEFAULT_LOCAL_MODEL
    try:
        reply = _answer(model)
    except GAAError as exc:
        print(exc.message, file=sys.stderr)
        return 2
    print(reply.strip() or "(empty reply)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
