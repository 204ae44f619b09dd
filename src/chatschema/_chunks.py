"""The chunk arithmetic: ``chunk + chunk``, ``chunk.to_message()``, the accumulator.

:mod:`chatschema.streaming` is the public face of this module (and documents the
merge policy, field by field); the base class ``ChunkBase`` (:mod:`chatschema._wire`)
builds its ``+`` and ``to_message`` on it. It sits beneath the generated models and
imports none of them: they import ``_wire``, which imports this module. The classes
it builds (``AssistantMessage``, ``ToolCall``, ``TextBlock`` ...) are handed in
instead: the base classes register each generated class in
:data:`chatschema._generated.GENERATED` as it is defined, and a chunk cannot exist
before its module and the modules it imports have run. Blocks are rebuilt with the
class of their first delta.

Everything here is linear in the bytes streamed: deltas are appended to per-block
buffers and joined once; tool-call arguments stay raw text until the stream ends,
when they are parsed once, strictly. Nothing copies the accumulated message per
chunk.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, cast

import pydantic

from chatschema import limits
from chatschema._arguments import parse_arguments
from chatschema._generated import GENERATED
from chatschema._partial_json import PartialJSON
from chatschema._usage import add_usage
from chatschema.errors import Problem, ValidationError, json_pointer

if TYPE_CHECKING:
    from chatschema_models.chunk import AssistantMessageChunk
    from chatschema_models.message import AssistantMessage
    from chatschema_models.tool import InvalidToolCall, ToolCall, ToolCallChunk
    from chatschema_models.usage import Usage

__all__ = ["ChunkAccumulator", "add_chunks", "merge_chunks", "not_chunks", "to_message"]

# Block fields whose deltas are appended, by block type.
_APPENDED = {
    "text": ("text",),
    "refusal": ("text",),
    "reasoning": ("text", "signature", "encrypted_content"),
    "text-plain": ("text",),
}
_TEXT_APPENDED = frozenset(kind for kind, names in _APPENDED.items() if "text" in names)
_EXTENDED = ("annotations", "summary")
# The fields a text delta sets: a chunk's (string content, or one block) and its block's.
_DELTA = frozenset({"role", "content"})
_TEXT_DELTA = frozenset({"type", "text", "index"})
_FIRST_WINS = ("id", "response_id", "model", "provider", "name")
_LAST_WINS = ("finish_reason", "raw_finish_reason")
_MERGED = ("response_metadata", "metadata", "extras")
_CONTENT, _FIRST, _LAST, _MERGE, _CALLS, _USAGE, _POSITION = range(7)
_KINDS = {
    "content": _CONTENT,
    **dict.fromkeys(_FIRST_WINS, _FIRST),
    **dict.fromkeys(_LAST_WINS, _LAST),
    **dict.fromkeys(_MERGED, _MERGE),
    "tool_call_chunks": _CALLS,
    "usage": _USAGE,
    "chunk_position": _POSITION,
}


def _deep_merge(into: dict[str, Any], update: Mapping[str, Any]) -> None:
    for key, value in update.items():
        current = into.get(key)
        if isinstance(current, dict) and (type(value) is dict or isinstance(value, Mapping)):
            _deep_merge(current, value)
        else:
            into[key] = _copy(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _copy(value: Any) -> Any:
    # exact types first: an ABC check (Mapping) costs several of them
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        return {key: _copy(item) for key, item in value.items()}
    if kind is list:
        return [_copy(item) for item in value]
    if isinstance(value, Mapping):
        return {key: _copy(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copy(item) for item in value]
    return value


def _too_long(pointer: str, what: str, type_name: str) -> ValidationError:
    """The error of a streamed string grown past :data:`chatschema.limits.MAX_STRING_CHARS`."""
    limit = limits.MAX_STRING_CHARS
    message = f"{what} is longer than {limit:,} characters (chatschema.limits.MAX_STRING_CHARS)"
    return ValidationError([Problem(pointer, "maxLength", message)], type_name=type_name)


class _Block:
    """One content block being assembled."""

    __slots__ = (
        "appended",
        "cls",
        "extended",
        "extras",
        "fields",
        "index",
        "position",
        "sizes",
        "type",
    )

    def __init__(self, block: Any, position: int) -> None:
        self.cls: Any = type(block)
        self.type: str = block.type
        self.index: int | None = block.index
        self.position = position  # among the assembled content, for errors
        self.fields: dict[str, Any] = {}
        self.appended: dict[str, list[str]] = {}
        self.sizes: dict[str, int] = {}  # characters appended, per field (the string limit)
        self.extended: dict[str, list[Any]] = {}
        self.extras: dict[str, Any] = {}
        self.add(block)

    def grown(self, name: str, size: int) -> None:
        """Count ``size`` more characters of field ``name``; past the string limit, raise.

        Raises:
            ValidationError: ``maxLength``, pointing at the field of this block.
        """
        total = self.sizes[name] = self.sizes.get(name, 0) + size
        if total > limits.MAX_STRING_CHARS:
            raise _too_long(
                f"/content/{self.position}/{name}", f"the {name} of this block", "AssistantMessage"
            )

    def add(self, block: Any) -> None:
        appended = _APPENDED.get(self.type, ())
        values = block.__dict__
        for name in block.__pydantic_fields_set__:
            value = values[name]
            if value is None or name == "index":
                continue
            if name in appended:
                self.grown(name, len(value))
                self.appended.setdefault(name, []).append(value)
            elif name in _EXTENDED:
                self.extended.setdefault(name, []).extend(value)
            elif name == "extras":
                _deep_merge(self.extras, value)
            elif name not in self.fields:
                self.fields[name] = value

    def build(self, *, keep_index: bool) -> Any:
        data: dict[str, Any] = dict(self.fields)
        if keep_index and self.index is not None:
            data["index"] = self.index
        for name, parts in self.appended.items():
            data[name] = "".join(parts)
        for name, items in self.extended.items():
            data[name] = list(items)
        if self.extras:
            data["extras"] = _copy(self.extras)
        return _validated(self.cls, data)


def _validated(cls: Any, data: dict[str, Any]) -> Any:
    """A block of class ``cls`` from merged data, checked as :func:`chatschema.parse` does.

    The limits of :mod:`chatschema.limits` first, then the model's validation and
    its tag; a failure is a :class:`ValidationError` naming each problem.
    """
    type_name = cls.__name__
    beyond = limits.limit_problems(data, type_name, models=False)
    if beyond:
        raise ValidationError(beyond, type_name=type_name)
    try:
        block = cls.model_validate(data)
    except pydantic.ValidationError as error:
        problems = [
            Problem(json_pointer(item["loc"]), item["type"], item["msg"])
            for item in error.errors(include_url=False)
        ]
        raise ValidationError(problems, type_name=type_name) from None
    tag = cls.__cs_tag__
    if tag is not None and tag not in block.__pydantic_fields_set__:
        raise ValidationError(
            [Problem(f"/{tag}", "required", f"{tag!r} is required")], type_name=type_name
        )
    return block


class _Call:
    """One tool call being assembled from its fragments."""

    __slots__ = ("extras", "fed", "id", "index", "name", "parser", "parts", "position", "size")

    def __init__(self, index: int | None, position: int) -> None:
        self.index = index
        self.position = position  # among the assembled calls, for errors
        self.id: str | None = None
        self.name: str | None = None
        self.parts: list[str] = []
        self.size = 0  # argument characters so far (the string limit)
        self.extras: dict[str, Any] = {}
        self.parser: PartialJSON | None = None
        self.fed = 0  # fragments given to the parser so far

    def add(self, chunk: ToolCallChunk) -> None:
        if self.id is None and chunk.id is not None:
            self.id = chunk.id
        if self.name is None and chunk.name:
            self.name = chunk.name
        if chunk.arguments:
            self.size += len(chunk.arguments)
            if self.size > limits.MAX_STRING_CHARS:
                raise _too_long(
                    f"/tool_call_chunks/{self.position}/arguments",
                    "the arguments of this tool call",
                    "AssistantMessageChunk",
                )
            self.parts.append(chunk.arguments)
        if chunk.extras:
            _deep_merge(self.extras, chunk.extras)

    def raw(self) -> str:
        return "".join(self.parts)

    def chunk(self) -> ToolCallChunk:
        data: dict[str, Any] = {}
        for key, value in (("id", self.id), ("name", self.name), ("index", self.index)):
            if value is not None:
                data[key] = value
        if self.parts:
            data["arguments"] = self.raw()
        if self.extras:
            data["extras"] = _copy(self.extras)
        chunk: ToolCallChunk = GENERATED["ToolCallChunk"](**data)
        return chunk

    def finish(self) -> ToolCall | InvalidToolCall:
        raw = self.raw()
        common: dict[str, Any] = {}
        if self.index is not None:
            common["index"] = self.index
        if self.extras:
            common["extras"] = _copy(self.extras)
        arguments, error = parse_arguments(raw)
        if error is None and not self.id:
            error = "the tool call has no id"
        if error is None and not self.name:
            error = "the tool call has no name"
        if error is not None:
            fields: dict[str, Any] = {"arguments": raw, "error": error, **common}
            if self.id:
                fields["id"] = self.id
            if self.name is not None:
                fields["name"] = self.name
            invalid: InvalidToolCall = GENERATED["InvalidToolCall"](**fields)
            return invalid
        call: ToolCall = GENERATED["ToolCall"](
            id=self.id, name=self.name, arguments=arguments, **common
        )
        return call

    def partial(self) -> ToolCall:
        if self.parser is None:
            self.parser = PartialJSON()
        for part in self.parts[self.fed :]:
            self.parser.feed(part)
        self.fed = len(self.parts)
        value = self.parser.value()
        # a snapshot: the parser updates its containers in place as text arrives
        arguments = _copy(value) if isinstance(value, dict) else {}
        fields: dict[str, Any] = {
            "id": self.id or "",
            "name": self.name or "",
            "arguments": arguments,
        }
        if self.index is not None:
            fields["index"] = self.index
        call: ToolCall = GENERATED["ToolCall"].model_construct(**fields)
        return call


class ChunkAccumulator:
    """Assembles a streamed reply, one chunk at a time, in time linear in the stream.

    ::

        accumulator = ChunkAccumulator()
        for chunk in openai_chat.decode_stream(events):
            accumulator.add(chunk)
            show(accumulator.partial_message())   # live view, arguments parsed so far
        reply = accumulator.message               # tool-call arguments parsed strictly
    """

    __slots__ = (
        "_blocks",
        "_by_key",
        "_calls",
        "_calls_by_index",
        "_chunks",
        "_content_set",
        "_count",
        "_fields",
        "_last",
        "_merged",
        "_string",
        "_text_only",
        "_usage",
        "_usage_mode",
    )

    def __init__(self) -> None:
        self._blocks: list[_Block] = []
        self._by_key: dict[tuple[int, str], _Block] = {}
        self._calls: list[_Call] = []
        self._calls_by_index: dict[int, _Call] = {}
        self._fields: dict[str, Any] = {}
        self._merged: dict[str, dict[str, Any]] = {}
        self._usage: Usage | None = None
        self._usage_mode = "delta"  # of the last chunk that carried usage
        self._last = False
        self._content_set = False  # some chunk set content (possibly to "")
        self._text_only = True  # every content so far was a string
        self._string: _Block | None = None  # the trailing block that string content extends
        self._count = 0
        # The chunks added, kept only for sums (``chunk + chunk``), which may replay
        # them (see _replay).
        self._chunks: list[AssistantMessageChunk | str] | None = None

    @property
    def chunks(self) -> int:
        """How many chunks were added."""
        return self._count

    @property
    def done(self) -> bool:
        """Whether a chunk with ``chunk_position="last"`` arrived."""
        return self._last

    def add(self, chunk: AssistantMessageChunk) -> None:
        """Merge one chunk (see the module's merge policy)."""
        if type(chunk) is not GENERATED.get("AssistantMessageChunk"):
            chunk_class = GENERATED.get("AssistantMessageChunk")
            if chunk_class is None or not isinstance(chunk, chunk_class):
                problem = Problem(
                    "", "type", f"not an AssistantMessageChunk: {type(chunk).__name__}"
                )
                raise ValidationError([problem], type_name="AssistantMessageChunk")
        self._count += 1
        kept = self._chunks
        values = chunk.__dict__
        if chunk.__pydantic_fields_set__ == _DELTA:
            content = values["content"]
            if self._fast(content):  # a text delta (tests/test_streaming_fast.py)
                if kept is not None:  # a string delta is kept as its text: see _replay
                    kept.append(content if type(content) is str else chunk)
                return
        if kept is not None:
            kept.append(chunk)
        # Only the fields the chunk sets: a text delta touches one or two.
        for name in chunk.__pydantic_fields_set__:
            kind = _KINDS.get(name)
            if kind is None:
                continue
            value = values[name]
            if kind == _CONTENT:
                self._add_content(value)
            elif kind == _FIRST:
                if value is not None and name not in self._fields:
                    self._fields[name] = value
            elif kind == _LAST:
                if value is not None:
                    self._fields[name] = value
            elif kind == _MERGE:
                if value:
                    _deep_merge(self._merged.setdefault(name, {}), value)
            elif kind == _CALLS:
                self._add_calls(value)
            elif kind == _USAGE:
                if value is not None:
                    self._usage_mode = values["usage_mode"]
                    if self._usage_mode == "cumulative" or self._usage is None:
                        self._usage = value
                    else:
                        self._usage = add_usage(self._usage, value)
            elif value == "last":  # chunk_position
                self._last = True

    def _fast(self, content: str | list[Any]) -> bool:
        """Merge the content of a chunk that sets nothing else, if it is a text delta.

        String text, or one block whose only data is appended text (what the codecs
        stream per text event), merged as :meth:`_add_content` merges it; anything
        else is left to it (False).
        """
        if type(content) is str:
            string = self._string
            if string is None or not content:
                return False
            string.grown("text", len(content))
            string.appended["text"].append(content)
            self._content_set = True
            return True
        if len(content) != 1:
            return False
        block: Any = content[0]
        values = block.__dict__
        index = values.get("index")
        if index is None or block.__pydantic_fields_set__ != _TEXT_DELTA:
            return False
        state = self._by_key.get((index, values["type"]))
        if state is None:
            return False
        parts = state.appended.get("text")
        text = values["text"]
        if (
            parts is None
            or type(text) is not str
            or state.type not in _TEXT_APPENDED
            or "type" not in state.fields
        ):
            return False
        state.grown("text", len(text))
        parts.append(text)  # (a block at this key: _text_only is False already)
        self._content_set = True
        return True

    def _add_content(self, content: str | list[Any]) -> None:
        self._content_set = True
        if isinstance(content, str):
            if content:
                if self._string is None:
                    block = _Block(GENERATED["TextBlock"](text=content), len(self._blocks))
                    self._string = block
                    self._blocks.append(block)
                else:
                    self._string.grown("text", len(content))
                    self._string.appended["text"].append(content)
            return
        self._text_only = False
        for block in content:
            index = block.index
            if index is None:
                if block.type == "text" and self._string is not None:
                    # A text block without index right after string deltas continues
                    # them (string content is shorthand for such a block).
                    self._string.add(block)
                    continue
                self._blocks.append(_Block(block, len(self._blocks)))
                self._string = None
                continue
            key = (index, block.type)
            state = self._by_key.get(key)
            if state is None:
                state = self._by_key[key] = _Block(block, len(self._blocks))
                self._blocks.append(state)
                self._string = None
            else:
                state.add(block)

    def _add_calls(self, fragments: list[ToolCallChunk]) -> None:
        for fragment in fragments:
            index = fragment.index
            call = self._calls_by_index.get(index) if index is not None else None
            if call is None:
                call = _Call(index, len(self._calls))
                self._calls.append(call)
                if index is not None:
                    self._calls_by_index[index] = call
            call.add(fragment)

    def _common(self) -> dict[str, Any]:
        data: dict[str, Any] = dict(self._fields)
        for name, value in self._merged.items():
            data[name] = _copy(value)
        if self._usage is not None:
            data["usage"] = self._usage
        return data

    def _content(self, *, keep_index: bool = False) -> str | list[Any]:
        if self._text_only:
            return "".join(self._string.appended["text"]) if self._string else ""
        return [block.build(keep_index=keep_index) for block in self._blocks]

    def to_chunk(self) -> AssistantMessageChunk:
        """Everything so far as one chunk (tool calls still as raw fragments)."""
        data = self._common()
        if self._content_set:
            data["content"] = self._content(keep_index=True)
        if self._calls:
            data["tool_call_chunks"] = [call.chunk() for call in self._calls]
        if self._usage_mode == "cumulative":
            data["usage_mode"] = "cumulative"
        if self._last:
            data["chunk_position"] = "last"
        chunk: AssistantMessageChunk = GENERATED["AssistantMessageChunk"](**data)
        return chunk

    def to_message(self) -> AssistantMessage:
        """The finished message: tool-call arguments parsed once, strictly."""
        data = self._common()
        if self._content_set:
            data["content"] = self._content()
        calls = [call.finish() for call in self._calls]
        tool_call = GENERATED["ToolCall"]
        valid = [call for call in calls if isinstance(call, tool_call)]
        invalid = [call for call in calls if not isinstance(call, tool_call)]
        if valid:
            data["tool_calls"] = valid
        if invalid:
            data["invalid_tool_calls"] = invalid
        message: AssistantMessage = GENERATED["AssistantMessage"](**data)
        return message

    @property
    def message(self) -> AssistantMessage:
        """Same as :meth:`to_message`."""
        return self.to_message()

    def partial_message(self) -> AssistantMessage:
        """A live view of the message so far, for user interfaces.

        Tool-call arguments are parsed as far as they have arrived (an unfinished
        string or number is shown as far as it goes); the parsers keep their state
        between calls, so asking after every chunk parses each piece once. Each view
        is a snapshot that later chunks leave as it is (its arguments are copied:
        time proportional to the number of keys and items, not to the characters).
        The view is built without validation: it is for display, not for sending.
        """
        data = self._common()
        data["content"] = self._content()
        data["tool_calls"] = [call.partial() for call in self._calls]
        data.setdefault("role", "assistant")
        message: AssistantMessage = GENERATED["AssistantMessage"].model_construct(**data)
        return message


def not_chunks(chunks: object, kind: str = "an iterable") -> ValidationError:
    """The error of :func:`merge_chunks` (or ``amerge_chunks``) given no iterable."""
    problem = Problem(
        "", "type", f"expected {kind} of AssistantMessageChunk, not {type(chunks).__name__}"
    )
    return ValidationError([problem], type_name="AssistantMessageChunk")


def merge_chunks(chunks: Iterable[AssistantMessageChunk]) -> AssistantMessageChunk:
    """Merge chunks into one (the n-ary form of ``+``), in linear time.

    Raises:
        ValidationError: for something that is not an iterable of chunks (``type``),
            and for a string past the string limit (``maxLength``).
    """
    if not isinstance(chunks, Iterable):
        raise not_chunks(chunks)
    accumulator = ChunkAccumulator()
    for chunk in chunks:
        accumulator.add(chunk)
    return accumulator.to_chunk()


def to_message(chunk: AssistantMessageChunk) -> AssistantMessage:
    """``chunk.to_message()``: the finished message, tool-call arguments parsed strictly."""
    accumulator = ChunkAccumulator()
    accumulator.add(chunk)
    return accumulator.to_message()


# ----------------------------------------------------------------- chunk + chunk


class _Sums:
    """The class of ``chunk + chunk`` results and the accessors of its one slot.

    Built on first use, as a subclass of the generated ``AssistantMessageChunk``
    (handed in, see the module): this module is imported before that class exists.
    """

    __slots__ = ("cls", "new", "set_sum", "sum_of")

    def __init__(self, base: Any) -> None:
        self.cls = _lazy_chunk_class(base, self)
        # A sum's one slot: ``(accumulator, chunks covered)`` until its fields are
        # built, then None. Read and written through the slot's descriptor, which is
        # several times faster than ``object.__setattr__`` on a model class; the
        # model's own slots (``__dict__``, ``__pydantic_extra__`` ...) are filled when
        # the fields are built.
        self.sum_of = self.cls.__dict__["_cs_sum"].__get__
        self.set_sum = self.cls.__dict__["_cs_sum"].__set__
        self.new = object.__new__

    def lazy(self, accumulator: ChunkAccumulator, count: int) -> Any:
        chunk = self.new(self.cls)
        self.set_sum(chunk, (accumulator, count))
        return chunk


def _lazy_chunk_class(base: Any, sums: _Sums) -> Any:
    """The class of sums over the generated chunk class ``base``."""
    triggers = frozenset(
        {
            "__dict__",
            "__pydantic_fields_set__",
            "__pydantic_extra__",
            "__pydantic_private__",
            "model_fields_set",
            *base.model_fields,
        }
    )

    class _LazyChunk(base):  # type: ignore[misc]
        """The result of ``chunk + chunk``: a chunk whose fields are built on first use.

        ``total = total + delta`` in a loop would copy the accumulated message on
        every step; instead each sum shares one accumulator and records how many
        chunks it covers. Reading any field (or dumping, comparing, printing) builds
        the fields once. A sum that is not the newest of its accumulator is rebuilt
        from the accumulator's chunks when it is read. It pickles as the plain chunk
        it stands for.
        """

        __slots__ = ("_cs_sum",)

        def __getattribute__(self, name: str) -> Any:
            if name in triggers:
                state = sums.sum_of(self)
                if state is not None:
                    _materialize(sums, self, *state)
            return object.__getattribute__(self, name)

        def __add__(self, other: object) -> Any:
            # The common case of ``total = total + chunk``, inlined: this sum is the
            # newest of its accumulator, so the chunk joins it.
            state = sums.sum_of(self)
            if state is not None and type(other) is base:
                accumulator, count = state
                if count == accumulator._count:
                    accumulator.add(other)
                    return sums.lazy(accumulator, count + 1)
            return super().__add__(other)

        def __reduce_ex__(self, protocol: Any) -> Any:
            plain = base.model_construct(_fields_set=self.__pydantic_fields_set__, **self.__dict__)
            return _unpickled, (base, plain.__getstate__())

        def __repr_name__(self) -> str:
            return "AssistantMessageChunk"

        def __eq__(self, other: object) -> bool:
            if isinstance(other, base):
                return bool(
                    self.__dict__ == other.__dict__
                    and self.__pydantic_fields_set__ == other.__pydantic_fields_set__
                )
            return NotImplemented

        __hash__ = None  # type: ignore[assignment]

    return _LazyChunk


def _unpickled(cls: Any, state: Any) -> Any:
    """A pickled sum, back as the plain chunk of class ``cls`` it stood for."""
    chunk = cls.__new__(cls)
    chunk.__setstate__(state)
    return chunk


_SUMS: _Sums | None = None


def _sums(base: Any) -> _Sums:
    global _SUMS
    if _SUMS is None:
        _SUMS = _Sums(base)
    return _SUMS


def _materialize(sums: _Sums, chunk: Any, accumulator: ChunkAccumulator, count: int) -> None:
    if count != accumulator.chunks:
        replay = ChunkAccumulator()
        _replay(replay, accumulator, count)
        accumulator = replay
    built = accumulator.to_chunk()
    sums.set_sum(chunk, None)
    object.__setattr__(chunk, "__dict__", built.__dict__)
    object.__setattr__(chunk, "__pydantic_fields_set__", built.__pydantic_fields_set__)
    object.__setattr__(chunk, "__pydantic_extra__", None)
    object.__setattr__(chunk, "__pydantic_private__", None)


def add_chunks(left: Any, right: Any) -> AssistantMessageChunk:
    """``left + right``, without copying what ``left`` already holds.

    Raises:
        ValidationError: when ``right`` is not an ``AssistantMessageChunk``.
    """
    sums = _SUMS or _sums(GENERATED["AssistantMessageChunk"])
    state = sums.sum_of(left) if type(left) is sums.cls else None
    if state is not None:
        shared, count = state
        if count == shared._count:
            shared.add(right)
            return cast("AssistantMessageChunk", sums.lazy(shared, shared._count))
    accumulator = ChunkAccumulator()
    accumulator._chunks = []
    if state is not None:
        _replay(accumulator, shared, count)
    else:
        accumulator.add(left)
    accumulator.add(right)
    return cast("AssistantMessageChunk", sums.lazy(accumulator, accumulator._count))


def _replay(into: ChunkAccumulator, accumulator: ChunkAccumulator, count: int) -> None:
    """Add the first ``count`` chunks a sums' accumulator kept to ``into``.

    A string delta (a chunk of only ``content``, a string) is kept as its text and
    comes back as the chunk it was: ``AssistantMessageChunk(content=text)``.
    """
    assert accumulator._chunks is not None
    chunk_class = GENERATED["AssistantMessageChunk"]
    for earlier in accumulator._chunks[:count]:
        into.add(chunk_class(content=earlier) if isinstance(earlier, str) else earlier)
