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
    const thread = await client.threads.create({ model: "sim", maxInputTokens: 8000, simSteps: 60 });
    const parentId = thread.agents[0]?.id ?? "";
    const first = await client.threads.sendMessage(thread.id, {
      content: "Survey the warehouse service in depth.",
    });
    const runEnded = (runId: string) =>
      vi.waitFor(
        async () => {
          const detail = await client.threads.get(thread.id);
          expect(detail.runs.find((run) => run.id === runId)?.finishedAt).toEqual(expect.any(Number));
        },
        { timeout: 90_000, interval: 50 },
      );
    const compactionsOfParent = async (): Promise<LongrunEvent[]> =>
      (await client.threads.events(thread.id, { since: 0, limit: 10_000 })).filter(
        (event) => event.type === "compaction.completed" && event.agentId === parentId,
      );
    await runEnded(first.runId);
    expect((await compactionsOfParent()).length).toBeGreaterThanOrEqual(1);

    // A team spawned through the API is admitted like any run: the thread is idle, so it starts now.
    const spawned = await client.agents.spawn(parentId, {
      agents: [{ name: "fork-child", brief: "Double-check the ledger module.", inherit: "fork" }],
    });
    const child = spawned.agents[0];
    expect(child).toMatchObject({ inherit: "fork", parentAgentId: parentId });
    expect(child?.forkMessageId).toEqual(expect.any(String));
    expect(child?.forkCompactionId).toEqual(expect.any(String));
    const atSpawnView = await client.agents.context(child?.id ?? "");
    const atSpawn = prefixOf(atSpawnView);
    // The prefix is the parent's view as it stood: its system prompt and the compaction summary then in force.
    expect(atSpawn.messages[0]?.role).toBe("system");
    expect(atSpawn.bytes).toContain("sim-summary");
    expect(atSpawn.messages.length).toBeGreaterThan(2);
    if (atSpawnView.compaction === null) {
      // Before the child's own compaction, the prefix is exactly what its projection starts with.
      expect(atSpawnView.marks.slice(0, atSpawn.messages.length).every((mark) => mark === "prefix")).toBe(
        true,
      );
    } else {
      // The child already folded the prefix into its first summary: only its system prompt is still sent.
      expect(atSpawnView.marks[0]).toBe("system");
      expect(atSpawnView.marks).not.toContain("prefix");
    }
    const compactionsAtSpawn = (await compactionsOfParent()).length;

    // The child's own first compaction folds the inherited prefix. Wait for it on purpose: the request
    // after the fold is the one that used to lose the system prompt.
    const childCompactions = async () =>
      (await client.threads.events(thread.id, { since: 0, limit: 10_000 })).filter(
        (event) => event.type === "compaction.completed" && event.agentId === child?.id,
      );
    let fold: LongrunEvent | undefined;
    await vi.waitFor(
      async () => {
        fold = (await childCompactions())[0];
        expect(fold).toBeDefined();
      },
      { timeout: 90_000, interval: 50 },
    );
    let childRequests: Array<{ at: number; messages: ChatMessage[] }> = [];
    await vi.waitFor(
      async () => {
        const log = (await (await fetch(`${env.instance.simModelUrl}/sim/log`)).json()) as {
          entries: Array<{ at: number; summary: boolean; body: { messages: ChatMessage[] } }>;
        };
        childRequests = log.entries
          .filter(
            (entry) =>
              !entry.summary &&
              entry.body.messages.some((message) => message.content === "Double-check the ledger module."),
          )
          .map((entry) => ({ at: entry.at, messages: entry.body.messages }));
        expect(childRequests.some((request) => request.at >= (fold?.at ?? 0))).toBe(true);
      },
      { timeout: 60_000, interval: 50 },
    );

    // The team's report reaches the parent when the child is done; then the parent works on and
    // compacts twice more.
    await runEnded(spawned.runId ?? "");
    const parentFacts = (await client.agents.messages(parentId, { limit: 5_000 })).messages;
    expect(parentFacts.some((fact) => fact.name === "team_report")).toBe(true);
    // How many steps a compaction takes depends on the compaction budgets: a run that ends first is
    // followed by another message until the parent has compacted twice more (at most four runs).
    const target = compactionsAtSpawn + 2;
    let last = await client.threads.sendMessage(thread.id, { content: "Now survey the billing module." });
    for (let round = 1; ; round++) {
      const runId = last.runId;
      await vi.waitFor(
        async () => {
          const ended = (await client.threads.get(thread.id)).runs.find(
            (run) => run.id === runId,
          )?.finishedAt;
          const enough = (await compactionsOfParent()).length >= target;
          expect(enough || typeof ended === "number").toBe(true);
        },
        { timeout: 90_000, interval: 50 },
      );
      if ((await compactionsOfParent()).length >= target || round === 4) break;
      last = await client.threads.sendMessage(thread.id, { content: "Go on with the billing module." });
    }
    expect((await compactionsOfParent()).length).toBeGreaterThanOrEqual(target);
    const rebuilt = prefixOf(await client.agents.context(child?.id ?? ""));
    expect(rebuilt.bytes).toBe(atSpawn.bytes);
    // What the child actually sent: before the fold, the rebuilt prefix itself; after it, the prefix's
    // system prompt, then the child's own summary (after its pinned brief, which comes first so the
    // prefix cache keeps serving it).
    const beforeFold = childRequests.filter((request) => request.at < (fold?.at ?? 0));
    for (const request of beforeFold) {
      expect(request.messages.slice(0, rebuilt.messages.length).map(wire)).toEqual(
        rebuilt.messages.map(wire),
      );
    }
    const afterFold = childRequests.filter((request) => request.at >= (fold?.at ?? 0));
    expect(afterFold.length).toBeGreaterThan(0);
    for (const request of afterFold) {
      expect(wire(request.messages[0] as ChatMessage)).toEqual(wire(rebuilt.messages[0] as ChatMessage));
      const head = request.messages.slice(1, 3).map((message) => String(message.content));
      expect(head.join("\n")).toContain("[Context summary");
    }
    // The parent itself moved on: its own projection no longer starts with the same summary.
    const parentNow = await client.agents.context(parentId);
    expect(parentNow.compaction?.id).not.toBe(child?.forkCompactionId);

    await client.runs.cancel(last.runId);
  }, 180_000);
});
