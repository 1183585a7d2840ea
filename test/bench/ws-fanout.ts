import { mkdir, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { setImmediate as yieldToIo } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { attachGateway, MemoryGatewayDeps } from "@longrun/server";
import { WebSocket, WebSocketServer } from "ws";
import { quantile, renderTable } from "./stats.ts";

// WebSocket fan-out: the gateway (attachGateway over in-memory deps: session logic, flow control, frame
// encoding) against a raw `ws` broadcast of frames of the same shape and size, in one process with the
// same client sockets. NOTES.md: this box delivers ~100-140k frames/s in total, so the ratio is the figure.

const RESULTS = fileURLToPath(new URL("./results/ws-fanout.json", import.meta.url));
const THREAD = "bench-thread";
const TOKEN = "bench-token-0123456789";
const SUBSCRIPTION = "s1";
/** The SDK acknowledges at least every 100 events; the bench clients do the same. */
const ACK_EVERY = 100;

export interface FanoutOptions {
  subscribers: number;
  /** Events of the saturated burst (published back to back, yielding to I/O between events). */
  burstEvents: number;
  /** Events published at `pacedRate` per second, for latency below saturation. */
  pacedEvents: number;
  pacedRate: number;
}

export interface FanoutFigures {
  contender: "raw ws" | "gateway";
  mode: "burst" | "paced";
  subscribers: number;
  events: number;
  frames: number;
  seconds: number;
  eventsPerSecond: number;
  framesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

/** One contender: publishes an event to every subscriber; clients report deliveries by seq. */
interface Contender {
  name: FanoutFigures["contender"];
  url: string;
  /** The frame a client sends once connected, if any (the gateway needs a subscribe). */
  hello?: string;
  publish(seq: number): void;
  close(): Promise<void>;
}

const padding = "x".repeat(160);

function eventBody(seq: number) {
  return {
    threadId: THREAD,
    seq,
    agentId: "bench-agent",
    runId: "bench-run",
    type: "tool.completed" as const,
    data: { callId: `call_${seq}`, name: "read_file", status: "ok" as const, output: padding },
    at: Date.now(),
  };
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

async function rawContender(): Promise<Contender> {
  const server = createServer();
  const wss = new WebSocketServer({ server });
  const url = `${await listen(server)}/raw`;
  return {
    name: "raw ws",
    url,
    publish(seq) {
      // Same frame shape as the gateway's, stringified once and written to every socket.
      const frame = JSON.stringify({ type: "event", subscription: SUBSCRIPTION, event: eventBody(seq) });
      for (const client of wss.clients) client.send(frame);
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      await closeServer(server);
    },
  };
}

async function gatewayContender(): Promise<Contender> {
  const memory = new MemoryGatewayDeps();
  memory.addToken(TOKEN, "bench");
  memory.createThread(THREAD, "bench");
  const server = createServer((_request, response) => response.writeHead(404).end());
  const gateway = attachGateway(server, memory.deps(), {});
  const base = await listen(server);
  return {
    name: "gateway",
    url: `${base}/v1/ws?token=${TOKEN}`,
    hello: JSON.stringify({ type: "subscribe", id: SUBSCRIPTION, threadId: THREAD }),
    publish(seq) {
      const { seq: _seq, at: _at, ...event } = eventBody(seq);
      memory.append(event);
    },
    async close() {
      await gateway.close();
      await closeServer(server);
    },
  };
}

interface Clients {
  /** Resolves when every client has received `seq`. */
  received(seq: number): Promise<void>;
  latencies: number[];
  close(): void;
}

/** Opens `count` client sockets; each records the delivery latency of every event frame. */
async function openClients(
  contender: Contender,
  count: number,
  sentAt: Map<number, number>,
): Promise<Clients> {
  const latencies: number[] = [];
  const sockets: WebSocket[] = [];
  const lastSeq: number[] = [];
  let waiting: { seq: number; resolve(): void } | null = null;
  let atLeast = 0;
  const check = () => {
    if (!waiting) return;
    atLeast = Math.min(...lastSeq);
    if (atLeast >= waiting.seq) {
      const done = waiting;
      waiting = null;
      done.resolve();
    }
  };
  const open = (index: number) =>
    new Promise<void>((resolve, reject) => {
      const socket = new WebSocket(contender.url);
      lastSeq[index] = 0;
      socket.on("message", (data) => {
        const frame = JSON.parse(data.toString()) as { type: string; event?: { seq: number } };
        if (frame.type === "subscribed") return resolve();
        if (frame.type !== "event" || !frame.event) return;
        const seq = frame.event.seq;
        const start = sentAt.get(seq);
        if (start !== undefined) latencies.push(performance.now() - start);
        lastSeq[index] = seq;
        if (seq % ACK_EVERY === 0)
          socket.send(JSON.stringify({ type: "ack", id: SUBSCRIPTION, threadId: THREAD, seq }));
        if (waiting && seq >= waiting.seq) check();
      });
      socket.once("error", reject);
      socket.once("open", () => {
        if (contender.hello) socket.send(contender.hello);
        else resolve();
      });
      sockets.push(socket);
    });
  for (let start = 0; start < count; start += 100) {
    await Promise.all(
      Array.from({ length: Math.min(100, count - start) }, (_, offset) => open(start + offset)),
    );
  }
  return {
    latencies,
    received: (seq) =>
      new Promise<void>((resolve) => {
        waiting = { seq, resolve };
        check();
      }),
    close() {
      for (const socket of sockets) socket.terminate();
    },
  };
}

async function measure(
  contender: Contender,
  clients: Clients,
  sentAt: Map<number, number>,
  mode: FanoutFigures["mode"],
  firstSeq: number,
  events: number,
  rate: number,
  subscribers: number,
): Promise<FanoutFigures> {
  clients.latencies.length = 0;
  const started = performance.now();
  for (let index = 0; index < events; index++) {
    const seq = firstSeq + index;
    if (mode === "paced") {
      const due = started + (index * 1000) / rate;
      while (performance.now() < due) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    sentAt.set(seq, performance.now());
    contender.publish(seq);
    await yieldToIo();
  }
  await clients.received(firstSeq + events - 1);
  const seconds = (performance.now() - started) / 1000;
  const frames = clients.latencies.length;
  return {
    contender: contender.name,
    mode,
    subscribers,
    events,
    frames,
    seconds,
    eventsPerSecond: events / seconds,
    framesPerSecond: frames / seconds,
    p50Ms: quantile(clients.latencies, 0.5),
    p99Ms: quantile(clients.latencies, 0.99),
    maxMs: quantile(clients.latencies, 1),
  };
}

async function runContender(contender: Contender, options: FanoutOptions): Promise<FanoutFigures[]> {
  const sentAt = new Map<number, number>();
  const clients = await openClients(contender, options.subscribers, sentAt);
  try {
    // A short warm-up so both contenders start with JIT-compiled paths.
    await measure(contender, clients, sentAt, "burst", 1, 20, 0, options.subscribers);
    const burst = await measure(
      contender,
      clients,
      sentAt,
      "burst",
      21,
      options.burstEvents,
      0,
      options.subscribers,
    );
    const paced = await measure(
      contender,
      clients,
      sentAt,
      "paced",
      21 + options.burstEvents,
      options.pacedEvents,
      options.pacedRate,
      options.subscribers,
    );
    return [burst, paced];
  } finally {
    clients.close();
    await contender.close();
  }
}

/** Runs the fan-out bench: raw ws and the gateway, each in a burst and at a paced rate. */
export async function runWsFanoutBench(
  options: FanoutOptions = { subscribers: 1_000, burstEvents: 200, pacedEvents: 60, pacedRate: 20 },
): Promise<FanoutFigures[]> {
  const figures = [
    ...(await runContender(await rawContender(), options)),
    ...(await runContender(await gatewayContender(), options)),
  ];
  const ms = (value: number) => value.toFixed(2);
  console.log(
    renderTable(
      [
        "contender",
        "mode",
        "subs",
        "events",
        "frames",
        "s",
        "events/s",
        "frames/s",
        "p50 ms",
        "p99 ms",
        "max ms",
      ],
      figures.map((row) => [
        row.contender,
        row.mode === "paced" ? `paced ${options.pacedRate}/s` : "burst",
        String(row.subscribers),
        String(row.events),
        String(row.frames),
        row.seconds.toFixed(2),
        row.eventsPerSecond.toFixed(1),
        row.framesPerSecond.toFixed(0),
        ms(row.p50Ms),
        ms(row.p99Ms),
        ms(row.maxMs),
      ]),
    ),
  );
  const raw = figures.find((row) => row.contender === "raw ws" && row.mode === "burst");
  const gateway = figures.find((row) => row.contender === "gateway" && row.mode === "burst");
  const ratio = raw && gateway ? gateway.eventsPerSecond / raw.eventsPerSecond : Number.NaN;
  console.log(`gateway / raw ws throughput (burst): ${(ratio * 100).toFixed(1)} %`);
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(
    RESULTS,
    `${JSON.stringify({ measuredAt: new Date().toISOString(), options, figures, throughputRatio: ratio }, null, 2)}\n`,
  );
  return figures;
}
