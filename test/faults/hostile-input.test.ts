import { spawnSync } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient, type LongrunClient, restEndpoints } from "@longrun/client";
import { ErrorBody, ServerFrame, statusOf } from "@longrun/protocol";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import {
  type DistributedCluster,
  REPO_ROOT,
  startDistributedCluster,
} from "../e2e/support/distributed-cluster.ts";
import { type Document, fuzzInputs, type RestInput } from "./support/fuzz-inputs.ts";
import { startHealthPoller } from "./support/health-poller.ts";

/**
 * Issue 10's hostile-input scenario: a real `longrun serve` process (agent steps run in a separate
 * `longrun worker`, so what is measured is the API server) and two tenants; a fast-check pass
 * over every REST operation of the document and every WebSocket frame type, bounded in count and time.
 * Asserted on every input: a JSON error with the status its code maps to (and one the operation
 * documents), never a 500; /healthz answering throughout (polled from another thread) without ever
 * waiting behind more than 250 ms of the server's event-loop CPU; nothing of the other tenant in any
 * answer; the server's RSS back near its baseline afterwards.
 *
 * The responsiveness bound is on CPU time, not on latency: what an input can do is hold the loop in one
 * long synchronous step, which costs the same CPU on a busy machine as on an idle one, while a poll's
 * latency also counts the time the server waited for a core (a run under load saw 727 ms with no input
 * to blame, against a budget of 100 ms plus a control server's worst).
 */

const REST_RUNS = 300;
const FRAME_RUNS = 150;
const TIME_LIMIT_MS = 60_000;
/**
 * The most event-loop CPU time (ms) one /healthz poll may wait behind. The freezes this test exists for
 * held the loop for seconds (a 200k-character unbroken text: 30 s and more); issue 33 asks for /healthz
 * within 1 s in this test. Measured: 20–52 ms with this file alone, 45–49 ms beside three CPU hogs, but
 * 153 ms and 181 ms in two full-suite runs on days the machine ran slow (its memory reclaimer busy),
 * the inputs sent around the poll being of the kinds every run sends (200k-character gateway messages,
 * 3 MiB bodies refused at the limit): 100 ms failed runs that had no freeze in them.
 */
const LOOP_CPU_BUDGET_MS = 250;
/** Short enough that counting a message's tokens stays far below a millisecond budget per request. */
const MAX_MESSAGE_CHARS = 200_000;
/** RSS may stay this much above the warmed-up baseline: heaps grow in steps and shrink lazily. */
const RSS_SLACK_BYTES = 96 * 1024 * 1024;

interface Tenant {
  name: string;
  token: string;
  marker: string;
  client: LongrunClient;
  /** Ids of the tenant's own objects: another tenant must never see one it did not send. */
  ids: Set<string>;
  threadIds: string[];
  agentIds: string[];
  runIds: string[];
  callIds: string[];
}

let dataDir: string;
let roots: string;
let cluster: DistributedCluster;
let baseUrl: string;
let document: Document;
let alice: Tenant;
let bob: Tenant;
const stats = { rest: 0, frames: 0, statuses: new Map<number, number>() };

async function rssOf(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
}

function tenant(name: string, token: string): Tenant {
  return {
    name,
    token,
    marker: `${name.toUpperCase()}-SECRET-${Math.random().toString(36).slice(2)}`,
    client: createClient({ baseUrl, token, WebSocket: WebSocket as never }),
    ids: new Set(),
    threadIds: [],
    agentIds: [],
    runIds: [],
    callIds: [],
  };
}

/** Gives a tenant a thread with its marker in title and task, and an agent parked on an approval. */
async function populate(owner: Tenant): Promise<void> {
  const first = await owner.client.threads.create({
    model: "sim",
    simSteps: 1,
    title: owner.marker,
    task: `Remember ${owner.marker}.`,
    workspace: join(roots, `${owner.name}-project`),
  });
  const parked = await owner.client.threads.create({ model: "sim", simSteps: 2, simScript: "approval" });
  const run = await owner.client.threads.sendMessage(parked.id, { content: `Check ${owner.marker}.` });
  await vi.waitFor(
    async () => {
      const requested = (await owner.client.threads.events(parked.id)).find(
        (event) => event.type === "approval.requested",
      );
      expect(requested?.type).toBe("approval.requested");
      if (requested?.type === "approval.requested") owner.callIds.push(requested.data.callId);
    },
    { timeout: 30_000, interval: 50 },
  );
  for (const detail of [
    await owner.client.threads.get(first.id),
    await owner.client.threads.get(parked.id),
  ]) {
    owner.threadIds.push(detail.id);
    owner.agentIds.push(...detail.agents.map((agent) => agent.id));
    owner.runIds.push(...detail.runs.map((item) => item.id));
  }
  owner.runIds.push(run.runId);
  for (const id of [...owner.threadIds, ...owner.agentIds, ...owner.runIds]) owner.ids.add(id);
}

/** Fails when `text` carries the other tenant's marker or an id of theirs the request did not send. */
function expectNothingOf(other: Tenant, text: string, sent: string, where: string): void {
  expect(text.includes(other.marker), `${where}: ${other.name}'s marker in ${text.slice(0, 300)}`).toBe(
    false,
  );
  for (const id of other.ids)
    if (!sent.includes(id)) expect(text.includes(id), `${where}: ${other.name}'s id ${id}`).toBe(false);
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "longrun-hostile-"));
  roots = await mkdtemp(join(tmpdir(), "longrun-hostile-roots-"));
  for (const folder of ["alice-project/sub", "bob-project", "..dotdot"])
    await mkdir(join(roots, folder), { recursive: true });
  await symlink("/etc", join(roots, "escape"));
  cluster = await startDistributedCluster({
    workers: 1,
    env: { LONGRUN_WORKSPACE_ROOTS: roots, LONGRUN_MAX_MESSAGE_CHARS: String(MAX_MESSAGE_CHARS) },
  });
  baseUrl = cluster.url;
  const minted = spawnSync(
    process.execPath,
    ["--import", "tsx", "packages/cli/src/main.ts", "token", "create", "--tenant", "bob"],
    { cwd: REPO_ROOT, env: cluster.env, encoding: "utf8" },
  );
  expect(minted.status, minted.stderr).toBe(0);
  alice = tenant("alice", cluster.token);
  bob = tenant("bob", minted.stdout.trim());
  document = (await (await fetch(`${baseUrl}/v1/openapi.json`)).json()) as Document;
  await populate(alice);
  await populate(bob);
}, 120_000);

afterAll(async () => {
  alice?.client.close();
  bob?.client.close();
  await cluster?.close();
  await rm(dataDir, { recursive: true, force: true });
  await rm(roots, { recursive: true, force: true });
});

/** What was sent when: a stalled /healthz is reported with the inputs around it. */
const sentLog: Array<{ at: number; what: string }> = [];
function logSent(what: string): void {
  sentLog.push({ at: Date.now(), what: what.slice(0, 160) });
}

async function sendRest(input: RestInput): Promise<void> {
  const actor = input.actor === "alice" ? alice : bob;
  const other = input.actor === "alice" ? bob : alice;
  const path = input.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(input.params[name] ?? ""),
  );
  const url = new URL(`${baseUrl}${path}`);
  for (const [key, value] of Object.entries(input.query)) url.searchParams.set(key, value);
  const headers: Record<string, string> = { authorization: `Bearer ${actor.token}` };
  logSent(
    `${input.actor} ${input.method.toUpperCase()} ${url.pathname}${url.search} ${input.body?.text.length ?? 0} chars`,
  );
  if (input.body) headers["content-type"] = input.body.contentType;
  const response = await fetch(url, {
    method: input.method.toUpperCase(),
    headers,
    ...(input.body ? { body: input.body.text } : {}),
  });
  const text = await response.text();
  stats.rest++;
  stats.statuses.set(response.status, (stats.statuses.get(response.status) ?? 0) + 1);
  const where = `${input.actor} ${input.method.toUpperCase()} ${url.pathname}${url.search} ${input.body?.text.slice(0, 120) ?? ""}`;
  // A 5xx names what the server logged last, so the cause is in the failure message.
  const logged =
    response.status >= 500 ? `\nserver log:\n${cluster.server.output.slice(-12).join("\n")}` : "";
  expect(response.status, `${where} → ${text.slice(0, 300)}${logged}`).toBeLessThan(500);
  expect(
    input.operation.responses[String(response.status)],
    `${where}: undocumented ${response.status}`,
  ).toBeDefined();
  const contentType = response.headers.get("content-type") ?? "";
  // The content types the document declares for this status (a streamed completion is an event stream).
  const declared = Object.keys(
    (input.operation.responses[String(response.status)] as { content?: Record<string, unknown> } | undefined)
      ?.content ?? {},
  );
  if (declared.length > 0)
    expect(
      declared.some((type) => contentType.startsWith(type)),
      `${where}: ${contentType} is not one of ${declared.join(", ")}`,
    ).toBe(true);
  if (response.status >= 400 && input.operation.tags?.includes("gateway") && response.status !== 401) {
    // The OpenAI-compatible gateway answers in the OpenAI error shape its clients read.
    const body = JSON.parse(text) as { error?: { message?: unknown; type?: unknown; code?: unknown } };
    expect(
      typeof body.error?.message === "string" && typeof body.error.type === "string",
      `${where}: ${text}`,
    ).toBe(true);
  } else if (response.status >= 400) {
    const error = ErrorBody.safeParse(JSON.parse(text));
    expect(error.success, `${where}: not {error: {code, message}}: ${text.slice(0, 300)}`).toBe(true);
    if (error.success) expect(statusOf(error.data.error.code), where).toBe(response.status);
  } else {
    const endpoint = (
      restEndpoints as Record<string, { response: { safeParse(value: unknown): { success: boolean } } }>
    )[input.operation.operationId];
    if (endpoint)
      expect(endpoint.response.safeParse(JSON.parse(text)).success, `${where}: answer off its schema`).toBe(
        true,
      );
  }
  const sent = [...Object.values(input.params), ...Object.values(input.query), input.body?.text ?? ""].join(
    "\n",
  );
  expectNothingOf(other, text, sent, where);
}

/** One WebSocket of a tenant, recording every frame; `roundTrip` proves the session still answers. */
async function openSocket(owner: Tenant) {
  const socket = new WebSocket(`${baseUrl.replace("http", "ws")}/v1/ws?token=${owner.token}`);
  const frames: string[] = [];
  const waiters = new Set<{ match(text: string): boolean; resolve(): void }>();
  socket.on("message", (data) => {
    const text = data.toString();
    frames.push(text);
    for (const waiter of [...waiters])
      if (waiter.match(text)) {
        waiters.delete(waiter);
        waiter.resolve();
      }
  });
  await once(socket, "open");
  let pings = 0;
  return {
    socket,
    frames,
    /** Sends a ping and waits for its pong: every frame sent before it has been handled. */
    async roundTrip(): Promise<void> {
      const at = ++pings;
      const answered = new Promise<void>((resolve) =>
        waiters.add({ match: (text) => text.includes(`"pong"`) && text.includes(`"at":${at}`), resolve }),
      );
      socket.send(JSON.stringify({ type: "ping", at }));
      await answered;
    },
  };
}

describe("hostile input: a fuzz pass over every REST operation and WebSocket frame type", () => {
  it("answers every input with a documented status and a JSON error, stays responsive, leaks nothing, returns its memory", async () => {
    const { restArbitrary, arbitraryFor } = fuzzInputs({
      document,
      roots,
      maxMessageChars: MAX_MESSAGE_CHARS,
      alice,
      bob,
    });
    const pid = cluster.server.pid;
    // Warm up every operation once so the baseline includes compiled code and caches.
    await fc.assert(fc.asyncProperty(restArbitrary(), sendRest), { numRuns: 40, seed: 1 });
    // A message past the inline-counting size starts the server's token-counting thread: a fixed cost,
    // paid once, that belongs in the baseline.
    const warmThread = await bob.client.threads.create({ title: "warm-up", model: "sim", simSteps: 1 });
    await bob.client.threads.sendMessage(warmThread.id, { content: "w".repeat(40_000) });
    const warmup = stats.rest;
    const baseline = await rssOf(pid);
    const poller = startHealthPoller(baseUrl, pid);
    const started = performance.now();

    await fc.assert(fc.asyncProperty(restArbitrary(), sendRest), {
      numRuns: REST_RUNS,
      interruptAfterTimeLimit: TIME_LIMIT_MS,
      markInterruptAsFailure: false,
    });

    // WebSocket: bob's socket gets frames of every client type, shaped by the schema or not at all.
    const bobSocket = await openSocket(bob);
    bobSocket.socket.send(JSON.stringify({ type: "subscribe", id: "everything", threadId: "*", since: 0 }));
    const clientFrame = document.components.schemas.ClientFrame ?? {};
    let sentOnSocket = "";
    const frameArbitrary = fc.oneof(
      { weight: 6, arbitrary: arbitraryFor(clientFrame).map((frame) => JSON.stringify(frame)) },
      {
        weight: 2,
        arbitrary: fc
          .record({
            type: fc.constantFrom("subscribe", "command", "unsubscribe"),
            id: fc.string({ minLength: 1, maxLength: 8 }),
            threadId: fc.constantFrom(...alice.threadIds, ...bob.threadIds, "*"),
            since: fc.integer({ min: -1, max: 50 }),
            command: fc.record({
              kind: fc.constantFrom("send_message", "approve", "compact", "cancel"),
              threadId: fc.constantFrom(...alice.threadIds, ...bob.threadIds),
              agentId: fc.constantFrom(...alice.agentIds, ...bob.agentIds),
              runId: fc.constantFrom(...alice.runIds, ...bob.runIds),
              callId: fc.constantFrom(...alice.callIds, ...bob.callIds),
              decision: fc.constantFrom("approve", "deny"),
              content: fc.string({ minLength: 1, maxLength: 40 }),
            }),
          })
          .map((frame) => JSON.stringify(frame)),
      },
      { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value) ?? "null") },
      { weight: 1, arbitrary: fc.string({ maxLength: 80 }) },
    );
    await fc.assert(
      fc.asyncProperty(frameArbitrary, async (text) => {
        const before = bobSocket.frames.length;
        sentOnSocket += `\n${text}`;
        logSent(`frame ${text}`);
        bobSocket.socket.send(text);
        await bobSocket.roundTrip();
        stats.frames++;
        for (const frame of bobSocket.frames.slice(before)) {
          expect(
            ServerFrame.safeParse(JSON.parse(frame)).success,
            `frame off the protocol: ${frame.slice(0, 200)}`,
          ).toBe(true);
          // A command's answer may arrive after a later ping's pong: judge it against everything sent.
          expectNothingOf(
            alice,
            frame,
            sentOnSocket,
            `frame ${frame.slice(0, 200)} after ${text.slice(0, 120)}`,
          );
        }
      }),
      { numRuns: FRAME_RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false },
    );
    // A frame over the payload limit closes that socket; the server goes on.
    const big = await openSocket(bob);
    const closed = once(big.socket, "close");
    big.socket.send("x".repeat(5 * 1024 * 1024));
    // 1009 (message too big) when the close frame gets through; 1006 when the server drops the socket
    // while the client is still writing the 5 MiB.
    expect([1006, 1009]).toContain((await closed)[0]);
    stats.frames++;
    bobSocket.socket.close();

    // The largest message the API takes, without a single space (token counting was quadratic on such
    // text and froze the server for seconds), and one character more (413). /healthz is being polled.
    const idleThread = await bob.client.threads.create({ title: "large message", model: "sim", simSteps: 1 });
    const largest = "x9".repeat(MAX_MESSAGE_CHARS / 2);
    const post = (content: string) =>
      fetch(`${baseUrl}/v1/threads/${idleThread.id}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${bob.token}`, "content-type": "application/json" },
        body: JSON.stringify({ content }),
      });
    logSent(`bob POST a ${MAX_MESSAGE_CHARS}-character message without whitespace`);
    expect((await post(largest)).status).toBe(202);
    logSent("bob POST a message one character over the cap");
    expect((await post(`${largest}x`)).status).toBe(413);
    stats.rest += 2;

    const health = await poller.stop();
    const elapsed = Math.round(performance.now() - started);
    expect(health.failures).toBe(0);
    const worstLoopCpu = health.worstLoopCpu ?? Number.POSITIVE_INFINITY;
    const worstAt = health.worstLoopCpuAt ?? 0;
    const around = sentLog
      .filter((entry) => entry.at > worstAt - 2_000 && entry.at < worstAt + 2_000)
      .map((entry) => `  ${entry.at - Math.round(worstAt)} ms: ${entry.what}`);
    expect(
      worstLoopCpu,
      `a /healthz poll waited behind ${worstLoopCpu.toFixed(0)} ms of the server's event-loop CPU (budget ${LOOP_CPU_BUDGET_MS} ms); inputs sent around it:\n${around.join("\n")}`,
    ).toBeLessThan(LOOP_CPU_BUDGET_MS);

    // Every run the pass started ends (cancelled), then the heap settles back near the baseline.
    for (const owner of [alice, bob])
      for (const thread of await owner.client.threads.list({ limit: 1000 }))
        for (const run of (await owner.client.threads.get(thread.id)).runs)
          if (!run.finishedAt) await owner.client.runs.cancel(run.id);
    let rss = 0;
    await vi.waitFor(
      async () => {
        rss = await rssOf(pid);
        expect(rss).toBeLessThan(baseline + RSS_SLACK_BYTES);
      },
      { timeout: 30_000, interval: 500 },
    );
    console.log(
      `[hostile-input] ${stats.rest - warmup} REST requests (after ${warmup} warm-up) + ${stats.frames} WebSocket frames in ${elapsed} ms; statuses ${JSON.stringify(Object.fromEntries([...stats.statuses].sort(([a], [b]) => a - b)))}; worst /healthz ${health.worst.toFixed(1)} ms over ${health.count} polls, worst event-loop CPU behind one poll ${worstLoopCpu.toFixed(1)} ms (budget ${LOOP_CPU_BUDGET_MS} ms); server RSS ${(baseline / 2 ** 20).toFixed(0)} → ${(rss / 2 ** 20).toFixed(0)} MiB`,
    );
  }, 240_000);
});
