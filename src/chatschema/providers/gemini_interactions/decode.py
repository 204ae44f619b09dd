"""Requests and responses of the Interactions API as neutral models.

``decode_conversation`` reads a ``CreateModelInteraction`` request body:
``system_instruction`` is the system message, ``input`` (a string, a content item, a
list of them, or a list of steps) the messages, ``tools`` the tool definitions,
``generation_config`` the settings and the tool choice; every other key
(``previous_interaction_id``, ``store``, ``background`` ...) is kept in
``Conversation.extras["gemini_interactions"]``. ``decode_response`` reads an
``Interaction``: the steps after the input it echoes are the assistant message.
"""

from __future__ import annotations

from typing import Any

from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message, SystemMessage, UserMessage
from chatschema_models.tool import ToolDefinition

from chatschema._json import copy_json
from chatschema.providers._common import decoder, set_extras
from chatschema.providers._common.replay import stamped
from chatschema.providers.gemini_interactions.blocks import read_item
from chatschema.providers.gemini_interactions.steps import Turn, messages_of
from chatschema.providers.gemini_interactions.usage import kept_usage, usage_of
from chatschema.providers.gemini_interactions.wire import (
    CONTENT_TYPES,
    FINISH,
    INPUT_FORM,
    NAME,
    READ,
    SETTINGS,
)

_INPUT_STEPS = ("user_input", "function_result")
_REQUEST_KEYS = ("model", "system_instruction", "input", "tools", "generation_config")


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """A ``CreateModelInteraction`` request body (JSON, text or SDK object) as a conversation."""
    body = READ.object(READ.json(payload), "an interactions request")
    messages: list[Message] = []
    extras: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    system = body.get("system_instruction")
    if system is not None:
        messages.append(SystemMessage(content=READ.string(system, "system_instruction")))
    if "input" in body:
        messages += _input(body["input"], extras)
    model = body.get("model")
    if isinstance(model, str) and model:
        settings["model"] = model
    elif model is not None:
        extras["model"] = model
    tools = body.get("tools")
    if tools is not None:
        fields["tools"] = [_tool(tool, p) for p, tool in enumerate(READ.list(tools, "tools"))]
    config = body.get("generation_config")
    if config is not None:
        config = READ.object(config, "generation_config")
        rest = _generation(config, settings, fields)
        if rest or not config:  # (what no setting says; an empty object as it came)
            extras["generation_config"] = rest
    for key, value in body.items():
        if key not in _REQUEST_KEYS:
            extras[key] = copy_json(value)
    fields["messages"] = messages
    if settings:
        fields["settings"] = settings
    if extras:
        fields["extras"] = {NAME: extras}
    return READ.build(Conversation, fields)


@decoder(NAME)
def decode_messages(payload: Any) -> list[Message]:
    """The messages of a request body, or of a bare list of steps."""
    data = READ.json(payload) if not isinstance(payload, list) else payload
    if isinstance(data, list):
        return messages_of(data)
    return decode_conversation(data).messages


def _input(value: Any, extras: dict[str, Any]) -> list[Message]:
    """``input`` in any of its forms; the form kept when it is not a list of steps."""
    if isinstance(value, str):
        extras[INPUT_FORM] = "string"
        return [UserMessage(content=value)]
    if isinstance(value, dict):
        extras[INPUT_FORM] = "content"
        return [UserMessage(content=[read_item(value, 0, 0)])]
    items = READ.list(value, "input")
    if not items:
        extras[INPUT_FORM] = "empty"
    elif all(isinstance(i, dict) and _is_content(i.get("type")) for i in items):
        extras[INPUT_FORM] = "contents"
        return [UserMessage(content=[read_item(i, 0, p) for p, i in enumerate(items)])]
    return messages_of(items)


def _tool(tool: Any, position: int) -> ToolDefinition:
    """A tool: a ``function`` declaration, or a hosted tool kept whole."""
    tool = READ.object(tool, f"tools[{position}]")
    if tool.get("type") == "function" and isinstance(tool.get("name"), str):
        fields: dict[str, Any] = {"name": tool["name"]}
        if "description" in tool:
            fields["description"] = tool["description"]
        marks: dict[str, Any] = {}
        parameters = tool.get("parameters")
        if isinstance(parameters, dict):
            fields["parameters"] = copy_json(parameters)
        else:  # (absent, or not an object: kept as it came)
            fields["parameters"] = {}
            marks["parameters"] = copy_json(parameters) if "parameters" in tool else ABSENT
        rest = {
            k: v for k, v in tool.items() if k not in ("type", "name", "description", "parameters")
        }
        marks.update(copy_json(rest))
        if marks:
            set_extras(fields, NAME, marks)
        return READ.build(ToolDefinition, fields)
    kind = tool.get("type")
    name = kind if isinstance(kind, str) and kind else "tool"
    fields = {
        "name": name,
        "parameters": {},
        "provider": NAME,
        "extras": {NAME: {"tool": copy_json(tool)}},
    }
    return READ.build(ToolDefinition, fields)


ABSENT = "absent"
"""The ``parameters`` marker of a function declaration sent without them."""


def _generation(
    config: dict[str, Any], settings: dict[str, Any], fields: dict[str, Any]
) -> dict[str, Any]:
    """The settings and tool choice of ``generation_config``; what is left, as it came."""
    rest: dict[str, Any] = {}
    for key, value in config.items():
        field = SETTINGS.get(key)
        if field is not None and value is not None and _settable(field, value):
            settings[field] = list(value) if field == "stop" else value
        elif key == "tool_choice" and _choice(value) is not None:
            fields["tool_choice"] = _choice(value)
        else:
            rest[key] = copy_json(value)
    return rest


_CHOICES = {"auto": "auto", "none": "none", "any": "required"}


def _choice(value: Any) -> dict[str, Any] | None:
    """The neutral tool choice of ``tool_choice`` (None: kept as it came).

    ``allowed_tools`` with mode ``any`` and one name is a named choice, with more an
    allowed-tools choice that requires a call; mode ``auto`` one that may not.
    """
    if isinstance(value, str):
        return {"type": _CHOICES[value]} if value in _CHOICES else None
    allowed = value.get("allowed_tools") if isinstance(value, dict) and len(value) == 1 else None
    if not isinstance(allowed, dict) or set(allowed) != {"mode", "tools"}:
        return None
    names, mode = allowed["tools"], allowed["mode"]
    if not isinstance(names, list) or not names or not all(isinstance(n, str) and n for n in names):
        return None
    if mode == "any" and len(names) == 1:
        return {"type": "tool", "name": names[0]}
    if mode in ("any", "auto"):
        return {
            "type": "allowed",
            "names": list(names),
            "mode": "required" if mode == "any" else "auto",
        }
    return None


def _settable(field: str, value: Any) -> bool:
    """Whether a ``generation_config`` value fits its neutral setting."""
    if field == "stop":
        return isinstance(value, list) and all(isinstance(s, str) for s in value)
    if field == "reasoning_effort":
        return isinstance(value, str) and bool(value)
    if field in ("max_output_tokens", "seed"):
        return type(value) is int and (field == "seed" or value >= 0)
    return type(value) in (int, float)


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """An ``Interaction`` (JSON, text or SDK object) as the assistant message.

    The steps after the last input step it echoes (``user_input``,
    ``function_result``) are the message's blocks and calls; the echoed steps and
    every key but ``id``, ``model``, ``status`` and ``usage`` are kept in
    ``response_metadata["gemini_interactions"]``.
    """
    body = READ.object(READ.json(payload), "an Interaction")
    steps = READ.list(body.get("steps", []), "steps")
    start = 0
    for position, step in enumerate(steps):
        if isinstance(step, dict) and step.get("type") in _INPUT_STEPS:
            start = position + 1
    turn = Turn(start)
    for position in range(start, len(steps)):
        step = READ.object(steps[position], "a step", None, position)
        if not isinstance(step.get("type"), str):
            READ.fail("a step needs a string 'type'", None, position)
        turn.add(step, 0, position)
    message = turn.message(response=True)
    fields: dict[str, Any] = dict(message.__dict__)
    fields = {k: v for k, v in fields.items() if k in message.model_fields_set}
    kept: dict[str, Any] = {}
    for key, value in body.items():
        if key == "id" and isinstance(value, str):
            fields["response_id"] = value
        elif key == "model" and isinstance(value, str) and value:
            fields["model"] = value
        elif key == "status" and isinstance(value, str):
            fields["raw_finish_reason"] = value
            reason = FINISH.get(value, "other")
            if reason == "stop" and message.tool_calls:
                reason = "tool_calls"
            fields["finish_reason"] = reason
        elif key == "usage" and value is not None:
            fields["usage"] = usage_of(READ.object(value, "usage"))
            rest = kept_usage(value)
            if rest:
                kept["usage"] = rest
        elif key == "steps":
            if start:
                kept["input_steps"] = copy_json(steps[:start])
        else:
            kept[key] = copy_json(value)
    fields["provider"] = NAME
    if kept:
        fields["response_metadata"] = {NAME: kept}
    return stamped(READ.build(AssistantMessage, fields))


def _is_content(kind: Any) -> bool:
    """Whether a ``type`` names a content item (not a step)."""
    return isinstance(kind, str) and kind in CONTENT_TYPES
