"""Mistral chat completions: the wire tables (``POST /v1/chat/completions``).

Mistral's API reference, "Chat Completion", as the ``mistralai`` SDK types it
(``mistralai.client.models``): the request, the message and content-chunk types,
the response and its stream chunks.
"""

from __future__ import annotations

import re
from typing import Final

NAME: Final = "mistral"
"""The format's name (``chatschema.providers.mistral``)."""

CHAT: Final = "openai_chat"
"""The format Mistral's wire object shares its walk with (the same message shapes)."""

ID_PATTERN: Final = re.compile(r"[a-zA-Z0-9]{9}")
"""API reference, ToolCall: Mistral refuses a tool-call id that is not 9 characters
``[a-zA-Z0-9]`` (a 422 on replayed histories of other providers)."""

ID_ALPHABET: Final = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

CHAT_PARTS: Final = frozenset({"text", "image_url"})
"""Content chunks with the same shape as Chat Completions' parts; the others
(``thinking``, ``document_url``, ``reference``, ``file``, ``input_audio`` with a
string, ``resource``, ...) are read by this codec itself."""

HIDDEN: Final = "mistral:"
"""Prefix that hides a Mistral chunk type from the shared walk while decoding."""

THINKING: Final = "thinking"
"""Magistral's reasoning chunk: ``{"type": "thinking", "thinking": [chunks]}``."""

FINISH_REASONS: Final = {
    "stop": "stop",
    "length": "length",
    # API reference, ChatCompletionChoice: the model's context length was reached
    "model_length": "length",
    "tool_calls": "tool_calls",
    "error": "error",
}
"""Mistral's finish reasons and their neutral value (the raw one is kept)."""

OUTPUT_LIMIT: Final = "max_tokens"
"""API reference: the output limit is ``max_tokens`` (no ``max_completion_tokens``)."""

SEED: Final = "random_seed"
"""API reference: the sampling seed is ``random_seed``."""
