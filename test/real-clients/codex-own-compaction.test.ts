import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { FIRST_USE_INSTALL_TIMEOUT_MS } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isClientCompaction, threadOf } from "./support/client-report.ts";
import { type ClientSandbox, createSandbox } from "./support/client-sandbox.ts";
import { installRealClients } from "./support/install-clients.ts";
import { type LongrunUnderTest, startLongrunUnderTest } from "./support/longrun-under-test.ts";
import { runCodex } from "./support/run-client.ts";

const WINDOW = 20_000;
const STEPS = 50;

describe("Codex CLI's own compaction request through longrun's gateway (real process)", () => {
  let env: LongrunUnderTest;
  let sandbox: ClientSandbox;
  // Installed on first use from their own lockfile (support/install-clients.ts), not by `npm install`.
  beforeAll(installRealClients, FIRST_USE_INSTALL_TIMEOUT_MS);
  beforeAll(async () => {
    env = await startLongrunUnderTest();
    sandbox = await createSandbox("codex-own");
  });
  afterAll(async () => {
    await env?.close();
    await sandbox?.cleanup();
  });

  it("is answered from longrun's compaction, asked at most twice in 50 steps, and the history Codex rebuilds continues the same thread", async () => {
    const model = `sim:script=coder:steps=${STEPS}:ctx=${WINDOW}`;
    // Codex's threshold set below what longrun keeps, so Codex asks for its own compaction.
    const run = await runCodex(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window: WINDOW,
      autoCompactTokens: 11_000,
      task: "Survey this warehouse project: keep notes in NOTES.md and finish with REPORT.md.",
      timeoutMs: 240_000,
    });
    const requests = env.requests.filter((request) => request.path.endsWith("/responses"));
    const own = requests.filter(isClientCompaction);
    const threads = await env.longrun.client.threads.list();
    console.log(
      `[gateway report] ${JSON.stringify({ client: "codex-own-compaction", requests: requests.length, clientCompactions: own.length, threads: threads.length, wallMs: run.wallMs })}`,
    );
    expect(run.timedOut, run.stderr.slice(-2_000)).toBe(false);
    expect(run.code).toBe(0);
    expect(own.length).toBeGreaterThan(0);
    // Once asked, longrun reports sizes against the threshold it learned: Codex does not ask again and again.
    expect(own.length).toBeLessThan(3);
    await expect(readFile(join(sandbox.work, "REPORT.md"), "utf8")).resolves.toContain(
      `Finished after ${STEPS} steps`,
    );
    const main = await threadOf(env, (thread) => thread.title.startsWith("codex: Survey"));
    expect(main.facts.filter((fact) => fact.role === "assistant" && fact.toolCalls?.length).length).toBe(
      STEPS,
    );
    // Every rebuilt history continued the one thread: no branch, and the log stayed well formed
    // (each call answered exactly once, although Codex resent pairs around each checkpoint).
    expect(threads).toHaveLength(1);
    const calls = main.facts.flatMap((fact) => (fact.toolCalls ?? []).map((call) => call.id));
    const results = main.facts.filter((fact) => fact.role === "tool").map((fact) => fact.toolCallId);
    expect(new Set(calls).size).toBe(calls.length);
    expect([...results].sort()).toEqual([...calls].sort());
    expect(env.sim.log.entries.every((entry) => entry.status === 200)).toBe(true);
  }, 300_000);
});
