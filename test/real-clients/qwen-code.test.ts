import { describe, expect, it } from "vitest";
import { clientReport, threadsMentioning, upstreamOf } from "./support/client-report.ts";
import { createSandbox } from "./support/client-sandbox.ts";
import {
  expectOwnWindowSession,
  expectSurveyDone,
  type LongrunUnderTest,
  realClientSuite,
  SURVEY_TASK,
} from "./support/longrun-under-test.ts";
import { runQwen } from "./support/run-client.ts";

/**
 * qwen-code's fixed prompt (system text 6,041 and tools 8,467 tokens by longrun's count) leaves no room at
 * 16k; 28k is the smallest window at which it finishes every run. At 24k (limit 20,576) the fixed prompt,
 * its first message (2,332 tokens of skill reminders and the task, pinned verbatim) and longrun's summary
 * and ledger leave ~3,000 tokens for the recent tail, and the one `grep_search` result the tail holds is
 * capped at 15 % of the window in characters (12,902), which is 4,086 tokens of paths: context_exhausted.
 * 26k finished in 2 of 4 runs (once context_exhausted the same way: 21,840 needed, 21,300 held, messages
 * 5,362; twice qwen's loop guard on two identical calls in a row: the sim reading the one file it knows again).
 */
const WINDOW = 28_672;
/** qwen-code asks for max_tokens 4,000: the gateway's limit is the window less that. */
const LIMIT = WINDOW - 4_000;

describe("qwen-code 0.24.4 through longrun's OpenAI-compatible gateway (real processes)", () => {
  let env: LongrunUnderTest;
  const sandboxes = realClientSuite((started) => {
    env = started;
  });

  it("does a 30-step task at its smallest workable window while longrun compacts; qwen never compacts itself", async () => {
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
    expect(report.clientCompactions).toBe(0);
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
      clientWindow: WINDOW,
      task: SURVEY_TASK,
      timeoutMs: 240_000,
    });
    // Each ask was answered from longrun's compaction: no snapshot request went upstream as a conversation.
    const { threads, report } = await expectOwnWindowSession(env, run, {
      client: "qwen-code-own-window",
      model,
      work: sandbox.work,
      window,
      askedWith: "<state_snapshot>",
    });
    // qwen asks (its threshold, 85 % of its 28k, is below what longrun keeps at 40k), but not again and
    // again: it keeps longrun's answer, so its history shrinks (it discarded every answer before).
    expect(report.clientCompactions).toBeGreaterThanOrEqual(1);
    // The histories qwen rebuilt continued its one thread (it sends no session id): no branch.
    expect(threads).toHaveLength(1);
  }, 300_000);
});
