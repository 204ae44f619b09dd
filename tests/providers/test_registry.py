"""The codec registry: every format is registered and offers every verb of ``Codec``;
every HTTP format also those of ``HTTPCodec`` (the server side)."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

import chatschema.providers
from chatschema.errors import OptionError
from chatschema.providers import (
    HTTP_PROVIDERS,
    PROVIDERS,
    Codec,
    HTTPCodec,
    get_codec,
    get_http_codec,
)

PROVIDERS_DIR = Path(chatschema.providers.__file__).parent


def _protocol_members(protocol: type = Codec) -> dict[str, inspect.Signature | None]:
    """The protocol's verbs with their signatures (None for the NAME constant)."""
    members: dict[str, inspect.Signature | None] = {}
    for name, value in vars(protocol).items():
        if isinstance(value, property):
            members[name] = None
        elif inspect.isfunction(value) and not name.startswith("_"):
            members[name] = inspect.signature(value)
    return members


MEMBERS = _protocol_members()
HTTP_MEMBERS = _protocol_members(HTTPCodec)


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


def test_the_http_protocol_adds_the_server_side() -> None:
    assert set(HTTP_MEMBERS) == {"encode_response", "encode_stream"}
    assert set(HTTP_PROVIDERS) == set(PROVIDERS) - {"otel_genai"}


@pytest.mark.parametrize(
    ("name", "members"),
    [pytest.param(name, MEMBERS, id=name) for name in PROVIDERS]
    + [pytest.param(name, HTTP_MEMBERS, id=f"{name}-server") for name in HTTP_PROVIDERS],
)
def test_every_codec_offers_every_verb(
    name: str, members: dict[str, inspect.Signature | None]
) -> None:
    codec = get_codec(name)
    assert name == codec.NAME
    for verb, signature in members.items():
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
    with pytest.raises(OptionError, match="'otel_genai' is not the format of a provider's HTTP"):
        get_http_codec("otel_genai")
    assert get_http_codec("anthropic") is get_codec("anthropic")
