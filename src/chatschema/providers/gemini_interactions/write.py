"""What the response body and the stream events share: steps, the status, kept metadata."""

from __future__ import annotations

from typing import Any

from chatschema_models.content import ReasoningBlock
from chatschema_models.message import AssistantMessage

from chatschema.providers._common import Options
from chatschema.providers._common.respond import Reply
from chatschema.providers.gemini_interactions.encode import SIBLING, _Encoder
from chatschema.providers.gemini_interactions.wire import FINISH, NAME, STATUS_OF

ID_ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"


class StepWriter(_Encoder):
    """The encoder's model steps, with the reply's unsupported policy."""

    def __init__(self, reply: Reply) -> None:
        super().__init__(Options(provider=NAME, check=False), collect=False)
        self.reply = reply

    def unsupported(
        self, what: str, message: int, block: int | None = None, *, where: str | None = None
    ) -> str | None:
        """The reply's policy (a response has one message)."""
        return self.reply.unsupported_content(what, block_index=block)

    def thought(self, block: ReasoningBlock, index: int, position: int) -> dict[str, Any] | None:
        """Any provider's reasoning text as a thought; only Gemini's signatures.

        (A response has no target model: the replay policy does not apply.)
        """
        if block.provider in (None, NAME, SIBLING):
            own = block.model_copy(update={"provider": NAME})
            return super().thought(own, index, position)
        if block.signature is not None or block.encrypted_content is not None:
            self.reply.unsupported_content(f"{block.provider} reasoning signature")
        text = block.text if block.text is not None else None
        summary = block.summary if block.summary is not None else ([text] if text else None)
        if not summary:
            return None
        return {"type": "thought", "summary": [{"type": "text", "text": t} for t in summary]}


def kept_of(message: AssistantMessage) -> dict[str, Any]:
    """This format's ``response_metadata`` (another provider's is not read)."""
    metadata = message.response_metadata
    kept = metadata.get(NAME) if metadata else None
    return kept if isinstance(kept, dict) else {}


def status_of(message: AssistantMessage) -> str:
    """The ``status``: the raw one when it says the neutral reason, else the reason's."""
    raw, reason = message.raw_finish_reason, message.finish_reason
    if raw is not None and raw in FINISH:
        said = FINISH[raw]
        if reason is None or said == reason or (said == "stop" and reason == "tool_calls"):
            return raw
    if reason is None:
        return "requires_action" if message.tool_calls else "completed"
    return STATUS_OF.get(reason, "completed")


def shifted(message: AssistantMessage, offset: int) -> AssistantMessage:
    """The message with its calls' step positions counted from its own first step."""
    if not offset or not message.tool_calls:
        return message
    calls = [
        call.model_copy(update={"index": max(0, call.index - offset)})
        if call.index is not None
        else call
        for call in message.tool_calls
    ]
    return message.model_copy(update={"tool_calls": calls})
