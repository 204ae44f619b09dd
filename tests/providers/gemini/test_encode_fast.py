"""The fast walk of the Gemini encoder, held to the general walk it stands in for.

``encode`` and ``check`` write the common shapes (string content, tool calls and
results without extras) inline, and only test whether the pairing and turn-order
rules have anything to report (``fast.fast_contents``). Each input here is
encoded with that walk on and off (``encode.FAST``): the same bytes out, the same
error, the same problems, in the same order. The inputs: every request of the
codec's tests and of the shared seeds (the recorded history among them), every
conformance fixture, the benchmark histories, and generated histories that mix
the common shapes with the ones that leave the fast walk (extras, positions,
joins, unnamed orphan results, turns out of order ...).
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

import hostile as H
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatschema import Conversation, parse
from chatschema.errors import ChatSchemaError
from chatschema.providers import gemini as codec
from providers.gemini.test_encode import CHECKS, LOSSY, NEUTRAL, VISION_OFF

ENCODE = importlib.import_module("chatschema.providers.gemini.encode")
BENCH = H.ROOT / "bench"

OPTIONS: list[dict[str, Any]] = [
    {},
    {"check": False},
    {"unsupported": "drop"},
    {"unsupported": "placeholder", "check": False},
    {"vision": False, "unsupported": "placeholder"},
    {"reasoning": "text"},
    {"reasoning": "drop", "unsupported": "drop", "check": False},
    {"content_format": "string", "unsupported": "placeholder"},
    {"native_tools": False},
]


def outcome(verb: Any, conversation: Any, options: dict[str, Any]) -> Any:
    """What a verb gives: the payload as JSON text (key order counts), or the error."""
    try:
        result = verb(conversation, **options)
    except ChatSchemaError as error:
        problems = [(p.pointer, p.keyword, p.message) for p in getattr(error, "problems", [])]
        where = (getattr(error, "message_index", None), getattr(error, "block_index", None))
        return ("error", type(error).__name__, str(error), where, problems)
    if isinstance(result, list):  # check: the problems
        return [(p.pointer, p.keyword, p.message) for p in result]
    return json.dumps(result, ensure_ascii=False, default=repr)


def both_walks(conversation: Any, options: dict[str, Any]) -> None:
    """encode and check give the same with the fast walk on and off."""
    for verb in (codec.encode, codec.check):
        fast = outcome(verb, conversation, options)
        ENCODE.FAST = False
        try:
            general = outcome(verb, conversation, options)
        finally:
            ENCODE.FAST = True
        assert fast == general, (verb.__name__, options)


def _conversations() -> list[tuple[str, Any]]:
    """Every conversation the codec's tests and the shared seeds hold."""
    cases: list[tuple[str, Any]] = []
    for name, (document, payload) in NEUTRAL.items():
        cases.append((f"neutral/{name}", document))
        cases.append((f"wire/{name}", codec.decode_conversation(payload)))
    cases += [(f"lossy/{name}", messages) for name, (messages, _, _) in LOSSY.items()]
    cases += [(f"checks/{name}", messages) for name, (messages, _) in CHECKS.items()]
    cases.append(("vision_off", VISION_OFF))
    cases += H.decoded_request_seeds("gemini")
    cases += [(f"fixture/{number}", document) for number, document in enumerate(H.CONVERSATIONS)]
    return cases


CASES = _conversations()


def test_the_fast_walk_is_on_by_default() -> None:
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
    # the fast walk took the plain one without a walk of the rules of their own
    if kind == "plain":
        encoder = ENCODE._Encoder.run(conversation, {}, collect=True)
        assert encoder.paired and encoder.ordered and not encoder.problems


# ------------------------------------------------------------ generated histories

ID = st.sampled_from(["call_1", "call_2", "call_3", "call_4"])  # few ids: they collide
TEXT = st.sampled_from(["", " ", "Hi", "Look at this.", "é日😀"])
OTHER = st.sampled_from([None, {}, {"anthropic": {"x": 1}}])


def extras(*gemini: dict[str, Any]) -> st.SearchStrategy[Any]:
    """No extras, another format's, or one of the given Gemini ones."""
    return OTHER | st.sampled_from([{"gemini": value} for value in gemini])


BLOCKS = st.lists(
    st.one_of(
        TEXT.map(lambda text: {"type": "text", "text": text}),
        st.just({"type": "image", "url": "https://example.com/a.png"}),
        st.just({"type": "reasoning", "text": "hm", "signature": "c2ln", "provider": "gemini"}),
        st.just({"type": "reasoning", "text": "hm", "provider": "anthropic"}),
        st.just({"type": "refusal", "text": "no"}),
    ),
    max_size=3,
)
CONTENT = TEXT | BLOCKS
CALL = st.fixed_dictionaries(
    {"id": ID, "name": st.sampled_from(["search", "run"]), "arguments": st.just({"q": 1})},
    optional={
        "index": st.integers(0, 2),
        "extras": extras(
            {"synthesized_id": True},
            {"id": "fc_9"},
            {"thought_signature": "c2ln"},
            {"function_call": {"will_continue": True}},
        ),
    },
)
MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.just("user"), "content": CONTENT},
        optional={"extras": extras({"join": True}, {"role": "model"})},
    ),
    st.fixed_dictionaries(
        {"role": st.just("assistant"), "content": CONTENT},
        optional={
            "tool_calls": st.lists(CALL, max_size=2),
            "invalid_tool_calls": st.just([{"id": "bad_1", "name": "run", "error": "no json"}]),
            "extras": extras({"join": True}),
            "provider": st.sampled_from(["gemini", "anthropic"]),
        },
    ),
    st.fixed_dictionaries(
        {"role": st.just("tool"), "tool_call_id": ID, "content": CONTENT},
        optional={
            "status": st.sampled_from(["success", "error"]),
            "name": st.sampled_from(["search", "other"]),
            "extras": extras(
                {"id_absent": True},
                {"synthesized_id": True},
                {"response": {"output": "Hi"}},
                {"join": False},
            ),
        },
    ),
    st.fixed_dictionaries({"role": st.just("system"), "content": TEXT}),
)


@st.composite
def histories(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Mostly well-formed agent turns (answered calls), with odd messages among them."""
    messages: list[dict[str, Any]] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(TEXT)})
    for _ in range(draw(st.integers(1, 6))):
        if draw(st.integers(0, 3)) == 0:
            messages.append(draw(MESSAGE))
            continue
        messages.append({"role": "user", "content": draw(TEXT)})
        calls = draw(st.lists(CALL, max_size=3))
        messages.append({"role": "assistant", "content": draw(TEXT), "tool_calls": calls})
        for call in calls:
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": draw(TEXT)})
    return messages


@settings(
    max_examples=H.examples(300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(histories(), st.sampled_from(OPTIONS[:7]))
def test_generated_histories(messages: list[dict[str, Any]], options: dict[str, Any]) -> None:
    both_walks(messages, options)


@pytest.mark.parametrize(("where", "messages"), H.FOREIGN_AT)
def test_foreign_extras_are_found_wherever_they_sit(where: str, messages: list[Any]) -> None:
    """The fast walk tells the foreign-extras check which messages to read."""
    assert [p.pointer for p in codec.check(messages)] == [where]
    for options in OPTIONS[:3]:
        both_walks(messages, options)
