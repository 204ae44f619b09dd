"""chatschema.datasets: batch functions, JSON Lines and Parquet, the CLI over datasets.

Real components: pyarrow writes and reads real Parquet files, Hugging Face
`datasets`, polars and DuckDB open them, worker processes run for --jobs.
"""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from conftest import ROOT

from chatschema import parse_conversation, to_dict
from chatschema.cli import main
from chatschema.datasets import (
    STATS,
    DatasetError,
    convert_batch,
    convert_dataset,
    redact_batch,
    redact_dataset,
    stats_batch,
    stats_dataset,
    trim_batch,
    trim_dataset,
    validate_batch,
    validate_dataset,
)
from chatschema.errors import OptionError
from chatschema.providers import convert

SAMPLE = json.loads(
    (ROOT / "src" / "chatschema" / "samples" / "conversation.json").read_text("utf-8")
)


def conversation(serial: int) -> dict[str, Any]:
    """A small agent conversation: reasoning with a signature, a tool turn, an image."""
    call = f"call_{serial:06d}"
    user: Any = f"Question {serial}: what is in /tmp/{serial}? Café, naïve, 4 °C."
    if serial % 7 == 0:
        data = base64.b64encode(bytes(range(256)) * 4).decode()
        user = [
            {"type": "text", "text": user},
            {"type": "image", "base64": data, "mime_type": "image/png"},
        ]
    return {
        "id": f"conv_{serial}",
        "messages": [
            {"role": "system", "content": "You are a careful agent."},
            {"role": "user", "content": user},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "reasoning",
                        "text": f"I should list /tmp/{serial}.",
                        "signature": "EqQBCkYIBxgCKkB" + "A" * (serial % 40),
                        "provider": "anthropic",
                    },
                    {"type": "text", "text": "Let me look."},
                ],
                "tool_calls": [{"id": call, "name": "ls", "arguments": {"path": f"/tmp/{serial}"}}],
            },
            {"role": "tool", "tool_call_id": call, "content": "a.txt\nb.txt\n" * (serial % 5 + 1)},
            {"role": "assistant", "content": f"There are {serial % 5 + 1} pairs of files."},
        ],
        "tools": [{"name": "ls", "parameters": {"type": "object"}}],
    }


def write_jsonl(path: Path, lines: list[str | bytes]) -> None:
    with path.open("wb") as stream:
        for line in lines:
            stream.write(line if isinstance(line, bytes) else line.encode("utf-8"))
            stream.write(b"\n")


HOSTILE: dict[int, str | bytes] = {
    3: "{oops",
    5: '{"messages": [{"role": "user", "content": 5}]}',
    8: '{"messages": [{"role": "' + "r" * 2_000_000 + '", "content": "x"}]}',
    11: "[" * 100_000 + "]" * 100_000,
    13: '{"messages": [{"role": "user", "content": "hi", "metadata": '
    + '{"a": ' * 500
    + "1"
    + "}" * 500
    + "}]}",
    17: "null",
    19: b'{"messages": [{"role": "user", "content": "\xff\xfe"}]}',
    23: '{"messages": "not a list"}',
}
BIG = 29  # a huge but valid row
SURROGATE = 31  # a lone surrogate escape: valid JSON, not UTF-8 once decoded


def dataset_lines(count: int) -> list[str | bytes]:
    lines: list[str | bytes] = []
    for row in range(count):
        if row in HOSTILE:
            lines.append(HOSTILE[row])
        elif row == BIG:
            big = conversation(row)
            big["messages"][3]["content"] = "log line\n" * 600_000  # 5.4 MB
            lines.append(json.dumps(big))
        elif row == SURROGATE:
            lines.append('{"messages": [{"role": "user", "content": "half \\ud800 a pair"}]}')
        else:
            lines.append(json.dumps(conversation(row), ensure_ascii=False))
    return lines


# ------------------------------------------------------------------ batch functions


def test_batch_functions_take_and_give_dicts_tables_and_record_batches() -> None:
    rows = [json.dumps(conversation(i)) for i in range(5)] + ["{bad", None]
    as_dict = validate_batch({"conversation": rows, "source": list(range(7))})
    table = pa.table({"conversation": rows, "source": list(range(7))})
    as_table = validate_batch(table)
    as_batch = validate_batch(table.to_batches()[0])
    assert isinstance(as_table, pa.Table) and isinstance(as_batch, pa.RecordBatch)
    assert as_dict["valid"] == [True] * 5 + [False, False]
    assert as_dict["source"] == list(range(7))  # every input column kept, in order
    assert as_table.to_pydict() == as_batch.to_pydict()
    assert as_table.to_pydict()["problems"] == as_dict["problems"]
    assert as_dict["problems"][5][0]["keyword"] == "json"
    assert as_dict["problems"][6] == [
        {"pointer": "", "keyword": "json", "message": "the row has no conversation (null)"}
    ]
    assert as_table.schema.field("problems").type == pa.list_(
        pa.struct([("pointer", pa.string()), ("keyword", pa.string()), ("message", pa.string())])
    )


def test_convert_batch_converts_each_row_or_locates_its_error() -> None:
    good = conversation(1)
    unanswered = conversation(2)
    del unanswered["messages"][3:]
    rows = [json.dumps(good), json.dumps(unanswered), good]  # text or a decoded object
    out = convert_batch({"conversation": rows}, source="neutral", target="anthropic")
    expected = convert(good, source="neutral", target="anthropic")
    assert json.loads(out["conversation"][0]) == expected
    assert json.loads(out["conversation"][2]) == expected
    assert out["conversation"][1] is None
    pointers = [p["pointer"] for p in out["problems"][1]]
    assert "/messages/2/tool_calls/0/id" in pointers
    assert out["problems"][0] == out["problems"][2] == []
    separate = convert_batch(
        {"conversation": rows}, source="neutral", target="gemini", output_column="gemini"
    )
    assert separate["conversation"] == rows and json.loads(separate["gemini"][0])["contents"]


def test_batch_functions_refuse_what_is_not_a_batch_or_a_format() -> None:
    with pytest.raises(DatasetError, match="no column 'conversation'"):
        validate_batch({"messages": []})
    with pytest.raises(DatasetError, match="batch_format='pyarrow'"):
        validate_batch([1, 2, 3])
    with pytest.raises(OptionError, match="unknown target format 'claude'"):
        convert_batch({"conversation": []}, source="neutral", target="claude")


def test_stats_trim_and_redact_batches() -> None:
    rows = [json.dumps(conversation(7)), "{bad"]
    stats = stats_batch({"conversation": rows})
    assert {name: stats[name][0] for name in STATS} | {"tokens": 0} == {
        "n_messages": 5,
        "n_user": 1,
        "n_assistant": 2,
        "n_tool": 1,
        "n_tool_calls": 1,
        "n_reasoning": 1,
        "n_media": 1,
        "n_tools": 1,
        "text_chars": stats["text_chars"][0],
        "tokens": 0,
    }
    assert stats["tokens"][0] > 100 and stats["n_messages"][1] is None
    trimmed = trim_batch({"conversation": rows}, max_tokens=120)
    kept = json.loads(trimmed["conversation"][0])
    assert trimmed["dropped_messages"][0] > 0 and kept["tools"] == conversation(7)["tools"]
    assert kept["messages"][0]["role"] == "system"  # kept by default
    assert trimmed["conversation"][1] is None and trimmed["problems"][1]
    redacted = redact_batch({"conversation": rows})
    document = parse_conversation(redacted["conversation"][0])  # still valid
    text = json.dumps(to_dict(document))
    assert "signature" not in text and "base64" not in text
    assert "1,024 bytes of inline data removed" in text
    assert redacted["redacted_blocks"][0] == 2


def test_huggingface_map_batched_and_nested_messages() -> None:
    datasets = pytest.importorskip("datasets")
    data = datasets.Dataset.from_dict(
        {"conversation": [json.dumps(conversation(i)) for i in range(6)]}
    )
    out = data.map(
        convert_batch,
        batched=True,
        batch_size=4,
        fn_kwargs={"source": "neutral", "target": "gemini"},
    )
    assert out.num_rows == 6 and all(problems == [] for problems in out["problems"])
    assert json.loads(out["conversation"][5])["contents"][0]["role"] == "user"
    # An OpenAI fine-tuning set as a nested column: Arrow fills absent keys with None.
    nested = datasets.Dataset.from_list(
        [
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "yo", "name": "bot"},
                ]
            },
            {"messages": [{"role": "user", "content": "again"}]},
        ]
    )
    checked = nested.map(
        validate_batch, batched=True, fn_kwargs={"column": "messages", "format": "openai_chat"}
    )
    assert checked["valid"] == [True, True]


# ---------------------------------------------------------------- files and engines


def test_hostile_rows_are_reported_at_their_row_and_the_rest_converted(tmp_path: Path) -> None:
    source = tmp_path / "mixed.jsonl"
    lines = dataset_lines(40)
    write_jsonl(source, lines)
    target = tmp_path / "mixed.parquet"
    summary = convert_dataset(
        source, target, source="neutral", target="anthropic", jobs=2, batch_size=6
    )
    assert (summary.rows, summary.failed) == (40, len(HOSTILE))
    table = pq.read_table(target)
    assert table.num_rows == 40  # every row once, in order
    rows = table.to_pylist()
    for index, row in enumerate(rows):
        if index in HOSTILE:
            assert row["conversation"] is None and row["problems"], index
        else:
            assert row["problems"] == [], (index, row["problems"])
    keywords = {index: rows[index]["problems"][0]["keyword"] for index in HOSTILE}
    assert keywords[3] == keywords[11] == keywords[19] == "json"
    assert "nested too deeply" in rows[11]["problems"][0]["message"]
    assert "not UTF-8" in rows[19]["problems"][0]["message"]
    assert rows[5]["problems"][0]["pointer"] == "/messages/0/content"
    assert len(rows[8]["problems"][0]["message"]) < 300  # the huge value is not quoted whole
    assert rows[13]["problems"][0]["keyword"] == "maxDepth" or "deep" in str(rows[13]["problems"])
    assert len(json.loads(rows[BIG]["conversation"])["messages"][2]["content"][0]["content"]) > 5e6
    assert (
        json.loads(rows[SURROGATE]["conversation"])["messages"][0]["content"]
        == "half \ud800 a pair"
    )
    assert json.loads(rows[0]["conversation"]) == convert(
        conversation(0), source="neutral", target="anthropic"
    )


def test_jsonl_to_parquet_to_jsonl_gives_back_the_canonical_conversations(tmp_path: Path) -> None:
    documents = [SAMPLE, *(conversation(i) for i in range(30))]
    canonical = [to_dict(parse_conversation(document)) for document in documents]
    source, middle, back = tmp_path / "in.jsonl", tmp_path / "mid.parquet", tmp_path / "back.jsonl"
    write_jsonl(source, [json.dumps(document, indent=None) for document in documents])
    first = convert_dataset(
        source, middle, source="neutral", target="neutral", batch_size=7, jobs=2
    )
    second = convert_dataset(middle, back, source="neutral", target="neutral", jobs=1)
    assert first.failed == second.failed == 0 and second.rows == len(documents)
    returned = [json.loads(line) for line in back.read_text("utf-8").splitlines()]
    assert returned == canonical
    metadata = json.loads(pq.read_schema(middle).metadata[b"chatschema"])
    assert metadata == {"version": 1, "column": "conversation", "format": "neutral"}


def test_the_parquet_output_opens_in_huggingface_polars_and_duckdb(tmp_path: Path) -> None:
    datasets = pytest.importorskip("datasets")
    polars = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    source, target = tmp_path / "in.jsonl", tmp_path / "stats.parquet"
    write_jsonl(source, [json.dumps(conversation(i)) for i in range(12)] + ["{bad"])
    summary = stats_dataset(source, target, jobs=1)
    assert summary.rows == 13 and summary.failed == 1 and summary.totals["n_messages"] == 60

    hf = datasets.Dataset.from_parquet(str(target))
    assert {"conversation", "problems", "tokens", "n_messages"} <= set(hf.column_names)
    assert hf[12]["problems"][0]["keyword"] == "json" and hf[0]["n_messages"] == 5
    assert json.loads(hf[0]["conversation"])["id"] == "conv_0"

    frame = polars.read_parquet(target)
    assert frame.height == 13 and frame["tokens"].null_count() == 1
    assert frame["problems"].list.len().to_list() == [0] * 12 + [1]

    connection = duckdb.connect()
    total, bad = connection.execute(
        "SELECT sum(n_messages), count(*) FILTER (WHERE len(problems) > 0) FROM read_parquet(?)",
        [str(target)],
    ).fetchone()
    roles = connection.execute(
        "SELECT json_extract_string(conversation, '$.messages[1].role') FROM read_parquet(?) "
        "WHERE json_valid(conversation)",
        [str(target)],
    ).fetchall()
    assert (total, bad) == (60, 1) and roles == [("user",)] * 12


def _cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_cli_output_is_the_same_whatever_the_jobs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "mixed.jsonl"
    write_jsonl(source, dataset_lines(36))
    runs = {}
    for jobs in ("1", "2", "3"):
        status, out, err = _cli(
            capsys, "convert", "--from", "neutral", "--to", "gemini", str(source),
            "--jobs", jobs, "--batch-size", "5",
        )  # fmt: skip
        parquet = tmp_path / f"out{jobs}.parquet"
        status_p, _, _ = _cli(
            capsys, "validate", str(source), "-o", str(parquet), "--jobs", jobs, "--batch-size", "4"
        )
        status_v, problems, summary = _cli(
            capsys, "validate", str(source), "-j", jobs, "--batch-size", "3"
        )
        runs[jobs] = (
            status,
            out,
            err.splitlines()[:-1],
            status_p,
            pq.read_table(parquet),
            status_v,
            problems,
        )
        assert f"{jobs} jobs" in summary.splitlines()[-1] or jobs == "1"
    assert runs["1"][0] == 1 and len(runs["1"][1].splitlines()) == 36 - len(HOSTILE)
    assert runs["1"][2][0].startswith(f"{source}:4: (root): not valid JSON")
    assert runs["1"][3] == runs["1"][5] == 1
    assert runs["1"][6].splitlines()[0].startswith(f"{source}:4: ")
    for jobs in ("2", "3"):
        assert runs[jobs][:4] == runs["1"][:4]
        assert runs[jobs][4].equals(runs["1"][4])
        assert runs[jobs][5:] == runs["1"][5:]


def test_cli_stats_parquet_input_and_usage_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "data.jsonl"
    write_jsonl(source, [json.dumps(conversation(i)) for i in range(9)])
    openai = tmp_path / "openai.parquet"
    status, _, _ = _cli(
        capsys,
        "convert",
        "--from",
        "neutral",
        "--to",
        "openai_chat",
        str(source),
        "-o",
        str(openai),
        "--option",
        "reasoning=drop",
    )
    assert status == 0
    status, out, err = _cli(
        capsys, "stats", "--provider", "openai_chat", "--format", "json", str(openai)
    )
    data = json.loads(out)
    assert status == 0 and data["rows"] == 9 and data["totals"]["n_tool_calls"] == 9
    assert data["tokens"]["max"] >= data["tokens"]["p50"] > 0
    status, out, err = _cli(capsys, "validate", "--provider", "anthropic", str(openai))
    assert status == 1 and out.startswith(f"{openai}:row 1: ")
    status, out, err = _cli(
        capsys, "convert", "--from", "openai_chat", "--to", "anthropic", str(openai)
    )
    assert status == 0 and len(out.splitlines()) == 9 and "9 rows, 9 converted, 0 failed" in err
    status, _, err = _cli(capsys, "stats", str(tmp_path / "missing.jsonl"))
    assert status == 2 and "No such file" in err
    status, _, err = _cli(capsys, "validate", str(openai), "--column", "nope")
    assert status == 2 and "no column 'nope'" in err
    status, _, err = _cli(capsys, "validate", str(source), "-o", str(tmp_path / "out.csv"))
    assert status == 2 and "cannot tell the dataset format" in err
    not_parquet = tmp_path / "fake.parquet"
    not_parquet.write_text("hello", encoding="utf-8")
    status, _, err = _cli(capsys, "validate", str(not_parquet))
    assert status == 2 and "not a readable Parquet file" in err


def test_validate_dataset_writes_one_report_per_row(tmp_path: Path) -> None:
    source, report = tmp_path / "in.jsonl", tmp_path / "report.jsonl"
    write_jsonl(source, ["", json.dumps(conversation(1)), "", '{"messages": [{"role": "x"}]}'])
    summary = validate_dataset(source, report, jobs=1)
    assert (summary.rows, summary.ok, summary.failed, summary.problem_count) == (2, 1, 1, 1)
    [found] = summary.problems
    assert (found.position, found.problem.pointer, found.problem.keyword) == (
        4,
        "/messages/0/role",
        "discriminator",
    )
    lines = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    assert lines[0] == {"line": 2, "valid": True, "problems": []}
    assert lines[1]["line"] == 4 and lines[1]["problems"][0]["keyword"] == "discriminator"
    with pytest.raises(DatasetError, match="unknown engine"):
        validate_dataset(source, engine="spark")


def test_json_lines_cut_into_spans_read_as_lines(tmp_path: Path) -> None:
    from chatschema.datasets._io import _jsonl_chunks, _jsonl_spans

    path = tmp_path / "odd.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"a": 1}\r\n\n  \n{"b": "\xe2\x80\xa8"}\n\xff\n\n{"c": 3}')
    expected = [
        (position, line)
        for chunk in _jsonl_chunks(str(path), 100, 1 << 20, 0)
        for position, line in zip(chunk.positions, chunk.lines or [], strict=True)
    ]
    assert expected == [(1, '{"a": 1}'), (4, '{"b": "\u2028"}'), (5, b"\xff"), (7, '{"c": 3}')]
    for rows, size in ((1, 1 << 20), (2, 1 << 20), (3, 1 << 20), (100, 5)):
        chunks = list(_jsonl_spans(str(path), rows, size, 0))
        for chunk in chunks:
            chunk.load()
        got = [
            (p, line) for c in chunks for p, line in zip(c.positions, c.lines or [], strict=True)
        ]
        assert got == expected, (rows, size)
        assert [c.index for c in chunks] == list(range(len(chunks)))


def test_trim_and_redact_whole_datasets(tmp_path: Path) -> None:
    source = tmp_path / "in.jsonl"
    write_jsonl(source, [json.dumps(conversation(i)) for i in range(14)] + ["{bad"])
    redacted, trimmed = tmp_path / "redacted.jsonl", tmp_path / "trimmed.parquet"
    summary = redact_dataset(source, redacted, jobs=2, batch_size=4)
    assert (summary.rows, summary.failed) == (15, 1)
    text = redacted.read_text("utf-8")
    assert len(text.splitlines()) == 14 and "signature" not in text and '"base64"' not in text
    summary = trim_dataset(redacted, trimmed, max_tokens=60, jobs=1)
    table = pq.read_table(trimmed)
    assert summary.failed == 0 and min(table.column("dropped_messages").to_pylist()) > 0


def test_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    import os
    import pty

    source = tmp_path / "in.jsonl"
    write_jsonl(source, [json.dumps(conversation(i)) for i in range(50)])
    leader, follower = pty.openpty()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "chatschema",
            "validate",
            str(source),
            "--batch-size",
            "10",
            "-j",
            "1",
        ],
        stderr=follower,
        stdout=subprocess.PIPE,
        check=False,
    )
    os.close(follower)
    shown = b""
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        shown += data
    os.close(leader)
    assert done.returncode == 0
    text = shown.decode()
    assert re.search(r"\rvalidated \d+ documents, 0 invalid \[#+\.*\] +\d+% [\d,]+/s", text), text
    assert "50 documents checked, 0 invalid, 0 problems (50 rows in" in text


def test_import_stays_light_and_a_missing_extra_is_named(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "import chatschema.datasets as d\n"
        "print(sorted(m for m in ('pyarrow', 'ray', 'datasets', 'polars') if m in sys.modules))\n"
        "sys.modules['pyarrow'] = None  # as if it were not installed\n"
        "print(d.validate_batch({'conversation': ['{}']})['valid'])\n"
        "try:\n"
        f"    d.validate_dataset({str(tmp_path / 'x.parquet')!r})\n"
        "except d.MissingExtraError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    lines = result.stdout.splitlines()
    assert lines[0] == "[]" and lines[1] == "[False]"
    assert "pip install 'chatschema[parquet]'" in lines[2]


@pytest.mark.slow
def test_memory_stays_bounded_on_a_dataset_larger_than_a_batch(tmp_path: Path) -> None:
    line = json.dumps(conversation(3))
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_text(line + "\n", encoding="utf-8")
    large.write_text((line + "\n") * 30_000, encoding="utf-8")  # about 21 MB, 60 batches

    def peaks(path: Path, jobs: int) -> tuple[int, int]:
        code = (
            "import resource, sys\nfrom chatschema.datasets import validate_dataset\n"
            "if __name__ == '__main__':\n"
            f"    s = validate_dataset({str(path)!r}, {str(tmp_path / 'out.parquet')!r},"
            f" jobs={jobs}, batch_size=500)\n"
            "    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, s.peak_rss_kb)\n"
        )
        script = tmp_path / "peak.py"
        script.write_text(code, encoding="utf-8")
        result = subprocess.run(
            [sys.executable, str(script)], capture_output=True, text=True, check=True
        )
        main_kb, worker_kb = result.stdout.split()[-2:]
        return int(main_kb), int(worker_kb)  # kilobytes

    assert large.stat().st_size > 20_000_000
    base, _ = peaks(small, 1)
    alone, _ = peaks(large, 1)
    parent, worker = peaks(large, 2)
    print(f"peak RSS kB: 1 row {base}, 30,000 rows {alone}; 2 jobs: main {parent}, worker {worker}")
    assert alone - base < 15_000, (base, alone)  # under the 21 MB read, and written again
    assert parent - base < 15_000 and 0 < worker < base + 15_000, (base, parent, worker)
    assert pq.read_metadata(tmp_path / "out.parquet").num_rows == 30_000
