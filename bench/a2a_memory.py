"""The memory of ``gaa serve doctor`` under large requests: start the server (the scripted
reference doctor), send N consultations of about S bytes each (default 1,000 of ~1 MB), and
print the server's resident memory (RSS) before, at its peak and after, with what its task store
holds.

    .venv/bin/python bench/a2a_memory.py [--requests 1000] [--size 1000000] [--concurrency 4]

Before bounded task stores, 150 requests of 3.8 MB took the server from 114 to 687 MB and the
1,000-task cap projected ~3.7 GB; now an answered task keeps its reply, not its request.
"""

from __future__ import annotations

import argparse
import asyncio
import subprocess
import sys
import time

import httpx
import psutil  # type: ignore[import-untyped]
from a2a.client import ClientConfig, ClientFactory
from a2a.helpers.proto_helpers import new_text_message
from a2a.types.a2a_pb2 import Role, SendMessageRequest

from gaa.a2a.client import resolve_card
from gaa.a2a.layout import render_request
from gaa.plugins import catalogue
from gaa.testing import free_port

GAA = [sys.executable, "-m", "gaa"]


def request_text(size: int) -> str:
    entry = next(iter(catalogue().cases))
    filler = ("The patient describes the symptoms at length. " * (size // 46 + 1))[:size]
    return render_request(entry.item, entry.full_name, 60, "male", [("patient", filler)])


async def send_all(url: str, text: str, count: int, concurrency: int) -> int:
    slots = asyncio.Semaphore(concurrency)
    answered = 0
    async with httpx.AsyncClient(timeout=300) as http:
        card = await resolve_card(http, url)
        client = ClientFactory(ClientConfig(httpx_client=http, streaming=False)).create(card)

        async def one() -> None:
            nonlocal answered
            async with slots:
                message = new_text_message(text, role=Role.ROLE_USER)
                async for _ in client.send_message(SendMessageRequest(message=message)):
                    pass
                answered += 1

        await asyncio.gather(*(one() for _ in range(count)))
    return answered


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--size", type=int, default=950_000, help="characters of patient text")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [*GAA, "serve", "doctor", "--doctor", "reference/exemplary", "--port", str(port)],
        stdout=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                if httpx.get(url + "/.well-known/agent-card.json").status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline or server.poll() is not None:
                raise SystemExit("the doctor server did not start")
            time.sleep(0.2)
        proc = psutil.Process(server.pid)
        before = proc.memory_info().rss
        text = request_text(args.size)
        peak = [before, before]

        async def watch_and_send() -> int:
            async def watch() -> None:
                while True:
                    peak[1] = proc.memory_info().rss
                    peak[0] = max(peak[0], peak[1])
                    await asyncio.sleep(0.2)

            watcher = asyncio.create_task(watch())
            try:
                return await send_all(url, text, args.requests, args.concurrency)
            finally:
                watcher.cancel()

        started = time.monotonic()
        answered = asyncio.run(watch_and_send())
        seconds = time.monotonic() - started
        time.sleep(2)
        after = proc.memory_info().rss
        mb = 1024 * 1024
        print(
            f"{answered} requests of {len(text.encode()) / 1e6:.2f} MB in {seconds:.0f} s: "
            f"server RSS {before / mb:.0f} MB before, {peak[0] / mb:.0f} MB peak, "
            f"{after / mb:.0f} MB after"
        )
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
