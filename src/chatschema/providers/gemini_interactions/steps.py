"""Steps to neutral messages: a request's ``input`` turns and a response's ``steps``.

A ``user_input`` step is a user message, a ``function_result`` step a tool message,
and the steps a model makes (``thought``, ``model_output``, ``function_call`` and the
server tool steps) the blocks and calls of one assistant message, in their order
(``ToolCall.index``: the call's step position in the turn when content follows it).
"""

from __future__ import annotations

import json
from typing import Any

from chatschema_models.content import ContentBlock, NonStandardBlock, ReasoningBlock, TextBlock
from chatschema_models.message import AssistantMessage, Message, ToolMessage, UserMessage
from chatschema_models.tool import ToolCall

from chatschema._json import copy_json
from chatschema.providers._common import set_extras
from chatschema.providers.gemini_interactions.blocks import read_item
from chatschema.providers.gemini_interactions.wire import (
    NAME,
    NEW_STEP,
    NO_CONTENT,
    NO_SUMMARY,
    OBJECT_RESULT,
    READ,
    STEP,
)


class Turn:
    """The blocks and calls of one assistant turn, as its steps come."""

    def __init__(self, start: int = 0) -> None:
        self.blocks: list[ContentBlock] = []
        self.calls: list[ToolCall] = []
        self.positions: list[int] = []  # each call's step position (in the turn or response)
        self.steps = start
        self.last_output = False  # the previous step was a model_output
        self.content_last = -1  # the position of the last step that is not a call

    def add(self, step: dict[str, Any], index: int, position: int) -> None:
        """Add one model step (``thought``, ``model_output``, ``function_call``, server)."""
        kind = step["type"]
        output = False
        if kind == "thought":
            self.blocks.append(thought_block(step, index, position))
        elif kind == "model_output":
            blocks = content_of(step, index, position)
            if blocks:
                if self.last_output:
                    blocks[0] = _marked(blocks[0], {NEW_STEP: True})
                self.blocks.extend(blocks)
            else:  # (a model output with no content: kept whole)
                self.blocks.append(NonStandardBlock(provider=NAME, value=copy_json(step)))
            output = True
        elif kind == "function_call":
            self.calls.append(call_of(step, index, position))
            self.positions.append(self.steps)
        else:
            self.blocks.append(NonStandardBlock(provider=NAME, value=copy_json(step)))
        if kind != "function_call":
            self.content_last = self.steps
        self.last_output = output
        self.steps += 1

    def message(self, *, response: bool = False) -> AssistantMessage:
        """The assistant message of the turn."""
        calls = self.calls
        interleaved = response or any(p < self.content_last for p in self.positions)
        if calls and interleaved:
            calls = [
                call.model_copy(update={"index": p})
                for call, p in zip(calls, self.positions, strict=True)
            ]
        fields: dict[str, Any] = {"content": self.blocks}
        if calls:
            fields["tool_calls"] = calls
        return AssistantMessage(**fields)


def _marked(block: ContentBlock, marks: dict[str, Any]) -> ContentBlock:
    """``block`` with markers added to its ``extras[NAME]``."""
    extras = dict(block.extras or {})
    extras[NAME] = {**extras.get(NAME, {}), **marks}
    return block.model_copy(update={"extras": extras})


def content_of(step: dict[str, Any], index: int, position: int) -> list[ContentBlock]:
    """The blocks of a step's ``content`` list (its other keys kept on the first)."""
    content = step.get("content", [])
    items = READ.list(content, "content", index, position)
    blocks = [read_item(item, index, position) for item in items]
    marks = step_marks(step)
    if marks and blocks:
        blocks[0] = _marked(blocks[0], marks)
    return blocks


def step_marks(step: dict[str, Any]) -> dict[str, Any]:
    """The markers of a content step: its other keys, and no ``content`` said."""
    rest = {k: v for k, v in step.items() if k not in ("type", "content")}
    marks: dict[str, Any] = {}
    if rest:
        marks[STEP] = copy_json(rest)
    if "content" not in step:
        marks[NO_CONTENT] = True
    return marks


def thought_block(step: dict[str, Any], index: int, position: int) -> ContentBlock:
    """A ``thought`` step as a reasoning block (signature and summary texts)."""
    summary = step.get("summary")
    signature = step.get("signature")
    fields: dict[str, Any] = {"provider": NAME}
    texts: list[str] = []
    if summary is not None:
        for item in READ.list(summary, "thought summary", index, position):
            plain = isinstance(item, dict) and set(item) == {"type", "text"}
            if not plain or item.get("type") != "text":
                return NonStandardBlock(provider=NAME, value=copy_json(step))
            texts.append(READ.string(item.get("text"), "thought summary text", index, position))
        if len(texts) == 1:  # (one summary text: the thought's text)
            fields["text"] = texts[0]
        else:
            fields["summary"] = texts
    if signature is not None:
        fields["signature"] = READ.string(signature, "thought signature", index, position)
    rest = {k: v for k, v in step.items() if k not in ("type", "summary", "signature")}
    marks: dict[str, Any] = {}
    if rest:
        marks[STEP] = copy_json(rest)
    if summary is None:
        marks[NO_SUMMARY] = True
    if marks:
        set_extras(fields, NAME, marks)
    return ReasoningBlock(**fields)


def call_of(step: dict[str, Any], index: int, position: int) -> ToolCall:
    """A ``function_call`` step as a tool call."""
    call_id = READ.string(step.get("id"), "function_call.id", index, position)
    name = READ.string(step.get("name"), "function_call.name", index, position)
    arguments = READ.object(step.get("arguments"), "function_call.arguments", index, position)
    fields: dict[str, Any] = {"id": call_id, "name": name, "arguments": copy_json(arguments)}
    rest = {k: v for k, v in step.items() if k not in ("type", "id", "name", "arguments")}
    if rest:
        set_extras(fields, NAME, copy_json(rest))
    return READ.build(ToolCall, fields, index, position)


def result_of(step: dict[str, Any], index: int) -> ToolMessage:
    """A ``function_result`` step as a tool message."""
    call_id = READ.string(step.get("call_id"), "function_result.call_id", index)
    result = step.get("result")
    marks: dict[str, Any] = {}
    content: Any
    if isinstance(result, str):
        content = result
    elif isinstance(result, list):
        content = [read_item(item, index, position) for position, item in enumerate(result)]
    elif isinstance(result, dict):
        content = json.dumps(result, ensure_ascii=False, separators=(",", ":"))
        marks[OBJECT_RESULT] = True
    else:
        READ.fail("function_result.result must be text, content items or an object", index)
    fields: dict[str, Any] = {"tool_call_id": call_id, "content": content}
    is_error = step.get("is_error")
    if is_error is True:
        fields["status"] = "error"
    elif is_error is not None:
        marks["is_error"] = copy_json(is_error)
    rest = {k: v for k, v in step.items() if k not in ("type", "call_id", "result", "is_error")}
    marks.update(copy_json(rest))
    if marks:
        set_extras(fields, NAME, marks)
    return READ.build(ToolMessage, fields, index)


def messages_of(steps: list[Any], offset: int = 0) -> list[Message]:
    """The messages of a list of steps (``offset``: the index of the first, for errors)."""
    messages: list[Message] = []
    turn: Turn | None = None
    for number, raw in enumerate(steps):
        index = offset + number
        step = READ.object(raw, "a step", index)
        kind = step.get("type")
        if not isinstance(kind, str):
            READ.fail("a step needs a string 'type'", index)
        if kind not in ("user_input", "function_result"):  # a model's step
            if turn is None:
                turn = Turn()
            turn.add(step, index, 0)
            continue
        if turn is not None:
            messages.append(turn.message())
            turn = None
        if kind == "user_input":
            blocks = content_of(step, index, 0)
            if len(blocks) == 1 and isinstance(blocks[0], TextBlock) and not blocks[0].extras:
                messages.append(UserMessage(content=blocks[0].text))  # (one text: a string)
            elif not blocks:  # (the step's markers on the message)
                marks = step_marks(step)
                extras = {NAME: marks} if marks else None
                messages.append(UserMessage(content=[], extras=extras))
            else:
                messages.append(UserMessage(content=blocks))
        else:
            messages.append(result_of(step, index))
    if turn is not None:
        messages.append(turn.message())
    return messages
