"""How each recorded payload is cut out of its source files (see ``manifest.yaml``).

A recipe is a function ``recipe(source, **args) -> bytes``: ``source`` gives the text
or parsed YAML of the entry's source paths (read from the mirrored repository at the
pinned commit), ``args`` are the entry's ``args``; the bytes returned are the file
written at the entry's destination. Recipes only select, parse and re-serialize:
values are never edited. ``RECIPES`` maps the names the manifest uses to them.
"""

from __future__ import annotations

import ast
import base64
import gzip
import importlib.util
import json
import re
import urllib.parse
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol

HERE = Path(__file__).resolve().parent
EXTRACT = HERE.parent / "traffic" / "extract.py"
"""The traffic corpus cutter, whose rules the ``traffic_exchange`` recipe reuses."""


class Source(Protocol):
    """The source files of one manifest entry, at its pinned commit."""

    paths: tuple[str, ...]

    def text(self, path: str) -> str:
        """A source file's text (UTF-8)."""
        ...

    def yaml(self, path: str) -> Any:
        """A source file parsed as YAML (a safe loader); parsed once per build."""
        ...


Recipe = Callable[..., bytes]


class RecipeError(Exception):
    """A source does not hold what its manifest entry says it holds."""


_EXTRACT: ModuleType | None = None


def extract_module() -> ModuleType:
    """``tests/traffic/extract.py``, loaded once."""
    global _EXTRACT
    if _EXTRACT is None:
        spec = importlib.util.spec_from_file_location("chatschema_traffic_extract", EXTRACT)
        if spec is None or spec.loader is None:
            raise RecipeError(f"cannot load {EXTRACT}")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _EXTRACT = module
    return _EXTRACT


def _interaction(source: Source, path: str, index: int) -> dict[str, Any]:
    """Interaction ``index`` of a VCR cassette (0-based)."""
    document = source.yaml(path)
    found = document.get("interactions") if isinstance(document, dict) else None
    if not isinstance(found, list) or index >= len(found):
        raise RecipeError(f"{path}: no interaction {index}")
    item = found[index]
    if not isinstance(item, dict):
        raise RecipeError(f"{path} #{index}: not an interaction")
    return item


def _status(interaction: dict[str, Any]) -> Any:
    """The HTTP status code a cassette recorded for an interaction."""
    return (interaction.get("response", {}).get("status") or {}).get("code")


def _indented(value: Any, newline: bool = True) -> bytes:
    """JSON with one-space indentation, non-ASCII kept, optionally a final newline."""
    text = json.dumps(value, ensure_ascii=False, indent=1)
    return (text + "\n" if newline else text).encode("utf-8")


def _lines(values: list[Any]) -> bytes:
    """A JSON list written one compact element per line."""
    body = ",\n".join(json.dumps(value, ensure_ascii=False) for value in values)
    return ("[\n" + body + "\n]\n").encode("utf-8")


# ------------------------------------------------------------ tests/traffic


def traffic_exchange(source: Source, *, format: str, interaction: int) -> bytes:
    """One exchange of the traffic corpus, cut as ``tests/traffic/extract.py`` does."""
    extract = extract_module()
    (path,) = source.paths
    cut = extract.exchange(format, extract.interactions(source.text(path))[interaction])
    if cut is None:
        raise RecipeError(f"{path} #{interaction}: not an exchange")
    text: str = extract.dump(cut)
    return text.encode("utf-8")


# ------------------------------------------------------------ tests/payloads/anthropic


def anthropic_requests(source: Source, *, picks: list[list[Any]]) -> bytes:
    """``{name: {"request": parsed_body[, "response": parsed_body]}}`` of Messages API
    calls answered with HTTP 200; each pick is ``[name, path, interaction, with_response]``."""
    out: dict[str, Any] = {}
    for name, path, index, with_response in picks:
        item = _interaction(source, path, index)
        if _status(item) != 200 or "anthropic.com/v1/messages" not in item["request"]["uri"]:
            raise RecipeError(f"{path} #{index}: not a Messages API call answered 200")
        entry = {"request": item["request"]["parsed_body"]}
        if with_response:
            entry["response"] = item["response"]["parsed_body"]
        out[name] = entry
    return _indented(out, newline=False)


# ------------------------------------------------------------ tests/payloads/openai_responses


def _sse_data(body: str) -> list[Any]:
    """The JSON of every ``data:`` line of a server-sent-events body, ``[DONE]`` left out."""
    out = []
    for block in body.split("\n\n"):
        for line in block.splitlines():
            if line.startswith("data: ") and line[6:] != "[DONE]":
                out.append(json.loads(line[6:]))
    return out


def responses_stream(source: Source, *, interaction: int) -> bytes:
    """The events of a recorded Responses API stream, one JSON object per line."""
    (path,) = source.paths
    item = _interaction(source, path, interaction)
    return _lines(_sse_data(item["response"]["body"]["string"]))


def responses_requests(source: Source, *, max_chars: int) -> bytes:
    """Every distinct Responses request body (``parsed_body`` with ``input``) of the
    source cassettes, in path order, at most ``max_chars`` long as compact JSON, each
    with its cassette file name and interaction number as ``source``."""
    out: list[Any] = []
    seen: set[str] = set()
    for path in source.paths:
        document = source.yaml(path)
        for index, item in enumerate(document.get("interactions", [])):
            body = item["request"].get("parsed_body")
            if not isinstance(body, dict) or "input" not in body:
                continue
            text = json.dumps(body, ensure_ascii=False)
            if len(text) > max_chars or text in seen:
                continue
            seen.add(text)
            out.append({"source": f"{path.rsplit('/', 1)[-1]}#{index}", "request": body})
    return _lines(out)


# ------------------------------------------------------------ tests/payloads/gemini


def json_lines(source: Source) -> bytes:
    """A recording of one JSON value per line, as a JSON list of those values."""
    (path,) = source.paths
    values = [json.loads(line) for line in source.text(path).splitlines() if line.strip()]
    return _indented(values)


def cassette_request(source: Source, *, interaction: int) -> bytes:
    """The ``parsed_body`` of one request of a cassette (answered with HTTP 200)."""
    (path,) = source.paths
    item = _interaction(source, path, interaction)
    if _status(item) != 200:
        raise RecipeError(f"{path} #{interaction}: not answered with HTTP 200")
    return _indented(item["request"]["parsed_body"])


# ------------------------------------------------------------ tests/payloads/bedrock_converse


class _Raw:
    """A whole response body as the raw stream botocore's ``EventStream`` reads."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self) -> Iterator[bytes]:
        """The body in one piece."""
        yield self.data

    def close(self) -> None:
        """Nothing to close."""


def _converse_stream_events(data: bytes) -> list[Any]:
    """A ``converse-stream`` body parsed by botocore (the ConverseStream output shape),
    blobs as base64 text: the events boto3's ``converse_stream`` yields, as JSON."""
    import botocore.session  # type: ignore[import-untyped]
    from botocore.eventstream import EventStream  # type: ignore[import-untyped]
    from botocore.parsers import EventStreamJSONParser  # type: ignore[import-untyped]

    model = botocore.session.get_session().get_service_model("bedrock-runtime")
    shape = model.operation_model("ConverseStream").output_shape.members["stream"]
    stream = EventStream(_Raw(data), shape, EventStreamJSONParser(), "ConverseStream")
    return [_base64_blobs(event) for event in stream]


def _base64_blobs(value: Any) -> Any:
    """``value`` with every bytes value written as base64 text."""
    if isinstance(value, bytes):
        return base64.b64encode(value).decode()
    if isinstance(value, dict):
        return {key: _base64_blobs(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_base64_blobs(item) for item in value]
    return value


def _bedrock_body(part: dict[str, Any]) -> Any:
    """A request's JSON body: its recorded text parsed (the key order as sent)."""
    body = part.get("body")
    if isinstance(body, bytes):
        body = body.decode()
    try:
        return json.loads(body) if body else body
    except ValueError:
        return body


def _bedrock_response(part: dict[str, Any]) -> Any:
    """A response's body: the recorded text parsed, or the cassette's ``parsed_body``."""
    raw = (part.get("body") or {}).get("string", part.get("content"))
    if raw is None and "parsed_body" in part:
        raw = part["parsed_body"]
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "replace")
    if not isinstance(raw, str):
        return raw
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _bedrock_source(repository: str, commit: str, path: str, index: int) -> dict[str, Any]:
    """The ``source`` member of a Bedrock payload file."""
    return {"repository": repository, "commit": commit, "path": path, "interaction": index}


def _model_id(uri: str) -> str:
    """The model id of a Bedrock Runtime call: the URL-decoded segment after ``/model/``."""
    return urllib.parse.unquote(uri.split("/model/")[1].rsplit("/", 1)[0])


def bedrock_request(
    source: Source, *, repository: str, commit: str, interaction: int, description: str
) -> bytes:
    """A ``converse`` request: ``modelId`` from the URI, then the recorded JSON body."""
    (path,) = source.paths
    item = _interaction(source, path, interaction)
    request = item["request"]
    kwargs = {"modelId": _model_id(request["uri"]), **_bedrock_body(request)}
    out = {
        "source": _bedrock_source(repository, commit, path, interaction),
        "description": description,
        "request": kwargs,
    }
    return _indented(out, newline=False)


def bedrock_response(
    source: Source, *, repository: str, commit: str, interaction: int, description: str
) -> bytes:
    """A ``converse`` response body as recorded."""
    (path,) = source.paths
    item = _interaction(source, path, interaction)
    out = {
        "source": _bedrock_source(repository, commit, path, interaction),
        "description": description,
        "response": _bedrock_response(item["response"]),
    }
    return _indented(out, newline=False)


def converse_total(events: list[Any]) -> dict[str, Any]:
    """The Converse response ConverseStream events add up to, by the ConverseStream
    reference (independent of the codec): text, reasoning text and signature appended
    per ``contentBlockIndex``, tool input fragments joined and parsed, redacted content
    bytes concatenated, ``messageStop`` and ``metadata`` keys copied."""
    blocks: dict[int, dict[str, Any]] = {}
    order: list[int] = []
    message: dict[str, Any] = {"role": "assistant", "content": []}
    response: dict[str, Any] = {"output": {"message": message}}
    for event in events:
        ((kind, value),) = event.items()
        if kind == "messageStart":
            message["role"] = value["role"]
        elif kind == "contentBlockStart":
            index = value["contentBlockIndex"]
            ((start, fields),) = value["start"].items()
            blocks[index] = {start: dict(fields)}
            order.append(index)
            if start == "toolUse":
                blocks[index]["_input"] = ""
            if start == "toolResult":
                blocks[index]["toolResult"]["content"] = []
        elif kind == "contentBlockDelta":
            index = value["contentBlockIndex"]
            ((delta, piece),) = value["delta"].items()
            if index not in blocks:
                blocks[index] = {}
                order.append(index)
            block = blocks[index]
            if delta == "text":
                block["text"] = block.get("text", "") + piece
            elif delta == "toolUse":
                block["_input"] += piece["input"]
            elif delta == "toolResult":
                block["toolResult"]["content"].extend(piece)
            elif delta == "reasoningContent":
                ((part, text),) = piece.items()
                reasoning = block.setdefault("reasoningContent", {})
                if part == "redactedContent":
                    joined = base64.b64decode(reasoning.get("redactedContent", ""))
                    joined += base64.b64decode(text)
                    reasoning["redactedContent"] = base64.b64encode(joined).decode()
                else:
                    reasoning_text = reasoning.setdefault("reasoningText", {"text": ""})
                    reasoning_text[part] = reasoning_text.get(part, "") + text
        elif kind == "messageStop":
            response["stopReason"] = value["stopReason"]
            if "additionalModelResponseFields" in value:
                fields = value["additionalModelResponseFields"]
                response["additionalModelResponseFields"] = fields
        elif kind == "metadata":
            response.update(value)
    for index in order:
        block = blocks[index]
        if "toolUse" in block:
            text = block.pop("_input")
            block["toolUse"]["input"] = json.loads(text) if text else {}
        message["content"].append(block)
    return response


def bedrock_stream(
    source: Source, *, repository: str, commit: str, interaction: int, description: str
) -> bytes:
    """A ``converse-stream`` body as boto3's events, and the response they add up to."""
    (path,) = source.paths
    item = _interaction(source, path, interaction)
    raw = (item["response"].get("body") or {}).get("string")
    if not isinstance(raw, bytes):
        raise RecipeError(f"{path} #{interaction}: not an event-stream body")
    events = _converse_stream_events(raw)
    out = {
        "source": _bedrock_source(repository, commit, path, interaction),
        "description": description,
        "events": events,
        "response": converse_total(events),
    }
    return _indented(out, newline=False)


# ------------------------------------------------------------ tests/payloads/otel_genai


def _snapshot_literals(tree: ast.AST) -> Iterator[ast.expr]:
    """The argument of every ``snapshot(...)`` call under ``tree``, in source order."""
    calls = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "snapshot"
        and node.args
    ]
    for call in sorted(calls, key=lambda node: (node.lineno, node.col_offset)):
        yield call.args[0]


def _function(module: ast.Module, name: str) -> ast.AST:
    """A top-level (async) function of a module."""
    for node in module.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node
    raise RecipeError(f"no function {name}")


def _span_attributes(function: ast.AST, span: str) -> dict[str, Any]:
    """The ``attributes`` of the span named ``span`` in a function's snapshots."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Dict):
            continue
        keys = [key.value if isinstance(key, ast.Constant) else None for key in node.keys]
        if "name" in keys and "attributes" in keys:
            name = node.values[keys.index("name")]
            if isinstance(name, ast.Constant) and name.value == span:
                value = ast.literal_eval(node.values[keys.index("attributes")])
                if isinstance(value, dict):
                    return value
    raise RecipeError(f"no span {span!r}")


def instrumented_snapshots(source: Source, *, records: list[dict[str, Any]]) -> bytes:
    """GenAI attributes written by pydantic-ai's instrumentation, from the inline
    snapshots of its tests (Python literals as JSON). Each record names the test and
    either a ``span`` whose listed ``keys`` are taken from its attributes, or the
    ``attribute`` the test's first snapshot is the value of."""
    (path,) = source.paths
    module = ast.parse(source.text(path))
    out = []
    for record in records:
        function = _function(module, record["function"])
        if "span" in record:
            attributes = _span_attributes(function, record["span"])
            value = {key: attributes[key] for key in record["keys"]}
        else:
            first = next(_snapshot_literals(function), None)
            if first is None:
                raise RecipeError(f"{record['function']}: no snapshot")
            value = {record["attribute"]: ast.literal_eval(first)}
        out.append(
            {
                "name": record["name"],
                "test": f"{path}::{record['function']}",
                "attributes": value,
            }
        )
    return _indented(out, newline=False)


# ------------------------------------------------------------ examples/recorded


def cassette_exchanges(source: Source) -> bytes:
    """Every interaction of a cassette, in order, as traffic-corpus exchanges
    (``{"interactions": [{"request": ..., "response" or "stream": ...}, ...]}``)."""
    extract = extract_module()
    (path,) = source.paths
    out = []
    for index, item in enumerate(extract.interactions(source.text(path))):
        fmt = extract.format_of(str(item["request"].get("uri", "")))
        cut = extract.exchange(fmt, item) if fmt else None
        if cut is None:
            raise RecipeError(f"{path} #{index}: not an exchange")
        out.append(cut)
    return _indented({"interactions": out}, newline=False)


# ------------------------------------------------------------ tests/traffic: other projects

# Recordings of projects other than pydantic-ai: vcrpy cassettes (``interactions``; a
# body as text, as ``!!binary`` bytes, gzip- or deflate-compressed as the response's
# ``Content-Encoding`` says) and Ruby/R vcr cassettes (``http_interactions``; a body's
# ``string`` or ``base64_string``). What the wire carried is decoded, nothing more.


def _header(headers: Any, name: str) -> str:
    """A header's value (the first, lower-cased), in either cassette spelling."""
    if isinstance(headers, dict):
        for key, value in headers.items():
            if str(key).lower() == name:
                if isinstance(value, list):
                    value = value[0] if value else ""
                return str(value).lower()
    return ""


def _raw_body(part: dict[str, Any]) -> Any:
    """A recorded body as stored: text, bytes, an already parsed value, or None."""
    if part.get("parsed_body") is not None:
        return part["parsed_body"]
    body = part.get("body")
    if isinstance(body, dict):
        if "base64_string" in body:
            return base64.b64decode(body["base64_string"])
        body = body.get("string")
    return body


def _wire_body(part: dict[str, Any]) -> Any:
    """A body as its receiver read it: bytes inflated as ``Content-Encoding`` says
    (gzip, deflate), then UTF-8 text when it is text; bytes otherwise."""
    body = _raw_body(part)
    if not isinstance(body, bytes):
        return body
    encoding = _header(part.get("headers"), "content-encoding")
    if "gzip" in encoding or body[:2] == b"\x1f\x8b":
        body = gzip.decompress(body)
    elif "deflate" in encoding:
        body = zlib.decompress(body)
    elif encoding not in ("", "identity"):
        raise RecipeError(f"a body in {encoding} encoding")
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return body


def _json(value: Any) -> Any:
    """A JSON text parsed (the keys in their order); anything else as it is."""
    if isinstance(value, str) and value.lstrip()[:1] in ("{", "["):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def recorded_interactions(document: Any) -> list[dict[str, Any]]:
    """A cassette's interactions: ``{"method", "uri", "status", "request", "response"}``,
    the request's body parsed, the response's as read off the wire (see ``_wire_body``)."""
    found = None
    if isinstance(document, dict):
        found = document.get("interactions") or document.get("http_interactions")
    out = []
    for item in found or []:
        if not isinstance(item, dict) or "request" not in item or "response" not in item:
            continue
        request, response = item["request"], item["response"]
        status = response.get("status")
        if isinstance(status, dict):
            status = status.get("code")
        if isinstance(status, str) and status.isdigit():
            status = int(status)
        out.append(
            {
                "method": str(request.get("method", "")).upper(),
                "uri": str(request.get("uri", "")),
                "status": status,
                "request": _json(_wire_body(request)),
                "response": response,
            }
        )
    return out


def traffic_format(uri: str, method: str, body: Any) -> str | None:
    """The wire format of a recorded call, by its endpoint (and, for a Bedrock
    ``invoke``, its body: the Messages API's with ``anthropic_version``)."""
    path = urllib.parse.urlsplit(uri).path
    if method != "POST" or not isinstance(body, dict):
        return None
    found: str | None = extract_module().endpoint_format(path)
    if found == "openai_chat" and urllib.parse.urlsplit(uri).hostname == "api.mistral.ai":
        return "mistral"  # Mistral's chat completions: the same path, its own format
    if found is not None:
        return found
    invoke = re.search(r"/model/[^/]+/invoke(-with-response-stream)?$", path)
    if invoke and "anthropic_version" in body and "messages" in body:
        return "anthropic"
    return None


def _invoke_stream_events(data: bytes) -> list[Any]:
    """An ``invoke-with-response-stream`` body: each ``chunk`` event's ``bytes`` (base64
    in the frame's JSON payload) is one JSON event of the model's own stream."""
    events = []
    for frame in extract_module().event_stream(data):
        ((kind, payload),) = frame.items()
        if kind != "chunk":
            raise RecipeError(f"a {kind} event in the stream")
        events.append(json.loads(base64.b64decode(payload["bytes"])))
    return events


def recorded_exchange(fmt: str, interaction: dict[str, Any]) -> dict[str, Any] | None:
    """A call of ``fmt`` answered with HTTP 200, as a corpus exchange, or None:
    ``{"request", "response"}`` for a JSON answer, ``{"request", "stream"}`` for
    server-sent events (the text as recorded), a JSON array of chunks (Gemini's
    ``streamGenerateContent`` without ``alt=sse``) or an AWS event stream (Converse:
    ``{event type: payload}`` items; Bedrock ``invoke``: the model's JSON events)."""
    request = interaction["request"]
    if interaction["status"] != 200 or not isinstance(request, dict):
        return None
    answer = _wire_body(interaction["response"])
    if isinstance(answer, bytes):
        path = urllib.parse.urlsplit(interaction["uri"]).path
        if fmt == "bedrock_converse" and path.endswith("/converse-stream"):
            return {"request": request, "stream": extract_module().event_stream(answer)}
        if fmt == "anthropic" and path.endswith("/invoke-with-response-stream"):
            return {"request": request, "stream": _invoke_stream_events(answer)}
        return None
    parsed = _json(answer)
    if isinstance(parsed, dict):
        return {"request": request, "response": parsed}
    chunks = isinstance(parsed, list) and parsed and all(isinstance(i, dict) for i in parsed)
    if fmt == "gemini" and chunks:
        return {"request": request, "stream": parsed}
    if isinstance(parsed, str) and re.match(r"\s*(event|data):", parsed):
        return {"request": request, "stream": parsed}
    return None


def traffic_recorded(source: Source, *, format: str, interaction: int) -> bytes:
    """One exchange of the traffic corpus from another project's cassette: interaction
    ``interaction`` (0-based, of those with a request and a response) cut by
    :func:`recorded_exchange`, written as ``tests/traffic/extract.py`` writes one."""
    (path,) = source.paths
    found = recorded_interactions(source.yaml(path))
    if interaction >= len(found):
        raise RecipeError(f"{path}: no interaction {interaction}")
    item = found[interaction]
    if traffic_format(item["uri"], item["method"], item["request"]) != format:
        raise RecipeError(f"{path} #{interaction}: not a {format} call")
    cut = recorded_exchange(format, item)
    if cut is None:
        raise RecipeError(f"{path} #{interaction}: not an exchange")
    text: str = extract_module().dump(cut)
    return text.encode("utf-8")


# ------------------------------------------------------------ tests/payloads/mcp


def verbatim(source: Source) -> bytes:
    """A source file as it is (its UTF-8 text)."""
    (path,) = source.paths
    return source.text(path).encode("utf-8")


def json_files(source: Source, *, prefix: str) -> bytes:
    """Several JSON files as one object: each file's value under its path less ``prefix``."""
    out: dict[str, Any] = {}
    for path in source.paths:
        if not path.startswith(prefix):
            raise RecipeError(f"{path} is not under {prefix}")
        out[path[len(prefix) :]] = json.loads(source.text(path))
    return _indented(out)


RECIPES: dict[str, Recipe] = {
    "traffic_exchange": traffic_exchange,
    "traffic_recorded": traffic_recorded,
    "anthropic_requests": anthropic_requests,
    "responses_stream": responses_stream,
    "responses_requests": responses_requests,
    "json_lines": json_lines,
    "cassette_request": cassette_request,
    "bedrock_request": bedrock_request,
    "bedrock_response": bedrock_response,
    "bedrock_stream": bedrock_stream,
    "instrumented_snapshots": instrumented_snapshots,
    "cassette_exchanges": cassette_exchanges,
    "verbatim": verbatim,
    "json_files": json_files,
}
"""Every recipe, by the name ``manifest.yaml`` gives it."""
