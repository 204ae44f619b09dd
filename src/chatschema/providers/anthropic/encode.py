"""Encoding the neutral model as a Messages API request, and checking it.

``check`` is the encoder in collect mode: one walk writes the request and notes
every problem (:class:`~chatschema.providers._common.EncodePass`); ``encode``
(with ``check=True``, the default) raises with all of them. The limits and cache
markers are counted where the encoder writes them, so what is checked is what is
sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chatschema_models.content import (
    AudioBlock,
    CacheControl,
    CompactionBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    ResourceBlock,
    ResourceLinkBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    VideoBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
)
from chatschema_models.tool import ToolCall
from typing_extensions import Unpack

from chatschema.errors import Problem
from chatschema.providers._common import (
    EncodeOptions,
    EncodePass,
    Options,
    application_tools,
    content_blocks,
    conversed,
    extras_of,
    foreign_tool_problems,
    guarded,
    inline_data,
    invalid_call_what,
    is_foreign_tool,
    joined_text,
    no_messages,
    non_standard_what,
    pointer,
    raise_problems,
    to_conversation,
    tool_call_as_text,
    tool_result_as_text,
    tools_as_text,
)
from chatschema.providers._common.options import report_dropped_settings
from chatschema.providers._common.replay import (
    held_back,
    report_skipped,
    skipped,
    target_model,
)
from chatschema.providers._common.resources import resource_as
from chatschema.providers.anthropic.compaction import encode_compaction
from chatschema.providers.anthropic.fast import fast_turns
from chatschema.providers.anthropic.request import (
    Turns,
    as_system,
    blank,
    cache_wire,
    citation_wire,
    empty_turn,
    grouped_turns,
    interleave,
    keeps_string,
    leading_system,
    tool_ids,
)
from chatschema.providers.anthropic.rules import pairing_problems, totals
from chatschema.providers.anthropic.settings import tool_choice_wire, write
from chatschema.providers.anthropic.wire import (
    BLOCK_TYPES,
    CACHE_TTLS,
    IMAGE_MEDIA_TYPES,
    MAX_IMAGE_BASE64_BYTES,
    MAX_IMAGES,
    NAME,
    SERVER_TOOLS,
)

# ================================================================= public verbs


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """Encode a conversation as the message part of a Messages API request.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`~chatschema.providers._common.EncodeOptions`;
            ``system_role`` and ``reasoning_content`` do not apply here.

    Returns:
        ``{"system"?, "messages", "tools"?, "tool_choice"?}`` with the settings in
        the API's keys (``model``, ``max_tokens``, ``extra_body`` for sampling,
        ``stop_sequences``, ``thinking``, ``output_config``: only those set) and
        the conversation's ``extras["anthropic"]`` request keys, ready for
        ``client.messages.create(model=..., max_tokens=..., **payload)`` (no
        ``model`` or ``max_tokens`` unless the settings give them).

    Raises:
        ConversionError: with every structural problem :func:`check` finds.
        UnsupportedContentError: for content Anthropic cannot take under
            ``unsupported="error"``, or a setting it has no key for under
            ``unsupported_settings="error"``.
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved = Options.resolve(NAME, options)
    # With check on, the one pass collects every problem (unsupported content included)
    encoder = _Encoder(to_conversation(messages), resolved, collect=resolved.check)
    payload = encoder.run()
    encoder.last_checks(encoder.conversation)
    # Messages API reference, `messages`: at least one message (system is apart)
    no_messages(encoder, conversed(encoder.conversation), "user or assistant message")
    raise_problems(encoder.problems, NAME)
    report_dropped_settings(encoder.dropped_settings, NAME)
    report_skipped(encoder, NAME)
    return payload


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every structural problem that would make the Messages API refuse the request.

    Tool calls not answered in the next user turn, orphan or repeated results,
    content Anthropic cannot take (images without vision, other formats' hosted
    tools, settings it has no key for ...) under ``unsupported="error"``, thinking
    that does not come first in its message with thinking enabled, images over 5 MB of
    base64 or of a media type the API does not take, more than 100 images, more
    than 4 cache breakpoints or a cache ttl other than ``5m``/``1h``, more than
    32 MB of inline data, messages that would be empty, and a named tool choice
    that names no tool.

    Raises:
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved = Options.resolve(NAME, options)
    encoder = _Encoder(to_conversation(messages), resolved, collect=True)
    encoder.run()
    encoder.last_checks(encoder.conversation)
    # Messages API reference, `messages`: at least one message (system is apart)
    no_messages(encoder, conversed(encoder.conversation), "user or assistant message")
    return encoder.problems + skipped(encoder)


# ====================================================================== encoder

FAST = True
"""Whether the default options take :func:`~.fast.fast_turns` (tests turn it off
to compare it with the general walk)."""


class _Encoder(EncodePass):
    """Neutral conversation to the request's message part, in one pass.

    In collect mode it also counts what the limits apply to (images, inline
    bytes, cache breakpoints) where it writes them, and runs the rules that only
    check (:func:`~.rules.pairing_problems`, :func:`~.rules.totals`).
    """

    def __init__(self, conversation: Conversation, options: Options, *, collect: bool) -> None:
        super().__init__(options, collect=collect)
        self.conversation = conversation
        self.target = target_model(conversation)  # (the replay policy's)
        self.parts = options.content_format == "parts"
        self.string = options.content_format == "string"
        self.start({})

    def start(self, ids: dict[str, str]) -> None:
        """Begin a walk (again): nothing noted, counted or dropped; ``ids``: wire ids."""
        self.ids = ids
        self.problems = []
        self.dropped = 0
        self.images = 0  # images sent so far
        self.inline = 0  # base64 characters sent so far
        self.breakpoints: list[str] = []  # where each cache marker sent is
        self.empty: list[tuple[int, str, list[int]]] = []  # turns written without content
        self.turn_count = 0  # turns written
        self.paired = True  # whether the fast walk found every call answered
        # thinking blocks written, with where they come from: (wire block, index, position)
        self.thinking: list[tuple[dict[str, Any], int, int]] = []

    def run(self) -> dict[str, Any]:
        """The request (``problems`` holds what collect mode found)."""
        messages = self.conversation.messages
        count = leading_system(messages)
        native = self.options.native_tools
        if FAST and native and self.options.content_format == "auto":
            payload = self.request(count, None)
            if payload is not None:
                return payload
            # a tool-use id the API would refuse: written again, under wire ids
        self.start(tool_ids(messages) if native else {})
        payload = self.request(count, grouped_turns(messages, count))
        assert payload is not None
        return payload

    def request(self, count: int, turns: Turns | None) -> dict[str, Any] | None:
        """The request, from the ``turns`` grouped (None: grouped while written).

        None when the fast walk (:func:`~.fast.fast_turns`) met a tool-use id that needs
        a wire id.
        """
        conversation = self.conversation
        messages = conversation.messages
        native = self.options.native_tools
        if self.collect and native:
            self.problems.extend(foreign_tool_problems(conversation.tools, self.options))
            if turns is not None:
                self.problems.extend(
                    pairing_problems(messages, turns, trailing=self.options.request)
                )
        mark = len(self.problems)  # where the pairing problems go after a fast walk
        # tools first: their cache markers come first in the API's count
        tools = self.tools() if native and conversation.tools else []
        payload: dict[str, Any] = {}
        system = self.system(count)
        if system is not None:
            payload["system"] = system
        if turns is None:
            wire = fast_turns(self, count)
            if wire is None:
                return None
            if self.collect and not self.paired:  # the rule in full, for its problems
                self.problems[mark:mark] = pairing_problems(
                    messages, grouped_turns(messages, count), trailing=self.options.request
                )
            payload["messages"] = wire
        else:
            payload["messages"] = self.turns(count, turns)
        if native:
            if tools or conversation.tools == []:  # an empty list goes back as it came
                payload["tools"] = tools
            if conversation.tool_choice is not None and (tools or not conversation.tools):
                # a tool choice goes only with tools, or where none were given
                payload["tool_choice"] = tool_choice_wire(self, conversation.tool_choice)
        write(self, payload)  # the settings and the Anthropic extras, once per request
        if self.collect:
            totals(self, payload["messages"])
        return payload

    # ------------------------------------------------------------------ helpers

    def finish(
        self,
        wire: dict[str, Any],
        model: Any,
        marker: CacheControl | None = None,
        at: tuple[str | int, ...] = (),
    ) -> dict[str, Any]:
        """Add the cache marker and the model's Anthropic extras to a wire dict.

        ``at``: where the model is, for the cache markers counted: pointer parts
        after ``/messages`` (``(index, "content", position)``), or ``("/tools", k)``.
        """
        cache = self.options.prompt_cache
        if marker is not None and cache:
            wire["cache_control"] = cache_wire(marker)
            if self.collect:
                self.breakpoint(marker, *at, "cache_control")
        if model.extras:
            for key, value in extras_of(model, NAME).items():
                if key not in wire and (cache or key != "cache_control"):
                    wire[key] = value
                    if key == "cache_control" and self.collect:
                        self.breakpoint(value, *at, "extras", NAME, "cache_control")
        return wire

    def breakpoint(self, value: Any, *at: str | int) -> None:
        """Count a cache marker sent; Messages API, "Prompt caching": ttl 5m or 1h."""
        if value is None:
            return
        where = ("/messages/" if isinstance(at[0], int) else "") + "/".join(map(str, at))
        self.breakpoints.append(where)
        ttl = (
            value.ttl
            if isinstance(value, CacheControl)
            else (value.get("ttl") if isinstance(value, dict) else None)
        )
        if ttl is not None and not (isinstance(ttl, str) and ttl in CACHE_TTLS):
            self.problem(where, "cache_ttl", f"cache ttl {ttl!r}: Anthropic takes '5m' or '1h'")

    def refuse(self, what: str, index: int, position: int | None) -> dict[str, Any] | None:
        """The unsupported-content policy for a block: a placeholder text block, or None."""
        text = self.unsupported(what, index, position)
        return None if text is None else {"type": "text", "text": text}

    # ----------------------------------------------------------------- system

    def system(self, count: int) -> str | list[dict[str, Any]] | None:
        """The top-level ``system`` from the first ``count`` messages (None if empty).

        One system message whose content is empty (``""`` or ``[]``) is sent as it is:
        the API takes ``"system": ""`` and ``"system": []`` (recorded), and a request
        that had them gets them back. Blocks the unsupported policy dropped, blank
        text blocks and whitespace-only strings are left out.
        """
        messages = self.conversation.messages
        tools = application_tools(self.conversation.tools)
        if count == 1 and not (tools and not self.options.native_tools):
            content = as_system(messages[0]).content
            if content == "" and not self.parts:
                return ""
            if isinstance(content, list) and not content and not self.string:
                return []
        parts = [self.system_content(as_system(messages[index]), index) for index in range(count)]
        system: str | list[dict[str, Any]] | None
        if len(parts) == 1:
            system = parts[0]
        elif self.string:
            system = "\n".join(part for part in parts if isinstance(part, str))
        else:
            system = []
            for part in parts:
                if isinstance(part, str):
                    if not blank(part):
                        system.append({"type": "text", "text": part})
                else:
                    system.extend(part)
        if tools and not self.options.native_tools:
            text = tools_as_text(tools)
            if isinstance(system, list) and system:
                system.append({"type": "text", "text": text})
            elif isinstance(system, str) and not blank(system):
                system = f"{system}\n\n{text}"
            else:
                system = text
        if not system or (isinstance(system, str) and blank(system)):
            return None  # an empty system prompt is left out
        return system

    def system_content(self, message: SystemMessage, index: int) -> str | list[dict[str, Any]]:
        """A system message's content: text (and Anthropic's own blocks) only."""
        content = message.content
        if isinstance(content, str) and not self.parts:
            return content
        blocks: list[dict[str, Any]] = []
        for position, block in enumerate(content_blocks(content)):
            if isinstance(block, TextBlock):
                wire = self.text(block, index, position)
            elif isinstance(block, NonStandardBlock):
                wire = self.non_standard(block, index, position)
            else:
                wire = self.refuse(f"{block.type} block in a system message", index, position)
            if wire is not None:
                blocks.append(wire)
        if self.string:
            return "\n".join(block["text"] for block in blocks)
        return blocks

    # ------------------------------------------------------------------ turns

    def turns(self, count: int, grouped: Turns) -> list[dict[str, Any]]:
        """The wire messages of the ``grouped`` turns, without those drops left empty.

        The API rejects empty content, so such a turn is not sent; the turns
        around it are regrouped, so that neighbours of one role merge again.
        """
        out: list[dict[str, Any]] = []
        skipped: set[int] = set()
        for number, (role, indexes) in enumerate(grouped):
            before = self.dropped
            wire = self.turn(role, indexes)
            if empty_turn(wire):
                if self.dropped > before:
                    skipped.update(indexes)
                elif self.collect:
                    self.empty.append((number, role, indexes))  # for the empty_content rule
            out.append(wire)
        self.turn_count = len(grouped)
        return self.regrouped(count, skipped) if skipped else out

    def regrouped(self, count: int, skipped: set[int]) -> list[dict[str, Any]]:
        """The turns written again without the ``skipped`` messages, neighbours merged."""
        messages = self.conversation.messages
        # the first pass already noted every problem and count
        collect, self.collect = self.collect, False
        out = [
            self.turn(role, indexes) for role, indexes in grouped_turns(messages, count, skipped)
        ]
        self.collect = collect
        return out

    def message_blocks(
        self, message: Message, index: int, first: list[dict[str, Any]], rest: list[dict[str, Any]]
    ) -> None:
        """Write a message of a user or assistant turn: tool results to ``first``."""
        if isinstance(message, ToolMessage):
            # Messages API, "Tool use": tool_result blocks come first in the user turn
            first.extend(self.tool_result(message, index))
        elif isinstance(message, AssistantMessage):
            rest.extend(self.assistant(message, index))
        else:
            rest.extend(self.user_blocks(message.content, index))

    def turn(self, role: str, indexes: list[int]) -> dict[str, Any]:
        """One wire message from the neutral messages at ``indexes``."""
        messages = self.conversation.messages
        if role == "system":
            index = indexes[0]
            content = self.system_content(as_system(messages[index]), index)
            return {"role": "system", "content": content}
        first: list[dict[str, Any]] = []  # tool results, first in a user turn
        rest: list[dict[str, Any]] = []
        only = messages[indexes[0]]
        if len(indexes) == 1 and not self.parts and keeps_string(only):
            return {"role": role, "content": only.content}
        for index in indexes:
            self.message_blocks(messages[index], index, first, rest)
        blocks = first + rest
        if not self.string:
            return {"role": role, "content": blocks}
        texts = [block["text"] for block in blocks if block["type"] == "text"]
        others = [block for block in blocks if block["type"] != "text"]
        text = "\n".join(texts)
        if not others:
            return {"role": role, "content": text}
        text_block = [{"type": "text", "text": text}] if not blank(text) else []
        # the results stay first in a user turn; the calls follow the text they led to
        content = others + text_block if role == "user" else text_block + others
        return {"role": role, "content": content}

    # -------------------------------------------------------------- user side

    def user_blocks(
        self, content: str | Sequence[ContentBlock], index: int, *, text: bool = True
    ) -> list[dict[str, Any]]:
        """User content as wire blocks; ``text=False`` leaves text blocks out."""
        if isinstance(content, str):
            return [] if not text or blank(content) else [{"type": "text", "text": content}]
        out: list[dict[str, Any]] = []
        for position, block in enumerate(content):
            if not text and isinstance(block, TextBlock):
                continue
            wire = self.user_block(block, index, position)
            if wire is not None:
                out.append(wire)
        return out

    def user_block(self, block: ContentBlock, index: int, position: int) -> dict[str, Any] | None:
        """One block of user content or of a tool result."""
        if isinstance(block, TextBlock):
            return self.text(block, index, position)
        if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
            # Messages API reference: user and tool_result content take text, image
            # and document blocks; a text resource is a plain-text document titled by URI
            alt = resource_as(block, text="text" if self.string else "document")
            if alt is not None:
                return self.user_block(alt, index, position)
        if self.string:
            return self.refuse(f"{block.type} block in string content", index, position)
        if isinstance(block, ImageBlock):
            return self.image(block, index, position)
        if isinstance(block, (FileBlock, PlainTextBlock)):
            return self.document(block, index, position)
        if isinstance(block, NonStandardBlock):
            return self.non_standard(block, index, position)
        what = (
            "audio"
            if isinstance(block, AudioBlock)
            else "video"
            if isinstance(block, VideoBlock)
            else f"{block.type} block in user content"
        )
        return self.refuse(what, index, position)

    def text(
        self, block: TextBlock | RefusalBlock, index: int, position: int
    ) -> dict[str, Any] | None:
        """A text block with its Anthropic citations (a refusal is sent as text)."""
        if blank(block.text) and (
            not block.extras or extras_of(block, NAME).get("text") != block.text
        ):
            # Messages API: "text content blocks must be non-empty" / "must contain
            # non-whitespace text"; a blank block a request had goes back (its text kept
            # in extras: the API took one before a tool_use, recorded)
            return None
        wire: dict[str, Any] = {"type": "text", "text": block.text}
        if self.string:
            return wire  # joined into a string: no citations, no cache marker
        if isinstance(block, TextBlock) and block.annotations is not None:
            citations = [
                citation
                for citation in map(citation_wire, block.annotations)
                if citation is not None
            ]
            if citations or not block.annotations:
                wire["citations"] = citations
        return self.finish(wire, block, block.cache_control, (index, "content", position))

    def image(self, block: ImageBlock, index: int, position: int) -> dict[str, Any] | None:
        """An image block, within the API's image limits (Messages API, "Vision")."""
        if not self.options.vision:
            return self.refuse("image (vision is off)", index, position)
        inline = inline_data(block)
        if self.collect:
            self.image_limits(inline, index, position)
        source: dict[str, Any]
        if inline is not None:
            source = {"type": "base64", "media_type": inline[0], "data": inline[1]}
        elif block.url is not None:
            source = {"type": "url", "url": block.url}
        else:
            source = {"type": "file", "file_id": block.file_id}
        wire = {"type": "image", "source": source}
        return self.finish(wire, block, block.cache_control, (index, "content", position))

    def image_limits(self, inline: tuple[str, str] | None, index: int, position: int) -> None:
        """Messages API, "Vision": 100 images, 5 MB of base64 each, four media types."""
        self.images += 1
        if self.images == MAX_IMAGES + 1:
            self.problem(
                pointer(index, "content", position),
                "too_many_images",
                f"more than {MAX_IMAGES} images in a request",
            )
        if inline is None:
            return
        mime, data = inline
        self.inline += len(data)
        if mime not in IMAGE_MEDIA_TYPES:
            self.problem(
                pointer(index, "content", position),
                "image_media_type",
                f"image type {mime!r}: Anthropic takes {sorted(IMAGE_MEDIA_TYPES)}",
            )
        if len(data) > MAX_IMAGE_BASE64_BYTES:
            self.problem(
                pointer(index, "content", position),
                "image_too_large",
                f"image exceeds 5 MB: {len(data)} base64 bytes > {MAX_IMAGE_BASE64_BYTES}",
            )

    def document(
        self, block: FileBlock | PlainTextBlock, index: int, position: int
    ) -> dict[str, Any] | None:
        """A ``document`` block: plain text (by value or file id), or a PDF."""
        at = (index, "content", position)
        wire: dict[str, Any] = {"type": "document"}
        if isinstance(block, PlainTextBlock):
            if block.text is not None:
                wire["source"] = {"type": "text", "media_type": "text/plain", "data": block.text}
            elif block.file_id is not None:
                wire["source"] = {"type": "file", "file_id": block.file_id}
            else:
                return self.refuse("plain-text document by URL or base64", index, position)
            if block.title is not None:
                wire["title"] = block.title
            if block.context is not None:
                wire["context"] = block.context
            return self.finish(wire, block, block.cache_control, at)
        # Messages API, "PDF support": documents other than plain text are PDFs
        inline = inline_data(block)
        if inline is not None:
            if inline[0] != "application/pdf":
                return self.refuse(f"file of type {inline[0]}", index, position)
            wire["source"] = {"type": "base64", "media_type": "application/pdf", "data": inline[1]}
            if self.collect:
                self.inline += len(inline[1])
        elif block.url is not None:
            if block.mime_type not in (None, "application/pdf"):
                return self.refuse(f"file of type {block.mime_type}", index, position)
            wire["source"] = {"type": "url", "url": block.url}
        else:
            wire["source"] = {"type": "file", "file_id": block.file_id}
        if block.filename is not None:
            wire["title"] = block.filename
        return self.finish(wire, block, block.cache_control, at)

    def non_standard(
        self, block: NonStandardBlock, index: int, position: int
    ) -> dict[str, Any] | None:
        """An Anthropic block the neutral model has no type for, sent as it came."""
        kind = block.value.get("type")
        ours = isinstance(kind, str) and (kind in BLOCK_TYPES or NAME in (block.extras or {}))
        if self.string or not ours:
            return self.refuse(non_standard_what(block), index, position)
        wire = dict(block.value)
        if not self.options.prompt_cache:
            wire.pop("cache_control", None)
        elif block.cache_control is not None:
            wire["cache_control"] = cache_wire(block.cache_control)
            if self.collect:
                self.breakpoint(block.cache_control, index, "content", position, "cache_control")
        elif self.collect:
            marker = wire.get("cache_control")
            self.breakpoint(marker, index, "content", position, "value", "cache_control")
        return wire

    def tool_result(self, message: ToolMessage, index: int) -> list[dict[str, Any]]:
        """A tool message: a ``tool_result`` block (text and its other blocks without tools)."""
        if not self.options.native_tools:
            content = message.content
            text = tool_result_as_text(message, joined_text(content))
            return [{"type": "text", "text": text}, *self.user_blocks(content, index, text=False)]
        extras = extras_of(message, NAME)
        wire: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": self.ids.get(message.tool_call_id, message.tool_call_id),
        }
        content = message.content
        if isinstance(content, str):
            if content and self.parts:
                wire["content"] = [{"type": "text", "text": content}]
            elif content:
                wire["content"] = content
        else:
            dropped = self.dropped
            blocks = self.user_blocks(content, index)
            if self.string:
                text = "\n".join(block["text"] for block in blocks)
                if text:
                    wire["content"] = text
            elif blocks or self.dropped == dropped:  # (emptied by drops: no content)
                wire["content"] = blocks
        if message.status == "error":
            wire["is_error"] = True
        elif "is_error" in extras and extras["is_error"] is not True:
            wire["is_error"] = extras["is_error"]  # false or null, as the request had it
        cache = self.options.prompt_cache
        for key, value in extras.items():
            if (
                key not in wire
                and key not in ("is_error", "new_message")  # read above / a turn marker
                and (cache or key != "cache_control")
            ):
                wire[key] = value
                if key == "cache_control" and self.collect:
                    self.breakpoint(value, index, "extras", NAME, "cache_control")
        return [wire]

    # --------------------------------------------------------- assistant side

    def assistant(self, message: AssistantMessage, index: int) -> list[dict[str, Any]]:
        """An assistant message: its blocks, with the tool calls back in place."""
        foreign = message.provider is not None and message.provider != NAME
        content = message.content
        blocks: list[dict[str, Any]] = []
        if isinstance(content, str) and not blank(content):  # (as a TextBlock of it)
            blocks.append({"type": "text", "text": content})
        for position, block in enumerate(content if isinstance(content, list) else ()):
            wire = self.assistant_block(block, index, position, foreign=foreign)
            if wire is not None:
                blocks.append(wire)
        calls = [
            (call.index, self.tool_call(call, index, position))
            for position, call in enumerate(message.tool_calls)
        ]
        for position, invalid in enumerate(message.invalid_tool_calls):
            # Messages API, "Tool use": tool_use takes an ``input`` object, nothing else
            where = pointer(index, "invalid_tool_calls", position)
            text = self.unsupported(invalid_call_what(invalid), index, where=where)
            if text is not None:
                calls.append((None, {"type": "text", "text": text}))
        return interleave(blocks, calls)

    def assistant_block(
        self, block: ContentBlock, index: int, position: int, *, foreign: bool = False
    ) -> dict[str, Any] | None:
        """One assistant block; ``foreign``: the message came from another format."""
        if isinstance(block, (TextBlock, RefusalBlock)):
            return self.text(block, index, position)
        if isinstance(block, ReasoningBlock):
            return self.reasoning(block, index, position)
        if isinstance(block, CompactionBlock):
            return encode_compaction(self, block, index, position)
        if self.string:
            return self.refuse(f"{block.type} block in string content", index, position)
        at = (index, "content", position)
        if isinstance(block, ServerToolCallBlock):
            # a call decoded from Anthropic goes back whatever its name; other formats'
            # server calls (or a block marked as theirs) cannot be replayed here
            ours = block.provider == NAME or NAME in (block.extras or {})
            if (
                block.id is None
                or foreign
                or block.provider not in (None, NAME)
                or not (ours or block.name in SERVER_TOOLS)
            ):
                return self.refuse(f"server tool call {block.name!r}", index, position)
            wire: dict[str, Any] = {
                "type": "server_tool_use",
                "id": block.id,
                "name": block.name,
                "input": block.arguments if block.arguments is not None else {},
            }
            return self.finish(wire, block, block.cache_control, at)
        if isinstance(block, ServerToolResultBlock):
            kind = extras_of(block, NAME).get("type")
            if not isinstance(kind, str) or block.provider not in (None, NAME):
                # the wire type of the result (any ``*_tool_result``) is Anthropic's
                return self.refuse("server tool result from another provider", index, position)
            wire = {"type": kind, "tool_use_id": block.tool_call_id}
            if "output" in block.model_fields_set:
                wire["content"] = block.output
            return self.finish(wire, block, block.cache_control, at)
        if isinstance(block, NonStandardBlock):
            return self.non_standard(block, index, position)
        return self.refuse(f"{block.type} block in an assistant message", index, position)

    def reasoning(self, block: ReasoningBlock, index: int, position: int) -> dict[str, Any] | None:
        """Thinking replayed unchanged; other reasoning as text or left out (``reasoning``)."""
        signed = block.signature is not None or block.encrypted_content is not None
        replays = self.options.replays(block.provider) and not (
            signed and held_back(self, block, self.target, index, position)
        )
        if replays and (signed or self.options.reasoning != "text"):
            if self.string:
                return self.refuse("thinking block in string content", index, position)
            wire: dict[str, Any]
            if block.signature is not None:
                wire = {
                    "type": "thinking",
                    "thinking": block.text or "",
                    "signature": block.signature,
                }
            elif block.encrypted_content is not None:
                wire = {"type": "redacted_thinking", "data": block.encrypted_content}
            else:  # Messages API, "Extended thinking": the API rejects unsigned thinking
                return self.refuse("Anthropic thinking without its signature", index, position)
            self.thinking.append((wire, index, position))  # for rules.thinking_order
            # Messages API, "Prompt caching": thinking blocks take no cache marker
            return self.finish(wire, block, None, (index, "content", position))
        # reasoning="text": other providers' reasoning, and Anthropic thinking that
        # lost its signature (the API would reject it as thinking), as plain text
        if self.options.reasoning == "text":
            text = block.text if block.text is not None else "\n".join(block.summary or ())
            if not blank(text):
                return {"type": "text", "text": text}
        return None

    def tool_call(self, call: ToolCall, index: int, position: int) -> dict[str, Any]:
        """A ``tool_use`` block (text without native tools), under its wire id."""
        if not self.options.native_tools:
            return {"type": "text", "text": tool_call_as_text(call)}
        wire = {
            "type": "tool_use",
            "id": self.ids.get(call.id, call.id),
            "name": call.name,
            "input": call.arguments,
        }
        return self.finish(wire, call, None, (index, "tool_calls", position))

    # ------------------------------------------------------------------ tools

    def tools(self) -> list[dict[str, Any]]:
        """The tool definitions; other formats' hosted tools go to the policy."""
        tools = self.conversation.tools or []
        if not self.collect:  # (collect mode noted them in run)
            raise_problems(foreign_tool_problems(tools, self.options), NAME)
        out: list[dict[str, Any]] = []
        for position, tool in enumerate(tools):
            if is_foreign_tool(tool, NAME):
                continue  # left out under "drop" and "placeholder": a tool has no text form
            extras = extras_of(tool, NAME)
            wire: dict[str, Any] = {"name": tool.name}
            if extras.get("type") in (None, "custom"):
                if tool.description is not None:
                    wire["description"] = tool.description
                wire["input_schema"] = tool.parameters
                if tool.strict is not None:
                    wire["strict"] = tool.strict
            out.append(self.finish(wire, tool, None, ("/tools", position)))
        return out
