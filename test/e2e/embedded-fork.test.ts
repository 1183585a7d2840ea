import type { ChatMessage, ContextView, LongrunEvent } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type EmbeddedTestInstance, startEmbeddedForTest } from "./support/embedded-instance.ts";

/** A forked agent's inherited prefix as the server rebuilds it from the parent's log, as bytes. */
function prefixOf(view: ContextView): { messages: ChatMessage[]; bytes: string } {
  const messages = view.forkPrefix ?? [];
  return { messages, bytes: JSON.stringify(messages) };
}

/** The wire fields of a message, for comparing what was sent with what is rebuilt. */
function wire(message: ChatMessage) {
  return [message.role, message.content, message.tool_calls ?? null, message.tool_call_id ?? null];
}

describe("a forked sub-agent's prefix (embedded mode)", () => {
  let env: EmbeddedTestInstance;

  beforeAll(async () => {
    env = await startEmbeddedForTest();
  });
  afterAll(async () => {
    await env?.close();
  });

  it("is rebuilt byte-identical after its parent has compacted twice more", async () => {
    const { client } = env;
    const thread = await client.threads.create({ model: "sim", maxInputTokens: 8000, simSteps: 400 });
    const parentId = thread.agents[0]?.id ?? "";
    const { runId } = await client.threads.sendMessage(thread.id, {
      content: "Survey the warehouse service in depth.",
    });
    const compactionsOfParent = async (): Promise<LongrunEvent[]> =>
      (await client.threads.events(thread.id, { since: 0, limit: 10_000 })).filter(
        (event) => event.type === "compaction.completed" && event.agentId === parentId,
      );
    await vi.waitFor(async () => expect((await compactionsOfParent()).length).toBeGreaterThanOrEqual(1), {
      timeout: 60_000,
      interval: 50,
    });

    const spawned = await client.agents.spawn(parentId, {
      agents: [{ name: "fork-child", brief: "Double-check the ledger module.", inherit: "fork" }],
    });
    const child = spawned.agents[0];
    expect(child).toMatchObject({ inherit: "fork", parentAgentId: parentId });
    expect(child?.forkMessageId).toEqual(expect.any(String));
    expect(child?.forkCompactionId).toEqual(expect.any(String));
    const atSpawnView = await client.agents.context(child?.id ?? "");
    const atSpawn = prefixOf(atSpawnView);
    // Before the child's own compaction, the prefix is exactly what its projection starts with.
    expect(atSpawnView.marks.slice(0, atSpawn.messages.length).every((mark) => mark === "prefix")).toBe(true);
    // The prefix is the parent's view as it stood: its system prompt and the compaction summary then in force.
    expect(atSpawn.messages[0]?.role).toBe("system");
    expect(atSpawn.bytes).toContain("sim-summary");
    expect(atSpawn.messages.length).toBeGreaterThan(2);
    const compactionsAtSpawn = (await compactionsOfParent()).length;
    let firstSent: ChatMessage[] = [];
    await vi.waitFor(
      async () => {
        const log = (await (await fetch(`${env.instance.simModelUrl}/sim/log`)).json()) as {
          entries: Array<{ summary: boolean; body: { messages: ChatMessage[] } }>;
        };
        const first = log.entries.find(
          (entry) =>
            !entry.summary &&
            entry.body.messages.some((message) => message.content === "Double-check the ledger module."),
        );
        expect(first).toBeDefined();
        firstSent = first?.body.messages ?? [];
      },
      { timeout: 30_000, interval: 50 },
    );

    await vi.waitFor(
      async () => expect((await compactionsOfParent()).length).toBeGreaterThanOrEqual(compactionsAtSpawn + 2),
      { timeout: 90_000, interval: 50 },
    );
    // The child has been working on top of that prefix meanwhile.
    await vi.waitFor(
      async () => expect((await client.agents.messages(child?.id ?? "")).messages.length).toBeGreaterThan(3),
      { timeout: 30_000, interval: 50 },
    );
    const rebuilt = prefixOf(await client.agents.context(child?.id ?? ""));
    expect(rebuilt.bytes).toBe(atSpawn.bytes);
    // And it is what the child's first request actually carried (the sim model's request log).
    expect(firstSent.slice(0, rebuilt.messages.length).map(wire)).toEqual(rebuilt.messages.map(wire));
    // The parent itself moved on: its own projection no longer starts with the same summary.
    const parentNow = await client.agents.context(parentId);
    expect(parentNow.compaction?.id).not.toBe(child?.forkCompactionId);

    await client.runs.cancel(runId);
  }, 180_000);
});
