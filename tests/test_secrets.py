"""Secrets and opaque data never leak into text meant for people; arguments are data.

Signatures and encrypted reasoning are never shown (``<opaque, N characters>``);
base64 data and data URLs are cut to their first 24 characters, with their length.
That holds for ``repr`` / ``str`` of every model, ``pretty_repr``, ``content_to_str``,
``get_buffer_string``, log records, the messages of ``ValidationError`` and
``ConversionError`` (a long value quoted by an error shows at most its first 24
characters), and the command line's reports. Tool arguments are parsed as JSON only.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import hostile as H
import pytest
from hypothesis import given
from hypothesis import strategies as st

import chatschema
from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    AudioBlock,
    ChunkAccumulator,
    Conversation,
    FileBlock,
    ImageBlock,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    TextBlock,
    ToolCallChunk,
    UserMessage,
    VideoBlock,
    coerce_messages,
    content_to_str,
    get_buffer_string,
    pretty_repr,
)
from chatschema.cli import main as cli
from chatschema.errors import ChatSchemaError
from chatschema.providers import PROVIDERS, get_codec

SIGNATURE = "EqQBCkYIBxgCKkBSIGNATURESECRETq7fZ3kL0mQ2Yx9c8TtZ1pW4vN6sR3uJ5hG2dF8aK0bE7cX1y"
ENCRYPTED = "gAAAAABoENCRYPTEDSECRETZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9vYmFyZm9v"
BASE64 = "iVBORw0KGgoAAAANSUhEUgBASE64SECRET" + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo" * 4
OPAQUE = (SIGNATURE, ENCRYPTED)
SHOWN = 24
"""At most this many characters of a long value appear (the start of base64 data)."""


def leaks(text: str, secret: str, allowed: int = SHOWN) -> bool:
    """Whether ``text`` shows more than ``allowed`` consecutive characters of ``secret``."""
    width = allowed + 1
    pieces = {secret[start : start + width] for start in range(len(secret) - width + 1)}
    return any(text[start : start + width] in pieces for start in range(len(text) - width + 1))


def assert_hidden(text: str, *, base64_too: bool = True) -> None:
    for secret in OPAQUE:
        assert not leaks(text, secret, allowed=8), f"an opaque value shows in: {text[:500]}"
    if base64_too:
        assert not leaks(text, BASE64), f"base64 data shows in full in: {text[:500]}"


def renderings(model: Any) -> list[str]:
    """Every text a model is shown as."""
    texts = [repr(model), str(model), f"{model!r}", f"{model}"]
    if hasattr(model, "role"):
        texts += [pretty_repr(model), "\n".join(content_to_str(model))]
        texts.append(get_buffer_string([model]))
    return texts


# ----------------------------------------------------------------------- models

MODELS = [
    ReasoningBlock(text="thinking", signature=SIGNATURE, provider="anthropic"),
    ReasoningBlock(encrypted_content=ENCRYPTED, summary=["s"], provider="openai_responses"),
    ImageBlock(base64=BASE64, mime_type="image/png"),
    ImageBlock(url=f"data:image/png;base64,{BASE64}"),
    AudioBlock(base64=BASE64, mime_type="audio/wav"),
    VideoBlock(base64=BASE64, mime_type="video/mp4"),
    FileBlock(base64=BASE64, mime_type="application/pdf", filename="a.pdf"),
    PlainTextBlock(base64=BASE64, mime_type="text/plain"),
    NonStandardBlock(value={"thoughtSignature": SIGNATURE, "inlineData": {"data": BASE64}}),
    NonStandardBlock(value={"type": "redacted_thinking", "data": ENCRYPTED}),
    TextBlock(text="t", extras={"gemini": {"thought_signature": SIGNATURE}}),
    TextBlock(text="t", extras={"x": {"image_url": f"data:image/png;base64,{BASE64}"}}),
]
MESSAGES = [
    AssistantMessage(
        content=[*MODELS[:2], TextBlock(text="answer")],
        response_metadata={"openai_responses": {"encrypted_content": ENCRYPTED}},
        metadata={"cache": {"signature": SIGNATURE, "blob": BASE64}},
        extras={"anthropic": {"redacted_thinking": ENCRYPTED}},
    ),
    UserMessage(content=MODELS[2:]),
    AssistantMessageChunk(content=[MODELS[0]], extras={"gemini": {"thoughtSignature": SIGNATURE}}),
]


@pytest.mark.parametrize("model", MODELS + MESSAGES, ids=lambda m: type(m).__name__)
def test_models_never_show_opaque_or_inline_data(model: Any) -> None:
    for text in renderings(model):
        assert_hidden(text)
    # the data is all there, of course
    dumped = json.dumps(chatschema.to_dict(model))
    assert any(secret in dumped for secret in (*OPAQUE, BASE64))


def test_a_conversation_repr_hides_everything() -> None:
    conversation = Conversation(messages=[m for m in MESSAGES if hasattr(m, "role")][:2])
    assert_hidden(repr(conversation))


def test_log_records_hide_everything(caplog: pytest.LogCaptureFixture) -> None:
    logger = logging.getLogger("chatschema.test")
    with caplog.at_level(logging.DEBUG):
        for model in MODELS + MESSAGES:
            logger.info("model %r", model)
            logger.info("model %s", model)
        # chatschema itself logs nothing while decoding and encoding
        for provider in PROVIDERS:
            codec = get_codec(provider)
            for seed in H.request_seeds(provider)[:5]:
                with contextlib.suppress(ChatSchemaError):
                    codec.encode(codec.decode_conversation(seed), check=False)
    for record in caplog.records:
        assert_hidden(record.getMessage())
    assert all(record.name == "chatschema.test" for record in caplog.records)


# ------------------------------------------------------ decoded provider data


def secret_bearing_seeds() -> list[tuple[str, str, Any]]:
    """(provider, verb, payload) of every seed that holds a signature or encrypted data."""
    out = []
    for provider in PROVIDERS:
        for seed in H.request_seeds(provider):
            out.append((provider, "decode_conversation", seed))
        for seed in H.response_seeds(provider):
            out.append((provider, "decode_response", seed))
    return out


def test_decoded_payloads_hide_their_opaque_data() -> None:
    """Every recorded and hand-written payload, decoded: its opaque values hidden."""
    checked = 0
    for provider, verb, payload in secret_bearing_seeds():
        model = getattr(get_codec(provider), verb)(payload)
        opaque = _opaque_values(payload)
        for text in [repr(model)] + (
            [pretty_repr(m) for m in model.messages] if hasattr(model, "messages") else []
        ):
            for value, allowed in opaque:
                assert not leaks(text, value, allowed), (provider, value[:20])
        checked += bool(opaque)
    assert checked >= 8


_OPAQUE_KEYS = {"signature", "thought_signature", "thoughtSignature", "encrypted_content", "data"}


def _opaque_values(payload: Any) -> list[tuple[str, int]]:
    """(value, characters that may show) of long strings under opaque keys: none of a
    signature or encrypted content, the first 24 of inline data (``data``)."""
    values = []
    for path in H.paths(payload):
        if path and path[-1] in _OPAQUE_KEYS:
            value = H.get(payload, path)
            if not isinstance(value, str) or len(value) <= 40 or value.startswith("data:"):
                continue
            if path[-1] == "data" and not re.fullmatch(r"[A-Za-z0-9+/=_-]+", value):
                continue  # a text document's data: text, shown as text
            redacted = H.get(payload, path[:-1]).get("type") == "redacted_thinking"
            values.append((value, SHOWN if path[-1] == "data" and not redacted else 8))
    return values


# ----------------------------------------------------------------- errors

PLANTED = [SIGNATURE, ENCRYPTED, BASE64, f"data:image/png;base64,{BASE64}"]


@st.composite
def planted(draw: st.DrawFn, seeds: list[Any]) -> Any:
    """A seed with a secret planted where it does not belong, then mutated."""
    document = H.unwrap(draw(H.mutated(seeds, max_mutations=2, nest_levels=(3,), big=False)))
    where = list(H.paths(document))
    path = where[draw(st.integers(0, len(where) - 1))]
    secret = draw(st.sampled_from(PLANTED))
    if not path:
        return secret
    parent = H.get(document, path[:-1])
    parent[path[-1]] = draw(
        st.sampled_from([secret, {"type": "x", "signature": secret}, [secret], {"x": secret}])
    )
    return document


def assert_error_hides(error: BaseException) -> None:
    text = str(error)
    for secret in PLANTED:
        assert not leaks(text, secret), f"{type(error).__name__} shows a secret: {text[:600]}"
    for problem in getattr(error, "problems", ()):
        for secret in PLANTED:
            assert not leaks(str(problem), secret)


NEUTRAL_SEEDS = H.CONVERSATIONS


@H.fuzz_settings(400)
@given(planted(NEUTRAL_SEEDS))
def test_validation_errors_hide_planted_secrets(document: Any) -> None:
    for function in (
        lambda: chatschema.validate(document, "Conversation"),
        lambda: chatschema.parse_conversation(document),
        lambda: chatschema.parse_conversation(json.dumps(document)),
        lambda: coerce_messages(document.get("messages") if isinstance(document, dict) else 1),
    ):
        try:
            function()
        except ChatSchemaError as error:
            assert_error_hides(error)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_conversion_errors_hide_planted_secrets(provider: str) -> None:
    codec = get_codec(provider)
    requests = H.nonempty(H.request_seeds(provider), provider)
    responses = H.nonempty(H.response_seeds(provider), provider)

    @H.fuzz_settings(250)
    @given(planted(requests), planted(responses))
    def run(request: Any, response: Any) -> None:
        for function, value in (
            (codec.decode_conversation, request),
            (codec.decode_response, response),
        ):
            try:
                decoded = function(value)
            except ChatSchemaError as error:
                assert_error_hides(error)
                continue
            except Exception as error:
                if H.known_bug(error):
                    continue
                raise
            history = decoded if isinstance(decoded, Conversation) else [decoded]
            try:
                codec.encode(history)
            except ChatSchemaError as error:
                assert_error_hides(error)
            except Exception as error:
                if not H.known_bug(error):
                    raise

    run()


def test_a_quoted_long_value_shows_its_start_and_length() -> None:
    block = {"type": "image", "base64": "AAAA", "mime_type": BASE64 * 3}
    for function in (chatschema.parse, chatschema.validate):
        with pytest.raises(chatschema.ValidationError) as caught:
            function(block, "ImageBlock")
        assert_error_hides(caught.value)
    assert f"{BASE64[:24]!r}... ({len(BASE64) * 3:,} characters)" in str(caught.value)
    # a schema's pattern is not a value: quoted whole
    assert "^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/" in str(caught.value)


def test_an_unknown_tag_is_quoted_short() -> None:
    for function in (chatschema.validate, chatschema.parse_message):
        with pytest.raises(chatschema.ValidationError) as caught:
            function({"role": SIGNATURE * 2, "content": "x"})
        assert_error_hides(caught.value)


# ------------------------------------------------------------------------ CLI


def test_cli_reports_hide_secrets(tmp_path: Path) -> None:
    bad = {
        "messages": [
            {"role": "user", "content": [{"type": "image", "base64": BASE64}]},
            {"role": "assistant", "content": [{"type": "reasoning", "signature": [SIGNATURE]}]},
            {"role": SIGNATURE, "content": ENCRYPTED},
            {"role": "user", "content": "x", "name": f"data:image/png;base64,{BASE64}"},
        ]
    }
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    for argv in (
        ["validate", str(path)],
        ["validate", "--format", "json", str(path)],
        ["convert", "--from", "neutral", "--to", "anthropic", str(path)],
        ["validate", "--provider", "anthropic", str(path)],
    ):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            assert cli(argv) == 1
        for text in (out.getvalue(), err.getvalue()):
            for secret in PLANTED:
                assert not leaks(text, secret), (argv, text[:500])


# ------------------------------------------------------- arguments are data

SENTINEL = Path(tempfile.gettempdir()) / "chatschema-evaluated-sentinel"
HOSTILE_ARGUMENTS = [
    f"__import__('pathlib').Path({str(SENTINEL)!r}).touch()",
    f"{{'a': __import__('pathlib').Path({str(SENTINEL)!r}).touch()}}",
    "{'python': 'dict literal'}",
    '{"a": 1} ; import os',
    "!!python/object/apply:os.system ['true']",
    '{"__class__": "os.system", "args": ["true"]}',
]


@pytest.mark.parametrize("text", HOSTILE_ARGUMENTS)
def test_tool_arguments_are_parsed_as_json_only(text: str) -> None:
    """Argument text that is not a JSON object stays text (an InvalidToolCall)."""
    SENTINEL.unlink(missing_ok=True)
    valid_json = text.startswith('{"__class__"')
    decoded: list[Any] = []
    for provider, payload in [
        (
            "openai_chat",
            {
                "messages": [
                    {
                        "role": "assistant",
                        "tool_calls": [
                            {
                                "id": "c",
                                "type": "function",
                                "function": {"name": "f", "arguments": text},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c", "content": "r"},
                ]
            },
        ),
        (
            "openai_responses",
            {"input": [{"type": "function_call", "call_id": "c", "name": "f", "arguments": text}]},
        ),
    ]:
        decoded.append(get_codec(provider).decode_conversation(payload).messages[0])
    accumulator = ChunkAccumulator()
    accumulator.add(
        AssistantMessageChunk(
            tool_call_chunks=[ToolCallChunk(index=0, id="c", name="f", arguments=text)]
        )
    )
    accumulator.partial_message()
    decoded.append(accumulator.to_message())
    decoded += coerce_messages(
        [
            {
                "role": "assistant",
                "tool_calls": [{"id": "c", "function": {"name": "f", "arguments": text}}],
            }
        ]
    )
    for message in decoded:
        if valid_json:
            assert message.tool_calls[0].arguments == json.loads(text)  # plain data
        elif message.invalid_tool_calls:
            assert message.invalid_tool_calls[0].arguments == text
        else:  # coerce_messages reads unparseable arguments as no arguments
            assert message.tool_calls[0].arguments == {}
    assert not SENTINEL.exists()


def test_no_code_evaluation_anywhere_in_the_package() -> None:
    """No eval, exec, pickle, marshal or YAML loading in chatschema's sources."""
    source = Path(chatschema.__file__).parent
    pattern = re.compile(
        r"(?<![\w.])(eval|exec|compile|__import__)\(|\bpickle\b|\bmarshal\b|\byaml\b|literal_eval"
    )
    offenders = [
        f"{path.relative_to(source)}:{number}"
        for path in source.rglob("*.py")
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1)
        if pattern.search(line) and not line.lstrip().startswith("#")
    ]
    assert offenders == []


def test_environment_is_untouched() -> None:
    assert "chatschema-evaluated" not in " ".join(os.listdir(tempfile.gettempdir()))
