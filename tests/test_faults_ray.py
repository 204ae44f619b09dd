"""The Ray engine under faults, on a real local Ray: reruns, failures, signals, kills.

Each run writes into a hidden directory beside its target and moves it into place
only when complete; what a failed, interrupted or killed run leaves is never counted
by a later run, and no Ray process outlives the run.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from chatschema.datasets import DatasetError, validate_dataset
from chatschema.datasets._ray import Staging

pytest.importorskip("ray.data")

ENV = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
HOST = "".join(c if c.isalnum() or c in "_." else "_" for c in socket.gethostname()) or "host"


def write_rows(path: Path, count: int) -> None:
    with path.open("w", encoding="utf-8") as file:
        for index in range(count):
            row = {
                "messages": [
                    {"role": "user", "content": f"question {index} " + "x" * 100},
                    {"role": "assistant", "content": f"answer {index}"},
                ]
            }
            file.write(json.dumps(row) + "\n")


def parquet_rows(directory: Path) -> int:
    return sum(pq.read_metadata(part).num_rows for part in directory.glob("*.parquet"))


def hidden(directory: Path) -> list[str]:
    return sorted(entry.name for entry in directory.iterdir() if entry.name.startswith("."))


def start_time(pid: int) -> int | None:
    """The start time of a live (not zombie) process, to tell a reused PID."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_bytes().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == b"Z" else int(fields[19])


def descendants(root: int) -> dict[int, int]:
    """The processes under ``root`` now, with their start times."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_bytes().rsplit(b")", 1)[1].split()
            except OSError:
                continue
            children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: dict[int, int] = {}
    todo = [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            start = start_time(pid)
            if start is not None:
                found[pid] = start
                todo.append(pid)
    return found


def alive(seen: dict[int, int]) -> list[int]:
    return [pid for pid, start in seen.items() if start_time(pid) == start]


def wait_gone(seen: dict[int, int], seconds: float) -> float:
    """Seconds until every process of ``seen`` has ended; fails after ``seconds``."""
    began = time.monotonic()
    while alive(seen):
        if time.monotonic() - began > seconds:
            left = {pid: Path(f"/proc/{pid}/cmdline").read_bytes()[:80] for pid in alive(seen)}
            for pid in alive(seen):  # do not leave them to the next test
                os.kill(pid, signal.SIGKILL)
            raise AssertionError(f"still running {seconds} s after the driver ended: {left}")
        time.sleep(0.1)
    return time.monotonic() - began


def convert(source: Path, output: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "chatschema",
        "convert",
        "--from",
        "neutral",
        "--to",
        "anthropic",
        str(source),
        "-o",
        str(output),
        "--engine",
        "ray",
        "--jobs",
        "2",
        *extra,
    ]


def watch(driver: subprocess.Popen[bytes], seen: dict[int, int], seconds: float) -> Iterator[None]:
    """Note the driver's processes in ``seen`` until it ends (fails after ``seconds``)."""
    deadline = time.monotonic() + seconds
    while driver.poll() is None:
        assert time.monotonic() < deadline, "the Ray run did not finish in time"
        seen.update(descendants(driver.pid))
        yield
        time.sleep(0.05)


RERUN = """
import json, sys
from chatschema.cli import main
from chatschema.datasets import DatasetError, validate_dataset
from chatschema.datasets._ray import run_ray

if __name__ == "__main__":
    import ray

    source, target, missing = sys.argv[1:4]
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    args = ["convert", "--from", "neutral", "--to", "anthropic", source, "-o", target,
            "--engine", "ray", "--batch-size", "500"]
    steps = {"first": main(args), "again": main(args), "overwrite": main(args + ["--overwrite"])}
    print(json.dumps({"step": "overwrite"}), flush=True)
    input()  # the test looks at the output here
    missing_args = args[:5] + [missing] + args[6:] + ["--overwrite"]
    steps["missing"] = main(missing_args)
    try:  # an option the batch function refuses: every Ray task fails
        run_ray("validate", [source], target, "parquet", {"format": "neutral", "bogus": 1},
                2, 500, None, None, overwrite=True)
        steps["failed"] = "no error"
    except DatasetError as error:
        steps["failed"] = str(error)
    print(json.dumps(steps), flush=True)
"""


def dead_pid() -> int:
    """The PID of a process that has ended."""
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    return int(done.stdout)


def test_a_rerun_is_refused_or_replaces_the_output_and_a_failed_run_changes_nothing(
    tmp_path: Path,
) -> None:
    source, target = tmp_path / "in.jsonl", tmp_path / "out" / "converted.parquet"
    write_rows(source, 2000)
    # what a killed run leaves when nothing cleaned after it, and a run still going
    target.parent.mkdir()
    stale = target.parent / f".converted.parquet.chatschema-{HOST}-{dead_pid()}-0badcafe.tmp"
    stale.mkdir()
    (stale / "part_0.parquet").write_bytes(b"partial")
    running = target.parent / f".converted.parquet.chatschema-{HOST}-{os.getpid()}-0badcafe.tmp"
    running.mkdir()
    script = tmp_path / "rerun.py"
    script.write_text(RERUN, encoding="utf-8")
    driver = subprocess.Popen(
        [sys.executable, str(script), str(source), str(target), str(tmp_path / "gone.jsonl")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    try:
        assert driver.stdout is not None and driver.stdin is not None
        line = driver.stdout.readline()  # blocks until the three runs are done
        assert json.loads(line) == {"step": "overwrite"}, (
            driver.stderr.read() if driver.stderr else ""
        )
        replaced = sorted(part.name for part in target.iterdir())
        assert parquet_rows(target) == 2000  # replaced, not 4,000 from two runs
        assert hidden(target.parent) == [running.name]  # the dead run's is gone
        out, err = driver.communicate(b"\n", timeout=120)
    finally:
        driver.kill()
    steps = json.loads(out.splitlines()[-1])
    assert steps["first"] == 0 and steps["overwrite"] == 0
    assert steps["again"] == 2  # refused: the output exists
    assert f"{target}: the output already exists; pass --overwrite" in err.decode()
    assert steps["missing"] == 2
    assert f"{tmp_path / 'gone.jsonl'}: no such file or directory" in err.decode()
    assert steps["failed"] == (
        "the Ray job failed: TypeError: validate_batch() got an unexpected keyword "
        f"argument 'bogus'; {target} is unchanged"
    )
    # the failed runs left the last output as it was, and no temporary directory
    assert sorted(part.name for part in target.iterdir()) == replaced
    assert parquet_rows(target) == 2000
    assert hidden(target.parent) == [running.name]


def stop_when_writing(
    driver: subprocess.Popen[bytes], where: Path, how: signal.Signals
) -> dict[int, int]:
    """Send ``how`` once part files appear; the driver's processes, seen until then."""
    seen: dict[int, int] = {}
    for _ in watch(driver, seen, 120):
        temps = [entry for entry in where.iterdir() if entry.name.endswith(".tmp")]
        if temps and any(temps[0].iterdir()):  # part files are being written
            break
    assert driver.poll() is None, "the run ended before it could be stopped"
    assert len(seen) >= 5, seen  # Ray's processes were there to watch
    driver.send_signal(how)
    return seen


def test_sigterm_or_sigkill_mid_run_leaves_the_old_output_and_no_process(
    tmp_path: Path,
) -> None:
    source, target = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(source, 4000)
    target.mkdir()
    write_rows(target / "old.jsonl", 3)
    old = (target / "old.jsonl").read_bytes()
    command = convert(source, target, "--batch-size", "20", "--overwrite")

    driver = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
    try:
        seen = stop_when_writing(driver, tmp_path, signal.SIGTERM)
        _, err = driver.communicate(timeout=30)
        # the CLI turns SIGTERM into an exception: the run's own cleanup ran
        assert driver.returncode == 128 + signal.SIGTERM, err.decode()[-2000:]
        wait_gone(seen, 5)
    finally:
        driver.kill()
    assert hidden(tmp_path) == []

    driver = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=ENV
    )
    try:
        seen = stop_when_writing(driver, tmp_path, signal.SIGKILL)
        driver.wait(10)
        # Ray's two agents outlived a killed driver by a minute or more; the run's
        # watcher ends them and removes the hidden directory
        took = wait_gone(seen, 15)
    finally:
        driver.kill()
    assert hidden(tmp_path) == [], (took, hidden(tmp_path))
    assert [entry.name for entry in target.iterdir()] == ["old.jsonl"]
    assert (target / "old.jsonl").read_bytes() == old
    later = validate_dataset(target, jobs=1)  # what a later reader counts
    assert (later.rows, later.failed) == (3, 0)


def test_staging_refuses_replaces_and_cleans_only_dead_runs(tmp_path: Path) -> None:
    target = tmp_path / "out.parquet"
    target.mkdir()
    (target / "a.parquet").write_bytes(b"old")
    with pytest.raises(
        DatasetError, match=r"out\.parquet: the output already exists; pass --overwrite"
    ):
        Staging(str(target), overwrite=False).prepare()

    dead = dead_pid()
    stale = tmp_path / f".out.parquet.chatschema-{HOST}-{dead}-00000000.tmp"
    elsewhere = tmp_path / f".out.parquet.chatschema-otherhost-{dead}-00000000.tmp"
    other_target = tmp_path / f".other.parquet.chatschema-{HOST}-{dead}-00000000.tmp"
    for directory in (stale, elsewhere, other_target):
        directory.mkdir()
    staged = Staging(str(target), overwrite=True)
    staged.prepare()
    assert not stale.exists()  # its run is dead, on this host
    assert elsewhere.exists() and other_target.exists()  # not ours to judge
    Path(staged.temp, "b.parquet").write_bytes(b"new")
    staged.commit()
    assert [entry.name for entry in target.iterdir()] == ["b.parquet"]
    assert hidden(tmp_path) == sorted([elsewhere.name, other_target.name])

    # killed between the two renames: the old output is moved back
    target.rename(tmp_path / f".out.parquet.chatschema-{HOST}-{dead}-11111111.old")
    Staging(str(target), overwrite=False).clean_stale()
    assert [entry.name for entry in target.iterdir()] == ["b.parquet"]

    # a failure before the commit removes the temporary directory only
    failed = Staging(str(target), overwrite=True)
    failed.prepare()
    Path(failed.temp, "c.parquet").write_bytes(b"partial")
    failed.discard()
    assert [entry.name for entry in target.iterdir()] == ["b.parquet"]
    assert hidden(tmp_path) == sorted([elsewhere.name, other_target.name])


def test_staging_on_an_object_store_moves_the_parts(tmp_path: Path) -> None:
    """The object-store path (no directory rename), run on the local filesystem."""
    target = tmp_path / "out.jsonl"
    target.mkdir()
    (target / "old.jsonl").write_text("old\n", encoding="utf-8")
    refused = Staging(str(target), overwrite=False)
    refused.local = False
    with pytest.raises(DatasetError, match="already exists"):
        refused.prepare()
    staged = Staging(str(target), overwrite=True)
    staged.local = False
    staged.prepare()
    Path(staged.temp, "new.jsonl").write_text("new\n", encoding="utf-8")
    staged.commit()
    staged.discard()
    assert [entry.name for entry in target.iterdir()] == ["new.jsonl"]
    assert hidden(tmp_path) == []
