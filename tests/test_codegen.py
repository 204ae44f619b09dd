"""The generator driver: its rewrites, and the drift check."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest
from conftest import ROOT


def _load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate", ROOT / "codegen" / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


generate = _load_generator()


def test_rules_the_generator_would_mangle_are_left_to_the_base_classes() -> None:
    schema = {
        "$defs": {
            "ImageBlock": {
                "anyOf": [{"required": ["url"]}, {"required": ["base64"]}],
                "dependentRequired": {"base64": ["mime_type"]},
            },
            "Other": {"anyOf": [{"type": "string"}, {"type": "integer"}]},
        }
    }
    out = generate.for_generator(schema)
    assert out["$defs"]["ImageBlock"] == {}
    assert out["$defs"]["Other"] == schema["$defs"]["Other"]
    assert "anyOf" in schema["$defs"]["ImageBlock"]  # the input is not modified


def test_field_rewrites() -> None:
    source = textwrap.dedent(
        '''\
        from __future__ import annotations

        class Block(WireModel):
            __annotations__ = {
                "__pydantic_extra__": Dict[str, "TokenCount"],
            }
            url: Url | None = None
            model: Annotated[str | None, Field(min_length=1)] = None
            artifact: Any | None = None
            tool_calls: Annotated[list[ToolCall], Field(validate_default=True)] = []
            content: Annotated[MessageContent, Field(validate_default=True)] = ""

        TokenCount = TypeAliasType("TokenCount", Annotated[int, Field(ge=0)])
        Tools = TypeAliasType("Tools", Annotated[Any, Field(title="Tools")])
        """Docstring of the typeless root."""
        '''
    )
    out = generate.postprocess(source, "Tools")
    assert "from chatschema._wire import Omittable" in out
    for line in (
        "__pydantic_extra__: dict[str, TokenCount] = Field(init=False)",
        "url: Omittable[Url] = None",
        "model: Annotated[Omittable[str], Field(min_length=1)] = None",
        "artifact: Any | None = None",
        "tool_calls: list[ToolCall] = Field(default_factory=list)",
        "content: MessageContent = ''",
        "TokenCount = TypeAliasType('TokenCount', Annotated[int, Field(ge=0, strict=True)])",
    ):
        assert line in out, line
    assert "Tools" not in out and "typeless root" not in out


def test_base_classes_follow_the_schemas() -> None:
    mapping = generate.base_class_map(generate.load_schemas())
    assert mapping["CacheControl"] == "chatschema._wire.TaggedModel"
    assert mapping["AssistantMessageChunk"] == "chatschema._wire.ChunkBase"
    assert mapping["ImageBlock"] == "chatschema._wire.SourcedBlock"
    assert mapping["UserMessage"] == "chatschema._wire.MessageBase"
    assert "TextBlock" not in mapping  # union members are checked by their union


def test_bundle_has_every_definition_once_and_only_local_refs() -> None:
    bundle = generate.bundle(generate.load_schemas())
    assert bundle["$ref"] == "#/$defs/Conversation"
    for name in ("Message", "ContentBlock", "Usage", "AssistantMessageChunk", "ToolCall"):
        assert name in bundle["$defs"]

    def refs(node: object) -> list[str]:
        if isinstance(node, dict):
            found = [node["$ref"]] if "$ref" in node else []
            return found + [ref for value in node.values() for ref in refs(value)]
        if isinstance(node, list):
            return [ref for item in node for ref in refs(item)]
        return []

    for ref in refs(bundle):
        assert ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in bundle["$defs"]


def test_bundle_maps_each_tag_of_each_tagged_union_to_its_variant() -> None:
    schemas = generate.load_schemas()
    defs = generate.bundle(schemas)["$defs"]
    unions = {
        name
        for schema in schemas.values()
        for name, definition in [*schema.get("$defs", {}).items(), (schema["title"], schema)]
        if "discriminator" in definition
    }
    assert {"Message", "ContentBlock", "Annotation", "ToolChoice", "ResponseFormat"} <= unions
    assert unions == {name for name, definition in defs.items() if "discriminator" in definition}
    for name in unions:
        discriminator = defs[name]["discriminator"]
        tag, mapping = discriminator["propertyName"], discriminator["x-chatschema-mapping"]
        assert sorted(mapping.values()) == sorted(branch["$ref"] for branch in defs[name]["oneOf"])
        for value, ref in mapping.items():
            variant = defs[ref.removeprefix("#/$defs/")]
            assert variant["properties"][tag]["const"] == value, (name, ref)
            assert tag in variant["required"]
    assert defs["Message"]["discriminator"]["x-chatschema-mapping"]["tool"] == "#/$defs/ToolMessage"
    assert defs["ContentBlock"]["discriminator"]["x-chatschema-mapping"]["text-plain"] == (
        "#/$defs/PlainTextBlock"
    )


@pytest.mark.slow
def test_drift_check_fails_with_a_diff_on_a_hand_edit(tmp_path: Path) -> None:
    for name in ("schemas", "codegen", "generated", "src"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    command = [sys.executable, str(tmp_path / "codegen" / "generate.py"), "--check"]
    clean = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert clean.returncode == 0, clean.stdout + clean.stderr

    target = tmp_path / "generated" / "python" / "chatschema_models" / "message.py"
    target.write_text(target.read_text().replace("Message tag.", "Edited by hand."))
    stale = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path)
    assert stale.returncode == 1
    assert "-    Edited by hand." in stale.stdout and "+    Message tag." in stale.stdout
    assert "run `make generate`" in stale.stdout
