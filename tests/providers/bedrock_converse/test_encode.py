"""Bedrock Converse encode and check: every output validated by botocore's service model."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from chatschema_models.conversation import (
    GenerationSettings,
    JsonObjectResponseFormat,
    JsonSchemaResponseFormat,
)
from chatschema_models.tool import (
    AllowedToolsChoice,
    AutoToolChoice,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
)
from oracle import validate_request

from chatschema import (
    AssistantMessage,
    CacheControl,
    Conversation,
    ConversionError,
    FileBlock,
    ImageBlock,
    PlainTextBlock,
    ReasoningBlock,
    SystemMessage,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
)
from chatschema.cli import main
from chatschema.errors import OptionError
from chatschema.providers import bedrock_converse as codec
from chatschema.providers import convert, get_codec
from providers.bedrock_converse.helpers import PDF, PNG, SIG, WEATHER, enc, load

WEATHER_TOOL = ToolDefinition(name="get_weather", description="Weather.", parameters=WEATHER)


def agent(**more: Any) -> Conversation:
    """A short agent turn: system, user with an image, a call, its result, an answer."""
    return Conversation(
        messages=[
            SystemMessage(content="Be brief."),
            UserMessage(
                content=[
                    TextBlock(text="Weather here?"),
                    ImageBlock(base64=PNG, mime_type="image/png"),
                ]
            ),
            AssistantMessage(
                content="Checking.",
                tool_calls=[ToolCall(id="call_1", name="get_weather", arguments={"city": "Oslo"})],
            ),
            ToolMessage(tool_call_id="call_1", content="-3C"),
            AssistantMessage(content="Cold."),
        ],
        tools=[WEATHER_TOOL],
        **more,
    )


def test_an_agent_turn() -> None:
    payload = enc(agent(tool_choice=AutoToolChoice()))
    assert payload == {
        "system": [{"text": "Be brief."}],
        "messages": [
            {
                "role": "user",
                "content": [
                    {"text": "Weather here?"},
                    {"image": {"format": "png", "source": {"bytes": base64.b64decode(PNG)}}},
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"text": "Checking."},
                    {
                        "toolUse": {
                            "toolUseId": "call_1",
                            "name": "get_weather",
                            "input": {"city": "Oslo"},
                        }
                    },
                ],
            },
            {
                "role": "user",
                "content": [{"toolResult": {"toolUseId": "call_1", "content": [{"text": "-3C"}]}}],
            },
            {"role": "assistant", "content": [{"text": "Cold."}]},
        ],
        "toolConfig": {
            "tools": [
                {
                    "toolSpec": {
                        "name": "get_weather",
                        "description": "Weather.",
                        "inputSchema": {"json": WEATHER},
                    }
                }
            ],
            "toolChoice": {"auto": {}},
        },
    }
    # the JSON form: the REST API's body, blobs as base64 text
    assert codec.json_form(payload)["messages"][0]["content"][1]["image"]["source"] == {
        "bytes": PNG
    }
    assert codec.boto3_form(codec.json_form(payload)) == payload


def test_settings_map_to_their_converse_keys() -> None:
    settings = GenerationSettings(
        model="anthropic.claude-sonnet-4-5",
        max_output_tokens=512,
        temperature=0.2,
        top_p=0.9,
        top_k=40,
        stop=["END"],
        thinking_budget=2048,
        reasoning_effort="high",
        response_format=JsonSchemaResponseFormat(
            json_schema={"type": "object"}, name="answer", description="The answer."
        ),
    )
    payload = enc(Conversation(messages=[UserMessage(content="hi")], settings=settings))
    assert payload == {
        "modelId": "anthropic.claude-sonnet-4-5",
        "messages": [{"role": "user", "content": [{"text": "hi"}]}],
        "inferenceConfig": {
            "maxTokens": 512,
            "temperature": 0.2,
            "topP": 0.9,
            "stopSequences": ["END"],
        },
        "additionalModelRequestFields": {
            "top_k": 40,
            "thinking": {"type": "enabled", "budget_tokens": 2048},
        },
        "outputConfig": {
            "effort": "high",
            "textFormat": {
                "type": "json_schema",
                "structure": {
                    "jsonSchema": {
                        "schema": '{"type": "object"}',
                        "name": "answer",
                        "description": "The answer.",
                    }
                },
            },
        },
    }
    assert codec.decode_conversation(payload).settings == settings
    off = enc(
        Conversation(
            messages=[UserMessage(content="hi")], settings=GenerationSettings(thinking_budget=0)
        )
    )
    assert off["additionalModelRequestFields"] == {"thinking": {"type": "disabled"}}
    # without settings, no modelId: the caller gives it
    assert "modelId" not in enc([UserMessage(content="hi")])


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"seed": 1}, "seed"),
        ({"presence_penalty": 0.1}, "presence_penalty"),
        ({"frequency_penalty": 0.1}, "frequency_penalty"),
        ({"thinking_budget": -1}, "thinking_budget"),
        ({"response_format": JsonObjectResponseFormat()}, "response_format"),
        (
            {"response_format": JsonSchemaResponseFormat(json_schema={}, strict=True)},
            "response_format",
        ),
    ],
)
def test_settings_converse_cannot_say(settings: dict[str, Any], field: str) -> None:
    conversation = Conversation(
        messages=[UserMessage(content="hi")], settings=GenerationSettings(**settings)
    )
    with pytest.raises(UnsupportedContentError) as caught:
        codec.encode(conversation)
    assert [problem.pointer for problem in caught.value.problems] == [f"/settings/{field}"]
    assert f"settings.{field}" in caught.value.problems[0].message
    with pytest.raises(UnsupportedContentError, match=f"settings.{field}"):
        codec.encode(conversation, check=False)
    assert [problem.pointer for problem in codec.check(conversation)] == [f"/settings/{field}"]
    dropped = enc(conversation, unsupported="drop")
    assert dropped["messages"] == [{"role": "user", "content": [{"text": "hi"}]}]


@pytest.mark.parametrize(
    ("choice", "wire"),
    [
        (AutoToolChoice(), {"auto": {}}),
        (RequiredToolChoice(), {"any": {}}),
        (NamedToolChoice(name="get_weather"), {"tool": {"name": "get_weather"}}),
    ],
)
def test_tool_choices(choice: Any, wire: dict[str, Any]) -> None:
    payload = enc(
        Conversation(messages=[UserMessage(content="hi")], tools=[WEATHER_TOOL], tool_choice=choice)
    )
    assert payload["toolConfig"]["toolChoice"] == wire
    assert codec.decode_conversation(payload).tool_choice == choice


@pytest.mark.parametrize(
    "choice",
    [
        NoneToolChoice(),
        AllowedToolsChoice(names=["get_weather"], mode="auto"),
    ],
)
def test_tool_choices_converse_cannot_say(choice: Any) -> None:
    conversation = Conversation(
        messages=[UserMessage(content="hi")], tools=[WEATHER_TOOL], tool_choice=choice
    )
    with pytest.raises(UnsupportedContentError):
        codec.encode(conversation)
    assert [problem.pointer for problem in codec.check(conversation)] == ["/tool_choice"]
    payload = enc(conversation, unsupported="drop")
    assert "toolChoice" not in payload["toolConfig"]


def test_a_tool_choice_goes_only_with_tools() -> None:
    """Converse's toolChoice lives in toolConfig, with the tools: alone it is left out."""
    conversation = Conversation(messages=[UserMessage(content="hi")], tool_choice=AutoToolChoice())
    assert codec.check(conversation) == []
    assert enc(conversation) == {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}


def test_parallel_has_no_converse_switch() -> None:
    conversation = Conversation(
        messages=[UserMessage(content="hi")],
        tools=[WEATHER_TOOL],
        tool_choice=RequiredToolChoice(parallel=False),
    )
    assert enc(conversation)["toolConfig"]["toolChoice"] == {"any": {}}


def test_cache_control_becomes_cache_points() -> None:
    marker = CacheControl()
    conversation = Conversation(
        messages=[
            SystemMessage(content=[TextBlock(text="Long rules.", cache_control=marker)]),
            UserMessage(
                content=[
                    TextBlock(text="Read:"),
                    FileBlock(
                        base64=PDF,
                        mime_type="application/pdf",
                        filename="report.pdf",
                        cache_control=CacheControl(ttl="1h"),
                    ),
                ]
            ),
        ]
    )
    payload = enc(conversation)
    assert payload["system"] == [{"text": "Long rules."}, {"cachePoint": {"type": "default"}}]
    assert payload["messages"][0]["content"] == [
        {"text": "Read:"},
        {
            "document": {
                "format": "pdf",
                "name": "report-pdf",  # Converse takes no dot in a document name
                "source": {"bytes": base64.b64decode(PDF)},
            }
        },
        {"cachePoint": {"type": "default", "ttl": "1h"}},
    ]
    assert enc(conversation, prompt_cache=False)["system"] == [{"text": "Long rules."}]
    odd = Conversation(
        messages=[UserMessage(content=[TextBlock(text="a", cache_control=CacheControl(ttl="10m"))])]
    )
    assert [(p.pointer, p.keyword) for p in codec.check(odd)] == [
        ("/messages/0/content/0", "cache_ttl")
    ]


def test_documents_and_media() -> None:
    conversation = [
        UserMessage(
            content=[
                PlainTextBlock(text="The sky is blue.", title="Notes", context="from a book"),
                FileBlock(url="s3://my-bucket/a.csv", mime_type="text/csv"),
                ImageBlock(url="s3://my-bucket/cat.jpg", mime_type="image/jpg"),
            ]
        )
    ]
    payload = enc(conversation)
    assert payload["messages"][0]["content"] == [
        {
            "document": {
                "format": "txt",
                "name": "Notes",
                "source": {"text": "The sky is blue."},
                "context": "from a book",
            }
        },
        {
            "document": {
                "format": "csv",
                "name": "document-0-1",
                "source": {"s3Location": {"uri": "s3://my-bucket/a.csv"}},
            }
        },
        {"image": {"format": "jpeg", "source": {"s3Location": {"uri": "s3://my-bucket/cat.jpg"}}}},
    ]


@pytest.mark.parametrize(
    ("block", "what"),
    [
        (ImageBlock(url="https://example.com/cat.png"), "image by URL"),
        (ImageBlock(base64=PNG, mime_type="image/bmp"), "image of type image/bmp"),
        (ImageBlock(file_id="file_1", mime_type="image/png"), "image by file id"),
        (FileBlock(base64=PDF, mime_type="application/zip"), "document of type application/zip"),
    ],
)
def test_media_converse_cannot_take(block: Any, what: str) -> None:
    conversation = [UserMessage(content=[TextBlock(text="see"), block])]
    with pytest.raises(UnsupportedContentError) as caught:
        codec.encode(conversation)
    assert (caught.value.message_index, caught.value.block_index) == (0, 1)
    assert what in caught.value.problems[0].message
    placeholder = enc(conversation, unsupported="placeholder")
    assert what in placeholder["messages"][0]["content"][1]["text"]


def test_inline_data_that_is_not_base64() -> None:
    conversation = [UserMessage(content=[ImageBlock(base64="not base64!", mime_type="image/png")])]
    assert [(p.pointer, p.keyword) for p in codec.check(conversation)] == [
        ("/messages/0/content/0", "base64")
    ]
    with pytest.raises(ConversionError):
        codec.encode(conversation, check=False)


def test_reasoning_is_replayed_only_to_bedrock() -> None:
    own = ReasoningBlock(text="Think.", signature=SIG, provider="bedrock_converse")
    other = ReasoningBlock(text="Elsewhere.", signature=SIG, provider="anthropic")
    conversation = [
        UserMessage(content="q"),
        AssistantMessage(content=[own, other, TextBlock(text="a")]),
        UserMessage(content="more"),
    ]
    payload = enc(conversation)
    assert payload["messages"][1]["content"] == [
        {"reasoningContent": {"reasoningText": {"text": "Think.", "signature": SIG}}},
        {"text": "a"},
    ]
    as_text = enc(conversation, reasoning="text")["messages"][1]["content"]
    assert as_text[1] == {"text": "Elsewhere."}
    assert enc(conversation, reasoning="drop")["messages"][1]["content"] == [{"text": "a"}]


def test_tool_ids_converse_refuses_are_rewritten_on_both_sides() -> None:
    conversation = Conversation(
        messages=[
            UserMessage(content="hi"),
            AssistantMessage(
                tool_calls=[ToolCall(id="call 1/x", name="get_weather", arguments={})]
            ),
            ToolMessage(tool_call_id="call 1/x", content="ok"),
        ],
        tools=[WEATHER_TOOL],
    )
    payload = enc(conversation)
    call_id = payload["messages"][1]["content"][0]["toolUse"]["toolUseId"]
    assert call_id.startswith("call_1_x_") and len(call_id) <= 64
    assert payload["messages"][2]["content"][0]["toolResult"]["toolUseId"] == call_id


def test_check_reports_what_converse_refuses() -> None:
    conversation = Conversation(
        messages=[
            SystemMessage(content=""),
            UserMessage(content=[TextBlock(text="")]),
            AssistantMessage(tool_calls=[ToolCall(id="c1", name="bad name", arguments={})]),
            UserMessage(content="next"),
            ToolMessage(tool_call_id="nope", content="x"),
            UserMessage(content=[]),
        ],
        tools=[ToolDefinition(name="bad name", parameters={})],
    )
    found = {(problem.pointer, problem.keyword) for problem in codec.check(conversation)}
    assert found == {  # an empty system string says nothing: it is left out, not refused
        ("/messages/1/content/0", "blank_text"),
        ("/messages/2/tool_calls/0/id", "unanswered_tool_call"),
        ("/messages/4/tool_call_id", "orphan_tool_result"),
        ("/tools/0/name", "tool_name"),
    }
    alone = [
        UserMessage(content="q"),
        AssistantMessage(tool_calls=[ToolCall(id="c", name="f", arguments={})]),
        ToolMessage(tool_call_id="c", content="r"),
    ]
    assert [(p.pointer, p.keyword) for p in codec.check(alone)] == [
        ("/tools", "tool_config_required")
    ]
    empty = [UserMessage(content="")]
    assert [(p.pointer, p.keyword) for p in codec.check(empty)] == [
        ("/messages/0", "empty_content")
    ]
    with pytest.raises(ConversionError):
        codec.encode(alone)
    # a history that is data, not a request now: no toolConfig needed
    assert codec.check(alone, request=False) == []
    trailing = [UserMessage(content="q"), alone[1]]
    assert [(p.pointer, p.keyword) for p in codec.check(trailing, request=False)] == []


def test_without_native_tools_everything_is_text() -> None:
    payload = enc(agent(), native_tools=False)
    assert "toolConfig" not in payload
    assert "get_weather" in payload["system"][-1]["text"]
    assert payload["messages"][1]["content"][1]["text"].startswith("<tool_call")
    assert payload["messages"][2]["content"][0]["text"].startswith("<tool_result")


def test_vision_off_and_unknown_options() -> None:
    with pytest.raises(UnsupportedContentError):
        codec.encode(agent(), vision=False)
    with pytest.raises(OptionError):
        codec.encode(agent(), nonsense=True)  # type: ignore[call-arg]


@pytest.mark.parametrize("source", ["openai_chat", "openai_responses", "anthropic", "gemini"])
def test_other_formats_convert_to_converse(source: str) -> None:
    wire = get_codec(source).encode(agent(), unsupported="drop")
    payload = convert(wire, source=source, target="bedrock_converse", unsupported="drop")
    validate_request("bedrock_converse", payload)
    assert payload["messages"][-1] == {"role": "assistant", "content": [{"text": "Cold."}]}
    back = convert(payload, source="bedrock_converse", target=source, unsupported="drop")
    assert back


@pytest.mark.parametrize("target", ["openai_chat", "openai_responses", "anthropic", "gemini"])
def test_recorded_converse_requests_convert_elsewhere(target: str) -> None:
    for name in ("request_structured_output", "request_thinking_signed", "request_tool_thinking"):
        request = load(name)["request"]
        out = convert(request, source="bedrock_converse", target=target, unsupported="drop")
        assert out


def _fixture_documents() -> list[tuple[str, Any]]:
    from conftest import CASES

    kinds = ("Conversation", "AssistantMessage", "UserMessage", "ToolMessage", "SystemMessage")
    return [
        (case.id, case.instance if case.type == "Conversation" else {"messages": [case.instance]})
        for case in CASES
        if case.valid and case.type in kinds
    ]


FIXTURES = _fixture_documents()


@pytest.mark.parametrize(("name", "document"), FIXTURES, ids=[name for name, _ in FIXTURES])
def test_every_neutral_fixture_encodes_to_a_valid_request(name: str, document: Any) -> None:
    """Whatever the schema allows becomes a request botocore's model accepts."""
    payload = enc(document, check=False, unsupported="placeholder")
    codec.decode_conversation(payload)  # and reads back without error


def test_the_cli_writes_the_json_form(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """JSON output has no bytes: blobs are written as base64 text, the REST API's form."""
    source = tmp_path / "conversation.json"
    source.write_text(
        json.dumps(
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image", "base64": PNG, "mime_type": "image/png"}],
                    }
                ]
            }
        )
    )
    assert main(["convert", "--from", "neutral", "--to", "bedrock_converse", str(source)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["messages"][0]["content"][0]["image"]["source"] == {"bytes": PNG}
    back = tmp_path / "request.json"
    back.write_text(json.dumps(printed))
    assert main(["convert", "--from", "bedrock_converse", "--to", "anthropic", str(back)]) == 0
    assert json.loads(capsys.readouterr().out)["messages"][0]["content"][0]["source"]["data"] == PNG


def test_datasets_write_the_json_form() -> None:
    from chatschema.datasets import convert_batch

    image = {"type": "image", "base64": PNG, "mime_type": "image/png"}
    row = json.dumps({"messages": [{"role": "user", "content": [image]}]})
    out = convert_batch({"conversation": [row]}, source="neutral", target="bedrock_converse")
    assert out["problems"] == [[]]
    request = json.loads(out["conversation"][0])
    assert request["messages"][0]["content"][0]["image"]["source"] == {"bytes": PNG}
    back = convert_batch(out, source="bedrock_converse", target="bedrock_converse")
    assert json.loads(back["conversation"][0]) == request
