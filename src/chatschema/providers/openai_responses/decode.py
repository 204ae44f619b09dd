"""Histories and responses: Responses requests and ``Response`` objects to the neutral model."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pydantic
from chatschema_models.content import (
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    RefusalBlock,
    TextBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    InvalidToolCall,
    ToolCall,
)
from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage

from chatschema._json import copy_json
from chatschema.providers._common import as_json, decoder, is_count, parse_data_url
from chatschema.providers._common.replay import stamped
from chatschema.providers._openai import cache_control
from chatschema.providers.openai_responses.blocks import (
    decode_code_interpreter,
    decode_compaction,
    decode_function_call,
    decode_output_message,
    decode_reasoning,
    decode_web_search,
    key_order,
    non_standard_item,
    plain,
    pop_string,
)
from chatschema.providers.openai_responses.request import decode_request
from chatschema.providers.openai_responses.wire import (
    DETAILS,
    INPUT_PARTS,
    KEY_ORDER,
    KIND_PART,
    MIME,
    NAME,
    NO_DETAIL,
    NO_INPUT,
    READ,
    REQUEST_ECHO,
    REQUEST_ECHOED,
    REQUEST_KEYS,
    RESPONSE_FIELDS,
    USAGE_KEYS,
    finish_reason,
    is_client_item,
)

__all__ = [
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "owned",
    "response_fields",
    "sdk",
]


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """A Responses request (``client.responses.create`` arguments) to a neutral Conversation.

    Accepts a request ``{"input", "instructions"?, "tools"?, "tool_choice"?,
    "parallel_tool_calls"?, "model"?, ...}``, a bare list of input items, one item,
    a list of input content parts (one user message), a ``Response`` (its output
    items), official SDK objects and JSON text. Of a request, ``model``,
    ``max_output_tokens``, ``temperature``, ``top_p``, ``text.format`` and
    ``reasoning.effort`` become ``settings``; every other key (``store``,
    ``include``, ``previous_response_id``, ``metadata``, the rest of ``text`` and
    ``reasoning`` ...) is kept verbatim in ``extras["openai_responses"]``, and so is
    a ``tool_choice`` without a neutral form (a hosted tool's), so that
    :func:`~.encode.encode` gives the request back. A request may leave ``input``
    out (a stored ``prompt`` with its variables, a ``previous_response_id``): an
    object with a request key and neither ``type`` nor ``role`` is one, and encode
    leaves ``input`` out again while there is nothing to send in it. Errors name the
    item's position in ``input`` as ``message_index`` and the content part as
    ``block_index``.

    Raises:
        ConversionError: for shapes that are not Responses input.
    """
    data = owned(payload)
    instructions: Any = None
    request: dict[str, Any] | None = None
    string_input = False
    # The items whose key order is their class's (SDK objects): the others keep theirs
    # where encode would write another. None: every item (a Response, an SDK object).
    sdk_items: frozenset[int] | None = None
    if isinstance(data, dict) and "input" in data:
        request = data
        instructions = data.get("instructions")
        items: Any = data["input"]
        if isinstance(items, str):
            string_input = True
        elif isinstance(items, list):
            sdk_items = _sdk_items(payload, items)
            items = [sdk(item) for item in items]
    elif isinstance(data, dict) and data.get("object") == "response":
        items = [sdk(item) for item in READ.list(data.get("output"), "response output")]
    elif isinstance(data, dict) and _is_request(data):
        # API reference, "input" is optional: a stored `prompt` (its variables), a
        # `previous_response_id` or `conversation` may say it all
        request = data
        instructions = data.get("instructions")
        items = []
    elif isinstance(data, dict):
        items = [data]
    elif isinstance(data, list):
        sdk_items = _sdk_items(payload, data)
        items = [sdk(item) for item in data]
    else:
        READ.fail(f"expected a request dict or a list of items, not {type(data).__name__}")

    messages: list[Message] = []
    if instructions is not None:
        if not isinstance(instructions, str):
            READ.fail("`instructions` must be a string")
        messages.append(SystemMessage(content=instructions))
    if string_input:
        # API reference, "input": a string is one user message's text.
        messages.append(UserMessage(content=items, extras={NAME: {"string_input": True}}))
    elif isinstance(items, list):
        if items and all(
            isinstance(item, dict) and str(item.get("type")) in INPUT_PARTS for item in items
        ):
            messages.append(UserMessage(content=_input_parts(items, 0, tool=False)))
        else:
            messages.extend(_decode_items(items, sdk_items))
    else:
        READ.fail("`input` must be a string or a list of items")

    fields: dict[str, Any] = {"messages": messages}
    if request is not None:
        fields.update(decode_request(request))
        if "input" not in request:
            fields.setdefault("extras", {}).setdefault(NAME, {})[NO_INPUT] = True
    return Conversation(**fields)


def _is_request(data: dict[str, Any]) -> bool:
    """Whether an object without ``input`` is a request (not one input item)."""
    return "type" not in data and "role" not in data and not REQUEST_KEYS.isdisjoint(data)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of :func:`decode_conversation`."""
    return decode_conversation(payload).messages


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """A Responses ``Response`` (REST JSON or SDK object) to one AssistantMessage.

    Every output item, in order, becomes part of the message, so appending it to
    the history re-encodes to exactly the items the API expects back (ids,
    ``encrypted_content``, summaries). ``finish_reason`` comes from ``status`` and
    ``incomplete_details.reason``; usage, model and response id are filled in; the
    rest of what the response says (``created_at``, ``service_tier``, ``error`` ...)
    goes to ``response_metadata["openai_responses"]``. Tool calls always carry
    ``index``, their position among the reply's blocks and calls (the key the
    fragments of :func:`decode_stream` merge by).

    Raises:
        ConversionError: for payloads that are not a Response.
    """
    data = owned(payload)
    if not isinstance(data, dict):
        READ.fail(f"expected a Response, not {type(data).__name__}")
    output = [sdk(item) for item in READ.list(data.get("output"), "response output")]
    message = _decode_run(list(enumerate(output)), whole_response=True)
    fields: dict[str, Any] = dict(message)
    content = fields.get("content")
    fields.update(
        response_fields(
            data,
            calls=bool(message.get("tool_calls") or message.get("invalid_tool_calls")),
            refusal=isinstance(content, list)
            and any(isinstance(block, RefusalBlock) for block in content),
        )
    )
    return stamped(READ.build(AssistantMessage, fields))


def response_fields(data: Mapping[str, Any], *, calls: bool, refusal: bool) -> dict[str, Any]:
    """A Response's message fields besides its output (shared with decode_stream).

    ``calls`` and ``refusal`` say whether the output has function calls and refusal
    parts, which decide the finish reason of a completed response.
    """
    fields: dict[str, Any] = {"provider": NAME}
    model = data.get("model")
    if isinstance(model, str) and model:
        fields["model"] = model
    response_id = data.get("id")
    if isinstance(response_id, str) and response_id:
        fields["response_id"] = response_id
    status = data.get("status")
    if isinstance(status, str):
        fields["raw_finish_reason"] = status
        finish = finish_reason(status, data.get("incomplete_details"), calls, refusal)
        if finish is not None:
            fields["finish_reason"] = finish
    metadata = {
        key: value
        for key, value in data.items()
        if value is not None and key not in REQUEST_ECHO and key not in RESPONSE_FIELDS
    }
    # Not response data, kept in extras for encode_response to write back; nulls left
    # out at every depth, as an SDK object's dump leaves them out.
    echo = {key: _no_nulls(value) for key, value in data.items() if key in REQUEST_ECHO}
    echo = {key: value for key, value in echo.items() if value is not None}
    if echo:
        fields["extras"] = {NAME: {REQUEST_ECHOED: echo}}
    if data.get("usage") is not None:
        usage, unmapped = _decode_usage(data["usage"])
        if usage is not None:
            fields["usage"] = usage
        if unmapped:
            metadata["usage"] = data["usage"]  # what the neutral usage cannot say
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return fields


def _no_nulls(value: Any) -> Any:
    """JSON data without its ``null`` object members, at every depth."""
    if isinstance(value, dict):
        return {key: _no_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [_no_nulls(item) for item in value]
    return value


def sdk(value: Any) -> Any:
    """An element of a payload: SDK objects to JSON data; anything else as it is."""
    return as_json(value) if isinstance(value, pydantic.BaseModel) else value


def owned(payload: Any) -> Any:
    """JSON data that the decoded models may keep: the caller's dicts are copied once."""
    data = READ.json(payload)
    return copy_json(data) if data is payload else data


# ========================================================================== input items


def _sdk_items(payload: Any, items: list[Any]) -> frozenset[int] | None:
    """The positions of the items that came as SDK objects; None: all of them did."""
    if isinstance(payload, pydantic.BaseModel):
        return None
    return frozenset(
        index
        for index, item in enumerate(items)
        if type(item) is not dict and isinstance(item, pydantic.BaseModel)
    )


def _decode_items(items: list[Any], sdk_items: frozenset[int] | None) -> list[Message]:
    """Input items to messages, in one pass; consecutive output items form one turn."""
    messages: list[Message] = []
    run: list[tuple[int, dict[str, Any]]] = []
    leading = True  # only system / developer messages so far

    def flush() -> None:
        if run:
            messages.append(_decode_run(run, whole_response=False, sdk_items=sdk_items))
            run.clear()

    for index, item in enumerate(items):
        if not isinstance(item, dict):
            READ.fail(f"an input item must be an object, not {type(item).__name__}", index)
        kind = item.get("type")
        role = item.get("role")
        # API reference, "input": a message item may leave out `type: "message"`.
        if kind in (None, "message") and role is not None:
            if role == "assistant":
                run.append((index, item))
                leading = False
                continue
            flush()
            order = sdk_items is not None and index not in sdk_items
            if role == "user":
                messages.append(_decode_input_message(item, index, UserMessage, False, order))
                leading = False
            elif role in ("system", "developer"):
                messages.append(_decode_input_message(item, index, SystemMessage, leading, order))
            else:
                READ.fail(f"unknown message role {role!r}", index)
            continue
        leading = False
        if kind is None:
            if isinstance(item.get("id"), str):  # an item_reference without its type
                flush()
                messages.append(_client_item(item, index))
                continue
            READ.fail("an input item needs a `type` or a `role`", index)
        if not isinstance(kind, str):
            READ.fail("an item's `type` must be a string", index)
        if kind == "function_call_output":
            flush()
            order = sdk_items is not None and index not in sdk_items
            messages.append(_decode_tool_output(item, index, order))
        elif is_client_item(kind):
            flush()
            messages.append(_client_item(item, index))
        else:
            run.append((index, item))
    flush()
    return messages


def _client_item(item: dict[str, Any], index: int) -> UserMessage:
    """A client item with no neutral form: a user message holding it whole."""
    return UserMessage(content=[non_standard_item(item, index)])


def _decode_input_message(
    item: dict[str, Any],
    index: int,
    cls: type[UserMessage] | type[SystemMessage],
    leading: bool,
    order: bool,
) -> Message:
    """A user, system or developer message item (``order``: keep its key order)."""
    rest = dict(item)
    role = rest.pop("role")
    content = rest.pop("content", None)
    fields: dict[str, Any] = {}
    if isinstance(content, str):
        fields["content"] = content
    elif isinstance(content, list):
        fields["content"] = _input_parts(content, index, tool=False)
    else:
        READ.fail("a message needs `content`: a string or a list of parts", index)
    extras: dict[str, Any] = {}
    if rest or leading:
        extras["item"] = rest  # a leading system item: not part of `instructions`
    if role == "developer":
        extras["role"] = role
    keys = key_order(item, order, ["role", "content", *rest])
    if keys is not None:
        extras[KEY_ORDER] = keys
    if extras:
        fields["extras"] = {NAME: extras}
    return READ.build(cls, fields, index)


def _decode_tool_output(item: dict[str, Any], index: int, order: bool) -> Message:
    """A ``function_call_output`` item as a tool message (``order``: keep its key order)."""
    rest = dict(item)
    del rest["type"]
    call_id = rest.pop("call_id", None)
    if not isinstance(call_id, str) or not call_id:
        return _client_item(item, index)  # call_id is optional in the SDK; keep the item as is
    output = rest.pop("output", None)
    fields: dict[str, Any] = {"tool_call_id": call_id}
    if isinstance(output, str):
        fields["content"] = output
    elif isinstance(output, list):
        fields["content"] = _input_parts(output, index, tool=True)
    else:
        READ.fail("function_call_output needs `output`: a string or a list of parts", index)
    name = rest.get("name")
    if isinstance(name, str) and name:
        fields["name"] = rest.pop("name")
    extras: dict[str, Any] = {"item": rest} if rest else {}
    written = ["type", "call_id", "output", *(["name"] if "name" in fields else []), *rest]
    keys = key_order(item, order, written)
    if keys is not None:
        extras[KEY_ORDER] = keys
    if extras:
        fields["extras"] = {NAME: extras}
    return READ.build(ToolMessage, fields, index)


def _input_parts(parts: list[Any], index: int, *, tool: bool) -> list[ContentBlock]:
    """Input content parts as blocks."""
    return [_input_part(part, index, position, tool=tool) for position, part in enumerate(parts)]


def _input_part(part: Any, index: int, position: int, *, tool: bool) -> ContentBlock:
    """One input part; a part the neutral model cannot hold whole stays non_standard."""
    part = sdk(part)
    if not isinstance(part, dict):
        READ.fail("a content part must be an object", index, position)
    rest = dict(part)
    kind = rest.pop("type", None)
    fields: dict[str, Any] = {}
    cls: Any
    if kind == "input_text":
        text = rest.pop("text", None)
        if not isinstance(text, str):
            READ.fail("input_text needs a string `text`", index, position)
        fields["text"] = text
        cls = TextBlock
    elif kind == "input_image":
        url = pop_string(rest, "image_url")
        file_id = pop_string(rest, "file_id")
        if url is None and file_id is None:
            return _non_standard_part(part, index, position)
        if url is not None:
            inline = parse_data_url(url)
            if inline is not None and MIME.fullmatch(inline[0]):
                fields["mime_type"], fields["base64"] = inline
            else:
                fields["url"] = url
        if file_id is not None:
            fields["file_id"] = file_id
        if isinstance(rest.get("detail"), str) and rest["detail"] in DETAILS:
            fields["detail"] = rest.pop("detail")
        elif "detail" not in rest and not tool:
            # left out: the API applies "auto"; encode writes none back
            fields["extras"] = {NAME: {NO_DETAIL: True}}
        cls = ImageBlock
    elif kind == "input_file":
        file_id = pop_string(rest, "file_id")
        file_url = pop_string(rest, "file_url")
        file_data = rest.get("file_data")
        if isinstance(file_data, str):
            inline = parse_data_url(file_data)
            if inline is not None and MIME.fullmatch(inline[0]):
                fields["mime_type"], fields["base64"] = inline
                del rest["file_data"]
        if file_id is not None:
            fields["file_id"] = file_id
        if file_url is not None:
            fields["url"] = file_url
        if "base64" not in fields and file_id is None and file_url is None:
            return _non_standard_part(part, index, position)
        filename = rest.get("filename")
        if isinstance(filename, str) and filename:
            fields["filename"] = rest.pop("filename")
        cls = FileBlock
    else:
        return _non_standard_part(part, index, position)
    cache = cache_control(rest.get("prompt_cache_breakpoint"))
    if cache is not None:
        del rest["prompt_cache_breakpoint"]
        fields["cache_control"] = cache
    if rest:
        fields.setdefault("extras", {NAME: {}})[NAME]["part"] = rest
    try:
        return cls(**fields)  # type: ignore[no-any-return]
    except pydantic.ValidationError:
        # values the neutral model cannot hold (a bad URL ...)
        return _non_standard_part(part, index, position)


def _non_standard_part(part: dict[str, Any], index: int, position: int) -> NonStandardBlock:
    """A whole input part kept unchanged (sent back as it came).

    A value JSON cannot hold (an object key that is not a string, from Python
    data) is a ConversionError naming the item and part, never a pydantic error.
    """
    fields = {"value": part, "extras": {NAME: dict(KIND_PART)}}
    return READ.build(NonStandardBlock, fields, index, position)


# ====================================================================== assistant turns


def _decode_run(
    run: list[tuple[int, dict[str, Any]]],
    *,
    whole_response: bool,
    sdk_items: frozenset[int] | None = None,
) -> Any:
    """Consecutive output items to one assistant message.

    Returns the AssistantMessage, or with ``whole_response`` its keyword fields.
    The items not at ``sdk_items`` keep their key order where encode's differs (none
    do when it is None).
    """
    if len(run) == 1 and not whole_response:
        index, item = run[0]
        if set(item) == {"role", "content"} and isinstance(item["content"], str):
            text = item["content"]  # the plain easy form
            return AssistantMessage(content=text) if text else AssistantMessage()
    blocks: list[ContentBlock] = []
    calls: list[dict[str, Any]] = []
    invalid: list[dict[str, Any]] = []
    last_block = -1
    for index, item in run:
        if not isinstance(item, dict):
            READ.fail(f"an output item must be an object, not {type(item).__name__}", index)
        kind = item.get("type")
        position = len(blocks) + len(calls) + len(invalid)
        order = sdk_items is not None and index not in sdk_items
        if kind == "function_call":
            valid, call = decode_function_call(item, index, order=order)
            call["index"] = position
            (calls if valid else invalid).append(call)
            continue
        if kind in (None, "message") and item.get("role") == "assistant":
            blocks.extend(decode_output_message(item, index, order=order))
        elif kind == "reasoning" and isinstance(item.get("id"), str) and item["id"]:
            blocks.append(decode_reasoning(item, index, order=order))
        elif kind == "compaction" and isinstance(item.get("encrypted_content"), str):
            blocks.append(decode_compaction(item, index, order=order))
        elif kind == "web_search_call":
            blocks.append(decode_web_search(item, index, order=order))
        elif kind == "code_interpreter_call":
            blocks.extend(decode_code_interpreter(item, index, order=order))
        else:
            blocks.append(non_standard_item(item, index))
        last_block = len(blocks) + len(calls) + len(invalid) - 1
    # In history, calls carry their position only where the order is not the default
    # one (all content first, then valid calls, then invalid ones). A whole response
    # always carries it: it is the key decode_stream's fragments merge by.
    first_call = min((fields["index"] for fields in calls + invalid), default=last_block + 1)
    last_valid = max((fields["index"] for fields in calls), default=-1)
    first_invalid = min((fields["index"] for fields in invalid), default=last_valid + 1)
    if not whole_response and first_call > last_block and last_valid < first_invalid:
        for call in calls + invalid:
            del call["index"]
    fields: dict[str, Any] = {}
    if (
        len(blocks) == 1
        and isinstance(blocks[0], TextBlock)
        and blocks[0].text
        and plain(blocks[0])
    ):
        fields["content"] = blocks[0].text  # one plain easy message: the string shorthand
    elif blocks:
        fields["content"] = blocks
    first = run[0][0] if run else None
    if calls:
        fields["tool_calls"] = [READ.build(ToolCall, call, first) for call in calls]
    if invalid:
        fields["invalid_tool_calls"] = [
            READ.build(InvalidToolCall, call, first) for call in invalid
        ]
    if whole_response:
        return fields
    return READ.build(AssistantMessage, fields, first)


# =============================================================================== usage


def _decode_usage(usage: Any) -> tuple[Usage | None, bool]:
    """Neutral usage, and whether the raw usage held more than it can say.

    Counts the neutral usage cannot hold (``null``, missing, negative: OpenAI-
    compatible servers send such) give no neutral usage, and the raw usage is kept
    (``(None, True)``): nothing invented, nothing lost. A missing ``total_tokens``
    next to both counts is their sum; a detail count that is not a count is left
    to the raw usage.
    """
    if not isinstance(usage, dict):
        READ.fail("`usage` must be an object")
    input_tokens: Any = usage.get("input_tokens")
    output_tokens: Any = usage.get("output_tokens")
    if not (is_count(input_tokens) and is_count(output_tokens)):
        return None, True
    total = usage.get("total_tokens", input_tokens + output_tokens)
    if not is_count(total):
        return None, True
    fields: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": total,
    }
    unmapped = bool(set(usage) - USAGE_KEYS)
    details = usage.get("input_tokens_details")
    if isinstance(details, dict):
        counts: dict[str, int] = {}
        for key, value in details.items():
            # Prompt caching: cache writes by lifetime (`ttl_30m_tokens` ...).
            if key == "cache_write_tokens_details" and isinstance(value, dict):
                for ttl_key, ttl_value in value.items():
                    if isinstance(ttl_key, str) and is_count(ttl_value):
                        name = ttl_key.removeprefix("ttl_").removesuffix("_tokens")
                        counts["cache_creation_" + name] = ttl_value
                    else:
                        unmapped = True
            elif key in ("cached_tokens", "cache_write_tokens") and is_count(value):
                name = "cache_read" if key == "cached_tokens" else "cache_creation"
                counts[name] = value
            elif isinstance(key, str) and is_count(value):  # (Python data: any key)
                counts[key.removesuffix("_tokens")] = value
            else:
                unmapped = True
        fields["input_token_details"] = InputTokenDetails(**counts)
    elif details is not None:
        unmapped = True
    details = usage.get("output_tokens_details")
    if isinstance(details, dict):
        counts = {}
        for key, value in details.items():
            if key == "reasoning_tokens" and is_count(value):
                counts["reasoning"] = value
            elif isinstance(key, str) and is_count(value):  # (Python data: any key)
                counts[key.removesuffix("_tokens")] = value
            else:
                unmapped = True
        fields["output_token_details"] = OutputTokenDetails(**counts)
    elif details is not None:
        unmapped = True
    return Usage(**fields), unmapped
