"""Short constructors for the common cases.

Each raises :class:`chatschema.ValidationError` naming the field that is wrong,
such as ``/content``, for content of the wrong type as for what the model refuses.

The models take keyword arguments (``UserMessage(content="hi")``); these functions
take the content positionally, which reads well in application code::

    from chatschema import system, user, image

    messages = [system("Be brief."), user(["What is this?", image(url="https://...")])]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from chatschema_models.content import ContentBlock, ImageBlock, TextBlock
from chatschema_models.message import AssistantMessage, SystemMessage, ToolMessage, UserMessage
from chatschema_models.tool import ToolCall

from chatschema.errors import wrong_type

__all__ = ["assistant", "image", "system", "text", "tool_call", "tool_result", "user"]

ContentLike = str | Sequence[str | ContentBlock]


_CONTENT = "a string or a list of strings and content blocks"


def _content(content: ContentLike, type_name: str) -> str | list[ContentBlock]:
    if isinstance(content, str):
        return content
    if not isinstance(content, (list, tuple)):
        raise wrong_type(content, _CONTENT, type_name=type_name, pointer="/content")
    return [TextBlock(text=item) if isinstance(item, str) else item for item in content]


def text(text: str, **fields: Any) -> TextBlock:
    """A text block."""
    return TextBlock(text=text, **fields)


def image(
    *,
    url: str | None = None,
    base64: str | None = None,
    mime_type: str | None = None,
    file_id: str | None = None,
    **fields: Any,
) -> ImageBlock:
    """An image block from a URL, base64 data (with its MIME type) or a file id."""
    given = {"url": url, "base64": base64, "mime_type": mime_type, "file_id": file_id}
    fields.update((key, value) for key, value in given.items() if value is not None)
    return ImageBlock(**fields)


def system(content: ContentLike, **fields: Any) -> SystemMessage:
    """A system message; strings in a list become text blocks."""
    return SystemMessage(content=_content(content, "SystemMessage"), **fields)


def user(content: ContentLike, **fields: Any) -> UserMessage:
    """A user message; strings in a list become text blocks."""
    return UserMessage(content=_content(content, "UserMessage"), **fields)


def assistant(
    content: ContentLike = "", *, tool_calls: Sequence[ToolCall] = (), **fields: Any
) -> AssistantMessage:
    """An assistant message, optionally with tool calls."""
    if tool_calls:
        if not isinstance(tool_calls, (list, tuple)):
            raise wrong_type(
                tool_calls,
                "a list of tool calls",
                type_name="AssistantMessage",
                pointer="/tool_calls",
            )
        fields["tool_calls"] = list(tool_calls)
    return AssistantMessage(content=_content(content, "AssistantMessage"), **fields)


def tool_call(name: str, arguments: dict[str, Any], *, id: str, **fields: Any) -> ToolCall:
    """A tool call the assistant makes."""
    return ToolCall(id=id, name=name, arguments=arguments, **fields)


def tool_result(
    content: ContentLike,
    *,
    tool_call_id: str,
    status: Literal["success", "error"] = "success",
    **fields: Any,
) -> ToolMessage:
    """The result of the tool call ``tool_call_id``."""
    if status != "success":
        fields["status"] = status
    return ToolMessage(
        tool_call_id=tool_call_id, content=_content(content, "ToolMessage"), **fields
    )
