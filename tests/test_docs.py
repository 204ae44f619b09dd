"""Every Python example in the documentation runs.

The examples of one page run in order in one namespace, as a reader would run them.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT

PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
FENCE = re.compile(r"^```python\n(.*?)^```", re.MULTILINE | re.DOTALL)
WITH_EXAMPLES = [page for page in PAGES if FENCE.search(page.read_text("utf-8"))]


@pytest.mark.parametrize(
    "page", WITH_EXAMPLES, ids=[str(p.relative_to(ROOT)) for p in WITH_EXAMPLES]
)
def test_examples_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, Any] = {"__name__": "__docs__"}
    for number, match in enumerate(FENCE.finditer(page.read_text("utf-8")), 1):
        where = f"{page.relative_to(ROOT)}, example {number}"
        exec(compile(match.group(1), where, "exec"), namespace)
