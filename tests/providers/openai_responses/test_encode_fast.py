"""The fast path of Responses ``encode`` and ``check``, held to the general path.

The encoder writes the common shapes (string content, tool calls without extras or
wire positions, no extras of the format) itself, pairs tool calls with their
outputs in the same walk and looks at only the general path's items for the item
rules (ids, reasoning); with ``_FAST`` off every message takes the general path and
check pairs the calls in a walk of its own. Both must give the same request, the
same error and the same problems on every input: the request payloads of the
decode tests, every request seed of every format (decoded), every conformance
fixture, the neutral histories of the encode tests, and generated histories (the
inputs and comparison of ``openai_chat/test_encode_fast.py``).
"""

from __future__ import annotations

import importlib
from typing import Any

import hostile as H
import pytest
from hypothesis import HealthCheck, given, settings

import chatschema
from chatschema import Conversation
from chatschema.providers import ProviderName, get_codec
from providers.openai_chat.test_encode_fast import (
    DECODED,
    FIXTURES,
    HISTORIES,
    assert_same_paths,
    general_path,
)
from providers.openai_responses.helpers import PAYLOADS
from providers.openai_responses.test_encode import NEUTRAL

NAME: ProviderName = "openai_responses"
ENCODE = importlib.import_module("chatschema.providers.openai_responses.encode")


def test_the_switch_reaches_the_general_path() -> None:
    """Off, the encoder really walks the general path (this test module is not vacuous)."""
    history = [chatschema.system("be brief"), chatschema.user("hi"), chatschema.assistant("yo")]
    options = ENCODE.Options.resolve(NAME, {})
    assert ENCODE._Encoder(options, collect=True).fast
    with general_path(ENCODE):
        encoder = ENCODE._Encoder(options, collect=True)
        assert not encoder.fast
        assert encoder.pairing is None
        assert get_codec(NAME).encode(history) == {
            "instructions": "be brief",
            "input": [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": "yo"},
            ],
        }


@pytest.mark.parametrize("payload", list(PAYLOADS.values()), ids=list(PAYLOADS))
def test_wire_payloads(payload: dict[str, Any]) -> None:
    assert_same_paths(ENCODE, NAME, get_codec(NAME).decode_conversation(payload))


@pytest.mark.parametrize("document", list(NEUTRAL.values()), ids=list(NEUTRAL))
def test_neutral_histories_of_the_encode_tests(document: dict[str, Any]) -> None:
    assert_same_paths(ENCODE, NAME, chatschema.parse(document, "Conversation"))


@pytest.mark.parametrize(("name", "conversation"), DECODED, ids=[name for name, _ in DECODED])
def test_request_seeds_of_every_format(name: str, conversation: Any) -> None:
    assert_same_paths(ENCODE, NAME, H.conversation_of(conversation))


@pytest.mark.parametrize("conversation", FIXTURES, ids=[str(i) for i in range(len(FIXTURES))])
def test_conformance_fixtures(conversation: Conversation) -> None:
    assert_same_paths(ENCODE, NAME, conversation)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(HISTORIES)
def test_generated_histories(history: list[Any]) -> None:
    assert_same_paths(ENCODE, NAME, history)


@pytest.mark.parametrize(("where", "messages"), H.FOREIGN_AT)
def test_foreign_extras_are_found_wherever_they_sit(where: str, messages: list[Any]) -> None:
    """The fast walk tells the foreign-extras check which messages to read."""
    history = chatschema.parse({"messages": messages}, "Conversation")
    assert [p.pointer for p in get_codec(NAME).check(history)] == [where]
    assert_same_paths(ENCODE, NAME, history)
