"""Gemini ``streamGenerateContent``: events as chunks, as they arrive.

The chunks assemble to :func:`~chatschema.providers.gemini.decode_response` of the
complete response the stream stands for (``docs/providers/gemini.md``,
*Streaming*). Text parts arrive as deltas; a function call whose arguments stream
(``partial_args``, Gemini 3) arrives in pieces that make one part; every other part
arrives whole.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ContentBlock, ReasoningBlock, TextBlock
from chatschema_models.tool import ToolCallChunk
from chatschema_models.usage import Usage
from pydantic import ValidationError as PydanticValidationError

from chatschema._wire import copy_model, trusted
from chatschema.errors import ConversionError
from chatschema.providers._common import merge_value
from chatschema.providers._common.drive import Incomplete, counted, drive, incomplete_policy
from chatschema.providers._common.replay import provenance
from chatschema.providers.gemini.blocks import PartReader, Scope, canonical, invalid, split, utf8
from chatschema.providers.gemini.usage import usage_of
from chatschema.providers.gemini.wire import (
    FINISH_REASON_NUMBERS,
    FINISH_REASONS,
    MISSING,
    NAME,
    READ,
    RESPONSE_FIELDS,
    SDK_ONLY,
    blocked,
    content_rest,
    json_data,
    kept_as_sent,
    load,
    plain,
    reason_name,
)


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
    """The chunks of a ``streamGenerateContent`` stream, as its events arrive.

    Args:
        events: the stream's ``GenerateContentResponse`` events: REST JSON objects
            (camelCase), snake_case data, JSON text, google-genai
            ``GenerateContentResponse`` objects (as ``generate_content_stream``
            yields them), or the raw SSE body of ``?alt=sse`` as bytes or text
            pieces cut anywhere; sync or async. An async iterable (what
            ``await client.aio.models.generate_content_stream(...)`` returns,
            httpx's ``aiter_bytes()``, an async generator) gives an async generator
            of the same chunks (``async for``; see ``docs/async.md``). When
            decoding stops before the source's end (the caller breaks off, an
            error), the source is closed.
        incomplete: a stream that ends before a candidate's ``finishReason`` (or
            a blocked prompt): ``"error"`` (default) raises
            ``StreamIncompleteError`` once its chunks are out; ``"keep"`` ends
            with a chunk whose ``response_metadata["chatschema"]["incomplete"]``
            says so.

    Yields:
        ``AssistantMessageChunk``s (one or more per event, lazily). Assembled with
        :class:`~chatschema.ChunkAccumulator`, :func:`~chatschema.merge_chunks` or
        ``+``, they give :func:`decode_response` of the complete response the stream
        stands for, the parts a non-streamed response has
        (``docs/providers/gemini.md``, *Streaming*): text deltas of the same kind
        (same ``thought`` flag and other part fields) form one part; a delta
        carrying a ``thought_signature`` (empty text included) is the last delta of
        its part, which keeps the signature; every other part is whole. Plain answer
        text goes out as string content (a signed delta ending it as a text block
        without ``index``), everything else as blocks whose ``index`` is the part's
        position; each function call as one fragment, ``index`` = its position,
        arguments as JSON text. Usage is cumulative; when a finish reason (or a
        blocked prompt) was seen, the final chunk is ``chunk_position="last"``.

    Raises:
        ConversionError: for an ``{"error": ...}`` event (naming its message) and
            for events that are not Gemini responses. Named events (an SSE
            ``event:`` line, a ``type``) that carry no response field, such as
            pings, are ignored.
        StreamIncompleteError: for a stream that ended before a finish reason
            (under ``incomplete="error"``).
        OptionError: for an ``incomplete`` other than ``"error"`` or ``"keep"``.
    """
    policy = incomplete_policy(incomplete)
    state = _Stream()
    held: dict[str, Any] | None = None

    def step(event: Any) -> Iterator[AssistantMessageChunk]:
        """The chunks of one event of the general path; the last one is held back."""
        nonlocal held
        try:
            produced = state.event(event)
        except ConversionError:
            if held is not None:  # what arrived before the error, without "last"
                yield AssistantMessageChunk(**held)
            raise
        for fields in produced:
            if held is not None:
                yield AssistantMessageChunk(**held)
                held = None
            if state.finished:
                held = fields  # the last chunk, unless more arrive
            else:
                yield AssistantMessageChunk(**fields)

    def end() -> Iterator[AssistantMessageChunk]:
        """The chunk held back, marked last: no event came after it."""
        if held is not None:
            held["chunk_position"] = "last"
            yield AssistantMessageChunk(**held)

    def errors(error: Exception) -> Exception | None:
        """Pydantic refusals and runaway nesting as ConversionError."""
        if isinstance(error, PydanticValidationError):
            return invalid(error)
        if isinstance(error, RecursionError):
            return ConversionError("input is nested too deeply", provider=NAME)
        return None

    return drive(
        events,
        provider=NAME,
        fast=state.text_delta,  # the fast path (tests/test_streaming_fast.py)
        build=trusted,  # trusted(AssistantMessageChunk, fields)
        step=step,
        end=end,
        errors=errors,
        missing=state.missing,
        incomplete=policy,
    )


# ------------------------------------------------------------------ stream state


class _Run:
    """The text part being streamed: its position, its kind and how its deltas go out."""

    __slots__ = ("digest", "kind", "meta", "open", "position", "string")

    def __init__(
        self, position: int, meta: dict[str, Any], kind: dict[str, Any], *, string: bool
    ) -> None:
        self.position = position
        self.meta = meta  # the part's fields other than text (thought, signature ...)
        self.kind = kind  # the same without the signature: what deltas must share to join
        self.string = string  # deltas go out as string content, not blocks
        self.open = "thought_signature" not in meta  # a signature ends the part
        self.digest: Any = None  # SHA-256 of the text, for a synthesized-id scope


class _Stream:
    """The state of one stream. Each event costs time in its own size only."""

    def __init__(self) -> None:
        self.reader = PartReader()
        self.scope = Scope()
        self.position = 0  # parts of the assembled response so far
        self.run: _Run | None = None
        self.call: _StreamedCall | None = None  # a call whose arguments are streaming
        self.string_open = False  # the assembled string content would take more text
        self.has_calls = False
        self.candidates = False
        self.blocked = False
        self.finished = False
        self.raw_reason: str | None = None
        self.reason: str | None = None  # the normalized finish reason last sent
        self.model: str | None = None
        self.response_id: str | None = None
        self.usage: dict[str, Any] = {}  # usage_metadata, merged
        self.citations: list[Any] = []
        self.cited: set[bytes] = set()
        self.usage_seen: tuple[dict[str, Any], Usage, dict[str, Any]] | None = None

    def missing(self, done_line: bool) -> tuple[str, str] | None:
        """What the stream ended without (a ``finishReason``), if anything: drive's check."""
        if self.finished:
            return None
        if not self.candidates:
            return "finishReason", "no candidate came"
        calls = "function calls among them" if self.has_calls else "no function call"
        return "finishReason", f"{counted(self.position, 'part')}, {calls}"

    def text_delta(self, data: Any) -> dict[str, Any] | None:
        """The chunk of an event that only continues the plain text run, else None.

        The fast path of :func:`decode_stream`: a REST event (camelCase) of the exact
        shape Gemini streams text in (one candidate, one text part, model and
        response id already known, ``usageMetadata`` of flat counts: its depth is
        bounded), read as :meth:`event` reads it. The usage it repeats is decoded
        once and kept (``usage_seen``); anything else is None, for :meth:`event`.
        """
        if type(data) is not dict or self.finished or not _EVENT_KEYS.issuperset(data):
            return None
        run = self.run
        if run is None or run.kind or not run.string or not run.open:
            return None
        candidates = data.get("candidates")
        if type(candidates) is not list or len(candidates) != 1:
            return None
        candidate = candidates[0]
        if type(candidate) is not dict or not _CANDIDATE_KEYS.issuperset(candidate):
            return None
        content = candidate.get("content")
        if type(content) is not dict or not _CONTENT_KEYS.issuperset(content):
            return None
        parts = content.get("parts")
        if type(parts) is not list or len(parts) != 1 or content.get("role", "model") != "model":
            return None
        part = parts[0]
        text = part.get("text") if type(part) is dict and len(part) == 1 else None
        index = candidate.get("index", 0)
        if type(text) is not str or not text or type(index) is not int or index != 0:
            return None
        model = data.get("modelVersion")
        if model is not None and (type(model) is not str or (self.model is None and model)):
            return None
        response_id = data.get("responseId")
        if response_id is not None and (
            type(response_id) is not str
            or (self.response_id is None and self.scope.value is None and response_id)
        ):
            return None
        if self.blocked:
            return None
        usage = data.get("usageMetadata")
        metadata: dict[str, Any] = {}
        fields: dict[str, Any] = {"content": text, "provider": NAME}
        if usage is not None:
            seen = self.seen_usage(usage)
            if seen is None:
                return None
            fields["usage"] = copy_model(seen[1])
            fields["usage_mode"] = "cumulative"
            metadata["usage_metadata"] = _flat_copy(seen[2])
        if "index" in candidate:  # response_metadata as event() gathers it, in order
            metadata["index"] = 0
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        self.candidates = True
        if run.digest is not None:
            run.digest.update(utf8(text))
        return fields

    def seen_usage(self, usage: Any) -> tuple[dict[str, Any], Usage, dict[str, Any]] | None:
        """The usage of an event as :meth:`event` decodes it, kept while it repeats.

        ``(the raw usage; the neutral usage; usage_metadata)``, or None for usage that
        is not flat counts. Merging the same usage again changes nothing, so while
        events repeat it (strictly: ``1`` is not ``1.0`` nor ``True``) it is decoded
        once.
        """
        seen = self.usage_seen
        if seen is not None and _same(usage, seen[0]):
            return seen
        if type(usage) is not dict or not all(map(_flat, usage.values())):
            return None
        converted = plain(usage)
        for field, value in converted.items():  # as event() merges it
            merge_value(self.usage, field, value)
        self.usage_seen = (_flat_copy(usage), usage_of(self.usage), _flat_copy(converted))
        return self.usage_seen

    def event(self, payload: Any) -> list[dict[str, Any]]:
        """The chunks of one event, as keyword arguments of AssistantMessageChunk."""
        data = load(payload)
        if not isinstance(data, dict):
            READ.fail(
                "a stream event must be a GenerateContentResponse object, "
                f"not {type(data).__name__}"
            )
        if "error" in data:
            raise READ.stream_error(data["error"], "code", "status")
        if isinstance(data.get("type"), str):  # an SSE event name (Gemini sends none)
            del data["type"]
            if not RESPONSE_FIELDS.intersection(data):
                return []  # not a response: a ping, an event kind this codec does not know
        first: dict[str, Any] = {}
        last: dict[str, Any] = {}
        model = data.get("model_version")
        if self.model is None and isinstance(model, str) and model:
            self.model = first["model"] = model
        response_id = data.get("response_id")
        if (
            self.response_id is None
            and self.scope.value is None  # an id after a synthesized scope: left out
            and isinstance(response_id, str)
            and response_id
        ):
            self.response_id = first["response_id"] = self.scope.response_id = response_id
        metadata: dict[str, Any] = {
            key: value
            for key, value in data.items()
            if key not in ("candidates", "model_version", "response_id") and key not in SDK_ONLY
        }
        pieces: list[str | ContentBlock] = []
        calls: list[ToolCallChunk] = []
        reason_here = False
        candidate = self.candidate(data)
        if candidate is not None:
            content = READ.object(candidate.get("content", {}), "candidate content")
            if content.get("role", "model") != "model":
                READ.fail(f"a candidate's content has role {content.get('role')!r}")
            for part in READ.list(content.get("parts", []), "candidate parts"):
                self.part(part, pieces, calls)
            reason = candidate.get("finish_reason")
            if reason is not None and self.call is not None:
                self.finish_call(calls)  # the response ends: so does a streamed call
            if reason is not None:
                # a name, or its number (enum-encoding=int, wire.FINISH_REASON_NUMBERS)
                self.raw_reason = reason_name(reason, FINISH_REASON_NUMBERS, "finish_reason")
                self.finished = reason_here = True
            metadata.update(
                (key, value) for key, value in candidate.items() if kept_as_sent(key, value)
            )
            rest = content_rest(content)
            if rest:
                metadata["content"] = rest
            cited = candidate.get("citation_metadata")
            if isinstance(cited, dict) and isinstance(cited.get("citations"), list):
                for citation in cited["citations"]:
                    digest = canonical(citation)
                    if digest not in self.cited:
                        self.cited.add(digest)
                        self.citations.append(citation)
                metadata["citation_metadata"] = {**cited, "citations": list(self.citations)}
        elif not self.candidates:
            block = blocked(data.get("prompt_feedback"))
            if block is not None:
                self.blocked = self.finished = True
                last["finish_reason"] = "content_filter"
                last["raw_finish_reason"] = block
        if self.raw_reason is not None and (reason_here or calls):
            normalized = FINISH_REASONS.get(self.raw_reason, "other")
            if normalized == "stop" and self.has_calls:
                normalized = "tool_calls"
            if reason_here or normalized != self.reason:
                self.reason = last["finish_reason"] = normalized
                last["raw_finish_reason"] = self.raw_reason
        usage = data.get("usage_metadata")
        if usage is not None:
            for field, value in READ.object(usage, "usage_metadata").items():
                merge_value(self.usage, field, value)
            last["usage"] = usage_of(self.usage)
            last["usage_mode"] = "cumulative"
            self.usage_seen = None  # the fast path's cache: no longer the last usage merged
        if calls:
            last["tool_call_chunks"] = calls
        if metadata:
            last["response_metadata"] = {NAME: metadata}
        return _group(pieces, first, last)

    def candidate(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """The event's first candidate (``index`` 0); other candidates are not assembled."""
        for item in READ.list(data.get("candidates", []), "candidates"):
            candidate = READ.object(item, "a candidate")
            if candidate.get("index", 0) == 0:
                if self.blocked:
                    READ.fail("a candidate after the prompt was blocked")
                self.candidates = True
                return candidate
        return None

    def part(self, part: Any, pieces: list[str | ContentBlock], calls: list[ToolCallChunk]) -> None:
        """One streamed part: a text delta, a piece of a streamed call, or a whole part."""
        key, meta = split(part, 0, self.position)
        if self.call is not None:
            if key == "function_call" and _continues(part[key]):
                self.continue_call(part[key], meta, calls)
                return
            self.finish_call(calls)  # a part of another kind ends it
        position = self.position
        if key == "text":
            self.text(part, meta, pieces)
            return
        self.close_run()
        self.position += 1
        if key == "function_call" and _starts(part[key]):
            self.start_call(part[key], meta, position, calls)
            return
        if self.scope.hashing:
            self.scope.feed(part)
        if key == "function_call":
            call = self.reader.call(part[key], meta, 0, position, self.scope)
            arguments = call["arguments"]
            fragment: dict[str, Any] = {
                "index": position,
                "id": call["id"],
                "arguments": (
                    arguments
                    if isinstance(arguments, str)  # (a call without a name: its text)
                    else json_data(arguments, "function_call.args")
                ),
            }
            if "name" in call:  # (without: the accumulator's InvalidToolCall)
                fragment["name"] = call["name"]
                self.has_calls = True
            if "extras" in call:
                fragment["extras"] = call["extras"]
            calls.append(ToolCallChunk(**fragment))
        else:
            pieces.append(self.block(part, key, meta, position))

    def text(
        self, part: dict[str, Any], meta: dict[str, Any], pieces: list[str | ContentBlock]
    ) -> None:
        """A text delta: it joins the open text part of its kind, or starts a part.

        A delta carrying a ``thought_signature`` ends its part (Thought signatures,
        streaming: the signature arrives on the last delta of a part, often with
        empty text); a later delta starts a new one.
        """
        run = self.run
        position = run.position if run is not None and run.open else self.position
        text = READ.string(part["text"], "text", 0, position)
        signed = "thought_signature" in meta
        if not text and not signed:
            return  # an empty delta carries nothing
        kind = {key: value for key, value in meta.items() if key != "thought_signature"}
        if run is not None and run.open and run.kind == kind:
            if not signed:
                if run.string:
                    pieces.append(text)
                elif kind.get("thought") is True:
                    pieces.append(ReasoningBlock(text=text, index=run.position))
                else:
                    pieces.append(TextBlock(text=text, index=run.position))
            else:
                run.meta = meta
                run.open = False
                block = self.reader.block(part, "text", meta, 0, run.position, self.scope)
                if run.string:  # a text block without index continues the string deltas
                    pieces.append(block)
                else:
                    update = {"index": run.position, **provenance(block, self.model)}
                    pieces.append(block.model_copy(update=update))
        else:
            self.close_run()
            position = self.position
            self.position += 1
            string = not meta and not self.string_open
            run = self.run = _Run(position, meta, kind, string=string)
            if self.scope.hashing:
                run.digest = hashlib.sha256()
            if string:
                self.string_open = True
                pieces.append(text)
            else:
                pieces.append(self.block(part, "text", meta, position))
        if run.digest is not None:
            run.digest.update(utf8(text))

    def block(
        self, part: dict[str, Any], key: str | None, meta: dict[str, Any], position: int
    ) -> Any:
        """The block of a part (a text part's first delta), carrying its position."""
        self.string_open = False
        block = self.reader.block(part, key, meta, 0, position, self.scope)
        return block.model_copy(update={"index": position, **provenance(block, self.model)})

    def start_call(
        self, value: dict[str, Any], meta: dict[str, Any], position: int, calls: list[ToolCallChunk]
    ) -> None:
        """The first part of a call whose arguments stream (``partial_args``).

        Function calling, streamed arguments (``stream_function_call_arguments``,
        Gemini 3): the first ``function_call`` part names the function and says
        ``will_continue``; the parts that follow carry ``partial_args`` (a JSON path
        and a value, strings in pieces) and no name; the first without
        ``will_continue`` ends the call. The call goes out as fragments at its part
        position: the name first, then the arguments as JSON text as they come; its
        id (when only the whole part can tell it) and extras with the last fragment.
        """
        name = value.get("name", MISSING)
        call = self.call = _StreamedCall(position, name, value.get("id"), meta)
        call.rest = {  # other FunctionCall fields stay on the call, as in the whole part
            k: v
            for k, v in value.items()
            if k not in ("name", "id", "args", "partial_args", "will_continue")
        }
        fragment: dict[str, Any] = {"index": position, "arguments": ""}
        if call.named:
            fragment["name"] = name
        # else (the event with the name did not come): a call without a name, kept as
        # it came, as decode_response reads it (blocks.PartReader.call: InvalidToolCall)
        if isinstance(call.wire_id, str) and call.wire_id:
            fragment["id"] = call.id = call.wire_id
        elif not self.scope.hashing:  # the id decode_response gives it (blocks.PartReader.call)
            fragment["id"] = call.id = f"gemini_call_{self.scope.text(position)}_{position}"
        calls.append(ToolCallChunk(**fragment))
        self.has_calls = self.has_calls or call.named
        self.continue_call(value, {}, calls, first=True)

    def continue_call(
        self,
        value: dict[str, Any],
        meta: dict[str, Any],
        calls: list[ToolCallChunk],
        *,
        first: bool = False,
    ) -> None:
        """A piece of the streamed call: its partial arguments; the last ends it."""
        call = self.call
        assert call is not None
        for key, item in meta.items():  # part metadata (a signature) of any piece
            call.meta.setdefault(key, item)
        if not first and call.wire_id is None and isinstance(value.get("id"), str):
            call.wire_id = value["id"]
        text = []
        pieces = value.get("partial_args", [])
        for argument in READ.list(pieces, "function_call.partial_args", 0, call.position):
            argument = READ.object(argument, "a partial arg", 0, call.position)
            path = _json_path(argument.get("json_path"))
            if path is None or not call.writer.fits(argument, path):
                # no place in the arguments (no path, or one already streamed): kept as
                # it came, in the call's partial_args
                call.stray.append(argument)
                continue
            text.append(call.writer.add(argument, path))
        if any(text) and call.named:  # (without a name: the whole text at the end)
            calls.append(ToolCallChunk(index=call.position, arguments="".join(text)))
        if value.get("will_continue") is not True:
            self.finish_call(calls)

    def finish_call(self, calls: list[ToolCallChunk]) -> None:
        """End the streamed call: close its arguments, give its id and extras."""
        call = self.call
        assert call is not None
        self.call = None
        closing = call.writer.close()
        whole: dict[str, Any] = {**call.rest, "args": call.writer.tree}
        if call.stray:  # partial args without a usable json_path, as they came
            whole["partial_args"] = call.stray
        if call.name is not MISSING:
            whole = {"name": call.name, **whole}
        if call.wire_id is not None:
            whole["id"] = call.wire_id
        if self.scope.hashing:  # the call as the whole response has it
            self.scope.feed({**call.meta, "function_call": whole})
        fields = self.reader.call(whole, call.meta, 0, call.position, self.scope)
        if not call.named:  # the text decode_response gives the call without a name
            closing = fields["arguments"]
        fragment: dict[str, Any] = {"index": call.position, "arguments": closing}
        if call.id is None:
            fragment["id"] = fields["id"]
        if "extras" in fields:
            fragment["extras"] = fields["extras"]
        calls.append(ToolCallChunk(**fragment))

    def close_run(self) -> None:
        """End the text part being streamed (a later text delta starts a new part)."""
        run = self.run
        if run is not None:
            if run.digest is not None and self.scope.hashing:
                self.scope.feed_text(run.meta, run.digest.digest())
            self.run = None


# ------------------------------------------------------------------ event helpers

# The shape of the fast path's events (text_delta).
_EVENT_KEYS = frozenset({"candidates", "usageMetadata", "modelVersion", "responseId"})
_CANDIDATE_KEYS = frozenset({"content", "index"})
_CONTENT_KEYS = frozenset({"parts", "role"})
_SCALARS = frozenset({str, int, float, bool, type(None)})


def _same(usage: Any, seen: dict[str, Any]) -> bool:
    """Whether ``usage`` is strictly the flat ``seen`` (see :func:`_flat`) again.

    Equal values of the same types (``1`` is not ``1.0`` nor ``True``), keys in the
    same order: decoded, it gives what ``seen`` gave.
    """
    if type(usage) is not dict or usage != seen or list(usage) != list(seen):
        return False
    for key, value in usage.items():
        kind = type(value)
        if type(key) is not str or kind is not type(seen[key]):
            return False
        if kind is list:
            for item, old in zip(value, seen[key], strict=True):  # (equal: usage == seen)
                if type(item) is not dict or list(item) != list(old):
                    return False
                for name, inner in item.items():
                    if type(name) is not str or type(inner) is not type(old[name]):
                        return False
    return True


def _flat_copy(usage: dict[str, Any]) -> dict[str, Any]:
    """A copy of flat usage data (see :func:`_flat`)."""
    return {
        key: [dict(item) for item in value] if type(value) is list else value
        for key, value in usage.items()
    }


def _flat(value: Any) -> bool:
    """A scalar, or a list of objects of scalars (usage counts by modality)."""
    if type(value) in _SCALARS:
        return True
    return type(value) is list and all(
        type(item) is dict and all(type(inner) in _SCALARS for inner in item.values())
        for item in value
    )


def _group(
    pieces: list[str | ContentBlock], first: dict[str, Any], last: dict[str, Any]
) -> list[dict[str, Any]]:
    """An event's content as chunks: string deltas and blocks cannot share one."""
    chunks: list[dict[str, Any]] = []
    strings: list[str] = []
    blocks: list[ContentBlock] = []
    for piece in pieces:
        if isinstance(piece, str):
            if blocks:
                chunks.append({"content": blocks})
                blocks = []
            strings.append(piece)
        else:
            if strings:
                chunks.append({"content": "".join(strings)})
                strings = []
            blocks.append(piece)
    if strings:
        chunks.append({"content": "".join(strings)})
    if blocks:
        chunks.append({"content": blocks})
    if not chunks:
        chunks.append({})
    for chunk in chunks:
        chunk["provider"] = NAME
    chunks[0].update(first)
    chunks[-1].update(last)
    return chunks


# ------------------------------------------------------------ streamed call arguments


def _starts(value: Any) -> bool:
    """Whether a ``function_call`` part begins a call whose arguments stream."""
    return (
        isinstance(value, dict)
        and "args" not in value
        and (value.get("will_continue") is True or "partial_args" in value)
    )


def _continues(value: Any) -> bool:
    """Whether a ``function_call`` part continues the streamed call (it has no name)."""
    return isinstance(value, dict) and "name" not in value and "args" not in value


class _StreamedCall:
    """A call whose arguments arrive as ``partial_args``, until its last piece."""

    __slots__ = ("id", "meta", "name", "named", "position", "rest", "stray", "wire_id", "writer")

    def __init__(self, position: int, name: Any, wire_id: Any, meta: dict[str, Any]) -> None:
        self.position = position
        self.name = name  # (MISSING, None or "": a call without a name, kept as it came)
        self.named = isinstance(name, str) and name != ""
        self.wire_id = wire_id if isinstance(wire_id, str) else None
        self.id: str | None = None  # the id sent in a fragment so far
        self.meta = dict(meta)  # the part's metadata (thought_signature ...)
        self.rest: dict[str, Any] = {}  # FunctionCall fields other than the streamed ones
        self.stray: list[dict[str, Any]] = []  # partial args with no usable json_path
        self.writer = _ArgsWriter(position)


_PATH_MEMBER = re.compile(r"\.([A-Za-z_\u0080-\U0010ffff][\w\u0080-\U0010ffff]*)")
_PATH_INDEX = re.compile(r"\[(\d+)\]")
_PATH_QUOTED = re.compile(r"""\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]""")


def _json_path(text: Any) -> list[str | int] | None:
    """The segments of a ``partial_args[].json_path`` (RFC 9535: ``$.a.b[0]['c d']``).

    None for a path that names no argument (``null``, absent, ``""``, not a JSON path:
    google-genai takes any string): the piece has no place in the arguments.
    """
    if not isinstance(text, str) or not text.startswith("$"):
        return None
    segments: list[str | int] = []
    at = 1
    while at < len(text):
        match = _PATH_MEMBER.match(text, at)
        if match is not None:
            segments.append(match[1])
        elif (match := _PATH_INDEX.match(text, at)) is not None:
            segments.append(int(match[1]))
        elif (match := _PATH_QUOTED.match(text, at)) is not None:
            quoted = match[1] if match[1] is not None else match[2]
            segments.append(re.sub(r"\\(.)", r"\1", quoted))
        else:
            return None
        at = match.end()
    return segments or None


class _ArgsWriter:
    """The arguments of a streamed call: the object, and its JSON text as it grows.

    Gemini streams the arguments in document order, one leaf value at a time (a
    string in pieces while ``will_continue``); the text written so far is always a
    prefix of the JSON of the whole object, so that the fragments join to it.
    """

    __slots__ = ("open", "path", "position", "started", "string", "tree")

    def __init__(self, position: int) -> None:
        self.position = position
        self.tree: dict[str, Any] = {}
        self.started = False
        self.path: list[str | int] = []  # the segments of the open containers below the root
        self.open: list[Any] = []  # the open containers, root first
        self.string: tuple[list[str | int], Any, str | int] | None = None  # an open string leaf

    def fits(self, argument: dict[str, Any], path: list[str | int]) -> bool:
        """Whether a partial arg at ``path`` has a place in the arguments.

        It does when it continues the open string, carries no value, or adds a new
        member (not one already streamed).
        """
        valued = any(key in argument for key in _VALUE_KEYS)
        string = self.string
        if not valued or (string is not None and string[0] == path and "string_value" in argument):
            return True
        parents = path[:-1]
        depth = 0
        while (
            depth < len(self.path) and depth < len(parents) and self.path[depth] == parents[depth]
        ):
            depth += 1
        container = self.open[depth] if self.open else self.tree
        segment = path[depth]
        if isinstance(container, dict):
            return isinstance(segment, str) and segment not in container
        return isinstance(segment, int) and segment >= len(container)

    def add(self, argument: dict[str, Any], path: list[str | int]) -> str:
        """One partial arg, at ``path`` (its json_path read): the JSON text it adds."""
        more = argument.get("will_continue") is True
        out: list[str] = []
        if not self.started:
            self.started = True
            self.open.append(self.tree)
            out.append("{")
        valued = any(key in argument for key in _VALUE_KEYS)
        string = self.string
        if string is not None:
            if string[0] == path and ("string_value" in argument or not valued):
                piece = argument.get("string_value", "")
                piece = READ.string(piece, "string_value", 0, self.position)
                string[1][string[2]] += piece
                out.append(json.dumps(piece, ensure_ascii=False)[1:-1])
                if not more:
                    out.append('"')
                    self.string = None
                return "".join(out)
            out.append('"')  # another path: the string is whole
            self.string = None
        if not valued:
            return "".join(out)  # no value: nothing to write
        parents, leaf = path[:-1], path[-1]
        depth = 0
        while (
            depth < len(self.path) and depth < len(parents) and self.path[depth] == parents[depth]
        ):
            depth += 1
        while len(self.path) > depth:  # containers the new path leaves: complete
            closed = self.open.pop()
            self.path.pop()
            out.append("}" if isinstance(closed, dict) else "]")
        for at, segment in enumerate(path[depth:], start=depth):
            container = self.open[-1]
            out.append(self._member(container, segment, argument))
            if at < len(path) - 1:
                child: Any = {} if isinstance(path[at + 1], str) else []
                self._put(container, segment, child)
                self.open.append(child)
                self.path.append(segment)
                out.append("{" if isinstance(child, dict) else "[")
        container = self.open[-1]
        if "string_value" in argument:
            text = READ.string(argument["string_value"], "string_value", 0, self.position)
            self._put(container, leaf, text)
            out.append('"' + json.dumps(text, ensure_ascii=False)[1:-1])
            if more:
                self.string = (path, container, leaf)
            else:
                out.append('"')
        else:
            value = _scalar(argument, self.position)
            self._put(container, leaf, value)
            out.append(json.dumps(value))
        return "".join(out)

    def _member(self, container: Any, segment: str | int, argument: dict[str, Any]) -> str:
        """The separator (and key) before a new member of ``container``."""
        comma = "," if container else ""
        if isinstance(container, dict):
            if not isinstance(segment, str) or segment in container:
                READ.fail(
                    f"partial arg {argument.get('json_path')!r} goes back to an argument "
                    "already streamed",
                    0,
                    self.position,
                )
            return comma + json.dumps(segment, ensure_ascii=False) + ":"
        if not isinstance(segment, int) or segment < len(container):
            READ.fail(
                f"partial arg {argument.get('json_path')!r} goes back to an item already streamed",
                0,
                self.position,
            )
        gap = []
        while len(container) < segment:  # items the stream skipped are null
            gap.append(("," if container else "") + "null")
            container.append(None)
        return "".join(gap) + ("," if container else "")

    @staticmethod
    def _put(container: Any, segment: str | int, value: Any) -> None:
        if isinstance(container, dict):
            container[segment] = value
        else:
            container.append(value)

    def close(self) -> str:
        """The text that completes the object (``{}`` for a call without arguments)."""
        if not self.started:
            return "{}"
        out = ['"'] if self.string is not None else []
        self.string = None
        while self.open:
            closed = self.open.pop()
            out.append("}" if isinstance(closed, dict) else "]")
        self.path.clear()
        return "".join(out)


def _scalar(argument: dict[str, Any], position: int) -> Any:
    """The value of a partial arg that is not a string."""
    if "number_value" in argument:
        value = argument["number_value"]
        if type(value) not in (int, float) or value != value or value in (_INF, -_INF):
            READ.fail("partial arg number_value must be a number", 0, position)
        return value
    if "bool_value" in argument:
        if type(argument["bool_value"]) is not bool:
            READ.fail("partial arg bool_value must be a boolean", 0, position)
        return argument["bool_value"]
    return None  # null_value


_INF = float("inf")
_VALUE_KEYS = ("string_value", "number_value", "bool_value", "null_value")
"""PartialArg's ``delta`` oneof."""
