"""``encode`` and ``check``: a conversation as a ``CreateModelInteraction`` request body.

``check`` is the encoder in collect mode (:class:`~chatschema.providers._common.EncodePass`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from chatschema_models.content import (
    CompactionBlock,
    ContentBlock,
    NonStandardBlock,
    ReasoningBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message, ToolMessage
from chatschema_models.tool import ToolCall, ToolDefinition
from typing_extensions import Unpack

from chatschema._json import copy_json
from chatschema.errors import Problem
from chatschema.providers._common import (
    EncodeOptions,
    EncodePass,
    Options,
    content_blocks,
    extras_of,
    foreign_tool_problems,
    guarded,
    invalid_call_what,
    message_index,
    no_messages,
    non_standard_what,
    pointer,
    raise_problems,
    sendable_tools,
    to_conversation,
    tool_pairing_problems,
)
from chatschema.providers._common.options import report_dropped_settings
from chatschema.providers._common.replay import (
    compaction_text,
    held_back,
    report_skipped,
    skipped,
    target_model,
)
from chatschema.providers._common.resources import resource_as
from chatschema.providers.gemini_interactions.blocks import write_item
from chatschema.providers.gemini_interactions.fast import fast_steps
from chatschema.providers.gemini_interactions.wire import (
    INPUT_FORM,
    NAME,
    NEW_STEP,
    NO_CONTENT,
    NO_SUMMARY,
    OBJECT_RESULT,
    SETTINGS,
    STEP,
    THINKING_LEVELS,
    put_kept,
)

MISSING: Any = object()

SIBLING = "gemini"
"""The format whose thought signatures this one carries (the same models' signatures)."""

_UNSAYABLE = (
    "top_k",
    "presence_penalty",
    "frequency_penalty",
    "response_format",
    "thinking_budget",
)
_CHOICE_NAMES = {"auto": "auto", "none": "none", "required": "any"}


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """A conversation (or messages) as a ``CreateModelInteraction`` request body.

    Args:
        messages: a ``Conversation``, a list of messages, or their JSON data.
        **options: see :class:`~chatschema.providers._common.EncodeOptions`.

    Returns:
        ``{"model"?, "system_instruction"?, "input": [step], "tools"?,
        "generation_config"?, ...}``: the messages as steps (``user_input``,
        ``thought``, ``model_output``, ``function_call``, ``function_result``), or the
        string or content form ``input`` came in; every request key kept in
        ``Conversation.extras["gemini_interactions"]`` (``previous_interaction_id``
        ...) back in place.

    Raises:
        UnsupportedContentError: for content the API cannot take, under ``"error"``.
        ConversionError: for what ``check`` reports, with ``check=True``.
    """
    resolved = Options.resolve(NAME, options)
    conversation = to_conversation(messages)
    encoder = _Encoder(resolved, collect=resolved.check)
    payload = encoder.request(conversation)
    encoder.last_checks(conversation)
    if resolved.check:
        raise_problems(_problems(conversation, encoder), NAME)
    report_dropped_settings(encoder.dropped_settings, NAME)
    report_skipped(encoder, NAME)
    return payload


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every problem that would make ``encode`` fail or the API reject the input.

    Tool calls without a ``function_result`` (results answering no call are fine
    when the request names a ``previous_interaction_id``), a request without input,
    system messages after the first turn, and content or settings the API cannot
    take under ``unsupported="error"``.
    """
    conversation = to_conversation(messages)
    encoder = _Encoder(Options.resolve(NAME, options), collect=True)
    encoder.request(conversation)
    encoder.last_checks(conversation)
    return _problems(conversation, encoder) + skipped(encoder)


def _problems(conversation: Conversation, encoder: _Encoder) -> list[Problem]:
    """Pairing problems and the encoder's, by message (the request's own first)."""
    problems = (
        []
        if encoder.paired
        else tool_pairing_problems(
            conversation.messages, adjacent=False, provider=NAME, trailing=encoder.options.request
        )
    )
    if extras_of(conversation, NAME).get("previous_interaction_id") is not None:
        # Interactions API, previous_interaction_id: the calls are the stored interaction's
        problems = [p for p in problems if p.keyword != "orphan_tool_result"]
    return sorted(problems + encoder.problems, key=_order)


def _order(problem: Problem) -> int:
    """A problem's message index; -1 for the request's own fields."""
    index = message_index(problem)
    return -1 if index is None else index


FAST = True
"""Whether ``encode`` and ``check`` take :func:`~.fast.fast_steps` (tests turn it off
to compare it with the general walk)."""


class _Encoder(EncodePass):
    """One walk over a conversation: the request body, or (collecting) its problems."""

    target: str | None = None
    """The model the request is for (the replay policy's)."""
    paired = False
    """Whether the fast walk saw the calls and results pair up (no pairing walk needed)."""

    def placeholder(
        self, what: str, index: int, position: int | None = None
    ) -> dict[str, Any] | None:
        """A text item standing for what cannot be sent (None: left out)."""
        text = self.unsupported(what, index, position)
        return None if text is None else {"type": "text", "text": text}

    def request(self, conversation: Conversation) -> dict[str, Any]:
        """The request body."""
        extras = extras_of(conversation, NAME)
        payload: dict[str, Any] = {}
        self.target = target_model(conversation)
        settings = conversation.settings
        if settings is not None and settings.model is not None:
            payload["model"] = settings.model
        messages = conversation.messages
        start = 0
        system: list[str] = []
        while start < len(messages) and messages[start].role == "system":
            system.append(self.text_of(messages[start], start))
            start += 1
        if system:
            payload["system_instruction"] = "\n\n".join(system)
        steps: list[dict[str, Any]] = []
        if FAST:
            fast_steps(self, messages, start, steps)
        else:
            for index in range(start, len(messages)):
                steps += self.message(messages[index], index)
        form = extras.get(INPUT_FORM)
        if steps or start < len(messages) or form == "empty":
            payload["input"] = _input_form(steps, form)
        elif extras.get("previous_interaction_id") is None and "input" not in payload:
            no_messages(self, False, "input step (or a previous_interaction_id)")
        if conversation.tools:
            tools = self.tools(conversation.tools)
            if tools or extras.get("tools_empty"):
                payload["tools"] = tools
        generation = self.generation(conversation, extras, tools="tools" in payload)
        if generation is not None:
            payload["generation_config"] = generation
        for key, value in extras.items():
            if key not in payload and key not in (INPUT_FORM, "generation_config"):
                payload[key] = copy_json(value)
        return payload

    def text_of(self, message: Message, index: int) -> str:
        """A system message's text (``system_instruction`` is one string)."""
        if isinstance(message.content, str):
            return message.content
        texts = []
        for position, block in enumerate(message.content):
            if isinstance(block, TextBlock):
                texts.append(block.text)
            else:
                text = self.unsupported(
                    f"{block.type} content in a system message", index, position
                )
                if text is not None:
                    texts.append(text)
        return "".join(texts)

    # --------------------------------------------------------------- messages

    def message(self, message: Message, index: int) -> list[dict[str, Any]]:
        """The steps of one message."""
        if isinstance(message, AssistantMessage):
            return self.model_steps(message, index)
        if isinstance(message, ToolMessage):
            return [self.result(message, index)]
        if message.role == "system":
            # Interactions API: system_instruction is one string, before the input
            text = self.unsupported("a system message after the first turn", index)
            return [] if text is None else [_user([{"type": "text", "text": text}])]
        items = self.items(message.content, index)
        step = _user(items)
        marks = _first_marks(message.content) if items else extras_of(message, NAME)
        _apply_marks(step, marks)
        if step.pop(NO_CONTENT, None) is True and not step["content"]:
            del step["content"]
        return [step]

    def items(self, content: str | Sequence[ContentBlock], index: int) -> list[dict[str, Any]]:
        """Content items of a user message or a function result."""
        if isinstance(content, str):
            return [{"type": "text", "text": content}]
        out: list[dict[str, Any]] = []
        for position, block in enumerate(content):
            item = self.item(block, index, position)
            if item is not None:
                out.append(item)
        return out

    def item(self, block: ContentBlock, index: int, position: int) -> dict[str, Any] | None:
        """One block as a content item, or the unsupported policy's placeholder."""
        if block.type == "image" and not self.options.vision:
            return self.placeholder("image (vision is off)", index, position)
        if isinstance(block, CompactionBlock):  # another format's: only its text can go
            why = f"compaction block from {block.provider}"
            text = compaction_text(self, block, index, position, why)
            return None if text is None else {"type": "text", "text": text}
        if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
            block = resource_as(block) or block  # as the text or media it maps to
        item = write_item(block)
        if item is not None:
            return item
        if isinstance(block, NonStandardBlock):
            return self.placeholder(non_standard_what(block), index, position)
        return self.placeholder(f"{block.type} content", index, position)

    def model_steps(self, message: AssistantMessage, index: int) -> list[dict[str, Any]]:
        """An assistant turn's steps: blocks and calls in their order."""
        content, calls = message.content, message.tool_calls
        common = type(content) is str and not message.invalid_tool_calls
        if common and all(not call.extras and call.index is None for call in calls):
            # the common turn: its text, then its calls (what the walk below writes)
            plain = [{"type": "text", "text": content}] if content else None
            common_steps = [{"type": "model_output", "content": plain}] if plain else []
            return common_steps + [_call(call) for call in calls]
        steps: list[dict[str, Any]] = []
        output: dict[str, Any] | None = None
        for item in _merged(content_blocks(message.content), message.tool_calls):
            position, thing = item
            if isinstance(thing, ToolCall):
                output = None
                signature = extras_of(thing, SIBLING).get("thought_signature")
                if isinstance(signature, str) and self.options.reasoning != "drop":
                    steps.append({"type": "thought", "signature": signature})
                steps.append(_call(thing))
                continue
            block = thing
            if isinstance(block, ReasoningBlock):
                output = None
                step = self.thought(block, index, position)
                if step is not None:
                    steps.append(step)
                continue
            if isinstance(block, NonStandardBlock) and block.provider == NAME:
                kind = block.value.get("type")
                if isinstance(kind, str) and kind not in (
                    "text",
                    "image",
                    "audio",
                    "video",
                    "document",
                ):
                    steps.append(copy_json(block.value))
                    output = None
                    continue
            mine = extras_of(block, NAME) if block.extras else {}
            signature = extras_of(block, SIBLING).get("thought_signature") if block.extras else None
            if isinstance(signature, str) and self.options.reasoning != "drop":
                steps.append({"type": "thought", "signature": signature})
                output = None
            item_ = self.item(block, index, position)
            if item_ is None:
                continue
            if output is None or mine.get(NEW_STEP) is True:
                output = {"type": "model_output", "content": []}
                _apply_marks(output, mine)
                steps.append(output)
            output["content"].append(item_)
        for position, invalid in enumerate(message.invalid_tool_calls):
            where = pointer(index, "invalid_tool_calls", position)
            text = self.unsupported(invalid_call_what(invalid), index, where=where)
            if text is not None:
                steps.append({"type": "model_output", "content": [{"type": "text", "text": text}]})
        for step in steps:
            marked: Any = step.get(NO_CONTENT)
            if step.get("type") == "model_output" and marked is True:
                del step[NO_CONTENT]
                if not step["content"]:
                    del step["content"]
        return steps

    def thought(self, block: ReasoningBlock, index: int, position: int) -> dict[str, Any] | None:
        """A reasoning block as a ``thought`` step (None: left out)."""
        options = self.options
        own = options.replays(block.provider) or (
            block.provider == SIBLING and options.reasoning != "drop"
        )
        # Thought signatures (Interactions API, function calling): the model's
        # signatures go back unchanged, to the model that made them (the replay
        # policy); another provider's reasoning cannot be verified
        if own and block.signature is not None:
            own = not held_back(self, block, self.target, index, position)
        if not own:
            text = block.text if block.text is not None else "\n".join(block.summary or [])
            if options.reasoning == "text" and text:
                return {"type": "model_output", "content": [{"type": "text", "text": text}]}
            return None
        mine = extras_of(block, NAME) if block.extras else {}
        step: dict[str, Any] = {"type": "thought"}
        if block.signature is not None:
            step["signature"] = block.signature
        texts = list(block.summary) if block.summary is not None else None
        if block.text and (texts is None or block.text != "\n".join(texts)):
            texts = [*(texts or ()), block.text]  # (the text beside a summary: one item more)
        if texts is not None:
            step["summary"] = [{"type": "text", "text": text} for text in texts]
        elif mine.get(NO_SUMMARY) is not True and block.signature is None:
            return None  # says nothing
        kept = mine.get(STEP)
        if isinstance(kept, dict):
            for key, value in kept.items():
                step.setdefault(key, copy_json(value))
        return step

    def result(self, message: ToolMessage, index: int) -> dict[str, Any]:
        """A tool result as a ``function_result`` step."""
        mine = extras_of(message, NAME) if message.extras else {}
        step: dict[str, Any] = {"type": "function_result", "call_id": message.tool_call_id}
        content = message.content
        result: Any
        if isinstance(content, str):
            result = content
            if mine.get(OBJECT_RESULT) is True:
                try:
                    parsed = json.loads(content)
                except ValueError:
                    parsed = None
                if isinstance(parsed, dict):
                    result = parsed
        else:
            result = self.items(content, index)
        step["result"] = result
        if message.status == "error":
            step["is_error"] = True
        return put_kept(step, message.extras)

    # ---------------------------------------------------------- tools, settings

    def tools(self, tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
        """Function declarations and this format's hosted tools."""
        if self.collect:
            self.problems += foreign_tool_problems(tools, self.options)
            sendable = [t for t in tools if t.provider in (None, NAME)]
        else:
            sendable = sendable_tools(tools, self.options)
        out: list[dict[str, Any]] = []
        for tool in sendable:
            kept = extras_of(tool, NAME).get("tool") if tool.extras else None
            if tool.provider == NAME:  # a hosted tool: as it came, or named by its type
                out.append(copy_json(kept) if isinstance(kept, dict) else {"type": tool.name})
                continue
            wire: dict[str, Any] = {"type": "function", "name": tool.name}
            if tool.description is not None:
                wire["description"] = tool.description
            marked = extras_of(tool, NAME).get("parameters", MISSING) if tool.extras else MISSING
            if marked is MISSING or tool.parameters:
                wire["parameters"] = copy_json(tool.parameters)
            elif marked != "absent":
                wire["parameters"] = copy_json(marked)
            out.append(put_kept(wire, tool.extras))
        return out

    def generation(
        self, conversation: Conversation, extras: dict[str, Any], *, tools: bool
    ) -> dict[str, Any] | None:
        """``generation_config``: the settings, the tool choice and what was kept."""
        config: dict[str, Any] = {}
        settings = conversation.settings
        if settings is not None:
            fields = settings.model_fields_set
            for key, field in SETTINGS.items():
                value = getattr(settings, field)
                if field not in fields or value is None:
                    continue
                if field == "reasoning_effort" and value.lower() not in THINKING_LEVELS:
                    self.unsupported_setting(
                        f"/settings/{field}",
                        f"settings.{field}: thinking_level has no {value!r} "
                        "(it takes minimal, low, medium, high, xhigh)",
                    )
                    continue
                config[key] = list(value) if field == "stop" else value
            for field in _UNSAYABLE:
                if field in fields and getattr(settings, field) is not None:
                    self.unsupported_setting(
                        f"/settings/{field}",
                        f"settings.{field}: generation_config has no such key",
                    )
        choice = conversation.tool_choice
        if choice is not None and (tools or not conversation.tools):  # (not when all dropped)
            name = _CHOICE_NAMES.get(choice.type)
            if name is not None:
                config["tool_choice"] = name
            elif choice.type == "tool":
                config["tool_choice"] = {"allowed_tools": {"mode": "any", "tools": [choice.name]}}
            elif choice.type == "allowed":
                mode = "any" if choice.mode == "required" else "auto"
                names = list(choice.names)
                config["tool_choice"] = {"allowed_tools": {"mode": mode, "tools": names}}
        kept = extras.get("generation_config")
        if isinstance(kept, dict):
            for key, value in kept.items():
                config.setdefault(key, copy_json(value))
            return config
        return config or None


def _user(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "user_input", "content": items}


def _first_marks(content: Any) -> dict[str, Any]:
    """The step markers kept on a message's first block."""
    if isinstance(content, str) or not content or not content[0].extras:
        return {}
    return extras_of(content[0], NAME)


def _apply_marks(step: dict[str, Any], marks: dict[str, Any]) -> None:
    """Put a step's kept keys back (and its ``no_content`` marker, removed later)."""
    kept = marks.get(STEP)
    if isinstance(kept, dict):
        for key, value in kept.items():
            step.setdefault(key, copy_json(value))
    if marks.get(NO_CONTENT) is True:
        step[NO_CONTENT] = True


def _call(call: ToolCall) -> dict[str, Any]:
    """A ``function_call`` step."""
    step: dict[str, Any] = {
        "type": "function_call",
        "id": call.id,
        "name": call.name,
        "arguments": copy_json(call.arguments),
    }
    return put_kept(step, call.extras)


def _merged(
    blocks: Sequence[ContentBlock], calls: Sequence[ToolCall]
) -> list[tuple[int, ContentBlock | ToolCall]]:
    """Blocks and calls in step order: calls at their ``index`` (a step position)."""
    placed = sorted((c.index, p) for p, c in enumerate(calls) if c.index is not None)
    out: list[tuple[int, ContentBlock | ToolCall]] = []
    step = 0
    taken = 0
    previous_text = False
    for position, block in enumerate(blocks):
        text = block.type not in ("reasoning", "non_standard")
        mine = extras_of(block, NAME) if block.extras else {}
        starts = not (text and previous_text) or mine.get(NEW_STEP) is True
        if starts:
            while taken < len(placed) and placed[taken][0] <= step:
                out.append((placed[taken][1], calls[placed[taken][1]]))
                taken += 1
                step += 1
                previous_text = False
            step += 1
        out.append((position, block))
        previous_text = text
    out.extend((p, calls[p]) for _, p in placed[taken:])
    out.extend((p, c) for p, c in enumerate(calls) if c.index is None)
    return out


def _input_form(steps: list[dict[str, Any]], form: Any) -> Any:
    """``input`` in the form it came in, when the steps still fit that form."""
    if form is None or len(steps) != 1 or steps[0].get("type") != "user_input":
        return steps
    step = steps[0]
    items = step.get("content")
    if set(step) != {"type", "content"} or not isinstance(items, list):
        return steps
    plain = len(items) == 1 and set(items[0]) == {"type", "text"} and items[0]["type"] == "text"
    if form == "string" and plain:
        return items[0]["text"]
    if form == "content" and len(items) == 1:
        return items[0]
    if form == "contents" and items:
        return items
    return steps
