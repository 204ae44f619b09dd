"""Reading message-like values (strings, tuples, dicts, LangChain objects) as messages."""

from __future__ import annotations

import collections
import operator
from collections.abc import Iterable, Mapping
from typing import Any, cast

from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)

from chatschema._arguments import parse_arguments
from chatschema.errors import Problem, ValidationError
from chatschema.validation import parse, shown

__all__ = ["MessageLike", "coerce_messages"]

MessageLike = Message | str | tuple[str, Any] | Mapping[str, Any]


_ROLE_ALIASES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "system",
    "tool": "tool",
}


def coerce_messages(messages: MessageLike | Iterable[MessageLike]) -> list[Message]:
    """Turn message-like values into messages.

    Accepts models; a string (a user message); ``(role, content)`` tuples with the
    usual aliases (``human``/``user``, ``ai``/``assistant``, ``system``/``developer``,
    ``tool``); chatschema dicts; OpenAI-style dicts (``tool_calls`` with JSON-string
    ``function.arguments``); LangChain message objects (read as their
    ``model_dump()``; :func:`chatschema.interop.langchain.from_langchain` maps
    their usage and metadata too) and LangChain-style dicts (``{"type": "human",
    "content"}`` or ``message_to_dict``'s ``{"type", "data"}``). A single
    message-like value or an iterable of them. The ``developer`` role becomes a
    system message that both OpenAI formats send back as ``developer``
    (``extras["openai_chat"]["role"]`` and ``extras["openai_responses"]["role"]``,
    as their decoders record it).

    Raises:
        ValidationError: naming the index of the message that could not be read.
    """
    if (
        isinstance(messages, (str, Mapping, tuple))
        or hasattr(messages, "role")
        or _is_langchain_message(type(messages))
    ):
        items: list[Any] = [messages]
    elif isinstance(messages, Iterable):
        items = list(messages)
    else:
        problem = Problem(
            "", "type", f"expected messages or a list of them, not {type(messages).__name__}"
        )
        raise ValidationError([problem], type_name="message list")
    if _all_messages(items):
        return items  # what _coerce_one returns for each: the items themselves
    out: list[Message] = []
    for index, item in enumerate(items):
        try:
            out.append(_coerce_one(item))
        except ValidationError as error:
            problems = [
                Problem(f"/{index}{p.pointer}", p.keyword, p.message) for p in error.problems
            ]
            raise ValidationError(problems, type_name="message list") from None
    return out


# The message classes themselves (not subclasses, which may change attribute lookup).
_MESSAGE_CLASSES = frozenset({SystemMessage, UserMessage, AssistantMessage, ToolMessage})
_role_of = operator.attrgetter("role")


def _all_messages(items: list[Any]) -> bool:
    """Whether :func:`_coerce_one` would return every item as it is (the common case).

    For the message classes, ``hasattr(item, "model_dump")`` holds (BaseModel's
    method) and reading ``role`` is ``hasattr(item, "role")``'s own test; both run
    in C (``map``), without a Python call per message.
    """
    if not set(map(type, items)) <= _MESSAGE_CLASSES:
        return False
    try:
        collections.deque(map(_role_of, items), maxlen=0)
    except AttributeError:
        return False
    return True


def _role(name: Any) -> str:
    role = _ROLE_ALIASES.get(str(name).lower()) if isinstance(name, str) else None
    if role is None:
        raise ValidationError(
            [
                Problem(
                    "",
                    "role",
                    f"unknown role {shown(name)}; expected one of {sorted(_ROLE_ALIASES)}",
                )
            ]
        )
    return role


def _coerce_one(item: Any) -> Message:
    if hasattr(item, "role") and hasattr(item, "model_dump"):
        return cast(Message, item)
    if isinstance(item, str):
        return UserMessage(content=item)
    if _is_langchain_message(type(item)):
        # Read as its dict, like message_to_dict's; chatschema.interop.langchain
        # (from_langchain) maps LangChain's own fields (usage, metadata) in full.
        item = {
            key: value
            for key, value in item.model_dump().items()
            if value != {} and not (value == [] and key != "content")  # unset fields
        }
        if item.get("additional_kwargs", {}).get("__openai_role__") == "developer":
            item["type"] = "developer"  # langchain-openai's mark of the developer role
    if isinstance(item, tuple):
        if len(item) != 2:
            raise ValidationError([Problem("", "type", "a tuple must be (role, content)")])
        data: dict[str, Any] = {"role": item[0], "content": item[1]}
        return cast(Message, parse(_with_role(data), "Message"))
    if not isinstance(item, Mapping):
        raise ValidationError(
            [Problem("", "type", f"cannot read a message from {type(item).__name__}")]
        )
    data = dict(item)
    if "data" in data and "type" in data and isinstance(data["data"], Mapping):
        data = {**data["data"], "type": data["type"]}  # LangChain's message_to_dict
    if "role" not in data and "type" in data:
        data["role"] = data.pop("type")
    data = _with_role(data)
    if data.get("content") is None:
        data["content"] = ""
    # Other producers write null for absent fields (LangChain's id, name ...).
    data = {key: value for key, value in data.items() if value is not None}
    if (
        data["role"] == "assistant"
        and isinstance(data.get("tool_calls"), list)
        and isinstance(data.get("invalid_tool_calls", []), list)
    ):
        # Wrong shapes are left as they are: validation below reports them.
        calls: list[Any] = []
        invalid: list[Any] = list(data.get("invalid_tool_calls", []))
        for call in data["tool_calls"]:
            converted = _tool_call(call)
            is_invalid = isinstance(converted, Mapping) and "error" in converted
            (invalid if is_invalid else calls).append(converted)
        data["tool_calls"] = calls
        if invalid:
            data["invalid_tool_calls"] = invalid
    known = {
        "system": {"role", "content", "id", "name", "metadata", "extras"},
        "user": {"role", "content", "id", "name", "metadata", "extras"},
        "assistant": set(AssistantMessage.model_fields),
        "tool": set(ToolMessage.model_fields),
    }[data["role"]]
    rest = {key: value for key, value in data.items() if key not in known}
    fields = {key: value for key, value in data.items() if key in known}
    if rest:
        extras = dict(fields.get("extras") or {})
        extras.setdefault("coerced", {}).update(rest)
        fields["extras"] = extras
    return cast(Message, parse(fields, "Message"))


def _with_role(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with its role alias resolved; ``developer`` is kept for OpenAI."""
    given = data.get("role")
    data["role"] = _role(given)
    if isinstance(given, str) and given.lower() == "developer":
        extras = dict(data.get("extras") or {})
        for provider in ("openai_chat", "openai_responses"):
            extras[provider] = {**extras.get(provider, {}), "role": "developer"}
        data["extras"] = extras
    return data


def _is_langchain_message(cls: type) -> bool:
    """Whether ``cls`` is a LangChain message class (without importing LangChain)."""
    return any(
        base.__name__ == "BaseMessage" and base.__module__.startswith("langchain_core.messages")
        for base in cls.__mro__
    )


def _tool_call(call: Any) -> Any:
    """A tool call in OpenAI or LangChain form, as a neutral one.

    Arguments that are not a JSON object make an invalid tool call (raw text and
    error kept), as a model produced them.
    """
    if isinstance(call, Mapping) and isinstance(call.get("function"), Mapping):
        function = call["function"]
        raw = function.get("arguments")
        if raw is None or isinstance(raw, Mapping):
            arguments: Any = dict(raw or {})
        else:
            arguments, error = parse_arguments(str(raw))
            if error is not None:
                invalid = {"id": call.get("id"), "name": function.get("name")}
                invalid = {key: value for key, value in invalid.items() if value is not None}
                return {**invalid, "arguments": str(raw), "error": error}
        return {"id": call.get("id"), "name": function.get("name"), "arguments": arguments}
    if isinstance(call, Mapping) and "args" in call and "arguments" not in call:
        fields = {key: value for key, value in call.items() if key not in ("args", "type")}
        return {**fields, "arguments": call["args"]}
    return call
