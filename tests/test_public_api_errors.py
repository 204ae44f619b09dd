"""Every public name raises only chatschema's own exceptions on wrong-typed arguments.

The calls are generated from signatures: each parameter of each public function and
class (models included) gets ``None``, ``5``, ``"text"``, ``{}`` and ``object()``,
the other required parameters a valid value where one is known. A normal return is
fine; an exception that is not a :class:`chatschema.ChatSchemaError` fails. A name
added later is covered without touching this file.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import itertools
import pickle
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest

import chatschema
from chatschema import ChatSchemaError
from chatschema.providers import openai_chat

MODULES = [
    "chatschema",
    "chatschema.builders",
    "chatschema.history",
    "chatschema.rendering",
    "chatschema.streaming",
    "chatschema.tokens",
    "chatschema.validation",
    "chatschema.providers.openai_chat",
    "chatschema.providers.openai_responses",
    "chatschema.providers.anthropic",
    "chatschema.providers.gemini",
    "chatschema.providers.bedrock_converse",
    "chatschema.providers.otel_genai",
    "chatschema.interop.langchain",
    "chatschema.interop.mcp",
]

BAD: list[Any] = [None, 5, "text", {}, object()]
BAD_IDS = ["None", "5", "text", "dict", "object"]


def _good(name: str) -> Any:
    """A valid value for a parameter of this name, so the call reaches the others."""
    values: dict[str, Callable[[], Any]] = {
        "messages": lambda: [chatschema.user("hi")],
        "message": lambda: chatschema.user("hi"),
        "content": lambda: "hi",
        "text": lambda: "hi",
        "max_tokens": lambda: 100,
        "max_chars": lambda: 10,
        "source": lambda: "neutral",
        "target": lambda: "openai_chat",
        "id": lambda: "call_1",
        "tool_call_id": lambda: "call_1",
        "name": lambda: "get_weather",
        "arguments": lambda: {},
        "type": lambda: "Message",
    }
    factory = values.get(name)
    return factory() if factory is not None else None


def _public(module_name: str) -> Iterator[tuple[str, Any]]:
    try:
        module = importlib.import_module(module_name)
    except ImportError:  # an optional extra that is not installed
        return
    for name in getattr(module, "__all__", ()):
        value = getattr(module, name)
        if inspect.isclass(value) and issubclass(value, BaseException):
            continue  # exceptions take what they are given
        if inspect.isfunction(value) or inspect.isclass(value):
            yield f"{module_name}.{name}", value


def _targets() -> dict[int, tuple[str, Any]]:
    seen: dict[int, tuple[str, Any]] = {}
    for module_name in MODULES:
        for qualified, value in _public(module_name):
            seen.setdefault(id(value), (qualified, value))
    return seen


TARGETS = sorted(_targets().values(), key=lambda item: item[0])


def _calls(function: Any) -> Iterator[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """(label, args, kwargs): one wrong value in each parameter, the others valid."""
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):  # pragma: no cover - every public name has one
        return
    named = [p for p in parameters if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    for target in named:
        for bad, bad_id in zip(BAD, BAD_IDS, strict=True):
            args: list[Any] = []
            kwargs: dict[str, Any] = {}
            for parameter in named:
                if parameter is target:
                    value = bad
                elif parameter.default is inspect.Parameter.empty:
                    value = _good(parameter.name)
                    value = bad if value is None else value
                else:
                    continue
                if parameter.kind in (parameter.POSITIONAL_ONLY, parameter.POSITIONAL_OR_KEYWORD):
                    if len(args) != named.index(parameter):
                        kwargs[parameter.name] = value
                    else:
                        args.append(value)
                else:
                    kwargs[parameter.name] = value
            yield f"{target.name}={bad_id}", tuple(args), kwargs


def _drain(result: Any) -> None:
    """Run what a call hands back lazily: coroutines, generators, async generators."""
    if inspect.iscoroutine(result):
        asyncio.run(result)
    elif isinstance(result, AsyncIterator):

        async def consume() -> None:
            count = 0
            async for _ in result:
                count += 1
                if count > 100:
                    break

        asyncio.run(consume())
    elif isinstance(result, Iterator) and not isinstance(result, (str, bytes, dict, list)):
        list(itertools.islice(result, 100))


def test_the_walk_covers_the_public_api() -> None:
    names = {name for name, _ in TARGETS}
    for expected in (
        "chatschema.UserMessage",
        "chatschema.user",
        "chatschema.to_dict",
        "chatschema.content_to_str",
        "chatschema.trim_messages",
        "chatschema.validate",
        "chatschema.schema_problems",
        "chatschema.providers.openai_chat.decode_stream",
    ):
        assert expected in names
    assert len(names) > 100


@pytest.mark.parametrize(("qualified", "function"), TARGETS, ids=[name for name, _ in TARGETS])
def test_wrong_types_raise_only_chatschema_errors(qualified: str, function: Any) -> None:
    foreign = []
    for label, args, kwargs in _calls(function):
        try:
            _drain(function(*args, **kwargs))
        except ChatSchemaError:
            continue
        except Exception as error:
            foreign.append(f"{qualified}({label}): {type(error).__module__}.{error!r}"[:300])
    assert not foreign, "\n".join(foreign)


def _instances() -> Iterator[tuple[str, Any]]:
    """Public classes other than models that build with no arguments (accumulators)."""
    for qualified, value in TARGETS:
        if inspect.isclass(value) and not hasattr(value, "model_fields"):
            try:
                yield qualified, value()
            except TypeError:
                continue


@pytest.mark.parametrize(("qualified", "instance"), list(_instances()), ids=lambda x: str(x)[:40])
def test_methods_of_public_classes_raise_only_chatschema_errors(
    qualified: str, instance: Any
) -> None:
    foreign = []
    for name, method in inspect.getmembers(instance, inspect.ismethod):
        if name.startswith("_"):
            continue
        for label, args, kwargs in _calls(method):
            try:
                _drain(method(*args, **kwargs))
            except ChatSchemaError:
                continue
            except Exception as error:
                foreign.append(f"{qualified}.{name}({label}): {error!r}"[:300])
    assert not foreign, "\n".join(foreign)


# ------------------------------------------------ the cases a new user ran into


def test_model_constructors_raise_a_located_chatschema_error() -> None:
    import pydantic

    for build, pointer in (
        (lambda: chatschema.UserMessage(content=5), "/content"),
        (lambda: chatschema.ToolMessage(content="x"), "/tool_call_id"),
        (
            lambda: chatschema.UserMessage.model_validate({"content": [{"type": "x"}]}),
            "/content/0/type",
        ),
        (lambda: chatschema.TextBlock.model_validate_json('{"type": "text", "text": 1}'), "/text"),
    ):
        with pytest.raises(chatschema.ValidationError) as raised:
            build()
        error = raised.value
        assert pointer in [problem.pointer for problem in error.problems], str(error)
        assert str(error).splitlines()[1].startswith(f"  {pointer}: ")
        # still what code written against pydantic catches, and a ValueError
        assert isinstance(error, pydantic.ValidationError) and isinstance(error, ValueError)
        assert isinstance(error, chatschema.ModelValidationError)
        assert isinstance(error.__cause__, pydantic.ValidationError)
        assert error.errors(include_url=False)  # pydantic's view of the same errors
        again = pickle.loads(pickle.dumps(error))  # as worker processes send it back
        assert again.problems == error.problems and str(again) == str(error)


@pytest.mark.parametrize(
    ("call", "wording"),
    [
        (
            lambda: chatschema.user(5),
            "/content: expected a string or a list of strings and content blocks, got int 5",
        ),
        (
            lambda: chatschema.to_dict({"role": "user"}),
            "expected a chatschema model, got dict; to check a dict use validate()",
        ),
        (
            lambda: chatschema.content_to_str("text"),
            "expected a message (UserMessage, AssistantMessage ...), got str 'text'",
        ),
        (
            lambda: chatschema.trim_messages([chatschema.user("hi")], max_tokens="100"),
            "max_tokens must be an integer, not str '100'",
        ),
        (lambda: list(openai_chat.decode_stream(42)), "expected an iterable of stream events"),
        (lambda: chatschema.validate({}, "Mesage"), "unknown type 'Mesage'; expected one of"),
        (lambda: chatschema.parse({}, 5), "unknown type int; expected one of"),
    ],
    ids=[
        "user",
        "to_dict",
        "content_to_str",
        "trim_messages",
        "decode_stream",
        "validate",
        "parse",
    ],
)
def test_helpers_raise_chatschema_errors_that_say_what(
    call: Callable[[], Any], wording: str
) -> None:
    with pytest.raises(ChatSchemaError) as raised:
        call()
    assert wording in str(raised.value)
