import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config/load-config.ts";
import { type EmbeddedInstance, startEmbedded } from "../embedded.ts";

// `longrun threads …` as a user runs it: the bin, in its own process, against a real embedded server.

const BIN = fileURLToPath(new URL("../../bin/longrun.js", import.meta.url));
let dataDir: string;
let server: EmbeddedInstance;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-threads-command-"));
  server = await startEmbedded(loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir }));
});

afterAll(async () => {
  await server?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function longrun(args: string[], env: NodeJS.ProcessEnv = {}) {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("LONGRUN_") && !name.startsWith("VITEST"),
    ),
  );
  return promisify(execFile)(process.execPath, [BIN, ...args], {
    env: { ...base, LONGRUN_URL: server.url, LONGRUN_TOKEN: server.token, ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe("longrun threads", () => {
  it("creates a thread, lists it, sends to it and waits for the run with progress", async () => {
    const created = await longrun(["threads", "create", "--title", "cli", "--sim-steps", "12", "--json"]);
    expect(created.code).toBe(0);
    const thread = JSON.parse(created.stdout) as { id: string; title: string };
    expect(thread.title).toBe("cli");

    const listed = await longrun(["threads", "list"]);
    expect(listed.stdout).toContain(thread.id);

    const sent = await longrun(["threads", "send", thread.id, "Explore", "and", "report", "--wait"]);
    expect(sent.stderr).toMatch(/^run \S+ (started|queued); waiting for it to end…\n {2}step 10\n/);
    expect(sent.stdout).toMatch(/^run \S+ completed\n$/);
    expect(sent.code).toBe(0);
  }, 60_000);

  it("reads the token `longrun start` keeps in the data dir when LONGRUN_TOKEN is unset", async () => {
    const listed = await longrun(["threads", "list", "--json"], {
      LONGRUN_TOKEN: "",
      LONGRUN_DATA_DIR: dataDir,
    });
    expect(listed.code).toBe(0);
    expect(Array.isArray(JSON.parse(listed.stdout))).toBe(true);
  });

  it("exits 2 with the command's help on a usage problem, 1 on a refused token", async () => {
    const usage = await longrun(["threads", "frobnicate"]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("Usage: longrun threads create");
    const refused = await longrun(["threads", "list"], { LONGRUN_TOKEN: "not-a-token-not-a-token" });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^longrun threads: .+ \(request [0-9a-f-]{36}\)\n$/);
  });
});
