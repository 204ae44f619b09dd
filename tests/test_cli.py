"""The chatschema command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from chatschema.cli import main

SAMPLE = ROOT / "src" / "chatschema" / "samples" / "conversation.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_validate_a_valid_conversation(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "validate", str(SAMPLE))
    assert (status, out) == (0, "")
    assert "1 document checked, 0 invalid, 0 problems" in err


def test_validate_jsonl_reports_file_line_and_pointer(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "train.jsonl"
    data.write_text(
        '{"messages": [{"role": "user", "content": "hi"}]}\n'
        "\n"
        '{"messages": [{"role": "user"}]}\n'
        "{oops\n"
        '{"messages": [{"role": "tool", "content": "x"}], "extra": 1}\n',
        encoding="utf-8",
    )
    status, out, err = run(capsys, "validate", str(data))
    assert status == 1
    assert out.splitlines() == [
        f"{data}:3: /messages/0/content: Field required [required]",
        f"{data}:4: (root): not valid JSON: Expecting property name enclosed in double quotes: "
        "line 1 column 2 (char 1) [json]",
        f"{data}:5: /messages/0/tool_call_id: Field required [required]",
        f"{data}:5: /extra: Extra inputs are not permitted [additionalProperties]",
    ]
    assert "4 documents checked, 3 invalid, 4 problems" in err
    status, out, _ = run(capsys, "validate", "--format", "json", str(data))
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0] == {
        "file": str(data),
        "line": 3,
        "pointer": "/messages/0/content",
        "keyword": "required",
        "message": "Field required",
    }
    assert lines[-1] == {"summary": {"documents": 4, "invalid": 3, "problems": 4}}


def test_validate_detects_messages_and_lists(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    one = tmp_path / "one.json"
    one.write_text('{\n  "role": "user",\n  "content": 5\n}\n', encoding="utf-8")
    many = tmp_path / "many.json"
    many.write_text('[{"role": "user", "content": "a"}, {"role": "robot"}]', encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(one), str(many))
    assert status == 1
    assert f"{one}:1: /content: must be a string or an array [type]" in out
    assert f"{many}:1: /1/role: unknown role 'robot' [discriminator]" in out


def test_validate_with_a_provider_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = tmp_path / "openai.jsonl"
    data.write_text(
        '{"messages": [{"role": "user", "content": "hi"}, '
        '{"role": "assistant", "content": "yo"}]}\n'
        '{"messages": [{"role": "wizard", "content": "?"}]}\n',
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "validate", "--provider", "openai_chat", str(data))
    assert status == 1
    assert out.startswith(f"{data}:2: ")


def test_usage_and_io_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "validate", "/no/such/file.json")
    assert status == 2 and "No such file or directory" in err
    with pytest.raises(SystemExit) as raised:
        main(["validate"])
    assert raised.value.code == 2
    status, _, err = run(capsys, "schema", "Nope")
    assert status == 2 and "unknown type 'Nope'" in err
    status, _, err = run(
        capsys,
        "convert",
        "--from",
        "neutral",
        "--to",
        "anthropic",
        "--option",
        "novalue",
        str(SAMPLE),
    )
    assert status == 2 and "NAME=VALUE" in err


def test_schema(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "schema")
    assert status == 0 and "  Message" in out.splitlines()
    status, out, _ = run(capsys, "schema", "ToolCall")
    schema = json.loads(out)
    assert schema["$ref"] == "#/$defs/ToolCall" and "ToolCall" in schema["$defs"]
    status, out, _ = run(capsys, "schema", "--bundle")
    assert json.loads(out)["$ref"] == "#/$defs/Conversation"


def test_convert_neutral_to_a_provider_and_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(
        capsys,
        "convert",
        "--from",
        "neutral",
        "--to",
        "openai_chat",
        "--option",
        "reasoning=drop",
        str(SAMPLE),
    )
    assert status == 0
    request = json.loads(out)
    assert [m["role"] for m in request["messages"]] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
    ]
    wire = tmp_path / "wire.json"
    wire.write_text(out, encoding="utf-8")
    status, out, _ = run(capsys, "convert", "--from", "openai_chat", "--to", "neutral", str(wire))
    assert status == 0 and json.loads(out)["messages"][3]["role"] == "tool"
    lines = tmp_path / "many.jsonl"
    lines.write_text('{"messages": [{"role": "user", "content": "a"}]}\n' * 3, encoding="utf-8")
    status, out, _ = run(capsys, "convert", "--from", "neutral", "--to", "anthropic", str(lines))
    assert status == 0 and len(out.splitlines()) == 3
    assert json.loads(out.splitlines()[0]) == {"messages": [{"role": "user", "content": "a"}]}


def test_module_entry_point_and_demo() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "chatschema", "demo"], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "valid on both paths" in result.stdout


@pytest.mark.slow
def test_validate_streams_a_large_dataset_in_constant_memory(tmp_path: Path) -> None:
    line = json.dumps(
        {
            "messages": [
                {"role": "user", "content": "x" * 400},
                {"role": "assistant", "content": "y" * 400},
            ]
        }
    )
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    small.write_text(line + "\n", encoding="utf-8")
    large.write_text((line + "\n") * 50_000, encoding="utf-8")  # about 42 MB

    def peak(path: Path) -> int:
        code = (
            "import resource, sys\nfrom chatschema.cli import main\n"
            f"status = main(['validate', {str(path)!r}])\n"
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\nsys.exit(status)"
        )
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        )
        return int(result.stdout.split()[-1])  # kilobytes

    assert large.stat().st_size > 40_000_000
    assert peak(large) - peak(small) < 20_000  # well under the file's size
