"""The LangChain side of the benchmark (langchain-core, in the main venv).

Runs in a subprocess of its own, started by ``bench/run.py``, on the input files
the orchestrator wrote; writes its timings as JSON. Never imports chatschema.

Each workload uses LangChain's own idiomatic API on its own format of the history:

- parse: ``messages_from_dict(orjson.loads(bytes))`` from ``messages_to_dict`` form;
- encode: ``convert_to_openai_messages(messages)`` (core has no Anthropic
  converter: that lives in langchain-anthropic, so the Anthropic row compares with
  this same call and says so);
- streaming: ``total = total + chunk`` over ``AIMessageChunk``s, and the n-ary
  ``chunks[0] + chunks[1:]`` that ``BaseChatModel`` uses internally (for reference);
- trim: ``trim_messages(..., token_counter=count_tokens_approximately)``;
- the plain history (``plain_history.py``, in ``messages_to_dict`` form): parse,
  ``convert_to_openai_messages``, trim, and the agent loop (``agent_loop.py``: the
  history re-converted at every request point as it grows);
- chunk building as users write it: ``acc = acc + AIMessageChunk(content=t)``, the
  chunk built inside the loop.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import orjson
import workloads as w
from agent_loop import agent_loop
from langchain_core.messages import (
    AIMessageChunk,
    BaseMessage,
    convert_to_openai_messages,
    messages_from_dict,
    messages_to_dict,
    trim_messages,
)
from langchain_core.messages.tool import tool_call_chunk
from langchain_core.messages.utils import count_tokens_approximately


def parse(data: bytes) -> list[BaseMessage]:
    """The history, from JSON bytes to LangChain message objects."""
    return messages_from_dict(orjson.loads(data))


def add_one_at_a_time(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    """``total = total + chunk``, as user code writes it."""
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    return total


def add_batch(chunks: list[AIMessageChunk]) -> AIMessageChunk:
    """The n-ary merge ``BaseChatModel`` uses internally."""
    return chunks[0] + chunks[1:]


def build_and_add(deltas: list[str]) -> AIMessageChunk:
    """``acc = acc + AIMessageChunk(content=t)``, each chunk built inside the loop."""
    acc = AIMessageChunk(content=deltas[0])
    for text in deltas[1:]:
        acc = acc + AIMessageChunk(content=text)
    return acc


def trim(messages: list[BaseMessage]) -> list[BaseMessage]:
    """The last 8,000 approximate tokens."""
    return trim_messages(
        messages,
        max_tokens=w.TRIM_MAX_TOKENS,
        token_counter=count_tokens_approximately,
        strategy="last",
    )


def text_chunks(deltas: list[str]) -> list[AIMessageChunk]:
    """Streamed text chunks as a chat model's ``stream`` yields them."""
    run_id = "lc_run--0f3c-stream"
    chunks = [AIMessageChunk(content=delta, id=run_id) for delta in deltas]
    chunks[-1] = AIMessageChunk(
        content=deltas[-1],
        id=run_id,
        response_metadata={"finish_reason": "stop"},
        chunk_position="last",
    )
    return chunks


def tool_chunks(fragments: list[str]) -> list[AIMessageChunk]:
    """One tool call whose arguments arrive in ``fragments``."""
    chunks = []
    for position, fragment in enumerate(fragments):
        first = position == 0
        piece = tool_call_chunk(
            name=w.TOOL_NAME if first else None,
            args=fragment,
            id=w.TOOL_CALL_ID if first else None,
            index=0,
        )
        chunks.append(AIMessageChunk(content="", tool_call_chunks=[piece]))
    return chunks


def main() -> None:
    """Run every workload and write the report."""
    arguments = w.side_arguments(__doc__ or "")
    options = w.options_from(arguments)
    inputs: Path = arguments.inputs
    _, sizes = w.read_inputs(inputs)
    report = w.SideReport(
        side="langchain",
        python=sys.version.split()[0],
        packages={
            name: version(name)
            for name in ("langchain-core", "pydantic", "pydantic-core", "orjson")
        },
        gc=w.gc_state(options),
    )
    count = sizes.messages
    data = (inputs / "history.langchain.json").read_bytes()
    state: dict[str, Any] = {}

    def parse_step() -> None:
        w.measure_with_and_without_gc(
            report,
            w.PARSE,
            lambda: parse(data),
            options,
            count=count,
            unit="message",
            note="orjson + from_dict",
        )
        messages = parse(data)
        state["messages"] = messages
        report.check("parse round trip", messages_to_dict(messages) == orjson.loads(data))

    def encode_step() -> None:
        messages = state["messages"]
        w.measure_with_and_without_gc(
            report,
            w.ENCODE_OPENAI,
            lambda: convert_to_openai_messages(messages),
            options,
            count=count,
            unit="message",
            note="convert_to_openai_messages",
        )
        out = convert_to_openai_messages(messages)
        report.check("encode_openai count", len(out) == count, f"{len(out)} != {count}")

    def stream_step() -> None:
        deltas = orjson.loads((inputs / "stream_text.json").read_bytes())
        chunks = text_chunks(deltas)
        expected = "".join(deltas)
        report.add(
            w.STREAM_ADD,
            w.measure(lambda: add_one_at_a_time(chunks), options, count=len(chunks), unit="chunk"),
        )
        report.check("stream +", add_one_at_a_time(chunks).content == expected)
        report.add(
            w.STREAM_BATCH,
            w.measure(lambda: add_batch(chunks), options, count=len(chunks), unit="chunk"),
        )
        report.check("stream batch", add_batch(chunks).content == expected)

    def tool_step() -> None:
        jobs = []
        for size in sizes.tool_fragments:
            fragments = orjson.loads((inputs / f"tool_args_{size}.json").read_bytes())
            chunks = tool_chunks(fragments)
            if size == sizes.tool_fragments[0]:  # a check at 8k would cost another 15 s
                total = add_one_at_a_time(chunks)
                expected = orjson.loads("".join(fragments))
                report.check(f"tool args + {size}", total.tool_calls[0]["args"] == expected)
            jobs += [
                w.Job(w.tool_add(size), lambda c=chunks: add_one_at_a_time(c), size, "fragment"),
                w.Job(w.tool_batch(size), lambda c=chunks: add_batch(c), size, "fragment"),
            ]
        for workload, timing in w.measure_round_robin(jobs, options).items():
            report.add(workload, timing)

    def trim_step() -> None:
        messages = state["messages"]
        kept = trim(messages)
        timing = w.measure(
            lambda: trim(messages),
            options,
            count=count,
            unit="message",
            note=f"keeps {len(kept)}",
        )
        report.add(w.TRIM, timing)

    plain_count = sizes.plain_messages
    plain_data = (inputs / "plain.langchain.json").read_bytes()

    def plain_step() -> None:
        timing = w.measure(
            lambda: parse(plain_data),
            options,
            count=plain_count,
            unit="message",
            note="orjson + from_dict",
        )
        report.add(w.PLAIN_PARSE, timing)
        messages = parse(plain_data)
        state["plain"] = messages
        same = messages_to_dict(messages) == orjson.loads(plain_data)
        report.check("plain parse round trip", same)

    def plain_encode_step() -> None:
        messages = state["plain"]
        timing = w.measure(
            lambda: convert_to_openai_messages(messages),
            options,
            count=plain_count,
            unit="message",
            note="convert_to_openai_messages",
        )
        report.add(w.plain_encode("openai_chat"), timing)
        out = convert_to_openai_messages(messages)
        report.check("plain encode count", len(out) == plain_count, f"{len(out)} != {plain_count}")

    def plain_trim_step() -> None:
        messages = state["plain"]
        timing = w.measure(
            lambda: trim(messages),
            options,
            count=plain_count,
            unit="message",
            note=f"keeps {len(trim(messages))}",
        )
        report.add(w.PLAIN_TRIM, timing)

    def agent_loop_step() -> None:
        points = orjson.loads((inputs / "plain_loop_points.json").read_bytes())
        messages = state["plain"][: len(points)]
        timing = w.measure(
            lambda: agent_loop(messages, points, convert_to_openai_messages),
            options,
            count=agent_loop(messages, points, len),
            unit="message encoded",
            note=f"{sum(points):,} requests, convert_to_openai_messages",
        )
        report.add(w.AGENT_LOOP, timing)

    def chunk_build_step() -> None:
        deltas = orjson.loads((inputs / "stream_text.json").read_bytes())
        timing = w.measure(
            lambda: build_and_add(deltas).content,
            options,
            count=len(deltas),
            unit="chunk",
            note="acc = acc + AIMessageChunk(content=t)",
        )
        report.add(w.CHUNK_BUILD, timing)
        report.check("chunk build +", build_and_add(deltas).content == "".join(deltas))

    w.run_guarded(report, w.PARSE, parse_step)
    if "messages" in state:
        w.run_guarded(report, w.ENCODE_OPENAI, encode_step)
        w.run_guarded(report, w.TRIM, trim_step)
    state.clear()  # the plain history is timed on its own heap, as on every side
    w.run_guarded(report, w.PLAIN_PARSE, plain_step)
    if "plain" in state:
        w.run_guarded(report, w.plain_encode("openai_chat"), plain_encode_step)
        w.run_guarded(report, w.PLAIN_TRIM, plain_trim_step)
        w.run_guarded(report, w.AGENT_LOOP, agent_loop_step)
    state.clear()  # streams are timed on a small heap, as on every side
    w.run_guarded(report, w.STREAM_ADD, stream_step)
    w.run_guarded(report, w.CHUNK_BUILD, chunk_build_step)
    w.run_guarded(report, "tool_args", tool_step)
    report.write(arguments.out)


if __name__ == "__main__":
    main()
