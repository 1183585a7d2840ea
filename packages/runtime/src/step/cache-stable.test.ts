import type { LongrunEvent } from "@longrun/protocol";
import { TOKEN_OVERHEAD } from "@longrun/sim-model";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

type Measured = Extract<LongrunEvent, { type: "context.measured" }>;
type Completed = Extract<LongrunEvent, { type: "message.completed" }>;

/** One model answer of the agent with the measurement of the request that produced it. */
interface Answered {
  measured: Measured;
  usage: NonNullable<Completed["data"]["usage"]>;
  /** Compactions completed before this request (its epoch). */
  epoch: number;
}

/** The agent's answered requests in order, each with its measurement and the sim's usage. */
function answeredRequests(events: readonly LongrunEvent[], agentId: string): Answered[] {
  const answered: Answered[] = [];
  let measured: Measured | null = null;
  let epoch = 0;
  for (const event of events) {
    if (event.agentId !== agentId) continue;
    if (event.type === "compaction.completed") epoch++;
    if (event.type === "context.measured") measured = event;
    if (event.type === "message.completed" && event.data.role === "assistant" && measured) {
      const usage = event.data.usage;
      if (!usage) throw new Error(`answer ${event.data.seq} without usage`);
      answered.push({ measured, usage, epoch });
      measured = null;
    }
  }
  return answered;
}

describe("cache-stable projection on the real path (sim over HTTP through the openai client)", () => {
  it("between compactions every request the projection calls an extension is served whole from the sim's prefix cache", async () => {
    // A small window and a long explorer: reads pile up past the trigger, so stages have work to do
    // (at 8k, 40 steps: reductions deferred, and a rewrite to fit within an epoch).
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000 });
    const { rootAgentId, runId } = await harness.startThread("Survey the project and take notes.");
    const end = await harness.waitForRunEnd(runId, 240_000);
    expect(end.type).toBe("run.completed");

    const answered = answeredRequests(harness.events, rootAgentId);
    expect(answered.length).toBeGreaterThan(20);
    let extensions = 0;
    let deferred = 0;
    let rewrites = 0;
    let resent = 0;
    let cached = 0;
    let prompt = 0;
    for (let index = 1; index < answered.length; index++) {
      const previous = answered[index - 1] as Answered;
      const current = answered[index] as Answered;
      const cache = current.measured.data.cache;
      expect(cache, "every measurement says how the request relates to the previous one").toBeDefined();
      if (current.epoch !== previous.epoch) continue;
      // The whole previous request (all its messages) is what an extension finds in the cache.
      const previousMessages = previous.usage.promptTokens - TOKEN_OVERHEAD.replyPriming;
      const served = current.usage.cachedTokens ?? 0;
      prompt += current.usage.promptTokens;
      cached += served;
      if (cache?.rewrite === null) {
        expect(served, `request ${index}: an extension is cached up to its last old message`).toBe(
          previousMessages,
        );
        extensions++;
        // Reductions were due, yet the sent messages kept their form (the batch was too small).
        if ((cache?.dueTokens ?? 0) > 0) deferred++;
      } else {
        expect(served, `request ${index}: a ${cache?.rewrite} rewrite breaks the prefix`).toBeLessThan(
          previousMessages,
        );
        rewrites++;
        if (cache?.rewrite === "batch" || cache?.rewrite === "fit") {
          // The event says what the rewrite saved and how much it resent: the part the sim's cache
          // could not serve (estimated tokens against the sim's count, so within a fifth).
          expect(cache.savedTokens ?? 0).toBeGreaterThan(0);
          const uncached = current.usage.promptTokens - served;
          expect(cache.resentTokens ?? 0).toBeGreaterThan(uncached * 0.8);
          expect(cache.resentTokens ?? 0).toBeLessThan(uncached * 1.25);
          resent++;
        }
      }
    }
    expect(extensions).toBeGreaterThan(0);
    // The run went past the trigger: reductions were due (applied in a batch, or deferred).
    expect(answered.some((request) => (request.measured.data.cache?.dueTokens ?? 0) > 0)).toBe(true);
    expect(deferred).toBeGreaterThan(0);
    // The window is small enough that one request had to rewrite sent messages to fit.
    expect(resent).toBeGreaterThan(0);
    // Between compactions most of what is sent comes from the cache.
    expect(cached / prompt).toBeGreaterThan(0.7);
    console.log(
      `cache-stable run: ${answered.length} answers, ${extensions} extensions (${deferred} with reductions deferred), ${rewrites} rewrites, cached share ${(cached / prompt).toFixed(3)} between compactions`,
    );
  });
});
