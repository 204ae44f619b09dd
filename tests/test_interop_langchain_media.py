"""Images, audio and files in every spelling LangChain documents, read without standardize.

LangChain itself is the oracle: each form is the one ``langchain_core`` documents and
translates (``content_blocks``, ``_normalize_messages``); the neutral block must say what
LangChain's own standard block says, come back to LangChain exactly, and reach Gemini and
Bedrock (requests checked with the SDKs' own types) without a non-standard refusal.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core import messages as lc
from oracle import validate_request

from chatschema import UnsupportedContentError, to_dict
from chatschema.interop.langchain import (
    from_langchain,
    message_from_langchain,
    message_to_langchain,
    to_langchain,
)
from chatschema.providers import bedrock_converse, gemini

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ"
    "AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
JPEG = "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAgGBgcGBQgHBwcJCQgKDBQNDAsLDBkSEw8UHRofHh0aHBwg"
PDF = "JVBERi0xLjQKJcOkw7zDtsOfCjIgMCBvYmoKPDwvTGVuZ3RoIDMgMCBSL0ZpbHRlci9GbGF0ZURlY29kZT4+"
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
URL = "https://example.com/cat.png"


def png_url(mime: str = "image/png", data: str = PNG) -> str:
    return f"data:{mime};base64,{data}"


# Where a provider can take the block: "inline" (both), "url" (Gemini; Bedrock takes
# no URL), "file_id" (neither: an OpenAI file id names no Gemini or Bedrock file).
FORMS: list[tuple[str, dict[str, Any], dict[str, Any], str]] = [
    (
        "image_url-data-url",
        {"type": "image_url", "image_url": {"url": png_url()}},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        "inline",
    ),
    (
        "image_url-data-url-detail",
        {"type": "image_url", "image_url": {"url": png_url(), "detail": "high"}},
        {"type": "image", "base64": PNG, "mime_type": "image/png", "detail": "high"},
        "inline",
    ),
    (
        "image_url-jpeg-detail-low",
        {"type": "image_url", "image_url": {"url": png_url("image/jpeg", JPEG), "detail": "low"}},
        {"type": "image", "base64": JPEG, "mime_type": "image/jpeg", "detail": "low"},
        "inline",
    ),
    (
        "image_url-https",
        {"type": "image_url", "image_url": {"url": URL}},
        {"type": "image", "url": URL},
        "url",
    ),
    (
        "image_url-https-detail-auto",
        {"type": "image_url", "image_url": {"url": URL, "detail": "auto"}},
        {"type": "image", "url": URL, "detail": "auto"},
        "url",
    ),
    (
        "image_url-string",
        {"type": "image_url", "image_url": png_url()},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        "inline",
    ),
    (
        "input_audio-wav",
        {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
        "inline",
    ),
    (
        "input_audio-mp3",
        {"type": "input_audio", "input_audio": {"data": WAV, "format": "mp3"}},
        {"type": "audio", "base64": WAV, "mime_type": "audio/mpeg"},
        "inline",
    ),
    (
        "file-data-url",
        {
            "type": "file",
            "file": {"file_data": f"data:application/pdf;base64,{PDF}", "filename": "r.pdf"},
        },
        {"type": "file", "base64": PDF, "mime_type": "application/pdf", "filename": "r.pdf"},
        "inline",
    ),
    (
        "file-bare-base64",
        {"type": "file", "file": {"file_data": PDF, "filename": "r.pdf"}},
        {"type": "file", "base64": PDF, "mime_type": "application/pdf", "filename": "r.pdf"},
        "inline",
    ),
    (
        "file-id",
        {"type": "file", "file": {"file_id": "file-abc123"}},
        {"type": "file", "file_id": "file-abc123"},
        "file_id",
    ),
    (
        "v0-image-base64",
        {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        "inline",
    ),
    (
        "v0-image-base64-no-mime-type",
        {"type": "image", "source_type": "base64", "data": PNG},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        "inline",
    ),
    (
        "v0-image-url",
        {"type": "image", "source_type": "url", "url": URL},
        {"type": "image", "url": URL},
        "url",
    ),
    (
        "v0-image-data-url",
        {"type": "image", "source_type": "url", "url": png_url()},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        "inline",
    ),
    (
        "v0-image-id",
        {"type": "image", "source_type": "id", "id": "file-img"},
        {"type": "image", "file_id": "file-img"},
        "file_id",
    ),
    (
        "v0-image-block-id",
        {
            "type": "image",
            "source_type": "base64",
            "data": PNG,
            "mime_type": "image/png",
            "id": "b1",
        },
        {"type": "image", "base64": PNG, "mime_type": "image/png", "id": "b1"},
        "inline",
    ),
    (
        "v0-file-base64",
        {"type": "file", "source_type": "base64", "data": PDF, "mime_type": "application/pdf"},
        {"type": "file", "base64": PDF, "mime_type": "application/pdf"},
        "inline",
    ),
    (
        "v0-file-url",
        {"type": "file", "source_type": "url", "url": "https://example.com/r.pdf"},
        {"type": "file", "url": "https://example.com/r.pdf"},
        "url",
    ),
    (
        "v0-file-id",
        {"type": "file", "source_type": "id", "id": "file-doc"},
        {"type": "file", "file_id": "file-doc"},
        "file_id",
    ),
    (
        "v0-file-text",
        {"type": "file", "source_type": "text", "url": "Meeting notes.", "mime_type": "text/plain"},
        {"type": "text-plain", "text": "Meeting notes.", "mime_type": "text/plain"},
        "inline",
    ),
    (
        "v0-audio-base64",
        {"type": "audio", "source_type": "base64", "data": WAV, "mime_type": "audio/wav"},
        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
        "inline",
    ),
    (
        "v0-audio-url",
        {"type": "audio", "source_type": "url", "url": "https://example.com/a.wav"},
        {"type": "audio", "url": "https://example.com/a.wav"},
        "url",
    ),
    (
        "v1-image-base64",
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        "inline",
    ),
    (
        "v1-image-base64-no-mime-type",
        {"type": "image", "base64": JPEG},
        {"type": "image", "base64": JPEG, "mime_type": "image/jpeg"},
        "inline",
    ),
    (
        "v1-image-data-url",
        {"type": "image", "url": png_url()},
        {"type": "image", "base64": PNG, "mime_type": "image/png"},
        "inline",
    ),
    (
        "v1-image-url-detail",
        {"type": "image", "url": URL, "extras": {"detail": "high"}},
        {"type": "image", "url": URL, "detail": "high"},
        "url",
    ),
    (
        "v1-file-data-url-filename",
        {
            "type": "file",
            "url": f"data:application/pdf;base64,{PDF}",
            "extras": {"filename": "r.pdf"},
        },
        {"type": "file", "base64": PDF, "mime_type": "application/pdf", "filename": "r.pdf"},
        "inline",
    ),
    (
        "v1-file-id",
        {"type": "file", "file_id": "file-abc123"},
        {"type": "file", "file_id": "file-abc123"},
        "file_id",
    ),
    (
        "v1-audio-base64",
        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
        {"type": "audio", "base64": WAV, "mime_type": "audio/wav"},
        "inline",
    ),
    (
        "v1-text-plain",
        {"type": "text-plain", "text": "Meeting notes.", "mime_type": "text/plain"},
        {"type": "text-plain", "text": "Meeting notes.", "mime_type": "text/plain"},
        "inline",
    ),
]
IDS = [form[0] for form in FORMS]

# Where the neutral block says more than LangChain's own translation, or says it as the
# other chatschema readers do: LangChain leaves the bare image_url string and bare
# base64 file_data untranslated, calls mp3 `audio/mp3` (the openai_chat codec and
# Bedrock's format table: `audio/mpeg`), and guesses no image type.
# Each entry: what LangChain says instead (None: no data, the part left non_standard or
# as it is; a None value: LangChain has no such field).
LANGCHAIN_DIFFERS: dict[str, dict[str, Any] | None] = {
    "image_url-string": None,
    "file-bare-base64": None,
    "input_audio-mp3": {"mime_type": "audio/mp3"},
    "v0-image-base64-no-mime-type": {"mime_type": None},
    "v1-image-base64-no-mime-type": {"mime_type": None},
}

# langchain-core 1.7.2 cannot translate a v0 block with a block id (it passes the id twice).
LANGCHAIN_FAILS = {"v0-image-block-id": "multiple values for keyword argument 'id'"}


def human(item: dict[str, Any]) -> lc.HumanMessage:
    return lc.HumanMessage(content=[{"type": "text", "text": "What is this?"}, item])


def neutral_block(item: dict[str, Any]) -> dict[str, Any]:
    """The neutral block of ``item``, without the record of its LangChain spelling."""
    block: dict[str, Any] = to_dict(message_from_langchain(human(item)))["content"][1]
    block.pop("extras", None)
    return block


_INVENTED = re.compile(r"lc_[0-9a-f-]{36}")


def langchain_fields(block: dict[str, Any]) -> dict[str, Any]:
    """What LangChain's standard block says, in neutral spelling (invented ids left out)."""
    keys = ("type", "url", "base64", "file_id", "mime_type", "text")
    fields = {key: block[key] for key in keys if key in block}
    url = fields.get("url")
    if isinstance(url, str) and url.startswith("data:") and "mime_type" not in fields:
        match = re.fullmatch(r"data:([^;,]+);base64,(.+)", url)
        assert match is not None
        del fields["url"]
        fields.update(mime_type=match[1], base64=match[2])
    extras = block.get("extras", {})
    for key in ("detail", "filename"):
        if key in extras:
            fields[key] = extras[key]
    if isinstance(block.get("id"), str) and not _INVENTED.fullmatch(block["id"]):
        fields["id"] = block["id"]
    return fields


# ----------------------------------------------------------------------------- (a)


@pytest.mark.parametrize(("name", "item", "expected", "where"), FORMS, ids=IDS)
def test_form_becomes_the_neutral_block(
    name: str, item: dict[str, Any], expected: dict[str, Any], where: str
) -> None:
    assert neutral_block(item) == expected


@pytest.mark.parametrize(("name", "item", "expected", "where"), FORMS, ids=IDS)
def test_neutral_block_says_what_langchain_says(
    name: str, item: dict[str, Any], expected: dict[str, Any], where: str
) -> None:
    if name in LANGCHAIN_FAILS:
        with pytest.raises(TypeError, match=LANGCHAIN_FAILS[name]):
            human(item).content_blocks  # noqa: B018
        return
    standard = human(item).content_blocks[1]
    if name in LANGCHAIN_DIFFERS:
        differs = LANGCHAIN_DIFFERS[name]
        if differs is None:
            assert not {"base64", "url", "file_id"} & standard.keys()
            return
        changed = {**expected, **differs}
        expected = {key: value for key, value in changed.items() if value is not None}
    assert standard["type"] != "non_standard"
    assert langchain_fields(dict(standard)) == expected


# ----------------------------------------------------------------------------- (b)


@pytest.mark.parametrize(("name", "item", "expected", "where"), FORMS, ids=IDS)
def test_form_comes_back_to_langchain_as_it_came(
    name: str, item: dict[str, Any], expected: dict[str, Any], where: str
) -> None:
    message = human(item)
    back = message_to_langchain(message_from_langchain(message))
    assert type(back) is lc.HumanMessage
    assert back.model_dump() == message.model_dump()
    assert back.content[1] == item  # the original spelling, not a translation of it
    # and the neutral block survives neutral -> LangChain -> neutral
    neutral = to_dict(message_from_langchain(message))
    assert to_dict(message_from_langchain(message_to_langchain(neutral))) == neutral


# ----------------------------------------------------------------------------- (c)


@pytest.mark.parametrize(("name", "item", "expected", "where"), FORMS, ids=IDS)
def test_form_reaches_gemini_and_bedrock(
    name: str, item: dict[str, Any], expected: dict[str, Any], where: str
) -> None:
    conversation = from_langchain([human(item)])
    outcomes: dict[str, Any] = {}
    for codec, provider in ((gemini, "gemini"), (bedrock_converse, "bedrock_converse")):
        try:
            request = codec.encode(conversation)
        except UnsupportedContentError as error:
            assert "non-standard" not in str(error), str(error)
            assert error.problems[0].pointer == "/messages/0/content/1"
            outcomes[provider] = str(error.problems[0].message)
        else:
            validate_request(provider, request)
            outcomes[provider] = request
    if where == "inline":
        parts = outcomes["gemini"]["contents"][0]["parts"]
        assert "inline_data" in parts[1]
        if "base64" in expected:
            assert parts[1]["inline_data"] == {
                "mime_type": expected["mime_type"],
                "data": expected["base64"],
            }
        content = outcomes["bedrock_converse"]["messages"][0]["content"]
        assert next(iter(content[1])) in ("image", "audio", "document")
    elif where == "url":
        parts = outcomes["gemini"]["contents"][0]["parts"]
        assert parts[1]["file_data"]["file_uri"] == expected["url"]
        assert outcomes["bedrock_converse"].endswith("by URL cannot be sent to bedrock_converse")
    else:
        assert "file id" in outcomes["gemini"]
        assert outcomes["bedrock_converse"].endswith(
            "by file id cannot be sent to bedrock_converse"
        )


def test_image_url_data_url_reaches_gemini_and_bedrock_by_default() -> None:
    # The everyday LangChain history: it used to become a non_standard block that
    # Gemini and Bedrock refused.
    history = [
        lc.SystemMessage("Describe images."),
        lc.HumanMessage(
            content=[
                {"type": "text", "text": "What is in this picture?"},
                {"type": "image_url", "image_url": {"url": png_url(), "detail": "high"}},
            ]
        ),
    ]
    conversation = from_langchain(history)
    assert conversation[1].content[1].type == "image"
    parts = gemini.encode(conversation)["contents"][0]["parts"]
    assert parts[1] == {"inline_data": {"mime_type": "image/png", "data": PNG}}
    request = bedrock_converse.encode(conversation)
    validate_request("bedrock_converse", request)
    image = request["messages"][0]["content"][1]["image"]
    assert image["format"] == "png" and image["source"]["bytes"].startswith(b"\x89PNG")
    assert [m.model_dump() for m in to_langchain(conversation)] == [m.model_dump() for m in history]


# --------------------------------------------------------------- spellings kept apart


def test_keys_of_the_openai_part_stay_and_come_back() -> None:
    item = {
        "type": "image_url",
        "image_url": {"url": png_url(), "detail": "medium", "cache": True},
        "detail": "low",
    }
    block = to_dict(message_from_langchain(human(item)))["content"][1]
    # "medium" is no neutral detail: kept with the inner object's other keys
    assert block == {
        "type": "image",
        "base64": PNG,
        "mime_type": "image/png",
        "extras": {
            "langchain": {
                "detail": "low",
                "form": "openai",
                "image_url": {"detail": "medium", "cache": True},
            }
        },
    }
    assert message_to_langchain(message_from_langchain(human(item))).content[1] == item


def test_audio_format_spelled_otherwise_comes_back() -> None:
    item = {"type": "input_audio", "input_audio": {"data": WAV, "format": "MP3"}}
    assert neutral_block(item) == {"type": "audio", "base64": WAV, "mime_type": "audio/mpeg"}
    assert message_to_langchain(message_from_langchain(human(item))).content[1] == item


def test_a_key_that_would_read_back_as_a_record_keeps_the_item_as_it_is() -> None:
    item = {"type": "image", "url": URL, "form": "openai"}
    block = to_dict(message_from_langchain(human(item)))["content"][1]
    assert block["type"] == "non_standard" and block["value"] == item
    assert message_to_langchain(message_from_langchain(human(item))).content[1] == item


def test_block_edited_out_of_its_spelling_goes_back_as_a_v1_block() -> None:
    neutral = to_dict(message_from_langchain(human(FORMS[0][1])))
    image = neutral["content"][1]
    del image["base64"], image["mime_type"]
    image["file_id"] = "file-new"  # no image_url part holds a file id
    back = message_to_langchain(neutral)
    record = {"chatschema": {"extras": {"langchain": {"form": "openai"}}}}
    assert back.content[1] == {"type": "image", "file_id": "file-new", "extras": record}
    assert back.content_blocks[1]["file_id"] == "file-new"
    assert to_dict(message_from_langchain(back)) == neutral


def test_media_type_the_spelling_cannot_say_goes_back_as_a_v1_block() -> None:
    neutral = to_dict(message_from_langchain(human(FORMS[6][1])))  # input_audio, wav
    neutral["content"][1]["mime_type"] = "audio/x-wav"  # input_audio would say "wav"
    back = message_to_langchain(neutral)
    assert back.content[1]["type"] == "audio"
    assert back.content[1]["mime_type"] == "audio/x-wav"
    assert to_dict(message_from_langchain(back)) == neutral


def test_neutral_media_without_a_record_goes_to_langchain_as_v1_blocks() -> None:
    neutral = {
        "role": "user",
        "content": [
            {"type": "image", "base64": PNG, "mime_type": "image/png", "detail": "high"},
            {"type": "file", "base64": PDF, "mime_type": "application/pdf", "filename": "r.pdf"},
        ],
    }
    back = message_to_langchain(neutral)
    assert back.content == [
        {"type": "image", "base64": PNG, "mime_type": "image/png", "extras": {"detail": "high"}},
        {
            "type": "file",
            "base64": PDF,
            "mime_type": "application/pdf",
            "extras": {"filename": "r.pdf"},
        },
    ]
    assert to_dict(message_from_langchain(back)) == neutral


# --------------------------------------------------------------------- standardize


def test_standardize_invents_no_ids_and_gives_the_same_output_twice() -> None:
    message = lc.HumanMessage(
        content=[
            {"type": "image_url", "image_url": {"url": png_url(), "detail": "high"}},
            {"type": "input_audio", "input_audio": {"data": WAV, "format": "wav"}},
            {"type": "image", "source_type": "base64", "data": PNG, "mime_type": "image/png"},
        ]
    )
    # LangChain's translators give each block a new random id on every read
    ids = [block.get("id") for block in message.content_blocks[:2]]
    assert all(isinstance(i, str) and _INVENTED.fullmatch(i) for i in ids)
    assert ids != [block.get("id") for block in message.content_blocks[:2]]
    first = to_dict(message_from_langchain(message, standardize=True))
    second = to_dict(message_from_langchain(message, standardize=True))
    assert first == second
    assert "lc_" not in repr(first)
    assert first["content"][0] == {
        "type": "image",
        "base64": PNG,
        "mime_type": "image/png",
        "detail": "high",
    }


def test_standardize_keeps_an_lc_id_the_message_itself_holds() -> None:
    own = "lc_0b4b5c6e-2f1a-4c3d-9e8f-7a6b5c4d3e2f"
    message = lc.HumanMessage(
        content=[
            {"type": "image", "base64": PNG, "mime_type": "image/png", "id": own},
            {"type": "image_url", "image_url": {"url": URL}},
        ]
    )
    content = to_dict(message_from_langchain(message, standardize=True))["content"]
    assert content == [
        {"type": "image", "base64": PNG, "mime_type": "image/png", "id": own},
        {"type": "image", "url": URL},
    ]
