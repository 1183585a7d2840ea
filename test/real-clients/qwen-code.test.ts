import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { clientReport, sessionByFolder, threadsMentioning, upstreamOf } from "./support/client-report.ts";
import { createSandbox } from "./support/client-sandbox.ts";
import {
  expectSurveyDone,
  type LongrunUnderTest,
  realClientSuite,
  SURVEY_TASK,
} from "./support/longrun-under-test.ts";
import { runQwen } from "./support/run-client.ts";

/**
 * qwen-code's fixed prompt (system text 6,041 and tools 8,467 tokens by longrun's count) leaves no room at
 * 16k; 26k is the smallest window tried at which it finishes. At 24k (limit 20,576) the fixed prompt, its
 * first message (2,332 tokens of skill reminders and the task, pinned verbatim) and longrun's summary and
 * ledger leave ~3,000 tokens for the recent tail, and the one `grep_search` result the tail holds is
 * capped at 15 % of the window in characters (12,902), which is 4,086 tokens of paths: context_exhausted.
 */
const WINDOW = 26_624;
/** qwen-code's own window in the test of a client window below longrun's. */
const OWN_WINDOW = 28_672;
/** qwen-code asks for max_tokens 4,000: the gateway's limit is the window less that. */
const LIMIT = WINDOW - 4_000;

describe("qwen-code 0.24.4 through longrun's OpenAI-compatible gateway (real processes)", () => {
  let env: LongrunUnderTest;
  const sandboxes = realClientSuite((started) => {
    env = started;
  });

  it("does a 30-step task at its smallest workable window while longrun compacts; qwen's own compaction is answered by longrun", async () => {
    const sandbox = await createSandbox("qwen");
    sandboxes.push(sandbox);
    const model = `sim:script=coder:steps=30:ctx=${WINDOW}`;
    const run = await runQwen(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window: WINDOW,
      task: SURVEY_TASK,
      timeoutMs: 240_000,
    });
    await expectSurveyDone(run, sandbox.work, { steps: 30, progressStep: 28 });

    // qwen-code sends no session id: its thread is keyed by its working folder and first message.
    const threads = await threadsMentioning(env, sandbox.work);
    expect(threads).toHaveLength(1);
    const thread = threads[0]!;
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
    // qwen counts its history itself, tool results whole (longrun's cap is in the projection only):
    // after the 6.4k-token `grep_search` result its count passes 85 % of 26k and it asks for its own
    // compaction (at 28k it does not). Nothing longrun reports moves that count; what longrun owes is
    // that the ask is answered from its compaction, is not repeated, and continues the one thread.
    expect(report.clientCompactions).toBeLessThan(3);
    expect(JSON.stringify(upstream.map((entry) => entry.body))).not.toContain("<state_snapshot>");
    expect(upstream.every((entry) => entry.status === 200)).toBe(true);
    expect(report.peakPromptTokens).toBeLessThanOrEqual(LIMIT);
  }, 300_000);

  it("compacts itself at most twice in 50 steps when its own window is below longrun's, each answered by longrun", async () => {
    const sandbox = await createSandbox("qwen-own");
    sandboxes.push(sandbox);
    const window = 40_000;
    const model = `sim:script=coder:steps=50:ctx=${window}`;
    const run = await runQwen(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window,
      clientWindow: OWN_WINDOW,
      task: SURVEY_TASK,
      timeoutMs: 240_000,
    });
    expect(run.timedOut, run.stderr.slice(-2_000)).toBe(false);
    expect(run.code, `${run.stdout.slice(-2_000)}\n${run.stderr.slice(-2_000)}`).toBe(0);
    await expect(readFile(join(sandbox.work, "REPORT.md"), "utf8")).resolves.toContain(
      "Finished after 50 steps",
    );
    const { threads, clientRequests, upstream, report } = await sessionByFolder(env, {
      client: "qwen-code-own-window",
      model,
      work: sandbox.work,
      window,
      wallMs: run.wallMs,
    });
    // qwen asks (its threshold, 85 % of its 28k, is below what longrun keeps at 40k), but not again and
    // again: it keeps longrun's answer, so its history shrinks (it discarded every answer before).
    expect(report.clientCompactions).toBeGreaterThanOrEqual(1);
    expect(report.clientCompactions).toBeLessThan(3);
    expect(clientRequests.every((request) => request.status === 200)).toBe(true);
    // Each ask was answered from longrun's compaction: no snapshot request went upstream as a conversation.
    expect(JSON.stringify(upstream.map((entry) => entry.body))).not.toContain("<state_snapshot>");
    expect(upstream.every((entry) => entry.status === 200)).toBe(true);
    // The histories qwen rebuilt continued its one thread (it sends no session id): no branch.
    expect(threads).toHaveLength(1);
  }, 300_000);
});
