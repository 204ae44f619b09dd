"""Async stream decoding: every codec's ``decode_stream`` over async sources.

For every recorded stream of the corpus, an async source (an async generator of
events, the raw SSE body in async pieces cut anywhere, the official SDKs' async
stream objects built over a mock transport) gives exactly the chunks the sync path
gives; errors are the same ``ConversionError``; a source the decoder stops reading
early is closed, on both paths. Plain tests run their coroutines with
``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import copy
import itertools
import json
import random
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from contextlib import aclosing
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
import recorded
from anthropic import Anthropic, AsyncAnthropic
from anthropic import AsyncStream as AnthropicAsyncStream
from google import genai
from google.genai import types as genai_types
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import AsyncOpenAI, AsyncStream, OpenAI
from providers.anthropic.test_stream import MALFORMED as ANTHROPIC_MALFORMED
from providers.gemini.test_stream import MALFORMED as GEMINI_MALFORMED
from providers.openai_chat.test_stream import MALFORMED as CHAT_MALFORMED
from providers.openai_responses.test_stream import MALFORMED as RESPONSES_MALFORMED
from providers.openai_responses.test_stream import RESPONSES, stream_of

from chatschema import (
    AssistantMessageChunk,
    ChunkAccumulator,
    amerge_chunks,
    merge_chunks,
    to_dict,
)
from chatschema.errors import ConversionError
from chatschema.limits import MAX_DEPTH
from chatschema.providers import PROVIDERS, get_codec, get_http_codec
from chatschema.providers._codec import HTTP_PROVIDERS
from chatschema.providers._common.drive import drive, is_async, pushed
from chatschema.providers._common.respond import pushed_writer
from chatschema.providers._common.sse import SSEParser, aiter_sse, astream_events, iter_sse

PAYLOADS = Path(__file__).parent / "payloads"
FORMATS = ("openai_chat", "openai_responses", "anthropic", "gemini")


# ------------------------------------------------------------------ the corpus


def _events(source: Path | list[Any]) -> list[Any]:
    """A stream's events: ``source`` itself, or read from a payload file (a list of
    events, or ``{"events": [...]}``; an absent recorded file: the test skips)."""
    if not isinstance(source, Path):
        return source
    data = recorded.load(source, shared=True)
    events: list[Any] = data if isinstance(data, list) else data["events"]
    return events


class Corpus(Mapping[str, tuple[str, list[Any]]]):
    """``name -> (format, events)``; the payload files are read on use, so that one not
    materialized is a skipped test (tests/recorded.py)."""

    def __init__(self, sources: dict[str, tuple[str, Path | list[Any]]]) -> None:
        self.sources = sources

    def __getitem__(self, key: str) -> tuple[str, list[Any]]:
        fmt, source = self.sources[key]
        return fmt, _events(source)

    def __iter__(self) -> Iterator[str]:
        return iter(self.sources)

    def __len__(self) -> int:
        return len(self.sources)

    def format(self, key: str) -> str:
        """The format of ``key``'s stream, without reading it."""
        return self.sources[key][0]


def _corpus() -> Corpus:
    """Every recorded stream, and the Responses streams its stream tests build."""
    streams: dict[str, tuple[str, Path | list[Any]]] = {
        f"{fmt}/{path.stem}": (fmt, path)
        for fmt in FORMATS
        for path in recorded.listing(PAYLOADS / fmt, "stream_*.json")
    }
    for name, final in RESPONSES.items():
        streams[f"openai_responses/built_{name}"] = ("openai_responses", stream_of(final))
    return Corpus(streams)


CORPUS = _corpus()
IDS = sorted(CORPUS)


# A stream of several events per format, for the tests that need one.
SAMPLE = {
    "openai_chat": "openai_chat/stream_text_usage",
    "openai_responses": "openai_responses/stream_reasoning_haiku",
    "anthropic": "anthropic/stream_text",
    "gemini": "gemini/stream_text_usage",
}


def test_the_corpus_holds_every_format() -> None:
    assert {CORPUS.format(key) for key in CORPUS} == set(FORMATS)
    assert len(CORPUS) >= 30


# ------------------------------------------------------------------ helpers


def fingerprint(chunks: Iterable[AssistantMessageChunk]) -> list[Any]:
    """What makes two chunks the same: class, every value, and which fields are set."""
    return [
        (type(chunk), chunk.model_dump(), chunk.model_dump(exclude_unset=True)) for chunk in chunks
    ]


def error_of(error: BaseException) -> Any:
    """What makes two errors the same."""
    assert isinstance(error, ConversionError), repr(error)
    return (type(error), str(error), error.provider, error.problems)


def sync_outcome(fmt: str, source: Iterable[Any]) -> tuple[list[Any], Any]:
    """The chunks the sync path yields, and the error it ends with (or None)."""
    chunks: list[AssistantMessageChunk] = []
    try:
        for chunk in get_codec(fmt).decode_stream(source):
            chunks.append(chunk)
    except ConversionError as error:
        return fingerprint(chunks), error_of(error)
    return fingerprint(chunks), None


async def async_outcome(fmt: str, source: Any) -> tuple[list[Any], Any]:
    """The same for an async source; ``decode_stream`` must give an async generator."""
    stream = get_codec(fmt).decode_stream(source)
    assert hasattr(stream, "__anext__") and hasattr(stream, "aclose")
    chunks: list[AssistantMessageChunk] = []
    try:
        async for chunk in stream:
            chunks.append(chunk)
    except ConversionError as error:
        return fingerprint(chunks), error_of(error)
    return fingerprint(chunks), None


async def agen(items: Iterable[Any], *, pause: bool = True) -> AsyncIterator[Any]:
    """An async generator of ``items``, giving the event loop a turn before each."""
    for item in items:
        if pause:
            await asyncio.sleep(0)
        yield item


def sse(fmt: str, events: list[Any]) -> bytes:
    """The raw body each API sends: Anthropic and Responses name their events, Chat
    ends with ``[DONE]``, Gemini separates events with CR LF (its ``?alt=sse`` body)."""
    out = []
    for event in events:
        data = json.dumps(event, ensure_ascii=False)
        if fmt in ("anthropic", "openai_responses"):
            out.append(f"event: {event['type']}\ndata: {data}\n\n")
        elif fmt == "gemini":
            out.append(f"data: {data}\r\n\r\n")
        else:
            out.append(f"data: {data}\n\n")
    if fmt == "openai_chat":
        out.append("data: [DONE]\n\n")
    return "".join(out).encode()


def cut(body: bytes, points: Iterable[int]) -> list[bytes]:
    """``body`` cut at ``points``."""
    bounds = [0, *sorted(set(points)), len(body)]
    return [body[a:b] for a, b in itertools.pairwise(bounds) if b > a]


def cuts_of(body: bytes, seed: str) -> list[list[bytes]]:
    """Ways to cut a body: random places, inside every multi-byte UTF-8 character,
    between every CR and LF, every byte alone, and whole."""
    rng = random.Random(seed)
    inside = [i for i, byte in enumerate(body) if 0x80 <= byte < 0xC0]  # continuation bytes
    crlf = [i + 1 for i in range(len(body) - 1) if body[i : i + 2] == b"\r\n"]
    randomly = rng.sample(range(1, len(body)), min(len(body) - 1, 40))
    return [
        cut(body, randomly + inside[::2] + crlf[::3]),
        cut(body, inside + crlf),
        cut(body, range(1, len(body))),
        [body],
    ]


def text_pieces(body: bytes, seed: str) -> list[str]:
    """The body as text pieces cut at random characters (what ``aiter_text()`` gives)."""
    text = body.decode()
    rng = random.Random(seed)
    return [
        text[a:b]
        for a, b in itertools.pairwise(
            [0, *sorted(rng.sample(range(1, len(text)), min(len(text) - 1, 30))), len(text)]
        )
    ]


# ======================================================== same chunks, async


@pytest.mark.parametrize("key", IDS)
def test_an_async_generator_of_events_gives_the_sync_chunks(key: str) -> None:
    fmt, events = CORPUS[key]
    want = sync_outcome(fmt, copy.deepcopy(events))
    assert want[0] and want[1] is None
    got = asyncio.run(async_outcome(fmt, agen(copy.deepcopy(events))))
    assert got == want
    assert asyncio.run(async_outcome(fmt, agen(copy.deepcopy(events), pause=False))) == want


@pytest.mark.parametrize("key", IDS)
def test_a_pushed_decoder_gives_the_sync_chunks(key: str) -> None:
    """``pushed(decode_stream)`` (the gateway's relay) fed the events in batches of any
    size gives what the sync generator yields."""
    fmt, events = CORPUS[key]
    want = sync_outcome(fmt, copy.deepcopy(events))
    rng = random.Random(key)
    for sizes in ([1], [len(events) or 1], [rng.randint(1, 5) for _ in range(len(events))]):
        decoder = pushed(get_codec(fmt).decode_stream)
        chunks: list[AssistantMessageChunk] = []
        remaining = copy.deepcopy(events)
        for size in itertools.cycle(sizes):
            if not remaining or decoder.stopped:
                break
            batch, remaining = remaining[:size], remaining[size:]
            chunks += decoder.feed(batch)
        chunks += decoder.end()
        assert (fingerprint(chunks), None) == want


@pytest.mark.parametrize("key", [key for key in IDS if CORPUS.format(key) in HTTP_PROVIDERS])
def test_a_pushed_writer_gives_the_frames_of_encode_stream(key: str) -> None:
    """``pushed_writer(encode_stream)`` fed the chunks in batches writes the same bytes."""
    fmt, events = CORPUS[key]
    chunks = list(get_codec(fmt).decode_stream(copy.deepcopy(events)))
    for target in HTTP_PROVIDERS:
        codec = get_http_codec(target)
        options = {"unsupported": "drop", "id_seed": key, "created": 1}
        try:
            want: Any = b"".join(codec.encode_stream(chunks, sse=True, **options))
        except ConversionError as error:  # (a stream the target cannot say: the same error)
            want = error_of(error)
        writer = pushed_writer(codec.encode_stream, sse=True, **options)
        try:
            frames = [*writer.feed(chunks[:1]), *writer.feed(chunks[1:3])]
            got: Any = b"".join([*frames, *writer.feed(chunks[3:]), *writer.end()])
        except ConversionError as error:
            got = error_of(error)
        assert got == want, target


@pytest.mark.parametrize("key", IDS)
def test_async_sse_bytes_cut_anywhere_give_the_sync_chunks(key: str) -> None:
    fmt, events = CORPUS[key]
    body = sse(fmt, events)
    want = sync_outcome(fmt, [body])
    assert want[0] and want[1] is None
    assert want == sync_outcome(fmt, copy.deepcopy(events))  # the body says what the events say
    for pieces in cuts_of(body, key):
        assert sync_outcome(fmt, pieces) == want
        assert asyncio.run(async_outcome(fmt, agen(pieces))) == want
    pieces_of_text = text_pieces(body, key)
    assert asyncio.run(async_outcome(fmt, agen(pieces_of_text))) == want


def test_the_corpus_has_bodies_with_multibyte_characters() -> None:
    """So that cutting inside a UTF-8 character is exercised, in every format."""
    for fmt in FORMATS:
        bodies = [sse(f, events) for f, events in CORPUS.values() if f == fmt]
        assert any(len(body) != len(body.decode()) for body in bodies), fmt


# ------------------------------------------------ the official SDKs' async streams


def _sse_response(
    body: bytes, seed: str, module: Any, *, asynchronous: bool
) -> Callable[[Any], Any]:
    """A mock transport handler answering every request with ``body`` as an event stream,
    in pieces cut at random places (inside UTF-8 characters too)."""
    pieces = cuts_of(body, seed)[0]

    def handler(request: Any) -> Any:
        content: Any = agen(pieces) if asynchronous else iter(pieces)
        return module.Response(200, headers={"content-type": "text/event-stream"}, content=content)

    return handler


def _openai_clients(body: bytes, key: str) -> tuple[OpenAI, AsyncOpenAI]:
    # openai builds on httpx2 too (it also takes httpx clients)
    sync = OpenAI(
        api_key="test",
        http_client=httpx2.Client(
            transport=httpx2.MockTransport(_sse_response(body, key, httpx2, asynchronous=False))
        ),
    )
    asynchronous = AsyncOpenAI(
        api_key="test",
        http_client=httpx2.AsyncClient(
            transport=httpx2.MockTransport(_sse_response(body, key, httpx2, asynchronous=True))
        ),
    )
    return sync, asynchronous


def _anthropic_clients(body: bytes, key: str) -> tuple[Anthropic, AsyncAnthropic]:
    # Recent anthropic releases build on httpx2: its clients take httpx2 clients.
    sync = Anthropic(
        api_key="test",
        http_client=httpx2.Client(
            transport=httpx2.MockTransport(_sse_response(body, key, httpx2, asynchronous=False))
        ),
    )
    asynchronous = AsyncAnthropic(
        api_key="test",
        http_client=httpx2.AsyncClient(
            transport=httpx2.MockTransport(_sse_response(body, key, httpx2, asynchronous=True))
        ),
    )
    return sync, asynchronous


def _genai_client(body: bytes, key: str) -> genai.Client:
    return genai.Client(
        api_key="test",
        http_options=genai_types.HttpOptions(
            httpx_client=httpx.Client(
                transport=httpx.MockTransport(_sse_response(body, key, httpx, asynchronous=False))
            ),
            httpx_async_client=httpx.AsyncClient(
                transport=httpx.MockTransport(_sse_response(body, key, httpx, asynchronous=True))
            ),
        ),
    )


HI = [{"role": "user", "content": "hi"}]


@pytest.mark.parametrize("key", [key for key in IDS if CORPUS.format(key) == "openai_chat"])
def test_openai_async_stream_of_chat_completions(key: str) -> None:
    fmt, events = CORPUS[key]
    sync, client = _openai_clients(sse(fmt, events), key)
    want = sync_outcome(fmt, sync.chat.completions.create(model="m", messages=HI, stream=True))  # type: ignore[arg-type]

    async def main() -> tuple[list[Any], Any]:
        stream = await client.chat.completions.create(model="m", messages=HI, stream=True)  # type: ignore[arg-type]
        return await async_outcome(fmt, stream)

    assert want[0] and want[1] is None
    assert asyncio.run(main()) == want


@pytest.mark.parametrize("key", [key for key in IDS if CORPUS.format(key) == "openai_responses"])
def test_openai_async_stream_of_responses(key: str) -> None:
    fmt, events = CORPUS[key]
    sync, client = _openai_clients(sse(fmt, events), key)
    want = sync_outcome(fmt, sync.responses.create(model="m", input="hi", stream=True))

    async def main() -> tuple[list[Any], Any]:
        stream = await client.responses.create(model="m", input="hi", stream=True)
        return await async_outcome(fmt, stream)

    assert want[0] and want[1] is None
    assert asyncio.run(main()) == want


@pytest.mark.parametrize("key", [key for key in IDS if CORPUS.format(key) == "anthropic"])
def test_anthropic_async_stream_and_async_message_stream(key: str) -> None:
    fmt, events = CORPUS[key]
    sync, client = _anthropic_clients(sse(fmt, events), key)
    kwargs: dict[str, Any] = {"model": "claude-test-model", "max_tokens": 64, "messages": HI}
    want = sync_outcome(fmt, sync.messages.create(**kwargs, stream=True))
    with sync.messages.stream(**kwargs) as helper:
        want_helper = sync_outcome(fmt, helper)

    async def main() -> tuple[Any, Any]:
        raw = await async_outcome(fmt, await client.messages.create(**kwargs, stream=True))
        async with client.messages.stream(**kwargs) as stream:  # AsyncMessageStream
            assert is_async(stream)
            helped = await async_outcome(fmt, stream)
        return raw, helped

    assert want[0] and want[1] is None
    assert want_helper == want  # the helper's extra events (text, input_json ...) add nothing
    assert asyncio.run(main()) == (want, want)


@pytest.mark.parametrize("key", [key for key in IDS if CORPUS.format(key) == "gemini"])
def test_google_genai_async_iterator(key: str) -> None:
    fmt, events = CORPUS[key]
    client = _genai_client(sse(fmt, events), key)
    want = sync_outcome(fmt, client.models.generate_content_stream(model="m", contents="hi"))

    async def main() -> tuple[list[Any], Any]:
        stream = await client.aio.models.generate_content_stream(model="m", contents="hi")
        return await async_outcome(fmt, stream)

    assert want[0] and want[1] is None
    assert asyncio.run(main()) == want


# ====================================================================== laziness


@pytest.mark.parametrize("fmt", FORMATS)
def test_chunks_come_as_events_arrive(fmt: str) -> None:
    """The first chunk is out while the source still waits for the next event."""
    events = CORPUS[SAMPLE[fmt]][1]
    assert len(events) >= 3
    arrived = asyncio.Event()

    async def source() -> AsyncIterator[Any]:
        for position, event in enumerate(events):
            if position == len(events) - 1:
                await arrived.wait()  # the last event only once a chunk came out
            yield event

    async def main() -> int:
        count = 0
        async for _ in get_codec(fmt).decode_stream(source()):
            count += 1
            arrived.set()
        return count

    assert asyncio.run(asyncio.wait_for(main(), 5)) == len(sync_outcome(fmt, events)[0])


@pytest.mark.parametrize("fmt", PROVIDERS)
def test_every_registered_format_decodes_async_sources(fmt: str) -> None:
    """The contract of the Codec protocol, for formats added later too (a format
    without stream events may refuse at the call, the same way on both paths)."""
    codec = get_codec(fmt)
    try:
        sync = codec.decode_stream([])
    except ConversionError as refused:
        with pytest.raises(ConversionError) as raised:
            codec.decode_stream(agen([]))
        assert error_of(raised.value) == error_of(refused)
        return
    assert hasattr(sync, "__next__")
    stream = codec.decode_stream(agen([]))
    assert hasattr(stream, "__anext__") and not hasattr(stream, "__next__")
    got = asyncio.run(async_outcome(fmt, agen([])))
    assert got == sync_outcome(fmt, [])


def test_an_object_with_both_protocols_is_read_asynchronously() -> None:
    events = CORPUS["anthropic/stream_text"][1]

    class Both:
        def __iter__(self) -> Iterator[Any]:
            raise AssertionError("read synchronously")

        def __aiter__(self) -> AsyncIterator[Any]:
            return agen(events)

    assert is_async(Both())
    assert asyncio.run(async_outcome("anthropic", Both())) == sync_outcome("anthropic", events)


# ==================================================================== cancellation


def tracked(items: Iterable[Any], log: list[str], *, hang: bool = False) -> AsyncIterator[Any]:
    """An async generator of ``items`` that logs each item read and its closing."""

    async def source() -> AsyncIterator[Any]:
        try:
            for item in items:
                await asyncio.sleep(0)
                log.append("read")
                yield item
            if hang:
                await asyncio.Event().wait()  # a server that stops sending
        finally:
            log.append("closed")

    return source()


def sync_tracked(items: Iterable[Any], log: list[str]) -> Iterator[Any]:
    """The same, sync."""
    try:
        for item in items:
            log.append("read")
            yield item
    finally:
        log.append("closed")


TEXT = CORPUS["openai_chat/stream_text_usage"][1]


# The tests below hold a reference to each source: a generator nobody holds is closed
# when collected anyway, which would hide a decoder that does not close it.


def test_aclose_closes_the_source() -> None:
    log: list[str] = []

    async def main() -> None:
        source = tracked(TEXT, log)
        stream = get_codec("openai_chat").decode_stream(source)
        await anext(stream)
        assert "closed" not in log
        await stream.aclose()
        assert log[-1] == "closed" and log.count("read") < len(TEXT)
        assert source is not None

    asyncio.run(main())


def test_breaking_out_closes_the_source() -> None:
    log: list[str] = []
    late: list[str] = []

    async def main() -> None:
        source = tracked(TEXT, log)
        async with aclosing(get_codec("openai_chat").decode_stream(source)) as chunks:
            async for _ in chunks:
                break
        assert log[-1] == "closed"  # at once, with aclosing
        # without it, the event loop closes the generator once it is collected
        async for _ in get_codec("openai_chat").decode_stream(tracked(TEXT, late)):
            break
        for _ in range(20):
            if "closed" in late:
                break
            await asyncio.sleep(0)

    asyncio.run(main())
    assert log.count("read") < len(TEXT)
    assert late[-1] == "closed" and late.count("read") < len(TEXT)


def test_cancelling_the_consumer_closes_the_source() -> None:
    """The cancellation reaches the source, which the decoder was waiting on."""
    log: list[str] = []
    received: list[AssistantMessageChunk] = []

    source = tracked(CORPUS["anthropic/stream_text"][1][:4], log, hang=True)

    async def consume() -> None:
        async for chunk in get_codec("anthropic").decode_stream(source):
            received.append(chunk)

    async def main() -> None:
        task = asyncio.create_task(consume())
        for _ in range(50):
            await asyncio.sleep(0)
        assert received and "closed" not in log  # waiting for the next event
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert log[-1] == "closed"

    asyncio.run(main())


def test_sync_break_closes_the_source() -> None:
    log: list[str] = []
    source = sync_tracked(TEXT, log)
    for _ in get_codec("openai_chat").decode_stream(source):
        break
    assert log[-1] == "closed" and log.count("read") == 1


@pytest.mark.parametrize("asynchronous", [False, True])
def test_the_end_of_the_response_closes_the_source(asynchronous: bool) -> None:
    """Responses stops at ``response.completed``; Chat's raw body at ``data: [DONE]``."""
    events = CORPUS["openai_responses/stream_parallel_calls"][1]
    after = [*events, {"type": "response.output_text.delta", "delta": "never read"}]
    body = sse("openai_chat", TEXT) + b'data: {"never": "read"}\n\n'
    late = b'data: {"late": 1}\n\n'
    for fmt, items, reads in (
        ("openai_responses", after, len(events)),
        ("openai_chat", [body[:50], body[50:]], 2),  # [DONE] in a later piece
        ("openai_chat", [body, late], 1),  # in the first one: the rest is not read
    ):
        log: list[str] = []
        if asynchronous:

            async def main(fmt: str = fmt, items: list[Any] = items, log: list[str] = log) -> Any:
                source = tracked(items, log)
                got = await async_outcome(fmt, source)
                assert log[-1] == "closed", fmt
                return got

            got = asyncio.run(main())
        else:
            source = sync_tracked(items, log)
            got = sync_outcome(fmt, source)
        assert got[1] is None and log[-1] == "closed", fmt
        assert log.count("read") == reads, fmt


def test_a_source_read_to_its_end_is_not_closed() -> None:
    class Source:
        closed = 0

        def __iter__(self) -> Iterator[Any]:
            return iter(TEXT)

        def __aiter__(self) -> AsyncIterator[Any]:
            return agen(TEXT)

        def close(self) -> None:
            self.closed += 1

    source = Source()
    asyncio.run(async_outcome("openai_chat", source))
    list(get_codec("openai_chat").decode_stream(iter(source)))
    assert source.closed == 0


def test_an_error_closes_the_source() -> None:
    error = {"error": {"message": "boom", "type": "server_error"}}
    stream = [*TEXT[:2], error, *TEXT[2:]]
    log: list[str] = []

    async def main() -> Any:
        source = tracked(stream, log)
        got = await async_outcome("openai_chat", source)
        assert log[-1] == "closed"
        return got

    got = asyncio.run(main())
    assert got[1] is not None and "boom" in got[1][1]
    log.clear()
    source = sync_tracked(stream, log)
    assert sync_outcome("openai_chat", source) == got
    assert log[-1] == "closed"


def test_breaking_out_closes_the_sdk_streams() -> None:
    chat = CORPUS["openai_chat/stream_text_usage"][1]
    _, openai_client = _openai_clients(sse("openai_chat", chat), "cancel")
    claude = CORPUS["anthropic/stream_text"][1]
    _, anthropic_client = _anthropic_clients(sse("anthropic", claude), "cancel")
    kwargs: dict[str, Any] = {"model": "claude-test-model", "max_tokens": 64, "messages": HI}

    async def main() -> None:
        stream = await openai_client.chat.completions.create(model="m", messages=HI, stream=True)  # type: ignore[arg-type]
        assert isinstance(stream, AsyncStream)
        async with aclosing(get_codec("openai_chat").decode_stream(stream)) as chunks:
            async for _ in chunks:
                break
        assert stream.response.is_closed
        raw = await anthropic_client.messages.create(**kwargs, stream=True)
        assert isinstance(raw, AnthropicAsyncStream)
        async with aclosing(get_codec("anthropic").decode_stream(raw)) as chunks:
            async for _ in chunks:
                break
        assert raw.response.is_closed
        async with anthropic_client.messages.stream(**kwargs) as helper:
            async with aclosing(get_codec("anthropic").decode_stream(helper)) as chunks:
                async for _ in chunks:
                    break
            assert helper.response.is_closed

    asyncio.run(main())


# ========================================================================= errors


def _malformed() -> list[tuple[str, str, list[Any]]]:
    """The malformed streams of each format's stream tests."""
    cases = [("anthropic", name, events) for name, events in ANTHROPIC_MALFORMED]
    cases += [("gemini", name, [event]) for name, event in GEMINI_MALFORMED.items()]
    cases += [("openai_chat", str(i), events) for i, events in enumerate(CHAT_MALFORMED)]
    cases += [("openai_responses", name, events) for name, events in RESPONSES_MALFORMED.items()]
    return cases


MALFORMED = _malformed()


@pytest.mark.parametrize(
    ("fmt", "events"),
    [(fmt, events) for fmt, _, events in MALFORMED],
    ids=[f"{fmt}/{name}" for fmt, name, _ in MALFORMED],
)
def test_malformed_events_raise_the_same_error_async(fmt: str, events: list[Any]) -> None:
    want = sync_outcome(fmt, copy.deepcopy(events))
    # (Responses' "bad id" stream is not fatal: odd values are left out)
    if want[1] is None:
        assert fmt == "openai_responses"
    else:
        assert want[1][2] == fmt
    assert asyncio.run(async_outcome(fmt, agen(copy.deepcopy(events)))) == want


ERROR_EVENTS: dict[str, dict[str, Any]] = {
    "openai_chat": {"error": {"message": "The server had an error", "type": "server_error"}},
    "openai_responses": {
        "type": "error",
        "code": "server_error",
        "message": "The server had an error",
        "param": None,
        "sequence_number": 7,
    },
    "anthropic": {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
    "gemini": {
        "error": {"code": 503, "message": "The model is overloaded", "status": "UNAVAILABLE"}
    },
}


@pytest.mark.parametrize("fmt", FORMATS)
def test_error_events_raise_the_same_error_after_the_same_chunks(fmt: str) -> None:
    events = CORPUS[SAMPLE[fmt]][1]
    stream = [*events[:2], ERROR_EVENTS[fmt], *events[2:]]
    want = sync_outcome(fmt, stream)
    assert want[0] and want[1] is not None
    assert asyncio.run(async_outcome(fmt, agen(stream))) == want
    body = sse(fmt, stream)
    assert sync_outcome(fmt, [body]) == want
    for pieces in cuts_of(body, fmt)[:2]:
        assert asyncio.run(async_outcome(fmt, agen(pieces))) == want


def _deep(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize(
    "tail",
    [
        b"data: {not json}\n\n",
        b'data: {"caf\xc3\n\n',  # not UTF-8
        b"data: \xff\xfe\n\n",
        ('data: {"deep": ' + json.dumps(_deep(MAX_DEPTH + 5)) + "}\n\n").encode(),
    ],
    ids=["not_json", "cut_utf8", "not_utf8", "too_deep"],
)
def test_malformed_sse_raises_the_same_error_async(fmt: str, tail: bytes) -> None:
    body = sse(fmt, CORPUS[SAMPLE[fmt]][1][:2]).removesuffix(b"data: [DONE]\n\n") + tail
    for pieces in cuts_of(body, fmt)[:3]:
        want = sync_outcome(fmt, pieces)  # (the UTF-8 error names a position in the piece)
        assert want[1] is not None and want[1][2] == fmt
        assert asyncio.run(async_outcome(fmt, agen(pieces))) == want


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_too_deep_event_object_raises_the_same_error_async(fmt: str) -> None:
    events = CORPUS[SAMPLE[fmt]][1]
    stream = [events[0], {"type": "x", "deep": _deep(MAX_DEPTH + 5)}]
    want = sync_outcome(fmt, stream)
    assert want[1] is not None and want[1][3][0].pointer.startswith("/1/")
    assert asyncio.run(async_outcome(fmt, agen(stream))) == want


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_event_object_inside_a_raw_body_is_a_conversion_error(fmt: str) -> None:
    events = CORPUS[SAMPLE[fmt]][1]
    stream = [sse(fmt, events[:1]).removesuffix(b"data: [DONE]\n\n"), events[1]]
    want = sync_outcome(fmt, stream)
    assert want[1] is not None and "bytes or text" in want[1][1]
    assert asyncio.run(async_outcome(fmt, agen(stream))) == want


# ======================================================= assembling from async code


def test_agent_loop_with_the_live_tool_argument_view() -> None:
    """Async decoding feeds a ChunkAccumulator exactly as sync decoding does."""
    events = CORPUS["openai_chat/stream_parallel_tools"][1]
    body = sse("openai_chat", events)

    def views(chunks: Iterable[AssistantMessageChunk]) -> tuple[list[Any], Any]:
        accumulator = ChunkAccumulator()
        seen = []
        for chunk in chunks:
            accumulator.add(chunk)
            seen.append([call.arguments for call in accumulator.partial_message().tool_calls])
        return seen, to_dict(accumulator.to_message())

    want = views(get_codec("openai_chat").decode_stream(events))
    assert want[0][-1] and all(want[0][-1])  # the arguments arrived, parsed

    async def main() -> tuple[list[Any], Any]:
        accumulator = ChunkAccumulator()
        seen = []
        async for chunk in get_codec("openai_chat").decode_stream(agen(cuts_of(body, "x")[0])):
            accumulator.add(chunk)
            seen.append([call.arguments for call in accumulator.partial_message().tool_calls])
        return seen, to_dict(accumulator.to_message())

    assert asyncio.run(main()) == want


@pytest.mark.parametrize("key", IDS)
def test_amerge_chunks_merges_an_async_stream(key: str) -> None:
    fmt, events = CORPUS[key]
    want = merge_chunks(get_codec(fmt).decode_stream(copy.deepcopy(events)))
    got = asyncio.run(amerge_chunks(get_codec(fmt).decode_stream(agen(copy.deepcopy(events)))))
    assert fingerprint([got]) == fingerprint([want])
    assert to_dict(got.to_message()) == to_dict(want.to_message())


# ============================================================ the shared pieces


def test_a_crlf_cut_between_pieces_is_one_line_break() -> None:
    body = b'data: {"a": 1,\r\ndata: "b": 2}\r\n\r\ndata: {"c": 3}\r\n\r\n'
    want = [{"a": 1, "b": 2}, {"c": 3}]
    for at in range(1, len(body)):
        assert list(iter_sse([body[:at], body[at:]], provider="p")) == want, at
    assert list(iter_sse([bytes([b]) for b in body], provider="p")) == want
    assert list(iter_sse([body[:-1]], provider="p")) == want  # ends in CR: a line end
    assert list(iter_sse([body.decode()], provider="p")) == want


def test_the_parser_is_fed_bytes_or_text_and_stops_at_done() -> None:
    parser = SSEParser(provider="p")
    assert parser.feed(b'data: {"x": "\xc3') == []
    assert parser.feed(b'\xa9"}\n') == []
    assert parser.feed("\n") == [{"x": "é"}]
    assert parser.feed('event: ping\ndata: {}\n\ndata: [DONE]\n\ndata: {"late": 1}\n\n') == [
        {"type": "ping"}
    ]
    assert parser.done and parser.feed(b'data: {"y": 1}\n\n') == [] and parser.end() == []
    with pytest.raises(ConversionError, match="bytes or text") as raised:
        SSEParser(provider="p").feed({"a": 1})  # type: ignore[arg-type]
    assert raised.value.provider == "p"
    with pytest.raises(ConversionError, match="not UTF-8"):
        SSEParser(provider="p").feed(b"data: \xff\n\n")
    last = SSEParser(provider="p")
    assert last.feed(b'data: {"z": 3}') == [] and last.end() == [{"z": 3}]


def test_aiter_sse_and_astream_events() -> None:
    body = sse("anthropic", CORPUS["anthropic/stream_text"][1])
    pieces = cuts_of(body, "a")[0]
    want = list(iter_sse(pieces, provider="anthropic"))

    async def main() -> tuple[Any, ...]:
        parsed = [event async for event in aiter_sse(agen(pieces), provider="anthropic")]
        raw, raw_checked = await astream_events(agen(pieces), provider="anthropic")
        objects, objects_checked = await astream_events(agen(want), provider="anthropic")
        empty, empty_checked = await astream_events(agen([]), provider="anthropic")
        return (
            parsed,
            [event async for event in raw],
            raw_checked,
            [event async for event in objects],
            objects_checked,
            [event async for event in empty],
            empty_checked,
        )

    assert asyncio.run(main()) == (want, want, True, want, False, [], True)


def test_drive_needs_only_a_step() -> None:
    """The driver with no fast path (a format that has none yet): same on both paths."""
    events = [{"text": "a"}, {"text": "b"}]

    def run(source: Any) -> Any:
        return drive(
            source,
            provider="p",
            fast=lambda event: None,
            step=lambda event: [AssistantMessageChunk(content=event["text"])],
            end=lambda: [AssistantMessageChunk(content="", chunk_position="last")],
        )

    want = fingerprint(run(events))
    assert len(want) == 3
    assert asyncio.run(_collect(run(agen(events)))) == want


async def _collect(stream: Any) -> list[Any]:
    return fingerprint([chunk async for chunk in stream])


# ================================================ any stream, well-formed or not


@settings(max_examples=120, deadline=None, database=None)
@given(data=st.data())
def test_any_sequence_of_recorded_events_decodes_alike_async(data: st.DataObject) -> None:
    """Events of the corpus in any order, repeated or left out, whole or as a body cut
    anywhere: the async path gives the sync path's chunks and error, if any."""
    key = data.draw(st.sampled_from(IDS), label="stream")
    fmt, events = CORPUS[key]
    picks = data.draw(st.lists(st.integers(0, len(events) - 1), max_size=12), label="events")
    stream = [copy.deepcopy(events[pick]) for pick in picks]
    want = sync_outcome(fmt, copy.deepcopy(stream))
    assert asyncio.run(async_outcome(fmt, agen(copy.deepcopy(stream), pause=False))) == want
    body = sse(fmt, stream)
    points = data.draw(st.lists(st.integers(1, max(1, len(body) - 1)), max_size=10), label="cuts")
    pieces = cut(body, points)
    assert asyncio.run(async_outcome(fmt, agen(pieces, pause=False))) == sync_outcome(fmt, pieces)
