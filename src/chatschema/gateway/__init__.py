"""A translating gateway: a client of any format talks to a provider of any other.

:func:`create_app` returns an ASGI application (Starlette) that serves every HTTP
format's endpoints, the paths :class:`~chatschema.testing.FakeProvider` serves, and
forwards each request to one upstream, in the upstream's format::

    from chatschema.gateway import create_app

    app = create_app(upstream="anthropic", url="https://api.anthropic.com")
    # uvicorn module:app, or: chatschema serve --upstream anthropic --url ...

    client = OpenAI(base_url="http://127.0.0.1:8000/v1", api_key="unused")
    client.chat.completions.create(model="claude-sonnet-4-5", messages=[...])

A request in the caller's format is decoded and checked, encoded for the upstream
with the codec options (``unsupported``, ``reasoning``), and sent with one pooled
``httpx.AsyncClient``. The answer (a body, a stream, or an error) is decoded and
written back in the caller's format; a stream is translated event by event as it
arrives. Errors keep their HTTP status in the caller's error shape (a rate limit
keeps its ``retry-after``); a request the upstream cannot say is refused with a 400
before anything is sent; a stream that breaks midway ends with the caller's error
event; an upstream that does not answer in ``read_timeout`` seconds is a 504.

Opaque values (reasoning signatures, encrypted reasoning, Gemini thought
signatures) go upstream only when they came from the upstream's own format; the
others are left out, and the response's ``chatschema-omitted`` header names each
one (``/messages/1/content/0 signature from anthropic``).

The gateway keeps no state between requests: run as many processes as needed
behind a load balancer. Needs the ``gateway`` extra (Starlette, uvicorn, httpx):
``pip install 'chatschema[gateway]'``; a Bedrock upstream signed with AWS
credentials needs botocore too. docs/gateway.md shows it with each official client.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import replace
from typing import Any, get_args
from urllib.parse import urlsplit

try:
    import anyio
    import httpx
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route
except ImportError as error:  # pragma: no cover - the gateway extra is absent
    _missing = (error.name or "starlette").split(".")[0]
    raise ImportError(
        f"chatschema.gateway needs starlette, uvicorn and httpx ({_missing} is not "
        "installed): pip install 'chatschema[gateway]'"
    ) from error

from chatschema_models.chunk import AssistantMessageChunk
from chatschema_models.conversation import Conversation

from chatschema.errors import ChatSchemaError, UnsupportedContentError
from chatschema.gateway._credentials import (
    KEY_VARIABLES,
    Signer,
    aws_signer,
    caller_key,
    key_from_environment,
)
from chatschema.gateway._opaque import (
    chunk_without_opaque,
    has_opaque,
    omitted,
    sign_foreign_calls,
    without_opaque,
)
from chatschema.providers import get_http_codec
from chatschema.providers._codec import HTTP_PROVIDERS, ProviderName
from chatschema.providers._common.drive import pushed
from chatschema.providers._common.options import (
    EncodeOptions,
    ReasoningPolicy,
    SettingsPolicy,
    UnsupportedPolicy,
    dropped_settings_collected,
)
from chatschema.providers._common.respond import ReplyOptions, dumps, pushed_writer
from chatschema.providers._common.sse import SSEParser
from chatschema.providers._endpoints import (
    ENDPOINTS,
    Endpoint,
    WireError,
    family,
    read_error,
    upstream_path,
)
from chatschema.providers.bedrock_converse import json_form

__all__ = ["ANTHROPIC_VERSION", "KEY_VARIABLES", "OMITTED_HEADER", "create_app", "endpoints"]

logger = logging.getLogger("chatschema.gateway")

OMITTED_HEADER = "chatschema-omitted"
"""The response header naming the opaque values left out of the upstream request."""

ANTHROPIC_VERSION = "2023-06-01"
"""The ``anthropic-version`` sent to an Anthropic upstream (a caller's own is kept)."""

_OMITTED_SHOWN = 20
"""Opaque values named in the header at most (the log line names every one)."""

_MEDIA_TYPES = {"bedrock_converse": "application/vnd.amazon.eventstream"}


class _StreamBroken(ChatSchemaError):
    """The upstream's stream reported an error, or ended before its end."""

    def __init__(self, error: WireError) -> None:
        super().__init__(error.message)
        self.error = error


class _Gateway:
    """The configuration and the pooled client behind one application."""

    def __init__(
        self,
        upstream: ProviderName,
        url: str,
        *,
        api_key: str | None,
        pass_key: bool,
        model: str | Mapping[str, str] | None,
        max_tokens: int,
        unsupported: UnsupportedPolicy,
        unsupported_settings: SettingsPolicy | None,
        reasoning: ReasoningPolicy,
        connect_timeout: float,
        read_timeout: float,
        max_connections: int | None,
        region: str | None,
        headers: Mapping[str, str] | None,
    ) -> None:
        self.upstream: ProviderName = upstream
        self.url = url.rstrip("/")
        self.codec = get_http_codec(upstream)
        self.pass_key = pass_key
        self.model = model
        self.max_tokens = max_tokens
        self.unsupported: UnsupportedPolicy = unsupported
        self.unsupported_settings: SettingsPolicy | None = unsupported_settings
        self.reasoning: ReasoningPolicy = reasoning
        self.timeout = httpx.Timeout(read_timeout, connect=connect_timeout, pool=connect_timeout)
        self.limits = httpx.Limits(
            max_connections=max_connections,
            max_keepalive_connections=max_connections or 100,
            # below the 5 s uvicorn and many servers keep an idle connection: a pooled
            # connection is not reused just as the server closes it
            keepalive_expiry=4.0,
        )
        self.extra_headers = dict(headers or {})
        self.key = api_key if api_key is not None else key_from_environment(upstream)
        self.signer: Signer | None = None
        if upstream == "bedrock_converse" and self.key is None:
            self.signer = aws_signer(region, self.url)
        self._client: httpx.AsyncClient | None = None

    @property
    def client(self) -> httpx.AsyncClient:
        """The pooled HTTP client (made on first use, closed with the application)."""
        if self._client is None:
            self._client = httpx.AsyncClient(timeout=self.timeout, limits=self.limits)
        return self._client

    async def close(self) -> None:
        """Close the pooled client."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    def secret(self, text: str) -> str:
        """``text`` with the configured key masked, for error bodies and logs."""
        return text.replace(self.key, "***") if self.key else text

    # ---------------------------------------------------------------- a request

    async def handle(self, request: Request, endpoint: Endpoint) -> Response:
        """Translate one request: decode, encode for the upstream, send, translate back."""
        caller = endpoint.provider
        raw = await request.body()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            what = "not JSON" if body is None and raw.strip() != b"null" else "not a JSON object"
            return self.refuse(caller, WireError(400, f"the request body is {what}"))
        stream = endpoint.stream
        if stream is None:
            stream = body.get("stream") is True
        payload = body
        if endpoint.model_in_path:
            key = "modelId" if caller == "bedrock_converse" else "model"
            payload = {**body, key: request.path_params["model"]}
        try:
            conversation = get_http_codec(caller).decode_conversation(payload)
        except (ChatSchemaError, ValueError, TypeError, KeyError) as error:
            reason = " ".join(str(error).split())
            return self.refuse(caller, WireError(400, f"the {caller} request: {reason}"))
        conversation = self.with_model(conversation)
        try:
            with dropped_settings_collected() as dropped:
                upstream_body = self.encode(conversation, caller, stream=stream)
        except UnsupportedContentError as error:
            return self.refuse(caller, WireError(400, _unsayable(error, self.upstream)))
        except (ChatSchemaError, ValueError, TypeError) as error:
            reason = " ".join(str(error).split())
            return self.refuse(
                caller, WireError(400, f"the request cannot be sent to {self.upstream}: {reason}")
            )
        settings = conversation.settings
        model = settings.model if settings is not None else None
        try:
            path = upstream_path(self.upstream, model, stream=stream)
        except ValueError as error:
            return self.refuse(caller, WireError(400, str(error)))
        content = dumps(upstream_body)
        url = self.url + path
        headers = self.headers(request, caller, url, content)
        omitted_values = omitted(conversation, self.upstream, self.reasoning)
        extra: dict[str, str] = {}
        if omitted_values:
            self.left_out(caller, "request", omitted_values, extra)
        if dropped:  # settings the upstream has no key for (unsupported_settings="drop")
            self.left_out(caller, "request", [problem.pointer for problem in dropped], extra)
        outgoing = self.client.build_request("POST", url, content=content, headers=headers)
        try:
            answer = await self.client.send(outgoing, stream=stream)
        except httpx.TimeoutException:
            return self.refuse(caller, self.timed_out(), extra)
        except httpx.HTTPError as error:
            return self.refuse(caller, self.unreachable(error), extra)
        if answer.status_code >= 400:
            try:
                await answer.aread()
            except httpx.HTTPError:
                pass
            finally:
                await answer.aclose()
            found = read_error(self.upstream, answer.status_code, answer.content, answer.headers)
            return self.refuse(caller, replace(found, message=self.secret(found.message)), extra)
        options: ReplyOptions = {"unsupported": self.unsupported}
        if stream:
            return self.relay(request, caller, body, answer, options, extra)
        try:
            message = self.codec.decode_response(json.loads(answer.content))
            if caller != self.upstream:
                message, left_out = without_opaque(message, self.upstream)
                if left_out:
                    self.left_out(caller, "answer", left_out, extra)
            data = get_http_codec(caller).encode_response(message, **options)
        except UnsupportedContentError as error:
            reason = " ".join(str(error).split())
            return self.refuse(
                caller, WireError(502, f"the answer cannot be said: {reason}"), extra
            )
        except (ChatSchemaError, ValueError, TypeError) as error:
            reason = " ".join(str(error).split())
            text = f"the {self.upstream} answer could not be read: {reason}"
            return self.refuse(caller, WireError(502, self.secret(text)), extra)
        return Response(dumps(data), 200, extra, media_type="application/json")

    def with_model(self, conversation: Conversation) -> Conversation:
        """The conversation naming the upstream's model (the ``model`` option)."""
        if self.model is None:
            return conversation
        settings = conversation.settings
        named = settings.model if settings is not None else None
        if isinstance(self.model, str):
            model: str | None = self.model
        else:
            model = self.model.get(named, named) if named is not None else None
        if model is None or model == named:
            return conversation
        data = conversation.model_dump(mode="python", exclude_unset=True, by_alias=True)
        data.setdefault("settings", {})["model"] = model
        return Conversation.model_validate(data)

    def encode(self, conversation: Conversation, caller: str, *, stream: bool) -> dict[str, Any]:
        """The upstream's request body: encoded, then given its transport keys."""
        options: EncodeOptions = {
            "unsupported": self.unsupported,
            "reasoning": self.reasoning,
            # a Chat caller's reasoning_content goes back to a Chat upstream as it came
            "reasoning_content": self.upstream == "openai_chat" and caller == "openai_chat",
        }
        if self.unsupported_settings is not None:
            options["unsupported_settings"] = self.unsupported_settings
        body = self.codec.encode(conversation, **options)
        extra_body = body.pop("extra_body", None)
        if isinstance(extra_body, dict):  # the SDKs merge extra_body into the JSON body
            body.update(extra_body)
        upstream = self.upstream
        if upstream == "gemini":
            body.pop("model", None)  # the model is in the path
            sign_foreign_calls(body)
            return body
        if upstream == "bedrock_converse":
            body.pop("modelId", None)
            wire: dict[str, Any] = json_form(body)  # boto3 takes bytes; HTTP, base64 text
            return wire
        body.pop("stream", None)
        body.pop("stream_options", None)
        if upstream == "anthropic" and "max_tokens" not in body:
            body["max_tokens"] = self.max_tokens  # required by the Messages API
        if stream:
            body["stream"] = True
            if upstream == "openai_chat":  # usage comes only when asked for
                body["stream_options"] = {"include_usage": True}
        return body

    def headers(self, request: Request, caller: str, url: str, content: bytes) -> dict[str, str]:
        """The upstream request's headers: its credentials and the ones its API needs."""
        headers = {"content-type": "application/json", **self.extra_headers}
        key = self.key
        same = family(caller) == family(self.upstream)
        if self.pass_key and same:
            key = caller_key(request, caller) or key
        upstream = self.upstream
        if upstream == "anthropic":
            version = request.headers.get("anthropic-version") if same else None
            headers["anthropic-version"] = version or ANTHROPIC_VERSION
            beta = request.headers.get("anthropic-beta") if same else None
            if beta:
                headers["anthropic-beta"] = beta
            if key:
                headers["x-api-key"] = key
        elif upstream in ("gemini", "gemini_interactions"):
            if key:
                headers["x-goog-api-key"] = key
        elif key:
            headers["authorization"] = f"Bearer {key}"
        elif self.signer is not None:
            headers = self.signer.headers(url, content, headers)
        return headers

    def left_out(self, caller: str, where: str, values: list[str], extra: dict[str, str]) -> None:
        """Say which opaque values were left out: a log line, and the response header."""
        logger.info(
            "%s -> %s: left out of the %s: %s", caller, self.upstream, where, "; ".join(values)
        )
        named = [f"{where} {value}" for value in values]
        if OMITTED_HEADER in extra:
            extra[OMITTED_HEADER] += ", " + _header_value(named)
        else:
            extra[OMITTED_HEADER] = _header_value(named)

    def timed_out(self) -> WireError:
        """The 504 for an upstream that did not answer in time."""
        seconds = self.timeout.read
        return WireError(504, f"the {self.upstream} upstream did not answer within {seconds} s")

    def unreachable(self, error: Exception) -> WireError:
        """The 502 for an upstream that could not be reached."""
        reason = self.secret(" ".join(str(error).split()) or type(error).__name__)
        return WireError(502, f"the {self.upstream} upstream could not be reached: {reason}")

    def refuse(
        self, caller: str, error: WireError, extra: Mapping[str, str] | None = None
    ) -> Response:
        """An error answer in the caller's error shape."""
        if error.status >= 500 or error.status == 400:
            logger.warning("%s -> %s: %d %s", caller, self.upstream, error.status, error.message)
        body, headers = error.body(caller)
        if extra:
            headers.update(extra)
        return Response(body, error.status, headers, media_type="application/json")

    # ------------------------------------------------------------------ streams

    def relay(
        self,
        request: Request,
        caller: ProviderName,
        body: dict[str, Any],
        answer: httpx.Response,
        options: ReplyOptions,
        extra: dict[str, str],
    ) -> Response:
        """The caller's stream, translated from the upstream's as it arrives."""
        usage = True
        if caller == "openai_chat":  # Chat streams carry usage only when asked for it
            asked = body.get("stream_options")
            usage = isinstance(asked, dict) and asked.get("include_usage") is True
        array = caller == "gemini" and request.query_params.get("alt") != "sse"
        frames = self.frames(caller, answer, options, usage=usage, array=array)
        media_type = "application/json" if array else _MEDIA_TYPES.get(caller, "text/event-stream")
        return StreamingResponse(frames, 200, extra, media_type=media_type)

    async def frames(
        self,
        caller: ProviderName,
        answer: httpx.Response,
        options: ReplyOptions,
        *,
        usage: bool,
        array: bool,
    ) -> AsyncIterator[bytes]:
        """The caller's stream body; an upstream failure ends it with the caller's error event.

        Each network read is translated at once, without a generator per event: its
        events decoded (the upstream codec's decoder, pushed), checked, and written
        (the caller's codec's writer, pushed); their frames leave in one write.
        """
        sent = 0
        held: list[bytes] = []
        failure: WireError | None = None
        checked = _Checked(self.upstream, usage=usage, strip=caller != self.upstream)
        try:
            decoder = pushed(self.codec.decode_stream)
            writer = pushed_writer(get_http_codec(caller).encode_stream, sse=not array, **options)
            async for events in self.batches(answer):
                frames = writer.feed(checked.chunks(decoder.feed(events)))
                if array:
                    frames = _array_items(frames, sent)
                sent += len(frames)
                if frames:
                    yield b"".join(frames)
                if decoder.stopped:
                    break
            frames = writer.feed(checked.chunks(decoder.end()))
            checked.finish()
            frames += writer.end()
            if array:
                frames = _array_items(frames, sent)
                frames.append(b"]" if sent + len(frames) else b"[]")
            held = frames
            if checked.left_out:
                text = "; ".join(checked.left_out)
                logger.info("%s <- %s: left out of the answer: %s", caller, self.upstream, text)
        except _StreamBroken as broken:
            failure = broken.error
        except httpx.TimeoutException:
            failure = self.timed_out()
        except httpx.HTTPError as error:
            text = f"the {self.upstream} stream broke: {' '.join(str(error).split())}"
            failure = WireError(502, self.secret(text))
        except ChatSchemaError as error:
            reason = " ".join(str(error).split())
            text = f"the {self.upstream} stream could not be translated: {reason}"
            failure = WireError(502, self.secret(text))
        except Exception:  # a fault of the gateway: the stream still ends with an error
            logger.exception("%s <- %s: the gateway failed mid-stream", caller, self.upstream)
            failure = WireError(500, "the gateway failed on this stream (see its log)")
        finally:
            with anyio.CancelScope(shield=True):  # a caller gone: the upstream request ends too
                await answer.aclose()
        if failure is not None:
            held = [self.error_frame(caller, failure, sent, array=array)]
        if held:
            yield b"".join(held)

    def error_frame(self, caller: str, error: WireError, sent: int, *, array: bool) -> bytes:
        """The event that ends the caller's stream with ``error``."""
        logger.warning("%s <- %s stream: %s", caller, self.upstream, error.message)
        if array:
            body, _ = error.body(caller)
            return (b"," if sent else b"[") + body + b"]"
        return error.event(caller, sequence_number=sent)

    async def batches(self, answer: httpx.Response) -> AsyncIterator[list[Any]]:
        """The upstream's stream events, parsed a network read at a time; errors raise."""
        upstream = self.upstream
        if upstream == "bedrock_converse":
            from chatschema.providers.bedrock_converse.eventstream import EventStreamReader
            from chatschema.providers.bedrock_converse.wire import ERROR_EVENTS

            reader = EventStreamReader()
            async for piece in answer.aiter_raw():
                batch = reader.feed(piece)
                for event in batch:
                    if ERROR_EVENTS.intersection(event):
                        ((name, detail),) = event.items()
                        text = detail.get("message") if isinstance(detail, dict) else None
                        text = f"{name}: {text or 'the stream reported an error'}"
                        raise _StreamBroken(WireError(502, self.secret(text)))
                if batch:
                    yield batch
            reader.end()
            return
        parser = SSEParser(provider=upstream)
        async for piece in answer.aiter_raw():
            batch = self.checked_events(parser.feed(piece))
            if batch:
                yield batch
            if parser.done:
                return
        batch = self.checked_events(parser.end())
        if batch:
            yield batch

    def checked_events(self, events: list[Any]) -> list[Any]:
        """``events``, unless one is an error event: then its error is raised."""
        for event in events:
            if type(event) is dict and _is_error(event):
                raise _StreamBroken(self.stream_error(event))
        return events

    def stream_error(self, event: dict[str, Any]) -> WireError:
        """An upstream's stream error event as a :class:`WireError`."""
        inner = event.get("error")
        detail = inner if isinstance(inner, dict) else event
        message = detail.get("message")
        kind = detail.get("status") if family(self.upstream) == "gemini" else detail.get("type")
        if kind == "error" or not isinstance(kind, str):
            kind = detail.get("code") if isinstance(detail.get("code"), str) else None
        code = detail.get("raw_status_code", detail.get("code"))  # Mistral's, else Gemini's
        status = code if isinstance(code, int) and 400 <= code <= 599 else 502
        return WireError(
            status,
            self.secret(message if isinstance(message, str) else "the stream reported an error"),
            type=kind,
            family=family(self.upstream) if kind else None,
        )


def _array_items(events: list[Any], sent: int) -> list[bytes]:
    """Events as the items of a JSON array stream (Gemini without ``alt=sse``)."""
    return [(b"," if sent + number else b"[") + dumps(event) for number, event in enumerate(events)]


def _is_error(event: dict[str, Any]) -> bool:
    """Whether an SSE payload is an error event (every format's ``error``)."""
    return (
        event.get("type") == "error"
        or event.get("object") == "error"  # Mistral's flat error object
        or ("error" in event and isinstance(event["error"], dict) and "type" not in event)
    )


class _Checked:
    """A relayed stream's chunks, checked: its end seen, usage and opaque values minded."""

    __slots__ = ("finished", "left_out", "strip", "upstream", "usage")

    def __init__(self, upstream: str, *, usage: bool, strip: bool) -> None:
        self.upstream = upstream
        self.usage = usage  # whether the caller takes usage (Chat: when it asked)
        self.strip = strip  # whether opaque values are left out (another format)
        self.finished = False  # a chunk said the answer is complete
        self.left_out: list[str] = []

    def chunks(self, chunks: list[AssistantMessageChunk]) -> list[AssistantMessageChunk]:
        """``chunks`` as the caller's writer takes them."""
        for number, chunk in enumerate(chunks):
            if chunk.chunk_position == "last" or chunk.finish_reason is not None:
                self.finished = True
            if not self.usage and chunk.usage is not None:
                chunk = chunks[number] = chunk.model_copy(update={"usage": None})
            if self.strip and type(chunk.content) is list:
                for block in chunk.content:
                    if block.type == "reasoning" and has_opaque(block):
                        chunks[number] = chunk_without_opaque(chunk, self.upstream, self.left_out)
                        break
        return chunks

    def finish(self) -> None:
        """The upstream's stream ended: refuse it when the answer was not complete."""
        if not self.finished:
            raise _StreamBroken(
                WireError(502, f"the {self.upstream} stream ended before the answer was complete")
            )


def _unsayable(error: UnsupportedContentError, upstream: str) -> str:
    """The 400's message for content the upstream cannot carry: what, and where."""
    problems = [f"{problem.pointer}: {problem.message}" for problem in error.problems]
    if problems:
        return "; ".join(" ".join(problem.split()) for problem in problems)
    place = ""
    if error.message_index is not None:
        place = f"/messages/{error.message_index}"
        if error.block_index is not None:
            place += f"/content/{error.block_index}"
    reason = " ".join(error.reason.split()) or f"cannot be sent to {upstream}"
    return f"{place}: {reason}" if place else reason


def _header_value(omitted: list[str]) -> str:
    """The ``chatschema-omitted`` header: the first values, then how many more."""
    shown = ", ".join(omitted[:_OMITTED_SHOWN])
    if len(omitted) > _OMITTED_SHOWN:
        shown += f", and {len(omitted) - _OMITTED_SHOWN} more"
    return shown.encode("ascii", "replace").decode()


def endpoints(upstream: ProviderName, url: str) -> list[str]:
    """What each endpoint translates to, one line each (the ``serve`` startup lines)."""
    lines = []
    for endpoint in ENDPOINTS:
        target = url.rstrip("/") + upstream_path(upstream, "{model}", stream=bool(endpoint.stream))
        lines.append(f"{endpoint.shown} ({endpoint.provider}) -> {upstream} {target}")
    return lines


def create_app(
    upstream: ProviderName,
    url: str,
    *,
    api_key: str | None = None,
    pass_key: bool = False,
    model: str | Mapping[str, str] | None = None,
    max_tokens: int = 4096,
    unsupported: UnsupportedPolicy = "error",
    unsupported_settings: SettingsPolicy | None = None,
    reasoning: ReasoningPolicy = "replay",
    connect_timeout: float = 10.0,
    read_timeout: float = 600.0,
    max_connections: int | None = None,
    region: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> Starlette:
    """The gateway: every format's endpoints, forwarded to one upstream (an ASGI app).

    Args:
        upstream: the upstream's format (``openai_chat``, ``openai_responses``,
            ``anthropic``, ``gemini``, ``bedrock_converse``).
        url: the upstream's base URL as its official client takes it: OpenAI's with
            ``/v1`` (``https://api.openai.com/v1``, any compatible server's), the
            host for the others (``https://api.anthropic.com``,
            ``https://generativelanguage.googleapis.com``,
            ``https://bedrock-runtime.us-east-1.amazonaws.com``).
        api_key: the upstream's key; by default the first set variable of
            :data:`KEY_VARIABLES` (``CHATSCHEMA_UPSTREAM_API_KEY``, then the
            provider's usual one). A Bedrock upstream without one signs with AWS
            credentials (botocore's chain). Callers' keys are never sent upstream
            unless ``pass_key``.
        pass_key: send the caller's own key upstream when the caller's format is
            the upstream's provider's (OpenAI to OpenAI, Anthropic to Anthropic,
            Gemini to Gemini; not Bedrock, whose requests are signed).
        model: the upstream's model: one name for every request, or a mapping from
            the names callers send (names it lacks go as they are).
        max_tokens: the output limit sent to an upstream that requires one
            (Anthropic) when the request gives none.
        unsupported: content a format cannot carry, on the way up and back:
            ``"error"`` (a 400 naming message and block, nothing sent), ``"drop"``,
            ``"placeholder"``.
        unsupported_settings: request settings the upstream has no key for
            (``seed`` for Anthropic, ``top_k`` for OpenAI ...): ``"error"`` (a 400
            naming them) or ``"drop"`` (left out, named in the ``chatschema-omitted``
            header); by default ``"error"`` under ``unsupported="error"``, else
            ``"drop"``.
        reasoning: reasoning blocks sent upstream: ``"replay"`` (the upstream's
            own, unchanged), ``"text"`` (others' reasoning as text too), ``"drop"``.
        connect_timeout: seconds to connect (and to wait for a pooled connection).
        read_timeout: seconds to wait for each piece of the upstream's answer;
            then 504 (or, mid-stream, the caller's error event).
        max_connections: the pool's limit on upstream connections (None: none).
        region: the AWS region of a signed Bedrock upstream (default: from the
            URL, else botocore's configuration).
        headers: headers added to every upstream request.

    Raises:
        ValueError: for an unknown format, a bad option, or ``pass_key`` with a
            Bedrock upstream.
    """
    if upstream not in HTTP_PROVIDERS:
        raise ValueError(f"upstream={upstream!r}: expected one of {', '.join(HTTP_PROVIDERS)}")
    if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
        raise ValueError(f"url={url!r}: expected an http:// or https:// base URL")
    if unsupported not in get_args(UnsupportedPolicy):
        raise ValueError(
            f"unsupported={unsupported!r}: expected one of {get_args(UnsupportedPolicy)}"
        )
    if unsupported_settings is not None and unsupported_settings not in get_args(SettingsPolicy):
        raise ValueError(
            f"unsupported_settings={unsupported_settings!r}: "
            f"expected one of {get_args(SettingsPolicy)}"
        )
    if reasoning not in get_args(ReasoningPolicy):
        raise ValueError(f"reasoning={reasoning!r}: expected one of {get_args(ReasoningPolicy)}")
    if pass_key and upstream == "bedrock_converse":
        raise ValueError("pass_key: Bedrock requests are signed by the gateway, not passed on")
    if max_tokens < 1 or connect_timeout <= 0 or read_timeout <= 0:
        raise ValueError("max_tokens and the timeouts must be positive")
    gateway = _Gateway(
        upstream,
        url,
        api_key=api_key,
        pass_key=pass_key,
        model=model,
        max_tokens=max_tokens,
        unsupported=unsupported,
        unsupported_settings=unsupported_settings,
        reasoning=reasoning,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        max_connections=max_connections,
        region=region,
        headers=headers,
    )

    def route(endpoint: Endpoint) -> Route:
        async def handle(request: Request) -> Response:
            try:
                return await gateway.handle(request, endpoint)
            except Exception:  # a fault of the gateway: the caller still gets its shape
                logger.exception("%s -> %s: the gateway failed", endpoint.provider, upstream)
                failure = WireError(500, "the gateway failed on this request (see its log)")
                return gateway.refuse(endpoint.provider, failure)

        return Route(endpoint.path, handle, methods=["POST"])

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        yield
        await gateway.close()

    app = Starlette(routes=[route(endpoint) for endpoint in ENDPOINTS], lifespan=lifespan)
    app.add_exception_handler(404, _not_found)
    app.add_exception_handler(405, _not_found)
    app.state.gateway = gateway
    return app


async def _not_found(request: Request, exc: Exception) -> Response:
    """An unknown endpoint: a JSON 404 naming the ones served."""
    served = ", ".join(endpoint.shown for endpoint in ENDPOINTS)
    asked = f"{request.method} {request.url.path}"
    message = f"chatschema gateway has no endpoint {asked}; it serves {served}"
    body = {"error": {"message": message, "type": "not_found_error", "code": 404}}
    return Response(dumps(body), 404, media_type="application/json")
