"""Prompt and generation speed of the installed llama.cpp build, for comparing builds.

Standalone (it imports only ``llama_cpp``), so it runs under any interpreter that has a build::

    .venv/bin/python bench/llama_build_speed.py ~/.cache/gaa/models/<model>.gguf
    /path/to/other-venv/bin/python bench/llama_build_speed.py <same gguf>

Prints tokens per second for reading a fixed ~1,000-token prompt and for generating 128 tokens,
median of ``--tries`` runs, greedy, 2 threads.
"""

from __future__ import annotations

import argparse
import statistics
import time

PROMPT = " ".join(
    f"Point {i}: the patient asks about recovery, pain and returning to work after the operation."
    for i in range(60)
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("gguf")
    parser.add_argument("--tries", type=int, default=3)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()
    from llama_cpp import Llama

    llama = Llama(model_path=args.gguf, n_ctx=4096, n_threads=args.threads, verbose=False)
    tokens = llama.tokenize(PROMPT.encode())
    prompt_speeds, generation_speeds = [], []
    for _ in range(args.tries):
        llama.reset()
        started = time.perf_counter()
        llama.eval(tokens)
        prompt_speeds.append(len(tokens) / (time.perf_counter() - started))
        started = time.perf_counter()
        for _ in range(128):
            llama.eval([llama.sample(temp=0.0)])
        generation_speeds.append(128 / (time.perf_counter() - started))
    print(
        f"prompt {len(tokens)} tokens: {statistics.median(prompt_speeds):.0f} tok/s; "
        f"generation 128 tokens: {statistics.median(generation_speeds):.1f} tok/s "
        f"(median of {args.tries}, {args.threads} threads)"
    )


if __name__ == "__main__":
    main()
