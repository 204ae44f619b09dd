"""pytest plugin: a test that needs a recorded payload which is not materialized skips.

Recorded payloads are made by ``tests/recordings/build.py`` from mirrored repositories
(``manifest.yaml``); on a machine without the mirror they are absent. Then, instead of
erroring:

- a test, fixture or test module that opens one (``FileNotFoundError`` naming a
  manifest destination) is skipped, the reason naming the file, its repository and
  commit, and the mirror directory looked in;
- the tests listed under ``readers`` in the manifest (node id patterns: tests that list
  a directory of recorded files rather than open them by name) skip while any file
  under their directories is missing; likewise a test left with an empty parameter set.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Generator, Iterable
from functools import cache

import pytest
from recordings import build  # type: ignore[import-not-found,unused-ignore]

ROOT = build.ROOT


@cache
def _entries() -> dict[str, build.Entry]:
    """Every manifest entry by its destination's real path."""
    return {os.path.realpath(ROOT / entry.dest): entry for entry in build.load_manifest()}


@cache
def _readers() -> list[tuple[str, tuple[str, ...]]]:
    """Tests that list recorded directories: (node id pattern, destination prefixes)."""
    import yaml  # type: ignore[import-untyped]

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    document = yaml.load(build.MANIFEST.read_bytes(), Loader=loader)
    return [(item["tests"], tuple(item["reads"])) for item in document.get("readers") or []]


@cache
def _complete() -> bool:
    """Whether the last build made every file and they are unchanged (no manifest read)."""
    complete: bool = build.up_to_date(build.mirror_root(), build._digest(build.INPUTS))
    return complete


def _reason(entries: Iterable[build.Entry]) -> str:
    """Why tests needing ``entries`` skip: what is missing and where it would come from."""
    entries = list(entries)
    sources = sorted({(entry.repo, entry.commit) for entry in entries})
    where = "; ".join(
        f"{repo} at {commit[:12]} (looked for in {build.git_dir(repo)})" for repo, commit in sources
    )
    what = f"{entries[0].dest} is" if len(entries) == 1 else f"{len(entries)} files are"
    return (
        f"recorded payload not materialized: {what} made from {where} by "
        "tests/recordings/build.py; fetch the repository at that commit into "
        "$CHATSCHEMA_MIRROR and run it"
    )


def _missing(prefixes: tuple[str, ...] | None = None) -> list[build.Entry]:
    """Manifest entries whose destination is missing (under ``prefixes`` if given)."""
    if _complete():
        return []
    return [
        entry
        for path, entry in _entries().items()
        if (prefixes is None or entry.dest.startswith(prefixes)) and not os.path.exists(path)
    ]


def _recorded(error: BaseException) -> build.Entry | None:
    """The manifest entry a ``FileNotFoundError`` is about, if any."""
    if not isinstance(error, FileNotFoundError) or not error.filename:
        return None
    return _entries().get(os.path.realpath(str(error.filename)))


def _skip_if_recorded(error: BaseException) -> None:
    """Skip (raise) when ``error`` is a missing recorded payload."""
    entry = _recorded(error)
    if entry is not None:
        pytest.skip(_reason([entry]))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    """A fixture that opens a missing recorded payload skips its test."""
    try:
        return (yield)
    except FileNotFoundError as error:
        _skip_if_recorded(error)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A test that opens a missing recorded payload skips."""
    try:
        return (yield)
    except FileNotFoundError as error:
        _skip_if_recorded(error)
        raise


@pytest.hookimpl(tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport | None:
    """A test module that opens a missing recorded payload on import is skipped."""
    if not isinstance(collector, pytest.Module):
        return None
    try:
        collector.obj  # noqa: B018  (imports the module; pytest keeps it)
    except FileNotFoundError as error:
        entry = _recorded(error)
        if entry is None:
            return None
        where = (str(collector.path), 0, "Skipped: " + _reason([entry]))
        return pytest.CollectReport(collector.nodeid, "skipped", where, [])
    except (Exception, pytest.skip.Exception):
        return None  # pytest's own collection reports it
    return None


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Skip the tests ``readers`` lists, and tests left without parameters, while
    recorded files they would list are missing."""
    if _complete():
        return
    empty = [
        item
        for item in items
        if any(
            str(mark.kwargs.get("reason", "")).startswith("got empty parameter set")
            for mark in item.iter_markers("skip")
        )
    ]
    missing = _missing() if empty else []
    for item in empty if missing else []:
        item.add_marker(pytest.mark.skip(reason=_reason(missing)), append=False)
    # the more precise reason, added last, is the one shown
    for pattern, prefixes in _readers():
        chosen = [item for item in items if fnmatch.fnmatchcase(item.nodeid, pattern)]
        missing = _missing(prefixes) if chosen else []
        for item in chosen if missing else []:
            item.add_marker(pytest.mark.skip(reason=_reason(missing)), append=False)
