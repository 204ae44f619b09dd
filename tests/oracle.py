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
    if name in ("openai_chat.request", "openai_chat.request_streaming"):
        from openai.types.chat import completion_create_params as chat_params

        params = (
            chat_params.CompletionCreateParamsStreaming
            if name.endswith("streaming")
            else chat_params.CompletionCreateParamsNonStreaming
        )
        return TypeAdapter(list[params], config=STRICT)  # type: ignore[valid-type]
    if name == "mistral.request":
        from mistralai.client.models import ChatCompletionRequestTypedDict

        return TypeAdapter(list[ChatCompletionRequestTypedDict], config=STRICT)
    if name == "openai_responses.input":
        from openai.types.responses import ResponseInputParam

        return TypeAdapter(ResponseInputParam, config=STRICT)
    if name == "openai_responses.tools":
        from openai.types.responses import ToolParam

        return TypeAdapter(list[ToolParam], config=STRICT)
    if name == "openai_responses.tool_choice":
        from openai.types.responses.response_create_params import ToolChoice

        return TypeAdapter(ToolChoice, config=STRICT)
    if name == "openai_responses.request":
        from openai.types.responses.response_create_params import ResponseCreateParamsNonStreaming

        return TypeAdapter(list[ResponseCreateParamsNonStreaming], config=STRICT)
    if name == "openai_responses.request_streaming":
        from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

        return TypeAdapter(list[ResponseCreateParamsStreaming], config=STRICT)
    if name == "anthropic.block":
        from anthropic.types import ContentBlockParam

        return TypeAdapter(ContentBlockParam, config=STRICT)
    if name == "anthropic.beta_block":  # blocks only the beta Messages API takes
        from anthropic.types.beta import BetaContentBlockParam

        return TypeAdapter(BetaContentBlockParam, config=STRICT)
    if name == "anthropic.system":
        from anthropic.types import TextBlockParam

        return TypeAdapter(str | list[TextBlockParam], config=STRICT)
    if name == "anthropic.tools":
        from anthropic.types import ToolUnionParam

        return TypeAdapter(list[ToolUnionParam], config=STRICT)
    if name == "anthropic.tool_choice":
        from anthropic.types import ToolChoiceParam

        return TypeAdapter(ToolChoiceParam, config=STRICT)
    if name.startswith("anthropic.param."):
        hint = _anthropic_params()[name.removeprefix("anthropic.param.")]
        return TypeAdapter(list[hint], config=STRICT)  # type: ignore[valid-type]  # (in a list: a TypedDict alone takes no config)
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
    assert "messages" in payload, "missing keys {'messages'}"
    # settings and kept request keys against the SDK's create params (a stand-in model
    # when none is set: the caller passes it)
    rest = {k: v for k, v in payload.items() if k not in ("messages", "tools", "tool_choice")}
    if rest.keys() - {"parallel_tool_calls"}:
        streaming = "request_streaming" if rest.get("stream") is True else "request"
        _check(f"openai_chat.{streaming}", [{"model": "gpt-4o", "messages": [], **rest}])
    _check("openai_chat.messages", payload["messages"])
    if "tools" in payload:
        _check("openai_chat.tools", payload["tools"])
    if "tool_choice" in payload:
        _check("openai_chat.tool_choice", payload["tool_choice"])
    if "parallel_tool_calls" in payload:
        assert isinstance(payload["parallel_tool_calls"], bool)


def _openai_responses(payload: dict[str, Any]) -> None:
    assert "input" in payload, "missing keys {'input'}"
    # every other request key (settings, kept extras) against the SDK's create params
    rest = {k: v for k, v in payload.items() if k not in ("input", "tools", "tool_choice")}
    streaming = "request_streaming" if rest.get("stream") is True else "request"
    _check(f"openai_responses.{streaming}", [rest])  # (a list: a TypedDict takes no config)
    if "instructions" in payload:
        assert isinstance(payload["instructions"], str)
    if not isinstance(payload["input"], str):
        _check("openai_responses.input", payload["input"])
    if "tools" in payload:
        _check("openai_responses.tools", payload["tools"])
    if "tool_choice" in payload:
        _check("openai_responses.tool_choice", payload["tool_choice"])


@cache
def _anthropic_params() -> dict[str, Any]:
    """The other request keys of ``messages.create`` and their SDK types (the beta
    method's for keys only it takes); ``stream`` is either of the two literals."""
    from typing import get_type_hints

    from anthropic.types import message_create_params
    from anthropic.types.beta import message_create_params as beta_params

    hints = get_type_hints(beta_params.MessageCreateParamsNonStreaming)
    hints.update(get_type_hints(message_create_params.MessageCreateParamsNonStreaming))
    hints["stream"] = bool
    for key in ("system", "messages", "tools", "tool_choice"):
        del hints[key]
    return hints


def _anthropic(payload: dict[str, Any]) -> None:
    message_keys = {"system", "messages", "tools", "tool_choice"}
    # settings and other request keys, typed as the SDK types them; extra_body (the
    # SDK's way to send what its signature lacks, as temperature since 1.0) takes the
    # sampling keys
    _keys(payload, message_keys | set(_anthropic_params()) | {"extra_body"}, {"messages"}, "")
    for key in payload.keys() - message_keys - {"extra_body"}:
        _check(f"anthropic.param.{key}", [payload[key]])
    for key, value in payload.get("extra_body", {}).items():
        number = (int,) if key == "top_k" else (int, float)
        assert key not in ("temperature", "top_p", "top_k") or (
            isinstance(value, number) and not isinstance(value, bool)
        ), f"extra_body.{key}={value!r}"
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
            beta = isinstance(block, dict) and block.get("type") == "compaction"
            try:
                _check("anthropic.beta_block" if beta else "anthropic.block", block)
            except AssertionError as error:
                raise AssertionError(f"messages[{index}].content[{position}]: {error}") from None
    if "tools" in payload:
        _check("anthropic.tools", payload["tools"])
    if "tool_choice" in payload:
        _check("anthropic.tool_choice", payload["tool_choice"])


def _gemini(payload: dict[str, Any]) -> None:
    from google.genai import types

    allowed = {"system_instruction", "contents", "tools", "tool_config", "model", "config"}
    allowed |= _GEMINI_REQUEST_KEYS
    _keys(payload, allowed, {"contents"}, "")
    if "config" in payload:  # google-genai's generate_content(model, contents, config)
        assert not {"system_instruction", "tools", "tool_config"} & set(payload)
        config = payload["config"]
        # the rest is checked as in the REST body (a copy: the caller's stays as it is)
        payload = {**config, **{k: v for k, v in payload.items() if k != "config"}}
        try:
            types.GenerateContentConfig.model_validate_json(json.dumps(config))
        except PydanticValidationError as error:
            raise AssertionError(f"gemini config does not validate:\n{error}") from None
    for key in ("generation_config", "generationConfig"):
        if key in payload:
            try:
                types.GenerationConfig.model_validate_json(json.dumps(payload[key]))
            except PydanticValidationError as error:
                raise AssertionError(f"gemini {key} does not validate:\n{error}") from None
    for key in ("safety_settings", "safetySettings"):
        for setting in payload.get(key, []):
            try:
                types.SafetySetting.model_validate_json(json.dumps(setting))
            except PydanticValidationError as error:
                raise AssertionError(f"gemini {key} does not validate:\n{error}") from None

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


# GenerateContentRequest (ai.google.dev/api/generate-content), both spellings
_GEMINI_REQUEST_KEYS = {
    "generation_config",
    "generationConfig",
    "safety_settings",
    "safetySettings",
    "cached_content",
    "cachedContent",
    "labels",
    "service_tier",
    "serviceTier",
    "store",
}

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


def _otel_genai(payload: dict[str, Any]) -> None:
    # the conventions' JSON Schemas, strictly (tests/providers/otel_genai/oracle.py)
    from providers.otel_genai.oracle import validate_attributes

    validate_attributes(payload)


def _bedrock_converse(payload: dict[str, Any]) -> None:
    """botocore's own service model: the Converse (or ConverseStream) input shape."""
    from botocore.validate import ParamValidator

    request = payload if "modelId" in payload else {"modelId": "model", **payload}
    report = ParamValidator().validate(request, _bedrock_shape("Converse"))
    guardrail = payload.get("guardrailConfig")
    if report.has_errors() and isinstance(guardrail, dict) and "streamProcessingMode" in guardrail:
        report = ParamValidator().validate(request, _bedrock_shape("ConverseStream"))
    if report.has_errors():
        raise AssertionError(
            f"bedrock_converse request does not validate:\n{report.generate_report()}"
        )


@cache
def _bedrock_shape(operation: str) -> Any:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model(operation).input_shape


def _bytes_only(value: Any) -> str:
    """Converse blobs are ``bytes`` (what boto3 takes); nothing else that is not JSON."""
    if isinstance(value, bytes):
        return ""
    raise TypeError(f"{type(value).__name__} is not JSON data")


def _interactions(name: str, value: Any) -> None:
    """google-genai's interactions TypedDicts, unknown keys refused (not strict: the SDK's open
    enums, ``UnrecognizedStr``, take any string only in lax mode; a function result's
    object is free-form, its TypedDict declares no keys: checked as an empty one)."""
    from google.genai._gaos.types.interactions import (
        createmodelinteraction,
        interaction,
        interactionsseevent,
    )

    hint = {
        "request": createmodelinteraction.CreateModelInteractionParam,
        "response": interaction.InteractionTypedDict,
        "event": interactionsseevent.InteractionSSEEventTypedDict,
    }[name]
    config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    try:
        TypeAdapter(list[hint], config=config).validate_python([_free_results(value)])  # type: ignore[valid-type]
    except PydanticValidationError as error:
        raise AssertionError(f"gemini_interactions {name} does not validate:\n{error}") from None


def _free_results(value: Any) -> Any:
    """``value`` with each function result's object result (and delta's) as ``{}``."""
    if isinstance(value, list):
        return [_free_results(item) for item in value]
    if not isinstance(value, dict):
        return value
    out = {key: _free_results(item) for key, item in value.items()}
    if value.get("type") == "function_result" and isinstance(value.get("result"), dict):
        out["result"] = {}
    return out


def _gemini_interactions(payload: dict[str, Any]) -> None:
    """The request body; a stand-in model when none is set (the SDK's create takes one)."""
    _interactions("request", {"model": "gemini-3-flash-preview", **payload})


def _mistral(payload: dict[str, Any]) -> None:
    """The ``mistralai`` SDK's request type, strict (a stand-in model when none is set)."""
    assert "messages" in payload, "missing keys {'messages'}"
    request = {"model": "mistral-large-latest", **payload}
    if isinstance(payload.get("tools"), list):
        # the SDK's Tool model defaults `type` to "function" (its TypedDict requires it)
        request["tools"] = [
            {"type": "function", **tool} if isinstance(tool, dict) else tool
            for tool in payload["tools"]
        ]
    _check("mistral.request", [request])


def _open_responses(payload: dict[str, Any]) -> None:
    """The shared wire object (openai SDK types) and the additions (the specification)."""
    from providers.open_responses.spec import shared_request

    _openai_responses(shared_request(payload))


_VALIDATORS: dict[str, Callable[[dict[str, Any]], None]] = {
    "openai_chat": _openai_chat,
    "openai_responses": _openai_responses,
    "open_responses": _open_responses,
    "anthropic": _anthropic,
    "gemini": _gemini,
    "gemini_interactions": _gemini_interactions,
    "otel_genai": _otel_genai,
    "bedrock_converse": _bedrock_converse,
    "mistral": _mistral,
}


def validate_request(provider: str, payload: dict[str, Any]) -> None:
    """Assert that ``payload`` (what ``encode`` returned) is a valid request part."""
    # plain JSON data only (and Converse's blobs, bytes)
    json.dumps(payload, default=_bytes_only if provider == "bedrock_converse" else None)
    _VALIDATORS[provider](payload)


# ------------------------------------------------------------------ responses


def _response_openai_chat(body: dict[str, Any]) -> None:
    from openai.types.chat import ChatCompletion

    ChatCompletion.model_validate(body)


def _response_openai_responses(body: dict[str, Any]) -> None:
    from openai.types.responses import Response

    Response.model_validate(body)


def _response_anthropic(body: dict[str, Any]) -> None:
    from anthropic.types import Message

    Message.model_validate(body)


def _response_gemini(body: dict[str, Any]) -> None:
    from google.genai.types import GenerateContentResponse

    GenerateContentResponse.model_validate(body)  # camelCase aliases; unknown keys refused


def _response_gemini_interactions(body: dict[str, Any]) -> None:
    # the API sends "object": "interaction" (ai.google.dev streaming example); the SDK's
    # TypedDict does not declare it
    if body.get("object") == "interaction":
        body = {key: value for key, value in body.items() if key != "object"}
    _interactions("response", body)


def _response_bedrock_converse(body: dict[str, Any]) -> None:
    """botocore reads the body as its client does: the Converse output shape."""
    from botocore.parsers import RestJSONParser

    response = {"status_code": 200, "headers": {}, "body": json.dumps(body).encode()}
    parsed = RestJSONParser().parse(response, _bedrock_output_shape())
    if "output" in body and "output" not in parsed:
        raise AssertionError("botocore read no output from the Converse body")


@cache
def _bedrock_output_shape() -> Any:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("Converse").output_shape


def _response_mistral(body: dict[str, Any]) -> None:
    from mistralai.client.models import ChatCompletionResponse

    ChatCompletionResponse.model_validate(body)


def _open_response(body: dict[str, Any]) -> dict[str, Any]:
    from providers.open_responses.spec import shared_response

    return shared_response(body)


_RESPONSE_VALIDATORS: dict[str, Callable[[dict[str, Any]], None]] = {
    "openai_chat": _response_openai_chat,
    "openai_responses": _response_openai_responses,
    "open_responses": lambda body: _response_openai_responses(_open_response(body)),
    "anthropic": _response_anthropic,
    "gemini": _response_gemini,
    "gemini_interactions": _response_gemini_interactions,
    "bedrock_converse": _response_bedrock_converse,
    "mistral": _response_mistral,
}


def validate_response(provider: str, body: dict[str, Any]) -> None:
    """Assert that ``body`` (what ``encode_response`` returned) is a valid response body:
    JSON data the official SDK's response type (botocore's parser for Bedrock) reads."""
    json.dumps(body)
    try:
        _RESPONSE_VALIDATORS[provider](body)
    except PydanticValidationError as error:
        raise AssertionError(f"{provider} response does not validate:\n{error}") from None
