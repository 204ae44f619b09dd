"""Messages and blocks as readable text, with no model imported.

The text views the message base class offers (:meth:`content_to_str`,
:meth:`pretty_repr` in :mod:`chatschema._wire`) live here, below the models: they
read a message by its fields and its ``role`` tag, never by its class, so the base
classes need nothing above them. :mod:`chatschema.rendering` re-exports them with
the transcript helpers.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from chatschema.errors import wrong_type

if TYPE_CHECKING:
    from chatschema_models.message import Message

__all__ = ["block_to_str", "content_to_str", "pretty_repr", "text_json"]


def text_json(value: Any) -> str:
    """Free-form data (tool arguments) as JSON text.

    Data built in code that JSON cannot hold (nested past the interpreter's limit,
    circular) is shown as a placeholder.
    """
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):
        return "<not representable as JSON: nested too deeply or circular>"


def _source(block: Any) -> str:
    url = getattr(block, "url", None)
    if url is not None:
        if url.startswith("data:"):  # inline data, as a URL: never shown
            head, _, payload = url.partition(",")
            mime = head[5:].split(";")[0] or "data"
            return f"{mime}, {len(payload) * 3 // 4} bytes inline"
        if len(url) > 80:
            return f"{url[:60]}... ({len(url)} characters)"
        return str(url)
    base64 = getattr(block, "base64", None)
    if base64 is not None:
        size = len(base64) * 3 // 4
        return f"{block.mime_type or 'data'}, {size} bytes inline"
    file_id = getattr(block, "file_id", None)
    if file_id is not None:
        return f"file {file_id}"
    return ""


def _transcript(block: Any) -> str | None:
    """The transcript a codec keeps in an audio block's extras, or None.

    ``extras[<format>]["transcript"]``: OpenAI Chat's audio output.
    """
    for value in (block.extras or {}).values():
        if isinstance(value, dict) and isinstance(value.get("transcript"), str):
            return value["transcript"]  # type: ignore[no-any-return]
    return None


_A_MESSAGE = "a message (UserMessage, AssistantMessage ...)"
_READ_FIRST = "to read a dict or another library's message, use coerce_messages() first"


def _message_content(message: Any) -> Any:
    """The content of a message model; a located error for anything else."""
    content = getattr(message, "content", None)
    if not isinstance(getattr(message, "role", None), str) or not isinstance(content, (str, list)):
        raise wrong_type(message, _A_MESSAGE, type_name="message", hint=_READ_FIRST)
    return content


def block_to_str(block: Any) -> str:
    """One content block as a readable string (text as is, others a placeholder).

    Raises:
        ValidationError: for something that is not a content block.
    """
    kind = getattr(block, "type", None)
    if not isinstance(kind, str) or not hasattr(type(block), "model_fields"):
        raise wrong_type(block, "a content block (TextBlock, ImageBlock ...)", type_name="block")
    if kind == "text":
        return str(block.text)
    if kind == "refusal":
        return f"[refusal: {block.text}]"
    if kind == "reasoning":
        shown = block.text if block.text is not None else " ".join(block.summary or ())
        opaque = " (with opaque data)" if block.signature or block.encrypted_content else ""
        return f"[reasoning{opaque}: {shown}]" if shown else f"[reasoning{opaque}]"
    if kind == "text-plain":
        title = f" {block.title}" if block.title else ""
        if block.text is not None:
            return f"[document{title}]\n{block.text}"
        return f"[document{title}: {_source(block)}]"
    if kind == "file":
        name = block.filename or _source(block)
        return f"[file: {name}]"
    if kind == "audio":
        transcript = _transcript(block)
        if transcript is not None:  # a model's spoken reply: what it said
            return f"[audio: {_source(block)}; transcript: {transcript}]"
    if kind in ("image", "audio", "video"):
        return f"[{kind}: {_source(block)}]"
    if kind == "server_tool_call":
        arguments = text_json(block.arguments or {})
        return f"[server tool call {block.name}: {arguments}]"
    if kind == "server_tool_result":
        return f"[server tool result for {block.tool_call_id}]"
    if kind == "resource":
        if block.text is not None:
            return f"[resource {block.uri}]\n{block.text}"
        return f"[resource {block.uri}: {_source(block)}]"
    if kind == "resource_link":
        label = block.title or block.name
        return f"[resource link {label}: {block.uri}]" if label else f"[resource link: {block.uri}]"
    if kind == "compaction":
        opaque = " (with opaque data)" if block.encrypted_content or block.signature else ""
        return f"[compaction{opaque}: {block.text}]" if block.text else f"[compaction{opaque}]"
    return f"[{kind}]"


def content_to_str(message: Any) -> list[str]:
    """The content of a message as a list of readable strings, one per block.

    A string content is one item (none when empty); text blocks are their text;
    media, documents, refusals, reasoning and server tools become short
    placeholders. Base64 data and opaque reasoning data (signatures, encrypted
    content) are never included. For the message's text as one string, use its
    ``text`` property (``message.text``: the text blocks joined).

    Raises:
        ValidationError: for something that is not a message model.
    """
    content = _message_content(message)
    if isinstance(content, str):
        return [content] if content else []
    return [block_to_str(block) for block in content]


def _title(text: str, width: int = 80) -> str:
    padded = f" {text} "
    left = (width - len(padded)) // 2
    return "=" * left + padded + "=" * (width - left - len(padded))


def pretty_repr(message: Message) -> str:
    """A readable, boxed rendering of one message.

    Like LangChain's ``pretty_repr``: a title line with the role (and name), then
    the content, tool calls and tool-result status. Base64 data is summarized, and
    signatures and encrypted reasoning are never shown.

    Raises:
        ValidationError: for something that is not a message model.
    """
    _message_content(message)
    role = message.role.capitalize()
    if message.role == "user":
        role = "Human"
    elif message.role == "assistant":
        role = "Ai"
    lines = [_title(f"{role} Message")]
    if message.name:
        lines.append(f"Name: {message.name}")
    lines.append("")
    parts = content_to_str(message)
    if parts:
        lines.append("\n".join(parts))
    # By the role tag, not the class: this module imports no models.
    if message.role == "assistant":
        calls: Any = getattr(message, "tool_calls", ())
        if calls:
            lines.append("Tool Calls:")
            for call in calls:
                lines.append(f"  {call.name} ({call.id})")
                lines.append(f"    Args: {text_json(call.arguments)}")
        for invalid in getattr(message, "invalid_tool_calls", ()):
            lines.append(f"Invalid Tool Call: {invalid.name} ({invalid.id}): {invalid.error}")
    elif message.role == "tool":
        tool: Any = message
        lines.insert(1, f"Tool Call ID: {tool.tool_call_id}")
        if tool.status != "success":
            lines.append(f"Status: {tool.status}")
    return "\n".join(lines).rstrip("\n")
