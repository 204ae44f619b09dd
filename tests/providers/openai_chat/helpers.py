"""Shared by the OpenAI Chat Completions codec tests: sample data and the SDK oracle."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from openai.types.chat import ChatCompletionCustomToolParam
from openai.types.chat.completion_create_params import (
    CompletionCreateParamsNonStreaming,
    CompletionCreateParamsStreaming,
)
from oracle import validate_request
from pydantic import ConfigDict, TypeAdapter

_CUSTOM_TOOLS = TypeAdapter(
    list[ChatCompletionCustomToolParam], config=ConfigDict(extra="forbid", strict=True)
)

PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5ErkJggg=="  # noqa: E501
WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA="
PDF = "JVBERi0xLjQKJcfsj6IKNSAwIG9iago8PC9MZW5ndGggNiAwIFI+PgpzdHJlYW0K"

WEATHER_TOOL = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
            "additionalProperties": False,
        },
        "strict": True,
    },
}


def _without(payload: dict[str, Any], paths: list[tuple[Any, ...]]) -> dict[str, Any]:
    """A copy of ``payload`` without the keys at ``paths`` (for the oracle only)."""
    result = copy.deepcopy(payload)
    for path in paths:
        target: Any = result
        for step in path[:-1]:
            target = target[step]
        del target[path[-1]]
    return result


def oracle(payload: dict[str, Any], *, skip: Sequence[tuple[Any, ...]] = ()) -> None:
    """The SDK oracle on the payload minus ``skip``.

    Custom tools are checked with the SDK's custom tool type: the oracle's tool
    list type is function-only.
    """
    checked = _without(payload, list(skip))
    if "tools" in checked:
        custom = [tool for tool in checked["tools"] if tool.get("type") == "custom"]
        if custom:
            _CUSTOM_TOOLS.validate_python(custom)
        checked["tools"] = [tool for tool in checked["tools"] if tool.get("type") != "custom"]
        if not checked["tools"]:
            del checked["tools"]
    validate_request("openai_chat", checked)


_REQUEST = {
    stream: TypeAdapter(
        list[CompletionCreateParamsStreaming if stream else CompletionCreateParamsNonStreaming],
        config=ConfigDict(extra="forbid", strict=True),
    )
    for stream in (False, True)
}


def _drain(value: Any) -> None:
    """Consume the lazily validated ``Iterable[...]`` fields (pydantic checks them then)."""
    if isinstance(value, dict):
        for item in value.values():
            _drain(item)
    elif isinstance(value, (list, tuple)) or type(value).__name__ == "ValidatorIterator":
        for item in value:
            _drain(item)


def request_oracle(request: dict[str, Any], *, model: str = "gpt-4o") -> None:
    """The SDK oracle on a whole request body: every key checked by
    ``CompletionCreateParams`` (strict, unknown keys refused), the conversation
    part by :func:`oracle`. ``model`` stands in when the request names none."""
    conversation = {
        key: value
        for key, value in request.items()
        if key in ("messages", "tools", "tool_choice", "parallel_tool_calls")
    }
    oracle(conversation)
    body = {"model": model, **request}
    _drain(_REQUEST[body.get("stream") is True].validate_python([body]))
