import { createClient, type LongrunClient, type ResyncInfo } from "@longrun/client";
import type { NewEvent } from "@longrun/protocol";
import { EVENT_WAIT } from "@longrun/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { testClient } from "./sdk-client.test-helper.ts";
import { type GatewayTestServer, startGatewayTestServer } from "./socket-test-server.ts";

const runStarted = (threadId: string): NewEvent => ({
  threadId,
  type: "run.started",
  data: { kind: "message" },
});
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, index) => from + index);

describe("a subscription to every thread replays a bounded number of events", () => {
  let server: GatewayTestServer;
  let client: LongrunClient;

  beforeAll(async () => {
    server = await startGatewayTestServer({ maxWildcardReplay: 12, replayPageSize: 5 });
    server.memory.addToken("token-a", "tenant-a");
    client = testClient(server, "token-a");
  });

  afterAll(async () => {
    client.close();
    await server.close();
  });

  it("cuts each thread to its newest share, says so with a bounded resync, streams on and resumes", async () => {
    const { memory } = server;
    const threads = ["wild-1", "wild-2", "wild-3"];
    for (const threadId of threads) {
      memory.createThread(threadId, "tenant-a");
      for (let index = 0; index < 10; index += 1) memory.append(runStarted(threadId));
    }
    // Another tenant's thread is neither replayed nor counted.
    memory.createThread("wild-other", "tenant-b");
    for (let index = 0; index < 50; index += 1) memory.append(runStarted("wild-other"));

    const seen = new Map<string, number[]>(threads.map((threadId) => [threadId, []]));
    const resyncs: ResyncInfo[] = [];
    const handle = client.subscribe(
      { threadId: "*", since: 0 },
      {
        onEvent: (event) => seen.get(event.threadId)?.push(event.seq),
        onResync: (info) => resyncs.push(info),
      },
    );
    await handle.ready;
    // 30 events owed, 12 given: 4 per thread, the newest.
    await vi.waitFor(() => {
      for (const threadId of threads) expect(seen.get(threadId)).toEqual(range(7, 11));
    }, EVENT_WAIT);
    expect(resyncs.sort((a, b) => a.threadId.localeCompare(b.threadId))).toEqual(
      threads.map((threadId) => ({
        threadId,
        reason: "bounded",
        requestedSince: 0,
        oldestSeq: 1,
        resumeAfter: 6,
      })),
    );
    expect(seen.has("wild-other")).toBe(false);

    // Live events go on after the cut replay, and a reconnect resumes from where the client is.
    memory.append(runStarted("wild-1"));
    await vi.waitFor(() => expect(seen.get("wild-1")).toEqual(range(7, 12)), EVENT_WAIT);
    server.dropConnections();
    memory.append(runStarted("wild-2"));
    await vi.waitFor(() => expect(seen.get("wild-2")).toEqual(range(7, 12)), EVENT_WAIT);
    expect(handle.lastSeq("wild-1")).toBe(11);
    // The resumed subscription owed one event, well under the bound: no further resync.
    expect(resyncs).toHaveLength(3);
    handle.close();
  });

  it("replays in full when what is owed fits the bound", async () => {
    const { memory } = server;
    memory.addToken("token-c", "tenant-c");
    const other = createClient({ baseUrl: server.baseUrl, token: "token-c", WebSocket });
    for (const threadId of ["small-1", "small-2"]) {
      memory.createThread(threadId, "tenant-c");
      for (let index = 0; index < 6; index += 1) memory.append(runStarted(threadId));
    }
    const seqs: string[] = [];
    const resyncs: ResyncInfo[] = [];
    const handle = other.subscribe(
      { threadId: "*", since: 0 },
      {
        onEvent: (event) => seqs.push(`${event.threadId}:${event.seq}`),
        onResync: (info) => resyncs.push(info),
      },
    );
    // 12 owed, 12 allowed: every event, no resync.
    await vi.waitFor(() => expect(seqs).toHaveLength(12), EVENT_WAIT);
    expect(seqs.sort()).toEqual(
      ["small-1", "small-2"].flatMap((threadId) => range(1, 7).map((seq) => `${threadId}:${seq}`)).sort(),
    );
    expect(resyncs).toEqual([]);
    handle.close();
    other.close();
  });
});
