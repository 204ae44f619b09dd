"""Decoding Chat Completions histories (requests) and responses into the neutral model."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, cast

from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
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
    AllowedToolsChoice,
    AutoToolChoice,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolChoice,
    ToolDefinition,
)
from pydantic import BaseModel

from chatschema.providers._common import (
    decoder,
    describe,
    extras_of,
    no_history,
    parse_arguments,
    set_extras,
)
from chatschema.providers._common.replay import stamped
from chatschema.providers._openai import CUSTOM_TOOL_PARAMETERS
from chatschema.providers.openai_chat.blocks import (
    READ,
    PythonKey,
    audio_block,
    copy_at,
    decode_annotation,
    decode_part,
    default_shape,
    json_copy,
    leftover,
)
from chatschema.providers.openai_chat.details import DETAILS_TEXT, decode_details, details_text
from chatschema.providers.openai_chat.settings import SETTING_WIRE_KEYS, decode_settings
from chatschema.providers.openai_chat.usage import decode_usage
from chatschema.providers.openai_chat.wire import (
    ABSENT,
    EXPLICIT_AUTO,
    FINISH_REASONS,
    NAME,
    REQUEST_KEYS,
    Shape,
)

__all__ = ["decode_conversation", "decode_messages", "decode_response"]


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """Decode Chat Completions request data into a Conversation.

    Args:
        payload: a request body (what :func:`encode` returns), a bare list of
            messages, one message, their JSON text, or official SDK objects
            (``ChatCompletionMessage`` ...).

    A request's settings (``model``, ``max_completion_tokens`` or ``max_tokens``,
    ``temperature``, ``top_p``, ``stop``, ``seed``, the penalties,
    ``response_format``, ``reasoning_effort``) become ``settings``; every other key
    (``n``, ``user``, ``metadata``, ``stream_options``, ``audio`` ...), and a
    ``null`` one, is kept verbatim in ``extras["openai_chat"]`` and sent back by
    :func:`encode`.

    Raises:
        ConversionError: for data that is not Chat Completions messages, naming
            the message and part (a Python key that is not a string included).
    """
    data = READ.json(payload)
    if isinstance(data, dict) and "messages" in data:
        raw_messages = data["messages"]
        if isinstance(raw_messages, BaseModel) or not isinstance(raw_messages, (list, tuple)):
            READ.fail(f"messages must be a list, not {describe(raw_messages)}")
    elif isinstance(data, dict) and "role" in data:
        raw_messages = [data]
        data = {}
    elif isinstance(data, dict) and "choices" in data:
        READ.fail("this is a ChatCompletion response: use decode_response")
    elif isinstance(data, (list, tuple)):
        raw_messages = data
        data = {}
    else:
        READ.fail(no_history(data, "messages", NAME))
    messages = [_decode_message(raw, index) for index, raw in enumerate(raw_messages)]
    fields: dict[str, Any] = {"messages": messages}
    if len(data) > 1:  # a request's other keys (checked apart: messages are hot)
        try:
            _request_fields(data, fields)
        except PythonKey as error:
            raise error.error("request") from None
    return READ.build(Conversation, fields)


def _request_fields(data: dict[str, Any], fields: dict[str, Any]) -> None:
    """Tools, tool choice, settings and the request's other keys (to extras)."""
    extras: dict[str, Any] = {}
    for key, value in data.items():
        if type(key) is not str:
            raise PythonKey(key)
        if key == "messages" or (key in SETTING_WIRE_KEYS and value is not None):
            continue
        if key not in REQUEST_KEYS or value is None:
            extras[key] = copy_at(value, key)  # kept verbatim, a null too
    tools = data.get("tools")
    if tools is not None:
        if not isinstance(tools, (list, tuple)):
            READ.fail(f"tools must be a list, not {describe(tools)}")
        fields["tools"] = [_decode_tool(tool, index) for index, tool in enumerate(tools)]
    custom = frozenset(tool.name for tool in fields.get("tools", ()) if _is_custom_tool(tool))
    choice = _decode_tool_choice(
        data.get("tool_choice"), data.get("parallel_tool_calls"), extras, custom
    )
    if choice is not None:
        fields["tool_choice"] = choice
    settings = decode_settings(data, extras)
    if settings is not None:
        fields["settings"] = settings
    set_extras(fields, NAME, extras)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of :func:`decode_conversation` (same input, same errors)."""
    return decode_conversation(payload).messages


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """Decode a ``ChatCompletion`` (REST JSON or the SDK object) into an AssistantMessage.

    Choice 0 is the message; with ``n > 1`` the other choices are kept, as they
    came, in ``response_metadata["openai_chat"]["choices"]``. Annotations become
    citations on the text; ``audio`` becomes an :class:`AudioBlock` after the
    other content (its ``id`` the block's, the data's media type read from its
    first bytes, ``transcript`` and ``expires_at`` in the block's extras); it goes
    back as ``audio: {"id"}``. ``created``, ``system_fingerprint``,
    ``service_tier``, ``logprobs`` and any other field go to the response metadata.
    Tool calls carry their position in ``tool_calls`` as ``index``
    (the key :func:`decode_stream` merges their fragments by). Appended to a
    history, the message encodes to exactly the assistant message the API expects
    back.

    What servers send is read as their clients read it: a choice without
    ``message`` (Azure's content filter) or no choice at all is a message with no
    content, the rest kept; ``null`` fields are absent ones; ``content`` as one
    part object is that part (``extras.content_shape = "object"``); a tool call
    without id (``""``, as Gemini's compatibility layer sends) or name is an
    ``InvalidToolCall``, as the stream accumulator makes it; a ``usage`` whose
    counts the neutral ``Usage`` cannot hold (``null`` ...) is kept whole in the
    response metadata instead of a ``usage``.

    Raises:
        ConversionError: for data that is not a ChatCompletion.
    """
    data = READ.json(payload)
    if not isinstance(data, dict):
        READ.fail(f"a ChatCompletion must be an object, not {describe(data)}")
    choices = data.get("choices")
    if not isinstance(choices, list):
        READ.fail(f"a ChatCompletion needs a list of choices, not {describe(choices)}")
    # An empty list is a value (the SDK's ChatCompletion takes it): a message with
    # nothing in it, the response's other fields kept.
    choice = READ.object(choices[0], "choice 0", 0) if choices else {}
    raw_message = choice.get("message")
    # Azure OpenAI content filtering: a filtered choice has finish_reason
    # "content_filter" and content_filter_results, and no message (nothing invented).
    message = {} if raw_message is None else READ.object(raw_message, "choice 0 message", 0)
    role = message.get("role")
    if role is not None and role != "assistant":
        READ.fail(f"choice 0 message has role {role!r}", 0)
    try:
        return _response(data, choices, choice, message)
    except PythonKey as error:
        raise error.error("response", 0) from None


def _response(
    data: dict[str, Any], choices: list[Any], choice: dict[str, Any], message: dict[str, Any]
) -> AssistantMessage:
    """:func:`decode_response` of a checked response and its first choice."""
    metadata: dict[str, Any] = {}
    wire, audio = _response_message(message, metadata)
    fields = _assistant_fields(wire, 0, positions=True, audio=audio)
    fields["provider"] = NAME
    for key, target in (("model", "model"), ("id", "response_id")):
        value = data.get(key)
        if isinstance(value, str) and value:
            fields[target] = value
        elif value is not None:
            # not what the API sends (an empty string, Snowflake's id): kept as it came
            metadata[key] = copy_at(value, key)
    copy_at(data.get("object"), "object")  # (Python keys refused; the type is known)
    reason = choice.get("finish_reason")
    if reason is not None:
        raw_reason = READ.string(reason, "finish_reason", 0)
        fields["raw_finish_reason"] = raw_reason
        fields["finish_reason"] = FINISH_REASONS.get(raw_reason, "other")
    usage = data.get("usage")
    if usage is not None:
        neutral, unknown = decode_usage(usage)
        if neutral is not None:
            fields["usage"] = neutral
        if unknown:  # (all of it when the neutral usage cannot hold its counts)
            metadata["usage"] = unknown
    for source, known in ((data, _RESPONSE_KEYS), (choice, _CHOICE_KEYS)):
        metadata.update(
            (key, value) for key, value in leftover(source, known).items() if value is not None
        )
    if choice.get("index") not in (0, None):
        metadata["index"] = copy_at(choice["index"], "choices", 0, "index")
    if len(choices) != 1:
        metadata["choices"] = json_copy(choices[1:])  # (`[]`: the response had none)
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return stamped(READ.build(AssistantMessage, fields, 0))


_RESPONSE_KEYS = frozenset({"id", "model", "object", "choices", "usage"})
_CHOICE_KEYS = frozenset({"index", "message", "finish_reason"})


def _response_message(
    message: dict[str, Any], metadata: dict[str, Any]
) -> tuple[dict[str, Any], AudioBlock | None]:
    """A response message in the shape of the assistant message the API wants back.

    A response's nulls and empty lists mean "nothing" (``content: null`` stays:
    it is what goes back with tool calls). ``audio`` with an id and data is
    returned as a block; without data, it keeps its id and the whole object goes
    to ``metadata``.
    """
    wire = {key: value for key, value in message.items() if value is not None}
    wire["role"] = "assistant"
    wire.setdefault("content", None)
    for key in ("tool_calls", "annotations"):
        if wire.get(key) == []:
            del wire[key]
    audio = wire.get("audio")
    # Audio guide, multi-turn: a later request refers to the reply's audio by its id only
    if isinstance(audio, dict) and isinstance(audio.get("id"), str):
        block = audio_block(audio, 0)
        if block is not None:
            del wire["audio"]
            return wire, block
        metadata["audio"] = json_copy(audio)
        wire["audio"] = {"id": audio["id"]}
    return wire, None


# ------------------------------------------------------------------------ messages


def _decode_message(raw: Any, index: int) -> Message:
    """One history message, by its role."""
    try:
        return _message(raw, index)
    except PythonKey as error:
        raise error.error("message", index) from None


def _message(raw: Any, index: int) -> Message:
    """:func:`_decode_message`, a Python key raising :class:`PythonKey`."""
    if isinstance(raw, BaseModel) and getattr(raw, "role", None) == "assistant":
        # an SDK response message put in a history (``ChatCompletionMessage``)
        metadata: dict[str, Any] = {}
        wire, audio = _response_message(READ.object(raw, "a message", index), metadata)
        fields = _assistant_fields(wire, index, audio=audio)
        if metadata:
            fields["response_metadata"] = {NAME: metadata}
        return READ.build(AssistantMessage, fields, index)
    data = READ.object(raw, "a message", index)
    role = data.get("role")
    if role in ("system", "developer"):
        return _decode_instructions(data, index)
    if role == "user":
        return _decode_user(data, index)
    if role == "assistant":
        return READ.build(AssistantMessage, _assistant_fields(data, index, history=True), index)
    if role == "tool":
        return _decode_tool_message(data, index)
    if role == "function":
        READ.fail(
            "role 'function' (deprecated in favour of tool messages) has no neutral "
            "equivalent; send tool messages",
            index,
        )
    READ.fail(f"unknown role {role!r}", index)


def _name_field(data: Mapping[str, Any], fields: dict[str, Any]) -> bool:
    """Copy a non-empty ``name``; whether there was one."""
    name = data.get("name")
    if isinstance(name, str) and name:
        fields["name"] = name
        return True
    return False


def _decode_content(data: Mapping[str, Any], index: int) -> str | list[ContentBlock]:
    """The content of a system, developer, user or tool message: a string or parts."""
    if "content" not in data:
        READ.fail("content is required", index)
    content = data["content"]
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return [decode_part(part, index, position) for position, part in enumerate(content)]
    READ.fail(f"content must be a string or a list of parts, not {describe(content)}", index)


def _decode_instructions(data: dict[str, Any], index: int) -> SystemMessage:
    """A system or developer message (the role is kept in extras when developer)."""
    fields: dict[str, Any] = {"content": _decode_content(data, index)}
    known = ["role", "content"]
    if _name_field(data, fields):
        known.append("name")
    extras = leftover(data, known)
    if data["role"] == "developer":
        extras["role"] = "developer"
    set_extras(fields, NAME, extras)
    return READ.build(SystemMessage, fields, index)


def _decode_user(data: dict[str, Any], index: int) -> UserMessage:
    """A user message."""
    fields: dict[str, Any] = {"content": _decode_content(data, index)}
    known = ["role", "content"]
    if _name_field(data, fields):
        known.append("name")
    set_extras(fields, NAME, leftover(data, known))
    return READ.build(UserMessage, fields, index)


def _decode_tool_message(data: dict[str, Any], index: int) -> ToolMessage:
    """A tool message: the result of the call ``tool_call_id`` names."""
    call_id = READ.string(data.get("tool_call_id"), "tool_call_id", index)
    if not call_id:
        READ.fail("tool_call_id is empty", index)
    fields: dict[str, Any] = {"tool_call_id": call_id, "content": _decode_content(data, index)}
    known = ["role", "content", "tool_call_id"]
    extras: dict[str, Any] = {}
    if _name_field(data, fields):  # not in the SDK type; some clients send it
        known.append("name")
        extras["send_name"] = True
    extras.update(leftover(data, known))
    set_extras(fields, NAME, extras)
    return READ.build(ToolMessage, fields, index)


def _assistant_fields(
    data: dict[str, Any],
    index: int,
    *,
    positions: bool = False,
    audio: AudioBlock | None = None,
    history: bool = False,
) -> dict[str, Any]:
    """The AssistantMessage fields of a wire assistant message (and its audio output).

    ``history``: the message is part of a request, so reasoning it carries was sent
    to (and accepted by) the server: the block records it (``extras["sent"]``) and
    goes back the same way without the ``reasoning_content`` option.

    ``positions``: give every tool call its position in ``tool_calls`` as ``index``
    (replies do, as streamed tool calls are keyed by it; histories only with invalid
    calls, to keep the order of both kinds).
    """
    fields: dict[str, Any] = {}
    known = ["role", "content"]
    if _name_field(data, fields):
        known.append("name")
    blocks: list[ContentBlock] = []
    derived: dict[str, Any] | None = None
    details = data.get("reasoning_details")  # OpenRouter's (details.py)
    detail_blocks = None if details is None else decode_details(details)
    if detail_blocks is not None:
        known.append("reasoning_details")
    # DeepSeek API "reasoning_content"; vLLM's newer name is "reasoning"
    for field in ("reasoning_content", "reasoning"):
        text = data.get(field)
        if isinstance(text, str):
            if detail_blocks is not None and text == details_text(detail_blocks):
                # OpenRouter's `reasoning`: the details' text, written back from them
                derived = {"field": field, "sent": True} if history else {"field": field}
                known.append(field)
                break
            reasoning: dict[str, Any] = {"text": text, "provider": NAME}
            marks: dict[str, Any] = {"field": "reasoning"} if field == "reasoning" else {}
            if history:
                marks["sent"] = True
            if marks:
                reasoning["extras"] = {NAME: marks}
            blocks.append(ReasoningBlock(**reasoning))
            known.append(field)
            break
    if detail_blocks is not None:
        blocks.extend(detail_blocks)
    content = data.get("content", ABSENT)
    shape: Shape
    annotations = data.get("annotations")
    has_annotations = isinstance(annotations, list) and bool(annotations)
    if has_annotations and isinstance(content, str):
        known.append("annotations")
    if content is ABSENT:
        shape = "absent"
    elif content is None:
        shape = "null"
    elif isinstance(content, str):
        shape = "string"
        text_fields: dict[str, Any] = {"text": content}
        if has_annotations:
            text_fields["annotations"] = [
                decode_annotation(item, index) for item in cast(list[Any], annotations)
            ]
        blocks.append(READ.build(TextBlock, text_fields, index, 0))
    elif isinstance(content, list):
        shape = "list"
        blocks.extend(decode_part(part, index, position) for position, part in enumerate(content))
    elif isinstance(content, dict):
        # One part as an object, not in a list (OpenAI-compatible servers' replies,
        # which their clients take): read as that part, written back as it came.
        shape = "object"
        blocks.append(decode_part(content, index, 0, keep=True))
    else:
        READ.fail(
            f"content must be a string, a list of parts or null, not {describe(content)}", index
        )
    refusal = data.get("refusal")
    if isinstance(refusal, str):
        known.append("refusal")
        blocks.append(RefusalBlock(text=refusal, extras={NAME: {"as_field": True}}))
    if audio is not None:  # a response's audio output (a history's stays in extras)
        blocks.append(audio)
    neutral: str | list[ContentBlock] | None
    if shape == "string" and len(blocks) == 1 and not has_annotations:
        neutral = cast(str, content)
        default: Shape = "string"
    elif shape in ("absent", "null") and not blocks:
        neutral = None
        default = "null"
    else:
        neutral = blocks
        default = default_shape(blocks)
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
    extras = leftover(data, known)
    if derived is not None:
        extras[DETAILS_TEXT] = derived
    if shape != default:
        extras["content_shape"] = shape
    set_extras(fields, NAME, extras)
    return fields


# ------------------------------------------------------------------------ tool calls


def _decode_tool_calls(
    calls: list[Any], index: int, *, positions: bool = False
) -> tuple[list[ToolCall], list[InvalidToolCall]]:
    """An assistant's ``tool_calls``: the valid ones, and those that do not parse."""
    decoded = [_tool_call_fields(call, index, position) for position, call in enumerate(calls)]
    # With invalid calls, `index` keeps the order of both kinds in the one wire array.
    with_index = positions or any(not valid for valid, _ in decoded)
    valid_calls: list[ToolCall] = []
    invalid_calls: list[InvalidToolCall] = []
    for position, (valid, fields) in enumerate(decoded):
        if with_index:
            fields["index"] = position
        if valid:
            valid_calls.append(READ.build(ToolCall, fields, index))
        else:
            invalid_calls.append(READ.build(InvalidToolCall, fields, index))
    return valid_calls, invalid_calls


def _tool_call_fields(raw: Any, index: int, position: int) -> tuple[bool, dict[str, Any]]:
    """``(is_valid, fields)`` of a ToolCall or an InvalidToolCall."""
    data = READ.object(raw, f"tool call {position}", index)
    call_id = data.get("id")
    if call_id is not None:
        call_id = READ.string(call_id, f"tool call {position} id", index)
    # `null` is no type (as in a stream's deltas)
    kind = data.get("type", ABSENT) if data.get("type") is not None else ABSENT
    extras: dict[str, Any] = {}
    if call_id == "":
        # Gemini's OpenAI compatibility answers with `"id": ""`: not a neutral id, kept
        extras["id"] = ""
    fields: dict[str, Any]
    if kind == "custom":
        custom = READ.object(data.get("custom"), f"tool call {position} custom", index)
        name = READ.string(custom.get("name"), f"tool call {position} name", index)
        text = READ.string(custom.get("input"), f"tool call {position} input", index)
        extras["type"] = "custom"
        extras.update(leftover(data, ["id", "type", "custom"]))
        inner = leftover(custom, ["name", "input"])
        if inner:
            extras["custom"] = inner
        if call_id and name:
            fields = {"id": call_id, "name": name, "arguments": {"input": text}}
            set_extras(fields, NAME, extras)
            return True, fields
        raw_input = json.dumps({"input": text})  # (the text decode_stream gives it)
        return False, _invalid_call(call_id, name, raw_input, None, extras)
    if kind is ABSENT:
        extras["no_type"] = True  # some compatible servers leave "type" out
    elif kind != "function":
        READ.fail(f"tool call {position} has unknown type {kind!r}", index)
    function = READ.object(data.get("function"), f"tool call {position} function", index)
    function_name: str | None = None
    if function.get("name") is not None:
        function_name = READ.string(function["name"], f"tool call {position} name", index)
    raw_arguments = function.get("arguments")
    if raw_arguments is None and "arguments" in function:
        # OpenRouter answers a call without arguments with `"arguments": null`
        raw_arguments = "{}"
        extras["arguments"] = None
    raw_arguments = READ.string(raw_arguments, f"tool call {position} arguments", index)
    extras.update(leftover(data, ["id", "type", "function"]))
    inner = leftover(function, ["name", "arguments"])
    if inner:
        extras["function"] = inner
    arguments, error = parse_arguments(raw_arguments)
    if arguments is not None and function_name and call_id:
        # the model's exact text goes back when it is not what encode would write
        if raw_arguments != json.dumps(arguments, ensure_ascii=False):
            extras["arguments"] = raw_arguments
        fields = {"id": call_id, "name": function_name, "arguments": arguments}
        set_extras(fields, NAME, extras)
        return True, fields
    return False, _invalid_call(call_id, function_name, raw_arguments, error, extras)


def _invalid_call(
    call_id: str | None, name: str | None, arguments: str, error: str | None, extras: dict[str, Any]
) -> dict[str, Any]:
    """The InvalidToolCall fields of a call without id or name, or unparsed arguments.

    The error is the one the stream accumulator gives the same call (arguments
    first, then the id, then the name), so both decoders agree.
    """
    if error is None:
        error = "the tool call has no id" if not call_id else "the tool call has no name"
    fields: dict[str, Any] = {"arguments": arguments, "error": error}
    if call_id:
        fields["id"] = call_id
    if name is not None:
        fields["name"] = name
    set_extras(fields, NAME, extras)
    return fields


# ------------------------------------------------------------------------ tools


def _is_custom_tool(tool: ToolDefinition) -> bool:
    """Whether a decoded tool is a custom (free-form input) one."""
    return extras_of(tool, NAME).get("type") == "custom"


def _decode_tool(raw: Any, index: int) -> ToolDefinition:
    """A tool definition: a function or a custom (free-form input) tool."""
    data = READ.object(raw, f"tool {index}", None)
    kind = data.get("type")
    extras: dict[str, Any] = {}
    fields: dict[str, Any]
    if kind == "function":
        function = READ.object(data.get("function"), f"tool {index} function", None)
        name = READ.string(function.get("name"), f"tool {index} name", None)
        fields = {"name": name}
        known = ["name"]
        if isinstance(function.get("description"), str):
            fields["description"] = function["description"]
            known.append("description")
        if "parameters" in function and isinstance(function["parameters"], dict):
            fields["parameters"] = json_copy(function["parameters"])
            known.append("parameters")
        elif function.get("parameters") is None:  # absent or null: no parameters
            fields["parameters"] = {}
            extras["no_parameters"] = True
        if isinstance(function.get("strict"), bool):
            fields["strict"] = function["strict"]
            known.append("strict")
        extras.update(leftover(function, known))
    elif kind == "custom":
        custom = READ.object(data.get("custom"), f"tool {index} custom", None)
        name = READ.string(custom.get("name"), f"tool {index} name", None)
        fields = {"name": name, "parameters": json_copy(CUSTOM_TOOL_PARAMETERS)}
        known = ["name"]
        if isinstance(custom.get("description"), str):
            fields["description"] = custom["description"]
            known.append("description")
        extras["type"] = "custom"
        extras.update(leftover(custom, known))
    elif isinstance(kind, str) and kind:
        # A server's own tool (OpenRouter's "openrouter:web_search" ...): kept whole
        # and sent back to this format only, like the Responses API's hosted tools.
        fields = {"name": kind, "parameters": {}, "provider": NAME}
        set_extras(fields, NAME, {"tool": json_copy(data)})
        return READ.build(ToolDefinition, fields)
    else:
        READ.fail(f"tool {index} has unknown type {kind!r}")
    outer = leftover(data, ["type", kind])
    if outer:
        extras["tool_fields"] = outer
    set_extras(fields, NAME, extras)
    return READ.build(ToolDefinition, fields)


def _decode_tool_choice(
    raw: Any, parallel: Any, extras: dict[str, Any], custom: frozenset[str] = frozenset()
) -> ToolChoice | None:
    """``tool_choice`` and ``parallel_tool_calls`` as one neutral tool choice.

    ``custom``: the names of the request's custom tools. A choice with no neutral
    form (``allowed_tools`` naming no tool, another server's word such as
    Mistral's ``"any"``) stays in ``extras`` as it came.
    """
    if parallel is not None and not isinstance(parallel, bool):
        READ.fail(f"parallel_tool_calls must be true or false, not {describe(parallel)}")
    if raw is None:
        # "auto" is the API's default: the flag alone says it
        return None if parallel is None else AutoToolChoice(parallel=parallel)
    if raw in ("auto", "required"):
        if raw == "auto" and parallel is not None:
            extras[EXPLICIT_AUTO] = True  # the flag alone would say the same
        cls = AutoToolChoice if raw == "auto" else RequiredToolChoice
        return cls(parallel=parallel) if parallel is not None else cls()
    choice: ToolChoice
    if raw == "none":
        choice = NoneToolChoice()
    elif isinstance(raw, dict) and raw.get("type") in ("function", "custom"):
        kind = raw["type"]
        inner = raw.get(kind)
        name = inner.get("name") if isinstance(inner, dict) else None
        if not isinstance(name, str) or not name:
            READ.fail(f"tool_choice names no tool: {raw!r}")
        rest = leftover(raw, ("type", kind))
        inner_rest = leftover(cast(dict[str, Any], inner), ("name",))
        if inner_rest:
            rest[kind] = inner_rest
        if rest:  # keys beside the name: kept under the wire key, merged back
            extras["tool_choice"] = rest
        named = NamedToolChoice(name=name)
        return named if parallel is None else NamedToolChoice(name=name, parallel=parallel)
    elif isinstance(raw, dict) and raw.get("type") == "allowed_tools":
        return _allowed_tools(raw, parallel, extras, custom)
    elif isinstance(raw, str):
        # A compatible server's own word (Mistral's "any"): no neutral form, and a
        # name the server took is not rewritten, so it stays as it came.
        extras["tool_choice"] = raw
        if parallel is not None:
            extras["parallel_tool_calls"] = parallel
        return None
    else:
        READ.fail(f"unknown tool_choice {raw!r}")
    if parallel is not None:
        READ.fail(
            "parallel_tool_calls with tool_choice 'none' has no neutral equivalent "
            "(no tool may be called)"
        )
    return choice


def _allowed_tools(
    raw: dict[str, Any], parallel: bool | None, extras: dict[str, Any], custom: frozenset[str]
) -> AllowedToolsChoice | None:
    """``{"type": "allowed_tools", "allowed_tools": {"mode", "tools"}}`` as a limited choice.

    SDK ``ChatCompletionAllowedToolChoiceParam``: ``tools`` entries are free objects.
    Those written as :func:`~.encode` writes a tool's entry name the allowed tools;
    any other entry is kept whole in the choice's extras (``allowed_tools.tools``,
    with ``tool_positions`` when they were not last). A choice naming no tool
    stays in the request extras, as it came.
    """
    allowed = READ.object(raw.get("allowed_tools"), "tool_choice allowed_tools")
    mode = allowed.get("mode")
    if mode not in ("auto", "required"):
        READ.fail(f"tool_choice allowed_tools mode must be auto or required, not {mode!r}")
    entries = READ.list(allowed.get("tools"), "tool_choice allowed_tools.tools")
    names: list[str] = []
    kept: list[Any] = []
    positions: list[int] = []
    for position, entry in enumerate(entries):
        name = _allowed_name(entry, custom)
        if name is None:
            kept.append(copy_at(entry, "tool_choice", "allowed_tools", "tools", position))
            positions.append(position)
        else:
            names.append(name)
    if not names:  # no neutral form: sent back as it came
        extras["tool_choice"] = copy_at(raw, "tool_choice")
        if parallel is not None:
            extras["parallel_tool_calls"] = parallel
        return None
    choice_extras = leftover(raw, ("type", "allowed_tools"))
    inner = leftover(allowed, ("mode", "tools"))
    if kept:
        inner["tools"] = kept
        if positions != list(range(len(names), len(entries))):
            choice_extras["tool_positions"] = positions
    if inner:
        choice_extras["allowed_tools"] = inner
    fields: dict[str, Any] = {"names": names, "mode": mode}
    if parallel is not None:
        fields["parallel"] = parallel
    set_extras(fields, NAME, choice_extras)
    return READ.build(AllowedToolsChoice, fields)


def _allowed_name(entry: Any, custom: frozenset[str]) -> str | None:
    """The tool an allowed-tools entry names, when encode writes that entry back.

    ``{"type": "function", "function": {"name"}}``, or ``custom`` for a custom tool
    of the request; None for any other entry.
    """
    if not isinstance(entry, dict) or len(entry) != 2:
        return None
    kind = entry.get("type")
    inner = entry.get(kind) if kind in ("function", "custom") else None
    if not isinstance(inner, dict) or len(inner) != 1:
        return None
    name = inner.get("name")
    if not isinstance(name, str) or not name or (kind == "custom") != (name in custom):
        return None
    return name
