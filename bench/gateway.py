"""The translating gateway against a bare pass-through proxy on the same stack.

Usage (from the repository root, with the main venv's Python)::

    .venv/bin/python bench/gateway.py              # full run (2 to 3 minutes)
    .venv/bin/python bench/gateway.py --quick      # about 10 seconds
    .venv/bin/python bench/gateway.py --output section.md --json figures.json

``bench/run.py`` calls :func:`run`, adds :func:`verdicts` to its targets table and
:func:`render`'s section to ``BENCHMARKS.md``.

Every server is a process of its own, started from this file (``--serve KIND``),
serving one Starlette application with uvicorn on 127.0.0.1:

- ``fake``: a :class:`chatschema.testing.FakeProvider` whose script answers every
  request with an assistant text of the number of words the request asks for
  (``pieces=True``: streamed a word per event);
- ``passthrough``: the floor, :func:`passthrough_app`: forwards the request's bytes
  to the same FakeProvider with one pooled ``httpx.AsyncClient`` and sends the answer
  back unchanged (a streamed one through ``aiter_raw``); it translates nothing;
- ``gateway``: ``chatschema.gateway.create_app(upstream=..., url=...)`` in front of
  the same FakeProvider.

The proxies (pass-through and gateways) are pinned to one core
(``os.sched_setaffinity``); the FakeProvider and the load generator, this process,
share the other. The load generator is a small HTTP/1.1 client on raw asyncio
streams (keep-alive connections, one per caller), so that it costs far less per
request than the servers it drives. Callers speak OpenAI Chat Completions; the
gateway forwards to an Anthropic upstream (a pair of different formats) and to an
OpenAI Chat upstream (the same format), the pass-through to the FakeProvider's
OpenAI Chat endpoint. Loads of the compared servers run in turns, a slice of each
per round, so a burst of other work on the machine falls on all of them.

CPU time of a server is read from ``/proc/PID/task/*/schedstat`` (nanoseconds), its
memory from ``/proc/PID/status`` (``VmRSS``). Every load stops by itself: a count of
requests and a time limit. Nothing here asserts on time; a request that fails or an
answer that differs from the script is a problem (``run.py`` exits 1).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import pstats
import signal
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from gateway_load import (
    Load,
    chat_body,
    chat_text,
    fixed,
    http_request,
    run_load,
    upstream_body,
)
from gateway_servers import (
    CALLER,
    CALLERS,
    CHAT_PATH,
    DIRECT,
    FULL,
    PAIRS,
    PASS,
    QUICK,
    ROOT,
    STREAM_CALLERS,
    TARGETS,
    UPSTREAM_PATH,
    Server,
    Sizes,
    direct_name,
    gateway_name,
    reply_text,
    serve,
    stop_all,
)

# ============================================================================ phases


@dataclass
class Target:
    """A server the callers load: where its requests go and which process to watch."""

    name: str
    port: int
    fmt: str
    """The format of the requests it takes."""
    measured: Server | None
    """The proxy whose CPU time is read (None for the FakeProvider alone)."""

    def request(self, words: int, *, stream: bool = False) -> bytes:
        """The fixed request of this target, bytes on the wire."""
        body = upstream_body(self.fmt, words, stream=stream)
        return http_request(self.port, UPSTREAM_PATH[self.fmt], body, self.fmt)


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def summary(load: Load, count: int) -> dict[str, Any]:
    """What the report keeps of a load."""
    done = len(load.latencies)
    return {
        "requests": done,
        "asked": count,
        "errors": len(load.errors),
        "p50": percentile(load.latencies, 0.50) if done else None,
        "p99": percentile(load.latencies, 0.99) if done else None,
        "mean": statistics.fmean(load.latencies) if done else None,
        "first_p50": percentile(load.firsts, 0.50) if done else None,
        "wall": load.wall,
        "cpu": load.cpu,
    }


async def latency_phase(
    targets: list[Target], sizes: Sizes, problems: list[str]
) -> dict[str, dict[str, Any]]:
    """Non-streamed requests, 1 then 50 callers, the targets in turns each round."""
    found: dict[str, dict[str, Any]] = {}
    for callers, per_round in ((1, sizes.single), (CALLERS, sizes.many)):
        loads = {target.name: Load() for target in targets}
        requests = {t.name: t.request(sizes.reply_words) for t in targets}
        for _ in range(sizes.rounds):
            for target in targets:
                request = requests[target.name]
                loads[target.name].extend(
                    await run_load(
                        target.port,
                        fixed(request),
                        callers,
                        per_round,
                        sizes.time_limit,
                        target.measured,
                    )
                )
        for name, load in loads.items():
            problems += [f"{name}, {callers} caller(s): {e}" for e in load.errors[:3]]
        found[str(callers)] = {
            name: summary(load, sizes.rounds * per_round) for name, load in loads.items()
        }
    return found


async def stream_phase(
    targets: list[Target], sizes: Sizes, problems: list[str]
) -> dict[str, dict[str, Any]]:
    """Streamed answers of ``stream_words`` text events, the proxies in turns."""
    loads = {target.name: Load() for target in targets}
    requests = {t.name: t.request(sizes.stream_words, stream=True) for t in targets}
    for _ in range(sizes.rounds):
        for target in targets:
            request = requests[target.name]
            loads[target.name].extend(
                await run_load(
                    target.port,
                    fixed(request),
                    STREAM_CALLERS,
                    sizes.streams,
                    sizes.time_limit,
                    target.measured,
                )
            )
    found = {}
    for name, load in loads.items():
        problems += [f"{name}, streams: {e}" for e in load.errors[:3]]
        found[name] = summary(load, sizes.rounds * sizes.streams)
        found[name]["events"] = sizes.stream_words
    return found


async def check_answers(targets: list[Target], sizes: Sizes, problems: list[str]) -> None:
    """Warm every target up; check that its answers, streamed and not, carry the script."""
    for target in targets:
        if target.fmt != CALLER:
            continue
        for stream, words in ((False, sizes.reply_words), (True, sizes.stream_words)):
            request = target.request(words, stream=stream)
            load = await run_load(
                target.port,
                fixed(request),
                4,
                sizes.warmup if not stream else max(sizes.warmup // 5, 1),
                sizes.time_limit,
                None,
                keep=True,
            )
            problems += [f"{target.name}, warm-up: {e}" for e in load.errors[:3]]
            expected = reply_text(words, "fixed")
            wrong = [body for _, body in load.bodies if chat_text(body, stream) != expected]
            if wrong:
                problems.append(
                    f"{target.name}: {len(wrong)} of {len(load.bodies)} "
                    f"{'streamed ' if stream else ''}answers differ from the script, "
                    f"e.g. {wrong[0][:300]!r}"
                )


async def memory_phase(server: Server, sizes: Sizes, problems: list[str]) -> dict[str, Any]:
    """200 concurrent streams per round through a fresh proxy: its RSS, start to end.

    Every stream asks for a text of its own (its tag first), and each answer is
    checked: no event lost, reordered or crossed between streams.
    """
    words = sizes.memory_words

    def requests(n: int) -> tuple[str, bytes]:
        tag = f"s{n}"
        body = chat_body(words, tag, stream=True)
        return tag, http_request(server.port, CHAT_PATH, body, CALLER)

    warm = await run_load(server.port, requests, 4, sizes.warmup, sizes.time_limit, None)
    problems += [f"{server.name}, memory warm-up: {e}" for e in warm.errors[:3]]
    await asyncio.sleep(0.2)
    start = server.rss_mib()
    peak = [start]
    ends = []
    bad = 0
    checked = 0

    def sample() -> None:
        peak[0] = max(peak[0], server.rss_mib())

    for _ in range(sizes.memory_rounds):  # the tags differ within a round
        load = await run_load(
            server.port,
            requests,
            sizes.memory_streams,
            sizes.memory_streams,
            sizes.time_limit,
            server,
            keep=True,
            during=sample,
        )
        problems += [f"{server.name}, concurrent streams: {e}" for e in load.errors[:3]]
        for tag, body in load.bodies:
            checked += 1
            if chat_text(body, True) != reply_text(words, tag):
                bad += 1
        await asyncio.sleep(0.1)
        ends.append(server.rss_mib())
        peak[0] = max(peak[0], ends[-1])
    if bad:
        problems.append(
            f"{server.name}: {bad} of {checked} concurrent streams lost, "
            "reordered or crossed events"
        )
    return {
        "concurrent": sizes.memory_streams,
        "start": start,
        "peak": peak[0],
        "ends": ends,
        "streams": checked,
        "bad": bad,
        "words": words,
    }


def in_process(pair: tuple[str, str], words: int, repeats: int) -> float:
    """Seconds per text event of the translation alone, no HTTP: the public codecs.

    The FakeProvider's streamed answer in the upstream's format, as the bytes of its
    frames, through ``decode_stream`` (which parses the server-sent events) and the
    caller's ``encode_stream(sse=True)``, in an event loop as the gateway runs them.
    Median of five batches of ``repeats`` streams.
    """
    from chatschema import AssistantMessage, Usage
    from chatschema.providers import get_http_codec
    from chatschema.testing import split_message

    caller, upstream = pair
    usage = Usage(input_tokens=120, output_tokens=words, total_tokens=120 + words)
    message = AssistantMessage(
        content=reply_text(words, "fixed"), usage=usage, finish_reason="stop"
    )
    frames = list(
        get_http_codec(upstream).encode_stream(split_message(message), sse=True, model="m")
    )
    decode, encode = get_http_codec(upstream).decode_stream, get_http_codec(caller).encode_stream

    async def body() -> AsyncIterator[bytes]:
        for frame in frames:
            yield frame

    async def translate() -> bytes:
        return b"".join([frame async for frame in encode(decode(body()), sse=True)])

    async def batches() -> list[float]:
        text = chat_text(await translate(), True)
        if text != message.text:
            raise RuntimeError(f"{pair}: the stream translated in process lost text")
        times = []
        for _ in range(5):
            started = time.perf_counter()
            for _ in range(repeats):
                await translate()
            times.append((time.perf_counter() - started) / (repeats * words))
        return times

    return statistics.median(asyncio.run(batches()))


# ======================================================================== the run


def _cores() -> tuple[int, int]:
    """The proxies' core, and the core of everything else."""
    cores = sorted(os.sched_getaffinity(0))
    return cores[0], cores[-1]


def _gateway_available() -> str | None:
    """Why ``chatschema.gateway.create_app`` cannot be used, or None."""
    try:
        from chatschema.gateway import create_app  # noqa: F401
    except ImportError as error:
        return f"chatschema.gateway cannot be imported: {error}"
    return None


def run(quick: bool = False, *, profile: bool = False) -> dict[str, Any]:
    """Measure everything; the figures (JSON-able). Servers are stopped on return.

    With ``profile``, a gateway that misses a target is run once more under cProfile
    and its hot spots are added (``results["profiles"]``).
    """
    sizes = QUICK if quick else FULL
    proxy_core, other_core = _cores()
    problems: list[str] = []
    results: dict[str, Any] = {
        "quick": quick,
        "sizes": sizes.__dict__,
        "callers": CALLERS,
        "stream_callers": STREAM_CALLERS,
        "cores": {"proxy": proxy_core, "others": other_core},
        "stack": {name: version(name) for name in ("uvicorn", "starlette", "httpx", "h11")},
        "python": sys.version.split()[0],
        "load_average": [round(os.getloadavg()[0], 2)],
        "problems": problems,
        "profiles": {},
    }
    missing = _gateway_available()
    if missing:
        problems.append(missing)
        return results
    affinity = os.sched_getaffinity(0)
    servers: list[Server] = []
    started = time.perf_counter()
    try:
        results["in_process"] = {
            gateway_name(*pair): in_process(pair, sizes.stream_words, 2 if quick else 20)
            for pair in PAIRS
        }
        os.sched_setaffinity(0, {other_core})
        fake = Server("FakeProvider", "fake", other_core)
        servers.append(fake)
        proxies = {PASS: Server(PASS, "passthrough", proxy_core, url=fake.url)}
        for caller, upstream in PAIRS:
            name = gateway_name(caller, upstream)
            proxies[name] = Server(name, "gateway", proxy_core, url=fake.url, upstream=upstream)
        memory = {gateway_name(*PAIRS[0]): proxies[gateway_name(*PAIRS[0])]}
        if sizes.fresh_memory:
            memory[gateway_name(*PAIRS[0])] = Server(
                f"{gateway_name(*PAIRS[0])} (memory)",
                "gateway",
                proxy_core,
                url=fake.url,
                upstream=PAIRS[0][1],
            )
        if sizes.memory_reference:
            memory[PASS] = Server(f"{PASS} (memory)", "passthrough", proxy_core, url=fake.url)
        servers += {id(s): s for s in [*proxies.values(), *memory.values()]}.values()
        for server in servers:
            server.wait_ready()
        log(f"gateway: {len(servers)} servers up in {time.perf_counter() - started:.1f} s")
        targets = [
            Target(direct_name(CALLER), fake.port, CALLER, None),
            Target(direct_name(PAIRS[0][1]), fake.port, PAIRS[0][1], None),
            *(Target(name, server.port, CALLER, server) for name, server in proxies.items()),
        ]
        asyncio.run(check_answers(targets, sizes, problems))
        log("gateway: latency, 1 and 50 callers")
        results["latency"] = asyncio.run(latency_phase(targets, sizes, problems))
        log("gateway: streams")
        proxied = [target for target in targets if target.measured is not None]
        results["streams"] = asyncio.run(stream_phase(proxied, sizes, problems))
        done = [server for server in proxies.values() if server not in memory.values()]
        for server in done:
            if "Traceback" in server.errors():
                problems.append(f"{server.name} logged errors: {server.errors()}")
        stop_all(done)
        log(f"gateway: memory, {sizes.memory_streams} concurrent streams")
        results["memory"] = {
            name: asyncio.run(memory_phase(server, sizes, problems))
            for name, server in memory.items()
        }
    except Exception as error:  # a crash is reported, the servers stopped
        problems.append(f"crashed: {type(error).__name__}: {error}")
    finally:
        for server in servers:  # errors logged while measuring (not on the way out)
            if not server.stopped and server.process.poll() is not None:
                problems.append(f"{server.name} exited early: {server.errors()}")
            elif not server.stopped and "Traceback" in server.errors():
                problems.append(f"{server.name} logged errors: {server.errors()}")
        stop_all(servers)
        os.sched_setaffinity(0, affinity)
    results["seconds"] = time.perf_counter() - started
    results["load_average"].append(round(os.getloadavg()[0], 2))
    if profile and "streams" in results:
        for pair, load in missed(results):
            log(f"profiling {gateway_name(*pair)}, {load}")
            results["profiles"][f"{gateway_name(*pair)}, {load}"] = profile_pair(pair, load, sizes)
    return results


# ========================================================================= profiles


def missed(results: dict[str, Any]) -> list[tuple[tuple[str, str], str]]:
    """The gateway pairs and loads (``requests``, ``streams``) with a missed target."""
    found = []
    for pair in PAIRS:
        name = gateway_name(*pair)
        labels = [v["label"] for v in verdicts(results) if v["met"] is False and name in v["label"]]
        if any("streamed" not in label and "RSS" not in label for label in labels):
            found.append((pair, "requests"))
        if any("streamed" in label for label in labels):
            found.append((pair, "streams"))
    return found


def profile_load(
    kind: str, upstream: str | None, load: str, sizes: Sizes
) -> tuple[pstats.Stats, int]:
    """One proxy under cProfile through a load after its warm-up; its stats, and the count.

    ``load``: ``requests`` (:data:`CALLERS` callers, non-streamed) or ``streams``. The
    profiler is switched on (SIGUSR1) after the warm-up, so first-use costs are left out.
    """
    proxy_core, other_core = _cores()
    affinity = os.sched_getaffinity(0)
    out = Path(tempfile.mkdtemp(prefix="chatschema-gateway-profile-")) / "proxy.prof"
    servers: list[Server] = []
    try:
        os.sched_setaffinity(0, {other_core})
        fake = Server("FakeProvider", "fake", other_core)
        servers.append(fake)
        proxy = Server(kind, kind, proxy_core, url=fake.url, upstream=upstream, profile=out)
        servers.append(proxy)
        fake.wait_ready()
        proxy.wait_ready()
        target = Target(proxy.name, proxy.port, CALLER, proxy)
        streamed = load == "streams"
        request = target.request(
            sizes.stream_words if streamed else sizes.reply_words, stream=streamed
        )
        callers, count = (STREAM_CALLERS, 80) if streamed else (CALLERS, 1_000)

        async def drive() -> Load:
            await run_load(proxy.port, fixed(request), callers, 100, 30.0, None)
            proxy.process.send_signal(signal.SIGUSR1)
            await asyncio.sleep(0.2)
            return await run_load(proxy.port, fixed(request), callers, count, 60.0, None)

        done = asyncio.run(drive())
        proxy.stop()
        return pstats.Stats(str(out)), len(done.latencies)
    finally:
        stop_all(servers)
        os.sched_setaffinity(0, affinity)


def profile_pair(pair: tuple[str, str], load: str, sizes: Sizes) -> str:
    """The gateway and the pass-through under cProfile, the same load: where time goes."""
    mine, count = profile_load("gateway", pair[1], load, sizes)
    floor, floor_count = profile_load("passthrough", None, load, sizes)
    streamed = load == "streams"
    per = "event" if streamed else "request"
    units = count * (sizes.stream_words if streamed else 1)
    floor_units = floor_count * (sizes.stream_words if streamed else 1)
    split, floor_split = components(mine), components(floor)
    rows = [f"{'own time per ' + per + ', us':<44} {'gateway':>10} {'pass-through':>13}"]
    for name in sorted(split, key=lambda n: split[n], reverse=True):
        rows.append(
            f"{name:<44} {1e6 * split[name] / units:10.1f} "
            f"{1e6 * floor_split.get(name, 0.0) / floor_units:13.1f}"
        )
    rows.append(
        f"{'total':<44} {1e6 * sum(split.values()) / units:10.1f} "
        f"{1e6 * sum(floor_split.values()) / floor_units:13.1f}"
    )
    what = (
        f"{count} streams of {sizes.stream_words} events, {STREAM_CALLERS} callers"
        if streamed
        else f"{count:,} requests, {CALLERS} callers"
    )
    return (
        f"{what}, after 100 untimed; cProfile own time of the proxy process, the event "
        "loop's wait in epoll left out (the profiler slows every call: compare the two "
        "columns, not these with the figures above).\n\n"
        + "\n".join(rows)
        + "\n\nThe gateway's functions with the most own time:\n\n"
        + hot_spots(mine, 25)
    )


IDLE = "<method 'poll' of 'select.epoll' objects>"
COMPONENTS = (
    ("/chatschema_models/", "chatschema (decode, encode, translate)"),
    ("/chatschema/", "chatschema (decode, encode, translate)"),
    ("/pydantic", "pydantic"),
    ("/h11/", "h11 (HTTP/1.1 parsing, server and client)"),
    ("/httpx/", "httpx, httpcore, anyio (upstream client)"),
    ("/httpcore/", "httpx, httpcore, anyio (upstream client)"),
    ("/anyio/", "httpx, httpcore, anyio (upstream client)"),
    ("/sniffio/", "httpx, httpcore, anyio (upstream client)"),
    ("/uvicorn/", "uvicorn, starlette (server)"),
    ("/starlette/", "uvicorn, starlette (server)"),
    ("/asyncio/", "asyncio, selectors, sockets"),
    ("selectors.py", "asyncio, selectors, sockets"),
    ("socket.py", "asyncio, selectors, sockets"),
    ("/json/", "json"),
    ("bench/gateway.py", "the pass-through's own code"),
)


def component(filename: str, name: str) -> str | None:
    """The part of the stack a profiled function belongs to (None: the idle wait)."""
    if filename == "~":
        if name == IDLE:
            return None
        if "pydantic_core" in name:
            return "pydantic"
        if "orjson" in name or "json" in name:
            return "json"
        if "socket" in name or "select" in name:
            return "asyncio, selectors, sockets"
        return "builtins (len, isinstance, ...)"
    for marker, part in COMPONENTS:
        if marker in filename:
            return part
    return "other"


def components(stats: pstats.Stats) -> dict[str, float]:
    """Own seconds per part of the stack."""
    split: dict[str, float] = {}
    for (filename, _, name), entry in stats.stats.items():  # type: ignore[attr-defined]
        part = component(filename, name)
        if part is not None:
            split[part] = split.get(part, 0.0) + entry[2]
    return split


def hot_spots(stats: pstats.Stats, top: int) -> str:
    """The functions with the most own time (the idle wait left out), one per line."""
    entries = {
        key: entry
        for key, entry in stats.stats.items()  # type: ignore[attr-defined]
        if component(key[0], key[2]) is not None
    }
    total = sum(entry[2] for entry in entries.values()) or 1.0
    ranked = sorted(entries.items(), key=lambda item: item[1][2], reverse=True)[:top]
    rows = [f"{'own %':>6} {'own ms':>9} {'cum ms':>9} {'calls':>8}  function"]
    for (filename, line, name), (_, calls, own, cumulative, _) in ranked:
        rows.append(
            f"{100 * own / total:6.1f} {1000 * own:9.1f} {1000 * cumulative:9.1f} {calls:8d}"
            f"  {name} ({short_path(filename)}:{line})"
        )
    return "\n".join(rows)


def short_path(filename: str) -> str:
    """A file name without this machine's directories."""
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in filename:
            return "<site-packages>/" + filename.split(marker, 1)[1]
    if filename.startswith(str(ROOT) + os.sep):
        return filename[len(str(ROOT)) + 1 :]
    if "/lib/python3" in filename:
        return "<python>/" + filename.split("/lib/python3", 1)[1].split("/", 1)[-1]
    return filename


# ======================================================================== figures


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.3f} ms"


def _us(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e6:.1f} us"


def added(results: dict[str, Any], callers: str, name: str, key: str) -> float | None:
    """Latency a proxy adds at a percentile: through it, minus straight to the fake.

    The pass-through's direct row is the caller's format; a gateway's, its upstream's.
    """
    rows = results.get("latency", {}).get(callers, {})
    direct = direct_name(name.split("->")[1] if "->" in name else CALLER)
    if rows.get(name, {}).get(key) is None or rows.get(direct, {}).get(key) is None:
        return None
    return float(rows[name][key] - rows[direct][key])


def per_core_second(results: dict[str, Any], name: str, callers: int = CALLERS) -> float | None:
    """Requests one core serves per second of its CPU time (50 callers, by default)."""
    row = results.get("latency", {}).get(str(callers), {}).get(name)
    if not row or not row["cpu"]:
        return None
    return float(row["requests"] / row["cpu"])


def per_event(results: dict[str, Any], name: str) -> float | None:
    """A proxy's CPU time per streamed event."""
    row = results.get("streams", {}).get(name)
    if not row or not row["requests"]:
        return None
    return float(row["cpu"] / (row["requests"] * row["events"]))


def verdicts(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The targets: ``{"label", "shown", "met" (None: not measured), "note"}`` each."""
    found: list[dict[str, Any]] = []

    def add(label: str, value: float | None, limit: float, shown: str, note: str = "") -> None:
        met = None if value is None else value <= limit
        found.append(
            {
                "label": label,
                "shown": shown if value is not None else "n/a",
                "met": met,
                "note": note,
            }
        )

    for pair in PAIRS:
        name = gateway_name(*pair)
        kind = "different formats" if pair[0] != pair[1] else "same format"
        for callers in ("1", str(CALLERS)):
            for key in ("p50", "p99"):
                mine, floor = added(results, callers, name, key), added(results, callers, PASS, key)
                ratio = None if mine is None or not floor else mine / floor
                add(
                    f"{name}: added latency {key}, {callers} caller(s), vs the pass-through",
                    ratio,
                    TARGETS["added_latency"],
                    f"{_ms(mine)} / {_ms(floor)} = {ratio:.2f}x (need <= 1.3x)" if ratio else "",
                    f"{kind}; added = through the proxy minus straight to the FakeProvider",
                )
        mine, floor = per_core_second(results, name), per_core_second(results, PASS)
        ratio = None if mine is None or not floor else mine / floor
        found.append(
            {
                "label": f"{name}: requests per second on one core vs the pass-through",
                "shown": f"{mine:,.0f} / {floor:,.0f} = {ratio:.2f}x (need >= 0.7x)"
                if ratio
                else "n/a",
                "met": None if ratio is None else ratio >= TARGETS["requests_per_core_second"],
                "note": f"{kind}; {CALLERS} callers, requests per CPU-second of the pinned proxy",
            }
        )
        mine, floor = per_event(results, name), per_event(results, PASS)
        cost = None if mine is None or floor is None else mine - floor
        add(
            f"{name}: translation cost per streamed event",
            cost,
            TARGETS["translation_per_event"],
            f"{_us(mine)} - {_us(floor)} = {_us(cost)} (need <= 5 us)" if cost is not None else "",
            f"{kind}; proxy CPU per text event over the pass-through's",
        )
    memory = results.get("memory", {}).get(gateway_name(*PAIRS[0]))
    streams = results["sizes"]["memory_streams"]
    growth = None if not memory else memory["peak"] - memory["start"]
    add(
        f"{gateway_name(*PAIRS[0])}: RSS growth under {streams} concurrent streams",
        growth,
        TARGETS["memory_growth"],
        f"{growth:.1f} MiB (need <= 50 MiB)" if growth is not None else "",
        "peak over the start (after a warm-up)",
    )
    kept = None if not memory else memory["ends"][-1] - memory["ends"][0]
    add(
        f"{gateway_name(*PAIRS[0])}: RSS kept after rounds of {streams} streams",
        kept,
        TARGETS["memory_kept"],
        f"{kept:+.1f} MiB (need <= 5 MiB)" if kept is not None else "",
        "after the last round over after the first: nothing kept per request",
    )
    return found


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return lines + ["| " + " | ".join(row) + " |" for row in rows]


def render(results: dict[str, Any], *, with_targets: bool = True) -> str:
    """The BENCHMARKS.md section (and its targets table, ``with_targets``)."""
    sizes = results["sizes"]
    lines = [
        "## Gateway (`chatschema.gateway`) against a pass-through proxy",
        "",
        f"Callers speak OpenAI Chat; the gateway forwards to an Anthropic upstream "
        f"(different formats) and to an OpenAI Chat one (same format), the pass-through "
        f"(Starlette, uvicorn, one pooled httpx client, bytes forwarded unchanged) to the "
        f"FakeProvider's OpenAI Chat endpoint. Each server is a process of its own; the "
        f"proxies are pinned to core {results['cores']['proxy']}, the FakeProvider and "
        f"the load generator (raw asyncio HTTP/1.1, keep-alive) to core "
        f"{results['cores']['others']}. Requests: a system prompt, four turns and a tool; "
        f"answers of {sizes['reply_words']} words, streams of {sizes['stream_words']} "
        f"text events. Python {results['python']}; "
        + ", ".join(f"{k} {v}" for k, v in results["stack"].items())
        + f". Load average before / after: {' / '.join(map(str, results['load_average']))}. "
        "Method: `bench/README.md#gateway`.",
        "",
    ]
    if results.get("quick"):
        lines += ["**Quick mode: tiny loads, one round; not for comparison.**", ""]
    latency = results.get("latency")
    if latency:
        columns = list(latency["1"])
        rows = []
        for callers in ("1", str(CALLERS)):
            for key in ("p50", "p99"):
                rows.append(
                    [f"{callers} caller(s): {key}"]
                    + [_ms(latency[callers][c][key]) for c in columns]
                )
                rows.append(
                    [f"  added {key}"]
                    + [
                        _ms(added(results, callers, c, key)) if not c.startswith(DIRECT) else ""
                        for c in columns
                    ]
                )
        many = latency[str(CALLERS)]
        rows.append(
            [f"{CALLERS} callers: requests/s"]
            + [f"{many[c]['requests'] / many[c]['wall']:,.0f}" for c in columns]
        )
        rows.append(
            ["  proxy CPU use"]
            + [
                f"{100 * many[c]['cpu'] / many[c]['wall']:.0f}%" if not c.startswith(DIRECT) else ""
                for c in columns
            ]
        )
        rows.append(
            ["  requests per CPU-second"]
            + [
                f"{per_core_second(results, c):,.0f}" if not c.startswith(DIRECT) else ""
                for c in columns
            ]
        )
        rows.append(
            ["  requests per CPU-second, 1 caller"]
            + [
                f"{per_core_second(results, c, 1):,.0f}" if not c.startswith(DIRECT) else ""
                for c in columns
            ]
        )
        streams = results.get("streams", {})
        if streams:
            rows.append(
                [f"stream of {sizes['stream_words']} events: proxy CPU per event"]
                + [_us(per_event(results, c)) if c in streams else "" for c in columns]
            )
            inside = results.get("in_process", {})
            rows.append(
                ["  in process, no HTTP: decode_stream(bytes) -> encode_stream"]
                + [_us(inside[c]) if c in inside else "" for c in columns]
            )
            rows.append(
                ["  wall per event"]
                + [
                    _us(streams[c]["p50"] / streams[c]["events"]) if c in streams else ""
                    for c in columns
                ]
            )
            rows.append(
                ["  first byte p50"]
                + [_ms(streams[c]["first_p50"]) if c in streams else "" for c in columns]
            )
        counts = [
            f"{latency['1'][c]['requests']:,} / {many[c]['requests']:,}"
            + (f" / {streams[c]['requests']:,}" if c in streams else "")
            for c in columns
        ]
        rows.append(["requests measured (1 / 50 callers / streams)", *counts])
        lines += table(["measure", *columns], rows)
        lines.append("")
    memory = results.get("memory")
    if memory:
        rows = [
            [
                name,
                f"{m['start']:.1f}",
                f"{m['peak']:.1f}",
                " / ".join(f"{end:.1f}" for end in m["ends"]),
                f"{m['streams']:,}",
                str(m["bad"]),
            ]
            for name, m in memory.items()
        ]
        lines += [
            f"Memory: rounds of {sizes['memory_streams']} concurrent streams of "
            f"{memory[next(iter(memory))]['words']} events through a fresh process (after "
            f"{sizes['warmup']} warm-up streams); each stream asks for a text of its own "
            "and is checked.",
            "",
            *table(
                [
                    "proxy",
                    "RSS start (MiB)",
                    "peak",
                    "after each round",
                    "streams",
                    "lost, reordered or crossed",
                ],
                rows,
            ),
            "",
        ]
    if with_targets:
        status = {True: "met", False: "MISSED", None: "not measured"}
        lines += table(
            ["target", "measured", "status", "note"],
            [[v["label"], v["shown"], status[v["met"]], v["note"]] for v in verdicts(results)],
        )
        lines.append("")
    for problem in results["problems"]:
        lines.append(f"- PROBLEM: {problem}")
    for name, text in results.get("profiles", {}).items():
        lines += ["", f"### Profile: {name}", "", "```", text.rstrip(), "```"]
    return "\n".join(lines).rstrip() + "\n"


# ============================================================================= main


def log(message: str) -> None:
    """Progress, on stderr."""
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def main() -> int:
    """The gateway benchmark alone, or one server (``--serve``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny loads, a few seconds")
    parser.add_argument("--output", type=Path, help="write the Markdown section here")
    parser.add_argument("--json", type=Path, help="write the figures here")
    parser.add_argument("--no-profile", action="store_true", help="do not profile misses")
    parser.add_argument(
        "--serve", choices=["fake", "passthrough", "gateway"], help=argparse.SUPPRESS
    )
    parser.add_argument("--cpu", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    parser.add_argument("--upstream", help=argparse.SUPPRESS)
    parser.add_argument("--profile", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.serve:
        serve(arguments)
        return 0
    results = run(arguments.quick, profile=not (arguments.quick or arguments.no_profile))
    section = render(results)
    print(section)
    if arguments.output:
        arguments.output.write_text(section)
    if arguments.json:
        arguments.json.write_text(json.dumps(results, indent=1))
    return 1 if results["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
