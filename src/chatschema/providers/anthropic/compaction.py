"""Anthropic's ``compaction`` block written back as it came (decoded in ``blocks.py``).

The Messages API returns it when context management compacts earlier turns (the
``compact_*`` edit): ``content`` is the readable summary, ``encrypted_content`` and
``signature`` are opaque, ``tool_changes`` (and any newer key) go to
``extras["anthropic"]``. A request sends it back in the assistant turn; the API also
takes one a client writes with only ``content`` (recorded).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chatschema_models.content import CompactionBlock

from chatschema.providers._common.replay import compaction_text, held_back
from chatschema.providers.anthropic.blocks import COMPACTION_FIELDS
from chatschema.providers.anthropic.wire import NAME

if TYPE_CHECKING:
    from chatschema.providers.anthropic.encode import _Encoder

__all__ = ["encode_compaction"]


def encode_compaction(
    encoder: _Encoder, block: CompactionBlock, index: int, position: int
) -> dict[str, Any] | None:
    """A compaction block sent back as it came; else its text or the unsupported policy.

    Anthropic's own (or one with no provider and no opaque value, as a client writes
    it) is replayed unless the ``replay`` policy keeps it back.
    """
    ours = block.provider == NAME or (block.provider is None and block.encrypted_content is None)
    if not ours:
        why = f"compaction block from {block.provider or 'another provider'}"
    elif held_back(encoder, block, encoder.target, index, position):
        why = "compaction block of another model (replay policy)"
    elif encoder.string:
        why = "compaction block in string content"
    else:
        wire: dict[str, Any] = {"type": "compaction"}
        for key, field in COMPACTION_FIELDS:
            value = getattr(block, field)
            if value is not None:
                wire[key] = value
        return encoder.finish(wire, block, block.cache_control, (index, "content", position))
    text = compaction_text(encoder, block, index, position, why)
    return None if text is None else {"type": "text", "text": text}
