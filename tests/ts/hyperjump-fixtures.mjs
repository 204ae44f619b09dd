#!/usr/bin/env node
// Validate every conformance fixture with @hyperjump/json-schema, in one process.
//
//     node tests/ts/hyperjump-fixtures.mjs [--instances FILE]
//
// Prints a JSON report to stdout:
//     {"version": "1.18.0", "milliseconds": 410,
//      "fixtures": {"schemas/fixtures/invalid/Message/unknown-role.json":
//                     {"valid": false, "errors": [<DETAILED output nodes>]}, ...},
//      "instances": [{"valid": ..., "errors": [...]}, ...]}
// `instances` (with --instances) is the same for each {type, instance} of FILE, a JSON
// array, in order: more documents in the same process.
// `errors` is hyperjump's DETAILED output as it comes (a tree: each node has `keyword`,
// a keyword URI; `absoluteKeywordLocation`; `instanceLocation`, `#`-prefixed; and the
// failing subschemas under `errors`). tests/conformance_errors.py maps it onto the
// fixtures' {pointer, keyword} by the steps of schemas/README.md, "Reading any
// validator's errors", and tests/test_conformance_validators.py compares.
//
// Setup: the six schema files registered by their `$id` (nothing fetched), draft
// 2020-12; `format` is not asserted (hyperjump's default), `discriminator` is an
// unknown keyword to it, hence ignored.

import {readFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";
import {registerSchema, validate} from "@hyperjump/json-schema/draft-2020-12";
import {DETAILED} from "@hyperjump/json-schema/experimental";
import {loadFixtures, loadSchemas, typeUris} from "./ajv-fixtures.mjs";

const started = performance.now();
const schemas = loadSchemas();
for (const schema of schemas) registerSchema(schema);
const uris = typeUris(schemas);
const validators = {};

async function check({path, type, instance}) {
  const uri = uris[type];
  if (!uri) throw new Error(`${path}: no schema defines ${type}`);
  validators[uri] ??= await validate(uri);
  const output = validators[uri](instance, DETAILED);
  return {valid: output.valid, errors: output.errors ?? []};
}

const fixtures = {};
for (const fixture of loadFixtures()) fixtures[fixture.path] = await check(fixture);
const report = {version: "", milliseconds: 0, fixtures};
const instancesAt = process.argv.indexOf("--instances");
if (instancesAt >= 0) {
  const file = process.argv[instancesAt + 1];
  report.instances = [];
  for (const item of JSON.parse(readFileSync(file, "utf8"))) {
    report.instances.push(await check({path: file, ...item}));
  }
}
const manifest = join(
  dirname(fileURLToPath(import.meta.url)),
  "../../node_modules/@hyperjump/json-schema/package.json",
);
report.version = JSON.parse(readFileSync(manifest, "utf8")).version;
report.milliseconds = Math.round(performance.now() - started);
process.stdout.write(JSON.stringify(report) + "\n");
