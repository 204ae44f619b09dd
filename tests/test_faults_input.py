"""Inputs and workers under faults: killed processes, replaced files, streams, long lines.

Real processes (``python -m chatschema``), real signals, real worker pools (the fork
server and the resource tracker included), real FIFOs and pyarrow. Processes are
found through ``/proc``: each run starts a session of its own, and everything it
starts stays in that session.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from chatschema import limits
from chatschema.cli import read_documents
from chatschema.datasets import DatasetError, _io, convert_dataset, validate_dataset
from chatschema.datasets._io import Chunk, LongLine, _jsonl_chunks, _jsonl_spans

LINUX = sys.platform.startswith("linux")
needs_proc = pytest.mark.skipif(not LINUX, reason="finds processes through /proc")
CONVERT = ["convert", "--from", "neutral", "--to", "anthropic"]


def row(serial: int, text: str = "") -> str:
    """One conversation, as a JSON line."""
    return json.dumps(
        {
            "messages": [
                {"role": "system", "content": "Answer in one word."},
                {"role": "user", "content": f"Question {serial}: {text}" + "why? " * 20},
                {"role": "assistant", "content": "Because " * 10},
            ]
        }
    )


def dataset(path: Path, rows: int) -> Path:
    path.write_text("".join(row(n) + "\n" for n in range(rows)), encoding="utf-8")
    return path


def chatschema(
    *args: str, stdin: bytes | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "chatschema", *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


def start(*args: str) -> subprocess.Popen[bytes]:
    """A run in a session of its own (its id is the run's pid)."""
    return subprocess.Popen(
        [sys.executable, "-m", "chatschema", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def session(sid: int) -> dict[int, tuple[int, str]]:
    """The live processes of a session: pid to (parent pid, command line)."""
    found = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{name}/cmdline") as cmdline:
                command = cmdline.read().replace("\0", " ")
        except OSError:
            continue
        if int(fields[3]) == sid and fields[0] != "Z":
            found[int(name)] = (int(fields[1]), command)
    return found


def workers(run: subprocess.Popen[bytes], count: int = 2, timeout: float = 60) -> list[int]:
    """The run's worker processes (children of its fork server), once ``count`` run."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert run.poll() is None, "the run ended before its workers started"
        members = session(run.pid)
        servers = [p for p, (_, cmd) in members.items() if "forkserver" in cmd and p != run.pid]
        found = [p for p, (parent, _) in members.items() if parent in servers]
        if len(found) >= count:
            return found
        time.sleep(0.05)
    raise AssertionError("the workers did not start")


def left_after(sid: int, seconds: float) -> dict[int, tuple[int, str]]:
    """What of a session is still alive ``seconds`` from now (as soon as nothing is)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        members = session(sid)
        if not members:
            return members
        time.sleep(0.05)
    return session(sid)


@pytest.fixture
def reap() -> Iterator[list[int]]:
    """Sessions to clean up whatever a test's outcome (kills what a failure left)."""
    sessions: list[int] = []
    yield sessions
    for sid in sessions:
        for pid in session(sid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)


# ------------------------------------------------------- workers die with their parent


@needs_proc
@pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM])
def test_no_process_outlives_a_killed_main(
    tmp_path: Path, reap: list[int], sent: signal.Signals
) -> None:
    source = dataset(tmp_path / "in.jsonl", 60_000)
    run = start(*CONVERT, str(source), "-o", str(tmp_path / "out.jsonl"), "--jobs", "2")
    reap.append(run.pid)
    workers(run)
    assert len(session(run.pid)) >= 5  # main, resource tracker, fork server, 2 workers
    os.kill(run.pid, sent)
    run.wait(timeout=30)
    assert left_after(run.pid, 3) == {}


# --------------------------------------------------- a dead worker's message names why


@needs_proc
def test_a_killed_worker_is_named_with_its_signal(tmp_path: Path, reap: list[int]) -> None:
    source = dataset(tmp_path / "in.jsonl", 60_000)
    run = start(*CONVERT, str(source), "-o", str(tmp_path / "out.jsonl"), "--jobs", "2")
    reap.append(run.pid)
    os.kill(workers(run)[0], signal.SIGKILL)
    _, err = run.communicate(timeout=60)
    message = err.decode()
    assert run.returncode == 2, message
    assert "a worker process was killed by signal 9 (SIGKILL)" in message
    assert "out-of-memory" in message
    assert "__name__" not in message
    assert "Traceback" not in message
    assert left_after(run.pid, 3) == {}


def test_a_worker_dying_at_start_up_names_the_missing_main_guard(tmp_path: Path) -> None:
    source = dataset(tmp_path / "in.jsonl", 100)
    script = tmp_path / "unguarded.py"  # workers import it, and run it again
    script.write_text(
        "from chatschema.datasets import validate_dataset\n"
        f"validate_dataset({str(source)!r}, jobs=2, batch_size=10)\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()
    assert any("exited with status 1 before finishing any batch" in line for line in last)
    assert "if __name__ == '__main__':" in done.stderr


# ---------------------------------------------------------------- inputs read once


@needs_proc
def test_workers_read_the_file_the_main_process_opened(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    original = [row(n) for n in range(30)]
    path.write_text("".join(line + "\n" for line in original), encoding="utf-8")
    chunks = _jsonl_spans(str(path), 10, 1 << 20, 0)
    first = next(chunks)
    replacement = tmp_path / "new.jsonl"
    replacement.write_text('{"other": "file"}\n' * 40, encoding="utf-8")
    os.replace(replacement, path)
    rest = list(chunks)
    got: list[str | bytes | object] = []
    for chunk in [first, *rest]:
        shipped = pickle.loads(pickle.dumps(chunk))  # as a worker receives it
        assert shipped.held is None
        shipped.load()
        got.extend(shipped.lines or [])
    assert got == original  # through /proc/<pid>/fd: the very file the main process opened


def test_a_file_rewritten_in_place_fails_the_batch_clearly(tmp_path: Path) -> None:
    path = dataset(tmp_path / "in.jsonl", 30)
    chunks = _jsonl_spans(str(path), 10, 1 << 20, 0)
    first, second = next(chunks), next(chunks)
    shipped = pickle.loads(pickle.dumps(second))
    with open(path, "r+b") as stream:  # same inode, other bytes
        stream.write(b'{"x": 1}\n' * 100)
    with pytest.raises(DatasetError, match=r"changed during the run .* after line 10 is"):
        shipped.load()
    with pytest.raises(DatasetError, match="changed during the run"):
        list(chunks)
    assert len(first) == 0  # not loaded: the main process ships spans, not rows


@needs_proc
def test_an_input_replaced_mid_run_gives_the_original_rows(tmp_path: Path, reap: list[int]) -> None:
    source, out = dataset(tmp_path / "in.jsonl", 20_000), tmp_path / "out.jsonl"
    run = start("validate", str(source), "-o", str(out), "--jobs", "2", "--batch-size", "200")
    reap.append(run.pid)
    workers(run)
    other = tmp_path / "other.jsonl"
    other.write_text('{"not": "a conversation"}\n' * 25_000, encoding="utf-8")
    os.replace(other, source)
    assert run.poll() is None, "the run ended before the input was replaced"
    _, err = run.communicate(timeout=120)
    assert run.returncode == 0, err.decode()
    reports = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [report["line"] for report in reports] == list(range(1, 20_001))
    assert all(report["valid"] for report in reports)


@needs_proc
def test_an_input_rewritten_mid_run_fails_with_exit_2(tmp_path: Path, reap: list[int]) -> None:
    source = dataset(tmp_path / "in.jsonl", 20_000)
    out = tmp_path / "out.jsonl"
    run = start(*CONVERT, str(source), "-o", str(out), "--jobs", "2", "--batch-size", "200")
    reap.append(run.pid)
    workers(run)
    source.write_text('{"not": "a conversation"}\n' * 25_000, encoding="utf-8")
    assert run.poll() is None, "the run ended before the input was rewritten"
    _, err = run.communicate(timeout=120)
    message = err.decode()
    assert run.returncode == 2, message
    assert f"{source} changed during the run (replaced, rewritten or removed)" in message
    assert "Traceback" not in message


# ------------------------------------------------------------------ FIFOs are streams


def _feed(fifo: Path, data: bytes) -> threading.Thread:
    def write() -> None:
        with open(fifo, "wb") as stream:
            stream.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    return writer


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_read_once_as_a_stream(tmp_path: Path) -> None:
    fifo = tmp_path / "in.jsonl"
    os.mkfifo(fifo)
    lines = [row(n) for n in range(500)] + ["{broken"]
    writer = _feed(fifo, "".join(line + "\n" for line in lines).encode())
    out = tmp_path / "out.jsonl"
    done = chatschema(
        *CONVERT, str(fifo), "-o", str(out), "--jobs", "2", "--batch-size", "50", timeout=30
    )
    writer.join(timeout=5)
    assert done.returncode == 1, done.stderr
    assert len(out.read_text(encoding="utf-8").splitlines()) == 500
    assert f"{fifo}:501: (root): not valid JSON".encode() in done.stderr


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_parquet_fifo_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "in.parquet"
    os.mkfifo(fifo)
    done = chatschema("validate", str(fifo), timeout=30)
    assert done.returncode == 2
    assert b"Parquet is read from a file" in done.stderr


# ------------------------------------------------------------ a maximum line length


def _long_input(path: Path) -> list[str]:
    """Rows 1, 3 short; row 2 three megabytes (in one piece: no newline inside)."""
    short = [row(1), row(3)]
    path.write_bytes((short[0] + "\n" + row(2, "x" * 3_000_000) + "\n" + short[1] + "\n").encode())
    return short


def test_a_line_beyond_the_limit_is_reported_and_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(limits, "MAX_LINE_BYTES", 64 * 1024)
    source = tmp_path / "in.jsonl"
    short = _long_input(source)
    for jobs in (1, 2):
        report = tmp_path / f"report{jobs}.jsonl"
        summary = validate_dataset(source, report, jobs=jobs, batch_size=1)
        assert (summary.rows, summary.failed) == (3, 1)
        rows = [json.loads(line) for line in report.read_text(encoding="utf-8").splitlines()]
        assert [(r["line"], r["valid"]) for r in rows] == [(1, True), (2, False), (3, True)]
        (problem,) = rows[1]["problems"]
        assert problem["keyword"] == "maxLength"
        assert (
            "more than the limit of 65,536 (chatschema.limits.MAX_LINE_BYTES)"
            in (problem["message"])
        )
        out = tmp_path / f"out{jobs}.jsonl"
        convert_dataset(source, out, source="neutral", target="neutral", jobs=jobs)
        assert len(out.read_text(encoding="utf-8").splitlines()) == 2
    # the same through the command line's reader, and through a stream
    documents = list(read_documents(str(source), None))
    assert [(d.line, d.keyword, d.value is None) for d in documents] == [
        (1, "json", False),
        (2, "maxLength", True),
        (3, "json", False),
    ]
    assert [json.dumps(d.value) for d in documents if d.value] == [
        json.dumps(json.loads(line)) for line in short
    ]


def _rows_of(chunks: Iterator[Chunk]) -> list[tuple[int, object]]:
    found: list[tuple[int, object]] = []
    for chunk in chunks:
        chunk.load()
        found.extend(zip(chunk.positions, chunk.lines or [], strict=True))
    return found


@pytest.mark.parametrize("read_size", [5, 64, 8 << 20])
def test_files_and_streams_cut_long_lines_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_size: int
) -> None:
    """Random lines around the limit, read in small pieces: the same rows either way."""
    monkeypatch.setattr(_io, "READ_SIZE", read_size)
    chance = random.Random(read_size)
    path = tmp_path / "in.jsonl"
    for case in range(60):
        limit = chance.choice([1, 8, 16, 17])
        lengths = [chance.choice([0, 1, limit - 1, limit, limit + 1, 3 * limit]) for _ in range(8)]
        lines = [b'"' + b"x" * max(n - 2, 0) + b'"' if n >= 2 else b"1" * n for n in lengths]
        ending = chance.choice([b"\n", b"\r\n"])
        data = ending.join(lines) + chance.choice([b"", ending])
        path.write_bytes(data)
        spans = _rows_of(_jsonl_spans(str(path), 3, 1 << 20, 0, limit))
        streamed = _rows_of(_jsonl_chunks(str(path), 3, 1 << 20, 0, limit))  # as a FIFO is
        assert spans == streamed, (case, data, limit)
        expected: list[tuple[int, object]] = []
        for number, line in enumerate(data.split(b"\n"), 1):
            size = len(line)
            if size > limit:
                expected.append((number, LongLine(size, limit)))
            elif line.strip():
                expected.append((number, line.rstrip(b"\r").decode()))
        assert spans == expected, (case, data, limit)


LOWERED = (
    "import sys; import chatschema.limits as limits; limits.MAX_LINE_BYTES = 65536; "
    "from chatschema.cli import main; "
    "import resource; status = main(sys.argv[1:]); "
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr); "
    "sys.exit(status)"
)


def _peak_kb(stderr: bytes) -> int:
    return int(stderr.decode().strip().splitlines()[-1])


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("how", ["stdin", "file"])
def test_input_without_newlines_stays_in_bounded_memory(tmp_path: Path, how: str) -> None:
    size = 400 * 1024 * 1024
    if how == "stdin":  # read_documents, the command line's reader of standard input
        command = f"head -c {size} /dev/zero | {sys.executable} -c '{LOWERED}' validate -"
    else:  # the dataset engine: a sparse file of zeros, no newline
        zeros = tmp_path / "zeros.jsonl"
        with open(zeros, "wb") as stream:
            stream.truncate(size)
        command = f"{sys.executable} -c '{LOWERED}' validate {zeros} --jobs 1"
    done = subprocess.run(command, shell=True, capture_output=True, timeout=120, check=False)
    assert done.returncode == 1, done.stderr
    assert b"[maxLength]" in done.stdout
    if how == "stdin":  # one line and nothing after it: read as one document
        assert b"a document longer than the limit of 65,536 bytes" in done.stdout
    else:
        assert f"a line of {size:,} bytes, more than the limit of 65,536".encode() in done.stdout
    assert _peak_kb(done.stderr) < 200 * 1024  # the line is 400 MiB


def test_a_stream_line_beyond_the_limit_is_skipped_to_its_newline(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    _long_input(source)
    data = source.read_bytes()
    size = len(data.split(b"\n")[1])
    for args in (["validate", "-"], ["validate", "--type", "jsonl", "-"]):
        done = subprocess.run(
            [sys.executable, "-c", LOWERED, *args],
            input=data,
            capture_output=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 1
        assert done.stdout.decode().splitlines() == [
            f"<stdin>:2: (root): a line of {size:,} bytes, more than the limit of 65,536 "
            "(chatschema.limits.MAX_LINE_BYTES); skipped [maxLength]"
        ]


def test_the_line_limit_is_an_option_of_the_command(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    _long_input(source)
    size = len(source.read_bytes().split(b"\n")[1])
    for extra in ([], ["--jobs", "2", "--batch-size", "1"]):
        done = chatschema("validate", *extra, "--max-line-bytes", "65536", str(source))
        assert done.returncode == 1
        assert done.stdout.decode().splitlines() == [
            f"{source}:2: (root): a line of {size:,} bytes, more than the limit of 65,536 "
            "(chatschema.limits.MAX_LINE_BYTES); skipped [maxLength]"
        ]
    assert chatschema("validate", str(source)).returncode == 0  # the default holds it
    refused = chatschema("validate", "--max-line-bytes", "0", str(source))
    assert refused.returncode == 2
    assert b"expected a whole number above 0, not '0'" in refused.stderr


# ------------------------------------------------------ standard input is read as a path

VARIANTS = {
    "bom": b"\xef\xbb\xbf" + (row(0) + "\n" + row(1) + "\n").encode(),
    "invalid utf-8": (row(0) + "\n").encode() + b'{"messages": "caf\xe9"}\n' + row(2).encode(),
    "both": b"\xef\xbb\xbf" + (row(0) + "\n").encode() + b"\xff\xfe\n" + (row(2) + "\n").encode(),
    "invalid utf-8 on line 1": b'{"messages": "\xe9"}\n' + (row(1) + "\n").encode(),
}


def _verdicts(done: subprocess.CompletedProcess[bytes]) -> tuple[int, list[tuple[int, str]]]:
    reports = [json.loads(line) for line in done.stdout.decode().splitlines()]
    problems = [(r["line"], r["keyword"]) for r in reports if "summary" not in r]
    return done.returncode, problems


@pytest.mark.parametrize("variant", list(VARIANTS))
def test_standard_input_and_a_path_give_the_same_verdicts(tmp_path: Path, variant: str) -> None:
    data = VARIANTS[variant]
    for name in ("in.jsonl", "in.json"):  # the dataset engine; the document reader
        (tmp_path / name).write_bytes(data)
    expect = _verdicts(chatschema("validate", "--format", "json", str(tmp_path / "in.jsonl")))
    bad_line = 1 if variant.endswith("line 1") else 2
    assert expect == ((0, []) if variant == "bom" else (1, [(bad_line, "json")]))
    assert _verdicts(chatschema("validate", "--format", "json", str(tmp_path / "in.json"))) == (
        expect
    )
    assert _verdicts(chatschema("validate", "--format", "json", "-", stdin=data)) == expect

    converted = chatschema(*CONVERT, str(tmp_path / "in.jsonl"))
    piped = chatschema(*CONVERT, "-", stdin=data)
    assert piped.returncode == converted.returncode == expect[0]
    assert piped.stdout.splitlines() == converted.stdout.splitlines()
    assert b"\xe9" not in piped.stdout and b"\xff" not in piped.stdout
    failed = [int(line.split(b":")[1]) for line in piped.stderr.splitlines() if b"UTF-8" in line]
    assert failed == [line for line, _ in expect[1]]


def test_the_dataset_engine_reads_standard_input_as_a_path(tmp_path: Path) -> None:
    data = VARIANTS["both"]
    path = tmp_path / "in.jsonl"
    path.write_bytes(data)
    script = (
        "import sys, json; from chatschema.datasets import validate_dataset; "
        "validate_dataset(sys.argv[1], sys.argv[2], jobs=1)"
    )
    runs: list[list[dict[str, object]]] = []
    for source, stdin in ((str(path), None), ("-", data)):
        out = tmp_path / f"out{len(runs)}.jsonl"
        subprocess.run(
            [sys.executable, "-c", script, source, str(out)],
            input=stdin,
            check=True,
            timeout=120,
        )
        runs.append([json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()])
    assert runs[0] == runs[1]
    assert [(r["line"], r["valid"]) for r in runs[0]] == [(1, True), (2, False), (3, True)]


# --------------------------------------------------------- a corrupt Parquet data page


def test_a_corrupt_parquet_page_is_an_io_error_naming_the_row_group(tmp_path: Path) -> None:
    path = tmp_path / "in.parquet"
    table = pa.table({"conversation": [row(n) for n in range(2000)]})
    pq.write_table(table, path, row_group_size=1000, compression="zstd", use_dictionary=False)
    column = pq.ParquetFile(path).metadata.row_group(1).column(0)
    written = path.read_bytes()
    for eighth in range(1, 8):  # a flip pyarrow notices (not every byte of a page is checked)
        data = bytearray(written)
        start = column.data_page_offset + column.total_compressed_size * eighth // 8
        for at in range(start, start + 16):
            data[at] ^= 0xFF
        path.write_bytes(bytes(data))
        try:
            pq.read_table(path)
        except OSError:
            break
    else:
        pytest.fail("no corruption of the page was noticed by pyarrow")
    done = chatschema("validate", str(path), "--jobs", "1")
    message = done.stderr.decode()
    assert done.returncode == 2, message
    assert f"{path}: row group 1 (rows 1,001 to 2,000) cannot be read" in message
    assert "Traceback" not in message
