"""The server side: ``encode_response`` per reply, ``encode_stream`` per event.

Inputs: the plain history's assistant turns (``plain_history.py``: a short text and
one tool call, or a short final answer) given what a provider's reply carries (model,
response id, usage, finish reason): the common reply. And a streamed answer of text
deltas (``workloads.event_deltas``) between a first chunk (model, response id) and a
last one (usage, finish reason).

Beside them, in the same process and in turns:

- a **bare walk** per format writing the same body from the same message (the
  text-and-tool-call replies of the input only: no options, no ids to make, no
  unsupported-content policy, no extras), checked equal to ``encode_response``'s;
- the **SDK's own serializer** where one exists: ``model_dump_json`` of the SDK's
  response object equal to the body (built beforehand), beside
  ``dumps(encode_response(m))`` (chatschema's JSON text of the same body);
- a **bare framing loop** per format writing the stream's text-delta events as SSE
  (the same event dicts, the same ``dumps``), the floor of ``encode_stream(sse=True)``.

Standard library, chatschema and the SDKs; nothing here asserts on time.
"""

from __future__ import annotations

import datetime
import json
import struct
import zlib
from collections.abc import Callable
from typing import Any

from chatschema import AssistantMessage, AssistantMessageChunk, Usage
from chatschema.providers import HTTP_PROVIDERS, get_http_codec
from chatschema.providers._common.respond import Reply, dumps

_dumps = json.JSONEncoder(ensure_ascii=False).encode

CREATED = 1_767_225_600
MODEL = "claude-sonnet-4-6"
OPTIONS: dict[str, Any] = {"created": CREATED, "id_seed": 7}


def reply(fmt: str) -> str:
    """Workload: ``encode_response`` of every reply."""
    return f"reply_{fmt}"


def reply_floor(fmt: str) -> str:
    """Workload: the bare walk writing the same bodies."""
    return f"reply_floor_{fmt}"


def reply_json(fmt: str) -> str:
    """Workload: ``dumps(encode_response(m))``, the body as JSON text."""
    return f"reply_json_{fmt}"


def reply_sdk(fmt: str) -> str:
    """Workload: the SDK's ``model_dump_json`` of equal response objects."""
    return f"reply_sdk_{fmt}"


def stream_write(fmt: str) -> str:
    """Workload: ``encode_stream(chunks, sse=True)``, per event."""
    return f"stream_write_{fmt}"


def stream_floor(fmt: str) -> str:
    """Workload: the bare framing loop over the same text-delta events."""
    return f"stream_write_floor_{fmt}"


def replies(messages: list[Any]) -> list[AssistantMessage]:
    """The plain history's assistant turns as replies: model, id, usage, finish reason."""
    out = []
    for number, message in enumerate(messages):
        if message.role != "assistant":
            continue
        calls = bool(message.tool_calls)
        given, made = 200 + number % 900, 20 + number % 300
        out.append(
            message.model_copy(
                update={
                    "model": MODEL,
                    "response_id": f"msg_{number:024d}",
                    "usage": Usage(
                        input_tokens=given, output_tokens=made, total_tokens=given + made
                    ),
                    "finish_reason": "tool_calls" if calls else "stop",
                }
            )
        )
    return out


def stream_chunks(deltas: list[str]) -> list[AssistantMessageChunk]:
    """A streamed text answer: metadata first, the deltas, usage and finish last."""
    first = AssistantMessageChunk(model=MODEL, response_id="msg_" + "0" * 24)
    last = AssistantMessageChunk(
        usage=Usage(input_tokens=900, output_tokens=len(deltas), total_tokens=900 + len(deltas)),
        finish_reason="stop",
        chunk_position="last",
    )
    return [first, *(AssistantMessageChunk(content=text) for text in deltas), last]


# ------------------------------------------------------------------ bare walks


def _text(message: AssistantMessage) -> str:
    content = message.content
    return content if isinstance(content, str) else "".join(b.text for b in content)  # type: ignore[union-attr]


def _anthropic(message: AssistantMessage) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    text = _text(message)
    if text:
        content.append({"type": "text", "text": text})
    for call in message.tool_calls:
        content.append(
            {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        )
    usage = message.usage
    assert usage is not None
    return {
        "id": message.response_id,
        "type": "message",
        "role": "assistant",
        "model": message.model,
        "content": content,
        "stop_reason": "tool_use" if message.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": usage.input_tokens, "output_tokens": usage.output_tokens},
    }


def _responses(message: AssistantMessage, made: Callable[[str], str]) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    text = _text(message)
    if text:
        part = {"type": "output_text", "annotations": [], "text": text}
        output.append(
            {
                "id": made("msg_"),
                "type": "message",
                "status": "completed",
                "content": [part],
                "role": "assistant",
            }
        )
    for call in message.tool_calls:
        output.append(
            {
                "id": made("fc_"),
                "type": "function_call",
                "status": "completed",
                "arguments": _dumps(call.arguments),
                "call_id": call.id,
                "name": call.name,
            }
        )
    usage = message.usage
    assert usage is not None
    return {
        "id": message.response_id,
        "object": "response",
        "created_at": CREATED,
        "status": "completed",
        "error": None,
        "incomplete_details": None,
        "model": message.model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "usage": {
            "input_tokens": usage.input_tokens,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": usage.output_tokens,
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage.total_tokens,
        },
    }


def _chat(message: AssistantMessage) -> dict[str, Any]:
    reply: dict[str, Any] = {"role": "assistant", "content": _text(message), "refusal": None}
    if message.tool_calls:
        reply["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": _dumps(call.arguments)},
            }
            for call in message.tool_calls
        ]
    usage = message.usage
    assert usage is not None
    return {
        "id": message.response_id,
        "object": "chat.completion",
        "created": CREATED,
        "model": message.model,
        "choices": [
            {
                "index": 0,
                "message": reply,
                "logprobs": None,
                "finish_reason": "tool_calls" if message.tool_calls else "stop",
            }
        ],
        "usage": {
            "prompt_tokens": usage.input_tokens,
            "completion_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
        },
    }


_CREATE_TIME = datetime.datetime.fromtimestamp(CREATED, datetime.timezone.utc).strftime(
    "%Y-%m-%dT%H:%M:%S.%fZ"
)


def _gemini(message: AssistantMessage) -> dict[str, Any]:
    parts: list[dict[str, Any]] = []
    text = _text(message)
    if text:
        parts.append({"text": text})
    for call in message.tool_calls:
        parts.append({"functionCall": {"name": call.name, "args": call.arguments, "id": call.id}})
    usage = message.usage
    assert usage is not None
    return {
        "candidates": [{"content": {"parts": parts, "role": "model"}, "finishReason": "STOP"}],
        "usageMetadata": {
            "promptTokenCount": usage.input_tokens,
            "candidatesTokenCount": usage.output_tokens,
            "totalTokenCount": usage.total_tokens,
        },
        "modelVersion": message.model,
        "createTime": _CREATE_TIME,
        "responseId": message.response_id,
    }


def _converse(message: AssistantMessage) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    text = _text(message)
    if text:
        content.append({"text": text})
    for call in message.tool_calls:
        content.append(
            {"toolUse": {"toolUseId": call.id, "name": call.name, "input": call.arguments}}
        )
    usage = message.usage
    assert usage is not None
    return {
        "output": {"message": {"role": "assistant", "content": content}},
        "stopReason": "tool_use" if message.tool_calls else "end_turn",
        "usage": {
            "inputTokens": usage.input_tokens,
            "outputTokens": usage.output_tokens,
            "totalTokens": usage.total_tokens,
        },
        "metrics": {"latencyMs": 0},
    }


def _seeded(fmt: str) -> Callable[[str], str]:
    """The ids ``encode_response`` makes with ``OPTIONS``'s seed (item ids: 50 hex)."""
    reply = Reply.resolve(fmt, OPTIONS)
    return lambda prefix: reply.new_id(prefix, 50, "0123456789abcdef")


FLOORS: dict[str, Callable[[AssistantMessage], dict[str, Any]]] = {
    "bedrock_converse": _converse,
    "gemini": _gemini,
    "openai_chat": _chat,
    "anthropic": _anthropic,
    "openai_responses": lambda message: _responses(message, _seeded("openai_responses")),
}
"""Each format's bare walk for the replies of the input."""


def _anthropic_delta(text: str) -> dict[str, Any]:
    return {
        "type": "content_block_delta",
        "index": 0,
        "delta": {"type": "text_delta", "text": text},
    }


def _named(event: dict[str, Any]) -> bytes:
    return b"event: " + event["type"].encode() + b"\ndata: " + dumps(event) + b"\n\n"


def _chat_delta(text: str) -> dict[str, Any]:
    return {
        "id": "msg_" + "0" * 24,
        "object": "chat.completion.chunk",
        "created": CREATED,
        "model": MODEL,
        "choices": [
            {"index": 0, "delta": {"content": text}, "logprobs": None, "finish_reason": None}
        ],
    }


def _gemini_delta(text: str) -> dict[str, Any]:
    return {
        "candidates": [{"content": {"parts": [{"text": text}], "role": "model"}}],
        "modelVersion": MODEL,
        "createTime": _CREATE_TIME,
        "responseId": "msg_" + "0" * 24,
    }


def _event_stream_headers(name: str) -> bytes:
    out = b""
    for key, value in (
        (":event-type", name),
        (":content-type", "application/json"),
        (":message-type", "event"),
    ):
        out += bytes([len(key)]) + key.encode() + b"\x07" + struct.pack(">H", len(value))
        out += value.encode()
    return out


_DELTA_HEADERS = _event_stream_headers("contentBlockDelta")


def _converse_frame(text: str) -> bytes:
    """A ``contentBlockDelta`` as one AWS event-stream message, written plainly."""
    payload = dumps({"delta": {"text": text}, "contentBlockIndex": 0})
    total = 12 + len(_DELTA_HEADERS) + len(payload) + 4
    prelude = struct.pack(">II", total, len(_DELTA_HEADERS))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + _DELTA_HEADERS + payload
    return message + struct.pack(">I", zlib.crc32(message))


STREAM_FLOORS: dict[str, Callable[[str], bytes]] = {
    "bedrock_converse": _converse_frame,
    "gemini": lambda text: b"data: " + dumps(_gemini_delta(text)) + b"\r\n\r\n",
    "openai_chat": lambda text: b"data: " + dumps(_chat_delta(text)) + b"\n\n",
    "anthropic": lambda text: _named(_anthropic_delta(text)),
}
"""Each format's text-delta event, framed: the floor of the stream writer."""


def sdk_objects(fmt: str, bodies: list[dict[str, Any]]) -> list[Any] | None:
    """The SDK's response objects equal to ``bodies`` (None: no SDK serializer)."""
    if fmt == "anthropic":
        from anthropic.types import Message

        return [Message.model_validate(body) for body in bodies]
    if fmt == "gemini":
        from google.genai.types import GenerateContentResponse

        return [GenerateContentResponse.model_validate(body) for body in bodies]
    if fmt == "openai_chat":
        from openai.types.chat import ChatCompletion

        return [ChatCompletion.model_validate(body) for body in bodies]
    if fmt == "openai_responses":
        from openai.types.responses import Response

        return [Response.model_validate(body) for body in bodies]
    return None


# ------------------------------------------------------------------ the cases


def cases(messages: list[Any], deltas: list[str]) -> list[dict[str, Any]]:
    """The server side's workloads (``Case`` fields), for every HTTP format."""
    answers = replies(messages)
    chunks = stream_chunks(deltas)
    found: list[dict[str, Any]] = []
    for fmt in HTTP_PROVIDERS:
        codec = get_http_codec(fmt)
        if not hasattr(codec, "encode_response"):
            continue
        encode = codec.encode_response
        bodies = [encode(m, **OPTIONS) for m in answers]

        def run(encode: Any = encode) -> Any:
            return [encode(m, **OPTIONS) for m in answers]

        def run_json(encode: Any = encode) -> Any:
            return [dumps(encode(m, **OPTIONS)) for m in answers]

        def same(result: Any, bodies: list[dict[str, Any]] = bodies) -> str | None:
            return None if result == bodies else "bodies differ from encode_response's"

        count = len(answers)
        found.append(dict(workload=reply(fmt), run=run, count=count, unit="reply", check=same))
        found.append(
            dict(workload=reply_json(fmt), run=run_json, count=count, unit="reply", note="dumps")
        )
        floor = FLOORS.get(fmt)
        if floor is not None:

            def run_floor(floor: Any = floor) -> Any:
                return [floor(m) for m in answers]

            found.append(
                dict(
                    workload=reply_floor(fmt), run=run_floor, count=count, unit="reply", check=same
                )
            )
        objects = sdk_objects(fmt, bodies)
        if objects is not None:

            def run_sdk(objects: list[Any] = objects) -> Any:
                return [o.model_dump_json(exclude_unset=True) for o in objects]

            found.append(
                dict(
                    workload=reply_sdk(fmt),
                    run=run_sdk,
                    count=count,
                    unit="reply",
                    note="model_dump_json(exclude_unset=True) of equal objects",
                )
            )
        events = len(list(codec.encode_stream(chunks, **OPTIONS)))

        def run_stream(codec: Any = codec) -> Any:
            return b"".join(codec.encode_stream(chunks, sse=True, **OPTIONS))

        found.append(
            dict(
                workload=stream_write(fmt),
                run=run_stream,
                count=events,
                unit="event",
                note=f"{len(deltas):,} text chunks, sse=True",
            )
        )
        frame = STREAM_FLOORS.get(fmt)
        if frame is not None:

            def run_frames(frame: Any = frame) -> Any:
                return b"".join([frame(text) for text in deltas])

            found.append(
                dict(
                    workload=stream_floor(fmt),
                    run=run_frames,
                    count=len(deltas),
                    unit="event",
                    note="the text-delta events framed by a bare loop",
                )
            )
    return found
