"""Benchmark inputs, written once, and the timing harness every side shares.

This module is imported by the orchestrator (``bench/run.py``, Python 3.11, main
venv) and by each peer script (``peer_langchain.py`` in the main venv,
``peer_openhands.py`` in its own Python 3.12 venv). It therefore uses the standard
library only and never imports chatschema or a peer.

One *logical* history is generated (deterministically, from a seed) and written in
three forms, so that each system parses its own format of the same conversation:

- ``history.chatschema.json``: chatschema's canonical JSON (a list of messages);
- ``history.langchain.json``: LangChain's ``messages_to_dict`` form;
- ``history.openhands.json``: OpenHands' ``Message.model_dump(mode="json")`` form.

Streaming inputs (text deltas, tool-call argument fragments) are plain lists of
strings; each side builds its own chunk objects from them outside the timed region.
"""

from __future__ import annotations

import base64
import gc
import json
import random
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

# ----------------------------------------------------------------------- workload ids

PARSE = "parse"
PARSE_FLOOR = "parse_orjson_floor"
PARSE_STDLIB = "parse_json_stdlib"
ENCODE_OPENAI = "encode_openai"
ENCODE_OPENAI_NOCHECK = "encode_openai_nocheck"
ENCODE_FLOOR = "encode_openai_floor"
ENCODE_ANTHROPIC = "encode_anthropic"
ENCODE_ANTHROPIC_NOCHECK = "encode_anthropic_nocheck"
ENCODE_CHAT_DICTS = "encode_chat_dicts_only"
STREAM_ADD = "stream_text_add"
STREAM_ACCUMULATOR = "stream_text_accumulator"
STREAM_BATCH = "stream_text_batch"
TRIM = "trim"

# The plain agent history (``plain_history.py``): the common case.
PLAIN_PARSE = "plain_parse"
PLAIN_TRIM = "plain_trim"
AGENT_LOOP = "agent_loop"
CHUNK_BUILD = "chunk_build_add"
"""``acc = acc + AssistantMessageChunk(content=t)``, the chunk built inside the loop."""
STREAM_FORMATS = ("openai_chat", "openai_responses", "anthropic", "gemini")
"""The four wire formats, by their codec's module name."""
ENCODE_FORMATS = (
    *STREAM_FORMATS,
    "bedrock_converse",
    "mistral",
    "open_responses",
    "gemini_interactions",
)
HTTP_FORMATS = (*STREAM_FORMATS, "bedrock_converse")
"""The formats whose server side (encode_response, encode_stream) is measured."""
"""The formats the plain history is encoded to, each beside its bare walk."""
SDK_OPENAI = "sdk_openai_chat_stream"
SDK_OPENAI_PREBUILT = "sdk_openai_chat_stream_prebuilt"
SDK_ANTHROPIC = "sdk_anthropic_stream"
SDK_ANTHROPIC_PREBUILT = "sdk_anthropic_stream_prebuilt"


def plain_encode(fmt: str) -> str:
    """Id of encoding the plain history for one format (check on)."""
    return f"plain_encode_{fmt}"


def plain_floor(fmt: str) -> str:
    """Id of the bare walk writing one format's request from the plain history."""
    return f"plain_floor_{fmt}"


def provider_stream(fmt: str) -> str:
    """Id of decoding one format's event dicts and accumulating the chunks."""
    return f"provider_stream_{fmt}"


def gc_off(workload: str) -> str:
    """Id of a workload timed again with the cyclic collector disabled."""
    return f"{workload}_gc_off"


def tool_add(size: int) -> str:
    """Id of the tool-argument workload merged one ``+`` at a time."""
    return f"tool_args_add_{size}"


def tool_accumulator(size: int) -> str:
    """Id of the tool-argument workload merged with an accumulator."""
    return f"tool_args_accumulator_{size}"


def tool_live(size: int) -> str:
    """Id of the tool-argument workload with a parsed live view after every fragment."""
    return f"tool_args_live_{size}"


def tool_batch(size: int) -> str:
    """Id of the tool-argument workload merged in one n-ary call."""
    return f"tool_args_batch_{size}"


# ---------------------------------------------------------------------------- sizes


@dataclass(frozen=True)
class Sizes:
    """How big each workload is."""

    messages: int
    text_chunks: int
    tool_fragments: tuple[int, ...]
    fragment_chars: int = 8
    plain_messages: int = 10_000
    """The plain agent history (``plain_history.py``)."""
    stream_events: int = 5_000
    """Text deltas per provider stream (event dicts)."""
    loop_messages: int = 2_000
    """The agent loop: the first messages of the plain history, re-encoded as it grows."""


FULL = Sizes(messages=10_000, text_chunks=20_000, tool_fragments=(1_000, 2_000, 4_000, 8_000))
QUICK = Sizes(
    messages=400,
    text_chunks=2_000,
    tool_fragments=(100, 200, 400, 800),
    plain_messages=400,
    stream_events=500,
    loop_messages=200,
)

MODEL = "claude-sonnet-4-5"
"""The model that "produced" the assistant turns (its reasoning carries signatures)."""

TRIM_MAX_TOKENS = 8_000
MAX_IMAGES = 100

# ------------------------------------------------------------------------ the history

_VOCABULARY = (
    "the a an of to in and or for with on at by from as is are was be this that it we "
    "you they file function test error value result request response server client "
    "module import return config user data model token stream message history cache "
    "build run check parse encode decode schema field type list string number object "
    "path line column branch commit merge deploy latency memory thread process queue "
    "retry timeout handler event log metric trace span report fix update refactor "
    "because however therefore instead still only also then when while after before "
    "should could would must might will can does did has have had not no yes maybe"
)
_WORDS = tuple(_VOCABULARY.split())
_ACCENTED = ("café", "naïve", "déjà", "4 °C", "—", "résumé", "Zürich", "€20", "→", "…")
_CODE_LINES = (
    "def {w}_{v}(self, {w}: int) -> str:",
    '    """Return the {w} for {v}."""',
    "    if {w} is None:",
    '        raise ValueError("no {w} given for {v}")',
    "    return f'{{{w}}}-{{{v}}}'",
    "for {w} in {v}s:",
    '    print("{w}", {v}, sep="\\t")',
    "# TODO: {w} {v} needs a retry",
    "{w}_{v} = {{'{w}': [{n}, {n}, {n}], \"{v}\": None}}",
)


def _prose(rng: random.Random, length: int) -> str:
    """Prose of about ``length`` characters: sentences, some punctuation and accents."""
    parts: list[str] = []
    size = 0
    sentence = 0
    while size < length:
        word = rng.choice(_WORDS)
        if sentence == 0:
            word = word.capitalize()
        roll = rng.random()
        if roll < 0.01:
            word = rng.choice(_ACCENTED)
        elif roll < 0.02:
            word = f'"{word}"'
        elif roll < 0.03:
            word = f"`{word}()`"
        sentence += 1
        if sentence > rng.randint(8, 18):
            word += rng.choice((".", ".", ".", "?", "!"))
            sentence = 0
            if rng.random() < 0.15:
                word += "\n\n"
        parts.append(word)
        size += len(word) + 1
    return " ".join(parts)[:length].rstrip() + "."


def _code(rng: random.Random, length: int) -> str:
    """Python-like source of about ``length`` characters (quotes, tabs, newlines)."""
    lines: list[str] = []
    size = 0
    while size < length:
        line = rng.choice(_CODE_LINES).format(
            w=rng.choice(_WORDS), v=rng.choice(_WORDS), n=rng.randint(0, 9999)
        )
        lines.append(line)
        size += len(line) + 1
    return "\n".join(lines)


def _tool_output(rng: random.Random) -> str:
    """A tool result: mostly short, some of several KB (file views, JSON, logs)."""
    roll = rng.random()
    if roll < 0.25:  # a big one: a file view or a long log
        return _code(rng, rng.randint(3_000, 8_000))
    if roll < 0.5:  # JSON text, as many tools return
        items = [
            {"id": rng.randint(1, 10**6), "name": rng.choice(_WORDS), "score": rng.random()}
            for _ in range(rng.randint(3, 30))
        ]
        return json.dumps({"status": "ok", "items": items})
    return _prose(rng, rng.randint(200, 1_500))


def _signature(rng: random.Random) -> str:
    return base64.b64encode(rng.randbytes(rng.randint(240, 720))).decode()


def _tool_call(rng: random.Random, serial: int) -> dict[str, Any]:
    """A tool call in chatschema form (arguments as a JSON object)."""
    kind = rng.random()
    if kind < 0.4:
        name = "execute_bash"
        arguments: dict[str, Any] = {
            "command": f"pytest -q tests/test_{rng.choice(_WORDS)}.py -k {rng.choice(_WORDS)}",
            "timeout": rng.choice((30, 60, 120)),
        }
    elif kind < 0.7:
        name = "str_replace_editor"
        arguments = {
            "command": "view",
            "path": f"/workspace/src/{rng.choice(_WORDS)}/{rng.choice(_WORDS)}.py",
            "view_range": [rng.randint(1, 200), rng.randint(201, 400)],
        }
    else:
        name = "str_replace_editor"
        arguments = {
            "command": "create",
            "path": f"/workspace/src/{rng.choice(_WORDS)}_{serial}.py",
            "file_text": _code(rng, rng.randint(300, 2_000)),
        }
    return {
        "id": f"toolu_{serial:08d}{rng.getrandbits(40):010x}",
        "name": name,
        "arguments": arguments,
    }


def _usage(rng: random.Random, reasoning: bool) -> dict[str, Any]:
    inputs, outputs = rng.randint(2_000, 150_000), rng.randint(20, 3_000)
    usage: dict[str, Any] = {
        "input_tokens": inputs,
        "output_tokens": outputs,
        "total_tokens": inputs + outputs,
        "input_token_details": {"cache_read": inputs // 2},
    }
    if reasoning:
        usage["output_token_details"] = {"reasoning": outputs // 3}
    return usage


def _user(rng: random.Random, serial: int, images: bool) -> dict[str, Any]:
    text = _prose(rng, rng.randint(200, 2_000))
    roll = rng.random() if images else 1.0
    if roll < 0.035:
        image = {"type": "image", "url": f"https://images.example.com/shots/{serial}.png"}
    elif roll < 0.045:
        image = {
            "type": "image",
            "base64": base64.b64encode(rng.randbytes(rng.randint(2_000, 6_000))).decode(),
            "mime_type": "image/png",
        }
    else:
        return {"role": "user", "content": text}
    return {"role": "user", "content": [{"type": "text", "text": text}, image]}


def _tool_turn(rng: random.Random, serial: int) -> list[dict[str, Any]]:
    """An assistant turn with reasoning, text and tool calls, then the results."""
    content: list[dict[str, Any]] = []
    reasoning = rng.random() < 0.6
    if reasoning:
        content.append(
            {
                "type": "reasoning",
                "text": _prose(rng, rng.randint(200, 1_200)),
                "signature": _signature(rng),
                "provider": "anthropic",
            }
        )
    content.append({"type": "text", "text": _prose(rng, rng.randint(50, 400))})
    calls = [_tool_call(rng, serial * 10 + k) for k in range(1 if rng.random() < 0.8 else 2)]
    assistant = {
        "role": "assistant",
        "content": content,
        "tool_calls": calls,
        "usage": _usage(rng, reasoning),
        "model": MODEL,
        "provider": "anthropic",
        "response_id": f"msg_{serial:08d}{rng.getrandbits(64):016x}",
        "finish_reason": "tool_calls",
        "raw_finish_reason": "tool_use",
    }
    results = [
        {
            "role": "tool",
            "tool_call_id": call["id"],
            "name": call["name"],
            "content": _tool_output(rng),
        }
        for call in calls
    ]
    return [assistant, *results]


def _answer(rng: random.Random, serial: int) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": _prose(rng, rng.randint(300, 3_000)),
        "usage": _usage(rng, False),
        "model": MODEL,
        "provider": "anthropic",
        "response_id": f"msg_{serial:08d}{rng.getrandbits(64):016x}",
        "finish_reason": "stop",
        "raw_finish_reason": "end_turn",
    }


def build_history(count: int, seed: int = 20_261_122) -> list[dict[str, Any]]:
    """A mixed agent history of exactly ``count`` messages, in chatschema's JSON form.

    A system prompt, then episodes: a user request (sometimes with an image, by URL
    or base64), zero to three assistant tool turns (reasoning with signatures, text,
    one or two tool calls, usage) each followed by its tool results, then a final
    answer. Every tool call is answered, and there are at most 100 images (Anthropic's
    limit per request), so every provider codec accepts it.
    """
    rng = random.Random(seed)
    images = 0
    history: list[dict[str, Any]] = [
        {"role": "system", "content": _prose(rng, 1_500)},
    ]
    serial = 0
    while True:
        serial += 1
        episode = [_user(rng, serial, images < MAX_IMAGES)]
        images += not isinstance(episode[0]["content"], str)
        for turn in range(rng.randint(0, 3)):
            episode.extend(_tool_turn(rng, serial * 4 + turn))
        episode.append(_answer(rng, serial))
        if len(history) + len(episode) > count:
            break
        history.extend(episode)
    while len(history) < count:  # pad with plain exchanges, answered or not
        serial += 1
        history.append(_user(rng, serial, False))
        if len(history) < count:
            history.append(_answer(rng, serial))
    return history


# ------------------------------------------------------------------ the peers' forms


def _lc_message(kind: str, content: Any, **more: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "content": content,
        "additional_kwargs": {},
        "response_metadata": more.pop("response_metadata", {}),
        "type": kind,
        "name": more.pop("name", None),
        "id": more.pop("id", None),
    }
    data.update(more)
    return {"type": kind, "data": data}


def _lc_block(block: dict[str, Any]) -> dict[str, Any]:
    if block["type"] == "reasoning":  # as ChatAnthropic returns it
        return {"type": "thinking", "thinking": block["text"], "signature": block["signature"]}
    return dict(block)  # text, image (url | base64 + mime_type): LangChain's v1 blocks


def to_langchain(history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as ``langchain_core.messages.messages_to_dict`` writes it."""
    out: list[dict[str, Any]] = []
    for message in history:
        role, content = message["role"], message["content"]
        if not isinstance(content, str):
            content = [_lc_block(block) for block in content]
        if role == "system":
            out.append(_lc_message("system", content))
        elif role == "user":
            out.append(_lc_message("human", content))
        elif role == "tool":
            out.append(
                _lc_message(
                    "tool",
                    content,
                    name=message["name"],
                    tool_call_id=message["tool_call_id"],
                    artifact=None,
                    status="success",
                )
            )
        else:
            calls = [
                {"name": c["name"], "args": c["arguments"], "id": c["id"], "type": "tool_call"}
                for c in message.get("tool_calls", [])
            ]
            out.append(
                _lc_message(
                    "ai",
                    content,
                    response_metadata={
                        "id": message["response_id"],
                        "model": message["model"],
                        "model_name": message["model"],
                        "stop_reason": message["raw_finish_reason"],
                        "model_provider": "anthropic",
                    },
                    id=f"lc_run--{message['response_id']}",
                    tool_calls=calls,
                    invalid_tool_calls=[],
                    usage_metadata=message["usage"],
                )
            )
    return out


def _oh_content(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"cache_prompt": False, "type": "text", "text": content}]
    parts: list[dict[str, Any]] = []
    for block in content:
        if block["type"] == "text":
            parts.append({"cache_prompt": False, "type": "text", "text": block["text"]})
        elif block["type"] == "image":
            url = block.get("url") or f"data:{block['mime_type']};base64,{block['base64']}"
            parts.append({"cache_prompt": False, "type": "image", "image_urls": [url]})
    return parts


def to_openhands(history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The history as OpenHands 1.58 persists it (``Message.model_dump(mode="json")``).

    OpenHands keeps no usage, model or response id on a message (they live in its
    events and metrics), so those are absent; reasoning becomes ``thinking_blocks``
    and tool-call arguments a JSON string, as LiteLLM hands them over.
    """
    out: list[dict[str, Any]] = []
    for message in history:
        content = message["content"]
        blocks = [] if isinstance(content, str) else content
        thinking = [
            {"type": "thinking", "thinking": b["text"], "signature": b["signature"]}
            for b in blocks
            if b["type"] == "reasoning"
        ]
        calls = [
            {
                "id": c["id"],
                "responses_item_id": None,
                "name": c["name"],
                "arguments": json.dumps(c["arguments"]),
                "origin": "completion",
            }
            for c in message.get("tool_calls", [])
        ]
        out.append(
            {
                "role": message["role"],
                "content": _oh_content(content),
                "tool_calls": calls or None,
                "tool_call_id": message.get("tool_call_id"),
                "name": message.get("name"),
                "reasoning_content": None,
                "thinking_blocks": thinking,
                "responses_reasoning_item": None,
            }
        )
    return out


# -------------------------------------------------------------------- streaming inputs


def text_deltas(count: int, seed: int = 7) -> list[str]:
    """Streamed text deltas of one to ten characters (words, spaces, punctuation)."""
    rng = random.Random(seed)
    deltas = []
    for _ in range(count):
        word = rng.choice(_WORDS)
        deltas.append(rng.choice((" ", " ", "", "\n")) + word + rng.choice(("", "", ",", ".")))
    return deltas


def tool_arguments(fragments: int, fragment_chars: int, seed: int = 11) -> str:
    """The JSON arguments of one ``create file`` call, ``fragments * fragment_chars`` long."""
    rng = random.Random(seed)
    target = fragments * fragment_chars
    head = '{"command": "create", "path": "/workspace/src/generated.py", "file_text": '
    body_length = target - len(head) - 1
    text = _code(rng, body_length * 2)
    encoded = json.dumps(text)[: body_length - 1]
    while encoded.endswith("\\"):  # never cut an escape in two
        encoded = encoded[:-1]
    arguments = head + encoded + '"}'
    json.loads(arguments)  # a valid document
    return arguments


def event_deltas(count: int, seed: int = 13) -> list[str]:
    """Streamed text deltas of 1 to 10 characters, some of them non-ASCII."""
    rng = random.Random(seed)
    deltas = []
    for _ in range(count):
        text = rng.choice(("", " ", " ")) + rng.choice(_WORDS)
        if rng.random() < 0.08:
            text = rng.choice(_ACCENTED) + rng.choice(("", " ", "🍁", "日本"))
        text += rng.choice(("", "", " ", ",", "."))
        deltas.append(text[: rng.randint(1, 10)])
    return deltas


PAYLOADS = Path(__file__).resolve().parent.parent / "tests" / "payloads"
"""Recorded provider streams: the envelopes the benchmark's event lists are cut from."""


def _recorded(name: str) -> Any:
    data = json.loads((PAYLOADS / name).read_text())
    return data["events"] if isinstance(data, dict) else data


def _with(template: dict[str, Any], **changes: Any) -> dict[str, Any]:
    event = json.loads(json.dumps(template))  # a deep copy
    event.update(changes)
    return event


def openai_chat_events(deltas: Sequence[str]) -> list[dict[str, Any]]:
    """OpenAI Chat ``chat.completion.chunk`` dicts, one per delta.

    Cut from ``openai_chat/stream_text_usage.json``: its role chunk, one text chunk
    per delta, its finish chunk and its usage chunk.
    """
    recorded = _recorded("openai_chat/stream_text_usage.json")
    first, text, finish, usage = recorded[0], recorded[1], recorded[-2], recorded[-1]
    events = [_with(first)]
    for delta in deltas:
        event = _with(text)
        event["choices"][0]["delta"]["content"] = delta
        events.append(event)
    return [*events, _with(finish), _with(usage)]


def anthropic_events(deltas: Sequence[str]) -> list[dict[str, Any]]:
    """Anthropic Messages API events, one ``text_delta`` per delta.

    Cut from ``anthropic/stream_text.json`` (its ``ping`` dropped).
    """
    recorded = [e for e in _recorded("anthropic/stream_text.json") if e["type"] != "ping"]
    start = [e for e in recorded if e["type"] in ("message_start", "content_block_start")]
    text = next(e for e in recorded if e["type"] == "content_block_delta")
    end = [e for e in recorded if e["type"] in ("content_block_stop", "message_delta")]
    end += [e for e in recorded if e["type"] == "message_stop"]
    events = [_with(e) for e in start]
    for delta in deltas:
        events.append(_with(text, delta={"type": "text_delta", "text": delta}))
    return [*events, *(_with(e) for e in end)]


def gemini_events(deltas: Sequence[str]) -> list[dict[str, Any]]:
    """Gemini ``GenerateContentResponse`` dicts, one per delta.

    Cut from ``gemini/stream_text_usage.json``: usage metadata on every event, the
    finish reason on the last.
    """
    recorded = _recorded("gemini/stream_text_usage.json")
    events = []
    for position, delta in enumerate(deltas):
        event = _with(recorded[-1] if position == len(deltas) - 1 else recorded[0])
        event["candidates"][0]["content"]["parts"] = [{"text": delta}]
        events.append(event)
    return events


def openai_responses_events(deltas: Sequence[str]) -> list[dict[str, Any]]:
    """OpenAI Responses events for one message item, one ``output_text.delta`` per delta.

    Cut from the message item of ``openai_responses/stream_reasoning_haiku.json``
    (its reasoning item left out): created, in progress, item and part added, the
    deltas, the done events with the whole text, completed.
    """
    recorded = _recorded("openai_responses/stream_reasoning_haiku.json")
    by_type: dict[str, dict[str, Any]] = {}
    for event in recorded:
        if event.get("output_index", 1) == 1:  # the message item and the response
            by_type.setdefault(event["type"], event)
    text = "".join(deltas)
    done_part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    item = _with(by_type["response.output_item.done"]["item"], content=[done_part])
    completed = _with(by_type["response.completed"])
    completed["response"]["output"] = [item]
    events = [
        _with(by_type["response.created"]),
        _with(by_type["response.in_progress"]),
        _with(by_type["response.output_item.added"], output_index=0),
        _with(by_type["response.content_part.added"], output_index=0),
        *(
            _with(by_type["response.output_text.delta"], output_index=0, delta=delta)
            for delta in deltas
        ),
        _with(by_type["response.output_text.done"], output_index=0, text=text),
        _with(by_type["response.content_part.done"], output_index=0, part=done_part),
        _with(by_type["response.output_item.done"], output_index=0, item=item),
        completed,
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


STREAM_EVENTS: dict[str, Callable[[Sequence[str]], list[dict[str, Any]]]] = {
    "openai_chat": openai_chat_events,
    "openai_responses": openai_responses_events,
    "anthropic": anthropic_events,
    "gemini": gemini_events,
}
"""How each format's event list is built from the deltas."""


def split(text: str, size: int) -> list[str]:
    """``text`` in pieces of ``size`` characters (the last may be shorter)."""
    return [text[i : i + size] for i in range(0, len(text), size)]


# ---------------------------------------------------------------------- writing inputs

TOOL_CALL_ID = "call_Zx8k2m9QpL"
TOOL_NAME = "str_replace_editor"
STREAM_ID = "msg_01StreamBenchmark"


def write_inputs(directory: Path, sizes: Sizes) -> dict[str, Any]:
    """Write every input file into ``directory``; returns the manifest (also written)."""
    directory.mkdir(parents=True, exist_ok=True)
    history = build_history(sizes.messages)
    files = {
        "history.chatschema.json": history,
        "history.langchain.json": to_langchain(history),
        "history.openhands.json": to_openhands(history),
        "stream_text.json": text_deltas(sizes.text_chunks),
    }
    files.update(plain_inputs(sizes))
    deltas = event_deltas(sizes.stream_events)
    files["stream_deltas.json"] = deltas
    for fmt, build in STREAM_EVENTS.items():
        files[f"events.{fmt}.json"] = build(deltas)
    for fragments in sizes.tool_fragments:
        arguments = tool_arguments(fragments, sizes.fragment_chars)
        files[f"tool_args_{fragments}.json"] = split(arguments, sizes.fragment_chars)
    byte_sizes = {}
    for name, value in files.items():
        data = json.dumps(value, ensure_ascii=False).encode()
        (directory / name).write_bytes(data)
        byte_sizes[name] = len(data)
    roles: dict[str, int] = {}
    for message in history:
        roles[message["role"]] = roles.get(message["role"], 0) + 1
    manifest = {
        "sizes": asdict(sizes),
        "bytes": byte_sizes,
        "roles": roles,
        "tool_calls": sum(len(m.get("tool_calls", [])) for m in history),
        "reasoning_blocks": sum(
            1
            for m in history
            if not isinstance(m["content"], str)
            for b in m["content"]
            if b["type"] == "reasoning"
        ),
        "images": sum(
            1
            for m in history
            if not isinstance(m["content"], str)
            for b in m["content"]
            if b["type"] == "image"
        ),
        "trim_max_tokens": TRIM_MAX_TOKENS,
        "model": MODEL,
        "plain": _plain_manifest(files["plain.chatschema.json"], files["plain_loop_points.json"]),
        "stream_events": {fmt: len(files[f"events.{fmt}.json"]) for fmt in STREAM_EVENTS},
    }
    (directory / "manifest.json").write_text(json.dumps(manifest, indent=2))
    return manifest


def _plain_manifest(plain: list[dict[str, Any]], points: list[bool]) -> dict[str, Any]:
    roles: dict[str, int] = {}
    for message in plain:
        roles[message["role"]] = roles.get(message["role"], 0) + 1
    return {
        "roles": roles,
        "tool_calls": sum(len(m.get("tool_calls", [])) for m in plain),
        "images": sum(not isinstance(m["content"], str) for m in plain),
        "loop_requests": sum(points),
        "loop_encoded": sum(position + 1 for position, call in enumerate(points) if call),
    }


def plain_inputs(sizes: Sizes) -> dict[str, Any]:
    """The plain history's input files: each system's form, and the agent loop's points.

    ``plain_history.py`` and ``agent_loop.py`` (standard library only) are imported
    here, by the orchestrator, not by the sides' scripts.
    """
    from agent_loop import langchain_dicts, request_points
    from plain_history import build_plain_history

    plain = build_plain_history(sizes.plain_messages)
    # OpenHands always names a tool result (``to_chat_dict`` asserts a name when
    # there is a tool_call_id): the name of the call it answers.
    names = {call["id"]: call["name"] for m in plain for call in m.get("tool_calls", [])}
    openhands = to_openhands(plain)
    for item, message in zip(openhands, plain, strict=True):
        if message["role"] == "tool":
            item["name"] = names[message["tool_call_id"]]
    return {
        "plain.chatschema.json": plain,
        "plain.langchain.json": langchain_dicts(plain),
        "plain.openhands.json": openhands,
        "plain_loop_points.json": request_points(plain[: sizes.loop_messages]),
    }


def read_inputs(directory: Path) -> tuple[dict[str, Any], Sizes]:
    """The manifest and the sizes the inputs were written with."""
    manifest = json.loads((directory / "manifest.json").read_text())
    raw = manifest["sizes"]
    sizes = Sizes(
        messages=raw["messages"],
        text_chunks=raw["text_chunks"],
        tool_fragments=tuple(raw["tool_fragments"]),
        fragment_chars=raw["fragment_chars"],
        plain_messages=raw["plain_messages"],
        stream_events=raw["stream_events"],
        loop_messages=raw["loop_messages"],
    )
    return manifest, sizes


# -------------------------------------------------------------------- timing harness


@dataclass
class Options:
    """How one side times its workloads (the same for every side)."""

    repeats: int = 7
    warmup: int = 1
    budget: float = 10.0
    """Stop repeating a workload once its timed runs have used this many seconds."""
    disable_gc: bool = False
    """Disable the cyclic collector inside the timed region (it is always collected
    before each run)."""


@dataclass
class Timing:
    """The timed runs of one workload on one side."""

    times: list[float]
    count: int
    unit: str
    note: str = ""

    @property
    def median(self) -> float:
        """Median wall time of one run, in seconds."""
        return statistics.median(self.times)


def _timed(run: Callable[[], Any], options: Options) -> float:
    """One timed call: collect first, optionally disable the collector, time, release."""
    gc.collect()
    if options.disable_gc:
        gc.disable()
    start = time.perf_counter()
    result = run()
    elapsed = time.perf_counter() - start
    if options.disable_gc:
        gc.enable()
    del result
    return elapsed


def _more(times: list[float], options: Options) -> bool:
    """Whether a workload gets another timed call (repeats left, budget not spent)."""
    return len(times) < options.repeats and (not times or sum(times) < options.budget)


def measure(
    run: Callable[[], Any],
    options: Options,
    *,
    count: int,
    unit: str,
    note: str = "",
    warmup: int | None = None,
) -> Timing:
    """Time ``run()``: warm-up calls, then up to ``options.repeats`` timed calls.

    Before each timed call the cyclic GC collects; during it, the collector stays
    enabled unless ``options.disable_gc``. The result is released after the clock
    stops, so freeing it is not timed.
    """
    for _ in range(options.warmup if warmup is None else warmup):
        run()
    times: list[float] = []
    while _more(times, options):
        times.append(_timed(run, options))
    return Timing(times=times, count=count, unit=unit, note=note)


@dataclass
class Job:
    """One workload of a round-robin measurement (see :func:`measure_round_robin`)."""

    workload: str
    run: Callable[[], Any]
    count: int
    unit: str
    note: str = ""


def measure_round_robin(jobs: Sequence[Job], options: Options) -> dict[str, Timing]:
    """Time several workloads in turns: one call of each per round.

    For workloads compared with each other (the same stream at several sizes): a
    burst of other work on the machine then hits every size alike instead of one.
    The first job is the warm-up of them all; each job stops after its repeats or
    its budget, as with :func:`measure`.
    """
    if jobs:
        for _ in range(options.warmup):
            jobs[0].run()
    times: dict[str, list[float]] = {job.workload: [] for job in jobs}
    while True:
        pending = [job for job in jobs if _more(times[job.workload], options)]
        if not pending:
            break
        for job in pending:
            times[job.workload].append(_timed(job.run, options))
    return {
        job.workload: Timing(
            times=times[job.workload], count=job.count, unit=job.unit, note=job.note
        )
        for job in jobs
    }


def measure_with_and_without_gc(
    report: SideReport,
    workload: str,
    run: Callable[[], Any],
    options: Options,
    **details: Any,
) -> None:
    """Time a workload, then time it again with the cyclic collector disabled.

    The second timing (skipped when ``options`` already disable the collector) is
    recorded under :func:`gc_off`. The history workloads allocate a lot on a large
    heap, where the collector's full passes can cost as much as the work itself: both
    figures tell the design apart from the collector.
    """
    report.add(workload, measure(run, options, **details))
    if not options.disable_gc:
        quiet = replace(options, disable_gc=True)
        report.add(gc_off(workload), measure(run, quiet, **{**details, "warmup": 0}))


@dataclass
class SideReport:
    """What one side hands back to the orchestrator (as JSON)."""

    side: str
    python: str
    packages: dict[str, str]
    gc: dict[str, Any]
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    checks: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def add(self, workload: str, timing: Timing) -> None:
        """Record a workload's timing."""
        self.results[workload] = asdict(timing)

    def check(self, name: str, ok: bool, detail: str = "") -> None:
        """Record a correctness check made outside the timed region."""
        self.checks[name] = "ok" if ok else f"FAILED {detail}".strip()

    def write(self, path: Path) -> None:
        """Write the report as JSON."""
        path.write_text(json.dumps(asdict(self), indent=1))


def gc_state(options: Options) -> dict[str, Any]:
    """The collector's state as timing starts."""
    return {
        "enabled": gc.isenabled(),
        "threshold": list(gc.get_threshold()),
        "disabled_during_timing": options.disable_gc,
        "collect_before_each_run": True,
    }


def run_guarded(report: SideReport, workload: str, step: Callable[[], None]) -> None:
    """Run one workload's step; a crash is recorded (with its traceback), not raised."""
    try:
        step()
    except Exception:  # report every crash, go on with the other workloads
        import traceback

        report.errors[workload] = traceback.format_exc(limit=8)


def side_arguments(description: str, extra: Callable[[Any], None] | None = None) -> Any:
    """The command line every side takes (parsed); ``extra`` adds options to the parser."""
    import argparse

    parser = argparse.ArgumentParser(description=description)
    if extra is not None:
        extra(parser)
    parser.add_argument("--inputs", type=Path, required=True, help="directory of input files")
    parser.add_argument("--out", type=Path, required=True, help="where to write the JSON report")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--budget", type=float, default=10.0)
    parser.add_argument("--disable-gc", action="store_true")
    return parser.parse_args()


def options_from(arguments: Any) -> Options:
    """Timing options from a side's parsed command line."""
    return Options(
        repeats=arguments.repeats,
        warmup=arguments.warmup,
        budget=arguments.budget,
        disable_gc=arguments.disable_gc,
    )
