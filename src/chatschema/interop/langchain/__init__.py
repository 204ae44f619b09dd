"""LangChain interop: chatschema messages to and from ``langchain_core`` messages.

``langchain-core`` is an optional dependency (``pip install langchain-core``); this
module imports it, ``import chatschema`` never does.

- :func:`to_langchain` / :func:`message_to_langchain`: neutral messages to
  ``SystemMessage``, ``HumanMessage``, ``AIMessage`` and ``ToolMessage``, with list
  content as LangChain v1 standard content blocks.
- :func:`from_langchain` / :func:`message_from_langchain`: back to neutral messages.
- :func:`chunk_to_langchain` / :func:`chunk_from_langchain`: ``AssistantMessageChunk``
  to and from ``AIMessageChunk``.

Neutral -> LangChain -> neutral is the identity (compared with
:func:`chatschema.to_dict`). What LangChain has no field for travels in the places
LangChain keeps for such data, under the key ``"chatschema"``: a message's
``additional_kwargs["chatschema"]`` (metadata, extras of other providers, the
normalized finish reason when it differs from the one derived from LangChain's,
tool-call ``index``/``extras``, ...) and a block's or citation's
``extras["chatschema"]`` (reasoning ``summary`` and ``provider``, extras of other
providers). Prompt-cache breakpoints, reasoning signatures, encrypted reasoning,
image ``detail`` and file names use LangChain's own conventions in ``extras``
(``cache_control``, ``signature``, ``encrypted_content``, ``detail``, ``filename``).

LangChain -> neutral keeps everything: what the neutral model cannot name goes to
``extras["langchain"]`` of the message or block (for a reply's response metadata:
``response_metadata["langchain"]``), keyed as it was on the LangChain object, and
comes back out, so LangChain -> neutral -> LangChain gives an equal message, with the
exceptions listed in ``docs/interop.md``. Images, audio and files are neutral blocks in
every spelling LangChain documents: v1 blocks, OpenAI Chat Completions parts
(``image_url``, ``input_audio``, ``file``), v0 ``source_type`` blocks, base64 ``data:``
URLs (as ``base64`` + ``mime_type``); the spelling is recorded in
``extras["langchain"]`` (``{"form": "openai"}``, ``{"source_type": ...}``,
``{"form": "data_url"}``) and the block goes back in it. Other content items that are
not LangChain v1 standard blocks (provider-native blocks such as Anthropic
``thinking``) become ``non_standard`` blocks holding the item unchanged, unless
``standardize=True`` asks LangChain's own translators (``content_blocks``) first.
"""

from __future__ import annotations

try:
    import langchain_core.messages  # noqa: F401  (first, to name the install command)
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "chatschema.interop.langchain needs langchain-core, an optional dependency: "
        "pip install langchain-core (or pip install 'chatschema[langchain]')"
    ) from error

from chatschema.interop.langchain._from_lc import (
    chunk_from_langchain,
    from_langchain,
    message_from_langchain,
)
from chatschema.interop.langchain._shared import ESCAPE_KEY, NAMESPACE
from chatschema.interop.langchain._to_lc import (
    chunk_to_langchain,
    message_to_langchain,
    to_langchain,
)

__all__ = [
    "ESCAPE_KEY",
    "NAMESPACE",
    "chunk_from_langchain",
    "chunk_to_langchain",
    "from_langchain",
    "message_from_langchain",
    "message_to_langchain",
    "to_langchain",
]
