"""The request around the messages: settings, tools and tool choice, other keys.

Converse keywords and the neutral fields they carry:

- ``modelId``: ``settings.model``;
- ``inferenceConfig``: ``maxTokens``, ``temperature``, ``topP``, ``stopSequences``
  (``settings.max_output_tokens``, ``temperature``, ``top_p``, ``stop``);
- ``additionalModelRequestFields``: ``top_k`` (``settings.top_k``) and ``thinking``
  (``settings.thinking_budget``: ``{"type": "enabled", "budget_tokens": n}``, and 0
  for ``{"type": "disabled"}``), as Anthropic's Claude models on Bedrock take them;
- ``outputConfig``: ``textFormat`` of type ``json_schema`` (``settings.response_format``,
  the schema sent as JSON text) and ``effort`` (``settings.reasoning_effort``);
- ``toolConfig``: ``tools`` and ``toolChoice``.

Every other key, and the unmapped rest of these, stays verbatim in
``Conversation.extras["bedrock_converse"]``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from chatschema_models.conversation import (
    GenerationSettings,
    JsonSchemaResponseFormat,
)
from chatschema_models.tool import (
    AllowedToolsChoice,
    AutoToolChoice,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolChoice,
    ToolDefinition,
)

from chatschema.providers._common import (
    extras_of,
    foreign_tool_problems,
    is_foreign_tool,
    json_text,
    raise_problems,
)
from chatschema.providers.bedrock_converse.blocks import cache_point, reader
from chatschema.providers.bedrock_converse.wire import (
    CACHE_POINT,
    DOCUMENT_NAME,
    DOCUMENT_NAME_BAD,
    INFERENCE,
    NAME,
    NO_MESSAGES,
    SCHEMA_TEXT,
    THINKING,
    TOOL_NAME,
    TOP_K,
    UNSUPPORTED_SETTINGS,
)

if TYPE_CHECKING:
    from chatschema.providers.bedrock_converse.encode import _Encoder

BOOKKEEPING = frozenset({SCHEMA_TEXT, NO_MESSAGES})
"""Conversation extras keys that are this codec's notes, never request keys."""

# ========================================================================= decode


def read_request(
    data: dict[str, Any],
    fields: dict[str, Any],
    system: Callable[[Any, int | None], None],
) -> Any:
    """Read a request's top level into conversation ``fields``; returns its messages.

    ``system`` decodes the top-level ``system`` list.
    """
    settings: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    for key, value in data.items():
        if key == "messages":
            continue
        if key == "modelId" and isinstance(value, str) and value:
            settings["model"] = value
        elif key == "system":
            if isinstance(value, list) and not value:
                extras["system"] = []  # an empty system list, sent back as it came
            else:
                system(value, None)
        elif key == "inferenceConfig" and isinstance(value, dict):
            rest = _read_inference(value, settings)
            if rest or not value:
                extras[key] = rest
        elif key == "additionalModelRequestFields" and isinstance(value, dict):
            rest = _read_additional(value, settings)
            if rest or not value:
                extras[key] = rest
        elif key == "outputConfig" and isinstance(value, dict):
            rest = _read_output(value, settings, extras)
            if rest or not value:
                extras[key] = rest
        elif key == "toolConfig" and isinstance(value, dict):
            rest = _read_tools(value, fields)
            if rest or not value:
                extras[key] = rest
        else:
            extras[key] = value  # every other request key, verbatim
    if "messages" not in data:
        extras[NO_MESSAGES] = True  # none sent back while there are none
    if settings:
        fields["settings"] = reader.build(GenerationSettings, settings)
    if extras:
        fields["extras"] = {NAME: extras}
    return data.get("messages", [])


def _read_inference(value: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """``inferenceConfig`` into settings; returns what stays in extras."""
    rest: dict[str, Any] = {}
    for key, item in value.items():
        field = INFERENCE.get(key)
        if field is not None and _takes(field, item):
            settings[field] = item
        else:
            rest[key] = item
    return rest


def _takes(field: str, value: Any) -> bool:
    """Whether an ``inferenceConfig`` value is one its settings field takes."""
    if field == "max_output_tokens":
        return type(value) is int and value >= 0
    if field == "stop":
        return isinstance(value, list) and all(isinstance(text, str) for text in value)
    return type(value) in (int, float)


def _read_additional(value: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """``additionalModelRequestFields``: ``top_k`` and ``thinking`` into settings."""
    rest = dict(value)
    top_k = value.get(TOP_K)
    if type(top_k) is int:
        settings["top_k"] = top_k
        del rest[TOP_K]
    thinking = value.get(THINKING)
    if isinstance(thinking, dict):
        kind = thinking.get("type")
        budget = thinking.get("budget_tokens")
        if kind == "enabled" and type(budget) is int:
            settings["thinking_budget"] = budget
            left = {k: v for k, v in thinking.items() if k not in ("type", "budget_tokens")}
        elif kind == "disabled" and "budget_tokens" not in thinking:
            settings["thinking_budget"] = 0
            left = {k: v for k, v in thinking.items() if k != "type"}
        else:
            left = thinking  # adaptive and others: no neutral equivalent
        if left:
            rest[THINKING] = left
        else:
            del rest[THINKING]
    return rest


def _read_output(
    value: dict[str, Any], settings: dict[str, Any], extras: dict[str, Any]
) -> dict[str, Any]:
    """``outputConfig``: ``effort`` and a JSON-schema ``textFormat`` into settings."""
    rest = dict(value)
    effort = value.get("effort")
    if isinstance(effort, str) and effort:
        settings["reasoning_effort"] = effort
        del rest["effort"]
    text_format = value.get("textFormat")
    structure = text_format.get("structure") if isinstance(text_format, dict) else None
    definition = structure.get("jsonSchema") if isinstance(structure, dict) else None
    if (
        isinstance(text_format, dict)
        and set(text_format) == {"type", "structure"}
        and text_format["type"] == "json_schema"
        and isinstance(structure, dict)
        and set(structure) == {"jsonSchema"}
        and isinstance(definition, dict)
        and isinstance(definition.get("schema"), str)
        and set(definition) <= {"schema", "name", "description"}
        and all(isinstance(item, str) for item in definition.values())
        and definition.get("name") != ""
    ):
        try:
            schema = json.loads(definition["schema"])
        except (ValueError, RecursionError):
            schema = None
        if isinstance(schema, dict):
            response: dict[str, Any] = {"json_schema": schema}
            response.update((k, v) for k, v in definition.items() if k != "schema")
            settings["response_format"] = reader.build(JsonSchemaResponseFormat, response)
            if json_text(schema) != definition["schema"]:
                extras[SCHEMA_TEXT] = definition["schema"]  # the exact text, sent back
            del rest["textFormat"]
    return rest


def _read_tools(value: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
    """``toolConfig``: tool definitions and the tool choice; returns the rest."""
    rest = dict(value)
    tools = value.get("tools")
    if isinstance(tools, list):
        fields["tools"] = _tool_definitions(tools)
        if tools:
            del rest["tools"]
        # else kept too: ``tools: []`` goes back as it came (tool_config), while an
        # empty tool list from another format is not sent (ToolConfiguration.tools:
        # at least one, in the API reference and botocore)
    choice = value.get("toolChoice")
    if choice is not None:
        decoded = _tool_choice(choice)
        if decoded is not None:
            fields["tool_choice"] = decoded
            del rest["toolChoice"]
    return rest


def _tool_definitions(tools: list[Any]) -> list[ToolDefinition]:
    """``toolSpec`` entries as tools; ``systemTool`` ones as Bedrock's hosted tools.

    A ``cachePoint`` after a tool is kept in that tool's extras.
    """
    out: list[ToolDefinition] = []
    for position, raw in enumerate(tools):
        marker = cache_point(raw)
        if marker is not None and out and CACHE_POINT not in extras_of(out[-1], NAME):
            previous = out[-1]
            extras = dict(previous.extras or {})
            extras[NAME] = {**extras.get(NAME, {}), CACHE_POINT: marker}
            out[-1] = previous.model_copy(update={"extras": extras})
            continue
        if not isinstance(raw, dict) or len(raw) != 1:
            reader.fail(f"toolConfig.tools[{position}] must be an object with one member")
        ((key, value),) = raw.items()
        spec = value if isinstance(value, dict) else {}
        name = spec.get("name")
        schema = spec.get("inputSchema")
        fields: dict[str, Any] = {}
        extras_: dict[str, Any] = {}
        if (
            key == "toolSpec"
            and isinstance(name, str)
            and isinstance(schema, dict)
            and set(schema) == {"json"}
            and isinstance(schema["json"], dict)
        ):
            fields.update(name=name, parameters=schema["json"])
            for item, data in spec.items():
                if item == "description" and isinstance(data, str):
                    fields["description"] = data
                elif item == "strict" and isinstance(data, bool):
                    fields["strict"] = data
                elif item not in ("name", "inputSchema"):
                    extras_[item] = data
        elif isinstance(name, str) and name:
            # a systemTool (Nova grounding, code interpreter ...): hosted by Bedrock
            fields.update(name=name, parameters={}, provider=NAME)
            extras_[key] = {k: v for k, v in spec.items() if k != "name"}
        else:
            reader.fail(f"toolConfig.tools[{position}] is not a tool this codec can read")
        if extras_:
            fields["extras"] = {NAME: extras_}
        out.append(reader.build(ToolDefinition, fields))
    return out


def _tool_choice(raw: Any) -> ToolChoice | None:
    """``toolChoice``: ``auto`` / ``any`` / ``tool``; None for a choice kept in extras."""
    if not isinstance(raw, dict) or len(raw) != 1:
        return None
    ((key, value),) = raw.items()
    if not isinstance(value, dict):
        return None
    if key == "auto" and not value:
        return AutoToolChoice()
    if key == "any" and not value:
        return RequiredToolChoice()
    if (
        key == "tool"
        and set(value) == {"name"}
        and isinstance(value["name"], str)
        and value["name"]
    ):
        return NamedToolChoice(name=value["name"])
    return None


# ========================================================================= encode


def write_settings(encoder: _Encoder, payload: dict[str, Any]) -> None:
    """The settings in their Converse keys, the conversation's own extras merged back.

    A setting Converse cannot say goes to the ``unsupported_settings`` policy at
    ``/settings/<field>``.
    """
    conversation = encoder.conversation
    settings = conversation.settings
    extras = extras_of(conversation, NAME)
    if settings is not None:
        _settings(encoder, settings, payload, extras)
    if extras.get(NO_MESSAGES) and not payload["messages"]:
        del payload["messages"]
    for key, value in extras.items():
        if key in BOOKKEEPING:
            continue
        current = payload.get(key)
        if current is None:
            payload[key] = _copy(value)
        elif isinstance(current, dict) and isinstance(value, dict):
            _merge(current, value)


def _settings(
    encoder: _Encoder,
    settings: GenerationSettings,
    payload: dict[str, Any],
    extras: dict[str, Any],
) -> None:
    """Write the settings that are set; refuse the ones Converse has no key for."""
    if settings.model is not None:
        payload["modelId"] = settings.model
    inference: dict[str, Any] = {}
    for key, field in INFERENCE.items():
        value = getattr(settings, field)
        if value is not None:
            inference[key] = list(value) if field == "stop" else value
    if inference:
        payload["inferenceConfig"] = inference
    additional: dict[str, Any] = {}
    if settings.top_k is not None:
        additional[TOP_K] = settings.top_k
    budget = settings.thinking_budget
    if budget is not None:
        if budget > 0:
            additional[THINKING] = {"type": "enabled", "budget_tokens": budget}
        elif budget == 0:
            additional[THINKING] = {"type": "disabled"}
        else:
            encoder.setting("thinking_budget", f"{budget} (dynamic) has no Converse form")
    if additional:
        payload["additionalModelRequestFields"] = additional
    output: dict[str, Any] = {}
    if settings.reasoning_effort is not None:
        output["effort"] = settings.reasoning_effort
    response = settings.response_format
    if response is not None:
        if isinstance(response, JsonSchemaResponseFormat):
            if response.strict is not None:
                encoder.setting("response_format", "`strict` has no Converse form")
            kept = extras.get(SCHEMA_TEXT)
            schema = (
                kept
                if isinstance(kept, str) and _same_json(kept, response.json_schema)
                else json_text(response.json_schema)
            )
            definition: dict[str, Any] = {"schema": schema}
            if response.name is not None:
                definition["name"] = response.name
            if response.description is not None:
                definition["description"] = response.description
            output["textFormat"] = {"type": "json_schema", "structure": {"jsonSchema": definition}}
        elif response.type == "json_object":
            encoder.setting("response_format", "json_object: Converse takes only a JSON schema")
        # a text format is Converse's default: nothing to send
    if output:
        payload["outputConfig"] = output
    for field in UNSUPPORTED_SETTINGS:
        if getattr(settings, field) is not None:
            encoder.setting(field, "Converse has no such setting")


def _same_json(text: str, value: Any) -> bool:
    """Whether JSON text says exactly ``value``."""
    try:
        return bool(json.loads(text) == value)
    except (ValueError, RecursionError):
        return False


def _copy(value: Any) -> Any:
    """A deep copy of JSON-like data (bytes pass through)."""
    if isinstance(value, dict):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _merge(target: dict[str, Any], extras: dict[str, Any]) -> None:
    """Kept keys added where missing, objects merged; what was written wins."""
    for key, value in extras.items():
        current = target.get(key)
        if key not in target:
            target[key] = _copy(value)
        elif isinstance(current, dict) and isinstance(value, dict):
            _merge(current, value)


def tool_choice_wire(encoder: _Encoder, choice: ToolChoice) -> dict[str, Any] | None:
    """``toolChoice``: ``auto`` / ``any`` / ``tool``; others to the unsupported policy."""
    if isinstance(choice, NoneToolChoice):
        # API reference, ToolChoice: auto, any or tool; no "none"
        encoder.choice("tool_choice none: Converse has no such choice")
        return None
    if isinstance(choice, AllowedToolsChoice):
        encoder.choice("tool_choice limited to named tools: Converse has no such choice")
        return None
    # ``parallel`` has no Converse switch: left out (documented, as for Gemini)
    if isinstance(choice, NamedToolChoice):
        return {"tool": {"name": choice.name}}
    if isinstance(choice, RequiredToolChoice):
        return {"any": {}}
    return {"auto": {}}


def tool_config(encoder: _Encoder) -> dict[str, Any] | None:
    """``toolConfig``: the tool definitions and the tool choice (None without tools).

    Other formats' hosted tools go to the unsupported policy; a cache point kept on a
    tool follows it.
    """
    conversation = encoder.conversation
    if not encoder.options.native_tools:
        return None
    tools = conversation.tools or []
    if not encoder.collect and tools:
        raise_problems(foreign_tool_problems(tools, encoder.options), NAME)
    out: list[dict[str, Any]] = []
    for position, tool in enumerate(tools):
        if is_foreign_tool(tool, NAME):
            continue  # left out under "drop" and "placeholder": a tool has no text form
        extras = extras_of(tool, NAME) if tool.extras else {}
        if encoder.collect and not TOOL_NAME.fullmatch(tool.name):
            encoder.problem(
                f"/tools/{position}/name",
                "tool_name",
                f"tool name {tool.name!r}: Converse takes [a-zA-Z0-9_-], 1 to 64 characters",
            )
        if tool.provider == NAME:  # a systemTool of Bedrock's (or another member)
            key = next((k for k in extras if k != CACHE_POINT), "systemTool")
            spec = dict(extras.get(key) or {})
            spec["name"] = tool.name
            wire: dict[str, Any] = {key: spec}
        else:
            spec = {"name": tool.name}
            if tool.description:
                spec["description"] = tool.description
            spec["inputSchema"] = {"json": tool.parameters}
            if tool.strict is not None:
                spec["strict"] = tool.strict
            for key, value in extras.items():
                if key != CACHE_POINT:
                    spec.setdefault(key, value)
            wire = {"toolSpec": spec}
        out.extend(encoder.cached(wire, None, extras, f"/tools/{position}"))
    choice = conversation.tool_choice
    if not out:
        kept = extras_of(conversation, NAME).get("toolConfig") if conversation.extras else None
        if not (tools == [] and isinstance(kept, dict) and kept.get("tools") == []):
            # API reference, ToolConfiguration: toolChoice goes inside it, with tools
            # only; without tools a choice says nothing and is left out (documented)
            return None
        # a request's ``toolConfig.tools: []`` goes back as it came, its choice too
    config: dict[str, Any] = {"tools": out}
    if choice is not None:
        wire_choice = tool_choice_wire(encoder, choice)
        if wire_choice is not None:
            config["toolChoice"] = wire_choice
    return config


# ================================================================ request shape

NOT_JSON: Any = object()
"""What :func:`json_value` gives for text that is not JSON."""
_WHITE = re.compile(r"\s+")


def json_value(text: str) -> Any:
    """JSON text as a value, or ``NOT_JSON``."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return NOT_JSON


def document_name(name: str | None, index: int, position: int, kept: Any = None) -> str:
    """The ``name`` of a document block: as it came, or one Converse takes.

    ``kept``: the wire name a decoded request had (``extras[NAME]["name"]``, kept
    when it is outside the rule below): while the neutral name is still that one it
    goes back as it came, whatever it holds, since the API took it. Any other name
    is one this codec makes (from a filename or a title of the neutral model), and
    follows the API reference, DocumentBlock.name: letters, digits, single spaces,
    hyphens, parentheses, square brackets; 200 characters at most.
    """
    if name is not None and name == kept:
        return name  # as the request had it
    if name and DOCUMENT_NAME.fullmatch(name):
        return name
    if name:
        # a name made here: AWS API reference, DocumentBlock.name (the characters above)
        cleaned = _WHITE.sub(" ", DOCUMENT_NAME_BAD.sub("-", name)).strip()[:200]
        if cleaned:
            return cleaned
    return f"document-{index}-{position}"


def interleave(
    blocks: list[list[dict[str, Any]]], calls: list[tuple[int | None, list[dict[str, Any]]]]
) -> list[dict[str, Any]]:
    """Put tool calls (with their cache points) back at their ``index`` among the blocks.

    Calls without an index go last, in order; an index past the end puts the call
    after everything before it.
    """
    out: list[dict[str, Any]] = []
    if not calls:
        for group in blocks:
            out.extend(group)
        return out
    placed = sorted(
        (item for item in calls if item[0] is not None and item[1]), key=lambda item: item[0] or 0
    )
    block = call = 0
    while block < len(blocks) or call < len(placed):
        position = placed[call][0] if call < len(placed) else None
        if position is not None and (position <= len(out) or block == len(blocks)):
            out.extend(placed[call][1])
            call += 1
        else:
            out.extend(blocks[block])
            block += 1
    for index, group in calls:
        if index is None:
            out.extend(group)
    return out
