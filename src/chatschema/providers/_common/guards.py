"""Guards around the codec verbs.

Runaway nesting and bad JSON text never escape as ``RecursionError`` or
``ValueError``, and the cyclic collector rests while a verb runs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, ParamSpec, TypeVar

import pydantic
from chatschema_models.conversation import Conversation

from chatschema import limits
from chatschema._gc import collector_paused
from chatschema._json import loads as strict_loads
from chatschema.errors import ChatSchemaError, ConversionError

__all__ = [
    "decoder",
    "depth_error",
    "foreign_value_error",
    "guarded",
    "invalid_data_error",
    "loads",
    "located_in",
    "too_deep_error",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")


def depth_error(payload: Any, provider: str, *, where: str = "input") -> ConversionError | None:
    """The error for a payload nested deeper than :data:`chatschema.limits.MAX_DEPTH`.

    None when the payload is within the limit. The problem's pointer names the
    first value past it. A payload of plain data (a dict or a list, not an SDK
    object) is also refused, in the same pass, for a value JSON cannot hold (NaN,
    infinities, a generator, a set ...; ``bytes`` pass: Converse blobs).
    """
    if type(payload) is dict or type(payload) is list:
        found = limits.limit_problems(payload, "payload", strings=False, json=limits.JSON_BLOBS)
        problem = found[0] if found else None
    else:
        problem = limits.depth_problem(payload)
    if problem is None:
        return None
    return ConversionError(
        f"{where} {problem.message}",
        provider=provider,
        message_index=_message_of(problem.pointer, provider),
        problems=[problem],
    )


# The list of messages in each format's request, for errors that name the message.
_MESSAGE_LISTS = {
    "openai_chat": "messages",
    "openai_responses": "input",
    "open_responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
    "gemini_interactions": "input",
    "otel_genai": "gen_ai.input.messages",
    "bedrock_converse": "messages",
    "mistral": "messages",
}


def _message_of(pointer: str, provider: str) -> int | None:
    """The index of the request message a pointer points into, or None."""
    parts = pointer.split("/", 3)
    if len(parts) >= 3 and parts[1] == _MESSAGE_LISTS.get(provider) and parts[2].isdigit():
        return int(parts[2])
    return None


def foreign_value_error(value: Any, provider: str) -> ConversionError | None:
    """The error for input holding a Python value that is not JSON data, naming where.

    The error path of every verb: a ``TypeError``, ``KeyError`` ... raised while
    converting is said this way when the input holds a non-JSON value (an object,
    NaN, a mapping whose ``in`` lies); None when it holds none (a bug: re-raised).
    """
    problem = limits.foreign_problem(value)
    if problem is None:
        return None
    return ConversionError(
        f"input holds a value JSON cannot hold: {problem.message}",
        provider=provider,
        problems=[problem],
    )


def too_deep_error(provider: str, value: Any = None) -> ConversionError:
    """The error for input nested past what the interpreter can walk, naming where."""
    problem = (None if value is None else limits.depth_problem(value)) or limits.too_deep()
    return ConversionError(
        f"input nested too deeply to convert: {problem.message}",
        provider=provider,
        problems=[problem],
    )


def loads(text: str | bytes | bytearray, provider: str) -> Any:
    """JSON text as data; bad or too deep JSON is a :class:`ConversionError`.

    NaN, Infinity and numbers too large for a double are not JSON: refused, with
    their line and column.
    """
    try:
        return strict_loads(text)
    except ValueError as error:
        raise ConversionError(f"not valid JSON: {error}", provider=provider) from None
    except RecursionError:
        raise too_deep_error(provider) from None


def decoder(provider: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Guard a codec's ``decode_*`` verb (payload first) against runaway nesting.

    A payload nested deeper than :data:`chatschema.limits.MAX_DEPTH` is refused with
    a :class:`ConversionError` naming where, before any work: every value the decoder
    then reads is shallow enough to walk, copy and serialize without recursion
    trouble. The walk costs about 5% of decoding. A payload given as JSON text is
    parsed here.
    """

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            if args:
                payload = args[0]
                if isinstance(payload, (str, bytes, bytearray)):
                    payload = loads(payload, provider)
                    args = (payload, *args[1:])  # type: ignore[assignment]
                error = depth_error(payload, provider)
                if error is not None:
                    raise error
            # a string of JSON inside, nested past the limit: the payload was walked
            return _located(function, args, kwargs, provider, walked=True)

        return collector_paused(wrapper)

    return decorate


def invalid_data_error(error: pydantic.ValidationError, provider: str) -> ConversionError:
    """A pydantic refusal as a :class:`ConversionError` naming where (its first error).

    The safety net of every verb: decoders and encoders read values into the models
    with located errors of their own; what still reaches pydantic (a string that is
    not Unicode, such as a lone surrogate) is said this way, never as a bare pydantic
    error.
    """
    first = error.errors(include_url=False, include_input=False)[0]
    where = "/".join(str(part) for part in first["loc"])
    return ConversionError(f"invalid data: {first['msg']} at {where}", provider=provider)


@contextmanager
def located_in(provider: str, messages: Any) -> Iterator[None]:
    """A depth error of a codec this one builds on, located in the caller's input.

    The codec underneath walks the conversation made from ``messages``; a list of
    messages is walked as given instead, as every codec's guard does.
    """
    try:
        yield
    except ConversionError as error:
        if not isinstance(messages, Conversation) and any(
            problem.keyword == "depth" for problem in error.problems
        ):
            raise too_deep_error(provider, messages) from None
        raise


def guarded(provider: str) -> Callable[[Callable[_P, _R]], Callable[_P, _R]]:
    """Guard ``encode`` / ``check`` against models nested past what can be walked.

    Models built in code (a ``NonStandardBlock`` value, tool arguments) can nest
    deeper than the interpreter recurses: they raise :class:`ConversionError`,
    never ``RecursionError``; a model the encoder builds and pydantic refuses is a
    :class:`ConversionError` too, never a bare pydantic error.
    """

    def decorate(function: Callable[_P, _R]) -> Callable[_P, _R]:
        @functools.wraps(function)
        def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
            return _located(function, args, kwargs, provider, walked=False)

        return collector_paused(wrapper)

    return decorate


def _located(
    function: Callable[_P, _R],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    provider: str,
    *,
    walked: bool,
) -> _R:
    """Call a verb; what escapes it as a foreign error becomes a located ConversionError.

    ``walked``: the payload was checked for depth up front (a decoder's), so a
    ``RecursionError`` comes from JSON text inside it; else (models built in code,
    not walked up front) the payload is searched for the place too deep. A value JSON
    cannot hold is found, on this error path only, when it breaks the conversion.
    """
    try:
        return function(*args, **kwargs)
    except pydantic.ValidationError as error:  # a value the models refuse
        raise invalid_data_error(error, provider) from None
    except RecursionError:
        payload = None if walked or not args else args[0]
        raise too_deep_error(provider, payload) from None
    except ChatSchemaError:
        raise
    except (TypeError, ValueError, KeyError, AttributeError):
        located = foreign_value_error(args[0], provider) if args else None
        if located is None:
            raise
        raise located from None
