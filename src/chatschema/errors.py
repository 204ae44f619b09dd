"""The exceptions chatschema raises.

Everything derives from :class:`ChatSchemaError`, so one ``except`` catches all of it.
Bad input never surfaces as ``KeyError``, ``TypeError`` or ``IndexError``: it is a
:class:`ValidationError` that lists every problem with a JSON pointer, or a
:class:`ConversionError` that names the provider, the message and the block.
Messages quote refused values at most 24 characters deep (:func:`shorten_quotes`):
base64 data, signatures or huge strings in the wrong place never fill an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

__all__ = [
    "ChatSchemaError",
    "ConversionError",
    "OptionError",
    "Problem",
    "ReplaySkippedWarning",
    "SchemaValidationError",
    "SettingsDroppedWarning",
    "StreamIncompleteError",
    "UnsupportedContentError",
    "ValidationError",
    "json_pointer",
    "option_type_error",
    "wrong_type",
]


# Every quoted value (Python's repr of a string) of a message, read left to right so that
# a closing quote never opens the next match; a schema's pattern ("pattern|match '^...'")
# is matched too, to be left whole.
_QUOTED = re.compile(  # a quote after a letter is an apostrophe ("candidate's"), not one
    r"(pattern |match )?(?<!\w)('(?:[^'\\\n]|\\.)*'" + r'|"(?:[^"\\\n]|\\.)*")'
)
_LONGEST = 60
_SHOWN = 24


def _short(match: re.Match[str]) -> str:
    quoted = match.group(2)
    inner = quoted[1:-1]
    if match.group(1) or len(inner) <= _LONGEST:
        return match.group()
    return f"{quoted[0]}{inner[:_SHOWN]}{quoted[0]}... ({len(inner):,} characters)"


def shorten_quotes(text: str) -> str:
    """A message with every quoted value longer than 60 characters cut to its first 24.

    Error messages quote the values they refuse; a value can be base64 data, a
    signature or encrypted reasoning that landed in the wrong place, or simply huge.
    """
    if len(text) <= 62:
        return text
    return _QUOTED.sub(_short, text)


def json_pointer(path: Iterable[str | int]) -> str:
    """Build an RFC 6901 JSON pointer from path segments (``["a", 0]`` -> ``/a/0``)."""
    return "".join("/" + str(part).replace("~", "~0").replace("/", "~1") for part in path)


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a document.

    Attributes:
        pointer: JSON pointer to the offending value; for a missing property, to
            where it should be.
        keyword: the JSON Schema keyword that failed (``required``, ``type``,
            ``additionalProperties``, ``discriminator`` ...), or ``json`` for
            unparseable input.
        message: what is wrong, for humans.
    """

    pointer: str
    keyword: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '(root)'}: {self.message} [{self.keyword}]"


def _shortened(problems: Iterable[Problem]) -> Iterable[Problem]:
    for problem in problems:
        message = shorten_quotes(problem.message)
        yield problem if message is problem.message else replace(problem, message=message)


class ChatSchemaError(Exception):
    """Base of every chatschema exception."""


class ValidationError(ChatSchemaError, ValueError):
    """A document does not conform to the schema; ``problems`` lists every problem."""

    def __init__(self, problems: Sequence[Problem], *, type_name: str = "document") -> None:
        self.problems: tuple[Problem, ...] = tuple(_shortened(problems))
        self.type_name = type_name
        count = len(self.problems)
        lines = [f"{count} problem{'s' if count != 1 else ''} in {type_name}:"]
        lines += [f"  {problem}" for problem in self.problems[:50]]
        if count > 50:
            lines.append(f"  ... and {count - 50} more")
        super().__init__("\n".join(lines))


class SchemaValidationError(ValidationError):
    """Raised by :func:`chatschema.validate`, the JSON Schema path."""


class ConversionError(ChatSchemaError, ValueError):
    """A conversion to or from a provider format failed.

    Attributes:
        provider: the wire format (``openai_chat``, ``anthropic`` ...).
        message_index: index of the message concerned, when there is one.
        block_index: index of the content block concerned, when there is one.
        problems: every structural problem, when a check found several.
    """

    def __init__(
        self,
        reason: str,
        *,
        provider: str,
        message_index: int | None = None,
        block_index: int | None = None,
        problems: Sequence[Problem] = (),
    ) -> None:
        self.reason = reason = shorten_quotes(reason)
        self.provider = provider
        self.message_index = message_index
        self.block_index = block_index
        self.problems: tuple[Problem, ...] = tuple(_shortened(problems))
        where = [provider]
        if message_index is not None:
            where.append(f"message {message_index}")
        if block_index is not None:
            where.append(f"block {block_index}")
        lines = [f"{', '.join(where)}: {reason}"]
        lines += [f"  {problem}" for problem in self.problems[:50]]
        if len(self.problems) > 50:
            lines.append(f"  ... and {len(self.problems) - 50} more")
        super().__init__("\n".join(lines))


class UnsupportedContentError(ConversionError):
    """The target format cannot carry this content (and the policy is ``"error"``)."""


class StreamIncompleteError(ConversionError):
    """A stream ended without its format's terminal event: the reply may be incomplete.

    Raised by ``decode_stream`` after every chunk decoded before the end was yielded
    (``incomplete="keep"`` marks the reply instead of raising).

    Attributes:
        missing: the event (or field) the stream ended without, as the format names
            it (``message_stop``, ``response.completed``, ``finish_reason`` ...).
    """

    def __init__(self, reason: str, *, provider: str, missing: str) -> None:
        super().__init__(reason, provider=provider)
        self.missing = missing


class OptionError(ChatSchemaError, ValueError):
    """An unknown option, or an option with a value it does not take."""


class SettingsDroppedWarning(ChatSchemaError, UserWarning):
    """Settings ``encode`` left out under ``unsupported_settings="drop"`` (a warning).

    Warned once per ``encode`` call; turned into an error (``-W error``), it is a
    :class:`ChatSchemaError` like the rest.

    Attributes:
        provider: the target format.
        problems: each setting left out, at its pointer (``/settings/top_k``).
    """

    def __init__(self, problems: Sequence[Problem], *, provider: str) -> None:
        self.provider = provider
        self.problems: tuple[Problem, ...] = tuple(problems)
        count = len(self.problems)
        shown = "; ".join(
            f"{problem.pointer}: {problem.message.split(': ', 1)[-1]}" for problem in self.problems
        )
        super().__init__(
            f"{provider}: {count} setting{'s' * (count != 1)} left out "
            f"(unsupported_settings='drop'): {shown}"
        )


class ReplaySkippedWarning(ChatSchemaError, UserWarning):
    """Opaque values ``encode`` did not replay under its ``replay`` policy (a warning).

    Warned once per ``encode`` call; ``check`` lists the same problems (keyword
    ``replay_skipped``).

    Attributes:
        provider: the target format.
        problems: each block left out, at its pointer (``/messages/1/content/0``).
    """

    def __init__(self, problems: Sequence[Problem], *, provider: str) -> None:
        self.provider = provider
        self.problems: tuple[Problem, ...] = tuple(problems)
        count = len(self.problems)
        shown = "; ".join(f"{problem.pointer}: {problem.message}" for problem in self.problems)
        plural = "s" * (count != 1)
        super().__init__(f"{provider}: {count} opaque value{plural} not replayed: {shown}")


def _kind(value: object) -> str:
    """A value's Python type for a message; a short scalar with its value."""
    name = type(value).__name__
    if isinstance(value, (str, int, float)) and len(repr(value)) <= 24:
        return f"{name} {value!r}"
    return name


def wrong_type(
    value: object, expected: str, *, type_name: str, pointer: str = "", hint: str = ""
) -> ValidationError:
    """A :class:`ValidationError` for data of the wrong Python type where ``expected`` belongs.

    >>> print(wrong_type(5, "a message", type_name="message"))
    1 problem in message:
      /: expected a message, got int 5 [type]
    """
    message = f"expected {expected}, got {_kind(value)}"
    if hint:
        message = f"{message}; {hint}"
    return ValidationError([Problem(pointer, "type", message)], type_name=type_name)


def option_type_error(name: str, value: object, expected: str) -> OptionError:
    """An :class:`OptionError` for the argument ``name`` given a value of the wrong type.

    >>> str(option_type_error("max_tokens", "100", "an integer"))
    "max_tokens must be an integer, not str '100'"
    """
    return OptionError(f"{name} must be {expected}, not {_kind(value)}")
