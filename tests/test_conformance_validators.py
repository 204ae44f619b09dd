"""The conformance fixtures through two more independent validators.

The Rust ``jsonschema`` crate (its PyPI binding ``jsonschema-rs``, in the ``dev``
extra) and ``@hyperjump/json-schema`` (npm, a devDependency; all fixtures in one
``node`` process, tests/ts/hyperjump-fixtures.mjs): every verdict, and after the steps
of schemas/README.md ("Reading any validator's errors", implemented in
tests/conformance_errors.py) every ``{pointer, keyword}`` pair. Each skips, saying what
to install, when its package is missing; ajv has its own checks (test_typescript.py).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest
from conformance_errors import (
    SCHEMAS,
    Raw,
    from_hyperjump,
    from_jsonschema_rs,
    leaf_pairs,
    problems,
    type_uris,
)
from conftest import CASES, ROOT, Case
from test_typescript import NODE, _mutants, node_modules  # noqa: F401 (the fixture, by name)

from chatschema.validation import schema_problems

RS_PIN = "jsonschema-rs==0.61.0"
HYPERJUMP_PIN = "@hyperjump/json-schema@1.18.0"
TRAP_FIXTURES = [case for case in CASES if "trailing-" in case.path.stem]


def _path(case: Case) -> str:
    return case.path.relative_to(ROOT).as_posix()


# --------------------------------------------------------------------------- jsonschema-rs


@dataclass(frozen=True)
class Outcome:
    """One validator's verdict and raw errors on one document."""

    valid: bool
    raws: list[Raw]


def _jsonschema_rs() -> ModuleType:
    try:
        import jsonschema_rs
    except ImportError:
        pytest.skip(
            f"jsonschema-rs (the Rust jsonschema crate) is not installed: "
            f".venv/bin/pip install '{RS_PIN}' (it is in the [dev] extra)"
        )
    return jsonschema_rs


@pytest.fixture(scope="module")
def rs_check() -> Any:
    """A function (type name, instance) -> :class:`Outcome` with jsonschema-rs."""
    module = _jsonschema_rs()
    registry = module.Registry(list(SCHEMAS.items()))
    uris = type_uris()
    validators: dict[str, Any] = {}

    def check(type_name: str, instance: Any) -> Outcome:
        if type_name not in validators:
            root = {"$schema": "https://json-schema.org/draft/2020-12/schema"}
            validators[type_name] = module.validator_for(
                {**root, "$ref": uris[type_name]}, registry=registry
            )
        errors = list(validators[type_name].iter_errors(instance))
        return Outcome(not errors, from_jsonschema_rs(errors))

    return check


def test_jsonschema_rs_agrees_with_the_fixture(case: Case, rs_check: Any) -> None:
    outcome = rs_check(case.type, case.instance)
    assert outcome.valid == case.valid
    assert set(problems(outcome.raws, case.instance)) == case.errors


def test_jsonschema_rs_agrees_with_python_on_mutated_fixtures(rs_check: Any) -> None:
    """Beyond the fixtures: random breakages of them (the ajv test's mutants)."""
    mutants = _mutants(per_fixture=1, seed=20_251)[::3]  # a third: the Python side is slow
    differences = []
    for mutant in mutants:
        outcome = rs_check(mutant["type"], mutant["instance"])
        expected = {(p.pointer, p.keyword) for p in schema_problems(**_args(mutant))}
        got = set(problems(outcome.raws, mutant["instance"]))
        if outcome.valid != (not expected) or got != expected:
            differences.append((mutant, sorted(got), sorted(expected)))
    assert differences == [], differences[:3]


def _args(mutant: dict[str, Any]) -> dict[str, Any]:
    return {"instance": mutant["instance"], "type": mutant["type"]}


# --------------------------------------------------------------------------- hyperjump


@dataclass(frozen=True)
class HyperjumpRun:
    """What tests/ts/hyperjump-fixtures.mjs said, and how long the process took."""

    version: str
    milliseconds: int
    seconds: float
    fixtures: dict[str, dict[str, Any]]
    mutants: list[dict[str, Any]]
    outcomes: list[dict[str, Any]]  # of the mutants


def _hyperjump_ready(request: pytest.FixtureRequest) -> str:
    if NODE is None:
        pytest.skip(
            f"node is not on PATH: the {HYPERJUMP_PIN} check needs Node 18+ "
            f"(then `npm ci`, which installs it from package-lock.json)"
        )
    install = f"npm install --save-dev --save-exact --no-audit {HYPERJUMP_PIN}"
    try:
        request.getfixturevalue("node_modules")  # npm ci when the lockfile changed
    except pytest.fail.Exception as failure:
        pytest.skip(f"{HYPERJUMP_PIN} could not be installed (npm ci failed): {install}\n{failure}")
    if not (ROOT / "node_modules" / "@hyperjump" / "json-schema" / "package.json").exists():
        pytest.skip(f"{HYPERJUMP_PIN} is not in node_modules: {install}")
    return NODE


@pytest.fixture(scope="module")
def hyperjump(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> HyperjumpRun:
    """All fixtures, and a third of one round of the ajv test's mutants, through
    @hyperjump/json-schema in one node process."""
    node = _hyperjump_ready(request)
    mutants = _mutants(per_fixture=1, seed=20_252)[::3]
    instances = tmp_path_factory.mktemp("hyperjump") / "instances.json"
    instances.write_text(json.dumps(mutants), encoding="utf-8")
    started = time.perf_counter()
    result = subprocess.run(
        [node, "tests/ts/hyperjump-fixtures.mjs", "--instances", str(instances)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    seconds = time.perf_counter() - started
    if result.returncode != 0:
        pytest.fail(f"the hyperjump script failed:\n{result.stderr[-3000:]}")
    report = json.loads(result.stdout)
    return HyperjumpRun(
        report["version"],
        report["milliseconds"],
        seconds,
        report["fixtures"],
        mutants,
        report["instances"],
    )


def test_hyperjump_covers_every_fixture(hyperjump: HyperjumpRun) -> None:
    assert hyperjump.version == HYPERJUMP_PIN.rsplit("@", 1)[1]
    assert set(hyperjump.fixtures) == {_path(case) for case in CASES}
    assert hyperjump.seconds < 60, f"one node process took {hyperjump.seconds:.1f} s"


def test_hyperjump_agrees_with_the_fixture(case: Case, hyperjump: HyperjumpRun) -> None:
    outcome = hyperjump.fixtures[_path(case)]
    assert outcome["valid"] == case.valid
    assert set(problems(from_hyperjump(outcome["errors"]), case.instance)) == case.errors


def test_hyperjump_agrees_with_python_on_mutated_fixtures(hyperjump: HyperjumpRun) -> None:
    differences = []
    for mutant, outcome in zip(hyperjump.mutants, hyperjump.outcomes, strict=True):
        expected = {(p.pointer, p.keyword) for p in schema_problems(**_args(mutant))}
        got = set(problems(from_hyperjump(outcome["errors"]), mutant["instance"]))
        if outcome["valid"] != (not expected) or got != expected:
            differences.append((mutant, sorted(got), sorted(expected)))
    assert differences == [], differences[:3]


# --------------------------------------------------------------------------- the steps


def test_the_steps_are_needed(rs_check: Any, hyperjump: HyperjumpRun) -> None:
    """Raw errors alone do not give the fixtures' pairs: the discriminator and anyOf rules."""
    invalid = [case for case in CASES if not case.valid]
    for name, raws_of in (
        ("jsonschema-rs", lambda case: rs_check(case.type, case.instance).raws),
        ("hyperjump", lambda case: from_hyperjump(hyperjump.fixtures[_path(case)]["errors"])),
    ):
        raw_equal = [case for case in invalid if leaf_pairs(raws_of(case)) == case.errors]
        assert len(raw_equal) < len(invalid) * 0.8, name
        discriminated = next(c for c in invalid if c.id == "invalid/Message/unknown-role")
        assert ("/role", "discriminator") not in leaf_pairs(raws_of(discriminated)), name


def _shown(raws: list[Raw] | tuple[Raw, ...]) -> list[dict[str, Any]]:
    """Raw errors as the README's worked example writes them."""
    shown = []
    for raw in raws:
        entry: dict[str, Any] = {"pointer": raw.pointer, "keyword": raw.keyword}
        entry["location"] = raw.location.rsplit("/v1/", 1)[1]
        if raw.branches:
            entry["branches"] = [_shown(branch) for branch in raw.branches]
        shown.append(entry)
    return shown


def test_worked_example_of_the_readme(rs_check: Any) -> None:
    """The worked example in schemas/README.md is what jsonschema-rs says, mapped."""
    text = (ROOT / "schemas" / "README.md").read_text(encoding="utf-8")
    section = text[text.index("### Worked example") :]
    blocks = re.findall(r"```json\n(.*?)```", section, re.DOTALL)
    instance, raw, expected = (json.loads(block) for block in blocks[:3])
    outcome = rs_check("Message", instance)
    assert _shown(outcome.raws) == raw
    assert problems(outcome.raws, instance) == [(e["pointer"], e["keyword"]) for e in expected]
    assert [(p.pointer, p.keyword) for p in schema_problems(instance, "Message")] == [
        (e["pointer"], e["keyword"]) for e in expected
    ]


# --------------------------------------------------------------------------- portability traps


def test_every_pattern_has_trailing_terminator_fixtures() -> None:
    """\\n, \\r\\n and \\r after a value each pattern accepts, for each patterned string."""
    patterns = re.findall(r'"pattern": "((?:[^"\\]|\\.)*)"', _schema_text())
    assert len(patterns) == 3
    found = {(case.path.parent.name, case.path.stem) for case in TRAP_FIXTURES}
    for field_name in ("ttl", "url", "mime-type"):
        for ending in ("lf", "crlf", "cr"):
            assert any(stem == f"{field_name}-trailing-{ending}" for _, stem in found)
    for case in TRAP_FIXTURES:
        assert len(case.errors) == 1
        ((pointer, keyword),) = case.errors
        assert keyword == "pattern"
        value = case.instance[pointer.lstrip("/")]
        assert value.endswith(("\n", "\r"))
        trimmed = dict(case.instance, **{pointer.lstrip("/"): value.rstrip("\r\n")})
        assert schema_problems(trimmed, case.type) == [], "the value without it is valid"


def test_the_trap_fixtures_catch_a_dollar_before_a_final_newline() -> None:
    """A validator whose `$` matches before a final newline (the stock Python
    jsonschema, like `java.util.regex`) accepts the \\n ones: the fixtures catch it."""
    from jsonschema import Draft202012Validator
    from referencing import Registry
    from referencing.jsonschema import DRAFT202012

    registry: Registry[Any] = Registry().with_resources(
        (uri, DRAFT202012.create_resource(schema)) for uri, schema in SCHEMAS.items()
    )
    uris = type_uris()
    accepted = []
    for case in TRAP_FIXTURES:
        stock = Draft202012Validator({"$ref": uris[case.type]}, registry=registry)
        if stock.is_valid(case.instance):
            accepted.append(case.path.stem)
    assert sorted(accepted) == ["mime-type-trailing-lf", "ttl-trailing-lf", "url-trailing-lf"]


def _schema_text() -> str:
    return "".join(json.dumps(schema, indent=0) for schema in SCHEMAS.values())
