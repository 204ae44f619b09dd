"""Encoding the neutral model as Chat Completions request arguments, and ``check``.

``check`` is the encoder in collect mode: one walk writes the request and notes
every problem (broken rules and content the format cannot carry); ``encode``
raises with all of them, or (``check=False``) applies the unsupported-content
policy as it goes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from chatschema_models.content import (
    AudioBlock,
    CompactionBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    ToolCall,
)
from typing_extensions import Unpack

from chatschema.errors import Problem
from chatschema.providers._common import (
    EncodeOptions,
    EncodePass,
    Options,
    ToolPairing,
    application_tools,
    content_blocks,
    data_url,
    extras_of,
    foreign_tool_problems,
    guarded,
    is_foreign_tool,
    no_messages,
    non_standard_what,
    pointer,
    raise_problems,
    sendable_tools,
    to_conversation,
    tool_call_as_text,
    tool_result_as_text,
    tools_as_text,
)
from chatschema.providers._common.options import report_dropped_settings
from chatschema.providers._common.replay import compaction_what, summary_of
from chatschema.providers._common.resources import resource_as
from chatschema.providers._openai import cache_breakpoint, custom_input
from chatschema.providers.openai_chat.blocks import (
    READ,
    as_field,
    default_shape,
    is_audio_field,
)
from chatschema.providers.openai_chat.details import DETAILS_TEXT, details_text, wire_detail
from chatschema.providers.openai_chat.fast import write_messages
from chatschema.providers.openai_chat.request import (
    call_arguments,
    checked,
    encode_invalid_call,
    encode_tool,
    encode_tool_choice,
    invalid_call_as_text,
    merge_kept,
)
from chatschema.providers.openai_chat.rules import pairing_problems, tool_problems, valid_tool_name
from chatschema.providers.openai_chat.settings import encode_settings
from chatschema.providers.openai_chat.wire import (
    AUDIO_FORMAT,
    BLOCK_MARKERS,
    CALL_MARKERS,
    EXPLICIT_AUTO,
    MESSAGE_MARKERS,
    NAME,
    NAME_PATTERN,
    REQUEST_MARKERS,
    SHAPES,
    TOOL_IMAGES_INTRO,
    Shape,
)

__all__ = ["check", "encode"]

_FAST = True
"""Whether the encoder takes its fast path for the common shapes (string content, tool
calls without extras or wire positions: :func:`~.fast.write_messages`; text blocks
without cache marker or extras: :meth:`_Encoder.part`). Off, every message and
block takes the general path and check pairs the tool calls in a walk of its own:
``tests/providers/openai_chat/test_encode_fast.py`` compares the two."""


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """Encode a conversation as Chat Completions request arguments.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`~chatschema.providers._common.EncodeOptions`.
            ``system_role``, when given, sets the role of every instruction
            message; otherwise each keeps the role it was decoded with
            (``extras["openai_chat"]["role"]``), ``"system"`` by default.

    Returns:
        ``{"messages": [...]}`` plus ``tools``, ``tool_choice`` and
        ``parallel_tool_calls`` when the conversation has them, its settings in
        the request's keys (only those set: ``model`` only when
        ``settings.model`` is), and the request keys kept in
        ``Conversation.extras["openai_chat"]``. Ready for
        ``client.chat.completions.create(model=..., **result)`` when the
        conversation names no model; otherwise let the caller's keywords win:
        ``create(**{**result, "model": ...})``.

    Raises:
        ConversionError: structural problems (with ``check``), or content that
            cannot be encoded (extras holding a key that is not a string).
        UnsupportedContentError: content the format cannot carry, and settings
            it has no key for (``top_k``, ``thinking_budget``), under
            ``unsupported="error"``.
        ValidationError: input that is not a conversation.
        OptionError: unknown options or bad option values.
    """
    resolved = Options.resolve(NAME, options)
    conversation = to_conversation(messages)
    # With check on, one pass collects every problem (unsupported content included).
    encoder = _Encoder(
        resolved, collect=resolved.check, explicit_system_role="system_role" in options
    )
    request = encoder.request(conversation)
    encoder.last_checks(conversation)
    # API reference, Create chat completion: `messages` is an array of minimum length 1
    no_messages(encoder, conversation.messages, "message")
    raise_problems(encoder.problems, NAME)
    report_dropped_settings(encoder.dropped_settings, NAME)
    return request


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every structural problem that would make Chat Completions reject the messages.

    With native tools: every tool call (invalid ones included, since they are sent
    back) answered by one ``tool`` message right after its assistant message, no
    orphan or duplicate results, custom tool calls with ``{"input": <string>}``
    arguments, tool names matching ``^[a-zA-Z0-9_-]{1,64}$``, no ``tool_choice``
    (other than none) without tools. Always: message
    ``name`` matching ``^[a-zA-Z0-9_-]+$``; content the format cannot carry (images
    when ``vision`` is off ...) and settings it has no key for (``top_k``,
    ``thinking_budget``, at ``/settings/<field>``) when the policy is
    ``unsupported="error"``.

    Args:
        messages: anything :func:`encode` accepts.
        **options: the options :func:`encode` would get.
    """
    conversation = to_conversation(messages)
    resolved = Options.resolve(NAME, options)
    encoder = _Encoder(resolved, collect=True, explicit_system_role="system_role" in options)
    encoder.request(conversation)
    encoder.last_checks(conversation)
    # API reference, Create chat completion: `messages` is an array of minimum length 1
    no_messages(encoder, conversation.messages, "message")
    return encoder.problems


class _Encoder(EncodePass):
    """One ``encode`` or ``check`` call: options, problems, and the messages written so far."""

    def __init__(self, options: Options, *, collect: bool, explicit_system_role: bool) -> None:
        super().__init__(options, collect=collect)
        self.explicit_system_role = explicit_system_role
        self.string_mode = options.content_format == "string"
        self.out: list[dict[str, Any]] = []
        self.tool_images: list[tuple[str, list[dict[str, Any]]]] = []
        native = options.native_tools
        # the fast path writes what the general path would, for the common shapes
        self.fast = _FAST and native and options.content_format != "parts"
        # check pairs tool calls with results in the encoder's own walk
        self.pairing = (
            ToolPairing(
                adjacent=True, provider=NAME, include_invalid=True, trailing=options.request
            )
            if _FAST and native and collect
            else None
        )
        self.fast_blocks = _FAST  # plain text blocks written at once
        self.tool_names: set[str] = set()  # names of tool calls found valid so far

    # -------------------------------------------------------------- request

    def request(self, conversation: Conversation) -> dict[str, Any]:
        """The request arguments: messages, tools and tool choice, settings, extras."""
        options = self.options
        given = conversation.tools or []
        result: dict[str, Any] = {"messages": write_messages(self, conversation.messages)}
        settings = conversation.settings
        own = extras_of(conversation, NAME) if conversation.extras else None
        if settings is not None:
            # once per request; check lists their problems before the messages'
            found = len(self.problems)
            result.update(encode_settings(settings, own or {}, self))
            if len(self.problems) > found:
                noted = self.problems[found:]
                del self.problems[found:]
                self.problems[:0] = noted
        if options.native_tools and self.collect:
            # check lists the request's tool rules first, then each message's problems
            pairing = self.pairing
            self.problems[:0] = [
                *foreign_tool_problems(given, options),
                *(
                    pairing_problems(conversation.messages, trailing=options.request)
                    if pairing is None
                    else pairing.finish()
                ),
                *tool_problems(conversation),
            ]
        if options.native_tools:
            if self.collect:  # other formats' hosted tools: noted above
                tools = [tool for tool in given if not is_foreign_tool(tool, NAME)]
            else:
                tools = sendable_tools(given, options)
            if tools or conversation.tools == []:  # an empty list goes back as it came
                result["tools"] = [encode_tool(tool) for tool in tools]
            if conversation.tool_choice is not None and (tools or not given):
                # a tool choice goes only with tools, or where none were given
                explicit = own is not None and own.get(EXPLICIT_AUTO) is True
                result.update(encode_tool_choice(conversation.tool_choice, tools, explicit))
        elif application_tools(given):
            self.add_tools_text(result["messages"], tools_as_text(given))
        if own:  # the request's other keys, as decoded (what was written wins)
            # the rest of a partly mapped object goes only into the object written
            fragments = [
                key
                for key in ("tool_choice", "response_format")
                if key not in result and isinstance(own.get(key), dict) and "type" not in own[key]
            ]
            merge_kept(result, own, REQUEST_MARKERS.union(fragments), "extras")
        return result

    # -------------------------------------------------------------- messages

    def check_call_name(self, name: str, index: int, position: int) -> None:
        """Check notes a tool call's name the API refuses (valid names are remembered)."""
        if valid_tool_name(name):
            self.tool_names.add(name)
        else:
            self.problem(
                pointer(index, "tool_calls", position, "name"),
                "pattern",
                f"tool name {name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$",
            )

    def flush_tool_images(self) -> None:
        """The images of the tool results just written, as one user message."""
        if not self.tool_images:
            return
        parts: list[dict[str, Any]] = []
        for call_id, images in self.tool_images:
            parts.append({"type": "text", "text": TOOL_IMAGES_INTRO.format(id=call_id)})
            parts.extend(images)
        self.out.append({"role": "user", "content": parts})
        self.tool_images = []

    def name(self, name: str, index: int) -> str:
        """A message's ``name``; check notes one the API refuses."""
        if self.collect and not NAME_PATTERN.fullmatch(name):
            self.problem(
                pointer(index, "name"),
                "pattern",
                f"message name {name!r} must match ^[a-zA-Z0-9_-]+$",
            )
        return name

    def instructions(self, message: SystemMessage, index: int) -> dict[str, Any]:
        """A system message, as ``system`` or ``developer``."""
        extras = extras_of(message, NAME)
        role = self.options.system_role
        if not self.explicit_system_role:
            recorded = extras.get("role")
            role = recorded if recorded in ("system", "developer") else "system"
        wire: dict[str, Any] = {"role": role}
        if message.name is not None:
            wire["name"] = self.name(message.name, index)
        wire["content"] = self.content(message.content, index, "instructions")
        merge_kept(wire, extras, MESSAGE_MARKERS, "extras", index)
        return wire

    def user(self, message: UserMessage, index: int) -> dict[str, Any]:
        """A user message."""
        wire: dict[str, Any] = {"role": "user"}
        if message.name is not None:
            wire["name"] = self.name(message.name, index)
        wire["content"] = self.content(message.content, index, "user")
        merge_kept(wire, extras_of(message, NAME), MESSAGE_MARKERS, "extras", index)
        return wire

    def tool(self, message: ToolMessage, index: int) -> dict[str, Any]:
        """A tool message (native tools); its images are held for a user message."""
        extras = extras_of(message, NAME)
        content = message.content
        wire: dict[str, Any] = {"role": "tool", "tool_call_id": message.tool_call_id}
        if isinstance(content, str):
            wire["content"] = self.text_content(content)
        else:
            parts: list[dict[str, Any]] = []
            images: list[dict[str, Any]] = []
            dropped = self.dropped
            for position, block in enumerate(content):
                if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
                    block = resource_as(block) or block
                if block.type == "image":
                    # API reference: tool message content is text only; images go to a user message
                    part = self.part(block, index, position, "user")
                    if part is not None:
                        (images if part["type"] == "image_url" else parts).append(part)
                    continue
                part = self.part(block, index, position, "tool")
                if part is not None:
                    parts.append(part)
            if not parts and (images or self.dropped > dropped):
                wire["content"] = ""  # a tool message answers its call: it stays
            else:
                wire["content"] = self.join(parts) if self.string_mode else parts
            if images:
                self.tool_images.append((message.tool_call_id, images))
        # API reference: a tool message has no name; sent only when a decoded one had it
        if extras.get("send_name") is True and message.name is not None:
            wire["name"] = message.name
        merge_kept(wire, extras, MESSAGE_MARKERS, "extras", index)
        return wire

    def tool_as_user(self, message: ToolMessage, index: int) -> dict[str, Any]:
        """A tool result as user text, for models without native function calling."""
        texts: list[str] = []
        images: list[dict[str, Any]] = []
        for position, block in enumerate(content_blocks(message.content)):
            if block.type == "image":
                part = self.part(block, index, position, "user")
            else:
                part = self.part(block, index, position, "tool")
            if part is None:
                continue
            if part["type"] == "text":
                texts.append(part["text"])
            else:
                images.append(part)
        text = tool_result_as_text(message, "\n".join(texts))
        if images or self.options.content_format == "parts":
            return {"role": "user", "content": [{"type": "text", "text": text}, *images]}
        return {"role": "user", "content": text}

    def assistant(self, message: AssistantMessage, index: int) -> dict[str, Any]:
        """An assistant message: content, refusal, tool calls and reasoning fields."""
        extras = extras_of(message, NAME)
        wire: dict[str, Any] = {"role": "assistant"}
        if message.name is not None:
            wire["name"] = self.name(message.name, index)
        # the calls before the content: check lists their problems first
        calls = self.tool_calls(message, index)
        content = message.content
        refusal: str | None = None
        audio: str | None = None
        reasoning: list[str] = []
        reasoning_field = "reasoning_content"
        details: list[dict[str, Any]] | None = None  # OpenRouter's (details.py)
        detail_blocks: list[ReasoningBlock]  # (set with details)
        parts: list[dict[str, Any]] = []
        if isinstance(content, str):
            unset = "content" not in message.model_fields_set
            default: Shape = "null" if unset else "string"
            if content:
                parts.append({"type": "text", "text": content})
        else:
            default = default_shape(content)
            for position, block in enumerate(content):
                if isinstance(block, ReasoningBlock):
                    if self.options.replays(block.provider):
                        detail = wire_detail(block, index, position)  # OpenRouter's (details.py)
                        if detail is not None:
                            if details is None:
                                details, detail_blocks = [], []
                            details.append(detail)
                            detail_blocks.append(block)
                            continue
                        text = _reasoning_text(block)
                        # DeepSeek / vLLM docs: reasoning_content goes back only when
                        # asked, or when the request it was decoded from carried it
                        sent = self.options.reasoning_content or bool(
                            extras_of(block, NAME).get("sent")
                        )
                        if sent and text is not None:
                            if not reasoning:
                                field = extras_of(block, NAME).get("field")
                                if field in ("reasoning", "reasoning_content"):
                                    reasoning_field = field
                            reasoning.append(text)
                        continue
                    part = self.reasoning_as_text(block)
                    if part is not None:
                        parts.append(part)
                    continue
                if (
                    isinstance(block, RefusalBlock)
                    and refusal is None
                    and (as_field(block) or self.string_mode)
                ):
                    refusal = block.text
                    continue
                if isinstance(block, AudioBlock) and audio is None and is_audio_field(block):
                    # Audio guide, multi-turn: the reply's audio goes back by its id only
                    audio = block.id
                    continue
                part = self.part(block, index, position, "assistant")
                if part is not None:
                    parts.append(part)
        recorded = extras.get("content_shape")
        if not self.options.native_tools and calls:
            # the calls become text: the content is what they are written into
            parts.extend({"type": "text", "text": text} for text in calls)
            if default != "list":
                default = "string"
            if recorded in ("null", "absent"):
                recorded = None
        shape = self.shape(recorded, default, parts)
        if shape == "null":
            wire["content"] = None
        elif shape == "string":
            wire["content"] = self.join(parts)
        elif shape == "list":
            wire["content"] = parts
        elif shape == "object":
            wire["content"] = parts[0]  # one part, as it came (not in a list)
        if refusal is not None:
            wire["refusal"] = refusal
        if self.options.native_tools and calls:
            wire["tool_calls"] = calls
        if reasoning:
            wire[reasoning_field] = "\n".join(reasoning)
        if details:
            wire["reasoning_details"] = details
            derived = extras.get(DETAILS_TEXT)
            # as reasoning_content: back when asked, or when the request carried it
            if (
                not reasoning
                and isinstance(derived, dict)
                and derived.get("field") in ("reasoning", "reasoning_content")
                and (self.options.reasoning_content or derived.get("sent") is True)
            ):
                wire[derived["field"]] = details_text(detail_blocks)
        if audio is not None:
            wire["audio"] = {"id": audio}
        merge_kept(wire, extras, MESSAGE_MARKERS, "extras", index)
        return wire

    def shape(self, recorded: Any, default: Shape, parts: list[dict[str, Any]]) -> Shape:
        """The wire form of an assistant's content."""
        shape = (
            cast(Shape, recorded) if isinstance(recorded, str) and recorded in SHAPES else default
        )
        content_format = self.options.content_format
        if content_format == "string" and shape in ("list", "object"):
            shape = "string"
        elif content_format == "parts" and shape in ("string", "object"):
            shape = "list"
        if shape in ("null", "absent") and parts:
            shape = "string" if content_format == "string" else "list"
        # string content is text only: anything else needs the list form
        if shape == "string" and any(part.get("type") != "text" for part in parts):
            shape = "list"
        # one part goes as an object (the form it came in); any other number in a list
        if shape == "object" and len(parts) != 1:
            shape = "list"
        return shape

    def tool_calls(self, message: AssistantMessage, index: int) -> list[Any]:
        """Wire tool calls (native) or their text (without native tools), in order."""
        native = self.options.native_tools
        ordered: list[tuple[int | None, int, Any]] = []
        for position, call in enumerate(message.tool_calls):
            wire = self.tool_call(call, index, position) if native else tool_call_as_text(call)
            if wire is not None:
                ordered.append((call.index, position, wire))
        offset = len(message.tool_calls)
        for position, bad in enumerate(message.invalid_tool_calls):
            if native:
                if bad.id is None and extras_of(bad, NAME).get("id") != "":
                    # A call without id cannot be answered (API reference: tool_call_id is
                    # required); placeholder text has no place among tool calls.
                    what = f"invalid tool call {position} without id"
                    if self.unsupported(what, index) is not None:
                        self.dropped += 1
                    continue
                wire = encode_invalid_call(bad)
            else:
                wire = invalid_call_as_text(bad)
            ordered.append((bad.index, offset + position, wire))
        # decoded calls carry their wire position as `index`: valid and invalid interleave
        if any(item[0] is not None for item in ordered):
            last = 1 << 62
            ordered.sort(key=lambda item: (item[0] if item[0] is not None else last, item[1]))
        return [item[2] for item in ordered]

    def tool_call(self, call: ToolCall, index: int, position: int) -> dict[str, Any] | None:
        """One native tool call; None for a custom call check refuses."""
        if self.collect and not valid_tool_name(call.name):
            self.problem(
                pointer(index, "tool_calls", position, "name"),
                "pattern",
                f"tool name {call.name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$",
            )
        extras = extras_of(call, NAME)
        wire: dict[str, Any]
        if extras.get("type") == "custom":
            # Function calling guide, "Custom tools": one free-form string, our {"input": ...}
            text = custom_input(call)
            if text is None:
                if not self.collect:
                    READ.fail(
                        f'custom tool call {call.id!r} needs arguments {{"input": <string>}}',
                        index,
                    )
                self.problem(
                    pointer(index, "tool_calls", position, "arguments"),
                    "custom_tool_input",
                    'a custom tool call needs arguments {"input": <string>}',
                )
                return None
            wire = {"id": call.id, "type": "custom", "custom": {"name": call.name, "input": text}}
        else:
            wire = {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": call_arguments(call, extras)},
            }
            if extras.get("no_type") is True:
                del wire["type"]
        if extras:
            merge_kept(wire, extras, CALL_MARKERS, "tool call extras", index)
        return wire

    def add_tools_text(self, out: list[dict[str, Any]], text: str) -> None:
        """Tool definitions as text, added to the instructions (native_tools off)."""
        if out and out[0]["role"] in ("system", "developer"):
            content = out[0]["content"]
            if isinstance(content, list):
                content.append({"type": "text", "text": text})
            else:
                out[0]["content"] = f"{content}\n\n{text}" if content else text
            return
        first: Any = (
            [{"type": "text", "text": text}] if self.options.content_format == "parts" else text
        )
        out.insert(0, {"role": self.options.system_role, "content": first})

    # -------------------------------------------------------------- content

    def text_content(self, text: str) -> str | list[dict[str, Any]]:
        """String content, as a string or (``content_format="parts"``) one text part."""
        if self.options.content_format == "parts":
            return [{"type": "text", "text": text}] if text else []
        return text

    def join(self, parts: list[dict[str, Any]]) -> str:
        """Text parts as one string."""
        return "\n".join(part["text"] for part in parts)

    def content(
        self, content: str | Sequence[ContentBlock], index: int, kind: str
    ) -> str | list[dict[str, Any]]:
        """The content of a user, system or developer message."""
        if isinstance(content, str):
            return self.text_content(content)
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(content):
            part = self.part(block, index, position, kind)
            if part is not None:
                parts.append(part)
        return self.join(parts) if self.string_mode else parts

    def reasoning_as_text(self, block: ReasoningBlock) -> dict[str, Any] | None:
        """Another provider's reasoning as text, under ``reasoning="text"``; else None."""
        if self.options.reasoning != "text" or block.provider == NAME:
            return None
        text = _reasoning_text(block)
        return {"type": "text", "text": text} if text else None

    def placeholder(self, what: str, index: int, position: int) -> dict[str, Any] | None:
        """Content the format cannot carry: the policy's text part, or None."""
        text = self.unsupported(what, index, position)
        return None if text is None else {"type": "text", "text": text}

    def part(
        self, block: ContentBlock, index: int, position: int, kind: str
    ) -> dict[str, Any] | None:
        """One content part; kind is user, assistant, instructions or tool."""
        if isinstance(block, TextBlock):
            extras = block.extras
            if (
                self.fast_blocks
                and block.cache_control is None
                and not (extras and extras.get(NAME))
            ):
                return {"type": "text", "text": block.text}  # a plain text block
            part: dict[str, Any] = {"type": "text", "text": block.text}
        elif isinstance(block, ReasoningBlock):
            return self.reasoning_as_text(block)
        elif isinstance(block, NonStandardBlock):
            if extras_of(block, NAME).get("part") is not True:
                return self.placeholder(non_standard_what(block), index, position)
            if self.string_mode:
                return self.placeholder("a non-standard part in string content", index, position)
            return checked(block.value, "non_standard value", index, position)  # type: ignore[no-any-return]
        elif isinstance(block, RefusalBlock):
            if kind != "assistant":
                return self.placeholder(f"a refusal in {_a(kind)} message", index, position)
            if self.string_mode:
                return self.placeholder("a second refusal in string content", index, position)
            part = {"type": "refusal", "refusal": block.text}
        elif isinstance(block, CompactionBlock):  # no such part: its text, or the policy
            summary = summary_of(self.options, block)
            if summary is None:
                return self.placeholder(compaction_what(block), index, position)
            return self.part(summary, index, position, kind)
        elif isinstance(block, (ResourceBlock, ResourceLinkBlock)):
            # no resource part: the text or media part it maps to, where there is one
            alt = resource_as(block)
            if alt is None:
                return self.placeholder(_what(block), index, position)
            return self.part(alt, index, position, kind)
        elif kind != "user":
            # API reference: media parts are user content only (system/assistant/tool take text)
            role = "a tool result" if kind == "tool" else f"{_a(kind)} message"
            return self.placeholder(f"{_what(block)} in {role}", index, position)
        elif self.string_mode:
            return self.placeholder(f"{_what(block)} in string content", index, position)
        elif isinstance(block, ImageBlock):
            if not self.options.vision:
                return self.placeholder("an image (vision is off)", index, position)
            maybe = _image_part(block)
            if maybe is None:
                return self.placeholder("an image by file id", index, position)
            part = maybe
        elif isinstance(block, AudioBlock):
            maybe = _audio_part(block)
            if maybe is None:
                return self.placeholder("audio other than base64 wav or mp3", index, position)
            part = maybe
        elif isinstance(block, FileBlock):
            maybe = _file_part(block)
            if maybe is None:
                return self.placeholder("a file by URL", index, position)
            part = maybe
        else:
            return self.placeholder(_what(block), index, position)
        if self.string_mode:
            return {"type": "text", "text": part["text"]} if part["type"] == "text" else part
        # Prompt caching guide: breakpoints go on content parts, never on a refusal
        if (
            self.options.prompt_cache
            and block.cache_control is not None
            and part["type"] != "refusal"
        ):
            part["prompt_cache_breakpoint"] = cache_breakpoint(block.cache_control)
        merge_kept(part, extras_of(block, NAME), BLOCK_MARKERS, "extras", index, position)
        return part


def _what(block: ContentBlock) -> str:
    """A block's kind, for the unsupported-content message."""
    names = {
        "image": "an image",
        "audio": "audio",
        "video": "a video",
        "file": "a file",
        "text-plain": "a text-plain document",
        "server_tool_call": "a server tool call",
        "server_tool_result": "a server tool result",
    }
    return names.get(block.type, f"a {block.type} block")


def _a(word: str) -> str:
    """``word`` with its indefinite article (``an assistant``, ``a system``)."""
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _reasoning_text(block: ReasoningBlock) -> str | None:
    """A reasoning block's text, or its summary joined; None when it has neither."""
    if block.text is not None:
        return block.text
    if block.summary:
        return "\n".join(block.summary)
    return None


def _image_part(block: ImageBlock) -> dict[str, Any] | None:
    """An ``image_url`` part (inline data as a data URL); None for a file id."""
    if block.url is not None:
        url = block.url
    elif block.base64 is not None and block.mime_type is not None:
        url = data_url(block.mime_type, block.base64)
    else:
        return None
    extras = extras_of(block, NAME)
    if extras.get("bare_url") is True and block.detail is None and "image_url" not in extras:
        return {"type": "image_url", "image_url": url}  # the bare string it came as
    image_url: dict[str, Any] = {"url": url}
    if block.detail is not None:
        image_url["detail"] = block.detail
    return {"type": "image_url", "image_url": image_url}


def _audio_part(block: AudioBlock) -> dict[str, Any] | None:
    """An ``input_audio`` part: base64 wav or mp3 only (or the format it came with)."""
    if block.base64 is None or block.mime_type is None:
        return None
    mime = block.mime_type.split(";", 1)[0].strip().lower()
    audio_format = AUDIO_FORMAT.get(mime)
    if audio_format is None:
        recorded = extras_of(block, NAME).get("input_audio")
        if isinstance(recorded, dict) and isinstance(recorded.get("format"), str):
            audio_format = recorded["format"]
        else:
            return None
    return {"type": "input_audio", "input_audio": {"data": block.base64, "format": audio_format}}


def _file_part(block: FileBlock) -> dict[str, Any] | None:
    """A ``file`` part: inline data and/or a file id; None for a file by URL."""
    file: dict[str, Any] = {}
    if block.base64 is not None and block.mime_type is not None:
        bare = extras_of(block, NAME).get("bare_base64") is True
        file["file_data"] = block.base64 if bare else data_url(block.mime_type, block.base64)
    if block.file_id is not None:
        file["file_id"] = block.file_id
    if not file:
        return None
    if block.filename is not None:
        file["filename"] = block.filename
    return {"type": "file", "file": file}
