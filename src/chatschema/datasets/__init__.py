"""Conversation datasets at scale: batch functions, JSON Lines and Parquet, many cores, Ray.

Batch functions (a pyarrow Table / RecordBatch, or a dict of column lists, in; the
same kind out, every row kept in order, a bad row never raising), usable directly as
``ray.data.Dataset.map_batches(fn, batch_format="pyarrow")`` and
``datasets.Dataset.map(fn, batched=True)`` functions:

- :func:`validate_batch`: ``valid`` and ``problems`` per row;
- :func:`convert_batch`: each row converted between formats, or its problems;
- :func:`stats_batch`: messages, tool calls, media, characters, tokens per row;
- :func:`trim_batch`: each conversation trimmed to a token budget;
- :func:`redact_batch`: opaque reasoning data and inline media taken out.

Whole datasets (``.jsonl`` or ``.parquet``, in and out), on every core of this
machine (``engine="local"``, ``jobs``) or on a Ray cluster (``engine="ray"``):
:func:`validate_dataset`, :func:`convert_dataset`, :func:`stats_dataset`,
:func:`trim_dataset`, :func:`redact_dataset`, each returning a :class:`Summary`.

pyarrow (extra ``parquet``) and Ray (extra ``ray``) are imported only when used.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from os import PathLike
from typing import Any

from chatschema.datasets._batch import (
    convert_batch,
    problems_to_dicts,
    redact_batch,
    stats_batch,
    trim_batch,
    validate_batch,
)
from chatschema.datasets._errors import DatasetError, FormatWarning, MissingExtraError
from chatschema.datasets._formats import resolve_format
from chatschema.datasets._rows import FORMATS, STATS
from chatschema.datasets._summary import PROBLEMS_KEPT, RowProblem, Summary
from chatschema.datasets._work import ChunkResult, Job
from chatschema.errors import ChatSchemaError, OptionError

__all__ = [
    "FORMATS",
    "PROBLEMS_KEPT",
    "STATS",
    "ChunkResult",
    "DatasetError",
    "FormatWarning",
    "MissingExtraError",
    "RowProblem",
    "Summary",
    "convert_batch",
    "convert_dataset",
    "problems_to_dicts",
    "redact_batch",
    "redact_dataset",
    "check_encode_options",
    "run",
    "stats_batch",
    "stats_dataset",
    "trim_batch",
    "trim_dataset",
    "validate_batch",
    "validate_dataset",
]

Paths = str | PathLike[str] | Sequence[str | PathLike[str]]


def _paths(source: Paths) -> list[str]:
    if isinstance(source, (str, PathLike)):
        return [str(source)]
    return [str(path) for path in source]


def run(
    command: str,
    inputs: Paths,
    output: str | PathLike[str] | None = None,
    *,
    options: Mapping[str, Any] | None = None,
    engine: str = "local",
    jobs: int | None = None,
    batch_size: int = 1000,
    column: str | None = None,
    input_format: str | None = None,
    output_format: str | None = None,
    on_result: Callable[[ChunkResult], None] | None = None,
    overwrite: bool = False,
    on_warning: Callable[[str], None] | None = None,
) -> Summary:
    """Run a batch function over whole datasets; write the results; summarize.

    Args:
        command: ``validate``, ``convert``, ``stats``, ``trim`` or ``redact``.
        inputs: one or more ``.jsonl`` / ``.parquet`` inputs: ``-`` for JSON Lines on
            standard input, a directory of such files (as Ray writes) in name order;
            with Ray, any path or URI Ray Data reads (globs, ``s3://``...).
        output: where to write: a ``.jsonl`` (``-``: standard output) or ``.parquet``
            file (with Ray, a directory of part files). ``None``: nothing written.
            For convert, trim and redact, JSON Lines output holds the documents
            (failed rows are reported, not written); Parquet output holds every row:
            the input's columns and the result columns (documents, ``problems``...).
            For validate and stats, JSON Lines output holds one report per row.
            A file is written whole or not at all: to a temporary file beside it,
            renamed over it when the run succeeds; a failed or interrupted run
            (``KeyboardInterrupt``) leaves the previous file as it was.
        engine: ``"local"`` (worker processes on this machine) or ``"ray"``.
        jobs: worker processes (default: every core); with Ray, the CPUs of the local
            Ray started when ``RAY_ADDRESS`` is unset.
        batch_size: rows per batch (memory per worker is about this many rows).
        column: the column holding conversations (default ``conversation``, or
            ``messages`` in a Parquet file without one). JSON Lines rows are whole lines.
        input_format: ``jsonl`` or ``parquet``, when the input names do not say.
        output_format: ``jsonl`` or ``parquet``, when the output name does not say.
        options: the batch function's keyword arguments (``source``/``target``,
            ``format``, ``max_tokens``...). The input format (``source`` for
            convert, ``format`` for the others) None or absent: detected from the
            first input (the metadata of a Parquet file chatschema wrote, else the
            first rows' shapes); ``validate`` checks the neutral form unless told.
        on_result: called with each batch's result, in input order (local engine).
        overwrite: with Ray, replace an existing output directory (else refused).
        on_warning: called with the warning when the given input format contradicts
            the first rows' shape (default: :class:`FormatWarning` via ``warnings``).

    Raises:
        DatasetError: an input or output that cannot be used (an output that is
            one of the inputs is refused before anything is opened), an input
            format that cannot be detected, or a run that failed; a file output is
            then left as it was.
        MissingExtraError: pyarrow or Ray is needed and not installed.
        OptionError: unknown formats or options.
    """
    from chatschema.datasets._batch import BATCH_FUNCTIONS
    from chatschema.datasets._io import file_format
    from chatschema.datasets._local import available_cores
    from chatschema.datasets._output import refuse_inputs

    if command not in BATCH_FUNCTIONS:
        raise DatasetError(f"unknown command {command!r}; expected one of {list(BATCH_FUNCTIONS)}")
    if batch_size < 1:
        raise DatasetError(f"batch_size must be at least 1, not {batch_size}")
    options = dict(options or {})
    key = "source" if command == "convert" else "format"
    if command == "validate":
        options.setdefault(key, "neutral")
    given = options.get(key)
    _check_options(command, {**options, key: given or "neutral"})
    paths = _paths(inputs)
    if not paths:
        raise DatasetError("no input given")
    target = None if output is None else str(output)
    out_form = None if target is None else file_format(target, output_format)
    refuse_inputs(target, paths)
    workers = max(1, jobs if jobs is not None else available_cores())
    local = _expand(paths) if engine == "local" else paths
    head_forms = [_form_of(local[0], input_format)]
    head_column = column or _head_column(local[0], head_forms[0])
    warn = on_warning or _warn
    chosen, detection = resolve_format(
        given,
        local[:1],
        head_forms,
        head_column,
        name=lambda value: f"{key}={value!r}",
        on_warning=warn,
        flag=f"{key}=",
    )
    options[key] = chosen
    encoding = options.get("target") if command == "convert" else chosen
    check_encode_options(str(encoding), options.get("options") or {})
    if engine == "ray":
        from chatschema.datasets._ray import run_ray

        summary = run_ray(
            command,
            paths,
            target,
            out_form,
            options,
            workers,
            batch_size,
            column,
            input_format,
            overwrite=overwrite,
        )
    elif engine != "local":
        raise DatasetError(f"unknown engine {engine!r}; expected 'local' or 'ray'")
    else:
        paths = local
        refuse_inputs(target, paths)
        forms = [file_format(path, input_format) if path != "-" else "jsonl" for path in paths]
        name = column or _column_of(paths, forms)
        job = Job(command, options, name, out_form)
        summary = _run_local(job, paths, forms, target, workers, batch_size, on_result)
    summary.format = chosen
    summary.detected = None if detection is None else detection.reason
    return summary


def _warn(message: str) -> None:
    warnings.warn(message, FormatWarning, stacklevel=4)


def _form_of(path: str, explicit: str | None) -> str:
    """The first input's dataset format, for detection (jsonl when it cannot be told)."""
    from chatschema.datasets._io import file_format

    if path == "-":
        return "jsonl"
    try:
        return file_format(path, explicit)
    except DatasetError:
        return "jsonl"


def _head_column(path: str, form: str) -> str:
    from chatschema.datasets._io import _parquet_file, default_column

    if form != "parquet" or not _is_file(path):
        return "conversation"
    try:
        return default_column(_parquet_file(path).schema_arrow.names, path)
    except DatasetError:
        return "conversation"


def _is_file(path: str) -> bool:
    import os

    return path != "-" and os.path.isfile(path)


def _expand(paths: Sequence[str]) -> list[str]:
    """Inputs with each directory (as Ray writes them) replaced by its data files, sorted."""
    import os

    from chatschema.datasets._io import JSONL_SUFFIXES, PARQUET_SUFFIXES

    expanded: list[str] = []
    for path in paths:
        if path != "-" and os.path.isdir(path):
            names = sorted(
                name
                for name in os.listdir(path)
                if name.lower().endswith(JSONL_SUFFIXES + PARQUET_SUFFIXES)
            )
            if not names:
                raise DatasetError(f"{path}: a directory without .jsonl or .parquet files")
            expanded.extend(os.path.join(path, name) for name in names)
        else:
            expanded.append(path)
    return expanded


def _check_options(command: str, options: Mapping[str, Any]) -> None:
    """Fail before any work on options the batch function would refuse on every row."""
    from chatschema.datasets._batch import BATCH_FUNCTIONS

    BATCH_FUNCTIONS[command]({"conversation": []}, **options)


def check_encode_options(target: str, options: Mapping[str, Any]) -> None:
    """Refuse unknown encode options and bad values of ``target`` once, up front.

    The target's codec resolves them as its ``encode`` does, on a one-message
    conversation.

    Raises:
        OptionError: an unknown name or a bad value (the codec's message).
    """
    if not options:
        return
    if target == "neutral":
        raise OptionError(f"encode options ({', '.join(options)}) make no sense for target neutral")
    from chatschema.providers import get_codec

    probe = {"messages": [{"role": "user", "content": "x"}]}
    try:
        get_codec(target).encode(probe, **options)
    except OptionError:
        raise
    except ChatSchemaError:  # a rule of the probe itself, not an option
        pass


def _column_of(inputs: Sequence[str], forms: Sequence[str]) -> str:
    from chatschema.datasets._io import _parquet_file, default_column

    for path, form in zip(inputs, forms, strict=True):
        if form == "parquet":
            return default_column(_parquet_file(path).schema_arrow.names, path)
    return "conversation"


def _chunks(
    inputs: Sequence[str], forms: Sequence[str], column: str, batch_size: int
) -> Iterator[Any]:
    from chatschema.datasets._io import read_chunks, read_jsonl_chunks

    index = 0
    for path, form in zip(inputs, forms, strict=True):
        if form == "jsonl":
            chunks = read_jsonl_chunks(path, batch_rows=batch_size, start=index)
        else:
            chunks = read_chunks(path, form, batch_rows=batch_size, column=column, start=index)
        for chunk in chunks:
            index = chunk.index + 1
            yield chunk


def _empty_chunk(inputs: Sequence[str], forms: Sequence[str]) -> Any:
    """A batch of no rows, for the schema of an empty Parquet output."""
    from chatschema.datasets._io import Chunk, _parquet_file

    if forms[0] == "parquet":
        schema = _parquet_file(inputs[0]).schema_arrow
        return Chunk(0, inputs[0], [], table=_empty_batch(schema), line_based=False)
    return Chunk(0, inputs[0], [], lines=[])


def _empty_batch(schema: Any) -> Any:
    from chatschema.datasets._arrow import pyarrow

    pa = pyarrow()
    return pa.RecordBatch.from_pylist([], schema=schema)


def _run_local(
    job: Job,
    inputs: Sequence[str],
    forms: Sequence[str],
    output: str | None,
    jobs: int,
    batch_size: int,
    on_result: Callable[[ChunkResult], None] | None,
) -> Summary:
    from chatschema.datasets._local import map_chunks
    from chatschema.datasets._output import JsonlWriter, ParquetWriter
    from chatschema.datasets._work import run_chunk

    started = time.perf_counter()
    summary = Summary(job.command, jobs=jobs, engine="local", output=output)
    writer: Any = None
    results: Iterator[ChunkResult] | None = None
    try:
        if job.output == "jsonl":
            writer = JsonlWriter(output)
        elif job.output == "parquet":
            from chatschema.datasets._arrow import pyarrow

            pyarrow()
            writer = ParquetWriter(
                str(output), column=job.output_column, format=job.document_format
            )
        results = map_chunks(job, _chunks(inputs, forms, job.column, batch_size), jobs)
        seen = False
        for result in results:
            seen = True
            _take(summary, writer, result, on_result)
        if not seen and job.output == "parquet":
            _take(summary, writer, run_chunk(job, _empty_chunk(inputs, forms)), None)
    except BaseException:  # a failure or an interruption: the previous output stays
        stop = getattr(results, "close", None)  # stop the workers now, not at garbage collection
        if stop is not None:
            stop()
        if writer is not None:
            writer.abort()
        raise
    if writer is not None:
        writer.close()
    summary.seconds = time.perf_counter() - started
    return summary


def _take(
    summary: Summary,
    writer: Any,
    result: ChunkResult,
    on_result: Callable[[ChunkResult], None] | None,
) -> None:
    summary.rows += result.rows
    summary.peak_rss_kb = max(summary.peak_rss_kb, result.peak_rss_kb)
    summary.failed += result.failed
    for position, found in result.problems:
        summary.add_problems(result.source, position, result.line_based, found)
    if result.sums:
        summary.add_sums(result.sums)
        summary.add_tokens(result.tokens)
    if writer is not None and result.output is not None:
        writer.write(result.output)
    if on_result is not None:
        on_result(result)


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"{old}= is deprecated; use {new}= (the old name goes in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )


def _inputs_of(inputs: Paths | None, settings: dict[str, Any]) -> Paths:
    """The inputs, also from the deprecated ``source=`` keyword of the paths."""
    if "source" in settings:
        _deprecated("source", "inputs")
        old = settings.pop("source")
        if inputs is None:
            inputs = old
    if inputs is None:
        raise DatasetError("no input given")
    return inputs


def validate_dataset(
    inputs: Paths | None = None,
    output: str | PathLike[str] | None = None,
    *,
    format: str = "neutral",
    type: str = "auto",
    **settings: Any,
) -> Summary:
    """Validate every row of a dataset (see :func:`run` for ``settings``).

    Each row is checked as ``format`` (``neutral``: a conversation, a list of messages
    or a message; or a provider format, decoded and checked by the provider's
    ``check``, as ``convert`` would). ``output`` gets each row with ``valid`` and
    ``problems``. Rows that look like another format get a :class:`FormatWarning`.
    """
    paths = _inputs_of(inputs, settings)
    return run("validate", paths, output, options={"format": format, "type": type}, **settings)


def convert_dataset(
    inputs: Paths | None = None,
    output: str | PathLike[str] | None = None,
    *,
    source: str | None = None,
    target: str | None = None,
    options: Mapping[str, Any] | None = None,
    source_format: str | None = None,
    target_format: str | None = None,
    **settings: Any,
) -> Summary:
    """Convert every row of a dataset from format ``source`` to format ``target``.

    ``source`` None: detected from the first input (see :func:`run`). ``options``
    are encode options of the target (``unsupported="placeholder"``...), checked
    before the first row. See :func:`run` for the output and ``settings``.
    ``source_format=`` and ``target_format=`` are deprecated names of ``source=``
    and ``target=``.
    """
    if source_format is not None:
        _deprecated("source_format", "source")
        if inputs is None and source is not None:  # the old keyword for the paths
            inputs, source = source, None
        source = source or source_format
    if target_format is not None:
        _deprecated("target_format", "target")
        target = target or target_format
    if target is None:
        raise DatasetError("convert_dataset needs target= (the format to convert to)")
    paths = _inputs_of(inputs, settings)
    settings_of_convert = {"source": source, "target": target, "options": dict(options or {})}
    return run("convert", paths, output, options=settings_of_convert, **settings)


def stats_dataset(
    inputs: Paths | None = None,
    output: str | PathLike[str] | None = None,
    *,
    format: str | None = None,
    **settings: Any,
) -> Summary:
    """Per-conversation statistics (``STATS`` columns) and their totals in the summary.

    ``format`` None: detected from the first input (see :func:`run`).
    """
    paths = _inputs_of(inputs, settings)
    return run("stats", paths, output, options={"format": format}, **settings)


def trim_dataset(
    inputs: Paths | None = None,
    output: str | PathLike[str] | None = None,
    *,
    max_tokens: int,
    format: str | None = None,
    strategy: str = "last",
    **settings: Any,
) -> Summary:
    """Trim every conversation to ``max_tokens`` approximate tokens, tool turns whole.

    ``format`` None: detected from the first input (see :func:`run`).
    """
    paths = _inputs_of(inputs, settings)
    chosen = {"max_tokens": max_tokens, "format": format, "strategy": strategy}
    return run("trim", paths, output, options=chosen, **settings)


def redact_dataset(
    inputs: Paths | None = None,
    output: str | PathLike[str] | None = None,
    *,
    format: str | None = None,
    opaque: bool = True,
    inline: bool = True,
    **settings: Any,
) -> Summary:
    """Take opaque reasoning data and/or inline base64 media out of every conversation.

    ``format`` None: detected from the first input (see :func:`run`).
    """
    paths = _inputs_of(inputs, settings)
    chosen = {"format": format, "opaque": opaque, "inline": inline}
    return run("redact", paths, output, options=chosen, **settings)
