"""Encoding the neutral model as Converse keyword arguments, and checking them.

``check`` is the encoder in collect mode: one walk writes the request and notes
every problem (:class:`~chatschema.providers._common.EncodePass`); ``encode``
(with ``check=True``, the default) raises with all of them.
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
from chatschema_models.message import AssistantMessage, Message, SystemMessage, ToolMessage
from chatschema_models.tool import InvalidToolCall, ToolCall
from typing_extensions import Unpack

from chatschema.errors import ConversionError, Problem, UnsupportedContentError
from chatschema.providers._common import (
    EncodeOptions,
    EncodePass,
    Options,
    application_tools,
    conversed,
    extras_of,
    foreign_tool_problems,
    guarded,
    inline_data,
    invalid_call_what,
    joined_text,
    message_index,
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
    compaction_what,
    held_back,
    report_skipped,
    skipped,
    summary_of,
    target_model,
)
from chatschema.providers._common.resources import resource_as
from chatschema.providers.bedrock_converse.blocks import blob_bytes
from chatschema.providers.bedrock_converse.fast import fast_turns
from chatschema.providers.bedrock_converse.request import (
    NOT_JSON,
    document_name,
    interleave,
    json_value,
    tool_config,
    write_settings,
)
from chatschema.providers.bedrock_converse.rules import blank, pairing_problems, tool_ids
from chatschema.providers.bedrock_converse.wire import (
    BLOB_TEXT,
    CACHE_POINT,
    CACHE_TTLS,
    FORMATS,
    IN_MESSAGES,
    JSON_RESULT,
    MAX_INLINE_BYTES,
    MIME_ALIASES,
    MIME_FORMATS,
    NAME,
    NEW_MESSAGE,
    S3_URI,
)

# ================================================================= public verbs


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """Encode a conversation as the keyword arguments of ``converse`` / ``converse_stream``.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`~chatschema.providers._common.EncodeOptions`;
            ``system_role`` and ``reasoning_content`` do not apply here.

    Returns:
        ``{"modelId"?, "system"?, "messages", "toolConfig"?, "inferenceConfig"?,
        "additionalModelRequestFields"?, "outputConfig"?, ...}``, ready for
        ``bedrock_runtime.converse(**payload)``. ``modelId`` is there only when
        ``settings.model`` is set; otherwise give it yourself
        (``converse(modelId=..., **payload)``), or override it with
        ``{**payload, "modelId": ...}``. Blobs are ``bytes``, as boto3 takes them,
        except those decoded from base64 text, which go back as text;
        :func:`~chatschema.providers.bedrock_converse.json_form` gives the whole
        request in the REST API's JSON form.

    Raises:
        ConversionError: with every structural problem :func:`check` finds.
        UnsupportedContentError: for content Converse cannot take under
            ``unsupported="error"``, settings under ``unsupported_settings="error"``.
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    resolved = Options.resolve(NAME, options)
    encoder = _Encoder(to_conversation(messages), resolved, collect=resolved.check)
    payload = encoder.run()
    encoder.last_checks(encoder.conversation)
    # Converse API reference: a conversation starts with a user message
    sent = "messages" not in payload or conversed(encoder.conversation)  # (a prompt resource)
    no_messages(encoder, sent, "user or assistant message")
    raise_problems(encoder.problems, NAME)
    report_dropped_settings(encoder.dropped_settings, NAME)
    report_skipped(encoder, NAME)
    return payload


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every structural problem that would make Converse refuse the request.

    Tool calls not answered in the next user turn, orphan or repeated results;
    content Converse cannot take (images other than PNG, JPEG, GIF and WebP, media
    by an URL other than ``s3://``, other formats' hosted tools or reasoning ...)
    and settings it has no key for, under ``unsupported="error"``; blank text
    blocks and empty messages; tool names outside ``[a-zA-Z0-9_-]{1,64}``; cache
    ttls other than ``5m``/``1h``; tool calls or results without tools
    (Converse wants ``toolConfig`` then).

    Raises:
        ValidationError: for input that is not a conversation.
        OptionError: for unknown options or bad values.
    """
    encoder = _Encoder(to_conversation(messages), Options.resolve(NAME, options), collect=True)
    payload = encoder.run()
    encoder.last_checks(encoder.conversation)
    # Converse API reference: a conversation starts with a user message
    sent = "messages" not in payload or conversed(encoder.conversation)  # (a prompt resource)
    no_messages(encoder, sent, "user or assistant message")
    return encoder.problems + skipped(encoder)


# ====================================================================== encoder

FAST = True
"""Whether the encoder takes :func:`~.fast.fast_turns` (tests turn it off to compare
it with the general path)."""

_EXTENSIONS = {"jpg": "jpeg", "3gp": "three_gp", "htm": "html", "markdown": "md", "text": "txt"}
"""File extensions that name a Converse format by another name."""


class _Turn:
    """A wire message being written: its role, first message, tool results and blocks."""

    __slots__ = ("blocks", "first", "index", "results", "role")

    def __init__(
        self,
        role: str,
        index: int,
        first: Message,
        results: list[dict[str, Any]],
        blocks: list[dict[str, Any]],
    ) -> None:
        self.role = role
        self.index = index
        self.first = first
        self.results = list(results)
        self.blocks = list(blocks)


class _Encoder(EncodePass):
    """Neutral conversation to Converse keyword arguments, in one pass."""

    def __init__(self, conversation: Conversation, options: Options, *, collect: bool) -> None:
        super().__init__(options, collect=collect)
        self.conversation = conversation
        self.target = target_model(conversation)  # (the replay policy's)
        self.string = options.content_format == "string"
        self.ids: dict[str, str] = {}
        self.tool_blocks = 0  # toolUse and toolResult blocks written
        self.paired = False  # whether the fast walk found every call answered

    def run(self) -> dict[str, Any]:
        """The request (``problems`` holds what collect mode found)."""
        conversation = self.conversation
        messages = conversation.messages
        native = self.options.native_tools
        if native and self.collect:
            self.problems.extend(foreign_tool_problems(conversation.tools, self.options))
        mark = len(self.problems)  # where the pairing problems go
        count = 0
        while (
            count < len(messages)
            and isinstance(messages[count], SystemMessage)
            and not extras_of(messages[count], NAME).get(IN_MESSAGES)
        ):
            count += 1
        payload: dict[str, Any] = {}
        system = self.system(count)
        if system:
            payload["system"] = system
        turns = None
        if FAST and native and not self.string:
            noted, dropped = len(self.problems), self.dropped
            turns = fast_turns(self, count)
            if turns is None:  # written again by the general path
                del self.problems[noted:]
                self.dropped, self.tool_blocks = dropped, 0
        if turns is None:
            self.paired = False
            self.ids = tool_ids(messages) if native else {}
            turns = self.turns(count)
        payload["messages"] = turns
        if native and self.collect and not self.paired:
            self.problems[mark:mark] = pairing_problems(messages, trailing=self.options.request)
        tool_config = self.tool_config()
        if tool_config is not None:
            payload["toolConfig"] = tool_config
        elif self.tool_blocks and self.collect and self.options.request:
            # API reference, Converse: toolConfig must be given when the messages
            # carry toolUse or toolResult blocks
            self.problem(
                "/tools",
                "tool_config_required",
                "the messages carry tool calls or results: Converse needs the tools too",
            )
        write_settings(self, payload)
        return payload

    # ------------------------------------------------------------------ helpers

    def setting(self, field: str, reason: str) -> None:
        """A setting Converse cannot say: ``unsupported_settings`` at ``/settings/<field>``."""
        what = f"settings.{field}: {reason} ({NAME} cannot carry it)"
        self.unsupported_setting(f"/settings/{field}", what)

    def choice(self, reason: str) -> None:
        """A tool choice Converse cannot say: the unsupported policy at ``/tool_choice``."""
        self.policy("/tool_choice", reason)

    def policy(self, where: str, what: str) -> None:
        """The unsupported policy for a request-level value ("drop"/"placeholder": left out)."""
        if self.options.unsupported != "error":
            return
        if self.collect:
            self.problems.append(
                Problem(where, "unsupported_content", f"{what} ({NAME} cannot carry it)")
            )
        else:
            raise UnsupportedContentError(
                f"{what} (options: unsupported='drop' leaves it out)", provider=NAME
            )

    def refuse(self, what: str, index: int, position: int | None) -> list[dict[str, Any]]:
        """The unsupported-content policy for a block: a placeholder text block, or nothing."""
        text = self.unsupported(what, index, position)
        return [] if text is None else [{"text": text}]

    def cached(
        self,
        wire: dict[str, Any],
        marker: CacheControl | None,
        extras: dict[str, Any],
        at: str,
    ) -> list[dict[str, Any]]:
        """A wire block and the cache point after it (its cache_control, or a kept one)."""
        if not self.options.prompt_cache:
            return [wire]
        if marker is not None:
            point: dict[str, Any] = {"type": "default"}
            if marker.ttl is not None:
                point["ttl"] = marker.ttl
                if self.collect and marker.ttl not in CACHE_TTLS:
                    # API reference, CachePointBlock: ttl 5m or 1h
                    self.problem(
                        at, "cache_ttl", f"cache ttl {marker.ttl!r}: Converse takes 5m or 1h"
                    )
            return [wire, {"cachePoint": point}]
        kept = extras.get(CACHE_POINT)
        if isinstance(kept, dict):
            return [wire, {"cachePoint": dict(kept)}]
        return [wire]

    def size_limit(self, kind: str, data: str, at: str) -> None:
        """Note inline image or document data over Converse's limit (decoded size)."""
        limit = MAX_INLINE_BYTES[kind]
        size = len(data) * 3 // 4 - data[-2:].count("=")  # (the bytes the base64 holds)
        if size > limit:
            self.problem(
                at,
                f"{kind}_too_large",
                f"{kind} of {size} bytes: Converse takes at most {limit} ({limit / 2**20:g} MB) "
                f"per {kind}",
            )

    def blob(self, data: str, extras: dict[str, Any], at: str) -> bytes | str:
        """Inline data as the blob boto3 takes (``bytes``), or as it came (base64 text)."""
        if extras.get(BLOB_TEXT):
            return data
        raw = blob_bytes(data)
        if raw is None:
            if self.collect:
                self.problem(at, "base64", "inline data that is not base64")
                return data
            raise ConversionError(f"inline data at {at} is not base64", provider=NAME)
        return raw

    # ----------------------------------------------------------------- system

    def system(self, count: int) -> list[dict[str, Any]]:
        """The top-level ``system`` blocks of the first ``count`` messages."""
        out: list[dict[str, Any]] = []
        messages = self.conversation.messages
        for index in range(count):
            message = messages[index]
            assert isinstance(message, SystemMessage)
            out.extend(self.system_blocks(message, index))
        tools = application_tools(self.conversation.tools)
        if tools and not self.options.native_tools:
            out.append({"text": tools_as_text(tools)})
        return out

    def system_blocks(self, message: SystemMessage, index: int) -> list[dict[str, Any]]:
        """A system message's content: text, guard content, cache points."""
        content = message.content
        if isinstance(content, str):
            # an empty instruction (Responses `instructions: ""`) says nothing, and
            # Converse refuses an empty text: it is left out
            return [{"text": content}] if not blank(content) else []
        out: list[dict[str, Any]] = []
        for position, block in enumerate(content):
            if isinstance(block, TextBlock):
                out.extend(self.text(block, index, position))
            elif isinstance(block, NonStandardBlock):
                out.extend(self.non_standard(block, index, position))
            else:
                out.extend(self.refuse(f"{block.type} block in a system message", index, position))
        return out

    # ------------------------------------------------------------------ turns

    def turns(self, start: int) -> list[dict[str, Any]]:
        """The wire messages; consecutive messages of one role make one turn.

        Converse: roles alternate; tool results go first in the user turn that
        follows the calls. A message that drops left empty is not sent, and its
        neighbours of one role merge.
        """
        messages = self.conversation.messages
        out: list[dict[str, Any]] = []
        turn: _Turn | None = None  # the open turn
        gap = False
        for index in range(start, len(messages)):
            message = messages[index]
            if isinstance(message, SystemMessage):
                if turn is not None:
                    out.append(self.close(turn))
                    turn = None
                wire = {"role": "system", "content": self.system_blocks(message, index)}
                self.message_extras(wire, message)
                out.append(wire)
                continue
            wire_role = "assistant" if isinstance(message, AssistantMessage) else "user"
            before = self.dropped
            results, blocks = self.message(message, index)
            if not results and not blocks and self.dropped > before:
                gap = True  # emptied by drops: not sent
                continue
            new = bool(message.extras) and extras_of(message, NAME).get(NEW_MESSAGE)
            if turn is not None and turn.role == wire_role and (gap or not new):
                turn.results.extend(results)
                turn.blocks.extend(blocks)
            else:
                if turn is not None:
                    out.append(self.close(turn))
                turn = _Turn(wire_role, index, message, results, blocks)
            gap = False
        if turn is not None:
            out.append(self.close(turn))
        return out

    def close(self, turn: _Turn) -> dict[str, Any]:
        """The wire message of a turn (its tool results first)."""
        content = turn.results + turn.blocks if turn.results else turn.blocks
        wire: dict[str, Any] = {"role": turn.role, "content": content}
        self.message_extras(wire, turn.first)
        if not content and self.collect and not self.refused_since(turn.index):
            # Converse: "The content field in the Message object ... is empty" (a
            # turn emptied by unsupported content has that problem noted already)
            self.problem(pointer(turn.index), "empty_content", "a message without content")
        return wire

    def refused_since(self, index: int) -> bool:
        """Whether unsupported content was noted in message ``index`` or later."""
        return any(
            problem.keyword == "unsupported_content" and (message_index(problem) or 0) >= index
            for problem in self.problems
        )

    def message_extras(self, wire: dict[str, Any], message: Message) -> None:
        """A wire message's own other keys, kept in its first message's extras."""
        kept = extras_of(message, NAME).get("message")
        if isinstance(kept, dict):
            for key, value in kept.items():
                wire.setdefault(key, value)

    def message(
        self, message: Message, index: int
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """One message's wire blocks: (tool results, other blocks)."""
        if isinstance(message, ToolMessage):
            return self.tool_result(message, index), []
        if isinstance(message, AssistantMessage):
            return [], self.assistant(message, index)
        return [], self.user_blocks(message.content, index)

    # -------------------------------------------------------------- user side

    def user_blocks(
        self, content: str | Sequence[ContentBlock], index: int
    ) -> list[dict[str, Any]]:
        """User content as wire blocks."""
        if isinstance(content, str):
            return [{"text": content}] if content else []
        if self.string:
            texts: list[str] = []
            refused: list[dict[str, Any]] = []
            for position, block in enumerate(content):
                if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
                    block = resource_as(block) or block
                if isinstance(block, TextBlock):
                    texts.append(block.text)
                else:
                    what = f"{block.type} block in string content"
                    refused.extend(self.refuse(what, index, position))
            text = "\n".join(texts)
            return ([{"text": text}] if text else []) + refused
        blocks: list[dict[str, Any]] = []
        for position, item in enumerate(content):
            blocks.extend(self.user_block(item, index, position))
        return blocks

    def user_block(self, block: ContentBlock, index: int, position: int) -> list[dict[str, Any]]:
        """One block of user content or of a tool result."""
        if isinstance(block, TextBlock):
            return self.text(block, index, position)
        if isinstance(block, ImageBlock):
            if not self.options.vision:
                return self.refuse("image (vision is off)", index, position)
            return self.media("image", block, index, position)
        if isinstance(block, VideoBlock):
            return self.media("video", block, index, position)
        if isinstance(block, AudioBlock):
            return self.media("audio", block, index, position)
        if isinstance(block, FileBlock):
            return self.media("document", block, index, position)
        if isinstance(block, PlainTextBlock):
            return self.plain_document(block, index, position)
        if isinstance(block, NonStandardBlock):
            return self.non_standard(block, index, position)
        if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
            # API reference, ContentBlock and ToolResultContentBlock: text, image,
            # document, video; a resource goes as the one it maps to
            alt = resource_as(block)
            if alt is not None:
                return self.user_block(alt, index, position)
        return self.refuse(f"{block.type} block in user content", index, position)

    def text(
        self, block: TextBlock | RefusalBlock, index: int, position: int
    ) -> list[dict[str, Any]]:
        """A text block; one with citations is a ``citationsContent`` block."""
        at = pointer(index, "content", position)
        extras = extras_of(block, NAME) if block.extras else {}
        if isinstance(block, TextBlock) and (block.annotations or extras.get("citationsContent")):
            wire: dict[str, Any] = {"citationsContent": self.citations(block, extras)}
        else:
            if self.collect and blank(block.text):
                # Converse: "The text field in the ContentBlock object ... is blank"
                self.problem(at, "blank_text", "a blank text block")
            wire = {"text": block.text}
        return self.cached(wire, block.cache_control, extras, at)

    def citations(self, block: TextBlock, extras: dict[str, Any]) -> dict[str, Any]:
        """``citationsContent``: the text and the citations (kept wire data first)."""
        pieces = extras.get("content")
        same = (
            isinstance(pieces, list)
            and all(isinstance(piece, dict) for piece in pieces)
            and "".join(str(piece.get("text", "")) for piece in pieces) == block.text
        )
        content = [dict(piece) for piece in pieces] if same else [{"text": block.text}]  # type: ignore[union-attr]
        citations: list[dict[str, Any]] = []
        for annotation in block.annotations or ():
            if annotation.type == "non_standard_annotation":
                if annotation.provider == NAME:
                    citations.append(dict(annotation.value))
                continue  # another format's annotation: no Converse form (documented)
            kept = extras_of(annotation, NAME)
            wire: dict[str, Any] = dict(kept)
            if annotation.title is not None:
                wire["title"] = annotation.title
            if not kept:
                if annotation.cited_text is not None:
                    wire["sourceContent"] = [{"text": annotation.cited_text}]
                if annotation.url is not None:
                    wire["location"] = {"web": {"url": annotation.url}}
            citations.append(wire)
        out: dict[str, Any] = {}
        if pieces is not None or "content" not in extras or block.text:
            out["content"] = content
        if block.annotations is not None:
            out["citations"] = citations
        for key, value in extras.items():
            if key not in ("content", "citationsContent", CACHE_POINT):
                out.setdefault(key, value)
        return out

    def media(
        self,
        kind: str,
        block: ImageBlock | VideoBlock | AudioBlock | FileBlock | PlainTextBlock,
        index: int,
        position: int,
    ) -> list[dict[str, Any]]:
        """An image, video, audio or document block, inline (bytes) or in S3."""
        at = pointer(index, "content", position)
        extras = extras_of(block, NAME) if block.extras else {}
        mime = block.mime_type
        if mime is not None:
            mime = mime.split(";", 1)[0].strip().lower()
            mime = MIME_ALIASES.get(mime, mime)
        kept = extras.get("format")
        fmt = kept if isinstance(kept, str) and FORMATS[kind].get(kept) == mime else None
        if fmt is None and mime is not None:
            fmt = MIME_FORMATS[kind].get(mime)
        inline = inline_data(block)
        if inline is not None and fmt is None:
            inline_mime = MIME_ALIASES.get(inline[0].lower(), inline[0].lower())
            fmt = MIME_FORMATS[kind].get(inline_mime)
        source: dict[str, Any]
        if inline is not None:
            if fmt is None:
                return self.refuse(f"{kind} of type {mime or inline[0]}", index, position)
            source = {"bytes": self.blob(inline[1], extras, at)}
            if self.collect and kind in MAX_INLINE_BYTES:
                self.size_limit(kind, inline[1], at)
        elif block.url is not None and S3_URI.fullmatch(block.url):
            if fmt is None and mime is None:  # the format of the object's extension
                extension = block.url.rsplit(".", 1)[-1].lower()
                fmt = _EXTENSIONS.get(extension, extension)
                fmt = fmt if fmt in FORMATS[kind] else None
            if fmt is None:
                return self.refuse(f"{kind} of type {mime or 'unknown'}", index, position)
            location: dict[str, Any] = {"uri": block.url}
            owner = extras.get("s3Location")
            if isinstance(owner, dict):
                location.update((key, value) for key, value in owner.items() if key != "uri")
            source = {"s3Location": location}
        else:
            # API reference, ImageSource and friends: bytes or an S3 location only
            where = "by URL" if block.url is not None else "by file id"
            return self.refuse(f"{kind} {where}", index, position)
        wire: dict[str, Any] = {"format": fmt, "source": source}
        if kind == "document":
            name = (
                block.title
                if isinstance(block, PlainTextBlock)
                else block.filename
                if isinstance(block, FileBlock)
                else None
            )
            wire["name"] = document_name(name, index, position, extras.get("name"))
            if isinstance(block, PlainTextBlock) and block.context is not None:
                wire["context"] = block.context
        for key, value in extras.items():
            if key not in (BLOB_TEXT, CACHE_POINT, "format", "s3Location"):
                wire.setdefault(key, value)
        return self.cached({kind: wire}, block.cache_control, extras, at)

    def plain_document(
        self, block: PlainTextBlock, index: int, position: int
    ) -> list[dict[str, Any]]:
        """A plain-text document: a ``document`` with a ``text`` source."""
        if block.text is None:
            if block.mime_type is None and block.base64 is None and block.url is not None:
                return self.refuse("plain-text document by URL", index, position)
            return self.media("document", block, index, position)
        at = pointer(index, "content", position)
        extras = extras_of(block, NAME) if block.extras else {}
        kept = extras.get("format")
        mime = (block.mime_type or "").split(";", 1)[0].strip().lower()
        named = MIME_FORMATS["document"].get(MIME_ALIASES.get(mime, mime), "txt")
        wire: dict[str, Any] = {
            "format": kept if isinstance(kept, str) else named,
            "name": document_name(block.title, index, position, extras.get("name")),
            "source": {"text": block.text},
        }
        if "format" in extras and kept is None:
            del wire["format"]  # decoded from a text document without one
        if block.context is not None:
            wire["context"] = block.context
        for key, value in extras.items():
            if key not in (CACHE_POINT, "format"):
                wire.setdefault(key, value)
        return self.cached({"document": wire}, block.cache_control, extras, at)

    def non_standard(
        self, block: NonStandardBlock, index: int, position: int
    ) -> list[dict[str, Any]]:
        """A Converse block the neutral model has no type for, sent as it came."""
        ours = block.provider == NAME or (block.provider is None and NAME in (block.extras or {}))
        # Converse, ContentBlock: a union, one member per block
        if not ours or self.string or len(block.value) != 1:
            return self.refuse(non_standard_what(block), index, position)
        extras = extras_of(block, NAME) if block.extras else {}
        at = pointer(index, "content", position)
        return self.cached(dict(block.value), block.cache_control, extras, at)

    def tool_result(self, message: ToolMessage, index: int) -> list[dict[str, Any]]:
        """A tool message: a ``toolResult`` block (text without native tools)."""
        if not self.options.native_tools:
            text = tool_result_as_text(message, joined_text(message.content))
            return [{"text": text}]
        extras = extras_of(message, NAME) if message.extras else {}
        self.tool_blocks += 1
        wire: dict[str, Any] = {
            "toolUseId": self.ids.get(message.tool_call_id, message.tool_call_id)
        }
        content = message.content
        if isinstance(content, str):
            items: list[dict[str, Any]] = [{"text": content}] if content else []
        else:
            items = []
            for position, block in enumerate(content):
                if isinstance(block, TextBlock) and extras_of(block, NAME).get(JSON_RESULT):
                    value = json_value(block.text)
                    if value is not NOT_JSON:
                        items.append({"json": value})
                        continue
                if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
                    block = resource_as(block) or block
                if isinstance(block, TextBlock):
                    items.append({"text": block.text})  # (tool results take no cache point)
                elif isinstance(block, AudioBlock):
                    # API reference, ToolResultContentBlock: json, text, image, document,
                    # video (and search results): no audio
                    items.extend(self.refuse("audio in a tool result", index, position))
                else:
                    items.extend(self.user_block(block, index, position))
        wire["content"] = items
        if message.status == "error":
            wire["status"] = "error"
        for key, value in extras.items():
            if key not in (CACHE_POINT, NEW_MESSAGE, "message") and key not in wire:
                wire[key] = value
        return self.cached({"toolResult": wire}, None, extras, pointer(index))

    # --------------------------------------------------------- assistant side

    def assistant(self, message: AssistantMessage, index: int) -> list[dict[str, Any]]:
        """An assistant message: its blocks, with the tool calls back in place."""
        foreign = message.provider is not None and message.provider != NAME
        content = message.content
        blocks: list[list[dict[str, Any]]] = []
        if isinstance(content, str):
            if content:
                blocks.append([{"text": content}])
        else:
            for position, block in enumerate(content):
                wire = self.assistant_block(block, index, position, foreign=foreign)
                if wire:
                    blocks.append(wire)
        calls: list[tuple[int | None, list[dict[str, Any]]]] = [
            (call.index, self.tool_call(call, index, position))
            for position, call in enumerate(message.tool_calls)
        ]
        for position, invalid in enumerate(message.invalid_tool_calls):
            wire = self.invalid_call(invalid, index, position)
            if wire:
                calls.append((invalid.index, wire))
        return interleave(blocks, calls)

    def assistant_block(
        self, block: ContentBlock, index: int, position: int, *, foreign: bool
    ) -> list[dict[str, Any]]:
        """One assistant block; ``foreign``: the message came from another format."""
        if isinstance(block, (TextBlock, RefusalBlock)):
            return self.text(block, index, position)
        if isinstance(block, ReasoningBlock):
            return self.reasoning(block, index, position)
        if isinstance(block, CompactionBlock):  # no such block: its text, or the policy
            summary = summary_of(self.options, block)
            if summary is None:
                return self.refuse(compaction_what(block), index, position)
            return self.text(summary, index, position)
        if self.string:
            return self.refuse(f"{block.type} block in string content", index, position)
        extras = extras_of(block, NAME) if block.extras else {}
        at = pointer(index, "content", position)
        if isinstance(block, ServerToolCallBlock):
            ours = block.provider == NAME or (block.provider is None and bool(extras))
            if block.id is None or foreign or not ours:
                return self.refuse(f"server tool call {block.name!r}", index, position)
            wire: dict[str, Any] = {
                "toolUseId": block.id,
                "name": block.name,
                "input": block.arguments if block.arguments is not None else {},
            }
            for key, value in extras.items():
                if key != CACHE_POINT:
                    wire.setdefault(key, value)
            wire.setdefault("type", "server_tool_use")
            return self.cached({"toolUse": wire}, block.cache_control, extras, at)
        if isinstance(block, ServerToolResultBlock):
            ours = block.provider == NAME or (block.provider is None and bool(extras))
            if foreign or not ours:
                return self.refuse("server tool result from another provider", index, position)
            wire = {"toolUseId": block.tool_call_id}
            if "output" in block.model_fields_set:
                wire["content"] = block.output
            if block.status is not None:
                wire["status"] = block.status
            for key, value in extras.items():
                if key != CACHE_POINT:
                    wire.setdefault(key, value)
            return self.cached({"toolResult": wire}, block.cache_control, extras, at)
        return self.user_block(block, index, position)

    def reasoning(self, block: ReasoningBlock, index: int, position: int) -> list[dict[str, Any]]:
        """Reasoning replayed as it came; other providers' as text or left out (``reasoning``)."""
        extras = extras_of(block, NAME) if block.extras else {}
        at = pointer(index, "content", position)
        signed = block.signature is not None or block.encrypted_content is not None
        if (
            self.options.replays(block.provider)
            and not self.string
            and not (signed and held_back(self, block, self.target, index, position))
        ):
            wire: dict[str, Any]
            if block.encrypted_content is not None and block.text is None:
                blob = self.blob(block.encrypted_content, extras, at)
                wire = {"redactedContent": blob}
            else:
                inner: dict[str, Any] = {"text": block.text or ""}
                if block.signature is not None:
                    inner["signature"] = block.signature
                for key, value in extras.items():
                    if key not in (CACHE_POINT, BLOB_TEXT):
                        inner.setdefault(key, value)
                wire = {"reasoningText": inner}
            return self.cached({"reasoningContent": wire}, block.cache_control, extras, at)
        if self.options.reasoning == "text":
            text = block.text if block.text is not None else "\n".join(block.summary or ())
            if text:
                return [{"text": text}]
        return []

    def tool_call(self, call: ToolCall, index: int, position: int) -> list[dict[str, Any]]:
        """A ``toolUse`` block (text without native tools), under its wire id."""
        if not self.options.native_tools:
            return [{"text": tool_call_as_text(call)}]
        self.tool_blocks += 1
        extras = extras_of(call, NAME) if call.extras else {}
        wire: dict[str, Any] = {
            "toolUseId": self.ids.get(call.id, call.id),
            "name": call.name,
            "input": call.arguments,
        }
        for key, value in extras.items():
            if key != CACHE_POINT:
                wire.setdefault(key, value)
        return self.cached({"toolUse": wire}, None, extras, pointer(index, "tool_calls", position))

    def invalid_call(
        self, call: InvalidToolCall, index: int, position: int
    ) -> list[dict[str, Any]]:
        """An invalid call decoded from Converse goes back with its input as it came."""
        extras = extras_of(call, NAME) if call.extras else {}
        value = json_value(call.arguments) if call.arguments is not None else NOT_JSON
        if (
            not self.options.native_tools
            or call.id is None
            or not call.name
            or "input_json" not in extras
            or value is NOT_JSON
        ):
            # API reference, ToolUseBlock: a call needs its id, name and input
            where = pointer(index, "invalid_tool_calls", position)
            text = self.unsupported(invalid_call_what(call), index, where=where)
            return [] if text is None else [{"text": text}]
        self.tool_blocks += 1
        wire: dict[str, Any] = {
            "toolUseId": self.ids.get(call.id, call.id),
            "name": call.name,
            "input": value,
        }
        for key, item in extras.items():
            if key not in (CACHE_POINT, "input_json"):
                wire.setdefault(key, item)
        at = pointer(index, "invalid_tool_calls", position)
        return self.cached({"toolUse": wire}, None, extras, at)

    # ------------------------------------------------------------------ tools

    def tool_config(self) -> dict[str, Any] | None:
        """``toolConfig``: the tool definitions and the tool choice (None without tools)."""
        return tool_config(self)
