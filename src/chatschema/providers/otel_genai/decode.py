"""Reading OpenTelemetry GenAI records (attributes, message lists) into the neutral model.

Read leniently: what instrumentations write besides the schema (see
:mod:`.blocks`) is read all the same and listed under
``extras["otel_genai"]["chatschema.problems"]`` (``response_metadata`` for
replies); what has no neutral place is kept, never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chatschema_models.content import (
    ContentBlock,
    NonStandardBlock,
    ServerToolResultBlock,
    TextBlock,
)
from chatschema_models.conversation import (
    Conversation,
    GenerationSettings,
    JsonObjectResponseFormat,
    TextResponseFormat,
)
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import InvalidToolCall, ToolCall, ToolDefinition
from chatschema_models.usage import Usage

from chatschema._json import copy_json
from chatschema._wire import trusted
from chatschema.errors import ConversionError
from chatschema.providers._common import decoder, is_count, json_text, loads
from chatschema.providers.otel_genai.blocks import (
    CONTENT_TYPES,
    Notes,
    Parts,
    build,
    extras,
    is_id,
    is_text,
    reader,
)
from chatschema.providers.otel_genai.wire import (
    CONVERSATION_ID,
    FINISH_REASONS,
    INPUT_MESSAGES,
    NAME,
    OUTPUT_MESSAGES,
    OUTPUT_TYPE,
    PROBLEMS,
    RAW_FINISH,
    RESPONSE_ID,
    RESPONSE_MODEL,
    ROLE_ALIASES,
    ROLES,
    SETTINGS,
    SYSTEM_INSTRUCTIONS,
    TO_NEUTRAL_FINISH,
    TOOL_DEFINITIONS,
    UNKNOWN_FINISH,
    USAGE,
)

# ================================================================= public verbs


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """Read GenAI attributes into a neutral conversation.

    Args:
        payload: a mapping of attributes (what :func:`encode` returns, a span's
            ``attributes``, or an exported span with an ``attributes`` object),
            an object with an ``attributes`` mapping (an SDK span), a bare
            ``gen_ai.input.messages`` list, or JSON text of these. Structured
            attributes may be JSON text, as spans record them.

    ``gen_ai.request.*`` settings become ``settings``; ``gen_ai.conversation.id`` the
    conversation's id; every other attribute is kept verbatim in
    ``extras["otel_genai"][<attribute>]`` and written back by :func:`encode`.

    Raises:
        ConversionError: only for input that is none of these.
    """
    attributes = _attributes(payload)
    notes = Notes()
    fields: dict[str, Any] = {}
    kept: dict[str, Any] = {}
    messages: list[Message] = []
    if isinstance(attributes, list):
        attributes = {INPUT_MESSAGES: attributes}
    if not isinstance(attributes, Mapping):
        reader.fail("expected GenAI attributes (a mapping) or a gen_ai.input.messages list")
    parts = Parts(notes)
    for key, value in attributes.items():
        if not isinstance(key, str):
            reader.fail(f"attribute names are strings, not {type(key).__name__}")
        if key == SYSTEM_INSTRUCTIONS:
            value = _structured(value, key, notes)
            system = _system(value, parts, notes) if value is not _BAD else None
            if system is None:
                kept[key] = copy_json(attributes[key])
            else:
                messages[:0] = [system]
        elif key == INPUT_MESSAGES:
            value = _structured(value, key, notes)
            if isinstance(value, list):
                messages.extend(_History(parts, notes).read(value))
            else:
                if value is not _BAD:
                    notes.add(f"/{key}", "gen_ai.input.messages is not a list: kept as it came")
                kept[key] = copy_json(attributes[key])
        elif key == TOOL_DEFINITIONS:
            value = _structured(value, key, notes)
            tools = _tools(value, notes) if value is not _BAD else None
            if tools is None:
                kept[key] = copy_json(attributes[key])
            else:
                fields["tools"] = tools
        elif key == CONVERSATION_ID and is_id(value):
            fields["id"] = value
        else:
            kept[key] = copy_json(value)
    settings = _settings(kept, notes)
    if settings is not None:
        fields["settings"] = settings
    if INPUT_MESSAGES not in attributes:
        notes.add("", "no gen_ai.input.messages attribute")
    if notes.items:
        kept[PROBLEMS] = notes.items
    if kept:
        fields["extras"] = {NAME: kept}
    fields["messages"] = messages
    return reader.build(Conversation, fields)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of :func:`decode_conversation` (system instructions first)."""
    return decode_conversation(payload).messages


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """Read a ``gen_ai.output.messages`` value into the reply.

    Args:
        payload: the list of output messages, one output message, a mapping of
            attributes holding ``gen_ai.output.messages`` (its value may be JSON
            text), an object with such ``attributes``, or JSON text of these.

    The first output message is the reply (more than one: the others, one per
    choice, go to ``response_metadata["otel_genai"]["choices"]``);
    ``finish_reason`` is mapped to the neutral one (also raw provider words such as
    ``tool_use`` or ``MAX_TOKENS``, noted as problems) and kept as
    ``raw_finish_reason``; ``gen_ai.response.model`` / ``.id`` and
    ``gen_ai.usage.*`` fill ``model``, ``response_id`` and ``usage``; other
    attributes go to ``response_metadata["otel_genai"]``.

    Raises:
        ConversionError: for input that holds no output message.
    """
    data = _attributes(payload)
    notes = Notes()
    metadata: dict[str, Any] = {}
    fields: dict[str, Any] = {"provider": NAME}
    outputs: Any = data
    if isinstance(data, Mapping) and "parts" not in data and "role" not in data:
        if OUTPUT_MESSAGES not in data:
            reader.fail("expected gen_ai.output.messages (a list of output messages)")
        outputs = _structured(data[OUTPUT_MESSAGES], OUTPUT_MESSAGES, notes)
        if outputs is _BAD:
            reader.fail("gen_ai.output.messages is not valid JSON text")
        _response_attributes(data, fields, metadata, notes)
    if isinstance(outputs, Mapping):
        outputs = [outputs]
    if not isinstance(outputs, list) or not outputs:
        reader.fail("expected at least one output message")
    first = outputs[0]
    if len(outputs) > 1:
        metadata["choices"] = copy_json(outputs[1:])
    if isinstance(first, str):
        notes.add("/0", "an output message is a plain string")
        first = {"role": "assistant", "parts": [first]}
    if not isinstance(first, dict):
        reader.fail(f"an output message must be an object, not {type(first).__name__}")
    history = _History(Parts(notes), notes)
    message = first
    reason = message.get("finish_reason")
    if reason is None and isinstance(metadata.get(FINISH_REASONS), list):
        reasons = metadata[FINISH_REASONS]
        reason = reasons[0] if reasons and isinstance(reasons[0], str) else None
    if isinstance(reason, str) and is_text(reason) and reason != UNKNOWN_FINISH:
        fields["raw_finish_reason"] = reason
        mapped = TO_NEUTRAL_FINISH.get(reason)
        if mapped is None:
            mapped = RAW_FINISH.get(reason.lower(), "other")
            notes.add("/0/finish_reason", f"finish reason {reason!r} is not the schema's")
        fields["finish_reason"] = mapped
    elif reason is None:
        notes.add("/0", "no finish_reason")
    body = {key: value for key, value in message.items() if key != "finish_reason"}
    if reason is not None and "raw_finish_reason" not in fields and reason != UNKNOWN_FINISH:
        body["finish_reason"] = reason  # kept with the message's other members
    replies = history.read([body], output=True)
    reply = replies[0] if replies else AssistantMessage()
    if not isinstance(reply, AssistantMessage) or len(replies) > 1:
        reader.fail("an output message holds what only input messages hold (tool results)")
    if notes.items:
        metadata[PROBLEMS] = notes.items
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return reply.model_copy(update=fields)


# ===================================================================== the record


_BAD: Any = object()


def _attributes(payload: Any) -> Any:
    """The attributes of a payload: a mapping, an exported span, or an SDK span."""
    if isinstance(payload, Mapping):
        inner = payload.get("attributes")
        if (
            isinstance(inner, Mapping)
            and INPUT_MESSAGES not in payload
            and OUTPUT_MESSAGES not in payload
        ):
            return dict(inner)
        return payload
    inner = getattr(payload, "attributes", None)
    if isinstance(inner, Mapping):
        return dict(inner)
    return payload


def _structured(value: Any, key: str, notes: Notes) -> Any:
    """A structured attribute: JSON text parsed (as spans record them)."""
    if isinstance(value, (str, bytes, bytearray)):
        try:
            return loads(value, NAME)
        except ConversionError:
            if key == SYSTEM_INSTRUCTIONS and isinstance(value, str):
                return value  # plain instructions text (seen in instrumentations)
            notes.add(f"/{key}", "not valid JSON text (cut by a size limit?): kept as it came")
            return _BAD
    return value


def _system(value: Any, parts: Parts, notes: Notes) -> SystemMessage | None:
    """``gen_ai.system_instructions`` as a leading system message."""
    where = f"/{SYSTEM_INSTRUCTIONS}"
    markers = {NAME: {"in_instructions": True}}
    if isinstance(value, str) and is_text(value):
        notes.add(where, "system instructions as a plain string, not a list of parts")
        return SystemMessage(content=value, extras=markers)
    if not isinstance(value, list):
        notes.add(where, "system instructions are not a list: kept as they came")
        return None
    blocks: list[ContentBlock] = []
    for position, part in enumerate(value):
        block = parts.content(part, f"{where}/{position}")
        if block is None:  # tool calls or results: not instructions
            block = NonStandardBlock(provider=NAME, value=copy_json(part))
        blocks.append(block)
    return SystemMessage(content=blocks, extras=markers)


FAST = True
"""The fast path for plain text messages; tests turn it off to compare."""
_PLAIN: dict[Any, type[Any]] = {
    "user": UserMessage,
    "assistant": AssistantMessage,
    "system": SystemMessage,
}


class _History:
    """Wire messages to neutral ones: one wire message may hold several."""

    def __init__(self, parts: Parts, notes: Notes) -> None:
        self.parts = parts
        self.notes = notes
        self.pending: list[str] = []  # call ids not answered yet, in order
        self.out: list[Message] = []

    def read(self, messages: list[Any], *, output: bool = False) -> list[Message]:
        """Every wire message, in order (plain text ones on a fast path)."""
        where = OUTPUT_MESSAGES if output else INPUT_MESSAGES
        out = self.out
        for index, message in enumerate(messages):
            if FAST and type(message) is dict and len(message) == 2:
                role = message.get("role")
                cls = _PLAIN.get(role) if type(role) is str else None
                parts = message.get("parts")
                if cls is not None and type(parts) is list and len(parts) <= 1:
                    part = parts[0] if parts else None
                    if part is None:
                        out.append(trusted(cls, {"content": ""}))
                        continue
                    if (
                        type(part) is dict
                        and len(part) == 2
                        and part.get("type") == "text"
                        and type(part.get("content")) is str
                        and part["content"]  # "" is content [""], not no content
                        and is_text(part["content"])
                    ):
                        out.append(trusted(cls, {"content": part["content"]}))
                        continue
            self.message(index, message, f"/{where}/{index}" if not output else f"/{index}")
        return out

    def message(self, index: int, message: Any, where: str) -> None:
        """One wire message (a role and its parts)."""
        if isinstance(message, str):
            self.notes.add(where, "a message is a plain string: read as user text")
            message = {"role": "user", "parts": [{"type": "text", "content": message}]}
        if not isinstance(message, dict):
            reader.fail(f"a message must be an object, not {type(message).__name__}", index)
        markers: dict[str, Any] = {}
        wire_role = message.get("role")
        role = wire_role
        if not isinstance(role, str) or role not in ROLES:
            role = ROLE_ALIASES.get(wire_role, "user") if isinstance(wire_role, str) else "user"
            self.notes.add(f"{where}/role", f"role {wire_role!r} read as {role!r}")
            if isinstance(wire_role, str):
                markers["wire_role"] = wire_role
        parts = message.get("parts")
        member = "parts"
        if parts is None and "content" in message:
            member, parts = "content", message["content"]
            self.notes.add(where, "`content` instead of `parts`")
            if isinstance(parts, str):
                parts = [{"type": "text", "content": parts}] if parts else []
        if not isinstance(parts, list):
            reader.fail(f"a message's parts must be a list, not {type(parts).__name__}", index)
        head: dict[str, Any] = {}
        if is_id(message.get("name")):
            head["name"] = message["name"]
        if is_id(message.get("id")):
            head["id"] = message["id"]
        # a name or id of another kind is kept as it came, with the other members
        known = (
            "role",
            member,
            *(k for k in ("name", "id") if k in head or (k in message and message[k] is None)),
        )
        members = extras(
            {key: value for key, value in message.items() if key not in head}, known, markers
        )
        group = _Group(self, index, role, where, members.get(NAME, {}) if members else {}, head)
        for position, part in enumerate(parts):
            group.part(position, part)
        group.close()


class _Group:
    """The neutral messages one wire message becomes (the first holds its members)."""

    def __init__(
        self,
        history: _History,
        index: int,
        role: str,
        where: str,
        members: dict[str, Any],
        head: dict[str, Any],
    ) -> None:
        self.history = history
        self.index = index
        self.role = role
        self.where = where
        self.members = members  # leftover members and markers of the wire message
        self.head = head  # name and id
        self.blocks: list[ContentBlock] = []
        self.positions: list[int] = []  # of the blocks, among the wire parts
        self.calls: list[tuple[int, ToolCall | InvalidToolCall]] = []
        self.emitted = 0
        self.position = 0

    def part(self, position: int, part: Any) -> None:
        """One part: content, a call (assistant), or a tool result."""
        where = f"{self.where}/parts/{position}"
        history = self.history
        kind = part.get("type") if isinstance(part, dict) else None
        if kind == "tool_call" and self.role == "assistant":
            if part.get("builtin") is True:
                history.notes.add(where, "a built-in tool call as `tool_call` (builtin: true)")
            else:
                call = history.parts.tool_call(part, f"otel_call_{self.index}_{position}")
                if isinstance(call, ToolCall):
                    history.pending.append(call.id)
                self.calls.append((position, call))
                return
        if kind == "tool_call_response" and self.role == "assistant":
            block = self.server_result(part, where)
            if block is not None:
                self.add(position, block)
                return
        elif kind == "tool_call_response":
            self.flush()
            self.emit(self.tool_result(part, position, where))
            return
        if kind == "tool_call" and self.role == "assistant":  # builtin: a server tool call
            block = history.parts.server_call(
                {
                    "type": "server_tool_call",
                    "id": part.get("id"),
                    "name": part.get("name"),
                    "server_tool_call": {"type": part.get("name"), **_object(part, "arguments")},
                }
            )
            if block is not None:
                self.add(position, block)
                return
        block = history.parts.content(part, where)
        if block is None:
            history.notes.add(where, f"a {kind!r} part in a {self.role} message: kept as it came")
            block = NonStandardBlock(provider=NAME, value=copy_json(part))
        self.add(position, block)

    def add(self, position: int, block: ContentBlock) -> None:
        """A content block, at its position among the wire parts."""
        self.blocks.append(block)
        self.positions.append(position)

    def server_result(self, part: dict[str, Any], where: str) -> ContentBlock | None:
        """A ``tool_call_response`` in an assistant message: a built-in tool's outcome."""
        call_id = part.get("id")
        if not is_id(call_id):
            return None
        key = "response" if "response" in part else "result" if "result" in part else None
        if key != "response":
            self.history.notes.add(where, "a tool result without `response`")
        output = copy_json(part[key]) if key is not None else None
        fields: dict[str, Any] = {"tool_call_id": call_id, "output": output}
        known = ("type", "id", key or "response")
        markers = {"as_tool_response": True}
        fields["extras"] = extras(part, known, markers)
        return build(ServerToolResultBlock, fields)  # type: ignore[no-any-return]

    def tool_result(self, part: Any, position: int, where: str) -> Message:
        """A ``tool_call_response`` part as a tool message."""
        history = self.history
        notes = history.notes
        markers: dict[str, Any] = {}
        call_id = part.get("id")
        if not is_id(call_id):
            markers["synthesized_id"] = True
            if call_id is not None:
                markers["wire_id"] = call_id
            call_id = (
                history.pending[0] if history.pending else f"otel_result_{self.index}_{position}"
            )
        if call_id in history.pending:
            history.pending.remove(call_id)
        key = next((k for k in ("response", "result", "content", "output") if k in part), None)
        if key != "response":
            notes.add(where, f"a tool result under {key!r}, not `response`")
        value = part.get(key) if key is not None else ""
        fields: dict[str, Any] = {"tool_call_id": call_id}
        content = self.response(value, where)
        if content is None:
            fields["content"] = value if isinstance(value, str) else json_text(value)
            if not isinstance(value, str):  # JSON, not text: the value itself kept too
                markers["response_json"] = copy_json(value)
        else:
            fields["content"] = content
        known = ["type", "id", key or "response"]
        if part.get("status") == "error" or part.get("is_error") is True:
            fields["status"] = "error"
            known.append("status" if part.get("status") == "error" else "is_error")
        if is_id(part.get("name")):
            fields["name"] = part["name"]
            markers["name_in_part"] = True
            known.append("name")
        wire_role = self.members.get("wire_role", self.role)
        if wire_role != "tool":
            markers["wire_role"] = wire_role
        members = extras(part, tuple(known))
        if members:  # the part's own members: written back on the part
            markers["part"] = members[NAME]
        return self.finish(ToolMessage, fields, markers)

    def response(self, value: Any, where: str) -> list[ContentBlock] | None:
        """A tool response that is a list of parts, as content blocks."""
        if not (
            isinstance(value, list)
            and value
            and all(
                isinstance(item, dict)
                and isinstance(item.get("type"), str)
                and item["type"] in CONTENT_TYPES
                for item in value
            )
        ):
            return None
        blocks = []
        for position, item in enumerate(value):
            block = self.history.parts.content(item, f"{where}/response/{position}")
            if block is None:
                return None
            blocks.append(block)
        return blocks

    def flush(self) -> None:
        """Emit the content gathered so far as a message of the wire role."""
        if self.blocks or self.calls:
            self.emit(self.build_message())

    def close(self) -> None:
        """The end of the wire message: what is left, or an empty message."""
        if self.blocks or self.calls or self.emitted == 0:
            self.emit(self.build_message())

    def build_message(self) -> Message:
        blocks, calls, positions = self.blocks, self.calls, self.positions
        self.blocks, self.calls, self.positions = [], [], []
        fields: dict[str, Any] = {}
        first = blocks[0] if len(blocks) == 1 else None
        if (
            isinstance(first, TextBlock)
            and first.text  # an empty text part is a part: content "" is none
            and first.extras is None
            and first.id is None
            and first.annotations is None
        ):
            fields["content"] = first.text
        else:
            fields["content"] = blocks
        if not blocks:
            fields["content"] = ""
        role = self.role
        if role == "assistant":
            # indexes only where the order is not the encoder's own (content, calls,
            # invalid calls)
            canonical = [
                *positions,
                *(position for position, call in calls if isinstance(call, ToolCall)),
                *(position for position, call in calls if not isinstance(call, ToolCall)),
            ]
            interleaved = canonical != sorted(canonical)
            base = min([*positions, *(position for position, _ in calls)], default=0)
            good: list[ToolCall] = []
            bad: list[InvalidToolCall] = []
            for position, call in calls:
                if interleaved:  # its place among the message's parts
                    call = call.model_copy(update={"index": position - base})
                (good if isinstance(call, ToolCall) else bad).append(call)  # type: ignore[arg-type]
            if good:
                fields["tool_calls"] = good
            if bad:
                fields["invalid_tool_calls"] = bad
            cls: type[Any] = AssistantMessage
        elif role == "system":
            cls = SystemMessage
        else:
            cls = UserMessage
            if role == "tool":
                self.history.notes.add(self.where, "content in a tool message is not a tool result")
                self.members.setdefault("wire_role", "tool")
        return self.finish(cls, fields)

    def emit(self, message: Message) -> None:
        """Add a neutral message to the history."""
        self.history.out.append(message)
        self.emitted += 1

    def finish(
        self, cls: type[Any], fields: dict[str, Any], own: dict[str, Any] | None = None
    ) -> Message:
        """The first message of the group holds the wire message's members."""
        ours: dict[str, Any] = dict(own or {})
        if self.emitted == 0:
            fields.update(self.head)
            for key, value in self.members.items():
                ours.setdefault(key, value)
        else:
            ours["joined"] = True
            if "wire_role" in self.members:
                ours["wire_role"] = self.members["wire_role"]
        if ours:
            fields["extras"] = {NAME: ours}
        message = build(cls, fields)
        if message is None:
            reader.fail(f"a {self.role} message that cannot be read", self.index)
        return message  # type: ignore[no-any-return]


def _object(part: Mapping[str, Any], key: str) -> dict[str, Any]:
    """``{key: value}`` when a part has a dict there (spread into a payload), else {}."""
    value = part.get(key)
    if isinstance(value, dict):
        return dict(value)
    return {} if value is None else {"arguments": value}


# =================================================================== tools, settings


def _tools(value: Any, notes: Notes) -> list[ToolDefinition] | None:
    """``gen_ai.tool.definitions``; None (kept verbatim) when one cannot be read."""
    where = f"/{TOOL_DEFINITIONS}"
    if not isinstance(value, list):
        notes.add(where, "tool definitions are not a list: kept as they came")
        return None
    tools = []
    for position, item in enumerate(value):
        tool = _tool(item) if isinstance(item, dict) else None
        if tool is None:
            notes.add(f"{where}/{position}", "a tool definition without a name: kept as they came")
            return None
        tools.append(tool)
    return tools


def _tool(item: dict[str, Any]) -> ToolDefinition | None:
    name, kind = item.get("name"), item.get("type")
    if not is_id(name) or not isinstance(kind, str):
        return None
    markers: dict[str, Any] = {}
    fields: dict[str, Any] = {"name": name}
    known = ["type", "name", "description", "parameters"]
    if isinstance(item.get("description"), str):
        fields["description"] = item["description"]
    elif item.get("description") is not None:
        known.remove("description")
    parameters = item.get("parameters")
    if isinstance(parameters, dict):
        fields["parameters"] = copy_json(parameters)
    else:
        fields["parameters"] = {}
        if parameters is not None:
            markers["wire_parameters"] = copy_json(parameters)
        elif "parameters" not in item and kind == "function":
            markers["no_parameters"] = True
    if kind == "function":
        if isinstance(item.get("strict"), bool):
            fields["strict"] = item["strict"]
            known.append("strict")
    else:
        provider = item.get("provider")
        fields["provider"] = provider if is_id(provider) else NAME
        known.append("provider")
        markers["type"] = kind
        if provider is not None and not is_id(provider):
            known.remove("provider")
    fields["extras"] = extras(item, tuple(known), markers)
    return build(ToolDefinition, fields)  # type: ignore[no-any-return]


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _settings(kept: dict[str, Any], notes: Notes) -> GenerationSettings | None:
    """``gen_ai.request.*`` and ``gen_ai.output.type`` out of ``kept`` into settings."""
    fields: dict[str, Any] = {}
    originals: dict[str, Any] = {}
    for field, key in SETTINGS.items():
        if key not in kept:
            continue
        value = kept[key]
        read: Any = None
        if field == "model":
            read = value if is_id(value) else None
        elif field in ("max_output_tokens",):
            read = value if is_count(value) else None
        elif field == "seed":
            read = value if type(value) is int else None
        elif field == "top_k":
            if _number(value) and float(value).is_integer() and abs(value) < 2**63:
                read = int(value)
        elif field == "stop":
            if isinstance(value, list) and all(is_text(item) for item in value):
                read = list(value)
        elif _number(value) and value == value and abs(value) != float("inf"):
            read = float(value)
        if read is None:
            notes.add(f"/{key}", f"{key}={value!r} does not read as settings.{field}: kept")
            continue
        fields[field] = read
        originals[key] = kept.pop(key)
    output = kept.get(OUTPUT_TYPE)
    if output in ("text", "json"):
        fields["response_format"] = (
            TextResponseFormat() if output == "text" else JsonObjectResponseFormat()
        )
        originals[OUTPUT_TYPE] = kept.pop(OUTPUT_TYPE)
    if not fields:
        return None
    settings = build(GenerationSettings, fields)
    if settings is None:  # not expected (each value was checked): keep them all as they came
        notes.add("", "request settings that do not read as settings: kept")
        kept.update(originals)
    return settings  # type: ignore[no-any-return]


def _response_attributes(
    data: Mapping[str, Any], fields: dict[str, Any], metadata: dict[str, Any], notes: Notes
) -> None:
    """Model, response id and usage from span attributes; the rest to metadata."""
    usage: dict[str, Any] = {}
    for key, value in data.items():
        if key == OUTPUT_MESSAGES:
            continue
        if key == RESPONSE_MODEL and is_id(value):
            fields["model"] = value
        elif key == RESPONSE_ID and is_id(value):
            fields["response_id"] = value
        elif key in USAGE and is_count(value):
            target = usage
            path = USAGE[key]
            for step in path[:-1]:
                target = target.setdefault(step, {})
            target[path[-1]] = value
        else:
            metadata[key] = copy_json(value)
    if "input_tokens" in usage and "output_tokens" in usage:
        usage["total_tokens"] = usage["input_tokens"] + usage["output_tokens"]
        made = build(Usage, usage)
        if made is not None:
            fields["usage"] = made
            return
    if usage:
        notes.add("", "usage attributes without input and output tokens: kept")
        for key in USAGE:
            if key in data:
                metadata[key] = data[key]
