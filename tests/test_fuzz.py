"""Fuzzing every public entry point with mutated valid payloads.

Seeds of every kind (``hostile.py``) are mutated - values dropped, retyped, duplicated,
reordered, truncated, tags swapped, nested past the depth limit, made large - and fed to
``validate``, the ``parse*`` functions, every codec's ``decode_*`` (``decode_stream``
where a codec has it), ``encode`` / ``check`` / ``convert`` of what decoded,
``ChunkAccumulator`` and friends, ``trim_messages`` and the command line. The only
exceptions allowed out are chatschema's own, each saying where the problem is
(``hostile.check_error``).

CI budgets are the numbers in ``fuzz_settings(...)``; ``CHATSCHEMA_FUZZ_EXAMPLES=N``
runs every property with ``N`` random examples instead (``make fuzz``).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import hostile as H
import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

import chatschema
from chatschema import (
    AssistantMessageChunk,
    ChunkAccumulator,
    ToolCallChunk,
    UserMessage,
    merge_chunks,
)
from chatschema.cli import main as cli
from chatschema.errors import ConversionError, ValidationError
from chatschema.providers import PROVIDERS, convert, get_codec
from chatschema.rendering import get_buffer_string, pretty_repr
from chatschema.tokens import count_tokens_approximately

WIRE_LISTS = {
    "openai_chat": "messages",
    "openai_responses": "input",
    "open_responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
    "gemini_interactions": "input",
    "otel_genai": "gen_ai.input.messages",
    "bedrock_converse": "messages",
    "mistral": "messages",
}

SEEDS_BY_TYPE: dict[str, list[Any]] = {}
for _type, _document in H.NEUTRAL:
    SEEDS_BY_TYPE.setdefault(_type, []).append(_document)
TYPE_NAMES = sorted(SEEDS_BY_TYPE)

REQUESTS = {provider: H.request_seeds(provider) for provider in PROVIDERS}
RESPONSES = {provider: H.response_seeds(provider) for provider in PROVIDERS}
STREAMS = {provider: [events for events, _ in H.stream_seeds(provider)] for provider in PROVIDERS}
CHUNKS = SEEDS_BY_TYPE["AssistantMessageChunk"]

OPTIONS = st.fixed_dictionaries(
    {},
    optional={
        "content_format": st.sampled_from(["auto", "string", "parts"]),
        "vision": st.booleans(),
        "prompt_cache": st.booleans(),
        "native_tools": st.booleans(),
        "reasoning": st.sampled_from(["replay", "text", "drop"]),
        "system_role": st.sampled_from(["system", "developer"]),
        "reasoning_content": st.booleans(),
        "unsupported": st.sampled_from(["error", "drop", "placeholder"]),
        "check": st.booleans(),
    },
)


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    """Write the calls per entry point when ``CHATSCHEMA_FUZZ_REPORT`` is set."""
    yield
    H.write_report()


def plain_json(value: Any) -> bool:
    """Whether ``value`` survives JSON text unchanged (no NaN, infinity, lone surrogate)."""
    try:
        text = json.dumps(value, allow_nan=False, ensure_ascii=False)
        text.encode("utf-8")
    except (ValueError, RecursionError):
        return False
    return True


def stream_or_skip(provider: str) -> Any:
    """The codec, or a skip for a format without stream events (telemetry records)."""
    if not H.has_stream(provider):
        pytest.skip(f"{provider} has no stream events: decode_stream refuses, see its docs")
    return get_codec(provider)


def assemble(name: str, chunks: list[AssistantMessageChunk]) -> None:
    """Assemble chunks every way there is; only chatschema errors may come out."""
    if not chunks:
        return

    def accumulate() -> Any:
        accumulator = ChunkAccumulator()
        for chunk in chunks:
            accumulator.add(chunk)
            accumulator.partial_message()
        return accumulator.to_message()

    def added() -> Any:
        total = chunks[0]
        for chunk in chunks[1:]:
            total = total + chunk
        return total.to_message()

    ok, message = H.call(f"{name}.ChunkAccumulator", accumulate)
    H.call(f"{name}.merge_chunks", lambda: merge_chunks(chunks).to_message())
    H.call(f"{name}.chunk+chunk", added)
    if ok:
        H.call(f"{name}.to_dict", chatschema.to_dict, message)
        repr(message)


# Every property is a body (a plain function) and a strategy for its arguments, so
# that a long hunting run can call the bodies directly; the tests wrap them.
# ------------------------------------------------------------- neutral documents


@st.composite
def neutral_documents(draw: st.DrawFn) -> tuple[str, Any]:
    type_name = draw(st.sampled_from(TYPE_NAMES))
    return type_name, draw(H.mutated(SEEDS_BY_TYPE[type_name]))


def neutral_document(drawn: tuple[str, Any]) -> None:
    """validate and parse: chatschema errors only, and the same verdict."""
    type_name, mutated = drawn
    document = H.unwrap(mutated)
    valid, _ = H.call("validate", chatschema.validate, document, type_name)
    # parse() reads a str as JSON text (validate as a JSON string): give it the text
    data = json.dumps(document) if isinstance(document, str) else document
    parsed, model = H.call("parse", chatschema.parse, data, type_name)
    assert valid == parsed, f"validate says {valid}, parse says {parsed}"
    if parsed and isinstance(model, BaseModel):
        ok, dumped = H.call("to_dict", chatschema.to_dict, model)
        if ok and plain_json(document):
            assert dumped == document  # absent stays absent, nothing added
        repr(model)
        if type_name in H.MESSAGE_TYPES:
            H.call("pretty_repr", pretty_repr, model)
            H.call("get_buffer_string", get_buffer_string, [model])
            H.call("count_tokens_approximately", count_tokens_approximately, [model])
    if type_name in H.MESSAGE_TYPES:
        H.call("parse_message", chatschema.parse_message, document)
        H.call("parse_messages", chatschema.parse_messages, [document, document])
    if type_name == "Conversation":
        H.call("parse_conversation", chatschema.parse_conversation, document)
    if not isinstance(mutated, H.Deep):
        text = json.dumps(document)  # NaN and lone surrogates as JSON has them
        from_text, _ = H.call("parse(text)", chatschema.parse, text, type_name)
        if plain_json(document) and not _big_int(document):
            assert from_text == parsed, "JSON text and Python data get different verdicts"
        H.call("parse(bytes)", chatschema.parse, text.encode("utf-8", "surrogatepass"), type_name)


@H.fuzz_settings(2_500)
@given(neutral_documents())
def test_neutral_documents(drawn: tuple[str, Any]) -> None:
    """validate and parse: chatschema errors only, and the same verdict."""
    neutral_document(drawn)


def _big_int(value: Any) -> bool:
    """Whether a document holds an integer JSON parsers may read as a float."""
    return any(type(node) is int and abs(node) > 2**63 for node in _leaves(value))


def _leaves(value: Any) -> Iterator[Any]:
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
        else:
            yield node


def arbitrary_data(data: bytes | str) -> None:
    """Arbitrary text or bytes are refused with a located problem, never crash."""
    for type_name in ("Message", "Conversation", "ContentBlock"):
        H.call("parse(text)", chatschema.parse, data, type_name)
    H.call("parse_messages", chatschema.parse_messages, data)
    for provider in PROVIDERS:
        codec = get_codec(provider)
        H.call(f"{provider}.decode_conversation", codec.decode_conversation, data)
        H.call(f"{provider}.decode_response", codec.decode_response, data)


ARBITRARY = st.binary(max_size=300) | st.text(max_size=300)


@H.fuzz_settings(300)
@given(ARBITRARY)
def test_arbitrary_text_and_bytes(data: bytes | str) -> None:
    """Arbitrary text or bytes are refused with a located problem, never crash."""
    arbitrary_data(data)


# ------------------------------------------------------ neutral -> every provider

CONVERSATION_ARGS = st.tuples(H.mutated(H.CONVERSATIONS), OPTIONS, st.integers(0, 400))


def conversation_case(mutated: Any, options: dict[str, Any], budget: int) -> None:
    """encode, check, convert and the history utilities on a mutated conversation.

    What ``encode`` produces, the same codec's ``decode_conversation`` reads back.
    """
    document = H.unwrap(mutated)
    parsed, conversation = H.call("parse_conversation", chatschema.parse_conversation, document)
    source = conversation if parsed else document
    for provider in PROVIDERS:
        codec = get_codec(provider)
        ok, encoded = H.call(
            f"{provider}.encode", codec.encode, source, provider=provider, **options
        )
        H.call(f"{provider}.check", codec.check, source, provider=provider, **options)
        H.call("convert", convert, document, source="neutral", target=provider, provider=provider)
        if ok:
            decoded, error = H.call(
                f"{provider}.decode_conversation", codec.decode_conversation, encoded
            )
            assert decoded, f"{provider} cannot read what it encoded: {error}"
    if parsed:
        messages = conversation.messages
        strategy = "last" if budget % 2 else "first"
        H.call(
            "trim_messages",
            chatschema.trim_messages,
            messages,
            max_tokens=budget,
            strategy=strategy,
            allow_partial=budget % 3 == 0,
        )
        H.call(
            "trim_messages",
            chatschema.trim_messages,
            messages,
            max_tokens=budget % 7,
            token_counter=len,
            include_system=strategy == "last",
        )
        H.call("count_tokens_approximately", count_tokens_approximately, messages)
        H.call("get_buffer_string", get_buffer_string, messages)
        H.call("merge_message_runs", chatschema.merge_message_runs, messages)
        H.call("filter_messages", chatschema.filter_messages, messages, exclude_tool_calls=True)
    else:
        raw = document.get("messages", document) if isinstance(document, dict) else document
        H.call("trim_messages", chatschema.trim_messages, raw, max_tokens=budget)


@H.fuzz_settings(700)
@given(CONVERSATION_ARGS)
def test_conversations(args: tuple[Any, dict[str, Any], int]) -> None:
    """encode, check, convert, trim ... on mutated neutral conversations."""
    conversation_case(*args)


# ------------------------------------------------------------ provider requests


def request_case(provider: str, mutated: Any, target: str) -> None:
    """decode_conversation / decode_messages / convert on a mutated request; what
    decodes encodes again (possibly refusing content) and converts to every format."""
    codec = get_codec(provider)
    document = H.unwrap(mutated)
    ok, conversation = H.call(
        f"{provider}.decode_conversation", codec.decode_conversation, document, provider=provider
    )
    H.call(f"{provider}.decode_messages", codec.decode_messages, document, provider=provider)
    if not ok:
        return
    H.call(
        f"{provider}.encode",
        codec.encode,
        conversation,
        provider=provider,
        check=False,
        unsupported="drop",
    )
    H.call(f"{provider}.check", codec.check, conversation, provider=provider)
    H.call("to_dict", chatschema.to_dict, conversation)
    H.call("convert", convert, document, source=provider, target="neutral")
    H.call("convert", convert, document, source=provider, target=target, unsupported="placeholder")


def request_args(provider: str) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.tuples(st.just(provider), H.mutated(REQUESTS[provider]), st.sampled_from(PROVIDERS))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_requests(provider: str) -> None:
    """Mutated requests: decoded, re-encoded, converted."""
    H.nonempty(REQUESTS[provider], provider)  # (without recorded seeds: skips)

    @H.fuzz_settings(900)
    @given(request_args(provider))
    def run(args: tuple[Any, ...]) -> None:
        request_case(*args)

    run()


def located_case(provider: str, document: Any, log: list[tuple[str, tuple[Any, ...]]]) -> None:
    """One value changed inside wire message ``i``: a ConversionError names message ``i``."""
    operation, path = log[0]
    ok, error = H.call(
        f"{provider}.decode_conversation",
        get_codec(provider).decode_conversation,
        document,
        provider=provider,
    )
    in_message = len(path) >= 3 and path[0] == WIRE_LISTS[provider]
    if ok or not in_message or operation not in ("retype", "retag", "unknown_key"):
        return
    if isinstance(error, ConversionError):
        assert error.message_index == path[1], (error, path)


@st.composite
def located_args(draw: st.DrawFn, provider: str) -> tuple[Any, ...]:
    seeds = [
        seed for seed in REQUESTS[provider] if isinstance(seed.get(WIRE_LISTS[provider]), list)
    ]
    log: list[tuple[str, tuple[Any, ...]]] = []
    document = draw(H.mutation(draw(st.sampled_from(seeds)), H.tags(seeds), (), log))
    return provider, document, log


@pytest.mark.parametrize("provider", PROVIDERS)
def test_request_errors_name_the_message(provider: str) -> None:
    """One value changed inside wire message ``i``: a ConversionError names message ``i``."""

    @H.fuzz_settings(400)
    @given(located_args(provider))
    def run(args: tuple[Any, ...]) -> None:
        located_case(*args)

    run()


def response_case(provider: str, mutated: Any) -> None:
    """decode_response on a mutated response; a decoded reply goes back into a request."""
    codec = get_codec(provider)
    ok, reply = H.call(
        f"{provider}.decode_response", codec.decode_response, H.unwrap(mutated), provider=provider
    )
    if ok:
        H.call("to_dict", chatschema.to_dict, reply)
        repr(reply)
        H.call(
            f"{provider}.encode",
            codec.encode,
            [UserMessage(content="q"), reply],
            provider=provider,
            check=False,
            unsupported="drop",
        )


def response_args(provider: str) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.tuples(st.just(provider), H.mutated(RESPONSES[provider]))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_responses(provider: str) -> None:
    """Mutated responses: decoded, appended to a history, encoded."""
    H.nonempty(RESPONSES[provider], provider)

    @H.fuzz_settings(900)
    @given(response_args(provider))
    def run(args: tuple[Any, ...]) -> None:
        response_case(*args)

    run()


# ------------------------------------------------------------------- streams


def stream_case(provider: str, mutated: Any) -> None:
    """decode_stream on events dropped, duplicated, reordered, cut short or mutated;
    the chunks assemble every way without a foreign exception."""
    codec = get_codec(provider)
    ok, chunks = H.call(
        f"{provider}.decode_stream",
        lambda events: H.drain(codec.decode_stream(events)),
        H.unwrap(mutated),
        provider=provider,
    )
    if ok:
        assemble(provider, chunks)


def stream_args(provider: str) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.tuples(st.just(provider), H.mutated_stream(STREAMS[provider]))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_streams(provider: str) -> None:
    """Mutated event sequences: decoded lazily, assembled every way."""
    stream_or_skip(provider)
    H.nonempty(STREAMS[provider], provider)

    @H.fuzz_settings(900)
    @given(stream_args(provider))
    def run(args: tuple[Any, ...]) -> None:
        stream_case(*args)

    run()


def sse(provider: str, events: list[Any]) -> bytes:
    """The raw server-sent-event body a provider sends for these events."""
    lines = []
    for event in events:
        data = json.dumps(event)
        named = ("anthropic", "openai_responses", "open_responses")  # event: lines
        if provider in named and isinstance(event, dict):
            lines.append(f"event: {event.get('type')}\ndata: {data}\n\n")
        else:
            lines.append(f"data: {data}\n\n")
    if provider == "openai_chat":
        lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


@st.composite
def sse_bodies(draw: st.DrawFn, provider: str) -> list[bytes]:
    """A stream's raw body, corrupted and cut into pieces anywhere."""
    body = bytearray(sse(provider, draw(st.sampled_from(STREAMS[provider]))))
    for _ in range(draw(st.integers(0, 3))):
        position = draw(st.integers(0, len(body)))
        kind = draw(st.sampled_from(["flip", "insert", "delete", "cut"]))
        if kind == "flip" and position < len(body):
            body[position] = draw(st.integers(0, 255))
        elif kind == "insert":
            body[position:position] = draw(
                st.sampled_from([b"\xff\xfe", b"\n\n", b"data: {\n", b":ping\n", b"\r", b"\x00"])
            )
        elif kind == "delete":
            del body[position : position + draw(st.integers(1, 40))]
        else:
            del body[position:]
    cuts = sorted(draw(st.lists(st.integers(0, len(body)), max_size=8)))
    pieces, start = [], 0
    for cut in [*cuts, len(body)]:
        pieces.append(bytes(body[start:cut]))
        start = cut
    return pieces


def sse_case(provider: str, pieces: list[bytes]) -> None:
    """Corrupted SSE bodies (bad UTF-8, cut JSON, stray lines) cut anywhere."""
    codec = get_codec(provider)
    ok, chunks = H.call(
        f"{provider}.decode_stream(sse)",
        lambda body: H.drain(codec.decode_stream(body)),
        pieces,
        provider=provider,
    )
    if ok:
        assemble(provider, chunks)


def sse_args(provider: str) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.tuples(st.just(provider), sse_bodies(provider))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_raw_sse_bodies(provider: str) -> None:
    """Corrupted raw stream bodies, cut anywhere."""
    stream_or_skip(provider)
    H.nonempty(STREAMS[provider], provider)

    @H.fuzz_settings(400)
    @given(sse_args(provider))
    def run(args: tuple[Any, ...]) -> None:
        sse_case(*args)

    run()


# ------------------------------------------------------------ chunk assembly

CHUNK_LISTS = st.lists(H.mutated(CHUNKS, nest_levels=(3, 50, 199, 201)), min_size=1, max_size=5)


def chunk_case(drawn: list[Any]) -> None:
    """Mutated chunks: parsed, then assembled every way."""
    chunks = []
    for mutated in drawn:
        ok, chunk = H.call(
            "parse(chunk)", chatschema.parse, H.unwrap(mutated), "AssistantMessageChunk"
        )
        if ok:
            chunks.append(chunk)
    assemble("chunks", chunks)


@H.fuzz_settings(700)
@given(CHUNK_LISTS)
def test_chunk_assembly(drawn: list[Any]) -> None:
    """Mutated chunks: parsed, then assembled every way."""
    chunk_case(drawn)


FRAGMENT = st.text(alphabet='{}[]":,\\u0123456789abcdeftrnl -.e+\n\ud83d\ude00é', max_size=12)
FRAGMENTS = st.lists(
    st.tuples(st.integers(0, 2), FRAGMENT, st.sampled_from([None, "c1", "c2"])), max_size=30
)


def fragments_case(fragments: list[tuple[int, str, str | None]]) -> None:
    """Arbitrary tool-call argument fragments: live views and the finished message."""
    chunks = [
        AssistantMessageChunk(
            tool_call_chunks=[
                ToolCallChunk(index=index, arguments=text, name="f")
                if call_id is None
                else ToolCallChunk(index=index, arguments=text, name="f", id=call_id)
            ]
        )
        for index, text, call_id in fragments
    ]
    assemble("fragments", chunks)
    accumulator = ChunkAccumulator()
    for chunk in chunks:
        accumulator.add(chunk)
        view = accumulator.partial_message()
        for call in view.tool_calls:
            assert isinstance(call.arguments, dict)


@H.fuzz_settings(500)
@given(FRAGMENTS)
def test_tool_argument_fragments(fragments: list[tuple[int, str, str | None]]) -> None:
    """Arbitrary tool-call argument fragments: live views and the finished message."""
    fragments_case(fragments)


@H.fuzz_settings(50)
@given(st.sampled_from([None, 1, "x", {}, [], UserMessage(content="x")]))
def test_accumulator_refuses_non_chunks(value: Any) -> None:
    """Anything but a chunk is a ValidationError, never an AttributeError."""
    ok, error = H.call("ChunkAccumulator.add", ChunkAccumulator().add, value)
    assert not ok and isinstance(error, ValidationError)


# ----------------------------------------------------------------------- CLI


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """Run the command line with real UTF-8 output streams (as a pipe or file has)."""
    out_bytes, err_bytes = io.BytesIO(), io.BytesIO()
    out = io.TextIOWrapper(out_bytes, encoding="utf-8", errors="strict")
    err = io.TextIOWrapper(err_bytes, encoding="utf-8", errors="strict")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = cli(argv)
        out.flush()
        err.flush()
    return status, out_bytes.getvalue().decode(), err_bytes.getvalue().decode()


@st.composite
def cli_inputs(draw: st.DrawFn) -> tuple[str, bytes]:
    """(format, file content): mutated documents as JSON or JSON Lines, possibly damaged."""
    source = draw(st.sampled_from(["neutral", *PROVIDERS]))
    seeds = H.CONVERSATIONS if source == "neutral" else REQUESTS[source]
    documents = [
        H.unwrap(draw(H.mutated(seeds, nest_levels=(3, 199, 201, 260))))
        for _ in range(draw(st.integers(1, 3)))
    ]
    if len(documents) == 1:
        text = json.dumps(documents[0], indent=draw(st.sampled_from([None, 2])))
    else:
        text = "\n".join(json.dumps(document) for document in documents) + "\n"
    data = text.encode("utf-8", "surrogatepass")
    damage = draw(st.sampled_from([None, None, "truncate", "bad_utf8", "bom", "nul"]))
    if damage == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif damage == "bad_utf8":
        position = draw(st.integers(0, len(data)))
        data = data[:position] + b"\xc3\x28\xff" + data[position:]
    elif damage == "bom":
        data = b"\xef\xbb\xbf" + data
    elif damage == "nul":
        data = data.replace(b",", b"\x00,", 1)
    return source, data


CLI_ARGS = st.tuples(cli_inputs(), st.sampled_from(PROVIDERS), st.sampled_from(["text", "json"]))
WORKDIR = tempfile.mkdtemp(prefix="chatschema-fuzz-")


def cli_case(drawn: tuple[str, bytes], target: str, form: str) -> None:
    """validate and convert on a damaged file: an exit status, never a traceback."""
    source, data = drawn
    name = "input.jsonl" if data.count(b"\n") > 2 and b"\n  " not in data else "input.json"
    path = os.path.join(WORKDIR, name)
    with open(path, "wb") as file:
        file.write(data)
    commands = [
        ["validate", "--format", form, path],
        ["convert", "--from", source, "--to", target, path],
        ["convert", "--from", source, "--to", "neutral", path],
    ]
    if source != "neutral":
        commands.append(["validate", "--provider", source, path])
    for argv in commands:
        H.CALLS[f"cli {argv[0]}"] += 1
        status, out, err = run_cli(argv)
        assert status in (0, 1, 2), argv
        assert "Traceback" not in err and "Traceback" not in out
        if argv[:3] == ["validate", "--format", "json"]:
            for line in out.split("\n")[:-1]:  # JSON Lines: split on newlines only
                json.loads(line)  # machine-readable output stays JSON


@H.fuzz_settings(400)
@given(CLI_ARGS)
def test_cli(args: tuple[tuple[str, bytes], str, str]) -> None:
    """validate and convert on damaged files: an exit status, never a traceback."""
    cli_case(*args)


HUNT: list[tuple[str, st.SearchStrategy[Any], Any]] = [
    ("neutral", st.tuples(neutral_documents()), neutral_document),
    ("arbitrary", st.tuples(ARBITRARY), arbitrary_data),
    ("conversations", CONVERSATION_ARGS, conversation_case),
    ("chunks", st.tuples(CHUNK_LISTS), chunk_case),
    ("fragments", st.tuples(FRAGMENTS), fragments_case),
    ("cli", CLI_ARGS, cli_case),
]
for _provider in PROVIDERS:
    HUNT += [
        (f"requests.{_provider}", request_args(_provider), request_case),
        (f"located.{_provider}", located_args(_provider), located_case),
        (f"responses.{_provider}", response_args(_provider), response_case),
        (f"streams.{_provider}", stream_args(_provider), stream_case),
        (f"sse.{_provider}", sse_args(_provider), sse_case),
    ]
"""(name, strategy of an argument tuple, body) of every property, for hunting runs."""


def test_nan_and_infinity_are_refused_or_kept_verbatim() -> None:
    """Non-JSON floats in free-form data: refused with a located problem, never a crash."""
    document = {"role": "user", "content": "x", "metadata": {"a": math.nan, "b": math.inf}}
    ok, error = H.call("parse", chatschema.parse_message, document)
    assert not ok
    assert [(p.pointer, p.keyword) for p in error.problems] == [("/metadata/a", "json")]
