"""``encode`` and ``check``: the neutral model to ``client.responses.create`` arguments.

``check`` is the encoder in collect mode: one walk writes the items and notes every
rule they break, so each rule is written once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from chatschema_models.content import (
    CompactionBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    ResourceBlock,
    ResourceLinkBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
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
    ToolDefinition,
)
from typing_extensions import Unpack

from chatschema._json import copy_json
from chatschema.errors import Problem
from chatschema.providers._common import (
    EncodeOptions,
    EncodePass,
    Options,
    ToolPairing,
    application_tools,
    arguments_text,
    content_blocks,
    conversed,
    data_url,
    extras_of,
    foreign_tool_problems,
    guarded,
    is_foreign_tool,
    message_index,
    no_messages,
    non_standard_what,
    pointer,
    raise_problems,
    sendable_tools,
    to_conversation,
    tool_call_as_text,
    tool_result_as_text,
    tools_as_text,
)
from chatschema.providers._common.options import report_dropped_settings
from chatschema.providers._common.replay import (
    compaction_text,
    held_back,
    report_skipped,
    skipped,
    target_model,
)
from chatschema.providers._common.resources import resource_as
from chatschema.providers._openai import CITATION_FIELDS, cache_breakpoint, citation_fields
from chatschema.providers.openai_responses.fast import write_messages
from chatschema.providers.openai_responses.items import (
    code_interpreter_item,
    compaction_item,
    function_call_item,
    merged,
    message_item,
    ordered,
    reasoning_item,
    web_search_item,
)
from chatschema.providers.openai_responses.request import (
    encode_extras,
    encode_settings,
    encode_tool,
    encode_tool_choice,
)
from chatschema.providers.openai_responses.rules import (
    REQUIREMENT,
    answered_items,
    pairing_problems,
    structure,
)
from chatschema.providers.openai_responses.wire import (
    EXPLICIT_AUTO,
    KEY_ORDER,
    MAX_IMAGES,
    MAX_INLINE_IMAGE_BYTES,
    NAME,
    NO_DETAIL,
    NO_INPUT,
    PART_ORDER,
    STORED_INPUT_KEYS,
)

__all__ = ["check", "encode"]

_FAST = True
"""Whether the encoder takes its fast path for the common shapes (string content, tool
calls without extras or wire positions: :func:`~.fast.write_messages`; text parts
without cache marker or extras: :meth:`_Encoder.part`). Off, every message and
block takes the general path and check pairs the tool calls in a walk of its own:
``tests/providers/openai_responses/test_encode_fast.py`` compares the two."""

_Origin = tuple[Any, ...]
"""Where an item came from: the arguments of :func:`pointer` (built for problems only)."""


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """Neutral messages (or a Conversation) to ``client.responses.create`` arguments.

    Returns ``{"model"?, "instructions"?, "input", "tools"?, "tool_choice"?,
    "parallel_tool_calls"?, ...}``: the settings that are set
    (``max_output_tokens``, ``temperature``, ``top_p``, ``text.format``,
    ``reasoning.effort``) and the request keys a decoded conversation kept in
    ``extras["openai_responses"]`` come along. ``model`` is written only when
    ``settings.model`` is set, so ``client.responses.create(model=...,
    **encode(conversation))`` works for conversations without it; with it, let the
    caller's win with ``{**encode(conversation), "model": ...}``. ``input`` is a
    list of items, except for a conversation decoded from a request whose ``input``
    was a string, or that had none (then, while there are no items, none). An image
    without ``detail`` gets ``"auto"`` (the SDK type requires it), but one decoded
    without it goes back without it.

    Raises:
        ValidationError: when ``messages`` is not a conversation.
        OptionError: for unknown options or bad option values.
        UnsupportedContentError: for content Responses cannot carry (audio, video,
            images without vision ...) under ``unsupported="error"``, and
            settings it has no key for (``stop``, ``seed``, ``top_k``, penalties,
            ``thinking_budget``) under ``unsupported_settings="error"``.
        ConversionError: with every structural problem (unanswered tool calls,
            duplicate item ids, reasoning without its following item ...) when
            ``check`` is on.
    """
    conversation = to_conversation(messages)
    resolved = Options.resolve(NAME, options)
    # With check on, one pass collects every problem (unsupported content included)
    # and raises with all of them; without, the first unsupported part raises.
    encoder = _Encoder(resolved, collect=resolved.check)
    payload = encoder.request(conversation)
    encoder.last_checks(conversation)
    _no_input(encoder, conversation)
    if resolved.check:
        raise_problems(_problems(conversation, encoder), NAME)
    report_dropped_settings(encoder.dropped_settings, NAME)
    report_skipped(encoder, NAME)
    return payload


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every problem that would make ``encode`` fail or the Responses API reject the input.

    Tool calls without a ``function_call_output`` (and outputs answering no call,
    unless the request names a ``previous_response_id`` or ``conversation``, which
    holds the calls), duplicate item ids, replayed reasoning that no item follows,
    content that cannot be sent under ``unsupported="error"`` (images without
    vision, audio ..., and settings this API has no key for, at
    ``/settings/<field>``), and the known image limits (500 images, 50 MB of inline
    image data).
    """
    conversation = to_conversation(messages)
    encoder = _Encoder(Options.resolve(NAME, options), collect=True)
    encoder.request(conversation)
    encoder.last_checks(conversation)
    _no_input(encoder, conversation)
    return _problems(conversation, encoder) + skipped(encoder)


def _problems(conversation: Conversation, encoder: _Encoder) -> list[Problem]:
    """Pairing problems and the encoder's, by message (the request's own first)."""
    pairing = encoder.pairing
    if pairing is None:
        problems = pairing_problems(conversation.messages, encoder.options)
    else:  # paired in the encoder's walk
        problems = pairing.finish()
    problems = answered_items(conversation.messages, problems)
    extras = extras_of(conversation, NAME) if conversation.extras else {}
    if any(extras.get(key) is not None for key in STORED_INPUT_KEYS):
        # API reference, "previous_response_id" / "conversation": the earlier items
        # (the calls these outputs answer) are the stored response's or conversation's
        problems = [problem for problem in problems if problem.keyword != "orphan_tool_result"]
    return sorted(problems + encoder.problems, key=_message_order)


def _no_input(encoder: _Encoder, conversation: Conversation) -> None:
    """Note a request without input items that names no stored input or prompt.

    Messages that give no item (an assistant message without content or calls) count
    as none; what the unsupported policy drops is the format's rule for empty messages.
    """
    if encoder.items or (conversed(conversation) and encoder.options.unsupported != "error"):
        return
    extras = extras_of(conversation, NAME) if conversation.extras else {}
    # API reference, Create a model response: the input comes from `input`, a stored
    # response or conversation, or a `prompt` template
    if extras.get(NO_INPUT) is True or extras.get("prompt") is not None:
        return
    if any(extras.get(key) is not None for key in STORED_INPUT_KEYS):
        return
    no_messages(encoder, None, "input item (or a previous_response_id, conversation or prompt)")


def _message_order(problem: Problem) -> int:
    """The sort key of a problem: its message index, -1 for the request's own fields."""
    index = message_index(problem)
    return -1 if index is None else index


# =============================================================================== the encoder


class _Encoder(EncodePass):
    """One encode (or check) pass over a conversation: the input items it writes."""

    def __init__(self, options: Options, *, collect: bool) -> None:
        super().__init__(options, collect=collect)
        self.items: list[dict[str, Any]] = []
        self.target: str | None = None  # the request's model (the replay policy's)
        # (position, origin) of every item the general path wrote: the items that
        # may carry an id or be reasoning, which rules.structure looks at
        self.origins: list[tuple[int, _Origin]] = []
        self.images = 0
        self.image_bytes = 0
        # the code_interpreter_call item just written, which its result block completes
        self.code_item: dict[str, Any] | None = None
        native = options.native_tools
        # the fast path writes what the general path would, for the common shapes
        self.fast = _FAST and native and options.content_format != "parts"
        # check pairs tool calls with their outputs in the encoder's own walk
        self.pairing = (
            ToolPairing(
                adjacent=False,
                provider=NAME,
                include_invalid=True,
                requirement=REQUIREMENT,
                trailing=options.request,
            )
            if _FAST and native and collect
            else None
        )

    def emit(self, item: dict[str, Any], origin: _Origin) -> None:
        """Append an input item, remembering which neutral thing it came from."""
        self.origins.append((len(self.items), origin))
        self.items.append(item)

    # -------------------------------------------------------------------- request

    def request(self, conversation: Conversation) -> dict[str, Any]:
        """The whole request: instructions, input items, tools and tool choice."""
        messages = conversation.messages
        self.target = target_model(conversation)  # (the replay policy's)
        options = self.options
        instructions: list[str] = []
        start = 0
        # Leading system messages become `instructions`; one decoded from a leading
        # system *item* (kept in extras) goes back as that item.
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
        write_messages(self, messages, start)
        structure(self)

        payload: dict[str, Any] = {}
        settings = (
            encode_settings(self, conversation)
            if conversation.settings is not None or conversation.extras
            else None
        )
        if settings and "model" in settings:
            payload["model"] = settings.pop("model")
        if instructions:
            payload["instructions"] = "\n".join(instructions)
        if self.items or extras_of(conversation, NAME).get(NO_INPUT) is not True:
            payload["input"] = self.input_value(messages, start)  # (optional: as it came)
        sent = self.tools(tools)
        if sent is not None and options.native_tools:
            payload["tools"] = [encode_tool(tool) for tool in sent]
        choice = conversation.tool_choice
        choosing = options.native_tools and bool(sent or not tools)
        if choice is not None and choosing:
            # a tool choice goes only with tools, or where none were given
            wire, parallel = encode_tool_choice(choice)
            # "auto" is the API's default: with `parallel`, the flag alone says it
            # (the common request shape, and what decoding reads it as), unless the
            # decoded request wrote both (EXPLICIT_AUTO).
            explicit = extras_of(conversation, NAME).get(EXPLICIT_AUTO) is True
            if wire != "auto" or parallel is None or explicit:
                payload["tool_choice"] = wire
            if parallel is not None:
                payload["parallel_tool_calls"] = parallel
        if settings is not None:
            payload.update(settings)
            encode_extras(
                payload, conversation, choice=choosing and choice is None, choosing=choosing
            )
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
        """A leading system message as instruction text (``instructions`` is a string)."""
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
        """A user message: one input message, split around client items it holds."""
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
                    self.emit(copy_json(block.value), (index, "content", position))
                else:
                    segment.append((position, block))
            if segment:
                self.input_message("user", segment, index, _item_fields(message))
            return
        order = extras_of(message, NAME).get(KEY_ORDER)
        self.input_message("user", content, index, _item_fields(message), order)

    def system(self, message: SystemMessage, index: int) -> None:
        """A later system message: a ``system`` (or ``developer``) input message."""
        extras = extras_of(message, NAME)
        role = extras.get("role")
        if role not in ("system", "developer"):
            role = self.options.system_role
        order = extras.get(KEY_ORDER)
        self.input_message(role, message.content, index, _item_fields(message), order)

    def input_message(
        self,
        role: str,
        content: str | Sequence[ContentBlock] | list[tuple[int, ContentBlock]],
        index: int,
        fields: Mapping[str, Any],
        order: Any = None,
    ) -> None:
        """An input message item of ``role``, unless drops left it empty.

        ``order``: the item's key order as it came (kept on decode).
        """
        dropped = self.dropped
        item: dict[str, Any] = {"role": role, "content": self.content(content, index, tool=False)}
        if self.dropped > dropped and not item["content"]:
            return  # drops left it empty: not sent (the API rejects empty content)
        item.update(fields)
        self.emit(ordered(item, order), (index,))

    def tool(self, message: ToolMessage, index: int) -> None:
        """A tool result: a ``function_call_output`` item (text without native tools)."""
        if not self.options.native_tools:
            text = self.content(message.content, index, tool=True, force_string=True)
            assert isinstance(text, str)
            self.emit({"role": "user", "content": tool_result_as_text(message, text)}, (index,))
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
        self.emit(ordered(item, extras_of(message, NAME).get(KEY_ORDER)), (index,))

    # ------------------------------------------------------------------ input parts

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
                if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
                    alt = resource_as(block)
                    if isinstance(alt, TextBlock):
                        texts.append(alt.text)
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
        """One input part (``input_text`` / ``input_image`` / ``input_file``), or None."""
        part: dict[str, Any]
        if isinstance(block, TextBlock):
            extras = block.extras
            if self.fast and block.cache_control is None and not (extras and extras.get(NAME)):
                return {"type": "input_text", "text": block.text}  # a plain text block
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
            elif not tool and extras_of(block, NAME).get(NO_DETAIL) is not True:
                # SDK ResponseInputImageParam: `detail` is required in message content
                # (optional in a function_call_output); the API applies "auto" to an
                # image that left it out, which goes back without it (NO_DETAIL).
                part["detail"] = "auto"
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
            return copy_json(block.value)
        elif isinstance(block, (ResourceBlock, ResourceLinkBlock)):
            # API reference: message content and function_call_output take input_text,
            # input_image and input_file parts; a resource goes as the one it maps to
            alt = resource_as(block)
            if alt is None:
                return self.placeholder(_what(block, "in input content"), index, position)
            return self.part(alt, index, position, tool=tool)
        else:
            return self.placeholder(_what(block, "in input content"), index, position)
        if block.cache_control is not None and self.options.prompt_cache:
            # Prompt caching: the ttl is a minimum lifetime, rounded up to one the
            # API takes, as in Chat Completions (one wire object, one rule).
            part["prompt_cache_breakpoint"] = cache_breakpoint(block.cache_control)
        rest = extras_of(block, NAME).get("part")
        if isinstance(rest, dict):
            part.update(rest)
        return part

    def placeholder(self, what: str, index: int, position: int) -> dict[str, Any] | None:
        """The policy's placeholder for unsupported content, as an ``input_text`` part."""
        text = self.unsupported(what, index, position)
        return None if text is None else {"type": "input_text", "text": text}

    def count_image(self, size: int, index: int, position: int) -> None:
        """Count images (size -1) and inline image characters against the known limits."""
        if size < 0:
            self.images += 1
            if self.images == MAX_IMAGES + 1:
                self.problem(
                    pointer(index, "content", position),
                    "too_many_images",
                    f"more than {MAX_IMAGES} images in one request",
                )
            return
        before = self.image_bytes
        self.image_bytes += size * 3 // 4
        if before <= MAX_INLINE_IMAGE_BYTES < self.image_bytes:
            self.problem(
                pointer(index, "content", position),
                "payload_too_large",
                f"more than {MAX_INLINE_IMAGE_BYTES // (1024 * 1024)} MB of inline image "
                "data in one request (use file ids or URLs)",
            )

    # ------------------------------------------------------------------ assistant

    def assistant(self, message: AssistantMessage, index: int) -> None:
        """An assistant message: its output items, calls at their ``index``."""
        content = message.content
        if content == "" and not message.tool_calls and not message.invalid_tool_calls:
            self.emit({"role": "assistant", "content": ""}, (index,))
            return
        group: dict[str, Any] | None = None  # the assistant message item being filled
        self.code_item = None
        for kind, position, entry in merged(
            content_blocks(content), message.tool_calls, message.invalid_tool_calls
        ):
            where = (index, "content" if kind == "block" else kind, position)
            if kind == "block" and isinstance(entry, (TextBlock, RefusalBlock)):
                group = self.output_part(entry, group, index, position, where)
                self.code_item = None
                continue
            group = None
            code_item, self.code_item = self.code_item, None
            if (
                code_item is not None
                and isinstance(entry, ServerToolResultBlock)
                and entry.tool_call_id == code_item["id"]
                and entry.provider == NAME
            ):
                # the result of the code_interpreter_call before it: that item's outputs
                code_item["outputs"] = copy_json(entry.output)
                continue
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
                out.append(copy_json(annotation.value))
                continue
            fields = citation_fields(annotation)
            if fields is not None:
                # the key order the API writes (prompt caches see the exact bytes)
                out.append(
                    {
                        "type": "url_citation",
                        "start_index": fields["start_index"],
                        "end_index": fields["end_index"],
                        "title": fields["title"],
                        "url": fields["url"],
                    }
                )
            else:
                missing = [name for name in CITATION_FIELDS if getattr(annotation, name) is None]
                self.unsupported(f"citation without {', '.join(missing)}", index, position)
        return out

    def output_part(
        self,
        block: TextBlock | RefusalBlock,
        group: dict[str, Any] | None,
        index: int,
        position: int,
        where: _Origin,
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
            self.emit(ordered(item, extras.get(KEY_ORDER)), where)
            return None
        part: dict[str, Any]
        rest = extras.get("part")
        if isinstance(block, TextBlock):
            # the API's order: type, annotations, logprobs ..., text
            part = {
                "type": "output_text",
                "annotations": self.annotations(block.annotations, index, position),
            }
            if isinstance(rest, dict):
                part.update(rest)
            part["text"] = block.text
        else:
            part = {"type": "refusal", "refusal": block.text}
            if isinstance(rest, dict):
                part.update(rest)
        part = ordered(part, extras.get(PART_ORDER))
        # Consecutive blocks of one item id are the parts of one message item.
        order = extras.get(KEY_ORDER)
        if group is not None and group["id"] == block.id and header is None and order is None:
            group["content"].append(part)
            return group
        item = message_item(block.id, part, header, order)
        self.emit(item, where)
        return item

    def output_block(self, block: ContentBlock, index: int, position: int, where: _Origin) -> None:
        """Any other block of an assistant turn: reasoning, web search, a kept item."""
        options = self.options
        if isinstance(block, ReasoningBlock):
            # Reasoning guide: only this API's own reasoning items (with their id)
            # can be passed back; another provider's reasoning cannot be verified.
            if (
                options.replays(block.provider)
                and block.id is not None
                and not (
                    block.encrypted_content is not None
                    and held_back(self, block, self.target, index, position)
                )
            ):
                self.emit(reasoning_item(block), where)
            elif options.reasoning == "text":
                text = block.text if block.text is not None else "\n".join(block.summary or [])
                if text:
                    self.emit({"role": "assistant", "content": text}, where)
            return
        if isinstance(block, ServerToolCallBlock):
            item = web_search_item(block)
            if item is None:
                item = self.code_item = code_interpreter_item(block)
            if item is not None:
                self.emit(item, where)
                return
        if isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("kind") == "item":
            self.emit(copy_json(block.value), where)
            return
        if isinstance(block, CompactionBlock):
            self.compaction(block, index, position, where)
            return
        placeholder = self.unsupported(_what(block, "in an assistant turn"), index, position)
        if placeholder is not None:
            self.emit({"role": "assistant", "content": placeholder}, where)

    def compaction(self, block: CompactionBlock, index: int, position: int, where: _Origin) -> None:
        """This API's compaction item as it came; another's as text or by the policy."""
        if block.provider == NAME and block.encrypted_content is not None:
            if not held_back(self, block, self.target, index, position):
                self.emit(compaction_item(block), where)
                return
            why = "compaction item of another model (replay policy)"
        else:
            why = f"compaction block from {block.provider or 'another provider'}"
        text = compaction_text(self, block, index, position, why)
        if text is not None:
            self.emit({"role": "assistant", "content": text}, where)

    def call(self, call: ToolCall, where: _Origin) -> None:
        """A tool call: a ``function_call`` item (text without native tools)."""
        if not self.options.native_tools:
            self.emit({"role": "assistant", "content": tool_call_as_text(call)}, where)
            return
        extras = extras_of(call, NAME)
        arguments = arguments_text(call, NAME)
        self.emit(function_call_item(call.id, call.name, arguments, extras), where)

    def invalid_call(
        self, call: InvalidToolCall, index: int, position: int, where: _Origin
    ) -> None:
        """An invalid tool call: sent back verbatim as the ``function_call`` it was."""
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
        extras = extras_of(call, NAME)
        self.emit(function_call_item(call.id, call.name, arguments, extras), where)


def _is_item_block(block: ContentBlock) -> bool:
    """Whether a block is a whole input item kept as non_standard (``kind: item``)."""
    return isinstance(block, NonStandardBlock) and extras_of(block, NAME).get("kind") == "item"


def _item_fields(message: Message) -> dict[str, Any]:
    """The item fields a decoded message kept (``id``, ``status`` ...), copied."""
    fields = extras_of(message, NAME).get("item")
    return dict(fields) if isinstance(fields, dict) else {}


def _what(block: ContentBlock, where: str) -> str:
    """How the unsupported-content policy names a block."""
    if isinstance(block, NonStandardBlock):
        return f"{non_standard_what(block)} {where}"
    return f"{block.type} block {where}"
