"""Python values JSON cannot hold: refused with a located chatschema error everywhere.

NaN and the infinities (which Python's ``json`` reads and writes, and pydantic
accepts), generators, sets and other objects inside payloads, mappings whose ``in``
lies: every entry point (``validate``, ``parse``, each codec's ``encode`` and
non-stream ``decode_*``, the command line, dataset rows, chatschema's JSON writer)
refuses them with a ``ValidationError`` or ``ConversionError`` that names where
(keyword ``json``), never a foreign exception, never a bare ``NaN`` in the output,
never a silent ``null``. ``count_tokens_approximately`` takes dict messages as
``trim_messages`` does.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import hostile as H
import pytest

import chatschema
from chatschema import ToolCall, ValidationError
from chatschema._json import dumps, loads
from chatschema.datasets._rows import load, validate_row
from chatschema.errors import ChatSchemaError, ConversionError
from chatschema.providers import PROVIDERS, get_codec


class LyingMapping(Mapping[str, Any]):
    """A mapping whose ``in`` says every key is present; ``[]`` knows better."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.data)

    def __len__(self) -> int:
        return len(self.data)

    def __contains__(self, key: object) -> bool:
        return True


def _generator() -> Iterator[int]:
    yield 1


HOSTILE: dict[str, Any] = {
    "nan": lambda: math.nan,
    "infinity": lambda: math.inf,
    "-infinity": lambda: -math.inf,
    "object": object,
    "generator": _generator,
    "set": lambda: {1, 2},
}
REASONS = {
    "nan": "NaN is not a JSON number",
    "infinity": "Infinity is not a JSON number",
    "-infinity": "-Infinity is not a JSON number",
    "object": "a Python object is not JSON data",
    "generator": "a Python generator is not JSON data",
    "set": "a Python set is not JSON data",
}
ARGUMENTS = "/messages/1/tool_calls/0/arguments/x"


def conversation(value: Any) -> dict[str, Any]:
    """A tool round trip whose call arguments hold ``value`` at ``/x``."""
    return {
        "messages": [
            {"role": "user", "content": "weather?"},
            {
                "role": "assistant",
                "tool_calls": [{"id": "c1", "name": "f", "arguments": {"x": value}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "sunny"},
        ],
        "tools": [{"name": "f", "parameters": {"type": "object"}}],
    }


def only_located(error: BaseException, pointer: str, reason: str) -> None:
    """``error`` is a chatschema error whose one problem is ``reason`` at ``pointer``."""
    H.check_error(error)
    problems = error.problems  # type: ignore[attr-defined]
    assert [(p.pointer, p.keyword, p.message) for p in problems] == [(pointer, "json", reason)]


# ------------------------------------------------------- validate, parse, encode


@pytest.mark.parametrize("kind", HOSTILE)
def test_validate_and_parse_refuse_non_json_values(kind: str) -> None:
    """Before: validate and parse accepted NaN, infinities, objects and generators."""
    for function in (chatschema.validate, chatschema.parse):
        with pytest.raises(ValidationError) as caught:
            function(conversation(HOSTILE[kind]()), "Conversation")
        only_located(caught.value, ARGUMENTS, REASONS[kind])
    assert not chatschema.is_valid(conversation(HOSTILE[kind]()), "Conversation")


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("kind", HOSTILE)
def test_every_encoder_refuses_alike(provider: str, kind: str) -> None:
    """Before: openai_chat raised TypeError, anthropic and gemini wrote a bare NaN or
    passed the object through, otel_genai could not pickle a generator."""
    with pytest.raises(ValidationError) as caught:
        get_codec(provider).encode(conversation(HOSTILE[kind]()))
    only_located(caught.value, ARGUMENTS, REASONS[kind])


def test_nan_inside_a_model_is_refused_where_the_format_writes_text() -> None:
    """A model built in code with NaN arguments: the text writers name where it is."""
    messages = chatschema.parse_messages(conversation(1)["messages"])
    call = messages[1].tool_calls[0]  # type: ignore[union-attr]
    call.arguments["x"] = math.nan
    for provider in ("openai_chat", "openai_responses"):
        with pytest.raises(ConversionError) as caught:
            get_codec(provider).encode(messages, check=False)
        only_located(caught.value, "/1/tool_calls/0/arguments/x", "NaN is not a JSON number")


def test_object_in_model_arguments_is_located_not_a_type_error() -> None:
    """Before: ``TypeError: Object of type object is not JSON serializable``."""
    call = ToolCall(id="c1", name="f", arguments={"deep": [1, {"x": object()}]})
    messages = [chatschema.user("q"), chatschema.assistant(tool_calls=[call])]
    with pytest.raises(ConversionError) as caught:
        get_codec("openai_chat").encode(messages, check=False)
    only_located(caught.value, "/1/tool_calls/0/arguments/deep/1/x", REASONS["object"])
    with pytest.raises(ValidationError) as refused:
        chatschema.validate(call, "ToolCall")
    only_located(refused.value, "/arguments/deep/1/x", REASONS["object"])


# ------------------------------------------------------------------- decoders


def _with(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    copy = json.loads(json.dumps(document))
    node = copy
    for part in path[:-1]:
        node = node[part]
    node[path[-1]] = value
    return copy


@pytest.mark.parametrize("provider", PROVIDERS)
def test_decoders_refuse_non_json_values_in_payloads(provider: str) -> None:
    """Before: generators in payloads gave "cannot pickle 'generator'" (payloads are
    copied with ``copy.deepcopy``), NaN passed into the conversation. Each hostile
    value at every place of a request is refused before any copy, naming where."""
    codec = get_codec(provider)
    seeds = [seed for seed in H.request_seeds(provider) if isinstance(seed, dict)][:2]
    assert seeds
    refused = 0
    for seed in seeds:
        for path in list(H.paths(seed))[1:120]:
            for kind, make in HOSTILE.items():
                document = _with(seed, path, make())
                name = f"{provider}.decode_conversation"
                ok, error = H.call(name, codec.decode_conversation, document, provider=provider)
                assert not ok, (path, kind)
                pointer = "".join(f"/{part}" for part in path)
                assert error.problems[-1].pointer == pointer, (error, path)
                assert error.problems[-1].message == REASONS[kind]
                refused += 1
    assert refused > 100


@pytest.mark.parametrize("provider", PROVIDERS)
def test_decoders_refuse_a_lying_mapping(provider: str) -> None:
    """Before: ``KeyError`` (the decoder asks ``in``, then ``[]`` fails)."""
    codec = get_codec(provider)
    for seed in [seed for seed in H.request_seeds(provider) if isinstance(seed, dict)][:3]:
        name = f"{provider}.decode_conversation"
        H.call(name, codec.decode_conversation, LyingMapping(seed), provider=provider)
        for path in list(H.paths(seed))[1:60]:
            node = H.get(seed, path)
            if isinstance(node, dict):
                H.call(
                    name,
                    codec.decode_conversation,
                    _with(seed, path, LyingMapping(node)),
                    provider=provider,
                )


def test_a_lying_mapping_is_named() -> None:
    """The refusal of a lying mapping says what it is and where."""
    messages = [{"role": "user", "content": "hi"}]
    payload = LyingMapping({"messages": messages, "max_tokens": 5})  # `"system" in` says yes
    with pytest.raises(ChatSchemaError) as caught:
        get_codec("anthropic").decode_conversation(payload)
    only_located(
        caught.value, "", "LyingMapping is not JSON data (its `in` finds keys it does not hold)"
    )


def test_root_generator_payload_is_refused() -> None:
    """Before: ``cannot pickle 'generator'`` from ``decode_response``."""
    for provider in PROVIDERS:
        codec = get_codec(provider)
        for verb in (codec.decode_conversation, codec.decode_response):
            ok, _ = H.call(f"{provider}.decode", verb, _generator(), provider=provider)
            assert not ok


# ------------------------------------------------------------ text and writers


@pytest.mark.parametrize(
    ("text", "reason", "column"),
    [
        ('{"a": NaN}', "NaN is not a JSON number", 7),
        ('{"s": "NaN 1e999", "b": [1, -Infinity]}', "-Infinity is not a JSON number", 29),
        ('{"a": Infinity}', "Infinity is not a JSON number", 7),
        ('{"a": 1e999}', "1e999 is too large for a JSON number (a double)", 7),
    ],
)
def test_strict_loads_names_line_and_column(text: str, reason: str, column: int) -> None:
    """Python's json reads these; chatschema's reader refuses them, with where."""
    with pytest.raises(json.JSONDecodeError) as caught:
        loads(text)
    assert caught.value.msg == reason
    assert (caught.value.lineno, caught.value.colno) == (1, column)
    assert loads('{"s": "NaN Infinity", "n": 1.5e300}') == {"s": "NaN Infinity", "n": 1.5e300}


def test_writer_refuses_instead_of_writing_nan() -> None:
    """Before: ``dumps`` wrote a bare NaN (not JSON: Node's JSON.parse fails)."""
    with pytest.raises(ValidationError) as caught:
        dumps({"a": [1, math.nan]})
    only_located(caught.value, "/a/1", "NaN is not a JSON number")
    assert dumps({"blob": b"\x00"}) == '{"blob": "AA=="}'


def test_dataset_rows_refuse_nan() -> None:
    """Rows: a NaN in the text is a ``json`` problem of the row, located."""
    document, problem = load('{"role": "user", "content": "x", "metadata": {"a": NaN}}')
    assert document is None and problem is not None
    assert problem.keyword == "json"
    assert problem.message == "not valid JSON: NaN is not a JSON number: line 1 column 52 (char 51)"
    row = {"role": "user", "content": "x", "metadata": {"a": math.inf}}  # an Arrow float
    assert [(p.pointer, p.keyword) for p in validate_row(row)] == [("/metadata/a", "json")]


def _cli(tmp_path: Path, *args: str, text: str) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "in.jsonl"
    source.write_text(text, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "chatschema", *args, str(source)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


NAN_LINE = '{"role": "user", "content": "x", "metadata": {"a": NaN}}\n'


def test_cli_validate_refuses_nan(tmp_path: Path) -> None:
    """Before: ``chatschema validate`` passed ``{"x": NaN}`` (exit 0)."""
    result = _cli(tmp_path, "validate", text='{"role": "user", "content": "ok"}\n' + NAN_LINE)
    assert result.returncode == 1, result.stderr
    assert "NaN is not a JSON number: line 1 column 52" in result.stdout + result.stderr
    assert ":2:" in result.stdout + result.stderr


@pytest.mark.parametrize("target", ["anthropic", "gemini", "neutral"])
def test_cli_convert_never_writes_nan_or_null(tmp_path: Path, target: str) -> None:
    """Before: a bare NaN in Anthropic or Gemini output, ``null`` in neutral output."""
    result = _cli(tmp_path, "convert", "--from", "neutral", "--to", target, text=NAN_LINE)
    assert result.returncode == 1, result.stderr
    assert "NaN" not in result.stdout and "null" not in result.stdout
    assert "NaN is not a JSON number" in result.stderr


# ------------------------------------------------------------------- token counts


def test_count_tokens_approximately_takes_dicts_as_trim_messages_does() -> None:
    """Before: ``AttributeError`` on dict messages (``trim_messages`` took them)."""
    data = conversation("Paris")
    models = chatschema.parse_conversation(data)
    expected = chatschema.count_tokens_approximately(models.messages, tools=models.tools)
    assert chatschema.count_tokens_approximately(data["messages"], tools=data["tools"]) == expected
    assert chatschema.count_tokens_approximately(data["messages"][0]) == (
        chatschema.count_tokens_approximately(models.messages[0])
    )
    trimmed = chatschema.trim_messages(data["messages"], max_tokens=10_000)
    assert len(trimmed) == 3
    with pytest.raises(ValidationError):
        chatschema.count_tokens_approximately([{"role": "nobody"}])
