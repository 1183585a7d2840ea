import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// What a command loads before it answers: `--help` and a configuration error must not pay for the
// runtime, the queue and the server (they took 4 s of module loading here before, against ~1 s now),
// and no command loads the Anthropic SDK (a quarter of a server's modules) until a call needs it.

const BIN = fileURLToPath(new URL("../bin/longrun.js", import.meta.url));
const LOG_LOADS = fileURLToPath(new URL("./__fixtures__/log-module-loads.mjs", import.meta.url));
const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true }))));

/** Runs `longrun <args>` until it exits or prints `until`; the file modules it loaded by then. */
function modulesLoaded(args: string[], env: NodeJS.ProcessEnv, until?: RegExp): Promise<string[]> {
  const child = spawn(process.execPath, ["--import", LOG_LOADS, BIN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const loaded: string[] = [];
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let stdout = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
    if (until?.test(stdout)) child.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("close", () => {
      for (const line of stderr.split("\n")) if (line.startsWith("LOADED ")) loaded.push(line.slice(7));
      if (until && !until.test(stdout))
        reject(new Error(`longrun ${args.join(" ")} never printed ${until}:\n${stdout}\n${stderr}`));
      else resolve(loaded);
    });
  });
}

const heavy = (loaded: string[], parts: string[]) =>
  loaded.filter((url) => parts.some((part) => url.includes(part)));

describe("what a command loads", () => {
  it("answers --help without the runtime, the queue, the store or the server", async () => {
    const loaded = await modulesLoaded(["--help"], {});
    expect(loaded.some((url) => url.includes("/packages/cli/src/main.ts"))).toBe(true);
    expect(
      heavy(loaded, [
        "/packages/runtime/src/index",
        "/packages/queue/src/index",
        "/packages/store/",
        "/apps/",
        "node_modules/bullmq/",
        "node_modules/@anthropic-ai/",
        "node_modules/drizzle-orm/",
      ]),
    ).toEqual([]);
  });

  it("starts the embedded server without the Anthropic SDK", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "longrun-modules-"));
    dirs.push(dataDir);
    const loaded = await modulesLoaded(
      ["start"],
      {
        PORT: "0",
        LONGRUN_DATA_DIR: dataDir,
        LONGRUN_TOKEN: "",
        OPENAI_BASE_URL: "",
        OPENAI_API_KEY: "",
        VITEST: "",
      },
      /API:\s+\S+\/v1/,
    );
    expect(loaded.some((url) => url.includes("/packages/runtime/src/index"))).toBe(true);
    expect(heavy(loaded, ["node_modules/@anthropic-ai/"])).toEqual([]);
  }, 60_000);
});
