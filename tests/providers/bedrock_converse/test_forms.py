"""Values read in more than one form, written back in the form they came.

Regressions from real Converse traffic: a document ``name`` the API took goes back as
it came (``_`` included, which the API reference's rule leaves out), only names the
codec makes are cleaned; empty lists and objects are values; counts sent as ``null``
decode.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from chatschema import FileBlock, PlainTextBlock, UserMessage, to_dict
from chatschema.providers import bedrock_converse as codec
from providers.bedrock_converse.helpers import PDF, WEATHER, enc

TOOL = {"toolSpec": {"name": "get_weather", "inputSchema": {"json": WEATHER}}}


def round_trip(payload: dict[str, Any], *, oracle: bool = True) -> dict[str, Any]:
    """``encode(decode_conversation(payload))``; ``check`` finds nothing.

    ``oracle``: held to botocore's Converse input shape too.
    """
    before = copy.deepcopy(payload)
    conversation = codec.decode_conversation(payload)
    assert payload == before
    assert codec.check(conversation) == []
    return enc(conversation) if oracle else codec.encode(conversation)


# ---------------------------------------------------------------- document names


def _document(name: str, source: dict[str, Any], fmt: str = "pdf") -> dict[str, Any]:
    return {"document": {"format": fmt, "name": name, "source": source}}


def test_document_names_a_request_had_go_back_as_they_came() -> None:
    """The API took ``_`` in document names (and a name is never rewritten)."""
    payload = {
        "modelId": "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
        "messages": [
            {
                "role": "user",
                "content": [
                    {"text": "Summarize these."},
                    _document("quarterly_report_2024", {"bytes": PDF}),
                    _document("notes_v2", {"text": "Draft notes."}, "txt"),
                    _document("archive_copy", {"s3Location": {"uri": "s3://bucket/a.pdf"}}),
                    _document("two  spaces", {"bytes": PDF}),
                ],
            },
            {
                "role": "assistant",
                "content": [
                    {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {}}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "toolResult": {
                            "toolUseId": "tooluse_1",
                            "content": [_document("tool_output_1", {"bytes": PDF})],
                        }
                    }
                ],
            },
        ],
        "toolConfig": {"tools": [TOOL]},
    }
    assert round_trip(payload) == payload
    # the neutral model sees the names as they are
    first = to_dict(codec.decode_conversation(payload))["messages"][0]["content"]
    assert [block.get("filename") or block.get("title") for block in first[1:]] == [
        "quarterly_report_2024",
        "notes_v2",
        "archive_copy",
        "two  spaces",
    ]


def test_names_the_codec_makes_follow_the_documented_rule() -> None:
    """A filename or title of the neutral model becomes a name of the API reference's
    characters; a decoded name changed since is one the codec makes too."""
    sent = enc(
        [
            UserMessage(
                content=[
                    FileBlock(base64=PDF, mime_type="application/pdf", filename="q_report.pdf"),
                    PlainTextBlock(text="x", title="my_notes"),
                ]
            )
        ]
    )
    names = [block["document"]["name"] for block in sent["messages"][0]["content"]]
    assert names == ["q-report-pdf", "my-notes"]
    decoded = codec.decode_conversation(
        {"messages": [{"role": "user", "content": [_document("a_b", {"bytes": PDF})]}]}
    )
    content = decoded.messages[0].content
    assert isinstance(content, list)
    block = content[0]
    assert isinstance(block, FileBlock)
    edited = decoded.model_copy(
        update={"messages": [UserMessage(content=[block.model_copy(update={"filename": "c_d"})])]}
    )
    assert enc(edited)["messages"][0]["content"][0]["document"]["name"] == "c-d"


# ------------------------------------------------------- empty lists and objects


def test_an_empty_tool_list_goes_back() -> None:
    """``toolConfig.tools: []`` (and its choice) as the request had it. botocore wants
    one tool at least, so only the REST API's JSON carries it: no oracle here."""
    configs: list[dict[str, Any]] = [{"tools": []}, {"tools": [], "toolChoice": {"auto": {}}}]
    for config in configs:
        payload = {
            "modelId": "amazon.nova-lite-v1:0",
            "messages": [{"role": "user", "content": [{"text": "Hi"}]}],
            "toolConfig": config,
        }
        assert round_trip(payload, oracle=False) == payload


def test_an_empty_tool_list_of_another_format_is_not_sent() -> None:
    """The neutral ``tools=[]`` from elsewhere (OpenAI's ``tools: []``): Converse's
    ToolConfiguration takes one tool at least, so no ``toolConfig`` is made for it."""
    sent = enc({"messages": [{"role": "user", "content": "Hi"}], "tools": []})
    assert "toolConfig" not in sent


@pytest.mark.parametrize(
    "extra",
    [
        {"system": []},
        {"inferenceConfig": {}},
        {"inferenceConfig": {"maxTokens": 512, "stopSequences": []}},
        {"additionalModelRequestFields": {}},
        {"toolConfig": {"tools": [TOOL], "toolChoice": {"auto": {}}}},
    ],
)
def test_empty_values_go_back(extra: dict[str, Any]) -> None:
    payload = {
        "modelId": "us.anthropic.claude-haiku-4-5-20251001-v1:0",
        "messages": [{"role": "user", "content": [{"text": "Hi"}]}],
        **extra,
    }
    assert round_trip(payload) == payload


# ------------------------------------------------------------------ responses


def test_null_counts_in_usage_decode() -> None:
    reply = codec.decode_response(
        {
            "output": {"message": {"role": "assistant", "content": [{"text": "Hi"}]}},
            "stopReason": "end_turn",
            "usage": {
                "inputTokens": None,
                "outputTokens": 2,
                "totalTokens": 2,
                "cacheReadInputTokens": None,
                "cacheWriteInputTokens": None,
            },
            "metrics": {"latencyMs": 120},
        }
    )
    assert reply.usage is not None
    assert (reply.usage.input_tokens, reply.usage.output_tokens) == (0, 2)
    assert reply.usage.input_token_details is None


# ------------------------------------------------ values botocore takes, as they came


def test_an_empty_text_block_goes_back() -> None:
    """``[{"text": ""}]`` is not ``[]``: botocore takes both, and the API refuses both
    ("The text field in the ContentBlock object ... is blank"), which check reports."""
    payload = {
        "system": [{"text": ""}],
        "messages": [{"role": "user", "content": [{"text": ""}]}],
    }
    conversation = codec.decode_conversation(payload)
    assert codec.encode(conversation, check=False) == payload
    assert [(p.pointer, p.keyword) for p in codec.check(conversation)] == [
        ("/messages/0/content/0", "blank_text"),
        ("/messages/1/content/0", "blank_text"),
    ]


def test_tool_inputs_that_are_no_object_go_back_in_place() -> None:
    """botocore's ``Document`` takes any JSON as ``input``: an invalid call, sent back
    with its input as it came, before the valid call it came before."""
    payload = {
        "messages": [
            {"role": "user", "content": [{"text": "Weather?"}]},
            {
                "role": "assistant",
                "content": [
                    {"toolUse": {"toolUseId": "call_1", "name": "get_weather", "input": None}},
                    {"toolUse": {"toolUseId": "call_2", "name": "get_weather", "input": {}}},
                ],
            },
        ]
    }
    conversation = codec.decode_conversation(payload)
    assert codec.encode(conversation, check=False, request=False) == payload
