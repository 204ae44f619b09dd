"""The batch functions: a batch of rows in, the same batch with results out.

A batch is a ``pyarrow.Table`` or ``pyarrow.RecordBatch`` (what Ray Data's
``map_batches(..., batch_format="pyarrow")`` passes), or a mapping of column names to
sequences (what Hugging Face ``datasets.Dataset.map(..., batched=True)`` passes; a
dict of lists). Each function returns the same kind of batch: every input column and
row, in order, with its result columns set. A bad row never raises: its result is
null and its ``problems`` say why.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar, cast

from chatschema.datasets._errors import DatasetError
from chatschema.datasets._rows import (
    FORMATS,
    STATS,
    convert_row,
    load,
    redact_row,
    stats_row,
    trim_row,
    validate_row,
)
from chatschema.errors import OptionError, Problem

if TYPE_CHECKING:
    from chatschema_models.message import Message

__all__ = [
    "BATCH_FUNCTIONS",
    "convert_batch",
    "problems_to_dicts",
    "redact_batch",
    "stats_batch",
    "trim_batch",
    "validate_batch",
]

BatchT = TypeVar("BatchT")

# Column kinds: how a result column is typed in Arrow.
TEXT, PROBLEMS, BOOL, INT = "text", "problems", "bool", "int"


def problems_to_dicts(problems: Sequence[Problem]) -> list[dict[str, str]]:
    """Problems as the ``problems`` column holds them: ``{pointer, keyword, message}``."""
    return [
        {"pointer": problem.pointer, "keyword": problem.keyword, "message": problem.message}
        for problem in problems
    ]


def arrow_type(kind: str) -> Any:
    """The Arrow type of a result column kind."""
    from chatschema.datasets._arrow import pyarrow

    pa = pyarrow()
    if kind == TEXT:
        return pa.large_string()
    if kind == PROBLEMS:
        return pa.list_(
            pa.struct(
                [("pointer", pa.string()), ("keyword", pa.string()), ("message", pa.string())]
            )
        )
    if kind == BOOL:
        return pa.bool_()
    return pa.int64()


def _safe(value: Any) -> Any:
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, dict):
        return {key: _safe(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_safe(item) for item in value]
    return value


def to_arrow(values: Sequence[Any], kind: str) -> Any:
    r"""A result column as a ``pyarrow.Array`` of its kind's type.

    Text holding lone surrogates (``\\ud800`` escapes in the input come out of
    ``json.dumps`` as such) cannot be UTF-8: such strings are written with JSON
    escapes instead, which read back as the same string.
    """
    from chatschema.datasets._arrow import pyarrow

    pa = pyarrow()
    try:
        return pa.array(values, type=arrow_type(kind))
    except (pa.ArrowException, UnicodeEncodeError):
        return pa.array([_safe(value) for value in values], type=arrow_type(kind))


def result_columns(command: str, column: str, options: Mapping[str, Any]) -> list[tuple[str, str]]:
    """The ``(name, kind)`` of the columns a batch function sets, in order."""
    problems = (str(options.get("problems_column") or "problems"), PROBLEMS)
    output = (str(options.get("output_column") or column), TEXT)
    if command == "validate":
        return [(str(options.get("valid_column") or "valid"), BOOL), problems]
    if command == "convert":
        return [output, problems]
    if command == "stats":
        return [*((name, INT) for name in STATS), problems]
    if command == "trim":
        return [output, ("dropped_messages", INT), problems]
    if command == "redact":
        return [output, ("redacted_blocks", INT), problems]
    raise OptionError(f"unknown command {command!r}")


def _is_arrow(batch: Any) -> bool:
    kind = type(batch)
    return kind.__module__.startswith("pyarrow") and kind.__name__ in ("Table", "RecordBatch")


def _values(batch: Any, column: str) -> list[Any]:
    if _is_arrow(batch):
        if column not in batch.schema.names:
            raise DatasetError(
                f"the batch has no column {column!r}; its columns: {batch.schema.names}"
            )
        values: list[Any] = batch.column(column).to_pylist()
        return values
    if isinstance(batch, Mapping):
        if column not in batch:
            raise DatasetError(f"the batch has no column {column!r}; its columns: {list(batch)}")
        return list(batch[column])
    raise DatasetError(
        "a batch is a pyarrow Table or RecordBatch, or a mapping of column names to lists "
        f"(with Ray Data, use batch_format='pyarrow'), not {type(batch).__name__}"
    )


def _assemble(batch: BatchT, results: Sequence[tuple[str, str, list[Any]]]) -> BatchT:
    """The batch with result columns ``(name, kind, values)`` set (replaced or added)."""
    if not _is_arrow(batch):
        mapping = cast(Mapping[str, Any], batch)
        out = {name: mapping[name] for name in mapping}
        for name, _, values in results:
            out[name] = values
        return cast(BatchT, out)
    from chatschema.datasets._arrow import pyarrow

    pa = pyarrow()
    table = cast(Any, batch)
    names = list(table.schema.names)
    arrays = list(table.columns)
    for name, kind, values in results:
        array = to_arrow(values, kind)
        if name in names:
            arrays[names.index(name)] = array
        else:
            names.append(name)
            arrays.append(array)
    if type(table).__name__ == "Table":
        return cast(BatchT, pa.Table.from_arrays(arrays, names=names))
    return cast(BatchT, pa.RecordBatch.from_arrays(arrays, names=names))


def _check_format(name: str, what: str) -> None:
    if name not in FORMATS:
        raise OptionError(f"unknown {what} format {name!r}; expected one of {FORMATS}")


def validate_batch(
    batch: BatchT,
    *,
    column: str = "conversation",
    format: str = "neutral",
    type: str = "auto",
    problems_column: str = "problems",
    valid_column: str = "valid",
) -> BatchT:
    """Validate every row: adds ``valid`` (bool) and ``problems`` (list of structs).

    Args:
        batch: a pyarrow Table / RecordBatch or a mapping of columns to lists.
        column: the column holding each row's document (JSON text, or a decoded
            object / array).
        format: ``"neutral"`` or the provider format the documents are in.
        type: neutral documents only: ``"auto"`` (detected per row), ``"Conversation"``,
            ``"messages"`` or ``"Message"``.
        problems_column: where each row's problems go (``{pointer, keyword, message}``).
        valid_column: where each row's verdict goes.

    Raises:
        OptionError: for an unknown format.
        DatasetError: when the batch is not a batch or lacks ``column``.
    """
    _check_format(format, "document")
    valid: list[bool] = []
    problems: list[list[dict[str, str]]] = []
    for value in _values(batch, column):
        document, problem = load(value)
        found = [problem] if problem is not None else validate_row(document, format, type)
        valid.append(not found)
        problems.append(problems_to_dicts(found))
    return _assemble(batch, [(valid_column, BOOL, valid), (problems_column, PROBLEMS, problems)])


def convert_batch(
    batch: BatchT,
    *,
    source: str,
    target: str,
    column: str = "conversation",
    output_column: str | None = None,
    problems_column: str = "problems",
    options: Mapping[str, Any] | None = None,
) -> BatchT:
    """Convert every row from ``source`` to ``target`` format.

    Each converted document is JSON text in ``output_column`` (default: ``column``,
    replaced); a row that cannot be converted gets null there and its problems in
    ``problems_column`` (empty for converted rows).

    Args:
        batch: a pyarrow Table / RecordBatch or a mapping of columns to lists.
        source: ``"neutral"`` or a provider format.
        target: ``"neutral"`` (canonical conversations) or a provider format.
        column: the column holding each row's document.
        output_column: where the converted documents go.
        problems_column: where each row's problems go.
        options: ``encode`` options for the target (see docs/providers.md).

    Raises:
        OptionError: for an unknown format.
        DatasetError: when the batch is not a batch or lacks ``column``.
    """
    _check_format(source, "source")
    _check_format(target, "target")
    settings = dict(options or {})
    converted: list[str | None] = []
    problems: list[list[dict[str, str]]] = []
    for value in _values(batch, column):
        document, problem = load(value)
        if problem is not None:
            text, found = None, [problem]
        else:
            text, found = convert_row(document, source, target, settings)
        converted.append(text)
        problems.append(problems_to_dicts(found))
    return _assemble(
        batch,
        [(output_column or column, TEXT, converted), (problems_column, PROBLEMS, problems)],
    )


def stats_batch(
    batch: BatchT,
    *,
    column: str = "conversation",
    format: str = "neutral",
    token_counter: Callable[[list[Message]], int] | None = None,
    problems_column: str = "problems",
) -> BatchT:
    """Per-conversation statistics: adds one int64 column per name in ``STATS``.

    ``n_messages``, ``n_user``, ``n_assistant``, ``n_tool`` (tool results),
    ``n_tool_calls``, ``n_reasoning`` (reasoning blocks), ``n_media`` (image, audio,
    video and file blocks), ``n_tools`` (tool definitions), ``text_chars`` (characters
    of text and reasoning), ``tokens`` (approximate, or ``token_counter`` of the
    messages). A row that cannot be read gets nulls and its problems.

    Raises:
        OptionError: for an unknown format.
        DatasetError: when the batch is not a batch or lacks ``column``.
    """
    _check_format(format, "document")
    columns: dict[str, list[int | None]] = {name: [] for name in STATS}
    problems: list[list[dict[str, str]]] = []
    for value in _values(batch, column):
        document, problem = load(value)
        if problem is not None:
            stats, found = None, [problem]
        else:
            stats, found = stats_row(document, format, token_counter)
        for name in STATS:
            columns[name].append(None if stats is None else stats[name])
        problems.append(problems_to_dicts(found))
    results: list[tuple[str, str, list[Any]]] = [
        (name, INT, cast(list[Any], values)) for name, values in columns.items()
    ]
    return _assemble(batch, [*results, (problems_column, PROBLEMS, problems)])


def trim_batch(
    batch: BatchT,
    *,
    max_tokens: int,
    column: str = "conversation",
    format: str = "neutral",
    strategy: str = "last",
    include_system: bool = True,
    output_column: str | None = None,
    problems_column: str = "problems",
    options: Mapping[str, Any] | None = None,
) -> BatchT:
    """Trim every conversation to ``max_tokens`` approximate tokens, tool turns whole.

    The trimmed document (same format, JSON text) goes to ``output_column`` (default:
    ``column``), the number of messages dropped to ``dropped_messages``. The tools,
    tool choice, id and metadata of a conversation are kept.

    Raises:
        OptionError: for an unknown format or strategy.
        DatasetError: when the batch is not a batch or lacks ``column``.
    """
    _check_format(format, "document")
    if strategy not in ("first", "last"):
        raise OptionError(f"unknown strategy {strategy!r}; expected 'first' or 'last'")
    texts: list[str | None] = []
    dropped: list[int | None] = []
    problems: list[list[dict[str, str]]] = []
    for value in _values(batch, column):
        document, problem = load(value)
        if problem is not None:
            text, count, found = None, 0, [problem]
        else:
            text, count, found = trim_row(
                document,
                max_tokens=max_tokens,
                format=format,
                strategy=strategy,
                include_system=include_system,
                options=options,
            )
        texts.append(text)
        dropped.append(None if text is None else count)
        problems.append(problems_to_dicts(found))
    return _assemble(
        batch,
        [
            (output_column or column, TEXT, texts),
            ("dropped_messages", INT, dropped),
            (problems_column, PROBLEMS, problems),
        ],
    )


def redact_batch(
    batch: BatchT,
    *,
    column: str = "conversation",
    format: str = "neutral",
    opaque: bool = True,
    inline: bool = True,
    output_column: str | None = None,
    problems_column: str = "problems",
    options: Mapping[str, Any] | None = None,
) -> BatchT:
    """Take opaque reasoning data and/or inline base64 media out of every conversation.

    The redacted document (same format, JSON text) goes to ``output_column``
    (default: ``column``), the number of blocks changed to ``redacted_blocks``.

    Raises:
        OptionError: for an unknown format.
        DatasetError: when the batch is not a batch or lacks ``column``.
    """
    _check_format(format, "document")
    texts: list[str | None] = []
    changed: list[int | None] = []
    problems: list[list[dict[str, str]]] = []
    for value in _values(batch, column):
        document, problem = load(value)
        if problem is not None:
            text, count, found = None, 0, [problem]
        else:
            text, count, found = redact_row(
                document, format=format, opaque=opaque, inline=inline, options=options
            )
        texts.append(text)
        changed.append(None if text is None else count)
        problems.append(problems_to_dicts(found))
    return _assemble(
        batch,
        [
            (output_column or column, TEXT, texts),
            ("redacted_blocks", INT, changed),
            (problems_column, PROBLEMS, problems),
        ],
    )


BATCH_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "validate": validate_batch,
    "convert": convert_batch,
    "stats": stats_batch,
    "trim": trim_batch,
    "redact": redact_batch,
}
