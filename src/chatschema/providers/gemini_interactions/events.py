"""The stream's event writer: neutral chunks in, interactions stream events out.

Each neutral block or call opens a step (``step.start``), its deltas follow
(``step.delta``: ``text`` and media items, ``thought_summary``,
``thought_signature``, ``arguments_delta``) and the next step closes it
(``step.stop``); text and media blocks share one ``model_output`` step, except text
after text, which opens a step of its own (a stream cannot tell two text items of one
step apart). A thought's summary and signature are written when it closes.
"""

from __future__ import annotations

from typing import Any, cast

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import ContentBlock, NonStandardBlock, ReasoningBlock, TextBlock
from chatschema_models.tool import ToolCall, ToolCallChunk

from chatschema._chunks import ChunkAccumulator
from chatschema._json import copy_json
from chatschema.providers._common import extras_of
from chatschema.providers._common.respond import Reply, dumps
from chatschema.providers.gemini_interactions.encode import SIBLING, _merged
from chatschema.providers.gemini_interactions.usage import write_usage
from chatschema.providers.gemini_interactions.wire import NAME, NEW_STEP, STEP
from chatschema.providers.gemini_interactions.write import (
    ID_ALPHABET,
    StepWriter,
    kept_of,
    status_of,
)


def frame(event: dict[str, Any]) -> bytes:
    """``event: <event_type>``, ``data: <json>`` and a blank line."""
    name: str = event["event_type"]
    return b"event: " + name.encode() + b"\ndata: " + dumps(event) + b"\n\n"


class Writer:
    """Chunks as events, step by step (``feed``), and the closing events (``end``)."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.steps = StepWriter(reply)
        self.meta = ChunkAccumulator()  # everything but content and calls
        self.started = False
        self.id = ""
        self.model: str | None = None
        self.next = 0  # the next step's index
        self.open: int | None = None  # the open step
        self.open_kind = ""
        self.last_item = ""  # the open model_output step's last item type
        self.blocks: dict[int, int] = {}  # a block's chunk index -> its step
        self.calls: dict[int, int] = {}  # a call fragment's index -> its step
        self.thought: dict[str, Any] = {}  # the open thought's summary and signature
        self.echo: list[Any] = []

    # ------------------------------------------------------------------ steps

    def close(self) -> list[dict[str, Any]]:
        """``step.stop`` of the open step (a thought's summary and signature first)."""
        if self.open is None:
            return []
        index, out = self.open, []
        if self.open_kind == "thought":
            thought = self.thought
            texts, text = list(thought.get("summary", ())), thought.get("text")
            if text and text != "\n".join(texts):
                texts.append(text)  # (as encode writes it)
            for text in texts:
                delta = {"type": "thought_summary", "content": {"type": "text", "text": text}}
                out.append(_delta(index, delta))
            signature = self.thought.get("signature")
            if signature:
                out.append(_delta(index, {"type": "thought_signature", "signature": signature}))
            self.thought = {}
        out.append({"event_type": "step.stop", "index": index})
        self.open = None
        return out

    def begin(self, step: dict[str, Any]) -> list[dict[str, Any]]:
        """Close the open step and start ``step``."""
        out = self.close()
        self.open, self.open_kind, self.last_item = self.next, step["type"], ""
        self.next += 1
        out.append({"event_type": "step.start", "index": self.open, "step": step})
        return out

    # ----------------------------------------------------------------- chunks

    def feed(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """The events of one chunk."""
        out: list[dict[str, Any]] = []
        fields = chunk.model_fields_set - {"content", "tool_call_chunks"}
        if fields:
            self.meta.add(AssistantMessageChunk(**{name: getattr(chunk, name) for name in fields}))
        if not self.started:
            out += self.created(chunk)
        content = chunk.content if isinstance(chunk.content, list) else None
        if isinstance(chunk.content, str) and chunk.content:
            # the text of string content: one block under a key no list block has
            content = [TextBlock.model_construct(text=chunk.content, index=-1)]
        fragments = chunk.tool_call_chunks
        things: list[tuple[int, Any]]
        if content and fragments and all(f.id and f.name for f in fragments):
            things = _merged(content, cast(list[ToolCall], fragments))
        else:
            things = [(0, block) for block in content or ()]
            things += [(0, fragment) for fragment in fragments]
        for _, thing in things:
            if isinstance(thing, ToolCallChunk):
                out += self.call(thing)
            else:
                out += self.block(thing)
        return out

    def created(self, chunk: AssistantMessageChunk) -> list[dict[str, Any]]:
        """``interaction.created``, once."""
        self.started = True
        self.id = chunk.response_id or self.reply.new_id("v1_", 40, ID_ALPHABET)
        self.model = chunk.model or self.reply.model  # (Interaction.model: optional)
        metadata = chunk.response_metadata or {}
        kept = metadata.get(NAME) if isinstance(metadata.get(NAME), dict) else {}
        echo = kept.get("input_steps") if kept else None
        if isinstance(echo, list):
            self.echo = copy_json(echo)
            self.next = len(echo)
        interaction: dict[str, Any] = {"id": self.id, "status": "in_progress"}
        if self.model is not None:
            interaction["model"] = self.model
        return [{"event_type": "interaction.created", "interaction": interaction}]

    def block(self, block: Any) -> list[dict[str, Any]]:
        """A block's events: a new step, or deltas of the open one."""
        key = block.index
        step = self.blocks.get(key) if key is not None else None
        if step is not None and step == self.open:
            return self.more(block)
        mine = extras_of(block, NAME) if block.extras else {}
        if isinstance(block, ReasoningBlock):
            started = self.begin({"type": "thought", **_kept(mine)})
            if key is not None:
                self.blocks[key] = cast(int, self.open)
            return started + self.more(block)
        if isinstance(block, NonStandardBlock) and block.provider == NAME:
            kind = block.value.get("type")
            if isinstance(kind, str) and kind not in (
                "text",
                "image",
                "audio",
                "video",
                "document",
            ):
                return self.begin(copy_json(block.value)) + self.close()
        out: list[dict[str, Any]] = []
        signature = extras_of(block, SIBLING).get("thought_signature") if block.extras else None
        if isinstance(signature, str):
            out += self.begin({"type": "thought"})
            self.thought = {"signature": signature}
            out += self.close()
        item = self.steps.item(block, 0, key if key is not None and key >= 0 else 0)
        if item is None:
            return out
        fresh = (
            self.open is None
            or self.open_kind != "model_output"
            or mine.get(NEW_STEP) is True
            or (item["type"] == "text" and self.last_item == "text")
        )
        if fresh:
            out += self.begin({"type": "model_output", **_kept(mine)})
        if key is not None:
            self.blocks[key] = self.open  # type: ignore[assignment]
        self.last_item = item["type"]
        out.append(_delta(cast(int, self.open), item))
        return out

    def more(self, block: ContentBlock) -> list[dict[str, Any]]:
        """A delta of the open step's block."""
        if isinstance(block, ReasoningBlock):
            thought = self.thought
            if block.text:
                thought["text"] = thought.get("text", "") + block.text
            if block.summary:
                thought.setdefault("summary", []).extend(block.summary)
            if block.signature or block.encrypted_content:
                if block.provider in (None, NAME, SIBLING) and block.signature:
                    thought["signature"] = thought.get("signature", "") + block.signature
                elif not thought.get("refused"):
                    thought["refused"] = True
                    self.reply.unsupported_content(f"{block.provider} reasoning signature")
            return []
        if isinstance(block, TextBlock):
            return (
                [_delta(cast(int, self.open), {"type": "text", "text": block.text})]
                if block.text
                else []
            )
        return []

    def call(self, fragment: ToolCallChunk) -> list[dict[str, Any]]:
        """A call fragment: a ``function_call`` step, or an ``arguments_delta``."""
        key = fragment.index
        step = self.calls.get(key) if key is not None else None
        out: list[dict[str, Any]] = []
        if step is None:
            signature = (
                extras_of(fragment, SIBLING).get("thought_signature") if fragment.extras else None
            )
            if isinstance(signature, str):
                out += self.begin({"type": "thought"})
                self.thought = {"signature": signature}
            start: dict[str, Any] = {
                "type": "function_call",
                "id": fragment.id or self.reply.new_id("", 8, ID_ALPHABET),
                "name": fragment.name or "",
                "arguments": {},
            }
            start.update(_kept(extras_of(fragment, NAME) if fragment.extras else {}))
            out += self.begin(start)
            if key is not None:
                self.calls[key] = cast(int, self.open)
            step = self.open
        elif step != self.open:
            self.reply.unsupported_content("arguments of a call after another step began")
            return out
        if fragment.arguments:
            out.append(
                _delta(
                    cast(int, step), {"type": "arguments_delta", "arguments": fragment.arguments}
                )
            )
        return out

    def end(self) -> list[dict[str, Any]]:
        """The open step's stop and ``interaction.completed``."""
        out = self.close()
        if not self.started:
            out += self.created(AssistantMessageChunk())
        message = self.meta.message
        kept = dict(kept_of(message))
        kept.pop("input_steps", None)
        interaction: dict[str, Any] = {
            "id": self.id,
            "status": status_of(
                message.model_copy(update={"tool_calls": []})
                if not self.calls
                else _with_calls(message)
            ),
        }
        if self.model is not None:
            interaction["model"] = self.model
        usage_kept = kept.pop("usage", None)
        if message.usage is not None:
            interaction["usage"] = write_usage(
                message.usage, usage_kept if isinstance(usage_kept, dict) else None
            )
        elif usage_kept is not None:
            interaction["usage"] = usage_kept
        for key, value in kept.items():
            interaction.setdefault(key, copy_json(value))
        if self.echo:
            interaction["steps"] = self.echo
        out.append({"event_type": "interaction.completed", "interaction": interaction})
        return out


def _with_calls(message: Any) -> Any:
    """The message as one with calls (for the status of ``finish_reason=None``)."""
    call = ToolCall(id="x", name="x", arguments={})
    return message.model_copy(update={"tool_calls": [call]})


def _kept(marks: dict[str, Any]) -> dict[str, Any]:
    kept = marks.get(STEP)
    return copy_json(kept) if isinstance(kept, dict) else {}


def _delta(index: int, delta: dict[str, Any]) -> dict[str, Any]:
    return {"event_type": "step.delta", "index": index, "delta": delta}
