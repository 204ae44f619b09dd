"""The recorded payloads materialized by ``tests/recordings/build.py``.

Files cut from mirrored public repositories are never committed: each is listed in
``tests/recordings/manifest.yaml`` and made at test time. These tests hold the manifest
to that: every destination is ignored by git and tracked by none, has a recipe and a
sha256, a materialized file has exactly its recorded bytes, and the README of each
directory holding such files says how they are made.

The build's sources are tested with real git and no network, against a repository made
in a temporary directory: a file made from a mirror is cached and a fresh checkout gets
it from the cache; ``--network`` fetches from a ``file://`` remote; a corrupt cache file
is ignored; a sha256 mismatch is refused and not cached; missing files are reported with
their reason (``--require`` makes that exit status 1), an unreachable remote too.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

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
        pytest.skip("nothing materialized (make recordings)")
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


# ------------------------------------------------------------------ build.py's sources
# Real git, no network: a repository made in tmp_path stands for a public one (as a
# mirror, a file:// remote or both); each build writes under tmp_path only.

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="git is not installed")
REPO = "owner/name"
TEXT = '{"recorded": true}\n'
SHA = hashlib.sha256(TEXT.encode()).hexdigest()


def _copy(source: Any) -> bytes:
    """A recipe: the source file as it is."""
    text: str = source.text(source.paths[0])
    return text.encode("utf-8")


RECIPES = {"copy": _copy}


def _run(*args: str, cwd: Path | None = None) -> str:
    """A git command that must succeed; its output."""
    done = subprocess.run(
        ["git", "-c", "commit.gpgsign=false", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@dataclass
class Sandbox:
    """A public repository (a file:// remote), a mirror of it, a cache, checkouts."""

    tmp: Path
    commit: str
    remote: Path
    mirror: Path
    cache: Path

    def entry(self, dest: str = "tests/out/a.json", sha256: str | None = SHA) -> build.Entry:
        """A manifest entry copying ``data/a.json`` of the repository at the commit."""
        paths = ("data/a.json",)
        return build.Entry(dest, REPO, self.commit, paths, "copy", {}, sha256)

    def build(self, checkout: str, **options: Any) -> Any:
        """A build of ``[entry()]`` (or ``entries``) into the checkout ``checkout``."""
        entries = options.pop("entries", None) or [self.entry()]
        options.setdefault("cache", self.cache)
        root = self.tmp / checkout
        return build.build(
            entries, options.pop("mirror", None), root=root, recipes=RECIPES, **options
        )

    def manifest(self, sha256: str = SHA) -> Path:
        """A manifest of one entry, with keys build.py does not read."""
        path = self.tmp / "recordings" / "manifest.yaml"
        path.parent.mkdir(exist_ok=True)
        path.write_text(
            "files:\n- dest: tests/out/a.json\n  repo: owner/name\n"
            f"  commit: '{self.commit}'\n  paths: data/a.json\n  recipe: copy\n"
            f"  index: [recorded]\n  keys: {{a: 1}}\n  sha256: {sha256}\n",
            encoding="utf-8",
        )
        return path


@pytest.fixture
def sandbox(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Sandbox:
    """The repository holds ``data/a.json`` (and another file) at one commit."""
    if GIT is None:
        pytest.skip("git is not installed")
    remote = tmp_path / "remote" / REPO
    (remote / "data").mkdir(parents=True)
    (remote / "data" / "a.json").write_text(TEXT, encoding="utf-8")
    (remote / "data" / "other.txt").write_text("not needed\n", encoding="utf-8")
    _run("init", "-q", str(remote))
    _run("add", ".", cwd=remote)
    _run("commit", "-q", "-m", "one", cwd=remote)
    _run("config", "uploadpack.allowFilter", "true", cwd=remote)
    _run("config", "uploadpack.allowAnySHA1InWant", "true", cwd=remote)
    commit = _run("rev-parse", "HEAD", cwd=remote)
    mirror = tmp_path / "mirror"
    _run("clone", "-q", "--bare", str(remote), str(mirror / "owner+name" / "repo"))
    monkeypatch.delenv("CHATSCHEMA_MIRROR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CHATSCHEMA_RECORDINGS_REMOTE", f"file://{tmp_path}/remote/{{repo}}")
    cache = tmp_path / "xdg" / "chatschema" / "recordings"
    return Sandbox(tmp_path, commit, remote, mirror, cache)


def test_cache_and_mirror_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cache is under $XDG_CACHE_HOME, else ~/.cache; there is no default mirror."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert build.cache_root() == tmp_path / "chatschema" / "recordings"
    monkeypatch.setenv("XDG_CACHE_HOME", "")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert build.cache_root() == tmp_path / "home" / ".cache" / "chatschema" / "recordings"
    monkeypatch.delenv("CHATSCHEMA_MIRROR", raising=False)
    assert build.mirror_root() is None
    monkeypatch.setenv("CHATSCHEMA_MIRROR", str(tmp_path))
    assert build.mirror_root() == tmp_path
    assert build.mirror_root(tmp_path / "other") == tmp_path / "other"
    monkeypatch.setenv("CHATSCHEMA_RECORDINGS_REMOTE", "file:///x/{repo}.git")
    assert build.remote_url("a/b") == "file:///x/a/b.git"
    monkeypatch.delenv("CHATSCHEMA_RECORDINGS_REMOTE")
    assert build.remote_url("a/b") == "https://github.com/a/b.git"


@needs_git
def test_made_from_a_mirror_then_from_the_cache(sandbox: Sandbox) -> None:
    """What a mirror gives is cached: a fresh checkout then needs no mirror."""
    result = sandbox.build("first", mirror=sandbox.mirror)
    assert result.counts["mirror"] == 1 and result.complete
    assert (sandbox.tmp / "first/tests/out/a.json").read_text(encoding="utf-8") == TEXT
    assert (sandbox.cache / SHA[:2] / SHA).read_text(encoding="utf-8") == TEXT
    result = sandbox.build("second")  # another clone, no mirror
    assert result.counts["cache"] == 1 and result.complete
    assert (sandbox.tmp / "second/tests/out/a.json").read_text(encoding="utf-8") == TEXT
    assert sandbox.build("second").counts["kept"] == 1
    assert [path.name for path in sandbox.cache.rglob("*")] == [SHA[:2], SHA]  # no temp files


@needs_git
def test_made_over_the_network_from_a_file_remote(sandbox: Sandbox) -> None:
    """--network fetches the pinned commit and the entry's blob from the remote
    ($CHATSCHEMA_RECORDINGS_REMOTE), and caches what it made."""
    result = sandbox.build("checkout")
    assert result.counts["missing"] == 1 and not result.complete
    assert "network not asked (--network)" in result.missing[0].reasons
    result = sandbox.build("checkout", network=True)
    assert result.counts["network"] == 1 and result.complete, result
    assert (sandbox.tmp / "checkout/tests/out/a.json").read_text(encoding="utf-8") == TEXT
    assert (sandbox.cache / SHA[:2] / SHA).is_file()
    url = build.remote_url(REPO)
    with build.fetched(url, sandbox.commit, ["data/a.json"], 10) as directory:
        assert (directory / "shallow").read_text(encoding="utf-8").strip() == sandbox.commit
        for path, fetched in (("data/a.json", True), ("data/other.txt", False)):
            blob = _run("--git-dir", str(directory), "rev-parse", f"{sandbox.commit}:{path}")
            there = ["git", "--git-dir", str(directory), "cat-file", "-e", blob]
            env = {**os.environ, "GIT_NO_LAZY_FETCH": "1"}
            assert (subprocess.run(there, capture_output=True, env=env).returncode == 0) is fetched
    assert not directory.exists()


@needs_git
def test_a_corrupt_cache_file_is_ignored(sandbox: Sandbox) -> None:
    """A cache file whose bytes are not its sha256 is never written out, and is replaced."""
    stored = sandbox.cache / SHA[:2] / SHA
    stored.parent.mkdir(parents=True)
    stored.write_text('{"recorded": false}\n', encoding="utf-8")
    result = sandbox.build("checkout")
    assert result.counts["missing"] == 1 and not (sandbox.tmp / "checkout/tests").exists()
    assert "corrupt cache file" in " ".join(result.notes) and not stored.exists()
    stored.write_text("bad", encoding="utf-8")
    result = sandbox.build("checkout", mirror=sandbox.mirror)
    assert result.counts["mirror"] == 1 and result.complete
    assert stored.read_text(encoding="utf-8") == TEXT


@needs_git
def test_a_sha256_mismatch_is_refused_and_not_cached(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    """A recipe output without the recorded sha256 is an error: not written, not cached."""
    wrong = hashlib.sha256(b"something else").hexdigest()
    result = sandbox.build("checkout", mirror=sandbox.mirror, entries=[sandbox.entry(sha256=wrong)])
    assert result.counts["failed"] == 1 and result.counts["mirror"] == 0
    assert "not written" in result.problems[0]
    assert not (sandbox.tmp / "checkout/tests").exists() and not sandbox.cache.exists()
    manifest = sandbox.manifest(wrong)
    status = build.main(
        ["--mirror", str(sandbox.mirror)],
        manifest=manifest,
        root=sandbox.tmp / "co",
        recipes=RECIPES,
    )
    assert status == 1 and "1 failed" in capsys.readouterr().out


@needs_git
def test_missing_files_are_reported_with_their_reason(
    sandbox: Sandbox, capsys: pytest.CaptureFixture[str]
) -> None:
    """Files no source gives are reported by repository and commit, with why and what
    to do; the status is 0 (tests skip), 1 with --require; the stamp is incomplete until
    a source gives them."""
    manifest, root = sandbox.manifest(), sandbox.tmp / "co"
    stamp = manifest.parent / ".stamp"
    assert build.load_manifest(manifest) == [sandbox.entry()]  # extra keys ignored
    assert build.main([], manifest=manifest, root=root, recipes=RECIPES) == 0
    out = capsys.readouterr().out
    assert "0 made" in out and "1 missing" in out
    assert f"missing 1 file(s) from owner/name at {sandbox.commit[:12]}: tests/out/a.json" in out
    assert "no mirror given; network not asked (--network)" in out
    assert "`make recordings`" in out and "--mirror DIR" in out
    assert not build.up_to_date(stamp=stamp, root=root)
    assert build.main(["--require"], manifest=manifest, root=root, recipes=RECIPES) == 1
    empty = sandbox.tmp / "empty"
    empty.mkdir()
    build.main(["--mirror", str(empty)], manifest=manifest, root=root, recipes=RECIPES)
    assert (
        f"the mirror lacks the repository (no {empty}/owner+name/repo)" in capsys.readouterr().out
    )
    missing = sandbox.manifest().read_text(encoding="utf-8").replace(sandbox.commit, "f" * 40)
    manifest.write_text(missing, encoding="utf-8")
    build.main(["--mirror", str(sandbox.mirror)], manifest=manifest, root=root, recipes=RECIPES)
    assert "lacks commit ffffffffffff" in capsys.readouterr().out
    manifest = sandbox.manifest()
    argv = ["--require", "--mirror", str(sandbox.mirror)]
    assert build.main(argv, manifest=manifest, root=root, recipes=RECIPES) == 0
    assert "1 made (0 from cache, 1 from mirror" in capsys.readouterr().out
    assert build.up_to_date(stamp=stamp, root=root)
    assert build.main(["--require"], manifest=manifest, root=root, recipes=RECIPES) == 0
    assert "up to date" in capsys.readouterr().out
    (root / "tests/out/a.json").unlink()
    assert not build.up_to_date(stamp=stamp, root=root)
    assert build.main([], manifest=manifest, root=root, recipes=RECIPES) == 0
    assert "1 made (1 from cache" in capsys.readouterr().out


@needs_git
def test_an_unreachable_remote_is_reported(
    sandbox: Sandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A remote that is not there, or does not answer in time, is a reason given for
    the missing files, not an exception."""
    monkeypatch.setattr(tempfile, "tempdir", str(sandbox.tmp))
    monkeypatch.setenv("CHATSCHEMA_RECORDINGS_REMOTE", f"file://{sandbox.tmp}/nowhere/{{repo}}")
    result = sandbox.build("checkout", network=True)
    (missing,) = result.missing
    assert missing.dests == ["tests/out/a.json"] and missing.fetched
    assert (
        f"network fetch from file://{sandbox.tmp}/nowhere/owner/name failed: "
        in missing.reasons[-1]
    )
    assert "does not appear to be a git repository" in missing.reasons[-1]
    monkeypatch.setenv("CHATSCHEMA_RECORDINGS_REMOTE", "ssh://example.invalid/{repo}")
    monkeypatch.setenv("GIT_SSH_COMMAND", "sleep 10 #")  # a server that never answers
    monkeypatch.setenv("GIT_SSH_VARIANT", "simple")
    started = time.monotonic()
    result = sandbox.build("checkout", network=True, timeout=0.5)
    assert time.monotonic() - started < 5
    assert result.missing[0].reasons[-1].endswith("failed: timed out")
    assert not list(sandbox.tmp.glob("chatschema-recordings-*"))  # the fetches' repositories
