"""OpenRouter's ``reasoning_details``: reasoning blocks, and the same array back.

OpenRouter (docs: "Reasoning Tokens", "Preserving reasoning blocks") carries the
reasoning of the model behind it in an assistant message's ``reasoning_details``:
one object per detail, with ``type`` ``reasoning.text`` (``text``, ``signature``),
``reasoning.summary`` (``summary``) or ``reasoning.encrypted`` (``data``), and
``id``, ``format`` (``anthropic-claude-v1``, ``openai-responses-v1``,
``google-gemini-v1``, ``unknown`` ...) and ``index``. Each detail is one
``ReasoningBlock`` of provider ``openai_chat``: the readable text, signature,
summary and encrypted data in the block's fields, the ``id`` as the block's id,
everything else (``type``, ``format``, ``index``, nulls, unknown keys) in
``extras["openai_chat"]["detail"]``, from which the detail is written back.

The plain ``reasoning`` string OpenRouter sends next to the array is the details'
readable text: when it is exactly that, no block of its own is made (the text
would be there twice) and the message's ``extras["openai_chat"]["details_text"]``
records the field, so it is written back from the blocks.

In a stream, details come in pieces, merged by ``type`` and ``index``: each
merged detail is one block, at a stream index of its own (:data:`FIRST_SLOT` on).
"""

from __future__ import annotations

from typing import Any, Final

from chatschema_models.content import ContentBlock, ReasoningBlock

from chatschema.providers._common import extras_of
from chatschema.providers.openai_chat.blocks import PythonKey, json_copy
from chatschema.providers.openai_chat.wire import AUDIO_SLOT, NAME

__all__ = [
    "DETAIL",
    "DETAILS_TEXT",
    "FIRST_SLOT",
    "DetailStream",
    "DetailWriter",
    "decode_details",
    "details_text",
    "wire_detail",
]

DETAIL: Final = "detail"
"""Block extras key: a detail's fields that are not block fields (``type`` ...)."""
DETAILS_TEXT: Final = "details_text"
"""Message extras key: ``{"field": "reasoning"}`` when that string was the details'
text (with ``"sent": True`` in a request's history)."""
FIRST_SLOT: Final = AUDIO_SLOT + 1
"""The stream index of the first detail (after reasoning, text, refusal, audio)."""

# detail type -> {wire key: block field}
_FIELDS: Final[dict[str, dict[str, str]]] = {
    "reasoning.text": {"text": "text", "signature": "signature"},
    "reasoning.summary": {"summary": "summary"},
    "reasoning.encrypted": {"data": "encrypted_content"},
}
_NONE: Final[dict[str, str]] = {}


def _fields(item: Any) -> dict[str, Any] | None:
    """The ReasoningBlock fields of one detail; None when it is not a typed object."""
    if type(item) is not dict:
        return None
    kind = item.get("type")
    if type(kind) is not str:
        return None
    names = _FIELDS.get(kind, _NONE)
    fields: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in item.items():
        target = names.get(key)
        if target is not None and type(value) is str:
            fields[target] = [value] if target == "summary" else value
        elif key == "id" and type(value) is str and value:
            fields["id"] = value
        else:
            if type(key) is not str:
                raise PythonKey(key)
            try:
                rest[key] = json_copy(value)
            except PythonKey as error:
                error.path.append(key)
                raise
    fields["extras"] = {NAME: {DETAIL: rest}}
    return fields


def decode_details(raw: Any) -> list[ReasoningBlock] | None:
    """The reasoning blocks of a ``reasoning_details`` array.

    None when it is not a non-empty list of objects with a string ``type``: the
    caller keeps the value as it came (in extras).
    """
    if type(raw) is not list or not raw:
        return None
    blocks: list[ReasoningBlock] = []
    for item in raw:
        fields = _fields(item)
        if fields is None:
            return None
        fields["provider"] = NAME
        blocks.append(ReasoningBlock(**fields))
    return blocks


def _readable(block: ReasoningBlock) -> str:
    """A detail block's readable text (its text, or its summary), else ""."""
    if block.text is not None:
        return block.text
    return "".join(block.summary) if block.summary else ""


def details_text(blocks: list[ReasoningBlock]) -> str:
    """The readable text of detail blocks, as OpenRouter's ``reasoning`` string has it."""
    return "".join(_readable(block) for block in blocks)


def wire_detail(
    block: ReasoningBlock, index: int | None = None, position: int | None = None
) -> dict[str, Any] | None:
    """The ``reasoning_details`` entry a block was decoded from; None for other blocks.

    Raises:
        ConversionError: kept data with a key JSON cannot hold (message ``index``,
            block ``position``).
    """
    if block.provider != NAME:
        return None
    kept = extras_of(block, NAME).get(DETAIL)
    if type(kept) is not dict:
        return None
    out: dict[str, Any] = {}
    if "type" in kept:
        out["type"] = kept["type"]
    try:
        out.update(json_copy(kept))
    except PythonKey as error:
        raise error.error(f"extras/{NAME}/{DETAIL}", index, position) from None
    _pieces(block, out)
    return out


def _pieces(block: ReasoningBlock, out: dict[str, Any]) -> None:
    """A block's values under their detail keys."""
    if block.text is not None:
        out["text"] = block.text
    if block.summary is not None:
        out["summary"] = "".join(block.summary)
    if block.encrypted_content is not None:
        out["data"] = block.encrypted_content
    if block.signature is not None:
        out["signature"] = block.signature
    if block.id is not None:
        out["id"] = block.id


class DetailStream:
    """The details of one streamed message: pieces merged by ``type`` and ``index``.

    A detail's first piece is a block with its ``provider``, ``id`` and extras;
    later pieces add text, signature and data (the accumulator appends them). A
    summary is held until its detail is complete (another detail starts, the
    reply's text, the end) and then sent whole, as ``decode_response`` has it.
    """

    __slots__ = ("empty", "held", "ids", "seen", "slots")

    def __init__(self) -> None:
        self.slots: dict[tuple[Any, Any], int] = {}
        self.seen: dict[int, dict[str, Any]] = {}  # the kept fields sent, per slot
        self.ids: set[int] = set()  # the slots whose id was sent
        self.held: dict[int, list[str]] = {}  # summary pieces, per slot
        self.empty = False  # an empty array came (OpenRouter sends some)

    def add(self, raw: Any, blocks: list[ContentBlock]) -> str | None:
        """A delta's ``reasoning_details``, into blocks; their readable text.

        None, and no block, when the value is not a list of typed objects (the
        caller keeps it as it came). Empty arrays add nothing; only when no detail
        came is one kept (:meth:`kept`), as ``decode_response`` keeps it.
        """
        if type(raw) is not list:
            return None
        if not raw:
            self.empty = True
            return ""
        decoded = [_fields(item) for item in raw]
        if any(fields is None for fields in decoded):
            return None
        text: list[str] = []
        for item, found in zip(raw, decoded, strict=True):
            fields: dict[str, Any] = found or {}
            rest: dict[str, Any] = fields.pop("extras")[NAME][DETAIL]
            key = (item["type"], json_key(item.get("index")))
            slot = self.slots.get(key)
            if slot is None:
                self.flush(blocks)
                slot = self.slots[key] = FIRST_SLOT + len(self.slots)
                self.seen[slot] = rest
                fields["provider"] = NAME
                fields["extras"] = {NAME: {DETAIL: rest}}
            else:
                seen = self.seen[slot]
                changed = {k: v for k, v in rest.items() if seen.get(k, _NO) != v}
                if changed:
                    seen.update(changed)
                    fields["extras"] = {NAME: {DETAIL: changed}}
                if slot in self.ids:
                    fields.pop("id", None)
            if "id" in fields:
                self.ids.add(slot)
            summary = fields.pop("summary", None)
            if summary is not None:
                self.held.setdefault(slot, []).append(summary[0])
                text.append(summary[0])
            else:
                text.append(fields.get("text", ""))
            if fields:
                blocks.append(ReasoningBlock(index=slot, **fields))
        return "".join(text)

    def kept(self) -> bool:
        """Whether the message keeps ``"reasoning_details": []`` (no detail came)."""
        return self.empty and not self.slots

    def flush(self, blocks: list[ContentBlock]) -> None:
        """The held summaries, whole."""
        for slot, pieces in self.held.items():
            blocks.append(ReasoningBlock(index=slot, summary=["".join(pieces)]))
        self.held.clear()


_NO: Final = object()


def json_key(value: Any) -> Any:
    """A detail's ``index`` as a dict key (an unhashable one by its text)."""
    return value if type(value) in (int, str, type(None)) else repr(value)


class DetailWriter:
    """``reasoning_details`` pieces of a written stream: each names its detail."""

    __slots__ = ("heads",)

    def __init__(self) -> None:
        self.heads: dict[int, dict[str, Any]] = {}

    def piece(self, block: ReasoningBlock, position: int) -> dict[str, Any] | None:
        """The delta entry of a detail block (or a later piece of one); else None."""
        full = wire_detail(block, 0, position)
        if full is not None:
            if block.index is not None:
                self.heads[block.index] = {
                    key: full[key] for key in ("type", "format", "index", "id") if key in full
                }
            return full
        head = self.heads.get(block.index) if block.index is not None else None
        if head is None or block.provider not in (None, NAME):
            return None
        out = dict(head)
        _pieces(block, out)
        return out
