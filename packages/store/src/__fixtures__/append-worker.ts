// Spawned by concurrency.test.ts and bench/append.ts: prints "ready", waits for "go" on stdin so that
// all workers start together, opens the store (possibly a brand-new file that the other workers are
// creating and migrating at the same moment), prints "opened", waits for "append" so that all workers
// append together (however long each took to open), appends, and prints a JSON report.
import { createInterface } from "node:readline";
import { openStore } from "../open-store.ts";

const [url, agentId, threadId, countText, label, mode = "both"] = process.argv.slice(2);
if (!url || !agentId || !threadId || !countText || !label) {
  console.error("usage: append-worker <url> <agentId> <threadId> <count> <label> [both|messages|events]");
  process.exit(2);
}
const count = Number(countText);

const lines = createInterface({ input: process.stdin });
// The iterator queues lines that arrive before they are asked for.
const input = lines[Symbol.asyncIterator]();
/** Says `word` on stdout, then waits for the parent's `reply` on stdin. */
async function barrier(word: string, reply: string): Promise<void> {
  process.stdout.write(`${word}\n`);
  for (let line = await input.next(); !line.done; line = await input.next()) {
    if (line.value.trim() === reply) return;
  }
  throw new Error(`stdin closed before "${reply}"`);
}
await barrier("ready", "go");
const store = await openStore({ url });
await barrier("opened", "append");
lines.close();

const clock = () => performance.timeOrigin + performance.now();
const startedAt = clock();
const latencies: number[] = [];
for (let index = 0; index < count; index += 1) {
  if (mode !== "events") {
    const before = performance.now();
    await store.messages.append(agentId, {
      role: "user",
      content: `${label} message ${index} ${"x".repeat(900)}`,
    });
    latencies.push(performance.now() - before);
  }
  if (mode !== "messages") {
    const before = performance.now();
    await store.events.append({ threadId, type: "message.delta", data: { text: `${label} ${index}` } });
    latencies.push(performance.now() - before);
  }
}
const endedAt = clock();
await store.close();
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
process.stdout.write(
  `${JSON.stringify({ label, count, appends: latencies.length, startedAt, endedAt, p50: at(0.5), p99: at(0.99), max: at(1) })}\n`,
);
