"""Where opaque values may be replayed: the ``replay`` and ``compaction`` options.

Reasoning signatures, encrypted reasoning and compaction blocks are opaque: only the
provider that made them can read them, and some providers only the model (or the
deployment) that made them. A block records its ``provider``, ``model`` and
``endpoint``; the ``replay`` option says which of this format's blocks go back
(``docs/opaque-values.md``). The encoders call :func:`refusal` for each opaque block
of their own format as they write it (no second walk), note what is kept back with
:func:`skip`, and report it once per call (:func:`report_skipped`).
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, Any, Final, TypeGuard

from chatschema_models.content import CompactionBlock, ContentBlock, ReasoningBlock, TextBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage

from chatschema.errors import Problem, ReplaySkippedWarning
from chatschema.providers._common.checks import pointer
from chatschema.providers._common.options import (
    _DROPPED_SINK,
    Options,
    ReplayPolicy,
    caller_level,
)

if TYPE_CHECKING:
    from chatschema.providers._common.checks import EncodePass

__all__ = [
    "DEFAULT_REPLAY",
    "KEYWORD",
    "compaction_text",
    "compaction_what",
    "held_back",
    "opaque",
    "provenance",
    "refusal",
    "replay_policy",
    "report_skipped",
    "same_model",
    "skip",
    "target_model",
    "skipped",
    "stamp_once",
    "stamped",
    "summary_of",
]

KEYWORD: Final = "replay_skipped"
"""The keyword of a ``check`` problem for an opaque value the policy kept back."""

DEFAULT_REPLAY: Final[dict[str, ReplayPolicy]] = {
    # Claude extended thinking docs ("Thinking encryption"): signatures are compatible
    # across Claude platforms and the API itself strips earlier turns' thinking
    "anthropic": "same_provider",
    # Bedrock "Extended thinking" (Claude models): as the Messages API
    "bedrock_converse": "same_provider",
    # OpenAI reasoning guide: encrypted items are bound to the organization and model
    # that made them (`invalid_encrypted_content` when sent elsewhere)
    "openai_responses": "same_model",
    # Gemini "Thought signatures": return them to the model that produced them; a
    # conversation from another model takes none (Gemini 3 validates them)
    "gemini": "same_model",
    # the Interactions API carries the same models' thought signatures
    "gemini_interactions": "same_model",
}
"""The default ``replay`` policy per format: what the provider documents as safe."""

# A dated snapshot of a model alias: "gpt-4.1-2025-04-14", "claude-sonnet-4-5-20250929".
_SNAPSHOT = re.compile(r"-(?:\d{4}-\d{2}-\d{2}|\d{8})$")


def replay_policy(options: Options) -> ReplayPolicy:
    """The ``replay`` option, or the format's documented default."""
    given = options.replay
    if given is not None:
        return given
    return DEFAULT_REPLAY.get(options.provider, "same_model")


def target_model(conversation: Conversation) -> str | None:
    """The model a request is for (``settings.model``), None when it does not say."""
    settings = conversation.settings
    return settings.model if settings is not None else None


def _base(model: str) -> str:
    """A model name without a ``models/`` prefix or a dated snapshot suffix."""
    if model.startswith("models/"):
        model = model[7:]
    return _SNAPSHOT.sub("", model)


def same_model(produced: str, target: str) -> bool:
    """Whether ``produced`` (a response's model) is ``target`` (a request's model).

    A response names the dated snapshot of the alias the request gave
    (``gpt-4.1`` answers as ``gpt-4.1-2025-04-14``): both are the same model.
    """
    return produced == target or _base(produced) == _base(target)


def refusal(
    options: Options,
    block: ReasoningBlock | CompactionBlock,
    target: str | None,
) -> str | None:
    """Why the ``replay`` policy keeps this format's opaque block back, None to replay it.

    ``target``: the model the request is for (``settings.model``). A block whose model
    or the target's is unknown is replayed: nothing says it is another model's.
    """
    model = block.model
    if model is None or target is None or same_model(model, target):
        return None
    policy = replay_policy(options)
    if policy != "same_model":
        return None
    return (
        f"{block.type} block produced by {model!r}, not replayed to {target!r} "
        "(replay='same_model'; replay='same_provider' sends it)"
    )


def held_back(
    encoder: EncodePass,
    block: ReasoningBlock | CompactionBlock,
    target: str | None,
    message: int,
    position: int,
) -> bool:
    """Whether the ``replay`` policy keeps this format's opaque block back (then noted)."""
    if block.model is None:
        return False
    reason = refusal(encoder.options, block, target)
    if reason is None:
        return False
    skip(encoder, pointer(message, "content", position), reason)
    return True


def skip(encoder: EncodePass, where: str, reason: str) -> None:
    """Note an opaque block left out by the ``replay`` policy, at its pointer."""
    encoder.skipped.append(Problem(where, KEYWORD, reason))


def skipped(encoder: EncodePass) -> list[Problem]:
    """What the walk (or walks: an encoder may write twice) kept back, once each."""
    return list(dict.fromkeys(encoder.skipped))


def report_skipped(encoder: EncodePass, provider: str) -> None:
    """Report what ``encode`` kept back: one :class:`ReplaySkippedWarning` per call.

    Inside :func:`~chatschema.providers._common.options.dropped_settings_collected`
    the problems go to its list instead, with the settings left out.
    """
    if not encoder.skipped:
        return
    problems = skipped(encoder)
    sink = _DROPPED_SINK.get()
    if sink is not None:
        sink.extend(problems)
        return
    warnings.warn(ReplaySkippedWarning(problems, provider=provider), stacklevel=caller_level())


def compaction_text(
    encoder: EncodePass, block: CompactionBlock, message: int, position: int, why: str
) -> str | None:
    """What a compaction block that is not replayed becomes: text, or None (left out).

    Under ``compaction="summary"`` its readable ``text``; otherwise (or without text)
    the unsupported-content policy's placeholder, a problem, or nothing. ``why``
    names the block for that policy ("compaction block from openai_responses").
    """
    if encoder.options.compaction == "summary" and block.text:
        return block.text
    return encoder.unsupported(
        f"{why} (compaction='summary' sends its text)" if block.text else why, message, position
    )


def opaque(block: ContentBlock) -> TypeGuard[ReasoningBlock | CompactionBlock]:
    """Whether a block is one the replay policy reads: opaque values, or a compaction.

    A reasoning block with a signature or encrypted content, or a compaction block.
    """
    if isinstance(block, ReasoningBlock):
        return block.signature is not None or block.encrypted_content is not None
    return isinstance(block, CompactionBlock)


def stamped(message: AssistantMessage) -> AssistantMessage:
    """A decoded response whose opaque blocks (:func:`opaque`) record its ``model``.

    Blocks that already name a model keep it; a response that names none is unchanged.
    """
    model = message.model
    content = message.content
    if model is not None and isinstance(content, list):
        for block in content:
            if opaque(block) and block.model is None:
                block.model = model
    return message


def provenance(block: ContentBlock, model: str | None) -> dict[str, Any]:
    """The fields a streamed block gets for its provenance (``model_copy(update=...)``).

    The model, on the chunk that brings an opaque value (:func:`opaque`).
    """
    if model is not None and opaque(block):
        return {"model": model}
    return {}


def summary_of(options: Options, block: CompactionBlock) -> TextBlock | None:
    """A compaction block as its readable text under ``compaction="summary"``, else None.

    None: the unsupported-content policy applies to it.
    """
    if options.compaction == "summary" and block.text:
        return TextBlock(text=block.text)
    return None


def compaction_what(block: CompactionBlock) -> str:
    """How the unsupported-content policy names a compaction block it refuses."""
    origin = f" from {block.provider}" if block.provider else ""
    hint = " (compaction='summary' sends its text)" if block.text else ""
    return f"compaction block{origin}{hint}"


def stamp_once(blocks: list[ContentBlock], model: str, seen: set[int | None]) -> list[ContentBlock]:
    """A stream's blocks, each opaque one (by index) recording ``model`` once.

    The first chunk with an opaque value is enough: the assembled block keeps the field.
    """
    out = blocks
    for position, block in enumerate(blocks):
        if opaque(block) and block.index not in seen:
            seen.add(block.index)
            if out is blocks:
                out = list(blocks)
            out[position] = block.model_copy(update={"model": model})
    return out
