"""The fast walk of the Interactions encoder, held to the general walk it stands in for.

``encode`` and ``check`` write the common shapes (string content, tool calls and
results without extras) inline, and only note whether the pairing rule has anything to
report and which messages may carry extras (``fast.fast_steps``). Each input here is
encoded with that walk on and off (``encode.FAST``): the same bytes out, the same
error, the same problems, in the same order. The inputs: the shared request seeds
(decoded), every conformance fixture, the benchmark histories, and generated
histories that mix the common shapes with the ones that leave the fast walk (extras
of this format and of others, positions, invalid calls, orphan and duplicate ids,
late system messages ...).
"""

from __future__ import annotations

import importlib
import json
from typing import Any

import hostile as H
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatschema import Conversation, parse
from chatschema.providers import gemini_interactions as codec
from providers.gemini.test_encode_fast import _histories, outcome

ENCODE = importlib.import_module("chatschema.providers.gemini_interactions.encode")

OPTIONS: list[dict[str, Any]] = [
    {},
    {"check": False},
    {"unsupported": "drop"},
    {"unsupported": "placeholder", "check": False},
    {"request": False},
    {"reasoning": "text", "vision": False, "unsupported": "placeholder"},
]


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


CASES = [
    *H.decoded_request_seeds("gemini_interactions"),
    *[(f"fixture/{number}", document) for number, document in enumerate(H.CONVERSATIONS)],
]


def test_the_fast_walk_is_on_by_default() -> None:
    assert ENCODE.FAST is True


@pytest.mark.parametrize("options", OPTIONS, ids=[json.dumps(o) for o in OPTIONS])
@pytest.mark.parametrize(("name", "conversation"), CASES, ids=[name for name, _ in CASES])
def test_recorded_shapes(name: str, conversation: Any, options: dict[str, Any]) -> None:
    both_walks(H.conversation_of(conversation), options)


@pytest.mark.parametrize("kind", ["plain", "rich"])
def test_benchmark_histories(kind: str) -> None:
    conversation = parse({"messages": _histories()[kind]}, "Conversation")
    assert isinstance(conversation, Conversation)
    for options in OPTIONS[:3]:
        both_walks(conversation, options)
    if kind == "plain":
        # the fast walk took it without a pairing walk; only the leading system
        # messages (written before it) and the messages with an image (a list of
        # blocks) are left to the foreign-extras check
        encoder = ENCODE._Encoder(codec_options(), collect=True)
        encoder.request(conversation)
        assert encoder.paired and not encoder.problems
        general = encoder.general
        assert general is not None
        messages = conversation.messages
        leading = next(i for i, message in enumerate(messages) if message.role != "system")
        assert general[:leading] == list(range(leading))
        assert all(not isinstance(messages[i].content, str) for i in general[leading:])


@pytest.mark.parametrize(("where", "messages"), H.FOREIGN_AT)
def test_foreign_extras_are_found_wherever_they_sit(where: str, messages: list[Any]) -> None:
    """The fast walk tells the foreign-extras check which messages to read."""
    history = messages
    assert [p.pointer for p in codec.check(history)] == [where]
    for options in OPTIONS:
        both_walks(history, options)


def codec_options() -> Any:
    """The resolved default options of this format."""
    from chatschema.providers._common import Options

    return Options.resolve("gemini_interactions", {})


# ------------------------------------------------------------ generated histories

ID = st.sampled_from(["call_1", "call_2", "call_3"])  # few ids: they collide
TEXT = st.sampled_from(["", " ", "Hi", "é日😀"])
EXTRAS = st.sampled_from(
    [
        None,
        {},
        {"anthropic": {"x": 1}},  # another format's: the foreign-extras rule
        {"gemini_interactions": {"step": {"signature": "c2ln"}}},
        {"gemini_interactions": {"no_content": True}},
        {"gemini": {"thought_signature": "c2ln"}},
        {"mcp": {"_meta": {"k": 1}}},
    ]
)
BLOCKS = st.lists(
    st.one_of(
        TEXT.map(lambda text: {"type": "text", "text": text}),
        st.just({"type": "image", "url": "https://example.com/a.png"}),
        st.just(
            {
                "type": "reasoning",
                "text": "hm",
                "signature": "c2ln",
                "provider": "gemini_interactions",
            }
        ),
        st.just({"type": "text", "text": "x", "extras": {"openai_chat": {"annotations": []}}}),
    ),
    max_size=3,
)
CONTENT = TEXT | BLOCKS
CALL = st.fixed_dictionaries(
    {"id": ID, "name": st.sampled_from(["search", "run"]), "arguments": st.just({"q": 1})},
    optional={"index": st.integers(0, 2), "extras": EXTRAS},
)
MESSAGE = st.one_of(
    st.fixed_dictionaries(
        {"role": st.just("user"), "content": CONTENT}, optional={"extras": EXTRAS}
    ),
    st.fixed_dictionaries(
        {"role": st.just("assistant"), "content": CONTENT},
        optional={
            "tool_calls": st.lists(CALL, max_size=2),
            "invalid_tool_calls": st.just([{"id": "bad_1", "name": "run", "error": "no json"}]),
            "extras": EXTRAS,
        },
    ),
    st.fixed_dictionaries(
        {"role": st.just("tool"), "tool_call_id": ID, "content": CONTENT},
        optional={"status": st.sampled_from(["success", "error"]), "extras": EXTRAS},
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
@given(histories(), st.sampled_from(OPTIONS))
def test_generated_histories(messages: list[dict[str, Any]], options: dict[str, Any]) -> None:
    both_walks(messages, options)
