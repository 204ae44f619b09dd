#!/usr/bin/env node
// Validate every conformance fixture with ajv and report in chatschema's conventions.
//
//     node tests/ts/ajv-fixtures.mjs [--summary FILE]
//     node tests/ts/ajv-fixtures.mjs --instances FILE   # [{type, instance}] -> [{valid, errors}]
//
// Prints to stdout a JSON report, one entry per fixture, sorted by path:
//     {"schemas/fixtures/invalid/Message/unknown-role.json":
//        {"valid": false, "errors": [{"pointer": "/role", "keyword": "discriminator"}]}, ...}
// and to stderr a short summary (written as JSON to FILE with --summary). Exits 1 when
// a fixture gets the wrong verdict, when its (pointer, keyword) pairs differ from the
// fixture's `errors`, or when ajv's strict mode finds a problem in the schemas other
// than the known one below.
//
// How ajv is set up (schemas/README.md shows the same snippet):
//
// - Ajv2020 with `discriminator: true, allErrors: true, strict: true`.
// - `strictRequired: false`. Strict mode rejects the data blocks' at-least-one-source
//   rule, `"anyOf": [{"required": ["url"]}, {"required": ["base64"]}, ...]`: ajv's
//   strictRequired check looks for `url` in the `properties` of the anyOf branch only,
//   not of the schema around it (ajv-validator/ajv#1571, #1950, labelled "limitation").
//   The schemas are right; the strict audit below reports every such place, and fails
//   on any other strict-mode finding.
// - `validateFormats: false`. In chatschema, as in JSON Schema 2020-12 by default,
//   `format` is an annotation: the Python validator does not assert it, and the rules
//   it hints at are enforced by `pattern`. With ajv-formats asserting `uri` (RFC 3986),
//   ajv would reject URLs chatschema accepts (`https://example.com/{id}`, non-ASCII
//   hosts, bad percent escapes ...). The "formats" part of the summary measures that:
//   the fixtures and a few probe URLs validated once more with ajv-formats loaded.
// - `verbose: true`, only so that errors carry their schema and data, which the
//   normalization to chatschema's conventions needs; verdicts do not depend on it.
//
// Normalization to chatschema's conventions: `normalize()` of codegen/npm/runtime.mjs,
// the code the npm package ships (generated/typescript/runtime.js); its header lists
// the rules.

import {readFileSync, readdirSync, writeFileSync} from "node:fs";
import {dirname, join} from "node:path";
import {fileURLToPath} from "node:url";
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import {normalize} from "../../codegen/npm/runtime.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const SCHEMA_FILES = ["content", "tool", "usage", "message", "chunk", "conversation"];

/** The ajv options of the reference setup (see the top of this file). */
export const AJV_OPTIONS = {
  discriminator: true,
  allErrors: true,
  strict: true,
  strictRequired: false,
  validateFormats: false,
  verbose: true,
};

export function loadSchemas() {
  return SCHEMA_FILES.map((stem) =>
    JSON.parse(readFileSync(join(ROOT, "schemas", `${stem}.json`), "utf8")),
  );
}

/** Every type name a fixture folder may have -> the URI of its schema. */
export function typeUris(schemas) {
  const uris = {};
  for (const schema of schemas) {
    if (schema.properties || schema.oneOf) uris[schema.title] = schema.$id;
    for (const name of Object.keys(schema.$defs ?? {})) uris[name] = `${schema.$id}#/$defs/${name}`;
  }
  return uris;
}

export function makeAjv(schemas, options = AJV_OPTIONS, withFormats = false) {
  const ajv = new Ajv2020(options);
  if (withFormats) addFormats(ajv);
  for (const schema of schemas) ajv.addSchema(schema);
  return ajv;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isRequiredOnly(branch) {
  return isObject(branch) && Object.keys(branch).join() === "required";
}

// ----------------------------------------------------------------------------- fixtures

export function loadFixtures() {
  const fixtures = [];
  for (const kind of ["valid", "invalid"]) {
    const base = join(ROOT, "schemas", "fixtures", kind);
    for (const type of readdirSync(base).sort()) {
      for (const file of readdirSync(join(base, type)).sort()) {
        if (!file.endsWith(".json")) continue;
        const path = `schemas/fixtures/${kind}/${type}/${file}`;
        const document = JSON.parse(readFileSync(join(ROOT, path), "utf8"));
        fixtures.push({
          path,
          type,
          valid: kind === "valid",
          instance: kind === "valid" ? document : document.instance,
          errors: kind === "valid" ? [] : document.errors,
        });
      }
    }
  }
  return fixtures.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function pairs(errors) {
  return [
    ...new Set(errors.map(({pointer, keyword}) => `${keyword} ${pointer || "(root)"}`)),
  ].sort();
}

function check(ajv, uris, fixture) {
  const uri = uris[fixture.type];
  if (!uri) throw new Error(`${fixture.path}: no schema defines ${fixture.type}`);
  const validate = ajv.getSchema(uri);
  const valid = validate(fixture.instance);
  return {valid: Boolean(valid), errors: valid ? [] : normalize(validate.errors ?? [])};
}

// ----------------------------------------------------------------------------- strict mode

function pointerGet(node, pointer) {
  for (const part of pointer.split("/").slice(1)) {
    const key = part.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object" || !(key in node)) return undefined;
    node = node[key];
  }
  return node;
}

/**
 * Compile every type with strict mode on and logging instead of throwing, and say
 * precisely where each finding is. (ajv names the place relative to the subschema it
 * was compiling, `content.json#/anyOf/0`: the candidates are looked up in the file.)
 */
export function strictAudit(schemas) {
  const messages = new Set();
  const logger = {
    log() {},
    warn: (m) => messages.add(String(m)),
    error: (m) => messages.add(String(m)),
  };
  const options = {
    ...AJV_OPTIONS,
    strict: "log",
    strictRequired: "log",
    validateFormats: true,
    logger,
  };
  delete options.verbose;
  const ajv = makeAjv(schemas, options, true);
  for (const uri of Object.values(typeUris(schemas))) ajv.getSchema(uri);
  const byId = Object.fromEntries(schemas.map((schema) => [schema.$id, schema]));
  const findings = [];
  for (const message of [...messages].sort()) {
    const match =
      /^strict mode: required property "(.+)" is not defined at "(.+?)#(.*)" \(strictRequired\)$/.exec(
        message,
      );
    if (!match) {
      findings.push({rule: "other", message, locations: [], known: false});
      continue;
    }
    const [, property, id, pointer] = match;
    const schema = byId[id] ?? {};
    const roots = [
      ["", schema],
      ...Object.entries(schema.$defs ?? {}).map(([n, d]) => [`/$defs/${n}`, d]),
    ];
    const locations = [];
    let known = true;
    for (const [prefix, root] of roots) {
      const node = pointerGet(root, pointer);
      if (isObject(node) && Array.isArray(node.required) && node.required.includes(property)) {
        locations.push(`${id.split("/").pop()}#${prefix}${pointer}`);
        // Known: a branch of an anyOf made only of `required` lists (at least one source),
        // naming a property the enclosing schema defines.
        const union = pointerGet(root, pointer.replace(/\/\d+$/, ""));
        known &&=
          /\/anyOf\/\d+$/.test(pointer) &&
          Array.isArray(union) &&
          union.every(isRequiredOnly) &&
          isObject(root.properties) &&
          property in root.properties;
      }
    }
    findings.push({
      rule: "strictRequired",
      property,
      message,
      locations,
      known: known && locations.length > 0,
    });
  }
  return findings;
}

// ----------------------------------------------------------------------------- bundle

const BUNDLE_PATH = "generated/chatschema.schema.json";

/** The same fixtures against the bundled single-file schema: same verdicts, same errors. */
function bundleDiagnostic(fixtures, reference) {
  const bundle = JSON.parse(readFileSync(join(ROOT, BUNDLE_PATH), "utf8"));
  const ajv = new Ajv2020(AJV_OPTIONS);
  ajv.addSchema(bundle);
  const uris = Object.fromEntries(
    Object.keys(bundle.$defs).map((name) => [name, `${bundle.$id}#/$defs/${name}`]),
  );
  const otherResults = fixtures
    .filter((fixture) => {
      const result = check(ajv, uris, fixture);
      const expected = reference[fixture.path];
      return (
        result.valid !== expected.valid ||
        pairs(result.errors).join("|") !== pairs(expected.errors).join("|")
      );
    })
    .map((fixture) => fixture.path);
  return {otherResults};
}

// ----------------------------------------------------------------------------- formats

const URL_PROBES = [
  "https://example.com/cat.png",
  "gs://bucket/object.pdf",
  "data:image/png;base64,iVBORw0KGgo=",
  "https://example.com/{id}",
  "https://example.com/a%zz",
  "https://例え.jp/猫.png",
  "https://example.com/a|b",
];

function formatsDiagnostic(schemas, uris, fixtures, reference) {
  const ajv = makeAjv(schemas, {...AJV_OPTIONS, validateFormats: true}, true);
  const changed = fixtures
    .filter((fixture) => check(ajv, uris, fixture).valid !== reference[fixture.path].valid)
    .map((fixture) => fixture.path);
  const plain = makeAjv(schemas).getSchema(uris.Url);
  const asserted = ajv.getSchema(uris.Url);
  const probes = URL_PROBES.map((url) => ({
    url,
    chatschema: plain(url),
    ajvFormats: asserted(url),
  }));
  return {
    note: "ajv-formats asserting `format: uri` (not the reference setup)",
    fixturesWithAnotherVerdict: changed,
    urlProbesWithAnotherVerdict: probes.filter((probe) => probe.chatschema !== probe.ajvFormats),
  };
}

// ----------------------------------------------------------------------------- main

/** `--instances FILE`: validate [{type, instance}] and print [{valid, errors}]. */
function validateInstances(file) {
  const schemas = loadSchemas();
  const uris = typeUris(schemas);
  const ajv = makeAjv(schemas);
  const items = JSON.parse(readFileSync(file, "utf8"));
  const results = items.map(({type, instance}) => check(ajv, uris, {type, path: file, instance}));
  process.stdout.write(JSON.stringify(results) + "\n");
  return 0;
}

function main(argv) {
  const instancesAt = argv.indexOf("--instances");
  if (instancesAt >= 0) return validateInstances(argv[instancesAt + 1]);
  const summaryAt = argv.indexOf("--summary");
  const summaryFile = summaryAt >= 0 ? argv[summaryAt + 1] : null;
  const schemas = loadSchemas();
  const uris = typeUris(schemas);
  const ajv = makeAjv(schemas);
  const fixtures = loadFixtures();
  const report = {};
  const wrongVerdicts = [];
  const otherErrors = [];
  for (const fixture of fixtures) {
    const result = check(ajv, uris, fixture);
    report[fixture.path] = result;
    if (result.valid !== fixture.valid) {
      wrongVerdicts.push({
        path: fixture.path,
        expected: fixture.valid,
        ajv: result.valid,
        errors: pairs(result.errors),
      });
    } else if (
      !fixture.valid &&
      pairs(result.errors).join("|") !== pairs(fixture.errors).join("|")
    ) {
      otherErrors.push({
        path: fixture.path,
        expected: pairs(fixture.errors),
        ajv: pairs(result.errors),
      });
    }
  }
  const strict = strictAudit(schemas);
  const bundle = bundleDiagnostic(fixtures, report);
  const summary = {
    ajvOptions: AJV_OPTIONS,
    fixtures: fixtures.length,
    valid: fixtures.filter((f) => f.valid).length,
    invalid: fixtures.filter((f) => !f.valid).length,
    sameVerdict: fixtures.length - wrongVerdicts.length,
    sameErrors:
      fixtures.filter((f) => !f.valid).length -
      otherErrors.length -
      wrongVerdicts.filter((w) => !w.expected).length,
    wrongVerdicts,
    otherErrors,
    strictMode: strict,
    bundle,
    formats: formatsDiagnostic(schemas, uris, fixtures, report),
  };
  process.stdout.write(JSON.stringify(report, null, 2) + "\n");
  if (summaryFile) writeFileSync(summaryFile, JSON.stringify(summary, null, 2) + "\n");

  const lines = [
    `ajv ${summary.sameVerdict}/${summary.fixtures} fixtures with the expected verdict; ` +
      `${summary.sameErrors}/${summary.invalid} invalid ones with the expected (pointer, keyword) pairs`,
  ];
  for (const wrong of wrongVerdicts)
    lines.push(
      `  WRONG VERDICT ${wrong.path}: ajv says ${wrong.ajv ? "valid" : "invalid"} ${wrong.errors.join(", ")}`,
    );
  for (const other of otherErrors)
    lines.push(
      `  OTHER ERRORS ${other.path}: expected ${other.expected.join(", ")}; ajv ${other.ajv.join(", ")}`,
    );
  const known = strict.filter((finding) => finding.known);
  if (known.length) {
    lines.push(
      `  strict mode, known (hence strictRequired: false): \`required\` inside an anyOf branch at ` +
        known
          .flatMap((finding) => finding.locations.map((at) => `${at} (${finding.property})`))
          .sort()
          .join(", "),
    );
  }
  for (const finding of strict.filter((finding) => !finding.known)) {
    lines.push(
      `  strict mode, UNEXPECTED: ${finding.message}` +
        (finding.locations.length ? ` -> ${finding.locations.join(", ")}` : ""),
    );
  }
  const formats = summary.formats;
  lines.push(
    `  with ajv-formats asserting uri: ${formats.fixturesWithAnotherVerdict.length} fixture(s) and ` +
      `${formats.urlProbesWithAnotherVerdict.length}/${URL_PROBES.length} probe URLs get another verdict` +
      (formats.urlProbesWithAnotherVerdict.length
        ? ` (${formats.urlProbesWithAnotherVerdict.map((p) => p.url).join(", ")})`
        : ""),
  );
  lines.push(
    `  the bundled schema (${BUNDLE_PATH}): ${fixtures.length - bundle.otherResults.length}/` +
      `${fixtures.length} fixtures with the same verdict and errors` +
      bundle.otherResults.map((path) => `\n    DIFFERS ${path}`).join(""),
  );
  process.stderr.write(lines.join("\n") + "\n");
  const failed =
    wrongVerdicts.length > 0 ||
    otherErrors.length > 0 ||
    strict.some((f) => !f.known) ||
    bundle.otherResults.length > 0;
  return failed ? 1 : 0;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = main(process.argv.slice(2));
}
