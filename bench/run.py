"""chatschema's benchmark suite: chatschema, LangChain and OpenHands on the same inputs.

Usage (from the repository root, with the main venv's Python)::

    .venv/bin/python bench/run.py            # full run, writes BENCHMARKS.md
    .venv/bin/python bench/run.py --quick    # smoke pass: small inputs, one run each

The orchestrator writes the inputs once to a temporary directory
(:mod:`workloads`), then runs each system in a subprocess of its own:

- chatschema: this file with ``--side chatschema`` (main venv, Python 3.11);
- LangChain: ``peer_langchain.py`` (main venv, langchain-core);
- OpenHands: ``peer_openhands.py`` in ``.venv-bench/openhands`` (Python 3.12+),
  built on first use from ``requirements-openhands.txt``; when it cannot be built
  the peer is reported unavailable, with the reason.

The official openai and anthropic SDKs' stream accumulators, the peers of the
provider-stream rows, are timed in the chatschema side's process, in turns with
chatschema's decoding (they never call chatschema; see ``bench/README.md``).
The translating gateway is measured against a bare pass-through proxy by
``gateway.py`` (servers in processes of their own), after the sides.

Each side writes its timings as JSON; the orchestrator also times imports in fresh
interpreters, prints medians and ratios (peer time / chatschema time) against the
targets, writes ``BENCHMARKS.md`` with the machine's description, and profiles
chatschema where a target is missed. Nothing here asserts on time: the exit status
is non-zero only when something crashed or a correctness check failed. See
``bench/README.md`` for the method.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime
import gc
import glob
import json
import os
import platform
import pstats
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))

import gateway as gateway_bench  # noqa: E402
import serving  # noqa: E402
import workloads as w  # noqa: E402  (bench/ is not a package)

OPENHANDS_REQUIREMENTS = BENCH / "requirements-openhands.txt"
OPENHANDS_ENV = {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "OPENHANDS_SUPPRESS_BANNER": "1"}
SIDES = ("chatschema", "langchain", "openhands")

# ============================================================== the chatschema side


@dataclass
class Case:
    """One timed workload of the chatschema side."""

    workload: str
    run: Callable[[], Any]
    count: int
    unit: str
    note: str = ""
    check: Callable[[Any], str | None] | None = None
    """Given one result, ``None`` when it is right, else what is wrong."""
    gc_off: bool = False
    """Also time it with the collector disabled (the history workloads)."""


class ChatschemaCases:
    """chatschema's workloads, their inputs built from the files outside timing."""

    def __init__(self, inputs: Path, sizes: w.Sizes) -> None:
        import chatschema

        self.cs = chatschema
        self.inputs = inputs
        self.sizes = sizes
        self.data = (inputs / "history.chatschema.json").read_bytes()
        self._messages: list[Any] | None = None
        self.plain_data = (inputs / "plain.chatschema.json").read_bytes()
        self._plain: list[Any] | None = None

    @property
    def messages(self) -> list[Any]:
        """The history, parsed once (the input of encode and trim)."""
        if self._messages is None:
            self._messages = self.cs.parse_messages(self.data)
        return self._messages

    @property
    def plain(self) -> list[Any]:
        """The plain history, parsed once (the input of its encodes, trim, agent loop)."""
        if self._plain is None:
            self._plain = self.cs.parse_messages(self.plain_data)
        return self._plain

    def groups(self) -> list[tuple[str, Callable[[], list[Case]]]]:
        """The workload groups, in order; each builds its inputs when called.

        The cases of :data:`INTERLEAVED` groups are timed in turns.
        """
        return [
            (w.PARSE, self.parse),
            (w.ENCODE_OPENAI, self.encode),
            (w.TRIM, self.trim),
            ("release history", self.release),
            (w.PLAIN_PARSE, self.plain_parse),
            ("plain_encode", self.plain_encode),
            (w.PLAIN_TRIM, self.plain_trim),
            (w.AGENT_LOOP, self.agent_loop),
            ("release plain history", self.release_plain),
            (w.STREAM_ADD, self.stream),
            (w.CHUNK_BUILD, self.chunk_build),
            ("tool_args", self.tools),
            # Last: importing the SDKs (thousands of classes) makes every later
            # collection longer, and earlier rows keep the heap they always had.
            ("provider_streams", self.provider_streams),
            ("server_side", self.server_side),
        ]

    def tools(self) -> list[Case]:
        """The tool-call streams, every size."""
        return [case for size in self.sizes.tool_fragments for case in self.tool(size)]

    def release(self) -> list[Case]:
        """Drop the parsed history: streams are timed on a small heap, on every side."""
        self._messages = None
        return []

    def parse(self) -> list[Case]:
        """Parse the history from JSON bytes; the orjson and json floors."""
        import orjson

        data, count = self.data, self.sizes.messages
        expected = orjson.loads(data)

        def round_trip(messages: list[Any]) -> str | None:
            dumped = [self.cs.to_dict(message) for message in messages]
            return None if dumped == expected else "to_dict(parse_messages(x)) != x"

        return [
            Case(
                w.PARSE,
                lambda: self.cs.parse_messages(data),
                count,
                "message",
                "parse_messages",
                check=round_trip,
                gc_off=True,
            ),
            Case(
                w.PARSE_FLOOR,
                lambda: orjson.loads(data),
                count,
                "message",
                "orjson.loads",
                gc_off=True,
            ),
            Case(w.PARSE_STDLIB, lambda: json.loads(data), count, "message", "json.loads"),
        ]

    def encode(self) -> list[Case]:
        """Encode the parsed history for Chat Completions and for Anthropic."""
        import floors

        from chatschema.providers import anthropic, openai_chat

        messages, count = self.messages, self.sizes.messages

        def all_messages(body: dict[str, Any]) -> str | None:
            got = len(body["messages"])
            return None if got == count else f"{got} messages, expected {count}"

        return [
            Case(
                w.ENCODE_OPENAI,
                lambda: openai_chat.encode(messages),
                count,
                "message",
                "encode (check on)",
                check=all_messages,
                gc_off=True,
            ),
            Case(
                w.ENCODE_OPENAI_NOCHECK,
                lambda: openai_chat.encode(messages, check=False),
                count,
                "message",
                "encode(check=False)",
            ),
            Case(
                w.ENCODE_FLOOR,
                lambda: floors.openai_chat(messages),
                count,
                "message",
                "bare walk writing the Chat shape (floors.openai_chat)",
                check=all_messages,
            ),
            Case(
                w.ENCODE_ANTHROPIC,
                lambda: anthropic.encode(messages),
                count,
                "message",
                "encode (check on)",
                gc_off=True,
            ),
            Case(
                w.ENCODE_ANTHROPIC_NOCHECK,
                lambda: anthropic.encode(messages, check=False),
                count,
                "message",
                "encode(check=False)",
            ),
        ]

    def stream(self) -> list[Case]:
        """20,000 text deltas: ``total = total + chunk``, and an accumulator."""
        from chatschema import AssistantMessageChunk, ChunkAccumulator

        deltas: list[str] = json.loads((self.inputs / "stream_text.json").read_bytes())
        chunks = [AssistantMessageChunk(content=delta) for delta in deltas]
        chunks[0] = AssistantMessageChunk(
            content=deltas[0], response_id=w.STREAM_ID, model=w.MODEL, provider="anthropic"
        )
        chunks[-1] = AssistantMessageChunk(
            content=deltas[-1], finish_reason="stop", chunk_position="last"
        )
        expected = "".join(deltas)

        def add() -> Any:
            total = chunks[0]
            for chunk in chunks[1:]:
                total = total + chunk
            total.content  # noqa: B018  (builds the fields of the lazy sum)
            return total

        def accumulate() -> Any:
            accumulator = ChunkAccumulator()
            for chunk in chunks:
                accumulator.add(chunk)
            return accumulator.to_message()

        def same_text(result: Any) -> str | None:
            return None if result.content == expected else "merged text differs"

        count = len(chunks)
        return [
            Case(w.STREAM_ADD, add, count, "chunk", "total = total + chunk", check=same_text),
            Case(
                w.STREAM_ACCUMULATOR,
                accumulate,
                count,
                "chunk",
                "ChunkAccumulator.add, to_message",
                check=same_text,
            ),
        ]

    def tool(self, size: int) -> list[Case]:
        """One tool call whose arguments arrive in ``size`` fragments."""
        from chatschema import AssistantMessageChunk, ChunkAccumulator, ToolCallChunk

        fragments: list[str] = json.loads((self.inputs / f"tool_args_{size}.json").read_bytes())
        chunks = [
            AssistantMessageChunk(tool_call_chunks=[ToolCallChunk(index=0, arguments=piece)])
            for piece in fragments
        ]
        chunks[0] = AssistantMessageChunk(
            tool_call_chunks=[
                ToolCallChunk(index=0, id=w.TOOL_CALL_ID, name=w.TOOL_NAME, arguments=fragments[0])
            ]
        )
        expected = json.loads("".join(fragments))

        def add() -> Any:
            total = chunks[0]
            for chunk in chunks[1:]:
                total = total + chunk
            total.tool_call_chunks  # noqa: B018  (builds the fields of the lazy sum)
            return total

        def accumulate() -> Any:
            accumulator = ChunkAccumulator()
            for chunk in chunks:
                accumulator.add(chunk)
            return accumulator.to_message()

        def live() -> Any:
            accumulator = ChunkAccumulator()
            for chunk in chunks:
                accumulator.add(chunk)
                accumulator.partial_message()
            return accumulator.to_message()

        def same_arguments(result: Any) -> str | None:
            got = result.tool_calls[0].arguments
            return None if got == expected else "parsed arguments differ"

        def same_raw(result: Any) -> str | None:
            got = json.loads(result.tool_call_chunks[0].arguments)
            return None if got == expected else "merged arguments differ"

        return [
            Case(w.tool_add(size), add, size, "fragment", "total = total + chunk", check=same_raw),
            Case(
                w.tool_accumulator(size),
                accumulate,
                size,
                "fragment",
                "ChunkAccumulator, to_message",
                check=same_arguments,
            ),
            Case(
                w.tool_live(size),
                live,
                size,
                "fragment",
                "+ partial_message() per fragment",
                check=same_arguments,
            ),
        ]

    def trim(self) -> list[Case]:
        """Keep the last 8,000 approximate tokens of the history."""
        messages, count = self.messages, self.sizes.messages

        def run() -> Any:
            return self.cs.trim_messages(
                messages,
                max_tokens=w.TRIM_MAX_TOKENS,
                token_counter="approximate",
                strategy="last",
            )

        return [Case(w.TRIM, run, count, "message", f"keeps {len(run())}")]

    # ------------------------------------------------------------ the plain history

    def release_plain(self) -> list[Case]:
        """Drop the parsed plain history before the streams."""
        self._plain = None
        return []

    def plain_parse(self) -> list[Case]:
        """Parse the plain history from JSON bytes (checked: ``to_dict`` gives it back)."""
        import orjson

        data, count = self.plain_data, self.sizes.plain_messages
        expected = orjson.loads(data)

        def round_trip(messages: list[Any]) -> str | None:
            dumped = [self.cs.to_dict(message) for message in messages]
            return None if dumped == expected else "to_dict(parse_messages(x)) != x"

        return [
            Case(
                w.PLAIN_PARSE,
                lambda: self.cs.parse_messages(data),
                count,
                "message",
                "parse_messages",
                check=round_trip,
            )
        ]

    def plain_encode(self) -> list[Case]:
        """Encode the plain history for every format, each beside its bare walk.

        The bare walks (``floors.py``) must give exactly what ``encode`` gives on this
        history: checked outside the timed region, a difference fails the run.
        """
        import floors

        from chatschema.providers import get_codec

        messages, count = self.plain, self.sizes.plain_messages
        cases = []
        for fmt in w.ENCODE_FORMATS:
            codec = get_codec(fmt)
            floor = getattr(floors, fmt)
            source, options = floors.plain_input(fmt, messages)

            def same_as_floor(request: Any, floor: Any = floor) -> str | None:
                return None if request == floor(messages) else "encode differs from the bare walk"

            cases += [
                Case(
                    w.plain_encode(fmt),
                    lambda codec=codec, source=source, options=options: codec.encode(
                        source, **options
                    ),
                    count,
                    "message",
                    "encode (check on)",
                    check=same_as_floor,
                ),
                Case(
                    w.plain_floor(fmt),
                    lambda floor=floor: floor(messages),
                    count,
                    "message",
                    f"floors.{fmt}",
                ),
            ]
        return cases

    def plain_trim(self) -> list[Case]:
        """Keep the last 8,000 approximate tokens of the plain history."""
        messages, count = self.plain, self.sizes.plain_messages

        def run() -> Any:
            return self.cs.trim_messages(
                messages,
                max_tokens=w.TRIM_MAX_TOKENS,
                token_counter="approximate",
                strategy="last",
            )

        return [Case(w.PLAIN_TRIM, run, count, "message", f"keeps {len(run())}")]

    def agent_loop(self) -> list[Case]:
        """The first messages of the plain history, re-encoded at every request point."""
        from agent_loop import agent_loop

        from chatschema.providers import openai_chat

        points: list[bool] = json.loads((self.inputs / "plain_loop_points.json").read_bytes())
        messages = self.plain[: len(points)]
        encoded = agent_loop(messages, points, len)
        return [
            Case(
                w.AGENT_LOOP,
                lambda: agent_loop(messages, points, openai_chat.encode),
                encoded,
                "message encoded",
                f"{sum(points):,} requests, openai_chat.encode",
            )
        ]

    # ---------------------------------------------------------------------- streams

    def chunk_build(self) -> list[Case]:
        """``acc = acc + AssistantMessageChunk(content=t)``, each chunk built in the loop."""
        from chatschema import AssistantMessageChunk

        deltas: list[str] = json.loads((self.inputs / "stream_text.json").read_bytes())
        expected = "".join(deltas)

        def run() -> Any:
            acc = AssistantMessageChunk(content=deltas[0])
            for text in deltas[1:]:
                acc = acc + AssistantMessageChunk(content=text)
            acc.content  # noqa: B018  (builds the fields of the lazy sum)
            return acc

        def same_text(result: Any) -> str | None:
            return None if result.content == expected else "merged text differs"

        note = "acc = acc + AssistantMessageChunk(content=t)"
        return [Case(w.CHUNK_BUILD, run, len(deltas), "chunk", note, check=same_text)]

    def provider_streams(self) -> list[Case]:
        """Each format's event dicts: ``decode_stream``, a ``ChunkAccumulator``, the message.

        Beside them, the official SDKs' accumulators on the same dicts (run here, in
        this process, timed in turns with chatschema's; they are not chatschema):
        openai's ``ChatCompletionStreamState`` and anthropic's ``accumulate_event``,
        each event built as the client builds it (``construct_type``), and again
        with the event objects built beforehand.
        """
        from chatschema import ChunkAccumulator
        from chatschema.providers import get_codec

        deltas: list[str] = json.loads((self.inputs / "stream_deltas.json").read_bytes())
        expected = "".join(deltas)
        cases = []
        events: dict[str, list[dict[str, Any]]] = {}
        for fmt in w.STREAM_FORMATS:
            events[fmt] = json.loads((self.inputs / f"events.{fmt}.json").read_bytes())
            codec = get_codec(fmt)

            def run(codec: Any = codec, stream: list[Any] = events[fmt]) -> Any:
                acc = ChunkAccumulator()
                for chunk in codec.decode_stream(stream):
                    acc.add(chunk)
                return acc.to_message()

            def same_text(message: Any) -> str | None:
                return None if message.text == expected else "accumulated text differs"

            note = "decode_stream, ChunkAccumulator.add, to_message"
            count = len(events[fmt])
            cases.append(Case(w.provider_stream(fmt), run, count, "event", note, check=same_text))
        return cases + sdk_stream_cases(events, expected)

    def server_side(self) -> list[Case]:
        """The server side, every HTTP format (``serving.py``).

        ``encode_response`` per reply and ``encode_stream`` per event, beside their
        bare walks and the SDKs' serializers.
        """
        deltas: list[str] = json.loads((self.inputs / "stream_deltas.json").read_bytes())
        return [Case(**case) for case in serving.cases(self.plain, deltas)]

    def find(self, workload: str) -> Case:
        """The case of one workload (for profiling)."""
        for _, group in self.groups():
            for case in group():
                if case.workload == workload:
                    return case
        raise KeyError(workload)


def sdk_stream_cases(events: dict[str, list[dict[str, Any]]], expected: str) -> list[Case]:
    """The official SDKs' stream accumulators on the OpenAI Chat and Anthropic event dicts.

    Each event is built as the client builds it (``_models.construct_type`` with the
    stream's event type), then handed to the accumulator; the ``prebuilt`` cases
    hand it event objects built beforehand. Neither imports chatschema.
    """
    from anthropic import _models as anthropic_models
    from anthropic.lib.streaming._messages import accumulate_event
    from anthropic.types import RawMessageStreamEvent
    from openai import _models as openai_models
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    def openai_chunk(event: dict[str, Any]) -> Any:
        return openai_models.construct_type(type_=ChatCompletionChunk, value=event)

    def anthropic_event(event: dict[str, Any]) -> Any:
        return anthropic_models.construct_type(type_=RawMessageStreamEvent, value=event)

    def openai_run(stream: list[Any], build: Callable[[Any], Any] | None) -> Any:
        state: Any = ChatCompletionStreamState()
        for event in stream:
            state.handle_chunk(build(event) if build else event)
        return state.get_final_completion()

    def anthropic_run(stream: list[Any], build: Callable[[Any], Any] | None) -> Any:
        snapshot = None
        buffers: dict[int, bytes] = {}
        for event in stream:
            snapshot = accumulate_event(
                event=build(event) if build else event,
                current_snapshot=snapshot,
                json_bufs=buffers,
            )
        return snapshot

    def openai_text(result: Any) -> str | None:
        same = result.choices[0].message.content == expected
        return None if same else "accumulated text differs"

    def anthropic_text(result: Any) -> str | None:
        same = "".join(block.text for block in result.content) == expected
        return None if same else "accumulated text differs"

    chat, messages = events["openai_chat"], events["anthropic"]
    chat_objects = [openai_chunk(event) for event in chat]
    message_objects = [anthropic_event(event) for event in messages]
    return [
        Case(
            w.SDK_OPENAI,
            lambda: openai_run(chat, openai_chunk),
            len(chat),
            "event",
            "ChatCompletionStreamState.handle_chunk(construct_type(...))",
            check=openai_text,
        ),
        Case(
            w.SDK_OPENAI_PREBUILT,
            lambda: openai_run(chat_objects, None),
            len(chat),
            "event",
            "handle_chunk, ChatCompletionChunk objects built beforehand",
            check=openai_text,
        ),
        Case(
            w.SDK_ANTHROPIC,
            lambda: anthropic_run(messages, anthropic_event),
            len(messages),
            "event",
            "accumulate_event(event=construct_type(...))",
            check=anthropic_text,
        ),
        Case(
            w.SDK_ANTHROPIC_PREBUILT,
            lambda: anthropic_run(message_objects, None),
            len(messages),
            "event",
            "accumulate_event, event objects built beforehand",
            check=anthropic_text,
        ),
    ]


def chatschema_side() -> None:
    """``run.py --side chatschema``: time chatschema's workloads, or profile one."""

    def extra(parser: Any) -> None:
        parser.add_argument("--side", choices=["chatschema"], required=True)
        parser.add_argument("--profile", metavar="WORKLOAD", help="profile one workload")

    arguments = w.side_arguments("chatschema side of the benchmark", extra)
    options = w.options_from(arguments)
    _, sizes = w.read_inputs(arguments.inputs)
    cases = ChatschemaCases(arguments.inputs, sizes)
    if arguments.profile:
        arguments.out.write_text(profile_case(cases.find(arguments.profile)))
        return
    report = w.SideReport(
        side="chatschema",
        python=sys.version.split()[0],
        packages={
            name: version(name)
            for name in ("chatschema", "pydantic", "pydantic-core", "orjson", "openai", "anthropic")
        },
        gc=w.gc_state(options),
    )
    for name, group in cases.groups():

        def run_group(name: str = name, group: Callable[[], list[Case]] = group) -> None:
            if name in INTERLEAVED:
                run_in_turns(report, group(), options)
                return
            for case in group():
                w.run_guarded(
                    report, case.workload, lambda case=case: run_case(report, case, options)
                )

        w.run_guarded(report, name, run_group)
    report.write(arguments.out)


INTERLEAVED = frozenset({"tool_args", "provider_streams", "server_side"})
"""Groups whose cases are compared with each other (sizes; chatschema and the SDKs in
one process): timed in turns."""


def run_case(report: w.SideReport, case: Case, options: w.Options) -> None:
    """Time one case, then check one result outside the timed region."""
    details = {"count": case.count, "unit": case.unit, "note": case.note}
    if case.gc_off:
        w.measure_with_and_without_gc(report, case.workload, case.run, options, **details)
    else:
        report.add(case.workload, w.measure(case.run, options, **details))
    check(report, case)


def run_in_turns(report: w.SideReport, cases: list[Case], options: w.Options) -> None:
    """Time cases in turns (:func:`workloads.measure_round_robin`), then check each."""
    jobs = [w.Job(case.workload, case.run, case.count, case.unit, case.note) for case in cases]
    for workload, timing in w.measure_round_robin(jobs, options).items():
        report.add(workload, timing)
    for case in cases:
        w.run_guarded(report, case.workload, lambda case=case: check(report, case))


def check(report: w.SideReport, case: Case) -> None:
    """Check one result of a case, outside the timed region."""
    if case.check is not None:
        problem = case.check(case.run())
        report.check(case.workload, problem is None, problem or "")


def profile_case(case: Case, top: int = 22) -> str:
    """Profile one run of a case (after a warm-up run); the hot spots as text.

    The collector is disabled during the profiled run, so its passes are not charged
    to whichever function happened to allocate (the ``gc off`` rows show its share).
    pyinstrument is used when it is installed, else cProfile (own time per function).
    """
    try:
        from pyinstrument import Profiler  # type: ignore[import-not-found]
    except ImportError:
        Profiler = None
    case.run()
    gc.collect()
    gc.disable()
    try:
        if Profiler is None:
            profiler = cProfile.Profile()
            profiler.runcall(case.run)
            return _hot_spots(pstats.Stats(profiler), top)
        sampler = Profiler(interval=0.0002)
        sampler.start()
        case.run()
        sampler.stop()
        return str(sampler.output_text(unicode=False, color=False, show_all=False))
    finally:
        gc.enable()


def _hot_spots(stats: pstats.Stats, top: int) -> str:
    """The functions with the most own time, one per line."""
    rows = []
    entries = stats.stats  # type: ignore[attr-defined]
    total = sum(entry[2] for entry in entries.values()) or 1.0
    ranked = sorted(entries.items(), key=lambda item: item[1][2], reverse=True)[:top]
    rows.append(f"{'own %':>6} {'own ms':>8} {'cum ms':>8} {'calls':>8}  function")
    for (filename, line, name), (_, calls, own, cumulative, _) in ranked:
        rows.append(
            f"{100 * own / total:6.1f} {1000 * own:8.2f} {1000 * cumulative:8.2f} {calls:8d}"
            f"  {name} ({_short_path(filename)}:{line})"
        )
    return "\n".join(rows)


def _short_path(filename: str) -> str:
    """A profiled function's file, without this machine's directories.

    An installed package's is spelled ``<site-packages>/...``, the repository's is
    relative to it, the standard library's is ``<python>/...``.
    """
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in filename:
            return "<site-packages>/" + filename.split(marker, 1)[1]
    prefixes = [(str(ROOT) + os.sep, "")]
    paths = sysconfig.get_paths()
    prefixes += [(paths[key] + os.sep, "<python>/") for key in ("stdlib", "platstdlib")]
    for prefix, spelled in prefixes:
        if filename.startswith(prefix):
            return spelled + filename[len(prefix) :]
    return filename


# ======================================================================= orchestrator


@dataclass
class SideOutcome:
    """What running one side gave: its report, or why there is none."""

    name: str
    report: dict[str, Any] | None = None
    unavailable: str | None = None
    crash: str | None = None
    seconds: float = 0.0


def log(message: str) -> None:
    """Progress, on stderr."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def find_python312(explicit: str | None) -> str | None:
    """A Python 3.12+ interpreter for the OpenHands venv, or None."""
    candidates = [explicit, os.environ.get("BENCH_OPENHANDS_PYTHON")]
    candidates += [shutil.which(name) for name in ("python3.13", "python3.12")]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv"))
    candidates += sorted(glob.glob(str(pyenv / "versions" / "3.1[2-9]*" / "bin" / "python3")))
    for candidate in candidates:
        if not candidate:
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info >= (3, 12))"],
            capture_output=True,
            text=True,
            check=False,
        )
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            return candidate
    return None


def ensure_openhands(venv: Path, python312: str | None, bootstrap: bool) -> tuple[str | None, str]:
    """The OpenHands venv's interpreter (building the venv if allowed), or why not.

    The venv is rebuilt when ``requirements-openhands.txt`` changed since it was built.
    """
    python = venv / "bin" / "python"
    stamp = venv / ".bench-requirements"
    wanted = OPENHANDS_REQUIREMENTS.read_text()
    if python.exists() and stamp.exists() and stamp.read_text() == wanted:
        return str(python), ""
    if not bootstrap:
        return None, f"{venv} is not built (a full `make bench` builds it; or pass --bootstrap)"
    interpreter = find_python312(python312)
    if interpreter is None:
        return None, "no Python 3.12+ found (openhands-sdk needs it; pass --openhands-python)"
    log(f"building {venv} with {interpreter} (pip install -r {OPENHANDS_REQUIREMENTS.name})")
    steps = [
        [interpreter, "-m", "venv", "--clear", str(venv)],
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--retries",
            "1",
            "--timeout",
            "30",
            "-r",
            str(OPENHANDS_REQUIREMENTS),
        ],
    ]
    for step in steps:
        try:
            done = subprocess.run(step, capture_output=True, text=True, timeout=1_200, check=False)
        except subprocess.TimeoutExpired:
            return None, f"`{' '.join(step[:4])} ...` timed out"
        if done.returncode != 0:
            lines = [
                line
                for line in (done.stderr + done.stdout).splitlines()
                if line.strip() and not line.startswith("WARNING: Location")
            ]
            return None, f"`{' '.join(step[1:5])} ...` failed: " + " / ".join(lines[-3:])
    stamp.write_text(wanted)
    return str(python), ""


def run_side(
    name: str,
    command: list[str],
    inputs: Path,
    options: w.Options,
    timeout: float,
    env: dict[str, str] | None = None,
) -> SideOutcome:
    """Run one side in its own subprocess and read its JSON report."""
    out = inputs / f"report.{name}.json"
    command = [
        *command,
        "--inputs",
        str(inputs),
        "--out",
        str(out),
        "--repeats",
        str(options.repeats),
        "--warmup",
        str(options.warmup),
        "--budget",
        str(options.budget),
        *(["--disable-gc"] if options.disable_gc else []),
    ]
    log(f"{name}: running")
    start = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={**os.environ, **(env or {})},
            cwd=ROOT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return SideOutcome(name, crash=f"timed out after {timeout:.0f} s")
    seconds = time.perf_counter() - start
    if done.returncode != 0 or not out.exists():
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        return SideOutcome(name, crash=f"exit {done.returncode}:\n{tail}", seconds=seconds)
    log(f"{name}: done in {seconds:.1f} s")
    return SideOutcome(name, report=json.loads(out.read_text()), seconds=seconds)


FIRST_USE = "+first_use"
"""Suffix of the import timings that go on to parse one message."""


def import_times(
    python: str, statement: str, runs: int, env: dict[str, str] | None = None
) -> list[float]:
    """Seconds an import ``statement`` takes in fresh interpreters (after one untimed run).

    Measured inside the interpreter, so its start-up is not counted.
    """
    code = f"import time; t = time.perf_counter(); {statement}; print(time.perf_counter() - t)"
    times = []
    for position in range(runs + 1):
        done = subprocess.run(
            [python, "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=ROOT,
            check=True,
            timeout=120,
        )
        if position:  # the first run may compile bytecode
            times.append(float(done.stdout.strip().splitlines()[-1]))
    return times


def import_profile(python: str, module: str, top: int = 18) -> str:
    """``python -X importtime``: the total, then the modules with the most own time."""
    done = subprocess.run(
        [python, "-X", "importtime", "-c", f"import {module}"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        match = re.match(r"import time:\s+(\d+) \|\s+(\d+) \|(\s*)(\S+)", line)
        if match:
            own, cumulative, _, name = match.groups()
            rows.append((int(own), int(cumulative), name))
    total = sum(own for own, _, _ in rows)
    packages: dict[str, int] = {}
    for own, _, name in rows:
        packages[name.split(".")[0]] = packages.get(name.split(".")[0], 0) + own
    ranked = sorted(packages.items(), key=lambda item: item[1], reverse=True)
    rows.sort(reverse=True)
    lines = [
        f"import {module}: {total / 1000:.1f} ms under -X importtime, {len(rows)} modules",
        "by top-level package (own time): "
        + ", ".join(f"{name} {own / 1000:.1f}" for name, own in ranked[:12])
        + " ms",
        "",
        f"{'own ms':>8} {'cum ms':>8}  module",
    ]
    lines += [f"{own / 1000:8.1f} {cum / 1000:8.1f}  {name}" for own, cum, name in rows[:top]]
    return "\n".join(lines)


# -------------------------------------------------------------------------- machine


def _read(path: str) -> str:
    try:
        return Path(path).read_text()
    except OSError:
        return ""


def machine() -> dict[str, Any]:
    """The machine's description: CPU, cores, memory, OS, load."""
    cpuinfo = _read("/proc/cpuinfo")
    model = re.search(r"^model name\s*:\s*(.+)$", cpuinfo, re.M)
    physical = {
        (p, c)
        for p, c in re.findall(
            r"^physical id\s*:\s*(\d+)$.*?^core id\s*:\s*(\d+)$", cpuinfo, re.M | re.S
        )
    }
    memory = re.search(r"^MemTotal:\s*(\d+) kB", _read("/proc/meminfo"), re.M)
    hypervisor = "hypervisor" in cpuinfo
    return {
        "cpu": model.group(1).strip() if model else platform.processor() or "unknown",
        "logical_cpus": os.cpu_count(),
        "physical_cores": len(physical) or None,
        "virtualized": hypervisor,
        "memory_gib": round(int(memory.group(1)) / 1024**2, 1) if memory else None,
        "os": platform.platform(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


# ========================================================================== results


@dataclass
class Target:
    """One target of the issue, checked against the medians."""

    label: str
    workload: str
    peer: str | None
    """``langchain``, ``openhands``, ``floor`` (orjson), ``chatschema`` (a reference
    workload timed in chatschema's process: a bare walk, an official SDK; named by
    ``peer_workload``), or None for an absolute target."""
    kind: str
    """``min_ratio`` (peer / chatschema at least), ``max_multiple`` (chatschema at most
    N times the peer), ``max_per_item`` (seconds per item at most), ``flat`` (per-item
    time across sizes over the smallest size's, at most), ``gateway`` (judged by
    ``gateway.py`` from its own measurements)."""
    threshold: float
    peer_workload: str | None = None
    note: str = ""


@dataclass
class Verdict:
    """A target's outcome."""

    target: Target
    value: float | None
    met: bool | None
    shown: str


@dataclass
class Results:
    """Everything measured in one run."""

    sides: dict[str, SideOutcome]
    imports: dict[str, list[float]]
    sizes: w.Sizes
    manifest: dict[str, Any]
    options: w.Options
    quick: bool
    machine: dict[str, Any]
    profiles: dict[str, str] = field(default_factory=dict)
    import_errors: dict[str, str] = field(default_factory=dict)

    def timing(self, side: str, workload: str) -> dict[str, Any] | None:
        """A side's timing of a workload, if it has one."""
        if side == "floor":
            side, workload = "chatschema", w.PARSE_FLOOR
        report = self.sides[side].report if side in self.sides else None
        if report is None:
            return None
        result: dict[str, Any] | None = report["results"].get(workload)
        return result

    def times(self, side: str, workload: str) -> list[float]:
        """The timed runs of a workload on a side.

        ``import`` is the side's own import; ``import:NAME`` a reference import.
        """
        if workload in ("import", FIRST_USE):
            return self.imports.get(side if workload == "import" else f"{side}{FIRST_USE}", [])
        if workload.startswith("import:"):
            return self.imports.get(workload.split(":", 1)[1], []) if side == "chatschema" else []
        timing = self.timing(side, workload)
        return list(timing["times"]) if timing else []

    def median(self, side: str, workload: str) -> float | None:
        """Median seconds of a workload on a side."""
        times = self.times(side, workload)
        return statistics.median(times) if times else None

    def runs(self, side: str, workload: str) -> int:
        """How many timed runs the median is of."""
        return len(self.times(side, workload))

    def ratio(self, side: str, workload: str, peer_workload: str | None = None) -> float | None:
        """Peer time / chatschema time."""
        mine = self.median("chatschema", workload)
        theirs = self.median(side, peer_workload or workload)
        if mine is None or theirs is None or mine == 0:
            return None
        return theirs / mine


def targets(sizes: w.Sizes) -> list[Target]:
    """The issue's targets (ratio = peer time / chatschema time)."""
    largest, sizes_ = sizes.tool_fragments[-1], sizes.tool_fragments
    flat = "per-fragment time at " + "/".join(f"{n:,}" for n in sizes_) + ", max / first"
    return [
        Target("parse vs OpenHands model_validate", w.PARSE, "openhands", "min_ratio", 3),
        Target("parse vs LangChain messages_from_dict", w.PARSE, "langchain", "min_ratio", 5),
        Target("parse vs orjson.loads floor", w.PARSE, "floor", "max_multiple", 2.5),
        Target(
            "encode OpenAI vs OpenHands to_chat_dict", w.ENCODE_OPENAI, "openhands", "min_ratio", 3
        ),
        Target(
            "encode OpenAI vs LangChain convert_to_openai_messages",
            w.ENCODE_OPENAI,
            "langchain",
            "min_ratio",
            4,
        ),
        Target(
            "encode Anthropic vs OpenHands to_chat_dict + LiteLLM",
            w.ENCODE_ANTHROPIC,
            "openhands",
            "min_ratio",
            3,
            note="OpenHands has no Anthropic encoder: its chat dicts go through LiteLLM",
        ),
        Target(
            "encode Anthropic vs LangChain convert_to_openai_messages",
            w.ENCODE_ANTHROPIC,
            "langchain",
            "min_ratio",
            3,
            peer_workload=w.ENCODE_OPENAI,
            note="proxy: langchain-core has no Anthropic converter (langchain-anthropic has)",
        ),
        Target(
            "text chunks, + one at a time, vs LangChain +",
            w.STREAM_ADD,
            "langchain",
            "min_ratio",
            10,
        ),
        Target(
            "text chunks, ChunkAccumulator, per chunk",
            w.STREAM_ACCUMULATOR,
            None,
            "max_per_item",
            1e-6,
        ),
        Target(
            f"tool args, {largest:,} fragments, + vs LangChain +",
            w.tool_add(largest),
            "langchain",
            "min_ratio",
            500,
        ),
        Target(f"tool args, + linear ({flat})", "tool_args_add", None, "flat", 1.5),
        Target(
            f"tool args, accumulator linear ({flat})", "tool_args_accumulator", None, "flat", 1.5
        ),
        Target("trim_messages vs LangChain trim_messages", w.TRIM, "langchain", "min_ratio", 10),
        *plain_targets(),
        *stream_targets(),
        *server_targets(),
        Target(
            "import chatschema vs import langchain_core.messages",
            "import",
            "langchain",
            "max_multiple",
            0.5,
            note="names load on first use: see the row 'import, then parse one message'",
        ),
    ]


def plain_targets() -> list[Target]:
    """The plain history's targets (issue 13)."""
    found = [
        Target(
            f"plain: encode {fmt} (check on) vs its bare walk",
            w.plain_encode(fmt),
            "chatschema",
            "max_multiple",
            1.5,
            peer_workload=w.plain_floor(fmt),
            note=f"floor: bench/floors.py {fmt}(messages), equal output checked",
        )
        for fmt in w.ENCODE_FORMATS
    ]
    chat = w.plain_encode("openai_chat")
    return [
        *found,
        Target(
            "plain: encode OpenAI vs LangChain convert_to_openai_messages",
            chat,
            "langchain",
            "min_ratio",
            1,
        ),
        Target("plain: encode OpenAI vs OpenHands to_chat_dict", chat, "openhands", "min_ratio", 1),
        Target("plain: trim_messages vs LangChain", w.PLAIN_TRIM, "langchain", "min_ratio", 10),
    ]


def server_targets() -> list[Target]:
    """The server side's targets: replies against their bare walks, streams per event."""
    found = []
    for fmt in w.HTTP_FORMATS:
        found.append(
            Target(
                f"encode_response {fmt} vs its bare walk",
                serving.reply(fmt),
                "chatschema",
                "max_multiple",
                1.5,
                peer_workload=serving.reply_floor(fmt),
                note="floor: bench/serving.py, equal bodies checked",
            )
        )
        found.append(
            Target(
                f"encode_stream {fmt}, sse=True, per event",
                serving.stream_write(fmt),
                None,
                "max_per_item",
                3e-6,
                note="text deltas between a first and a last chunk",
            )
        )
    return found


def stream_targets() -> list[Target]:
    """The provider streams' and chunk building's targets (issue 13)."""
    found = [
        Target(
            f"{fmt} stream from event dicts, per event",
            w.provider_stream(fmt),
            None,
            "max_per_item",
            3e-6,
            note="decode_stream + ChunkAccumulator + to_message",
        )
        for fmt in w.STREAM_FORMATS
    ]
    return [
        *found,
        Target(
            "anthropic stream vs the SDK's accumulate_event (construction counted)",
            w.provider_stream("anthropic"),
            "chatschema",
            "min_ratio",
            3,
            peer_workload=w.SDK_ANTHROPIC,
        ),
        Target(
            "openai_chat stream vs the SDK's ChatCompletionStreamState",
            w.provider_stream("openai_chat"),
            "chatschema",
            "min_ratio",
            15,
            peer_workload=w.SDK_OPENAI,
        ),
        Target(
            "chunk building, acc + AssistantMessageChunk(...), vs LangChain",
            w.CHUNK_BUILD,
            "langchain",
            "min_ratio",
            6,
        ),
    ]


def judge(results: Results, target: Target) -> Verdict:
    """Whether a target is met (None when it could not be measured)."""
    if target.kind == "min_ratio":
        assert target.peer is not None
        value = results.ratio(target.peer, target.workload, target.peer_workload)
        shown = "n/a" if value is None else f"{value:,.1f}x (need >= {target.threshold:g}x)"
        return Verdict(target, value, None if value is None else value >= target.threshold, shown)
    if target.kind == "max_multiple":
        assert target.peer is not None
        ratio = results.ratio(target.peer, target.workload, target.peer_workload)
        value = None if not ratio else 1 / ratio
        what = "floor" if target.peer_workload else "peer"
        shown = "n/a" if value is None else f"{value:.2f}x {what} (need <= {target.threshold:g}x)"
        return Verdict(target, value, None if value is None else value <= target.threshold, shown)
    if target.kind == "max_per_item":
        timing = results.timing("chatschema", target.workload)
        if timing is None:
            return Verdict(target, None, None, "n/a")
        value = statistics.median(timing["times"]) / timing["count"]
        shown = f"{value * 1e6:.2f} us (need <= {target.threshold * 1e6:g} us)"
        return Verdict(target, value, value <= target.threshold, shown)
    per_item = []
    for size in results.sizes.tool_fragments:
        timing = results.timing("chatschema", f"{target.workload}_{size}")
        if timing is None:
            return Verdict(target, None, None, "n/a")
        per_item.append(statistics.median(timing["times"]) / size)
    # Growth of the per-fragment time over the smallest size's: a fixed cost spread
    # over more fragments makes it fall, which is fine; a quadratic merge makes it rise.
    value = max(per_item) / per_item[0]
    shown = (
        " / ".join(f"{t * 1e6:.2f}" for t in per_item)
        + f" us: growth {value:.2f} (need <= {target.threshold:g})"
    )
    return Verdict(target, value, value <= target.threshold, shown)


def human(seconds: float | None) -> str:
    """A duration with a sensible unit."""
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:,.3g} {unit}" if seconds < 1000 else f"{seconds:,.0f} s"
    return f"{seconds / 1e-9:.0f} ns"


ROWS: list[tuple[str, str, str]] = [
    # (label, chatschema's workload, the peers' workload)
    ("parse history (JSON bytes -> models)", w.PARSE, w.PARSE),
    ("  same, gc off while timing", w.gc_off(w.PARSE), w.gc_off(w.PARSE)),
    ("  floor: orjson.loads (same bytes)", w.PARSE_FLOOR, ""),
    ("  floor, gc off while timing", w.gc_off(w.PARSE_FLOOR), ""),
    ("  reference: json.loads (same bytes)", w.PARSE_STDLIB, ""),
    ("encode OpenAI Chat", w.ENCODE_OPENAI, w.ENCODE_OPENAI),
    ("  same, gc off while timing", w.gc_off(w.ENCODE_OPENAI), w.gc_off(w.ENCODE_OPENAI)),
    ("  check=False", w.ENCODE_OPENAI_NOCHECK, ""),
    ("  floor: bare walk writing the Chat shape", w.ENCODE_FLOOR, ""),
    ("encode Anthropic (LC: OpenAI proxy; OH: + LiteLLM)", w.ENCODE_ANTHROPIC, w.ENCODE_ANTHROPIC),
    ("  same, gc off while timing", w.gc_off(w.ENCODE_ANTHROPIC), w.gc_off(w.ENCODE_ANTHROPIC)),
    ("  check=False (OH: to_chat_dict only)", w.ENCODE_ANTHROPIC_NOCHECK, w.ENCODE_CHAT_DICTS),
    ("trim_messages, last 8,000 approx. tokens", w.TRIM, w.TRIM),
    ("plain history: parse", w.PLAIN_PARSE, w.PLAIN_PARSE),
    *[
        row
        for fmt in w.ENCODE_FORMATS
        for row in (
            (
                f"plain: encode {fmt}"
                + (" (LC: convert_to_openai_messages)" if fmt == "openai_chat" else ""),
                w.plain_encode(fmt),
                w.plain_encode(fmt) if fmt == "openai_chat" else "",
            ),
            (f"  floor: bare walk, floors.{fmt}", w.plain_floor(fmt), ""),
        )
    ],
    ("plain: trim_messages, last 8,000 approx. tokens", w.PLAIN_TRIM, w.PLAIN_TRIM),
    ("plain: agent loop, re-encode per request (total)", w.AGENT_LOOP, w.AGENT_LOOP),
    ("text chunks, total = total + chunk", w.STREAM_ADD, w.STREAM_ADD),
    ("text chunks, ChunkAccumulator (LC: n-ary +)", w.STREAM_ACCUMULATOR, w.STREAM_BATCH),
    ("chunk building, acc = acc + Chunk(content=t)", w.CHUNK_BUILD, w.CHUNK_BUILD),
    *[
        row
        for fmt in w.STREAM_FORMATS
        for row in (
            (f"{fmt} stream: event dicts -> message", w.provider_stream(fmt), ""),
            *(
                [
                    ("  SDK: ChatCompletionStreamState, construct_type", w.SDK_OPENAI, ""),
                    ("  SDK: same, ChatCompletionChunks built before", w.SDK_OPENAI_PREBUILT, ""),
                ]
                if fmt == "openai_chat"
                else []
            ),
            *(
                [
                    ("  SDK: accumulate_event, construct_type", w.SDK_ANTHROPIC, ""),
                    ("  SDK: same, events built before", w.SDK_ANTHROPIC_PREBUILT, ""),
                ]
                if fmt == "anthropic"
                else []
            ),
        )
    ],
]
"""(label, chatschema's workload, the peers' workload). Rows named ``floor`` or
``SDK`` are reference workloads timed in chatschema's process: their times are in the
chatschema column, and the targets table gives chatschema's ratio to them."""

SERVING = frozenset(
    workload(fmt)
    for fmt in w.HTTP_FORMATS
    for workload in (serving.reply_floor, serving.reply_sdk, serving.stream_floor)
)
"""The server side's reference rows, left out where a format has none."""

ROWS += [
    row
    for fmt in w.HTTP_FORMATS
    for row in (
        (f"{fmt}: encode_response per reply", serving.reply(fmt), ""),
        ("  floor: bare walk writing the same body", serving.reply_floor(fmt), ""),
        ("  as JSON text: dumps(encode_response(m))", serving.reply_json(fmt), ""),
        ("  SDK: model_dump_json of equal objects", serving.reply_sdk(fmt), ""),
        (f"{fmt}: encode_stream, sse=True", serving.stream_write(fmt), ""),
        ("  floor: bare loop framing the text deltas", serving.stream_floor(fmt), ""),
    )
]


LANGCHAIN_PROXIES = {
    w.ENCODE_ANTHROPIC: w.ENCODE_OPENAI,
    w.gc_off(w.ENCODE_ANTHROPIC): w.gc_off(w.ENCODE_OPENAI),
}
"""langchain-core has no Anthropic encoder: its OpenAI one stands in."""


def result_rows(results: Results) -> list[list[str]]:
    """The results table: medians, time per item, and ratios for every workload."""
    entries = list(ROWS)
    for size in results.sizes.tool_fragments:
        entries += [
            (f"tool args {size:,} fragments, +", w.tool_add(size), w.tool_add(size)),
            ("  accumulator (LC: n-ary +)", w.tool_accumulator(size), w.tool_batch(size)),
            ("  accumulator + live view per fragment", w.tool_live(size), ""),
        ]
    entries += [
        ("import (fresh interpreter)", "import", "import"),
        ("  import, then parse one message", FIRST_USE, FIRST_USE),
        ("  reference: from pydantic import BaseModel", "import:pydantic", ""),
    ]
    rows = []
    for label, mine, theirs in entries:
        if mine in SERVING and results.timing("chatschema", mine) is None:
            continue  # a format without that reference (no SDK serializer for Bedrock)
        median = results.median("chatschema", mine)
        timing = results.timing("chatschema", mine)
        row = [label, human(median), human(median / timing["count"]) if median and timing else ""]
        runs = [results.runs("chatschema", mine)]
        for side in ("langchain", "openhands"):
            workload = LANGCHAIN_PROXIES.get(theirs, theirs) if side == "langchain" else theirs
            peer = results.median(side, workload) if workload else None
            row.append(human(peer) if peer is not None else "")
            row.append(f"{peer / median:,.1f}x" if peer is not None and median else "")
            runs.append(results.runs(side, workload) if workload else 0)
        row.append("/".join(str(n) if n else "-" for n in runs))
        rows.append(row)
    return rows


HEADER = [
    "workload",
    "chatschema",
    "per item",
    "LangChain",
    "ratio",
    "OpenHands",
    "ratio",
    "runs (cs/LC/OH)",
]


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def text_table(header: list[str], rows: list[list[str]], *, numbers: bool = True) -> str:
    """A plain-text table for the terminal.

    With ``numbers``, the columns after the first are right-aligned.
    """
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    lines = ["  ".join(h.ljust(widths[i]) for i, h in enumerate(header))]
    lines.append("  ".join("-" * width for width in widths))
    for row in rows:
        cells = [
            c.rjust(widths[i]) if numbers and i else c.ljust(widths[i]) for i, c in enumerate(row)
        ]
        lines.append("  ".join(cells).rstrip())
    return "\n".join(lines)


def verdict_rows(verdicts: list[Verdict]) -> list[list[str]]:
    """The targets table."""
    status = {True: "met", False: "MISSED", None: "not measured"}
    return [[v.target.label, v.shown, status[v.met], v.target.note] for v in verdicts]


def problems(results: Results) -> list[str]:
    """Crashes and failed checks, one line each (these make the exit status non-zero)."""
    found = [f"{name}: {error}" for name, error in results.import_errors.items()]
    for name, outcome in results.sides.items():
        if outcome.crash:
            found.append(f"{name}: crashed: {outcome.crash}")
        if outcome.report:
            for workload, error in outcome.report["errors"].items():
                found.append(f"{name}: {workload} crashed: {error.strip().splitlines()[-1]}")
            for check, state in outcome.report["checks"].items():
                if state != "ok":
                    found.append(f"{name}: check {check}: {state}")
    return found


def raise_priority() -> str:
    """Run this process and its children at nice -10, if allowed; says what happened."""
    try:
        os.setpriority(os.PRIO_PROCESS, 0, -10)
    except OSError as error:
        return f"normal (could not raise it: {error.strerror})"
    return "high (nice -10)"


def busy_warning(description: dict[str, Any]) -> str:
    """A warning when other work loaded the machine during the run, else ``""``."""
    cpus = description["logical_cpus"] or 1
    loads = [*description["load_average"][:1], *description.get("load_average_end", [])[:1]]
    # At the end, the last minute includes the benchmark itself (one busy CPU).
    if loads[0] <= 0.5 * cpus and (len(loads) < 2 or loads[1] <= 1 + 0.5 * cpus):
        return ""
    return (
        f"The machine was busy (1-minute load average {' / '.join(map(str, loads))} on "
        f"{cpus} CPUs at start / end): other processes shared the CPUs, so times and "
        "ratios are noisier than usual."
    )


def _below_floor(results: Results, workload: str, floor: float | None, what: str) -> list[str]:
    """Ratio targets that ask for less time than the floor itself takes."""
    notes = []
    for target in targets(results.sizes):
        if target.workload != workload or target.kind != "min_ratio" or target.peer is None:
            continue
        peer = results.median(target.peer, target.peer_workload or workload)
        if peer is None or floor is None:
            continue
        allowed = peer / target.threshold
        if allowed < floor:
            notes.append(
                f"{target.threshold:g}x {target.peer} means at most {human(allowed)}; "
                f"{what} alone takes {human(floor)}: out of reach for any Python code "
                "doing the same job"
            )
    return notes


def derived_notes(results: Results, workload: str) -> list[str]:
    """What the measurements say about a missed workload, beyond its profile."""
    median = results.median
    notes = []

    def share(part: float | None, whole: float | None) -> str:
        return "n/a" if part is None or not whole else f"{100 * part / whole:.0f}%"

    on, off = median("chatschema", workload), median("chatschema", w.gc_off(workload))
    if on is not None and off is not None:
        notes.append(
            f"collector: {human(on)} with it, {human(off)} without: "
            f"{share(on - off, on)} of the time is its passes"
        )
    if workload == w.PARSE:
        floor = median("chatschema", w.gc_off(w.PARSE_FLOOR))
        if off and floor:
            notes.append(
                f"without the collector on either side, parse is {off / floor:.2f}x orjson.loads"
            )
        floor = median("chatschema", w.PARSE_FLOOR)
        notes += _below_floor(results, workload, floor, "orjson.loads")
    if workload == w.ENCODE_OPENAI:
        floor = median("chatschema", w.ENCODE_FLOOR)
        notes += _below_floor(results, workload, floor, "a bare walk writing the Chat shape")
    if workload.startswith("plain_encode_"):
        fmt = workload.removeprefix("plain_encode_")
        floor = median("chatschema", w.plain_floor(fmt))
        if on is not None and floor:
            notes.append(
                f"bare walk `floors.{fmt}`: {human(floor)}; encode (check on) is "
                f"{on / floor:.2f}x it"
            )
        notes += _below_floor(results, workload, floor, f"the bare walk floors.{fmt}")
    if workload == w.provider_stream("anthropic"):
        alone = results.timing("chatschema", w.SDK_ANTHROPIC_PREBUILT)
        if alone:
            per_event = statistics.median(alone["times"]) / alone["count"]
            notes.append(
                f"the SDK's accumulate_event alone (events built beforehand): "
                f"{human(per_event)} per event"
            )
    nocheck = {
        w.ENCODE_OPENAI: w.ENCODE_OPENAI_NOCHECK,
        w.ENCODE_ANTHROPIC: w.ENCODE_ANTHROPIC_NOCHECK,
    }
    if workload in nocheck:
        unchecked = median("chatschema", nocheck[workload])
        if on is not None and unchecked is not None:
            notes.append(
                f"structural check: {human(on)} with it, {human(unchecked)} with check=False: "
                f"{share(on - unchecked, on)} of encode"
            )
    if workload == "import":
        pydantic, mine = median("chatschema", "import:pydantic"), median("chatschema", "import")
        notes.append(
            f"`from pydantic import BaseModel` alone: {human(pydantic)}, "
            f"{share(pydantic, mine)} of `import chatschema`"
        )
    return notes


def plain_line(results: Results) -> str:
    """The plain history's line of the inputs section."""
    plain = results.manifest["plain"]
    roles = ", ".join(f"{n:,} {r}" for r, n in plain["roles"].items())
    size = results.manifest["bytes"]["plain.chatschema.json"] / 1e6
    return (
        f"- Plain history (`bench/plain_history.py`): {results.sizes.plain_messages:,} "
        f"messages ({roles}); {plain['tool_calls']:,} tool calls, {plain['images']} "
        f"images by URL, no reasoning; chatschema JSON {size:.1f} MB. Agent loop: its first "
        f"{results.sizes.loop_messages:,} messages, {plain['loop_requests']:,} requests, "
        f"{plain['loop_encoded']:,} messages encoded in all."
    )


def render(results: Results, verdicts: list[Verdict], command: str) -> str:
    """BENCHMARKS.md."""
    m = results.machine
    lines = [
        "# Benchmarks",
        "",
        f"Written by `{command}` on {m['date']}; method in `bench/README.md`. "
        "Medians; ratio = peer time / chatschema time (above 1: chatschema is faster).",
        "",
        *(
            ["**Quick mode: small inputs, one run each; not for comparison.**", ""]
            if results.quick
            else []
        ),
        *([f"**{busy_warning(m)}**", ""] if busy_warning(m) else []),
        "## Machine",
        "",
        f"- CPU: {m['cpu']}; {m['logical_cpus']} logical CPUs, "
        f"{m['physical_cores'] or '?'} physical cores"
        + (" (virtual machine)" if m["virtualized"] else ""),
        f"- Memory: {m['memory_gib']} GiB; OS: {m['os']}",
        f"- Load average at start / end: {m['load_average']} / {m.get('load_average_end')}; "
        f"scheduling priority: {m.get('priority', 'normal')}",
    ]
    for name in SIDES:
        outcome = results.sides.get(name)
        if outcome is None:
            continue
        if outcome.report is None:
            reason = outcome.unavailable or f"crashed: {(outcome.crash or '').splitlines()[0]}"
            lines.append(f"- {name}: unavailable ({reason})")
            continue
        report = outcome.report
        packages = ", ".join(f"{k} {v}" for k, v in report["packages"].items())
        gc_ = report["gc"]
        lines.append(
            f"- {name}: Python {report['python']}; {packages}; gc enabled={gc_['enabled']}, "
            f"thresholds {tuple(gc_['threshold'])}"
        )
    options = results.options
    manifest = results.manifest
    roles = ", ".join(f"{n:,} {r}" for r, n in manifest["roles"].items())
    lines += [
        f"- Timing: up to {options.repeats} runs per workload after {options.warmup} warm-up "
        f"run(s), repeating stops once a workload has used {options.budget:g} s; "
        f"`gc.collect()` before every run; the collector is "
        + ("**disabled**" if options.disable_gc else "**enabled**")
        + " during timed runs, on every side.",
        "",
        "## Inputs",
        "",
        f"- History: {results.sizes.messages:,} messages ({roles}); "
        f"{manifest['tool_calls']:,} tool calls, {manifest['reasoning_blocks']:,} reasoning "
        f"blocks with signatures, {manifest['images']} images; JSON: "
        f"chatschema {manifest['bytes']['history.chatschema.json'] / 1e6:.1f} MB, "
        f"LangChain {manifest['bytes']['history.langchain.json'] / 1e6:.1f} MB, "
        f"OpenHands {manifest['bytes']['history.openhands.json'] / 1e6:.1f} MB.",
        plain_line(results),
        f"- Provider streams: {results.sizes.stream_events:,} text deltas of 1 to 10 "
        "characters (some non-ASCII) as each format's event dicts, cut from the recorded "
        "streams in tests/payloads ("
        + ", ".join(f"{fmt} {n:,} events" for fmt, n in manifest["stream_events"].items())
        + ").",
        f"- Streams: {results.sizes.text_chunks:,} text deltas; one tool call whose "
        f"arguments arrive in "
        + ", ".join(f"{n:,}" for n in results.sizes.tool_fragments)
        + f" fragments of {results.sizes.fragment_chars} characters.",
        "",
        "## Results",
        "",
        markdown_table(HEADER, result_rows(results)),
        "",
        "## Targets",
        "",
        markdown_table(["target", "measured", "status", "note"], verdict_rows(verdicts)),
        "",
    ]
    found = problems(results)
    if found:
        lines += ["## Problems", "", *[f"- {p}" for p in found], ""]
    if results.profiles:
        lines += [
            "## Profiles of missed targets",
            "",
            "One run of chatschema's side of each missed workload (cProfile own time, or "
            "pyinstrument when installed; `-X importtime` for the import). What earlier "
            "profiles found, and the design changes they led to, is in "
            "[bench/README.md](bench/README.md#findings).",
            "",
        ]
        for workload, text in results.profiles.items():
            lines += [f"### {workload}", ""]
            lines += [f"- {note}" for note in derived_notes(results, workload)]
            lines += ["", "```", text.rstrip(), "```", ""]
    return "\n".join(lines)


# ============================================================================== main


def parse_arguments() -> argparse.Namespace:
    """The orchestrator's command line."""
    parser = argparse.ArgumentParser(
        description="Benchmark chatschema against LangChain and OpenHands on the same inputs."
    )
    parser.add_argument("--quick", action="store_true", help="small inputs, one run each")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per workload")
    parser.add_argument("--budget", type=float, default=10.0, help="seconds per workload")
    parser.add_argument("--disable-gc", action="store_true", help="gc off while timing")
    parser.add_argument(
        "--output", type=Path, help="Markdown report (default: BENCHMARKS.md; none in --quick)"
    )
    parser.add_argument("--openhands-venv", type=Path, default=ROOT / ".venv-bench" / "openhands")
    parser.add_argument("--openhands-python", help="Python 3.12+ to build the OpenHands venv")
    bootstrap = parser.add_mutually_exclusive_group()
    bootstrap.add_argument(
        "--bootstrap",
        action="store_true",
        default=None,
        help="build the OpenHands venv if needed (default unless --quick)",
    )
    bootstrap.add_argument("--no-bootstrap", action="store_false", dest="bootstrap")
    parser.add_argument("--skip-openhands", action="store_true")
    parser.add_argument(
        "--skip-gateway", action="store_true", help="do not measure the translating gateway"
    )
    parser.add_argument("--no-profile", action="store_true", help="do not profile misses")
    parser.add_argument(
        "--high-priority",
        action="store_true",
        help="run at nice -10 (needs root), for a machine other work keeps busy",
    )
    parser.add_argument("--keep-inputs", action="store_true", help="keep the temp directory")
    return parser.parse_args()


def main() -> int:
    """Run the whole benchmark; 0 unless something crashed or a check failed."""
    if "--side" in sys.argv:
        chatschema_side()
        return 0
    arguments = parse_arguments()
    quick = arguments.quick
    sizes = w.QUICK if quick else w.FULL
    options = w.Options(
        repeats=1 if quick else arguments.repeats,
        warmup=0 if quick else 1,
        budget=arguments.budget,
        disable_gc=arguments.disable_gc,
    )
    output = arguments.output or (None if quick else ROOT / "BENCHMARKS.md")
    started = time.perf_counter()
    description = machine()
    description["priority"] = raise_priority() if arguments.high_priority else "normal (nice 0)"
    inputs = Path(tempfile.mkdtemp(prefix="chatschema-bench-"))
    try:
        log(f"writing inputs to {inputs}")
        manifest = w.write_inputs(inputs, sizes)
        sides, openhands_python = run_sides(arguments, inputs, options)
        imports, import_errors = time_imports(quick, openhands_python)
        datasets_section, datasets_crash = run_datasets(inputs, quick)
        gateway_section, gateway_verdicts, gateway_problems = (
            ("", [], [])
            if arguments.skip_gateway
            else run_gateway(quick, profile=not quick and not arguments.no_profile)
        )
        description["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
        results = Results(sides, imports, sizes, manifest, options, quick, description)
        results.import_errors = import_errors
        verdicts = [judge(results, target) for target in targets(sizes)]
        if not quick and not arguments.no_profile:
            profile_misses(results, verdicts, inputs)
        verdicts += gateway_verdicts  # gateway.py profiled its own misses
        found = show(results, verdicts)
        print(f"\n{datasets_section}")
        if datasets_crash:
            print(f"PROBLEM: datasets benchmark crashed: {datasets_crash}", file=sys.stderr)
            found.append(f"datasets benchmark crashed: {datasets_crash}")
        if gateway_section:
            print(f"\n{gateway_section}")
        for problem in gateway_problems:
            print(f"PROBLEM: {problem}", file=sys.stderr)
        found += gateway_problems
        if output is not None:
            command = "bench/run.py " + " ".join(sys.argv[1:])
            report = render(results, verdicts, command.strip()) + "\n\n" + datasets_section
            if gateway_section:
                report = report.rstrip() + "\n\n" + gateway_section
            output.write_text(report.rstrip() + "\n")
            log(f"wrote {output}")
    finally:
        if arguments.keep_inputs:
            log(f"inputs kept in {inputs}")
        else:
            shutil.rmtree(inputs, ignore_errors=True)
    log(f"finished in {time.perf_counter() - started:.0f} s")
    return 1 if found else 0


def run_datasets(inputs: Path, quick: bool) -> tuple[str, str | None]:
    """The datasets section (``datasets_bench.py``): its markdown, and a crash if any."""
    import datasets_bench

    directory = inputs / "datasets"
    directory.mkdir(exist_ok=True)
    try:
        return datasets_bench.render(datasets_bench.run(directory, quick)), None
    except Exception as error:  # reported as a problem, like a crashed side
        return "## Datasets\n\nCrashed; see the problems.\n", str(error)[-2000:]
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def run_gateway(quick: bool, profile: bool) -> tuple[str, list[Verdict], list[str]]:
    """The gateway section (``gateway.py``): its markdown, its targets, its problems.

    With ``profile``, a missed target's gateway is run once more under cProfile
    beside the pass-through, and the split of their time goes in the section.
    """
    log("gateway: against a pass-through proxy (servers in processes of their own)")
    try:
        figures = gateway_bench.run(quick, profile=profile)
    except Exception as error:  # reported as a problem, like a crashed side
        section = "## Gateway (`chatschema.gateway`)\n\nCrashed; see the problems.\n"
        return section, [], [f"gateway benchmark crashed: {str(error)[-2000:]}"]
    verdicts = [
        Verdict(
            Target(found["label"], "gateway", None, "gateway", 0.0, note=found["note"]),
            None,
            found["met"],
            found["shown"],
        )
        for found in gateway_bench.verdicts(figures)
    ]
    problems = [f"gateway: {problem}" for problem in figures["problems"]]
    return gateway_bench.render(figures, with_targets=False), verdicts, problems


def run_sides(
    arguments: argparse.Namespace, inputs: Path, options: w.Options
) -> tuple[dict[str, SideOutcome], str | None]:
    """Run every side, one after the other; also the OpenHands interpreter, if any."""
    timeout = 300.0 if arguments.quick else 1_800.0
    sides = {
        "chatschema": run_side(
            "chatschema",
            [sys.executable, __file__, "--side", "chatschema"],
            inputs,
            options,
            timeout,
        ),
        "langchain": run_side(
            "langchain",
            [sys.executable, str(BENCH / "peer_langchain.py")],
            inputs,
            options,
            timeout,
        ),
    }
    if arguments.skip_openhands:
        sides["openhands"] = SideOutcome("openhands", unavailable="skipped (--skip-openhands)")
        return sides, None
    bootstrap = not arguments.quick if arguments.bootstrap is None else arguments.bootstrap
    python, reason = ensure_openhands(
        arguments.openhands_venv, arguments.openhands_python, bootstrap
    )
    if python is None:
        log(f"openhands: unavailable: {reason}")
        sides["openhands"] = SideOutcome("openhands", unavailable=reason)
        return sides, None
    sides["openhands"] = run_side(
        "openhands",
        [python, str(BENCH / "peer_openhands.py")],
        inputs,
        options,
        timeout,
        env=OPENHANDS_ENV,
    )
    return sides, python if sides["openhands"].report else None


def time_imports(
    quick: bool, openhands_python: str | None
) -> tuple[dict[str, list[float]], dict[str, str]]:
    """Import times in fresh interpreters, and the imports that failed."""
    log("timing imports in fresh interpreters")
    runs = 1 if quick else 9
    statements = {
        "chatschema": (sys.executable, "import chatschema", runs, None),
        "langchain": (sys.executable, "import langchain_core.messages", runs, None),
        "pydantic": (sys.executable, "from pydantic import BaseModel", runs, None),
        # Names that load on first use make a bare import cheap: what a program pays
        # before it holds its first message is measured too.
        f"chatschema{FIRST_USE}": (
            sys.executable,
            "import chatschema; chatschema.parse_message({'role': 'user', 'content': 'hi'})",
            runs,
            None,
        ),
        f"langchain{FIRST_USE}": (
            sys.executable,
            "import langchain_core.messages as m;"
            " m.messages_from_dict([{'type': 'human', 'data': {'content': 'hi'}}])",
            runs,
            None,
        ),
    }
    if openhands_python and not quick:
        statements["openhands"] = (openhands_python, "import openhands.sdk.llm", 3, OPENHANDS_ENV)
    imports: dict[str, list[float]] = {}
    errors: dict[str, str] = {}
    for name, (python, statement, count, env) in statements.items():
        try:
            imports[name] = import_times(python, statement, count, env)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, ValueError) as error:
            detail = getattr(error, "stderr", "") or str(error)
            errors[name] = f"`{statement}` failed: {detail.strip().splitlines()[-1]}"
    return imports, errors


def show(results: Results, verdicts: list[Verdict]) -> list[str]:
    """Print the tables, notes and problems; returns the problems."""
    print(text_table(HEADER, result_rows(results)))
    print()
    if results.quick:
        print("(--quick: small inputs, one run each: the verdicts below mean nothing)")
    header = ["target", "measured", "status", "note"]
    print(text_table(header, verdict_rows(verdicts), numbers=False))
    for name, outcome in results.sides.items():
        if outcome.unavailable:
            print(f"\n{name}: unavailable: {outcome.unavailable}")
    warning = busy_warning(results.machine)
    if warning:
        print(f"\nWARNING: {warning}")
    found = problems(results)
    for problem in found:
        print(f"PROBLEM: {problem}", file=sys.stderr)
    return found


def profile_misses(results: Results, verdicts: list[Verdict], inputs: Path) -> None:
    """Profile chatschema's side of every missed target (each workload once)."""
    wanted: list[str] = []
    for verdict in verdicts:
        if verdict.met is not False:
            continue
        workload = verdict.target.workload
        if verdict.target.kind == "flat":
            workload = f"{workload}_{results.sizes.tool_fragments[-1]}"
        if workload not in wanted:
            wanted.append(workload)
    for workload in wanted:
        log(f"profiling {workload}")
        if workload == "import":
            results.profiles[workload] = import_profile(sys.executable, "chatschema")
            continue
        out = inputs / f"profile.{workload}.txt"
        done = subprocess.run(
            [
                sys.executable,
                __file__,
                "--side",
                "chatschema",
                "--profile",
                workload,
                "--inputs",
                str(inputs),
                "--out",
                str(out),
            ],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
            timeout=600,
        )
        results.profiles[workload] = (
            out.read_text() if done.returncode == 0 and out.exists() else done.stderr[-2000:]
        )


if __name__ == "__main__":
    sys.exit(main())
