"""Content parts and annotations, read the same in histories, responses and streams.

Also :data:`READ`, the reader every decoder of this format fails through, and the
rule for the wire form an assistant's content takes (:func:`default_shape`), which
the encoder and both decoders share.
"""

from __future__ import annotations

import base64
import binascii
import mimetypes
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, Final

import pydantic
from chatschema_models.content import (
    AudioBlock,
    Citation,
    ContentBlock,
    FileBlock,
    ImageBlock,
    NonStandardAnnotation,
    NonStandardBlock,
    ReasoningBlock,
    RefusalBlock,
    TextBlock,
)
from pydantic import BaseModel

from chatschema._json import copy_json
from chatschema.errors import ConversionError
from chatschema.providers._common import Reader, describe, extras_of, parse_data_url, set_extras
from chatschema.providers._openai import CITATION_FIELDS, cache_control
from chatschema.providers.openai_chat.wire import (
    AUDIO_MIME,
    AUDIO_SIGNATURES,
    IMAGE_DETAILS,
    NAME,
    UNKNOWN_AUDIO,
    Shape,
)

__all__ = [
    "READ",
    "PythonKey",
    "as_field",
    "audio_block",
    "audio_mime",
    "copy_at",
    "decode_annotation",
    "decode_part",
    "default_shape",
    "is_audio_field",
    "json_copy",
    "leftover",
]


class _ChatReader(Reader):
    """The shared reader, with SDK objects dumped as the JSON they came from.

    ``exclude_unset`` rather than ``as_json``'s ``exclude_none``: a response object
    then gives exactly what the REST JSON gives, explicit nested nulls included
    (they are kept in extras and metadata as they came).
    """

    __slots__ = ()

    def json(self, payload: Any) -> Any:
        """SDK objects as their JSON (explicit nulls kept); JSON text parsed."""
        if isinstance(payload, BaseModel):
            # (warnings off: an object the client built without validation holds what
            # the server sent, which may not be the declared type)
            return payload.model_dump(mode="json", exclude_unset=True, warnings=False)
        return super().json(payload)


READ: Final = _ChatReader(NAME)


# ------------------------------------------------------------------------ JSON data


class PythonKey(Exception):
    """An object key JSON cannot hold (Python data), with the path to it.

    Raised by :func:`json_copy`; the decoders turn it into a located
    ConversionError (:meth:`error`).
    """

    def __init__(self, key: Any) -> None:
        super().__init__(key)
        self.key = key
        self.path: list[Any] = []

    def error(
        self, what: str, message_index: int | None = None, block_index: int | None = None
    ) -> ConversionError:
        """The ConversionError naming the key, where it sits, message and block."""
        where = "/".join(str(step) for step in reversed(self.path))
        at = f"{what}/{where}" if where else what
        return READ.error(
            f"object keys must be strings, not {describe(self.key)} {self.key!r} (at {at})",
            message_index,
            block_index,
        )


_JSON_SCALARS: Final = frozenset({str, int, float, bool, type(None)})


def json_copy(value: Any) -> Any:
    """A copy of JSON data kept as it came (extras, metadata, kept parts).

    Python data may hold what JSON cannot: a key that is not a string raises
    :class:`PythonKey` with its path (cheaper than ``copy.deepcopy`` for JSON).
    """
    kind = type(value)
    if kind in _JSON_SCALARS:
        return value
    if kind is dict:
        copied: dict[str, Any] = {}
        for key, item in value.items():
            if type(key) is not str:
                raise PythonKey(key)
            try:
                copied[key] = json_copy(item)
            except PythonKey as error:
                error.path.append(key)
                raise
        return copied
    if kind is list:
        items: list[Any] = []
        for position, item in enumerate(value):
            try:
                items.append(json_copy(item))
            except PythonKey as error:
                error.path.append(position)
                raise
        return items
    return copy_json(value)


def copy_at(value: Any, *path: Any) -> Any:
    """:func:`json_copy` of the value at ``path`` (which a failure names)."""
    try:
        return json_copy(value)
    except PythonKey as error:
        error.path.extend(reversed(path))
        raise


def leftover(data: Mapping[Any, Any], known: Collection[str]) -> dict[str, Any]:
    """The keys of ``data`` a decoder did not map, copied (:func:`json_copy`)."""
    found: dict[str, Any] = {}
    for key, value in data.items():
        if key in known:
            continue
        if type(key) is not str:
            raise PythonKey(key)
        try:
            found[key] = json_copy(value)
        except PythonKey as error:
            error.path.append(key)
            raise
    return found


def as_field(block: RefusalBlock) -> bool:
    """Whether a refusal was the message's ``refusal`` field (not a content part)."""
    return extras_of(block, NAME).get("as_field") is True


def is_audio_field(block: AudioBlock) -> bool:
    """Whether an audio block is an assistant's ``audio`` output (the message field)."""
    return extras_of(block, NAME).get("as_field") is True and block.id is not None


def audio_mime(data: str) -> str:
    """The media type of base64 audio, read from its first bytes.

    A Chat response does not say the format its request asked for (``audio.format``);
    the data's own signature does, but for headerless ``pcm16``:
    ``application/octet-stream`` then.
    """
    try:
        head = base64.b64decode(data[:16], validate=True)
    except (binascii.Error, ValueError):
        return UNKNOWN_AUDIO
    for signature, mime in AUDIO_SIGNATURES:
        if head.startswith(signature):
            if signature == b"RIFF" and head[8:12] != b"WAVE":
                break
            return mime
    if len(head) >= 2 and head[0] == 0xFF and head[1] & 0xE0 == 0xE0:
        # an MPEG frame sync: layer bits 00 are AAC's ADTS header, others MP3
        return "audio/aac" if head[1] & 0x06 == 0 else "audio/mpeg"
    return UNKNOWN_AUDIO


def audio_block(audio: Mapping[str, Any], index: int | None) -> AudioBlock | None:
    """An assistant's ``audio`` output as a block; None without an id and data.

    ``id`` is the block's id (what a later request sends back); the data is
    ``base64`` with the media type its bytes say (:func:`audio_mime`);
    ``transcript``, ``expires_at`` and any other key stay in the block's extras,
    with ``as_field`` marking the block as the message's ``audio`` field.
    """
    audio_id = audio.get("id")
    data = audio.get("data")
    if not isinstance(audio_id, str) or not audio_id or not isinstance(data, str):
        return None
    extras: dict[str, Any] = {"as_field": True}
    extras.update(leftover(audio, ("id", "data")))
    fields: dict[str, Any] = {"id": audio_id, "base64": data, "mime_type": audio_mime(data)}
    fields["extras"] = {NAME: extras}
    return READ.build(AudioBlock, fields, index)


def default_shape(content: Sequence[ContentBlock]) -> Shape:
    """The wire form a list content takes unless extras say otherwise.

    Reasoning, the ``refusal`` field and the ``audio`` field travel outside
    ``content``: with them, no other block gives ``null`` and one plain text block
    a string; otherwise a list stays a list.
    """
    side = False
    field_refusal = field_audio = False
    parts: list[ContentBlock] = []
    for block in content:
        if isinstance(block, ReasoningBlock):
            side = True
        elif isinstance(block, RefusalBlock) and not field_refusal and as_field(block):
            side = field_refusal = True
        elif isinstance(block, AudioBlock) and not field_audio and is_audio_field(block):
            side = field_audio = True
        else:
            parts.append(block)
    if not side:
        return "list"
    if not parts:
        return "null"
    only = parts[0]
    if (
        len(parts) == 1
        and isinstance(only, TextBlock)
        and only.cache_control is None
        and not extras_of(only, NAME)
    ):
        return "string"
    return "list"


# ------------------------------------------------------------------------ annotations


def decode_annotation(raw: Any, index: int | None) -> Citation | NonStandardAnnotation:
    """An annotation of the message's text: a url citation, or kept as it came."""
    data = READ.object(raw, "an annotation", index, 0)
    try:
        return _annotation(data, index)
    except PythonKey as error:
        raise error.error("annotation", index, 0) from None


def _annotation(data: dict[str, Any], index: int | None) -> Citation | NonStandardAnnotation:
    """:func:`decode_annotation` of an object."""
    citation = data.get("url_citation")
    # Chat Completions nests the citation fields under "url_citation" (Responses: flat)
    if data.get("type") == "url_citation" and isinstance(citation, dict):
        fields: dict[str, Any] = {}
        known = []
        for key in CITATION_FIELDS:
            if key in citation and citation[key] is not None:
                fields[key] = citation[key]
                known.append(key)
        extras = leftover(citation, known)
        outer = leftover(data, ["type", "url_citation"])
        if outer:
            extras["annotation"] = outer
        set_extras(fields, NAME, extras)
        try:
            return Citation(**fields)
        except pydantic.ValidationError:
            pass  # not the shape the neutral citation takes: kept as it came
    return READ.build(NonStandardAnnotation, {"value": json_copy(data)}, index, 0)


# ------------------------------------------------------------------------ parts


def decode_part(raw: Any, index: int, position: int, *, keep: bool = False) -> ContentBlock:
    """One content part; a type this codec does not know is kept as it came.

    ``keep``: a part of a known type that does not read as one (a ``text`` part
    without a string ``text`` ...) is kept as it came too, instead of refused (a
    reply's content, which the server sent).
    """
    part = READ.object(raw, "a content part", index, position)
    kind = part.get("type")
    decoder = _PART_DECODERS.get(kind) if isinstance(kind, str) else None
    try:
        if decoder is None:
            return _kept(part)
        try:
            return decoder(part, index, position)
        except ConversionError:
            if not keep:
                raise
            return _kept(part)
    except PythonKey as error:
        raise error.error("content part", index, position) from None


def _kept(part: dict[str, Any]) -> NonStandardBlock:
    """A part kept as it came; ``part`` marks it as ours, to be sent back as is."""
    return NonStandardBlock(value=json_copy(part), extras={NAME: {"part": True}})


def _part_fields(
    part: Mapping[str, Any], known: Sequence[str], inner_key: str | None, inner_known: Sequence[str]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Fields and extras common to every part: cache marker and unknown keys."""
    fields: dict[str, Any] = {}
    extras = leftover(part, [*known, "prompt_cache_breakpoint"])
    if "prompt_cache_breakpoint" in part:
        # Prompt caching: a breakpoint neutral cannot say stays in extras as it came
        value = part["prompt_cache_breakpoint"]
        cache = cache_control(value)
        if cache is not None:
            fields["cache_control"] = cache
        else:
            extras["prompt_cache_breakpoint"] = json_copy(value)
    if inner_key is not None:
        inner = leftover(part[inner_key], inner_known)
        if inner:
            extras[inner_key] = inner
    return fields, extras


def _block(
    cls: type[ContentBlock],
    fields: dict[str, Any],
    extras: dict[str, Any],
    index: int,
    position: int,
) -> ContentBlock:
    """A block from its fields and extras (a refused value is a ConversionError)."""
    set_extras(fields, NAME, extras)
    return READ.build(cls, fields, index, position)


def _held(
    part: dict[str, Any],
    cls: type[ContentBlock],
    fields: dict[str, Any],
    extras: dict[str, Any],
    index: int,
    position: int,
) -> ContentBlock:
    """:func:`_block`, or the part kept as it came when the block refuses its values.

    The neutral block refuses values the API's types take (an empty or relative URL,
    an empty file name): such a part goes back as it came.
    """
    try:
        return _block(cls, fields, extras, index, position)
    except ConversionError:
        return _kept(part)


def _decode_text(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    """A ``text`` part."""
    text = READ.string(part.get("text"), "text", index, position)
    fields, extras = _part_fields(part, ["type", "text"], None, ())
    fields["text"] = text
    return _block(TextBlock, fields, extras, index, position)


def _decode_refusal(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    """A ``refusal`` part (a refusal takes no cache marker)."""
    text = READ.string(part.get("refusal"), "refusal", index, position)
    fields, extras = _part_fields(part, ["type", "refusal"], None, ())
    fields.pop("cache_control", None)
    fields["text"] = text
    return _block(RefusalBlock, fields, extras, index, position)


def _decode_image(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    """An ``image_url`` part: a data URL becomes inline data, other URLs stay URLs.

    ``image_url`` given as the bare URL string (which OpenAI-compatible servers
    take for ``{"url": ...}``) is read alike and written back bare (``bare_url``).
    """
    bare = isinstance(part.get("image_url"), str)
    image = {"url": part["image_url"]} if bare else part.get("image_url")
    image = READ.object(image, "image_url", index, position)
    url = READ.string(image.get("url"), "image_url.url", index, position)
    known_inner = ["url"]
    fields, extras = _part_fields(part, ["type", "image_url"], None, ())
    if bare:
        extras["bare_url"] = True
    detail = image.get("detail")
    if detail in IMAGE_DETAILS:
        fields["detail"] = detail
        known_inner.append("detail")
    inner = leftover(image, known_inner)
    if inner:
        extras["image_url"] = inner
    inline = parse_data_url(url)
    if inline is not None:
        inline_fields = {**fields, "mime_type": inline[0], "base64": inline[1]}
        set_extras(inline_fields, NAME, extras)
        try:
            return ImageBlock(**inline_fields)
        except pydantic.ValidationError:
            pass  # an odd media type: the URL is kept as given
    fields["url"] = url
    return _held(part, ImageBlock, fields, extras, index, position)


def _decode_audio(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    """An ``input_audio`` part; a format other than wav or mp3 is kept in extras."""
    audio = READ.object(part.get("input_audio"), "input_audio", index, position)
    data = READ.string(audio.get("data"), "input_audio.data", index, position)
    audio_format = READ.string(audio.get("format"), "input_audio.format", index, position)
    fields, extras = _part_fields(part, ["type", "input_audio"], "input_audio", ["data", "format"])
    mime = AUDIO_MIME.get(audio_format)
    if mime is None:
        mime = f"audio/{audio_format}"
        extras.setdefault("input_audio", {})["format"] = audio_format
    fields.update(base64=data, mime_type=mime)
    return _block(AudioBlock, fields, extras, index, position)


def _decode_file(part: dict[str, Any], index: int, position: int) -> ContentBlock:
    """A ``file`` part: inline data (a data URL or bare base64) and/or a file id."""
    file = READ.object(part.get("file"), "file", index, position)
    file_data = file.get("file_data")
    file_id = file.get("file_id")
    filename = file.get("filename")
    if not isinstance(file_data, str) and not isinstance(file_id, str):
        return _kept(part)
    known = [key for key in ("file_data", "file_id", "filename") if isinstance(file.get(key), str)]
    fields, extras = _part_fields(part, ["type", "file"], "file", known)
    if isinstance(filename, str):
        fields["filename"] = filename
    if isinstance(file_id, str):
        fields["file_id"] = file_id
    if isinstance(file_data, str):
        inline = parse_data_url(file_data)
        if inline is not None:
            fields.update(mime_type=inline[0], base64=inline[1])
        else:  # bare base64: the media type is a guess, the data goes back bare
            guessed = mimetypes.guess_type(filename)[0] if isinstance(filename, str) else None
            fields.update(mime_type=guessed or "application/octet-stream", base64=file_data)
            extras["bare_base64"] = True
    return _held(part, FileBlock, fields, extras, index, position)


_PART_DECODERS: Final[dict[str, Callable[[dict[str, Any], int, int], ContentBlock]]] = {
    "text": _decode_text,
    "refusal": _decode_refusal,
    "image_url": _decode_image,
    "input_audio": _decode_audio,
    "file": _decode_file,
}
