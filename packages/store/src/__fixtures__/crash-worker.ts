// Spawned by crash.test.ts: appends until killed, printing each append once the store acknowledged it.
import { openStore } from "../open-store.ts";

const [url, agentId] = process.argv.slice(2);
if (!url || !agentId) {
  console.error("usage: crash-worker <url> <agentId>");
  process.exit(2);
}
const store = await openStore({ url });
for (let index = 0; ; index += 1) {
  const message = await store.messages.append(agentId, { role: "user", content: `fact ${index}` });
  process.stdout.write(`acked ${message.id} ${message.seq}\n`);
}
