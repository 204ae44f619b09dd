"""Reading provider payloads: one reader, the provider given as an argument.

Every codec reads JSON data it does not control (requests, responses, stream
events, official SDK objects). What goes wrong there is a
:class:`~chatschema.ConversionError` that names the provider, the message and the
block, never a bare ``KeyError``/``TypeError``/pydantic error. What the neutral
model has no field for goes to ``extras[provider]`` (:func:`leftover`) and comes
back out on encode (:func:`merge_extras`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NoReturn, TypeVar

import pydantic
from pydantic import BaseModel

from chatschema._json import copy_json
from chatschema.errors import ConversionError
from chatschema.providers._common.guards import loads

__all__ = [
    "Reader",
    "as_json",
    "describe",
    "is_count",
    "leftover",
    "merge_extras",
    "merge_value",
]

_Model = TypeVar("_Model", bound=BaseModel)


def describe(value: Any) -> str:
    """A value's JSON kind for an error message: ``null`` or the Python type name."""
    return "null" if value is None else type(value).__name__


def is_count(value: Any) -> bool:
    """Whether a value is a count: a non-negative ``int`` (not ``bool``)."""
    return type(value) is int and value >= 0


def as_json(payload: Any) -> Any:
    """Official SDK objects (pydantic models) to plain JSON data; JSON passes through.

    ``None`` fields of SDK objects are left out (``exclude_none``); JSON text is
    parsed.
    """
    if isinstance(payload, BaseModel):
        # warnings off: the SDKs' parsed types (ParsedResponse ...) hold values their
        # declared field types do not name, which pydantic's serializer warns about
        return payload.model_dump(mode="json", exclude_none=True, warnings=False)
    if isinstance(payload, (str, bytes, bytearray)):
        return loads(payload, "input")
    return payload


def leftover(data: Mapping[str, Any], known: Iterable[str]) -> dict[str, Any]:
    """The keys of ``data`` a decoder did not map, copied: they go to extras."""
    known = set(known)
    return {key: copy_json(value) for key, value in data.items() if key not in known}


def merge_extras(
    target: dict[str, Any], extras: Mapping[str, Any], skip: Iterable[str] = ()
) -> None:
    """Put extras back into a wire object: missing keys added, objects merged.

    What the encoder wrote wins over a kept value; keys in ``skip`` stay out.
    """
    skipped = frozenset(skip)
    for key, value in extras.items():
        if key in skipped:
            continue
        if key not in target:
            target[key] = copy_json(value)
        elif isinstance(target[key], dict) and isinstance(value, Mapping):
            merge_extras(target[key], value)


def merge_value(target: dict[str, Any], key: str, value: Any) -> None:
    """The last value wins; objects are merged key by key (as chunk metadata merges)."""
    current = target.get(key)
    if isinstance(current, dict) and isinstance(value, dict):
        for inner, item in value.items():
            merge_value(current, inner, item)
    else:
        target[key] = copy_json(value)


class Reader:
    """Reads one provider's payloads; every failure names the provider and where.

    ``message_index`` / ``block_index`` locate the message (or content, or item) and
    the block (or part) being read, as in :class:`~chatschema.ConversionError`.
    """

    __slots__ = ("provider",)

    def __init__(self, provider: str) -> None:
        self.provider = provider

    def error(
        self, reason: str, message_index: int | None = None, block_index: int | None = None
    ) -> ConversionError:
        """The exception for ``reason`` at a message and block."""
        return ConversionError(
            reason, provider=self.provider, message_index=message_index, block_index=block_index
        )

    def fail(
        self, reason: str, message_index: int | None = None, block_index: int | None = None
    ) -> NoReturn:
        """Raise the exception for ``reason`` at a message and block."""
        raise self.error(reason, message_index, block_index)

    def build(
        self,
        cls: type[_Model],
        fields: dict[str, Any],
        message_index: int | None = None,
        block_index: int | None = None,
    ) -> _Model:
        """A neutral model from keyword fields; a value it refuses is a ConversionError.

        The error lists up to three refused fields, each with its path.
        """
        try:
            return cls(**fields)
        except pydantic.ValidationError as error:
            detail = "; ".join(
                f"{'.'.join(str(part) for part in item['loc']) or cls.__name__}: {item['msg']}"
                for item in error.errors(include_url=False)[:3]
            )
            self.fail(f"cannot read as {cls.__name__}: {detail}", message_index, block_index)

    def json(self, payload: Any) -> Any:
        """A payload as JSON data: text parsed, SDK objects dumped (``None`` fields out)."""
        try:
            return as_json(payload)
        except ConversionError as error:
            raise self.error(error.reason) from None

    def object(
        self,
        value: Any,
        what: str,
        message_index: int | None = None,
        block_index: int | None = None,
    ) -> dict[str, Any]:
        """``value`` if it is a JSON object (an SDK object is dumped first), else fail."""
        if isinstance(value, dict):  # the common case first: decoding is hot
            return value
        if isinstance(value, BaseModel):
            value = self.json(value)
        if not isinstance(value, dict):
            self.fail(
                f"{what} must be an object, not {describe(value)}", message_index, block_index
            )
        return value

    def list(
        self,
        value: Any,
        what: str,
        message_index: int | None = None,
        block_index: int | None = None,
    ) -> list[Any]:
        """``value`` if it is a JSON array, else fail."""
        if not isinstance(value, list):
            self.fail(f"{what} must be a list, not {describe(value)}", message_index, block_index)
        return value

    def string(
        self,
        value: Any,
        what: str,
        message_index: int | None = None,
        block_index: int | None = None,
    ) -> str:
        """``value`` if it is a string, else fail."""
        if not isinstance(value, str):
            self.fail(f"{what} must be a string, not {describe(value)}", message_index, block_index)
        return value

    def count(self, value: Any, what: str, message_index: int | None = None) -> int:
        """``value`` if it is a count (a non-negative integer, not a bool), else fail."""
        if not is_count(value):
            self.fail(f"{what} must be a non-negative integer, not {value!r}", message_index)
        return value  # type: ignore[no-any-return]

    def stream_error(self, error: Any, *labels: str) -> ConversionError:
        """The exception for an error the stream itself reported (an error event).

        Its ``message`` is quoted (else the error object, shortened); the values of
        ``labels`` keys present in the error (``"code"``, ``"type"`` ...) go in
        parentheses.
        """
        if isinstance(error, BaseModel):
            error = self.json(error)
        if isinstance(error, dict):
            message = error.get("message")
            if not isinstance(message, str) or not message:
                message = json.dumps(error, default=repr)[:200]
            named = " ".join(
                str(error[key]) for key in labels if isinstance(error.get(key), (str, int))
            )
            where = f" ({named})" if named else ""
            return self.error(f"the stream reported an error{where}: {message}")
        return self.error(f"the stream reported an error: {error!r}")
