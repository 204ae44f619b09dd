"""The Ray engine: the same batch functions on a Ray cluster, through Ray Data.

``RAY_ADDRESS`` set: that cluster; unset: a local Ray started for the run (and shut
down after it). Inputs are read through Ray Data's datasources (``read_parquet``;
for JSON Lines, a ``FileBasedDatasource`` giving one row per non-blank line), so
every filesystem Ray supports works (``s3://``, ``gs://``, ``abfs://``, local
paths, directories, globs).
Outputs are written by a Ray Data datasink as a directory of part files, in order
(``preserve_order``), named ``<uuid>_<task>_<block>.parquet`` / ``.jsonl``.

A run writes into a hidden directory beside the target
(``.NAME.chatschema-HOST-PID-TOKEN.tmp``) and moves it into place only when every
part is written: an existing target is refused unless ``overwrite`` (then it is
replaced whole); a failed or interrupted run removes its directory and leaves the
target as it was. A watcher process started with the run (see :func:`watch_run`)
removes that directory and the local Ray's processes if the driver is killed; a
later run removes what a killed run on this host left (its PID is dead).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from chatschema.datasets._arrow import pyarrow
from chatschema.datasets._arrow import ray as load_ray
from chatschema.datasets._batch import BATCH_FUNCTIONS, result_columns
from chatschema.datasets._errors import DatasetError
from chatschema.datasets._io import default_column, file_format
from chatschema.datasets._rows import STATS
from chatschema.datasets._summary import PROBLEMS_KEPT, RowProblem, Summary
from chatschema.datasets._work import DOCUMENT_COMMANDS, Job
from chatschema.errors import ChatSchemaError, Problem

__all__ = ["Staging", "ray_batch", "run_ray", "watch_run"]

# Failed rows whose problems come back to the driver for the report (the output
# file has them all).
REPORTED = 1000
LINE_COLUMN = "line"  # the raw lines of JSON Lines input


def ray_batch(table: Any, *, command: str, column: str, lines: bool, options: Any) -> Any:
    """The batch function of ``command`` on a Ray batch (a ``pyarrow.Table``).

    With ``lines``, the input is JSON Lines as :func:`jsonl_datasource` reads them
    (one binary ``line`` column): each line is decoded as the local engine does (a
    line that is not UTF-8 is that row's problem) and the results are typed alike.
    """
    if not lines:
        return BATCH_FUNCTIONS[command](table, column=column, **options)
    from chatschema.datasets._work import to_record_batch

    values: list[str | bytes] = []
    for raw in table.column(LINE_COLUMN).to_pylist():
        try:
            values.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            values.append(raw)
    job = Job(command, dict(options), column, "parquet")
    result = BATCH_FUNCTIONS[command]({column: values}, column=column, **options)
    return pyarrow().Table.from_batches([to_record_batch(job, result)])


def jsonl_datasource(paths: Sequence[str]) -> Any:
    """A Ray Data datasource reading JSON Lines as raw lines, on any filesystem Ray reads.

    One row per non-blank line (a column ``line`` of bytes; a byte order mark and the
    line end taken off), in file order, as the local engine reads them. Ray's
    ``read_text`` is not used: it decodes whole files (one byte that is not UTF-8
    fails the run) and also splits lines at U+2028 and other separators that JSON
    strings may hold.
    """
    from ray.data.datasource import FileBasedDatasource

    class JsonLinesDatasource(FileBasedDatasource):
        def _read_stream(self, f: Any, path: str) -> Iterator[Any]:
            pa = pyarrow()
            pending = b""
            first = True
            rows: list[bytes] = []
            size = 0
            while True:
                data = f.read(8 << 20)
                if not data:
                    break
                pending += data
                *complete, pending = pending.split(b"\n")
                for raw in complete:
                    if first and raw.startswith(b"\xef\xbb\xbf"):
                        raw = raw[3:]
                    first = False
                    raw = raw.rstrip(b"\r")
                    if raw.strip():
                        rows.append(raw)
                        size += len(raw)
                if size >= 16 << 20:
                    yield pa.table({LINE_COLUMN: pa.array(rows, pa.large_binary())})
                    rows, size = [], 0
            if first and pending.startswith(b"\xef\xbb\xbf"):
                pending = pending[3:]
            pending = pending.rstrip(b"\r")
            if pending.strip():
                rows.append(pending)
            if rows:
                yield pa.table({LINE_COLUMN: pa.array(rows, pa.large_binary())})

    return JsonLinesDatasource(list(paths))


def _counts(job: Job, table: Any, start: int) -> dict[str, Any]:
    """What one block of results holds: rows, failures, stats, some problems."""
    found = table.column(job.problems_column).to_pylist()
    failed = [(start + index + 1, row) for index, row in enumerate(found) if row]
    counts: dict[str, Any] = {
        "rows": table.num_rows,
        "failed": len(failed),
        "problems": sum(len(row) for _, row in failed),
        "reported": failed[:REPORTED],
    }
    if job.command == "stats":
        columns = {name: table.column(name).to_pylist() for name in STATS}
        counts["sums"] = {name: sum(v for v in vs if v is not None) for name, vs in columns.items()}
        counts["tokens"] = [v for v in columns["tokens"] if v is not None]
    return counts


def _lines(job: Job, table: Any) -> list[str]:
    if job.command in DOCUMENT_COMMANDS:
        return [text for text in table.column(job.output_column).to_pylist() if text is not None]
    names = [name for name, _ in result_columns(job.command, job.column, job.options)]
    columns = [table.column(name).to_pylist() for name in names]
    return [
        json.dumps(dict(zip(names, values, strict=True)), ensure_ascii=False)
        for values in zip(*columns, strict=True)
    ]


def _sink_class() -> Any:
    from ray.data.datasource import BlockBasedFileDatasink

    class ResultSink(BlockBasedFileDatasink):
        """Writes result blocks as Parquet or JSON Lines part files, and counts them."""

        def __init__(self, path: str, job: Job, form: str) -> None:
            super().__init__(path, file_format=form)
            self.job = job
            self.form = form
            self.results: list[dict[str, Any]] = []

        def write_block_to_file(self, block: Any, file: Any) -> None:
            import pyarrow.parquet as pq

            table = block.to_arrow()
            if self.form == "parquet":
                metadata = dict(table.schema.metadata or {})
                metadata[b"chatschema"] = json.dumps(
                    {
                        "version": 1,
                        "column": self.job.output_column,
                        "format": self.job.document_format,
                    }
                ).encode()
                pq.write_table(table.replace_schema_metadata(metadata), file, compression="zstd")
            else:
                lines = _lines(self.job, table)
                if lines:
                    text = "\n".join(lines) + "\n"
                    file.write(text.encode("utf-8", "backslashreplace"))

        def write(self, blocks: Iterable[Any], ctx: Any) -> Any:
            from ray.data.block import BlockAccessor

            blocks = list(blocks)
            super().write(blocks, ctx)
            tables = [BlockAccessor.for_block(block).to_arrow() for block in blocks]
            pa = pyarrow()
            table = pa.concat_tables(tables) if tables else None
            counts = _counts(self.job, table, 0) if table is not None else {"rows": 0}
            counts["task"] = ctx.task_idx
            return counts

        def on_write_complete(self, write_result: Any) -> None:
            super().on_write_complete(write_result)
            self.results = [r for r in write_result.write_returns if isinstance(r, dict)]

    return ResultSink


def run_ray(
    command: str,
    paths: Sequence[str],
    output: str | None,
    out_form: str | None,
    options: Mapping[str, Any],
    jobs: int,
    batch_size: int,
    column: str | None,
    input_format: str | None,
    overwrite: bool = False,
) -> Summary:
    """Run ``command`` over the inputs on Ray; see the module docstring.

    Raises:
        DatasetError: an input that does not exist, an output that exists (without
            ``overwrite``), or a Ray job that failed (the output is then unchanged).
    """
    ray_module = load_ray()
    data = ray_module.data

    pyarrow()
    started = time.perf_counter()
    form = file_format(paths[0], input_format)
    if any(file_format(path, input_format) != form for path in paths):
        raise DatasetError("with Ray, the inputs of one run are all JSON Lines or all Parquet")
    _check_inputs(paths)
    staged = None if output is None or output == "-" else Staging(output, overwrite)
    we_started = False
    watcher: subprocess.Popen[bytes] | None = None
    try:
        if staged is not None:
            staged.prepare()
        address = os.environ.get("RAY_ADDRESS") or None
        local_ray = not ray_module.is_initialized() and address is None
        watcher = _start_watcher(local_ray, staged.local_temp if staged is not None else None)
        if not ray_module.is_initialized():
            settings: dict[str, Any] = {"log_to_driver": False, "include_dashboard": False}
            if address is None:
                settings["num_cpus"] = jobs
            with _signals_kept():
                ray_module.init(address=address, **settings)
            we_started = True
        context = data.DataContext.get_current()
        context.execution_options.preserve_order = True
        context.enable_progress_bars = False
        if form == "jsonl":
            dataset = data.read_datasource(jsonl_datasource(paths))
            name, lines = column or "conversation", True
        else:
            dataset = data.read_parquet(list(paths))
            names = dataset.schema().names
            name = column or default_column(names, paths[0])
            lines = False
        job = Job(command, dict(options), name, out_form)
        dataset = dataset.map_batches(
            ray_batch,
            batch_format="pyarrow",
            batch_size=batch_size,
            fn_kwargs={"command": command, "column": name, "lines": lines, "options": options},
        )
        summary = Summary(command, jobs=_cpus(ray_module), engine="ray", output=output)
        try:
            if staged is None:
                results = _collect(job, dataset, output == "-")
            else:
                sink = _sink_class()(staged.temp, job, out_form or "parquet")
                dataset.write_datasink(sink)
                results = sorted(sink.results, key=lambda r: int(r.get("task", 0)))
                _renumber(results)
        except (ChatSchemaError, BrokenPipeError):
            raise
        except Exception as error:  # a Ray task failed: say why in one line
            kept = "" if staged is None else f"; {output} is unchanged"
            raise DatasetError(f"the Ray job failed: {_cause(error)}{kept}") from error
        if staged is not None:
            staged.commit()
        reported: list[tuple[str, int, bool, list[Problem]]] = []
        for counts in results:
            summary.rows += counts.get("rows", 0)
            summary.failed += counts.get("failed", 0)
            summary.problem_count += counts.get("problems", 0)
            if "sums" in counts:
                summary.add_sums(counts["sums"])
                summary.add_tokens(counts["tokens"])
            for position, row in counts.get("reported", ()):
                found = [Problem(p["pointer"], p["keyword"], p["message"]) for p in row]
                reported.append((paths[0] if len(paths) == 1 else "input", position, False, found))
        summary.reported = reported
        for source, position, line_based, found in reported:
            room = PROBLEMS_KEPT - len(summary.problems)
            summary.problems.extend(
                RowProblem(source, position, problem, line_based) for problem in found[:room]
            )
    finally:
        try:
            if we_started:
                ray_module.shutdown()
        finally:
            if staged is not None:
                staged.discard()
            _stop_watcher(watcher)
    summary.seconds = time.perf_counter() - started
    return summary


@contextlib.contextmanager
def _signals_kept() -> Iterator[None]:
    """Keep the process's SIGINT and SIGTERM handlers across ``ray.init``.

    ``ray.init`` installs its own, and Ray's core then a SIGTERM handler that
    aborts the process: the caller's handler (the CLI turns SIGTERM into an
    exception, so that the cleanup runs) must stay.
    """
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    kept = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, handler in kept.items():
            if handler is not None:
                signal.signal(number, handler)


RAISED = re.compile(r"^(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*(?:Error|Exception)): (.*)$", re.M)


def _cause(error: BaseException) -> str:
    """The root cause of a Ray error, in one line without terminal colours.

    A task's exception comes back as text (its traceback, causes first), as
    ``RayTaskError``; the first exception line there is the root cause.
    """
    seen: set[int] = set()
    texts = []
    while id(error) not in seen:
        seen.add(id(error))
        texts.append(re.sub(r"\x1b\[[0-9;]*m", "", str(error)))
        inner = getattr(error, "cause", None) or error.__cause__
        if not isinstance(inner, BaseException):
            break
        error = inner
    for text in texts:
        found = RAISED.search(text)
        if found:
            return f"{found.group(1)}: {found.group(2).strip()}"
    return f"{type(error).__name__}: {(texts[-1].strip().splitlines() or [''])[0]}"


def _check_inputs(paths: Sequence[str]) -> None:
    """Fail before starting Ray on a local input that does not exist."""
    for path in paths:
        if "://" in path or any(char in path for char in "*?["):
            continue  # Ray resolves URIs and globs
        if not os.path.exists(path):
            raise DatasetError(f"{path}: no such file or directory")


# ---------------------------------------------------------------- staged output

STAGING_MARK = ".chatschema-"


def _host() -> str:
    return re.sub(r"[^A-Za-z0-9_.]", "_", socket.gethostname()) or "host"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


class Staging:
    """A run's output directory: written hidden beside the target, moved in on success.

    ``temp`` is where the part files go (a path or URI Ray writes to). Local targets
    are replaced by two renames (the old directory is moved aside, the new one into
    place, the old one deleted); on an object store (``s3://``...) the old target is
    deleted and the part files moved one by one, which is not atomic.
    """

    def __init__(self, target: str, overwrite: bool) -> None:
        self.overwrite = overwrite
        self.local = "://" not in target or target.startswith("file://")
        if target.startswith("file://"):
            target = target[len("file://") :]
        self.target = os.path.abspath(target) if self.local else target.rstrip("/")
        head, _, name = self.target.rstrip("/").rpartition("/")
        if not name:
            raise DatasetError(f"{target}: an output directory needs a name")
        self.head, self.name = head or "/", name
        self.prefix = f".{name}{STAGING_MARK}"
        token = f"{_host()}-{os.getpid()}-{secrets.token_hex(4)}"
        self.temp = f"{head}/{self.prefix}{token}.tmp"
        self.aside = f"{head}/{self.prefix}{token}.old"
        self.created = False

    @property
    def local_temp(self) -> str | None:
        """The temporary directory, when it is on this machine's filesystem."""
        return self.temp if self.local else None

    def _filesystem(self) -> tuple[Any, str]:
        from pyarrow import fs

        filesystem, path = fs.FileSystem.from_uri(self.target)
        return filesystem, path

    def _exists(self) -> bool:
        """Whether the target holds something (an empty directory holds nothing)."""
        if self.local:
            if os.path.isdir(self.target) and not os.path.islink(self.target):
                return bool(os.listdir(self.target))
            return os.path.lexists(self.target)
        from pyarrow import fs

        filesystem, path = self._filesystem()
        info = filesystem.get_file_info(path)
        if info.type == fs.FileType.NotFound:
            return False
        if info.type == fs.FileType.Directory:
            return bool(filesystem.get_file_info(fs.FileSelector(path, recursive=False)))
        return True

    def _refuse_existing(self) -> None:
        if not self.overwrite and self._exists():
            raise DatasetError(
                f"{self.target}: the output already exists; pass --overwrite "
                "(overwrite=True) to replace it"
            )

    def prepare(self) -> None:
        """Refuse an existing target without ``overwrite``; create the temporary directory."""
        self._refuse_existing()
        if self.local:
            os.makedirs(self.head, exist_ok=True)
            self.clean_stale()
            os.mkdir(self.temp)
        else:
            filesystem, path = self._filesystem()
            filesystem.create_dir(path.rpartition("/")[0] + "/" + self.temp.rpartition("/")[2])
        self.created = True

    def clean_stale(self) -> None:
        """Remove what killed runs into this target on this host left (their PID is dead)."""
        host = _host()
        for entry in os.listdir(self.head):
            if not entry.startswith(self.prefix) or not entry.endswith((".tmp", ".old")):
                continue
            parts = entry[len(self.prefix) : -4].rsplit("-", 2)
            if len(parts) != 3 or parts[0] != host or not parts[1].isdigit():
                continue
            if _pid_alive(int(parts[1])):
                continue
            path = os.path.join(self.head, entry)
            if entry.endswith(".old") and not os.path.lexists(self.target):
                os.rename(path, self.target)  # killed between the two renames: restore
            else:
                _remove(path)

    def commit(self) -> None:
        """Move the written directory into place (replacing the old one if allowed)."""
        self._refuse_existing()  # another run may have written it meanwhile
        if not self.local:
            self._commit_remote()
            return
        replaced = os.path.lexists(self.target)
        if replaced:
            os.rename(self.target, self.aside)
        try:
            os.rename(self.temp, self.target)
        except BaseException:
            if replaced:
                os.rename(self.aside, self.target)
            raise
        self.created = False
        _sync_directory(self.head)
        if replaced:
            _remove(self.aside)

    def _commit_remote(self) -> None:
        from pyarrow import fs

        filesystem, path = self._filesystem()
        temp = path.rpartition("/")[0] + "/" + self.temp.rpartition("/")[2]
        if filesystem.get_file_info(path).type == fs.FileType.Directory:
            filesystem.delete_dir(path)
        elif filesystem.get_file_info(path).type != fs.FileType.NotFound:
            filesystem.delete_file(path)
        filesystem.create_dir(path)
        for info in filesystem.get_file_info(fs.FileSelector(temp, recursive=False)):
            filesystem.move(info.path, path + "/" + info.base_name)
        filesystem.delete_dir(temp)
        self.created = False

    def discard(self) -> None:
        """Remove the temporary directory, if it is still there (a failed run)."""
        if not self.created:
            return
        self.created = False
        if self.local:
            _remove(self.temp)
            return
        try:
            filesystem, path = self._filesystem()
            filesystem.delete_dir(path.rpartition("/")[0] + "/" + self.temp.rpartition("/")[2])
        except OSError:  # best effort: a hidden leftover readers of the target never see
            pass


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)


def _sync_directory(path: str) -> None:
    """Make a rename in ``path`` durable (where directories can be opened)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


# ------------------------------------------------------------------ the watcher


def _start_watcher(local_ray: bool, temp: str | None) -> subprocess.Popen[bytes] | None:
    """A process that cleans up after this driver if it dies without doing so itself.

    Ray's processes die with the driver, except its two agents, which outlive a
    killed driver by about a minute: the watcher ends the processes started after
    it (with ``local_ray``) and removes ``temp``. It reads a pipe from the driver:
    ``done`` means all is clean; end of file, that the driver died.
    """
    if not local_ray and temp is None:
        return None
    package_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    code = (
        f"import sys; sys.path.insert(0, {package_root!r}); "
        "from chatschema.datasets._ray import watch_run; watch_run(sys.argv[1:])"
    )
    try:
        return subprocess.Popen(
            [sys.executable, "-c", code, "kill" if local_ray else "keep", temp or ""],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,  # Ctrl-C to the terminal's group must not stop it
        )
    except OSError:  # the run does not depend on it
        return None


def _stop_watcher(watcher: subprocess.Popen[bytes] | None) -> None:
    if watcher is None or watcher.stdin is None:
        return
    try:
        watcher.stdin.write(b"done")
        watcher.stdin.close()
        watcher.wait(timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        watcher.kill()


def watch_run(argv: Sequence[str]) -> None:
    """The watcher of one Ray run (``kill``/``keep``, the temporary directory or ``""``).

    Until its standard input ends, it notes every process descending from the driver
    and started after the watcher. ``done`` on standard input: the driver cleaned up,
    exit. End of input without it: the driver died; end the noted processes (with
    ``kill``: SIGTERM, SIGKILL after 2 s) and remove the temporary directory.
    """
    kill, temp = argv[0] == "kill", argv[1]
    driver = os.getppid()
    since = _start_time(os.getpid()) or 0
    seen: dict[int, int] = {}
    received = b""
    while True:
        ready, _, _ = select.select([0], [], [], 0.25)
        if ready:
            data = os.read(0, 64)
            received += data
            if received.startswith(b"done"):
                return
            if not data:
                break
        if kill:
            for pid, start in _descendants(driver).items():
                if start >= since and pid != os.getpid():
                    seen[pid] = start
    if kill:
        _end_processes(seen)
    if temp:
        _remove(temp)


def _start_time(pid: int) -> int | None:
    """A process's start time in clock ticks since boot (Linux), to tell reused PIDs."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None
    if fields[0] == b"Z":
        return None
    return int(fields[19])


def _descendants(root: int) -> dict[int, int]:
    """Every process descending from ``root`` with its start time (Linux; else none)."""
    children: dict[int, list[tuple[int, int]]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return {}
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append((int(name), int(fields[19])))
    found: dict[int, int] = {}
    todo = [root]
    while todo:
        for pid, start in children.get(todo.pop(), ()):
            if pid not in found:
                found[pid] = start
                todo.append(pid)
    return found


def _end_processes(seen: Mapping[int, int]) -> None:
    """SIGTERM the noted processes still alive (same start time), SIGKILL after 2 s."""
    deadline = time.monotonic() + 2
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = [pid for pid, start in seen.items() if _start_time(pid) == start]
        for pid in alive:
            with contextlib.suppress(OSError):
                os.kill(pid, sig)
        while sig == signal.SIGTERM and alive and time.monotonic() < deadline:
            time.sleep(0.1)
            alive = [pid for pid in alive if _start_time(pid) == seen[pid]]
        if not alive:
            return


def _renumber(results: list[dict[str, Any]]) -> None:
    """Row numbers across the part files, in order (each write counted from 0)."""
    start = 0
    for counts in results:
        counts["reported"] = [
            (start + position, row) for position, row in counts.get("reported", ())
        ]
        start += counts.get("rows", 0)


def _collect(job: Job, dataset: Any, stdout: bool) -> list[dict[str, Any]]:
    """Results streamed back to the driver, in order.

    With ``stdout``, the JSON Lines output is written to standard output here;
    otherwise only the small result columns come back.
    """
    from chatschema.datasets._output import JsonlWriter

    keep = [name for name, _ in result_columns(job.command, job.column, job.options)]
    if not stdout:
        dataset = dataset.select_columns(
            [n for n in keep if n != job.output_column or job.command not in DOCUMENT_COMMANDS]
        )
    writer = JsonlWriter(None) if stdout else None
    results, start = [], 0
    try:
        for table in dataset.iter_batches(batch_format="pyarrow"):
            counts = _counts(job, table, start)
            start += table.num_rows
            results.append(counts)
            if writer is not None:
                writer.write(_lines(job, table))
    finally:
        if writer is not None:
            writer.close()
    return results


def _cpus(ray_module: Any) -> int:
    try:
        return int(ray_module.cluster_resources().get("CPU", 0))
    except Exception:  # a cluster that does not say
        return 0
