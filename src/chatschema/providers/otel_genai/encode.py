"""Encoding the neutral model as OpenTelemetry GenAI attributes, and checking it.

``check`` is the encoder in collect mode. The message schemas end every part union
in a catch-all, so almost any content has a place: what is refused is what the
conventions have no attribute for (a tool choice, some settings) and images without
vision. Opaque provider data is left out by rule, and said so (:data:`.wire.OMITTED`).
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
from collections.abc import Mapping
from typing import Any, Literal

from chatschema_models.content import (
    AudioBlock,
    CompactionBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    ResourceBlock,
    ResourceLinkBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    VideoBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message, SystemMessage, ToolMessage
from chatschema_models.tool import InvalidToolCall, ToolCall, ToolDefinition
from typing_extensions import Unpack

from chatschema._json import copy_json
from chatschema.errors import OptionError, Problem, UnsupportedContentError
from chatschema.providers._codec import PROVIDERS
from chatschema.providers._common import (
    EncodeOptions,
    EncodePass,
    Options,
    content_blocks,
    extras_of,
    guarded,
    inline_data,
    json_text,
    parse_arguments,
    raise_problems,
    structural_error,
    to_conversation,
)
from chatschema.providers._common.options import report_dropped_settings
from chatschema.providers._common.replay import compaction_what, summary_of
from chatschema.providers.otel_genai.blocks import resource_part
from chatschema.providers.otel_genai.fast import fast_messages
from chatschema.providers.otel_genai.wire import (
    CONTENT_ATTRIBUTES,
    CONVERSATION_ID,
    FROM_NEUTRAL_FINISH,
    INPUT_MESSAGES,
    MARKERS,
    MODALITIES,
    NAME,
    NO_ATTRIBUTE,
    OMITTED,
    OPAQUE_FIELDS,
    OPAQUE_KEYS,
    OUTPUT_MESSAGES,
    OUTPUT_TYPE,
    OUTPUT_TYPES,
    PROBLEMS,
    SETTINGS,
    SYSTEM_INSTRUCTIONS,
    TOOL_DEFINITIONS,
    UNKNOWN_FINISH,
    UNSUPPORTED_SETTINGS,
)

FAST = True
"""The fast walk for plain text messages (``fast.py``); tests turn it off to compare."""

InlinePolicy = Literal["keep", "omit"]


class OtelEncodeOptions(EncodeOptions, total=False):
    """The common options, and the ones only this format has.

    ``content_format``, ``prompt_cache``, ``native_tools``, ``system_role`` and
    ``reasoning_content`` do not apply to telemetry and are accepted and ignored.
    """

    json_strings: bool
    """Structured attributes as JSON text, as span attributes are set when the SDK
    cannot record structured values (default ``False``: plain JSON data)."""
    export_opaque: bool
    """Export signatures, encrypted reasoning and other opaque provider data as part
    members (default ``False``: left out, named in ``chatschema.omitted``)."""
    inline_data: InlinePolicy
    """``"keep"`` (default) writes inline base64 data; ``"omit"`` leaves it out of
    every blob (``content`` is ``""``, named in ``chatschema.omitted``)."""
    max_inline_chars: int
    """Longest base64 text kept in a blob; longer data is cut to this many
    characters (a multiple of 4), named in ``chatschema.omitted``."""
    system_instructions: bool
    """Leading system messages go to ``gen_ai.system_instructions`` (default
    ``False``: they stay in ``gen_ai.input.messages``, as part of the history;
    those decoded from ``gen_ai.system_instructions`` go back there either way)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Telemetry:
    """The resolved options of this format only (see :class:`OtelEncodeOptions`)."""

    json_strings: bool = False
    export_opaque: bool = False
    inline_data: InlinePolicy = "keep"
    max_inline_chars: int | None = None
    system_instructions: bool = False


_OWN_OPTIONS = ("json_strings", "export_opaque", "inline_data", "max_inline_chars")
_OWN = (*_OWN_OPTIONS, "system_instructions")
_DEFAULT = Telemetry()


def resolve(options: Mapping[str, Any]) -> tuple[Options, Telemetry]:
    """Split and validate the options; unknown names and bad values raise OptionError."""
    if not options:
        return Options(provider=NAME), _DEFAULT
    own = {name: options[name] for name in _OWN if name in options}
    common = {name: value for name, value in options.items() if name not in own}
    try:
        resolved = Options.resolve(NAME, common)
    except OptionError as error:
        if "unknown option" in str(error):
            raise OptionError(f"{error}, {', '.join(_OWN)}") from None
        raise
    for name in ("json_strings", "export_opaque", "system_instructions"):
        if name in own and not isinstance(own[name], bool):
            raise OptionError(f"option {name}={own[name]!r}: expected True or False")
    if own.get("inline_data", "keep") not in ("keep", "omit"):
        raise OptionError(f"option inline_data={own['inline_data']!r}: expected 'keep' or 'omit'")
    limit = own.get("max_inline_chars")
    if limit is not None and (type(limit) is not int or limit < 0):
        raise OptionError(f"option max_inline_chars={limit!r}: expected a non-negative integer")
    return resolved, Telemetry(**own)


# ================================================================= public verbs


@guarded(NAME)
def encode(messages: Any, **options: Unpack[OtelEncodeOptions]) -> dict[str, Any]:
    """Encode a conversation as the GenAI attributes of a span or event.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`OtelEncodeOptions`.

    Returns:
        ``{"gen_ai.input.messages", "gen_ai.system_instructions"?,
        "gen_ai.tool.definitions"?, "gen_ai.conversation.id"?, "gen_ai.request.*"?,
        "gen_ai.output.type"?}`` (the settings only when set), plus the
        attributes a decoded record had that the neutral model has no field for.
        Values are JSON data; with ``json_strings=True`` the structured ones are
        JSON text. Set them on a span with :func:`chatschema.telemetry.record`.

    Raises:
        UnsupportedContentError: under ``unsupported="error"``, for what the
            conventions cannot say (a tool choice, a reasoning effort or budget, a
            JSON schema for the answer) and images without vision.
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved, telemetry = resolve(options)
    encoder = _Encoder(resolved, telemetry, collect=resolved.check)
    attributes = encoder.run(to_conversation(messages))
    raise_problems(encoder.problems, NAME)
    report_dropped_settings(encoder.dropped_settings, NAME)
    return attributes


@guarded(NAME)
def check(messages: Any, **options: Unpack[OtelEncodeOptions]) -> list[Problem]:
    """Every problem :func:`encode` would raise with.

    Only what the conventions cannot say (``unsupported_content``: a tool choice,
    settings without an attribute, images without vision); telemetry records any
    history, so tool pairing and ordering are not checked.

    Raises:
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved, telemetry = resolve(options)
    encoder = _Encoder(resolved, telemetry, collect=True)
    encoder.run(to_conversation(messages))
    return encoder.problems


@guarded(NAME)
def encode_output(message: Any, **options: Unpack[OtelEncodeOptions]) -> list[dict[str, Any]] | str:
    """A reply as the value of ``gen_ai.output.messages`` (one output message).

    ``finish_reason`` is the schema's word for the neutral one (``tool_calls`` ->
    ``tool_call``); a reply decoded from this format keeps the word it came with;
    one that says nothing gets ``"unknown"`` (the schema requires a reason).

    Args:
        message: an AssistantMessage or its JSON-like dict.
        **options: as :func:`encode` (``json_strings`` gives JSON text).

    Raises:
        UnsupportedContentError: for images without vision (``unsupported="error"``).
    """
    value, problems = _output(message, options, lenient=False)
    raise_problems(problems, NAME)
    return value


@guarded(NAME)
def encode_lenient(
    messages: Any, **options: Unpack[OtelEncodeOptions]
) -> tuple[dict[str, Any], list[Problem]]:
    """:func:`encode` for recording: what the conventions cannot say is left out, not raised.

    Each value the conventions cannot say (a tool choice, a reasoning effort, a JSON
    schema for the answer, parameters that are not draft-07) is left out of the
    attributes and listed, whatever the policies; images under ``vision=False``
    are listed under ``unsupported="error"``, and ``"drop"`` and ``"placeholder"``
    apply to them as in :func:`encode`.

    Returns:
        The attributes and the problems, each with the pointer of what was left out.

    Raises:
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved, telemetry = resolve(options)
    encoder = _Encoder(resolved, telemetry, collect=True)
    encoder.list_dropped = True
    attributes = encoder.run(to_conversation(messages))
    return attributes, [*encoder.problems, *encoder.dropped_settings]


@guarded(NAME)
def encode_output_lenient(
    message: Any, **options: Unpack[OtelEncodeOptions]
) -> tuple[list[dict[str, Any]] | str, list[Problem]]:
    """:func:`encode_output` for recording: what it would refuse is left out and listed.

    The problems' pointers are the reply's (``/content/<block>``).

    Raises:
        UnsupportedContentError: for a message that is not an assistant message.
        ValidationError: for input that is not a message.
        OptionError: for unknown options or bad values.
    """
    value, problems = _output(message, options, lenient=True)
    prefix = "/messages/0"
    return value, [
        dataclasses.replace(problem, pointer=problem.pointer.removeprefix(prefix))
        if problem.pointer.startswith(f"{prefix}/")
        else problem
        for problem in problems
    ]


def _output(
    message: Any, options: Mapping[str, Any], *, lenient: bool
) -> tuple[list[dict[str, Any]] | str, list[Problem]]:
    """The output message value, and the problems found (collect mode when asked)."""
    resolved, telemetry = resolve(options)
    conversation = to_conversation([message])
    reply = conversation.messages[0]
    if not isinstance(reply, AssistantMessage):
        raise UnsupportedContentError(
            f"an output message is an assistant message, not {reply.role!r}", provider=NAME
        )
    encoder = _Encoder(resolved, telemetry, collect=lenient or resolved.check)
    wire = encoder.assistant(0, reply)
    reason = reply.raw_finish_reason if reply.provider == NAME else None
    if reason is None:
        reason = FROM_NEUTRAL_FINISH.get(reply.finish_reason or "")
    if reason is None:  # paused, other: the provider's own word says more
        reason = reply.raw_finish_reason or reply.finish_reason or UNKNOWN_FINISH
    wire["finish_reason"] = reason
    value = [wire]
    return (json_text(value) if telemetry.json_strings else value), encoder.problems


# ===================================================================== the encoder


class _Encoder(EncodePass):
    """One walk over a conversation: the attributes, and the problems in collect mode."""

    def __init__(self, options: Options, telemetry: Telemetry, *, collect: bool) -> None:
        super().__init__(options, collect=collect)
        self.telemetry = telemetry
        self.server_tools: dict[str, str] = {}  # server tool call id -> its type
        self.list_dropped = False  # encode_lenient: what refuse drops is listed too

    def run(self, conversation: Conversation) -> dict[str, Any]:
        """The attributes of a whole conversation."""
        messages = conversation.messages
        attributes: dict[str, Any] = {}
        start, instructions = self.instructions(messages)
        if FAST:
            wire = fast_messages(self, messages, start)
        else:
            wire = []
            self.messages(messages, start, len(messages), wire)
        if instructions is not None:
            attributes[SYSTEM_INSTRUCTIONS] = instructions
        attributes[INPUT_MESSAGES] = wire
        if conversation.tools is not None:
            attributes[TOOL_DEFINITIONS] = [
                self.tool(position, tool) for position, tool in enumerate(conversation.tools)
            ]
        if conversation.tool_choice is not None:
            self.refuse("/tool_choice", "a tool choice")
        if conversation.id is not None:
            attributes[CONVERSATION_ID] = conversation.id
        if conversation.settings is not None:
            self.settings(conversation.settings, attributes)
        kept = extras_of(conversation, NAME)
        for key, value in kept.items():
            if key == PROBLEMS:
                continue
            # a record whose messages could not be read keeps them as they came
            if key not in attributes or (key == INPUT_MESSAGES and not messages):
                attributes[key] = copy_json(value)
        if self.telemetry.json_strings:
            for key, value in attributes.items():
                # the structured attributes, and any kept value a span cannot hold
                if key in CONTENT_ATTRIBUTES or key == OUTPUT_MESSAGES or _nested(value):
                    attributes[key] = json_text(value)
        return attributes

    # ----------------------------------------------------------------- refusals

    def refuse(self, where: str, what: str, why: str = NO_ATTRIBUTE) -> None:
        """Apply the unsupported policy to a value at ``where`` (not a message's block).

        ``what`` is a noun phrase, ``why`` the reason: "otel_genai cannot carry
        <what> (<why>)".
        """
        options = self.options
        problem = Problem(where, "unsupported_content", f"{NAME} cannot carry {what} ({why})")
        if options.unsupported != "error":
            self.dropped += 1
            if self.list_dropped:
                self.problems.append(problem)
            return
        if self.collect:
            self.problems.append(problem)
            return
        raise structural_error([problem], NAME)  # as with check on

    # ----------------------------------------------------------------- settings

    def settings(self, settings: Any, attributes: dict[str, Any]) -> None:
        """``gen_ai.request.*`` and ``gen_ai.output.type`` for the settings that are set."""
        values = settings.__dict__
        for field, key in SETTINGS.items():
            value = values.get(field)
            if value is not None:
                # Registry: top_k is a double; every other value keeps its type.
                attributes[key] = float(value) if field == "top_k" else copy.copy(value)
        for field, what in UNSUPPORTED_SETTINGS.items():
            if values.get(field) is not None:  # (unsupported_settings decides)
                reason = f"{NAME} cannot carry {what} ({NO_ATTRIBUTE})"
                self.unsupported_setting(f"/settings/{field}", reason)
        response_format = values.get("response_format")
        if response_format is not None:
            kind = OUTPUT_TYPES.get(response_format.type)
            if kind is None:
                self.unsupported_setting(
                    "/settings/response_format",
                    f"{NAME} cannot carry a JSON schema for the answer "
                    "(gen_ai.output.type says json, not which schema)",
                )
            else:
                attributes[OUTPUT_TYPE] = kind

    # --------------------------------------------------------------- messages

    def instructions(self, messages: list[Message]) -> tuple[int, list[dict[str, Any]] | None]:
        """The leading system messages that go to ``gen_ai.system_instructions``."""
        lift = self.telemetry.system_instructions
        parts: list[dict[str, Any]] | None = None
        index = 0
        for index, message in enumerate(messages):
            if not isinstance(message, SystemMessage):
                return index, parts
            ours = extras_of(message, NAME)
            if not (ours.get("in_instructions") or (lift and not ours)):
                return index, parts
            if message.name is not None or message.id is not None:
                return index, parts
            if parts is None:
                parts = []
            parts.extend(self.content(index, message.content))
        return len(messages), parts

    def messages(self, messages: list[Message], start: int, end: int, out: list[Any]) -> None:
        """Write ``messages[start:end]`` to ``out`` (the general path)."""
        for index in range(start, end):
            message = messages[index]
            ours = extras_of(message, NAME)
            if isinstance(message, AssistantMessage):
                wire = self.assistant(index, message)
            elif isinstance(message, ToolMessage):
                wire = self.tool_result(index, message)
            else:
                wire = self.message(index, message, message.role)
            joined = ours.get("joined") is True and out
            if joined and isinstance(out[-1], dict) and isinstance(out[-1].get("parts"), list):
                out[-1]["parts"].extend(wire["parts"])
                continue
            out.append(wire)

    def message(self, index: int, message: Message, role: str) -> dict[str, Any]:
        """A system or user message."""
        return self.finish_message(
            message, {"role": role, "parts": self.content(index, message.content)}
        )

    def finish_message(self, message: Message, wire: dict[str, Any]) -> dict[str, Any]:
        """Name, id, the wire role a decoded message had, and its other members."""
        ours = extras_of(message, NAME)
        role = ours.get("wire_role")
        if isinstance(role, str):
            wire["role"] = role
        if message.name is not None and not ours.get("name_in_part"):
            wire["name"] = message.name
        if message.id is not None:
            wire["id"] = message.id
        if ours:
            _merge(wire, ours)
        return wire

    def assistant(self, index: int, message: AssistantMessage) -> dict[str, Any]:
        """An assistant message: its content, with the tool calls at their places."""
        parts = self.content(index, message.content, assistant=True)
        calls: list[tuple[int | None, dict[str, Any]]] = []
        for call in message.tool_calls:
            calls.append((call.index, self.tool_call(call)))
        for invalid in message.invalid_tool_calls:
            calls.append((invalid.index, self.invalid_call(invalid)))
        return self.finish_message(message, {"role": "assistant", "parts": _place(parts, calls)})

    def tool_result(self, index: int, message: ToolMessage) -> dict[str, Any]:
        """A tool message: one ``tool_call_response`` part."""
        ours = extras_of(message, NAME)
        content = message.content
        response: Any
        if isinstance(content, str):
            response = content
            if "response_json" in ours:  # a JSON response, read as its text
                kept = ours["response_json"]
                if json_text(kept) == content:
                    response = copy_json(kept)
                else:  # the text changed since: what it says now
                    parsed, error = _json_value(content)
                    response = parsed if error is None else content
        else:
            response = self.content(index, content)
        part: dict[str, Any] = {"type": "tool_call_response"}
        if not ours.get("synthesized_id"):
            part["id"] = message.tool_call_id
        elif "wire_id" in ours:
            part["id"] = ours["wire_id"]
        part["response"] = response
        if message.status == "error":
            part["status"] = "error"
        if message.name is not None and ours.get("name_in_part"):
            part["name"] = message.name
        members = ours.get("part")
        if isinstance(members, dict):
            _merge(part, members)
        return self.finish_message(message, {"role": "tool", "parts": [part]})

    # ---------------------------------------------------------------- content

    def content(
        self, index: int, content: str | list[ContentBlock], *, assistant: bool = False
    ) -> list[dict[str, Any]]:
        """The parts of a message's content, in order."""
        if isinstance(content, str):
            return [{"type": "text", "content": content}] if content else []
        parts: list[dict[str, Any]] = []
        for position, block in enumerate(content_blocks(content)):
            part = self.block(index, position, block)
            if part is not None:
                parts.append(part)
        return parts

    def block(self, index: int, position: int, block: ContentBlock) -> dict[str, Any] | None:
        """One content block as a part (None when the policy leaves it out)."""
        part: dict[str, Any]
        if isinstance(block, TextBlock):
            part = {"type": "text", "content": block.text}
            if block.annotations is not None:
                part["annotations"] = [
                    copy_json(item.model_dump(exclude_unset=True)) for item in block.annotations
                ]
        elif isinstance(block, RefusalBlock):
            # No refusal part in the schema: a generic part of type "refusal".
            part = {"type": "refusal", "content": block.text}
        elif isinstance(block, ReasoningBlock):
            if self.options.reasoning == "drop":
                return None
            part = self.reasoning(block)
        elif isinstance(block, (ImageBlock, AudioBlock, VideoBlock, FileBlock)):
            if isinstance(block, ImageBlock) and not self.options.vision:
                text = self.unsupported("image (vision is off)", index, position)
                return None if text is None else {"type": "text", "content": text}
            part = self.media(block)
        elif isinstance(block, PlainTextBlock):
            part = self.plain_text(block)
        elif isinstance(block, ServerToolCallBlock):
            part = self.server_call(block)
        elif isinstance(block, ServerToolResultBlock):
            part = self.server_result(block)
        elif isinstance(block, (ResourceBlock, ResourceLinkBlock)):
            part = resource_part(block)
            if isinstance(block, ResourceBlock) and block.base64 is not None:
                self.inline(part, "base64", block.base64)
        elif isinstance(block, NonStandardBlock):
            return self.non_standard(block)
        elif isinstance(block, CompactionBlock):  # no such part: its text, or the policy
            summary = summary_of(self.options, block)
            text = (
                summary.text
                if summary is not None
                else self.unsupported(compaction_what(block), index, position)
            )
            return None if text is None else {"type": "text", "content": text}
        else:  # a block this format has no part for
            text = self.unsupported(f"{block.type} block", index, position)
            return None if text is None else {"type": "text", "content": text}
        if getattr(block, "id", None) is not None and "id" not in part:
            part["id"] = block.id
        ours = extras_of(block, NAME)
        if ours:
            _merge(part, ours)
        return part

    def reasoning(self, block: ReasoningBlock) -> dict[str, Any]:
        """A reasoning part: the text (or the summary), opaque data only by option."""
        text = block.text
        if text is None:
            text = "\n".join(block.summary or ())
        part: dict[str, Any] = {"type": "reasoning", "content": text}
        if block.summary is not None:
            part["summary"] = list(block.summary)
        if block.provider is not None:
            part["provider"] = block.provider
        omitted: dict[str, Any] = {}
        for field in OPAQUE_FIELDS:
            value = getattr(block, field)
            if value is None:
                continue
            if self.telemetry.export_opaque:
                part[field] = value
            else:  # telemetry is not a replay channel: said, never written
                omitted[field] = {"reason": "opaque"}
        if omitted:
            part[OMITTED] = omitted
        return part

    def media(self, block: ImageBlock | AudioBlock | VideoBlock | FileBlock) -> dict[str, Any]:
        """A blob (inline data), uri or file (provider file id) part."""
        ours = extras_of(block, NAME)
        modality = ours.get("modality", MODALITIES[block.type])
        inline = inline_data(block)
        part: dict[str, Any]
        if inline is not None:
            mime, data = inline
            part = {"type": "blob", "modality": modality, "mime_type": mime}
            self.inline(part, "content", data)
            if block.url is not None and block.base64 is not None:
                part["uri"] = block.url
        elif block.url is not None:
            part = {"type": "uri", "modality": modality}
            if block.mime_type is not None:
                part["mime_type"] = block.mime_type
            part["uri"] = block.url
        else:
            part = {"type": "file", "modality": modality}
            if block.mime_type is not None:
                part["mime_type"] = block.mime_type
            part["file_id"] = block.file_id
        if block.file_id is not None and part["type"] != "file":
            part["file_id"] = block.file_id
        if isinstance(block, ImageBlock) and block.detail is not None:
            part["detail"] = block.detail
        if isinstance(block, FileBlock) and block.filename is not None:
            part["filename"] = block.filename
        return part

    def inline(self, part: dict[str, Any], field: str, data: str) -> None:
        """Write inline base64 data, or as much of it as the options keep."""
        telemetry = self.telemetry
        if telemetry.inline_data == "omit":
            part[field] = ""
            part.setdefault(OMITTED, {})[field] = {"reason": "inline_data", "length": len(data)}
            return
        limit = telemetry.max_inline_chars
        if limit is not None and len(data) > limit:
            part[field] = data[: limit - limit % 4]  # whole base64 quanta: still base64
            part.setdefault(OMITTED, {})[field] = {"reason": "truncated", "length": len(data)}
            return
        part[field] = data

    def plain_text(self, block: PlainTextBlock) -> dict[str, Any]:
        """A text document: a generic part of type ``text-plain`` with its fields."""
        part: dict[str, Any] = {"type": "text-plain"}
        for field in ("text", "url", "mime_type", "file_id", "title", "context"):
            value = getattr(block, field)
            if value is not None:
                part[field] = value
        if block.base64 is not None:
            self.inline(part, "base64", block.base64)
        return part

    def server_call(self, block: ServerToolCallBlock) -> dict[str, Any]:
        """A ``server_tool_call`` part; the arguments are the payload's members."""
        ours = extras_of(block, NAME)
        kind = ours.get("tool_type", block.name)
        payload: dict[str, Any] = {"type": kind}
        arguments = block.arguments
        if arguments is not None:
            if "type" in arguments:
                payload["arguments"] = copy_json(arguments)
            else:
                payload.update(copy_json(arguments))
        part: dict[str, Any] = {"type": "server_tool_call"}
        if block.id is not None:
            part["id"] = block.id
            self.server_tools[block.id] = kind
        part["name"] = block.name
        part["server_tool_call"] = payload
        if block.provider is not None:
            part["provider"] = block.provider
        return part

    def server_result(self, block: ServerToolResultBlock) -> dict[str, Any]:
        """A ``server_tool_call_response`` part answering the call with that id."""
        ours = extras_of(block, NAME)
        if ours.get("as_tool_response"):  # read from a tool_call_response in a reply
            return {
                "type": "tool_call_response",
                "id": block.tool_call_id,
                "response": copy_json(block.output),
            }
        kind = ours.get("tool_type")
        if not isinstance(kind, str):
            kind = self.server_tools.get(block.tool_call_id, "server_tool")
        payload: dict[str, Any] = {"type": kind}
        output = block.output
        if ours.get("flat") and isinstance(output, dict) and "type" not in output:
            payload.update(copy_json(output))
        else:
            payload["output"] = copy_json(output)
        if block.status is not None:
            payload["status"] = block.status
        part: dict[str, Any] = {"type": "server_tool_call_response", "id": block.tool_call_id}
        part["server_tool_call_response"] = payload
        if block.provider is not None:
            part["provider"] = block.provider
        if block.id is not None:
            part["result_id"] = block.id
        return part

    def non_standard(self, block: NonStandardBlock) -> dict[str, Any]:
        """A block with no neutral type.

        This format's own generic parts go back as they came; other formats' values
        become a ``non_standard`` (for compaction: a ``compaction``) part, opaque keys out.
        """
        value = block.value
        ours = extras_of(block, NAME)
        part: dict[str, Any]
        if _own(block) and isinstance(value.get("type"), str):
            part = copy_json(value)
            if block.id is not None:
                part.setdefault("block_id", block.id)
            if ours:
                _merge(part, ours)
            return part
        omitted: dict[str, Any] = {}
        scrubbed: dict[str, Any] = {}
        for key, item in value.items():
            if key in OPAQUE_KEYS and not self.telemetry.export_opaque:
                omitted[key] = {"reason": "opaque"}
            else:
                scrubbed[key] = copy_json(item)
        if value.get("type") == "compaction":
            part = scrubbed
        else:
            part = {"type": "non_standard", "value": scrubbed}
        if block.provider is not None:
            part["provider"] = block.provider
        if block.id is not None:
            part.setdefault("block_id", block.id)
        if omitted:
            part[OMITTED] = omitted
        if ours:
            _merge(part, ours)
        return part

    # ------------------------------------------------------------------- tools

    def tool_call(self, call: ToolCall) -> dict[str, Any]:
        """A ``tool_call`` part: arguments as the object, or the exact text they came as."""
        ours = extras_of(call, NAME)
        part: dict[str, Any] = {"type": "tool_call"}
        if not ours.get("synthesized_id"):
            part["id"] = call.id
        elif "wire_id" in ours:
            part["id"] = ours["wire_id"]
        part["name"] = call.name
        raw = ours.get("arguments")
        if ours.get("no_arguments") and not call.arguments:
            pass  # none came (an explicit null comes back with the nulls)
        elif isinstance(raw, str) and parse_arguments(raw) == (call.arguments, None):
            part["arguments"] = raw
        else:
            part["arguments"] = copy_json(call.arguments)
        if ours:
            _merge(part, ours)
        return part

    def invalid_call(self, call: InvalidToolCall) -> dict[str, Any]:
        """A call that could not be read: its arguments as the text that came."""
        ours = extras_of(call, NAME)
        part: dict[str, Any] = {"type": "tool_call"}
        if call.id is not None:
            part["id"] = call.id
        elif "wire_id" in ours:
            part["id"] = ours["wire_id"]
        part["name"] = ours.get("wire_name", call.name or "")
        if not ours.get("no_arguments"):
            arguments: Any = call.arguments
            if ours.get("arguments_json") and isinstance(arguments, str):
                parsed, error = _json_value(arguments)
                arguments = parsed if error is None else arguments
            part["arguments"] = arguments
        if ours:
            _merge(part, ours)
        return part

    def tool(self, position: int, tool: ToolDefinition) -> dict[str, Any]:
        """A tool definition: a function, or a provider's built-in tool (generic)."""
        ours = extras_of(tool, NAME)
        if tool.parameters and not draft_07(tool.parameters):
            # Tool definitions schema: parameters "MUST conform to JSON Schema draft-07"
            self.refuse(
                f"/tools/{position}/parameters",
                f"the parameters of tool {tool.name!r}",
                "the GenAI conventions require a draft-07 JSON Schema",
            )
            tool = tool.model_copy(update={"parameters": {}})
            ours = {**ours, "no_parameters": True}
        if tool.provider is None:
            wire: dict[str, Any] = {"type": "function", "name": tool.name}
            if tool.description is not None:
                wire["description"] = tool.description
            if "wire_parameters" in ours and not tool.parameters:
                wire["parameters"] = copy_json(ours["wire_parameters"])
            elif tool.parameters or not (ours.get("no_parameters") or "parameters" in _nulls(ours)):
                wire["parameters"] = copy_json(tool.parameters)
            if tool.strict is not None:
                wire["strict"] = tool.strict
        else:
            native = extras_of(tool, tool.provider)
            kind = ours.get("type", native.get("type"))
            wire = {"type": kind if isinstance(kind, str) else tool.name, "name": tool.name}
            if tool.provider != NAME:  # a built-in tool read from a record names no provider
                wire["provider"] = tool.provider
            if tool.description is not None:
                wire["description"] = tool.description
            if tool.parameters:
                wire["parameters"] = copy_json(tool.parameters)
        if ours:
            _merge(wire, ours)
        return wire


# ====================================================================== helpers


def _merge(wire: dict[str, Any], extras: Mapping[str, Any]) -> None:
    """Members a decoded record had that the neutral model has no field for.

    Markers (:data:`.wire.MARKERS`) stay out; what the encoder wrote wins.
    """
    for key, value in extras.items():
        if key not in wire and key not in MARKERS:
            wire[key] = copy_json(value)
    members = extras.get("members")
    if isinstance(members, dict):  # members named like markers
        for key, value in members.items():
            if key not in wire:
                wire[key] = copy_json(value)
    nulls = extras.get("nulls")
    if isinstance(nulls, list):  # optional members that came as explicit nulls
        for key in nulls:
            if isinstance(key, str) and key not in wire:
                wire[key] = None


def draft_07(parameters: dict[str, Any]) -> bool:
    """Whether tool parameters are a draft-07 JSON Schema (as the conventions require)."""
    try:
        return _draft_07(json_text(parameters))
    except (TypeError, ValueError):  # not JSON data at all
        return False


@functools.lru_cache(maxsize=256)
def _draft_07(text: str) -> bool:
    """The check, once per distinct schema text (tools repeat request after request)."""
    from jsonschema import Draft7Validator, SchemaError

    try:
        Draft7Validator.check_schema(json.loads(text))
    except (SchemaError, RecursionError):
        return False
    return True


def _nested(value: Any) -> bool:
    """Whether a value is not a span attribute value (an object, or a list of them)."""
    if isinstance(value, dict):
        return True
    return isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value)


def _nulls(extras: Mapping[str, Any]) -> list[Any]:
    """The members a decoded record had as explicit nulls."""
    nulls = extras.get("nulls")
    return nulls if isinstance(nulls, list) else []


def _place(
    parts: list[dict[str, Any]], calls: list[tuple[int | None, dict[str, Any]]]
) -> list[dict[str, Any]]:
    """Tool-call parts at their ``index`` among the other parts; the others last."""
    if not calls:
        return parts
    placed = sorted(
        ((position, part) for position, part in calls if position is not None),
        key=lambda item: item[0],
    )
    out = list(parts)
    for position, part in placed:
        out.insert(min(position, len(out)), part)
    out.extend(part for position, part in calls if position is None)
    return out


def _json_value(text: str) -> tuple[Any, str | None]:
    """A JSON value from text, or an error."""
    try:
        return json.loads(text), None
    except (ValueError, RecursionError) as error:
        return None, str(error)


def _own(block: NonStandardBlock) -> bool:
    """Whether a non-standard block is this format's generic part.

    A block without a provider is, unless another format's extras claim it (a Chat
    Completions or Mistral content part it kept whole, marked in its extras).
    """
    if block.provider is not None:
        return block.provider == NAME
    extras = block.extras
    return not extras or not any(key != NAME and key in PROVIDERS for key in extras)
