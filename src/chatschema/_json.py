"""JSON text of what the codecs produce, for the CLI and data sets, and strict reading.

A low-level module (no models): an encoded request is JSON data except for one
thing, the ``bytes`` a Bedrock Converse request carries (boto3 takes its blobs as
``bytes``), which JSON writes as base64 text, the Converse REST API's own form.

NaN and the infinities are not JSON (RFC 8259), although Python's ``json`` reads and
writes them: :func:`loads` refuses them with their line and column, :func:`dumps`
refuses to write them (never ``NaN``, never a silent ``null``).
"""

from __future__ import annotations

import base64
import copy
import json
import re
from typing import Any, TypeVar, cast

__all__ = ["copy_json", "dumps", "loads"]

_encoders: dict[int | None, json.JSONEncoder] = {}


def dumps(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON text (non-ASCII kept), ``bytes`` as base64 text.

    Raises:
        ValidationError: for a value JSON cannot hold (NaN, an infinity, a Python
            object that is not JSON data), with its JSON pointer (keyword ``json``).
    """
    encoder = _encoders.get(indent)
    if encoder is None:
        encoder = json.JSONEncoder(
            ensure_ascii=False, indent=indent, allow_nan=False, default=_blob
        )
        _encoders[indent] = encoder
    try:
        return encoder.encode(value)
    except (TypeError, ValueError):
        from chatschema import limits
        from chatschema.errors import ValidationError

        problem = limits.foreign_problem(value)
        if problem is None:
            raise
        raise ValidationError([problem], type_name="output") from None


def _blob(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON data")


# Outside strings, ``NaN`` and ``Infinity`` can only be the constants Python reads.
_TOKENS = re.compile(
    r'"(?:[^"\\]|\\.)*"|(?P<constant>-?Infinity|NaN)|(?P<number>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)'
)


class _NotJSON(ValueError):
    def __init__(self, reason: str, literal: str) -> None:
        super().__init__(reason)
        self.literal = literal


def _constant(name: str) -> Any:
    raise _NotJSON(f"{name} is not a JSON number", name)


def _finite(text: str) -> float:
    number = float(text)
    if number - number != 0.0:  # inf - inf is NaN
        raise _NotJSON(f"{text} is too large for a JSON number (a double)", text)
    return number


_decoder = json.JSONDecoder(parse_constant=_constant, parse_float=_finite)


def loads(text: str | bytes | bytearray) -> Any:
    """JSON text as Python data, as ``json.loads`` reads it, NaN and infinities refused.

    ``NaN``, ``Infinity``, ``-Infinity`` and numbers that overflow a double (``1e999``)
    are not JSON numbers: a :class:`json.JSONDecodeError` (a ``ValueError``) says so
    with the line and column, as for any other invalid JSON.

    Raises:
        ValueError: for text that is not valid JSON.
        RecursionError: for text nested too deeply for the parser.
    """
    if not isinstance(text, str):
        text = text.decode(json.detect_encoding(text), "surrogatepass")
    try:
        return _decoder.decode(text)
    except _NotJSON as error:
        raise json.JSONDecodeError(str(error), text, _position(text, error.literal)) from None


def _position(text: str, literal: str) -> int:
    """Where ``literal`` (a constant or a number) first stands outside a string."""
    for match in _TOKENS.finditer(text):
        if literal in (match["constant"], match["number"]):
            return match.start()
    return 0


_SCALARS = frozenset({str, int, float, bool, type(None), bytes})

_T = TypeVar("_T")


def copy_json(value: _T) -> _T:
    """A copy of JSON data: new dicts and lists, the same immutable leaves.

    What ``copy.deepcopy`` gives for JSON data, three to four times faster (no memo);
    anything else inside (a model, a Python object) is deep-copied as ``deepcopy``
    does. Recursive: the codecs call it on payloads already held to ``MAX_DEPTH``.
    """
    return cast(_T, _copy(value))


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        copied = value.copy()  # the scalars stay; containers are copied in turn
        for key, item in copied.items():
            if type(item) not in _SCALARS:
                copied[key] = _copy(item)
        return copied
    if kind is list:
        return [item if type(item) in _SCALARS else _copy(item) for item in value]
    if kind in _SCALARS:
        return value
    return copy.deepcopy(value)
