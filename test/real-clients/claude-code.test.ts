import type { LongrunEvent, StoredMessage } from "@longrun/protocol";
import { describe, expect, it } from "vitest";
import { clientReport, isClientCompaction, threadOf, upstreamOf } from "./support/client-report.ts";
import { createSandbox } from "./support/client-sandbox.ts";
import {
  expectSurveyDone,
  type LongrunUnderTest,
  realClientSuite,
  SURVEY_TASK,
} from "./support/longrun-under-test.ts";
import type { RecordedRequest } from "./support/recording-proxy.ts";
import { type ClientRun, runClaudeCode } from "./support/run-client.ts";

/** Claude Code asks for max_tokens 32,000: the gateway's reserve is capped at a fifth of the window. */
const limitOf = (window: number) => window - Math.floor(window * 0.2);

/** The survey, with the project's tests run now and then (the sim's coder runs `node --test` at steps 9, 19, 29…). */
const SURVEY_WITH_TESTS_TASK =
  "Survey this warehouse project: read its files, run its tests now and then, keep notes in NOTES.md and finish with REPORT.md.";

/**
 * A test file `node --test` finds: 40 passing tests whose TAP output (~7.7k characters a run) is no
 * read, so the projection keeps it verbatim where it collapses every file read into a one-line record.
 */
const LEDGER_TESTS = {
  "test/ledger.test.mjs": [
    'import assert from "node:assert/strict";',
    'import { test } from "node:test";',
    "",
    "for (let index = 0; index < 40; index++) {",
    "  const delta = (index % 7) - 3;",
    '  test("stock level " + index + " stays at or above zero after a ledger movement of " + delta, () => {',
    "    assert.ok(Math.max(0, index + delta) >= 0);",
    "  });",
    "}",
    "",
  ].join("\n"),
};

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

/**
 * The largest conversation the thread held uncompacted: each measure's raw part (from the compaction in
 * force on) plus the facts earlier compactions took out of it (below the latest cutoff seq).
 */
function rawPeak(events: LongrunEvent[], facts: readonly StoredMessage[]): number {
  let peak = 0;
  let compactedAway = 0;
  for (const event of events) {
    if (event.type === "compaction.completed" && event.data.cutoffSeq !== undefined) {
      const cutoff = event.data.cutoffSeq;
      compactedAway = facts.reduce((sum, fact) => (fact.seq < cutoff ? sum + fact.tokenCount : sum), 0);
    }
    if (event.type === "context.measured") peak = Math.max(peak, event.data.rawTokens + compactedAway);
  }
  return peak;
}

const SIX_TOOLS = "Bash,Read,Write,Edit,Grep,TodoWrite";

/** The usage a streamed Messages answer told: message_start's, updated by message_delta's. */
function toldUsage(request: RecordedRequest): { prompt: number; output: number } {
  type Usage = {
    input_tokens: number;
    output_tokens: number;
    cache_read_input_tokens?: number;
    cache_creation_input_tokens?: number;
  };
  let usage: Usage | undefined;
  for (const frame of (request.events ?? "").split("\n\n")) {
    const data = frame.split("\n").find((line) => line.startsWith("data: "));
    if (!data) continue;
    const event = JSON.parse(data.slice("data: ".length)) as {
      type: string;
      message?: { usage: Usage };
      usage?: Partial<Usage>;
    };
    if (event.type === "message_start" && event.message) usage = event.message.usage;
    if (event.type === "message_delta" && usage && event.usage) usage = { ...usage, ...event.usage };
  }
  if (!usage) throw new Error(`no usage in the answer to ${request.path}`);
  return {
    prompt:
      usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
    output: usage.output_tokens,
  };
}

describe("Claude Code 2.1.197 through longrun's Anthropic Messages gateway (real processes)", () => {
  let env: LongrunUnderTest;
  const sandboxes = realClientSuite((started) => {
    env = started;
  });

  /** One `claude -p` survey through longrun, finished (exit 0, notes and report written), and its figures. */
  async function runSurvey(input: {
    name: string;
    window: number;
    steps: number;
    tools?: string;
    task?: string;
    extraFiles?: Record<string, string>;
    /** More of Claude Code's environment switches. */
    clientEnv?: Record<string, string>;
  }) {
    const sandbox = await createSandbox(input.name, input.extraFiles);
    sandboxes.push(sandbox);
    const model = `sim:script=coder:steps=${input.steps}:ctx=${input.window}`;
    // Runs of one model string told apart by time (the tests of this file run one after another).
    const startedAt = Date.now();
    const run = await runClaudeCode(sandbox, {
      baseUrl: env.url,
      token: env.longrun.instance.token,
      model,
      window: input.window,
      task: input.task ?? SURVEY_TASK,
      timeoutMs: 240_000,
      maxTurns: input.steps + 10,
      ...(input.tools ? { tools: input.tools } : {}),
      ...(input.clientEnv ? { env: input.clientEnv } : {}),
    });
    await expectSurveyDone(run, sandbox.work, {
      steps: input.steps,
      progressStep: 10 * Math.floor((input.steps - 2) / 10) + 8,
    });
    const session = sessionOf(run);
    const thread = await threadOf(
      env,
      (candidate) => candidate.modelProfile.gateway?.key === `cache:${session}|agent`,
    );
    const upstream = upstreamOf(env, model).filter((entry) => entry.at >= startedAt);
    const clientRequests = env.requests.filter(
      (request) => request.at >= startedAt && (request.body as { model?: string })?.model === model,
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
      `[gateway report] ${JSON.stringify({ client: input.name, rawPeak: rawPeak(thread.events, thread.facts) })}`,
    );
    // Every request Claude Code sent was answered (none refused, none retried after a 4xx/5xx).
    expect(clientRequests.every((request) => request.status === 200)).toBe(true);
    expect(clientRequests.every((request) => request.path.startsWith("/v1/messages"))).toBe(true);
    expect(report.steps).toBeGreaterThanOrEqual(input.steps);
    // Every upstream request was accepted by the strict sim model and fit the window.
    expect(upstream.every((entry) => entry.status === 200)).toBe(true);
    expect(report.peakPromptTokens).toBeLessThanOrEqual(limitOf(input.window));
    return { run, thread, upstream, clientRequests, report };
  }

  /** A survey in which Claude Code never compacts itself (its window is longrun's). */
  async function survey(input: Parameters<typeof runSurvey>[0] & { minCompactions: number }) {
    const { run, thread, report } = await runSurvey(input);
    expect(report.longrunCompactions).toBeGreaterThanOrEqual(input.minCompactions);
    // Without longrun the history would not have fit: the raw conversation outgrew the limit.
    expect(rawPeak(thread.events, thread.facts)).toBeGreaterThan(limitOf(input.window));
    expect(report.clientCompactions).toBe(0);
    // Input + cache reads + cache writes Claude Code was told = the prompts actually sent upstream.
    expect(toldPromptTokens(run)).toBe(
      report.agentCalls.reduce((sum, entry) => sum + (entry.promptTokens ?? 0), 0),
    );
    return report;
  }

  it("does a 30-step task at 16k with six of its tools while longrun compacts; Claude Code never compacts itself", async () => {
    // Its full fixed prompt (system text and 24 tools, ~19.4k tokens) cannot fit 16k: --tools keeps
    // Bash, Read, Write, Edit, Grep and TodoWrite, the tools the task uses.
    // File reads alone never need a summary: the projection collapses each into a one-line record
    // (and Claude Code answers a repeated Read with "file unchanged"). Test runs are not reads: their
    // output stays verbatim until an LLM compaction summarizes it.
    await survey({
      name: "claude-16k",
      window: 16_384,
      steps: 30,
      tools: SIX_TOOLS,
      task: SURVEY_WITH_TESTS_TASK,
      extraFiles: LEDGER_TESTS,
      minCompactions: 1,
    });
  }, 300_000);

  it("does a 31-step task at 32k with all its tools while longrun compacts (its ~19.4k-token fixed prompt does not fit 16k)", async () => {
    await survey({ name: "claude-32k", window: 32_000, steps: 31, minCompactions: 1 });
  }, 300_000);

  it("compacts itself at its own 26k window over longrun's 16k at most twice in 50 steps, goes on from longrun's summary, and asks count_tokens for large reads", async () => {
    // Read off its bundle (2.1.197): it compacts on its own only when its compaction window is not
    // "auto" (CLAUDE_CODE_AUTO_COMPACT_WINDOW, floored at 100k, then capped by the model's window),
    // at window − min(max output, 20k) − 13k tokens of the last usage it was told plus its estimate of
    // what came after; a model whose name does not start with "claude-" takes its window from
    // CLAUDE_CODE_MAX_CONTEXT_TOKENS. Here: 26,000 − 4,096 − 13,000 = 8,904 tokens. A Read whose
    // characters exceed CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS is counted by POST count_tokens first.
    const { clientRequests, upstream, thread } = await runSurvey({
      name: "claude-own",
      window: 16_384,
      steps: 50,
      tools: SIX_TOOLS,
      clientEnv: {
        CLAUDE_CODE_MAX_CONTEXT_TOKENS: "26000",
        CLAUDE_CODE_AUTO_COMPACT_WINDOW: "26000",
        CLAUDE_CODE_MAX_OUTPUT_TOKENS: "4096",
        CLAUDE_CODE_FILE_READ_MAX_OUTPUT_TOKENS: "4000",
      },
    });
    const compactions = clientRequests.filter(isClientCompaction);
    console.log(`[claude own] client compactions at ${compactions.map((request) => request.at).join(", ")}`);
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    // Once longrun has learned the window from its first request, its answers look small enough.
    expect(compactions.length).toBeLessThan(3);
    // Claude Code took longrun's answer for its summary: the history it sent next opens with it.
    const turnsAfter = clientRequests.filter(
      (request) =>
        request.at > compactions[0]!.at &&
        !request.path.startsWith("/v1/messages/count_tokens") &&
        !isClientCompaction(request),
    );
    expect(turnsAfter.length).toBeGreaterThan(0);
    expect(JSON.stringify(turnsAfter[0]!.body)).toContain(
      "This session is being continued from a previous conversation",
    );
    // What it was told. Up to its ask, the prompts sent upstream. At its ask longrun learns the window
    // it can see — the size it last told (prompt + output): Claude Code's threshold (8,904 here, on that
    // size plus its estimate of what came after), not its 26k window, which no request says — and from
    // then on reports every prompt scaled so that longrun's 16k reads as half of it (runtime's
    // usageForClient). Told = sent cannot hold after the ask: longrun keeps prompts up to its limit
    // (13,108), above that threshold, and told them as they are Claude Code would compact again each time.
    const turns = clientRequests.filter(
      (request) => !request.path.startsWith("/v1/messages/count_tokens") && !isClientCompaction(request),
    );
    const sent = upstream.filter((entry) => !entry.summary).map((entry) => entry.promptTokens ?? 0);
    expect(turns).toHaveLength(sent.length);
    const told = turns.map(toldUsage);
    const asked = turns.filter((request) => request.at < compactions[0]!.at).length;
    expect(told.slice(0, asked).map((usage) => usage.prompt)).toEqual(sent.slice(0, asked));
    const learned = told[asked - 1]!.prompt + told[asked - 1]!.output;
    expect(learned).toBeLessThanOrEqual(8_904);
    const scaled = (tokens: number) =>
      Math.min(Math.floor(learned / 2), Math.round((tokens * learned * 0.5) / 16_384));
    expect(told.slice(asked).map((usage) => usage.prompt)).toEqual(sent.slice(asked).map(scaled));
    // Its summary request never went upstream: longrun answered it from its own compaction.
    expect(
      upstream.some((entry) => JSON.stringify(entry.body).includes("create a detailed summary of")),
    ).toBe(false);

    const counts = clientRequests.filter((request) => request.path.startsWith("/v1/messages/count_tokens"));
    expect(counts.length).toBeGreaterThan(0);
    for (const request of counts) {
      const counted = (request.response as { input_tokens: number }).input_tokens;
      const judged = await simInputTokens(request);
      console.log(`[claude own] count_tokens ${counted}, the sim's own count ${judged}`);
      expect(counted).toBeGreaterThan(0);
      expect(Math.abs(counted - judged)).toBeLessThanOrEqual(Math.ceil(judged * 0.01));
    }
    // Every counted file was read: no count put a file over the 4,000-token limit it is under.
    expect(
      thread.facts.some((fact) => JSON.stringify(fact.content).includes("exceeds maximum allowed tokens")),
    ).toBe(false);
  }, 300_000);

  /** The sim model's count of a count_tokens body, sent to it as a Messages request (the independent judge). */
  async function simInputTokens(request: RecordedRequest): Promise<number> {
    const body = request.body as { messages: unknown[]; tools?: unknown[]; system?: unknown };
    const response = await fetch(`${env.sim.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({
        model: "sim:script=coder:steps=1",
        max_tokens: 64,
        messages: body.messages,
        ...(body.tools?.length ? { tools: body.tools } : {}),
        ...(body.system ? { system: body.system } : {}),
      }),
    });
    expect(response.status).toBe(200);
    // The sim serves a repeated prefix from its cache: the prompt is all three figures together.
    const { usage } = (await response.json()) as {
      usage: { input_tokens: number; cache_read_input_tokens?: number; cache_creation_input_tokens?: number };
    };
    return (
      usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0)
    );
  }
});
