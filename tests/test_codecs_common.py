"""What every codec does the same way."""

from __future__ import annotations

import pytest

import chatschema
from chatschema import ImageBlock, TextBlock, UserMessage
from chatschema.providers import PROVIDERS, get_codec

IMAGE = UserMessage(
    content=[TextBlock(text="what is this?"), ImageBlock(url="https://example.com/a.png")]
)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_content_a_target_cannot_take_is_an_unsupported_content_error(provider: str) -> None:
    codec = get_codec(provider)
    with pytest.raises(chatschema.UnsupportedContentError) as raised:
        codec.encode([IMAGE], vision=False)
    error = raised.value
    assert (error.provider, error.message_index) == (provider, 0)
    assert [(p.pointer, p.keyword) for p in error.problems] == [
        ("/messages/0/content/1", "unsupported_content")
    ]
    assert chatschema.check([IMAGE], target=provider, vision=False) == list(error.problems)
    assert chatschema.check([IMAGE], target=provider, vision=False, unsupported="drop") == []


@pytest.mark.parametrize("provider", PROVIDERS)
def test_unknown_options_are_option_errors(provider: str) -> None:
    with pytest.raises(chatschema.errors.OptionError, match="unknown option 'visoin'"):
        get_codec(provider).encode([IMAGE], visoin=False)
    with pytest.raises(chatschema.errors.OptionError):
        get_codec(provider).encode([IMAGE], unsupported="ignore")
