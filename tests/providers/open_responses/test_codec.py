"""The Open Responses codec: what the specification adds to the Responses wire object.

Oracles: the openai SDK's request types for the shared object and the specification's
shapes for the additions (``tests/oracle.py``, :mod:`.spec`), the published OpenAPI
document when its recording is present, and exact round trips.
"""

from __future__ import annotations

import copy
from typing import Any

import hostile as H
import pytest
from oracle import validate_request

from chatschema import (
    CompactionBlock,
    ReasoningBlock,
    TextBlock,
    ToolCall,
    UnsupportedContentError,
    VideoBlock,
    assistant,
    convert,
    to_dict,
    tool_result,
    user,
)
from chatschema.errors import ConversionError
from chatschema.providers import PROVIDERS, get_codec
from chatschema.providers import open_responses as O
from chatschema.providers import openai_responses as R

from .spec import validate_component

VIDEO = {"type": "input_video", "video_url": "https://example.com/a.mp4"}
REQUEST: dict[str, Any] = H._handwritten_requests()["open_responses"][0]


def test_the_additions_decode_to_their_blocks() -> None:
    conversation = O.decode_conversation(REQUEST)
    _, turn, result = conversation.messages
    compaction, reasoning, text, prefixed = turn.content
    assert isinstance(compaction, CompactionBlock)
    assert (compaction.id, compaction.encrypted_content, compaction.provider) == (
        "cmp_1",
        H.ENCRYPTED,
        "open_responses",
    )
    assert isinstance(reasoning, ReasoningBlock)
    assert (reasoning.text, reasoning.summary, reasoning.provider) == (
        None,
        ["A clip."],
        "open_responses",
    )
    assert reasoning.encrypted_content == H.ENCRYPTED
    assert isinstance(text, TextBlock)
    assert text.extras["open_responses"]["item"]["phase"] == "commentary"
    assert prefixed.value["type"] == "openai:web_search_call"
    assert result.content == [VideoBlock(base64="AAAA", mime_type="video/mp4")]
    assert "openai_responses" not in str(to_dict(conversation))


def test_the_request_round_trips_exactly_and_validates() -> None:
    encoded = O.encode(O.decode_conversation(REQUEST))
    assert encoded == REQUEST
    assert list(encoded["input"][4]) == list(REQUEST["input"][4])  # (key order)
    validate_request("open_responses", encoded)


def _history(reasoning_text: str | None = None) -> list[Any]:
    return [
        user("Watch."),
        assistant(
            [
                CompactionBlock(encrypted_content="e1", provider="open_responses"),
                ReasoningBlock(
                    text=reasoning_text, summary=["S"], id="rs_9", provider="open_responses"
                ),
                TextBlock(text="Done."),
            ],
            tool_calls=[ToolCall(id="call_1", name="clip", arguments={})],
        ),
        tool_result([VideoBlock(base64="AAAA", mime_type="video/webm")], tool_call_id="call_1"),
    ]


def test_built_blocks_encode_in_the_specification_shapes() -> None:
    encoded = O.encode(_history())
    validate_request("open_responses", encoded)
    validate_component("CreateResponseBody", encoded)
    items = encoded["input"]
    assert items[1] == {"type": "compaction", "encrypted_content": "e1"}
    assert "content" not in items[2]
    assert items[2]["summary"] == [{"type": "summary_text", "text": "S"}]
    assert items[-1]["output"] == [
        {"type": "input_video", "video_url": "data:video/webm;base64,AAAA"}
    ]


def test_a_user_message_video_is_refused_with_its_place() -> None:
    """The document's user content has no ``input_video`` (only tool outputs have it)."""
    history = [user(["Watch:", VideoBlock(url="https://example.com/a.mp4")])]
    with pytest.raises(UnsupportedContentError) as raised:
        O.encode(history)
    assert [p.pointer for p in raised.value.problems] == ["/messages/0/content/1"]
    assert "video" in raised.value.problems[0].message
    dropped = O.encode(history, unsupported="drop")
    assert dropped["input"][0]["content"] == [{"type": "input_text", "text": "Watch:"}]
    validate_component("CreateResponseBody", dropped)
    # read as it came, leniently: a video block
    part = {"type": "input_video", "video_url": "https://example.com/b.mp4"}
    [message] = O.decode_conversation({"input": [{"role": "user", "content": [part]}]}).messages
    assert message.content == [VideoBlock(url="https://example.com/b.mp4")]


def test_replayed_reasoning_goes_in_the_request_form_without_its_text() -> None:
    """A request's reasoning item has no ``content`` (ReasoningItemParam): a replayed
    item goes with its id and summary, the raw text it showed left out, so an agent
    loop's next request is one the specification accepts."""
    history = _history("Hm.")
    assert O.check(history) == []
    encoded = O.encode(history)
    validate_component("CreateResponseBody", encoded)
    assert encoded == O.encode(_history())
    for policy in ("drop", "placeholder"):
        assert O.encode(history, unsupported=policy) == encoded
    assert O.check(history, reasoning="drop") == []
    assert all(i.get("type") != "reasoning" for i in O.encode(history, reasoning="drop")["input"])
    # a response's reasoning (content and all) as the next request's history
    said = assistant([ReasoningBlock(text="T.", id="rs_1"), TextBlock(text="Hi.", id="msg_1")])
    turn = O.decode_response(O.encode_response(said, id_seed="r"))
    assert O.check([user("Hi"), turn]) == []
    request = O.encode([user("Hi"), turn])
    validate_component("CreateResponseBody", request)
    assert request["input"][1] == {"id": "rs_1", "type": "reasoning", "summary": []}


def test_a_compaction_item_keeps_its_other_keys() -> None:
    item = {"type": "compaction", "created_by": "server", "id": "cmp_2", "encrypted_content": "x"}
    request = {"input": [{"type": "message", "role": "user", "content": "Hi"}, item]}
    conversation = O.decode_conversation(request)
    block = conversation.messages[1].content[0]
    assert isinstance(block, CompactionBlock) and block.encrypted_content == "x"
    encoded = O.encode(conversation)
    assert encoded == request and list(encoded["input"][1]) == list(item)


def test_errors_name_this_format() -> None:
    with pytest.raises(ConversionError) as raised:
        O.decode_conversation({"input": [{"type": "function_call", "name": "f"}]})
    assert raised.value.provider == "open_responses"
    assert str(raised.value).startswith("open_responses, message 0")
    with pytest.raises(UnsupportedContentError) as refused:
        O.encode([user([VideoBlock(file_id="file_1")])])
    assert refused.value.provider == "open_responses"
    assert "openai_responses" not in str(refused.value)
    [problem] = O.check([user([VideoBlock(file_id="file_1")])])
    assert problem.pointer == "/messages/0/content/0"
    assert "open_responses" in problem.message and "openai_responses" not in problem.message


def test_openai_responses_histories_carry_over_whole() -> None:
    """The same wire object: a Responses history comes across item for item."""
    request = copy.deepcopy(H._handwritten_requests()["openai_responses"][0])
    # (message items in the document's form: with their `type`)
    typed = [
        {"type": "message", **item} if "role" in item and "type" not in item else item
        for item in request["input"]
    ]
    assert any(item is not old for item, old in zip(typed, request["input"], strict=True))
    expected = {**request, "input": typed}
    assert convert(request, source="openai_responses", target="open_responses") == expected
    validate_component("CreateResponseBody", expected)
    # the other way, this format's values are another format's to the Responses codec:
    # refused with their places (dropped on request), never silently
    with pytest.raises(UnsupportedContentError) as raised:
        convert(REQUEST, source="open_responses", target="openai_responses")
    pointers = {p.pointer for p in raised.value.problems}
    assert "/messages/2/content/0" in pointers  # the video
    back = convert(REQUEST, source="open_responses", target="openai_responses", unsupported="drop")
    validate_request("openai_responses", back)


def test_foreign_extras_of_both_names_stay_apart() -> None:
    """Extras of both formats on one value: this format's are written, the others refused."""
    block = TextBlock(text="Hi", extras={"open_responses": {"x": 1}, "openai_responses": {"y": 2}})
    problems = O.check([user([block])])
    assert [(p.pointer, p.keyword) for p in problems] == [
        ("/messages/0/content/0/extras/openai_responses/y", "foreign_extras")
    ]


@pytest.mark.parametrize("target", [t for t in PROVIDERS if t != "open_responses"])
def test_convert_to_every_format_succeeds_or_refuses_with_a_place(target: str) -> None:
    try:
        convert(REQUEST, source="open_responses", target=target)
    except UnsupportedContentError as error:
        assert error.problems and all(p.pointer.startswith("/") for p in error.problems)
        assert error.message_index is not None


@pytest.mark.parametrize("source", [s for s in PROVIDERS if s != "open_responses"])
def test_convert_from_every_format_succeeds_or_refuses_with_a_place(source: str) -> None:
    for seed in H.request_seeds(source)[:4]:
        try:
            encoded = convert(seed, source=source, target="open_responses", check=False)
        except UnsupportedContentError as error:
            assert all(p.pointer.startswith("/") for p in error.problems)
            continue
        validate_request("open_responses", encoded)


def test_the_request_is_a_create_response_body_of_the_openapi_document() -> None:
    validate_component("CreateResponseBody", O.encode(O.decode_conversation(REQUEST)))


def test_the_shared_codec_is_untouched_by_the_additions() -> None:
    """The Responses codec keeps reading the additions as items and parts it does not know."""
    conversation = R.decode_conversation(REQUEST)
    assert not any(isinstance(b, VideoBlock) for b in conversation.messages[0].content)
    assert get_codec("open_responses") is O


def test_message_items_say_their_type() -> None:
    """The document's message items require ``"type": "message"``: always written, and
    read as the short form is (nothing kept to say it was there)."""
    typed = {"input": [{"type": "message", "role": "user", "content": "Hi"}]}
    short = {"input": [{"role": "user", "content": "Hi"}]}
    conversation = O.decode_conversation(typed)
    assert to_dict(conversation) == to_dict(O.decode_conversation(short))
    assert O.encode(conversation) == typed == O.encode(O.decode_conversation(short))
    validate_component("CreateResponseBody", typed)
    with pytest.raises(AssertionError):
        validate_component("CreateResponseBody", short)
