import WebSocket from "ws";
import {
  ACK_EVERY,
  type FromClients,
  SUBSCRIPTION_ID,
  THREAD_ID,
  type ToClients,
  wallClock,
} from "./messages.ts";

// `count` subscriber sockets in one process. Each records the last seq it received; every tenth socket
// samples delivery latency from the publish time carried in the event. Frames are not JSON-parsed: the
// client's own CPU competes with the server's on this box, so it reads only the two numbers it needs.

const [url, countArg, mode] = process.argv.slice(2);
if (!url || !countArg) throw new Error("usage: client-process <url> <count> [gateway|raw]");
const count = Number(countArg);
const subscribe = mode === "gateway";
const lastSeq = new Array<number>(count).fill(0);
let frames = 0;
let latencies: number[] = [];
let waiting: number | null = null;
let cpuMark = process.cpuUsage();
const SEQ = Buffer.from('"seq":');
const SENT = Buffer.from("sent:");

function reply(message: FromClients): void {
  process.send?.(message);
}

function readNumber(data: Buffer, from: number): number {
  let end = from;
  while (end < data.length) {
    const byte = data[end] as number;
    if ((byte < 48 || byte > 57) && byte !== 46) break;
    end += 1;
  }
  return Number(data.toString("latin1", from, end));
}

function check(): void {
  if (waiting === null) return;
  for (const seq of lastSeq) if (seq < waiting) return;
  const cpu = process.cpuUsage(cpuMark);
  cpuMark = process.cpuUsage();
  reply({ type: "reached", seq: waiting, frames, cpuMs: (cpu.user + cpu.system) / 1000 });
  waiting = null;
}

function open(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url as string);
    socket.on("message", (data: Buffer) => {
      const at = data.indexOf(SEQ);
      if (at < 0) {
        if (data.includes("subscribed")) resolve();
        return;
      }
      const seq = readNumber(data, at + SEQ.length);
      frames += 1;
      lastSeq[index] = seq;
      if (index % 10 === 0) {
        const sent = data.indexOf(SENT);
        if (sent >= 0) latencies.push(wallClock() - readNumber(data, sent + SENT.length));
      }
      if (subscribe && seq % ACK_EVERY === 0) {
        socket.send(`{"type":"ack","id":"${SUBSCRIPTION_ID}","threadId":"${THREAD_ID}","seq":${seq}}`);
      }
      if (waiting !== null && seq >= waiting) check();
    });
    socket.once("error", reject);
    socket.once("open", () => {
      if (!subscribe) return resolve();
      socket.send(JSON.stringify({ type: "subscribe", id: SUBSCRIPTION_ID, threadId: THREAD_ID }));
    });
    socket.once("close", (code) => {
      if (waiting !== null) reply({ type: "failed", message: `socket ${index} closed with ${code}` });
    });
  });
}

process.on("message", (message: ToClients) => {
  switch (message.type) {
    case "expect":
      cpuMark = process.cpuUsage();
      waiting = message.seq;
      check();
      return;
    case "collect":
      reply({ type: "latencies", values: latencies });
      latencies = [];
      return;
    case "exit":
      process.exit(0);
  }
});

try {
  for (let start = 0; start < count; start += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, count - start) }, (_, offset) => open(start + offset)),
    );
  }
  reply({ type: "connected" });
} catch (error) {
  reply({ type: "failed", message: error instanceof Error ? error.message : String(error) });
}
