"""What every provider codec shares.

Options, input coercion, the unsupported-content policy, structural checks,
tool-argument text, data URLs and extras. A codec module (``openai_chat``,
``openai_responses``, ``anthropic``, ``gemini``) offers the same verbs, built on
these pieces:

- ``encode(messages_or_conversation, **options) -> dict``
- ``decode_conversation(payload) -> Conversation`` and ``decode_messages(payload)``
- ``decode_response(payload) -> AssistantMessage``
- ``check(messages_or_conversation, **options) -> list[Problem]``
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any, Literal, ParamSpec, TypedDict, TypeVar, cast, get_args

from chatschema_models.content import ContentBlock, TextBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message, ToolMessage
from chatschema_models.tool import ToolCall, ToolDefinition
from pydantic import BaseModel

from chatschema import limits
from chatschema._gc import collector_paused
from chatschema.errors import ConversionError, OptionError, Problem, UnsupportedContentError
from chatschema.validation import parse

__all__ = [
    "PROVIDERS",
    "ContentFormat",
    "EncodeOptions",
    "Options",
    "ProviderName",
    "application_tools",
    "arguments_text",
    "as_json",
    "content_blocks",
    "data_url",
    "decoder",
    "depth_error",
    "too_deep_error",
    "extras_of",
    "guarded",
    "foreign_tool_problems",
    "is_foreign_tool",
    "joined_text",
    "parse_arguments",
    "parse_data_url",
    "pointer",
    "sendable_tools",
    "set_extras",
    "structural_error",
    "to_conversation",
    "tool_pairing_problems",
    "tool_call_as_text",
    "tool_result_as_text",
    "tools_as_text",
]

ProviderName = Literal["openai_chat", "openai_responses", "anthropic", "gemini"]
PROVIDERS: tuple[ProviderName, ...] = get_args(ProviderName)

ContentFormat = Literal["auto", "string", "parts"]
ReasoningPolicy = Literal["replay", "text", "drop"]
UnsupportedPolicy = Literal["error", "drop", "placeholder"]
SystemRole = Literal["system", "developer"]


class EncodeOptions(TypedDict, total=False):
    """Keyword options of every codec's ``encode`` (and ``check``).

    Each means the same in every codec; a codec for which one makes no sense
    ignores it (``system_role`` outside OpenAI, ``reasoning_content`` outside
    Chat Completions).
    """

    content_format: ContentFormat
    """``"auto"`` (default): the provider's natural form; ``"string"``: message
    content as one string, text parts joined by a newline (for servers that only
    take strings; non-text content then falls under ``unsupported``); ``"parts"``:
    always a list of parts."""
    vision: bool
    """Whether the model takes images (default ``True``). Without vision, images are
    unsupported content."""
    prompt_cache: bool
    """Whether blocks' ``cache_control`` becomes the provider's cache markers
    (default ``True``)."""
    native_tools: bool
    """Native function calling (default ``True``). ``False`` renders tool calls,
    tool results and tool definitions as text, for models without tool support."""
    reasoning: ReasoningPolicy
    """Reasoning blocks: ``"replay"`` (default) sends back what this provider
    produced, unchanged, and leaves out other providers' reasoning, which the
    provider cannot verify; ``"text"`` also renders other providers' reasoning text
    as text; ``"drop"`` sends no reasoning."""
    system_role: SystemRole
    """OpenAI: the role of instructions, ``"system"`` (default) or ``"developer"``."""
    reasoning_content: bool
    """OpenAI Chat Completions: send reasoning text as ``reasoning_content`` on
    assistant messages, for OpenAI-compatible servers that want it back (default
    ``False``)."""
    unsupported: UnsupportedPolicy
    """Content the format cannot carry: ``"error"`` (default) raises
    :class:`~chatschema.UnsupportedContentError` naming message and block;
    ``"drop"`` leaves it out; ``"placeholder"`` puts a short text in its place.
    Another format's hosted tools (``ToolDefinition.provider``) fall under it too;
    "drop" and "placeholder" both leave them out. A message that drops leave
    empty is not sent."""
    check: bool
    """Run :func:`check` first and raise with every structural problem (default
    ``True``)."""


@dataclass(frozen=True, slots=True)
class Options:
    """The resolved options of one ``encode`` call (see :class:`EncodeOptions`)."""

    provider: ProviderName
    content_format: ContentFormat = "auto"
    vision: bool = True
    prompt_cache: bool = True
    native_tools: bool = True
    reasoning: ReasoningPolicy = "replay"
    system_role: SystemRole = "system"
    reasoning_content: bool = False
    unsupported: UnsupportedPolicy = "error"
    check: bool = True

    @classmethod
    def resolve(cls, provider: ProviderName, options: Mapping[str, Any]) -> Options:
        """Validate keyword options; unknown names and bad values raise OptionError."""
        known = {field.name: field for field in fields(cls) if field.name != "provider"}
        for name, value in options.items():
            if name not in known:
                raise OptionError(
                    f"unknown option {name!r} for {provider}; options: {', '.join(known)}"
                )
            allowed = _CHOICES.get(name)
            if allowed is not None and value not in allowed:
                raise OptionError(f"option {name}={value!r}: expected one of {allowed}")
            if allowed is None and not isinstance(value, bool):
                raise OptionError(f"option {name}={value!r}: expected True or False")
        return cls(provider=provider, **options)

    def unsupported_content(
        self, what: str, *, message_index: int, block_index: int | None = None
    ) -> str | None:
        """Apply the unsupported-content policy.

        Returns:
            The placeholder text under ``"placeholder"``, None under ``"drop"``.

        Raises:
            UnsupportedContentError: under ``"error"``.
        """
        if self.unsupported == "error":
            raise UnsupportedContentError(
                f"{what} cannot be sent to {self.provider} "
                "(options: unsupported='drop' or 'placeholder')",
                provider=self.provider,
                message_index=message_index,
                block_index=block_index,
            )
        if self.unsupported == "placeholder":
            return f"[{what} omitted: not supported by {self.provider}]"
        return None

    def replays(self, block_provider: str | None) -> bool:
        """Whether a reasoning block produced by ``block_provider`` is sent back."""
        return self.reasoning != "drop" and block_provider == self.provider


_CHOICES: dict[str, tuple[str, ...]] = {
    "content_format": get_args(ContentFormat),
    "reasoning": get_args(ReasoningPolicy),
    "system_role": get_args(SystemRole),
    "unsupported": get_args(UnsupportedPolicy),
}

# ---------------------------------------------------------------------------- input


def to_conversation(value: Any) -> Conversation:
    """Accept a Conversation, a sequence of messages, or their JSON-like dicts.

    Dicts are validated first; models pass through.

    Raises:
        ValidationError: for input that is not a conversation or a list of messages.
    """
    if isinstance(value, Conversation):
        return value
    if isinstance(value, BaseModel):  # a single message
        return cast(Conversation, parse({"messages": [value]}, "Conversation"))
    if isinstance(value, (Mapping, str, bytes, bytearray)):
        return cast(Conversation, parse(value, "Conversation"))
    if isinstance(value, Iterable):
        return cast(Conversation, parse({"messages": list(value)}, "Conversation"))
    return cast(Conversation, parse(value, "Conversation"))  # reports the type problem


def as_json(payload: Any) -> Any:
    """Official SDK objects (pydantic models) to plain JSON data; JSON passes through."""
    if isinstance(payload, BaseModel):
        return payload.model_dump(mode="json", exclude_none=True)
    if isinstance(payload, (str, bytes, bytearray)):
        return _loads(payload, "input")
    return payload


# ------------------------------------------------------------------ resource limits

_P = ParamSpec("_P")
_R = TypeVar("_R")


def depth_error(payload: Any, provider: str, *, where: str = "input") -> ConversionError | None:
    """The error for a payload nested deeper than :data:`chatschema.limits.MAX_DEPTH`.

    None when the payload is within the limit. The problem's pointer names the
    first value past it.
    """
    problem = limits.depth_problem(payload)
    if problem is None:
        return None
    return ConversionError(f"{where} {problem.message}", provider=provider, problems=[problem])


def too_deep_error(provider: str, value: Any = None) -> ConversionError:
    """The error for input nested past what the interpreter can walk, naming where."""
    problem = (None if value is None else limits.depth_problem(value)) or limits.too_deep()
    return ConversionError(
        f"input nested too deeply to convert: {problem.message}",
        provider=provider,
        problems=[problem],
    )


def _loads(text: str | bytes | bytearray, provider: str) -> Any:
    try:
        return json.loads(text)
    except ValueError as error:
        raise ConversionError(f"not valid JSON: {error}", provider=provider) from None
    except RecursionError:
        raise too_deep_error(provider) from None


def decoder(provider: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Guard a codec's ``decode_*`` verb (payload first) against runaway nesting.

    A payload nested deeper than :data:`chatschema.limits.MAX_DEPTH` is refused with
    a :class:`ConversionError` naming where, before any work: every value the decoder
    then reads is shallow enough to walk, copy and serialize without recursion
    trouble. The walk costs about 5% of decoding. A payload given as JSON text is
    parsed here.
    """

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            if args:
                payload = args[0]
                if isinstance(payload, (str, bytes, bytearray)):
                    payload = _loads(payload, provider)
                    args = (payload, *args[1:])  # type: ignore[assignment]
                error = depth_error(payload, provider)
                if error is not None:
                    raise error
            try:
                return function(*args, **kwargs)
            except RecursionError:  # a string of JSON inside, nested past the limit
                raise too_deep_error(provider) from None

        return collector_paused(wrapper)

    return decorate


def guarded(provider: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Guard ``encode`` / ``check`` against models nested past what can be walked.

    Models built in code (a ``NonStandardBlock`` value, tool arguments) can nest
    deeper than the interpreter recurses: they raise :class:`ConversionError`,
    never ``RecursionError``.
    """

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            try:
                return function(*args, **kwargs)
            except RecursionError:
                raise too_deep_error(provider, args[0] if args else None) from None

        return collector_paused(wrapper)

    return decorate


def pointer(message_index: int, *rest: str | int) -> str:
    """JSON pointer into a conversation: ``/messages/3/content/1``."""
    return "/messages/" + "/".join(str(part) for part in (message_index, *rest))


# -------------------------------------------------------------------------- content


def content_blocks(content: str | Sequence[ContentBlock]) -> list[ContentBlock]:
    """A message's content as blocks (a string is one text block, ``""`` none)."""
    if isinstance(content, str):
        return [TextBlock(text=content)] if content else []
    return list(content)


def joined_text(content: str | Sequence[ContentBlock]) -> str:
    """The text blocks of a content, joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(block.text for block in content if block.type == "text")


_DATA_URL = re.compile(r"data:(?P<mime>[^;,]+)(?P<params>(?:;[^;,]+)*?);base64,(?P<data>.*)", re.S)


def data_url(mime_type: str, base64: str) -> str:
    """``data:<mime>;base64,<data>``."""
    return f"data:{mime_type};base64,{base64}"


def parse_data_url(url: str) -> tuple[str, str] | None:
    """``(mime_type, base64)`` of a base64 data URL, else None."""
    if not url.startswith("data:"):
        return None
    match = _DATA_URL.fullmatch(url)
    if match is None:
        return None
    return match["mime"] + match["params"], match["data"]


def extras_of(model: Any, provider: str) -> dict[str, Any]:
    """The part of a model's ``extras`` that belongs to ``provider`` (empty if none)."""
    extras = getattr(model, "extras", None)
    if not extras:
        return {}
    value = extras.get(provider)
    return value if isinstance(value, dict) else {}


def set_extras(fields_: dict[str, Any], provider: str, data: Mapping[str, Any]) -> None:
    """Put provider data under ``extras[provider]`` of a model's keyword arguments."""
    if data:
        fields_.setdefault("extras", {})[provider] = dict(data)


# ------------------------------------------------------------------------ arguments


def arguments_text(call: ToolCall, provider: str, extras: Mapping[str, Any] | None = None) -> str:
    """The JSON text of a call's arguments for a provider that takes strings.

    The exact text the provider sent is kept in ``extras[provider]["arguments"]``
    by the decoders and reused when it still says the same as ``arguments`` (prompt
    caches depend on the exact bytes); otherwise the arguments are serialized as
    ``json.dumps(arguments, ensure_ascii=False)`` writes them. ``extras``: the
    call's extras for ``provider``, when the caller already has them.
    """
    raw = (extras if extras is not None else extras_of(call, provider)).get("arguments")
    if isinstance(raw, str):
        parsed, error = parse_arguments(raw)
        if error is None and parsed == call.arguments:
            return raw
    return _json_text(call.arguments)


# json.dumps(value, ensure_ascii=False) builds an encoder on every call: one is kept.
_json_text = json.JSONEncoder(ensure_ascii=False).encode


def parse_arguments(raw: str) -> tuple[dict[str, Any] | None, str | None]:
    """Parse a tool call's argument text: ``(object, None)`` or ``(None, error)``.

    An empty string means no arguments (``{}``), as providers stream it.
    """
    if raw.strip() == "":
        return {}, None
    try:
        value = json.loads(raw)
    except ValueError as error:
        return None, f"arguments are not valid JSON: {error}"
    except RecursionError:
        return None, "arguments are nested too deeply to read as JSON"
    if not isinstance(value, dict):
        return None, f"arguments must be a JSON object, not {type(value).__name__}"
    return value, None


# ------------------------------------------------------------------- hosted tools


def application_tools(tools: Sequence[ToolDefinition] | None) -> list[ToolDefinition]:
    """The tools the application runs (no ``provider``): what text rendering describes."""
    return [tool for tool in tools or () if tool.provider is None]


def is_foreign_tool(tool: ToolDefinition, provider: str) -> bool:
    """Whether a tool is hosted by another wire format (``provider`` set, not ours)."""
    return tool.provider is not None and tool.provider != provider


def foreign_tool_problems(
    tools: Sequence[ToolDefinition] | None, options: Options
) -> list[Problem]:
    """``unsupported_content`` at ``/tools/<i>`` for another format's hosted tools.

    Only under ``unsupported="error"`` and with native tools (without them no tool
    definition is sent as such); "drop" and "placeholder" both leave such a tool out.
    """
    if options.unsupported != "error" or not options.native_tools:
        return []
    return [
        Problem(
            f"/tools/{index}",
            "unsupported_content",
            f"{tool.provider} hosted tool {tool.name!r} cannot be sent to {options.provider} "
            "(options: unsupported='drop' or 'placeholder' leave it out)",
        )
        for index, tool in enumerate(tools or ())
        if is_foreign_tool(tool, options.provider)
    ]


def sendable_tools(
    tools: Sequence[ToolDefinition] | None, options: Options
) -> list[ToolDefinition]:
    """The tool definitions ``encode`` sends: other formats' hosted tools left out.

    Under ``unsupported="error"`` such a tool raises (what ``check`` reports); under
    ``"drop"`` and ``"placeholder"`` it is left out (a tool cannot be a text
    placeholder).

    Raises:
        UnsupportedContentError: under ``unsupported="error"``, listing every such tool.
    """
    problems = foreign_tool_problems(tools, options)
    if problems:
        raise structural_error(problems, options.provider)
    return [tool for tool in tools or () if not is_foreign_tool(tool, options.provider)]


# --------------------------------------------------------------- tools as plain text


def tool_call_as_text(call: ToolCall) -> str:
    """A tool call written out, for models without native function calling."""
    arguments = json.dumps(call.arguments, ensure_ascii=False)
    return f'<tool_call id="{call.id}" name="{call.name}">{arguments}</tool_call>'


def tool_result_as_text(message: ToolMessage, text: str) -> str:
    """A tool result written out, for models without native function calling."""
    name = f' name="{message.name}"' if message.name else ""
    return (
        f'<tool_result id="{message.tool_call_id}"{name} status="{message.status}">'
        f"{text}</tool_result>"
    )


def tools_as_text(tools: Sequence[ToolDefinition]) -> str:
    """Tool definitions written out, to go with the instructions.

    Hosted tools (``provider`` set) are not written out: only the provider runs
    them, so a model without native tools cannot use them (see
    :func:`application_tools`).
    """
    lines = [
        "You can call these tools. To call one, answer with "
        '<tool_call id="<unique id>" name="<tool name>"><JSON arguments></tool_call>.'
    ]
    for tool in tools:
        if tool.provider is not None:
            continue  # a hosted tool: the application cannot run it from text
        schema = json.dumps(tool.parameters, ensure_ascii=False)
        description = f": {tool.description}" if tool.description else ""
        lines.append(f"- {tool.name}{description}\n  parameters: {schema}")
    return "\n".join(lines)


# ------------------------------------------------------------------ structural checks


def structural_error(problems: Sequence[Problem], provider: str) -> ConversionError:
    """The exception ``encode`` raises for what ``check`` found.

    :class:`UnsupportedContentError` when every problem is content the format cannot
    carry (keyword ``unsupported_content``), else :class:`ConversionError`; either way
    it lists every problem and names the message (and block) of the first.
    """
    message_index = block_index = None
    for problem in problems:
        parts = problem.pointer.split("/")
        if len(parts) > 2 and parts[1] == "messages" and parts[2].isdigit():
            message_index = int(parts[2])
            if len(parts) > 4 and parts[3] == "content" and parts[4].isdigit():
                block_index = int(parts[4])
            break
    unsupported = all(problem.keyword == "unsupported_content" for problem in problems)
    count = len(problems)
    if unsupported:
        kind: type[ConversionError] = UnsupportedContentError
        reason = f"{count} part{'s' * (count != 1)} {provider} cannot carry"
    else:
        kind = ConversionError
        reason = f"{count} structural problem{'s' * (count != 1)}"
    return kind(
        reason,
        provider=provider,
        message_index=message_index,
        block_index=block_index,
        problems=problems,
    )


def tool_pairing_problems(
    messages: Sequence[Message],
    *,
    adjacent: bool,
    provider: str,
    include_invalid: bool = False,
    requirement: str = "requires one",
) -> list[Problem]:
    """Tool calls and results that do not pair up.

    Every tool result must answer a call of an earlier assistant message that no
    result has answered yet; every call must be answered, and call ids must be
    unique. With ``adjacent``, the results must come right after the assistant
    message, before any other message (OpenAI Chat Completions). With
    ``include_invalid``, invalid tool calls that have an id count as calls (formats
    that send them back, and so need their results).
    """
    problems: list[Problem] = []
    # call id -> where it is (message, list, position): pointers are built for problems only
    pending: dict[str, tuple[int, str, int]] = {}
    answered: set[str] = set()

    def unanswered(before: int) -> None:
        for call_id, (index, field, position) in pending.items():
            problems.append(
                Problem(
                    pointer(index, field, position, "id"),
                    "unanswered_tool_call",
                    f"tool call {call_id!r} has no tool result"
                    + (f" before message {before}" if before >= 0 else "")
                    + f" ({provider} {requirement})",
                )
            )
        pending.clear()

    def called(call_id: str, where: tuple[int, str, int]) -> None:
        if call_id in pending or call_id in answered:
            problems.append(
                Problem(
                    pointer(*where, "id"),
                    "duplicate_tool_call_id",
                    f"tool call id {call_id!r} is used twice",
                )
            )
        pending[call_id] = where

    for index, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            call_id = message.tool_call_id
            if call_id in pending:
                pending.pop(call_id)
                answered.add(call_id)
            else:
                reason = (
                    "answers a call that was already answered"
                    if call_id in answered
                    else "answers no earlier tool call"
                )
                problems.append(
                    Problem(
                        pointer(index, "tool_call_id"),
                        "orphan_tool_result",
                        f"tool result for {call_id!r} {reason}",
                    )
                )
            continue
        if pending and (adjacent or isinstance(message, AssistantMessage)):
            unanswered(index)
        if isinstance(message, AssistantMessage):
            for position, call in enumerate(message.tool_calls):
                called(call.id, (index, "tool_calls", position))
            if include_invalid:
                for position, invalid in enumerate(message.invalid_tool_calls):
                    if invalid.id is not None:
                        called(invalid.id, (index, "invalid_tool_calls", position))
    unanswered(-1)
    return problems
