"""What a dataset run did: rows, failures, speed, and statistics totals."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import Any

from chatschema.datasets._rows import STATS
from chatschema.errors import Problem

__all__ = ["PROBLEMS_KEPT", "RowProblem", "Summary"]

PROBLEMS_KEPT = 1000
"""How many problems a :class:`Summary` keeps (the first ones); ``problem_count`` counts all."""


@dataclass(frozen=True)
class RowProblem:
    """One problem of one row: where (input, line or row number) and what."""

    source: str
    position: int
    problem: Problem
    line_based: bool = True

    @property
    def where(self) -> str:
        """``train.jsonl:3`` (a line) or ``train.parquet:row 3``."""
        unit = "" if self.line_based else "row "
        return f"{self.source}:{unit}{self.position}"

    def __str__(self) -> str:
        problem = self.problem
        pointer = problem.pointer or "(root)"
        return f"{self.where}: {pointer}: {problem.message} [{problem.keyword}]"

    def as_dict(self) -> dict[str, Any]:
        """The problem as JSON-ready data (``line`` or ``row``, as the input counts)."""
        return {
            "file": self.source,
            "line" if self.line_based else "row": self.position,
            "pointer": self.problem.pointer,
            "keyword": self.problem.keyword,
            "message": self.problem.message,
        }


_STEP = math.log(1.01)  # token histogram buckets 1% wide: percentiles within 1%


@dataclass
class Summary:
    """The outcome of one run over a dataset.

    Attributes:
        command: ``validate``, ``convert``, ``stats``, ``trim`` or ``redact``.
        rows: rows read.
        failed: rows with problems (invalid, or not converted / analysed).
        problems: the first :data:`PROBLEMS_KEPT` (1,000) problems found, in input
            order, each a :class:`RowProblem` (``str()`` gives the CLI's line).
        problem_count: how many problems were found, over all rows.
        format: the format the rows were read as (given, or detected).
        detected: why that format, when it was detected (else None).
        seconds: wall time of the run.
        jobs: worker processes (local engine) or CPUs (Ray).
        engine: ``local`` or ``ray``.
        output: where results were written, if anywhere.
        totals: ``stats`` only: each statistic summed over the readable rows (the
            ``"totals"`` of :meth:`as_dict`; ``sums`` is its deprecated name).
        peak_rss_kb: local engine: the highest peak resident memory of a process that
            ran batches (a worker; this process with one job), in KiB.
        reported: Ray engine: ``(source, row, False, problems)`` of failed rows (up to
            1,000 per write task; the local engine reports them through ``on_result``).
    """

    command: str
    rows: int = 0
    failed: int = 0
    problems: list[RowProblem] = field(default_factory=list)
    problem_count: int = 0
    format: str | None = None
    detected: str | None = None
    seconds: float = 0.0
    jobs: int = 1
    engine: str = "local"
    output: str | None = None
    totals: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STATS, 0))
    peak_rss_kb: int = 0
    reported: list[tuple[str, int, bool, list[Problem]]] = field(default_factory=list, repr=False)
    _buckets: dict[int, int] = field(default_factory=dict, repr=False)
    _max_tokens: int = field(default=0, repr=False)

    @property
    def sums(self) -> dict[str, int]:
        """Deprecated name of :attr:`totals`."""
        warnings.warn(
            "Summary.sums is deprecated; use Summary.totals", DeprecationWarning, stacklevel=2
        )
        return self.totals

    def add_problems(
        self, source: str, position: int, line_based: bool, problems: list[Problem]
    ) -> None:
        """Count one row's problems; keep them while fewer than :data:`PROBLEMS_KEPT` are."""
        self.problem_count += len(problems)
        room = PROBLEMS_KEPT - len(self.problems)
        for problem in problems[: max(room, 0)]:
            self.problems.append(RowProblem(source, position, problem, line_based))

    @property
    def ok(self) -> int:
        """Rows without problems (valid, converted, analysed)."""
        return self.rows - self.failed

    @property
    def rows_per_second(self) -> float:
        """Throughput of the run."""
        return self.rows / self.seconds if self.seconds > 0 else 0.0

    def add_tokens(self, counts: list[int]) -> None:
        """Count rows' token totals into the histogram (bounded memory)."""
        for count in counts:
            bucket = int(math.log1p(count) / _STEP)
            self._buckets[bucket] = self._buckets.get(bucket, 0) + 1
            self._max_tokens = max(self._max_tokens, count)

    def add_sums(self, sums: dict[str, int]) -> None:
        """Add a batch's statistics totals."""
        for name, value in sums.items():
            self.totals[name] = self.totals.get(name, 0) + value

    def token_percentile(self, fraction: float) -> int:
        """The token count below which ``fraction`` of the readable rows are (within 1%)."""
        total = sum(self._buckets.values())
        if not total:
            return 0
        wanted = max(1, math.ceil(fraction * total))
        seen = 0
        for bucket in sorted(self._buckets):
            seen += self._buckets[bucket]
            if seen >= wanted:
                return min(self._max_tokens, round(math.expm1((bucket + 1) * _STEP)))
        return self._max_tokens

    def as_dict(self) -> dict[str, Any]:
        """The summary as JSON-ready data."""
        data: dict[str, Any] = {
            "command": self.command,
            "rows": self.rows,
            "ok": self.ok,
            "failed": self.failed,
            "problem_count": self.problem_count,
            "problems": [found.as_dict() for found in self.problems],
            "format": self.format,
            "seconds": round(self.seconds, 3),
            "rows_per_second": round(self.rows_per_second, 1),
            "jobs": self.jobs,
            "engine": self.engine,
        }
        if self.command == "stats":
            data["totals"] = dict(self.totals)
            data["tokens"] = {
                "p50": self.token_percentile(0.5),
                "p90": self.token_percentile(0.9),
                "p99": self.token_percentile(0.99),
                "max": self._max_tokens,
            }
        return data
