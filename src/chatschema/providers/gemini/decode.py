"""Gemini histories and responses as neutral messages.

:func:`decode_conversation` reads a ``generateContent`` request (what ``encode``
writes, the REST camelCase shape or google-genai objects); :func:`decode_response`
a ``GenerateContentResponse``. The parts themselves are read in ``blocks.py``,
usage in ``usage.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chatschema_models.content import ContentBlock, TextBlock
from chatschema_models.conversation import Conversation, GenerationSettings
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    AllowedToolsChoice,
    AutoToolChoice,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolChoice,
    ToolDefinition,
)
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError

from chatschema.providers._common import (
    decoder,
    extras_of,
    guarded,
    loads,
    no_history,
    set_extras,
)
from chatschema.providers._common.replay import stamped
from chatschema.providers.gemini.blocks import (
    Call,
    PartReader,
    Scope,
    as_content,
    invalid,
    message_content,
    split,
)
from chatschema.providers.gemini.encode import tool_choice_config, tool_objects
from chatschema.providers.gemini.settings import read_request
from chatschema.providers.gemini.usage import usage_of
from chatschema.providers.gemini.wire import (
    DATA_FIELDS,
    FINISH_REASON_NUMBERS,
    FINISH_REASONS,
    MISSING,
    MODE_NUMBERS,
    NAME,
    PARTS_OBJECT,
    READ,
    SDK_ONLY,
    TOOLS_EMPTY,
    TOOLS_OBJECT,
    blocked,
    content_rest,
    enum_name,
    function_names,
    kept_as_sent,
    load,
    plain,
    plain_with_nulls,
    reason_name,
    tool_output,
    tool_response,
)
from chatschema.validation import shown


@decoder(NAME)
@guarded(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """A Gemini request (what :func:`encode` returns) as a neutral conversation.

    Args:
        payload: a ``generateContent`` request (``{"contents", "system_instruction"?,
            "tools"?, "tool_config"?, "generation_config"?, "model"?, ...}``) with
            snake_case or REST camelCase keys, google-genai's
            ``{"model"?, "contents", "config"}`` form, a bare list of contents, one
            content, JSON text, or google-genai SDK objects.

    Returns:
        The conversation. ``generation_config`` (or ``config``) and ``model`` give
        ``settings`` (``docs/providers/gemini.md``, *Request settings*). Every other
        request key, and what of ``generation_config`` and ``tool_config`` the
        settings and the tool choice do not say, is kept in
        ``extras["gemini"]`` under its snake_case wire key and sent back by
        :func:`encode`; nothing of the request is ignored. Tools other than function
        declarations (Google Search, code execution ...) are tool definitions with
        ``provider="gemini"``, sent back only to Gemini.

    Raises:
        ConversionError: for a payload that is not a Gemini conversation, naming the
            content and part concerned.
    """
    if isinstance(payload, (str, bytes, bytearray)):
        payload = loads(payload, NAME)
    if isinstance(payload, BaseModel):
        payload = plain(payload)
    kept: dict[str, Any] = {}
    settings: dict[str, Any] = {}
    if isinstance(payload, Mapping) and "contents" in payload:
        request, settings, kept = read_request(payload)
        if "contents" not in request:
            READ.fail("expected {'contents': [...]} or a list of contents")
    else:
        data = plain_with_nulls(payload)
        if isinstance(data, list):
            request = {"contents": data}
        elif isinstance(data, dict) and (
            "parts" in data or "role" in data or DATA_FIELDS.intersection(data)
        ):
            request = {"contents": [data]}
        else:
            READ.fail(no_history(data, "contents", NAME, "contents"))

    history = _Decoder()
    history.empty_text = True
    if "system_instruction" in request:
        history.messages.append(_system_message(request["system_instruction"]))
    history.contents(READ.list(request["contents"], "contents"))
    fields: dict[str, Any] = {"messages": history.messages}
    if "tools" in request:
        tools = request["tools"]
        if isinstance(tools, dict):  # one Tool where the API takes a list (HTTP 200)
            tools = [tools]
            kept[TOOLS_OBJECT] = True
        definitions, hollow = _tools(tools)
        if definitions:
            fields["tools"] = definitions
        if hollow or not definitions:  # Tool objects no definition stands for, or []
            kept[TOOLS_EMPTY] = hollow
    if "tool_config" in request:
        choice = _tool_choice(request["tool_config"])
        if choice is not None:
            fields["tool_choice"] = choice
        rest = _unmapped_tool_config(request["tool_config"], choice)
        if rest or choice is None:  # ({}: a tool_config saying nothing, kept as it came)
            kept["tool_config"] = rest
    if settings:
        fields["settings"] = GenerationSettings(**settings)
    if kept:
        fields["extras"] = {NAME: kept}
    return Conversation(**fields)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of a Gemini request (see :func:`decode_conversation`).

    Raises:
        ConversionError: for a payload that is not a Gemini conversation.
    """
    return decode_conversation(payload).messages


@decoder(NAME)
@guarded(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """A ``GenerateContentResponse`` as the assistant message it carries.

    Args:
        payload: the response as REST JSON (camelCase), snake_case data, JSON text,
            or a ``google.genai.types.GenerateContentResponse``.

    Returns:
        The first candidate's content (other candidates, safety ratings, citation
        and grounding metadata, prompt feedback, the raw usage and the content's
        fields other than ``parts`` and ``role`` go to
        ``response_metadata["gemini"]``), with normalized finish reason and usage.
        Enums are read as names or as their numbers (``enum-encoding=int``):
        ``raw_finish_reason`` is the name, and a finish reason sent as a number is
        also kept as it came in ``response_metadata["gemini"]["finish_reason"]``.
        Every tool call's ``index`` is its part position (what
        :func:`decode_stream` numbers calls by). Appended to a history, it encodes
        back to exactly the candidate's content.

    Raises:
        ConversionError: for a payload that is not a Gemini response.
    """
    data = READ.object(load(payload), "a GenerateContentResponse")
    metadata: dict[str, Any] = {
        key: value
        for key, value in data.items()
        if key not in ("candidates", "model_version", "response_id") and key not in SDK_ONLY
    }
    fields: dict[str, Any] = {"provider": NAME}
    model = data.get("model_version")
    if isinstance(model, str) and model:
        fields["model"] = model
    response_id = data.get("response_id")
    if isinstance(response_id, str) and response_id:
        fields["response_id"] = response_id
    candidates = READ.list(data.get("candidates", []), "candidates")
    raw_reason: str | None = None
    if candidates:
        candidate = READ.object(candidates[0], "a candidate")
        content = READ.object(candidate.get("content", {}), "candidate content")
        if content.get("role", "model") != "model":
            READ.fail(f"a candidate's content has role {content.get('role')!r}")
        parts = READ.list(content.get("parts", []), "candidate parts")
        scope = Scope(data.get("response_id"), parts)
        fields.update(_Decoder().model_turn(parts, 0, scope, positions=True))
        reason = candidate.get("finish_reason")
        if reason is not None:
            # a name, or its number (enum-encoding=int, wire.FINISH_REASON_NUMBERS)
            raw_reason = reason_name(reason, FINISH_REASON_NUMBERS, "finish_reason")
            normalized = FINISH_REASONS.get(raw_reason, "other")
            # Gemini says STOP after function calls too: the neutral reason is tool_calls
            if normalized == "stop" and fields.get("tool_calls"):
                normalized = "tool_calls"
            fields["finish_reason"] = normalized
        metadata.update(
            (key, value) for key, value in candidate.items() if kept_as_sent(key, value)
        )
        rest = content_rest(content)
        if rest:
            metadata["content"] = rest
        if len(candidates) > 1:
            metadata["candidates"] = candidates[1:]
    else:
        # PromptFeedback: a blocked prompt has no candidates, only a block_reason
        block = blocked(data.get("prompt_feedback"))
        if block is not None:
            raw_reason = block
            fields["finish_reason"] = "content_filter"
    if raw_reason is not None:
        fields["raw_finish_reason"] = raw_reason
    usage = data.get("usage_metadata")
    if usage is not None:
        fields["usage"] = usage_of(READ.object(usage, "usage_metadata"))
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return stamped(AssistantMessage(**fields))


# ------------------------------------------------------------------------ messages


class _Decoder(PartReader):
    """Turns Gemini contents into neutral messages, in one pass."""

    def __init__(self) -> None:
        super().__init__()
        self.messages: list[Message] = []
        self.after_model = False  # the content before was a model content

    def contents(self, contents: list[Any]) -> None:
        """Read a request's contents, in order."""
        for index, content in enumerate(contents):
            try:
                self.content(content, index)
            except PydanticValidationError as error:  # a value the neutral model refuses
                raise invalid(error, index) from None

    def content(self, content: Any, index: int) -> None:
        """Read one content: a model turn, or a user turn (text and function responses)."""
        if isinstance(content, str):
            self.messages.append(UserMessage(content=content))
            self.after_model = False
            return
        content = as_content(READ.object(content, "a content", index))
        role = content.get("role", "user")
        parts, form = parts_of(content, "parts", index)
        if role == "model":
            # consecutive model contents are one turn: the function responses in the
            # user contents after them answer the calls of any of them (the API takes
            # it, HTTP 200); the next model content after a user one begins a new turn
            fields = self.model_turn(parts, index, str(index), new_turn=not self.after_model)
            if form is not None:
                fields["extras"] = {NAME: {form: True}}
            self.messages.append(AssistantMessage(**fields))
            self.after_model = True
            return
        self.after_model = False
        if role in ("user", "function"):
            self.user_turn(parts, index, None if role == "user" else role, form=form)
        else:
            READ.fail(f"unknown role {shown(role)} (Gemini has 'user' and 'model')", index)

    def model_turn(
        self,
        parts: list[Any],
        index: int,
        scope: Scope | str,
        *,
        positions: bool = False,
        new_turn: bool = True,
    ) -> dict[str, Any]:
        """Keyword arguments of the AssistantMessage for a model content's parts.

        ``positions``: every call keeps its part position in ``ToolCall.index`` (a
        response, as its stream numbers calls); otherwise only calls interleaved
        with other parts do (a history). ``new_turn``: the calls of the model
        contents before are no longer waiting (not so right after another model
        content).
        """
        if new_turn:
            self.start_turn()
        blocks: list[ContentBlock] = []
        calls: list[dict[str, Any]] = []
        invalid: list[dict[str, Any]] = []  # calls without a name (kept as they came)
        for position, part in enumerate(parts):
            key, meta = split(part, index, position)
            if key == "function_call":
                call = self.call(part[key], meta, index, position, scope)
                call["index"] = position
                (calls if "name" in call else invalid).append(call)
            else:
                blocks.append(self.block(part, key, meta, index, position, scope))
        if not positions and not invalid and all(call["index"] >= len(blocks) for call in calls):
            for call in calls:  # calls after all other parts: the default order
                del call["index"]
        fields: dict[str, Any] = {}
        content = message_content(blocks)
        if content != "":
            fields["content"] = content
        if calls:
            fields["tool_calls"] = [ToolCall(**call) for call in calls]
        if invalid:
            fields["invalid_tool_calls"] = [InvalidToolCall(**call) for call in invalid]
        return fields

    def user_turn(
        self, parts: list[Any], index: int, role: str | None, *, form: str | None = None
    ) -> None:
        """One user content: user messages and tool messages, in part order.

        ``form``: the content gave its ``parts`` otherwise than as a list (one part as
        an object, ``null``, absent: :func:`parts_of`), kept on the first message.
        """
        turn: list[Message] = []
        blocks: list[ContentBlock] | None = None
        for position, part in enumerate(parts):
            key, meta = split(part, index, position)
            if key == "function_response":
                if blocks is not None:
                    turn.append(UserMessage(content=message_content(blocks)))
                    blocks = None
                turn.append(self.tool_message(part[key], meta, index, position))
            else:
                if blocks is None:
                    blocks = []
                blocks.append(self.block(part, key, meta, index, position, str(index)))
        if blocks is not None or not turn:
            turn.append(UserMessage(content=message_content(blocks or [])))
        previous = self.messages[-1] if self.messages else None
        for position, message in enumerate(turn):
            joins = position > 0
            default = isinstance(message, ToolMessage) and isinstance(previous, ToolMessage)
            extras: dict[str, Any] = {}
            if joins != default:
                extras["join"] = joins
            if position == 0 and role is not None:
                extras["role"] = role
            if position == 0 and form is not None:
                extras[form] = True
            if extras:
                message.extras = {NAME: {**extras_of(message, NAME), **extras}}
            self.messages.append(message)
            previous = message

    def tool_message(self, value: Any, meta: dict[str, Any], index: int, position: int) -> Message:
        """The ToolMessage of a ``function_response`` part, paired with its call."""
        response = READ.object(value, "function_response", index, position)
        name = response.get("name")
        if name is not None and not isinstance(name, str):
            READ.fail("function_response.name must be a string", index, position)
        wire_id = response.get("id")
        if wire_id is not None and not isinstance(wire_id, str):
            READ.fail("function_response.id must be a string", index, position)
        body = response.get("response")  # (null or absent: written back as it came)
        if body is not None and not isinstance(body, dict):
            READ.fail("function_response.response must be an object", index, position)
        call = self._match(wire_id, name)
        extras: dict[str, Any] = {}
        fields: dict[str, Any] = {}
        if call is not None:
            fields["tool_call_id"] = call.id
            if name and name != call.name:
                fields["name"] = name
            if wire_id is None:
                if call.sends_id:
                    extras["id_absent"] = True
            elif not (call.sends_id and wire_id == call.id):
                extras["id"] = wire_id
        else:
            if wire_id:
                fields["tool_call_id"] = wire_id
            else:
                fields["tool_call_id"] = f"gemini_result_{index}_{position}"
                extras["synthesized_id"] = True
                if wire_id == "":
                    extras["id"] = ""
            if name:
                fields["name"] = name
        text, status = tool_output(body)
        if tool_response(text, status) != body:
            extras["response"] = body
        if status == "error":
            fields["status"] = status
        media: list[ContentBlock] = []
        media_parts = response.get("parts")
        for item in READ.list(media_parts or [], "function_response.parts", index):
            key, item_meta = split(item, index, position)
            media.append(self.block(item, key, item_meta, index, position, str(index)))
        if media:  # an empty output next to media parts is not a text block
            fields["content"] = [TextBlock(text=text), *media] if text else media
        else:
            fields["content"] = text
        rest = {  # (a null or empty known field is kept as it came too)
            k: v
            for k, v in response.items()
            if k not in ("name", "id", "response", "parts") or v is None or v == []
        }
        if rest:
            extras["function_response"] = rest
        if meta:
            extras["part"] = meta
        set_extras(fields, NAME, extras)
        return ToolMessage(**fields)

    def _match(self, wire_id: str | None, name: str | None) -> Call | None:
        """The call a function response answers: by id, else the next one of that name."""
        if wire_id:
            call = self._by_id.get(wire_id)
            if call is not None and not call.answered:
                call.answered = True
                return call
        queue = self._by_name.get(name or "")
        while queue:
            call = queue.popleft()
            if not call.answered:
                call.answered = True
                return call
        return None


# -------------------------------------------------------------------------- blocks


def _system_message(value: Any) -> SystemMessage:
    """``system_instruction`` (a content, its parts, or text) as a system message."""
    if isinstance(value, str):
        return SystemMessage(content=value)
    if isinstance(value, list):  # a list of parts, as the SDK takes it
        value = {"parts": [{"text": p} if isinstance(p, str) else p for p in value]}
    instruction = as_content(READ.object(value, "system_instruction"))
    blocks: list[ContentBlock] = []
    reader = PartReader()
    reader.empty_text = True
    parts, form = parts_of(instruction, "system parts", None)
    for position, part in enumerate(parts):
        key, meta = split(part, 0, position)
        blocks.append(reader.block(part, key, meta, 0, position, "system"))
    fields: dict[str, Any] = {"content": message_content(blocks)}
    extras: dict[str, Any] = {}
    role = instruction.get("role")
    if role is not None:
        extras["role"] = role
    if form is not None:
        extras[form] = True
    set_extras(fields, NAME, extras)
    return SystemMessage(**fields)


def parts_of(content: dict[str, Any], what: str, index: int | None) -> tuple[list[Any], str | None]:
    """A content's parts, and their form when not a list (``wire.PARTS_FORM``).

    One Part as an object where a list goes (the API takes it, HTTP 200: ellmer sends
    it so), ``parts: null`` and no ``parts`` (google-genai takes both) read as the
    part, or as none; the form is kept to be written back.
    """
    parts = content.get("parts", MISSING)
    if parts is MISSING:
        return [], "parts_absent"
    if parts is None:
        return [], "parts_null"
    if isinstance(parts, dict):
        return [parts], PARTS_OBJECT
    return READ.list(parts, what, index), None


# --------------------------------------------------------------------------- tools


def _tools(value: Any) -> tuple[list[ToolDefinition], list[list[Any]]]:
    """The ``Tool`` objects of a request as tool definitions, and the hollow ones.

    Each function declaration is one definition; each other field of a ``Tool``
    (``google_search``, ``code_execution``, ``url_context`` ...) is a hosted tool:
    ``ToolDefinition(name=<field>, parameters={}, provider="gemini")`` with the
    field in ``extras["gemini"]``. When the default grouping (declarations in one
    ``Tool``, each hosted tool in its own) would not give the same objects back,
    every definition records the index of its ``Tool`` in ``extras["gemini"]["tool"]``.

    ``function_declarations`` that is ``null`` or ``[]`` declares nothing: kept on the
    first definition of its ``Tool`` (``extras["gemini"]["tool_fields"]``), and a
    ``Tool`` without any definition (``{}``, only such fields) is hollow: returned as
    ``[index, object]`` to be put back at its place (``wire.TOOLS_EMPTY``).
    """
    tools = READ.list(value, "tools")
    entries: list[tuple[int, dict[str, Any]]] = []
    hollow: list[list[Any]] = []
    full: list[Any] = []  # the Tool objects the definitions stand for
    for index, tool in enumerate(tools):
        tool = READ.object(tool, f"tools[{index}]")
        begun = len(entries)
        empty: dict[str, Any] = {}
        for key, field in tool.items():
            if key == "function_declarations":
                if field is None or field == []:
                    empty[key] = field  # declares nothing: kept as it came
                else:
                    entries.extend((index, fields) for fields in _declarations(field))
            elif not key:
                READ.fail(f"tools[{index}] has a field without a name")
            else:  # a hosted tool: only Gemini knows what it is
                hosted: dict[str, Any] = {"name": key, "parameters": {}, "provider": NAME}
                set_extras(hosted, NAME, {key: field})
                entries.append((index, hosted))
        if len(entries) == begun:
            hollow.append([index, tool])
            continue
        full.append(tool)
        if empty:
            entries[begun][1].setdefault("extras", {}).setdefault(NAME, {})["tool_fields"] = empty
    definitions = [ToolDefinition(**fields) for _, fields in entries]
    if tool_objects(definitions) == full:
        return definitions, hollow
    for index, entry in entries:
        entry.setdefault("extras", {}).setdefault(NAME, {})["tool"] = index
    return [ToolDefinition(**entry) for _, entry in entries], hollow


def _declarations(value: Any) -> list[dict[str, Any]]:
    """The function declarations of one ``Tool``, as tool definition fields."""
    definitions: list[dict[str, Any]] = []
    for declaration in READ.list(value, "function_declarations"):
        declaration = READ.object(declaration, "a function declaration")
        # a field sent as null (the API takes it, HTTP 200) reads as absent and is
        # kept as it came, in extras, to be written back so
        nulls = {key: None for key, item in declaration.items() if item is None}
        if nulls:
            declaration = {k: v for k, v in declaration.items() if v is not None}
        name = declaration.get("name")
        if not isinstance(name, str) or not name:
            READ.fail("a function declaration needs a name")
        fields: dict[str, Any] = {"name": name}
        extras: dict[str, Any] = {}
        description = declaration.get("description")
        if description is not None:
            fields["description"] = READ.string(description, "description")
        if "parameters_json_schema" in declaration:
            parameters = declaration["parameters_json_schema"]
        elif "parameters" in declaration:
            parameters = declaration["parameters"]
            extras["schema_key"] = "parameters"
        else:
            parameters = {}
            extras["parameters_absent"] = True
        if not isinstance(parameters, dict):
            READ.fail(f"the parameters of {name!r} must be an object")
        fields["parameters"] = parameters
        extras.update(
            (k, v)
            for k, v in declaration.items()
            if k not in ("name", "description", "parameters_json_schema", "parameters")
        )
        extras.update(nulls)
        set_extras(fields, NAME, extras)
        definitions.append(fields)
    return definitions


def _tool_choice(value: Any) -> ToolChoice | None:
    """The neutral tool choice of a tool_config (None: it has no mode one stands for).

    Function calling, FunctionCallingConfig: ``ANY`` with one allowed name is a named
    choice, with more an allowed-tools choice that requires a call; ``VALIDATED``
    with names is an allowed-tools choice the model may answer without (the mode,
    which also checks calls against their schemas, is how Gemini says it). ``AUTO``
    takes no names (the API refuses them): they stay in extras with the rest.
    """
    config = READ.object(value, "tool_config")
    calling = config.get("function_calling_config")
    if not isinstance(calling, dict):
        return None
    # FunctionCallingConfig.Mode: a name, or its number (wire.MODE_NUMBERS)
    mode = enum_name(calling.get("mode"), MODE_NUMBERS)
    names = calling.get("allowed_function_names")
    if names is not None and not (
        isinstance(names, list) and all(isinstance(n, str) for n in names)
    ):
        READ.fail("function_calling_config.allowed_function_names must be a list of names")
    if not function_names(names):
        names = None  # null, [] or an empty name: no names (kept as they came)
    if mode == "NONE":
        return NoneToolChoice()
    if mode == "ANY" and names and len(names) == 1:
        return NamedToolChoice(name=names[0])
    if mode == "ANY" and names:
        return AllowedToolsChoice(names=list(names), mode="required")
    if mode == "ANY":
        return RequiredToolChoice()
    if mode == "VALIDATED" and names:
        return AllowedToolsChoice(names=list(names), mode="auto")
    if mode in ("AUTO", "VALIDATED"):  # VALIDATED: auto, calls checked against schemas
        return AutoToolChoice()
    return None


def _unmapped_tool_config(config: dict[str, Any], choice: ToolChoice | None) -> dict[str, Any]:
    """What of a tool_config the tool choice does not say, kept to be sent back.

    Every key but ``function_calling_config`` (``include_server_side_tool_invocations``,
    ``retrieval_config`` ...), the keys of ``function_calling_config`` other than
    ``mode`` (``stream_function_call_arguments``, ``allowed_function_names`` beside a
    mode that takes none ...), and a mode the choice does not write as it came
    (``VALIDATED`` without names, a mode sent as its number). Without a choice
    (``MODE_UNSPECIFIED``, no mode) the whole ``function_calling_config`` is kept.
    """
    kept = {key: value for key, value in config.items() if key != "function_calling_config"}
    calling = config.get("function_calling_config", MISSING)
    if calling is MISSING:
        return kept
    if choice is None or not isinstance(calling, dict):
        kept["function_calling_config"] = calling
        return kept
    names = choice.type in ("tool", "required", "allowed")  # the names are the choice's
    mapped = ("mode", "allowed_function_names") if names else ("mode",)
    # (names null, [] or [""] say nothing: kept as they came)
    rest = {
        k: v
        for k, v in calling.items()
        if k not in mapped or (k == "allowed_function_names" and not function_names(v))
    }
    mode = calling.get("mode")
    if mode != tool_choice_config(choice)["function_calling_config"]["mode"]:
        # a mode the choice does not write as it came: VALIDATED without names (which
        # stands for AUTO), a mode sent as its number; it goes back in place of that one
        rest["mode"] = mode
    if rest:
        kept["function_calling_config"] = rest
    return kept
