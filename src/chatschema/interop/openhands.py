"""OpenHands interop: chatschema messages to and from OpenHands' stored message JSON.

The OpenHands SDK (``openhands-sdk``) persists a conversation's LLM messages as
``openhands.sdk.llm.message.Message.model_dump()``: ``role``, ``content`` (a list of
``TextContent`` and ``ImageContent`` items with ``cache_prompt`` flags),
``tool_calls`` (``MessageToolCall``: ``id``, ``responses_item_id``, ``name``,
``arguments`` as a JSON string, ``origin``), ``tool_call_id``, ``name``,
``reasoning_content``, ``thinking_blocks`` (Anthropic ``thinking`` with an optional
``signature``, ``redacted_thinking`` with ``data``) and ``responses_reasoning_item``
(an OpenAI Responses reasoning item). This module reads and writes that JSON without
importing OpenHands (which needs Python 3.12 and LiteLLM).

- :func:`from_openhands` / :func:`message_from_openhands`: stored JSON (or OpenHands
  ``Message`` objects) to neutral messages. Both the current (1.x, studied on 1.58)
  form and the 1.0 form with message-level switches (``cache_enabled`` ...) are
  read. Nothing is dropped: what the neutral model has no field for (tool-call
  ``origin`` and ``responses_item_id``, the exact argument text, reasoning item
  ``status``, legacy switches, unknown keys) goes to ``extras["openhands"]`` and is
  written back by :func:`to_openhands`, so OpenHands -> neutral -> OpenHands gives
  the same JSON (in the current form).
- :func:`to_openhands` / :func:`message_to_openhands`: neutral messages to that JSON,
  which ``Message.model_validate`` accepts. OpenHands holds far less than the neutral
  model (no message ids, metadata, usage, response metadata, tool status or
  artifacts, block ids or annotations, audio, video, files, server tools): those are
  left out; content blocks it cannot hold follow the ``unsupported`` policy.

Reasoning maps by the ``provider`` of a neutral reasoning block: ``anthropic`` <->
``thinking_blocks`` (``encrypted_content`` <-> ``redacted_thinking.data``),
``openai_responses`` <-> ``responses_reasoning_item``, anything else (no provider)
<-> ``reasoning_content``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal, cast

from chatschema_models.content import ContentBlock, ResourceBlock, ResourceLinkBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    Message,
)

from chatschema._arguments import parse_arguments
from chatschema.errors import ConversionError, OptionError, UnsupportedContentError, ValidationError
from chatschema.interop._common import (
    ROLES,
    fits,
    neutral,
    neutral_message,
    nonempty_str,
    plain,
)
from chatschema.providers._common.resources import resource_as
from chatschema.validation import parse

__all__ = [
    "NAMESPACE",
    "UnsupportedPolicy",
    "from_openhands",
    "message_from_openhands",
    "message_to_openhands",
    "to_openhands",
]

NAMESPACE: Final = "openhands"
"""Key of OpenHands data in neutral ``extras``."""

UnsupportedPolicy = Literal["error", "drop", "placeholder"]

_MESSAGE_KEYS = (
    "role",
    "content",
    "tool_calls",
    "tool_call_id",
    "name",
    "reasoning_content",
    "thinking_blocks",
    "responses_reasoning_item",
)
_EMPTY: dict[str, Any] = {
    "tool_calls": None,
    "tool_call_id": None,
    "name": None,
    "reasoning_content": None,
    "thinking_blocks": [],
    "responses_reasoning_item": None,
}
_CACHE = {"type": "ephemeral"}
_LEGACY_SWITCHES = frozenset(
    {"cache_enabled", "vision_enabled", "function_calling_enabled", "force_string_serializer"}
)
# The field order of OpenHands 1.0's Message.model_dump (openhands/core/message.py):
# the switches sit between content and the tool fields.
_LEGACY_ORDER = (
    "role",
    "content",
    "cache_enabled",
    "vision_enabled",
    "function_calling_enabled",
    "tool_calls",
    "tool_call_id",
    "name",
    "force_string_serializer",
    "reasoning_content",
    "thinking_blocks",
    "responses_reasoning_item",
)


# ------------------------------------------------------------------------ public API


def to_openhands(
    messages: Iterable[Message | Mapping[str, Any]] | Conversation,
    *,
    unsupported: UnsupportedPolicy = "error",
) -> list[dict[str, Any]]:
    """Convert neutral messages to OpenHands' stored message JSON.

    Args:
        messages: neutral messages (models or JSON dicts) or a Conversation.
        unsupported: what to do with content OpenHands cannot hold (audio, video,
            files, plain-text documents, refusals, server tools, non-standard blocks,
            resource links, compaction, other binary resources, images given only
            by file id, reasoning it has no place for): ``"error"`` raises,
            ``"drop"`` leaves it out, ``"placeholder"`` puts a short text item in
            its place. An embedded text resource is a text item, an embedded image
            an image item.

    Returns:
        One ``Message.model_dump()``-shaped dict per message.

    Raises:
        ValidationError: a dict is not a valid neutral message.
        UnsupportedContentError: content OpenHands cannot hold, under ``"error"``
            (names the message and the block).
        OptionError: an unknown ``unsupported`` policy.
    """
    _check_policy(unsupported)
    return [
        _message_to_openhands(message, index, unsupported)
        for index, message in enumerate(neutral(messages))
    ]


def message_to_openhands(
    message: Message | Mapping[str, Any], *, unsupported: UnsupportedPolicy = "error"
) -> dict[str, Any]:
    """Convert one neutral message to OpenHands' stored JSON (see :func:`to_openhands`).

    Raises:
        ValidationError: a dict is not a valid neutral message.
        UnsupportedContentError: content OpenHands cannot hold, under ``"error"``.
        OptionError: an unknown ``unsupported`` policy.
    """
    _check_policy(unsupported)
    model = neutral_message(message)
    return _message_to_openhands(model, None, unsupported)


def from_openhands(data: Any) -> list[Message]:
    """Convert OpenHands' stored messages to neutral messages.

    Args:
        data: a list of ``Message.model_dump()`` dicts, of OpenHands ``Message``
            objects (anything with ``model_dump``), or the JSON text of such a list.

    Raises:
        ConversionError: the data is not a list of OpenHands messages, or a message
            is malformed or does not fit the neutral model (names the message and,
            for content, the block).
    """
    if isinstance(data, (str, bytes, bytearray)):
        try:
            data = json.loads(data)
        except ValueError as error:
            raise ConversionError(f"not valid JSON: {error}", provider=NAMESPACE) from None
    if isinstance(data, Mapping) or not isinstance(data, Iterable):
        raise ConversionError(
            f"expected a list of OpenHands messages, got {type(data).__name__} "
            "(use message_from_openhands for one message)",
            provider=NAMESPACE,
        )
    return [_message_from_openhands(item, index) for index, item in enumerate(data)]


def message_from_openhands(data: Any) -> Message:
    """Convert one stored OpenHands message (dict, object or JSON text) to a neutral one.

    Raises:
        ConversionError: the message is malformed or does not fit the neutral model.
    """
    if isinstance(data, (str, bytes, bytearray)):
        try:
            data = json.loads(data)
        except ValueError as error:
            raise ConversionError(f"not valid JSON: {error}", provider=NAMESPACE) from None
    return _message_from_openhands(data, None)


# --------------------------------------------------------------------------- helpers


def _check_policy(unsupported: str) -> None:
    if unsupported not in ("error", "drop", "placeholder"):
        raise OptionError(
            f"option unsupported={unsupported!r}: expected one of 'error', 'drop', 'placeholder'"
        )


def _namespace(extras: Any) -> dict[str, Any]:
    """``extras["openhands"]`` of a model's dict form (empty if none)."""
    if isinstance(extras, dict):
        value = extras.get(NAMESPACE)
        if isinstance(value, dict):
            return value
    return {}


def _data_url(url: str) -> tuple[str, str] | None:
    """``(mime_type, base64)`` of a ``data:<mime>;base64,<data>`` URL."""
    if not url.startswith("data:") or ";base64," not in url:
        return None
    head, data = url[len("data:") :].split(";base64,", 1)
    return (head, data) if head else None


def _arguments_text(arguments: dict[str, Any], candidates: Iterable[Any]) -> str:
    """The argument text: a kept exact text when it still says the same, else JSON."""
    for raw in candidates:
        if not isinstance(raw, str):
            continue
        if raw.strip() == "" and arguments == {}:
            return raw
        try:
            if json.loads(raw) == arguments:
                return raw
        except ValueError:
            continue
    return json.dumps(arguments)  # what LiteLLM produces from a dict


# ------------------------------------------------------------ neutral -> OpenHands


class _Writer:
    """Builds one OpenHands message from a neutral one."""

    def __init__(self, message: Message, index: int | None, unsupported: str) -> None:
        self.message = message
        self.index = index
        self.unsupported = unsupported
        self.content: list[dict[str, Any]] = []
        self.thinking: list[dict[str, Any]] = []
        self.reasoning_item: dict[str, Any] | None = None
        self.reasoning_content: str | None = None

    def skip(self, what: str, block: int) -> None:
        """Apply the unsupported-content policy to a block."""
        if self.unsupported == "error":
            raise UnsupportedContentError(
                f"{what} cannot be stored in an OpenHands message "
                "(options: unsupported='drop' or 'placeholder')",
                provider=NAMESPACE,
                message_index=self.index,
                block_index=block,
            )
        if self.unsupported == "placeholder":
            self.content.append(
                {"cache_prompt": False, "type": "text", "text": f"[{what} omitted]"}
            )

    def text(self, block: dict[str, Any]) -> None:
        item = {"cache_prompt": "cache_control" in block, "type": "text", "text": block["text"]}
        item.update(self.leftovers(block))
        self.content.append(item)

    def image(self, block: dict[str, Any], position: int) -> None:
        if "url" in block:
            url = block["url"]
        elif "base64" in block:
            url = f"data:{block['mime_type']};base64,{block['base64']}"
        else:
            self.skip("an image given only by file id", position)
            return
        namespace = _namespace(block.get("extras"))
        group = namespace.get("image_group")
        last = self.content[-1] if self.content else None
        if (
            group is not None
            and last is not None
            and last.get("type") == "image"
            and last.get("__group") == group
        ):
            last["image_urls"].append(url)
            last["cache_prompt"] = "cache_control" in block
            return
        item: dict[str, Any] = {
            "cache_prompt": "cache_control" in block,
            "type": "image",
            "image_urls": [url],
        }
        item.update(self.leftovers(block, {"image_group"}))
        if group is not None:
            item["__group"] = group
        self.content.append(item)

    def reasoning(self, block: dict[str, Any], position: int) -> None:
        provider = block.get("provider")
        if provider == "anthropic":
            extra = self.leftovers(block)
            if "encrypted_content" in block:
                if "text" in block or "signature" in block:
                    self.skip("reasoning with both text and redacted data", position)
                    return
                self.thinking.append(
                    {"type": "redacted_thinking", "data": block["encrypted_content"], **extra}
                )
            else:
                self.thinking.append(
                    {
                        "type": "thinking",
                        "thinking": block.get("text", ""),
                        "signature": block.get("signature"),
                        **extra,
                    }
                )
        elif provider == "openai_responses":
            if self.reasoning_item is not None:
                self.skip("a second Responses reasoning item", position)
                return
            if "signature" in block:
                self.skip("a Responses reasoning item with a signature", position)
                return
            namespace = _namespace(block.get("extras"))
            content = [block["text"]] if "text" in block else namespace.get("content")
            self.reasoning_item = {
                "id": block.get("id", namespace.get("id")),
                "summary": block.get("summary", []),
                "content": content,
                "encrypted_content": block.get("encrypted_content"),
                "status": namespace.get("status"),
                **self.leftovers(block, {"id", "content", "status"}),
            }
        elif (
            self.reasoning_content is None
            and "text" in block
            and not {"signature", "encrypted_content"} & set(block)
        ):
            self.reasoning_content = block["text"]
        else:
            self.skip("reasoning OpenHands has no place for", position)

    @staticmethod
    def leftovers(block: Mapping[str, Any], used: Iterable[str] = ()) -> dict[str, Any]:
        """OpenHands keys a block came with that the neutral model had no field for."""
        namespace = _namespace(block.get("extras"))
        skip = set(used)
        return {key: value for key, value in namespace.items() if key not in skip}

    def blocks(self, blocks: Sequence[ContentBlock]) -> None:
        for position, model in enumerate(blocks):
            if isinstance(model, (ResourceBlock, ResourceLinkBlock)):
                # text and image items only: a resource as the one it maps to, if any
                model = resource_as(model) or model
            block = plain(model)
            kind = block["type"]
            if kind == "text":
                self.text(block)
            elif kind == "image":
                self.image(block, position)
            elif kind == "reasoning" and self.message.role == "assistant":
                self.reasoning(block, position)
            elif kind == "non_standard" and _namespace(block.get("extras")).get("content_item"):
                self.content.append(dict(block["value"]))  # an item kept as OpenHands had it
            else:
                self.skip(f"{kind} content", position)
        for item in self.content:
            item.pop("__group", None)

    def tool_calls(self, data: Mapping[str, Any]) -> list[dict[str, Any]] | None:
        if "tool_calls" not in data and not data.get("invalid_tool_calls"):
            return None
        provider = data.get("provider")
        calls: list[dict[str, Any]] = []
        for call in data.get("tool_calls", []):
            extras = call.get("extras") or {}
            namespace = _namespace(extras)
            candidates = [namespace.get("arguments")]
            if isinstance(provider, str) and isinstance(extras.get(provider), dict):
                candidates.append(extras[provider].get("arguments"))
            calls.append(
                self.tool_call(
                    call["id"],
                    call["name"],
                    _arguments_text(call["arguments"], candidates),
                    namespace,
                )
            )
        placed: list[tuple[int, dict[str, Any]]] = []
        for position, call in enumerate(data.get("invalid_tool_calls", [])):
            namespace = _namespace(call.get("extras"))
            call_id = call.get("id", namespace.get("id"))
            if not isinstance(call_id, str) or "name" not in call:
                self.skip_call(position)
                continue
            dump = self.tool_call(call_id, call["name"], call.get("arguments", ""), namespace)
            where = namespace.get("position")
            placed.append((where if isinstance(where, int) else len(calls) + len(placed), dump))
        for where, dump in sorted(placed, key=lambda pair: pair[0]):
            calls.insert(min(where, len(calls)), dump)
        return calls

    def skip_call(self, position: int) -> None:
        """An invalid call OpenHands cannot hold: raised under "error", else left out."""
        if self.unsupported == "error":
            raise UnsupportedContentError(
                f"invalid tool call {position} has no id or no name, which OpenHands requires "
                "(options: unsupported='drop' or 'placeholder')",
                provider=NAMESPACE,
                message_index=self.index,
            )

    def tool_call(
        self, call_id: str, name: str, arguments: str, namespace: Mapping[str, Any]
    ) -> dict[str, Any]:
        origin = namespace.get("origin")
        if origin not in ("completion", "responses"):
            origin = "responses" if self.message_provider() == "openai_responses" else "completion"
        dump: dict[str, Any] = {"id": call_id}
        item_id = namespace.get("responses_item_id")
        if item_id is not None or not self.legacy():
            dump["responses_item_id"] = item_id  # a 1.0 tool call has no such field
        dump.update(name=name, arguments=arguments, origin=origin)
        skip = {"origin", "responses_item_id", "arguments", "id", "position"}
        dump.update({key: value for key, value in namespace.items() if key not in skip})
        return dump

    def legacy(self) -> bool:
        """Whether the message came in the 1.0 form (with message-level switches)."""
        return bool(_LEGACY_SWITCHES & set(_namespace(getattr(self.message, "extras", None))))

    def message_provider(self) -> str | None:
        return getattr(self.message, "provider", None)


def _message_to_openhands(message: Message, index: int | None, unsupported: str) -> dict[str, Any]:
    data = plain(message)
    role = data["role"]
    writer = _Writer(message, index, unsupported)
    if isinstance(message.content, str):
        if message.content:
            writer.content.append({"cache_prompt": False, "type": "text", "text": message.content})
    else:
        writer.blocks(message.content)
    out: dict[str, Any] = {"role": role, "content": writer.content, **_EMPTY}
    out["thinking_blocks"] = writer.thinking
    if "name" in data:
        out["name"] = data["name"]
    if role == "tool":
        out["tool_call_id"] = data["tool_call_id"]
    if role == "assistant":
        out["tool_calls"] = writer.tool_calls(data)
        out["reasoning_content"] = writer.reasoning_content
        out["responses_reasoning_item"] = writer.reasoning_item
    for key, value in _namespace(data.get("extras")).items():
        if key not in out or out[key] == _EMPTY.get(key, object()):
            out[key] = value  # what OpenHands had that the neutral model has no field for
    if writer.legacy():
        ordered = {key: out.pop(key) for key in _LEGACY_ORDER if key in out}
        out = {**ordered, **out}
    return out


# ------------------------------------------------------------ OpenHands -> neutral


class _Reader:
    """Builds one neutral message dict from an OpenHands message dict."""

    def __init__(self, index: int | None) -> None:
        self.index = index

    def fail(self, reason: str, block: int | None = None) -> ConversionError:
        return ConversionError(
            reason, provider=NAMESPACE, message_index=self.index, block_index=block
        )

    def content(self, content: Any) -> list[dict[str, Any]]:
        if content is None:
            return []
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        if not isinstance(content, list):
            raise self.fail(f"content must be a list, not {type(content).__name__}")
        blocks: list[dict[str, Any]] = []
        for position, item in enumerate(content):
            if not isinstance(item, dict):
                raise self.fail(
                    f"a content item must be an object, not {type(item).__name__}", position
                )
            kind = item.get("type")
            if kind == "text" or (kind is None and "text" in item):
                blocks.append(self.text(item, position))
            elif kind == "image" or (kind is None and "image_urls" in item):
                blocks.extend(self.images(item, position))
            else:
                raise self.fail(f"unknown content item type {kind!r}", position)
        return blocks

    def flags(self, item: Mapping[str, Any], position: int) -> tuple[bool, dict[str, Any]]:
        cache = item.get("cache_prompt", False)
        if not isinstance(cache, bool):
            raise self.fail("cache_prompt must be true or false", position)
        rest = {k: v for k, v in item.items() if k not in ("cache_prompt", "type")}
        return cache, rest

    def text(self, item: Mapping[str, Any], position: int) -> dict[str, Any]:
        cache, rest = self.flags(item, position)
        text = rest.pop("text", None)
        if not isinstance(text, str):
            raise self.fail("text must be a string", position)
        block: dict[str, Any] = {"type": "text", "text": text}
        if cache:
            block["cache_control"] = dict(_CACHE)
        if rest:
            block["extras"] = {NAMESPACE: rest}
        return block

    def images(self, item: Mapping[str, Any], position: int) -> list[dict[str, Any]]:
        cache, rest = self.flags(item, position)
        urls = rest.pop("image_urls", None)
        if not isinstance(urls, list) or not all(isinstance(url, str) for url in urls):
            raise self.fail("image_urls must be a list of strings", position)
        blocks: list[dict[str, Any]] = []
        for number, url in enumerate(urls):
            inline = _data_url(url)
            block: dict[str, Any] = {"type": "image"}
            if inline is not None:
                block["mime_type"], block["base64"] = inline
            else:
                block["url"] = url
            namespace: dict[str, Any] = dict(rest) if number == 0 else {}
            if len(urls) > 1:
                namespace["image_group"] = position
            if namespace:
                block["extras"] = {NAMESPACE: namespace}
            blocks.append(block)
        if blocks and cache:
            blocks[-1]["cache_control"] = dict(_CACHE)
        if not blocks or not all(fits(block, "ImageBlock") for block in blocks):
            # no neutral image for it (no URL, or one the neutral model rejects): kept
            value = {"cache_prompt": cache, "type": "image", "image_urls": urls, **rest}
            return [
                {
                    "type": "non_standard",
                    "value": value,
                    "extras": {NAMESPACE: {"content_item": True}},
                }
            ]
        return blocks

    def tool_calls(self, calls: Any) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        if not isinstance(calls, list):
            raise self.fail("tool_calls must be a list or null")
        valid: list[dict[str, Any]] = []
        invalid: list[dict[str, Any]] = []
        for position, call in enumerate(calls):
            if not isinstance(call, dict):
                raise self.fail(f"tool call {position} must be an object")
            rest = dict(call)
            call_id, name, raw = (
                rest.pop("id", None),
                rest.pop("name", None),
                rest.pop("arguments", None),
            )
            if not (isinstance(call_id, str) and isinstance(name, str) and isinstance(raw, str)):
                raise self.fail(f"tool call {position} needs string id, name and arguments")
            origin = rest.pop("origin", "completion")
            namespace: dict[str, Any] = {}
            if origin != "completion":
                namespace["origin"] = origin
            item_id = rest.pop("responses_item_id", None)
            if item_id is not None:
                namespace["responses_item_id"] = item_id
            namespace.update(rest)
            arguments, error = parse_arguments(raw)
            if arguments is not None and call_id and name:
                if raw != json.dumps(arguments):
                    namespace["arguments"] = raw
                entry: dict[str, Any] = {"id": call_id, "name": name, "arguments": arguments}
                if namespace:
                    entry["extras"] = {NAMESPACE: namespace}
                valid.append(entry)
                continue
            entry = {"name": name, "arguments": raw}
            if call_id:
                entry["id"] = call_id
            else:
                namespace["id"] = call_id
            entry["error"] = error or "tool call without an id or a name"
            namespace["position"] = position
            entry["extras"] = {NAMESPACE: namespace}
            invalid.append(entry)
        return valid, invalid

    def thinking(self, blocks: Any) -> list[dict[str, Any]]:
        if not isinstance(blocks, list):
            raise self.fail("thinking_blocks must be a list")
        out: list[dict[str, Any]] = []
        for position, item in enumerate(blocks):
            if not isinstance(item, dict):
                raise self.fail(f"thinking block {position} must be an object")
            rest = dict(item)
            kind = rest.pop("type", None)
            block: dict[str, Any] = {"type": "reasoning", "provider": "anthropic"}
            if kind == "redacted_thinking" or (kind is None and "data" in rest):
                data = rest.pop("data", None)
                if not isinstance(data, str):
                    raise self.fail(f"redacted thinking block {position} needs string data")
                block["encrypted_content"] = data
            elif kind == "thinking" or (kind is None and "thinking" in rest):
                text, signature = rest.pop("thinking", None), rest.pop("signature", None)
                if not isinstance(text, str) or not (
                    signature is None or isinstance(signature, str)
                ):
                    raise self.fail(
                        f"thinking block {position} needs string thinking and signature"
                    )
                block["text"] = text
                if signature is not None:
                    block["signature"] = signature
            else:
                raise self.fail(f"unknown thinking block type {kind!r}")
            if rest:
                block["extras"] = {NAMESPACE: rest}
            out.append(block)
        return out

    def reasoning_item(self, item: Any) -> dict[str, Any]:
        if not isinstance(item, dict):
            raise self.fail("responses_reasoning_item must be an object or null")
        rest = dict(item)
        block: dict[str, Any] = {"type": "reasoning", "provider": "openai_responses"}
        namespace: dict[str, Any] = {}
        item_id = rest.pop("id", None)
        if nonempty_str(item_id):
            block["id"] = item_id
        elif item_id is not None:
            namespace["id"] = item_id
        summary = rest.pop("summary", [])
        if not isinstance(summary, list) or not all(isinstance(part, str) for part in summary):
            raise self.fail("responses_reasoning_item.summary must be a list of strings")
        if summary:
            block["summary"] = summary
        content = rest.pop("content", None)
        if isinstance(content, list) and len(content) == 1 and isinstance(content[0], str):
            block["text"] = content[0]
        elif content is not None:
            namespace["content"] = content
        encrypted = rest.pop("encrypted_content", None)
        if isinstance(encrypted, str):
            block["encrypted_content"] = encrypted
        elif encrypted is not None:
            raise self.fail("responses_reasoning_item.encrypted_content must be a string")
        status = rest.pop("status", None)
        if status is not None:
            namespace["status"] = status
        namespace.update(rest)
        if namespace:
            block["extras"] = {NAMESPACE: namespace}
        return block


def _as_dict(item: Any, index: int | None) -> dict[str, Any]:
    dump = getattr(item, "model_dump", None)
    if callable(dump) and not isinstance(item, Mapping):
        item = dump(mode="json")
    if not isinstance(item, Mapping):
        raise ConversionError(
            f"an OpenHands message must be an object, not {type(item).__name__}",
            provider=NAMESPACE,
            message_index=index,
        )
    return dict(item)


def _message_from_openhands(item: Any, index: int | None) -> Message:
    data = _as_dict(item, index)
    reader = _Reader(index)
    role = data.get("role")
    if role not in ROLES:
        raise reader.fail(f"unknown role {role!r}; expected one of {', '.join(ROLES)}")
    out: dict[str, Any] = {"role": role}
    namespace: dict[str, Any] = {
        key: value for key, value in data.items() if key not in _MESSAGE_KEYS
    }
    items = reader.content(data.get("content", []))
    reasoning: list[dict[str, Any]] = []
    name = data.get("name")
    if nonempty_str(name):
        out["name"] = name
    elif name is not None:
        namespace["name"] = name
    tool_call_id = data.get("tool_call_id")
    if role == "tool":
        if not nonempty_str(tool_call_id):
            raise reader.fail("a tool message needs a non-empty tool_call_id")
        out["tool_call_id"] = tool_call_id
    elif tool_call_id is not None:
        namespace["tool_call_id"] = tool_call_id
    if role == "assistant":
        calls = data.get("tool_calls")
        if calls is not None:
            valid, invalid = reader.tool_calls(calls)
            if valid or not calls:
                out["tool_calls"] = valid
            if invalid:
                out["invalid_tool_calls"] = invalid
        reasoning.extend(reader.thinking(data.get("thinking_blocks") or []))
        item_data = data.get("responses_reasoning_item")
        if item_data is not None:
            reasoning.append(reader.reasoning_item(item_data))
        text = data.get("reasoning_content")
        if isinstance(text, str):
            reasoning.append({"type": "reasoning", "text": text})
        elif text is not None:
            raise reader.fail("reasoning_content must be a string or null")
    else:
        for key in ("tool_calls", "reasoning_content", "responses_reasoning_item"):
            if data.get(key) is not None:
                namespace[key] = data[key]
        if data.get("thinking_blocks"):
            namespace["thinking_blocks"] = data["thinking_blocks"]
    blocks = reasoning + items
    if not blocks:
        if role in ("system", "user"):
            out["content"] = ""
    elif (
        len(blocks) == 1
        and set(blocks[0]) == {"type", "text"}
        and blocks[0]["type"] == "text"
        and blocks[0]["text"]
    ):
        out["content"] = blocks[0]["text"]  # one plain text item: the string shorthand
    else:
        out["content"] = blocks
    if namespace:
        out["extras"] = {NAMESPACE: namespace}
    try:
        return cast(Message, parse(out, "Message"))
    except ValidationError as error:
        raise ConversionError(
            "the OpenHands message does not fit the neutral model",
            provider=NAMESPACE,
            message_index=index,
            problems=error.problems,
        ) from None
