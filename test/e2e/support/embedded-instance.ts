import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { createClient, type LongrunClient } from "@longrun/client";
import type { LongrunEvent, ThreadDetail } from "@longrun/protocol";
import { type SimModelOptions, type SimModelServer, startSimModel } from "@longrun/sim-model";
import OpenAI from "openai";
import WebSocket from "ws";

/** One embedded longrun (API, gateway, in-process workers, sim model) in a temporary data dir, port 0. */
export interface EmbeddedTestInstance {
  instance: EmbeddedInstance;
  dataDir: string;
  /** A client of the default tenant (the token embedded mode generated). */
  client: LongrunClient;
  /** Mints a token for another tenant (`longrun token create --tenant T`). */
  tokenFor(tenantId: string): Promise<string>;
  /** A new SDK client for a token (ws injected for Node 20). */
  clientFor(token: string): LongrunClient;
  close(): Promise<void>;
}

/** Starts embedded mode as `npm start` would, with PORT=0 and a temporary LONGRUN_DATA_DIR. */
export async function startEmbeddedForTest(env: Record<string, string> = {}): Promise<EmbeddedTestInstance> {
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-embedded-"));
  const config = loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir, ...env });
  const instance = await startEmbedded(config);
  const clients: LongrunClient[] = [];
  const clientFor = (token: string) => {
    const client = createClient({
      baseUrl: instance.url,
      token,
      WebSocket: WebSocket as never,
      reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    });
    clients.push(client);
    return client;
  };
  return {
    instance,
    dataDir,
    client: clientFor(instance.token),
    async tokenFor(tenantId) {
      const store = await openLog(config);
      try {
        return (await store.apiKeys.create(tenantId)).token;
      } finally {
        await store.close();
      }
    },
    clientFor,
    async close() {
      for (const client of clients) client.close();
      await instance.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Embedded longrun whose upstream is a strict sim model of its own, and an OpenAI client on its gateway. */
export interface GatewayOverSim {
  sim: SimModelServer;
  longrun: EmbeddedTestInstance;
  /** Points at longrun's `/v1` with the default tenant's token; no retries. */
  openai: OpenAI;
  close(): Promise<void>;
}

/**
 * Starts the sim model, then embedded longrun with the sim as its upstream (what a gateway test needs);
 * `env` adds configuration (LONGRUN_UPSTREAM_API: the sim serves all three formats on one origin).
 */
export async function startGatewayOverSim(
  sim: SimModelOptions = { logLimit: 2_000 },
  env: Record<string, string> = {},
): Promise<GatewayOverSim> {
  const upstream = await startSimModel(sim);
  const longrun = await startEmbeddedForTest({
    OPENAI_BASE_URL: upstream.baseURL,
    OPENAI_API_KEY: "sim",
    ...env,
  });
  return {
    sim: upstream,
    longrun,
    openai: new OpenAI({
      baseURL: `${longrun.instance.url}/v1`,
      apiKey: longrun.instance.token,
      maxRetries: 0,
    }),
    async close() {
      await longrun.close();
      await upstream.close();
    },
  };
}

const FINISHED = new Set(["completed", "failed", "cancelled"]);

/** Waits (by polling the REST API, not by sleeping a fixed time) until a run has finished. */
export async function waitForRun(
  client: LongrunClient,
  threadId: string,
  runId: string,
  timeoutMs = 120_000,
): Promise<ThreadDetail> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const detail = await client.threads.get(threadId);
    const run = detail.runs.find((candidate) => candidate.id === runId);
    if (run && FINISHED.has(run.status)) return detail;
    if (Date.now() > deadline) throw new Error(`run ${runId} still ${run?.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every persisted event of a thread, paging through the REST log. */
export async function allEvents(client: LongrunClient, threadId: string): Promise<LongrunEvent[]> {
  const events: LongrunEvent[] = [];
  let since = -1;
  for (;;) {
    const page = await client.threads.events(threadId, { since, limit: 5_000 });
    events.push(...page);
    const last = page.at(-1);
    if (!last || page.length < 5_000) return events;
    since = last.seq;
  }
}
