"""The upstream's credentials: its key, a caller's own (``pass_key``), AWS SigV4."""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request

__all__ = ["KEY_VARIABLES", "Signer", "aws_signer", "caller_key", "key_from_environment"]

logger = logging.getLogger("chatschema.gateway")

KEY_VARIABLES: dict[str, tuple[str, ...]] = {
    "openai_chat": ("CHATSCHEMA_UPSTREAM_API_KEY", "OPENAI_API_KEY"),
    "openai_responses": ("CHATSCHEMA_UPSTREAM_API_KEY", "OPENAI_API_KEY"),
    "open_responses": ("CHATSCHEMA_UPSTREAM_API_KEY", "OPENAI_API_KEY"),
    "anthropic": ("CHATSCHEMA_UPSTREAM_API_KEY", "ANTHROPIC_API_KEY"),
    "gemini": ("CHATSCHEMA_UPSTREAM_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "gemini_interactions": ("CHATSCHEMA_UPSTREAM_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"),
    "bedrock_converse": ("CHATSCHEMA_UPSTREAM_API_KEY", "AWS_BEARER_TOKEN_BEDROCK"),
    "mistral": ("CHATSCHEMA_UPSTREAM_API_KEY", "MISTRAL_API_KEY"),
}
"""Where the upstream's key is read from when ``api_key`` is not given, first found
first. A Bedrock upstream without a key signs with AWS credentials (botocore)."""


@dataclass(frozen=True, slots=True)
class Signer:
    """AWS SigV4 for a Bedrock upstream, through botocore's signer."""

    credentials: Any
    region: str

    def headers(self, url: str, body: bytes, headers: dict[str, str]) -> dict[str, str]:
        from botocore.auth import SigV4Auth  # type: ignore[import-untyped]
        from botocore.awsrequest import AWSRequest  # type: ignore[import-untyped]

        request = AWSRequest(method="POST", url=url, data=body, headers=headers)
        SigV4Auth(self.credentials.get_frozen_credentials(), "bedrock", self.region).add_auth(
            request
        )
        return dict(request.headers.items())


def key_from_environment(upstream: str) -> str | None:
    """The upstream key from the first set variable of :data:`KEY_VARIABLES`."""
    for name in KEY_VARIABLES[upstream]:
        value = os.environ.get(name)
        if value:
            return value
    return None


BEARER = re.compile(r"^\s*bearer\s+(\S+)\s*$", re.IGNORECASE)


def caller_key(request: Request, caller: str) -> str | None:
    """The key the caller sent, in its format's header (``pass_key``)."""
    headers = request.headers
    if caller in ("gemini", "gemini_interactions"):
        return headers.get("x-goog-api-key") or request.query_params.get("key")
    if caller == "anthropic" and headers.get("x-api-key"):
        return headers["x-api-key"]
    match = BEARER.match(headers.get("authorization", ""))
    return match.group(1) if match else None


def aws_signer(region: str | None, url: str) -> Signer | None:
    """SigV4 with botocore's credential chain, or None when there are no credentials."""
    try:
        import botocore.session  # type: ignore[import-untyped]
    except ImportError:
        logger.warning(
            "bedrock_converse upstream without a key, and botocore is not installed: "
            "requests go unsigned (pip install botocore to sign with AWS credentials)"
        )
        return None
    session = botocore.session.get_session()
    credentials = session.get_credentials()
    if credentials is None:
        logger.warning(
            "bedrock_converse upstream: no key and no AWS credentials: requests go unsigned"
        )
        return None
    host = urlsplit(url).hostname or ""
    match = re.match(r"bedrock-runtime(?:-fips)?\.([a-z0-9-]+)\.amazonaws\.com", host)
    found = region or (match.group(1) if match else None) or session.get_config_variable("region")
    if not found:
        raise ValueError(
            "a bedrock_converse upstream signed with AWS credentials needs its region: "
            "region=..., AWS_REGION, or a bedrock-runtime.<region>.amazonaws.com URL"
        )
    return Signer(credentials, found)
