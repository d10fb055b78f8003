"""Start-up: the ``gaa`` command and ``import gaa`` load Inspect only when something needs it,
and GAA's errors still print without a traceback under ``inspect eval``."""

from __future__ import annotations

import subprocess
import sys

import gaa


def run_python(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_command_line_and_the_package_do_not_import_inspect() -> None:
    loaded = run_python(
        "import sys, gaa, gaa.cli\n"
        "from click.testing import CliRunner\n"
        "result = CliRunner().invoke(gaa.cli.main, ['--help'])\n"
        "assert 'personas' in result.output, result.output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'inspect_ai'))"
    )
    assert loaded == "[]"


def test_listing_personas_and_plugins_does_not_import_inspect() -> None:
    loaded = run_python(
        "import sys, gaa.cli\n"
        "from click.testing import CliRunner\n"
        "for args in (['personas', 'all'], ['plugins'], ['personas', '--cases', 'all']):\n"
        "    result = CliRunner().invoke(gaa.cli.main, args)\n"
        "    assert result.exit_code == 0, result.output\n"
        "assert 'INTJ_M_PNEUMO' in CliRunner().invoke(gaa.cli.main, ['personas', 'all']).output\n"
        "assert 'example/devils_advocate' in CliRunner().invoke(gaa.cli.main, ['plugins']).output\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'inspect_ai'))"
    )
    assert loaded == "[]"


def test_public_names_are_never_shadowed_by_subpackages() -> None:
    """A name in ``gaa.__all__`` means the same object whichever module was imported first."""
    shadowed = run_python(
        "import types, gaa.judge_check.data, gaa.dialogue.task, gaa.qa, gaa.teamwork, gaa\n"
        "print([n for n in gaa.__all__ if isinstance(getattr(gaa, n), types.ModuleType)])"
    )
    assert shadowed == "[]"
    task = run_python(
        "import gaa.judge_check.data\n"
        "from gaa.judge_check import judge_check\n"
        "from gaa.judge_check.task import judge_check as defined\n"
        "print(judge_check is defined and callable(judge_check))"
    )
    assert task == "True"


def test_public_names_load_on_first_use() -> None:
    assert gaa.MBTI_TYPES[0] == "INTJ"
    assert callable(gaa.catalogue) and "catalogue" in dir(gaa)
    assert set(gaa.__all__) <= set(dir(gaa))
    try:
        gaa.no_such_name  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name must raise AttributeError")


def test_under_inspect_gaa_errors_are_inspect_prerequisite_errors() -> None:
    answer = run_python(
        "import inspect_ai\n"
        "from inspect_ai._util.error import PrerequisiteError\n"
        "from gaa.errors import PersonaError\n"
        "print(issubclass(PersonaError, PrerequisiteError))"
    )
    assert answer == "True"
