"""Structural checks: pointers, tool pairing, the encode pass and its error.

``check`` is the encoder in collect mode: a codec's ``_Encoder`` derives from
:class:`EncodePass`, and where a rule refuses something it calls
:meth:`EncodePass.unsupported` or :meth:`EncodePass.problem`; ``check`` keeps
every problem, ``encode`` raises with all of them (:func:`raise_problems`). A rule
is written once.
"""

from __future__ import annotations

from collections.abc import Sequence

from chatschema_models.content import NonStandardBlock
from chatschema_models.conversation import Conversation
from chatschema_models.message import AssistantMessage, Message, ToolMessage
from chatschema_models.tool import InvalidToolCall

from chatschema.errors import ConversionError, Problem, UnsupportedContentError
from chatschema.providers._common.extras import HISTORY_KEYS, KEYWORD, NOTES, foreign_extras
from chatschema.providers._common.options import Options

__all__ = [
    "EncodePass",
    "ToolPairing",
    "invalid_call_what",
    "non_standard_what",
    "conversed",
    "message_index",
    "no_messages",
    "pointer",
    "raise_problems",
    "structural_error",
    "tool_pairing_problems",
]


def pointer(message_index: int, *rest: str | int) -> str:
    """JSON pointer into a conversation: ``/messages/3/content/1``."""
    return "/messages/" + "/".join(str(part) for part in (message_index, *rest))


def message_index(problem: Problem) -> int | None:
    """The message a problem points into (``/messages/<i>/...``), else None."""
    parts = problem.pointer.split("/", 3)
    if len(parts) > 2 and parts[1] == "messages" and parts[2].isdigit():
        return int(parts[2])
    return None


class EncodePass:
    """One walk of ``encode`` or ``check`` over a conversation.

    With ``collect`` (``check``, and ``encode`` with ``check=True``), content the
    unsupported policy would refuse and every rule broken are listed in
    :attr:`problems`; without it, the policy applies at once (the first refused
    block raises).
    """

    def __init__(self, options: Options, *, collect: bool) -> None:
        self.options = options
        self.collect = collect
        self.problems: list[Problem] = []
        self.dropped = 0  # content left out by unsupported="drop" so far
        self.dropped_settings: list[Problem] = []  # settings left out (unsupported_settings)
        self.skipped: list[Problem] = []  # opaque values kept back (replay policy)
        # set by a fast walk: the messages it left to the general path (the others had
        # no extras on the message, its blocks or calls); the foreign-extras check then
        # looks at these messages only, beside the conversation and its tools
        self.general: list[int] | None = None

    def problem(self, where: str, keyword: str, message: str) -> None:
        """Note a broken rule at a pointer (kept in collect mode only)."""
        if self.collect:
            self.problems.append(Problem(where, keyword, message))

    def unsupported(
        self, what: str, message: int, block: int | None = None, *, where: str | None = None
    ) -> str | None:
        """Apply the unsupported-content policy to ``what`` at a message and block.

        Returns:
            The placeholder text, or None when the content is left out (``"drop"``,
            or a problem noted in collect mode). ``where`` overrides the pointer
            (``/messages/<message>/content/<block>``, or the message's).

        Raises:
            UnsupportedContentError: under ``"error"`` outside collect mode.
        """
        options = self.options
        if self.collect and options.unsupported == "error":
            if where is None:
                where = pointer(message) if block is None else pointer(message, "content", block)
            reason = f"{what} cannot be sent to {options.provider}"
            self.problems.append(Problem(where, "unsupported_content", reason))
            return None
        text = options.unsupported_content(what, message_index=message, block_index=block)
        if text is None:
            self.dropped += 1
        return text

    def last_checks(self, conversation: Conversation) -> None:
        """The problems only the whole conversation shows, after the walk.

        Keys of other formats' extras (:meth:`foreign_extras`), and tool results
        reported as orphans whose call is an invalid tool call: said for what they are
        (:meth:`explain_orphans`).
        """
        if self.problems:
            self.explain_orphans(conversation)
        self.foreign_extras(conversation)

    def explain_orphans(self, conversation: Conversation) -> None:
        """Say why a result answers no call when its call is an invalid tool call.

        Refused under ``"error"`` (a problem at the call, naming why it is invalid), the
        result is no second problem; left out (``"drop"``), the result is an orphan on
        the wire, and the problem names the call left out and why.
        """
        orphans = [p for p in self.problems if p.keyword == "orphan_tool_result"]
        if not orphans:
            return
        invalid: dict[str, tuple[str, InvalidToolCall]] = {}
        for index, message in enumerate(conversation.messages):
            if isinstance(message, AssistantMessage):
                for position, call in enumerate(message.invalid_tool_calls):
                    if call.id is not None:
                        invalid.setdefault(
                            call.id, (pointer(index, "invalid_tool_calls", position), call)
                        )
        if not invalid:
            return
        refused = {p.pointer for p in self.problems if p.keyword == "unsupported_content"}
        kept: list[Problem] = []
        for problem in self.problems:
            found = None
            if problem.keyword == "orphan_tool_result":
                at = message_index(problem)
                result = conversation.messages[at] if at is not None else None
                if isinstance(result, ToolMessage):
                    found = invalid.get(result.tool_call_id)
            if found is None:
                kept.append(problem)
            elif found[0] not in refused:
                what = invalid_call_what(found[1])
                text = f"tool result for {found[1].id!r} answers the {what} at {found[0]}, not sent"
                kept.append(Problem(problem.pointer, problem.keyword, text))
        self.problems[:] = kept

    def foreign_extras(self, conversation: Conversation) -> None:
        """Apply the unsupported policy to every key of another format's extras.

        Such a key (:func:`~.extras.foreign_extras`) has no place in this format:
        ``"error"`` notes a ``foreign_extras`` problem (collect mode) or raises;
        ``"drop"`` and ``"placeholder"`` leave it out (a key has no text form).

        Raises:
            UnsupportedContentError: under ``"error"`` outside collect mode.
        """
        if self.options.unsupported != "error":
            return
        target = self.options.provider
        for where, source, key in foreign_extras(conversation, target, self.general):
            problem = Problem(where, KEYWORD, foreign_key_message(where, source, key, target))
            if not self.collect:
                raise UnsupportedContentError(
                    f"{problem.message} (options: unsupported='drop')",
                    provider=target,
                    message_index=message_index(problem),
                    problems=[problem],
                )
            self.problems.append(problem)

    def unsupported_setting(self, where: str, reason: str) -> None:
        """Apply ``unsupported_settings`` to a setting the format cannot say, at ``where``.

        ``"drop"`` leaves it out and keeps it in :attr:`dropped_settings` (``encode``
        reports them); ``"error"`` notes a problem in collect mode, else raises.

        Raises:
            UnsupportedContentError: under ``"error"`` outside collect mode.
        """
        options = self.options
        if options.settings_policy == "drop":
            self.dropped_settings.append(Problem(where, "unsupported_content", reason))
            return
        problem = Problem(
            where, "unsupported_content", f"{reason} (unsupported_settings='drop' leaves it out)"
        )
        if self.collect:
            self.problems.append(problem)
            return
        raise structural_error([problem], options.provider)  # as with check on


def conversed(conversation: Conversation) -> bool:
    """Whether a conversation has a message other than system messages."""
    return any(message.role != "system" for message in conversation.messages)


def no_messages(encoder: EncodePass, given: object, what: str) -> None:
    """Note a conversation without the messages a request needs (collect mode only).

    ``given``: the messages (or whether there are any) the format counts. Messages
    the unsupported policy drops are not looked at: what they leave is the format's
    rule for empty messages.
    """
    if not given:
        encoder.problem(
            "/messages",
            "no_messages",
            f"{encoder.options.provider} needs at least one {what}; the conversation has none",
        )


def non_standard_what(block: NonStandardBlock) -> str:
    """A non-standard block in words: its original type when it has one, and its format."""
    value = block.value
    kind = value.get("type")
    if not isinstance(kind, str) and len(value) == 1:
        kind = next(iter(value))  # a union member's key (Gemini, Converse)
    text = (
        f"non-standard block of type {kind!r}" if isinstance(kind, str) else "a non-standard block"
    )
    return text if block.provider is None else f"{text} from {block.provider}"


def invalid_call_what(invalid: InvalidToolCall) -> str:
    """An invalid tool call in words, with why it is invalid (its arguments not JSON ...)."""
    named = [f"{invalid.name!r}"] if invalid.name else []
    said = [f"id {invalid.id!r}"] if invalid.id else []
    if invalid.error:
        said.append(invalid.error)
    elif invalid.name and invalid.id:
        said.append("its arguments are not a JSON object")
    else:
        said.append(
            "it has no "
            + " and no ".join(
                field for field, value in (("id", invalid.id), ("name", invalid.name)) if not value
            )
        )
    return " ".join(["invalid tool call", *named, f"({'; '.join(said)})"])


def foreign_key_message(where: str, source: str, key: str, target: str) -> str:
    """The sentence of a ``foreign_extras`` problem (``where``: its pointer)."""
    text = (
        f"key {key!r} from the {source} input (kept in extras[{source!r}]) "
        f"cannot be sent to {target}"
    )
    note = NOTES.get((source, key))
    if note is not None:
        text += f" ({note})"
    owner = HISTORY_KEYS.get(key) if where.startswith("/extras/") else None
    if owner is not None and source not in owner:  # another format's history: a wrong guess
        text += f"; the input looks like {owner}, not {source}"
    return text


UNSUPPORTED_KEYWORDS = frozenset({"unsupported_content", KEYWORD})
"""Keywords of what the format cannot carry (the policy's business, not a broken rule)."""


def raise_problems(problems: Sequence[Problem], provider: str) -> None:
    """Raise :func:`structural_error` when there are problems."""
    if problems:
        raise structural_error(problems, provider)


def structural_error(problems: Sequence[Problem], provider: str) -> ConversionError:
    """The exception ``encode`` raises for what ``check`` found.

    :class:`UnsupportedContentError` when every problem is content the format cannot
    carry (keyword ``unsupported_content`` or ``foreign_extras``), else
    :class:`ConversionError`; either way it lists every problem and names the
    message (and block) of the first.
    """
    message_index = block_index = None
    for problem in problems:
        parts = problem.pointer.split("/")
        if len(parts) > 2 and parts[1] == "messages" and parts[2].isdigit():
            message_index = int(parts[2])
            if len(parts) > 4 and parts[3] == "content" and parts[4].isdigit():
                block_index = int(parts[4])
            break
    unsupported = all(problem.keyword in UNSUPPORTED_KEYWORDS for problem in problems)
    count = len(problems)
    if unsupported:
        kind: type[ConversionError] = UnsupportedContentError
        things = {problem.pointer.split("/", 2)[1] for problem in problems}
        noun = "part" if things == {"messages"} else "value"  # settings, extras, tools ...
        reason = f"{count} {noun}{'s' * (count != 1)} {provider} cannot carry"
    else:
        kind = ConversionError
        reason = f"{count} structural problem{'s' * (count != 1)}"
    return kind(
        reason,
        provider=provider,
        message_index=message_index,
        block_index=block_index,
        problems=problems,
    )


class ToolPairing:
    """Tool calls and their results, paired while the messages go by.

    The one statement of the pairing rules: every tool result must answer a call of
    an earlier assistant message that no result has answered yet; every call must
    be answered, and call ids must be unique. With ``adjacent``, the results must
    come right after the assistant message, before any other message (OpenAI Chat
    Completions). With ``include_invalid``, invalid tool calls that have an id
    count as calls (formats that send them back, and so need their results).

    An encoder feeds it in its own walk (so that check costs no second walk over
    the messages): :meth:`result` for a tool message, :meth:`message` for any
    other; :meth:`finish` gives the problems, in the order
    :func:`tool_pairing_problems` lists them. Where speed matters a walk does the
    common case itself on :attr:`pending` and :attr:`answered` and calls
    :meth:`orphan`, :meth:`duplicate` and :meth:`unanswered` for the problems, as
    :func:`tool_pairing_problems` does.
    """

    __slots__ = (
        "adjacent",
        "answered",
        "include_invalid",
        "pending",
        "problems",
        "provider",
        "requirement",
        "trailing",
    )

    def __init__(
        self,
        *,
        adjacent: bool,
        provider: str,
        include_invalid: bool = False,
        requirement: str = "requires one",
        trailing: bool = True,
    ) -> None:
        self.adjacent = adjacent
        self.provider = provider
        self.include_invalid = include_invalid
        self.requirement = requirement
        self.trailing = trailing  # calls still waiting at the end are problems
        self.problems: list[Problem] = []
        # call id -> where it is (message, list, position): pointers are built for problems only
        self.pending: dict[str, tuple[int, str, int]] = {}
        self.answered: set[str] = set()

    def result(self, index: int, call_id: str) -> None:
        """A tool message (at ``index``) answering ``call_id``."""
        pending = self.pending
        if call_id in pending:
            del pending[call_id]
            self.answered.add(call_id)
        else:
            self.orphan(index, call_id)

    def message(self, index: int, message: Message) -> None:
        """Any message but a tool result: the calls left unanswered before it, its calls."""
        is_assistant = isinstance(message, AssistantMessage)
        if self.pending and (self.adjacent or is_assistant):
            self.unanswered(index)
        if is_assistant:
            assert isinstance(message, AssistantMessage)
            for position, call in enumerate(message.tool_calls):
                self.call(call.id, index, "tool_calls", position)
            if self.include_invalid:
                for position, invalid in enumerate(message.invalid_tool_calls):
                    if invalid.id is not None:
                        self.call(invalid.id, index, "invalid_tool_calls", position)

    def call(self, call_id: str, index: int, field: str, position: int) -> None:
        """A call (``field`` is ``tool_calls`` or ``invalid_tool_calls``) that now waits."""
        pending = self.pending
        if call_id in pending or call_id in self.answered:
            self.duplicate(call_id, index, field, position)
        pending[call_id] = (index, field, position)

    def orphan(self, index: int, call_id: str) -> None:
        """Note a tool result at ``index`` that answers no waiting call."""
        reason = (
            "answers a call that was already answered"
            if call_id in self.answered
            else "answers no earlier tool call"
        )
        self.problems.append(
            Problem(
                pointer(index, "tool_call_id"),
                "orphan_tool_result",
                f"tool result for {call_id!r} {reason}",
            )
        )

    def duplicate(self, call_id: str, index: int, field: str, position: int) -> None:
        """Note a call whose id is already waiting or answered."""
        self.problems.append(
            Problem(
                pointer(index, field, position, "id"),
                "duplicate_tool_call_id",
                f"tool call id {call_id!r} is used twice",
            )
        )

    def unanswered(self, before: int) -> None:
        """Note every waiting call as unanswered before message ``before`` (-1: the end)."""
        pending = self.pending
        for call_id, (index, field, position) in pending.items():
            self.problems.append(
                Problem(
                    pointer(index, field, position, "id"),
                    "unanswered_tool_call",
                    f"tool call {call_id!r} has no tool result"
                    + (f" before message {before}" if before >= 0 else "")
                    + f" ({self.provider} {self.requirement})",
                )
            )
        pending.clear()

    def finish(self) -> list[Problem]:
        """The problems, once every message went by.

        Calls still waiting at the end are problems unless ``trailing`` is off (the
        ``request=False`` option: a history, not a request).
        """
        if self.pending and self.trailing:
            self.unanswered(-1)
        return self.problems


def tool_pairing_problems(
    messages: Sequence[Message],
    *,
    adjacent: bool,
    provider: str,
    include_invalid: bool = False,
    requirement: str = "requires one",
    trailing: bool = True,
) -> list[Problem]:
    """Tool calls and results that do not pair up (the rules: :class:`ToolPairing`)."""
    pairing = ToolPairing(
        adjacent=adjacent,
        provider=provider,
        include_invalid=include_invalid,
        requirement=requirement,
        trailing=trailing,
    )
    pending, answered = pairing.pending, pairing.answered
    for index, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            call_id = message.tool_call_id
            if call_id in pending:
                del pending[call_id]
                answered.add(call_id)
            else:
                pairing.orphan(index, call_id)
            continue
        is_assistant = isinstance(message, AssistantMessage)
        if pending and (adjacent or is_assistant):
            pairing.unanswered(index)
        if is_assistant:
            assert isinstance(message, AssistantMessage)
            for position, call in enumerate(message.tool_calls):
                call_id = call.id
                if call_id in pending or call_id in answered:
                    pairing.duplicate(call_id, index, "tool_calls", position)
                pending[call_id] = (index, "tool_calls", position)
            if include_invalid:
                for position, invalid in enumerate(message.invalid_tool_calls):
                    if invalid.id is not None:
                        pairing.call(invalid.id, index, "invalid_tool_calls", position)
    return pairing.finish()
