"""Recorded payloads as the tests see them: listed from the manifest, read when used.

A recorded file (``tests/recordings/manifest.yaml``) may be absent: it is made by
``tests/recordings/build.py`` (``make recordings``), never committed. So that an absent
file is a skipped test rather than a test that was never collected:

- :func:`listing` lists a directory from the manifest as well as from the disk, and
  :func:`index` gives what a file holds (an object's keys, a list's item ids) as the
  manifest records it, so tests are parametrized without opening anything;
- :func:`load` opens a file when a test runs; an absent recorded file raises
  ``FileNotFoundError``, which ``tests/recordings/plugin.py`` turns into a skip naming
  it (a failure under ``CHATSCHEMA_RECORDINGS=required``);
- :func:`present` keeps, of a pool of files (the seeds a fuzzer mutates), those on disk,
  and counts the others for the run's closing line.
"""

from __future__ import annotations

import fnmatch
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from recordings import build  # type: ignore[import-not-found,unused-ignore]

ROOT: Path = build.ROOT

LEFT_OUT: set[str] = set()
"""Recorded files left out of a seed pool because they are absent (:func:`present`)."""


@cache
def _manifest() -> dict[str, dict[str, Any]]:
    """Every manifest entry (the YAML mapping, ``index`` included) by destination."""
    import yaml  # type: ignore[import-untyped]

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    document = yaml.load(build.MANIFEST.read_bytes(), Loader=loader)
    return {item["dest"]: item for item in document["files"]}


def relative(path: Path) -> str:
    """``path`` relative to the repository root, with ``/`` (outside it: absolute)."""
    absolute = Path(os.path.abspath(path))
    try:
        return absolute.relative_to(ROOT).as_posix()
    except ValueError:
        return absolute.as_posix()


def is_recorded(path: Path) -> bool:
    """Whether ``path`` is a recorded (materialized, never committed) file."""
    return relative(path) in _manifest()


def listing(folder: Path, pattern: str = "*.json") -> list[Path]:
    """The files of ``folder`` matching ``pattern``: on disk, and every recorded file
    the manifest puts there, present or not; sorted by name."""
    prefix = relative(folder) + "/"
    names = {path.name for path in folder.glob(pattern) if path.is_file()}
    for dest in _manifest():
        name = dest[len(prefix) :]
        if dest.startswith(prefix) and "/" not in name and fnmatch.fnmatchcase(name, pattern):
            names.add(name)
    return [folder / name for name in sorted(names)]


def index(path: Path) -> list[Any]:
    """What a JSON file holds: an object's keys, or a list's item ids (each item's
    ``source``, else its position); for a recorded file, as the manifest records it
    (``index``), so the file is not opened."""
    entry = _manifest().get(relative(path))
    found = index_of(load(path)) if entry is None else entry.get("index")
    if found is None:
        raise KeyError(f"{relative(path)}: the manifest records no index")
    return list(range(found)) if isinstance(found, int) else list(found)


def index_of(document: Any) -> list[Any] | int:
    """The ``index`` the manifest records for a JSON document (see :func:`index`)."""
    if isinstance(document, dict):
        return list(document)
    if isinstance(document, list):
        sources = [item.get("source") if isinstance(item, dict) else None for item in document]
        if all(isinstance(source, str) for source in sources) and len(set(sources)) == len(sources):
            return sources
        return len(document)
    raise TypeError(f"no index for a {type(document).__name__}")


@cache
def _parsed(path: str) -> Any:
    """A JSON file, parsed once (callers that change it copy it first)."""
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def load(path: Path, *, shared: bool = False) -> Any:
    """A JSON file's content; absent, ``FileNotFoundError`` (a skip, for recorded files).

    With ``shared`` the parsed value is cached and must not be changed."""
    if shared:
        return _parsed(str(path))
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def item(path: Path, key: Any, *, shared: bool = False) -> Any:
    """The item ``key`` of a JSON file (:func:`index`): an object's value, or the list
    item whose ``source`` is ``key`` (or at position ``key``)."""
    document = load(path, shared=shared)
    if isinstance(document, dict):
        return document[key]
    if isinstance(key, int):
        return document[key]
    (found,) = [entry for entry in document if entry.get("source") == key]
    return found


class Lazy(Mapping[str, Any]):
    """A JSON object file as a mapping read on first use: its keys come from
    :func:`index` (no read), a value from the file (absent: ``FileNotFoundError``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def __getitem__(self, key: str) -> Any:
        return load(self.path, shared=True)[key]

    def __iter__(self) -> Iterator[str]:
        return iter(index(self.path))

    def __len__(self) -> int:
        return len(index(self.path))


def present(paths: Iterable[Path]) -> list[Path]:
    """The paths that exist; an absent recorded file is counted in :data:`LEFT_OUT`."""
    out = []
    for path in paths:
        if path.exists():
            out.append(path)
        elif is_recorded(path):
            LEFT_OUT.add(relative(path))
    return out
