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
import { type ClientRun, runPi } from "./support/run-client.ts";

const WINDOW = 16_384;
const MAX_TOKENS = 2_048;
/** The gateway's hard limit: the window less pi's output reserve (its model's maxTokens). */
const LIMIT = WINDOW - MAX_TOKENS;

/** The prompt tokens pi was told, summed over its answers (input + cache reads + cache writes). */
function toldPromptTokens(run: ClientRun): number {
  let total = 0;
  for (const line of run.stdout.split("\n")) {
    if (!line.includes('"type":"message_end"')) continue;
    const { message } = JSON.parse(line) as {
      message: { role: string; usage?: { input: number; cacheRead: number; cacheWrite: number } };
    };
    if (message.role !== "assistant" || !message.usage) continue;
    total += message.usage.input + message.usage.cacheRead + message.usage.cacheWrite;
  }
  return total;
}

/**
 * The context size pi computed from the last answer of its run (its `calculateContextTokens`: the
 * usage's total, else input, output and cache figures summed), which is what it checks its threshold
 * against when its agent loop ends.
 */
function lastContextTokens(run: ClientRun): number {
  let last = 0;
  for (const line of run.stdout.split("\n")) {
    if (!line.includes('"type":"message_end"')) continue;
    const { message } = JSON.parse(line) as {
      message: {
        role: string;
        usage?: {
          input: number;
          output: number;
          cacheRead: number;
          cacheWrite: number;
          totalTokens?: number;
        };
      };
    };
    if (message.role !== "assistant" || !message.usage) continue;
    const usage = message.usage;
    last = usage.totalTokens || usage.input + usage.output + usage.cacheRead + usage.cacheWrite;
  }
  return last;
}

/** pi's own compactions, as its json mode reports them. */
function piCompactions(run: ClientRun): number {
  return run.stdout.split("\n").filter((line) => /"type":"(auto_)?compaction_start"/.test(line)).length;
}

describe("pi 0.73.1 through longrun's OpenAI-compatible gateway, both of its APIs (real processes)", () => {
  let env: LongrunUnderTest;
  const sandboxes = realClientSuite((started) => {
    env = started;
  });

  for (const [api, gatewayApi, path, steps] of [
    ["openai-completions", "chat", "/v1/chat/completions", 32],
    ["openai-responses", "responses", "/v1/responses", 33],
  ] as const) {
    it(`${api}: does a ${steps}-step task at 16k while longrun compacts; pi never compacts itself`, async () => {
      const sandbox = await createSandbox(`pi-${gatewayApi}`);
      sandboxes.push(sandbox);
      const model = `sim:script=coder:steps=${steps}:ctx=${WINDOW}`;
      const run = await runPi(sandbox, {
        baseUrl: env.url,
        token: env.longrun.instance.token,
        model,
        window: WINDOW,
        task: SURVEY_TASK,
        timeoutMs: 240_000,
        api,
        maxTokens: MAX_TOKENS,
      });
      await expectSurveyDone(run, sandbox.work, { steps: steps, progressStep: 28 });

      const threads = await threadsMentioning(env, sandbox.work);
      expect(threads.map((thread) => thread.thread.modelProfile.gateway?.api)).toEqual([gatewayApi]);
      const thread = threads[0]!;
      const upstream = upstreamOf(env, model);
      const clientRequests = env.requests.filter(
        (request) => (request.body as { model?: string })?.model === model,
      );
      const report = clientReport({
        client: `pi-${gatewayApi}`,
        thread,
        upstream,
        clientRequests,
        window: WINDOW,
        wallMs: run.wallMs,
      });
      expect(clientRequests.every((request) => request.path === path && request.status === 200)).toBe(true);
      expect(report.steps).toBeGreaterThanOrEqual(30);
      expect(report.longrunCompactions).toBeGreaterThanOrEqual(1);
      // Neither a summary request reached longrun nor did pi say it compacted.
      expect(report.clientCompactions).toBe(0);
      expect(piCompactions(run)).toBe(0);
      expect(upstream.every((entry) => entry.status === 200)).toBe(true);
      expect(report.peakPromptTokens).toBeLessThanOrEqual(LIMIT);
      // What pi was told each step is what the upstream measured for the request longrun sent.
      expect(toldPromptTokens(run)).toBe(
        report.agentCalls.reduce((sum, entry) => sum + (entry.promptTokens ?? 0), 0),
      );
    }, 300_000);
  }

  it("compacts itself at most twice in 50 steps when its own window is below longrun's, each answered by longrun", async () => {
    const sandbox = await createSandbox("pi-own");
    sandboxes.push(sandbox);
    const window = 32_000;
    const model = `sim:script=coder:steps=50:ctx=${window}`;
    const run = await runPi(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window,
      clientWindow: WINDOW,
      task: SURVEY_TASK,
      timeoutMs: 240_000,
      api: "openai-completions",
      maxTokens: MAX_TOKENS,
    });
    // Each ask was answered from longrun's compaction: no <conversation> transcript went upstream.
    const { threads, report } = await expectOwnWindowSession(env, run, {
      client: "pi-own-window",
      model,
      work: sandbox.work,
      window,
      askedWith: "<conversation>",
    });
    // pi checks its threshold (its 16k less its reserve, below what longrun keeps at 32k) when its
    // agent loop ends and before a new prompt (agent-session.js, `_checkCompaction` on agent_end), not
    // after every step: in this one-prompt run, once, with the size of its last answer. So it compacts
    // exactly when that size is over the threshold — where longrun's last compaction left the history
    // decides it (at d243ee8 the run ends 2.6k after one, under it) — and every ask is answered by longrun.
    const lastContext = lastContextTokens(run);
    const threshold = WINDOW - MAX_TOKENS;
    console.log(
      `[pi own window] last context ${lastContext} against pi's threshold ${threshold}: ${report.clientCompactions} client compaction(s)`,
    );
    expect(report.clientCompactions).toBe(lastContext > threshold ? 1 : 0);
    expect(piCompactions(run)).toBe(report.clientCompactions);
    // The history pi rebuilt (its chat API sends no session id) continued its one thread.
    expect(threads).toHaveLength(1);
  }, 300_000);
});
