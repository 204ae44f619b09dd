"""Bare walks: the least any encoder from these models to each wire format must do.

One function per format, ``(messages: list[Message]) -> Any``: it writes the exact
request shape the codec writes for the plain history (``plain_history.py``): the
same dicts, keys and values, so that the codec's output compares equal. No
options, no structural check, no provider extras, no content-shape rules, no
reasoning. Not usable encoders: floors that show how fast one could be in Python.
Standard library and chatschema's models only.
"""

from __future__ import annotations

import json
from typing import Any

from chatschema_models.conversation import Conversation
from chatschema_models.message import Message
from chatschema_models.tool import ToolDefinition

_dumps = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)`` with one kept encoder (as the codecs write)."""


def anthropic(messages: list[Message]) -> Any:
    """The Messages API request (``system``, ``messages``) for a plain history.

    Leading system messages become ``system``; consecutive messages of one role
    form one turn (tool results first in their user turn), a turn of one message
    with string content keeps the string; assistant text and ``tool_use`` blocks,
    ``tool_result`` blocks with string content, images by URL.
    """
    start = 0
    system: list[str] = []
    while start < len(messages) and messages[start].role == "system":
        content = messages[start].content
        system.append(content if isinstance(content, str) else "")
        start += 1
    out: list[dict[str, Any]] = []
    turn_role = ""
    first: list[dict[str, Any]] = []  # tool results of the open turn
    rest: list[dict[str, Any]] = []  # its other blocks
    single: Any = None  # the open turn's one message, while it has one
    message: Any  # (read by role, not narrowed by class)

    def close() -> None:
        if single is not None and isinstance(single.content, str):
            out.append({"role": turn_role, "content": single.content})
        elif turn_role:
            out.append({"role": turn_role, "content": first + rest})

    for message in messages[start:]:
        role = "assistant" if message.role == "assistant" else "user"
        if role != turn_role:
            close()
            turn_role, first, rest, single = role, [], [], message
        else:
            single = None
        content = message.content
        if message.role == "tool":
            result: dict[str, Any] = {"type": "tool_result", "tool_use_id": message.tool_call_id}
            if content:
                result["content"] = content
            first.append(result)
            single = None
            continue
        if isinstance(content, str):
            if content:
                rest.append({"type": "text", "text": content})
        else:
            for block in content:
                if block.type == "text":
                    rest.append({"type": "text", "text": block.text})
                elif block.type == "image":
                    source = {"type": "url", "url": block.url}
                    rest.append({"type": "image", "source": source})
        if role == "assistant":
            if message.tool_calls:
                single = None
            for call in message.tool_calls:
                rest.append(
                    {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
                )
    close()
    payload: dict[str, Any] = {}
    if system:
        payload["system"] = system[0] if len(system) == 1 else "\n".join(system)
    payload["messages"] = out
    return payload


def gemini(messages: list[Message]) -> Any:
    """The generateContent request (``system_instruction``, ``contents``) for a plain history.

    Leading system messages become ``system_instruction``; each message one content
    (``model`` for the assistant), text parts, ``function_call`` parts with their
    id, ``function_response`` parts named after their call (consecutive tool
    results share one user content), images by URL as ``file_data``.
    """
    start = 0
    system: list[dict[str, Any]] = []
    while start < len(messages) and messages[start].role == "system":
        content = messages[start].content
        if isinstance(content, str):
            system.append({"text": content})
        start += 1
    names: dict[str, str] = {}
    contents: list[dict[str, Any]] = []
    message: Any  # (read by role, not narrowed by class)
    previous = ""
    for message in messages[start:]:
        role = message.role
        content = message.content
        if role == "tool":
            response = {
                "name": names.get(message.tool_call_id, ""),
                "id": message.tool_call_id,
                "response": {"output": content},
            }
            part = {"function_response": response}
            if previous == "tool":
                contents[-1]["parts"].append(part)
            else:
                contents.append({"role": "user", "parts": [part]})
            previous = role
            continue
        parts: list[dict[str, Any]] = []
        if isinstance(content, str):
            if content:
                parts.append({"text": content})
        else:
            for block in content:
                if block.type == "text":
                    parts.append({"text": block.text})
                elif block.type == "image":
                    parts.append({"file_data": {"file_uri": block.url}})
        if role == "assistant":
            for call in message.tool_calls:
                names[call.id] = call.name
                parts.append(
                    {"function_call": {"name": call.name, "args": call.arguments, "id": call.id}}
                )
        contents.append({"role": "model" if role == "assistant" else "user", "parts": parts})
        previous = role
    payload: dict[str, Any] = {}
    if system:
        payload["system_instruction"] = {"parts": system}
    payload["contents"] = contents
    return payload


def openai_chat(messages: list[Message]) -> Any:
    """The Chat Completions request (``messages``) for a plain history.

    One wire dict per message, string content as it is, text and ``image_url``
    parts, tool calls with their arguments written as JSON text, tool results.
    """
    dumps = _dumps
    out: list[dict[str, Any]] = []
    message: Any  # read by role, as the codecs do
    for message in messages:
        role = message.role
        wire: dict[str, Any] = {"role": role}
        if role == "tool":
            wire["tool_call_id"] = message.tool_call_id
        content = message.content
        if isinstance(content, str):
            wire["content"] = content
        else:
            parts: list[dict[str, Any]] = []
            for block in content:
                if block.type == "text":
                    parts.append({"type": "text", "text": block.text})
                elif block.type == "image":
                    url = block.url or f"data:{block.mime_type};base64,{block.base64}"
                    parts.append({"type": "image_url", "image_url": {"url": url}})
            wire["content"] = parts
        if role == "assistant" and message.tool_calls:
            wire["tool_calls"] = [
                {
                    "id": call.id,
                    "type": "function",
                    "function": {"name": call.name, "arguments": dumps(call.arguments)},
                }
                for call in message.tool_calls
            ]
        out.append(wire)
    return {"messages": out}


def gemini_interactions(messages: list[Message]) -> Any:
    """The Interactions API request (``system_instruction``, ``input`` steps) for a plain history.

    Leading system messages become ``system_instruction``; a user message one
    ``user_input`` step (text items, images by URL as ``uri``), an assistant's text one
    ``model_output`` step and each call a ``function_call`` step, a tool result a
    ``function_result`` step with the text as ``result``.
    """
    start = 0
    system: list[str] = []
    while start < len(messages) and messages[start].role == "system":
        content = messages[start].content
        system.append(content if isinstance(content, str) else "")
        start += 1
    steps: list[dict[str, Any]] = []
    append = steps.append
    message: Any  # read by role, as the codecs do
    for message in messages[start:]:
        role = message.role
        content = message.content
        if role == "tool":
            append({"type": "function_result", "call_id": message.tool_call_id, "result": content})
            continue
        items: list[dict[str, Any]] = []
        if isinstance(content, str):
            if content or role == "user":
                items.append({"type": "text", "text": content})
        else:
            for block in content:
                if block.type == "text":
                    items.append({"type": "text", "text": block.text})
                elif block.type == "image":
                    item = {"type": "image", "uri": block.url}
                    if block.mime_type is not None:
                        item["mime_type"] = block.mime_type
                    items.append(item)
        if role == "user":
            append({"type": "user_input", "content": items})
            continue
        if items:
            append({"type": "model_output", "content": items})
        for call in message.tool_calls:
            append(
                {
                    "type": "function_call",
                    "id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
            )
    payload: dict[str, Any] = {}
    if system:
        payload["system_instruction"] = "\n\n".join(system)
    payload["input"] = steps
    return payload


def mistral(messages: list[Message]) -> Any:
    """The Mistral request for a plain history.

    The Chat shape, tool-call ids made 9 characters ``[a-zA-Z0-9]`` (the same hash
    ``encode`` uses, once per id).
    """
    from chatschema.providers.mistral import mistral_id

    request = openai_chat(messages)
    made: dict[str, str] = {}
    for wire in request["messages"]:
        if "tool_call_id" in wire:
            old = wire["tool_call_id"]
            wire["tool_call_id"] = made.get(old) or made.setdefault(old, mistral_id(old))
        for call in wire.get("tool_calls", ()):
            old = call["id"]
            call["id"] = made.get(old) or made.setdefault(old, mistral_id(old))
    return request


def _responses(messages: list[Message], typed: bool) -> Any:
    """The Responses request (``instructions``, ``input``) for a plain history.

    ``typed``: message items say ``"type": "message"``, as Open Responses wants.

    Leading system messages become ``instructions``; then input messages (string
    content, or ``input_text`` / ``input_image`` parts), an assistant's text as a
    message item followed by one ``function_call`` item per tool call (arguments as
    JSON text), tool results as ``function_call_output`` items.
    """
    dumps = _dumps
    start = 0
    instructions: list[str] = []
    while start < len(messages) and messages[start].role == "system":
        content = messages[start].content
        instructions.append(content if isinstance(content, str) else "")
        start += 1
    items: list[dict[str, Any]] = []
    append = items.append
    message: Any  # read by role, as the codecs do
    for message in messages[start:]:
        role = message.role
        content = message.content
        if role == "tool":
            append(
                {"type": "function_call_output", "call_id": message.tool_call_id, "output": content}
            )
            continue
        if role == "assistant":
            if content or not message.tool_calls:
                append(
                    {"type": "message", "role": "assistant", "content": content}
                    if typed
                    else {"role": "assistant", "content": content}
                )
            for call in message.tool_calls:
                append(
                    {
                        "type": "function_call",
                        "call_id": call.id,
                        "name": call.name,
                        "arguments": dumps(call.arguments),
                    }
                )
            continue
        if isinstance(content, str):
            append(
                {"type": "message", "role": role, "content": content}
                if typed
                else {"role": role, "content": content}
            )
            continue
        parts: list[dict[str, Any]] = []
        for block in content:
            if block.type == "text":
                parts.append({"type": "input_text", "text": block.text})
            elif block.type == "image":
                url = block.url or f"data:{block.mime_type};base64,{block.base64}"
                parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
        append(
            {"type": "message", "role": role, "content": parts}
            if typed
            else {"role": role, "content": parts}
        )
    payload: dict[str, Any] = {}
    if instructions:
        payload["instructions"] = "\n".join(instructions)
    payload["input"] = items
    return payload


def openai_responses(messages: list[Message]) -> Any:
    """The Responses request for a plain history (:func:`_responses`)."""
    return _responses(messages, False)


def open_responses(messages: list[Message]) -> Any:
    """The Open Responses request: the Responses walk with typed message items."""
    return _responses(messages, True)


PLAIN_TOOLS: list[dict[str, Any]] = [
    {"name": name, "parameters": {"type": "object"}}
    for name in ("read_file", "run", "search", "edit")
]
"""The tools the plain history calls (``plain_history.py``), declared: Converse wants
``toolConfig`` with them when the messages carry tool calls."""


def plain_input(fmt: str, messages: list[Message]) -> tuple[Any, dict[str, Any]]:
    """What ``encode`` takes for the plain history in one format, and its options.

    The messages alone, except for Converse: the conversation with its tools declared,
    and ``unsupported="placeholder"`` (it takes no image by URL).
    """
    if fmt != "bedrock_converse":
        return messages, {}
    conversation = Conversation.model_construct(
        {"messages", "tools"},
        messages=messages,
        tools=[ToolDefinition(**tool) for tool in PLAIN_TOOLS],
    )
    return conversation, {"unsupported": "placeholder"}


_NO_URL = "[image by URL omitted: not supported by bedrock_converse]"
"""What stands in for an image by URL (Converse takes bytes or S3 only; the bench
encodes with ``unsupported="placeholder"``)."""


def bedrock_converse(messages: list[Message]) -> Any:
    """The Converse keyword arguments (``system``, ``messages``) for a plain history.

    Leading system messages become ``system`` text blocks; consecutive messages of one
    role form one turn (``toolResult`` blocks first in their user turn); content is
    always a list of blocks: text, ``toolUse``, ``toolResult`` with its text, and a
    placeholder text for an image by URL.
    """
    start = 0
    system: list[dict[str, Any]] = []
    while start < len(messages) and messages[start].role == "system":
        content = messages[start].content
        system.append({"text": content if isinstance(content, str) else ""})
        start += 1
    out: list[dict[str, Any]] = []
    turn_role = ""
    first: list[dict[str, Any]] = []  # tool results of the open turn
    rest: list[dict[str, Any]] = []  # its other blocks
    message: Any  # (read by role, not narrowed by class)
    for message in messages[start:]:
        role = "assistant" if message.role == "assistant" else "user"
        if role != turn_role:
            if turn_role:
                out.append({"role": turn_role, "content": first + rest})
            turn_role, first, rest = role, [], []
        content = message.content
        if message.role == "tool":
            result = {
                "toolUseId": message.tool_call_id,
                "content": [{"text": content}] if content else [],
            }
            first.append({"toolResult": result})
            continue
        if isinstance(content, str):
            if content:
                rest.append({"text": content})
        else:
            for block in content:
                if block.type == "text":
                    rest.append({"text": block.text})
                elif block.type == "image":
                    rest.append({"text": _NO_URL})
        if role == "assistant":
            for call in message.tool_calls:
                use = {"toolUseId": call.id, "name": call.name, "input": call.arguments}
                rest.append({"toolUse": use})
    if turn_role:
        out.append({"role": turn_role, "content": first + rest})
    payload: dict[str, Any] = {}
    if system:
        payload["system"] = system
    payload["messages"] = out
    payload["toolConfig"] = {
        "tools": [
            {"toolSpec": {"name": tool["name"], "inputSchema": {"json": tool["parameters"]}}}
            for tool in PLAIN_TOOLS
        ]
    }
    return payload
