"""Validating and parsing documents: the JSON Schema path and the Pydantic path.

Both report problems the same way (:class:`chatschema.errors.Problem`: JSON pointer,
keyword, message) and agree on every document; the conformance fixtures in
``schemas/fixtures`` and a property test hold them to it.

- :func:`validate` checks a JSON value against the schemas with ``jsonschema``
  (Draft 2020-12, offline registry; ``pattern`` with ECMA-262 anchoring; ``format``
  is an annotation, the schemas enforce URLs and media types by ``pattern``). Use it
  at trust boundaries and for other tools' output.
- :func:`parse` and friends build the typed models with Pydantic (``validate_json``
  on discriminated unions): the fast path for every request.

Validators and type adapters are built once per type, on first use.
"""

from __future__ import annotations

import builtins
import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, TypeVar, cast, overload

import pydantic
from chatschema_models.conversation import Conversation
from chatschema_models.message import Message
from pydantic import BaseModel, TypeAdapter

from chatschema import limits
from chatschema._gc import collector_paused
from chatschema._masking import masked_repr
from chatschema._models import MODELS
from chatschema.errors import (
    OptionError,
    Problem,
    SchemaValidationError,
    ValidationError,
    json_pointer,
    wrong_type,
)

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator
    from jsonschema import ValidationError as JsonSchemaError

__all__ = [
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
]

_T = TypeVar("_T")

SCHEMA_BASE = "https://schemas.chatschema.dev/v1/"
_SCHEMA_FILES = ("content", "tool", "usage", "message", "chunk", "conversation")

JSONInput = str | bytes | bytearray | Mapping[str, Any] | list[Any] | BaseModel


@cache
def _schemas() -> dict[str, dict[str, Any]]:
    folder = resources.files("chatschema_models") / "schemas"
    return {
        stem: json.loads((folder / f"{stem}.json").read_text(encoding="utf-8"))
        for stem in _SCHEMA_FILES
    }


@cache
def _type_refs() -> dict[str, str]:
    """Every validatable type name -> the URI of its schema."""
    refs: dict[str, str] = {}
    for stem, schema in _schemas().items():
        uri = SCHEMA_BASE + stem + ".json"
        if "properties" in schema or "oneOf" in schema:
            refs[schema["title"]] = uri
        for name in schema.get("$defs", {}):
            refs[name] = f"{uri}#/$defs/{name}"
    return refs


TYPE_NAMES: frozenset[str] = frozenset(MODELS)
"""Names accepted as ``type`` by :func:`validate` and :func:`parse`."""


def _check_type_name(type: str) -> None:
    if not isinstance(type, str) or type not in TYPE_NAMES:
        shown_type = repr(type) if isinstance(type, str) else f"{builtins.type(type).__name__}"
        raise OptionError(
            f"unknown type {shown_type[:60]}; expected one of {', '.join(sorted(TYPE_NAMES))}"
        )


# --------------------------------------------------------------------------- JSON Schema


@cache
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    # ECMA-262 and Rust regexes (ajv, Pydantic) anchor `$` at the very end; Python's
    # `$` also matches before a final newline. Translate, so all paths agree.
    if pattern.endswith("$") and not pattern.endswith("\\$"):
        pattern = pattern[:-1] + r"\Z"
    return re.compile(pattern)


def _pattern(validator: Any, pattern: str, instance: Any, schema: Any) -> Iterator[Any]:
    from jsonschema import ValidationError as JsonSchemaError

    if validator.is_type(instance, "string") and not _pattern_regex(pattern).search(instance):
        yield JsonSchemaError(f"{shown(instance)} does not match {pattern!r}")


_NOT_UNICODE = "not a valid Unicode string (it holds a lone surrogate)"


def _unicode(text: str) -> bool:
    """Whether a string can be written as UTF-8 (no lone surrogates)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _unicode_first(check: Any) -> Any:
    """A string keyword that first refuses strings that are not Unicode.

    Pydantic refuses lone surrogates in constrained strings (ids, names, URLs ...);
    the JSON Schema path does the same, so that both paths agree.
    """

    def keyword(validator: Any, value: Any, instance: Any, schema: Any) -> Iterator[Any]:
        from jsonschema import ValidationError as JsonSchemaError

        if validator.is_type(instance, "string") and not _unicode(instance):
            yield JsonSchemaError(_NOT_UNICODE, validator="unicode")
            return
        yield from check(validator, value, instance, schema)

    return keyword


@cache
def _validator_class() -> Any:
    from jsonschema import Draft202012Validator, validators

    keywords = Draft202012Validator.VALIDATORS
    return validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        {
            "pattern": _unicode_first(_pattern),
            "minLength": _unicode_first(keywords["minLength"]),
            "maxLength": _unicode_first(keywords["maxLength"]),
        },
    )


@cache
def _validator(type: str) -> Draft202012Validator:
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry: Registry[Any] = Registry().with_resources(
        (schema["$id"], DRAFT202012.create_resource(schema)) for schema in _schemas().values()
    )
    # `format` is an annotation in chatschema: the rules it hints at are enforced by
    # `pattern`, identically in every language.
    validator: Draft202012Validator = _validator_class()(
        {"$ref": _type_refs()[type]}, registry=registry
    )
    return validator


_SHOWN_CHARACTERS = 24


def shown(value: Any) -> str:
    """A value as error messages show it: short, opaque data masked.

    Strings longer than 60 characters are cut to their first 24 with their length
    (base64 data, long texts); objects and arrays show at most 100 characters, with
    signatures and encrypted content masked.
    """
    if isinstance(value, str):
        if len(value) <= 60:
            return repr(value)
        return f"{value[:_SHOWN_CHARACTERS]!r}... ({len(value):,} characters)"
    if isinstance(value, (dict, list)):
        text = masked_repr(value)
        return text if len(text) <= 100 else text[:97] + "..."
    text = repr(value)
    return text if len(text) <= 100 else text[:97] + "..."


def _message(error: JsonSchemaError) -> str:
    """The message of a jsonschema error, the value it quotes shortened (:func:`shown`)."""
    message = error.message
    instance: Any = error.instance
    if isinstance(instance, (str, dict, list)):
        quoted = repr(instance)
        if len(quoted) > 60 and quoted in message:
            message = message.replace(quoted, shown(instance))
    return message


def _branch(error: JsonSchemaError) -> int:
    return cast(int, error.relative_schema_path[0])


def _schema_problems(error: JsonSchemaError) -> Iterator[Problem]:
    """Turn one jsonschema error into problems in chatschema's conventions."""
    path = list(error.absolute_path)
    here = json_pointer(path)
    keyword = str(error.validator)
    schema: Any = error.schema
    instance: Any = error.instance
    expected: Any = error.validator_value
    if keyword == "required":
        for name in expected:
            if isinstance(instance, dict) and name not in instance:
                yield Problem(json_pointer([*path, name]), "required", f"{name!r} is required")
    elif keyword == "additionalProperties":
        allowed = schema.get("properties", {})
        for name in instance:
            if name not in allowed:
                yield Problem(
                    json_pointer([*path, name]), keyword, f"unexpected property {shown(name)}"
                )
    elif keyword == "dependentRequired":
        for trigger, needed in expected.items():
            if trigger in instance:
                for name in needed:
                    if name not in instance:
                        yield Problem(
                            json_pointer([*path, name]),
                            keyword,
                            f"{name!r} is required when {trigger!r} is present",
                        )
    elif keyword in ("oneOf", "anyOf"):
        yield from _union_problems(error, path)
    else:
        yield Problem(here, keyword, _message(error))


def _union_problems(error: JsonSchemaError, path: list[str | int]) -> Iterator[Problem]:
    here = json_pointer(path)
    schema: Any = error.schema
    instance: Any = error.instance
    union: list[Any] = schema[error.validator]
    context = list(error.context or ())
    discriminator = schema.get("discriminator", {}).get("propertyName")
    if discriminator is not None:
        if not isinstance(instance, dict):
            return  # the union's own `type: object` reports this
        if discriminator not in instance:
            yield Problem(
                json_pointer([*path, discriminator]), "required", f"{discriminator!r} is required"
            )
            return
        mismatched = {
            _branch(sub)
            for sub in context
            if sub.validator == "const" and list(sub.relative_path) == [discriminator]
        }
        branches = {_branch(sub) for sub in context} | set(range(len(union)))
        matching = sorted(branches - mismatched)
        if not matching:
            yield Problem(
                json_pointer([*path, discriminator]),
                "discriminator",
                f"unknown {discriminator} {shown(instance[discriminator])}",
            )
            return
        for sub in context:
            if _branch(sub) == matching[0]:
                yield from _schema_problems(sub)
        return
    if all(isinstance(branch, dict) and set(branch) == {"required"} for branch in union):
        names = ", ".join(name for branch in union for name in cast(list[str], branch["required"]))
        yield Problem(here, "anyOf", f"needs one of {names}")
        return
    wrong_type = {_branch(sub) for sub in context if sub.validator == "type" and not sub.path}
    fitting = [sub for sub in context if _branch(sub) not in wrong_type]
    if not fitting:
        expected = " or ".join(str(branch.get("type", "?")) for branch in schema[error.validator])
        yield Problem(here, "type", f"must be {expected}")
        return
    for sub in fitting:
        yield from _schema_problems(sub)


def _dedupe(problems: Iterator[Problem]) -> list[Problem]:
    seen: set[tuple[str, str]] = set()
    out = []
    for problem in problems:
        key = (problem.pointer, problem.keyword)
        if key not in seen:
            seen.add(key)
            out.append(problem)
    return out


def _json_value(instance: Any) -> Any:
    if isinstance(instance, BaseModel):
        return to_dict(instance)
    return instance


def schema_problems(instance: Any, type: str = "Message") -> list[Problem]:
    """Every problem :func:`validate` would report, as a list (empty when valid).

    A document past a limit of :mod:`chatschema.limits` (nesting depth, message
    count, string size), or holding a value JSON cannot hold (NaN, an infinity, a
    Python object such as a generator: keyword ``json``), gets that one problem, as
    :func:`parse` reports it.
    """
    _check_type_name(type)
    beyond = limits.limit_problems(instance, type, json=limits.JSON_DATA)
    if beyond:
        return beyond
    try:
        instance = _json_value(instance)
    except ValidationError as error:
        return list(error.problems)
    try:
        errors = list(_validator(type).iter_errors(instance))
        problems = _dedupe(p for error in errors for p in _schema_problems(error))
    except RecursionError:
        return [Problem("", "depth", "the document is nested too deeply to validate")]
    if problems and isinstance(instance, (str, bytes, bytearray)):
        return [_text_hint(problem, type) for problem in problems]
    return problems


def _text_hint(problem: Problem, type: str) -> Problem:
    """A root type problem of text given to :func:`validate`: say how to check JSON text."""
    if problem.pointer or problem.keyword != "type":
        return problem
    return Problem(
        "",
        "type",
        f"{problem.message} (validate() checks a parsed JSON value, not JSON text: "
        f"read text with parse(text, type) or validate(json.loads(text), type))",
    )


def validate(instance: Any, type: str = "Message") -> None:
    """Check a JSON value against the chatschema JSON Schema of ``type``.

    Args:
        instance: a parsed JSON value (``dict``, ``list`` ...) or a chatschema model.
            A ``str`` is a JSON string value, not JSON text: where the type is an
            object, the problem says so and names :func:`parse` (which reads text).
        type: the schema type, such as ``"Message"``, ``"Conversation"``,
            ``"ContentBlock"`` or ``"TextBlock"`` (see :data:`TYPE_NAMES`).

    Raises:
        SchemaValidationError: listing every problem with its JSON pointer and keyword.
        OptionError: for an unknown ``type`` (a ``ValueError`` too).
    """
    problems = schema_problems(instance, type)
    if problems:
        raise SchemaValidationError(problems, type_name=type)


def is_valid(instance: Any, type: str = "Message") -> bool:
    """Whether :func:`validate` would accept ``instance``."""
    return not schema_problems(instance, type)


# --------------------------------------------------------------------------- Pydantic


@cache
def _adapter(type: str) -> TypeAdapter[Any]:
    return TypeAdapter(MODELS[type])


@cache
def _list_adapter(type: str) -> TypeAdapter[Any]:
    item: Any = MODELS[type]
    return TypeAdapter(list[item])


_KEYWORDS = {
    "missing": "required",
    "extra_forbidden": "additionalProperties",
    "union_tag_invalid": "discriminator",
    "union_tag_not_found": "required",
    "string_too_short": "minLength",
    "string_too_long": "maxLength",
    "greater_than_equal": "minimum",
    "string_pattern_mismatch": "pattern",
    "json_invalid": "json",
    "json_type": "json",
    "too_short": "minItems",
    "too_long": "maxItems",
    "recursion_loop": "depth",
    "string_unicode": "unicode",
}


def _is_content_branch(label: str | int) -> bool:
    """Whether a location label names a branch of string-or-array content."""
    return label == "str" or (isinstance(label, str) and label.startswith("list["))


# Where Pydantic puts the tag of a discriminated union into a location: right after
# the item of one of these lists, after these keys, and at the root of these types.
_UNION_LISTS = frozenset({"messages", "content", "annotations", None})
_UNION_KEYS = frozenset({"tool_choice"})
_UNION_TYPES = frozenset({"Message", "ContentBlock", "Annotation", "ToolChoice", "ResponseFormat"})
# Objects whose models check rules after their fields (tag presence, sources): when a
# field fails, those checks do not run, so the error path re-applies them to the input.
_TAGGED_KEYS = {"cache_control": "CacheControl"}


class _Walk:
    """Maps Pydantic locations onto the document (see :func:`_pydantic_problems`)."""

    def __init__(self, data: Any, type_name: str) -> None:
        self.data = data
        self.root_union = type_name in _UNION_TYPES
        self.root_list = type_name == "list of messages"
        self.checked: dict[str, tuple[Any, str]] = {}
        if type_name in TYPE_NAMES and not self.root_union:
            self.checked[""] = (data, type_name)

    def path(self, loc: tuple[str | int, ...], missing: bool) -> list[str | int] | None:
        """The document path of ``loc``; None for a union branch that does not apply."""
        path: list[str | int] = []
        node = self.data
        expect_tag = self.root_union
        parent: str | None = "" if self.root_list else "<root>"
        last = len(loc) - 1
        for position, part in enumerate(loc):
            if (
                expect_tag
                and isinstance(node, Mapping)
                and part == node.get("type", node.get("role"))
            ):
                expect_tag = False  # the union's tag label, not a property
                variant = _VARIANTS.get(str(part))
                if variant is not None:
                    self.checked.setdefault(json_pointer(path), (node, variant))
                continue
            expect_tag = False
            if isinstance(part, int):
                if isinstance(node, list) and 0 <= part < len(node):
                    path.append(part)
                    node = node[part]
                    expect_tag = (parent or None) in _UNION_LISTS
            elif isinstance(node, Mapping) and (part in node or (missing and position == last)):
                path.append(part)
                node = node.get(part)
                parent = part
                expect_tag = part in _UNION_KEYS
                if part in _TAGGED_KEYS:
                    self.checked.setdefault(json_pointer(path), (node, _TAGGED_KEYS[part]))
            elif (
                _is_content_branch(part)
                and isinstance(node, (str, list))
                and (part == "str") != isinstance(node, str)
            ):
                return None  # the branch of string-or-array content that does not apply
        return path

    def late_rules(self) -> Iterator[Problem]:
        """Tag presence and source rules of the objects the errors passed through."""
        for pointer, (node, type_name) in self.checked.items():
            if not isinstance(node, Mapping):
                continue
            model = MODELS.get(type_name)
            tag = getattr(model, "__cs_tag__", None)
            if tag is not None and tag not in node:
                yield Problem(f"{pointer}/{tag}", "required", f"{tag!r} is required")
            sources = getattr(model, "__cs_sources__", ())
            if sources and not any(name in node for name in sources):
                yield Problem(pointer, "anyOf", f"needs one of the sources {', '.join(sources)}")
            if (
                sources
                and getattr(model, "__cs_base64_needs_mime__", True)
                and "base64" in node
                and "mime_type" not in node
            ):
                yield Problem(
                    f"{pointer}/mime_type",
                    "dependentRequired",
                    "`base64` data requires `mime_type`",
                )


def _variants() -> dict[str, str]:
    """Tag -> class name of the union members that have late rules (the data blocks)."""
    variants = {}
    for name, model in MODELS.items():
        if getattr(model, "__cs_sources__", ()):
            variants[model.__cs_tag_value__] = name
    return variants


_VARIANTS = _variants()


def _pydantic_problems(error: pydantic.ValidationError, data: Any, type_name: str) -> list[Problem]:
    walk = _Walk(data, type_name)
    problems = []
    for detail in error.errors(include_url=False):
        kind = detail["type"]
        ctx = detail.get("ctx") or {}
        if kind in ("json_invalid", "json_type"):
            problems.append(Problem("", "json", f"not valid JSON: {ctx.get('error', kind)}"))
            continue
        loc = tuple(detail["loc"])
        path = walk.path(loc, missing=kind == "missing")
        if path is None:
            continue
        message = detail["msg"]
        if kind == "literal_error":
            keyword = "enum" if " or " in str(ctx.get("expected", "")) else "const"
        elif kind in ("union_tag_invalid", "union_tag_not_found"):
            path.append(str(ctx.get("discriminator", "")).strip("'"))
            if kind == "union_tag_invalid":
                keyword, message = "discriminator", f"unknown {path[-1]} {shown(ctx.get('tag'))}"
            else:
                keyword, message = "required", f"{path[-1]!r} is required"
        elif kind in ("anyOf", "dependentRequired", "tag_missing"):
            keyword = "required" if kind == "tag_missing" else kind
            if "property" in ctx:
                path.append(str(ctx["property"]))
        elif kind.endswith("_type") or kind in ("int_from_float", "model_attributes_type"):
            keyword = "type"
            if kind in ("string_type", "list_type") and loc and _is_content_branch(loc[-1]):
                message = "must be a string or an array"
        else:
            keyword = _KEYWORDS.get(kind, kind)
            if kind == "string_unicode":
                message = _NOT_UNICODE
        problems.append(Problem(json_pointer(path), keyword, message))
    problems.extend(walk.late_rules())
    return _dedupe(iter(problems))


def model_problems(error: pydantic.ValidationError, data: Any, type_name: str) -> list[Problem]:
    """A model's refusal of ``data`` as problems with JSON pointers into ``data``.

    What a model's constructor and ``model_validate`` raise
    (:class:`chatschema._wire.ModelValidationError`) lists these.
    """
    return _pydantic_problems(error, data, type_name)


def loads_for_errors(data: Any) -> Any:
    """JSON text parsed for locating errors (``None`` when it is not JSON); other data as is."""
    return _loads_for_errors(data)


def _loads_for_errors(data: Any) -> Any:
    if isinstance(data, (str, bytes, bytearray)):
        try:
            return json.loads(data)
        except (ValueError, RecursionError):
            return None
    return data


def _too_deep_text(data: str | bytes | bytearray) -> Problem:
    """The depth problem of JSON text the parser refused for its nesting."""
    parsed = _loads_for_errors(data)
    problem = None if parsed is None else limits.depth_problem(parsed)
    return problem if problem is not None else limits.too_deep()


_BOM = "\ufeff"
_BOM_BYTES = b"\xef\xbb\xbf"


@collector_paused
def _run(adapter: TypeAdapter[_T], data: JSONInput, type_name: str) -> _T:
    text = isinstance(data, (str, bytes, bytearray))
    if text:
        # a UTF-8 byte order mark before JSON text is skipped, as the CLI does
        if isinstance(data, str):
            if data.startswith(_BOM):
                data = data[1:]
        elif isinstance(data, (bytes, bytearray)) and data.startswith(_BOM_BYTES):
            data = data[3:]
    else:
        # Python data: the limits first, before any work (JSON text: the parser
        # bounds the depth, and no string can be longer than the text).
        # Models held by the data (a list of messages to encode) were checked when
        # they were read, or were built in code: only the plain data is walked.
        # The same pass refuses values JSON cannot hold (NaN, a generator ...).
        beyond = limits.limit_problems(data, type_name, models=False, json=limits.JSON_DATA)
        if beyond:
            raise ValidationError(beyond, type_name=type_name)
    try:
        if isinstance(data, (str, bytes, bytearray)):
            result = adapter.validate_json(data)
        else:
            result = adapter.validate_python(data)
    except pydantic.ValidationError as error:
        if text and _recursion_limit(error):
            problems = [_too_deep_text(cast("str | bytes | bytearray", data))]
        else:
            problems = _pydantic_problems(error, _loads_for_errors(data), type_name)
        raise ValidationError(problems, type_name=type_name) from None
    except RecursionError:
        raise ValidationError([limits.too_deep()], type_name=type_name) from None
    if text:
        size = len(cast("str | bytes | bytearray", data))
        beyond = limits.limit_problems(
            result, type_name, depth=False, strings=size > limits.MAX_STRING_CHARS
        )
        if beyond:
            raise ValidationError(beyond, type_name=type_name)
    tag = getattr(result, "__cs_tag__", None)
    # A variant parsed on its own: its tag is required, as in the schema.
    if (
        tag is not None
        and type_name not in _UNION_TYPES
        and tag not in cast(BaseModel, result).__pydantic_fields_set__
    ):
        raise ValidationError(
            [Problem(f"/{tag}", "required", f"{tag!r} is required")], type_name=type_name
        )
    return result


@overload
def parse(data: JSONInput, type: str = "Message") -> Any: ...
@overload
def parse(data: JSONInput, type: type[_T]) -> _T: ...
def parse(data: JSONInput, type: Any = "Message") -> Any:
    """Parse a document into chatschema models.

    Args:
        data: JSON text (``str``, ``bytes``) or parsed JSON (``dict``, ``list``);
            models pass through after validation.
        type: a type name from :data:`TYPE_NAMES` or a model class.

    Raises:
        ValidationError: listing every problem with its JSON pointer and keyword.
    """
    if not isinstance(type, str) and isinstance(getattr(type, "__name__", None), str):
        type = type.__name__
    _check_type_name(type)
    return _run(_adapter(type), data, type)


def parse_message(data: JSONInput) -> Message:
    """Parse one message (any role) from JSON text or a dict.

    Raises:
        ValidationError: listing every problem with its JSON pointer and keyword.
    """
    return cast(Message, _run(_adapter("Message"), data, "Message"))


def parse_messages(data: JSONInput) -> list[Message]:
    """Parse a JSON array of messages (any roles).

    Raises:
        ValidationError: listing every problem with its JSON pointer and keyword.
    """
    return cast(list[Message], _run(_list_adapter("Message"), data, "list of messages"))


def parse_conversation(data: JSONInput) -> Conversation:
    """Parse a conversation (messages, tools, tool choice) from JSON text or a dict.

    Raises:
        ValidationError: listing every problem with its JSON pointer and keyword.
    """
    return cast(Conversation, _run(_adapter("Conversation"), data, "Conversation"))


def _recursion_limit(error: pydantic.ValidationError) -> bool:
    """Whether the JSON parser refused the text for its nesting depth."""
    return any(
        detail["type"] == "json_invalid" and "recursion limit" in str(detail.get("ctx"))
        for detail in error.errors(include_url=False)
    )


def _unserializable(model: BaseModel, error: Exception) -> ValidationError:
    """A model built in code that cannot be written as JSON (too deep, odd values)."""
    problem = limits.depth_problem(model)
    if problem is None:
        reason = str(error).splitlines()[0] if str(error) else type(error).__name__
        problem = Problem("", "type", f"cannot be written as JSON: {reason[:200]}")
    return ValidationError([problem], type_name=type(model).__name__)


def _not_a_model(value: Any, function: str) -> ValidationError:
    return wrong_type(
        value,
        "a chatschema model",
        type_name=f"{function}() argument",
        hint="to check a dict use validate(); to read one into a model use parse()",
    )


def to_dict(model: BaseModel) -> dict[str, Any]:
    """The canonical JSON form of a model: what was set, nothing added, nothing lost.

    An optional field is never written as ``null``: unset it (``None`` or ``del``,
    see docs/concepts.md) and it is left out.

    Raises:
        ValidationError: for something that is not a model, and for a model built in
            code that JSON cannot hold (values nested deeper than
            :data:`chatschema.limits.MAX_DEPTH`, non-JSON values in free-form fields).
    """
    if not isinstance(model, BaseModel):
        raise _not_a_model(model, "to_dict")
    try:
        return model.model_dump(mode="json", exclude_unset=True)
    except (ValueError, RecursionError) as error:
        raise _unserializable(model, error) from None


def to_json(model: BaseModel) -> str:
    """The canonical JSON text of a model (see :func:`to_dict`).

    Raises:
        ValidationError: as :func:`to_dict`.
    """
    if not isinstance(model, BaseModel):
        raise _not_a_model(model, "to_json")
    try:
        return model.model_dump_json(exclude_unset=True)
    except (ValueError, RecursionError) as error:
        raise _unserializable(model, error) from None
