"""OpenAI Chat Completions: the neutral model to and from ``messages`` (and tools).

``encode`` returns the keyword arguments of ``client.chat.completions.create``
that carry the conversation: ``messages`` and, when the conversation has them,
``tools``, ``tool_choice`` and ``parallel_tool_calls``::

    client.chat.completions.create(model="gpt-4.1", **openai_chat.encode(conversation))

``decode_conversation`` reads that shape back (or a bare message list, or SDK
objects); ``decode_response`` reads a ``ChatCompletion``. A payload decoded and
encoded again is the same payload, byte for byte where the API cares (tool-call
argument strings, content forms, unknown keys). What the neutral model has no
field for is kept under ``extras["openai_chat"]`` (see ``docs/providers/openai_chat.md``
for every key). Chat Completions has no hosted tools: other formats' hosted tools
(``ToolDefinition.provider``) go through the unsupported-content policy, and a
message that the policy's drops leave empty is not sent.
"""

from __future__ import annotations

import copy
import json
import mimetypes
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, Literal, NoReturn, TypeVar, cast

import pydantic
from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    AudioBlock,
    CacheControl,
    Citation,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    TextBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    AutoToolChoice,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolCallChunk,
    ToolChoice,
    ToolDefinition,
)
from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage
from pydantic import BaseModel
from typing_extensions import Unpack

from chatschema.errors import ConversionError, Problem
from chatschema.providers._common import (
    EncodeOptions,
    Options,
    application_tools,
    arguments_text,
    as_json,
    content_blocks,
    data_url,
    decoder,
    extras_of,
    foreign_tool_problems,
    guarded,
    is_foreign_tool,
    parse_arguments,
    parse_data_url,
    pointer,
    sendable_tools,
    structural_error,
    to_conversation,
    tool_call_as_text,
    tool_pairing_problems,
    tool_result_as_text,
    tools_as_text,
)
from chatschema.providers._sse import events as sse_events

__all__ = [
    "CUSTOM_TOOL_PARAMETERS",
    "NAME",
    "TOOL_IMAGES_INTRO",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
]

NAME: Final = "openai_chat"

_M = TypeVar("_M", bound=BaseModel)
_ABSENT: Final = object()

# Content shapes of an assistant message on the wire (``extras["openai_chat"]["content_shape"]``
# records the shape when it is not the one the neutral content implies).
Shape = Literal["absent", "null", "string", "list"]
_SHAPES: Final = ("absent", "null", "string", "list")

# The API's rule for message and function names (its 400 errors quote the pattern).
_NAME_PATTERN: Final = re.compile(r"[a-zA-Z0-9_-]+")
_TOOL_NAME_MAX: Final = 64  # FunctionDefinition.name in the SDK

# input_audio formats: wire format <-> media type.
_AUDIO_MIME: Final = {"wav": "audio/wav", "mp3": "audio/mpeg"}
_AUDIO_FORMAT: Final = {
    "audio/wav": "wav",
    "audio/wave": "wav",
    "audio/x-wav": "wav",
    "audio/mpeg": "mp3",
    "audio/mp3": "mp3",
}

# The prompt_cache_breakpoint lifetimes the API takes; a neutral ttl is rounded up.
_CACHE_TTLS: Final = ("30m", "12h")
_TTL_SECONDS: Final = {"s": 1, "m": 60, "h": 3600}

# Parameters of a custom (free-form input) tool in the neutral model.
CUSTOM_TOOL_PARAMETERS: Final[dict[str, Any]] = {
    "type": "object",
    "properties": {"input": {"type": "string"}},
    "required": ["input"],
}

_FINISH_REASONS: Final = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_calls",
    "function_call": "tool_calls",
    "content_filter": "content_filter",
}

# Keys of the extras namespaces that are chatschema markers, not wire keys.
_MESSAGE_MARKERS: Final = frozenset({"role", "content_shape", "send_name"})
_CALL_MARKERS: Final = frozenset({"arguments", "type", "no_type"})
_TOOL_MARKERS: Final = frozenset({"type", "format", "no_parameters", "tool_fields"})
_BLOCK_MARKERS: Final = frozenset({"as_field", "field", "bare_base64", "part"})

TOOL_IMAGES_INTRO: Final = "Images returned by tool call {id}:"
"""Text that opens the user message carrying the images of a tool result."""


# ============================================================================ helpers


def _fail(
    reason: str, message_index: int | None = None, block_index: int | None = None
) -> NoReturn:
    raise ConversionError(
        reason, provider=NAME, message_index=message_index, block_index=block_index
    )


def _build(
    cls: type[_M], fields: dict[str, Any], message_index: int | None, block_index: int | None = None
) -> _M:
    """A model from keyword fields; validation errors become ConversionError."""
    try:
        return cls(**fields)
    except pydantic.ValidationError as error:
        detail = "; ".join(
            f"{'/'.join(str(part) for part in item['loc']) or '/'}: {item['msg']}"
            for item in error.errors()[:3]
        )
        _fail(f"cannot represent as {cls.__name__}: {detail}", message_index, block_index)


def _json(payload: Any) -> Any:
    """SDK objects as the JSON they came from (explicit nulls kept); JSON passes through.

    ``exclude_unset`` rather than ``_common.as_json``'s ``exclude_none``: a response
    object then gives exactly what the REST JSON gives, nested nulls included.
    """
    if isinstance(payload, BaseModel):
        return payload.model_dump(mode="json", exclude_unset=True)
    return as_json(payload)


def _describe(value: Any) -> str:
    return "null" if value is None else type(value).__name__


def _object(value: Any, what: str, mi: int | None, bi: int | None = None) -> dict[str, Any]:
    if isinstance(value, BaseModel):
        value = _json(value)
    if not isinstance(value, dict):
        _fail(f"{what} must be an object, not {_describe(value)}", mi, bi)
    return value


def _string(value: Any, what: str, mi: int | None, bi: int | None = None) -> str:
    if not isinstance(value, str):
        _fail(f"{what} must be a string, not {_describe(value)}", mi, bi)
    return value


def _leftover(data: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The keys of ``data`` a decoder did not map, copied (they go to extras)."""
    known = set(known)
    return {key: copy.deepcopy(value) for key, value in data.items() if key not in known}


def _merge(target: dict[str, Any], extras: Mapping[str, Any], skip: frozenset[str]) -> None:
    """Put extras back into a wire object: missing keys added, objects merged."""
    for key, value in extras.items():
        if key in skip:
            continue
        if key not in target:
            target[key] = copy.deepcopy(value)
        elif isinstance(target[key], dict) and isinstance(value, Mapping):
            _merge(target[key], value, frozenset())


def _with_extras(fields: dict[str, Any], extras: Mapping[str, Any]) -> dict[str, Any]:
    if extras:
        fields["extras"] = {NAME: dict(extras)}
    return fields


def _message_index(problem: Problem) -> int | None:
    parts = problem.pointer.split("/")
    if len(parts) > 2 and parts[1] == "messages" and parts[2].isdigit():
        return int(parts[2])
    return None


# ============================================================================ encode


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
        ``parallel_tool_calls`` when the conversation has them, ready for
        ``client.chat.completions.create(model=..., **result)``.

    Raises:
        ConversionError: structural problems (with ``check``), or content that
            cannot be encoded.
        UnsupportedContentError: content the format cannot carry, under
            ``unsupported="error"``.
        ValidationError: input that is not a conversation.
        OptionError: unknown options or bad option values.
    """
    opts = Options.resolve(NAME, options)
    conversation = to_conversation(messages)
    if opts.check:
        problems = _problems(conversation, opts)
        if problems:
            raise structural_error(problems, NAME)
    encoder = _Encoder(opts, explicit_system_role="system_role" in options)
    result: dict[str, Any] = {"messages": encoder.messages(conversation.messages)}
    given = conversation.tools or []
    if opts.native_tools:
        tools = sendable_tools(given, opts)
        if tools:
            result["tools"] = [_encode_tool(tool) for tool in tools]
        if conversation.tool_choice is not None and (tools or not given):
            # a tool choice goes only with tools, or where none were given
            result.update(_encode_tool_choice(conversation.tool_choice, tools))
    elif application_tools(given):
        encoder.add_tools_text(result["messages"], tools_as_text(given))
    return result


class _Encoder:
    """One ``encode`` call: options, and the messages written so far."""

    def __init__(self, opts: Options, *, explicit_system_role: bool) -> None:
        self.opts = opts
        self.explicit_system_role = explicit_system_role
        self.string_mode = opts.content_format == "string"
        self.out: list[dict[str, Any]] = []
        self.tool_images: list[tuple[str, list[dict[str, Any]]]] = []
        self.dropped = 0  # content left out by unsupported="drop" so far

    # -------------------------------------------------------------- messages

    def messages(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        native = self.opts.native_tools
        for index, message in enumerate(messages):
            if isinstance(message, ToolMessage):
                if native:
                    self.out.append(self.tool(message, index))
                else:
                    self.out.append(self.tool_as_user(message, index))
                continue
            self.flush_tool_images()
            dropped = self.dropped
            if isinstance(message, SystemMessage):
                wire = self.instructions(message, index)
            elif isinstance(message, UserMessage):
                wire = self.user(message, index)
            else:
                wire = self.assistant(message, index)
            if self.dropped > dropped and _empty_message(wire):
                continue  # drops left it empty: not sent (the API rejects it)
            self.out.append(wire)
        self.flush_tool_images()
        return self.out

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

    def instructions(self, message: SystemMessage, index: int) -> dict[str, Any]:
        extras = extras_of(message, NAME)
        role = self.opts.system_role
        if not self.explicit_system_role:
            recorded = extras.get("role")
            role = recorded if recorded in ("system", "developer") else "system"
        wire: dict[str, Any] = {"role": role}
        if message.name is not None:
            wire["name"] = message.name
        wire["content"] = self.content(message.content, index, "instructions")
        _merge(wire, extras, _MESSAGE_MARKERS)
        return wire

    def user(self, message: UserMessage, index: int) -> dict[str, Any]:
        wire: dict[str, Any] = {"role": "user"}
        if message.name is not None:
            wire["name"] = message.name
        wire["content"] = self.content(message.content, index, "user")
        _merge(wire, extras_of(message, NAME), _MESSAGE_MARKERS)
        return wire

    def tool(self, message: ToolMessage, index: int) -> dict[str, Any]:
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
                if block.type == "image":
                    # Tool content takes text only: images move to a user message.
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
        if extras.get("send_name") is True and message.name is not None:
            wire["name"] = message.name
        _merge(wire, extras, _MESSAGE_MARKERS)
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
        if images or self.opts.content_format == "parts":
            return {"role": "user", "content": [{"type": "text", "text": text}, *images]}
        return {"role": "user", "content": text}

    def assistant(self, message: AssistantMessage, index: int) -> dict[str, Any]:
        extras = extras_of(message, NAME)
        wire: dict[str, Any] = {"role": "assistant"}
        if message.name is not None:
            wire["name"] = message.name
        content = message.content
        refusal: str | None = None
        reasoning: list[str] = []
        reasoning_field = "reasoning_content"
        parts: list[dict[str, Any]] = []
        if isinstance(content, str):
            unset = "content" not in message.model_fields_set
            default: Shape = "null" if unset else "string"
            if content:
                parts.append({"type": "text", "text": content})
        else:
            default = _default_shape(content)
            for position, block in enumerate(content):
                if isinstance(block, ReasoningBlock):
                    if self.opts.replays(block.provider):
                        text = _reasoning_text(block)
                        if self.opts.reasoning_content and text is not None:
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
                    and (_as_field(block) or self.string_mode)
                ):
                    refusal = block.text
                    continue
                part = self.part(block, index, position, "assistant")
                if part is not None:
                    parts.append(part)
        calls = self.tool_calls(message, index)
        recorded = extras.get("content_shape")
        if not self.opts.native_tools and calls:
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
        if refusal is not None:
            wire["refusal"] = refusal
        if self.opts.native_tools and calls:
            wire["tool_calls"] = calls
        if reasoning:
            wire[reasoning_field] = "\n".join(reasoning)
        _merge(wire, extras, _MESSAGE_MARKERS)
        return wire

    def shape(self, recorded: Any, default: Shape, parts: list[dict[str, Any]]) -> Shape:
        """The wire form of an assistant's content."""
        shape = (
            cast(Shape, recorded) if isinstance(recorded, str) and recorded in _SHAPES else default
        )
        fmt = self.opts.content_format
        if fmt == "string" and shape == "list":
            shape = "string"
        elif fmt == "parts" and shape == "string":
            shape = "list"
        if shape in ("null", "absent") and parts:
            shape = "string" if fmt == "string" else "list"
        if shape == "string" and any(part.get("type") != "text" for part in parts):
            shape = "list"
        return shape

    def tool_calls(self, message: AssistantMessage, index: int) -> list[Any]:
        """Wire tool calls (native) or their text (without native tools), in order."""
        native = self.opts.native_tools
        ordered: list[tuple[int | None, int, Any]] = []
        for position, call in enumerate(message.tool_calls):
            wire = _encode_tool_call(call, index) if native else tool_call_as_text(call)
            ordered.append((call.index, position, wire))
        offset = len(message.tool_calls)
        for position, bad in enumerate(message.invalid_tool_calls):
            if native:
                if bad.id is None:
                    # A call without id cannot be answered; placeholder text has no place.
                    self.opts.unsupported_content(
                        f"invalid tool call {position} without id", message_index=index
                    )
                    self.dropped += 1
                    continue
                wire = _encode_invalid_call(bad)
            else:
                wire = _invalid_call_as_text(bad)
            ordered.append((bad.index, offset + position, wire))
        if any(item[0] is not None for item in ordered):
            last = 1 << 62
            ordered.sort(key=lambda item: (item[0] if item[0] is not None else last, item[1]))
        return [item[2] for item in ordered]

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
            [{"type": "text", "text": text}] if self.opts.content_format == "parts" else text
        )
        out.insert(0, {"role": self.opts.system_role, "content": first})

    # -------------------------------------------------------------- content

    def text_content(self, text: str) -> str | list[dict[str, Any]]:
        if self.opts.content_format == "parts":
            return [{"type": "text", "text": text}] if text else []
        return text

    def join(self, parts: list[dict[str, Any]]) -> str:
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
        if self.opts.reasoning != "text" or block.provider == NAME:
            return None
        text = _reasoning_text(block)
        return {"type": "text", "text": text} if text else None

    def unsupported(self, what: str, index: int, position: int) -> dict[str, Any] | None:
        text = self.opts.unsupported_content(what, message_index=index, block_index=position)
        if text is None:
            self.dropped += 1
            return None
        return {"type": "text", "text": text}

    def part(
        self, block: ContentBlock, index: int, position: int, kind: str
    ) -> dict[str, Any] | None:
        """One content part; kind is user, assistant, instructions or tool."""
        if isinstance(block, TextBlock):
            part: dict[str, Any] = {"type": "text", "text": block.text}
        elif isinstance(block, ReasoningBlock):
            return self.reasoning_as_text(block)
        elif isinstance(block, NonStandardBlock):
            if extras_of(block, NAME).get("part") is not True:
                return self.unsupported("a non-standard block of another format", index, position)
            if self.string_mode:
                return self.unsupported("a non-standard part in string content", index, position)
            return copy.deepcopy(block.value)
        elif isinstance(block, RefusalBlock):
            if kind != "assistant":
                return self.unsupported(f"a refusal in {_a(kind)} message", index, position)
            if self.string_mode:
                return self.unsupported("a second refusal in string content", index, position)
            part = {"type": "refusal", "refusal": block.text}
        elif kind != "user":
            role = "a tool result" if kind == "tool" else f"{_a(kind)} message"
            return self.unsupported(f"{_what(block)} in {role}", index, position)
        elif self.string_mode:
            return self.unsupported(f"{_what(block)} in string content", index, position)
        elif isinstance(block, ImageBlock):
            if not self.opts.vision:
                return self.unsupported("an image (vision is off)", index, position)
            maybe = _image_part(block)
            if maybe is None:
                return self.unsupported("an image by file id", index, position)
            part = maybe
        elif isinstance(block, AudioBlock):
            maybe = _audio_part(block)
            if maybe is None:
                return self.unsupported("audio other than base64 wav or mp3", index, position)
            part = maybe
        elif isinstance(block, FileBlock):
            maybe = _file_part(block)
            if maybe is None:
                return self.unsupported("a file by URL", index, position)
            part = maybe
        else:
            return self.unsupported(_what(block), index, position)
        if self.string_mode:
            return {"type": "text", "text": part["text"]} if part["type"] == "text" else part
        if self.opts.prompt_cache and block.cache_control is not None and part["type"] != "refusal":
            part["prompt_cache_breakpoint"] = _cache_breakpoint(block.cache_control)
        _merge(part, extras_of(block, NAME), _BLOCK_MARKERS)
        return part


def _empty_message(wire: Mapping[str, Any]) -> bool:
    """Whether a system, user or assistant message has nothing to say.

    No content, tool calls, refusal, reasoning or audio.
    """
    return not wire.get("content") and all(key in ("role", "name", "content") for key in wire)


def _what(block: ContentBlock) -> str:
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


def _reasoning_text(block: ReasoningBlock) -> str | None:
    if block.text is not None:
        return block.text
    if block.summary:
        return "\n".join(block.summary)
    return None


def _as_field(block: RefusalBlock) -> bool:
    return extras_of(block, NAME).get("as_field") is True


def _default_shape(content: Sequence[ContentBlock]) -> Shape:
    """The wire form a list content takes unless extras say otherwise.

    Reasoning and the ``refusal`` field travel outside ``content``: with them, no
    other block gives ``null`` and one plain text block a string; otherwise a
    list stays a list.
    """
    side = False
    field_refusal = False
    parts: list[ContentBlock] = []
    for block in content:
        if isinstance(block, ReasoningBlock):
            side = True
        elif isinstance(block, RefusalBlock) and not field_refusal and _as_field(block):
            side = field_refusal = True
        else:
            parts.append(block)
    if not side:
        return "list"
    if not parts:
        return "null"
    only = parts[0]
    if (
        len(parts) == 1
        and isinstance(only, TextBlock)
        and only.cache_control is None
        and not extras_of(only, NAME)
    ):
        return "string"
    return "list"


def _cache_breakpoint(cache: CacheControl) -> dict[str, Any]:
    breakpoint: dict[str, Any] = {"mode": "explicit"}
    ttl = cache.ttl
    if ttl is not None:
        if ttl in _CACHE_TTLS:
            breakpoint["ttl"] = ttl
        else:  # the API's ttl is a minimum lifetime: round up
            seconds = int(ttl[:-1]) * _TTL_SECONDS[ttl[-1]]
            breakpoint["ttl"] = "30m" if seconds <= 1800 else "12h"
    return breakpoint


def _image_part(block: ImageBlock) -> dict[str, Any] | None:
    if block.url is not None:
        url = block.url
    elif block.base64 is not None and block.mime_type is not None:
        url = data_url(block.mime_type, block.base64)
    else:
        return None
    image_url: dict[str, Any] = {"url": url}
    if block.detail is not None:
        image_url["detail"] = block.detail
    return {"type": "image_url", "image_url": image_url}


def _audio_part(block: AudioBlock) -> dict[str, Any] | None:
    if block.base64 is None or block.mime_type is None:
        return None
    mime = block.mime_type.split(";", 1)[0].strip().lower()
    audio_format = _AUDIO_FORMAT.get(mime)
    if audio_format is None:
        recorded = extras_of(block, NAME).get("input_audio")
        if isinstance(recorded, dict) and isinstance(recorded.get("format"), str):
            audio_format = recorded["format"]
        else:
            return None
    return {"type": "input_audio", "input_audio": {"data": block.base64, "format": audio_format}}


def _file_part(block: FileBlock) -> dict[str, Any] | None:
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


def _custom_input(call: ToolCall) -> str | None:
    """The free-form input of a custom tool call, None if arguments are not ``{"input": str}``."""
    value = call.arguments.get("input")
    if len(call.arguments) == 1 and isinstance(value, str):
        return value
    return None


def _is_custom(model: Any) -> bool:
    return extras_of(model, NAME).get("type") == "custom"


def _encode_tool_call(call: ToolCall, index: int) -> dict[str, Any]:
    extras = extras_of(call, NAME)
    wire: dict[str, Any]
    if extras.get("type") == "custom":
        text = _custom_input(call)
        if text is None:
            _fail(f'custom tool call {call.id!r} needs arguments {{"input": <string>}}', index)
        wire = {"id": call.id, "type": "custom", "custom": {"name": call.name, "input": text}}
    else:
        wire = {
            "id": call.id,
            "type": "function",
            "function": {"name": call.name, "arguments": arguments_text(call, NAME, extras)},
        }
        if extras.get("no_type") is True:
            del wire["type"]
    if extras:
        _merge(wire, extras, _CALL_MARKERS)
    return wire


def _encode_invalid_call(call: InvalidToolCall) -> dict[str, Any]:
    extras = extras_of(call, NAME)
    wire: dict[str, Any] = {
        "id": call.id,
        "type": "function",
        "function": {"name": call.name or "", "arguments": call.arguments or ""},
    }
    if extras.get("no_type") is True:
        del wire["type"]
    _merge(wire, extras, _CALL_MARKERS)
    return wire


def _invalid_call_as_text(call: InvalidToolCall) -> str:
    return (
        f'<tool_call id="{call.id or ""}" name="{call.name or ""}">'
        f"{call.arguments or ''}</tool_call>"
    )


def _encode_tool(tool: ToolDefinition) -> dict[str, Any]:
    extras = extras_of(tool, NAME)
    wire: dict[str, Any]
    if _is_custom(tool):
        custom: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            custom["description"] = tool.description
        if "format" in extras:
            custom["format"] = copy.deepcopy(extras["format"])
        _merge(custom, extras, _TOOL_MARKERS)
        wire = {"type": "custom", "custom": custom}
    else:
        function: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            function["description"] = tool.description
        if not (extras.get("no_parameters") is True and tool.parameters == {}):
            function["parameters"] = copy.deepcopy(tool.parameters)
        if tool.strict is not None:
            function["strict"] = tool.strict
        _merge(function, extras, _TOOL_MARKERS)
        wire = {"type": "function", "function": function}
    fields = extras.get("tool_fields")
    if isinstance(fields, Mapping):
        _merge(wire, fields, frozenset())
    return wire


def _encode_tool_choice(choice: ToolChoice, tools: Sequence[ToolDefinition]) -> dict[str, Any]:
    if isinstance(choice, NoneToolChoice):
        return {"tool_choice": "none"}
    if isinstance(choice, AutoToolChoice):
        # "auto" is the API's default when tools are given: with `parallel`, the
        # flag alone says it (the common request shape).
        if choice.parallel is not None:
            return {"parallel_tool_calls": choice.parallel}
        return {"tool_choice": "auto"}
    if isinstance(choice, RequiredToolChoice):
        result: dict[str, Any] = {"tool_choice": "required"}
        if choice.parallel is not None:
            result["parallel_tool_calls"] = choice.parallel
        return result
    kind = (
        "custom"
        if any(tool.name == choice.name and _is_custom(tool) for tool in tools)
        else "function"
    )
    result = {"tool_choice": {"type": kind, kind: {"name": choice.name}}}
    if choice.parallel is not None:
        result["parallel_tool_calls"] = choice.parallel
    return result


# ============================================================================ check


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every structural problem that would make Chat Completions reject the messages.

    With native tools: every tool call (invalid ones included, since they are sent
    back) answered by one ``tool`` message right after its assistant message, no
    orphan or duplicate results, custom tool calls with ``{"input": <string>}``
    arguments, tool names matching ``^[a-zA-Z0-9_-]{1,64}$``, no ``tool_choice``
    (other than none) without tools. Always: message
    ``name`` matching ``^[a-zA-Z0-9_-]+$``; images when ``vision`` is off and the
    policy is ``unsupported="error"``.

    Args:
        messages: anything :func:`encode` accepts.
        **options: the options :func:`encode` would get.
    """
    return _problems(to_conversation(messages), Options.resolve(NAME, options))


def _problems(conversation: Conversation, opts: Options) -> list[Problem]:
    problems: list[Problem] = []
    messages = conversation.messages
    if opts.native_tools:
        problems.extend(foreign_tool_problems(conversation.tools, opts))
        problems.extend(_pairing_problems(messages))
        for position, tool in enumerate(conversation.tools or []):
            if not is_foreign_tool(tool, NAME) and not _valid_tool_name(tool.name):
                problems.append(
                    Problem(
                        f"/tools/{position}/name",
                        "pattern",
                        f"tool name {tool.name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$",
                    )
                )
        choice = conversation.tool_choice
        if choice is not None and not isinstance(choice, NoneToolChoice) and not conversation.tools:
            problems.append(
                Problem(
                    "/tool_choice",
                    "tools_required",
                    f"tool_choice {choice.type!r} without tools (the API only takes it with tools)",
                )
            )
    vision_errors = not opts.vision and opts.unsupported == "error"
    for index, message in enumerate(messages):
        if (
            message.name is not None
            and not isinstance(message, ToolMessage)
            and not _NAME_PATTERN.fullmatch(message.name)
        ):
            problems.append(
                Problem(
                    pointer(index, "name"),
                    "pattern",
                    f"message name {message.name!r} must match ^[a-zA-Z0-9_-]+$",
                )
            )
        if isinstance(message, AssistantMessage) and opts.native_tools:
            for position, call in enumerate(message.tool_calls):
                if not _valid_tool_name(call.name):
                    problems.append(
                        Problem(
                            pointer(index, "tool_calls", position, "name"),
                            "pattern",
                            f"tool name {call.name!r} must match ^[a-zA-Z0-9_-]{{1,64}}$",
                        )
                    )
                if _is_custom(call) and _custom_input(call) is None:
                    problems.append(
                        Problem(
                            pointer(index, "tool_calls", position, "arguments"),
                            "custom_tool_input",
                            'a custom tool call needs arguments {"input": <string>}',
                        )
                    )
        if vision_errors and not isinstance(message.content, str):
            for position, block in enumerate(message.content):
                if isinstance(block, ImageBlock):
                    problems.append(
                        Problem(
                            pointer(index, "content", position),
                            "unsupported_content",
                            "an image, but vision is off (options: vision=True, "
                            "unsupported='drop' or 'placeholder')",
                        )
                    )
    return problems


def _valid_tool_name(name: str) -> bool:
    return len(name) <= _TOOL_NAME_MAX and _NAME_PATTERN.fullmatch(name) is not None


def _a(word: str) -> str:
    """``word`` with its indefinite article (``an assistant``, ``a system``)."""
    return f"an {word}" if word[:1] in "aeiou" else f"a {word}"


def _pairing_problems(messages: Sequence[Message]) -> list[Problem]:
    """Tool calls and results that do not pair up, Chat Completions' way.

    Results right after their call, and invalid tool calls counted as calls: they
    are sent back as tool calls and need answers too.
    """
    return tool_pairing_problems(messages, adjacent=True, provider=NAME, include_invalid=True)


# ============================================================================ decode


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """Decode Chat Completions request data into a Conversation.

    Args:
        payload: what :func:`encode` returns (a full request body is fine: other
            parameters such as ``model`` are not part of a conversation and are
            ignored), a bare list of messages, one message, their JSON text, or
            official SDK objects (``ChatCompletionMessage`` ...).

    Raises:
        ConversionError: for data that is not Chat Completions messages, naming
            the message and part.
    """
    data = _json(payload)
    if isinstance(data, dict) and "messages" in data:
        raw_messages = data["messages"]
        if isinstance(raw_messages, BaseModel) or not isinstance(raw_messages, (list, tuple)):
            _fail(f"messages must be a list, not {_describe(raw_messages)}")
    elif isinstance(data, dict) and "role" in data:
        raw_messages = [data]
        data = {}
    elif isinstance(data, dict) and "choices" in data:
        _fail("this is a ChatCompletion response: use decode_response")
    elif isinstance(data, (list, tuple)):
        raw_messages = data
        data = {}
    else:
        _fail(f"expected {{'messages': [...]}} or a list of messages, not {_describe(data)}")
    messages = [_decode_message(raw, index) for index, raw in enumerate(raw_messages)]
    fields: dict[str, Any] = {"messages": messages}
    if "tools" in data and data["tools"] is not None:
        tools = data["tools"]
        if not isinstance(tools, (list, tuple)):
            _fail(f"tools must be a list, not {_describe(tools)}")
        fields["tools"] = [_decode_tool(tool, position) for position, tool in enumerate(tools)]
    choice = _decode_tool_choice(data.get("tool_choice"), data.get("parallel_tool_calls"))
    if choice is not None:
        fields["tool_choice"] = choice
    return _build(Conversation, fields, None)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of :func:`decode_conversation` (same input, same errors)."""
    return decode_conversation(payload).messages


def _decode_message(raw: Any, index: int) -> Message:
    if isinstance(raw, BaseModel) and getattr(raw, "role", None) == "assistant":
        # an SDK response message put in a history (``ChatCompletionMessage``)
        metadata: dict[str, Any] = {}
        wire = _response_message(_object(raw, "a message", index), metadata)
        fields = _assistant_fields(wire, index)
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        return _build(AssistantMessage, fields, index)
    data = _object(raw, "a message", index)
    role = data.get("role")
    if role in ("system", "developer"):
        return _decode_instructions(data, index)
    if role == "user":
        return _decode_user(data, index)
    if role == "assistant":
        return _build(AssistantMessage, _assistant_fields(data, index), index)
    if role == "tool":
        return _decode_tool_message(data, index)
    if role == "function":
        _fail(
            "role 'function' (deprecated in favour of tool messages) has no neutral "
            "equivalent; send tool messages",
            index,
        )
    _fail(f"unknown role {role!r}", index)


def _name_field(data: Mapping[str, Any], fields: dict[str, Any]) -> bool:
    name = data.get("name")
    if isinstance(name, str) and name:
        fields["name"] = name
        return True
    return False


def _decode_content(data: Mapping[str, Any], index: int) -> str | list[ContentBlock]:
    if "content" not in data:
        _fail("content is required", index)
    content = data["content"]
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return [_decode_part(part, index, position) for position, part in enumerate(content)]
    _fail(f"content must be a string or a list of parts, not {_describe(content)}", index)


def _decode_instructions(data: dict[str, Any], index: int) -> SystemMessage:
    fields: dict[str, Any] = {"content": _decode_content(data, index)}
    known = ["role", "content"]
    if _name_field(data, fields):
        known.append("name")
    extras = _leftover(data, known)
    if data["role"] == "developer":
        extras["role"] = "developer"
    return _build(SystemMessage, _with_extras(fields, extras), index)


def _decode_user(data: dict[str, Any], index: int) -> UserMessage:
    fields: dict[str, Any] = {"content": _decode_content(data, index)}
    known = ["role", "content"]
    if _name_field(data, fields):
        known.append("name")
    return _build(UserMessage, _with_extras(fields, _leftover(data, known)), index)


def _decode_tool_message(data: dict[str, Any], index: int) -> ToolMessage:
    call_id = _string(data.get("tool_call_id"), "tool_call_id", index)
    if not call_id:
        _fail("tool_call_id is empty", index)
    fields: dict[str, Any] = {"tool_call_id": call_id, "content": _decode_content(data, index)}
    known = ["role", "content", "tool_call_id"]
    extras: dict[str, Any] = {}
    if _name_field(data, fields):  # not in the SDK type; some clients send it
        known.append("name")
        extras["send_name"] = True
    extras.update(_leftover(data, known))
    return _build(ToolMessage, _with_extras(fields, extras), index)


def _assistant_fields(
    data: dict[str, Any], index: int, *, positions: bool = False
) -> dict[str, Any]:
    """The AssistantMessage fields of a wire assistant message.

    ``positions``: give every tool call its position in ``tool_calls`` as ``index``
    (replies do, as streamed tool calls are keyed by it; histories only with invalid
    calls, to keep the order of both kinds).
    """
    fields: dict[str, Any] = {}
    known = ["role", "content"]
    if _name_field(data, fields):
        known.append("name")
    blocks: list[ContentBlock] = []
    for field in ("reasoning_content", "reasoning"):
        text = data.get(field)
        if isinstance(text, str):
            reasoning: dict[str, Any] = {"text": text, "provider": NAME}
            if field == "reasoning":
                reasoning["extras"] = {NAME: {"field": "reasoning"}}
            blocks.append(ReasoningBlock(**reasoning))
            known.append(field)
            break
    content = data.get("content", _ABSENT)
    shape: Shape
    annotations = data.get("annotations")
    has_annotations = isinstance(annotations, list) and bool(annotations)
    if has_annotations and isinstance(content, str):
        known.append("annotations")
    if content is _ABSENT:
        shape = "absent"
    elif content is None:
        shape = "null"
    elif isinstance(content, str):
        shape = "string"
        text_fields: dict[str, Any] = {"text": content}
        if has_annotations:
            text_fields["annotations"] = [
                _decode_annotation(item, index) for item in cast(list[Any], annotations)
            ]
        blocks.append(_build(TextBlock, text_fields, index, 0))
    elif isinstance(content, list):
        shape = "list"
        blocks.extend(_decode_part(part, index, position) for position, part in enumerate(content))
    else:
        _fail(f"content must be a string, a list of parts or null, not {_describe(content)}", index)
    refusal = data.get("refusal")
    if isinstance(refusal, str):
        known.append("refusal")
        blocks.append(RefusalBlock(text=refusal, extras={NAME: {"as_field": True}}))
    neutral: str | list[ContentBlock] | None
    if shape == "string" and len(blocks) == 1 and not has_annotations:
        neutral = cast(str, content)
        default: Shape = "string"
    elif shape in ("absent", "null") and not blocks:
        neutral = None
        default = "null"
    else:
        neutral = blocks
        default = _default_shape(blocks)
    if neutral is not None:
        fields["content"] = neutral
    calls = data.get("tool_calls")
    if isinstance(calls, list) and calls:
        known.append("tool_calls")
        valid, invalid = _decode_tool_calls(calls, index, positions=positions)
        if valid:
            fields["tool_calls"] = valid
        if invalid:
            fields["invalid_tool_calls"] = invalid
    extras = _leftover(data, known)
    if shape != default:
        extras["content_shape"] = shape
    return _with_extras(fields, extras)


def _decode_annotation(raw: Any, index: int) -> Citation | NonStandardAnnotation:
    data = _object(raw, "an annotation", index, 0)
    citation = data.get("url_citation")
    if data.get("type") == "url_citation" and isinstance(citation, dict):
        fields: dict[str, Any] = {}
        known = []
        for key in ("url", "title", "start_index", "end_index"):
            if key in citation and citation[key] is not None:
                fields[key] = citation[key]
                known.append(key)
        extras = _leftover(citation, known)
        outer = _leftover(data, ["type", "url_citation"])
        if outer:
            extras["annotation"] = outer
        try:
            return Citation(**_with_extras(fields, extras))
        except pydantic.ValidationError:
            pass  # not the shape the neutral citation takes: kept as it came
    return NonStandardAnnotation(value=copy.deepcopy(data))


def _decode_tool_calls(
    calls: list[Any], index: int, *, positions: bool = False
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    decoded = [_tool_call_fields(call, index, position) for position, call in enumerate(calls)]
    # With invalid calls, `index` keeps the order of both kinds in the one wire array.
    with_index = positions or any(not valid for valid, _ in decoded)
    valid_calls: list[ToolCall] = []
    invalid_calls: list[InvalidToolCall] = []
    for position, (valid, fields) in enumerate(decoded):
        if with_index:
            fields["index"] = position
        if valid:
            valid_calls.append(_build(ToolCall, fields, index))
        else:
            invalid_calls.append(_build(InvalidToolCall, fields, index))
    return valid_calls, invalid_calls


def _tool_call_fields(raw: Any, index: int, position: int) -> tuple[bool, dict[str, Any]]:
    """``(is_valid, fields)`` of a ToolCall or an InvalidToolCall."""
    data = _object(raw, f"tool call {position}", index)
    call_id = data.get("id")
    if not isinstance(call_id, str) or not call_id:
        _fail(f"tool call {position} has no id", index)
    kind = data.get("type", _ABSENT)
    extras: dict[str, Any] = {}
    if kind == "custom":
        custom = _object(data.get("custom"), f"tool call {position} custom", index)
        name = _string(custom.get("name"), f"tool call {position} name", index)
        text = _string(custom.get("input"), f"tool call {position} input", index)
        extras["type"] = "custom"
        extras.update(_leftover(data, ["id", "type", "custom"]))
        inner = _leftover(custom, ["name", "input"])
        if inner:
            extras["custom"] = inner
        fields = {"id": call_id, "name": name, "arguments": {"input": text}}
        return bool(name), _with_extras(fields, extras)
    if kind is _ABSENT:
        extras["no_type"] = True
    elif kind != "function":
        _fail(f"tool call {position} has unknown type {kind!r}", index)
    function = _object(data.get("function"), f"tool call {position} function", index)
    name = _string(function.get("name"), f"tool call {position} name", index)
    raw_arguments = _string(function.get("arguments"), f"tool call {position} arguments", index)
    extras.update(_leftover(data, ["id", "type", "function"]))
    inner = _leftover(function, ["name", "arguments"])
    if inner:
        extras["function"] = inner
    arguments, error = parse_arguments(raw_arguments)
    if arguments is not None and name:
        if raw_arguments != json.dumps(arguments, ensure_ascii=False):
            extras["arguments"] = raw_arguments
        return True, _with_extras({"id": call_id, "name": name, "arguments": arguments}, extras)
    invalid: dict[str, Any] = {
        "id": call_id,
        "name": name,
        "arguments": raw_arguments,
        "error": error or "the tool call has no name",
    }
    return False, _with_extras(invalid, extras)


# ------------------------------------------------------------------------ parts


def _cache_fields(part: Mapping[str, Any], fields: dict[str, Any], extras: dict[str, Any]) -> None:
    """``prompt_cache_breakpoint`` -> ``cache_control`` when neutral can say it, else extras."""
    if "prompt_cache_breakpoint" not in part:
        return
    value = part["prompt_cache_breakpoint"]
    if (
        isinstance(value, dict)
        and value.get("mode") == "explicit"
        and set(value) <= {"mode", "ttl"}
        and isinstance(ttl := value.get("ttl", "30m"), str)
        and ttl in _CACHE_TTLS
    ):
        cache: dict[str, Any] = {"type": "ephemeral"}
        if "ttl" in value:
            cache["ttl"] = value["ttl"]
        fields["cache_control"] = CacheControl(**cache)
    else:
        extras["prompt_cache_breakpoint"] = copy.deepcopy(value)


def _part_fields(
    part: Mapping[str, Any], known: Sequence[str], inner_key: str | None, inner_known: Sequence[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fields and extras common to every part: cache marker and unknown keys."""
    fields: dict[str, Any] = {}
    extras = _leftover(part, [*known, "prompt_cache_breakpoint"])
    _cache_fields(part, fields, extras)
    if inner_key is not None:
        inner = _leftover(part[inner_key], inner_known)
        if inner:
            extras[inner_key] = inner
    return fields, extras


def _decode_part(raw: Any, index: int, position: int) -> ContentBlock:
    part = _object(raw, "a content part", index, position)
    kind = part.get("type")
    decoder = _PART_DECODERS.get(kind) if isinstance(kind, str) else None
    if decoder is None:
        return NonStandardBlock(value=copy.deepcopy(part), extras={NAME: {"part": True}})
    return decoder(part, index, position)


def _decode_text(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    text = _string(part.get("text"), "text", index, position)
    fields, extras = _part_fields(part, ["type", "text"], None, ())
    fields["text"] = text
    return _build(TextBlock, _with_extras(fields, extras), index, position)


def _decode_refusal(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    text = _string(part.get("refusal"), "refusal", index, position)
    fields, extras = _part_fields(part, ["type", "refusal"], None, ())
    fields.pop("cache_control", None)
    fields["text"] = text
    return _build(RefusalBlock, _with_extras(fields, extras), index, position)


def _decode_image(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    image = _object(part.get("image_url"), "image_url", index, position)
    url = _string(image.get("url"), "image_url.url", index, position)
    known_inner = ["url"]
    fields, extras = _part_fields(part, ["type", "image_url"], None, ())
    detail = image.get("detail")
    if detail in ("auto", "low", "high", "original"):
        fields["detail"] = detail
        known_inner.append("detail")
    inner = _leftover(image, known_inner)
    if inner:
        extras["image_url"] = inner
    inline = parse_data_url(url)
    if inline is not None:
        try:
            return ImageBlock(
                **_with_extras({**fields, "mime_type": inline[0], "base64": inline[1]}, extras)
            )
        except pydantic.ValidationError:
            pass  # an odd media type: the URL is kept as given
    fields["url"] = url
    return _build(ImageBlock, _with_extras(fields, extras), index, position)


def _decode_audio(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    audio = _object(part.get("input_audio"), "input_audio", index, position)
    data = _string(audio.get("data"), "input_audio.data", index, position)
    audio_format = _string(audio.get("format"), "input_audio.format", index, position)
    fields, extras = _part_fields(part, ["type", "input_audio"], "input_audio", ["data", "format"])
    mime = _AUDIO_MIME.get(audio_format)
    if mime is None:
        mime = f"audio/{audio_format}"
        extras.setdefault("input_audio", {})["format"] = audio_format
    fields.update(base64=data, mime_type=mime)
    return _build(AudioBlock, _with_extras(fields, extras), index, position)


def _decode_file(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    file = _object(part.get("file"), "file", index, position)
    file_data = file.get("file_data")
    file_id = file.get("file_id")
    filename = file.get("filename")
    if not isinstance(file_data, str) and not isinstance(file_id, str):
        return NonStandardBlock(value=copy.deepcopy(part), extras={NAME: {"part": True}})
    known = [key for key in ("file_data", "file_id", "filename") if isinstance(file.get(key), str)]
    fields, extras = _part_fields(part, ["type", "file"], "file", known)
    if isinstance(filename, str):
        fields["filename"] = filename
    if isinstance(file_id, str):
        fields["file_id"] = file_id
    if isinstance(file_data, str):
        inline = parse_data_url(file_data)
        if inline is not None:
            fields.update(mime_type=inline[0], base64=inline[1])
        else:  # bare base64: the media type is a guess, the data goes back bare
            guessed = mimetypes.guess_type(filename)[0] if isinstance(filename, str) else None
            fields.update(mime_type=guessed or "application/octet-stream", base64=file_data)
            extras["bare_base64"] = True
    return _build(FileBlock, _with_extras(fields, extras), index, position)


_PART_DECODERS: Final[dict[str, Callable[[dict[str, Any], int, int], ContentBlock]]] = {
    "text": _decode_text,
    "refusal": _decode_refusal,
    "image_url": _decode_image,
    "input_audio": _decode_audio,
    "file": _decode_file,
}


# ------------------------------------------------------------------------ tools


def _decode_tool(raw: Any, position: int) -> ToolDefinition:
    data = _object(raw, f"tool {position}", None)
    kind = data.get("type")
    extras: dict[str, Any] = {}
    fields: dict[str, Any]
    if kind == "function":
        function = _object(data.get("function"), f"tool {position} function", None)
        name = _string(function.get("name"), f"tool {position} name", None)
        fields = {"name": name}
        known = ["name"]
        if isinstance(function.get("description"), str):
            fields["description"] = function["description"]
            known.append("description")
        if "parameters" in function and isinstance(function["parameters"], dict):
            fields["parameters"] = copy.deepcopy(function["parameters"])
            known.append("parameters")
        elif function.get("parameters") is None:  # absent or null: no parameters
            fields["parameters"] = {}
            extras["no_parameters"] = True
        if isinstance(function.get("strict"), bool):
            fields["strict"] = function["strict"]
            known.append("strict")
        extras.update(_leftover(function, known))
    elif kind == "custom":
        custom = _object(data.get("custom"), f"tool {position} custom", None)
        name = _string(custom.get("name"), f"tool {position} name", None)
        fields = {"name": name, "parameters": copy.deepcopy(CUSTOM_TOOL_PARAMETERS)}
        known = ["name"]
        if isinstance(custom.get("description"), str):
            fields["description"] = custom["description"]
            known.append("description")
        extras["type"] = "custom"
        extras.update(_leftover(custom, known))
    else:
        _fail(f"tool {position} has unknown type {kind!r}")
    outer = _leftover(data, ["type", kind])
    if outer:
        extras["tool_fields"] = outer
    return _build(ToolDefinition, _with_extras(fields, extras), None)


def _decode_tool_choice(raw: Any, parallel: Any) -> ToolChoice | None:
    if parallel is not None and not isinstance(parallel, bool):
        _fail(f"parallel_tool_calls must be true or false, not {_describe(parallel)}")
    if raw is None:
        return None if parallel is None else AutoToolChoice(parallel=parallel)
    if raw in ("auto", "required"):
        cls = AutoToolChoice if raw == "auto" else RequiredToolChoice
        return cls(parallel=parallel) if parallel is not None else cls()
    choice: ToolChoice
    if raw == "none":
        choice = NoneToolChoice()
    elif isinstance(raw, dict) and raw.get("type") in ("function", "custom"):
        inner = raw.get(raw["type"])
        name = inner.get("name") if isinstance(inner, dict) else None
        if not isinstance(name, str) or not name:
            _fail(f"tool_choice names no tool: {raw!r}")
        named = NamedToolChoice(name=name)
        return named if parallel is None else NamedToolChoice(name=name, parallel=parallel)
    elif isinstance(raw, dict) and raw.get("type") == "allowed_tools":
        _fail("tool_choice 'allowed_tools' has no neutral equivalent")
    else:
        _fail(f"unknown tool_choice {raw!r}")
    if parallel is not None:
        _fail(
            "parallel_tool_calls with tool_choice 'none' has no neutral equivalent "
            "(no tool may be called)"
        )
    return choice


# ============================================================================ response


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """Decode a ``ChatCompletion`` (REST JSON or the SDK object) into an AssistantMessage.

    Choice 0 is the message; with ``n > 1`` the other choices are kept, as they
    came, in ``response_metadata["openai_chat"]["choices"]``. Annotations become
    citations on the text; ``audio`` leaves its id in the message extras (what the
    API wants back) and the whole object in the response metadata, with
    ``created``, ``system_fingerprint``, ``service_tier``, ``logprobs`` and any
    other field. Tool calls carry their position in ``tool_calls`` as ``index``
    (the key :func:`decode_stream` merges their fragments by). Appended to a
    history, the message encodes to exactly the assistant message the API expects
    back.

    Raises:
        ConversionError: for data that is not a ChatCompletion.
    """
    data = _json(payload)
    if not isinstance(data, dict):
        _fail(f"a ChatCompletion must be an object, not {_describe(data)}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        _fail("a ChatCompletion needs a non-empty list of choices")
    choice = _object(choices[0], "choice 0", 0)
    message = _object(choice.get("message"), "choice 0 message", 0)
    if message.get("role", "assistant") != "assistant":
        _fail(f"choice 0 message has role {message.get('role')!r}", 0)
    metadata: dict[str, Any] = {}
    wire = _response_message(message, metadata)
    fields = _assistant_fields(wire, 0, positions=True)
    fields["provider"] = NAME
    for key, target in (("model", "model"), ("id", "response_id")):
        value = data.get(key)
        if isinstance(value, str) and value:
            fields[target] = value
    reason = choice.get("finish_reason")
    if reason is not None:
        raw_reason = _string(reason, "finish_reason", 0)
        fields["raw_finish_reason"] = raw_reason
        fields["finish_reason"] = _FINISH_REASONS.get(raw_reason, "other")
    usage = data.get("usage")
    if usage is not None:
        fields["usage"], unknown = _decode_usage(usage)
        if unknown:
            metadata["usage"] = unknown
    for key, value in data.items():
        if key not in ("id", "model", "object", "choices", "usage") and value is not None:
            metadata[key] = copy.deepcopy(value)
    for key, value in choice.items():
        if key not in ("index", "message", "finish_reason") and value is not None:
            metadata[key] = copy.deepcopy(value)
    if choice.get("index", 0) != 0:
        metadata["index"] = choice["index"]
    if len(choices) > 1:
        metadata["choices"] = copy.deepcopy(choices[1:])
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return _build(AssistantMessage, fields, 0)


def _response_message(message: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """A response message in the shape of the assistant message the API wants back.

    A response's nulls and empty lists mean "nothing" (``content: null`` stays:
    it is what goes back with tool calls); ``audio`` keeps its id, the whole object
    goes to ``metadata``.
    """
    wire = {key: value for key, value in message.items() if value is not None}
    wire["role"] = "assistant"
    wire.setdefault("content", None)
    for key in ("tool_calls", "annotations"):
        if wire.get(key) == []:
            del wire[key]
    audio = wire.get("audio")
    if isinstance(audio, dict) and isinstance(audio.get("id"), str):
        metadata["audio"] = copy.deepcopy(audio)
        wire["audio"] = {"id": audio["id"]}
    return wire


_INPUT_DETAILS: Final = {
    "cached_tokens": "cache_read",
    "cache_write_tokens": "cache_creation",
    "audio_tokens": "audio",
    "image_tokens": "image",
    "text_tokens": "text",
}
_OUTPUT_DETAILS: Final = {
    "reasoning_tokens": "reasoning",
    "audio_tokens": "audio",
    "accepted_prediction_tokens": "accepted_prediction",
    "rejected_prediction_tokens": "rejected_prediction",
    "text_tokens": "text",
}


def _count(value: Any, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        _fail(f"usage {what} must be a non-negative integer, not {value!r}")
    return value


def _details(
    raw: Any, names: Mapping[str, str], what: str
) -> tuple[dict[str, int], dict[str, Any]]:
    if raw is None:
        return {}, {}
    data = _object(raw, f"usage {what}", None)
    counts: dict[str, int] = {}
    unknown: dict[str, Any] = {}
    for key, value in data.items():
        if value is None:
            continue
        if key in names:
            counts[names[key]] = _count(value, f"{what}.{key}")
        elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            counts[key] = value
        else:
            unknown[key] = copy.deepcopy(value)
    return counts, unknown


def _decode_usage(raw: Any) -> tuple[Usage, dict[str, Any]]:
    """Usage in neutral terms, and the provider's fields it has no place for."""
    data = _object(raw, "usage", None)
    prompt = _count(data.get("prompt_tokens"), "prompt_tokens")
    completion = _count(data.get("completion_tokens"), "completion_tokens")
    total = data.get("total_tokens")
    fields: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": completion,
        "total_tokens": prompt + completion if total is None else _count(total, "total_tokens"),
    }
    unknown: dict[str, Any] = {}
    inputs, more = _details(
        data.get("prompt_tokens_details"), _INPUT_DETAILS, "prompt_tokens_details"
    )
    if more:
        unknown["prompt_tokens_details"] = more
    outputs, more = _details(
        data.get("completion_tokens_details"), _OUTPUT_DETAILS, "completion_tokens_details"
    )
    if more:
        unknown["completion_tokens_details"] = more
    hits = data.get("prompt_cache_hit_tokens")  # DeepSeek's name for cache reads
    if "cache_read" not in inputs and isinstance(hits, int) and not isinstance(hits, bool):
        inputs["cache_read"] = _count(hits, "prompt_cache_hit_tokens")
    known = {"prompt_tokens", "completion_tokens", "total_tokens"}
    known |= {"prompt_tokens_details", "completion_tokens_details"}
    for key, value in data.items():
        if key not in known and value is not None:
            unknown[key] = copy.deepcopy(value)
    try:
        if inputs:
            fields["input_token_details"] = InputTokenDetails(**inputs)
        if outputs:
            fields["output_token_details"] = OutputTokenDetails(**outputs)
    except pydantic.ValidationError as error:
        _fail(f"usage details: {error.errors()[0]['msg']}")
    return _build(Usage, fields, None), unknown


# ============================================================================ stream

# Block slots of a streamed reply (the order the fields take in decode_response).
_REASONING_SLOT: Final = 0
_TEXT_SLOT: Final = 1
_REFUSAL_SLOT: Final = 2
# Stream-only keys: not part of the complete response.
_CHUNK_KEYS: Final = frozenset({"id", "model", "object", "choices", "usage", "obfuscation"})
_CHOICE_KEYS: Final = frozenset({"index", "delta", "finish_reason", "logprobs"})
_DELTA_KEYS: Final = frozenset(
    {"role", "content", "refusal", "tool_calls", "annotations", "audio", "name"}
)
_CALL_KEYS: Final = frozenset({"index", "id", "type", "function", "custom"})


def decode_stream(events: Iterable[Any]) -> Iterator[AssistantMessageChunk]:
    """Decode a streamed ``ChatCompletion`` into ``AssistantMessageChunk`` objects, lazily.

    ``events`` are the ``chat.completion.chunk`` objects as parsed JSON, the SDK's
    ``ChatCompletionChunk`` objects, or the raw SSE body (``bytes`` or ``str`` pieces
    cut anywhere; ``data: [DONE]`` ends it). One chunk is yielded per event that says
    something, as it arrives; assembled (``ChunkAccumulator``, ``merge_chunks`` or
    ``+``), they make the message :func:`decode_response` makes of the complete
    response:

    - text: string content while the reply is plain text; once reasoning
      (``reasoning_content`` / ``reasoning``) or a refusal comes first, blocks with
      ``index`` 0 (reasoning), 1 (text), 2 (refusal);
    - tool calls: ``ToolCallChunk`` fragments keyed by their position in ``tool_calls``
      (a server that reuses an ``index`` for a call with another ``id``, or leaves
      ``index`` out, gets the next position), raw argument text as it comes;
    - ``usage`` with ``usage_mode="cumulative"`` (totals, whether they come once in
      the ``stream_options.include_usage`` chunk or on every chunk, as vLLM can);
    - the final chunk brings what is only whole at the end: the exact argument text
      (``extras.arguments``), the other choices of ``n > 1`` in
      ``response_metadata["openai_chat"]["choices"]``, the logprobs, the audio
      object, the message's unknown fields, ``extras.content_shape``. It has
      ``chunk_position="last"`` when the first choice finished (``finish_reason``);
      a stream cut off before that gets it without the marker.

    Known limits (the accumulator merges blocks by index, and a string run has
    none): annotations that come after text that streamed as a string arrive as an
    empty text block of their own, and reasoning that starts after the text is
    placed after it.

    Raises:
        ConversionError: for an ``error`` event (naming its message) and for
            malformed events; unknown event types (no ``choices``) are skipped.
    """
    stream = _Stream()
    for event in sse_events(events, provider=NAME):
        yield from stream.event(event)
    yield from stream.close()


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
        for key, value in delta.items():
            current = self.values.get(key, _ABSENT)
            if key in ("index", "type") and value is not None:
                current = _ABSENT
            self.values[key] = _accumulate(current, value)

    def build(self) -> dict[str, Any]:
        return {key: _built(value) for key, value in self.values.items()}


class _Items:
    """A streamed list: entries with an integer ``index`` merged by it."""

    __slots__ = ("by_index", "items")

    def __init__(self) -> None:
        self.items: list[Any] = []
        self.by_index: dict[int, _Object] = {}

    def add(self, entries: list[Any]) -> None:
        for entry in entries:
            position = entry.get("index") if isinstance(entry, dict) else None
            if isinstance(position, int) and not isinstance(position, bool):
                target = self.by_index.get(position)
                if target is None:
                    target = self.by_index[position] = _Object()
                    self.items.append(target)
                target.add(entry)
            else:
                self.items.append(_accumulate(_ABSENT, entry))


def _accumulate(current: Any, value: Any) -> Any:
    if value is None:
        return None if current is _ABSENT else current
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
    return copy.deepcopy(value)


def _built(value: Any) -> Any:
    if isinstance(value, _Parts):
        return "".join(value.parts)
    if isinstance(value, _Object):
        return value.build()
    if isinstance(value, _Items):
        return [_built(item) for item in value.items]
    return value


class _StreamCall:
    """One streamed tool call of the first choice."""

    __slots__ = ("custom", "extras_seen", "id", "name", "parts", "position", "typed")

    def __init__(self, position: int) -> None:
        self.position = position
        self.id: str | None = None
        self.name: str | None = None
        self.typed = False
        self.custom = False
        self.parts: list[str] = []  # argument fragments, for the exact text at the end
        self.extras_seen: set[str] = set()


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


class _Stream:
    """The state of one decode_stream: O(1) per event besides the streamed data."""

    def __init__(self) -> None:
        self.started = False  # a chunk was yielded (it carried `provider`)
        self.response_id: str | None = None
        self.model: str | None = None
        self.metadata: dict[str, Any] = {}  # last value emitted per metadata key
        self.primary: int | None = None  # wire index of the choice that is the message
        self.finished = False
        self.side: dict[int, _SideChoice] = {}
        # content of the first choice
        self.mode: Literal["string", "blocks"] | None = None
        self.text_seen = False  # a `content` string came (even "")
        self.text_block = False  # the text block exists (blocks mode)
        self.reasoning_field: str | None = None
        self.reasoning_block = False
        self.refusal_block = False
        self.annotations: list[Any] = []  # raw, held until text comes
        self.annotated = False
        self.name_sent = False
        self.audio = _Object()
        self.audio_id_sent = False
        self.logprobs = _Object()
        self.others = _Object()  # the message's other fields: extras at the end
        self.calls: list[_StreamCall] = []
        self.calls_by_wire: dict[int, _StreamCall] = {}
        self.calls_by_id: dict[str, _StreamCall] = {}

    # ------------------------------------------------------------------ events

    def event(self, raw: Any) -> list[AssistantMessageChunk]:
        if isinstance(raw, (str, bytes, bytearray)):  # one event as JSON text
            try:
                raw = json.loads(raw)
            except ValueError as bad:
                _fail(f"stream event is not JSON: {bad}")
            except RecursionError:
                _fail("stream event nested too deeply to read")
        data = _json(raw)
        if not isinstance(data, dict):
            _fail(f"a stream event must be an object, not {_describe(data)}")
        error = data.get("error")
        if error or data.get("object") == "error":
            _stream_error(error if error else data)
        if "choices" not in data and "usage" not in data:
            return []  # not a chunk (a ping, a proxy's own event): skipped
        out: dict[str, Any] = {}
        meta: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        blocks: list[ContentBlock] = []
        text: list[str] = []
        calls: list[ToolCallChunk] = []
        for key, target in (("id", "response_id"), ("model", "model")):
            value = data.get(key)
            if isinstance(value, str) and value and getattr(self, target) is None:
                setattr(self, target, value)
                out[target] = value
        for key, value in data.items():
            if key not in _CHUNK_KEYS:
                self.note(meta, key, value)
        choices = data.get("choices")
        if choices is not None:
            if not isinstance(choices, list):
                _fail(f"choices must be a list, not {_describe(choices)}")
            for position, choice in enumerate(choices):
                self.choice(choice, position, out, meta, extras, blocks, text, calls)
        usage = data.get("usage")
        if usage is not None:
            out["usage"], unknown = _decode_usage(usage)
            out["usage_mode"] = "cumulative"
            if unknown:
                meta["usage"] = unknown
        return self.chunk(out, meta, extras, blocks, text, calls)

    def note(self, meta: dict[str, Any], key: str, value: Any) -> None:
        """A metadata value, emitted when it changes (the last one wins)."""
        if value is not None and self.metadata.get(key, _ABSENT) != value:
            self.metadata[key] = value
            meta[key] = copy.deepcopy(value)

    def choice(
        self,
        raw: Any,
        position: int,
        out: dict[str, Any],
        meta: dict[str, Any],
        extras: dict[str, Any],
        blocks: list[ContentBlock],
        text: list[str],
        calls: list[ToolCallChunk],
    ) -> None:
        choice = _object(raw, f"choice {position}", None)
        index = choice.get("index", 0)
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            _fail(f"choice {position} index must be a non-negative integer, not {index!r}")
        delta = choice.get("delta")
        if delta is None:
            delta = {}
        delta = _object(delta, f"choice {index} delta", None)
        reason = choice.get("finish_reason")
        if reason is not None:
            reason = _string(reason, f"choice {index} finish_reason", None)
        if self.primary is None:
            self.primary = index
            if index != 0:
                self.note(meta, "index", index)
        if index != self.primary:
            self.side_choice(index, choice, delta, reason)
            return
        if reason is not None:
            self.finished = True
            out["raw_finish_reason"] = reason
            out["finish_reason"] = _FINISH_REASONS.get(reason, "other")
        if choice.get("logprobs") is not None:
            self.logprobs.add({"logprobs": choice["logprobs"]})
        for key, value in choice.items():
            if key not in _CHOICE_KEYS:
                self.note(meta, key, value)
        self.delta(delta, out, extras, blocks, text, calls)

    def side_choice(
        self, index: int, choice: dict[str, Any], delta: dict[str, Any], reason: Any
    ) -> None:
        side = self.side.get(index)
        if side is None:
            side = self.side[index] = _SideChoice(index)
        side.message.add(delta)
        if reason is not None:
            side.finish_reason = reason
        if choice.get("logprobs") is not None:
            side.logprobs.add({"logprobs": choice["logprobs"]})
        for key, value in choice.items():
            if key not in _CHOICE_KEYS and value is not None:
                _merge_value(side.fields, key, value)

    def delta(
        self,
        delta: dict[str, Any],
        out: dict[str, Any],
        extras: dict[str, Any],
        blocks: list[ContentBlock],
        text: list[str],
        calls: list[ToolCallChunk],
    ) -> None:
        role = delta.get("role")
        if role is not None and role != "assistant":
            _fail(f"choice {self.primary} delta has role {role!r}")
        name = delta.get("name")
        if isinstance(name, str) and name:
            if not self.name_sent:
                self.name_sent = True
                out["name"] = name
        elif name is not None:
            self.others.add({"name": name})
        if self.reasoning_field is None:
            for field in ("reasoning_content", "reasoning"):
                if isinstance(delta.get(field), str):
                    self.reasoning_field = field
                    break
        rest = {
            key: value
            for key, value in delta.items()
            if key not in _DELTA_KEYS and key != self.reasoning_field
        }
        if rest:
            self.others.add(rest)
        if self.reasoning_field is not None:
            reasoning = delta.get(self.reasoning_field)
            if isinstance(reasoning, str):
                self.add_reasoning(reasoning, blocks)
            elif reasoning is not None:
                self.others.add({self.reasoning_field: reasoning})
        content = delta.get("content")
        if content is not None:
            self.add_text(_string(content, f"choice {self.primary} content", None), blocks, text)
        refusal = delta.get("refusal")
        if isinstance(refusal, str):
            self.add_refusal(refusal, blocks)
        elif refusal is not None:
            self.others.add({"refusal": refusal})
        annotations = delta.get("annotations")
        if isinstance(annotations, list):
            self.annotations.extend(copy.deepcopy(annotations))
            if self.text_seen:
                self.flush_annotations(blocks)
        elif annotations is not None:
            self.others.add({"annotations": annotations})
        audio = delta.get("audio")
        if audio is not None:
            audio = _object(audio, f"choice {self.primary} audio", None)
            self.audio.add(audio)
            if not self.audio_id_sent and isinstance(audio.get("id"), str):
                self.audio_id_sent = True
                extras["audio"] = {"id": audio["id"]}
        tool_calls = delta.get("tool_calls")
        if tool_calls is not None:
            if not isinstance(tool_calls, list):
                _fail(f"tool_calls must be a list, not {_describe(tool_calls)}")
            for fragment in tool_calls:
                calls.append(self.tool_call(fragment))

    # ------------------------------------------------------------------ content

    def add_reasoning(self, text: str, blocks: list[ContentBlock]) -> None:
        if self.mode is None:
            self.mode = "blocks"
        if self.reasoning_block:
            if text:
                blocks.append(ReasoningBlock(text=text, index=_REASONING_SLOT))
            return
        self.reasoning_block = True
        fields: dict[str, Any] = {"text": text, "provider": NAME, "index": _REASONING_SLOT}
        if self.reasoning_field == "reasoning":
            fields["extras"] = {NAME: {"field": "reasoning"}}
        blocks.append(ReasoningBlock(**fields))

    def add_text(self, content: str, blocks: list[ContentBlock], text: list[str]) -> None:
        first = not self.text_seen
        self.text_seen = True
        if self.mode == "blocks":
            if content or not self.text_block:
                self.text_block = True
                blocks.append(TextBlock(text=content, index=_TEXT_SLOT))
        elif content:
            self.mode = "string"
            text.append(content)
        elif first and self.mode is None:
            text.append("")  # says the reply has (empty) text content
        if self.annotations:
            self.flush_annotations(blocks)

    def add_refusal(self, refusal: str, blocks: list[ContentBlock]) -> None:
        if self.mode is None:
            self.mode = "blocks"
        if self.mode == "blocks" and self.text_seen and not self.text_block:
            # decode_response puts the (empty) text before the refusal
            self.text_block = True
            blocks.append(TextBlock(text="", index=_TEXT_SLOT))
        if self.refusal_block:
            if refusal:
                blocks.append(RefusalBlock(text=refusal, index=_REFUSAL_SLOT))
            return
        self.refusal_block = True
        blocks.append(
            RefusalBlock(text=refusal, index=_REFUSAL_SLOT, extras={NAME: {"as_field": True}})
        )

    def flush_annotations(self, blocks: list[ContentBlock]) -> None:
        """Annotations that came with or after text: citations on the text block."""
        decoded = [_decode_annotation(item, 0) for item in self.annotations]
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
            blocks.append(TextBlock(text="", index=_TEXT_SLOT, annotations=decoded))

    # ------------------------------------------------------------------ tool calls

    def tool_call(self, raw: Any) -> ToolCallChunk:
        data = _object(raw, "a tool call delta", None)
        wire = data.get("index", _ABSENT)
        call_id = data.get("id")
        if call_id is not None:
            call_id = _string(call_id, "tool call id", None)
        call: _StreamCall | None
        if wire is _ABSENT or wire is None:
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
            _fail(f"tool call index must be a non-negative integer, not {wire!r}")
        fields: dict[str, Any] = {"index": call.position}
        extras: dict[str, Any] = {}
        if call_id and call.id is None:
            call.id = fields["id"] = call_id
            self.calls_by_id[call_id] = call
        kind = data.get("type")
        if kind is not None:
            if kind not in ("function", "custom"):
                _fail(f"tool call {call.position} has unknown type {kind!r}")
            if not call.typed:
                call.typed = True
                call.custom = kind == "custom"
                if call.custom:
                    extras["type"] = "custom"
        key = "custom" if call.custom else "function"
        inner = data.get(key)
        if inner is not None:
            inner = _object(inner, f"tool call {call.position} {key}", None)
            name = inner.get("name")
            if name is not None:
                name = _string(name, f"tool call {call.position} name", None)
                if name and call.name is None:
                    call.name = fields["name"] = name
            piece = inner.get("input" if call.custom else "arguments")
            if piece is not None:
                piece = _string(piece, f"tool call {call.position} arguments", None)
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
        extras.update(self.leftover(call, data, _CALL_KEYS))
        if extras:
            fields["extras"] = {NAME: extras}
        return ToolCallChunk(**fields)

    def new_call(self) -> _StreamCall:
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
            if value is None and where + key in call.extras_seen:
                continue
            call.extras_seen.add(where + key)
            found[key] = copy.deepcopy(value)
        return found

    def finish_call(self, call: _StreamCall) -> ToolCallChunk | None:
        if not call.id:
            _fail(f"tool call {call.position} has no id")
        if call.name is None:
            _fail(f"tool call {call.position} has no name")
        extras: dict[str, Any] = {}
        fields: dict[str, Any] = {"index": call.position}
        if call.custom:
            fields["arguments"] = ('{"input": "' if not call.parts else "") + '"}'
        else:
            if not call.typed:
                extras["no_type"] = True
            raw = "".join(call.parts)
            arguments, _ = parse_arguments(raw)
            if (
                arguments is not None
                and call.name
                and raw != json.dumps(arguments, ensure_ascii=False)
            ):
                extras["arguments"] = raw
        if extras:
            fields["extras"] = {NAME: extras}
        return ToolCallChunk(**fields) if len(fields) > 1 else None

    # ------------------------------------------------------------------ output

    def chunk(
        self,
        out: dict[str, Any],
        meta: dict[str, Any],
        extras: dict[str, Any],
        blocks: list[ContentBlock],
        text: list[str],
        calls: list[ToolCallChunk],
    ) -> list[AssistantMessageChunk]:
        chunks: list[AssistantMessageChunk] = []
        joined = "".join(text)
        if blocks:
            if joined:  # string text, then blocks, in one event: the text first
                chunks.append(self.build({"content": joined}))
            out["content"] = blocks
        elif text:
            out["content"] = joined
        if calls:
            out["tool_call_chunks"] = calls
        if meta:
            out["response_metadata"] = {NAME: meta}
        if extras:
            out["extras"] = {NAME: extras}
        if out:
            chunks.append(self.build(out))
        return chunks

    def build(self, fields: dict[str, Any]) -> AssistantMessageChunk:
        if not self.started:
            self.started = True
            fields["provider"] = NAME
        try:
            return AssistantMessageChunk(**fields)
        except pydantic.ValidationError as error:
            _fail(f"cannot represent the stream event: {error.errors()[0]['msg']}")

    def close(self) -> list[AssistantMessageChunk]:
        """The final chunk: what is only whole at the end of the stream."""
        out: dict[str, Any] = {}
        meta: dict[str, Any] = {}
        extras: dict[str, Any] = {}
        blocks: list[ContentBlock] = []
        calls = [chunk for call in self.calls if (chunk := self.finish_call(call)) is not None]
        if self.annotations:
            if self.text_seen:
                self.flush_annotations(blocks)
            else:  # no text to cite: kept as they came, like decode_response does
                self.others.add({"annotations": self.annotations})
        if self.mode == "blocks" and self.text_seen and not self.text_block:
            blocks.append(TextBlock(text="", index=_TEXT_SLOT))
        if self.primary is not None:
            # a null field is no field (decode_response drops them too)
            extras.update(
                (key, value) for key, value in self.others.build().items() if value is not None
            )
            shape = self.content_shape()
            if shape is not None:
                extras["content_shape"] = shape
            audio = self.audio.build()
            if audio:
                if isinstance(audio.get("id"), str):
                    meta["audio"] = audio
                else:
                    extras["audio"] = audio
            logprobs = self.logprobs.build().get("logprobs")
            if logprobs is not None:
                meta["logprobs"] = logprobs
        if self.side:
            meta["choices"] = [side.build() for side in self.side.values()]
        if self.finished:
            out["chunk_position"] = "last"
        return self.chunk(out, meta, extras, blocks, [], calls)

    def content_shape(self) -> Shape | None:
        """``extras.content_shape`` as decode_response would record it."""
        shape: Shape = "string" if self.text_seen else "null"
        side: list[ContentBlock] = []
        if self.reasoning_block:
            side.append(ReasoningBlock(text=""))
        if self.text_seen:
            side.append(TextBlock(text=""))
        if self.refusal_block:
            side.append(RefusalBlock(text="", extras={NAME: {"as_field": True}}))
        if shape == "string" and len(side) == 1 and not self.annotated:
            return None
        if shape == "null" and not side:
            return None
        return shape if shape != _default_shape(side) else None


def _merge_value(target: dict[str, Any], key: str, value: Any) -> None:
    """The last value wins; objects are merged (as chunks' metadata merges)."""
    current = target.get(key)
    if isinstance(current, dict) and isinstance(value, dict):
        for inner, item in value.items():
            _merge_value(current, inner, item)
    else:
        target[key] = copy.deepcopy(value)


def _stream_error(error: Any) -> NoReturn:
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str) or not message:
        message = json.dumps(error, default=str)[:200] if isinstance(error, dict) else str(error)
    _fail(f"the stream reported an error: {message}")
