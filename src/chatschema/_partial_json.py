"""An incremental parser for JSON that is still arriving (tool-call arguments).

Text is fed piece by piece and parsed once: the parser keeps its state between
pieces, so watching a stream costs time linear in the stream, where re-parsing the
accumulated text after every piece would be quadratic. :meth:`PartialJSON.value`
shows the value so far: unfinished strings as far as they go, unfinished numbers when
what arrived is already a number, keys without a value yet left out.

Invalid JSON stops the parser; :meth:`value` then shows what came before the error.
So does nesting deeper than :data:`chatschema.limits.MAX_DEPTH`: the view never holds
more levels than a parsed document may.
"""

from __future__ import annotations

import json
import re
from typing import Any

from chatschema import limits

__all__ = ["PartialJSON"]

_PLAIN = re.compile(r'[^"\\]+')
_SPACE = re.compile(r"[ \t\n\r]+")
_NUMBER = re.compile(r"[0-9eE.+-]+")
_WORD = re.compile(r"[a-z]+")
_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_LITERALS = {"true": True, "false": False, "null": None}

# What the parser expects next.
_VALUE, _KEY, _COLON, _NEXT, _DONE = range(5)


class PartialJSON:
    """Parse JSON text that arrives in pieces (see the module docstring)."""

    __slots__ = (
        "_buffer",
        "_error",
        "_escape",
        "_expect",
        "_keys",
        "_live",
        "_root",
        "_stack",
        "_token",
    )

    def __init__(self) -> None:
        self._stack: list[dict[str, Any] | list[Any]] = []
        self._keys: list[str | None] = []  # per object on the stack: its current key
        self._root: Any = None
        self._expect = _VALUE
        self._token: str | None = None  # "string", "key", "number", "literal"
        self._buffer: list[str] = []
        self._escape = ""
        self._error: str | None = None
        self._live = False  # the last item of the innermost list is a shown partial value

    @property
    def error(self) -> str | None:
        """Why parsing stopped, if the text is not JSON."""
        return self._error

    def feed(self, text: str) -> None:
        """Parse the next piece of text."""
        position, end = 0, len(text)
        while position < end and self._error is None:
            if self._token in ("string", "key"):
                position = self._string(text, position)
            elif self._token is not None:
                position = self._scalar(text, position)
            else:
                position = self._structure(text, position)

    # -- tokens ---------------------------------------------------------------

    def _string(self, text: str, position: int) -> int:
        end = len(text)
        while position < end:
            if self._escape:
                self._escape += text[position]
                position += 1
                if not self._finish_escape():
                    return position
                continue
            match = _PLAIN.match(text, position)
            if match:
                self._buffer.append(match.group())
                position = match.end()
                continue
            char = text[position]
            position += 1
            if char == "\\":
                self._escape = "\\"
            else:  # the closing quote
                self._end_string()
                return position
        return position

    def _finish_escape(self) -> bool:
        """Decode a complete escape; False while it is still incomplete."""
        escape = self._escape
        if len(escape) < 2:
            return False
        kind = escape[1]
        if kind in _ESCAPES:
            self._buffer.append(_ESCAPES[kind])
        elif kind == "u":
            if len(escape) < 6:
                return False
            try:
                code = int(escape[2:6], 16)
            except ValueError:
                self._error = f"invalid escape {escape!r}"
                return True
            if 0xD800 <= code < 0xDC00:  # a high surrogate: wait for its pair
                if len(escape) < 12:
                    return False
                self._buffer.append(json.loads(f'"{escape[:12]}"'))
                rest = escape[12:]
                self._escape = ""
                if rest:
                    self._buffer.append(rest)
                return True
            self._buffer.append(chr(code))
        else:
            self._error = f"invalid escape {escape!r}"
        self._escape = ""
        return True

    def _end_string(self) -> None:
        value = "".join(self._buffer)
        self._buffer = []
        if self._token == "key":
            self._keys[-1] = value
            self._expect = _COLON
        else:
            self._put(value)
        self._token = None

    def _scalar(self, text: str, position: int) -> int:
        pattern = _NUMBER if self._token == "number" else _WORD
        match = pattern.match(text, position)
        if match:
            self._buffer.append(match.group())
            position = match.end()
        # A number ends where something else begins; a literal as soon as it is
        # complete (none is the prefix of another).
        if position < len(text) or "".join(self._buffer) in _LITERALS:
            self._end_scalar()
        return position

    def _end_scalar(self) -> None:
        token = "".join(self._buffer)
        self._buffer = []
        kind, self._token = self._token, None
        if kind == "literal":
            if token not in _LITERALS:
                self._error = f"invalid literal {token!r}"
                return
            self._put(_LITERALS[token])
        else:
            try:
                self._put(json.loads(token))
            except ValueError:
                self._error = f"invalid number {token!r}"

    # -- structure ------------------------------------------------------------

    def _structure(self, text: str, position: int) -> int:
        match = _SPACE.match(text, position)
        if match:
            return match.end()
        char = text[position]
        expect = self._expect
        if expect == _VALUE:
            if char == '"':
                self._token = "string"
            elif char == "{":
                self._open({})
            elif char == "[":
                self._open([])
            elif char in "-0123456789":
                self._token = "number"
                return position
            elif char in "tfn":
                self._token = "literal"
                return position
            elif char == "]" and self._stack and isinstance(self._stack[-1], list):
                if self._stack[-1]:
                    self._error = "a value is missing after ','"
                else:
                    self._close()
            else:
                self._error = f"unexpected {char!r}"
        elif expect == _KEY:
            if char == '"':
                self._token = "key"
            elif char == "}" and self._keys[-1] is None:
                self._close()
            else:
                self._error = f"expected a key, not {char!r}"
        elif expect == _COLON:
            if char == ":":
                self._expect = _VALUE
            else:
                self._error = f"expected ':', not {char!r}"
        elif expect == _NEXT:
            top = self._stack[-1] if self._stack else None
            if char == "," and top is not None:
                self._expect = _KEY if isinstance(top, dict) else _VALUE
            elif (char == "}" and isinstance(top, dict)) or (char == "]" and isinstance(top, list)):
                self._close()
            else:
                self._error = f"unexpected {char!r}"
        else:
            self._error = f"unexpected {char!r} after the end of the value"
        return position + 1

    def _open(self, container: dict[str, Any] | list[Any]) -> None:
        if len(self._stack) >= limits.MAX_DEPTH:
            # The finished arguments would be refused for their depth as well; the
            # live view stops here, and nothing deeper is ever built.
            self._error = f"nested deeper than {limits.MAX_DEPTH} levels"
            return
        self._put(container)
        self._stack.append(container)
        if isinstance(container, dict):
            self._keys.append(None)
            self._expect = _KEY
        else:
            self._expect = _VALUE

    def _close(self) -> None:
        closed = self._stack.pop()
        if isinstance(closed, dict):
            self._keys.pop()
        self._expect = _NEXT if self._stack else _DONE

    def _put(self, value: Any) -> None:
        if not self._stack:
            self._root = value
            self._expect = _DONE
            return
        top = self._stack[-1]
        if isinstance(top, dict):
            key = self._keys[-1]
            assert key is not None
            top[key] = value
            self._keys[-1] = None
        elif self._live:
            top[-1] = value
        else:
            top.append(value)
        self._live = False
        if not isinstance(value, (dict, list)):
            self._expect = _NEXT

    # -- the value so far -----------------------------------------------------

    def value(self) -> Any:
        """The value parsed so far (``None`` before anything arrived).

        Containers are the parser's own, updated in place as text arrives (an
        unfinished string or number is written into its place, then overwritten):
        read them, do not change them.
        """
        partial = self._partial_token()
        if partial is _NOTHING:
            return self._root
        if not self._stack:
            return partial
        top = self._stack[-1]
        if isinstance(top, dict):
            key = self._keys[-1]
            if key is not None:
                top[key] = partial
        elif self._live:
            top[-1] = partial
        else:
            top.append(partial)
            self._live = True
        return self._root

    def _partial_token(self) -> Any:
        if self._token == "string":
            return "".join(self._buffer)
        if self._token == "number":
            text = "".join(self._buffer).rstrip("eE.+-")
            try:
                return json.loads(text) if text else _NOTHING
            except ValueError:
                return _NOTHING
        return _NOTHING


class _Nothing:
    pass


_NOTHING: Any = _Nothing()
