"""Which format a document is in, from its shape alone.

:func:`detect` looks at a decoded JSON document (a dataset row, a request or a
response body) and says which of the registered formats its shape fits, and what in
the shape says so. Every key and block type that only one family of formats writes
narrows the candidates; a document whose every feature is shared by several formats
(``{"messages": [{"role": "user", "content": "hi"}]}``) fits them all and is
ambiguous. Reading such a document as the neutral form gives the same conversation
as reading it in any other format it fits: :meth:`Detection.choice` prefers
``neutral`` then.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Detection", "detect", "detect_format", "detect_rows"]

NEUTRAL = "neutral"
_OPENAI = "openai_chat"
_RESPONSES = "openai_responses"
_ANTHROPIC = "anthropic"
_GEMINI = "gemini"
_BEDROCK = "bedrock_converse"
_OTEL = "otel_genai"
_MISTRAL = "mistral"

# Keys only a Mistral chat completions request has (API reference: ChatCompletionRequest)
_MISTRAL_KEYS = ("random_seed", "safe_prompt", "prompt_mode")
# Mistral's own model names (models overview); another host's ids have a "/" in them
_MISTRAL_MODEL = re.compile(
    r"(?:open-)?(?:mistral|magistral|codestral|devstral|ministral|pixtral|mixtral|voxtral)",
    re.IGNORECASE,
)

_MESSAGE_FORMATS = frozenset((NEUTRAL, _OPENAI, _ANTHROPIC, _BEDROCK))
"""The formats whose history is a ``messages`` list of ``{"role", "content"}``."""

_ALL = frozenset((*_MESSAGE_FORMATS, _RESPONSES, _GEMINI, _OTEL))

# Content block types and the formats that write them (a type not listed says nothing).
_BLOCK_TYPES: dict[str, frozenset[str]] = {
    "text": frozenset((NEUTRAL, _OPENAI, _ANTHROPIC)),
    "image_url": frozenset((_OPENAI,)),
    "input_audio": frozenset((_OPENAI,)),
    "refusal": frozenset((NEUTRAL, _OPENAI)),
    "tool_use": frozenset((_ANTHROPIC,)),
    "tool_result": frozenset((_ANTHROPIC,)),
    "thinking": frozenset((_ANTHROPIC,)),
    "redacted_thinking": frozenset((_ANTHROPIC,)),
    "document": frozenset((_ANTHROPIC,)),
    "search_result": frozenset((_ANTHROPIC,)),
    "server_tool_use": frozenset((_ANTHROPIC,)),
    "web_search_tool_result": frozenset((_ANTHROPIC,)),
    "container_upload": frozenset((_ANTHROPIC,)),
    "mcp_tool_use": frozenset((_ANTHROPIC,)),
    "mcp_tool_result": frozenset((_ANTHROPIC,)),
    "reasoning": frozenset((NEUTRAL,)),
    "audio": frozenset((NEUTRAL,)),
    "video": frozenset((NEUTRAL,)),
    "plain_text": frozenset((NEUTRAL,)),
    "server_tool_call": frozenset((NEUTRAL,)),
    "server_tool_result": frozenset((NEUTRAL,)),
    "non_standard": frozenset((NEUTRAL,)),
    "resource": frozenset((NEUTRAL,)),
    "resource_link": frozenset((NEUTRAL,)),
    "compaction": frozenset((NEUTRAL, _ANTHROPIC)),
}

# Bedrock Converse blocks are untagged: one key names the kind (ContentBlock is a union).
_BEDROCK_BLOCK_KEYS = frozenset(
    (
        "text",
        "image",
        "document",
        "video",
        "audio",
        "toolUse",
        "toolResult",
        "reasoningContent",
        "cachePoint",
        "guardContent",
        "citationsContent",
        "searchResult",
    )
)

_BEDROCK_REQUEST_KEYS = frozenset(
    (
        "inferenceConfig",
        "toolConfig",
        "additionalModelRequestFields",
        "additionalModelResponseFieldPaths",
        "guardrailConfig",
        "promptVariables",
        "performanceConfig",
        "requestMetadata",
        "outputConfig",
    )
)

# Keys of a neutral conversation that no provider request has.
_NEUTRAL_KEYS = frozenset(("settings", "extras"))
# Keys of an OpenAI Chat Completions request (and fine-tuning row) alone.
_OPENAI_KEYS = frozenset(
    (
        "parallel_tool_calls",
        "functions",
        "function_call",
        "response_format",
        "frequency_penalty",
        "presence_penalty",
        "logit_bias",
        "logprobs",
        "top_logprobs",
        "max_completion_tokens",
        "n",
        "seed",
        "stream_options",
        "reasoning_effort",
        "modalities",
        "audio",
        "prediction",
        "web_search_options",
    )
)
_ANTHROPIC_KEYS = frozenset(("anthropic_version", "stop_sequences", "mcp_servers"))
# Anthropic's, and taken by OpenAI-compatible servers (vLLM, OpenRouter) too.
_ANTHROPIC_OR_OPENAI_KEYS = frozenset(("thinking", "top_k", "max_tokens", "model", "stream"))
_NEUTRAL_TOP = frozenset(
    ("messages", "tools", "tool_choice", "settings", "id", "metadata", "extras")
)


@dataclass
class Detection:
    """What a document's shape says about its format.

    Attributes:
        candidates: the formats the shape fits (one: detected; several: ambiguous;
            none: a shape chatschema does not know, or one mixing formats).
        reason: what in the shape decided (``top-level "system"``), or why nothing did.
        excluded: for each format the shape rules out, the feature that rules it out.
    """

    candidates: frozenset[str]
    reason: str
    excluded: dict[str, str] = field(default_factory=dict)

    @property
    def format(self) -> str | None:
        """The one format the shape fits, else None."""
        return next(iter(self.candidates)) if len(self.candidates) == 1 else None

    @property
    def ambiguous(self) -> bool:
        """Whether several formats fit."""
        return len(self.candidates) > 1

    def choice(self) -> str | None:
        """The format to read the document as, or None.

        The one format that fits, or ``neutral`` when it is among several that fit
        (every reading is then the same conversation).
        """
        if self.format is not None:
            return self.format
        if NEUTRAL in self.candidates:
            return NEUTRAL
        return None

    def fits(self, name: str) -> bool:
        """Whether the shape is consistent with format ``name`` (unknown shapes: yes)."""
        return not self.candidates or name in self.candidates

    def names(self) -> str:
        """The candidates in words, ``a, b or c``."""
        ordered = sorted(self.candidates)
        if len(ordered) < 2:
            return "".join(ordered)
        return ", ".join(ordered[:-1]) + " or " + ordered[-1]


class _Evidence:
    """Candidates narrowed feature by feature, each exclusion with its reason."""

    def __init__(self, start: frozenset[str], reason: str) -> None:
        self.candidates = start
        self.excluded = {name: reason for name in _ALL - start}
        self.reasons: list[str] = []

    def narrow(self, allowed: frozenset[str], reason: str) -> None:
        kept = self.candidates & allowed
        if kept == self.candidates:
            return
        for name in self.candidates - allowed:
            self.excluded.setdefault(name, reason)
        self.candidates = kept
        self.reasons.append(reason)

    def result(self) -> Detection:
        if not self.candidates:
            reason = "; ".join(self.reasons[:3]) + ": features of different formats"
        elif self.reasons:
            reason = self.reasons[-1] if len(self.candidates) == 1 else self.reasons[0]
        else:
            reason = "no feature of one format alone"
        return Detection(self.candidates, reason, self.excluded)


def _unknown(reason: str) -> Detection:
    return Detection(frozenset(), reason, {})


def _is_otel(keys: Iterable[Any]) -> bool:
    return any(isinstance(key, str) and key.startswith("gen_ai.") for key in keys)


def detect(document: Any) -> Detection:
    """What ``document``'s shape says about its format.

    ``document`` is decoded JSON: a conversation or request, a list of messages, a
    single message, a provider's response body, or OpenTelemetry GenAI attributes.
    """
    if isinstance(document, list):
        return _list(document)
    if not isinstance(document, Mapping):
        return _unknown(f"a {type(document).__name__}, not an object")
    keys = set(document)
    if _is_otel(keys):
        return Detection(frozenset((_OTEL,)), 'a "gen_ai.*" attribute')
    attributes = document.get("attributes")
    if isinstance(attributes, Mapping) and _is_otel(attributes):
        return Detection(frozenset((_OTEL,)), 'an "attributes" object of "gen_ai.*" attributes')
    response = _response(document)
    if response is not None:
        return _mistral(document, response)
    if "contents" in keys:
        return Detection(frozenset((_GEMINI,)), 'a "contents" list')
    if "input" in keys or ("instructions" in keys and "messages" not in keys):
        key = "input" if "input" in keys else "instructions"
        return Detection(frozenset((_RESPONSES,)), f'top-level "{key}"')
    if "messages" in keys:
        return _mistral(document, _conversation(document))
    if "role" in keys:
        evidence = _Evidence(_MESSAGE_FORMATS, "a message with a role")
        _message(document, "the message", evidence)
        found = evidence.result()
        return Detection(found.candidates, f"a single message; {found.reason}", found.excluded)
    return _unknown(f'an object with keys {sorted(map(str, keys))[:6]}, without "messages"')


def _mistral(document: Mapping[str, Any], found: Detection) -> Detection:
    """A Chat Completions shape that Mistral's keys or model name say is Mistral's."""
    if found.format != _OPENAI:
        return found
    for key in _MISTRAL_KEYS:
        if key in document:
            return Detection(frozenset((_MISTRAL,)), f'top-level "{key}" (Mistral)')
    model = document.get("model")
    if isinstance(model, str) and "/" not in model and _MISTRAL_MODEL.match(model):
        return Detection(frozenset((_MISTRAL,)), f'the Mistral model "{model}"')
    return found


def _response(document: Mapping[str, Any]) -> Detection | None:
    """A provider's response body, by the keys each API answers with."""
    if "choices" in document:
        return Detection(frozenset((_OPENAI,)), 'a "choices" list (a Chat Completions response)')
    if "candidates" in document or "promptFeedback" in document:
        return Detection(frozenset((_GEMINI,)), 'a "candidates" list (a Gemini response)')
    if document.get("object") == "response" or (
        isinstance(document.get("output"), list) and "messages" not in document
    ):
        return Detection(frozenset((_RESPONSES,)), 'an "output" list (a Responses response)')
    if isinstance(document.get("output"), Mapping) and "stopReason" in document:
        return Detection(frozenset((_BEDROCK,)), '"output" and "stopReason" (a Converse response)')
    if document.get("type") == "message" and document.get("role") == "assistant":
        return Detection(frozenset((_ANTHROPIC,)), '"type": "message" (a Messages response)')
    return None


def _list(items: list[Any]) -> Detection:
    """A bare history: messages, Gemini contents, Responses items or GenAI messages."""
    first = next((item for item in items if isinstance(item, Mapping)), None)
    if first is None:
        return _unknown("a list without objects")
    if "parts" in first:
        parts = first.get("parts")
        typed = isinstance(parts, list) and any(
            isinstance(part, Mapping) and "type" in part for part in parts
        )
        if typed:
            return Detection(frozenset((_OTEL,)), 'messages with typed "parts"')
        return Detection(frozenset((_GEMINI,)), 'contents with untyped "parts"')
    if first.get("type") in ("message", "function_call", "function_call_output", "reasoning"):
        return Detection(frozenset((_RESPONSES,)), f'an item of type "{first.get("type")}"')
    return _conversation({"messages": items}, where="a list of messages")


def _conversation(document: Mapping[str, Any], where: str = "") -> Detection:
    evidence = _Evidence(_MESSAGE_FORMATS, where or 'a "messages" list')
    for key in document:
        if key in _BEDROCK_REQUEST_KEYS:
            evidence.narrow(frozenset((_BEDROCK,)), f'top-level "{key}"')
        elif key in _NEUTRAL_KEYS:
            evidence.narrow(frozenset((NEUTRAL,)), f'top-level "{key}"')
        elif key in _OPENAI_KEYS:
            evidence.narrow(frozenset((_OPENAI,)), f'top-level "{key}"')
        elif key in _ANTHROPIC_KEYS:
            evidence.narrow(frozenset((_ANTHROPIC,)), f'top-level "{key}"')
        elif key in _ANTHROPIC_OR_OPENAI_KEYS:
            evidence.narrow(frozenset((_ANTHROPIC, _OPENAI)), f'top-level "{key}"')
        elif key not in _NEUTRAL_TOP and key != "system":
            evidence.narrow(_MESSAGE_FORMATS - {NEUTRAL}, f'top-level "{key}"')
    if "model" in document and "max_tokens" not in document:
        # Anthropic Messages requires max_tokens on every request
        evidence.narrow(_MESSAGE_FORMATS - {_ANTHROPIC}, 'a "model" without "max_tokens"')
    system = document.get("system")
    if system or isinstance(system, str):
        untyped = isinstance(system, list) and any(
            isinstance(block, Mapping) and "type" not in block for block in system
        )
        if untyped:
            evidence.narrow(frozenset((_BEDROCK,)), 'top-level "system" of untyped blocks')
        else:
            evidence.narrow(frozenset((_ANTHROPIC,)), 'top-level "system"')
    tools = document.get("tools")
    if isinstance(tools, list):
        for tool in tools[:8]:
            _tool(tool, evidence)
    messages = document.get("messages")
    if isinstance(messages, list):
        for index, message in enumerate(messages):
            if isinstance(message, Mapping):
                _message(message, f"message {index}", evidence)
            if len(evidence.candidates) <= 1:
                break
    return evidence.result()


def _tool(tool: Any, evidence: _Evidence) -> None:
    if not isinstance(tool, Mapping):
        return
    if "function" in tool:
        evidence.narrow(frozenset((_OPENAI,)), 'a tool with "function"')
    elif "input_schema" in tool:
        evidence.narrow(frozenset((_ANTHROPIC,)), 'a tool with "input_schema"')
    elif "toolSpec" in tool:
        evidence.narrow(frozenset((_BEDROCK,)), 'a tool with "toolSpec"')
    elif "parameters" in tool and "type" not in tool:
        evidence.narrow(frozenset((NEUTRAL,)), 'a tool with "name" and "parameters"')
    elif isinstance(tool.get("type"), str) and re.search(r"_\d{8}$", tool["type"]):
        evidence.narrow(frozenset((_ANTHROPIC,)), f'a server tool of type "{tool["type"]}"')


def _message(message: Mapping[str, Any], where: str, evidence: _Evidence) -> None:
    role = message.get("role")
    if role == "developer" or role == "function":
        evidence.narrow(frozenset((_OPENAI,)), f'{where}: role "{role}"')
    elif role in ("system", "tool"):
        evidence.narrow(frozenset((_OPENAI, NEUTRAL)), f'{where}: role "{role}" in "messages"')
    elif role == "model":
        evidence.narrow(frozenset((_GEMINI,)), f'{where}: role "model"')
    if "weight" in message:  # OpenAI fine-tuning: a per-message training weight
        evidence.narrow(frozenset((_OPENAI,)), f'{where}: "weight" (OpenAI fine-tuning)')
    if "function_call" in message or "audio" in message or "refusal" in message:
        key = next(k for k in ("function_call", "audio", "refusal") if k in message)
        evidence.narrow(frozenset((_OPENAI,)), f'{where}: "{key}"')
    for key in ("finish_reason", "usage", "invalid_tool_calls", "response_metadata", "status"):
        if key in message:
            evidence.narrow(frozenset((NEUTRAL,)), f'{where}: "{key}"')
            break
    calls = message.get("tool_calls")
    if isinstance(calls, list) and calls and isinstance(calls[0], Mapping):
        if "function" in calls[0]:
            evidence.narrow(frozenset((_OPENAI,)), f'{where}: a tool call with "function"')
        else:
            evidence.narrow(frozenset((NEUTRAL,)), f'{where}: a tool call with "arguments"')
    content = message.get("content")
    if isinstance(content, str):
        evidence.narrow(_MESSAGE_FORMATS - {_BEDROCK}, f"{where}: string content")
    elif isinstance(content, list):
        for index, block in enumerate(content):
            if isinstance(block, Mapping):
                _block(block, f"{where}, block {index}", evidence)


def _block(block: Mapping[str, Any], where: str, evidence: _Evidence) -> None:
    kind = block.get("type")
    if kind is None:
        known = _BEDROCK_BLOCK_KEYS.intersection(block)
        if known:
            key = sorted(known)[0]
            evidence.narrow(frozenset((_BEDROCK,)), f'{where}: an untyped "{key}" block')
        return
    if not isinstance(kind, str):
        return
    if kind == "image":
        if "source" in block:
            evidence.narrow(frozenset((_ANTHROPIC,)), f'{where}: an image with "source"')
        else:
            evidence.narrow(frozenset((NEUTRAL,)), f'{where}: an image without "source"')
        return
    if kind == "file":
        if "file" in block:
            evidence.narrow(frozenset((_OPENAI,)), f'{where}: a "file" part')
        else:
            evidence.narrow(frozenset((NEUTRAL,)), f"{where}: a file block")
        return
    allowed = _BLOCK_TYPES.get(kind)
    if allowed is not None:
        evidence.narrow(allowed, f'{where}: a block of type "{kind}"')


def detect_format(document: Any) -> str | None:
    """The one format ``document``'s shape fits, or None (ambiguous or unknown)."""
    return detect(document).format


def detect_rows(documents: Iterable[Any], *, limit: int = 100) -> tuple[Detection, int]:
    """What the first rows' shapes say together, and the (1-based) row that decided.

    Rows are read until one format alone fits all of them so far, or ``limit`` rows.
    A row whose shape fits no format or contradicts the rows before it stops the
    reading: the rows before it decide.
    """
    combined: Detection | None = None
    decided = 0
    for number, document in enumerate(documents, 1):
        if number > limit:
            break
        found = detect(document)
        if combined is None:
            combined, decided = found, number
        elif found.candidates:
            kept = combined.candidates & found.candidates
            if not kept:
                break
            if kept != combined.candidates:
                excluded = {**found.excluded, **combined.excluded}
                combined = Detection(kept, found.reason, excluded)
                decided = number
        if combined.candidates and len(combined.candidates) == 1:
            break
    if combined is None:
        return _unknown("no rows"), 0
    return combined, decided
