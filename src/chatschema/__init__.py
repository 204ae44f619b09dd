"""chatschema: the language-neutral model of LLM conversation data.

The models are generated from the JSON Schemas in ``schemas/``; this package adds
validation, parsing, short constructors and (in submodules) provider codecs.

    >>> from chatschema import UserMessage, parse_message, to_dict
    >>> to_dict(parse_message('{"role": "user", "content": "hi"}'))
    {'role': 'user', 'content': 'hi'}
"""

import importlib
from typing import TYPE_CHECKING, Any

from chatschema_models.chunk import (
    AssistantMessageChunk,
)
from chatschema_models.content import (
    Annotation,
    AudioBlock,
    Base64Data,
    BlockId,
    BlockIndex,
    CacheControl,
    Citation,
    ContentBlock,
    FileBlock,
    FileId,
    ImageBlock,
    MimeType,
    NonStandardAnnotation,
    NonStandardBlock,
    PlainTextBlock,
    ReasoningBlock,
    RefusalBlock,
    ServerToolCallBlock,
    ServerToolResultBlock,
    TextBlock,
    Url,
    VideoBlock,
)
from chatschema_models.conversation import (
    Conversation,
)
from chatschema_models.message import (
    AssistantMessage,
    FinishReason,
    Message,
    MessageContent,
    MessageId,
    ParticipantName,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    AutoToolChoice,
    InvalidToolCall,
    NamedToolChoice,
    NoneToolChoice,
    RequiredToolChoice,
    ToolCall,
    ToolCallChunk,
    ToolCallId,
    ToolChoice,
    ToolDefinition,
    ToolName,
)
from chatschema_models.usage import (
    InputTokenDetails,
    OutputTokenDetails,
    TokenCount,
    Usage,
)

from chatschema.builders import assistant, image, system, text, tool_call, tool_result, user
from chatschema.errors import (
    ChatSchemaError,
    ConversionError,
    Problem,
    SchemaValidationError,
    UnsupportedContentError,
    ValidationError,
)
from chatschema.validation import (
    TYPE_NAMES,
    is_valid,
    parse,
    parse_conversation,
    parse_message,
    parse_messages,
    to_dict,
    to_json,
    validate,
)

if TYPE_CHECKING:
    from chatschema.history import (
        add_usage,
        coerce_messages,
        filter_messages,
        merge_message_runs,
        trim_messages,
        truncate_text,
        truncate_tool_output,
    )
    from chatschema.providers import check, convert
    from chatschema.streaming import ChunkAccumulator, merge_chunks
    from chatschema.text import content_to_str, get_buffer_string, pretty_print, pretty_repr
    from chatschema.tokens import count_tokens_approximately, tiktoken_counter

# Utilities are imported on first use, so that `import chatschema` stays light.
_LAZY = {
    **dict.fromkeys(
        (
            "add_usage",
            "coerce_messages",
            "filter_messages",
            "merge_message_runs",
            "trim_messages",
            "truncate_text",
            "truncate_tool_output",
        ),
        "chatschema.history",
    ),
    **dict.fromkeys(("check", "convert"), "chatschema.providers"),
    **dict.fromkeys(("ChunkAccumulator", "merge_chunks"), "chatschema.streaming"),
    **dict.fromkeys(
        ("content_to_str", "get_buffer_string", "pretty_print", "pretty_repr"), "chatschema.text"
    ),
    **dict.fromkeys(("count_tokens_approximately", "tiktoken_counter"), "chatschema.tokens"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'chatschema' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__version__ = "0.1.0"

__all__ = [
    "add_usage",
    "coerce_messages",
    "filter_messages",
    "merge_message_runs",
    "trim_messages",
    "truncate_text",
    "truncate_tool_output",
    "content_to_str",
    "get_buffer_string",
    "pretty_print",
    "pretty_repr",
    "count_tokens_approximately",
    "tiktoken_counter",
    "Annotation",
    "AssistantMessage",
    "AssistantMessageChunk",
    "AudioBlock",
    "AutoToolChoice",
    "Base64Data",
    "BlockId",
    "BlockIndex",
    "CacheControl",
    "ChatSchemaError",
    "ChunkAccumulator",
    "Citation",
    "ContentBlock",
    "Conversation",
    "ConversionError",
    "FileBlock",
    "FileId",
    "FinishReason",
    "ImageBlock",
    "InputTokenDetails",
    "InvalidToolCall",
    "Message",
    "MessageContent",
    "MessageId",
    "MimeType",
    "NamedToolChoice",
    "NonStandardAnnotation",
    "NonStandardBlock",
    "NoneToolChoice",
    "OutputTokenDetails",
    "ParticipantName",
    "PlainTextBlock",
    "Problem",
    "ReasoningBlock",
    "RefusalBlock",
    "RequiredToolChoice",
    "SchemaValidationError",
    "ServerToolCallBlock",
    "ServerToolResultBlock",
    "SystemMessage",
    "TYPE_NAMES",
    "TextBlock",
    "TokenCount",
    "ToolCall",
    "ToolCallChunk",
    "ToolCallId",
    "ToolChoice",
    "ToolDefinition",
    "ToolMessage",
    "ToolName",
    "UnsupportedContentError",
    "Url",
    "Usage",
    "UserMessage",
    "ValidationError",
    "VideoBlock",
    "assistant",
    "check",
    "convert",
    "image",
    "is_valid",
    "merge_chunks",
    "parse",
    "parse_conversation",
    "parse_message",
    "parse_messages",
    "system",
    "text",
    "to_dict",
    "to_json",
    "tool_call",
    "tool_result",
    "user",
    "validate",
]
