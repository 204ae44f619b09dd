"""The stream writer of ``encode_stream``: neutral chunks in, Responses streaming events out.

The mirror of :mod:`.stream`. One output item is open at a time, as the API
streams them: a chunk naming a new block or call closes the open item
(``output_item.done`` with the whole item) and opens the next
(``output_item.added``). Text, refusal, reasoning text and argument deltas go out
as their chunks arrive; a reasoning summary entry, which arrives whole, goes out
as its four events at once. ``response.completed`` (or ``incomplete`` /
``failed``) carries the whole Response, built from everything the chunks said;
data that arrives for an item already closed (a reasoning item's
``encrypted_content``, which ``decode_stream`` gives at the end) is in it.

Text deltas for the open text part take a fast path: the event dict is a copy
of the part's delta event made when the part opened, nothing validated
(``tests/providers/openai_responses/test_write.py`` measures it).
"""

from __future__ import annotations

from typing import Any, Final

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    ContentBlock,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
)
from chatschema_models.tool import ToolCallChunk
from chatschema_models.usage import Usage

from chatschema._json import copy_json
from chatschema._usage import add_usage
from chatschema.errors import ConversionError
from chatschema.providers._common import extras_of
from chatschema.providers._common.respond import Reply
from chatschema.providers.openai_responses.assembly import (
    Item,
    Part,
    deep_merge,
    item_json,
    part_json,
)
from chatschema.providers.openai_responses.items import compaction_item, identified
from chatschema.providers.openai_responses.output import (
    CALL_ID_LENGTH,
    annotation_json,
    compaction_ours,
    head,
    new_item_id,
    opaque_notes,
    status_of,
    usage_json,
)
from chatschema.providers.openai_responses.wire import CODE_INTERPRETER, NAME

__all__ = ["Writer"]

_DELTA: Final = frozenset({"role", "content"})
_TEXT_DELTA: Final = frozenset({"type", "text", "index"})
# The event that ends the stream, by the Response's status (Streaming events
# reference: completed, incomplete, failed; the other statuses end as completed).
_FINAL_EVENT: Final = {"incomplete": "response.incomplete", "failed": "response.failed"}


_Key = tuple[int, str]
_Events = list[dict[str, Any]]


class Writer:
    """The event writer of one ``encode_stream`` (an ``EventWriter``)."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.seq = 0
        self.started = False
        self.finished = False
        self.response_id = ""
        self.model = ""
        self.created_at = 0
        self.items: list[Item] = []
        self.current: Item | None = None  # the open item
        self.blocks: dict[_Key, tuple[Item, Part] | None] = {}  # None: left out
        self.calls: dict[int, Item] = {}
        self.string: tuple[Item, Part] | None = None  # where string content goes
        self.opened = 0  # blocks and calls opened (the item position of the next)
        # the open text part the fast path appends to: key (None: the string part),
        # its text pieces, and its delta event (copied per delta, see ``open_block``)
        self.hot: tuple[_Key | None, list[str], dict[str, Any]] | None = None
        # message-level fields, merged as ChunkAccumulator merges them
        self.fields: dict[str, Any] = {}
        self.merged: dict[str, dict[str, Any]] = {}
        self.usage: Usage | None = None

    # ------------------------------------------------------------------- plumbing

    def event(self, kind: str, **fields: Any) -> dict[str, Any]:
        """An event of ``kind``, its sequence number last (the API's order)."""
        event = {"type": kind, **fields, "sequence_number": self.seq}
        self.seq += 1
        return event

    def feed(self, chunk: AssistantMessageChunk) -> _Events:
        """The events of one chunk, in order."""
        values = chunk.__dict__
        content = values["content"]
        hot = self.hot
        if hot is not None and chunk.__pydantic_fields_set__ <= _DELTA:
            # the fast path: a text delta of the open text part, its event a template's copy
            key, texts, template = hot
            text: Any = None
            if content.__class__ is list:
                if len(content) == 1 and key is not None:
                    block = content[0]
                    fields = block.__dict__
                    if (
                        fields["index"] == key[0]
                        and fields["type"] == key[1]
                        and block.__pydantic_fields_set__ == _TEXT_DELTA
                    ):
                        text = fields["text"]
            elif key is None:
                text = content
            if text is not None:
                if not text:
                    return []
                texts.append(text)
                event = template.copy()  # (a copy is cheaper than a 7-key literal)
                event["delta"] = text
                event["logprobs"] = []
                event["sequence_number"] = self.seq
                self.seq += 1
                return [event]
        if self.finished:
            raise ConversionError(
                "a chunk came after the stream's last one (chunk_position='last')",
                provider=NAME,
            )
        events: _Events = []
        if not self.started:
            events += self.start(chunk)
        self.head(chunk)
        fragments = values["tool_call_chunks"]
        if content or fragments:
            self.content(content, fragments, events)
        if values["chunk_position"] == "last":
            events += self.finish()
        return events

    def end(self) -> _Events:
        """Close a stream that ended without its last chunk (nothing if it had it)."""
        if self.finished:
            return []
        events: _Events = []
        if not self.started:
            events += self.start(AssistantMessageChunk())
        return events + self.finish()

    # ------------------------------------------------------------- the response

    def start(self, chunk: AssistantMessageChunk) -> _Events:
        """``response.created`` and ``response.in_progress``: the response so far."""
        self.started = True
        reply = self.reply
        self.response_id = chunk.response_id or new_item_id(reply, "resp_")
        self.model = reply.model_of(chunk.model)
        self.created_at = reply.now()
        body = head(
            chunk,
            reply,
            response_id=self.response_id,
            model=self.model,
            status="in_progress",
            output=[],
            usage=None,
            created_at=self.created_at,
        )
        return [
            self.event("response.created", response=body),
            self.event("response.in_progress", response=copy_json(body)),
        ]

    def head(self, chunk: AssistantMessageChunk) -> None:
        """Merge the chunk's message-level fields (last wins, deep merge, usage)."""
        values = chunk.__dict__
        for name in ("finish_reason", "raw_finish_reason"):
            if values[name] is not None:
                self.fields[name] = values[name]
        for name in ("response_metadata", "extras"):
            value = values[name]
            if value:
                deep_merge(self.merged.setdefault(name, {}), value)
        usage = values["usage"]
        if usage is not None:
            if values["usage_mode"] == "cumulative" or self.usage is None:
                self.usage = usage
            else:
                self.usage = add_usage(self.usage, usage)

    def finish(self) -> _Events:
        """Close the open item; then the final event with the whole Response."""
        events: _Events = []
        if self.current is not None:
            events += self.close(self.current)
        self.finished = True
        summary = AssistantMessageChunk.model_validate(
            {"role": "assistant", **self.fields, **self.merged}
        )
        status, _, _ = status_of(summary)
        body = head(
            summary,
            self.reply,
            response_id=self.response_id,
            model=self.model,
            status=status,
            output=[item_json(item) for item in self.items],
            usage=usage_json(self.usage),
            created_at=self.created_at,
        )
        events.append(self.event(_FINAL_EVENT.get(status, "response.completed"), response=body))
        return events

    # ------------------------------------------------------------------ content

    def content(self, content: Any, fragments: list[ToolCallChunk], events: _Events) -> None:
        """A chunk's blocks and call fragments: known ones first, then new ones in order."""
        new_blocks: list[ContentBlock] = []
        if isinstance(content, str):
            if content:
                if self.string is None:
                    self.open_block(TextBlock(text=content), events, string=True)
                else:
                    self.update(*self.string, TextBlock(text=content), events)
        else:
            for block in content:
                index = block.index
                if index is None:
                    if self.string is not None and isinstance(block, TextBlock):
                        self.update(*self.string, block, events)  # continues string content
                    else:
                        new_blocks.append(block)
                    continue
                key = (index, block.type)
                if key not in self.blocks:
                    new_blocks.append(block)
                    continue
                known = self.blocks[key]
                if known is not None:
                    self.update(*known, block, events)
        new_calls: list[ToolCallChunk] = []
        for fragment in fragments:
            index = fragment.index
            item = self.calls.get(index) if index is not None else None
            if item is None:
                new_calls.append(fragment)
            else:
                self.call_update(item, fragment, events)
        if not new_calls:
            for block in new_blocks:
                self.open_block(block, events)
            return
        # a whole message's chunk: calls at their index among the blocks (items.merged)
        new_calls.sort(key=lambda fragment: (fragment.index is None, fragment.index or 0))
        for block in new_blocks:
            while (
                new_calls and new_calls[0].index is not None and new_calls[0].index <= self.opened
            ):
                self.call(new_calls.pop(0), events)
            self.open_block(block, events)
        for fragment in new_calls:
            self.call(fragment, events)

    def begin(self, kind: str, item_id: str, events: _Events) -> Item:
        """A new output item, the open one closed first."""
        if self.current is not None:
            events += self.close(self.current)
        item = Item(kind, item_id, len(self.items))
        self.items.append(item)
        self.current = item
        return item

    def added(self, item: Item, written: dict[str, Any]) -> dict[str, Any]:
        """``response.output_item.added``."""
        return self.event("response.output_item.added", item=written, output_index=item.index)

    def keep(self, key: _Key | None, item: Item, block: ContentBlock) -> Part:
        """The part of a new block, known by its key from now on."""
        part = Part(block)
        if key is not None:
            self.blocks[key] = (item, part)
        return part

    def open_block(self, block: ContentBlock, events: _Events, *, string: bool = False) -> None:
        """A block no earlier chunk named: a new part, a new item, or the policy's."""
        key = None if block.index is None else (block.index, block.type)
        self.opened += 1
        self.string = None
        if isinstance(block, (TextBlock, RefusalBlock)):
            self.open_text(block, key, events, string=string)
            return
        if isinstance(block, ReasoningBlock):
            ours = block.provider in (None, NAME)
            item_id = block.id if ours and block.id else new_item_id(self.reply, "rs_")
            item = self.begin("reasoning", item_id, events)
            item.owner = block.provider
            item.part = self.keep(key, item, block)
            events.append(self.added(item, {"id": item_id, "type": "reasoning", "summary": []}))
            self.reasoning_update(item, item.part, block, events)
            return
        if isinstance(block, ServerToolCallBlock) and self.server_call(block, key, events):
            return
        current = self.current
        if (
            isinstance(block, ServerToolResultBlock)
            and current is not None
            and current.kind == "code_interpreter_call"
            and current.result is None
            and block.tool_call_id == current.id
        ):
            current.result = self.keep(key, current, block)  # that item's outputs
            current.result.add(block)
            return
        if compaction_ours(block):
            item = self.begin("compaction", block.id or new_item_id(self.reply, "cmp_"), events)
            item.part = self.keep(key, item, block)
            item.part.add(block)
            events.append(self.added(item, identified(compaction_item(block), item.id)))
            return
        if isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("kind") == "item":
            raw_id = block.value.get("id")
            item = self.begin("item", raw_id if isinstance(raw_id, str) else "", events)
            item.part = self.keep(key, item, block)
            item.part.add(block)
            events.append(self.added(item, copy_json(block.value)))
            return
        placeholder = self.reply.unsupported_content(
            f"{_what(block)} in a response", block_index=block.index
        )
        if key is not None:
            self.blocks[key] = None  # its later deltas are left out too
        if placeholder is not None:
            self.open_text(TextBlock(text=placeholder), None, events, string=False)

    def server_call(self, block: ServerToolCallBlock, key: _Key | None, events: _Events) -> bool:
        """A web search or code interpreter call of this API (False: another's)."""
        if block.name == "web_search" and block.provider in (None, NAME):
            kind, prefix = "web_search_call", "ws_"
        elif block.name == CODE_INTERPRETER and block.provider == NAME:
            kind, prefix = "code_interpreter_call", "ci_"
        else:
            return False
        item = self.begin(kind, block.id or new_item_id(self.reply, prefix), events)
        item.part = self.keep(key, item, block)
        item.part.add(block)
        added: dict[str, Any] = {"id": item.id, "type": kind, "status": "in_progress"}
        if kind == "web_search_call":
            # the SDK's ResponseFunctionWebSearch requires `action` (the API sends it at done)
            action = block.arguments if isinstance(block.arguments, dict) else None
            added["action"] = copy_json(action) if action else {"type": "search"}
        else:
            added.update(code="", container_id="", outputs=None)
        events.append(self.added(item, added))
        where = {"item_id": item.id, "output_index": item.index}
        events.append(self.event(f"response.{kind}.in_progress", **where))
        return True

    def open_text(
        self,
        block: TextBlock | RefusalBlock,
        key: _Key | None,
        events: _Events,
        *,
        string: bool,
    ) -> None:
        """A text or refusal part: of the open message item of its id, else of a new one."""
        current = self.current
        group = block.id or ""
        if current is None or current.kind != "message" or current.key != group:
            current = self.begin("message", block.id or new_item_id(self.reply, "msg_"), events)
            current.key = group
            added = {"id": current.id, "type": "message", "status": "in_progress", "content": []}
            added["role"] = "assistant"
            events.append(self.added(current, added))
        else:
            events += self.part_done(current, len(current.parts) - 1)
        part = self.keep(key, current, block)
        part.appended["text"] = []
        content_index = len(current.parts)
        current.parts.append(part)
        empty: dict[str, Any]
        if isinstance(block, RefusalBlock):
            empty = {"type": "refusal", "refusal": ""}
        else:
            empty = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
        events.append(
            self.event(
                "response.content_part.added",
                content_index=content_index,
                item_id=current.id,
                output_index=current.index,
                part=empty,
            )
        )
        self.hot = None
        if isinstance(block, TextBlock) and (key is not None or string):
            template = {
                "type": "response.output_text.delta",
                "content_index": content_index,
                "delta": "",
                "item_id": current.id,
                "logprobs": None,
                "output_index": current.index,
                "sequence_number": 0,
            }
            self.hot = (key, part.appended["text"], template)
        if string:
            self.string = (current, part)
        self.update(current, part, block, events)

    # ------------------------------------------------------------------- updates

    def update(self, item: Item, part: Part, block: ContentBlock, events: _Events) -> None:
        """A delta of a known block: its events while the item is open; kept in any case."""
        if isinstance(block, ReasoningBlock):
            self.reasoning_update(item, part, block, events)
            return
        if item.kind != "message" or part.type not in ("text", "refusal"):
            part.add(block)
            return
        values = block.__dict__
        text = values["text"]
        annotations = values.get("annotations")
        if block.__pydantic_fields_set__ - _TEXT_DELTA - {"annotations"}:
            part.add(block.model_copy(update={"text": None, "annotations": None}))  # id, extras
        content_index = item.parts.index(part)
        where = {"content_index": content_index, "item_id": item.id}
        if text:
            part.appended["text"].append(text)
            if not item.closed:
                if part.type == "refusal":
                    delta = self.event("response.refusal.delta", **where, delta=text)
                else:
                    delta = self.event(
                        "response.output_text.delta", **where, delta=text, logprobs=[]
                    )
                delta["output_index"] = item.index
                events.append(delta)
        for annotation in annotations or ():
            written = annotation_json(annotation, self.reply, block.index or 0)
            if written is None:
                continue
            if not item.closed:
                events.append(
                    self.event(
                        "response.output_text.annotation.added",
                        annotation=written,
                        annotation_index=len(part.annotations),
                        **where,
                        output_index=item.index,
                    )
                )
            part.annotations.append(written)

    def allowed(self, item: Item, block: ReasoningBlock, events: _Events) -> ReasoningBlock:
        """A reasoning delta without the opaque values the policy leaves out.

        A placeholder is one more summary part, written at once.
        """
        foreign = item.owner not in (None, NAME)
        if block.signature is None and not (foreign and block.encrypted_content is not None):
            return block
        probe = block.model_copy(update={"provider": item.owner})
        for note in opaque_notes(probe, self.reply, block.index or 0):
            self.summary(item, note["text"], events)
        update: dict[str, Any] = {"signature": None}
        if foreign:
            update["encrypted_content"] = None
        return block.model_copy(update=update)

    def reasoning_update(
        self, item: Item, part: Part, block: ReasoningBlock, events: _Events
    ) -> None:
        """Reasoning text as ``reasoning_text`` deltas, summary entries as their events."""
        block = self.allowed(item, block, events)
        text = block.text
        summary = block.summary
        if text or summary:
            block = block.model_copy(update={"text": None, "summary": None})
        part.add(block)
        if text:
            part.appended.setdefault("text", []).append(text)
            if not item.closed:
                where = {"content_index": 0, "item_id": item.id, "output_index": item.index}
                if not item.thinking:
                    item.thinking = True
                    empty = {"type": "reasoning_text", "text": ""}
                    events.append(self.event("response.content_part.added", **where, part=empty))
                events.append(self.event("response.reasoning_text.delta", **where, delta=text))
        for entry in summary or ():
            self.summary(item, entry, events)

    def summary(self, item: Item, text: str, events: _Events) -> None:
        """One whole summary part: added, its text as one delta, done (open items)."""
        assert item.part is not None
        item.part.extended.setdefault("summary", []).append(text)
        if item.closed:
            return
        number = item.summaries
        item.summaries += 1
        where = {"item_id": item.id, "output_index": item.index}
        empty = {"type": "summary_text", "text": ""}
        full = {"type": "summary_text", "text": text}
        events += [
            self.event(
                "response.reasoning_summary_part.added", **where, part=empty, summary_index=number
            ),
            self.event(
                "response.reasoning_summary_text.delta", delta=text, **where, summary_index=number
            ),
            self.event(
                "response.reasoning_summary_text.done", **where, summary_index=number, text=text
            ),
            self.event(
                "response.reasoning_summary_part.done", **where, part=full, summary_index=number
            ),
        ]

    def call(self, fragment: ToolCallChunk, events: _Events) -> None:
        """A new tool call: a ``function_call`` item, its first fragment in."""
        self.opened += 1
        self.string = None
        extras = extras_of(fragment, NAME)
        item_id = extras.get("id")
        if not isinstance(item_id, str) or not item_id:
            item_id = new_item_id(self.reply, "fc_")
        item = self.begin("function_call", item_id, events)
        if fragment.index is not None:
            self.calls[fragment.index] = item
        # API reference, "function_call": a call id is `call_` + 24 letters and digits
        item.call_id = fragment.id or self.reply.new_id("call_", CALL_ID_LENGTH)
        item.name = fragment.name or ""
        added = {
            "id": item_id,
            "type": "function_call",
            "status": "in_progress",
            "arguments": "",
            "call_id": item.call_id,
            "name": item.name,
        }
        events.append(self.added(item, added))
        self.call_update(item, fragment, events)

    def call_update(self, item: Item, fragment: ToolCallChunk, events: _Events) -> None:
        """An argument fragment: its delta while the item is open; kept in any case."""
        if not item.name and fragment.name:
            item.name = fragment.name
        if fragment.extras:
            deep_merge(item.extras, extras_of(fragment, NAME))
        delta = fragment.arguments
        if delta:
            item.args.append(delta)
            if not item.closed:
                events.append(
                    self.event(
                        "response.function_call_arguments.delta",
                        delta=delta,
                        item_id=item.id,
                        output_index=item.index,
                    )
                )

    # -------------------------------------------------------------------- closing

    def part_done(self, item: Item, content_index: int) -> _Events:
        """A message part's done events."""
        part = item.parts[content_index]
        written = part_json(part)
        where = {"content_index": content_index, "item_id": item.id, "output_index": item.index}
        if part.type == "refusal":
            done = self.event("response.refusal.done", **where, refusal=part.text())
        else:
            logprobs = written.get("logprobs")
            done = self.event(
                "response.output_text.done",
                **where,
                logprobs=copy_json(logprobs) if isinstance(logprobs, list) else [],
                text=part.text(),
            )
        return [done, self.event("response.content_part.done", **where, part=written)]

    def close(self, item: Item) -> _Events:
        """The open item's done events."""
        self.current = None
        self.hot = None
        self.string = None
        events: _Events = []
        where = {"item_id": item.id, "output_index": item.index}
        if item.kind == "message" and item.parts:
            events += self.part_done(item, len(item.parts) - 1)
        elif item.kind == "reasoning" and item.thinking:
            text = item.part.text() if item.part is not None else ""
            at = {"content_index": 0, **where}
            events.append(self.event("response.reasoning_text.done", **at, text=text))
            full = {"type": "reasoning_text", "text": text}
            events.append(self.event("response.content_part.done", **at, part=full))
        elif item.kind == "function_call":
            arguments = "".join(item.args)
            events.append(
                self.event("response.function_call_arguments.done", arguments=arguments, **where)
            )
        elif item.kind == "web_search_call":
            events.append(self.event("response.web_search_call.searching", **where))
            events.append(self.event("response.web_search_call.completed", **where))
        elif item.kind == "code_interpreter_call":
            events.append(self.event("response.code_interpreter_call.completed", **where))
        item.closed = True
        events.append(
            self.event("response.output_item.done", item=item_json(item), output_index=item.index)
        )
        return events


def _what(block: ContentBlock) -> str:
    """How the unsupported-content policy names a block."""
    if isinstance(block, NonStandardBlock):
        return f"non_standard block {block.value.get('type')!r}"
    if isinstance(block, ServerToolCallBlock):
        return f"server_tool_call block {block.name!r}"
    return f"{block.type} block"
