"""The Ray engine: the same batch functions on a Ray cluster, through Ray Data.

``RAY_ADDRESS`` set: that cluster; unset: a local Ray started for the run (and shut
down after it). Inputs are read through Ray Data's datasources (``read_parquet``;
for JSON Lines, a ``FileBasedDatasource`` giving one row per non-blank line), so
every filesystem Ray supports works (``s3://``, ``gs://``, ``abfs://``, local
paths, directories, globs).
Outputs are written by a Ray Data datasink as a directory of part files, in order
(``preserve_order``), named ``<uuid>_<task>_<block>.parquet`` / ``.jsonl``.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from chatschema.datasets._arrow import pyarrow
from chatschema.datasets._arrow import ray as load_ray
from chatschema.datasets._batch import BATCH_FUNCTIONS, result_columns
from chatschema.datasets._errors import DatasetError
from chatschema.datasets._io import default_column, file_format
from chatschema.datasets._rows import STATS
from chatschema.datasets._summary import Summary
from chatschema.datasets._work import DOCUMENT_COMMANDS, Job
from chatschema.errors import Problem

__all__ = ["ray_batch", "run_ray"]

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
) -> Summary:
    """Run ``command`` over the inputs on Ray; see the module docstring."""
    ray_module = load_ray()
    data = ray_module.data

    pyarrow()
    started = time.perf_counter()
    form = file_format(paths[0], input_format)
    if any(file_format(path, input_format) != form for path in paths):
        raise DatasetError("with Ray, the inputs of one run are all JSON Lines or all Parquet")
    we_started = False
    if not ray_module.is_initialized():
        address = os.environ.get("RAY_ADDRESS") or None
        settings: dict[str, Any] = {"log_to_driver": False, "include_dashboard": False}
        if address is None:
            settings["num_cpus"] = jobs
        ray_module.init(address=address, **settings)
        we_started = True
    try:
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
        if output is None or output == "-":
            results = _collect(job, dataset, output == "-")
        else:
            sink = _sink_class()(output, job, out_form or "parquet")
            dataset.write_datasink(sink)
            results = sorted(sink.results, key=lambda r: int(r.get("task", 0)))
            _renumber(results)
        reported: list[tuple[str, int, bool, list[Problem]]] = []
        for counts in results:
            summary.rows += counts.get("rows", 0)
            summary.failed += counts.get("failed", 0)
            summary.problems += counts.get("problems", 0)
            if "sums" in counts:
                summary.add_sums(counts["sums"])
                summary.add_tokens(counts["tokens"])
            for position, row in counts.get("reported", ()):
                found = [Problem(p["pointer"], p["keyword"], p["message"]) for p in row]
                reported.append((paths[0] if len(paths) == 1 else "input", position, False, found))
        summary.reported = reported
    finally:
        if we_started:
            ray_module.shutdown()
    summary.seconds = time.perf_counter() - started
    return summary


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
    from chatschema.datasets._io import JsonlWriter

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
