"""The stream driver: a codec's per-event state machine over a sync or async source.

Every codec decodes a stream the same way: a state object reads one event at a
time; text deltas take a fast path that builds their chunk directly, every other
event the general path. :func:`drive` runs that loop over whatever the caller has:

- a sync iterable (event dicts, the official SDKs' ``Stream`` / ``MessageStream``
  objects, JSON text, or the raw SSE body as ``bytes`` / ``str`` pieces): the result
  is a sync generator, exactly as before;
- an async iterable (``openai.AsyncStream``, anthropic's ``AsyncStream`` and
  ``AsyncMessageStream``, google-genai's async iterator, httpx's ``aiter_bytes()`` /
  ``aiter_text()``, any async generator): the result is an async generator yielding
  the same chunks, each as soon as its event arrives.

An object offering both ``__aiter__`` and ``__iter__`` is read asynchronously: in
sync code the mistake fails at once (an async generator is not iterable), whereas
reading such an object synchronously inside an event loop would block it unnoticed.

Raw SSE bodies go through one :class:`~chatschema.providers._common.sse.SSEParser`
on both paths, so pieces cut anywhere (UTF-8 characters included) give the same
events. The driver checks the nesting depth of every event that does not take the
fast path (an event of the exact shape the fast path reads is shallow by that
shape), and of every event parsed from a raw body.

Ownership: once the driver stops reading its source before the source's end (the
consumer broke out of the loop or closed the generator, an error was raised, the
codec saw the end of the response, or ``data: [DONE]`` came), it closes the source:
``aclose()`` (async generators) or ``close()`` (awaited when it returns an
awaitable, as the SDKs' async streams' does) on the object given, after closing the
iterator it got from it when that is a different object. A source read to its end is
left as it is.

The end of a stream: a stream that ends (the source is exhausted, or ``[DONE]``)
before the codec saw its format's terminal event (``missing``) raises
:class:`~chatschema.errors.StreamIncompleteError` after every chunk decoded before
the end was yielded; with ``incomplete="keep"`` it ends instead with one more chunk
whose ``response_metadata["chatschema"]["incomplete"]`` says what was missing (its
``finish_reason`` stays unset). A consumer that stops reading early gets neither.
"""

from __future__ import annotations

import inspect
from collections.abc import AsyncGenerator, AsyncIterable, Callable, Iterable, Iterator
from itertools import chain
from typing import Any, Literal, overload

import pydantic
from chatschema_models.chunk import AssistantMessageChunk

from chatschema.errors import (
    ConversionError,
    OptionError,
    Problem,
    StreamIncompleteError,
    json_pointer,
)
from chatschema.providers._common.sse import SSEParser, check_depth, is_body

__all__ = [
    "Build",
    "Incomplete",
    "Missing",
    "Pushed",
    "aclose_source",
    "close_source",
    "counted",
    "drive",
    "incomplete_policy",
    "is_async",
    "pushed",
]

Chunks = Iterable[AssistantMessageChunk]
Chunk = AssistantMessageChunk
Build = Callable[[type[AssistantMessageChunk], Any], AssistantMessageChunk]
"""``build(AssistantMessageChunk, value)``: the chunk of a fast-path value.

The class comes first so that the codecs' trusted builders serve as they are
(``_wire.content_chunk``, ``_wire.trusted``): a Python function called directly,
where a ``functools.partial`` would cost a C call and a frame per text delta.
"""


Incomplete = Literal["error", "keep"]
"""``decode_stream(..., incomplete=...)``: what a stream cut before its terminal event
gives: ``"error"`` (default) raises :class:`~chatschema.errors.StreamIncompleteError`
at its end, ``"keep"`` ends the chunks with one marking the reply incomplete."""

Missing = Callable[[bool], "tuple[str, str] | None"]
"""``missing(done_line)``: asked once the stream ended (``done_line``: a raw body ended
with ``data: [DONE]``); None when the codec saw its format's terminal event, else
``(the event missing, what came: a short factual detail or "")``."""

INCOMPLETE_KEY = "chatschema"
"""The ``response_metadata`` namespace of the incomplete marker (no codec's name)."""


def incomplete_policy(value: object) -> Incomplete:
    """``value`` as an :data:`Incomplete` policy.

    Raises:
        OptionError: for anything but ``"error"`` or ``"keep"``.
    """
    if value == "error" or value == "keep":
        return "error" if value == "error" else "keep"
    raise OptionError(f"incomplete must be 'error' or 'keep', not {value!r}")


def counted(count: int, noun: str) -> str:
    """``count`` and ``noun``, plural unless one: for :data:`Missing` details."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def ended(
    missing: Missing | None, provider: str, incomplete: Incomplete, done_line: bool = False
) -> tuple[AssistantMessageChunk, ...]:
    """The end of a stream: nothing when it was complete, else the marker chunk or raise.

    Raises:
        StreamIncompleteError: under ``incomplete="error"``, for a stream that ended
            before its terminal event.
    """
    cut = None if missing is None else missing(done_line)
    if cut is None:
        return ()
    event, detail = cut
    reason = f"the stream ended before {event}: the reply may be incomplete"
    if detail:
        reason += f" ({detail})"
    if incomplete == "error":
        raise StreamIncompleteError(reason, provider=provider, missing=event)
    marker = {"incomplete": {"missing": event, "reason": reason}}
    return (AssistantMessageChunk(provider=provider, response_metadata={INCOMPLETE_KEY: marker}),)


def is_async(source: object) -> bool:
    """Whether ``drive`` reads ``source`` asynchronously: its type has ``__aiter__``."""
    return isinstance(source, AsyncIterable)


@overload
def drive(
    source: AsyncIterable[Any],
    *,
    provider: str,
    fast: Callable[[Any], Any],
    step: Callable[[Any], Chunks],
    build: Build | None = None,
    end: Callable[[], Chunks] | None = None,
    done: Callable[[], bool] | None = None,
    errors: Callable[[Exception], Exception | None] | None = None,
    missing: Missing | None = None,
    incomplete: Incomplete = "error",
) -> AsyncGenerator[AssistantMessageChunk, None]: ...


@overload
def drive(
    source: Iterable[Any],
    *,
    provider: str,
    fast: Callable[[Any], Any],
    step: Callable[[Any], Chunks],
    build: Build | None = None,
    end: Callable[[], Chunks] | None = None,
    done: Callable[[], bool] | None = None,
    errors: Callable[[Exception], Exception | None] | None = None,
    missing: Missing | None = None,
    incomplete: Incomplete = "error",
) -> Iterator[AssistantMessageChunk]: ...


def drive(
    source: Iterable[Any] | AsyncIterable[Any],
    *,
    provider: str,
    fast: Callable[[Any], Any],
    step: Callable[[Any], Chunks],
    build: Build | None = None,
    end: Callable[[], Chunks] | None = None,
    done: Callable[[], bool] | None = None,
    errors: Callable[[Exception], Exception | None] | None = None,
    missing: Missing | None = None,
    incomplete: Incomplete = "error",
) -> Iterator[AssistantMessageChunk] | AsyncGenerator[AssistantMessageChunk, None]:
    """The chunks of a stream: a sync generator for a sync source, else an async one.

    Args:
        source: the stream as the caller has it (see the module docstring).
        provider: the codec's name, for errors.
        fast: the fast path: the event's chunk (or what ``build`` makes it from),
            or None to leave the event to ``step``. It sees events unchecked, so it
            must accept only an exact, shallow shape.
        step: the general path: the chunks of one event (after its depth check).
        build: turns what ``fast`` returned into the chunk, called as
            ``build(AssistantMessageChunk, value)`` (None: ``fast`` returns chunks).
        end: the chunks after the last event (the stream ended or ``done``).
        done: asked after each event of the general path: True stops reading.
        errors: given any exception raised while decoding (reading the source
            included), the exception to raise instead (from None), or None to
            raise it as it is.
        missing: asked after ``end``: whether the stream ended before its
            format's terminal event (see :data:`Missing`; None: never).
        incomplete: what such a stream gives (see :data:`Incomplete`).

    Nothing is read before the first chunk is asked for. Errors raised by ``fast``,
    ``step``, ``end``, the SSE parser and the source propagate as they are (or as
    ``errors`` maps them); the chunks yielded before them stay yielded.
    A ``source`` that is not iterable (None ...) is a
    :class:`~chatschema.errors.ConversionError` when the first chunk is asked.
    """
    if isinstance(source, AsyncIterable):  # is_async
        return _adrive(source, provider, fast, step, build, end, done, errors, missing, incomplete)
    if isinstance(source, Pushed):
        return source.bind(provider, fast, step, build, end, done, errors)  # type: ignore[return-value]
    return _drive(source, provider, fast, step, build, end, done, errors, missing, incomplete)


def _drive(
    source: Iterable[Any],
    provider: str,
    fast: Callable[[Any], Any],
    step: Callable[[Any], Chunks],
    build: Build | None,
    end: Callable[[], Chunks] | None,
    done: Callable[[], bool] | None,
    errors: Callable[[Exception], Exception | None] | None,
    missing: Missing | None,
    incomplete: Incomplete,
) -> Iterator[AssistantMessageChunk]:
    """The sync loop: as tight as a codec's own loop was (no frame per event added)."""
    iterator = iter(_iterable(source, provider))
    finished = False  # the source was read to its end
    parser: SSEParser | None = None
    try:
        for first in iterator:
            rest = chain((first,), iterator)  # chain, enumerate: no Python frame per event
            if is_body(first):
                parser = SSEParser(provider=provider)
                progress = _Progress()
                for piece in rest:
                    yield from _parsed(
                        parser.feed(piece), progress, provider, fast, step, build, done
                    )
                    if progress.stopped or parser.done:
                        break
                else:
                    finished = True
                    yield from _parsed(parser.end(), progress, provider, fast, step, build, done)
            elif build is None:
                for position, event in enumerate(rest):
                    chunk = fast(event)
                    if chunk is not None:  # the fast path
                        yield chunk
                        continue
                    check_depth(event, position, provider)
                    yield from step(event)
                    if done is not None and done():
                        break
                else:
                    finished = True
            else:
                for position, event in enumerate(rest):
                    value = fast(event)
                    if value is not None:  # the fast path
                        yield build(Chunk, value)
                        continue
                    check_depth(event, position, provider)
                    yield from step(event)
                    if done is not None and done():
                        break
                else:
                    finished = True
            break
        else:
            finished = True
        if end is not None:
            yield from end()
        yield from ended(missing, provider, incomplete, parser is not None and parser.done)
    except Exception as error:
        replacement = _mapped(error, errors, provider)
        if replacement is None:
            raise
        raise replacement from None
    finally:
        if not finished:
            close_source(source, iterator)


async def _adrive(
    source: AsyncIterable[Any],
    provider: str,
    fast: Callable[[Any], Any],
    step: Callable[[Any], Chunks],
    build: Build | None,
    end: Callable[[], Chunks] | None,
    done: Callable[[], bool] | None,
    errors: Callable[[Exception], Exception | None] | None,
    missing: Missing | None,
    incomplete: Incomplete,
) -> AsyncGenerator[AssistantMessageChunk, None]:
    """The async loop: :func:`_drive`'s, each item awaited by ``async for``."""
    iterator = aiter(source)
    finished = False
    parser: SSEParser | None = None
    try:
        first = await anext(iterator, _END)
        if first is _END:
            finished = True
        elif is_body(first):
            parser = SSEParser(provider=provider)
            progress = _Progress()
            for chunk in _parsed(parser.feed(first), progress, provider, fast, step, build, done):
                yield chunk
            if not (progress.stopped or parser.done):
                async for piece in iterator:
                    for chunk in _parsed(
                        parser.feed(piece), progress, provider, fast, step, build, done
                    ):
                        yield chunk
                    if progress.stopped or parser.done:
                        break
                else:
                    finished = True
                    for chunk in _parsed(parser.end(), progress, provider, fast, step, build, done):
                        yield chunk
        else:
            for chunk in _first(first, provider, fast, step, build):
                yield chunk
            if done is None or not done():
                position = 0
                async for event in iterator:
                    position += 1
                    value = fast(event)
                    if value is not None:  # the fast path
                        yield value if build is None else build(Chunk, value)
                        continue
                    check_depth(event, position, provider)
                    for chunk in step(event):
                        yield chunk
                    if done is not None and done():
                        break
                else:
                    finished = True
        if end is not None:
            for chunk in end():
                yield chunk
        for chunk in ended(missing, provider, incomplete, parser is not None and parser.done):
            yield chunk
    except Exception as error:
        replacement = _mapped(error, errors, provider)
        if replacement is None:
            raise
        raise replacement from None
    finally:
        if not finished:
            await aclose_source(source, iterator)


class Pushed:
    """A codec's stream decoder driven by pushes: events in, chunks out, no generator.

    For a relay that already holds each network read's events (the gateway):
    :func:`pushed` gives one bound to a codec; :meth:`feed` takes the events of one
    read and returns their chunks, :meth:`end` the chunks after the last, exactly as
    ``drive`` yields them (the fast path, the depth check of every other event, the
    codec's ``done`` and error mapping).
    """

    __slots__ = ("_build", "_done", "_end", "_errors", "_fast", "_position", "_step", "provider")

    def __init__(self) -> None:
        self.provider = ""
        self._position = 0
        self._fast: Callable[[Any], Any] | None = None
        self._step: Callable[[Any], Chunks] | None = None
        self._build: Build | None = None
        self._end: Callable[[], Chunks] | None = None
        self._done: Callable[[], bool] | None = None
        self._errors: Callable[[Exception], Exception | None] | None = None

    def bind(
        self,
        provider: str,
        fast: Callable[[Any], Any],
        step: Callable[[Any], Chunks],
        build: Build | None,
        end: Callable[[], Chunks] | None,
        done: Callable[[], bool] | None,
        errors: Callable[[Exception], Exception | None] | None,
    ) -> Pushed:
        """Take a codec's loop parts (``drive``'s arguments); returns itself."""
        self.provider = provider
        self._fast, self._step, self._build = fast, step, build
        self._end, self._done, self._errors = end, done, errors
        return self

    @property
    def stopped(self) -> bool:
        """Whether the codec saw the end of the answer (later events are not read)."""
        return self._done is not None and self._done()

    def feed(self, events: Iterable[Any]) -> list[AssistantMessageChunk]:
        """The chunks of these events, in order (none once :attr:`stopped`)."""
        fast, step, build = self._fast, self._step, self._build
        if fast is None or step is None:
            raise RuntimeError("a Pushed decoder is bound by a codec's decode_stream: pushed()")
        out: list[AssistantMessageChunk] = []
        try:
            for event in events:
                if self.stopped:
                    break
                value = fast(event)
                if value is not None:  # the fast path
                    out.append(value if build is None else build(Chunk, value))
                else:
                    check_depth(event, self._position, self.provider)
                    out.extend(step(event))
                self._position += 1
        except Exception as error:
            raise self._mapped(error) from None
        return out

    def end(self) -> list[AssistantMessageChunk]:
        """The chunks after the last event (what the codec held back).

        The end is not checked here (no ``StreamIncompleteError``): a relay tells a
        complete answer by its chunks (``chunk_position="last"``, a finish reason).
        """
        try:
            return list(self._end()) if self._end is not None else []
        except Exception as error:
            raise self._mapped(error) from None

    def _mapped(self, error: Exception) -> Exception:
        replacement = _mapped(error, self._errors, self.provider)
        return error if replacement is None else replacement


def pushed(decode_stream: Callable[[Any], Any]) -> Pushed:
    """A codec's ``decode_stream`` as a :class:`Pushed` decoder.

    Raises:
        TypeError: for a ``decode_stream`` that does not run on ``drive``.
    """
    decoder = Pushed()
    made: object = decode_stream(decoder)
    if made is not decoder:
        raise TypeError(f"{decode_stream!r} does not run on drive: it cannot be pushed")
    return decoder


class _Progress:
    """How far a raw body was read: events parsed, and whether the codec said done."""

    __slots__ = ("position", "stopped")

    def __init__(self) -> None:
        self.position = 0
        self.stopped = False


def _parsed(
    events: list[Any],
    progress: _Progress,
    provider: str,
    fast: Callable[[Any], Any],
    step: Callable[[Any], Chunks],
    build: Build | None,
    done: Callable[[], bool] | None,
) -> Iterator[AssistantMessageChunk]:
    """The chunks of the events parsed from one piece of a raw body (each checked)."""
    for event in events:
        check_depth(event, progress.position, provider)
        progress.position += 1
        value = fast(event)
        if value is not None:
            yield value if build is None else build(Chunk, value)
            continue
        yield from step(event)
        if done is not None and done():
            progress.stopped = True
            return


def _first(
    event: Any,
    provider: str,
    fast: Callable[[Any], Any],
    step: Callable[[Any], Chunks],
    build: Build | None,
) -> Chunks:
    """The chunks of the first event of a stream of events."""
    value = fast(event)
    if value is not None:
        return (value if build is None else build(Chunk, value),)
    check_depth(event, 0, provider)
    return step(event)


_END: Any = object()  # next's / anext's default: the source has no more items


def _mapped(
    error: Exception, errors: Callable[[Exception], Exception | None] | None, provider: str
) -> Exception | None:
    """The exception to raise instead of ``error`` (None: ``error`` itself).

    The codec's ``errors`` first; then a value a neutral model refuses (pydantic's
    error: a lone surrogate in an id ...) becomes a ConversionError listing each
    refused field with its pointer in that model.
    """
    replacement = None if errors is None else errors(error)
    if replacement is None and isinstance(error, pydantic.ValidationError):
        items = error.errors(include_url=False, include_input=False)
        problems = [Problem(json_pointer(item["loc"]), item["type"], item["msg"]) for item in items]
        reason = f"an event holds a value the neutral {error.title} refuses"
        replacement = ConversionError(reason, provider=provider, problems=problems)
    return replacement


def _iterable(source: Any, provider: str) -> Iterable[Any]:
    """``source``, checked to be iterable: anything else is a ConversionError.

    Raises:
        ConversionError: naming what came instead (``None``, a number ...).
    """
    if isinstance(source, Iterable):
        return source
    if hasattr(source, "__getitem__"):  # the old sequence protocol, which iter() takes
        sequence: Iterator[Any] = iter(source)
        return sequence
    raise ConversionError(
        "expected an iterable of stream events (event objects, SDK events, or the raw "
        f"body as bytes or str pieces), not {type(source).__name__}",
        provider=provider,
    )


def close_source(source: object, iterator: object = None) -> None:
    """Close a sync source the driver stops reading early: ``iterator``, then ``source``.

    ``iterator`` is what ``iter(source)`` gave, closed first when it is another
    object (an SDK stream's ``__iter__`` generator); objects without ``close`` are
    left alone (a list).
    """
    for target in (iterator, source) if iterator is not source else (source,):
        close = getattr(target, "close", None)
        if callable(close):
            close()


async def aclose_source(source: object, iterator: object) -> None:
    """Close an async source: ``aclose()``, else ``close()`` (awaited if it must be)."""
    for target in (iterator, source) if iterator is not source else (source,):
        close = getattr(target, "aclose", None)
        if not callable(close):
            close = getattr(target, "close", None)
        if callable(close):
            result = close()
            if inspect.isawaitable(result):
                await result
