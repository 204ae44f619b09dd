"""The gateway benchmark's load generator: requests, and a raw asyncio HTTP/1.1 client."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gateway_servers import (
    API_KEY,
    CALLER,
    HOST,
    Server,
)

# ==================================================================== load generator


def chat_body(words: int, tag: str = "fixed", *, stream: bool = False) -> dict[str, Any]:
    """The OpenAI Chat request every caller sends: a short conversation and a tool."""
    history = [
        ("user", "Where is the configuration read from, and what overrides it?"),
        (
            "assistant",
            "From settings.toml in the working directory; environment variables "
            "prefixed APP_ override any key, and command-line flags override both.",
        ),
        ("user", "Show me how a flag overrides a key, briefly."),
        (
            "assistant",
            "Run `app --set log.level=debug`: the flag wins over APP_LOG_LEVEL and "
            "over log.level in settings.toml, for that run only.",
        ),
    ]
    body: dict[str, Any] = {
        "model": "bench-model",
        "max_tokens": 1_024,
        "messages": [
            {
                "role": "system",
                "content": "You are a careful assistant for a command-line tool. Answer "
                "briefly, quote file names exactly, and call read_file when you need to "
                "see a file before answering.",
            },
            *({"role": role, "content": text} for role, text in history),
            {"role": "user", "content": f"reply {words} {tag}"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "read_file",
                    "description": "Read a text file of the project.",
                    "parameters": {
                        "type": "object",
                        "properties": {"path": {"type": "string"}},
                        "required": ["path"],
                    },
                },
            }
        ],
    }
    if stream:
        body["stream"] = True
        body["stream_options"] = {"include_usage": True}
    return body


def upstream_body(fmt: str, words: int, *, stream: bool = False) -> dict[str, Any]:
    """The same request in ``fmt`` (for the direct rows), written by chatschema's codecs."""
    from chatschema.providers import get_http_codec

    body = chat_body(words, stream=stream)
    if fmt == CALLER:
        return body
    conversation = get_http_codec(CALLER).decode_conversation(body)
    encoded = dict(get_http_codec(fmt).encode(conversation))
    if stream:
        encoded["stream"] = True
    return encoded


def http_request(port: int, path: str, body: dict[str, Any], fmt: str) -> bytes:
    """An HTTP/1.1 request, bytes on the wire."""
    data = json.dumps(body).encode()
    auth = (
        f"x-api-key: {API_KEY}\r\nanthropic-version: 2023-06-01\r\n"
        if fmt == "anthropic"
        else f"Authorization: Bearer {API_KEY}\r\n"
    )
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Type: application/json\r\n"
        f"{auth}Content-Length: {len(data)}\r\n\r\n"
    )
    return head.encode() + data


@dataclass
class Answer:
    """One answer: status, seconds to its first body byte and to its end, its body."""

    status: int
    first: float
    end: float
    body: bytes


class Connection:
    """A keep-alive HTTP/1.1 connection (asyncio streams): one caller."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    @classmethod
    async def open(cls, port: int) -> Connection:
        """Connect to 127.0.0.1:``port``."""
        reader, writer = await asyncio.open_connection(HOST, port, limit=1 << 20)
        return cls(reader, writer)

    async def call(self, request: bytes, keep: bool) -> Answer:
        """Send one request; read the whole answer (``Content-Length`` or chunked)."""
        clock = time.perf_counter
        start = clock()
        self.writer.write(request)
        reader = self.reader
        status_line = await reader.readline()
        if not status_line:
            raise ConnectionError("the server closed the connection")
        status = int(status_line.split()[1])
        length: int | None = None
        chunked = False
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
        parts: list[bytes] = []
        first = 0.0
        if length is not None:
            parts.append(await reader.readexactly(length))
            first = clock()
        elif chunked:
            while True:
                size = int((await reader.readline()).split(b";")[0], 16)
                if size == 0:
                    while (await reader.readline()) not in (b"\r\n", b""):
                        pass  # trailers
                    break
                chunk = await reader.readexactly(size + 2)
                if not first:
                    first = clock()
                if keep or status != 200:
                    parts.append(chunk[:-2])
        else:
            raise ConnectionError("an answer without Content-Length or chunked encoding")
        end = clock()
        return Answer(status, (first or end) - start, end - start, b"".join(parts))

    def close(self) -> None:
        """Close the connection."""
        self.writer.close()


@dataclass
class Load:
    """One load's outcome."""

    latencies: list[float] = field(default_factory=list)
    firsts: list[float] = field(default_factory=list)
    wall: float = 0.0
    cpu: float = 0.0
    """CPU seconds the measured server spent during the load."""
    errors: list[str] = field(default_factory=list)
    bodies: list[tuple[str, bytes]] = field(default_factory=list)
    """(tag, body) of each answer, when kept."""

    def extend(self, other: Load) -> None:
        """Add another slice of the same load."""
        self.latencies += other.latencies
        self.firsts += other.firsts
        self.wall += other.wall
        self.cpu += other.cpu
        self.errors += other.errors
        self.bodies += other.bodies


async def run_load(
    port: int,
    requests: Callable[[int], tuple[str, bytes]],
    callers: int,
    count: int,
    time_limit: float,
    measured: Server | None,
    *,
    keep: bool = False,
    during: Callable[[], None] | None = None,
) -> Load:
    """``count`` requests from ``callers`` callers, each on its own connection.

    ``requests(n)`` gives the n-th request's tag and bytes. Stops at ``count`` or
    after ``time_limit`` seconds (then the requests under way finish); a load that
    still runs 30 s later is cut. ``during`` is called every 20 ms while it runs.
    """
    connections = [await Connection.open(port) for _ in range(callers)]
    load = Load()
    issued = 0
    clock = time.perf_counter
    stop = clock() + time_limit

    async def caller(connection: Connection) -> None:
        nonlocal issued
        while issued < count and clock() < stop:
            tag, request = requests(issued)
            issued += 1
            try:
                answer = await connection.call(request, keep)
            except (OSError, ValueError, IndexError, asyncio.IncompleteReadError) as error:
                load.errors.append(f"{type(error).__name__}: {error}")
                return
            if answer.status != 200:
                load.errors.append(f"HTTP {answer.status}: {answer.body[:300]!r}")
                continue
            load.latencies.append(answer.end)
            load.firsts.append(answer.first)
            if keep:
                load.bodies.append((tag, answer.body))

    async def watch() -> None:
        while during is not None:
            during()
            await asyncio.sleep(0.02)

    cpu = measured.cpu_seconds() if measured else 0.0
    started = clock()
    watcher = asyncio.ensure_future(watch())
    try:
        await asyncio.wait_for(asyncio.gather(*(caller(c) for c in connections)), time_limit + 30.0)
    except asyncio.TimeoutError:
        load.errors.append(f"the load was cut {time_limit + 30:.0f} s after it started")
    finally:
        watcher.cancel()
        load.wall = clock() - started
        load.cpu = (measured.cpu_seconds() - cpu) if measured else 0.0
        for connection in connections:
            connection.close()
    return load


def fixed(request: bytes) -> Callable[[int], tuple[str, bytes]]:
    """Requests for :func:`run_load`: the same one every time."""
    return lambda number: ("fixed", request)


def chat_text(body: bytes, streamed: bool) -> str:
    """The assistant's text in an OpenAI Chat answer (a body or a stream)."""
    if not streamed:
        return str(json.loads(body)["choices"][0]["message"]["content"])
    text = []
    for event in body.split(b"\n\n"):
        for line in event.splitlines():
            if not line.startswith(b"data:") or line[5:].strip() == b"[DONE]":
                continue
            for choice in json.loads(line[5:]).get("choices", []):
                text.append(choice.get("delta", {}).get("content") or "")
    return "".join(text)
