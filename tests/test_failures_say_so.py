"""Failures say what failed, where, and what to do, in one line; commands that ran nothing
exit non-zero."""

from __future__ import annotations

import stat
from pathlib import Path

import httpx
import openai
import pytest
from click.testing import CliRunner
from inspect_ai import eval

from gaa.cli import main
from gaa.dialogue.task import medical_dialogue
from gaa.errors import describe
from gaa.providers import local_check
from gaa.runs import RunFailed, check_completed, completed_samples


def _crashing_python(tmp_path: Path, signal_name: str) -> str:
    """A stand-in interpreter that dies by ``signal_name``, as a mis-built llama.cpp does."""
    script = tmp_path / "python"
    script.write_text(f"#!/bin/sh\nkill -{signal_name} $$\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


@pytest.mark.parametrize(("signal_name", "shown"), [("SEGV", "SIGSEGV"), ("ILL", "SIGILL")])
def test_a_crashing_embedded_model_is_explained_with_how_to_rebuild(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, signal_name: str, shown: str
) -> None:
    monkeypatch.setattr(local_check.sys, "executable", _crashing_python(tmp_path, signal_name))
    result = local_check.run_check("qwen2.5-0.5b")
    assert result.returncode < 0 and not result.ok
    message = local_check.explain("qwen2.5-0.5b", result)
    assert shown in message and "make clean-local install-local" in message
    assert "GGML_NATIVE=OFF" in message


def test_gaa_demo_checks_the_embedded_model_before_running_anything(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(local_check.sys, "executable", _crashing_python(tmp_path, "SEGV"))
    logs = tmp_path / "logs"
    result = CliRunner().invoke(
        main, ["demo", "--model", "gaa-local/qwen2.5-0.5b", "--log-dir", str(logs), "--report", ""]
    )
    assert result.exit_code == 1
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "SIGSEGV" in errors[0] and "rebuild" in errors[0]
    assert not logs.exists() or not any(logs.iterdir())  # nothing was run
    assert "Segmentation fault" not in result.output


def test_an_http_error_names_the_status_and_the_endpoint_in_one_line() -> None:
    request = httpx.Request("POST", "http://127.0.0.1:8000/v1/responses")
    response = httpx.Response(404, request=request, text="Not Found")
    error = openai.NotFoundError(
        "Error code: 404 - {'detail': 'Not Found'}\n(more lines)", response=response, body=None
    )
    text = describe(error)
    assert text.startswith("HTTP 404 from POST http://127.0.0.1:8000/v1/responses: NotFoundError")
    assert "\n" not in text
    assert describe(ValueError("plain")) == "ValueError: plain"


def test_a_doctor_that_fails_every_call_fails_the_run_naming_the_endpoint(
    tmp_path: Path,
) -> None:
    from inspect_ai.agent import agent

    from gaa.hookspecs import hookimpl
    from gaa.testing import plugin_registered

    @agent(name="not_found")
    def factory() -> object:
        async def execute(state: object) -> object:
            request = httpx.Request("POST", "http://127.0.0.1:9/v1/responses")
            raise openai.NotFoundError(
                "Error code: 404", response=httpx.Response(404, request=request), body=None
            )

        return execute

    class Plugin:
        @hookimpl
        def register_doctors(self, register: object) -> None:
            register("gone", factory, description="always 404")  # type: ignore[operator]

    with plugin_registered(Plugin(), "acme"):
        [log] = eval(
            medical_dialogue(
                doctor="acme/gone",
                personas="INTJ_M_PNEUMO",
                patient="scripted",
                judge="rules",
                doctor_retry_wait=0,
            ),
            model="none",
            log_dir=str(tmp_path),
            display="none",
        )
    assert completed_samples(log) == 0
    with pytest.raises(RunFailed) as caught:
        check_completed([log])
    message = str(caught.value)
    assert "HTTP 404 from POST http://127.0.0.1:9/v1/responses" in message
    assert "\n" not in message
