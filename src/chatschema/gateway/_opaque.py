"""Opaque values across formats: which go where, and what is said of the rest.

A reasoning signature, encrypted reasoning or Gemini thought signature can only be
checked by the provider that made it. The gateway sends one upstream only to the
format that made it (:func:`omitted` names the others), leaves the upstream's out of
an answer in another format (:func:`without_opaque`, :func:`chunk_without_opaque`),
and gives other providers' function calls Gemini's stand-in signature
(:func:`sign_foreign_calls`).
"""

from __future__ import annotations

from typing import Any, Final

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage

from chatschema.providers._common.options import ReasoningPolicy

__all__ = [
    "FOREIGN_CALL_SIGNATURE",
    "OPAQUE",
    "chunk_without_opaque",
    "has_opaque",
    "omitted",
    "sign_foreign_calls",
    "without_opaque",
]


OPAQUE: Final = ("signature", "encrypted_content")
"""A reasoning block's opaque fields: only the provider that made them takes them back."""


def has_opaque(block: Any) -> bool:
    """Whether a reasoning block has an opaque field (an empty one too: its start)."""
    return block.signature is not None or block.encrypted_content is not None


def opaque_free(blocks: list[Any], upstream: str, left_out: list[str]) -> list[dict[str, Any]]:
    """The blocks' JSON data without reasoning's opaque values (noted in ``left_out``).

    A reasoning block left with nothing to show is dropped.
    """
    kept: list[dict[str, Any]] = []
    for position, block in enumerate(blocks):
        data = block.model_dump(mode="python", exclude_unset=True, by_alias=True)
        if data.get("type") == "reasoning":
            for name in OPAQUE:
                if data.pop(name, None):
                    index = data.get("index", position)
                    left_out.append(f"/content/{index} {name} from {upstream}")
            if not (data.keys() - {"type", "index", "provider"}):
                continue
        kept.append(data)
    return kept


def chunk_without_opaque(
    chunk: AssistantMessageChunk, upstream: str, left_out: list[str]
) -> AssistantMessageChunk:
    """A chunk whose reasoning deltas carry no opaque value."""
    data = chunk.model_dump(mode="python", exclude_unset=True, by_alias=True)
    data["content"] = opaque_free(list(chunk.content or ()), upstream, left_out)
    return AssistantMessageChunk.model_validate(data)


def without_opaque(message: AssistantMessage, upstream: str) -> tuple[AssistantMessage, list[str]]:
    """An answer without the upstream's opaque values, and what was left out.

    The caller cannot send them back to this upstream through another format (they
    come back as its own), and its own provider would refuse them.
    """
    left_out: list[str] = []
    content = message.content
    if isinstance(content, list) and any(
        block.type == "reasoning" and has_opaque(block) for block in content
    ):
        data = message.model_dump(mode="python", exclude_unset=True, by_alias=True)
        data["content"] = opaque_free(content, upstream, left_out)
        message = AssistantMessage.model_validate(data)
    for position, call in enumerate(message.tool_calls or ()):
        thought(left_out, call, f"/tool_calls/{position}", "")
    return message, left_out


FOREIGN_CALL_SIGNATURE = "skip_thought_signature_validator"
"""The thought signature Gemini takes on function calls it did not make."""


def sign_foreign_calls(body: dict[str, Any]) -> None:
    """Give the model turns' function calls that lack a thought signature Gemini's stand-in.

    Gemini 3 refuses (400) a turn whose first function call has no signature; calls
    from another provider have none, and the Gemini API docs (Thought signatures)
    name this value for calls the model did not make.
    """
    for content in body.get("contents") or ():
        if not isinstance(content, dict) or content.get("role") != "model":
            continue
        parts = [part for part in content.get("parts") or () if isinstance(part, dict)]
        if any("thought_signature" in part or "thoughtSignature" in part for part in parts):
            continue
        for part in parts:
            if "function_call" in part or "functionCall" in part:
                part["thought_signature"] = FOREIGN_CALL_SIGNATURE
                break


def thought(found: list[str], item: Any, where: str, upstream: str) -> None:
    """Note a Gemini thought signature kept in extras that a non-Gemini upstream drops."""
    extras = getattr(item, "extras", None)
    if upstream in ("gemini", "gemini_interactions") or not isinstance(extras, dict):
        return
    gemini = extras.get("gemini")
    if isinstance(gemini, dict) and gemini.get("thought_signature"):
        found.append(f"{where} thought_signature from gemini")


def omitted(conversation: Conversation, upstream: str, reasoning: ReasoningPolicy) -> list[str]:
    """The opaque values a request to ``upstream`` leaves out, each with its place.

    A reasoning block's opaque fields go only to the format that made them (and
    nowhere under ``reasoning="drop"``); a Gemini thought signature kept in extras
    only to Gemini.
    """
    found: list[str] = []
    for number, message in enumerate(conversation.messages):
        content = getattr(message, "content", None)
        blocks = content if isinstance(content, list) else []
        for position, block in enumerate(blocks):
            if getattr(block, "type", None) == "reasoning":
                source = block.provider
                replayed = reasoning != "drop" and source == upstream
                for name in OPAQUE:
                    if getattr(block, name, None) and not replayed:
                        where = f"/messages/{number}/content/{position}"
                        found.append(f"{where} {name} from {source or 'unknown'}")
            thought(found, block, f"/messages/{number}/content/{position}", upstream)
        for position, call in enumerate(getattr(message, "tool_calls", None) or []):
            thought(found, call, f"/messages/{number}/tool_calls/{position}", upstream)
    return found
