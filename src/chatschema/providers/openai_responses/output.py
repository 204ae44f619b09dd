"""The pieces of a ``Response`` body the server side writes: output items, usage, status.

Shared by :func:`~.response.encode_response` (the whole body) and the stream writer
of :mod:`.events` (the items of ``response.output_item.done`` and the body of
``response.created`` / ``response.completed``). Each is the mirror of a reader of
:mod:`.decode` / :mod:`.blocks`: what those read comes back out, and what they
never saw (a message built by hand) is written in the API's shapes, with made ids.
"""

from __future__ import annotations

from typing import Any, Final, TypeGuard

from chatschema_models.content import (
    Citation,
    CompactionBlock,
    ContentBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
)
from chatschema_models.message import AssistantMessage
from chatschema_models.tool import InvalidToolCall, ToolCall
from chatschema_models.usage import Usage

from chatschema._json import copy_json
from chatschema.providers._common import arguments_text, content_blocks, extras_of
from chatschema.providers._common.respond import Reply
from chatschema.providers._openai import CITATION_FIELDS, citation_fields
from chatschema.providers.openai_responses.items import (
    code_interpreter_item,
    compaction_item,
    function_call_item,
    identified,
    merged,
    message_item,
    reasoning_item,
    web_search_item,
)
from chatschema.providers.openai_responses.wire import (
    NAME,
    REQUEST_ECHOED,
)

__all__ = [
    "CALL_ID_LENGTH",
    "HEX",
    "Items",
    "annotation_json",
    "compaction_ours",
    "head",
    "new_item_id",
    "opaque_notes",
    "ordered_body",
    "output_part",
    "reasoning",
    "reasoning_body",
    "status_of",
    "usage_json",
]

HEX: Final = "0123456789abcdef"
# The ids the API makes (recorded traffic, API reference): `resp_`, `msg_`, `rs_`,
# `fc_`, `ws_` then 50 hex digits; a call id `call_` then 24 letters and digits.
ID_LENGTH: Final = 50
CALL_ID_LENGTH: Final = 24

# The statuses a Response has (API reference, "Response.status").
STATUSES: Final = frozenset(
    {"completed", "incomplete", "failed", "cancelled", "in_progress", "queued"}
)
# The key order of a Response as the API writes it (recorded traffic); keys not
# named here (newer ones) follow in the order they were kept.
BODY_ORDER: Final[tuple[str, ...]] = (
    "id",
    "object",
    "created_at",
    "status",
    "background",
    "billing",
    "completed_at",
    "error",
    "frequency_penalty",
    "incomplete_details",
    "instructions",
    "max_output_tokens",
    "max_tool_calls",
    "model",
    "moderation",
    "output",
    "parallel_tool_calls",
    "presence_penalty",
    "previous_response_id",
    "prompt_cache_key",
    "prompt_cache_retention",
    "reasoning",
    "safety_identifier",
    "service_tier",
    "store",
    "temperature",
    "text",
    "tool_choice",
    "tool_usage",
    "tools",
    "top_logprobs",
    "top_p",
    "truncation",
    "usage",
    "user",
    "metadata",
)
# The request echoes the SDK's Response requires, as the API answers a request
# that did not set them.
ECHO_DEFAULTS: Final[tuple[tuple[str, Any], ...]] = (
    ("parallel_tool_calls", True),
    ("tool_choice", "auto"),
    ("tools", []),
)


def new_item_id(reply: Reply, prefix: str) -> str:
    """A made response or item id in the API's shape (``prefix`` + 50 hex digits)."""
    return reply.new_id(prefix, ID_LENGTH, HEX)


# ================================================================== the response's head


def status_of(message: Any) -> tuple[str, dict[str, Any] | None, dict[str, Any] | None]:
    """The ``status``, made ``incomplete_details`` and made ``error`` of a message.

    ``message`` is an AssistantMessage or a chunk. The status the message kept
    (``raw_finish_reason``) comes back; else the finish reason's (the inverse of
    :func:`~.wire.finish_reason`): ``length`` and ``content_filter`` are incomplete
    responses with their reason, ``error`` a failed one, ``other`` an incomplete one
    without reason, anything else (no finish reason too) a completed one.
    """
    raw = message.raw_finish_reason
    finish = message.finish_reason
    status = raw if raw in STATUSES else None
    if status is None:
        if finish in ("length", "content_filter", "other"):
            status = "incomplete"
        elif finish == "error":
            status = "failed"
        else:
            status = "completed"
    details = None
    error = None
    if status == "incomplete" and finish in ("length", "content_filter"):
        details = {"reason": "max_output_tokens" if finish == "length" else "content_filter"}
    if status == "failed":
        # API reference, "Response.error": a failed response says why (code, message)
        error = {"code": "server_error", "message": "The response failed."}
    return status, details, error


def head(
    message: Any,
    reply: Reply,
    *,
    response_id: str,
    model: str,
    status: str,
    output: list[dict[str, Any]],
    usage: Any,
    created_at: int | None = None,
) -> dict[str, Any]:
    """A whole Response body around ``output`` (``message``: a message or a chunk).

    The kept metadata (``created_at``, ``service_tier``, ``incomplete_details`` ...)
    and request echoes come back; ``created_at``, ``error`` and
    ``incomplete_details`` are made where the API always sends them.
    """
    metadata = dict(extras_of_metadata(message))
    echo = extras_of(message, NAME).get(REQUEST_ECHOED)
    body: dict[str, Any] = {
        "id": response_id,
        "object": "response",
        "created_at": reply.now() if created_at is None else created_at,
        "status": status,
        "error": None,
        "incomplete_details": None,
        "model": model,
        "output": output,
    }
    if isinstance(echo, dict):
        body.update(copy_json(echo))
    for key, value in ECHO_DEFAULTS:
        body.setdefault(key, copy_json(value))
    raw_usage = metadata.pop("usage", None)
    body["usage"] = copy_json(raw_usage) if raw_usage is not None else usage
    for key, value in metadata.items():
        if key not in ("id", "object", "status", "model", "output"):
            body[key] = copy_json(value)
    if status != "in_progress" and status != "queued":
        _, details, error = status_of(message)
        if body["incomplete_details"] is None and status == "incomplete":
            body["incomplete_details"] = details
        if body["error"] is None and status == "failed":
            body["error"] = error
    return ordered_body(body)


def extras_of_metadata(message: Any) -> dict[str, Any]:
    """The message's ``response_metadata`` of this format (empty if none)."""
    metadata = message.response_metadata
    value = metadata.get(NAME) if metadata else None
    return value if isinstance(value, dict) else {}


def ordered_body(body: dict[str, Any]) -> dict[str, Any]:
    """A Response's keys in the order the API writes them."""
    out: dict[str, Any] = {key: body[key] for key in BODY_ORDER if key in body}
    for key, value in body.items():
        if key not in out:
            out[key] = value
    return out


def usage_json(usage: Usage | None) -> dict[str, Any] | None:
    """Neutral usage as the Response's ``usage`` (the inverse of decode's reading).

    The SDK's ``ResponseUsage`` requires both detail objects, ``cached_tokens``,
    ``cache_write_tokens`` and ``reasoning_tokens``: 0 where the usage has no
    details at all. Details that lack a count (older API responses had no
    ``cache_write_tokens``) are written as they are: a count is never invented.
    """
    if usage is None:
        return None
    details = usage.input_token_details
    if details is None and usage.output_token_details is None:
        # the common usage (counts only), written directly: the same as below
        return {
            "input_tokens": usage.input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.total_tokens,
        }
    inputs: dict[str, Any] = {}
    ttls: dict[str, int] = {}
    for key, value in _counts(details).items():
        if key == "cache_read":
            inputs["cached_tokens"] = value
        elif key == "cache_creation":
            inputs["cache_write_tokens"] = value
        elif key.startswith("cache_creation_"):
            ttls[f"ttl_{key.removeprefix('cache_creation_')}_tokens"] = value
        else:
            inputs[f"{key}_tokens"] = value
    if ttls:
        inputs["cache_write_tokens_details"] = ttls
    outputs: dict[str, Any] = {}
    for key, value in _counts(usage.output_token_details).items():
        outputs["reasoning_tokens" if key == "reasoning" else f"{key}_tokens"] = value
    if details is None:
        inputs = {"cached_tokens": 0, "cache_write_tokens": 0}
    return {
        "input_tokens": usage.input_tokens,
        "input_tokens_details": {"cached_tokens": 0, **inputs},
        "output_tokens": usage.output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0, **outputs},
        "total_tokens": usage.total_tokens,
    }


def _counts(details: Any) -> dict[str, int]:
    """The counts a usage details object holds (its extra keys too), None left out."""
    if details is None:
        return {}
    data = details.model_dump(mode="json", exclude_none=True)
    return {key: value for key, value in data.items() if isinstance(value, int)}


# ================================================================== output items


def annotation_json(annotation: Any, reply: Reply, position: int) -> dict[str, Any] | None:
    """An annotation as ``output_text`` carries it (None: left out by the policy)."""
    if isinstance(annotation, NonStandardAnnotation):
        return copy_json(annotation.value)
    fields = citation_fields(annotation) if isinstance(annotation, Citation) else None
    if fields is None:
        missing = [name for name in CITATION_FIELDS if getattr(annotation, name, None) is None]
        reply.unsupported_content(f"citation without {', '.join(missing)}", block_index=position)
        return None
    # API reference, "url_citation": the order the API writes its keys in
    return {
        "type": "url_citation",
        "start_index": fields["start_index"],
        "end_index": fields["end_index"],
        "title": fields["title"],
        "url": fields["url"],
    }


def output_part(
    block: TextBlock | RefusalBlock, annotations: list[dict[str, Any]]
) -> dict[str, Any]:
    """An ``output_text`` / ``refusal`` part, the kept part fields (logprobs ...) in."""
    rest = extras_of(block, NAME).get("part")
    part: dict[str, Any]
    if isinstance(block, TextBlock):
        # the API's order: type, annotations, logprobs ..., text
        part = {"type": "output_text", "annotations": annotations}
        if isinstance(rest, dict):
            part.update(copy_json(rest))
        part["text"] = block.text
    else:
        part = {"type": "refusal", "refusal": block.text}
        if isinstance(rest, dict):
            part.update(copy_json(rest))
    return part


class Items:
    """The output items of one response, written block by block with a Reply's policy."""

    def __init__(self, reply: Reply) -> None:
        self.reply = reply
        self.items: list[dict[str, Any]] = []
        self.group: dict[str, Any] | None = None  # the message item being filled
        self.group_key: str | None = None  # the block id it was opened for ("" none)
        self.code: dict[str, Any] | None = None  # the code_interpreter_call just written

    def message(self, message: AssistantMessage) -> list[dict[str, Any]]:
        """A whole message's items: blocks and calls in item order (calls at ``index``)."""
        for kind, position, entry in merged(
            content_blocks(message.content), message.tool_calls, message.invalid_tool_calls
        ):
            if isinstance(entry, ToolCall):
                self.add(function_call(entry, self.reply))
            elif isinstance(entry, InvalidToolCall):
                item = invalid_call(entry, self.reply)
                if isinstance(item, str):
                    self.text(TextBlock(text=item), position)  # the policy's placeholder
                elif item is not None:
                    self.add(item)
            else:
                assert kind == "block"
                self.block(entry, position)
        return self.items

    def add(self, item: dict[str, Any]) -> None:
        """An item of its own (it ends the message item being filled)."""
        self.items.append(item)
        self.group = self.group_key = self.code = None

    def block(self, block: ContentBlock, position: int) -> None:
        """One content block: a part of a message item, an item, or the policy's."""
        if isinstance(block, (TextBlock, RefusalBlock)):
            self.text(block, position)
            return
        if isinstance(block, ServerToolResultBlock):
            code = self.code
            if code is not None and block.tool_call_id == code["id"] and block.provider == NAME:
                code["outputs"] = copy_json(block.output)  # that item's outputs
                self.code = None
                return
        item = output_item(block, self.reply, position)
        if item is None:
            return
        if isinstance(item, str):
            self.text(TextBlock(text=item), position)  # the policy's placeholder
            return
        self.add(item)
        if item.get("type") == "code_interpreter_call":
            self.code = item

    def text(self, block: TextBlock | RefusalBlock, position: int) -> None:
        """A text or refusal block: a part of the message item of its id."""
        extras = extras_of(block, NAME)
        header = extras.get("item")
        annotations: list[dict[str, Any]] = []
        if isinstance(block, TextBlock):
            for annotation in block.annotations or ():
                written = annotation_json(annotation, self.reply, position)
                if written is not None:
                    annotations.append(written)
        if block.id is None and isinstance(header, dict) and "content" not in header:
            # an item without id, its content a string (decode_output_message keeps it)
            self.add({"role": "assistant", "content": block.text, **copy_json(header)})
            return
        part = output_part(block, annotations)
        key = block.id or ""
        group = self.group
        if group is not None and self.group_key == key and header is None:
            group["content"].append(part)  # one message item: consecutive blocks of its id
            return
        item_id = block.id or new_item_id(self.reply, "msg_")
        item = message_item(item_id, part, copy_json(header), None)
        self.add(item)
        self.group, self.group_key = item, key


def function_call(call: ToolCall, reply: Reply) -> dict[str, Any]:
    """A tool call as its ``function_call`` item, with made ``fc_`` id and status."""
    extras = extras_of(call, NAME)
    return function_call_item(
        call.id, call.name, arguments_text(call, NAME, extras), call_extras(extras, reply)
    )


def call_extras(extras: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """A call's extras with the item id and status every output item has."""
    if "id" in extras:
        return extras
    # API reference, "function_call" output item: `id` (fc_) and `status`
    return {"id": new_item_id(reply, "fc_"), "status": "completed", **extras}


def invalid_call(call: InvalidToolCall, reply: Reply) -> dict[str, Any] | str | None:
    """An invalid tool call: the ``function_call`` it was, its argument text as it came.

    One without id or name goes through the policy (a str: the placeholder).
    """
    if call.id is None or call.name is None:
        return reply.unsupported_content("an invalid tool call without id or name")
    extras = call_extras(extras_of(call, NAME), reply)
    return function_call_item(call.id, call.name, call.arguments or "", extras)


def output_item(block: ContentBlock, reply: Reply, position: int) -> dict[str, Any] | str | None:
    """A block that is an item of its own; a str: the policy's placeholder; None: dropped."""
    if isinstance(block, ReasoningBlock):
        return reasoning(block, reply, position)
    if isinstance(block, ServerToolCallBlock):
        item = web_search_item(block) or code_interpreter_item(block)
        if (
            item is None
            and block.name == "web_search"
            and block.provider in (None, NAME)
            and isinstance(block.arguments, dict)
        ):
            # a search without the item's fields: the ones the API always writes
            item = {
                "id": block.id or new_item_id(reply, "ws_"),
                "type": "web_search_call",
                "status": "completed",
                "action": copy_json(block.arguments),
            }
        if item is not None:
            return item
    if isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("kind") == "item":
        return copy_json(block.value)
    if compaction_ours(block):
        return identified(compaction_item(block), new_item_id(reply, "cmp_"))
    return reply.unsupported_content(f"{_what(block)} in a response", block_index=position)


def compaction_ours(block: ContentBlock) -> TypeGuard[CompactionBlock]:
    """Whether a block is a compaction item of this API (its encrypted content kept)."""
    return (
        isinstance(block, CompactionBlock)
        and block.provider in (None, NAME)
        and block.encrypted_content is not None
    )


def reasoning(block: ReasoningBlock, reply: Reply, position: int) -> dict[str, Any]:
    """A reasoning block as its ``reasoning`` item; opaque values of others by policy.

    This API's reasoning (``provider`` this format or unset) comes back whole, its
    ``encrypted_content`` in; another's text and summary are written and its
    signature or encrypted content goes through the policy (a placeholder is one
    more summary part).
    """
    notes = opaque_notes(block, reply, position)
    ours = block.provider in (None, NAME)
    item = reasoning_body(block, block.id if ours and block.id else new_item_id(reply, "rs_"))
    if notes:
        item["summary"] = [*item["summary"], *notes]
    return item


def reasoning_body(block: ReasoningBlock, item_id: str) -> dict[str, Any]:
    """The ``reasoning`` item of a block (its opaque values already allowed)."""
    if block.provider in (None, NAME):
        return reasoning_item(
            block if block.id == item_id else block.model_copy(update={"id": item_id})
        )
    # the API's order: id, type, content, summary
    item: dict[str, Any] = {"id": item_id, "type": "reasoning"}
    if block.text is not None:
        item["content"] = [{"type": "reasoning_text", "text": block.text}]
    item["summary"] = [{"type": "summary_text", "text": text} for text in block.summary or []]
    return item


def opaque_notes(block: ReasoningBlock, reply: Reply, position: int) -> list[dict[str, Any]]:
    """The policy on a reasoning block's opaque values this API cannot carry.

    A signature (no Responses field holds one) and another provider's encrypted
    content: raises under ``"error"``, nothing under ``"drop"``, a summary part
    with the placeholder under ``"placeholder"``.
    """
    notes: list[dict[str, Any]] = []
    owner = block.provider or NAME
    opaque = [("signature", block.signature)]
    if owner != NAME:
        opaque.append(("encrypted_content", block.encrypted_content))
    for name, value in opaque:
        if value is not None:
            text = reply.unsupported_content(f"{owner} reasoning {name}", block_index=position)
            if text is not None:
                notes.append({"type": "summary_text", "text": text})
    return notes


def _what(block: ContentBlock) -> str:
    """How the unsupported-content policy names a block."""
    if isinstance(block, NonStandardBlock):
        kind = block.value.get("type")
        return f"non_standard block {kind!r}"
    if isinstance(block, ServerToolCallBlock):
        return f"server_tool_call block {block.name!r}"
    return f"{block.type} block"
