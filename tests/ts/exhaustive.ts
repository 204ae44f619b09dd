// Type-level tests of generated/typescript/chatschema.d.ts, run by `npx tsc -p tests/ts`
// (strict, no emit). Each switch handles every tag of a union and ends in a `never`
// check, so a tag added to the schemas without a case here fails to compile; each
// `@ts-expect-error` line must be an error, so a type that lets it through fails too.

import type {
  Annotation,
  AssistantMessage,
  ContentBlock,
  Conversation,
  InputTokenDetails,
  Message,
  ResourceLinkBlock,
  TextBlock,
  ToolChoice,
  ToolMessage,
  UserMessage,
} from "../../generated/typescript/chatschema";

function unreachable(value: never): never {
  throw new Error(`unhandled variant: ${JSON.stringify(value)}`);
}

export function describeMessage(message: Message): string {
  switch (message.role) {
    case "system":
      return `system: ${contentText(message.content)}`;
    case "user":
      return `user${message.name === undefined ? "" : ` ${message.name}`}: ${contentText(message.content)}`;
    case "assistant":
      return `assistant: ${contentText(message.content ?? "")} (${(message.tool_calls ?? []).length} tool calls)`;
    case "tool":
      return `tool result for ${message.tool_call_id}: ${message.status ?? "success"}`;
    default:
      return unreachable(message);
  }
}

function contentText(content: string | ContentBlock[]): string {
  return typeof content === "string" ? content : content.map(describeBlock).join(" ");
}

export function describeBlock(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text + (block.annotations ?? []).map(describeAnnotation).join("");
    case "refusal":
      return `[refused: ${block.text}]`;
    case "reasoning":
      return `[reasoning${block.signature === undefined ? "" : ", signed"}]`;
    case "image":
      return `[image ${block.url ?? block.file_id ?? block.mime_type ?? ""}]`;
    case "audio":
      return `[audio ${block.url ?? block.file_id ?? block.mime_type ?? ""}]`;
    case "video":
      return `[video ${block.url ?? block.file_id ?? block.mime_type ?? ""}]`;
    case "file":
      return `[file ${block.filename ?? block.url ?? block.file_id ?? ""}]`;
    case "text-plain":
      return `[document ${block.title ?? ""}]`;
    case "server_tool_call":
      return `[server tool ${block.name}]`;
    case "server_tool_result":
      return `[server tool result for ${block.tool_call_id}]`;
    case "compaction":
      return `[compacted context${block.text === undefined ? "" : `: ${block.text}`}]`;
    case "resource_link":
      return `[link ${block.title ?? block.name ?? block.uri}${block.size === undefined ? "" : ` (${block.size} bytes)`}]`;
    case "resource":
      return block.text ?? `[resource ${block.uri} ${block.mime_type ?? ""}]`;
    case "non_standard":
      return `[non-standard ${Object.keys(block.value).join(",")}]`;
    default:
      return unreachable(block);
  }
}

export function describeAnnotation(annotation: Annotation): string {
  switch (annotation.type) {
    case "citation":
      return `[${annotation.url ?? annotation.title ?? "source"}]`;
    case "non_standard_annotation":
      return "[annotation]";
    default:
      return unreachable(annotation);
  }
}

export function describeToolChoice(choice: ToolChoice): string {
  switch (choice.type) {
    case "auto":
      return choice.parallel === false ? "auto, one call at a time" : "auto";
    case "none":
      return "no tools";
    case "required":
      return "some tool";
    case "tool":
      return `the tool ${choice.name}`;
    case "allowed":
      return `${choice.mode === "required" ? "one" : "any"} of ${choice.names.join(", ")}`;
    default:
      return unreachable(choice);
  }
}

// Well-typed documents compile.
const question: UserMessage = {
  role: "user",
  content: [
    {type: "text", text: "What is in this picture?"},
    {type: "image", url: "https://example.com/cat.png", cache_control: {type: "ephemeral"}},
  ],
};
const reply: AssistantMessage = {
  role: "assistant",
  tool_calls: [{id: "call_1", name: "lookup", arguments: {q: "cat"}}],
  usage: {
    input_tokens: 10,
    output_tokens: 5,
    total_tokens: 15,
    output_token_details: {reasoning: 2},
  },
};
const result: ToolMessage = {
  role: "tool",
  tool_call_id: "call_1",
  content: "a cat",
  artifact: null,
};
export const conversation: Conversation = {
  messages: [question, reply, result],
  tool_choice: {type: "tool", name: "lookup"},
  tools: [{name: "lookup", parameters: {type: "object"}}],
};

// Bogus tags are rejected, at every union.
// @ts-expect-error: "bogus" is no role
export const badRole: Message = {role: "bogus", content: "hi"};
// @ts-expect-error: "bogus" is no block type
export const badBlock: ContentBlock = {type: "bogus", text: "hi"};
// @ts-expect-error: "bogus" is no annotation type
export const badAnnotation: Annotation = {type: "bogus"};
// @ts-expect-error: "bogus" is no tool-choice type
export const badChoice: ToolChoice = {type: "bogus"};

// Missing required fields are rejected.
// @ts-expect-error: a text block needs `text`
export const noText: TextBlock = {type: "text"};
// @ts-expect-error: a tool message needs `tool_call_id`
export const noCallId: ToolMessage = {role: "tool", content: "done"};
// @ts-expect-error: a tag is required, even on a variant typed on its own
export const noTag: TextBlock = {text: "hi"};
// @ts-expect-error: a user message needs `content`
export const noContent: Message = {role: "user"};
// @ts-expect-error: a resource link needs its `uri`
export const noUri: ResourceLinkBlock = {type: "resource_link", name: "main.rs"};

// Closed objects have no index signature: unknown keys are rejected.
// @ts-expect-error: `colour` is not a property of a text block
export const extraKey: TextBlock = {type: "text", text: "hi", colour: "red"};
// Optional fields are left out, never null.
// @ts-expect-error: `name` is a string when present
export const nullName: UserMessage = {role: "user", content: "hi", name: null};
// Under exactOptionalPropertyTypes, `undefined` is not "absent" either.
// @ts-expect-error: `id` is a string when present
export const undefinedId: UserMessage = {role: "user", content: "hi", id: undefined};
// Open maps take any key, and typed maps check their values.
export const details: InputTokenDetails = {cache_read: 1, provider_specific: 0};
// @ts-expect-error: token counts are numbers
export const badDetail: InputTokenDetails = {cache_read: "1"};
// @ts-expect-error: so are the counts under other names
export const badExtraDetail: InputTokenDetails = {provider_specific: "1"};
