"""Any validator's raw errors -> the fixtures' ``{pointer, keyword}``.

A line-by-line implementation of schemas/README.md, "Reading any validator's errors",
written against a neutral form of a raw error (:class:`Raw`), with two adapters into it:
the Rust ``jsonschema`` crate (its PyPI binding ``jsonschema-rs``) and
``@hyperjump/json-schema`` (its DETAILED output, from tests/ts/hyperjump-fixtures.mjs).
The Python SDK (``chatschema.validation``) and the npm package's ``normalize()``
(codegen/npm/runtime.mjs) follow the same steps on their own validators' output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from conftest import ROOT

SCHEMA_FILES = ("content", "tool", "usage", "message", "chunk", "conversation")
SCHEMAS: dict[str, dict[str, Any]] = {}
for _stem in SCHEMA_FILES:
    _schema = json.loads((ROOT / "schemas" / f"{_stem}.json").read_text(encoding="utf-8"))
    SCHEMAS[_schema["$id"]] = _schema

UNIONS = ("oneOf", "anyOf")


def type_uris() -> dict[str, str]:
    """Every type name -> the URI of its schema (a file's ``$id``, or ``<$id>#/$defs/<Name>``)."""
    uris = {}
    for uri, schema in SCHEMAS.items():
        if "properties" in schema or "oneOf" in schema:
            uris[schema["title"]] = uri
        for name in schema.get("$defs", {}):
            uris[name] = f"{uri}#/$defs/{name}"
    return uris


def unescape(part: str) -> str:
    """One RFC 6901 reference token, unescaped."""
    return part.replace("~1", "/").replace("~0", "~")


def escape(part: str | int) -> str:
    """One RFC 6901 reference token, escaped."""
    return str(part).replace("~", "~0").replace("/", "~1")


def pointer_of(path: Iterable[str | int]) -> str:
    """A JSON pointer from path segments."""
    return "".join(f"/{escape(part)}" for part in path)


def resolve(document: Any, pointer: str) -> Any:
    """The value at a JSON pointer (``""`` is the document)."""
    for part in pointer.split("/")[1:]:
        key = unescape(part)
        document = document[int(key)] if isinstance(document, list) else document[key]
    return document


def schema_at(uri: str) -> Any:
    """The schema value at ``<$id>#<pointer>`` (a ``$ref`` target or a keyword location)."""
    base, _, fragment = uri.partition("#")
    return resolve(SCHEMAS[base], fragment)


def resolve_ref(reference: str, base: str) -> str:
    """A relative ``$ref`` (``#/$defs/X``, ``tool.json#/$defs/Y``) against a file's ``$id``."""
    if reference.startswith("#"):
        return base + reference
    return base.rsplit("/", 1)[0] + "/" + reference


@dataclass(frozen=True)
class Raw:
    """One raw error: step 1 of the README's steps.

    ``pointer``: the instance location; ``keyword``: the failing keyword;
    ``location``: the keyword's absolute location ``<$id>#/<path>/<keyword>`` (the
    keyword's own schema object is the location without its last segment);
    ``branches``: for ``oneOf`` / ``anyOf``, the errors of each branch, by position.
    """

    pointer: str
    keyword: str
    location: str
    branches: tuple[tuple[Raw, ...], ...] = field(default=())

    @property
    def schema(self) -> dict[str, Any]:
        """The schema object that holds the keyword."""
        holder: dict[str, Any] = schema_at(self.location.rsplit("/", 1)[0])
        return holder

    @property
    def base(self) -> str:
        """The ``$id`` of the file the keyword is in."""
        return self.location.partition("#")[0]


def problems(errors: Sequence[Raw], instance: Any) -> list[tuple[str, str]]:
    """The fixture's ``{pointer, keyword}`` pairs for a document's raw errors (steps 2 and 3)."""
    seen: list[tuple[str, str]] = []
    for error in errors:
        for pair in _problems(error, instance):
            if pair not in seen:  # step 3: deduplicated, first kept
                seen.append(pair)
    return seen


def _problems(error: Raw, instance: Any) -> Iterator[tuple[str, str]]:
    here, keyword, schema = error.pointer, error.keyword, error.schema
    value = resolve(instance, here)
    if keyword == "required":
        for name in schema["required"]:
            if isinstance(value, dict) and name not in value:
                yield f"{here}/{escape(name)}", "required"
    elif keyword == "dependentRequired":
        for trigger, needed in schema["dependentRequired"].items():
            if isinstance(value, dict) and trigger in value:
                for name in needed:
                    if name not in value:
                        yield f"{here}/{escape(name)}", "dependentRequired"
    elif keyword == "additionalProperties" and schema["additionalProperties"] is False:
        declared = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        for key in value if isinstance(value, dict) else ():
            if key not in declared and not any(re.search(p, key) for p in patterns):
                yield f"{here}/{escape(key)}", "additionalProperties"
    elif keyword in UNIONS:
        yield from _union_problems(error, instance)
    else:
        yield here, keyword


def _union_problems(error: Raw, instance: Any) -> Iterator[tuple[str, str]]:
    here, schema = error.pointer, error.schema
    value = resolve(instance, here)
    union: list[Any] = schema[error.keyword]
    branches = list(error.branches) + [()] * (len(union) - len(error.branches))
    tag = schema.get("discriminator", {}).get("propertyName")
    if tag is not None:  # the discriminator rule
        if not isinstance(value, dict):
            return  # the union's own `type: object` reports it
        if tag not in value:
            yield f"{here}/{escape(tag)}", "required"
            return
        for position, branch in enumerate(union):
            variant = schema_at(resolve_ref(branch["$ref"], error.base))
            if variant["properties"][tag].get("const") == value[tag]:
                for sub in branches[position]:
                    yield from _problems(sub, instance)
                return
        yield f"{here}/{escape(tag)}", "discriminator"
        return
    if all(isinstance(branch, dict) and set(branch) == {"required"} for branch in union):
        yield here, "anyOf"  # the anyOf rule: one problem at the object
        return
    fitting = [
        branch
        for branch in branches
        if not any(sub.keyword == "type" and sub.pointer == here for sub in branch)
    ]
    if not fitting:
        yield here, "type"
        return
    for branch in fitting:
        for sub in branch:
            yield from _problems(sub, instance)


# --------------------------------------------------------------------------- adapters

_SUBSCHEMA_ONLY = {
    # hyperjump reports these when a subschema under them failed: step 1 replaces them
    # by the errors inside (`additionalProperties` when its subschema is not `false`).
    "ref", "$ref", "properties", "patternProperties", "items", "prefixItems", "allOf",
    "dependentSchemas", "then", "else", "contains", "propertyNames", "dynamicRef",
    "validate",
}  # fmt: skip


def from_jsonschema_rs(errors: Iterable[Any]) -> list[Raw]:
    """``jsonschema_rs`` errors (``iter_errors``) in the neutral form.

    ``instance_path`` is the pointer; ``absolute_keyword_location`` the location, whose
    last segment is the keyword; a union's ``kind.as_dict()["context"]`` holds the
    errors of each branch.
    """
    raws = []
    for error in errors:
        location = str(error.absolute_keyword_location)
        # it points `dependentRequired` errors into the keyword's value (`.../base64/0`)
        location = re.sub(r"(/dependentRequired)/.*$", r"\1", location)
        keyword = unescape(location.rsplit("/", 1)[1])
        branches: tuple[tuple[Raw, ...], ...] = ()
        if keyword in UNIONS:
            context = error.kind.as_dict().get("context", [])
            branches = tuple(tuple(from_jsonschema_rs(branch)) for branch in context)
        raws.append(Raw(pointer_of(error.instance_path), keyword, location, branches))
    return raws


def from_hyperjump(nodes: Iterable[dict[str, Any]]) -> list[Raw]:
    """``@hyperjump/json-schema`` DETAILED output nodes in the neutral form.

    ``instanceLocation`` (``#`` + pointer) is the pointer, ``absoluteKeywordLocation``
    the location; nodes that only say a subschema failed (``ref``, ``properties``,
    ``items`` ..., ``additionalProperties`` with a subschema) give way to the nodes
    under them; a union node's children are its branches, by the branch position that
    follows the union's location.
    """
    raws: list[Raw] = []
    for node in nodes:
        location = node["absoluteKeywordLocation"]
        keyword = node["keyword"].rsplit("/", 1)[1]
        pointer = node["instanceLocation"].removeprefix("#")
        children = node.get("errors", [])
        opens = keyword in _SUBSCHEMA_ONLY or (
            keyword == "additionalProperties" and schema_at(location) is not False
        )
        if opens and children:
            raws.extend(from_hyperjump(children))
        elif keyword in UNIONS:
            union: list[Any] = schema_at(location)
            grouped: list[list[dict[str, Any]]] = [[] for _ in union]
            for child in children:
                position = child["absoluteKeywordLocation"][len(location) + 1 :].split("/")[0]
                grouped[int(position)].append(child)
            branches = tuple(tuple(from_hyperjump(group)) for group in grouped)
            raws.append(Raw(pointer, keyword, location, branches))
        else:
            raws.append(Raw(pointer, keyword, location))
    return raws


def leaf_pairs(raws: Iterable[Raw]) -> set[tuple[str, str]]:
    """The raw (pointer, keyword) pairs before any step: every error that is not a union,
    branches included (what a flat error list shows)."""
    pairs: set[tuple[str, str]] = set()
    for raw in raws:
        if raw.branches:
            for branch in raw.branches:
                pairs |= leaf_pairs(branch)
        else:
            pairs.add((raw.pointer, raw.keyword))
    return pairs
