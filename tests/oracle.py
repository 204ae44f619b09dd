"""The official provider SDKs as the oracle for encoder output.

``validate_request(provider, payload)`` checks what a codec's ``encode`` returns
against the SDK's request types, strictly: no coercion, unknown keys forbidden, and
every lazily validated ``Iterable[...]`` field drained (pydantic checks nothing inside
those until they are consumed). It raises ``AssertionError`` naming what failed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, TypeAdapter
from pydantic import ValidationError as PydanticValidationError

STRICT = ConfigDict(extra="forbid", strict=True)


def _drain(value: Any, where: str) -> None:
    """Consume every lazy iterator in a validated value; response models are refused."""
    if isinstance(value, BaseModel):
        raise AssertionError(f"{where}: matched the response model {type(value).__name__}")
    if isinstance(value, dict):
        for key, item in value.items():
            _drain(item, f"{where}.{key}")
    elif isinstance(value, (list, tuple)) or type(value).__name__ == "ValidatorIterator":
        for index, item in enumerate(value):
            _drain(item, f"{where}[{index}]")


@cache
def _adapter(name: str) -> TypeAdapter[Any]:
    if name == "openai_chat.messages":
        from openai.types.chat import ChatCompletionMessageParam

        return TypeAdapter(list[ChatCompletionMessageParam], config=STRICT)
    if name == "openai_chat.tools":
        from openai.types.chat import ChatCompletionToolParam

        return TypeAdapter(list[ChatCompletionToolParam], config=STRICT)
    if name == "openai_chat.tool_choice":
        from openai.types.chat import ChatCompletionToolChoiceOptionParam

        return TypeAdapter(ChatCompletionToolChoiceOptionParam, config=STRICT)
    if name == "openai_responses.input":
        from openai.types.responses import ResponseInputParam

        return TypeAdapter(ResponseInputParam, config=STRICT)
    if name == "openai_responses.tools":
        from openai.types.responses import ToolParam

        return TypeAdapter(list[ToolParam], config=STRICT)
    if name == "openai_responses.tool_choice":
        from openai.types.responses.response_create_params import ToolChoice

        return TypeAdapter(ToolChoice, config=STRICT)
    if name == "anthropic.block":
        from anthropic.types import ContentBlockParam

        return TypeAdapter(ContentBlockParam, config=STRICT)
    if name == "anthropic.system":
        from anthropic.types import TextBlockParam

        return TypeAdapter(str | list[TextBlockParam], config=STRICT)
    if name == "anthropic.tools":
        from anthropic.types import ToolUnionParam

        return TypeAdapter(list[ToolUnionParam], config=STRICT)
    if name == "anthropic.tool_choice":
        from anthropic.types import ToolChoiceParam

        return TypeAdapter(ToolChoiceParam, config=STRICT)
    raise KeyError(name)


def _check(name: str, value: Any) -> None:
    try:
        validated = _adapter(name).validate_python(value)
        _drain(validated, name)
    except PydanticValidationError as error:
        raise AssertionError(f"{name} does not validate:\n{error}") from None


def _keys(payload: dict[str, Any], allowed: set[str], required: set[str], what: str) -> None:
    assert set(payload) <= allowed, f"{what}: unexpected keys {set(payload) - allowed}"
    assert required <= set(payload), f"{what}: missing keys {required - set(payload)}"


def _openai_chat(payload: dict[str, Any]) -> None:
    _keys(payload, {"messages", "tools", "tool_choice", "parallel_tool_calls"}, {"messages"}, "")
    _check("openai_chat.messages", payload["messages"])
    if "tools" in payload:
        _check("openai_chat.tools", payload["tools"])
    if "tool_choice" in payload:
        _check("openai_chat.tool_choice", payload["tool_choice"])
    if "parallel_tool_calls" in payload:
        assert isinstance(payload["parallel_tool_calls"], bool)


def _openai_responses(payload: dict[str, Any]) -> None:
    allowed = {"instructions", "input", "tools", "tool_choice", "parallel_tool_calls", "include"}
    _keys(payload, allowed, {"input"}, "")
    if "instructions" in payload:
        assert isinstance(payload["instructions"], str)
    if isinstance(payload["input"], str):
        return
    _check("openai_responses.input", payload["input"])
    if "tools" in payload:
        _check("openai_responses.tools", payload["tools"])
    if "tool_choice" in payload:
        _check("openai_responses.tool_choice", payload["tool_choice"])


def _anthropic(payload: dict[str, Any]) -> None:
    _keys(payload, {"system", "messages", "tools", "tool_choice"}, {"messages"}, "")
    if "system" in payload:
        _check("anthropic.system", payload["system"])
    for index, message in enumerate(payload["messages"]):
        _keys(message, {"role", "content"}, {"role", "content"}, f"messages[{index}]")
        assert message["role"] in ("user", "assistant", "system"), message["role"]
        content = message["content"]
        if isinstance(content, str):
            continue
        assert isinstance(content, list), f"messages[{index}].content"
        for position, block in enumerate(content):
            try:
                _check("anthropic.block", block)
            except AssertionError as error:
                raise AssertionError(f"messages[{index}].content[{position}]: {error}") from None
    if "tools" in payload:
        _check("anthropic.tools", payload["tools"])
    if "tool_choice" in payload:
        _check("anthropic.tool_choice", payload["tool_choice"])


def _gemini(payload: dict[str, Any]) -> None:
    from google.genai import types

    allowed = {"system_instruction", "contents", "tools", "tool_config"}
    _keys(payload, allowed, {"contents"}, "")

    # google-genai models forbid unknown keys; JSON mode reads base64 into bytes.
    # A lone surrogate is a Python string JSON text cannot carry: written as "?", since
    # the shape is what is checked (the other providers' types take it as it is).
    def text(value: Any) -> bytes:
        return json.dumps(value, ensure_ascii=False).encode("utf-8", "replace")

    try:
        for content in payload["contents"]:
            types.Content.model_validate_json(text(content))
            assert content.get("role") in ("user", "model"), content.get("role")
            for part in content.get("parts", []):
                data = {k for k in part if k not in _PART_METADATA}
                assert len(data) == 1, f"a Part carries exactly one data field, not {data}"
        if "system_instruction" in payload:
            types.Content.model_validate_json(text(payload["system_instruction"]))
        for tool in payload.get("tools", []):
            types.Tool.model_validate_json(text(tool))
        if "tool_config" in payload:
            types.ToolConfig.model_validate_json(text(payload["tool_config"]))
    except PydanticValidationError as error:
        raise AssertionError(f"gemini request does not validate:\n{error}") from None


_PART_METADATA = {
    "thought",
    "thought_signature",
    "thoughtSignature",
    "video_metadata",
    "videoMetadata",
    "media_resolution",
    "mediaResolution",
    "part_metadata",
    "partMetadata",
}

_VALIDATORS: dict[str, Callable[[dict[str, Any]], None]] = {
    "openai_chat": _openai_chat,
    "openai_responses": _openai_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
}


def validate_request(provider: str, payload: dict[str, Any]) -> None:
    """Assert that ``payload`` (what ``encode`` returned) is a valid request part."""
    json.dumps(payload)  # plain JSON data only
    _VALIDATORS[provider](payload)
