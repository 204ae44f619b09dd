"""Open Responses' wire tables: what differs from the OpenAI Responses API it extends.

The Open Responses specification (openresponses/openresponses, ``schema/items.tsp``
and ``public/openapi/openapi.json``) is the Responses API's wire object with a few
additions; :mod:`chatschema.providers.openai_responses` reads and writes the shared
object, this package what is added.
"""

from __future__ import annotations

from typing import Final

from chatschema.providers._common import Reader

NAME: Final = "open_responses"
INNER: Final = "openai_responses"
"""The codec of the shared wire object (every item, part and event it knows)."""
READ: Final = Reader(NAME)

# items.tsp, InputVideoContent: `{"type": "input_video", "video_url": ...}` in user
# messages and `function_call_output` output lists.
VIDEO_PART: Final = "input_video"
VIDEO_KEYS: Final = ("type", "video_url")
# The extras marking a non_standard block as a whole input part (the shared codec's
# marker, see openai_responses/wire.py).
KIND_PART: Final = {"kind": "part"}
