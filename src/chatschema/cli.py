"""The ``chatschema`` command (also ``python -m chatschema``).

    chatschema validate [--type T] [--provider P] [--format text|json] PATH... | -
    chatschema convert --from F --to F [--option NAME=VALUE ...] [PATH | -]
    chatschema schema [TYPE] [--bundle]
    chatschema demo

Exit status: 0 valid (or done), 1 invalid input, 2 usage or I/O error. Problems are
reported with file, line and JSON pointer, never with a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import IO, Any

from chatschema.errors import ChatSchemaError, ConversionError, Problem, ValidationError

__all__ = ["main"]

FORMATS = ("neutral", "openai_chat", "openai_responses", "anthropic", "gemini")
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
    from chatschema.validation import parse

    if document.error is not None:
        return [Problem("", "json", document.error)]
    try:
        if provider is not None:
            from chatschema.providers import get_codec

            get_codec(provider).decode_conversation(document.value)
        else:
            kind = _kind(document.value, requested)
            if kind == "messages":
                from chatschema.validation import parse_messages

                parse_messages(document.value)
            else:
                parse(document.value, kind)
    except ValidationError as error:
        return list(error.problems)
    except ConversionError as error:
        where = ""
        if error.message_index is not None:
            where = f"/messages/{error.message_index}"
            if error.block_index is not None:
                where += f"/content/{error.block_index}"
        return [Problem(where, "provider", error.reason), *error.problems]
    except ChatSchemaError as error:
        return [Problem("", "provider", str(error))]
    except Exception as error:  # a chatschema bug: reported, never a traceback
        return [Problem("", "internal", _internal(error))]
    return []


def _internal(error: Exception) -> str:
    """An unexpected exception, as one line for a report (a bug in chatschema)."""
    reason = str(error).splitlines()[0][:200] if str(error) else ""
    return (
        f"chatschema failed on this document ({type(error).__name__}: {reason}); please report it"
    )


class _Progress:
    """A one-line progress report on a terminal (stderr); silent otherwise."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.shown = 0.0

    def update(self, tally: Tally, force: bool = False) -> None:
        now = time.monotonic()
        if self.enabled and (force or now - self.shown > 0.2):
            self.shown = now
            sys.stderr.write(
                f"\rvalidated {tally.documents:,} documents, {tally.invalid:,} invalid"
            )
            sys.stderr.flush()

    def done(self) -> None:
        if self.enabled:
            sys.stderr.write("\r\033[K")


def validate_command(args: argparse.Namespace) -> int:
    """``chatschema validate``."""
    tally = Tally()
    progress = _Progress(sys.stderr.isatty() and args.format == "text")
    jsonl = True if args.type == "jsonl" else None
    for path in args.paths:
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
    summary = (
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
        print(summary, file=sys.stderr)
    return 1 if tally.invalid else 0


def _report(form: str, document: Document, problem: Problem) -> None:
    if form == "json":
        _print(
            json.dumps(
                {
                    "file": document.source,
                    "line": document.line,
                    "pointer": problem.pointer,
                    "keyword": problem.keyword,
                    "message": problem.message,
                },
                ensure_ascii=False,
            )
        )
    else:
        pointer = problem.pointer or "/"
        _print(
            f"{document.source}:{document.line}: {pointer}: {problem.message} [{problem.keyword}]"
        )


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
    from chatschema.providers import convert

    options = _options(args.option)
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
            _print(json.dumps(first, ensure_ascii=False))
            first = None
        _print(json.dumps(result, ensure_ascii=False))
    if first is not None:
        _print(json.dumps(first, indent=2 if count == 1 else None, ensure_ascii=False))
    return status


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


# -------------------------------------------------------------------------- main


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
    convert.set_defaults(run=convert_command)

    schema = commands.add_parser(
        "schema",
        help="print the JSON Schema of a type",
        description="Print a type's schema (self-contained), the "
        "bundled schema, or the list of types.",
    )
    schema.add_argument("type", nargs="?", metavar="TYPE")
    schema.add_argument("--bundle", action="store_true", help="the whole bundled schema")
    schema.set_defaults(run=schema_command)

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
    except BrokenPipeError:  # output piped into head and closed
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
