"""OpenAI Responses API: the neutral model to and from ``input`` items.

``encode`` returns the keyword arguments of ``client.responses.create``
(``instructions``, ``input``, ``tools``, ``tool_choice``, ``parallel_tool_calls``);
``decode_conversation`` reads the same shape back, ``decode_response`` reads a
``Response`` (REST JSON or the official SDK object).

How the formats meet (``docs/providers/openai_responses.md`` has the full table):

- Leading system messages become ``instructions`` (joined with a newline); later
  ones are ``system`` / ``developer`` input messages.
- An assistant turn is a run of output items: ``reasoning``, assistant ``message``
  (one content block per ``output_text`` / ``refusal`` part, the item id on each
  block), ``function_call`` (a ``ToolCall``; the exact argument text, the ``fc_``
  item id and the status in ``ToolCall.extras["openai_responses"]``),
  ``web_search_call`` (a ``server_tool_call`` block) and every other item as a
  ``non_standard`` block holding the item unchanged. Consecutive output items make
  one ``AssistantMessage``; ``ToolCall.index`` keeps their order when calls and
  other items interleave.
- Tool results are ``function_call_output`` items.
- Hosted tools (every tool type but ``function``) decode with
  ``provider="openai_responses"``; other formats' hosted tools go through the
  unsupported-content policy. An input message that the policy's drops leave
  empty is not sent.
- What the neutral model has no field for stays in ``extras["openai_responses"]``
  and comes back out on encode, so ``encode(decode_conversation(p)) == p``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, NoReturn

import pydantic
from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    CacheControl,
    Citation,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
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
    AutoToolChoice,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolCallChunk,
    ToolChoice,
    ToolDefinition,
)
from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage
from typing_extensions import Unpack

from chatschema.errors import ConversionError, Problem
from chatschema.providers import _sse
from chatschema.providers._common import (
    EncodeOptions,
    Options,
    application_tools,
    arguments_text,
    as_json,
    content_blocks,
    data_url,
    decoder,
    extras_of,
    foreign_tool_problems,
    guarded,
    is_foreign_tool,
    parse_arguments,
    parse_data_url,
    pointer,
    sendable_tools,
    structural_error,
    to_conversation,
    tool_call_as_text,
    tool_pairing_problems,
    tool_result_as_text,
    tools_as_text,
)

__all__ = [
    "NAME",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
]

NAME: Final = "openai_responses"

# Item types a client sends (tool outputs, approvals, references); every other
# non-message item is produced by the model and belongs to an assistant turn.
_CLIENT_ITEMS: Final = frozenset(
    {
        "function_call_output",
        "mcp_approval_response",
        "item_reference",
        "compaction_trigger",
        "additional_tools",
        "configuration_update",
    }
)
_INPUT_PARTS: Final = frozenset({"input_text", "input_image", "input_file"})
_DETAILS: Final = frozenset({"auto", "low", "high", "original"})
_BREAKPOINT_TTLS: Final = frozenset({"30m", "12h"})
_MIME: Final = re.compile(
    r"[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(;[^\x00-\x1f\x7f]*)?"
)
_KIND_ITEM: Final = {"kind": "item"}
_DEFAULT_HEADER: Final = {"type": "message", "status": "completed"}
_KIND_PART: Final = {"kind": "part"}
# Known limits (OpenAI vision guide): images per request, inline image bytes.
MAX_IMAGES: Final = 500
MAX_INLINE_IMAGE_BYTES: Final = 50 * 1024 * 1024
# Response fields that only echo the request: not kept in response_metadata.
_REQUEST_ECHO: Final = frozenset(
    {
        "instructions",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "temperature",
        "top_p",
        "top_logprobs",
        "max_output_tokens",
        "max_tool_calls",
        "previous_response_id",
        "prompt",
        "prompt_cache_key",
        "prompt_cache_options",
        "prompt_cache_retention",
        "reasoning",
        "text",
        "truncation",
        "metadata",
        "user",
        "safety_identifier",
        "store",
        "background",
        "include",
    }
)

# =============================================================================== encode


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """Neutral messages (or a Conversation) to ``client.responses.create`` arguments.

    Returns ``{"instructions"?, "input", "tools"?, "tool_choice"?,
    "parallel_tool_calls"?}``: call ``client.responses.create(model=...,
    **encode(conversation))``. ``input`` is a list of items, except for a
    conversation decoded from a request whose ``input`` was a string.

    Raises:
        ValidationError: when ``messages`` is not a conversation.
        OptionError: for unknown options or bad option values.
        UnsupportedContentError: for content Responses cannot carry (audio, video,
            images without vision ...) under ``unsupported="error"``.
        ConversionError: with every structural problem (unanswered tool calls,
            duplicate item ids, reasoning without its following item ...) when
            ``check`` is on.
    """
    conversation = to_conversation(messages)
    resolved = Options.resolve(NAME, options)
    # With check on, one pass collects every problem (unsupported content included)
    # and raises with all of them; without, the first unsupported part raises.
    builder = _Encoder(resolved, collect=resolved.check)
    payload = builder.request(conversation)
    if resolved.check:
        problems = _sorted(_pairing_problems(conversation.messages, resolved) + builder.problems)
        if problems:
            raise structural_error(problems, NAME)
    return payload


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every problem that would make ``encode`` fail or the Responses API reject the input.

    Tool calls without a ``function_call_output`` (and outputs answering no call),
    duplicate item ids, replayed reasoning that no item follows, content that
    cannot be sent under ``unsupported="error"`` (images without vision, audio ...),
    and the known image limits (500 images, 50 MB of inline image data).
    """
    conversation = to_conversation(messages)
    resolved = Options.resolve(NAME, options)
    builder = _Encoder(resolved, collect=True)
    builder.request(conversation)
    return _sorted(_pairing_problems(conversation.messages, resolved) + builder.problems)


def _sorted(problems: list[Problem]) -> list[Problem]:
    return sorted(problems, key=_message_index)


def _message_index(problem: Problem) -> int:
    parts = problem.pointer.split("/")
    return int(parts[2]) if len(parts) > 2 and parts[2].isdigit() else -1


def _pairing_problems(messages: Sequence[Message], options: Options) -> list[Problem]:
    """Tool pairing, counting invalid tool calls.

    Responses sends invalid calls back as ``function_call`` items, so they need a
    ``function_call_output`` just like valid ones.
    """
    if not options.native_tools:
        return []
    return tool_pairing_problems(
        messages,
        adjacent=False,
        provider=NAME,
        include_invalid=True,
        requirement="requires a function_call_output for every function_call",
    )


class _Encoder:
    """One encode (or check) pass over a conversation."""

    def __init__(self, options: Options, *, collect: bool) -> None:
        self.options = options
        self.collect = collect
        self.problems: list[Problem] = []
        self.items: list[dict[str, Any]] = []
        self.origins: list[str] = []  # pointer of the neutral thing behind each item
        self.images = 0
        self.image_bytes = 0
        self.dropped = 0  # content left out by unsupported="drop" so far

    # ------------------------------------------------------------------- plumbing

    def unsupported(self, what: str, index: int, block: int | None) -> str | None:
        """The unsupported-content policy; in check mode "error" becomes a problem."""
        if self.collect and self.options.unsupported == "error":
            where = pointer(index, "content", block) if block is not None else pointer(index)
            self.problems.append(
                Problem(where, "unsupported_content", f"{what} cannot be sent to {NAME}")
            )
            return None
        text = self.options.unsupported_content(what, message_index=index, block_index=block)
        if text is None:
            self.dropped += 1
        return text

    def emit(self, item: dict[str, Any], origin: str) -> None:
        self.items.append(item)
        self.origins.append(origin)

    # -------------------------------------------------------------------- request

    def request(self, conversation: Conversation) -> dict[str, Any]:
        messages = conversation.messages
        options = self.options
        instructions: list[str] = []
        start = 0
        while start < len(messages):
            message = messages[start]
            if not isinstance(message, SystemMessage) or "item" in extras_of(message, NAME):
                break
            dropped = self.dropped
            text = self.instruction_text(message, start)
            if text or self.dropped == dropped:  # (drops that leave it empty: not sent)
                instructions.append(text)
            start += 1
        tools = conversation.tools
        if tools and not options.native_tools:
            functions = [
                tool for tool in application_tools(tools) if "tool" not in extras_of(tool, NAME)
            ]
            if functions:
                instructions.append(tools_as_text(functions))
        for index in range(start, len(messages)):
            message = messages[index]
            if isinstance(message, UserMessage):
                self.user(message, index)
            elif isinstance(message, SystemMessage):
                self.system(message, index)
            elif isinstance(message, AssistantMessage):
                self.assistant(message, index)
            else:
                self.tool(message, index)
        self.structure()

        payload: dict[str, Any] = {}
        if instructions:
            payload["instructions"] = "\n".join(instructions)
        payload["input"] = self.input_value(messages, start)
        sent = self.tools(tools)
        if sent is not None and options.native_tools:
            payload["tools"] = [_encode_tool(tool) for tool in sent]
        choice = conversation.tool_choice
        if choice is not None and options.native_tools and (sent or not tools):
            # a tool choice goes only with tools, or where none were given
            wire, parallel = _encode_tool_choice(choice)
            # "auto" is the API's default: with `parallel`, the flag alone says it
            # (the common request shape, and what decoding reads it as).
            if wire != "auto" or parallel is None:
                payload["tool_choice"] = wire
            if parallel is not None:
                payload["parallel_tool_calls"] = parallel
        return payload

    def tools(self, tools: Sequence[ToolDefinition] | None) -> list[ToolDefinition] | None:
        """The tool definitions to send, or None for no ``tools`` key.

        Other formats' hosted tools go through the policy: reported in check mode,
        raising under "error", else left out. None when every tool is left out,
        as when none were given.
        """
        if tools is None or not self.options.native_tools:
            return None
        if self.collect:
            self.problems.extend(foreign_tool_problems(tools, self.options))
            sent = [tool for tool in tools if not is_foreign_tool(tool, NAME)]
        else:
            sent = sendable_tools(tools, self.options)
        return sent if sent or not tools else None

    def input_value(self, messages: Sequence[Message], start: int) -> str | list[dict[str, Any]]:
        """The list of items; a plain string when the input was decoded from one."""
        if len(messages) == start + 1 and len(self.items) == 1:
            message = messages[start]
            if (
                isinstance(message, UserMessage)
                and isinstance(message.content, str)
                and extras_of(message, NAME).get("string_input") is True
            ):
                return message.content
        return self.items

    def instruction_text(self, message: SystemMessage, index: int) -> str:
        if isinstance(message.content, str):
            return message.content
        texts: list[str] = []
        for position, block in enumerate(message.content):
            if isinstance(block, TextBlock):
                texts.append(block.text)
            else:
                text = self.unsupported(f"{block.type} block in instructions", index, position)
                if text is not None:
                    texts.append(text)
        return "\n".join(texts)

    # ------------------------------------------------------------------- messages

    def user(self, message: UserMessage, index: int) -> None:
        content = message.content
        if not isinstance(content, str) and any(_is_item_block(block) for block in content):
            # Client-side items (tool outputs of built-in tools, item references)
            # kept as non_standard blocks: each is its own input item.
            segment: list[tuple[int, ContentBlock]] = []
            for position, block in enumerate(content):
                if _is_item_block(block):
                    if segment:
                        self.input_message("user", segment, index, _item_fields(message))
                        segment = []
                    assert isinstance(block, NonStandardBlock)
                    self.emit(copy.deepcopy(block.value), pointer(index, "content", position))
                else:
                    segment.append((position, block))
            if segment:
                self.input_message("user", segment, index, _item_fields(message))
            return
        self.input_message("user", content, index, _item_fields(message))

    def system(self, message: SystemMessage, index: int) -> None:
        extras = extras_of(message, NAME)
        role = extras.get("role")
        if role not in ("system", "developer"):
            role = self.options.system_role
        self.input_message(role, message.content, index, _item_fields(message))

    def input_message(
        self,
        role: str,
        content: str | Sequence[ContentBlock] | list[tuple[int, ContentBlock]],
        index: int,
        fields: Mapping[str, Any],
    ) -> None:
        dropped = self.dropped
        item: dict[str, Any] = {"role": role, "content": self.content(content, index, tool=False)}
        if self.dropped > dropped and not item["content"]:
            return  # drops left it empty: not sent (the API rejects empty content)
        item.update(fields)
        self.emit(item, pointer(index))

    def tool(self, message: ToolMessage, index: int) -> None:
        if not self.options.native_tools:
            text = self.content(message.content, index, tool=True, force_string=True)
            assert isinstance(text, str)
            self.emit(
                {"role": "user", "content": tool_result_as_text(message, text)}, pointer(index)
            )
            return
        dropped = self.dropped
        output = self.content(message.content, index, tool=True)
        if self.dropped > dropped and not output:
            output = ""  # drops left it empty: still the output that answers the call
        item: dict[str, Any] = {
            "type": "function_call_output",
            "call_id": message.tool_call_id,
            "output": output,
        }
        if message.name is not None:
            item["name"] = message.name
        item.update(_item_fields(message))
        self.emit(item, pointer(index))

    # -------------------------------------------------------------------- content

    def content(
        self,
        content: str | Sequence[ContentBlock] | list[tuple[int, ContentBlock]],
        index: int,
        *,
        tool: bool,
        force_string: bool = False,
    ) -> str | list[dict[str, Any]]:
        """Message or tool-output content: a string or input parts."""
        content_format = "string" if force_string else self.options.content_format
        if isinstance(content, str):
            if content_format == "parts":
                return [{"type": "input_text", "text": content}] if content else []
            return content
        numbered = [
            entry if isinstance(entry, tuple) else (position, entry)
            for position, entry in enumerate(content)
        ]
        if content_format == "string":
            texts: list[str] = []
            for position, block in numbered:
                if isinstance(block, TextBlock):
                    texts.append(block.text)
                    continue
                text = self.unsupported(_what(block, "as a string"), index, position)
                if text is not None:
                    texts.append(text)
            return "\n".join(texts)
        parts: list[dict[str, Any]] = []
        for position, block in numbered:
            part = self.part(block, index, position, tool=tool)
            if part is not None:
                parts.append(part)
        return parts

    def part(
        self, block: ContentBlock, index: int, position: int, *, tool: bool
    ) -> dict[str, Any] | None:
        part: dict[str, Any]
        if isinstance(block, TextBlock):
            part = {"type": "input_text", "text": block.text}
        elif isinstance(block, ImageBlock):
            if not self.options.vision:
                return self.placeholder("image (vision is off)", index, position)
            part = {"type": "input_image"}
            if block.url is not None:
                part["image_url"] = block.url
            elif block.base64 is not None and block.mime_type is not None:
                part["image_url"] = data_url(block.mime_type, block.base64)
                self.count_image(len(block.base64), index, position)
            if block.file_id is not None:
                part["file_id"] = block.file_id
            if block.detail is not None:
                part["detail"] = block.detail
            elif not tool:
                part["detail"] = "auto"  # required in message content
            self.count_image(-1, index, position)
        elif isinstance(block, FileBlock):
            part = {"type": "input_file"}
            if block.file_id is not None:
                part["file_id"] = block.file_id
            if block.base64 is not None and block.mime_type is not None:
                part["file_data"] = data_url(block.mime_type, block.base64)
            if block.url is not None:
                part["file_url"] = block.url
            if block.filename is not None:
                part["filename"] = block.filename
        elif isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("kind") == "part":
            return copy.deepcopy(block.value)
        else:
            return self.placeholder(_what(block, "in input content"), index, position)
        if block.cache_control is not None and self.options.prompt_cache:
            breakpoint_: dict[str, Any] = {"mode": "explicit"}
            if block.cache_control.ttl in _BREAKPOINT_TTLS:
                breakpoint_["ttl"] = block.cache_control.ttl
            part["prompt_cache_breakpoint"] = breakpoint_
        rest = extras_of(block, NAME).get("part")
        if isinstance(rest, dict):
            part.update(rest)
        return part

    def placeholder(self, what: str, index: int, position: int) -> dict[str, Any] | None:
        text = self.unsupported(what, index, position)
        return None if text is None else {"type": "input_text", "text": text}

    def count_image(self, size: int, index: int, position: int) -> None:
        """Count images (size -1) and inline image characters against the known limits."""
        if size < 0:
            self.images += 1
            if self.images == MAX_IMAGES + 1:
                self.problems.append(
                    Problem(
                        pointer(index, "content", position),
                        "too_many_images",
                        f"more than {MAX_IMAGES} images in one request",
                    )
                )
            return
        before = self.image_bytes
        self.image_bytes += size * 3 // 4
        if before <= MAX_INLINE_IMAGE_BYTES < self.image_bytes:
            self.problems.append(
                Problem(
                    pointer(index, "content", position),
                    "payload_too_large",
                    f"more than {MAX_INLINE_IMAGE_BYTES // (1024 * 1024)} MB of inline image "
                    "data in one request (use file ids or URLs)",
                )
            )

    # ------------------------------------------------------------------ assistant

    def assistant(self, message: AssistantMessage, index: int) -> None:
        content = message.content
        if content == "" and not message.tool_calls and not message.invalid_tool_calls:
            self.emit({"role": "assistant", "content": ""}, pointer(index))
            return
        group: dict[str, Any] | None = None  # the assistant message item being filled
        for kind, position, entry in _merged(
            content_blocks(content), message.tool_calls, message.invalid_tool_calls
        ):
            where = (
                pointer(index, "content", position)
                if kind == "block"
                else pointer(index, kind, position)
            )
            if kind == "block" and isinstance(entry, (TextBlock, RefusalBlock)):
                group = self.output_part(entry, group, index, position, where)
                continue
            group = None
            if kind == "tool_calls":
                assert isinstance(entry, ToolCall)
                self.call(entry, where)
            elif kind == "invalid_tool_calls":
                assert isinstance(entry, InvalidToolCall)
                self.invalid_call(entry, index, position, where)
            else:
                assert not isinstance(entry, (ToolCall, InvalidToolCall))
                self.output_block(entry, index, position, where)

    def annotations(
        self, annotations: Sequence[Any] | None, index: int, position: int
    ) -> list[dict[str, Any]]:
        """A text's annotations as ``output_text`` takes them.

        A ``url_citation`` needs url, title and character range: a citation without
        them goes to the unsupported-content policy (the range is not invented).
        """
        out: list[dict[str, Any]] = []
        for annotation in annotations or ():
            if isinstance(annotation, NonStandardAnnotation):
                out.append(copy.deepcopy(annotation.value))
            elif (
                annotation.url is not None
                and annotation.title is not None
                and annotation.start_index is not None
                and annotation.end_index is not None
            ):
                out.append(
                    {
                        "type": "url_citation",
                        "start_index": annotation.start_index,
                        "end_index": annotation.end_index,
                        "title": annotation.title,
                        "url": annotation.url,
                    }
                )
            else:
                missing = [
                    name
                    for name in ("url", "title", "start_index", "end_index")
                    if getattr(annotation, name) is None
                ]
                self.unsupported(f"citation without {', '.join(missing)}", index, position)
        return out

    def output_part(
        self,
        block: TextBlock | RefusalBlock,
        group: dict[str, Any] | None,
        index: int,
        position: int,
        where: str,
    ) -> dict[str, Any] | None:
        """Add a text or refusal block to the current message item, or start one."""
        extras = extras_of(block, NAME)
        header = extras.get("item")
        if block.id is None:
            # No item id: the easy form, a plain string (it has no annotations).
            if isinstance(block, TextBlock) and block.annotations:
                self.unsupported("annotations on text without an item id", index, position)
            item: dict[str, Any] = {"role": "assistant", "content": block.text}
            if isinstance(header, dict):
                item.update(header)
            self.emit(item, where)
            return None
        part: dict[str, Any]
        if isinstance(block, TextBlock):
            part = {
                "type": "output_text",
                "text": block.text,
                "annotations": self.annotations(block.annotations, index, position),
            }
        else:
            part = {"type": "refusal", "refusal": block.text}
        rest = extras.get("part")
        if isinstance(rest, dict):
            part.update(rest)
        if group is not None and group["id"] == block.id and header is None:
            group["content"].append(part)
            return group
        item = dict(header) if isinstance(header, dict) else dict(_DEFAULT_HEADER)
        item.update({"id": block.id, "role": "assistant", "content": [part]})
        self.emit(item, where)
        return item

    def output_block(self, block: ContentBlock, index: int, position: int, where: str) -> None:
        options = self.options
        if isinstance(block, ReasoningBlock):
            if options.replays(block.provider) and block.id is not None:
                self.emit(_encode_reasoning(block), where)
            elif options.reasoning == "text":
                text = block.text if block.text is not None else "\n".join(block.summary or [])
                if text:
                    self.emit({"role": "assistant", "content": text}, where)
            return
        if isinstance(block, ServerToolCallBlock):
            extras = extras_of(block, NAME)
            header = extras.get("item")
            if block.name == "web_search" and isinstance(header, dict):
                item: dict[str, Any] = {"type": "web_search_call"}
                if block.id is not None:
                    item["id"] = block.id
                if block.arguments is not None:
                    item["action"] = block.arguments
                item.update(header)
                self.emit(item, where)
                return
        if isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("kind") == "item":
            self.emit(copy.deepcopy(block.value), where)
            return
        placeholder = self.unsupported(_what(block, "in an assistant turn"), index, position)
        if placeholder is not None:
            self.emit({"role": "assistant", "content": placeholder}, where)

    def call(self, call: ToolCall, where: str) -> None:
        if not self.options.native_tools:
            self.emit({"role": "assistant", "content": tool_call_as_text(call)}, where)
            return
        item: dict[str, Any] = {
            "type": "function_call",
            "call_id": call.id,
            "name": call.name,
            "arguments": arguments_text(call, NAME),
        }
        item.update(
            (key, value) for key, value in extras_of(call, NAME).items() if key != "arguments"
        )
        self.emit(item, where)

    def invalid_call(self, call: InvalidToolCall, index: int, position: int, where: str) -> None:
        arguments = call.arguments if call.arguments is not None else ""
        if call.id is None or call.name is None:
            text = self.unsupported("an invalid tool call without id or name", index, None)
            if text is not None:
                self.emit({"role": "assistant", "content": text}, where)
            return
        if not self.options.native_tools:
            text = f'<tool_call id="{call.id}" name="{call.name}">{arguments}</tool_call>'
            self.emit({"role": "assistant", "content": text}, where)
            return
        item = {"type": "function_call", "call_id": call.id, "name": call.name}
        item["arguments"] = arguments
        item.update(extras_of(call, NAME))
        self.emit(item, where)

    # ------------------------------------------------------------------ structure

    def structure(self) -> None:
        """Rules over the item sequence: unique item ids, reasoning followed by its item."""
        seen: dict[str, str] = {}
        items = self.items
        for position, item in enumerate(items):
            where = self.origins[position]
            item_id = item.get("id")
            if isinstance(item_id, str) and item.get("type") != "item_reference":
                if item_id in seen:
                    self.problems.append(
                        Problem(
                            where,
                            "duplicate_item_id",
                            f"item id {item_id!r} is used twice (first at {seen[item_id]})",
                        )
                    )
                else:
                    seen[item_id] = where
            if item.get("type") == "reasoning":
                following = items[position + 1] if position + 1 < len(items) else None
                if following is None or not _is_output_item(following):
                    self.problems.append(
                        Problem(
                            where,
                            "reasoning_without_following_item",
                            f"reasoning item {item_id!r} must be followed by the item it "
                            "produced (function_call, message ...)",
                        )
                    )


def _merged(
    blocks: list[ContentBlock],
    calls: Sequence[ToolCall],
    invalid: Sequence[InvalidToolCall],
) -> Iterator[tuple[str, int, ContentBlock | ToolCall | InvalidToolCall]]:
    """Blocks and calls in item order: calls at their ``index``, the rest at the end."""
    placed: list[tuple[int, int, int, str, ToolCall | InvalidToolCall]] = []
    tail: list[tuple[str, int, ToolCall | InvalidToolCall]] = []
    groups: tuple[tuple[str, Sequence[ToolCall | InvalidToolCall]], ...] = (
        ("tool_calls", calls),
        ("invalid_tool_calls", invalid),
    )
    for order, (kind, group) in enumerate(groups):
        for position, call in enumerate(group):
            if call.index is None:
                tail.append((kind, position, call))
            else:
                placed.append((call.index, order, position, kind, call))
    placed.sort(key=lambda entry: entry[:3])
    emitted = 0
    next_call = 0
    for position, block in enumerate(blocks):
        while next_call < len(placed) and placed[next_call][0] <= emitted:
            _, _, call_position, kind, call = placed[next_call]
            yield kind, call_position, call
            next_call += 1
            emitted += 1
        yield "block", position, block
        emitted += 1
    for _, _, call_position, kind, call in placed[next_call:]:
        yield kind, call_position, call
    yield from tail


def _is_item_block(block: ContentBlock) -> bool:
    return isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("kind") == "item"


def _is_output_item(item: Mapping[str, Any]) -> bool:
    """Whether an input item is one the model produced (may follow a reasoning item)."""
    kind = item.get("type")
    if item.get("role") is not None and kind in (None, "message"):
        return item.get("role") == "assistant"
    return isinstance(kind, str) and not _is_client_item(kind)


def _is_client_item(kind: str) -> bool:
    return kind in _CLIENT_ITEMS or kind.endswith("_output")


def _item_fields(message: Message) -> dict[str, Any]:
    fields = extras_of(message, NAME).get("item")
    return dict(fields) if isinstance(fields, dict) else {}


def _what(block: ContentBlock, where: str) -> str:
    if isinstance(block, NonStandardBlock):
        kind = block.value.get("type")
        return f"non_standard block {kind!r} {where}"
    return f"{block.type} block {where}"


def _encode_reasoning(block: ReasoningBlock) -> dict[str, Any]:
    extras = extras_of(block, NAME)
    summary = block.summary or []
    raw_summary = extras.get("summary")
    item: dict[str, Any] = {"type": "reasoning", "id": block.id}
    if isinstance(raw_summary, list) and _texts(raw_summary) == summary:
        item["summary"] = raw_summary
    else:
        item["summary"] = [{"type": "summary_text", "text": text} for text in summary]
    if block.encrypted_content is not None:
        item["encrypted_content"] = block.encrypted_content
    raw_content = extras.get("content")
    if isinstance(raw_content, list) and _joined(raw_content) == block.text:
        item["content"] = raw_content
    elif block.text is not None:
        item["content"] = [{"type": "reasoning_text", "text": block.text}]
    header = extras.get("item")
    if isinstance(header, dict):
        item.update(header)
    return item


def _texts(parts: list[Any]) -> list[str] | None:
    texts = [part.get("text") for part in parts if isinstance(part, dict)]
    if len(texts) != len(parts) or not all(isinstance(text, str) for text in texts):
        return None
    return texts  # type: ignore[return-value]


def _joined(parts: list[Any]) -> str | None:
    texts = _texts(parts)
    return None if texts is None or not texts else "\n".join(texts)


def _encode_tool(tool: ToolDefinition) -> dict[str, Any]:
    extras = extras_of(tool, NAME)
    hosted = extras.get("tool")
    if isinstance(hosted, dict):
        return copy.deepcopy(hosted)
    out: dict[str, Any] = {"type": "function", "name": tool.name}
    if tool.description is not None:
        out["description"] = tool.description
    out["parameters"] = tool.parameters
    out["strict"] = tool.strict if tool.strict is not None else False
    rest = extras.get("fields")
    if isinstance(rest, dict):
        out.update(rest)
    return out


def _encode_tool_choice(choice: ToolChoice) -> tuple[Any, bool | None]:
    if isinstance(choice, NamedToolChoice):
        return {"type": "function", "name": choice.name}, choice.parallel
    if isinstance(choice, NoneToolChoice):
        return "none", None
    return choice.type, choice.parallel


# =============================================================================== decode


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """A Responses request (what ``encode`` returns) to a neutral Conversation.

    Accepts ``{"instructions"?, "input", "tools"?, "tool_choice"?,
    "parallel_tool_calls"?}`` (other request parameters are ignored), a bare list of
    input items, one item, a list of input content parts (one user message), a
    ``Response`` (its output items), official SDK objects and JSON text.
    Errors name the item's position in ``input`` as ``message_index`` and the
    content part as ``block_index``.

    Raises:
        ConversionError: for shapes that are not Responses input.
    """
    data = _owned(payload)
    instructions: Any = None
    tools: Any = None
    tool_choice: Any = None
    parallel: Any = None
    string_input = False
    if isinstance(data, dict) and "input" in data:
        instructions = data.get("instructions")
        tools = data.get("tools")
        tool_choice = data.get("tool_choice")
        parallel = data.get("parallel_tool_calls")
        items: Any = data["input"]
        if isinstance(items, str):
            string_input = True
        elif isinstance(items, list):
            items = [_sdk(item) for item in items]
    elif isinstance(data, dict) and data.get("object") == "response":
        items = [_sdk(item) for item in _list(data.get("output"), "response output")]
    elif isinstance(data, dict):
        items = [data]
    elif isinstance(data, list):
        items = [_sdk(item) for item in data]
    else:
        raise ConversionError(
            f"expected a request dict or a list of items, not {type(data).__name__}",
            provider=NAME,
        )

    messages: list[Message] = []
    if instructions is not None:
        if not isinstance(instructions, str):
            raise ConversionError("`instructions` must be a string", provider=NAME)
        messages.append(SystemMessage(content=instructions))
    if string_input:
        messages.append(UserMessage(content=items, extras={NAME: {"string_input": True}}))
    elif isinstance(items, list):
        if items and all(
            isinstance(item, dict) and str(item.get("type")) in _INPUT_PARTS for item in items
        ):
            messages.append(UserMessage(content=_input_parts(items, 0, tool=False)))
        else:
            messages.extend(_decode_items(items))
    else:
        raise ConversionError("`input` must be a string or a list of items", provider=NAME)

    fields: dict[str, Any] = {"messages": messages}
    if tools is not None:
        fields["tools"] = [
            _decode_tool(tool, index) for index, tool in enumerate(_list(tools, "tools"))
        ]
    choice = _decode_tool_choice(tool_choice, parallel)
    if choice is not None:
        fields["tool_choice"] = choice
    return Conversation(**fields)


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
    data = _owned(payload)
    if not isinstance(data, dict):
        raise ConversionError(f"expected a Response, not {type(data).__name__}", provider=NAME)
    output = [_sdk(item) for item in _list(data.get("output"), "response output")]
    message = _decode_run(list(enumerate(output)), whole_response=True)
    fields: dict[str, Any] = dict(message)
    content = fields.get("content")
    fields.update(
        _response_fields(
            data,
            calls=bool(message.get("tool_calls") or message.get("invalid_tool_calls")),
            refusal=isinstance(content, list)
            and any(isinstance(block, RefusalBlock) for block in content),
        )
    )
    reply: AssistantMessage = _build(AssistantMessage, fields, None, None)
    return reply


def _response_fields(data: Mapping[str, Any], *, calls: bool, refusal: bool) -> dict[str, Any]:
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
        finish = _finish_reason(status, data.get("incomplete_details"), calls, refusal)
        if finish is not None:
            fields["finish_reason"] = finish
    metadata = {
        key: value
        for key, value in data.items()
        if value is not None
        and key not in _REQUEST_ECHO
        and key not in ("id", "model", "object", "output", "usage", "status")
    }
    if data.get("usage") is not None:
        fields["usage"], unmapped = _decode_usage(data["usage"])
        if unmapped:
            metadata["usage"] = data["usage"]  # what the neutral usage cannot say
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return fields


def _finish_reason(status: str, details: Any, calls: bool, refusal: bool) -> str | None:
    if status == "completed":
        if calls:
            return "tool_calls"
        if refusal:
            return "content_filter"
        return "stop"
    if status == "incomplete":
        reason = details.get("reason") if isinstance(details, dict) else None
        if reason == "max_output_tokens":
            return "length"
        if reason == "content_filter":
            return "content_filter"
        return "other"
    if status == "failed":
        return "error"
    if status == "cancelled":
        return "other"
    return None  # in_progress, queued: not finished


def _count(value: Any, what: str) -> int:
    if type(value) is not int or value < 0:
        raise ConversionError(f"usage.{what} must be a non-negative integer", provider=NAME)
    return value


def _decode_usage(usage: Any) -> tuple[Usage, bool]:
    """Neutral usage, and whether the raw usage held more than it can say."""
    if not isinstance(usage, dict):
        raise ConversionError("`usage` must be an object", provider=NAME)
    input_tokens = _count(usage.get("input_tokens"), "input_tokens")
    output_tokens = _count(usage.get("output_tokens"), "output_tokens")
    total = usage.get("total_tokens")
    fields: dict[str, Any] = {
        "input_tokens": input_tokens,
        "output_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens
        if total is None
        else _count(total, "total_tokens"),
    }
    unmapped = bool(
        set(usage)
        - {"input_tokens", "output_tokens", "total_tokens", "input_tokens_details"}
        - {"output_tokens_details"}
    )
    details = usage.get("input_tokens_details")
    if isinstance(details, dict):
        counts: dict[str, int] = {}
        for key, value in details.items():
            if key == "cache_write_tokens_details" and isinstance(value, dict):
                for ttl_key, ttl_value in value.items():
                    if type(ttl_value) is int and ttl_value >= 0:
                        name = ttl_key.removeprefix("ttl_").removesuffix("_tokens")
                        counts["cache_creation_" + name] = ttl_value
                    else:
                        unmapped = True
            elif key in ("cached_tokens", "cache_write_tokens"):
                name = "cache_read" if key == "cached_tokens" else "cache_creation"
                counts[name] = _count(value, f"input_tokens_details.{key}")
            elif type(value) is int and value >= 0:
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
            if key == "reasoning_tokens":
                counts["reasoning"] = _count(value, f"output_tokens_details.{key}")
            elif type(value) is int and value >= 0:
                counts[key.removesuffix("_tokens")] = value
            else:
                unmapped = True
        fields["output_token_details"] = OutputTokenDetails(**counts)
    elif details is not None:
        unmapped = True
    return Usage(**fields), unmapped


# --------------------------------------------------------------------------- items


def _sdk(value: Any) -> Any:
    """An element of a payload: SDK objects to JSON data; anything else as it is."""
    return as_json(value) if isinstance(value, pydantic.BaseModel) else value


def _owned(payload: Any) -> Any:
    """JSON data that the decoded models may keep: the caller's dicts are copied once."""
    data = _json(payload)
    return copy.deepcopy(data) if data is payload else data


def _json(payload: Any) -> Any:
    try:
        return as_json(payload)
    except ConversionError as error:
        raise ConversionError(error.reason, provider=NAME) from None


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ConversionError(f"{what} must be a list", provider=NAME)
    return value


def _error(reason: str, index: int | None, block: int | None = None) -> ConversionError:
    return ConversionError(reason, provider=NAME, message_index=index, block_index=block)


def _build(cls: Any, fields: dict[str, Any], index: int | None, block: int | None) -> Any:
    """Construct a neutral model; its validation errors become ConversionError."""
    try:
        return cls(**fields)
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        reason = f"cannot build {cls.__name__}: {where}: {first['msg']}"
        raise _error(reason, index, block) from None


def _decode_items(items: list[Any]) -> list[Message]:
    """Input items to messages, in one pass; consecutive output items form one turn."""
    messages: list[Message] = []
    run: list[tuple[int, dict[str, Any]]] = []
    leading = True  # only system / developer messages so far

    def flush() -> None:
        if run:
            messages.append(_decode_run(run, whole_response=False))
            run.clear()

    for index, item in enumerate(items):
        if not isinstance(item, dict):
            raise _error(f"an input item must be an object, not {type(item).__name__}", index)
        kind = item.get("type")
        role = item.get("role")
        if kind in (None, "message") and role is not None:
            if role == "assistant":
                run.append((index, item))
                leading = False
                continue
            flush()
            if role == "user":
                messages.append(_decode_input_message(item, index, UserMessage, False))
                leading = False
            elif role in ("system", "developer"):
                messages.append(_decode_input_message(item, index, SystemMessage, leading))
            else:
                raise _error(f"unknown message role {role!r}", index)
            continue
        leading = False
        if kind is None:
            if isinstance(item.get("id"), str):  # an item_reference without its type
                flush()
                messages.append(_client_item(item))
                continue
            raise _error("an input item needs a `type` or a `role`", index)
        if not isinstance(kind, str):
            raise _error("an item's `type` must be a string", index)
        if kind == "function_call_output":
            flush()
            messages.append(_decode_tool_output(item, index))
        elif _is_client_item(kind):
            flush()
            messages.append(_client_item(item))
        else:
            run.append((index, item))
    flush()
    return messages


def _client_item(item: dict[str, Any]) -> UserMessage:
    return UserMessage(content=[NonStandardBlock(value=item, extras={NAME: dict(_KIND_ITEM)})])


def _decode_input_message(
    item: dict[str, Any], index: int, cls: type[UserMessage] | type[SystemMessage], leading: bool
) -> Message:
    rest = dict(item)
    role = rest.pop("role")
    content = rest.pop("content", None)
    fields: dict[str, Any] = {}
    if isinstance(content, str):
        fields["content"] = content
    elif isinstance(content, list):
        fields["content"] = _input_parts(content, index, tool=False)
    else:
        raise _error("a message needs `content`: a string or a list of parts", index)
    extras: dict[str, Any] = {}
    if rest or leading:
        extras["item"] = rest  # a leading system item: not part of `instructions`
    if role == "developer":
        extras["role"] = role
    if extras:
        fields["extras"] = {NAME: extras}
    return _build(cls, fields, index, None)  # type: ignore[no-any-return]


def _decode_tool_output(item: dict[str, Any], index: int) -> Message:
    rest = dict(item)
    del rest["type"]
    call_id = rest.pop("call_id", None)
    if not isinstance(call_id, str) or not call_id:
        return _client_item(item)  # call_id is optional in the SDK; keep the item as is
    output = rest.pop("output", None)
    fields: dict[str, Any] = {"tool_call_id": call_id}
    if isinstance(output, str):
        fields["content"] = output
    elif isinstance(output, list):
        fields["content"] = _input_parts(output, index, tool=True)
    else:
        raise _error("function_call_output needs `output`: a string or a list of parts", index)
    name = rest.get("name")
    if isinstance(name, str) and name:
        fields["name"] = rest.pop("name")
    if rest:
        fields["extras"] = {NAME: {"item": rest}}
    return _build(ToolMessage, fields, index, None)  # type: ignore[no-any-return]


def _input_parts(parts: list[Any], index: int, *, tool: bool) -> list[ContentBlock]:
    return [_input_part(part, index, position, tool=tool) for position, part in enumerate(parts)]


def _input_part(part: Any, index: int, position: int, *, tool: bool) -> ContentBlock:
    part = _sdk(part)
    if not isinstance(part, dict):
        raise _error("a content part must be an object", index, position)
    rest = dict(part)
    kind = rest.pop("type", None)
    fields: dict[str, Any] = {}
    cls: Any
    if kind == "input_text":
        text = rest.pop("text", None)
        if not isinstance(text, str):
            raise _error("input_text needs a string `text`", index, position)
        fields["text"] = text
        cls = TextBlock
    elif kind == "input_image":
        url = _pop_str(rest, "image_url")
        file_id = _pop_str(rest, "file_id")
        if url is None and file_id is None:
            return _non_standard_part(part)
        if url is not None:
            inline = parse_data_url(url)
            if inline is not None and _MIME.fullmatch(inline[0]):
                fields["mime_type"], fields["base64"] = inline
            else:
                fields["url"] = url
        if file_id is not None:
            fields["file_id"] = file_id
        if isinstance(rest.get("detail"), str) and rest["detail"] in _DETAILS:
            fields["detail"] = rest.pop("detail")
        cls = ImageBlock
    elif kind == "input_file":
        file_id = _pop_str(rest, "file_id")
        file_url = _pop_str(rest, "file_url")
        file_data = rest.get("file_data")
        if isinstance(file_data, str):
            inline = parse_data_url(file_data)
            if inline is not None and _MIME.fullmatch(inline[0]):
                fields["mime_type"], fields["base64"] = inline
                del rest["file_data"]
        if file_id is not None:
            fields["file_id"] = file_id
        if file_url is not None:
            fields["url"] = file_url
        if "base64" not in fields and file_id is None and file_url is None:
            return _non_standard_part(part)
        filename = rest.get("filename")
        if isinstance(filename, str) and filename:
            fields["filename"] = rest.pop("filename")
        cls = FileBlock
    else:
        return _non_standard_part(part)
    cache = rest.get("prompt_cache_breakpoint")
    if (
        isinstance(cache, dict)
        and cache.get("mode") == "explicit"
        and set(cache) <= {"mode", "ttl"}
        and str(cache.get("ttl", "30m")) in _BREAKPOINT_TTLS
    ):
        del rest["prompt_cache_breakpoint"]
        fields["cache_control"] = (
            CacheControl(ttl=cache["ttl"]) if "ttl" in cache else CacheControl()
        )
    if rest:
        fields["extras"] = {NAME: {"part": rest}}
    try:
        return cls(**fields)  # type: ignore[no-any-return]
    except pydantic.ValidationError:
        return _non_standard_part(part)  # values the neutral model cannot hold (a bad URL ...)


def _pop_str(rest: dict[str, Any], key: str) -> str | None:
    value = rest.get(key)
    if isinstance(value, str) and value:
        del rest[key]
        return value
    return None


def _non_standard_part(part: dict[str, Any]) -> NonStandardBlock:
    return NonStandardBlock(value=part, extras={NAME: dict(_KIND_PART)})


def _non_standard_item(item: dict[str, Any]) -> NonStandardBlock:
    return NonStandardBlock(value=item, extras={NAME: dict(_KIND_ITEM)})


# ----------------------------------------------------------------- assistant turns


def _decode_run(run: list[tuple[int, dict[str, Any]]], *, whole_response: bool) -> Any:
    """Consecutive output items to one assistant message.

    Returns the AssistantMessage, or with ``whole_response`` its keyword fields.
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
            raise _error(f"an output item must be an object, not {type(item).__name__}", index)
        kind = item.get("type")
        position = len(blocks) + len(calls) + len(invalid)
        if kind == "function_call":
            valid, call = _decode_function_call(item, index)
            call["index"] = position
            (calls if valid else invalid).append(call)
            continue
        if kind in (None, "message") and item.get("role") == "assistant":
            blocks.extend(_decode_output_message(item, index))
        elif kind == "reasoning" and isinstance(item.get("id"), str) and item["id"]:
            blocks.append(_decode_reasoning(item, index))
        elif kind == "web_search_call":
            blocks.append(_decode_web_search(item, index))
        else:
            blocks.append(_non_standard_item(item))
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
        and _plain(blocks[0])
    ):
        fields["content"] = blocks[0].text  # one plain easy message: the string shorthand
    elif blocks:
        fields["content"] = blocks
    first = run[0][0] if run else None
    if calls:
        fields["tool_calls"] = [_build(ToolCall, call, first, None) for call in calls]
    if invalid:
        fields["invalid_tool_calls"] = [
            _build(InvalidToolCall, call, first, None) for call in invalid
        ]
    if whole_response:
        return fields
    return _build(AssistantMessage, fields, first, None)


def _plain(block: TextBlock) -> bool:
    return block.model_fields_set <= {"type", "text"}


def _decode_function_call(item: dict[str, Any], index: int) -> tuple[bool, dict[str, Any]]:
    rest = dict(item)
    del rest["type"]
    call_id = rest.pop("call_id", None)
    name = rest.pop("name", None)
    arguments = rest.pop("arguments", None)
    if not isinstance(call_id, str) or not call_id:
        raise _error("function_call needs a `call_id`", index)
    if not isinstance(name, str) or not name:
        raise _error("function_call needs a `name`", index)
    if not isinstance(arguments, str):
        raise _error("function_call `arguments` must be a JSON string", index)
    parsed, problem = parse_arguments(arguments)
    if parsed is None:
        fields: dict[str, Any] = {
            "id": call_id,
            "name": name,
            "arguments": arguments,
            "error": problem,
        }
        if rest:
            fields["extras"] = {NAME: rest}
        return False, fields
    if arguments != json.dumps(parsed, ensure_ascii=False):
        rest = {"arguments": arguments, **rest}  # the exact text, for byte-identical replay
    fields = {"id": call_id, "name": name, "arguments": parsed}
    if rest:
        fields["extras"] = {NAME: rest}
    return True, fields


def _decode_output_message(item: dict[str, Any], index: int) -> list[ContentBlock]:
    rest = dict(item)
    del rest["role"]
    content = rest.pop("content", None)
    if isinstance(content, str):
        fields: dict[str, Any] = {"text": content}
        if rest:
            fields["extras"] = {NAME: {"item": rest}}
        return [_build(TextBlock, fields, index, None)]
    item_id = rest.pop("id", None)
    if (
        not isinstance(item_id, str)
        or not item_id
        or not isinstance(content, list)
        or not content
        or not all(_plain_output_part(part) for part in content)
    ):
        return [_non_standard_item(item)]  # kept whole: no neutral form loses nothing
    blocks: list[ContentBlock] = []
    for position, part in enumerate(content):
        part_rest = dict(part)
        kind = part_rest.pop("type")
        extras: dict[str, Any] = {}
        if position == 0 and rest != _DEFAULT_HEADER:
            extras["item"] = rest
        if kind == "output_text":
            fields = {"text": part_rest.pop("text"), "id": item_id}
            annotations = [
                _decode_annotation(a, index, position) for a in part_rest.pop("annotations")
            ]
            if annotations:
                fields["annotations"] = annotations
            cls: Any = TextBlock
        else:
            fields = {"text": part_rest.pop("refusal"), "id": item_id}
            cls = RefusalBlock
        if part_rest:
            extras["part"] = part_rest
        if extras:
            fields["extras"] = {NAME: extras}
        blocks.append(_build(cls, fields, index, position))
    return blocks


def _plain_output_part(part: Any) -> bool:
    if not isinstance(part, dict):
        return False
    kind = part.get("type")
    if kind == "output_text":
        return isinstance(part.get("text"), str) and isinstance(part.get("annotations"), list)
    return kind == "refusal" and isinstance(part.get("refusal"), str)


def _decode_annotation(
    annotation: Any, index: int, position: int
) -> Citation | NonStandardAnnotation:
    if (
        isinstance(annotation, dict)
        and annotation.get("type") == "url_citation"
        and set(annotation) == {"type", "url", "title", "start_index", "end_index"}
    ):
        try:
            return Citation(
                url=annotation["url"],
                title=annotation["title"],
                start_index=annotation["start_index"],
                end_index=annotation["end_index"],
            )
        except pydantic.ValidationError:
            pass
    if not isinstance(annotation, dict):
        raise _error("an annotation must be an object", index, position)
    return NonStandardAnnotation(value=annotation)


def _decode_reasoning(item: dict[str, Any], index: int) -> ReasoningBlock:
    rest = dict(item)
    del rest["type"]
    fields: dict[str, Any] = {"id": rest.pop("id"), "provider": NAME}
    extras: dict[str, Any] = {}
    summary = rest.pop("summary", None)
    if isinstance(summary, list):
        texts = _texts(summary)
        if texts is None:
            raise _error("reasoning summary parts need a string `text`", index)
        fields["summary"] = texts
        if any(set(part) != {"type", "text"} or part["type"] != "summary_text" for part in summary):
            extras["summary"] = summary
    elif summary is not None:
        rest["summary"] = summary
    encrypted = rest.get("encrypted_content")
    if isinstance(encrypted, str):
        fields["encrypted_content"] = rest.pop("encrypted_content")
    content = rest.get("content")
    if isinstance(content, list):
        text = _joined(content)  # None unless every part is an object with a string text
        if text is not None:
            fields["text"] = text
            if content != [{"type": "reasoning_text", "text": text}]:
                extras["content"] = content  # kept as it came: sent back while text agrees
            del rest["content"]
    if rest:
        extras["item"] = rest
    if extras:
        fields["extras"] = {NAME: extras}
    return _build(ReasoningBlock, fields, index, None)  # type: ignore[no-any-return]


def _decode_web_search(item: dict[str, Any], index: int) -> ServerToolCallBlock:
    rest = dict(item)
    del rest["type"]
    fields: dict[str, Any] = {"name": "web_search"}
    item_id = _pop_str(rest, "id")
    if item_id is not None:
        fields["id"] = item_id
    if isinstance(rest.get("action"), dict):
        fields["arguments"] = rest.pop("action")
    fields["extras"] = {NAME: {"item": rest}}
    return _build(ServerToolCallBlock, fields, index, None)  # type: ignore[no-any-return]


# --------------------------------------------------------------------------- tools


def _decode_tool(tool: Any, index: int) -> ToolDefinition:
    tool = _sdk(tool)
    if not isinstance(tool, dict):
        raise ConversionError(f"tools[{index}] must be an object", provider=NAME)
    if tool.get("type") != "function":
        # A hosted tool (web_search, file_search, mcp ...): kept unchanged, and
        # marked as this format's, so that no other format sends it as a function.
        name = tool.get("name") if isinstance(tool.get("name"), str) else tool.get("type")
        if not isinstance(name, str) or not name:
            raise ConversionError(f"tools[{index}] has no `type`", provider=NAME)
        return ToolDefinition(
            name=name, parameters={}, provider=NAME, extras={NAME: {"tool": tool}}
        )
    rest = dict(tool)
    del rest["type"]
    name = rest.pop("name", None)
    if not isinstance(name, str) or not name:
        raise ConversionError(f"tools[{index}] needs a `name`", provider=NAME)
    fields: dict[str, Any] = {"name": name}
    if isinstance(rest.get("description"), str):
        fields["description"] = rest.pop("description")
    parameters = rest.get("parameters")
    if isinstance(parameters, dict):
        fields["parameters"] = rest.pop("parameters")
    else:
        fields["parameters"] = {}  # null or missing: kept below, sent back as it came
    if isinstance(rest.get("strict"), bool):
        fields["strict"] = rest.pop("strict")
    if rest:
        fields["extras"] = {NAME: {"fields": rest}}
    try:
        return ToolDefinition(**fields)
    except pydantic.ValidationError as error:
        raise ConversionError(
            f"tools[{index}]: {error.errors()[0]['msg']}", provider=NAME
        ) from None


def _decode_tool_choice(choice: Any, parallel: Any) -> ToolChoice | None:
    if parallel is not None and not isinstance(parallel, bool):
        raise ConversionError("`parallel_tool_calls` must be true or false", provider=NAME)
    extra: dict[str, Any] = {} if parallel is None else {"parallel": parallel}
    if choice is None:
        return AutoToolChoice(**extra) if extra else None
    if choice == "auto":
        return AutoToolChoice(**extra)
    if choice == "required":
        return RequiredToolChoice(**extra)
    if choice == "none" and parallel is None:
        return NoneToolChoice()
    if (
        isinstance(choice, dict)
        and choice.get("type") == "function"
        and set(choice) == {"type", "name"}
        and isinstance(choice["name"], str)
        and choice["name"]
    ):
        return NamedToolChoice(name=choice["name"], **extra)
    raise ConversionError(
        f"tool_choice {choice!r}"
        + (f" with parallel_tool_calls={parallel}" if parallel is not None else "")
        + " has no neutral equivalent",
        provider=NAME,
    )


# ========================================================================== stream

# Block fields the ChunkAccumulator appends (strings) and extends (lists), by block type.
_STREAM_APPENDED: Final = {
    "text": ("text",),
    "refusal": ("text",),
    "reasoning": ("text", "signature", "encrypted_content"),
}
_STREAM_EXTENDED: Final = ("annotations", "summary")


def decode_stream(events: Iterable[Any]) -> Iterator[AssistantMessageChunk]:
    """Decode a streamed ``Response`` into ``AssistantMessageChunk`` objects, lazily.

    ``events`` are the stream's events as parsed JSON, the SDK's
    ``ResponseStreamEvent`` objects, or the raw SSE body (``bytes`` or ``str`` pieces
    cut anywhere). Chunks are yielded as events arrive; assembled
    (``ChunkAccumulator``, ``merge_chunks`` or ``+``) they make exactly the message
    :func:`decode_response` makes of the final ``Response``:

    - output items are keyed by ``output_index`` (or ``item_id``); each content
      block gets ``index`` = its position among the reply's blocks and calls, in the
      order the items come, and each ``function_call`` a ``ToolCallChunk`` with that
      position as ``index`` (``call_id`` and ``name`` from the item, the argument
      deltas as they come, keyed by the ``fc_`` item id, never by ``call_id``);
    - ``output_text`` / ``refusal`` deltas and ``reasoning_text`` deltas stream as
      text; annotations as they are added; reasoning summary parts when each is
      done; ``encrypted_content``, the item's other fields (status, ``phase``,
      logprobs ...) and built-in tool items (``web_search_call`` and every other
      item, as ``decode_response`` has them) come once, with ``output_item.done``;
    - ``response.created`` / ``in_progress`` / ``queued`` give model, response id,
      status and metadata; ``response.completed`` / ``response.incomplete`` the
      finish reason and ``usage`` (``usage_mode="cumulative"``) on the last chunk
      (``chunk_position="last"``), after any output item the stream did not finish.

    Raises:
        ConversionError: for ``error`` and ``response.failed`` events (naming the
            error's message) and for malformed events; unknown event types are
            skipped.
    """
    stream = _Stream()
    for event in _sse.events(events, provider=NAME):
        yield from stream.event(event)
        if stream.finished:
            return


class _StreamBlock:
    """A content block of the stream: its position and how much of it was sent."""

    __slots__ = ("counts", "first", "position", "sent", "started", "type")

    def __init__(self, position: int, kind: str) -> None:
        self.position = position
        self.first = False  # the reply's first content block
        self.type = kind  # "" for a place kept for a block decoded at the item's end
        self.sent: dict[str, int] = {}  # appended field: characters sent
        self.counts: dict[str, int] = {}  # extended field: entries sent
        self.started = False

    def rest(self, final: ContentBlock) -> ContentBlock | None:
        """What ``final`` adds to what was sent: all of it if nothing was."""
        if final.type != self.type:
            if self.started:
                return None  # the item changed its mind: what was sent stays
            self.type = final.type
        self.started = True
        appended = _STREAM_APPENDED.get(self.type, ())
        values = final.__dict__
        fields: dict[str, Any] = {"index": self.position}
        for name in final.model_fields_set:
            value = values[name]
            if value is None or name in ("type", "index"):
                continue
            if name in appended:
                sent = self.sent.get(name)
                if sent is None or len(value) > sent:
                    fields[name] = value[sent or 0 :]
                    self.sent[name] = len(value)
            elif name in _STREAM_EXTENDED:
                count = self.counts.get(name)
                if count is None or len(value) > count:
                    fields[name] = list(value[count or 0 :])
                    self.counts[name] = len(value)
            else:
                fields[name] = value  # the first value wins: sent again, harmlessly
        if self.type in ("text", "refusal"):
            fields.setdefault("text", "")  # required: an empty delta
        block: ContentBlock = _stream_block(type(final), fields)
        return block


class _StreamItem:
    """One output item of the stream."""

    __slots__ = (
        "arguments",
        "block",
        "call",
        "done",
        "id",
        "index",
        "kind",
        "parts",
        "texts",
        "whole",
    )

    def __init__(self, index: int, kind: str, item_id: str | None) -> None:
        self.index = index  # output_index
        self.kind = kind  # "message" (assistant), "function_call", "reasoning", or the type
        self.id = item_id
        self.parts: dict[int, _StreamBlock] = {}  # message: blocks by content index
        self.block: _StreamBlock | None = None  # any other item's one block
        self.whole = False  # message: decoded whole at its end, nothing streamed
        self.call: int | None = None  # function_call: its position
        self.arguments = 0  # function_call: argument characters sent
        self.texts = 0  # reasoning: content parts begun
        self.done = False


class _Stream:
    """The state of one decode_stream: O(1) per event besides the streamed data."""

    def __init__(self) -> None:
        self.items: dict[int, _StreamItem] = {}
        self.by_id: dict[str, _StreamItem] = {}
        self.positions = 0  # blocks and calls placed so far
        self.placed_block = False  # a content block was placed
        self.calls = False  # a function_call came (finish reason "tool_calls")
        self.refusal = False  # a refusal part came (finish reason "content_filter")
        self.started = False  # a chunk was yielded (it carried `provider`)
        self.finished = False

    # ----------------------------------------------------------------- plumbing

    def take(self) -> int:
        position = self.positions
        self.positions += 1
        return position

    def new_block(self, kind: str) -> _StreamBlock:
        block = _StreamBlock(self.take(), kind)
        block.first = not self.placed_block
        self.placed_block = True
        return block

    def chunk(self, **fields: Any) -> AssistantMessageChunk:
        if not self.started:
            self.started = True
            fields.setdefault("provider", NAME)
        try:
            return AssistantMessageChunk(**fields)
        except pydantic.ValidationError as error:
            _stream_fail(f"cannot build a chunk: {error.errors()[0]['msg']}")

    def blocks(self, blocks: list[ContentBlock]) -> list[AssistantMessageChunk]:
        return [self.chunk(content=blocks)] if blocks else []

    def event(self, raw: Any) -> list[AssistantMessageChunk]:
        data = _json(raw)
        if not isinstance(data, dict):
            _stream_fail(f"a stream event must be an object, not {type(data).__name__}")
        kind = data.get("type")
        if not isinstance(kind, str):
            _stream_fail("a stream event needs a string `type`")
        handler = _STREAM_HANDLERS.get(kind)
        if handler is None:
            return []  # a type this codec does not know (or need): skipped
        return handler(self, data)

    # -------------------------------------------------------- response events

    def response_fields(self, data: dict[str, Any]) -> dict[str, Any]:
        response = _event_object(data, "response")
        head = {key: copy.deepcopy(value) for key, value in response.items() if key != "output"}
        fields = _response_fields(head, calls=self.calls, refusal=self.refusal)
        if "usage" in fields:
            fields["usage_mode"] = "cumulative"  # the response's totals
        return fields

    def snapshot(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        return [self.chunk(**self.response_fields(data))]

    def final(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        output = _event_object(data, "response").get("output")
        chunks: list[AssistantMessageChunk] = []
        if output is not None:
            if not isinstance(output, list):
                _stream_fail("the final response's `output` must be a list")
            for index, item in enumerate(output):
                state = self.items.get(index)
                if state is None or not state.done:  # items the stream did not finish
                    chunks += self.item_done(index, item)
        chunks.append(self.chunk(chunk_position="last", **self.response_fields(data)))
        self.finished = True
        return chunks

    def failed(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        response = data.get("response")
        error = response.get("error") if isinstance(response, dict) else None
        _stream_error(error if error else {"message": "the response failed"})

    def error(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        inner = data.get("error")
        _stream_error(inner if isinstance(inner, dict) else data)

    # ------------------------------------------------------------ item events

    def added(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        index = _event_index(data, "output_index")
        item = _event_object(data, "item")
        if index in self.items:
            return []  # announced twice: the first one counts
        return self.start(index, item)

    def start(self, index: int, item: dict[str, Any]) -> list[AssistantMessageChunk]:
        """A new output item: its place, and what can be sent before it is done."""
        kind = _item_kind(item)
        item_id = item.get("id")
        if not isinstance(item_id, str) or not item_id:
            item_id = None
        state = self.items[index] = _StreamItem(index, kind, item_id)
        if item_id is not None:
            self.by_id.setdefault(item_id, state)
        if kind == "message":
            if item_id is None:  # no id: decoded whole, as one block, at the end
                state.whole = True
                state.block = self.new_block("")
            return []
        if kind == "function_call":
            self.calls = True
            state.call = self.take()
            fragment: dict[str, Any] = {"index": state.call}
            for key, name in (("call_id", "id"), ("name", "name")):
                value = item.get(key)
                if isinstance(value, str) and value:
                    fragment[name] = value
            arguments = item.get("arguments")
            if isinstance(arguments, str) and arguments:
                fragment["arguments"] = arguments
                state.arguments = len(arguments)
            return [self.chunk(tool_call_chunks=[ToolCallChunk(**fragment)])]
        state.block = self.new_block("")
        if kind == "reasoning" and item_id is not None:
            state.block.type = "reasoning"
            state.block.started = True
            block = _stream_block(
                ReasoningBlock, {"index": state.block.position, "id": item_id, "provider": NAME}
            )
            return self.blocks([block])
        if kind == "web_search_call":
            state.block.type = "server_tool_call"
            state.block.started = True
            fields: dict[str, Any] = {"index": state.block.position, "name": "web_search"}
            if item_id is not None:
                fields["id"] = item_id
            return self.blocks([_stream_block(ServerToolCallBlock, fields)])
        return []  # any other item: one block, whole, when it is done

    def located(
        self, data: dict[str, Any], hint: str
    ) -> tuple[_StreamItem | None, list[AssistantMessageChunk]]:
        """The item an event is about (by ``output_index``, else ``item_id``).

        An item the stream did not announce is started as a ``hint`` item. Returns
        ``None`` for an item of another kind or one already done (late deltas).
        """
        item_id = data.get("item_id")
        if item_id is not None and (not isinstance(item_id, str) or not item_id):
            _stream_fail(f"{data['type']}: `item_id` must be a non-empty string")
        chunks: list[AssistantMessageChunk] = []
        if data.get("output_index") is None and item_id is not None:
            state = self.by_id.get(item_id)
            if state is None:
                _stream_fail(f"{data['type']} names an unknown output item {item_id!r}")
        else:
            index = _event_index(data, "output_index")
            state = self.items.get(index)
            if state is None:
                stub: dict[str, Any] = {"type": hint}
                if item_id is not None:
                    stub["id"] = item_id
                if hint == "message":
                    stub["role"] = "assistant"
                chunks = self.start(index, stub)
                state = self.items[index]
        if state.kind != hint or state.done:
            return None, chunks
        return state, chunks

    def part(
        self, state: _StreamItem, data: dict[str, Any], kind: str, *, plain: bool = True
    ) -> tuple[_StreamBlock | None, list[ContentBlock]]:
        """The block of a message's content part, started if new."""
        position = _event_index(data, "content_index")
        if state.whole:
            return None, []
        block = state.parts.get(position)
        if block is not None:
            if block.type != kind:
                _stream_fail(f"{data['type']}: content part {position} is a {block.type} part")
            return block, []
        if not plain:
            if not state.parts:  # decode_response keeps such an item whole
                state.whole = True
                state.block = self.new_block("")
            return None, []
        block = state.parts[position] = self.new_block(kind)
        block.sent["text"] = 0
        block.started = True
        fields: dict[str, Any] = {"index": block.position, "text": ""}
        if state.id is not None:
            fields["id"] = state.id
        if kind == "refusal":
            self.refusal = True
        return block, [_stream_block(RefusalBlock if kind == "refusal" else TextBlock, fields)]

    def part_added(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        part = _event_object(data, "part")
        if part.get("type") == "reasoning_text":
            state, chunks = self.located(data, "reasoning")
            if state is not None:
                chunks += self.blocks(
                    self.reasoning(state, _event_index(data, "content_index"), "")
                )
            return chunks
        state, chunks = self.located(data, "message")
        if state is not None:
            kind = "refusal" if part.get("type") == "refusal" else "text"
            _, blocks = self.part(state, data, kind, plain=_plain_output_part(part))
            chunks += self.blocks(blocks)
        return chunks

    def text(self, data: dict[str, Any], kind: str) -> list[AssistantMessageChunk]:
        delta = _event_str(data, "delta")
        state, chunks = self.located(data, "message")
        if state is None:
            return chunks
        block, blocks = self.part(state, data, kind)
        if block is not None and delta:
            block.sent["text"] += len(delta)
            cls = RefusalBlock if kind == "refusal" else TextBlock
            blocks.append(_stream_block(cls, {"index": block.position, "text": delta}))
        return chunks + self.blocks(blocks)

    def output_text(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        return self.text(data, "text")

    def refusal_text(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        return self.text(data, "refusal")

    def annotation(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        state, chunks = self.located(data, "message")
        if state is None:
            return chunks
        block, blocks = self.part(state, data, "text")
        if block is not None:
            count = block.counts.get("annotations", 0)
            number = data.get("annotation_index")
            if number is None or _event_index(data, "annotation_index") == count:
                annotation = _decode_annotation(
                    copy.deepcopy(data.get("annotation")), state.index, data["content_index"]
                )
                block.counts["annotations"] = count + 1
                fields = {"index": block.position, "text": "", "annotations": [annotation]}
                blocks.append(_stream_block(TextBlock, fields))
        return chunks + self.blocks(blocks)

    def arguments(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        delta = _event_str(data, "delta")
        state, chunks = self.located(data, "function_call")
        if state is not None and delta:
            state.arguments += len(delta)
            fragment = ToolCallChunk(index=state.call, arguments=delta)
            chunks.append(self.chunk(tool_call_chunks=[fragment]))
        return chunks

    def summary(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        """A reasoning summary part, whole (``summary`` entries cannot grow)."""
        number = _event_index(data, "summary_index")
        if "text" in data:
            text = _event_str(data, "text")
        else:
            text = _event_str(_event_object(data, "part"), "text")
        state, chunks = self.located(data, "reasoning")
        block = state.block if state is not None else None
        if block is not None and block.type == "reasoning":
            count = block.counts.get("summary", 0)
            if number == count:
                block.counts["summary"] = count + 1
                fields = {"index": block.position, "summary": [text]}
                chunks += self.blocks([_stream_block(ReasoningBlock, fields)])
        return chunks

    def reasoning(self, state: _StreamItem, content_index: int, delta: str) -> list[ContentBlock]:
        """Reasoning text; content parts are joined with newlines, as decode_response does."""
        block = state.block
        if block is None or block.type != "reasoning":
            return []
        text = delta
        if content_index >= state.texts:
            text = "\n" * (content_index - max(state.texts - 1, 0)) + delta
            state.texts = content_index + 1
        if not text:
            return []
        block.sent["text"] = block.sent.get("text", 0) + len(text)
        return [_stream_block(ReasoningBlock, {"index": block.position, "text": text})]

    def reasoning_text(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        delta = _event_str(data, "delta")
        state, chunks = self.located(data, "reasoning")
        if state is not None:
            chunks += self.blocks(self.reasoning(state, _event_index(data, "content_index"), delta))
        return chunks

    def done(self, data: dict[str, Any]) -> list[AssistantMessageChunk]:
        return self.item_done(_event_index(data, "output_index"), _event_object(data, "item"))

    def item_done(self, index: int, item: Any) -> list[AssistantMessageChunk]:
        """A finished item: what it adds to what was streamed of it."""
        item = _sdk(item)
        if not isinstance(item, dict):
            _stream_fail(f"output item {index} must be an object, not {type(item).__name__}")
        item = copy.deepcopy(item)
        state = self.items.get(index)
        chunks: list[AssistantMessageChunk] = []
        if state is None:
            chunks = self.start(index, item)
            state = self.items[index]
        elif state.kind != _item_kind(item):
            _stream_fail(
                f"output item {index} began as {state.kind!r}, ended as {item.get('type')!r}"
            )
        if state.done:
            return chunks
        state.done = True
        if state.kind == "function_call":
            _, fields = _decode_function_call(item, index)
            raw: str = item["arguments"]
            fragment: dict[str, Any] = {
                "index": state.call,
                "id": fields["id"],
                "name": fields["name"],
            }
            if len(raw) > state.arguments:
                fragment["arguments"] = raw[state.arguments :]
                state.arguments = len(raw)
            if "extras" in fields:
                fragment["extras"] = fields["extras"]
            chunks.append(self.chunk(tool_call_chunks=[ToolCallChunk(**fragment)]))
            return chunks
        if state.kind == "message":
            return chunks + self.message_done(state, item, index)
        final: ContentBlock
        if state.kind == "reasoning" and isinstance(item.get("id"), str) and item["id"]:
            final = _decode_reasoning(item, index)
        elif state.kind == "web_search_call":
            final = _decode_web_search(item, index)
        else:
            final = _non_standard_item(item)
        if state.block is None:
            state.block = self.new_block("")
        rest = state.block.rest(final)
        return chunks + self.blocks([rest] if rest is not None else [])

    def message_done(
        self, state: _StreamItem, item: dict[str, Any], index: int
    ) -> list[AssistantMessageChunk]:
        finals = _decode_output_message(item, index)
        plain = all(isinstance(b, (TextBlock, RefusalBlock)) and b.id is not None for b in finals)
        if state.parts and not plain:
            return []  # parts were streamed as blocks before the item turned out whole
        out: list[ContentBlock] = []
        for position, final in enumerate(finals):
            block = state.parts.get(position)
            if block is None:
                if position == 0 and state.block is not None:
                    block = state.block  # the place kept for it
                else:
                    block = self.new_block("")
                if plain:
                    state.parts[position] = block
            if isinstance(final, RefusalBlock):
                self.refusal = True
            if block.first and isinstance(final, TextBlock) and final.text and _plain(final):
                # An id-less text item (``{"role": "assistant", "content": "…"}``) as the
                # reply's first block: string content, which decode_response makes of
                # it when it is the only block, and a text block when more follow.
                block.started = True
                return [self.chunk(content=final.text)]
            rest = block.rest(final)
            if rest is not None:
                out.append(rest)
        return self.blocks(out)


_StreamHandler = Callable[[_Stream, dict[str, Any]], list[AssistantMessageChunk]]
_STREAM_HANDLERS: Final[dict[str, _StreamHandler]] = {
    "response.created": _Stream.snapshot,
    "response.in_progress": _Stream.snapshot,
    "response.queued": _Stream.snapshot,
    "response.completed": _Stream.final,
    "response.incomplete": _Stream.final,
    "response.failed": _Stream.failed,
    "error": _Stream.error,
    "response.output_item.added": _Stream.added,
    "response.output_item.done": _Stream.done,
    "response.content_part.added": _Stream.part_added,
    "response.output_text.delta": _Stream.output_text,
    "response.refusal.delta": _Stream.refusal_text,
    "response.output_text.annotation.added": _Stream.annotation,
    "response.function_call_arguments.delta": _Stream.arguments,
    "response.reasoning_summary_part.done": _Stream.summary,
    "response.reasoning_summary_text.done": _Stream.summary,
    "response.reasoning_text.delta": _Stream.reasoning_text,
}


def _item_kind(item: dict[str, Any]) -> str:
    """How decode_response reads an output item: assistant message, or its type."""
    kind = item.get("type")
    if kind in (None, "message"):
        return "message" if item.get("role") == "assistant" else "other"
    return kind if isinstance(kind, str) else "other"


def _stream_block(cls: Any, fields: dict[str, Any]) -> Any:
    try:
        return cls(**fields)
    except pydantic.ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        _stream_fail(f"cannot build {cls.__name__}: {where}: {first['msg']}")


def _event_index(data: dict[str, Any], key: str) -> int:
    value = data.get(key)
    if type(value) is not int or value < 0:
        _stream_fail(f"{data.get('type')}: `{key}` must be a non-negative integer, not {value!r}")
    return value


def _event_str(data: dict[str, Any], key: str) -> str:
    value = data.get(key)
    if not isinstance(value, str):
        _stream_fail(f"{data.get('type')}: `{key}` must be a string, not {type(value).__name__}")
    return value


def _event_object(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    if not isinstance(value, dict):
        _stream_fail(f"{data.get('type')}: `{key}` must be an object, not {type(value).__name__}")
    return value


def _stream_fail(reason: str) -> NoReturn:
    raise ConversionError(reason, provider=NAME)


def _stream_error(error: Any) -> NoReturn:
    message = error.get("message") if isinstance(error, dict) else None
    if not isinstance(message, str) or not message:
        message = json.dumps(error, default=str)[:200]
    code = error.get("code") if isinstance(error, dict) else None
    suffix = f" ({code})" if isinstance(code, str) and code else ""
    _stream_fail(f"the stream reported an error: {message}{suffix}")
