"""Assembling streamed replies: ``chunk + chunk``, :func:`merge_chunks`, :class:`ChunkAccumulator`.

The machinery lives in :mod:`chatschema._chunks`, beneath the generated models,
since their base class offers ``+`` and ``to_message()``; this module is its
public face.

Everything here is linear in the bytes streamed: deltas are appended to per-block
buffers and joined once; tool-call arguments stay raw text until the stream ends,
when they are parsed once, strictly. Nothing copies the accumulated message per chunk.

Merge policy, field by field:

=========================== ==================================================
field                       rule
=========================== ==================================================
``content`` (string)        appended (a string is shorthand for a text block
                            without ``index``: such a block right after string
                            deltas continues them)
content blocks              merged by (``index``, ``type``); a block without an
                            ``index`` is a new block. ``text`` (and reasoning's
                            ``signature`` and ``encrypted_content``) appended;
                            ``annotations`` and ``summary`` extended; ``extras``
                            deep-merged; any other field: the first value wins
``tool_call_chunks``        merged by ``index``: ``id`` and ``name`` from the
                            first fragment that has them, ``arguments`` appended
                            as raw text, ``extras`` deep-merged
``usage``                   ``usage_mode="delta"``: added up;
                            ``"cumulative"``: replaces what came before
``id``, ``response_id``,    the first value wins (never concatenated)
``model``, ``provider``,
``name``
``finish_reason``,          the last value wins
``raw_finish_reason``
``response_metadata``,      deep-merged, later values win
``metadata``, ``extras``
``chunk_position``          ``"last"`` once any chunk is last
=========================== ==================================================

Every appended string (a tool call's arguments, a block's text) is held to
:data:`chatschema.limits.MAX_STRING_CHARS`, counted as it grows: past it,
:meth:`ChunkAccumulator.add` raises a :class:`~chatschema.ValidationError`
(``maxLength``) pointing at the string (``/tool_call_chunks/0/arguments``).

When the message is finished (:meth:`ChunkAccumulator.to_message`), tool-call
arguments are parsed strictly: an object becomes a :class:`ToolCall`, anything else an
:class:`InvalidToolCall` with the raw text and the parse error. Block ``index`` values
locate deltas in a stream and are dropped from the finished message; tool calls keep
theirs (their position among the provider's output).

From async code everything works the same: a :class:`ChunkAccumulator` is fed the
chunks of an ``async for`` over ``decode_stream`` (which gives an async generator for
an async source, ``docs/async.md``); none of it does I/O. :func:`amerge_chunks` is
:func:`merge_chunks` for an async iterable of chunks.
"""

from __future__ import annotations

from collections.abc import AsyncIterable
from typing import TYPE_CHECKING

from chatschema._chunks import ChunkAccumulator, add_chunks, merge_chunks, not_chunks

if TYPE_CHECKING:
    from chatschema_models.chunk import AssistantMessageChunk

__all__ = ["ChunkAccumulator", "add_chunks", "amerge_chunks", "merge_chunks"]


async def amerge_chunks(chunks: AsyncIterable[AssistantMessageChunk]) -> AssistantMessageChunk:
    """:func:`merge_chunks` of an async stream: every chunk merged as it arrives.

    ::

        reply = (await amerge_chunks(anthropic.decode_stream(stream))).to_message()

    Raises:
        ValidationError: for something that is not an async iterable of chunks
            (``type``), and for a string past the string limit (``maxLength``).
    """
    if not isinstance(chunks, AsyncIterable):
        raise not_chunks(chunks, "an async iterable")
    accumulator = ChunkAccumulator()
    async for chunk in chunks:
        accumulator.add(chunk)
    return accumulator.to_chunk()
