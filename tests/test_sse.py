"""The server-sent-event parser the codecs' decode_stream share."""

from __future__ import annotations

import itertools
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatschema.errors import ConversionError
from chatschema.providers._common.sse import SSEParser, events, iter_sse

BODY = (
    'event: message_start\ndata: {"type": "message_start", "text": "caf\u00e9 \U0001f600"}\n\n'
    ": keep-alive comment\n\n"
    "event: ping\ndata: {}\n\n"
    'data: {"a": 1,\ndata:  "b": 2}\r\n\r\n'
    "data: [DONE]\n\n"
    'data: {"after": "done"}\n\n'
).encode()
EXPECTED = [
    {"type": "message_start", "text": "caf\u00e9 \U0001f600"},
    {"type": "ping"},
    {"a": 1, "b": 2},
]


def test_events_names_comments_multiline_data_and_done() -> None:
    assert list(iter_sse([BODY], provider="p")) == EXPECTED


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, len(BODY)), max_size=12))
def test_any_cut_of_the_bytes_gives_the_same_events(cuts: list[int]) -> None:
    points = [0, *sorted(cuts), len(BODY)]
    pieces = [BODY[a:b] for a, b in itertools.pairwise(points)]  # mid-line, mid-UTF-8
    assert list(iter_sse(pieces, provider="p")) == EXPECTED


def test_events_accepts_parsed_payloads_or_raw_bodies() -> None:
    assert list(events([{"x": 1}, {"y": 2}], provider="p")) == [{"x": 1}, {"y": 2}]
    assert list(events([BODY[:10], BODY[10:]], provider="p")) == EXPECTED
    lines = ['data: {"x": 1}\n\n', 'data: {"y": 2}\n\n']
    assert list(events(lines, provider="p")) == [{"x": 1}, {"y": 2}]
    assert list(events([], provider="p")) == []


def test_a_last_event_without_a_blank_line_still_counts() -> None:
    assert list(iter_sse([b'data: {"z": 3}'], provider="p")) == [{"z": 3}]


@pytest.mark.parametrize("body", [b"data: {nope}\n\n", b"data: \xff\xfe\n\n"])
def test_bad_streams_are_conversion_errors(body: bytes) -> None:
    with pytest.raises(ConversionError) as raised:
        list(iter_sse([body], provider="anthropic"))
    assert raised.value.provider == "anthropic"
    json.dumps(str(raised.value))


def test_a_long_event_in_small_pieces_is_read_in_linear_time() -> None:
    """16 MB of one event in 4 KiB pieces: joined once, not once per piece."""
    body = b'data: {"t": "' + b"x" * 16_000_000 + b'"}\n\n'
    parser = SSEParser(provider="test")
    started = time.perf_counter()
    payloads = []
    for start in range(0, len(body), 4096):
        payloads += parser.feed(body[start : start + 4096])
    elapsed = time.perf_counter() - started
    assert len(payloads) == 1 and len(payloads[0]["t"]) == 16_000_000
    assert elapsed < 5, f"{elapsed:.1f} s: the parser joins the buffer once per piece"
