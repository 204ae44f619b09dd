"""A Chat Completions request's tools, tool choice and kept data.

The tool definitions and the tool choice ``encode`` writes (functions, custom tools,
a server's own tools, ``allowed_tools``), invalid tool calls sent back, and the copy
and merge of what the neutral model keeps in extras (a key that is not a string is a
located ConversionError).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, cast

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

from chatschema.providers._common import (
    arguments_text,
    extras_of,
    merge_extras,
)
from chatschema.providers.openai_chat.blocks import (
    PythonKey,
    json_copy,
)
from chatschema.providers.openai_chat.wire import (
    CALL_MARKERS,
    NAME,
    TOOL_MARKERS,
)

__all__ = [
    "call_arguments",
    "checked",
    "encode_invalid_call",
    "encode_tool",
    "encode_tool_choice",
    "invalid_call_as_text",
    "is_custom",
    "merge_kept",
    "null_arguments",
]


def checked(value: Any, what: str, index: int | None = None, position: int | None = None) -> Any:
    """A copy of data written as it is kept (extras, parts, schemas).

    Data built in code may hold what JSON cannot: a key that is not a string is a
    ConversionError naming where, never sent on.
    """
    try:
        return json_copy(value)
    except PythonKey as error:
        raise error.error(what, index, position) from None


def merge_kept(
    target: dict[str, Any],
    extras: Mapping[str, Any],
    skip: Collection[str],
    what: str,
    index: int | None = None,
    position: int | None = None,
) -> None:
    """Put kept extras back into a wire object, as ``merge_extras`` does.

    Missing keys are added (copied), objects merged, what the encoder wrote wins,
    keys in ``skip`` (markers) stay out. A key JSON cannot hold (data built in
    code) is a ConversionError naming where, never sent on.
    """
    try:
        _merge(target, extras, skip)
    except PythonKey as error:
        raise error.error(what, index, position) from None


def _merge(target: dict[str, Any], extras: Mapping[Any, Any], skip: Collection[str]) -> None:
    """:func:`merge_kept`, a Python key raising :class:`PythonKey`."""
    for key, value in extras.items():
        if key in skip:
            continue
        if type(key) is not str:
            raise PythonKey(key)
        current = target.get(key, _ABSENT)
        try:
            if current is _ABSENT:
                target[key] = json_copy(value)
            elif isinstance(current, dict) and isinstance(value, Mapping):
                _merge(current, value, ())
        except PythonKey as error:
            error.path.append(key)
            raise


_ABSENT = object()


def null_arguments(extras: Mapping[str, Any]) -> bool:
    """Whether a call's arguments came as ``null`` (OpenRouter, a call without arguments)."""
    return "arguments" in extras and extras["arguments"] is None


def call_arguments(call: ToolCall, extras: Mapping[str, Any]) -> str | None:
    """A function call's ``arguments``: its JSON text, or ``null`` as it came.

    OpenRouter answers a call without arguments with ``"arguments": null``; that
    goes back while the call still has no arguments.
    """
    if not call.arguments and null_arguments(extras):
        return None
    return arguments_text(call, NAME, extras)


def is_custom(model: Any) -> bool:
    """Whether a tool or tool call is a custom (free-form input) one."""
    return extras_of(model, NAME).get("type") == "custom"


def encode_invalid_call(call: InvalidToolCall) -> dict[str, Any]:
    """An invalid tool call, sent back as the model produced it.

    One decoded with an empty id (``extras.id``, which a neutral id cannot be)
    goes back with it.
    """
    extras = extras_of(call, NAME)
    wire: dict[str, Any] = {
        "id": call.id if call.id is not None else extras.get("id"),
        "type": "function",
        "function": {"name": call.name or "", "arguments": call.arguments or ""},
    }
    if extras.get("no_type") is True:
        del wire["type"]
    merge_kept(wire, extras, CALL_MARKERS, "tool call extras")
    return wire


def invalid_call_as_text(call: InvalidToolCall) -> str:
    """An invalid tool call written out, for models without native function calling."""
    return (
        f'<tool_call id="{call.id or ""}" name="{call.name or ""}">'
        f"{call.arguments or ''}</tool_call>"
    )


def encode_tool(tool: ToolDefinition) -> dict[str, Any]:
    """A tool definition: a function, a custom tool, or a server's own tool."""
    extras = extras_of(tool, NAME)
    if tool.provider == NAME and isinstance(extras.get("tool"), Mapping):
        return cast(dict[str, Any], checked(dict(extras["tool"]), "tool"))
    wire: dict[str, Any]
    if is_custom(tool):
        custom: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            custom["description"] = tool.description
        if "format" in extras:
            custom["format"] = checked(extras["format"], "tool format")
        merge_kept(custom, extras, TOOL_MARKERS, "tool extras")
        wire = {"type": "custom", "custom": custom}
    else:
        function: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            function["description"] = tool.description
        if not (extras.get("no_parameters") is True and tool.parameters == {}):
            function["parameters"] = checked(tool.parameters, "tool parameters")
        if tool.strict is not None:
            function["strict"] = tool.strict
        merge_kept(function, extras, TOOL_MARKERS, "tool extras")
        wire = {"type": "function", "function": function}
    fields = extras.get("tool_fields")
    if isinstance(fields, Mapping):
        merge_kept(wire, fields, (), "tool extras")
    return wire


def encode_tool_choice(
    choice: ToolChoice, tools: Sequence[ToolDefinition], explicit_auto: bool = False
) -> dict[str, Any]:
    """``tool_choice`` and ``parallel_tool_calls``.

    ``explicit_auto``: the decoded request wrote ``"auto"`` next to the flag.
    """
    if isinstance(choice, NoneToolChoice):
        return {"tool_choice": "none"}
    if isinstance(choice, AutoToolChoice):
        # "auto" is the API's default when tools are given: with `parallel`, the
        # flag alone says it (the common request shape).
        if choice.parallel is not None:
            if explicit_auto:
                return {"tool_choice": "auto", "parallel_tool_calls": choice.parallel}
            return {"parallel_tool_calls": choice.parallel}
        return {"tool_choice": "auto"}
    result: dict[str, Any]
    if isinstance(choice, RequiredToolChoice):
        result = {"tool_choice": "required"}
    elif isinstance(choice, NamedToolChoice):
        kind = "custom" if choice.name in _custom_names(tools) else "function"
        result = {"tool_choice": {"type": kind, kind: {"name": choice.name}}}
    else:
        result = {"tool_choice": _allowed_tools(choice, tools)}
    if choice.parallel is not None:
        result["parallel_tool_calls"] = choice.parallel
    return result


def _custom_names(tools: Sequence[ToolDefinition]) -> set[str]:
    """The names of the custom (free-form input) tools."""
    return {tool.name for tool in tools if is_custom(tool)}


def _allowed_tools(choice: AllowedToolsChoice, tools: Sequence[ToolDefinition]) -> dict[str, Any]:
    """A limited choice: ``{"type": "allowed_tools", "allowed_tools": {"mode", "tools"}}``.

    SDK ``ChatCompletionAllowedToolChoiceParam``: one entry per name, ``custom`` for
    a custom tool; the entries kept in the choice's extras go back where they were.
    """
    custom = _custom_names(tools)
    entries: list[Any] = []
    for name in choice.names:
        kind = "custom" if name in custom else "function"
        entries.append({"type": kind, kind: {"name": name}})
    extras = checked(extras_of(choice, NAME), "tool_choice extras")
    inner = extras.get("allowed_tools")
    kept = inner.get("tools") if isinstance(inner, dict) else None
    if isinstance(kept, list) and kept:
        entries = _placed(entries, kept, extras.get("tool_positions"))
    wire: dict[str, Any] = {
        "type": "allowed_tools",
        "allowed_tools": {"mode": choice.mode, "tools": entries},
    }
    merge_extras(wire, extras, ("tool_positions",))
    return wire


def _placed(named: list[Any], kept: list[Any], positions: Any) -> list[Any]:
    """Named entries and kept ones, the kept at their recorded positions (else last)."""
    total = len(named) + len(kept)
    if (
        not isinstance(positions, list)
        or len(positions) != len(kept)
        or not all(type(at) is int and 0 <= at < total for at in positions)
        or len(set(positions)) != len(positions)
    ):
        return named + kept
    slots: list[Any] = [None] * total
    taken = set(positions)
    for at, entry in zip(positions, kept, strict=True):
        slots[at] = entry
    names = iter(named)
    for at in range(total):
        if at not in taken:
            slots[at] = next(names)
    return slots
