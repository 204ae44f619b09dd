"""Outputs under faults: whole or not at all, never over an input, failures that say so.

Real processes (``python -m chatschema``), real signals sent to the main process,
real pyarrow and worker processes, real ``/dev/full``. A signal is sent once the run
has written its first batch to the hidden temporary file, so it lands mid-run
whatever the machine's speed; each run then stops within a few batches.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hostile import FUZZ_EXAMPLES

from chatschema.cli import main
from chatschema.datasets import ChunkResult, DatasetError, convert_dataset, validate_dataset

CONVERT = ["convert", "--from", "openai_chat", "--to", "anthropic"]
OLD = b'{"this is": "the previous output"}\n'
JOBS = ["--jobs", "2", "--batch-size", "200"]


def request(serial: int) -> str:
    """One OpenAI Chat request, as a JSON line."""
    return json.dumps(
        {
            "model": "gpt-4o",
            "messages": [
                {"role": "system", "content": "Answer in one word."},
                {"role": "user", "content": f"Question {serial}: " + "why? " * 20},
                {"role": "assistant", "content": "Because " * 10},
            ],
        }
    )


def dataset(path: Path, rows: int) -> Path:
    path.write_text("".join(request(n) + "\n" for n in range(rows)), encoding="utf-8")
    return path


def chatschema(
    *args: str, cwd: Path | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chatschema", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
        check=False,
    )


def temporaries(folder: Path) -> list[Path]:
    """The hidden temporary files of outputs in a folder."""
    return sorted(folder.glob(".*.chatschema-*.tmp"))


def parents() -> dict[int, int]:
    """Every process's parent (read from /proc)."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended meanwhile
            continue
        found[int(entry.name)] = int(fields[1])
    return found


def descendants(pid: int) -> set[int]:
    """Every process started, directly or not, by ``pid``."""
    tree = parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {child for child, parent in tree.items() if parent in frontier} - found
        found |= frontier
    return found


def wait_for_first_batch(process: subprocess.Popen[str], folder: Path) -> None:
    """Wait until the run has written into its temporary file (the run is under way)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert process.poll() is None, "the run ended before it could be interrupted"
        if any(path.stat().st_size > 0 for path in temporaries(folder) if path.exists()):
            return
        time.sleep(0.005)
    pytest.fail("the run never wrote its first batch")


@pytest.fixture
def big(tmp_path: Path) -> Path:
    """An input of 50 batches of 200 rows: a second or more of work for two workers."""
    return dataset(tmp_path / "in.jsonl", 10_000)


def ctrl_c_as_on_a_terminal() -> None:
    """In the child: SIGINT at its default, as a terminal's Ctrl-C finds it.

    A test run started in the background of a shell inherits SIGINT ignored, and so
    would the command (which then rightly runs on, as under ``nohup``).
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(source: Path, output: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "chatschema", *CONVERT, str(source), "-o", str(output), *JOBS],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONFAULTHANDLER": "1"},
        preexec_fn=ctrl_c_as_on_a_terminal,
    )


def finish(process: subprocess.Popen[str]) -> str:
    """The run's stderr once it ended; where it hung if it does not end."""
    try:
        return process.communicate(timeout=60)[1]
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGABRT)  # the fault handler prints every thread's stack
        pytest.fail("the run did not stop:\n" + process.communicate(timeout=30)[1][-8000:])


def killed(processes: set[int]) -> Iterator[int]:
    for pid in processes:
        try:
            os.kill(pid, signal.SIGKILL)
            yield pid
        except ProcessLookupError:
            pass


# ------------------------------------------------------------ outputs that are inputs


def test_an_output_that_is_an_input_is_refused_before_anything_is_opened(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = dataset(tmp_path / "a.jsonl", 2_000)
    before = source.read_bytes()
    done = chatschema("validate", str(source), "-o", str(source), "--jobs", "1")
    assert done.returncode == 2, done.stderr
    assert "the output is also an input" in done.stderr and "Traceback" not in done.stderr
    assert source.read_bytes() == before
    # another spelling, a hard link, a single document, the API: refused alike
    os.link(source, tmp_path / "link.jsonl")
    (tmp_path / "sub").mkdir()
    for spelling in (tmp_path / "sub" / ".." / "a.jsonl", tmp_path / "link.jsonl"):
        assert main(["validate", str(source), "-o", str(spelling), "-j", "1"]) == 2
        assert main([*CONVERT, str(source), "-o", str(spelling), "-j", "1"]) == 2
    single = tmp_path / "one.json"
    single.write_text(request(1), encoding="utf-8")
    assert main([*CONVERT, str(single), "-o", str(single)]) == 2
    err = capsys.readouterr().err
    assert err.count("the output is also an input") == 5
    with pytest.raises(DatasetError, match="the output is also an input"):
        validate_dataset([tmp_path / "one.json", source], tmp_path / "link.jsonl")
    assert source.read_bytes() == before and single.read_text("utf-8") == request(1)
    assert temporaries(tmp_path) == []


def test_standard_input_that_is_the_output_file_is_refused(tmp_path: Path) -> None:
    single = tmp_path / "one.json"
    single.write_text(request(1), encoding="utf-8")
    with single.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-m", "chatschema", *CONVERT, "-", "-o", str(single)],
            stdin=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2 and "also an input (standard input)" in done.stderr
    assert single.read_text("utf-8") == request(1)


# ------------------------------------------------------------- single documents


def test_a_single_document_convert_replaces_its_output_whole_or_not_at_all(
    tmp_path: Path,
) -> None:
    old = tmp_path / "old.json"
    old.write_bytes(OLD)
    old.chmod(0o640)
    bad = tmp_path / "bad.json"
    bad.write_text('{"messages": 5}', encoding="utf-8")
    done = chatschema(*CONVERT, str(bad), "-o", str(old))
    assert done.returncode == 1
    assert f"nothing converted; {old} left as it was" in done.stderr
    assert old.read_bytes() == OLD  # was: emptied
    good = tmp_path / "good.json"
    good.write_text(request(7), encoding="utf-8")
    assert main([*CONVERT, str(good), "-o", str(old)]) == 0
    assert json.loads(old.read_text("utf-8"))["system"] == "Answer in one word."
    assert old.stat().st_mode & 0o777 == 0o640  # the previous file's permissions
    # a new file gets the permissions the umask allows, as open() would give
    fresh = tmp_path / "fresh.json"
    umask = os.umask(0o027)
    try:
        assert main([*CONVERT, str(good), "-o", str(fresh)]) == 0
    finally:
        os.umask(umask)
    assert fresh.stat().st_mode & 0o777 == 0o640
    assert temporaries(tmp_path) == []


# ---------------------------------------------------------------- interruptions


@pytest.mark.parametrize(
    ("suffix", "number", "status", "previous"),
    [
        (".jsonl", signal.SIGINT, 130, True),
        (".parquet", signal.SIGINT, 130, False),
        (".jsonl", signal.SIGTERM, 143, False),
        (".parquet", signal.SIGTERM, 143, True),
    ],
    ids=["jsonl-SIGINT", "parquet-SIGINT", "jsonl-SIGTERM", "parquet-SIGTERM"],
)
def test_an_interrupted_run_leaves_the_previous_output_and_says_so(
    tmp_path: Path, big: Path, suffix: str, number: int, status: int, previous: bool
) -> None:
    output = tmp_path / f"out{suffix}"
    if previous:
        output.write_bytes(OLD)
    process = start(big, output)
    try:
        wait_for_first_batch(process, tmp_path)
        process.send_signal(number)
        err = finish(process)
    finally:
        process.kill()
    assert process.returncode == status, err
    name = "SIGINT" if number == signal.SIGINT else "SIGTERM"
    assert f"chatschema: interrupted ({name}) after " in err and "Traceback" not in err
    if previous:
        assert f"{output} left as it was" in err
        assert output.read_bytes() == OLD  # was: a valid file of the rows done so far
    else:
        assert f"{output} not written" in err
        assert not output.exists()
    assert temporaries(tmp_path) == []


def test_a_killed_run_never_leaves_a_partial_output(tmp_path: Path, big: Path) -> None:
    output = tmp_path / "out.jsonl"
    output.write_bytes(OLD)
    process = start(big, output)
    try:
        wait_for_first_batch(process, tmp_path)
        workers = descendants(process.pid)
        process.send_signal(signal.SIGKILL)
        process.communicate(timeout=60)
    finally:
        process.kill()
        list(killed(workers))  # this test's own processes, whatever else cleans them
    assert output.read_bytes() == OLD
    assert len(temporaries(tmp_path)) <= 1  # at most one hidden file, documented


def test_a_failed_run_leaves_the_previous_output(tmp_path: Path, big: Path) -> None:
    output = tmp_path / "out.parquet"
    output.write_bytes(OLD)
    process = start(big, output)
    try:
        wait_for_first_batch(process, tmp_path)
        tree = parents()
        # the workers: started by the fork server, itself started by the main process
        workers = {pid for pid in descendants(process.pid) if tree.get(pid) != process.pid}
        assert list(killed(workers))
        err = finish(process)
    finally:
        process.kill()
    assert process.returncode == 2, err
    assert "worker" in err and "Traceback" not in err
    assert output.read_bytes() == OLD  # was: a readable Parquet file of the rows done
    assert temporaries(tmp_path) == []


# Random faults: a signal to the main process or a worker at any moment of a run
# (start-up included). Two draws in make test; make fuzz draws many more.
DRAWS = max(2, FUZZ_EXAMPLES // 100)
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGKILL)


def outcome(output: Path, rows: int) -> str:
    """``old``, ``complete``, or what else the output holds (a defect)."""
    data = output.read_bytes()
    if data == OLD:
        return "old"
    lines = data.splitlines()
    if len(lines) == rows and all(json.loads(line)["messages"] for line in lines):
        return "complete"
    return f"{len(lines)} of {rows} lines"


@pytest.mark.parametrize("draw", range(DRAWS))
def test_a_fault_at_a_random_moment_leaves_the_old_output_or_a_complete_one(
    tmp_path: Path, big: Path, draw: int
) -> None:
    chance = random.Random(draw)
    sig, delay, target = chance.choice(SIGNALS), chance.uniform(0, 2.0), chance.choice("mw")
    output = tmp_path / "out.jsonl"
    output.write_bytes(OLD)
    process = start(big, output)
    tree: set[int] = set()
    try:
        time.sleep(delay)
        tree = descendants(process.pid)
        parent = parents()
        workers = [pid for pid in tree if parent.get(pid) != process.pid]
        if target == "w" and workers:
            os.kill(chance.choice(workers), sig)
        else:
            process.send_signal(sig)
        finish(process)
    finally:
        process.kill()
    assert outcome(output, 10_000) in ("old", "complete"), (sig, delay, target)
    assert len(temporaries(tmp_path)) <= (1 if sig == signal.SIGKILL else 0)
    deadline = time.monotonic() + 10
    while (left := tree & set(parents())) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not left, f"left running after {sig.name} at {delay:.2f} s: {sorted(left)}"


def interrupt_at_the_second_batch() -> Callable[[ChunkResult], None]:
    """An ``on_result`` that lets one batch through, then acts as Ctrl-C."""
    seen: list[int] = []

    def take(result: ChunkResult) -> None:
        seen.append(result.rows)
        if len(seen) == 2:
            raise KeyboardInterrupt

    return take


def test_a_run_that_fails_in_the_api_leaves_the_previous_output(tmp_path: Path) -> None:
    source = dataset(tmp_path / "in.jsonl", 300)
    for name in ("out.jsonl", "out.parquet"):
        output = tmp_path / name
        output.write_bytes(OLD)
        with pytest.raises(KeyboardInterrupt):
            convert_dataset(
                source,
                output,
                source="openai_chat",
                target="anthropic",
                jobs=1,
                batch_size=100,
                on_result=interrupt_at_the_second_batch(),
            )
        assert output.read_bytes() == OLD and temporaries(tmp_path) == []
        summary = convert_dataset(source, output, source="openai_chat", target="anthropic", jobs=1)
        assert summary.rows == 300 and temporaries(tmp_path) == []
    assert pq.read_table(tmp_path / "out.parquet").num_rows == 300
    assert len((tmp_path / "out.jsonl").read_text("utf-8").splitlines()) == 300


# ------------------------------------------------------------------- I/O failures


def test_a_full_disk_exits_2_with_a_located_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = dataset(tmp_path / "in.jsonl", 200)
    done = chatschema(*CONVERT, str(source), "-o", "/dev/full", "--output-format", "jsonl")
    assert done.returncode == 2, done.stderr  # was: exit 1 and a traceback
    assert "chatschema: /dev/full: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr
    single = tmp_path / "one.json"
    single.write_text(request(1), encoding="utf-8")
    for args in (
        [str(source), "-o", "/dev/full", "--output-format", "parquet", "-j", "1"],
        [str(single), "-o", "/dev/full"],
    ):
        assert main([*CONVERT, *args]) == 2
        assert "chatschema: /dev/full: No space left on device" in capsys.readouterr().err
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "chatschema", *CONVERT, str(source), "-j", "1"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    assert "chatschema: <stdout>: No space left on device" in done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr


def test_a_closed_standard_output_exits_2_and_a_closed_pipe_quietly(tmp_path: Path) -> None:
    source = dataset(tmp_path / "in.jsonl", 200)
    command = [sys.executable, "-m", "chatschema", *CONVERT, str(source), "-j", "1"]
    done = subprocess.run(
        ["sh", "-c", '"$@" >&-', "sh", *command],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr  # was: exit 1, AttributeError
    assert "chatschema: <stdout>: standard output is closed" in done.stderr
    # with a file output, a closed standard output is no matter
    done = subprocess.run(
        ["sh", "-c", '"$@" >&-', "sh", *command, "-o", str(tmp_path / "out.jsonl")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    dataset(source, 2_000)  # more than a pipe holds
    process = subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=0
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.read(10)
    process.stdout.close()  # as `| head` does
    err = process.stderr.read()
    assert process.wait(timeout=60) == 0
    assert "Traceback" not in err and "Exception ignored" not in err
