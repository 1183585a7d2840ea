import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode (a package dependency would be a cycle cli → server).
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import { createClient, type LongrunClient } from "@longrun/client";
import type { CallCost } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let dataDir: string;
let instance: EmbeddedInstance;
let client: LongrunClient;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-cost-"));
  instance = await startEmbedded(loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir }));
  client = createClient({ baseUrl: instance.url, token: instance.token });
});

afterAll(async () => {
  await instance?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const sum = (costs: CallCost[], pick: (cost: CallCost) => number) =>
  Math.round(costs.reduce((total, cost) => total + pick(cost), 0) * 10) / 10;

describe("GET /v1/threads/:id/cost", () => {
  it("adds up the cost its events carry and puts the plain strategy's figure beside it", async () => {
    const thread = await client.threads.create({
      title: "Priced",
      simSteps: 30,
      maxInputTokens: 8000,
      task: "Explore the workspace and report.",
    });
    const run = await client.runs.wait(thread.runs[0]!.id);
    expect(run.status).toBe("completed");

    const events = await client.threads.events(thread.id, { since: 0, limit: 10_000 });
    const steps = events.flatMap((event) =>
      event.type === "context.measured" && event.data.cost ? [event.data.cost] : [],
    );
    const summaries = events.flatMap((event) =>
      (event.type === "compaction.completed" || event.type === "compaction.prepared") &&
      event.data.summaryCost
        ? [event.data.summaryCost]
        : [],
    );
    const compactions = events.filter((event) => event.type === "compaction.completed").length;
    expect(compactions, "the run compacts at least once at 8k").toBeGreaterThan(0);

    const cost = await client.threads.cost(thread.id);
    expect(cost.calls).toEqual({ steps: steps.length, summaries: summaries.length });
    expect(cost.tokens.cacheRead).toBe(sum([...steps, ...summaries], (call) => call.cacheRead));
    expect(cost.tokens.output).toBe(sum([...steps, ...summaries], (call) => call.output));
    expect(cost.billed.openai).toBeCloseTo(
      sum([...steps, ...summaries], (call) => call.billed.openai),
      0,
    );
    expect(cost.summaries.anthropic).toBeCloseTo(
      sum(summaries, (call) => call.billed.anthropic),
      0,
    );
    // Compared: the steps' answers (output × 4) left out, the summaries' output kept.
    expect(cost.compared.openai).toBeCloseTo(cost.billed.openai - 4 * sum(steps, (call) => call.output), 0);
    const sources = new Set([...steps, ...summaries].map((call) => call.source));
    expect(cost.source).toBe(sources.size > 1 ? "mixed" : [...sources][0]);

    // The plain strategy walked the same messages: the sim's conversation passes 75 % of 8k too.
    expect(cost.plain).not.toBeNull();
    expect(cost.plain!.compactions).toBeGreaterThan(0);
    expect(cost.plain!.summaryCalls).toBe(cost.plain!.compactions);
    expect(cost.plain!.compared.openai).toBeGreaterThan(0);
    expect(cost.saved!.openai).toBeCloseTo(cost.plain!.compared.openai - cost.compared.openai, 0);
  }, 120_000);

  it("answers 404 for a thread of no one", async () => {
    await expect(client.threads.cost("thr_nope")).rejects.toMatchObject({ status: 404 });
  });
});
