"""The stream's release gate: chunks go out in the order of their items' positions.

Chunks assemble in the order each block (and call) first appears, so a block must
not appear before one placed ahead of it. Most items send something the moment
they are placed (a call's name, a text part, a reasoning id); an item that comes
whole only with its ``output_item.done`` (an MCP tool list, a file search ...) sends
nothing until then, and may be done after items that follow it: the API streams
several ``mcp_list_tools`` items at once and finishes them in any order (some only
in the final response). Chunks about a later position wait here until every
position before it has appeared; chunks about no position (model, usage ...) never
wait. Nothing waits when nothing is pending, the common case.
"""

from __future__ import annotations

from typing import Any

from chatschema_models.chunk import AssistantMessageChunk

from chatschema.providers.openai_responses.wire import NAME

__all__ = ["Gate"]


class Gate:
    """Which positions have appeared, and the chunks waiting for earlier ones."""

    __slots__ = ("held", "held_positions", "string_position", "unopened", "used")

    def __init__(self) -> None:
        self.unopened: set[int] = set()  # placed positions no released chunk named yet
        self.held: list[tuple[AssistantMessageChunk, tuple[int, ...]]] = []
        self.held_positions: set[int] = set()
        self.string_position = 0  # the position of a chunk with string content
        self.used = False  # a chunk was released (the first one names the provider)

    def place(self, position: int) -> None:
        """A new position, which no chunk named yet."""
        self.unopened.add(position)

    def release(self, chunks: list[AssistantMessageChunk]) -> list[AssistantMessageChunk]:
        """The chunks that may go out now, in order; the others wait.

        A chunk with ``chunk_position="last"`` lets every waiting chunk out before it.
        """
        if not self.unopened and not self.held:
            if chunks and not self.used:
                self.used = True
                chunks[0] = _named(chunks[0])
            return chunks
        out: list[AssistantMessageChunk] = []
        for chunk in chunks:
            if chunk.chunk_position == "last":
                out.extend(chunk for chunk, _ in self.held)
                self.held.clear()
                self.held_positions.clear()
                self.unopened.clear()
                out.append(chunk)
                continue
            positions = self.positions(chunk)
            if self.ready(positions):
                self.unopened.difference_update(positions)
                out.append(chunk)
            else:
                self.held.append((chunk, positions))
                self.held_positions.update(positions)
        if self.held and out:
            self.retry(out)
        if out and not self.used:
            self.used = True
            out[0] = _named(out[0])
        return out

    def ready(self, positions: tuple[int, ...]) -> bool:
        """Whether a chunk naming ``positions`` may go out: nothing before them pending."""
        if not positions:
            return True
        if self.held_positions.intersection(positions):
            return False  # after the waiting chunks of the same block
        last = max(positions)
        return not any(q < last and q not in positions for q in self.unopened)

    def retry(self, out: list[AssistantMessageChunk]) -> None:
        """Let out the waiting chunks that no longer wait, until none does."""
        progress = True
        while progress and self.held:
            progress = False
            waiting = self.held
            self.held = []
            self.held_positions = set()
            for chunk, positions in waiting:
                if self.ready(positions):  # (after any chunk of its block still waiting)
                    self.unopened.difference_update(positions)
                    out.append(chunk)
                    progress = True
                else:
                    self.held.append((chunk, positions))
                    self.held_positions.update(positions)

    def positions(self, chunk: AssistantMessageChunk) -> tuple[int, ...]:
        """The positions of the blocks and calls a chunk names."""
        content: Any = chunk.__dict__.get("content")
        found: list[int] = []
        if isinstance(content, str):
            if content:
                found.append(self.string_position)
        elif content:
            found.extend(block.index for block in content if block.index is not None)
        for fragment in chunk.tool_call_chunks or ():
            if fragment.index is not None:
                found.append(fragment.index)
        return tuple(found)


def _named(chunk: AssistantMessageChunk) -> AssistantMessageChunk:
    """The first chunk out names the provider."""
    if chunk.provider is not None:
        return chunk
    return chunk.model_copy(update={"provider": NAME})
