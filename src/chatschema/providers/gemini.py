"""Gemini ``generateContent``: the neutral model to and from ``contents``.

``encode`` returns the keyword arguments the official client takes for a request's
conversation part, with google-genai's snake_case field names::

    {"system_instruction"?: Content, "contents": [Content],
     "tools"?: [Tool], "tool_config"?: ToolConfig}

Decoders read that shape, the REST camelCase one (``functionCall``,
``thoughtSignature`` ...) and google-genai SDK objects alike; bytes fields of SDK
objects (``thought_signature``, ``inline_data.data``) come back as the standard
base64 text the REST API sends.

The mapping, rule by rule, is in ``docs/providers/gemini.md``. The points that
matter most:

- A model turn is never split, merged or reordered: its parts become the
  assistant message's blocks and tool calls (``ToolCall.index`` keeps the position
  of calls that are interleaved with other parts, and of every call in a
  response), and part metadata such as ``thought_signature`` stays on the block or
  call it came with (``extras["gemini"]``).
- ``function_call.id`` is optional on the wire. A call without one gets a
  deterministic id (``gemini_call_<content>_<part>`` in a history,
  ``gemini_call_<response id or content hash>_<part>`` in a response), marked
  ``extras["gemini"]["synthesized_id"]`` and never sent back; function responses
  without an id are matched to calls by order and name.
- ``decode_stream`` turns ``streamGenerateContent`` events into chunks that
  assemble to ``decode_response`` of the complete response the stream stands for
  (the equivalence is defined in the docs page, *Streaming*).
- Tools other than function declarations (``google_search``, ``code_execution``
  ...) are ``ToolDefinition``s with ``provider="gemini"``, named after their field,
  and are sent back in their ``Tool`` objects; other formats' hosted tools go
  through the unsupported-content policy. A content that the policy's drops leave
  without parts is not sent.
"""

from __future__ import annotations

import base64
import binascii
import copy
import datetime
import enum
import functools
import hashlib
import json
import re
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Final, TypeVar, cast

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.content import (
    AudioBlock,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
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
    UserMessage,
)
from chatschema_models.tool import (
    AutoToolChoice,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolCallChunk,
    ToolChoice,
    ToolDefinition,
)
from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, Usage
from pydantic import BaseModel
from pydantic import ValidationError as PydanticValidationError
from typing_extensions import ParamSpec, Unpack

from chatschema._gc import collector_paused
from chatschema.errors import ConversionError, Problem
from chatschema.providers import _sse
from chatschema.providers._common import (
    EncodeOptions,
    Options,
    application_tools,
    content_blocks,
    decoder,
    extras_of,
    foreign_tool_problems,
    is_foreign_tool,
    parse_data_url,
    pointer,
    sendable_tools,
    set_extras,
    structural_error,
    to_conversation,
    too_deep_error,
    tool_call_as_text,
    tool_pairing_problems,
    tool_result_as_text,
    tools_as_text,
)
from chatschema.validation import shown

__all__ = [
    "NAME",
    "check",
    "decode_conversation",
    "decode_messages",
    "decode_response",
    "decode_stream",
    "encode",
]

NAME: Final = "gemini"

# ------------------------------------------------------------------------ wire facts

_DATA_FIELDS: Final = frozenset(
    {
        "text",
        "inline_data",
        "file_data",
        "function_call",
        "function_response",
        "executable_code",
        "code_execution_result",
        "tool_call",
        "tool_response",
    }
)
"""The members of a Part's ``data`` oneof: exactly one per part."""

_OPAQUE_KEYS: Final = frozenset(
    {
        "args",
        "response",
        "part_metadata",
        "parameters",
        "parameters_json_schema",
        "response_json_schema",
    }
)
"""Keys whose values are user data: read as they are, never case-converted."""

_SDK_ONLY: Final = frozenset({"sdk_http_response", "automatic_function_calling_history", "parsed"})
"""Fields google-genai adds to responses that are not part of the wire format."""

_CONTROL_KEYS: Final = frozenset(
    {
        "inline_data",
        "file_data",
        "file_uri",
        "function_call",
        "function_response",
        "executable_code",
        "code_execution_result",
        "synthesized_id",
        "id",
        "id_absent",
        "args_absent",
        "response",
        "part",
        "join",
    }
)
"""Keys of ``extras["gemini"]`` that steer the encoder; every other key is Part metadata."""

_FILES_URI = re.compile(
    r"https://generativelanguage\.googleapis\.com/v1beta/(files/[A-Za-z0-9_-]+)"
)
_FILES_PREFIX: Final = "https://generativelanguage.googleapis.com/v1beta/"
_URL = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\x00-\x20\x7f]+")
_FUNCTION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.:-]{0,127}")
_SAFE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
_CAMEL = re.compile(r"(?<=[a-z0-9])([A-Z])")

_TEXT_DOCUMENTS: Final = frozenset({"text/plain", "text/markdown"})
_EXTENSIONS: Final[dict[str, str]] = {
    **dict.fromkeys(("png", "jpg", "jpeg", "gif", "webp", "heic", "heif", "bmp"), "image"),
    **dict.fromkeys(("mp3", "wav", "aac", "ogg", "flac", "aiff", "m4a", "opus"), "audio"),
    **dict.fromkeys(("mp4", "mpeg", "mpg", "mov", "avi", "webm", "wmv", "flv", "3gp"), "video"),
    **dict.fromkeys(("txt", "md"), "text-plain"),
}
_VIDEO_HOSTS: Final = frozenset({"youtube.com", "www.youtube.com", "m.youtube.com", "youtu.be"})
_PDF_INLINE_LIMIT: Final = 50 * 1024 * 1024
"""Inline PDFs are limited to 50 MB (ai.google.dev, file input methods)."""

_FINISH_REASONS: Final[dict[str, str]] = {
    "STOP": "stop",
    "MAX_TOKENS": "length",
    **dict.fromkeys(
        (
            "SAFETY",
            "RECITATION",
            "BLOCKLIST",
            "PROHIBITED_CONTENT",
            "SPII",
            "IMAGE_SAFETY",
            "IMAGE_PROHIBITED_CONTENT",
            "IMAGE_RECITATION",
            "MODEL_ARMOR",
        ),
        "content_filter",
    ),
    **dict.fromkeys(
        (
            "MALFORMED_FUNCTION_CALL",
            "MISSING_THOUGHT_SIGNATURE",
            "UNEXPECTED_TOOL_CALL",
            "TOO_MANY_TOOL_CALLS",
            "MALFORMED_RESPONSE",
        ),
        "error",
    ),
}

_MODES: Final[dict[str, str]] = {"auto": "AUTO", "none": "NONE", "required": "ANY"}

_MISSING: Final = object()

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _guarded(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Turn pydantic errors and runaway nesting into ConversionError."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return function(*args, **kwargs)
        except PydanticValidationError as error:
            raise _invalid(error) from None
        except RecursionError:
            raise too_deep_error(NAME, args[0] if args else None) from None

    return collector_paused(wrapper)


def _invalid(error: PydanticValidationError, content: int | None = None) -> ConversionError:
    first = error.errors(include_url=False, include_input=False)[0]
    return ConversionError(
        f"invalid data: {first['msg']} at {'/'.join(str(p) for p in first['loc'])}",
        provider=NAME,
        message_index=content,
    )


# ------------------------------------------------------------------- plain JSON data


@functools.lru_cache(maxsize=4096)
def _snake(key: str) -> str:
    """``thoughtSignature`` -> ``thought_signature``; snake_case keys pass through."""
    if key.islower() or not any(c.isupper() for c in key):
        return key
    return _CAMEL.sub(r"_\1", key).lower()


def _plain(value: Any) -> Any:
    """Wire data as plain JSON with snake_case keys.

    SDK objects are dumped (bytes become standard base64, enums their value),
    camelCase keys become snake_case except inside user data (``args``,
    ``response`` ...), and ``None`` values of objects count as absent. The input
    is never modified: containers are copied.
    """
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="python", exclude_none=True)
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ConversionError(f"object keys must be strings, not {key!r}", provider=NAME)
            if item is None:
                continue
            name = _snake(key)
            out[name] = _user_data(item) if name in _OPAQUE_KEYS else _plain(item)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return _scalar(value)


def _user_data(value: Any) -> Any:
    """User JSON (function arguments, responses, schemas): SDK leftovers converted only."""
    if isinstance(value, BaseModel):
        return _plain(value)
    if isinstance(value, Mapping):
        return {key: _user_data(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_user_data(item) for item in value]
    return _scalar(value)


def _scalar(value: Any) -> Any:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime.datetime):
        return value.isoformat().replace("+00:00", "Z")
    return value


def _load(payload: Any) -> Any:
    """JSON text, SDK objects or plain data, as plain snake_case data."""
    if isinstance(payload, (str, bytes, bytearray)):
        try:
            payload = json.loads(payload)
        except ValueError as error:
            raise ConversionError(f"not valid JSON: {error}", provider=NAME) from None
    return _plain(payload)


def _error(reason: str, content: int | None = None, part: int | None = None) -> ConversionError:
    return ConversionError(reason, provider=NAME, message_index=content, block_index=part)


def _object(value: Any, what: str, content: int | None, part: int | None = None) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _error(f"{what} must be an object, not {type(value).__name__}", content, part)
    return value


def _list(value: Any, what: str, content: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise _error(f"{what} must be a list, not {type(value).__name__}", content)
    return value


def _text_field(value: Any, what: str, content: int | None, part: int | None) -> str:
    if not isinstance(value, str):
        raise _error(f"{what} must be a string, not {type(value).__name__}", content, part)
    return value


# ------------------------------------------------------------------- media and files


def _response_part(value: Mapping[str, Any]) -> bool:
    """Whether a non-standard value is a Gemini function-response part (media data).

    The decoder keeps such a part as it came when the neutral model refuses its
    values (a malformed MIME type ...); it goes back where it came from.
    """
    return len(value) == 1 and ("inline_data" in value or "file_data" in value)


def _kind_of_mime(mime: str) -> str:
    major, _, minor = mime.partition("/")
    major = major.lower()
    if major in ("image", "audio", "video"):
        return major
    if f"{major}/{minor.split(';', 1)[0].strip().lower()}" in _TEXT_DOCUMENTS:
        return "text-plain"
    return "file"


def _kind_of_uri(uri: str) -> str:
    rest = uri.split("://", 1)[-1]
    host, _, path = rest.partition("/")
    if host.lower() in _VIDEO_HOSTS:
        return "video"
    path = path.split("?", 1)[0].split("#", 1)[0]
    name = path.rsplit("/", 1)[-1]
    if "." in name:
        return _EXTENSIONS.get(name.rsplit(".", 1)[-1].lower(), "file")
    return "file"


_BLOCK_TYPES: Final[dict[str, type[BaseModel]]] = {
    "image": ImageBlock,
    "audio": AudioBlock,
    "video": VideoBlock,
    "file": FileBlock,
    "text-plain": PlainTextBlock,
}


def _file_uri(url: str | None, file_id: str | None) -> str | None:
    """The ``file_uri`` for a block's source; None for a file id Gemini cannot know."""
    if url is not None:
        return url
    if file_id is None:
        return None
    if file_id.startswith("files/"):
        return _FILES_PREFIX + file_id
    if _URL.fullmatch(file_id):
        return file_id
    return None


def _canonical_text(data: str) -> str | None:
    """The UTF-8 text of base64 data, when encoding the text gives the data back."""
    try:
        raw = base64.b64decode(data, validate=True)
        text = raw.decode("utf-8")
    except (binascii.Error, ValueError):
        return None
    return text if base64.b64encode(raw).decode("ascii") == data else None


# ------------------------------------------------------------------- tool responses


def _tool_output(response: Any) -> tuple[str, str]:
    """What a ``function_response.response`` says, as (text, status)."""
    if response is None:
        return "", "success"
    if isinstance(response, dict) and len(response) == 1:
        key, value = next(iter(response.items()))
        if key in ("output", "error"):
            status = "error" if key == "error" else "success"
            text = value if isinstance(value, str) else _json_text(value)
            return text, status
    return _json_text(response), "success"


def _json_text(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError) as error:
        raise _error(f"a function response is not JSON data: {error}") from None


def _tool_response(text: str, status: str) -> dict[str, Any]:
    return {"error" if status == "error" else "output": text}


# =========================================================================== decode


class _Call:
    """A function call waiting for its response while decoding."""

    __slots__ = ("answered", "id", "name", "sends_id")

    def __init__(self, id: str, name: str, sends_id: bool) -> None:
        self.id = id
        self.name = name
        self.sends_id = sends_id
        self.answered = False


class _Decoder:
    """Turns Gemini contents into neutral messages, in one pass."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self._by_id: dict[str, _Call] = {}
        self._by_name: dict[str, deque[_Call]] = {}
        self._code: OrderedDict[str, None] = OrderedDict()  # code runs awaiting a result

    # ------------------------------------------------------------------ contents

    def contents(self, contents: list[Any]) -> None:
        for index, content in enumerate(contents):
            try:
                self.content(content, index)
            except PydanticValidationError as error:  # a value the neutral model refuses
                raise _invalid(error, index) from None

    def content(self, content: Any, index: int) -> None:
        if isinstance(content, str):
            self.messages.append(UserMessage(content=content))
            return
        content = _as_content(_object(content, "a content", index))
        role = content.get("role", "user")
        parts = _list(content.get("parts", []), "parts", index)
        if role == "model":
            self.messages.append(AssistantMessage(**self.model_turn(parts, index, str(index))))
        elif role in ("user", "function"):
            self.user_turn(parts, index, None if role == "user" else role)
        else:
            raise _error(f"unknown role {shown(role)} (Gemini has 'user' and 'model')", index)

    def model_turn(
        self, parts: list[Any], index: int, scope: _Scope | str, *, positions: bool = False
    ) -> dict[str, Any]:
        """Keyword arguments of the AssistantMessage for a model content's parts.

        ``positions``: every call keeps its part position in ``ToolCall.index`` (a
        response, as its stream numbers calls); otherwise only calls interleaved
        with other parts do (a history).
        """
        self._by_id.clear()
        self._by_name.clear()
        self._code.clear()
        blocks: list[ContentBlock] = []
        calls: list[dict[str, Any]] = []
        for position, part in enumerate(parts):
            key, meta = _split(part, index, position)
            if key == "function_call":
                call = self.call(part[key], meta, index, position, scope)
                call["index"] = position
                calls.append(call)
            else:
                blocks.append(self.block(part, key, meta, index, position, scope))
        if not positions and all(call["index"] >= len(blocks) for call in calls):
            for call in calls:  # calls after all other parts: the default order
                del call["index"]
        fields: dict[str, Any] = {}
        content = _content(blocks)
        if content != "":
            fields["content"] = content
        if calls:
            fields["tool_calls"] = [ToolCall(**call) for call in calls]
        return fields

    def call(
        self, value: Any, meta: dict[str, Any], index: int, position: int, scope: _Scope | str
    ) -> dict[str, Any]:
        call = _object(value, "function_call", index, position)
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise _error("function_call needs a name", index, position)
        extras = dict(meta)
        args = call.get("args", _MISSING)
        if args is _MISSING:
            args = {}
            extras["args_absent"] = True
        elif not isinstance(args, dict):
            raise _error("function_call.args must be an object", index, position)
        wire_id = call.get("id")
        if wire_id is not None and not isinstance(wire_id, str):
            raise _error("function_call.id must be a string", index, position)
        rest = {k: v for k, v in call.items() if k not in ("name", "args", "id")}
        if rest:
            extras["function_call"] = rest
        if wire_id:
            call_id, sends = wire_id, True
        else:
            call_id, sends = f"gemini_call_{_scoped(scope, position)}_{position}", False
            extras["synthesized_id"] = True
            if wire_id == "":
                extras["id"] = ""
        pending = _Call(call_id, name, sends)
        if sends:
            self._by_id[call_id] = pending
        self._by_name.setdefault(name, deque()).append(pending)
        fields: dict[str, Any] = {"id": call_id, "name": name, "arguments": args}
        set_extras(fields, NAME, extras)
        return fields

    def user_turn(self, parts: list[Any], index: int, role: str | None) -> None:
        """One user content: user messages and tool messages, in part order."""
        turn: list[Message] = []
        blocks: list[ContentBlock] | None = None
        for position, part in enumerate(parts):
            key, meta = _split(part, index, position)
            if key == "function_response":
                if blocks is not None:
                    turn.append(UserMessage(content=_content(blocks)))
                    blocks = None
                turn.append(self.tool_message(part[key], meta, index, position))
            else:
                if blocks is None:
                    blocks = []
                blocks.append(self.block(part, key, meta, index, position, str(index)))
        if blocks is not None or not turn:
            turn.append(UserMessage(content=_content(blocks or [])))
        previous = self.messages[-1] if self.messages else None
        for number, message in enumerate(turn):
            joins = number > 0
            default = isinstance(message, ToolMessage) and isinstance(previous, ToolMessage)
            extras: dict[str, Any] = {}
            if joins != default:
                extras["join"] = joins
            if number == 0 and role is not None:
                extras["role"] = role
            if extras:
                message.extras = {NAME: {**extras_of(message, NAME), **extras}}
            self.messages.append(message)
            previous = message

    def tool_message(self, value: Any, meta: dict[str, Any], index: int, position: int) -> Message:
        response = _object(value, "function_response", index, position)
        name = response.get("name")
        if name is not None and not isinstance(name, str):
            raise _error("function_response.name must be a string", index, position)
        wire_id = response.get("id")
        if wire_id is not None and not isinstance(wire_id, str):
            raise _error("function_response.id must be a string", index, position)
        body = response.get("response")
        if body is not None and not isinstance(body, dict):
            raise _error("function_response.response must be an object", index, position)
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
        text, status = _tool_output(body)
        if _tool_response(text, status) != body:
            extras["response"] = body
        if status == "error":
            fields["status"] = status
        media: list[ContentBlock] = []
        for item in _list(response.get("parts", []), "function_response.parts", index):
            key, item_meta = _split(item, index, position)
            media.append(self.block(item, key, item_meta, index, position, str(index)))
        if media:  # an empty output next to media parts is not a text block
            fields["content"] = [TextBlock(text=text), *media] if text else media
        else:
            fields["content"] = text
        rest = {
            k: v
            for k, v in response.items()
            if k not in ("name", "id", "response", "parts") or (k == "parts" and v == [])
        }
        if rest:
            extras["function_response"] = rest
        if meta:
            extras["part"] = meta
        set_extras(fields, NAME, extras)
        return ToolMessage(**fields)

    def _match(self, wire_id: str | None, name: str | None) -> _Call | None:
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

    # -------------------------------------------------------------------- blocks

    def block(
        self,
        part: dict[str, Any],
        key: str | None,
        meta: dict[str, Any],
        index: int,
        position: int,
        scope: _Scope | str,
    ) -> ContentBlock:
        """The neutral block of one part (any part that is not a call or response)."""
        try:
            block = self._block(part, key, meta, index, position, scope)
        except PydanticValidationError:
            block = None  # a value the neutral model refuses (a malformed MIME type ...)
        return block if block is not None else NonStandardBlock(value=part)

    def _block(
        self,
        part: dict[str, Any],
        key: str | None,
        meta: dict[str, Any],
        index: int,
        position: int,
        scope: _Scope | str,
    ) -> ContentBlock | None:
        if key is None:
            return None
        value = part[key]
        fields: dict[str, Any] = {}
        extras = dict(meta)
        if key == "text":
            text = _text_field(value, "text", index, position)
            signature = extras.get("thought_signature")
            if signature is not None and not isinstance(signature, str):
                raise _error("thought_signature must be base64 text", index, position)
            if extras.get("thought") is True:
                del extras["thought"]
                fields = {"text": text, "provider": NAME}
                if signature is not None:
                    fields["signature"] = extras.pop("thought_signature")
                set_extras(fields, NAME, extras)
                return ReasoningBlock(**fields)
            fields["text"] = text
            set_extras(fields, NAME, extras)
            return TextBlock(**fields)
        if key in ("inline_data", "file_data"):
            return _media_block(key, _object(value, key, index, position), extras)
        if key == "executable_code":
            code = _object(value, key, index, position)
            wire_id = code.get("id")
            if isinstance(wire_id, str) and wire_id:
                block_id = wire_id
            else:
                block_id = f"gemini_code_{_scoped(scope, position)}_{position}"
                extras["synthesized_id"] = True
            self._code[block_id] = None
            fields = {
                "id": block_id,
                "name": "code_execution",
                "arguments": {k: v for k, v in code.items() if k != "id"},
            }
            set_extras(fields, NAME, extras)
            return ServerToolCallBlock(**fields)
        if key == "code_execution_result":
            result = _object(value, key, index, position)
            wire_id = result.get("id")
            if isinstance(wire_id, str) and wire_id:
                call_id = wire_id
                self._code.pop(wire_id, None)
            else:
                if self._code:
                    call_id = self._code.popitem(last=False)[0]
                else:
                    call_id = f"gemini_code_{_scoped(scope, position)}_{position}"
                extras["synthesized_id"] = True
            output = {k: v for k, v in result.items() if k != "id"}
            fields = {"tool_call_id": call_id, "output": output}
            outcome = output.get("outcome")
            if isinstance(outcome, str):
                fields["status"] = "success" if outcome == "OUTCOME_OK" else "error"
            set_extras(fields, NAME, extras)
            return ServerToolResultBlock(**fields)
        return None  # tool_call / tool_response and anything newer: kept as non_standard


def _split(part: Any, index: int, position: int) -> tuple[str | None, dict[str, Any]]:
    """A part's data field name and its metadata."""
    part = _object(part, "a part", index, position)
    key: str | None = None
    meta: dict[str, Any] = {}
    for name, value in part.items():
        if name in _DATA_FIELDS:
            if key is not None:
                raise _error(
                    f"a part carries exactly one data field, not {key!r} and {name!r}",
                    index,
                    position,
                )
            key = name
        else:
            meta[name] = value
    return key, meta


def _media_block(key: str, data: dict[str, Any], extras: dict[str, Any]) -> ContentBlock | None:
    fields: dict[str, Any] = {}
    mime = data.get("mime_type")
    if mime is not None and not isinstance(mime, str):
        return None
    if key == "inline_data":
        payload = data.get("data")
        if not isinstance(payload, str) or mime is None:
            return None
        rest = {k: v for k, v in data.items() if k not in ("mime_type", "data")}
        kind = _kind_of_mime(mime)
        text = _canonical_text(payload) if kind == "text-plain" else None
        if text is not None:
            fields["text"] = text
            if mime != "text/plain":
                fields["mime_type"] = mime
        else:
            fields["base64"] = payload
            fields["mime_type"] = mime
    else:
        uri = data.get("file_uri")
        if not isinstance(uri, str) or not uri:
            return None
        rest = {k: v for k, v in data.items() if k not in ("mime_type", "file_uri")}
        match = _FILES_URI.fullmatch(uri)
        if match is not None:
            fields["file_id"] = match[1]
        elif _URL.fullmatch(uri):
            fields["url"] = uri
        else:
            fields["file_id"] = uri
        if _file_uri(fields.get("url"), fields.get("file_id")) != uri:
            extras["file_uri"] = uri
        if mime is not None:
            fields["mime_type"] = mime
            kind = _kind_of_mime(mime)
        else:
            kind = _kind_of_uri(uri)
    if rest:
        extras[key] = rest
    set_extras(fields, NAME, extras)
    return cast(ContentBlock, _BLOCK_TYPES[kind](**fields))


def _content(blocks: list[ContentBlock]) -> str | list[ContentBlock]:
    """Blocks as message content: one plain text block is a string."""
    if not blocks:
        return ""
    if len(blocks) == 1:
        block = blocks[0]
        if isinstance(block, TextBlock) and block.model_fields_set == {"type", "text"}:
            return block.text
    return blocks


def _as_content(value: dict[str, Any]) -> dict[str, Any]:
    """A bare part (the SDK takes one where a content goes) as a user content."""
    if "parts" in value or "role" in value or not _DATA_FIELDS.intersection(value):
        return value
    return {"role": "user", "parts": [value]}


def _system_message(value: Any) -> SystemMessage:
    if isinstance(value, str):
        return SystemMessage(content=value)
    if isinstance(value, list):  # a list of parts, as the SDK takes it
        value = {"parts": [{"text": p} if isinstance(p, str) else p for p in value]}
    instruction = _as_content(_object(value, "system_instruction", None))
    blocks: list[ContentBlock] = []
    decoder = _Decoder()
    for position, part in enumerate(_list(instruction.get("parts", []), "system parts")):
        key, meta = _split(part, 0, position)
        blocks.append(decoder.block(part, key, meta, 0, position, "system"))
    fields: dict[str, Any] = {"content": _content(blocks)}
    role = instruction.get("role")
    if role is not None:
        set_extras(fields, NAME, {"role": role})
    return SystemMessage(**fields)


def _tools(value: Any) -> list[ToolDefinition]:
    """The ``Tool`` objects of a request as tool definitions.

    Each function declaration is one definition; each other field of a ``Tool``
    (``google_search``, ``code_execution``, ``url_context`` ...) is a hosted tool:
    ``ToolDefinition(name=<field>, parameters={}, provider="gemini")`` with the
    field in ``extras["gemini"]``. When the default grouping (declarations in one
    ``Tool``, each hosted tool in its own) would not give the same objects back,
    every definition records the index of its ``Tool`` in ``extras["gemini"]["tool"]``.
    """
    tools = _list(value, "tools")
    entries: list[tuple[int, dict[str, Any]]] = []
    for number, tool in enumerate(tools):
        tool = _object(tool, f"tools[{number}]", None)
        for key, field in tool.items():
            if key == "function_declarations":
                entries.extend((number, fields) for fields in _declarations(field))
            elif not key:
                raise _error(f"tools[{number}] has a field without a name")
            else:  # a hosted tool: only Gemini knows what it is
                hosted: dict[str, Any] = {"name": key, "parameters": {}, "provider": NAME}
                set_extras(hosted, NAME, {key: field})
                entries.append((number, hosted))
    definitions = [ToolDefinition(**fields) for _, fields in entries]
    if _tool_objects(definitions) == tools:
        return definitions
    for number, entry in entries:
        entry.setdefault("extras", {}).setdefault(NAME, {})["tool"] = number
    return [ToolDefinition(**entry) for _, entry in entries]


def _declarations(value: Any) -> list[dict[str, Any]]:
    """The function declarations of one ``Tool``, as tool definition fields."""
    definitions: list[dict[str, Any]] = []
    for declaration in _list(value, "function_declarations"):
        declaration = _object(declaration, "a function declaration", None)
        name = declaration.get("name")
        if not isinstance(name, str) or not name:
            raise _error("a function declaration needs a name")
        fields: dict[str, Any] = {"name": name}
        extras: dict[str, Any] = {}
        description = declaration.get("description")
        if description is not None:
            fields["description"] = _text_field(description, "description", None, None)
        if "parameters_json_schema" in declaration:
            parameters = declaration["parameters_json_schema"]
        elif "parameters" in declaration:
            parameters = declaration["parameters"]
            extras["schema_key"] = "parameters"
        else:
            parameters = {}
            extras["parameters_absent"] = True
        if not isinstance(parameters, dict):
            raise _error(f"the parameters of {name!r} must be an object")
        fields["parameters"] = parameters
        extras.update(
            (k, v)
            for k, v in declaration.items()
            if k not in ("name", "description", "parameters_json_schema", "parameters")
        )
        set_extras(fields, NAME, extras)
        definitions.append(fields)
    return definitions


def _tool_choice(value: Any) -> tuple[ToolChoice | None, bool]:
    """The neutral tool choice of a tool_config, and whether it says all of it."""
    config = _object(value, "tool_config", None)
    calling = config.get("function_calling_config")
    if not isinstance(calling, dict):
        return None, False
    mode = calling.get("mode")
    names = calling.get("allowed_function_names")
    exact = set(config) == {"function_calling_config"} and set(calling) <= {
        "mode",
        "allowed_function_names",
    }
    choice: ToolChoice | None
    if mode == "NONE":
        choice, exact = NoneToolChoice(), exact and not names
    elif mode == "ANY" and isinstance(names, list) and len(names) == 1:
        choice = NamedToolChoice(name=names[0])
    elif mode == "ANY":
        choice, exact = RequiredToolChoice(), exact and not names
    elif mode in ("AUTO", "VALIDATED"):
        choice, exact = AutoToolChoice(), exact and mode == "AUTO" and not names
    else:
        choice, exact = None, False
    return choice, exact


_REQUEST_KEYS: Final = frozenset({"contents", "system_instruction", "tools", "tool_config"})


@decoder(NAME)
@_guarded
def decode_conversation(payload: Any) -> Conversation:
    """A Gemini request (what :func:`encode` returns) as a neutral conversation.

    Args:
        payload: ``{"contents", "system_instruction"?, "tools"?, "tool_config"?}``
            with snake_case or REST camelCase keys (a ``config`` object with the
            last three, as ``generate_content`` takes them, works too), a bare list
            of contents, one content, JSON text, or google-genai SDK objects.

    Returns:
        The conversation. Tools other than function declarations (Google Search,
        code execution ...) are tool definitions with ``provider="gemini"``, sent
        back only to Gemini. Tool settings the neutral tool choice cannot say are
        kept in ``metadata["gemini"]["tool_config"]``; they are not sent again
        (metadata never is).

    Raises:
        ConversionError: for a payload that is not a Gemini conversation, naming the
            content and part concerned.
    """
    data = _load(payload)
    extra: dict[str, Any] = {}
    if isinstance(data, list):
        request: dict[str, Any] = {"contents": data}
    elif isinstance(data, dict) and "contents" in data:
        request = dict(data)
        config = request.pop("config", None)
        if config is not None:
            for key, value in _object(config, "config", None).items():
                if key in _REQUEST_KEYS:
                    request.setdefault(key, value)
                else:
                    extra.setdefault("config", {})[key] = value
    elif isinstance(data, dict) and (
        "parts" in data or "role" in data or _DATA_FIELDS.intersection(data)
    ):
        request = {"contents": [data]}
    else:
        raise _error("expected {'contents': [...]} or a list of contents")
    for key in list(request):
        if key not in _REQUEST_KEYS:
            extra.setdefault("request", {})[key] = request.pop(key)

    decoder = _Decoder()
    if "system_instruction" in request:
        decoder.messages.append(_system_message(request["system_instruction"]))
    decoder.contents(_list(request["contents"], "contents"))
    fields: dict[str, Any] = {"messages": decoder.messages}
    if "tools" in request:
        definitions = _tools(request["tools"])
        if definitions:
            fields["tools"] = definitions
    if "tool_config" in request:
        choice, exact = _tool_choice(request["tool_config"])
        if choice is not None:
            fields["tool_choice"] = choice
        if not exact:
            extra["tool_config"] = request["tool_config"]
    if extra:
        fields["metadata"] = {NAME: extra}
    return Conversation(**fields)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of a Gemini request (see :func:`decode_conversation`).

    Raises:
        ConversionError: for a payload that is not a Gemini conversation.
    """
    return decode_conversation(payload).messages


# ------------------------------------------------------------------------- response


def _count(usage: dict[str, Any], key: str) -> int:
    value = usage.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise _error(f"usage_metadata.{key} must be a token count, not {value!r}")
    return value


def _modalities(usage: dict[str, Any], *keys: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for key in keys:
        for item in _list(usage.get(key, []), f"usage_metadata.{key}"):
            if not isinstance(item, dict):
                continue
            modality = item.get("modality")
            count = item.get("token_count", 0)
            if (
                isinstance(modality, str)
                and modality not in ("TEXT", "MODALITY_UNSPECIFIED")
                and isinstance(count, int)
                and not isinstance(count, bool)
                and count >= 0
            ):
                name = modality.lower()
                counts[name] = counts.get(name, 0) + count
    return counts


def _usage(usage: dict[str, Any]) -> Usage:
    prompt = _count(usage, "prompt_token_count")
    tool_use = _count(usage, "tool_use_prompt_token_count")
    candidates = _count(usage, "candidates_token_count")
    thoughts = _count(usage, "thoughts_token_count")
    inputs = prompt + tool_use
    outputs = candidates + thoughts
    total = _count(usage, "total_token_count") if "total_token_count" in usage else inputs + outputs
    input_details: dict[str, int] = _modalities(
        usage, "prompt_tokens_details", "tool_use_prompt_tokens_details"
    )
    if "cached_content_token_count" in usage:
        input_details["cache_read"] = _count(usage, "cached_content_token_count")
    if "tool_use_prompt_token_count" in usage:
        input_details["tool_use_prompt"] = tool_use
    output_details: dict[str, int] = _modalities(usage, "candidates_tokens_details")
    if "thoughts_token_count" in usage:
        output_details["reasoning"] = thoughts
    fields: dict[str, Any] = {
        "input_tokens": inputs,
        "output_tokens": outputs,
        "total_tokens": total,
    }
    if input_details:
        fields["input_token_details"] = InputTokenDetails(**input_details)
    if output_details:
        fields["output_token_details"] = OutputTokenDetails(**output_details)
    return Usage(**fields)


def _canonical(value: Any) -> bytes:
    """Stable bytes of plain JSON data, for digests."""
    text = json.dumps(
        value, sort_keys=True, ensure_ascii=False, default=repr, separators=(",", ":")
    )
    return text.encode("utf-8", "surrogatepass")


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


class _Scope:
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
            isinstance(self.response_id, str) and _SAFE_ID.fullmatch(self.response_id)
        )

    def feed(self, part: Any) -> None:
        """Count one whole part (a stream's text parts go through :meth:`feed_text`)."""
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            meta = {key: value for key, value in part.items() if key != "text"}
            self.feed_text(meta, hashlib.sha256(_utf8(part["text"])).digest())
        else:
            self._hash.update(b"P" + _canonical(part) + b"\x00")

    def feed_text(self, meta: dict[str, Any], text_digest: bytes) -> None:
        """Count one text part by its metadata and the SHA-256 of its text."""
        self._hash.update(b"T" + _canonical(meta) + b"\x00" + text_digest)

    def text(self, position: int) -> str:
        """The scope, fixed by the first part (at ``position``) that asks for it."""
        if self.value is None:
            response_id = self.response_id
            if isinstance(response_id, str) and _SAFE_ID.fullmatch(response_id):
                self.value = response_id
            else:
                if self._parts is not None:
                    for part in self._parts[self._fed : position + 1]:
                        self.feed(part)
                    self._fed = max(self._fed, position + 1)
                head = _canonical(response_id) + b"\x00" + self._hash.digest()
                self.value = hashlib.sha256(head).hexdigest()[:16]
        return self.value


def _scoped(scope: _Scope | str, position: int) -> str:
    return scope if isinstance(scope, str) else scope.text(position)


@decoder(NAME)
@_guarded
def decode_response(payload: Any) -> AssistantMessage:
    """A ``GenerateContentResponse`` as the assistant message it carries.

    Args:
        payload: the response as REST JSON (camelCase), snake_case data, JSON text,
            or a ``google.genai.types.GenerateContentResponse``.

    Returns:
        The first candidate's content (other candidates, safety ratings, citation
        and grounding metadata, prompt feedback and the raw usage go to
        ``response_metadata["gemini"]``), with normalized finish reason and usage.
        Every tool call's ``index`` is its part position (what
        :func:`decode_stream` numbers calls by). Appended to a history, it encodes
        back to exactly the candidate's content.

    Raises:
        ConversionError: for a payload that is not a Gemini response.
    """
    data = _object(_load(payload), "a GenerateContentResponse", None)
    metadata: dict[str, Any] = {
        key: value
        for key, value in data.items()
        if key not in ("candidates", "model_version", "response_id") and key not in _SDK_ONLY
    }
    fields: dict[str, Any] = {"provider": NAME}
    model = data.get("model_version")
    if isinstance(model, str) and model:
        fields["model"] = model
    response_id = data.get("response_id")
    if isinstance(response_id, str) and response_id:
        fields["response_id"] = response_id
    candidates = _list(data.get("candidates", []), "candidates")
    raw_reason: str | None = None
    if candidates:
        candidate = _object(candidates[0], "a candidate", None)
        content = _object(candidate.get("content", {}), "candidate content", None)
        if content.get("role", "model") != "model":
            raise _error(f"a candidate's content has role {content.get('role')!r}")
        parts = _list(content.get("parts", []), "candidate parts")
        scope = _Scope(data.get("response_id"), parts)
        fields.update(_Decoder().model_turn(parts, 0, scope, positions=True))
        reason = candidate.get("finish_reason")
        if reason is not None:
            raw_reason = _text_field(reason, "finish_reason", None, None)
            normalized = _FINISH_REASONS.get(raw_reason, "other")
            if normalized == "stop" and fields.get("tool_calls"):
                normalized = "tool_calls"
            fields["finish_reason"] = normalized
        metadata.update(
            (key, value)
            for key, value in candidate.items()
            if key not in ("content", "finish_reason")
        )
        if len(candidates) > 1:
            metadata["candidates"] = candidates[1:]
    else:
        feedback = data.get("prompt_feedback")
        if isinstance(feedback, dict) and isinstance(feedback.get("block_reason"), str):
            raw_reason = feedback["block_reason"]
            fields["finish_reason"] = "content_filter"
    if raw_reason is not None:
        fields["raw_finish_reason"] = raw_reason
    usage = data.get("usage_metadata")
    if usage is not None:
        fields["usage"] = _usage(_object(usage, "usage_metadata", None))
    if metadata:
        fields["response_metadata"] = {NAME: metadata}
    return AssistantMessage(**fields)


# ------------------------------------------------------------------------ streaming


def _merge_into(into: dict[str, Any], update: Mapping[str, Any]) -> None:
    """Deep-merge plain JSON objects: objects key by key, any other value replaced."""
    for key, value in update.items():
        current = into.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            _merge_into(current, value)
        else:
            into[key] = _copied(value)


def _copied(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _arguments_text(arguments: dict[str, Any]) -> str:
    try:
        return json.dumps(arguments, ensure_ascii=False)
    except (TypeError, ValueError) as error:
        raise _error(f"function_call.args is not JSON data: {error}") from None


def _stream_error(error: Any) -> ConversionError:
    """The exception for an ``{"error": {...}}`` event (an error in mid-stream)."""
    if isinstance(error, dict):
        message = error.get("message")
        text = message if isinstance(message, str) and message else json.dumps(error, default=repr)
        label = " ".join(str(error[key]) for key in ("code", "status") if key in error)
        where = f" ({label})" if label else ""
        return ConversionError(f"the stream reported an error{where}: {text}", provider=NAME)
    return ConversionError(f"the stream reported an error: {error!r}", provider=NAME)


_RESPONSE_FIELDS: Final = frozenset(
    {"candidates", "usage_metadata", "prompt_feedback", "model_version", "response_id"}
)


class _Run:
    """The text part being streamed: its position, its kind and how its deltas go out."""

    __slots__ = ("digest", "kind", "meta", "open", "position", "string")

    def __init__(
        self, position: int, meta: dict[str, Any], kind: dict[str, Any], *, string: bool
    ) -> None:
        self.position = position
        self.meta = meta  # the part's fields other than text (thought, signature ...)
        self.kind = kind  # the same without the signature: what deltas must share to join
        self.string = string  # deltas go out as string content, not blocks
        self.open = "thought_signature" not in meta  # a signature ends the part
        self.digest: Any = None  # SHA-256 of the text, for a synthesized-id scope


class _Stream:
    """The state of one stream. Each event costs time in its own size only."""

    def __init__(self) -> None:
        self.decoder = _Decoder()
        self.scope = _Scope()
        self.position = 0  # parts of the assembled response so far
        self.run: _Run | None = None
        self.string_open = False  # the assembled string content would take more text
        self.has_calls = False
        self.candidates = False
        self.blocked = False
        self.finished = False
        self.raw_reason: str | None = None
        self.reason: str | None = None  # the normalized finish reason last sent
        self.model: str | None = None
        self.response_id: str | None = None
        self.usage: dict[str, Any] = {}  # usage_metadata, merged
        self.citations: list[Any] = []
        self.cited: set[bytes] = set()

    def event(self, payload: Any) -> list[dict[str, Any]]:
        """The chunks of one event, as keyword arguments of AssistantMessageChunk."""
        data = _load(payload)
        if not isinstance(data, dict):
            raise _error(
                "a stream event must be a GenerateContentResponse object, "
                f"not {type(data).__name__}"
            )
        if "error" in data:
            raise _stream_error(data["error"])
        if isinstance(data.get("type"), str):  # an SSE event name (Gemini sends none)
            del data["type"]
            if not _RESPONSE_FIELDS.intersection(data):
                return []  # not a response: a ping, an event kind this codec does not know
        first: dict[str, Any] = {}
        last: dict[str, Any] = {}
        model = data.get("model_version")
        if self.model is None and isinstance(model, str) and model:
            self.model = first["model"] = model
        response_id = data.get("response_id")
        if (
            self.response_id is None
            and self.scope.value is None  # an id after a synthesized scope: left out
            and isinstance(response_id, str)
            and response_id
        ):
            self.response_id = first["response_id"] = self.scope.response_id = response_id
        metadata: dict[str, Any] = {
            key: value
            for key, value in data.items()
            if key not in ("candidates", "model_version", "response_id") and key not in _SDK_ONLY
        }
        pieces: list[str | ContentBlock] = []
        calls: list[ToolCallChunk] = []
        reason_here = False
        candidate = self.candidate(data)
        if candidate is not None:
            content = _object(candidate.get("content", {}), "candidate content", None)
            if content.get("role", "model") != "model":
                raise _error(f"a candidate's content has role {content.get('role')!r}")
            for part in _list(content.get("parts", []), "candidate parts"):
                self.part(part, pieces, calls)
            reason = candidate.get("finish_reason")
            if reason is not None:
                self.raw_reason = _text_field(reason, "finish_reason", None, None)
                self.finished = reason_here = True
            metadata.update(
                (key, value)
                for key, value in candidate.items()
                if key not in ("content", "finish_reason")
            )
            cited = candidate.get("citation_metadata")
            if isinstance(cited, dict) and isinstance(cited.get("citations"), list):
                for citation in cited["citations"]:
                    key = _canonical(citation)
                    if key not in self.cited:
                        self.cited.add(key)
                        self.citations.append(citation)
                metadata["citation_metadata"] = {**cited, "citations": list(self.citations)}
        elif not self.candidates:
            feedback = data.get("prompt_feedback")
            if isinstance(feedback, dict) and isinstance(feedback.get("block_reason"), str):
                self.blocked = self.finished = True
                last["finish_reason"] = "content_filter"
                last["raw_finish_reason"] = feedback["block_reason"]
        if self.raw_reason is not None and (reason_here or calls):
            normalized = _FINISH_REASONS.get(self.raw_reason, "other")
            if normalized == "stop" and self.has_calls:
                normalized = "tool_calls"
            if reason_here or normalized != self.reason:
                self.reason = last["finish_reason"] = normalized
                last["raw_finish_reason"] = self.raw_reason
        usage = data.get("usage_metadata")
        if usage is not None:
            _merge_into(self.usage, _object(usage, "usage_metadata", None))
            last["usage"] = _usage(self.usage)
            last["usage_mode"] = "cumulative"
        if calls:
            last["tool_call_chunks"] = calls
        if metadata:
            last["response_metadata"] = {NAME: metadata}
        return _group(pieces, first, last)

    def candidate(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """The event's first candidate (``index`` 0); other candidates are not assembled."""
        for item in _list(data.get("candidates", []), "candidates"):
            candidate = _object(item, "a candidate", None)
            if candidate.get("index", 0) == 0:
                if self.blocked:
                    raise _error("a candidate after the prompt was blocked")
                self.candidates = True
                return candidate
        return None

    def part(self, part: Any, pieces: list[str | ContentBlock], calls: list[ToolCallChunk]) -> None:
        """One streamed part: a text delta, or a whole part of any other kind."""
        position = self.position
        key, meta = _split(part, 0, position)
        if key == "text":
            self.text(part, meta, pieces)
            return
        self.close_run()
        self.position += 1
        if self.scope.hashing:
            self.scope.feed(part)
        if key == "function_call":
            call = self.decoder.call(part[key], meta, 0, position, self.scope)
            fragment: dict[str, Any] = {
                "index": position,
                "id": call["id"],
                "name": call["name"],
                "arguments": _arguments_text(call["arguments"]),
            }
            if "extras" in call:
                fragment["extras"] = call["extras"]
            calls.append(ToolCallChunk(**fragment))
            self.has_calls = True
        else:
            pieces.append(self.block(part, key, meta, position))

    def text(
        self, part: dict[str, Any], meta: dict[str, Any], pieces: list[str | ContentBlock]
    ) -> None:
        """A text delta: it joins the open text part of its kind, or starts a part.

        A delta carrying a ``thought_signature`` ends its part (the signature arrives
        on the last delta of a part, often with empty text); a later delta starts a
        new one.
        """
        run = self.run
        position = run.position if run is not None and run.open else self.position
        text = _text_field(part["text"], "text", 0, position)
        signed = "thought_signature" in meta
        if not text and not signed:
            return  # an empty delta carries nothing
        kind = {key: value for key, value in meta.items() if key != "thought_signature"}
        if run is not None and run.open and run.kind == kind:
            if not signed:
                if run.string:
                    pieces.append(text)
                elif kind.get("thought") is True:
                    pieces.append(ReasoningBlock(text=text, index=run.position))
                else:
                    pieces.append(TextBlock(text=text, index=run.position))
            else:
                run.meta = meta
                run.open = False
                block = self.decoder.block(part, "text", meta, 0, run.position, self.scope)
                if run.string:  # a text block without index continues the string deltas
                    pieces.append(block)
                else:
                    pieces.append(block.model_copy(update={"index": run.position}))
        else:
            self.close_run()
            position = self.position
            self.position += 1
            string = not meta and not self.string_open
            run = self.run = _Run(position, meta, kind, string=string)
            if self.scope.hashing:
                run.digest = hashlib.sha256()
            if string:
                self.string_open = True
                pieces.append(text)
            else:
                pieces.append(self.block(part, "text", meta, position))
        if run.digest is not None:
            run.digest.update(_utf8(text))

    def block(
        self, part: dict[str, Any], key: str | None, meta: dict[str, Any], position: int
    ) -> Any:
        """The block of a part (a text part's first delta), carrying its position."""
        self.string_open = False
        block = self.decoder.block(part, key, meta, 0, position, self.scope)
        return block.model_copy(update={"index": position})

    def close_run(self) -> None:
        """End the text part being streamed (a later text delta starts a new part)."""
        run = self.run
        if run is not None:
            if run.digest is not None and self.scope.hashing:
                self.scope.feed_text(run.meta, run.digest.digest())
            self.run = None


def _group(
    pieces: list[str | ContentBlock], first: dict[str, Any], last: dict[str, Any]
) -> list[dict[str, Any]]:
    """An event's content as chunks: string deltas and blocks cannot share one."""
    chunks: list[dict[str, Any]] = []
    strings: list[str] = []
    blocks: list[ContentBlock] = []
    for piece in pieces:
        if isinstance(piece, str):
            if blocks:
                chunks.append({"content": blocks})
                blocks = []
            strings.append(piece)
        else:
            if strings:
                chunks.append({"content": "".join(strings)})
                strings = []
            blocks.append(piece)
    if strings:
        chunks.append({"content": "".join(strings)})
    if blocks:
        chunks.append({"content": blocks})
    if not chunks:
        chunks.append({})
    for chunk in chunks:
        chunk["provider"] = NAME
    chunks[0].update(first)
    chunks[-1].update(last)
    return chunks


def decode_stream(events: Iterable[Any]) -> Iterator[AssistantMessageChunk]:
    """The chunks of a ``streamGenerateContent`` stream, as its events arrive.

    Args:
        events: the stream's ``GenerateContentResponse`` events: REST JSON objects
            (camelCase), snake_case data, JSON text, google-genai
            ``GenerateContentResponse`` objects (as ``generate_content_stream``
            yields them), or the raw SSE body of ``?alt=sse`` as bytes or text
            pieces cut anywhere.

    Yields:
        ``AssistantMessageChunk``s (one or more per event, lazily). Assembled with
        :class:`~chatschema.ChunkAccumulator`, :func:`~chatschema.merge_chunks` or
        ``+``, they give :func:`decode_response` of the complete response the stream
        stands for, the parts a non-streamed response has
        (``docs/providers/gemini.md``, *Streaming*): text deltas of the same kind
        (same ``thought`` flag and other part fields) form one part; a delta
        carrying a ``thought_signature`` (empty text included) is the last delta of
        its part, which keeps the signature; every other part is whole. Plain answer
        text goes out as string content (a signed delta ending it as a text block
        without ``index``), everything else as blocks whose ``index`` is the part's
        position; each function call as one fragment, ``index`` = its position,
        arguments as JSON text. Usage is cumulative; when a finish reason (or a
        blocked prompt) was seen, the final chunk is ``chunk_position="last"``.

    Raises:
        ConversionError: for an ``{"error": ...}`` event (naming its message) and
            for events that are not Gemini responses. Named events (an SSE
            ``event:`` line, a ``type``) that carry no response field, such as
            pings, are ignored.
    """
    state = _Stream()
    held: dict[str, Any] | None = None
    try:
        for event in _sse.events(events, provider=NAME):
            try:
                produced = state.event(event)
            except ConversionError:
                if held is not None:  # what arrived before the error, without "last"
                    yield AssistantMessageChunk(**held)
                raise
            for fields in produced:
                if held is not None:
                    yield AssistantMessageChunk(**held)
                    held = None
                if state.finished:
                    held = fields  # the last chunk, unless more arrive
                else:
                    yield AssistantMessageChunk(**fields)
        if held is not None:
            held["chunk_position"] = "last"
            yield AssistantMessageChunk(**held)
    except PydanticValidationError as error:
        raise _invalid(error) from None
    except RecursionError:
        raise ConversionError("input is nested too deeply", provider=NAME) from None


# =========================================================================== encode


def _merged(
    blocks: Sequence[ContentBlock], calls: Sequence[ToolCall]
) -> list[tuple[int, ContentBlock | ToolCall]]:
    """Blocks and calls in wire order: calls at their ``index``, the rest after.

    Each item keeps its position in its own list (for error messages).
    """
    placed = sorted(
        ((call.index, number) for number, call in enumerate(calls) if call.index is not None),
    )
    out: list[tuple[int, ContentBlock | ToolCall]] = []
    next_call = 0
    for number, block in enumerate(blocks):
        while next_call < len(placed) and placed[next_call][0] <= len(out):
            out.append((placed[next_call][1], calls[placed[next_call][1]]))
            next_call += 1
        out.append((number, block))
    for _, number in placed[next_call:]:
        out.append((number, calls[number]))
    out.extend((number, call) for number, call in enumerate(calls) if call.index is None)
    return out


class _Encoder:
    """Writes a conversation as a Gemini request, in one pass.

    With ``problems`` given (the check), content the policy would refuse is listed
    there instead of raising, so that every problem is reported at once.
    """

    def __init__(self, options: Options, problems: list[Problem] | None) -> None:
        self.options = options
        self.problems = problems
        self.calls: dict[str, tuple[str, bool, int]] = {}  # id -> (name, id sent, content)
        self.content = 0  # index of the content being written
        self.string = options.content_format == "string"
        self.dropped = 0  # content left out by unsupported="drop" so far

    def unsupported(
        self, what: str, message: int, block: int | None, *where: str | int
    ) -> dict[str, Any] | None:
        """Apply the policy; the placeholder comes back as a text part."""
        if self.problems is not None and self.options.unsupported == "error":
            rest = ("content", block) if block is not None else where
            self.problems.append(
                Problem(
                    pointer(message, *rest),
                    "unsupported_content",
                    f"{what} cannot be sent to {NAME}",
                )
            )
            return None
        text = self.options.unsupported_content(what, message_index=message, block_index=block)
        if text is None:
            self.dropped += 1
            return None
        return {"text": text}

    # ---------------------------------------------------------------- messages

    def run(self, conversation: Conversation) -> dict[str, Any]:
        messages = conversation.messages
        payload: dict[str, Any] = {}
        system: dict[str, Any] | None = None
        start = 0
        while start < len(messages) and isinstance(messages[start], SystemMessage):
            message = messages[start]
            if system is None:
                system = {"parts": []}
                role = extras_of(message, NAME).get("role")
                if isinstance(role, str):
                    system["role"] = role
            system["parts"].extend(self.text_parts(message, start))
            start += 1
        if system is not None and not system["parts"] and self.dropped:
            system = None  # drops left the instruction without parts: not sent
        contents: list[dict[str, Any]] = []
        empty: list[tuple[int, int]] = []  # (message, content) of contents begun empty
        previous: Message | None = None
        for index in range(start, len(messages)):
            message = messages[index]
            role = "model" if isinstance(message, AssistantMessage) else "user"
            default = isinstance(message, ToolMessage) and isinstance(previous, ToolMessage)
            join = extras_of(message, NAME).get("join", default) is True
            join = join and bool(contents) and contents[-1]["role"] == role
            self.content = len(contents) - 1 if join else len(contents)
            reported = len(self.problems) if self.problems is not None else 0
            dropped = self.dropped
            if isinstance(message, AssistantMessage):
                parts = self.model_parts(message, index)
            elif isinstance(message, ToolMessage):
                parts = self.tool_parts(message, index)
            elif isinstance(message, UserMessage):
                parts = self.parts(message.content, index)
            else:
                parts = self.text_parts(message, index)
            if join:
                contents[-1]["parts"].extend(parts)
            elif not parts and self.dropped > dropped:
                continue  # drops left it without parts: not sent (Gemini rejects it)
            else:
                content_role = extras_of(message, NAME).get("role", role)
                contents.append({"role": content_role, "parts": parts})
                if not parts and (self.problems is None or len(self.problems) == reported):
                    empty.append((index, len(contents) - 1))  # (refused content: reported)
            previous = message
        if self.problems is not None:
            self.problems.extend(
                Problem(
                    pointer(index, "content"),
                    "empty_content",
                    "Gemini rejects a content without parts",
                )
                for index, content in empty
                if not contents[content]["parts"]
            )
            if not contents:
                self.problems.append(
                    Problem(
                        "/messages",
                        "no_contents",
                        "Gemini needs at least one user or model message",
                    )
                )
        given = conversation.tools or []
        if application_tools(given) and not self.options.native_tools:
            if system is None:
                system = {"parts": []}
            system["parts"].append({"text": tools_as_text(given)})
        if system is not None:
            payload["system_instruction"] = system
        payload["contents"] = contents
        if self.options.native_tools:
            if self.problems is None:
                tools = sendable_tools(given, self.options)
            else:  # check: reported by _run
                tools = [tool for tool in given if not is_foreign_tool(tool, NAME)]
            if tools:
                payload["tools"] = _tool_objects(tools)
            if conversation.tool_choice is not None and (tools or not given):
                # a tool choice goes only with tools, or where none were given
                payload["tool_config"] = _encode_tool_choice(conversation.tool_choice)
        return payload

    def text_parts(self, message: Message, index: int) -> list[dict[str, Any]]:
        """System instructions: text only."""
        parts: list[dict[str, Any]] = []
        texts: list[str] = []
        for number, block in enumerate(content_blocks(message.content)):
            if block.type == "text":
                if self.string:
                    texts.append(block.text)
                else:
                    parts.append(self.meta({"text": block.text}, block))
                continue
            part = self.unsupported(f"{block.type} content in a system message", index, number)
            if part is None:
                continue
            if self.string:
                texts.append(part["text"])
            else:
                parts.append(part)
        if self.string and texts:
            parts.append({"text": "\n".join(texts)})
        return parts

    def parts(self, content: str | Sequence[ContentBlock], index: int) -> list[dict[str, Any]]:
        """The parts of user content (and of a model turn without tool calls)."""
        if self.string:
            return self.string_parts(content_blocks(content), (), index)
        out: list[dict[str, Any]] = []
        for number, block in enumerate(content_blocks(content)):
            part = self.block(block, index, number)
            if part is not None:
                out.append(part)
        return out

    def string_parts(
        self, blocks: Sequence[ContentBlock], calls: Sequence[ToolCall], index: int
    ) -> list[dict[str, Any]]:
        """``content_format="string"``: one text part (after replayed thoughts)."""
        thoughts: list[dict[str, Any]] = []
        texts: list[str] = []
        for number, block in enumerate(blocks):
            if block.type in ("text", "refusal"):
                texts.append(block.text)
                continue
            if block.type == "reasoning":
                part = self.block(block, index, number)
                if part is None:
                    continue
                if part.get("thought") is True:
                    thoughts.append(part)  # replayed Gemini thoughts stay their own parts
                else:
                    texts.append(part["text"])  # reasoning="text": foreign reasoning as text
                continue
            placeholder = self.unsupported(
                f"{block.type} content with content_format='string'", index, number
            )
            if placeholder is not None:
                texts.append(placeholder["text"])
        out = thoughts
        if texts:
            out.append({"text": "\n".join(texts)})
        out.extend(self.call(call, index) for call in calls)
        return out

    def model_parts(self, message: AssistantMessage, index: int) -> list[dict[str, Any]]:
        blocks = content_blocks(message.content)
        if self.string:
            out = self.string_parts(blocks, message.tool_calls, index)
        else:
            out = []
            for number, item in _merged(blocks, message.tool_calls):
                if isinstance(item, ToolCall):
                    out.append(self.call(item, index))
                else:
                    part = self.block(item, index, number)
                    if part is not None:
                        out.append(part)
        for number, invalid in enumerate(message.invalid_tool_calls):
            what = f"invalid tool call {invalid.name!r}" if invalid.name else "invalid tool call"
            part = self.unsupported(what, index, None, "invalid_tool_calls", number)
            if part is not None:
                out.append(part)  # after the content: an invalid call has no position
        return out

    def call(self, call: ToolCall, index: int) -> dict[str, Any]:
        if not self.options.native_tools:
            return {"text": tool_call_as_text(call)}
        extras = extras_of(call, NAME)
        function: dict[str, Any] = {"name": call.name, "args": call.arguments}
        if extras.get("args_absent") is True and not call.arguments:
            del function["args"]
        sends = extras.get("synthesized_id") is not True
        wire_id = extras.get("id")
        if isinstance(wire_id, str):
            function["id"] = wire_id
        elif sends:
            function["id"] = call.id
        more = extras.get("function_call")
        if isinstance(more, dict):
            for key, value in more.items():
                function.setdefault(key, value)
        self.calls[call.id] = (call.name, sends, self.content)
        return self.meta({"function_call": function}, call)

    def tool_parts(self, message: ToolMessage, index: int) -> list[dict[str, Any]]:
        texts: list[str] = []
        media: list[dict[str, Any]] = []
        for number, block in enumerate(content_blocks(message.content)):
            if block.type == "text":
                texts.append(block.text)
                continue
            if block.type in _BLOCK_TYPES and not self.string:
                part = self.media(block, index, number)
            elif block.type == "non_standard" and _response_part(block.value):
                part = copy.deepcopy(block.value)  # a function-response part kept as it came
            else:
                part = self.unsupported(f"{block.type} content in a tool result", index, number)
            if part is None:
                continue
            if "text" in part:
                texts.append(part["text"])
            else:
                media.append(part)
        text = "\n".join(texts)
        if not self.options.native_tools:
            return [{"text": tool_result_as_text(message, text)}, *media]
        extras = extras_of(message, NAME)
        known = self.calls.get(message.tool_call_id)
        if self.problems is not None and known is not None and known[2] + 1 != self.content:
            self.problems.append(
                Problem(
                    pointer(index, "tool_call_id"),
                    "not_adjacent",
                    f"the result for {message.tool_call_id!r} must be in the user turn right "
                    "after the function call turn (Gemini rejects it otherwise)",
                )
            )
        name = message.name or (known[0] if known is not None else None)
        if name is None:
            if self.problems is not None:
                name = ""  # an orphan result: reported by the pairing check
            else:
                raise _error(
                    f"tool result {message.tool_call_id!r} answers no earlier tool call and "
                    "has no name (Gemini needs the function name)",
                    index,
                )
        response: dict[str, Any] = {"name": name}
        wire_id = extras.get("id")
        if isinstance(wire_id, str):
            response["id"] = wire_id
        elif not (
            extras.get("id_absent") is True
            or extras.get("synthesized_id") is True
            or (known is not None and not known[1])
        ):
            response["id"] = message.tool_call_id
        raw = extras.get("response", _MISSING)
        if raw is not _MISSING and _tool_output(raw) == (text, message.status):
            if raw is not None:
                response["response"] = raw
        else:
            response["response"] = _tool_response(text, message.status)
        if media:
            response["parts"] = media
        more = extras.get("function_response")
        if isinstance(more, dict):
            for key, value in more.items():
                response.setdefault(key, value)
        result: dict[str, Any] = {"function_response": response}
        meta = extras.get("part")
        if isinstance(meta, dict):
            for key, value in meta.items():
                if key not in _DATA_FIELDS:
                    result.setdefault(key, value)
        return [result]

    # ------------------------------------------------------------------ blocks

    def meta(self, part: dict[str, Any], model: Any) -> dict[str, Any]:
        """Add the Part metadata kept in a block's or call's ``extras["gemini"]``."""
        for key, value in extras_of(model, NAME).items():
            if key in _CONTROL_KEYS or key in _DATA_FIELDS or key in part:
                continue
            if key == "thought_signature" and self.options.reasoning == "drop":
                continue
            part[key] = value
        return part

    def block(self, block: ContentBlock, index: int, number: int) -> dict[str, Any] | None:
        """The part for one block; None when it is left out."""
        drop = self.options.reasoning == "drop"
        if drop and extras_of(block, NAME).get("thought") is True:
            return None
        if block.type in ("text", "refusal"):
            if not block.text and not extras_of(block, NAME):
                return None  # says nothing: the API refuses empty text (as content "")
            return self.meta({"text": block.text}, block)
        if block.type == "reasoning":
            text = block.text if block.text is not None else "\n".join(block.summary or [])
            if self.options.replays(block.provider):
                part: dict[str, Any] = {"text": text, "thought": True}
                if block.signature is not None:
                    part["thought_signature"] = block.signature
                return self.meta(part, block)
            if self.options.reasoning == "text" and text:
                return {"text": text}
            return None  # another provider's reasoning: Gemini cannot verify it
        if block.type in _BLOCK_TYPES:
            return self.media(block, index, number)
        if block.type == "server_tool_call":
            arguments = block.arguments
            if (
                block.name == "code_execution"
                and isinstance(arguments, dict)
                and isinstance(arguments.get("code"), str)
                and set(arguments) <= {"code", "language"}
            ):
                code = dict(arguments)
                if (
                    block.id is not None
                    and extras_of(block, NAME).get("synthesized_id") is not True
                ):
                    code["id"] = block.id
                return self.meta({"executable_code": code}, block)
            return self.unsupported(f"server tool call {block.name!r}", index, number)
        if block.type == "server_tool_result":
            output = block.output
            if isinstance(output, dict) and output and set(output) <= {"outcome", "output"}:
                result = dict(output)
                if extras_of(block, NAME).get("synthesized_id") is not True:
                    result["id"] = block.tool_call_id
                return self.meta({"code_execution_result": result}, block)
            return self.unsupported("server tool result", index, number)
        if block.type == "non_standard":
            value = block.value
            if "type" not in value:  # a Gemini part kept as it came
                part = dict(value)
                if drop:
                    part.pop("thought_signature", None)
                return part
            return self.unsupported(f"non-standard block of type {value['type']!r}", index, number)
        return self.unsupported(f"{block.type} content", index, number)  # pragma: no cover

    def media(self, block: Any, index: int, number: int) -> dict[str, Any] | None:
        """Image, audio, video, file and text-plain blocks as inline or file data."""
        if block.type == "image" and not self.options.vision:
            return self.unsupported("image (vision is off)", index, number)
        if self.string:
            return self.unsupported(
                f"{block.type} content with content_format='string'", index, number
            )
        extras = extras_of(block, NAME)
        data: dict[str, Any]
        key = "inline_data"
        if block.base64 is not None:
            data = {"mime_type": block.mime_type, "data": block.base64}
        elif block.type == "text-plain" and block.text is not None:
            encoded = base64.b64encode(block.text.encode("utf-8")).decode("ascii")
            data = {"mime_type": block.mime_type or "text/plain", "data": encoded}
        else:
            inline = parse_data_url(block.url) if block.url is not None else None
            if inline is not None:
                data = {"mime_type": inline[0], "data": inline[1]}
            else:
                uri = extras.get("file_uri")
                if not isinstance(uri, str):
                    uri = _file_uri(block.url, block.file_id)
                if uri is None:
                    return self.unsupported(
                        f"file id {block.file_id!r} (not a Gemini Files API name)",
                        index,
                        number,
                    )
                key = "file_data"
                data = {"file_uri": uri}
                if block.mime_type is not None:
                    data["mime_type"] = block.mime_type
        more = extras.get(key)
        if isinstance(more, dict):
            for name, value in more.items():
                data.setdefault(name, value)
        if (
            self.problems is not None
            and key == "inline_data"
            and str(data["mime_type"]).lower() == "application/pdf"
            and len(data["data"]) * 3 // 4 > _PDF_INLINE_LIMIT
        ):
            self.problems.append(
                Problem(
                    pointer(index, "content", number),
                    "size_limit",
                    "inline PDFs are limited to 50 MB (use the Files API or a URL)",
                )
            )
        return self.meta({key: data}, block)


def _tool_objects(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Gemini ``Tool`` objects: function declarations and hosted tools.

    Consecutive definitions with the same ``extras["gemini"]["tool"]`` share one
    object; without it, declarations share one object and each hosted tool
    (``provider="gemini"``) has its own. A hosted tool is the fields in its
    ``extras["gemini"]`` (``{"google_search": {}}``), or ``{name: {}}`` without them.
    """
    objects: list[tuple[Any, dict[str, Any]]] = []  # (group, Tool object)
    for tool in tools:
        extras = extras_of(tool, NAME)
        if tool.provider == NAME:
            group = extras.get("tool")
            fields = {key: value for key, value in extras.items() if key != "tool"}
            fields = fields or {tool.name: {}}
            if (
                group is not None
                and objects
                and objects[-1][0] == group
                and not fields.keys() & objects[-1][1].keys()
            ):
                objects[-1][1].update(fields)
            else:
                objects.append((group, dict(fields)))
            continue
        declaration: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            declaration["description"] = tool.description
        if not (extras.get("parameters_absent") is True and not tool.parameters):
            key = "parameters" if extras.get("schema_key") == "parameters" else None
            declaration[key or "parameters_json_schema"] = tool.parameters
        for name, value in extras.items():
            if name not in ("tool", "schema_key", "parameters_absent"):
                declaration.setdefault(name, value)
        group = extras.get("tool", 0)
        if objects and objects[-1][0] == group:
            objects[-1][1].setdefault("function_declarations", []).append(declaration)
        else:
            objects.append((group, {"function_declarations": [declaration]}))
    return [tool for _, tool in objects]


def _encode_tool_choice(choice: ToolChoice) -> dict[str, Any]:
    if isinstance(choice, NamedToolChoice):
        config: dict[str, Any] = {"mode": "ANY", "allowed_function_names": [choice.name]}
    else:
        config = {"mode": _MODES[choice.type]}
    return {"function_calling_config": config}


def _message_index(problem: Problem) -> int | None:
    if problem.pointer.startswith("/messages/"):
        head = problem.pointer[len("/messages/") :].split("/", 1)[0]
        if head.isdigit():
            return int(head)
    return None


def _problem_order(problem: Problem) -> tuple[bool, int]:
    index = _message_index(problem)
    return index is None, index or 0


def _turn_problems(messages: Sequence[Message]) -> list[Problem]:
    """A model turn with function calls must follow a user turn or function responses."""
    problems: list[Problem] = []
    previous: str | None = None
    leading = True
    for index, message in enumerate(messages):
        if leading and isinstance(message, SystemMessage):
            continue
        leading = False
        if isinstance(message, AssistantMessage):
            if message.tool_calls and previous != "user":
                problems.append(
                    Problem(
                        pointer(index, "tool_calls", 0),
                        "turn_order",
                        "a model turn with function calls must come right after a user "
                        "turn or function responses (Gemini rejects it otherwise)",
                    )
                )
            previous = "model"
        else:
            previous = "user"
    return problems


def _tool_problems(tools: Sequence[ToolDefinition]) -> list[Problem]:
    return [
        Problem(
            f"/tools/{number}/name",
            "pattern",
            f"Gemini function names start with a letter or underscore and hold only "
            f"letters, digits, '_', '.', ':' and '-' (at most 128), not {tool.name!r}",
        )
        for number, tool in enumerate(tools)
        if tool.provider is None and not _FUNCTION_NAME.fullmatch(tool.name)
    ]


def _run(
    messages: Any, options: dict[str, Any], collect: bool
) -> tuple[dict[str, Any], list[Problem]]:
    """Encode, collecting every problem unless neither ``collect`` nor ``check`` asks."""
    resolved = Options.resolve(NAME, options)
    conversation = to_conversation(messages)
    if not (collect or resolved.check):
        return _Encoder(resolved, None).run(conversation), []
    problems: list[Problem] = []
    if resolved.native_tools:
        # adjacency is checked per content by the encoder: a user text may share the
        # user turn with the function responses
        problems += tool_pairing_problems(conversation.messages, adjacent=False, provider=NAME)
        problems += _turn_problems(conversation.messages)
        problems += foreign_tool_problems(conversation.tools, resolved)
        problems += _tool_problems(conversation.tools or [])
    encoder = _Encoder(resolved, problems)
    payload = encoder.run(conversation)
    problems.sort(key=_problem_order)
    return payload, problems


@_guarded
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """A conversation as the conversation part of a Gemini request.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`~chatschema.providers._common.EncodeOptions`.
            ``prompt_cache``, ``system_role`` and ``reasoning_content`` mean nothing
            to Gemini and are ignored; ``content_format="parts"`` is the default
            form.

    Returns:
        ``{"system_instruction"?, "contents", "tools"?, "tool_config"?}`` with
        google-genai's snake_case field names, ready for
        ``client.models.generate_content(model=..., contents=..., config=...)``
        or a REST body.

    Raises:
        ConversionError: with every structural problem when ``check`` is on.
        UnsupportedContentError: for content Gemini cannot carry (policy ``"error"``,
            ``check=False``).
        OptionError: for unknown options or bad values.
    """
    payload, problems = _run(messages, dict(options), collect=False)
    if problems:
        raise structural_error(problems, NAME)
    return payload


@_guarded
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every structural problem that would make Gemini reject the conversation.

    Unanswered calls and orphan results (results must come in the user turn right
    after the calls), function-call turns that do not follow a user turn, empty
    contents, content the format cannot carry when the policy is ``"error"``
    (images without vision, other providers' server tools, foreign file ids),
    invalid function names and inline PDFs over 50 MB.
    """
    _, problems = _run(messages, dict(options), collect=True)
    return problems
