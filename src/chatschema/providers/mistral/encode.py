"""Encoding the neutral model as Mistral chat completion arguments, and ``check``.

The shared Chat Completions walk writes the messages (``translate.py`` says what
differs); then the request gets Mistral's keys and, under ``mistral_ids`` (on by
default), tool-call ids in Mistral's pattern (``ids.py``).
"""

from __future__ import annotations

from typing import Any

from chatschema.errors import OptionError, Problem
from chatschema.providers import openai_chat
from chatschema.providers._common import (
    EncodeOptions,
    guarded,
    pointer,
    raise_problems,
    to_conversation,
)
from chatschema.providers._common.guards import located_in
from chatschema.providers._common.options import (
    dropped_settings_collected,
    report_dropped_settings,
)
from chatschema.providers.mistral.ids import report, rewrite_ids
from chatschema.providers.mistral.rules import order_problems
from chatschema.providers.mistral.translate import (
    from_chat_payload,
    guarded_call,
    put,
    renamed_problems,
    to_chat,
)
from chatschema.providers.mistral.wire import ID_PATTERN, NAME

__all__ = ["MistralOptions", "check", "encode"]


class MistralOptions(EncodeOptions, total=False):
    """The options of every codec, and Mistral's own."""

    mistral_ids: bool
    """Rewrite tool-call ids that are not 9 characters ``[a-zA-Z0-9]`` (default
    ``True``); off, ``check`` reports each as a problem."""


def _split(options: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The shared walk's options, and ``mistral_ids``."""
    rewrite = options.pop("mistral_ids", True)
    if not isinstance(rewrite, bool):
        raise OptionError(f"option mistral_ids={rewrite!r}: expected True or False")
    options.pop("system_role", None)  # API reference: instructions have the role `system` only
    options.pop("reasoning_content", None)  # reasoning goes as thinking chunks
    # API reference: no cache markers on content (prompt caching is by prompt_cache_key)
    options["prompt_cache"] = False
    return options, rewrite


@guarded(NAME)
def encode(messages: Any, **options: Any) -> dict[str, Any]:
    """Encode a conversation as Mistral chat completion arguments.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`MistralOptions` (``system_role`` and
            ``reasoning_content`` are ignored: Mistral has neither).

    Returns:
        ``{"messages": [...]}`` plus ``tools``, ``tool_choice``,
        ``parallel_tool_calls``, the settings (``max_tokens``, ``random_seed``,
        ``top_k`` ...) and the request keys kept in ``extras["mistral"]``
        (``safe_prompt``, ``prompt_mode`` ...): ``client.chat.complete(**result)``
        with a ``model``. Tool-call ids rewritten under ``mistral_ids`` are
        reported by an :class:`~chatschema.providers.mistral.IdsRewrittenWarning`.

    Raises:
        ConversionError: structural problems (with ``check``).
        UnsupportedContentError: content the format cannot carry.
        ValidationError: input that is not a conversation.
        OptionError: unknown options or bad option values.
    """
    shared, rewrite = _split(dict(options))
    given = to_conversation(messages)
    refused = _refused(given)
    strict = shared.get("check", True)
    refuse = refused and shared.get("unsupported", "error") == "error"
    if strict and (refuse or order_problems(given, request=shared.get("request", True))):
        raise_problems(check(given, **options), NAME)  # (with every other problem)
    if refuse:
        raise_problems(refused, NAME)
    conversation, top_k = to_chat(given)
    _leave_out(conversation, refused)
    with dropped_settings_collected() as dropped, located_in(NAME, messages):
        payload: dict[str, Any] = guarded_call(openai_chat.encode, conversation, **shared)
    report_dropped_settings(renamed_problems(dropped), NAME)
    from_chat_payload(payload, top_k)
    if rewrite:
        report(rewrite_ids(payload))
    return payload


@guarded(NAME)
def check(messages: Any, **options: Any) -> list[Problem]:
    """Every problem that would make Mistral reject the messages.

    The rules of Chat Completions (tool calls answered right after their message,
    no orphan results, tool names, content the format cannot carry ...) and, with
    ``mistral_ids=False``, tool-call ids that are not 9 characters ``[a-zA-Z0-9]``.

    Args:
        messages: anything :func:`encode` accepts.
        **options: the options :func:`encode` would get.
    """
    shared, rewrite = _split(dict(options))
    given = to_conversation(messages)
    refused = _refused(given)
    conversation, _ = to_chat(given)
    _leave_out(conversation, refused)
    with located_in(NAME, messages):
        problems = renamed_problems(guarded_call(openai_chat.check, conversation, **shared))
    if shared.get("unsupported", "error") == "error":
        problems += refused
    own = order_problems(given, request=shared.get("request", True))
    if own and any(p.keyword == "no_messages" for p in problems):
        own = [p for p in own if p.keyword != "no_messages"]
    problems += own
    if not rewrite:
        problems += _id_problems(conversation)
    return problems


def _refused(conversation: Any) -> list[Problem]:
    """What Mistral has no field for, each at its pointer (``unsupported`` decides).

    API reference: system, user and assistant messages have no ``name`` (a tool
    message has one); ``tool_choice`` is a mode or one named function, no list of
    allowed tools.
    """
    found = [
        Problem(
            pointer(index, "name"),
            "unsupported_content",
            f"a {message.role} message's name cannot be sent to {NAME}",
        )
        for index, message in enumerate(conversation.messages)
        if message.role != "tool" and getattr(message, "name", None) is not None
    ]
    choice = conversation.tool_choice
    if choice is not None and choice.type == "allowed":
        found.append(
            Problem(
                "/tool_choice",
                "unsupported_content",
                f"a tool choice of allowed tools cannot be sent to {NAME}",
            )
        )
    return found


def _leave_out(conversation: Any, refused: list[Problem]) -> None:
    """Leave what Mistral has no field for out of the copy the shared walk writes."""
    if not refused:
        return
    messages = conversation.__dict__["messages"] = list(conversation.messages)
    for problem in refused:
        parts = problem.pointer.split("/")
        if parts[1] == "messages":
            index = int(parts[2])
            messages[index] = messages[index].model_copy(update={"name": None})
        else:
            put(conversation, "tool_choice", None)


def _id_problems(conversation: Any) -> list[Problem]:
    """Tool-call ids Mistral refuses (API reference, ToolCall: 9 characters [a-zA-Z0-9])."""
    found = []
    for index, message in enumerate(conversation.messages):
        ids: list[tuple[str, str]] = []
        if message.role == "assistant":
            ids += [
                (pointer(index, "tool_calls", position, "id"), call.id)
                for position, call in enumerate(message.tool_calls)
            ]
        elif message.role == "tool":
            ids.append((pointer(index, "tool_call_id"), message.tool_call_id))
        for where, value in ids:
            if not ID_PATTERN.fullmatch(value):
                found.append(
                    Problem(
                        where,
                        "pattern",
                        f"tool call id {value!r} must be 9 characters [a-zA-Z0-9] "
                        "(mistral_ids=True rewrites it)",
                    )
                )
    return found
