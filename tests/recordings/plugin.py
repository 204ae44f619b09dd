"""pytest plugin: a test whose recorded payload is not materialized skips, visibly.

Recorded payloads are made by ``tests/recordings/build.py`` (``make recordings``) and
never committed (``manifest.yaml``); on a new machine they may be absent. The tests
over them are parametrized from the manifest (``tests/recorded.py``), so each is
collected whether its file is there or not; when it runs:

- a test, fixture or test module that opens an absent recorded file
  (``FileNotFoundError`` naming a manifest destination) is skipped, the reason naming
  the file, its repository and commit, and ``make recordings``;
- with ``CHATSCHEMA_RECORDINGS=required`` it fails instead (a release check);
- the run ends with one line saying how many recorded files were present and how many
  tests skipped for want of one.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from functools import cache

import pytest
from recordings import build  # type: ignore[import-not-found,unused-ignore]

ROOT = build.ROOT
PREFIX = "recorded payload not materialized: "
"""How the skip reasons of this plugin begin (the closing line counts them)."""
REQUIRED = os.environ.get("CHATSCHEMA_RECORDINGS", "").strip().lower() == "required"
"""``CHATSCHEMA_RECORDINGS=required``: an absent recorded file fails its test."""


@cache
def _entries() -> dict[str, build.Entry]:
    """Every manifest entry by its destination's real path."""
    return {os.path.realpath(ROOT / entry.dest): entry for entry in build.load_manifest()}


def _reason(entry: build.Entry) -> str:
    """Why a test needing ``entry`` does not run, and what makes the file."""
    return (
        f"{PREFIX}{entry.dest} (cut from {entry.repo} at {entry.commit[:12]}); "
        "`make recordings` makes it (tests/recordings/README.md)"
    )


def _recorded(error: BaseException) -> build.Entry | None:
    """The manifest entry a ``FileNotFoundError`` is about, if any."""
    if not isinstance(error, FileNotFoundError) or not error.filename:
        return None
    return _entries().get(os.path.realpath(str(error.filename)))


def _skip_if_recorded(error: BaseException) -> None:
    """Skip (or, when required, fail) when ``error`` is an absent recorded payload."""
    entry = _recorded(error)
    if entry is None:
        return
    if REQUIRED:
        pytest.fail(_reason(entry) + " [CHATSCHEMA_RECORDINGS=required]", pytrace=False)
    pytest.skip(_reason(entry))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Generator[None, None, None]:
    """A fixture that opens an absent recorded payload skips its test."""
    try:
        return (yield)
    except FileNotFoundError as error:
        _skip_if_recorded(error)
        raise


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """A test that opens an absent recorded payload skips."""
    try:
        return (yield)
    except FileNotFoundError as error:
        _skip_if_recorded(error)
        raise


@pytest.hookimpl(tryfirst=True)
def pytest_make_collect_report(collector: pytest.Collector) -> pytest.CollectReport | None:
    """A test module that opens an absent recorded payload on import is skipped (the
    suites read recorded files only when a test runs; this keeps a slip visible)."""
    if not isinstance(collector, pytest.Module):
        return None
    try:
        collector.obj  # noqa: B018  (imports the module; pytest keeps it)
    except FileNotFoundError as error:
        entry = _recorded(error)
        if entry is None or REQUIRED:
            return None  # pytest's own collection reports the error
        reason = f"{_reason(entry)}; the whole module, read on import"
        where = (str(collector.path), 0, "Skipped: " + reason)
        return pytest.CollectReport(collector.nodeid, "skipped", where, [])
    except (Exception, pytest.skip.Exception):
        return None  # pytest's own collection reports it
    return None


class _Counter:
    """Tests skipped for an absent recorded file, counted from their reports."""

    skipped = 0


def _ours(report: pytest.TestReport | pytest.CollectReport) -> bool:
    """Whether a report is a skip of this plugin's."""
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else ""
    return report.skipped and str(reason).removeprefix("Skipped: ").startswith(PREFIX)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Count a test skipped by this plugin."""
    _Counter.skipped += _ours(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    """Count a module skipped by this plugin (as one)."""
    _Counter.skipped += _ours(report)


def summary() -> str:
    """The closing line: recorded files present, and tests skipped for the others."""
    import recorded  # type: ignore[import-not-found,unused-ignore]

    total = len(_entries())
    present = sum(os.path.exists(path) for path in _entries())
    line = f"recorded traffic: {present:,} of {total:,} files present"
    if present < total:
        line += f": {_Counter.skipped:,} tests skipped"
        if recorded.LEFT_OUT:
            files = "file" if len(recorded.LEFT_OUT) == 1 else "files"
            line += f", {len(recorded.LEFT_OUT):,} {files} left out of the fuzz seed pools"
        line += " (make recordings)"
    return line


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say how much of the recorded traffic the run had, as its last line."""
    terminalreporter.write_line(summary())
