"""The format of a dataset's conversations: given, or detected from its first rows.

A Parquet file chatschema wrote says its format in its metadata (key ``chatschema``),
trusted when the first rows' shapes agree; otherwise the shapes decide
(:func:`chatschema._detect.detect_rows`).
Only the head of the first input is read, so a run costs the same either way.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from chatschema._detect import Detection, detect_rows
from chatschema.datasets._errors import DatasetError

__all__ = ["HEAD_ROWS", "contradiction", "detect_dataset", "resolve_format"]

HEAD_ROWS = 100
"""How many rows, at most, detection reads."""


def _parquet_metadata(path: str, column: str) -> str | None:
    """The format recorded in a Parquet file chatschema wrote, for ``column``."""
    from chatschema.datasets._io import _parquet_file
    from chatschema.datasets._output import METADATA_KEY

    metadata = _parquet_file(path).schema_arrow.metadata or {}
    raw = metadata.get(METADATA_KEY)
    if raw is None:
        return None
    try:
        recorded = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(recorded, dict) or recorded.get("column") != column:
        return None
    found = recorded.get("format")
    return found if isinstance(found, str) else None


def _jsonl_head(path: str, limit: int) -> Iterator[Any]:
    from chatschema._json import loads
    from chatschema.datasets._io import _line_limit

    longest = _line_limit()
    with open(path, "rb") as stream:
        for _ in range(limit * 2):
            raw = stream.readline(longest + 2)
            if not raw or len(raw) - raw.endswith(b"\n") > longest:
                return  # the end, or a line too long to hold: the run reports it, unread
            if raw.strip():
                try:
                    yield loads(raw.decode("utf-8-sig"))
                except (ValueError, RecursionError):
                    continue


def _parquet_head(path: str, column: str, limit: int) -> Iterator[Any]:
    from chatschema.datasets._io import _parquet_file
    from chatschema.datasets._rows import load

    parquet = _parquet_file(path)
    if column not in parquet.schema_arrow.names:
        return
    for batch in parquet.iter_batches(batch_size=limit, columns=[column]):
        for value in batch.column(0).to_pylist():
            document, problem = load(value)
            if problem is None:
                yield document
        return


def detect_dataset(path: str, form: str, column: str) -> tuple[Detection, str]:
    """What the head of one input says about its format, and where (for messages).

    Returns the detection and the place that decided (``"row 3 of x.jsonl"``, or
    ``"the Parquet metadata of x.parquet"``).
    """
    from chatschema.datasets._rows import FORMATS

    recorded = None
    if form == "parquet":
        recorded = _parquet_metadata(path, column)
        rows: Iterator[Any] = _parquet_head(path, column, HEAD_ROWS)
    else:
        rows = _jsonl_head(path, HEAD_ROWS)
    found, number = detect_rows(rows, limit=HEAD_ROWS)
    if recorded in FORMATS and found.fits(str(recorded)):  # the rows agree with the metadata
        reason = f'its metadata says "format": "{recorded}"'
        return Detection(frozenset((str(recorded),)), reason, found.excluded), path
    return found, f"row {number} of {path}" if number else path


def contradiction(given: str, found: Detection, where: str, name: str) -> str | None:
    """The warning when format ``given`` (spelled ``name``) contradicts the rows' shape."""
    if found.fits(given):
        return None
    looks = found.format or found.names()
    why = found.excluded.get(given, found.reason)
    if given == "neutral":
        loss = "fields a Conversation does not have are refused"
    else:
        loss = (
            f'keys {given} does not know are kept under extras["{given}"], '
            "which no other format receives"
        )
    return f"{name}, but {where} looks like {looks} ({why}); {loss}"


def resolve_format(
    given: str | None,
    paths: Sequence[str],
    forms: Sequence[str],
    column: str,
    *,
    name: Callable[[str], str],
    on_warning: Callable[[str], None] | None,
    flag: str,
) -> tuple[str, Detection | None]:
    """The format to read the inputs as, and the detection when it was detected.

    ``given`` None: detected from the first input (a single format, or ``neutral``
    among several that fit alike); a shape that decides nothing raises
    :class:`DatasetError` asking for ``flag``. ``given``: checked against the first
    input's shape, a contradiction reported to ``on_warning`` (``name(given)`` names
    the setting in the message).
    """
    first = paths[0] if paths else "-"
    readable = first != "-" and os.path.isfile(first)
    if not readable:
        plain = first != "-" and "://" not in first and not any(c in first for c in "*?[")
        if given is None and plain and not os.path.exists(first):
            raise DatasetError(f"{first}: {os.strerror(errno.ENOENT)}")
        if given is None:
            raise DatasetError(f"{first}: cannot detect the format of this input; give {flag}")
        return given, None
    found, where = detect_dataset(first, forms[0], column)
    return choose(given, found, where, name=name, on_warning=on_warning, flag=flag)


def choose(
    given: str | None,
    found: Detection,
    where: str,
    *,
    name: Callable[[str], str],
    on_warning: Callable[[str], None] | None,
    flag: str,
) -> tuple[str, Detection | None]:
    """The format given (a contradiction of ``found`` told to ``on_warning``), or detected.

    Raises:
        DatasetError: when nothing was given and ``found`` decides nothing (asking for
            ``flag``).
    """
    if given is not None:
        warning = contradiction(given, found, where, name(given))
        if warning is not None and on_warning is not None:
            on_warning(warning)
        return given, None
    chosen = found.choice()
    if chosen is None:
        if found.candidates:
            raise DatasetError(
                f"{where} could be {found.names()} ({found.reason}); give {flag} to say which"
            )
        raise DatasetError(f"cannot tell the format of {where} ({found.reason}); give {flag}")
    return chosen, found
