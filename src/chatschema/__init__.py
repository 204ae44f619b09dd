"""chatschema: the language-neutral model of LLM conversation data.

The models are generated from the JSON Schemas in ``schemas/``; this package adds
validation, parsing, short constructors and (in submodules) provider codecs.

    >>> from chatschema import UserMessage, parse_message, to_dict
    >>> to_dict(parse_message('{"role": "user", "content": "hi"}'))
    {'role': 'user', 'content': 'hi'}
"""

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from chatschema_models.chunk import AssistantMessageChunk
    from chatschema_models.content import (
        Annotation,
        AudioBlock,
        Base64Data,
        BlockId,
        BlockIndex,
        CacheControl,
        Citation,
        CompactionBlock,
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
        ResourceBlock,
        ResourceLinkBlock,
        ServerToolCallBlock,
        ServerToolResultBlock,
        TextBlock,
        Url,
        VideoBlock,
    )
    from chatschema_models.conversation import (
        Conversation,
        GenerationSettings,
        JsonObjectResponseFormat,
        JsonSchemaResponseFormat,
        ResponseFormat,
        TextResponseFormat,
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
        AllowedToolsChoice,
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
    from chatschema_models.usage import InputTokenDetails, OutputTokenDetails, TokenCount, Usage

    from chatschema._wire import ModelValidationError
    from chatschema.builders import assistant, image, system, text, tool_call, tool_result, user
    from chatschema.errors import (
        ChatSchemaError,
        ConversionError,
        OptionError,
        Problem,
        SchemaValidationError,
        StreamIncompleteError,
        UnsupportedContentError,
        ValidationError,
    )
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
    from chatschema.rendering import content_to_str, get_buffer_string, pretty_print, pretty_repr
    from chatschema.streaming import ChunkAccumulator, amerge_chunks, merge_chunks
    from chatschema.tokens import count_tokens_approximately, tiktoken_counter
    from chatschema.validation import (
        TYPE_NAMES,
        is_valid,
        parse,
        parse_conversation,
        parse_message,
        parse_messages,
        schema_problems,
        to_dict,
        to_json,
        validate,
    )

# Every public name is imported on first use: `import chatschema` costs next to
# nothing, and a program pays for pydantic and the models (or a codec, the history
# utilities ...) when it first touches them. The generated models come from
# `chatschema_models` (tests/test_models.py keeps `__all__` listing all of them);
# everything else from its module here.
_HOMES = {
    "chatschema._wire": ("ModelValidationError",),
    "chatschema.builders": (
        "assistant",
        "image",
        "system",
        "text",
        "tool_call",
        "tool_result",
        "user",
    ),
    "chatschema.errors": (
        "ChatSchemaError",
        "ConversionError",
        "OptionError",
        "Problem",
        "SchemaValidationError",
        "StreamIncompleteError",
        "UnsupportedContentError",
        "ValidationError",
    ),
    "chatschema.history": (
        "add_usage",
        "coerce_messages",
        "filter_messages",
        "merge_message_runs",
        "trim_messages",
        "truncate_text",
        "truncate_tool_output",
    ),
    "chatschema.providers": ("check", "convert"),
    "chatschema.streaming": ("ChunkAccumulator", "amerge_chunks", "merge_chunks"),
    "chatschema.rendering": ("content_to_str", "get_buffer_string", "pretty_print", "pretty_repr"),
    "chatschema.tokens": ("count_tokens_approximately", "tiktoken_counter"),
    "chatschema.validation": (
        "TYPE_NAMES",
        "is_valid",
        "parse",
        "parse_conversation",
        "parse_message",
        "parse_messages",
        "schema_problems",
        "to_dict",
        "to_json",
        "validate",
    ),
}
_LAZY = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        if name not in __all__:
            raise AttributeError(f"module 'chatschema' has no attribute {name!r}")
        module = "chatschema_models"
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
    "AllowedToolsChoice",
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
    "CompactionBlock",
    "ContentBlock",
    "Conversation",
    "ConversionError",
    "FileBlock",
    "FileId",
    "FinishReason",
    "GenerationSettings",
    "ImageBlock",
    "InputTokenDetails",
    "InvalidToolCall",
    "JsonObjectResponseFormat",
    "JsonSchemaResponseFormat",
    "Message",
    "MessageContent",
    "MessageId",
    "MimeType",
    "ModelValidationError",
    "NamedToolChoice",
    "NonStandardAnnotation",
    "NonStandardBlock",
    "NoneToolChoice",
    "OptionError",
    "OutputTokenDetails",
    "ParticipantName",
    "PlainTextBlock",
    "Problem",
    "ReasoningBlock",
    "RefusalBlock",
    "RequiredToolChoice",
    "ResourceBlock",
    "ResourceLinkBlock",
    "ResponseFormat",
    "SchemaValidationError",
    "ServerToolCallBlock",
    "StreamIncompleteError",
    "ServerToolResultBlock",
    "SystemMessage",
    "TYPE_NAMES",
    "TextBlock",
    "TextResponseFormat",
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
    "amerge_chunks",
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
    "schema_problems",
    "system",
    "text",
    "to_dict",
    "to_json",
    "tool_call",
    "tool_result",
    "user",
    "validate",
]
