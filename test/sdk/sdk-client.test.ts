import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
// Test-only: the real composition of embedded mode.
import { type EmbeddedInstance, loadConfig, startEmbedded } from "@longrun/cli";
import {
  createClient,
  type LongrunClient,
  NotFoundError,
  RateLimitError,
  TimeoutError,
} from "@longrun/client";
import type { LongrunEvent } from "@longrun/protocol";
import { type SimModelServer, startSimModel } from "@longrun/sim-model";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// The SDK against a real embedded server (libSQL file, in-process queue, the sim model over HTTP):
// errors, retries after a real 429, runs.get/wait/stream/cancel, and a `for await` stream that lives
// through a server restart.

const TOKEN = "sdk-client-test-token-0123456789";
const ENDINGS = ["run.completed", "run.failed", "run.cancelled"];
let dataDir: string;
let sim: SimModelServer;
let server: EmbeddedInstance;
let client: LongrunClient;

function start(port: number): Promise<EmbeddedInstance> {
  return startEmbedded(
    loadConfig({
      PORT: String(port),
      LONGRUN_DATA_DIR: dataDir,
      LONGRUN_TOKEN: TOKEN,
      // Outside the server, so the model outlives its restarts.
      LONGRUN_SIM_URL: sim.url,
    }),
  );
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-sdk-client-"));
  sim = await startSimModel({ port: 0 });
  server = await start(0);
  client = createClient({
    baseUrl: server.url,
    token: TOKEN,
    reconnect: { initialDelayMs: 50, maxDelayMs: 500 },
  });
});

afterAll(async () => {
  client?.close();
  await server?.close();
  await sim?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/**
 * A real HTTP proxy in front of the server that answers the first request for `path` with a 429 and
 * `Retry-After: 1`, and forwards everything else; it records when each request for `path` arrived.
 */
async function startRateLimitingProxy(upstream: string, path: string) {
  const arrivals: number[] = [];
  const proxy: Server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", upstream);
    if (url.pathname === path) {
      arrivals.push(performance.now());
      if (arrivals.length === 1) {
        response.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
        response.end(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }));
        return;
      }
    }
    void fetch(url, {
      method: request.method ?? "GET",
      headers: { authorization: request.headers.authorization ?? "" },
    }).then(async (answer) => {
      response.writeHead(answer.status, {
        "content-type": answer.headers.get("content-type") ?? "application/json",
        "x-request-id": answer.headers.get("x-request-id") ?? "",
      });
      response.end(await answer.text());
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    arrivals,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}

describe("the SDK against a real server", () => {
  it("throws error classes per status, carrying code and the server's request id", async () => {
    const error = await client.threads.get("no-such-thread").catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(NotFoundError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ status: 404, code: "not_found" });
    expect((error as NotFoundError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("runs.get, runs.wait and runs.stream follow one run to its end", async () => {
    const thread = await client.threads.create({ title: "runs", model: "sim", simSteps: 3 });
    const { runId } = await client.threads.sendMessage(thread.id, { content: "Look around and report." });
    expect((await client.runs.get(runId)).threadId).toBe(thread.id);
    const run = await client.runs.wait(runId);
    expect(run).toMatchObject({ id: runId, status: "completed" });

    // The run has ended: its stream replays its events and stops after the last.
    const seen: LongrunEvent[] = [];
    for await (const event of await client.runs.stream(runId))
      if (event.type !== "message.delta") seen.push(event);
    expect(seen.every((event) => event.runId === runId)).toBe(true);
    expect(seen.at(-1)?.type).toBe("run.completed");
    const logged = (await client.threads.events(thread.id, { since: 0, limit: 10_000 })).filter(
      (event) => event.runId === runId,
    );
    expect(seen.map((event) => event.seq)).toEqual(logged.map((event) => event.seq));
  });

  it("runs.cancel ends a running run and runs.wait returns it cancelled", async () => {
    const thread = await client.threads.create({ title: "cancel", model: "sim", simSteps: 200 });
    const { runId } = await client.threads.sendMessage(thread.id, { content: "Keep exploring." });
    for await (const event of client.threads.stream(thread.id, { since: 0, types: ["tool.completed"] })) {
      if (event.runId === runId) break;
    }
    await client.runs.cancel(runId);
    await expect(client.runs.wait(runId)).resolves.toMatchObject({ status: "cancelled" });
  });

  it("runs.wait with a timeout gives up with a TimeoutError", async () => {
    const thread = await client.threads.create({ title: "timeout", model: "sim", simSteps: 200 });
    const { runId } = await client.threads.sendMessage(thread.id, { content: "Keep exploring." });
    await expect(client.runs.wait(runId, { timeout: 200 })).rejects.toBeInstanceOf(TimeoutError);
    await client.runs.cancel(runId);
  });

  it("retries a 429 after its Retry-After and returns the answer", async () => {
    const thread = await client.threads.create({ title: "429", model: "sim" });
    const proxy = await startRateLimitingProxy(server.url, `/v1/threads/${thread.id}`);
    try {
      const throughProxy = createClient({ baseUrl: proxy.url, token: TOKEN });
      await expect(throughProxy.threads.get(thread.id)).resolves.toMatchObject({ id: thread.id });
      expect(proxy.arrivals).toHaveLength(2);
      // A lower bound only (a timer never fires early): the retry waited for the server's Retry-After.
      expect((proxy.arrivals[1] ?? 0) - (proxy.arrivals[0] ?? 0)).toBeGreaterThanOrEqual(990);

      // Without retries, the RateLimitError says when to come back.
      proxy.arrivals.length = 0;
      const error = await createClient({ baseUrl: proxy.url, token: TOKEN, maxRetries: 0 })
        .threads.get(thread.id)
        .catch((caught: unknown) => caught);
      expect(RateLimitError.isInstance(error)).toBe(true);
      expect(error).toMatchObject({ status: 429, code: "rate_limited", retryAfter: 1 });
    } finally {
      await proxy.close();
    }
  });

  it("a `for await` stream lives through a server restart: nothing missing, nothing doubled", async () => {
    const thread = await client.threads.create({
      title: "restart",
      model: "sim",
      maxInputTokens: 8_000,
      simSteps: 24,
    });
    const { runId } = await client.threads.sendMessage(thread.id, { content: "Explore and report." });
    const port = Number(new URL(server.url).port);
    const statuses: string[] = [];
    const received: LongrunEvent[] = [];
    let restarted = false;
    const stream = client.threads.stream(thread.id, {
      since: 0,
      onStatus: (status) => statuses.push(status),
    });
    for await (const event of stream) {
      // Token deltas are live-only (never persisted, never replayed): the log is the reference for the rest.
      if (event.type !== "message.delta") received.push(event);
      if (!restarted && event.type === "tool.completed") {
        // Stop the server under the open stream, and start it again on the same port and data dir.
        restarted = true;
        await server.close();
        server = await start(port);
      }
      if (event.runId === runId && ENDINGS.includes(event.type)) break;
    }
    expect(restarted).toBe(true);
    expect(statuses).toContain("reconnecting");
    expect(received.at(-1)?.type).toBe("run.completed");
    const logged = await client.threads.events(thread.id, { since: 0, limit: 10_000 });
    const end = logged.findIndex((event) => event.runId === runId && ENDINGS.includes(event.type));
    const seqs = received.map((event) => event.seq);
    expect(seqs).toEqual(logged.slice(0, end + 1).map((event) => event.seq));
    expect(new Set(seqs).size).toBe(seqs.length);
  }, 120_000);
});
