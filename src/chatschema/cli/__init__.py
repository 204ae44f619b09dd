"""The ``chatschema`` command (also ``python -m chatschema``).

    chatschema validate [--type T] [--provider P] [--format text|json] PATH... | -
    chatschema convert [--from F] --to F [--option NAME=VALUE ...] [PATH | -]
    chatschema stats [--provider P] PATH...
    chatschema --version
    (datasets, .jsonl / .parquet: -o PATH, --jobs N, --engine local|ray)
    chatschema schema [TYPE] [--bundle]
    chatschema demo

Exit status: 0 valid (or done), 1 invalid input, 2 usage or I/O error, 130 interrupted
(Ctrl-C), 143 terminated (SIGTERM). Problems are reported with file, line and JSON
pointer (the whole document's pointer, the empty one, is written ``(root)``), never
with a traceback. A file output is written whole or not at all.

Without ``--from`` (convert) or ``--provider`` (stats), the input's format is
detected from its first rows (or a Parquet file's metadata); a given format the rows
contradict gets one ``warning:`` line on stderr.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import IO, Any

from chatschema._detect import Detection, detect_rows
from chatschema._json import dumps
from chatschema.cli._exit import (
    ClosedOutput,
    Interrupted,
    UsageError,
    fate,
    flush_stdout,
    interruption,
    on_sigterm,
    rows_text,
    settle_stdout,
    state_of,
    write_line,
)
from chatschema.cli._read import Document, read_documents
from chatschema.errors import ChatSchemaError, OptionError, Problem
from chatschema.providers._codec import HTTP_PROVIDERS, PROVIDERS

__all__ = ["main", "read_documents"]

FORMATS = ("neutral", *PROVIDERS)
DOCUMENT_TYPES = ("auto", "Message", "messages", "Conversation", "jsonl")
ROOT = "(root)"
"""How text output writes the empty JSON pointer, the whole document (RFC 6901)."""
HEAD_ROWS = 100
"""The rows format detection reads, at most."""


def _pointer(pointer: str) -> str:
    return pointer or ROOT


def _warn(message: str) -> None:
    write_line(f"warning: {message}", file=sys.stderr)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("chatschema")
    except PackageNotFoundError:  # run from a source tree
        from chatschema import __version__

        return __version__


# ------------------------------------------------------------------ input format


def _dataset_format(
    args: argparse.Namespace, path: str, given: str | None, flag: str, name: Any
) -> tuple[str, Detection | None]:
    """The format of a dataset input: given (checked against its head), or detected."""
    from chatschema.datasets import DatasetError, _expand
    from chatschema.datasets._formats import resolve_format
    from chatschema.datasets._io import file_format

    try:
        if os.path.isdir(path):  # a directory of part files, as Ray writes: its first file
            path = _expand([path])[0]
        form = file_format(path, args.input_format)
        column = args.column
        if column is None and form == "parquet":
            from chatschema.datasets import _head_column

            column = _head_column(path, form)
        return resolve_format(
            given, [path], [form], column or "conversation", name=name, on_warning=_warn, flag=flag
        )
    except DatasetError as error:
        raise UsageError(str(error)) from None


def _document_format(
    head: list[Document], given: str | None, flag: str, name: Any
) -> tuple[str, Detection | None]:
    """The format of single documents or stdin: given (checked), or detected from the head."""
    from chatschema.datasets import DatasetError
    from chatschema.datasets._formats import choose

    kept = [document for document in head if document.error is None]
    found, number = detect_rows([document.value for document in kept], limit=HEAD_ROWS)
    where = "the input"
    if number:
        document = kept[number - 1]
        where = f"{_where(document.source, document.line, True)}"
    try:
        return choose(given, found, where, name=name, on_warning=_warn, flag=flag)
    except DatasetError as error:
        raise UsageError(str(error)) from None


def _note(chosen: str, found: Detection | None, flag: str) -> None:
    """Say which format was detected (nothing when it was given)."""
    if found is not None:
        write_line(
            f"chatschema: reading the input as {chosen} (detected: {found.reason}; "
            f"{flag} overrides)",
            file=sys.stderr,
        )


def _head(documents: Any) -> tuple[list[Document], Any]:
    """The first documents (read for detection) and an iterator over all of them."""
    import itertools

    head = list(itertools.islice(documents, HEAD_ROWS))
    return head, itertools.chain(head, documents)


# ---------------------------------------------------------------------- validate


@dataclass
class Tally:
    """What validation found so far."""

    documents: int = 0
    invalid: int = 0
    problems: int = 0
    sources: set[str] = field(default_factory=set)


def _check(document: Document, requested: str, provider: str | None) -> list[Problem]:
    from chatschema.datasets._rows import validate_row

    if document.error is not None:
        return [Problem("", document.keyword, document.error)]
    return validate_row(document.value, provider or "neutral", requested)


def _internal(error: Exception) -> str:
    """An unexpected exception, as one line for a report (a bug in chatschema)."""
    reason = str(error).splitlines()[0][:200] if str(error) else ""
    return (
        f"chatschema failed on this document ({type(error).__name__}: {reason}); please report it"
    )


class _Progress:
    """A one-line progress report on a terminal (stderr); silent otherwise."""

    def __init__(self, enabled: bool, verb: str = "validated", failed: str = "invalid") -> None:
        self.enabled = enabled
        self.verb = verb
        self.failed = failed
        self.shown = 0.0
        self.started = time.monotonic()

    def update(self, tally: Tally, force: bool = False, fraction: float | None = None) -> None:
        now = time.monotonic()
        if self.enabled and (force or now - self.shown > 0.2):
            self.shown = now
            line = f"\r{self.verb} {tally.documents:,} documents, {tally.invalid:,} {self.failed}"
            if fraction is not None:
                width = 24
                filled = min(width, int(fraction * width))
                rate = tally.documents / max(now - self.started, 1e-9)
                line += f" [{'#' * filled}{'.' * (width - filled)}] {fraction:4.0%} {rate:,.0f}/s"
            sys.stderr.write(line + "\033[K")
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")


# ---------------------------------------------------------------------- datasets


def _is_dataset(path: str, args: argparse.Namespace) -> bool:
    """Whether an input goes through the dataset engine (batches, --jobs, Parquet)."""
    if path == "-":
        return False
    if getattr(args, "input_format", None) or getattr(args, "type", None) == "jsonl":
        return True
    return path.lower().endswith((".jsonl", ".ndjson", ".parquet", ".pq"))


def _where(source: str, position: int, line_based: bool) -> str:
    return f"{source}:{position}" if line_based else f"{source}:row {position}"


def _run_dataset(
    args: argparse.Namespace,
    command: str,
    paths: Sequence[str],
    output: str | None,
    options: dict[str, Any],
    tally: Tally,
    on_problem: Any,
    progress: _Progress,
) -> Any:
    """Run a dataset command through chatschema.datasets; problems go to ``on_problem``."""
    from chatschema.datasets import DatasetError, MissingExtraError, run

    before = state_of(output)

    def take(result: Any) -> None:
        tally.documents += result.rows
        tally.invalid += result.failed
        tally.sources.add(result.source)
        if result.problems:
            progress.done()
        for position, problems in result.problems:
            tally.problems += len(problems)
            on_problem(result.source, position, result.line_based, problems)
        progress.update(tally, fraction=result.progress)

    try:
        summary = run(
            command,
            list(paths),
            output,
            options=options,
            engine=args.engine,
            jobs=args.jobs or None,
            batch_size=args.batch_size,
            column=args.column,
            input_format=args.input_format,
            output_format=args.output_format,
            on_result=take,
            overwrite=args.overwrite,
            on_warning=lambda message: None,  # the command checked the format itself
        )
    except KeyboardInterrupt as error:
        progress.done()
        how, status = interruption(error)
        if args.engine != "ray":  # Ray's results come back at the end only
            how += f" after {rows_text(tally.documents)} were done (the rest were not)"
        left = fate(output, before)
        raise Interrupted(f"{how}; {left}" if left else how, status) from None
    except (DatasetError, MissingExtraError, OptionError) as error:
        progress.done()
        message, left = str(error), fate(output, before)
        if tally.documents and left:  # a run that failed part way
            message += f" ({rows_text(tally.documents)} done; {left})"
        raise UsageError(message) from None
    progress.done()
    if args.engine == "ray":  # results were not streamed back batch by batch
        tally.documents += summary.rows
        tally.invalid += summary.failed
        tally.problems += summary.problem_count
        for source, position, line_based, problems in summary.reported:
            on_problem(source, position, line_based, problems)
    return summary


def _speed(summary: Any) -> str:
    unit = ("job" if summary.jobs == 1 else "jobs") if summary.engine == "local" else "CPUs on Ray"
    return (
        f"{summary.rows:,} rows in {summary.seconds:.2f} s, "
        f"{summary.rows_per_second:,.0f} rows/s, {summary.jobs} {unit}"
    )


def validate_command(args: argparse.Namespace) -> int:
    """``chatschema validate``."""
    tally = Tally()
    progress = _Progress(sys.stderr.isatty() and args.format == "text")
    jsonl = True if args.type == "jsonl" else None
    datasets = [path for path in args.paths if _is_dataset(path, args)]
    if args.output is not None and len(datasets) != len(args.paths):
        raise UsageError("-o/--output takes datasets only (.jsonl, .parquet)")
    speeds = []

    def on_problem(source: str, position: int, line_based: bool, problems: list[Problem]) -> None:
        document = Document(source, position)
        for problem in problems:
            _report(args.format, document, problem, line_based)

    def name(given: str) -> str:
        if args.provider:
            return f"--provider {given}"
        return "no --provider: checked as the neutral form"

    given = args.provider or "neutral"
    if datasets:
        _dataset_format(args, datasets[0], given, "--provider", name)
    options = {"format": given, "type": args.type}
    if args.output is not None:
        summary = _run_dataset(
            args, "validate", datasets, args.output, options, tally, on_problem, progress
        )
        speeds.append(summary)
    else:
        for path in args.paths:
            if path in datasets:
                summary = _run_dataset(
                    args, "validate", [path], None, options, tally, on_problem, progress
                )
                speeds.append(summary)
                continue
            head, documents = _head(read_documents(path, jsonl))
            _document_format(head, given, "--provider", name)
            for document in documents:
                tally.documents += 1
                tally.sources.add(document.source)
                problems = _check(document, args.type, args.provider)
                if problems:
                    tally.invalid += 1
                    tally.problems += len(problems)
                    progress.done()
                    for problem in problems:
                        _report(args.format, document, problem)
                progress.update(tally)
    progress.done()
    summary_line = (
        f"{tally.documents} document{'s' * (tally.documents != 1)} checked, "
        f"{tally.invalid} invalid, {tally.problems} problem{'s' * (tally.problems != 1)}"
    )
    if args.format == "json":
        write_line(
            json.dumps(
                {
                    "summary": {
                        "documents": tally.documents,
                        "invalid": tally.invalid,
                        "problems": tally.problems,
                    }
                }
            )
        )
    else:
        if speeds:
            summary_line += " (" + "; ".join(_speed(summary) for summary in speeds) + ")"
        print(summary_line, file=sys.stderr)
    return 1 if tally.invalid else 0


def _report(form: str, document: Document, problem: Problem, line_based: bool = True) -> None:
    if form == "json":
        write_line(
            json.dumps(
                {
                    "file": document.source,
                    "line" if line_based else "row": document.line,
                    "pointer": problem.pointer,
                    "keyword": problem.keyword,
                    "message": problem.message,
                },
                ensure_ascii=False,
            )
        )
    else:
        pointer = _pointer(problem.pointer)
        where = _where(document.source, document.line, line_based)
        write_line(f"{where}: {pointer}: {problem.message} [{problem.keyword}]")


# ----------------------------------------------------------------------- convert


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--option takes NAME=VALUE, not {pair!r}")
        lowered = value.lower()
        typed: Any = True if lowered == "true" else False if lowered == "false" else value
        if value.isdigit():  # a count (max_inline_chars=1000)
            typed = int(value)
        options[name] = typed
    return options


def _source_name(given: str) -> str:
    return f"--from {given}"


def _check_encode(target: str, options: dict[str, Any]) -> None:
    """An unknown option or a bad value: one usage error before the first row."""
    from chatschema.datasets import check_encode_options

    try:
        check_encode_options(target, options)
    except OptionError as error:
        raise UsageError(f"--option: {error}") from None


def convert_command(args: argparse.Namespace) -> int:
    """``chatschema convert``."""
    options = _options(args.option)
    _check_encode(args.target, options)
    if _is_dataset(args.path, args):
        args.source, detected = _dataset_format(
            args, args.path, args.source, "--from", _source_name
        )
        _note(args.source, detected, "--from")
        return _convert_dataset(args, options)
    from chatschema.datasets import DatasetError
    from chatschema.datasets._output import OutputFile, refuse_inputs
    from chatschema.providers import convert

    if args.output is None or args.output == "-":
        return _convert_documents(args, options, convert, None)[0]
    before = state_of(args.output)
    try:
        refuse_inputs(args.output, [args.path])
        output = OutputFile(args.output)
    except DatasetError as error:
        raise UsageError(str(error)) from None
    try:
        status, written = _convert_documents(args, options, convert, output.stream)
    except KeyboardInterrupt as error:
        output.discard()
        how, code = interruption(error)
        raise Interrupted(f"{how}; {fate(args.output, before)}", code) from None
    except BrokenPipeError:
        output.discard()
        raise
    except OSError as error:  # a full disk, a device that refuses the write
        output.discard()
        raise UsageError(f"{args.output}: {error.strerror or error}") from None
    except BaseException:
        output.discard()
        raise
    if status and not written:  # the previous output is worth more than an empty one
        output.discard()
        write_line(f"chatschema: nothing converted; {fate(args.output, before)}", file=sys.stderr)
        return status
    try:
        output.commit()
    except DatasetError as error:
        raise UsageError(str(error)) from None
    return status


def _convert_documents(
    args: argparse.Namespace, options: dict[str, Any], convert: Any, out: IO[str] | None
) -> tuple[int, int]:
    """Convert each document of the input; the exit status and the documents written."""
    from chatschema.datasets._rows import not_a_conversation

    status = 0
    first: Any = None  # held back: a lone document is printed indented
    count = written = 0
    head, documents = _head(read_documents(args.path, None))
    source, detected = _document_format(head, args.source, "--from", _source_name)
    _note(source, detected, "--from")
    for document in documents:
        count += 1
        if document.error is not None:
            write_line(f"{document.source}:{document.line}: {document.error}", file=sys.stderr)
            status = 1
            continue
        wrong = not_a_conversation(document.value) if source == "neutral" else None
        if wrong is not None:
            write_line(
                f"{document.source}:{document.line}: {ROOT}: {wrong.message} [{wrong.keyword}]",
                file=sys.stderr,
            )
            status = 1
            continue
        try:
            result = convert(document.value, source=source, target=args.target, **options)
        except ChatSchemaError as error:
            write_line(f"{document.source}:{document.line}: {error}", file=sys.stderr)
            status = 1
            continue
        except Exception as error:  # a chatschema bug: reported, never a traceback
            write_line(f"{document.source}:{document.line}: {_internal(error)}", file=sys.stderr)
            status = 1
            continue
        if count == 1:
            first = result
            continue
        if first is not None:
            write_line(dumps(first), file=out)
            first, written = None, written + 1
        write_line(dumps(result), file=out)
        written += 1
    if first is not None:
        write_line(dumps(first, indent=2 if count == 1 else None), file=out)
        written += 1
    return status, written


def _convert_dataset(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """``chatschema convert`` over a dataset: batches, --jobs, JSON Lines or Parquet."""
    tally = Tally()
    progress = _Progress(sys.stderr.isatty(), "converted", "failed")

    def on_problem(source: str, position: int, line_based: bool, problems: list[Problem]) -> None:
        where = _where(source, position, line_based)
        for problem in problems:
            pointer = _pointer(problem.pointer)
            write_line(
                f"{where}: {pointer}: {problem.message} [{problem.keyword}]", file=sys.stderr
            )

    chosen = {"source": args.source, "target": args.target, "options": options}
    output = "-" if args.output is None else args.output
    summary = _run_dataset(
        args, "convert", [args.path], output, chosen, tally, on_problem, progress
    )
    print(
        f"{tally.documents:,} rows, {tally.documents - tally.invalid:,} converted, "
        f"{tally.invalid:,} failed ({_speed(summary)})",
        file=sys.stderr,
    )
    return 1 if tally.invalid else 0


# ------------------------------------------------------------------------- stats


def stats_command(args: argparse.Namespace) -> int:
    """``chatschema stats``."""
    tally = Tally()
    progress = _Progress(sys.stderr.isatty(), "analysed", "unreadable")
    for path in args.paths:
        if not _is_dataset(path, args):
            raise UsageError(f"{path}: stats reads datasets (.jsonl, .parquet)")

    def on_problem(source: str, position: int, line_based: bool, problems: list[Problem]) -> None:
        where = _where(source, position, line_based)
        for problem in problems:
            pointer = _pointer(problem.pointer)
            write_line(
                f"{where}: {pointer}: {problem.message} [{problem.keyword}]", file=sys.stderr
            )

    chosen, detected = _dataset_format(
        args, args.paths[0], args.provider, "--provider", lambda given: f"--provider {given}"
    )
    _note(chosen, detected, "--provider")
    options = {"format": chosen}
    summary = _run_dataset(
        args, "stats", args.paths, args.output, options, tally, on_problem, progress
    )
    data = summary.as_dict()
    if args.format == "json":
        write_line(json.dumps(data))
    else:
        totals, tokens = data["totals"], data["tokens"]
        rows = max(summary.ok, 1)
        write_line(f"rows               {summary.rows:>14,}   ({summary.failed:,} unreadable)")
        for name, value in totals.items():
            write_line(f"{name:<18} {value:>14,}   mean {value / rows:>12,.1f}")
        write_line(
            f"tokens per row     p50 {tokens['p50']:,}  p90 {tokens['p90']:,}  "
            f"p99 {tokens['p99']:,}  max {tokens['max']:,}"
        )
    print(_speed(summary), file=sys.stderr)
    return 1 if summary.failed else 0


# ------------------------------------------------------------------------ schema


def _bundle() -> dict[str, Any]:
    path = resources.files("chatschema_models") / "schemas" / "chatschema.schema.json"
    bundle: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return bundle


def schema_command(args: argparse.Namespace) -> int:
    """``chatschema schema``."""
    bundle = _bundle()
    if args.bundle:
        write_line(json.dumps(bundle, indent=2, ensure_ascii=False))
        return 0
    if args.type is None:
        write_line("Types (chatschema schema TYPE prints one as a self-contained schema):")
        for name in sorted(bundle["$defs"]):
            write_line(f"  {name}")
        return 0
    if args.type not in bundle["$defs"]:
        raise UsageError(f"unknown type {args.type!r}; `chatschema schema` lists the types")
    single = dict(bundle)
    single["$ref"] = f"#/$defs/{args.type}"
    single["title"] = args.type
    single["description"] = bundle["$defs"][args.type].get("description", "")
    single.pop("$id", None)
    write_line(json.dumps(single, indent=2, ensure_ascii=False))
    return 0


def demo_command(args: argparse.Namespace) -> int:
    """``chatschema demo``."""
    from chatschema.demo import main as demo

    demo()
    return 0


def serve_command(args: argparse.Namespace) -> int:
    """``chatschema serve``: the translating gateway under uvicorn."""
    try:
        import uvicorn

        from chatschema.gateway import create_app, endpoints
    except ImportError as error:
        raise UsageError(f"{error} (pip install 'chatschema[gateway]')") from None
    try:
        app = create_app(
            args.upstream,
            args.url,
            pass_key=args.pass_key,
            model=args.model,
            max_tokens=args.max_tokens,
            unsupported=args.unsupported,
            unsupported_settings=args.unsupported_settings,
            reasoning=args.reasoning,
            connect_timeout=args.connect_timeout,
            read_timeout=args.read_timeout,
            region=args.region,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(levelname)-9s %(name)s: %(message)s"))
    gateway_log = logging.getLogger("chatschema.gateway")
    gateway_log.addHandler(handler)
    gateway_log.setLevel(args.log_level.upper())
    write_line(f"chatschema gateway on http://{args.host}:{args.port}, upstream {args.upstream}:")
    for line in endpoints(args.upstream, args.url):
        write_line(f"  {line}")
    sys.stdout.flush()
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


# -------------------------------------------------------------------------- main


def _positive(text: str) -> int:
    """An argument that must be a whole number above 0."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number above 0, not {text!r}")
    return value


def _dataset_options(parser: argparse.ArgumentParser, output: str) -> None:
    group = parser.add_argument_group("datasets (.jsonl, .parquet)")
    group.add_argument("-o", "--output", metavar="PATH", help=f"write {output}")
    group.add_argument(
        "--jobs",
        "-j",
        type=int,
        default=0,
        metavar="N",
        help="worker processes (default: every core); the output is the same for any N",
    )
    group.add_argument(
        "--engine",
        choices=("local", "ray"),
        default="local",
        help="local processes, or Ray (the cluster at RAY_ADDRESS, else a local Ray)",
    )
    group.add_argument(
        "--input-format", choices=("jsonl", "parquet"), help="when the extension does not say"
    )
    group.add_argument(
        "--output-format", choices=("jsonl", "parquet"), help="when the extension does not say"
    )
    group.add_argument(
        "--column", help="the column holding conversations (default: conversation, or messages)"
    )
    group.add_argument(
        "--batch-size", type=int, default=1000, metavar="ROWS", help="rows per batch"
    )
    group.add_argument(
        "--max-line-bytes",
        type=_positive,
        metavar="BYTES",
        help="longer JSON Lines rows are reported, not read (default: "
        "chatschema.limits.MAX_LINE_BYTES, 272 MiB)",
    )
    group.add_argument(
        "--overwrite",
        action="store_true",
        help="with --engine ray, replace an existing output directory (else refused)",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chatschema",
        description="Validate, convert and describe LLM conversation data.",
    )
    parser.add_argument(
        "--version", action="version", version=f"chatschema {_version()}", help="print the version"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    validate = commands.add_parser(
        "validate",
        help="check messages, conversations or JSONL datasets",
        description="Check documents against the chatschema model; every problem is "
        "printed with file, line and JSON pointer. Exit 0 valid, 1 invalid, 2 error.",
    )
    validate.add_argument("paths", nargs="+", metavar="PATH", help="files, or - for stdin")
    validate.add_argument(
        "--type",
        choices=DOCUMENT_TYPES,
        default="auto",
        help="what each document is (default: detected)",
    )
    validate.add_argument(
        "--provider",
        choices=FORMATS[1:],
        help="the documents are in this provider's format: decoded, then checked by the "
        "provider's rules (those convert applies)",
    )
    validate.add_argument(
        "--format",
        choices=("text", "json"),
        default="text",
        help="text for people, json (one object per line) for machines",
    )
    _dataset_options(validate, "each row with `valid` and `problems` (.parquet or .jsonl)")
    validate.set_defaults(run=validate_command)

    convert = commands.add_parser(
        "convert",
        help="convert between the neutral form and provider formats",
        description="Convert a document or JSON Lines between formats. A single document "
        "is printed indented, JSON Lines one document per line.",
    )
    convert.add_argument(
        "path", nargs="?", default="-", metavar="PATH", help="input file (default: stdin)"
    )
    convert.add_argument(
        "--from",
        dest="source",
        choices=FORMATS,
        help="the input's format (default: detected from the first rows)",
    )
    convert.add_argument("--to", dest="target", choices=FORMATS, required=True)
    convert.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an encode option for the target, e.g. unsupported=placeholder",
    )
    _dataset_options(
        convert, "the converted documents (.jsonl; .parquet: every row, with problems)"
    )
    convert.set_defaults(run=convert_command)

    stats = commands.add_parser(
        "stats",
        help="per-conversation statistics of a dataset",
        description="Count messages, tool calls, media, characters and tokens of every "
        "conversation in JSONL or Parquet datasets; print totals and token percentiles.",
    )
    stats.add_argument("paths", nargs="+", metavar="PATH", help=".jsonl or .parquet datasets")
    stats.add_argument(
        "--provider",
        choices=FORMATS[1:],
        help="the conversations are in this provider's format (default: detected)",
    )
    stats.add_argument("--format", choices=("text", "json"), default="text")
    _dataset_options(stats, "each row with its statistics (.parquet or .jsonl)")
    stats.set_defaults(run=stats_command)

    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of a type",
        description="Print a type's schema (self-contained), the "
        "bundled schema, or the list of types.",
    )
    schema.add_argument("type", nargs="?", metavar="TYPE")
    schema.add_argument("--bundle", action="store_true", help="the whole bundled schema")
    schema.set_defaults(run=schema_command)

    serve = commands.add_parser(
        "serve",
        help="a translating gateway: every format's endpoints, one upstream",
        description="Serve every HTTP format's endpoints and translate each request to "
        "the upstream's format, and its answer back (docs/gateway.md). The upstream's key "
        "comes from CHATSCHEMA_UPSTREAM_API_KEY or the provider's usual variable.",
    )
    serve.add_argument("--upstream", choices=HTTP_PROVIDERS, required=True, help="its format")
    serve.add_argument("--url", required=True, help="its base URL as its official client takes it")
    serve.add_argument("--host", default="127.0.0.1", help="address (default: 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default: 8000)")
    serve.add_argument("--model", help="the upstream model for every request")
    serve.add_argument(
        "--max-tokens", type=int, default=4096, metavar="N", help="when required and not given"
    )
    serve.add_argument("--unsupported", choices=("error", "drop", "placeholder"), default="error")
    serve.add_argument(
        "--unsupported-settings",
        choices=("error", "drop"),
        help="settings the upstream has no key for (default: as --unsupported)",
    )
    serve.add_argument("--reasoning", choices=("replay", "text", "drop"), default="replay")
    serve.add_argument("--connect-timeout", type=float, default=10.0, metavar="SECONDS")
    serve.add_argument("--read-timeout", type=float, default=600.0, metavar="SECONDS")
    serve.add_argument(
        "--pass-key", action="store_true", help="send callers' keys to the same provider"
    )
    serve.add_argument("--region", help="AWS region of a signed Bedrock upstream")
    serve.add_argument(
        "--log-level", choices=("critical", "error", "warning", "info", "debug"), default="info"
    )
    serve.set_defaults(run=serve_command)

    demo = commands.add_parser("demo", help="a tour of chatschema on a sample conversation")
    demo.set_defaults(run=demo_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status.

    0 done (valid), 1 invalid input, 2 usage or I/O error, 130 on Ctrl-C and 143 on
    SIGTERM (a file output is then left as it was; stderr says what was done).
    """
    args = _parser().parse_args(argv)
    closed = sys.stdout is None
    if closed:
        sys.stdout = ClosedOutput()
    restore = on_sigterm()
    from chatschema import limits

    line_limit = limits.MAX_LINE_BYTES
    limits.MAX_LINE_BYTES = getattr(args, "max_line_bytes", None) or line_limit
    try:
        status: int = args.run(args)
        flush_stdout()
        return status
    except (UsageError, ChatSchemaError) as error:  # ChatSchemaError: a missing extra...
        write_line(f"chatschema: {error}", file=sys.stderr)
        return 2
    except Interrupted as error:
        write_line(f"chatschema: {error}", file=sys.stderr)
        return error.status
    except KeyboardInterrupt as error:
        how, status = interruption(error)
        write_line(f"chatschema: {how}", file=sys.stderr)
        return status
    except BrokenPipeError:  # output piped into head and closed
        return 0
    except OSError as error:  # an input or output that failed under us
        where = f"{error.filename}: " if error.filename else ""
        write_line(f"chatschema: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    finally:
        settle_stdout()
        restore()
        limits.MAX_LINE_BYTES = line_limit
        if closed:
            sys.stdout = None


if __name__ == "__main__":
    sys.exit(main())
