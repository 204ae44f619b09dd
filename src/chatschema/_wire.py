"""Base classes of the generated models.

The models in ``chatschema_models`` are generated from ``schemas/`` and never edited
by hand; what they share beyond the schema lives here, and the generator names these
classes as their bases (``[tool.datamodel-codegen]`` in ``pyproject.toml`` and the
base-class map in ``codegen/generate.py``).

Nothing here may import the generated models: they import this module. What the
bases do beyond the schema - reprs that mask opaque data, ``usage + usage``,
``chunk + chunk`` and ``to_message()``, the text views of a message - lives in small
modules beneath them (:mod:`chatschema._masking`, :mod:`chatschema._usage`,
:mod:`chatschema._chunks`, :mod:`chatschema._render`) that import no models either;
where they must build a model, the classes are handed in: each generated class is
registered in :data:`chatschema._generated.GENERATED` as it is defined.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from types import NoneType, UnionType
from typing import (
    TYPE_CHECKING,
    Any,
    ClassVar,
    Literal,
    Optional,
    TypeAlias,
    TypeVar,
    Union,
    cast,
    get_args,
    get_origin,
)

import pydantic
from pydantic import BaseModel, ConfigDict, model_validator
from pydantic.config import ExtraValues
from pydantic_core import PydanticCustomError
from typing_extensions import Self

from chatschema._chunks import add_chunks, to_message
from chatschema._generated import GENERATED
from chatschema._masking import masked_field
from chatschema._render import content_to_str, pretty_repr
from chatschema._usage import add_usage
from chatschema.errors import OptionError, Problem, ValidationError

if TYPE_CHECKING:
    from chatschema_models.chunk import AssistantMessageChunk
    from chatschema_models.message import AssistantMessage, Message
    from chatschema_models.usage import Usage

__all__ = [
    "ChunkBase",
    "MessageBase",
    "ModelValidationError",
    "Omittable",
    "EmbeddedResourceBlock",
    "SourcedBlock",
    "TaggedModel",
    "UsageBase",
    "WireModel",
    "content_chunk",
    "copy_model",
    "text_block",
    "trusted",
]

_T = TypeVar("_T")
_M = TypeVar("_M", bound="WireModel")

if TYPE_CHECKING:
    Omittable: TypeAlias = Optional[_T]  # noqa: UP045  (a generic alias needs the subscript form)
else:

    class Omittable:
        """``Omittable[X]``: a field that may be left out, but is never ``null``.

        Type checkers read it as ``X | None`` (``None`` meaning "absent"); at run time
        it is plain ``X``, so a JSON ``null`` is rejected exactly as the schema rejects
        it, at no cost on the parsing path.
        """

        def __class_getitem__(cls, item: Any) -> Any:
            return item


_TAG_FIELDS = ("type", "role")


class ModelValidationError(ValidationError, pydantic.ValidationError):
    """A model refused the values it was built from (constructor or ``model_validate``).

    A :class:`chatschema.ValidationError` (``problems``, each with its JSON pointer,
    such as ``/content``) and, for code written against pydantic, a
    ``pydantic.ValidationError`` too (``errors()``, ``error_count()``): both
    ``except`` clauses catch it, and ``except ValueError`` as before. The original
    pydantic error is its ``__cause__``.
    """

    def __init__(self, *args: Any) -> None:
        # pydantic builds the instance (``from_exception_data``); _model_error fills it.
        pass

    __str__ = BaseException.__str__  # pydantic's own text is its cause's

    def __reduce__(self) -> tuple[Any, ...]:
        # pydantic's pickling form plus the problems (worker processes send errors back)
        arguments = cast(Any, pydantic.ValidationError.__reduce__(self))[1]
        return _rebuilt, (arguments, self.problems, self.type_name)


def _rebuilt(
    arguments: tuple[Any, ...], problems: tuple[Problem, ...], type_name: str
) -> ModelValidationError:
    """A :class:`ModelValidationError` back from its pickled form."""
    error = ModelValidationError.from_exception_data(*arguments)
    ValidationError.__init__(error, problems, type_name=type_name)
    return error


def _model_error(
    error: pydantic.ValidationError, data: Any, type_name: str, *, text: bool = False
) -> ModelValidationError:
    """``error`` as a :class:`ModelValidationError` naming every problem by pointer."""
    # by name: chatschema.validation (the location mapping) sits above this module
    validation = importlib.import_module("chatschema.validation")
    if text:
        data = validation.loads_for_errors(data)
    try:
        problems = validation.model_problems(error, data, type_name)
    except Exception:  # the refusal stands, said in pydantic's words below
        problems = []
    if not problems:
        problems = [
            Problem("", str(detail["type"]), str(detail["msg"]))
            for detail in error.errors(include_url=False)
        ]
    # pydantic's own pickling form: the same errors, raised as this class
    return _rebuilt(cast(Any, error.__reduce__())[1], tuple(problems), type_name)


def _accepts_none(annotation: Any) -> bool:
    """Whether a field's type admits ``None`` (``Any``, ``X | None``): JSON ``null``."""
    if annotation is Any or annotation is None or annotation is NoneType:
        return True
    origin = get_origin(annotation)
    if origin is Union or origin is UnionType:
        return any(_accepts_none(arg) for arg in get_args(annotation))
    return False


class WireModel(BaseModel):
    """Base of every generated model.

    Models are strict: no coercion between JSON types (``"1"`` is not an integer),
    as in the schema. Their repr leaves absent fields out, never shows opaque data
    (``signature``, ``encrypted_content``) and shortens base64 data. Constructors
    fill in the tag (``type`` of a block, ``role`` of a message) when it is not
    given, so it counts as set and
    ``model_dump(exclude_unset=True)`` - the canonical, lossless dump - keeps it.
    Parsing does not go through ``__init__`` and pays nothing for this.

    An optional field the schema does not allow to be ``null`` is unset by ``None``
    (in the constructor, by assignment, in ``model_copy(update=...)``) and by
    ``del``; :func:`chatschema.to_dict` never writes ``null`` for it. A refusal is
    a :class:`ModelValidationError`.
    """

    model_config = ConfigDict(strict=True, defer_build=True)

    __cs_tag__: ClassVar[str | None] = None
    __cs_tag_value__: ClassVar[str | None] = None
    # optional fields (default None); those whose type refuses None: None unsets them
    __cs_optional__: ClassVar[frozenset[str]] = frozenset()
    __cs_omittable__: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        if cls.__module__.startswith("chatschema_models."):
            GENERATED[cls.__name__] = cls  # handed in (see chatschema._generated)
        for name in _TAG_FIELDS:
            field = cls.model_fields.get(name)
            annotation = field.annotation if field is not None else None
            if get_origin(annotation) is Literal and len(get_args(annotation)) == 1:
                cls.__cs_tag__, cls.__cs_tag_value__ = name, get_args(annotation)[0]
                break
        optional = {
            name
            for name, field in cls.model_fields.items()
            if not field.is_required() and field.default is None
        }
        cls.__cs_optional__ = frozenset(optional)
        cls.__cs_omittable__ = frozenset(
            name for name in optional if not _accepts_none(cls.model_fields[name].annotation)
        )

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        """Absent fields left out; opaque data never shown; inline data shortened.

        Base64 data and data URLs are cut to their start and length; free-form data
        deeper than 20 levels is elided.
        """
        fields_set = self.__pydantic_fields_set__
        for name, value in super().__repr_args__():
            if value is None and name not in fields_set:
                continue
            yield name, masked_field(name, value)

    def __init__(self, /, **data: Any) -> None:
        tag = self.__cs_tag__
        if tag is not None and tag not in data:
            data[tag] = self.__cs_tag_value__
        try:
            super().__init__(**data)
        except pydantic.ValidationError as error:
            # None for an optional field means absent: retried without (a None there
            # always fails, so the success path pays nothing for this)
            given = {
                k: v for k, v in data.items() if v is not None or k not in self.__cs_omittable__
            }
            if len(given) == len(data):
                raise _model_error(error, data, type(self).__name__) from error
            try:
                super().__init__(**given)
            except pydantic.ValidationError as again:
                raise _model_error(again, given, type(self).__name__) from again

    # Pydantic runs a custom ``__init__`` on every validated instance unless it is
    # marked as the base one; this one only matters for constructor calls, so the
    # parsing path keeps its speed (tests/test_models.py holds both to it).
    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    @classmethod
    def model_validate(
        cls,
        obj: Any,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        from_attributes: bool | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """Pydantic's ``model_validate``; a refusal is a :class:`ModelValidationError`."""
        if by_alias is False and by_name is not True:  # pydantic's usage error
            return super().model_validate(obj, by_alias=by_alias, by_name=by_name)
        try:
            # the validator itself, as pydantic's method calls it: no extra frame
            return cls.__pydantic_validator__.validate_python(  # type: ignore[no-any-return]
                obj,
                strict=strict,
                extra=extra,
                from_attributes=from_attributes,
                context=context,
                by_alias=by_alias,
                by_name=by_name,
            )
        except pydantic.ValidationError as error:
            raise _model_error(error, obj, cls.__name__) from error

    @classmethod
    def model_validate_json(
        cls,
        json_data: str | bytes | bytearray,
        *,
        strict: bool | None = None,
        extra: ExtraValues | None = None,
        context: Any | None = None,
        by_alias: bool | None = None,
        by_name: bool | None = None,
    ) -> Self:
        """Pydantic's ``model_validate_json``; a refusal is a :class:`ModelValidationError`."""
        if by_alias is False and by_name is not True:  # pydantic's usage error
            return super().model_validate_json(json_data, by_alias=by_alias, by_name=by_name)
        try:
            return cls.__pydantic_validator__.validate_json(  # type: ignore[no-any-return]
                json_data,
                strict=strict,
                extra=extra,
                context=context,
                by_alias=by_alias,
                by_name=by_name,
            )
        except pydantic.ValidationError as error:
            raise _model_error(error, json_data, cls.__name__, text=True) from error

    def __setattr__(self, name: str, value: Any) -> None:
        if value is None and name in self.__cs_omittable__:
            self._unset(name)
        else:
            super().__setattr__(name, value)

    def __delattr__(self, name: str) -> None:
        if name in self.__cs_optional__:
            self._unset(name)
        elif name in type(self).model_fields:
            problem = Problem(f"/{name}", "required", f"{name!r} is required: it cannot be unset")
            raise ValidationError([problem], type_name=type(self).__name__)
        else:
            super().__delattr__(name)

    def _unset(self, name: str) -> None:
        """Leave the optional field ``name`` absent, as if it was never given."""
        self.__dict__[name] = None
        self.__pydantic_fields_set__.discard(name)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> Self:
        """Pydantic's ``model_copy``; ``None`` in ``update`` unsets an optional field."""
        if update is not None and not isinstance(update, Mapping):
            raise OptionError(
                f"update must be a mapping of field names, not {type(update).__name__}"
            )
        if update:
            omittable = self.__cs_omittable__
            unset = [k for k, v in update.items() if v is None and k in omittable]
            if unset:
                update = {k: v for k, v in update.items() if k not in unset}
                copy = super().model_copy(update=update, deep=deep)
                for name in unset:
                    copy._unset(name)
                return copy
        return super().model_copy(update=update, deep=deep)


class TaggedModel(WireModel):
    """Base of tagged models that are not members of a union (``CacheControl``).

    A union checks its members' tags; these check their own, since the schema
    requires the tag that the Python constructor lets you leave out.
    """

    @model_validator(mode="after")
    def _check_tag(self) -> Self:
        tag = self.__cs_tag__
        if tag is not None and tag not in self.__pydantic_fields_set__:
            raise PydanticCustomError("tag_missing", "Field required", {"property": tag})
        return self


class SourcedBlock(WireModel):
    """Base of the data blocks (image, audio, video, file, text-plain).

    Enforces the two source rules of the schema that the generator cannot express:
    at least one source (``anyOf`` of ``required``) and ``base64`` requires
    ``mime_type`` (``dependentRequired``).
    """

    __cs_sources__: ClassVar[tuple[str, ...]] = ()
    __cs_base64_needs_mime__: ClassVar[bool] = True

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        cls.__cs_sources__ = tuple(
            name for name in ("text", "url", "base64", "file_id") if name in cls.model_fields
        )

    @model_validator(mode="after")
    def _check_sources(self) -> Self:
        values = self.__dict__
        if all(values.get(name) is None for name in self.__cs_sources__):
            raise PydanticCustomError(
                "anyOf",
                "needs one of the sources {sources}",
                {"sources": ", ".join(self.__cs_sources__)},
            )
        if (
            self.__cs_base64_needs_mime__
            and values.get("base64") is not None
            and values.get("mime_type") is None
        ):
            raise PydanticCustomError(
                "dependentRequired",
                "`base64` data requires `mime_type`",
                {"property": "mime_type"},
            )
        return self


class EmbeddedResourceBlock(SourcedBlock):
    """Base of the embedded resource block: ``text`` or ``base64``, a media type optional."""

    __cs_base64_needs_mime__: ClassVar[bool] = False


class ChunkBase(TaggedModel):
    """Base of ``AssistantMessageChunk``: chunks add up with ``+``.

    ``total = total + chunk`` costs time proportional to ``chunk`` only: sums share
    one :class:`chatschema.ChunkAccumulator` (see :mod:`chatschema.streaming`).
    """

    def __init__(self, /, **data: Any) -> None:
        # ``AssistantMessageChunk(content="...")``, the text delta of a streaming loop:
        # validated here (an exact ``str`` is all the schema asks of it), without the
        # general validator's cost. Anything else is validated by pydantic.
        if len(data) == 1:
            content = data.get("content")
            cls = type(self)
            # an exact str, in the generated class (not a user's subclass)
            if type(content) is str and GENERATED.get("AssistantMessageChunk") is cls:
                layout = _LAYOUTS.get(cls) or _layout(cls)
                values = layout.template.copy()
                values["content"] = content
                for name, factory in layout.factories:
                    values[name] = factory()
                _set_dict(self, values)
                _set_fields_set(self, {"role", "content"})
                _set_extra(self, None)
                _set_private(self, None)
                return
        super().__init__(**data)

    __init__.__pydantic_base_init__ = True  # type: ignore[attr-defined]

    def __add__(self, other: object) -> Self:
        if isinstance(other, ChunkBase):
            return cast(Self, add_chunks(self, other))
        return NotImplemented

    def to_message(self) -> AssistantMessage:
        """The finished message: tool-call arguments parsed, once, strictly."""
        return to_message(cast("AssistantMessageChunk", self))


class MessageBase(WireModel):
    """Base of the message models: text views of the content."""

    @property
    def text(self) -> str:
        """The message's text: a string content, or its text blocks joined."""
        content = self.__dict__["content"]
        if isinstance(content, str):
            return content
        return "".join(block.text for block in content if block.type == "text")

    def content_to_str(self) -> list[str]:
        """The content as readable strings, one per block.

        Text as it is; other blocks as a short placeholder (``[image: https://...]``,
        ``[file: report.pdf]``); opaque reasoning data and base64 are never shown.
        """
        return content_to_str(self)

    def pretty_repr(self) -> str:
        """A readable rendering for humans (see :func:`chatschema.pretty_repr`)."""
        return pretty_repr(cast("Message", self))


class UsageBase(WireModel):
    """Base of ``Usage``: usages add up with ``+`` (details key by key)."""

    def __add__(self, other: object) -> Self:
        if not isinstance(other, UsageBase):
            return NotImplemented
        return cast(Self, add_usage(cast("Usage", self), cast("Usage", other)))


# ------------------------------------------------------------ trusted construction

_new = object.__new__
_set_dict = BaseModel.__dict__["__dict__"].__set__
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__
_IMMUTABLE_DEFAULTS = (type(None), str, int, float, bool)


class _Layout:
    """What an instance of a model holds besides the given fields: defaults, in field order."""

    __slots__ = ("factories", "tag", "template")

    def __init__(self, cls: type[WireModel]) -> None:
        self.template: dict[str, Any] = {}
        self.factories: tuple[tuple[str, Any], ...] = ()
        for name, field in cls.model_fields.items():
            if field.default_factory is not None:
                self.factories += ((name, field.default_factory),)
                self.template[name] = None
            elif field.is_required():
                self.template[name] = None  # always given (trusted callers)
            elif type(field.default) in _IMMUTABLE_DEFAULTS:
                self.template[name] = field.default
            else:  # pragma: no cover - no generated model has one
                raise TypeError(f"{cls.__name__}.{name}: a mutable default")
        self.tag = cls.__cs_tag__


_LAYOUTS: dict[type[Any], _Layout] = {}


def _layout(cls: type[Any]) -> _Layout:
    layout = _LAYOUTS.get(cls)
    if layout is None:
        layout = _LAYOUTS[cls] = _Layout(cls)
    return layout


def _fill(instance: Any, values: dict[str, Any], fields_set: set[str]) -> None:
    """Give a bare instance the state pydantic's validation gives it."""
    _set_dict(instance, values)
    _set_fields_set(instance, fields_set)
    _set_extra(instance, None)
    _set_private(instance, None)


def trusted(cls: type[_M], fields: dict[str, Any]) -> _M:
    """An instance of ``cls`` from ``fields`` known to be valid, built without validation.

    For the codecs' fast paths only, on data they built and checked themselves (never
    on user input): the instance is the one ``cls(**fields)`` would give, state for
    state (``tests/test_streaming_fast.py`` holds them to it).
    """
    layout = _LAYOUTS.get(cls) or _layout(cls)
    values = layout.template.copy()
    values.update(fields)
    for name, factory in layout.factories:
        if name not in fields:
            values[name] = factory()
    fields_set = set(fields)
    if layout.tag is not None:
        fields_set.add(layout.tag)
    instance = _new(cls)
    _fill(instance, values, fields_set)
    return instance


def text_block(cls: type[_M], text: str, index: int) -> _M:
    """``cls(text=text, index=index)`` for a block class, trusted (see :func:`trusted`)."""
    values = (_LAYOUTS.get(cls) or _layout(cls)).template.copy()
    values["text"] = text
    values["index"] = index
    instance = _new(cls)
    _fill(instance, values, {"type", "text", "index"})
    return instance


def content_chunk(cls: type[_M], content: str | list[Any]) -> _M:
    """``AssistantMessageChunk(content=content)`` (``cls``), trusted (see :func:`trusted`)."""
    instance = _new(cls)
    _content_chunk(instance, cls, content)
    return instance


def _content_chunk(instance: Any, cls: type[Any], content: str | list[Any]) -> None:
    layout = _LAYOUTS.get(cls) or _layout(cls)
    values = layout.template.copy()
    values["content"] = content
    for name, factory in layout.factories:
        values[name] = factory()
    _fill(instance, values, {"role", "content"})


def copy_model(model: _M) -> _M:
    """A copy of ``model`` that shares nothing mutable with it, built without validation.

    Nested models, dicts and lists are copied too; what ``model`` holds was valid,
    so the copy is (``tests/test_streaming_fast.py`` compares it with the original).
    """
    values = model.__dict__.copy()
    for name, value in values.items():
        if type(value) not in _IMMUTABLE_DEFAULTS:
            values[name] = _copied(value)
    instance = _new(type(model))
    _set_dict(instance, values)
    _set_fields_set(instance, model.__pydantic_fields_set__.copy())
    extra = model.__pydantic_extra__
    _set_extra(instance, None if extra is None else _copied(extra))
    private = model.__pydantic_private__
    _set_private(instance, None if private is None else _copied(private))
    return instance


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind in _IMMUTABLE_DEFAULTS:
        return value
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list:
        return [_copied(item) for item in value]
    if isinstance(value, BaseModel):
        return copy_model(cast(WireModel, value))
    return value
