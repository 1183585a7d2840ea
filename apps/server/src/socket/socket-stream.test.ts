import type { LongrunClient } from "@longrun/client";
import type { LongrunEvent, NewEvent } from "@longrun/protocol";
import { EVENT_WAIT } from "@longrun/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { MemorySocketDeps } from "./memory-socket-deps.ts";
import { testClient } from "./sdk-client.test-helper.ts";
import { type GatewayTestServer, startGatewayTestServer } from "./socket-test-server.ts";
import { attachSocketServer } from "./ws-adapter.ts";

const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);

let threadCounter = 0;
function newThread(memory: MemorySocketDeps, tenantId = "tenant-a"): string {
  threadCounter += 1;
  const threadId = `thread-${threadCounter}`;
  memory.createThread(threadId, tenantId);
  return threadId;
}

function runStarted(threadId: string, agentId?: string): NewEvent {
  return { threadId, type: "run.started", data: { kind: "message" }, ...(agentId ? { agentId } : {}) };
}

function compactionStarted(threadId: string, agentId: string): NewEvent {
  return {
    threadId,
    agentId,
    type: "compaction.started",
    data: { compactionKey: "k", trigger: "auto", tokensBefore: 100 },
  };
}

/** Appends `count` events, yielding to the event loop every `every` appends so sockets interleave. */
async function appendConcurrently(memory: MemorySocketDeps, threadId: string, count: number, every: number) {
  for (let index = 0; index < count; index += 1) {
    memory.append(runStarted(threadId));
    if (index % every === 0) await yieldToLoop();
  }
}

describe("gateway streaming", () => {
  let server: GatewayTestServer;
  let client: LongrunClient;

  beforeAll(async () => {
    server = await startGatewayTestServer({ replayPageSize: 7 });
    server.memory.addToken("token-a", "tenant-a");
    server.memory.addToken("token-b", "tenant-b");
    client = testClient(server, "token-a");
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  it("replays then streams live with no gap and no duplicate while events are appended", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 0, max: 80 }),
        fc.integer({ min: 1, max: 9 }),
        fc.constantFrom(-1, 0),
        async (before, during, every, since) => {
          const { memory } = server;
          const threadId = newThread(memory);
          for (let index = 0; index < before; index += 1) memory.append(runStarted(threadId));
          const replayed: number[] = [];
          const liveOnly: number[] = [];
          const appending = appendConcurrently(memory, threadId, during, every);
          const resyncs: unknown[] = [];
          const replay = client.subscribe(
            { threadId, since },
            { onEvent: (event) => replayed.push(event.seq), onResync: (info) => resyncs.push(info) },
          );
          const live = client.subscribe({ threadId }, { onEvent: (event) => liveOnly.push(event.seq) });
          await Promise.all([appending, replay.ready, live.ready]);
          const total = before + during;
          await vi.waitFor(() => expect(replayed.length).toBe(total), EVENT_WAIT);
          expect(replayed).toEqual(range(1, total + 1));
          // Live-only starts after the head it was told about and then misses nothing.
          const start = liveOnly[0] ?? total + 1;
          await vi.waitFor(() => expect(liveOnly).toEqual(range(start, total + 1)), EVENT_WAIT);
          expect(replay.lastSeq(threadId)).toBe(total > 0 ? total : since);
          expect(resyncs).toEqual([]);
          replay.close();
          live.close();
        },
      ),
      { numRuns: 12 },
    );
  });

  it("fills holes from the log when live publication arrives out of order", async () => {
    const { memory } = server;
    const threadId = newThread(memory);
    const held: (() => void)[] = [];
    memory.publish = (_event, deliver) => {
      held.push(deliver);
      if (held.length === 5) {
        const batch = held.splice(0).reverse();
        setImmediate(() => {
          for (const release of batch) release();
        });
      }
    };
    try {
      for (let index = 0; index < 10; index += 1) memory.append(runStarted(threadId));
      const seqs: number[] = [];
      const handle = client.subscribe({ threadId, since: 3 }, { onEvent: (event) => seqs.push(event.seq) });
      await handle.ready;
      await appendConcurrently(memory, threadId, 90, 3);
      await vi.waitFor(() => expect(seqs).toEqual(range(4, 101)), EVENT_WAIT);
      handle.close();
    } finally {
      memory.publish = (_event, deliver) => deliver();
    }
  });

  it("filters by type prefix and by agent", async () => {
    const { memory } = server;
    const threadId = newThread(memory);
    memory.append(runStarted(threadId, "agent-1"));
    memory.append(compactionStarted(threadId, "agent-1"));
    const compactions: LongrunEvent[] = [];
    const agentTwo: LongrunEvent[] = [];
    const byType = client.subscribe(
      { threadId, since: -1, types: ["compaction.*"] },
      { onEvent: (event) => compactions.push(event) },
    );
    const byAgent = client.subscribe(
      { threadId, since: -1, agentId: "agent-2" },
      { onEvent: (event) => agentTwo.push(event) },
    );
    await Promise.all([byType.ready, byAgent.ready]);
    memory.append(runStarted(threadId, "agent-2"));
    memory.append(compactionStarted(threadId, "agent-2"));
    memory.append(runStarted(threadId, "agent-1"));
    await vi.waitFor(() => expect(compactions.map((event) => event.seq)).toEqual([2, 4]), EVENT_WAIT);
    await vi.waitFor(() => expect(agentTwo.map((event) => event.seq)).toEqual([3, 4]), EVENT_WAIT);
    expect(compactions.every((event) => event.type.startsWith("compaction."))).toBe(true);
    byType.close();
    byAgent.close();
  });

  it("keeps tenants apart: another tenant's thread is refused and '*' never leaks", async () => {
    const { memory } = server;
    const threadOfB = newThread(memory, "tenant-b");
    const refused = client.subscribe({ threadId: threadOfB, since: -1 }, { onEvent: () => undefined });
    await expect(refused.ready).rejects.toMatchObject({ code: "forbidden" });

    for (const stamp of [true, false]) {
      memory.stampTenant = stamp;
      const seen: LongrunEvent[] = [];
      const all = client.subscribe({ threadId: "*" }, { onEvent: (event) => seen.push(event) });
      await all.ready;
      const laterOfA = newThread(memory, "tenant-a");
      const laterOfB = newThread(memory, "tenant-b");
      memory.append(runStarted(threadOfB));
      memory.append(runStarted(laterOfB));
      memory.append(runStarted(laterOfA));
      memory.append(runStarted(laterOfA));
      await vi.waitFor(
        () =>
          expect(seen.map((event) => `${event.threadId}:${event.seq}`)).toEqual([
            `${laterOfA}:1`,
            `${laterOfA}:2`,
          ]),
        EVENT_WAIT,
      );
      expect(seen.every((event) => !("tenantId" in event))).toBe(true);
      all.close();
    }
    memory.stampTenant = true;
  });

  it("sends an explicit resync when `since` is older than the retained log, then continues", async () => {
    const { memory } = server;
    const threadId = newThread(memory);
    for (let index = 0; index < 20; index += 1) memory.append(runStarted(threadId));
    memory.prune(threadId, 12);
    const resyncs: unknown[] = [];
    const seqs: number[] = [];
    const handle = client.subscribe(
      { threadId, since: 4 },
      { onEvent: (event) => seqs.push(event.seq), onResync: (info) => resyncs.push(info) },
    );
    await vi.waitFor(() => expect(seqs).toEqual(range(12, 21)), EVENT_WAIT);
    expect(resyncs).toEqual([
      { threadId, reason: "expired", requestedSince: 4, oldestSeq: 12, resumeAfter: 11 },
    ]);
    handle.close();
  });

  it("resyncs a client whose resume point is above the head (log restored) and streams the new events", async () => {
    const { memory } = server;
    const threadId = newThread(memory);
    for (let index = 0; index < 6; index += 1) memory.append(runStarted(threadId));
    const seqs: number[] = [];
    const resyncs: unknown[] = [];
    const handle = client.subscribe(
      { threadId, since: 0 },
      { onEvent: (event) => seqs.push(event.seq), onResync: (info) => resyncs.push(info) },
    );
    await vi.waitFor(() => expect(seqs).toEqual(range(1, 7)), EVENT_WAIT);
    // The server's log goes back to an older state while the client is away (a restored database).
    server.dropConnections();
    memory.createThread(threadId, "tenant-a");
    memory.append(runStarted(threadId));
    await vi.waitFor(
      () =>
        expect(resyncs).toEqual([
          { threadId, reason: "ahead", requestedSince: 6, oldestSeq: 1, resumeAfter: 1 },
        ]),
      EVENT_WAIT,
    );
    memory.append(runStarted(threadId));
    await vi.waitFor(() => expect(seqs).toEqual([...range(1, 7), 2]), EVENT_WAIT);
    expect(handle.lastSeq(threadId)).toBe(2);
    handle.close();
  });

  it("tells a subscription added to an already open socket that it is open", async () => {
    const { memory } = server;
    const threadId = newThread(memory);
    const firstStatuses: string[] = [];
    const first = client.subscribe(
      { threadId: "*", types: ["approval.requested"] },
      { onEvent: () => undefined, onStatus: (status) => firstStatuses.push(status) },
    );
    await vi.waitFor(() => expect(firstStatuses).toContain("open"), EVENT_WAIT);
    const seqs: number[] = [];
    const statuses: string[] = [];
    const second = client.subscribe(
      { threadId, since: 0 },
      { onEvent: (event) => seqs.push(event.seq), onStatus: (status) => statuses.push(status) },
    );
    expect(statuses).toEqual(["open"]);
    memory.append(runStarted(threadId));
    await vi.waitFor(() => expect(seqs).toEqual([1]), EVENT_WAIT);
    second.close();
    first.close();
  });

  it("resumes from the last seq after the connection drops, without duplicates", async () => {
    const { memory } = server;
    const single = newThread(memory);
    const other = newThread(memory);
    for (let index = 0; index < 5; index += 1) memory.append(runStarted(single));
    const singleSeqs: number[] = [];
    const allSeqs: string[] = [];
    const statuses: string[] = [];
    const one = client.subscribe(
      { threadId: single, since: -1 },
      { onEvent: (event) => singleSeqs.push(event.seq), onStatus: (status) => statuses.push(status) },
    );
    const all = client.subscribe(
      { threadId: "*" },
      { onEvent: (event) => allSeqs.push(`${event.threadId}:${event.seq}`) },
    );
    await Promise.all([one.ready, all.ready]);
    memory.append(runStarted(other));
    await vi.waitFor(() => expect(singleSeqs.length).toBe(5), EVENT_WAIT);
    await vi.waitFor(() => expect(allSeqs).toContain(`${other}:1`), EVENT_WAIT);

    server.dropConnections();
    // Appended while the client is away: owed on reconnect, including a thread created meanwhile.
    memory.append(runStarted(single));
    memory.append(runStarted(other));
    const createdWhileAway = newThread(memory);
    memory.append(runStarted(createdWhileAway));
    await vi.waitFor(() => expect(statuses).toContain("reconnecting"), EVENT_WAIT);
    await appendConcurrently(memory, single, 20, 4);

    await vi.waitFor(() => expect(singleSeqs).toEqual(range(1, 27)), EVENT_WAIT);
    // "*" started live-only after `single`'s first five events.
    const expected = [
      ...range(6, 27).map((seq) => `${single}:${seq}`),
      `${other}:1`,
      `${other}:2`,
      `${createdWhileAway}:1`,
    ].sort();
    await vi.waitFor(() => expect([...allSeqs].sort()).toEqual(expected), EVENT_WAIT);
    expect(new Set(allSeqs).size).toBe(allSeqs.length);
    expect(statuses.at(-1)).toBe("open");
    one.close();
    all.close();
  });

  it("resumes after the server closes the socket gracefully (gateway restart)", async () => {
    const { memory } = server;
    const threadId = newThread(memory);
    for (let index = 0; index < 3; index += 1) memory.append(runStarted(threadId));
    const seqs: number[] = [];
    const reasons: string[] = [];
    const handle = client.subscribe(
      { threadId, since: 0 },
      {
        onEvent: (event) => seqs.push(event.seq),
        onStatus: (status, detail) => {
          if (status === "reconnecting" && detail?.reason) reasons.push(detail.reason);
        },
      },
    );
    await vi.waitFor(() => expect(seqs).toEqual([1, 2, 3]), EVENT_WAIT);
    await server.gateway.close();
    memory.append(runStarted(threadId));
    const restarted = attachSocketServer(server.server, memory.deps(), { replayPageSize: 7 });
    try {
      await vi.waitFor(() => expect(reasons.length).toBeGreaterThan(0), EVENT_WAIT);
      memory.append(runStarted(threadId));
      await vi.waitFor(() => expect(seqs).toEqual([1, 2, 3, 4, 5]), EVENT_WAIT);
      expect(reasons[0]).toBe("server shutting down");
      handle.close();
    } finally {
      await restarted.close();
      server.gateway = attachSocketServer(server.server, memory.deps(), { replayPageSize: 7 });
    }
  });

  it("detaches from the live fan-out when subscriptions close", async () => {
    await vi.waitFor(() => expect(server.memory.listenerCount()).toBe(0), EVENT_WAIT);
  });
});
