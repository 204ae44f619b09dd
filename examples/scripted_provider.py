"""A scripted model, served by :class:`chatschema.testing.FakeProvider`.

The provider ``examples/agent_loop.py`` talks to by default, so that the demo needs no
network, no key and no recorded file. :func:`scripted_model` is a few rules, no model
at all: call the conversation's tool, then answer with its result.
:func:`scripted_provider` serves it with ``FakeProvider`` on 127.0.0.1, which speaks
every provider's wire format: each request is decoded with chatschema's codec
(``decode_conversation``), :func:`scripted_reply` asks the scripted model for the next
assistant message, and the codec writes it as the provider would
(``encode_response``, or ``encode_stream`` when the client streams: the text in
small deltas, a word at a time).

Token counts are :func:`chatschema.count_tokens_approximately` of the request's
history (tools included) and of the reply. A tool call's id is derived from the request
body, in the provider's shape (``call_...`` for OpenAI, ``toolu_01...`` for
Anthropic): the same request gets the same call.
"""

from __future__ import annotations

import hashlib
import json
import string
from typing import Any

from chatschema import (
    AssistantMessage,
    Conversation,
    ToolMessage,
    Usage,
    UserMessage,
    assistant,
    count_tokens_approximately,
    tool_call,
)
from chatschema.testing import FakeProvider, FakeRequest

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


# ----------------------------------------------------------- served by FakeProvider

ALPHANUMERICS = string.ascii_letters + string.digits
CALL_IDS = {"anthropic": ("toolu_01", 22), "bedrock_converse": ("tooluse_", 22)}
"""The shape of a tool call's id per format (prefix, length); others: ``call_`` and 24."""


def ident(prefix: str, seed: bytes, length: int) -> str:
    """An id: ``prefix`` and ``length`` letters and digits derived from ``seed``."""
    number = int.from_bytes(hashlib.sha256(prefix.encode() + seed).digest(), "big")
    letters = []
    for _ in range(length):
        number, digit = divmod(number, len(ALPHANUMERICS))
        letters.append(ALPHANUMERICS[digit])
    return prefix + "".join(letters)


def scripted_reply(history: Conversation, request: FakeRequest) -> AssistantMessage:
    """The FakeProvider script: :func:`scripted_model`'s message, with its token usage.

    The tool call's id is made from the request body in the format's shape; the usage
    counts the request's history (tools included) and the reply, approximately.
    """
    prefix, length = CALL_IDS.get(request.format, ("call_", 24))
    body: Any = request.body
    seed = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    reply = scripted_model(history, ident(prefix, seed, length))
    prompt = count_tokens_approximately(history.messages, tools=history.tools)
    completion = count_tokens_approximately(reply)
    usage = Usage(input_tokens=prompt, output_tokens=completion, total_tokens=prompt + completion)
    return reply.model_copy(update={"usage": usage})


def scripted_provider() -> FakeProvider:
    """A :class:`FakeProvider` answering every format with :func:`scripted_reply`.

    ``with scripted_provider() as provider:`` serves it on 127.0.0.1 for the block.
    """
    return FakeProvider(scripted_reply)
