"""``genai_kwargs``: encode's REST request as google-genai's generate_content keywords."""

from __future__ import annotations

import pytest
from google.genai import types

import chatschema
from chatschema import Conversation, ToolDefinition
from chatschema.providers import gemini


def test_everything_but_model_and_contents_goes_in_one_config() -> None:
    conversation = Conversation(
        messages=[chatschema.system("Be brief."), chatschema.user("Weather in Paris?")],
        tools=[ToolDefinition(name="weather", parameters={"type": "object"})],
        settings={"model": "gemini-2.5-flash", "temperature": 0.2, "max_output_tokens": 64},
        extras={
            "gemini": {
                "safety_settings": [
                    {"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}
                ]
            }
        },
    )
    request = gemini.encode(conversation)
    kwargs = gemini.genai_kwargs(request)
    assert set(kwargs) == {"model", "contents", "config"}
    assert kwargs["contents"] == request["contents"]
    config = types.GenerateContentConfig.model_validate(kwargs["config"])  # the SDK's type
    assert (config.temperature, config.max_output_tokens) == (0.2, 64)
    assert config.system_instruction is not None and config.tools is not None
    assert config.safety_settings is not None
    # google-genai's own form (a decoded generate_content call) passes as it is
    again = gemini.encode(gemini.decode_conversation(kwargs))
    assert gemini.genai_kwargs(again) == again


def test_what_is_not_a_request_is_refused() -> None:
    with pytest.raises(chatschema.ConversionError, match="genai_kwargs"):
        gemini.genai_kwargs([])  # type: ignore[arg-type]
    with pytest.raises(chatschema.ConversionError, match="generation_config"):
        gemini.genai_kwargs({"contents": [], "generation_config": 3})
