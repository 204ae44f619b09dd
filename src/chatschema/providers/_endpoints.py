"""What each HTTP format looks like on the wire around its messages: paths and errors.

The server side (:mod:`chatschema.testing`'s fake provider, :mod:`chatschema.gateway`)
and the gateway's client side share it:

- :data:`ENDPOINTS`: the route of every format's endpoint, and :func:`upstream_path`,
  the path a client of a format posts to below the base URL its official client
  takes;
- :class:`WireError`: an error as every format says it: :meth:`WireError.body`
  (the JSON error body, status and headers), :meth:`WireError.event` (the error
  event that ends a stream), :func:`read_error` (another server's error body back).

No server library is imported here: the pieces are bytes and dicts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Final
from urllib.parse import quote

from chatschema.providers._codec import ProviderName
from chatschema.providers._common.respond import dumps, frame_data, frame_named
from chatschema.providers.bedrock_converse.eventstream import frame_exception

__all__ = [
    "ENDPOINTS",
    "Endpoint",
    "WireError",
    "family",
    "read_error",
    "upstream_path",
]


@dataclass(frozen=True, slots=True)
class Endpoint:
    """One endpoint: its route, its format, and how a request says it streams."""

    path: str
    """The route (Starlette syntax: ``{model}`` is a path parameter)."""
    provider: ProviderName
    stream: bool | None = None
    """True or False when the path says it; None when the body's ``"stream"`` does."""
    model_in_path: bool = False
    """Whether the model is named by the path (Gemini, Bedrock), not the body."""

    @property
    def shown(self) -> str:
        """The endpoint as documented: ``POST /v1/messages``, ``{model}`` as the API names it."""
        return "POST " + self.path.replace("{version}", "v1beta").replace(
            "/model/{model:path}", "/model/{modelId}"
        )


_GEMINI = "/{version}/models/{model}"
ENDPOINTS: Final[tuple[Endpoint, ...]] = (
    Endpoint("/v1/chat/completions", "openai_chat"),
    Endpoint("/v1/responses", "openai_responses"),
    # (its own route here: Open Responses servers answer POST /v1/responses too)
    Endpoint("/openresponses/v1/responses", "open_responses"),
    Endpoint("/v1/messages", "anthropic"),
    Endpoint(_GEMINI + ":generateContent", "gemini", False, True),
    Endpoint(_GEMINI + ":streamGenerateContent", "gemini", True, True),
    Endpoint("/{version}/interactions", "gemini_interactions"),
    Endpoint("/model/{model:path}/converse", "bedrock_converse", False, True),
    Endpoint("/model/{model:path}/converse-stream", "bedrock_converse", True, True),
    # (its own route here: Mistral answers POST /v1/chat/completions on api.mistral.ai)
    Endpoint("/mistral/v1/chat/completions", "mistral"),
)
"""Every endpoint served, on one base URL (the paths the official clients post to)."""


def upstream_path(provider: ProviderName, model: str | None, *, stream: bool) -> str:
    """The path (and query) a request goes to, below the base URL the format's client takes.

    The base URL is the one the official client is given: OpenAI's includes ``/v1``
    (``https://api.openai.com/v1``), Anthropic's, Gemini's and Bedrock's are the
    host (``https://api.anthropic.com``). Gemini and Bedrock name the model in the
    path (Bedrock's percent-encoded, as botocore sends it: ``:`` is ``%3A``).

    Raises:
        ValueError: for Gemini or Bedrock without a model.
    """
    if provider == "openai_chat":
        return "/chat/completions"
    if provider == "mistral":  # the mistralai client's server_url is the API's root
        return "/v1/chat/completions"
    if provider == "openai_responses" or provider == "open_responses":
        return "/responses"
    if provider == "anthropic":
        return "/v1/messages"
    if provider == "gemini_interactions":  # google-genai's base URL is the host
        return "/v1beta/interactions"
    if not model:
        raise ValueError(f"a {provider} request names its model in the URL: no model given")
    if provider == "gemini":
        name = model.removeprefix("models/")
        # alt=sse: Gemini streams server-sent events, not one JSON array
        verb = "streamGenerateContent?alt=sse" if stream else "generateContent"
        return f"/v1beta/models/{quote(name, safe='')}:{verb}"
    return f"/model/{quote(model, safe='')}/converse{'-stream' if stream else ''}"


def family(provider: str) -> str:
    """The provider family a format's errors follow: openai, anthropic, gemini, bedrock, mistral."""
    if provider.startswith("openai") or provider == "open_responses":
        return "openai"
    if provider == "bedrock_converse":
        return "bedrock"
    if provider == "gemini_interactions":
        return "gemini"
    return provider


_ERROR_TYPES: dict[str, tuple[dict[int, str], str, str]] = {
    "openai": (
        {
            401: "authentication_error",
            403: "permission_error",
            404: "not_found_error",
            409: "conflict_error",
            429: "rate_limit_error",
        },
        "invalid_request_error",
        "server_error",
    ),
    "anthropic": (
        {
            401: "authentication_error",
            402: "billing_error",
            403: "permission_error",
            404: "not_found_error",
            413: "request_too_large",
            429: "rate_limit_error",
            504: "timeout_error",
            529: "overloaded_error",
        },
        "invalid_request_error",
        "api_error",
    ),
    "gemini": (
        {
            401: "UNAUTHENTICATED",
            403: "PERMISSION_DENIED",
            404: "NOT_FOUND",
            409: "ABORTED",
            429: "RESOURCE_EXHAUSTED",
            499: "CANCELLED",
            501: "UNIMPLEMENTED",
            503: "UNAVAILABLE",
            504: "DEADLINE_EXCEEDED",
        },
        "INVALID_ARGUMENT",
        "INTERNAL",
    ),
    "bedrock": (
        {
            403: "AccessDeniedException",
            404: "ResourceNotFoundException",
            408: "ModelTimeoutException",
            424: "ModelErrorException",
            429: "ThrottlingException",
            503: "ServiceUnavailableException",
        },
        "ValidationException",
        "InternalServerException",
    ),
    # api.mistral.ai's error types, as its answers say them (429: `rate_limited`, code 1300)
    "mistral": ({429: "rate_limited"}, "invalid_request_error", "internal_error"),
}
"""Per family: the error type by status, else the 4xx and 5xx defaults."""

_BEDROCK_STREAM_ERRORS: Final = {
    429: "throttlingException",
    400: "validationException",
    503: "serviceUnavailableException",
    424: "modelStreamErrorException",
}
"""Bedrock's stream exceptions by status (ConverseStreamOutput's error members);
any other status is ``internalServerException``."""


@dataclass(frozen=True, slots=True)
class WireError:
    """An HTTP error as the formats carry it: status, message, type and the rest.

    Attributes:
        status: the HTTP status (4xx, 5xx).
        message: what went wrong, for people.
        type: the error's type in :attr:`family`'s vocabulary (OpenAI's and
            Anthropic's ``type``, Gemini's ``status``, Bedrock's error name); None:
            the format's usual name for the status.
        family: the family ``type`` belongs to (None: no type given).
        code: OpenAI's and Mistral's ``code``.
        param: OpenAI's and Mistral's ``param``.
        retry_after: the ``retry-after`` header, as sent.
    """

    status: int
    message: str
    type: str | None = None
    family: str | None = None
    code: str | None = None
    param: str | None = None
    retry_after: str | None = None

    def type_for(self, provider: str) -> str:
        """The error's type in ``provider``'s vocabulary.

        The given type when it belongs to ``provider``'s family, else the family's
        usual name for the status (429: ``rate_limit_error``, ``RESOURCE_EXHAUSTED``,
        ``ThrottlingException`` ...).
        """
        own = family(provider)
        if self.type is not None and self.family in (None, own):
            return self.type
        table, client, server = _ERROR_TYPES[own]
        return table.get(self.status, client if self.status < 500 else server)

    def body(self, provider: str) -> tuple[bytes, dict[str, str]]:
        """The JSON error body ``provider`` answers with, and its headers.

        - OpenAI (Chat, Responses): ``{"error": {"message", "type", "param", "code"}}``;
        - Anthropic: ``{"type": "error", "error": {"type", "message"}}``;
        - Gemini: ``{"error": {"code", "message", "status"}}``;
        - Bedrock: ``{"message"}``, the error's name in ``x-amzn-ErrorType``;
        - Mistral: ``{"object": "error", "message", "type", "param", "code",
          "raw_status_code"}`` (flat, not under ``error``).

        ``retry-after`` is kept when the error has one.
        """
        kind = self.type_for(provider)
        headers: dict[str, str] = {}
        body: dict[str, Any]
        own = family(provider)
        if own == "openai":
            error = {"message": self.message, "type": kind, "param": self.param, "code": self.code}
            body = {"error": error}
        elif own == "anthropic":
            body = {"type": "error", "error": {"type": kind, "message": self.message}}
        elif own == "gemini":
            body = {"error": {"code": self.status, "message": self.message, "status": kind}}
        elif own == "mistral":
            body = self._mistral(kind)
        else:
            body = {"message": self.message}
            headers["x-amzn-ErrorType"] = (
                f"{kind}:http://internal.amazon.com/coral/com.amazon.bedrock/"
            )
        if self.retry_after is not None:
            headers["retry-after"] = self.retry_after
        return dumps(body), headers

    def _mistral(self, kind: str) -> dict[str, Any]:
        """Mistral's flat error object (api.mistral.ai answers errors without an envelope)."""
        return {
            "object": "error",
            "message": self.message,
            "type": kind,
            "param": self.param,
            "code": self.code,
            "raw_status_code": self.status,
        }

    def event(self, provider: str, *, sequence_number: int = 0) -> bytes:
        """The event that ends ``provider``'s stream with this error, as the body's bytes.

        - OpenAI Chat: ``data: {"error": {...}}`` (the SDK raises ``APIError``);
        - Mistral: ``data:`` its flat error object (``mistralai`` raises
          ``ResponseValidationError``, a ``MistralError``);
        - OpenAI Responses: an ``error`` event (``code``, ``message``, ``param``,
          ``sequence_number``);
        - Anthropic: an ``error`` event (the SDK raises the status's error class);
        - Gemini: ``data: {"error": {"code", "message", "status"}}`` (google-genai
          raises ``APIError``);
        - Bedrock: an AWS event-stream ``exception`` message (botocore raises
          ``EventStreamError``).
        """
        kind = self.type_for(provider)
        if provider == "mistral":
            return frame_data(self._mistral(kind))
        if provider == "openai_chat":
            error = {"message": self.message, "type": kind, "param": self.param, "code": self.code}
            return frame_data({"error": error})
        if provider == "openai_responses" or provider == "open_responses":
            return frame_named(
                {
                    "type": "error",
                    "code": self.code or kind,
                    "message": self.message,
                    "param": self.param,
                    "sequence_number": sequence_number,
                }
            )
        if provider == "anthropic":
            return frame_named({"type": "error", "error": {"type": kind, "message": self.message}})
        if provider == "gemini":
            status = {"code": self.status, "message": self.message, "status": kind}
            return b"data: " + dumps({"error": status}) + b"\r\n\r\n"
        if provider == "gemini_interactions":  # an `error` event (InteractionSSEEvent)
            error = {"code": kind, "message": self.message}
            event = {"event_type": "error", "error": error}
            return b"event: error\ndata: " + dumps(event) + b"\n\n"
        name = _BEDROCK_STREAM_ERRORS.get(self.status, "internalServerException")
        return frame_exception(name, {"message": self.message})


def read_error(
    provider: str, status: int, content: bytes, headers: Mapping[str, str] | None = None
) -> WireError:
    """An error answer of ``provider`` (status, body, headers) as a :class:`WireError`.

    Reads each format's error body (see :meth:`WireError.body`); a body it does not
    know keeps its text, cut to 500 characters, as the message.
    """
    headers = headers or {}
    retry_after = headers.get("retry-after")
    own = family(provider)
    message = content[:500].decode("utf-8", "replace").strip() or f"HTTP {status}"
    found = WireError(status, message, retry_after=retry_after)
    try:
        data: Any = json.loads(content)
    except ValueError:
        data = None
    error = data.get("error") if isinstance(data, dict) else None
    if own == "mistral" and isinstance(data, dict) and error is None:
        error = data  # flat: {"object": "error", "message", "type", "code", ...}
    if own == "bedrock":
        name = headers.get("x-amzn-errortype", "").split(":", 1)[0] or None
        text = data.get("message") or data.get("Message") if isinstance(data, dict) else None
        return replace(found, message=_text(text, message), type=name, family=own if name else None)
    if not isinstance(error, dict):
        return found
    text = _text(error.get("message"), message)
    kind = error.get("status") if own == "gemini" else error.get("type")
    return replace(
        found,
        message=text,
        type=kind if isinstance(kind, str) and kind else None,
        family=own if isinstance(kind, str) and kind else None,
        code=_string(error.get("code")) if own in _CODED else None,
        param=_string(error.get("param")) if own in _CODED else None,
    )


_CODED = ("openai", "mistral")
"""The families whose errors say a ``code`` and a ``param``."""


def _text(value: Any, default: str) -> str:
    return value if isinstance(value, str) and value else default


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None
