import type { UpstreamApi } from "@longrun/protocol";
import type { SimLogEntry } from "@longrun/sim-model";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness } from "../harness.test-helper.ts";
import { staleAnswers } from "./provider-state.test-helper.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** True when an agent request (not a summary) carries the summary of a compaction. */
function afterCompaction(entry: SimLogEntry): boolean {
  return !entry.summary && JSON.stringify(entry.body).includes("[Context summary");
}

const FORMATS: UpstreamApi[] = ["chat-completions", "responses", "anthropic-messages"];

describe.each(FORMATS)("the default scripted agent over %s", (api) => {
  it("works 40 steps at 8k with reasoning on: compactions, no request refused, no provider state across a compaction", async () => {
    harness = await createHarness({ simSteps: 40, maxInputTokens: 8_000, reasoning: true });
    const { runId, rootAgentId } = await harness.startThread("Explore with reasoning on.", {
      upstreamApi: api,
      ...(api === "anthropic-messages" ? { thinkingBudgetTokens: 1024 } : {}),
    });
    const end = await harness.waitForRunEnd(runId);
    expect(end.type).toBe("run.completed");
    const compactions = await harness.store.compactions.list(rootAgentId);
    const entries = harness.sim.log.entries;
    console.info(
      `[upstream ${api}] requests ${entries.length}, compactions ${compactions.length}, with provider state ${entries.filter((entry) => entry.carriesProviderState).length}, refused ${entries.filter((entry) => entry.status !== 200).length}`,
    );
    // Two compactions are what the checks below need: state issued while the first is in force must
    // not go out once the second is. Measured now: 2 over the OpenAI formats, 5 over Anthropic (its
    // thinking text makes each answer longer). With the summary's 400-token budget at 8k it was 3 and
    // 3; at 240 each compacted request is ~70 tokens smaller, and the request that made the third
    // (6,034 tokens against the 6,000 trigger, near the 40th step) now stays under the trigger.
    expect(compactions.length).toBeGreaterThanOrEqual(2);
    const [firstCompaction, secondCompaction] = compactions;
    const facts = await harness.store.messages.list(rootAgentId);
    // Answers carried state issued on the first compaction, and requests went out with the second in
    // force, the replay going on there: the staleness checks below cover a change of compaction.
    expect(facts.some((fact) => fact.providerState?.issuedOnCompactionId === firstCompaction?.id)).toBe(true);
    const underSecond = entries.filter(
      (entry) => !entry.summary && entry.at >= (secondCompaction?.createdAt ?? Number.POSITIVE_INFINITY),
    );
    expect(underSecond.some((entry) => entry.carriesProviderState)).toBe(true);
    // Every request, summaries included, went out in the thread's format, and the strict sim took all.
    expect(entries.every((entry) => entry.api === api)).toBe(true);
    expect(entries.filter((entry) => entry.status !== 200)).toEqual([]);
    const first = entries.findIndex(afterCompaction);
    expect(first).toBeGreaterThan(0);
    // The chain replays its reasoning before the first compaction and again after each one (what the
    // answers given since carry); no request carries state issued before the compaction in force — but
    // the in-flight tool loop's answer keeps Anthropic's signed thinking, which no prefix binds and
    // without which that loop could not think on; no summary carries any.
    expect(entries.slice(0, first).some((entry) => entry.carriesProviderState)).toBe(true);
    expect(entries.slice(first).some((entry) => entry.carriesProviderState)).toBe(true);
    expect(entries.filter((entry) => entry.summary && entry.carriesProviderState)).toEqual([]);
    for (const entry of entries.filter((entry) => !entry.summary)) {
      const stale = staleAnswers(entry, facts, compactions);
      if (api !== "anthropic-messages") {
        expect(stale).toEqual([]);
        continue;
      }
      // At most the newest answer of the request, and only its thinking.
      const newest = facts.filter((fact) => fact.role === "assistant" && fact.createdAt <= entry.at).at(-1);
      expect(stale.every((fact) => fact.id === newest?.id)).toBe(true);
    }
    // Caching by design: Anthropic's breakpoints end the stable prefix (last tool, system prompt, the
    // summary), never the last message; OpenAI Responses gets one prompt_cache_key per agent, store: false.
    const agentBodies = entries
      .filter((entry) => !entry.summary)
      .map((entry) => entry.body as Record<string, unknown>);
    if (api === "anthropic-messages") {
      for (const body of agentBodies) {
        const tools = body.tools as Array<{ cache_control?: unknown }>;
        expect(tools.at(-1)?.cache_control).toEqual({ type: "ephemeral" });
        expect((body.system as Array<{ cache_control?: unknown }>).at(-1)?.cache_control).toEqual({
          type: "ephemeral",
        });
        const last = (body.messages as Array<{ content: Array<{ cache_control?: unknown }> }>).at(-1);
        expect(last?.content.some((block) => block.cache_control)).toBe(false);
      }
      expect(
        agentBodies.filter((body) => JSON.stringify(body.messages).includes('"cache_control"')).length,
      ).toBeGreaterThan(0);
      // Thinking and redacted thinking went back (the sim verifies both byte for byte) before a compaction.
      expect(agentBodies.some((body) => JSON.stringify(body.messages).includes('"redacted_thinking"'))).toBe(
        true,
      );
      // Thinking stays on for the whole run: a compaction, or a rewrite of an older message, does not
      // switch it off (it did: the in-flight answer lost its thinking, and a tool loop cannot turn it on).
      expect(
        agentBodies.filter((body) => (body.thinking as { type?: string } | undefined)?.type !== "enabled"),
      ).toEqual([]);
    }
    if (api === "responses") {
      expect(new Set(agentBodies.map((body) => body.prompt_cache_key))).toEqual(new Set([rootAgentId]));
      expect(
        agentBodies.every((body) => body.store === false && body.previous_response_id === undefined),
      ).toBe(true);
    }
    // The facts keep each provider's state as it came back, tagged with its format.
    const formats = new Set(
      facts.flatMap((fact) =>
        (fact.providerState?.reasoningDetails ?? []).map((detail) => detail.format ?? "none"),
      ),
    );
    const expected = {
      "chat-completions": "none",
      responses: "openai-responses-v1",
      "anthropic-messages": "anthropic-claude-v1",
    };
    expect([...formats]).toEqual([expected[api]]);
  }, 180_000);
});
