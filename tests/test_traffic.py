"""Real traffic: every codec over requests, responses and streams providers answered.

``tests/traffic/<format>/*.json`` holds exchanges recorded from the providers' APIs
(provenance in ``tests/traffic/README.md``), each ``{"request": ..., "response": ...}``
or ``{"request": ..., "stream": ...}``; the format is the file's directory. Per
exchange:

- **request**: ``decode_conversation`` reads it, ``check`` finds no problem (the
  provider answered HTTP 200: it took the request), ``encode`` gives it back (the
  dict equal, the history as JSON text identical, key order aside; Gemini in the
  snake_case spelling ``encode`` writes), and ``convert`` to every other registered
  format succeeds or raises ``UnsupportedContentError``, nothing else;
- **response**: ``decode_response`` reads it and loses nothing: every string and
  number of the response is found in the decoded message (see :func:`not_found`),
  but for what :data:`NOT_KEPT` lists, each with its reason;
- **stream**: ``decode_stream`` reads it and the chunks assemble (``conftest.assembled``)
  to what ``decode_response`` makes of the final response when the stream carries one
  (Responses' ``response.completed``), else to a valid ``AssistantMessage``.

Bedrock Converse exchanges are skipped while no ``bedrock_converse`` codec is
registered.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
from pathlib import Path
from typing import Any

import hostile as H
import pytest
import recorded
from conftest import assembled

import chatschema
from chatschema import to_dict
from chatschema.errors import ConversionError, UnsupportedContentError
from chatschema.providers import PROVIDERS, Codec, get_codec

TRAFFIC = Path(__file__).resolve().parent / "traffic"
FORMATS = ("openai_chat", "openai_responses", "anthropic", "gemini", "bedrock_converse", "mistral")
MESSAGES = {
    "openai_chat": "messages",
    "openai_responses": "input",
    "anthropic": "messages",
    "gemini": "contents",
    "bedrock_converse": "messages",
    "mistral": "messages",
}
"""The key of each format's request that holds the history."""

STREAMS_AT_LEAST = {"mistral": 1}
"""Formats with fewer public recorded streams than the others' 6 (Mistral: one
Magistral stream in pydantic-ai's history; its cassettes record plain calls)."""


FILES = [(fmt, path) for fmt in FORMATS for path in recorded.listing(TRAFFIC / fmt)]
"""Every exchange of the corpus, as (format, path): listed from the manifest, so that
an exchange not materialized is a skipped test (tests/recorded.py)."""


def _params(kind: str) -> list[Any]:
    """The exchanges that have ``kind`` ("request", "response" or "stream"), read when
    a test runs (the ``exchange`` fixture)."""
    return [
        pytest.param(fmt, path, id=f"{fmt}/{path.name}")
        for fmt, path in FILES
        if kind in recorded.index(path)
    ]


@pytest.fixture
def exchange(request: pytest.FixtureRequest) -> Any:
    """The exchange at the path a test is parametrized with (parsed once, shared)."""
    return recorded.load(request.param, shared=True)


def exchanges() -> list[tuple[str, str, dict[str, Any]]]:
    """Every exchange of the corpus: (format, file name, exchange)."""
    return [(fmt, path.name, recorded.load(path, shared=True)) for fmt, path in FILES]


def codec_for(fmt: str) -> Codec:
    """The format's codec; skips while the format has no registered codec."""
    if fmt not in PROVIDERS:
        reason = f"no {fmt} codec registered in chatschema.providers yet"
        if importlib.util.find_spec(f"chatschema.providers.{fmt}") is None:
            pytest.skip(reason)
        pytest.skip(reason + " (the module exists, PROVIDERS does not list it)")
    return get_codec(fmt)


# ------------------------------------------------------------------- requests


_SNAKE = re.compile(r"(?<=[a-z0-9])([A-Z])")
_GEMINI_USER_DATA = frozenset(
    {
        "args",
        "response",
        "parameters",
        "parameters_json_schema",
        "response_schema",
        "response_json_schema",
        "labels",
    }
)
"""Gemini request keys whose values are the caller's JSON (keys kept as written)."""


def snake_case(value: Any) -> Any:
    """A Gemini REST request in the snake_case spelling ``encode`` writes
    (docs/providers/gemini.md: the API takes both); user data stays as it is."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            name = _SNAKE.sub(r"_\1", key).lower()
            out[name] = item if name in _GEMINI_USER_DATA else snake_case(item)
        return out
    if isinstance(value, list):
        return [snake_case(item) for item in value]
    return value


def expected_request(fmt: str, request: dict[str, Any]) -> dict[str, Any]:
    """What ``encode(decode_conversation(request))`` must give."""
    return snake_case(request) if fmt == "gemini" else request


def _differences(got: dict[str, Any], want: dict[str, Any]) -> list[str]:
    """The top-level keys where two requests differ, shortly."""
    out = []
    for key in sorted(set(got) | set(want), key=str):
        if key not in got:
            out.append(f"missing {key}={_short(want[key])}")
        elif key not in want:
            out.append(f"added {key}={_short(got[key])}")
        elif got[key] != want[key]:
            out.append(f"{key}: {_short(got[key])} != {_short(want[key])}")
    return out


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= 300 else text[:300] + "..."


@pytest.mark.parametrize(("fmt", "exchange"), _params("request"), indirect=["exchange"])
def test_request_decodes_and_checks_clean(fmt: str, exchange: dict[str, Any]) -> None:
    """The provider took the request: decoding works and ``check`` finds nothing."""
    codec = codec_for(fmt)
    conversation = codec.decode_conversation(exchange["request"])
    problems = codec.check(conversation)
    assert problems == [], [str(problem) for problem in problems]


@pytest.mark.parametrize(("fmt", "exchange"), _params("request"), indirect=["exchange"])
def test_request_round_trips(fmt: str, exchange: dict[str, Any]) -> None:
    """``encode(decode_conversation(request))`` is the request; the history byte-exact."""
    codec = codec_for(fmt)
    want = expected_request(fmt, exchange["request"])
    got = codec.encode(codec.decode_conversation(exchange["request"]))
    key = MESSAGES[fmt]
    assert _text(got.get(key)) == _text(want.get(key)), f"{key} differs"
    assert got == want, _differences(got, want)


def _text(value: Any) -> str:
    """JSON text to compare histories byte for byte (``1`` is not ``1.0`` nor ``true``
    there, as they are in a dict comparison). Key order is left out: the cassettes
    keep bodies with their keys sorted, not in the order they went on the wire."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


@pytest.mark.parametrize(("fmt", "exchange"), _params("request"), indirect=["exchange"])
def test_request_converts_or_refuses(fmt: str, exchange: dict[str, Any]) -> None:
    """To every other format: a request, ``UnsupportedContentError``, or the target's
    located refusal - nothing else.

    A target may have a rule the source has not (Converse needs the definitions of
    the tools a history calls; Gemini's turn order): ``check`` of the target lists
    it as problems with pointers, which is an answer, not a failure. Any other
    exception, or a ``ConversionError`` that names no problem, is.
    """
    codec_for(fmt)
    failures = []
    for target in PROVIDERS:
        if target == fmt:
            continue
        try:
            chatschema.convert(exchange["request"], source=fmt, target=target)
        except UnsupportedContentError:
            pass
        except ConversionError as error:
            if not error.problems:
                failures.append(f"-> {target}: {type(error).__name__}: {error}")
        except Exception as error:  # every other exception is the failure reported
            failures.append(f"-> {target}: {type(error).__name__}: {error}")
    assert not failures, failures


# ------------------------------------------------------------------- responses

TAG_KEYS = frozenset({"type", "object", "role"})
"""Keys whose values name a kind: the neutral model says it by its own types."""

ANY = object()
"""Any value (in :data:`NOT_KEPT`)."""

NOT_KEPT: list[tuple[str, tuple[str | frozenset[str], ...], Any, str]] = [
    (
        "openai_chat",
        ("choices", "0", "index"),
        0,
        "the first choice is the message: its index is 0 by definition (openai_chat.md)",
    ),
    (
        "mistral",
        ("choices", "0", "index"),
        0,
        "the first choice is the message: its index is 0 by definition (mistral.md)",
    ),
    (
        "anthropic",
        ("usage", "input_tokens"),
        ANY,
        "mapped: Usage.input_tokens counts cache reads and writes too (anthropic.md, usage)",
    ),
    (
        "bedrock_converse",
        ("usage", "inputTokens"),
        ANY,
        "mapped: Usage.input_tokens adds the cache reads and writes Converse leaves out "
        "of inputTokens (TokenUsage; bedrock_converse/usage.py)",
    ),
    (
        "gemini",
        ("candidates", "*", "content", "parts", "*", "thought"),
        True,
        "the part's kind: a thought part is a ReasoningBlock (gemini.md)",
    ),
]
"""Response values not found in the decoded message by design, with the reason.

Each entry: format, path pattern (``*`` any key or index, a set: any of its keys),
the value (``ANY``: whatever it is), and why. ``test_every_listed_response_value_is_
needed`` keeps the list true: each entry excuses a value somewhere in the corpus."""


def _scalars(value: Any, *, keep_json_text: bool = False) -> list[tuple[tuple[Any, ...], Any]]:
    """Every scalar leaf (not None) of a JSON value, with its path; strings that hold
    JSON objects or arrays (tool arguments) count as their own leaves, and also as
    strings with ``keep_json_text``."""
    out: list[tuple[tuple[Any, ...], Any]] = []
    for path in H.paths(value):
        leaf = H.get(value, path)
        if leaf is None or isinstance(leaf, (dict, list)):
            continue
        if isinstance(leaf, str) and leaf[:1] in ("{", "["):
            try:
                parsed = json.loads(leaf)
            except ValueError:
                parsed = None
            if isinstance(parsed, (dict, list)):
                out.extend((path + sub, item) for sub, item in _scalars(parsed))
                if not keep_json_text:
                    continue
        out.append((path, leaf))
    return out


def not_found(response: Any, decoded: dict[str, Any]) -> list[tuple[tuple[Any, ...], Any]]:
    """Leaves of ``response`` found nowhere in ``decoded`` (the message as a dict).

    A string is found when it is a string of the message or part of one (text parts
    may be joined); a number or boolean when the message has an equal value anywhere;
    kind tags (``type``, ``object``, ``role`` values) and empty strings need not be
    found. Keys of the message count as strings (provider data kept under its key).
    """
    strings: set[str] = set()
    numbers: set[Any] = set()
    for path, leaf in _scalars(decoded, keep_json_text=True):
        if isinstance(leaf, str):
            strings.add(leaf)
        else:
            numbers.add((type(leaf) is bool, leaf))
        strings.update(str(part) for part in path if isinstance(part, str))
    text = "\x00".join(strings)
    missing = []
    for path, leaf in _scalars(response):
        if (path and path[-1] in TAG_KEYS) or leaf == "":
            continue
        if isinstance(leaf, str):
            if leaf in strings or leaf in text:
                continue
        elif (type(leaf) is bool, leaf) in numbers:
            continue
        missing.append((path, leaf))
    return missing


def _matches(pattern: tuple[str | frozenset[str], ...], path: tuple[Any, ...]) -> bool:
    if len(path) < len(pattern):
        return False
    for want, part in zip(pattern, path[: len(pattern)], strict=True):
        if isinstance(want, frozenset):
            if str(part) not in want:
                return False
        elif want != "*" and want != str(part):
            return False
    return True


def excuse(fmt: str, path: tuple[Any, ...], leaf: Any) -> int | None:
    """The index of the :data:`NOT_KEPT` entry that covers a value, if any."""
    for index, (where, pattern, value, _reason) in enumerate(NOT_KEPT):
        if where == fmt and _matches(pattern, path) and (value is ANY or value == leaf):
            return index
    return None


def lost(fmt: str, response: Any, decoded: dict[str, Any]) -> list[str]:
    """Values of the response the decoded message lost, as ``/pointer=value``."""
    return [
        f"/{'/'.join(map(str, path))}={_short(leaf)}"
        for path, leaf in not_found(response, decoded)
        if excuse(fmt, path, leaf) is None
    ]


@pytest.mark.parametrize(("fmt", "exchange"), _params("response"), indirect=["exchange"])
def test_response_decodes_without_loss(fmt: str, exchange: dict[str, Any]) -> None:
    """``decode_response`` reads the response and keeps every value of it."""
    codec = codec_for(fmt)
    message = to_dict(codec.decode_response(exchange["response"]))
    assert message["role"] == "assistant"
    missing = lost(fmt, exchange["response"], message)
    assert not missing, missing


_CACHE_COUNTS = {
    "anthropic": ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens"),
    "bedrock_converse": ("inputTokens", "cacheReadInputTokens", "cacheWriteInputTokens"),
}


@pytest.mark.parametrize(
    ("fmt", "exchange"),
    [p for p in _params("response") if p.values[0] in _CACHE_COUNTS],
    indirect=["exchange"],
)
def test_prompt_tokens_add_cache_tokens(fmt: str, exchange: dict[str, Any]) -> None:
    """The mapped input count of :data:`NOT_KEPT`: the raw count plus cache reads and
    writes, each of which is kept on its own."""
    usage = exchange["response"].get("usage")
    if not isinstance(usage, dict) or not isinstance(usage.get(_CACHE_COUNTS[fmt][0]), int):
        pytest.skip("no input count in this response")
    message = to_dict(codec_for(fmt).decode_response(exchange["response"]))
    plain, read, write = (usage.get(key) or 0 for key in _CACHE_COUNTS[fmt])
    assert message["usage"]["input_tokens"] == plain + read + write
    details = message["usage"].get("input_token_details", {})
    assert (details.get("cache_read", 0), details.get("cache_creation", 0)) == (read, write)


def test_every_listed_response_value_is_needed() -> None:
    """Each :data:`NOT_KEPT` entry covers a value some recorded response has and its
    decoded message does not (else the entry is stale)."""
    used: set[int] = set()
    for fmt, _name, exchange in exchanges():
        if "response" not in exchange or fmt not in PROVIDERS:
            continue
        try:
            message = to_dict(get_codec(fmt).decode_response(exchange["response"]))
        except chatschema.ChatSchemaError:
            continue  # reported by test_response_decodes_without_loss
        for path, leaf in not_found(exchange["response"], message):
            index = excuse(fmt, path, leaf)
            if index is not None:
                used.add(index)
    stale = [NOT_KEPT[index][:2] for index in range(len(NOT_KEPT)) if index not in used]
    assert not stale, stale


# ------------------------------------------------------------------- streams


def final_response(fmt: str, stream: Any) -> Any:
    """The complete response a stream carries at its end, if any (Responses:
    ``response.completed`` / ``incomplete``), else None."""
    if fmt != "openai_responses" or not isinstance(stream, str):
        return None
    final = None
    for line in stream.splitlines():
        if line.startswith("data:"):
            try:
                event = json.loads(line[5:])
            except ValueError:
                continue
            if isinstance(event, dict) and event.get("type") in (
                "response.completed",
                "response.incomplete",
            ):
                final = event["response"]
    return final


@pytest.mark.parametrize(("fmt", "exchange"), _params("stream"), indirect=["exchange"])
def test_stream_assembles(fmt: str, exchange: dict[str, Any]) -> None:
    """The chunks assemble to the final response's message, or to a valid message."""
    codec = codec_for(fmt)
    stream = exchange["stream"]
    source = [stream] if isinstance(stream, str) else stream
    chunks = list(codec.decode_stream(source))
    message = assembled(chunks)
    final = final_response(fmt, stream)
    if final is not None:
        assert message == to_dict(codec.decode_response(final))
    else:
        chatschema.validate(message, type="AssistantMessage")
    # from an async source (an SDK's async stream, httpx aiter_bytes): the same chunks
    pieces = (
        [stream[i : i + 97].encode() for i in range(0, len(stream), 97)]
        if (isinstance(stream, str))
        else list(stream)
    )

    async def read() -> list[Any]:
        async def events() -> Any:
            for piece in pieces:
                yield piece

        return [chunk async for chunk in codec.decode_stream(events())]

    assert [to_dict(c) for c in asyncio.run(read())] == [to_dict(c) for c in chunks]


# ------------------------------------------------------------------- the corpus


def test_corpus_has_every_format_and_stays_small() -> None:
    """Enough exchanges of each kind, within 4 MB on disk."""
    counts: dict[tuple[str, str], int] = {}
    for fmt, _name, exchange in exchanges():
        kind = "stream" if "stream" in exchange else "response"
        counts[fmt, kind] = counts.get((fmt, kind), 0) + 1
    for fmt in FORMATS:
        assert counts.get((fmt, "response"), 0) >= 25, (fmt, counts)
        assert counts.get((fmt, "stream"), 0) >= STREAMS_AT_LEAST.get(fmt, 6), (fmt, counts)
    size = sum(path.stat().st_size for path in TRAFFIC.rglob("*") if path.is_file())
    assert size < 4 * 1024 * 1024, size


def test_every_file_has_provenance() -> None:
    """Each corpus file is listed in the README with its source."""
    readme = (TRAFFIC / "README.md").read_text(encoding="utf-8")
    for fmt, name, exchange in exchanges():
        assert f"`{fmt}/{name}`" in readme, name
        assert set(exchange) in ({"request", "response"}, {"request", "stream"}), name
