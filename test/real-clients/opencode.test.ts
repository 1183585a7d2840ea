import { OPENCODE_COMPACTION_PROMPT } from "@longrun/openai-compat";
import { describe, expect, it } from "vitest";
import { clientReport, isClientCompaction, threadOf, upstreamOf } from "./support/client-report.ts";
import { createSandbox } from "./support/client-sandbox.ts";
import {
  expectOwnWindowSession,
  expectSurveyDone,
  type LongrunUnderTest,
  realClientSuite,
  SURVEY_TASK,
} from "./support/longrun-under-test.ts";
import { runOpencode } from "./support/run-client.ts";

const WINDOW = 16_384;
/** The gateway's hard limit: the window less opencode's output reserve (max_tokens 2048). */
const LIMIT = WINDOW - 2_048;

describe("opencode 1.18 through longrun's OpenAI-compatible gateway (real processes)", () => {
  let env: LongrunUnderTest;
  const sandboxes = realClientSuite((started) => {
    env = started;
  });

  it("does a 34-step task while longrun compacts; opencode never compacts itself", async () => {
    const sandbox = await createSandbox("opencode");
    sandboxes.push(sandbox);
    const model = `sim:script=coder:steps=34:ctx=${WINDOW}`;
    const run = await runOpencode(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window: WINDOW,
      task: SURVEY_TASK,
      timeoutMs: 240_000,
    });
    await expectSurveyDone(run, sandbox.work, { steps: 34, progressStep: 28 });

    const main = await threadOf(
      env,
      (thread) => thread.modelProfile.gateway?.key.endsWith("|agent") === true,
    );
    const upstream = upstreamOf(env, model).filter((entry) =>
      JSON.stringify(entry.body).includes(sandbox.work),
    );
    const clientRequests = env.requests.filter((request) => request.path.endsWith("/chat/completions"));
    const report = clientReport({
      client: "opencode",
      thread: main,
      upstream,
      clientRequests,
      window: WINDOW,
      wallMs: run.wallMs,
    });
    const { agentCalls } = report;
    expect(report.steps).toBeGreaterThanOrEqual(30);
    expect(report.longrunCompactions).toBeGreaterThanOrEqual(2);
    expect(report.clientCompactions).toBe(0);
    expect(env.sim.log.entries.every((entry) => entry.status === 200)).toBe(true);
    expect(report.peakPromptTokens).toBeLessThanOrEqual(LIMIT);
    // What opencode was told each step is what the upstream measured for the request longrun sent.
    expect(toldInputTokens(run.stdout)).toBe(
      agentCalls.reduce((sum, entry) => sum + (entry.promptTokens ?? 0), 0),
    );
  }, 300_000);

  it("compacts itself at most twice in 50 steps when its own window is below longrun's, each answered by longrun", async () => {
    // Issue 34 measured 321 client compactions in 652 requests here: longrun reported its own 32k-sized
    // prompts to a client that compacts near 16k, and answered each ask with "no compaction needed".
    const sandbox = await createSandbox("opencode-own");
    sandboxes.push(sandbox);
    const window = 32_000;
    const model = `sim:script=coder:steps=50:ctx=${window}`;
    const run = await runOpencode(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window,
      clientWindow: WINDOW,
      task: SURVEY_TASK,
      timeoutMs: 240_000,
    });
    // Each ask was answered from longrun's compaction: opencode's summary agent never went upstream.
    await expectOwnWindowSession(env, run, {
      client: "opencode-own-window",
      model,
      work: sandbox.work,
      window,
      askedWith: OPENCODE_COMPACTION_PROMPT,
    });
  }, 300_000);

  it("ends the 8k-window case (base prompt ~7.8k tokens) with one clear error instead of a compaction loop", async () => {
    const sandbox = await createSandbox("opencode-8k");
    sandboxes.push(sandbox);
    const window = 8_192;
    const model = `sim:script=coder:steps=34:ctx=${window}`;
    const before = env.requests.length;
    const run = await runOpencode(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window,
      task: SURVEY_TASK,
      timeoutMs: 120_000,
    });
    const requests = env.requests
      .slice(before)
      .filter((request) => request.path.endsWith("/chat/completions"));
    const refused = requests.filter((request) => request.status === 400);
    console.log(
      `[gateway report] ${JSON.stringify({ client: "opencode-8k", requests: requests.length, refused: refused.length, code: run.code, wallMs: run.wallMs })}`,
    );
    expect(run.timedOut).toBe(false);
    // The agent's request is refused once with context_exhausted; only the small title request is answered.
    expect(refused).toHaveLength(1);
    expect(requests.length).toBeLessThanOrEqual(3);
    expect(`${run.stdout}\n${run.stderr}`).toMatch(/cannot continue in the model's window/);
    expect(requests.filter(isClientCompaction)).toHaveLength(0);
    // Nothing too large ever reached the model.
    expect(upstreamOf(env, model).every((entry) => entry.status === 200)).toBe(true);
  }, 180_000);
});

/** The input tokens opencode was told, summed over its steps (input + cache reads, as it splits them). */
function toldInputTokens(stdout: string): number {
  let total = 0;
  for (const line of stdout.split("\n")) {
    if (!line.includes('"step_finish"')) continue;
    const tokens = (JSON.parse(line) as { part: { tokens: { input: number; cache: { read: number } } } }).part
      .tokens;
    total += tokens.input + tokens.cache.read;
  }
  return total;
}
