"""Check that ``schemas/`` is a compatible evolution of the last released snapshot.

    python codegen/compat.py                        # schemas/ against schemas/released/vN
    python codegen/compat.py --released DIR --current DIR

Within one major version (the ``/vN/`` segment of every ``$id``) the schemas only grow:
a document valid under the released schemas stays valid. The check compares each
released file with the current one, keyword by keyword, and exits 1 with a list when
something breaks that:

- a property, a ``$defs`` entry, a union variant or a whole schema file is removed;
- a field becomes required (``required``, ``dependentRequired``);
- a type is narrowed (``type`` loses a type, or appears where there was none);
- an ``enum`` / ``const`` value is removed, or values become restricted;
- ``additionalProperties`` is tightened (``false`` where extra keys were allowed, or a
  stricter schema for them);
- a lower bound (``minLength``, ``minimum`` ...) rises or an upper bound falls;
- a ``pattern`` is added or changed, a ``$ref`` or a discriminator changes, a ``title``
  (the name of the generated type) changes, a new ``anyOf`` / ``oneOf`` / ``allOf``
  constraint appears; any other validation keyword that is added or changed.

Additive changes pass and are listed: new optional properties, new ``$defs``, new enum
values, new union variants, new schema files, loosened constraints. Annotations
(``description``, ``default``, ``examples``, ``format``, ``contentEncoding`` ...) are not
compared: chatschema treats ``format`` as an annotation.

A file whose ``$id`` has another major version than the released one (``/v2/``) is not
compared: a major version bump is how a breaking change is released. Known limit:
adding a variant to a ``oneOf`` without discriminator could make a document match two
branches; chatschema's only such union is string-or-array content.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CURRENT = ROOT / "schemas"


def latest_release(folder: Path = CURRENT / "released") -> Path:
    """The snapshot of the highest released major version (``schemas/released/vN``)."""
    versions = [
        (int(path.name[1:]), path)
        for path in folder.glob("v*")
        if path.is_dir() and path.name[1:].isdigit()
    ]
    if not versions:
        raise SystemExit(f"no released snapshot under {folder}")
    return max(versions)[1]


ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$comment",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "format",
        "contentEncoding",
        "contentMediaType",
    }
)
LOWER_BOUNDS = (
    "minLength",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "minProperties",
    "minContains",
)
UPPER_BOUNDS = (
    "maxLength",
    "maximum",
    "exclusiveMaximum",
    "maxItems",
    "maxProperties",
    "maxContains",
)
UNIONS = ("oneOf", "anyOf")
HANDLED = frozenset(
    {
        "title",
        "type",
        "enum",
        "const",
        "properties",
        "required",
        "additionalProperties",
        "dependentRequired",
        "pattern",
        "$ref",
        "$defs",
        "discriminator",
        "items",
        "prefixItems",
        "allOf",
        *UNIONS,
        *LOWER_BOUNDS,
        *UPPER_BOUNDS,
    }
)
MAJOR = re.compile(r"/v(\d+)/")


@dataclass(frozen=True, order=True)
class Change:
    """One difference between the released and the current schemas."""

    where: str
    what: str
    breaking: bool

    def __str__(self) -> str:
        return f"{self.where}: {self.what}"


def _escape(part: str | int) -> str:
    return str(part).replace("~", "~0").replace("/", "~1")


def _at(where: str, *parts: str | int) -> str:
    return where + "".join("/" + _escape(part) for part in parts)


def _schema(node: Any) -> dict[str, Any]:
    """A subschema as a dict: ``true`` (or absent) is ``{}``, ``false`` is ``{"not": {}}``."""
    if node is True or node is None:
        return {}
    if node is False:
        return {"not": {}}
    return dict(node)


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) or (isinstance(value, float) and value.is_integer()):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    return "array" if isinstance(value, list) else "object"


def _types(schema: dict[str, Any]) -> set[str] | None:
    """The JSON types a schema's ``type`` (or its values) allows; None for any."""
    if "type" in schema:
        declared = schema["type"]
        types = {declared} if isinstance(declared, str) else set(declared)
    elif "const" in schema:
        types = {_json_type(schema["const"])}
    elif "enum" in schema:
        types = {_json_type(value) for value in schema["enum"]}
    else:
        return None
    if "number" in types:
        types.add("integer")
    return types


def _values(schema: dict[str, Any]) -> dict[str, Any] | None:
    """The values ``const`` / ``enum`` allow, keyed by their JSON text; None for any."""
    if "const" in schema:
        return {_show(schema["const"]): schema["const"]}
    if "enum" in schema:
        return {_show(value): value for value in schema["enum"]}
    return None


def _branch_key(branch: Any) -> str:
    """What identifies a union variant across versions."""
    branch = _schema(branch)
    if "$ref" in branch:
        return f"$ref {branch['$ref']}"
    if set(branch) == {"required"}:
        return "required " + ", ".join(branch["required"])
    if "type" in branch:
        return f"type {_show(branch['type'])}"
    return _show(branch)


def compare(old: Any, new: Any, where: str = "#") -> list[Change]:
    """Every change from the schema ``old`` to ``new``, breaking or additive."""
    return sorted(set(_compare(_schema(old), _schema(new), where)))


def _compare(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    if old == new or old == {"not": {}}:
        return
    yield from _compare_names(old, new, where)
    yield from _compare_types(old, new, where)
    yield from _compare_values(old, new, where)
    yield from _compare_objects(old, new, where)
    yield from _compare_bounds(old, new, where)
    yield from _compare_unions(old, new, where)
    yield from _compare_arrays(old, new, where)
    yield from _compare_others(old, new, where)


def _compare_names(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    if "title" in old and old.get("title") != new.get("title"):
        yield Change(
            where,
            f"title {_show(old['title'])} -> {_show(new.get('title'))} (it names the type)",
            True,
        )
    if old.get("$ref") != new.get("$ref"):
        yield Change(where, f"$ref {_show(old.get('$ref'))} -> {_show(new.get('$ref'))}", True)
    if "discriminator" in old and old.get("discriminator") != new.get("discriminator"):
        yield Change(where, "discriminator changed", True)
    old_defs, new_defs = old.get("$defs", {}), new.get("$defs", {})
    for name, definition in old_defs.items():
        if name not in new_defs:
            yield Change(_at(where, "$defs", name), f"$def {name} removed", True)
        else:
            yield from _compare(
                _schema(definition), _schema(new_defs[name]), _at(where, "$defs", name)
            )
    for name in new_defs.keys() - old_defs.keys():
        yield Change(_at(where, "$defs", name), f"new $def {name}", False)


def _compare_types(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    old_types, new_types = _types(old), _types(new)
    if new_types is not None and (old_types is None or not old_types <= new_types):
        before = "any" if old_types is None else ", ".join(sorted(old_types))
        yield Change(where, f"type narrowed: {before} -> {', '.join(sorted(new_types))}", True)
    elif old_types is not None and (new_types is None or new_types > old_types):
        yield Change(where, "type widened", False)


def _compare_values(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    old_values, new_values = _values(old), _values(new)
    if new_values is None:
        if old_values is not None:
            yield Change(where, "enum/const restriction lifted", False)
        return
    if old_values is None:
        yield Change(where, f"values restricted to {', '.join(new_values)}", True)
        return
    removed = [text for text in old_values if text not in new_values]
    added = [text for text in new_values if text not in old_values]
    if removed:
        yield Change(where, f"enum/const value removed: {', '.join(removed)}", True)
    if added:
        yield Change(where, f"new enum value: {', '.join(added)}", False)


def _compare_objects(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    old_props, new_props = old.get("properties", {}), new.get("properties", {})
    old_extra = old.get("additionalProperties", True)
    for name, schema in old_props.items():
        if name not in new_props:
            yield Change(_at(where, "properties", name), f"property {name} removed", True)
        else:
            yield from _compare(
                _schema(schema), _schema(new_props[name]), _at(where, "properties", name)
            )
    for name in sorted(new_props.keys() - old_props.keys()):
        at = _at(where, "properties", name)
        yield Change(at, f"new property {name}", False)
        if old_extra is not False:  # the key was allowed before: it must accept no less
            for change in _compare(_schema(old_extra), _schema(new_props[name]), at):
                if change.breaking:
                    yield change
    new_required = set(new.get("required", [])) - set(old.get("required", []))
    if new_required:
        yield Change(where, f"newly required: {', '.join(sorted(new_required))}", True)
    if set(old.get("required", [])) - set(new.get("required", [])):
        yield Change(where, "fewer required properties", False)
    new_extra = new.get("additionalProperties", True)
    if old_extra is not False:
        if new_extra is False:
            yield Change(where, "additionalProperties tightened to false", True)
        else:
            yield from _compare(
                _schema(old_extra), _schema(new_extra), _at(where, "additionalProperties")
            )
    elif new_extra is not False:
        yield Change(where, "additionalProperties loosened", False)
    old_deps, new_deps = old.get("dependentRequired", {}), new.get("dependentRequired", {})
    for trigger, needed in new_deps.items():
        added = set(needed) - set(old_deps.get(trigger, []))
        if added:
            yield Change(
                _at(where, "dependentRequired", trigger),
                f"newly required with {trigger}: {', '.join(sorted(added))}",
                True,
            )


def _compare_bounds(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    for keyword in (*LOWER_BOUNDS, *UPPER_BOUNDS):
        before, after = old.get(keyword), new.get(keyword)
        if before == after:
            continue
        lower = keyword in LOWER_BOUNDS
        tighter = before is None or (
            after is not None and (after > before if lower else after < before)
        )
        if after is not None and tighter:
            yield Change(where, f"{keyword} tightened: {before} -> {after}", True)
        else:
            yield Change(where, f"{keyword} loosened: {before} -> {after}", False)
    before, after = old.get("pattern"), new.get("pattern")
    if before != after:
        if after is None:
            yield Change(where, "pattern removed", False)
        else:
            yield Change(where, f"pattern changed: {_show(before)} -> {_show(after)}", True)


def _compare_unions(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    for keyword in UNIONS:
        if keyword not in old and keyword not in new:
            continue
        if keyword not in old:
            yield Change(_at(where, keyword), f"new {keyword} constraint", True)
            continue
        if keyword not in new:
            yield Change(_at(where, keyword), f"{keyword} constraint removed", False)
            continue
        new_branches = {_branch_key(branch): branch for branch in new[keyword]}
        old_keys = set()
        for index, branch in enumerate(old[keyword]):
            key = _branch_key(branch)
            old_keys.add(key)
            if key not in new_branches:
                yield Change(_at(where, keyword, index), f"union variant removed: {key}", True)
            else:
                yield from _compare(
                    _schema(branch), _schema(new_branches[key]), _at(where, keyword, index)
                )
        for key in sorted(new_branches.keys() - old_keys):
            yield Change(_at(where, keyword), f"new union variant: {key}", False)
    old_all, new_all = old.get("allOf", []), new.get("allOf", [])
    for index, branch in enumerate(new_all):
        if index >= len(old_all):
            yield Change(_at(where, "allOf", index), "new allOf constraint", True)
        else:
            yield from _compare(
                _schema(old_all[index]), _schema(branch), _at(where, "allOf", index)
            )


def _compare_arrays(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    if "items" in old or "items" in new:
        yield from _compare(
            _schema(old.get("items")), _schema(new.get("items")), _at(where, "items")
        )
    old_prefix, new_prefix = old.get("prefixItems", []), new.get("prefixItems", [])
    for index in range(max(len(old_prefix), len(new_prefix))):
        before = old_prefix[index] if index < len(old_prefix) else None
        after = new_prefix[index] if index < len(new_prefix) else None
        yield from _compare(_schema(before), _schema(after), _at(where, "prefixItems", index))


def _compare_others(old: dict[str, Any], new: dict[str, Any], where: str) -> Iterator[Change]:
    """Any other validation keyword: added or changed is breaking, removed is not."""
    for keyword in sorted((old.keys() | new.keys()) - HANDLED - ANNOTATIONS):
        before, after = old.get(keyword), new.get(keyword)
        if before == after:
            continue
        if keyword not in new:
            yield Change(where, f"{keyword} removed", False)
        else:
            verb = "added" if keyword not in old else "changed"
            yield Change(where, f"{keyword} {verb} (treated as breaking)", True)


def major_version(schema_id: str) -> int | None:
    """The major version in an ``$id`` (``.../v1/content.json`` -> 1)."""
    match = MAJOR.search(schema_id)
    return int(match.group(1)) if match else None


@dataclass
class Report:
    """The outcome of comparing two folders of schemas."""

    changes: list[Change]
    skipped: list[str]

    @property
    def breaking(self) -> list[Change]:
        """The changes that fail the check."""
        return [change for change in self.changes if change.breaking]

    @property
    def additive(self) -> list[Change]:
        """The changes that are allowed within a major version."""
        return [change for change in self.changes if not change.breaking]


def _load(path: Path) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return schema


def check(released: Path | None = None, current: Path = CURRENT) -> Report:
    """Compare every released schema file with the current one of the same name.

    ``released`` defaults to the latest snapshot (:func:`latest_release`).
    """
    released = released if released is not None else latest_release()
    changes: list[Change] = []
    skipped: list[str] = []
    released_files = sorted(path.name for path in released.glob("*.json"))
    for name in released_files:
        old = _load(released / name)
        if not (current / name).exists():
            changes.append(Change(name, "schema file removed", True))
            continue
        new = _load(current / name)
        old_id, new_id = str(old.get("$id", "")), str(new.get("$id", ""))
        old_major, new_major = major_version(old_id), major_version(new_id)
        if old_major != new_major:
            skipped.append(f"{name}: major version {old_major} -> {new_major}, not compared")
            continue
        if old_id != new_id:
            changes.append(Change(name, f"$id {old_id} -> {new_id}", True))
        changes.extend(compare(old, new, f"{name}#"))
    for path in sorted(current.glob("*.json")):
        if path.name not in released_files:
            changes.append(Change(path.name, "new schema file", False))
    return Report(sorted(changes, key=lambda c: (not c.breaking, c.where, c.what)), skipped)


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def main(argv: list[str] | None = None) -> int:
    """Run the check; print the changes; 1 when one is breaking."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--released", type=Path, help="the released snapshot (default: the latest vN)"
    )
    parser.add_argument("--current", type=Path, default=CURRENT, help="the schemas to check")
    args = parser.parse_args(argv)
    released = args.released if args.released is not None else latest_release()
    report = check(released, args.current)
    against = f"{_relative(args.current)} against {_relative(released)}"
    for note in report.skipped:
        print(f"compat: {note}")
    if report.breaking:
        print(f"compat: {len(report.breaking)} breaking change(s), {against}:", file=sys.stderr)
        for change in report.breaking:
            print(f"  - {change}", file=sys.stderr)
        print(
            "Within a major version only additive changes are allowed: undo these, or "
            "release them as a new major version (a /vN+1/ $id).",
            file=sys.stderr,
        )
        return 1
    print(f"compat: {against}: compatible ({len(report.additive)} additive change(s))")
    for change in report.additive:
        print(f"  + {change}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
