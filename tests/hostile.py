"""Shared pieces of the robustness suites: seeds, mutations, budgets, error checks.

Used by ``test_fuzz.py``, ``test_roundtrip_properties.py``, ``test_limits.py``,
``test_secrets.py`` and ``test_no_silent_loss.py``.

- **Seeds** are valid documents of every kind: the neutral conformance fixtures
  (``schemas/fixtures/valid/**``), provider requests (every neutral conversation
  fixture encoded by each codec, plus hand-written and recorded payloads), provider
  responses and stream event sequences (``tests/payloads/**`` and hand-written ones).
  Recorded files (``tests/recordings``) may be absent: the pools of seeds take those
  present (the run's closing line counts the others), and :func:`request_seed_cases`
  names each one, read when a test uses it (:class:`Recorded`), so that an absent file
  is a skipped test.
- **Mutations** (:func:`mutated`, :func:`mutated_stream`) drop, retype, duplicate,
  reorder and truncate values, swap type tags, nest values deeply and make them large.
- **Budgets**: :func:`fuzz_settings` gives each property its CI number of examples;
  ``CHATSCHEMA_FUZZ_EXAMPLES=N`` runs every fuzz property with ``N`` examples instead
  (``make fuzz``), with a fresh random seed.
- **Checks**: :func:`call` runs an entry point and lets only chatschema's own
  exceptions out, each checked to say where the problem is; :data:`CALLS` counts the
  calls per entry point (``CHATSCHEMA_FUZZ_REPORT=path`` writes them as JSON).
"""

from __future__ import annotations

import base64
import copy
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import recorded
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from providers.gemini_interactions.seeds import interactions_requests, interactions_responses
from providers.mistral.seeds import mistral_requests, mistral_responses

from chatschema.errors import ChatSchemaError, ConversionError, OptionError, ValidationError
from chatschema.providers import PROVIDERS, get_codec

ROOT = Path(__file__).resolve().parent.parent
PAYLOADS = ROOT / "tests" / "payloads"
FIXTURES = ROOT / "schemas" / "fixtures"
BUNDLE: dict[str, Any] = json.loads(
    (ROOT / "generated" / "chatschema.schema.json").read_text(encoding="utf-8")
)

# ------------------------------------------------------------------------ budgets

FUZZ_EXAMPLES = int(os.environ.get("CHATSCHEMA_FUZZ_EXAMPLES", "0") or 0)
"""Examples per fuzz property for a long run (0: the CI budgets written in the tests)."""


def examples(ci: int) -> int:
    """The number of examples for a property: its CI budget, or the long-run number."""
    return FUZZ_EXAMPLES or ci


def fuzz_settings(ci: int) -> settings:
    """Hypothesis settings for a fuzz property with a CI budget of ``ci`` examples.

    CI runs are derandomized (the same examples every run: no flaky failures); a long
    run (``CHATSCHEMA_FUZZ_EXAMPLES``) draws new ones every time.
    """
    return settings(
        max_examples=examples(ci),
        deadline=None,
        derandomize=not FUZZ_EXAMPLES,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


CALLS: Counter[str] = Counter()
"""Calls made per entry point in this process (reported in docs/robustness.md)."""


def write_report() -> None:
    """Write :data:`CALLS` to the file named by ``CHATSCHEMA_FUZZ_REPORT``, if set."""
    path = os.environ.get("CHATSCHEMA_FUZZ_REPORT")
    if path:
        previous: dict[str, int] = {}
        if os.path.exists(path):
            previous = json.loads(Path(path).read_text(encoding="utf-8"))
        merged = Counter(previous)
        merged.update(CALLS)
        Path(path).write_text(json.dumps(dict(sorted(merged.items())), indent=1), "utf-8")
        CALLS.clear()


# --------------------------------------------------------------------- the checks


class Escaped(AssertionError):
    """An entry point let out something other than a located chatschema error."""


def check_error(error: BaseException, *, provider: str | None = None) -> None:
    """Assert that ``error`` is a chatschema error that says where the problem is.

    - ``ValidationError``: at least one problem; each with a JSON pointer (``""``
      for the whole document, else starting with ``/``), a keyword and a message.
    - ``ConversionError``: a reason, the provider (``provider`` when given), and
      message / block indexes that are non-negative integers when present.
    - ``OptionError``: a message.
    """
    if not isinstance(error, ChatSchemaError):
        raise Escaped(f"{type(error).__name__} escaped: {error!r}"[:2000]) from error
    text = str(error)
    assert text.strip(), f"{type(error).__name__} without a message"
    if isinstance(error, ValidationError):
        assert error.problems, "a ValidationError without problems"
        for problem in error.problems:
            assert problem.pointer == "" or problem.pointer.startswith("/"), problem
            assert problem.keyword and problem.message.strip(), problem
    elif isinstance(error, ConversionError):
        assert error.reason.strip(), "a ConversionError without a reason"
        assert error.provider in (*PROVIDERS, "input"), error.provider
        if provider is not None:
            assert error.provider in (provider, "input"), (error.provider, provider)
        for index in (error.message_index, error.block_index):
            assert index is None or (type(index) is int and index >= 0), error
    else:
        assert isinstance(error, OptionError), f"unexpected {type(error).__name__}: {error}"


def call(
    name: str, function: Callable[..., Any], *args: Any, provider: str | None = None, **kw: Any
) -> tuple[bool, Any]:
    """Run one entry point on hostile input.

    Returns:
        ``(True, result)`` when it succeeded, ``(False, error)`` when it raised a
        chatschema error (checked with :func:`check_error`).

    Raises:
        Escaped: for any other exception (``RecursionError``, ``KeyError`` ...).
    """
    CALLS[name] += 1
    try:
        return True, function(*args, **kw)
    except Exception as error:
        check_error(error, provider=provider)
        return False, error


def drain(iterator: Any) -> list[Any]:
    """All items of a (lazy) iterator, as a list."""
    return list(iterator)


# -------------------------------------------------------------------------- seeds


def _load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def neutral_seeds() -> list[tuple[str, Any]]:
    """``(type name, document)`` for every valid conformance fixture."""
    return [
        (path.parent.name, _load(path)) for path in sorted((FIXTURES / "valid").glob("*/*.json"))
    ]


NEUTRAL = neutral_seeds()
MESSAGE_TYPES = ("Message", "SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage")


def conversation_seeds() -> list[dict[str, Any]]:
    """Every valid conversation fixture, and every message fixture as a conversation."""
    out = []
    for type_name, document in NEUTRAL:
        if type_name == "Conversation":
            out.append(document)
        elif type_name in MESSAGE_TYPES:
            out.append({"messages": [document]})
    return out


CONVERSATIONS = conversation_seeds()

PNG = (
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgYGBgAAAABQABh6FO1AAAAABJRU5E"
    "rkJggg=="
)
# Valid base64, as every provider's signatures are (Gemini's are bytes on the SDK side).
SIGNATURE = (
    "EqQBCmNoYXRzY2hlbWEtdGVzdC1zaWduYXR1cmUtY2hhdHNjaGVtYS10ZXN0LXNpZ25hdHVyZS0A"
    "AQIDBAUGBwgJCgsMDQ4PEBESEw=="
)
ENCRYPTED = "gAAAAABo-ENCRYPTED-REASONING-" + "Zm9vYmFy" * 8


def _handwritten_requests() -> dict[str, list[Any]]:
    weather = {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    }
    return {
        "openai_chat": [
            {
                "messages": [
                    {"role": "system", "content": "Be brief."},
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "What is this?"},
                            {
                                "type": "image_url",
                                "image_url": {
                                    "url": f"data:image/png;base64,{PNG}",
                                    "detail": "low",
                                },
                            },
                        ],
                    },
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "call_1",
                                "type": "function",
                                "function": {"name": "get_weather", "arguments": '{"city":"Oslo"}'},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "call_1", "content": "-3C"},
                    {"role": "assistant", "content": "Cold.", "refusal": None},
                ],
                "tools": [
                    {
                        "type": "function",
                        "function": {"name": "get_weather", "parameters": weather},
                    }
                ],
                "tool_choice": "auto",
            }
        ],
        "openai_responses": [
            {
                "instructions": "Be brief.",
                "input": [
                    {"role": "user", "content": [{"type": "input_text", "text": "Weather?"}]},
                    {
                        "type": "reasoning",
                        "id": "rs_1",
                        "summary": [{"type": "summary_text", "text": "Need a tool."}],
                        "encrypted_content": ENCRYPTED,
                    },
                    {
                        "type": "function_call",
                        "id": "fc_1",
                        "call_id": "call_1",
                        "name": "get_weather",
                        "arguments": '{"city":"Oslo"}',
                    },
                    {"type": "function_call_output", "call_id": "call_1", "output": "-3C"},
                    {
                        "type": "message",
                        "id": "msg_1",
                        "role": "assistant",
                        "status": "completed",
                        "content": [{"type": "output_text", "text": "Cold.", "annotations": []}],
                    },
                ],
                "tools": [
                    {
                        "type": "function",
                        "name": "get_weather",
                        "parameters": weather,
                        "strict": False,
                    }
                ],
                "tool_choice": "auto",
            },
            {"input": "Hello"},
        ],
        # Open Responses: what it adds to the Responses wire object (its OpenAPI document:
        # video only in tool outputs, no reasoning `content` in requests)
        "open_responses": [
            {
                "model": "openai/gpt-oss-120b",
                "input": [
                    {
                        "type": "message",
                        "role": "user",
                        "content": [{"type": "input_text", "text": "What happens here?"}],
                    },
                    {"type": "compaction", "id": "cmp_1", "encrypted_content": ENCRYPTED},
                    {
                        "type": "reasoning",
                        "id": "rs_1",
                        "summary": [{"type": "summary_text", "text": "A clip."}],
                        "encrypted_content": ENCRYPTED,
                    },
                    {
                        "type": "message",
                        "id": "msg_1",
                        "role": "assistant",
                        "status": "completed",
                        "phase": "commentary",
                        "content": [{"type": "output_text", "text": "Looking.", "annotations": []}],
                    },
                    {"type": "openai:web_search_call", "id": "ws_1", "status": "completed"},
                    {
                        "type": "function_call",
                        "id": "fc_1",
                        "call_id": "call_1",
                        "name": "frame",
                        "arguments": '{"at":1}',
                    },
                    {
                        "type": "function_call_output",
                        "call_id": "call_1",
                        "output": [
                            {"type": "input_video", "video_url": "data:video/mp4;base64,AAAA"}
                        ],
                    },
                ],
                "tools": [{"type": "function", "name": "frame", "parameters": {}, "strict": False}],
            },
        ],
        "anthropic": [
            {
                "system": "Be brief.",
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "Look:"},
                            {
                                "type": "image",
                                "source": {
                                    "type": "base64",
                                    "media_type": "image/png",
                                    "data": PNG,
                                },
                            },
                        ],
                    },
                    {
                        "role": "assistant",
                        "content": [
                            {"type": "thinking", "thinking": "A tool.", "signature": SIGNATURE},
                            {"type": "redacted_thinking", "data": ENCRYPTED},
                            {
                                "type": "tool_use",
                                "id": "toolu_1",
                                "name": "get_weather",
                                "input": {"city": "Oslo"},
                            },
                        ],
                    },
                    {
                        "role": "user",
                        "content": [
                            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "-3C"},
                            {
                                "type": "text",
                                "text": "And now?",
                                "cache_control": {"type": "ephemeral"},
                            },
                        ],
                    },
                ],
                "tools": [{"name": "get_weather", "input_schema": weather}],
                "tool_choice": {"type": "auto"},
                # settings and request keys (anthropic/settings.py)
                "model": "claude-sonnet-4-5",
                "max_tokens": 2048,
                "thinking": {"type": "enabled", "budget_tokens": 1024, "display": "omitted"},
                "output_config": {"effort": "high"},
                "extra_body": {"top_k": 5},
                "metadata": {"user_id": "u-1"},
            }
        ],
        "gemini": [
            _load(PAYLOADS / "gemini" / "history_agent_camel.json"),
            {
                "system_instruction": {"parts": [{"text": "Be brief."}]},
                "contents": [
                    {
                        "role": "user",
                        "parts": [
                            {"text": "Look:"},
                            {"inline_data": {"mime_type": "image/png", "data": PNG}},
                        ],
                    },
                    {
                        "role": "model",
                        "parts": [
                            {"text": "Thinking", "thought": True},
                            {
                                "function_call": {"name": "get_weather", "args": {"city": "Oslo"}},
                                "thought_signature": SIGNATURE,
                            },
                        ],
                    },
                    {
                        "role": "user",
                        "parts": [
                            {
                                "function_response": {
                                    "name": "get_weather",
                                    "response": {"output": "-3C"},
                                }
                            }
                        ],
                    },
                ],
            },
        ],
        "otel_genai": _otel_genai_requests(weather),
        "bedrock_converse": _bedrock_converse_requests(weather),
        "mistral": mistral_requests(weather),
        "gemini_interactions": interactions_requests(weather),
    }


def _bedrock_converse_requests(weather: dict[str, Any]) -> list[Any]:
    """A hand-written Converse request with every block kind, blobs as base64 text (the
    REST API's JSON form)."""
    spec = {"name": "get_weather", "inputSchema": {"json": weather}}
    call = {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Oslo"}}
    result = {"toolUseId": "tooluse_1", "content": [{"json": {"t": -3}}], "status": "success"}
    thinking = {"reasoningText": {"text": "A tool.", "signature": SIGNATURE}}
    return [
        {
            "modelId": "anthropic.claude-sonnet-4-5",
            "system": [{"text": "Be brief."}, {"cachePoint": {"type": "default"}}],
            "messages": [
                {
                    "role": "user",
                    "content": [
                        {"text": "Look:"},
                        {"image": {"format": "png", "source": {"bytes": PNG}}},
                        {"document": {"format": "txt", "name": "Notes", "source": {"text": "x"}}},
                    ],
                },
                {
                    "role": "assistant",
                    "content": [
                        {"reasoningContent": thinking},
                        {"reasoningContent": {"redactedContent": SIGNATURE}},
                        {"toolUse": call},
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"toolResult": result},
                        {"text": "And now?"},
                        {"cachePoint": {"type": "default", "ttl": "1h"}},
                    ],
                },
            ],
            "toolConfig": {"tools": [{"toolSpec": spec}], "toolChoice": {"auto": {}}},
            "inferenceConfig": {"maxTokens": 100, "temperature": 0.5, "stopSequences": ["END"]},
            "additionalModelRequestFields": {
                "top_k": 5,
                "thinking": {"type": "enabled", "budget_tokens": 1024},
            },
            "requestMetadata": {"app": "test"},
        },
    ]


@dataclass(frozen=True)
class Recorded:
    """A seed in a recorded file (``key`` of the JSON object, or all of it), read when a
    test uses it: absent, ``FileNotFoundError``, and the test skips naming the file."""

    path: Path
    key: str | None = None

    @property
    def name(self) -> str:
        """The seed's name in test ids: ``recorded/<file stem>``."""
        return f"recorded/{self.path.stem}"

    def load(self) -> Any:
        """The seed (a fresh copy)."""
        data = recorded.load(self.path)
        return data if self.key is None else data[self.key]


RECORDED_REQUESTS: dict[str, list[Recorded]] = {
    "bedrock_converse": [
        Recorded(PAYLOADS / "bedrock_converse" / f"{name}.json", "request")
        for name in (
            "request_thinking_redacted",
            "request_code_execution",
            "request_structured_output",
            "request_cache_write_read",
            "request_guardrail",
        )
    ],
}
"""Recorded requests among a format's seeds (tests/payloads, provenance in each
directory's README)."""


def _json_data(value: Any) -> Any:
    """Encoder output as JSON data: ``bytes`` (Converse blobs) as their base64 text."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode("ascii")
    if isinstance(value, dict):
        return {key: _json_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_json_data(item) for item in value]
    return value


def _otel_records() -> list[dict[str, Any]]:
    """The recorded GenAI attributes (tests/payloads/otel_genai, provenance there)."""
    names = ("semconv_examples.json", "semconv_registry.json", "pydantic_ai.json")
    paths = recorded.present(PAYLOADS / "otel_genai" / name for name in names)
    return [record for path in paths for record in _load(path)]


def _otel_genai_requests(weather: dict[str, Any]) -> list[Any]:
    """The conventions' examples (request side: their output messages predate the
    required ``finish_reason``), and a record with every part type."""
    out: list[Any] = [
        {key: value for key, value in record["attributes"].items() if "output" not in key}
        for record in _load(PAYLOADS / "otel_genai" / "semconv_examples.json")
        if "gen_ai.input.messages" in record["attributes"]
    ]
    call = {"type": "tool_call", "id": "call_1", "name": "get_weather"}
    out.append(
        {
            "gen_ai.operation.name": "chat",
            "gen_ai.request.model": "gpt-test",
            "gen_ai.request.temperature": 0.2,
            "gen_ai.system_instructions": [{"type": "text", "content": "Be brief."}],
            "gen_ai.input.messages": [
                {
                    "role": "user",
                    "parts": [
                        {"type": "text", "content": "Look:"},
                        {
                            "type": "blob",
                            "modality": "image",
                            "mime_type": "image/png",
                            "content": PNG,
                        },
                        {"type": "uri", "modality": "video", "uri": "gs://bucket/a.mp4"},
                        {"type": "file", "modality": "document", "file_id": "file_1"},
                    ],
                },
                {
                    "role": "assistant",
                    "parts": [
                        {"type": "reasoning", "content": "A tool."},
                        {
                            "type": "server_tool_call",
                            "id": "srv_1",
                            "name": "web_search",
                            "server_tool_call": {"type": "web_search", "query": "weather"},
                        },
                        {
                            "type": "server_tool_call_response",
                            "id": "srv_1",
                            "server_tool_call_response": {"type": "web_search", "output": []},
                        },
                        {"type": "compaction", "id": "cmp_1", "content": "Earlier: greetings."},
                        {"type": "x_custom", "value": 1},
                        {**call, "arguments": {"city": "Oslo"}},
                    ],
                },
                {
                    "role": "tool",
                    "parts": [{"type": "tool_call_response", "id": "call_1", "response": "-3C"}],
                },
            ],
            "gen_ai.tool.definitions": [
                {"type": "function", "name": "get_weather", "parameters": weather},
                {"type": "web_search", "name": "web_search"},
            ],
        }
    )
    return out


def request_seeds(provider: str) -> list[Any]:
    """Valid request payloads of ``provider``: hand-written, recorded (those present),
    and every neutral conversation fixture encoded (as the codec tests do,
    ``unsupported="placeholder"``)."""
    found = present(RECORDED_REQUESTS.get(provider, []))
    return _request_seeds(provider, [seed.load() for seed in found])


def request_seed_cases(provider: str) -> list[tuple[str, Any]]:
    """``(name, seed)`` for every request seed of ``provider``, to parametrize with:
    ``seed/<n>`` for the hand-written and encoded ones, and a :class:`Recorded` (named
    ``recorded/<file stem>``) for each recorded one, present or not."""
    cases: list[tuple[str, Any]] = [
        (f"seed/{number}", seed) for number, seed in enumerate(_request_seeds(provider, []))
    ]
    return cases + [(seed.name, seed) for seed in RECORDED_REQUESTS.get(provider, [])]


def decoded_request_seeds(provider: str) -> list[tuple[str, Any]]:
    """``(name, conversation)`` of :func:`request_seed_cases`, decoded by the format's
    codec (a seed it refuses is left out); a :class:`Recorded` seed stays as it is, for
    :func:`conversation_of` to read and decode when the test runs."""
    codec = get_codec(provider)
    out: list[tuple[str, Any]] = []
    for name, seed in request_seed_cases(provider):
        if isinstance(seed, Recorded):
            out.append((name, seed))
            continue
        try:
            out.append((name, codec.decode_conversation(seed)))
        except ChatSchemaError:
            continue
    return out


def conversation_of(value: Any) -> Any:
    """``value``, or the conversation a :class:`Recorded` request holds (decoded by the
    codec of its payload directory's format)."""
    if isinstance(value, Recorded):
        return get_codec(value.path.parent.name).decode_conversation(value.load())
    return value


def nonempty(pool: list[Any], provider: str) -> list[Any]:
    """``pool``, a list of ``provider``'s seeds; when it is empty for want of recorded
    files (``tests/payloads/<provider>``), ``FileNotFoundError`` naming the first one
    absent, so that the test using the pool skips (tests/recordings/plugin.py)."""
    if not pool:
        for path in recorded.listing(PAYLOADS / provider, "*"):
            if recorded.is_recorded(path) and not path.exists():
                raise FileNotFoundError(2, "recorded seed file absent", str(path))
    return pool


def present(seeds: Sequence[Recorded]) -> list[Recorded]:
    """The recorded seeds whose file is present (the others are counted for the run's
    closing line)."""
    paths = set(recorded.present(seed.path for seed in seeds))
    return [seed for seed in seeds if seed.path in paths]


def _request_seeds(provider: str, recorded_seeds: list[Any]) -> list[Any]:
    """The hand-written requests, then ``recorded_seeds``, then the fixtures encoded;
    each distinct value once."""
    codec = get_codec(provider)
    seeds = [*_handwritten_requests()[provider], *recorded_seeds]
    for conversation in CONVERSATIONS:
        try:
            encoded = codec.encode(conversation, check=False, unsupported="placeholder")
            seeds.append(_json_data(encoded))
        except ChatSchemaError:
            continue
    unique: dict[str, Any] = {}
    for seed in seeds:
        unique.setdefault(json.dumps(seed, sort_keys=True), seed)
    return list(unique.values())


def _openai_chat_responses() -> list[Any]:
    usage = {
        "prompt_tokens": 20,
        "completion_tokens": 10,
        "total_tokens": 30,
        "prompt_tokens_details": {"cached_tokens": 4, "audio_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 2, "audio_tokens": 0},
    }
    text = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1757993400,
        "model": "gpt-4.1",
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "logprobs": None,
                "message": {
                    "role": "assistant",
                    "content": "Hello!",
                    "refusal": None,
                    "annotations": [
                        {
                            "type": "url_citation",
                            "url_citation": {
                                "start_index": 0,
                                "end_index": 5,
                                "title": "t",
                                "url": "https://example.com",
                            },
                        }
                    ],
                },
            }
        ],
        "usage": usage,
        "system_fingerprint": "fp_1",
    }
    tools = copy.deepcopy(text)
    tools["choices"][0]["finish_reason"] = "tool_calls"
    tools["choices"][0]["message"] = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Oslo"}'},
            },
            {"id": "call_2", "type": "function", "function": {"name": "f", "arguments": "{oops"}},
        ],
    }
    streams = recorded.present(recorded.listing(PAYLOADS / "openai_chat", "stream_*.json"))
    found = [_load(path) for path in streams]
    return [text, tools, *(data["response"] for data in found if "response" in data)]


OPENAI_RESPONSE = {
    "id": "resp_1",
    "object": "response",
    "created_at": 1757993400,
    "status": "completed",
    "model": "gpt-5",
    "output": [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "Look it up."}],
            "encrypted_content": ENCRYPTED,
        },
        {
            "type": "message",
            "id": "msg_1",
            "role": "assistant",
            "status": "completed",
            "content": [
                {
                    "type": "output_text",
                    "text": "Checking the weather.",
                    "annotations": [
                        {
                            "type": "url_citation",
                            "start_index": 0,
                            "end_index": 8,
                            "title": "Weather",
                            "url": "https://example.com/w",
                        }
                    ],
                }
            ],
        },
        {
            "type": "function_call",
            "id": "fc_1",
            "call_id": "call_1",
            "name": "get_weather",
            "arguments": '{"city":"Oslo"}',
            "status": "completed",
        },
    ],
    "usage": {
        "input_tokens": 30,
        "input_tokens_details": {"cached_tokens": 10},
        "output_tokens": 20,
        "output_tokens_details": {"reasoning_tokens": 8},
        "total_tokens": 50,
    },
    "parallel_tool_calls": True,
    "tool_choice": "auto",
    "tools": [],
}


def openai_responses_stream() -> list[dict[str, Any]]:
    """The events ``client.responses.create(stream=True)`` sends for OPENAI_RESPONSE."""
    response = OPENAI_RESPONSE
    started = {**response, "status": "in_progress", "output": [], "usage": None}
    rs, msg, fc = (copy.deepcopy(item) for item in response["output"])
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": started},
        {"type": "response.in_progress", "response": started},
        {
            "type": "response.output_item.added",
            "output_index": 0,
            "item": {"type": "reasoning", "id": "rs_1", "summary": []},
        },
        {
            "type": "response.reasoning_summary_part.added",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": ""},
        },
        {
            "type": "response.reasoning_summary_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "delta": "Look it up.",
        },
        {
            "type": "response.reasoning_summary_part.done",
            "item_id": "rs_1",
            "output_index": 0,
            "summary_index": 0,
            "part": {"type": "summary_text", "text": "Look it up."},
        },
        {"type": "response.output_item.done", "output_index": 0, "item": rs},
        {
            "type": "response.output_item.added",
            "output_index": 1,
            "item": {
                "type": "message",
                "id": "msg_1",
                "role": "assistant",
                "status": "in_progress",
                "content": [],
            },
        },
        {
            "type": "response.content_part.added",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "part": {"type": "output_text", "text": "", "annotations": []},
        },
    ]
    for piece in ("Checking ", "the ", "weather."):
        events.append(
            {
                "type": "response.output_text.delta",
                "item_id": "msg_1",
                "output_index": 1,
                "content_index": 0,
                "delta": piece,
            }
        )
    part = msg["content"][0]
    events += [
        {
            "type": "response.output_text.annotation.added",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "annotation_index": 0,
            "annotation": part["annotations"][0],
        },
        {
            "type": "response.output_text.done",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "text": part["text"],
        },
        {
            "type": "response.content_part.done",
            "item_id": "msg_1",
            "output_index": 1,
            "content_index": 0,
            "part": part,
        },
        {"type": "response.output_item.done", "output_index": 1, "item": msg},
        {
            "type": "response.output_item.added",
            "output_index": 2,
            "item": {**fc, "arguments": "", "status": "in_progress"},
        },
    ]
    for piece in ('{"ci', 'ty":"Os', 'lo"}'):
        events.append(
            {
                "type": "response.function_call_arguments.delta",
                "item_id": "fc_1",
                "output_index": 2,
                "delta": piece,
            }
        )
    events += [
        {
            "type": "response.function_call_arguments.done",
            "item_id": "fc_1",
            "output_index": 2,
            "arguments": fc["arguments"],
        },
        {"type": "response.output_item.done", "output_index": 2, "item": fc},
        {"type": "response.completed", "response": copy.deepcopy(response)},
    ]
    for number, event in enumerate(events):
        event["sequence_number"] = number
    return events


def response_seeds(provider: str) -> list[Any]:
    """Valid responses (``decode_response`` input) of ``provider``."""
    if provider == "openai_chat":
        return _openai_chat_responses()
    if provider == "mistral":
        return mistral_responses()
    if provider == "gemini_interactions":
        return interactions_responses()
    if provider == "openai_responses":
        web = copy.deepcopy(OPENAI_RESPONSE)
        web["output"].insert(
            0,
            {
                "type": "web_search_call",
                "id": "ws_1",
                "status": "completed",
                "action": {"type": "search", "query": "weather"},
            },
        )
        refusal = copy.deepcopy(OPENAI_RESPONSE)
        refusal["output"] = [
            {
                "type": "message",
                "id": "msg_r",
                "role": "assistant",
                "status": "completed",
                "content": [{"type": "refusal", "refusal": "No."}],
            }
        ]
        return [copy.deepcopy(OPENAI_RESPONSE), web, refusal]
    if provider == "open_responses":  # the Responses wire object, and what it adds
        added = copy.deepcopy(OPENAI_RESPONSE)
        added["output"][0]["content"] = [{"type": "reasoning_text", "text": "Think."}]
        added["output"][1]["phase"] = "final_answer"
        added["output"].append({"type": "compaction", "id": "cmp_1", "encrypted_content": "e1"})
        answers = recorded.listing(PAYLOADS / provider, "response_*.json")  # LM Studio, OpenAI
        return [*response_seeds("openai_responses"), added, *map(_load, recorded.present(answers))]
    if provider == "anthropic":
        streams = recorded.listing(PAYLOADS / "anthropic", "stream_*")
        return [_load(path)["response"] for path in recorded.present(streams)]
    if provider == "bedrock_converse":  # recorded responses, and what recorded streams make
        folder = PAYLOADS / "bedrock_converse"
        listed = [*recorded.listing(folder, "response_*.json"), *recorded.listing(folder)]
        paths = [path for path in listed if path.name.startswith(("response_", "stream_"))]
        return [_load(path)["response"] for path in recorded.present(dict.fromkeys(paths))]
    if provider == "otel_genai":  # output messages, and whole span attributes holding them
        records = [
            r["attributes"] for r in _otel_records() if "gen_ai.output.messages" in r["attributes"]
        ]
        return [records[0], *(record["gen_ai.output.messages"] for record in records)]
    responses = recorded.listing(PAYLOADS / "gemini", "response_*.json")
    return [_load(path) for path in recorded.present(responses)]


def stream_seeds(provider: str) -> list[tuple[list[Any], Any]]:
    """``(events, final response or None)`` of recorded and hand-written streams."""
    if provider == "openai_responses":
        return [(openai_responses_stream(), copy.deepcopy(OPENAI_RESPONSE))]
    return [stream_seed(path) for path in recorded.present(stream_files(provider))]


def stream_seed_count(provider: str) -> int:
    """How many stream seeds ``provider`` has, recorded files present or not (to
    parametrize with; :func:`stream_seed_at` reads one)."""
    return 1 if provider == "openai_responses" else len(stream_files(provider))


def stream_seed_at(provider: str, number: int) -> tuple[list[Any], Any]:
    """The ``number``-th of the stream seeds :func:`stream_seed_count` counts (an
    absent recorded file: ``FileNotFoundError``, the test skips)."""
    if provider == "openai_responses":
        return stream_seeds(provider)[number]
    return stream_seed(stream_files(provider)[number])


def stream_files(provider: str) -> list[Path]:
    """The recorded and committed stream files of ``provider`` (``stream_*.json`` in its
    payloads), present or not; :func:`stream_seeds` reads those present."""
    if provider == "openai_responses":
        return []
    return recorded.listing(PAYLOADS / provider, "stream_*.json")


def stream_seed(path: Path) -> tuple[list[Any], Any]:
    """``(events, final response or None)`` of one stream file (absent: the test that
    reads it skips)."""
    data = _load(path)
    return (data, None) if isinstance(data, list) else (data["events"], data.get("response"))


def has_stream(provider: str) -> bool:
    """Whether the codec has ``decode_stream`` yet (others are adding it), and the format
    has stream events (OpenTelemetry GenAI records complete messages only)."""
    return provider not in NO_STREAM_EVENTS and callable(
        getattr(get_codec(provider), "decode_stream", None)
    )


NO_STREAM_EVENTS = frozenset({"otel_genai"})
"""Formats without stream events: their ``decode_stream`` refuses (docs/providers/*.md)."""


# ---------------------------------------------------------------------- mutations

ODD_VALUES: list[Any] = [
    None,
    0,
    -1,
    1.5,
    2**70,
    True,
    False,
    "",
    "x",
    " ",
    "\ud800",  # a lone surrogate: a valid Python string that is not UTF-8
    "\x00",
    [],
    {},
    [None],
    {"type": None},
    {"type": "x"},
    {"role": "x"},
    float("nan"),
    float("inf"),
]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path into a JSON value (the root too), depth first."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def get(value: Any, path: Sequence[Any]) -> Any:
    """The value at ``path``."""
    for part in path:
        value = value[part]
    return value


def tags(documents: Sequence[Any]) -> list[str]:
    """Every ``type`` and ``role`` value in some documents (for swapping tags)."""
    found: set[str] = set()
    for document in documents:  # a stream's events count as one document
        for path in paths(document):
            node = get(document, path)
            if isinstance(node, dict):
                for key in ("type", "role"):
                    if isinstance(node.get(key), str):
                        found.add(node[key])
    return sorted(found)


_TAGS: dict[int, tuple[Any, list[str]]] = {}


def _tags_of(documents: Sequence[Any]) -> list[str]:
    """:func:`tags`, computed once per set of seeds (the same sequence object)."""
    cached = _TAGS.get(id(documents))
    if cached is None or cached[0] is not documents:
        cached = _TAGS[id(documents)] = (documents, tags(documents))
    return cached[1]


def nested(levels: int, leaf: Any, kind: str) -> Any:
    """``leaf`` wrapped in ``levels`` lists or objects."""
    for _ in range(levels):
        leaf = [leaf] if kind == "list" else {"a": leaf}
    return leaf


OPERATIONS = (
    "drop",
    "retype",
    "retag",
    "duplicate",
    "reorder",
    "truncate",
    "nest",
    "enlarge",
    "unknown_key",
)


NEST_LEVELS = (3, 50, 199, 201, 260)
"""How deep the ``nest`` mutation wraps a value: around the limit and past it. (Far past
it - thousands of levels - three codecs' decoders still hit ``RecursionError``: see the
strict xfails in ``test_limits.py``.)"""

ENLARGE_SIZES = (1_000, 50_000, 300_000) if not FUZZ_EXAMPLES else (1_000, 100_000, 3_000_000)
"""How many characters (or list items / 100) the ``enlarge`` mutation makes a value."""


@st.composite
def mutation(
    draw: st.DrawFn,
    document: Any,
    tag_values: Sequence[str],
    nest_levels: Sequence[int] = NEST_LEVELS,
    log: list[tuple[str, tuple[Any, ...]]] | None = None,
    big: bool = True,
) -> Any:
    """One mutation of (a copy of) ``document`` (appended to ``log`` as ``(operation, path)``).

    A ``nest`` mutation must be the last one: the nested document is too deep to copy
    or walk with recursive code (``is_deep`` tells).
    """
    document = copy.deepcopy(document)
    where = list(paths(document))
    path = where[draw(st.integers(0, len(where) - 1))]
    operation = draw(
        st.sampled_from(
            [op for op in OPERATIONS if (op != "nest" or nest_levels) and (op != "enlarge" or big)]
        )
    )
    if log is not None:
        log.append((operation, path))
    node = get(document, path)
    parent = get(document, path[:-1]) if path else None

    def replace(value: Any) -> Any:
        if not path:
            return value
        parent[path[-1]] = value
        return document

    if operation == "drop":
        if isinstance(parent, dict):
            del parent[path[-1]]
            return document
        if isinstance(parent, list):
            del parent[path[-1]]
            return document
        return replace(None)
    if operation == "retype":
        return replace(copy.deepcopy(draw(st.sampled_from(ODD_VALUES))))
    if operation == "retag":
        if isinstance(node, dict) and tag_values:
            key = "role" if "role" in node and "type" not in node else "type"
            node[key] = draw(st.sampled_from(list(tag_values)))
            return document
        return replace(draw(st.sampled_from(list(tag_values) or ["x"])))
    if operation == "duplicate":
        if isinstance(node, list) and node:
            position = draw(st.integers(0, len(node) - 1))
            node.insert(position, copy.deepcopy(node[position]))
            return document
        if isinstance(parent, list):
            parent.insert(path[-1], copy.deepcopy(node))
            return document
        if isinstance(node, dict) and node:
            key = draw(st.sampled_from(sorted(node, key=str)))
            node[f"{key}_"] = copy.deepcopy(node[key])
            return document
        return replace([node, node])
    if operation == "reorder":
        if isinstance(node, (list, dict)) and len(node) > 1:
            items = list(node.items()) if isinstance(node, dict) else list(node)
            if len(items) <= 12:
                items = draw(st.permutations(items))
            else:  # large (enlarged) containers: a rotation
                shift = draw(st.integers(1, len(items) - 1))
                items = items[shift:] + items[:shift]
            if isinstance(node, dict):
                node.clear()
                node.update(items)
            else:
                node[:] = items
        return document
    if operation == "truncate":
        if isinstance(node, (str, list)) and node:
            return replace(node[: draw(st.integers(0, len(node) - 1))])
        if isinstance(node, dict) and node:
            keep = draw(st.integers(0, len(node) - 1))
            return replace(dict(list(node.items())[:keep]))
        return document
    if operation == "nest":
        levels = draw(st.sampled_from(list(nest_levels)))
        return Deep(replace(nested(levels, node, draw(st.sampled_from(["list", "dict"])))))
    if operation == "enlarge":
        size = draw(st.sampled_from(ENLARGE_SIZES))
        if isinstance(node, str):
            return replace((node or "x") * (size // max(len(node), 1) + 1))
        if isinstance(node, list):
            return replace(node * min(size // 100, 2_000) if node else [None] * 2_000)
        return replace("y" * size)
    # unknown_key
    if isinstance(node, dict):
        node[draw(st.sampled_from(["zzz", "extras", "index", "id", "__proto__"]))] = copy.deepcopy(
            draw(st.sampled_from(ODD_VALUES))
        )
        return document
    return replace({"unexpected": node})


class Deep:
    """A mutated document that was nested deeply (the last mutation it gets)."""

    __slots__ = ("document",)

    def __init__(self, document: Any) -> None:
        self.document = document

    def __repr__(self) -> str:  # hypothesis prints failing examples
        return "<a deeply nested document>"


@st.composite
def mutated(
    draw: st.DrawFn,
    seeds: Sequence[Any],
    max_mutations: int = 3,
    nest_levels: Sequence[int] = NEST_LEVELS,
    big: bool = True,
) -> Any:
    """A seed with one to ``max_mutations`` mutations (``nest`` and ``enlarge`` end them).

    Returns the document, or a :class:`Deep` holding it when it was nested deeply.
    """
    document = draw(st.sampled_from(list(seeds)))
    tag_values = _tags_of(seeds)
    log: list[tuple[str, tuple[Any, ...]]] = []
    for _ in range(draw(st.integers(1, max_mutations))):
        document = draw(mutation(document, tag_values, nest_levels, log, big))
        if log[-1][0] in ("nest", "enlarge"):  # the last: too big to copy and walk again
            break
    return document


def unwrap(value: Any) -> Any:
    """The document of a :func:`mutated` draw."""
    return value.document if isinstance(value, Deep) else value


@st.composite
def mutated_stream(draw: st.DrawFn, streams: Sequence[Sequence[Any]]) -> Any:
    """An event sequence with events dropped, duplicated, reordered, cut or mutated.

    Returns the events, or a :class:`Deep` holding them (see :func:`mutated`).
    """
    events = [copy.deepcopy(event) for event in draw(st.sampled_from(list(streams)))]
    tag_values = _tags_of(streams)
    for _ in range(draw(st.integers(1, 3))):
        operation = draw(st.sampled_from(["drop", "duplicate", "reorder", "cut", "event"]))
        if not events:
            break
        position = draw(st.integers(0, len(events) - 1))
        if operation == "drop":
            del events[position]
        elif operation == "duplicate":
            events.insert(position, copy.deepcopy(events[position]))
        elif operation == "reorder":
            other = draw(st.integers(0, len(events) - 1))
            events[position], events[other] = events[other], events[position]
        elif operation == "cut":
            events = events[:position]
        else:
            log: list[tuple[str, tuple[Any, ...]]] = []
            changed = draw(mutation(events[position], tag_values, log=log))
            events[position] = unwrap(changed)
            if isinstance(changed, Deep):
                return Deep(events)
            if log[-1][0] == "enlarge":
                return events
    return events


# ------------------------------------------------------------ foreign extras

FOREIGN = {"anthropic": {"x": 1}}
"""Another format's key: a foreign-extras problem wherever it sits."""
FOREIGN_AT: list[tuple[str, list[Any]]] = [
    (
        "/messages/1/content/0/extras/anthropic/x",
        [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": [{"type": "text", "text": "a", "extras": FOREIGN}]},
            {"role": "user", "content": "more"},
        ],
    ),
    (
        "/messages/2/content/0/extras/anthropic/x",
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [{"type": "text", "text": "r", "extras": FOREIGN}],
            },
        ],
    ),
    (
        "/messages/0/content/0/extras/anthropic/x",
        [
            {"role": "system", "content": [{"type": "text", "text": "s", "extras": FOREIGN}]},
            {"role": "user", "content": "q"},
        ],
    ),
    (
        "/messages/0/extras/anthropic/x",
        [{"role": "user", "content": "q", "extras": FOREIGN}],
    ),
    (
        "/messages/1/tool_calls/0/extras/anthropic/x",
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": "a",
                "tool_calls": [{"id": "c1", "name": "f", "arguments": {}, "extras": FOREIGN}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r"},
        ],
    ),
    (
        "/messages/2/extras/anthropic/x",
        [
            {"role": "user", "content": "q"},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"id": "c1", "name": "f", "arguments": {}}],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "r", "extras": FOREIGN},
        ],
    ),
    (
        "/messages/0/content/0/extras/anthropic/x",
        [
            {"role": "user", "content": [{"type": "text", "text": "q", "extras": FOREIGN}]},
        ],
    ),
]
"""Histories with one key of another format's extras, and where it is: on a block of a
leading system message, a user message, a call, a tool result, a user block (the fast
walks must tell the foreign-extras check about each)."""
