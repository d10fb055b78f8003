"""A non-editable install of the wheel must carry the prompt library and case data."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

from gaa._builtins.cases import BUILTIN_CASES

REPO = Path(__file__).resolve().parents[1]

CHECK = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import gaa
    from gaa._resources import prompts_dir
    from gaa.personas import select_personas, mbti_prompt, gender_prompt

    package = Path(gaa.__file__).parent
    assert package.is_relative_to(sys.prefix), f"imported {package}, not the installed wheel"
    assert prompts_dir() == package / "prompts", prompts_dir()
    mbti = sorted(p.name for p in (package / "prompts" / "mbti").glob("*.txt"))
    assert all(mbti_prompt(name[:4].upper()) for name in mbti)
    assert gender_prompt("female")
    cases = sorted(entry.full_name for entry in gaa.catalogue().cases)
    print(len(mbti), len(select_personas("all")), ",".join(cases))
    """
)


@pytest.mark.slow
def test_wheel_in_a_fresh_venv_finds_prompts_and_cases(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "dist"),
            str(REPO),
        ],
        check=True,
    )
    [wheel] = (tmp_path / "dist").glob("gaa-*.whl")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "-q",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
    )
    # The fresh venv gets GAA's dependencies from this one, but not GAA itself.
    target = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    Path(target, "gaa_test_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")

    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["GAA_DISABLE_PLUGINS"] = "example"  # its editable source is not on this venv's path
    result = subprocess.run(
        [str(python), "-c", CHECK],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    library = ",".join(sorted(f"gaa/{name}" for name in BUILTIN_CASES))  # seed and library
    assert result.stdout.split() == ["16", "64", library]
