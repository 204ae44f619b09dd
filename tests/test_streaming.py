"""Streaming assembly: chunk + chunk, merge_chunks, ChunkAccumulator, partial JSON."""

from __future__ import annotations

import copy
import json
import pickle
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import chatschema
from chatschema import (
    AssistantMessageChunk,
    ChunkAccumulator,
    ReasoningBlock,
    TextBlock,
    ToolCallChunk,
    Usage,
    merge_chunks,
)
from chatschema._partial_json import PartialJSON

K = AssistantMessageChunk


def _sum(chunks: list[AssistantMessageChunk]) -> AssistantMessageChunk:
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def test_text_deltas_concatenate_and_ids_are_never_concatenated() -> None:
    chunks = [
        K(content="Hel", id="run-1", model="gpt-x", response_metadata={"a": {"x": 1}}),
        K(content="lo", id="run-1", model="gpt-x", response_metadata={"a": {"y": 2}}),
        K(content=" world", finish_reason="stop", raw_finish_reason="stop", chunk_position="last"),
    ]
    message = _sum(chunks).to_message()
    assert chatschema.to_dict(message) == {
        "role": "assistant",
        "content": "Hello world",
        "id": "run-1",
        "model": "gpt-x",
        "finish_reason": "stop",
        "raw_finish_reason": "stop",
        "response_metadata": {"a": {"x": 1, "y": 2}},
    }
    assert merge_chunks(chunks) == _sum(chunks)
    assert _sum(chunks).chunk_position == "last"


def test_blocks_merge_by_index_and_type() -> None:
    chunks = [
        K(content=[ReasoningBlock(index=0, text="Let me ", provider="anthropic")]),
        K(content=[ReasoningBlock(index=0, text="think.")]),
        K(content=[ReasoningBlock(index=0, signature="c2ln")]),
        K(content=[TextBlock(index=1, text="The answer")]),
        K(content=[TextBlock(index=1, text=" is 4.", extras={"x": {"k": 1}})]),
        K(content=[TextBlock(text="unindexed")]),
    ]
    message = merge_chunks(chunks).to_message()
    assert chatschema.to_dict(message)["content"] == [
        {
            "type": "reasoning",
            "text": "Let me think.",
            "provider": "anthropic",
            "signature": "c2ln",
        },
        {"type": "text", "text": "The answer is 4.", "extras": {"x": {"k": 1}}},
        {"type": "text", "text": "unindexed"},
    ]
    merged = merge_chunks(chunks)  # the chunk form keeps indexes, so it can merge further
    assert [block.index for block in merged.content] == [0, 1, None]  # type: ignore[union-attr]


def test_tool_call_fragments_merge_by_index_and_parse_once_at_the_end() -> None:
    chunks = [
        K(tool_call_chunks=[ToolCallChunk(index=0, id="call_1", name="get_weather", arguments="")]),
        K(tool_call_chunks=[ToolCallChunk(index=0, arguments='{"city": "Os')]),
        K(tool_call_chunks=[ToolCallChunk(index=1, id="call_2", name="broken", arguments="{")]),
        K(tool_call_chunks=[ToolCallChunk(index=0, arguments='lo"}')]),
        K(tool_call_chunks=[ToolCallChunk(index=1, arguments='"a": 1')], chunk_position="last"),
    ]
    message = merge_chunks(chunks).to_message()
    assert chatschema.to_dict(message)["tool_calls"] == [
        {"id": "call_1", "name": "get_weather", "arguments": {"city": "Oslo"}, "index": 0}
    ]
    (invalid,) = message.invalid_tool_calls
    assert (invalid.id, invalid.name, invalid.arguments) == ("call_2", "broken", '{"a": 1')
    assert invalid.error is not None and "not valid JSON" in invalid.error


@pytest.mark.parametrize(
    ("raw", "error"),
    [("[1, 2]", "must be a JSON object"), ("nope", "not valid JSON"), ('"x"', "JSON object")],
)
def test_arguments_that_are_not_an_object_become_invalid_tool_calls(raw: str, error: str) -> None:
    chunk = K(tool_call_chunks=[ToolCallChunk(index=0, id="c", name="f", arguments=raw)])
    message = chunk.to_message()
    assert message.tool_calls == [] and error in (message.invalid_tool_calls[0].error or "")


def test_empty_arguments_mean_no_arguments() -> None:
    chunk = K(tool_call_chunks=[ToolCallChunk(index=0, id="c", name="f")])
    assert chunk.to_message().tool_calls[0].arguments == {}


def test_usage_delta_adds_up_and_cumulative_replaces() -> None:
    delta = [
        K(usage=Usage(input_tokens=10, output_tokens=1, total_tokens=11)),
        K(
            usage=Usage(
                input_tokens=0,
                output_tokens=5,
                total_tokens=5,
                output_token_details={"reasoning": 2},
            )
        ),
    ]
    usage = merge_chunks(delta).to_message().usage
    assert usage is not None
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (10, 6, 16)
    assert usage.output_token_details is not None and usage.output_token_details.reasoning == 2
    cumulative = [
        K(usage=Usage(input_tokens=10, output_tokens=1, total_tokens=11), usage_mode="cumulative"),
        K(usage=Usage(input_tokens=10, output_tokens=7, total_tokens=17), usage_mode="cumulative"),
    ]
    usage = merge_chunks(cumulative).to_message().usage
    assert usage is not None and usage.output_tokens == 7  # LangChain would say 8


def test_plus_does_not_change_its_operands_and_branches_are_independent() -> None:
    a, b, c = K(content="a"), K(content="b"), K(content="c")
    ab = a + b
    abc = ab + c
    abb = ab + b  # ab is no longer the newest sum of its accumulator
    assert (a.content, b.content) == ("a", "b")
    assert (ab.content, abc.content, abb.content) == ("ab", "abc", "abb")
    assert abc == K(content="abc") and isinstance(abc, AssistantMessageChunk)
    assert repr(abc).startswith("AssistantMessageChunk(")
    assert chatschema.to_dict(abc) == {"role": "assistant", "content": "abc"}
    assert (a + (b + c)).content == "abc"


@pytest.mark.parametrize(
    "read",
    [
        lambda chunk: chunk.model_dump_json(exclude_unset=True),
        lambda chunk: chunk.model_copy().model_dump_json(exclude_unset=True),
        lambda chunk: copy.deepcopy(chunk).model_dump_json(exclude_unset=True),
        lambda chunk: pickle.loads(pickle.dumps(chunk)).model_dump_json(exclude_unset=True),
        lambda chunk: json.dumps(chunk.model_extra or chunk.__pydantic_private__ or {}),
    ],
)
def test_a_sum_is_built_by_whatever_reads_it_first(read: Any) -> None:
    total = K(content="a", model="m") + K(content="b") + K(content="c", finish_reason="stop")
    older = K(content="x") + K(content="y")
    newer = older + K(content="z")
    read(older)  # not the newest of its accumulator: rebuilt from its own chunks
    assert read(total) in (
        '{"role":"assistant","content":"abc","model":"m","finish_reason":"stop"}',
        "{}",
    )
    assert (older.content, newer.content) == ("xy", "xyz")


def test_accumulator_partial_view_and_final_message() -> None:
    accumulator = ChunkAccumulator()
    views = []
    for piece in ['{"path": "/tmp/a', '.txt", "lines": [1, 2', ", 3]", "}"]:
        accumulator.add(
            K(tool_call_chunks=[ToolCallChunk(index=0, id="c", name="read", arguments=piece)])
        )
        # each view is a snapshot: later chunks leave the stored ones as they were
        views.append(accumulator.partial_message().tool_calls[0].arguments)
    assert views == [
        {"path": "/tmp/a"},
        {"path": "/tmp/a.txt", "lines": [1, 2]},
        {"path": "/tmp/a.txt", "lines": [1, 2, 3]},
        {"path": "/tmp/a.txt", "lines": [1, 2, 3]},
    ]
    assert accumulator.chunks == 4 and not accumulator.done
    assert accumulator.message.tool_calls[0].arguments == {"path": "/tmp/a.txt", "lines": [1, 2, 3]}


def test_adding_something_else_is_an_error() -> None:
    with pytest.raises(chatschema.ValidationError):
        ChunkAccumulator().add("hello")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        K(content="a") + "b"  # type: ignore[operator]


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4)
    ),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(JSON, st.data(), st.booleans())
def test_partial_json_parses_any_split_of_any_document(
    value: Any, data: st.DataObject, ascii_only: bool
) -> None:
    text = json.dumps(value, ensure_ascii=ascii_only)  # escapes split mid-way, or raw UTF-8
    cuts = sorted(data.draw(st.lists(st.integers(0, len(text)), max_size=8)))
    parser = PartialJSON()
    start = 0
    for cut in [*cuts, len(text)]:
        parser.feed(text[start:cut])
        parser.value()  # a view at every cut must not disturb the parse
        start = cut
    assert parser.error is None
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        assert parser.value() == value
    else:  # a bare number is not known to be finished until something follows it
        parser.feed(" ")
        assert parser.value() == value


@pytest.mark.parametrize("text", ['{"a" 1}', "[1,,2]", '{"a": tru}', "{,}", '"\\x"', "1 2"])
def test_partial_json_stops_at_invalid_text(text: str) -> None:
    parser = PartialJSON()
    parser.feed(text + " ")
    assert parser.error is not None


def test_stream_cut_inside_an_escape_and_a_surrogate_pair() -> None:
    text = json.dumps({"s": "é😀\n"})  # {"s": "\u00e9\ud83d\ude00\n"}
    parser = PartialJSON()
    for char in text:
        parser.feed(char)
        parser.value()
    assert parser.value() == {"s": "é😀\n"}
