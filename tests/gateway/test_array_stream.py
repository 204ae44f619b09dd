"""A Gemini caller that streams without ``alt=sse`` gets one JSON array, as Gemini sends."""

from __future__ import annotations

import json

import httpx

from chatschema import assistant
from chatschema.gateway import create_app
from chatschema.providers import gemini
from chatschema.testing import FakeError, FakeProvider, LocalServer

BODY = {"contents": [{"role": "user", "parts": [{"text": "Count to three."}]}]}
PATH = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"


def test_a_json_array_stream_from_another_format() -> None:
    script = [assistant("One two three.", finish_reason="stop"), FakeError(500, "boom", after=3)]
    with FakeProvider(script) as fake, LocalServer(create_app("anthropic", fake.url)) as server:
        whole = httpx.post(server.url + PATH, json=BODY)
        broken = httpx.post(server.url + PATH, json=BODY)
    assert whole.status_code == 200
    assert whole.headers["content-type"].startswith("application/json")
    events = json.loads(whole.content)
    text = "".join(chunk.content for chunk in gemini.decode_stream(events) if chunk.content)
    assert text == "One two three."
    # broken midway: still one JSON array, its last item the error
    items = json.loads(broken.content)
    assert items[-1] == {"error": {"code": 502, "message": "boom", "status": "INTERNAL"}}
    assert len(items) > 1
