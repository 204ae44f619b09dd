"""The streaming fast paths give exactly what the general paths give.

Every fast path added for speed (issue 13) is held here against the general code it
short-cuts, on the recorded streams, long text streams built from them, mutated
streams (``hostile.mutated_stream``) and hypothesis-generated chunk sequences:

- each codec's ``decode_stream`` reads text deltas of one exact shape on a fast
  path (``_Stream.text_delta``) and skips their depth check (the shape bounds it):
  the chunks, their sharing of mutable data, the errors and the assembled message
  must be those of the general path;
- ``ChunkAccumulator`` merges a text delta without walking the chunk (``_fast``);
- sums (``chunk + chunk``) keep a string delta as its text and replay it;
- ``chatschema._wire.trusted`` and its kin build models without validation, and
  ``AssistantMessageChunk(content="...")`` validates a string by hand: the instances
  must be state for state those pydantic builds.

Each test first checks that the fast path was taken, so that none passes vacuously.
"""

from __future__ import annotations

import contextlib
import copy
import json
from collections.abc import Iterator
from typing import Any

import hostile as H
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, field_validator

import chatschema
from chatschema import (
    AssistantMessageChunk,
    ChunkAccumulator,
    ConversionError,
    ReasoningBlock,
    TextBlock,
    ToolCallChunk,
    Usage,
    _chunks,
    merge_chunks,
    to_dict,
)
from chatschema._wire import content_chunk, copy_model, text_block, trusted
from chatschema.providers import PROVIDERS, get_codec
from chatschema.providers.anthropic import stream as anthropic_stream
from chatschema.providers.bedrock_converse import stream as bedrock_converse_stream
from chatschema.providers.gemini import stream as gemini_stream
from chatschema.providers.gemini_interactions import stream as gemini_interactions_stream
from chatschema.providers.mistral import stream as mistral_stream
from chatschema.providers.openai_chat import stream as openai_chat_stream
from chatschema.providers.openai_responses import stream as openai_responses_stream

STREAM_MODULES = {
    "anthropic": anthropic_stream,
    "bedrock_converse": bedrock_converse_stream,
    "gemini": gemini_stream,
    "gemini_interactions": gemini_interactions_stream,
    "openai_chat": openai_chat_stream,
    "openai_responses": openai_responses_stream,
    "mistral": mistral_stream,  # (Chat Completions' _Stream: counted twice, same outcome)
}
SEEDS = {provider: [events for events, _ in H.stream_seeds(provider)] for provider in PROVIDERS}
STREAMING = [provider for provider in PROVIDERS if H.has_stream(provider)]
"""Formats with stream events (OpenTelemetry GenAI records complete messages only)."""


# ------------------------------------------------------------------------ helpers


def state(value: Any) -> Any:
    """Everything a value holds, types included (``1`` is not ``True`` nor ``1.0``)."""
    if isinstance(value, BaseModel):
        return (
            type(value).__name__,
            sorted(value.__pydantic_fields_set__),
            [(name, state(item)) for name, item in value.__dict__.items()],
            state(value.__pydantic_extra__),
            state(value.__pydantic_private__),
        )
    if isinstance(value, dict):
        return ("dict", [(key, state(item)) for key, item in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [state(item) for item in value])
    if isinstance(value, float):
        return ("float", repr(value))
    return (type(value).__name__, value)


def sharing(chunks: list[Any]) -> set[tuple[int, int]]:
    """The pairs of chunks that hold the same mutable object (a dict, list or model)."""
    owners: dict[int, set[int]] = {}

    def walk(value: Any, owner: int, seen: set[int]) -> None:
        if isinstance(value, (dict, list, BaseModel)):
            if id(value) in seen:
                return
            seen.add(id(value))
            owners.setdefault(id(value), set()).add(owner)
        if isinstance(value, BaseModel):
            for item in value.__dict__.values():
                walk(item, owner, seen)
            walk(value.__pydantic_extra__, owner, seen)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item, owner, seen)
        elif isinstance(value, list):
            for item in value:
                walk(item, owner, seen)

    for number, chunk in enumerate(chunks):
        walk(chunk, number, set())
    return {
        (first, second)
        for numbers in owners.values()
        for first in numbers
        for second in numbers
        if first < second
    }


class Hits:
    """How often the fast paths answered."""

    def __init__(self) -> None:
        self.stream = 0
        self.accumulator = 0


@contextlib.contextmanager
def counting() -> Iterator[Hits]:
    """The fast paths as they are, counting their hits."""
    hits = Hits()
    patch = pytest.MonkeyPatch()
    for module in STREAM_MODULES.values():
        original = module._Stream.text_delta

        def counted(self: Any, data: Any, original: Any = original) -> Any:
            result = original(self, data)
            if result is not None:
                hits.stream += 1
            return result

        patch.setattr(module._Stream, "text_delta", counted)
    fast = ChunkAccumulator._fast

    def counted_fast(self: Any, content: Any) -> bool:
        taken = fast(self, content)
        hits.accumulator += taken
        return taken

    patch.setattr(ChunkAccumulator, "_fast", counted_fast)
    try:
        yield hits
    finally:
        patch.undo()


@contextlib.contextmanager
def general() -> Iterator[None]:
    """Every fast path switched off: the general code only."""
    patch = pytest.MonkeyPatch()
    for module in STREAM_MODULES.values():
        patch.setattr(module._Stream, "text_delta", lambda self, data: None)
    patch.setattr(ChunkAccumulator, "_fast", lambda self, content: False)
    try:
        yield
    finally:
        patch.undo()


def outcome(provider: str, events: Any) -> tuple[str, Any]:
    """What decoding and assembling a stream gives: its chunks and message, or the error."""
    codec = get_codec(provider)
    chunks: list[Any] = []
    try:
        for chunk in codec.decode_stream(copy.deepcopy(events)):
            chunks.append(chunk)
    except ConversionError as error:
        return "error", (
            [state(chunk) for chunk in chunks],
            str(error),
            [(p.pointer, p.keyword) for p in error.problems],
        )
    accumulator = ChunkAccumulator()
    for chunk in chunks:
        accumulator.add(chunk)
    try:
        message: Any = state(accumulator.to_message())
    except chatschema.ValidationError as error:
        message = ("invalid", str(error))
    total: Any = None
    for chunk in chunks:
        total = chunk if total is None else total + chunk
    return "ok", (
        [state(chunk) for chunk in chunks],
        sorted(sharing(chunks)),
        message,
        state(accumulator.to_chunk()),
        state(merge_chunks(chunks)) if chunks else None,
        state(total) if total is not None else None,
    )


def same_both_ways(provider: str, events: Any) -> Hits:
    """Assert the fast and the general paths agree on ``events``; the fast hits."""
    with counting() as hits:
        fast = outcome(provider, events)
    with general():
        slow = outcome(provider, events)
    assert fast == slow
    return hits


# ---------------------------------------------------------------- long text streams


def _texts(count: int) -> list[str]:
    """``count`` deltas of 1 to 7 characters, some of them not ASCII."""
    alphabet = "ab cd\u00e9\u20ac\U0001f600\n\"'"
    return [(alphabet * 2)[i % len(alphabet) :][: 1 + i % 7] for i in range(count)]


def long_stream(provider: str, count: int = 40) -> list[Any]:
    """A recorded plain-text stream with ``count`` text deltas: the bench's shape."""
    texts = _texts(count)
    if provider == "openai_chat":
        events = json.loads((H.PAYLOADS / "openai_chat" / "stream_text_usage.json").read_text())
        first, delta, *tail = events["events"][0], events["events"][1], *events["events"][-2:]
        out = [first]
        for text in texts:
            event = copy.deepcopy(delta)
            event["choices"][0]["delta"]["content"] = text
            out.append(event)
        return out + tail
    if provider == "mistral":
        events = json.loads((H.PAYLOADS / "mistral" / "stream_text.json").read_text())
        first, delta, last = events["events"][0], events["events"][1], events["events"][-1]
        out = [first]
        for text in texts:
            event = copy.deepcopy(delta)
            event["choices"][0]["delta"]["content"] = text
            out.append(event)
        return [*out, last]
    if provider == "anthropic":
        data = json.loads((H.PAYLOADS / "anthropic" / "stream_text.json").read_text())
        events = data["events"]
        head = [e for e in events if e["type"] in ("message_start", "content_block_start")]
        delta = next(e for e in events if e["type"] == "content_block_delta")
        tail = [
            e
            for e in events
            if e["type"] in ("content_block_stop", "message_delta", "message_stop", "ping")
        ]
        out = list(head)
        for text in texts:
            event = copy.deepcopy(delta)
            event["delta"]["text"] = text
            out.append(event)
        return out + tail
    if provider == "gemini":
        events = json.loads((H.PAYLOADS / "gemini" / "stream_text_usage.json").read_text())
        out = []
        for number, text in enumerate(texts):
            event = copy.deepcopy(events[0] if number == 0 else events[1])
            event["candidates"][0]["content"]["parts"][0]["text"] = text
            out.append(event)
        last = copy.deepcopy(events[-1])
        last["candidates"][0]["content"]["parts"][0]["text"] = "."
        return [*out, last]
    if provider == "gemini_interactions":
        events = json.loads((H.PAYLOADS / provider / "stream_text.json").read_text())["events"]
        is_text = _interactions_text
        delta = next(e for e in events if is_text(e))
        at = events.index(delta)
        out = events[:at]
        for text in texts:
            event = copy.deepcopy(delta)
            event["delta"]["text"] = text
            out.append(event)
        return out + [e for e in events[at:] if not is_text(e)]
    if provider == "bedrock_converse":
        data = json.loads((H.PAYLOADS / provider / "stream_text.json").read_text())
        events = data["events"]
        delta = next(e for e in events if "contentBlockDelta" in e)
        tail = [e for e in events if "contentBlockDelta" not in e and "messageStart" not in e]
        out = [events[0]]
        for text in texts:
            event = copy.deepcopy(delta)
            event["contentBlockDelta"]["delta"]["text"] = text
            out.append(event)
        return out + tail
    events = H.openai_responses_stream()
    delta = next(e for e in events if e["type"] == "response.output_text.delta")
    at = events.index(delta)
    out = events[:at]
    for text in texts:
        event = copy.deepcopy(delta)
        event["delta"] = text
        out.append(event)
    return out + [e for e in events[at:] if e["type"] != "response.output_text.delta"]


@pytest.mark.parametrize("provider", STREAMING)
def test_recorded_streams_fast_equals_general(provider: str) -> None:
    # every stream seed read here: a recorded one not materialized skips the test
    seeds = [H.stream_seed_at(provider, n)[0] for n in range(H.stream_seed_count(provider))]
    hits = [same_both_ways(provider, events) for events in seeds]
    assert sum(hit.stream for hit in hits) > 0, "no recorded event took the fast path"


@pytest.mark.parametrize("provider", STREAMING)
def test_long_text_streams_fast_equals_general(provider: str) -> None:
    hits = same_both_ways(provider, long_stream(provider))
    assert hits.stream >= 35
    if provider != "gemini":  # (gemini's chunks carry usage and metadata too)
        assert hits.accumulator >= 35


@pytest.mark.parametrize("provider", STREAMING)
def test_long_text_streams_as_sse_bodies(provider: str) -> None:
    events = long_stream(provider)
    body = [f"data: {json.dumps(event)}\n\n".encode() for event in events]
    with counting() as hits:
        from_body = outcome(provider, body)
    assert hits.stream >= 35
    assert from_body == outcome(provider, events)


@pytest.mark.parametrize("provider", STREAMING)
@settings(max_examples=60, deadline=None, derandomize=True, database=None)
@given(data=st.data())
def test_mutated_streams_fast_equals_general(provider: str, data: st.DataObject) -> None:
    streams = [*SEEDS[provider], long_stream(provider, 12)]
    events = H.unwrap(data.draw(H.mutated_stream(streams)))
    same_both_ways(provider, events)


@pytest.mark.parametrize("provider", STREAMING)
def test_a_deep_value_in_a_text_delta_is_refused_at_its_position(provider: str) -> None:
    """An event of the fast path's shape but one value deeper goes the general way."""
    events = long_stream(provider, 6)
    with counting() as hits:
        outcome(provider, events)
    assert hits.stream
    kinds = {
        "anthropic": "content_block_delta",
        "openai_responses": "response.output_text.delta",
        "open_responses": "response.output_text.delta",
    }
    deltas = [
        number
        for number, event in enumerate(events)
        if (event.get("type") == kinds[provider] if provider in kinds else 0 < number < 5)
    ]
    position = deltas[-2]
    deep = H.nested(5_000, 1, "object")
    target = events[position]
    if provider in ("openai_chat", "mistral"):
        target["choices"][0]["delta"]["x"] = deep
    elif provider == "anthropic":
        target["delta"]["x"] = deep
    elif provider == "gemini":
        target["candidates"][0]["x"] = deep
    else:
        target["x"] = deep
    with pytest.raises(ConversionError) as caught:
        list(get_codec(provider).decode_stream(events))
    [problem] = caught.value.problems
    assert problem.keyword == "depth" and problem.pointer.startswith(f"/{position}/")


def _delta_positions(provider: str, events: list[Any]) -> list[int]:
    """Where the text deltas of a :func:`long_stream` are."""
    kinds = {"anthropic": "content_block_delta", "openai_responses": "response.output_text.delta"}
    kinds["open_responses"] = kinds["openai_responses"]
    if provider in kinds:
        return [n for n, event in enumerate(events) if event.get("type") == kinds[provider]]
    if provider == "bedrock_converse":  # events of one member each
        return [n for n, event in enumerate(events) if "contentBlockDelta" in event]
    if provider == "gemini_interactions":
        return [n for n, event in enumerate(events) if _interactions_text(event)]
    return list(range(1, len(events) - (2 if provider == "openai_chat" else 1)))


def _interactions_text(event: Any) -> bool:
    """Whether an Interactions API event is a text delta."""
    delta = event.get("delta") if event.get("event_type") == "step.delta" else None
    return isinstance(delta, dict) and delta.get("type") == "text"


PERTURBATIONS: list[Any] = [None, 0, 1, True, 1.0, "", "x", "assistant", [], {}, [{}], {"a": 1}]


@pytest.mark.parametrize("provider", STREAMING)
def test_every_change_to_a_text_delta_fast_equals_general(provider: str) -> None:
    """Each value of a text delta event (and a new key at each level) set to odd values:
    the fast path takes it or leaves it to the general one, which must agree."""
    events = long_stream(provider, 5)
    position = _delta_positions(provider, events)[-2]
    cases = 0
    for path in list(H.paths(events[position])):
        for value in PERTURBATIONS:
            changed = copy.deepcopy(events)
            node = H.get(changed[position], path[:-1]) if path else None
            if path:
                node[path[-1]] = value
            target = H.get(changed[position], path)
            if isinstance(target, dict):
                target["extra_key"] = value
            same_both_ways(provider, changed)
            cases += 1
    assert cases > 40


def test_openai_chat_metadata_that_changes_mid_stream() -> None:
    events = long_stream("openai_chat", 8)
    events[3]["system_fingerprint"] = "fp_other"
    events[4]["service_tier"] = None
    events[5]["created"] = True
    events[6]["choices"][0]["content_filter_results"] = {}
    events[7]["choices"][0]["content_filter_results"] = "x"
    with counting() as hits:
        fast = outcome("openai_chat", events)
    with general():
        assert outcome("openai_chat", events) == fast
    assert hits.stream >= 2  # the first deltas; later ones bring a changed fingerprint back
    assert "fp_other" in str(fast)


def test_gemini_usage_that_changes_is_decoded_again() -> None:
    events = long_stream("gemini", 8)
    for number, event in enumerate(events[2:6]):
        event["usageMetadata"]["candidatesTokenCount"] = number + 1  # changes every event
    events[6]["usageMetadata"]["totalTokenCount"] = True  # not a count: refused, as ever
    with counting() as hits:
        fast = outcome("gemini", events[:6])
    with general():
        assert outcome("gemini", events[:6]) == fast
    assert hits.stream >= 4
    with counting():
        fast = outcome("gemini", events)
    with general():
        assert outcome("gemini", events) == fast
    assert fast[0] == "error"
    events[6]["usageMetadata"]["totalTokenCount"] = 8.0  # equal to 8, but not an int
    same_both_ways("gemini", events)


# ----------------------------------------------------------------- chunk sequences

_SCALAR = st.one_of(
    st.integers(-3, 3), st.booleans(), st.sampled_from([0.0, 1.0, -0.0, 2.5]), st.text(max_size=3)
)
_METADATA = st.dictionaries(
    st.sampled_from(["a", "b", "c"]),
    st.one_of(_SCALAR, st.dictionaries(st.sampled_from(["x", "y"]), _SCALAR, max_size=2)),
    max_size=3,
)
_TEXT = st.text(max_size=4)


def _block(kind: str, text: str, index: int | None) -> Any:
    cls = {"text": TextBlock, "reasoning": ReasoningBlock}[kind]
    return cls(text=text) if index is None else cls(text=text, index=index)


_CHUNK = st.one_of(
    _TEXT.map(lambda text: AssistantMessageChunk(content=text)),
    st.builds(
        lambda kind, text, index: AssistantMessageChunk(content=[_block(kind, text, index)]),
        st.sampled_from(["text", "reasoning"]),
        _TEXT,
        st.one_of(st.none(), st.integers(0, 2)),
    ),
    st.builds(
        lambda blocks: AssistantMessageChunk(content=blocks),
        st.lists(
            st.builds(_block, st.sampled_from(["text", "reasoning"]), _TEXT, st.integers(0, 2)),
            max_size=2,
        ),
    ),
    st.builds(
        lambda text, metadata: AssistantMessageChunk(content=text, response_metadata=metadata),
        _TEXT,
        _METADATA,
    ),
    _METADATA.map(lambda metadata: AssistantMessageChunk(metadata=metadata)),
    st.builds(
        lambda text, tokens: AssistantMessageChunk(
            content=text,
            usage=Usage(input_tokens=tokens, output_tokens=1, total_tokens=tokens + 1),
        ),
        _TEXT,
        st.integers(0, 5),
    ),
    st.just(AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=0, arguments="{")])),
    st.just(AssistantMessageChunk(content="", provider="p", model="m")),
)


def assemble(chunks: list[Any]) -> Any:
    accumulator = ChunkAccumulator()
    for chunk in chunks:
        accumulator.add(chunk)
    total: Any = None
    sums = []
    for chunk in chunks:
        total = chunk if total is None else total + chunk
        sums.append(total)
    try:
        message: Any = state(accumulator.to_message())
    except chatschema.ValidationError as error:
        message = str(error)
    return (
        message,
        state(accumulator.to_chunk()),
        [state(item) for item in sums],  # older sums are replayed from the kept chunks
    )


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.lists(_CHUNK, max_size=12))
def test_chunk_sequences_fast_equals_general(chunks: list[Any]) -> None:
    with counting():
        fast = assemble(chunks)
    with general():
        assert assemble(chunks) == fast


def test_the_accumulator_fast_paths_are_taken() -> None:
    chunks = [
        AssistantMessageChunk(content="a"),
        AssistantMessageChunk(content="b"),
        AssistantMessageChunk(content=[TextBlock(text="", index=0)]),
        AssistantMessageChunk(content=[TextBlock(text="c", index=0)]),
        AssistantMessageChunk(content="d", response_metadata={"p": {"n": 1}}),
        AssistantMessageChunk(content="e", response_metadata={"p": {"n": 1}}),
        AssistantMessageChunk(content="f", response_metadata={"p": {"n": True}}),
    ]
    with counting() as hits:
        fast = assemble(chunks)
    assert hits.accumulator >= 2
    with general():
        assert assemble(chunks) == fast
    message = merge_chunks(chunks).to_message()
    assert message.response_metadata == {"p": {"n": True}}


def test_older_sums_read_after_newer_ones_replay_string_deltas() -> None:
    a = AssistantMessageChunk(content="x") + AssistantMessageChunk(content="y")
    b = a + AssistantMessageChunk(content="z")
    c = a + AssistantMessageChunk(content=[TextBlock(text="w", index=3)])
    assert b.content == "xyz"
    assert a.content == "xy"
    assert [block.text for block in c.content] == ["xy", "w"]
    assert a + AssistantMessageChunk(content="!") == AssistantMessageChunk(content="xy!")


# ------------------------------------------------------------- trusted construction


@settings(max_examples=200, deadline=None, derandomize=True, database=None)
@given(st.text(), st.integers(0, 2**40))
def test_trusted_blocks_and_chunks_are_what_validation_builds(text: str, index: int) -> None:
    for cls in (TextBlock, ReasoningBlock):
        built = text_block(cls, text, index)
        assert state(built) == state(cls(text=text, index=index))
        assert state(trusted(cls, {"text": text, "index": index})) == state(built)
    blocks = [TextBlock(text=text, index=index)]
    assert state(content_chunk(AssistantMessageChunk, blocks)) == state(
        AssistantMessageChunk.model_validate({"role": "assistant", "content": blocks})
    )
    assert state(content_chunk(AssistantMessageChunk, text)) == state(
        AssistantMessageChunk.model_validate({"role": "assistant", "content": text})
    )
    fields = {"content": text, "provider": "p", "usage_mode": "cumulative"}
    assert state(trusted(AssistantMessageChunk, dict(fields))) == state(
        AssistantMessageChunk(**fields)
    )


def test_trusted_chunks_share_no_default() -> None:
    first = content_chunk(AssistantMessageChunk, "a")
    second = trusted(AssistantMessageChunk, {"content": "b"})
    first.tool_call_chunks.append(ToolCallChunk(index=0))
    assert (
        second.tool_call_chunks == [] and AssistantMessageChunk(content="c").tool_call_chunks == []
    )


def test_copy_model_copies_everything_mutable() -> None:
    usage = Usage.model_validate(
        {
            "input_tokens": 3,
            "output_tokens": 2,
            "total_tokens": 5,
            "input_token_details": {"cache_read": 1, "audio": 2},
            "output_token_details": {"reasoning": 1, "custom_count": 4},
        }
    )
    copied = copy_model(usage)
    assert state(copied) == state(usage)
    assert sharing([usage, copied]) == set()


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.text())
def test_a_string_chunk_is_validated_by_hand_as_pydantic_would(text: str) -> None:
    by_hand = AssistantMessageChunk(content=text)
    assert state(by_hand) == state(
        AssistantMessageChunk.model_validate({"role": "assistant", "content": text})
    )
    assert to_dict(by_hand) == {"role": "assistant", "content": text}


def test_user_input_is_still_validated() -> None:
    class Text(str):
        pass

    for bad in (3, None, b"x", [1]):
        with pytest.raises(chatschema.ValidationError) as caught:
            AssistantMessageChunk(content=bad)
        assert "/content" in str(caught.value) and caught.value.problems
    subclassed = AssistantMessageChunk(content=Text("x"))  # pydantic's way: a plain str
    assert type(subclassed.content) is str
    assert state(subclassed) == state(AssistantMessageChunk(content="x"))

    class Shouting(AssistantMessageChunk):
        @field_validator("content")
        @classmethod
        def upper(cls, value: Any) -> Any:
            return value.upper() if isinstance(value, str) else value

    assert Shouting(content="hi").content == "HI"  # a subclass's validators run


def test_fast_path_tables_match_the_general_ones() -> None:
    # the anthropic fast path reads text and thinking deltas as DELTAS does
    for name, (kind, _) in anthropic_stream._FAST_DELTAS.items():
        assert anthropic_stream.DELTAS[name] == (kind, kind)
    assert {"text", "reasoning", "refusal"} <= _chunks._TEXT_APPENDED
