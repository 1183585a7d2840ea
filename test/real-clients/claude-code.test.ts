import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { LongrunEvent } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { clientReport, threadOf, upstreamOf } from "./support/client-report.ts";
import { type LongrunUnderTest, realClientSuite, SURVEY_TASK } from "./support/longrun-under-test.ts";
import { type ClientRun, createSandbox, runClaudeCode } from "./support/run-client.ts";

/** Claude Code asks for max_tokens 32,000: the gateway's reserve is capped at a fifth of the window. */
const limitOf = (window: number) => window - Math.floor(window * 0.2);

/** The session id Claude Code prints first (its `system`/`init` line); longrun keys the thread by it. */
function sessionOf(run: ClientRun): string {
  const line = run.stdout.split("\n").find((candidate) => candidate.includes('"subtype":"init"'));
  if (!line) throw new Error(`claude printed no init line:\n${run.stdout.slice(0, 2_000)}\n${run.stderr}`);
  return (JSON.parse(line) as { session_id: string }).session_id;
}

/** Claude Code's own usage total for the run (its closing `result` line). */
function toldPromptTokens(run: ClientRun): number {
  const line = run.stdout
    .split("\n")
    .reverse()
    .find((candidate) => candidate.includes('"type":"result"'));
  if (!line) throw new Error(`claude printed no result line:\n${run.stdout.slice(-2_000)}`);
  const { usage } = JSON.parse(line) as {
    usage: { input_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
  };
  return usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens;
}

/** The largest conversation (before longrun's projection) the thread measured. */
function rawPeak(events: LongrunEvent[]): number {
  return Math.max(
    0,
    ...events.flatMap((event) => (event.type === "context.measured" ? [event.data.rawTokens] : [])),
  );
}

describe("Claude Code 2.1.197 through longrun's Anthropic Messages gateway (real processes)", () => {
  let env: LongrunUnderTest;
  const sandboxes = realClientSuite((started) => {
    env = started;
  });

  async function survey(input: {
    name: string;
    window: number;
    steps: number;
    tools?: string;
    /** LLM compactions the run needs at least (the projection's own reductions may be enough). */
    minCompactions: number;
  }) {
    const sandbox = await createSandbox(input.name);
    sandboxes.push(sandbox);
    const model = `sim:script=coder:steps=${input.steps}:ctx=${input.window}`;
    const run = await runClaudeCode(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window: input.window,
      task: SURVEY_TASK,
      timeoutMs: 240_000,
      maxTurns: input.steps + 10,
      ...(input.tools ? { tools: input.tools } : {}),
    });
    expect(run.timedOut, run.stderr.slice(-2_000)).toBe(false);
    expect(run.code, `${run.stdout.slice(-2_000)}\n${run.stderr.slice(-2_000)}`).toBe(0);
    await expect(readFile(join(sandbox.work, "REPORT.md"), "utf8")).resolves.toContain(
      `Finished after ${input.steps} steps`,
    );
    await expect(readFile(join(sandbox.work, "NOTES.md"), "utf8")).resolves.toContain(
      `progress: step ${10 * Math.floor((input.steps - 2) / 10) + 8}`,
    );
    const session = sessionOf(run);
    const thread = await threadOf(
      env,
      (candidate) => candidate.modelProfile.gateway?.key === `cache:${session}|agent`,
    );
    const upstream = upstreamOf(env, model);
    const clientRequests = env.requests.filter(
      (request) => (request.body as { model?: string })?.model === model,
    );
    const report = clientReport({
      client: input.name,
      thread,
      upstream,
      clientRequests,
      window: input.window,
      wallMs: run.wallMs,
    });
    console.log(
      `[gateway report] ${JSON.stringify({ client: input.name, rawPeak: rawPeak(thread.events) })}`,
    );
    // Every request Claude Code sent was answered (none refused, none retried after a 4xx/5xx).
    expect(clientRequests.every((request) => request.status === 200)).toBe(true);
    expect(clientRequests.every((request) => request.path.startsWith("/v1/messages"))).toBe(true);
    expect(report.steps).toBeGreaterThanOrEqual(input.steps);
    expect(report.longrunCompactions).toBeGreaterThanOrEqual(input.minCompactions);
    // Without longrun the history would not have fit: the raw conversation outgrew the limit.
    expect(rawPeak(thread.events)).toBeGreaterThan(limitOf(input.window));
    expect(report.clientCompactions).toBe(0);
    // Every upstream request was accepted by the strict sim model and fit the window.
    expect(upstream.every((entry) => entry.status === 200)).toBe(true);
    expect(report.peakPromptTokens).toBeLessThanOrEqual(limitOf(input.window));
    // Input + cache reads + cache writes Claude Code was told = the prompts actually sent upstream.
    expect(toldPromptTokens(run)).toBe(
      report.agentCalls.reduce((sum, entry) => sum + (entry.promptTokens ?? 0), 0),
    );
    return report;
  }

  it("does a 40-step task at 16k with six of its tools inside the window; Claude Code never compacts itself", async () => {
    // Its full fixed prompt (system text and 24 tools, ~19.4k tokens) cannot fit 16k: --tools keeps
    // Bash, Read, Write, Edit, Grep and TodoWrite, the tools the task uses.
    // Claude Code answers a repeated Read with "file unchanged", so the history grows slowly and
    // longrun's projection (collapsing what later steps superseded) keeps it in without an LLM summary.
    await survey({
      name: "claude-16k",
      window: 16_384,
      steps: 40,
      tools: "Bash,Read,Write,Edit,Grep,TodoWrite",
      minCompactions: 0,
    });
  }, 300_000);

  it("does a 31-step task at 32k with all its tools while longrun compacts (its ~19.4k-token fixed prompt does not fit 16k)", async () => {
    await survey({ name: "claude-32k", window: 32_000, steps: 31, minCompactions: 1 });
  }, 300_000);
});
