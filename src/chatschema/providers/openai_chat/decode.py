"""Decoding Chat Completions histories (requests) and responses into the neutral model."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, cast

from chatschema_models.content import ContentBlock, ReasoningBlock, RefusalBlock, TextBlock
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
    ToolChoice,
    ToolDefinition,
)
from pydantic import BaseModel

from chatschema.providers._common import decoder, describe, leftover, parse_arguments, set_extras
from chatschema.providers._openai import CUSTOM_TOOL_PARAMETERS
from chatschema.providers.openai_chat.blocks import (
    READ,
    decode_annotation,
    decode_part,
    default_shape,
)
from chatschema.providers.openai_chat.usage import decode_usage
from chatschema.providers.openai_chat.wire import ABSENT, FINISH_REASONS, NAME, Shape

__all__ = ["decode_conversation", "decode_messages", "decode_response"]


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
        READ.fail(f"expected {{'messages': [...]}} or a list of messages, not {describe(data)}")
    messages = [_decode_message(raw, index) for index, raw in enumerate(raw_messages)]
    fields: dict[str, Any] = {"messages": messages}
    if "tools" in data and data["tools"] is not None:
        tools = data["tools"]
        if not isinstance(tools, (list, tuple)):
            READ.fail(f"tools must be a list, not {describe(tools)}")
        fields["tools"] = [_decode_tool(tool, index) for index, tool in enumerate(tools)]
    choice = _decode_tool_choice(data.get("tool_choice"), data.get("parallel_tool_calls"))
    if choice is not None:
        fields["tool_choice"] = choice
    return READ.build(Conversation, fields)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of :func:`decode_conversation` (same input, same errors)."""
    return decode_conversation(payload).messages


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
    data = READ.json(payload)
    if not isinstance(data, dict):
        READ.fail(f"a ChatCompletion must be an object, not {describe(data)}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        READ.fail("a ChatCompletion needs a non-empty list of choices")
    choice = READ.object(choices[0], "choice 0", 0)
    message = READ.object(choice.get("message"), "choice 0 message", 0)
    if message.get("role", "assistant") != "assistant":
        READ.fail(f"choice 0 message has role {message.get('role')!r}", 0)
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
        raw_reason = READ.string(reason, "finish_reason", 0)
        fields["raw_finish_reason"] = raw_reason
        fields["finish_reason"] = FINISH_REASONS.get(raw_reason, "other")
    usage = data.get("usage")
    if usage is not None:
        fields["usage"], unknown = decode_usage(usage)
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
    return READ.build(AssistantMessage, fields, 0)


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
    # Audio guide, multi-turn: a later request refers to the reply's audio by its id only
    if isinstance(audio, dict) and isinstance(audio.get("id"), str):
        metadata["audio"] = copy.deepcopy(audio)
        wire["audio"] = {"id": audio["id"]}
    return wire


# ------------------------------------------------------------------------ messages


def _decode_message(raw: Any, index: int) -> Message:
    """One history message, by its role."""
    if isinstance(raw, BaseModel) and getattr(raw, "role", None) == "assistant":
        # an SDK response message put in a history (``ChatCompletionMessage``)
        metadata: dict[str, Any] = {}
        wire = _response_message(READ.object(raw, "a message", index), metadata)
        fields = _assistant_fields(wire, index)
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
        return READ.build(AssistantMessage, _assistant_fields(data, index), index)
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
    # DeepSeek API "reasoning_content"; vLLM's newer name is "reasoning"
    for field in ("reasoning_content", "reasoning"):
        text = data.get(field)
        if isinstance(text, str):
            reasoning: dict[str, Any] = {"text": text, "provider": NAME}
            if field == "reasoning":
                reasoning["extras"] = {NAME: {"field": "reasoning"}}
            blocks.append(ReasoningBlock(**reasoning))
            known.append(field)
            break
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
    else:
        READ.fail(
            f"content must be a string, a list of parts or null, not {describe(content)}", index
        )
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
    if not isinstance(call_id, str) or not call_id:
        READ.fail(f"tool call {position} has no id", index)
    kind = data.get("type", ABSENT)
    extras: dict[str, Any] = {}
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
        fields = {"id": call_id, "name": name, "arguments": {"input": text}}
        set_extras(fields, NAME, extras)
        return bool(name), fields
    if kind is ABSENT:
        extras["no_type"] = True  # some compatible servers leave "type" out
    elif kind != "function":
        READ.fail(f"tool call {position} has unknown type {kind!r}", index)
    function = READ.object(data.get("function"), f"tool call {position} function", index)
    name = READ.string(function.get("name"), f"tool call {position} name", index)
    raw_arguments = READ.string(function.get("arguments"), f"tool call {position} arguments", index)
    extras.update(leftover(data, ["id", "type", "function"]))
    inner = leftover(function, ["name", "arguments"])
    if inner:
        extras["function"] = inner
    arguments, error = parse_arguments(raw_arguments)
    if arguments is not None and name:
        # the model's exact text goes back when it is not what encode would write
        if raw_arguments != json.dumps(arguments, ensure_ascii=False):
            extras["arguments"] = raw_arguments
        fields = {"id": call_id, "name": name, "arguments": arguments}
        set_extras(fields, NAME, extras)
        return True, fields
    fields = {
        "id": call_id,
        "name": name,
        "arguments": raw_arguments,
        "error": error or "the tool call has no name",
    }
    set_extras(fields, NAME, extras)
    return False, fields


# ------------------------------------------------------------------------ tools


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
            fields["parameters"] = copy.deepcopy(function["parameters"])
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
        fields = {"name": name, "parameters": copy.deepcopy(CUSTOM_TOOL_PARAMETERS)}
        known = ["name"]
        if isinstance(custom.get("description"), str):
            fields["description"] = custom["description"]
            known.append("description")
        extras["type"] = "custom"
        extras.update(leftover(custom, known))
    else:
        READ.fail(f"tool {index} has unknown type {kind!r}")
    outer = leftover(data, ["type", kind])
    if outer:
        extras["tool_fields"] = outer
    set_extras(fields, NAME, extras)
    return READ.build(ToolDefinition, fields)


def _decode_tool_choice(raw: Any, parallel: Any) -> ToolChoice | None:
    """``tool_choice`` and ``parallel_tool_calls`` as one neutral tool choice."""
    if parallel is not None and not isinstance(parallel, bool):
        READ.fail(f"parallel_tool_calls must be true or false, not {describe(parallel)}")
    if raw is None:
        # "auto" is the API's default: the flag alone says it
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
            READ.fail(f"tool_choice names no tool: {raw!r}")
        named = NamedToolChoice(name=name)
        return named if parallel is None else NamedToolChoice(name=name, parallel=parallel)
    elif isinstance(raw, dict) and raw.get("type") == "allowed_tools":
        READ.fail("tool_choice 'allowed_tools' has no neutral equivalent")
    else:
        READ.fail(f"unknown tool_choice {raw!r}")
    if parallel is not None:
        READ.fail(
            "parallel_tool_calls with tool_choice 'none' has no neutral equivalent "
            "(no tool may be called)"
        )
    return choice
