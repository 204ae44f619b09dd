"""MCP tool definitions (``Tool``, ``ListToolsResult``) to and from neutral ones."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, cast

from chatschema_models.tool import ToolDefinition

from chatschema.errors import ConversionError, wrong_type
from chatschema.interop._common import plain
from chatschema.interop.mcp._content import (
    NAMESPACE,
    Path,
    as_json,
    fail,
    leftovers,
    mapping,
    mcp_extras,
    string,
)
from chatschema.interop.mcp._results import checked, items
from chatschema.validation import parse

__all__ = ["from_tool", "from_tools", "from_tools_list", "to_tool", "to_tools"]


def _tool_from_mcp(value: Any, path: Path) -> dict[str, Any]:
    data = mapping(value, path, "a tool")
    name = string(data, "name", path, required=True)
    if not name:
        raise fail((*path, "name"), "'name' must not be empty", "minLength")
    if "inputSchema" not in data:
        raise fail((*path, "inputSchema"), "'inputSchema' is required", "required")
    schema = data["inputSchema"]
    if not isinstance(schema, Mapping):
        raise fail((*path, "inputSchema"), "'inputSchema' must be an object", "type")
    out: dict[str, Any] = {"name": name}
    description = string(data, "description", path, required=False)
    if description is not None:
        out["description"] = description
    out["parameters"] = dict(schema)
    kept = leftovers(data, ("name", "description", "inputSchema"))
    if kept:
        out["extras"] = {NAMESPACE: kept}
    return out


def from_tool(tool: Any) -> ToolDefinition:
    """Read an MCP ``Tool`` as a neutral :class:`ToolDefinition`.

    ``inputSchema`` is the ``parameters``; ``title``, ``outputSchema``,
    ``annotations``, ``icons``, ``execution`` and ``_meta`` are kept in
    ``extras["mcp"]`` (no provider is sent them).
    """
    return cast(ToolDefinition, checked(_tool_from_mcp(tool, ()), "ToolDefinition", ()))


def from_tools(tools: Any) -> list[ToolDefinition]:
    """Read MCP tools (a list, or a ``ListToolsResult``) as neutral tool definitions.

    They go to a :class:`~chatschema.Conversation`'s ``tools``, for any provider.
    """
    data = as_json(tools)
    path: Path = ()
    if isinstance(data, Mapping):
        path = ("tools",)
        if "tools" not in data:
            raise fail(path, "'tools' is required", "required")
        data = data["tools"]
    return from_tools_list(data, path)


def from_tools_list(value: Any, path: Path) -> list[ToolDefinition]:
    """A list of MCP tools at ``path`` as neutral tool definitions."""
    listed = items(value, path, "tools")
    return [
        cast(
            ToolDefinition, checked(_tool_from_mcp(item, (*path, i)), "ToolDefinition", (*path, i))
        )
        for i, item in enumerate(listed)
    ]


def to_tool(tool: ToolDefinition | Mapping[str, Any]) -> dict[str, Any]:
    """Write a neutral tool definition as an MCP ``Tool`` (JSON).

    ``strict`` has no MCP field and is left out; a provider-hosted tool (one with a
    ``provider``) is not an MCP tool and raises :class:`ConversionError`.
    """
    parsed = tool if isinstance(tool, ToolDefinition) else parse(tool, "ToolDefinition")
    if parsed.provider is not None:
        raise ConversionError(
            f"tool {parsed.name!r} is hosted by {parsed.provider}, not an MCP tool",
            provider=NAMESPACE,
        )
    data = plain(parsed)
    kept = mcp_extras(data)
    out: dict[str, Any] = {"name": data["name"]}
    if "title" in kept:
        out["title"] = kept.pop("title")
    if "description" in data:
        out["description"] = data["description"]
    out["inputSchema"] = data["parameters"]
    out.update(kept)
    return out


def to_tools(tools: Iterable[ToolDefinition | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Write neutral tool definitions as MCP ``Tool`` objects (JSON).

    Raises:
        ValidationError: when ``tools`` is not a list of tool definitions.
    """
    if isinstance(tools, (str, bytes, Mapping)) or not isinstance(tools, Iterable):
        raise wrong_type(tools, "a list of tool definitions", type_name="tools")
    return [to_tool(tool) for tool in tools]
