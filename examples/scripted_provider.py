"""A scripted local provider: OpenAI Chat Completions and Anthropic Messages on 127.0.0.1.

The provider ``examples/agent_loop.py`` talks to by default, so that the demo needs no
network, no key and no recorded file. A local HTTP server reads each request with
chatschema's codec (``decode_conversation``), asks :func:`scripted_model` (a few
rules, no model at all) for the next assistant message, and writes it as the
provider would:

- ``POST /v1/chat/completions``: OpenAI Chat Completions; with ``"stream": true``
  server-sent ``chat.completion.chunk`` events (the role, text and tool-call
  arguments in small deltas, the finish reason, the usage chunk when
  ``stream_options.include_usage`` asks for it, then ``data: [DONE]``), otherwise a
  ``chat.completion`` body;
- ``POST /v1/messages``: Anthropic Messages, a ``message`` body (not streamed).

Token counts are :func:`chatschema.count_tokens_approximately` of the request's
history (tools included) and of the reply. Ids are derived from the request body, in
each provider's shape (``chatcmpl-...``, ``call_...``, ``msg_...``, ``toolu_...``):
the same request gets the same answer.

The wire writers here are a stop-gap until the codecs write responses themselves.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

from chatschema import (
    AssistantMessage,
    ChatSchemaError,
    Conversation,
    ToolMessage,
    Usage,
    UserMessage,
    assistant,
    count_tokens_approximately,
    tool_call,
)
from chatschema.providers import anthropic, openai_chat

LOCAL = "127.0.0.1"
CHAT_COMPLETIONS = "/v1/chat/completions"
MESSAGES = "/v1/messages"

ScriptedModel = Callable[[Conversation, str], AssistantMessage]
"""A model: the history and the id to give a tool call -> the next assistant message."""


# ----------------------------------------------------------- the scripted model

WORLD_KNOWLEDGE = {"the largest city in Mexico": "Mexico City"}
"""All the scripted model knows of the world."""


def scripted_model(history: Conversation, call_id: str) -> AssistantMessage:
    """The next assistant message for ``history``: a script, not a model.

    - The user asked (the last message is theirs): call the conversation's first
      tool, each required parameter given the question's last word ("What is the
      capital of the UK?" -> ``{"country": "UK"}``), with the id ``call_id``.
    - A tool answered (the last message is its result): answer the question with it.
    - No tool to call: say so.
    """
    question = next((m.text for m in history.messages if isinstance(m, UserMessage)), "")
    subject = question.split("?")[0].removeprefix("What is ").strip()  # "the capital of the UK"
    last = history.messages[-1] if history.messages else None
    if isinstance(last, ToolMessage):
        return assistant(answer(subject, last.text), finish_reason="stop")
    if not history.tools:
        return assistant("I have no tool to find that out.", finish_reason="stop")
    tool = history.tools[0]
    word = subject.split()[-1] if subject else ""
    arguments = {name: word for name in tool.parameters.get("required", [])}
    call = tool_call(tool.name, arguments, id=call_id)
    return assistant(tool_calls=[call], finish_reason="tool_calls")


def answer(subject: str, result: str) -> str:
    """A sentence answering ``subject`` (what the question asked) with a tool's ``result``.

    "the capital of the UK" and "London" -> "The capital of the UK is London."; a
    result that names the user's country takes its place, and world knowledge
    answers: "the largest city in the user country" and "Mexico" -> "The largest
    city in Mexico is Mexico City."
    """
    if "the user country" in subject:
        subject = subject.replace("the user country", result)
        result = WORLD_KNOWLEDGE.get(subject, "not known to this script")
    return f"{subject[:1].upper()}{subject[1:]} is {result}."


# ----------------------------------------------------------- the wire writers

ALPHANUMERICS = string.ascii_letters + string.digits
ARGUMENT_PIECE = 5
"""Streamed tool-call arguments come in pieces of this many characters."""


def ident(prefix: str, seed: bytes, length: int) -> str:
    """An id: ``prefix`` and ``length`` letters and digits derived from ``seed``."""
    number = int.from_bytes(hashlib.sha256(prefix.encode() + seed).digest(), "big")
    letters = []
    for _ in range(length):
        number, digit = divmod(number, len(ALPHANUMERICS))
        letters.append(ALPHANUMERICS[digit])
    return prefix + "".join(letters)


def arguments_json(arguments: dict[str, Any]) -> str:
    """Tool-call arguments as OpenAI writes them: compact JSON."""
    return json.dumps(arguments, ensure_ascii=False, separators=(",", ":"))


def openai_usage(reply: AssistantMessage) -> dict[str, int]:
    """The reply's usage as a Chat Completions ``usage`` object."""
    assert reply.usage is not None
    return {
        "prompt_tokens": reply.usage.input_tokens,
        "completion_tokens": reply.usage.output_tokens,
        "total_tokens": reply.usage.total_tokens,
    }


def openai_finish_reason(reply: AssistantMessage) -> str:
    """``tool_calls`` when the reply calls tools, else ``stop``."""
    return "tool_calls" if reply.tool_calls else "stop"


def openai_chat_completion(
    reply: AssistantMessage, request: dict[str, Any], seed: bytes
) -> dict[str, Any]:
    """``reply`` as a ``chat.completion`` body (a request without ``stream``)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text or None, "refusal": None}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.name, "arguments": arguments_json(call.arguments)},
            }
            for call in reply.tool_calls
        ]
    choice = {
        "index": 0,
        "message": message,
        "logprobs": None,
        "finish_reason": openai_finish_reason(reply),
    }
    return {
        "id": ident("chatcmpl-", seed, 29),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request["model"],
        "choices": [choice],
        "usage": openai_usage(reply),
    }


def openai_chat_chunks(
    reply: AssistantMessage, request: dict[str, Any], seed: bytes
) -> list[dict[str, Any]]:
    """``reply`` as the ``chat.completion.chunk`` objects of a stream, in order."""
    include_usage = bool((request.get("stream_options") or {}).get("include_usage"))
    head: dict[str, Any] = {
        "id": ident("chatcmpl-", seed, 29),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": request["model"],
    }
    if include_usage:
        head["usage"] = None  # every chunk but the usage chunk has none

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return {**head, "choices": [choice]}

    chunks = [chunk({"role": "assistant", "content": "" if reply.text else None})]
    if reply.text:  # a word a delta: "The", " capital", " of" ...
        chunks += [chunk({"content": word}) for word in re.split(r"(?<=\S)(?=\s)", reply.text)]
    for index, call in enumerate(reply.tool_calls):
        function = {"name": call.name, "arguments": ""}
        header = {"index": index, "id": call.id, "type": "function", "function": function}
        chunks.append(chunk({"tool_calls": [header]}))
        arguments = arguments_json(call.arguments)
        for start in range(0, len(arguments), ARGUMENT_PIECE):
            piece = {"arguments": arguments[start : start + ARGUMENT_PIECE]}
            chunks.append(chunk({"tool_calls": [{"index": index, "function": piece}]}))
    chunks.append(chunk({}, openai_finish_reason(reply)))
    if include_usage:
        chunks.append({**head, "choices": [], "usage": openai_usage(reply)})
    return chunks


def anthropic_message(
    reply: AssistantMessage, request: dict[str, Any], seed: bytes
) -> dict[str, Any]:
    """``reply`` as an Anthropic ``message`` body."""
    assert reply.usage is not None
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}] if reply.text else []
    content += [
        {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}
        for call in reply.tool_calls
    ]
    return {
        "id": ident("msg_01", seed, 22),
        "type": "message",
        "role": "assistant",
        "model": request["model"],
        "content": content,
        "stop_reason": "tool_use" if reply.tool_calls else "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": reply.usage.input_tokens,
            "output_tokens": reply.usage.output_tokens,
        },
    }


def sse(events: list[dict[str, Any]]) -> list[bytes]:
    """Server-sent events, one ``data:`` line each, then ``data: [DONE]``."""
    lines = [f"data: {json.dumps(event, ensure_ascii=False)}\n\n" for event in events]
    return [line.encode() for line in [*lines, "data: [DONE]\n\n"]]


# ----------------------------------------------------------- the server


class ScriptedServer:
    """A local HTTP server that answers with a scripted model, as OpenAI or Anthropic do.

    ``POST /v1/chat/completions`` speaks OpenAI Chat Completions (streamed or not),
    ``POST /v1/messages`` Anthropic Messages (not streamed). Kept in order: every
    request body in :attr:`received`; for each request answered, the model's message
    (with the usage the wire reports) in :attr:`replies` and the response body
    written in :attr:`sent` (a stream's whole SSE body).
    """

    def __init__(self, model: ScriptedModel = scripted_model) -> None:
        self.model = model
        self.received: list[dict[str, Any]] = []
        self.replies: list[AssistantMessage] = []
        self.sent: list[bytes] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                try:
                    content_type, pieces = server.respond(urlsplit(self.path).path, body)
                except LookupError as error:
                    self.send_error(404, str(error))
                    return
                except (ValueError, ChatSchemaError) as error:  # JSON, the codec, the script
                    self.send_error(400, " ".join(str(error).split()))
                    return
                server.sent.append(b"".join(pieces))
                self.send_response(200)
                self.send_header("content-type", content_type)
                if content_type == "application/json":
                    self.send_header("content-length", str(len(pieces[0])))
                self.end_headers()
                for piece in pieces:  # an event at a time, as a provider streams them
                    self.wfile.write(piece)
                    self.wfile.flush()

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the demo prints what matters itself."""

        self.httpd = ThreadingHTTPServer((LOCAL, 0), Handler)

    @property
    def url(self) -> str:
        """The server's base URL."""
        return f"http://{LOCAL}:{self.httpd.server_address[1]}"

    def respond(self, path: str, body: bytes) -> tuple[str, list[bytes]]:
        """The answer to ``body`` posted to ``path``: its media type and the pieces to write."""
        if path not in (CHAT_COMPLETIONS, MESSAGES):
            raise LookupError(f"no endpoint {path} here: {CHAT_COMPLETIONS} or {MESSAGES}")
        request = json.loads(body)
        if not isinstance(request, dict):
            raise ValueError("the request body is not a JSON object")
        self.received.append(request)
        if path == CHAT_COMPLETIONS:
            history = openai_chat.decode_conversation(request)
            reply = self.reply(history, ident("call_", body, 24))
            if request.get("stream"):
                return "text/event-stream", sse(openai_chat_chunks(reply, request, body))
            completion = openai_chat_completion(reply, request, body)
            return "application/json", [json.dumps(completion, ensure_ascii=False).encode()]
        if request.get("stream"):
            raise ValueError("this scripted provider does not stream Anthropic Messages")
        history = anthropic.decode_conversation(request)
        message = anthropic_message(self.reply(history, ident("toolu_01", body, 22)), request, body)
        return "application/json", [json.dumps(message, ensure_ascii=False).encode()]

    def reply(self, history: Conversation, call_id: str) -> AssistantMessage:
        """The model's next message for ``history``, with its approximate token usage."""
        reply = self.model(history, call_id)
        prompt = count_tokens_approximately(history.messages, tools=history.tools)
        completion = count_tokens_approximately(reply)
        usage = Usage(
            input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion
        )
        reply = reply.model_copy(update={"usage": usage})
        self.replies.append(reply)
        return reply


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
def scripted_server(model: ScriptedModel = scripted_model) -> Iterator[ScriptedServer]:
    """A :class:`ScriptedServer` answering with ``model``, running in a thread."""
    server = ScriptedServer(model)
    with running(server.httpd):
        yield server
