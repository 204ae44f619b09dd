"""The fast writer of the Converse encoder, held to the general path it stands in for.

``encode`` and ``check`` write plain messages (string content, tool calls and
results without extras) with ``fast.fast_message``. Each input here is encoded with
it on and off (``encode.FAST``): the same bytes out, the same error, the same
problems, in the same order.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from typing import Any

import hostile as H
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatschema import Conversation, parse
from chatschema.errors import ChatSchemaError
from chatschema.providers import bedrock_converse as codec
from providers.bedrock_converse.helpers import PAYLOADS, names

ENCODE: Any = importlib.import_module("chatschema.providers.bedrock_converse.encode")
BENCH = H.ROOT / "bench"

OPTIONS: list[dict[str, Any]] = [
    {},
    {"check": False},
    {"unsupported": "drop"},
    {"unsupported": "placeholder", "check": False},
    {"prompt_cache": False},
    {"reasoning": "text"},
    {"content_format": "string", "unsupported": "drop"},
    {"native_tools": False},
    {"request": False},
]


def outcome(verb: Any, conversation: Any, options: dict[str, Any]) -> Any:
    """What a verb gives: the payload (key order counts), or the error."""
    try:
        result = verb(conversation, **options)
    except ChatSchemaError as error:
        problems = [(p.pointer, p.keyword, p.message) for p in getattr(error, "problems", [])]
        where = (getattr(error, "message_index", None), getattr(error, "block_index", None))
        return ("error", type(error).__name__, str(error), where, problems)
    if isinstance(result, list):  # check: the problems
        return [(p.pointer, p.keyword, p.message) for p in result]
    return json.dumps(codec.json_form(result), ensure_ascii=False)


def both_walks(conversation: Any, options: dict[str, Any]) -> None:
    """encode and check give the same with the fast writer on and off."""
    for verb in (codec.encode, codec.check):
        fast = outcome(verb, conversation, options)
        ENCODE.FAST = False
        try:
            general = outcome(verb, conversation, options)
        finally:
            ENCODE.FAST = True
        assert fast == general, (verb.__name__, options)


def _conversations() -> Iterator[tuple[str, Any]]:
    """Every conversation of the recorded requests, the shared seeds and the fixtures."""
    for name in names("request"):  # read when the test runs: absent, it skips
        yield f"wire/{name}", H.Recorded(PAYLOADS / f"{name}.json", "request")
    yield from H.decoded_request_seeds("bedrock_converse")
    for number, document in enumerate(H.CONVERSATIONS):
        yield f"fixture/{number}", document


CASES = list(_conversations())


def test_the_fast_writer_is_on_by_default() -> None:
    assert ENCODE.FAST is True


@pytest.mark.parametrize("options", OPTIONS, ids=[json.dumps(o) for o in OPTIONS])
@pytest.mark.parametrize(("name", "conversation"), CASES, ids=[name for name, _ in CASES])
def test_recorded_shapes(name: str, conversation: Any, options: dict[str, Any]) -> None:
    both_walks(H.conversation_of(conversation), options)


def _histories() -> dict[str, list[Any]]:
    sys.path.insert(0, str(BENCH))
    try:
        plain_history = importlib.import_module("plain_history")
        workloads = importlib.import_module("workloads")
    finally:
        sys.path.remove(str(BENCH))
    return {
        "plain": plain_history.build_plain_history(300),
        "rich": workloads.build_history(300),
    }


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_benchmark_histories(kind: str) -> None:
    conversation = parse({"messages": _histories()[kind]}, "Conversation")
    assert isinstance(conversation, Conversation)
    for options in OPTIONS[:3]:
        both_walks(conversation, options)


ID = st.sampled_from(["call_1", "call_2", "call 3", "tooluse_4"])  # "call 3": a wire id
TEXT = st.sampled_from(["", " ", "\n", "Hi", "é日😀"])
CALL = st.fixed_dictionaries(
    {"id": ID, "name": st.sampled_from(["search", "run"]), "arguments": st.just({"q": 1})},
    optional={
        "index": st.integers(0, 2),
        "extras": st.sampled_from([{}, {"bedrock_converse": {"type": "tool_use"}}]),
    },
)
MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.just("user"), "content": TEXT | st.just([{"type": "text", "text": "b"}])},
        optional={"extras": st.just({"bedrock_converse": {"new_message": True}})},
    ),
    st.fixed_dictionaries(
        {"role": st.just("assistant"), "content": TEXT},
        optional={
            "tool_calls": st.lists(CALL, max_size=2),
            "extras": st.just({"bedrock_converse": {"new_message": True}}),
        },
    ),
    st.fixed_dictionaries(
        {"role": st.just("tool"), "tool_call_id": ID, "content": TEXT},
        optional={
            "status": st.sampled_from(["success", "error"]),
            "extras": st.just({"bedrock_converse": {"status": "success"}}),
        },
    ),
    st.fixed_dictionaries({"role": st.just("system"), "content": TEXT}),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MESSAGE, min_size=1, max_size=8), st.sampled_from(OPTIONS))
def test_generated_histories(messages: list[dict[str, Any]], options: dict[str, Any]) -> None:
    conversation = parse(
        {"messages": messages, "tools": [{"name": "search", "parameters": {}}]}, "Conversation"
    )
    both_walks(conversation, options)
