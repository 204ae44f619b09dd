"""Working with histories: trim, filter, merge runs, coerce, add usage, truncate.

The guarantee LangChain's versions lack: these never separate a tool result from
the assistant turn that called it. An assistant message with tool calls and the tool
messages answering them form one unit that is kept or dropped whole, so a trimmed
history never starts with an orphan tool result and never ends with a call whose
result was cut off. Everything is linear in the history, each message counted once.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Literal, cast

from chatschema_models.content import TextBlock
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
)
from chatschema_models.usage import Usage

from chatschema._coerce import (
    _ROLE_ALIASES,
    MessageLike,
    _is_langchain_message,
    _role,
    coerce_messages,
)
from chatschema._usage import add_usage as _add_usage
from chatschema._wire import MessageBase, UsageBase
from chatschema.errors import OptionError, option_type_error, wrong_type
from chatschema.tokens import _approximate_message_tokens

__all__ = [
    "add_usage",
    "coerce_messages",
    "filter_messages",
    "merge_message_runs",
    "trim_messages",
    "truncate_text",
    "truncate_tool_output",
]

TokenCounter = Callable[[list[Message]], int] | Callable[[Message], int]
RoleSpec = str | type | Sequence[str | type]


# ---------------------------------------------------------------------------- units


def _is_integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _strings(name: str, value: Sequence[str] | None) -> Sequence[str] | None:
    """A list-of-strings option as given; an error for anything else."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(
        isinstance(item, str) for item in value
    ):
        raise option_type_error(name, value, "a list of strings")
    return value


def add_usage(left: Usage, right: Usage) -> Usage:
    """The sum of two usages; details are added key by key (absent counts as 0).

    Raises:
        ValidationError: for a value that is not a :class:`Usage`.
    """
    for side, value in (("left", left), ("right", right)):
        if not isinstance(value, UsageBase):
            raise wrong_type(value, f"a Usage ({side})", type_name="Usage")
    return _add_usage(left, right)


def _units(messages: Sequence[Message]) -> list[tuple[int, int]]:
    """Split a history into units ``[start, end)``: a message, or a tool-call turn.

    A tool-call turn is an assistant message with tool calls and the tool messages
    right after it that answer those calls.
    """
    units: list[tuple[int, int]] = []
    index, count = 0, len(messages)
    while index < count:
        message = messages[index]
        end = index + 1
        if isinstance(message, AssistantMessage) and message.tool_calls:
            ids = {call.id for call in message.tool_calls}
            while end < count:
                following = messages[end]
                if not (isinstance(following, ToolMessage) and following.tool_call_id in ids):
                    break
                end += 1
        units.append((index, end))
        index = end
    return units


def _matcher(spec: RoleSpec | None) -> Callable[[Message], bool] | None:
    """A test of a message's role for ``include_types`` / ``exclude_types``.

    Roles by name (with the aliases of :func:`coerce_messages`), chatschema message
    classes, or LangChain message classes (``HumanMessage`` is the user role ...).

    Raises:
        OptionError: for a class that is no message class, which would match nothing.
    """
    if spec is None:
        return None
    if isinstance(spec, (str, type)):
        items: list[Any] = [spec]
    elif isinstance(spec, (list, tuple, set, frozenset)):
        items = list(spec)
    else:
        raise option_type_error("message types", spec, "a role, a message class or a list of them")
    roles = {_role(item) for item in items if isinstance(item, str)}
    classes: list[type] = []
    for item in items:
        if isinstance(item, str):
            continue
        if isinstance(item, type) and issubclass(item, MessageBase):
            classes.append(item)
        elif isinstance(item, type) and _is_langchain_message(item):
            roles.add(_langchain_role(item))
        else:
            raise OptionError(f"message types must be roles or message classes, not {item!r}")
    kinds = tuple(classes)
    return lambda message: message.role in roles or isinstance(message, kinds)


def _langchain_role(cls: type) -> str:
    """The role of a LangChain message class, from its ``type`` tag."""
    field = getattr(cls, "model_fields", {}).get("type")
    tag = getattr(field, "default", None)
    if isinstance(tag, str):
        tag = tag.removesuffix("Chunk").lower().replace("aimessage", "ai")
        if tag in ("human", "ai", "system", "tool"):
            return _ROLE_ALIASES[tag]
    raise OptionError(f"{cls.__name__} has no chatschema role (human, ai, system or tool)")


def _per_message_counter(counter: Any) -> Callable[[Message], int]:
    """Count one message with any supported counter (list or message counters)."""
    if counter == "approximate":
        return _approximate_message_tokens
    if isinstance(counter, str):
        raise OptionError(f"unknown token_counter {counter!r}; the only shortcut is 'approximate'")
    if not callable(counter):
        raise OptionError("token_counter must be a callable or 'approximate'")
    if counter is len:
        return lambda message: 1
    if _takes_a_message(counter):
        return cast(Callable[[Message], int], counter)
    return lambda message: int(counter([message]))


def _takes_a_message(counter: Callable[..., Any]) -> bool:
    try:
        parameters = list(inspect.signature(counter).parameters.values())
    except (TypeError, ValueError):
        return False
    if not parameters:
        return False
    annotation = parameters[0].annotation
    if isinstance(annotation, str):  # postponed evaluation: read the name
        head = annotation.split("[", 1)[0].split(".")[-1].strip()
        return head in _MESSAGE_NAMES or (head.endswith("Message") and head != "list")
    if annotation is Message:
        return True
    return isinstance(annotation, type) and issubclass(annotation, MessageBase)


_MESSAGE_NAMES = frozenset(
    {"Message", "SystemMessage", "UserMessage", "AssistantMessage", "ToolMessage", "MessageBase"}
)


def _split_lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _partial(
    message: Message,
    budget: int,
    count: Callable[[Message], int],
    from_end: bool,
    splitter: Callable[[str], list[str]],
) -> Message | None:
    """The largest part of ``message`` that fits ``budget``, or None."""
    if isinstance(message, (ToolMessage,)) or (
        isinstance(message, AssistantMessage) and message.tool_calls
    ):
        return None  # tool turns are kept or dropped whole
    content = message.content
    if isinstance(content, list) and len(content) > 1:
        # Keep whole blocks: the most that fit, from the start (or the end).
        low, high, best = 1, len(content) - 1, None
        while low <= high:
            middle = (low + high) // 2
            kept = content[-middle:] if from_end else content[:middle]
            candidate = message.model_copy(update={"content": kept})
            if count(candidate) <= budget:
                best, low = candidate, middle + 1
            else:
                high = middle - 1
        if best is not None:
            return best
    # Split the text of a string content (or of the first text block) and keep the
    # most pieces that fit.
    block: Any = None
    if isinstance(content, str):
        text = content
    else:
        block = next((b for b in content if b.type == "text"), None)
        if block is None:
            return None
        text = block.text

    def rebuild(new: str) -> Any:
        return new if block is None else [block.model_copy(update={"text": new})]

    pieces = splitter(text)
    low, high, best = 1, len(pieces), None
    while low <= high:
        middle = (low + high) // 2
        shown = "".join(pieces[-middle:] if from_end else pieces[:middle])
        candidate = message.model_copy(update={"content": rebuild(shown)})
        if count(candidate) <= budget:
            best, low = candidate, middle + 1
        else:
            high = middle - 1
    return best


def trim_messages(
    messages: Iterable[MessageLike],
    *,
    max_tokens: int,
    token_counter: TokenCounter | Literal["approximate"] = "approximate",
    strategy: Literal["first", "last"] = "last",
    allow_partial: bool = False,
    end_on: RoleSpec | None = None,
    start_on: RoleSpec | None = None,
    include_system: bool = False,
    text_splitter: Callable[[str], list[str]] | None = None,
) -> list[Message]:
    """Trim a history to at most ``max_tokens``, keeping tool turns whole.

    The parameters are LangChain's. Differences, all deliberate: a tool-call turn
    (assistant message with tool calls + the results answering them) is kept or
    dropped whole, so no orphan tool result starts the result and no unanswered call
    ends it; each message is counted once (linear time; a counter over a list is
    called with one message at a time and summed, so it must be additive, as
    ``len`` and :func:`count_tokens_approximately` are); partial messages keep their
    list form and other blocks.

    Args:
        messages: the history (anything :func:`coerce_messages` reads).
        max_tokens: the budget.
        token_counter: ``"approximate"`` (:func:`count_tokens_approximately`), ``len``
            (count messages), a function of a list of messages, or a function of one
            message (its first parameter annotated as a message type).
        strategy: keep the ``"last"`` (default) or the ``"first"`` messages.
        allow_partial: keep part of the message at the boundary (whole blocks first,
            else pieces of its text from ``text_splitter``).
        end_on: roles (``"user"``/``"human"``, ``"assistant"``/``"ai"``, ``"system"``,
            ``"tool"``) or message classes the result must end with.
        start_on: the same, for the first message kept (``strategy="last"`` only;
            the kept system message does not count).
        include_system: keep a system message at index 0 (``strategy="last"`` only).
        text_splitter: splits text for partial messages (default: lines, keeping
            the newlines).

    Raises:
        OptionError: for incompatible or unknown arguments.
    """
    if not _is_integer(max_tokens):
        raise option_type_error("max_tokens", max_tokens, "an integer")
    if text_splitter is not None and not callable(text_splitter):
        raise option_type_error("text_splitter", text_splitter, "a function of a string")
    if strategy not in ("first", "last"):
        raise OptionError(f"unknown strategy {strategy!r}; expected 'first' or 'last'")
    if strategy == "first" and (start_on is not None or include_system):
        raise OptionError("start_on and include_system only apply to strategy='last'")
    history = coerce_messages(messages)
    count = _per_message_counter(token_counter)
    splitter = text_splitter or _split_lines
    ends, starts = _matcher(end_on), _matcher(start_on)
    if max_tokens <= 0 or not history:
        return []
    if strategy == "first":
        return _trim_first(history, max_tokens, count, allow_partial, ends, splitter)
    return _trim_last(
        history, max_tokens, count, allow_partial, ends, starts, include_system, splitter
    )


def _fill(
    history: list[Message],
    units: Iterable[tuple[int, int]],
    budget: int,
    count: Callable[[Message], int],
    allow_partial: bool,
    from_end: bool,
    splitter: Callable[[str], list[str]],
) -> list[list[Message]]:
    """The units that fit ``budget``, taken in the order given until one does not.

    With ``allow_partial``, the part of a single message at the boundary that fits
    (:func:`_partial`, from its end when ``from_end``) is taken as a last unit.
    """
    taken: list[list[Message]] = []
    used = 0
    for start, end in units:
        cost = sum(map(count, history[start:end]))
        if used + cost <= budget:
            taken.append(history[start:end])
            used += cost
            continue
        if allow_partial and end - start == 1:
            part = _partial(history[start], budget - used, count, from_end, splitter)
            if part is not None:
                taken.append([part])
        break
    return taken


def _trim_first(
    history: list[Message],
    budget: int,
    count: Callable[[Message], int],
    allow_partial: bool,
    ends: Callable[[Message], bool] | None,
    splitter: Callable[[str], list[str]],
) -> list[Message]:
    taken = _fill(history, _units(history), budget, count, allow_partial, False, splitter)
    kept = [message for unit in taken for message in unit]
    if ends is not None:
        while kept and not ends(kept[-1]):
            _drop_last_unit(kept)
    return kept


def _drop_last_unit(kept: list[Message]) -> None:
    while kept and isinstance(kept[-1], ToolMessage):
        kept.pop()
    if kept:
        kept.pop()


def _units_from_end(messages: Sequence[Message], first: int) -> Iterator[tuple[int, int]]:
    """The units of :func:`_units` over ``messages[first:]``, last one first.

    Computed only as far as the caller reads, so trimming a long history to its
    last few messages looks at those messages only.
    """
    end = len(messages)
    while end > first:
        if not isinstance(messages[end - 1], ToolMessage):
            yield end - 1, end
            end -= 1
            continue
        start = end - 1  # the run of tool messages that ends here
        while start > first and isinstance(messages[start - 1], ToolMessage):
            start -= 1
        owner = messages[start - 1] if start > first else None
        if isinstance(owner, AssistantMessage) and owner.tool_calls:
            ids = {call.id for call in owner.tool_calls}
            answered = start
            while answered < end and cast(ToolMessage, messages[answered]).tool_call_id in ids:
                answered += 1
            for single in range(end - 1, answered - 1, -1):  # results of no call here
                yield single, single + 1
            yield start - 1, answered
            end = start - 1
        else:
            for single in range(end - 1, start - 1, -1):
                yield single, single + 1
            end = start


def _trim_last(
    history: list[Message],
    budget: int,
    count: Callable[[Message], int],
    allow_partial: bool,
    ends: Callable[[Message], bool] | None,
    starts: Callable[[Message], bool] | None,
    include_system: bool,
    splitter: Callable[[str], list[str]],
) -> list[Message]:
    system: Message | None = None
    first = 0
    if include_system and isinstance(history[0], SystemMessage):
        system = history[0]
        first = 1
        budget = max(0, budget - count(system))
    units = _units_from_end(history, first)
    if ends is not None:
        units = itertools.dropwhile(lambda unit: not ends(history[unit[1] - 1]), units)
    picked = _fill(history, units, budget, count, allow_partial, True, splitter)
    # `picked` runs from the last unit back. Never start with an orphan tool result;
    # then honour start_on, unit by unit.
    while picked and isinstance(picked[-1][0], ToolMessage):
        picked.pop()
    if starts is not None:
        while picked and not starts(picked[-1][0]):
            picked.pop()
    kept = [message for unit in reversed(picked) for message in unit]
    return [system, *kept] if system is not None else kept


# ----------------------------------------------------------------- filter and merge


def filter_messages(
    messages: Iterable[MessageLike],
    *,
    include_names: Sequence[str] | None = None,
    exclude_names: Sequence[str] | None = None,
    include_types: RoleSpec | None = None,
    exclude_types: RoleSpec | None = None,
    include_ids: Sequence[str] | None = None,
    exclude_ids: Sequence[str] | None = None,
    exclude_tool_calls: bool | Sequence[str] | None = None,
) -> list[Message]:
    """Keep the messages that match, LangChain's way, without breaking tool turns.

    A message is kept when it matches any ``include_*`` criterion (or none is
    given) and no ``exclude_*`` criterion. Types are roles (``"human"``, ``"ai"``
    ...), chatschema message classes or LangChain message classes.
    ``exclude_tool_calls=True`` removes every tool call and tool result (an
    assistant message left with no content goes too); a list of call ids removes
    just those calls and their results.
    """
    include_names = _strings("include_names", include_names)
    exclude_names = _strings("exclude_names", exclude_names)
    include_ids = _strings("include_ids", include_ids)
    exclude_ids = _strings("exclude_ids", exclude_ids)
    if not isinstance(exclude_tool_calls, bool) and exclude_tool_calls is not None:
        _strings("exclude_tool_calls", exclude_tool_calls)
    includes = _matcher(include_types)
    excludes = _matcher(exclude_types)
    any_include = any(x is not None for x in (include_names, include_types, include_ids))
    removed_calls: set[str] | None = None
    if exclude_tool_calls is True:
        removed_calls = None
    elif exclude_tool_calls:
        removed_calls = set(exclude_tool_calls)
    out: list[Message] = []
    for message in coerce_messages(messages):
        if any_include and not (
            (include_names is not None and message.name in include_names)
            or (includes is not None and includes(message))
            or (include_ids is not None and message.id in include_ids)
        ):
            continue
        if (
            (exclude_names is not None and message.name in exclude_names)
            or (excludes is not None and excludes(message))
            or (exclude_ids is not None and message.id in exclude_ids)
        ):
            continue
        if exclude_tool_calls:
            if isinstance(message, ToolMessage) and (
                removed_calls is None or message.tool_call_id in removed_calls
            ):
                continue
            if isinstance(message, AssistantMessage) and message.tool_calls:
                calls = (
                    []
                    if removed_calls is None
                    else [call for call in message.tool_calls if call.id not in removed_calls]
                )
                if len(calls) != len(message.tool_calls):
                    if not calls and not message.content:
                        continue
                    message = message.model_copy(update={"tool_calls": calls})
        out.append(message)
    return out


def _join(left: Any, right: Any, separator: str) -> Any:
    if isinstance(left, str) and isinstance(right, str):
        if left and right:
            return left + separator + right
        return left or right
    blocks = []
    for content in (left, right):
        if isinstance(content, str):
            if content:
                blocks.append(TextBlock(text=content))
        else:
            blocks.extend(content)
    return blocks


def merge_message_runs(
    messages: Iterable[MessageLike], *, chunk_separator: str = "\n"
) -> list[Message]:
    """Merge consecutive messages of the same role and name into one.

    String contents are joined with ``chunk_separator``; lists are concatenated (a
    string becomes a text block). Assistant messages also concatenate their tool
    calls and add up their usage; ids, names and other fields keep the first value,
    metadata dictionaries are merged. Tool messages are never merged (each answers
    its own call). Unlike LangChain, messages with different names (different
    participants) are not merged, and the later messages' data is kept.
    """
    if not isinstance(chunk_separator, str):
        raise option_type_error("chunk_separator", chunk_separator, "a string")
    out: list[Message] = []
    for message in coerce_messages(messages):
        previous = out[-1] if out else None
        if (
            previous is None
            or isinstance(message, ToolMessage)
            or previous.role != message.role
            or previous.name != message.name
        ):
            out.append(message)
            continue
        update: dict[str, Any] = {
            "content": _join(previous.content, message.content, chunk_separator)
        }
        for name in ("metadata", "extras", "response_metadata"):
            left, right = getattr(previous, name, None), getattr(message, name, None)
            if right:
                update[name] = {**(left or {}), **right}
        if isinstance(previous, AssistantMessage) and isinstance(message, AssistantMessage):
            if message.tool_calls:
                update["tool_calls"] = [*previous.tool_calls, *message.tool_calls]
            if message.invalid_tool_calls:
                update["invalid_tool_calls"] = [
                    *previous.invalid_tool_calls,
                    *message.invalid_tool_calls,
                ]
            if message.usage is not None:
                update["usage"] = (
                    message.usage if previous.usage is None else previous.usage + message.usage
                )
            for name in ("finish_reason", "raw_finish_reason"):
                if getattr(message, name) is not None:
                    update[name] = getattr(message, name)
        out[-1] = previous.model_copy(update=update)
    return out


# ----------------------------------------------------------------------- truncation


def _check_truncation(max_chars: object, head: object) -> None:
    if not _is_integer(max_chars):
        raise option_type_error("max_chars", max_chars, "an integer")
    if not _is_number(head) or not 0 <= cast(float, head) <= 1:
        raise option_type_error("head", head, "a number from 0 to 1")


def truncate_text(text: str, max_chars: int, *, head: float = 0.5) -> str:
    """Keep the head and the tail of ``text`` within ``max_chars``, with a notice.

    Args:
        text: the text.
        max_chars: the most characters to keep (the notice included).
        head: the share of the kept characters taken from the start.

    Raises:
        ValidationError: for a ``text`` that is not a string.
        OptionError: for a ``max_chars`` or ``head`` of the wrong type.
    """
    if not isinstance(text, str):
        raise wrong_type(text, "a string", type_name="text")
    _check_truncation(max_chars, head)
    if len(text) <= max_chars:
        return text
    removed = len(text) - max_chars
    notice = f"\n[... {removed} characters truncated ...]\n"
    room = max(0, max_chars - len(notice))
    first = int(room * head)
    last = room - first
    return text[:first] + notice + (text[-last:] if last else "")


def _read_text(block: Any) -> str | None:
    """The text a model reads in a tool result's block (text, a text resource), else None."""
    kind = block.type
    return block.text if kind == "text" or kind == "resource" else None


def truncate_tool_output(
    message: ToolMessage, *, max_chars: int = 20_000, head: float = 0.5
) -> ToolMessage:
    """Shorten a tool result's text for the model; keep the full output in ``artifact``.

    Text (a string content, text blocks and embedded text resources) longer than
    ``max_chars`` in all is cut to its head and tail with a notice of how much was
    removed. When the message has no ``artifact``, the original content goes there,
    so nothing is lost (the artifact is never sent to a model).

    Raises:
        ValidationError: for a ``message`` that is not a :class:`ToolMessage`.
        OptionError: for a ``max_chars`` or ``head`` of the wrong type.
    """
    if not isinstance(message, ToolMessage):
        raise wrong_type(message, "a ToolMessage", type_name="ToolMessage")
    _check_truncation(max_chars, head)
    content = message.content
    if isinstance(content, str):
        if len(content) <= max_chars:
            return message
        new_content: Any = truncate_text(content, max_chars, head=head)
    else:
        texts = [_read_text(block) for block in content]
        total = sum(len(text) for text in texts if text is not None)
        if total <= max_chars:
            return message
        new_content = [
            block
            if text is None
            else block.model_copy(
                update={
                    "text": truncate_text(text, max(1, max_chars * len(text) // total), head=head)
                }
            )
            for block, text in zip(content, texts, strict=True)
        ]
    update: dict[str, Any] = {"content": new_content}
    if message.artifact is None and "artifact" not in message.__pydantic_fields_set__:
        update["artifact"] = {
            "content": content
            if isinstance(content, str)
            else [block.model_dump(mode="json", exclude_unset=True) for block in content]
        }
    return message.model_copy(update=update)
