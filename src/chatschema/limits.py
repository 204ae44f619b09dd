"""The limits chatschema enforces on documents it reads, and the helpers that check them.

These limits keep hostile or broken input from exhausting the interpreter or the
machine; past them, :func:`chatschema.parse` (and its ``parse_*`` forms) and
:func:`chatschema.validate` raise a :class:`~chatschema.ValidationError` whose
problem names where the limit was crossed:

============================ ============== ==========================================
limit                        default        keyword and pointer of the problem
============================ ============== ==========================================
:data:`MAX_DEPTH`            200 levels     ``depth``: the first value nested deeper
:data:`MAX_MESSAGES`         100,000        ``maxItems``: ``/messages`` (or ``""`` for
                                            a list of messages)
:data:`MAX_STRING_CHARS`     268,435,456    ``maxLength``: the string (a text, base64
                                            data, a URL, argument text ...)
:data:`MAX_LINE_BYTES`       285,212,672    ``maxLength``: the row (a line of JSON
                                            Lines, or a document read whole)
============================ ============== ==========================================

- **Depth**: no value may sit inside more than ``MAX_DEPTH`` nested arrays or objects
  (the root document is the first). It is the limit of the JSON parser Pydantic uses,
  so JSON text and Python data agree; well below the depth at which serializing,
  printing or converting a model would exhaust the stack.
- **Messages** in one conversation or message list: the most any provider accepts in
  one request (Anthropic's limit); it bounds the memory a small input can claim
  (each message model costs about a kilobyte however short its JSON).
- **String size**: one string, a quarter of a gigabyte of characters; more than twice
  the largest inline data any provider accepts.
- **Line size**: one line of JSON Lines (one dataset row), or one JSON document the
  command line reads whole, in bytes: the string limit plus 16 MiB for the rest of the
  document. It applies where input is read (``chatschema.datasets``, the command
  line), not to ``parse``: a longer line is reported as its row's problem and skipped
  to its newline without being held (input without newlines, such as ``/dev/zero``,
  stays in bounded memory). It is read when a run starts.

The limits are module attributes read at every check: a program that must accept
more can raise them (``chatschema.limits.MAX_MESSAGES = 1_000_000``). Checks cost
nothing for JSON text (the parser bounds depth; strings are checked only in texts
longer than the string limit) and one pass over the data for Python input.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel

from chatschema.errors import Problem, ValidationError, json_pointer

__all__ = [
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "MAX_MESSAGES",
    "MAX_STRING_CHARS",
    "JSON_BLOBS",
    "JSON_DATA",
    "check",
    "depth_problem",
    "foreign_problem",
    "limit_problems",
    "nesting_depth",
    "non_finite",
    "not_json",
    "too_deep",
]

MAX_DEPTH = 200
"""Arrays and objects a value may sit inside (the root document counts as one)."""

MAX_MESSAGES = 100_000
"""Messages in one conversation or list of messages."""

MAX_STRING_CHARS = 256 * 1024 * 1024
"""Characters in one string (a text, base64 data, a URL, tool-argument text ...)."""

MAX_LINE_BYTES = MAX_STRING_CHARS + 16 * 1024 * 1024
"""Bytes in one line of JSON Lines (a dataset row) or one JSON document read whole."""

_MESSAGE_LISTS = {"Conversation": ("messages",), "list of messages": ()}


def _children(node: Any) -> Iterator[tuple[str | int, Any]]:
    if isinstance(node, BaseModel):
        return iter(node.__dict__.items())
    if isinstance(node, Mapping):
        return iter(node.items())
    return enumerate(node)


def nesting_depth(value: Any) -> int:
    """How many arrays or objects deep ``value`` goes (a scalar is 0), without recursion.

    Models count as the objects they dump to.
    """
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, (BaseModel, Mapping, list, tuple)):
            deepest = max(deepest, level)
            for _, item in _children(node):
                if isinstance(item, (BaseModel, Mapping, list, tuple)):
                    stack.append((item, level + 1))
    return deepest


def too_deep(pointer: str = "") -> Problem:
    """The problem reported for a value nested deeper than :data:`MAX_DEPTH`."""
    return Problem(
        pointer,
        "depth",
        f"nested deeper than {MAX_DEPTH} levels of arrays and objects "
        "(chatschema.limits.MAX_DEPTH)",
    )


def depth_problem(value: Any, *, limit: int | None = None) -> Problem | None:
    """The first value that sits inside more than ``limit`` arrays or objects, or None.

    ``limit`` defaults to :data:`MAX_DEPTH`. An empty array or object at the limit is
    allowed (it holds no value deeper), as the JSON parser allows it.
    """
    return _first_problem(value, MAX_DEPTH if limit is None else limit, 1 << 62)


_SCALARS = frozenset({int, float, bool, type(None)})


def _items(node: Any) -> Any:
    """The values of a container (None for a scalar)."""
    kind = type(node)
    if kind is dict:
        return node.values()
    if kind is list or kind is tuple:
        return node
    if isinstance(node, BaseModel):
        return node.__dict__.values()
    if isinstance(node, Mapping):
        return node.values()
    if isinstance(node, (list, tuple)):
        return node
    return None


def _within(
    value: Any, depth_limit: int, string_limit: int, models: bool = True, json: int = 0
) -> bool:
    """Whether ``value`` is within both limits: the fast pass, without paths.

    ``models=False`` does not look inside models held by the data. ``json``: also
    whether every value is JSON data (:data:`JSON_DATA`, or :data:`JSON_BLOBS` to let
    ``bytes`` through); a root that is not a container is left to the schema.
    """
    if type(value) is str:
        return len(value) <= string_limit
    stack: list[tuple[Any, int]] = [(value, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        node, level = pop()
        items = _items(node)
        if items is None:
            if json and level and _not_json(node, json) is not None:
                return False
            continue
        if not items:
            continue
        if level >= depth_limit:
            return False
        level += 1
        for item in items:
            kind = type(item)
            if kind is str:
                if len(item) > string_limit:
                    return False
            elif kind is float:
                # NaN fails both comparisons: -inf < x < inf holds for finite numbers only
                if json and not -_INFINITY < item < _INFINITY:
                    return False
            elif kind not in _SCALARS and (models or not isinstance(item, BaseModel)):
                push((item, level))
    return True


JSON_DATA = 1
"""``json`` of the walks: JSON values only (objects, arrays, strings, finite numbers,
``true``, ``false``, ``null``; models count as the objects they dump to)."""

JSON_BLOBS = 2
"""``json`` of the walks: JSON values and ``bytes`` (Bedrock Converse's blobs, which
chatschema writes as base64 text)."""

_INFINITY = float("inf")


def _not_json(node: Any, json: int) -> str | None:
    """Why a leaf that is not a container is not JSON data (None: it is).

    Subclasses of ``str``, ``int`` and ``float`` (enums ...) are the values they
    hold, as ``json.dumps`` writes them.
    """
    if isinstance(node, float):
        return non_finite(node)
    if isinstance(node, (str, int)) or node is None:
        return None
    if json == JSON_BLOBS and isinstance(node, (bytes, bytearray)):
        return None
    return f"a Python {type(node).__name__} is not JSON data"


def non_finite(number: float) -> str | None:
    """Why a float is not a JSON number (NaN, Infinity, -Infinity), or None."""
    if -_INFINITY < number < _INFINITY:
        return None
    text = "NaN" if number != number else ("Infinity" if number > 0 else "-Infinity")
    return f"{text} is not a JSON number"


def _first_problem(
    value: Any, depth_limit: int, string_limit: int, models: bool = True, json: int = 0
) -> Problem | None:
    """The first container too deep, string too long or value not JSON, or None.

    The problem names where (its JSON pointer); values that are not JSON are
    looked for only with ``json``.
    """
    if _within(value, depth_limit, string_limit, models, json):
        return None
    if isinstance(value, str):
        return _too_long(value, ())
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 0, ())]
    while stack:
        node, level, path = stack.pop()
        if _items(node) is None:
            if json and path:
                reason = _not_json(node, json)
                if reason is not None:
                    return not_json(reason, json_pointer(path))
            continue
        # ``level`` containers hold this node; its items sit inside one more.
        items = list(_children(node))
        if items and level >= depth_limit:
            return too_deep(json_pointer(path))
        for key, item in reversed(items):
            if isinstance(item, str):
                if len(item) > string_limit:
                    return _too_long(item, (*path, key))
            elif models or not isinstance(item, BaseModel):
                stack.append((item, level + 1, (*path, key)))
    return None  # pragma: no cover - the fast pass found a problem


def not_json(reason: str, pointer: str = "") -> Problem:
    """The problem reported for a value JSON cannot hold (NaN, a Python object ...)."""
    return Problem(pointer, "json", reason)


_PROBE = object()


def foreign_problem(value: Any) -> Problem | None:
    """The first value in ``value`` that is not JSON data, with its pointer, or None.

    For the error path of the codecs (a ``TypeError`` or ``KeyError`` out of a
    verb): besides what :data:`JSON_BLOBS` refuses, a mapping whose ``in`` finds a
    key it does not hold, or whose ``[]`` fails for a key it lists. Models count as
    the objects they dump to. Walks without recursion; stops at :data:`MAX_DEPTH`.
    """
    stack: list[tuple[Any, int, tuple[str | int, ...]]] = [(value, 0, ())]
    while stack:
        node, level, path = stack.pop()
        if isinstance(node, Mapping) and type(node) is not dict:
            try:
                lies = _PROBE in node
                children = list(node.items())
            except Exception as error:  # any failure of a foreign mapping is the finding
                failure = f"{type(node).__name__} fails as a mapping: {error!r}"[:200]
                return not_json(failure, json_pointer(path))
            if lies:
                return not_json(
                    f"{type(node).__name__} is not JSON data (its `in` finds keys it does "
                    "not hold)",
                    json_pointer(path),
                )
        elif _items(node) is None:
            reason = _not_json(node, JSON_BLOBS)
            if reason is not None:
                return not_json(reason, json_pointer(path))
            continue
        else:
            children = list(_children(node))
        if level < MAX_DEPTH:
            stack.extend((item, level + 1, (*path, key)) for key, item in reversed(children))
    return None


def _too_long(text: str, path: tuple[str | int, ...]) -> Problem:
    return Problem(
        json_pointer(path),
        "maxLength",
        f"{len(text):,} characters, more than the limit of {MAX_STRING_CHARS:,} "
        "(chatschema.limits.MAX_STRING_CHARS)",
    )


def _messages_problem(value: Any, type_name: str) -> Problem | None:
    where = _MESSAGE_LISTS.get(type_name)
    if where is None:
        return None
    node = value
    for key in where:
        if isinstance(node, BaseModel):
            node = node.__dict__.get(key)
        elif isinstance(node, Mapping):
            node = node.get(key)
        else:
            return None
    if isinstance(node, (list, tuple)) and len(node) > MAX_MESSAGES:
        return Problem(
            json_pointer(where),
            "maxItems",
            f"{len(node):,} messages, more than the limit of {MAX_MESSAGES:,} "
            "(chatschema.limits.MAX_MESSAGES)",
        )
    return None


def limit_problems(
    value: Any,
    type_name: str,
    *,
    depth: bool = True,
    strings: bool = True,
    models: bool = True,
    json: int = 0,
) -> list[Problem]:
    """The limits ``value`` (parsed JSON or models) crosses, as problems (empty: none).

    Args:
        value: the document, as Python data or models.
        type_name: what it is read as (``"Conversation"``, ``"list of messages"``,
            ``"Message"`` ...): message lists are counted in conversations and lists.
        depth: whether to check nesting depth (off when a JSON parser already did).
        strings: whether to check string sizes (off when the JSON text they came
            from is itself shorter than the limit).
        models: whether to look inside models the data holds (off when reading:
            models were checked when they were read, and models built in code are
            not limited).
        json: :data:`JSON_DATA` (or :data:`JSON_BLOBS`) to also refuse, in the same
            pass, values JSON cannot hold (keyword ``json``): NaN and infinities,
            and Python objects that are not JSON data (a generator, a set ...).
    """
    problem = _messages_problem(value, type_name)
    if problem is None and (depth or strings or json):
        problem = _first_problem(
            value,
            MAX_DEPTH if depth else 1 << 62,
            MAX_STRING_CHARS if strings else 1 << 62,
            models,
            json,
        )
    return [] if problem is None else [problem]


def check(value: Any, type_name: str = "document") -> None:
    """Raise when ``value`` crosses a limit.

    Raises:
        ValidationError: naming the limit and where it was crossed.
    """
    problems = limit_problems(value, type_name)
    if problems:
        raise ValidationError(problems, type_name=type_name)
