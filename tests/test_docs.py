"""Every Python example in the documentation runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)


def _examples() -> list[tuple[str, str]]:
    found = []
    for path in DOCUMENTS:
        if path.exists():
            for number, match in enumerate(FENCE.finditer(path.read_text("utf-8")), 1):
                found.append((f"{path.relative_to(ROOT)}#{number}", match.group(1)))
    return found


@pytest.mark.parametrize(("where", "code"), _examples(), ids=[w for w, _ in _examples()])
def test_example_runs(
    where: str, code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    exec(compile(code, where, "exec"), {"__name__": "__docs__"})
