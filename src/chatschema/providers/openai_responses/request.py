"""The request's fields besides its items: settings, tools, tool choice and the rest.

Both directions live here, so that a key is read and written by one module:

- settings (``model``, ``max_output_tokens``, ``temperature``, ``top_p``,
  ``text.format`` and ``reasoning.effort``) to and from ``GenerationSettings``;
- function tools and hosted tools to and from ``ToolDefinition``;
- ``tool_choice`` with ``parallel_tool_calls`` to and from the neutral tool choice,
  ``allowed_tools`` included;
- every other request key (``store``, ``include``, ``previous_response_id``,
  ``metadata`` ...), and the unmapped rest of ``text`` and ``reasoning``, kept
  verbatim in ``Conversation.extras["openai_responses"]`` and written back.
"""

from __future__ import annotations

import re
from typing import Any, Final

import pydantic
from chatschema_models.conversation import (
    Conversation,
    GenerationSettings,
    JsonObjectResponseFormat,
    JsonSchemaResponseFormat,
    ResponseFormat,
    TextResponseFormat,
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

from chatschema._json import copy_json
from chatschema.providers._common import EncodePass, extras_of, merge_extras
from chatschema.providers.openai_responses.wire import (
    EXPLICIT_AUTO,
    INTEGRAL_SETTINGS,
    NAME,
    NO_INPUT,
    NO_STRICT,
    READ,
    TOOL_POSITIONS,
)

__all__ = [
    "decode_request",
    "decode_tool",
    "encode_extras",
    "encode_settings",
    "encode_tool",
    "encode_tool_choice",
]

# Settings this API has no request key for (API reference, "Create a model response").
UNSUPPORTED: Final = {
    "top_k": "no top_k",
    "stop": "no stop sequences",
    "seed": "no seed",
    "presence_penalty": "no presence_penalty",
    "frequency_penalty": "no frequency_penalty",
    "thinking_budget": "no thinking budget (it takes reasoning.effort)",
}
_NUMBERS: Final = ("temperature", "top_p")
_SETTING_FIELDS: Final = tuple(GenerationSettings.model_fields)  # (a fixed order)
# Structured outputs guide: a schema's name, letters, digits, _ and -, at most 64.
_SCHEMA_NAME: Final = re.compile(r"[A-Za-z0-9_-]{1,64}")
_FORMAT_KEYS: Final = frozenset({"type", "name", "schema", "strict", "description"})


# ============================================================================ decoding


def decode_request(data: dict[str, Any]) -> dict[str, Any]:
    """The Conversation fields of a request's own keys: settings, tools, tool choice, extras.

    ``data`` is the request (a dict with ``input``); the messages are read elsewhere.
    """
    fields: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    integral: list[str] = []
    for key, value in data.items():
        if key in ("instructions", "input", "tools", "tool_choice", "parallel_tool_calls"):
            continue
        if key == "model" and isinstance(value, str) and value:
            settings["model"] = value
        elif key == "max_output_tokens" and _is_int(value) and value >= 0:
            settings["max_output_tokens"] = value
        elif key in _NUMBERS and isinstance(value, (int, float)) and not isinstance(value, bool):
            settings[key] = float(value)
            if isinstance(value, int):
                integral.append(key)  # written back as the integer it was
        elif key == "text" and isinstance(value, dict):
            rest = dict(value)
            response_format = _decode_format(rest.get("format"))
            if response_format is not None:
                settings["response_format"] = response_format
                del rest["format"]
            if rest or response_format is None:
                extras["text"] = copy_json(rest)
        elif key == "reasoning" and isinstance(value, dict):
            rest = dict(value)
            effort = rest.get("effort")
            if isinstance(effort, str) and effort:
                settings["reasoning_effort"] = effort
                del rest["effort"]
            if rest or "reasoning_effort" not in settings:
                extras["reasoning"] = copy_json(rest)
        else:
            extras[key] = copy_json(value)  # kept verbatim: sent back as it came
    if settings:
        fields["settings"] = GenerationSettings(**settings)
    tools = data.get("tools")
    if tools is not None:
        fields["tools"] = [
            decode_tool(tool, index) for index, tool in enumerate(READ.list(tools, "tools"))
        ]
    choice = _decode_tool_choice(data.get("tool_choice"), data.get("parallel_tool_calls"))
    for key in ("tool_choice", "parallel_tool_calls"):
        if key in data and (choice is None or data[key] is None):
            # no neutral form, or a null (the default, said so): kept as it came
            extras[key] = copy_json(data[key])
    if choice is not None:
        fields["tool_choice"] = choice
        if data.get("tool_choice") == "auto" and data.get("parallel_tool_calls") is not None:
            extras[EXPLICIT_AUTO] = True  # the flag alone would say the same
    if integral:
        extras[INTEGRAL_SETTINGS] = integral
    if extras:
        fields["extras"] = {NAME: extras}
    return fields


def _is_int(value: Any) -> bool:
    """Whether a JSON value is an integer (not a boolean)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _decode_format(value: Any) -> ResponseFormat | None:
    """``text.format`` as a neutral response format, None when it has no neutral form."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind == "text" and set(value) == {"type"}:
        return TextResponseFormat()
    if kind == "json_object" and set(value) == {"type"}:
        return JsonObjectResponseFormat()
    if kind != "json_schema" or not set(value) <= _FORMAT_KEYS:
        return None
    fields: dict[str, Any] = {"json_schema": value.get("schema")}
    for key in ("name", "description", "strict"):
        if key in value:
            if value[key] is None:
                return None  # a null the neutral model would not send back: kept as it came
            fields[key] = value[key]
    try:
        return JsonSchemaResponseFormat(**copy_json(fields))
    except pydantic.ValidationError:
        return None  # (a null strict, a schema that is not an object ...): kept as it came


def decode_tool(tool: Any, index: int) -> ToolDefinition:
    """A tool definition: a ``function`` tool, or a hosted tool kept unchanged."""
    if isinstance(tool, pydantic.BaseModel):
        tool = READ.json(tool)
    if not isinstance(tool, dict):
        READ.fail(f"tools[{index}] must be an object")
    if tool.get("type") != "function":
        # A hosted tool (web_search, file_search, mcp ...): kept unchanged, and
        # marked as this format's, so that no other format sends it as a function.
        name = tool.get("name") if isinstance(tool.get("name"), str) else tool.get("type")
        if not isinstance(name, str) or not name:
            READ.fail(f"tools[{index}] has no `type`")
        return ToolDefinition(
            name=name, parameters={}, provider=NAME, extras={NAME: {"tool": tool}}
        )
    rest = dict(tool)
    del rest["type"]
    name = rest.pop("name", None)
    if not isinstance(name, str) or not name:
        READ.fail(f"tools[{index}] needs a `name`")
    fields: dict[str, Any] = {"name": name}
    if isinstance(rest.get("description"), str):
        fields["description"] = rest.pop("description")
    parameters = rest.get("parameters")
    if isinstance(parameters, dict):
        fields["parameters"] = rest.pop("parameters")
    else:
        fields["parameters"] = {}  # null or missing: kept below, sent back as it came
    extras: dict[str, Any] = {}
    if isinstance(rest.get("strict"), bool):
        fields["strict"] = rest.pop("strict")
    elif "strict" not in rest:
        extras[NO_STRICT] = True  # absent (not false): the API's default applies
    if rest:
        extras["fields"] = rest
    if extras:
        fields["extras"] = {NAME: extras}
    try:
        return ToolDefinition(**fields)
    except pydantic.ValidationError as error:
        READ.fail(f"tools[{index}]: {error.errors()[0]['msg']}")


def _decode_tool_choice(choice: Any, parallel: Any) -> ToolChoice | None:
    """``tool_choice`` with ``parallel_tool_calls`` as one neutral tool choice.

    None when neither is given, or when the choice has no neutral form (a hosted
    tool's choice, ``"none"`` with the flag ...): the caller keeps both verbatim.
    """
    if parallel is not None and not isinstance(parallel, bool):
        READ.fail("`parallel_tool_calls` must be true or false")
    extra: dict[str, Any] = {} if parallel is None else {"parallel": parallel}
    if choice is None:
        return AutoToolChoice(**extra) if extra else None
    if choice == "auto":
        return AutoToolChoice(**extra)
    if choice == "required":
        return RequiredToolChoice(**extra)
    if choice == "none":
        # NoneToolChoice has no `parallel`: "none" with the flag has no neutral form.
        return NoneToolChoice() if parallel is None else None
    if not isinstance(choice, dict):
        READ.fail(f"tool_choice {choice!r} is neither a string nor an object")
    if (
        choice.get("type") == "function"
        and set(choice) == {"type", "name"}
        and isinstance(choice["name"], str)
        and choice["name"]
    ):
        return NamedToolChoice(name=choice["name"], **extra)
    if choice.get("type") == "allowed_tools":
        return _decode_allowed(choice, extra)
    if not isinstance(choice.get("type"), str):
        READ.fail("tool_choice needs a string `type`")
    return None  # a hosted tool's choice (mcp, web_search_preview, custom ...)


def _decode_allowed(choice: dict[str, Any], extra: dict[str, Any]) -> AllowedToolsChoice | None:
    """``allowed_tools``: function entries as names, every other entry kept in order."""
    tools = choice.get("tools")
    mode = choice.get("mode")
    if set(choice) != {"type", "mode", "tools"} or mode not in ("auto", "required"):
        return None
    if not isinstance(tools, list):
        return None
    names: list[str] = []
    others: list[Any] = []
    positions: list[int] = []
    for position, entry in enumerate(tools):
        name = entry.get("name") if isinstance(entry, dict) else None
        if (
            isinstance(entry, dict)
            and entry.get("type") == "function"
            and set(entry) == {"type", "name"}
            and isinstance(name, str)
            and name
        ):
            names.append(name)
        else:
            others.append(copy_json(entry))
            positions.append(position)
    if not names:
        return None  # no named tool: kept whole in the conversation's extras
    fields: dict[str, Any] = {"names": names, "mode": mode, **extra}
    if others:
        kept: dict[str, Any] = {"tools": others}
        if positions != list(range(len(names), len(tools))):
            kept[TOOL_POSITIONS] = positions  # not all after the functions: where each was
        fields["extras"] = {NAME: kept}
    try:
        return AllowedToolsChoice(**fields)
    except pydantic.ValidationError:
        return None


# ============================================================================ encoding


def encode_settings(encoder: EncodePass, conversation: Conversation) -> dict[str, Any]:
    """The request keys of the conversation's settings and of its extras of this format.

    Read once per request. A setting this API has no key for goes through the
    ``unsupported_settings`` policy, at ``/settings/<field>``.
    """
    out: dict[str, Any] = {}
    settings = conversation.settings
    extras = extras_of(conversation, NAME)
    if settings is not None:
        integral = extras.get(INTEGRAL_SETTINGS)
        values = settings.__dict__
        present = settings.model_fields_set
        for field in _SETTING_FIELDS:
            value = values[field]
            if value is None or field not in present:
                continue
            if field in UNSUPPORTED:
                _unsupported(encoder, field)
            elif field in _NUMBERS:
                exact = isinstance(integral, list) and field in integral and value.is_integer()
                out[field] = int(value) if exact else value
            elif field == "response_format":
                text = extras.get("text")
                out["text"] = dict(text) if isinstance(text, dict) else {}
                out["text"]["format"] = _encode_format(value)
            elif field == "reasoning_effort":
                reasoning = extras.get("reasoning")
                out["reasoning"] = dict(reasoning) if isinstance(reasoning, dict) else {}
                out["reasoning"]["effort"] = value
            else:  # model, max_output_tokens
                out[field] = value
    return out


def encode_extras(
    payload: dict[str, Any], conversation: Conversation, *, choice: bool, choosing: bool
) -> None:
    """Put the conversation's own extras back: every kept request key the encoder left unset.

    ``text`` and ``reasoning`` merge with what the settings wrote; the codec's
    bookkeeping keys stay out. A kept ``tool_choice`` (and its ``parallel_tool_calls``)
    goes only with ``choice``: native tools, tools sent (or none given), and no
    neutral tool choice in its place; a kept ``null`` one with ``choosing`` (native
    tools, tools sent or none given), where the encoder wrote none.
    """
    extras = extras_of(conversation, NAME)
    if extras:
        skip = [INTEGRAL_SETTINGS, NO_INPUT, EXPLICIT_AUTO, "input", "instructions", "tools"]
        for key in ("tool_choice", "parallel_tool_calls"):
            if not (choice or (choosing and extras.get(key, False) is None)):
                skip.append(key)
        merge_extras(payload, extras, skip=skip)


def _unsupported(encoder: EncodePass, field: str) -> None:
    """A setting this API cannot take: by the ``unsupported_settings`` policy."""
    reason = f"settings.{field}: {NAME} has {UNSUPPORTED[field]}"
    encoder.unsupported_setting(f"/settings/{field}", reason)


def _encode_format(value: ResponseFormat) -> dict[str, Any]:
    """A neutral response format as ``text.format``."""
    if isinstance(value, JsonSchemaResponseFormat):
        name = value.name
        if name is None:
            # Structured outputs: `name` is required; a schema without one (from a
            # format that has none) is named by its title, else "response".
            title = value.json_schema.get("title")
            name = title if isinstance(title, str) and _SCHEMA_NAME.fullmatch(title) else "response"
        out: dict[str, Any] = {"type": "json_schema", "name": name}
        if value.description is not None:
            out["description"] = value.description
        out["schema"] = value.json_schema
        if value.strict is not None:
            out["strict"] = value.strict
        return out
    return {"type": value.type}


def encode_tool(tool: ToolDefinition) -> dict[str, Any]:
    """A tool definition: a hosted tool as it came, else a ``function`` tool."""
    extras = extras_of(tool, NAME)
    hosted = extras.get("tool")
    if isinstance(hosted, dict):
        return copy_json(hosted)
    out: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    out["parameters"] = tool.parameters
    # API reference, "function" tool: `strict` is a required key (the SDK's
    # FunctionToolParam) and defaults to true when left out. Unset in the neutral
    # model means not strict (Chat Completions' default), so it is sent as false,
    # unless the tool came from a Responses request that left it out.
    if tool.strict is not None:
        out["strict"] = tool.strict
    elif extras.get(NO_STRICT) is not True:
        out["strict"] = False
    rest = extras.get("fields")
    if isinstance(rest, dict):
        out.update(rest)
    return out


def encode_tool_choice(choice: ToolChoice) -> tuple[Any, bool | None]:
    """The wire ``tool_choice`` and the ``parallel_tool_calls`` flag (None: not sent)."""
    if isinstance(choice, NamedToolChoice):
        return {"type": "function", "name": choice.name}, choice.parallel
    if isinstance(choice, NoneToolChoice):
        return "none", None
    if isinstance(choice, AllowedToolsChoice):
        return _encode_allowed(choice), choice.parallel
    return choice.type, choice.parallel


def _encode_allowed(choice: AllowedToolsChoice) -> dict[str, Any]:
    """``allowed_tools``: a function entry per name, the kept entries where they were."""
    tools: list[Any] = [{"type": "function", "name": name} for name in choice.names]
    kept = extras_of(choice, NAME)
    others = kept.get("tools")
    if isinstance(others, list):
        positions = kept.get(TOOL_POSITIONS)
        if (
            isinstance(positions, list)
            and len(positions) == len(others)
            and all(isinstance(p, int) and not isinstance(p, bool) for p in positions)
            and positions == sorted(set(positions))
            and (not positions or positions[-1] < len(tools) + len(others))
        ):
            for position, entry in zip(positions, others, strict=True):
                tools.insert(position, copy_json(entry))
        else:
            tools.extend(copy_json(others))
    wire: dict[str, Any] = {"type": "allowed_tools", "mode": choice.mode, "tools": tools}
    for key, value in kept.items():  # other keys of the choice's extras, as given
        if key not in wire and key not in ("tools", TOOL_POSITIONS):
            wire[key] = copy_json(value)
    return wire
