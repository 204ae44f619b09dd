"""A tool-call loop with reasoning through the gateway: opaque values and their replay.

The upstream (format B) answers the question with a reasoning block carrying B's
opaque value (an Anthropic or Bedrock thinking signature, a Gemini thought
signature, OpenAI Responses encrypted reasoning) and a tool call; the caller (format
A, its official client) sends the tool result back with the whole history.

- When the caller can carry the value back (A = B), the upstream's second request
  holds it unchanged, and nothing is said to be omitted.
- When it cannot, the loop still completes: the upstream's second request holds no
  opaque value but B's own, and the gateway says what it left out (the
  ``chatschema-omitted`` header, or for a stream whose headers left before the
  value came, a log line of the ``chatschema.gateway`` logger).
- A history holding another provider's opaque value (a conversation moved from one
  provider to another) reaches the upstream without it, and the answer's
  ``chatschema-omitted`` header names it.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

import pytest

from chatschema import (
    AssistantMessage,
    Conversation,
    ReasoningBlock,
    TextBlock,
    Usage,
    assistant,
    tool_call,
    tool_result,
)
from chatschema.testing import FakeRequest, ScriptReply
from gateway.conftest import (
    CALL_IDS,
    FORMATS,
    TOOL_OUTPUT,
    Answer,
    Upstream,
    answering,
    call,
    conversation,
    follow_up,
    token_of,
)

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

OMITTED = "chatschema-omitted"
STREAMS = [pytest.param(False, id="whole"), pytest.param(True, id="streamed")]


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


OPAQUE: dict[str, tuple[str, str]] = {
    "openai_responses": ("encrypted_content", "gAAAAABo" + _b64("openai-encrypted-reasoning-1")),
    "anthropic": ("signature", "EqQB" + _b64("anthropic-thinking-signature-1")),
    "gemini": ("signature", _b64("gemini-thought-signature-1")),
    "gemini_interactions": ("signature", _b64("gemini-interactions-thought-signature-1")),
    "bedrock_converse": ("signature", "Eu0B" + _b64("bedrock-reasoning-signature-1")),
}
"""Per upstream format with opaque reasoning: the field and the value it sends."""
GEMINI_CALL_SIGNATURE = _b64("gemini-function-call-signature-1")
"""The thought signature a Gemini upstream puts on its function call part."""
REASONING_FORMATS = tuple(OPAQUE)
THOUGHT = "The user asks for a capital: call get_capital."
ALL_VALUES = {value for _, value in OPAQUE.values()} | {GEMINI_CALL_SIGNATURE}
GEMINI_STAND_IN = "skip_thought_signature_validator"
"""The thought signature the Gemini API docs name for function calls the model did not
make (Gemini 3 refuses a model turn whose first call has none): not an opaque value."""


def reasoning_reply(fmt: str, token: str) -> AssistantMessage:
    """The upstream's first reply: its reasoning (with its opaque value), text, a tool call."""
    field, value = OPAQUE[fmt]
    block: dict[str, Any] = {"text": THOUGHT, "provider": fmt, field: value}
    if fmt == "openai_responses":
        block["id"] = "rs_0123456789abcdef"
    extras = {"gemini": {"thought_signature": GEMINI_CALL_SIGNATURE}} if fmt == "gemini" else None
    call = tool_call("get_capital", {"country": "UK"}, id=CALL_IDS[fmt])
    if extras:
        call = call.model_copy(update={"extras": extras})
    return assistant(
        [ReasoningBlock(**block), TextBlock(text=f"Let me look that up ({token}).")],
        tool_calls=[call],
        finish_reason="tool_calls",
        usage=Usage(input_tokens=21, output_tokens=40, total_tokens=61),
    )


def reasoning_rule(fmt: str) -> Any:
    def rule(history: Conversation, request: FakeRequest) -> ScriptReply:
        token = token_of(history) or "?"
        if history.messages and history.messages[-1].role == "tool":
            return answering(token)
        return reasoning_reply(fmt, token)

    return rule


def opaque_values(history: Conversation) -> list[tuple[str, str]]:
    """Every opaque value a decoded request carries: (where, value)."""
    found: list[tuple[str, str]] = []
    for number, message in enumerate(history.messages):
        content = getattr(message, "content", None)
        for position, block in enumerate(content if isinstance(content, list) else []):
            for name in ("signature", "encrypted_content"):
                value = getattr(block, name, None)
                if value:
                    found.append((f"/messages/{number}/content/{position} {name}", value))
            signature = ((block.extras or {}).get("gemini") or {}).get("thought_signature")
            if signature:
                found.append((f"/messages/{number}/content/{position} thought", signature))
        for position, made in enumerate(getattr(message, "tool_calls", None) or []):
            signature = ((made.extras or {}).get("gemini") or {}).get("thought_signature")
            if signature and signature != GEMINI_STAND_IN:
                found.append((f"/messages/{number}/tool_calls/{position} thought", signature))
    return found


def reasoning_of(message: Any) -> list[ReasoningBlock]:
    content = message.content if isinstance(message.content, list) else []
    return [block for block in content if block.type == "reasoning"]


def run_loop(
    caller: str, up: Upstream, token: str, *, stream: bool
) -> tuple[Answer, Answer, FakeRequest]:
    """The two turns of the loop; the upstream's second request."""
    up.rule(token, reasoning_rule(up.fmt))
    sent = conversation(caller, token)
    first = call(caller, up.url, sent, stream=stream)
    assert first.message.tool_calls, "the caller got no tool call"
    assert first.message.tool_calls[0].id == CALL_IDS[up.fmt]
    follow_up(sent, first.message)
    second = call(caller, up.url, sent, stream=stream)
    assert second.message.text == answering(token).text
    requests = up.requests(token)
    assert len(requests) == 2, f"{len(requests)} upstream requests"
    assert all(r.status == 200 and r.error is None for r in requests)
    second_request = requests[1]
    assert second_request.conversation is not None
    said = [m.role for m in second_request.conversation.messages]
    assert said == ["system", "user", "assistant", "tool"], said
    assert second_request.conversation.messages[-1].text == TOOL_OUTPUT
    return first, second, second_request


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize("fmt", REASONING_FORMATS)
def test_the_same_format_gets_its_reasoning_back(
    fmt: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    field, value = OPAQUE[fmt]
    first, second, request = run_loop(fmt, upstreams[fmt], token, stream=stream)
    shown = reasoning_of(first.message)
    assert value in [getattr(b, field) for b in shown], "the caller did not get the opaque value"
    assert request.conversation is not None
    expected = {value} | ({GEMINI_CALL_SIGNATURE} if fmt == "gemini" else set())
    assert {found for _, found in opaque_values(request.conversation)} == expected
    assert OMITTED not in first.headers and OMITTED not in second.headers
    # the reasoning came and went back as one block: its text with its value
    assert [(getattr(b, field), b.text) for b in shown] == [(value, THOUGHT)]
    replayed = reasoning_of(request.conversation.messages[2])
    assert [(getattr(b, field), b.text) for b in replayed] == [(value, THOUGHT)]


CROSS = [(a, b) for a in FORMATS for b in REASONING_FORMATS if a != b]


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("caller", "upstream"), CROSS, ids=[f"{a}-to-{b}" for a, b in CROSS])
def test_reasoning_another_format_cannot_carry_is_left_out_and_said(
    caller: str,
    upstream: str,
    stream: bool,
    upstreams: dict[str, Upstream],
    token: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="chatschema.gateway")
    field, value = OPAQUE[upstream]
    first, second, request = run_loop(caller, upstreams[upstream], token, stream=stream)
    assert request.conversation is not None
    carried = opaque_values(request.conversation)
    own = {value} | ({GEMINI_CALL_SIGNATURE} if upstream == "gemini" else set())
    foreign = [(where, found) for where, found in carried if found not in own]
    assert not foreign, f"the upstream got opaque values that are not its own: {foreign}"
    body = json.dumps(request.body)
    assert not [v for v in ALL_VALUES - own if v in body]
    if {found for _, found in carried} == own:
        return  # carried back whole: nothing was left out
    # left out somewhere: the gateway says what
    notices = [first.headers.get(OMITTED, ""), second.headers.get(OMITTED, "")]
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("chatschema.gateway")]
    said = " | ".join([*notices, *logged])
    assert field in said and upstream in said, (
        f"the {upstream} {field} did not come back, and the gateway did not say so "
        f"(headers: {notices}, log: {logged})"
    )
    if not stream:
        assert any(upstream in notice and field in notice for notice in notices), notices


FOREIGN = [
    ("anthropic", "gemini"),
    ("gemini", "bedrock_converse"),
    ("bedrock_converse", "openai_responses"),
    ("openai_responses", "anthropic"),
    ("anthropic", "bedrock_converse"),
    ("gemini", "anthropic"),
    ("gemini_interactions", "openai_responses"),
    ("anthropic", "gemini_interactions"),
]
"""(caller, upstream): a history from the caller's provider sent to another."""


@pytest.mark.parametrize("stream", STREAMS)
@pytest.mark.parametrize(("caller", "upstream"), FOREIGN, ids=[f"{a}-to-{b}" for a, b in FOREIGN])
def test_a_foreign_signature_in_the_history_is_left_out_and_named(
    caller: str, upstream: str, stream: bool, upstreams: dict[str, Upstream], token: str
) -> None:
    up = upstreams[upstream]
    field, value = OPAQUE[caller]
    sent = conversation(caller, token)
    earlier = reasoning_reply(caller, token)  # what the caller's own provider said before
    sent.messages.append(earlier)
    sent.messages.append(tool_result(TOOL_OUTPUT, tool_call_id=CALL_IDS[caller]))
    answer = call(caller, up.url, sent, stream=stream)
    assert answer.message.text == answering(token).text
    [request] = up.requests(token)
    assert request.conversation is not None
    assert opaque_values(request.conversation) == []
    assert value not in json.dumps(request.body)
    notice = answer.headers.get(OMITTED, "")
    assert field in notice and caller in notice, f"{OMITTED}: {notice!r}"
    assert "/messages/2/content/0" in notice, notice
    if caller == "gemini":
        assert "thought_signature" in notice, notice
