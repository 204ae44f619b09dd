"""The protocol every codec satisfies: the same verbs in every format."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import TYPE_CHECKING, Any, Protocol, overload

if TYPE_CHECKING:
    from chatschema_models.chunk import AssistantMessageChunk
    from chatschema_models.conversation import Conversation
    from chatschema_models.message import AssistantMessage, Message
    from typing_extensions import Unpack

    from chatschema.errors import Problem
    from chatschema.providers._common.drive import Incomplete
    from chatschema.providers._common.options import EncodeOptions
    from chatschema.providers._common.respond import ReplyOptions

__all__ = ["Codec", "HTTPCodec"]


class Codec(Protocol):
    """What a wire format's codec package offers: the same verbs in every format.

    Every package under :mod:`chatschema.providers` satisfies it (mypy checks this
    in ``chatschema.providers``; a test checks that every format is registered).
    """

    @property
    def NAME(self) -> str:
        """The format's name, as in :data:`PROVIDERS`."""

    def encode(self, messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
        """A conversation as the official client's keyword arguments."""

    def check(self, messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
        """Every problem that would make ``encode`` fail or the provider refuse."""

    def decode_conversation(self, payload: Any) -> Conversation:
        """A request (what ``encode`` gives, or the provider's own) as a conversation."""

    def decode_messages(self, payload: Any) -> list[Message]:
        """The messages of a request."""

    def decode_response(self, payload: Any) -> AssistantMessage:
        """A complete response (JSON data or an official SDK object) as one message."""

    @overload
    def decode_stream(
        self, events: AsyncIterable[Any], *, incomplete: Incomplete = "error"
    ) -> AsyncGenerator[AssistantMessageChunk, None]: ...

    @overload
    def decode_stream(
        self, events: Iterable[Any], *, incomplete: Incomplete = "error"
    ) -> Iterator[AssistantMessageChunk]: ...

    def decode_stream(
        self, events: Iterable[Any] | AsyncIterable[Any], *, incomplete: Incomplete = "error"
    ) -> Iterator[AssistantMessageChunk] | AsyncGenerator[AssistantMessageChunk, None]:
        """Stream events (dicts, SDK objects or SSE text) as chunks, as they arrive.

        A sync source gives an iterator; an async one (``__aiter__``: the SDKs' async
        streams, httpx's ``aiter_bytes()``, an async generator) an async generator of
        the same chunks. Codecs implement it with
        :func:`chatschema.providers._common.drive.drive` (``docs/async.md``). A
        stream that ends before its format's terminal event raises
        :class:`~chatschema.errors.StreamIncompleteError` once its chunks are out
        (``incomplete="keep"``: a last chunk marks the reply incomplete instead).
        """


class HTTPCodec(Codec, Protocol):
    """The codec of a provider's HTTP API: also the server side of the wire.

    Every format but ``otel_genai`` (telemetry attributes, written by its own
    ``encode_output``) satisfies it: it writes responses and streams as the provider
    sends them, the mirror of ``decode_response`` and ``decode_stream``.
    """

    def encode_response(
        self, message: AssistantMessage, **options: Unpack[ReplyOptions]
    ) -> dict[str, Any]:
        """A message as the provider's complete response body (JSON data).

        What ``decode_response`` read comes back out; ids the provider always sends
        and the message lacks are made in the provider's shape.
        """

    @overload
    def encode_stream(
        self, source: AsyncIterable[Any], *, sse: bool = False, **options: Unpack[ReplyOptions]
    ) -> AsyncGenerator[Any, None]: ...

    @overload
    def encode_stream(
        self,
        source: AssistantMessage | AssistantMessageChunk | Iterable[Any],
        *,
        sse: bool = False,
        **options: Unpack[ReplyOptions],
    ) -> Iterator[Any]: ...

    def encode_stream(
        self, source: Any, *, sse: bool = False, **options: Unpack[ReplyOptions]
    ) -> Iterator[Any] | AsyncGenerator[Any, None]:
        """A message or chunks (sync or async) as the provider's stream events, in order.

        Events are dicts; with ``sse=True`` the bytes of the HTTP body in the
        provider's own framing. Each chunk's events go out as it arrives, with the
        provider's bookkeeping events around them. Codecs implement it with
        :func:`chatschema.providers._common.respond.write_stream`.
        """
