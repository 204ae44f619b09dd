"""The part readers that histories, responses and streams share.

:class:`PartReader` reads one part at a time: a function call (:meth:`~PartReader.call`)
or any other part as a neutral block (:meth:`~PartReader.block`), pairing code
execution results with their runs. A history's decoder builds on it
(``decode.py``), and so does a stream, which meets the parts one by one
(``stream.py``). :class:`Scope` gives the synthesized ids of a response.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections import OrderedDict, deque
from collections.abc import Sequence
from typing import Any, cast

from chatschema_models.content import (
    ContentBlock,
    NonStandardBlock,
    ReasoningBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
)
from pydantic import ValidationError as PydanticValidationError

from chatschema.errors import ConversionError
from chatschema.providers._common import set_extras
from chatschema.providers.gemini.wire import (
    BASE64URL,
    BLOCK_TYPES,
    DATA_FIELDS,
    EXTENSIONS,
    FILES_URI,
    MISSING,
    NAME,
    OUTCOME_NUMBERS,
    READ,
    SAFE_ID,
    TEXT_DOCUMENTS,
    URL,
    VIDEO_HOSTS,
    enum_name,
    file_uri,
    json_data,
)

NO_NAME = "the tool call has no name"
"""The error of a call without a name (the chunk accumulator's, for the same call)."""


def invalid(error: PydanticValidationError, index: int | None = None) -> ConversionError:
    """A value the neutral model refuses, as a ConversionError naming the content."""
    first = error.errors(include_url=False, include_input=False)[0]
    return READ.error(
        f"invalid data: {first['msg']} at {'/'.join(str(p) for p in first['loc'])}", index
    )


class Call:
    """A function call waiting for its response while decoding."""

    __slots__ = ("answered", "id", "name", "sends_id")

    def __init__(self, id: str, name: str, sends_id: bool) -> None:
        self.id = id
        self.name = name
        self.sends_id = sends_id
        self.answered = False


class PartReader:
    """Reads parts one by one: calls, and every other part as a block.

    It remembers the calls of the model turn (for the responses that answer them)
    and the code runs that await a result.
    """

    empty_text = False
    """Mark an empty text part without metadata (``{"text": ""}``) with
    ``extras["gemini"]["empty_text"]``, so that it is sent back; a request reader sets it
    (the API takes such parts), a response or stream reader does not."""

    def __init__(self) -> None:
        self._by_id: dict[str, Call] = {}
        self._by_name: dict[str, deque[Call]] = {}
        self._code: OrderedDict[str, None] = OrderedDict()  # code runs awaiting a result

    def start_turn(self) -> None:
        """Forget the calls and code runs of the previous model turn."""
        self._by_id.clear()
        self._by_name.clear()
        self._code.clear()

    def call(
        self, value: Any, meta: dict[str, Any], index: int, position: int, scope: Scope | str
    ) -> dict[str, Any]:
        """The keyword arguments of the ToolCall for a ``function_call`` part.

        A call without a name (absent, ``null`` or empty: google-genai takes it) cannot
        be used: the fields are those of an ``InvalidToolCall`` (no ``name``, the
        arguments as JSON text, an ``error``), as the chunk accumulator makes of a
        streamed call without a name, kept as it came (``name_absent``, or the name in
        ``extras["gemini"]["function_call"]``) to be written back to Gemini.
        """
        call = READ.object(value, "function_call", index, position)
        name = call.get("name", MISSING)
        named = isinstance(name, str) and name != ""
        if not named and name is not MISSING and name is not None and not isinstance(name, str):
            READ.fail("function_call.name must be a string", index, position)
        extras = dict(meta)
        args = call.get("args", MISSING)
        if args is MISSING or args is None:  # (null: kept as it came, below)
            args = {}
            extras["args_absent"] = True
        elif not isinstance(args, dict):
            READ.fail("function_call.args must be an object", index, position)
        wire_id = call.get("id")
        if wire_id is not None and not isinstance(wire_id, str):
            READ.fail("function_call.id must be a string", index, position)
        rest = {  # (a null or empty name, args or id: kept as it came)
            k: v
            for k, v in call.items()
            if k not in ("name", "args", "id") or v is None or (k == "name" and not named)
        }
        if rest:
            extras["function_call"] = rest
        # Function calling: FunctionCall.id is optional (Gemini 2 and 3 often send none);
        # a synthesized id is marked, so that it is never sent back
        if wire_id:
            call_id, sends = wire_id, True
        else:
            call_id, sends = f"gemini_call_{scoped(scope, position)}_{position}", False
            extras["synthesized_id"] = True
            if wire_id == "":
                extras["id"] = ""
        fields: dict[str, Any]
        if not named:
            if name is MISSING:
                extras["name_absent"] = True
            fields = {
                "id": call_id,
                "arguments": json_data(args, "function_call.args"),
                "error": NO_NAME,
            }
            set_extras(fields, NAME, extras)
            return fields
        pending = Call(call_id, name, sends)
        if sends:
            self._by_id[call_id] = pending
        self._by_name.setdefault(name, deque()).append(pending)
        fields = {"id": call_id, "name": name, "arguments": args}
        set_extras(fields, NAME, extras)
        return fields

    def block(
        self,
        part: dict[str, Any],
        key: str | None,
        meta: dict[str, Any],
        index: int,
        position: int,
        scope: Scope | str,
    ) -> ContentBlock:
        """The neutral block of one part (any part that is not a call or response).

        A part no neutral block stands for (``tool_call``, ``tool_response`` and
        anything newer, or metadata without data) and a part with values the neutral
        model refuses (a malformed MIME type ...) are kept as they came, as
        ``non_standard`` blocks.
        """
        block: ContentBlock | None = None
        extras = dict(meta)
        try:
            if key == "text":
                if self.empty_text and part[key] == "" and not extras:
                    extras["empty_text"] = True  # the API accepts {"text": ""} (HTTP 200)
                block = _text_block(part[key], extras, index, position)
            elif key in ("inline_data", "file_data"):
                block = media_block(key, READ.object(part[key], key, index, position), extras)
            elif key == "executable_code":
                code = READ.object(part[key], key, index, position)
                block = self._code_run(code, extras, position, scope)
            elif key == "code_execution_result":
                result = READ.object(part[key], key, index, position)
                block = self._code_result(result, extras, position, scope)
        except PydanticValidationError:
            block = None
        return block if block is not None else NonStandardBlock(value=part)

    def _code_run(
        self, code: dict[str, Any], extras: dict[str, Any], position: int, scope: Scope | str
    ) -> ContentBlock:
        """An ``executable_code`` part as a server tool call (``code_execution``)."""
        wire_id = code.get("id")
        if isinstance(wire_id, str) and wire_id:
            block_id = wire_id
        else:
            block_id = f"gemini_code_{scoped(scope, position)}_{position}"
            extras["synthesized_id"] = True
        self._code[block_id] = None
        fields: dict[str, Any] = {
            "id": block_id,
            "name": "code_execution",
            "arguments": {k: v for k, v in code.items() if k != "id"},
        }
        set_extras(fields, NAME, extras)
        return ServerToolCallBlock(**fields)

    def _code_result(
        self, result: dict[str, Any], extras: dict[str, Any], position: int, scope: Scope | str
    ) -> ContentBlock:
        """A ``code_execution_result`` part as the server tool result of its run."""
        wire_id = result.get("id")
        # Code execution: a result follows its executable_code part; without ids they
        # pair up in order
        if isinstance(wire_id, str) and wire_id:
            self._code.pop(wire_id, None)
            call_id = wire_id
        else:  # the oldest run without a result, else an id of its own
            extras["synthesized_id"] = True
            pending = self._code.popitem(last=False)[0] if self._code else None
            call_id = pending or f"gemini_code_{scoped(scope, position)}_{position}"
        output = {k: v for k, v in result.items() if k != "id"}
        fields: dict[str, Any] = {"tool_call_id": call_id, "output": output}
        outcome = enum_name(output.get("outcome"), OUTCOME_NUMBERS)  # a name or its number
        if outcome is not None:
            fields["status"] = "success" if outcome == "OUTCOME_OK" else "error"
        set_extras(fields, NAME, extras)
        return ServerToolResultBlock(**fields)


# ------------------------------------------------------------------------- parts


def _text_block(value: Any, extras: dict[str, Any], index: int, position: int) -> ContentBlock:
    """A text part: a text block, or a reasoning block for a thought."""
    text = READ.string(value, "text", index, position)
    signature = extras.get("thought_signature")
    if signature is not None and not isinstance(signature, str):
        READ.fail("thought_signature must be base64 text", index, position)
    # Thinking: a part with thought=True is a thought summary; its signature
    # (Thought signatures) must go back on the same part, unchanged
    fields: dict[str, Any]
    if extras.get("thought") is True:
        del extras["thought"]
        fields = {"text": text, "provider": NAME}
        if signature is not None:
            fields["signature"] = extras.pop("thought_signature")
        set_extras(fields, NAME, extras)
        return ReasoningBlock(**fields)
    fields = {"text": text}
    set_extras(fields, NAME, extras)
    return TextBlock(**fields)


def split(part: Any, index: int, position: int) -> tuple[str | None, dict[str, Any]]:
    """A part's data field name and its metadata."""
    part = READ.object(part, "a part", index, position)
    key: str | None = None
    meta: dict[str, Any] = {}
    for name, value in part.items():
        # a data field sent as null (a request's; google-genai takes it) carries no data:
        # the part is kept as it came (a non_standard block)
        if name in DATA_FIELDS and value is not None:
            if key is not None:
                READ.fail(
                    f"a part carries exactly one data field, not {key!r} and {name!r}",
                    index,
                    position,
                )
            key = name
        else:
            meta[name] = value
    return key, meta


def media_block(key: str, data: dict[str, Any], extras: dict[str, Any]) -> ContentBlock | None:
    """The media block of ``inline_data`` / ``file_data``; None when it cannot be one."""
    fields: dict[str, Any] = {}
    mime = data.get("mime_type")
    if mime is not None and not isinstance(mime, str):
        return None
    if key == "inline_data":
        payload = data.get("data")
        if not isinstance(payload, str) or mime is None:
            return None
        rest = {k: v for k, v in data.items() if k not in ("mime_type", "data") or v is None}
        kind = kind_of_mime(mime)
        text = canonical_text(payload) if kind == "text-plain" else None
        if text is not None:
            fields["text"] = text
            if mime != "text/plain":
                fields["mime_type"] = mime
        else:
            fields["base64"], alphabet = standard_base64(payload)
            if alphabet is not None:
                extras[BASE64URL] = alphabet
            fields["mime_type"] = mime
    else:
        uri = data.get("file_uri")
        if not isinstance(uri, str) or not uri:
            return None
        rest = {k: v for k, v in data.items() if k not in ("mime_type", "file_uri") or v is None}
        match = FILES_URI.fullmatch(uri)
        if match is not None:
            fields["file_id"] = match[1]
        elif URL.fullmatch(uri):
            fields["url"] = uri
        else:
            fields["file_id"] = uri
        if file_uri(fields.get("url"), fields.get("file_id")) != uri:
            extras["file_uri"] = uri
        if mime is not None:
            fields["mime_type"] = mime
            kind = kind_of_mime(mime)
        else:
            kind = kind_of_uri(uri)
    if rest:
        extras[key] = rest
    set_extras(fields, NAME, extras)
    return cast(ContentBlock, BLOCK_TYPES[kind](**fields))


_FROM_URLSAFE = str.maketrans("-_", "+/")


def standard_base64(data: str) -> tuple[str, str | None]:
    """Inline data as the standard base64 the neutral model holds, and how it came.

    The API takes URL-safe base64 too (proto JSON bytes, HTTP 200; pydantic-ai sends
    it), and so does base64 without its padding: such data is made standard, and the
    second item says how to give it back (``"urlsafe"``, ``"urlsafe_unpadded"`` or
    ``"unpadded"``); None for data that is standard base64 already, or that is no
    base64 of either kind.
    """
    urlsafe = "-" in data or "_" in data
    if urlsafe and ("+" in data or "/" in data):
        return data, None  # both alphabets: not base64, kept as it is
    padding = -len(data) % 4
    if not urlsafe and not padding:
        return data, None
    if padding == 3 or "=" in (data.rstrip("=") if not padding else data):
        return data, None  # no base64 length, or "=" where it cannot be
    how = ("urlsafe" if urlsafe else "") + ("_unpadded" if padding else "")
    return data.translate(_FROM_URLSAFE) + "=" * padding, how.lstrip("_")


def message_content(blocks: list[ContentBlock]) -> str | list[ContentBlock]:
    """Blocks as message content: one plain text block is a string."""
    if not blocks:
        return ""
    if len(blocks) == 1:
        block = blocks[0]
        if isinstance(block, TextBlock) and block.model_fields_set == {"type", "text"}:
            return block.text
    return blocks


def as_content(value: dict[str, Any]) -> dict[str, Any]:
    """A bare part (the SDK takes one where a content goes) as a user content."""
    if "parts" in value or "role" in value or not DATA_FIELDS.intersection(value):
        return value
    return {"role": "user", "parts": [value]}


# ------------------------------------------------------------------- media and files


def kind_of_mime(mime: str) -> str:
    """The neutral media kind of a MIME type (``"file"`` for documents)."""
    major, _, minor = mime.partition("/")
    major = major.lower()
    if major in ("image", "audio", "video"):
        return major
    if f"{major}/{minor.split(';', 1)[0].strip().lower()}" in TEXT_DOCUMENTS:
        return "text-plain"
    return "file"


def kind_of_uri(uri: str) -> str:
    """The media kind of a ``file_uri`` without MIME type, by host and extension."""
    rest = uri.split("://", 1)[-1]
    host, _, path = rest.partition("/")
    if host.lower() in VIDEO_HOSTS:
        return "video"
    path = path.split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1]
    if "." in name:
        return EXTENSIONS.get(name.rsplit(".", 1)[-1].lower(), "file")
    return "file"


def canonical_text(data: str) -> str | None:
    """The UTF-8 text of base64 data, when encoding the text gives the data back."""
    try:
        raw = base64.b64decode(data, validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return text if base64.b64encode(raw).decode("ascii") == data else None


# ------------------------------------------------------------ synthesized id scopes


def canonical(value: Any) -> bytes:
    """Stable bytes of plain JSON data, for digests."""
    text = json.dumps(
        value, sort_keys=True, ensure_ascii=False, default=repr, separators=(",", ":")
    )
    return text.encode("utf-8", "surrogatepass")


def utf8(text: str) -> bytes:
    """Text as UTF-8 bytes (lone surrogates kept), for digests."""
    return text.encode("utf-8", "surrogatepass")


class Scope:
    """The middle of a response's synthesized ids: its id, else a digest.

    The digest covers the response id and the parts up to the first one that needs
    a synthesized id, so that a stream can compute it when that part arrives: a text
    part counts as its metadata and the SHA-256 of its text (which a stream hashes as
    the deltas come), any other part as its canonical JSON.
    """

    __slots__ = ("_fed", "_hash", "_parts", "response_id", "value")

    def __init__(self, response_id: Any = None, parts: Sequence[Any] | None = None) -> None:
        self.response_id = response_id
        self.value: str | None = None
        self._hash = hashlib.sha256()
        self._parts = parts  # a whole response's parts, fed on demand
        self._fed = 0

    @property
    def hashing(self) -> bool:
        """Whether parts must still be fed (no id yet, no usable response id)."""
        return self.value is None and not (
            isinstance(self.response_id, str) and SAFE_ID.fullmatch(self.response_id)
        )

    def feed(self, part: Any) -> None:
        """Count one whole part (a stream's text parts go through :meth:`feed_text`)."""
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            meta = {key: value for key, value in part.items() if key != "text"}
            self.feed_text(meta, hashlib.sha256(utf8(part["text"])).digest())
        else:
            self._hash.update(b"P" + canonical(part) + b"\x00")

    def feed_text(self, meta: dict[str, Any], text_digest: bytes) -> None:
        """Count one text part by its metadata and the SHA-256 of its text."""
        self._hash.update(b"T" + canonical(meta) + b"\x00" + text_digest)

    def text(self, position: int) -> str:
        """The scope, fixed by the first part (at ``position``) that asks for it."""
        if self.value is None:
            response_id = self.response_id
            if isinstance(response_id, str) and SAFE_ID.fullmatch(response_id):
                self.value = response_id
            else:
                if self._parts is not None:
                    for part in self._parts[self._fed : position + 1]:
                        self.feed(part)
                    self._fed = max(self._fed, position + 1)
                head = canonical(response_id) + b"\x00" + self._hash.digest()
                self.value = hashlib.sha256(head).hexdigest()[:16]
        return self.value


def scoped(scope: Scope | str, position: int) -> str:
    """The middle of a synthesized id: a history's content index, or a response's scope."""
    return scope if isinstance(scope, str) else scope.text(position)
