"""``examples/agent_loop.py`` (``make demo``): the agent loop through the official
clients against a local server: by default ``chatschema.testing.FakeProvider``
answering with the scripted model of ``examples/scripted_provider.py`` (these tests
always run), with ``--recorded`` the recorded replies of ``examples/recorded/`` (these
tests skip while the files are not materialized: opening one raises
``FileNotFoundError`` naming it)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from anthropic.types import Message
from openai import OpenAI
from openai.types.chat import ChatCompletion, ChatCompletionChunk

from chatschema import (
    AssistantMessage,
    Conversation,
    ToolMessage,
    count_tokens_approximately,
    merge_chunks,
    user,
)
from chatschema.providers import anthropic, openai_chat

from .conftest import TRAFFIC, as_sent, sse_events

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

EXAMPLES = TRAFFIC.parent.parent / "examples"
EXAMPLE = EXAMPLES / "agent_loop.py"
RECORDED = EXAMPLES / "recorded"
STREAMED = {"stream": True, "stream_options": {"include_usage": True}}
"""What the OpenAI loop adds to ``encode``'s keywords."""


@pytest.fixture(scope="module")
def example() -> Iterator[ModuleType]:
    """``examples/agent_loop.py`` as a module (it imports ``scripted_provider`` from
    its own directory, which a script has on ``sys.path``)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(EXAMPLES))
        patch.setenv("NO_PROXY", "127.0.0.1")
        spec = importlib.util.spec_from_file_location("agent_loop", EXAMPLE)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module


def _run(*args: str, cwd: Path = EXAMPLES.parent) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=cwd,
    )


def _calls(message: AssistantMessage) -> list[tuple[str, str, dict[str, Any]]]:
    return [(call.id, call.name, call.arguments) for call in message.tool_calls]


def _turns(history: Conversation) -> list[Conversation]:
    """The history as it stood at each turn: the question, then one more call and
    result each turn."""
    ends = range(1, len(history.messages), 2)
    return [history.model_copy(update={"messages": history.messages[:end]}) for end in ends]


def _exchanges(server: Any) -> tuple[list[Any], list[bytes], list[Any]]:
    """What a FakeProvider saw, request by request: the JSON bodies received, the
    bodies sent back (a stream's whole body) and the scripted replies answered."""
    requests = server.requests
    assert all(request.status == 200 and request.error is None for request in requests)
    return (
        [request.body for request in requests],
        [request.response for request in requests],
        [request.reply for request in requests],
    )


# ----------------------------------------------------------- the scripted local provider


def test_the_script_runs_both_loops_against_the_scripted_provider(tmp_path: Path) -> None:
    done = _run(cwd=tmp_path)  # from elsewhere than the repository
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    out = done.stdout
    # OpenAI Chat, streamed: a tool call, its result, the answer
    assert (
        "== openai_chat: OpenAI().chat.completions.create(stream=True), "
        "against the scripted local provider\n" in out
    )
    assert re.search(r'tool call get_capital\(\{"country": "UK"\}\) id=call_[A-Za-z0-9]{24}\n', out)
    assert 'ran get_capital({"country": "UK"}) = \'London\'' in out
    assert '       assistant: tool_call get_capital({"country": "UK"})\n' in out
    assert "       tool: 'London'" in out  # the result went back on the wire
    assert "done: 4 messages, answer: 'The capital of the UK is London.'" in out
    # Anthropic, async: the same loop
    assert (
        "== anthropic: await AsyncAnthropic().messages.create(...), "
        "against the scripted local provider\n" in out
    )
    assert re.search(r"tool call get_user_country\(\{\}\) id=toolu_01[A-Za-z0-9]{22}\n", out)
    assert "ran get_user_country({}) = 'Mexico'" in out
    assert '       user: tool_result "Mexico"' in out
    assert "done: 4 messages, answer: 'The largest city in Mexico is Mexico City.'" in out
    assert out.count("finish_reason=tool_calls") == 2 and out.count("finish_reason=stop") == 2
    assert out.count("turn 2") == 2 and "turn 3" not in out


def test_the_scripted_openai_loop_streams_what_the_sdk_types_accept(example: ModuleType) -> None:
    with example.scripted_provider() as server:
        history = example.openai_chat_loop(server)
    received, sent, replies = _exchanges(server)
    assert [request.format for request in server.requests] == ["openai_chat"] * 2
    assert all(request.stream for request in server.requests)
    _, call_message, result, answer = history.messages
    assert [message.role for message in history.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert isinstance(call_message, AssistantMessage) and isinstance(result, ToolMessage)
    [call] = call_message.tool_calls
    assert (call.name, call.arguments) == ("get_capital", {"country": "UK"})
    assert re.fullmatch(r"call_[A-Za-z0-9]{24}", call.id)
    assert result.tool_call_id == call.id and result.text == "London"
    assert answer.text == "The capital of the UK is London."
    # each turn's request is what encode gave for the history then
    turns = _turns(history)
    expected = [as_sent({**openai_chat.encode(turn), **STREAMED}) for turn in turns]
    assert received == expected
    assert received[1]["messages"][2] == {
        "role": "tool",
        "tool_call_id": call.id,
        "content": "London",
    }
    # each stream: chunks the SDK's type accepts, assembling to the scripted reply
    assert len(sent) == len(replies) == len(turns) == 2
    for request, body, scripted in zip(received, sent, replies, strict=True):
        asked = openai_chat.decode_conversation(request)  # what the server counts
        text = body.decode()
        assert text.endswith("\n\ndata: [DONE]\n\n")
        events = sse_events(text)
        for event in events:
            ChatCompletionChunk.model_validate(event)
        assert len({event["id"] for event in events}) == 1
        assert re.fullmatch(r"chatcmpl-[A-Za-z0-9]{29}", events[0]["id"])
        assert {event["model"] for event in events} == {"gpt-4o-mini"}
        first, *middle, last_choice, usage = events
        assert first["choices"][0]["delta"]["role"] == "assistant"
        assert last_choice["choices"][0]["delta"] == {}
        assert last_choice["choices"][0]["finish_reason"] == scripted.finish_reason
        assert all(event["choices"][0]["finish_reason"] is None for event in [first, *middle])
        assert usage["choices"] == [] and usage["usage"] == {
            "prompt_tokens": count_tokens_approximately(asked.messages, tools=asked.tools),
            "completion_tokens": count_tokens_approximately(scripted),
            "total_tokens": usage["usage"]["prompt_tokens"] + usage["usage"]["completion_tokens"],
        }
        assert len(middle) > 2  # text or arguments in several small deltas
        merged = merge_chunks(list(openai_chat.decode_stream([body]))).to_message()
        assert merged.text == scripted.text
        assert _calls(merged) == _calls(scripted)
        assert merged.finish_reason == scripted.finish_reason
        assert merged.usage == scripted.usage
    assert _calls(replies[0]) == _calls(call_message)
    assert replies[1].text == answer.text


def test_the_scripted_provider_answers_a_request_not_streamed(example: ModuleType) -> None:
    conversation = Conversation(messages=[user("Hello?")])
    with example.scripted_provider() as server:
        client = OpenAI(api_key="demo-key", base_url=f"{server.url}/v1", max_retries=0)
        completion = client.chat.completions.create(
            model="gpt-4o-mini", **openai_chat.encode(conversation)
        )
    _, [body], [scripted] = _exchanges(server)
    assert ChatCompletion.model_validate_json(body).model_dump() == completion.model_dump()
    assert json.loads(body)["object"] == "chat.completion"
    reply = openai_chat.decode_response(completion)
    assert reply.text == scripted.text == "I have no tool to find that out."
    assert (reply.finish_reason, reply.usage) == ("stop", scripted.usage)


def test_the_scripted_anthropic_loop_answers_as_a_message(example: ModuleType) -> None:
    with example.scripted_provider() as server:
        history = asyncio.run(example.anthropic_loop(server))
    received, sent, replies = _exchanges(server)
    assert [request.format for request in server.requests] == ["anthropic"] * 2
    assert not any(request.stream for request in server.requests)
    assert [message.role for message in history.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    call, result = history.messages[1], history.messages[2]
    assert isinstance(call, AssistantMessage) and isinstance(result, ToolMessage)
    [tool_call] = call.tool_calls
    assert (tool_call.name, tool_call.arguments) == ("get_user_country", {})
    assert re.fullmatch(r"toolu_01[A-Za-z0-9]{22}", tool_call.id)
    assert result.tool_call_id == tool_call.id and result.text == "Mexico"
    assert history.messages[-1].text == "The largest city in Mexico is Mexico City."
    turns = _turns(history)
    assert received == [as_sent(anthropic.encode(turn)) for turn in turns]
    assert received[1]["messages"][2]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": tool_call.id,
        "content": "Mexico",
    }
    assert len(sent) == len(replies) == len(turns) == 2
    for request, body, scripted in zip(received, sent, replies, strict=True):
        asked = anthropic.decode_conversation(request)  # what the server counts
        message = Message.model_validate_json(body)
        assert re.fullmatch(r"msg_01[A-Za-z0-9]{22}", message.id)
        assert (message.type, message.role, message.model) == (
            "message",
            "assistant",
            "claude-sonnet-4-5",
        )
        assert message.stop_reason == ("tool_use" if scripted.tool_calls else "end_turn")
        assert message.stop_sequence is None
        assert message.usage.input_tokens == count_tokens_approximately(
            asked.messages, tools=asked.tools
        )
        assert message.usage.output_tokens == count_tokens_approximately(scripted)
        reply = anthropic.decode_response(message)
        assert reply.text == scripted.text
        assert _calls(reply) == _calls(scripted)
        assert reply.finish_reason == scripted.finish_reason
    assert [block.type for block in Message.model_validate_json(sent[0]).content] == ["tool_use"]


def test_recorded_mode_without_the_recordings_says_how_to_make_them(
    example: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(example, "RECORDED", EXAMPLES / "not-materialized")
    assert example.main(["--recorded"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1
    assert "the recordings are absent" in err and "`make recordings`" in err
    assert "examples/not-materialized/openai_chat_agent_loop.json" in err


# ----------------------------------------------------------- the recorded replies (--recorded)


def test_the_script_runs_both_loops_and_prints_the_wire() -> None:
    (RECORDED / "openai_chat_agent_loop.json").open().close()  # absent: the test skips
    (RECORDED / "anthropic_agent_loop.json").open().close()
    done = _run("--recorded")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    # OpenAI Chat, streamed: a tool call, its result, the answer
    assert "== openai_chat: OpenAI().chat.completions.create(stream=True)" in out
    assert 'tool call get_capital({"country": "UK"}) id=call_ZR5UUuTt3pf61kjwAJIYdVMj' in out
    assert 'ran get_capital({"country": "UK"}) = \'London\'' in out
    assert "       tool: 'London'" in out  # the result went back on the wire
    assert "done: 4 messages, answer: 'The capital of the UK is London.'" in out
    # Anthropic, async: the same loop
    assert "== anthropic: await AsyncAnthropic().messages.create(...)" in out
    assert "ran get_user_country({}) = 'Mexico'" in out
    assert '       user: tool_result "Mexico"' in out
    assert "finish_reason=stop, 460 in / 91 out" in out
    assert out.count("turn 2") == 2 and "turn 3" not in out
    assert out.count("against recorded replies\n") == 2


def test_the_openai_loop_sends_what_the_recorded_client_sent(example: ModuleType) -> None:
    """The history the loop builds with chatschema goes on the wire exactly as the
    recorded client's did, turn after turn."""
    with example.recorded_server("openai_chat_agent_loop") as server:
        history = example.openai_chat_loop(server)
    assert [request.body for request in server.requests] == [
        turn["request"] for turn in server.interactions
    ]
    assert [message.role for message in history.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert history.messages[-1].text == "The capital of the UK is London."


def test_the_anthropic_loop_answers_the_call_it_got(example: ModuleType) -> None:
    with example.recorded_server("anthropic_agent_loop") as server:
        history = asyncio.run(example.anthropic_loop(server))
    assert len(server.requests) == 2
    call, result = history.messages[1], history.messages[2]
    assert isinstance(call, AssistantMessage) and isinstance(result, ToolMessage)
    assert result.tool_call_id == call.tool_calls[0].id == "toolu_01JJ8TequDsrEU2pv1QFRWAK"
    sent = server.requests[1].body["messages"][2]["content"][0]
    assert sent == {
        "type": "tool_result",
        "tool_use_id": call.tool_calls[0].id,
        "content": "Mexico",
    }
    assert server.requests[1].body["model"] == "claude-sonnet-4-5"
    assert history.messages[-1].text.startswith("Based on the result, you are located in Mexico.")
