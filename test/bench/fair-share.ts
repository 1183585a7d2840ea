import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { type EmbeddedInstance, loadConfig, openLog, startEmbedded } from "@longrun/cli";
import { quantile, renderTable } from "./stats.ts";

// Tenant A's latencies idle, then while tenant B floods (20 parallel clients creating threads with
// runs, 200 attempts, then listing threads until A is done), in one embedded process with the default
// limits. The figure is the ratio of A's p50 under the flood to A's idle p50 in the same run; the
// absolute figures depend on this machine's load.

const RESULTS = fileURLToPath(new URL("./results/fair-share.json", import.meta.url));
const A_RUNS = 5;
const A_REQUESTS = 20;

interface Samples {
  run: number[];
  create: number[];
  list: number[];
}

async function request(
  instance: EmbeddedInstance,
  token: string,
  method: string,
  path: string,
  body?: object,
) {
  const response = await fetch(`${instance.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const json = (await response.json()) as {
    id?: string;
    runs?: Array<{ status: string }>;
    error?: { code: string };
  };
  return { status: response.status, json };
}

async function timed<T>(action: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await action();
  return [result, performance.now() - started];
}

/** A's sequential runs (admission to completion), thread creations and thread lists. */
async function measureA(instance: EmbeddedInstance): Promise<Samples> {
  const samples: Samples = { run: [], create: [], list: [] };
  const token = instance.token;
  for (let index = 0; index < A_RUNS; index += 1) {
    const started = performance.now();
    const created = await request(instance, token, "POST", "/v1/threads", {
      model: "sim",
      simSteps: 3,
      task: "Survey the workspace.",
    });
    if (created.status !== 201) throw new Error(`A's run was refused: ${created.status}`);
    for (;;) {
      const thread = await request(instance, token, "GET", `/v1/threads/${created.json.id}`);
      if (thread.json.runs?.[0]?.status === "completed") break;
      if (performance.now() - started > 120_000) throw new Error("A's run did not finish in 2 minutes");
      // 10 polls a second: a client well within its tenant's request rate.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    samples.run.push(performance.now() - started);
  }
  for (let index = 0; index < A_REQUESTS; index += 1) {
    const [created, ms] = await timed(() =>
      request(instance, token, "POST", "/v1/threads", { model: "sim" }),
    );
    if (created.status !== 201) throw new Error(`A's create was refused: ${created.status}`);
    samples.create.push(ms);
    samples.list.push((await timed(() => request(instance, token, "GET", "/v1/threads?limit=50")))[1]);
  }
  return samples;
}

/** `npm run bench -- fair-share`: A's p50 idle and while B floods, as a ratio. */
export async function runFairShareBench(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-fair-"));
  const config = loadConfig({ PORT: "0", LONGRUN_DATA_DIR: dataDir });
  const instance = await startEmbedded(config);
  try {
    const store = await openLog(config);
    const bobToken = (await store.apiKeys.create("B")).token;
    await store.close();

    const idle = await measureA(instance);

    const answers = new Map<string, number>();
    const count = (key: string) => answers.set(key, (answers.get(key) ?? 0) + 1);
    let flooding = true;
    // A refused connection is counted, not thrown: B is hostile, its failures are part of the figure.
    const bobRequest = (method: string, path: string, body?: object) =>
      request(instance, bobToken, method, path, body).catch((error: Error) => ({
        status: 0,
        json: { error: { code: (error.cause as { code?: string } | undefined)?.code ?? error.message } },
      }));
    const flood = Array.from({ length: 20 }, async () => {
      for (let attempt = 0; attempt < 10; attempt += 1) {
        const answer = await bobRequest("POST", "/v1/threads", {
          model: "sim",
          simSteps: 20,
          task: "Survey the workspace.",
        });
        count(answer.status === 201 ? "201" : `${answer.status} ${answer.json.error?.code ?? ""}`);
      }
      // Then keep the server busy with B's reads until A is measured (bounded).
      for (let read = 0; flooding && read < 1_000; read += 1) {
        const answer = await bobRequest("GET", "/v1/threads?limit=50");
        count(answer.status === 200 ? "200 (reads)" : `${answer.status} ${answer.json.error?.code ?? ""}`);
      }
    });
    const underFlood = await measureA(instance).finally(() => {
      flooding = false;
    });
    await Promise.all(flood);

    const rows = (["run", "create", "list"] as const).map((kind) => {
      const idleP50 = quantile(idle[kind], 0.5);
      const floodP50 = quantile(underFlood[kind], 0.5);
      return [kind, idleP50.toFixed(1), floodP50.toFixed(1), `${(floodP50 / idleP50).toFixed(2)}×`];
    });
    console.log(renderTable(["A's", "idle p50 ms", "B flooding p50 ms", "ratio"], rows));
    console.log(`B's answers: ${[...answers].map(([key, value]) => `${key}: ${value}`).join(", ")}`);
    await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
    await writeFile(
      RESULTS,
      `${JSON.stringify({ measuredAt: new Date().toISOString(), idle, underFlood, bAnswers: Object.fromEntries(answers) }, null, 2)}\n`,
    );
  } finally {
    await instance.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
