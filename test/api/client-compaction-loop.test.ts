import Anthropic from "@anthropic-ai/sdk";
import { executeFakeTool, fakeWorkspace, type SimModelServer, toolDefinitions } from "@longrun/sim-model";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type EmbeddedTestInstance,
  type GatewayOverSim,
  startGatewayOverSim,
} from "../e2e/support/embedded-instance.ts";
import { CLIENT_SHAPES, type ClientShape, type Clients, type Item } from "./support/client-shapes.ts";

/** longrun's window (the upstream model's) and each client's own, smaller one. */
const LONGRUN_WINDOW = 16_384;
const CLIENT_WINDOW = 8_192;
const TURNS = 50;

let gateway: GatewayOverSim;
let sim: SimModelServer;
let longrun: EmbeddedTestInstance;

beforeAll(async () => {
  gateway = await startGatewayOverSim({ logLimit: 5_000 });
  ({ sim, longrun } = gateway);
});
afterAll(() => gateway?.close());

const estimate = (items: Item[]) =>
  Math.ceil(
    items.reduce((sum, item) => sum + item.content.length + JSON.stringify(item.toolCalls ?? []).length, 0) /
      4,
  );

/**
 * Plays one client for `TURNS` agent requests: it executes the model's tool calls, keeps its whole
 * history, and — as Codex, opencode, pi, qwen-code and Claude Code do — compacts when the size it was
 * last told plus its estimate of what it added since passes its threshold, then rebuilds its history
 * around the summary. Returns how many times it compacted.
 */
async function drive(shape: ClientShape, extraHeaders: Record<string, string> = {}) {
  const url = longrun.instance.url;
  const token = longrun.instance.token;
  const clients: Clients = {
    openai: new OpenAI({ baseURL: `${url}/v1`, apiKey: token, maxRetries: 0 }),
    anthropic: new Anthropic({ baseURL: url, apiKey: token, maxRetries: 0 }),
    model: `sim:steps=200:ctx=${LONGRUN_WINDOW}`,
    headers: { "x-longrun-max-input-tokens": String(LONGRUN_WINDOW), ...extraHeaders },
  };
  const files = fakeWorkspace(24);
  const tools = toolDefinitions(["read_file", "glob", "grep", "list_dir"]);
  let history = shape.start();
  let told = 0;
  let addedSince = 0;
  let compactions = 0;
  let answeredByLongrun = 0;
  const threadsBefore = (await longrun.client.threads.list()).length;
  const simBefore = sim.log.entries.at(-1)?.seq ?? 0;
  for (let turn = 0; turn < TURNS; turn++) {
    if (told + addedSince > shape.threshold * CLIENT_WINDOW) {
      compactions += 1;
      const summary = await shape.compact(clients, history, tools);
      if (summary.text.startsWith("[longrun checkpoint") && summary.toolCalls.length === 0)
        answeredByLongrun += 1;
      history = shape.rebuild(history, summary.text);
      told = summary.reportedTokens;
      addedSince = estimate(history);
    }
    const reply = await shape.turn(clients, history, tools);
    told = reply.reportedTokens;
    const answer: Item = { role: "assistant", content: reply.text, toolCalls: reply.toolCalls };
    const results: Item[] = reply.toolCalls.map((call) => ({
      role: "tool",
      toolCallId: call.id,
      content: executeFakeTool(files, call.name, call.arguments),
    }));
    const next: Item[] =
      results.length > 0 ? results : [{ role: "user", content: "Go on with the next module." }];
    history = [...history, answer, ...next];
    addedSince = estimate(next);
  }
  const threads = (await longrun.client.threads.list()).length - threadsBefore;
  const upstream = sim.log.entries.filter((entry) => entry.seq > simBefore);
  const longrunSummaries = upstream.filter((entry) => entry.summary).length;
  const peakPrompt = Math.max(...upstream.map((entry) => entry.promptTokens ?? 0));
  return { compactions, answeredByLongrun, threads, longrunSummaries, peakPrompt };
}

describe("a client whose own window is below longrun's", () => {
  const counts: Record<string, number> = {};
  const longrunCompactions: Record<string, number> = {};
  const peaks: Record<string, number> = {};
  afterAll(() => {
    console.log(
      `[client compaction loop] ${JSON.stringify({ turns: TURNS, clientCompactions: counts, longrunCompactions, peakUpstreamPrompt: peaks })}`,
    );
  });

  for (const make of CLIENT_SHAPES) {
    const shape = make();
    it(`${shape.name}: compacts fewer than 3 times in ${TURNS} turns, and no upstream request is refused`, async () => {
      const run = await drive(shape);
      counts[shape.name] = run.compactions;
      longrunCompactions[shape.name] = run.longrunSummaries;
      peaks[shape.name] = run.peakPrompt;
      expect(run.compactions).toBeLessThan(3);
      // Each compaction request was answered by longrun, not sent upstream as a conversation, and the
      // history the client rebuilt continued its one thread (pi and qwen send no session id).
      expect(run.answeredByLongrun).toBe(run.compactions);
      expect(run.threads).toBe(1);
      expect(sim.log.entries.filter((entry) => entry.status !== 200)).toEqual([]);
    }, 240_000);
  }

  it("a client that declares its window (x-longrun-client-window) never needs to compact", async () => {
    const [make] = CLIENT_SHAPES;
    const shape = { ...make!(), name: "codex-declared" };
    const run = await drive(shape, {
      "x-longrun-client-window": String(CLIENT_WINDOW),
      "x-longrun-conversation": "codex-declared",
    });
    counts[shape.name] = run.compactions;
    expect(run.compactions).toBe(0);
  }, 240_000);
});
