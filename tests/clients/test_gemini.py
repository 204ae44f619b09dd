"""``google.genai.Client`` ``models.generate_content`` / ``generate_content_stream`` (and
their ``client.aio`` twins) with chatschema.

``gemini.encode`` gives a REST body (``contents``, ``system_instruction``, ``tools``,
``generation_config`` ...); google-genai takes ``generate_content(model, contents,
config)`` with the generation fields flat in ``config``. :func:`genai_kwargs` is the
adapter docs/clients.md shows. The official client makes real calls over a mock
transport (``http_options=HttpOptions(base_url=..., httpx_client=...)``) serving
recorded exchanges (``tests/traffic/gemini``): what it sends is what ``encode`` gave
(google-genai writes the REST camelCase spelling and its own key order, so the
comparison is of the snake_case form, key order aside), and what it returns decodes to
what the recorded bodies decode to.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google import genai
from google.genai import types
from test_traffic import snake_case

from chatschema import (
    AssistantMessageChunk,
    Conversation,
    GenerationSettings,
    system,
    to_dict,
    user,
)
from chatschema.providers import gemini
from chatschema.providers.gemini import genai_kwargs

from .conftest import HOST, MODES, Reply, Wire, as_sent, exchange, names

FORMAT = "gemini"
MODEL = "gemini-2.5-flash"
RESPONSES = [
    "test_google.test_google_model_thinking_part_from_other_model.1",  # thoughts, system
    "test_tool_availability_portability.test_tool_availability_portability_matrix_R2-_12477688.0",
    "test_output.test_google_default_tools_use_validated_mode.0",  # tool_config VALIDATED
]
STREAMS = [
    "test_google.test_google_model_iter_stream.1",  # a function response, a call back
    "test_google.test_google_streaming_tool_call_thought_signature.0",  # a signed call
    "test_structured_output.test_native_output_with_function_tools_stream.1",  # JSON output
]


def client(wire: Wire, mode: str) -> genai.Client:
    """The official client, pointed at the wire (google-genai takes an ``httpx`` or an
    ``httpx2`` client)."""
    if mode == "sync":
        options = types.HttpOptions(base_url=f"http://{HOST}", httpx_client=wire.httpx_client())
    else:
        options = types.HttpOptions(
            base_url=f"http://{HOST}", httpx_async_client=wire.httpx_async_client()
        )
    return genai.Client(api_key="test", http_options=options)


def generate(wire: Wire, mode: str, kwargs: dict[str, Any]) -> types.GenerateContentResponse:
    """``models.generate_content(**kwargs)``, sync or through ``client.aio``."""
    if mode == "sync":
        return client(wire, mode).models.generate_content(**kwargs)

    async def main() -> types.GenerateContentResponse:
        return await client(wire, mode).aio.models.generate_content(**kwargs)

    return asyncio.run(main())


def sdk_view(response: dict[str, Any], sdk: types.GenerateContentResponse) -> dict[str, Any]:
    """A recorded response less the fields google-genai's object of it lacks: the
    SDK reads only what it maps, and 3.6 leaves out ``usageMetadata.serviceTier`` and a
    candidate's ``finishMessage``. Only these two may differ, and only when absent
    from ``sdk``."""
    lean = copy.deepcopy(response)
    if sdk.usage_metadata is None or getattr(sdk.usage_metadata, "service_tier", None) is None:
        lean.get("usageMetadata", {}).pop("serviceTier", None)
    for candidate, read in zip(lean.get("candidates", []), sdk.candidates or [], strict=True):
        if read.finish_message is None:
            candidate.pop("finishMessage", None)
    return lean


def assert_sent(wire: Wire, request: dict[str, Any], model: str, method: str) -> None:
    """One request to ``models/<model>:<method>`` whose body, in snake_case, is the
    REST body ``encode`` gave (less ``model``, which is in the URL); the history as
    the same JSON text, key order aside."""
    sent = wire.only()
    assert sent.method == "POST" and sent.path.endswith(f"/models/{model}:{method}")
    body = snake_case(sent.json)
    want = as_sent({key: value for key, value in request.items() if key != "model"})
    assert body == want, sorted(set(body) ^ set(want))
    assert json.dumps(body["contents"], sort_keys=True) == json.dumps(
        want["contents"], sort_keys=True
    )


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(RESPONSES))
def test_generate_content_sends_encode_and_its_reply_decodes(name: str, mode: str) -> None:
    recorded = exchange(FORMAT, name)
    request = gemini.encode(gemini.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))

    # a REST body names no model (it is in the URL): the caller gives one
    response = generate(wire, mode, {"model": MODEL, **genai_kwargs(request)})

    assert_sent(wire, request, MODEL, "generateContent")
    assert isinstance(response, types.GenerateContentResponse)
    got = gemini.decode_response(response)
    assert to_dict(got) == to_dict(gemini.decode_response(sdk_view(recorded["response"], response)))


def test_what_the_sdk_type_does_not_model_is_not_in_its_object() -> None:
    """google-genai's ``GenerateContentResponse`` keeps only the fields it declares: a
    newer one (here ``usageMetadata.serviceTier``) is gone from the SDK object, so its
    decoding lacks it; decoding the raw body keeps it."""
    recorded = exchange(FORMAT, "test_google.test_google_model_top_k.0")
    assert recorded["response"]["usageMetadata"]["serviceTier"] == "standard"
    request = gemini.encode(gemini.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))
    response = generate(wire, "sync", {"model": MODEL, **genai_kwargs(request)})
    assert_sent(wire, request, MODEL, "generateContent")

    lean = copy.deepcopy(recorded["response"])
    del lean["usageMetadata"]["serviceTier"]
    assert sdk_view(recorded["response"], response) == lean
    got = to_dict(gemini.decode_response(response))
    assert got == to_dict(gemini.decode_response(lean))
    assert got != to_dict(gemini.decode_response(recorded["response"]))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", names(STREAMS))
def test_stream_decodes_as_the_recorded_body(name: str, mode: str) -> None:
    recorded = exchange(FORMAT, name)
    request = gemini.encode(gemini.decode_conversation(recorded["request"]))
    wire = Wire(Reply.of(recorded))
    kwargs = {"model": MODEL, **genai_kwargs(request)}

    if mode == "sync":
        stream = client(wire, mode).models.generate_content_stream(**kwargs)
        chunks = list(gemini.decode_stream(stream))
    else:

        async def main() -> list[AssistantMessageChunk]:
            stream = await client(wire, mode).aio.models.generate_content_stream(**kwargs)
            decoded = gemini.decode_stream(stream)
            assert isinstance(decoded, AsyncGenerator)
            return [chunk async for chunk in decoded]

        chunks = asyncio.run(main())

    assert_sent(wire, request, MODEL, "streamGenerateContent")
    assert wire.sent[0].query == "alt=sse"
    raw = list(gemini.decode_stream([recorded["stream"]]))
    assert chunks, "no chunk decoded"
    assert [to_dict(chunk) for chunk in chunks] == [to_dict(chunk) for chunk in raw]


# ------------------------------------------------------------ keyword arguments

REPLY = "test_google.test_google_model_thinking_part_from_other_model.1"
"""A recorded answer for the calls below."""


def _settings_conversation() -> Conversation:
    return Conversation(
        messages=[user("What is the capital of France?")],
        settings=GenerationSettings(model="gemini-2.5-pro", temperature=0.5, thinking_budget=0),
    )


@pytest.mark.parametrize("mode", MODES)
def test_settings_model_is_enough(mode: str) -> None:
    """With ``settings.model``: ``generate_content(**genai_kwargs(encode(conversation)))``,
    the settings in ``config``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    request = gemini.encode(_settings_conversation())
    generate(wire, mode, genai_kwargs(request))
    assert_sent(wire, request, "gemini-2.5-pro", "generateContent")
    config = snake_case(wire.only().json)["generation_config"]
    assert config == {"temperature": 0.5, "thinking_config": {"thinking_budget": 0}}


@pytest.mark.parametrize("mode", MODES)
def test_caller_keywords_win(mode: str) -> None:
    """With settings, ``{**genai_kwargs(encode(conversation)), "model": ...}``."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    request = gemini.encode(_settings_conversation())
    generate(wire, mode, {**genai_kwargs(request), "model": MODEL})
    assert_sent(wire, request, MODEL, "generateContent")


def test_a_rest_body_is_not_generate_content_keywords() -> None:
    """``generate_content(model=..., **encode(conversation))`` fails on the REST keys
    (here ``system_instruction``) before any request: the adapter is needed."""
    wire = Wire(Reply.of(exchange(FORMAT, REPLY)))
    request = gemini.encode([system("Be brief."), user("Hi")])
    assert "system_instruction" in request
    with pytest.raises(TypeError, match="system_instruction"):
        client(wire, "sync").models.generate_content(model=MODEL, **request)
    assert wire.sent == []
