"""``examples/agent_loop.py`` (``make demo``): the agent loop through the official
clients against its local recorded server."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from chatschema import AssistantMessage, ToolMessage

from .conftest import TRAFFIC

pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

EXAMPLE = TRAFFIC.parent.parent / "examples" / "agent_loop.py"


def _example() -> ModuleType:
    spec = importlib.util.spec_from_file_location("agent_loop", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_script_runs_both_loops_and_prints_the_wire() -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLE)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=Path(EXAMPLE).parent.parent,
    )
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


def test_the_openai_loop_sends_what_the_recorded_client_sent() -> None:
    """The history the loop builds with chatschema goes on the wire exactly as the
    recorded client's did, turn after turn."""
    example = _example()
    with example.recorded_server("openai_chat_agent_loop") as server:
        history = example.openai_chat_loop(server)
    assert server.received == [turn["request"] for turn in server.interactions]
    assert [message.role for message in history.messages] == [
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    assert history.messages[-1].text == "The capital of the UK is London."


def test_the_anthropic_loop_answers_the_call_it_got() -> None:
    example = _example()
    with example.recorded_server("anthropic_agent_loop") as server:
        history = asyncio.run(example.anthropic_loop(server))
    assert len(server.received) == 2
    call, result = history.messages[1], history.messages[2]
    assert isinstance(call, AssistantMessage) and isinstance(result, ToolMessage)
    assert result.tool_call_id == call.tool_calls[0].id == "toolu_01JJ8TequDsrEU2pv1QFRWAK"
    sent = server.received[1]["messages"][2]["content"][0]
    assert sent == {
        "type": "tool_result",
        "tool_use_id": call.tool_calls[0].id,
        "content": "Mexico",
    }
    assert server.received[1]["model"] == "claude-sonnet-4-5"
    assert history.messages[-1].text.startswith("Based on the result, you are located in Mexico.")
