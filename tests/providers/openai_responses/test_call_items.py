"""Fidelity items 14 and 20: call items other than function_call; Python keys.

14. A ``function_call_output`` may answer any earlier call item that carries its
    ``call_id`` (``tool_search_call``, ``computer_call`` ...): check must not call it
    an orphan. The item shapes are the SDK's ``ResponseInputItemParam`` members
    (``openai.types.responses.response_input_item_param``), each request checked
    with the SDK's request types (``validate_request``).
20. Python data with a key that is not a string, at any depth of any payload
    (``[{0: [None]}]`` in content ...), is a located ``ConversionError`` from every
    ``decode_*`` entry point, never a raw pydantic (or other) error.
"""

from __future__ import annotations

import copy
import importlib
import typing
from typing import Any

import hostile as H
import pytest
from openai.types.responses import response_input_item_param
from oracle import validate_request

from chatschema import ConversionError
from chatschema.providers import openai_responses as R
from chatschema.providers.openai_responses.wire import is_client_item

encode_module = importlib.import_module("chatschema.providers.openai_responses.encode")

# One minimal item per call type of ResponseInputItemParam that has a `call_id`
# (required fields as the SDK's TypedDicts declare them).
CALL_ITEMS: dict[str, dict[str, Any]] = {
    "tool_search_call": {
        "type": "tool_search_call",
        "id": "ts_1",
        "call_id": "call_x",
        "arguments": {"query": "weather"},
        "execution": "client",
        "status": "completed",
    },
    "computer_call": {
        "type": "computer_call",
        "id": "cu_1",
        "call_id": "call_x",
        "action": {"type": "click", "button": "left", "x": 1, "y": 2},
        "pending_safety_checks": [],
        "status": "completed",
    },
    "local_shell_call": {
        "type": "local_shell_call",
        "id": "lsh_1",
        "call_id": "call_x",
        "status": "completed",
        "action": {"type": "exec", "command": ["ls"], "env": {}},
    },
    "shell_call": {"type": "shell_call", "call_id": "call_x", "action": {"commands": ["ls"]}},
    "apply_patch_call": {
        "type": "apply_patch_call",
        "call_id": "call_x",
        "status": "completed",
        "operation": {"type": "create_file", "path": "a.txt", "diff": "+a"},
    },
    "custom_tool_call": {
        "type": "custom_tool_call",
        "call_id": "call_x",
        "name": "grep",
        "input": "foo",
    },
    "program": {
        "type": "program",
        "id": "prog_1",
        "call_id": "call_x",
        "code": "1",
        "fingerprint": "f",
    },
}


def _sdk_call_types() -> set[str]:
    """Item types of the SDK's input item union that carry a call_id and are calls."""
    found = set()
    for member in typing.get_args(response_input_item_param.ResponseInputItemParam):
        hints = typing.get_type_hints(member)
        if "call_id" not in hints or "type" not in hints:
            continue
        for kind in typing.get_args(hints["type"]):
            if isinstance(kind, str) and kind != "function_call" and not is_client_item(kind):
                found.add(kind)
    return found


def test_the_call_items_are_the_sdks() -> None:
    assert set(CALL_ITEMS) == _sdk_call_types()


def _request(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "input": [
            {"role": "user", "content": "go"},
            item,
            {"type": "function_call_output", "call_id": "call_x", "output": "done"},
        ]
    }


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("kind", sorted(CALL_ITEMS))
def test_an_output_answering_a_call_item_is_no_orphan(
    kind: str, fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(encode_module, "_FAST", fast)
    request = _request(copy.deepcopy(CALL_ITEMS[kind]))
    validate_request("openai_responses", request)  # a shape the SDK accepts
    conversation = R.decode_conversation(request)
    assert R.check(conversation) == []
    assert R.encode(conversation) == request


@pytest.mark.parametrize("fast", [True, False])
def test_an_output_before_its_call_item_is_still_an_orphan(
    fast: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(encode_module, "_FAST", fast)
    items = _request(copy.deepcopy(CALL_ITEMS["tool_search_call"]))["input"]
    request = {"input": [items[0], items[2], items[1]]}
    problems = R.check(R.decode_conversation(request))
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/1/tool_call_id", "orphan_tool_result")
    ]


@pytest.mark.parametrize("fast", [True, False])
def test_an_output_item_does_not_answer(fast: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only calls count: an earlier *output* item with the call_id is no call."""
    monkeypatch.setattr(encode_module, "_FAST", fast)
    output = {"type": "custom_tool_call_output", "call_id": "call_x", "output": "x"}
    request = _request(output)
    validate_request("openai_responses", request)
    problems = R.check(R.decode_conversation(request))
    assert [p.keyword for p in problems] == ["orphan_tool_result"]


# ------------------------------------------------------------------- item 20


def test_python_keys_in_content() -> None:
    with pytest.raises(ConversionError) as caught:
        R.decode_messages([{"role": "user", "content": [{0: [None]}]}])
    assert (caught.value.message_index, caught.value.block_index) == (0, 0)
    with pytest.raises(ConversionError) as caught:
        R.decode_messages([{"type": "tool_search_call", "call_id": "c", 0: [None]}])
    assert caught.value.message_index == 0


def _with_python_key(seed: Any) -> Any:
    """Every copy of ``seed`` with one object given a key that is not a string."""
    for path in H.paths(seed):
        if isinstance(H.get(seed, path), dict):
            for value in ([None], 1):
                document = copy.deepcopy(seed)
                H.get(document, path)[0] = value
                yield document
        if path:
            document = copy.deepcopy(seed)
            H.get(document, path[:-1])[path[-1]] = [{0: [None]}]
            yield document


def _entry_points() -> Any:
    for seed in H.request_seeds("openai_responses"):
        yield "conversation", R.decode_conversation, seed
        yield "messages", R.decode_messages, seed
    for seed in H.response_seeds("openai_responses"):
        yield "response", R.decode_response, seed
    for events, _ in H.stream_seeds("openai_responses"):
        yield "stream", lambda events: list(R.decode_stream(events)), events


def test_python_keys_anywhere_are_conversion_errors() -> None:
    calls = 0
    for name, function, seed in _entry_points():
        for document in _with_python_key(seed):
            calls += 1
            H.call(f"python keys {name}", function, document, provider="openai_responses")
    assert calls > 1000
