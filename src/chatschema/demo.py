"""A tour of chatschema on a bundled sample conversation: ``chatschema demo``.

It validates the sample on both paths, round-trips it through the models, encodes it
for every provider format (and decodes each back), and shows how a broken copy is
reported. Opaque reasoning data is elided from what it prints.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import chatschema
from chatschema.providers import PROVIDERS, get_codec

_OPAQUE = {"signature", "thought_signature", "thoughtSignature", "encrypted_content", "data"}


def _shown(value: Any, key: str = "") -> Any:
    """A request for display: opaque values and long data elided."""
    if isinstance(value, dict):
        return {k: _shown(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_shown(item) for item in value]
    if isinstance(value, str) and (key in _OPAQUE or len(value) > 120):
        return f"<{len(value)} characters>"
    return value


def sample_conversation() -> str:
    """The bundled sample: text, an image, reasoning, a tool call and its result."""
    return (resources.files("chatschema") / "samples" / "conversation.json").read_text("utf-8")


def main() -> None:
    """Validate, parse and inspect the sample; show how problems are reported."""
    text = sample_conversation()
    chatschema.validate(json.loads(text), "Conversation")
    conversation = chatschema.parse_conversation(text)
    print(f"sample conversation: valid on both paths, {len(conversation.messages)} messages")
    for index, message in enumerate(conversation.messages):
        content = message.content
        kinds = "text" if isinstance(content, str) else ", ".join(b.type for b in content)
        calls = getattr(message, "tool_calls", [])
        extra = f" + {len(calls)} tool call(s)" if calls else ""
        print(f"  [{index}] {message.role:<9} {kinds}{extra}")

    round_trip = chatschema.to_dict(conversation) == json.loads(text)
    print(f"exact round trip through the models: {round_trip}")

    for name in PROVIDERS:
        codec = get_codec(name)
        what = "span attributes" if name == "otel_genai" else "the client's keyword arguments"
        print(f"\n--- {name}.encode(conversation): {what} ---")
        try:
            request = codec.encode(conversation)
        except chatschema.UnsupportedContentError as error:  # said, never dropped silently
            print(f"refused: {error}\nwith unsupported='placeholder':")
            request = codec.encode(conversation, unsupported="placeholder")
        except chatschema.ConversionError as error:  # not a request this API answers
            print(f"refused as a request: {error}\nas a history (request=False):")
            request = codec.encode(conversation, request=False)
        back = codec.decode_conversation(request)
        print(json.dumps(_shown(request), indent=2, ensure_ascii=False, default=repr))
        print(
            f"decoded back: {len(back.messages)} messages, roles "
            f"{' '.join(m.role for m in back.messages)}"
        )

    broken = json.loads(text)
    broken["messages"][1]["content"][1] = {"type": "image", "base64": "iVBORw0KGgo="}
    del broken["messages"][3]["tool_call_id"]
    broken["messages"][4]["role"] = "robot"
    try:
        chatschema.parse_conversation(json.dumps(broken))
    except chatschema.ValidationError as error:
        print(f"\na broken copy, as parse_conversation reports it:\n{error}")


if __name__ == "__main__":
    main()
