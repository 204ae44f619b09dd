"""Request settings: ``Conversation.settings`` to and from the request's own keys.

Read once per request (never per message). The mapping (API reference, "Create
chat completion"):

==========================  ===========================================================
neutral                     Chat Completions
==========================  ===========================================================
``model``                   ``model``
``max_output_tokens``       ``max_completion_tokens`` (``max_tokens``, the legacy key,
                            when the request used it: ``extras.output_limit_key``)
``temperature``, ``top_p``  the same keys
``stop``                    ``stop``: a list, or one string when it came as one
                            (``extras.stop_form``)
``seed``                    ``seed``
``presence_penalty``,       the same keys
``frequency_penalty``
``response_format``         ``response_format``: ``text``, ``json_object``,
                            ``json_schema {name, description, schema, strict}``
``reasoning_effort``        ``reasoning_effort``
``top_k``,                  none: the ``unsupported_settings`` policy (``/settings/<field>``)
``thinking_budget``
==========================  ===========================================================

Every other request key, a ``null`` setting and a response format the neutral
model has no form for are kept verbatim in ``Conversation.extras["openai_chat"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from chatschema_models.conversation import (
    GenerationSettings,
    JsonObjectResponseFormat,
    JsonSchemaResponseFormat,
    TextResponseFormat,
)

from chatschema.providers._common import describe
from chatschema.providers.openai_chat.blocks import READ, PythonKey, copy_at, json_copy, leftover
from chatschema.providers.openai_chat.rules import valid_tool_name
from chatschema.providers.openai_chat.wire import (
    NAME,
    OUTPUT_LIMIT_KEY,
    SAMPLING_FLOATS,
    SETTING_KEYS,
    STOP_FORM,
    UNSUPPORTED_SETTINGS,
)

if TYPE_CHECKING:
    from chatschema.providers.openai_chat.encode import _Encoder

__all__ = ["SETTING_WIRE_KEYS", "decode_settings", "encode_settings"]

SETTING_WIRE_KEYS = frozenset(
    {*SETTING_KEYS.values(), "max_completion_tokens", "max_tokens", "stop", "response_format"}
)
"""The request keys :func:`decode_settings` reads."""

DEFAULT_SCHEMA_NAME = "response"
"""The ``json_schema.name`` of a schema that has none (the API requires one)."""

_RESPONSE_FORMATS = {"text": TextResponseFormat, "json_object": JsonObjectResponseFormat}


def decode_settings(data: Mapping[str, Any], extras: dict[str, Any]) -> GenerationSettings | None:
    """The settings of a request; what they leave over goes into ``extras``.

    ``extras`` gets the bookkeeping markers, ``null`` and empty-string values (kept as
    they came) and the parts of ``response_format`` the neutral model has no field for.

    Raises:
        ConversionError: a setting of the wrong type, or a value the neutral
            model refuses (a negative token limit ...).
    """
    fields: dict[str, Any] = {}
    for field, key in SETTING_KEYS.items():
        if key not in data:
            continue
        value = data[key]
        if value is None or value == "":
            # kept as it came: an OpenAI-compatible server may take an empty model
            # (llama.cpp's server ignores it), and the neutral settings hold none
            extras[key] = value
        elif field in SAMPLING_FLOATS:
            if type(value) is not float and (type(value) is not int):
                READ.fail(f"{key} must be a number, not {describe(value)}")
            fields[field] = value
        elif field == "seed":
            if type(value) is not int:
                READ.fail(f"seed must be an integer, not {describe(value)}")
            fields[field] = value
        else:  # model, reasoning_effort
            fields[field] = READ.string(value, key)
    _output_limit(data, fields, extras)
    if "stop" in data:
        stop = data["stop"]
        if stop is None:
            extras["stop"] = None
        elif isinstance(stop, str):
            fields["stop"] = [stop]
            extras[STOP_FORM] = "string"
        elif isinstance(stop, list) and all(isinstance(item, str) for item in stop):
            fields["stop"] = list(stop)
        else:
            READ.fail(f"stop must be a string or a list of strings, not {describe(stop)}")
    if "response_format" in data:
        try:
            response_format = _response_format(data["response_format"], extras)
        except PythonKey as error:
            error.path.append("response_format")
            raise
        if response_format is not None:
            fields["response_format"] = response_format
    if not fields:
        return None
    return READ.build(GenerationSettings, fields)


def _output_limit(data: Mapping[str, Any], fields: dict[str, Any], extras: dict[str, Any]) -> None:
    """``max_completion_tokens`` or the legacy ``max_tokens``; with both, the first wins."""
    for key in ("max_completion_tokens", "max_tokens"):
        if key not in data:
            continue
        value = data[key]
        if value is None or "max_output_tokens" in fields:
            extras[key] = copy_at(value, key)  # a null, or the second of the two keys
            continue
        if type(value) is not int:
            READ.fail(f"{key} must be an integer, not {describe(value)}")
        fields["max_output_tokens"] = value
        if key == "max_tokens":
            extras[OUTPUT_LIMIT_KEY] = "max_tokens"


def _response_format(raw: Any, extras: dict[str, Any]) -> Any:
    """A neutral response format, or None with the wire value kept in ``extras``."""
    if raw is None:
        extras["response_format"] = None
        return None
    data = READ.object(raw, "response_format")
    kind = data.get("type")
    if isinstance(kind, str) and kind in _RESPONSE_FORMATS:
        rest = leftover(data, ("type",))
        if rest:
            extras["response_format"] = rest
        return _RESPONSE_FORMATS[kind]()
    schema = data.get("json_schema")
    if kind != "json_schema" or not isinstance(schema, dict):
        # another server's format (vLLM "structural_tag", "grammar" ...): kept as it came
        extras["response_format"] = json_copy(data)
        return None
    fields: dict[str, Any] = {}
    known = []
    for key, field, kinds in (
        ("schema", "json_schema", (dict,)),
        ("name", "name", (str,)),
        ("description", "description", (str,)),
        ("strict", "strict", (bool,)),
    ):
        value = schema.get(key)
        if isinstance(value, kinds) and (key != "name" or value):
            fields[field] = copy_at(value, "json_schema", key)
            known.append(key)
    if "json_schema" not in fields:
        extras["response_format"] = json_copy(data)  # no schema: no neutral form
        return None
    rest = leftover(data, ("type", "json_schema"))
    inner = leftover(schema, known)
    if inner:
        rest["json_schema"] = inner
    if rest:
        extras["response_format"] = rest
    return READ.build(JsonSchemaResponseFormat, fields)


def encode_settings(
    settings: GenerationSettings, extras: Mapping[str, Any], encoder: _Encoder
) -> dict[str, Any]:
    """The request keys of ``settings``: only those set; others by ``unsupported_settings``.

    ``extras`` (the conversation's own) say which output-limit key and stop form
    the request had.
    """
    wire: dict[str, Any] = {}
    for field, key in SETTING_KEYS.items():
        value = getattr(settings, field)
        if value is not None:
            wire[key] = value
    if settings.max_output_tokens is not None:
        legacy = extras.get(OUTPUT_LIMIT_KEY) == "max_tokens"
        wire["max_tokens" if legacy else "max_completion_tokens"] = settings.max_output_tokens
    stop = settings.stop
    if stop is not None:
        one = extras.get(STOP_FORM) == "string" and len(stop) == 1
        wire["stop"] = stop[0] if one else list(stop)
    response_format = settings.response_format
    if isinstance(response_format, JsonSchemaResponseFormat):
        schema: dict[str, Any] = {"name": _schema_name(response_format)}
        if response_format.description is not None:
            schema["description"] = response_format.description
        try:
            schema["schema"] = json_copy(response_format.json_schema)
        except PythonKey as error:
            raise error.error("settings/response_format/json_schema") from None
        if response_format.strict is not None:
            schema["strict"] = response_format.strict
        wire["response_format"] = {"type": "json_schema", "json_schema": schema}
    elif response_format is not None:
        wire["response_format"] = {"type": response_format.type}
    for field in UNSUPPORTED_SETTINGS:
        if getattr(settings, field) is not None:
            reason = f"settings.{field}: {NAME} has no {field}"
            encoder.unsupported_setting(f"/settings/{field}", reason)
    return wire


def _schema_name(response_format: JsonSchemaResponseFormat) -> str:
    """The schema's name; without one, its ``title`` when the API takes it, else ``response``.

    Structured Outputs guide: ``json_schema.name`` is required (``^[a-zA-Z0-9_-]{1,64}$``).
    """
    if response_format.name is not None:
        return response_format.name
    title = response_format.json_schema.get("title")
    if isinstance(title, str) and valid_tool_name(title):
        return title
    return DEFAULT_SCHEMA_NAME
