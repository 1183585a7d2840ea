import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import { createClient } from "@longrun/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runNode } from "../e2e/support/run-command.ts";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The README's raw `ws` example, exactly as written: the js code block that starts with `// follow.mjs`. */
async function readmeExample(): Promise<string> {
  const readme = await readFile(join(REPO_ROOT, "README.md"), "utf8");
  const block = /```js\n(\/\/ follow\.mjs\n[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no ```js block starting with // follow.mjs");
  return block;
}

/** Runs ES module source with node from the repository root (where `ws` resolves), as `node follow.mjs`. */
function runModule(source: string, env: Record<string, string>) {
  return runNode(["--input-type=module"], { ...process.env, ...env }, source);
}

let dataDir: string;
let instance: EmbeddedInstance;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-readme-ws-"));
  instance = await startEmbedded(loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir }));
});

afterAll(async () => {
  await instance?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("README WebSocket example", () => {
  it("runs as written against a server and prints the thread's events up to the end of its run", async () => {
    const client = createClient({ baseUrl: instance.url, token: instance.token });
    const thread = await client.threads.create({ title: "readme", simSteps: 3, task: "Explore and report" });
    const wsUrl = `${instance.url.replace(/^http/, "ws")}/v1/ws`;

    const result = await runModule(await readmeExample(), {
      LONGRUN_WS_URL: wsUrl,
      LONGRUN_TOKEN: instance.token,
      THREAD_ID: thread.id,
    });

    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    const lines = result.stdout.trim().split("\n");
    expect(lines.at(-1)).toBe("closed 1000");
    const printed = lines.slice(0, -1).map((line) => {
      const [seq, type] = line.split(" ");
      return { seq: Number(seq), type };
    });
    // Every persisted event from the first up to the run's end, in order, none twice: what the log holds.
    const logged = await client.threads.events(thread.id, { since: 0, limit: 10_000 });
    const end = logged.findIndex((event) => event.type === "run.completed");
    expect(end).toBeGreaterThan(0);
    expect(printed).toEqual(logged.slice(0, end + 1).map(({ seq, type }) => ({ seq, type })));
    expect(printed.map((event) => event.seq)).toEqual(printed.map((_, index) => index + 1));
    client.close();
  });
});
