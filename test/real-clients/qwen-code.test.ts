import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clientReport, isClientCompaction, threadOf, upstreamOf } from "./support/client-report.ts";
import { CLIENT_INSTALL_TIMEOUT_MS, installRealClients } from "./support/install-clients.ts";
import { type LongrunUnderTest, startLongrunUnderTest } from "./support/longrun-under-test.ts";
import { type ClientSandbox, createSandbox, runQwen } from "./support/run-client.ts";

/**
 * qwen-code's fixed prompt (system text and its tools, ~14k tokens by longrun's count) leaves no room
 * at 16k; 28k is the smallest window tried at which it finishes (24k and 26k end in context_exhausted).
 */
const WINDOW = 28_672;
/** qwen-code asks for max_tokens 4,000: the gateway's limit is the window less that. */
const LIMIT = WINDOW - 4_000;
const TASK =
  "Survey this warehouse project: read its files, keep notes in NOTES.md and finish with REPORT.md.";

describe("qwen-code 0.24.4 through longrun's OpenAI-compatible gateway (real processes)", () => {
  let env: LongrunUnderTest;
  let sandbox: ClientSandbox;
  // Installed on first use from their own lockfile (support/install-clients.ts), not by `npm install`.
  beforeAll(installRealClients, CLIENT_INSTALL_TIMEOUT_MS);
  beforeAll(async () => {
    env = await startLongrunUnderTest();
    sandbox = await createSandbox("qwen");
  });
  afterAll(async () => {
    await env?.close();
    await sandbox?.cleanup();
  });

  it("does a 30-step task at its smallest workable window while longrun compacts; qwen never compacts itself", async () => {
    const model = `sim:script=coder:steps=30:ctx=${WINDOW}`;
    const run = await runQwen(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window: WINDOW,
      task: TASK,
      timeoutMs: 240_000,
    });
    expect(run.timedOut, run.stderr.slice(-2_000)).toBe(false);
    expect(run.code, `${run.stdout.slice(-2_000)}\n${run.stderr.slice(-2_000)}`).toBe(0);
    await expect(readFile(join(sandbox.work, "NOTES.md"), "utf8")).resolves.toContain("progress: step 28");
    await expect(readFile(join(sandbox.work, "REPORT.md"), "utf8")).resolves.toContain(
      "Finished after 30 steps",
    );

    // qwen-code sends no session id: its thread is keyed by its working folder and first message.
    const thread = await threadOf(env, (candidate) => candidate.modelProfile.gateway?.client === "qwencode");
    const upstream = upstreamOf(env, model);
    const clientRequests = env.requests.filter(
      (request) => (request.body as { model?: string })?.model === model,
    );
    const report = clientReport({
      client: "qwen-code",
      thread,
      upstream,
      clientRequests,
      window: WINDOW,
      wallMs: run.wallMs,
    });
    expect(clientRequests.every((request) => request.status === 200)).toBe(true);
    expect(report.steps).toBeGreaterThanOrEqual(30);
    expect(report.longrunCompactions).toBeGreaterThanOrEqual(1);
    expect(clientRequests.filter(isClientCompaction)).toHaveLength(0);
    expect(upstream.every((entry) => entry.status === 200)).toBe(true);
    expect(report.peakPromptTokens).toBeLessThanOrEqual(LIMIT);
    // One conversation, one thread: no branch although qwen sends no session id.
    const threads = await env.longrun.client.threads.list();
    expect(threads.filter((candidate) => candidate.modelProfile.gateway?.client === "qwencode")).toHaveLength(
      1,
    );
  }, 300_000);
});
