"""The npm package (generated/typescript/), tried as a consumer would.

``npm pack`` on the generated package, ``npm install --offline`` of the tarball into a
scratch project (the package has no dependencies, so nothing is fetched), ``tsc
--strict`` of ``tests/npm/consumer.ts`` there with the repository's TypeScript, and
``node`` on the output: the package's validators must give every conformance fixture,
and random breakages of them, the verdict and the (pointer, keyword) problems of the
Python SDK. Two tampered copies of the installed package show that a wrong verdict or
a wrong pointer fails the comparison.

Needs Node (18+) and npm; skipped, with the reason, when either is missing.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tarfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import CASES, ROOT
from test_typescript import _mutants

import chatschema
from chatschema.validation import schema_problems

NODE = shutil.which("node")
NPM = shutil.which("npm")

pytestmark = pytest.mark.skipif(
    NODE is None or NPM is None,
    reason="node and npm are not on PATH: the npm package checks need Node 18+",
)

PACKAGE = ROOT / "generated" / "typescript"
CONSUMER = ROOT / "tests" / "npm"
TSC = ROOT / "node_modules" / ".bin" / "tsc"
SCHEMA_FILES = ("content", "tool", "usage", "message", "chunk", "conversation")
PACKED_FILES = {
    "package.json",
    "README.md",
    "index.js",
    "index.d.ts",
    "chatschema.d.ts",
    "validators.js",
    "runtime.js",
    "schemas/chatschema.schema.json",
    *(f"schemas/{stem}.json" for stem in SCHEMA_FILES),
}


def _run(
    command: Sequence[str | Path], cwd: Path, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _ok(result: subprocess.CompletedProcess[str], what: str) -> str:
    assert result.returncode == 0, f"{what} failed:\n{result.stdout[-3000:]}\n{result.stderr}"
    return result.stdout


def _project_version() -> str:
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    match = re.search(r'^\[project\][^\[]*?^version = "([^"]+)"', text, re.M | re.S)
    assert match is not None
    return match.group(1)


# The cases: every fixture, then four random breakages of each (as test_typescript.py).
FIXTURE_CASES = [{"type": case.type, "instance": case.instance} for case in CASES]
MUTANT_CASES = _mutants(per_fixture=4, seed=20_251)
ALL_CASES = FIXTURE_CASES + MUTANT_CASES


@dataclass(frozen=True)
class Consumer:
    """The scratch project with the package installed and the consumer compiled."""

    directory: Path
    tarball: Path
    packed: dict[str, Any]  # npm pack --json, for the one package

    def run(self, cases: list[dict[str, Any]]) -> dict[str, Any]:
        assert NODE is not None
        path = self.directory / "cases.json"
        path.write_text(json.dumps(cases), encoding="utf-8")
        out = _ok(_run([NODE, "out/consumer.js", path], self.directory), "the consumer")
        report: dict[str, Any] = json.loads(out)
        assert len(report["results"]) == len(cases)
        return report

    def tampered(self, where: Path, file: str, old: str, new: str) -> Consumer:
        """A copy of the project whose installed package has `old` replaced in `file`."""
        shutil.copytree(self.directory, where)
        target = where / "node_modules" / "chatschema" / file
        text = target.read_text("utf-8")
        assert text.count(old) == 1, f"{old!r} is not once in {file}"
        target.write_text(text.replace(old, new), encoding="utf-8")
        return Consumer(where, self.tarball, self.packed)


@pytest.fixture(scope="module")
def consumer(tmp_path_factory: pytest.TempPathFactory) -> Consumer:
    assert NPM is not None
    if not TSC.exists():
        pytest.fail("node_modules/.bin/tsc is missing: run `npm ci` (make generate does)")
    base = tmp_path_factory.mktemp("npm")
    packs = base / "packs"
    packs.mkdir()
    out = _ok(
        _run([NPM, "pack", "--json", "--ignore-scripts", "--pack-destination", packs], PACKAGE),
        "npm pack",
    )
    [packed] = json.loads(out)
    tarball = packs / packed["filename"]
    assert tarball.is_file()

    project = base / "consumer"
    project.mkdir()
    (project / "package.json").write_text(
        json.dumps({"name": "consumer", "private": True, "type": "module"}), encoding="utf-8"
    )
    for name in ("consumer.ts", "node-globals.d.ts", "tsconfig.json"):
        shutil.copy(CONSUMER / name, project / name)
    _ok(
        _run(
            [NPM, "install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball],
            project,
        ),
        "npm install --offline of the tarball",
    )
    _ok(_run([TSC, "--strict", "-p", "tsconfig.json"], project), "tsc --strict")
    return Consumer(project, tarball, packed)


@pytest.fixture(scope="module")
def report(consumer: Consumer) -> dict[str, Any]:
    return consumer.run(ALL_CASES)


def _pairs(problems: list[dict[str, str]]) -> set[tuple[str, str]]:
    return {(problem["pointer"], problem["keyword"]) for problem in problems}


def differences(
    cases: list[dict[str, Any]], results: list[dict[str, Any]]
) -> list[tuple[dict[str, Any], str]]:
    """Where the package and the Python SDK disagree, with what: [] when nowhere."""
    found = []
    for case, result in zip(cases, results, strict=True):
        problems = schema_problems(case["instance"], case["type"])
        python_pairs = {(p.pointer, p.keyword) for p in problems}
        python_valid = chatschema.is_valid(case["instance"], case["type"])
        if result["valid"] is not python_valid or result["isValid"] is not python_valid:
            found.append((case, f"verdict {result['valid']}, Python {python_valid}"))
        elif _pairs(result["errors"]) != python_pairs:
            package_pairs = sorted(_pairs(result["errors"]))
            found.append((case, f"errors {package_pairs}, Python {sorted(python_pairs)}"))
        elif result["problems"] != result["errors"]:
            found.append((case, "schemaProblems() and .errors differ"))
        elif len({(p["pointer"], p["keyword"]) for p in result["errors"]}) != len(result["errors"]):
            found.append((case, "a (pointer, keyword) pair twice"))
        elif not all(isinstance(p["message"], str) and p["message"] for p in result["errors"]):
            found.append((case, "a problem without a message"))
    return found


# --------------------------------------------------------------------------- the package


def test_tarball_holds_the_package(consumer: Consumer) -> None:
    packed = consumer.packed
    assert packed["name"] == "chatschema"
    assert packed["version"] == _project_version()
    assert {entry["path"] for entry in packed["files"]} == PACKED_FILES
    with tarfile.open(consumer.tarball) as tar:
        names = {name.removeprefix("package/") for name in tar.getnames()}
    assert names == PACKED_FILES


def test_manifest_and_self_contained_install(consumer: Consumer) -> None:
    installed = consumer.directory / "node_modules"
    # Only the package: it has no dependencies, and nothing else was fetched.
    assert sorted(p.name for p in installed.iterdir() if not p.name.startswith(".")) == [
        "chatschema"
    ]
    manifest = json.loads((installed / "chatschema" / "package.json").read_text("utf-8"))
    assert manifest["type"] == "module"
    assert manifest["license"] == "Apache-2.0"
    for key in ("dependencies", "peerDependencies", "optionalDependencies", "scripts"):
        assert key not in manifest
    assert manifest["exports"]["."] == {"types": "./index.d.ts", "default": "./index.js"}
    assert manifest["exports"]["./schemas/*.json"] == "./schemas/*.json"
    code = "\n".join(
        (installed / "chatschema" / name).read_text("utf-8")
        for name in ("index.js", "runtime.js", "validators.js")
    )
    assert "require(" not in code
    imports = set(re.findall(r'^import .* from "([^"]+)";$', code, re.M))
    assert imports == {"./validators.js", "./runtime.js"}


def test_package_metadata_seen_by_the_consumer(report: dict[str, Any]) -> None:
    about = report["about"]
    bundle = json.loads((ROOT / "generated" / "chatschema.schema.json").read_text("utf-8"))
    assert about["version"] == _project_version()
    assert about["schemaVersion"] == "v1"
    assert about["schemaBaseUri"] == "https://schemas.chatschema.dev/v1/"
    assert about["messageSchemaId"] == "https://schemas.chatschema.dev/v1/message.json"
    assert about["typeNames"] == about["bundleDefs"] == sorted(bundle["$defs"])
    assert {case.type for case in CASES} <= set(about["typeNames"])
    assert about["unknownType"].startswith('TypeError: unknown chatschema type "NoSuchType"')
    assert about["sample"] == "user"


# --------------------------------------------------------------------------- verdicts


def test_fixtures_get_their_verdicts_and_errors(report: dict[str, Any]) -> None:
    """Against the fixtures themselves: their verdict and their listed errors."""
    wrong = []
    for case, result in zip(CASES, report["results"][: len(CASES)], strict=True):
        if result["valid"] is not case.valid or _pairs(result["errors"]) != set(case.errors):
            wrong.append((case.id, result["valid"], sorted(_pairs(result["errors"]))))
    assert wrong == []
    assert sum(not case.valid for case in CASES) > 100


def test_same_verdicts_and_problems_as_python(report: dict[str, Any]) -> None:
    """Fixtures and mutants: the Python SDK's verdict and (pointer, keyword) pairs."""
    assert differences(ALL_CASES, report["results"]) == []
    mutant_results = report["results"][len(FIXTURE_CASES) :]
    assert sum(not result["valid"] for result in mutant_results) > len(MUTANT_CASES) // 2


def test_a_wrong_verdict_fails_the_comparison(consumer: Consumer, tmp_path: Path) -> None:
    broken = consumer.tampered(
        tmp_path / "verdict", "runtime.js", "if (compiled(data)) {", "if (!compiled(data)) {"
    )
    results = broken.run(FIXTURE_CASES)["results"]
    assert len(differences(FIXTURE_CASES, results)) == len(FIXTURE_CASES)


def test_a_wrong_pointer_fails_the_comparison(consumer: Consumer, tmp_path: Path) -> None:
    broken = consumer.tampered(
        tmp_path / "pointer",
        "runtime.js",
        "pointer: `${here}/${escape(params.additionalProperty)}`",
        "pointer: `${here}/${params.additionalProperty}/`",
    )
    results = broken.run(FIXTURE_CASES)["results"]
    found = differences(FIXTURE_CASES, results)
    assert found and all(reason.startswith("errors ") for _, reason in found)
    assert all(
        "additionalProperties" in json.dumps(result)
        for case, result in zip(FIXTURE_CASES, results, strict=True)
        if any(case is wrong for wrong, _ in found)
    )


# --------------------------------------------------------------------------- drift


def test_check_reports_a_stale_missing_or_extra_package_file(tmp_path: Path) -> None:
    assert NODE is not None
    outdir = tmp_path / "package"
    script = ROOT / "codegen" / "typescript.mjs"
    _ok(_run([NODE, script, "--outdir", outdir], ROOT), "writing the package")
    _ok(_run([NODE, script, "--check", "--outdir", outdir], ROOT), "checking a fresh package")
    validators = outdir / "validators.js"
    validators.write_text(validators.read_text("utf-8").replace("minLength", "minLengh", 1))
    (outdir / "schemas" / "usage.json").unlink()
    (outdir / "extra.js").write_text("export {};\n")
    stale = _run([NODE, script, "--check", "--outdir", outdir], ROOT)
    assert stale.returncode == 1
    assert "validators.js is stale; 1 line(s) differ" in stale.stderr
    assert "schemas/usage.json is missing" in stale.stderr
    assert "extra.js is not generated" in stale.stderr
    _ok(_run([NODE, script, "--outdir", outdir], ROOT), "regenerating")
    assert not (outdir / "extra.js").exists()
    _ok(_run([NODE, script, "--check", "--outdir", outdir], ROOT), "checking again")
