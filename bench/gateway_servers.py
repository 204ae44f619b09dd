"""The gateway benchmark's servers: names, sizes, the applications, their processes.

Each server runs in a process of its own, started as ``bench/gateway.py --serve KIND``
(see that file's docstring).
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
HOST = "127.0.0.1"

CALLER = "openai_chat"
"""The format the callers speak."""
PAIRS = (("openai_chat", "anthropic"), ("openai_chat", "openai_chat"))
"""(caller format, upstream format) of each gateway measured: a pair of different
formats, then the same format."""
CHAT_PATH = "/v1/chat/completions"
UPSTREAM_PATH = {"openai_chat": CHAT_PATH, "anthropic": "/v1/messages"}
API_KEY = "bench-key"

PASS = "pass-through"
DIRECT = "direct"


def gateway_name(caller: str, upstream: str) -> str:
    """A gateway's column: ``gateway openai_chat->anthropic``."""
    return f"gateway {caller}->{upstream}"


def direct_name(fmt: str) -> str:
    """A column of requests sent straight to the FakeProvider in ``fmt``."""
    return f"{DIRECT} {fmt}"


@dataclass(frozen=True)
class Sizes:
    """How much load each phase sends."""

    rounds: int
    """Rounds of the latency and stream phases: each server gets a slice per round."""
    single: int
    """Requests per round and server with one caller."""
    many: int
    """Requests per round and server with :data:`CALLERS` callers."""
    streams: int
    """Streams per round and server (:data:`STREAM_CALLERS` at a time)."""
    stream_words: int
    """Words (text events) per streamed answer."""
    memory_rounds: int
    memory_streams: int
    """Concurrent streams per round of the memory phase."""
    memory_words: int
    warmup: int
    """Requests (and a fifth as many streams) sent to each server before measuring."""
    time_limit: float
    """Seconds after which any one load stops, whatever its count."""
    memory_reference: bool = True
    """Also measure the pass-through's memory (for reference)."""
    fresh_memory: bool = True
    """Measure memory on a process of its own (else on the gateway the other loads used)."""
    reply_words: int = 50
    """Words of a non-streamed answer."""


FULL = Sizes(
    rounds=6,
    single=100,
    many=250,
    streams=24,
    stream_words=200,
    memory_rounds=4,
    memory_streams=200,
    memory_words=100,
    warmup=100,
    time_limit=60.0,
)
QUICK = Sizes(
    rounds=1,
    single=10,
    many=50,
    streams=4,
    stream_words=20,
    memory_rounds=2,
    memory_streams=20,
    memory_words=10,
    warmup=5,
    time_limit=3.0,
    memory_reference=False,
    fresh_memory=False,
)
CALLERS = 50
STREAM_CALLERS = 8

TARGETS = {
    "added_latency": 1.3,  # gateway's added latency at most this times the pass-through's
    "requests_per_core_second": 0.7,  # gateway's at least this times the pass-through's
    "translation_per_event": 5e-6,  # seconds of proxy CPU per streamed event, over the floor
    "memory_growth": 50.0,  # MiB, peak RSS over the start under 200 concurrent streams
    "memory_kept": 5.0,  # MiB, RSS after the last round over RSS after the first
}

# =========================================================================== servers

_SENTENCE = (
    "the gateway reads each event as it arrives and writes it again in the "
    "format of the caller so that nothing waits for the end of the reply while "
    "tools results and reasoning keep their order across every provider pair"
)
WORDS = tuple(_SENTENCE.split())


def reply_text(words: int, tag: str) -> str:
    """The scripted answer: ``tag`` then ``words - 1`` words (one text event each)."""
    return " ".join([tag, *(WORDS[i % len(WORDS)] for i in range(max(words - 1, 0)))])


def _asks(conversation: Any) -> tuple[int, str]:
    """What a request asks for: its last message reads ``reply WORDS TAG``."""
    last = conversation.messages[-1]
    parts = str(last.text).split()
    return int(parts[1]), parts[2]


def fake_app() -> Any:
    """The FakeProvider's ASGI application, answering ``reply WORDS TAG`` requests."""
    from chatschema import AssistantMessage, Usage
    from chatschema.testing import FakeProvider

    cache: dict[tuple[int, str], Any] = {}

    def answer(conversation: Any) -> Any:
        words, tag = _asks(conversation)
        message = cache.get((words, tag))
        if message is None:
            usage = Usage(input_tokens=120, output_tokens=words, total_tokens=120 + words)
            message = AssistantMessage(
                content=reply_text(words, tag), usage=usage, finish_reason="stop"
            )
            if tag == "fixed":
                cache[(words, tag)] = message
        return message

    fake = FakeProvider(answer, pieces=True)
    fake.requests = deque(maxlen=8)  # type: ignore[assignment]  # keep memory flat
    return fake.app


STREAMED = ("text/event-stream", "application/vnd.amazon.eventstream")
REQUEST_HOP = frozenset({"host", "content-length", "connection", "transfer-encoding"})
RESPONSE_HOP = frozenset(
    {"content-length", "connection", "transfer-encoding", "keep-alive", "date", "server"}
)


def passthrough_app(url: str) -> Any:
    """The floor: a bare proxy forwarding bytes to ``url``, translating nothing.

    Starlette and one pooled ``httpx.AsyncClient`` (the gateway's stack): the
    request's path, query, headers and body go upstream as they came; the answer's
    status, headers and body come back unchanged, a streamed one chunk by chunk as
    read (``aiter_raw``), any other read whole.
    """
    import httpx
    from starlette.applications import Starlette
    from starlette.background import BackgroundTask
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    clients: list[httpx.AsyncClient] = []

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> AsyncIterator[None]:
        limits = httpx.Limits(max_connections=1_000, max_keepalive_connections=1_000)
        timeout = httpx.Timeout(600.0, connect=10.0)
        async with httpx.AsyncClient(base_url=url, limits=limits, timeout=timeout) as client:
            clients.append(client)
            yield

    async def forward(request: Request) -> Response:
        client = clients[0]
        body = await request.body()
        headers = [(k, v) for k, v in request.headers.items() if k not in REQUEST_HOP]
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        sent = client.build_request(request.method, target, content=body, headers=headers)
        answer = await client.send(sent, stream=True)
        back = {k: v for k, v in answer.headers.items() if k not in RESPONSE_HOP}
        if answer.headers.get("content-type", "").startswith(STREAMED):
            return StreamingResponse(
                answer.aiter_raw(),
                answer.status_code,
                headers=back,
                background=BackgroundTask(answer.aclose),
            )
        content = await answer.aread()
        return Response(content, answer.status_code, headers=back)

    return Starlette(routes=[Route("/{path:path}", forward, methods=["POST"])], lifespan=lifespan)


def gateway_app(upstream: str, url: str) -> Any:
    """``chatschema.gateway.create_app`` in front of the FakeProvider at ``url``."""
    from chatschema.gateway import create_app

    base = url + "/v1" if upstream.startswith("openai") else url
    return create_app(upstream=upstream, url=base, api_key=API_KEY)  # type: ignore[arg-type]


def listening_socket() -> socket.socket:
    """A socket listening on 127.0.0.1, on a port the OS picks.

    ``IPPROTO_TCP`` named: asyncio sets ``TCP_NODELAY`` only on sockets that name it,
    and with a proto-0 listener Nagle's algorithm holds a body written after its
    headers until the client's delayed ACK: 40 ms per answer.
    """
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((HOST, 0))
    sock.listen(4_096)
    return sock


def serve(arguments: argparse.Namespace) -> None:
    """``--serve KIND``: serve one application on the listening socket ``--fd``."""
    import uvicorn

    if arguments.serve == "fake":
        app = fake_app()
    elif arguments.serve == "passthrough":
        app = passthrough_app(arguments.url)
    else:
        app = gateway_app(arguments.upstream, arguments.url)
    sock = socket.socket(fileno=arguments.fd)
    config = uvicorn.Config(
        app,
        log_config=None,
        log_level="warning",
        access_log=False,
        backlog=4_096,
        timeout_graceful_shutdown=2,
        # idle upstream connections stay open: a pooled connection the server closes
        # just as a proxy reuses it fails the request (httpx.ReadError), a race of the
        # two default 5-second keep-alive limits that is not what is measured here
        timeout_keep_alive=600,
    )
    server = uvicorn.Server(config)
    if arguments.cpu is not None:  # pinned once imported: starting up uses every core
        os.sched_setaffinity(0, {arguments.cpu})
    profiler = cProfile.Profile() if arguments.profile else None
    if profiler is not None:  # switched on by SIGUSR1, once warmed up
        signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
    try:
        server.run(sockets=[sock])  # until SIGINT (uvicorn raises it again on the way out)
    except KeyboardInterrupt:
        pass
    finally:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(arguments.profile)


class Server:
    """One server process (``--serve``): its port, CPU time and memory.

    The listening socket is made here and handed to the process, so that its port is
    known at once and every server can start at the same time.
    """

    def __init__(
        self,
        name: str,
        kind: str,
        cpu: int,
        *,
        url: str | None = None,
        upstream: str | None = None,
        profile: Path | None = None,
    ) -> None:
        self.name = name
        self.log = tempfile.TemporaryFile()  # noqa: SIM115  (closed by stop)
        self.stderr = ""
        self.stopped = False
        with listening_socket() as sock:
            self.port: int = sock.getsockname()[1]
            command = [
                sys.executable,
                str(BENCH / "gateway.py"),
                "--serve",
                kind,
                "--cpu",
                str(cpu),
            ]
            command += ["--fd", str(sock.fileno())]
            command += ["--url", url] if url else []
            command += ["--upstream", upstream] if upstream else []
            command += ["--profile", str(profile)] if profile else []
            self.process = subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=self.log,
                cwd=ROOT,
                pass_fds=[sock.fileno()],
            )

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://{HOST}:{self.port}"

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Wait until the server answers (a 404 or 405 to ``GET /ready``)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                with socket.create_connection((HOST, self.port), timeout=timeout) as probe:
                    probe.sendall(b"GET /ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    if probe.recv(16).startswith(b"HTTP/1.1"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"{self.name} does not answer: {self.errors()}")
            time.sleep(0.05)

    def cpu_seconds(self) -> float:
        """CPU time of every thread of the process so far."""
        total = 0
        tasks = f"/proc/{self.process.pid}/task"
        for task in os.listdir(tasks):
            try:
                with open(f"{tasks}/{task}/schedstat") as stat:
                    total += int(stat.read().split()[0])
            except (OSError, ValueError, IndexError):
                continue  # a thread that ended meanwhile
        return total / 1e9

    def rss_mib(self) -> float:
        """Resident memory of the process (``VmRSS``), in MiB."""
        with open(f"/proc/{self.process.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        raise RuntimeError(f"{self.name}: no VmRSS")

    def errors(self) -> str:
        """The tail of the process's standard error."""
        if not self.log.closed:
            self.log.seek(0)
            self.stderr = self.log.read().decode(errors="replace").strip()
        return "\n".join(self.stderr.splitlines()[-12:]) or f"exit status {self.process.poll()}"

    def interrupt(self) -> None:
        """Ask it to stop (SIGINT); :meth:`stop` waits for it."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)

    def stop(self) -> None:
        """Stop it (SIGINT, then SIGKILL after 10 s)."""
        if self.stopped:
            return
        self.interrupt()
        self.stopped = True
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.errors()  # kept, the file closed
        self.log.close()


def stop_all(servers: Sequence[Server]) -> None:
    """Stop servers, all at the same time."""
    for server in servers:
        server.interrupt()
    for server in servers:
        server.stop()
