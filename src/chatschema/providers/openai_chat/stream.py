"""Decoding a streamed ``ChatCompletion`` (``chat.completion.chunk`` events) into chunks."""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator, Mapping
from typing import Any, Final, Literal, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
    ReasoningBlock,
    RefusalBlock,
    TextBlock,
)
from chatschema_models.tool import ToolCallChunk

from chatschema import limits
from chatschema._json import copy_json
from chatschema._wire import content_chunk
from chatschema.errors import ConversionError, Problem
from chatschema.providers._common import describe, loads, merge_value, parse_arguments
from chatschema.providers._common.drive import Incomplete, counted, drive, incomplete_policy
from chatschema.providers._common.replay import stamp_once
from chatschema.providers.openai_chat.blocks import (
    READ,
    PythonKey,
    audio_block,
    decode_annotation,
    default_shape,
    json_copy,
)
from chatschema.providers.openai_chat.details import DETAILS_TEXT, DetailStream
from chatschema.providers.openai_chat.usage import decode_usage
from chatschema.providers.openai_chat.wire import (
    ABSENT,
    AUDIO_SLOT,
    CALL_KEYS,
    CHOICE_KEYS,
    CHUNK_KEYS,
    DELTA_KEYS,
    FINISH_REASONS,
    NAME,
    REASONING_SLOT,
    REFUSAL_SLOT,
    TEXT_SLOT,
    Shape,
)

__all__ = ["decode_stream"]


@overload
def decode_stream(
    events: AsyncIterable[Any], *, incomplete: Incomplete = "error"
) -> AsyncGenerator[AssistantMessageChunk, None]: ...


@overload
def decode_stream(
    events: Iterable[Any], *, incomplete: Incomplete = "error"
) -> Iterator[AssistantMessageChunk]: ...


def decode_stream(
    events: Iterable[Any] | AsyncIterable[Any], *, incomplete: Incomplete = "error"
) -> Iterator[AssistantMessageChunk] | AsyncGenerator[AssistantMessageChunk, None]:
    """Decode a streamed ``ChatCompletion`` into ``AssistantMessageChunk`` objects, lazily.

    ``events`` are the ``chat.completion.chunk`` objects as parsed JSON, the SDK's
    ``ChatCompletionChunk`` objects, or the raw SSE body (``bytes`` or ``str`` pieces
    cut anywhere; ``data: [DONE]`` ends it), sync or async: an async iterable (the
    SDK's ``AsyncStream``, httpx's ``aiter_bytes()``, an async generator) gives an
    async generator of the same chunks (``async for``; see ``docs/async.md``). When
    decoding stops before the source's end (the caller breaks off, an error, ``[DONE]``),
    the source is closed. One chunk is yielded per event that says
    something, as it arrives; assembled (``ChunkAccumulator``, ``merge_chunks`` or
    ``+``), they make the message :func:`decode_response` makes of the complete
    response:

    - text: string content while the reply is plain text; once reasoning
      (``reasoning_content`` / ``reasoning``) or a refusal comes first, blocks with
      ``index`` 0 (reasoning), 1 (text), 2 (refusal);
    - tool calls: ``ToolCallChunk`` fragments keyed by their position in ``tool_calls``
      (a server that reuses an ``index`` for a call with another ``id``, or leaves
      ``index`` out, gets the next position), raw argument text as it comes; a call
      that never gets an id or a name assembles to an ``InvalidToolCall``;
    - ``usage`` with ``usage_mode="cumulative"`` (totals, whether they come once in
      the ``stream_options.include_usage`` chunk or on every chunk, as vLLM can); a
      usage whose counts the neutral one cannot hold (``completion_tokens: null``
      mid-stream) is kept, and only if no later usage replaces it, whole in the
      final chunk's response metadata, as :func:`decode_response` keeps it;
    - the final chunk brings what is only whole at the end: the exact argument text
      (``extras.arguments``), the other choices of ``n > 1`` in
      ``response_metadata["openai_chat"]["choices"]``, the logprobs, the audio
      object, the message's unknown fields, ``extras.content_shape``. It has
      ``chunk_position="last"`` when the first choice finished (``finish_reason``).

    A stream is complete once the first choice has a ``finish_reason`` (some
    servers send no ``[DONE]``), or at either end marker of a stream with
    ``stream_options.include_usage``: the usage chunk (empty ``choices``) or
    ``data: [DONE]`` (some servers send no finish reason). One that ends before
    raises ``StreamIncompleteError`` after its chunks, the final one without the
    marker; with ``incomplete="keep"`` it ends instead with a chunk whose
    ``response_metadata["chatschema"]["incomplete"]`` says so.

    Known limits (the accumulator merges blocks by index, and a string run has
    none): annotations that come after text that streamed as a string arrive as an
    empty text block of their own, and reasoning that starts after the text is
    placed after it.

    Raises:
        ConversionError: for an ``error`` event (naming its message) and for
            malformed events; unknown event types (no ``choices``) are skipped.
        StreamIncompleteError: for a stream that ended before a ``finish_reason``
            (under ``incomplete="error"``).
        OptionError: for an ``incomplete`` other than ``"error"`` or ``"keep"``.
    """
    policy = incomplete_policy(incomplete)
    stream = _Stream()
    return drive(
        events,
        provider=NAME,
        fast=stream.text_delta,  # the fast path (tests/test_streaming_fast.py)
        build=content_chunk,  # content_chunk(AssistantMessageChunk, text)
        step=stream.event,
        end=stream.close,
        missing=stream.missing,
        incomplete=policy,
    )


class _Stream:
    """The state of one decode_stream: O(1) per event besides the streamed data."""

    def __init__(self) -> None:
        self.started = False  # a chunk was yielded (it carried `provider`)
        self.kept_usage: dict[str, Any] | None = None  # the last usage, if not neutral
        self.response_id: str | None = None
        self.model: str | None = None
        self.stamped: set[int | None] = set()  # reasoning blocks given the model, by index
        self.empty: set[str] = set()  # "id" / "model" that came as "" (and nothing else yet)
        self.metadata: dict[str, Any] = {}  # last value emitted per metadata key
        self.primary: int | None = None  # wire index of the choice that is the message
        self.finished = False
        self.closing = False  # the usage chunk that ends a stream (empty `choices`) came
        self.side: dict[int, _SideChoice] = {}
        # content of the first choice
        self.mode: Literal["string", "blocks"] | None = None
        self.text_seen = False  # a `content` string came (even "")
        self.text_block = False  # the text block exists (blocks mode)
        self.reasoning_field: str | None = None
        self.reasoning_block = False
        self.details: DetailStream | None = None  # OpenRouter's reasoning_details
        self.derived = False  # `reasoning` came as the details' text
        self.refusal_block = False
        self.annotations: list[Any] = []  # raw, held until text comes
        self.annotated = False
        self.name_sent = False
        self.audio_field = False  # the audio output became a block
        self.audio = _Object()
        self.logprobs = _Object()
        self.others = _Object()  # the message's other fields: extras at the end
        self.calls: list[_StreamCall] = []
        self.calls_by_wire: dict[int, _StreamCall] = {}
        self.calls_by_id: dict[str, _StreamCall] = {}

    def missing(self, done_line: bool) -> tuple[str, str] | None:
        """What the stream ended without (a ``finish_reason``), if anything: drive's check.

        Complete: a finish reason, or either end marker of ``include_usage`` streams
        (the usage chunk with empty ``choices``, ``data: [DONE]``): some servers
        (Snowflake Cortex) send those and never a finish reason.
        """
        if self.finished or self.closing or done_line:
            return None
        if self.primary is None:
            return "finish_reason", "no choice came"
        detail = counted(len(self.calls), "tool call") if self.calls else "no tool call"
        return "finish_reason", f"{detail}, text {'begun' if self.text_seen else 'absent'}"

    # ------------------------------------------------------------------ events

    def text_delta(self, data: Any) -> str | None:
        """The text of an event that only continues the string run, else None.

        The fast path of :func:`decode_stream`: an event of the exact shape a server
        sends for a text delta, every value of which :meth:`event` would read as
        adding nothing but ``text`` to the run (all scalar but ``choices``, one choice
        of one delta: its depth is bounded). Anything else is left to :meth:`event`.
        """
        if type(data) is not dict or self.mode != "string" or self.annotations:
            return None
        choices = data.get("choices")
        if type(choices) is not list or len(choices) != 1:
            return None
        choice = choices[0]
        if type(choice) is not dict:
            return None
        delta = choice.get("delta")
        if type(delta) is not dict:
            return None
        text = delta.get("content")
        if type(text) is not str or not text:
            return None
        for key, value in delta.items():
            if key != "content" and value is not None and (key != "role" or value != "assistant"):
                return None
            if key not in DELTA_KEYS:  # (with a null value: `others` would keep it)
                return None
        index = choice.get("index", 0)
        if index is None:
            index = 0
        if type(index) is not int or index != self.primary:
            return None
        if choice.get("finish_reason") is not None or choice.get("logprobs") is not None:
            return None
        metadata = self.metadata
        for key, value in choice.items():
            if key not in CHOICE_KEYS and not _unchanged(metadata, key, value):
                return None
        for key, value in data.items():
            if key == "choices":
                continue
            if key in CHUNK_KEYS:
                if type(value) not in _SCALARS:
                    return None
                if key == "usage":
                    if value is not None:
                        return None
                elif key == "object":
                    if value == "error":
                        return None
                elif (
                    key in ("id", "model")
                    and type(value) is str
                    and (self.response_id if key == "id" else self.model) is None
                    and (value or key not in self.empty)
                ):
                    return None  # the first id or model (or empty one): event() records it
            elif key == "error" or not _unchanged(metadata, key, value):
                return None
        return text

    def event(self, raw: Any) -> list[AssistantMessageChunk]:
        """The chunks one event makes (none for an event that is not a chunk).

        A key that is not a string (Python data) is a ConversionError naming it.
        """
        if isinstance(raw, (str, bytes, bytearray)):  # one event as JSON text
            raw = loads(raw, NAME)
        # The SDK's stream helper (`client.chat.completions.stream(...)`) yields a
        # ChunkEvent per chunk, with events it derives from them (content.delta ...),
        # which add nothing: the chunk is read, the others skipped as non-chunks.
        if (raw.get("type") if isinstance(raw, dict) else getattr(raw, "type", None)) == "chunk":
            raw = raw["chunk"] if isinstance(raw, dict) else getattr(raw, "chunk", None)
        data = READ.json(raw)
        if not isinstance(data, dict):
            READ.fail(f"a stream event must be an object, not {describe(data)}")
        try:
            return self.read(data)
        except PythonKey as error:
            raise error.error("stream event") from None

    def read(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """:meth:`event` of an object (a Python key raises :class:`PythonKey`)."""
        error = data.get("error")
        if error or data.get("object") == "error":
            raise READ.stream_error(error if error else data)
        if "choices" not in data and "usage" not in data:
            json_copy(data)  # (Python data: a key JSON cannot hold is refused all the same)
            return []  # not a chunk (a ping, a proxy's own event): skipped
        pieces = _Pieces()
        for key, target in (("id", "response_id"), ("model", "model")):
            value = data.get(key)
            if isinstance(value, str) and value and getattr(self, target) is None:
                setattr(self, target, value)
                pieces.out[target] = value
            elif value == "":
                self.empty.add(key)  # (Snowflake's `"id": ""`: kept at the end if no other)
        for key, value in data.items():
            if key not in CHUNK_KEYS:
                self.note(pieces.meta, key, value)
            elif type(value) not in _SCALARS and key not in ("choices", "usage"):
                # id, model, object: read when strings, else left (Python keys refused)
                json_copy(value)
        choices = data.get("choices")
        if choices is not None:
            if not isinstance(choices, list):
                READ.fail(f"choices must be a list, not {describe(choices)}")
            for position, choice in enumerate(choices):
                self.choice(choice, position, pieces)
        usage = data.get("usage")
        if usage is not None and choices == []:
            self.closing = True  # stream_options.include_usage: the stream's last chunk
        if usage is not None:
            # usage is cumulative: one final chunk (include_usage) or totals on every chunk
            neutral, unknown = decode_usage(usage)
            if neutral is None:
                # counts the neutral usage cannot hold (null mid-stream): kept as they
                # came, at the end, unless later totals replace them
                self.kept_usage = unknown
            else:
                self.kept_usage = None
                pieces.out["usage"] = neutral
                pieces.out["usage_mode"] = "cumulative"
                if unknown:
                    pieces.meta["usage"] = unknown
        return self.chunk(pieces)

    def note(self, meta: dict[str, Any], key: str, value: Any) -> None:
        """A metadata value, emitted when it changes (the last one wins)."""
        if type(key) is not str:
            raise PythonKey(key)
        if value is not None and self.metadata.get(key, ABSENT) != value:
            copied = json_copy(value)
            self.metadata[key] = value
            meta[key] = copied

    def choice(self, raw: Any, position: int, pieces: _Pieces) -> None:
        """One choice of an event: the first one met is the message, others go aside."""
        choice = READ.object(raw, f"choice {position}", None)
        index = choice.get("index")
        if index is None:  # absent or null: the first choice
            index = 0
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            READ.fail(f"choice {position} index must be a non-negative integer, not {index!r}")
        delta = choice.get("delta")
        if delta is None:
            delta = {}
        delta = READ.object(delta, f"choice {index} delta", None)
        reason = choice.get("finish_reason")
        if reason is not None:
            reason = READ.string(reason, f"choice {index} finish_reason", None)
        if self.primary is None:
            self.primary = index
            if index != 0:
                self.note(pieces.meta, "index", index)
        if index != self.primary:
            self.side_choice(index, choice, delta, reason)
            return
        if reason is not None:
            self.finished = True
            pieces.out["raw_finish_reason"] = reason
            pieces.out["finish_reason"] = FINISH_REASONS.get(reason, "other")
        if choice.get("logprobs") is not None:
            self.logprobs.add({"logprobs": choice["logprobs"]})
        for key, value in choice.items():
            if key not in CHOICE_KEYS:
                self.note(pieces.meta, key, value)
        self.delta(delta, pieces)

    def side_choice(
        self, index: int, choice: dict[str, Any], delta: dict[str, Any], reason: Any
    ) -> None:
        """A delta of another choice (``n > 1``), kept for the response metadata."""
        side = self.side.get(index)
        if side is None:
            side = self.side[index] = _SideChoice(index)
        side.message.add(delta)
        if reason is not None:
            side.finish_reason = reason
        if choice.get("logprobs") is not None:
            side.logprobs.add({"logprobs": choice["logprobs"]})
        for key, value in choice.items():
            if key not in CHOICE_KEYS and value is not None:
                if type(key) is not str:
                    raise PythonKey(key)
                merge_value(side.fields, key, json_copy(value))

    def delta(self, delta: dict[str, Any], pieces: _Pieces) -> None:
        """The first choice's delta: content, reasoning, refusal, tool calls, audio."""
        blocks = pieces.blocks
        role = delta.get("role")
        if role is not None and role != "assistant":
            READ.fail(f"choice {self.primary} delta has role {role!r}")
        name = delta.get("name")
        if isinstance(name, str) and name:
            if not self.name_sent:
                self.name_sent = True
                pieces.out["name"] = name
        elif name is not None:
            self.others.add({"name": name})
        if self.reasoning_field is None:
            for field in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(field), str):
                    self.reasoning_field = field
                    break
        derived = None
        details = delta.get("reasoning_details")
        if details is not None:
            derived = self.add_details(details, pieces)
        rest = {
            key: value
            for key, value in delta.items()
            if key not in DELTA_KEYS
            and key != self.reasoning_field
            and (derived is None or key != "reasoning_details")
        }
        if rest:
            self.others.add(rest)
        if self.reasoning_field is not None:
            reasoning = delta.get(self.reasoning_field)
            if isinstance(reasoning, str) and reasoning == derived and not self.reasoning_block:
                if not self.derived:  # OpenRouter's `reasoning`: the details' text
                    self.derived = True
                    pieces.extras[DETAILS_TEXT] = {"field": self.reasoning_field}
            elif isinstance(reasoning, str):
                self.add_reasoning(reasoning, blocks)
            elif reasoning is not None:
                self.others.add({self.reasoning_field: reasoning})
        content = delta.get("content")
        if content is not None:
            content = READ.string(content, f"choice {self.primary} content", None)
            self.add_text(content, blocks, pieces.text)
        refusal = delta.get("refusal")
        if isinstance(refusal, str):
            self.add_refusal(refusal, blocks)
        elif refusal is not None:
            self.others.add({"refusal": refusal})
        annotations = delta.get("annotations")
        if isinstance(annotations, list):
            self.annotations.extend(json_copy(annotations))
            if self.text_seen:
                self.flush_annotations(blocks)
        elif annotations is not None:
            self.others.add({"annotations": annotations})
        audio = delta.get("audio")
        if audio is not None:
            # id, transcript and data pieces, expires_at: one block at the end
            self.audio.add(READ.object(audio, f"choice {self.primary} audio", None))
        tool_calls = delta.get("tool_calls")
        if tool_calls is not None:
            if not isinstance(tool_calls, list):
                READ.fail(f"tool_calls must be a list, not {describe(tool_calls)}")
            for fragment in tool_calls:
                pieces.calls.append(self.tool_call(fragment))

    # ------------------------------------------------------------------ content

    def add_details(self, raw: Any, pieces: _Pieces) -> str | None:
        """OpenRouter's ``reasoning_details`` pieces; their text (None: not read)."""
        if self.details is None:
            self.details = DetailStream()
        text = self.details.add(raw, pieces.blocks)
        if self.details.slots and self.mode is None:
            self.mode = "blocks"
        return text

    def add_reasoning(self, text: str, blocks: list[ContentBlock]) -> None:
        """Reasoning text: the reasoning block (slot 0); the reply is blocks from now."""
        if self.mode is None:
            self.mode = "blocks"
        if self.reasoning_block:
            if text:
                blocks.append(ReasoningBlock(text=text, index=REASONING_SLOT))
            return
        self.reasoning_block = True
        fields: dict[str, Any] = {"text": text, "provider": NAME, "index": REASONING_SLOT}
        if self.reasoning_field == "reasoning":
            fields["extras"] = {NAME: {"field": "reasoning"}}
        blocks.append(ReasoningBlock(**fields))

    def add_text(self, content: str, blocks: list[ContentBlock], text: list[str]) -> None:
        """Content text: a string run, or the text block (slot 1) once in blocks mode."""
        first = not self.text_seen
        self.text_seen = True
        if content and self.details is not None:
            self.details.flush(blocks)  # the reasoning is over: summaries whole
        if self.mode == "blocks":
            # (not before details still streaming: the text comes after them)
            if content or not (self.text_block or (self.details and self.details.slots)):
                self.text_block = True
                blocks.append(TextBlock(text=content, index=TEXT_SLOT))
        elif content:
            self.mode = "string"
            text.append(content)
        elif first and self.mode is None:
            text.append("")  # says the reply has (empty) text content
        if self.annotations:
            self.flush_annotations(blocks)

    def add_refusal(self, refusal: str, blocks: list[ContentBlock]) -> None:
        """Refusal text: the refusal block (slot 2); the reply is blocks from now."""
        if self.mode is None:
            self.mode = "blocks"
        if self.mode == "blocks" and self.text_seen and not self.text_block:
            # decode_response puts the (empty) text before the refusal
            self.text_block = True
            blocks.append(TextBlock(text="", index=TEXT_SLOT))
        if self.refusal_block:
            if refusal:
                blocks.append(RefusalBlock(text=refusal, index=REFUSAL_SLOT))
            return
        self.refusal_block = True
        blocks.append(
            RefusalBlock(text=refusal, index=REFUSAL_SLOT, extras={NAME: {"as_field": True}})
        )

    def flush_annotations(self, blocks: list[ContentBlock]) -> None:
        """Annotations that came with or after text: citations on the text block."""
        decoded = [decode_annotation(item, 0) for item in self.annotations]
        self.annotations = []
        if not decoded:
            return
        self.annotated = True
        if self.mode == "string":
            # Text that streamed as a string cannot take them (the accumulator keys
            # blocks by index): they come as a block of their own.
            blocks.append(TextBlock(text="", annotations=decoded))
        else:
            self.mode = "blocks"
            self.text_block = True
            blocks.append(TextBlock(text="", index=TEXT_SLOT, annotations=decoded))

    # ------------------------------------------------------------------ tool calls

    def tool_call(self, raw: Any) -> ToolCallChunk:
        """A tool call fragment, as a chunk keyed by the call's position."""
        data = READ.object(raw, "a tool call delta", None)
        wire = data.get("index", ABSENT)
        call_id = data.get("id")
        if call_id is not None:
            call_id = READ.string(call_id, "tool call id", None)
        call: _StreamCall | None
        if wire is ABSENT or wire is None:
            # servers that leave `index` out: a new id starts a call
            if call_id and call_id in self.calls_by_id:
                call = self.calls_by_id[call_id]
            elif call_id or not self.calls:
                call = self.new_call()
            else:
                call = self.calls[-1]
        elif isinstance(wire, int) and not isinstance(wire, bool) and wire >= 0:
            call = self.calls_by_wire.get(wire)
            if call is None or (call_id and call.id and call_id != call.id):
                call = self.calls_by_wire[wire] = self.new_call()
        else:
            READ.fail(f"tool call index must be a non-negative integer, not {wire!r}")
        fields: dict[str, Any] = {"index": call.position}
        extras: dict[str, Any] = {}
        if call_id and call.id is None:
            call.id = fields["id"] = call_id
            self.calls_by_id[call_id] = call
        elif call_id == "":
            call.empty_id = True  # (Gemini's compatibility layer: kept, as decode_response)
        kind = data.get("type")
        if kind is not None:
            if kind not in ("function", "custom"):
                READ.fail(f"tool call {call.position} has unknown type {kind!r}")
            if not call.typed:
                call.typed = True
                call.custom = kind == "custom"
                if call.custom:
                    extras["type"] = "custom"
        key = "custom" if call.custom else "function"
        inner = data.get(key)
        if inner is not None:
            inner = READ.object(inner, f"tool call {call.position} {key}", None)
            name = inner.get("name")
            if name is not None:
                name = READ.string(name, f"tool call {call.position} name", None)
                if name and call.name is None:
                    call.name = fields["name"] = name
            piece = inner.get("input" if call.custom else "arguments")
            if piece is None and "arguments" in inner:
                call.null_arguments = True
            if piece is not None:
                piece = READ.string(piece, f"tool call {call.position} arguments", None)
                call.grown(len(piece))
                if call.custom:
                    # free-form input, as the JSON text of {"input": ...}
                    opening = '{"input": "' if not call.parts else ""
                    call.parts.append(piece)
                    fields["arguments"] = opening + json.dumps(piece)[1:-1]
                elif piece:
                    call.parts.append(piece)
                    fields["arguments"] = piece
            known = ("name", "input" if call.custom else "arguments")
            leftover = self.leftover(call, inner, known, f"{key}/")
            if leftover:
                extras[key] = leftover
        extras.update(self.leftover(call, data, CALL_KEYS))
        if extras:
            fields["extras"] = {NAME: extras}
        return READ.build(ToolCallChunk, fields)

    def new_call(self) -> _StreamCall:
        """The next tool call."""
        call = _StreamCall(len(self.calls))
        self.calls.append(call)
        return call

    @staticmethod
    def leftover(
        call: _StreamCall, data: dict[str, Any], known: Iterable[str], where: str = ""
    ) -> dict[str, Any]:
        """A fragment's unknown keys, for the call's extras (a null only before a value)."""
        known = set(known)
        found: dict[str, Any] = {}
        for key, value in data.items():
            if key in known:
                continue
            if type(key) is not str:
                raise PythonKey(key)
            if value is None and where + key in call.extras_seen:
                continue
            call.extras_seen.add(where + key)
            found[key] = json_copy(value)
        return found

    def finish_call(self, call: _StreamCall) -> ToolCallChunk | None:
        """A call's last fragment: the exact argument text and markers, if any.

        A call that never got an id or a name is the accumulator's InvalidToolCall
        (as :func:`decode_response` reads the same call); an empty id is kept.
        """
        extras: dict[str, Any] = {}
        fields: dict[str, Any] = {"index": call.position}
        if call.id is None and call.empty_id:
            extras["id"] = ""
        if call.custom:
            fields["arguments"] = ('{"input": "' if not call.parts else "") + '"}'
        else:
            if not call.typed:
                extras["no_type"] = True
            raw = "".join(call.parts)
            arguments, _ = parse_arguments(raw)
            if not raw and call.null_arguments and call.name and call.id:
                extras["arguments"] = None  # as decode_response reads it
            elif (
                arguments is not None
                and call.name
                and call.id
                and raw != json.dumps(arguments, ensure_ascii=False)
            ):
                extras["arguments"] = raw
        if extras:
            fields["extras"] = {NAME: extras}
        return ToolCallChunk(**fields) if len(fields) > 1 else None

    # ------------------------------------------------------------------ output

    def chunk(self, pieces: _Pieces) -> list[AssistantMessageChunk]:
        """What an event (or the end) gathered, as chunks: none, one, or two."""
        chunks: list[AssistantMessageChunk] = []
        out = pieces.out
        joined = "".join(pieces.text)
        if pieces.blocks:
            if joined:  # string text, then blocks, in one event: the text first
                first: dict[str, Any] = {"content": joined}
                for key in ("response_id", "model"):  # (with the ids, as the event has them)
                    if key in out:
                        first[key] = out.pop(key)
                chunks.append(self.build(first))
            out["content"] = (
                stamp_once(pieces.blocks, self.model, self.stamped) if self.model else pieces.blocks
            )
        elif pieces.text:
            out["content"] = joined
        if pieces.calls:
            out["tool_call_chunks"] = pieces.calls
        if pieces.meta:
            out["response_metadata"] = {NAME: pieces.meta}
        if pieces.extras:
            out["extras"] = {NAME: pieces.extras}
        if out:
            chunks.append(self.build(out))
        return chunks

    def build(self, fields: dict[str, Any]) -> AssistantMessageChunk:
        """A chunk; the first one names the provider."""
        if not self.started:
            self.started = True
            fields["provider"] = NAME
        return READ.build(AssistantMessageChunk, fields)

    def close(self) -> list[AssistantMessageChunk]:
        """The final chunk: what is only whole at the end of the stream."""
        pieces = _Pieces()
        meta, extras, blocks = pieces.meta, pieces.extras, pieces.blocks
        pieces.calls = [
            chunk for call in self.calls if (chunk := self.finish_call(call)) is not None
        ]
        if self.annotations:
            if self.text_seen:
                self.flush_annotations(blocks)
            else:  # no text to cite: kept as they came, like decode_response does
                self.others.add({"annotations": self.annotations})
        if self.details is not None:
            self.details.flush(blocks)
            if self.details.kept():
                self.others.add({"reasoning_details": []})
        if self.mode == "blocks" and self.text_seen and not self.text_block:
            blocks.append(TextBlock(text="", index=TEXT_SLOT))
        if self.primary is not None:
            # a null field is no field (decode_response drops them too)
            extras.update(
                (key, value) for key, value in self.others.build().items() if value is not None
            )
            audio = self.audio.build()
            if audio:
                block = audio_block(audio, None)
                if block is not None:  # as decode_response reads it, after the rest
                    self.audio_field = True
                    blocks.append(block.model_copy(update={"index": AUDIO_SLOT}))
                elif isinstance(audio.get("id"), str):
                    meta["audio"] = audio
                    extras["audio"] = {"id": audio["id"]}
                else:
                    extras["audio"] = audio
            shape = self.content_shape()
            if shape is not None:
                extras["content_shape"] = shape
            logprobs = self.logprobs.build().get("logprobs")
            if logprobs is not None:
                meta["logprobs"] = logprobs
        for key, target in (("id", self.response_id), ("model", self.model)):
            if key in self.empty and target is None:
                meta[key] = ""  # an empty id the server sent, as decode_response keeps it
        if self.kept_usage is not None:  # as decode_response keeps it
            meta["usage"] = self.kept_usage
        if self.side:
            meta["choices"] = [side.build() for side in self.side.values()]
        if self.finished:
            pieces.out["chunk_position"] = "last"
        return self.chunk(pieces)

    def content_shape(self) -> Shape | None:
        """``extras.content_shape`` as decode_response would record it."""
        shape: Shape = "string" if self.text_seen else "null"
        side: list[ContentBlock] = []
        if self.reasoning_block or (self.details is not None and self.details.slots):
            side.append(ReasoningBlock(text=""))
        if self.text_seen:
            side.append(TextBlock(text=""))
        if self.refusal_block:
            side.append(RefusalBlock(text="", extras={NAME: {"as_field": True}}))
        if self.audio_field:
            side.append(_AUDIO_FIELD)
        if shape == "string" and len(side) == 1 and not self.annotated:
            return None
        if shape == "null" and not side:
            return None
        return shape if shape != default_shape(side) else None


# ------------------------------------------------------------------ event helpers

_AUDIO_FIELD: Final = AudioBlock(
    id="audio", base64="", mime_type="audio/wav", extras={NAME: {"as_field": True}}
)
"""An audio output block, for :meth:`_Stream.content_shape` (the shape of its side)."""

_SCALARS = frozenset({str, int, float, bool, type(None)})


def _unchanged(metadata: dict[str, Any], key: str, value: Any) -> bool:
    """Whether ``_Stream.note`` would emit nothing for a scalar ``value`` of ``key``."""
    return type(value) in _SCALARS and (value is None or metadata.get(key, ABSENT) == value)


class _Pieces:
    """What one event (or the end of the stream) adds, gathered for its chunk."""

    __slots__ = ("blocks", "calls", "extras", "meta", "out", "text")

    def __init__(self) -> None:
        self.out: dict[str, Any] = {}  # the chunk's own fields
        self.meta: dict[str, Any] = {}  # response_metadata["openai_chat"]
        self.extras: dict[str, Any] = {}  # extras["openai_chat"]
        self.blocks: list[ContentBlock] = []
        self.text: list[str] = []  # string content
        self.calls: list[ToolCallChunk] = []


class _Parts:
    """A streamed string: fragments appended, joined once."""

    __slots__ = ("parts",)

    def __init__(self, text: str) -> None:
        self.parts = [text]


class _Object:
    """A JSON object assembled from deltas the way the SDK accumulates them.

    Strings are appended (``index`` and ``type`` replaced), objects merged, lists of
    objects with an ``index`` merged by it, other lists extended, other values
    replaced; ``null`` replaces nothing.
    """

    __slots__ = ("values",)

    def __init__(self) -> None:
        self.values: dict[str, Any] = {}

    def add(self, delta: Mapping[str, Any]) -> None:
        """Accumulate one delta."""
        for key, value in delta.items():
            if type(key) is not str:  # (Python data)
                raise PythonKey(key)
            current = self.values.get(key, ABSENT)
            if key in ("index", "type") and value is not None:
                current = ABSENT
            self.values[key] = _accumulate(current, value)

    def build(self) -> dict[str, Any]:
        """The object assembled so far, as plain JSON."""
        return {key: _built(value) for key, value in self.values.items()}


class _Items:
    """A streamed list: entries with an integer ``index`` merged by it."""

    __slots__ = ("by_index", "items")

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.by_index: dict[int, _Object] = {}

    def add(self, entries: list[Any]) -> None:
        """Accumulate a list delta: indexed entries merged, others appended."""
        for entry in entries:
            position = entry.get("index") if isinstance(entry, dict) else None
            if isinstance(position, int) and not isinstance(position, bool):
                target = self.by_index.get(position)
                if target is None:
                    target = self.by_index[position] = _Object()
                    self.items.append(target)
                target.add(entry)
            else:
                self.items.append(_accumulate(ABSENT, entry))


def _accumulate(current: Any, value: Any) -> Any:
    """``current`` with a delta ``value`` added (see :class:`_Object`)."""
    if value is None:
        return None if current is ABSENT else current
    if isinstance(current, _Parts) and isinstance(value, str):
        current.parts.append(value)
        return current
    if isinstance(current, _Object) and isinstance(value, dict):
        current.add(value)
        return current
    if isinstance(current, _Items) and isinstance(value, list):
        current.add(value)
        return current
    if isinstance(value, str):
        return _Parts(value)
    if isinstance(value, dict):
        merged = _Object()
        merged.add(value)
        return merged
    if isinstance(value, list):
        items = _Items()
        items.add(value)
        return items
    return copy_json(value)


def _built(value: Any) -> Any:
    """An accumulated value as plain JSON."""
    if isinstance(value, _Parts):
        return "".join(value.parts)
    if isinstance(value, _Object):
        return value.build()
    if isinstance(value, _Items):
        return [_built(item) for item in value.items]
    return value


class _StreamCall:
    """One streamed tool call of the first choice."""

    __slots__ = (
        "custom",
        "empty_id",
        "extras_seen",
        "id",
        "name",
        "null_arguments",
        "parts",
        "position",
        "size",
        "typed",
    )

    def __init__(self, position: int) -> None:
        self.position = position
        self.size = 0  # argument characters so far (the string limit)
        self.id: str | None = None
        self.empty_id = False  # an `"id": ""` came
        self.name: str | None = None
        self.typed = False
        self.custom = False
        self.null_arguments = False  # `"arguments": null` came (OpenRouter, no arguments)
        self.parts: list[str] = []  # argument fragments, for the exact text at the end
        self.extras_seen: set[str] = set()

    def grown(self, size: int) -> None:
        """Count ``size`` more argument characters; past the string limit, raise.

        The fragments are kept for the exact text of the final chunk, so the limit
        bounds what the decoder holds (as :class:`~chatschema.ChunkAccumulator`
        refuses such arguments too).

        Raises:
            ConversionError: ``maxLength``, pointing at the call's arguments.
        """
        self.size += size
        limit = limits.MAX_STRING_CHARS
        if self.size > limit:
            pointer = f"/tool_call_chunks/{self.position}/arguments"
            text = f"longer than {limit:,} characters (chatschema.limits.MAX_STRING_CHARS)"
            raise ConversionError(
                f"tool call {self.position}: the arguments are {text}",
                provider=NAME,
                problems=[Problem(pointer, "maxLength", f"the arguments are {text}")],
            )


class _SideChoice:
    """A choice other than the first (``n > 1``), assembled for the response metadata."""

    __slots__ = ("fields", "finish_reason", "index", "logprobs", "message")

    def __init__(self, index: int) -> None:
        self.index = index
        self.message = _Object()
        self.logprobs = _Object()
        self.finish_reason: Any = None
        self.fields: dict[str, Any] = {}

    def build(self) -> dict[str, Any]:
        """The choice as a complete response carries it."""
        message: dict[str, Any] = {"role": "assistant", **self.message.build()}
        message["role"] = "assistant"
        message.setdefault("content", None)
        calls = message.get("tool_calls")
        if isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    call.pop("index", None)
        logprobs = self.logprobs.build().get("logprobs") if self.logprobs.values else None
        return {
            "index": self.index,
            "message": message,
            "logprobs": logprobs,
            "finish_reason": self.finish_reason,
            **self.fields,
        }
