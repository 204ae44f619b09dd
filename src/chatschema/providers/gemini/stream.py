"""Gemini ``streamGenerateContent``: events as chunks, as they arrive.

The chunks assemble to :func:`~chatschema.providers.gemini.decode_response` of the
complete response the stream stands for (``docs/providers/gemini.md``,
*Streaming*). Text parts arrive as deltas; every other part arrives whole.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from typing import Any

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ContentBlock, ReasoningBlock, TextBlock
from chatschema_models.tool import ToolCallChunk
from chatschema_models.usage import Usage
from pydantic import ValidationError as PydanticValidationError

from chatschema._wire import copy_model, trusted
from chatschema.errors import ConversionError
from chatschema.providers._common import merge_value
from chatschema.providers._common.sse import check_depth, stream_events
from chatschema.providers.gemini.blocks import PartReader, Scope, canonical, invalid, split, utf8
from chatschema.providers.gemini.usage import usage_of
from chatschema.providers.gemini.wire import (
    FINISH_REASONS,
    NAME,
    READ,
    RESPONSE_FIELDS,
    SDK_ONLY,
    json_data,
    load,
    plain,
)


def decode_stream(events: Iterable[Any]) -> Iterator[AssistantMessageChunk]:
    """The chunks of a ``streamGenerateContent`` stream, as its events arrive.

    Args:
        events: the stream's ``GenerateContentResponse`` events: REST JSON objects
            (camelCase), snake_case data, JSON text, google-genai
            ``GenerateContentResponse`` objects (as ``generate_content_stream``
            yields them), or the raw SSE body of ``?alt=sse`` as bytes or text
            pieces cut anywhere.

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
    """
    state = _Stream()
    held: dict[str, Any] | None = None
    try:
        source, checked = stream_events(events, provider=NAME)
        for position, event in enumerate(source):
            fields = state.text_delta(event)
            if fields is not None:  # the fast path (tests/test_streaming_fast.py)
                yield trusted(AssistantMessageChunk, fields)
                continue
            if not checked:
                check_depth(event, position, NAME)
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
        if held is not None:
            held["chunk_position"] = "last"
            yield AssistantMessageChunk(**held)
    except PydanticValidationError as error:
        raise invalid(error) from None
    except RecursionError:
        raise ConversionError("input is nested too deeply", provider=NAME) from None


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
            if reason is not None:
                self.raw_reason = READ.string(reason, "finish_reason")
                self.finished = reason_here = True
            metadata.update(
                (key, value)
                for key, value in candidate.items()
                if key not in ("content", "finish_reason")
            )
            cited = candidate.get("citation_metadata")
            if isinstance(cited, dict) and isinstance(cited.get("citations"), list):
                for citation in cited["citations"]:
                    digest = canonical(citation)
                    if digest not in self.cited:
                        self.cited.add(digest)
                        self.citations.append(citation)
                metadata["citation_metadata"] = {**cited, "citations": list(self.citations)}
        elif not self.candidates:
            feedback = data.get("prompt_feedback")
            if isinstance(feedback, dict) and isinstance(feedback.get("block_reason"), str):
                self.blocked = self.finished = True
                last["finish_reason"] = "content_filter"
                last["raw_finish_reason"] = feedback["block_reason"]
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
        """One streamed part: a text delta, or a whole part of any other kind."""
        position = self.position
        key, meta = split(part, 0, position)
        if key == "text":
            self.text(part, meta, pieces)
            return
        self.close_run()
        self.position += 1
        if self.scope.hashing:
            self.scope.feed(part)
        if key == "function_call":
            call = self.reader.call(part[key], meta, 0, position, self.scope)
            fragment: dict[str, Any] = {
                "index": position,
                "id": call["id"],
                "name": call["name"],
                "arguments": json_data(call["arguments"], "function_call.args"),
            }
            if "extras" in call:
                fragment["extras"] = call["extras"]
            calls.append(ToolCallChunk(**fragment))
            self.has_calls = True
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
                    pieces.append(block.model_copy(update={"index": run.position}))
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
        return block.model_copy(update={"index": position})

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
