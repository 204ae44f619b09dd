"""The keyword options of every codec's ``encode`` and ``check``, resolved once."""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, fields
from types import FrameType
from typing import Any, Literal, TypedDict, get_args

from chatschema.errors import OptionError, Problem, SettingsDroppedWarning, UnsupportedContentError
from chatschema.providers._codec import ProviderName

__all__ = [
    "CompactionPolicy",
    "ContentFormat",
    "EncodeOptions",
    "Options",
    "ReasoningPolicy",
    "ReplayPolicy",
    "SettingsPolicy",
    "SystemRole",
    "UnsupportedPolicy",
    "caller_level",
    "dropped_settings_collected",
    "report_dropped_settings",
]

ContentFormat = Literal["auto", "string", "parts"]
ReasoningPolicy = Literal["replay", "text", "drop"]
UnsupportedPolicy = Literal["error", "drop", "placeholder"]
SettingsPolicy = Literal["error", "drop"]
SystemRole = Literal["system", "developer"]
ReplayPolicy = Literal["same_model", "same_provider", "all"]
CompactionPolicy = Literal["drop", "summary"]


class EncodeOptions(TypedDict, total=False):
    """Keyword options of every codec's ``encode`` (and ``check``).

    Each means the same in every codec; a codec for which one makes no sense
    ignores it (``system_role`` outside OpenAI, ``reasoning_content`` outside
    Chat Completions).
    """

    content_format: ContentFormat
    """``"auto"`` (default): the provider's natural form; ``"string"``: message
    content as one string, text parts joined by a newline (for servers that only
    take strings; non-text content then falls under ``unsupported``); ``"parts"``:
    always a list of parts."""
    vision: bool
    """Whether the model takes images (default ``True``). Without vision, images are
    unsupported content."""
    prompt_cache: bool
    """Whether blocks' ``cache_control`` becomes the provider's cache markers
    (default ``True``)."""
    native_tools: bool
    """Native function calling (default ``True``). ``False`` renders tool calls,
    tool results and tool definitions as text, for models without tool support."""
    reasoning: ReasoningPolicy
    """Reasoning blocks: ``"replay"`` (default) sends back what this provider
    produced, unchanged, and leaves out other providers' reasoning, which the
    provider cannot verify; ``"text"`` also renders other providers' reasoning text
    as text; ``"drop"`` sends no reasoning."""
    system_role: SystemRole
    """OpenAI: the role of instructions, ``"system"`` (default) or ``"developer"``."""
    reasoning_content: bool
    """OpenAI Chat Completions: send reasoning text as ``reasoning_content`` on
    assistant messages, for OpenAI-compatible servers that want it back (default
    ``False``)."""
    unsupported: UnsupportedPolicy
    """Content the format cannot carry: ``"error"`` (default) raises
    :class:`~chatschema.UnsupportedContentError` naming message and block;
    ``"drop"`` leaves it out; ``"placeholder"`` puts a short text in its place.
    Another format's hosted tools (``ToolDefinition.provider``) fall under it too;
    "drop" and "placeholder" both leave them out. A message that drops leave
    empty is not sent. Settings follow it unless ``unsupported_settings`` is given."""
    unsupported_settings: SettingsPolicy
    """Settings the format has no key for, or a value it cannot say (at
    ``/settings/<field>``: ``top_k`` for OpenAI, ``seed`` for Anthropic, a
    ``thinking_budget`` of -1 for Bedrock ...): ``"error"`` raises
    :class:`~chatschema.UnsupportedContentError`; ``"drop"`` leaves them out and
    reports them in one :class:`~chatschema.errors.SettingsDroppedWarning`. Content
    is not affected. Not given: ``"error"`` when ``unsupported`` is ``"error"``
    (the default), else ``"drop"`` (a setting has no placeholder)."""
    replay: ReplayPolicy
    """Where this format's opaque values (reasoning signatures and encrypted content,
    compaction) are sent back: ``"same_model"`` only to the model that produced them
    (the block's ``model``, compared with ``settings.model``; either unknown: sent),
    ``"same_provider"`` to any model of the format, ``"all"`` whatever the block
    records. Not given: the default documented as safe for the format
    (``docs/opaque-values.md``). A value left out is a ``replay_skipped`` problem of
    ``check`` and a :class:`~chatschema.errors.ReplaySkippedWarning` of ``encode``."""
    compaction: CompactionPolicy
    """A compaction block that cannot be replayed (another format's, or one the
    ``replay`` policy keeps back): ``"drop"`` (default) applies ``unsupported`` to it;
    ``"summary"`` sends its readable ``text`` as a text block (none: ``unsupported``)."""
    check: bool
    """Run :func:`check` first and raise with every structural problem (default
    ``True``)."""
    request: bool
    """Whether the conversation is a request to send now (default ``True``).
    ``False`` is for histories that are data, not yet requests (a fine-tuning row
    whose target is the assistant's tool call, a log cut mid-turn): tool calls still
    waiting for their results at the end are then no problem. Every other rule
    still holds."""


@dataclass(frozen=True, slots=True)
class Options:
    """The resolved options of one ``encode`` call (see :class:`EncodeOptions`)."""

    provider: ProviderName
    content_format: ContentFormat = "auto"
    vision: bool = True
    prompt_cache: bool = True
    native_tools: bool = True
    reasoning: ReasoningPolicy = "replay"
    system_role: SystemRole = "system"
    reasoning_content: bool = False
    unsupported: UnsupportedPolicy = "error"
    unsupported_settings: SettingsPolicy | None = None
    replay: ReplayPolicy | None = None
    compaction: CompactionPolicy = "drop"
    check: bool = True
    request: bool = True

    @property
    def settings_policy(self) -> SettingsPolicy:
        """``unsupported_settings``, or what ``unsupported`` implies when it is not given."""
        if self.unsupported_settings is not None:
            return self.unsupported_settings
        return "error" if self.unsupported == "error" else "drop"

    @classmethod
    def resolve(cls, provider: ProviderName, options: Mapping[str, Any]) -> Options:
        """Validate keyword options; unknown names and bad values raise OptionError."""
        if not options:
            return cls(provider=provider)
        known = _KNOWN
        for name, value in options.items():
            if name not in known:
                raise OptionError(
                    f"unknown option {name!r} for {provider}; options: {', '.join(known)}"
                )
            allowed = _CHOICES.get(name)
            if allowed is not None and value not in allowed:
                raise OptionError(f"option {name}={value!r}: expected one of {allowed}")
            if allowed is None and not isinstance(value, bool):
                raise OptionError(f"option {name}={value!r}: expected True or False")
        return cls(provider=provider, **options)

    def unsupported_content(
        self, what: str, *, message_index: int, block_index: int | None = None
    ) -> str | None:
        """Apply the unsupported-content policy.

        Returns:
            The placeholder text under ``"placeholder"``, None under ``"drop"``.

        Raises:
            UnsupportedContentError: under ``"error"``.
        """
        if self.unsupported == "error":
            raise UnsupportedContentError(
                f"{what} cannot be sent to {self.provider} "
                "(options: unsupported='drop' or 'placeholder')",
                provider=self.provider,
                message_index=message_index,
                block_index=block_index,
            )
        if self.unsupported == "placeholder":
            return f"[{what} omitted: not supported by {self.provider}]"
        return None

    def replays(self, block_provider: str | None) -> bool:
        """Whether a reasoning block produced by ``block_provider`` is sent back."""
        return self.reasoning != "drop" and block_provider == self.provider


_KNOWN: tuple[str, ...] = tuple(field.name for field in fields(Options) if field.name != "provider")
"""The option names ``resolve`` takes."""

_CHOICES: dict[str, tuple[str, ...]] = {
    "content_format": get_args(ContentFormat),
    "reasoning": get_args(ReasoningPolicy),
    "system_role": get_args(SystemRole),
    "unsupported": get_args(UnsupportedPolicy),
    "unsupported_settings": get_args(SettingsPolicy),
    "replay": get_args(ReplayPolicy),
    "compaction": get_args(CompactionPolicy),
}

_DROPPED_SINK: ContextVar[list[Problem] | None] = ContextVar("dropped_settings", default=None)
"""Where :func:`report_dropped_settings` puts what it reports, instead of warning."""


def report_dropped_settings(dropped: Sequence[Problem], provider: str) -> None:
    """Report the settings ``encode`` left out under ``unsupported_settings="drop"``.

    One :class:`SettingsDroppedWarning` per ``encode`` call, listing each setting at
    its pointer; inside :func:`dropped_settings_collected` the problems go to its
    list instead.
    """
    if not dropped:
        return
    unique = list(dict.fromkeys(dropped))  # (a walk done twice notes a setting twice)
    sink = _DROPPED_SINK.get()
    if sink is not None:
        sink.extend(unique)
        return
    warnings.warn(SettingsDroppedWarning(unique, provider=provider), stacklevel=caller_level())


@contextmanager
def dropped_settings_collected() -> Iterator[list[Problem]]:
    """Collect the settings dropped by the ``encode`` calls in the block, not warned.

    Yields:
        The list the dropped settings are added to (a ``Problem`` each).
    """
    found: list[Problem] = []
    token = _DROPPED_SINK.set(found)
    try:
        yield found
    finally:
        _DROPPED_SINK.reset(token)


def caller_level() -> int:
    """The ``stacklevel`` of the warning's place: the first frame outside the codecs.

    That is the caller's code, or the CLI, datasets or gateway line that encoded
    (not the codecs' wrappers, nor chatschema's private helpers).
    """
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not (name == "chatschema" or name.startswith(("chatschema.providers", "chatschema._"))):
            break
        frame = frame.f_back
        level += 1
    return level
