import type { LongrunEvent } from "@longrun/protocol";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  allEvents,
  type EmbeddedTestInstance,
  startEmbeddedForTest,
  waitForRun,
} from "./support/embedded-instance.ts";

// Event retention (LONGRUN_EVENTS_PER_THREAD): old events are pruned by the maintenance loop, seqs go
// on from the head, and a client asking for what is gone gets an explicit resync, never silence.

describe("event retention (embedded mode)", () => {
  let env: EmbeddedTestInstance;
  beforeAll(async () => {
    env = await startEmbeddedForTest({ LONGRUN_EVENTS_PER_THREAD: "100", LONGRUN_RECONCILE_MS: "200" });
  });
  afterAll(async () => {
    await env?.close();
  });

  it("prunes each thread to its newest events and tells a client that was away to resync", async () => {
    const { client } = env;
    const thread = await client.threads.create({ model: "sim", simSteps: 40, maxInputTokens: 16_000 });
    const { runId } = await client.threads.sendMessage(thread.id, { content: "Survey the project." });
    await waitForRun(client, thread.id, runId);
    let retained: LongrunEvent[] = [];
    await vi.waitFor(
      async () => {
        retained = await allEvents(client, thread.id);
        expect(retained.length).toBeLessThanOrEqual(100);
      },
      { timeout: 60_000, interval: 100 },
    );
    const oldest = retained[0]?.seq ?? 0;
    const head = retained.at(-1)?.seq ?? 0;
    expect(oldest).toBeGreaterThan(1);
    expect(retained.map((event) => event.seq)).toEqual(retained.map((_, index) => oldest + index));

    const resyncs: Array<{ requestedSince: number; oldestSeq: number }> = [];
    const seen: number[] = [];
    const subscription = client.subscribe(
      { threadId: thread.id, since: 0 },
      { onEvent: (event) => seen.push(event.seq), onResync: (info) => resyncs.push(info) },
    );
    await subscription.ready;
    await vi.waitFor(() => expect(seen.at(-1)).toBe(head), { timeout: 60_000 });
    expect(resyncs).toEqual([expect.objectContaining({ requestedSince: 0, oldestSeq: oldest })]);
    // After the resync, the retained log arrives whole; new events continue from the head.
    expect(seen).toEqual(retained.map((event) => event.seq));
    const next = await client.threads.sendMessage(thread.id, { content: "/compact" });
    await waitForRun(client, thread.id, next.runId);
    await vi.waitFor(() => expect(seen.at(-1)).toBeGreaterThan(head), { timeout: 60_000 });
    expect(seen[retained.length]).toBe(head + 1);
  }, 120_000);
});
