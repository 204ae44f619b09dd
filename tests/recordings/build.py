"""Materialize the recorded payloads the tests read, from mirrored repositories.

Usage::

    python tests/recordings/build.py            # make what is missing or stale
    python tests/recordings/build.py --verbose  # also list each file not made
    python tests/recordings/build.py --record   # write the sha256 of what is made
                                                # into manifest.yaml (new entries)

Recorded payloads (provider traffic, SDK fixtures) are cut from public repositories
and are never committed here: ``manifest.yaml`` names, for every such file, its
destination, the source repository, the pinned commit, the source path(s) and the
recipe (a function of ``recipes.py``) that makes it, and the sha256 of the result.
This script reads the sources with git from ``$CHATSCHEMA_MIRROR`` (default
``/work/.mirror``; a repository ``owner/name`` is the git directory
``<mirror>/<owner>+<name>/repo``), and writes each destination only when it is
missing or differs. A file whose source repository or commit is absent is reported
and not made (exit status 0: the tests that need it skip); a recipe whose output does
not have the recorded sha256 is an error (exit status 1) and nothing is written for it.

When every destination is as the last run left it (``.stamp``: the manifest, recipes
and this script's hash, the mirror, and each file's size and mtime), nothing is read.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MANIFEST = HERE / "manifest.yaml"
STAMP = HERE / ".stamp"
DEFAULT_MIRROR = "/work/.mirror"
INPUTS = (
    MANIFEST,
    HERE / "recipes.py",
    Path(__file__).resolve(),
    ROOT / "tests" / "traffic" / "extract.py",
)
"""What the materialized bytes depend on, besides the mirror."""


@dataclass(frozen=True)
class Entry:
    """One materialized file of the manifest."""

    dest: str
    repo: str
    commit: str
    paths: tuple[str, ...]
    recipe: str
    args: dict[str, Any]
    sha256: str | None


def mirror_root() -> Path:
    """The directory holding the mirrored repositories."""
    return Path(os.environ.get("CHATSCHEMA_MIRROR") or DEFAULT_MIRROR)


def git_dir(repo: str, mirror: Path | None = None) -> Path:
    """The git directory of ``owner/name`` in the mirror."""
    return (mirror or mirror_root()) / repo.replace("/", "+") / "repo"


def load_manifest(path: Path = MANIFEST) -> list[Entry]:
    """The entries of ``manifest.yaml`` (a C YAML loader when PyYAML has libyaml)."""
    import yaml  # type: ignore[import-untyped]

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    document = yaml.load(path.read_bytes(), Loader=loader)
    entries = []
    for item in document["files"]:
        paths = item["paths"]
        for key in ("dest", "commit", "sha256"):
            if not isinstance(item.get(key), (str, type(None))):
                raise SystemExit(f"{path.name}: {item.get('dest')}: quote its {key} (a string)")
        entries.append(
            Entry(
                dest=item["dest"],
                repo=item["repo"],
                commit=item["commit"],
                paths=tuple([paths] if isinstance(paths, str) else paths),
                recipe=item["recipe"],
                args=item.get("args") or {},
                sha256=item.get("sha256"),
            )
        )
    return entries


def _digest(paths: Iterable[Path]) -> str:
    """The sha256 of the contents of ``paths``, in order."""
    digest = hashlib.sha256()
    for path in paths:
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _load(name: str, path: Path) -> ModuleType:
    """A module from a file, under ``name`` (this directory is no package)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sha256(path: Path) -> str | None:
    """A file's sha256, or None when it does not exist."""
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except FileNotFoundError:
        return None


# ------------------------------------------------------------------ reading the mirror


class GitReader:
    """Reads blobs of one git directory through a single ``git cat-file --batch``."""

    def __init__(self, directory: Path) -> None:
        self.process = subprocess.Popen(
            ["git", "--git-dir", str(directory), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )

    def read(self, name: str) -> tuple[str, bytes] | None:
        """``(type, content)`` of the object ``name`` (``<commit>:<path>``), or None."""
        assert self.process.stdin is not None and self.process.stdout is not None
        if "\n" in name:
            return None
        self.process.stdin.write(name.encode("utf-8") + b"\n")
        self.process.stdin.flush()
        header = self.process.stdout.readline().decode("utf-8").split()
        if len(header) != 3 or not header[2].isdigit():
            return None  # "<name> missing" or "<name> ambiguous"
        content = self.process.stdout.read(int(header[2]) + 1)[:-1]
        return header[1], content

    def close(self) -> None:
        """End the git process."""
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait()


@dataclass
class Snapshot:
    """One repository at one commit: what the recipes of its entries read."""

    reader: GitReader
    commit: str
    texts: dict[str, str] = field(default_factory=dict)
    parsed: dict[str, Any] = field(default_factory=dict)

    def text(self, path: str) -> str:
        """A file's text at the commit."""
        if path not in self.texts:
            found = self.reader.read(f"{self.commit}:{path}")
            if found is None or found[0] != "blob":
                raise FileNotFoundError(f"{path} is not in the repository at {self.commit}")
            self.texts[path] = found[1].decode("utf-8")
        return self.texts[path]

    def yaml(self, path: str) -> Any:
        """A file parsed as YAML at the commit (parsed once)."""
        if path not in self.parsed:
            import yaml

            loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
            self.parsed[path] = yaml.load(self.text(path), Loader=loader)
        return self.parsed[path]


@dataclass
class EntrySource:
    """The source files of one entry (the ``Source`` the recipes take)."""

    snapshot: Snapshot
    paths: tuple[str, ...]

    def text(self, path: str) -> str:
        """A source file's text."""
        return self.snapshot.text(path)

    def yaml(self, path: str) -> Any:
        """A source file parsed as YAML."""
        return self.snapshot.yaml(path)


# ------------------------------------------------------------------ the stamp


def _stamp(entries: list[Entry], mirror: Path, inputs: str, complete: bool) -> dict[str, Any]:
    """What the stamp records: the inputs' hash, the mirror, whether every file was
    made, and each destination's size and mtime."""
    files: dict[str, list[int]] = {}
    for entry in entries:
        try:
            stat = (ROOT / entry.dest).stat()
        except FileNotFoundError:
            continue
        files[entry.dest] = [stat.st_size, stat.st_mtime_ns]
    return {"inputs": inputs, "mirror": str(mirror), "complete": complete, "files": files}


def up_to_date(mirror: Path, inputs: str) -> bool:
    """Whether the stamp says every destination is as the last complete build left it."""
    try:
        stamp = json.loads(STAMP.read_text(encoding="utf-8"))
    except (FileNotFoundError, ValueError):
        return False
    if stamp.get("inputs") != inputs or stamp.get("mirror") != str(mirror):
        return False
    for dest, (size, mtime) in stamp.get("files", {}).items():
        try:
            stat = (ROOT / dest).stat()
        except FileNotFoundError:
            return False
        if stat.st_size != size or stat.st_mtime_ns != mtime:
            return False
    return bool(stamp.get("complete"))


# ------------------------------------------------------------------ building


def _write(path: Path, data: bytes) -> None:
    """Write ``data`` at ``path`` atomically (its directory made when needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_bytes(data)
    os.replace(partial, path)


def _missing_source(entry: Entry, mirror: Path, commits: dict[tuple[str, str], bool]) -> bool:
    """Whether the entry's repository or commit is absent from the mirror."""
    key = (entry.repo, entry.commit)
    if key not in commits:
        directory = git_dir(entry.repo, mirror)
        commit = f"{entry.commit}^{{commit}}"
        command = ["git", "--git-dir", str(directory), "cat-file", "-e", commit]
        commits[key] = (
            directory.is_dir() and subprocess.run(command, capture_output=True).returncode == 0
        )
    return not commits[key]


@dataclass
class Result:
    """What a build did."""

    counts: dict[str, int] = field(
        default_factory=lambda: {"made": 0, "kept": 0, "absent": 0, "failed": 0}
    )
    problems: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    """Destinations whose source is not in the mirror."""
    digests: dict[str, str] = field(default_factory=dict)
    """sha256 of each destination made (or found as made)."""


def build(entries: list[Entry], mirror: Path, record: bool = False) -> Result:
    """Make every entry that is missing or differs from its recorded sha256.

    With ``record``, an output is written even when its sha256 is not the recorded
    one (``Result.digests`` then holds the new values for the manifest)."""
    recipes = _load("chatschema_recordings_recipes", HERE / "recipes.py")
    result = Result()
    counts = result.counts
    absent: dict[tuple[str, str], list[str]] = defaultdict(list)
    commits: dict[tuple[str, str], bool] = {}
    readers: dict[str, GitReader] = {}
    snapshots: dict[tuple[str, str], Snapshot] = {}
    try:
        for entry in entries:
            target = ROOT / entry.dest
            if entry.sha256 is not None and _sha256(target) == entry.sha256 and not record:
                counts["kept"] += 1
                continue
            if _missing_source(entry, mirror, commits):
                counts["absent"] += 1
                absent[(entry.repo, entry.commit)].append(entry.dest)
                continue
            key = (entry.repo, entry.commit)
            if key not in snapshots:
                if entry.repo not in readers:
                    readers[entry.repo] = GitReader(git_dir(entry.repo, mirror))
                snapshots[key] = Snapshot(readers[entry.repo], entry.commit)
            source = EntrySource(snapshots[key], entry.paths)
            try:
                data = recipes.RECIPES[entry.recipe](source, **entry.args)
            except FileNotFoundError as error:  # a snapshot without that file's blob
                counts["absent"] += 1
                result.problems.append(f"not made: {entry.dest}: {error}")
                result.absent.append(entry.dest)
                continue
            except Exception as error:  # a recipe or source problem: reported, not raised
                counts["failed"] += 1
                result.problems.append(f"{entry.dest}: {entry.recipe} failed: {error!r}")
                continue
            digest = hashlib.sha256(data).hexdigest()
            if entry.sha256 is not None and digest != entry.sha256 and not record:
                counts["failed"] += 1
                result.problems.append(
                    f"{entry.dest}: {entry.recipe} gave sha256 {digest[:16]}, "
                    f"the manifest records {entry.sha256[:16]}; not written"
                )
                continue
            if _sha256(target) != digest:
                _write(target, data)
                counts["made"] += 1
            else:
                counts["kept"] += 1
            result.digests[entry.dest] = digest
    finally:
        for reader in readers.values():
            reader.close()
    for (repo, commit), dests in sorted(absent.items()):
        result.problems.append(
            f"not made: {len(dests)} file(s) from {repo} at {commit[:12]} "
            f"(no {git_dir(repo, mirror)} with that commit): {_summary(dests)}"
        )
        result.absent.extend(dests)
    return result


def _summary(dests: list[str]) -> str:
    """Destinations, or their directories with counts when there are many."""
    if len(dests) <= 4:
        return ", ".join(dests)
    by_dir: dict[str, int] = defaultdict(int)
    for dest in dests:
        by_dir[dest.rsplit("/", 1)[0] + "/"] += 1
    return ", ".join(f"{count} in {directory}" for directory, count in sorted(by_dir.items()))


def write_digests(entries: list[Entry], digests: dict[str, str]) -> int:
    """Write ``digests`` as the ``sha256`` lines of manifest.yaml (the n-th such line
    belongs to the n-th entry); returns how many lines changed."""
    lines = MANIFEST.read_text(encoding="utf-8").splitlines(keepends=True)
    numbers = [n for n, line in enumerate(lines) if line.lstrip().startswith("sha256:")]
    if len(numbers) != len(entries):
        raise SystemExit(f"{MANIFEST.name}: every entry needs a sha256 line (may be empty)")
    changed = 0
    for number, entry in zip(numbers, entries, strict=True):
        if entry.dest not in digests:
            continue
        line = lines[number]
        indent = line[: len(line) - len(line.lstrip())]
        new = f"{indent}sha256: {digests[entry.dest]}\n"
        if new != line:
            lines[number] = new
            changed += 1
    MANIFEST.write_text("".join(lines), encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    """The command line; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--verbose", action="store_true", help="list every file not made")
    parser.add_argument("--record", action="store_true", help="write sha256s to the manifest")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    mirror = mirror_root()
    inputs = _digest(INPUTS)
    if not args.record and up_to_date(mirror, inputs):
        elapsed = time.perf_counter() - started
        print(f"recordings: up to date ({elapsed * 1000:.0f} ms)")
        return 0
    entries = load_manifest()
    result = build(entries, mirror, args.record)
    counts = result.counts
    if args.record:
        changed = write_digests(entries, result.digests)
        print(f"recordings: {changed} sha256 line(s) written to {MANIFEST.name}")
        inputs = _digest(INPUTS)
    complete = counts["absent"] == 0 and counts["failed"] == 0
    STAMP.write_text(json.dumps(_stamp(entries, mirror, inputs, complete)), encoding="utf-8")
    elapsed = time.perf_counter() - started
    print(
        f"recordings: {len(entries)} files from {mirror}: {counts['made']} made, "
        f"{counts['kept']} up to date, {counts['absent']} not made (source absent), "
        f"{counts['failed']} failed ({elapsed:.1f} s)"
    )
    for line in result.problems:
        print("recordings: " + line)
    if args.verbose:
        for dest in result.absent:
            print(f"recordings: not made: {dest}")
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
