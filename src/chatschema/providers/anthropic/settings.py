"""Request settings: the Messages API's generation keys to and from ``GenerationSettings``.

Read once per request, never per message. :func:`read` splits a request's top-level
keys (all but ``system``, ``messages``, ``tools`` and ``tool_choice``) into neutral
settings and ``Conversation.extras["anthropic"]``, which keeps every key it does not
map verbatim (``metadata``, ``service_tier``, ``container``, ``mcp_servers``,
``context_management``, ``stream`` ...) and the unmapped part of a partly mapped
object (``thinking.display``, ``output_config`` keys other than ``effort`` and
``format``, ``extra_body`` keys other than the sampling ones). :func:`write` does the
reverse for ``encode``: the settings in the API's keys, then those extras, settings
first where both name one key.

The mapping (docs/providers/anthropic.md, "Request settings"):

- ``model``, ``max_tokens`` -> ``max_output_tokens``, ``stop_sequences`` -> ``stop``;
- ``temperature``, ``top_p``, ``top_k``: the SDK takes them only through
  ``extra_body`` since 1.0 (its MIGRATION.md), so ``encode`` writes them there, or
  at the top level where the decoded request had them;
- ``thinking``: ``{"type": "enabled", "budget_tokens": N}`` -> ``thinking_budget=N``,
  ``{"type": "disabled"}`` -> 0, ``{"type": "adaptive"}`` (the model decides how
  much to think, as Gemini's -1) -> -1; other thinking types stay in extras;
- ``output_config.effort`` -> ``reasoning_effort``; ``output_config.format`` (or the
  older top-level ``output_format``) of ``{"type": "json_schema", "schema": ...}``
  -> a ``json_schema`` response format;
- ``seed``, ``presence_penalty``, ``frequency_penalty``, a ``json_object`` response
  format, a schema's ``description`` or ``strict=False``: Anthropic has no such
  setting, so they go to the ``unsupported_settings`` policy (``/settings/<field>``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final

from chatschema_models.conversation import (
    GenerationSettings,
    JsonObjectResponseFormat,
    JsonSchemaResponseFormat,
    TextResponseFormat,
)
from chatschema_models.tool import (
    AllowedToolsChoice,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolChoice,
)

from chatschema.errors import Problem, UnsupportedContentError
from chatschema.providers._common import extras_of
from chatschema.providers.anthropic.blocks import plain_deep
from chatschema.providers.anthropic.wire import (
    BOOKKEEPING,
    LEGACY_OUTPUT_FORMAT,
    MESSAGE_KEYS,
    NAME,
    SAMPLING,
    THINKING_DYNAMIC,
    THINKING_ENABLED,
    THINKING_OFF,
    THINKING_ON,
    TOP_LEVEL_SAMPLING,
)

if TYPE_CHECKING:
    from chatschema.providers.anthropic.encode import _Encoder

_UNSUPPORTED: Final = ("seed", "presence_penalty", "frequency_penalty")
"""Neutral settings the Messages API has no key for (SDK 2.13 MessageCreateParams)."""
_WRITTEN: Final = frozenset({"thinking", "output_config", "extra_body", "output_format"})
"""Extras keys :func:`write` merges with the settings rather than copies."""

# ====================================================================== decoding


def read(data: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A request's settings fields and its other top-level keys (for extras)."""
    settings: dict[str, Any] = {}
    extras: dict[str, Any] = {}
    top: list[str] = []
    later: dict[str, Any] = {}
    for key, value in data.items():
        if key in MESSAGE_KEYS:
            continue
        value = plain_deep(value)
        if key == "model" and isinstance(value, str) and value:
            settings["model"] = value
        elif key == "max_tokens" and _count(value):
            settings["max_output_tokens"] = value
        elif key in SAMPLING and _sampling(key, value):
            settings[key] = value
            top.append(key)
        elif key == "stop_sequences" and _strings(value):
            settings["stop"] = list(value)
        elif key == "thinking":
            _thinking(value, settings, extras)
        elif key == "output_config" and isinstance(value, dict):
            _output_config(value, settings, extras)
        elif key in ("output_format", "extra_body"):
            later[key] = value  # read once the top-level settings are known
        else:
            extras[key] = value
    if "output_format" in later:
        value = later["output_format"]
        schema = _schema_format(value)
        if schema is not None and "response_format" not in settings:
            settings["response_format"] = schema
            extras[LEGACY_OUTPUT_FORMAT] = True
        else:
            extras["output_format"] = value
    if "extra_body" in later:
        _extra_body(later["extra_body"], settings, extras)
    if top:
        extras[TOP_LEVEL_SAMPLING] = top
    return settings, extras


def _count(value: Any) -> bool:
    """A token count: an int (not a bool) of at least 0."""
    return type(value) is int and value >= 0


def _sampling(key: str, value: Any) -> bool:
    """Whether ``value`` is one the neutral ``key`` takes (``top_k`` an int)."""
    if type(value) is int:
        return True
    return key != "top_k" and type(value) is float and math.isfinite(value)


def _strings(value: Any) -> bool:
    """A list of strings."""
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _thinking(value: Any, settings: dict[str, Any], extras: dict[str, Any]) -> None:
    """``thinking`` as a budget; what the budget does not say stays in extras."""
    kind = value.get("type") if isinstance(value, dict) else None
    rest = {k: v for k, v in value.items() if k not in ("type", "budget_tokens")} if kind else {}
    if kind == THINKING_ENABLED and _count(value.get("budget_tokens")) and value["budget_tokens"]:
        settings["thinking_budget"] = value["budget_tokens"]
    elif kind == THINKING_DYNAMIC and "budget_tokens" not in value:
        settings["thinking_budget"] = -1  # the model decides, as Gemini's dynamic -1
    elif kind == THINKING_OFF and not rest and "budget_tokens" not in value:
        settings["thinking_budget"] = 0
    else:  # another type (between_tools ...), or a shape the budget cannot say
        extras["thinking"] = value
        return
    if rest:
        extras["thinking"] = rest  # e.g. display: sent back with thinking that is on


def _schema_format(value: Any) -> dict[str, Any] | None:
    """A neutral json_schema response format for ``{"type": "json_schema", "schema": {...}}``."""
    if (
        isinstance(value, dict)
        and value.get("type") == "json_schema"
        and isinstance(value.get("schema"), dict)
        and len(value) == 2
    ):
        return {"type": "json_schema", "json_schema": value["schema"]}
    return None


def _output_config(value: dict[str, Any], settings: dict[str, Any], extras: dict[str, Any]) -> None:
    """``output_config``: ``effort`` and a schema ``format`` mapped, other keys kept."""
    rest = dict(value)
    effort = rest.get("effort")
    if isinstance(effort, str) and effort:
        settings["reasoning_effort"] = rest.pop("effort")
    schema = _schema_format(rest.get("format"))
    if schema is not None:
        settings["response_format"] = schema
        del rest["format"]
    if rest or len(rest) == len(value):  # (an empty output_config comes back empty)
        extras["output_config"] = rest


def _extra_body(value: Any, settings: dict[str, Any], extras: dict[str, Any]) -> None:
    """``extra_body`` (an SDK keyword): the sampling keys SDK 1.0 moved there, and the rest."""
    if not isinstance(value, dict):
        extras["extra_body"] = value
        return
    rest = dict(value)
    for key in SAMPLING:
        if key in rest and key not in settings and _sampling(key, rest[key]):
            settings[key] = rest.pop(key)
    if rest or len(rest) == len(value):
        extras["extra_body"] = rest


# ====================================================================== encoding


def refuse(encoder: _Encoder, where: str, reason: str) -> None:
    """The unsupported policy for a request value the Messages API cannot say.

    ``"error"`` raises :class:`UnsupportedContentError` (collect mode notes an
    ``unsupported_content`` problem at ``where``); ``"drop"`` and ``"placeholder"``
    leave it out. Settings go to :func:`refuse_setting` instead.
    """
    options = encoder.options
    if options.unsupported != "error":
        return
    what = where.strip("/").replace("/", ".")
    problem = Problem(where, "unsupported_content", f"{what}: {reason}")
    if encoder.collect:
        encoder.problems.append(problem)
        return
    raise UnsupportedContentError(
        f"{what}: {reason} (options: unsupported='drop' or 'placeholder')",
        provider=NAME,
        problems=[problem],
    )


def refuse_setting(encoder: _Encoder, where: str, reason: str) -> None:
    """The ``unsupported_settings`` policy for a setting the Messages API cannot say."""
    encoder.unsupported_setting(where, f"{where.strip('/').replace('/', '.')}: {reason}")


def write(encoder: _Encoder, payload: dict[str, Any]) -> None:
    """Put the conversation's settings and Anthropic extras into the request ``payload``."""
    conversation = encoder.conversation
    settings = conversation.settings
    extras = extras_of(conversation, NAME) if conversation.extras else {}
    if settings is None and not extras:
        return
    if settings is not None:
        _settings(encoder, settings, extras, payload)
    elif "thinking" in extras:
        _thinking_wire(encoder, None, extras, payload)
    for key, value in extras.items():
        if key in payload or key in BOOKKEEPING:
            continue  # the neutral fields and the settings written win
        if key in MESSAGE_KEYS:
            if value is None:
                payload[key] = None  # ``"system": null`` ... as the request had it
            continue
        if key in _WRITTEN:
            if key != "thinking" and settings is None:
                payload[key] = value  # (thinking: as _thinking_wire decided)
            continue
        if key == "cache_control":  # automatic caching: one breakpoint, at the end
            if not encoder.options.prompt_cache:
                continue
            if encoder.collect:
                encoder.breakpoint(value, "/extras", NAME, "cache_control")
        payload[key] = value


def _settings(
    encoder: _Encoder,
    settings: GenerationSettings,
    extras: dict[str, Any],
    payload: dict[str, Any],
) -> None:
    """The neutral settings in the Messages API's keys."""
    if settings.model is not None:
        payload["model"] = settings.model
    if settings.max_output_tokens is not None:
        payload["max_tokens"] = settings.max_output_tokens
    top = extras.get(TOP_LEVEL_SAMPLING)
    kept = extras.get("extra_body")
    body: dict[str, Any] = dict(kept) if isinstance(kept, dict) else {}
    for key in SAMPLING:
        value = getattr(settings, key)
        if value is not None:
            if isinstance(top, list) and key in top:
                payload[key] = value
            else:  # SDK >= 1.0 takes sampling keys only here (MIGRATION.md)
                body[key] = value
    if body or isinstance(kept, dict):
        payload["extra_body"] = body
    elif "extra_body" in extras:
        payload["extra_body"] = kept
    if settings.stop is not None:
        payload["stop_sequences"] = list(settings.stop)
    _thinking_wire(encoder, settings.thinking_budget, extras, payload)
    _output_config_wire(encoder, settings, extras, payload)
    for field in _UNSUPPORTED:
        if getattr(settings, field) is not None:
            refuse_setting(encoder, f"/settings/{field}", f"{NAME} has no {field}")


def _thinking_wire(
    encoder: _Encoder, budget: int | None, extras: dict[str, Any], payload: dict[str, Any]
) -> None:
    """``thinking`` from the budget, with the options kept beside it (``display``)."""
    kept = extras.get("thinking")
    if budget is None:
        # a whole thinking object kept verbatim goes back; options kept for a budget
        # that is gone (no "type") have nothing left to go with
        if "thinking" in extras and not (isinstance(kept, dict) and "type" not in kept):
            payload["thinking"] = kept
        return
    wire: dict[str, Any]
    if budget > 0:
        wire = {"type": THINKING_ENABLED, "budget_tokens": budget}
    elif budget == 0:
        wire = {"type": THINKING_OFF}
    elif budget == -1:
        wire = {"type": THINKING_DYNAMIC}
    else:
        refuse_setting(
            encoder,
            "/settings/thinking_budget",
            f"{budget}: {NAME} takes a number of tokens, 0 (disabled) or -1 (adaptive)",
        )
        return
    if wire["type"] in THINKING_ON and isinstance(kept, dict):
        for key, value in kept.items():
            if key not in ("type", "budget_tokens"):
                wire[key] = value
    payload["thinking"] = wire


def _output_config_wire(
    encoder: _Encoder,
    settings: GenerationSettings,
    extras: dict[str, Any],
    payload: dict[str, Any],
) -> None:
    """``output_config``: ``effort`` and the schema ``format``, with the keys kept."""
    kept = extras.get("output_config")
    config: dict[str, Any] = dict(kept) if isinstance(kept, dict) else {}
    touched = isinstance(kept, dict)
    if settings.reasoning_effort is not None:
        config["effort"] = settings.reasoning_effort  # the SDK's words: low ... max
        touched = True
    response_format = settings.response_format
    if response_format is not None:
        config.pop("format", None)  # the neutral setting wins over a kept format
        touched = touched or isinstance(kept, dict)
        schema = _format_wire(encoder, response_format)
        if schema is not None:
            if extras.get(LEGACY_OUTPUT_FORMAT) is True:
                payload["output_format"] = schema
            else:
                config["format"] = schema
                touched = True
    if touched:
        payload["output_config"] = config
    elif "output_config" in extras:
        payload["output_config"] = kept
    if "output_format" in extras and "output_format" not in payload:
        payload["output_format"] = extras["output_format"]


def _format_wire(
    encoder: _Encoder,
    response_format: TextResponseFormat | JsonObjectResponseFormat | JsonSchemaResponseFormat,
) -> dict[str, Any] | None:
    """A response format as ``output_config.format`` (None: nothing to send).

    Structured outputs take a JSON schema only and always hold the answer to it:
    ``text`` is what the API does without one, a ``json_object`` (JSON without a
    schema) or a schema not to be enforced (``strict=False``) it cannot do, and the
    ``description`` has no place. The ``name`` (which OpenAI requires) is not sent.
    """
    if isinstance(response_format, TextResponseFormat):
        return None
    if isinstance(response_format, JsonObjectResponseFormat):
        refuse_setting(
            encoder,
            "/settings/response_format",
            f"{NAME} has no JSON mode without a schema (output_config.format takes a json_schema)",
        )
        return None
    if response_format.description is not None:
        refuse_setting(
            encoder,
            "/settings/response_format/description",
            f"{NAME} structured outputs take a schema without a description",
        )
    if response_format.strict is False:
        refuse_setting(
            encoder,
            "/settings/response_format/strict",
            f"{NAME} structured outputs always enforce the schema",
        )
    return {"type": "json_schema", "schema": response_format.json_schema}


def tool_choice_wire(encoder: _Encoder, choice: ToolChoice) -> dict[str, Any]:
    """``tool_choice``: ``auto`` / ``any`` / ``tool`` / ``none``, ``disable_parallel_tool_use``.

    The Messages API has no choice limited to some tools (SDK 2.13 ToolChoiceParam):
    an ``allowed`` choice goes to the unsupported policy; under ``"drop"`` or
    ``"placeholder"`` it is sent without the limit (``auto``, or ``any`` when
    required).
    """
    if isinstance(choice, NoneToolChoice):
        return {"type": "none"}
    wire: dict[str, Any]
    if isinstance(choice, NamedToolChoice):
        wire = {"type": "tool", "name": choice.name}
    elif isinstance(choice, AllowedToolsChoice):
        refuse(
            encoder,
            "/tool_choice",
            f"{NAME} has no tool choice limited to named tools ({', '.join(choice.names)})",
        )
        wire = {"type": "any" if choice.mode == "required" else "auto"}
    else:
        wire = {"type": "any" if isinstance(choice, RequiredToolChoice) else "auto"}
    if choice.parallel is not None:
        wire["disable_parallel_tool_use"] = not choice.parallel
    return wire
