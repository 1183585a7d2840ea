import type { ChatMessage } from "@longrun/protocol";
import { afterEach, describe, expect, it } from "vitest";
import { createHarness, type Harness, jobRunner } from "../harness.test-helper.ts";
import { createJobHandlers } from "../jobs/job-handlers.ts";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe("a worker's cached agent context", () => {
  it("is dropped when another worker moved the agent on, so no step ever works from a stale log", async () => {
    harness = await createHarness({ simSteps: 8, maxInputTokens: 64_000, manual: true });
    const { rootAgentId } = await harness.startThread("Survey the project.");
    // Two workers (job runners with their own caches) take turns on the same agent.
    const other = jobRunner(
      createJobHandlers({
        deps: harness.deps,
        coordinator: harness.coordinator,
        runControl: harness.runControl,
      }),
    );
    const signal = new AbortController().signal;
    for (let turn = 0; turn < 6 && harness.pending.length > 0; turn++) {
      const job = harness.pending.shift();
      if (job?.name !== "agent.step") throw new Error("expected a step");
      const runner = turn % 2 === 0 ? harness.runner : other;
      await runner.step(job.payload, { attempt: 1, signal, jobId: `turn-${turn}` });
    }
    const facts = await harness.store.messages.list(rootAgentId);
    // Every request each worker sent carried every fact written before it, whoever wrote it.
    const requests = harness.sim.log.entries.map(
      (entry) => (entry.body as { messages: ChatMessage[] }).messages,
    );
    expect(requests.length).toBeGreaterThanOrEqual(6);
    for (const [index, messages] of requests.entries()) {
      const toolResults = messages.filter((message) => message.role === "tool").length;
      // Request n follows n answered steps (one call each for the sim explorer's first steps).
      expect(toolResults).toBeGreaterThanOrEqual(index);
    }
    expect(harness.sim.log.entries.every((entry) => entry.status === 200)).toBe(true);
    expect(facts.map((fact) => fact.seq)).toEqual(facts.map((_, index) => index));
  });

  it("takes the fence from an earlier holder that is still running: its late write is refused", async () => {
    harness = await createHarness({ simSteps: 4, maxInputTokens: 64_000, manual: true });
    const { rootAgentId, runId, threadId } = await harness.startThread("Survey the project.");
    const stale = await harness.deps.store.agents.claim(rootAgentId, 1, runId);
    expect(stale.fence).toBe(1);
    // A second holder (its lease came later) claims a higher token before it reads anything.
    await harness.runNext();
    const fence = (await harness.store.agents.get(rootAgentId))?.fence ?? 0;
    expect(fence).toBeGreaterThan(1);
    await expect(
      harness.store.messages.append(rootAgentId, { role: "assistant", content: "late" }, { fence: 1 }),
    ).rejects.toMatchObject({ details: { leaseLost: true } });
    expect((await harness.store.messages.list(rootAgentId)).some((fact) => fact.content === "late")).toBe(
      false,
    );
    expect(threadId).toEqual(expect.any(String));
  });
});
