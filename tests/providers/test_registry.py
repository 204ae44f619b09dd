"""The codec registry: every format is registered and offers every verb of ``Codec``."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import chatschema.providers
from chatschema.errors import OptionError
from chatschema.providers import PROVIDERS, Codec, get_codec

PROVIDERS_DIR = Path(chatschema.providers.__file__).parent


def _protocol_members() -> dict[str, inspect.Signature | None]:
    """The protocol's verbs with their signatures (None for the NAME constant)."""
    members: dict[str, inspect.Signature | None] = {}
    for name, value in vars(Codec).items():
        if isinstance(value, property):
            members[name] = None
        elif inspect.isfunction(value) and not name.startswith("_"):
            members[name] = inspect.signature(value)
    return members


MEMBERS = _protocol_members()


def test_the_protocol_names_every_verb() -> None:
    assert set(MEMBERS) == {
        "NAME",
        "encode",
        "check",
        "decode_conversation",
        "decode_messages",
        "decode_response",
        "decode_stream",
    }


def test_every_codec_package_is_registered() -> None:
    packages = {
        path.stem
        for path in PROVIDERS_DIR.iterdir()
        if not path.name.startswith("_")
        and ((path / "__init__.py").exists() or path.suffix == ".py")
    }
    assert packages == set(PROVIDERS)


@pytest.mark.parametrize("name", PROVIDERS)
def test_every_codec_offers_every_verb(name: str) -> None:
    codec = get_codec(name)
    assert name == codec.NAME
    for verb, signature in MEMBERS.items():
        if signature is None:
            continue
        function = getattr(codec, verb, None)
        assert callable(function), f"{name} has no {verb}"
        expected = [
            (parameter.name, parameter.kind)
            for parameter in signature.parameters.values()
            if parameter.name != "self"
        ]
        actual = [
            (parameter.name, parameter.kind)
            for parameter in inspect.signature(function).parameters.values()
        ]
        assert actual == expected, f"{name}.{verb}{inspect.signature(function)}"
        assert function.__doc__, f"{name}.{verb} has no docstring"


def test_an_unknown_format_is_an_option_error() -> None:
    with pytest.raises(OptionError, match="unknown provider format 'openai'"):
        get_codec("openai")
