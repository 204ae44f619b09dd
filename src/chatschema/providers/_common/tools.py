"""Tools in every codec: argument text, hosted tools, tools written as plain text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from chatschema_models.message import ToolMessage
from chatschema_models.tool import ToolCall, ToolDefinition

from chatschema._arguments import json_text, parse_arguments
from chatschema.errors import Problem
from chatschema.providers._common.checks import structural_error
from chatschema.providers._common.content import extras_of
from chatschema.providers._common.options import Options

__all__ = [
    "application_tools",
    "arguments_text",
    "foreign_tool_problems",
    "is_foreign_tool",
    "parse_arguments",
    "sendable_tools",
    "tool_call_as_text",
    "tool_result_as_text",
    "tools_as_text",
]


def arguments_text(call: ToolCall, provider: str, extras: Mapping[str, Any] | None = None) -> str:
    """The JSON text of a call's arguments for a provider that takes strings.

    The exact text the provider sent is kept in ``extras[provider]["arguments"]``
    by the decoders and reused when it still says the same as ``arguments`` (prompt
    caches depend on the exact bytes); otherwise the arguments are serialized as
    ``json.dumps(arguments, ensure_ascii=False)`` writes them. ``extras``: the
    call's extras for ``provider``, when the caller already has them.
    """
    raw = (extras if extras is not None else extras_of(call, provider)).get("arguments")
    if isinstance(raw, str):
        parsed, error = parse_arguments(raw)
        if error is None and parsed == call.arguments:
            return raw
    return json_text(call.arguments)


# ------------------------------------------------------------------- hosted tools


def application_tools(tools: Sequence[ToolDefinition] | None) -> list[ToolDefinition]:
    """The tools the application runs (no ``provider``): what text rendering describes."""
    return [tool for tool in tools or () if tool.provider is None]


def is_foreign_tool(tool: ToolDefinition, provider: str) -> bool:
    """Whether a tool is hosted by another wire format (``provider`` set, not ours)."""
    return tool.provider is not None and tool.provider != provider


def foreign_tool_problems(
    tools: Sequence[ToolDefinition] | None, options: Options
) -> list[Problem]:
    """``unsupported_content`` at ``/tools/<i>`` for another format's hosted tools.

    Only under ``unsupported="error"`` and with native tools (without them no tool
    definition is sent as such); "drop" and "placeholder" both leave such a tool out.
    """
    if options.unsupported != "error" or not options.native_tools:
        return []
    return [
        Problem(
            f"/tools/{index}",
            "unsupported_content",
            f"{tool.provider} hosted tool {tool.name!r} cannot be sent to {options.provider} "
            "(options: unsupported='drop' or 'placeholder' leave it out)",
        )
        for index, tool in enumerate(tools or ())
        if is_foreign_tool(tool, options.provider)
    ]


def sendable_tools(
    tools: Sequence[ToolDefinition] | None, options: Options
) -> list[ToolDefinition]:
    """The tool definitions ``encode`` sends: other formats' hosted tools left out.

    Under ``unsupported="error"`` such a tool raises (what ``check`` reports); under
    ``"drop"`` and ``"placeholder"`` it is left out (a tool cannot be a text
    placeholder).

    Raises:
        UnsupportedContentError: under ``unsupported="error"``, listing every such tool.
    """
    problems = foreign_tool_problems(tools, options)
    if problems:
        raise structural_error(problems, options.provider)
    return [tool for tool in tools or () if not is_foreign_tool(tool, options.provider)]


# --------------------------------------------------------------- tools as plain text


def tool_call_as_text(call: ToolCall) -> str:
    """A tool call written out, for models without native function calling."""
    arguments = json.dumps(call.arguments, ensure_ascii=False, allow_nan=False)
    return f'<tool_call id="{call.id}" name="{call.name}">{arguments}</tool_call>'


def tool_result_as_text(message: ToolMessage, text: str) -> str:
    """A tool result written out, for models without native function calling."""
    name = f' name="{message.name}"' if message.name else ""
    return (
        f'<tool_result id="{message.tool_call_id}"{name} status="{message.status}">'
        f"{text}</tool_result>"
    )


def tools_as_text(tools: Sequence[ToolDefinition]) -> str:
    """Tool definitions written out, to go with the instructions.

    Hosted tools (``provider`` set) are not written out: only the provider runs
    them, so a model without native tools cannot use them (see
    :func:`application_tools`).
    """
    lines = [
        "You can call these tools. To call one, answer with "
        '<tool_call id="<unique id>" name="<tool name>"><JSON arguments></tool_call>.'
    ]
    for tool in tools:
        if tool.provider is not None:
            continue  # a hosted tool: the application cannot run it from text
        schema = json.dumps(tool.parameters, ensure_ascii=False, allow_nan=False)
        description = f": {tool.description}" if tool.description else ""
        lines.append(f"- {tool.name}{description}\n  parameters: {schema}")
    return "\n".join(lines)
