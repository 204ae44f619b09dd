"""The ``chatschema`` command (also ``python -m chatschema``).

    chatschema validate [--type T] [--provider P] [--format text|json] PATH... | -
    chatschema convert --from F --to F [--option NAME=VALUE ...] [PATH | -]
    chatschema stats [--provider P] PATH...
    (datasets, .jsonl / .parquet: -o PATH, --jobs N, --engine local|ray)
    chatschema schema [TYPE] [--bundle]
    chatschema demo

Exit status: 0 valid (or done), 1 invalid input, 2 usage or I/O error. Problems are
reported with file, line and JSON pointer, never with a traceback.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import IO, Any

from chatschema._json import dumps
from chatschema.errors import ChatSchemaError, OptionError, Problem
from chatschema.providers._codec import HTTP_PROVIDERS, PROVIDERS

__all__ = ["main"]

FORMATS = ("neutral", *PROVIDERS)
DOCUMENT_TYPES = ("auto", "Message", "messages", "Conversation", "jsonl")


class UsageError(Exception):
    """Bad arguments or unreadable input: exit status 2."""


# ----------------------------------------------------------------------- reading


@dataclass
class Document:
    """One JSON document read from an input, with where it came from."""

    source: str
    line: int
    value: Any = None
    error: str | None = None  # the JSON could not be read


def _print(text: str, *, file: IO[str] | None = None) -> None:
    """Print a line of output.

    Text the stream cannot encode (lone surrogates in the input's strings, a narrow
    console encoding) is written with backslash escapes instead of failing.
    """
    stream = sys.stdout if file is None else file
    try:
        print(text, file=stream)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        print(text.encode(encoding, "backslashreplace").decode(encoding), file=stream)


def _open(path: str) -> IO[str]:
    if path == "-":
        return sys.stdin
    try:
        # utf-8-sig: a byte order mark (as Windows tools write) is not part of the JSON
        return open(path, encoding="utf-8-sig")
    except OSError as error:
        raise UsageError(f"{path}: {error.strerror or error}") from None


def read_documents(path: str, jsonl: bool | None) -> Iterator[Document]:
    """The documents of one input: a single JSON document, or JSON Lines.

    With ``jsonl=None`` the form is detected: ``.jsonl`` / ``.ndjson`` files are JSON
    Lines; otherwise, when the first line is a whole JSON value and more lines follow,
    it is JSON Lines; else the whole input is one document. JSON Lines are read one
    line at a time, in constant memory.
    """
    name = "<stdin>" if path == "-" else path
    if jsonl is None and path.endswith((".jsonl", ".ndjson")):
        jsonl = True
    stream = _open(path)
    try:
        try:
            first = stream.readline()
        except UnicodeDecodeError as error:
            yield Document(name, 1, error=f"not UTF-8 text: {error.reason}")
            return
        if jsonl is None:
            second = stream.readline()
            jsonl = bool(second.strip()) and _is_json(first)
            lines: Iterator[str] = iter([first, second])
        else:
            lines = iter([first])
        if jsonl:
            for number, line in enumerate(_chain(lines, stream), 1):
                if line.strip():
                    yield _parse(name, number, line)
            return
        text = "".join(lines) + stream.read()
        yield _parse(name, 1, text)
    except UnicodeDecodeError as error:
        yield Document(name, 0, error=f"not UTF-8 text: {error.reason}")
    finally:
        if stream is not sys.stdin:
            stream.close()


def _chain(first: Iterator[str], rest: IO[str]) -> Iterator[str]:
    yield from first
    yield from rest


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _parse(source: str, line: int, text: str) -> Document:
    try:
        return Document(source, line, json.loads(text))
    except ValueError as error:
        return Document(source, line, error=f"not valid JSON: {error}")
    except RecursionError:
        return Document(source, line, error="the JSON is nested too deeply")


def _kind(value: Any, requested: str) -> str:
    if requested not in ("auto", "jsonl"):
        return requested
    if isinstance(value, dict) and "messages" in value:
        return "Conversation"
    if isinstance(value, list):
        return "messages"
    return "Message"


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
        return [Problem("", "json", document.error)]
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
        )
    except (DatasetError, MissingExtraError, OptionError) as error:
        progress.done()
        raise UsageError(str(error)) from None
    progress.done()
    if args.engine == "ray":  # results were not streamed back batch by batch
        tally.documents += summary.rows
        tally.invalid += summary.failed
        tally.problems += summary.problems
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

    options = {"format": args.provider or "neutral", "type": args.type}
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
            for document in read_documents(path, jsonl):
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
        print(
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
        _print(
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
        pointer = problem.pointer or "/"
        where = _where(document.source, document.line, line_based)
        _print(f"{where}: {pointer}: {problem.message} [{problem.keyword}]")


# ----------------------------------------------------------------------- convert


def _options(pairs: Sequence[str]) -> dict[str, Any]:
    options: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        if not sep:
            raise UsageError(f"--option takes NAME=VALUE, not {pair!r}")
        lowered = value.lower()
        options[name] = True if lowered == "true" else False if lowered == "false" else value
    return options


def convert_command(args: argparse.Namespace) -> int:
    """``chatschema convert``."""
    options = _options(args.option)
    if _is_dataset(args.path, args):
        return _convert_dataset(args, options)
    from chatschema.providers import convert

    out = None
    if args.output is not None:
        try:
            out = open(args.output, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
        except OSError as error:
            raise UsageError(f"{args.output}: {error.strerror or error}") from None
    try:
        return _convert_documents(args, options, convert, out)
    finally:
        if out is not None:
            out.close()


def _convert_documents(
    args: argparse.Namespace, options: dict[str, Any], convert: Any, out: IO[str] | None
) -> int:
    status = 0
    first: Any = None  # held back: a lone document is printed indented
    count = 0
    for document in read_documents(args.path, None):
        count += 1
        if document.error is not None:
            _print(f"{document.source}:{document.line}: {document.error}", file=sys.stderr)
            status = 1
            continue
        try:
            result = convert(document.value, source=args.source, target=args.target, **options)
        except ChatSchemaError as error:
            _print(f"{document.source}:{document.line}: {error}", file=sys.stderr)
            status = 1
            continue
        except Exception as error:  # a chatschema bug: reported, never a traceback
            _print(f"{document.source}:{document.line}: {_internal(error)}", file=sys.stderr)
            status = 1
            continue
        if count == 1:
            first = result
            continue
        if first is not None:
            _print(dumps(first), file=out)
            first = None
        _print(dumps(result), file=out)
    if first is not None:
        _print(dumps(first, indent=2 if count == 1 else None), file=out)
    return status


def _convert_dataset(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """``chatschema convert`` over a dataset: batches, --jobs, JSON Lines or Parquet."""
    tally = Tally()
    progress = _Progress(sys.stderr.isatty(), "converted", "failed")

    def on_problem(source: str, position: int, line_based: bool, problems: list[Problem]) -> None:
        where = _where(source, position, line_based)
        for problem in problems:
            pointer = problem.pointer or "/"
            _print(f"{where}: {pointer}: {problem.message} [{problem.keyword}]", file=sys.stderr)

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
            pointer = problem.pointer or "/"
            _print(f"{where}: {pointer}: {problem.message} [{problem.keyword}]", file=sys.stderr)

    options = {"format": args.provider or "neutral"}
    summary = _run_dataset(
        args, "stats", args.paths, args.output, options, tally, on_problem, progress
    )
    data = summary.as_dict()
    if args.format == "json":
        print(json.dumps(data))
    else:
        totals, tokens = data["totals"], data["tokens"]
        rows = max(summary.ok, 1)
        print(f"rows               {summary.rows:>14,}   ({summary.failed:,} unreadable)")
        for name, value in totals.items():
            print(f"{name:<18} {value:>14,}   mean {value / rows:>12,.1f}")
        print(
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
        print(json.dumps(bundle, indent=2, ensure_ascii=False))
        return 0
    if args.type is None:
        print("Types (chatschema schema TYPE prints one as a self-contained schema):")
        for name in sorted(bundle["$defs"]):
            print(f"  {name}")
        return 0
    if args.type not in bundle["$defs"]:
        raise UsageError(f"unknown type {args.type!r}; `chatschema schema` lists the types")
    single = dict(bundle)
    single["$ref"] = f"#/$defs/{args.type}"
    single["title"] = args.type
    single["description"] = bundle["$defs"][args.type].get("description", "")
    single.pop("$id", None)
    print(json.dumps(single, indent=2, ensure_ascii=False))
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
    _print(f"chatschema gateway on http://{args.host}:{args.port}, upstream {args.upstream}:")
    for line in endpoints(args.upstream, args.url):
        _print(f"  {line}")
    sys.stdout.flush()
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


# -------------------------------------------------------------------------- main


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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="chatschema",
        description="Validate, convert and describe LLM conversation data.",
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
        help="the documents are in this provider's format (decoded to check)",
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
    convert.add_argument("--from", dest="source", choices=FORMATS, required=True)
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
        "--provider", choices=FORMATS[1:], help="the conversations are in this provider's format"
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
    """Run the command line; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        status: int = args.run(args)
        return status
    except UsageError as error:
        _print(f"chatschema: {error}", file=sys.stderr)
        return 2
    except ChatSchemaError as error:  # a missing optional dependency, a dataset I/O error
        _print(f"chatschema: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into head and closed
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
