// The run-time part of the npm package: ajv's errors in chatschema's conventions.
//
// codegen/typescript.mjs copies this file into the package (generated/typescript/
// runtime.js) beside the precompiled validators; tests/ts/ajv-fixtures.mjs imports it
// from here, so the package and the reference ajv setup share one normalization.
// No imports: the package has no dependencies.
//
// The validators are ajv standalone code compiled with `allErrors`, `discriminator`
// and `verbose` (errors carry their schema and data, which the normalization needs).
// normalize() follows the steps of schemas/README.md, "Reading any validator's errors"
// (the Python SDK follows them too: src/chatschema/validation.py), on ajv's flat list:
// - pointer = ajv's instancePath (already RFC 6901), keyword = ajv's keyword;
// - `required`, `dependentRequired`: pointer to the missing property (ajv reports one
//   error per missing property, in `params.missingProperty`);
// - `additionalProperties`: pointer to the unexpected key (`params.additionalProperty`);
// - tagged unions: ajv with `discriminator: true` applies the discriminator rule itself
//   and reports one `discriminator` error on the union when there is no variant to
//   pick: `required` at /tag when the tag is missing, else `discriminator` at /tag;
//   nothing when the value is not an object (the union's `type: object` reports it);
// - other `oneOf` / `anyOf` (the errors of branch i are those whose schemaPath starts
//   with the union's schemaPath + `/i/`): branches made only of `required` -> one `anyOf`
//   at the object, the branches' errors dropped; else the branches failing with `type`
//   at the union's own place are dropped, and when none is left, one `type` error at
//   the value; the union's own error is never a problem;
// - (pointer, keyword) pairs are deduplicated, first one kept.

function escape(name) {
  return String(name).replaceAll("~", "~0").replaceAll("/", "~1");
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function isRequiredOnly(branch) {
  return isObject(branch) && Object.keys(branch).join() === "required";
}

function shown(value) {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/**
 * ajv's errors (compiled with `verbose: true`) -> [{pointer, keyword, message}] in
 * chatschema's conventions.
 */
export function normalize(errors) {
  const dropped = new Set();
  const extra = new Map(); // index of a union error -> what it becomes
  errors.forEach((error, index) => {
    if ((error.keyword !== "oneOf" && error.keyword !== "anyOf") || !Array.isArray(error.schema)) {
      return;
    }
    dropped.add(index); // the union's own error is never a problem
    const here = error.instancePath;
    const prefix = `${error.schemaPath}/`;
    const branchOf = new Map(); // index of an error inside a branch -> the branch
    errors.forEach((other, position) => {
      if (position === index || !other.schemaPath.startsWith(prefix)) return;
      if (other.instancePath !== here && !other.instancePath.startsWith(`${here}/`)) return;
      branchOf.set(position, other.schemaPath.slice(prefix.length).split("/")[0]);
    });
    const drop = (branches) =>
      branchOf.forEach((branch, position) => branches.has(branch) && dropped.add(position));
    if (error.schema.every(isRequiredOnly)) {
      drop(new Set(error.schema.map((_, branch) => String(branch))));
      const names = error.schema.flatMap((option) => option.required);
      extra.set(index, [
        {pointer: here, keyword: "anyOf", message: `must have one of ${names.join(", ")}`},
      ]);
      return;
    }
    const wrongType = new Map(); // branch -> the type it wants
    branchOf.forEach((branch, position) => {
      const other = errors[position];
      if (other.keyword === "type" && other.instancePath === here) {
        wrongType.set(branch, other.params?.type);
      }
    });
    drop(new Set(wrongType.keys()));
    if (wrongType.size === error.schema.length) {
      const types = [...new Set([...wrongType.values()].flat())].join(" or ");
      extra.set(index, [{pointer: here, keyword: "type", message: `must be ${types}`}]);
    }
  });
  const problems = [];
  errors.forEach((error, index) => {
    if (extra.has(index)) problems.push(...extra.get(index));
    if (dropped.has(index)) return;
    const here = error.instancePath;
    const params = error.params ?? {};
    switch (error.keyword) {
      case "required":
      case "dependentRequired":
        problems.push({
          pointer: `${here}/${escape(params.missingProperty)}`,
          keyword: error.keyword,
          message: error.message ?? `must have property ${shown(params.missingProperty)}`,
        });
        break;
      case "additionalProperties":
        problems.push({
          pointer: `${here}/${escape(params.additionalProperty)}`,
          keyword: error.keyword,
          message: `unexpected property ${shown(params.additionalProperty)}`,
        });
        break;
      case "discriminator": {
        if (!isObject(error.data)) break; // the union's `type: object` reports it
        const present = params.tag in error.data;
        problems.push(
          present
            ? {
                pointer: `${here}/${escape(params.tag)}`,
                keyword: "discriminator",
                message: `unknown ${params.tag} ${shown(error.data[params.tag])}`,
              }
            : {
                pointer: `${here}/${escape(params.tag)}`,
                keyword: "required",
                message: `must have required property '${params.tag}'`,
              },
        );
        break;
      }
      default:
        problems.push({pointer: here, keyword: error.keyword, message: error.message ?? ""});
    }
  });
  const seen = new Set();
  return problems.filter(({pointer, keyword}) => {
    const key = `${pointer}\u0000${keyword}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

const NONE = Object.freeze([]);

/**
 * A validator of one type from its compiled ajv function: `validate(data)` is true or
 * false, and `validate.errors` holds the problems of the last call (empty after a valid
 * document), in chatschema's conventions.
 */
export function makeValidator(typeName, compiled) {
  const validate = (data) => {
    if (compiled(data)) {
      validate.errors = NONE;
      return true;
    }
    validate.errors = Object.freeze(normalize(compiled.errors ?? []).map(Object.freeze));
    return false;
  };
  validate.errors = NONE;
  Object.defineProperty(validate, "typeName", {value: typeName, enumerable: true});
  Object.defineProperty(validate, "name", {value: `validate${typeName}`});
  return validate;
}

/** The validator of a type name; a TypeError naming the known ones for any other. */
export function validatorOf(validators, type) {
  if (typeof type === "string" && Object.hasOwn(validators, type)) return validators[type];
  throw new TypeError(
    `unknown chatschema type ${shown(type)}: expected one of ${Object.keys(validators).join(", ")}`,
  );
}
