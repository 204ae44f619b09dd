"""What a decoder says when a request has no history where its format keeps one.

The sentence names the key that is missing, the keys that were found, and, when
those are another format's, that format (``contents``: Gemini, ``input``:
Responses ...), so that a wrong guess of the input's format says so. Keys are
written in backquotes: a long quoted stretch of a message is shortened, and double
quotes around keys would pair across the sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from chatschema.providers._common.reader import describe

__all__ = ["looks_like", "no_history"]

_SHOWN_KEYS = 8


def _has_blocks(messages: Any, typed: bool) -> bool:
    """Whether some message's content is a list of blocks with (or without) ``type``."""
    if not isinstance(messages, list):
        return False
    for message in messages:
        content = message.get("content") if isinstance(message, Mapping) else None
        if isinstance(content, list):
            for block in content:
                if isinstance(block, Mapping) and ("type" in block) == typed:
                    return True
    return False


def looks_like(data: Mapping[str, Any]) -> str | None:
    """The format (or kind of row) a request's keys point to, in words; None when none."""
    if "preferred_output" in data or "non_preferred_output" in data:
        return "an OpenAI preference fine-tuning row (its history is under `input`)"
    if "contents" in data:
        return "gemini"
    if "gen_ai.input.messages" in data:
        return "otel_genai"
    if "input" in data or "instructions" in data:
        return "openai_responses"
    if "prompt" in data and "completion" in data:
        return "a prompt/completion row, not a conversation"
    messages = data.get("messages")
    if messages is not None:
        if "modelId" in data or "inferenceConfig" in data or _has_blocks(messages, False):
            return "bedrock_converse"
        if isinstance(data.get("system"), list) or _has_blocks(messages, True):
            return "anthropic" if "system" in data else "openai_chat or anthropic"
        return "openai_chat"
    return None


def no_history(data: Any, key: str, provider: str, what: str = "messages") -> str:
    """The sentence for input that has no ``key`` (the list of ``what``) for ``provider``."""
    expected = f'expected {{"{key}": [...]}} or a list of {what}'
    if not isinstance(data, Mapping):
        return f"{expected}, not {describe(data)}"
    names = sorted(str(name) for name in data)
    found = ", ".join(f"`{name}`" for name in names[:_SHOWN_KEYS])
    if len(names) > _SHOWN_KEYS:
        found += f" and {len(names) - _SHOWN_KEYS} more"
    text = f"no `{key}` key (found: {found or 'no keys'}); {expected}"
    guess = looks_like(data)
    if guess is not None and guess != provider:
        if " " in guess:
            text += f"; this looks like {guess}"
        else:
            text += f"; the keys look like {guess}: decode it as {guess}"
    return text
