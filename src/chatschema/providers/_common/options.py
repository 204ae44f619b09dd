"""The keyword options of every codec's ``encode`` and ``check``, resolved once."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, TypedDict, get_args

from chatschema.errors import OptionError, UnsupportedContentError
from chatschema.providers._codec import ProviderName

__all__ = [
    "ContentFormat",
    "EncodeOptions",
    "Options",
    "ReasoningPolicy",
    "SystemRole",
    "UnsupportedPolicy",
]

ContentFormat = Literal["auto", "string", "parts"]
ReasoningPolicy = Literal["replay", "text", "drop"]
UnsupportedPolicy = Literal["error", "drop", "placeholder"]
SystemRole = Literal["system", "developer"]


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
    empty is not sent."""
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
    check: bool = True
    request: bool = True

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
}
