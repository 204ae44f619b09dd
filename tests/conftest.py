"""Shared test helpers: the conformance fixtures that ship with the schemas, and the
assembly of streamed chunks that every codec's stream tests check."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from chatschema import AssistantMessageChunk, ChunkAccumulator, merge_chunks, to_dict

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "schemas" / "fixtures"

pytest_plugins = ["recordings.plugin"]
"""A test needing a recorded payload that is not materialized skips (tests/recordings)."""


@dataclass(frozen=True)
class Case:
    """One conformance fixture."""

    path: Path
    type: str
    valid: bool
    instance: Any
    errors: frozenset[tuple[str, str]]  # (pointer, keyword) for invalid cases

    @property
    def id(self) -> str:
        return f"{'valid' if self.valid else 'invalid'}/{self.type}/{self.path.stem}"


def load_cases() -> Iterator[Case]:
    """Every fixture under schemas/fixtures, valid ones first."""
    for kind in ("valid", "invalid"):
        for path in sorted((FIXTURES / kind).glob("*/*.json")):
            document = json.loads(path.read_text(encoding="utf-8"))
            if kind == "valid":
                yield Case(path, path.parent.name, True, document, frozenset())
            else:
                errors = frozenset((e["pointer"], e["keyword"]) for e in document["errors"])
                yield Case(path, path.parent.name, False, document["instance"], errors)


CASES = list(load_cases())


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize any test that takes ``case`` with every fixture."""
    if "case" in metafunc.fixturenames:
        metafunc.parametrize("case", CASES, ids=[case.id for case in CASES])


def assembled(chunks: list[AssistantMessageChunk]) -> dict[str, Any]:
    """The message streamed chunks make, as canonical JSON.

    Assembled the three ways a user can (``ChunkAccumulator``, ``merge_chunks`` and
    ``+``), which must agree.
    """
    assert chunks, "the stream gave no chunks"
    accumulator = ChunkAccumulator()
    for chunk in chunks:
        accumulator.add(chunk)
    by_accumulator = to_dict(accumulator.to_message())
    total = chunks[0]
    for chunk in chunks[1:]:
        total = total + chunk
    assert to_dict(total.to_message()) == by_accumulator
    assert to_dict(merge_chunks(chunks).to_message()) == by_accumulator
    return by_accumulator
