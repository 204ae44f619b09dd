"""A new user's first hour with the command line and the datasets API.

Format detection (``--from`` optional, a contradicting ``--from`` warned about, the
Parquet metadata read back), ``validate --provider`` applying the provider's rules,
option errors reported once, one spelling per idea in the datasets API, messages that
name the real cause, and ``--version``.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

from chatschema._detect import detect, detect_format, detect_rows
from chatschema.cli import main
from chatschema.datasets import (
    PROBLEMS_KEPT,
    DatasetError,
    FormatWarning,
    RowProblem,
    convert_dataset,
    stats_dataset,
    validate_dataset,
)
from chatschema.datasets import _summary as summary_module

TRAFFIC = ROOT / "tests" / "traffic"
SAMPLE = ROOT / "src" / "chatschema" / "samples" / "conversation.json"

ANTHROPIC_ROWS = [
    {"system": "Be brief.", "messages": [{"role": "user", "content": "hi"}]},
    {
        "system": "Answer in French.",
        "messages": [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": [{"type": "text", "text": "bonjour"}]},
        ],
    },
    {"system": "Be terse.", "messages": [{"role": "user", "content": "yo"}]},
]
ORPHAN = {
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "tool", "tool_call_id": "call_nope", "content": "42"},
    ]
}
ORPHAN_LINE = (
    "/messages/1/tool_call_id: tool result for 'call_nope' answers no earlier tool call "
    "[orphan_tool_result]"
)


def cli(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """The real command, in a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "chatschema", *argv],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


Runner = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., subprocess.CompletedProcess[str]]:
    """The command run in this process (faster), with the same result as :func:`cli`."""

    def run(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
        capsys.readouterr()
        try:
            status = main(list(argv))
        except SystemExit as stop:  # argparse
            status = int(stop.code or 0)
        captured = capsys.readouterr()
        return subprocess.CompletedProcess(list(argv), status, captured.out, captured.err)

    return run


def write_rows(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


# ------------------------------------------------------------------ detection


def _recorded() -> list[tuple[str, str, Any]]:
    bodies = []
    for directory in sorted(TRAFFIC.iterdir()) if TRAFFIC.is_dir() else []:
        if not directory.is_dir():
            continue
        for path in sorted(directory.glob("*.json")):
            exchange = json.loads(path.read_text("utf-8"))
            for part in ("request", "response"):
                if part in exchange:
                    bodies.append((directory.name, part, exchange[part]))
    return bodies


def test_detection_on_the_recorded_traffic_is_right_or_says_ambiguous() -> None:
    bodies = _recorded()
    if len(bodies) < 100:
        pytest.skip("the recorded traffic is not materialized (make recordings)")
    exact = ambiguous = 0
    wrong = []
    for recorded_as, part, body in bodies:
        found = detect(body)
        if found.format == recorded_as:
            exact += 1
        elif found.format is None and recorded_as in found.candidates:
            ambiguous += 1  # e.g. {"model", "max_tokens", "messages"}: Anthropic or OpenAI
        else:
            wrong.append((recorded_as, part, sorted(found.candidates), found.reason))
    assert wrong == []
    assert exact / len(bodies) > 0.95, (exact, ambiguous, len(bodies))


@pytest.mark.parametrize(
    ("document", "expected", "reason"),
    [
        (ANTHROPIC_ROWS[0], "anthropic", 'top-level "system"'),
        (
            {"messages": [{"role": "user", "content": "hi", "weight": 0}]},
            "openai_chat",
            'message 0: "weight" (OpenAI fine-tuning)',
        ),
        (
            {"messages": [{"role": "user", "content": [{"text": "hi"}]}]},
            "bedrock_converse",
            'message 0, block 0: an untyped "text" block',
        ),
        ({"contents": [{"role": "model", "parts": [{"text": "hi"}]}]}, "gemini", None),
        ({"input": [{"role": "user", "content": "hi"}]}, "openai_responses", None),
        ({"gen_ai.input.messages": "[]"}, "otel_genai", None),
        (json.loads(SAMPLE.read_text("utf-8")), "neutral", None),
    ],
)
def test_detect_names_the_format_and_why(document: Any, expected: str, reason: str | None) -> None:
    found = detect(document)
    assert found.format == expected == detect_format(document)
    if reason is not None:
        assert found.reason == reason


def test_a_shape_several_formats_share_is_ambiguous_and_read_as_neutral() -> None:
    plain = {"messages": [{"role": "user", "content": "hi"}]}
    found = detect(plain)
    assert found.format is None and found.ambiguous
    assert found.candidates == {"neutral", "openai_chat", "anthropic"}
    assert found.choice() == "neutral"
    request = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    assert detect(request).candidates == {"anthropic", "openai_chat"}
    assert detect(request).choice() is None
    # the first rows together: a later row can decide
    rows = [plain, plain, {"messages": [{"role": "user", "content": "x", "weight": 1}]}]
    found, row = detect_rows(rows)
    assert (found.format, row) == ("openai_chat", 3)


# ------------------------------------------------------------ CLI: --from


def test_a_wrong_from_is_one_warning_and_no_silent_loss(tmp_path: Path) -> None:
    source = write_rows(tmp_path / "claude.jsonl", ANTHROPIC_ROWS)
    done = cli("convert", "--from", "openai_chat", "--to", "anthropic", str(source), "-j", "1")
    warnings_ = [line for line in done.stderr.splitlines() if line.startswith("warning:")]
    assert warnings_ == [
        f"warning: --from openai_chat, but row 1 of {source} looks like anthropic (top-level "
        '"system"); keys openai_chat does not know are kept under extras["openai_chat"], '
        "which no other format receives"
    ]
    assert done.stderr.startswith("warning:")  # before any row's report


def test_without_from_the_rows_shape_decides(tmp_path: Path, command: Runner) -> None:
    source = write_rows(tmp_path / "claude.jsonl", ANTHROPIC_ROWS)
    done = command("convert", "--to", "openai_chat", str(source), "-j", "1")
    assert done.returncode == 0, done.stderr
    assert 'reading the input as anthropic (detected: top-level "system"' in done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    assert [row["messages"][0] for row in rows] == [
        {"role": "system", "content": row["system"]} for row in ANTHROPIC_ROWS
    ]


def test_a_single_document_on_stdin_is_detected_too(command: Runner) -> None:
    done = command("convert", "--to", "openai_chat", stdin=json.dumps(ANTHROPIC_ROWS[0]))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["messages"][0] == {"role": "system", "content": "Be brief."}


def test_an_ambiguous_shape_asks_for_from(tmp_path: Path, command: Runner) -> None:
    row = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    source = write_rows(tmp_path / "requests.jsonl", [row])
    done = command("convert", "--to", "gemini", str(source))
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        f"chatschema: row 1 of {source} could be anthropic or openai_chat "
        '(top-level "model"); give --from to say which\n'
    )


def test_the_parquet_metadata_says_the_format(tmp_path: Path, command: Runner) -> None:
    pytest.importorskip("pyarrow")
    source = write_rows(tmp_path / "claude.jsonl", ANTHROPIC_ROWS)
    middle = tmp_path / "claude.parquet"
    made = command(
        "convert",
        "--from",
        "anthropic",
        "--to",
        "anthropic",
        str(source),
        "-o",
        str(middle),
        "-j",
        "1",
    )
    assert made.returncode == 0, made.stderr
    done = command("convert", "--to", "openai_chat", str(middle), "-j", "1")
    assert done.returncode == 0, done.stderr
    assert 'detected: its metadata says "format": "anthropic"' in done.stderr
    wrong = command("stats", "--provider", "gemini", str(middle), "-j", "1")
    assert f"warning: --provider gemini, but {middle} looks like anthropic" in wrong.stderr


# --------------------------------------------------- validate --provider


def test_validate_with_a_provider_applies_its_rules_as_convert_does(
    tmp_path: Path, command: Runner
) -> None:
    source = write_rows(
        tmp_path / "rows.jsonl", [{"messages": [{"role": "user", "content": "ok"}]}, ORPHAN]
    )
    checked = command("validate", "--provider", "openai_chat", str(source), "-j", "1")
    converted = command(
        "convert", "--from", "openai_chat", "--to", "openai_chat", str(source), "-j", "1"
    )
    assert (checked.returncode, converted.returncode) == (1, 1)
    assert checked.stdout.splitlines() == [f"{source}:2: {ORPHAN_LINE}"]
    assert f"{source}:2: {ORPHAN_LINE}" in converted.stderr.splitlines()
    # a single document (not a dataset) goes the same way
    alone = command("validate", "--provider", "openai_chat", "-", stdin=json.dumps(ORPHAN))
    assert alone.returncode == 1 and alone.stdout == f"<stdin>:1: {ORPHAN_LINE}\n"


def test_validate_with_a_provider_refuses_an_empty_messages_list(command: Runner) -> None:
    done = command("validate", "--provider", "openai_chat", "-", stdin='{"messages": []}')
    assert done.returncode == 1 and done.stdout.startswith("<stdin>:1: /messages: ")


# ------------------------------------------------------------- --option


def test_an_option_typo_is_one_usage_error_before_the_first_row(tmp_path: Path) -> None:
    row = {"messages": [{"role": "user", "content": "hi"}]}
    source = write_rows(tmp_path / "train.jsonl", [row] * 5001)
    done = cli(
        "convert",
        "--from",
        "openai_chat",
        "--to",
        "anthropic",
        str(source),
        "--option",
        "vison=false",
    )
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [
        "chatschema: --option: unknown option 'vison' for anthropic; options: "
        + done.stderr.split("options: ", 1)[1].strip()
    ]
    assert "vision" in done.stderr
    bad = cli(
        "convert",
        "--from",
        "openai_chat",
        "--to",
        "anthropic",
        "-",
        "--option",
        "vision=maybe",
        stdin=json.dumps(row),
    )
    assert (bad.returncode, bad.stdout) == (2, "")
    assert bad.stderr == "chatschema: --option: option vision='maybe': expected True or False\n"


# ------------------------------------------------------------ messages


def test_a_single_message_is_not_a_conversation_and_the_root_is_named(command: Runner) -> None:
    message = '{"role": "user", "content": "hi"}'
    done = command("convert", "--from", "neutral", "--to", "anthropic", stdin=message)
    assert done.returncode == 1
    assert done.stderr == (
        '<stdin>:1: (root): expected a Conversation (an object with "messages"), got what '
        'looks like a single message; wrap it as {"messages": [...]} [type]\n'
    )
    text = command("validate", "-", stdin="{oops")
    assert text.stdout.startswith("<stdin>:1: (root): not valid JSON")
    as_json = command("validate", "--format", "json", "-", stdin="{oops")
    assert json.loads(as_json.stdout.splitlines()[0])["pointer"] == ""


def test_version() -> None:
    from importlib.metadata import version

    done = cli("--version")
    assert (done.returncode, done.stdout) == (0, f"chatschema {version('chatschema')}\n")


# ------------------------------------------------------------ datasets API


def test_the_datasets_api_has_one_spelling_and_the_old_ones_warn(tmp_path: Path) -> None:
    source = write_rows(tmp_path / "claude.jsonl", ANTHROPIC_ROWS)
    out = tmp_path / "out.jsonl"
    summary = convert_dataset(source, out, source="anthropic", target="gemini", jobs=1)
    assert (summary.rows, summary.failed, summary.format, summary.detected) == (
        3,
        0,
        "anthropic",
        None,
    )
    detected = convert_dataset(source, out, target="gemini", jobs=1)
    assert (detected.format, detected.detected) == ("anthropic", 'top-level "system"')
    with pytest.warns(DeprecationWarning, match="source_format= is deprecated; use source="):
        old = convert_dataset(source, out, source_format="anthropic", target="gemini", jobs=1)
    assert old.rows == 3
    with pytest.warns(DeprecationWarning, match="target_format= is deprecated; use target="):
        convert_dataset(source, out, source="anthropic", target_format="gemini", jobs=1)
    with pytest.warns(DeprecationWarning, match="source= is deprecated; use inputs="):
        stats_dataset(source=source, format="anthropic", jobs=1)
    with pytest.warns(FormatWarning, match=r"source='openai_chat', but row 1 of .* anthropic"):
        convert_dataset(source, out, source="openai_chat", target="openai_chat", jobs=1)
    ambiguous = write_rows(
        tmp_path / "requests.jsonl", [{"model": "m", "max_tokens": 1, "messages": []}]
    )
    with pytest.raises(DatasetError, match=r"could be anthropic or openai_chat.*give source="):
        convert_dataset(ambiguous, None, target="gemini", jobs=1)


def test_summary_problems_are_the_problems_bounded_with_their_count(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert PROBLEMS_KEPT == 1000
    monkeypatch.setattr(summary_module, "PROBLEMS_KEPT", 2)
    source = write_rows(tmp_path / "rows.jsonl", [ORPHAN] * 3)
    summary = validate_dataset(source, format="openai_chat", jobs=1)
    assert (summary.failed, summary.problem_count, len(summary.problems)) == (3, 3, 2)
    first = summary.problems[0]
    assert isinstance(first, RowProblem) and str(first) == f"{source}:1: {ORPHAN_LINE}"
    assert summary.as_dict()["problems"][1] == {
        "file": str(source),
        "line": 2,
        "pointer": "/messages/1/tool_call_id",
        "keyword": "orphan_tool_result",
        "message": "tool result for 'call_nope' answers no earlier tool call",
    }


def test_stats_totals_have_one_name_in_python_and_json(tmp_path: Path, command: Runner) -> None:
    source = write_rows(tmp_path / "claude.jsonl", ANTHROPIC_ROWS)
    summary = stats_dataset(source, jobs=1)
    assert summary.format == "anthropic" and summary.totals["n_messages"] == 7
    with pytest.warns(DeprecationWarning, match="use Summary.totals"):
        assert summary.sums == summary.totals
    done = command("stats", "--format", "json", str(source), "-j", "1")
    assert json.loads(done.stdout)["totals"] == summary.totals
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert summary.as_dict()["totals"] == summary.totals
