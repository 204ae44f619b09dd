"""MCP tool results, prompts and tool definitions to and from neutral models."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from chatschema_models.conversation import Conversation
from chatschema_models.message import Message, ToolMessage

from chatschema.errors import ConversionError, Problem, ValidationError, json_pointer
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
    unsupported,
)
from chatschema.validation import parse

__all__ = [
    "blocks_from_mcp",
    "blocks_to_mcp",
    "checked",
    "from_call_tool_result",
    "from_get_prompt_result",
    "from_prompt_messages",
    "items",
    "read_result_type",
    "to_call_tool_result",
    "to_get_prompt_result",
    "to_prompt_messages",
    "tool_result_from_mcp",
    "tool_result_to_mcp",
    "write_result_type",
]

RESULT_TYPE = "resultType"


def checked(data: dict[str, Any], type_name: str, path: Path) -> Any:
    """``data`` parsed as the neutral ``type_name``; a neutral problem is located in MCP."""
    try:
        return parse(data, type_name)
    except ValidationError as error:
        where = json_pointer(path)
        problems = [Problem(where, p.keyword, f"{p.pointer}: {p.message}") for p in error.problems]
        raise ConversionError(
            f"{where or '(root)'}: not a valid neutral {type_name}: {problems[0].message}",
            provider=NAMESPACE,
            problems=problems,
        ) from None


def items(value: Any, path: Path, what: str) -> list[Any]:
    """``value`` as a list (of an ``mcp`` SDK object, its dump), or a located error."""
    value = as_json(value, path)
    if not isinstance(value, list):
        raise fail(path, f"{what} must be an array, not {type(value).__name__}", "type")
    return value


def blocks_from_mcp(content: Any, path: Path = ()) -> list[dict[str, Any]]:
    """MCP content blocks (a list) as neutral block dicts."""
    return [
        block_from_mcp(item, (*path, i)) for i, item in enumerate(items(content, path, "content"))
    ]


def blocks_to_mcp(
    content: str | list[Any],
    *,
    policy: UnsupportedPolicy,
    where: str,
    message: int | None = None,
) -> list[dict[str, Any]]:
    """Neutral content (text, or block dicts) as MCP content blocks."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    out: list[dict[str, Any]] = []
    for position, block in enumerate(content):
        out += block_to_mcp(block, policy=policy, where=where, message=message, position=position)
    return out


def read_result_type(data: Mapping[str, Any], kept: dict[str, Any], path: Path) -> None:
    """Record a result's ``resultType``; ``None`` marks one from before it existed."""
    value = string(data, RESULT_TYPE, path, required=False)
    kept[RESULT_TYPE] = value


def write_result_type(out: dict[str, Any], kept: dict[str, Any], default: str | None) -> None:
    """Write ``resultType`` back as it was read, else ``default`` (when not ``None``)."""
    if RESULT_TYPE in kept:
        value = kept.pop(RESULT_TYPE)
        if value is not None:
            out[RESULT_TYPE] = value
    elif default is not None:
        out[RESULT_TYPE] = default


# ------------------------------------------------------------------------ tool results


def tool_result_from_mcp(
    data: dict[str, Any], tool_call_id: Any, path: Path, *, record_result_type: bool
) -> dict[str, Any]:
    """A ``CallToolResult`` (or a sampling ``tool_result``) as a neutral tool message dict."""
    out: dict[str, Any] = {"role": "tool", "tool_call_id": tool_call_id}
    out["content"] = blocks_from_mcp(data.get("content", []), (*path, "content"))
    used = ["content", "isError", "structuredContent", RESULT_TYPE, "type", "toolUseId"]
    kept = leftovers(data, used)
    if "isError" in data:
        flag = data["isError"]
        if not isinstance(flag, bool):
            raise fail((*path, "isError"), f"'isError' must be a boolean, not {flag!r}", "type")
        if flag:
            out["status"] = "error"
        else:
            kept["isError"] = False  # said explicitly: written back
    if "structuredContent" in data:
        out["artifact"] = data["structuredContent"]
    if record_result_type:
        read_result_type(data, kept, path)
    if kept:
        out["extras"] = {NAMESPACE: kept}
    return out


def tool_result_to_mcp(
    message: Mapping[str, Any],
    *,
    policy: UnsupportedPolicy,
    index: int | None,
    default_result_type: str | None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """A neutral tool message dict as MCP result fields, and what is left of its extras."""
    kept = mcp_extras(message)
    out: dict[str, Any] = {}
    content = message.get("content", "")
    out["content"] = blocks_to_mcp(
        content, policy=policy, where="an MCP tool result", message=index
    )
    if "artifact" in message:
        out["structuredContent"] = message["artifact"]
    if message.get("status") == "error":
        out["isError"] = True
        kept.pop("isError", None)
    elif kept.get("isError") is False:
        out["isError"] = kept.pop("isError")
    write_result_type(out, kept, default_result_type)
    return out, kept


def from_call_tool_result(
    result: Any, tool_call_id: str, *, name: str | None = None
) -> ToolMessage:
    """Read an MCP ``CallToolResult`` as the neutral tool message answering ``tool_call_id``.

    Args:
        result: the result, as JSON (a dict) or an ``mcp.types.CallToolResult``.
        tool_call_id: id of the neutral tool call the result answers (MCP results
            carry none: the caller knows which call it made).
        name: name of the tool, kept as the message's ``name``.

    Content blocks map to text, image, audio, ``resource_link`` and ``resource``
    blocks (their ``annotations`` and ``_meta`` in the block's ``extras["mcp"]``);
    ``isError`` is the ``status``; ``structuredContent`` (any JSON value) is the
    ``artifact``; the result's ``_meta`` and ``resultType`` (``None`` when absent)
    go to the message's ``extras["mcp"]``, so :func:`to_call_tool_result` gives the
    same JSON back.

    Raises:
        ConversionError: when ``result`` is not a valid ``CallToolResult``, naming
            the JSON pointer of the value at fault.
    """
    data = mapping(result, (), "a CallToolResult")
    if "content" not in data:
        raise fail(("content",), "'content' is required", "required")
    out = tool_result_from_mcp(data, tool_call_id, (), record_result_type=True)
    if name is not None:
        out["name"] = name
    return cast(ToolMessage, checked(out, "ToolMessage", ()))


def to_call_tool_result(
    message: ToolMessage | Mapping[str, Any],
    *,
    unsupported: UnsupportedPolicy = "error",
    result_type: str | None = "complete",
) -> dict[str, Any]:
    """Write a neutral tool message as an MCP ``CallToolResult`` (JSON).

    Args:
        message: a :class:`ToolMessage` (or its dict form).
        unsupported: what to do with blocks MCP cannot carry (an image by URL or file
            id, reasoning, video, files ...): ``"error"`` raises
            :class:`~chatschema.errors.UnsupportedContentError`, ``"drop"`` leaves
            them out, ``"placeholder"`` writes a text block saying what was left out.
        result_type: the ``resultType`` written when the message does not record one
            (the 2026-07-28 revision requires it; ``None`` writes none). A message
            read from MCP writes back what it had.

    Raises:
        ConversionError: when ``message`` is not a tool message.
    """
    neutral_form = neutral_message(message)
    if not isinstance(neutral_form, ToolMessage):
        raise ConversionError(
            f"a CallToolResult is written from a tool message, not a {neutral_form.role} message",
            provider=NAMESPACE,
        )
    data = plain(neutral_form)
    out, kept = tool_result_to_mcp(
        data, policy=unsupported, index=None, default_result_type=result_type
    )
    out.update(kept)
    return out


# ------------------------------------------------------------------------ prompts


def _prompt_message(value: Any, path: Path) -> dict[str, Any]:
    data = mapping(value, path, "a prompt message")
    role = data.get("role")
    if role not in ("user", "assistant"):
        raise fail((*path, "role"), f"'role' must be 'user' or 'assistant', not {role!r}", "enum")
    if "content" not in data:
        raise fail((*path, "content"), "'content' is required", "required")
    out: dict[str, Any] = {
        "role": role,
        "content": [block_from_mcp(data["content"], (*path, "content"))],
    }
    kept = leftovers(data, ("role", "content"))
    if kept:
        out["extras"] = {NAMESPACE: kept}
    return out


def from_prompt_messages(messages: Any) -> list[Message]:
    """Read MCP ``PromptMessage`` objects as neutral user and assistant messages.

    One message per prompt message (a ``GetPromptResult``'s ``messages``).

    Raises:
        ConversionError: naming the JSON pointer of a value that is not valid MCP.
    """
    listed = items(messages, (), "prompt messages")
    return [
        cast(Message, checked(_prompt_message(item, (i,)), "Message", (i,)))
        for i, item in enumerate(listed)
    ]


def to_prompt_messages(
    messages: Iterable[Message | Mapping[str, Any]] | Conversation,
    *,
    unsupported: UnsupportedPolicy = "error",
) -> list[dict[str, Any]]:
    """Write neutral user and assistant messages as MCP ``PromptMessage`` objects (JSON).

    A prompt message holds one content block: a message of several blocks becomes
    several prompt messages. System and tool messages and tool calls have no place in
    an MCP prompt and follow ``unsupported`` (as do blocks MCP cannot carry).
    """
    out: list[dict[str, Any]] = []
    for index, message in enumerate(neutral(messages)):
        data = plain(message)
        role = data["role"]
        if role not in ("user", "assistant"):
            for note in unsupported_policy(unsupported, f"a {role} message", index):
                out.append({"role": "user", "content": note})
            continue
        if data.get("tool_calls"):
            for note in unsupported_policy(unsupported, "a tool call", index):
                out.append({"role": role, "content": note})
        kept = mcp_extras(data)
        blocks = blocks_to_mcp(
            data.get("content", ""), policy=unsupported, where="an MCP prompt", message=index
        )
        out += [{"role": role, "content": block, **kept} for block in blocks]
    return out


def unsupported_policy(policy: UnsupportedPolicy, what: str, index: int) -> list[dict[str, Any]]:
    """Notes (or nothing, or an error) for ``what`` an MCP prompt cannot hold."""
    return unsupported(policy, what, "an MCP prompt", index, None)


def from_get_prompt_result(result: Any) -> Conversation:
    """Read an MCP ``GetPromptResult`` as a neutral conversation.

    The messages are read as by :func:`from_prompt_messages`; the result's
    ``description``, ``_meta`` and ``resultType`` go to the conversation's
    ``extras["mcp"]``.
    """
    data = mapping(result, (), "a GetPromptResult")
    if "messages" not in data:
        raise fail(("messages",), "'messages' is required", "required")
    listed = items(data["messages"], ("messages",), "'messages'")
    messages = [_prompt_message(item, ("messages", i)) for i, item in enumerate(listed)]
    kept = leftovers(data, ("messages", RESULT_TYPE))
    read_result_type(data, kept, ())
    out = {"messages": messages, "extras": {NAMESPACE: kept}}
    return cast(Conversation, checked(out, "Conversation", ()))


def to_get_prompt_result(
    conversation: Conversation | Mapping[str, Any],
    *,
    unsupported: UnsupportedPolicy = "error",
    result_type: str | None = "complete",
) -> dict[str, Any]:
    """Write a neutral conversation as an MCP ``GetPromptResult`` (JSON).

    Its tools and settings have no place there and are left out.
    """
    parsed = (
        conversation
        if isinstance(conversation, Conversation)
        else parse(conversation, "Conversation")
    )
    kept = mcp_extras(plain(parsed))
    out: dict[str, Any] = {}
    if "description" in kept:
        out["description"] = kept.pop("description")
    out["messages"] = to_prompt_messages(parsed, unsupported=unsupported)
    write_result_type(out, kept, result_type)
    out.update(kept)
    return out
