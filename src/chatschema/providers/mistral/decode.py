"""Decoding Mistral chat completion requests and responses into the neutral model."""

from __future__ import annotations

from typing import Any

from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message
from pydantic import BaseModel

from chatschema.providers import openai_chat
from chatschema.providers._common import decoder
from chatschema.providers.mistral.translate import (
    from_chat,
    guarded_call,
    put,
    to_chat_payload,
    to_chat_response,
)
from chatschema.providers.mistral.wire import NAME, OUTPUT_LIMIT

__all__ = ["decode_conversation", "decode_messages", "decode_response", "plain"]


def plain(payload: Any) -> Any:
    """A ``mistralai`` SDK object as its JSON data (anything else as it is)."""
    if isinstance(payload, BaseModel) and type(payload).__module__.startswith("mistralai"):
        return payload.model_dump(mode="json", by_alias=True)
    return payload


@decoder(NAME)
def decode_conversation(payload: Any) -> Conversation:
    """A Mistral chat completion request (or a bare message list) as a conversation.

    Settings go to ``settings`` (``max_tokens``, ``random_seed`` as ``seed``,
    ``top_k`` ...); every other request key (``safe_prompt``, ``prompt_mode``,
    ``parallel_tool_calls`` when not read, ``prediction`` ...) is kept verbatim in
    ``extras["mistral"]``. Thinking chunks are reasoning blocks; an assistant
    message's ``prefix`` is kept in its extras.

    Raises:
        ConversionError: for a malformed request, naming where.
    """
    conversation = guarded_call(openai_chat.decode_conversation, to_chat_payload(plain(payload)))
    conversation = from_chat(conversation)
    own = (conversation.extras or {}).get(NAME)
    if isinstance(own, dict):
        _own_settings(conversation, own)
    return conversation  # type: ignore[no-any-return]


def _own_settings(conversation: Conversation, own: dict[str, Any]) -> None:
    """``max_tokens`` is Mistral's only output limit; ``top_k`` is a setting."""
    if own.get("output_limit_key") == OUTPUT_LIMIT:
        del own["output_limit_key"]
    top_k = own.get("top_k")
    if type(top_k) is int and top_k >= 0:
        settings = conversation.settings
        if settings is None:
            from chatschema_models.conversation import GenerationSettings

            settings = GenerationSettings(top_k=top_k)
        else:
            settings = settings.model_copy(update={"top_k": top_k})
        del own["top_k"]
        put(conversation, "settings", settings)
    if not own:
        extras = dict(conversation.extras or {})
        del extras[NAME]
        put(conversation, "extras", extras or None)


def decode_messages(payload: Any) -> list[Message]:
    """The messages of a Mistral request (or a bare message list)."""
    return decode_conversation(payload).messages


@decoder(NAME)
def decode_response(payload: Any) -> AssistantMessage:
    """A complete Mistral ``ChatCompletionResponse`` (JSON or SDK object) as a message.

    Thinking chunks are reasoning blocks (``provider="mistral"``); the usage as
    Chat Completions' (``prompt_audio_seconds`` and other keys kept); the finish
    reason normalized (``model_length`` is ``length``, ``error`` is ``error``), the
    raw one kept.

    Raises:
        ConversionError: for a malformed response, naming where.
    """
    data = to_chat_response(plain(payload))
    message = from_chat(guarded_call(openai_chat.decode_response, data))
    for position, call in enumerate(message.tool_calls):
        own = (call.extras or {}).get(NAME)
        # API reference, ToolCall: a response's call says its position (written back)
        if isinstance(own, dict) and own.get("index") == position:
            rest = {key: value for key, value in own.items() if key != "index"}
            extras = {key: value for key, value in call.extras.items() if key != NAME}
            if rest:
                extras[NAME] = rest
            put(call, "extras", extras or None)
    return message  # type: ignore[no-any-return]
