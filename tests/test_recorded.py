"""Recorded files as the suites see them (``tests/recorded.py``, the pytest plugin of
``tests/recordings``): listed and indexed from the manifest, an absent one a skipped
test (a failure under ``CHATSCHEMA_RECORDINGS=required``), counted in the run's
closing line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import recorded
from recordings import build  # type: ignore[import-not-found,unused-ignore]

ROOT = build.ROOT
MANIFEST = recorded._manifest()
DESTS = sorted(MANIFEST)


@pytest.mark.parametrize("dest", DESTS)
def test_the_index_is_what_the_file_holds(dest: str) -> None:
    """The manifest's ``index`` of each file is what the file holds (when present)."""
    document = json.loads((ROOT / dest).read_text(encoding="utf-8"))
    assert recorded.index_of(document) == MANIFEST[dest]["index"], (
        f"{dest}: update its index in tests/recordings/manifest.yaml"
    )


def test_listing_names_every_recorded_file_present_or_not(tmp_path: Path) -> None:
    """A directory's listing holds each manifest destination in it, and the files on
    disk; a pattern selects by name."""
    folders = {str(Path(dest).parent) for dest in DESTS}
    for folder in folders:
        listed = {recorded.relative(path) for path in recorded.listing(ROOT / folder, "*")}
        assert {dest for dest in DESTS if str(Path(dest).parent) == folder} <= listed
    streams = recorded.listing(ROOT / "tests" / "payloads" / "bedrock_converse", "stream_*.json")
    assert streams and all(path.name.startswith("stream_") for path in streams)
    assert streams == sorted(streams)
    assert all(recorded.is_recorded(path) for path in streams)
    # a file of the disk only (committed) is listed too, and indexed from its content
    committed = ROOT / "tests" / "payloads" / "openai_chat" / "stream_text_usage.json"
    assert committed in recorded.listing(committed.parent)
    assert not recorded.is_recorded(committed)
    assert recorded.index(committed) == list(json.loads(committed.read_text()))


def test_lazy_mapping_reads_only_on_use() -> None:
    path = ROOT / "tests" / "payloads" / "anthropic" / "requests.json"
    lazy = recorded.Lazy(path)
    assert list(lazy) == MANIFEST[recorded.relative(path)]["index"]
    assert len(lazy) == len(list(lazy))
    missing = recorded.Lazy(ROOT / "tests" / "traffic" / "no_such_file.json")
    with pytest.raises(FileNotFoundError):  # neither in the manifest nor on disk
        list(missing)


def test_present_keeps_what_exists(tmp_path: Path) -> None:
    """Paths that exist are kept in order; an absent path that is no recording is left
    out without being counted (the end-to-end test below counts an absent recording)."""
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text("{}", encoding="utf-8")
    second.write_text("[]", encoding="utf-8")
    before = set(recorded.LEFT_OUT)
    assert recorded.present([second, tmp_path / "x", first]) == [second, first]
    assert before == recorded.LEFT_OUT


# ------------------------------------------------------------------ the plugin, end to end

CONFTEST = """
import sys
from pathlib import Path

sys.path.insert(0, {tests!r})
from recordings import build

build.ROOT = Path(__file__).resolve().parent  # the recorded files are absent here
pytest_plugins = ["recordings.plugin"]
"""

TESTS = """
import pytest
import recorded
from pathlib import Path

HERE = Path(__file__).resolve().parent
POOL = recorded.present([HERE / {dest!r}])  # a seed pool: the absent file left out


def test_the_pool_left_it_out():
    assert POOL == []


@pytest.mark.parametrize("n", [1, 2])
def test_reads_an_absent_recording(n):
    (HERE / {dest!r}).read_text()


def test_reads_an_absent_plain_file():
    (HERE / "not_recorded.json").read_text()


def test_plain():
    assert True
"""


def _run(tmp_path: Path, required: bool) -> subprocess.CompletedProcess[str]:
    """pytest on a checkout-like directory holding none of the recorded files."""
    (tmp_path / "conftest.py").write_text(
        CONFTEST.format(tests=str(ROOT / "tests")), encoding="utf-8"
    )
    (tmp_path / "test_absent.py").write_text(
        textwrap.dedent(TESTS.format(dest=DESTS[0])), encoding="utf-8"
    )
    env = {key: value for key, value in os.environ.items() if key != "CHATSCHEMA_RECORDINGS"}
    if required:
        env["CHATSCHEMA_RECORDINGS"] = "required"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_an_absent_recording_skips_naming_it_and_the_run_says_so(tmp_path: Path) -> None:
    done = _run(tmp_path, required=False)
    out = done.stdout
    assert "2 skipped" in out and "1 failed" in out and "2 passed" in out, out
    entry = MANIFEST[DESTS[0]]
    assert f"recorded payload not materialized: {DESTS[0]} (cut from {entry['repo']}" in out
    assert "`make recordings` makes it" in out
    # an absent file that is no recording is an error as ever
    assert "FileNotFoundError" in out and "not_recorded.json" in out
    total = len(DESTS)
    closing = (
        f"recorded traffic: 0 of {total:,} files present: 2 tests skipped, "
        "1 file left out of the fuzz seed pools (make recordings)"
    )
    assert closing in out.splitlines(), out


def test_required_recordings_fail_instead(tmp_path: Path) -> None:
    done = _run(tmp_path, required=True)
    out = done.stdout
    assert done.returncode == 1
    assert "3 failed" in out and "2 passed" in out and "skipped" not in out.splitlines()[-1], out
    assert "[CHATSCHEMA_RECORDINGS=required]" in out
