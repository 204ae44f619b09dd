"""A tour of chatschema on a bundled sample conversation: ``python -m chatschema.demo``."""

from __future__ import annotations

import json
from importlib import resources

import chatschema


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
