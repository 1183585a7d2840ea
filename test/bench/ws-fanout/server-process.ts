import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { setImmediate as yieldToIo } from "node:timers/promises";
import { attachSocketServer, MemorySocketDeps } from "@longrun/server";
import { WebSocket, WebSocketServer } from "ws";
import { type FromServer, SUBSCRIPTION_ID, THREAD_ID, TOKEN, type ToServer, wallClock } from "./messages.ts";

// One fan-out server in its own process: `raw` broadcasts with plain `ws`, `gateway` runs the longrun
// gateway (session logic, flow control, encoding) over in-memory deps. Both publish the same events.

const contender = process.argv[2];
if (contender !== "raw" && contender !== "gateway") throw new Error(`unknown contender ${contender}`);
const padding = "x".repeat(160);
const TEXT = { binary: false };

function reply(message: FromServer): void {
  process.send?.(message);
}

/**
 * The event body; `output` carries the time the event became available (the start of its I/O turn) so
 * clients measure delivery latency from there, queueing within the turn included.
 */
function eventBody(seq: number, availableAt: number) {
  return {
    threadId: THREAD_ID,
    seq,
    agentId: "bench-agent",
    runId: "bench-run",
    type: "tool.completed" as const,
    data: {
      callId: `call_${seq}`,
      name: "read_file",
      status: "ok" as const,
      output: `sent:${availableAt};${padding}`,
    },
    at: Date.now(),
  };
}

const server = createServer((_request, response) => response.writeHead(404).end());
let publish: (seq: number, availableAt: number) => void;
let url: string;
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const base = `ws://127.0.0.1:${(server.address() as AddressInfo).port}`;

if (contender === "raw") {
  const wss = new WebSocketServer({ server });
  url = `${base}/raw`;
  publish = (seq, availableAt) => {
    // The ws README's broadcast: one Buffer per message, written to every open client.
    const frame = Buffer.from(
      JSON.stringify({ type: "event", subscription: SUBSCRIPTION_ID, event: eventBody(seq, availableAt) }),
    );
    for (const client of wss.clients) if (client.readyState === WebSocket.OPEN) client.send(frame, TEXT);
  };
} else {
  const memory = new MemorySocketDeps();
  memory.addToken(TOKEN, "bench");
  memory.createThread(THREAD_ID, "bench");
  attachSocketServer(server, memory.deps(), {});
  url = `${base}/v1/ws?token=${TOKEN}`;
  publish = (_seq, availableAt) => {
    const { seq: _unused, at: _at, ...event } = eventBody(0, availableAt);
    memory.append(event);
  };
}

let cpuAtStart = process.cpuUsage();

async function publishEvents(firstSeq: number, count: number, rate: number, perTurn: number): Promise<void> {
  cpuAtStart = process.cpuUsage();
  const started = performance.now();
  let availableAt = wallClock();
  for (let index = 0; index < count; index += 1) {
    if (rate > 0) {
      const due = started + (index * 1000) / rate;
      while (performance.now() < due) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    if (index % perTurn === 0) availableAt = wallClock();
    publish(firstSeq + index, availableAt);
    // Let acknowledgements and socket writes run between turns, as a server between two reads would.
    if ((index + 1) % perTurn === 0) await yieldToIo();
  }
  reply({ type: "published" });
}

process.on("message", (message: ToServer) => {
  switch (message.type) {
    case "publish":
      void publishEvents(message.firstSeq, message.count, message.rate, message.perTurn);
      return;
    case "cpu": {
      const used = process.cpuUsage(cpuAtStart);
      reply({ type: "cpu", userMs: used.user / 1000, systemMs: used.system / 1000 });
      return;
    }
    case "exit":
      server.closeAllConnections();
      process.exit(0);
  }
});
reply({ type: "listening", url });
