"""JSON text of what the codecs produce, for the CLI and data sets.

A low-level module (no models): an encoded request is JSON data except for one
thing, the ``bytes`` a Bedrock Converse request carries (boto3 takes its blobs as
``bytes``), which JSON writes as base64 text, the Converse REST API's own form.
"""

from __future__ import annotations

import base64
import json
from typing import Any

__all__ = ["dumps"]


def dumps(value: Any, *, indent: int | None = None) -> str:
    """``value`` as JSON text (non-ASCII kept), ``bytes`` as base64 text."""
    return json.dumps(value, ensure_ascii=False, indent=indent, default=_blob)


def _blob(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(value).decode("ascii")
    raise TypeError(f"{type(value).__name__} is not JSON data")
