"""MCP sampling (``sampling/createMessage``) to and from neutral models.

Sampling is deprecated in MCP (SEP-2596) but servers may use it for a year; a
sampling message may hold ``tool_use`` (an assistant's tool calls) and
``tool_result`` (the user's answers) content.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message

from chatschema.errors import ConversionError
from chatschema.interop._common import neutral, neutral_message, plain
from chatschema.interop.mcp._content import (
    NAMESPACE,
    Path,
    UnsupportedPolicy,
    as_json,
    block_from_mcp,
    block_to_mcp,
    fail,
    leftovers,
    mapping,
    mcp_extras,
    string,
)
from chatschema.interop.mcp._results import (
    checked,
    items,
    tool_result_from_mcp,
    tool_result_to_mcp,
)
from chatschema.interop.mcp._tools import from_tools_list, to_tools
from chatschema.validation import parse

__all__ = [
    "from_create_message_request",
    "from_create_message_result",
    "from_sampling_messages",
    "to_create_message_request",
    "to_create_message_result",
    "to_sampling_messages",
]

_ARRAY: Final = "array"
"""Marks a one-item content array (a single block is otherwise written as an object)."""
_MESSAGE: Final = "message"
"""In a tool message's ``extras["mcp"]``: it opened a sampling message (with these keys)."""
_SAMPLING_KINDS = frozenset({"text", "image", "audio"})
_STOP_REASONS: Final = {
    "endTurn": "stop",
    "stopSequence": "stop",
    "maxTokens": "length",
    "toolUse": "tool_calls",
}
_FINISH_REASONS: Final = {"stop": "endTurn", "length": "maxTokens", "tool_calls": "toolUse"}
_SETTINGS: Final = {
    "maxTokens": "max_output_tokens",
    "temperature": "temperature",
    "stopSequences": "stop",
}


# ------------------------------------------------------------------ MCP -> neutral


def _sampling_message(value: Any, path: Path) -> list[dict[str, Any]]:
    data = mapping(value, path, "a sampling message")
    role = data.get("role")
    if role not in ("user", "assistant"):
        raise fail((*path, "role"), f"'role' must be 'user' or 'assistant', not {role!r}", "enum")
    if "content" not in data:
        raise fail((*path, "content"), "'content' is required", "required")
    content = as_json(data["content"])
    kept = leftovers(data, ("role", "content"))
    if isinstance(content, list):
        listed, where = content, (*path, "content")
        if len(content) == 1:
            kept[_ARRAY] = True
    else:
        listed, where = [content], path
    if not listed and role == "user":
        return [{"role": "user", "content": [], **({"extras": {NAMESPACE: kept}} if kept else {})}]
    kinds = [item.get("type") if isinstance(item, Mapping) else None for item in listed]
    key = "content" if isinstance(content, list) else None
    points = [(*where, i) if key else (*path, "content") for i in range(len(listed))]
    if "tool_result" in kinds:
        return _tool_results(listed, kinds, points, kept, role)
    out: dict[str, Any] = {"role": role, "content": []}
    calls: list[dict[str, Any]] = []
    for position, (item, point) in enumerate(zip(listed, points, strict=True)):
        if kinds[position] == "tool_use":
            if role != "assistant":
                raise fail(point, "a 'tool_use' block belongs in an assistant message")
            calls.append(_tool_use(mapping(item, point, "a tool use"), point, position))
        else:
            out["content"].append(block_from_mcp(item, point))
    if calls:
        out["tool_calls"] = calls
    if kept:
        out["extras"] = {NAMESPACE: kept}
    return [out]


def _tool_use(data: dict[str, Any], path: Path, position: int) -> dict[str, Any]:
    call_id = string(data, "id", path, required=True)
    name = string(data, "name", path, required=True)
    arguments = data.get("input")
    if not isinstance(arguments, Mapping):
        raise fail((*path, "input"), "'input' must be an object", "type")
    out: dict[str, Any] = {"id": call_id, "name": name, "arguments": dict(arguments)}
    out["index"] = position
    kept = leftovers(data, ("type", "id", "name", "input"))
    if kept:
        out["extras"] = {NAMESPACE: kept}
    return out


def _tool_results(
    listed: list[Any], kinds: list[Any], points: list[Path], kept: dict[str, Any], role: Any
) -> list[dict[str, Any]]:
    if role != "user":
        raise fail(points[0], "'tool_result' blocks belong in a user message")
    out = []
    for item, kind, point in zip(listed, kinds, points, strict=True):
        if kind != "tool_result":
            raise fail(point, "a user message with tool results holds only tool results (MCP)")
        data = mapping(item, point, "a tool result")
        call_id = string(data, "toolUseId", point, required=True)
        out.append(tool_result_from_mcp(data, call_id, point, record_result_type=False))
    extras = out[0].setdefault("extras", {}).setdefault(NAMESPACE, {})
    extras[_MESSAGE] = kept
    return out


def from_sampling_messages(messages: Any) -> list[Message]:
    """Read MCP ``SamplingMessage`` objects as neutral messages.

    ``tool_use`` content becomes the assistant message's tool calls (their place
    among the blocks in ``ToolCall.index``); a user message of ``tool_result``
    content becomes one tool message per result (``isError`` the status,
    ``structuredContent`` the artifact). ``_meta`` and other keys go to
    ``extras["mcp"]``, so :func:`to_sampling_messages` gives the same JSON back.

    Raises:
        ConversionError: naming the JSON pointer of a value that is not valid MCP.
    """
    listed = items(messages, (), "sampling messages")
    return _read_all(listed, ())


def _read_all(listed: list[Any], path: Path) -> list[Message]:
    out: list[Message] = []
    for i, item in enumerate(listed):
        for message in _sampling_message(item, (*path, i)):
            out.append(cast(Message, checked(message, "Message", (*path, i))))
    return out


def from_create_message_request(params: Any) -> Conversation:
    """Read MCP ``CreateMessageRequest`` params (or the whole request) as a conversation.

    ``systemPrompt`` is a first system message, ``tools`` the tool definitions,
    ``toolChoice`` the tool choice, ``maxTokens`` / ``temperature`` /
    ``stopSequences`` the settings; the rest (``modelPreferences``,
    ``includeContext``, ``metadata``, ``_meta`` ...) goes to ``extras["mcp"]``.
    """
    data = mapping(params, (), "CreateMessageRequest params")
    path: Path = ()
    if data.get("method") == "sampling/createMessage" and "params" in data:
        path = ("params",)
        data = mapping(data["params"], path, "'params'")
    if "messages" not in data:
        raise fail((*path, "messages"), "'messages' is required", "required")
    messages: list[Any] = []
    system = string(data, "systemPrompt", path, required=False)
    if system is not None:
        messages.append({"role": "system", "content": system})
    messages += _read_all(
        items(data["messages"], (*path, "messages"), "'messages'"), (*path, "messages")
    )
    out: dict[str, Any] = {"messages": messages}
    if "tools" in data:
        out["tools"] = from_tools_list(data["tools"], (*path, "tools"))
    kept = leftovers(data, ("messages", "systemPrompt", "tools", "toolChoice", *_SETTINGS))
    choice = data.get("toolChoice")
    if (
        isinstance(choice, Mapping)
        and set(choice) == {"mode"}
        and choice["mode"] in ("auto", "none", "required")
    ):
        out["tool_choice"] = {"type": choice["mode"]}
    elif "toolChoice" in data:
        kept["toolChoice"] = choice
    settings = {name: data[key] for key, name in _SETTINGS.items() if key in data}
    if settings:
        out["settings"] = settings
    if kept:
        out["extras"] = {NAMESPACE: kept}
    return cast(Conversation, checked(out, "Conversation", path))


def from_create_message_result(result: Any) -> AssistantMessage:
    """Read an MCP ``CreateMessageResult`` as a neutral assistant message.

    ``model`` is the message's model; ``stopReason`` its ``raw_finish_reason`` and,
    mapped, its ``finish_reason``; ``_meta`` goes to ``extras["mcp"]``.
    """
    data = mapping(result, (), "a CreateMessageResult")
    model = string(data, "model", (), required=True)
    stop = string(data, "stopReason", (), required=False)
    if data.get("role") != "assistant":
        raise fail(("role",), "a sampled message is read from the assistant role", "enum")
    message = {key: value for key, value in data.items() if key not in ("model", "stopReason")}
    (out,) = _sampling_message(message, ())
    if model:
        out["model"] = model
    if stop is not None:
        out["raw_finish_reason"] = stop
        out["finish_reason"] = _STOP_REASONS.get(stop, "other")
    return cast(AssistantMessage, checked(out, "AssistantMessage", ()))


# ------------------------------------------------------------------ neutral -> MCP


def _content_field(parts: list[dict[str, Any]], kept: dict[str, Any]) -> Any:
    if len(parts) == 1 and not kept.pop(_ARRAY, False):
        return parts[0]
    kept.pop(_ARRAY, None)
    return parts


def _assistant_parts(
    data: Mapping[str, Any], policy: UnsupportedPolicy, index: int
) -> list[dict[str, Any]]:
    content = data.get("content", "")
    blocks = (
        [{"type": "text", "text": content}] if isinstance(content, str) and content else content
    )
    parts: list[dict[str, Any]] = []
    for position, block in enumerate(blocks or []):
        parts += block_to_mcp(
            block,
            policy=policy,
            where="an MCP sampling message",
            kinds=_SAMPLING_KINDS,
            message=index,
            position=position,
        )
    calls = data.get("tool_calls", [])
    placed = all(isinstance(call.get("index"), int) for call in calls)
    for call in sorted(calls, key=lambda c: c.get("index", 0)) if placed else calls:
        use = {
            "type": "tool_use",
            "id": call["id"],
            "name": call["name"],
            "input": call["arguments"],
        }
        use.update(mcp_extras(call))
        at = call["index"] if placed else len(parts)
        parts.insert(min(at, len(parts)), use)
    return parts


def to_sampling_messages(
    messages: Iterable[Message | Mapping[str, Any]] | Conversation,
    *,
    unsupported: UnsupportedPolicy = "error",
) -> list[dict[str, Any]]:
    """Write neutral messages as MCP ``SamplingMessage`` objects (JSON).

    Tool calls become ``tool_use`` content; consecutive tool messages become one user
    message of ``tool_result`` content. A system message has no place among sampling
    messages (it is the request's ``systemPrompt``: see
    :func:`to_create_message_request`) and raises :class:`ConversionError`; blocks a
    sampling message cannot carry follow ``unsupported``.
    """
    out: list[dict[str, Any]] = []
    results: list[dict[str, Any]] | None = None
    for index, message in enumerate(neutral(messages)):
        data = plain(message)
        role = data["role"]
        kept = mcp_extras(data)
        if role == "tool":
            opener = kept.pop(_MESSAGE, None)
            result, rest = tool_result_to_mcp(
                data, policy=unsupported, index=index, default_result_type=None
            )
            part = {"type": "tool_result", "toolUseId": data["tool_call_id"], **result}
            rest.pop(_MESSAGE, None)
            part.update(rest)
            if results is None or isinstance(opener, Mapping):
                head = dict(opener) if isinstance(opener, Mapping) else {}
                results = [part]
                out.append({"role": "user", "content": results, **head})
            else:
                results.append(part)
            continue
        results = None
        if role == "system":
            raise ConversionError(
                "a system message has no place among MCP sampling messages "
                "(to_create_message_request writes it as the systemPrompt)",
                provider=NAMESPACE,
                message_index=index,
            )
        parts = _assistant_parts(data, unsupported, index)
        out.append({"role": role, "content": _content_field(parts, kept), **kept})
    for written in out:  # a lone tool result is written as the object it was read from
        content = written["content"]
        if isinstance(content, list) and content and content[0].get("type") == "tool_result":
            written["content"] = _content_field(content, written)
    return out


def to_create_message_request(
    conversation: Conversation | Mapping[str, Any],
    *,
    unsupported: UnsupportedPolicy = "error",
) -> dict[str, Any]:
    """Write a neutral conversation as MCP ``CreateMessageRequest`` params (JSON).

    A first system message is the ``systemPrompt``; ``settings.max_output_tokens``
    the (required) ``maxTokens``. Settings MCP has no field for raise
    :class:`ConversionError`, as does a missing ``max_output_tokens``.
    """
    parsed = (
        conversation
        if isinstance(conversation, Conversation)
        else parse(conversation, "Conversation")
    )
    data = plain(parsed)
    kept = mcp_extras(data)
    messages = list(parsed.messages)
    out: dict[str, Any] = {}
    if messages and messages[0].role == "system":
        first = plain(messages.pop(0))
        content = first["content"]
        if not isinstance(content, str):
            content = "".join(block["text"] for block in content if block["type"] == "text")
        out["systemPrompt"] = content
    out["messages"] = to_sampling_messages(messages, unsupported=unsupported)
    settings = dict(data.get("settings", {}))
    for key, name in _SETTINGS.items():
        if name in settings:
            out[key] = settings.pop(name)
    if settings:
        raise ConversionError(
            f"MCP sampling has no field for the settings {', '.join(sorted(settings))}",
            provider=NAMESPACE,
        )
    if "maxTokens" not in out:
        raise ConversionError(
            "MCP sampling needs settings.max_output_tokens (maxTokens)", provider=NAMESPACE
        )
    if "tools" in data:
        out["tools"] = to_tools(parsed.tools or [])
    choice = data.get("tool_choice")
    if isinstance(choice, Mapping):
        if choice.get("type") not in ("auto", "none", "required"):
            raise ConversionError(
                f"MCP sampling has no tool choice {choice.get('type')!r}", provider=NAMESPACE
            )
        out["toolChoice"] = {"mode": choice["type"]}
    out.update(kept)
    return out


def to_create_message_result(
    message: AssistantMessage | Mapping[str, Any],
    *,
    model: str | None = None,
    unsupported: UnsupportedPolicy = "error",
) -> dict[str, Any]:
    """Write a neutral assistant message as an MCP ``CreateMessageResult`` (JSON).

    ``model`` (required by MCP) is the message's, else the argument; ``stopReason``
    is the message's ``raw_finish_reason``, else its ``finish_reason`` mapped.
    """
    parsed = neutral_message(message)
    if not isinstance(parsed, AssistantMessage):
        raise ConversionError(
            "a CreateMessageResult is written from an assistant message", provider=NAMESPACE
        )
    data = plain(parsed)
    name = data.get("model", model)
    if name is None:
        raise ConversionError(
            "a CreateMessageResult needs a model (pass model=...)", provider=NAMESPACE
        )
    (out,) = to_sampling_messages([parsed], unsupported=unsupported)
    result: dict[str, Any] = {"role": "assistant", "content": out.pop("content"), "model": name}
    stop = data.get("raw_finish_reason") or _FINISH_REASONS.get(data.get("finish_reason", ""))
    if stop is not None:
        result["stopReason"] = stop
    out.pop("role")
    result.update(out)
    return result
