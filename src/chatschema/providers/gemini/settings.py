"""Gemini request settings: ``generation_config`` to and from ``Conversation.settings``.

A request says how to generate in ``generation_config`` (REST ``generationConfig``,
ai.google.dev/api/generate-content#generationconfig), or, in google-genai's
``generate_content(model=..., contents=..., config=GenerateContentConfig(...))``,
flat in ``config``. :func:`read_request` splits a request into its conversation
part, the neutral settings and what neither says (kept for
``Conversation.extras["gemini"]`` under its wire key); :func:`write_settings` puts
them back where they came from, in the snake_case spelling ``encode`` writes every
key in (the API takes both; REST camelCase comes back in snake_case).

==================================  ==============================================
``GenerationSettings``              Gemini
==================================  ==============================================
``model``                           ``model`` (top level, beside ``contents``)
``max_output_tokens``               ``max_output_tokens``
``temperature``, ``top_p``,         the same names
``top_k``, ``seed``,
``presence_penalty``,
``frequency_penalty``
``stop``                            ``stop_sequences``
``response_format`` text            ``response_mime_type: "text/plain"``
``response_format`` json_object     ``response_mime_type: "application/json"``
``response_format`` json_schema     ``"application/json"`` + ``response_json_schema``
                                    (``response_schema`` when it came so)
``thinking_budget``                 ``thinking_config.thinking_budget``
``reasoning_effort``                ``thinking_config.thinking_level``
==================================  ==============================================

Gemini has no schema name or description, and its structured output always holds
to the schema: ``response_format.name``, ``.description`` and ``strict: false`` go
through the ``unsupported_settings`` policy, as does a ``reasoning_effort`` that is no
``ThinkingLevel``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from chatschema_models.conversation import (
    Conversation,
    JsonObjectResponseFormat,
    JsonSchemaResponseFormat,
    TextResponseFormat,
)
from pydantic import BaseModel

from chatschema._json import copy_json
from chatschema.errors import Problem, UnsupportedContentError
from chatschema.providers._common import extras_of
from chatschema.providers.gemini.wire import (
    BOOKKEEPING,
    CONFIG_REQUEST_KEYS,
    GENERATION_CONTAINERS,
    JSON_MIME,
    NAME,
    READ,
    REQUEST_KEYS,
    RESPONSE_KEYS,
    SCHEMA_KEY,
    SETTING_FIELDS,
    TEXT_MIME,
    THINKING_FIELDS,
    THINKING_LEVELS,
    plain_field,
    plain_with_nulls,
    snake,
)

if TYPE_CHECKING:
    from chatschema.providers.gemini.encode import _Encoder


# ------------------------------------------------------------------------ decoding


def read_request(
    data: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A request object as (its conversation part, settings fields, extras).

    The conversation part has the request keys (``contents``, ``system_instruction``,
    ``tools``, ``tool_config``); the settings fields are ``GenerationSettings``
    keyword arguments; the extras are every other key, as plain snake_case data under
    its snake_case wire key (the spelling ``encode`` writes; the API takes both):
    ``generation_config`` and ``config`` hold what of them no setting says (an empty
    object when the settings say everything). ``None`` values are kept (in extras, or in
    the request keys), to be written back as they came.
    """
    request: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    config: Any = None
    seen: dict[str, str] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            READ.fail(f"object keys must be strings, not {key!r}")
        name = snake(key)
        if name in seen:  # both spellings of one field
            READ.fail(f"request field {key!r} is given twice (also as {seen[name]!r})")
        seen[name] = key
        if value is None:  # a null the API takes: kept, and written back so
            extras[name] = None
        elif name in REQUEST_KEYS:
            # the request comes back as it came, its nulls included
            request[name] = plain_with_nulls(value)
        elif name == "model" and isinstance(value, str) and value:
            settings["model"] = value
        elif name == "generation_config" and _is_object(value):
            extras[name] = _generation(_items(value), settings, extras)
        elif name == "config" and _is_object(value):
            config = value
        else:
            extras[name] = plain_field(name, value)
    if config is not None:  # google-genai: generate_content(model, contents, config)
        flat: list[tuple[str, Any]] = []
        for key, value in _items(config):
            name = snake(key)
            if name in CONFIG_REQUEST_KEYS and name not in request and value is not None:
                request[name] = plain_with_nulls(value)
            else:
                flat.append((key, value))
        extras["config"] = _generation(flat, settings, extras)
    return request, settings, extras


def _is_object(value: Any) -> bool:
    return isinstance(value, (Mapping, BaseModel))


def _items(value: Any) -> list[tuple[str, Any]]:
    """An object's items as plain snake_case data (its nulls kept)."""
    data = plain_with_nulls(value)
    return list(data.items()) if isinstance(data, dict) else []


def _generation(
    items: Iterable[tuple[str, Any]], settings: dict[str, Any], extras: dict[str, Any]
) -> dict[str, Any]:
    """Read a generation config's items into settings; what they do not say, returned."""
    rest: dict[str, Any] = {}
    response: dict[str, Any] = {}
    for key, value in items:
        name = snake(key)
        if value is None:  # no setting: kept as it came
            rest[name] = None
            continue
        field = SETTING_FIELDS.get(name)
        if field is not None:
            kept = _value(field, value)
            if kept is not None:
                settings[field] = kept
                continue
        elif name in RESPONSE_KEYS and name not in response:
            response[name] = value
            continue
        elif name == "thinking_config" and isinstance(value, dict):
            inner: dict[str, Any] = {}
            for item_name, item in value.items():
                inner_field = THINKING_FIELDS.get(item_name)
                kept = None if inner_field is None else _value(inner_field, item)
                if inner_field is not None and kept is not None:
                    settings[inner_field] = kept
                else:
                    inner[item_name] = item
            rest[name] = inner  # (empty: the request had a thinking_config)
            continue
        rest[name] = value
    if response:
        fmt = _response_format(response, extras)
        if fmt is None:
            rest.update(response)
        else:
            settings["response_format"] = fmt
    return rest


def _value(field: str, value: Any) -> Any:
    """A setting's value as the neutral model takes it, or None when it cannot be one."""
    kind = type(value)
    if field in ("temperature", "top_p", "presence_penalty", "frequency_penalty"):
        return value if kind in (int, float) else None
    if field == "top_k" and kind is float and value.is_integer():
        return int(value)  # google-genai types top_k as a float
    if field in ("max_output_tokens", "top_k", "seed", "thinking_budget"):
        if kind is not int or (field == "max_output_tokens" and value < 0):
            return None
        return value
    if field == "stop":
        ok = isinstance(value, list) and all(type(item) is str for item in value)
        return list(value) if ok else None
    if field == "reasoning_effort":
        return value if isinstance(value, str) and value else None
    return None  # pragma: no cover


def _response_format(response: dict[str, Any], extras: dict[str, Any]) -> Any:
    """The neutral response format of the response keys, or None when it says more."""
    mime = response.get("response_mime_type")
    if not isinstance(mime, str):
        return None
    schemas = [name for name in ("response_schema", "response_json_schema") if name in response]
    if mime == TEXT_MIME and not schemas:
        return TextResponseFormat()
    if mime == JSON_MIME and not schemas:
        return JsonObjectResponseFormat()
    if mime == JSON_MIME and len(schemas) == 1 and isinstance(response[schemas[0]], dict):
        if schemas[0] == "response_schema":  # Gemini's OpenAPI subset, not JSON Schema
            extras[SCHEMA_KEY] = "response_schema"
        return JsonSchemaResponseFormat(json_schema=response[schemas[0]])
    return None  # text/x.enum, a schema without JSON ...: only Gemini says it


# ------------------------------------------------------------------------ encoding


def write_settings(encoder: _Encoder, conversation: Conversation, payload: dict[str, Any]) -> None:
    """Add the settings and the request keys kept in extras to ``payload``.

    Settings go to ``generation_config`` or, for a request decoded from
    google-genai's ``config`` form, back into ``config`` beside the system
    instruction, tools and tool config; in snake_case, as the rest of the request.
    """
    settings = conversation.settings
    extras = extras_of(conversation, NAME)
    if settings is None and not extras:
        return
    wrapper = "config" if isinstance(extras.get("config"), dict) else "generation_config"
    rest = extras.get(wrapper)
    generation: dict[str, Any] = {}
    if settings is not None:
        fields = settings.model_fields_set
        for name, field in SETTING_FIELDS.items():
            if field in fields:
                value = getattr(settings, field)
                generation[name] = list(value) if field == "stop" else value
        if "response_format" in fields and settings.response_format is not None:
            schema_key = extras.get(SCHEMA_KEY)
            key = "response_schema" if schema_key == "response_schema" else "response_json_schema"
            _write_format(encoder, settings.response_format, generation, key)
        thinking: dict[str, Any] = {}
        if "thinking_budget" in fields:
            thinking["thinking_budget"] = settings.thinking_budget
        if "reasoning_effort" in fields and settings.reasoning_effort is not None:
            level = settings.reasoning_effort
            if level.lower() in THINKING_LEVELS:
                thinking["thinking_level"] = level
            else:
                unsupported(
                    encoder,
                    "reasoning_effort",
                    f"gemini's thinking_level has no {level!r} (it takes "
                    "minimal, low, medium, high, xhigh)",
                )
        if thinking:
            generation["thinking_config"] = thinking
        if "model" in fields and settings.model is not None:
            payload["model"] = settings.model
    if isinstance(rest, dict):
        for key, value in rest.items():  # what no setting says, as it came
            if key not in generation:
                generation[key] = copy_json(value)
            elif isinstance(value, dict) and isinstance(generation[key], dict):
                for name, item in value.items():
                    generation[key].setdefault(name, copy_json(item))
    if wrapper == "config":
        config = {key: payload.pop(key) for key in list(payload) if key in CONFIG_REQUEST_KEYS}
        for key, value in generation.items():
            config.setdefault(key, value)
        payload["config"] = config
    elif generation or isinstance(rest, dict):
        payload[wrapper] = generation
    for key, value in extras.items():  # top-level request keys kept as they came
        if key in payload or key in BOOKKEEPING:
            continue
        if key in GENERATION_CONTAINERS and isinstance(value, dict):
            continue  # (written above)
        payload[key] = copy_json(value)


def _write_format(encoder: _Encoder, fmt: Any, generation: dict[str, Any], key: str) -> None:
    """A response format as ``response_mime_type`` and the schema (under ``key``)."""
    if fmt.type == "text":
        generation["response_mime_type"] = TEXT_MIME
        return
    generation["response_mime_type"] = JSON_MIME
    if fmt.type != "json_schema":
        return
    generation[key] = copy_json(fmt.json_schema)
    # GenerationConfig has no schema name nor description, and structured output
    # always holds to the schema (ai.google.dev, structured output)
    if fmt.name is not None:
        unsupported(encoder, "response_format/name", "gemini has no schema name")
    if fmt.description is not None:
        unsupported(encoder, "response_format/description", "gemini has no schema description")
    if fmt.strict is False:
        unsupported(
            encoder, "response_format/strict", "gemini always holds structured output to the schema"
        )


def unsupported(encoder: _Encoder, field: str, reason: str, *, root: str = "settings") -> None:
    """A setting (``root="settings"``) or a tool choice Gemini cannot say.

    Settings go to the ``unsupported_settings`` policy, the tool choice to the
    unsupported-content policy: ``"error"`` notes a problem at ``/<root>/<field>``
    (``/settings/seed``) in collect mode and raises otherwise; ``"drop"`` (and
    ``"placeholder"``) leave it out.
    """
    what = f"{root}.{field.replace('/', '.')}: {reason}"
    if root == "settings":
        encoder.unsupported_setting(f"/{root}/{field}", what)
        return
    if encoder.options.unsupported != "error":
        return
    if encoder.collect:
        encoder.problems.append(Problem(f"/{root}/{field}", "unsupported_content", what))
        return
    raise UnsupportedContentError(
        f"{what} (options: unsupported='drop' or 'placeholder')", provider=NAME
    )
