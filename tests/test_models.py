"""The generated models with their handwritten bases: construction, tags, strictness."""

from __future__ import annotations

import json

import pytest

import chatschema
from chatschema import (
    AssistantMessage,
    CacheControl,
    ImageBlock,
    TextBlock,
    ToolCall,
    ToolMessage,
    UserMessage,
)


def test_constructors_fill_in_the_tag_and_the_canonical_dump_keeps_it() -> None:
    block = TextBlock(text="hi")
    assert block.type == "text"
    assert chatschema.to_dict(block) == {"type": "text", "text": "hi"}
    message = UserMessage(content=[block])
    assert chatschema.to_dict(message) == {
        "role": "user",
        "content": [{"type": "text", "text": "hi"}],
    }
    assert chatschema.to_dict(CacheControl()) == {"type": "ephemeral"}


def test_absent_stays_absent_and_defaults_are_not_dumped() -> None:
    reply = AssistantMessage()
    assert reply.content == "" and reply.tool_calls == [] and reply.usage is None
    assert chatschema.to_dict(reply) == {"role": "assistant"}
    assert json.loads(chatschema.to_json(reply)) == {"role": "assistant"}


def test_list_defaults_are_not_shared() -> None:
    first, second = AssistantMessage(), AssistantMessage()
    first.tool_calls.append(ToolCall(id="c1", name="f", arguments={}))
    assert second.tool_calls == []


def test_parsing_does_not_run_the_constructor() -> None:
    # The bases' __init__ is marked as Pydantic's own, so validation builds
    # instances directly (a custom __init__ would cost a Python call per object).
    for model in (TextBlock, UserMessage, AssistantMessage, ImageBlock, CacheControl):
        assert model.__pydantic_custom_init__ is False


def test_models_are_strict_like_the_schema() -> None:
    with pytest.raises(chatschema.ValidationError) as raised:
        chatschema.parse(
            {
                "role": "assistant",
                "usage": {"input_tokens": "1", "output_tokens": 1, "total_tokens": 2},
            }
        )
    assert [(p.pointer, p.keyword) for p in raised.value.problems] == [
        ("/usage/input_tokens", "type")
    ]
    with pytest.raises(chatschema.ValidationError):
        chatschema.parse({"role": "user", "content": "hi", "id": None})
    with pytest.raises(chatschema.ValidationError):
        chatschema.parse('{"role": "tool", "tool_call_id": "c1", "status": "ok"}')


def test_null_is_a_value_where_the_schema_allows_any_json() -> None:
    message = chatschema.parse_message({"role": "tool", "tool_call_id": "c1", "artifact": None})
    assert isinstance(message, ToolMessage)
    assert chatschema.to_dict(message) == {"role": "tool", "tool_call_id": "c1", "artifact": None}


def test_data_blocks_need_a_source_and_base64_needs_a_mime_type() -> None:
    with pytest.raises(Exception, match="needs one of the sources url, base64, file_id"):
        ImageBlock()
    with pytest.raises(Exception, match="requires `mime_type`"):
        ImageBlock(base64="iVBORw0KGgo=")
    assert ImageBlock(base64="iVBORw0KGgo=", mime_type="image/png").mime_type == "image/png"
    assert chatschema.PlainTextBlock(text="notes").text == "notes"


def test_builders() -> None:
    messages = [
        chatschema.system("Be brief."),
        chatschema.user(["What is this?", chatschema.image(url="https://example.com/a.png")]),
        chatschema.assistant(
            tool_calls=[chatschema.tool_call("lookup", {"q": "a.png"}, id="call_1")]
        ),
        chatschema.tool_result("a cat", tool_call_id="call_1"),
        chatschema.tool_result("boom", tool_call_id="call_2", status="error"),
    ]
    assert [chatschema.to_dict(m) for m in messages] == [
        {"role": "system", "content": "Be brief."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is this?"},
                {"type": "image", "url": "https://example.com/a.png"},
            ],
        },
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [{"id": "call_1", "name": "lookup", "arguments": {"q": "a.png"}}],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "a cat"},
        {"role": "tool", "tool_call_id": "call_2", "content": "boom", "status": "error"},
    ]
    for message in messages:
        chatschema.validate(message)


def test_parse_accepts_text_bytes_dicts_and_models() -> None:
    document = {"role": "user", "content": [{"type": "text", "text": "hi"}]}
    text = json.dumps(document)
    for data in (document, text, text.encode(), bytearray(text.encode())):
        assert chatschema.to_dict(chatschema.parse_message(data)) == document
    model = chatschema.parse_message(document)
    assert chatschema.parse_message(model) == model
    messages = chatschema.parse_messages(json.dumps([document, {"role": "assistant"}]))
    assert [type(m).__name__ for m in messages] == ["UserMessage", "AssistantMessage"]
    conversation = chatschema.parse_conversation({"messages": [document]})
    assert conversation.messages == [model]
    assert chatschema.parse(document, UserMessage) == model


def test_unknown_type_names_are_rejected_clearly() -> None:
    with pytest.raises(ValueError, match="unknown type 'Mesage'"):
        chatschema.validate({}, "Mesage")
    with pytest.raises(ValueError, match="unknown type"):
        chatschema.parse({}, "Nope")


def test_every_generated_name_is_public() -> None:
    import chatschema_models

    for name in chatschema_models.__all__:
        assert getattr(chatschema, name) is getattr(chatschema_models, name)
        assert name in chatschema.__all__


def test_repr_hides_opaque_data_and_shortens_base64() -> None:
    block = chatschema.ReasoningBlock(
        text="thinking", signature="SECRET-SIGNATURE", encrypted_content="SECRET-BLOB"
    )
    shown = repr(block)
    assert "SECRET" not in shown and "<opaque, 16 characters>" in shown
    assert "thinking" in shown and "None" not in shown
    image = ImageBlock(base64="A" * 10_000, mime_type="image/png")
    assert len(repr(image)) < 200 and "(10000 characters)" in repr(image)
    message = chatschema.assistant([block])
    assert "SECRET" not in repr(message) and "SECRET" not in str(message)


def test_repr_hides_opaque_values_inside_provider_data() -> None:
    call = ToolCall(
        id="c",
        name="f",
        arguments={},
        extras={"gemini": {"thought_signature": "SECRET-SIG", "other": 1}},
    )
    block = chatschema.NonStandardBlock(
        value={"type": "web_search_result", "encrypted_content": "SECRET-PAGE", "url": "u"}
    )
    for shown in (repr(call), repr(block), repr(chatschema.assistant([block], tool_calls=[call]))):
        assert "SECRET" not in shown and "<opaque, " in shown
    assert "'other': 1" in repr(call) and "'url': 'u'" in repr(block)


# ------------------------------------------------------------- unsetting a field


def test_none_unsets_an_optional_field_and_to_dict_never_writes_null() -> None:
    settings = chatschema.GenerationSettings(temperature=0.5)
    conversation = chatschema.Conversation(messages=[], settings=None, id=None)
    assert chatschema.to_dict(conversation) == {"messages": []}  # the constructor: absent
    conversation = chatschema.Conversation(messages=[], settings=settings, id="c1")
    conversation.settings = None  # assignment: unset, never "settings": null
    assert conversation.settings is None
    assert chatschema.to_dict(conversation) == {"messages": [], "id": "c1"}
    assert chatschema.is_valid(chatschema.to_dict(conversation), "Conversation")
    copy = conversation.model_copy(update={"id": None, "metadata": {"k": 1}})
    assert chatschema.to_dict(copy) == {"messages": [], "metadata": {"k": 1}}
    assert chatschema.to_dict(conversation) == {"messages": [], "id": "c1"}  # untouched
    del conversation.id
    assert conversation.id is None and chatschema.to_dict(conversation) == {"messages": []}
    del conversation.id  # unsetting what is absent is fine
    assert json.loads(chatschema.to_json(conversation)) == {"messages": []}


def test_null_stays_a_value_where_the_schema_allows_it() -> None:
    message = ToolMessage(tool_call_id="c1", content="done", artifact=None)
    assert chatschema.to_dict(message)["artifact"] is None
    del message.artifact
    assert "artifact" not in chatschema.to_dict(message)


def test_a_required_field_cannot_be_unset() -> None:
    message = UserMessage(content="hi")
    with pytest.raises(chatschema.ValidationError) as raised:
        del message.content
    assert [str(problem) for problem in raised.value.problems] == [
        "/content: 'content' is required: it cannot be unset [required]"
    ]
    with pytest.raises(chatschema.ValidationError, match="/content"):
        UserMessage(content=None)
    assert message.content == "hi"
    with pytest.raises(chatschema.OptionError, match="update must be a mapping"):
        message.model_copy(update=5)  # type: ignore[arg-type]


def test_parsing_still_refuses_null_where_the_schema_does() -> None:
    with pytest.raises(chatschema.ValidationError) as raised:
        chatschema.parse_conversation({"messages": [], "settings": None})
    assert [p.pointer for p in raised.value.problems] == ["/settings"]


# --------------------------------------------------------- small surprises (parse)


def test_parse_skips_a_utf8_byte_order_mark() -> None:
    text = '\ufeff{"role": "user", "content": "hi"}'
    expected = {"role": "user", "content": "hi"}
    for data in (text, text.encode("utf-8"), bytearray(text.encode("utf-8"))):
        assert chatschema.to_dict(chatschema.parse_message(data)) == expected
    assert chatschema.parse_messages("\ufeff[]") == []
    assert chatschema.parse_conversation(b'\xef\xbb\xbf{"messages": []}').messages == []
    assert chatschema.to_dict(
        chatschema.parse("\ufeff" + '{"type": "text", "text": "x"}', "TextBlock")
    )


def test_validate_given_json_text_says_to_parse_it() -> None:
    text = '{"role": "user", "content": "hi"}'
    with pytest.raises(chatschema.SchemaValidationError) as raised:
        chatschema.validate(text)
    (problem,) = raised.value.problems
    assert (problem.pointer, problem.keyword) == ("", "type")
    assert "not JSON text" in problem.message and "parse(text, type)" in problem.message
    chatschema.validate(json.loads(text))  # the parsed value is valid
    chatschema.validate("https://example.com/a.png", "Url")  # a string type takes a str
    assert chatschema.schema_problems(json.loads(text)) == []


def test_schema_problems_is_public() -> None:
    from chatschema.validation import schema_problems

    assert chatschema.schema_problems is schema_problems
    assert "schema_problems" in chatschema.__all__
    problems = chatschema.schema_problems({"role": "user"})
    assert [(p.pointer, p.keyword) for p in problems] == [("/content", "required")]
