"""Leniency as a property: the variations real servers make, on real traffic.

Every recorded request, response and stream of the suite (``tests/traffic``, and the
seeds of ``hostile.py``) is varied the way servers and clients vary what they send: a
value ``null``, an optional field left out, an unknown key added, a string or a list
empty, a message's content as a string or as a list of text parts, a Gemini key in
snake_case instead of camelCase, a bookkeeping stream
event (keep-alive, usage, status) dropped or repeated; structural values (a role, a
type, a name, an id: :data:`STRUCTURAL`) are not emptied or dropped. Whenever the
provider's own SDK type takes the variant (the oracle for "accepted": ``openai``,
``anthropic`` and ``google-genai`` models, botocore's service model for Converse,
``tests/oracle.py`` for requests):

- ``decode_response`` / ``decode_stream`` read it (no refusal);
- ``decode_conversation`` reads a request, and ``encode`` gives it back as it came.

CI runs a fixed sample (``fuzz_settings``); ``make fuzz`` runs it long.
"""

from __future__ import annotations

import copy
import re
import warnings
from collections.abc import Callable
from functools import cache
from typing import Any

import hostile as H
import pytest
import recorded
from hypothesis import given
from hypothesis import strategies as st
from oracle import validate_request

from chatschema.errors import ChatSchemaError
from chatschema.providers import get_codec
from chatschema.providers._common.sse import iter_sse

FORMATS = ("openai_chat", "openai_responses", "anthropic", "gemini", "bedrock_converse", "mistral")
TRAFFIC = H.ROOT / "tests" / "traffic"
EXTRA = "x_chatschema_variation"
"""The unknown key the variations add."""


# ------------------------------------------------------------------ the oracles


@cache
def _response_check(fmt: str) -> Callable[[Any], object]:
    """The SDK's own reading of a complete response of ``fmt``."""
    if fmt == "mistral":
        from mistralai.client.models import ChatCompletionResponse

        return ChatCompletionResponse.model_validate
    if fmt == "openai_chat":
        from openai.types.chat import ChatCompletion

        return ChatCompletion.model_validate
    if fmt == "openai_responses":
        from openai.types.responses import Response

        return Response.model_validate
    if fmt == "anthropic":
        from anthropic.types import Message

        return Message.model_validate
    if fmt == "gemini":
        from google.genai import types

        return types.GenerateContentResponse.model_validate
    return _converse_output("Converse")


@cache
def _event_check(fmt: str) -> Callable[[Any], object]:
    """The SDK's own reading of one stream event of ``fmt``."""
    if fmt == "mistral":
        from mistralai.client.models import CompletionChunk

        return CompletionChunk.model_validate
    if fmt == "openai_chat":
        from openai.types.chat import ChatCompletionChunk

        return ChatCompletionChunk.model_validate
    if fmt == "openai_responses":
        from openai.types.responses import ResponseStreamEvent
        from pydantic import TypeAdapter

        return TypeAdapter(ResponseStreamEvent).validate_python
    if fmt == "anthropic":
        from anthropic.types import RawMessageStreamEvent
        from pydantic import TypeAdapter

        return TypeAdapter(RawMessageStreamEvent).validate_python
    if fmt == "gemini":
        from google.genai import types

        return types.GenerateContentResponse.model_validate
    return _converse_event


def _converse_output(operation: str) -> Callable[[Any], object]:
    """botocore's service model: a Converse output validated as boto3 returns it."""
    import botocore.session
    from botocore.validate import ParamValidator

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model(operation).output_shape
    codec = get_codec("bedrock_converse")

    def check(value: Any) -> object:
        boto3_form = getattr(codec, "boto3_form")  # noqa: B009  (not in the Codec protocol)
        report = ParamValidator().validate(boto3_form(value), shape)
        if report.has_errors():
            raise ValueError(report.generate_report())
        return value

    return check


@cache
def _converse_stream_shape() -> Any:
    """botocore's shape of the ConverseStream event union."""
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model("ConverseStream").output_shape.members["stream"]


def _converse_event(event: Any) -> object:
    """A ConverseStream event: one member of the event-stream union, validated."""
    from botocore.validate import ParamValidator

    shape = _converse_stream_shape()
    if not isinstance(event, dict) or len(event) != 1:
        raise ValueError("not one event")
    ((name, body),) = event.items()
    member = shape.members.get(name)
    if member is None:
        raise ValueError(f"no event {name}")
    boto3_form = getattr(get_codec("bedrock_converse"), "boto3_form")  # noqa: B009
    report = ParamValidator().validate(boto3_form(body), member)
    if report.has_errors():
        raise ValueError(report.generate_report())
    return event


def accepted(check: Callable[[Any], object], value: Any) -> bool:
    """Whether the SDK takes ``value``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # google-genai warns of values it does not know
        try:
            check(copy.deepcopy(value))
        except Exception:  # any refusal of the SDK's
            return False
    return True


def request_accepted(fmt: str, request: Any) -> bool:
    """Whether the request types of ``tests/oracle.py`` take ``request``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # google-genai warns of values it does not know
        try:
            validate_request(fmt, request)
        except Exception:  # any refusal of the types (google-genai raises its own)
            return False
    return True


# ------------------------------------------------------------------ the seeds


def _traffic(fmt: str, kind: str) -> list[Any]:
    """The recorded exchanges' ``kind`` values of ``fmt`` (those present)."""
    out = []
    for path in recorded.present(recorded.listing(TRAFFIC / fmt)):
        exchange = recorded.load(path, shared=True)
        if kind in exchange:
            out.append(exchange[kind])
    return out


def _events(fmt: str, stream: Any) -> list[Any]:
    """A recorded stream as its events (an SSE body parsed, or the list as it is)."""
    if isinstance(stream, str):
        return list(iter_sse([stream], provider=fmt))
    return list(stream)


@cache
def responses(fmt: str) -> list[Any]:
    """Recorded and hand-written responses of ``fmt`` that the SDK takes as they are."""
    seeds = [*_traffic(fmt, "response"), *H.response_seeds(fmt)]
    return [seed for seed in seeds if accepted(_response_check(fmt), seed)]


@cache
def requests(fmt: str) -> list[Any]:
    """Recorded and hand-written requests of ``fmt`` that the request types take."""
    seeds = [*_traffic(fmt, "request"), *H.request_seeds(fmt)]
    return [seed for seed in seeds if request_accepted(fmt, seed)]


@cache
def streams(fmt: str) -> list[list[Any]]:
    """Recorded and hand-written streams of ``fmt`` whose every event the SDK takes."""
    found = [_events(fmt, stream) for stream in _traffic(fmt, "stream")]
    found += [events for events, _ in H.stream_seeds(fmt)]
    check = _event_check(fmt)
    return [events for events in found if all(accepted(check, e) for e in events)]


# ------------------------------------------------------------------ the variations


def _spots(document: Any) -> list[tuple[Any, ...]]:
    """Every path into ``document`` but the root."""
    return [path for path in H.paths(document) if path]


STRUCTURAL = frozenset({"role", "type", "name", "id", "toolUseId"})
"""Keys no API takes empty, null or absent where it has them, though the SDK types let
them be (google-genai's are all optional): a message's role, a block's type, a tool's
name, an id. Their values are not varied."""


def _structural(key: Any) -> bool:
    """Whether ``key`` is one of :data:`STRUCTURAL` (or an ``..._id``)."""
    return isinstance(key, str) and (key in STRUCTURAL or key.endswith("_id"))


@st.composite
def varied(draw: st.DrawFn, document: Any, fmt: str = "") -> tuple[str, tuple[Any, ...], Any]:
    """``(variation, path, variant)``: ``document`` with one value varied (a Gemini key
    may also change spelling: the API takes camelCase and snake_case alike)."""
    variant = copy.deepcopy(document)
    spots = _spots(variant)
    if not spots:
        return "none", (), variant
    path = draw(st.sampled_from(spots))
    parent, key = H.get(variant, path[:-1]), path[-1]
    value = parent[key]
    kinds = ["extra"]
    if isinstance(parent, dict) and not _structural(key):
        kinds += ["null", "drop"]  # a member null or left out (a list item: neither)
    if isinstance(value, (str, list)) and value and not _structural(key):
        kinds.append("empty")
    if key == "content" and isinstance(value, str):
        kinds.append("parts")
    if fmt == "gemini" and _camel(key) and not _GEMINI_DATA.intersection(map(str, path[:-1])):
        kinds.append("spelling")
    kind = draw(st.sampled_from(kinds))
    if kind == "null":
        parent[key] = None
    elif kind == "drop":
        del parent[key]
    elif kind == "empty":
        parent[key] = type(value)()
    elif kind == "parts":
        parent[key] = [{"type": "text", "text": value}]
    elif kind == "spelling":  # snake_case in the key's place
        items = list(parent.items())
        parent.clear()
        parent.update((_snake(name) if name == key else name, item) for name, item in items)
    else:  # an unknown key on the nearest object
        holder = value if isinstance(value, dict) else parent
        if isinstance(holder, dict):
            holder[EXTRA] = draw(st.sampled_from([1, "x", None, [], {"a": True}]))
    return kind, path, variant


_GEMINI_DATA = frozenset(
    {"args", "response", "parameters", "parametersJsonSchema", "responseSchema"}
    | {"responseJsonSchema", "labels", "partialArgs"}
)
"""Gemini keys whose values are the caller's JSON: their keys are not respelled."""


def _camel(key: Any) -> bool:
    """Whether ``key`` is a camelCase name."""
    return isinstance(key, str) and re.fullmatch(r"[a-z]+(?:[A-Z][a-z0-9]*)+", key) is not None


def _snake(key: str) -> str:
    """``key`` in snake_case."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", key).lower()


def bookkeeping(fmt: str, event: Any) -> bool:
    """Whether a stream event carries no content: a keep-alive, usage or status event,
    which servers send more or fewer of."""
    if not isinstance(event, dict):
        return False
    if fmt in ("openai_chat", "mistral"):
        return event.get("choices") == [] or all(
            not (choice.get("delta") or {}).keys() - {"role"} for choice in event["choices"]
        )
    if fmt == "anthropic":
        return event.get("type") in ("ping", "message_delta")
    if fmt == "openai_responses":
        return event.get("type") in ("response.in_progress", "response.queued")
    if fmt == "gemini":
        candidates = event.get("candidates") or []
        return not any((c.get("content") or {}).get("parts") for c in candidates)
    return set(event) == {"metadata"}


@st.composite
def varied_stream(draw: st.DrawFn, fmt: str, events: list[Any]) -> tuple[str, tuple[Any, ...], Any]:
    """A stream with one event varied, or a bookkeeping event dropped or repeated."""
    events = copy.deepcopy(events)
    number = draw(st.integers(0, len(events) - 1))
    kind = draw(st.sampled_from(["value", "value", "drop", "repeat"]))
    if kind in ("drop", "repeat") and bookkeeping(fmt, events[number]):
        if kind == "drop":
            del events[number]
        else:
            events.insert(number, copy.deepcopy(events[number]))
        return f"{kind} event", (number,), events
    inner, path, event = draw(varied(events[number], fmt))
    events[number] = event
    return inner, (number, *path), events


def _where(kind: str, path: tuple[Any, ...]) -> str:
    return f"{kind} at /{'/'.join(map(str, path))}"


# ------------------------------------------------------------------ the properties


@pytest.mark.parametrize("fmt", FORMATS)
def test_responses_the_sdk_takes_decode(fmt: str) -> None:
    codec = get_codec(fmt)
    seeds = H.nonempty(responses(fmt), fmt)
    check = _response_check(fmt)

    @H.fuzz_settings(60)
    @given(st.sampled_from(seeds).flatmap(lambda seed: varied(seed, fmt)))
    def run(case: tuple[str, tuple[Any, ...], Any]) -> None:
        kind, path, variant = case
        if not accepted(check, variant):
            return
        try:
            codec.decode_response(copy.deepcopy(variant))
        except ChatSchemaError as error:
            raise AssertionError(f"{fmt}: {_where(kind, path)} refused: {error}") from None

    run()


@pytest.mark.parametrize("fmt", FORMATS)
def test_streams_the_sdk_takes_decode(fmt: str) -> None:
    codec = get_codec(fmt)
    seeds = H.nonempty(streams(fmt), fmt)
    check = _event_check(fmt)

    @H.fuzz_settings(60)
    @given(st.sampled_from(seeds).flatmap(lambda events: varied_stream(fmt, events)))
    def run(case: tuple[str, tuple[Any, ...], Any]) -> None:
        kind, path, events = case
        if not all(accepted(check, event) for event in events):
            return
        try:
            # (a dropped end event makes a cut stream: tests/test_stream_faults.py)
            list(codec.decode_stream(copy.deepcopy(events), incomplete="keep"))
        except ChatSchemaError as error:
            raise AssertionError(f"{fmt}: {_where(kind, path)} refused: {error}") from None

    run()


def _expected(fmt: str, request: dict[str, Any]) -> dict[str, Any]:
    """What ``encode(decode_conversation(request))`` gives (Gemini: snake_case)."""
    from test_traffic import expected_request

    expected: dict[str, Any] = expected_request(fmt, request)
    return expected


@pytest.mark.parametrize("fmt", FORMATS)
def test_requests_the_sdk_takes_come_back_as_they_came(fmt: str) -> None:
    codec = get_codec(fmt)
    seeds = H.nonempty(requests(fmt), fmt)

    @H.fuzz_settings(60)
    @given(st.sampled_from(seeds).flatmap(lambda seed: varied(seed, fmt)))
    def run(case: tuple[str, tuple[Any, ...], Any]) -> None:
        kind, path, variant = case
        if not request_accepted(fmt, variant):
            return
        where = _where(kind, path)
        try:
            conversation = codec.decode_conversation(copy.deepcopy(variant))
        except ChatSchemaError as error:
            raise AssertionError(f"{fmt}: {where} refused: {error}") from None
        encoded = H._json_data(codec.encode(conversation, check=False))
        assert encoded == _expected(fmt, variant), f"{fmt}: {where} changed on re-encode"

    run()
