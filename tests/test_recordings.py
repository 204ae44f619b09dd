"""The recorded payloads materialized by ``tests/recordings/build.py``.

Files cut from mirrored public repositories are never committed: each is listed in
``tests/recordings/manifest.yaml`` and made at test time. These tests hold the manifest
to that: every destination is ignored by git and tracked by none, has a recipe and a
sha256, a materialized file has exactly its recorded bytes, and the README of each
directory holding such files says how they are made.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from recordings import build  # type: ignore[import-not-found,unused-ignore]

ROOT = Path(__file__).resolve().parent.parent
ENTRIES = build.load_manifest()


def _git(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    """A git command in the checkout (skips when this is no git checkout)."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    return subprocess.run(
        ["git", "-C", str(ROOT), *args], input=stdin, capture_output=True, text=True
    )


def test_entries_are_complete_and_unique() -> None:
    """Each entry names a recipe that exists, a pinned commit, paths and a sha256."""
    recipes = build._load("chatschema_recordings_recipes", build.HERE / "recipes.py")
    dests = [entry.dest for entry in ENTRIES]
    assert len(dests) == len(set(dests))
    for entry in ENTRIES:
        assert entry.recipe in recipes.RECIPES, entry.dest
        assert re.fullmatch(r"[0-9a-f]{40}", entry.commit), entry.dest
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", entry.repo), entry.dest
        assert entry.paths and all(entry.paths), entry.dest
        assert entry.sha256 is not None and re.fullmatch(r"[0-9a-f]{64}", entry.sha256)
        assert entry.dest.startswith(("tests/", "examples/")), entry.dest
        assert not entry.dest.endswith("README.md"), entry.dest


def test_every_destination_is_ignored_and_untracked() -> None:
    """git ignores every materialized file and tracks none of them."""
    listing = "\n".join(entry.dest for entry in ENTRIES) + "\n"
    ignored = _git("check-ignore", "--no-index", "--stdin", stdin=listing).stdout.split()
    assert sorted(set(ignored)) == sorted(entry.dest for entry in ENTRIES)
    tracked = _git("ls-files", "--", *{str(Path(e.dest).parent) for e in ENTRIES}).stdout
    assert not set(tracked.split()) & {entry.dest for entry in ENTRIES}


def test_materialized_files_have_their_recorded_bytes() -> None:
    """A materialized file is byte for byte what its recipe made (never edited by hand)."""
    present = [entry for entry in ENTRIES if (ROOT / entry.dest).exists()]
    if not present:
        pytest.skip(f"nothing materialized (no mirror at {build.mirror_root()})")
    for entry in present:
        digest = hashlib.sha256((ROOT / entry.dest).read_bytes()).hexdigest()
        assert digest == entry.sha256, f"{entry.dest}: run tests/recordings/build.py"


def test_each_directory_readme_says_how_its_files_are_made() -> None:
    """The README next to materialized files names the build script and the source."""
    directories: dict[Path, set[str]] = {}
    for entry in ENTRIES:
        folder = (ROOT / entry.dest).parent
        if folder.parent.name == "traffic":
            folder = folder.parent  # one README for the corpus's format directories
        directories.setdefault(folder, set()).add(entry.repo)
    for folder, repos in directories.items():
        readme = (folder / "README.md").read_text(encoding="utf-8")
        assert "tests/recordings/build.py" in readme, folder
        for repo in repos:
            assert repo in readme, (folder, repo)


def test_readers_name_existing_test_modules() -> None:
    """Each ``readers`` pattern of the manifest names a test module that exists and
    directories that hold manifest destinations."""
    import yaml  # type: ignore[import-untyped,unused-ignore]

    document = yaml.safe_load(build.MANIFEST.read_text(encoding="utf-8"))
    for reader in document["readers"]:
        module = reader["tests"].split("::", 1)[0]
        assert (ROOT / module).is_file(), module
        for prefix in reader["reads"]:
            assert any(entry.dest.startswith(prefix) for entry in ENTRIES), prefix
