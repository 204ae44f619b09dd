"""Materialize the recorded payloads the tests read, from a cache, a mirror or the network.

Usage::

    python tests/recordings/build.py                # make what is missing or stale
    python tests/recordings/build.py --network      # also fetch sources from their
                                                    # public repositories (make recordings)
    python tests/recordings/build.py --mirror DIR   # read sources from a local mirror
    python tests/recordings/build.py --require      # exit status 1 if any file is missing
    python tests/recordings/build.py --verbose      # also list each file not made
    python tests/recordings/build.py --record       # write the sha256 of what is made
                                                    # into manifest.yaml (new entries)

Recorded payloads (provider traffic, SDK fixtures) are cut from public repositories
and are never committed here: ``manifest.yaml`` names, for every such file, its
destination, the source repository, the pinned commit, the source path(s) and the
recipe (a function of ``recipes.py``) that makes it, and the sha256 of the result.

Each destination that is missing or differs is taken, in this order, from:

1. the cache, ``$XDG_CACHE_HOME/chatschema/recordings`` (else
   ``~/.cache/chatschema/recordings``): every file made before on this machine, stored
   under its sha256 and checked against it when read (a corrupt one is ignored);
2. a mirror, ``--mirror DIR`` or ``$CHATSCHEMA_MIRROR`` (none by default): repository
   ``owner/name`` is the git directory ``DIR/owner+name/repo``;
3. with ``--network`` only, the public repository itself (``https://github.com/{repo}.git``,
   or the template ``$CHATSCHEMA_RECORDINGS_REMOTE``): a shallow, partial fetch of the
   pinned commit and just the entry's source files, into a temporary repository.

What a recipe makes from a mirror or the network must have the manifest's sha256; it is
then written and stored in the cache, so a later checkout on this machine needs neither.
A file that no source can give is reported with the reason and not made (exit status 0:
the tests that need it skip; 1 with ``--require``); a recipe that fails or whose output
does not have the recorded sha256 is an error (exit status 1) and nothing is written or
cached for it.

When the last build made every file and each is as it left it (``.stamp``: the hash of
the manifest, recipes and this script, and each file's size and mtime), nothing is read.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import signal
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
MANIFEST = HERE / "manifest.yaml"
STAMP = HERE / ".stamp"
INPUTS = (
    MANIFEST,
    HERE / "recipes.py",
    Path(__file__).resolve(),
    ROOT / "tests" / "traffic" / "extract.py",
)
"""What the materialized bytes depend on, besides the sources."""

MIRROR_ENV = "CHATSCHEMA_MIRROR"
REMOTE_ENV = "CHATSCHEMA_RECORDINGS_REMOTE"
DEFAULT_REMOTE = "https://github.com/{repo}.git"
NETWORK_TIMEOUT = 300.0
"""Seconds one repository's fetch (every git command of it) may take."""

Recipe = Callable[..., bytes]


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


def mirror_root(option: str | os.PathLike[str] | None = None) -> Path | None:
    """The directory holding the mirrored repositories: ``option`` (``--mirror``), else
    ``$CHATSCHEMA_MIRROR``, else None (no mirror)."""
    value = os.fspath(option) if option is not None else os.environ.get(MIRROR_ENV)
    return Path(value).expanduser().absolute() if value else None


def cache_root() -> Path:
    """The cache of made files: ``$XDG_CACHE_HOME/chatschema/recordings`` when that
    variable is set and not empty, else ``~/.cache/chatschema/recordings``."""
    base = os.environ.get("XDG_CACHE_HOME")
    return (
        (Path(base).expanduser() if base else Path.home() / ".cache") / "chatschema" / "recordings"
    )


def remote_url(repo: str) -> str:
    """The URL ``--network`` fetches ``owner/name`` from (``$CHATSCHEMA_RECORDINGS_REMOTE``
    with ``{repo}`` replaced, else GitHub)."""
    return (os.environ.get(REMOTE_ENV) or DEFAULT_REMOTE).replace("{repo}", repo)


def git_dir(repo: str, mirror: Path | None = None) -> Path:
    """The git directory of ``owner/name`` in ``mirror`` (default :func:`mirror_root`;
    with no mirror at all, spelled under ``$CHATSCHEMA_MIRROR``, for messages)."""
    base = mirror or mirror_root() or Path("$" + MIRROR_ENV)
    return base / repo.replace("/", "+") / "repo"


def load_manifest(path: Path = MANIFEST) -> list[Entry]:
    """The entries of ``manifest.yaml`` (a C YAML loader when PyYAML has libyaml); keys
    an entry has besides the :class:`Entry` fields are ignored."""
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


def _inputs(manifest: Path = MANIFEST) -> str:
    """The digest of :data:`INPUTS`, with ``manifest`` as the manifest."""
    return _digest(manifest if path == MANIFEST else path for path in INPUTS)


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


def _write(path: Path, data: bytes, partial: str | None = None) -> None:
    """Write ``data`` at ``path`` atomically: a temporary file of its directory (named
    ``partial``, else ``.<unique>.<name>.part``), then renamed (directory made when
    needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(partial or f".{os.getpid()}-{os.urandom(4).hex()}.{path.name}.part")
    try:
        with open(temporary, "xb") as file:
            file.write(data)
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


# ------------------------------------------------------------------ the cache


class Cache:
    """Made files by sha256: ``<root>/<sha[:2]>/<sha>``, verified when read."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.corrupt: list[Path] = []
        """Cache files whose content did not have their name's sha256 (removed)."""
        self.error: str | None = None
        """The first error writing to the cache (the build goes on without it)."""

    def path(self, sha256: str) -> Path:
        """Where the file of ``sha256`` is stored."""
        return self.root / sha256[:2] / sha256

    def get(self, sha256: str) -> bytes | None:
        """The stored file of ``sha256``, or None when absent or corrupt."""
        path = self.path(sha256)
        try:
            data = path.read_bytes()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() == sha256:
            return data
        self.corrupt.append(path)
        with suppress(OSError):
            path.unlink()
        return None

    def has(self, sha256: str) -> bool:
        """Whether a file of ``sha256`` is stored (unverified)."""
        return self.path(sha256).is_file()

    def put(self, sha256: str, data: bytes) -> None:
        """Store ``data`` (whose sha256 the caller checked) atomically; an error is kept
        in :attr:`error`, not raised."""
        path = self.path(sha256)
        try:
            _write(path, data, f".{sha256}.{os.getpid()}-{os.urandom(4).hex()}.tmp")
        except OSError as error:
            self.error = self.error or f"cannot write {path}: {error.strerror or error}"


# ------------------------------------------------------------------ reading git


def _git_env(**extra: str) -> dict[str, str]:
    """The environment of the git commands: no prompt, C messages, none of the caller's
    repository variables, no lazy fetch of missing objects (unless ``extra`` says)."""
    env = {key: value for key, value in os.environ.items() if key not in _LOCAL_GIT_VARIABLES}
    env.update(GIT_TERMINAL_PROMPT="0", GCM_INTERACTIVE="never", LC_ALL="C")
    env.setdefault("GIT_HTTP_LOW_SPEED_LIMIT", "1000")  # bytes/s, for ...
    env.setdefault("GIT_HTTP_LOW_SPEED_TIME", "30")  # ... seconds: a stalled connection
    env["GIT_NO_LAZY_FETCH"] = "1"
    env.update(extra)
    return env


_LOCAL_GIT_VARIABLES = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_CEILING_DIRECTORIES",
    }
)


class GitReader:
    """Reads blobs of one git directory through a single ``git cat-file --batch``."""

    def __init__(self, directory: Path) -> None:
        self.process = subprocess.Popen(
            ["git", "--git-dir", str(directory), "cat-file", "--batch"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=_git_env(),
        )

    def read(self, name: str) -> tuple[str, bytes] | None:
        """``(type, content)`` of the object ``name`` (``<commit>:<path>``), or None."""
        assert self.process.stdin is not None and self.process.stdout is not None
        if "\n" in name:
            return None
        try:
            self.process.stdin.write(name.encode("utf-8") + b"\n")
            self.process.stdin.flush()
        except OSError:  # git ended (an object it could not read)
            return None
        header = self.process.stdout.readline().decode("utf-8").split()
        if len(header) != 3 or not header[2].isdigit():
            return None  # "<name> missing" or "<name> ambiguous", or git ended
        content = self.process.stdout.read(int(header[2]) + 1)[:-1]
        return header[1], content

    def close(self) -> None:
        """End the git process."""
        try:
            if self.process.stdin is not None:
                self.process.stdin.close()
        except OSError:
            pass
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


def _has_commit(directory: Path, commit: str) -> bool:
    """Whether the git directory holds ``commit``."""
    command = ["git", "--git-dir", str(directory), "cat-file", "-e", f"{commit}^{{commit}}"]
    return subprocess.run(command, capture_output=True, env=_git_env()).returncode == 0


# ------------------------------------------------------------------ fetching


class FetchError(Exception):
    """A fetch from a public repository failed (the message: git's one-line reason)."""


def _git(arguments: list[str], deadline: float, stdin: bytes = b"") -> bytes:
    """Run git until ``deadline`` (``time.monotonic()``); its stdout. A failure or the
    deadline raises :class:`FetchError` (git and what it started are then killed)."""
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise FetchError("timed out")
    process = subprocess.Popen(
        ["git", *arguments],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=_git_env(),
        start_new_session=True,  # its own process group: remote helpers end with it
    )
    try:
        out, err = process.communicate(stdin, timeout=remaining)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except (AttributeError, OSError):  # no process groups here, or it ended
            process.kill()
        process.communicate()
        raise FetchError("timed out") from None
    if process.returncode != 0:
        raise FetchError(
            _reason(err.decode("utf-8", "replace")) or f"git exited {process.returncode}"
        )
    return out


def _reason(stderr: str) -> str:
    """git's one-line reason in its error output: the first ``fatal:`` or ``error:``
    line, the remote's or its own (without the prefix), else the last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        remote = line.startswith("remote:")
        text = line[len("remote:") :].strip() if remote else line
        for prefix in ("fatal:", "error:"):
            if text.startswith(prefix):
                return ("the remote says: " if remote else "") + text[len(prefix) :].strip()
    return lines[-1] if lines else ""


@contextmanager
def fetched(url: str, commit: str, paths: Iterable[str], timeout: float) -> Iterator[Path]:
    """A temporary bare repository holding ``commit`` of ``url`` (a shallow fetch without
    blobs) and the blobs of ``paths`` at it (one more fetch, of their ids); removed on
    exit. Raises :class:`FetchError` when git fails or ``timeout`` seconds pass."""
    import shutil
    import tempfile

    deadline = time.monotonic() + timeout
    directory = Path(tempfile.mkdtemp(prefix="chatschema-recordings-"))
    try:
        git = ["--git-dir", str(directory)]
        _git(["init", "--quiet", "--bare", str(directory)], deadline)
        _git([*git, "remote", "add", "origin", url], deadline)
        _git([*git, "config", "remote.origin.promisor", "true"], deadline)
        _git([*git, "config", "remote.origin.partialclonefilter", "blob:none"], deadline)
        fetch = [*git, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head"]
        _git([*fetch, "--depth", "1", "--filter=blob:none", "origin", commit], deadline)
        listing = _git([*git, "ls-tree", "-r", "-z", "--full-tree", commit], deadline)
        blobs = {}
        for line in listing.split(b"\0"):
            info, _, name = line.partition(b"\t")
            fields = info.split()
            if len(fields) == 3 and fields[1] == b"blob":
                blobs[name.decode("utf-8", "surrogateescape")] = fields[2].decode("ascii")
        wanted = sorted({blobs[path] for path in paths if path in blobs})
        if wanted:
            by_id = ["--recurse-submodules=no", "--filter=blob:none", "--stdin", "origin"]
            _git(
                ["-c", "fetch.negotiationAlgorithm=noop", *fetch, *by_id],
                deadline,
                stdin="".join(oid + "\n" for oid in wanted).encode("ascii"),
            )
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


# ------------------------------------------------------------------ the stamp


def _stamp(
    entries: list[Entry],
    complete: bool,
    inputs: str,
    sources: Mapping[str, str | bool | None],
    root: Path | None = None,
) -> dict[str, Any]:
    """What the stamp records: the inputs' hash, the sources used, whether every file
    was made, and each destination's size and mtime."""
    files: dict[str, list[int]] = {}
    for entry in entries:
        try:
            stat = ((root or ROOT) / entry.dest).stat()
        except FileNotFoundError:
            continue
        files[entry.dest] = [stat.st_size, stat.st_mtime_ns]
    return {"inputs": inputs, **sources, "complete": complete, "files": files}


def up_to_date(
    _mirror: object = None,
    inputs: str | None = None,
    /,
    *,
    stamp: Path | None = None,
    root: Path | None = None,
) -> bool:
    """Whether the stamp says the last build made every destination and each is as it
    left it, with the same inputs (default: those of :data:`INPUTS`). ``stamp`` and
    ``root`` default to :data:`STAMP` and :data:`ROOT`.

    Call it as ``up_to_date()``; the former ``up_to_date(mirror, inputs)`` still works
    (the mirror no longer matters: a complete build needs no source)."""
    stamp, root = stamp or STAMP, root or ROOT
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if not isinstance(recorded, dict) or not recorded.get("complete"):
        return False
    if recorded.get("inputs") != (inputs or _inputs(stamp.parent / MANIFEST.name)):
        return False
    try:
        for dest, (size, mtime) in recorded["files"].items():
            stat = (root / dest).stat()
            if stat.st_size != size or stat.st_mtime_ns != mtime:
                return False
    except (OSError, KeyError, AttributeError, TypeError, ValueError):
        return False  # a file gone, or a stamp of another shape
    return True


# ------------------------------------------------------------------ building


@dataclass
class Missing:
    """Files of one repository and commit that no source gave, and why."""

    repo: str
    commit: str
    dests: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    fetched: bool = False
    """Whether a fetch over the network was tried."""


@dataclass
class Result:
    """What a build did."""

    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("kept", "cache", "mirror", "network", "missing", "failed"), 0
        )
    )
    """Files up to date, made from each source, missing, failed."""
    problems: list[str] = field(default_factory=list)
    """Errors: recipes that failed or whose output has another sha256."""
    notes: list[str] = field(default_factory=list)
    """What went wrong without failing the build (a corrupt or unwritable cache)."""
    missing: list[Missing] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    """Destinations not made because no source had them."""
    digests: dict[str, str] = field(default_factory=dict)
    """sha256 of each destination made (or found as made)."""

    @property
    def made(self) -> int:
        """Files written, from any source."""
        return self.counts["cache"] + self.counts["mirror"] + self.counts["network"]

    @property
    def complete(self) -> bool:
        """Whether every file is as the manifest records it."""
        return self.counts["missing"] == 0 and self.counts["failed"] == 0


class _Builder:
    """One build: puts entries in place, counting where each came from."""

    def __init__(
        self, recipes: Mapping[str, Recipe], cache: Cache, root: Path, record: bool
    ) -> None:
        self.recipes = recipes
        self.cache = cache
        self.root = root
        self.record = record
        self.result = Result()

    def place(self, entry: Entry, data: bytes, digest: str, origin: str) -> None:
        """Write ``data`` (checked) at the entry's destination, counted under ``origin``
        (``kept`` when the file already had those bytes)."""
        target = self.root / entry.dest
        if _sha256(target) != digest:
            _write(target, data)
            self.result.counts[origin] += 1
        else:
            self.result.counts["kept"] += 1
        self.result.digests[entry.dest] = digest

    def make(self, entries: list[Entry], directory: Path, origin: str) -> list[tuple[Entry, str]]:
        """Make ``entries`` (one repository and commit) from a git directory; returns
        those whose source files it lacks, each with the error."""
        lacking: list[tuple[Entry, str]] = []
        reader = GitReader(directory)
        try:
            snapshot = Snapshot(reader, entries[0].commit)
            for entry in entries:
                try:
                    data = self.recipes[entry.recipe](
                        EntrySource(snapshot, entry.paths), **entry.args
                    )
                except FileNotFoundError as error:  # a snapshot without that blob
                    lacking.append((entry, str(error)))
                    continue
                except Exception as error:  # a recipe or source problem: reported
                    self.result.counts["failed"] += 1
                    self.result.problems.append(f"{entry.dest}: {entry.recipe} failed: {error!r}")
                    continue
                digest = hashlib.sha256(data).hexdigest()
                if entry.sha256 is not None and digest != entry.sha256 and not self.record:
                    self.result.counts["failed"] += 1
                    self.result.problems.append(
                        f"{entry.dest}: {entry.recipe} gave sha256 {digest[:16]}, "
                        f"the manifest records {entry.sha256[:16]}; not written"
                    )
                    continue
                self.place(entry, data, digest, origin)
                self.cache.put(digest, data)
        finally:
            reader.close()
        return lacking


def build(
    entries: list[Entry],
    mirror: Path | None = None,
    record: bool = False,
    *,
    network: bool = False,
    cache: Path | None = None,
    root: Path | None = None,
    recipes: Mapping[str, Recipe] | None = None,
    timeout: float = NETWORK_TIMEOUT,
) -> Result:
    """Make every entry whose destination (under ``root``, default :data:`ROOT`) is
    missing or differs from its recorded sha256: from the cache (directory ``cache``,
    default :func:`cache_root`), else from ``mirror``, else, with ``network``, from the
    public repository (:func:`remote_url`; each repository's fetch given ``timeout``
    seconds).

    With ``record``, every entry is made again from its source, and an output is
    written even when its sha256 is not the recorded one (``Result.digests`` then holds
    the new values for the manifest)."""
    root = root or ROOT
    if recipes is None:
        recipes = _load("chatschema_recordings_recipes", HERE / "recipes.py").RECIPES
    store = Cache(cache or cache_root())
    builder = _Builder(recipes, store, root, record)
    result = builder.result
    pending: dict[tuple[str, str], list[Entry]] = defaultdict(list)
    for entry in entries:
        if record or entry.sha256 is None:
            pending[(entry.repo, entry.commit)].append(entry)
            continue
        try:
            present = (root / entry.dest).read_bytes()
        except FileNotFoundError:
            present = None
        if present is not None and hashlib.sha256(present).hexdigest() == entry.sha256:
            result.counts["kept"] += 1
            result.digests[entry.dest] = entry.sha256
            if not store.has(entry.sha256):  # a file made before the cache was
                store.put(entry.sha256, present)
            continue
        data = store.get(entry.sha256)
        if data is None:
            pending[(entry.repo, entry.commit)].append(entry)
            continue
        _write(root / entry.dest, data)
        result.counts["cache"] += 1
        result.digests[entry.dest] = entry.sha256
    for (repo, commit), group in pending.items():
        missing = Missing(repo, commit)
        if not record:
            missing.reasons.append(f"not in the cache ({store.root})")
        left = [(entry, "") for entry in group]
        if mirror is None:
            missing.reasons.append("no mirror given")
        else:
            directory = git_dir(repo, mirror)
            if not directory.is_dir():
                missing.reasons.append(f"the mirror lacks the repository (no {directory})")
            elif not _has_commit(directory, commit):
                missing.reasons.append(f"the mirror's {directory} lacks commit {commit[:12]}")
            else:
                left = builder.make(group, directory, "mirror")
                if left:
                    missing.reasons.append(f"the mirror's {directory}: {left[0][1]}")
        if left and not network:
            missing.reasons.append("network not asked (--network)")
        elif left:
            url = remote_url(repo)
            missing.fetched = True
            paths = {path for entry, _ in left for path in entry.paths}
            try:
                with fetched(url, commit, paths, timeout) as directory:
                    left = builder.make([entry for entry, _ in left], directory, "network")
                if left:
                    missing.reasons.append(f"fetched from {url}: {left[0][1]}")
            except FetchError as error:
                missing.reasons.append(f"network fetch from {url} failed: {error}")
        if left:
            missing.dests = [entry.dest for entry, _ in left]
            result.missing.append(missing)
            result.absent.extend(missing.dests)
            result.counts["missing"] += len(left)
    if store.corrupt:
        result.notes.append(
            f"ignored {len(store.corrupt)} corrupt cache file(s), e.g. {store.corrupt[0]}"
        )
    if store.error:
        result.notes.append(f"cache not written: {store.error}")
    return result


def _summary(dests: list[str]) -> str:
    """Destinations, or their directories with counts when there are many."""
    if len(dests) <= 4:
        return ", ".join(dests)
    by_dir: dict[str, int] = defaultdict(int)
    for dest in dests:
        by_dir[dest.rsplit("/", 1)[0] + "/"] += 1
    return ", ".join(f"{count} in {directory}" for directory, count in sorted(by_dir.items()))


def report(result: Result, total: int, elapsed: float, verbose: bool = False) -> list[str]:
    """The lines printed after a build: the summary, errors, then what is missing,
    grouped by repository and commit, with why and what to do."""
    counts = result.counts
    lines = [
        f"{total} files: {result.made} made ({counts['cache']} from cache, "
        f"{counts['mirror']} from mirror, {counts['network']} from network), "
        f"{counts['kept']} up to date, {counts['missing']} missing, "
        f"{counts['failed']} failed ({elapsed:.1f} s)"
    ]
    lines += result.problems + result.notes
    for missing in result.missing:
        lines.append(
            f"missing {len(missing.dests)} file(s) from {missing.repo} at "
            f"{missing.commit[:12]}: {_summary(missing.dests)}"
        )
        lines.append("  why: " + "; ".join(missing.reasons))
        url = remote_url(missing.repo)
        fetch = (
            f"run it again once {url} can be reached (or ${REMOTE_ENV} names a copy)"
            if missing.fetched
            else f"`make recordings` (fetches the sources from {url})"
        )
        lines.append(
            f"  to make them: {fetch}, or --mirror DIR (or ${MIRROR_ENV}) with "
            f"DIR/{missing.repo.replace('/', '+')}/repo a git directory holding "
            f"{missing.commit[:12]}; the tests that read them skip meanwhile"
        )
        if verbose:
            lines += [f"  not made: {dest}" for dest in missing.dests]
    return ["recordings: " + line for line in lines]


def write_digests(entries: list[Entry], digests: dict[str, str], manifest: Path = MANIFEST) -> int:
    """Write ``digests`` as the ``sha256`` lines of the manifest (the n-th such line
    belongs to the n-th entry); returns how many lines changed."""
    lines = manifest.read_text(encoding="utf-8").splitlines(keepends=True)
    numbers = [n for n, line in enumerate(lines) if line.lstrip().startswith("sha256:")]
    if len(numbers) != len(entries):
        raise SystemExit(f"{manifest.name}: every entry needs a sha256 line (may be empty)")
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
    manifest.write_text("".join(lines), encoding="utf-8")
    return changed


def main(
    argv: list[str] | None = None,
    *,
    manifest: Path | None = None,
    root: Path | None = None,
    recipes: Mapping[str, Recipe] | None = None,
) -> int:
    """The command line; returns the exit status. ``manifest`` (its ``.stamp`` next to
    it), ``root`` and ``recipes`` let tests build elsewhere."""
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").splitlines()[0],
        epilog="Sources, in order: the cache, the mirror, the network (see the README).",
    )
    parser.add_argument(
        "--mirror", metavar="DIR", help=f"read sources from this mirror (default ${MIRROR_ENV})"
    )
    parser.add_argument(
        "--network",
        action="store_true",
        help=f"fetch sources missing from the cache and mirror over git (${REMOTE_ENV})",
    )
    parser.add_argument("--require", action="store_true", help="exit 1 if any file is missing")
    parser.add_argument(
        "--timeout",
        type=float,
        default=NETWORK_TIMEOUT,
        metavar="SECONDS",
        help=f"for each repository's fetch (default {NETWORK_TIMEOUT:.0f})",
    )
    parser.add_argument("--verbose", action="store_true", help="list every file not made")
    parser.add_argument("--record", action="store_true", help="write sha256s to the manifest")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    manifest, root = manifest or MANIFEST, root or ROOT
    stamp = manifest.parent / STAMP.name
    inputs = _inputs(manifest)
    if not args.record and up_to_date(None, inputs, stamp=stamp, root=root):
        elapsed = time.perf_counter() - started
        print(f"recordings: up to date ({elapsed * 1000:.0f} ms)")
        return 0
    mirror = mirror_root(args.mirror)
    cache = cache_root()
    entries = load_manifest(manifest)
    result = build(
        entries,
        mirror,
        args.record,
        network=args.network,
        cache=cache,
        root=root,
        recipes=recipes,
        timeout=args.timeout,
    )
    if args.record:
        changed = write_digests(entries, result.digests, manifest)
        print(f"recordings: {changed} sha256 line(s) written to {manifest.name}")
        inputs = _inputs(manifest)
        entries = load_manifest(manifest)
    sources = {"mirror": str(mirror) if mirror else None, "cache": str(cache)}
    state = _stamp(entries, result.complete, inputs, sources, root)
    try:
        stamp.write_text(json.dumps(state), encoding="utf-8")
    except OSError as error:
        print(f"recordings: stamp not written: {error}")
    for line in report(result, len(entries), time.perf_counter() - started, args.verbose):
        print(line)
    if result.counts["failed"] or (args.require and result.counts["missing"]):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
