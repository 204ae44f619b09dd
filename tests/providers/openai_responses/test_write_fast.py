"""``encode_response``'s fast path for the common reply agrees with the general path.

``response._is_plain`` picks the fast path (string content, tool calls without
index or extras of this format, no invalid calls, no extras or response metadata
of this format); with it patched to refuse every message, the same messages take
the general path (``Items`` and ``head``). Both must write the same body, key
order and made ids included.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from chatschema import AssistantMessage, InputTokenDetails, ToolCall, Usage
from chatschema.providers import openai_responses as R
from chatschema.providers.openai_responses import response
from chatschema.providers.openai_responses.output import usage_json

OPTIONS: dict[str, Any] = {"created": 1_767_225_600, "id_seed": 11}
USAGE = Usage(input_tokens=12, output_tokens=5, total_tokens=17)
CALL = ToolCall(id="call_1", name="get_weather", arguments={"city": "Zürich", "days": [1, 2]})

PLAIN: dict[str, AssistantMessage] = {
    "text": AssistantMessage(content="Hello.", response_id="resp_1", model="gpt-5", usage=USAGE),
    "text and calls": AssistantMessage(
        content="Looking.",
        tool_calls=[CALL, ToolCall(id="call_2", name="now", arguments={})],
        finish_reason="tool_calls",
        usage=USAGE,
    ),
    "calls only": AssistantMessage(content="", tool_calls=[CALL], finish_reason="tool_calls"),
    "empty": AssistantMessage(content=""),
    "length": AssistantMessage(content="Cut", finish_reason="length", usage=USAGE),
    "content_filter": AssistantMessage(content="No", finish_reason="content_filter"),
    "error": AssistantMessage(content="x", finish_reason="error"),
    "other": AssistantMessage(content="x", finish_reason="other"),
    "raw status": AssistantMessage(content="x", raw_finish_reason="in_progress"),
    "usage details": AssistantMessage(
        content="x",
        usage=Usage(
            input_tokens=3,
            output_tokens=1,
            total_tokens=4,
            input_token_details=InputTokenDetails(cache_read=2),
        ),
    ),
    "foreign extras": AssistantMessage(
        content="x",
        tool_calls=[CALL.model_copy(update={"extras": {"anthropic": {"cache": 1}}})],
        extras={"gemini": {"a": 1}},
        response_metadata={"openai_chat": {"system_fingerprint": "fp"}},
    ),
}


def _general(monkeypatch: pytest.MonkeyPatch, message: AssistantMessage, **options: Any) -> Any:
    with monkeypatch.context() as patch:
        patch.setattr(response, "_is_plain", lambda message: False)
        return R.encode_response(message, **options)


@pytest.mark.parametrize("name", list(PLAIN))
def test_fast_path_writes_the_general_paths_body(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    message = PLAIN[name]
    assert response._is_plain(message)
    fast = R.encode_response(message, **OPTIONS)
    general = _general(monkeypatch, message, **OPTIONS)
    assert json.dumps(fast) == json.dumps(general)  # key order too
    assert (
        R.encode_response(message, model="m")["model"]
        == _general(monkeypatch, message, model="m")["model"]
    )


def test_other_shapes_take_the_general_path() -> None:
    assert not response._is_plain(AssistantMessage(content=[{"type": "text", "text": "x"}]))
    assert not response._is_plain(
        AssistantMessage(content="x", tool_calls=[CALL.model_copy(update={"index": 0})])
    )
    assert not response._is_plain(
        AssistantMessage(
            content="x",
            tool_calls=[CALL.model_copy(update={"extras": {"openai_responses": {"id": "fc_1"}}})],
        )
    )
    assert not response._is_plain(
        AssistantMessage(content="x", extras={"openai_responses": {"request": {}}})
    )
    assert not response._is_plain(
        AssistantMessage(content="x", response_metadata={"openai_responses": {"user": "u"}})
    )
    assert not response._is_plain(
        AssistantMessage(
            content="x", invalid_tool_calls=[{"id": "c", "name": "f", "arguments": "{"}]
        )
    )


def test_usage_without_details() -> None:
    assert usage_json(USAGE) == {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 17,
    }
