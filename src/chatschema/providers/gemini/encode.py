"""Neutral conversations as Gemini requests: ``encode``, and ``check``.

``check`` is the encoder in collect mode (:class:`~chatschema.providers._common.EncodePass`):
one walk writes the request and notes every rule broken on the way; the rules that
only check (tool pairing, turn order, function names) come after the tools writers.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import Any, Final

from chatschema_models.content import (
    CompactionBlock,
    ContentBlock,
    ReasoningBlock,
    ResourceBlock,
    ResourceLinkBlock,
)
from chatschema_models.conversation import Conversation
from chatschema_models.message import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from chatschema_models.tool import (
    AllowedToolsChoice,
    InvalidToolCall,
    NamedToolChoice,
    ToolCall,
    ToolChoice,
    ToolDefinition,
)
from typing_extensions import Unpack

from chatschema._json import copy_json
from chatschema.errors import Problem
from chatschema.providers._common import (
    EncodeOptions,
    EncodePass,
    Options,
    ToolPairing,
    application_tools,
    content_blocks,
    extras_of,
    foreign_tool_problems,
    guarded,
    invalid_call_what,
    is_foreign_tool,
    message_index,
    non_standard_what,
    parse_arguments,
    parse_data_url,
    pointer,
    raise_problems,
    sendable_tools,
    to_conversation,
    tool_call_as_text,
    tool_result_as_text,
    tools_as_text,
)
from chatschema.providers._common.options import report_dropped_settings
from chatschema.providers._common.replay import (
    compaction_what,
    held_back,
    report_skipped,
    skipped,
    summary_of,
    target_model,
)
from chatschema.providers._common.resources import resource_as
from chatschema.providers.gemini.fast import adjacent, fast_contents
from chatschema.providers.gemini.settings import unsupported, write_settings
from chatschema.providers.gemini.wire import (
    BASE64URL,
    BLOCK_TYPES,
    CONTROL_KEYS,
    DATA_FIELDS,
    FUNCTION_NAME,
    MISSING,
    MODES,
    NAME,
    NOT_ADJACENT,
    PARTS_FORM,
    PARTS_OBJECT,
    PDF_INLINE_LIMIT,
    READ,
    TOOLS_EMPTY,
    TOOLS_OBJECT,
    file_uri,
    function_names,
    mode_stands_for,
    tool_output,
    tool_response,
)


@guarded(NAME)
def encode(messages: Any, **options: Unpack[EncodeOptions]) -> dict[str, Any]:
    """A conversation as the conversation part of a Gemini request.

    Args:
        messages: a Conversation, a list of messages, or their JSON-like dicts.
        **options: see :class:`~chatschema.providers._common.EncodeOptions`.
            ``prompt_cache``, ``system_role`` and ``reasoning_content`` mean nothing
            to Gemini and are ignored; ``content_format="parts"`` is the default
            form.

    Returns:
        ``{"model"?, "system_instruction"?, "contents", "tools"?, "tool_config"?,
        "generation_config"?, ...}`` with google-genai's snake_case field names (a
        REST body, the API takes both spellings), or, for a conversation decoded
        from google-genai's ``config`` form, ``{"model"?, "contents", "config"}``:
        the keyword arguments of ``client.models.generate_content``. The settings
        and the request keys kept in ``extras["gemini"]`` are written back;
        ``model`` only when ``settings.model`` is set, so that
        ``generate_content(model=..., **encode(conversation))`` works for
        conversations without settings (with settings, a caller's model goes in as
        ``{**encode(conversation), "model": ...}``).

    Raises:
        ConversionError: with every structural problem when ``check`` is on.
        UnsupportedContentError: for content Gemini cannot carry (policy ``"error"``,
            ``check=False``), or a setting it cannot say (``unsupported_settings``).
        OptionError: for unknown options or bad values.
    """
    encoder = _Encoder.run(messages, options, collect=False)
    raise_problems(encoder.problems, NAME)
    report_dropped_settings(encoder.dropped_settings, NAME)
    report_skipped(encoder, NAME)
    return encoder.payload


@guarded(NAME)
def check(messages: Any, **options: Unpack[EncodeOptions]) -> list[Problem]:
    """Every structural problem that would make Gemini reject the conversation.

    Unanswered calls and orphan results (results must come in the user turn right
    after the calls; contents of one role in a row count as one turn), function-call
    turns that do not follow a user turn, settings Gemini cannot say, empty
    contents, content the format cannot carry when the policy is ``"error"``
    (images without vision, other providers' server tools, foreign file ids),
    invalid function names and inline PDFs over 50 MB.
    """
    encoder = _Encoder.run(messages, options, collect=True)
    return encoder.problems + skipped(encoder)


def genai_kwargs(request: Mapping[str, Any]) -> dict[str, Any]:
    """An :func:`encode` result as google-genai's ``generate_content`` keywords.

    The same for ``generate_content_stream`` and ``client.aio``. ``encode`` gives
    the REST request (``contents``, ``system_instruction``, ``tools``,
    ``generation_config`` ...); google-genai takes ``model``, ``contents`` and one
    ``config`` (``GenerateContentConfig``), which holds the generation settings and
    every other request field side by side. A request already in that form (decoded
    from google-genai's own) is returned as it is. Pass ``model=`` yourself when the
    conversation names none::

        client.models.generate_content(**genai_kwargs(gemini.encode(conversation)))

    Raises:
        ConversionError: when ``request`` is not a mapping or its
            ``generation_config`` is not one.
    """
    if not isinstance(request, Mapping):
        READ.fail(f"genai_kwargs takes what encode returns, not {type(request).__name__}")
    if "config" in request:
        return dict(request)
    rest = dict(request)
    head: dict[str, Any] = {key: rest.pop(key) for key in ("model", "contents") if key in rest}
    generation = READ.object(rest.pop("generation_config", {}), "generation_config")
    return {**head, "config": {**generation, **rest}}


# ------------------------------------------------------------------------- encoder

FAST = True
"""Whether the usual options take :func:`~.fast.fast_contents` (tests turn it off
to compare it with the general walk)."""


class _Encoder(EncodePass):
    """Writes a conversation as a Gemini request, in one pass.

    In collect mode (``check``, or ``encode`` with ``check=True``), content the
    policy would refuse and every broken rule are listed in :attr:`problems`
    instead of raising, so that every problem is reported at once.
    """

    def __init__(self, options: Options, *, collect: bool) -> None:
        super().__init__(options, collect=collect)
        self.calls: dict[str, tuple[str, bool, int]] = {}  # id -> (name, id sent, content)
        self.target: str | None = None  # the request's model (the replay policy's)
        self.content_index = 0  # index of the content being written
        self.string = options.content_format == "string"
        self.payload: dict[str, Any] = {}
        self.contents: list[dict[str, Any]] = []  # the request's contents, as written
        # contents whose parts go in another form than a list (wire.PARTS_FORM), as they came
        self.forms: list[tuple[int, str]] = []
        # the fast walk, which tells whether the rules that only check have problems
        self.fast = FAST and options.native_tools and not self.string
        self.paired = True  # every call answered (else tool_pairing_problems has some)
        self.ordered = True  # every call turn after a user turn (else _turn_problems)

    @classmethod
    def run(cls, messages: Any, options: Mapping[str, Any], *, collect: bool) -> _Encoder:
        """Encode, collecting every problem when ``collect`` or the ``check`` option asks."""
        resolved = Options.resolve(NAME, dict(options))
        conversation = to_conversation(messages)
        encoder = cls(resolved, collect=collect or resolved.check)
        encoder.target = target_model(conversation)
        checks = encoder.collect and resolved.native_tools
        if checks:
            messages = conversation.messages
            encoder.payload = encoder.request(conversation)  # (problems noted after these)
            found, encoder.problems = encoder.problems, []
            # adjacency is checked per content by the encoder: a user text may share the
            # user turn with the function responses
            if not (encoder.fast and encoder.paired):
                encoder.problems += _pairing_problems(messages, trailing=resolved.request)
            if not (encoder.fast and encoder.ordered):
                encoder.problems += _turn_problems(messages)
            encoder.problems += foreign_tool_problems(conversation.tools, resolved)
            encoder.problems += _tool_problems(conversation.tools or [])
            encoder.problems += found
        else:
            encoder.payload = encoder.request(conversation)
        encoder.last_checks(conversation)
        encoder.problems.sort(key=_problem_order)
        return encoder

    def placeholder(
        self, what: str, index: int, position: int | None = None, *, where: str | None = None
    ) -> dict[str, Any] | None:
        """Apply the unsupported-content policy; the placeholder comes back as a text part."""
        text = self.unsupported(what, index, position, where=where)
        return None if text is None else {"text": text}

    # ----------------------------------------------------------------- request

    def request(self, conversation: Conversation) -> dict[str, Any]:
        """The request: system instruction, contents, tools and tool config."""
        messages = conversation.messages
        payload: dict[str, Any] = {}
        system: dict[str, Any] | None = None
        form: str | None = None  # the form of the instruction's parts, as it came
        start = 0
        # generateContent: system messages go to system_instruction, which only the
        # leading ones can reach (a later one is a user turn's text)
        while start < len(messages) and isinstance(messages[start], SystemMessage):
            message = messages[start]
            if system is None:
                system = {"parts": []}
                kept = extras_of(message, NAME)
                role = kept.get("role")
                if isinstance(role, str):
                    system["role"] = role
                form = _form(kept)
            system["parts"].extend(self.text_parts(message, start))
            start += 1
        if system is not None and not system["parts"] and self.dropped:
            system = None  # drops left the instruction without parts: not sent
        contents: list[dict[str, Any]] = []
        self.contents = contents
        empty: list[tuple[int, int]] = []  # (message, content) of contents begun empty
        if self.fast:
            fast_contents(self, messages, start, contents, empty)
        else:
            after_tool = False  # whether the message written before is a tool result
            for index in range(start, len(messages)):
                message = messages[index]
                if self.add(message, index, after_tool, contents, empty):
                    after_tool = isinstance(message, ToolMessage)
        if self.collect:
            for index, content in empty:
                if not contents[content]["parts"]:
                    self.problem(
                        pointer(index, "content"),
                        "empty_content",
                        "Gemini rejects a content without parts",
                    )
            if not contents:
                self.problem(
                    "/messages", "no_contents", "Gemini needs at least one user or model message"
                )
        for content, kind in self.forms:  # (after the joins: as many parts still)
            _put_form(contents[content], kind)
        given = conversation.tools or []
        if application_tools(given) and not self.options.native_tools:
            if system is None:
                system = {"parts": []}
            system["parts"].append({"text": tools_as_text(given)})
        if system is not None:
            if form is not None:
                _put_form(system, form)
            payload["system_instruction"] = system
        payload["contents"] = contents
        if self.options.native_tools:
            if not self.collect:
                tools = sendable_tools(given, self.options)
            else:  # check: reported by run
                tools = [tool for tool in given if not is_foreign_tool(tool, NAME)]
            kept = extras_of(conversation, NAME)
            objects = tool_objects(tools) if tools else []
            hollow = kept.get(TOOLS_EMPTY)  # Tool objects that declare nothing, as they came
            if isinstance(hollow, list):
                for entry in hollow:
                    if isinstance(entry, list) and len(entry) == 2 and type(entry[0]) is int:
                        objects.insert(min(entry[0], len(objects)), copy_json(entry[1]))
            if objects or isinstance(hollow, list):
                single = kept.get(TOOLS_OBJECT) is True
                # a request that sent one Tool object gets it back so
                payload["tools"] = objects[0] if single and len(objects) == 1 else objects
            config = _tool_config(conversation)
            if config and (tools or not given):
                # a tool choice goes only with tools, or where none were given
                payload["tool_config"] = config
            elif not config and kept.get("tool_config", MISSING) in (None, {}):
                payload["tool_config"] = copy_json(kept["tool_config"])  # as it came
            choice = conversation.tool_choice
            if isinstance(choice, AllowedToolsChoice) and choice.parallel is False:
                # FunctionCallingConfig has no switch for parallel calls
                unsupported(
                    self, "parallel", "gemini cannot forbid parallel calls", root="tool_choice"
                )
        if conversation.settings is not None or conversation.extras:
            write_settings(self, conversation, payload)
        return payload

    def add(
        self,
        message: Message,
        index: int,
        after_tool: bool,
        contents: list[dict[str, Any]],
        empty: list[tuple[int, int]],
    ) -> bool:
        """Write one message to ``contents``; False when drops left it out.

        ``after_tool``: whether the message written before is a tool result;
        ``empty``: where to note a content begun without parts, as ``(message, content)``.
        """
        role = "model" if isinstance(message, AssistantMessage) else "user"
        # Function calling: the responses to one turn's calls go in one user content
        default = after_tool and isinstance(message, ToolMessage)
        join = extras_of(message, NAME).get("join", default) is True
        join = join and bool(contents) and contents[-1]["role"] == role
        self.content_index = len(contents) - 1 if join else len(contents)
        reported = len(self.problems)
        dropped = self.dropped
        if isinstance(message, AssistantMessage):
            parts = self.model_parts(message, index)
        elif isinstance(message, ToolMessage):
            parts = self.tool_parts(message, index)
        elif isinstance(message, UserMessage):
            parts = self.parts(message.content, index)
        else:
            parts = self.text_parts(message, index)
        if join:
            contents[-1]["parts"].extend(parts)
        elif not parts and self.dropped > dropped:
            return False  # drops left it without parts: not sent (Gemini rejects it)
        else:
            kept = extras_of(message, NAME)
            contents.append({"role": kept.get("role", role), "parts": parts})
            form = _form(kept) if kept else None
            if form is not None:
                self.forms.append((len(contents) - 1, form))
            if not parts and len(self.problems) == reported:
                empty.append((index, len(contents) - 1))  # (refused content: reported)
        return True

    # ---------------------------------------------------------------- messages

    def text_parts(self, message: Message, index: int) -> list[dict[str, Any]]:
        """System instructions: text only."""
        parts: list[dict[str, Any]] = []
        texts: list[str] = []
        for position, block in enumerate(content_blocks(message.content)):
            if block.type == "text":
                if self.string:
                    texts.append(block.text)
                else:
                    parts.append(self.meta({"text": block.text}, block))
                continue
            if block.type == "non_standard" and "type" not in block.value and not self.string:
                parts.append(dict(block.value))  # a Gemini part kept as it came
                continue
            part = self.placeholder(f"{block.type} content in a system message", index, position)
            if part is None:
                continue
            if self.string:
                texts.append(part["text"])
            else:
                parts.append(part)
        if self.string and texts:
            parts.append({"text": "\n".join(texts)})
        return parts

    def parts(self, content: str | Sequence[ContentBlock], index: int) -> list[dict[str, Any]]:
        """The parts of user content (and of a model turn without tool calls)."""
        if self.string:
            return self.string_parts(content_blocks(content), (), index)
        out: list[dict[str, Any]] = []
        for position, block in enumerate(content_blocks(content)):
            part = self.block(block, index, position)
            if part is not None:
                out.append(part)
        return out

    def string_parts(
        self, blocks: Sequence[ContentBlock], calls: Sequence[ToolCall], index: int
    ) -> list[dict[str, Any]]:
        """``content_format="string"``: one text part (after replayed thoughts)."""
        thoughts: list[dict[str, Any]] = []
        texts: list[str] = []
        for position, block in enumerate(blocks):
            if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
                block = resource_as(block) or block
            if block.type in ("text", "refusal"):
                texts.append(block.text)
                continue
            if block.type == "reasoning":
                part = self.block(block, index, position)
                if part is None:
                    continue
                if part.get("thought") is True:
                    thoughts.append(part)  # replayed Gemini thoughts stay their own parts
                else:
                    texts.append(part["text"])  # reasoning="text": foreign reasoning as text
                continue
            placeholder = self.placeholder(
                f"{block.type} content with content_format='string'", index, position
            )
            if placeholder is not None:
                texts.append(placeholder["text"])
        out = thoughts
        if texts:
            out.append({"text": "\n".join(texts)})
        out.extend(self.call(call, index) for call in calls)
        return out

    def model_parts(self, message: AssistantMessage, index: int) -> list[dict[str, Any]]:
        """A model turn's parts: blocks and calls in their order, as they came."""
        blocks = content_blocks(message.content)
        if self.string:
            out = self.string_parts(blocks, message.tool_calls, index)
        else:
            out = []
            calls: list[ToolCall | InvalidToolCall] = [*message.tool_calls]
            calls += [bad for bad in message.invalid_tool_calls if _unnamed(bad) is not None]
            carried: dict[str, Any] | None = None  # a signature-only interactions thought
            for position, item in _merged(blocks, calls):
                part: dict[str, Any] | None
                if isinstance(item, ToolCall):
                    part = self.call(item, index)
                elif isinstance(item, InvalidToolCall):
                    part = self.meta({"function_call": _unnamed(item)}, item)
                else:
                    part = self.block(item, index, position)
                if part is None:
                    continue
                if carried is not None and "thought_signature" not in part:
                    part["thought_signature"] = carried.pop("thought_signature")
                    carried = None
                elif carried is not None:
                    out.append(carried)
                    carried = None
                if _signature_only(item, part):
                    carried = part
                else:
                    out.append(part)
            if carried is not None:
                out.append(carried)
        for position, invalid in enumerate(message.invalid_tool_calls):
            if not self.string and _unnamed(invalid) is not None:
                continue  # (written above, where it came)
            where = pointer(index, "invalid_tool_calls", position)
            text = self.placeholder(invalid_call_what(invalid), index, where=where)
            if text is not None:
                out.append(text)  # after the content: an invalid call has no position
        return out

    def call(self, call: ToolCall, index: int) -> dict[str, Any]:
        """The ``function_call`` part of a tool call (text without native tools)."""
        if not self.options.native_tools:
            return {"text": tool_call_as_text(call)}
        extras = extras_of(call, NAME)
        function: dict[str, Any] = {"name": call.name, "args": call.arguments}
        if extras.get("args_absent") is True and not call.arguments:
            del function["args"]
        sends = extras.get("synthesized_id") is not True
        wire_id = extras.get("id")
        if isinstance(wire_id, str):
            function["id"] = wire_id
        elif sends:
            function["id"] = call.id
        more = extras.get("function_call")
        if isinstance(more, dict):
            for key, value in more.items():
                function.setdefault(key, value)
        self.calls[call.id] = (call.name, sends, self.content_index)
        return self.meta({"function_call": function}, call)

    def tool_parts(self, message: ToolMessage, index: int) -> list[dict[str, Any]]:
        """A tool result as one ``function_response`` part (media in its ``parts``)."""
        texts: list[str] = []
        media: list[dict[str, Any]] = []
        for position, block in enumerate(content_blocks(message.content)):
            if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
                # Function calling, multimodal function responses: media go in the
                # response's parts; a resource as the text or media it maps to
                block = resource_as(block) or block
            if block.type == "text":
                texts.append(block.text)
                continue
            if block.type in BLOCK_TYPES and not self.string:
                part = self.media(block, index, position)
            elif block.type == "non_standard" and "type" not in block.value:
                # a function-response part kept as it came
                media.append(copy_json(block.value))
                continue
            else:
                part = self.placeholder(f"{block.type} content in a tool result", index, position)
            if part is None:
                continue
            if "text" in part:
                texts.append(part["text"])
            else:
                media.append(part)
        text = "\n".join(texts)
        if not self.options.native_tools:
            return [{"text": tool_result_as_text(message, text)}, *media]
        extras = extras_of(message, NAME)
        known = self.calls.get(message.tool_call_id)
        # Function calling: the function responses go in the user turn right after the
        # model turn that made the calls
        if (
            self.collect
            and known is not None
            and known[2] + 1 != self.content_index
            and not adjacent(self.contents, known[2], self.content_index)
        ):
            self.problem(
                pointer(index, "tool_call_id"),
                "not_adjacent",
                NOT_ADJACENT % (message.tool_call_id,),
            )
        name = message.name or (known[0] if known is not None else None)
        if name is None:
            if self.collect:
                name = ""  # an orphan result: reported by the pairing check
            else:
                raise READ.error(
                    f"tool result {message.tool_call_id!r} answers no earlier tool call and "
                    "has no name (Gemini needs the function name)",
                    index,
                )
        response: dict[str, Any] = {"name": name}
        wire_id = extras.get("id")
        if isinstance(wire_id, str):
            response["id"] = wire_id
        elif not (
            extras.get("id_absent") is True
            or extras.get("synthesized_id") is True
            or (known is not None and not known[1])
        ):
            response["id"] = message.tool_call_id
        raw = extras.get("response", MISSING)
        if raw is not MISSING and tool_output(raw) == (text, message.status):
            if raw is not None:
                response["response"] = raw
        else:
            response["response"] = tool_response(text, message.status)
        if media:
            response["parts"] = media
        more = extras.get("function_response")
        if isinstance(more, dict):
            for key, value in more.items():
                response.setdefault(key, value)
        result: dict[str, Any] = {"function_response": response}
        meta = extras.get("part")
        if isinstance(meta, dict):
            for key, value in meta.items():
                if key not in DATA_FIELDS:
                    result.setdefault(key, value)
        return [result]

    # ------------------------------------------------------------------ blocks

    def meta(self, part: dict[str, Any], model: Any) -> dict[str, Any]:
        """Add the Part metadata kept in a block's or call's ``extras["gemini"]``."""
        for key, value in extras_of(model, NAME).items():
            if key in CONTROL_KEYS or key in DATA_FIELDS or key in part:
                continue
            if key == "thought_signature" and self.options.reasoning == "drop":
                continue
            part[key] = value
        return part

    def block(self, block: ContentBlock, index: int, position: int) -> dict[str, Any] | None:
        """The part for one block; None when it is left out."""
        drop = self.options.reasoning == "drop"
        if drop and extras_of(block, NAME).get("thought") is True:
            return None
        if block.type in ("text", "refusal"):
            if not block.text and not extras_of(block, NAME):
                return None  # says nothing: the API refuses empty text (as content "")
            return self.meta({"text": block.text}, block)
        if block.type == "reasoning":
            text = block.text if block.text is not None else "\n".join(block.summary or [])
            # Thought signatures: Gemini's own thoughts go back on their part, signature
            # unchanged; it cannot verify other providers' reasoning
            sibling = block.provider == SIBLING and self.options.reasoning != "drop"
            if (self.options.replays(block.provider) or sibling) and not (
                block.signature is not None and held_back(self, block, self.target, index, position)
            ):
                part: dict[str, Any] = {"text": text, "thought": True}
                if block.signature is not None:
                    part["thought_signature"] = block.signature
                return self.meta(part, block)
            if self.options.reasoning == "text" and text:
                return {"text": text}
            return None  # another provider's reasoning: Gemini cannot verify it
        if block.type in BLOCK_TYPES:
            return self.media(block, index, position)
        if isinstance(block, CompactionBlock):  # no such part: its text, or the policy
            summary = summary_of(self.options, block)
            if summary is None:
                return self.placeholder(compaction_what(block), index, position)
            return self.block(summary, index, position)
        if isinstance(block, (ResourceBlock, ResourceLinkBlock)):
            alt = resource_as(block)  # no resource part: the text or media part it maps to
            if alt is None:
                return self.placeholder(f"{block.type} content", index, position)
            return self.block(alt, index, position)
        if block.type == "server_tool_call":
            arguments = block.arguments
            if (
                block.name == "code_execution"
                and isinstance(arguments, dict)
                and isinstance(arguments.get("code"), str)
                and set(arguments) <= {"code", "language"}
            ):
                code = dict(arguments)
                if (
                    block.id is not None
                    and extras_of(block, NAME).get("synthesized_id") is not True
                ):
                    code["id"] = block.id
                return self.meta({"executable_code": code}, block)
            return self.placeholder(f"server tool call {block.name!r}", index, position)
        if block.type == "server_tool_result":
            output = block.output
            if isinstance(output, dict) and output and set(output) <= {"outcome", "output"}:
                result = dict(output)
                if extras_of(block, NAME).get("synthesized_id") is not True:
                    result["id"] = block.tool_call_id
                return self.meta({"code_execution_result": result}, block)
            return self.placeholder("server tool result", index, position)
        if block.type == "non_standard":
            value = block.value
            if "type" not in value:  # a Gemini part kept as it came
                part = dict(value)
                if drop:
                    part.pop("thought_signature", None)
                return part
            return self.placeholder(non_standard_what(block), index, position)
        return self.placeholder(f"{block.type} content", index, position)  # pragma: no cover

    def media(self, block: Any, index: int, position: int) -> dict[str, Any] | None:
        """Image, audio, video, file and text-plain blocks as inline or file data."""
        if block.type == "image" and not self.options.vision:
            return self.placeholder("image (vision is off)", index, position)
        if self.string:
            return self.placeholder(
                f"{block.type} content with content_format='string'", index, position
            )
        extras = extras_of(block, NAME)
        data: dict[str, Any]
        key = "inline_data"
        if block.base64 is not None:
            encoded = block.base64
            came = extras.get(BASE64URL)  # URL-safe or unpadded, it goes back so
            if came in ("urlsafe", "urlsafe_unpadded"):
                encoded = encoded.translate(_TO_URLSAFE)
            if came in ("unpadded", "urlsafe_unpadded"):
                encoded = encoded.rstrip("=")
            data = {"mime_type": block.mime_type, "data": encoded}
        elif block.type == "text-plain" and block.text is not None:
            encoded = base64.b64encode(block.text.encode("utf-8")).decode("ascii")
            data = {"mime_type": block.mime_type or "text/plain", "data": encoded}
        else:
            inline = parse_data_url(block.url) if block.url is not None else None
            if inline is not None:
                data = {"mime_type": inline[0], "data": inline[1]}
            else:
                uri = extras.get("file_uri")
                if not isinstance(uri, str):
                    uri = file_uri(block.url, block.file_id)
                if uri is None:
                    return self.placeholder(
                        f"file id {block.file_id!r} (not a Gemini Files API name)",
                        index,
                        position,
                    )
                key = "file_data"
                data = {"file_uri": uri}
                if block.mime_type is not None:
                    data["mime_type"] = block.mime_type
        more = extras.get(key)
        if isinstance(more, dict):
            for name, value in more.items():
                data.setdefault(name, value)
        if (
            self.collect
            and key == "inline_data"
            and str(data["mime_type"]).lower() == "application/pdf"
            and len(data["data"]) * 3 // 4 > PDF_INLINE_LIMIT
        ):
            self.problem(
                pointer(index, "content", position),
                "size_limit",
                "inline PDFs are limited to 50 MB (use the Files API or a URL)",
            )
        return self.meta({key: data}, block)


_TO_URLSAFE = str.maketrans("+/", "-_")


SIBLING = "gemini_interactions"
"""The format whose thought signatures are Gemini's own (the same models')."""


def _signature_only(item: Any, part: dict[str, Any]) -> bool:
    """Whether a part is an Interactions ``thought`` step with a signature only.

    Interactions API, thought signatures: a signature comes in a thought step before the
    step it belongs to; Gemini carries it on that part (``thoughtSignature``).
    """
    return (
        isinstance(item, ReasoningBlock)
        and item.provider == SIBLING
        and part.keys() == {"text", "thought", "thought_signature"}
        and part["text"] == ""
    )


def _merged(
    blocks: Sequence[ContentBlock], calls: Sequence[ToolCall | InvalidToolCall]
) -> list[tuple[int, ContentBlock | ToolCall | InvalidToolCall]]:
    """Blocks and calls in wire order: calls at their ``index``, the rest after.

    Each item keeps its position in its own list (for error messages).
    """
    placed = sorted(
        ((call.index, position) for position, call in enumerate(calls) if call.index is not None),
    )
    out: list[tuple[int, ContentBlock | ToolCall | InvalidToolCall]] = []
    next_call = 0
    for position, block in enumerate(blocks):
        while next_call < len(placed) and placed[next_call][0] <= len(out):
            out.append((placed[next_call][1], calls[placed[next_call][1]]))
            next_call += 1
        out.append((position, block))
    for _, position in placed[next_call:]:
        out.append((position, calls[position]))
    out.extend((position, call) for position, call in enumerate(calls) if call.index is None)
    return out


def _form(kept: Mapping[str, Any]) -> str | None:
    """The form a message's content gave its ``parts`` in, when not a list."""
    for key in PARTS_FORM:
        if kept.get(key) is True:
            return key
    return None


def _put_form(content: dict[str, Any], form: str) -> None:
    """Give a content's ``parts`` the form they came in, as long as it still fits.

    One part as an object (``parts_object``: it still has one part); ``null`` or no
    ``parts`` (it still has none).
    """
    parts = content["parts"]
    if form == PARTS_OBJECT:
        if len(parts) == 1:
            content["parts"] = parts[0]
    elif not parts:
        if form == "parts_null":
            content["parts"] = None
        else:
            del content["parts"]


def _unnamed(call: InvalidToolCall) -> dict[str, Any] | None:
    """The ``function_call`` of a Gemini call decoded without a name, as it came.

    None for any other invalid call (which the unsupported-content policy takes):
    one that is not Gemini's (no ``name_absent`` nor kept name), has a name now, or
    whose arguments are no JSON object.
    """
    extras = extras_of(call, NAME)
    more = extras.get("function_call")
    kept_name = isinstance(more, dict) and "name" in more
    if call.name or not (extras.get("name_absent") is True or kept_name):
        return None
    args, error = parse_arguments(call.arguments or "{}")
    if error is not None or not isinstance(args, dict):
        return None
    function: dict[str, Any] = {"args": args}
    if extras.get("args_absent") is True and not args:
        del function["args"]
    wire_id = extras.get("id")
    if isinstance(wire_id, str):
        function["id"] = wire_id
    elif extras.get("synthesized_id") is not True and call.id is not None:
        function["id"] = call.id
    if isinstance(more, dict):
        for key, value in more.items():
            function.setdefault(key, copy_json(value))
    return function


# ------------------------------------------------------------------ tools writers


TOOL_KEYS: Final = frozenset({"tool", "tool_fields", "schema_key", "parameters_absent"})
"""Keys of a tool definition's ``extras["gemini"]`` that are the codec's bookkeeping."""


def tool_objects(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Gemini ``Tool`` objects: function declarations and hosted tools.

    Consecutive definitions with the same ``extras["gemini"]["tool"]`` share one
    object; without it, declarations share one object and each hosted tool
    (``provider="gemini"``) has its own. A hosted tool is the fields in its
    ``extras["gemini"]`` (``{"google_search": {}}``), or ``{name: {}}`` without them.
    """
    objects: list[tuple[Any, dict[str, Any]]] = []  # (group, Tool object)
    for tool in tools:
        extras = extras_of(tool, NAME)
        hollow = extras.get("tool_fields")  # fields of its Tool that declare nothing
        if tool.provider == NAME:
            group = extras.get("tool")
            fields = {key: value for key, value in extras.items() if key not in TOOL_KEYS}
            fields = fields or {tool.name: {}}
            if isinstance(hollow, dict):
                fields = {**fields, **hollow}
            if (
                group is not None
                and objects
                and objects[-1][0] == group
                and not fields.keys() & objects[-1][1].keys()
            ):
                objects[-1][1].update(fields)
            else:
                objects.append((group, dict(fields)))
            continue
        declaration: dict[str, Any] = {"name": tool.name}
        if tool.description is not None:
            declaration["description"] = tool.description
        if not (extras.get("parameters_absent") is True and not tool.parameters):
            key = "parameters" if extras.get("schema_key") == "parameters" else None
            declaration[key or "parameters_json_schema"] = tool.parameters
        for name, value in extras.items():
            if name not in TOOL_KEYS:
                declaration.setdefault(name, value)
        group = extras.get("tool", 0)
        if objects and objects[-1][0] == group:
            objects[-1][1].setdefault("function_declarations", []).append(declaration)
        else:
            objects.append((group, {"function_declarations": [declaration]}))
        if isinstance(hollow, dict):
            for name, value in hollow.items():
                objects[-1][1].setdefault(name, copy_json(value))
    return [tool for _, tool in objects]


def _tool_config(conversation: Conversation) -> dict[str, Any]:
    """``tool_config``: the tool choice, and what the decoder kept that it cannot say.

    ``Conversation.extras["gemini"]["tool_config"]`` holds the keys the tool choice does
    not map (``include_server_side_tool_invocations``, ``retrieval_config``,
    ``function_calling_config.stream_function_call_arguments`` ...), sent back as they
    came, and a mode without a neutral equivalent (``VALIDATED``), sent in place of
    the mode it stands for while the tool choice still says that one.
    """
    choice = conversation.tool_choice
    config = tool_choice_config(choice) if choice is not None else {}
    kept = extras_of(conversation, NAME).get("tool_config")
    if not isinstance(kept, dict):
        return config
    for key, value in kept.items():
        if key != "function_calling_config":
            config.setdefault(key, copy_json(value))
        elif not isinstance(value, dict):
            if choice is None:
                config[key] = copy_json(value)
        else:
            calling = config.get(key, {})
            for name, item in value.items():
                if name == "mode":  # in place of the mode it stands for (None: no choice)
                    if calling.get("mode") in mode_stands_for(item):
                        calling["mode"] = item
                elif (
                    name != "allowed_function_names"
                    or calling.get("mode") != "ANY"
                    # names no choice says (null, [], [""]) beside none: as they came
                    or (name not in calling and not function_names(item))
                ):
                    calling.setdefault(name, copy_json(item))
            if calling or not value:
                config[key] = calling
    return config


def tool_choice_config(choice: ToolChoice) -> dict[str, Any]:
    """A tool choice as ``tool_config.function_calling_config``.

    Function calling, FunctionCallingConfig: ``allowed_function_names`` goes with
    ``ANY`` (a call is required) or ``VALIDATED`` (the model may also answer in
    text); ``AUTO`` takes no names (the API refuses them).
    """
    if isinstance(choice, NamedToolChoice):
        config: dict[str, Any] = {"mode": "ANY", "allowed_function_names": [choice.name]}
    elif isinstance(choice, AllowedToolsChoice):
        mode = "ANY" if choice.mode == "required" else "VALIDATED"
        config = {"mode": mode, "allowed_function_names": list(choice.names)}
    else:
        config = {"mode": MODES[choice.type]}
    return {"function_calling_config": config}


# -------------------------------------------------------------- rules that only check


def _problem_order(problem: Problem) -> tuple[bool, int]:
    """Problems by message; those without a message index (tools, ``/messages``) last."""
    index = message_index(problem)
    return index is None, index or 0


def _turn_problems(messages: Sequence[Message]) -> list[Problem]:
    """A model turn with function calls must follow a user turn or function responses.

    Function calling (multi-turn): the API refuses a function call turn that comes
    first, or after model contents that do not follow a user turn; consecutive model
    contents count as one turn (the API takes calls in the second, HTTP 200).
    """
    problems: list[Problem] = []
    previous: str | None = None
    follows_user = False  # the model contents in a row so far follow a user turn
    leading = True
    for index, message in enumerate(messages):
        if leading and isinstance(message, SystemMessage):
            continue
        leading = False
        if isinstance(message, AssistantMessage):
            if previous != "model":
                follows_user = previous == "user"
            if message.tool_calls and not follows_user:
                problems.append(
                    Problem(
                        pointer(index, "tool_calls", 0),
                        "turn_order",
                        "a model turn with function calls must come right after a user "
                        "turn or function responses (Gemini rejects it otherwise)",
                    )
                )
            previous = "model"
        else:
            previous = "user"
    return problems


def _pairing_problems(messages: Sequence[Message], *, trailing: bool) -> list[Problem]:
    """Calls and results that do not pair up, as ``tool_pairing_problems`` finds them.

    One difference: the calls of model contents in a row wait together, so that the
    function responses after the last one answer the calls of any of them (the API
    takes it, HTTP 200); a call is unanswered only when another model turn begins.
    ``trailing``: calls still waiting at the end are problems (``request=False``: not).
    """
    pairing = ToolPairing(adjacent=False, provider=NAME, trailing=trailing)
    previous_model = False
    for index, message in enumerate(messages):
        if isinstance(message, ToolMessage):
            pairing.result(index, message.tool_call_id)
            previous_model = False
            continue
        is_model = isinstance(message, AssistantMessage)
        if is_model and previous_model:
            assert isinstance(message, AssistantMessage)
            for position, call in enumerate(message.tool_calls):
                pairing.call(call.id, index, "tool_calls", position)
        else:
            pairing.message(index, message)
        previous_model = is_model
    return pairing.finish()


def _tool_problems(tools: Sequence[ToolDefinition]) -> list[Problem]:
    """Function names the API refuses (``FunctionDeclaration.name``, see ``wire.py``)."""
    return [
        Problem(
            f"/tools/{index}/name",
            "pattern",
            f"Gemini function names start with a letter or underscore and hold only "
            f"letters, digits, '_', '.', ':' and '-' (at most 128), not {tool.name!r}",
        )
        for index, tool in enumerate(tools)
        if tool.provider is None and not FUNCTION_NAME.fullmatch(tool.name)
    ]
