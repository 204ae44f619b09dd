"""The package as users get it: a built wheel, and a light import."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT


def _run(python: Path | str, code: str, cwd: Path) -> str:
    result = subprocess.run(
        [str(python), "-c", code], cwd=cwd, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


@pytest.mark.slow
def test_wheel_installs_and_imports_the_generated_models(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(dist)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    (wheel,) = dist.glob("chatschema-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in (
        "chatschema/__init__.py",
        "chatschema/py.typed",
        "chatschema_models/message.py",
        "chatschema_models/py.typed",
        "chatschema_models/schemas/message.json",
    ):
        assert name in names

    # A fresh venv that sees this interpreter's dependencies (pydantic, jsonschema)
    # through a path entry, but not its editable install of chatschema.
    target = tmp_path / "venv"
    venv.create(target, with_pip=False)
    python = target / "bin" / "python"
    site = Path(
        _run(python, "import sysconfig; print(sysconfig.get_path('purelib'))", tmp_path).strip()
    )
    deps = Path(sysconfig.get_path("purelib"))
    (site / "deps.pth").write_text(f"{deps}\n", encoding="utf-8")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-deps",
            "--no-index",
            "--quiet",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    out = _run(
        python,
        "import chatschema, chatschema_models\n"
        "from chatschema import UserMessage, TextBlock, ToolCall, parse_message, validate\n"
        'm = parse_message(\'{"role": "user", "content": [{"type": "text", "text": "hi"}]}\')\n'
        "validate(chatschema.to_dict(m))\n"
        "print(chatschema.__file__); print(chatschema_models.__file__); print(type(m).__name__)",
        tmp_path,
    )
    package_file, models_file, kind = out.split()
    assert package_file.startswith(str(site)) and models_file.startswith(str(site))
    assert kind == "UserMessage"


def test_import_is_light() -> None:
    # Every public name loads on first use: the bare import pulls in nothing heavy,
    # and a model pulls in pydantic, not the codecs or the schema validator.
    code = (
        "import sys, chatschema\n"
        "print([m for m in ('pydantic', 'chatschema_models', 'chatschema.validation')"
        " if m in sys.modules])\n"
        "chatschema.UserMessage(content='hi')\n"
        "heavy = [m for m in ('jsonschema', 'referencing', 'openai', 'anthropic', 'google.genai',"
        " 'hypothesis', 'pyarrow', 'ray', 'datasets', 'chatschema.datasets',"
        " 'chatschema.providers._common', 'chatschema.providers.openai_chat',"
        " 'chatschema.providers.anthropic', 'chatschema.providers.gemini',"
        " 'chatschema.providers.openai_responses') if m in sys.modules]\n"
        "print(heavy)"
    )
    assert _run(sys.executable, code, ROOT).split() == ["[]", "[]"]


def test_lazy_names_are_the_real_objects_whatever_loads_first() -> None:
    # `chatschema.text` (the builder) shares its name with no submodule, so no
    # import order can replace it with a module.
    code = (
        "import chatschema\n"
        "from chatschema.rendering import content_to_str\n"
        "import chatschema.history, chatschema.tokens, chatschema.streaming\n"
        "from chatschema.builders import text\n"
        "print(chatschema.text is text, chatschema.content_to_str is content_to_str,"
        " [n for n in chatschema.__all__ if getattr(chatschema, n, None) is None])"
    )
    assert _run(sys.executable, code, ROOT).strip() == "True True []"


def test_generated_models_import_first_without_a_cycle() -> None:
    code = "import chatschema_models.message as m; print(m.UserMessage(content='x').role)"
    assert _run(sys.executable, code, ROOT).strip() == "user"
