"""botocore's ``bedrock-runtime`` client reading what ``encode_response`` and
``encode_stream(..., sse=True)`` write.

boto3 is not a dependency; its client is botocore's: ``converse`` and
``converse_stream`` run for real (request serialization, signing, the ``rest-json``
response parser, the ``EventStream`` over the binary AWS event-stream body), with the
HTTP exchange answered by a ``before-send`` handler that returns our bytes (botocore's
own tests stub responses the same way), so nothing leaves the process. What the client
returns decodes to the message that was written: ``converse``'s dict through
``decode_response``, ``converse_stream``'s events through ``decode_stream``, and both
to the same message. No async client exists for botocore: the async path is
``encode_stream`` over an async source, read back by ``decode_stream`` from an async
iterator of the body's pieces.
"""

from __future__ import annotations

import asyncio
import copy
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import recorded
from chatschema_models.usage import InputTokenDetails
from conftest import assembled

from chatschema import (
    AssistantMessage,
    AssistantMessageChunk,
    ReasoningBlock,
    TextBlock,
    ToolCall,
    Usage,
    to_dict,
)
from chatschema.providers import bedrock_converse as codec
from chatschema.providers.bedrock_converse.eventstream import CONTENT_TYPE

from .conftest import HOST, TRAFFIC

FOLDER = TRAFFIC / "bedrock_converse"
SIG = "EqQBCkYIBxgCKkBq7fZ3kL0mQ2Yx9c8TtZ1pW4vN6sR3uJ5hG2dF8aK0bE7cX1yV9zM4nL6oP2qS5rT3uW8x"
REQUEST = {"modelId": "model", "messages": [{"role": "user", "content": [{"text": "Hi"}]}]}


def _files(kind: str) -> list[Any]:
    return [
        pytest.param(path, id=path.name[:70])
        for path in recorded.listing(FOLDER)
        if kind in recorded.index(path)
    ]


RESPONSES = _files("response")
STREAMS = _files("stream")


class _Raw:
    """The raw body botocore reads: ``stream()`` in small pieces, ``read()`` whole."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.read_at = 0

    def stream(self, amt: int = 1024, decode_content: bool | None = None) -> Iterator[bytes]:
        for start in range(0, len(self.body), 7):
            yield self.body[start : start + 7]

    def read(self, amt: int | None = None) -> bytes:
        end = len(self.body) if amt is None else self.read_at + amt
        piece = self.body[self.read_at : end]
        self.read_at += len(piece)
        return piece

    def close(self) -> None:
        pass


class Served:
    """A botocore ``bedrock-runtime`` client whose every call is answered with ``body``."""

    def __init__(self) -> None:
        import botocore.session

        self.body = b""
        self.content_type = "application/json"
        self.sent: list[Any] = []
        self.client = botocore.session.get_session().create_client(
            "bedrock-runtime",
            region_name="us-east-1",
            aws_access_key_id="x",
            aws_secret_access_key="x",
            endpoint_url=f"http://{HOST}",
        )
        self.client.meta.events.register("before-send.bedrock-runtime.*", self._answer)

    def _answer(self, request: Any, **_: Any) -> Any:
        from botocore.awsrequest import AWSResponse

        self.sent.append(request)
        headers = {"content-type": self.content_type, "x-amzn-requestid": "req-1"}
        return AWSResponse(request.url, 200, headers, _Raw(self.body))

    def converse(self, body: dict[str, Any]) -> dict[str, Any]:
        """``converse`` answered with this response body."""
        self.body, self.content_type = json.dumps(body).encode(), "application/json"
        result: dict[str, Any] = self.client.converse(**REQUEST)
        assert self.sent[-1].url == f"http://{HOST}/model/model/converse"
        return result

    def converse_stream(self, body: bytes) -> list[dict[str, Any]]:
        """``converse_stream`` answered with this event-stream body: its events."""
        self.body, self.content_type = body, CONTENT_TYPE
        result = self.client.converse_stream(**REQUEST)
        assert self.sent[-1].url == f"http://{HOST}/model/model/converse-stream"
        assert result["ResponseMetadata"]["RequestId"] == "req-1"
        return list(result["stream"])


@pytest.fixture
def served() -> Served:
    return Served()


def _read(result: dict[str, Any]) -> dict[str, Any]:
    """What ``decode_response`` makes of ``converse``'s dict, HTTP metadata aside."""
    body = {key: value for key, value in result.items() if key != "ResponseMetadata"}
    return to_dict(codec.decode_response(body))


def _modeled(value: Any, shape: Any) -> Any:
    """``value`` with only the keys botocore's model has (what its parser keeps)."""
    if shape.metadata.get("document"):
        return value
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        return {k: _modeled(v, shape.members[k]) for k, v in value.items() if k in shape.members}
    if kind == "list" and isinstance(value, list):
        return [_modeled(item, shape.member) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {k: _modeled(v, shape.value) for k, v in value.items()}
    return value


def _shape(operation: str) -> Any:
    import botocore.session

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    return model.operation_model(operation).output_shape


def _both_ways(served: Served, message: AssistantMessage) -> dict[str, Any]:
    """``converse`` and ``converse_stream`` serving ``message``: the one message read."""
    body = codec.encode_response(message)
    from_converse = _read(served.converse(body))
    expected = to_dict(codec.decode_response(_modeled(codec.boto3_form(body), _shape("Converse"))))
    assert from_converse == expected
    events = served.converse_stream(b"".join(codec.encode_stream(message, sse=True)))
    assert assembled(list(codec.decode_stream(events))) == from_converse
    return from_converse


@pytest.mark.parametrize("path", RESPONSES)
def test_recorded_responses_through_the_client(served: Served, path: Path) -> None:
    message = codec.decode_response(copy.deepcopy(recorded.load(path, shared=True)["response"]))
    _both_ways(served, message)


@pytest.mark.parametrize("path", STREAMS)
def test_recorded_streams_through_the_client(served: Served, path: Path) -> None:
    chunks = list(codec.decode_stream(copy.deepcopy(recorded.load(path, shared=True)["stream"])))
    events = served.converse_stream(b"".join(codec.encode_stream(chunks, sse=True)))
    shape = _shape("ConverseStream").members["stream"]
    kept = [_modeled(codec.boto3_form(e), shape) for e in codec.encode_stream(chunks)]
    assert events == kept
    assert assembled(list(codec.decode_stream(events))) == assembled(
        list(codec.decode_stream(kept))
    )


def test_built_messages_through_the_client(served: Served) -> None:
    message = AssistantMessage(
        content=[
            ReasoningBlock(text="Think.", signature=SIG, provider="bedrock_converse"),
            TextBlock(text="Calling."),
        ],
        tool_calls=[ToolCall(id="tooluse_1", name="f", arguments={"a": [1, "x"]})],
        usage=Usage(
            input_tokens=30,
            output_tokens=5,
            total_tokens=35,
            input_token_details=InputTokenDetails(cache_read=20),
        ),
    )
    read = _both_ways(served, message)
    assert read["tool_calls"][0]["arguments"] == {"a": [1, "x"]}
    assert read["usage"]["input_tokens"] == 30
    assert read["finish_reason"] == "tool_calls"
    assert read["content"][0]["signature"] == SIG


def test_chunks_streamed_live_through_the_client(served: Served) -> None:
    chunks = [AssistantMessageChunk(content=[TextBlock(text=t, index=0)]) for t in "Hello"]
    events = served.converse_stream(b"".join(codec.encode_stream(iter(chunks), sse=True)))
    message = assembled(list(codec.decode_stream(events)))
    assert message["content"] == [{"type": "text", "text": "Hello"}]
    assert message["finish_reason"] == "stop"


def test_the_async_path(served: Served) -> None:
    """An async source gives the same bytes; ``decode_stream`` reads them from an
    async iterator; the client reads them too."""
    chunks = [AssistantMessageChunk(content=[TextBlock(text=t, index=0)]) for t in "abc"]
    chunks.append(
        AssistantMessageChunk(usage=Usage(input_tokens=1, output_tokens=3, total_tokens=4))
    )

    async def source() -> AsyncIterator[AssistantMessageChunk]:
        for chunk in chunks:
            await asyncio.sleep(0)
            yield chunk

    async def body() -> list[bytes]:
        return [piece async for piece in codec.encode_stream(source(), sse=True)]

    pieces = asyncio.run(body())
    assert pieces == list(codec.encode_stream(chunks, sse=True))
    whole = b"".join(pieces)

    async def read() -> list[AssistantMessageChunk]:
        async def cut() -> AsyncIterator[bytes]:
            for start in range(0, len(whole), 5):
                yield whole[start : start + 5]

        return [chunk async for chunk in codec.decode_stream(cut())]

    message = assembled(asyncio.run(read()))
    assert message == assembled(list(codec.decode_stream(served.converse_stream(whole))))
    assert message["usage"]["total_tokens"] == 4
