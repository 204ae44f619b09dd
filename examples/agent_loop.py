"""An agent loop through the official OpenAI and Anthropic clients, with no network.

The official clients (``openai.OpenAI``, streamed, and ``anthropic.AsyncAnthropic``)
talk over real HTTP to a local server on 127.0.0.1; everything else is what an
agent does with chatschema:

    history -> encode -> client call -> decode_stream / decode_response
            -> run the tool -> tool result into the history -> next turn

and each request and reply that crossed the wire is printed, shortly.

The server is, by default, :class:`chatschema.testing.FakeProvider` answering with
the scripted model of ``scripted_provider.py`` (next to this file; a few rules: call
the tool, then answer with its result): it decodes each request with chatschema's
codec and writes the answer with it, as OpenAI Chat Completions (an SSE stream) or
Anthropic Messages would. Nothing outside the repository is needed.

With ``--recorded`` it replays instead the answers the providers really gave,
``examples/recorded/*.json`` (provenance in its README), one per request, in order.
Those files are not committed: ``make recordings`` materializes them; without them
``--recorded`` exits with status 2.

Run it with ``make demo`` or ``.venv/bin/python examples/agent_loop.py [--recorded]``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from anthropic import AsyncAnthropic
from openai import OpenAI
from scripted_provider import scripted_provider

from chatschema import (
    AssistantMessage,
    AutoToolChoice,
    Conversation,
    GenerationSettings,
    ToolDefinition,
    merge_chunks,
    tool_result,
    user,
)
from chatschema.providers import anthropic, openai_chat
from chatschema.testing import HOST as LOCAL

RECORDED = Path(__file__).resolve().parent / "recorded"
ROOT = RECORDED.parent.parent
LOOPS = ("openai_chat_agent_loop", "anthropic_agent_loop")
"""The recorded conversations, ``recorded/<name>.json``."""


class Received(Protocol):
    """A request a local server received."""

    @property
    def body(self) -> Any:
        """The JSON body."""
        ...


class LocalServer(Protocol):
    """What a loop needs of its local server: where it is and what it received.

    Both :class:`chatschema.testing.FakeProvider` and :class:`RecordedServer` are one.
    """

    @property
    def url(self) -> str:
        """The server's base URL."""
        ...

    @property
    def requests(self) -> Sequence[Received]:
        """The requests received, in order."""
        ...


# ----------------------------------------------------------- the recorded server


class RecordedRequest(NamedTuple):
    """A request the recorded server received: its JSON body."""

    body: Any


class RecordedServer:
    """A local HTTP server that answers the n-th request with the n-th recorded reply.

    A reply is a JSON body, or a server-sent-events stream written in small pieces:
    the bytes the provider sent, as they were (no codec in between). Every request
    received is kept in :attr:`requests`.
    """

    def __init__(self, interactions: list[dict[str, Any]]) -> None:
        self.interactions = interactions
        self.requests: list[RecordedRequest] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length", "0"))
                server.requests.append(RecordedRequest(json.loads(self.rfile.read(length))))
                turn = len(server.requests) - 1
                if turn >= len(server.interactions):
                    self.send_error(500, "no recorded reply left")
                    return
                recorded = server.interactions[turn]
                if "stream" in recorded:
                    body = recorded["stream"].encode()
                    self.send_response(200)
                    self.send_header("content-type", "text/event-stream")
                    self.end_headers()
                    for start in range(0, len(body), 64):  # as a network delivers it
                        self.wfile.write(body[start : start + 64])
                        self.wfile.flush()
                else:
                    body = json.dumps(recorded["response"]).encode()
                    self.send_response(200)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the demo prints what matters itself."""

        self.httpd = ThreadingHTTPServer((LOCAL, 0), Handler)

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://{LOCAL}:{self.httpd.server_address[1]}"


@contextmanager
def running(httpd: ThreadingHTTPServer) -> Iterator[None]:
    """Serve ``httpd`` in a thread for the ``with`` block, then shut it down."""
    # a short poll interval: shutdown() waits for the serving loop to look up
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@contextmanager
def recorded_server(name: str) -> Iterator[RecordedServer]:
    """A :class:`RecordedServer` for ``recorded/<name>.json``, running in a thread."""
    data = json.loads((RECORDED / f"{name}.json").read_text(encoding="utf-8"))
    server = RecordedServer(data["interactions"])
    with running(server.httpd):
        yield server


# ----------------------------------------------------------- printing, shortly


def short(text: str, width: int = 70) -> str:
    """One line of at most ``width`` characters."""
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def wire_message(message: dict[str, Any]) -> str:
    """A wire message (OpenAI Chat or Anthropic) in one line."""
    content = message.get("content")
    parts = []
    if isinstance(content, str):
        parts.append(repr(short(content, 50)))
    for block in content if isinstance(content, list) else []:
        kind = block.get("type")
        if kind == "text":
            parts.append(repr(short(block["text"], 50)))
        elif kind == "tool_use":
            parts.append(f"tool_use {block['name']}({json.dumps(block['input'])})")
        elif kind == "tool_result":
            parts.append(f"tool_result {json.dumps(block['content'])}")
        else:
            parts.append(str(kind))
    for call in message.get("tool_calls") or []:
        parts.append(f"tool_call {call['function']['name']}({call['function']['arguments']})")
    return f"{message['role']}: " + ", ".join(parts)


def show_request(body: dict[str, Any]) -> None:
    """What the client put on the wire: its keys, then the history."""
    keys = ", ".join(key for key in body if key != "messages")
    print(f"  -> request  {keys}")
    for message in body["messages"]:
        print(f"       {short(wire_message(message), 90)}")


def show_reply(reply: AssistantMessage, how: str) -> None:
    """What decoding the client's answer gave."""
    usage = reply.usage
    tokens = f", {usage.input_tokens} in / {usage.output_tokens} out" if usage else ""
    print(f"  <- {how}: finish_reason={reply.finish_reason}{tokens}")
    if reply.text:
        print(f"       text: {short(reply.text, 80)!r}")
    for call in reply.tool_calls:
        print(f"       tool call {call.name}({json.dumps(call.arguments)}) id={call.id}")


# ----------------------------------------------------------- the tools

COUNTRY_CAPITALS = {"UK": "London", "France": "Paris"}

TOOLS: dict[str, Callable[..., str]] = {
    "get_capital": lambda country: COUNTRY_CAPITALS.get(country, "unknown"),
    "get_user_country": lambda: "Mexico",
}


def run_tools(conversation: Conversation, reply: AssistantMessage) -> None:
    """Run each call of ``reply`` and add its result to the history."""
    for call in reply.tool_calls:
        output = TOOLS[call.name](**call.arguments)
        print(f"     ran {call.name}({json.dumps(call.arguments)}) = {output!r}")
        conversation.messages.append(tool_result(output, tool_call_id=call.id))


# ----------------------------------------------------------- the loops


def openai_chat_loop(server: LocalServer) -> Conversation:
    """OpenAI Chat Completions, streamed, with the sync client."""
    client = OpenAI(api_key="demo-key", base_url=f"{server.url}/v1", max_retries=0)
    conversation = Conversation(
        messages=[user("What is the capital of the UK? Use the tool, then answer.")],
        tools=[
            ToolDefinition(
                name="get_capital",
                description="",
                parameters={
                    "type": "object",
                    "properties": {"country": {"type": "string"}},
                    "required": ["country"],
                    "additionalProperties": False,
                },
                strict=True,
            )
        ],
        tool_choice=AutoToolChoice(),
        settings=GenerationSettings(model="gpt-4o-mini"),
    )
    for turn in range(1, 5):
        print(f"turn {turn}")
        # settings.model is in encode's output; the caller's keywords are merged last
        request = {
            **openai_chat.encode(conversation),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        stream = client.chat.completions.create(**request)
        show_request(server.requests[-1].body)
        chunks = list(openai_chat.decode_stream(stream))
        reply = merge_chunks(chunks).to_message()
        show_reply(reply, f"{len(chunks)} chunks from the SDK's Stream")
        conversation.messages.append(reply)
        if not reply.tool_calls:
            break
        run_tools(conversation, reply)
    return conversation


async def anthropic_loop(server: LocalServer) -> Conversation:
    """Anthropic Messages, not streamed, with the async client."""
    conversation = Conversation(
        messages=[
            user(
                "What is the largest city in the user country? Use the get_user_country "
                "tool and then your own world knowledge."
            )
        ],
        tools=[
            ToolDefinition(
                name="get_user_country",
                description="",
                parameters={"type": "object", "properties": {}, "additionalProperties": False},
            )
        ],
        tool_choice=AutoToolChoice(),
        settings=GenerationSettings(model="claude-sonnet-4-5", max_output_tokens=4096),
    )
    async with AsyncAnthropic(api_key="demo-key", base_url=server.url, max_retries=0) as client:
        for turn in range(1, 5):
            print(f"turn {turn}")
            message = await client.messages.create(**anthropic.encode(conversation))
            show_request(server.requests[-1].body)
            reply = anthropic.decode_response(message)
            show_reply(reply, f"the SDK's {type(message).__name__}")
            conversation.messages.append(reply)
            if not reply.tool_calls:
                break
            run_tools(conversation, reply)
    return conversation


def main(argv: Sequence[str] | None = None) -> int:
    """Run both loops against the scripted local provider (or ``--recorded`` replies).

    The scripted local provider is a :class:`chatschema.testing.FakeProvider` answering
    with ``scripted_provider.scripted_reply``.

    Returns the exit status: 2 when ``--recorded`` finds the recordings absent.
    """
    parser = argparse.ArgumentParser(
        description="An agent loop through the official OpenAI and Anthropic clients, "
        "against a local server: the scripted local provider, or recorded replies."
    )
    parser.add_argument(
        "--recorded",
        action="store_true",
        help="replay the providers' recorded answers (examples/recorded/, made by "
        "`make recordings`) instead of the scripted local provider",
    )
    recorded = parser.parse_args(argv).recorded
    if recorded:
        missing = [RECORDED / f"{name}.json" for name in LOOPS]
        missing = [path for path in missing if not path.is_file()]
        if missing:
            names = ", ".join(str(path.relative_to(ROOT)) for path in missing)
            print(
                f"agent_loop: the recordings are absent ({names}); "
                "`make recordings` materializes them",
                file=sys.stderr,
            )
            return 2
    # the servers are local: no proxy between the clients and them
    no_proxy = os.environ.get("NO_PROXY", "")
    os.environ["NO_PROXY"] = f"{no_proxy},{LOCAL}" if no_proxy else LOCAL

    def server(name: str) -> AbstractContextManager[LocalServer]:
        return recorded_server(name) if recorded else scripted_provider()

    against = "recorded replies" if recorded else "the scripted local provider"
    print(f"== openai_chat: OpenAI().chat.completions.create(stream=True), against {against}")
    with server("openai_chat_agent_loop") as local:
        history = openai_chat_loop(local)
    print(f"done: {len(history.messages)} messages, answer: {short(history.messages[-1].text)!r}")

    print(f"\n== anthropic: await AsyncAnthropic().messages.create(...), against {against}")
    with server("anthropic_agent_loop") as local:
        history = asyncio.run(anthropic_loop(local))
    print(f"done: {len(history.messages)} messages, answer: {short(history.messages[-1].text)!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
