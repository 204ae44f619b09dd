// A consumer of the npm package, as a team outside this repository would write one:
// tests/test_npm_package.py installs the packed tarball into a scratch project, compiles
// this file there with `tsc --strict` and runs it with node.
//
//     node out/consumer.js CASES.json   # [{type, instance}] -> JSON report on stdout
//
// The report: {"about": {...}, "results": [{valid, isValid, errors, problems}, ...]}, one
// result per case, in order. `errors` is what the type's validator left on `.errors`,
// `problems` what `schemaProblems(instance, type)` returned; the Python test compares
// both with the Python SDK and the fixtures.

import {readFileSync} from "node:fs";
import {
  isValid,
  schemaBaseUri,
  schemaProblems,
  schemaVersion,
  typeNames,
  validateAssistantMessageChunk,
  validateContentBlock,
  validateConversation,
  validateMessage,
  validators,
  version,
  type AssistantMessageChunk,
  type ContentBlock,
  type Conversation,
  type Message,
  type Problem,
  type TypeName,
  type Validator,
} from "chatschema";
import bundle from "chatschema/schemas/chatschema.schema.json" with {type: "json"};
import messageSchema from "chatschema/schemas/message.json" with {type: "json"};

// ----------------------------------------------------------------------------- types
// Compiled, never run: each `@ts-expect-error` line must be an error, so types that let
// it through (`any`, a guard that does not narrow) fail the compilation.

function unreachable(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}

export function roleOf(data: unknown): Message["role"] | null {
  // @ts-expect-error: an unknown value is no Message before validation
  const early: Message = data;
  void early;
  if (!validateMessage(data)) return null;
  switch (data.role) {
    case "system":
    case "user":
    case "assistant":
    case "tool":
      return data.role;
    default:
      return unreachable(data);
  }
}

export function typeLevel(data: unknown): string[] {
  const seen: string[] = [];
  if (validateContentBlock(data)) {
    const block: ContentBlock = data;
    seen.push(block.type);
  }
  if (validateConversation(data)) {
    const conversation: Conversation = data;
    seen.push(String(conversation.messages.length));
  }
  if (validateAssistantMessageChunk(data)) {
    const chunk: AssistantMessageChunk = data;
    seen.push(chunk.role);
  }
  if (isValid(data)) {
    const message: Message = data; // the default type is Message
    seen.push(message.role);
  }
  if (isValid(data, "TextBlock")) seen.push(data.text);
  // @ts-expect-error: not a type name
  isValid(data, "TextBlok");
  const problems: readonly Problem[] = validateMessage.errors;
  // @ts-expect-error: the problems are read-only
  validateMessage.errors = [];
  // @ts-expect-error: so is each of them
  problems[0]!.pointer = "/";
  const byName: Validator<Conversation> = validators.Conversation;
  // @ts-expect-error: a validator of another type
  const wrong: Validator<Message> = validators.TextBlock;
  void wrong;
  const name: TypeName = byName.typeName;
  const major: "v1" = schemaVersion;
  seen.push(name, major);
  return seen;
}

// ----------------------------------------------------------------------------- run

interface Case {
  type: string;
  instance: unknown;
}

function isTypeName(name: string): name is TypeName {
  return (typeNames as readonly string[]).includes(name);
}

function plain(problems: readonly Problem[]): Problem[] {
  return problems.map(({pointer, keyword, message}) => ({pointer, keyword, message}));
}

function check({type, instance}: Case) {
  if (!isTypeName(type)) throw new Error(`not a type name of the package: ${type}`);
  const validate = validators[type];
  const valid = validate(instance);
  return {
    valid,
    isValid: isValid(instance, type),
    errors: plain(validate.errors),
    problems: plain(schemaProblems(instance, type)),
  };
}

function unknownTypeError(): string {
  try {
    schemaProblems({}, "NoSuchType" as TypeName);
    return "no error";
  } catch (error) {
    return error instanceof TypeError ? `TypeError: ${error.message}` : String(error);
  }
}

const cases = JSON.parse(readFileSync(process.argv[2] ?? "cases.json", "utf8")) as Case[];
const report = {
  about: {
    version,
    schemaVersion,
    schemaBaseUri,
    typeNames,
    messageSchemaId: messageSchema.$id,
    bundleDefs: Object.keys(bundle.$defs).sort(),
    unknownType: unknownTypeError(),
    sample: roleOf({role: "user", content: "hi"}),
  },
  results: cases.map(check),
};
process.stdout.write(JSON.stringify(report) + "\n");
