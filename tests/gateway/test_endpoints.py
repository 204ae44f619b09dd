"""Every format's error body and stream error event, written and read back.

``WireError.body`` / ``read_error`` must agree for every format (the gateway reads
an upstream's error and writes it in the caller's shape), and ``WireError.event``
must be what each codec's own stream reader takes for an error, so that a stream
the gateway ends with an error is never read as a complete answer.
"""

from __future__ import annotations

import pytest

from chatschema.errors import ConversionError
from chatschema.providers import get_http_codec
from chatschema.providers._codec import HTTP_PROVIDERS
from chatschema.providers._endpoints import ENDPOINTS, WireError, read_error, upstream_path


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
@pytest.mark.parametrize("status", [400, 429, 500, 503])
def test_an_error_body_reads_back(provider: str, status: int) -> None:
    error = WireError(status, "the answer: nope", retry_after="7")
    body, headers = error.body(provider)
    lowered = {name.lower(): value for name, value in headers.items()}
    back = read_error(provider, status, body, lowered)
    assert back.status == status
    assert back.message == "the answer: nope"
    assert back.retry_after == "7"
    assert back.type == error.type_for(provider)
    assert back.type_for(provider) == error.type_for(provider)


def test_a_type_crosses_families_by_status() -> None:
    overloaded = read_error(
        "anthropic", 529, b'{"type":"error","error":{"type":"overloaded_error","message":"busy"}}'
    )
    assert overloaded.type_for("anthropic") == "overloaded_error"
    assert overloaded.type_for("openai_chat") == "server_error"
    assert overloaded.type_for("gemini") == "INTERNAL"
    limited = read_error("gemini", 429, b'{"error":{"code":429,"message":"m","status":"X"}}')
    assert limited.type_for("gemini") == "X"
    assert limited.type_for("bedrock_converse") == "ThrottlingException"


def test_an_unknown_error_body_keeps_its_text() -> None:
    found = read_error("openai_chat", 502, b"<html>Bad Gateway</html>")
    assert (found.status, found.message, found.type) == (502, "<html>Bad Gateway</html>", None)
    assert read_error("anthropic", 500, b"").message == "HTTP 500"


@pytest.mark.parametrize("provider", HTTP_PROVIDERS)
def test_a_stream_error_event_is_an_error_to_the_codec(provider: str) -> None:
    event = WireError(500, "broke midway").event(provider, sequence_number=3)
    with pytest.raises(ConversionError, match="broke midway"):
        list(get_http_codec(provider).decode_stream([event]))


def test_every_format_has_its_endpoints() -> None:
    served = {endpoint.provider for endpoint in ENDPOINTS}
    assert served == set(HTTP_PROVIDERS)
    assert upstream_path("gemini", "models/gemini-3", stream=True) == (
        "/v1beta/models/gemini-3:streamGenerateContent?alt=sse"
    )
    assert upstream_path("bedrock_converse", "anthropic.claude-v2:1", stream=False) == (
        "/model/anthropic.claude-v2%3A1/converse"
    )
    with pytest.raises(ValueError, match="names its model"):
        upstream_path("gemini", None, stream=False)
