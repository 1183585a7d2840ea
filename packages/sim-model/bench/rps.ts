import { parseArgs } from "node:util";
import OpenAI from "openai";
import { startSimModel } from "../src/index.ts";

// Requests/second of small non-streaming requests through the openai client.
// Usage: npx tsx packages/sim-model/bench/rps.ts [--requests 1000] [--concurrency 8] [--url http://127.0.0.1:4010]
const { values } = parseArgs({
  options: {
    requests: { type: "string", default: "1000" },
    concurrency: { type: "string", default: "8" },
    url: { type: "string" },
  },
});
const total = Number(values.requests);
const concurrency = Number(values.concurrency);
const server = values.url ? undefined : await startSimModel({ logBodies: false });
const baseURL = values.url ? `${values.url.replace(/\/$/, "")}/v1` : server!.baseURL;
const tools = ["read_file", "list_dir", "glob"].map((name) => ({
  type: "function" as const,
  function: { name, parameters: { type: "object", properties: {} } },
}));

async function worker(client: OpenAI, count: number, offset: number): Promise<void> {
  for (let index = 0; index < count; index += 1) {
    await client.chat.completions.create({
      model: "sim",
      messages: [
        { role: "system", content: "You are a benchmark agent." },
        { role: "user", content: `Request ${offset + index}: explore.` },
      ],
      tools,
    });
  }
}

async function measure(label: string, clients: number): Promise<void> {
  const perClient = Math.ceil(total / clients);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: clients }, (_, index) =>
      worker(new OpenAI({ baseURL, apiKey: "sim", maxRetries: 0 }), perClient, index * perClient),
    ),
  );
  const seconds = (performance.now() - started) / 1000;
  const requests = perClient * clients;
  console.log(
    `${label}: ${requests} requests in ${seconds.toFixed(2)} s = ${Math.round(requests / seconds)} req/s`,
  );
}

await worker(new OpenAI({ baseURL, apiKey: "sim", maxRetries: 0 }), 50, -50); // warm-up
await measure("sequential (1 client)", 1);
await measure(`concurrent (${concurrency} clients)`, concurrency);
await server?.close();
