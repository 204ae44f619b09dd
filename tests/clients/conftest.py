"""The official clients against recorded traffic, with no network.

Each test hands the official client (``openai``, ``anthropic``, ``google-genai``) an
HTTP client whose transport is a :class:`Wire`: a recorded server that answers every
request with a recorded body (responses whole, streams cut into small pieces) and keeps
what the client sent. The autouse fixture :func:`no_network` makes any connection to
anything but the loopback address raise :class:`EscapedRequest`, so a request that
bypassed the transport fails the test instead of reaching a provider.
"""

from __future__ import annotations

import json
import socket
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

TRAFFIC = Path(__file__).resolve().parent.parent / "traffic"
HOST = "chatschema.test"
"""The host every test client is pointed at (a reserved name that never resolves)."""
PIECE = 7
"""Stream bodies are served in pieces of this many bytes: cut mid-line, mid-character."""
_LOOPBACK = frozenset({"127.0.0.1", "::1", "localhost"})


class EscapedRequest(RuntimeError):
    """A connection was attempted to somewhere other than the loopback address."""


@pytest.fixture(autouse=True)
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Refuse every connection and name lookup that is not for the loopback address."""
    real_connect = socket.socket.connect
    real_connect_ex = socket.socket.connect_ex
    real_getaddrinfo = socket.getaddrinfo

    def _refuse(address: Any) -> None:
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and host not in _LOOPBACK:
            raise EscapedRequest(f"a test tried to connect to {address!r}")

    def connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _refuse(address)
        real_connect(self, address)

    def connect_ex(self: socket.socket, address: Any) -> int:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            _refuse(address)
        return real_connect_ex(self, address)

    def getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if name is not None:
            _refuse(name)
        return real_getaddrinfo(host, *args, **kwargs)

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def exchange(fmt: str, name: str) -> dict[str, Any]:
    """A recorded exchange of ``tests/traffic/<fmt>/<name>.json`` (provenance there)."""
    path = TRAFFIC / fmt / f"{name}.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


@dataclass(frozen=True)
class Reply:
    """A recorded body and its media type."""

    body: bytes
    content_type: str

    @classmethod
    def of(cls, recorded: dict[str, Any]) -> Reply:
        """The reply of a recorded exchange: its JSON response or its SSE stream."""
        if "stream" in recorded:
            return cls(recorded["stream"].encode(), "text/event-stream")
        return cls(json.dumps(recorded["response"]).encode(), "application/json")

    @property
    def streamed(self) -> bool:
        """Whether the body is an event stream (served in pieces)."""
        return self.content_type == "text/event-stream"


@dataclass(frozen=True)
class Sent:
    """One request as the client put it on the wire."""

    method: str
    host: str
    path: str
    query: str
    headers: dict[str, str]
    body: bytes

    @property
    def json(self) -> Any:
        """The body, parsed (key order kept)."""
        return json.loads(self.body)


@dataclass
class Wire:
    """A recorded server behind an HTTP mock transport.

    Every request is kept in :attr:`sent` and answered with :attr:`reply` (the same
    recorded body each time). Clients made by the methods below talk only to it.
    """

    reply: Reply
    sent: list[Sent] = field(default_factory=list)

    def _keep(self, method: str, url: Any, headers: Any, body: bytes) -> None:
        if url.host != HOST:
            raise EscapedRequest(f"a request for {url} reached the mock transport")
        self.sent.append(
            Sent(method, url.host, url.path, url.query.decode(), dict(headers.items()), body)
        )

    def _pieces(self) -> Iterator[bytes]:
        size = PIECE if self.reply.streamed else len(self.reply.body) or 1
        body = self.reply.body
        for start in range(0, len(body), size):
            yield body[start : start + size]

    async def _apieces(self) -> AsyncIterator[bytes]:
        for piece in self._pieces():
            yield piece

    def _headers(self) -> dict[str, str]:
        return {"content-type": self.reply.content_type}

    def httpx_client(self) -> httpx.Client:
        """An ``httpx.Client`` (openai, google-genai) served by this wire."""

        def handle(request: httpx.Request) -> httpx.Response:
            self._keep(request.method, request.url, request.headers, request.read())
            return httpx.Response(200, headers=self._headers(), content=self._pieces())

        return httpx.Client(transport=httpx.MockTransport(handle))

    def httpx_async_client(self) -> httpx.AsyncClient:
        """An ``httpx.AsyncClient`` (AsyncOpenAI, google-genai's ``aio``) served by this wire."""

        async def handle(request: httpx.Request) -> httpx.Response:
            self._keep(request.method, request.url, request.headers, await request.aread())
            return httpx.Response(200, headers=self._headers(), content=self._apieces())

        return httpx.AsyncClient(transport=httpx.MockTransport(handle))

    def httpx2_client(self) -> httpx2.Client:
        """An ``httpx2.Client`` (the anthropic SDK builds on httpx2) served by this wire."""

        def handle(request: httpx2.Request) -> httpx2.Response:
            self._keep(request.method, request.url, request.headers, request.read())
            return httpx2.Response(200, headers=self._headers(), content=self._pieces())

        return httpx2.Client(transport=httpx2.MockTransport(handle))

    def httpx2_async_client(self) -> httpx2.AsyncClient:
        """An ``httpx2.AsyncClient`` (AsyncAnthropic) served by this wire."""

        async def handle(request: httpx2.Request) -> httpx2.Response:
            self._keep(request.method, request.url, request.headers, await request.aread())
            return httpx2.Response(200, headers=self._headers(), content=self._apieces())

        return httpx2.AsyncClient(transport=httpx2.MockTransport(handle))

    def only(self) -> Sent:
        """The one request sent so far (fails when there were none or several)."""
        assert len(self.sent) == 1, f"{len(self.sent)} requests reached the wire"
        return self.sent[0]


def as_sent(kwargs: dict[str, Any]) -> Any:
    """Keyword arguments as a JSON body carries them."""
    return json.loads(json.dumps(kwargs))


def assert_body(sent: Sent, kwargs: dict[str, Any], history: str) -> None:
    """The client sent exactly ``kwargs`` as its JSON body, and the history (the
    ``history`` key) byte for byte: the body holds ``"<history>":`` followed by the
    compact UTF-8 JSON of ``kwargs[history]`` (how openai and anthropic serialize)."""
    body = sent.json
    assert body == as_sent(kwargs), sorted(set(body) ^ set(kwargs))
    exact = json.dumps({history: kwargs[history]}, ensure_ascii=False, separators=(",", ":"))
    assert exact[1:-1].encode() in sent.body


MODES = ("sync", "async")
"""Each test runs once with the sync client and once with the async one."""


def names(exchanges: Sequence[str]) -> list[Any]:
    """``pytest.param`` per exchange name, with the name as id."""
    return [pytest.param(name, id=name.split(".", 1)[-1][:60]) for name in exchanges]


def without_nulls(value: Any) -> Any:
    """JSON with every ``null`` member left out: what chatschema reads of an SDK object
    (``model_dump(exclude_none=True)``, ``providers/_common/reader.py``)."""
    if isinstance(value, dict):
        return {key: without_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [without_nulls(item) for item in value]
    return value


def sse_events(stream: str) -> list[Any]:
    """The JSON events of a recorded server-sent-events body (``[DONE]`` left out)."""
    events = []
    for line in stream.splitlines():
        if line.startswith("data:") and line[5:].strip() != "[DONE]":
            events.append(json.loads(line[5:]))
    return events
