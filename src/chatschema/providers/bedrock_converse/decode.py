"""Reading Converse requests (histories) and responses into the neutral model."""

from __future__ import annotations

from typing import Any

from chatschema_models.content import ContentBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import InvalidToolCall, ToolCall

from chatschema.providers._common import decoder
from chatschema.providers._common.replay import stamped
from chatschema.providers.bedrock_converse.blocks import (
    content_block,
    finish,
    load,
    member,
    reader,
    result_content,
    server_result_block,
    tool_use,
    with_cache_points,
)
from chatschema.providers.bedrock_converse.request import read_request
from chatschema.providers.bedrock_converse.usage import response_fields
from chatschema.providers.bedrock_converse.wire import (
    CACHE_POINT,
    IN_MESSAGES,
    NAME,
    NEW_MESSAGE,
)

# ================================================================= public verbs


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """Read a Converse request into a neutral conversation.

    Args:
        payload: the keyword arguments of ``bedrock_runtime.converse(**kwargs)`` or
            ``converse_stream`` (what :func:`encode` returns; blobs as ``bytes`` or
            as base64 text, the REST API's JSON form), a bare list of messages, one
            message, or JSON text of these.

    ``modelId``, ``inferenceConfig``, the ``top_k`` and ``thinking`` of
    ``additionalModelRequestFields`` and ``outputConfig`` go to ``settings``; every
    other request key (``guardrailConfig``, ``promptVariables``,
    ``requestMetadata``, ``performanceConfig``, ``serviceTier`` ...) and the
    unmapped rest of a partly mapped one are kept verbatim in
    ``extras["bedrock_converse"]``.

    Raises:
        ConversionError: naming the message and block of anything malformed.
    """
    data = load(payload)
    fields: dict[str, Any] = {}
    history = _Decoder()
    if isinstance(data, dict) and "role" not in data:
        messages = read_request(data, fields, history.system)
    elif isinstance(data, dict):
        messages = [data]
    else:
        messages = data
    if not isinstance(messages, (list, tuple)):
        reader.fail("expected a list of messages, a message, or a Converse request")
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
    """Read a ``converse`` response (the dict boto3 returns, or its JSON).

    Tool calls get ``index`` = their position in ``output.message.content``;
    ``usage.input_tokens`` counts cache reads and writes too (Converse's
    ``inputTokens`` does not); ``metrics``, ``additionalModelResponseFields``,
    ``trace``, ``performanceConfig``, ``serviceTier``, ``ResponseMetadata`` and
    usage counts the neutral model has no name for (``serverToolUsage``,
    ``cacheDetails`` ...) go to ``response_metadata["bedrock_converse"]``.

    Raises:
        ConversionError: for anything that is not a Converse response.
    """
    data = load(payload)
    if not isinstance(data, dict):
        reader.fail("expected a Converse response object")
    output = data.get("output")
    message = output.get("message") if isinstance(output, dict) else None
    if (
        not isinstance(output, dict)
        or not isinstance(message, dict)
        or not isinstance(message.get("content"), list)
    ):
        reader.fail("expected a Converse response with `output.message.content`")
    if message.get("role", "assistant") != "assistant":
        reader.fail(f"a response has role 'assistant', not {message.get('role')!r}")
    fields: dict[str, Any] = {"provider": NAME}
    metadata: dict[str, Any] = {}
    response_fields(data, fields, metadata)
    rest = {key: value for key, value in output.items() if key != "message"}
    rest.update((key, value) for key, value in message.items() if key not in ("role", "content"))
    if rest:
        metadata["output"] = rest
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return stamped(assistant_message(message["content"], 0, positions=True, **fields))


# ===================================================================== messages


class _Decoder:
    """Wire messages to neutral ones, remembering tool names by call id."""

    def __init__(self) -> None:
        self.tool_names: dict[str, str] = {}
        self.messages: list[Message] = []
        self.leading = True  # no message but system ones decoded yet

    def system(self, content: Any, index: int | None, extras: dict[str, Any] | None = None) -> None:
        """The top-level ``system`` list (``index`` None) or a ``system`` role message."""
        blocks = reader.list(content, "system content", index)
        out = _blocks(blocks, index)
        fields: dict[str, Any] = {"content": _simple(out)}
        if extras:
            fields["extras"] = {NAME: extras}
        self.messages.append(reader.build(SystemMessage, fields, index))

    def message(self, raw: Any, index: int, previous_role: str | None) -> str:
        """Decode one wire message; returns its role.

        A message of the role of the one before it is marked ``new_message``: the
        encoder would otherwise merge it into that turn.
        """
        if not isinstance(raw, dict):
            reader.fail("a message must be an object", index)
        role = raw.get("role")
        content = raw.get("content")
        if not isinstance(content, list):
            reader.fail("message content must be a list of blocks", index)
        extras: dict[str, Any] = {}
        other = {key: value for key, value in raw.items() if key not in ("role", "content")}
        if other:
            extras["message"] = other  # the wire message's own other keys
        start = len(self.messages)
        if role == "system":
            if self.leading:
                extras[IN_MESSAGES] = True  # sent in place, not in the top-level system
            self.system(content, index, extras)
            return "system"
        self.leading = False
        only = content[0] if len(content) == 1 else None
        if type(only) is dict and len(only) == 1 and type(only.get("text")) is str and only["text"]:
            # the common shape, one text block: a string, as the general path makes it
            # (not an empty one: ``[{"text": ""}]`` is not ``[]``, and goes back as it came)
            if role == "user":
                self.messages.append(UserMessage(content=only["text"]))
            elif role == "assistant":
                self.messages.append(AssistantMessage(content=only["text"]))
            else:
                reader.fail(f"unknown role {role!r}", index)
        elif role == "user":
            self.user(content, index)
        elif role == "assistant":
            calls = self.assistant(content, index)
            for call in calls:
                self.tool_names[call.id] = call.name
        else:
            reader.fail(f"unknown role {role!r}", index)
        if role == previous_role and len(self.messages) > start:
            extras[NEW_MESSAGE] = True
        if extras and len(self.messages) > start:
            first = self.messages[start]
            merged = dict(first.extras or {})
            merged[NAME] = {**merged.get(NAME, {}), **extras}
            self.messages[start] = first.model_copy(update={"extras": merged})
        return str(role)

    def assistant(self, content: list[Any], index: int) -> list[ToolCall]:
        """An assistant wire message: one assistant message; returns its calls."""
        message = assistant_message(content, index, positions=False)
        self.messages.append(message)
        return message.tool_calls

    def user(self, content: list[Any], index: int) -> None:
        """A user wire message: its tool results as tool messages, then the user message."""
        blocks: list[ContentBlock] = []
        results: list[Message] = []
        for position, item, cache in with_cache_points(content):
            if isinstance(item, dict) and len(item) == 1 and "toolResult" in item:
                results.append(self.tool_result(item["toolResult"], index, position, cache))
            else:
                blocks.append(content_block(item, index, position, cache))
        self.messages.extend(results)
        if blocks or not results:
            self.messages.append(UserMessage(content=_simple(blocks)))

    def tool_result(
        self, raw: Any, index: int, position: int, cache: dict[str, Any] | None
    ) -> ToolMessage:
        """A ``toolResult`` block as a tool message, named after its call."""
        if not isinstance(raw, dict):
            reader.fail("a toolResult block must be an object", index, position)
        call_id = raw.get("toolUseId")
        if not isinstance(call_id, str) or not call_id:
            reader.fail("a toolResult block needs a string `toolUseId`", index, position)
        fields: dict[str, Any] = {"tool_call_id": call_id}
        extras: dict[str, Any] = {}
        content = result_content(raw.get("content", []), index, position)
        fields["content"] = _simple(content, tool=True)
        status = raw.get("status")
        if status == "error":
            fields["status"] = "error"
        elif status is not None:
            extras["status"] = status  # "success" said explicitly, sent back as it came
        extras.update(
            (key, value)
            for key, value in raw.items()
            if key not in ("toolUseId", "content", "status")
        )
        if cache is not None:
            extras[CACHE_POINT] = cache
        name = self.tool_names.get(call_id)
        if name:
            fields["name"] = name
        return reader.build(ToolMessage, finish(fields, extras), index, position)


# ======================================================================= blocks


def _simple(blocks: list[ContentBlock], *, tool: bool = False) -> str | list[ContentBlock]:
    """One plain text block, not empty, as a string; else blocks.

    An empty text block stays a block: the string ``""`` is written as no block at
    all, and ``[{"text": ""}]`` goes back as it came.
    """
    if len(blocks) == 1:
        block = blocks[0]
        if block.type == "text" and not block.model_fields_set - {"type", "text"} and block.text:
            return block.text
    if tool and not blocks:
        return ""
    return blocks


def _blocks(content: list[Any], index: int | None) -> list[ContentBlock]:
    """Content blocks (system or user side), each with the cache point that follows it."""
    out: list[ContentBlock] = []
    for position, item, cache in with_cache_points(content):
        out.append(content_block(item, index, position, cache))
    return out


def _interleaved(content: list[Any]) -> bool:
    """Whether the calls need their positions to go back in place.

    Without them the encoder writes the other blocks, then the tool calls, then the
    invalid ones (an ``input`` that is no object): positions are needed when a block
    other than a cache point follows a ``toolUse``, or a ``toolUse`` with an object
    input follows an invalid one.
    """
    seen = invalid = False
    for item in content:
        key = next(iter(item), None) if isinstance(item, dict) and len(item) == 1 else None
        if key == "toolUse":
            value = item[key]
            if isinstance(value, dict) and isinstance(value.get("input"), dict):
                if invalid:
                    return True
            else:
                invalid = True
            seen = True
        elif seen and key != "cachePoint":
            return True
    return False


def assistant_message(
    content: list[Any], index: int, *, positions: bool, **more: Any
) -> AssistantMessage:
    """An assistant message from wire content.

    ``positions``: every call gets ``index`` = its position (responses); otherwise
    calls get one only when other content follows a call, which is when the encoder
    needs it to put them back in place.
    """
    blocks: list[ContentBlock] = []
    calls: list[ToolCall] = []
    invalid: list[InvalidToolCall] = []
    with_index = positions or _interleaved(content)
    for position, item, cache in with_cache_points(content):
        key, value = member(item, "a content block", index, position)
        if key == "toolUse":
            decoded = tool_use(
                value, index, position, with_index=with_index, cache=cache, request=not positions
            )
            if isinstance(decoded, ToolCall):
                calls.append(decoded)
            elif isinstance(decoded, InvalidToolCall):
                invalid.append(decoded)
            else:
                blocks.append(decoded)
        elif key == "toolResult":
            blocks.append(server_result_block(value, index, position, cache))
        else:
            blocks.append(content_block(item, index, position, cache))
    fields: dict[str, Any] = dict(more)
    if blocks or not (calls or invalid):
        fields["content"] = _simple(blocks) if not positions else blocks
    if calls:
        fields["tool_calls"] = calls
    if invalid:
        fields["invalid_tool_calls"] = invalid
    return reader.build(AssistantMessage, fields, index)
