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
const heard = new Set<string>();
const waiters = new Map<string, () => void>();
lines.on("line", (line) => {
  const word = line.trim();
  heard.add(word);
  waiters.get(word)?.();
});
/** Resolves once the parent has sent `word` (before or after this call). */
const signal = (word: string) =>
  new Promise<void>((resolve) => {
    if (heard.has(word)) resolve();
    else waiters.set(word, resolve);
  });
process.stdout.write("ready\n");
await signal("go");

const store = await openStore({ url });
process.stdout.write("opened\n");
await signal("append");
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
