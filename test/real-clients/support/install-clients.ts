import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type FirstUseFolder, installOnFirstUse } from "@longrun/testing";

/**
 * The real clients (Codex CLI, opencode, Claude Code, pi, qwen-code: ~1.4 GB) are not part of the repository's
 * `npm install`. They live in their own package folder with its own lockfile and are installed
 * there the first time a real-client test needs them. `npm install --no-save` rather than `npm ci`:
 * the lockfile pins every package that installs here (exact versions and integrity), but not
 * opencode-ai's optional binaries for other platforms, and `npm ci` refuses a lockfile without them.
 */
export const CLIENTS_DIR = fileURLToPath(new URL("../clients/", import.meta.url));
const REAL_CLIENTS: FirstUseFolder = {
  dir: CLIENTS_DIR,
  what: "Codex CLI, opencode, Claude Code, pi and qwen-code (~1.4 GB)",
  label: "[real clients]",
  npmCommand: ["install", "--no-save"],
};

/** The real clients the tests drive. */
export type RealClient = "codex" | "opencode" | "claude" | "pi" | "qwen";

/**
 * A real client's entry point inside the clients folder: a native executable (opencode, Claude Code)
 * or a Node script that runs under this test's own node (Codex, pi, qwen-code).
 */
export function clientBinary(client: RealClient): string {
  const modules = join(CLIENTS_DIR, "node_modules");
  switch (client) {
    case "codex":
      return join(modules, "@openai", "codex", "bin", "codex.js");
    case "opencode":
      // opencode-ai's postinstall (allowed in the clients' package.json) puts the platform binary here.
      return join(modules, "opencode-ai", "bin", "opencode.exe");
    case "claude":
      // So does @anthropic-ai/claude-code's (a native binary since 2.x, from its platform package).
      return join(modules, "@anthropic-ai", "claude-code", "bin", "claude.exe");
    case "pi":
      return join(modules, "@mariozechner", "pi-coding-agent", "dist", "cli.js");
    case "qwen":
      return join(modules, "@qwen-code", "qwen-code", "cli-entry.js");
  }
}

/** Installs the real clients from their lockfile unless this lockfile is already installed. */
export function installRealClients(): Promise<void> {
  return installOnFirstUse(REAL_CLIENTS);
}
