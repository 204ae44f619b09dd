"""The OpenHands side of the benchmark (openhands-sdk, Python 3.12+, its own venv).

Runs in a subprocess of its own venv (``.venv-bench/openhands``, built by
``bench/run.py`` from ``bench/requirements-openhands.txt``) on the input files the
orchestrator wrote; writes its timings as JSON. Never imports chatschema.

What OpenHands' own code does with a history:

- parse: ``Message.model_validate(d)`` for each message dict of the persisted
  history (``orjson.loads`` first, the fastest decoder available, so the peer is not
  slowed down by ``json``);
- encode for OpenAI Chat Completions: ``to_chat_dict(...)`` for each message with
  the switches ``LLM.format_messages_for_llm`` passes for a vision + native
  function-calling model (no prompt cache); the deep copy and cache placement
  ``format_messages_for_llm`` also does are *not* timed, which favours OpenHands;
- encode for Anthropic: OpenHands has no Anthropic encoder of its own. What runs
  for a Claude model is ``to_chat_dict(cache_enabled=True, ...)`` for each message,
  then LiteLLM's ``AnthropicConfig.transform_request``; both are timed together
  (``to_chat_dict`` alone is reported too);
- the plain history (``plain_history.py``, in the same persisted form): parse, and
  ``to_chat_dict`` for OpenAI Chat, as above.
"""

from __future__ import annotations

import os
import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no price-list download
os.environ.setdefault("OPENHANDS_SUPPRESS_BANNER", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson
import workloads as w
from openhands.sdk.llm import Message

OPENAI_SWITCHES = {
    "cache_enabled": False,
    "vision_enabled": True,
    "function_calling_enabled": True,
    "force_string_serializer": False,
    "send_reasoning_content": False,
}
ANTHROPIC_SWITCHES = {**OPENAI_SWITCHES, "cache_enabled": True}


def parse(data: bytes) -> list[Message]:
    """The history, from JSON bytes to OpenHands messages, one ``model_validate`` each."""
    return [Message.model_validate(item) for item in orjson.loads(data)]


def chat_dicts(messages: list[Message], switches: dict[str, bool]) -> list[dict[str, Any]]:
    """Chat Completions messages, as ``LLM.format_messages_for_llm`` makes them."""
    return [message.to_chat_dict(**switches) for message in messages]


def anthropic_request(messages: list[Message], config: Any) -> dict[str, Any]:
    """The Anthropic request body: OpenHands' chat dicts through LiteLLM."""
    return dict(
        config.transform_request(
            model=w.MODEL,
            messages=chat_dicts(messages, ANTHROPIC_SWITCHES),
            optional_params={},
            litellm_params={},
            headers={},
        )
    )


def main() -> None:
    """Run every workload and write the report."""
    arguments = w.side_arguments(__doc__ or "")
    options = w.options_from(arguments)
    inputs: Path = arguments.inputs
    _, sizes = w.read_inputs(inputs)
    report = w.SideReport(
        side="openhands",
        python=sys.version.split()[0],
        packages={
            name: version(name)
            for name in ("openhands-sdk", "litellm", "pydantic", "pydantic-core", "orjson")
        },
        gc=w.gc_state(options),
    )
    count = sizes.messages
    data = (inputs / "history.openhands.json").read_bytes()
    state: dict[str, Any] = {}

    def parse_step() -> None:
        w.measure_with_and_without_gc(
            report,
            w.PARSE,
            lambda: parse(data),
            options,
            count=count,
            unit="message",
            note="orjson + Message.model_validate each",
        )
        messages = parse(data)
        state["messages"] = messages
        dumped = [message.model_dump(mode="json") for message in messages]
        report.check("parse round trip", dumped == orjson.loads(data))

    def encode_openai_step() -> None:
        messages = state["messages"]
        w.measure_with_and_without_gc(
            report,
            w.ENCODE_OPENAI,
            lambda: chat_dicts(messages, OPENAI_SWITCHES),
            options,
            count=count,
            unit="message",
            note="to_chat_dict each",
        )
        out = chat_dicts(messages, OPENAI_SWITCHES)
        report.check("encode_openai count", len(out) == count, f"{len(out)} != {count}")

    def encode_anthropic_step() -> None:
        import litellm

        messages = state["messages"]
        config = litellm.AnthropicConfig()
        w.measure_with_and_without_gc(
            report,
            w.ENCODE_ANTHROPIC,
            lambda: anthropic_request(messages, config),
            options,
            count=count,
            unit="message",
            note="to_chat_dict each + LiteLLM AnthropicConfig.transform_request",
        )
        timing = w.measure(
            lambda: chat_dicts(messages, ANTHROPIC_SWITCHES),
            options,
            count=count,
            unit="message",
            note="to_chat_dict each (cache on), without LiteLLM",
        )
        report.add(w.ENCODE_CHAT_DICTS, timing)
        body = anthropic_request(messages, config)
        report.check("encode_anthropic has messages", bool(body.get("messages")))
        state["anthropic_turns"] = len(body["messages"])

    plain_count = sizes.plain_messages
    plain_data = (inputs / "plain.openhands.json").read_bytes()

    def plain_step() -> None:
        timing = w.measure(
            lambda: parse(plain_data),
            options,
            count=plain_count,
            unit="message",
            note="orjson + Message.model_validate each",
        )
        report.add(w.PLAIN_PARSE, timing)
        messages = parse(plain_data)
        state["plain"] = messages
        dumped = [message.model_dump(mode="json") for message in messages]
        report.check("plain parse round trip", dumped == orjson.loads(plain_data))

    def plain_encode_step() -> None:
        messages = state["plain"]
        timing = w.measure(
            lambda: chat_dicts(messages, OPENAI_SWITCHES),
            options,
            count=plain_count,
            unit="message",
            note="to_chat_dict each",
        )
        report.add(w.plain_encode("openai_chat"), timing)
        out = chat_dicts(messages, OPENAI_SWITCHES)
        report.check("plain encode count", len(out) == plain_count, f"{len(out)} != {plain_count}")

    w.run_guarded(report, w.PARSE, parse_step)
    if "messages" in state:
        w.run_guarded(report, w.ENCODE_OPENAI, encode_openai_step)
        w.run_guarded(report, w.ENCODE_ANTHROPIC, encode_anthropic_step)
    state.clear()  # the plain history is timed on its own heap, as on every side
    w.run_guarded(report, w.PLAIN_PARSE, plain_step)
    if "plain" in state:
        w.run_guarded(report, w.plain_encode("openai_chat"), plain_encode_step)
    report.write(arguments.out)


if __name__ == "__main__":
    main()
