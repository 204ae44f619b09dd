"""Reading Anthropic histories (requests) and responses into the neutral model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from chatschema_models.content import ContentBlock
from chatschema_models.conversation import Conversation, GenerationSettings
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    AutoToolChoice,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolChoice,
    ToolDefinition,
)
from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage
from pydantic import BaseModel

from chatschema.providers._common import decoder, is_count, no_history
from chatschema.providers._common.replay import stamped
from chatschema.providers.anthropic.blocks import (
    assistant_block,
    load,
    plain,
    plain_deep,
    reader,
    user_side_block,
)
from chatschema.providers.anthropic.settings import read as read_settings
from chatschema.providers.anthropic.wire import CACHE_COUNTS, FINISH_REASONS, NAME

_MISSING: Final = object()

# ================================================================= public verbs


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """Read an Anthropic request history into a neutral conversation.

    Args:
        payload: a request (the keyword arguments of ``client.messages.create``, as
            :func:`encode` returns them, or the REST body), a bare list of messages,
            one message, JSON text of these, or official SDK objects
            (``anthropic.types.Message`` responses in a history included).

    A request's ``system``, ``messages``, ``tools`` and ``tool_choice`` become the
    conversation; its generation keys become ``settings`` (:mod:`.settings`: ``model``,
    ``max_tokens``, ``temperature``, ``top_p``, ``top_k`` (also from ``extra_body``),
    ``stop_sequences``, ``thinking``, ``output_config``); every other key, and what
    those objects hold beyond the neutral fields, is kept verbatim in
    ``extras["anthropic"]``, so that :func:`encode` sends the request back as it came:
    empty values (``tools: []``, ``system: ""``) and ``null`` ones included
    (docs/providers/anthropic.md, "Read in more than one form").

    Raises:
        ConversionError: naming the message and block of anything malformed.
    """
    data = load(payload)
    history = _Decoder()
    fields: dict[str, Any] = {}
    if isinstance(data, Mapping) and "messages" in data:
        if data.get("system") is not None:
            history.system(plain(data["system"]), None)
        messages = plain(data["messages"])
        tools = plain(data.get("tools"))
        if tools is not None:
            reader.list(tools, "tools")
            fields["tools"] = [_tool_definition(tool, k) for k, tool in enumerate(tools)]
        if data.get("tool_choice") is not None:
            fields["tool_choice"] = _tool_choice(data["tool_choice"])
        settings, extras = read_settings(data)
        for key in ("system", "tools", "tool_choice"):
            if key in data and data[key] is None:
                extras[key] = None  # a null goes back as it came
        if settings:
            fields["settings"] = reader.build(GenerationSettings, settings)
        if extras:
            fields["extras"] = {NAME: extras}
    elif isinstance(data, Mapping) and ("role" in data or data.get("type") == "message"):
        messages = [data]
    else:
        messages = data
    if isinstance(messages, Mapping):
        reader.fail(no_history(messages, "messages", NAME))
    if not isinstance(messages, (list, tuple)):
        reader.fail("expected a list of messages, a message, or a request with `messages`")
    previous: str | None = None
    for index, message in enumerate(messages):
        previous = history.message(message, index, previous)
    fields["messages"] = history.messages
    return reader.build(Conversation, fields)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of :func:`decode_conversation` (system prompt first)."""
    return decode_conversation(payload).messages


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """Read a Messages API response (``anthropic.types.Message`` or its JSON).

    Tool calls get ``index`` = their position in the response's ``content`` (the
    other blocks stay in order, without one, as :func:`decode_stream` assembles
    them); ``usage.input_tokens`` counts cache reads and writes too;
    ``stop_sequence``, ``stop_details``, ``container``, the service tier and
    server-tool request counts go to ``response_metadata["anthropic"]``.

    Raises:
        ConversionError: for anything that is not a Messages API response.
    """
    data = load(payload)
    if not isinstance(data, dict) or not isinstance(data.get("content"), list):
        reader.fail("expected a Messages API response with a `content` list")
    if data.get("role", "assistant") != "assistant":
        reader.fail(f"a response has role 'assistant', not {data.get('role')!r}")
    into = _assistant_content(data["content"], 0, positions=True)
    fields: dict[str, Any] = {"provider": NAME}
    metadata: dict[str, Any] = {}
    response_fields(data, fields, metadata)
    if data.get("usage") is not None:
        fields["usage"] = usage(data["usage"], metadata)
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return stamped(_assistant_message(into, 0, **fields))


# ===================================================================== messages


class _Decoder:
    """Wire messages to neutral ones, remembering tool names by call id."""

    def __init__(self) -> None:
        self.tool_names: dict[str, str] = {}
        self.messages: list[Message] = []
        self.leading = True  # no message but system ones decoded yet

    def system(self, value: Any, index: int | None, *, in_messages: bool = False) -> None:
        """The top-level ``system`` (``index`` None) or a system message in ``messages``."""
        fields: dict[str, Any] = {}
        if isinstance(value, str):
            fields["content"] = value
        elif isinstance(value, list):
            fields["content"] = [
                user_side_block(item, index, position) for position, item in enumerate(value)
            ]
        else:
            reader.fail("system content must be a string or a list of blocks", index)
        if in_messages:
            # SDK 2.12 "mid-conversation system messages": a leading one kept in place
            fields["extras"] = {NAME: {"in_messages": True}}
        self.messages.append(reader.build(SystemMessage, fields, index))

    def message(self, raw: Any, index: int, previous_role: str | None) -> str:
        """Decode one wire message; returns its role.

        A message of the role of the one before it is marked ``new_message``: the
        encoder would otherwise merge it into that turn. An SDK response object
        (``anthropic.types.Message``) in a history is what the server sent: its
        ``null`` fields are the response's defaults, not request keys.
        """
        sent = not isinstance(raw, BaseModel)
        raw = plain(raw)
        if not isinstance(raw, dict):
            reader.fail("a message must be an object", index)
        role = raw.get("role", "assistant" if raw.get("type") == "message" else None)
        content = plain(raw.get("content", _MISSING))
        if not isinstance(content, (str, list)):
            reader.fail("message content must be a string or a list of blocks", index)
        start = len(self.messages)
        if role == "system":
            self.system(content, index, in_messages=self.leading)
            return "system"
        self.leading = False
        if role == "user":
            self.user(content, index)
        elif role == "assistant":
            self.assistant(content, index, request=sent)
        else:
            reader.fail(f"unknown role {role!r}", index)
        if role == previous_role and len(self.messages) > start:
            first = self.messages[start]
            extras = dict(first.extras or {})
            extras[NAME] = {**extras.get(NAME, {}), "new_message": True}
            self.messages[start] = first.model_copy(update={"extras": extras})
        return str(role)

    def assistant(self, content: str | list[Any], index: int, *, request: bool = True) -> None:
        """An assistant wire message: one assistant message (``request``: see :func:`rest`)."""
        if isinstance(content, str):
            self.messages.append(AssistantMessage(content=content))
            return
        into = _assistant_content(content, index, positions=False, request=request)
        for call in into.calls:
            self.tool_names[call.id] = call.name
        self.messages.append(_assistant_message(into, index))

    def user(self, content: str | list[Any], index: int) -> None:
        """A user wire message: its tool results as tool messages, then the user message."""
        if isinstance(content, str):
            self.messages.append(UserMessage(content=content))
            return
        blocks: list[ContentBlock] = []
        results: list[Message] = []
        for position, item in enumerate(content):
            raw = plain(item)
            if isinstance(raw, dict) and raw.get("type") == "tool_result":
                results.append(self.tool_result(raw, index, position))
            else:
                blocks.append(user_side_block(raw, index, position))
        self.messages.extend(results)
        if blocks or not results:
            self.messages.append(UserMessage(content=blocks))

    def tool_result(self, raw: dict[str, Any], index: int, position: int) -> ToolMessage:
        """A ``tool_result`` block as a tool message, named after its call."""
        call_id = raw.get("tool_use_id")
        if not isinstance(call_id, str):
            reader.fail("a tool_result block needs a string `tool_use_id`", index, position)
        fields: dict[str, Any] = {"tool_call_id": call_id}
        extras: dict[str, Any] = {}
        content = plain(raw.get("content"))
        if isinstance(content, str):
            fields["content"] = content
            if content == "":
                extras["content"] = ""  # sent back as "" (no content is another request)
        elif isinstance(content, list):
            fields["content"] = [user_side_block(item, index, position) for item in content]
        elif content is not None:
            reader.fail("tool_result content must be a string or a list", index, position)
        elif "content" in raw:
            extras["content"] = None  # a null goes back as it came
        is_error = raw.get("is_error")
        if is_error is True:
            fields["status"] = "error"
        elif is_error is not None and is_error is not False:
            reader.fail("tool_result `is_error` must be a boolean", index, position)
        elif "is_error" in raw:
            extras["is_error"] = is_error  # false or null, said explicitly: sent back
        for key, value in raw.items():
            if key not in ("type", "tool_use_id", "content", "is_error"):
                extras[key] = value  # (null values included: a request's, sent back)
        name = self.tool_names.get(call_id)
        if name:
            fields["name"] = name
        if extras:
            fields["extras"] = {NAME: extras}
        return reader.build(ToolMessage, fields, index, position)


# ======================================================================= blocks


class _Assistant:
    """The decoded content of one assistant wire message."""

    def __init__(self) -> None:
        self.blocks: list[ContentBlock] = []
        self.calls: list[ToolCall] = []
        self.invalid: list[InvalidToolCall] = []


def _interleaved(content: list[Any]) -> bool:
    """Whether another block follows a tool_use block."""
    seen = False
    for item in content:
        kind = item.get("type") if isinstance(item, dict) else getattr(item, "type", None)
        if kind == "tool_use":
            seen = True
        elif seen:
            return True
    return False


def _assistant_content(
    content: list[Any], index: int, *, positions: bool, request: bool = False
) -> _Assistant:
    """Decode assistant content blocks.

    Args:
        content: the wire blocks.
        index: message index for errors.
        positions: set every call's ``index`` (responses); otherwise calls get an
            ``index`` only when content follows a call, which is when the encoder
            needs it to put them back in place. Blocks never get one: a finished
            message's blocks are in order, as a streamed one's are.
        request: the content is a request's (its ``null`` values are kept).
    """
    into = _Assistant()
    index_calls = positions or _interleaved(content)
    for position, item in enumerate(content):
        decoded = assistant_block(item, index, position, index_call=index_calls, request=request)
        if isinstance(decoded, ToolCall):
            into.calls.append(decoded)
        elif isinstance(decoded, InvalidToolCall):
            into.invalid.append(decoded)
        else:
            into.blocks.append(decoded)
    return into


def _assistant_message(into: _Assistant, index: int, **more: Any) -> AssistantMessage:
    """The assistant message of decoded content (``content`` left out for calls only)."""
    fields: dict[str, Any] = dict(more)
    if into.blocks or not (into.calls or into.invalid):
        fields["content"] = into.blocks
    if into.calls:
        fields["tool_calls"] = into.calls
    if into.invalid:
        fields["invalid_tool_calls"] = into.invalid
    return reader.build(AssistantMessage, fields, index)


# ======================================================================== tools


def _tool_definition(raw: Any, index: int) -> ToolDefinition:
    """A tool of the request; a server or built-in tool keeps everything in extras."""
    raw = plain(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
        reader.fail(f"tools[{index}] must be an object with a string `name`")
    schema = raw.get("input_schema")
    fields: dict[str, Any] = {"name": raw["name"]}
    extras: dict[str, Any] = {}
    if schema is not None and raw.get("type") in (None, "custom"):
        reader.object(schema, f"tools[{index}].input_schema")
        fields["parameters"] = schema
        for key, value in raw.items():
            if key in ("name", "input_schema"):
                continue  # (a null value of another key goes back as it came)
            if key == "description" and isinstance(value, str):
                fields["description"] = value
            elif key == "strict" and isinstance(value, bool):
                fields["strict"] = value
            else:
                extras[key] = value
    else:  # a server or built-in tool: everything but the name is Anthropic's, kept
        # as it came (its options are nullable: ``"allowed_domains": null`` goes back)
        fields["parameters"] = {}
        extras = {k: v for k, v in raw.items() if k != "name"}
        if isinstance(raw.get("type"), str) and raw["type"] != "custom":
            fields["provider"] = NAME  # hosted: only Anthropic knows what it is
    if extras:
        fields["extras"] = {NAME: extras}
    return reader.build(ToolDefinition, fields)


def _tool_choice(raw: Any) -> ToolChoice:
    """``tool_choice``: ``auto`` / ``any`` / ``none`` / ``tool``, with parallel use."""
    raw = plain(raw)
    reader.object(raw, "tool_choice")
    kind = raw.get("type")
    disable = raw.get("disable_parallel_tool_use")
    if disable is not None and not isinstance(disable, bool):
        reader.fail("tool_choice.disable_parallel_tool_use must be a boolean")
    extra = set(raw) - {"type", "disable_parallel_tool_use", "name"}
    if extra:
        reader.fail(f"tool_choice has keys the neutral model cannot carry: {sorted(extra)}")
    if kind == "auto":
        return AutoToolChoice() if disable is None else AutoToolChoice(parallel=not disable)
    if kind == "any":
        return RequiredToolChoice() if disable is None else RequiredToolChoice(parallel=not disable)
    if kind == "none":
        return NoneToolChoice()
    if kind == "tool" and isinstance(raw.get("name"), str):
        fields = (
            {"name": raw["name"]}
            if disable is None
            else {"name": raw["name"], "parallel": not disable}
        )
        return reader.build(NamedToolChoice, fields)
    reader.fail(f"unknown tool_choice {raw!r}")


# ======================================================================== usage


def response_fields(
    data: Mapping[str, Any], fields: dict[str, Any], metadata: dict[str, Any]
) -> None:
    """Put a response's top-level keys into message fields and metadata.

    All keys but ``content``, ``role``, ``type`` and ``usage``; a stream's
    ``message_start`` message and ``message_delta`` delta go through here too.
    """
    for key, value in data.items():
        if key in ("content", "role", "type", "usage"):
            continue
        if key == "id" and isinstance(value, str) and value:
            fields["response_id"] = value
        elif key == "model" and isinstance(value, str) and value:
            fields["model"] = value
        elif key == "stop_reason":
            if isinstance(value, str):
                fields["raw_finish_reason"] = value
                fields["finish_reason"] = FINISH_REASONS.get(value, "other")
        elif key == "stop_sequence" or value is not None:
            metadata[key] = plain_deep(value)


def usage(raw: Any, metadata: dict[str, Any]) -> Usage:
    """Neutral usage; other counts (server tool requests, service tier) go to metadata.

    Messages API, "Prompt caching": ``input_tokens`` counts only the uncached part,
    so the neutral input count adds cache reads and writes. A count sent as ``null``
    is one the response does not give (SDK 2.13 ``MessageDeltaUsage`` makes every
    count but ``output_tokens`` optional): it counts as absent.
    """
    raw = plain(raw)
    reader.object(raw, "usage")
    counts: dict[str, int] = {}
    for key in ("input_tokens", "output_tokens"):
        value = raw.get(key)
        counts[key] = 0 if value is None else reader.count(value, f"usage.{key}")
    input_details: dict[str, int] = {}
    output_details: dict[str, int] = {}
    extra: dict[str, Any] = {}
    for key, value in raw.items():
        if value is None or key in counts:
            continue
        if key in CACHE_COUNTS:
            input_details[CACHE_COUNTS[key]] = reader.count(value, f"usage.{key}")
        elif key == "cache_creation" and isinstance(value, dict):
            for name, count in value.items():  # ephemeral_5m / ephemeral_1h input tokens
                if isinstance(name, str) and is_count(count):
                    input_details[name] = count
        elif key == "output_tokens_details" and is_count(
            (value if isinstance(value, dict) else {}).get("thinking_tokens")
        ):
            output_details["reasoning"] = value["thinking_tokens"]
        else:
            extra[key] = value
    prompt = (
        counts["input_tokens"]
        + input_details.get("cache_read", 0)
        + input_details.get("cache_creation", 0)
    )
    fields: dict[str, Any] = {
        "input_tokens": prompt,
        "output_tokens": counts["output_tokens"],
        "total_tokens": prompt + counts["output_tokens"],
    }
    if input_details:
        fields["input_token_details"] = reader.build(InputTokenDetails, input_details)
    if output_details:
        fields["output_token_details"] = reader.build(OutputTokenDetails, output_details)
    metadata.update(extra)
    return reader.build(Usage, fields)
