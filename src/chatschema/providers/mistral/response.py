"""The server side: a message as a Mistral ``ChatCompletionResponse``, or its chunk stream.

The mirror of :func:`~.decode.decode_response` and :func:`~.stream.decode_stream`,
written by the shared Chat Completions server side on the message as
``translate.py`` makes it (reasoning of this format as thinking chunks, Mistral's
finish reasons).
"""

from __future__ import annotations

import copy
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, Final, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.message import AssistantMessage
from typing_extensions import Unpack

from chatschema.providers import openai_chat
from chatschema.providers._common import guarded
from chatschema.providers._common.respond import Reply, ReplyOptions, as_message, write_stream
from chatschema.providers.mistral.translate import guarded_call, to_chat_message
from chatschema.providers.mistral.wire import CHAT, NAME, THINKING
from chatschema.providers.openai_chat.events import EventWriter, message_chunk

__all__ = ["encode_response", "encode_stream"]

DONE: Final = b"data: [DONE]\n\n"
"""The end of a streamed chat completion (API reference: ``data: [DONE]``)."""


@guarded(NAME)
def encode_response(message: Any, **options: Unpack[ReplyOptions]) -> dict[str, Any]:
    """An AssistantMessage as a complete Mistral ``ChatCompletionResponse`` body.

    Args:
        message: an AssistantMessage or its JSON data.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Reasoning of this format goes back as thinking chunks in a list content; the
    metadata :func:`decode_response` kept goes back where it came from; the ids the
    message lacks are made (``chatcmpl-...``, ``call_...``).

    Raises:
        ConversionError: for input that is not an assistant message.
        UnsupportedContentError: for content a response cannot carry, under
            ``unsupported="error"``, naming the block.
        OptionError: for unknown options and bad values.
    """
    msg = to_chat_message(as_message(message, NAME))
    body: dict[str, Any] = guarded_call(openai_chat.encode_response, msg, **options)
    for choice in body.get("choices") or ():
        message = choice.get("message")
        if isinstance(message, dict) and message.get("refusal", False) is None:
            del message["refusal"]  # API reference, AssistantMessage: no refusal field
        for position, call in enumerate((message or {}).get("tool_calls") or ()):
            call.setdefault("index", position)  # API reference, ToolCall: its position
    if "usage" not in body:
        # API reference, ChatCompletionResponse: `usage` is required (counts unknown: 0)
        body["usage"] = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
    return body


class _Writer:
    """The shared event writer, fed each chunk as this format's server side says it.

    Mistral streams each tool call whole in one delta (the SDK's ``DeltaMessage``
    tool calls need ``function.name``): fragments are held and sent whole before the
    next event that is not a fragment.
    """

    def __init__(self, inner: EventWriter) -> None:
        self.inner = inner
        self.frame = inner.frame
        self.calls: dict[int, dict[str, Any]] = {}  # held tool calls, by index
        self.head: dict[str, Any] | None = None  # the event the held calls came in

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The events one chunk makes."""
        events = guarded_call(self.inner.feed, to_chat_message(chunk, thinking=False))
        return self.held([_thinking(event) for event in events])

    def end(self) -> list[dict[str, Any]]:
        """The events that close the stream."""
        events = self.held([_thinking(event) for event in guarded_call(self.inner.end)])
        return events + self.release()

    def held(self, events: list[Any]) -> list[Any]:
        """The events to send now: tool-call fragments held, the calls sent whole."""
        out: list[Any] = []
        for event in events:
            delta = _only_calls(event)
            if delta is None:
                out += self.release()
                out.append(event)
                continue
            self.head = event
            for call in delta["tool_calls"]:
                index = call.get("index", 0)
                held = self.calls.get(index)
                if held is None:
                    self.calls[index] = copy.deepcopy(call)
                    continue
                arguments = (call.get("function") or {}).get("arguments")
                if isinstance(arguments, str):
                    function = held.setdefault("function", {})
                    function["arguments"] = function.get("arguments", "") + arguments
        return out

    def release(self) -> list[dict[str, Any]]:
        """The held tool calls as one event (none held: nothing)."""
        if not self.calls or self.head is None:
            return []
        event = copy.deepcopy(self.head)
        event["choices"][0]["delta"] = {"tool_calls": list(self.calls.values())}
        self.calls = {}
        return [event]


def _only_calls(event: Any) -> dict[str, Any] | None:
    """The delta of an event that only carries tool-call fragments, else None."""
    if type(event) is not dict:
        return None
    choices = event.get("choices")
    if not isinstance(choices, list) or len(choices) != 1 or event.get("usage"):
        return None
    choice = choices[0]
    delta = choice.get("delta")
    if choice.get("finish_reason") is not None or not isinstance(delta, dict):
        return None
    if set(delta) != {"tool_calls"} or not isinstance(delta["tool_calls"], list):
        return None
    return delta


def _thinking(event: Any) -> Any:
    """An event whose delta streams reasoning as a field, with it as a thinking chunk."""
    if type(event) is not dict:
        return event  # a text delta of the SSE fast path
    for choice in event.get("choices") or ():
        delta = choice.get("delta")
        if not isinstance(delta, dict):
            continue
        for field in ("reasoning_content", "reasoning"):
            text = delta.get(field)
            if isinstance(text, str):
                thinking = {"type": THINKING, "thinking": [{"type": "text", "text": text}]}
                content = delta.get("content")
                parts: list[Any] = [thinking]
                if isinstance(content, str) and content:
                    parts.append({"type": "text", "text": content})
                elif isinstance(content, list):
                    parts.extend(content)
                choice["delta"] = {
                    **{key: value for key, value in delta.items() if key != field},
                    "content": parts,
                }
                break
    return event


@overload
def encode_stream(
    source: AsyncIterable[Any], *, sse: bool = False, **options: Unpack[ReplyOptions]
) -> AsyncGenerator[Any, None]: ...


@overload
def encode_stream(
    source: AssistantMessage | AssistantMessageChunk | Iterable[Any],
    *,
    sse: bool = False,
    **options: Unpack[ReplyOptions],
) -> Iterator[Any]: ...


def encode_stream(
    source: Any, *, sse: bool = False, **options: Unpack[ReplyOptions]
) -> Iterator[Any] | AsyncGenerator[Any, None]:
    """A message or chunks as Mistral's ``chat.completion.chunk`` events, as they come.

    Args:
        source: an AssistantMessage, one AssistantMessageChunk, or an iterable of
            chunks (or their JSON data), sync or async (an async one gives an async
            generator).
        sse: give the bytes of the HTTP body (``data: <json>`` frames, then
            ``data: [DONE]``) instead of the event dicts.
        **options: see :class:`~chatschema.providers._common.respond.ReplyOptions`.

    Reasoning of this format streams as thinking chunks (a list delta content),
    text as string deltas; tool calls, the finish reason and usage as Chat
    Completions streams them.

    Raises:
        OptionError: for unknown options and bad values (at call time).
        ConversionError: (when iterated) for an item that is not a chunk.
        UnsupportedContentError: (when iterated) for content a stream cannot carry,
            under ``unsupported="error"``.
    """
    reply = guarded_call(Reply.resolve, CHAT, dict(options))
    if isinstance(source, AssistantMessage):
        source = message_chunk(source)  # (tool calls with their exact argument text)
    writer = _Writer(EventWriter(reply, sse=sse))
    return write_stream(
        source, provider=NAME, writer=writer, sse=sse, frame=writer.frame, closing=DONE
    )
