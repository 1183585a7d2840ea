import { fileURLToPath } from "node:url";
import { type FirstUseFolder, installOnFirstUse } from "@longrun/testing";

/**
 * The libraries the compaction bench compares longrun against (LangChain's trimMessages and
 * ClearToolUsesEdit, the AI SDK's pruneMessages, js-tiktoken) are not part of the repository's
 * `npm install`: `libraries/` has its own package.json and lockfile, and the code that imports them
 * lives there too, so they resolve from `libraries/node_modules`. The bench, the tests of the adapters
 * and the typecheck and lint that read that code install them on first use.
 */
const BENCH_LIBRARIES: FirstUseFolder = {
  dir: fileURLToPath(new URL("libraries/", import.meta.url)),
  what: "LangChain, the AI SDK and js-tiktoken (~80 MB)",
  label: "[bench libraries]",
};

/** Installs the bench's comparison libraries from their lockfile unless that lockfile is already installed. */
export function installBenchLibraries(): Promise<void> {
  return installOnFirstUse(BENCH_LIBRARIES);
}

// `tsx test/bench/bench-libraries.ts`: the typecheck and lint scripts install them before reading the code.
if (process.argv[1] === fileURLToPath(import.meta.url)) await installBenchLibraries();
