"""Resource links, embedded resources and compaction blocks through every codec and utility.

- Each codec sends an embedded resource as the text, image or document part its format
  has (in user content and in tool results), and anything else under the
  unsupported-content policy, at the block's own pointer: never a silent loss, never a
  crash. Every request written is checked by the SDK oracles (``tests/oracle.py``).
- An image in a tool result is never silently dropped, by any codec.
- ``extras["mcp"]`` (MCP ``annotations`` and ``_meta``) is application data: no
  ``foreign_extras`` problem for any target.
- The history utilities, rendering, token estimates, masking, redaction, format
  detection and the LangChain / OpenHands interop handle the three new blocks.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from typing import Any

import pytest
from oracle import validate_request

import chatschema
from chatschema import (
    AssistantMessage,
    CompactionBlock,
    Conversation,
    ImageBlock,
    ResourceBlock,
    ResourceLinkBlock,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolMessage,
    UserMessage,
)
from chatschema.errors import UnsupportedContentError
from chatschema.providers import PROVIDERS, get_codec
from chatschema.providers._common import foreign_extras
from chatschema.providers._common.resources import resource_as

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAE"
    "hQGAhKmMIQAAAABJRU5ErkJggg=="
)
PDF = "JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K"
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
MCP = {"mcp": {"annotations": {"audience": ["assistant"], "priority": 0.5}, "_meta": {"k": 1}}}

BLOCKS: dict[str, Any] = {
    "link": ResourceLinkBlock(
        uri="file:///srv/notes.txt", name="notes.txt", mime_type="text/plain"
    ),
    "link_image": ResourceLinkBlock(uri="https://example.com/chart.png", mime_type="image/png"),
    "link_pdf": ResourceLinkBlock(uri="https://example.com/r.pdf", mime_type="application/pdf"),
    "text": ResourceBlock(uri="file:///srv/notes.md", text="Notes body", mime_type="text/markdown"),
    "image": ResourceBlock(uri="file:///srv/chart.png", base64=PNG, mime_type="image/png"),
    "pdf": ResourceBlock(uri="file:///srv/report.pdf", base64=PDF, mime_type="application/pdf"),
    "audio": ResourceBlock(uri="file:///srv/a.wav", base64=WAV, mime_type="audio/wav"),
    "binary": ResourceBlock(uri="file:///srv/blob.bin", base64="AAECAw=="),
}

CODECS = (
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "bedrock_converse",
    "otel_genai",
    "gemini_interactions",
    "mistral",
    "open_responses",
)

# What each codec writes for each block, in user content and in a tool result: a key or
# "type" value of the wire part that carries it, or None (unsupported: the policy).
_U = None
EXPECTED: dict[str, dict[str, tuple[str | None, str | None]]] = {
    "anthropic": {
        "link": (_U, _U),
        "link_image": ("image", "image"),  # source {"type": "url"}
        "link_pdf": ("document", "document"),
        "text": ("document", "document"),  # a plain-text document titled with the URI
        "image": ("image", "image"),
        "pdf": ("document", "document"),
        "audio": (_U, _U),
        "binary": (_U, _U),
    },
    "openai_chat": {
        "link": (_U, _U),
        "link_image": ("image_url", "image_url"),  # tool images: in a user message after
        "link_pdf": (_U, _U),  # no file by URL
        "text": ("Notes body", "Notes body"),
        "image": ("image_url", "image_url"),
        "pdf": ("file_data", _U),  # tool messages take text only
        "audio": ("input_audio", _U),
        "binary": (_U, _U),
    },
    "openai_responses": {
        "link": (_U, _U),
        "link_image": ("input_image", "input_image"),
        "link_pdf": ("file_url", "file_url"),
        "text": ("Notes body", "Notes body"),
        "image": ("input_image", "input_image"),
        "pdf": ("input_file", "input_file"),
        "audio": (_U, _U),
        "binary": (_U, _U),
    },
    "gemini": {
        "link": (_U, _U),
        "link_image": ("file_data", "file_data"),
        "link_pdf": ("file_data", "file_data"),
        "text": ("Notes body", "Notes body"),
        "image": ("inline_data", "inline_data"),  # in a tool result: function_response parts
        "pdf": ("inline_data", "inline_data"),
        "audio": ("inline_data", "inline_data"),
        "binary": (_U, _U),
    },
    "bedrock_converse": {
        "link": (_U, _U),
        "link_image": (_U, _U),  # bytes or S3 only
        "link_pdf": (_U, _U),
        "text": ("Notes body", "Notes body"),
        "image": ("image", "image"),
        "pdf": ("document", "document"),
        "audio": ("audio", _U),  # ToolResultContentBlock has no audio
        "binary": (_U, _U),
    },
    "gemini_interactions": {
        "link": (_U, _U),
        "link_image": ("image", "image"),  # an item with its uri
        "link_pdf": ("document", "document"),
        "text": ("Notes body", "Notes body"),
        "image": ("image", "image"),  # in a tool result: function_result items
        "pdf": ("document", "document"),
        "audio": ("audio", "audio"),
        "binary": (_U, _U),
    },
    "mistral": {
        "link": (_U, _U),
        "link_image": ("image_url", "image_url"),  # tool images: in a user message after
        "link_pdf": ("document_url", "document_url"),  # its tool messages take chunks
        "text": ("Notes body", "Notes body"),
        "image": ("image_url", "image_url"),
        "pdf": ("document_url", "document_url"),
        "audio": ("input_audio", "input_audio"),
        "binary": (_U, _U),
    },
    # telemetry records every resource as a generic part of its own type
    "otel_genai": {
        name: (
            ("resource_link", "resource_link")
            if name.startswith("link")
            else ("resource", "resource")
        )
        for name in BLOCKS
    },
}
EXPECTED["open_responses"] = EXPECTED["openai_responses"]  # the same wire parts

TOOL = ToolDefinition(name="read", parameters={"type": "object"})


def conversation(block: Any, where: str) -> tuple[Conversation, int]:
    """A conversation with ``block`` second in a user message or a tool result."""
    if where == "user":
        return Conversation(messages=[UserMessage(content=[TextBlock(text="See:"), block])]), 0
    messages = [
        UserMessage(content="Read it"),
        AssistantMessage(tool_calls=[ToolCall(id="call_1", name="read", arguments={})]),
        ToolMessage(tool_call_id="call_1", content=[TextBlock(text="Done."), block]),
    ]
    return Conversation(messages=messages, tools=[TOOL]), 2


def tokens(value: Any) -> Iterator[Any]:
    """Every dict key, string and bytes value in a payload."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from tokens(item)
    elif isinstance(value, list):
        for item in value:
            yield from tokens(item)
    else:
        yield value


def omitted(payload: Any) -> bool:
    """Whether a placeholder text is in the payload."""
    return any(isinstance(item, str) and "omitted" in item for item in tokens(payload))


CASES = [
    (codec, name, where, policy)
    for codec in CODECS
    for name in BLOCKS
    for where in ("user", "tool")
    for policy in ("error", "placeholder", "drop")
]


@pytest.mark.parametrize(("codec", "name", "where", "policy"), CASES)
def test_every_codec_sends_or_refuses_each_resource(
    codec: str, name: str, where: str, policy: str
) -> None:
    expected = EXPECTED[codec][name][where == "tool"]
    conv, index = conversation(BLOCKS[name], where)
    encode = get_codec(codec).encode
    if expected is None and policy == "error":
        with pytest.raises(UnsupportedContentError) as caught:
            encode(conv, unsupported=policy)
        pointers = [problem.pointer for problem in caught.value.problems]
        assert pointers == [f"/messages/{index}/content/1"]
        return
    payload = encode(conv, unsupported=policy)
    validate_request(codec, payload)
    found = set(tokens(payload))
    if expected is not None:
        texts = [item for item in found if isinstance(item, str) and "Notes body" in item]
        assert expected in found or (expected == "Notes body" and texts), (expected, payload)
        assert not omitted(payload)
    else:
        assert omitted(payload) is (policy == "placeholder"), payload


@pytest.mark.parametrize("codec", [c for c in CODECS if c != "otel_genai"])
@pytest.mark.parametrize("name", [name for name in BLOCKS if name != "link"])
def test_a_mapped_resource_is_sent_as_the_block_it_maps_to(codec: str, name: str) -> None:
    """The same request as the equivalent neutral block: every rule of that block applies."""
    block = BLOCKS[name]
    alt = resource_as(block, text="document" if codec == "anthropic" else "text")
    if alt is None or EXPECTED[codec][name][0] is None:
        pytest.skip("no equivalent in this format")
    encode = get_codec(codec).encode
    left = encode(conversation(block, "user")[0])
    right = encode(conversation(alt, "user")[0])
    assert left == right


def test_resource_as_maps_by_media_type() -> None:
    text = resource_as(BLOCKS["text"])
    assert isinstance(text, TextBlock) and text.text == "Notes body"
    document = resource_as(BLOCKS["text"], text="document")
    assert document is not None and document.type == "text-plain"
    assert document.title == "file:///srv/notes.md"
    pdf = resource_as(BLOCKS["pdf"])
    assert pdf is not None and pdf.type == "file" and pdf.filename == "report.pdf"
    assert resource_as(BLOCKS["binary"]) is None
    assert resource_as(BLOCKS["link"]) is None
    # a text/* resource given as bytes is its text; bytes that are not UTF-8 are not
    utf8 = ResourceBlock(
        uri="file:///a", base64=base64.b64encode(b"caf\xc3\xa9").decode(), mime_type="text/plain"
    )
    assert resource_as(utf8) == TextBlock(text="café")
    latin = ResourceBlock(
        uri="file:///a", base64=base64.b64encode(b"caf\xe9").decode(), mime_type="text/plain"
    )
    assert resource_as(latin) is None
    # the block's extras and cache marker go with it
    marked = ResourceBlock(uri="file:///x.png", base64=PNG, mime_type="image/png", extras=MCP)
    image = resource_as(marked)
    assert isinstance(image, ImageBlock) and image.extras == MCP


def test_a_string_content_format_sends_a_text_resource_as_text() -> None:
    conv, _ = conversation(BLOCKS["text"], "user")
    for codec in ("openai_responses", "gemini", "bedrock_converse", "anthropic"):
        payload = get_codec(codec).encode(conv, content_format="string")
        assert "Notes body" in json.dumps(payload, default=repr), codec


# ------------------------------------------------------------- tool images


def carries_image(payload: Any) -> bool:
    """Whether the PNG's data is in the payload (base64, data URL or bytes)."""
    raw = base64.b64decode(PNG)
    return any((isinstance(item, str) and PNG in item) or item == raw for item in tokens(payload))


@pytest.mark.parametrize("codec", PROVIDERS)
@pytest.mark.parametrize("policy", ["error", "placeholder"])
def test_an_image_in_a_tool_result_is_never_silently_dropped(codec: str, policy: str) -> None:
    image = ImageBlock(base64=PNG, mime_type="image/png")
    conv, index = conversation(image, "tool")
    try:
        payload = get_codec(codec).encode(conv, unsupported=policy)
    except UnsupportedContentError as error:
        assert policy == "error"
        assert [p.pointer for p in error.problems] == [f"/messages/{index}/content/1"]
        return
    assert carries_image(payload) or (policy == "placeholder" and omitted(payload)), payload


# ------------------------------------------------------------- mcp extras


def mcp_conversation() -> Conversation:
    """A conversation whose messages and blocks all carry MCP annotations and _meta."""
    blocks = [
        TextBlock(text="See:", extras=MCP),
        ResourceBlock(uri="file:///srv/notes.md", text="Notes body", extras=MCP),
        ImageBlock(base64=PNG, mime_type="image/png", extras=MCP),
    ]
    messages = [
        UserMessage(content=blocks, extras=MCP),
        AssistantMessage(tool_calls=[ToolCall(id="call_1", name="read", arguments={})]),
        ToolMessage(tool_call_id="call_1", content=list(blocks), extras=MCP),
    ]
    return Conversation(messages=messages, tools=[TOOL], extras=MCP)


@pytest.mark.parametrize("codec", PROVIDERS)
def test_mcp_extras_are_never_foreign(codec: str) -> None:
    conv = mcp_conversation()
    assert foreign_extras(conv, codec) == []
    problems = get_codec(codec).check(conv)
    assert [p for p in problems if p.keyword == "foreign_extras"] == []
    # another format's extras are still reported next to them
    other = "anthropic" if codec != "anthropic" else "gemini"
    mixed = conv.model_copy(update={"extras": {**MCP, other: {"x_unknown": 1}}})
    assert foreign_extras(mixed, codec) == [(f"/extras/{other}/x_unknown", other, "x_unknown")]


# ------------------------------------------------------------- otel round trip


def test_otel_genai_records_resources_and_reads_them_back() -> None:
    from chatschema.providers import otel_genai

    blocks = [
        ResourceLinkBlock(
            uri="file:///srv/a.txt",
            name="a",
            title="A",
            description="d",
            mime_type="text/plain",
            size=3,
        ),
        BLOCKS["text"],
        BLOCKS["image"],
    ]
    conv = Conversation(messages=[UserMessage(content=blocks)])
    payload = otel_genai.encode(conv)
    validate_request("otel_genai", payload)
    back = otel_genai.decode_conversation(payload)
    assert back.messages[0].content == blocks
    # inline data follows the telemetry policy, and says so
    omitted_data = otel_genai.encode(conv, inline_data="omit")
    part = omitted_data["gen_ai.input.messages"][0]["parts"][2]
    assert part["base64"] == "" and part["chatschema.omitted"]["base64"]["reason"] == "inline_data"


# ------------------------------------------------------------- utilities

COMPACTION = CompactionBlock(
    text="Earlier turns: the user asked for notes.", encrypted_content="enc_1", provider="anthropic"
)


def test_rendering_shows_resource_and_compaction_text() -> None:
    from chatschema._render import block_to_str

    assert block_to_str(BLOCKS["text"]) == "[resource file:///srv/notes.md]\nNotes body"
    assert (
        block_to_str(BLOCKS["image"])
        == "[resource file:///srv/chart.png: image/png, 72 bytes inline]"
    )
    assert block_to_str(BLOCKS["binary"]) == "[resource file:///srv/blob.bin: data, 6 bytes inline]"
    assert block_to_str(BLOCKS["link"]) == "[resource link notes.txt: file:///srv/notes.txt]"
    assert block_to_str(COMPACTION) == (
        "[compaction (with opaque data): Earlier turns: the user asked for notes.]"
    )
    message = AssistantMessage(content=[COMPACTION, TextBlock(text="Hi")])
    buffer = chatschema.get_buffer_string([message])
    assert "Earlier turns" in buffer and "enc_1" not in buffer


def test_token_estimates_count_resources_and_opaque_compaction() -> None:
    from chatschema import count_tokens_approximately

    def count(*blocks: Any) -> int:
        return count_tokens_approximately([UserMessage(content=[TextBlock(text="x"), *blocks])])

    base = count()
    # the URI and the text a model reads (len("file:///srv/notes.md\nNotes body") = 31)
    assert count(BLOCKS["text"]) > base
    assert count(BLOCKS["image"]) >= base + 256  # bytes: one media item
    assert count(COMPACTION) >= base + 256  # opaque context: one media item, plus its text
    assert count(CompactionBlock(text="short")) < base + 256


def test_truncating_a_tool_result_shortens_embedded_text_resources() -> None:
    from chatschema.history import truncate_tool_output

    long = ResourceBlock(uri="file:///log.txt", text="a" * 1000, mime_type="text/plain")
    message = ToolMessage(tool_call_id="c", content=[TextBlock(text="ok"), long, BLOCKS["image"]])
    short = truncate_tool_output(message, max_chars=100)
    assert isinstance(short.content, list)
    assert len(short.content[1].text) < 200  # type: ignore[union-attr]
    assert short.content[2] == BLOCKS["image"]
    assert short.artifact is not None and short.artifact["content"][1]["text"] == "a" * 1000


def test_trimming_keeps_a_compaction_block_in_place() -> None:
    from chatschema.history import trim_messages

    messages: list[Any] = [
        UserMessage(content="old " * 200),
        AssistantMessage(content=[COMPACTION, TextBlock(text="Summary so far.")]),
        UserMessage(content="next?"),
    ]
    kept = trim_messages(messages, max_tokens=400, token_counter="approximate")
    assert kept == messages[1:]


def test_masked_repr_hides_opaque_and_inline_data() -> None:
    shown = repr(COMPACTION) + repr(BLOCKS["image"])
    assert "enc_1" not in shown and PNG not in shown


def test_redaction_takes_out_compaction_opaque_data() -> None:
    from chatschema.datasets._rows import redact_row

    row = {
        "messages": [
            chatschema.to_dict(AssistantMessage(content=[COMPACTION, TextBlock(text="ok")]))
        ]
    }
    text, changed, problems = redact_row(json.dumps(row))
    assert problems == [] and changed == 1 and text is not None
    block = json.loads(text)["messages"][0]["content"][0]
    assert block == {"type": "compaction", "text": COMPACTION.text}


def test_detection_reads_the_new_blocks_as_neutral() -> None:
    from chatschema._detect import detect_format

    doc = chatschema.to_dict(mcp_conversation())
    assert detect_format(doc) == "neutral"


def test_langchain_round_trip_is_lossless() -> None:
    pytest.importorskip("langchain_core")
    from chatschema.interop.langchain import from_langchain, to_langchain

    messages: list[Any] = [
        UserMessage(content=[TextBlock(text="See:"), *BLOCKS.values()], extras=MCP),
        AssistantMessage(content=[COMPACTION, TextBlock(text="ok")]),
    ]
    lc = to_langchain(messages)
    first = lc[0].content[2]
    assert isinstance(first, dict) and first["type"] == "resource_link"
    assert first["uri"] == "https://example.com/chart.png"
    assert from_langchain(lc) == messages


def test_openhands_takes_text_and_images_and_refuses_the_rest() -> None:
    from chatschema.interop.openhands import to_openhands

    message = UserMessage(content=[BLOCKS["text"], BLOCKS["image"]])
    items = to_openhands([message])[0]["content"]
    assert [item["type"] for item in items] == ["text", "image"]
    assert items[0]["text"] == "Notes body"
    with pytest.raises(UnsupportedContentError):
        to_openhands([UserMessage(content=[BLOCKS["link"]])])
    placeholder = to_openhands([UserMessage(content=[COMPACTION])], unsupported="placeholder")
    assert placeholder[0]["content"][0]["text"] == "[compaction content omitted]"
