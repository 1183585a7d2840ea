import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedTestInstance, startEmbeddedForTest, waitForRun } from "./support/embedded-instance.ts";
import { markRunStuck } from "./support/mark-stuck.ts";

// A stuck run (marked by the reconciler) shows in the operations view of its own tenant only.

describe("stuck runs in /v1/ops", () => {
  let env: EmbeddedTestInstance;
  beforeAll(async () => {
    env = await startEmbeddedForTest();
  });
  afterAll(async () => {
    await env?.close();
  });

  it("lists a stuck run with its reason for its tenant, and nothing of it for another tenant", async () => {
    const { client } = env;
    const thread = await client.threads.create({ model: "sim", simSteps: 2, maxInputTokens: 16_000 });
    const { runId } = await client.threads.sendMessage(thread.id, { content: "Have a look." });
    await waitForRun(client, thread.id, runId);
    // As the reconciler leaves it when nothing can move a run.
    await markRunStuck(env.dataDir, runId, "no progress after 3 recoveries");
    const ops = await client.ops.get();
    expect(ops.stuckRuns).toEqual([
      expect.objectContaining({ runId, threadId: thread.id, reason: "no progress after 3 recoveries" }),
    ]);
    const other = env.clientFor(await env.tokenFor("someone-else"));
    expect((await other.ops.get()).stuckRuns).toEqual([]);
  });
});
