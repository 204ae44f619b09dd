"""A fake LLM provider for testing applications: :class:`FakeProvider`.

A local HTTP server on 127.0.0.1 that speaks every provider's wire format that
chatschema has a codec for, so that an application's own code, with its official
client (``openai``, ``anthropic``, ``google-genai``, botocore's ``bedrock-runtime``),
runs end to end against scripted answers::

    from chatschema import assistant
    from chatschema.testing import FakeProvider

    with FakeProvider([assistant("Hello!")]) as fake:
        client = OpenAI(api_key="test", base_url=fake.url + "/v1")
        ...
    fake.requests[0].conversation  # what the client sent, decoded

Each request is decoded with the format's codec (``decode_conversation``), answered
from the script (a list of neutral messages, one per request; a callable; or
:class:`FakeError`), and written with the codec's ``encode_response`` or, when the
request asks to stream, ``encode_stream(..., sse=True)``. The endpoints, on one base
URL (:attr:`FakeProvider.url`):

====================================================== ==================
endpoint                                               format
====================================================== ==================
``POST /v1/chat/completions``                          ``openai_chat``
``POST /v1/responses``                                 ``openai_responses``
``POST /openresponses/v1/responses``                   ``open_responses``
``POST /v1/messages``                                  ``anthropic``
``POST /v1beta/models/{model}:generateContent``        ``gemini``
``POST /v1beta/models/{model}:streamGenerateContent``  ``gemini`` (streamed)
``POST /v1beta/interactions``                          ``gemini_interactions`` (streamed too)
``POST /model/{modelId}/converse``                     ``bedrock_converse``
``POST /model/{modelId}/converse-stream``              ``bedrock_converse``
``POST /mistral/v1/chat/completions``                  ``mistral``
====================================================== ==================

Needs the ``testing`` extra (Starlette for the ASGI application, uvicorn to serve
it): ``pip install 'chatschema[testing]'``. ``import chatschema`` does not import
this module. docs/testing.md shows it with each official client.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, get_args

try:
    import uvicorn  # noqa: F401  (LocalServer serves with it: checked here with starlette)
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route
except ImportError as error:  # pragma: no cover - the testing extra is absent
    _missing = (error.name or "starlette").split(".")[0]
    raise ImportError(
        f"chatschema.testing needs starlette and uvicorn ({_missing} is not installed): "
        "pip install 'chatschema[testing]'"
    ) from error

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage

from chatschema.errors import ChatSchemaError
from chatschema.providers import get_http_codec
from chatschema.providers._codec import ProviderName
from chatschema.providers._common.options import UnsupportedPolicy
from chatschema.providers._common.respond import ReplyOptions, as_chunk, dumps
from chatschema.providers._endpoints import ENDPOINTS, Endpoint, WireError
from chatschema.testing._server import HOST, LocalServer
from chatschema.validation import parse

__all__ = [
    "HOST",
    "FakeError",
    "FakeProvider",
    "FakeRequest",
    "LocalServer",
    "Script",
    "ScriptReply",
    "split_message",
]

logger = logging.getLogger("chatschema.testing")

ARGUMENT_PIECE = 4
"""Streamed tool-call arguments are sent in pieces of this many characters."""

_WORDS = re.compile(r"\s*\S+|\s+")


# ------------------------------------------------------------------------ errors


class FakeError(Exception):
    """An error for the fake provider to answer with, in the format's own shape.

    Put one in the script (or raise it from a script callable): the request is
    answered with HTTP ``status`` and the format's error body, which the official
    clients raise as their typed exceptions (429: ``openai.RateLimitError``,
    ``anthropic.RateLimitError``, ``google.genai.errors.ClientError``, botocore's
    ``ThrottlingException``):

    - OpenAI (Chat, Responses): ``{"error": {"message", "type", "param", "code"}}``;
    - Anthropic: ``{"type": "error", "error": {"type", "message"}}``;
    - Gemini: ``{"error": {"code", "message", "status"}}``;
    - Bedrock: ``{"message"}`` and the error's name in the ``x-amzn-ErrorType``
      header.

    With ``after``, a streamed request is answered with a stream that breaks
    midway: status 200, the first ``after`` events of ``reply``, then the format's
    error event (Chat's ``data: {"error": ...}``, Anthropic's and Responses'
    ``error`` event, Gemini's error object, Bedrock's exception message), or, with
    ``abort``, nothing more: the connection is cut before the body ends. A request
    that does not stream gets the error as above.

    Args:
        status: the HTTP status.
        message: the error's message.
        type: the error's type as the format names it (OpenAI's and Anthropic's
            ``type``, Gemini's ``status``, Bedrock's error name); by default the
            format's usual name for ``status`` (429: ``rate_limit_error``,
            ``RESOURCE_EXHAUSTED``, ``ThrottlingException`` ...).
        code: OpenAI's ``code`` (e.g. ``"rate_limit_exceeded"``).
        param: OpenAI's ``param``.
        retry_after: seconds, sent as the ``retry-after`` header.
        after: break a stream after this many events (None: answer with the error).
        abort: cut the connection instead of sending the error event.
        reply: what the broken stream begins to send (default: a few words of text).
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        type: str | None = None,
        code: str | None = None,
        param: str | None = None,
        retry_after: float | None = None,
        after: int | None = None,
        abort: bool = False,
        reply: AssistantMessage | None = None,
    ) -> None:
        super().__init__(f"{status}: {message}")
        if not 400 <= status <= 599:
            raise ValueError(f"FakeError status {status}: expected an HTTP error status (4xx, 5xx)")
        if after is not None and after < 0:
            raise ValueError(f"FakeError after={after!r}: expected a count of events >= 0")
        if abort and after is None:
            raise ValueError("FakeError abort=True cuts a stream: give `after` (events first)")
        self.status = status
        self.message = message
        self.type = type
        self.code = code
        self.param = param
        self.retry_after = retry_after
        self.after = after
        self.abort = abort
        self.reply = reply

    def __repr__(self) -> str:
        after = "" if self.after is None else f", after={self.after}, abort={self.abort}"
        return f"FakeError({self.status}, {self.message!r}, type={self.type!r}{after})"

    @property
    def wire(self) -> WireError:
        """The error as every format says it (see :class:`WireError`)."""
        seconds = self.retry_after
        retry_after = None
        if seconds is not None:
            retry_after = str(int(seconds)) if seconds == int(seconds) else str(seconds)
        return WireError(
            self.status,
            self.message,
            type=self.type,
            code=self.code,
            param=self.param,
            retry_after=retry_after,
        )

    def type_for(self, provider: str) -> str:
        """The error's type in ``provider``'s vocabulary (the given one, else by status)."""
        return self.wire.type_for(provider)

    def response(self, provider: str) -> Response:
        """The HTTP response: status, the format's error body and headers."""
        body, headers = self.wire.body(provider)
        return Response(body, self.status, headers, media_type="application/json")


ScriptReply = AssistantMessage | FakeError
"""What the script gives for one request: a message to send, or an error."""

Script = (
    Sequence[AssistantMessage | FakeError | dict[str, Any]]
    | Callable[..., ScriptReply | Awaitable[ScriptReply]]
)
"""A :class:`FakeProvider`'s script: replies in order (messages, their JSON data, or
errors), or a callable from the request's conversation (and, if it takes a second
argument, the :class:`FakeRequest`) to a reply, sync or async."""


# ------------------------------------------------------------------------ requests


@dataclass
class FakeRequest:
    """One request the fake provider received, and how it was answered.

    Attributes:
        format: the wire format of the endpoint (``"openai_chat"``, ``"anthropic"`` ...).
        path: the URL path (``/v1/messages``, ``/model/<id>/converse`` ...).
        headers: the request headers (lower-case names).
        body: the JSON body as received (None when it was not JSON).
        stream: whether the request asked for a stream.
        conversation: the body decoded by the format's codec (None when it could not
            be decoded: then :attr:`error` says why and the answer was a 400).
        model: the model the request named (its body, or the URL for Gemini and
            Bedrock); answers name it when the scripted message names none.
        reply: the scripted message answered (as scripted), or the
            :class:`FakeError` sent.
        status: the HTTP status of the answer.
        response: the answer's body as sent (a stream's whole body).
        error: why the request was not answered with a message (None when it was).
        finished: whether the whole answer was sent (False while a stream is being
            sent, and for good when the client went away before its end).
        cancelled: whether a stream stopped before its end because the client went
            away (or, with ``FakeError(abort=True)``, because it was cut).
    """

    format: ProviderName
    path: str
    headers: dict[str, str]
    body: Any
    stream: bool
    conversation: Conversation | None = None
    model: str | None = None
    reply: AssistantMessage | FakeError | None = None
    status: int = 0
    response: bytes = b""
    error: str | None = None
    finished: bool = False
    cancelled: bool = False


# ------------------------------------------------------------------ stream pieces


def split_message(message: AssistantMessage, *, pieces: bool = True) -> list[AssistantMessageChunk]:
    """A message as the chunks of a stream that assembles back to it.

    With ``pieces``, the text of each text and reasoning block is sent a word at a
    time (``"The"``, ``" capital"``, ...) and each tool call's arguments in pieces of
    :data:`ARGUMENT_PIECE` characters, so that clients see several deltas; other
    blocks go whole, and the last chunk carries the finish reason and usage.
    Without ``pieces``, the message is one chunk. ``merge_chunks`` of the result
    gives the message back.
    """
    whole = as_chunk(message)
    if not pieces:
        return [whole]
    data = whole.model_dump(mode="python", exclude_unset=True, by_alias=True)
    content = data.pop("content", None)
    calls = data.pop("tool_call_chunks", None) or []
    last: tuple[str, ...] = ("usage", "usage_mode", "finish_reason", "raw_finish_reason")
    tail: dict[str, Any] = {key: data.pop(key) for key in last if key in data}
    data.pop("chunk_position", None)
    if isinstance(content, str):
        content = [{"type": "text", "text": content, "index": 0}] if content else []
    deltas: list[dict[str, Any]] = []
    for block in content or []:
        text = block.get("text")
        kind = block.get("type")
        if kind in ("text", "reasoning") and isinstance(text, str) and text:
            words = [word for word in _WORDS.findall(text) if word]
            for number, word in enumerate(words):
                piece = dict(block) if number == 0 else {"type": kind, "index": block["index"]}
                piece["text"] = word
                deltas.append({"content": [piece]})
        else:
            deltas.append({"content": [block]})
    for call in calls:
        arguments: str = call.get("arguments") or ""
        starts = range(0, len(arguments), ARGUMENT_PIECE) if arguments else [0]
        for number, start in enumerate(starts):
            part = dict(call) if number == 0 else {"index": call["index"]}
            part["arguments"] = arguments[start : start + ARGUMENT_PIECE]
            deltas.append({"tool_call_chunks": [part]})
    if not deltas:
        deltas.append({})
    deltas[0] = {**data, **deltas[0]}
    deltas[-1] = {**deltas[-1], **tail, "chunk_position": "last"}
    role = {"role": "assistant"}
    return [AssistantMessageChunk.model_validate({**role, **delta}) for delta in deltas]


# ------------------------------------------------------------------ the provider


class FakeProvider:
    """A fake LLM provider: every format's HTTP API on one local base URL, scripted.

    ``with FakeProvider(script) as fake:`` serves it on 127.0.0.1 (a port the OS
    picks) with uvicorn in a background thread; ``async with`` serves it in the
    running event loop; :attr:`app` is the ASGI application itself (Starlette), to
    use without a server (``httpx.ASGITransport(app=fake.app)``).

    Each request is decoded with the format's codec and kept in :attr:`requests`,
    then answered from ``script``:

    - a list of replies, one per request, in order: :class:`AssistantMessage`
      (or its JSON data) or :class:`FakeError`; a request after the last is
      answered with a 500 error in the format's shape saying the script is
      exhausted (and logged on the ``chatschema.testing`` logger);
    - a callable ``reply(conversation)`` (or ``reply(conversation, request)``,
      given the :class:`FakeRequest` when it takes two positional arguments),
      sync or async, returning a message or a :class:`FakeError` (or raising one).

    The answer is the codec's ``encode_response`` of the message, or, when the
    request asks to stream (``"stream": true`` for OpenAI and Anthropic; the
    ``:streamGenerateContent`` and ``converse-stream`` endpoints), its
    ``encode_stream(..., sse=True)``: server-sent events, or AWS event-stream frames
    for Bedrock. A message that names no model names the request's. A body the
    codec cannot decode is answered with a 400 in the format's error shape.

    Args:
        script: the replies (see above).
        id_seed: make the ids a message lacks (response, item ids) deterministic:
            request ``n`` uses the seed ``f"{id_seed}:{n}"``, so that every answer's
            ids differ and a rerun gives the same. Without it they are random.
        created: the Unix time written where the provider sends one (default: now).
        unsupported: what to do with content the format cannot carry in a response
            (``"error"``, the default, answers a 500 naming it; ``"drop"``;
            ``"placeholder"``).
        pieces: stream text a word at a time and tool-call arguments in small
            pieces, so that clients see several deltas (default); False streams
            each message as one chunk (see :func:`split_message`).
        latency: seconds to wait before each answer and between the events of a
            stream (default 0).
    """

    def __init__(
        self,
        script: Script,
        *,
        id_seed: int | str | None = None,
        created: int | None = None,
        unsupported: UnsupportedPolicy = "error",
        pieces: bool = True,
        latency: float = 0.0,
    ) -> None:
        if callable(script):
            self._callable: Callable[..., ScriptReply | Awaitable[ScriptReply]] | None = script
            self._script: list[ScriptReply] = []
            self._takes_request = _takes_two(script)
        elif isinstance(script, Sequence) and not isinstance(script, str | bytes):
            self._callable = None
            self._script = [_scripted(item, position) for position, item in enumerate(script)]
            self._takes_request = False
        else:
            raise TypeError(
                "FakeProvider takes a list of replies (AssistantMessage, FakeError) or a "
                f"callable, not {type(script).__name__}"
            )
        if unsupported not in get_args(UnsupportedPolicy):
            raise ValueError(
                f"unsupported={unsupported!r}: expected one of {get_args(UnsupportedPolicy)}"
            )
        if latency < 0:
            raise ValueError(f"latency={latency!r}: expected seconds >= 0")
        self.id_seed = id_seed
        self.created = created
        self.unsupported: UnsupportedPolicy = unsupported
        self.pieces = pieces
        self.latency = latency
        self.requests: list[FakeRequest] = []
        """Every request received, in order (see :class:`FakeRequest`)."""
        self._answered = 0
        self.app: Starlette = self._make_app()
        """The ASGI application (Starlette): every endpoint, without a server."""
        self._server = LocalServer(self.app, name="FakeProvider")

    # ----------------------------------------------------------------- serving

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:<port>`` (while serving).

        What each official client takes: ``OpenAI(base_url=fake.url + "/v1")``,
        ``Anthropic(base_url=fake.url)``, ``genai.Client(http_options={"base_url":
        fake.url})``, ``session.create_client("bedrock-runtime",
        endpoint_url=fake.url)``.

        Raises:
            RuntimeError: when the server is not running.
        """
        return self._server.url

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._server.running

    def __enter__(self) -> FakeProvider:
        """Serve in a background thread (uvicorn); returns once it accepts connections."""
        self._server.__enter__()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop the server and wait for its thread to end."""
        self._server.__exit__(kind, value, traceback)

    async def __aenter__(self) -> FakeProvider:
        """Serve in the running event loop (uvicorn); returns once it accepts connections."""
        await self._server.__aenter__()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        """Stop the server and wait for it to end."""
        await self._server.__aexit__(kind, value, traceback)

    # ----------------------------------------------------------------- the app

    def _make_app(self) -> Starlette:
        def route(path: str, endpoint: Endpoint) -> Route:
            async def handle(request: Request) -> Response:
                return await self._handle(request, endpoint)

            return Route(path, handle, methods=["POST"])

        routes = [route(endpoint.path, endpoint) for endpoint in ENDPOINTS]
        app = Starlette(routes=routes)
        app.add_exception_handler(404, _not_found)
        app.add_exception_handler(405, _not_found)
        return app

    async def _handle(self, request: Request, endpoint: Endpoint) -> Response:
        provider = endpoint.provider
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        stream = endpoint.stream
        if stream is None:
            stream = isinstance(body, dict) and body.get("stream") is True
        record = FakeRequest(
            format=provider,
            path=request.url.path,
            headers=dict(request.headers.items()),
            body=body,
            stream=stream,
        )
        if endpoint.model_in_path:
            record.model = request.path_params["model"]
        elif isinstance(body, dict) and isinstance(body.get("model"), str):
            record.model = body["model"] or None
        self.requests.append(record)
        number = len(self.requests) - 1
        if not isinstance(body, dict):
            what = "not JSON" if body is None and raw.strip() != b"null" else "not a JSON object"
            return self._refuse(
                record, FakeError(400, f"chatschema FakeProvider: the request body is {what}")
            )
        payload = body
        if endpoint.model_in_path:
            model = request.path_params["model"]
            payload = {**body, ("modelId" if provider == "bedrock_converse" else "model"): model}
        codec = get_http_codec(provider)
        try:
            conversation = codec.decode_conversation(payload)
        except (ChatSchemaError, ValueError, TypeError, KeyError) as error:
            reason = " ".join(str(error).split())
            return self._refuse(
                record,
                FakeError(
                    400,
                    f"chatschema FakeProvider could not decode the {provider} request to "
                    f"POST {record.path}: {reason}",
                ),
            )
        record.conversation = conversation
        settings = conversation.settings
        if settings is not None and settings.model:
            record.model = settings.model
        reply = await self._reply(conversation, record)
        record.reply = reply
        broken: FakeError | None = None
        if isinstance(reply, FakeError):
            if not (stream and reply.after is not None):
                return self._refuse(record, reply, scripted=True)
            broken, reply = reply, reply.reply or _BREAKING
        options: ReplyOptions = {"unsupported": self.unsupported}
        if self.id_seed is not None:
            options["id_seed"] = f"{self.id_seed}:{number}"
        if self.created is not None:
            options["created"] = self.created
        if record.model:
            options["model"] = record.model
        try:
            if stream:
                return self._stream(record, reply, options, request, broken)
            data = codec.encode_response(reply, **options)
        except (ChatSchemaError, ValueError, TypeError) as error:
            logger.exception("FakeProvider: the reply to request %d cannot be written", number)
            reason = " ".join(str(error).split())
            return self._refuse(
                record,
                FakeError(500, f"the scripted reply cannot be written as {provider}: {reason}"),
            )
        record.status = 200
        record.response = dumps(data)
        if self.latency:
            await asyncio.sleep(self.latency)
        record.finished = True
        return Response(record.response, 200, media_type="application/json")

    def _stream(
        self,
        record: FakeRequest,
        reply: AssistantMessage,
        options: ReplyOptions,
        request: Request,
        broken: FakeError | None,
    ) -> Response:
        codec = get_http_codec(record.format)
        if record.format == "openai_chat" and reply.usage is not None:
            # Chat Completions streams send usage only when the request asks for it
            asked = record.body.get("stream_options")
            if not (isinstance(asked, dict) and asked.get("include_usage") is True):
                data = reply.model_dump(mode="python", exclude_unset=True, by_alias=True)
                data.pop("usage", None)
                reply = AssistantMessage.model_validate(data)
        chunks = split_message(reply, pieces=self.pieces)
        media_type = "text/event-stream"
        if record.format == "bedrock_converse":
            media_type = "application/vnd.amazon.eventstream"
        array = record.format == "gemini" and request.query_params.get("alt") != "sse"
        if array:
            # without alt=sse, Gemini streams one JSON array of the responses
            events = [dumps(event) for event in codec.encode_stream(chunks, **options)]
            if broken is not None:
                events = events[: broken.after]
                if not broken.abort:
                    body, _ = broken.wire.body(record.format)
                    events.append(body)
            frames = [b"[" + b",\r\n".join(events) + (b"" if broken else b"]")]
            media_type = "application/json"
        else:
            frames = list(codec.encode_stream(chunks, sse=True, **options))
            if broken is not None:
                frames = frames[: broken.after]
                if not broken.abort:
                    frames.append(broken.wire.event(record.format, sequence_number=len(frames)))
        record.status = 200
        record.response = b"".join(frames)
        cut = broken is not None and broken.abort
        return StreamingResponse(self._send(frames, record, cut), 200, media_type=media_type)

    async def _send(
        self, frames: list[bytes], record: FakeRequest, cut: bool
    ) -> AsyncIterator[bytes]:
        try:
            for frame in frames:
                if self.latency:
                    await asyncio.sleep(self.latency)
                yield frame
            if cut:
                # raising inside the body makes the server drop the connection mid-body
                raise _Cut("FakeProvider: the stream is cut as scripted (FakeError abort=True)")
            record.finished = True
        finally:
            record.cancelled = not record.finished

    def _refuse(self, record: FakeRequest, error: FakeError, *, scripted: bool = False) -> Response:
        if not scripted:
            record.error = error.message
        if record.reply is None:
            record.reply = error
        response = error.response(record.format)
        record.status = response.status_code
        record.response = bytes(response.body)
        return response

    async def _reply(self, conversation: Conversation, record: FakeRequest) -> ScriptReply:
        """The script's reply to a request (a FakeError for a failure of the script)."""
        number = len(self.requests) - 1
        if self._callable is None:
            if self._answered >= len(self._script):
                message = (
                    f"chatschema FakeProvider: the script is exhausted: request {number + 1} "
                    f"(POST {record.path}) came after the {len(self._script)} scripted "
                    f"repl{'y' if len(self._script) == 1 else 'ies'}"
                )
                logger.error("%s", message)
                record.error = message
                return FakeError(500, message)
            reply = self._script[self._answered]
            self._answered += 1
            return reply
        try:
            args = (conversation, record) if self._takes_request else (conversation,)
            result = self._callable(*args)
            if inspect.isawaitable(result):
                result = await result
            return _scripted(result, number)
        except FakeError as error:
            return error
        except Exception as error:
            logger.exception("FakeProvider: the script raised for request %d", number + 1)
            message = (
                f"chatschema FakeProvider: the script raised for request {number + 1}: "
                f"{type(error).__name__}: {error}"
            )
            record.error = message
            return FakeError(500, message)

    @property
    def remaining(self) -> int | None:
        """How many scripted replies are left (None for a callable script)."""
        return None if self._callable is not None else len(self._script) - self._answered


class _Cut(Exception):
    """Raised in a stream's body to cut the connection (``FakeError(abort=True)``)."""


def _not_a_cut(record: logging.LogRecord) -> bool:
    """Keep uvicorn's log records except its traceback of a scripted cut."""
    return not (record.exc_info and isinstance(record.exc_info[1], _Cut))


logging.getLogger("uvicorn.error").addFilter(_not_a_cut)


_BREAKING = AssistantMessage.model_validate(
    {"role": "assistant", "content": "This answer breaks off before it ends."}
)
"""What a stream broken by a :class:`FakeError` with ``after`` sends first, by default."""


def _scripted(item: Any, position: int) -> ScriptReply:
    """A script item as a reply: a message (or its JSON data), or a FakeError."""
    if isinstance(item, AssistantMessage | FakeError):
        return item
    if isinstance(item, dict):
        return parse(item, AssistantMessage)
    raise TypeError(
        f"script item {position} is {type(item).__name__}: expected an AssistantMessage "
        "(or its JSON data) or a FakeError"
    )


def _takes_two(function: Callable[..., Any]) -> bool:
    """Whether ``function`` accepts two positional arguments."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return False
    positional = 0
    for parameter in parameters:
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            return True
        if parameter.kind in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        ):
            positional += 1
    return positional >= 2


async def _not_found(request: Request, exc: Exception) -> Response:
    """An unknown endpoint: a JSON 404 naming the ones served."""
    endpoints = [endpoint.shown for endpoint in ENDPOINTS]
    message = (
        f"chatschema FakeProvider has no endpoint {request.method} {request.url.path}; "
        f"it serves {', '.join(endpoints)}"
    )
    logger.error("%s", message)
    body = {"error": {"message": message, "type": "not_found_error", "code": 404}}
    return Response(dumps(body), 404, media_type="application/json")
