"""``request=False``: histories that are data, not yet requests, convert with checks on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import chatschema
from chatschema import AssistantMessage, Conversation, ToolDefinition, UserMessage
from chatschema.datasets import convert_batch
from chatschema.providers import PROVIDERS, get_codec

# A fine-tuning row: the training target is the assistant's tool call, with no result yet.
ROW = Conversation(
    messages=[
        UserMessage(content="What is the weather in Paris?"),
        AssistantMessage(
            content="",
            tool_calls=[{"id": "call_1", "name": "weather", "arguments": {"city": "Paris"}}],
        ),
    ],
    tools=[ToolDefinition(name="weather", parameters={"type": "object"})],
)
# The same row with a result that answers nothing: still a problem with request=False.
ORPHAN = ROW.model_copy(
    update={"messages": [*ROW.messages, chatschema.ToolMessage(tool_call_id="x", content="?")]}
)
# otel_genai records what was sent, whatever it was: it has no pairing rule to relax.
PAIRED = [name for name in PROVIDERS if name != "otel_genai"]


@pytest.mark.parametrize("provider", PAIRED)
def test_a_trailing_call_is_a_problem_of_requests_only(provider: str) -> None:
    codec = get_codec(provider)
    problems = codec.check(ROW)
    assert [p.keyword for p in problems] == ["unanswered_tool_call"]
    assert problems[0].pointer == "/messages/1/tool_calls/0/id"
    with pytest.raises(chatschema.ConversionError, match="no tool result"):
        codec.encode(ROW)
    assert codec.check(ROW, request=False) == []
    sent = codec.encode(ROW, request=False)
    assert sent == codec.encode(ROW, check=False)
    back = codec.decode_conversation(sent)
    assert [call.name for call in back.messages[-1].tool_calls] == ["weather"]  # type: ignore[union-attr]


@pytest.mark.parametrize("provider", PAIRED)
def test_every_other_rule_still_holds(provider: str) -> None:
    keywords = {p.keyword for p in get_codec(provider).check(ORPHAN, request=False)}
    assert "orphan_tool_result" in keywords


def test_convert_and_datasets_take_the_option() -> None:
    row = json.dumps(chatschema.to_dict(ROW))
    source = chatschema.providers.openai_chat.encode(ROW, request=False)
    converted = chatschema.convert(source, source="openai_chat", target="anthropic", request=False)
    assert converted["messages"][-1]["content"][0]["type"] == "tool_use"
    batch = {"conversation": [row, row]}
    refused = convert_batch(batch, source="neutral", target="anthropic")
    for problems in refused["problems"]:
        assert "unanswered_tool_call" in [problem["keyword"] for problem in problems]
    done = convert_batch(batch, source="neutral", target="anthropic", options={"request": False})
    assert done["problems"] == [[], []]
    assert json.loads(done["conversation"][0]) == chatschema.providers.anthropic.encode(
        ROW, request=False
    )


def test_cli_option(tmp_path: Path) -> None:
    path = tmp_path / "rows.jsonl"
    path.write_text(json.dumps(chatschema.to_dict(ROW)) + "\n")
    command = [sys.executable, "-m", "chatschema", "convert", str(path), "--from", "neutral"]
    refused = subprocess.run([*command, "--to", "anthropic"], capture_output=True, text=True)
    assert refused.returncode != 0 and "no tool result" in refused.stderr + refused.stdout
    done = subprocess.run(
        [*command, "--to", "anthropic", "--option", "request=false"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == chatschema.providers.anthropic.encode(ROW, request=False)
