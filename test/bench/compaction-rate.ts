import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRuntime, createModelClient, loadConfig } from "@longrun/cli";
import { createTokenizer, LEDGER_FOOTER, LEDGER_HEADER } from "@longrun/compaction";
import { ModelProfile } from "@longrun/protocol";
import { createThreadWithRoot } from "@longrun/runtime";
import { simModelName, startSimModel } from "@longrun/sim-model";
import { createTempWorkspace } from "@longrun/testing";
import { startWorker } from "@longrun/worker";
import { embeddedInfra } from "./bench-infra.ts";
import { renderTable } from "./stats.ts";

// How often one agent compacts, per 100 model steps, with the default scripted sim agent in embedded
// mode (in-process queue, libSQL file, sim model over HTTP). Issue 12: at small windows the fixed
// overhead after a compaction (tools, summary, ledger, restored files) must leave room to work.

const tokenizer = createTokenizer("o200k_base");

/** Tokens of the ledger block inside a summary message. */
function ledgerTokens(content: unknown): number {
  const text = typeof content === "string" ? content : "";
  const start = text.indexOf(LEDGER_HEADER);
  const end = text.indexOf(LEDGER_FOOTER, start);
  return start < 0 || end < 0 ? 0 : tokenizer.count(text.slice(start, end + LEDGER_FOOTER.length));
}

const RESULTS = fileURLToPath(new URL("./results/compaction-rate.json", import.meta.url));

export interface CompactionRateFigures {
  maxInputTokens: number;
  simSteps: number;
  steps: number;
  compactions: number;
  compactionsPer100Steps: number;
  /** Projected tokens right after each compaction, as a share of the window. */
  afterCompactionShare: { median: number; max: number };
  /** Compactions that had to shrink something to fit (restored files, summary, ledger). */
  shrunk: number;
  /** Ledger block size per compaction, as a share of the window (max). */
  maxLedgerShare: number;
  exhausted: boolean;
}

async function runOne(maxInputTokens: number, simSteps: number): Promise<CompactionRateFigures> {
  const sim = await startSimModel({ port: 0, logBodies: false });
  const dataDir = await mkdtemp(join(tmpdir(), "longrun-bench-rate-"));
  const workspace = await createTempWorkspace();
  const config = loadConfig({
    DATABASE_URL: `file:${join(dataDir, "longrun.db")}`,
    LONGRUN_DATA_DIR: dataDir,
    OPENAI_BASE_URL: sim.baseURL,
    OPENAI_API_KEY: "sim",
    LONGRUN_TIME_ZONE: "UTC",
  });
  let steps = 0;
  const infra = await embeddedInfra(config, createModelClient(sim.baseURL, "sim"));
  const runtime = buildRuntime(infra, config);
  const worker = await startWorker({
    deps: runtime.deps,
    coordinator: runtime.coordinator,
    runControl: runtime.runControl,
    queue: infra.queue,
    bus: infra.bus,
    registry: infra.workers,
    concurrency: { agent: 1, compaction: 1 },
    workerId: "bench-rate",
  });
  let runId = "";
  let onEnd = (_type: string) => {};
  const unsubscribe = await infra.bus.subscribe("events", (message) => {
    const event = message;
    if (event.type === "message.completed") steps += 1;
    if (event.runId === runId && ["run.completed", "run.failed", "run.cancelled"].includes(event.type))
      onEnd(event.type);
  });
  try {
    const { thread, rootAgentId } = await createThreadWithRoot(runtime.deps, {
      tenantId: "bench",
      title: "compaction rate",
      workspaceDir: workspace.dir,
      modelProfile: ModelProfile.parse({
        model: simModelName({ steps: simSteps, ctx: maxInputTokens }),
        maxInputTokens,
      }),
    });
    const ended = new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("the run did not finish in 10 minutes")), 600_000);
      onEnd = (type) => {
        clearTimeout(timer);
        resolve(type);
      };
    });
    runId = (
      await runtime.runControl.admitMessage({
        threadId: thread.id,
        content: "Survey the inventory project and keep notes.",
      })
    ).runId;
    const end = await ended;
    const compactions = await infra.store.compactions.list(rootAgentId);
    const shares = compactions.map((event) => event.tokensAfter / maxInputTokens).sort((a, b) => a - b);
    const assistants = (await infra.store.messages.list(rootAgentId, { afterSeq: -1 })).filter(
      (fact) => fact.role === "assistant",
    ).length;
    steps = assistants;
    return {
      maxInputTokens,
      simSteps,
      steps,
      compactions: compactions.length,
      compactionsPer100Steps: (compactions.length / Math.max(1, steps)) * 100,
      afterCompactionShare: {
        median: shares[Math.floor(shares.length / 2)] ?? 0,
        max: shares[shares.length - 1] ?? 0,
      },
      shrunk: compactions.filter((event) => (event.shrunk ?? []).length > 0).length,
      maxLedgerShare: Math.max(
        0,
        ...compactions.map((event) => ledgerTokens(event.summaryMessage.content) / maxInputTokens),
      ),
      exhausted: end === "run.failed",
    };
  } finally {
    await unsubscribe();
    await worker.close(1_000);
    await infra.bus.close();
    await infra.store.close();
    await sim.close();
    await workspace.cleanup();
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** Compactions per 100 steps of one agent at each window (default: 8k and 16k, 120 sim steps). */
export async function runCompactionRateBench(
  options: { windows?: number[]; simSteps?: number } = {},
): Promise<CompactionRateFigures[]> {
  const figures: CompactionRateFigures[] = [];
  for (const window of options.windows ?? [8_000, 16_000]) {
    figures.push(await runOne(window, options.simSteps ?? 120));
  }
  console.log(
    renderTable(
      [
        "window",
        "steps",
        "compactions",
        "compactions/100 steps",
        "after compaction (median / max of window)",
        "shrunk",
        "ledger max",
        "run",
      ],
      figures.map((row) => [
        String(row.maxInputTokens),
        String(row.steps),
        String(row.compactions),
        row.compactionsPer100Steps.toFixed(1),
        `${(row.afterCompactionShare.median * 100).toFixed(0)} % / ${(row.afterCompactionShare.max * 100).toFixed(0)} %`,
        String(row.shrunk),
        `${(row.maxLedgerShare * 100).toFixed(1)} %`,
        row.exhausted ? "failed" : "completed",
      ]),
    ),
  );
  await mkdir(fileURLToPath(new URL("./results/", import.meta.url)), { recursive: true });
  await writeFile(RESULTS, `${JSON.stringify({ measuredAt: new Date().toISOString(), figures }, null, 2)}\n`);
  return figures;
}
