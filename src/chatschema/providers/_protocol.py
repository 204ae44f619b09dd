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
    from chatschema.providers._common.options import EncodeOptions

__all__ = ["Codec"]


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
        self, events: AsyncIterable[Any]
    ) -> AsyncGenerator[AssistantMessageChunk, None]: ...

    @overload
    def decode_stream(self, events: Iterable[Any]) -> Iterator[AssistantMessageChunk]: ...

    def decode_stream(
        self, events: Iterable[Any] | AsyncIterable[Any]
    ) -> Iterator[AssistantMessageChunk] | AsyncGenerator[AssistantMessageChunk, None]:
        """Stream events (dicts, SDK objects or SSE text) as chunks, as they arrive.

        A sync source gives an iterator; an async one (``__aiter__``: the SDKs' async
        streams, httpx's ``aiter_bytes()``, an async generator) an async generator of
        the same chunks. Codecs implement it with
        :func:`chatschema.providers._common.drive.drive` (``docs/async.md``).
        """
