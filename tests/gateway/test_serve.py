"""``chatschema serve``: the gateway under uvicorn, as a user starts it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import pytest
from openai import OpenAI

from chatschema import assistant
from chatschema.cli import main
from chatschema.testing import FakeProvider


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for(port: int, process: subprocess.Popen[str], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"serve exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise AssertionError(f"serve did not listen on {port} within {seconds} s")


def test_serve_translates_and_says_what_to_what() -> None:
    port = _free_port()
    with FakeProvider([assistant("Hi from Claude's side.")]) as fake:
        environment = {**os.environ, "CHATSCHEMA_UPSTREAM_API_KEY": "sk-upstream-secret"}
        command = [sys.executable, "-m", "chatschema", "serve", "--upstream", "anthropic"]
        command += ["--url", fake.url, "--port", str(port), "--log-level", "warning"]
        process = subprocess.Popen(
            command, env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        try:
            _wait_for(port, process, 30)
            client = OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="caller", max_retries=0)
            answer = client.chat.completions.create(
                model="claude-test", messages=[{"role": "user", "content": "hi"}]
            )
        finally:
            process.terminate()
            out, err = process.communicate(timeout=20)
        url = fake.url
    assert answer.choices[0].message.content == "Hi from Claude's side."
    sent = fake.requests[0]
    assert sent.path == "/v1/messages"
    assert sent.headers["x-api-key"] == "sk-upstream-secret"
    assert sent.headers["anthropic-version"] == "2023-06-01"
    lines = out.splitlines()
    assert lines[0] == f"chatschema gateway on http://127.0.0.1:{port}, upstream anthropic:"
    assert f"  POST /v1/chat/completions (openai_chat) -> anthropic {url}/v1/messages" in lines
    assert "sk-upstream-secret" not in out + err


def test_serve_refuses_a_bad_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--upstream", "gemini", "--url", "localhost:8000"]) == 2
    assert "expected an http:// or https:// base URL" in capsys.readouterr().err
