"""The Ray engine, end to end on a real local Ray (``ray.init(num_cpus=2)``).

One run of the CLI with ``--engine ray`` (and the same through the Python API),
compared with the single-process path on the same rows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from test_datasets import HOSTILE, dataset_lines, write_jsonl

from chatschema.datasets import convert_dataset, stats_dataset, validate_dataset

pytest.importorskip("ray.data")

ROWS = 3_000

SCRIPT = """
import contextlib, io, json, sys
import ray
from chatschema.cli import main
from chatschema.datasets import stats_dataset, validate_dataset

source, out_dir, jsonl_dir = sys.argv[1:4]
ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
status = main(["convert", "--from", "neutral", "--to", "anthropic", source, "-o", out_dir,
               "--engine", "ray", "--batch-size", "400"])
status_jsonl = main(["convert", "--from", "neutral", "--to", "anthropic", source, "-o", jsonl_dir,
                     "--engine", "ray", "--batch-size", "400"])
printed = io.StringIO()
with contextlib.redirect_stdout(printed):
    status_stdout = main(["convert", "--from", "neutral", "--to", "anthropic", source,
                          "--engine", "ray"])
checked = validate_dataset(source, engine="ray", batch_size=500)
stats = stats_dataset(source, engine="ray")
print(json.dumps({"status": status, "status_jsonl": status_jsonl,
                  "stdout": [status_stdout, printed.getvalue().splitlines()],
                  "validate": [checked.rows, checked.failed, checked.problem_count, checked.engine,
                               [(row, [p.keyword for p in found])
                                for _, row, _, found in checked.reported]],
                  "stats": stats.as_dict()["totals"]}))
"""


def test_the_ray_engine_gives_the_results_of_the_local_path(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    lines = dataset_lines(ROWS)
    write_jsonl(source, lines)
    out_dir, jsonl_dir = tmp_path / "ray.parquet", tmp_path / "ray.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(source), str(out_dir), str(jsonl_dir)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["status"] == report["status_jsonl"] == 1  # hostile rows failed

    local = tmp_path / "local.parquet"
    convert_dataset(source, local, source="neutral", target="anthropic", jobs=1)
    expected = pq.read_table(local)
    parts = sorted(out_dir.glob("*.parquet"))
    assert parts, list(out_dir.iterdir())
    got = pq.read_table(parts[0]) if len(parts) == 1 else None
    if got is None:
        import pyarrow as pa

        got = pa.concat_tables([pq.read_table(part) for part in parts])
    assert got.num_rows == ROWS
    assert got.column("conversation").to_pylist() == expected.column("conversation").to_pylist()
    assert got.column("problems").to_pylist() == expected.column("problems").to_pylist()
    metadata = json.loads(pq.read_schema(parts[0]).metadata[b"chatschema"])
    assert metadata["format"] == "anthropic"

    ray_lines = [
        line
        for part in sorted(jsonl_dir.glob("*.jsonl"))
        for line in part.read_text("utf-8").splitlines()
    ]
    local_jsonl = tmp_path / "local.jsonl"
    convert_dataset(source, local_jsonl, source="neutral", target="anthropic")
    assert ray_lines == local_jsonl.read_text("utf-8").splitlines()
    assert len(ray_lines) == ROWS - len(HOSTILE)
    assert report["stdout"] == [1, ray_lines]  # no -o: JSON Lines on standard output
    # Ray's output directory reads back locally, part files in order.
    back = tmp_path / "back.jsonl"
    summary = convert_dataset(out_dir, back, source="anthropic", target="anthropic")
    assert summary.rows == ROWS and summary.failed == len(HOSTILE)  # the null rows
    assert back.read_text("utf-8").splitlines() == ray_lines

    checked = validate_dataset(source, jobs=1)
    rows, failed, problems, engine, reported = report["validate"]
    assert (rows, failed, problems, engine) == (
        checked.rows,
        checked.failed,
        checked.problem_count,
        "ray",
    )
    assert [row for row, _ in reported] == [index + 1 for index in sorted(HOSTILE)]
    assert report["stats"] == stats_dataset(source, jobs=1).as_dict()["totals"]
