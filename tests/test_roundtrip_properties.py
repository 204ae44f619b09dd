"""Round-trip properties of every codec, on generated conversations and streams.

1. **neutral -> provider -> neutral is the identity** for conversations a format can
   carry in its canonical form (``canonical_conversations``: text, images, a provider's
   own reasoning, tool calls and results, tools and tool choice), and, for any
   generated conversation the format accepts, on the canonical form ``decode(encode(x))``.
2. **provider -> neutral -> provider is the identity** on valid provider payloads: every
   request ``encode`` makes validates against the official SDK types (``oracle.py``),
   and ``encode(decode(y)) == y`` for it.
3. **Streams**: the same content re-cut into random chunks (text, arguments, thinking
   and summary deltas split anywhere) assembles to the same message as the recorded
   chunking, which is the message ``decode_response`` makes of the complete response.
"""

from __future__ import annotations

import base64
import copy
import itertools
import json
import re
from collections.abc import Iterator
from typing import Any

import hostile as H
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from oracle import validate_request

import chatschema
from chatschema import ChunkAccumulator, merge_chunks
from chatschema.errors import ChatSchemaError
from chatschema.providers import PROVIDERS, get_codec
from chatschema.providers.mistral import mistral_id

# ------------------------------------------------------------------ strategies

WORDS = st.sampled_from(
    ["Hello", "Oslo", "é", "日本", "😀", 'quote"s', "back\\slash", "new\nline", "tab\t", "42"]
)
TEXT = st.lists(WORDS, min_size=1, max_size=6).map(" ".join)
IDS = st.from_regex(r"[A-Za-z][A-Za-z0-9_-]{2,11}", fullmatch=True)
NAMES = st.sampled_from(["get_weather", "search", "read_file", "run_tests"])
JSON_LEAF = st.none() | st.booleans() | st.integers(-1000, 1000) | TEXT
ARGUMENTS = st.dictionaries(
    st.sampled_from(["city", "query", "path", "n", "flags"]),
    st.recursive(JSON_LEAF, lambda inner: st.lists(inner, max_size=3), max_leaves=4),
    max_size=3,
)
IMAGES = st.sampled_from(
    [
        {"type": "image", "url": "https://example.com/cat.png"},
        {"type": "image", "base64": H.PNG, "mime_type": "image/png"},
    ]
)


_RESPONSES = ("openai_responses", "open_responses")  # one wire object


def reasoning(provider: str, draw: st.DrawFn, serial: int) -> dict[str, Any]:
    """A reasoning block as ``provider`` produces it (what it replays)."""
    if provider == "otel_genai":  # telemetry never writes opaque values (otel_genai.md)
        return {"type": "reasoning", "text": draw(TEXT)}
    if provider == "mistral":  # a thinking chunk: text only (mistral.md)
        return {"type": "reasoning", "text": draw(TEXT), "provider": provider}
    if provider in _RESPONSES:
        return {
            "type": "reasoning",
            "id": f"rs_{serial}",
            "summary": [draw(TEXT)],
            "encrypted_content": H.ENCRYPTED,
            "provider": provider,
        }
    return {
        "type": "reasoning",
        "text": draw(TEXT),
        "signature": H.SIGNATURE,
        "provider": provider,
    }


@st.composite
def canonical_conversations(draw: st.DrawFn, provider: str) -> dict[str, Any]:
    """Conversations ``provider`` carries exactly, in its canonical form.

    Alternating user / assistant turns (Anthropic and Gemini merge consecutive turns of
    one role), a system prompt first, tool results named after their call, list
    content where a turn mixes content with tool traffic.
    """
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(TEXT)})
    used: set[str] = set()
    serial = 0
    pending_results: list[dict[str, Any]] = []
    for _ in range(draw(st.integers(1, 3))):
        if pending_results:
            messages.extend(pending_results)
            pending_results = []
            if provider == "mistral":  # an assistant message between a result and the user
                messages.append({"role": "assistant", "content": draw(TEXT)})
            if provider == "anthropic":
                # the user's words join the results' turn: blocks, after them
                messages.append({"role": "user", "content": [{"type": "text", "text": draw(TEXT)}]})
            else:
                messages.append({"role": "user", "content": draw(TEXT)})
        elif draw(st.booleans()) and provider not in (
            "gemini",
            "gemini_interactions",  # (one text block: a string)
            "bedrock_converse",
            "otel_genai",
        ):
            blocks: list[Any] = [{"type": "text", "text": draw(TEXT)}]
            if draw(st.booleans()):
                image = dict(draw(IMAGES))
                if provider in _RESPONSES:  # input_image always says its detail
                    image["detail"] = "auto"
                blocks.append(image)
            messages.append({"role": "user", "content": blocks})
        else:
            messages.append({"role": "user", "content": draw(TEXT)})
        assistant: dict[str, Any] = {"role": "assistant"}
        blocks = []
        if draw(st.booleans()) and provider != "openai_chat":
            serial += 1
            blocks.append(reasoning(provider, draw, serial))
        text = draw(TEXT)
        calls = []
        for _ in range(draw(st.integers(0, 2))):
            call_id = draw(IDS.filter(lambda value: value not in used))
            used.add(call_id)
            if provider == "mistral":  # ids in Mistral's pattern go as they are
                call_id = mistral_id(call_id)
            calls.append({"id": call_id, "name": draw(NAMES), "arguments": draw(ARGUMENTS)})
        if provider in _RESPONSES:
            blocks.append({"type": "text", "text": text, "id": f"msg_{serial}_{len(messages)}"})
        else:
            blocks.append({"type": "text", "text": text})
        if blocks == [{"type": "text", "text": text}] and provider in (
            "openai_chat",
            "gemini",
            "bedrock_converse",
            "otel_genai",
            "mistral",
        ):
            assistant["content"] = text  # one plain text part: a string
        else:
            assistant["content"] = blocks
        if calls:
            assistant["tool_calls"] = calls
        messages.append(assistant)
        for call in calls:
            result: dict[str, Any] = {
                "role": "tool",
                "tool_call_id": call["id"],
                "content": draw(TEXT),
            }
            # their decoders name results
            if provider in (*_RESPONSES, "anthropic", "bedrock_converse"):
                result["name"] = call["name"]
            pending_results.append(result)
    if pending_results:
        messages.extend(pending_results)
    if provider == "mistral" and messages[-1]["role"] == "assistant":
        messages.append({"role": "user", "content": draw(TEXT)})  # a request ends so
    conversation: dict[str, Any] = {"messages": messages}
    names = sorted({call["name"] for m in messages for call in m.get("tool_calls", ())})
    if names:
        conversation["tools"] = [
            {"name": name, "description": f"The {name} tool.", "parameters": {"type": "object"}}
            | ({"strict": False} if provider in _RESPONSES else {})
            for name in names
        ]
        if draw(st.booleans()) and provider != "otel_genai":  # no attribute for it
            conversation["tool_choice"] = draw(
                st.sampled_from(
                    [{"type": "auto"}, {"type": "required"}, {"type": "tool", "name": names[0]}]
                )
            )
    return conversation


def run_canonical(provider: str, conversation: dict[str, Any]) -> None:
    codec = get_codec(provider)
    model = chatschema.parse_conversation(conversation)
    encoded = codec.encode(model)
    validate_request(provider, encoded)
    decoded = codec.decode_conversation(encoded)
    assert chatschema.to_dict(decoded) == conversation
    assert codec.encode(decoded) == encoded


@pytest.mark.parametrize("provider", PROVIDERS)
def test_neutral_provider_neutral_is_the_identity(provider: str) -> None:
    """decode(encode(x)) == x for conversations the format carries canonically."""

    @H.fuzz_settings(150)
    @given(canonical_conversations(provider))
    def run(conversation: dict[str, Any]) -> None:
        run_canonical(provider, conversation)

    run()


# --------------------------------------------- generated from the schemas


def _generated_conversations() -> st.SearchStrategy[Any]:
    """Conversations from the schema's fixtures: several combined, or one mutated
    (values changed, dropped, duplicated, retyped); the test keeps the valid ones.

    (Drawing whole conversations from the schema with hypothesis-jsonschema takes
    seconds per example; test_properties.py does that for single types.)
    """
    seeds = H.CONVERSATIONS

    def combine(documents: list[dict[str, Any]]) -> dict[str, Any]:
        messages = [copy.deepcopy(m) for document in documents for m in document["messages"]]
        return {**copy.deepcopy(documents[0]), "messages": messages}

    combined = st.lists(st.sampled_from(seeds), min_size=1, max_size=3).map(combine)
    mutants = H.mutated(seeds, max_mutations=2, nest_levels=(), big=False)
    return combined | mutants.filter(lambda document: _extras(document) <= SEED_EXTRAS)


def _objects(document: Any) -> Iterator[dict[str, Any]]:
    """Every JSON object in a document, at any depth."""
    stack = [document]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            yield node
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)


def _reads_as_base64(data: Any) -> bool:
    try:
        base64.b64decode(data, validate=True)
    except (ValueError, TypeError):
        return False
    return True


def _extras(document: Any) -> set[str]:
    """Every ``extras`` object in a document, as JSON text."""
    return {
        json.dumps(node["extras"], sort_keys=True)
        for node in _objects(document)
        if isinstance(node.get("extras"), dict)
    }


# Provider extras are the codecs' own data, stored by their decoders and trusted when
# sent back: mutants keep them as the fixtures have them.
SEED_EXTRAS = set().union(*(_extras(seed) for seed in H.CONVERSATIONS))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_canonical_forms_are_fixed_points(provider: str) -> None:
    """For any schema-generated conversation the format accepts: the request validates
    against the SDK types, ``encode(decode(y)) == y``, and ``decode(y)`` (the canonical
    form) comes back unchanged through another encode and decode."""
    codec = get_codec(provider)

    @H.fuzz_settings(300)
    @given(_generated_conversations())
    def run(document: dict[str, Any]) -> None:
        assume(chatschema.is_valid(document, "Conversation"))
        # `contentEncoding: base64` is an annotation: inline data travels unread, and
        # data no base64 decoder reads (the Gemini SDK decodes it) is outside this property.
        inline = [node["base64"] for node in _objects(document) if "base64" in node]
        assume(all(map(_reads_as_base64, inline)))
        try:
            encoded = codec.encode(document)
        except ChatSchemaError:
            assume(False)  # content or a structure the format cannot carry: refused
            return
        validate_request(provider, encoded)
        canonical = codec.decode_conversation(encoded)
        assert codec.encode(canonical) == encoded
        assert codec.decode_conversation(codec.encode(canonical)) == canonical

    run()


# What the Gemini API requires of a part's data (the SDK types make all optional).
_GEMINI_REQUIRED = {
    "inline_data": ("mime_type", "data"),
    "file_data": ("file_uri",),
    "function_call": ("name",),
    "function_response": ("name",),
}


def _gemini_says_something(value: Any) -> bool:
    """Whether no part of a Gemini payload is empty.

    Every field of google-genai's types is optional, so its validation accepts empty
    parts, ``inline_data: {}``, ``function_declarations: []`` ...; the API refuses
    them (and an empty text: "Unable to submit request because it has an empty text
    parameter"), and reads ``None`` as absent.
    """
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict) and any(
            isinstance(node.get(key), dict) and not set(required) <= set(node[key])
            for key, required in _GEMINI_REQUIRED.items()
        ):
            return False
        items = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for item in items:
            if item is None or item == "" or (isinstance(item, (dict, list)) and not item):
                return False
            stack.append(item)
    return True


_ANTHROPIC_ID = re.compile(r"[a-zA-Z0-9_-]+")


# Optional keys whose explicit null decodes like absence and is not sent back
# (documented in docs/providers/anthropic.md).
_ANTHROPIC_OPTIONAL = ("cache_control", "citations", "is_error")


def _anthropic_accepts(document: dict[str, Any]) -> bool:
    """Tool-use ids match ``^[a-zA-Z0-9_-]+$``; no text block is empty or blank.

    Also left out: explicit nulls of optional keys (the codec drops them by design).
    """
    for node in _objects([document.get("system"), document.get("messages")]):
        if any(key in node and node[key] is None for key in _ANTHROPIC_OPTIONAL):
            return False
        kind = node.get("type")
        ids = [node.get("tool_use_id"), node.get("id") if kind == "tool_use" else None]
        if any(isinstance(i, str) and not _ANTHROPIC_ID.fullmatch(i) for i in ids):
            return False
        text = node.get("text")
        if kind == "text" and isinstance(text, str) and not text.strip():
            return False
    for message in document.get("messages") or ():
        # Tool use guide: in a user message, tool_result blocks come first (400 else);
        # the encoder writes them first
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, list):
            kinds = [block.get("type") if isinstance(block, dict) else None for block in content]
            results = [kind == "tool_result" for kind in kinds]
            if results != sorted(results, reverse=True):
                return False
    return True


def _bedrock_accepts(document: dict[str, Any]) -> bool:
    """A ``toolUse``'s ``input`` is a JSON object (Converse ToolUseBlock: the tool's
    arguments; anything else decodes as an invalid call, which Converse cannot take);
    no text block is empty (Converse: "The text field ... is blank"); document names
    and tool-use ids are of the patterns Converse takes (the encoder rewrites others
    to such, by design)."""
    from chatschema.providers.bedrock_converse.request import document_name
    from chatschema.providers.bedrock_converse.wire import ID

    for node in _objects([document.get("system"), document.get("messages")]):
        use = node.get("toolUse")
        if isinstance(use, dict) and not isinstance(use.get("input"), dict):
            return False
        if node.get("text") == "":
            return False
        name = node.get("name") if isinstance(node.get("source"), dict) else None
        if isinstance(name, str) and document_name(name, 0, 0) != name:
            return False
        call_id = node.get("toolUseId")
        if isinstance(call_id, str) and not ID.fullmatch(call_id):
            return False
    return True


def _mistral_accepts(document: dict[str, Any]) -> bool:
    """Mistral refuses tool-call ids other than 9 characters [a-zA-Z0-9] (its encoder
    rewrites them, by design: mistral.md)."""
    for message in document.get("messages") or ():
        if not isinstance(message, dict):
            continue
        ids = [message["tool_call_id"]] if "tool_call_id" in message else []
        calls = message.get("tool_calls")
        ids += [call.get("id") for call in calls or () if isinstance(call, dict)]
        if not all(
            isinstance(value, str) and re.fullmatch(r"[a-zA-Z0-9]{9}", value) for value in ids
        ):
            return False
    return True


def api_accepts(document: Any, provider: str) -> bool:
    """Rules the APIs enforce beyond their SDK types: a tool list is never empty, and
    a tool choice comes with tools (OpenAI, Anthropic and Gemini refuse both).

    An empty system prompt (Anthropic ``system: []``, Gemini ``system_instruction``
    without parts) is left out too: it says nothing, and the codecs do not send one.
    Gemini refuses empty values (:func:`_gemini_says_something`); the Responses API
    an input item id given twice; Anthropic tool-use ids outside ``^[a-zA-Z0-9_-]+$``,
    empty or whitespace-only text blocks and text before tool results (its encoder
    rewrites such ids to ids the API takes, leaves such blocks out and writes results
    first, by design); Converse tool inputs that are no object.
    """
    if not isinstance(document, dict):
        return True
    if provider == "anthropic" and not _anthropic_accepts(document):
        return False
    if provider == "bedrock_converse" and not _bedrock_accepts(document):
        return False
    if provider == "mistral" and not _mistral_accepts(document):
        return False
    contents = document.get("contents")
    if isinstance(contents, list) and not (
        _gemini_says_something(document)
        and all(isinstance(content, dict) and content.get("parts") for content in contents)
    ):
        return False
    tools = document.get("tools")
    if tools is not None and not tools:
        return False
    system = document.get("system", document.get("system_instruction"))
    if isinstance(system, str):
        system = system.strip()  # Anthropic refuses whitespace-only text
    if system is not None and not (system.get("parts") if isinstance(system, dict) else system):
        return False
    items = document.get("input")
    if isinstance(items, list):  # Responses: item ids are unique
        ids = [item["id"] for item in items if isinstance(item, dict) and "id" in item]
        if len(ids) != len(set(map(str, ids))):
            return False
    choice = document.get("tool_choice", document.get("tool_config"))
    return choice is None or bool(tools)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_provider_neutral_provider_on_mutated_valid_payloads(provider: str) -> None:
    """Requests the codecs accept (seeds with values changed) re-encode byte for byte,
    whenever the request is valid for the official SDK types."""
    codec = get_codec(provider)
    seeds = H.request_seeds(provider)

    @H.fuzz_settings(200)
    @given(H.mutated(seeds, max_mutations=1, nest_levels=(), big=False))
    def run(document: Any) -> None:
        try:
            validate_request(provider, document)
        except (AssertionError, KeyError, TypeError, AttributeError):
            assume(False)  # not a valid request
            return
        assume(api_accepts(document, provider))
        try:
            conversation = codec.decode_conversation(document)
        except ChatSchemaError:
            return  # refused, with a located error (test_fuzz.py checks those)
        # Request settings the neutral model cannot say are reported in metadata,
        # which is never sent (documented per codec): not part of this property.
        assume(not conversation.metadata)
        assert codec.encode(conversation, check=False) == document

    run()


# ----------------------------------------------------------------- streams


def _split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({cut % (len(text) + 1) for cut in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points) if b > a] or [text]


def recut(provider: str, events: list[Any], cuts: list[int]) -> list[Any]:
    """The same stream with every text-like delta split at the given points."""
    out: list[Any] = []
    for event in events:
        pieces = _pieces(provider, event)
        if pieces is None:
            out.append(copy.deepcopy(event))
            continue
        text, rebuild = pieces
        parts = _split(text, cuts)
        for number, part in enumerate(parts):
            out.append(rebuild(part, number == 0, number == len(parts) - 1))
    return out


def _pieces(provider: str, event: Any) -> Any:
    """(text, rebuild(piece, first, last)) of an event whose delta can be split."""
    if not isinstance(event, dict):
        return None
    if provider == "anthropic" and event.get("type") == "content_block_delta":
        delta = event["delta"]
        key = {
            "text_delta": "text",
            "thinking_delta": "thinking",
            "input_json_delta": "partial_json",
        }
        field = key.get(delta.get("type"))
        if field is None:
            return None

        def anthropic(piece: str, first: bool, last: bool) -> Any:
            return {**event, "delta": {**delta, field: piece}}

        return delta[field], anthropic
    if provider in _RESPONSES and event.get("type", "").endswith(".delta"):

        def responses(piece: str, first: bool, last: bool) -> Any:
            return {**event, "delta": piece}

        return event["delta"], responses
    if provider == "openai_chat" and len(event.get("choices") or []) == 1:
        delta = event["choices"][0].get("delta") or {}
        if set(delta) - {"role"} == {"content"} and isinstance(delta["content"], str):
            if event["choices"][0].get("finish_reason") or event.get("usage"):
                return None

            def chat(piece: str, first: bool, last: bool) -> Any:
                new = copy.deepcopy(event)
                new_delta = {"content": piece}
                if first and "role" in delta:
                    new_delta["role"] = delta["role"]
                new["choices"][0]["delta"] = new_delta
                if not first:  # the event's logprobs travel once, with its first piece
                    new["choices"][0].pop("logprobs", None)
                return new

            return delta["content"], chat
        calls = delta.get("tool_calls") or []
        if (
            set(delta) == {"tool_calls"}
            and len(calls) == 1
            and set(calls[0]) == {"index", "function"}
        ):
            function = calls[0]["function"]
            if set(function) == {"arguments"} and not event["choices"][0].get("finish_reason"):

                def arguments(piece: str, first: bool, last: bool) -> Any:
                    new = copy.deepcopy(event)
                    new["choices"][0]["delta"]["tool_calls"][0]["function"]["arguments"] = piece
                    return new

                return function["arguments"], arguments
    return None


STREAM_CASES = [
    pytest.param(provider, number, id=f"{provider}-{number}")
    for provider in PROVIDERS
    for number in range(H.stream_seed_count(provider))
    if provider != "gemini"  # Gemini events are whole parts, not deltas: re-cut below
]


def assembled(chunks: list[Any]) -> list[dict[str, Any]]:
    accumulator = ChunkAccumulator()
    for chunk in chunks:
        accumulator.add(chunk)
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return [
        chatschema.to_dict(accumulator.to_message()),
        chatschema.to_dict(merge_chunks(chunks).to_message()),
        chatschema.to_dict(total.to_message()),
    ]


@pytest.mark.parametrize(("provider", "number"), STREAM_CASES)
def test_random_chunkings_assemble_to_the_same_message(provider: str, number: int) -> None:
    if not H.has_stream(provider):
        pytest.skip(f"{provider} has no decode_stream yet")
    codec = get_codec(provider)
    events, response = H.stream_seed_at(provider, number)
    want = assembled(list(codec.decode_stream(copy.deepcopy(events))))[0]
    if response is not None:
        assert want == chatschema.to_dict(codec.decode_response(response))

    @H.fuzz_settings(60)
    @given(st.lists(st.integers(0, 10_000), max_size=6))
    def run(cuts: list[int]) -> None:
        chunks = list(codec.decode_stream(recut(provider, events, cuts)))
        for got in assembled(chunks):
            assert got == want

    run()


def gemini_recut(events: list[Any], cuts: list[int]) -> list[Any]:
    """A Gemini stream with each single-text-part event split into several events."""
    out = []
    for event in events:
        candidates = event.get("candidates") or []
        parts = (candidates[0].get("content") or {}).get("parts") if candidates else None
        if not parts or len(parts) != 1 or set(parts[0]) != {"text"}:
            out.append(copy.deepcopy(event))
            continue
        pieces = _split(parts[0]["text"], cuts)
        for number, piece in enumerate(pieces):
            new = copy.deepcopy(event)
            new["candidates"][0]["content"]["parts"][0]["text"] = piece
            if number < len(pieces) - 1:  # finish and usage on the last piece only
                new["candidates"][0].pop("finishReason", None)
                new.pop("usageMetadata", None)
            out.append(new)
    return out


@pytest.mark.parametrize("number", range(H.stream_seed_count("gemini")))
def test_gemini_random_chunkings_assemble_to_the_same_message(number: int) -> None:
    if not H.has_stream("gemini"):
        pytest.skip("gemini has no decode_stream yet")
    codec = get_codec("gemini")
    events, _ = H.stream_seed_at("gemini", number)
    want = assembled(list(codec.decode_stream(copy.deepcopy(events))))[0]

    @H.fuzz_settings(60)
    @given(st.lists(st.integers(0, 10_000), max_size=6))
    def run(cuts: list[int]) -> None:
        for got in assembled(list(codec.decode_stream(gemini_recut(events, cuts)))):
            assert got == want

    run()


def test_the_stream_seeds_are_cut_somewhere() -> None:
    """The re-cutting touches every stream that has deltas (the properties are not void)."""
    for provider in ("openai_chat", "openai_responses", "anthropic"):
        for events, _ in H.stream_seeds(provider):
            assert len(recut(provider, events, [1, 2, 3])) > len(events) or not any(
                _pieces(provider, event) for event in events
            )
    assert any(
        len(gemini_recut(events, [1, 2])) > len(events) for events, _ in H.stream_seeds("gemini")
    )
    _ = json
