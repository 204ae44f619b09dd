"""No silent loss: every field of every schema type, through every codec.

The test walks ``generated/chatschema.schema.json`` and, for each field of each object
type, builds a conversation that sets it (``SAMPLES``: a value per field, placed in a
conversation by ``HOSTS``), encodes it for each codec with ``unsupported="error"`` and
decodes the request again. Each field ends up in one of four outcomes:

- **carried**: the value comes back at the same place;
- **mapped**: the request differs from the one without the field (the provider gets it
  in its own form), though it comes back in another form;
- **unsupported**: ``encode`` raises ``UnsupportedContentError`` naming the message
  (and the block, for a block's field);
- **dropped**: listed in ``DROPPED`` below with the reason - never sent by design
  (``metadata``, ``artifact``), response data, or a documented policy (foreign
  reasoning, a ``name`` the format has no place for). The test checks that each listed
  field is indeed absent from the request, so the list stays true.

Anything else is a silent loss, and fails. Types that never go into a request
(streamed chunks, usage) are listed in ``NOT_SENT`` with the reason.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import hostile as H
import pytest

import chatschema
from chatschema.errors import UnsupportedContentError
from chatschema.providers import PROVIDERS, get_codec

PNG = H.PNG
PDF = "JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K"
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="

NOT_SENT = {
    "AssistantMessageChunk": "a streamed piece: assembled into an AssistantMessage first",
    "ToolCallChunk": "a streamed piece of a tool call: assembled into a ToolCall first",
    "Usage": "response data (AssistantMessage.usage): decode_response fills it, requests "
    "have no place for it",
    "InputTokenDetails": "part of Usage (response data)",
    "OutputTokenDetails": "part of Usage (response data)",
}

# ------------------------------------------------------------------- samples

# A minimal valid object of each type, and the value each field is set to. A value
# may depend on the codec (a provider's own reasoning, server tools, blocks).
BASE: dict[str, dict[str, Any]] = {
    "SystemMessage": {"role": "system", "content": "Be brief."},
    "UserMessage": {"role": "user", "content": "Hello"},
    "AssistantMessage": {"role": "assistant", "content": "Hi"},
    "ToolMessage": {"role": "tool", "tool_call_id": "call_1", "content": "42"},
    "TextBlock": {"type": "text", "text": "Look"},
    "RefusalBlock": {"type": "refusal", "text": "No."},
    "ReasoningBlock": {"type": "reasoning", "text": "Thinking", "signature": H.SIGNATURE},
    # (each codec's own reasoning: see base())
    "ImageBlock": {"type": "image", "url": "https://example.com/a.png"},
    "AudioBlock": {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
    "VideoBlock": {"type": "video", "url": "https://example.com/a.mp4"},
    "FileBlock": {"type": "file", "base64": PDF, "mime_type": "application/pdf"},
    "PlainTextBlock": {"type": "text-plain", "text": "Notes"},
    "ServerToolCallBlock": {
        "type": "server_tool_call",
        "id": "srvtoolu_1",
        "name": "web_search",
        "arguments": {"query": "q"},
    },
    "ServerToolResultBlock": {
        "type": "server_tool_result",
        "tool_call_id": "srvtoolu_1",
        "status": "success",
        "output": [{"type": "web_search_result", "url": "https://example.com", "title": "t"}],
    },
    "NonStandardBlock": {"type": "non_standard", "value": {"type": "x_block", "x": 1}},
    "ResourceBlock": {"type": "resource", "uri": "file:///notes.md", "text": "Notes"},
    "ResourceLinkBlock": {"type": "resource_link", "uri": "file:///report.pdf"},
    # (each codec's own compaction where it has one: see base())
    "CompactionBlock": {"type": "compaction", "text": "Summary so far.", "provider": "anthropic"},
    "Citation": {
        "type": "citation",
        "url": "https://example.com",
        "title": "Example",
        "start_index": 0,
        "end_index": 7,
    },
    "NonStandardAnnotation": {"type": "non_standard_annotation", "value": {"x": 1}},
    "CacheControl": {"type": "ephemeral"},
    "ToolCall": {"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}},
    "InvalidToolCall": {"id": "call_9", "name": "get_weather", "arguments": "{oops"},
    "ToolDefinition": {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    },
    "AutoToolChoice": {"type": "auto"},
    "NoneToolChoice": {"type": "none"},
    "RequiredToolChoice": {"type": "required"},
    "NamedToolChoice": {"type": "tool", "name": "get_weather"},
    "AllowedToolsChoice": {"type": "allowed", "names": ["get_weather"], "mode": "required"},
    "Conversation": {},
    "GenerationSettings": {},
    "TextResponseFormat": {"type": "text"},
    "JsonObjectResponseFormat": {"type": "json_object"},
    "JsonSchemaResponseFormat": {"type": "json_schema", "json_schema": {"type": "object"}},
}


OWN_REASONING: dict[str, dict[str, Any]] = {
    "openai_chat": {"type": "reasoning", "text": "Thinking", "provider": "openai_chat"},
    "openai_responses": {
        "type": "reasoning",
        "id": "rs_1",
        "summary": ["Thinking"],
        "encrypted_content": H.ENCRYPTED,
        "provider": "openai_responses",
    },
    "open_responses": {
        "type": "reasoning",
        "id": "rs_1",
        "text": "Thinking",
        "summary": ["Thinking"],
        "encrypted_content": H.ENCRYPTED,
        "provider": "open_responses",
    },
    "anthropic": {
        "type": "reasoning",
        "text": "Thinking",
        "signature": H.SIGNATURE,
        "provider": "anthropic",
    },
    "gemini": {
        "type": "reasoning",
        "text": "Thinking",
        "signature": H.SIGNATURE,
        "provider": "gemini",
    },
    "bedrock_converse": {
        "type": "reasoning",
        "text": "Thinking",
        "signature": H.SIGNATURE,
        "provider": "bedrock_converse",
    },
    "mistral": {"type": "reasoning", "text": "Thinking", "provider": "mistral"},
    "gemini_interactions": {
        "type": "reasoning",
        "text": "Thinking",
        "signature": H.SIGNATURE,
        "provider": "gemini_interactions",
    },
    # telemetry: reasoning text, the opaque fields never written (otel_genai.md)
    "otel_genai": {"type": "reasoning", "text": "Thinking", "provider": "otel_genai"},
}
SOURCES = ("url", "base64", "file_id")


def base(type_name: str, codec: str) -> dict[str, Any]:
    """The minimal object of a type for a codec (its own reasoning)."""
    if type_name == "ReasoningBlock":
        return copy.deepcopy(OWN_REASONING[codec])
    if type_name == "CompactionBlock" and codec == "openai_responses":
        return {
            "type": "compaction",
            "id": "cmp_1",
            "encrypted_content": H.ENCRYPTED,
            "provider": codec,
        }
    return copy.deepcopy(BASE[type_name])


def changed(type_name: str, field: str, codec: str) -> dict[str, Any]:
    """The object with ``field`` set (a source replaces the others)."""
    obj = base(type_name, codec)
    value = _value(type_name, field, codec)
    if field in SOURCES and "mime_type" in BUNDLE_DEFS[type_name]["properties"]:
        obj = {key: item for key, item in obj.items() if key not in (*SOURCES, "text")}
        if field == "base64":
            obj["mime_type"] = MIME[type_name]
    obj[field] = value
    return obj


MIME = {
    "ImageBlock": "image/png",
    "AudioBlock": "audio/wav",
    "VideoBlock": "video/mp4",
    "FileBlock": "application/pdf",
    "PlainTextBlock": "text/plain",
    "ResourceBlock": "image/png",
}


def _value(type_name: str, field: str, codec: str) -> Any:
    """The value a field is set to (different from BASE's)."""
    by_field: dict[str, Any] = {
        "id": {
            "ServerToolCallBlock": "srvtoolu_2",
            "ToolCall": "call_2",
            "InvalidToolCall": "call_8",
        }.get(type_name, "id_1"),
        "name": {"ToolCall": "get_time", "NamedToolChoice": "get_weather"}.get(type_name, "alice"),
        "metadata": {"app": {"trace": 7}},
        "extras": {codec: {"x_unknown": 1}},
        "index": 0,
        "cache_control": {"type": "ephemeral", "ttl": "1h"},
        "provider": codec,
        "text": "Changed text",
        "annotations": [{"type": "citation", "url": "https://example.org", "title": "Org"}],
        "summary": ["A summary."],
        "signature": H.SIGNATURE + "x",
        "encrypted_content": H.ENCRYPTED,
        "url": "https://example.com/b.bin",
        "base64": PNG,
        "mime_type": "image/png",
        "file_id": "file_123",
        "detail": "low",
        "filename": "report.pdf",
        "title": "A title",
        "context": "Some context",
        "arguments": {"query": "other"} if type_name != "InvalidToolCall" else "{also bad",
        "tool_call_id": "srvtoolu_1" if type_name == "ServerToolResultBlock" else "call_1",
        "status": "error",
        "output": [{"type": "web_search_result", "url": "https://example.org", "title": "u"}],
        "value": {"type": "x_other", "y": 2},
        "uri": "file:///other.md",
        "size": 2048,
        "start_index": 1,
        "end_index": 4,
        "cited_text": "ample",
        "ttl": "1h",
        "parallel": False,
        "description": "Weather for a city.",
        "parameters": {"type": "object", "properties": {"day": {"type": "string"}}},
        "strict": True,
        "error": "arguments are not valid JSON",
        "content": "Changed content",
        "artifact": {"full": "output"},
        "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3},
        "model": "gpt-test",
        "endpoint": "https://example.com/v1",
        "response_id": "resp_1",
        "finish_reason": "stop",
        "raw_finish_reason": "end_turn",
        "response_metadata": {codec: {"x": 1}},
        "tool_calls": [{"id": "call_5", "name": "get_weather", "arguments": {"city": "Rome"}}],
        "invalid_tool_calls": [{"id": "call_6", "name": "get_weather", "arguments": "{x"}],
        "messages": [
            {"role": "user", "content": "Question?"},
            {"role": "assistant", "content": "Answer."},
            {"role": "user", "content": "More?"},
        ],
        "tools": [{"name": "lookup", "parameters": {"type": "object"}}],
        "tool_choice": {"type": "none"},
        "names": ["get_weather", "lookup"],
        "mode": "auto",
        "settings": {"model": "gpt-test"},
        "max_output_tokens": 256,
        "temperature": 0.5,
        "top_p": 0.9,
        "top_k": 40,
        "stop": ["END"],
        "seed": 7,
        "presence_penalty": 0.5,
        "frequency_penalty": 0.25,
        "response_format": {"type": "json_object"},
        "reasoning_effort": "low",
        "thinking_budget": 1024,
        "json_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    if field == "extras":
        return {codec: _extras(type_name, codec)}
    if type_name == "ImageBlock" and field == "url":
        return "https://example.com/other.png"
    if type_name == "AudioBlock" and field in ("base64", "mime_type"):
        return {"base64": "UklGRg==", "mime_type": "audio/mpeg"}[field]
    if type_name == "FileBlock" and field in ("base64", "mime_type"):
        return {"base64": PDF + "AA==", "mime_type": "application/pdf"}[field]
    if type_name == "VideoBlock" and field == "mime_type":
        return "video/mp4"
    if type_name == "NonStandardBlock" and field == "value":
        return NATIVE_BLOCKS.get(codec, {"type": "x_other", "y": 2})
    if type_name == "ServerToolCallBlock" and field == "name":
        return "web_fetch"
    return by_field[field]


def _extras(type_name: str, codec: str) -> dict[str, Any]:
    """Provider data a codec has no field for, in the place the codec keeps it."""
    unknown = {"x_unknown": 1}
    if codec not in ("openai_responses", "open_responses"):
        return unknown
    if type_name.endswith("Message") or type_name in ("ToolCall", "InvalidToolCall"):
        return {"item": unknown}
    if type_name in ("ReasoningBlock", "CompactionBlock"):  # a reasoning / compaction item
        return {"item": unknown}
    if type_name == "ToolDefinition":
        return {"fields": unknown}
    if type_name.endswith("Block"):
        return {"part": unknown}
    return unknown


NATIVE_BLOCKS = {  # a block each format has and the neutral model has no type for
    "anthropic": {"type": "search_result", "source": "s", "title": "t", "content": []},
    "openai_responses": {"type": "item_reference", "id": "msg_stored"},
    "open_responses": {"type": "item_reference", "id": "msg_stored"},
    "gemini": {"executable_code": {"language": "PYTHON", "code": "print(1)"}},
    "openai_chat": {"type": "input_audio_ref", "id": "a"},
    "mistral": {"type": "reference", "reference_ids": [1]},
}

# ------------------------------------------------------------------- hosts

_USER_SIDE = {
    "TextBlock",
    "ImageBlock",
    "AudioBlock",
    "VideoBlock",
    "FileBlock",
    "PlainTextBlock",
    "NonStandardBlock",
    "ResourceBlock",
    "ResourceLinkBlock",
}
_ASSISTANT_SIDE = {
    "RefusalBlock",
    "ReasoningBlock",
    "ServerToolCallBlock",
    "ServerToolResultBlock",
    "CompactionBlock",
}


def host(type_name: str, obj: dict[str, Any], codec: str) -> tuple[dict[str, Any], tuple[Any, ...]]:
    """A conversation holding ``obj`` (of ``type_name``), and the path to it."""
    user = {"role": "user", "content": "Question?"}
    call = {"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}}
    tool = {
        "name": "get_weather",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
    }
    if type_name == "SystemMessage":
        return {"messages": [obj, user]}, ("messages", 0)
    if type_name == "UserMessage":
        return {"messages": [obj]}, ("messages", 0)
    if type_name == "AssistantMessage":
        results = [
            {"role": "tool", "tool_call_id": item["id"], "content": "r"}
            for item in [*obj.get("tool_calls", ()), *obj.get("invalid_tool_calls", ())]
        ]
        return {"messages": [user, obj, *results]}, ("messages", 1)
    if type_name == "ToolMessage":
        calls = [{**call, "id": obj["tool_call_id"]}]
        return {"messages": [user, {"role": "assistant", "tool_calls": calls}, obj]}, (
            "messages",
            2,
        )
    if type_name in _USER_SIDE:
        return {"messages": [{"role": "user", "content": [obj]}]}, ("messages", 0, "content", 0)
    if type_name in _ASSISTANT_SIDE:
        message: dict[str, Any] = {
            "role": "assistant",
            "content": [obj, {"type": "text", "text": "A"}],
        }
        if type_name == "ReasoningBlock":
            message["provider"] = codec
        return {"messages": [user, message]}, ("messages", 1, "content", 0)
    if type_name in ("Citation", "NonStandardAnnotation"):
        text = {"type": "text", "text": "Example text.", "annotations": [obj]}
        if codec in ("openai_responses", "open_responses"):
            text["id"] = "msg_1"
        return {"messages": [user, {"role": "assistant", "content": [text]}]}, (
            "messages",
            1,
            "content",
            0,
            "annotations",
            0,
        )
    if type_name == "CacheControl":
        text = {"type": "text", "text": "Cache me", "cache_control": obj}
        return {"messages": [{"role": "user", "content": [text]}]}, (
            "messages",
            0,
            "content",
            0,
            "cache_control",
        )
    if type_name == "ToolCall":
        result = {"role": "tool", "tool_call_id": obj["id"], "content": "r"}
        return {"messages": [user, {"role": "assistant", "tool_calls": [obj]}, result]}, (
            "messages",
            1,
            "tool_calls",
            0,
        )
    if type_name == "InvalidToolCall":
        messages: list[Any] = [user, {"role": "assistant", "invalid_tool_calls": [obj]}]
        if "id" in obj:
            messages.append({"role": "tool", "tool_call_id": obj["id"], "content": "r"})
        return {"messages": messages}, ("messages", 1, "invalid_tool_calls", 0)
    if type_name == "ToolDefinition":
        return {"messages": [user], "tools": [obj]}, ("tools", 0)
    if type_name.endswith("ToolChoice"):
        return {"messages": [user], "tools": [tool], "tool_choice": obj}, ("tool_choice",)
    if type_name == "AllowedToolsChoice":
        lookup = {"name": "lookup", "parameters": {"type": "object"}}
        return {"messages": [user], "tools": [tool, lookup], "tool_choice": obj}, ("tool_choice",)
    if type_name == "GenerationSettings":
        return {"messages": [user], "settings": obj}, ("settings",)
    if type_name.endswith("ResponseFormat"):
        return {"messages": [user], "settings": {"response_format": obj}}, (
            "settings",
            "response_format",
        )
    assert type_name == "Conversation"
    return {"messages": [user], **obj}, ()


# ------------------------------------------------------- documented drops

_NEVER_SENT = "never sent to a model, by definition (application data)"
_RESPONSE = "response data: requests have no place for it (decode_response fills it)"
_NO_NAME = "the format has no place for a participant name (docs/providers/*.md)"
_NO_ID = "the format has no message ids in requests"
_STREAM_INDEX = "a position in a stream: not part of a request"

DROPPED: dict[tuple[str, str], dict[str, str]] = {}


def _drop(types: str, fields: str, codecs: str, reason: str) -> None:
    for type_name in types.split():
        for field in fields.split():
            for codec in PROVIDERS if codecs == "*" else codecs.split():
                DROPPED.setdefault((type_name, field), {})[codec] = reason


_MESSAGES = "SystemMessage UserMessage AssistantMessage ToolMessage"
_BLOCKS = (
    "TextBlock RefusalBlock ReasoningBlock ImageBlock AudioBlock VideoBlock FileBlock "
    "PlainTextBlock ServerToolCallBlock ServerToolResultBlock NonStandardBlock"
)
_ALL = "openai_chat openai_responses anthropic gemini"

# never sent, by definition
_drop(_MESSAGES, "metadata", _ALL, _NEVER_SENT)
_drop("ToolMessage", "artifact", _ALL, _NEVER_SENT)
_drop("Conversation", "metadata id", _ALL, _NEVER_SENT + "; a dataset's own id")
_drop(
    "AssistantMessage",
    "usage model provider response_id finish_reason raw_finish_reason response_metadata",
    _ALL,
    _RESPONSE,
)
# ids and positions
_drop(_MESSAGES, "id", _ALL, _NO_ID)
_drop(_BLOCKS, "index", _ALL, _STREAM_INDEX)
# provenance of opaque values: read by the replay policy, never sent (opaque-values.md)
_drop("ReasoningBlock CompactionBlock", "model endpoint", "*", "provenance: never sent")
_drop("CompactionBlock", "index", "*", _STREAM_INDEX)
_drop("CompactionBlock", "id", "anthropic", "an Anthropic compaction block has no id")
_drop(
    "CompactionBlock",
    "text signature cache_control",
    "openai_responses",
    "a compaction item has only its id and encrypted_content (openai_responses.md)",
)
_drop(
    "ToolCall InvalidToolCall",
    "index",
    _ALL,
    "a position among the turn's items: implied by their order on the wire (kept where "
    "the order is not the canonical one)",
)
_drop(
    _BLOCKS,
    "id",
    "openai_chat anthropic gemini",
    "request parts have no id (anthropic.md: block id left out)",
)
_drop(
    "TextBlock",
    "id",
    "openai_responses",
    "user input_text parts have no id (assistant text: the message item id, carried)",
)
_drop(
    "ImageBlock AudioBlock FileBlock VideoBlock PlainTextBlock",
    "id",
    "openai_responses",
    "input parts have no id",
)
_drop("ServerToolCallBlock", "provider", "anthropic", "the format itself: implied by the wire")
# names
_drop(
    "UserMessage SystemMessage AssistantMessage",
    "name",
    "openai_responses anthropic gemini",
    _NO_NAME,
)
_drop("ToolMessage", "name", "openai_chat anthropic", "left out; decoding sets it from the call")
# extras the wire object has no room for
_drop(
    "UserMessage SystemMessage AssistantMessage",
    "extras",
    "anthropic gemini",
    "wire messages take only role and content / parts; extras keys there are the "
    "codec's markers (anthropic.md: extras keys)",
)
_drop(
    "AssistantMessage",
    "extras",
    "openai_responses",
    "an assistant message is a run of output items: item data lives on its blocks and calls",
)
_drop("ToolMessage", "extras", "gemini", "undocumented: function_response keys not kept")
_drop(
    "RefusalBlock",
    "extras",
    "openai_responses",
    "an id-less refusal is sent as assistant text: part extras left out (openai_responses.md)",
)
# annotations: response data
_ANNOTATIONS = "annotations are response data: requests do not take them back"
_drop("TextBlock", "annotations", _ALL, _ANNOTATIONS + " (and user text has none)")
_drop(
    "Citation",
    "id url title start_index end_index cited_text extras",
    "openai_chat gemini",
    _ANNOTATIONS,
)
_drop(
    "Citation",
    "id url title start_index end_index cited_text extras",
    "anthropic",
    "the API only takes back citations it produced (Anthropic extras), others are left out",
)
_drop("Citation", "id cited_text extras", "openai_responses", "url_citation has no such key")
_drop(
    "NonStandardAnnotation",
    "id value provider extras",
    "openai_chat gemini anthropic",
    _ANNOTATIONS,
)
_drop("NonStandardAnnotation", "id provider extras", "openai_responses", "kept as the value only")
# cache markers
_drop(
    "TextBlock ImageBlock AudioBlock VideoBlock FileBlock PlainTextBlock RefusalBlock "
    "ReasoningBlock",
    "cache_control",
    "gemini",
    "Gemini has no per-part cache marker (gemini.md, prompt_cache)",
)
_drop("CacheControl", "ttl", "gemini", "Gemini has no per-part cache marker")
_drop(
    "RefusalBlock ReasoningBlock",
    "cache_control",
    "openai_chat openai_responses",
    "breakpoints go on input parts only",
)
_drop("ReasoningBlock", "cache_control", "anthropic", "thinking takes no cache marker")
# media details
_drop(
    "ImageBlock",
    "mime_type",
    "openai_chat openai_responses anthropic",
    "undocumented: next to a URL the wire has no media type",
)
_drop("ImageBlock", "detail", "anthropic gemini", "no equivalent on the wire (documented)")
_drop("FileBlock", "filename", "gemini", "no field on the wire (gemini.md, Checks)")
_drop("PlainTextBlock", "title context", "gemini", "no field on the wire (gemini.md, Checks)")
_drop("PlainTextBlock", "mime_type", "anthropic", "always text/plain (anthropic.md)")
# tools
_drop(
    "ToolMessage",
    "status",
    "openai_chat openai_responses",
    "no error flag on the wire: say it in the text (documented)",
)
_drop(
    "InvalidToolCall",
    "error",
    "openai_chat openai_responses",
    "not sent: decoding finds the same error again",
)
_drop("ToolDefinition", "strict", "gemini", "no equivalent (gemini.md)")
_drop(
    "AllowedToolsChoice",
    "extras",
    "gemini",
    "function_calling_config has no other member: tool_config's other keys are the "
    "conversation's extras (gemini.md)",
)
_drop(
    "JsonSchemaResponseFormat",
    "strict",
    "anthropic gemini",
    "the schema is always enforced (anthropic.md, gemini.md): strict=true says nothing "
    "more, strict=false is unsupported",
)
_drop(
    "JsonSchemaResponseFormat",
    "name",
    "anthropic",
    "output_config.format has no name (anthropic.md, Request settings)",
)
_drop(
    "AutoToolChoice RequiredToolChoice NamedToolChoice",
    "parallel",
    "gemini",
    "no equivalent (gemini.md)",
)
_drop(
    "ToolDefinition",
    "provider",
    "openai_chat openai_responses anthropic",
    "marks a hosted tool of that format: a function definition has no place for it",
)
# reasoning
_drop(
    "ReasoningBlock",
    "text summary signature encrypted_content provider id extras",
    "openai_chat",
    "Chat Completions takes reasoning back only as reasoning_content, with the option "
    "reasoning_content=True (openai_chat.md, Options)",
)
_drop(
    "ReasoningBlock",
    "summary encrypted_content id",
    "anthropic gemini",
    "undocumented: a thinking part has no such field (the signed text is what replays)",
)
_drop(
    "ReasoningBlock",
    "signature",
    "openai_responses",
    "undocumented: reasoning items have no signature (encrypted_content replays)",
)
# Bedrock Converse (docs/providers/bedrock_converse.md, "Left out")
_BEDROCK = "bedrock_converse"
_drop(_MESSAGES, "metadata", _BEDROCK, _NEVER_SENT)
_drop("ToolMessage", "artifact", _BEDROCK, _NEVER_SENT)
_drop("Conversation", "metadata id", _BEDROCK, _NEVER_SENT + "; a dataset's own id")
_drop(
    "AssistantMessage",
    "usage model provider response_id finish_reason raw_finish_reason response_metadata",
    _BEDROCK,
    _RESPONSE,
)
_drop(_MESSAGES, "id", _BEDROCK, _NO_ID)
_drop(_BLOCKS, "index", _BEDROCK, _STREAM_INDEX)
_drop(_BLOCKS, "id", _BEDROCK, "content blocks have no id")
_drop("ToolCall", "index", _BEDROCK, "a position among the blocks: implied by the wire order")
_drop("UserMessage SystemMessage AssistantMessage", "name", _BEDROCK, _NO_NAME)
_drop("ToolMessage", "name", _BEDROCK, "left out; decoding sets it from the call")
_drop(
    "UserMessage SystemMessage AssistantMessage TextBlock RefusalBlock",
    "extras",
    _BEDROCK,
    "a wire message takes role and content, a text block its text: extras keys there are "
    "the codec's markers",
)
_drop("Citation", "id start_index end_index", _BEDROCK, "Converse citations have no such key")
_drop(
    "NonStandardAnnotation",
    "id value extras",
    _BEDROCK,
    "another format's annotation: Converse takes back only its own citations",
)
_drop(
    "AutoToolChoice RequiredToolChoice NamedToolChoice",
    "parallel",
    _BEDROCK,
    "no equivalent (bedrock_converse.md)",
)
_drop(
    "Conversation",
    "tool_choice",
    _BEDROCK,
    "toolChoice goes inside toolConfig, with the tools: without tools it is left out",
)
_drop(
    "PlainTextBlock",
    "mime_type",
    _BEDROCK,
    "a text document's format: txt unless the type names another document format",
)
_drop(
    "ReasoningBlock",
    "summary encrypted_content",
    _BEDROCK,
    "reasoning with text replays as reasoningText; redacted content replays only alone",
)

# OpenTelemetry GenAI (docs/providers/otel_genai.md, "Left out"): telemetry records
# content; what only steers a provider has no attribute. Opaque reasoning data is left
# out too, but says so (a `chatschema.omitted` member): "mapped", not listed here.
_OTEL = "otel_genai"
_drop(_MESSAGES, "metadata", _OTEL, _NEVER_SENT)
_drop("ToolMessage", "artifact", _OTEL, _NEVER_SENT)
_drop("Conversation", "metadata", _OTEL, _NEVER_SENT)
_drop(
    "AssistantMessage",
    "usage model provider response_id finish_reason raw_finish_reason response_metadata",
    _OTEL,
    _RESPONSE + " (gen_ai.output.messages and the gen_ai.response.* attributes carry it: "
    "encode_output, chatschema.telemetry)",
)
_drop(_BLOCKS, "index", _OTEL, _STREAM_INDEX)
_drop(
    "ToolCall InvalidToolCall",
    "index",
    _OTEL,
    "a position among the message's parts: implied by their order (kept where the order "
    "is not the canonical one)",
)
_drop(
    _BLOCKS,
    "cache_control",
    _OTEL,
    "a prompt-cache breakpoint steers the provider: no GenAI part member",
)
_drop("CacheControl", "ttl", _OTEL, "part of a cache breakpoint (not recorded)")
_drop("InvalidToolCall", "error", _OTEL, "not recorded: decoding finds the same error again")

# Resource blocks (docs/providers.md, "Resources"): no format but otel_genai has a
# resource part; an embedded resource is sent as the text, image or document it maps
# to, whose fields are what is listed here. A resource link of the base is refused.
_RESOURCES = "ResourceBlock ResourceLinkBlock"
_drop(_RESOURCES, "index", f"{_ALL} {_BEDROCK} {_OTEL}", _STREAM_INDEX)
_drop(_RESOURCES, "cache_control", _OTEL, "a prompt-cache breakpoint: no GenAI part member")
_drop(
    "ResourceBlock",
    "cache_control",
    "gemini mistral",
    "no per-part cache marker (gemini.md; Mistral caches by prompt_cache_key)",
)
_drop(
    "ResourceBlock",
    "id",
    f"{_ALL} {_BEDROCK}",
    "sent as the text or media part it maps to: no resource, no block id",
)
_drop(
    "ResourceBlock",
    "uri mime_type",
    f"openai_chat openai_responses gemini {_BEDROCK}",
    "an embedded text resource is sent as its text: the format has no resource part",
)
_drop("ResourceBlock", "mime_type", "anthropic", "a plain-text document is always text/plain")
_drop("ResourceBlock", "extras", _BEDROCK, "sent as a text block, whose extras are markers")

# Open Responses (docs/providers/open_responses.md): the Responses wire object, its drops.
for _reasons in DROPPED.values():
    if "openai_responses" in _reasons:
        _reasons.setdefault("open_responses", _reasons["openai_responses"])
_drop(
    "VideoBlock",
    "mime_type",
    "open_responses",
    "undocumented: next to a URL input_video has no media type",
)
_drop(
    "ReasoningBlock",
    "text",
    "open_responses",
    "ReasoningItemParam: a request's reasoning item has no content (output only)",
)

# Mistral (docs/providers/mistral.md): the Chat Completions walk, its drops, but reasoning.
for _reasons in DROPPED.values():
    if "openai_chat" in _reasons:
        _reasons.setdefault("mistral", _reasons["openai_chat"])
for _field in ("text", "signature", "provider", "extras"):
    del DROPPED["ReasoningBlock", _field]["mistral"]  # a thinking chunk carries them
_drop(
    "ReasoningBlock",
    "summary encrypted_content id",
    "mistral",
    "undocumented: a thinking chunk has no such field (its text is what replays)",
)
_drop("ReasoningBlock", "model", "mistral", "a thinking chunk has no model: the reply's own")
_drop(
    "TextBlock ImageBlock AudioBlock FileBlock",
    "cache_control",
    "mistral",
    "no cache marker on a content chunk: Mistral caches by prompt_cache_key (mistral.md)",
)
_drop("CacheControl", "ttl", "mistral", "no cache marker on a content chunk (mistral.md)")
_drop("AudioBlock", "mime_type", "mistral", "input_audio is the base64 data only (AudioChunk)")
_drop("FileBlock", "mime_type", "mistral", "document_url is the URL only (DocumentURLChunk)")
_drop(
    "ToolMessage",
    "tool_call_id",
    "mistral",
    "rewritten to 9 characters [a-zA-Z0-9] with its call (mistral_ids, reported; "
    "mistral.restore_ids gives the original back)",
)

# Gemini Interactions (docs/providers/gemini_interactions.md, "Left out")
_GI = "gemini_interactions"
_drop(_MESSAGES, "metadata", _GI, _NEVER_SENT)
_drop("ToolMessage", "artifact", _GI, _NEVER_SENT)
_drop("Conversation", "metadata id", _GI, _NEVER_SENT + "; a dataset's own id")
_drop(
    "AssistantMessage",
    "usage model provider response_id finish_reason raw_finish_reason response_metadata",
    _GI,
    _RESPONSE,
)
_drop(_MESSAGES, "id", _GI, "steps have no id in requests")
_drop(_MESSAGES, "name", _GI, _NO_NAME)
_drop(
    _MESSAGES,
    "extras",
    _GI,
    "a message is one or more steps: extras keys there are the codec's markers (the "
    "steps' own keys live on their blocks and calls)",
)
_drop(_BLOCKS, "index", _GI, _STREAM_INDEX)
_drop(_BLOCKS, "id", _GI, "content items have no id")
_drop(
    "ToolCall InvalidToolCall",
    "index",
    _GI,
    "a step position: implied by the order of the steps (kept where the order is not the "
    "canonical one)",
)
_drop(
    "TextBlock ImageBlock AudioBlock VideoBlock FileBlock PlainTextBlock RefusalBlock "
    "ReasoningBlock",
    "cache_control",
    _GI,
    "no per-item cache marker (the API caches implicitly)",
)
_drop("CacheControl", "ttl", _GI, "no per-item cache marker")
_drop(_RESOURCES, "index", _GI, _STREAM_INDEX)
_drop(
    "ResourceBlock",
    "id uri mime_type cache_control",
    _GI,
    "sent as the text or media item it maps to: the format has no resource item",
)
_drop("TextBlock", "annotations", _GI, _ANNOTATIONS + " (and user text has none)")
_drop("Citation", "id url title start_index end_index cited_text extras", _GI, _ANNOTATIONS)
_drop("NonStandardAnnotation", "id value provider extras", _GI, _ANNOTATIONS)
_drop("ImageBlock", "detail", _GI, "no equivalent (resolution is another scale)")
_drop("FileBlock", "filename", _GI, "a document item has no name")
_drop("ToolDefinition", "strict", _GI, "no equivalent: declarations take no strict flag")
_drop(
    "AutoToolChoice RequiredToolChoice NamedToolChoice AllowedToolsChoice",
    "parallel",
    _GI,
    "no equivalent",
)
_drop("AllowedToolsChoice", "extras", _GI, "allowed_tools has no other member")
_drop(
    "ReasoningBlock",
    "encrypted_content id model endpoint",
    _GI,
    "a thought step has only a signature and a summary",
)
_drop("ReasoningBlock", "extras", _GI, "a thought's extras are the codec's markers")


def outcome_table() -> dict[str, dict[str, dict[str, str]]]:
    """type -> field -> codec -> outcome (computed; used by the test and the docs)."""
    table: dict[str, dict[str, dict[str, str]]] = {}
    for type_name, definition in BUNDLE_DEFS.items():
        if "properties" not in definition or type_name in NOT_SENT:
            continue
        for field in definition["properties"]:
            for codec in PROVIDERS:
                table.setdefault(type_name, {}).setdefault(field, {})[codec] = classify(
                    type_name, field, codec
                )
    return table


BUNDLE_DEFS: dict[str, Any] = H.BUNDLE["$defs"]
TAGS = {"role", "type"}


def classify(type_name: str, field: str, codec_name: str) -> str:
    """carried | mapped | unsupported | dropped | tag | LOST: <why>."""
    if field in TAGS and field in BASE[type_name]:
        return "tag"
    codec = get_codec(codec_name)
    original = base(type_name, codec_name)
    modified = changed(type_name, field, codec_name)
    base_doc, path = host(type_name, original, codec_name)
    changed_doc, _ = host(type_name, modified, codec_name)
    try:
        chatschema.parse_conversation(changed_doc)
    except chatschema.ValidationError as error:
        return f"LOST: bad sample ({error})"
    try:
        encoded = codec.encode(changed_doc, check=False)
    except UnsupportedContentError as error:
        # a request-level value (a tool choice, a setting) is in no message
        assert error.message_index is not None or all(
            p.pointer.startswith(("/tool_choice", "/settings")) for p in error.problems
        ), error
        return "unsupported"
    try:
        encoded_base = codec.encode(base_doc, check=False)
    except UnsupportedContentError:
        encoded_base = None
    decoded = chatschema.to_dict(codec.decode_conversation(encoded))
    try:
        back = decoded
        for part in path:
            back = back[part]
        if isinstance(back, dict) and back.get(field) == modified[field]:
            return "carried"
    except (KeyError, IndexError, TypeError):
        pass
    listed = DROPPED.get((type_name, field), {}).get(codec_name)
    if encoded != encoded_base:
        if listed:
            return f"LOST: listed as dropped but sent ({listed})"
        return "mapped"
    if listed:
        return "dropped"
    return "LOST: not sent, not refused, not listed"


def _cases() -> list[Any]:
    cases = []
    for type_name, definition in BUNDLE_DEFS.items():
        if "properties" not in definition or type_name in NOT_SENT:
            continue
        for field in definition["properties"]:
            for codec in PROVIDERS:
                cases.append(
                    pytest.param(type_name, field, codec, id=f"{type_name}.{field}-{codec}")
                )
    return cases


@pytest.mark.parametrize(("type_name", "field", "codec"), _cases())
def test_every_field_is_carried_mapped_refused_or_listed(
    type_name: str, field: str, codec: str
) -> None:
    outcome = classify(type_name, field, codec)
    assert not outcome.startswith("LOST"), f"{type_name}.{field} through {codec}: {outcome}"


def test_every_schema_type_is_walked() -> None:
    """Every object type of the schema has a sample, or is listed as never sent."""
    for type_name, definition in BUNDLE_DEFS.items():
        if "properties" in definition:
            assert type_name in BASE or type_name in NOT_SENT, type_name
            if type_name in BASE:
                for field in definition["properties"]:
                    if field not in TAGS:
                        _value(type_name, field, "anthropic")  # a sample exists


def test_the_drop_list_names_real_fields() -> None:
    for type_name, field in DROPPED:
        assert field in BUNDLE_DEFS[type_name]["properties"], (type_name, field)


# Telemetry records every provider's reasoning text (never its opaque data): tested in
# tests/providers/otel_genai/test_encode.py.
@pytest.mark.parametrize("codec", [codec for codec in PROVIDERS if codec != "otel_genai"])
def test_foreign_reasoning_is_dropped_by_policy(codec: str) -> None:
    """Reasoning another provider produced is left out (it cannot be verified), or sent
    as text with reasoning="text": documented in every codec's Options."""
    other = "anthropic" if codec != "anthropic" else "openai_responses"
    reasoning = OWN_REASONING[other]
    document, _ = host("ReasoningBlock", reasoning, codec)
    encode = get_codec(codec).encode
    sent = json.dumps(encode(document, check=False))
    shown = reasoning.get("text") or reasoning["summary"][0]
    opaque = reasoning.get("signature") or reasoning["encrypted_content"]
    assert shown not in sent and opaque not in sent
    as_text = json.dumps(encode(document, check=False, reasoning="text"))
    assert shown in as_text and opaque not in as_text


def test_a_citation_without_indexes_is_refused() -> None:
    """``url_citation`` (Responses) needs a character range: without one, the citation
    goes to the unsupported-content policy, naming message and block; never left out."""
    codec = get_codec("openai_responses")
    citation = {"type": "citation", "url": "https://example.com", "title": "Example"}
    document, path = host("Citation", citation, "openai_responses")
    with pytest.raises(UnsupportedContentError, match="start_index, end_index") as caught:
        codec.encode(document)
    assert (caught.value.message_index, caught.value.block_index) == (path[1], path[3])
    assert [p.keyword for p in codec.check(document)] == ["unsupported_content"]
    dropped = codec.encode(document, unsupported="drop")
    assert "https://example.com" not in json.dumps(dropped)


def test_annotations_on_text_without_an_item_id_are_refused() -> None:
    """Id-less assistant text is sent as a plain string, which has no annotations."""
    codec = get_codec("openai_responses")
    citation = {
        "type": "citation",
        "url": "https://example.com",
        "title": "Example",
        "start_index": 0,
        "end_index": 7,
    }
    document, _ = host("Citation", citation, "openai_chat")  # no item id
    with pytest.raises(UnsupportedContentError, match="annotations"):
        codec.encode(document)


def test_unsupported_content_names_message_and_block() -> None:
    """An UnsupportedContentError for a block's field names the message and the block."""
    seen = 0
    for type_name in sorted(_USER_SIDE | _ASSISTANT_SIDE):
        for codec in PROVIDERS:
            for field in BUNDLE_DEFS[type_name]["properties"]:
                if field in TAGS:
                    continue
                document, path = host(type_name, changed(type_name, field, codec), codec)
                try:
                    get_codec(codec).encode(document, check=False)
                except UnsupportedContentError as error:
                    assert (error.message_index, error.block_index) == (path[1], path[3]), (
                        type_name,
                        field,
                        codec,
                        error,
                    )
                    seen += 1
    assert seen > 20


def outcome_counts() -> dict[str, dict[str, int]]:
    """codec -> outcome -> number of fields (reported in docs/robustness.md)."""
    counts: dict[str, dict[str, int]] = {codec: {} for codec in PROVIDERS}
    for fields in outcome_table().values():
        for by_codec in fields.values():
            for codec, outcome in by_codec.items():
                key = outcome.split(":")[0]
                counts[codec][key] = counts[codec].get(key, 0) + 1
    return counts
