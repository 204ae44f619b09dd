"""chatschema.interop.mcp against the MCP SDK types, the published schema and its examples.

Oracles: the ``mcp`` SDK's pydantic types (``model_validate`` of every output) and the
JSON Schema of the latest MCP revision (2026-07-28), materialized with its published
examples from modelcontextprotocol/modelcontextprotocol at a pinned commit
(``tests/recordings/manifest.yaml``; absent, those tests skip).
"""

from __future__ import annotations

import base64
import copy
import json
import subprocess
import sys
import warnings
from functools import cache
from typing import Any

import jsonschema
import pytest
import recorded
from conftest import ROOT

from chatschema import (
    AssistantMessage,
    Conversation,
    ConversionError,
    ImageBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
    ToolCall,
    ToolMessage,
    UnsupportedContentError,
    UserMessage,
    to_dict,
)
from chatschema.errors import ChatSchemaError
from chatschema.interop import mcp
from chatschema.providers import PROVIDERS, get_codec

types = pytest.importorskip("mcp.types")

PAYLOADS = ROOT / "tests" / "payloads" / "mcp"
SCHEMA = PAYLOADS / "schema-2026-07-28.json"
EXAMPLES = PAYLOADS / "examples-2026-07-28.json"
NAMES = recorded.index(EXAMPLES)


def example(name: str) -> Any:
    return copy.deepcopy(recorded.item(EXAMPLES, name, shared=True))


def names(kind: str) -> list[str]:
    return [name for name in NAMES if name.split("/")[0] == kind]


@cache
def _defs() -> dict[str, Any]:
    return recorded.load(SCHEMA, shared=True)["$defs"]  # type: ignore[no-any-return]


def schema_valid(value: Any, definition: str) -> None:
    """``value`` is valid against ``definition`` of the published 2026-07-28 schema."""
    schema = {"$ref": f"#/$defs/{definition}", "$defs": _defs()}
    jsonschema.Draft202012Validator(schema).validate(value)


def call_tool_result(*blocks: str, **fields: Any) -> dict[str, Any]:
    """A ``CallToolResult`` (2026-07-28) of the recorded example blocks named."""
    return {"content": [example(name) for name in blocks], **fields, "resultType": "complete"}


IMAGE = "ImageContent/image-png-content-with-annotations.json"
AUDIO = "AudioContent/audio-wav-content.json"
LINK = "ResourceLink/file-resource-link.json"
EMBEDDED = "EmbeddedResource/embedded-file-resource-with-annotations.json"
TEXT = "TextContent/text-content.json"
MIXED = (TEXT, IMAGE, LINK, EMBEDDED, AUDIO)


# ------------------------------------------------------------------ tool results


@pytest.mark.parametrize("name", names("CallToolResult"))
def test_recorded_call_tool_results_round_trip(name: str) -> None:
    result = example(name)
    message = mcp.from_call_tool_result(result, "call_1")
    back = mcp.to_call_tool_result(message)
    assert back == result
    types.CallToolResult.model_validate(back)
    schema_valid(back, "CallToolResult")
    assert message.status == ("error" if result.get("isError") else "success")
    if "structuredContent" in result:
        assert message.artifact == result["structuredContent"]


def test_recorded_blocks_map_to_neutral_blocks() -> None:
    result = call_tool_result(*MIXED, structuredContent=None, isError=False)
    message = mcp.from_call_tool_result(result, "call_7", name="inspect")
    assert isinstance(message, ToolMessage)
    assert (message.tool_call_id, message.name, message.status) == ("call_7", "inspect", "success")
    assert message.artifact is None and "artifact" in message.model_fields_set
    text, image, link, resource, audio = message.content
    assert isinstance(text, TextBlock) and text.text == example(TEXT)["text"]
    assert isinstance(image, ImageBlock)
    assert (image.base64, image.mime_type) == (example(IMAGE)["data"], "image/png")
    assert image.extras == {"mcp": {"annotations": example(IMAGE)["annotations"]}}
    assert isinstance(link, ResourceLinkBlock)
    source = example(LINK)
    assert (link.uri, link.name, link.mime_type) == (
        source["uri"],
        source["name"],
        source["mimeType"],
    )
    assert isinstance(resource, ResourceBlock)
    inner = example(EMBEDDED)["resource"]
    assert (resource.uri, resource.text, resource.mime_type) == (
        inner["uri"],
        inner["text"],
        inner["mimeType"],
    )
    assert resource.base64 is None
    assert audio.type == "audio" and audio.mime_type == example(AUDIO)["mimeType"]
    back = mcp.to_call_tool_result(message)
    assert back == result
    types.CallToolResult.model_validate(back)
    schema_valid(back, "CallToolResult")


def test_every_meta_is_kept() -> None:
    blob = {"uri": "file:///a.png", "mimeType": "image/png", "blob": "AAAA", "_meta": {"r": 1}}
    result = {
        "content": [
            {"type": "text", "text": "hi", "_meta": {"t": 1}, "x-extension": [1]},
            {"type": "resource", "resource": blob, "_meta": {"b": 2}},
            {**example(LINK), "icons": [{"src": "https://example.com/i.png"}], "_meta": {"l": 3}},
        ],
        "isError": True,
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}},
        "resultType": "complete",
    }
    message = mcp.from_call_tool_result(result, "c")
    assert message.status == "error"
    assert message.extras == {"mcp": {"_meta": result["_meta"], "resultType": "complete"}}
    resource = message.content[1]
    assert isinstance(resource, ResourceBlock) and resource.base64 == "AAAA"
    assert resource.extras == {"mcp": {"_meta": {"b": 2}, "resource": {"_meta": {"r": 1}}}}
    back = mcp.to_call_tool_result(message)
    assert back == result
    schema_valid(back, "CallToolResult")
    types.CallToolResult.model_validate(back)


def test_sdk_objects_are_read_like_their_json() -> None:
    result = call_tool_result(*MIXED, structuredContent={"n": 1}, isError=True)
    sdk = types.CallToolResult.model_validate(result)
    from_sdk = mcp.from_call_tool_result(sdk, "c")
    from_json = mcp.from_call_tool_result(result, "c")
    assert from_sdk.content == from_json.content
    assert (from_sdk.status, from_sdk.artifact) == ("error", {"n": 1})
    types.CallToolResult.model_validate(mcp.to_call_tool_result(from_sdk))


_SDK_READERS = {
    "CallToolResult": ("CallToolResult", lambda value: mcp.from_call_tool_result(value, "c")),
    "Tool": ("Tool", mcp.from_tool),
    "GetPromptResult": ("GetPromptResult", mcp.from_get_prompt_result),
    "CreateMessageRequestParams": ("CreateMessageRequestParams", mcp.from_create_message_request),
    "CreateMessageResult": ("CreateMessageResultWithTools", mcp.from_create_message_result),
    "SamplingMessage": ("SamplingMessage", lambda value: mcp.from_sampling_messages([value])),
}


@pytest.mark.parametrize("name", [n for n in NAMES if n.split("/")[0] in _SDK_READERS])
def test_recorded_examples_as_sdk_objects(name: str) -> None:
    """An SDK object reads as what the SDK sends: its dump by alias, ``None`` left out."""
    class_name, read = _SDK_READERS[name.split("/")[0]]
    sdk = getattr(types, class_name).model_validate(example(name))
    sent = sdk.model_dump(by_alias=True, exclude_none=True, mode="json")
    assert read(sdk) == read(sent)
    if class_name == "CallToolResult":
        assert mcp.to_call_tool_result(read(sdk)) == sent  # isError: false, as the SDK sends


def test_a_result_without_result_type_writes_none_back() -> None:
    result = {"content": [{"type": "text", "text": "2025-11-25 form"}]}
    back = mcp.to_call_tool_result(mcp.from_call_tool_result(result, "c"))
    assert back == result


def test_a_neutral_tool_message_writes_the_latest_revision() -> None:
    message = ToolMessage(
        role="tool",
        tool_call_id="c",
        content=[
            TextBlock(type="text", text="chart"),
            ImageBlock(type="image", base64="AAAA", mime_type="image/png"),
            ResourceLinkBlock(type="resource_link", uri="file:///r.csv", size=12),
        ],
        status="error",
        artifact=[1, 2],
    )
    out = mcp.to_call_tool_result(message)
    assert out == {
        "content": [
            {"type": "text", "text": "chart"},
            {"type": "image", "data": "AAAA", "mimeType": "image/png"},
            {"type": "resource_link", "uri": "file:///r.csv", "name": "file:///r.csv", "size": 12},
        ],
        "structuredContent": [1, 2],
        "isError": True,
        "resultType": "complete",
    }
    schema_valid(out, "CallToolResult")
    types.CallToolResult.model_validate(out)
    assert "resultType" not in mcp.to_call_tool_result(message, result_type=None)
    text_only = mcp.to_call_tool_result({"role": "tool", "tool_call_id": "c", "content": "done"})
    assert text_only["content"] == [{"type": "text", "text": "done"}]


def test_content_mcp_cannot_carry_follows_the_policy() -> None:
    message = {
        "role": "tool",
        "tool_call_id": "c",
        "content": [
            {"type": "text", "text": "see"},
            {"type": "image", "url": "https://example.com/a.png"},
        ],
    }
    with pytest.raises(UnsupportedContentError, match="block 1") as caught:
        mcp.to_call_tool_result(message)
    assert "an image given by URL" in str(caught.value)
    dropped = mcp.to_call_tool_result(message, unsupported="drop")
    assert dropped["content"] == [{"type": "text", "text": "see"}]
    noted = mcp.to_call_tool_result(message, unsupported="placeholder")
    assert noted["content"][1] == {"type": "text", "text": "[an image given by URL omitted]"}
    cited = {
        "type": "text",
        "text": "x",
        "annotations": [{"type": "citation", "url": "https://a.b/"}],
    }
    with pytest.raises(UnsupportedContentError, match="citations"):
        mcp.to_call_tool_result({"role": "tool", "tool_call_id": "c", "content": [cited]})
    kept = mcp.to_call_tool_result(
        {"role": "tool", "tool_call_id": "c", "content": [cited]}, unsupported="drop"
    )
    assert kept["content"] == [{"type": "text", "text": "x"}]
    with pytest.raises(ConversionError, match="from a tool message"):
        mcp.to_call_tool_result({"role": "user", "content": "hi"})


def test_an_unknown_block_type_is_kept_as_non_standard() -> None:
    result = {"content": [{"type": "video", "data": "AAAA", "mimeType": "video/mp4"}]}
    message = mcp.from_call_tool_result(result, "c")
    assert message.content[0].type == "non_standard"
    assert mcp.to_call_tool_result(message, result_type=None) == result


BAD = [
    ({"content": "text"}, "/content", "must be an array"),
    ({}, "/content", "'content' is required"),
    ({"content": [{"type": "image", "data": "AA=="}]}, "/content/0/mimeType", "required"),
    (
        {"content": [{"type": "image", "data": "AA==", "mimeType": "png"}]},
        "/content/0/mimeType",
        "media type",
    ),
    ({"content": [{"type": "text", "text": 5}]}, "/content/0/text", "must be a string"),
    (
        {"content": [{"type": "resource", "resource": {"uri": "x:y"}}]},
        "/content/0/resource",
        "'text' or 'blob'",
    ),
    (
        {"content": [{"type": "resource_link", "uri": "x:y", "size": -1}]},
        "/content/0/size",
        "byte count",
    ),
    ({"content": [{"type": "resource_link", "uri": ""}]}, "/content/0/uri", "empty"),
    ({"content": [3]}, "/content/0", "must be an object"),
    ({"content": [{"text": "no type"}]}, "/content/0/type", "string 'type'"),
    ({"content": [], "isError": "yes"}, "/isError", "boolean"),
    ([], "", "must be an object"),
]


@pytest.mark.parametrize(("result", "pointer", "reason"), BAD)
def test_bad_results_name_the_pointer(result: Any, pointer: str, reason: str) -> None:
    with pytest.raises(ConversionError, match=reason) as caught:
        mcp.from_call_tool_result(result, "c")
    assert caught.value.provider == "mcp"
    assert [problem.pointer for problem in caught.value.problems] == [pointer]
    assert str(caught.value).startswith(f"mcp: {pointer or '(root)'}: ")


# ------------------------------------------------------------------ through every codec


def _conversation(result: dict[str, Any]) -> list[Any]:
    return [
        UserMessage(role="user", content="What is in the chart?"),
        AssistantMessage(
            role="assistant", tool_calls=[ToolCall(id="call_1", name="chart", arguments={})]
        ),
        mcp.from_call_tool_result(result, "call_1", name="chart"),
    ]


TOOLS = [{"name": "chart", "description": "Draw a chart", "parameters": {"type": "object"}}]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_no_codec_drops_an_mcp_image_silently(provider: str) -> None:
    """Each codec sends the recorded image or reports a problem located at its block."""
    codec = get_codec(provider)
    messages = _conversation(call_tool_result(*MIXED))
    image = example(IMAGE)["data"]
    conversation = Conversation(messages=messages, tools=TOOLS)
    located = {str(problem.pointer) for problem in codec.check(conversation)}
    for policy in ("drop", "placeholder"):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # Mistral says it rewrites the call id
                out = codec.encode(conversation, unsupported=policy)
        except ChatSchemaError as error:  # a refusal must say where
            assert "/messages/2" in str(error), error
            continue
        sent = carries(out, image)
        assert sent or "/messages/2/content/1" in located, (provider, policy, located)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            codec.encode(conversation)
    except ChatSchemaError as error:
        assert "/messages/2/content/" in str(error)


def carries(value: Any, data: str) -> bool:
    """Whether ``value`` holds the base64 ``data``, as text or as its bytes (Converse)."""
    if isinstance(value, str):
        return data in value
    if isinstance(value, bytes):
        return value == base64.b64decode(data)
    if isinstance(value, dict):
        return any(carries(item, data) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(carries(item, data) for item in value)
    return False


@pytest.mark.parametrize("provider", PROVIDERS)
def test_recorded_tools_reach_every_codec(provider: str) -> None:
    listing = example("ListToolsResult/tools-list-with-cursor-and-ttl.json")
    tools = mcp.from_tools(listing) + [mcp.from_tool(example(n)) for n in names("Tool")]
    messages = [UserMessage(role="user", content="weather?")]
    out = get_codec(provider).encode(Conversation(messages=messages, tools=tools))
    assert "get_weather" in json.dumps(out, default=str)


# ------------------------------------------------------------------ tools


@pytest.mark.parametrize("name", names("Tool"))
def test_recorded_tools_round_trip(name: str) -> None:
    tool = example(name)
    definition = mcp.from_tool(tool)
    assert definition.name == tool["name"]
    assert definition.parameters == tool["inputSchema"]
    assert definition.description == tool.get("description")
    if "outputSchema" in tool:
        assert definition.extras["mcp"]["outputSchema"] == tool["outputSchema"]
    back = mcp.to_tool(definition)
    assert back == tool
    types.Tool.model_validate(back)
    schema_valid(back, "Tool")


def test_tool_lists_and_errors() -> None:
    listing = example("ListToolsResult/tools-list-with-cursor-and-ttl.json")
    sdk = types.ListToolsResult.model_validate(listing)
    assert mcp.from_tools(sdk) == mcp.from_tools(listing)
    assert mcp.to_tools(mcp.from_tools(listing)) == listing["tools"]
    with pytest.raises(ConversionError) as caught:
        mcp.from_tools({"tools": [{"name": "a", "inputSchema": {}}, {"name": "b"}]})
    assert caught.value.problems[0].pointer == "/tools/1/inputSchema"
    with pytest.raises(ConversionError, match="hosted by"):
        mcp.to_tool({"name": "web_search", "parameters": {}, "provider": "anthropic"})


# ------------------------------------------------------------------ prompts


@pytest.mark.parametrize("name", names("GetPromptResult"))
def test_recorded_prompts_round_trip(name: str) -> None:
    result = example(name)
    conversation = mcp.from_get_prompt_result(result)
    assert [m.role for m in conversation.messages] == [m["role"] for m in result["messages"]]
    back = mcp.to_get_prompt_result(conversation)
    assert back == result
    types.GetPromptResult.model_validate(back)
    schema_valid(back, "GetPromptResult")
    assert (
        mcp.to_prompt_messages(mcp.from_prompt_messages(result["messages"])) == result["messages"]
    )


def test_prompt_messages_of_every_block() -> None:
    prompts = [{"role": "user", "content": example(name)} for name in MIXED]
    prompts.append({"role": "assistant", "content": {"type": "text", "text": "ok"}})
    messages = mcp.from_prompt_messages(prompts)
    assert [type(block).__name__ for m in messages for block in m.content] == [
        "TextBlock",
        "ImageBlock",
        "ResourceLinkBlock",
        "ResourceBlock",
        "AudioBlock",
        "TextBlock",
    ]
    back = mcp.to_prompt_messages(messages)
    assert back == prompts
    for item in back:
        types.PromptMessage.model_validate(item)
        schema_valid(item, "PromptMessage")
    several = mcp.to_prompt_messages(
        [
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            }
        ]
    )
    assert [p["content"]["text"] for p in several] == ["a", "b"]
    with pytest.raises(UnsupportedContentError, match="a system message"):
        mcp.to_prompt_messages([{"role": "system", "content": "be brief"}])
    assert mcp.to_prompt_messages([{"role": "system", "content": "x"}], unsupported="drop") == []


# ------------------------------------------------------------------ sampling


@pytest.mark.parametrize("name", names("CreateMessageRequestParams"))
def test_recorded_sampling_requests_round_trip(name: str) -> None:
    params = example(name)
    conversation = mcp.from_create_message_request(params)
    if "systemPrompt" in params:
        assert conversation.messages[0].role == "system"
    assert conversation.settings is not None
    assert conversation.settings.max_output_tokens == params["maxTokens"]
    back = mcp.to_create_message_request(conversation)
    assert back == params
    types.CreateMessageRequestParams.model_validate(back)
    schema_valid(back, "CreateMessageRequestParams")
    request = {"method": "sampling/createMessage", "params": params}
    assert mcp.from_create_message_request(request) == conversation


def test_sampling_tool_use_and_results_become_calls_and_tool_messages() -> None:
    params = example("CreateMessageRequestParams/follow-up-with-tool-results.json")
    messages = mcp.from_create_message_request(params).messages
    roles = [m.role for m in messages]
    assert roles[:4] == ["user", "assistant", "tool", "tool"]
    assistant = messages[1]
    assert isinstance(assistant, AssistantMessage)
    assert [(c.id, c.arguments) for c in assistant.tool_calls] == [
        ("call_abc123", {"city": "Paris"}),
        ("call_def456", {"city": "London"}),
    ]
    assert [m.tool_call_id for m in messages[2:4]] == ["call_abc123", "call_def456"]
    for provider in ("anthropic", "openai_chat", "gemini"):
        get_codec(provider).encode(messages)  # a valid history for a provider


def test_sampling_keeps_order_and_grouping() -> None:
    sampled = [
        {"role": "assistant", "content": [
            {"type": "text", "text": "first"},
            {"type": "tool_use", "id": "a", "name": "f", "input": {}, "_meta": {"k": 1}},
            {"type": "text", "text": "between"},
            {"type": "tool_use", "id": "b", "name": "f", "input": {"x": 1}},
        ]},
        {"role": "user", "content": {"type": "tool_result", "toolUseId": "a", "content": []}},
        {"role": "user", "content": [
            {"type": "tool_result", "toolUseId": "b", "isError": True, "structuredContent": 3,
             "content": [example(IMAGE)]},
        ], "_meta": {"m": 1}},
        {"role": "user", "content": [example(TEXT)]},
    ]  # fmt: skip
    messages = mcp.from_sampling_messages(sampled)
    assert [m.role for m in messages] == ["assistant", "tool", "tool", "user"]
    assert messages[2].status == "error" and messages[2].artifact == 3
    back = mcp.to_sampling_messages(messages)
    assert back == sampled
    for item in back:
        types.SamplingMessage.model_validate(item)
        schema_valid(item, "SamplingMessage")
    fresh = mcp.to_sampling_messages(
        [
            {"role": "tool", "tool_call_id": "a", "content": "1"},
            {"role": "tool", "tool_call_id": "b", "content": "2"},
        ]
    )
    assert len(fresh) == 1 and [p["toolUseId"] for p in fresh[0]["content"]] == ["a", "b"]
    with pytest.raises(ConversionError, match="systemPrompt"):
        mcp.to_sampling_messages([{"role": "system", "content": "x"}])
    with pytest.raises(UnsupportedContentError):
        mcp.to_sampling_messages(
            [
                {
                    "role": "user",
                    "content": [to_dict(ResourceLinkBlock(type="resource_link", uri="a:b"))],
                }
            ]
        )


def test_bad_sampling_input_names_the_pointer() -> None:
    results = [{"type": "tool_result", "toolUseId": "a", "content": []}, example(TEXT)]
    mixed = [{"role": "user", "content": results}]
    with pytest.raises(ConversionError) as caught:
        mcp.from_sampling_messages(mixed)
    assert caught.value.problems[0].pointer == "/0/content/1"
    with pytest.raises(ConversionError) as caught:
        mcp.from_sampling_messages(
            [{"role": "user", "content": {"type": "tool_use", "id": "a", "name": "f", "input": {}}}]
        )
    assert caught.value.problems[0].pointer == "/0/content"
    with pytest.raises(ConversionError) as caught:
        mcp.from_create_message_request(
            {"maxTokens": 5, "messages": [{"role": "system", "content": []}]}
        )
    assert caught.value.problems[0].pointer == "/messages/0/role"
    with pytest.raises(ConversionError, match="top_p"):
        mcp.to_create_message_request(
            {"messages": [], "settings": {"max_output_tokens": 9, "top_p": 0.5}}
        )
    with pytest.raises(ConversionError, match="max_output_tokens"):
        mcp.to_create_message_request({"messages": []})


@pytest.mark.parametrize("name", names("CreateMessageResult"))
def test_recorded_sampling_results_round_trip(name: str) -> None:
    result = example(name)
    message = mcp.from_create_message_result(result)
    assert message.model == result["model"]
    assert message.raw_finish_reason == result.get("stopReason")
    back = mcp.to_create_message_result(message)
    assert back == result
    types.CreateMessageResultWithTools.model_validate(back)
    schema_valid(back, "CreateMessageResult")
    fresh = AssistantMessage(role="assistant", content="hi", finish_reason="length")
    written = mcp.to_create_message_result(fresh, model="m1")
    assert written == {
        "role": "assistant",
        "content": {"type": "text", "text": "hi"},
        "model": "m1",
        "stopReason": "maxTokens",
    }
    types.CreateMessageResult.model_validate(written)


@pytest.mark.parametrize(
    "name",
    [
        n
        for n in NAMES
        if n.split("/")[0] in ("SamplingMessage", "ToolUseContent", "ToolResultContent")
    ],
)
def test_recorded_sampling_parts_round_trip(name: str) -> None:
    value = example(name)
    kind = name.split("/")[0]
    if kind == "SamplingMessage":
        sampled = [value]
    else:
        sampled = [{"role": "assistant" if kind == "ToolUseContent" else "user", "content": value}]
    assert mcp.to_sampling_messages(mcp.from_sampling_messages(sampled)) == sampled
    schema_valid(sampled[0], "SamplingMessage")


# ------------------------------------------------------------------ packaging


def test_the_module_works_without_the_mcp_sdk() -> None:
    script = (
        "import sys; sys.modules['mcp'] = None; sys.modules['mcp_types'] = None\n"
        "import chatschema\n"
        "assert 'chatschema.interop.mcp' not in sys.modules\n"
        "from chatschema.interop import mcp\n"
        "m = mcp.from_call_tool_result({'content': [{'type': 'text', 'text': 'ok'}]}, 'c')\n"
        "print(mcp.to_call_tool_result(m)['content'][0]['text'])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "ok"


# ------------------------------------------------------------------ the docs table


def _doc_table() -> tuple[list[str], dict[str, list[str]]]:
    text = (ROOT / "docs" / "mcp.md").read_text("utf-8")
    lines = [line for line in text.splitlines() if line.startswith("| ")]
    start = next(i for i, line in enumerate(lines) if line.startswith("| MCP content in a tool"))
    header = [cell.strip() for cell in lines[start].strip("|").split("|")]
    rows = {}
    for line in lines[start + 1 :]:
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        rows[cells[0]] = cells[1:]
    return header[1:], rows


_DOC_BLOCKS = {
    "`text`": TEXT,
    "`image`": IMAGE,
    "`audio`": AUDIO,
    "`resource_link`": LINK,
    "`resource` (text)": EMBEDDED,
}


def _sent(out: Any, block: dict[str, Any]) -> bool:
    inner = block.get("resource", {})
    data = block.get("data") or inner.get("blob")
    if data:
        return carries(out, data)
    text = block.get("text") or inner.get("text") or block["uri"]
    return _holds_text(out, text)


def _holds_text(value: Any, text: str) -> bool:
    if isinstance(value, str):
        return text in value
    if isinstance(value, dict):
        return any(_holds_text(item, text) for item in value.values())
    if isinstance(value, (list, tuple)):
        return any(_holds_text(item, text) for item in value)
    return False


def test_the_provider_table_of_the_mcp_page_is_true() -> None:
    """docs/mcp.md says, per provider, whether MCP content in a tool result is sent."""
    providers, rows = _doc_table()
    assert set(providers) <= set(PROVIDERS)
    blob = {
        "type": "resource",
        "resource": example("BlobResourceContents/image-file-contents.json"),
    }
    for label, said in rows.items():
        block = blob if label == "`resource` (blob, an image)" else example(_DOC_BLOCKS[label])
        result = {"content": [block], "resultType": "complete"}
        for provider, expected in zip(providers, said, strict=True):
            conversation = Conversation(messages=_conversation(result), tools=TOOLS)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = get_codec(provider).encode(conversation)
                seen = "sent"
                assert _sent(out, block), (label, provider)
            except UnsupportedContentError as error:
                assert "/messages/2/content/0" in str(error)
                seen = "refused"
            assert seen == expected, (label, provider)
