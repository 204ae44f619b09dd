// The little of Node's API the consumer uses. @types/node is not among the repository's
// pinned packages, and the consumer test installs nothing from the network.
declare module "node:fs" {
  export function readFileSync(path: string, encoding: "utf8"): string;
}

declare const process: {
  readonly argv: string[];
  readonly stdout: {write(text: string): boolean};
};
