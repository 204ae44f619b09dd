"""The agent loop on the plain history, chatschema and LangChain side by side.

The workload (``make bench`` runs it through ``run.py`` and ``peer_langchain.py``;
``main()`` here measures it alone, with a cached-JSON floor beside it):

- **agent loop**: a history growing to 2,000 messages, re-encoded for OpenAI Chat
  after every appended message at which an agent calls the model (every message but
  an assistant message with tool calls: its results come next, and a request ending
  on an unanswered call is one the API refuses and chatschema's check raises on).
  chatschema: ``openai_chat.encode(history)``; LangChain:
  ``convert_to_openai_messages(history)``; the same requests on both sides.

The helpers (``langchain_dicts``, ``request_points``, ``agent_loop``) use the
standard library only, so ``peer_langchain.py`` can use them without importing
chatschema. ``main()`` measures both sides in one process, alternating, and prints
CPU-time minima (``time.process_time``), with the collector collected before every
timed call and left enabled, as ``workloads.measure`` does::

    .venv/bin/python bench/agent_loop.py            # loop 2,000, 5 rounds
    .venv/bin/python bench/agent_loop.py --quick    # small sizes, one round
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))


LOOP_MESSAGES = 2_000


def langchain_dicts(history: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The plain history as ``langchain_core.messages.messages_to_dict`` writes it.

    User images are LangChain's v1 ``image`` blocks (``url``); tool calls carry
    parsed ``args``.
    """

    def message(kind: str, content: Any, **more: Any) -> dict[str, Any]:
        data: dict[str, Any] = {
            "content": content,
            "additional_kwargs": {},
            "response_metadata": {},
            "type": kind,
            "name": None,
            "id": None,
        }
        data.update(more)
        return {"type": kind, "data": data}

    out: list[dict[str, Any]] = []
    kinds = {"system": "system", "user": "human"}
    for item in history:
        role, content = item["role"], item["content"]
        if not isinstance(content, str):
            content = [dict(block) for block in content]
        if role in kinds:
            out.append(message(kinds[role], content))
        elif role == "tool":
            out.append(
                message(
                    "tool",
                    content,
                    tool_call_id=item["tool_call_id"],
                    artifact=None,
                    status="success",
                )
            )
        else:
            calls = [
                {"name": c["name"], "args": c["arguments"], "id": c["id"], "type": "tool_call"}
                for c in item.get("tool_calls", [])
            ]
            out.append(
                message("ai", content, tool_calls=calls, invalid_tool_calls=[], usage_metadata=None)
            )
    return out


def request_points(history: Sequence[dict[str, Any]]) -> list[bool]:
    """For each message of the neutral history: whether the model is called after it.

    Every message but an assistant message with tool calls (its results come next).
    """
    return [not (item["role"] == "assistant" and item.get("tool_calls")) for item in history]


def agent_loop(
    messages: Sequence[Any], points: Sequence[bool], encode: Callable[[list[Any]], Any]
) -> int:
    """Append the messages one by one, encoding the whole history at each request point.

    Returns the number of messages encoded in all (the sum of the prefix lengths).
    """
    history: list[Any] = []
    encoded = 0
    for message, call in zip(messages, points, strict=True):
        history.append(message)
        if call:
            encode(history)
            encoded += len(history)
    return encoded


# --------------------------------------------------------------------- main


def _cpu(run: Callable[[], Any]) -> float:
    """One timed call in CPU seconds: collect first, collector enabled, result released."""
    gc.collect()
    start = time.process_time()
    result = run()
    elapsed = time.process_time() - start
    del result
    return elapsed


def _rounds(cases: dict[str, Callable[[], Any]], rounds: int) -> dict[str, list[float]]:
    """Each case once per round, in turns; the first round is a warm-up."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for number in range(rounds + 1):
        for name, run in cases.items():
            elapsed = _cpu(run)
            if number:
                times[name].append(elapsed)
    return times


def _show(title: str, times: dict[str, list[float]], per: int, unit: str) -> None:
    print(f"\n{title}")
    for name, values in times.items():
        best, median = min(values), statistics.median(values)
        print(
            f"  {name:<44} min {best * 1e3:10.2f} ms  median {median * 1e3:10.2f} ms"
            f"  {best / per * 1e9:8.0f} ns/{unit}"
        )


def main() -> None:
    """Measure the loop on both sides and the cached-JSON floor, and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="small sizes, one round")
    parser.add_argument("--rounds", type=int, default=5)
    arguments = parser.parse_args()
    loop_size = 200 if arguments.quick else LOOP_MESSAGES
    rounds = 1 if arguments.quick else arguments.rounds

    import orjson
    import plain_history
    from langchain_core.messages import convert_to_openai_messages, messages_from_dict

    import chatschema
    from chatschema.providers import openai_chat

    history = plain_history.build_plain_history(loop_size)
    loop = history[:loop_size]
    points = request_points(loop)
    ours = chatschema.parse_messages(orjson.dumps(loop))
    theirs = messages_from_dict(langchain_dicts(loop))
    # The fresh request a perfect cache would still have to hand back every time: the
    # JSON of the encoded messages so far, read into new dicts (C speed).
    pieces = [orjson.dumps(wire) for wire in openai_chat.encode(ours)["messages"]]

    def copy_floor(prefix: list[Any]) -> Any:
        return orjson.loads(b"[" + b",".join(pieces[: len(prefix)]) + b"]")

    cases = {
        "chatschema openai_chat.encode": lambda: agent_loop(ours, points, openai_chat.encode),
        "LangChain convert_to_openai_messages": lambda: agent_loop(
            theirs, points, convert_to_openai_messages
        ),
        "floor: a fresh copy of cached JSON": lambda: agent_loop(ours, points, copy_floor),
    }
    encoded = agent_loop(ours, points, len)
    print(f"\nagent loop: {sum(points):,} requests, {encoded:,} messages encoded in all")
    times = _rounds(cases, max(1, rounds // 2))
    _show(f"agent loop to {loop_size:,} messages (total)", times, encoded, "msg encoded")
    ratio = min(times["LangChain convert_to_openai_messages"]) / min(
        times["chatschema openai_chat.encode"]
    )
    print(f"  ratio (LangChain / chatschema, minima): {ratio:.2f}x")


if __name__ == "__main__":
    main()
