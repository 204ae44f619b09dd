"""The compatibility check: every rule, both ways, and the real schemas against the snapshot."""

from __future__ import annotations

import copy
import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT


def _load_compat() -> ModuleType:
    spec = importlib.util.spec_from_file_location("compat", ROOT / "codegen" / "compat.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["compat"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


compat = _load_compat()
SCHEMA_FILES = ("content", "tool", "usage", "message", "chunk", "conversation")


def _obj(**properties: Any) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "additionalProperties": False}


BASE: dict[str, Any] = {
    "$id": "https://schemas.chatschema.dev/v1/example.json",
    "title": "Block",
    "type": "object",
    "oneOf": [{"$ref": "#/$defs/TextBlock"}, {"$ref": "#/$defs/ImageBlock"}],
    "discriminator": {"propertyName": "type"},
    "$defs": {
        "TextBlock": {
            **_obj(
                type={"const": "text"},
                text={"type": "string", "minLength": 1, "maxLength": 100},
                status={"enum": ["success", "error"]},
                ttl={"type": "string", "pattern": "^[0-9]+s$"},
                count={"type": "integer", "minimum": 0, "maximum": 10},
                extras={"type": "object", "additionalProperties": True},
                value={"type": ["string", "integer"]},
                output={"description": "Any JSON value."},
            ),
            "title": "TextBlock",
            "required": ["type", "text"],
        },
        "ImageBlock": {
            **_obj(
                type={"const": "image"},
                url={"type": "string"},
                base64={"type": "string"},
                mime_type={"type": "string"},
            ),
            "title": "ImageBlock",
            "required": ["type"],
            "anyOf": [{"required": ["url"]}, {"required": ["base64"]}],
            "dependentRequired": {"base64": ["mime_type"]},
        },
        "Details": {
            "type": "object",
            "properties": {"audio": {"type": "integer"}},
            "additionalProperties": {"type": "integer", "minimum": 0},
        },
        "Content": {"oneOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
    },
}


def _changed(edit: Any) -> dict[str, Any]:
    new = copy.deepcopy(BASE)
    edit(new)
    return new


def _text(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["$defs"]["TextBlock"]  # type: ignore[no-any-return]


def _image(schema: dict[str, Any]) -> dict[str, Any]:
    return schema["$defs"]["ImageBlock"]  # type: ignore[no-any-return]


def _props(schema: dict[str, Any]) -> dict[str, Any]:
    return _text(schema)["properties"]  # type: ignore[no-any-return]


def _breaking(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [str(change) for change in compat.compare(old, new) if change.breaking]


def _additive(old: dict[str, Any], new: dict[str, Any]) -> list[str]:
    return [str(change) for change in compat.compare(old, new) if not change.breaking]


# Each rule: an edit that breaks, and the words the report must contain. The reverse
# edit (new -> old) is the loosening, which must pass.
BREAKING: dict[str, tuple[Any, str]] = {
    "property removed": (lambda s: _props(s).pop("ttl"), "property ttl removed"),
    "new required field": (
        lambda s: _text(s)["required"].append("status"),
        "newly required: status",
    ),
    "type narrowed": (
        lambda s: _props(s)["value"].update(type="string"),
        "type narrowed: integer, string -> string",
    ),
    "type changed": (lambda s: _props(s)["count"].update(type="string"), "type narrowed"),
    "type added": (
        lambda s: _props(s)["output"].update(type="object"),
        "type narrowed: any -> object",
    ),
    "maxProperties added": (
        lambda s: _props(s)["extras"].update(maxProperties=5),
        "maxProperties tightened: None -> 5",
    ),
    "enum value removed": (
        lambda s: _props(s)["status"].update(enum=["success"]),
        'enum/const value removed: "error"',
    ),
    "const value changed": (
        lambda s: _props(s)["type"].update(const="plain"),
        'enum/const value removed: "text"',
    ),
    "values restricted": (
        lambda s: _props(s)["ttl"].update(enum=["5s"]),
        'values restricted to "5s"',
    ),
    "additionalProperties tightened": (
        lambda s: s["$defs"]["Details"].update(additionalProperties=False),
        "additionalProperties tightened to false",
    ),
    "additionalProperties schema tightened": (
        lambda s: s["$defs"]["Details"]["additionalProperties"].update(minimum=1),
        "minimum tightened: 0 -> 1",
    ),
    "$def removed": (lambda s: s["$defs"].pop("Details"), "$def Details removed"),
    "union variant removed": (
        lambda s: s["oneOf"].pop(),
        "union variant removed: $ref #/$defs/ImageBlock",
    ),
    "content variant removed": (
        lambda s: s["$defs"]["Content"]["oneOf"].pop(),
        'union variant removed: type "array"',
    ),
    "source alternative removed": (
        lambda s: _image(s)["anyOf"].pop(),
        "union variant removed: required base64",
    ),
    "minLength raised": (
        lambda s: _props(s)["text"].update(minLength=2),
        "minLength tightened: 1 -> 2",
    ),
    "maxLength lowered": (
        lambda s: _props(s)["text"].update(maxLength=50),
        "maxLength tightened: 100 -> 50",
    ),
    "minimum raised": (
        lambda s: _props(s)["count"].update(minimum=1),
        "minimum tightened: 0 -> 1",
    ),
    "maximum lowered": (
        lambda s: _props(s)["count"].update(maximum=9),
        "maximum tightened: 10 -> 9",
    ),
    "pattern changed": (
        lambda s: _props(s)["ttl"].update(pattern="^[0-9]+[sm]$"),
        "pattern changed",
    ),
    "pattern added": (lambda s: _props(s)["text"].update(pattern="^a"), "pattern changed"),
    "dependentRequired added": (
        lambda s: _image(s)["dependentRequired"].update(url=["mime_type"]),
        "newly required with url: mime_type",
    ),
    "title changed": (lambda s: _text(s).update(title="Text"), 'title "TextBlock" -> "Text"'),
    "$ref changed": (
        lambda s: s["oneOf"].__setitem__(1, {"$ref": "#/$defs/Details"}),
        "union variant removed",
    ),
    "discriminator changed": (
        lambda s: s.update(discriminator={"propertyName": "kind"}),
        "discriminator changed",
    ),
    "items narrowed": (
        lambda s: s["$defs"]["Content"]["oneOf"][1]["items"].update(minLength=1),
        "minLength tightened: None -> 1",
    ),
    "other keyword added": (lambda s: _props(s)["text"].update(multipleOf=2), "multipleOf added"),
    "typed property on an open object": (
        lambda s: s["$defs"]["Details"]["properties"].update(video={"type": "string"}),
        "type narrowed: integer -> string",
    ),
}


@pytest.mark.parametrize("rule", sorted(BREAKING))
def test_breaking_change_is_detected(rule: str) -> None:
    edit, words = BREAKING[rule]
    new = _changed(edit)
    found = _breaking(BASE, new)
    assert any(words in change for change in found), found


# Changes that break both ways (a value swapped for another, a removed property).
SWAPS = {
    "title changed",
    "$ref changed",
    "discriminator changed",
    "const value changed",
    "pattern changed",
    "type changed",
    "typed property on an open object",
}


@pytest.mark.parametrize("rule", sorted(set(BREAKING) - SWAPS))
def test_the_reverse_is_allowed(rule: str) -> None:
    """Undoing a narrowing is a loosening: it passes."""
    edit, _ = BREAKING[rule]
    assert _breaking(_changed(edit), BASE) == []


ADDITIVE: dict[str, tuple[Any, str]] = {
    "new optional property": (
        lambda s: _props(s).update(lang={"type": "string"}),
        "new property lang",
    ),
    "new $def": (
        lambda s: s["$defs"].update(VideoBlock=_obj(type={"const": "video"})),
        "new $def VideoBlock",
    ),
    "new enum value": (
        lambda s: _props(s)["status"]["enum"].append("partial"),
        'new enum value: "partial"',
    ),
    "new union variant": (
        lambda s: s["oneOf"].append({"$ref": "#/$defs/Details"}),
        "new union variant: $ref #/$defs/Details",
    ),
    "new source alternative": (
        lambda s: _image(s)["anyOf"].append({"required": ["file_id"]}),
        "new union variant: required file_id",
    ),
    "typed count on a typed open object": (
        lambda s: s["$defs"]["Details"]["properties"].update(video={"type": "integer"}),
        "new property video",
    ),
    "required dropped": (lambda s: _text(s)["required"].remove("text"), "fewer required"),
    "annotations only": (
        lambda s: _props(s)["text"].update(description="The text.", format="uri", default=""),
        "",
    ),
}


@pytest.mark.parametrize("rule", sorted(ADDITIVE))
def test_additive_change_passes(rule: str) -> None:
    edit, words = ADDITIVE[rule]
    new = _changed(edit)
    assert _breaking(BASE, new) == []
    if words:
        assert any(words in change for change in _additive(BASE, new))


def test_a_new_required_property_is_breaking_even_when_new() -> None:
    def edit(schema: dict[str, Any]) -> None:
        _props(schema)["lang"] = {"type": "string"}
        _text(schema)["required"].append("lang")

    assert any("newly required: lang" in change for change in _breaking(BASE, _changed(edit)))


def test_boolean_schemas() -> None:
    assert _breaking({"properties": {"a": True}}, {"properties": {"a": False}})
    assert _breaking({"properties": {"a": False}}, {"properties": {"a": True}}) == []


# --------------------------------------------------------------------------- folders


def _folder(tmp_path: Path, name: str, schemas: dict[str, dict[str, Any]]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for stem, schema in schemas.items():
        (folder / f"{stem}.json").write_text(json.dumps(schema), encoding="utf-8")
    return folder


def test_a_removed_file_is_breaking_a_new_one_additive(tmp_path: Path) -> None:
    other = {**BASE, "$id": "https://schemas.chatschema.dev/v1/other.json"}
    released = _folder(tmp_path, "released", {"example": BASE, "other": other})
    current = _folder(tmp_path, "current", {"example": BASE, "third": other})
    report = compat.check(released, current)
    assert [str(c) for c in report.breaking] == ["other.json: schema file removed"]
    assert [str(c) for c in report.additive] == ["third.json: new schema file"]


def test_a_major_version_bump_turns_the_check_off(tmp_path: Path) -> None:
    broken = _changed(lambda s: s["$defs"].clear())
    released = _folder(tmp_path, "released", {"example": BASE})
    assert compat.check(released, _folder(tmp_path, "same-major", {"example": broken})).breaking
    bumped = {**broken, "$id": "https://schemas.chatschema.dev/v2/example.json"}
    report = compat.check(released, _folder(tmp_path, "v2", {"example": bumped}))
    assert report.changes == []
    assert report.skipped == ["example.json: major version 1 -> 2, not compared"]


def test_an_id_change_within_the_major_is_breaking(tmp_path: Path) -> None:
    moved = {**BASE, "$id": "https://schemas.chatschema.dev/v1/renamed.json"}
    released = _folder(tmp_path, "released", {"example": BASE})
    report = compat.check(released, _folder(tmp_path, "current", {"example": moved}))
    assert any("$id" in str(change) for change in report.breaking)


# --------------------------------------------------------------------------- the real schemas


def test_the_snapshot_holds_the_released_files() -> None:
    released = ROOT / "schemas" / "released" / "v1"
    assert sorted(path.stem for path in released.glob("*.json")) == sorted(SCHEMA_FILES)
    for stem in SCHEMA_FILES:
        schema = json.loads((released / f"{stem}.json").read_text("utf-8"))
        assert compat.major_version(schema["$id"]) == 1


def test_the_latest_release_is_the_default_baseline(tmp_path: Path) -> None:
    for name in ("v1", "v2", "v10", "vnext"):
        (tmp_path / name).mkdir()
    assert compat.latest_release(tmp_path) == tmp_path / "v10"
    assert compat.latest_release().parent == ROOT / "schemas" / "released"


def test_the_schemas_are_compatible_with_the_snapshot() -> None:
    report = compat.check()
    assert report.breaking == [], "\n".join(map(str, report.breaking))


def test_command_line(tmp_path: Path) -> None:
    script = str(ROOT / "codegen" / "compat.py")
    result = subprocess.run([sys.executable, script], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "compatible" in result.stdout

    current = tmp_path / "schemas"
    shutil.copytree(ROOT / "schemas" / "released" / "v1", current)
    usage = json.loads((current / "usage.json").read_text("utf-8"))
    usage["required"].remove("total_tokens")  # loosening: fine
    del usage["$defs"]["OutputTokenDetails"]["properties"]["reasoning"]  # breaking
    usage["$defs"]["TokenCount"]["minimum"] = 1  # breaking
    (current / "usage.json").write_text(json.dumps(usage), encoding="utf-8")
    result = subprocess.run(
        [sys.executable, script, "--current", str(current)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr.splitlines()[1:3] == [
        "  - usage.json#/$defs/OutputTokenDetails/properties/reasoning: property reasoning removed",
        "  - usage.json#/$defs/TokenCount: minimum tightened: 0 -> 1",
    ]
