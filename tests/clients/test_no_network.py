"""The guard of this package: nothing reaches a real host."""

from __future__ import annotations

import httpx
import openai
import pytest
from openai import OpenAI

from chatschema import user
from chatschema.providers import openai_chat

from .conftest import HOST, EscapedRequest, Reply, Wire


def test_a_client_without_the_mock_transport_cannot_connect() -> None:
    with pytest.raises(EscapedRequest, match=HOST), httpx.Client() as client:
        client.get(f"http://{HOST}/v1/models")


def test_an_official_client_without_the_wire_fails() -> None:
    client = OpenAI(api_key="test", base_url=f"http://{HOST}/v1", max_retries=0)
    with pytest.raises((EscapedRequest, openai.APIConnectionError)) as caught:
        client.chat.completions.create(model="gpt-4.1-mini", **openai_chat.encode([user("Hi")]))
    error: BaseException | None = caught.value
    while error is not None and not isinstance(error, EscapedRequest):
        error = error.__cause__ or error.__context__
    assert isinstance(error, EscapedRequest)


def test_the_wire_refuses_another_host() -> None:
    wire = Wire(Reply(b"{}", "application/json"))
    with pytest.raises(EscapedRequest, match=r"api\.openai\.com"), wire.httpx_client() as client:
        client.post("https://api.openai.com/v1/chat/completions", json={})
    assert wire.sent == []
