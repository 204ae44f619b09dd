"""``decode_stream``: Interactions API stream events as neutral chunks.

The events (``event_type``): ``interaction.created``, ``step.start``, ``step.delta``,
``step.stop``, ``interaction.status_update``, ``interaction.completed`` and ``error``
(Interactions API, streaming). The chunks assemble to what ``decode_response`` gives
for the interaction the stream stands for: ``interaction.completed``'s interaction
with the streamed steps as its ``steps`` (a ``model_output`` step's deltas as its
``content``, a thought's summary deltas as its ``summary`` items, a function call's
``arguments_delta`` pieces as its ``arguments``).
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterable, Iterable, Iterator
from typing import Any, overload

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import NonStandardBlock, ReasoningBlock, TextBlock
from chatschema_models.tool import ToolCallChunk

from chatschema._json import copy_json
from chatschema._wire import content_chunk, text_block
from chatschema.providers._common import set_extras
from chatschema.providers._common.drive import Incomplete, drive, incomplete_policy
from chatschema.providers._common.replay import stamp_once
from chatschema.providers.gemini_interactions.blocks import read_item
from chatschema.providers.gemini_interactions.usage import kept_usage, usage_of
from chatschema.providers.gemini_interactions.wire import (
    FINISH,
    NAME,
    NEW_STEP,
    NO_SUMMARY,
    READ,
    STEP,
)

_TOP = ("id", "model", "status", "usage", "steps")


class _Stream:
    """One stream's state: the open steps and what the last chunk needs."""

    def __init__(self) -> None:
        self.kinds: dict[int, str] = {}  # step index -> its type
        self.pending: dict[int, dict[str, Any]] = {}  # markers for a step's first block
        self.started: dict[int, dict[str, Any]] = {}  # a step as it started
        self.filled: set[int] = set()  # steps that gave a block
        self.summary: dict[int, list[str]] = {}  # a thought's summary texts, to its stop
        self.calls = False
        self.completed = False
        self.stopped: set[int] = set()
        self.count = 0  # blocks so far: each block's chunk index
        self.current: dict[int, tuple[int, str]] = {}  # a step's last block and item type
        self.model: str | None = None  # the interaction's model: opaque blocks record it
        self.stamped: set[int | None] = set()  # blocks that recorded it

    def new(self, index: int, kind: str) -> int:
        """A new block of step ``index`` (its chunk index)."""
        self.count += 1
        self.current[index] = (self.count, kind)
        return self.count

    def text_delta(self, event: Any) -> AssistantMessageChunk | None:
        """The chunk of a text delta of an open text block, else None.

        The fast path of :func:`decode_stream`: an event of the exact shape the API
        sends (which bounds its depth), read as :meth:`delta` reads it.
        """
        if type(event) is not dict or len(event) != 3 or event.get("event_type") != "step.delta":
            return None
        delta = event.get("delta")
        index = event.get("index")
        if type(delta) is not dict or len(delta) != 2 or type(index) is not int:
            return None
        text = delta.get("text")
        current = self.current.get(index)
        if (
            type(text) is not str
            or delta.get("type") != "text"
            or current is None
            or current[1] != "text"
            or self.kinds.get(index) != "model_output"
            or index in self.pending
        ):
            return None
        return content_chunk(AssistantMessageChunk, [text_block(TextBlock, text, current[0])])

    def step(self, event: Any) -> list[AssistantMessageChunk]:
        """The chunks of one event; an opaque block records the model once (provenance)."""
        chunks = self.event(event)
        if self.model is not None:
            for chunk in chunks:
                content = chunk.content
                if isinstance(content, list) and content:
                    chunk.content = stamp_once(content, self.model, self.stamped)
        return chunks

    def event(self, event: Any) -> list[AssistantMessageChunk]:
        """The chunks of one event, as the steps give them."""
        event = READ.object(event, "a stream event")
        kind = event.get("event_type")
        if kind == "step.delta":
            return self.delta(event)
        if kind == "step.start":
            return self.start(event)
        if kind == "step.stop":
            return self.stop(_index(event))
        if kind in ("interaction.created", "interaction.completed"):
            return self.interaction(event, last=kind == "interaction.completed")
        if kind == "error":
            raise READ.stream_error(event.get("error"), "code", "status")
        return []  # interaction.status_update: the completed event says the status

    def interaction(self, event: dict[str, Any], *, last: bool) -> list[AssistantMessageChunk]:
        """``interaction.created`` / ``interaction.completed``: ids, kept keys, the end."""
        body = READ.object(event.get("interaction", {}), "interaction")
        fields: dict[str, Any] = {"provider": NAME}
        if isinstance(body.get("id"), str):
            fields["response_id"] = body["id"]
        if isinstance(body.get("model"), str) and body["model"]:
            fields["model"] = self.model = body["model"]
        kept = {k: copy_json(v) for k, v in body.items() if k not in _TOP}
        steps = body.get("steps")
        if last and isinstance(steps, list) and steps:  # the input steps it echoes
            kept["input_steps"] = copy_json(steps)
        if kept:
            fields["response_metadata"] = {NAME: kept}
        out: list[AssistantMessageChunk] = []
        if last:  # (steps the stream left open end here)
            for index in list(self.kinds):
                if index not in self.stopped:
                    out += self.stop(index)
            self.completed = True
            status = body.get("status")
            if isinstance(status, str):
                reason = FINISH.get(status, "other")
                fields["finish_reason"] = (
                    "tool_calls" if reason == "stop" and self.calls else reason
                )
                fields["raw_finish_reason"] = status
            if body.get("usage") is not None:
                fields["usage"] = usage_of(READ.object(body["usage"], "usage"))
                rest = kept_usage(body["usage"])
                if rest:
                    kept["usage"] = rest
                    fields["response_metadata"] = {NAME: kept}
            fields["chunk_position"] = "last"
        return [*out, AssistantMessageChunk(**fields)]

    def start(self, event: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``step.start``: a step opens (with what it already holds)."""
        index = _index(event)
        step = READ.object(event.get("step"), "step", None, index)
        kind = step.get("type")
        if not isinstance(kind, str):
            READ.fail("a step needs a string 'type'", None, index)
        previous = self.kinds.get(index - 1)
        self.kinds[index] = kind
        if kind == "model_output":
            marks: dict[str, Any] = {}
            rest = {k: copy_json(v) for k, v in step.items() if k not in ("type", "content")}
            if rest:
                marks[STEP] = rest
            if previous == "model_output":
                marks[NEW_STEP] = True
            self.pending[index] = marks
            self.started[index] = copy_json(step)
            out = []
            for item in READ.list(step.get("content", []), "content", None, index):
                out += self.item(index, item)
            return out
        if kind == "thought":
            block: dict[str, Any] = {"provider": NAME}
            if step.get("signature") is not None:
                block["signature"] = READ.string(step["signature"], "signature", None, index)
            summary = step.get("summary")
            if summary is not None:
                items = READ.list(summary, "summary", None, index)
                self.summary[index] = [_summary_text(item, index) for item in items]
            rest = {
                k: copy_json(v)
                for k, v in step.items()
                if k not in ("type", "summary", "signature")
            }
            if rest:
                set_extras(block, NAME, {STEP: rest})
            block["index"] = self.new(index, "thought")
            return [_content(ReasoningBlock(**block))]
        if kind == "function_call":
            self.calls = True
            arguments = step.get("arguments")
            text = "" if not arguments else json.dumps(arguments, ensure_ascii=False)
            call: dict[str, Any] = {
                "index": index,
                "id": READ.string(step.get("id"), "function_call.id", None, index),
                "name": READ.string(step.get("name"), "function_call.name", None, index),
                "arguments": text,
            }
            rest = {
                k: copy_json(v)
                for k, v in step.items()
                if k not in ("type", "id", "name", "arguments")
            }
            if rest:
                set_extras(call, NAME, {STEP: rest})
            return [AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(**call)])]
        self.started[index] = copy_json(step)  # a server tool step: written whole at its stop
        return []

    def item(self, index: int, item: Any) -> list[AssistantMessageChunk]:
        """A content item (or delta) of a model output step as a block chunk."""
        block = read_item(item, None, index)
        marks = self.pending.pop(index, None)
        if marks:
            extras = dict(block.extras or {})
            extras[NAME] = {**extras.get(NAME, {}), **marks}
            block = block.model_copy(update={"extras": extras})
        self.filled.add(index)
        return [_content(block.model_copy(update={"index": self.new(index, block.type)}))]

    def delta(self, event: dict[str, Any]) -> list[AssistantMessageChunk]:
        """``step.delta``: text, media, a thought's summary or signature, arguments."""
        index = _index(event)
        delta = READ.object(event.get("delta"), "delta", None, index)
        kind = delta.get("type")
        step_kind = self.kinds.get(index)
        if step_kind == "model_output" and kind in ("text", "image", "audio", "video", "document"):
            current = self.current.get(index)
            plain = kind == "text" and set(delta) == {"type", "text"} and index not in self.pending
            if plain and current is not None and current[1] == "text":
                text = READ.string(delta["text"], "text", None, index)
                return [_content(TextBlock(text=text, index=current[0]))]
            return self.item(index, delta)
        if kind == "thought_summary":
            self._thought(index)
            self.summary.setdefault(index, []).append(_summary_text(delta.get("content"), index))
            return []
        if kind == "thought_signature":
            signature = READ.string(delta.get("signature"), "signature", None, index)
            return [
                _content(
                    ReasoningBlock(provider=NAME, signature=signature, index=self._thought(index))
                )
            ]
        if kind == "arguments_delta":
            text = READ.string(delta.get("arguments", ""), "arguments", None, index)
            return [
                AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=index, arguments=text)])
            ]
        started = self.started.get(index)
        if started is not None and step_kind not in ("model_output", "thought", "function_call"):
            started.update({k: copy_json(v) for k, v in delta.items() if k != "type"})
            return []
        READ.fail(f"a {kind!r} delta for a {step_kind!r} step", None, index)

    def stop(self, index: int) -> list[AssistantMessageChunk]:
        """``step.stop``: a thought without summary, an empty output, a server step."""
        kind = self.kinds.get(index)
        self.stopped.add(index)
        if kind == "thought":  # its summary, as decode_response reads it
            at = self._thought(index)
            texts = self.summary.pop(index, None)
            if texts is None:
                block = ReasoningBlock(provider=NAME, index=at, extras={NAME: {NO_SUMMARY: True}})
            elif len(texts) == 1:
                block = ReasoningBlock(provider=NAME, index=at, text=texts[0])
            else:
                block = ReasoningBlock(provider=NAME, index=at, summary=texts)
            return [_content(block)]
        if kind == "model_output" and index not in self.filled:
            value = self.started.get(index, {"type": "model_output"})
            return [
                _content(NonStandardBlock(provider=NAME, value=value, index=self.new(index, "")))
            ]
        if kind not in ("model_output", "thought", "function_call") and index in self.started:
            value = self.started.pop(index)
            return [
                _content(NonStandardBlock(provider=NAME, value=value, index=self.new(index, "")))
            ]
        return []

    def _thought(self, index: int) -> int:
        """The block of a thought step (its deltas' block)."""
        if self.kinds.get(index) != "thought":
            READ.fail("a thought delta for a step that is not a thought", None, index)
        current = self.current.get(index)
        return current[0] if current is not None else self.new(index, "thought")

    def missing(self, done_line: bool) -> tuple[str, str] | None:
        """The terminal event, when the stream ended without it."""
        return None if self.completed else ("interaction.completed", "")


def _content(block: Any) -> AssistantMessageChunk:
    return AssistantMessageChunk(content=[block])


def _index(event: dict[str, Any]) -> int:
    return READ.count(event.get("index"), "a step event's index")


def _summary_text(item: Any, index: int) -> str:
    """A thought summary item's text (only text summaries are read)."""
    item = READ.object(item, "a thought summary item", None, index)
    if item.get("type") != "text" or set(item) != {"type", "text"}:
        READ.fail("only text thought summaries are read", None, index)
    return READ.string(item.get("text"), "thought summary text", None, index)


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
    """Stream events (dicts, SDK events or the SSE body, sync or async) as chunks.

    Args:
        events: the events of ``POST /v1beta/interactions`` with ``stream: true``.
        incomplete: what a stream without ``interaction.completed`` gives (see
            :data:`~chatschema.providers._common.drive.Incomplete`).

    Raises:
        ConversionError: for an ``error`` event or an event that cannot be read.
        StreamIncompleteError: a stream cut before ``interaction.completed``.
    """
    state = _Stream()
    return drive(
        events,
        provider=NAME,
        fast=state.text_delta,
        step=state.step,
        missing=state.missing,
        incomplete=incomplete_policy(incomplete),
    )
