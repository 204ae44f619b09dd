"""Cut the traffic corpus out of recorded VCR cassettes (``tests/recordings/build.py`` uses it).

Usage::

    python tests/traffic/extract.py --repo <git dir of pydantic/pydantic-ai> [--commit SHA]
    python tests/traffic/extract.py --repo <git dir> --survey   # list every candidate

``--repo`` is a bare or normal git directory (``git -C <dir> show`` must work). The
exchanges are the rows of the provenance table in ``README.md`` (file, cassette path,
interaction index): the script reads each cassette at ``--commit`` (default
``COMMIT``), writes one exchange per JSON file under ``tests/traffic/<format>/`` and
writes the table again. To add an exchange, add its row (``--survey`` lists the
candidates with format, kind and size) and run the script.

What is taken from a cassette interaction, and how:

- ``request``: the request body as JSON. pydantic-ai's cassettes keep a JSON body as
  ``parsed_body`` (the JSON value, written as YAML) or as the body text; either way
  the JSON value is stored unchanged. Headers and URLs are not kept.
- ``response``: the JSON response body, the same way.
- ``stream``: for a streamed response, the body text as recorded (``data: ...`` server
  sent events). Bedrock's ``converse-stream`` answers in AWS event-stream framing
  (binary); its frames are unpacked with botocore and kept as the list of events
  ``{<:event-type header>: <JSON payload>}``, the shape boto3's ``converse_stream``
  yields, payload keys unchanged.

Only interactions that got HTTP 200 are taken, and only those whose request and
response are at most ``MAX_BYTES`` together (large base64 media are left out by
choosing other exchanges, never by editing a payload).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml  # type: ignore[import-untyped]

HERE = Path(__file__).resolve().parent
REPOSITORY = "pydantic/pydantic-ai"
COMMIT = "4fda38988f2939fa6ea9cdefcf120693e10ef491"
LICENCE = "MIT"
MAX_BYTES = 60_000

FORMATS = ("openai_chat", "openai_responses", "anthropic", "gemini", "bedrock_converse")

README = HERE / "README.md"
"""Lists the exchanges (its provenance table): extract.py cuts what it lists."""
ROW = re.compile(r"^\| `(\w+)/([^`]+)` \| ([\w.-]+/[\w.-]+) \| `([^`]+)` \| (\d+) \| `(\w+)` \|")


def selection() -> list[tuple[str, str, int]]:
    """(format, cassette path, interaction index) of every row of README.md's table
    (the rows of pydantic-ai's cassettes: those of other projects are made by the
    ``traffic_recorded`` recipe of ``tests/recordings/recipes.py``)."""
    rows = []
    for line in README.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match and match.group(3) == REPOSITORY:
            fmt, name, _repository, path, index, _commit = match.groups()
            if name != file_name(fmt, path, int(index)):
                raise SystemExit(f"README.md: {name} is not the name of {path} #{index}")
            rows.append((fmt, path, int(index)))
    return rows


def git_show(repo: str, commit: str, path: str) -> str:
    """A file's text at a commit."""
    return subprocess.run(
        ["git", "-C", repo, "show", f"{commit}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout


def cassettes(repo: str, commit: str) -> Iterator[tuple[str, int]]:
    """Every cassette path in the repository, with its size in bytes."""
    listing = subprocess.run(
        ["git", "-C", repo, "ls-tree", "-r", "-l", commit],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        size = meta.split()[3]
        if "/cassettes/" in path and path.endswith(".yaml") and size.isdigit():
            yield path, int(size)


def interactions(text: str) -> list[dict[str, Any]]:
    """The HTTP interactions of a VCR cassette."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    document = yaml.load(text, Loader=loader)  # a safe loader (C or Python)
    found = document.get("interactions") if isinstance(document, dict) else None
    return [item for item in found or [] if "request" in item and "response" in item]


def format_of(uri: str) -> str | None:
    """The wire format of a request, by its URL."""
    path = uri.split("?", 1)[0]
    if "api.mistral.ai" in path or "api.cohere.com" in path:
        return None  # their own formats, near Chat Completions but not it
    return endpoint_format(path)


def endpoint_format(path: str) -> str | None:
    """The wire format an endpoint path speaks, if one of the five."""
    if path.endswith("/chat/completions"):
        return "openai_chat"
    if path.endswith("/responses"):
        return "openai_responses"
    if path.endswith("/v1/messages"):
        return "anthropic"
    if re.search(r":(stream)?[gG]enerateContent$", path):
        return "gemini"
    if re.search(r"/model/[^/]+/converse(-stream)?$", path):
        return "bedrock_converse"
    return None


def _body(part: dict[str, Any]) -> Any:
    """The body of a request or response: parsed JSON, text or bytes (None if none)."""
    if part.get("parsed_body") is not None:
        return part["parsed_body"]
    body = part.get("body")
    if isinstance(body, dict):
        body = body.get("string")
    if isinstance(body, bytes):
        try:
            body = body.decode("utf-8")
        except UnicodeDecodeError:
            return body
    if isinstance(body, str) and body.lstrip().startswith(("{", "[")):
        try:
            return json.loads(body)
        except ValueError:
            return body
    return body


def event_stream(data: bytes) -> list[dict[str, Any]]:
    """AWS event-stream frames as ``{event type: JSON payload}`` (boto3's shape)."""
    from botocore.eventstream import EventStreamBuffer  # type: ignore[import-untyped]

    buffer = EventStreamBuffer()
    buffer.add_data(data)
    events = []
    for message in buffer:
        name = message.headers.get(":event-type") or message.headers.get(":exception-type")
        events.append({str(name): json.loads(message.payload.decode("utf-8"))})
    return events


def exchange(fmt: str, interaction: dict[str, Any]) -> dict[str, Any] | None:
    """One exchange as stored in the corpus, or None when it is not one."""
    request, response = interaction["request"], interaction["response"]
    if (response.get("status") or {}).get("code") != 200:
        return None
    body, answer = _body(request), _body(response)
    if not isinstance(body, dict):
        return None
    if isinstance(answer, dict):
        return {"request": body, "response": answer}
    if fmt == "bedrock_converse" and isinstance(answer, bytes):
        return {"request": body, "stream": event_stream(answer)}
    if isinstance(answer, str) and re.match(r"\s*(event:|data:|:)", answer):
        return {"request": body, "stream": answer}
    return None


def file_name(fmt: str, path: str, index: int) -> str:
    """The corpus file name of an interaction: test module, test name, index."""
    parts = Path(path).with_suffix("").parts
    stem = f"{parts[-2]}.{parts[-1]}" if parts[-2] != "cassettes" else parts[-1]
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("_")
    if len(stem) > 90:
        stem = stem[:80] + "_" + hashlib.sha1(stem.encode()).hexdigest()[:8]
    return f"{stem}.{index}.json"


def dump(value: Any) -> str:
    """The corpus JSON text of an exchange."""
    return json.dumps(value, ensure_ascii=False, indent=1) + "\n"


def survey(repo: str, commit: str) -> None:
    """Print every candidate exchange: format, kind, size, cassette, index."""
    for path, size in cassettes(repo, commit):
        if size > 2_000_000 or "/realtime/" in path:
            continue
        for index, interaction in enumerate(interactions(git_show(repo, commit, path))):
            fmt = format_of(str(interaction["request"].get("uri", "")))
            cut = exchange(fmt, interaction) if fmt else None
            if fmt and cut:
                kind = "stream" if "stream" in cut else "response"
                print(fmt, kind, len(dump(cut)), path, index, sep="\t")


def extract(repo: str, commit: str) -> list[tuple[str, str, str, int]]:
    """Write the exchanges README.md lists; returns (format, file, cassette, index) rows."""
    rows = []
    texts: dict[str, str] = {}
    for fmt, path, index in selection():
        if path not in texts:
            texts[path] = git_show(repo, commit, path)
        cut = exchange(fmt, interactions(texts[path])[index])
        if cut is None:
            raise SystemExit(f"{path} #{index}: not an exchange")
        name = file_name(fmt, path, index)
        target = HERE / fmt / name
        target.parent.mkdir(exist_ok=True)
        target.write_text(dump(cut), encoding="utf-8")
        rows.append((fmt, name, path, index))
    return rows


def provenance(rows: list[tuple[str, str, str, int]], commit: str) -> str:
    """The provenance table of README.md."""
    lines = [
        "| file | source repository | path | interaction | commit | licence |",
        "|---|---|---|---|---|---|",
    ]
    for fmt, name, path, index in rows:
        lines.append(
            f"| `{fmt}/{name}` | {REPOSITORY} | `{path}` | {index} | `{commit[:12]}` | {LICENCE} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repo", required=True, help="git dir of pydantic/pydantic-ai")
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--survey", action="store_true", help="list candidates only")
    args = parser.parse_args()
    if args.survey:
        survey(args.repo, args.commit)
        return
    rows = extract(args.repo, args.commit)
    readme = HERE / "README.md"
    text = readme.read_text(encoding="utf-8")
    marker = "<!-- provenance -->\n"
    head = text.split(marker, 1)[0] if marker in text else text
    readme.write_text(head + marker + provenance(rows, args.commit), encoding="utf-8")
    print(f"{len(rows)} exchanges written", file=sys.stderr)


if __name__ == "__main__":
    main()
