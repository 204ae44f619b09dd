"""MCP interop: Model Context Protocol results, prompts, sampling and tools as neutral models.

An MCP client receives tool results, prompts and tool lists from servers, and
(deprecated, but supported for a year) sampling requests. This module reads that
JSON, or the ``mcp`` SDK's objects, as chatschema's neutral models, so they reach
any provider codec, and writes neutral models back as MCP JSON that the ``mcp`` SDK
types and the published schema (revision 2026-07-28) accept. It does not import
``mcp``.

- :func:`from_call_tool_result` / :func:`to_call_tool_result`: ``CallToolResult``
  <-> :class:`~chatschema.ToolMessage` (text, image, audio, ``resource_link``,
  embedded ``resource``; ``isError`` <-> ``status``; ``structuredContent`` <->
  ``artifact``);
- :func:`from_prompt_messages` / :func:`to_prompt_messages` and
  :func:`from_get_prompt_result` / :func:`to_get_prompt_result`: ``PromptMessage``
  <-> user and assistant messages;
- :func:`from_sampling_messages` / :func:`to_sampling_messages`,
  :func:`from_create_message_request` / :func:`to_create_message_request` and
  :func:`from_create_message_result` / :func:`to_create_message_result`:
  ``SamplingMessage`` (with ``tool_use`` / ``tool_result`` content) <-> messages with
  tool calls and tool messages;
- :func:`from_tool`, :func:`from_tools` / :func:`to_tool`, :func:`to_tools`:
  ``Tool`` (a ``ListToolsResult``) <-> :class:`~chatschema.ToolDefinition`.

What the neutral model has no field for (``annotations``, ``_meta``, ``icons``, a
tool's ``title`` and ``outputSchema`` ...) is kept in ``extras["mcp"]`` of the block,
message, tool or conversation, so MCP -> neutral -> MCP gives the same JSON. Bad MCP
input raises :class:`~chatschema.errors.ConversionError` naming the JSON pointer of
the value at fault.
"""

from chatschema.interop.mcp._content import NAMESPACE, UnsupportedPolicy
from chatschema.interop.mcp._results import (
    from_call_tool_result,
    from_get_prompt_result,
    from_prompt_messages,
    to_call_tool_result,
    to_get_prompt_result,
    to_prompt_messages,
)
from chatschema.interop.mcp._sampling import (
    from_create_message_request,
    from_create_message_result,
    from_sampling_messages,
    to_create_message_request,
    to_create_message_result,
    to_sampling_messages,
)
from chatschema.interop.mcp._tools import from_tool, from_tools, to_tool, to_tools

__all__ = [
    "NAMESPACE",
    "UnsupportedPolicy",
    "from_call_tool_result",
    "from_create_message_request",
    "from_create_message_result",
    "from_get_prompt_result",
    "from_prompt_messages",
    "from_sampling_messages",
    "from_tool",
    "from_tools",
    "to_call_tool_result",
    "to_create_message_request",
    "to_create_message_result",
    "to_get_prompt_result",
    "to_prompt_messages",
    "to_sampling_messages",
    "to_tool",
    "to_tools",
]
